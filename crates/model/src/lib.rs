//! # signorini-model
//!
//! The articulated rigid-body model of signorini (layer 3): a kinematic tree of bodies with free, ball, hinge and
//! slide joints in MuJoCo's qpos/qvel layout, compiled from a plain-data [`ModelSpec`] into an immutable [`Model`]
//! (flat arrays), and a mutable [`Data`] allocated once and reused. All numbers follow MuJoCo's conventions so they
//! match `mj_kinematics`, `mj_crb`, `mj_rne`, `mj_passive` and `mj_jac` (see `docs/CONVENTIONS.md`).
//!
//! | module | stage |
//! |---|---|
//! | [`spec`] | the uncompiled description a loader or user code produces |
//! | [`model`] | [`Model`], [`Model::compile`] and its validation |
//! | [`data`] | [`Data`] |
//! | [`spatial`] | 6-D motion/force vectors and inertias (com-based, world axes) |
//! | [`kinematics`] | poses, subtree COM, `cdof`, `cinert` |
//! | [`crba`] | `M(q)` by composite rigid bodies, sparse storage, `M·x` |
//! | [`factor`] | tree-sparse `M = Lᵀ D L`, `M⁻¹ x` |
//! | [`rne`] | velocities, bias forces, inverse dynamics |
//! | [`rne_derivative`] | `∂qfrc_bias/∂q̇` and the sparsity of velocity derivatives |
//! | [`passive`] | joint springs and dampers |
//! | [`actuator`] | motors, servos, activation dynamics, transmissions |
//! | [`muscle`] | MuJoCo's muscle curves and activation |
//! | [`contact_forces`] | adhesion pull and body transmissions, from the step's contacts |
//! | [`jacobian`] | point/body Jacobians, `J·v`, `Jᵀ·f` along the dof chain |
//! | [`invweight`] | constants at `qpos0`: invweights, meaninertia, dof lengths |
//! | [`energy`] | potential and kinetic energy |
//! | [`forward`] | the smooth forward dynamics of one state |
//! | [`fluid`] | fluid forces (inertia-box and ellipsoid models) and their velocity derivative |
//! | [`sensor`] | sensor definitions, `sensordata` layout, constrained accelerations and subtree momenta |
//!
//! Staging per state: [`Model::forward_kinematics`] → [`Model::mass_matrix`] → [`Model::factor_m`] →
//! [`Model::bias`] → [`Model::passive`] → [`Model::actuation`] → [`Model::smooth_acceleration`], or all of them by
//! [`Model::forward`]. None of them allocates.

pub mod actuator;
pub mod contact_forces;
pub mod crba;
pub mod data;
pub mod energy;
pub mod error;
pub mod factor;
pub mod fluid;
pub mod forward;
pub mod invweight;
pub mod jacobian;
pub mod kinematics;
pub mod model;
pub mod muscle;
pub mod passive;
pub mod rne;
pub mod rne_derivative;
pub mod same_frame;
pub mod sensor;
pub mod spatial;
pub mod spec;
pub mod tendon;
mod validate;

pub use data::Data;
pub use error::{DynamicsError, ModelError};
pub use factor::TreeLayout;
pub use model::{DofChain, Model};
pub use rne_derivative::{DerivativeLayout, RneDerivativeScratch};
pub use sensor::{FrameQuantity, SensorFrame, SensorKind, SensorSpec};
pub use spatial::{SpatialInertia, SpatialVec, Wrench};
pub use spec::{
    ActuatorDynamics, ActuatorSpec, BodySpec, ContactPairSpec, EqualitySpec, GeomSpec, InertialSpec,
    JointKind, JointSpec, KeyframeSpec, ModelSpec, SleepPolicy, TendonSpec, TendonWrap, Transmission,
};
pub use tendon::Tendons;
