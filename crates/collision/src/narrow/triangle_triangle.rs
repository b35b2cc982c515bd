//! Exact closest points of two triangles in 3-D.
//!
//! Two disjoint triangles reach their distance at a vertex of one against the other triangle (6 cases) or at an
//! edge against an edge (9 cases); the minimum over these 15 candidates is the distance. Triangles that intersect
//! have distance 0, and then some edge of one crosses the other triangle (their intersection is a segment or a
//! polygon, bounded by such crossings) — or, when they are coplanar, a vertex lies inside the other triangle or two
//! edges cross, which the candidates already give at distance 0. So the test runs first the 6 edge–triangle
//! crossings (an edge whose ends lie strictly on opposite sides of the other triangle's plane, crossing it inside the
//! triangle), then the 15 candidates.
//!
//! **Degenerate triangles** (zero area, or an area below `1e-12` of the squared longest edge: slivers whose interior
//! lies within `1e-12 ×` their size of an edge) are their three edges: they take no plane crossing and no interior
//! projection, only the segment cases, which handle zero-length segments.

use glam::DVec3;

/// Closest points of two triangles `p` and `q`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriangleDistance {
    /// Unsigned distance `‖point_q − point_p‖`, 0 when the triangles intersect.
    pub distance: f64,
    /// Closest point on `p` (a point of the intersection when they intersect).
    pub point_p: DVec3,
    /// Closest point on `q` (equal to `point_p` when they intersect).
    pub point_q: DVec3,
}

/// Squared sine below which a triangle counts as degenerate: `‖n‖² ≤ SLIVER² · (longest edge²)²`.
const SLIVER: f64 = 1e-12;

/// Closest points of the triangles `p` and `q` (see the module docs): exact up to rounding, finite for finite
/// input, degenerate triangles included.
pub fn triangle_triangle(p: &[DVec3; 3], q: &[DVec3; 3]) -> TriangleDistance {
    let plane_p = Plane::of(p);
    let plane_q = Plane::of(q);
    if let Some(x) = edges_cross(p, &plane_q, q).or_else(|| edges_cross(q, &plane_p, p)) {
        return TriangleDistance { distance: 0.0, point_p: x, point_q: x };
    }
    let mut best = (f64::INFINITY, p[0], q[0]);
    let mut consider = |a: DVec3, b: DVec3| {
        let d2 = (b - a).length_squared();
        if d2 < best.0 {
            best = (d2, a, b);
        }
    };
    for &v in p {
        consider(v, closest_point_triangle(v, q, &plane_q));
    }
    for &v in q {
        consider(closest_point_triangle(v, p, &plane_p), v);
    }
    for i in 0..3 {
        for j in 0..3 {
            let (a, b) = closest_points_segments(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3]);
            consider(a, b);
        }
    }
    let (_, point_p, point_q) = best;
    TriangleDistance { distance: (point_q - point_p).length(), point_p, point_q }
}

/// The (unnormalised) normal `n = (b − a) × (c − a)` of a triangle, `None` when it is degenerate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plane {
    n: Option<DVec3>,
}

impl Plane {
    pub(crate) fn of(t: &[DVec3; 3]) -> Self {
        let (e0, e1, e2) = (t[1] - t[0], t[2] - t[1], t[0] - t[2]);
        let n = e0.cross(t[2] - t[0]);
        let longest = e0.length_squared().max(e1.length_squared()).max(e2.length_squared());
        let nn = n.length_squared();
        Self { n: (nn > SLIVER * SLIVER * longest * longest && nn.is_finite()).then_some(n) }
    }
}

/// Whether `x`, a point of the plane of `t` with normal `n`, lies inside or on `t` (signs of the edge tests).
fn inside(x: DVec3, t: &[DVec3; 3], n: DVec3) -> bool {
    (0..3).all(|i| n.dot((t[(i + 1) % 3] - t[i]).cross(x - t[i])) >= 0.0)
}

/// A point where an edge of `e` crosses the triangle `t` (plane `plane`), ends strictly on opposite sides.
fn edges_cross(e: &[DVec3; 3], plane: &Plane, t: &[DVec3; 3]) -> Option<DVec3> {
    let n = plane.n?;
    let s = e.map(|v| n.dot(v - t[0]));
    (0..3).find_map(|i| {
        let j = (i + 1) % 3;
        let (su, sv) = (s[i], s[j]);
        if !((su > 0.0 && sv < 0.0) || (su < 0.0 && sv > 0.0)) {
            return None;
        }
        let x = e[i] + (su / (su - sv)) * (e[j] - e[i]);
        inside(x, t, n).then_some(x)
    })
}

/// `x` clamped to `[0, 1]`, NaN to 0.
#[inline]
fn unit_clamp(x: f64) -> f64 {
    if !(x > 0.0) {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

/// Closest point of the segment `[a, b]` (possibly a point) to `x`.
pub(crate) fn closest_point_segment(x: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let d = b - a;
    let dd = d.length_squared();
    if dd == 0.0 {
        return a;
    }
    a + unit_clamp((x - a).dot(d) / dd) * d
}

/// Closest point of the triangle `t` to `x`: the projection onto its plane when it falls inside, otherwise the
/// nearest of the three edges (always the edges for a degenerate triangle).
pub(crate) fn closest_point_triangle(x: DVec3, t: &[DVec3; 3], plane: &Plane) -> DVec3 {
    if let Some(n) = plane.n {
        let xp = x - (n.dot(x - t[0]) / n.length_squared()) * n;
        if inside(xp, t, n) {
            return xp;
        }
    }
    let mut best = (f64::INFINITY, t[0]);
    for i in 0..3 {
        let c = closest_point_segment(x, t[i], t[(i + 1) % 3]);
        let d2 = (c - x).length_squared();
        if d2 < best.0 {
            best = (d2, c);
        }
    }
    best.1
}

/// Closest points of the segments `[p1, q1]` and `[p2, q2]` (either may be a point): the unconstrained minimiser
/// of `‖p1 + s d1 − p2 − t d2‖²`, clamped to the unit square one parameter at a time (Ericson, *Real-Time Collision
/// Detection* §5.1.9). Parallel segments take `s = 0`, one of their closest pairs. Used where the ends are
/// candidates of their own (the vertex–triangle cases), so only its interior–interior answer must be sharp.
pub(crate) fn closest_points_segments(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> (DVec3, DVec3) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    let (s, t) = if a == 0.0 && e == 0.0 {
        (0.0, 0.0)
    } else if a == 0.0 {
        (0.0, unit_clamp(f / e))
    } else {
        let c = d1.dot(r);
        if e == 0.0 {
            (unit_clamp(-c / a), 0.0)
        } else {
            let b = d1.dot(d2);
            // `a e − b² = ‖d1 × d2‖²`, accurate (and ≥ 0) for nearly parallel segments.
            let denom = d1.cross(d2).length_squared();
            let s = if denom > 0.0 { unit_clamp((b * f - c * e) / denom) } else { 0.0 };
            let t = (b * s + f) / e;
            if t < 0.0 {
                (unit_clamp(-c / a), 0.0)
            } else if t > 1.0 {
                (unit_clamp((b - c) / a), 1.0)
            } else {
                (s, t)
            }
        }
    };
    (p1 + s * d1, p2 + t * d2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TOL: f64 = 1e-12;

    fn v(x: f64, y: f64, z: f64) -> DVec3 {
        DVec3::new(x, y, z)
    }

    /// Reference point–segment distance: the clamped projection, written out.
    fn ref_point_segment(x: DVec3, a: DVec3, b: DVec3) -> f64 {
        let d = b - a;
        if d.length_squared() == 0.0 {
            return (x - a).length();
        }
        let t = ((x - a).dot(d) / d.length_squared()).clamp(0.0, 1.0);
        (a + t * d - x).length()
    }

    /// Reference segment–segment distance: the four end-to-segment distances and, when it lies inside the unit
    /// square, the stationary point of the 2 × 2 normal equations (Cramer).
    fn ref_segment_segment(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
        let mut best = ref_point_segment(p1, p2, q2)
            .min(ref_point_segment(q1, p2, q2))
            .min(ref_point_segment(p2, p1, q1))
            .min(ref_point_segment(q2, p1, q1));
        let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
        // [d1·d1  −d1·d2] [s]   [−d1·r]
        // [d1·d2  −d2·d2] [t] = [−d2·r]
        let (m00, m01, m10, m11) = (d1.dot(d1), -d1.dot(d2), d1.dot(d2), -d2.dot(d2));
        let det = -d1.cross(d2).length_squared();
        if det != 0.0 {
            let (r0, r1) = (-d1.dot(r), -d2.dot(r));
            let s = (r0 * m11 - m01 * r1) / det;
            let t = (m00 * r1 - m10 * r0) / det;
            if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
                best = best.min((p1 + s * d1 - p2 - t * d2).length());
            }
        }
        best
    }

    /// Reference point–triangle distance: the three edges and, when its barycentric coordinates (Gram matrix,
    /// Cramer) are all ≥ 0, the distance to the plane. The plane distance `|n·w| / ‖n‖` stays exact on slivers,
    /// where the point rebuilt from the barycentrics of an ill-conditioned Gram matrix is off by ~1e-11.
    fn ref_point_triangle(x: DVec3, t: &[DVec3; 3]) -> f64 {
        let mut best =
            (0..3).map(|i| ref_point_segment(x, t[i], t[(i + 1) % 3])).fold(f64::INFINITY, f64::min);
        let (e1, e2, w) = (t[1] - t[0], t[2] - t[0], x - t[0]);
        let (g11, g12, g22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
        let det = g11 * g22 - g12 * g12;
        if det > 1e-20 * g11 * g22 {
            let (b1, b2) = (w.dot(e1), w.dot(e2));
            let u = (b1 * g22 - g12 * b2) / det;
            let v = (g11 * b2 - g12 * b1) / det;
            if u >= 0.0 && v >= 0.0 && u + v <= 1.0 {
                let n = e1.cross(e2);
                best = best.min(n.dot(w).abs() / n.length());
            }
        }
        best
    }

    /// Minimum over the 6 vertex–triangle and 9 edge–edge candidates: the distance of disjoint triangles, an upper
    /// bound otherwise.
    fn ref_candidates(p: &[DVec3; 3], q: &[DVec3; 3]) -> f64 {
        let mut best = f64::INFINITY;
        for i in 0..3 {
            best = best.min(ref_point_triangle(p[i], q)).min(ref_point_triangle(q[i], p));
            for j in 0..3 {
                best = best.min(ref_segment_segment(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3]));
            }
        }
        best
    }

    fn check(p: &[DVec3; 3], q: &[DVec3; 3]) -> TriangleDistance {
        let r = triangle_triangle(p, q);
        let scale = p.iter().chain(q).map(|x| x.abs().max_element()).fold(1.0, f64::max);
        let tol = TOL * scale;
        let reference = ref_candidates(p, q);
        assert!(r.distance.is_finite() && r.distance >= 0.0);
        assert!(((r.point_q - r.point_p).length() - r.distance).abs() <= tol);
        assert!(ref_point_triangle(r.point_p, p) <= tol, "point_p off p: {r:?}");
        assert!(ref_point_triangle(r.point_q, q) <= tol, "point_q off q: {r:?}");
        assert!(r.distance <= reference + tol, "{} > reference {reference}", r.distance);
        if r.distance > tol {
            assert!((r.distance - reference).abs() <= tol, "{} vs reference {reference}", r.distance);
        }
        r
    }

    #[test]
    fn vertex_face_edge_edge_and_crossing() {
        let p = [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)];
        // Vertex above the face.
        let q = [v(0.2, 0.2, 0.5), v(0.2, 0.2, 2.0), v(1.0, 1.0, 2.0)];
        let r = check(&p, &q);
        assert!((r.distance - 0.5).abs() < 1e-15 && r.point_p == v(0.2, 0.2, 0.0));
        // Edge over edge, crossed.
        let q = [v(0.5, -1.0, 1.0), v(0.5, 1.0, 1.0), v(0.5, 0.0, 3.0)];
        assert!((check(&p, &q).distance - 1.0).abs() < 1e-15);
        // An edge of q pierces p's interior: no vertex or edge pair is at distance 0.
        let q = [v(0.2, 0.2, -1.0), v(0.2, 0.2, 1.0), v(5.0, 5.0, 5.0)];
        let r = check(&p, &q);
        assert_eq!(r.distance, 0.0);
        // A point of the intersection, the segment from (0.2, 0.2, 0) to (0.5, 0.5, 0).
        assert!((r.point_p.x - r.point_p.y).abs() < 1e-15 && r.point_p.z.abs() < 1e-15);
        assert!((0.2 - 1e-15..=0.5 + 1e-15).contains(&r.point_p.x));
        // Coplanar, overlapping, one inside the other.
        let q = [v(0.1, 0.1, 0.0), v(0.2, 0.1, 0.0), v(0.1, 0.2, 0.0)];
        assert_eq!(check(&p, &q).distance, 0.0);
        // Coplanar, apart.
        let q = [v(2.0, 0.0, 0.0), v(3.0, 0.0, 0.0), v(2.0, 1.0, 0.0)];
        assert!((check(&p, &q).distance - 1.0).abs() < 1e-15);
    }

    #[test]
    fn degenerate_triangles() {
        let p = [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)];
        // A segment (collinear corners) through p's interior.
        let seg = [v(0.2, 0.2, -1.0), v(0.2, 0.2, 0.0), v(0.2, 0.2, 1.0)];
        assert!(check(&p, &seg).distance < 1e-15);
        assert!(check(&seg, &p).distance < 1e-15);
        // A point above p.
        let point = [v(0.3, 0.3, 2.0); 3];
        let r = check(&p, &point);
        assert!((r.distance - 2.0).abs() < 1e-15);
        assert_eq!(check(&point, &point).distance, 0.0);
        // Two segments.
        let s2 = [v(0.0, 1.0, 3.0), v(0.0, -1.0, 3.0), v(0.0, 0.0, 3.0)];
        let r = check(&seg, &s2);
        assert!((r.distance - 0.2f64.hypot(2.0)).abs() < 1e-15);
    }

    fn point() -> impl Strategy<Value = DVec3> {
        prop_oneof![
            (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| v(x, y, z)),
            // A coarse grid: coplanar, collinear and coincident corners.
            (-2i32..=2, -2i32..=2, -2i32..=2).prop_map(|(x, y, z)| 0.5 * v(x as f64, y as f64, z as f64)),
        ]
    }

    fn triangle() -> impl Strategy<Value = [DVec3; 3]> {
        [point(), point(), point()]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn matches_the_candidate_reference(p in triangle(), q in triangle()) {
            check(&p, &q);
        }

        /// Triangles built around a shared interior point intersect: distance 0, the witness on both.
        #[test]
        fn constructed_intersections_are_found(
            p in triangle(),
            (u, w) in (0.05..0.45f64, 0.05..0.45f64),
            q in triangle(),
            (s, t) in (0.05..0.45f64, 0.05..0.45f64),
        ) {
            prop_assume!(Plane::of(&p).n.is_some() && Plane::of(&q).n.is_some());
            let x = p[0] + u * (p[1] - p[0]) + w * (p[2] - p[0]);
            let y = q[0] + s * (q[1] - q[0]) + t * (q[2] - q[0]);
            let q = q.map(|c| c + (x - y));
            let r = check(&p, &q);
            prop_assert!(r.distance <= 1e-12, "{r:?}");
        }
    }
}
