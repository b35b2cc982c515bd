//! Joint-space inertia `M(q)` by the composite-rigid-body algorithm (MuJoCo `mj_crb`), armature on the diagonal.
//!
//! Composite inertias `Iᶜ_b = Σ_{k ∈ subtree(b)} cinert_k` (all at the tree reference point). For a dof `i` of body
//! `b` and every dof `j` on its chain to the root, `M[i][j] = cdof_jᵀ (Iᶜ_b cdof_i)`; all other entries are zero.
//! A simple dof ([`Model::dof_simple`]) takes its constant diagonal `dof_m0` and zeros instead.
//! Storage: the sparse layout of [`Model::dof_madr`]; [`Model::dense_qm`] expands it.

use crate::data::Data;
use crate::model::Model;

impl Model {
    /// Computes `qm` from `cdof` and `cinert` (run [`Model::forward_kinematics`] first).
    pub fn mass_matrix(&self, d: &mut Data) {
        d.crb.copy_from_slice(&d.cinert);
        for b in (1..self.nbody).rev() {
            let p = self.body_parent[b];
            if p > 0 {
                let child = d.crb[b];
                d.crb[p] += child;
            }
        }
        for i in 0..self.nv {
            if !d.dof_awake[i] {
                continue;
            }
            if self.dof_simple[i] {
                let row = self.dof_madr[i]..self.dof_madr[i + 1];
                d.qm[row.clone()].fill(0.0);
                d.qm[row.start] = d.dof_m0[i];
                continue;
            }
            let f = d.crb[self.dof_bodyid[i]].mul_motion(d.cdof[i]);
            let mut adr = self.dof_madr[i];
            d.qm[adr] = d.cdof[i].dot(f) + d.dof_armature[i];
            let mut j = self.dof_parentid[i];
            while let Some(jj) = j {
                adr += 1;
                d.qm[adr] = d.cdof[jj].dot(f);
                j = self.dof_parentid[jj];
            }
        }
    }

    /// The dense, symmetric `nv × nv` matrix (row-major) stored sparsely in `sparse` (`qm` or any matrix in the
    /// [`Model::dof_madr`] layout). Allocates; for tests and inspection.
    pub fn dense_from_sparse(&self, sparse: &[f64]) -> Vec<f64> {
        let nv = self.nv;
        let mut dense = vec![0.0; nv * nv];
        for i in 0..nv {
            for (adr, j) in (self.dof_madr[i]..).zip(self.dof_chain_from(i)) {
                dense[i * nv + j] = sparse[adr];
                dense[j * nv + i] = sparse[adr];
            }
        }
        dense
    }

    /// The dense `M(q)` (row-major `nv × nv`) of `d.qm`. Allocates; for tests and inspection.
    pub fn dense_qm(&self, d: &Data) -> Vec<f64> {
        self.dense_from_sparse(&d.qm)
    }

    /// `out = M x` with the sparse `qm`.
    pub fn mul_m(&self, d: &Data, x: &[f64], out: &mut [f64]) {
        assert!(x.len() == self.nv && out.len() == self.nv, "mul_m: x and out need nv entries");
        self.tree_layout().mul(&d.qm, x, out);
    }
}
