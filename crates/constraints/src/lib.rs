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
//! | [`options`] | [`ConstraintOptions`]: cone, `impratio`, `constraint_timeconst`, torsional/rolling flags, mode |
//! | [`impedance`] | `sol_params` validation and resolution, impedance `imp(r)`, `aref`, `R` (§B.1) |
//! | [`frame`] | the tangent frame of a contact normal (native and MuJoCo `mju_makeFrame`) |
//! | [`rows`] | [`ConstraintRows`]: the rows as plain data (structure of arrays, CSR Jacobian) |
//! | [`assemble`] | [`ConstraintAssembler`]: builds the rows from `(Model, Data, ContactSet)` (§B.3–§B.9) |
//! | [`error`] | [`ConstraintError`] |
//!
//! Row order (issue 6, Genesis): equality → DOF friction loss → contacts → joint limits.

pub mod assemble;
pub mod error;
pub mod frame;
pub mod impedance;
pub mod options;
pub mod rows;

pub use assemble::ConstraintAssembler;
pub use error::ConstraintError;
pub use impedance::ResolvedSol;
pub use options::{ConstraintOptions, FrictionCone};
pub use rows::{ConstraintRows, RowKind};
