//! The tree-sparse `Lᵀ D L` factor of a diagonally shifted mass matrix `M + diag(s)`, in the layout of
//! [`Model::dof_madr`] (same algorithm as [`Model::factor_m`], on buffers the integrator owns, so `Data::qld` keeps
//! the factor of the plain `M`). A diagonal shift keeps the sparsity of `M`: no fill-in.

use signorini_model::{Data, Model};

use crate::error::IntegratorError;

/// Scratch buffers of one integrator, sized on first use (no allocation afterwards for the same model).
#[derive(Debug, Clone, Default)]
pub(crate) struct ShiftedMass {
    /// `∂`-terms per dof, already multiplied by `h` (`nv`).
    pub(crate) shift: Vec<f64>,
    /// `M + diag(shift)`, then its factor (`nm`).
    qh: Vec<f64>,
    /// `1 / D` (`nv`).
    diag_inv: Vec<f64>,
    /// Right-hand side and solution (`nv`).
    pub(crate) rhs: Vec<f64>,
}

impl ShiftedMass {
    /// Sizes the buffers for `model` and zeroes `shift`.
    pub(crate) fn reset(&mut self, model: &Model) {
        self.shift.clear();
        self.shift.resize(model.nv, 0.0);
        self.qh.resize(model.nm, 0.0);
        self.diag_inv.resize(model.nv, 0.0);
        self.rhs.resize(model.nv, 0.0);
    }

    /// Sizes the buffers for `model` and sets the shift to the implicit damping `h·damping_d`.
    pub(crate) fn reset_to_damping(&mut self, model: &Model, h: f64) {
        self.reset(model);
        for (s, b) in self.shift.iter_mut().zip(&model.dof_damping) {
            *s = h * b;
        }
    }

    /// Whether any shift is nonzero.
    pub(crate) fn any(&self) -> bool {
        self.shift.iter().any(|&s| s != 0.0)
    }

    /// Factors `d.qm + diag(shift)`.
    pub(crate) fn factor(&mut self, model: &Model, d: &Data) -> Result<(), IntegratorError> {
        self.qh.copy_from_slice(&d.qm);
        for (dof, s) in self.shift.iter().enumerate() {
            self.qh[model.dof_madr[dof]] += s;
        }
        for k in (0..model.nv).rev() {
            let adr_kk = model.dof_madr[k];
            let dkk = self.qh[adr_kk];
            if !(dkk > 0.0 && dkk.is_finite()) {
                return Err(IntegratorError::NotPositiveDefinite { dof: k, pivot: dkk });
            }
            let inv = 1.0 / dkk;
            let (head, row_k) = self.qh.split_at_mut(adr_kk);
            let mut off = 1;
            let mut i = model.dof_parentid[k];
            while let Some(ii) = i {
                let l = row_k[off] * inv;
                let row = model.dof_madr[ii];
                let count = model.dof_madr[ii + 1] - row;
                for (target, source) in head[row..row + count].iter_mut().zip(&row_k[off..off + count]) {
                    *target -= l * source;
                }
                row_k[off] = l;
                off += 1;
                i = model.dof_parentid[ii];
            }
            self.diag_inv[k] = inv;
        }
        Ok(())
    }

    /// `rhs ← (M + diag(shift))⁻¹ rhs` with the factor from [`ShiftedMass::factor`].
    pub(crate) fn solve(&mut self, model: &Model) {
        let x = &mut self.rhs;
        for i in (0..model.nv).rev() {
            let xi = x[i];
            if xi == 0.0 {
                continue;
            }
            let mut adr = model.dof_madr[i];
            let mut j = model.dof_parentid[i];
            while let Some(jj) = j {
                adr += 1;
                x[jj] -= self.qh[adr] * xi;
                j = model.dof_parentid[jj];
            }
        }
        for (xi, inv) in x.iter_mut().zip(&self.diag_inv) {
            *xi *= inv;
        }
        for i in 0..model.nv {
            let mut adr = model.dof_madr[i];
            let mut j = model.dof_parentid[i];
            let mut acc = x[i];
            while let Some(jj) = j {
                adr += 1;
                acc -= self.qh[adr] * x[jj];
                j = model.dof_parentid[jj];
            }
            x[i] = acc;
        }
    }
}
