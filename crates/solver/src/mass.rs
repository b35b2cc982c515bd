//! [`TreeMass`]: the mass matrix of a set of whole kinematic trees (all dofs, or one island) in the tree-sparse layout
//! of [`Model::dof_madr`], with its `Lᵀ D L` factor copied from [`Data`], so that `M x`, `M⁻¹ x` and the dense `M`
//! work on local dof indices.
//!
//! `M` is block-diagonal across kinematic trees and the factor of [`Model::factor_m`] is computed per tree, so the
//! restriction of `qM`/`qLD` to a union of trees is the matrix/factor of that sub-block.

use signorini_model::{Data, Model};

/// A tree-sparse mass matrix and its factor over local dofs `0..nv`.
#[derive(Debug, Clone, Default)]
pub struct TreeMass {
    /// Number of local dofs.
    pub nv: usize,
    /// Local parent dof.
    parent: Vec<Option<usize>>,
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
        self.parent.clear();
        self.madr.clear();
        self.colind.clear();
        self.qm.clear();
        self.qld.clear();
        self.diag_inv.clear();
        self.madr.push(0);
        for &g in dofs {
            self.parent.push(model.dof_parentid[g].map(|p| local[p]));
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
        self.parent.clear();
        self.parent.extend_from_slice(&model.dof_parentid);
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

    /// `out = M x`.
    pub fn mul(&self, x: &[f64], out: &mut [f64]) {
        for i in 0..self.nv {
            out[i] = self.qm[self.madr[i]] * x[i];
        }
        for i in 0..self.nv {
            let entries = self.madr[i] + 1..self.madr[i + 1];
            let xi = x[i];
            let mut acc = out[i];
            for (&m, &j) in self.qm[entries.clone()].iter().zip(&self.colind[entries]) {
                acc += m * x[j];
                out[j] += m * xi;
            }
            out[i] = acc;
        }
    }

    /// `x ← M⁻¹ x` (the same elimination as [`Model::solve_m`]).
    pub fn solve(&self, x: &mut [f64]) {
        for i in (0..self.nv).rev() {
            let xi = x[i];
            if xi == 0.0 {
                continue;
            }
            let entries = self.madr[i] + 1..self.madr[i + 1];
            for (&l, &j) in self.qld[entries.clone()].iter().zip(&self.colind[entries]) {
                x[j] -= l * xi;
            }
        }
        for (xi, inv) in x.iter_mut().zip(&self.diag_inv) {
            *xi *= inv;
        }
        for i in 0..self.nv {
            let entries = self.madr[i] + 1..self.madr[i + 1];
            let mut acc = x[i];
            for (&l, &j) in self.qld[entries.clone()].iter().zip(&self.colind[entries]) {
                acc -= l * x[j];
            }
            x[i] = acc;
        }
    }

    /// Writes the dense `M` (row-major `nv × nv`) into `h`.
    pub fn fill_dense(&self, h: &mut [f64]) {
        let nv = self.nv;
        h[..nv * nv].fill(0.0);
        for i in 0..nv {
            let mut adr = self.madr[i];
            h[i * nv + i] = self.qm[adr];
            let mut j = self.parent[i];
            while let Some(jj) = j {
                adr += 1;
                h[i * nv + jj] = self.qm[adr];
                h[jj * nv + i] = self.qm[adr];
                j = self.parent[jj];
            }
        }
    }

    /// Calls `f(i, j, M_ij)` for every stored entry: the diagonal (`j = i`) and every ancestor `j` of `i`.
    pub fn for_each_entry(&self, mut f: impl FnMut(usize, usize, f64)) {
        for i in 0..self.nv {
            let mut adr = self.madr[i];
            f(i, i, self.qm[adr]);
            let mut j = self.parent[i];
            while let Some(jj) = j {
                adr += 1;
                f(i, jj, self.qm[adr]);
                j = self.parent[jj];
            }
        }
    }

    /// The kinematic tree of every local dof, numbered `0..` in order of their first dof.
    pub fn trees(&self, out: &mut Vec<usize>) -> usize {
        out.clear();
        let mut count = 0;
        for i in 0..self.nv {
            let t = match self.parent[i] {
                Some(p) => out[p],
                None => {
                    count += 1;
                    count - 1
                }
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
