//! The typed error of the collision layer.

use signorini_geometry::{GeometryError, ShapeKind};
use thiserror::Error;

/// What went wrong in a query.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum CollisionError {
    /// No algorithm handles this pair of shape kinds for this query.
    #[error("{query} between a {a} and a {b} is not supported", a = .a.name(), b = .b.name())]
    Unsupported {
        /// The query (`"distance"`, `"collide"`, `"contacts"`).
        query: &'static str,
        /// Kind of shape A.
        a: ShapeKind,
        /// Kind of shape B.
        b: ShapeKind,
    },
    /// A pose is not finite or its rotation is not a unit quaternion.
    #[error("pose of shape {which}: {source}")]
    InvalidPose {
        /// `"A"` or `"B"`.
        which: &'static str,
        /// The validation error.
        source: GeometryError,
    },
    /// A shape could not be built.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// A request field is out of range.
    #[error("invalid request: {what}")]
    InvalidRequest {
        /// What is wrong.
        what: String,
    },
}

/// Result alias of the collision layer.
pub type Result<T, E = CollisionError> = std::result::Result<T, E>;
