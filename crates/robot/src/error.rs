//! The typed errors of the robot collision model.

use signorini_collision::CollisionError;
use signorini_urdf::UrdfError;

/// Why a robot collision model could not be built or a query could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum RobotError {
    /// The URDF or SRDF could not be loaded (file, line and element are in the source).
    #[error(transparent)]
    Urdf(#[from] UrdfError),
    /// A joint name that the URDF does not have.
    #[error("{context} names joint `{name}`, which the URDF does not have (movable joints: {known})")]
    UnknownJoint {
        /// Where the name comes from (`joint_names` or `locked_joints`).
        context: &'static str,
        /// The name.
        name: String,
        /// The URDF's movable joints, comma separated.
        known: String,
    },
    /// A joint named twice (in `joint_names`, or both there and in `locked_joints`).
    #[error("joint `{name}` is named twice ({context})")]
    DuplicateJoint {
        /// The name.
        name: String,
        /// Where.
        context: &'static str,
    },
    /// A movable, non-mimic joint that is neither a configuration variable nor locked.
    #[error("joint `{name}` is neither in joint_names nor in locked_joints")]
    UnassignedJoint {
        /// The name.
        name: String,
    },
    /// A locked joint held outside its URDF limits.
    #[error("locked joint `{name}` = {value} is outside its limits [{lower}, {upper}]")]
    LockedOutOfLimits {
        /// The name.
        name: String,
        /// The value asked for.
        value: f64,
        /// Lower limit.
        lower: f64,
        /// Upper limit.
        upper: f64,
    },
    /// A configuration `q` of the wrong length.
    #[error("configuration {index}: q has {got} entries, the robot has {expected} joints ({names})")]
    ConfigurationLength {
        /// Index of the configuration in its batch (0 for a single query).
        index: usize,
        /// Number of joints.
        expected: usize,
        /// Entries given.
        got: usize,
        /// Joint names in `q` order.
        names: String,
    },
    /// A NaN or infinite entry of `q`.
    #[error("configuration {index}: q[{joint}] (joint `{name}`) is {value}, not a finite number")]
    NonFiniteConfiguration {
        /// Index of the configuration in its batch.
        index: usize,
        /// Entry of `q`.
        joint: usize,
        /// Joint name.
        name: String,
        /// The value.
        value: f64,
    },
    /// A URDF feature the collision model does not handle.
    #[error("not supported by the robot collision model: {what}")]
    NotSupported {
        /// What.
        what: String,
    },
    /// An argument out of its valid range.
    #[error("invalid argument: {what}")]
    InvalidArgument {
        /// What and why.
        what: String,
    },
    /// A geometry query failed.
    #[error(transparent)]
    Collision(#[from] CollisionError),
}

/// `Result` with [`RobotError`].
pub type Result<T> = std::result::Result<T, RobotError>;
