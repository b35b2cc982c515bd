//! The classical fourth-order Runge–Kutta integrator (MuJoCo `mj_RungeKutta` with `N = 4`).
//!
//! The state `x = (q, q̇)` evolves by `ẋ = f(x) = (q̇, a(q, q̇))`, where `a` is the full forward dynamics of the
//! caller (smooth forces, collision, constraint solve). With the Butcher tableau
//!
//! ```text
//!  c | A              0   |
//!  --+---            1/2  | 1/2
//!    | bᵀ            1/2  |  0   1/2
//!                     1   |  0    0    1
//!                    -----+--------------------
//!                         | 1/6  1/3  1/3  1/6
//! ```
//!
//! evaluation `i` sees `xᵢ = x₀ ⊕ h Σⱼ Aᵢⱼ f(xⱼ)` at time `t₀ + cᵢ h`, and the step is `x₀ ⊕ h Σⱼ bⱼ f(xⱼ)`
//! (actuator activations are part of the state, with `act_dot` their rate). The
//! position part of `⊕` is [`Model::integrate_qpos`] (orientations by the exponential map of the weighted
//! velocity), the velocity part a plain sum. All terms are explicit: joint damping and actuator velocity gains enter
//! through `a` only.

use signorini_model::{Data, Model};

use crate::error::IntegratorError;
use crate::{Integrator, IntegratorKind, IntegratorScratch, check_inputs};

/// Evaluations per step.
const STAGES: usize = 4;
/// `Aᵢⱼ` for the evaluations after the first (row `i − 1`, lower triangle).
const A: [[f64; STAGES - 1]; STAGES - 1] = [[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]];
/// The weights `bⱼ` of the final update.
const B: [f64; STAGES] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];

/// The stage buffers of [`Rk4`] in [`IntegratorScratch`]: the start state and each evaluation's `(q̇, a)`.
#[derive(Debug, Clone, Default)]
pub(crate) struct RungeKuttaStages {
    qpos0: Vec<f64>,
    qvel0: Vec<f64>,
    act0: Vec<f64>,
    time0: f64,
    /// `act_dot` of evaluation `j` (`STAGES × na`).
    act_dot: [Vec<f64>; STAGES],
    dact: Vec<f64>,
    /// `q̇` of evaluation `j` (`STAGES × nv`).
    vel: [Vec<f64>; STAGES],
    /// `a` of evaluation `j` (`STAGES × nv`).
    acc: [Vec<f64>; STAGES],
    /// The weighted sums `Σ wⱼ q̇ⱼ`, `Σ wⱼ aⱼ` of the next update.
    dvel: Vec<f64>,
    dacc: Vec<f64>,
}

impl RungeKuttaStages {
    /// Records evaluation `stage` (its state is `data`'s, its acceleration `qacc`); the first one also saves the start
    /// state.
    fn record(&mut self, data: &Data, stage: usize, qacc: &[f64]) {
        if stage == 0 {
            self.qpos0.clone_from(&data.qpos);
            self.qvel0.clone_from(&data.qvel);
            self.act0.clone_from(&data.act);
            self.time0 = data.time;
        }
        self.act_dot[stage].clone_from(&data.act_dot);
        self.vel[stage].clone_from(&data.qvel);
        self.acc[stage].clear();
        self.acc[stage].extend_from_slice(qacc);
    }

    /// `dvel = Σⱼ wⱼ q̇ⱼ`, `dacc = Σⱼ wⱼ aⱼ` over the recorded evaluations `j < weights.len()`.
    fn combine(&mut self, weights: &[f64]) {
        let nv = self.qvel0.len();
        self.dvel.clear();
        self.dvel.resize(nv, 0.0);
        self.dacc.clear();
        self.dacc.resize(nv, 0.0);
        self.dact.clear();
        self.dact.resize(self.act0.len(), 0.0);
        for (j, &w) in weights.iter().enumerate() {
            for k in 0..nv {
                self.dvel[k] += w * self.vel[j][k];
                self.dacc[k] += w * self.acc[j][k];
            }
            for (d, a) in self.dact.iter_mut().zip(&self.act_dot[j]) {
                *d += w * a;
            }
        }
    }

    /// Puts `data` at `x₀ ⊕ h (dvel, dacc, dact)`; the activations of a stage by a plain Euler step, of the end of the
    /// step by [`Model::advance_activations`] (exact filters, `actrange`), as MuJoCo.
    fn apply(&self, model: &Model, data: &mut Data, h: f64, end: bool) {
        data.qpos.copy_from_slice(&self.qpos0);
        model.integrate_qpos(&mut data.qpos, &self.dvel, h);
        for ((v, v0), a) in data.qvel.iter_mut().zip(&self.qvel0).zip(&self.dacc) {
            *v = v0 + h * a;
        }
        data.act.copy_from_slice(&self.act0);
        if end {
            model.advance_activations(&mut data.act, &self.dact, h);
        } else {
            for (a, d) in data.act.iter_mut().zip(&self.dact) {
                *a += h * d;
            }
        }
    }
}

/// MuJoCo's `RK4`: four evaluations of the full dynamics per step (see the module documentation). It has no implicit
/// terms, so stiff damping needs a small step, as in MuJoCo.
///
/// After the step `Data::qacc` is the last evaluation's acceleration (MuJoCo's `d->qacc`, which also warm-starts
/// the next step's constraint solve), not the weighted one that advanced `q̇`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rk4;

impl Integrator for Rk4 {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Rk4
    }

    fn evaluations(&self) -> usize {
        STAGES
    }

    fn stage(
        &self,
        model: &Model,
        data: &mut Data,
        scratch: &mut IntegratorScratch,
        stage: usize,
        qacc: &[f64],
        h: f64,
    ) -> Result<(), IntegratorError> {
        check_inputs(model, qacc, h)?;
        if stage + 1 >= STAGES {
            return Err(IntegratorError::Stage { stage, evaluations: STAGES });
        }
        let s = &mut scratch.stages;
        s.record(data, stage, qacc);
        let row = &A[stage];
        s.combine(&row[..=stage]);
        s.apply(model, data, h, false);
        data.time = s.time0 + row.iter().sum::<f64>() * h;
        Ok(())
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
        let s = &mut scratch.stages;
        if s.qpos0.len() != model.nq || s.vel[..STAGES - 1].iter().any(|v| v.len() != model.nv) {
            return Err(IntegratorError::Stage { stage: STAGES - 1, evaluations: STAGES });
        }
        s.record(data, STAGES - 1, qacc);
        s.combine(&B);
        s.apply(model, data, h, true);
        data.qacc.copy_from_slice(qacc);
        data.time = s.time0 + h;
        Ok(())
    }
}

/// Check of the tableau itself: consistent (`cᵢ = Σⱼ Aᵢⱼ`, `Σ bⱼ = 1`) and fourth order on `ẏ = y`.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tableau_is_the_classical_one() {
        assert!((B.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        let c: Vec<f64> = A.iter().map(|r| r.iter().sum()).collect();
        assert_eq!(c, [0.5, 0.5, 1.0]);
        // One step of ẏ = y from y = 1 gives the Taylor series of e^h to h⁴.
        let h: f64 = 0.1;
        let mut k = [0.0; STAGES];
        k[0] = 1.0;
        for i in 1..STAGES {
            k[i] = 1.0 + h * (0..i).map(|j| A[i - 1][j] * k[j]).sum::<f64>();
        }
        let y = 1.0 + h * (0..STAGES).map(|j| B[j] * k[j]).sum::<f64>();
        let taylor = 1.0 + h + h * h / 2.0 + h.powi(3) / 6.0 + h.powi(4) / 24.0;
        assert!((y - taylor).abs() < 1e-15, "{y} vs {taylor}");
    }
}
