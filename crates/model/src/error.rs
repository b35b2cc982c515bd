//! Typed errors: [`ModelError`] for what [`crate::Model::compile`] rejects in a [`crate::ModelSpec`], and
//! [`DynamicsError`] for what a state can make impossible at run time.
//!
//! Every variant names the object at fault as `kind 'name' (#index)` (see [`object_name`]).

use thiserror::Error;

/// What is wrong with a [`crate::ModelSpec`].
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The geoms' collision table rejected a body, geom or exclude (the message names it).
    #[error(transparent)]
    Collision(#[from] signorini_collision::CollisionError),
    /// `bodies` is empty, or `bodies[0]` is not a world body (its own parent, no joints, no mass).
    #[error("body #0 must be the world: {what}")]
    InvalidWorld {
        /// What is wrong with it.
        what: &'static str,
    },
    /// A body's parent does not precede it.
    #[error("{body}: parent #{parent} must precede the body")]
    BadParent {
        /// The body.
        body: String,
        /// The parent index given.
        parent: usize,
    },
    /// A parameter that must be positive and finite is not.
    #[error("{object}: `{parameter}` must be positive and finite, got {value}")]
    NonPositive {
        /// The object.
        object: String,
        /// The parameter.
        parameter: &'static str,
        /// The value given.
        value: f64,
    },
    /// A tendon that is neither fixed (joints) nor spatial (at least two points), or both.
    #[error("{tendon}: a tendon has joints (fixed) or at least two points (spatial), not both")]
    InvalidTendonPath {
        /// The tendon.
        tendon: String,
    },
    /// A mocap body that is not a child of the world or has joints.
    #[error("{body}: a mocap body must be a child of the world without joints ({reason})")]
    BadMocap {
        /// The body.
        body: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A parameter is NaN or infinite.
    #[error("{object}: `{parameter}` must be finite")]
    NonFinite {
        /// The object.
        object: String,
        /// The parameter.
        parameter: &'static str,
    },
    /// A position exceeds `signorini_geometry::MAX_COORDINATE` (1e9 m) in magnitude.
    #[error(
        "{object}: `{parameter}` has a coordinate {value:e} m beyond ±1e9 m (the largest coordinate accepted)"
    )]
    TooLarge {
        /// The object.
        object: String,
        /// The parameter.
        parameter: &'static str,
        /// The offending coordinate.
        value: f64,
    },
    /// A parameter that must be `≥ 0` is negative.
    #[error("{object}: `{parameter}` must be >= 0, got {value}")]
    Negative {
        /// The object.
        object: String,
        /// The parameter.
        parameter: &'static str,
        /// The value given.
        value: f64,
    },
    /// A quaternion's norm differs from 1 by more than [`signorini_geometry::pose::QUAT_NORM_TOLERANCE`].
    #[error("{object}: `{parameter}` must be a unit quaternion, norm is {norm}")]
    NotUnitQuaternion {
        /// The object.
        object: String,
        /// The parameter.
        parameter: &'static str,
        /// Its norm.
        norm: f64,
    },
    /// Principal moments of inertia that violate the triangle inequality `I₁ + I₂ ≥ I₃` (and permutations).
    #[error("{body}: principal inertia {inertia:?} violates the triangle inequality")]
    InertiaTriangle {
        /// The body.
        body: String,
        /// The moments given.
        inertia: [f64; 3],
    },
    /// A body with dofs whose subtree has no mass.
    #[error("{body}: has dofs but its subtree has no mass")]
    MasslessSubtree {
        /// The body.
        body: String,
    },
    /// `M(qpos0)` is not positive definite (a dof moves no inertia, e.g. a hinge of a point mass on its axis).
    #[error("{joint}: the joint-space inertia at qpos0 is singular at dof #{dof} (pivot {pivot})")]
    SingularInertia {
        /// The joint owning the dof.
        joint: String,
        /// The dof.
        dof: usize,
        /// The pivot found.
        pivot: f64,
    },
    /// A hinge or slide axis of (near) zero length.
    #[error("{joint}: axis has zero length")]
    ZeroAxis {
        /// The joint.
        joint: String,
    },
    /// A free joint that is not the only joint of a child of the world.
    #[error("{joint}: a free joint must be the only joint of a body whose parent is the world")]
    FreeJointPlacement {
        /// The joint.
        joint: String,
    },
    /// An invalid range (`lower < upper` for hinge/slide/ctrl/force ranges; `(0, max > 0)` for ball joints; none
    /// for free joints).
    #[error("{object}: invalid `{parameter}` {range:?} ({rule})")]
    InvalidRange {
        /// The object.
        object: String,
        /// The parameter.
        parameter: &'static str,
        /// The range given.
        range: [f64; 2],
        /// The rule it breaks.
        rule: &'static str,
    },
    /// An equality joins a body to itself.
    #[error("{object}: body1 and body2 are the same body (#{body}); an equality joins two bodies")]
    SameBody {
        /// The equality.
        object: String,
        /// The body.
        body: usize,
    },
    /// An index that refers to nothing.
    #[error("{object}: `{parameter}` = {index} is out of range (< {len})")]
    IndexOutOfRange {
        /// The object.
        object: String,
        /// The parameter.
        parameter: &'static str,
        /// The index given.
        index: usize,
        /// The number of valid targets.
        len: usize,
    },
    /// A sensor that cannot measure what it names.
    #[error("{sensor}: {reason}")]
    InvalidSensor {
        /// The sensor.
        sensor: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// An actuator whose parameters contradict each other.
    #[error("{actuator}: {reason}")]
    InvalidActuator {
        /// The actuator.
        actuator: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// An explicit contact pair whose parameters are not supported or contradict each other.
    #[error("{pair}: {reason}")]
    InvalidContactPair {
        /// The pair.
        pair: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A joint used where only a hinge or slide (one qpos, one dof) is allowed.
    #[error("{object}: joint #{joint} must be a hinge or a slide")]
    NotScalarJoint {
        /// The actuator or equality.
        object: String,
        /// The joint index.
        joint: usize,
    },
    /// A `condim` other than 1, 3, 4 or 6.
    #[error("{geom}: condim must be 1, 3, 4 or 6, got {condim}")]
    InvalidCondim {
        /// The geom.
        geom: String,
        /// The value given.
        condim: u8,
    },
    /// A keyframe vector whose length is neither 0 nor the model's size.
    #[error("{keyframe}: `{field}` has {len} entries, expected 0 or {expected}")]
    KeyframeSize {
        /// The keyframe.
        keyframe: String,
        /// `qpos`, `qvel` or `ctrl`.
        field: &'static str,
        /// Its length.
        len: usize,
        /// The model's size.
        expected: usize,
    },
}

/// What a state makes impossible.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum DynamicsError {
    /// The factorization of `M(q)` met a non-positive or non-finite pivot.
    #[error("joint-space inertia is not positive definite at dof #{dof} (pivot {pivot})")]
    NotPositiveDefinite {
        /// The dof.
        dof: usize,
        /// The pivot found.
        pivot: f64,
    },
    /// A keyframe index that does not exist.
    #[error("keyframe #{index} does not exist (the model has {len})")]
    NoKeyframe {
        /// The index asked for.
        index: usize,
        /// The number of keyframes.
        len: usize,
    },
}

/// `kind 'name' (#index)`, or `kind #index` when the name is empty: how errors name objects.
pub fn object_name(kind: &str, name: &str, index: usize) -> String {
    if name.is_empty() { format!("{kind} #{index}") } else { format!("{kind} '{name}' (#{index})") }
}
