//! The dialect seam of the simulator: the one place where the chosen semantics — native (Genesis) or
//! MuJoCo-compatible (spec §2) — become every stage's settings. The stages themselves never ask which dialect they
//! run: they read the plain settings this module gives them (collision options and pair dispatcher, constraint
//! options, solver options, the integrator, hibernation's rest threshold, the read-back tangents).

use signorini_collision::ConvexAlgorithm;
use signorini_collision::world::CollisionOptions;
use signorini_constraints::{ConstraintOptions, FrictionCone};
use signorini_solver::{CgUpdate, SolverKind, SolverOptions, WarmStart};

use signorini_integrators::{FreeBodyIntegration, ImplicitForces, IntegratorKind, IntegratorSettings};

use crate::hibernation::SleepRules;
use crate::options::{ContactResolution, Options};

pub use signorini_collision::Dialect;

/// What a [`Dialect`] means for each stage of the simulator: its option defaults and every stage's settings.
pub trait DialectStages: Copy {
    /// The dialect of `options` (its `mujoco_compatibility` flag, spec §4).
    fn of(options: &Options) -> Self;
    /// The options a scene of this dialect starts from (see the implementation).
    fn default_options(self, multiccd: bool) -> Options;
    /// The solver iteration cap when `iterations` is not set.
    fn default_iterations(self) -> usize;
    /// The solver tolerance when `tolerance` is not set.
    fn default_tolerance(self) -> f64;
    /// The hibernation rest threshold (m/s) when `hibernation_thresh_vel` is not set.
    fn default_hibernation_thresh_vel(self) -> f64;
    /// Whether the Signorini resolution may run.
    fn signorini_eligible(self, options: &Options) -> bool;
    /// Whether the auto rule (or an explicit choice) selects the Signorini resolution.
    fn uses_signorini(self, options: &Options) -> bool;
    /// The collision stage's options.
    fn collision_options(self, options: &Options) -> CollisionOptions;
    /// The constraint stage's options.
    fn constraint_options(self, options: &Options) -> ConstraintOptions;
    /// The solver's method.
    fn solver_kind(self, options: &Options) -> SolverKind;
    /// The solver stage's options.
    fn solver_options(self, options: &Options) -> SolverOptions;
    /// Whether the collision model excludes the pairs Genesis excludes from the model's structure: bodies linked by
    /// a weld equality (spec §A.2 rule 5) and, unless `enable_neutral_collision`, geom pairs of one tree that
    /// penetrate at the neutral pose `qpos0` (rule 7). MuJoCo has neither rule.
    fn structural_filters(self) -> bool;
    /// How hibernation behaves ([`SleepRules`]): when a step decides who sleeps, how trees count their rest and
    /// wake, and whether sleepers keep their contacts for read-back (Genesis) or report none (MuJoCo 4.0).
    fn sleep_rules(self) -> SleepRules;
    /// Whether hibernation decides from the model which trees may sleep (MuJoCo's automatic sleep policy: actuated
    /// trees and trees coupled by a compliant tendon never sleep, a tree's controls do not matter) rather than
    /// keeping awake a tree whose control is non-zero (Genesis).
    fn model_sleep_policy(self) -> bool;
    /// Whether a body's degenerate inverse weight (translational or rotational part below `mjMINVAL`) takes the
    /// other part's value, as Genesis does ([`signorini_model::Model::fill_degenerate_invweights`]); MuJoCo 4.0
    /// keeps it.
    fn fills_degenerate_invweights(self) -> bool;
    /// How the position update turns quaternions ([`signorini_model::kinematics::QuaternionStep`]): MuJoCo's
    /// `mju_quatIntegrate` or Genesis's rotation-vector product.
    fn quaternion_step(self) -> signorini_model::kinematics::QuaternionStep;
    /// The integrator's settings: `eulerdamp` from the options; standalone free bodies by MuJoCo 4.0's gyroscopic
    /// block or by Genesis's implicit midpoint rule (spec §D.5).
    fn integrator_settings(self, options: &Options) -> IntegratorSettings;
    /// The tolerance within which a geom, site or inertial frame is posed as the frame it nearly equals
    /// ([`signorini_model::same_frame`]): MuJoCo's `kFrameEps`, or 0 (the poses as written; Genesis composes every
    /// local pose).
    fn frame_tolerance(self) -> f64;
}

impl DialectStages for Dialect {
    /// The dialect of `options` (its `mujoco_compatibility` flag, spec §4).
    fn of(options: &Options) -> Dialect {
        if options.mujoco_compatibility { Dialect::Mujoco } else { Dialect::Native }
    }

    /// The options a scene of this dialect starts from before a file or the user sets any: spec §4's native
    /// defaults, or MuJoCo's (timestep 0.002 s, Euler integrator, its multiccd flag for box and mesh multi-contact).
    fn default_options(self, multiccd: bool) -> Options {
        match self {
            Dialect::Native => Options::default(),
            Dialect::Mujoco => Options {
                mujoco_compatibility: true,
                // MuJoCo's `timestep` default; 0.01 s stays Genesis's (native) default.
                dt: 0.002,
                integrator: IntegratorKind::Euler,
                enable_multi_contact: multiccd,
                ..Options::default()
            },
        }
    }

    /// The solver iteration cap when `iterations` is not set: 25 native, 100 MuJoCo.
    fn default_iterations(self) -> usize {
        match self {
            Dialect::Native => 25,
            Dialect::Mujoco => 100,
        }
    }

    /// The solver tolerance when `tolerance` is not set: 1e-9 native, 1e-8 MuJoCo.
    fn default_tolerance(self) -> f64 {
        match self {
            Dialect::Native => 1e-9,
            Dialect::Mujoco => 1e-8,
        }
    }

    /// The hibernation rest threshold (m/s) when `hibernation_thresh_vel` is not set: 2e-3 native, 1e-4 MuJoCo.
    fn default_hibernation_thresh_vel(self) -> f64 {
        match self {
            Dialect::Native => 2e-3,
            Dialect::Mujoco => 1e-4,
        }
    }

    /// Whether the Signorini resolution may run: elliptic cone, Newton, native dialect.
    fn signorini_eligible(self, options: &Options) -> bool {
        self == Dialect::Native
            && options.friction_cone == FrictionCone::Elliptic
            && options.constraint_solver == SolverKind::Newton
    }

    /// Whether the auto rule (or an explicit choice) selects the Signorini resolution.
    fn uses_signorini(self, options: &Options) -> bool {
        match options.contact_resolution {
            ContactResolution::Signorini => true,
            ContactResolution::Convex => false,
            ContactResolution::Auto => self.signorini_eligible(options),
        }
    }

    /// The collision stage's options.
    fn collision_options(self, options: &Options) -> CollisionOptions {
        CollisionOptions {
            dialect: self,
            convex_algorithm: ConvexAlgorithm::Mpr,
            max_collision_pairs: options.max_collision_pairs,
            contacts_per_convex_pair: options.contacts_per_convex_pair,
            contacts_per_box_box_pair: options.contacts_per_box_box_pair,
            contacts_per_height_field_pair: options.contacts_per_height_field_pair,
            contacts_per_nonconvex_pair: options.contacts_per_nonconvex_pair,
            contact_pruning_tolerance: options.contact_pruning_tolerance.unwrap_or(match self {
                Dialect::Native => CollisionOptions::default().contact_pruning_tolerance,
                Dialect::Mujoco => 0.0,
            }),
            max_contacts: options.max_contacts,
            enable_self_collision: options.enable_self_collision,
            enable_adjacent_collision: options.enable_adjacent_collision,
            world_weld_adjacent: self == Dialect::Native,
            enable_neutral_collision: options.enable_neutral_collision,
            enable_multi_contact: options.enable_multi_contact,
            box_box_detection: options.box_box_detection,
            threads: options.threads,
            ..CollisionOptions::default()
        }
    }

    /// The constraint stage's options.
    fn constraint_options(self, options: &Options) -> ConstraintOptions {
        let preset = match self {
            Dialect::Native => ConstraintOptions::default(),
            Dialect::Mujoco => ConstraintOptions::mujoco(),
        };
        ConstraintOptions {
            timestep: options.h(),
            friction_cone: options.friction_cone,
            impratio: options.impratio,
            constraint_timeconst: options.constraint_timeconst,
            refsafe: options.refsafe,
            enable_torsional_friction: options.enable_torsional_friction,
            enable_rolling_friction: options.enable_rolling_friction,
            signorini: self.uses_signorini(options),
            ..preset
        }
    }

    /// The solver's method.
    fn solver_kind(self, options: &Options) -> SolverKind {
        options.constraint_solver
    }

    /// The solver stage's options.
    fn solver_options(self, options: &Options) -> SolverOptions {
        SolverOptions {
            iterations: options.iterations.unwrap_or(self.default_iterations()),
            tolerance: options.tolerance.unwrap_or(self.default_tolerance()),
            ls_iterations: options.ls_iterations,
            ls_tolerance: options.ls_tolerance,
            kind: self.solver_kind(options),
            cg_update: CgUpdate::HagerZhang,
            elliptic: options.friction_cone == FrictionCone::Elliptic,
            signorini: self.uses_signorini(options),
            warm_start: match self {
                _ if !options.enable_warm_start => WarmStart::Smooth,
                Dialect::Native => WarmStart::Incoming,
                Dialect::Mujoco => WarmStart::CheaperOfIncomingAndSmooth,
            },
            mujoco_arithmetic: self == Dialect::Mujoco,
            parallel_islands: options.threads > 1,
        }
    }

    fn structural_filters(self) -> bool {
        self == Dialect::Native
    }

    fn sleep_rules(self) -> SleepRules {
        let mujoco = self == Dialect::Mujoco;
        SleepRules {
            decides_before_advance: mujoco,
            keeps_contacts: !mujoco,
            ctrl_keeps_awake: !mujoco,
            woken_take_toucher_rest: mujoco,
            init_reset_as_mujoco: mujoco,
        }
    }

    fn model_sleep_policy(self) -> bool {
        self == Dialect::Mujoco
    }

    fn fills_degenerate_invweights(self) -> bool {
        self == Dialect::Native
    }

    fn quaternion_step(self) -> signorini_model::kinematics::QuaternionStep {
        match self {
            Dialect::Mujoco => signorini_model::kinematics::QuaternionStep::MuJoCo,
            Dialect::Native => signorini_model::kinematics::QuaternionStep::Genesis,
        }
    }

    /// The integrator's settings: `eulerdamp` from the options; standalone free bodies by MuJoCo 4.0's gyroscopic
    /// block (MuJoCo-compatible) or by Genesis 1.4.5's implicit midpoint rule (native, spec §D.5); the implicit
    /// updates from the solve's forces `f_s + Jᵀf` (MuJoCo's `qfrc_smooth + qfrc_constraint`) or from `M a`
    /// (Genesis).
    fn integrator_settings(self, options: &Options) -> IntegratorSettings {
        let (free_bodies, implicit_forces) = match self {
            Dialect::Native => (FreeBodyIntegration::ImplicitMidpoint, ImplicitForces::MassTimesAcceleration),
            Dialect::Mujoco => (FreeBodyIntegration::GyroscopicBlock, ImplicitForces::SolverForces),
        };
        IntegratorSettings {
            euler_implicit_damping: options.euler_implicit_damping,
            free_bodies,
            implicit_forces,
        }
    }

    /// MuJoCo's `kFrameEps` (10⁻⁶) in MuJoCo's dialect, 0 in the native one.
    fn frame_tolerance(self) -> f64 {
        match self {
            Dialect::Native => 0.0,
            Dialect::Mujoco => signorini_model::same_frame::MUJOCO_FRAME_TOLERANCE,
        }
    }
}
