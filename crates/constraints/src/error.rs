//! The typed errors of the constraint layer. Each names the object and the parameter, with a rule a user can act
//! on (spec README §4).

use thiserror::Error;

/// An invalid option or constraint parameter, detected when a [`crate::ConstraintAssembler`] is built (or, for
/// contact parameters mixed at run time, when the rows are assembled).
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum ConstraintError {
    /// A row selection does not match the model (e.g. the number of equality flags).
    #[error("row selection: {what}")]
    InvalidSelection {
        /// What is wrong.
        what: String,
    },
    /// A `solref`/`solimp` entry breaks a rule of spec README §4.
    #[error("{object}: invalid {parameter} = {value}: {rule}")]
    InvalidSolParams {
        /// The object, e.g. `geom 'floor' (#0)`.
        object: String,
        /// `timeconst`, `dampratio`, `dmin`, `dmax`, `width`, `midpoint` or `power`.
        parameter: &'static str,
        /// The offending value.
        value: f64,
        /// What is required.
        rule: &'static str,
    },
    /// A constraint option breaks its rule.
    #[error("option {option} = {value}: {rule}")]
    InvalidOption {
        /// The option's name.
        option: &'static str,
        /// The offending value.
        value: f64,
        /// What is required.
        rule: &'static str,
    },
    /// `enable_rolling_friction` without `enable_torsional_friction`.
    #[error("enable_rolling_friction requires enable_torsional_friction (set both, or neither)")]
    RollingWithoutTorsional,
    /// `signorini` without the elliptic cone.
    #[error("the Signorini contact resolution needs the elliptic friction cone (friction_cone = elliptic)")]
    SignoriniNeedsElliptic,
    /// A friction-cone name that is not one of [`crate::FrictionCone::NAMES`].
    #[error("unknown friction cone '{name}': valid names are pyramidal, elliptic")]
    UnknownFrictionCone {
        /// The name given.
        name: String,
    },
    /// The model has more dofs than a [`crate::DofIndex`] can number.
    #[error("the model has {nv} dofs; the constraint rows number dofs with 32 bits (at most {max})")]
    TooManyDofs {
        /// The model's dofs.
        nv: usize,
        /// The most a row can index.
        max: u64,
    },
    /// A joint equality names a joint that is not a hinge or a slide.
    #[error("{object}: joint {joint} is not a hinge or a slide (joint equalities couple scalar joints)")]
    NonScalarEqualityJoint {
        /// The equality.
        object: String,
        /// The joint index.
        joint: usize,
    },
}
