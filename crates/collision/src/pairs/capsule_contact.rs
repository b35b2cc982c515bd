//! Genesis 1.4.5's analytic capsule–capsule contact (native dialect, `func_capsule_capsule_contact`), in the
//! simulator convention: normal from B to A, positive penetration.
//!
//! The core segments' closest points `P_A`, `P_B` come from [`closest_points_on_segments`] with Genesis's parallel
//! rule; the capsules touch when `‖P_A − P_B‖ < r_A + r_B`, with normal `n = (P_A − P_B)/‖P_A − P_B‖`, depth
//! `p = r_A + r_B − ‖P_A − P_B‖` and position `P_A − r_A n + ½ p n` (midway between both surfaces). Parallel cores
//! meet at one end of A's segment (the perturbations find the other end), unlike the distance query's
//! [`super::capsule_capsule`], which takes the middle of their overlap. Crossing cores (`‖P_A − P_B‖ ≤ EPS`) take
//! `n = normalize(u_A × u_B)` of the unit axes, or for parallel ones `e_x × u_A` (`e_y × u_A` when `|u_A,x| ≥ 0.9`).

use glam::DVec3;

use crate::contact::Contact;

/// Genesis's `EPS` in double precision (`gs.EPS`).
const EPS: f64 = 1e-15;

/// Closest points of the segments `[a0, a1]` and `[b0, b1]` (Ericson §5.1.9 as Genesis writes it,
/// `func_closest_points_on_segments`): with `u = a1 − a0`, `v = b1 − b0`, the segments are parallel when
/// `‖u‖²‖v‖² − (u·v)² < eps`, and then A's point is `a0` (`s = 0`) and B's its clamped projection; otherwise `s` is
/// the clamped unconstrained minimiser, `t` B's clamped projection of A's point and `s` A's clamped projection of
/// B's point again (a segment of squared length below `eps` keeps its first estimate).
pub(crate) fn closest_points_on_segments(
    a0: DVec3,
    a1: DVec3,
    b0: DVec3,
    b1: DVec3,
    eps: f64,
) -> (DVec3, DVec3) {
    let (da, db, r) = (a1 - a0, b1 - b0, a0 - b0);
    let (aa, ab, bb) = (da.dot(da), da.dot(db), db.dot(db));
    let (d, e) = (da.dot(r), db.dot(r));
    let denom = aa * bb - ab * ab;
    let (s, t) = if denom < eps {
        (0.0, if bb > eps { (e / bb).clamp(0.0, 1.0) } else { 0.0 })
    } else {
        let s = ((ab * e - bb * d) / denom).clamp(0.0, 1.0);
        let t = (if bb > eps { (ab * s + e) / bb } else { 0.0 }).clamp(0.0, 1.0);
        let s_t = (if aa > eps { (ab * t - d) / aa } else { 0.0 }).clamp(0.0, 1.0);
        (if aa > eps { s_t } else { s }, t)
    };
    (a0 + s * da, b0 + t * db)
}

/// The contact of two capsules with core segments `a`, `b` (world ends) and radii `r_a`, `r_b` (see the module
/// docs), or `None` when they do not overlap.
pub(crate) fn capsule_capsule_contact(a: [DVec3; 2], r_a: f64, b: [DVec3; 2], r_b: f64) -> Option<Contact> {
    let (pa, pb) = closest_points_on_segments(a[0], a[1], b[0], b[1], EPS);
    let diff = pa - pb;
    let dist_sq = diff.dot(diff);
    let radii = r_a + r_b;
    if !(dist_sq < radii * radii) {
        return None;
    }
    let dist = dist_sq.sqrt();
    let normal = if dist > EPS {
        diff / dist
    } else {
        let (ua, ub) = ((a[1] - a[0]).normalize_or_zero(), (b[1] - b[0]).normalize_or_zero());
        let cross = ua.cross(ub);
        let cross_sq = cross.length_squared();
        if cross_sq > EPS {
            cross / cross_sq.sqrt()
        } else if ua.x.abs() < 0.9 {
            DVec3::new(0.0, -ua.z, ua.y)
        } else {
            DVec3::new(ua.z, 0.0, -ua.x)
        }
    };
    let penetration = radii - dist;
    Some(Contact { position: pa - r_a * normal + 0.5 * penetration * normal, normal, penetration })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Crossed capsules: the contact lies midway between both surfaces on the common perpendicular, normal from B
    /// to A, depth `r_A + r_B − gap`.
    #[test]
    fn crossed_capsules_touch_on_the_common_perpendicular() {
        let a = [DVec3::new(-1.0, 0.0, 0.1), DVec3::new(1.0, 0.0, 0.1)];
        let b = [DVec3::new(0.2, -1.0, 0.0), DVec3::new(0.2, 1.0, 0.0)];
        let c = capsule_capsule_contact(a, 0.07, b, 0.05).expect("overlapping");
        assert!((c.normal - DVec3::Z).length() < 1e-15);
        assert!((c.penetration - 0.02).abs() < 1e-15);
        let expected = DVec3::new(0.2, 0.0, 0.1 - 0.07 + 0.01);
        assert!((c.position - expected).length() < 1e-15, "{:?}", c.position);
        assert!(capsule_capsule_contact(a, 0.04, b, 0.05).is_none());
    }

    /// Parallel cores: A's point is its first end, B's the projection of that end onto B's segment.
    #[test]
    fn parallel_capsules_meet_at_the_start_of_a() {
        let a = [DVec3::new(-0.3, 0.0, 0.09), DVec3::new(0.5, 0.0, 0.09)];
        let b = [DVec3::new(-0.6, 0.0, 0.0), DVec3::new(0.2, 0.0, 0.0)];
        let (pa, pb) = closest_points_on_segments(a[0], a[1], b[0], b[1], EPS);
        assert_eq!(pa, a[0]);
        assert!((pb - DVec3::new(-0.3, 0.0, 0.0)).length() < 1e-15);
        let c = capsule_capsule_contact(a, 0.05, b, 0.05).expect("overlapping");
        assert!((c.penetration - 0.01).abs() < 1e-15);
        assert!((c.position - DVec3::new(-0.3, 0.0, 0.045)).length() < 1e-15);
    }

    /// Against brute force: on random segment pairs the closest points are within rounding of the minimum over a
    /// fine grid of `(s, t)`, refined (the distance, not the points, which are not unique for parallel segments).
    #[test]
    fn closest_points_match_brute_force() {
        let mut rng = crate::test_rng::Rng(0x5e9);
        for _ in 0..300 {
            let p =
                |rng: &mut crate::test_rng::Rng| DVec3::new(rng.unit(), rng.unit(), rng.unit()) * 2.0 - 1.0;
            let (a0, a1, b0, b1) = (p(&mut rng), p(&mut rng), p(&mut rng), p(&mut rng));
            let (pa, pb) = closest_points_on_segments(a0, a1, b0, b1, EPS);
            let mut best = f64::INFINITY;
            for i in 0..=200 {
                let s = f64::from(i) / 200.0;
                let x = a0 + s * (a1 - a0);
                // B's nearest point to `x`, exact.
                let v = b1 - b0;
                let t = ((x - b0).dot(v) / v.length_squared()).clamp(0.0, 1.0);
                best = best.min((x - (b0 + t * v)).length());
            }
            let got = (pa - pb).length();
            assert!(got <= best + 1e-12, "{got} > {best}");
            assert!(
                got >= best - 0.5 * (a1 - a0).length() / 200.0 * 2.0,
                "{got} far below the grid's {best}"
            );
        }
    }
}
