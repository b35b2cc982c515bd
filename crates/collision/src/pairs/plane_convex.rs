//! Plane (half-space or two-sided surface) against any bounded convex shape, by support functions.
//!
//! With the plane's world normal `n` and offset `o = n·t`, the shape's signed extent is
//! `h₋ = n·s(−n) − o` (lowest point) and `h₊ = n·s(n) − o` (highest point).
//! - Half-space `{x : n·x ≤ o}` (A) vs shape (B): `d = h₋`, witness on B `s(−n)`, on A its projection, normal `+n`.
//! - Two-sided surface `{x : n·x = o}` (Coal's `Plane`): above (`h₋ > 0`) as the half-space; below (`h₊ < 0`):
//!   `d = −h₊`, normal `−n`; crossing: the penetration is measured to the nearer side, `min(−h₋, h₊)`, and the
//!   normal points to the side the shape must move to (`+n` when `−h₋ ≤ h₊`).

use glam::DVec3;
use signorini_geometry::{Plane, Pose};

use super::SignedDistance;
use crate::query::Algorithm;

/// Signed distance from plane A (placed by `plane_pose`) to a convex shape B given by its world support function.
#[inline(always)]
pub fn plane_convex(plane: &Plane, plane_pose: &Pose, support_b: impl Fn(DVec3) -> DVec3) -> SignedDistance {
    let n = plane_pose.transform_vector(DVec3::Z);
    let o = n.dot(plane_pose.translation);
    let low = support_b(-n);
    let h_low = n.dot(low) - o;
    let result = |point_b: DVec3, h: f64, normal: DVec3, distance: f64| SignedDistance {
        distance,
        point_a: point_b - h * n,
        point_b,
        normal,
        iterations: 0,
        algorithm: Algorithm::Analytic,
    };
    if !plane.is_two_sided() || h_low > 0.0 {
        return result(low, h_low, n, h_low);
    }
    let high = support_b(n);
    let h_high = n.dot(high) - o;
    if h_high < 0.0 {
        return result(high, h_high, -n, -h_high);
    }
    if -h_low <= h_high { result(low, h_low, n, h_low) } else { result(high, h_high, -n, -h_high) }
}
