//! Plane: a half-space (the default, for contacts) or a two-sided surface (Coal's `Plane`).

use serde::{Deserialize, Serialize};

/// A plane through the local origin with normal `+z`.
///
/// - [`Plane::half_space`] (also [`Plane::new`] and `Default`): the solid `z ≤ 0`, bounded by `z = 0` with outward
///   normal `+z`. This is MuJoCo's and Genesis's contact plane (everything below is solid), and Coal's `Halfspace`.
/// - [`Plane::two_sided`]: the infinitely thin surface `z = 0` (Coal's `Plane`). A shape crossing it penetrates the
///   nearer side, and the contact normal flips with the side.
///
/// Its pose places it; it has no size (MJCF's plane `size` only affects rendering), no support function (it is
/// unbounded) and no mass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plane {
    two_sided: bool,
}

impl Plane {
    /// The half-space `z ≤ 0`.
    pub fn new() -> Self {
        Self::half_space()
    }

    /// The half-space `z ≤ 0`.
    pub fn half_space() -> Self {
        Plane { two_sided: false }
    }

    /// The two-sided surface `z = 0`.
    pub fn two_sided() -> Self {
        Plane { two_sided: true }
    }

    /// Whether this is the two-sided surface rather than the half-space.
    pub fn is_two_sided(&self) -> bool {
        self.two_sided
    }

    /// Local normal (`+z`): the outward normal of the half-space, one of the two normals of the surface.
    pub const NORMAL: glam::DVec3 = glam::DVec3::Z;
}
