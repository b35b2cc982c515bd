//! The tree-sparse `Lᵀ D L` factor of a diagonally shifted mass matrix `M + diag(s)`, in the layout of
//! [`Model::dof_madr`] (the kernels of [`signorini_model::TreeLayout`], on buffers the integrator owns, so `Data::qld` keeps
//! the factor of the plain `M`). A diagonal shift keeps the sparsity of `M`: no fill-in.

use signorini_model::{Data, Model};

use crate::error::IntegratorError;

/// The buffers of [`crate::IntegratorScratch`], sized on first use (no allocation afterwards for the same model).
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
    pub(crate) fn reset_to_damping(&mut self, model: &Model, damping: &[f64], h: f64) {
        self.reset(model);
        for (s, b) in self.shift.iter_mut().zip(damping) {
            *s = h * b;
        }
    }

    /// Sizes and returns `shift` alone, set to the implicit damping `h·damping_d` (the factor buffers are left as
    /// they are).
    pub(crate) fn damping_shift(&mut self, damping: &[f64], h: f64) -> &mut Vec<f64> {
        self.shift.clear();
        self.shift.extend(damping.iter().map(|b| h * b));
        &mut self.shift
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
        model
            .tree_layout()
            .factor(&mut self.qh, &mut self.diag_inv)
            .map_err(|(dof, pivot)| IntegratorError::NotPositiveDefinite { dof, pivot })
    }

    /// `rhs ← (M + diag(shift))⁻¹ rhs` with the factor from [`ShiftedMass::factor`].
    pub(crate) fn solve(&mut self, model: &Model) {
        model.tree_layout().solve(&self.qh, &self.diag_inv, &mut self.rhs);
    }
}
