//! MuJoCo's `implicit` integrator: implicit in velocity with every velocity derivative of the smooth forces.
//!
//! `(M − h D) a = f_smooth + Jᵀλ` (or `M q̈`, [`ImplicitForces`]), then `q̇' = q̇ + h a` and the positions with `q̇'`, where
//! `D = ∂f_smooth/∂q̇` (MuJoCo's `qDeriv`) holds the actuators' velocity gains (`slope·Jᵀ J` over their moments), the
//! fluid forces (`Jᵀ B J`, unsymmetrised), the dof damping, the tendon dampers (`−b Jᵀ J`) and the negated
//! derivative of the bias forces ([`Model::sub_bias_velocity_derivative`]), summed in that order as MuJoCo 4.0.1's
//! `mjd_smooth_vel` sums them. `D` lives in the dof–dof layout ([`signorini_model::DerivativeLayout`]): only dofs on
//! one chain couple, so a tendon's or an actuator's coupling of two trees is left out, as MuJoCo leaves it out.
//! `M − h D` is not symmetric; it is factored as MuJoCo's `mju_factorLUSparse` factors it, `(U + 𝟙) L` from the last
//! dof up without pivoting (no fill-in on a tree), and solved as `mju_solveLUSparse` solves it.

use signorini_model::factor::mujoco_dot_sparse;
use signorini_model::fluid::FluidDerivativeScratch;
use signorini_model::{Data, DerivativeLayout, Model, RneDerivativeScratch, Transmission};

use crate::error::IntegratorError;
use crate::shifted::implicit_rhs;
use crate::{ImplicitForces, Integrator, IntegratorKind, IntegratorScratch, check_inputs, finish};

/// The `implicit` integrator (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Implicit {
    /// The right-hand side of the implicit update.
    pub forces: ImplicitForces,
}

/// `qDeriv = ∂f_smooth/∂q̇` in the dof–dof layout and the buffers that build it (shared by [`Implicit`] and
/// `implicitfast`; sized on first use).
#[derive(Debug, Clone, Default)]
pub(crate) struct VelocityDerivative {
    /// `qDeriv` (for [`Implicit`], then `M − h qDeriv` and its factor).
    pub(crate) qderiv: Vec<f64>,
    fluid: FluidDerivativeScratch,
    /// A tendon actuator's dense moment row (`nv`).
    row: Vec<f64>,
}

impl VelocityDerivative {
    /// `qDeriv` of the actuators, the fluid forces, the dof damping and the tendon dampers, summed in that order as
    /// MuJoCo 4.0.1's `mjd_smooth_vel` sums them (without the bias forces' term); an ellipsoid's fluid `B` is
    /// symmetrised on the bodies where `symmetric(body)`.
    pub(crate) fn assemble(&mut self, model: &Model, data: &Data, symmetric: impl Fn(usize) -> bool) {
        let nv = model.nv;
        let layout = &model.derivative_layout;
        self.qderiv.clear();
        self.qderiv.resize(layout.nnz(), 0.0);
        // Actuators: `slope · mᵀ m` over each moment row `m`.
        for u in 0..model.nu {
            let slope = crate::actuator_velocity_slope(model, data, u, true).unwrap_or(0.0);
            if slope == 0.0 {
                continue;
            }
            let gear = model.actuator_gear[u];
            match model.actuator_transmission[u] {
                // One non-zero: `add_outer`'s single term `gear (gear slope)`, without a dense row.
                Transmission::Joint(j) => {
                    let dof = model.jnt_dofadr[j];
                    self.qderiv[layout.dof_adr[dof] + layout.dof_diag[dof]] += gear * (gear * slope);
                }
                Transmission::Tendon(k) => {
                    self.row.clear();
                    self.row.extend(data.ten_j[k * nv..(k + 1) * nv].iter().map(|j| gear * j));
                    add_outer(layout, &mut self.qderiv, &self.row, slope);
                }
                Transmission::Site { .. } | Transmission::SliderCrank { .. } | Transmission::Body(_) => {
                    let r = model.actuator_momentadr[u].unwrap_or_default();
                    add_outer(layout, &mut self.qderiv, &data.actuator_moment[r * nv..(r + 1) * nv], slope);
                }
            }
        }
        // Passive forces: fluid, dof damping, tendon dampers.
        model.add_fluid_velocity_derivative(data, &mut self.qderiv, &mut self.fluid, symmetric);
        for dof in 0..nv {
            self.qderiv[layout.dof_adr[dof] + layout.dof_diag[dof]] -= data.dof_damping[dof];
        }
        let t = &model.tendons;
        for k in 0..t.len() {
            if t.damping[k] != 0.0 {
                add_outer(layout, &mut self.qderiv, &data.ten_j[k * nv..(k + 1) * nv], -t.damping[k]);
            }
        }
    }
}

/// The buffers of [`Implicit`] (sized on first use).
#[derive(Debug, Clone, Default)]
pub(crate) struct ImplicitScratch {
    /// `qDeriv`, then `M − h qDeriv` and its factor, in the dof–dof layout.
    pub(crate) derivative: VelocityDerivative,
    rne: RneDerivativeScratch,
    /// Entries of each row not yet eliminated (the factorisation).
    remaining: Vec<usize>,
    rhs: Vec<f64>,
    solution: Vec<f64>,
}

impl Integrator for Implicit {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Implicit
    }

    fn reads_constraint_force(&self, _data: &Data) -> bool {
        self.forces == ImplicitForces::SolverForces
    }

    fn advance(
        &self,
        model: &Model,
        data: &mut Data,
        scratch: &mut IntegratorScratch,
        qacc: &[f64],
        h: f64,
    ) -> Result<(), IntegratorError> {
        check_inputs(model, qacc, h)?;
        let qfrc_constraint = &scratch.qfrc_constraint[..];
        let s = &mut scratch.implicit;
        let layout = &model.derivative_layout;
        s.derivative.assemble(model, data, |_| false);
        let qderiv = &mut s.derivative.qderiv;
        model.sub_bias_velocity_derivative(data, &mut s.rne, qderiv);

        // M − h D, factored in place.
        for (q, &m) in qderiv.iter_mut().zip(&layout.dof_m_index) {
            *q = data.qm[m] + *q * -h;
        }
        factor_lu(layout, qderiv, &mut s.remaining)?;
        implicit_rhs(model, data, (qacc, self.forces, qfrc_constraint), &mut s.rhs);
        solve_lu(layout, qderiv, &s.rhs, &mut s.solution);
        finish(model, data, &s.solution, h);
        Ok(())
    }
}

/// `a += c·r rᵀ` over the non-zeros of `r` that the layout stores, each term `r_p (r_k c)` (MuJoCo `addJTBJ`).
fn add_outer(layout: &DerivativeLayout, a: &mut [f64], r: &[f64], c: f64) {
    for (k, &rk) in r.iter().enumerate().filter(|(_, x)| **x != 0.0) {
        let scale = rk * c;
        let (adr, cols) = (layout.dof_adr[k], layout.row(k));
        for (e, &p) in cols.iter().enumerate() {
            if r[p] != 0.0 {
                a[adr + e] += r[p] * scale;
            }
        }
    }
}

/// Factors `a` (dof–dof layout) in place as `(U + 𝟙) L`, eliminating from the last dof up without pivoting (MuJoCo's
/// `mju_factorLUSparse`: a tree has no fill-in). Errors on a pivot below MuJoCo's `mjMINVAL` in magnitude.
fn factor_lu(
    layout: &DerivativeLayout,
    a: &mut [f64],
    remaining: &mut Vec<usize>,
) -> Result<(), IntegratorError> {
    let n = layout.dof_diag.len();
    let (adr, colind) = (&layout.dof_adr, &layout.dof_colind);
    remaining.clear();
    remaining.extend((0..n).map(|i| adr[i + 1] - adr[i]));
    for i in (0..n).rev() {
        remaining[i] -= 1;
        let ii = adr[i] + remaining[i];
        let pivot = a[ii];
        if !(pivot.abs() >= 1e-15) {
            return Err(IntegratorError::NotPositiveDefinite { dof: i, pivot });
        }
        // Rows above `i` whose last remaining entry is in column `i`.
        for j in (0..i).rev() {
            if remaining[j] == 0 || colind[adr[j] + remaining[j] - 1] != i {
                continue;
            }
            remaining[j] -= 1;
            let ji = adr[j] + remaining[j];
            a[ji] /= pivot;
            let lji = a[ji];
            // Row j's entries left of column i, against row i's (a subset of them).
            let mut ic = adr[i];
            for jc in adr[j]..adr[j] + remaining[j] {
                if ic < adr[i] + remaining[i] && colind[ic] == colind[jc] {
                    a[jc] -= a[ic] * lji;
                    ic += 1;
                }
            }
        }
    }
    Ok(())
}

/// Solves `(U + 𝟙) L x = b` with the factor of [`factor_lu`] (MuJoCo `mju_solveLUSparse`, its `mju_dotSparse` sums).
fn solve_lu(layout: &DerivativeLayout, lu: &[f64], b: &[f64], x: &mut Vec<f64>) {
    let n = layout.dof_diag.len();
    let (adr, colind, diag) = (&layout.dof_adr, &layout.dof_colind, &layout.dof_diag);
    x.clear();
    x.resize(n, 0.0);
    for i in (0..n).rev() {
        x[i] = b[i];
        let (start, end) = (adr[i] + diag[i] + 1, adr[i + 1]);
        if end > start {
            x[i] -= mujoco_dot_sparse(&lu[start..end], &colind[start..end], x, |c| c);
        }
    }
    for i in 0..n {
        let d = adr[i] + diag[i];
        if diag[i] > 0 {
            x[i] -= mujoco_dot_sparse(&lu[adr[i]..d], &colind[adr[i]..d], x, |c| c);
        }
        x[i] /= lu[d];
    }
}
