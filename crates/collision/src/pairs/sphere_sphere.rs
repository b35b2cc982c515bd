//! Sphere–sphere, closed form.
//!
//! `d = ‖c_B − c_A‖ − r_A − r_B`, normal `(c_B − c_A)/‖c_B − c_A‖`, witnesses `c_A + r_A n` and `c_B − r_B n`. For
//! coincident centres the normal is `+z` (any direction is a minimiser).

use glam::DVec3;

use super::SignedDistance;

/// Signed distance between spheres `(c_a, r_a)` and `(c_b, r_b)`.
#[inline(always)]
pub fn sphere_sphere(c_a: DVec3, r_a: f64, c_b: DVec3, r_b: f64) -> SignedDistance {
    let delta = c_b - c_a;
    let len = delta.length();
    let n = if len > 0.0 { delta / len } else { DVec3::Z };
    SignedDistance::from_cores(c_a, c_b, n, len, r_a, r_b)
}
