//! [`IntegratorError`]: what an integrator name, a timestep or a state can make impossible.

use signorini_model::DynamicsError;
use thiserror::Error;

/// The names [`crate::integrator_from_name`] accepts, in the order [`crate::IntegratorKind::ALL`] lists them.
pub const INTEGRATOR_NAMES: [&str; 5] =
    ["euler", "implicitfast", "approximate_implicitfast", "rk4", "implicit"];

/// What an integrator cannot do.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum IntegratorError {
    /// A name that is not one of [`INTEGRATOR_NAMES`].
    #[error(
        "unknown integrator '{name}': valid names are euler, implicitfast, approximate_implicitfast, rk4, implicit"
    )]
    UnknownName {
        /// The name given.
        name: String,
    },
    /// A timestep that is not positive and finite.
    #[error("integrator timestep must be positive and finite, got {h}")]
    InvalidTimestep {
        /// The timestep given (s).
        h: f64,
    },
    /// An acceleration vector whose length is not the model's `nv`.
    #[error("qacc has {len} entries, the model has nv = {nv}")]
    QaccLength {
        /// The length given.
        len: usize,
        /// The model's number of dofs.
        nv: usize,
    },
    /// The implicit matrix `M − h·∂f/∂q̇` met a non-positive or non-finite pivot (`implicit`: a pivot below 1e-15 in
    /// magnitude, MuJoCo's `mjMINVAL`), e.g. an actuator whose velocity gain is destabilising, `biasprm[2] > 0`, with
    /// a large `h`.
    #[error(
        "implicit matrix M − h·∂f/∂q̇ (damping, kv, …) cannot be factored at dof #{dof} (pivot {pivot}): reduce the \
         timestep or the destabilising velocity gain"
    )]
    NotPositiveDefinite {
        /// The dof.
        dof: usize,
        /// The pivot found.
        pivot: f64,
    },
    /// [`crate::Integrator::stage`] called for a stage the integrator does not have (`stage + 1` must be below its
    /// [`crate::Integrator::evaluations`]), or [`crate::Integrator::advance`] of a multi-evaluation integrator
    /// called without its stages.
    #[error(
        "integrator stage {stage} does not exist: the integrator evaluates the dynamics {evaluations} time(s) per step"
    )]
    Stage {
        /// The stage asked for.
        stage: usize,
        /// The integrator's evaluations per step.
        evaluations: usize,
    },
    /// The model layer failed (factorization of the modified `M` in the approximate_implicitfast preparation).
    #[error(transparent)]
    Dynamics(#[from] DynamicsError),
}
