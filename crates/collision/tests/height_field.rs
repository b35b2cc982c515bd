//! Height fields against convex shapes: distances against closed forms and a brute force over every prism, contacts
//! in both dialects against the plane they reduce to when the field is flat.

use glam::{DQuat, DVec3};
use signorini_collision::Dialect;
use signorini_collision::query::{DistanceRequest, distance};
use signorini_geometry::{Capsule, ConvexMesh, Cuboid, HeightField, Pose, Shape, Sphere};

fn flat(h: f64) -> Shape {
    HeightField::new(6, 5, vec![h; 30], 1.0, 1.2, 0.3).unwrap().into()
}

/// A bumpy field: `z = 0.1 sin(2x) cos(3y)` sampled on 9 × 7 points.
fn bumpy() -> HeightField {
    let (rows, cols, hx, hy) = (7, 9, 1.0, 0.8);
    let mut z = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let x = -hx + 2.0 * hx * c as f64 / (cols - 1) as f64;
            let y = -hy + 2.0 * hy * r as f64 / (rows - 1) as f64;
            z.push(0.1 * (2.0 * x).sin() * (3.0 * y).cos() + 0.05);
        }
    }
    HeightField::new(rows, cols, z, hx, hy, 0.2).unwrap()
}

fn prism_mesh(p: [DVec3; 6]) -> Shape {
    ConvexMesh::from_points(&p).unwrap().into()
}

/// Flat field: the distance of a sphere, a box and a capsule above it is the closed form, with the field's pose
/// applied and witnesses on the surface.
#[test]
fn flat_field_distance_is_the_closed_form() {
    let field = flat(0.1);
    let pose_h = Pose::new(DVec3::new(0.3, -0.2, 0.5), DQuat::from_rotation_z(0.4)).unwrap();
    let up = pose_h.transform_vector(DVec3::Z);
    let cases: [(Shape, f64); 3] = [
        (Sphere::new(0.1).unwrap().into(), 0.1),
        (Cuboid::new(DVec3::new(0.1, 0.05, 0.08)).unwrap().into(), 0.08),
        (Capsule::new(0.05, 0.2).unwrap().into(), 0.25),
    ];
    for (shape, bottom) in cases {
        for gap in [0.2, 0.01, -0.02] {
            let centre = pose_h.transform_point(DVec3::new(0.1, 0.2, 0.1 + bottom + gap));
            let pose_b = Pose::new(centre, pose_h.rotation).unwrap();
            let d = distance(&field, &pose_h, &shape, &pose_b, &DistanceRequest::default()).unwrap();
            assert!((d.distance - gap).abs() < 1e-9, "{shape:?} gap {gap}: {d:?}");
            assert!((d.normal - up).length() < 1e-9, "{d:?}");
            let swapped = distance(&shape, &pose_b, &field, &pose_h, &DistanceRequest::default()).unwrap();
            assert!((swapped.distance - gap).abs() < 1e-9 && (swapped.normal + up).length() < 1e-9);
        }
    }
}

/// Bumpy field: the pruned distance equals the minimum over every prism (each as a convex hull), for shapes above,
/// beside and sunk into the field.
#[test]
fn bumpy_field_distance_matches_every_prism() {
    let hf = bumpy();
    let field: Shape = hf.clone().into();
    let pose_h = Pose::new(DVec3::new(0.0, 0.0, 0.2), DQuat::from_rotation_x(0.1)).unwrap();
    let shapes: [Shape; 3] = [
        Sphere::new(0.07).unwrap().into(),
        Cuboid::new(DVec3::new(0.06, 0.04, 0.05)).unwrap().into(),
        Capsule::new(0.03, 0.1).unwrap().into(),
    ];
    let mut prisms = Vec::new();
    for r in 0..hf.rows() - 1 {
        for c in 0..hf.cols() - 1 {
            for k in 0..2 {
                prisms.push(prism_mesh(hf.prism(r, c, k).unwrap()));
            }
        }
    }
    let mut checked = 0;
    for (i, shape) in shapes.iter().enumerate() {
        for (x, y, z) in
            [(0.1, 0.2, 0.35), (-0.6, 0.3, 0.28), (1.3, 0.1, 0.3), (0.4, -0.5, 0.25), (0.2, 0.1, 0.22)]
        {
            let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.3 * i as f64, 0.2, -0.5);
            let pose_b = Pose::new(DVec3::new(x, y, z), q).unwrap();
            let d = distance(&field, &pose_h, shape, &pose_b, &DistanceRequest::default()).unwrap();
            let brute = prisms
                .iter()
                .map(|p| distance(p, &pose_h, shape, &pose_b, &DistanceRequest::default()).unwrap().distance)
                .fold(f64::INFINITY, f64::min);
            assert!(
                (d.distance - brute).abs() < 1e-9,
                "{shape:?} at ({x}, {y}, {z}): {} vs {brute}",
                d.distance
            );
            let gap = d.point_b - d.point_a;
            assert!((gap - d.distance * d.normal).length() < 1e-9, "{d:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 15);
}

/// Flat field in both dialects: a sphere sunk 1 cm has contacts whose deepest one is the plane's (depth, normal up
/// from the field, i.e. from B to A pointing down when the field is A), and a lifted sphere has none; so does a
/// box sunk 5 mm, whose deepest contacts are 5 mm deep.
#[test]
fn flat_field_contacts_in_both_dialects() {
    let field = flat(0.1);
    let pose_h = Pose::IDENTITY;
    let ball: Shape = Sphere::new(0.1).unwrap().into();
    let cube: Shape = Cuboid::new(DVec3::splat(0.05)).unwrap().into();
    for dialect in [Dialect::Native, Dialect::Mujoco] {
        let d = dialect.dispatcher();
        let request = d.default_request();
        for (shape, centre_z, depth) in [(&ball, 0.19, 0.01), (&cube, 0.145, 0.005)] {
            let pose_b = Pose::from_translation(DVec3::new(0.13, -0.07, centre_z));
            let m = d.contacts(&field, &pose_h, shape, &pose_b, &request).unwrap();
            assert!(!m.contacts.is_empty() && m.contacts.len() <= 50, "{dialect:?} {m:?}");
            let deepest = m.contacts.iter().map(|c| c.penetration).fold(0.0, f64::max);
            assert!((deepest - depth).abs() < 1e-6, "{dialect:?} {shape:?}: {m:?}");
            for c in &m.contacts {
                if (c.penetration - depth).abs() < 1e-6 {
                    assert!((c.normal + DVec3::Z).length() < 1e-6, "{dialect:?} {c:?}");
                }
            }
            // Order swapped: normals flip.
            let m2 = d.contacts(shape, &pose_b, &field, &pose_h, &request).unwrap();
            assert_eq!(m2.contacts.len(), m.contacts.len());
            let lifted = Pose::from_translation(DVec3::new(0.13, -0.07, centre_z + 2.0 * depth));
            assert!(d.contacts(&field, &pose_h, shape, &lifted, &request).unwrap().contacts.is_empty());
        }
        // Off the grid: nothing.
        let far = Pose::from_translation(DVec3::new(3.0, 0.0, 0.1));
        assert!(d.contacts(&field, &pose_h, &ball, &far, &request).unwrap().contacts.is_empty());
    }
}
