//! Triangle mesh – triangle mesh distance by branch and bound over the two meshes' BVHs (Coal's BVH semantics).
//!
//! **Semantics.** Meshes are surfaces (triangle soups), not solids: the distance is the unsigned distance between
//! the two sets of triangles, `min_{s ∈ A, t ∈ B} ‖t − s‖`, and 0 as soon as two triangles intersect — one mesh
//! enclosing the other without touching it is at a positive distance. Witness points lie on a triangle of each mesh
//! (world frame). Separated: `normal = (point_b − point_a) / distance`. At distance 0 both witnesses are one point of
//! an intersection of two triangles, and `normal` is the unit right-hand normal `(b − a) × (c − a)` of A's triangle
//! there (outward for a closed counter-clockwise mesh), or minus B's when A's triangle is degenerate, or the unit
//! direction between the two poses' origins when both are (then `+z` if they coincide).
//!
//! **Traversal.** Everything happens in A's local frame. The lower bound of a node pair is the larger of two box
//! distances ([`Aabb::distance`]): A's box against B's carried into A's frame as an enclosing box (centre
//! transformed, half extents `|R| h`), and the same the other way round in B's frame (together, the separating
//! axes of both boxes' faces); squared, so the hot path takes no square root. A stack of node pairs is popped depth
//! first; a pair whose bound is ≥ the best distance so far is pruned; the larger node (half-diagonal) is split, and
//! its nearer child is visited first. Leaf pairs run [`triangle_triangle`] on each pair of triangles that neither
//! their boxes nor either triangle's plane (the other triangle wholly on one side, farther than the best) puts at or
//! beyond the best. The search stops at distance 0. In boolean mode (`margin = Some(m)`) pairs whose bound exceeds
//! `m` are pruned too, and the search stops at the first triangle pair within `m`.
//!
//! **Hulls first.** Each mesh keeps the convex hull of its vertices, which contains its surface, so the hulls'
//! distance `d_h` (GJK, computed by the caller) bounds the meshes' distance from below. In boolean mode hulls farther
//! apart than the margin settle the query. Separated hulls also give a start: their witness points, projected onto
//! the meshes (a point search over each BVH), are two surface points whose distance bounds the answer from above;
//! the search starts from that bound and stops as soon as its best is within [`FLOOR_SLACK`] (relative to the
//! meshes' size) of `d_h` — at once when the hull witnesses lie on the surfaces, as they do where the closest
//! features of two links are on their outer shells.
//!
//! **Allocation.** The stacks are the caller's (`QueryWorkspace`), reused: no allocation after warm-up.

use glam::{DMat3, DVec3};
use signorini_geometry::bvh::MAX_LEAF_SIZE;
use signorini_geometry::{Aabb, Pose, TriangleMesh};

use super::SignedDistance;
use crate::narrow::triangle_triangle::{Plane, TriangleDistance, closest_point_triangle, triangle_triangle};
use crate::query::Algorithm;

/// A pair of nodes (A's, B's) waiting on the traversal stack with the squared lower bound of their distance.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodePair {
    a: u32,
    b: u32,
    bound_sq: f64,
}

/// The squared [`Aabb::distance`] (no square root on the hot path).
#[inline]
fn gap_sq(a: &Aabb, b: &Aabb) -> f64 {
    (a.min - b.max).max(b.min - a.max).max(DVec3::ZERO).length_squared()
}

/// The pose of B's frame in A's frame: `x_A = r x_B + t`, its inverse, and `|r|` for box half extents.
struct Relative {
    r: DMat3,
    abs_r: DMat3,
    t: DVec3,
    r_inv: DMat3,
    abs_r_inv: DMat3,
    t_inv: DVec3,
}

impl Relative {
    fn new(pose_a: &Pose, pose_b: &Pose) -> Self {
        let ra_t = pose_a.rotation_matrix().transpose();
        let r = ra_t * pose_b.rotation_matrix();
        let abs_r = DMat3::from_cols(r.x_axis.abs(), r.y_axis.abs(), r.z_axis.abs());
        let t = ra_t * (pose_b.translation - pose_a.translation);
        let r_inv = r.transpose();
        Self { r, abs_r, t, r_inv, abs_r_inv: abs_r.transpose(), t_inv: -(r_inv * t) }
    }

    /// A box of B's frame as an enclosing box in A's frame.
    #[inline]
    fn aabb(&self, b: &Aabb) -> Aabb {
        Aabb::from_center_half_extents(self.r * b.center() + self.t, self.abs_r * b.half_extents())
    }

    /// Squared lower bound of the distance between a box of A's frame and a box of B's frame: the larger of the
    /// box distances in either frame, each box carried into the other's frame as an enclosing box (the separating
    /// axes of both boxes' faces).
    #[inline]
    fn bound_sq(&self, a: &Aabb, b: &Aabb) -> f64 {
        let in_a = gap_sq(a, &self.aabb(b));
        let a_in_b = Aabb::from_center_half_extents(
            self.r_inv * a.center() + self.t_inv,
            self.abs_r_inv * a.half_extents(),
        );
        in_a.max(gap_sq(&a_in_b, b))
    }

    #[inline]
    fn point(&self, p: DVec3) -> DVec3 {
        self.r * p + self.t
    }
}

/// The best triangle pair so far (A's frame), its distance and squared distance.
struct Best {
    distance: f64,
    distance_sq: f64,
    hit: Option<(TriangleDistance, u32, u32)>,
}

/// A search stops when its best distance is within `FLOOR_SLACK · (1 + size)` of the hulls' distance (`size`: the
/// larger half diagonal of the two meshes' boxes, m): the answer is then exact to that much.
pub const FLOOR_SLACK: f64 = 1e-12;

/// Distance between two triangle meshes (see the module docs). `margin`: boolean mode with this security margin;
/// when no triangle pair is within it, the returned distance is only some value `> margin` (a lower bound of the
/// true one from the search, or the hulls' early-exit estimate), with placeholder witnesses. `hulls`: the signed
/// distance of the two meshes' convex hulls, when both have one (in boolean mode, GJK's early-exit answer).
pub(crate) fn mesh_mesh(
    (stack, point_stack): (&mut Vec<NodePair>, &mut Vec<(u32, f64)>),
    a: &TriangleMesh,
    pose_a: &Pose,
    b: &TriangleMesh,
    pose_b: &Pose,
    margin: Option<f64>,
    hulls: Option<&SignedDistance>,
) -> SignedDistance {
    let rel = Relative::new(pose_a, pose_b);
    let (bvh_a, bvh_b) = (a.bvh(), b.bvh());
    let mut best = Best { distance: f64::INFINITY, distance_sq: f64::INFINITY, hit: None };
    let size = [bvh_a.root(), bvh_b.root()]
        .iter()
        .flatten()
        .map(|n| n.aabb.half_extents().length())
        .fold(0.0, f64::max);
    let floor = match HullStage::of(hulls, margin) {
        HullStage::Settled(answer) => return answer,
        HullStage::Search { floor: None } => f64::NEG_INFINITY,
        HullStage::Search { floor: Some(h) } => {
            let (qa, ta) = closest_on_mesh(point_stack, a, pose_a.inverse_transform_point(h.point_a));
            let (qb, tb) = closest_on_mesh(point_stack, b, pose_b.inverse_transform_point(h.point_b));
            let qb = rel.point(qb);
            let d = (qb - qa).length();
            let seed = TriangleDistance { distance: d, point_p: qa, point_q: qb };
            best = Best { distance: d, distance_sq: d * d, hit: Some((seed, ta, tb)) };
            h.distance
        }
    };
    let done = floor + FLOOR_SLACK * (1.0 + size);
    let mut pruned_sq = f64::INFINITY;
    // Squared margin; a negative margin prunes everything (every bound is ≥ 0 > margin).
    let limit_sq = margin.map_or(f64::INFINITY, |m| if m >= 0.0 { m * m } else { -1.0 });
    let stop = margin.map_or(0.0, |m| m.max(0.0)).max(done);
    stack.clear();
    if best.distance <= stop {
        return finish(a, pose_a, b, pose_b, &rel, &best, pruned_sq, 0);
    }
    if let (Some(ra), Some(rb)) = (bvh_a.root(), bvh_b.root()) {
        stack.push(NodePair { a: 0, b: 0, bound_sq: rel.bound_sq(&ra.aabb, &rb.aabb) });
    }
    let mut iterations = 0u32;
    while let Some(pair) = stack.pop() {
        if pair.bound_sq >= best.distance_sq {
            continue;
        }
        if pair.bound_sq > limit_sq {
            pruned_sq = pruned_sq.min(pair.bound_sq);
            continue;
        }
        let na = &bvh_a.nodes()[pair.a as usize];
        let nb = &bvh_b.nodes()[pair.b as usize];
        match (na.children(), nb.children()) {
            (None, None) => {
                iterations = iterations.saturating_add(1);
                let (leaf_a, leaf_b) = (bvh_a.leaf_primitives(na), bvh_b.leaf_primitives(nb));
                let limit = margin.unwrap_or(f64::INFINITY);
                leaf_pair(a, leaf_a, b, leaf_b, &rel, &mut best, stop, limit, &mut pruned_sq);
                if best.distance <= stop {
                    break;
                }
            }
            (children_a, children_b) => {
                let split_a = match (children_a, children_b) {
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    _ => na.aabb.half_extents().length_squared() >= nb.aabb.half_extents().length_squared(),
                };
                let (kids, bound) = if split_a {
                    let [l, r] = children_a.unwrap_or_default();
                    let d = |i: usize| rel.bound_sq(&bvh_a.nodes()[i].aabb, &nb.aabb);
                    ([(l, pair.b as usize), (r, pair.b as usize)], [d(l), d(r)])
                } else {
                    let [l, r] = children_b.unwrap_or_default();
                    let d = |i: usize| rel.bound_sq(&na.aabb, &bvh_b.nodes()[i].aabb);
                    ([(pair.a as usize, l), (pair.a as usize, r)], [d(l), d(r)])
                };
                // Farther child pushed first, so the nearer one is popped next.
                let order = if bound[0] <= bound[1] { [1, 0] } else { [0, 1] };
                for k in order {
                    if bound[k] < best.distance_sq {
                        let (ia, ib) = kids[k];
                        stack.push(NodePair { a: ia as u32, b: ib as u32, bound_sq: bound[k] });
                    }
                }
            }
        }
    }
    finish(a, pose_a, b, pose_b, &rel, &best, pruned_sq.sqrt(), iterations)
}

/// A triangle of a leaf in A's frame with what prunes it cheaply: its box and its unit normal.
#[derive(Clone, Copy)]
struct LeafTriangle {
    points: [DVec3; 3],
    aabb: Aabb,
    normal: Option<DVec3>,
}

impl LeafTriangle {
    fn new(points: [DVec3; 3]) -> Self {
        let normal = (points[1] - points[0]).cross(points[2] - points[0]).try_normalize();
        Self { points, aabb: triangle_box(&points), normal }
    }

    /// The gap between the triangle's plane and `other`, when `other` lies wholly on one side (else 0): a lower
    /// bound of their distance.
    #[inline]
    fn plane_gap(&self, other: &[DVec3; 3]) -> f64 {
        let Some(n) = self.normal else { return 0.0 };
        let s = other.map(|x| n.dot(x - self.points[0]));
        let (lo, hi) = (s[0].min(s[1]).min(s[2]), s[0].max(s[1]).max(s[2]));
        lo.max(-hi).max(0.0)
    }
}

/// Runs [`triangle_triangle`] on the triangle pairs of two leaves that no cheap bound (their boxes, either
/// triangle's plane) puts at or beyond the best distance so far, or beyond `limit` (boolean mode's margin; such a
/// bound is kept in `pruned_sq`, squared, so that a search finding nothing within the margin still reports one).
#[allow(clippy::too_many_arguments)]
fn leaf_pair(
    a: &TriangleMesh,
    tris_a: &[u32],
    b: &TriangleMesh,
    tris_b: &[u32],
    rel: &Relative,
    best: &mut Best,
    stop: f64,
    limit: f64,
    pruned_sq: &mut f64,
) {
    let empty =
        LeafTriangle { points: [DVec3::ZERO; 3], aabb: Aabb::new(DVec3::ZERO, DVec3::ZERO), normal: None };
    let mut leaf_b = [empty; MAX_LEAF_SIZE];
    for (k, &tb) in tris_b.iter().enumerate().take(MAX_LEAF_SIZE) {
        leaf_b[k] = LeafTriangle::new(b.triangle(tb as usize).map(|p| rel.point(p)));
    }
    for &ta in tris_a {
        let tri_a = LeafTriangle::new(a.triangle(ta as usize));
        for (k, &tb) in tris_b.iter().enumerate().take(MAX_LEAF_SIZE) {
            let tri_b = &leaf_b[k];
            let mut within = |gap: f64| {
                if gap > limit && gap < best.distance {
                    *pruned_sq = pruned_sq.min(gap * gap);
                }
                gap < best.distance && gap <= limit
            };
            if !within(gap_sq(&tri_a.aabb, &tri_b.aabb).sqrt())
                || !within(tri_a.plane_gap(&tri_b.points))
                || !within(tri_b.plane_gap(&tri_a.points))
            {
                continue;
            }
            let r = triangle_triangle(&tri_a.points, &tri_b.points);
            if r.distance < best.distance {
                best.distance = r.distance;
                best.distance_sq = r.distance * r.distance;
                best.hit = Some((r, ta, tb));
                if r.distance <= stop {
                    return;
                }
            }
        }
    }
}

/// What the hulls' distance settles before a mesh search (see the module docs).
pub(crate) enum HullStage<'h> {
    /// Boolean mode, hulls beyond the margin: the answer.
    Settled(SignedDistance),
    /// Search the meshes; in distance mode with separated hulls, `floor` is their distance, whose witnesses start
    /// the search and whose value ends it.
    Search { floor: Option<&'h SignedDistance> },
}

impl<'h> HullStage<'h> {
    /// The stage for the hulls' distance `hulls` (when there are hulls) and the boolean `margin`.
    pub(crate) fn of(hulls: Option<&'h SignedDistance>, margin: Option<f64>) -> HullStage<'h> {
        match (hulls.filter(|h| h.distance > 0.0), margin) {
            (Some(h), Some(m)) if h.distance > m => {
                HullStage::Settled(SignedDistance { algorithm: Algorithm::Bvh, ..*h })
            }
            (Some(h), None) => HullStage::Search { floor: Some(h) },
            _ => HullStage::Search { floor: None },
        }
    }
}

/// The answer of a boolean search that found nothing within its margin: `bound`, the smallest bound it pruned (a lower
/// bound of the distance, above the margin), with placeholder witnesses at `origin` and along `towards`.
pub(crate) fn beyond_margin(origin: DVec3, towards: DVec3, bound: f64, iterations: u32) -> SignedDistance {
    // Every search prunes something before it ends without a hit; `f64::MAX` only guards a broken invariant.
    let d = bound.min(f64::MAX);
    SignedDistance {
        distance: d,
        point_a: origin,
        point_b: origin + d * towards,
        normal: towards,
        iterations,
        algorithm: Algorithm::Bvh,
    }
}

/// Pushes two child nodes with their bounds, the nearer last (so it is popped first), skipping those at or beyond
/// `best`.
pub(crate) fn push_nearer_last(stack: &mut Vec<(u32, f64)>, l: (usize, f64), r: (usize, f64), best: f64) {
    let order = if l.1 <= r.1 { [r, l] } else { [l, r] };
    for (child, bound) in order {
        if bound < best {
            stack.push((child as u32, bound));
        }
    }
}

/// The point of `mesh` (its frame) closest to `x`, and its triangle: the BVH's branch and bound
/// ([`signorini_geometry::Bvh::nearest_first`]).
pub(crate) fn closest_on_mesh(stack: &mut Vec<(u32, f64)>, mesh: &TriangleMesh, x: DVec3) -> (DVec3, u32) {
    let mut found = (x, 0u32);
    let mut best = f64::INFINITY;
    mesh.bvh().nearest_first(
        stack,
        &mut best,
        |b| b.distance_squared_to_point(x),
        |t, best| {
            let tri = mesh.triangle(t as usize);
            let c = closest_point_triangle(x, &tri, &Plane::of(&tri));
            let d = (c - x).length_squared();
            if d < *best {
                *best = d;
                found = (c, t);
            }
        },
    );
    found
}

pub(crate) fn triangle_box(t: &[DVec3; 3]) -> Aabb {
    Aabb::new(t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]))
}

/// The result in the world frame (see the module docs for the normal at distance 0).
#[allow(clippy::too_many_arguments)]
fn finish(
    a: &TriangleMesh,
    pose_a: &Pose,
    b: &TriangleMesh,
    pose_b: &Pose,
    rel: &Relative,
    best: &Best,
    pruned: f64,
    iterations: u32,
) -> SignedDistance {
    let origins = (pose_b.translation - pose_a.translation).normalize_or(DVec3::Z);
    let Some((r, ta, tb)) = best.hit else {
        return beyond_margin(pose_a.translation, origins, pruned, iterations);
    };
    let point_a = pose_a.transform_point(r.point_p);
    let point_b = pose_a.transform_point(r.point_q);
    let normal = if r.distance > 0.0 {
        (point_b - point_a).normalize_or(origins)
    } else {
        let unit = |t: [DVec3; 3]| (t[1] - t[0]).cross(t[2] - t[0]).try_normalize();
        let na = unit(a.triangle(ta as usize)).map(|n| pose_a.transform_vector(n));
        let nb = || unit(b.triangle(tb as usize).map(|p| rel.point(p))).map(|n| -pose_a.transform_vector(n));
        na.or_else(nb).unwrap_or(origins)
    };
    SignedDistance { distance: r.distance, point_a, point_b, normal, iterations, algorithm: Algorithm::Bvh }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use signorini_geometry::Shape;

    use super::*;
    use crate::query::{CollisionRequest, DistanceRequest, collide, distance};

    /// Two single triangles (flat: no hull to settle it) whose boxes and one plane test are within the margin but
    /// which are 0.57 m apart: the boolean search prunes the pair by the other plane and must not call it colliding.
    #[test]
    fn a_boolean_search_that_prunes_every_triangle_pair_is_not_a_collision() {
        let tri = |v: [[f64; 3]; 3]| {
            Shape::TriangleMesh(Arc::new(
                TriangleMesh::new(v.map(DVec3::from_array).to_vec(), vec![[0, 1, 2]]).unwrap(),
            ))
        };
        let a = tri([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        let b = tri([[0.9, 0.9, 0.05], [2.0, 0.9, 1.0], [0.9, 2.0, 1.0]]);
        let exact = distance(&a, &Pose::IDENTITY, &b, &Pose::IDENTITY, &DistanceRequest::default()).unwrap();
        assert!(exact.distance > 0.3, "{}", exact.distance);
        for margin in [0.0, 0.1, 0.3, 1.0] {
            let req = CollisionRequest { security_margin: margin, max_contacts: 0, ..Default::default() };
            let c = collide(&a, &Pose::IDENTITY, &b, &Pose::IDENTITY, &req).unwrap();
            assert_eq!(c.colliding, exact.distance <= margin, "margin {margin}, distance {}", exact.distance);
        }
    }
}
