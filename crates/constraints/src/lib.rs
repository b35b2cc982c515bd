//! # signorini-constraints
//!
//! The constraint layer of signorini (layer 4): every step it turns the model's equalities, the dofs' friction
//! loss, the collision layer's contacts and the joint limits into soft-constraint **rows** (spec
//! `reference-semantics.md` §B): a sparse Jacobian row over the dofs that move the constrained bodies, a reference
//! acceleration `aref`, a regularizer `R` and its inverse `D = 1/R`, plus the friction-loss bound and cone data the
//! solver needs. The solver (layer 5) minimises `½(a − a_unc)ᵀM(a − a_unc) + Σ_rows s_i(J_i a − aref_i)` with the
//! row costs of spec §C.1.
//!
//! | module | concept |
//! |---|---|
//! | [`options`] | [`ConstraintOptions`]: cone, `impratio`, timeconst, torsional/rolling flags, one setting per rule |
//! | [`impedance`] | `sol_params` validation and resolution, impedance `imp(r)` ([`ImpedanceCurve`]), `aref`, `R` (§B.1) |
//! | [`frame`] | the tangent frame of a contact normal ([`TangentFrame`]) |
//! | [`rows`] | [`ConstraintRows`]: the rows as plain data (structure of arrays, CSR Jacobian) |
//! | [`assemble`] | [`ConstraintAssembler`] (configuration) and its [`AssemblyScratch`]: the rows of a step (§B.3–§B.9) |
//! | [`body_transmission`] | the moment of an actuator on a body (adhesion), from the step's contact rows |
//!
//! Where Genesis and MuJoCo differ (condim source, tangents, pyramid regularizer, margins, impedance edge cases,
//! direct `solref`, limit sides, friction-loss threshold, `impratio` default), [`ConstraintOptions`] has one
//! setting per rule: [`Default`] is Genesis', [`ConstraintOptions::mujoco`] the preset of MuJoCo's.
//! | [`error`] | [`ConstraintError`] |
//!
//! Row order (issue 6, Genesis): equality → DOF friction loss → contacts → joint limits.

pub mod assemble;
pub mod body_transmission;
pub mod error;
pub mod frame;
pub mod impedance;
pub mod mujoco_dot;
pub mod options;
pub mod rows;
pub mod sol_overrides;

pub use assemble::{AssemblyScratch, ConstraintAssembler, EnvironmentOverrides};
pub use error::ConstraintError;
pub use frame::TangentFrame;
pub use impedance::{ImpedanceCurve, ResolvedSol};
pub use options::{
    ConstraintOptions, ContactDimension, EllipticRegularizer, FrictionCone, JointLimitSides,
    PyramidRegularizer, ZeroRotationalFriction,
};
pub use rows::{ConstraintRows, DofIndex, RowKind};
pub use sol_overrides::SolOverrides;
