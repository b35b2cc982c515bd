//! EPA (Expanding Polytope Algorithm): penetration depth, normal and witnesses of intersecting convex shapes.
//!
//! Starting from a polytope inside `D = A ⊖ B` that encloses the origin (grown from GJK's final simplex), repeatedly
//! take the face closest to the origin, query the support `w` along its outward normal `n`, and stop when `w` does not
//! lie further than the face (`n·w − d ≤ tolerance · max(d, size)`); otherwise carve out every face that sees `w` and
//! cone the horizon to `w`. The closest face gives the depth `d` (distance from the origin to `∂D`), the normal `n`
//! (moving B by `d n` separates the shapes, so `n` points from A towards B) and, from the barycentric coordinates of
//! `d n` in that face, the witness points on A and B.
//!
//! The polytope keeps, for every face, its three neighbours, so that an iteration touches only the faces near the new
//! point: the carved faces are found by a walk from the closest face across edges, and the horizon is the boundary of
//! that walk. The closest face is a scan of a packed array of face distances (carved faces read `+∞`; ties go to the
//! older face), cheaper than a heap at EPA's few dozen faces. All storage lives in an [`EpaWorkspace`] that the
//! caller reuses: no allocation per query once it has grown.

use glam::DVec3;

use super::gjk::support_along;
use super::minkowski::{CoreShape, MinkowskiPair, SupportPoint};
use super::simplex::Simplex;
use super::triangle_triangle::{Plane, closest_point_triangle};

/// EPA settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpaSettings {
    /// Relative tolerance on the depth. Default 1e-10.
    pub tolerance: f64,
    /// Iteration cap (support queries). Default 255.
    pub max_iterations: u32,
}

impl Default for EpaSettings {
    fn default() -> Self {
        Self { tolerance: 1e-10, max_iterations: 255 }
    }
}

/// EPA output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpaOutput {
    /// Penetration depth ≥ 0.
    pub depth: f64,
    /// Unit normal from A towards B (translate B by `depth · normal` to separate).
    pub normal: DVec3,
    /// Witness on A (deepest point of A inside B).
    pub point_a: DVec3,
    /// Witness on B.
    pub point_b: DVec3,
    /// Support queries made.
    pub iterations: u32,
    /// Whether the tolerance was met (false: iteration cap or numerical breakdown; the best face is returned).
    pub converged: bool,
}

/// A face of the polytope: vertices `v` counter-clockwise seen from outside, `adj[k]` the face across the edge
/// `(v[k], v[k+1])` and `adj_edge[k]` that edge's index in it, outward unit normal `n` and distance `d = n·v[0]` from
/// the origin.
#[derive(Debug, Clone, Copy)]
struct Face {
    v: [u32; 3],
    adj: [u32; 3],
    adj_edge: [u8; 3],
    n: DVec3,
    d: f64,
}

/// An edge of the horizon: `(p, q)` as the carved face ran it, the kept face `outer` across it and the edge's index
/// `k` in that face.
#[derive(Debug, Clone, Copy)]
struct HorizonEdge {
    p: u32,
    q: u32,
    outer: u32,
    k: u8,
}

/// Reusable EPA storage.
#[derive(Debug, Clone, Default)]
pub struct EpaWorkspace {
    verts: Vec<SupportPoint>,
    faces: Vec<Face>,
    /// `faces[i].d` while face `i` is part of the polytope, `+∞` once carved.
    dist: Vec<f64>,
    stack: Vec<u32>,
    horizon: Vec<HorizonEdge>,
    /// Per vertex: `(iteration stamp, horizon edge starting there)`, to close the cone in one pass.
    starts: Vec<(u32, u32)>,
    /// The vertices of the face the last run answered from (`None` when it found none: touching shapes).
    answer: Option<[SupportPoint; 3]>,
}

impl EpaWorkspace {
    /// An empty workspace; it grows on first use and is reused afterwards.
    pub fn new() -> Self {
        Self::default()
    }

    /// The faces of the last polytope that lie closer to the origin than `bound`: their distance (from the origin to
    /// the triangle, not its plane) and outward unit normal. The polytope lies inside `A ⊖ B`, so along any direction
    /// `u` the boundary of `A ⊖ B` is no nearer than the face that `u` crosses: a direction whose `h_D` is below
    /// `bound` lies in the cone of one of these faces.
    pub(crate) fn faces_closer_than(&self, bound: f64) -> impl Iterator<Item = (f64, DVec3)> + '_ {
        // The plane's distance `d` is at most the triangle's: only faces below the bound by it are measured.
        self.faces.iter().zip(&self.dist).filter(move |&(_, &d)| d < bound).filter_map(move |(f, _)| {
            let t = f.v.map(|i| self.verts[i as usize].w);
            let reach = closest_point_triangle(DVec3::ZERO, &t, &Plane::of(&t)).length();
            (reach < bound).then_some((reach, f.n))
        })
    }

    /// The support points of the face the last run answered from, with their witnesses on A and B (world, on the
    /// poses it ran on), or `None` when it built no polytope (touching shapes).
    pub fn answer_face(&self) -> Option<[SupportPoint; 3]> {
        self.answer
    }

    fn alive(&self, f: usize) -> bool {
        self.dist[f] != f64::INFINITY
    }

    /// Adds the face `(a, b, c)`, turned to face away from `interior`, with no neighbours yet. Returns its index, or
    /// `None` for a degenerate triangle.
    fn add_face(&mut self, a: u32, b: u32, c: u32, interior: DVec3) -> Option<u32> {
        let (pa, pb, pc) = (self.verts[a as usize].w, self.verts[b as usize].w, self.verts[c as usize].w);
        let n = (pb - pa).cross(pc - pa);
        let len = n.length();
        if !(len > 0.0) || !len.is_finite() {
            return None;
        }
        let mut n = n / len;
        let mut v = [a, b, c];
        if n.dot(pa - interior) < 0.0 {
            n = -n;
            v = [a, c, b];
        }
        let id = self.faces.len() as u32;
        let d = n.dot(pa);
        self.faces.push(Face { v, adj: [u32::MAX; 3], adj_edge: [0; 3], n, d });
        self.dist.push(d);
        Some(id)
    }

    /// Makes faces `f` and `g` neighbours across edge `k` of `f` and edge `kg` of `g`.
    fn link(&mut self, f: u32, k: usize, g: u32, kg: usize) {
        self.faces[f as usize].adj[k] = g;
        self.faces[f as usize].adj_edge[k] = kg as u8;
        self.faces[g as usize].adj[kg] = f;
        self.faces[g as usize].adj_edge[kg] = k as u8;
    }

    /// The closest face of the polytope: the first smallest distance, so ties go to the older face.
    fn closest_face(&self) -> Option<usize> {
        let mut best = (usize::MAX, f64::INFINITY);
        for (i, &d) in self.dist.iter().enumerate() {
            if d < best.1 {
                best = (i, d);
            }
        }
        (best.0 != usize::MAX).then_some(best.0)
    }

    /// Links the edges of the initial tetrahedron's faces, face `3 − m` being the one without vertex `m`: the edge
    /// `(p, q)` of a face is shared with the face without that face's third vertex. Returns false when that face does
    /// not run the edge the other way.
    fn link_tetrahedron(&mut self) -> bool {
        for f in 0..4 {
            for k in 0..3 {
                let v = self.faces[f].v;
                let (p, q, third) = (v[k], v[(k + 1) % 3], v[(k + 2) % 3]);
                let g = 3 - third as usize;
                let Some(kg) = edge_index(&self.faces[g], q, p) else { return false };
                // Each side sets its own half: g sets this edge when its turn comes.
                self.faces[f].adj[k] = g as u32;
                self.faces[f].adj_edge[k] = kg as u8;
            }
        }
        true
    }

    /// Carves the faces that see `s` (a walk across edges from `start`, which is carved whatever its test says) and
    /// records their boundary in `self.horizon`. Returns the number of carved faces.
    fn carve(&mut self, start: usize, s: DVec3, visible_eps: f64) -> usize {
        self.horizon.clear();
        self.stack.clear();
        self.dist[start] = f64::INFINITY;
        self.stack.push(start as u32);
        let mut carved = 1;
        while let Some(f) = self.stack.pop() {
            let face = self.faces[f as usize];
            for k in 0..3 {
                let g = face.adj[k];
                if !self.alive(g as usize) {
                    continue;
                }
                let other = &self.faces[g as usize];
                if other.n.dot(s - self.verts[other.v[0] as usize].w) > visible_eps {
                    self.dist[g as usize] = f64::INFINITY;
                    self.stack.push(g);
                    carved += 1;
                } else {
                    let (p, q) = (face.v[k], face.v[(k + 1) % 3]);
                    self.horizon.push(HorizonEdge { p, q, outer: g, k: face.adj_edge[k] });
                }
            }
        }
        carved
    }

    /// Cones the horizon to the vertex `new`: one face `(p, q, new)` per horizon edge, linked to the kept face across
    /// `(p, q)` and to its two neighbours in the cone. Returns false when the horizon is not one loop or a face is
    /// degenerate or turned inwards (rounding has broken the polytope).
    fn cone(&mut self, new: u32, interior: DVec3) -> bool {
        let first = self.faces.len() as u32;
        let stamp = new;
        self.starts.resize(self.verts.len(), (u32::MAX, 0));
        for h in 0..self.horizon.len() {
            let HorizonEdge { p, q, outer, k } = self.horizon[h];
            let Some(id) = self.add_face(p, q, new, interior) else { return false };
            if self.faces[id as usize].v != [p, q, new] || self.starts[p as usize].0 == stamp {
                return false;
            }
            self.starts[p as usize] = (stamp, h as u32);
            self.link(id, 0, outer, usize::from(k));
        }
        // The face on (p, q) meets the face on (q, r) across the edge (q, new).
        for h in 0..self.horizon.len() {
            let (seen, g) = self.starts[self.horizon[h].q as usize];
            if seen != stamp {
                return false;
            }
            self.link(first + h as u32, 1, first + g, 2);
        }
        true
    }
}

/// The index `k` of the edge `(p, q)` in `face` (`v[k] = p`, `v[k+1] = q`).
fn edge_index(face: &Face, p: u32, q: u32) -> Option<usize> {
    (0..3).find(|&k| face.v[k] == p && face.v[(k + 1) % 3] == q)
}

/// Runs EPA for an intersecting pair, from GJK's final `simplex` (1 to 4 vertices).
pub fn epa<A: CoreShape, B: CoreShape>(
    pair: &MinkowskiPair<'_, A, B>,
    simplex: &Simplex,
    ws: &mut EpaWorkspace,
    settings: &EpaSettings,
) -> EpaOutput {
    ws.verts.clear();
    ws.faces.clear();
    ws.dist.clear();
    ws.starts.clear();
    ws.answer = None;
    ws.verts.extend_from_slice(&simplex.pts[..simplex.len]);
    let mut iterations = 0u32;
    if !grow_to_tetrahedron(pair, ws, &mut iterations) {
        return touching(pair, simplex);
    }
    let interior = ws.verts.iter().map(|p| p.w).sum::<DVec3>() / ws.verts.len() as f64;
    let [a, b, c, d] = [0u32, 1, 2, 3];
    let ok = ws.add_face(a, b, c, interior).is_some()
        && ws.add_face(a, b, d, interior).is_some()
        && ws.add_face(a, c, d, interior).is_some()
        && ws.add_face(b, c, d, interior).is_some()
        && ws.link_tetrahedron();
    if !ok {
        return touching(pair, simplex);
    }
    let size = ws.verts.iter().map(|p| p.w.length()).fold(0.0, f64::max);

    let mut best = ws.closest_face().map(|f| ws.faces[f]);
    let mut converged = false;
    while iterations < settings.max_iterations {
        let Some(f) = ws.closest_face() else { break };
        let face = ws.faces[f];
        best = Some(face);
        let s = support_along(pair, face.n);
        iterations += 1;
        let reach = face.n.dot(s.w);
        if reach - face.d <= settings.tolerance * face.d.max(size) {
            converged = true;
            break;
        }
        // Faces (nearly) coplanar with the new point stay: carving them would leave a non-convex, self-overlapping
        // polytope on flat regions of A ⊖ B, which are common with boxes and hulls.
        let visible_eps = 1e-12 * size.max(reach.abs());
        let new = ws.verts.len() as u32;
        ws.verts.push(s);
        let carved = ws.carve(f, s.w, visible_eps);
        // The carved faces must form a disk: a triangulated disk of F faces has at most F + 2 boundary edges.
        // Anything else (several components, holes) means rounding has broken the polytope on a degenerate
        // difference (e.g. a needle-thin A ⊖ B); stop with the best face found so far.
        if ws.horizon.len() > carved + 2 || ws.horizon.len() < 3 || !ws.cone(new, interior) {
            break;
        }
    }

    let Some(mut face) = best.or_else(|| ws.closest_face().map(|f| ws.faces[f])) else {
        return touching(pair, simplex);
    };
    // On flat regions of A ⊖ B several coplanar faces share the minimum distance, and the origin's projection lies in
    // only one of them: take the face among the (near-)closest whose barycentric coordinates are least negative.
    let d_min = face.d;
    let mut l = barycentric_unclamped(face.n * face.d, &ws.verts, &face);
    if l.iter().any(|&x| x < 0.0) {
        let near = d_min + 1e-9 * size.max(d_min);
        for (cand, _) in ws.faces.iter().zip(&ws.dist).filter(|&(c, &d)| d != f64::INFINITY && c.d <= near) {
            let lc = barycentric_unclamped(cand.n * cand.d, &ws.verts, cand);
            if min3(lc) > min3(l) {
                face = *cand;
                l = lc;
            }
        }
    }
    let [p0, p1, p2] = face.v.map(|i| ws.verts[i as usize]);
    ws.answer = Some([p0, p1, p2]);
    let l = clamp_barycentric(l);

    // Depth and normal are what EPA certifies; the witnesses are re-centred on their midpoint so that
    // `point_a − point_b = depth · normal` holds exactly (they move by at most the face's rounding residual).
    let depth = face.d.max(0.0);
    let mid = 0.5 * (p0.a * l[0] + p1.a * l[1] + p2.a * l[2] + p0.b * l[0] + p1.b * l[1] + p2.b * l[2]);
    EpaOutput {
        depth,
        normal: face.n,
        point_a: mid + 0.5 * depth * face.n,
        point_b: mid - 0.5 * depth * face.n,
        iterations,
        converged,
    }
}

/// Adds support points until `ws.verts` holds a non-degenerate tetrahedron that contains the origin.
fn grow_to_tetrahedron<A: CoreShape, B: CoreShape>(
    pair: &MinkowskiPair<'_, A, B>,
    ws: &mut EpaWorkspace,
    iterations: &mut u32,
) -> bool {
    let scale = ws.verts.iter().map(|p| p.w.length()).fold(0.0, f64::max).max(1e-300);
    // One vertex: the origin is that vertex (touching). Use the 6 axis supports to find a non-degenerate segment.
    if ws.verts.len() == 1 {
        for d in [DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z, -DVec3::Z] {
            let s = support_along(pair, d);
            *iterations += 1;
            if (s.w - ws.verts[0].w).length() > 1e-10 * scale.max(s.w.length()) {
                ws.verts.push(s);
                break;
            }
        }
        if ws.verts.len() < 2 {
            return false;
        }
    }
    // Segment: add supports along directions perpendicular to it.
    if ws.verts.len() == 2 {
        let axis = (ws.verts[1].w - ws.verts[0].w).normalize_or_zero();
        let e = [DVec3::X, DVec3::Y, DVec3::Z][axis.abs().min_position()];
        let u = axis.cross(e).normalize_or_zero();
        let v = axis.cross(u);
        let mut added = false;
        for d in [u, -u, v, -v] {
            let s = support_along(pair, d);
            *iterations += 1;
            let n = (ws.verts[1].w - ws.verts[0].w).cross(s.w - ws.verts[0].w);
            if n.length() > 1e-10 * scale * scale {
                ws.verts.push(s);
                added = true;
                break;
            }
        }
        if !added {
            return false;
        }
    }
    // Triangle: add the support on the side of the origin, else on the other side.
    if ws.verts.len() == 3 {
        let (a, b, c) = (ws.verts[0].w, ws.verts[1].w, ws.verts[2].w);
        let n = (b - a).cross(c - a).normalize_or_zero();
        let toward_origin = if n.dot(-a) >= 0.0 { n } else { -n };
        let mut added = false;
        for d in [toward_origin, -toward_origin] {
            let s = support_along(pair, d);
            *iterations += 1;
            if (s.w - a).dot(n).abs() > 1e-10 * scale {
                ws.verts.push(s);
                added = true;
                break;
            }
        }
        if !added {
            return false;
        }
    }
    ws.verts.truncate(4);
    let [a, b, c, d] = [ws.verts[0].w, ws.verts[1].w, ws.verts[2].w, ws.verts[3].w];
    let vol = (b - a).dot((c - a).cross(d - a));
    vol.abs() > 1e-14 * scale * scale * scale
}

/// Degenerate intersection (the difference is flat or a point around the origin): depth 0, normal along the centre
/// difference.
fn touching<A: CoreShape, B: CoreShape>(pair: &MinkowskiPair<'_, A, B>, simplex: &Simplex) -> EpaOutput {
    let (pa, pb) = simplex.witnesses();
    let n = (pair.b.center() - pair.a.center()).normalize_or(DVec3::Z);
    EpaOutput { depth: 0.0, normal: n, point_a: pa, point_b: pb, iterations: 0, converged: false }
}

/// Barycentric coordinates of `p` (assumed in the face's plane) in the face's triangle.
fn barycentric_unclamped(p: DVec3, verts: &[SupportPoint], face: &Face) -> [f64; 3] {
    let [a, b, c] = face.v.map(|i| verts[i as usize].w);
    let (v0, v1, v2) = (b - a, c - a, p - a);
    let (d00, d01, d11) = (v0.dot(v0), v0.dot(v1), v1.dot(v1));
    let (d20, d21) = (v2.dot(v0), v2.dot(v1));
    let den = d00 * d11 - d01 * d01;
    if !(den.abs() > 0.0) {
        return [1.0, 0.0, 0.0];
    }
    let v = (d11 * d20 - d01 * d21) / den;
    let w = (d00 * d21 - d01 * d20) / den;
    [1.0 - v - w, v, w]
}

fn min3(l: [f64; 3]) -> f64 {
    l[0].min(l[1]).min(l[2])
}

/// Clamps barycentric coordinates onto the triangle (only rounding should ever need it).
fn clamp_barycentric(l: [f64; 3]) -> [f64; 3] {
    let c = l.map(|x| x.max(0.0));
    let s = c[0] + c[1] + c[2];
    if s > 0.0 { c.map(|x| x / s) } else { [1.0, 0.0, 0.0] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrow::gjk::{GjkSettings, GjkStatus, gjk};
    use crate::narrow::minkowski::Posed;
    use crate::test_rng::Rng;
    use glam::DQuat;
    use signorini_geometry::{Cuboid, Pose, Sphere};

    /// Every live face's neighbour across each edge is live and runs that edge the other way, with the edge index
    /// it records: the polytope is a closed, consistently oriented surface.
    fn assert_closed(ws: &EpaWorkspace) {
        for (f, face) in ws.faces.iter().enumerate().filter(|&(f, _)| ws.alive(f)) {
            for k in 0..3 {
                let (g, kg) = (face.adj[k] as usize, usize::from(face.adj_edge[k]));
                assert!(ws.alive(g), "face {f} edge {k}: neighbour {g} was carved");
                let other = &ws.faces[g];
                assert_eq!((other.v[kg], other.v[(kg + 1) % 3]), (face.v[(k + 1) % 3], face.v[k]));
                assert_eq!((other.adj[kg] as usize, usize::from(other.adj_edge[kg])), (f, k));
            }
        }
    }

    /// A point core inside a box core (`D` is the box, mirrored and shifted): the depth is the distance from the shifted origin to
    /// the nearest face, in closed form, and the polytope stays closed throughout.
    #[test]
    fn box_depth_is_the_nearest_face_and_the_polytope_stays_closed() {
        let mut rng = Rng(11);
        let mut uniform = |lo: f64, hi: f64| lo + (hi - lo) * rng.unit();
        // A sphere's core is its centre.
        let point = Sphere::new(0.1).unwrap();
        for _ in 0..200 {
            let half = DVec3::new(uniform(0.2, 1.0), uniform(0.2, 1.0), uniform(0.2, 1.0));
            let cuboid = Cuboid::new(half).unwrap();
            let rotation = DQuat::from_scaled_axis(DVec3::new(uniform(-3.0, 3.0), uniform(-3.0, 3.0), 0.7));
            let local = DVec3::new(uniform(-0.9, 0.9), uniform(-0.9, 0.9), uniform(-0.9, 0.9)) * half;
            let pose_b = Pose { translation: DVec3::new(0.3, -0.2, 1.0), rotation };
            let pose_a =
                Pose { translation: pose_b.translation + rotation * local, rotation: DQuat::IDENTITY };
            let pair = MinkowskiPair {
                a: Posed::new(&point, &pose_a),
                b: Posed::new(&cuboid, &pose_b),
                inflate: false,
            };
            let g = gjk(&pair, DVec3::X, &GjkSettings::default());
            assert_eq!(g.status, GjkStatus::Intersecting);
            let mut ws = EpaWorkspace::new();
            let out = epa(&pair, &g.simplex, &mut ws, &EpaSettings::default());
            assert_closed(&ws);
            let exact = (half - local.abs()).min_element();
            assert!(out.converged && (out.depth - exact).abs() < 1e-12, "{} vs {exact}", out.depth);
        }
    }
}
