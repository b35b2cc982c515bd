//! Triangle mesh – triangle mesh queries against brute force over every triangle pair, and the surface semantics.

mod common;

use common::Rng;
use glam::DVec3;
use signorini_collision::narrow::triangle_triangle::triangle_triangle;
use signorini_collision::{
    CollisionError, CollisionRequest, ContactRequest, DistanceRequest, collide, contacts, distance,
};
use signorini_geometry::{Pose, Shape, Sphere, TriangleMesh};

/// `n` random triangles of size ~`size` scattered in a cube of half side 1.
fn soup(rng: &mut Rng, n: usize, size: f64) -> TriangleMesh {
    let mut vertices = Vec::new();
    for _ in 0..n {
        let c = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        for _ in 0..3 {
            vertices.push(
                c + size * DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)),
            );
        }
    }
    let triangles = (0..n as u32).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect();
    TriangleMesh::new(vertices, triangles).unwrap()
}

/// The octahedron subdivided `levels` times and pushed onto the sphere of radius `r`.
fn sphere_mesh(r: f64, levels: usize) -> TriangleMesh {
    let mut tris: Vec<[DVec3; 3]> = Vec::new();
    let axes = [DVec3::X, DVec3::Y, DVec3::Z];
    for sx in [1.0, -1.0] {
        for sy in [1.0, -1.0] {
            for sz in [1.0, -1.0] {
                let (a, b, c) = (sx * axes[0], sy * axes[1], sz * axes[2]);
                tris.push(if sx * sy * sz > 0.0 { [a, b, c] } else { [a, c, b] });
            }
        }
    }
    for _ in 0..levels {
        tris = tris
            .iter()
            .flat_map(|&[a, b, c]| {
                let (ab, bc, ca) = ((a + b).normalize(), (b + c).normalize(), (c + a).normalize());
                [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]
            })
            .collect();
    }
    let vertices = tris.iter().flatten().map(|&p| r * p).collect();
    let triangles = (0..tris.len() as u32).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect();
    TriangleMesh::new(vertices, triangles).unwrap()
}

fn brute_force(a: &TriangleMesh, pose_a: &Pose, b: &TriangleMesh, pose_b: &Pose) -> f64 {
    let world = |m: &TriangleMesh, pose: &Pose, t: usize| m.triangle(t).map(|p| pose.transform_point(p));
    let mut best = f64::INFINITY;
    for i in 0..a.triangles().len() {
        let ta = world(a, pose_a, i);
        for j in 0..b.triangles().len() {
            best = best.min(triangle_triangle(&ta, &world(b, pose_b, j)).distance);
        }
    }
    best
}

/// Random soups at random poses: the BVH search finds the brute-force minimum, in both orders, and `collide`
/// agrees with it at margins on either side of it.
#[test]
fn bvh_search_matches_brute_force() {
    let mut rng = Rng(0x5eed_1234_9876);
    let mut intersecting = 0;
    for case in 0..200 {
        let (na, size_a, nb, size_b) =
            (1 + rng.below(60), rng.range(0.02, 0.4), 1 + rng.below(60), rng.range(0.02, 0.4));
        let a = soup(&mut rng, na, size_a);
        let b = soup(&mut rng, nb, size_b);
        let pose_a = Pose::new(
            DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)),
            rng.rotation(),
        )
        .unwrap();
        let pose_b = Pose::new(
            DVec3::new(rng.range(-1.5, 1.5), rng.range(-1.5, 1.5), rng.range(-1.5, 1.5)),
            rng.rotation(),
        )
        .unwrap();
        let reference = brute_force(&a, &pose_a, &b, &pose_b);
        let (sa, sb): (Shape, Shape) = (a.into(), b.into());
        let r = distance(&sa, &pose_a, &sb, &pose_b, &DistanceRequest::default()).unwrap();
        let s = distance(&sb, &pose_b, &sa, &pose_a, &DistanceRequest::default()).unwrap();
        assert!(
            (r.distance - reference).abs() < 1e-12,
            "case {case}: {} vs brute force {reference}",
            r.distance
        );
        assert!((s.distance - reference).abs() < 1e-12, "case {case}: swapped {} vs {reference}", s.distance);
        assert!((r.point_b - r.point_a - r.distance * r.normal).length() < 1e-12);
        assert!((r.normal.length() - 1.0).abs() < 1e-12);
        if reference == 0.0 {
            intersecting += 1;
            assert_eq!(r.point_a, r.point_b);
        }
        for (margin, expect) in [(reference + 1e-9, true), (reference - 1e-9, false)] {
            for max_contacts in [0, 1] {
                let req = CollisionRequest { security_margin: margin, max_contacts, ..Default::default() };
                let c = collide(&sa, &pose_a, &sb, &pose_b, &req).unwrap();
                assert_eq!(c.colliding, expect, "case {case}: margin {margin}, reference {reference}");
            }
        }
    }
    assert!((20..=180).contains(&intersecting), "{intersecting} intersecting cases of 200");
}

/// Surfaces, not solids: a sphere mesh inside a larger one is at the gap between them, not 0; touching shells are
/// at 0 with the witness on both.
#[test]
fn nested_meshes_are_apart() {
    let outer: Shape = sphere_mesh(2.0, 3).into();
    let inner: Shape = sphere_mesh(1.0, 3).into();
    let id = Pose::IDENTITY;
    let r = distance(&outer, &id, &inner, &id, &DistanceRequest::default()).unwrap();
    // The outer shell's flat faces sit inside radius 2 by at most 2 (1 − cos θ) for the facet's angular size θ.
    assert!(r.distance > 0.9 && r.distance <= 1.0 + 1e-12, "{}", r.distance);
    assert!(!collide(&outer, &id, &inner, &id, &CollisionRequest::default()).unwrap().colliding);
    let shifted = Pose::from_translation(DVec3::new(1.5, 0.0, 0.1));
    let r = distance(&outer, &id, &inner, &shifted, &DistanceRequest::default()).unwrap();
    assert_eq!(r.distance, 0.0);
    assert_eq!(r.point_a, r.point_b);
    assert!((r.normal.length() - 1.0).abs() < 1e-12);
    // The normal is A's (outward) triangle normal there: it points away from A's centre.
    assert!(r.normal.dot(r.point_a) > 0.0);
}

/// A mesh without a signed distance field has no inside to make contacts from: the contact table says what to build.
#[test]
fn meshes_without_a_field_are_typed_errors() {
    let m: Shape = sphere_mesh(1.0, 1).into();
    let s: Shape = Sphere::new(0.5).unwrap().into();
    let id = Pose::IDENTITY;
    assert!(matches!(
        contacts(&m, &id, &m, &id, &ContactRequest::default()),
        Err(CollisionError::MeshWithoutSdf { .. })
    ));
    assert!(matches!(
        contacts(&s, &id, &m, &id, &ContactRequest::default()),
        Err(CollisionError::MeshWithoutSdf { .. })
    ));
}
