//! Capsule–box, closed form when the capsule's core segment is apart from the box.
//!
//! In the box frame the squared distance from the segment point `x(t) = p₀ + t d` to the box `[−h, h]` is
//! `g(t) = Σᵢ (xᵢ − clamp(xᵢ, −hᵢ, hᵢ))²`: convex, continuously differentiable and quadratic between the
//! breakpoints where a coordinate crosses `±hᵢ` (at most six). Its derivative `g′(t) = 2 Σᵢ dᵢ (xᵢ − clamp(xᵢ))` is
//! piecewise linear and non-decreasing, so the minimiser over `[0, 1]` is an end where `g′` does not change sign, or
//! the zero of `g′` found by walking the sorted breakpoints to the first with `g′ ≥ 0` and interpolating linearly
//! on that piece (exact: no coordinate changes side inside it). The segment point and its clamp are the core
//! witnesses; the capsule inflates the segment's by its radius.
//!
//! A core segment that reaches the box penetrates it by the smallest overlap over the facet normals of the box's
//! Minkowski sum with the segment, a zonotope of generators `e₀, e₁, e₂, d`: the face normals `eᵢ` and the
//! cross products `eᵢ × d` (separating-axis test, exact for polytopes). Along a face normal the core witness is
//! the segment's deepest end (or, for a segment parallel to the face, the middle of its part over the face); along
//! `eᵢ × d` it is the point of the segment nearest the box edge parallel to `eᵢ` that supports the box in `−n`.

use glam::DVec3;
use signorini_geometry::Pose;

use super::SignedDistance;

/// `g′(t) / 2` of the module docs at `x = p₀ + t d`.
#[inline(always)]
fn slope(p0: DVec3, d: DVec3, half: DVec3, t: f64) -> f64 {
    let x = p0 + t * d;
    (x - x.clamp(-half, half)).dot(d)
}

/// The parameter `t ∈ [0, 1]` of the segment `p₀ + t d` nearest the box `[−h, h]` (box frame).
#[inline(always)]
pub fn segment_box_parameter(p0: DVec3, d: DVec3, half: DVec3) -> f64 {
    let s0 = slope(p0, d, half, 0.0);
    if s0 >= 0.0 {
        return 0.0;
    }
    let s1 = slope(p0, d, half, 1.0);
    if s1 <= 0.0 {
        return 1.0;
    }
    // Breakpoints inside (0, 1), sorted; the last piece ends at 1.
    let mut breaks = [1.0; 7];
    let mut n = 0;
    for i in 0..3 {
        if d[i] != 0.0 {
            for bound in [-half[i], half[i]] {
                let t = (bound - p0[i]) / d[i];
                if t > 0.0 && t < 1.0 {
                    breaks[n] = t;
                    n += 1;
                }
            }
        }
    }
    let breaks = &mut breaks[..n + 1];
    breaks.sort_unstable_by(f64::total_cmp);
    let (mut lo, mut s_lo) = (0.0, s0);
    for &hi in breaks.iter() {
        let s_hi = if hi == 1.0 { s1 } else { slope(p0, d, half, hi) };
        if s_hi >= 0.0 {
            // g′ is linear on [lo, hi] and crosses zero there.
            return (lo + (hi - lo) * (-s_lo / (s_hi - s_lo))).clamp(lo, hi);
        }
        (lo, s_lo) = (hi, s_hi);
    }
    1.0
}

/// Signed distance from a capsule (A: world core segment `seg`, radius `radius`) to a box (B: half extents `half`,
/// pose `pose_box`). The core segment apart from the box (by more than a relative 1e-12 of the pair's size) takes
/// the nearest points; one reaching it, the separating-axis depth (module docs).
#[inline(always)]
pub fn capsule_box(seg: [DVec3; 2], radius: f64, half: DVec3, pose_box: &Pose) -> SignedDistance {
    let p0 = pose_box.inverse_transform_point(seg[0]);
    let d = pose_box.inverse_transform_point(seg[1]) - p0;
    let t = segment_box_parameter(p0, d, half);
    let x = p0 + t * d;
    let q = x.clamp(-half, half);
    let delta = q - x;
    let len = delta.length();
    let scale = half.max_element().max(d.length()).max(radius);
    if len > 1e-12 * scale {
        let n = pose_box.transform_vector(delta / len);
        return SignedDistance::from_cores(
            pose_box.transform_point(x),
            pose_box.transform_point(q),
            n,
            len,
            radius,
            0.0,
        );
    }
    let (core, n, depth) = segment_box_penetration(p0, d, half);
    let n = pose_box.transform_vector(n);
    let core = pose_box.transform_point(core);
    SignedDistance {
        distance: -(depth + radius),
        point_a: core + radius * n,
        point_b: core - depth * n,
        normal: n,
        iterations: 0,
        algorithm: crate::query::Algorithm::Analytic,
    }
}

/// The penetration of the segment `p₀ + t d` (`t ∈ [0, 1]`) into the box `[−h, h]` (box frame): the core witness on
/// the segment, the unit normal `n` from the segment towards the box and the depth `D` (the box moved by `D n`
/// touches the segment; negative for a segment slightly apart). Module docs.
fn segment_box_penetration(p0: DVec3, d: DVec3, half: DVec3) -> (DVec3, DVec3, f64) {
    let p1 = p0 + d;
    // Face normals: the segment's extent [lo, hi] along eᵢ against [−hᵢ, hᵢ].
    let (lo, hi) = (p0.min(p1), p0.max(p1));
    let mut best = (f64::INFINITY, DVec3::ZERO, Axis::Face(0));
    for i in 0..3 {
        for (depth, sign) in [(hi[i] + half[i], 1.0), (half[i] - lo[i], -1.0)] {
            if depth < best.0 {
                let mut n = DVec3::ZERO;
                n[i] = sign;
                best = (depth, n, Axis::Face(i));
            }
        }
    }
    // Cross products eᵢ × d: the segment projects to one value s; the box to [−H, H], H = Σ hⱼ |uⱼ|.
    let dd = d.length_squared();
    for i in 0..3 {
        let mut e = DVec3::ZERO;
        e[i] = 1.0;
        let u = e.cross(d);
        let uu = u.length_squared();
        if uu <= 1e-20 * dd {
            continue;
        }
        let u = u / uu.sqrt();
        let s = u.dot(p0);
        let depth = half.dot(u.abs()) - s.abs();
        if depth < best.0 {
            best = (depth, if s > 0.0 { -u } else { u }, Axis::Edge(i));
        }
    }
    let (depth, n, axis) = best;
    let core = match axis {
        Axis::Face(i) => face_witness(p0, d, half, n, i),
        Axis::Edge(i) => edge_witness(p0, d, half, n, i),
    };
    (core, n, depth)
}

/// The separating axis of the smallest overlap: the face normal `±eᵢ`, or `eᵢ × d` (the box edges along `eᵢ`).
#[derive(Clone, Copy)]
enum Axis {
    Face(usize),
    Edge(usize),
}

/// The core witness along the face normal `n = ±eᵢ`: the segment's end deepest along `n`, or for a segment
/// parallel to the face (its ends within a relative 1e-12 along `n`) the middle of its part over the face.
fn face_witness(p0: DVec3, d: DVec3, half: DVec3, n: DVec3, i: usize) -> DVec3 {
    let p1 = p0 + d;
    let dn = d.dot(n);
    if dn.abs() > 1e-12 * d.length() {
        return if dn > 0.0 { p1 } else { p0 };
    }
    // Parameters over the face: inside [−hⱼ, hⱼ] for both j ≠ i.
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for j in (0..3).filter(|&j| j != i) {
        if d[j] != 0.0 {
            let (a, b) = ((-half[j] - p0[j]) / d[j], (half[j] - p0[j]) / d[j]);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    let t = if t0 <= t1 { 0.5 * (t0 + t1) } else { 0.5 };
    p0 + t * d
}

/// The core witness along `n ⟂ eᵢ, d`: the point of the segment nearest the box edge along `eᵢ` that supports the box
/// in `−n`, by the closest points of the two lines.
fn edge_witness(p0: DVec3, d: DVec3, half: DVec3, n: DVec3, i: usize) -> DVec3 {
    let mut e = DVec3::ZERO;
    e[i] = 1.0;
    // The edge: the corner −sign(n) h with its i-th coordinate free.
    let mut c = DVec3::new(-n.x.signum() * half.x, -n.y.signum() * half.y, -n.z.signum() * half.z);
    c[i] = 0.0;
    // Closest points of p0 + t d and c + τ e: minimise ‖p0 − c + t d − τ e‖².
    let r = p0 - c;
    let (a, b, f, g) = (d.length_squared(), d.dot(e), d.dot(r), e.dot(r));
    let denom = a - b * b;
    let t = if denom > 0.0 { ((b * g - f) / denom).clamp(0.0, 1.0) } else { 0.5 };
    p0 + t * d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Squared distance from `x` to the box.
    fn g(x: DVec3, half: DVec3) -> f64 {
        (x - x.clamp(-half, half)).length_squared()
    }

    /// The reference: GJK/EPA (exact on a segment and a box, to its 1e-10 tolerance) on the capsule of radius
    /// `radius` and half length `half_length` at `pose_capsule` and the box of half extents `half` at `pose_box`.
    fn epa_reference(
        radius: f64,
        half_length: f64,
        pose_capsule: &Pose,
        half: DVec3,
        pose_box: &Pose,
    ) -> SignedDistance {
        use crate::narrow::epa::{EpaSettings, EpaWorkspace};
        use crate::narrow::gjk::GjkSettings;
        use crate::pairs::convex_convex::{IterativeSettings, convex_convex};
        use signorini_geometry::{Capsule, Cuboid};
        let (gjk, epa) = (GjkSettings::default(), EpaSettings::default());
        let settings = IterativeSettings { gjk: &gjk, epa: &epa, init: None };
        let capsule = Capsule::new(radius, half_length).expect("valid capsule");
        let cuboid = Cuboid::new(half).expect("valid box");
        convex_convex(&capsule, pose_capsule, &cuboid, pose_box, &settings, &mut EpaWorkspace::new())
    }

    /// The parameter minimises `g` against a fine scan of the segment refined by golden sections (convexity), on
    /// random segments around, across and along the box, axis-parallel ones included.
    #[test]
    fn parameter_minimises_the_squared_distance() {
        let mut rng = Rng(0xcab0);
        for k in 0..3000 {
            let half = DVec3::new(0.1 + rng.unit(), 0.1 + rng.unit(), 0.1 + rng.unit());
            let p0 = rng.vec(2.5);
            let mut d = rng.vec(2.0);
            if k % 7 == 0 {
                d = DVec3::new(d.x, 0.0, 0.0);
            }
            if k % 11 == 0 {
                d = DVec3::ZERO;
            }
            let t = segment_box_parameter(p0, d, half);
            assert!((0.0..=1.0).contains(&t), "case {k}: t = {t}");
            let at = |t: f64| g(p0 + t * d, half);
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            let best = (0..=400).map(|i| i as f64 / 400.0).min_by(|a, b| at(*a).total_cmp(&at(*b))).unwrap();
            (lo, hi) = ((best - 1.0 / 400.0).max(lo), (best + 1.0 / 400.0).min(hi));
            for _ in 0..100 {
                let (m1, m2) = (lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo));
                if at(m1) <= at(m2) { hi = m2 } else { lo = m1 }
            }
            let reference = at(0.5 * (lo + hi)).min(at(best));
            assert!(at(t) <= reference + 1e-13, "case {k}: g(t) = {:e} against {reference:e}", at(t));
        }
    }

    /// Separated capsules: the distance is the core distance less the radius, the witnesses lie on the capsule's
    /// surface and on the box, and `point_b − point_a = distance · normal`.
    #[test]
    fn separated_capsules_have_consistent_witnesses() {
        let mut rng = Rng(0xb0c5);
        let mut answered = 0;
        for k in 0..2000 {
            let half = DVec3::new(0.1 + rng.unit(), 0.1 + rng.unit(), 0.1 + rng.unit());
            let pose = rng.pose(0.5);
            let c = rng.vec(3.0);
            let h = rng.vec(0.8);
            let seg = [c - h, c + h];
            let radius = 0.05 + 0.3 * rng.unit();
            let sd = capsule_box(seg, radius, half, &pose);
            if sd.distance + radius <= 0.0 {
                continue;
            }
            answered += 1;
            let local_b = pose.inverse_transform_point(sd.point_b);
            assert!(g(local_b, half) < 1e-24, "case {k}: point_b off the box");
            let core = sd.point_a - radius * sd.normal;
            let along = (core - seg[0]).dot(seg[1] - seg[0]) / (seg[1] - seg[0]).length_squared().max(1e-300);
            let on_segment = seg[0] + along.clamp(0.0, 1.0) * (seg[1] - seg[0]);
            assert!((core - on_segment).length() < 1e-12, "case {k}: point_a off the capsule");
            assert!((sd.point_b - sd.point_a - sd.distance * sd.normal).length() < 1e-12, "case {k}");
            assert!((sd.normal.length() - 1.0).abs() < 1e-12, "case {k}");
        }
        assert!(answered > 1000, "{answered} separated cores of 2000");
    }

    /// Cores through the box (2 113 of the 3 000 poses): the separating-axis depth equals GJK/EPA's to 1e-9,
    /// with its normal; the box witness lies on the box's surface and `point_b − point_a = distance · normal`.
    /// Segments along a box axis and flat over a face (ties between the ends) included.
    #[test]
    fn penetrating_cores_match_epa() {
        let mut rng = Rng(0xdee9);
        let mut deep = 0;
        for k in 0..3000 {
            let half = DVec3::new(0.2 + rng.unit(), 0.2 + rng.unit(), 0.2 + rng.unit());
            let pose_box = rng.pose(0.5);
            let radius = 0.05 + 0.3 * rng.unit();
            let half_length = 0.05 + rng.unit();
            let mut q = rng.quat();
            if k % 5 == 0 {
                // The capsule's axis along a box axis: flat over two faces.
                q = pose_box.rotation * glam::DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2);
            }
            let centre = pose_box.transform_point(rng.vec(1.3) * half);
            let pose_capsule = Pose::new(centre, q).expect("a unit quaternion");
            let axis = pose_capsule.transform_vector(DVec3::new(0.0, 0.0, half_length));
            let seg = [centre - axis, centre + axis];
            let ours = capsule_box(seg, radius, half, &pose_box);
            if ours.distance + radius > 0.0 {
                continue;
            }
            deep += 1;
            let epa_sd = epa_reference(radius, half_length, &pose_capsule, half, &pose_box);
            assert!(
                (ours.distance - epa_sd.distance).abs() < 1e-9,
                "case {k}: {} against EPA's {}",
                ours.distance,
                epa_sd.distance
            );
            assert!(
                (ours.normal - epa_sd.normal).length() < 1e-6,
                "case {k}: normal {} against {}",
                ours.normal,
                epa_sd.normal
            );
            assert!((ours.point_b - ours.point_a - ours.distance * ours.normal).length() < 1e-12, "case {k}");
            let b = pose_box.inverse_transform_point(ours.point_b);
            assert!(g(b, half) < 1e-20, "case {k}: point_b outside the box");
            assert!((b.abs() - half).max_element().abs() < 1e-9, "case {k}: point_b inside the box");
        }
        assert!(deep > 2000, "{deep} penetrating cores of 3000");
    }

    /// Structured poses where features meet exactly: segments along the box's axes, lying on a face, ending at a
    /// corner or an edge, crossing the box through its centre, at distance zero, and nanometre-long cores: the
    /// answer is finite, consistent, and GJK/EPA's to 1e-9 in distance.
    #[test]
    fn touching_and_aligned_segments() {
        let half = DVec3::new(0.5, 0.3, 0.2);
        let corner = half;
        let ends = [
            (DVec3::new(-0.5, 0.0, 0.2), DVec3::new(0.5, 0.0, 0.2)),
            (DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0)),
            (corner, corner + DVec3::new(0.3, 0.3, 0.3)),
            (DVec3::new(0.5, 0.3, -0.4), DVec3::new(0.5, 0.3, 0.4)),
            (DVec3::new(0.5, -0.6, 0.2), DVec3::new(0.5, 0.6, 0.2)),
            (DVec3::new(0.0, 0.0, -1e-9), DVec3::new(0.0, 0.0, 1e-9)),
            (DVec3::new(0.7, 0.0, -1e-9), DVec3::new(0.7, 0.0, 1e-9)),
            (DVec3::new(0.2, 0.1, 0.2), DVec3::new(0.2, 0.1, 0.6)),
            (DVec3::new(-0.5, -0.3, -0.2), DVec3::new(0.5, 0.3, 0.2)),
        ];
        for (k, &(e0, e1)) in ends.iter().enumerate() {
            for pose in [Pose::IDENTITY, Rng(0x51 + k as u64).pose(1.0)] {
                let seg = [pose.transform_point(e0), pose.transform_point(e1)];
                let radius = 0.05;
                let ours = capsule_box(seg, radius, half, &pose);
                assert!(ours.distance.is_finite() && ours.normal.is_finite(), "case {k}");
                assert!((ours.normal.length() - 1.0).abs() < 1e-12, "case {k}");
                assert!(
                    (ours.point_b - ours.point_a - ours.distance * ours.normal).length() < 1e-12,
                    "case {k}"
                );
                let centre = 0.5 * (seg[0] + seg[1]);
                let axis = seg[1] - seg[0];
                let half_length = 0.5 * axis.length();
                let q = glam::DQuat::from_rotation_arc(DVec3::Z, axis / axis.length());
                let pose_capsule = Pose::new(centre, q).expect("a unit quaternion");
                let reference = epa_reference(radius, half_length, &pose_capsule, half, &pose);
                assert!(
                    (ours.distance - reference.distance).abs() < 1e-9,
                    "case {k}: {} against GJK/EPA's {}",
                    ours.distance,
                    reference.distance
                );
            }
        }
    }
}
