//! The typed error of the geometry layer.
//!
//! Every constructor that takes user input validates it and returns [`GeometryError`] naming the shape and the
//! parameter at fault. Nothing is clamped or repaired silently.

use thiserror::Error;

/// What was wrong with the input given to a geometry constructor or query.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// A parameter is NaN or infinite.
    #[error("{shape}: parameter `{parameter}` must be finite, got {value}")]
    NonFinite {
        /// The shape or object being built (e.g. `"sphere"`).
        shape: &'static str,
        /// The parameter at fault (e.g. `"radius"`).
        parameter: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A size that must be strictly positive is zero or negative.
    #[error("{shape}: parameter `{parameter}` must be > 0, got {value}")]
    NonPositive {
        /// The shape or object being built.
        shape: &'static str,
        /// The parameter at fault.
        parameter: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A size or coordinate exceeds [`MAX_COORDINATE`] in magnitude.
    #[error("{shape}: parameter `{parameter}` = {value:e} exceeds {max:e} in magnitude (the largest size or coordinate accepted, m)", max = MAX_COORDINATE)]
    TooLarge {
        /// The shape or object being built.
        shape: &'static str,
        /// The parameter at fault.
        parameter: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A pose has a non-finite translation or rotation, or a rotation quaternion too far from unit length.
    #[error("pose: {what}")]
    InvalidPose {
        /// What is wrong with it.
        what: String,
    },
    /// A convex hull needs at least 4 points that are not all coplanar.
    #[error("convex mesh: {what} (a convex hull needs at least 4 points that are not coplanar)")]
    DegenerateHull {
        /// Why the point set has no volume (too few points, all collinear, all coplanar, all coincident).
        what: String,
    },
    /// A triangle mesh or height field has inconsistent data (index out of range, wrong array length, ...).
    #[error("{shape}: {what}")]
    InvalidMesh {
        /// `"triangle mesh"` or `"height field"`.
        shape: &'static str,
        /// What is inconsistent.
        what: String,
    },
    /// The operation needs a bounded convex shape (support function) but got another kind.
    #[error("{operation} is not defined for a {kind}")]
    Unsupported {
        /// The operation that was asked for (e.g. `"support function"`).
        operation: &'static str,
        /// The shape kind it was asked of.
        kind: &'static str,
    },
    /// The shape encloses no volume, so it has no mass properties.
    #[error("mass properties: a {kind} encloses no volume")]
    NoVolume {
        /// The shape kind.
        kind: &'static str,
    },
}

/// Result alias of the geometry layer.
pub type Result<T, E = GeometryError> = std::result::Result<T, E>;

/// `Ok(value)` if `value` is finite and `> 0`, otherwise the matching typed error.
pub(crate) fn positive(shape: &'static str, parameter: &'static str, value: f64) -> Result<f64> {
    bounded(shape, parameter, value)?;
    if value > 0.0 { Ok(value) } else { Err(GeometryError::NonPositive { shape, parameter, value }) }
}

/// The largest size or coordinate accepted (m): far beyond any simulated or queried scene, and small enough that
/// products and squares of such values (1e18) keep the precision distances need. Larger inputs are
/// [`GeometryError::TooLarge`], not a silent overflow to infinity or NaN.
pub const MAX_COORDINATE: f64 = 1e9;

/// `Ok(value)` if `value` is finite and at most [`MAX_COORDINATE`] in magnitude.
pub(crate) fn bounded(shape: &'static str, parameter: &'static str, value: f64) -> Result<f64> {
    finite(shape, parameter, value)?;
    if value.abs() <= MAX_COORDINATE {
        Ok(value)
    } else {
        Err(GeometryError::TooLarge { shape, parameter, value })
    }
}

/// `Ok(value)` if `value` is finite, otherwise [`GeometryError::NonFinite`].
pub(crate) fn finite(shape: &'static str, parameter: &'static str, value: f64) -> Result<f64> {
    if value.is_finite() { Ok(value) } else { Err(GeometryError::NonFinite { shape, parameter, value }) }
}

/// Checks that every component of a vector is finite.
pub(crate) fn finite_vec(
    shape: &'static str,
    parameter: &'static str,
    v: glam::DVec3,
) -> Result<glam::DVec3> {
    for c in v.to_array() {
        finite(shape, parameter, c)?;
    }
    Ok(v)
}
