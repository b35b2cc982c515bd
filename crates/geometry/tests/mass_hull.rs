//! Convex-mesh mass properties (signed-tetrahedron integration) against independent references: box closed forms,
//! a 4-point Gauss rule on a centroid fan of tetrahedra (exact for the quadratic integrands of the inertia), and a
//! voxel integration that only uses the face planes.

use proptest::prelude::*;
use signorini_geometry::{ConvexMesh, Cuboid, DMat3, DQuat, DVec3, MassProperties, Pose, Shape};

fn close(a: f64, b: f64, scale: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * scale
}

fn mat_close(a: DMat3, b: DMat3, rel: f64) -> bool {
    let scale = b.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    a.to_cols_array().iter().zip(b.to_cols_array()).all(|(x, y)| close(*x, y, scale, rel))
}

/// Volume, first and second moments by a 4-point degree-2 Gauss rule over the tetrahedra (centroid, triangle).
fn quadrature(mesh: &ConvexMesh) -> MassProperties {
    let v = mesh.vertices();
    let c = v.iter().copied().sum::<DVec3>() / v.len() as f64;
    let (a, b) = (0.585_410_196_624_968_5, 0.138_196_601_125_010_5);
    let mut vol = 0.0;
    let mut first = DVec3::ZERO;
    let mut second = DMat3::ZERO;
    for t in mesh.triangles() {
        let p = [c, v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]];
        let tv = (p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0])) / 6.0;
        vol += tv;
        for k in 0..4 {
            let x = (0..4).map(|i| p[i] * if i == k { a } else { b }).sum::<DVec3>();
            first += x * tv / 4.0;
            second += DMat3::from_cols(x * x.x, x * x.y, x * x.z) * (tv / 4.0);
        }
    }
    let com = first / vol;
    let cov = second - DMat3::from_cols(com * com.x, com * com.y, com * com.z) * vol;
    let tr = cov.x_axis.x + cov.y_axis.y + cov.z_axis.z;
    MassProperties { mass: vol, com, inertia: DMat3::from_diagonal(DVec3::splat(tr)) - cov }
}

/// Midpoint-rule integration over an `n³` voxel grid, inside-test by the face planes only.
fn voxels(mesh: &ConvexMesh, n: usize) -> MassProperties {
    let v = mesh.vertices();
    let planes: Vec<(DVec3, f64)> = mesh
        .triangles()
        .iter()
        .map(|t| {
            let (a, b, c) = (v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]);
            let nrm = (b - a).cross(c - a).normalize();
            (nrm, nrm.dot(a))
        })
        .collect();
    let lo = v.iter().copied().fold(DVec3::splat(f64::INFINITY), DVec3::min);
    let hi = v.iter().copied().fold(DVec3::splat(f64::NEG_INFINITY), DVec3::max);
    let h = (hi - lo) / n as f64;
    let dv = h.x * h.y * h.z;
    let (mut m, mut first, mut second) = (0.0, DVec3::ZERO, DMat3::ZERO);
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let x = lo + h * DVec3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5);
                if planes.iter().all(|(nrm, d)| nrm.dot(x) <= *d) {
                    m += dv;
                    first += x * dv;
                    second += DMat3::from_cols(x * x.x, x * x.y, x * x.z) * dv;
                }
            }
        }
    }
    let com = first / m;
    let cov = second - DMat3::from_cols(com * com.x, com * com.y, com * com.z) * m;
    let tr = cov.x_axis.x + cov.y_axis.y + cov.z_axis.z;
    MassProperties { mass: m, com, inertia: DMat3::from_diagonal(DVec3::splat(tr)) - cov }
}

fn posed_box_points(h: DVec3, pose: &Pose) -> Vec<DVec3> {
    Cuboid::new(h).unwrap().corners().iter().map(|p| pose.transform_point(*p)).collect()
}

#[test]
fn box_hull_matches_closed_form() {
    let h = DVec3::new(0.3, 0.5, 0.2);
    let pose = Pose::new(DVec3::new(10.0, -4.0, 3.0), DQuat::from_euler(glam::EulerRot::XYZ, 0.2, 1.0, -0.4))
        .unwrap();
    let mut points = posed_box_points(h, &pose);
    points.push(pose.translation); // an interior point must not change anything
    let hull: Shape = ConvexMesh::from_points(&points).unwrap().into();
    let ours = MassProperties::from_density(&hull, 7.0).unwrap();
    let exact =
        MassProperties::from_density(&Cuboid::new(h).unwrap().into(), 7.0).unwrap().transformed(&pose);
    assert!(close(ours.mass, exact.mass, exact.mass, 1e-13));
    assert!((ours.com - exact.com).length() < 1e-12);
    assert!(mat_close(ours.inertia, exact.inertia, 1e-11), "{:?} vs {:?}", ours.inertia, exact.inertia);
    let (p, q) = (ours.principal(), exact.principal());
    assert!((p.moments - q.moments).abs().max_element() < 1e-11 * q.moments.max_element());
    assert!(p.moments.x >= p.moments.y && p.moments.y >= p.moments.z);
    assert!(close(MassProperties::volume(&hull).unwrap(), 8.0 * h.x * h.y * h.z, 1.0, 1e-13));
}

#[test]
fn voxel_integration_agrees_on_a_random_hull() {
    let mut pts = Vec::new();
    let mut s = 12345u64;
    let mut rnd = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..40 {
        pts.push(DVec3::new(rnd() * 2.0 - 1.0, rnd() * 1.5 - 0.75, rnd() - 0.5) + DVec3::new(0.3, 0.1, -0.2));
    }
    let mesh = ConvexMesh::from_points(&pts).unwrap();
    let ours = MassProperties::from_density(&mesh.clone().into(), 1.0).unwrap();
    let vox = voxels(&mesh, 120);
    assert!(close(ours.mass, vox.mass, ours.mass, 1e-2), "{} vs {}", ours.mass, vox.mass);
    assert!((ours.com - vox.com).length() < 1e-2);
    assert!(mat_close(ours.inertia, vox.inertia, 3e-2));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn quadrature_agrees_exactly(
        pts in prop::collection::vec((-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0), 8..60),
        offset in (-50.0f64..50.0, -50.0f64..50.0, -50.0f64..50.0),
        density in 0.1f64..1e4,
    ) {
        let pts: Vec<DVec3> = pts.into_iter().map(|(x, y, z)| DVec3::new(x, y, z) + DVec3::new(offset.0, offset.1, offset.2)).collect();
        let Ok(mesh) = ConvexMesh::from_points(&pts) else { return Ok(()) };
        let ours = MassProperties::from_density(&mesh.clone().into(), density).unwrap();
        let reference = quadrature(&mesh).scaled(density);
        prop_assert!(close(ours.mass, reference.mass, reference.mass, 1e-10));
        prop_assert!((ours.com - reference.com).length() < 1e-9);
        prop_assert!(mat_close(ours.inertia, reference.inertia, 1e-8));
        let from_mass = MassProperties::from_mass(&mesh.into(), 2.5).unwrap();
        prop_assert!(close(from_mass.mass, 2.5, 2.5, 1e-14));
    }
}
