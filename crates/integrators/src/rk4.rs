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
//!
//! Orientations follow Runge–Kutta–Munthe-Kaas, as MuJoCo 4.0.1's `mj_RungeKutta` does (read off its machine code;
//! its published source sums the angular velocities as they are): a ball or free joint at stage `i` sits at
//! `R₀ exp(θᵢ)` with `θᵢ = h Σⱼ Aᵢⱼ kⱼ`, and the rate its rotation vector contributes to the later sums is not the
//! body-frame angular velocity `ωᵢ` but `kᵢ = dexp⁻¹_θᵢ(ωᵢ)` ([`rotation_vector_rate`]; `k₀ = ω₀`). Without it a
//! tumbling body's stages mix tangent spaces, a first-order error in `θ` (1e-5 m on a box's first contact).

use signorini_model::{Data, JointKind, Model};

use crate::error::IntegratorError;
use crate::{Integrator, IntegratorKind, IntegratorScratch, check_inputs};

/// Evaluations per step.
const STAGES: usize = 4;
/// `Aᵢⱼ` for the evaluations after the first (row `i − 1`, lower triangle).
const A: [[f64; STAGES - 1]; STAGES - 1] = [[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]];
/// The weights `bⱼ` of the final update.
const B: [f64; STAGES] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];
/// MuJoCo 4.0.1's polynomial for `c(t) = (1 − (θ/2) cot(θ/2)) / θ²` in `t = θ²` on `t < 1.75²`, highest power
/// first (read off its library: a fit whose low terms are the Taylor series `1/12 + t/720 + t²/30240 + …`).
const DEXP_SERIES: [f64; 9] = [
    1.230313397310169e-14,
    3.161551550077822e-13,
    1.3455485951057888e-11,
    5.282849430384459e-10,
    2.0876900642039142e-08,
    8.267194907152073e-07,
    3.30687830944332e-05,
    0.0013888888888859755,
    0.08333333333333338,
];
/// Below this `θ²` the coefficient `c` comes from [`DEXP_SERIES`], above it from the tangent.
const DEXP_SERIES_LIMIT: f64 = 3.0625;

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
    /// `a` of evaluation `j` (`STAGES × nv`).
    acc: [Vec<f64>; STAGES],
    /// The rates `kⱼ` whose weighted sums move the positions: `q̇ⱼ`, with each ball and free joint's rotational
    /// part replaced by its rotation vector's rate [`rotation_vector_rate`] (`STAGES × nv`).
    vel: [Vec<f64>; STAGES],
    /// The weighted sums `Σ wⱼ q̇ⱼ`, `Σ wⱼ aⱼ` of the next update.
    dvel: Vec<f64>,
    dacc: Vec<f64>,
}

impl RungeKuttaStages {
    /// Records evaluation `stage` (its state is `data`'s, its acceleration `qacc`); the first one also saves the start
    /// state and its rate `k₀ = q̇₀` (a later stage's rate is set by [`RungeKuttaStages::apply`]).
    fn record(&mut self, data: &Data, stage: usize, qacc: &[f64]) {
        if stage == 0 {
            self.qpos0.clone_from(&data.qpos);
            self.qvel0.clone_from(&data.qvel);
            self.act0.clone_from(&data.act);
            self.time0 = data.time;
            self.vel[0].clone_from(&data.qvel);
        }
        self.act_dot[stage].clone_from(&data.act_dot);
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
    /// step by [`Model::advance_activations`] (exact filters, `actrange`), as MuJoCo. For stage `stage` (not the end)
    /// it also sets that stage's rate `k_stage` from its velocity and `θ = h dvel`.
    fn apply(&mut self, model: &Model, data: &mut Data, h: f64, stage: Option<usize>) {
        data.qpos.copy_from_slice(&self.qpos0);
        model.integrate_qpos(&mut data.qpos, &self.dvel, h);
        for ((v, v0), a) in data.qvel.iter_mut().zip(&self.qvel0).zip(&self.dacc) {
            *v = v0 + h * a;
        }
        data.act.copy_from_slice(&self.act0);
        match stage {
            None => model.advance_activations(&mut data.act, &self.dact, h),
            Some(i) => {
                for (a, d) in data.act.iter_mut().zip(&self.dact) {
                    *a += h * d;
                }
                self.vel[i].clone_from(&data.qvel);
                rotation_rates(model, &self.dvel, &mut self.vel[i], h);
            }
        }
    }
}

/// Replaces, in the stage velocity `vel`, each ball and free joint's body-frame angular velocity `ω` by
/// [`rotation_vector_rate`]`(θ, ω)` with the stage's rotation vector `θ = h dvel` of the joint.
fn rotation_rates(model: &Model, dvel: &[f64], vel: &mut [f64], h: f64) {
    for j in 0..model.njnt {
        let a = match model.jnt_type[j] {
            JointKind::Free => model.jnt_dofadr[j] + 3,
            JointKind::Ball => model.jnt_dofadr[j],
            JointKind::Hinge | JointKind::Slide => continue,
        };
        let theta = [h * dvel[a], h * dvel[a + 1], h * dvel[a + 2]];
        let rate = rotation_vector_rate(theta, [vel[a], vel[a + 1], vel[a + 2]]);
        vel[a..a + 3].copy_from_slice(&rate);
    }
}

/// [`DEXP_SERIES`] at `t = θ²` by Horner's scheme, as MuJoCo evaluates it.
fn dexp_series(t2: f64) -> f64 {
    DEXP_SERIES[2..].iter().fold(t2 * DEXP_SERIES[0] + DEXP_SERIES[1], |acc, &k| acc * t2 + k)
}

/// `θ̇ = dexp⁻¹_θ(ω) = ω + ½ θ×ω + c(θ) θ×(θ×ω)`, `c = (1 − (‖θ‖/2) cot(‖θ‖/2)) / ‖θ‖²`: the rate of the rotation
/// vector `θ` of an orientation `R₀ exp(θ)` turning at the body-frame angular velocity `ω`. A `θ` longer than `π`
/// is first wrapped to the same rotation's shortest vector. In MuJoCo 4.0.1's operation order (`c` from
/// [`DEXP_SERIES`] below `θ² = 1.75²`), bit for bit.
fn rotation_vector_rate(theta: [f64; 3], w: [f64; 3]) -> [f64; 3] {
    use std::f64::consts::{PI, TAU};
    let norm2 = |t: [f64; 3]| t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
    let mut t = theta;
    let mut t2 = norm2(t);
    if t2 > PI * PI {
        let n = t2.sqrt();
        let s = ((n / TAU + 0.5).floor() * -TAU + n) / n;
        t = t.map(|x| x * s);
        t2 = norm2(t);
    }
    let c = if t2 < DEXP_SERIES_LIMIT {
        dexp_series(t2)
    } else {
        let half = 0.5 * t2.sqrt();
        (1.0 - half / half.tan()) / t2
    };
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    };
    let tw = cross(t, w);
    let ttw = cross(t, tw);
    [0, 1, 2].map(|k| (0.5 * tw[k] + w[k]) + c * ttw[k])
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
        s.apply(model, data, h, Some(stage + 1));
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
        if s.qpos0.len() != model.nq || s.vel.iter().any(|v| v.len() != model.nv) {
            return Err(IntegratorError::Stage { stage: STAGES - 1, evaluations: STAGES });
        }
        s.record(data, STAGES - 1, qacc);
        s.combine(&B);
        s.apply(model, data, h, None);
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

    /// `dexp⁻¹` against central differences of `θ(ε) = log(exp(θ) exp(ε ω))` (glam's quaternion exponential and
    /// logarithm), on both sides of the series' limit and past half a turn (where the rate is that of the wrapped
    /// vector, the logarithm's).
    #[test]
    fn rotation_vector_rate_is_the_derivative_of_the_logarithm() {
        use glam::{DQuat, DVec3};
        let log = |q: DQuat| {
            let q = if q.w < 0.0 { -q } else { q };
            q.to_scaled_axis()
        };
        let omega = DVec3::new(0.3, -1.1, 0.7);
        for (theta, tolerance) in [
            (DVec3::ZERO, 1e-9),
            (DVec3::new(1e-4, 2e-4, -1e-4), 1e-9),
            (DVec3::new(0.4, -0.3, 0.2), 1e-9),
            (DVec3::new(1.0, 0.9, -0.8), 1e-9),
            (DVec3::new(1.5, -1.6, 0.9), 1e-8),
            (DVec3::new(2.8, 2.0, -1.5), 1e-8),
        ] {
            let eps = 1e-6;
            let q = DQuat::from_scaled_axis(theta);
            let step = |e: f64| log(q * DQuat::from_scaled_axis(omega * e));
            let expected = (step(eps) - step(-eps)) / (2.0 * eps);
            let rate = DVec3::from_array(rotation_vector_rate(theta.to_array(), omega.to_array()));
            assert!((rate - expected).length() < tolerance, "θ = {theta}: {rate} vs {expected}");
        }
    }

    /// The series of `c(t)` equals its closed form `(1 − (θ/2) cot(θ/2)) / θ²` where both are accurate.
    #[test]
    fn dexp_series_matches_the_closed_form() {
        for i in 1..=100 {
            let t2 = DEXP_SERIES_LIMIT * f64::from(i) / 100.0;
            let series = dexp_series(t2);
            let half = 0.5 * t2.sqrt();
            let closed = (1.0 - half / half.tan()) / t2;
            // The closed form loses digits to cancellation at small θ: 1e-16 / t of absolute error.
            assert!((series - closed).abs() < 2e-16 / t2 + 1e-16, "t = {t2}: {series} vs {closed}");
        }
    }
}
