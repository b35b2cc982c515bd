//! `insta` snapshots of contact manifolds for canonical resting configurations (simulator convention: normal from B
//! to A, penetration ≥ 0). Values are rounded to 1e-9 so the snapshots are stable across platforms.

use glam::{DQuat, DVec3};
use serde_json::{Value, json};
use signorini_collision::{ContactRequest, Manifold, contacts};
use signorini_geometry::{Capsule, ConvexMesh, Cuboid, Plane, Pose, Shape};

fn round(x: f64) -> f64 {
    let r = (x * 1e9).round() / 1e9;
    if r == 0.0 { 0.0 } else { r }
}

fn v(p: DVec3) -> Value {
    json!([round(p.x), round(p.y), round(p.z)])
}

fn snapshot(m: &Manifold) -> Value {
    Value::Array(
        m.contacts
            .iter()
            .map(|c| json!({"position": v(c.position), "normal": v(c.normal), "penetration": round(c.penetration)}))
            .collect(),
    )
}

fn floor() -> (Shape, Pose) {
    (Plane::new().into(), Pose::IDENTITY)
}

#[test]
fn box_resting_on_plane() {
    let (plane, id) = floor();
    let cube: Shape = Cuboid::new(DVec3::splat(0.5)).unwrap().into();
    let pose = Pose::from_translation(DVec3::new(0.0, 0.0, 0.499));
    let m = contacts(&plane, &id, &cube, &pose, &ContactRequest::default()).unwrap();
    assert_eq!(m.len(), 4);
    assert!(m.contacts.iter().all(|c| (c.normal - DVec3::NEG_Z).length() < 1e-12));
    insta::assert_json_snapshot!(snapshot(&m));
}

#[test]
fn box_on_box_rotated_45_degrees() {
    let base: Shape = Cuboid::new(DVec3::splat(0.5)).unwrap().into();
    let top_pose =
        Pose::new(DVec3::new(0.0, 0.0, 0.995), DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4)).unwrap();
    let m = contacts(&base, &Pose::IDENTITY, &base, &top_pose, &ContactRequest::default()).unwrap();
    assert_eq!(m.len(), 8);
    assert!(m.contacts.iter().all(|c| (c.penetration - 0.005).abs() < 1e-12));
    insta::assert_json_snapshot!(snapshot(&m));
}

#[test]
fn capsule_lying_on_box() {
    let base: Shape = Cuboid::new(DVec3::new(1.0, 1.0, 0.5)).unwrap().into();
    let capsule: Shape = Capsule::new(0.1, 0.4).unwrap().into();
    let lying =
        Pose::new(DVec3::new(0.1, 0.2, 0.599), DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2)).unwrap();
    let m = contacts(&base, &Pose::IDENTITY, &capsule, &lying, &ContactRequest::default()).unwrap();
    // MPR's contact 0 under the capsule's middle, and the tilts about the default axes reach both ends (Genesis
    // 1.4.5; a step's pruning keeps the ends alone).
    assert_eq!(m.len(), 3);
    let ends = m.contacts.iter().filter(|c| (c.position.x - 0.1).abs() > 0.4 - 1e-7).count();
    assert_eq!(ends, 2, "{:?}", m.contacts);
    // An end's witness lies on its cap `2ε` off the bottom, `r(1 − cos 2ε) = 5e-6` m above it (1.4.5's recomputation),
    // and MPR stops within `1e-5·s` of the depth (`s` half the capsule's box diagonal).
    let bound = 0.1 * (1.0 - (2.0 * 5e-3f64).cos()) + 1e-5 * 0.5 * DVec3::new(0.2, 0.2, 1.0).length();
    assert!(m.contacts.iter().all(|c| (c.penetration - 0.001).abs() < bound), "{:?}", m.contacts);
    // Normal from B (capsule) to A (box): downwards (MPR's, within its tolerance).
    assert!(m.contacts.iter().all(|c| (c.normal - DVec3::NEG_Z).length() < 1e-6));
    insta::assert_json_snapshot!(snapshot(&m));
}

#[test]
fn hexagonal_prism_hull_on_plane() {
    let (plane, id) = floor();
    let mut pts = Vec::new();
    for k in 0..6 {
        let a = std::f64::consts::TAU * k as f64 / 6.0;
        for z in [-0.2, 0.2] {
            pts.push(DVec3::new(0.5 * a.cos(), 0.5 * a.sin(), z));
        }
    }
    let hull: Shape = ConvexMesh::from_points(&pts).unwrap().into();
    let pose = Pose::from_translation(DVec3::new(0.0, 0.0, 0.199));
    let m = contacts(&plane, &id, &hull, &pose, &ContactRequest::default()).unwrap();
    assert!(m.len() >= 3, "a face resting on the plane needs at least 3 contacts, got {}", m.len());
    assert!(m.contacts.iter().all(|c| c.penetration >= 0.0 && c.penetration <= 0.001 + 1e-9));
    insta::assert_json_snapshot!(snapshot(&m));
}
