//! Simulation options: spec §4's defaults (native mode) and build-time validation.
//!
//! Each field states its default, unit and rule. [`Options::set`] overrides a field by name from text (the
//! `--set NAME=VALUE` of `signorini run`); an unknown name or a bad value is an error that lists the valid ones.

use serde::{Deserialize, Serialize};
use signorini_collision::world::CollisionOptions;
use signorini_constraints::FrictionCone;
use signorini_integrators::IntegratorKind;
use signorini_solver::SolverKind;

use crate::dialect::{Dialect, DialectStages};
use crate::error::{Result, SimError};

/// Contact resolution of the elliptic cone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactResolution {
    /// `signorini` when elliptic + Newton + native, else `convex` (spec §4).
    Auto,
    /// MuJoCo's convex soft-contact model.
    Convex,
    /// Genesis's Signorini (complementarity-latched) resolution.
    Signorini,
}

/// All options of a scene, with spec §4's native defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// Step `dt` in seconds, > 0. Default 0.01 (an MJCF `timestep` overrides it).
    pub dt: f64,
    /// Substeps per step, ≥ 1; the physics step is `h = dt/substeps`. Default 1.
    pub substeps: usize,
    /// Constraint solver: `newton`, `cg` or `pgs` (MuJoCo's projected Gauss–Seidel on the dual). Default Newton.
    pub constraint_solver: SolverKind,
    /// Solver iteration cap (an upper bound, not a guarantee), ≥ 1. Default 25 native, 100 MuJoCo-compatible (MuJoCo's
    /// default; `None`: the mode's).
    pub iterations: Option<usize>,
    /// Solver tolerance, ≥ 0 (0: no early stop, the solver runs `iterations`, as MuJoCo). Default 1e-9 native, 1e-8
    /// MuJoCo-compatible (`None`: the mode's default).
    pub tolerance: Option<f64>,
    /// Line-search iteration cap, ≥ 1. Default 50.
    pub ls_iterations: usize,
    /// Line-search tolerance, ≥ 0 (0: no early stop). Default 1e-2.
    pub ls_tolerance: f64,
    /// Friction cone. Default pyramidal.
    pub friction_cone: FrictionCone,
    /// Contact resolution. Default auto; explicit signorini outside elliptic + Newton + native is an error.
    pub contact_resolution: ContactResolution,
    /// Elliptic-cone friction-to-normal impedance ratio, > 0. Default auto: 100 for elliptic in native mode, else 1.
    pub impratio: Option<f64>,
    /// Integrator: `euler`, `implicitfast`, `approximate_implicitfast` or `rk4` (four evaluations of the whole step
    /// before the integration, collision included, as MuJoCo's `RK4`). Default approximate_implicitfast.
    pub integrator: IntegratorKind,
    /// No-slip post-process sweeps (spec §C.8, [`signorini_solver::noslip`]): after the solve, Gauss–Seidel on
    /// the pyramidal friction edges and DOF friction loss against `J M⁻¹ Jᵀ`, which removes the soft constraints'
    /// creep. Per island when islands are on. With the elliptic cone each contact's friction is a QCQP on its cone
    /// (MuJoCo's pass). Default 0 (off).
    pub noslip_iterations: usize,
    /// No-slip tolerance, ≥ 0 (0: every sweep runs). Default 1e-6.
    pub noslip_tolerance: f64,
    /// Contact time constant floor (s), > 0; the mixed timeconst is also floored at 2h. Default 0.01.
    pub constraint_timeconst: f64,
    /// Torsional friction rows. Default false.
    pub enable_torsional_friction: bool,
    /// Rolling friction rows; requires torsional. Default false.
    pub enable_rolling_friction: bool,
    /// Solve every island (connected component of kinematic trees linked by contacts and equalities, spec §C.6)
    /// on its own, with its own termination. Default true (MuJoCo's default; MJCF `<flag island="disable"/>` turns
    /// it off).
    pub enable_islands: bool,
    /// Islands at rest may sleep (spec §E): trees whose `|q̇|·dof_length` stays below `hibernation_thresh_vel` for
    /// 10 steps sleep with their island, keep no contact with the static world or other sleepers, and wake when an
    /// awake body touches them or the state is set. Default false.
    pub use_hibernation: bool,
    /// Sleep velocity threshold (m/s), > 0. Default 2e-3 native, 1e-4 MuJoCo-compatible (`None`: the mode's).
    pub hibernation_thresh_vel: Option<f64>,
    /// Detect contacts (Genesis `enable_collision`). Off: no collision detection at all, so no contacts and no
    /// contact rows (MuJoCo's `<flag contact="disable"/>`, also implied by `constraint="disable"`). Default true.
    #[serde(default = "enabled")]
    pub enable_collision: bool,
    /// Joint-limit rows (Genesis `enable_joint_limit`; MuJoCo's `limit` flag). Default true.
    #[serde(default = "enabled")]
    pub enable_joint_limit: bool,
    /// Equality rows (MuJoCo's `equality` flag). Default true.
    #[serde(default = "enabled")]
    pub enable_equality: bool,
    /// DOF friction-loss rows (MuJoCo's `frictionloss` flag). Default true.
    #[serde(default = "enabled")]
    pub enable_friction_loss: bool,
    /// Sensors are computed each step into `sensordata` (MuJoCo's `sensor` flag; off: `sensordata` stays zero).
    /// Default true.
    #[serde(default = "enabled")]
    pub enable_sensors: bool,
    /// Joint and tendon springs (MuJoCo's `spring` flag). Default true.
    #[serde(default = "enabled")]
    pub enable_springs: bool,
    /// Joint and tendon dampers (MuJoCo's `damper` flag). Default true.
    #[serde(default = "enabled")]
    pub enable_dampers: bool,
    /// Actuator forces (MuJoCo's `actuation` flag). Default true.
    #[serde(default = "enabled")]
    pub enable_actuation: bool,
    /// Controls clamped to their `ctrlrange` (MuJoCo's `clampctrl` flag). Default true.
    #[serde(default = "enabled")]
    pub clamp_ctrl: bool,
    /// The constraint solver starts from the previous step's solution (MuJoCo's `warmstart` flag); off: from the
    /// unconstrained acceleration. Default true.
    #[serde(default = "enabled")]
    pub enable_warm_start: bool,
    /// A positive `solref` timeconst is floored at `2h` (MuJoCo's `refsafe` flag). Default true.
    #[serde(default = "enabled")]
    pub refsafe: bool,
    /// The Euler integrator treats joint damping implicitly (MuJoCo's `eulerdamp` flag). Default true.
    #[serde(default = "enabled")]
    pub euler_implicit_damping: bool,
    /// Swept collision for fast free bodies: a body that would pass through a geom within one step is stopped at
    /// the first touch of its core spheres (see `crate::swept`). Neither Genesis nor MuJoCo has it. Default false.
    #[serde(default)]
    pub enable_ccd: bool,
    /// Broad-phase pair budget (spec §A.4). Default 150.
    pub max_collision_pairs: usize,
    /// Contact cap of a convex pair; also the perturbation manifold size (spec §A.4/§A.9). Default 5.
    #[serde(default = "default_convex_cap")]
    pub contacts_per_convex_pair: usize,
    /// Contact cap of an analytic box–box pair (spec §A.4). Default 16.
    #[serde(default = "default_box_box_cap")]
    pub contacts_per_box_box_pair: usize,
    /// Contact cap of a height-field pair. Default 50 (MuJoCo's `mjMAXCONPAIR`).
    #[serde(default = "default_height_field_cap")]
    pub contacts_per_height_field_pair: usize,
    /// Contact cap of a pair with a non-convex mesh (its signed distance field). Default 8.
    #[serde(default = "default_nonconvex_cap")]
    pub contacts_per_nonconvex_pair: usize,
    /// Contact pruning tolerance (spec §A.16, G-W): the contacts of a link pair on one plane keep only their support
    /// polygon (`signorini_collision::prune`); 0 keeps every contact. `None`: 0.02 in native mode; MuJoCo has no
    /// pruning, so a positive value is an error in MuJoCo-compatible mode. Native mode prunes every model, as Genesis
    /// 1.4.5 does outside its performance mode.
    #[serde(default)]
    pub contact_pruning_tolerance: Option<f64>,
    /// Post-pruning contact budget of a step (G-W's `max_contacts`); more is an error naming it. `None`: Genesis's
    /// default (`signorini_collision::world::CollisionOptions::max_contacts`).
    #[serde(default)]
    pub max_contacts: Option<usize>,
    /// Collisions inside one kinematic tree. Default true.
    pub enable_self_collision: bool,
    /// Collisions between adjacent bodies. Default false.
    pub enable_adjacent_collision: bool,
    /// Keep pairs that already collide at the neutral pose. Default false.
    pub enable_neutral_collision: bool,
    /// Perturbation multi-contact (spec §A.9). Default true.
    pub enable_multi_contact: bool,
    /// Analytic box–box (spec §A.10). Default true.
    pub box_box_detection: bool,
    /// MuJoCo-compatible semantics (spec §2). Default false.
    pub mujoco_compatibility: bool,
    /// Worker threads of a step, ≥ 1: the narrow phase and, when a step has several islands, their solves; results
    /// do not depend on it. Default 1.
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            dt: 0.01,
            substeps: 1,
            constraint_solver: SolverKind::Newton,
            iterations: None,
            tolerance: None,
            ls_iterations: 50,
            ls_tolerance: 1e-2,
            friction_cone: FrictionCone::Pyramidal,
            contact_resolution: ContactResolution::Auto,
            impratio: None,
            integrator: IntegratorKind::ApproximateImplicitFast,
            noslip_iterations: 0,
            noslip_tolerance: 1e-6,
            constraint_timeconst: 0.01,
            enable_torsional_friction: false,
            enable_rolling_friction: false,
            enable_islands: true,
            use_hibernation: false,
            hibernation_thresh_vel: None,
            enable_collision: true,
            enable_joint_limit: true,
            enable_equality: true,
            enable_friction_loss: true,
            enable_sensors: true,
            enable_springs: true,
            enable_dampers: true,
            enable_actuation: true,
            clamp_ctrl: true,
            enable_warm_start: true,
            refsafe: true,
            euler_implicit_damping: true,
            enable_ccd: false,
            max_collision_pairs: 150,
            contacts_per_convex_pair: default_convex_cap(),
            contacts_per_box_box_pair: default_box_box_cap(),
            contacts_per_height_field_pair: default_height_field_cap(),
            contacts_per_nonconvex_pair: default_nonconvex_cap(),
            contact_pruning_tolerance: None,
            max_contacts: None,
            enable_self_collision: true,
            enable_adjacent_collision: false,
            enable_neutral_collision: false,
            enable_multi_contact: true,
            box_box_detection: true,
            mujoco_compatibility: false,
            threads: 1,
        }
    }
}

/// The default of the switches that a serialized [`Options`] from before them does not carry.
fn enabled() -> bool {
    true
}

fn default_convex_cap() -> usize {
    CollisionOptions::default().contacts_per_convex_pair
}

fn default_box_box_cap() -> usize {
    CollisionOptions::default().contacts_per_box_box_pair
}

fn default_height_field_cap() -> usize {
    CollisionOptions::default().contacts_per_height_field_pair
}

fn default_nonconvex_cap() -> usize {
    CollisionOptions::default().contacts_per_nonconvex_pair
}

/// The option names [`Options::set`] accepts.
pub const OPTION_NAMES: [&str; 46] = [
    "dt",
    "substeps",
    "constraint_solver",
    "iterations",
    "tolerance",
    "ls_iterations",
    "ls_tolerance",
    "friction_cone",
    "contact_resolution",
    "impratio",
    "integrator",
    "noslip_iterations",
    "noslip_tolerance",
    "constraint_timeconst",
    "enable_torsional_friction",
    "enable_rolling_friction",
    "enable_islands",
    "use_hibernation",
    "hibernation_thresh_vel",
    "enable_collision",
    "enable_joint_limit",
    "enable_equality",
    "enable_friction_loss",
    "enable_sensors",
    "enable_springs",
    "enable_dampers",
    "enable_actuation",
    "clamp_ctrl",
    "enable_warm_start",
    "refsafe",
    "euler_implicit_damping",
    "enable_ccd",
    "max_collision_pairs",
    "contacts_per_convex_pair",
    "contacts_per_box_box_pair",
    "contacts_per_height_field_pair",
    "contacts_per_nonconvex_pair",
    "contact_pruning_tolerance",
    "max_contacts",
    "enable_self_collision",
    "enable_adjacent_collision",
    "enable_neutral_collision",
    "enable_multi_contact",
    "box_box_detection",
    "mujoco_compatibility",
    "threads",
];

fn bad(name: &str, value: &str, expected: &str) -> SimError {
    SimError::InvalidOption { name: name.into(), what: format!("`{value}` is not {expected}") }
}

fn parse_f64(name: &str, v: &str) -> Result<f64> {
    v.trim().parse::<f64>().map_err(|_| bad(name, v, "a number"))
}

fn parse_usize(name: &str, v: &str) -> Result<usize> {
    v.trim().parse::<usize>().map_err(|_| bad(name, v, "a non-negative integer"))
}

fn parse_bool(name: &str, v: &str) -> Result<bool> {
    match v.trim() {
        "true" | "1" | "on" => Ok(true),
        "false" | "0" | "off" => Ok(false),
        _ => Err(bad(name, v, "true or false")),
    }
}

fn parse_choice<T: Copy>(name: &str, v: &str, choices: &[(&str, T)]) -> Result<T> {
    let key = v.trim().to_ascii_lowercase();
    choices.iter().find(|(k, _)| *k == key).map(|(_, c)| *c).ok_or_else(|| {
        let valid: Vec<&str> = choices.iter().map(|(k, _)| *k).collect();
        bad(name, v, &format!("one of {}", valid.join(", ")))
    })
}

impl Options {
    /// These options with each `NAME=VALUE` override applied in order ([`Options::set`]), as the loaders and the
    /// CLI's `--set` take them.
    pub fn with_overrides(mut self, overrides: &[(String, String)]) -> Result<Options> {
        for (name, value) in overrides {
            self.set(name, value)?;
        }
        Ok(self)
    }

    /// Sets one option from text. Errors name the option and list the valid names or values.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        match name {
            "dt" => self.dt = parse_f64(name, value)?,
            "substeps" => self.substeps = parse_usize(name, value)?,
            "constraint_solver" | "solver" => {
                self.constraint_solver = parse_choice(
                    name,
                    value,
                    &[("newton", SolverKind::Newton), ("cg", SolverKind::Cg), ("pgs", SolverKind::Pgs)],
                )?
            }
            "iterations" => self.iterations = Some(parse_usize(name, value)?),
            "tolerance" => self.tolerance = Some(parse_f64(name, value)?),
            "ls_iterations" => self.ls_iterations = parse_usize(name, value)?,
            "ls_tolerance" => self.ls_tolerance = parse_f64(name, value)?,
            "friction_cone" | "cone" => {
                self.friction_cone = parse_choice(
                    name,
                    value,
                    &[("pyramidal", FrictionCone::Pyramidal), ("elliptic", FrictionCone::Elliptic)],
                )?
            }
            "contact_resolution" => {
                self.contact_resolution = parse_choice(
                    name,
                    value,
                    &[
                        ("auto", ContactResolution::Auto),
                        ("convex", ContactResolution::Convex),
                        ("signorini", ContactResolution::Signorini),
                    ],
                )?
            }
            "impratio" => self.impratio = Some(parse_f64(name, value)?),
            "integrator" => {
                self.integrator = parse_choice(
                    name,
                    value,
                    &[
                        ("euler", IntegratorKind::Euler),
                        ("implicitfast", IntegratorKind::ImplicitFast),
                        ("approximate_implicitfast", IntegratorKind::ApproximateImplicitFast),
                        ("rk4", IntegratorKind::Rk4),
                        ("implicit", IntegratorKind::Implicit),
                    ],
                )?
            }
            "noslip_iterations" => self.noslip_iterations = parse_usize(name, value)?,
            "noslip_tolerance" => self.noslip_tolerance = parse_f64(name, value)?,
            "constraint_timeconst" => self.constraint_timeconst = parse_f64(name, value)?,
            "enable_torsional_friction" => self.enable_torsional_friction = parse_bool(name, value)?,
            "enable_rolling_friction" => self.enable_rolling_friction = parse_bool(name, value)?,
            "enable_islands" => self.enable_islands = parse_bool(name, value)?,
            "use_hibernation" => self.use_hibernation = parse_bool(name, value)?,
            "hibernation_thresh_vel" => self.hibernation_thresh_vel = Some(parse_f64(name, value)?),
            "enable_collision" => self.enable_collision = parse_bool(name, value)?,
            "enable_joint_limit" => self.enable_joint_limit = parse_bool(name, value)?,
            "enable_equality" => self.enable_equality = parse_bool(name, value)?,
            "enable_sensors" => self.enable_sensors = parse_bool(name, value)?,
            "enable_springs" => self.enable_springs = parse_bool(name, value)?,
            "enable_dampers" => self.enable_dampers = parse_bool(name, value)?,
            "enable_actuation" => self.enable_actuation = parse_bool(name, value)?,
            "clamp_ctrl" => self.clamp_ctrl = parse_bool(name, value)?,
            "enable_warm_start" => self.enable_warm_start = parse_bool(name, value)?,
            "refsafe" => self.refsafe = parse_bool(name, value)?,
            "euler_implicit_damping" => self.euler_implicit_damping = parse_bool(name, value)?,
            "enable_friction_loss" => self.enable_friction_loss = parse_bool(name, value)?,
            "enable_ccd" => self.enable_ccd = parse_bool(name, value)?,
            "max_collision_pairs" => self.max_collision_pairs = parse_usize(name, value)?,
            "contacts_per_convex_pair" => self.contacts_per_convex_pair = parse_usize(name, value)?,
            "contacts_per_box_box_pair" => self.contacts_per_box_box_pair = parse_usize(name, value)?,
            "contacts_per_height_field_pair" => {
                self.contacts_per_height_field_pair = parse_usize(name, value)?
            }
            "contacts_per_nonconvex_pair" => self.contacts_per_nonconvex_pair = parse_usize(name, value)?,
            "contact_pruning_tolerance" => self.contact_pruning_tolerance = Some(parse_f64(name, value)?),
            "max_contacts" => self.max_contacts = Some(parse_usize(name, value)?),
            "enable_self_collision" => self.enable_self_collision = parse_bool(name, value)?,
            "enable_adjacent_collision" => self.enable_adjacent_collision = parse_bool(name, value)?,
            "enable_neutral_collision" => self.enable_neutral_collision = parse_bool(name, value)?,
            "enable_multi_contact" => self.enable_multi_contact = parse_bool(name, value)?,
            "box_box_detection" => self.box_box_detection = parse_bool(name, value)?,
            "mujoco_compatibility" => self.mujoco_compatibility = parse_bool(name, value)?,
            "threads" => self.threads = parse_usize(name, value)?,
            _ => {
                return Err(SimError::InvalidOption {
                    name: name.into(),
                    what: format!("unknown option; valid names: {}", OPTION_NAMES.join(", ")),
                });
            }
        }
        Ok(())
    }

    /// The physics step `h = dt/substeps`.
    pub fn h(&self) -> f64 {
        self.dt / self.substeps as f64
    }

    /// The solver iteration cap in force: the explicit one, or the dialect's default.
    pub fn resolved_iterations(&self) -> usize {
        self.iterations.unwrap_or(Dialect::of(self).default_iterations())
    }

    /// The solver tolerance in force: the explicit one, or the dialect's default.
    pub fn resolved_tolerance(&self) -> f64 {
        self.tolerance.unwrap_or(Dialect::of(self).default_tolerance())
    }

    /// Whether the auto rule (or an explicit choice) selects Signorini resolution.
    pub fn uses_signorini(&self) -> bool {
        Dialect::of(self).uses_signorini(self)
    }

    /// Build-time validation (spec §4). Every rejected combination is a typed error a user can act on.
    pub fn validate(&self) -> Result<()> {
        let invalid = |name: &str, what: String| Err(SimError::InvalidOption { name: name.into(), what });
        // `v > 0`, or `v ≥ 0` where `zero_ok`, and finite.
        let bounded = |name: &str, v: f64, zero_ok: bool| -> Result<()> {
            if v.is_finite() && (v > 0.0 || zero_ok && v == 0.0) {
                return Ok(());
            }
            let bound = if zero_ok { "≥ 0" } else { "> 0" };
            invalid(name, format!("must be finite and {bound}, got {}", crate::error::short(v)))
        };
        let positive = |name: &str, v: f64| bounded(name, v, false);
        // A tolerance of 0 never stops its loop early (it runs to its iteration cap), as in MuJoCo.
        let nonnegative = |name: &str, v: f64| bounded(name, v, true);
        positive("dt", self.dt)?;
        if self.dt > MAX_DT {
            return invalid(
                "dt",
                format!("must be at most {MAX_DT} s, got {}", crate::error::short(self.dt)),
            );
        }
        nonnegative("ls_tolerance", self.ls_tolerance)?;
        nonnegative("noslip_tolerance", self.noslip_tolerance)?;
        positive("constraint_timeconst", self.constraint_timeconst)?;
        nonnegative("tolerance", self.resolved_tolerance())?;
        if let Some(r) = self.impratio {
            positive("impratio", r)?;
        }
        if let Some(v) = self.hibernation_thresh_vel {
            positive("hibernation_thresh_vel", v)?;
        }
        for (name, v) in [
            ("substeps", self.substeps),
            ("iterations", self.resolved_iterations()),
            ("ls_iterations", self.ls_iterations),
            ("max_collision_pairs", self.max_collision_pairs),
            ("contacts_per_convex_pair", self.contacts_per_convex_pair),
            ("contacts_per_box_box_pair", self.contacts_per_box_box_pair),
            ("contacts_per_height_field_pair", self.contacts_per_height_field_pair),
            ("contacts_per_nonconvex_pair", self.contacts_per_nonconvex_pair),
            ("threads", self.threads),
        ] {
            if v == 0 {
                return invalid(name, "must be at least 1".into());
            }
        }
        check_threads("threads", self.threads)?;
        if let Some(tol) = self.contact_pruning_tolerance {
            if !(tol.is_finite() && tol >= 0.0) {
                return invalid(
                    "contact_pruning_tolerance",
                    format!("must be finite and ≥ 0, got {}", crate::error::short(tol)),
                );
            }
            if tol > 0.0 && self.mujoco_compatibility {
                return invalid(
                    "contact_pruning_tolerance",
                    "MuJoCo has no contact pruning: it must be 0 (or unset) in MuJoCo-compatible mode".into(),
                );
            }
        }
        if self.max_contacts == Some(0) {
            return invalid("max_contacts", "must be at least 1".into());
        }
        if self.contact_resolution == ContactResolution::Signorini
            && !Dialect::of(self).signorini_eligible(self)
        {
            return invalid(
                "contact_resolution",
                "signorini requires friction_cone=elliptic, constraint_solver=newton and native mode".into(),
            );
        }
        if self.enable_ccd && self.integrator == IntegratorKind::Rk4 {
            return invalid(
                "enable_ccd",
                "swept collision needs a one-evaluation integrator (euler, implicitfast, approximate_implicitfast): \
                 it sweeps from the poses of the step's only evaluation, and rk4 evaluates four states"
                    .into(),
            );
        }
        if self.enable_rolling_friction && !self.enable_torsional_friction {
            return invalid(
                "enable_rolling_friction",
                "rolling friction requires enable_torsional_friction".into(),
            );
        }
        Ok(())
    }
}

/// The most worker threads a pool may have: [`THREADS_PER_CORE`] per core of this machine. More only adds
/// scheduling overhead (results never depend on the count), and tens of thousands exhaust the machine.
pub fn max_threads() -> usize {
    THREADS_PER_CORE * std::thread::available_parallelism().map_or(1, usize::from)
}

/// See [`max_threads`].
pub const THREADS_PER_CORE: usize = 4;

/// The largest time step accepted (s): far above any stable rigid-body step, and far below what overflows `time`.
pub const MAX_DT: f64 = 10.0;

/// Errors: `threads` is 0 or above [`max_threads`] (`name` is the option or argument).
pub fn check_threads(name: &str, threads: usize) -> Result<()> {
    let max = max_threads();
    if threads == 0 || threads > max {
        return Err(SimError::InvalidOption {
            name: name.into(),
            what: format!(
                "must be between 1 and {max} ({THREADS_PER_CORE} per core of this machine), got {threads}"
            ),
        });
    }
    Ok(())
}
