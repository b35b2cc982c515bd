//! Sphere–box, closed form.
//!
//! In the box frame, `q = clamp(c, −h, h)` is the box point closest to the centre `c`. Outside the box
//! (`q ≠ c`): `d = ‖c − q‖ − r`, normal from the sphere to the box `(q − c)/‖q − c‖`. Inside: the nearest face
//! `i = argmin (h_i − |c_i|)` (lowest index on ties, `+` side for `c_i = 0`) gives the depth `h_i − |c_i| + r`; the box
//! must move by `−sign(c_i) e_i` to release the sphere, which is the A→B normal.

use glam::DVec3;
use signorini_geometry::Pose;

use super::SignedDistance;

/// Signed distance from sphere A `(centre, radius)` to box B (half extents, pose).
#[inline(always)]
pub fn sphere_box(center: DVec3, radius: f64, half: DVec3, pose: &Pose) -> SignedDistance {
    let c = pose.inverse_transform_point(center);
    let q = c.clamp(-half, half);
    let delta = q - c;
    let len = delta.length();
    if len > 0.0 {
        let n = pose.transform_vector(delta / len);
        return SignedDistance::from_cores(center, pose.transform_point(q), n, len, radius, 0.0);
    }
    let gaps = half - c.abs();
    let i = gaps.min_position();
    let side = if c[i] >= 0.0 { 1.0 } else { -1.0 };
    let mut n_local = DVec3::ZERO;
    n_local[i] = -side;
    let mut face = c;
    face[i] = side * half[i];
    let n = pose.transform_vector(n_local);
    SignedDistance {
        distance: -(gaps[i] + radius),
        point_a: center + radius * n,
        point_b: pose.transform_point(face),
        normal: n,
        iterations: 0,
        algorithm: crate::query::Algorithm::Analytic,
    }
}
