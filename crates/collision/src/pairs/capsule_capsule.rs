//! Capsule–capsule and sphere–capsule, closed form: closest points between the core segments, then inflation.
//!
//! Segment–segment closest points (Ericson, *Real-Time Collision Detection* §5.1.9): minimise
//! `‖(p₁ + s u) − (p₂ + t v)‖²` over `s, t ∈ [0, 1]`, clamping `s` then recomputing `t` and clamping again; the
//! parallel case (`‖u × v‖²` below a relative 1e-14) fixes `s` at the projection of the nearer end and keeps the
//! overlap midpoint, so that parallel capsules get a symmetric witness. When the segments intersect (core distance
//! 0) the normal is `u × v` oriented from A to B, or for parallel cores the perpendicular towards B's centre.

use glam::DVec3;

use super::{SignedDistance, any_perpendicular};

/// Closest points `(on segment 1, on segment 2)` between `[p1, q1]` and `[p2, q2]`.
#[inline(always)]
pub fn closest_points_segments(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> (DVec3, DVec3) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    if a <= f64::MIN_POSITIVE && e <= f64::MIN_POSITIVE {
        return (p1, p2);
    }
    if a <= f64::MIN_POSITIVE {
        let t = (f / e).clamp(0.0, 1.0);
        return (p1, p2 + d2 * t);
    }
    let c = d1.dot(r);
    if e <= f64::MIN_POSITIVE {
        let s = (-c / a).clamp(0.0, 1.0);
        return (p1 + d1 * s, p2);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    if denom <= 1e-14 * a * e {
        // Parallel: project segment 2's extent onto segment 1 and take the middle of the overlap.
        let t0 = -c / a;
        let t1 = t0 + b / a;
        let (lo, hi) = (t0.min(t1).max(0.0), t0.max(t1).min(1.0));
        let s = if lo <= hi {
            0.5 * (lo + hi)
        } else if t0.max(t1) < 0.0 {
            0.0
        } else {
            1.0
        };
        let on1 = p1 + d1 * s;
        let t = ((on1 - p2).dot(d2) / e).clamp(0.0, 1.0);
        return (on1, p2 + d2 * t);
    }
    let mut s = ((b * f - c * e) / denom).clamp(0.0, 1.0);
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (p1 + d1 * s, p2 + d2 * t)
}

/// Signed distance between two capsules given as world segments and radii (a sphere is a zero-length segment).
#[inline(always)]
pub fn capsule_capsule(a: [DVec3; 2], r_a: f64, b: [DVec3; 2], r_b: f64) -> SignedDistance {
    let (ca, cb) = closest_points_segments(a[0], a[1], b[0], b[1]);
    let delta = cb - ca;
    let len = delta.length();
    // The cores touch below a relative 1e-14 of the pair's size `max(‖u‖, ‖v‖, r_a + r_b)`, compared in squares.
    let r = r_a + r_b;
    let scale_sq = (a[1] - a[0]).length_squared().max((b[1] - b[0]).length_squared()).max(r * r);
    let n = if len * len > 1e-28 * scale_sq { delta / len } else { intersecting_normal(a, b) };
    SignedDistance::from_cores(ca, cb, n, len.max(0.0), r_a, r_b)
}

/// Whether two capsules (world segments and radii) are within `margin` of each other: [`capsule_capsule`]'s
/// `distance ≤ margin` with the same arithmetic, without its normal and witness points.
#[inline(always)]
pub fn capsules_within(a: [DVec3; 2], r_a: f64, b: [DVec3; 2], r_b: f64, margin: f64) -> bool {
    let (ca, cb) = closest_points_segments(a[0], a[1], b[0], b[1]);
    (cb - ca).length().max(0.0) - r_a - r_b <= margin
}

/// Normal for intersecting cores, oriented from A's centre towards B's.
fn intersecting_normal(a: [DVec3; 2], b: [DVec3; 2]) -> DVec3 {
    let (u, v) = (a[1] - a[0], b[1] - b[0]);
    let towards = 0.5 * (b[0] + b[1]) - 0.5 * (a[0] + a[1]);
    let cross = u.cross(v);
    let n =
        if cross.length_squared() > 1e-20 * u.length_squared() * v.length_squared() && cross.length() > 0.0 {
            cross.normalize()
        } else {
            let axis = if u.length_squared() > 0.0 { u } else { v };
            let lateral = towards - axis * (towards.dot(axis) / axis.length_squared().max(f64::MIN_POSITIVE));
            lateral.try_normalize().unwrap_or_else(|| any_perpendicular(axis.normalize_or(DVec3::Z)))
        };
    if n.dot(towards) < 0.0 { -n } else { n }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// The boolean test answers `capsule_capsule(..).distance ≤ margin` exactly, margins at the distance itself and
    /// an ulp either side included, for capsules and spheres (zero-length segments), apart and overlapping.
    #[test]
    fn within_is_the_distance_compared_with_the_margin() {
        let mut rng = Rng(0x5eed_ca95);
        for k in 0..2000 {
            let half = |rng: &mut Rng| if k % 5 == 0 { DVec3::ZERO } else { rng.vec(0.6) };
            let (ca, cb) = (rng.vec(1.0), rng.vec(1.0));
            let (ha, hb) = (half(&mut rng), half(&mut rng));
            let (a, b) = ([ca - ha, ca + ha], [cb - hb, cb + hb]);
            let (ra, rb) = (0.05 + 0.4 * rng.unit(), 0.05 + 0.4 * rng.unit());
            let d = capsule_capsule(a, ra, b, rb).distance;
            for margin in [d, d.next_up(), d.next_down(), 0.0, -0.1, 0.1, 2.0 * rng.unit() - 1.0] {
                assert_eq!(capsules_within(a, ra, b, rb, margin), d <= margin, "case {k}, margin {margin}");
            }
        }
    }

    #[test]
    fn crossing_and_parallel_segments() {
        let (p, q) = closest_points_segments(
            DVec3::new(-1.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, -1.0, 1.0),
            DVec3::new(0.0, 1.0, 1.0),
        );
        assert!(p.length() < 1e-15 && (q - DVec3::Z).length() < 1e-15);
        let (p, q) = closest_points_segments(
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(3.0, 1.0, 0.0),
        );
        assert!((p - DVec3::new(1.5, 0.0, 0.0)).length() < 1e-15, "{p}");
        assert!((q - DVec3::new(1.5, 1.0, 0.0)).length() < 1e-15, "{q}");
        let r = capsule_capsule(
            [DVec3::new(0.0, 0.0, -1.0), DVec3::new(0.0, 0.0, 1.0)],
            0.5,
            [DVec3::new(0.7, -1.0, 0.0), DVec3::new(0.7, 1.0, 0.0)],
            0.5,
        );
        assert!((r.distance + 0.3).abs() < 1e-15);
        assert!((r.normal - DVec3::X).length() < 1e-15);
        assert!((r.point_b - r.point_a - r.distance * r.normal).length() < 1e-15);
    }
}
