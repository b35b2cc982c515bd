//! Closed-form and driver routines per shape pair, in the Coal convention of [`crate::query`]: a
//! [`SignedDistance`] with `point_b − point_a = distance · normal`, `normal` from A to B, negative distance when
//! penetrating.

pub mod capsule_box;
pub mod capsule_capsule;
pub(crate) mod capsule_contact;
pub mod convex_convex;
pub mod height_field;
pub mod mesh_convex;
pub mod mesh_mesh;
pub mod mesh_sdf;
pub mod mujoco;
pub mod plane_box;
pub mod plane_convex;
pub mod sphere_box;
pub mod sphere_sphere;

use glam::DVec3;

use crate::query::Algorithm;

/// A signed distance with witness points (Coal convention).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignedDistance {
    /// Signed distance: `> 0` separated, `< 0` minus the penetration depth.
    pub distance: f64,
    /// Witness on A (world).
    pub point_a: DVec3,
    /// Witness on B (world).
    pub point_b: DVec3,
    /// Unit normal from A towards B.
    pub normal: DVec3,
    /// Iterations of the iterative algorithm (0 for closed forms).
    pub iterations: u32,
    /// Which algorithm answered.
    pub algorithm: Algorithm,
}

impl SignedDistance {
    /// The same result with A and B swapped.
    #[inline(always)]
    pub fn swapped(self) -> Self {
        Self { point_a: self.point_b, point_b: self.point_a, normal: -self.normal, ..self }
    }

    /// Two inflated cores: core witnesses `ca`, `cb` at core distance `d = ‖cb − ca‖` along `n`, radii `ra`, `rb`.
    #[inline(always)]
    pub(crate) fn from_cores(ca: DVec3, cb: DVec3, n: DVec3, core_distance: f64, ra: f64, rb: f64) -> Self {
        Self {
            distance: core_distance - ra - rb,
            point_a: ca + ra * n,
            point_b: cb - rb * n,
            normal: n,
            iterations: 0,
            algorithm: Algorithm::Analytic,
        }
    }
}

/// A unit vector perpendicular to `v` (deterministic).
pub(crate) fn any_perpendicular(v: DVec3) -> DVec3 {
    let e = [DVec3::X, DVec3::Y, DVec3::Z][v.abs().min_position()];
    v.cross(e).normalize_or(DVec3::X)
}
