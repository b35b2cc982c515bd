//! [`TreeMass`]: the mass matrix of a set of whole kinematic trees (all dofs, or one island) in the tree-sparse layout
//! of [`Model::dof_madr`], with its `Lᵀ D L` factor copied from [`Data`], so that `M x`, `M⁻¹ x` and the dense `M`
//! work on local dof indices.
//!
//! `M` is block-diagonal across kinematic trees and the factor of [`Model::factor_m`] is computed per tree, so the
//! restriction of `qM`/`qLD` to a union of trees is the matrix/factor of that sub-block.

use signorini_model::{Data, Model, TreeLayout};

/// A tree-sparse mass matrix and its factor over local dofs `0..nv`.
#[derive(Debug, Clone, Default)]
pub struct TreeMass {
    /// Number of local dofs.
    pub nv: usize,
    /// Row starts (`nv + 1`).
    madr: Vec<usize>,
    /// Local column of every stored entry (the diagonal, then the ancestors; [`Model::dof_colind`]).
    colind: Vec<usize>,
    qm: Vec<f64>,
    qld: Vec<f64>,
    diag_inv: Vec<f64>,
}

impl TreeMass {
    /// Fills `self` with the sub-block of `dofs` (increasing global indices, closed under `dof_parentid`: whole
    /// trees). `local` maps global dofs to local ones and must hold the positions of `dofs`.
    pub fn assign(&mut self, model: &Model, data: &Data, dofs: &[usize], local: &[usize]) {
        self.nv = dofs.len();
        self.madr.clear();
        self.colind.clear();
        self.qm.clear();
        self.qld.clear();
        self.diag_inv.clear();
        self.madr.push(0);
        for &g in dofs {
            let range = model.dof_madr[g]..model.dof_madr[g + 1];
            self.colind.extend(model.dof_colind[range.clone()].iter().map(|&c| local[c]));
            self.qm.extend_from_slice(&data.qm[range.clone()]);
            self.qld.extend_from_slice(&data.qld[range]);
            self.madr.push(self.qm.len());
            self.diag_inv.push(data.qld_diag_inv[g]);
        }
    }

    /// The whole model (`local` = identity).
    pub fn assign_all(&mut self, model: &Model, data: &Data) {
        self.nv = model.nv;
        self.madr.clear();
        self.madr.extend_from_slice(&model.dof_madr[..=model.nv]);
        self.colind.clear();
        self.colind.extend_from_slice(&model.dof_colind);
        self.qm.clear();
        self.qm.extend_from_slice(&data.qm);
        self.qld.clear();
        self.qld.extend_from_slice(&data.qld);
        self.diag_inv.clear();
        self.diag_inv.extend_from_slice(&data.qld_diag_inv);
    }

    /// The layout of this sub-block.
    fn layout(&self) -> TreeLayout<'_> {
        TreeLayout { madr: &self.madr, colind: &self.colind }
    }

    /// `out = M x`.
    pub fn mul(&self, x: &[f64], out: &mut [f64]) {
        self.layout().mul(&self.qm, x, out);
    }

    /// `x ← M⁻¹ x` (the same elimination as [`Model::solve_m`]).
    pub fn solve(&self, x: &mut [f64]) {
        self.layout().solve(&self.qld, &self.diag_inv, x);
    }

    /// Writes the dense `M` (row-major `nv × nv`) into `h`.
    pub fn fill_dense(&self, h: &mut [f64]) {
        let nv = self.nv;
        h[..nv * nv].fill(0.0);
        self.for_each_entry(|i, j, m| {
            h[i * nv + j] = m;
            h[j * nv + i] = m;
        });
    }

    /// Calls `f(i, j, M_ij)` for every stored entry: the diagonal (`j = i`) and every ancestor `j` of `i`.
    pub fn for_each_entry(&self, mut f: impl FnMut(usize, usize, f64)) {
        for i in 0..self.nv {
            for adr in self.madr[i]..self.madr[i + 1] {
                f(i, self.colind[adr], self.qm[adr]);
            }
        }
    }

    /// The kinematic tree of every local dof, numbered `0..` in order of their first dof.
    pub fn trees(&self, out: &mut Vec<usize>) -> usize {
        out.clear();
        let mut count = 0;
        for i in 0..self.nv {
            // The parent is the first ancestor in the row, if any.
            let t = if self.madr[i + 1] > self.madr[i] + 1 {
                out[self.colind[self.madr[i] + 1]]
            } else {
                count += 1;
                count - 1
            };
            out.push(t);
        }
        count
    }

    /// `tr M`.
    pub fn trace(&self) -> f64 {
        (0..self.nv).map(|i| self.qm[self.madr[i]]).sum()
    }
}
