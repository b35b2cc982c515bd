//! The typed error of the simulator facade.

use thiserror::Error;

/// What went wrong building or stepping a scene.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SimError {
    /// An option is out of range or an option combination is rejected (spec §4).
    #[error("option `{name}`: {what}")]
    InvalidOption {
        /// Option name.
        name: String,
        /// What is wrong and what is valid.
        what: String,
    },
    /// An actuator's length range could not be computed (MuJoCo `mj_setLengthRange`'s errors).
    #[error("actuator {actuator}: lengthrange: {what}")]
    LengthRange {
        /// The actuator.
        actuator: String,
        /// What went wrong.
        what: String,
    },
    /// The model could not be compiled.
    #[error(transparent)]
    Model(#[from] signorini_model::ModelError),
    /// Forward dynamics failed (e.g. a singular mass matrix).
    #[error(transparent)]
    Dynamics(#[from] signorini_model::DynamicsError),
    /// Collision detection failed (capacity exceeded names the option to raise).
    #[error(transparent)]
    Collision(#[from] signorini_collision::CollisionError),
    /// Constraint assembly failed.
    #[error(transparent)]
    Constraint(#[from] signorini_constraints::ConstraintError),
    /// The constraint solver failed.
    #[error(transparent)]
    Solver(#[from] signorini_solver::SolverError),
    /// The integrator failed.
    #[error(transparent)]
    Integrator(#[from] signorini_integrators::IntegratorError),
    /// The state became non-finite.
    #[error("the state became non-finite in step {step} (time {} s): {what}", short(*time))]
    NonFinite {
        /// The step being taken (1 for the first step after construction or a reset).
        step: u64,
        /// Simulated time.
        time: f64,
        /// Which quantity.
        what: String,
    },
    /// An operation on one environment of a [`Batch`](crate::Batch) failed.
    #[error("environment {env}: {source}")]
    Environment {
        /// The environment's index in its batch.
        env: usize,
        /// What went wrong there.
        source: Box<SimError>,
    },
    /// A state, selection or array is invalid: a wrong length or shape, a non-finite value, an unknown environment.
    #[error("{what}")]
    InvalidState {
        /// What is wrong.
        what: String,
    },
    /// A device backend of [`EnvBatch`](crate::EnvBatch) failed (`signorini_gpu::GpuError` for the GPU); the source
    /// is its typed error, reachable with `downcast_ref`.
    #[error("{device:?} backend: {source}")]
    Device {
        /// The backend.
        device: crate::env_batch::Device,
        /// Its error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// Result alias of the simulator facade.
pub type Result<T, E = SimError> = std::result::Result<T, E>;

/// `x` for a message: plain decimals for ordinary magnitudes, scientific notation otherwise (Rust's `{}` writes 1e300
/// with 300 digits).
pub fn short(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 || !x.is_finite() || (1e-4..1e9).contains(&a) { format!("{x}") } else { format!("{x:e}") }
}
