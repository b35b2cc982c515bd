//! Box–box SAT, penetration witnesses and contact manifold, checked against brute-force projections of the corners.

use glam::{DQuat, DVec3};
use proptest::prelude::*;
use serde::Serialize;
use signorini_collision::Contact;
use signorini_collision::narrow::box_box::{
    CLIP_SLACK_REL, CONTACT_FACE_BIAS, EDGE_AXIS_MIN_NORM, SatAxis, box_box_contacts, box_box_penetration,
    box_box_sat, box_box_sat_with_bias,
};
use signorini_geometry::Pose;

const TOL: f64 = 1e-9;

fn corners(h: DVec3, pose: &Pose) -> [DVec3; 8] {
    std::array::from_fn(|k| {
        let s = DVec3::new(
            if k & 1 != 0 { 1.0 } else { -1.0 },
            if k & 2 != 0 { 1.0 } else { -1.0 },
            if k & 4 != 0 { 1.0 } else { -1.0 },
        );
        pose.transform_point(s * h)
    })
}

fn interval(pts: &[DVec3; 8], n: DVec3) -> (f64, f64) {
    pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p.dot(n)), hi.max(p.dot(n))))
}

/// Brute-force SAT from corner projections: the minimum over the 15 world axes of `min(maxA − minB, maxB − minA)`.
fn brute_min_overlap(h_a: DVec3, pa: &Pose, h_b: DVec3, pb: &Pose) -> f64 {
    let (ca, cb) = (corners(h_a, pa), corners(h_b, pb));
    let ax_a = DVec3::AXES.map(|e| pa.transform_vector(e));
    let ax_b = DVec3::AXES.map(|e| pb.transform_vector(e));
    let mut axes = [ax_a, ax_b].concat();
    for a in ax_a {
        for b in ax_b {
            let c = a.cross(b);
            if c.length() >= EDGE_AXIS_MIN_NORM {
                axes.push(c.normalize());
            }
        }
    }
    axes.iter()
        .map(|&n| {
            let ((a0, a1), (b0, b1)) = (interval(&ca, n), interval(&cb, n));
            (a1 - b0).min(b1 - a0)
        })
        .fold(f64::INFINITY, f64::min)
}

/// Signed distance from `p` to the box (negative inside).
fn sd_box(h: DVec3, pose: &Pose, p: DVec3) -> f64 {
    let q = pose.inverse_transform_point(p).abs() - h;
    q.max(DVec3::ZERO).length() + q.max_element().min(0.0)
}

/// Whether `p` lies in the infinite prism over the box's `k`-faces: `|x_i| ≤ h_i + tol` for the local axes `i ≠ k`.
fn in_prism(h: DVec3, pose: &Pose, k: usize, p: DVec3, tol: f64) -> bool {
    let x = pose.inverse_transform_point(p);
    (0..3).filter(|&i| i != k).all(|i| x[i].abs() <= h[i] + tol)
}

fn quat() -> impl Strategy<Value = DQuat> {
    let random = (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64)
        .prop_filter("non-degenerate quaternion", |(x, y, z, w)| x * x + y * y + z * z + w * w > 0.01)
        .prop_map(|(x, y, z, w)| DQuat::from_xyzw(x, y, z, w).normalize());
    // Right-angle rotations make edges exactly parallel and faces coplanar.
    let right = (0..4u32, 0..4u32, 0..4u32).prop_map(|(a, b, c)| {
        let q = std::f64::consts::FRAC_PI_2;
        DQuat::from_rotation_x(q * a as f64)
            * DQuat::from_rotation_y(q * b as f64)
            * DQuat::from_rotation_z(q * c as f64)
    });
    let about_z = (-3.2..3.2f64).prop_map(DQuat::from_rotation_z);
    prop_oneof![4 => random, 1 => right, 1 => about_z]
}

fn half_extents() -> impl Strategy<Value = DVec3> {
    (0.05..2.0f64, 0.05..2.0f64, 0.05..2.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn pose(range: f64) -> impl Strategy<Value = Pose> {
    ((-range..range, -range..range, -range..range), quat())
        .prop_map(|((x, y, z), q)| Pose { translation: DVec3::new(x, y, z), rotation: q })
}

fn grid_half_extents() -> impl Strategy<Value = DVec3> {
    (1..=6, 1..=6, 1..=6).prop_map(|(x, y, z)| 0.25 * DVec3::new(x as f64, y as f64, z as f64))
}

fn grid_pose() -> impl Strategy<Value = Pose> {
    ((-2..=2, -2..=2, -2..=2), quat()).prop_map(|((x, y, z), q)| Pose {
        translation: 0.25 * DVec3::new(x as f64, y as f64, z as f64),
        rotation: q,
    })
}

/// Random boxes and poses, plus degenerate ones: half extents and translations on a 0.25 grid with the rotations of
/// [`quat`] (coplanar faces, collinear edges, exact touching, coincident boxes).
fn pair() -> impl Strategy<Value = (DVec3, Pose, DVec3, Pose)> {
    prop_oneof![
        3 => (half_extents(), pose(0.5), half_extents(), pose(2.0)),
        1 => (grid_half_extents(), grid_pose(), grid_half_extents(), grid_pose()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn sat_matches_brute_force((h_a, pa, h_b, pb) in pair()) {
        let brute = brute_min_overlap(h_a, &pa, h_b, &pb);
        let sat = box_box_sat(h_a, &pa, h_b, &pb);
        if brute < -TOL {
            prop_assert!(sat.is_none(), "brute force separates (overlap {brute}), SAT says {sat:?}");
        }
        if brute > TOL {
            prop_assert!(sat.is_some(), "brute force overlap {brute}, SAT separates");
        }
        if let Some(s) = sat {
            prop_assert!(s.depth >= 0.0);
            prop_assert!((s.depth - brute).abs() <= TOL, "depth {} vs brute force {brute}", s.depth);
            prop_assert!((s.normal.length() - 1.0).abs() <= 1e-12);
            prop_assert!(s.normal.dot(pb.translation - pa.translation) >= -TOL);
            // The normal realises the depth in the A → B direction.
            let ((_, a1), (b0, b1)) = (interval(&corners(h_a, &pa), s.normal), interval(&corners(h_b, &pb), s.normal));
            let (a0, _) = interval(&corners(h_a, &pa), s.normal);
            prop_assert!((a1 - b0 - s.depth).abs() <= TOL);
            prop_assert!(b1 - a0 >= s.depth - TOL);
        }
    }

    #[test]
    fn penetration_witnesses_are_consistent((h_a, pa, h_b, pb) in pair()) {
        let sat = box_box_sat(h_a, &pa, h_b, &pb);
        let pen = box_box_penetration(h_a, &pa, h_b, &pb);
        prop_assert_eq!(sat.is_some(), pen.is_some());
        if let (Some(s), Some(p)) = (sat, pen) {
            prop_assert_eq!(p.depth, s.depth);
            prop_assert_eq!(p.normal, s.normal);
            prop_assert_eq!(p.axis, s.axis);
            prop_assert!((p.point_b - p.point_a + p.depth * p.normal).length() <= TOL);
            prop_assert!(sd_box(h_a, &pa, p.point_a).abs() <= TOL, "point_a off A: {p:?}");
            prop_assert!(sd_box(h_b, &pb, p.point_b).abs() <= TOL, "point_b off B: {p:?}");
        }
    }

    #[test]
    fn contacts_are_consistent((h_a, pa, h_b, pb) in pair()) {
        let sentinel = Contact { position: DVec3::splat(7.0), normal: DVec3::X, penetration: 1.0 };
        let mut out = vec![sentinel];
        let n = box_box_contacts(h_a, &pa, h_b, &pb, &mut out);
        prop_assert_eq!(out.len(), n + 1);
        prop_assert_eq!(out[0], sentinel);
        let sat = box_box_sat(h_a, &pa, h_b, &pb);
        prop_assert_eq!(n == 0, sat.is_none());
        prop_assert!(n <= 8);
        let Some(exact) = sat else { return Ok(()) };
        // The manifold uses the face-biased axis: never more than 1/(1 − bias) deeper than the exact depth.
        let s = box_box_sat_with_bias(h_a, &pa, h_b, &pb, CONTACT_FACE_BIAS).expect("overlapping");
        prop_assert!(s.depth <= exact.depth / (1.0 - CONTACT_FACE_BIAS) + TOL, "{s:?} vs {exact:?}");
        let mut again = Vec::new();
        box_box_contacts(h_a, &pa, h_b, &pb, &mut again);
        prop_assert_eq!(&again[..], &out[1..], "not deterministic");
        // Incident corners up to the clipping slack beyond a side plane are kept: the reference box's witness may lie
        // that far off its face.
        let slack = CLIP_SLACK_REL * h_a.max_element().max(h_b.max_element()) + TOL;
        let (tol_a, tol_b) = match s.axis {
            SatAxis::FaceA(_) => (slack, TOL),
            SatAxis::FaceB(_) => (TOL, slack),
            SatAxis::Edge(..) => (TOL, TOL),
        };
        let mut deepest: f64 = 0.0;
        for c in &out[1..] {
            prop_assert_eq!(c.normal, -s.normal);
            prop_assert!(c.penetration >= 0.0 && c.penetration <= s.depth + TOL, "{c:?} vs depth {}", s.depth);
            deepest = deepest.max(c.penetration);
            let (on_a, on_b) = (c.point_on_a(), c.point_on_b());
            prop_assert!(sd_box(h_a, &pa, on_a).abs() <= tol_a, "point_on_a off A: {c:?}");
            prop_assert!(sd_box(h_b, &pb, on_b).abs() <= tol_b, "point_on_b off B: {c:?}");
            // The incident box's point lies below the reference face, inside the reference box extended to infinite
            // depth (it may leave the reference box through its far side when the depth exceeds its thickness).
            match s.axis {
                SatAxis::FaceA(k) => prop_assert!(in_prism(h_a, &pa, k, on_b, slack), "{c:?}"),
                SatAxis::FaceB(k) => prop_assert!(in_prism(h_b, &pb, k, on_a, slack), "{c:?}"),
                SatAxis::Edge(..) => {
                    prop_assert_eq!(n, 1);
                    prop_assert_eq!(c.penetration, s.depth);
                }
            }
        }
        if s.axis == exact.axis {
            prop_assert!((deepest - s.depth).abs() <= TOL, "deepest {deepest} vs depth {}", s.depth);
        } else {
            // A biased face axis: its overlap may be realised by a vertex that clipping removes.
            prop_assert!(deepest <= s.depth + TOL, "deepest {deepest} vs depth {}", s.depth);
        }
    }

    #[test]
    fn swapping_the_boxes_flips_the_normal((h_a, pa, h_b, pb) in pair()) {
        let ab = box_box_sat(h_a, &pa, h_b, &pb);
        let ba = box_box_sat(h_b, &pb, h_a, &pa);
        if let (Some(ab), Some(ba)) = (ab, ba) {
            prop_assert!((ab.depth - ba.depth).abs() <= TOL);
        }
    }
}

fn pose_at(t: DVec3, q: DQuat) -> Pose {
    Pose { translation: t, rotation: q }
}

#[test]
fn coincident_identical_boxes() {
    let h = DVec3::new(0.5, 0.3, 0.2);
    let p = pose_at(DVec3::new(1.0, 2.0, 3.0), DQuat::from_rotation_y(0.4));
    let s = box_box_sat(h, &p, h, &p).unwrap();
    assert_eq!(s.depth, 0.4);
    assert!(s.normal.is_finite());
    let w = box_box_penetration(h, &p, h, &p).unwrap();
    assert!(w.point_a.is_finite() && w.point_b.is_finite());
    let mut out = Vec::new();
    assert_eq!(box_box_contacts(h, &p, h, &p, &mut out), 4);
    for c in &out {
        assert!(c.position.is_finite());
        assert!((c.penetration - 0.4).abs() < 1e-12);
    }
}

#[test]
fn touching_and_separated() {
    let h = DVec3::splat(0.5);
    let ground = pose_at(DVec3::new(0.0, 0.0, -0.5), DQuat::IDENTITY);
    let touching = pose_at(DVec3::new(0.1, 0.2, 0.5), DQuat::IDENTITY);
    let s = box_box_sat(h, &touching, DVec3::new(5.0, 5.0, 0.5), &ground).unwrap();
    assert_eq!(s.depth, 0.0);
    let mut out = Vec::new();
    assert_eq!(box_box_contacts(h, &touching, DVec3::new(5.0, 5.0, 0.5), &ground, &mut out), 4);
    assert!(out.iter().all(|c| c.penetration == 0.0 && c.normal == DVec3::Z));
    let above = pose_at(DVec3::new(0.1, 0.2, 0.5 + 1e-9), DQuat::IDENTITY);
    assert!(box_box_sat(h, &above, DVec3::new(5.0, 5.0, 0.5), &ground).is_none());
    assert!(box_box_penetration(h, &above, DVec3::new(5.0, 5.0, 0.5), &ground).is_none());
    assert_eq!(box_box_contacts(h, &above, DVec3::new(5.0, 5.0, 0.5), &ground, &mut out), 0);
    assert_eq!(out.len(), 4);
}

#[test]
fn non_finite_input_is_separated() {
    let h = DVec3::splat(0.5);
    let p = Pose::IDENTITY;
    let bad = pose_at(DVec3::new(f64::NAN, 0.0, 0.0), DQuat::IDENTITY);
    assert!(box_box_sat(h, &p, h, &bad).is_none());
    assert!(box_box_sat(DVec3::new(f64::INFINITY, 1.0, 1.0), &p, h, &p).is_none());
    let mut out = Vec::new();
    assert_eq!(box_box_contacts(h, &bad, h, &p, &mut out), 0);
}

#[test]
fn scale_invariance() {
    let h_a = DVec3::new(0.7, 0.4, 0.3);
    let h_b = DVec3::new(0.5, 0.9, 0.2);
    let q_a = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.3);
    let q_b = DQuat::from_axis_angle(DVec3::new(-2.0, 1.0, 0.5).normalize(), 1.1);
    let t_b = DVec3::new(0.3, -0.2, 0.6);
    let mut reference = Vec::new();
    let n0 = box_box_contacts(h_a, &pose_at(DVec3::ZERO, q_a), h_b, &pose_at(t_b, q_b), &mut reference);
    let d0 = box_box_sat(h_a, &pose_at(DVec3::ZERO, q_a), h_b, &pose_at(t_b, q_b)).unwrap().depth;
    assert!(n0 > 0);
    for scale in [1e-6, 1e-3, 1e3, 1e6] {
        let (pa, pb) = (pose_at(DVec3::ZERO, q_a), pose_at(t_b * scale, q_b));
        let s = box_box_sat(h_a * scale, &pa, h_b * scale, &pb).unwrap();
        assert!((s.depth - d0 * scale).abs() <= 1e-12 * scale, "scale {scale}");
        let w = box_box_penetration(h_a * scale, &pa, h_b * scale, &pb).unwrap();
        assert!((w.point_b - w.point_a + w.depth * w.normal).length() <= 1e-12 * scale);
        let mut out = Vec::new();
        assert_eq!(box_box_contacts(h_a * scale, &pa, h_b * scale, &pb, &mut out), n0, "scale {scale}");
        for (c, r) in out.iter().zip(&reference) {
            assert!((c.position - r.position * scale).length() <= 1e-12 * scale);
            assert!((c.penetration - r.penetration * scale).abs() <= 1e-12 * scale);
        }
    }
}

#[test]
fn mixed_scales_do_not_produce_nan() {
    let tiny = DVec3::splat(1e-6);
    let huge = DVec3::splat(1e6);
    for (t, q) in [
        (DVec3::new(0.0, 0.0, 1e6), DQuat::IDENTITY),
        (DVec3::new(3.0, -2.0, 1e6 - 1e-7), DQuat::from_rotation_x(0.7)),
        (DVec3::new(1e6, 1e6, 1e6), DQuat::from_axis_angle(DVec3::ONE.normalize(), 0.9)),
        (DVec3::ZERO, DQuat::from_rotation_z(0.25)),
    ] {
        let (pa, pb) = (pose_at(t, q), Pose::IDENTITY);
        for (ha, hb) in [(tiny, huge), (huge, tiny), (tiny, tiny), (huge, huge)] {
            if let Some(w) = box_box_penetration(ha, &pa, hb, &pb) {
                assert!(
                    w.depth.is_finite()
                        && w.normal.is_finite()
                        && w.point_a.is_finite()
                        && w.point_b.is_finite()
                );
            }
            let mut out = Vec::new();
            let n = box_box_contacts(ha, &pa, hb, &pb, &mut out);
            assert_eq!(n > 0, box_box_sat(ha, &pa, hb, &pb).is_some());
            assert!(
                out.iter().all(|c| c.position.is_finite() && c.normal.is_finite() && c.penetration >= 0.0)
            );
        }
    }
}

#[derive(Serialize)]
struct SnapContact {
    position: [f64; 3],
    normal: [f64; 3],
    penetration: f64,
}

#[derive(Serialize)]
struct Snapshot {
    axis: SatAxis,
    depth: f64,
    contacts: Vec<SnapContact>,
}

fn round(x: f64) -> f64 {
    (x * 1e9).round() / 1e9 + 0.0
}

fn round3(v: DVec3) -> [f64; 3] {
    v.to_array().map(round)
}

fn snapshot(h_a: DVec3, pa: &Pose, h_b: DVec3, pb: &Pose) -> Snapshot {
    let s = box_box_sat(h_a, pa, h_b, pb).unwrap();
    let mut out = Vec::new();
    box_box_contacts(h_a, pa, h_b, pb, &mut out);
    Snapshot {
        axis: s.axis,
        depth: round(s.depth),
        contacts: out
            .iter()
            .map(|c| SnapContact {
                position: round3(c.position),
                normal: round3(c.normal),
                penetration: round(c.penetration),
            })
            .collect(),
    }
}

#[test]
fn snapshot_cube_on_ground() {
    let cube = pose_at(DVec3::new(0.3, -0.2, 0.49), DQuat::IDENTITY);
    let ground = pose_at(DVec3::new(0.0, 0.0, -0.5), DQuat::IDENTITY);
    let snap = snapshot(DVec3::splat(0.5), &cube, DVec3::new(5.0, 5.0, 0.5), &ground);
    assert_eq!(snap.contacts.len(), 4);
    insta::assert_json_snapshot!(snap);
}

#[test]
fn snapshot_cube_on_cube_rotated_45() {
    let top = pose_at(DVec3::new(0.0, 0.0, 0.99), DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4));
    let snap = snapshot(DVec3::splat(0.5), &top, DVec3::splat(0.5), &Pose::IDENTITY);
    assert_eq!(snap.contacts.len(), 8);
    insta::assert_json_snapshot!(snap);
}

#[test]
fn snapshot_edge_edge_crossing() {
    let r = 0.2 * std::f64::consts::SQRT_2;
    let q = std::f64::consts::FRAC_PI_4;
    let upper = pose_at(DVec3::new(0.1, -0.05, 2.0 * r - 0.01), DQuat::from_rotation_x(q));
    let lower = pose_at(DVec3::ZERO, DQuat::from_rotation_y(q));
    let snap = snapshot(DVec3::new(1.0, 0.2, 0.2), &upper, DVec3::new(0.2, 1.0, 0.2), &lower);
    assert!(matches!(snap.axis, SatAxis::Edge(..)));
    assert_eq!(snap.contacts.len(), 1);
    insta::assert_json_snapshot!(snap);
}

/// A box resting yawed on another, tilted by a milliradian or a hundredth: the faces touch, so the manifold is the
/// clipped octagon (8 points), not the single point of the edge axis that the tilt makes marginally shallower.
#[test]
fn slightly_tilted_face_contact_keeps_the_face_manifold() {
    for tilt in [1e-4, 1e-3, 1e-2] {
        let a = pose_at(DVec3::new(0.0, 0.0, 0.1), DQuat::from_rotation_x(0.3 * tilt));
        let q = DQuat::from_rotation_z(20f64.to_radians()) * DQuat::from_rotation_y(tilt);
        let b = pose_at(DVec3::new(0.02, 0.0, 0.295), q);
        let exact = box_box_sat(DVec3::splat(0.1), &a, DVec3::splat(0.1), &b).expect("overlap");
        assert!(
            matches!(exact.axis, SatAxis::Edge(..)),
            "tilt {tilt}: the exact minimum is an edge axis here"
        );
        let mut out = Vec::new();
        let n = box_box_contacts(DVec3::splat(0.1), &a, DVec3::splat(0.1), &b, &mut out);
        assert_eq!(n, 8, "tilt {tilt}");
        assert!(out.iter().all(|c| c.normal.z < -0.999 && c.penetration > 0.003), "tilt {tilt}: {out:?}");
    }
}

/// Found by `contacts_are_consistent` in a CI run of 2026-12-01 (proptest's random seed, 720th case): the face-biased
/// SAT turned down the shallowest edge axis (within 5° of a face axis) and then took a deeper edge axis, whose edges
/// do not touch, so the contact lay 0.1 m off A. The edge axis that may win is now only the shallowest one.
#[test]
fn a_turned_down_edge_axis_is_not_replaced_by_a_deeper_one() {
    let (h_a, h_b) = (
        DVec3::new(0.8109383414729666, 0.7480461524920359, 0.2492900955846849),
        DVec3::new(0.5880601938640809, 1.6453977918344052, 0.5117949044612169),
    );
    let pa = Pose::new(
        DVec3::new(0.35672322286146874, -0.48581050732237235, 0.4447852060083095),
        DQuat::from_xyzw(-0.35215364802922944, 0.10024293391375855, -0.7328274535622311, -0.5735007285832892),
    )
    .unwrap();
    let pb = Pose::new(
        DVec3::new(-1.857207647768649, -1.647097132599186, 0.45206356322954727),
        DQuat::from_xyzw(0.5899162252117958, 0.6432391734550873, 0.25733774164277684, -0.41475233536518813),
    )
    .unwrap();
    let mut out = Vec::new();
    box_box_contacts(h_a, &pa, h_b, &pb, &mut out);
    assert!(!out.is_empty());
    for c in &out {
        assert!(sd_box(h_a, &pa, c.point_on_a()).abs() <= TOL, "point_on_a off A: {c:?}");
        assert!(sd_box(h_b, &pb, c.point_on_b()).abs() <= TOL, "point_on_b off B: {c:?}");
    }
}
