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
    /// A triangle mesh in a contact pair has no signed distance field: native contacts treat a mesh as a
    /// non-convex solid through its field.
    #[error(
        "contacts of a triangle mesh need its signed distance field (build it with `TriangleMesh::with_sdf`, or in \
         MJCF name the mesh in `<custom><text name=\"signorini:sdf\" data=\"...\"/>`), or use its convex hull; \
         pair {a} / {b}", a = .a.name(), b = .b.name()
    )]
    MeshWithoutSdf {
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
    /// A budget of the collision pipeline was exceeded. Nothing was dropped: the step failed as a whole. Raise the
    /// named option to at least `required`.
    #[error("{what}: {needed} needed but the budget allows {limit}; raise `{option}` to at least {required}")]
    CapacityExceeded {
        /// The option that sets the budget (`"max_collision_pairs"`, `"contacts_per_box_box_pair"`, ...).
        option: &'static str,
        /// What was counted.
        what: &'static str,
        /// The budget in force.
        limit: usize,
        /// How many were needed this step.
        needed: usize,
        /// The smallest option value that would have fitted.
        required: usize,
    },
    /// An iterative query used its whole iteration budget without a decision (raise the request's limit).
    #[error("not converged: {what}")]
    NotConverged {
        /// Which query and how far it got.
        what: String,
    },
    /// A collision world was built or driven with invalid data (names the body, geom or parameter).
    #[error("invalid collision world: {what}")]
    InvalidWorld {
        /// What is wrong.
        what: String,
    },
    /// The narrow phase failed on one pair of a collision world.
    #[error("geoms {geom_a} and {geom_b}: {source}")]
    Pair {
        /// Geom A of the pair.
        geom_a: usize,
        /// Geom B of the pair.
        geom_b: usize,
        /// The narrow-phase error.
        source: Box<CollisionError>,
    },
}

/// Result alias of the collision layer.
pub type Result<T, E = CollisionError> = std::result::Result<T, E>;
