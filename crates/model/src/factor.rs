//! Sparse factorization `M = Lᵀ D L` that follows the tree (MuJoCo `mj_factorM` / `mj_solveM`).
//!
//! `L` is unit lower-triangular with the sparsity of `M`'s lower triangle: row `i` has nonzeros only at the dofs on
//! its chain to the root, so eliminating from the last dof up creates no fill-in. `qld` holds `D` on the diagonal
//! entries and `L` off the diagonal, in the layout of [`Model::dof_madr`]; `qld_diag_inv = 1/D`. Cost: the sum of
//! squared chain lengths to factor, `nm` multiply-adds per solve.

use crate::data::Data;
use crate::error::DynamicsError;
use crate::model::Model;

impl Model {
    /// Factors `d.qm` into `d.qld`, `d.qld_diag_inv`. Errors on a pivot that is not positive and finite.
    pub fn factor_m(&self, d: &mut Data) -> Result<(), DynamicsError> {
        d.qld.copy_from_slice(&d.qm);
        for k in (0..self.nv).rev() {
            let adr_kk = self.dof_madr[k];
            let dkk = d.qld[adr_kk];
            if !(dkk > 0.0 && dkk.is_finite()) {
                return Err(DynamicsError::NotPositiveDefinite { dof: k, pivot: dkk });
            }
            let inv = 1.0 / dkk;
            let (head, row_k) = d.qld.split_at_mut(adr_kk);
            let mut off = 1;
            let mut i = self.dof_parentid[k];
            while let Some(ii) = i {
                let l = row_k[off] * inv;
                let row = self.dof_madr[ii];
                let count = self.dof_madr[ii + 1] - row;
                for (target, source) in head[row..row + count].iter_mut().zip(&row_k[off..off + count]) {
                    *target -= l * source;
                }
                row_k[off] = l;
                off += 1;
                i = self.dof_parentid[ii];
            }
            d.qld_diag_inv[k] = inv;
        }
        Ok(())
    }

    /// `x ← M⁻¹ x` with the factor from [`Model::factor_m`].
    pub fn solve_m(&self, d: &Data, x: &mut [f64]) {
        assert_eq!(x.len(), self.nv, "solve_m: x needs nv entries");
        for i in (0..self.nv).rev() {
            let xi = x[i];
            if xi == 0.0 {
                continue;
            }
            let entries = self.dof_madr[i] + 1..self.dof_madr[i + 1];
            for (&l, &j) in d.qld[entries.clone()].iter().zip(&self.dof_colind[entries]) {
                x[j] -= l * xi;
            }
        }
        for (xi, inv) in x.iter_mut().zip(&d.qld_diag_inv) {
            *xi *= inv;
        }
        for i in 0..self.nv {
            let entries = self.dof_madr[i] + 1..self.dof_madr[i + 1];
            let mut acc = x[i];
            for (&l, &j) in d.qld[entries.clone()].iter().zip(&self.dof_colind[entries]) {
                acc -= l * x[j];
            }
            x[i] = acc;
        }
    }
}
