//! [`TreeMass`]: the mass matrix of a set of whole kinematic trees (all dofs, or one island) in the tree-sparse layout
//! of [`Model::dof_madr`], with its `Lᵀ D L` factor copied from [`Data`], so that `M x`, `M⁻¹ x` and the dense `M`
//! work on local dof indices.
//!
//! `M` is block-diagonal across kinematic trees and the factor of [`Model::factor_m`] is computed per tree, so the
//! restriction of `qM`/`qLD` to a union of trees is the matrix/factor of that sub-block.

use signorini_model::model::tree_ids;
use signorini_model::{Data, Model, TreeLayout};

/// A tree-sparse mass matrix and its factor over local dofs `0..nv`.
///
/// Rows keep the entries [`Model::dof_rownnz`] names: the diagonal alone for the dofs of simple bodies (their
/// off-diagonal entries are zero), so `M x` and `M⁻¹ x` skip them, and when every row is diagonal the kernels are a
/// diagonal scaling.
#[derive(Debug, Clone, Default)]
pub struct TreeMass {
    /// Number of local dofs.
    pub nv: usize,
    /// Row starts (`nv + 1`) and the entries the kernels read per row (`nv`).
    madr: Vec<usize>,
    rownnz: Vec<usize>,
    /// Local column of every stored entry (the diagonal, then the ancestors, decreasing).
    colind: Vec<usize>,
    qm: Vec<f64>,
    qld: Vec<f64>,
    diag_inv: Vec<f64>,
    /// The kinematic tree of every local dof, numbered `0..` in order of their first dof.
    tree: Vec<usize>,
    /// Number of trees.
    ntrees: usize,
    /// Whether every row is diagonal.
    diagonal: bool,
}

impl TreeMass {
    /// Fills `self` with the sub-block of `dofs` (increasing global indices, closed under `dof_parentid`: whole
    /// trees). `local` maps global dofs to local ones and must hold the positions of `dofs`.
    pub fn assign(&mut self, model: &Model, data: &Data, dofs: &[usize], local: &[usize]) {
        self.nv = dofs.len();
        self.madr.clear();
        self.rownnz.clear();
        self.colind.clear();
        self.qm.clear();
        self.qld.clear();
        self.diag_inv.clear();
        self.madr.push(0);
        for &g in dofs {
            let (start, n) = (model.dof_madr[g], model.dof_rownnz[g]);
            let row = start..start + n;
            self.colind.extend(model.dof_colind[row.clone()].iter().map(|&c| local[c]));
            self.qm.extend_from_slice(&data.qm[row.clone()]);
            self.qld.extend_from_slice(&data.qld[row]);
            self.rownnz.push(n);
            self.madr.push(self.qm.len());
            self.diag_inv.push(data.qld_diag_inv[g]);
        }
        self.finish(dofs.iter().map(|&g| model.dof_parentid[g].map(|p| local[p])));
    }

    /// The whole model (`local` = identity).
    pub fn assign_all(&mut self, model: &Model, data: &Data) {
        self.nv = model.nv;
        self.madr.clear();
        self.madr.extend_from_slice(&model.dof_madr[..=model.nv]);
        self.rownnz.clear();
        self.rownnz.extend_from_slice(&model.dof_rownnz);
        self.colind.clear();
        self.colind.extend_from_slice(&model.dof_colind);
        self.qm.clear();
        self.qm.extend_from_slice(&data.qm);
        self.qld.clear();
        self.qld.extend_from_slice(&data.qld);
        self.diag_inv.clear();
        self.diag_inv.extend_from_slice(&data.qld_diag_inv);
        self.tree.clone_from(&model.dof_treeid);
        self.ntrees = model.ntree;
        self.diagonal = model.dof_rownnz.iter().all(|&n| n == 1);
    }

    /// Trees from the local parents, and the diagonal flag.
    fn finish(&mut self, parents: impl Iterator<Item = Option<usize>>) {
        self.ntrees = tree_ids(parents, &mut self.tree);
        self.diagonal = self.rownnz.iter().all(|&n| n == 1);
    }

    /// The layout of this sub-block.
    fn layout(&self) -> TreeLayout<'_> {
        TreeLayout { madr: &self.madr, colind: &self.colind, rownnz: &self.rownnz }
    }

    /// `out = M x`.
    pub fn mul(&self, x: &[f64], out: &mut [f64]) {
        if self.diagonal {
            for ((o, &adr), x) in out[..self.nv].iter_mut().zip(&self.madr).zip(x) {
                *o = self.qm[adr] * x;
            }
        } else {
            self.layout().mul(&self.qm, x, out);
        }
    }

    /// `x ← M⁻¹ x` (the same elimination as [`Model::solve_m`]).
    pub fn solve(&self, x: &mut [f64]) {
        if self.diagonal {
            for (x, inv) in x[..self.nv].iter_mut().zip(&self.diag_inv) {
                *x *= inv;
            }
        } else {
            self.layout().solve(&self.qld, &self.diag_inv, x);
        }
    }

    /// `x ← M⁻¹ x` on `dofs` only (increasing, whole trees), where `x` may be nonzero.
    pub fn solve_on(&self, x: &mut [f64], dofs: &[usize]) {
        if self.diagonal {
            for &d in dofs {
                x[d] *= self.diag_inv[d];
            }
        } else {
            self.layout().solve_on(&self.qld, &self.diag_inv, x, dofs);
        }
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
            for adr in self.madr[i]..self.madr[i] + self.rownnz[i] {
                f(i, self.colind[adr], self.qm[adr]);
            }
        }
    }

    /// The kinematic tree of every local dof, numbered `0..` in order of their first dof; returns their count.
    pub fn trees(&self, out: &mut Vec<usize>) -> usize {
        out.clear();
        out.extend_from_slice(&self.tree);
        self.ntrees
    }

    /// `tr M`.
    pub fn trace(&self) -> f64 {
        (0..self.nv).map(|i| self.qm[self.madr[i]]).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};
    use signorini_model::{BodySpec, InertialSpec, JointSpec, ModelSpec};

    fn inertial(mass: f64, quat: DQuat) -> InertialSpec {
        InertialSpec { mass, inertia: DVec3::new(0.1, 0.2, 0.15) * mass, pos: DVec3::ZERO, quat }
    }

    /// Free bodies with these inertia frames (identity: simple), after `spec`'s other bodies.
    fn add_free_bodies(spec: &mut ModelSpec, quats: &[DQuat]) {
        for (k, &quat) in quats.iter().enumerate() {
            let mut f = BodySpec::new(format!("f{k}"), 0, DVec3::new(k as f64, 0.0, 0.5), DQuat::IDENTITY);
            f.inertial = inertial(1.0 + k as f64, quat);
            f.joints.push(JointSpec::free(format!("f{k}")));
            spec.add_body(f);
        }
    }

    /// Compiled, at a pose away from `qpos0`.
    fn posed(spec: ModelSpec) -> (Model, Data) {
        let model = Model::compile(spec).expect("compiles");
        let mut data = Data::new(&model);
        for (i, q) in data.qpos.iter_mut().enumerate() {
            *q += 0.1 * (i as f64 + 1.0).sin();
        }
        model.forward(&mut data).expect("forward");
        (model, data)
    }

    /// A hinge → hinge chain (full rows), two simple free bodies (diagonal rows) and a free body with a tilted
    /// inertia frame (full rows).
    fn model() -> (Model, Data) {
        let mut spec = ModelSpec::default();
        let mut a = BodySpec::new("a", 0, DVec3::Z, DQuat::IDENTITY);
        a.inertial = InertialSpec { pos: DVec3::new(0.1, 0.0, 0.0), ..inertial(1.0, DQuat::IDENTITY) };
        a.joints.push(JointSpec::hinge("ha", DVec3::Y));
        let a = spec.add_body(a);
        let mut b = BodySpec::new("b", a, DVec3::new(0.3, 0.0, 0.0), DQuat::IDENTITY);
        b.inertial = InertialSpec { pos: DVec3::new(0.1, 0.0, 0.0), ..inertial(0.5, DQuat::IDENTITY) };
        b.joints.push(JointSpec::hinge("hb", DVec3::X));
        spec.add_body(b);
        add_free_bodies(&mut spec, &[DQuat::IDENTITY, DQuat::IDENTITY, DQuat::from_rotation_x(0.4)]);
        posed(spec)
    }

    /// `M x` and `M⁻¹ x` of `mass` (the whole model) against the model's own kernels, exactly.
    fn assert_whole_model(model: &Model, data: &Data, mass: &TreeMass) {
        let x: Vec<f64> = (0..model.nv).map(|i| (i as f64 * 0.7).cos()).collect();
        let (mut mx, mut minv) = (vec![0.0; model.nv], x.clone());
        model.mul_m(data, &x, &mut mx);
        model.solve_m(data, &mut minv);
        let mut out = vec![0.0; model.nv];
        mass.mul(&x, &mut out);
        assert_eq!(out, mx);
        let mut y = x.clone();
        mass.solve(&mut y);
        assert_eq!(y, minv);
    }

    #[test]
    fn diagonal_rows_leave_products_and_solves_unchanged() {
        let (model, data) = model();
        assert_eq!(model.dof_simple.iter().filter(|&&s| s).count(), 12);
        let mut all = TreeMass::default();
        all.assign_all(&model, &data);
        assert!(!all.diagonal);
        assert_whole_model(&model, &data, &all);
        let mut trees = Vec::new();
        assert_eq!(all.trees(&mut trees), 4);
        assert_eq!(trees, [0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3]);

        // The two simple bodies alone: a diagonal block.
        let x: Vec<f64> = (0..model.nv).map(|i| (i as f64 * 0.7).cos()).collect();
        let mut minv = x.clone();
        model.solve_m(&data, &mut minv);
        let dofs: Vec<usize> = (2..14).collect();
        let mut local = vec![usize::MAX; model.nv];
        for (l, &g) in dofs.iter().enumerate() {
            local[g] = l;
        }
        let mut simple = TreeMass::default();
        simple.assign(&model, &data, &dofs, &local);
        assert!(simple.diagonal);
        let mut out = vec![0.0; 12];
        simple.mul(&x[2..14], &mut out);
        let mut y = x[2..14].to_vec();
        simple.solve(&mut y);
        for (l, &g) in dofs.iter().enumerate() {
            let m = data.qm[model.dof_madr[g]];
            assert_eq!(out[l], m * x[g]);
            assert!((y[l] - minv[g]).abs() <= 1e-15 * minv[g].abs());
        }
        assert_eq!(simple.trees(&mut trees), 2);

        // A model of simple bodies only: the whole-model copy keeps the full layout and is diagonal.
        let mut spec = ModelSpec::default();
        add_free_bodies(&mut spec, &[DQuat::IDENTITY, DQuat::IDENTITY]);
        let (model, data) = posed(spec);
        let mut all = TreeMass::default();
        all.assign_all(&model, &data);
        assert!(all.diagonal);
        assert_whole_model(&model, &data, &all);
    }
}
