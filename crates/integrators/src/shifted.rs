//! The tree-sparse `Lᵀ D L` factor of a shifted mass matrix `M + diag(s) + S`, in the layout of [`Model::dof_madr`]
//! (the kernels of [`signorini_model::TreeLayout`], on buffers the integrator owns, so `Data::qld` keeps the factor of
//! the plain `M`). A diagonal shift keeps the sparsity of `M`; so does a matrix shift `S` in `M`'s layout (the
//! velocity derivative of a force on one body, `Jᵀ B J`, couples only the dofs of its chain), factored over whole
//! rows (a simple dof's off-diagonal entries may be non-zero in `S`).

use signorini_model::{Data, Model};

use crate::ImplicitForces;
use crate::error::IntegratorError;

/// The buffers of [`crate::IntegratorScratch`], sized on first use (no allocation afterwards for the same model). The
/// factor's buffers grow only when a shift is factored, and the matrix shift only when one is set: a scene without
/// damping, actuator gains or fluid forces keeps just `shift`.
#[derive(Debug, Clone, Default)]
pub(crate) struct ShiftedMass {
    /// `∂`-terms per dof, already multiplied by `h` (`nv`).
    pub(crate) shift: Vec<f64>,
    /// A shift in the layout of `M` (`nm`), already multiplied by `h`; empty unless set.
    pub(crate) shift_matrix: Vec<f64>,
    /// Whether `shift_matrix` has non-zero entries.
    pub(crate) has_matrix: bool,
    /// Every row's full length (the layout's `rownnz` when a matrix shift is in use).
    full_rownnz: Vec<usize>,
    /// `M + diag(shift)`, then its factor (`nm`).
    qh: Vec<f64>,
    /// `1 / D` (`nv`).
    diag_inv: Vec<f64>,
    /// Right-hand side and solution (`nv`).
    pub(crate) rhs: Vec<f64>,
    /// The right-hand side kept before the solve (`nv`; the free-body blocks of `implicitfast`).
    pub(crate) qfrc: Vec<f64>,
}

impl ShiftedMass {
    /// Sizes `shift` for `model` and zeroes it; no matrix shift.
    pub(crate) fn reset(&mut self, model: &Model) {
        self.shift.clear();
        self.shift.resize(model.nv, 0.0);
        self.shift_matrix.clear();
        self.has_matrix = false;
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
        self.has_matrix = false;
        self.shift.clear();
        self.shift.extend(damping.iter().map(|b| h * b));
        &mut self.shift
    }

    /// Whether any shift is nonzero.
    pub(crate) fn any(&self) -> bool {
        self.has_matrix || self.shift.iter().any(|&s| s != 0.0)
    }

    /// Adds the fluid forces' `−h ∂f/∂q̇` to the matrix shift (after [`ShiftedMass::reset`]).
    pub(crate) fn add_fluid(&mut self, model: &Model, d: &Data, h: f64) {
        if model.medium.is_active() {
            self.shift_matrix.resize(model.nm, 0.0);
            model.fluid_velocity_jacobian(d, h, &mut self.shift_matrix);
            self.has_matrix = true;
        }
    }

    /// Sets the shift to `−h qDeriv` (`qderiv` in the dof–dof layout, [`Model::derivative_layout`]) over the lower
    /// triangle of `M`'s layout: its diagonal as `shift`, off-diagonal entries, if any, as the matrix shift (a simple
    /// dof's row keeps its diagonal only, as MuJoCo's reduced `M` does), so that `M + shift = M + qDeriv·(−h)` entry
    /// by entry (MuJoCo `implicitfast`'s `qH`).
    pub(crate) fn set_from_derivative(&mut self, model: &Model, qderiv: &[f64], h: f64) {
        let layout = &model.derivative_layout;
        let nv = model.nv;
        self.reset(model);
        let mut coupled = false;
        for i in 0..nv {
            let (adr, diag) = (layout.dof_adr[i], layout.dof_diag[i]);
            self.shift[i] = qderiv[adr + diag] * -h;
            coupled |= !model.dof_simple[i] && qderiv[adr..adr + diag].iter().any(|&q| q != 0.0);
        }
        if coupled {
            self.shift_matrix.resize(model.nm, 0.0);
            for i in (0..nv).filter(|&i| !model.dof_simple[i]) {
                let (adr, diag) = (layout.dof_adr[i], layout.dof_diag[i]);
                for (&m, &q) in layout.dof_m_index[adr..adr + diag].iter().zip(&qderiv[adr..adr + diag]) {
                    self.shift_matrix[m] = q * -h;
                }
            }
            self.has_matrix = true;
        }
    }

    /// The layout the kernels run on: the model's, or whole rows under a matrix shift.
    fn layout<'a>(&'a mut self, model: &'a Model) -> signorini_model::TreeLayout<'a> {
        if !self.has_matrix {
            return model.tree_layout();
        }
        self.full_rownnz.clear();
        self.full_rownnz.extend(model.dof_madr.windows(2).map(|w| w[1] - w[0]));
        signorini_model::TreeLayout {
            madr: &model.dof_madr,
            colind: &model.dof_colind,
            rownnz: &self.full_rownnz,
        }
    }

    /// Factors `d.qm + diag(shift)`.
    pub(crate) fn factor(&mut self, model: &Model, d: &Data) -> Result<(), IntegratorError> {
        let mut qh = std::mem::take(&mut self.qh);
        qh.clear();
        qh.extend_from_slice(&d.qm);
        for (dof, s) in self.shift.iter().enumerate() {
            qh[model.dof_madr[dof]] += s;
        }
        if self.has_matrix {
            for (q, s) in qh.iter_mut().zip(&self.shift_matrix) {
                *q += s;
            }
        }
        let mut diag_inv = std::mem::take(&mut self.diag_inv);
        diag_inv.resize(model.nv, 0.0);
        let result = self.layout(model).factor(&mut qh, &mut diag_inv);
        (self.qh, self.diag_inv) = (qh, diag_inv);
        result.map_err(|(dof, pivot)| IntegratorError::NotPositiveDefinite { dof, pivot })
    }

    /// `rhs ← (M + diag(shift) + S)⁻¹ rhs` with the factor from [`ShiftedMass::factor`].
    pub(crate) fn solve(&mut self, model: &Model) {
        let (qh, diag_inv, mut rhs) =
            (std::mem::take(&mut self.qh), std::mem::take(&mut self.diag_inv), std::mem::take(&mut self.rhs));
        self.layout(model).solve(&qh, &diag_inv, &mut rhs);
        (self.qh, self.diag_inv, self.rhs) = (qh, diag_inv, rhs);
    }
}

/// The right-hand side of an implicit update into `rhs` (`nv` entries): `f_s + Jᵀf` or `M qacc`, as `forces` says.
pub(crate) fn implicit_rhs(
    model: &Model,
    d: &Data,
    (qacc, forces, qfrc_constraint): (&[f64], ImplicitForces, &[f64]),
    rhs: &mut Vec<f64>,
) {
    rhs.resize(model.nv, 0.0);
    match forces {
        ImplicitForces::SolverForces => {
            for ((r, s), c) in rhs.iter_mut().zip(&d.qfrc_smooth).zip(qfrc_constraint) {
                *r = s + c;
            }
        }
        ImplicitForces::MassTimesAcceleration => model.mul_m(d, qacc, rhs),
    }
}
