//! MuJoCo-compatible contact generation (`ContactMode::MujocoCompatible`): MuJoCo's dedicated pair functions against
//! closed forms. Contacts are in the simulator convention (normal from B to A, `penetration = −dist`).

use glam::{DQuat, DVec3};
use signorini_collision::{Contact, ContactRequest, contacts};
use signorini_geometry::{Capsule, ConvexMesh, Cuboid, Cylinder, Ellipsoid, Plane, Pose, Shape, Sphere};

const TOL: f64 = 1e-12;

fn mj(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> Vec<Contact> {
    contacts(a, pa, b, pb, &ContactRequest::mujoco_compatible()).unwrap().contacts
}

fn pose(t: [f64; 3], q: DQuat) -> Pose {
    Pose::new(DVec3::from(t), q).unwrap()
}

fn at(t: [f64; 3]) -> Pose {
    Pose::from_translation(DVec3::from(t))
}

fn plane() -> Shape {
    Plane::new().into()
}

fn near(a: DVec3, b: DVec3) -> bool {
    (a - b).length() < 1e-9
}

fn has_point(cs: &[Contact], p: DVec3) -> bool {
    cs.iter().any(|c| near(c.position, p))
}

#[test]
fn plane_sphere_one_contact_midway() {
    let s: Shape = Sphere::new(0.1).unwrap().into();
    let cs = mj(&plane(), &Pose::IDENTITY, &s, &at([0.3, 0.0, 0.09]));
    assert_eq!(cs.len(), 1);
    assert!((cs[0].penetration - 0.01).abs() < TOL);
    assert!(near(cs[0].position, DVec3::new(0.3, 0.0, -0.005)));
    // Normal from B (sphere) to A (plane).
    assert!(near(cs[0].normal, -DVec3::Z));
    // Swapped order: normal from the plane to the sphere.
    let cs = mj(&s, &at([0.3, 0.0, 0.09]), &plane(), &Pose::IDENTITY);
    assert_eq!(cs.len(), 1);
    assert!(near(cs[0].normal, DVec3::Z));
    assert!(mj(&plane(), &Pose::IDENTITY, &s, &at([0.0, 0.0, 0.1001])).is_empty());
}

#[test]
fn plane_capsule_lying_gives_both_ends() {
    let c: Shape = Capsule::new(0.05, 0.2).unwrap().into();
    let lying = pose([0.0, 0.0, 0.04], DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2));
    let cs = mj(&plane(), &Pose::IDENTITY, &c, &lying);
    assert_eq!(cs.len(), 2);
    for c in &cs {
        assert!((c.penetration - 0.01).abs() < 1e-9);
        assert!((c.position.z + 0.005).abs() < 1e-9);
    }
    assert!(has_point(&cs, DVec3::new(0.0, -0.2, -0.005)));
    assert!(has_point(&cs, DVec3::new(0.0, 0.2, -0.005)));
    // Standing: only the lower end.
    let cs = mj(&plane(), &Pose::IDENTITY, &c, &at([0.0, 0.0, 0.24]));
    assert_eq!(cs.len(), 1);
    assert!((cs[0].penetration - 0.01).abs() < 1e-9);
}

#[test]
fn plane_cylinder_standing_gives_three_rim_points() {
    let cyl: Shape = Cylinder::new(0.1, 0.2).unwrap().into();
    let cs = mj(&plane(), &Pose::IDENTITY, &cyl, &at([0.0, 0.0, 0.199]));
    // MuJoCo 4.0: (0.1, 0, -0.0005) and the two rim points at ±120°.
    assert_eq!(cs.len(), 3);
    let z = -0.0005;
    assert!(has_point(&cs, DVec3::new(0.1, 0.0, z)));
    assert!(has_point(&cs, DVec3::new(-0.05, 0.1 * 3f64.sqrt() / 2.0, z)));
    assert!(has_point(&cs, DVec3::new(-0.05, -0.1 * 3f64.sqrt() / 2.0, z)));
    assert!(cs.iter().all(|c| (c.penetration - 0.001).abs() < 1e-9));
}

#[test]
fn plane_cylinder_lying_gives_two_and_tilted_one() {
    let cyl: Shape = Cylinder::new(0.1, 0.2).unwrap().into();
    let lying = pose([0.0, 0.0, 0.099], DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2));
    let cs = mj(&plane(), &Pose::IDENTITY, &cyl, &lying);
    assert_eq!(cs.len(), 2);
    assert!(has_point(&cs, DVec3::new(0.0, 0.2, -0.0005)));
    assert!(has_point(&cs, DVec3::new(0.0, -0.2, -0.0005)));
    // Tilted by 30° with only the lowest rim point below the plane.
    let q = DQuat::from_rotation_x(30f64.to_radians());
    let low = 0.2 * 30f64.to_radians().cos() + 0.1 * 30f64.to_radians().sin();
    let cs = mj(&plane(), &Pose::IDENTITY, &cyl, &pose([0.0, 0.0, low - 0.001], q));
    assert_eq!(cs.len(), 1);
    assert!((cs[0].penetration - 0.001).abs() < 1e-9);
}

#[test]
fn plane_box_resting_gives_four_corners() {
    let b: Shape = Cuboid::new(DVec3::new(0.1, 0.2, 0.3)).unwrap().into();
    let cs = mj(&plane(), &Pose::IDENTITY, &b, &at([0.0, 0.0, 0.299]));
    assert_eq!(cs.len(), 4);
    // MuJoCo's corner order (bit k set: + on axis k), bottom corners only.
    let expect = [[-0.1, -0.2], [0.1, -0.2], [-0.1, 0.2], [0.1, 0.2]];
    for (c, e) in cs.iter().zip(expect) {
        assert!(near(c.position, DVec3::new(e[0], e[1], -0.0005)), "{c:?}");
        assert!((c.penetration - 0.001).abs() < 1e-9);
        assert!(near(c.normal, -DVec3::Z));
    }
    // On an edge: two corners.
    let q = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4);
    let h = (0.2f64.powi(2) + 0.3f64.powi(2)).sqrt()
        * (std::f64::consts::FRAC_PI_4 + (0.2f64 / 0.3).atan()).sin();
    let cs = mj(&plane(), &Pose::IDENTITY, &b, &pose([0.0, 0.0, h - 0.001], q));
    assert_eq!(cs.len(), 2);
}

#[test]
fn plane_ellipsoid_single_support_point() {
    let e: Shape = Ellipsoid::new(DVec3::new(0.1, 0.2, 0.3)).unwrap().into();
    let cs = mj(&plane(), &Pose::IDENTITY, &e, &at([0.0, 0.0, 0.299]));
    assert_eq!(cs.len(), 1);
    assert!(near(cs[0].position, DVec3::new(0.0, 0.0, -0.0005)));
}

#[test]
fn plane_mesh_gives_the_facing_polygon_up_to_four_vertices() {
    // A hexagonal pyramid lying on its base, 1 mm deep: the support vertex and three more base vertices.
    let pts: Vec<DVec3> = (0..6)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / 6.0;
            DVec3::new(0.1 * a.cos(), 0.1 * a.sin(), -0.05)
        })
        .chain([DVec3::new(0.0, 0.0, 0.1)])
        .collect();
    let m: Shape = ConvexMesh::from_points(&pts).unwrap().into();
    let cs = mj(&plane(), &Pose::IDENTITY, &m, &at([0.0, 0.0, 0.049]));
    assert_eq!(cs.len(), 4);
    assert!(cs.iter().all(|c| (c.penetration - 0.001).abs() < 1e-9));
    for c in &cs {
        let base = DVec3::new(c.position.x, c.position.y, -0.05);
        assert!(pts[..6].iter().any(|&p| near(p, base)), "{c:?} is not below a base vertex");
    }
    // Tipped on the apex: one contact.
    let q = DQuat::from_rotation_x(2.5);
    let p = pose([0.0, 0.0, 0.0], q);
    let low = pts.iter().map(|v| p.transform_point(*v).z).fold(f64::INFINITY, f64::min);
    let cs = mj(&plane(), &Pose::IDENTITY, &m, &pose([0.0, 0.0, -low - 0.001], q));
    assert_eq!(cs.len(), 1);
}

#[derive(serde::Deserialize)]
struct PlaneMeshCase {
    vertices: Vec<[f64; 3]>,
    pos: [f64; 3],
    mat: [f64; 9],
    contacts: Vec<MujocoContact>,
}

#[derive(serde::Deserialize)]
struct MujocoContact {
    dist: f64,
    pos: [f64; 3],
    normal: [f64; 3],
}

#[derive(serde::Deserialize)]
struct PlaneMeshData {
    cases: Vec<PlaneMeshCase>,
}

/// MuJoCo 4.0's own plane–mesh contacts (`scripts/mujoco_plane_mesh.py`: random poses of the five hulls of the
/// `convex` scene, tilted n-gon prisms whose base polygon has more than four vertices, and a cube), compared as sets.
#[test]
fn plane_mesh_matches_mujoco() {
    let text = include_str!("data/plane_mesh_mujoco.json");
    let data: PlaneMeshData = serde_json::from_str(text).unwrap();
    assert_eq!(data.cases.len(), 63);
    for (i, case) in data.cases.iter().enumerate() {
        let pts: Vec<DVec3> = case.vertices.iter().map(|&v| DVec3::from(v)).collect();
        let m: Shape = ConvexMesh::from_points(&pts).unwrap().into();
        // MuJoCo's row-major geom_xmat.
        let r = glam::DMat3::from_cols_array(&case.mat).transpose();
        let p = Pose::new(DVec3::from(case.pos), DQuat::from_mat3(&r).normalize()).unwrap();
        let ours = mj(&plane(), &Pose::IDENTITY, &m, &p);
        assert_eq!(ours.len(), case.contacts.len(), "case {i}: contact count");
        for c in &case.contacts {
            let found = ours.iter().find(|o| near(o.position, DVec3::from(c.pos)));
            let o = found.unwrap_or_else(|| panic!("case {i}: MuJoCo contact at {:?} missing", c.pos));
            assert!((o.penetration + c.dist).abs() < 1e-9, "case {i}");
            // MuJoCo's frame normal points from the plane to the mesh; ours from B (mesh) to A (plane).
            assert!(near(o.normal, -DVec3::from(c.normal)), "case {i}");
        }
    }
}

#[test]
fn sphere_sphere_and_sphere_capsule() {
    let s: Shape = Sphere::new(0.1).unwrap().into();
    let cs = mj(&s, &at([0.0, 0.0, 0.0]), &s, &at([0.15, 0.0, 0.0]));
    assert_eq!(cs.len(), 1);
    assert!((cs[0].penetration - 0.05).abs() < TOL);
    assert!(near(cs[0].position, DVec3::new(0.075, 0.0, 0.0)));
    assert!(near(cs[0].normal, -DVec3::X));
    let c: Shape = Capsule::new(0.05, 0.2).unwrap().into();
    // Sphere over the capsule's end region: nearest segment point clamped to the end (0, 0, 0.2).
    let cs = mj(&s, &at([0.0, 0.1, 0.3]), &c, &Pose::IDENTITY);
    assert_eq!(cs.len(), 1);
    let d = DVec3::new(0.0, 0.1, 0.1);
    assert!((cs[0].penetration - (0.15 - d.length())).abs() < TOL);
    assert!(near(cs[0].normal, d.normalize()));
}

#[test]
fn capsule_capsule_parallel_gives_two_crossed_one() {
    let c: Shape = Capsule::new(0.05, 0.2).unwrap().into();
    let cs = mj(&c, &Pose::IDENTITY, &c, &at([0.09, 0.0, 0.05]));
    assert_eq!(cs.len(), 2);
    for k in &cs {
        assert!((k.penetration - 0.01).abs() < 1e-9);
        assert!(near(k.normal, -DVec3::X));
    }
    assert!(has_point(&cs, DVec3::new(0.045, 0.0, 0.2)));
    assert!(has_point(&cs, DVec3::new(0.045, 0.0, -0.15)));
    let crossed = pose([0.09, 0.0, 0.0], DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2));
    let cs = mj(&c, &Pose::IDENTITY, &c, &crossed);
    assert_eq!(cs.len(), 1);
    assert!(near(cs[0].position, DVec3::new(0.045, 0.0, 0.0)));
}

#[test]
fn sphere_box_face_edge_inside() {
    let s: Shape = Sphere::new(0.1).unwrap().into();
    let b: Shape = Cuboid::new(DVec3::splat(0.5)).unwrap().into();
    // Face: sphere above +z.
    let cs = mj(&s, &at([0.1, 0.2, 0.59]), &b, &Pose::IDENTITY);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].penetration - 0.01).abs() < 1e-9);
    assert!(near(cs[0].normal, DVec3::Z));
    assert!(near(cs[0].position, DVec3::new(0.1, 0.2, 0.495)));
    // Edge: sphere beyond the x–z edge.
    let cs = mj(&s, &at([0.55, 0.0, 0.55]), &b, &Pose::IDENTITY);
    assert_eq!(cs.len(), 1);
    let d = 0.05 * 2f64.sqrt();
    assert!((cs[0].penetration - (0.1 - d)).abs() < 1e-9);
    assert!(near(cs[0].normal, DVec3::new(1.0, 0.0, 1.0).normalize()));
    // Inside: pushed out through the nearest face (+y), depth = distance to that face + radius.
    let cs = mj(&s, &at([0.0, 0.45, 0.1]), &b, &Pose::IDENTITY);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].penetration - 0.15).abs() < 1e-9);
    assert!(near(cs[0].normal, DVec3::Y));
    // Box first: the normal flips.
    let cs = mj(&b, &Pose::IDENTITY, &s, &at([0.0, 0.45, 0.1]));
    assert!(near(cs[0].normal, -DVec3::Y));
}

#[test]
fn capsule_box_lying_on_face_gives_two() {
    let c: Shape = Capsule::new(0.05, 0.2).unwrap().into();
    let b: Shape = Cuboid::new(DVec3::splat(0.5)).unwrap().into();
    let lying = pose([0.1, 0.0, 0.549], DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2));
    let cs = mj(&c, &lying, &b, &Pose::IDENTITY);
    assert_eq!(cs.len(), 2);
    for k in &cs {
        assert!((k.penetration - 0.001).abs() < 1e-9);
        assert!(near(k.normal, DVec3::Z));
    }
    assert!(has_point(&cs, DVec3::new(0.1, 0.2, 0.4995)));
    assert!(has_point(&cs, DVec3::new(0.1, -0.2, 0.4995)));
    // Standing on the face: one.
    let cs = mj(&c, &at([0.1, 0.0, 0.749]), &b, &Pose::IDENTITY);
    assert_eq!(cs.len(), 1);
}

#[test]
fn sphere_cylinder_side_cap() {
    let s: Shape = Sphere::new(0.1).unwrap().into();
    let cyl: Shape = Cylinder::new(0.2, 0.3).unwrap().into();
    let cs = mj(&s, &at([0.29, 0.0, 0.0]), &cyl, &Pose::IDENTITY);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].penetration - 0.01).abs() < 1e-9);
    assert!(near(cs[0].normal, DVec3::X));
    let cs = mj(&s, &at([0.0, 0.1, 0.39]), &cyl, &Pose::IDENTITY);
    assert_eq!(cs.len(), 1);
    assert!((cs[0].penetration - 0.01).abs() < 1e-9);
    assert!(near(cs[0].normal, DVec3::Z));
    let cs = mj(&s, &at([0.0, 0.1, -0.39]), &cyl, &Pose::IDENTITY);
    assert!(near(cs[0].normal, -DVec3::Z));
}

#[test]
fn native_mode_is_unchanged_for_plane_box() {
    // Native keeps Genesis's support-point-first rule (spec §A.6), with up to 5 contacts.
    let b: Shape = Cuboid::new(DVec3::new(0.1, 0.2, 0.3)).unwrap().into();
    let cs =
        contacts(&plane(), &Pose::IDENTITY, &b, &at([0.0, 0.0, 0.299]), &ContactRequest::default()).unwrap();
    assert_eq!(cs.len(), 4);
}
