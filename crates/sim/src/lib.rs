//! # signorini-sim
//!
//! The thin facade over the stages: a [`Scene`] built from MJCF or a [`ModelSpec`](signorini_model::spec::ModelSpec)
//! with validated [`Options`] (spec §4), [`Scene::step`], state get/set, and contact and force read-back (spec §5).

pub mod data;
pub mod dialect;
pub mod error;
mod hibernation;
pub mod model;
pub mod options;
pub mod readback;
pub mod scene;
pub mod step;

pub use data::Data;
pub use dialect::{Dialect, DialectStages};
pub use error::{Result, SimError};
pub use model::Model;
pub use options::{ContactResolution, OPTION_NAMES, Options};
pub use readback::{Contacts, StepStatistics};
pub use scene::Scene;
pub use signorini_constraints::FrictionCone;
pub use signorini_integrators::IntegratorKind;
pub use signorini_solver::SolverKind;
pub use step::step;
