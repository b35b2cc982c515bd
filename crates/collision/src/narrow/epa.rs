//! EPA (Expanding Polytope Algorithm): penetration depth, normal and witnesses of intersecting convex shapes.
//!
//! Starting from a polytope inside `D = A ⊖ B` that encloses the origin (grown from GJK's final simplex), repeatedly
//! take the face closest to the origin, query the support `w` along its outward normal `n`, and stop when `w` does not
//! lie further than the face (`n·w − d ≤ tolerance · max(d, size)`); otherwise carve out every face that sees `w` and
//! cone the horizon to `w`. The closest face gives the depth `d` (distance from the origin to `∂D`), the normal `n`
//! (moving B by `d n` separates the shapes, so `n` points from A towards B) and, from the barycentric coordinates of
//! `d n` in that face, the witness points on A and B.
//!
//! All storage lives in an [`EpaWorkspace`] that the caller reuses: no allocation per query once it has grown.

use glam::DVec3;

use super::gjk::support_along;
use super::minkowski::{CoreShape, MinkowskiPair, SupportPoint};
use super::simplex::Simplex;

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

#[derive(Debug, Clone, Copy)]
struct Face {
    v: [u32; 3],
    n: DVec3,
    d: f64,
    alive: bool,
}

/// Reusable EPA storage.
#[derive(Debug, Clone, Default)]
pub struct EpaWorkspace {
    verts: Vec<SupportPoint>,
    faces: Vec<Face>,
    horizon: Vec<(u32, u32)>,
}

impl EpaWorkspace {
    /// An empty workspace; it grows on first use and is reused afterwards.
    pub fn new() -> Self {
        Self::default()
    }

    fn add_face(&mut self, a: u32, b: u32, c: u32, interior: DVec3) -> bool {
        let (pa, pb, pc) = (self.verts[a as usize].w, self.verts[b as usize].w, self.verts[c as usize].w);
        let n = (pb - pa).cross(pc - pa);
        let len = n.length();
        if !(len > 0.0) || !len.is_finite() {
            return false;
        }
        let mut n = n / len;
        let mut v = [a, b, c];
        if n.dot(pa - interior) < 0.0 {
            n = -n;
            v = [a, c, b];
        }
        self.faces.push(Face { v, n, d: n.dot(pa), alive: true });
        true
    }
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
    ws.verts.extend_from_slice(&simplex.pts[..simplex.len]);
    let mut iterations = 0u32;
    if !grow_to_tetrahedron(pair, ws, &mut iterations) {
        return touching(pair, simplex);
    }
    let interior = ws.verts.iter().map(|p| p.w).sum::<DVec3>() / ws.verts.len() as f64;
    let [a, b, c, d] = [0u32, 1, 2, 3];
    let ok = ws.add_face(a, b, c, interior)
        && ws.add_face(a, b, d, interior)
        && ws.add_face(a, c, d, interior)
        && ws.add_face(b, c, d, interior);
    if !ok {
        return touching(pair, simplex);
    }
    let size = ws.verts.iter().map(|p| p.w.length()).fold(0.0, f64::max);

    let mut best = closest_face(ws).map(|f| ws.faces[f]);
    let mut converged = false;
    while iterations < settings.max_iterations {
        let Some(f) = closest_face(ws) else { break };
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
        // Carve out the faces that see the new point and collect the horizon as unpaired directed edges.
        ws.horizon.clear();
        let mut carved = 0;
        for i in 0..ws.faces.len() {
            let fc = ws.faces[i];
            if fc.alive && (i == f || fc.n.dot(s.w - ws.verts[fc.v[0] as usize].w) > visible_eps) {
                ws.faces[i].alive = false;
                carved += 1;
                for (p, q) in [(fc.v[0], fc.v[1]), (fc.v[1], fc.v[2]), (fc.v[2], fc.v[0])] {
                    if let Some(k) = ws.horizon.iter().position(|&(x, y)| x == q && y == p) {
                        ws.horizon.swap_remove(k);
                    } else {
                        ws.horizon.push((p, q));
                    }
                }
            }
        }
        if carved == 0 {
            converged = true;
            break;
        }
        // The carved faces must form a disk: a triangulated disk of F faces has at most F + 2 boundary edges.
        // Anything else (several components, holes) means rounding has broken the polytope on a degenerate
        // difference (e.g. a needle-thin A ⊖ B); stop with the best face found so far.
        if ws.horizon.len() > carved + 2 || ws.horizon.len() < 3 {
            break;
        }
        let mut all_added = true;
        for k in 0..ws.horizon.len() {
            let (p, q) = ws.horizon[k];
            all_added &= ws.add_face(p, q, new, interior);
        }
        if !all_added {
            break;
        }
        // Keep only live faces, so that the scans of the next iteration see the current polytope alone.
        ws.faces.retain(|f| f.alive);
    }

    let Some(mut face) = best.or_else(|| closest_face(ws).map(|f| ws.faces[f])) else {
        return touching(pair, simplex);
    };
    // On flat regions of A ⊖ B several coplanar faces share the minimum distance, and the origin's projection lies in
    // only one of them: take the face among the (near-)closest whose barycentric coordinates are least negative.
    let d_min = face.d;
    let mut l = barycentric_unclamped(face.n * face.d, &ws.verts, &face);
    if l.iter().any(|&x| x < 0.0) {
        for cand in ws.faces.iter().filter(|c| c.alive && c.d <= d_min + 1e-9 * size.max(d_min)) {
            let lc = barycentric_unclamped(cand.n * cand.d, &ws.verts, cand);
            if min3(lc) > min3(l) {
                face = *cand;
                l = lc;
            }
        }
    }
    let [p0, p1, p2] = face.v.map(|i| ws.verts[i as usize]);
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

fn closest_face(ws: &EpaWorkspace) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, f) in ws.faces.iter().enumerate() {
        if f.alive && best.is_none_or(|(_, d)| f.d < d) {
            best = Some((i, f.d));
        }
    }
    best.map(|(i, _)| i)
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
