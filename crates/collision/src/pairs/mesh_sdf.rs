//! Contacts of a non-convex solid: a closed triangle mesh carrying a signed distance field (spec §A.14).
//!
//! **Candidates.** As Genesis's vertex–SDF and edge–SDF tests (§A.14.1), in two orderings, the second only when the
//! first found nothing (§A.14.1's "cleaner rule"; mixing them would mix the two shapes' normals in one manifold):
//! - the other shape's *probes* inside the mesh's field `F`: a sphere's centre and a capsule's segment with their
//!   radius (depth `r − F`), the corners and edges of a box or convex mesh, a cylinder's sampled rims with each
//!   rim's point deepest along the field's descent and the side line between those two,
//!   the vertices of another mesh, and for every convex shape its support point against the field's gradient
//!   (a few fixed-point steps `p ← support(−∇F(p))`), so that a smooth shape (ellipsoid, cylinder side) finds its
//!   deepest point between its samples. An edge keeps its deepest point: the bisection of §A.14.1 on `∇F·e` when
//!   `F` falls then rises along it;
//! - then the mesh's vertices inside the other shape (its closed-form inside depth: box, sphere, capsule, cylinder,
//!   ellipsoid to first order, convex mesh by its face planes, plane; another mesh by its field). Between two meshes
//!   A's vertices in B's field come first; edges of either inside the other's field are tried only when no vertex
//!   is, as §A.14.1's fallback.
//!
//! Each candidate carries the probe's deepest point `x`, the depth `p > 0` and the separating direction `n` (the
//! field's outward unit gradient); the contact is at `x + ½ p n` (midpoint of the surfaces), normal `n` turned to
//! point from B to A (spec §3).
//!
//! **Manifold.** Genesis adds perturbation contacts around the deepest vertex; here the manifold is chosen from the
//! candidates directly, as Genesis's newer pipeline does (§A.14.2): the deepest first, then repeatedly the candidate
//! farthest from those kept, until `max_contacts` or until the farthest is within the dedup tolerance. This is a
//! selection of representative points, like box–box's reduction, not a truncation of a list.

use glam::DVec3;
use signorini_geometry::{Aabb, ConvexMesh, Plane, Pose, Shape, SignedDistanceField, TriangleMesh};

/// Reusable memory of [`sdf_contacts`].
#[derive(Debug, Clone, Default)]
pub(crate) struct SdfScratch {
    candidates: Vec<SdfCandidate>,
    near: NearVertices,
}

/// The mesh vertices near a region: a descent of the mesh's BVH through the nodes whose box passes a test.
#[derive(Debug, Clone, Default)]
struct NearVertices {
    vertices: Vec<u32>,
    stack: Vec<usize>,
}

impl NearVertices {
    /// The indices of the vertices of the triangles in BVH leaves reached through boxes (mesh frame) that pass
    /// `test`, each once, ascending.
    fn of(&mut self, mesh: &TriangleMesh, test: impl Fn(&Aabb) -> bool) -> &[u32] {
        let bvh = mesh.bvh();
        self.vertices.clear();
        self.stack.clear();
        if bvh.root().is_some_and(|r| test(&r.aabb)) {
            self.stack.push(0);
        }
        while let Some(n) = self.stack.pop() {
            let node = &bvh.nodes()[n];
            match node.children() {
                None => {
                    for &t in bvh.leaf_primitives(node) {
                        self.vertices.extend_from_slice(&mesh.triangles()[t as usize]);
                    }
                }
                Some(children) => {
                    self.stack.extend(children.into_iter().filter(|&c| test(&bvh.nodes()[c].aabb)));
                }
            }
        }
        self.vertices.sort_unstable();
        self.vertices.dedup();
        &self.vertices
    }
}

/// One penetrating point (world frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SdfCandidate {
    /// The probe's deepest point.
    point: DVec3,
    /// Separating direction: moving the probe's shape along it separates the pair.
    normal: DVec3,
    /// Depth > 0.
    depth: f64,
    /// Whether the probe belongs to shape A.
    probe_is_a: bool,
}

/// A shape's mesh and its field, when it is a triangle mesh with one.
fn field(s: &Shape) -> Option<(&TriangleMesh, &SignedDistanceField)> {
    match s {
        Shape::TriangleMesh(m) => m.sdf().map(|f| (&**m, f)),
        _ => None,
    }
}

/// The least `|∇F·e|` at an edge's ends for §A.14.1's bracket test (cosine of 89.94°).
const SLOPE_EPSILON: f64 = 1e-3;
/// Fixed-point steps of the support probe.
const SUPPORT_STEPS: usize = 4;
/// Samples per rim of a cylinder probe (sagitta `r (1 − cos(π/32))`, 0.5 % of the radius).
const RIM_SAMPLES: usize = 32;

/// Contacts of a pair where at least one shape is a triangle mesh with a field (see the module docs); `None` when
/// the pair is not one this routine answers (a mesh without a field, or a height field).
#[allow(clippy::too_many_arguments)]
pub(crate) fn sdf_contacts(
    scratch: &mut SdfScratch,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    tol: f64,
    max_contacts: usize,
    out: &mut Vec<crate::contact::Contact>,
) -> Option<()> {
    let SdfScratch { candidates, near } = scratch;
    candidates.clear();
    if matches!(a, Shape::HeightField(_)) || matches!(b, Shape::HeightField(_)) {
        return None;
    }
    let (fa, fb) = (field(a), field(b));
    if matches!(a, Shape::TriangleMesh(_)) && fa.is_none()
        || matches!(b, Shape::TriangleMesh(_)) && fb.is_none()
    {
        return None;
    }
    match (fa, fb) {
        (Some((ma, sa)), Some((mb, sb))) => {
            vertices_in_field(ma, pose_a, sb, pose_b, true, near, candidates);
            if candidates.is_empty() {
                vertices_in_field(mb, pose_b, sa, pose_a, false, near, candidates);
            }
            if candidates.is_empty() {
                edges_in_field(ma, pose_a, sb, pose_b, true, candidates);
                edges_in_field(mb, pose_b, sa, pose_a, false, candidates);
            }
        }
        (Some((ma, sa)), None) => probe_pair(ma, sa, pose_a, b, pose_b, true, near, candidates),
        (None, Some((mb, sb))) => probe_pair(mb, sb, pose_b, a, pose_a, false, near, candidates),
        (None, None) => return None,
    }
    select(candidates, tol, max_contacts.max(1), out);
    Some(())
}

/// The candidates between a mesh with a field (shape A when `mesh_is_a`) and a shape without one.
#[allow(clippy::too_many_arguments)]
fn probe_pair(
    mesh: &TriangleMesh,
    field: &SignedDistanceField,
    pose_m: &Pose,
    other: &Shape,
    pose_o: &Pose,
    mesh_is_a: bool,
    near: &mut NearVertices,
    out: &mut Vec<SdfCandidate>,
) {
    let probe_is_a = !mesh_is_a;
    let probe = FieldProbe { field, pose: pose_m, probe_is_a, bounds: field.aabb() };
    match other {
        Shape::Plane(p) => {
            mesh_inside_plane(mesh, pose_m, p, pose_o, mesh_is_a, near, out);
            return;
        }
        Shape::Sphere(s) => probe.point(pose_o.translation, s.radius(), out),
        Shape::Capsule(c) => {
            let [p0, p1] = c.segment().map(|p| pose_o.transform_point(p));
            probe.segment(p0, p1, c.radius(), out);
        }
        Shape::Box(bx) => {
            let h = bx.half_extents();
            let corner = |i: usize| {
                pose_o.transform_point(DVec3::new(
                    if i & 1 == 1 { h.x } else { -h.x },
                    if i & 2 == 2 { h.y } else { -h.y },
                    if i & 4 == 4 { h.z } else { -h.z },
                ))
            };
            for i in 0..8 {
                probe.point(corner(i), 0.0, out);
            }
            for i in 0..8 {
                for bit in [1, 2, 4] {
                    if i & bit == 0 {
                        probe.segment(corner(i), corner(i | bit), 0.0, out);
                    }
                }
            }
        }
        Shape::ConvexMesh(cm) => {
            let v = cm.vertices();
            for &p in v {
                probe.point(pose_o.transform_point(p), 0.0, out);
            }
            for &[i, j] in cm.edges() {
                let (p0, p1) = (v[i as usize], v[j as usize]);
                probe.segment(pose_o.transform_point(p0), pose_o.transform_point(p1), 0.0, out);
            }
        }
        Shape::Cylinder(cy) => {
            let (r, hl) = (cy.radius(), cy.half_length());
            for z in [-hl, hl] {
                for k in 0..RIM_SAMPLES {
                    let t = k as f64 * std::f64::consts::TAU / RIM_SAMPLES as f64;
                    probe.point(pose_o.transform_point(DVec3::new(r * t.cos(), r * t.sin(), z)), 0.0, out);
                }
            }
        }
        Shape::Ellipsoid(_) => {}
        Shape::TriangleMesh(_) | Shape::HeightField(_) => return,
    }
    if matches!(other, Shape::Box(_) | Shape::ConvexMesh(_) | Shape::Ellipsoid(_)) {
        probe.support(other, pose_o, out);
    }
    // A sphere or capsule the field found clear of the surface has no mesh vertex inside it either.
    if out.is_empty() && !matches!(other, Shape::Sphere(_) | Shape::Capsule(_)) {
        mesh_inside_convex(mesh, pose_m, other, pose_o, mesh_is_a, near, out);
    }
}

/// Probes of one shape against a mesh's field.
struct FieldProbe<'a> {
    field: &'a SignedDistanceField,
    pose: &'a Pose,
    probe_is_a: bool,
    bounds: Aabb,
}

impl FieldProbe<'_> {
    /// The field value and world outward unit gradient at a world point.
    fn eval(&self, x: DVec3) -> (f64, DVec3) {
        let (v, g) = self.field.value_and_gradient(self.pose.inverse_transform_point(x));
        (v, self.pose.transform_vector(g).normalize_or_zero())
    }

    /// A point with a radius (sphere centre, corner, vertex): a candidate when it reaches into the field.
    fn point(&self, x: DVec3, radius: f64, out: &mut Vec<SdfCandidate>) {
        let local = self.pose.inverse_transform_point(x);
        if !self.bounds.expanded(radius).contains_point(local) {
            return;
        }
        let (v, n) = self.eval(x);
        let depth = radius - v;
        if depth > 0.0 && n != DVec3::ZERO {
            out.push(SdfCandidate { point: x - radius * n, normal: n, depth, probe_is_a: self.probe_is_a });
        }
    }

    /// The deepest point of a segment with a radius: §A.14.1's bracket test and bisection on `∇F·e`, down to a
    /// tenth of a cell. The end points themselves are probed by [`FieldProbe::point`] (a capsule's here).
    fn segment(&self, p0: DVec3, p1: DVec3, radius: f64, out: &mut Vec<SdfCandidate>) {
        let len = (p1 - p0).length();
        if radius > 0.0 {
            self.point(p0, radius, out);
            self.point(p1, radius, out);
        }
        if len <= self.field.cell_size() {
            return;
        }
        let e = (p1 - p0) / len;
        let in_grid =
            |p: DVec3| self.bounds.expanded(radius).contains_point(self.pose.inverse_transform_point(p));
        if !in_grid(p0) && !in_grid(p1) && !in_grid(0.5 * (p0 + p1)) {
            return;
        }
        let slope = |p: DVec3| self.eval(p).1.dot(e);
        let (mut lo, mut hi) = (p0, p1);
        // Along a flat face the slope is zero up to rounding: no minimum inside the edge then.
        if !(slope(lo) < -SLOPE_EPSILON && slope(hi) > SLOPE_EPSILON) {
            return;
        }
        let stop = 0.1 * self.field.cell_size();
        while (hi - lo).length() > stop {
            let mid = 0.5 * (lo + hi);
            if slope(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        self.point(0.5 * (lo + hi), radius, out);
    }

    /// The support point of a convex shape against the field's gradient, by fixed-point steps from its centre.
    fn support(&self, shape: &Shape, pose: &Pose, out: &mut Vec<SdfCandidate>) {
        let mut x = pose.translation;
        for _ in 0..SUPPORT_STEPS {
            let (_, n) = self.eval(x);
            match shape.world_support(pose, -n) {
                Ok(s) if n != DVec3::ZERO => x = s,
                _ => return,
            }
        }
        self.point(x, 0.0, out);
    }
}

/// The vertices of `mesh` inside another mesh's field.
#[allow(clippy::too_many_arguments)]
fn vertices_in_field(
    mesh: &TriangleMesh,
    pose_m: &Pose,
    field: &SignedDistanceField,
    pose_f: &Pose,
    mesh_is_a: bool,
    near: &mut NearVertices,
    out: &mut Vec<SdfCandidate>,
) {
    let probe = FieldProbe { field, pose: pose_f, probe_is_a: mesh_is_a, bounds: field.aabb() };
    let region = field.aabb().transformed_corners_bound(&pose_m.inv_compose(pose_f));
    for &v in near.of(mesh, |b| b.overlaps(&region)) {
        let v = mesh.vertices()[v as usize];
        if region.contains_point(v) {
            probe.point(pose_m.transform_point(v), 0.0, out);
        }
    }
}

/// The edges of `mesh` inside another mesh's field (the fallback when no vertex is).
fn edges_in_field(
    mesh: &TriangleMesh,
    pose_m: &Pose,
    field: &SignedDistanceField,
    pose_f: &Pose,
    mesh_is_a: bool,
    out: &mut Vec<SdfCandidate>,
) {
    let probe = FieldProbe { field, pose: pose_f, probe_is_a: mesh_is_a, bounds: field.aabb() };
    let region = field.aabb().transformed_corners_bound(&pose_m.inv_compose(pose_f));
    let v = mesh.vertices();
    for &[i, j] in mesh.edges() {
        let (p0, p1) = (v[i as usize], v[j as usize]);
        if region.contains_point(p0) || region.contains_point(p1) {
            probe.segment(pose_m.transform_point(p0), pose_m.transform_point(p1), 0.0, out);
        }
    }
}

/// The mesh's vertices below a plane (`z ≤ 0` of its frame; a two-sided plane by the side of the mesh's origin).
fn mesh_inside_plane(
    mesh: &TriangleMesh,
    pose_m: &Pose,
    plane: &Plane,
    pose_p: &Pose,
    mesh_is_a: bool,
    near: &mut NearVertices,
    out: &mut Vec<SdfCandidate>,
) {
    let mut n = pose_p.transform_vector(DVec3::Z);
    if plane.is_two_sided() && n.dot(pose_m.translation - pose_p.translation) < 0.0 {
        n = -n;
    }
    // The plane in the mesh frame: `n_m · x < offset` below it.
    let n_m = pose_m.inverse_transform_vector(n);
    let offset = n_m.dot(pose_m.inverse_transform_point(pose_p.translation));
    let below = |b: &Aabb| n_m.dot(b.center()) - n_m.abs().dot(b.half_extents()) < offset;
    for &v in near.of(mesh, below) {
        let x = pose_m.transform_point(mesh.vertices()[v as usize]);
        let depth = -n.dot(x - pose_p.translation);
        if depth > 0.0 {
            out.push(SdfCandidate { point: x, normal: n, depth, probe_is_a: mesh_is_a });
        }
    }
}

/// The mesh's vertices inside a bounded convex shape, by the shape's inside depth.
fn mesh_inside_convex(
    mesh: &TriangleMesh,
    pose_m: &Pose,
    shape: &Shape,
    pose_s: &Pose,
    mesh_is_a: bool,
    near: &mut NearVertices,
    out: &mut Vec<SdfCandidate>,
) {
    let rel = pose_s.inv_compose(pose_m);
    let region = shape.local_aabb().transformed_corners_bound(&pose_m.inv_compose(pose_s));
    for &v in near.of(mesh, |b| b.overlaps(&region)) {
        let v = mesh.vertices()[v as usize];
        if !region.contains_point(v) {
            continue;
        }
        if let Some((depth, n)) = inside_depth(shape, rel.transform_point(v)) {
            out.push(SdfCandidate {
                point: pose_m.transform_point(v),
                normal: pose_s.transform_vector(n),
                depth,
                probe_is_a: mesh_is_a,
            });
        }
    }
}

/// How deep a local point lies inside a bounded convex shape, and the outward unit normal to leave it by; `None`
/// outside (and for the unbounded or non-convex shapes, which have their own routines here). Exact except for the
/// ellipsoid (first order in the implicit function).
fn inside_depth(shape: &Shape, x: DVec3) -> Option<(f64, DVec3)> {
    let positive = |(d, n): (f64, DVec3)| (d > 0.0).then_some((d, n));
    match shape {
        Shape::Sphere(s) => positive((s.radius() - x.length(), x.normalize_or(DVec3::Z))),
        Shape::Capsule(c) => {
            let q = DVec3::new(0.0, 0.0, x.z.clamp(-c.half_length(), c.half_length()));
            positive((c.radius() - (x - q).length(), (x - q).normalize_or(DVec3::Z)))
        }
        Shape::Box(b) => {
            let q = b.half_extents() - x.abs();
            let axis = if q.x <= q.y && q.x <= q.z {
                0
            } else if q.y <= q.z {
                1
            } else {
                2
            };
            let mut n = DVec3::ZERO;
            n[axis] = if x[axis] < 0.0 { -1.0 } else { 1.0 };
            positive((q[axis], n))
        }
        Shape::Cylinder(c) => {
            let radial = c.radius() - x.truncate().length();
            let axial = c.half_length() - x.z.abs();
            if radial <= 0.0 || axial <= 0.0 {
                None
            } else if radial < axial {
                Some((radial, DVec3::new(x.x, x.y, 0.0).normalize_or(DVec3::X)))
            } else {
                Some((axial, DVec3::new(0.0, 0.0, if x.z < 0.0 { -1.0 } else { 1.0 })))
            }
        }
        Shape::Ellipsoid(e) => {
            let a = e.semi_axes();
            let f2 = (x / a).length_squared();
            let grad = x / (a * a);
            let g = grad.length();
            let depth = if g > 0.0 { ((1.0 - f2) / (2.0 * g)).min(a.min_element()) } else { a.min_element() };
            (f2 < 1.0).then(|| (depth, grad.normalize_or(DVec3::Z)))
        }
        Shape::ConvexMesh(m) => convex_mesh_depth(m, x),
        Shape::Plane(_) | Shape::TriangleMesh(_) | Shape::HeightField(_) => None,
    }
}

/// Depth inside a convex polytope: the least distance to its face planes.
fn convex_mesh_depth(m: &ConvexMesh, x: DVec3) -> Option<(f64, DVec3)> {
    let mut best = (f64::INFINITY, DVec3::Z);
    for p in 0..m.polygon_count() {
        let n = m.polygon_normal(p);
        let gap = n.dot(m.vertices()[m.polygon(p)[0] as usize] - x);
        if gap <= 0.0 {
            return None;
        }
        if gap < best.0 {
            best = (gap, n);
        }
    }
    Some(best)
}

/// The manifold from the candidates (see the module docs), appended to `out` as simulator contacts.
fn select(
    candidates: &mut [SdfCandidate],
    tol: f64,
    max_contacts: usize,
    out: &mut Vec<crate::contact::Contact>,
) {
    if candidates.is_empty() {
        return;
    }
    candidates.sort_by(|p, q| q.depth.total_cmp(&p.depth));
    let start = out.len();
    let contact = |c: &SdfCandidate| {
        let position = c.point + 0.5 * c.depth * c.normal;
        let normal = if c.probe_is_a { c.normal } else { -c.normal };
        crate::contact::Contact { position, normal, penetration: c.depth }
    };
    out.push(contact(&candidates[0]));
    while out.len() - start < max_contacts {
        let mut best: Option<(f64, usize)> = None;
        for (i, c) in candidates.iter().enumerate().skip(1) {
            let gap = out[start..]
                .iter()
                .map(|k| (k.position - (c.point + 0.5 * c.depth * c.normal)).length_squared())
                .fold(f64::INFINITY, f64::min);
            if best.is_none_or(|(g, _)| gap > g) {
                best = Some((gap, i));
            }
        }
        match best {
            Some((gap, i)) if gap > tol * tol => out.push(contact(&candidates[i])),
            _ => break,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::f64::consts::{FRAC_PI_2, TAU};

    use std::sync::Arc;

    use signorini_geometry::{Cuboid, SdfSettings, Sphere};

    use super::*;
    use crate::dialect::{MujocoDispatcher, PairDispatcher};
    use crate::error::CollisionError;
    use crate::query::{ContactRequest, contacts};

    /// A hemispherical bowl: outer radius `ro`, inner `ri`, both spheres centred at `(0, 0, ro)`, so the outside
    /// rests on z = 0 and the hollow's bottom is at `ro − ri`; the rim is the flat ring at `z = ro`. (A wall of
    /// four cells: a point 3 mm into a wall of two cells would already read the far side's gradient.)
    pub(crate) fn bowl(ro: f64, ri: f64) -> TriangleMesh {
        let steps = 24;
        let mut profile = Vec::new();
        for s in 0..=steps {
            let phi = FRAC_PI_2 * s as f64 / steps as f64;
            profile.push((ro * phi.sin(), ro - ro * phi.cos()));
        }
        for s in (0..=steps).rev() {
            let phi = FRAC_PI_2 * s as f64 / steps as f64;
            profile.push((ri * phi.sin(), ro - ri * phi.cos()));
        }
        TriangleMesh::of_revolution(&profile, 64).unwrap().with_sdf(&SdfSettings::default()).unwrap()
    }

    fn box_mesh(h: DVec3) -> TriangleMesh {
        TriangleMesh::cuboid(h).unwrap()
    }

    fn at(x: f64, y: f64, z: f64) -> Pose {
        Pose::from_translation(DVec3::new(x, y, z))
    }

    #[test]
    fn ball_in_bowl_matches_the_sphere_formula() {
        let (ro, ri, r) = (0.12, 0.1, 0.02);
        let bowl = Shape::from(bowl(ro, ri));
        assert!(matches!(&bowl, Shape::TriangleMesh(m) if m.is_closed()));
        let ball = Shape::from(Sphere::new(r).unwrap());
        let centre = DVec3::new(0.0, 0.0, ro);
        for (tilt, depth) in [(0.0f64, 0.002), (0.5, 0.001), (1.1, 0.003), (0.8, 0.0005)] {
            let dir = DVec3::new(tilt.sin(), 0.0, -f64::cos(tilt));
            let c = centre + dir * (ri - r + depth);
            let m = contacts(&ball, &at(c.x, c.y, c.z), &bowl, &Pose::IDENTITY, &ContactRequest::default())
                .unwrap();
            assert!(!m.is_empty(), "tilt {tilt}: no contact");
            let deepest = m.contacts[0];
            assert!(
                (deepest.penetration - depth).abs() < 4e-4,
                "tilt {tilt}: {} vs {depth}",
                deepest.penetration
            );
            // The facets near the pole tilt by half the profile step (1.9°).
            assert!(deepest.normal.dot(-dir) > 0.999, "tilt {tilt}: normal {}", deepest.normal);
            let surface = centre + dir * ri;
            assert!((deepest.position - surface).length() < 2e-3, "tilt {tilt}: at {}", deepest.position);
        }
        // In the hollow without touching: no contact, where the convex hull would report one.
        let m =
            contacts(&ball, &at(0.0, 0.0, 0.05), &bowl, &Pose::IDENTITY, &ContactRequest::default()).unwrap();
        assert!(m.is_empty(), "{m:?}");
        let hull = MujocoDispatcher
            .contacts(&ball, &at(0.0, 0.0, 0.05), &bowl, &Pose::IDENTITY, &MujocoDispatcher.default_request())
            .unwrap();
        assert!(!hull.is_empty(), "MuJoCo's rule collides the hull");
    }

    #[test]
    fn box_on_a_mesh_box_has_its_four_corners() {
        let h = DVec3::new(0.2, 0.2, 0.05);
        let slab = Shape::from(box_mesh(h).with_sdf(&SdfSettings::default()).unwrap());
        let cube = Shape::from(Cuboid::new(DVec3::splat(0.03)).unwrap());
        let depth = 0.002;
        let m = contacts(
            &cube,
            &at(0.05, -0.02, h.z + 0.03 - depth),
            &slab,
            &Pose::IDENTITY,
            &ContactRequest::default(),
        )
        .unwrap();
        assert_eq!(m.len(), 4, "{m:?}");
        for c in &m.contacts {
            assert!((c.penetration - depth).abs() < 1e-4, "{c:?}");
            assert!(c.normal.dot(DVec3::Z) > 0.999, "{c:?}");
            assert!((c.position.z - (h.z - 0.5 * depth)).abs() < 1e-4, "{c:?}");
        }
        let mut xy: Vec<(i32, i32)> = m
            .contacts
            .iter()
            .map(|c| ((c.position.x - 0.05).signum() as i32, (c.position.y + 0.02).signum() as i32))
            .collect();
        xy.sort();
        assert_eq!(xy, [(-1, -1), (-1, 1), (1, -1), (1, 1)]);
        // Swapped, the normals turn.
        let s = contacts(
            &slab,
            &Pose::IDENTITY,
            &cube,
            &at(0.05, -0.02, h.z + 0.03 - depth),
            &ContactRequest::default(),
        )
        .unwrap();
        assert_eq!(s.len(), 4);
        assert!(s.contacts.iter().all(|c| c.normal.dot(DVec3::Z) < -0.999));
    }

    #[test]
    fn mesh_on_a_plane_and_on_a_mesh() {
        let h = DVec3::new(0.1, 0.05, 0.02);
        let mesh = Shape::from(box_mesh(h).with_sdf(&SdfSettings::default()).unwrap());
        let plane = Shape::from(Plane::new());
        let tilt = Pose::new(DVec3::new(0.0, 0.0, 0.04), glam::DQuat::from_rotation_y(0.3)).unwrap();
        let lowest = (0..8)
            .map(|i| {
                let p = DVec3::new(
                    if i & 1 == 1 { h.x } else { -h.x },
                    if i & 2 == 2 { h.y } else { -h.y },
                    if i & 4 == 4 { h.z } else { -h.z },
                );
                tilt.transform_point(p).z
            })
            .fold(f64::INFINITY, f64::min);
        assert!(lowest < 0.0);
        let m = contacts(&mesh, &tilt, &plane, &Pose::IDENTITY, &ContactRequest::default()).unwrap();
        assert_eq!(m.len(), 2, "the two lowest corners: {m:?}");
        assert!((m.contacts[0].penetration + lowest).abs() < 1e-12);
        assert!(m.contacts.iter().all(|c| c.normal == DVec3::Z));
        // Two meshes: the slab sunk 3 mm into another.
        let other =
            Shape::from(box_mesh(DVec3::new(0.3, 0.3, 0.05)).with_sdf(&SdfSettings::default()).unwrap());
        let m =
            contacts(&mesh, &at(0.0, 0.0, 0.07 - 0.003), &other, &Pose::IDENTITY, &ContactRequest::default())
                .unwrap();
        assert_eq!(m.len(), 4, "{m:?}");
        assert!(
            m.contacts.iter().all(|c| (c.penetration - 0.003).abs() < 2e-4 && c.normal.dot(DVec3::Z) > 0.999)
        );
    }

    /// How deep a convex shape reaches into the bowl's spherical hollow (centre `c`, radius `ri`): the farthest of
    /// its support points from `c`, over a fine grid of directions, minus `ri` (brute force).
    fn hollow_depth(shape: &Shape, pose: &Pose, c: DVec3, ri: f64) -> f64 {
        let mut far: f64 = 0.0;
        for i in 0..=90 {
            for j in 0..180 {
                let (t, p) = (std::f64::consts::PI * i as f64 / 90.0, TAU * j as f64 / 180.0);
                let d = DVec3::new(t.sin() * p.cos(), t.sin() * p.sin(), t.cos());
                far = far.max((shape.world_support(pose, d).unwrap() - c).length());
            }
        }
        far - ri
    }

    #[test]
    fn every_convex_probe_finds_the_bowl() {
        let (ro, ri) = (0.12, 0.1);
        let bowl = Shape::from(bowl(ro, ri));
        let centre = DVec3::new(0.0, 0.0, ro);
        let hull =
            signorini_geometry::ConvexMesh::from_points(box_mesh(DVec3::splat(0.015)).vertices()).unwrap();
        let shapes: Vec<Shape> = vec![
            signorini_geometry::Capsule::new(0.015, 0.02).unwrap().into(),
            signorini_geometry::Cylinder::new(0.015, 0.02).unwrap().into(),
            signorini_geometry::Ellipsoid::new(DVec3::new(0.02, 0.015, 0.015)).unwrap().into(),
            Cuboid::new(DVec3::splat(0.015)).unwrap().into(),
            Shape::ConvexMesh(Arc::new(hull)),
        ];
        for shape in shapes {
            let kind = shape.kind().name();
            for tilt in [0.0, 0.4, 1.0, FRAC_PI_2] {
                let pose_at =
                    |z: f64| Pose::new(DVec3::new(0.01, 0.0, z), glam::DQuat::from_rotation_y(tilt)).unwrap();
                // The height at which the reference depth is `depth`, by bisection (deeper as z falls).
                let height = |depth: f64| {
                    let (mut lo, mut hi) = (ro - ri, ro);
                    for _ in 0..60 {
                        let mid = 0.5 * (lo + hi);
                        if hollow_depth(&shape, &pose_at(mid), centre, ri) > depth {
                            lo = mid
                        } else {
                            hi = mid
                        }
                    }
                    0.5 * (lo + hi)
                };
                let pose = pose_at(height(0.003));
                let m = contacts(&shape, &pose, &bowl, &Pose::IDENTITY, &ContactRequest::default()).unwrap();
                let d = m.max_penetration();
                // Facets (≤ 1.2e-4 m), the grid and the cylinder's 16 rim samples (sagitta 3e-4 m).
                assert!((d - 0.003).abs() < 6e-4, "{kind} tilted {tilt}: {d} vs 0.003");
                for c in &m.contacts {
                    let inward = (centre - c.position).normalize();
                    assert!(c.normal.dot(inward) > 0.99, "{kind} tilted {tilt}: {c:?}");
                }
                let clear = pose_at(height(-0.003));
                let m = contacts(&shape, &clear, &bowl, &Pose::IDENTITY, &ContactRequest::default()).unwrap();
                assert!(m.is_empty(), "{kind} tilted {tilt}, 3 mm clear: {m:?}");
            }
        }
    }

    /// Random poses of every shape kind around and inside the bowl and a mesh box (deep overlaps, coincident centres,
    /// far apart): never a panic; every contact finite, with a unit normal and a positive depth; at most the cap.
    #[test]
    fn random_poses_give_sane_manifolds() {
        let bowl = Shape::from(bowl(0.12, 0.1));
        let slab =
            Shape::from(box_mesh(DVec3::new(0.1, 0.08, 0.02)).with_sdf(&SdfSettings::default()).unwrap());
        let hull =
            signorini_geometry::ConvexMesh::from_points(box_mesh(DVec3::splat(0.03)).vertices()).unwrap();
        let others: Vec<Shape> = vec![
            Sphere::new(0.03).unwrap().into(),
            signorini_geometry::Capsule::new(0.02, 0.04).unwrap().into(),
            signorini_geometry::Cylinder::new(0.03, 0.02).unwrap().into(),
            signorini_geometry::Ellipsoid::new(DVec3::new(0.04, 0.03, 0.02)).unwrap().into(),
            Cuboid::new(DVec3::new(0.03, 0.02, 0.04)).unwrap().into(),
            Shape::ConvexMesh(Arc::new(hull)),
            Plane::new().into(),
            slab.clone(),
        ];
        let mut rng = crate::test_rng::Rng(7);
        let request = ContactRequest::default();
        for mesh in [&bowl, &slab] {
            for other in &others {
                for k in 0..60 {
                    let pose_m = rng.pose(0.05);
                    let pose_o = if k == 0 { pose_m } else { rng.pose(0.15) };
                    for (a, pa, b, pb) in [(mesh, &pose_m, other, &pose_o), (other, &pose_o, mesh, &pose_m)] {
                        let m = contacts(a, pa, b, pb, &request).unwrap();
                        assert!(m.len() <= request.max_sdf_contacts, "{} contacts", m.len());
                        for c in &m.contacts {
                            assert!(c.position.is_finite() && c.penetration.is_finite(), "{c:?}");
                            assert!(c.penetration > 0.0, "{c:?}");
                            assert!((c.normal.length() - 1.0).abs() < 1e-9, "{c:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_mesh_without_a_field_is_a_typed_error() {
        let bare = Shape::from(box_mesh(DVec3::splat(0.1)));
        let ball = Shape::from(Sphere::new(0.05).unwrap());
        let err = contacts(&bare, &Pose::IDENTITY, &ball, &at(0.0, 0.0, 0.12), &ContactRequest::default())
            .unwrap_err();
        assert!(matches!(err, CollisionError::MeshWithoutSdf { .. }), "{err}");
        assert!(err.to_string().contains("with_sdf"), "{err}");
    }
}
