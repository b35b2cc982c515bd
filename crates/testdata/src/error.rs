//! The typed error of the test-data formats.

use signorini_geometry::GeometryError;
use thiserror::Error;

/// Why a record cannot be turned into shapes and poses.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum TestDataError {
    /// A shape or a pose is rejected by the geometry layer.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// A shape refers to a hull or mesh that the file's table does not hold.
    #[error("the dataset's `{table}` table has no entry {id}")]
    MissingEntry {
        /// `"hulls"` or `"meshes"`.
        table: &'static str,
        /// The id looked for.
        id: u64,
    },
    /// A plane or half-space whose normal has no direction or whose offset is not finite.
    #[error("invalid plane: {what}")]
    InvalidPlane {
        /// What is wrong.
        what: String,
    },
}

/// Result alias of the test-data formats.
pub type Result<T, E = TestDataError> = std::result::Result<T, E>;
