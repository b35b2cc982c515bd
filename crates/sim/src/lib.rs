//! # signorini-sim
//!
//! The thin facade over the stages. What a scene *is* — the compiled multibody model with its geoms' collision model,
//! the validated [`Options`] (spec §4) and every stage's configuration — is an immutable [`Model`], built from a
//! [`ModelSpec`](signorini_model::spec::ModelSpec) and shared by `Arc`; what it is *doing* is a cloneable [`Data`]
//! (state, contacts, rows, forces, warm start, sleep state, scratch). [`step()`](crate::step::step) advances one `Data` of a `Model`;
//! [`Scene`] pairs one of each with state get/set and contact and force read-back (spec §5). The [`Dialect`] (native
//! or MuJoCo-compatible) becomes every stage's settings in [`dialect`], and nowhere else. Files are loaded above this
//! crate (`signorini_mjcf::load_scene`).

pub mod batch;
pub mod data;
pub mod dialect;
pub mod env_batch;
pub mod error;
mod hibernation;
mod lengthrange;
pub mod model;
pub mod options;
pub mod parameters;
pub mod readback;
pub mod scene;
mod sensor;
pub mod step;
mod swept;

pub use batch::{Batch, BatchContacts, Envs};
pub use data::{ConstraintTypes, Data};
pub use dialect::{Dialect, DialectStages};
pub use env_batch::{Device, EnvBatch};
pub use error::{Result, SimError};
pub use hibernation::SleepRules;
pub use model::Model;
pub use options::{ContactResolution, OPTION_NAMES, Options};
pub use parameters::SolParams;
pub use readback::{Contacts, StepStatistics};
pub use scene::Scene;
pub use signorini_constraints::FrictionCone;
pub use signorini_integrators::{FreeBodyIntegration, IntegratorKind};
pub use signorini_solver::SolverKind;
pub use step::step;
