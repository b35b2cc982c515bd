//! # signorini-integrators
//!
//! Time integrators of signorini (layer 6, spec `reference-semantics.md` §D): given the acceleration the
//! constraint solver returned (or `qacc_smooth` when there are no constraints), advance `qvel`, `qpos` and `time`
//! by one step `h`. Three are semi-implicit (symplectic) Euler — `q̇' = q̇ + h a`, then the positions with the
//! **new** velocity (§D.4) — and differ in how the velocity-dependent forces are treated implicitly; the fourth is
//! MuJoCo's explicit Runge–Kutta:
//!
//! | name | type | implicit terms | evaluations per step |
//! |---|---|---|---|
//! | `euler` | [`Euler`] | `M + h·diag(damping)`, after the solve (§D.3) | 1 |
//! | `implicitfast` | [`ImplicitFast`] | `M − h·∂f/∂q̇` without the bias forces: MuJoCo's `qDeriv` (dof and tendon damping, actuator velocity gains over their moments, fluid forces) and a standalone free body's block with its gyroscopic derivative (MuJoCo 4.0), or the diagonal damping and joint `kv` with Genesis's midpoint rule for free bodies; after the solve (§D.3) | 1 |
//! | `approximate_implicitfast` | [`ApproximateImplicitFast`] | `M + h·diag(damping + kv)` used throughout (§D.2); optionally Genesis's midpoint rule for free bodies (§D.5) | 1 |
//! | `rk4` | [`Rk4`] | none (MuJoCo's `RK4`) | 4 |
//! | `implicit` | [`Implicit`] | `M − h·∂f/∂q̇` with every velocity derivative (bias forces included), unsymmetric, after the solve | 1 |
//!
//! Standalone free bodies are where MuJoCo 4.0 and Genesis differ: [`FreeBodyIntegration`] (in [`IntegratorSettings`],
//! chosen by the simulator's dialect) selects MuJoCo's gyroscopic block or Genesis's implicit midpoint rule
//! (`midpoint.rs`), which needs the step's constrained dofs ([`IntegratorScratch::set_constrained_dofs`]).
//!
//! One step, per §D.1: [`Model::forward`] → [`Integrator::prepare`] → constraint assembly and solve (using
//! `Data::qld`, `Data::qacc_smooth`) → [`Integrator::advance`]. An integrator with several evaluations
//! ([`Integrator::evaluations`]) has the caller repeat the evaluation (forward, prepare, solve) at the states that
//! [`Integrator::stage`] sets, then advance once. [`step_unconstrained`] does it without constraints.
//! The integrators hold no state (they are configuration, `Send + Sync`, used as `dyn Integrator`, built from an
//! [`IntegratorKind`] by [`IntegratorKind::build`]); their buffers live in an
//! [`IntegratorScratch`] the caller passes in (allocated on the first step of a model, reused afterwards).

mod error;
mod free_body;
mod implicit;
mod midpoint;
mod rk4;
mod shifted;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use signorini_model::{Data, Model, Transmission};

pub use error::{INTEGRATOR_NAMES, IntegratorError};
pub use implicit::Implicit;
pub use midpoint::{FreeBodyInertia, free_body_inertia, midpoint_candidate};
pub use rk4::Rk4;
use rk4::RungeKuttaStages;
use shifted::ShiftedMass;

/// The working buffers of the integrators: the factor of the shifted mass matrix `M + diag(s)` and its right-hand
/// side, and the stages of a multi-evaluation step. Nothing in it carries from one step to the next (each step
/// overwrites what it reads); it exists so that the buffers are allocated once per model and reused. One scratch
/// per thread; any integrator may use any scratch.
#[derive(Debug, Clone, Default)]
pub struct IntegratorScratch {
    /// `Jᵀ f` of this evaluation's solve ([`IntegratorScratch::constraint_force_mut`]), for
    /// [`ImplicitForces::SolverForces`].
    qfrc_constraint: Vec<f64>,
    mass: ShiftedMass,
    stages: RungeKuttaStages,
    implicit: implicit::ImplicitScratch,
    midpoint: midpoint::MidpointScratch,
}

impl IntegratorScratch {
    /// An empty scratch (the same as [`Default`]); its buffers grow on the first step.
    pub fn new() -> Self {
        Self::default()
    }

    /// The constraint force `Jᵀ f` of this evaluation's solve (`nv` entries), which the caller writes before
    /// [`Integrator::advance`] when [`Integrator::reads_constraint_force`] says the integrator reads it. Sized to
    /// `nv` (entries kept from the last call).
    pub fn constraint_force_mut(&mut self, nv: usize) -> &mut Vec<f64> {
        self.qfrc_constraint.resize(nv, 0.0);
        &mut self.qfrc_constraint
    }

    /// Records the dofs that this evaluation's constraint rows act on (the dofs of every row's Jacobian), before
    /// [`Integrator::advance`]: a free body touched by a row is not advanced by the implicit midpoint rule
    /// ([`FreeBodyIntegration::ImplicitMidpoint`]). Until the first call no dof is constrained.
    pub fn set_constrained_dofs(&mut self, nv: usize, dofs: impl IntoIterator<Item = usize>) {
        let constrained = &mut self.midpoint.constrained;
        constrained.clear();
        constrained.resize(nv, false);
        for d in dofs {
            if let Some(c) = constrained.get_mut(d) {
                *c = true;
            }
        }
    }
}

/// How the integrators treat a *standalone free body* (a free joint on a child of the world whose tree has no other
/// dof): the one point where MuJoCo 4.0 and Genesis 1.4.5 integrate differently.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreeBodyIntegration {
    /// MuJoCo 4.0: `implicitfast` re-solves the body's 6×6 block with the velocity derivative of its bias forces
    /// (`mjd_freeMhat`, gyroscopic terms included; only for a body with no massive descendant). The other integrators
    /// treat it as any tree.
    #[default]
    GyroscopicBlock,
    /// Genesis 1.4.5 (spec §D.5): under `implicitfast` and `approximate_implicitfast`, a standalone free body (bodies
    /// welded under it included) that no constraint row touches in this step advances by the implicit midpoint rule,
    /// which keeps the kinetic energy and angular momentum of torque-free tumbling; touched ones take the integrator's
    /// plain update. Either way a centre of mass off the body origin takes the translation's update itself, as in
    /// Genesis, which anchors such a body at its centre of mass. The rows are given by
    /// [`IntegratorScratch::set_constrained_dofs`].
    ImplicitMidpoint,
}

/// The generalized force the implicit updates (Euler's implicit damping, `implicitfast`, `implicit`) solve with after
/// the constraint solve: `(M − h·∂f/∂q̇) a = rhs`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImplicitForces {
    /// `rhs = M a_solve` with the solver's acceleration (Genesis 1.4.5's implicit damping). The default: it needs
    /// only the acceleration given to [`Integrator::advance`].
    #[default]
    MassTimesAcceleration,
    /// `rhs = f_s + Jᵀf`, the smooth and constraint forces of the solve (MuJoCo `qfrc_smooth + qfrc_constraint`),
    /// with `Jᵀf` from [`IntegratorScratch::constraint_force_mut`]. An iterative solve stopped at its tolerance
    /// leaves `M a_solve` and `f_s + Jᵀf` apart by its gradient, whose components along light directions (the
    /// rotation of a 0.1 g leaf) are large against their inertia: the two rules then part by more than round-off.
    SolverForces,
}

/// What a dialect chooses of the integrators besides their kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntegratorSettings {
    /// Euler treats joint damping implicitly (MuJoCo's `eulerdamp` flag; with damping zero both Euler variants
    /// agree). Default true.
    pub euler_implicit_damping: bool,
    /// How standalone free bodies are integrated. Default [`FreeBodyIntegration::GyroscopicBlock`].
    pub free_bodies: FreeBodyIntegration,
    /// The force of the implicit updates. Default [`ImplicitForces::MassTimesAcceleration`].
    pub implicit_forces: ImplicitForces,
}

impl Default for IntegratorSettings {
    fn default() -> Self {
        Self {
            euler_implicit_damping: true,
            free_bodies: FreeBodyIntegration::default(),
            implicit_forces: ImplicitForces::default(),
        }
    }
}

/// A time integrator: configuration only (`&self`), its buffers in the caller's [`IntegratorScratch`]. One step is
/// [`Integrator::evaluations`] evaluations of the dynamics, each [`Model::forward`], [`Integrator::prepare`] and the
/// constraint solve at the state the integrator set; between two evaluations the caller passes the acceleration to
/// [`Integrator::stage`], after the last one to [`Integrator::advance`].
///
/// ```text
/// for i in 0..n { forward; prepare; solve → a; if i + 1 < n { stage(i, a) } }
/// advance(a)
/// ```
pub trait Integrator: fmt::Debug + Send + Sync {
    /// Which integrator this is.
    fn kind(&self) -> IntegratorKind;

    /// How many evaluations of the dynamics one step takes: 1, or 4 for [`Rk4`].
    fn evaluations(&self) -> usize {
        1
    }

    /// Between evaluations `stage` and `stage + 1` of one step (`stage + 1 < evaluations()`): records `qacc`, the
    /// acceleration at `data`'s current state, and moves `data`'s `qpos`, `qvel` and `time` to the state of the next
    /// evaluation. A single-evaluation integrator has no stages: [`IntegratorError::Stage`].
    fn stage(
        &self,
        model: &Model,
        data: &mut Data,
        scratch: &mut IntegratorScratch,
        stage: usize,
        qacc: &[f64],
        h: f64,
    ) -> Result<(), IntegratorError> {
        let _ = (model, data, scratch, qacc, h);
        Err(IntegratorError::Stage { stage, evaluations: self.evaluations() })
    }

    /// Whether the implicit update treats velocity derivatives that couple dofs (a tendon's damping, the velocity gain
    /// of an actuator on a tendon, site or slider-crank) implicitly, as MuJoCo's `implicit` and `implicitfast` do.
    /// Integrators whose implicit terms are diagonal (`approximate_implicitfast`, Genesis's `implicitfast`) say no,
    /// and the simulator refuses such models with them; explicit integrators say yes (they need nothing).
    fn treats_coupled_derivatives(&self) -> bool {
        true
    }

    /// Whether [`Integrator::advance`] reads the constrained dofs of [`IntegratorScratch::set_constrained_dofs`]
    /// (the implicit midpoint rule of free bodies does); the caller may skip setting them otherwise.
    fn reads_constrained_dofs(&self) -> bool {
        false
    }

    /// Whether [`Integrator::advance`] will read the constraint force of [`IntegratorScratch::constraint_force_mut`]
    /// at `data`'s state ([`ImplicitForces::SolverForces`] in an implicit update that has something to solve); the
    /// caller may skip computing it otherwise.
    fn reads_constraint_force(&self, _data: &Data) -> bool {
        false
    }

    /// The integrator's name, as [`integrator_from_name`] accepts it.
    fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// Adjusts the smooth dynamics before the constraint solve, after [`Model::forward`] at the current state.
    /// Only [`ApproximateImplicitFast`] does anything here (it folds `h·diag(damping + kv)` into `Data::qm`, refactors
    /// and recomputes `qacc_smooth`); the default does nothing. Call it at most once per `forward`.
    fn prepare(
        &self,
        model: &Model,
        data: &mut Data,
        scratch: &mut IntegratorScratch,
        h: f64,
    ) -> Result<(), IntegratorError> {
        let _ = (model, data, scratch);
        check_timestep(h)
    }

    /// Advances `data` by `h` after the last evaluation: writes the final acceleration to `data.qacc`, then (Euler
    /// family) `qvel += h·qacc`, the position update of [`integrate_positions`] with the new `qvel`, and `time += h`.
    /// `qacc` is the constraint solver's acceleration (or `qacc_smooth`) at the state [`Model::forward`] last
    /// computed (its `Data::qm` is used). [`Rk4`] combines it with the earlier stages' instead.
    fn advance(
        &self,
        model: &Model,
        data: &mut Data,
        scratch: &mut IntegratorScratch,
        qacc: &[f64],
        h: f64,
    ) -> Result<(), IntegratorError>;
}

/// The integrators, by name: `euler`, `implicitfast`, `approximate_implicitfast`, `rk4` (serde, [`Self::name`],
/// [`Self::from_name`], [`FromStr`], [`fmt::Display`]). It is itself an [`Integrator`] (dispatching to the
/// integrator it names without a `dyn` call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegratorKind {
    /// [`Euler`].
    Euler,
    /// [`ImplicitFast`].
    #[serde(rename = "implicitfast")]
    ImplicitFast,
    /// [`ApproximateImplicitFast`] (Genesis' default).
    #[serde(rename = "approximate_implicitfast")]
    ApproximateImplicitFast,
    /// [`Rk4`].
    Rk4,
    /// [`Implicit`] (MuJoCo's `implicit`).
    Implicit,
}

impl IntegratorKind {
    /// Every kind, in the order of [`INTEGRATOR_NAMES`].
    pub const ALL: [IntegratorKind; 5] =
        [Self::Euler, Self::ImplicitFast, Self::ApproximateImplicitFast, Self::Rk4, Self::Implicit];

    /// The name: `euler`, `implicitfast`, `approximate_implicitfast`, `rk4` or `implicit`.
    pub fn name(self) -> &'static str {
        INTEGRATOR_NAMES[self as usize]
    }

    /// The kind called `name` (exact, lowercase), or [`IntegratorError::UnknownName`].
    pub fn from_name(name: &str) -> Result<Self, IntegratorError> {
        Self::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| IntegratorError::UnknownName { name: name.to_owned() })
    }

    /// A new integrator of this kind with `settings` (each kind reads the ones that concern it).
    pub fn build_with(self, settings: IntegratorSettings) -> Box<dyn Integrator> {
        let free_bodies = settings.free_bodies;
        match self {
            Self::Euler if settings.euler_implicit_damping => {
                Box::new(Euler { forces: settings.implicit_forces })
            }
            Self::Euler => Box::new(EulerExplicitDamping),
            Self::ImplicitFast => Box::new(ImplicitFast { free_bodies, forces: settings.implicit_forces }),
            Self::ApproximateImplicitFast => Box::new(ApproximateImplicitFast { free_bodies }),
            Self::Rk4 => Box::new(Rk4),
            Self::Implicit => Box::new(Implicit { forces: settings.implicit_forces }),
        }
    }

    /// A new integrator of this kind with the default [`IntegratorSettings`].
    pub fn build(self) -> Box<dyn Integrator> {
        self.build_with(IntegratorSettings::default())
    }
}

impl fmt::Display for IntegratorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for IntegratorKind {
    type Err = IntegratorError;

    fn from_str(name: &str) -> Result<Self, IntegratorError> {
        Self::from_name(name)
    }
}

/// The integrator called `name` (`euler`, `implicitfast`, `approximate_implicitfast`, `rk4`), or
/// [`IntegratorError::UnknownName`] listing the valid names.
pub fn integrator_from_name(name: &str) -> Result<Box<dyn Integrator>, IntegratorError> {
    IntegratorKind::from_name(name).map(IntegratorKind::build)
}

fn check_timestep(h: f64) -> Result<(), IntegratorError> {
    if h > 0.0 && h.is_finite() { Ok(()) } else { Err(IntegratorError::InvalidTimestep { h }) }
}

fn check_inputs(model: &Model, qacc: &[f64], h: f64) -> Result<(), IntegratorError> {
    check_timestep(h)?;
    if qacc.len() != model.nv {
        return Err(IntegratorError::QaccLength { len: qacc.len(), nv: model.nv });
    }
    Ok(())
}

/// The position update of §D.4 (MuJoCo `mj_integratePos`, via [`Model::integrate_qpos`]): hinge/slide angles and
/// free-joint translations `q += h q̇`; free and ball orientations `q ← normalize(q ⊗ exp(½ h ω))` with the
/// body-frame angular velocity `ω` in `qvel` — the exact exponential of a constant `ω` over `h`, not a first-order
/// approximation.
pub fn integrate_positions(model: &Model, data: &mut Data, h: f64) {
    model.integrate_qpos(&mut data.qpos, &data.qvel, h);
}

/// Writes `a` to `qacc`, then `qvel += h a`, positions with the new velocity, activations at `act_dot`
/// ([`Model::advance_activations`]), `time += h`.
pub(crate) fn finish(model: &Model, data: &mut Data, a: &[f64], h: f64) {
    finish_with(model, data, a, h, None);
}

/// [`finish`], the bodies of `free_bodies` (`midpoint.rs`) moving their positions with its velocities and ending the
/// step with its new ones.
fn finish_with(
    model: &Model,
    data: &mut Data,
    a: &[f64],
    h: f64,
    free_bodies: Option<&midpoint::MidpointScratch>,
) {
    data.qacc.copy_from_slice(a);
    for (v, a) in data.qvel.iter_mut().zip(a) {
        *v += h * a;
    }
    if let Some(mp) = free_bodies {
        mp.set_midpoint_velocities(&mut data.qvel);
    }
    integrate_positions(model, data, h);
    if let Some(mp) = free_bodies {
        mp.set_next_velocities(&mut data.qvel);
    }
    model.advance_activations(&mut data.act, &data.act_dot, h);
    data.time += h;
}

/// [`finish`] with Genesis's integration of standalone free bodies (`midpoint.rs`): the unconstrained ones by the
/// implicit midpoint rule, the touched ones with their centre of mass off the origin by the anchored update.
/// `shift` is the integrator's per-dof `h·(damping + kv)` (the rule's `E` with the armature).
fn finish_midpoint(
    model: &Model,
    data: &mut Data,
    mp: &mut midpoint::MidpointScratch,
    shift: &[f64],
    a: &[f64],
    h: f64,
) {
    if mp.apply(model, data, a, shift, h) == 0 {
        return finish(model, data, a, h);
    }
    finish_with(model, data, mp.acceleration(), h, Some(mp));
}

/// `∂qfrc_actuator/∂q̇` on the diagonal (joint transmission: `gear²·(gainprm₂·input + biasprm₂)`), added times `−h`
/// to `shift`.
/// With `skip_clamped`, actuators whose force sits at a bound of `forcerange` contribute nothing (their force does
/// not depend on `q̇` there; MuJoCo `mjd_actuator_vel`).
fn add_actuator_velocity_gains(model: &Model, data: &Data, h: f64, skip_clamped: bool, shift: &mut [f64]) {
    for u in 0..model.nu {
        // A tendon actuator's velocity gain is `gear²·(…)·JᵀJ`, not diagonal: the simulator refuses it with the
        // implicit integrators, so only joint actuators reach this point with one.
        let Transmission::Joint(j) = model.actuator_transmission[u] else { continue };
        let Some(slope) = actuator_velocity_slope(model, data, u, skip_clamped) else { continue };
        let gear = model.actuator_gear[u];
        shift[model.jnt_dofadr[j]] -= h * gear * gear * slope;
    }
}

/// `∂force/∂velocity = gainprm₂·input + biasprm₂` of actuator `u`, the input being the activation or the clamped
/// control (MuJoCo `mjd_actuator_vel`); `None` when `skip_clamped` and the force is at a limit of its range (it does
/// not depend on the velocity there).
pub(crate) fn actuator_velocity_slope(
    model: &Model,
    data: &Data,
    u: usize,
    skip_clamped: bool,
) -> Option<f64> {
    if !model.actuation_enabled {
        return None;
    }
    if skip_clamped && let Some([lo, hi]) = model.actuator_forcerange[u] {
        let f = data.actuator_force[u];
        if f <= lo || f >= hi {
            return None;
        }
    }
    let input = match model.actuator_actadr[u] {
        // The force took the next activation (MuJoCo's derivative does the same).
        Some(a) if model.actuator_actearly[u] => {
            model.next_activation(u, data.act[a], data.act_dot[a], model.timestep)
        }
        Some(a) => data.act[a],
        None => model.actuator_ctrl(data, u),
    };
    Some(model.actuator_gain_affine[u][1] * input + model.actuator_bias[u][2])
}

/// Solves `(M + diag(shift)) a = rhs` with the right-hand side of `forces` ([`shifted::implicit_rhs`]), skipping the
/// solve when every shift is zero (then `a = qacc`), and finishes the step.
/// With `midpoint`, the step finishes with [`finish_midpoint`].
fn advance_shifted(
    s: &mut ShiftedMass,
    model: &Model,
    data: &mut Data,
    forces: (&[f64], ImplicitForces, &[f64]),
    h: f64,
    midpoint: Option<&mut midpoint::MidpointScratch>,
) -> Result<(), IntegratorError> {
    let qacc = forces.0;
    let a = if s.any() {
        shifted::implicit_rhs(model, data, forces, &mut s.rhs);
        s.factor(model, data)?;
        s.solve(model);
        &s.rhs
    } else {
        qacc
    };
    match midpoint {
        Some(mp) => finish_midpoint(model, data, mp, &s.shift, a, h),
        None => finish(model, data, a, h),
    }
    Ok(())
}

/// Semi-implicit Euler with explicit joint damping (MuJoCo's Euler with `<flag eulerdamp="disable"/>`, or with its
/// dampers disabled): `q̇' = q̇ + h·qacc`, then the positions with `q̇'`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EulerExplicitDamping;

impl Integrator for EulerExplicitDamping {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Euler
    }

    fn advance(
        &self,
        model: &Model,
        data: &mut Data,
        _scratch: &mut IntegratorScratch,
        qacc: &[f64],
        h: f64,
    ) -> Result<(), IntegratorError> {
        check_inputs(model, qacc, h)?;
        finish(model, data, qacc, h);
        Ok(())
    }
}

/// Semi-implicit Euler with implicit joint damping (Genesis `func_implicit_damping` for Euler, MuJoCo `mj_Euler`).
///
/// After the solve with the plain `M`: `(M + h·diag(damping)) a = rhs` ([`ImplicitForces`]: `f_s + Jᵀλ` or
/// `M qacc`), then `q̇' = q̇ + h a` and the positions with `q̇'`. Actuator `kv` terms stay explicit. Without damping,
/// `a = qacc` (no refactorization).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Euler {
    /// The right-hand side of the implicit damping.
    pub forces: ImplicitForces,
}

impl Integrator for Euler {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Euler
    }

    /// Only with joint damping (without it the update takes the solver's acceleration as it is).
    fn reads_constraint_force(&self, data: &Data) -> bool {
        self.forces == ImplicitForces::SolverForces && data.dof_damping.iter().any(|&b| b != 0.0)
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
        let s = &mut scratch.mass;
        s.reset_to_damping(model, &data.dof_damping, h);
        advance_shifted(s, model, data, (qacc, self.forces, &scratch.qfrc_constraint), h, None)
    }
}

/// MuJoCo's `implicitfast` (§D.3): after the solve with the plain `M`, `(M − h·∂f/∂q̇) a = M qacc`, where `∂f/∂q̇`
/// holds the velocity derivatives of the passive and actuator forces only (no RNE/Coriolis terms), symmetrised.
///
/// Here those are the dof damping `−damping_d` and the joint actuators' `gear²·biasprm₂` (`−kv` for position and
/// velocity servos; skipped while the force is clamped by `forcerange`), all diagonal, so the matrix is
/// `M + h·diag(damping + kv)` with the sparsity of `M`. Without such terms, `a = qacc`. Standalone free bodies are
/// treated as [`Self::free_bodies`] says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImplicitFast {
    /// MuJoCo's gyroscopic block (the default) or Genesis's implicit midpoint rule.
    pub free_bodies: FreeBodyIntegration,
    /// The right-hand side of the implicit update.
    pub forces: ImplicitForces,
}

impl Integrator for ImplicitFast {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::ImplicitFast
    }

    /// With MuJoCo's free-body blocks the update takes MuJoCo's whole `qDeriv`; Genesis's takes its diagonal.
    fn treats_coupled_derivatives(&self) -> bool {
        self.free_bodies == FreeBodyIntegration::GyroscopicBlock
    }

    fn reads_constrained_dofs(&self) -> bool {
        self.free_bodies == FreeBodyIntegration::ImplicitMidpoint
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
        let forces = (qacc, self.forces, &scratch.qfrc_constraint[..]);
        let s = &mut scratch.mass;
        if self.free_bodies == FreeBodyIntegration::ImplicitMidpoint {
            s.reset_to_damping(model, &data.dof_damping, h);
            add_actuator_velocity_gains(model, data, h, true, &mut s.shift);
            s.add_fluid(model, data, h);
            return advance_shifted(s, model, data, forces, h, Some(&mut scratch.midpoint));
        }
        // MuJoCo 4.0.1: `qH = M − h qDeriv` over `M`'s layout, `qDeriv` without the bias term, the fluid `B`
        // symmetrised but on standalone free bodies.
        let derivative = &mut scratch.implicit.derivative;
        derivative.assemble(model, data, |body| !free_body::is_standalone(model, data, body));
        s.set_from_derivative(model, &derivative.qderiv, h);
        let mut free = false;
        free_body::for_each_standalone(model, data, |_, _| free = true);
        if !free {
            return advance_shifted(s, model, data, forces, h, None);
        }
        // Standalone free bodies: their blocks are re-solved with the bias derivative (MuJoCo 4.0). In the global
        // matrix their rows are plain `M` (their shifts, which may be unsymmetric, belong to the local solve), which
        // keeps the global factor positive definite.
        shifted::implicit_rhs(model, data, forces, &mut s.rhs);
        s.qfrc.clone_from(&s.rhs);
        free_body::for_each_standalone(model, data, |_, adr| {
            s.shift[adr..adr + 6].fill(0.0);
            if s.has_matrix {
                s.shift_matrix[model.dof_madr[adr]..model.dof_madr[adr + 6]].fill(0.0);
            }
        });
        if s.any() {
            s.factor(model, data)?;
            s.solve(model);
        } else {
            s.rhs.copy_from_slice(qacc);
        }
        free_body::solve_blocks(model, data, h, &derivative.qderiv, &s.qfrc, &mut s.rhs);
        finish(model, data, &s.rhs, h);
        Ok(())
    }
}

/// Genesis' default `approximate_implicitfast` (§D.2): `M̃ = M + h·diag(damping + kv)` replaces `M` for the whole
/// step — [`Integrator::prepare`] writes it into `Data::qm`, refactors `Data::qld` and recomputes
/// `qacc_smooth = M̃⁻¹ f_s`, so the constraint solver's Gauss term and Hessian use `M̃` too — and
/// [`Integrator::advance`] takes the solver's acceleration as it is: `M̃ a = f_s + Jᵀλ`, `q̇' = q̇ + h a`.
///
/// `kv = −gear²·biasprm₂` of every joint actuator (the velocity gain of position and velocity servos), without the
/// `forcerange` check. After `prepare`, `Data::qm` holds `M̃` until the next [`Model::forward`]. Standalone free
/// bodies are treated as [`Self::free_bodies`] says (MuJoCo has no such integrator: its gyroscopic block does
/// nothing here).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApproximateImplicitFast {
    /// Nothing special (the default) or Genesis's implicit midpoint rule.
    pub free_bodies: FreeBodyIntegration,
}

impl Integrator for ApproximateImplicitFast {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::ApproximateImplicitFast
    }

    fn treats_coupled_derivatives(&self) -> bool {
        false
    }

    fn reads_constrained_dofs(&self) -> bool {
        self.free_bodies == FreeBodyIntegration::ImplicitMidpoint
    }

    fn prepare(
        &self,
        model: &Model,
        data: &mut Data,
        scratch: &mut IntegratorScratch,
        h: f64,
    ) -> Result<(), IntegratorError> {
        check_timestep(h)?;
        let shift = scratch.mass.damping_shift(&data.dof_damping, h);
        add_actuator_velocity_gains(model, data, h, false, shift);
        if shift.iter().all(|&s| s == 0.0) {
            return Ok(());
        }
        for (dof, s) in shift.iter().enumerate() {
            data.qm[model.dof_madr[dof]] += s;
        }
        model.factor_m(data)?;
        let mut x = std::mem::take(&mut data.qacc_smooth);
        x.copy_from_slice(&data.qfrc_smooth);
        model.solve_m(data, &mut x);
        data.qacc_smooth = x;
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
        if self.free_bodies == FreeBodyIntegration::ImplicitMidpoint {
            // `prepare` left this step's `h·(damping + kv)` in the shift.
            let shift = &scratch.mass.shift;
            finish_midpoint(model, data, &mut scratch.midpoint, shift, qacc, h);
        } else {
            finish(model, data, qacc, h);
        }
        Ok(())
    }
}

/// One step without constraints: per evaluation [`Model::forward`] and [`Integrator::prepare`], then
/// [`Integrator::stage`] (or, after the last, [`Integrator::advance`]) with `qacc_smooth`.
pub fn step_unconstrained(
    integrator: &dyn Integrator,
    model: &Model,
    data: &mut Data,
    scratch: &mut IntegratorScratch,
    h: f64,
) -> Result<(), IntegratorError> {
    let n = integrator.evaluations();
    for i in 0..n {
        model.forward(data)?;
        integrator.prepare(model, data, scratch, h)?;
        let qacc = std::mem::take(&mut data.qacc_smooth);
        let result = if i + 1 < n {
            integrator.stage(model, data, scratch, i, &qacc, h)
        } else {
            integrator.advance(model, data, scratch, &qacc, h)
        };
        data.qacc_smooth = qacc;
        result?;
    }
    Ok(())
}
