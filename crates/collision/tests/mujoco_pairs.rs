//! MuJoCo-compatible contact generation ([`MujocoDispatcher`]): MuJoCo's dedicated pair functions against
//! closed forms. Contacts are in the simulator convention (normal from B to A, `penetration = −dist`).

use glam::{DMat3, DQuat, DVec3};
use signorini_collision::{Contact, ContactRequest, MujocoDispatcher, PairDispatcher, contacts};
use signorini_geometry::{Capsule, ConvexMesh, Cuboid, Cylinder, Ellipsoid, Plane, Pose, Shape, Sphere};

const TOL: f64 = 1e-12;

fn mj(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> Vec<Contact> {
    MujocoDispatcher.contacts(a, pa, b, pb, &MujocoDispatcher.default_request()).unwrap().contacts
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

#[derive(Debug, serde::Deserialize)]
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

#[derive(serde::Deserialize)]
struct ConvexMeshData {
    vertices: Vec<[f64; 3]>,
    vertices_f64: Vec<[f64; 3]>,
    /// MuJoCo's `mesh_quat` (w, x, y, z): its stored frame in the asset's, where it bins the polygons.
    quat: Option<[f64; 4]>,
}

#[derive(serde::Deserialize)]
struct ConvexGeom {
    #[serde(rename = "type")]
    kind: String,
    mesh: Option<usize>,
    size: Option<[f64; 3]>,
    pos: [f64; 3],
    mat: [f64; 9],
    /// The world quaternion (w first), where the reference has it: the exact source of `mat`.
    quat: Option<[f64; 4]>,
}

#[derive(serde::Deserialize)]
struct ConvexCase {
    kind: String,
    geoms: [ConvexGeom; 2],
    contacts: Vec<MujocoContact>,
}

#[derive(serde::Deserialize)]
struct ConvexData {
    meshes: Vec<ConvexMeshData>,
    cases: Vec<ConvexCase>,
}

/// The hulls of a reference file's meshes, from their double vertices (`vertices_f64`), with MuJoCo's polygons
/// binned in the asset's frame where the file gives it (`quat`).
fn reference_hulls(data: &ConvexData) -> Vec<Shape> {
    data.meshes
        .iter()
        .map(|m| {
            let pts: Vec<DVec3> = m.vertices_f64.iter().map(|&v| DVec3::from(v)).collect();
            let hull = ConvexMesh::from_points(&pts).unwrap();
            match m.quat {
                Some([w, x, y, z]) => {
                    hull.with_mujoco_polygons(DMat3::from_quat(DQuat::from_xyzw(x, y, z, w)))
                }
                None => hull,
            }
            .into()
        })
        .collect()
}

/// A reference geom as a shape; a mesh geom is `hulls[mesh]`.
fn reference_shape(g: &ConvexGeom, hulls: &[Shape]) -> Shape {
    match (g.kind.as_str(), g.mesh, g.size) {
        ("mesh", Some(k), _) => hulls[k].clone(),
        ("sphere", _, Some(s)) => Sphere::new(s[0]).unwrap().into(),
        ("capsule", _, Some(s)) => Capsule::new(s[0], s[1]).unwrap().into(),
        ("ellipsoid", _, Some(s)) => Ellipsoid::new(DVec3::from(s)).unwrap().into(),
        ("cylinder", _, Some(s)) => Cylinder::new(s[0], s[1]).unwrap().into(),
        ("box", _, Some(s)) => Cuboid::new(DVec3::from(s)).unwrap().into(),
        _ => panic!("unexpected geom {}", g.kind),
    }
}

/// A reference geom's pose: its quaternion, or else one rebuilt from MuJoCo's row-major `geom_xmat`.
fn reference_pose(g: &ConvexGeom) -> Pose {
    let q = match g.quat {
        Some([w, x, y, z]) => DQuat::from_xyzw(x, y, z, w),
        None => DQuat::from_mat3(&glam::DMat3::from_cols_array(&g.mat).transpose()).normalize(),
    };
    Pose::new(DVec3::from(g.pos), q).unwrap()
}

/// Whether our contact (A = MuJoCo's geom 1, so our normal is MuJoCo's frame negated) is MuJoCo's within
/// `(position, depth, normal)`.
/// Fails with every differing case listed, and how many there are of `total`.
fn assert_no_failures(failures: &[String], total: usize) {
    assert!(failures.is_empty(), "{} of {total} cases differ:\n{}", failures.len(), failures.join("\n"));
}

fn close_to(o: &Contact, c: &MujocoContact, (pos, depth, normal): (f64, f64, f64)) -> bool {
    (o.position - DVec3::from(c.pos)).length() < pos
        && (o.penetration + c.dist).abs() < depth
        && (o.normal + DVec3::from(c.normal)).length() < normal
}

/// MuJoCo 4.0's box–mesh and mesh–mesh contacts (`mjc_Convex`: native GJK/EPA and the multiccd polygon clipping;
/// `scripts/mujoco_convex_pairs.py`): random poses of the convex scene's hulls pushed into contact, hulls resting
/// face on face (also tilted) and edge on face, the same with a cube mesh, a primitive box against hulls and the
/// cube, and separated pairs. Each MuJoCo contact must be matched (in any order) by position, depth and normal
/// within 1e-7. A box–mesh pair is checked in both argument orders; mesh–mesh only with A = MuJoCo's geom 1 (the
/// lower geom id), as MuJoCo's routine is not symmetric in its geoms (GJK/EPA work on geom 1 − geom 2).
///
/// The meshes are built from `vertices_f64`, MuJoCo's geom-frame vertices before it rounds them to float32: MuJoCo's
/// polygon normals, which are the normals of the clipped contacts, come from those, while its support points use
/// the float32 `vertices`. Positions and depths therefore differ by the rounding (≤ 5e-9), far inside the tolerance;
/// building from the float32 vertices instead would tilt the polygon normals by up to 7e-7.
///
/// Two documented differences remain:
/// * When face–face clipping leaves more than four points, MuJoCo keeps the quadrilateral its `polygonQuad` climb
///   finds, which depends on where each mesh polygon's vertex list starts (qhull's triangle order in MuJoCo, our
///   hull's here). Such runs must still give four contacts with MuJoCo's normal whose surface points lie on the
///   same two face planes as MuJoCo's; there are 13 of them.
/// * Hull 3 has a polygon of nearly coplanar triangles merged in one of MuJoCo's bins (`ConvexMesh::mujoco_polygons`,
///   built here in the asset's frame from the file's `quat`): it is not quite flat, and the vertex its list starts
///   at (qhull's triangle order in MuJoCo) fixes the plane that clipped points are measured against. One run clips
///   it; it must give MuJoCo's contact count and normals (within 1e-9), positions and depths within 3e-5. (With the
///   coplanar polygons of `hull_polygons`, its normal was a few 1e-4 rad off.)
#[test]
fn convex_pairs_match_mujoco() {
    let text = include_str!("data/convex_pairs_mujoco.json");
    let data: ConvexData = serde_json::from_str(text).unwrap();
    assert_eq!(data.cases.len(), 120);
    for m in &data.meshes {
        // The float32 rounding is all that separates the two vertex sets.
        for (a, b) in m.vertices.iter().zip(&m.vertices_f64) {
            assert!((DVec3::from(*a) - DVec3::from(*b)).abs().max_element() < 1e-8);
        }
    }
    let meshes = reference_hulls(&data);
    let shape = |g: &ConvexGeom| reference_shape(g, &meshes);
    let pose_of = reference_pose;
    // Contacts matched one to one within `tol` (position, depth) and `ntol` (normal; ours = sign · MuJoCo's frame).
    let matches = |ours: &[Contact], mj: &[MujocoContact], sign: f64, tol: f64, ntol: f64| {
        let mut used = vec![false; ours.len()];
        ours.len() == mj.len()
            && mj.iter().all(|c| {
                let hit = ours.iter().enumerate().position(|(k, o)| {
                    !used[k]
                        && (o.position - DVec3::from(c.pos)).abs().max_element() < tol
                        && (o.penetration + c.dist).abs() < tol
                        && (o.normal - sign * DVec3::from(c.normal)).abs().max_element() < ntol
                });
                hit.map(|k| used[k] = true).is_some()
            })
    };
    // Another quadrilateral of the same clipped polygon: MuJoCo's normal, surface points x1 = pos − ½ dist frame
    // on MuJoCo's clipping-face plane and x2 = pos + ½ dist frame on its clipped-face plane (normal −frame).
    let same_planes = |ours: &[Contact], mj: &[MujocoContact], sign: f64| {
        if ours.len() != 4 || mj.len() != 4 {
            return false;
        }
        let frame = DVec3::from(mj[0].normal);
        let surf = |pos: DVec3, dist: f64| (pos - 0.5 * dist * frame, pos + 0.5 * dist * frame);
        let mjx: Vec<(DVec3, DVec3)> = mj.iter().map(|c| surf(DVec3::from(c.pos), c.dist)).collect();
        let n1 = (mjx[2].0 - mjx[0].0).cross(mjx[3].0 - mjx[1].0).normalize();
        mj.iter().all(|c| (DVec3::from(c.normal) - frame).abs().max_element() < 1e-7)
            && ours.iter().all(|o| {
                let (x1, x2) = surf(o.position, -o.penetration);
                (sign * o.normal - frame).abs().max_element() < 1e-7
                    && n1.dot(x1 - mjx[0].0).abs() < 1e-7
                    && frame.dot(x2 - mjx[0].1).abs() < 1e-7
            })
    };
    let (mut total, mut exact, mut quads, mut merged, mut failures) = (0, 0, 0, 0, Vec::new());
    for (i, case) in data.cases.iter().enumerate() {
        let (s1, s2) = (shape(&case.geoms[0]), shape(&case.geoms[1]));
        let (p1, p2) = (pose_of(&case.geoms[0]), pose_of(&case.geoms[1]));
        // A = MuJoCo's geom 1: our normal (from B to A) is −frame; swapped, it is +frame.
        let mut runs = vec![(mj(&s1, &p1, &s2, &p2), -1.0)];
        if case.geoms[0].kind != case.geoms[1].kind {
            runs.push((mj(&s2, &p2, &s1, &p1), 1.0));
        }
        let hull3 = case.geoms.iter().any(|g| g.mesh == Some(3));
        for (ours, sign) in runs {
            total += 1;
            if matches(&ours, &case.contacts, sign, 1e-7, 1e-7) {
                exact += 1;
            } else if same_planes(&ours, &case.contacts, sign) {
                quads += 1;
            } else if hull3 && matches(&ours, &case.contacts, sign, 3e-5, 1e-9) {
                merged += 1;
            } else {
                failures.push(format!("case {i} ({}), sign {sign}: ours {ours:?}", case.kind));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {total} runs differ:\n{}", failures.len(), failures.join("\n"));
    assert_eq!((total, exact, quads, merged), (140, 126, 13, 1));
}

/// MuJoCo 4.0's contacts for the other pairs it sends to `mjc_Convex` (`scripts/mujoco_primitive_pairs.py`): sphere,
/// capsule, ellipsoid and cylinder against ellipsoids, cylinders, boxes and a hull, pushed into contact at random
/// orientations, apart, and resting (cylinders lying, standing and crossed on boxes and cylinders, a capsule on a
/// cylinder, ...). A runs as MuJoCo's geom 1.
///
/// * Every pair but cylinder against cylinder, box or mesh: MuJoCo's single native-GJK/EPA contact. Same count;
///   depth within 1e-8, position within 1e-7 m and normal within 1e-6; 54 of these 69 cases (separated ones included)
///   within 1e-9 in all three. The other 15 are against the hull (float32 vertices, qhull's polygons). The primitives'
///   poses are MuJoCo's quaternions, so their matrices are its `geom_xmat` bit for bit.
/// * Cylinder against cylinder, box or mesh: MuJoCo 4.0.1's multi-contact step (`convex/multicontact.rs`): a cap on a
///   face clipped as a 16-gon, a side along a face as its surface line. MuJoCo's contact count in every case and
///   kind (92 contacts), the deepest depth within 2e-7 m, and 44 of the 53 cases within 1e-9 in all three (caps in detail:
///   `cylinder_caps_match_mujoco`; sides: `cylinder_sides_match_mujoco`).
#[test]
fn primitive_convex_pairs_match_mujoco() {
    let text = include_str!("data/primitive_pairs_mujoco.json");
    let data: ConvexData = serde_json::from_str(text).unwrap();
    assert_eq!(data.cases.len(), 122);
    let hulls = reference_hulls(&data);
    let shape = |g: &ConvexGeom| reference_shape(g, &hulls);
    let pose_of = reference_pose;
    let polygon = |k: &str| matches!(k, "cylinder" | "box" | "mesh");
    let (mut failures, mut counts, mut single, mut exact) = (Vec::new(), [0usize; 2], 0, 0);
    let mut clipped_exact = 0;
    let mut by_kind = std::collections::BTreeMap::<&str, [usize; 2]>::new();
    for (i, case) in data.cases.iter().enumerate() {
        let [g1, g2] = &case.geoms;
        let ours = mj(&shape(g1), &pose_of(g1), &shape(g2), &pose_of(g2));
        let clipped =
            (g1.kind == "cylinder" && polygon(&g2.kind)) || (g2.kind == "cylinder" && polygon(&g1.kind));
        let ok = if clipped {
            let deepest = |it: &mut dyn Iterator<Item = f64>| it.fold(0.0f64, f64::max);
            counts[0] += ours.len();
            counts[1] += case.contacts.len();
            let k = by_kind.entry(case.kind.as_str()).or_default();
            k[0] += ours.len();
            k[1] += case.contacts.len();
            clipped_exact += usize::from(
                ours.len() == case.contacts.len()
                    && case.contacts.iter().all(|c| ours.iter().any(|o| close_to(o, c, (1e-9, 1e-9, 1e-9)))),
            );
            ours.len() == case.contacts.len()
                && (deepest(&mut ours.iter().map(|c| c.penetration))
                    - deepest(&mut case.contacts.iter().map(|c| -c.dist)))
                .abs()
                    // One cylinder lying on the hull ends on a neighbouring hull face (float32 vertices): 1e-7 m.
                    < 2e-7
        } else {
            let same = |tol| {
                ours.len() == case.contacts.len()
                    && ours.iter().zip(&case.contacts).all(|(o, c)| close_to(o, c, tol))
            };
            single += 1;
            exact += usize::from(same((1e-9, 1e-9, 1e-9)));
            same((1e-7, 1e-8, 1e-6))
        };
        if !ok {
            failures.push(format!("case {i} ({}): MuJoCo {:?}\n  ours {ours:?}", case.kind, case.contacts));
        }
    }
    assert_no_failures(&failures, data.cases.len());
    assert_eq!(counts, [92, 92], "contacts of the clipped pairs (ours, MuJoCo's) by kind: {by_kind:?}");
    assert_eq!((single, exact), (69, 54), "single-contact cases, and those within 1e-9");
    assert_eq!(clipped_exact, 44, "clipped cases within 1e-9");
}

/// MuJoCo 4.0's native GJK/EPA on smooth shapes, where EPA runs long (`scripts/mujoco_smooth_pairs.py`): ellipsoid
/// pairs at random orientations (`random`), both near the world axes and offset along one (`aligned`), two equal
/// ellipsoids turned about z side by side in a plane, barely overlapping (`planar`, as in MuJoCo's particle_free2d), a
/// sphere against an ellipsoid (`sphere`: GJK's distance to the sphere's centre, EPA when it lies inside), and the
/// 1 mm thin leaves of MuJoCo's replicate/leaves.xml at random orientations, overlapping (`thin`) or placed where
/// MuJoCo's signed distance is between −2e-6 and 0 m (`grazing`).
///
/// * `random` and `aligned`: every contact within 1e-12 m in position and depth and 1e-12 in the normal.
/// * `planar`: every contact count and depth (to 1e-12 m) equal; 35 of the 38 cases within 1e-12 in everything. In
///   the others EPA ends on the mirror image (in z) of MuJoCo's final face, at the same depth: the position differs by
///   up to 1.6e-7 m in z and the normal by 0.012. Which of the two faces comes out first follows rounding in the
///   support directions, which MuJoCo's vectorised code sums in another order.
/// * `sphere`: depths within 1e-10 m, 51 of the 60 contacts within 1e-12 in everything (18 before GJK followed 4.0.1's
///   machine code). GJK's distance converges on sliver triangles of support points 1e-6 m apart, where the witness
///   points (and so the normal) follow the last triangle's coordinates.
/// * `thin`: every case within 1e-10, 106 of the 107 within 1e-12.
/// * `grazing`: every contact within 1e-10 m in position and depth and 1e-8 in the normal, which is the direction of a
///   witness difference as short as the depth (down to 3e-8 m): rounding in coordinates of 0.1 m moves it by 1e-17
///   over that length. 42 of the 80 are within 1e-12 in everything (10 before).
///
/// Each of these MuJoCo 4.0 rules, unlike the 3.x source we ported, fails cases here when undone (measured):
/// * GJK has no `gjkIntersect` backup: it iterates plain GJK until its simplex is a tetrahedron around the origin.
///   With the 3.x backup 160 cases differ; with the backup taking the tetrahedron in either orientation (our port
///   until 2026-12-05), 20 (`thin` and `grazing`);
/// * EPA drops the contact when its first support lies below the first face by more than its tolerance (3.x: by
///   1e-10): 1 `grazing` case;
/// * EPA stops on this iteration's gap, not on the best upper bound so far: 26;
/// * a triangle from GJK whose normal supports pass beside it gets the convex hexahedron (`polytope3`): 14;
/// * GJK's triangle coordinates are divided by the sum of their cofactors (`s2d`): 6;
/// * a segment from GJK whose support points around it do not surround it gets one of them pushed out (`polytope2`):
///   the 8 `planar` cases kept for it lose their contact.
///
/// * GJK's next point is the origin's projection onto the reduced simplex's line or plane, not its weighted vertices,
///   and `S2D` works in differences from the projection, as MuJoCo 4.0.1's machine code does (`convex/gjk.rs`): with
///   the 3.x arithmetic 4 cases fail and 110 fewer are within 1e-12.
///
/// The counts of the rules before the last were measured before the `thin` and `grazing` cases were added.
#[test]
fn smooth_pairs_match_mujoco() {
    let data: ConvexData = serde_json::from_str(include_str!("data/smooth_pairs_mujoco.json")).unwrap();
    assert_eq!(data.cases.len(), 425);
    let shape = |g: &ConvexGeom| reference_shape(g, &[]);
    let mut by_kind = std::collections::BTreeMap::<&str, [usize; 2]>::new();
    let mut failures = Vec::new();
    for (i, case) in data.cases.iter().enumerate() {
        let [g1, g2] = &case.geoms;
        let ours = mj(&shape(g1), &reference_pose(g1), &shape(g2), &reference_pose(g2));
        let tol = match case.kind.as_str() {
            "sphere" => (1e-6, 1e-10, 1e-5),
            "planar" => (2e-7, 1e-12, 0.02),
            // The normal of a contact 1e-8 deep is the direction of a witness difference that short: rounding in
            // coordinates of 0.1 m moves it by about 1e-17 / 1e-8.
            "grazing" => (1e-10, 1e-10, 1e-8),
            _ => (1e-10, 1e-10, 1e-10),
        };
        let same = |tol| {
            ours.len() == case.contacts.len()
                && ours.iter().zip(&case.contacts).all(|(o, c)| close_to(o, c, tol))
        };
        let counts = by_kind.entry(case.kind.as_str()).or_default();
        counts[0] += 1;
        counts[1] += usize::from(same((1e-12, 1e-12, 1e-12)));
        if !same(tol) {
            failures.push(format!("case {i} ({}): MuJoCo {:?}\n  ours {ours:?}", case.kind, case.contacts));
        }
    }
    assert_no_failures(&failures, data.cases.len());
    let counts: Vec<_> = by_kind.into_iter().collect();
    assert_eq!(
        counts,
        [
            ("aligned", [80, 80]),
            ("grazing", [80, 42]),
            ("planar", [38, 35]),
            ("random", [60, 60]),
            ("sphere", [60, 51]),
            ("thin", [107, 106]),
        ],
        "cases, within 1e-12"
    );
}

/// `<flag multiccd="disable"/>` (`multi_contact = false`): box–mesh and mesh–mesh keep MuJoCo's single EPA contact.
#[test]
fn mesh_pairs_without_multiccd_give_one_contact() {
    let cube = |h: f64| -> Shape {
        ConvexMesh::from_points(&Cuboid::new(DVec3::splat(h)).unwrap().corners()).unwrap().into()
    };
    let (big, small) = (cube(0.5), cube(0.1));
    let resting = at([0.05, -0.02, 0.599]);
    let multi = mj(&big, &Pose::IDENTITY, &small, &resting);
    assert_eq!(multi.len(), 4);
    let single = ContactRequest { multi_contact: false, ..MujocoDispatcher.default_request() };
    let one = MujocoDispatcher.contacts(&big, &Pose::IDENTITY, &small, &resting, &single).unwrap().contacts;
    assert_eq!(one.len(), 1);
    assert!((one[0].penetration - 0.001).abs() < 1e-9);
    let bx: Shape = Cuboid::new(DVec3::splat(0.5)).unwrap().into();
    assert_eq!(
        MujocoDispatcher.contacts(&bx, &Pose::IDENTITY, &small, &resting, &single).unwrap().contacts.len(),
        1
    );
}

/// Box–mesh and mesh–mesh in MuJoCo mode at random poses, coincident centres, touching and far apart: never a panic,
/// at most four contacts, finite values and unit normals.
#[test]
fn mesh_pairs_are_robust_at_random_poses() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let hull_pts: Vec<DVec3> = (0..14).map(|_| DVec3::new(rnd(), rnd(), rnd()) * 0.1).collect();
    let hull: Shape = ConvexMesh::from_points(&hull_pts).unwrap().into();
    let cube: Shape =
        ConvexMesh::from_points(&Cuboid::new(DVec3::splat(0.5)).unwrap().corners()).unwrap().into();
    let bx: Shape = Cuboid::new(DVec3::new(0.3, 0.1, 0.2)).unwrap().into();
    let shapes = [&hull, &cube, &bx];
    for i in 0..3000 {
        let (a, b) = (shapes[i % 3], shapes[(i / 3) % 2]);
        let q = |r: &mut dyn FnMut() -> f64| DQuat::from_xyzw(r(), r(), r(), r() + 1e-3).normalize();
        let pa = pose([0.0, 0.0, 0.0], q(&mut rnd));
        let scale = [0.0, 1e-9, 0.05, 0.3, 1.0, 10.0][i % 6];
        let pb = pose([rnd() * scale, rnd() * scale, rnd() * scale], q(&mut rnd));
        let cs = mj(a, &pa, b, &pb);
        assert!(cs.len() <= 4, "case {i}: {} contacts", cs.len());
        for c in &cs {
            assert!(c.position.is_finite() && c.penetration.is_finite(), "case {i}: {c:?}");
            assert!((c.normal.length() - 1.0).abs() < 1e-9, "case {i}: {c:?}");
        }
    }
}

#[derive(serde::Deserialize)]
struct BoxBoxData {
    cases: Vec<BoxBoxCase>,
}

#[derive(serde::Deserialize)]
struct BoxBoxCase {
    geoms: [BoxGeom; 2],
    contacts: Vec<MujocoContact>,
}

#[derive(serde::Deserialize)]
struct BoxGeom {
    size: [f64; 3],
    pos: [f64; 3],
    mat: [f64; 9],
    /// The quaternion MuJoCo made `mat` from (w first).
    quat: [f64; 4],
}

/// MuJoCo 4.0's box–box (`scripts/mujoco_box_box.py`: random poses pushed into contact, face on face with tilts and
/// offsets, crossed edges, separated pairs): the same contacts, with positions, depths and normals within 1e-9, in
/// the same order (our routine gets the geoms in MuJoCo's order and reports in MuJoCo's convention here), 93 of the
/// 155 cases bit for bit. 1 to 8 contacts per pair.
#[test]
fn box_box_matches_mujoco() {
    let data: BoxBoxData = serde_json::from_str(include_str!("data/box_box_mujoco.json")).unwrap();
    assert_eq!(data.cases.len(), 155);
    let (mut counts, mut reordered, mut exact) = ([0usize; 9], Vec::new(), 0);
    for (k, case) in data.cases.iter().enumerate() {
        let [g1, g2] = &case.geoms;
        let shape = |g: &BoxGeom| -> Shape { Cuboid::new(DVec3::from(g.size)).unwrap().into() };
        let pose = |g: &BoxGeom| {
            let [w, x, y, z] = g.quat;
            let q = DQuat::from_xyzw(x, y, z, w);
            // The quaternion makes MuJoCo's matrix bit for bit (row-major in the file).
            assert_eq!(signorini_geometry::rotation::quat_to_mat(q).transpose().to_cols_array(), g.mat);
            Pose::new(DVec3::from(g.pos), q).unwrap()
        };
        let (s1, s2) = (shape(g1), shape(g2));
        let (ours, swapped) =
            signorini_collision::pairs::mujoco::mujoco_contacts(&s1, &pose(g1), &s2, &pose(g2)).unwrap();
        assert!(!swapped);
        assert_eq!(ours.len(), case.contacts.len(), "case {k}: {ours:?} vs {:?}", case.contacts);
        counts[ours.len()] += 1;
        // One to one; and in MuJoCo's order, except where the reference face is a rounding tie.
        let close = |o: &signorini_collision::pairs::mujoco::MjContact, c: &MujocoContact| {
            (o.dist - c.dist).abs() < 1e-9
                && (o.pos - DVec3::from(c.pos)).abs().max_element() < 1e-9
                && (o.normal - DVec3::from(c.normal)).abs().max_element() < 1e-9
        };
        let mut used = vec![false; ours.len()];
        for c in &case.contacts {
            let hit = (0..ours.len()).find(|&i| !used[i] && close(&ours[i], c));
            assert!(hit.is_some(), "case {k}: no match for {:?} in {ours:?}", (c.dist, c.pos, c.normal));
            used[hit.unwrap()] = true;
        }
        if !ours.iter().zip(&case.contacts).all(|(o, c)| close(o, c)) {
            reordered.push(k);
        }
        let bits = |o: &signorini_collision::pairs::mujoco::MjContact, c: &MujocoContact| {
            o.dist == c.dist && o.pos.to_array() == c.pos && o.normal.to_array() == c.normal
        };
        if ours.iter().zip(&case.contacts).all(|(o, c)| bits(o, c)) {
            exact += 1;
        }
    }
    println!("box-box: {exact} of {} cases equal to MuJoCo's bit for bit", data.cases.len());
    assert!(
        counts[0] >= 1 && counts[1] > 50 && counts[4] > 10 && counts[5..].iter().sum::<usize>() >= 10,
        "{counts:?}"
    );
    // Case 75 (two boxes with the same orientation, where each face clipped against the other gives the same
    // rectangle) is in MuJoCo's order since the boxes are posed by MuJoCo's quaternions: rebuilt from the matrices,
    // rounding chose the other reference face.
    assert_eq!(reordered, Vec::<usize>::new());
    assert_eq!(
        exact, 93,
        "cases equal to MuJoCo's bit for bit (28 with poses read back from the matrices, 73 without the second \
         normalisation of the normals)"
    );
}

/// A cylinder's cap resting on a box face or on another cylinder's cap, inside the face, across an edge or a corner,
/// upright or upside down, tilted by up to 2° (`scripts/mujoco_cylinder_caps.py`): MuJoCo 4.0.1 clips the cap as a
/// 16-gon (`convex/multicontact.rs`). Every case has MuJoCo's contact count and normal; 43 of the 48 have each contact
/// equal to MuJoCo's to 1e-9 (position, depth). The steps that brought them there, from 34: the cap's vertices from
/// MuJoCo's 15-digit cosine tables, `mju_normalize3` multiplying by the reciprocal of the norm (3), `polygonClip`'s
/// crossing at `d_P / (d_P − d_Q)` and its witness points (3), the cap normal from the support points' cap ids
/// (1), and the geoms posed by the quaternions MuJoCo's matrices came from, not by ones read back from the matrices
/// (1). In the other 5 MuJoCo keeps other points of the same clipped polygon: more than four are left, and which
/// quadrilateral `polygonQuad`'s climb ends on follows the last bits of the clipped points (about 1e-17 m apart from
/// ours in the points that agree).
#[test]
fn cylinder_caps_match_mujoco() {
    let data: ConvexData = serde_json::from_str(include_str!("data/cylinder_caps_mujoco.json")).unwrap();
    assert_eq!(data.cases.len(), 48);
    let shape = |g: &ConvexGeom| reference_shape(g, &[]);
    let pose_of = reference_pose;
    let (mut exact, mut others) = (0, Vec::new());
    for (i, case) in data.cases.iter().enumerate() {
        let [g1, g2] = &case.geoms;
        let ours = mj(&shape(g1), &pose_of(g1), &shape(g2), &pose_of(g2));
        assert_eq!(ours.len(), case.contacts.len(), "case {i} ({}): {ours:?}", case.kind);
        for c in &case.contacts {
            let n = -DVec3::from(c.normal);
            assert!(ours.iter().all(|o| (o.normal - n).length() < 1e-9), "case {i} ({}): normals", case.kind);
        }
        let same = case.contacts.iter().all(|c| ours.iter().any(|o| close_to(o, c, (1e-9, 1e-9, 1e-9))));
        if same {
            exact += 1;
        } else {
            others.push(format!("{i} ({})", case.kind));
        }
    }
    println!("cylinder caps: {exact} of {} cases equal to MuJoCo's; others: {others:?}", data.cases.len());
    assert_eq!(exact, 43, "cases that differ: {others:?}");
}

/// A capsule lying along a cylinder's cap or a mesh face, inside it, across one rim or both, tilted by up to 4.5°
/// (within MuJoCo's edge tolerance) or 7–9° about a random horizontal axis; then a horizontal capsule pushed sideways
/// against an upright cylinder, below its rim or across it (`scripts/mujoco_capsule_edges.py`). MuJoCo 4.0.1 clips the
/// capsule's surface line through the contact's witness point by the face or the cap whose rim it meets
/// (`convex/multicontact.rs`), giving two contacts each at its own depth, or the same point twice when one end lies
/// above the face.
///
/// Every case has MuJoCo's contact count, and its contacts as a set within 1e-7 m in position, 1e-9 in depth and
/// 1e-9 in the normal (1e-7 on a mesh, whose face normals MuJoCo takes from float32 vertices); 70 of the 84 within
/// 1e-12. The order of the two contacts of a line across a rim follows the last bits of the two crossings of the
/// same clipping plane (the farther pair is kept): MuJoCo's in 62 of the 64 cylinder cases.
#[test]
fn capsule_edges_match_mujoco() {
    let data: ConvexData = serde_json::from_str(include_str!("data/capsule_edges_mujoco.json")).unwrap();
    assert_eq!(data.cases.len(), 84);
    let meshes = reference_hulls(&data);
    let shape = |g: &ConvexGeom| reference_shape(g, &meshes);
    let pose_of = reference_pose;
    let close = close_to;
    let (mut failures, mut counts, mut cylinder_in_order, mut exact) = (Vec::new(), [0usize; 3], 0, 0);
    for (i, case) in data.cases.iter().enumerate() {
        let [g1, g2] = &case.geoms;
        let ours = mj(&shape(g1), &pose_of(g1), &shape(g2), &pose_of(g2));
        let theirs = &case.contacts;
        counts[theirs.len()] += 1;
        // A mesh face's normal comes from MuJoCo's float32 vertices: 1e-8 off our double one.
        let tol = if g2.kind == "mesh" { (1e-7, 1e-9, 1e-7) } else { (1e-7, 1e-9, 1e-9) };
        let in_order = ours.len() == theirs.len() && ours.iter().zip(theirs).all(|(o, c)| close(o, c, tol));
        let reversed =
            ours.len() == theirs.len() && ours.iter().rev().zip(theirs).all(|(o, c)| close(o, c, tol));
        if !(in_order || reversed) {
            failures.push(format!("case {i} ({}):\n  MuJoCo {theirs:?}\n  ours {ours:?}", case.kind));
        }
        if in_order && g2.kind == "cylinder" {
            cylinder_in_order += 1;
        }

        if in_order && ours.iter().zip(theirs).all(|(o, c)| close(o, c, (1e-12, 1e-12, 1e-12))) {
            exact += 1;
        }
    }
    assert_no_failures(&failures, data.cases.len());
    assert_eq!(exact, 70, "cases within 1e-12");
    assert_eq!(counts, [1, 28, 55], "cases by MuJoCo's contact count");
    assert_eq!(cylinder_in_order, 62, "cylinder cases in MuJoCo's order (of 64)");
}

/// A cylinder lying on its side along a box face, a mesh face or another cylinder's cap (listed first or second),
/// inside it, across one rim or both, level or tilted by up to 8° (`scripts/mujoco_cylinder_sides.py`): MuJoCo 4.0.1
/// clips the cylinder's side line, moved towards the face perpendicular to the axis, by the face
/// (`convex/multicontact.rs`). Every case has MuJoCo's contacts within 1e-7 m in position and 1e-9 in depth and
/// normal, 58 of the 72 within 1e-12. Whether MuJoCo clips or keeps EPA's single contact follows which cap each of
/// the final EPA face's support points lies on (the cylinder's feature is its side when they lie on both): a tilted
/// cylinder lying on another one's cap and listed second keeps its single contact in three cases, as MuJoCo does.
#[test]
fn cylinder_sides_match_mujoco() {
    let data: ConvexData = serde_json::from_str(include_str!("data/cylinder_sides_mujoco.json")).unwrap();
    assert_eq!(data.cases.len(), 72);
    let meshes = reference_hulls(&data);
    let shape = |g: &ConvexGeom| reference_shape(g, &meshes);
    let pose_of = reference_pose;
    let close = close_to;
    let (mut failures, mut exact) = (Vec::new(), 0);
    for (i, case) in data.cases.iter().enumerate() {
        let [g1, g2] = &case.geoms;
        let ours = mj(&shape(g1), &pose_of(g1), &shape(g2), &pose_of(g2));
        let theirs = &case.contacts;
        let tol = (1e-7, 1e-9, 1e-9);
        let in_order = ours.len() == theirs.len() && ours.iter().zip(theirs).all(|(o, c)| close(o, c, tol));
        let reversed =
            ours.len() == theirs.len() && ours.iter().rev().zip(theirs).all(|(o, c)| close(o, c, tol));
        if !(in_order || reversed) {
            failures.push(i);
        }
        if in_order && ours.iter().zip(theirs).all(|(o, c)| close(o, c, (1e-12, 1e-12, 1e-12))) {
            exact += 1;
        }
    }
    println!("cylinder sides: {exact} of 72 cases equal to MuJoCo's to 1e-12");
    assert!(failures.is_empty(), "cases that differ from MuJoCo's: {failures:?}");
    assert_eq!(exact, 58);
}

/// MuJoCo 4.0.1's capsule–capsule (`scripts/mujoco_capsule_pairs.py`): its `mjraw_CapsuleCapsule` takes the closest
/// points of the core segments from `mjc_segWeights` (Ericson's clamped minimiser on the segments `pos ∓ h z`, with
/// two pairs for segments whose `‖d₁ × d₂‖² ≤ 1e-8 ‖d₁‖² ‖d₂‖²`), not the public source's solve on the half-axes and
/// its four parallel candidates. Every case, crossed, parallel (two contacts), skew, end to end and T-shaped, gives
/// MuJoCo's contacts bit for bit: depth, position and normal. With the public source's arithmetic the depths were an
/// ulp off (the control suite's humanoid parted at step 53, at its first capsule–capsule contact).
#[test]
fn capsule_pairs_match_mujoco_bit_for_bit() {
    let data: ConvexData = serde_json::from_str(include_str!("data/capsule_pairs_mujoco.json")).unwrap();
    assert_eq!(data.cases.len(), 140);
    let shape = |g: &ConvexGeom| reference_shape(g, &[]);
    // MuJoCo's own `xquat`, not divided by its norm again (`Pose::new` would move its last bits).
    let exact_pose = |g: &ConvexGeom| {
        let [w, x, y, z] = g.quat.unwrap();
        Pose { translation: DVec3::from(g.pos), rotation: DQuat::from_xyzw(x, y, z, w) }
    };
    let mut failures = Vec::new();
    let mut contacts = 0;
    for (i, case) in data.cases.iter().enumerate() {
        let [g1, g2] = &case.geoms;
        let ours = mj(&shape(g1), &exact_pose(g1), &shape(g2), &exact_pose(g2));
        contacts += ours.len();
        let same = ours.len() == case.contacts.len()
            && ours.iter().zip(&case.contacts).all(|(o, c)| {
                o.position == DVec3::from(c.pos)
                    && -o.penetration == c.dist
                    && -o.normal == DVec3::from(c.normal)
            });
        if !same {
            failures.push(format!("case {i} ({}): MuJoCo {:?}\n  ours {ours:?}", case.kind, case.contacts));
        }
    }
    assert_no_failures(&failures, data.cases.len());
    assert_eq!(contacts, 162);
}

/// Geoms within the pair's margin (`mjc_Convex`): the contacts' distance is the gap between the surfaces and their
/// normal points from the lower geom to the upper one whether they overlap or not. MuJoCo 4.0.1 on these poses (pair
/// margin 0.01, gaps −0.004, 0.004 and 0.008; `mj_forward` on the same geoms): a capsule lying
/// across a cylinder's cap 2 contacts, a sphere above it 1, a cylinder standing on a box 4, one lying on it 2, a capsule
/// across a cube mesh 2, a cube mesh on a cube mesh 4, every one at `dist = gap` (the meshes' to 3e-9: MuJoCo's
/// vertices are single precision), every normal from geom 1 down to geom 2; none at gap 0.012. Two causes made the
/// round geoms' contacts 0.5·margin too deep: `mjc_ccd` shrinks a sphere or capsule to its core with its half
/// margin in its radius and no margin in its support (ours added it to both), and a capsule's edge in the
/// multi-contact step is its own surface line, not that of the capsule grown by the half margin (gymnasium-robotics'
/// Adroit pen: two thumb capsules 1.4 mm from the pen, a cylinder, with a 1 mm margin made contacts at 0.96 mm where
/// MuJoCo makes none). And every clipped contact at a positive gap had its normal reversed (the Adroit hammer).
#[test]
fn contacts_within_a_margin_have_the_gap_as_their_distance() {
    let corner = |i: u32, bit: u32| if i & bit == 0 { -0.1 } else { 0.1 };
    let cube_points: Vec<DVec3> =
        (0..8).map(|i| DVec3::new(corner(i, 1), corner(i, 2), corner(i, 4))).collect();
    let cube: Shape = ConvexMesh::from_points(&cube_points).unwrap().into();
    let big_cylinder: Shape = Cylinder::new(0.1, 0.1).unwrap().into();
    let cylinder: Shape = Cylinder::new(0.05, 0.05).unwrap().into();
    let capsule: Shape = Capsule::new(0.02, 0.05).unwrap().into();
    let sphere: Shape = Sphere::new(0.02).unwrap().into();
    let slab: Shape = Cuboid::new(DVec3::new(0.2, 0.2, 0.1)).unwrap().into();
    let lying = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2);
    let upright = DQuat::IDENTITY;
    let request = ContactRequest { margin: 0.01, ..MujocoDispatcher.default_request() };
    // (geom above, its orientation, the height of its centre at gap 0, geom below, MuJoCo's contact count); the
    // geoms go in MuJoCo's type order, the upper one first but for the two meshes.
    let cases = [
        ("capsule on a cylinder's cap", &capsule, lying, 0.12, &big_cylinder, 2),
        ("sphere on a cylinder's cap", &sphere, upright, 0.12, &big_cylinder, 1),
        ("cylinder standing on a box", &cylinder, upright, 0.15, &slab, 4),
        ("cylinder lying on a box", &cylinder, lying, 0.15, &slab, 2),
        ("capsule on a cube mesh", &capsule, lying, 0.12, &cube, 2),
        ("cube mesh on a cube mesh", &cube, upright, 0.2, &cube, 4),
    ];
    for (name, top, q, height, bottom, count) in cases {
        for gap in [-0.004, 0.004, 0.008, 0.012] {
            let p = pose([0.01, 0.02, height + gap], q);
            let found = if std::ptr::eq(top, bottom) {
                MujocoDispatcher.contacts(bottom, &Pose::IDENTITY, top, &p, &request)
            } else {
                MujocoDispatcher.contacts(top, &p, bottom, &Pose::IDENTITY, &request)
            };
            let cs = found.unwrap().contacts;
            if gap > 0.01 {
                assert!(cs.is_empty(), "{name} at {gap}: beyond the margin, {cs:?}");
                continue;
            }
            assert_eq!(cs.len(), count, "{name} at {gap}: {cs:?}");
            for c in &cs {
                assert!((c.penetration + gap).abs() < 1e-12, "{name} at {gap}: {}", c.penetration);
                // From the lower geom to the upper one (B → A), as MuJoCo's frame from geom 1 to geom 2 is.
                let up = if std::ptr::eq(top, bottom) { -c.normal.z } else { c.normal.z };
                assert!(up > 1.0 - 1e-12, "{name} at {gap}: normal {}", c.normal);
            }
        }
    }
}
