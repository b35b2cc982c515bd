//! Triangle mesh – convex shape distance by branch and bound over the mesh's BVH, with GJK per triangle.
//!
//! **Semantics** (those of [`mesh_mesh`](super::mesh_mesh)): the mesh is a surface. The distance is the unsigned
//! distance between its triangles and the convex solid, 0 as soon as the solid meets a triangle; a solid wholly inside
//! a closed mesh without touching it is at a positive distance. Separated: witnesses on a triangle (A) and on the
//! solid's surface (B), `normal = (point_b − point_a) / distance`. At distance 0 both witnesses are one point of the
//! triangle that meets the solid (its closest point to the solid's core, or its centroid when the core itself crosses
//! the triangle) and `normal` is that triangle's unit right-hand normal (outward on a closed counter-clockwise mesh).
//!
//! **Search.** The mesh's convex hull against the solid first (computed by the caller): in boolean mode a hull beyond
//! the margin settles the query; separated, the hull's witness on the mesh side projected onto the surface gives an
//! upper bound to start from, and the search stops within [`FLOOR_SLACK`] of the hull's distance. The solid's box is
//! carried into the mesh frame once; a BVH node is pruned when its box is at or beyond the best distance (or the
//! margin), nearer child first; at the leaves a triangle whose box is too far is skipped, the others run GJK
//! (triangle against the solid's core, inflated by its radius), with GJK's early exit in boolean mode.

use glam::DVec3;
use signorini_geometry::{Aabb, Pose, TriangleMesh};

use super::SignedDistance;
use super::convex_convex::{CoreDistance, core_distance};
use super::mesh_mesh::{
    FLOOR_SLACK, HullStage, beyond_margin, closest_on_mesh, push_nearer_last, triangle_box,
};
use crate::narrow::gjk::GjkSettings;
use crate::narrow::minkowski::CoreShape;
use crate::query::Algorithm;

/// A triangle as a convex core (its own core, radius 0).
struct TriangleCore([DVec3; 3]);

impl CoreShape for TriangleCore {
    #[inline]
    fn core_support(&self, dir: DVec3) -> DVec3 {
        let [a, b, c] = self.0;
        let (da, db, dc) = (dir.dot(a), dir.dot(b), dir.dot(c));
        if da >= db && da >= dc {
            a
        } else if db >= dc {
            b
        } else {
            c
        }
    }
    fn core_radius(&self) -> f64 {
        0.0
    }
    fn core_center(&self) -> DVec3 {
        (self.0[0] + self.0[1] + self.0[2]) / 3.0
    }
}

/// The best triangle so far: distance, witnesses (mesh frame) and triangle.
#[derive(Clone, Copy)]
struct Best {
    distance: f64,
    point_a: DVec3,
    point_b: DVec3,
    triangle: Option<u32>,
}

/// Distance between a triangle mesh (A) and a bounded convex shape (B); see the module docs. `margin`: boolean mode
/// with this security margin (when nothing is within it the distance is only some value `> margin`); `hull`: the
/// signed distance of the mesh's convex hull and the shape, when the mesh has a hull (boolean mode: GJK's
/// early-exit answer). `shape_box`: the shape's local AABB.
#[allow(clippy::too_many_arguments)]
pub(crate) fn mesh_convex<S: CoreShape>(
    point_stack: &mut Vec<(u32, f64)>,
    mesh: &TriangleMesh,
    pose_m: &Pose,
    shape: &S,
    shape_box: &Aabb,
    pose_s: &Pose,
    margin: Option<f64>,
    hull: Option<&SignedDistance>,
) -> SignedDistance {
    let rel = pose_m.inv_compose(pose_s);
    let sbox = shape_box.transformed_corners_bound(&rel);
    let bvh = mesh.bvh();
    let size =
        bvh.root().map_or(0.0, |n| n.aabb.half_extents().length()).max(shape_box.half_extents().length());
    let mut best =
        Best { distance: f64::INFINITY, point_a: DVec3::ZERO, point_b: DVec3::ZERO, triangle: None };
    let floor = match HullStage::of(hull, margin) {
        HullStage::Settled(answer) => return answer,
        HullStage::Search { floor: None } => f64::NEG_INFINITY,
        HullStage::Search { floor: Some(h) } => {
            // The shape's witness is on the shape already; only the mesh's is projected.
            let (qa, ta) = closest_on_mesh(point_stack, mesh, pose_m.inverse_transform_point(h.point_a));
            let pb = pose_m.inverse_transform_point(h.point_b);
            best = Best { distance: (pb - qa).length(), point_a: qa, point_b: pb, triangle: Some(ta) };
            h.distance
        }
    };
    let limit = margin.map_or(f64::INFINITY, |m| m.max(0.0));
    let stop = margin.map_or(0.0, |m| m.max(0.0)).max(floor + FLOOR_SLACK * (1.0 + size));
    let gjk = GjkSettings {
        early_exit_distance: margin.map(|m| m.max(0.0) + shape.core_radius()),
        ..GjkSettings::default()
    };
    let mut iterations = 0u32;
    // The smallest bound pruned for being beyond the margin (boolean mode).
    let mut pruned = f64::INFINITY;
    point_stack.clear();
    if best.distance > stop
        && let Some(root) = bvh.root()
    {
        point_stack.push((0, root.aabb.distance(&sbox)));
    }
    while let Some((n, bound)) = point_stack.pop() {
        if bound >= best.distance {
            continue;
        }
        if bound > limit {
            pruned = pruned.min(bound);
            continue;
        }
        let node = &bvh.nodes()[n as usize];
        match node.children() {
            None => {
                for &t in bvh.leaf_primitives(node) {
                    let tri = mesh.triangle(t as usize);
                    let gap = triangle_box(&tri).distance(&sbox);
                    if gap >= best.distance {
                        continue;
                    }
                    if gap > limit {
                        pruned = pruned.min(gap);
                        continue;
                    }
                    iterations = iterations.saturating_add(1);
                    let core = TriangleCore(tri);
                    let found = match core_distance(&core, &Pose::IDENTITY, shape, &rel, &gjk, None).0 {
                        CoreDistance::Apart(sd) if sd.distance > 0.0 => (sd.distance, sd.point_a, sd.point_b),
                        CoreDistance::Apart(sd) => (0.0, sd.point_a, sd.point_a),
                        CoreDistance::Overlap => (0.0, core.core_center(), core.core_center()),
                    };
                    if found.0 < best.distance {
                        best =
                            Best { distance: found.0, point_a: found.1, point_b: found.2, triangle: Some(t) };
                        if best.distance <= stop {
                            point_stack.clear();
                            break;
                        }
                    }
                }
            }
            Some([l, r]) => {
                let bound = |i: usize| bvh.nodes()[i].aabb.distance(&sbox);
                push_nearer_last(point_stack, (l, bound(l)), (r, bound(r)), best.distance);
            }
        }
    }
    let centres = (pose_s.translation - pose_m.translation).normalize_or(DVec3::Z);
    let Some(t) = best.triangle else {
        return beyond_margin(pose_m.translation, centres, pruned, iterations);
    };
    let point_a = pose_m.transform_point(best.point_a);
    let point_b = pose_m.transform_point(best.point_b);
    let normal = if best.distance > 0.0 {
        (point_b - point_a).normalize_or(centres)
    } else {
        let [a, b, c] = mesh.triangle(t as usize);
        (b - a).cross(c - a).try_normalize().map_or(centres, |n| pose_m.transform_vector(n))
    };
    SignedDistance {
        distance: best.distance,
        point_a,
        point_b,
        normal,
        iterations,
        algorithm: Algorithm::Bvh,
    }
}

#[cfg(test)]
mod tests {
    use signorini_geometry::{ConvexMesh, Cuboid, Shape, Sphere};

    use crate::narrow::triangle_triangle::{Plane, closest_point_triangle, triangle_triangle};
    use crate::query::{CollisionRequest, DistanceRequest, collide, distance};

    use super::*;
    use crate::test_rng::Rng;

    /// A soup of `n` random triangles around the origin.
    fn soup(rng: &mut Rng, n: usize) -> TriangleMesh {
        let mut v = Vec::new();
        let mut t = Vec::new();
        for k in 0..n {
            let c = rng.vec(0.6);
            for _ in 0..3 {
                v.push(c + rng.vec(0.25));
            }
            t.push([3 * k as u32, 3 * k as u32 + 1, 3 * k as u32 + 2]);
        }
        TriangleMesh::new(v, t).unwrap()
    }

    /// Distance from the world triangles of `mesh` to a convex polytope given by its world hull (exact: 0 when a
    /// triangle meets the hull's surface or has a vertex inside, else the nearest triangle–face pair).
    fn reference_polytope(mesh: &TriangleMesh, pose_m: &Pose, hull: &ConvexMesh, pose_h: &Pose) -> f64 {
        let faces: Vec<[DVec3; 3]> = hull
            .triangles()
            .iter()
            .map(|f| f.map(|i| pose_h.transform_point(hull.vertices()[i as usize])))
            .collect();
        let inside = |x: DVec3| {
            hull.triangles().iter().zip(hull.face_normals()).all(|(f, n)| {
                let p = pose_h.transform_point(hull.vertices()[f[0] as usize]);
                pose_h.transform_vector(*n).dot(x - p) <= 0.0
            })
        };
        (0..mesh.triangles().len())
            .map(|t| {
                let tri = mesh.triangle(t).map(|p| pose_m.transform_point(p));
                if tri.iter().any(|&x| inside(x)) {
                    return 0.0;
                }
                faces.iter().map(|f| triangle_triangle(&tri, f).distance).fold(f64::INFINITY, f64::min)
            })
            .fold(f64::INFINITY, f64::min)
    }

    fn reference_sphere(mesh: &TriangleMesh, pose_m: &Pose, r: f64, c: DVec3) -> f64 {
        (0..mesh.triangles().len())
            .map(|t| {
                let tri = mesh.triangle(t).map(|p| pose_m.transform_point(p));
                ((closest_point_triangle(c, &tri, &Plane::of(&tri)) - c).length() - r).max(0.0)
            })
            .fold(f64::INFINITY, f64::min)
    }

    fn check(mesh: &Shape, pose_m: &Pose, shape: &Shape, pose_s: &Pose, expected: f64, what: &str) {
        for (a, pa, b, pb) in [(mesh, pose_m, shape, pose_s), (shape, pose_s, mesh, pose_m)] {
            let d = distance(a, pa, b, pb, &DistanceRequest::default()).unwrap();
            assert!((d.distance - expected).abs() < 1e-9, "{what}: {} vs {expected}", d.distance);
            if d.distance > 0.0 {
                assert!((d.point_b - d.point_a - d.distance * d.normal).length() < 1e-9, "{what}: witnesses");
            }
            for margin in [0.0, 0.05] {
                if (expected - margin).abs() > 1e-7 {
                    let req =
                        CollisionRequest { security_margin: margin, max_contacts: 0, ..Default::default() };
                    let c = collide(a, pa, b, pb, &req).unwrap();
                    assert_eq!(c.colliding, expected <= margin, "{what}: collide at margin {margin}");
                }
            }
        }
    }

    #[test]
    fn mesh_against_convex_shapes_matches_brute_force() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut zero, mut apart) = (0, 0);
        for case in 0..150 {
            let mesh = soup(&mut rng, 25);
            let pose_m = rng.pose(0.5);
            let shape_mesh = Shape::TriangleMesh(std::sync::Arc::new(mesh.clone()));
            let pose_s = rng.pose(1.2);
            // Sphere: closed form.
            let r = 0.1 + 0.3 * rng.unit();
            let expected = reference_sphere(&mesh, &pose_m, r, pose_s.translation);
            check(
                &shape_mesh,
                &pose_m,
                &Sphere::new(r).unwrap().into(),
                &pose_s,
                expected,
                &format!("sphere {case}"),
            );
            // Box and a random hull: against their faces.
            let h = DVec3::new(0.1, 0.15, 0.2) + rng.vec(0.05).abs();
            let cuboid = Cuboid::new(h).unwrap();
            let corners = ConvexMesh::from_points(&cuboid.corners()).unwrap();
            let expected = reference_polytope(&mesh, &pose_m, &corners, &pose_s);
            check(&shape_mesh, &pose_m, &cuboid.into(), &pose_s, expected, &format!("box {case}"));
            let points: Vec<DVec3> = (0..12).map(|_| rng.vec(0.3)).collect();
            let hull = ConvexMesh::from_points(&points).unwrap();
            let expected = reference_polytope(&mesh, &pose_m, &hull, &pose_s);
            check(&shape_mesh, &pose_m, &hull.into(), &pose_s, expected, &format!("hull {case}"));
            if expected == 0.0 { zero += 1 } else { apart += 1 }
        }
        assert!(zero > 10 && apart > 10, "cases should both touch and separate: {zero} / {apart}");
    }
}
