//! Genesis 1.4.5's perturbation contacts of a half-space and a convex hull (`multi_contact::plane_perturbation_contacts`,
//! native dialect), against closed forms on a cube hull of half-size `h` tilted about x by `θ`: its corners' heights
//! are exact, so the contacts the tilts by `ε = 5e-3` reach, their depths and where a corner above the plane lands
//! follow from them.

use glam::{DQuat, DVec3};
use signorini_collision::{ContactRequest, Manifold, contacts};
use signorini_geometry::{ConvexMesh, Plane, Pose, Shape};

const H: f64 = 0.1;

fn cube_hull() -> Shape {
    let corners: Vec<DVec3> = (0..8)
        .map(|k| {
            DVec3::new(
                if k & 1 == 0 { -H } else { H },
                if k & 2 == 0 { -H } else { H },
                if k & 4 == 0 { -H } else { H },
            )
        })
        .collect();
    ConvexMesh::from_points(&corners).unwrap().into()
}

/// The cube hull turned by `theta` about x, its lowest corner `depth` below the plane z = 0.
fn tilted(theta: f64, depth: f64) -> (Pose, Vec<DVec3>) {
    let rotation = DQuat::from_rotation_x(theta);
    let lowest = (rotation * DVec3::new(0.0, H, -H)).z.min((rotation * DVec3::new(0.0, -H, -H)).z);
    let pose = Pose::new(DVec3::new(0.0, 0.0, -lowest - depth), rotation).unwrap();
    let corners = (0..8)
        .map(|k| {
            let v = DVec3::new(
                if k & 1 == 0 { -H } else { H },
                if k & 2 == 0 { -H } else { H },
                if k & 4 == 0 { -H } else { H },
            );
            pose.transform_point(v)
        })
        .collect();
    (pose, corners)
}

fn manifold(pose: &Pose) -> Manifold {
    let plane: Shape = Plane::new().into();
    contacts(&plane, &Pose::IDENTITY, &cube_hull(), pose, &ContactRequest::default()).unwrap()
}

/// Whether `m` holds a contact at `position` with `penetration` (normal −z), to rounding.
fn has(m: &Manifold, position: DVec3, penetration: f64) -> bool {
    m.contacts.iter().any(|c| {
        (c.position - position).length() < 1e-12
            && (c.penetration - penetration).abs() < 1e-12
            && (c.normal - DVec3::NEG_Z).length() < 1e-15
    })
}

/// A face tilted by more than `ε` (0.02 rad): the tilts reach the other corner of its lowest edge, never the corners
/// of the edge above (0.2·sin 0.02 = 4 mm higher), even where those penetrate too: two contacts, at the lowest
/// corners, each at its depth below the plane (the midpoint `x + ½ p ẑ`).
#[test]
fn a_face_tilted_past_the_angle_keeps_its_lowest_edge() {
    for depth in [1e-4, 5e-3] {
        let (pose, corners) = tilted(0.02, depth);
        let m = manifold(&pose);
        let low: Vec<DVec3> = corners.iter().copied().filter(|v| v.z < -depth + 1e-12).collect();
        assert_eq!(low.len(), 2);
        assert_eq!(m.len(), 2, "depth {depth}: {:?}", m.contacts);
        for v in low {
            assert!(
                has(&m, v + 0.5 * depth * DVec3::Z, depth),
                "depth {depth}: {v} missing from {:?}",
                m.contacts
            );
        }
        let penetrating = corners.iter().filter(|v| v.z < 0.0).count();
        assert_eq!(penetrating, if depth > 4e-3 { 4 } else { 2 });
    }
}

/// A face tilted by less than `ε` (2e-3 rad) with its lowest edge `p₀ = 1e-4` in the plane and its upper edge
/// `d = −(0.2 sin θ − p₀)` above it: the tilts reach the upper corners, which move towards contact 0 to where the
/// depth interpolated between both vanishes, `x₀ + p₀/(p₀ − d)·(w − x₀)`, at depth 0; the other lowest corner keeps
/// its depth. Four contacts.
#[test]
fn corners_above_the_plane_move_to_the_edge_of_the_patch() {
    let (theta, p0) = (2e-3, 1e-4);
    let (pose, corners) = tilted(theta, p0);
    let m = manifold(&pose);
    assert_eq!(m.len(), 4, "{:?}", m.contacts);
    let first = m.contacts[0];
    assert!((first.penetration - p0).abs() < 1e-12);
    let x0 = first.position;
    for v in corners.iter().filter(|v| v.z < -p0 + 1e-12) {
        assert!(has(&m, *v + 0.5 * p0 * DVec3::Z, p0), "{v} missing from {:?}", m.contacts);
    }
    // The upper edge's corners on the side of contact 0's x and the other: each lands on the segment to contact 0.
    let high: Vec<DVec3> = corners.iter().copied().filter(|v| v.z < 0.0 + 1e-3 && v.z > 0.0).collect();
    assert_eq!(high.len(), 2);
    for w in high {
        let d = -w.z;
        let expected = x0 + p0 / (p0 - d) * (w - d * 0.5 * DVec3::NEG_Z - x0);
        let landed =
            m.contacts.iter().any(|c| c.penetration == 0.0 && (c.position - expected).length() < 1e-12);
        assert!(landed, "{w}: no contact at {expected} in {:?}", m.contacts);
    }
}

/// A flat face: the four corners of the bottom face at the depth of the face, as Genesis's diagonal tilts find one
/// corner each.
#[test]
fn a_flat_face_gets_its_four_corners() {
    let (pose, corners) = tilted(0.0, 1e-3);
    let m = manifold(&pose);
    assert_eq!(m.len(), 4, "{:?}", m.contacts);
    for v in corners.iter().filter(|v| v.z < 0.0) {
        assert!(has(&m, *v + 0.5e-3 * DVec3::Z, 1e-3), "{v} missing from {:?}", m.contacts);
    }
}
