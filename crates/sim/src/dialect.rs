//! The dialect seam of the simulator: the one place where the chosen semantics — native (Genesis) or
//! MuJoCo-compatible (spec §2) — become every stage's settings. The stages themselves never ask which dialect they
//! run: they read the plain settings this module gives them (collision options and pair dispatcher, constraint
//! options, solver options, the integrator, hibernation's rest threshold, the read-back tangents).

use serde::{Deserialize, Serialize};
use signorini_collision::world::CollisionOptions;
use signorini_collision::{ContactMode, ConvexAlgorithm};
use signorini_constraints::{ConstraintOptions, FrictionCone};
use signorini_solver::{CgUpdate, SolverKind, SolverOptions, WarmStart};

use crate::options::{ConeChoice, ContactResolution, IntegratorChoice, Options, SolverChoice};

/// The semantics a scene follows (spec §2), chosen once when the model is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    /// Genesis semantics (the default).
    #[default]
    Native,
    /// MuJoCo 4.0's semantics and defaults.
    MujocoCompatible,
}

impl Dialect {
    /// The dialect of `options` (its `mujoco_compatibility` flag, spec §4).
    pub fn of(options: &Options) -> Dialect {
        if options.mujoco_compatibility { Dialect::MujocoCompatible } else { Dialect::Native }
    }

    /// The options a scene of this dialect starts from before a file or the user sets any: spec §4's native
    /// defaults, or MuJoCo's (Euler integrator, its multiccd flag for box and mesh multi-contact).
    pub fn default_options(self, multiccd: bool) -> Options {
        match self {
            Dialect::Native => Options::default(),
            Dialect::MujocoCompatible => Options {
                mujoco_compatibility: true,
                integrator: IntegratorChoice::Euler,
                enable_multi_contact: multiccd,
                ..Options::default()
            },
        }
    }

    /// The solver iteration cap when `iterations` is not set: 25 native, 100 MuJoCo.
    pub fn default_iterations(self) -> usize {
        match self {
            Dialect::Native => 25,
            Dialect::MujocoCompatible => 100,
        }
    }

    /// The solver tolerance when `tolerance` is not set: 1e-9 native, 1e-8 MuJoCo.
    pub fn default_tolerance(self) -> f64 {
        match self {
            Dialect::Native => 1e-9,
            Dialect::MujocoCompatible => 1e-8,
        }
    }

    /// The hibernation rest threshold (m/s) when `hibernation_thresh_vel` is not set: 2e-3 native, 1e-4 MuJoCo.
    pub fn default_hibernation_thresh_vel(self) -> f64 {
        match self {
            Dialect::Native => 2e-3,
            Dialect::MujocoCompatible => 1e-4,
        }
    }

    /// Whether the Signorini resolution may run: elliptic cone, Newton, native dialect.
    pub fn signorini_eligible(self, options: &Options) -> bool {
        self == Dialect::Native
            && options.friction_cone == ConeChoice::Elliptic
            && options.constraint_solver == SolverChoice::Newton
    }

    /// Whether the auto rule (or an explicit choice) selects the Signorini resolution.
    pub fn uses_signorini(self, options: &Options) -> bool {
        match options.contact_resolution {
            ContactResolution::Signorini => true,
            ContactResolution::Convex => false,
            ContactResolution::Auto => self.signorini_eligible(options),
        }
    }

    /// The collision stage's options.
    pub fn collision_options(self, options: &Options) -> CollisionOptions {
        let mode = match self {
            Dialect::Native => ContactMode::Native,
            Dialect::MujocoCompatible => ContactMode::MujocoCompatible,
        };
        CollisionOptions {
            mode,
            convex_algorithm: ConvexAlgorithm::Mpr,
            max_collision_pairs: options.max_collision_pairs,
            enable_self_collision: options.enable_self_collision,
            enable_adjacent_collision: options.enable_adjacent_collision,
            enable_neutral_collision: options.enable_neutral_collision,
            enable_multi_contact: options.enable_multi_contact,
            box_box_detection: options.box_box_detection,
            threads: options.threads,
            ..CollisionOptions::default()
        }
    }

    /// The constraint stage's options.
    pub fn constraint_options(self, options: &Options) -> ConstraintOptions {
        let preset = match self {
            Dialect::Native => ConstraintOptions::default(),
            Dialect::MujocoCompatible => ConstraintOptions::mujoco(),
        };
        ConstraintOptions {
            timestep: options.h(),
            friction_cone: match options.friction_cone {
                ConeChoice::Pyramidal => FrictionCone::Pyramidal,
                ConeChoice::Elliptic => FrictionCone::Elliptic,
            },
            impratio: options.impratio,
            constraint_timeconst: options.constraint_timeconst,
            enable_torsional_friction: options.enable_torsional_friction,
            enable_rolling_friction: options.enable_rolling_friction,
            signorini: self.uses_signorini(options),
            ..preset
        }
    }

    /// The solver's method.
    pub fn solver_kind(self, options: &Options) -> SolverKind {
        match options.constraint_solver {
            SolverChoice::Newton => SolverKind::Newton,
            SolverChoice::Cg => SolverKind::Cg,
        }
    }

    /// The solver stage's options.
    pub fn solver_options(self, options: &Options) -> SolverOptions {
        SolverOptions {
            iterations: options.iterations.unwrap_or(self.default_iterations()),
            tolerance: options.tolerance.unwrap_or(self.default_tolerance()),
            ls_iterations: options.ls_iterations,
            ls_tolerance: options.ls_tolerance,
            kind: self.solver_kind(options),
            cg_update: CgUpdate::HagerZhang,
            elliptic: options.friction_cone == ConeChoice::Elliptic,
            signorini: self.uses_signorini(options),
            warm_start: match self {
                Dialect::Native => WarmStart::Incoming,
                Dialect::MujocoCompatible => WarmStart::CheaperOfIncomingAndSmooth,
            },
        }
    }
}
