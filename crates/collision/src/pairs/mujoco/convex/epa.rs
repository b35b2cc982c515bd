//! MuJoCo's native EPA (`engine_collision_gjk.c`): the initial polytope grown from the GJK simplex, face expansion by
//! support points, the horizon walk, and the witness points of the final face.

use super::*;

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Face {
    pub(super) verts: [usize; 3],
    pub(super) adj: [usize; 3],
    /// Projection of the origin onto the face plane.
    pub(super) v: DVec3,
    pub(super) dist2: f64,
    /// Position in the map of candidate faces; −1 not a candidate, −2 deleted.
    pub(super) index: isize,
}

#[derive(Debug, Default)]
pub(super) struct Polytope {
    pub(super) verts: Vec<Vertex>,
    pub(super) faces: Vec<Face>,
    pub(super) map: Vec<usize>,
    pub(super) center: DVec3,
    /// Horizon: faces and their edge facing the new vertex.
    pub(super) hidx: Vec<usize>,
    pub(super) hedge: Vec<usize>,
    pub(super) w: DVec3,
}

impl Polytope {
    pub(super) fn clear(&mut self) {
        self.verts.clear();
        self.faces.clear();
        self.map.clear();
        self.hidx.clear();
        self.hedge.clear();
    }

    pub(super) fn p(&self, i: usize) -> DVec3 {
        self.verts[i].vert
    }

    /// Adds a face and returns its squared distance from the origin (0 for a degenerate face).
    pub(super) fn attach_face(
        &mut self,
        v1: usize,
        v2: usize,
        v3: usize,
        a1: usize,
        a2: usize,
        a3: usize,
    ) -> f64 {
        let mut f = Face { verts: [v1, v2, v3], adj: [a1, a2, a3], v: DVec3::ZERO, dist2: 0.0, index: -1 };
        if let Some(mut r) = project_origin_plane(self.p(v3), self.p(v2), self.p(v1)) {
            if r.dot(self.p(v1) - self.center) < 0.0 {
                r = -r;
            }
            f.v = r;
            f.dist2 = r.dot(r);
        }
        self.faces.push(f);
        f.dist2
    }

    pub(super) fn finish_map(&mut self, n: usize) {
        self.map.clear();
        for i in 0..n {
            self.map.push(i);
            self.faces[i].index = i as isize;
        }
    }

    pub(super) fn delete_face(&mut self, f: usize) {
        if let Ok(idx) = usize::try_from(self.faces[f].index)
            && let Some(last) = self.map.pop()
            && last != f
        {
            self.map[idx] = last;
            self.faces[last].index = idx as isize;
        }
        self.faces[f].index = -2;
    }

    pub(super) fn edge_of(&self, f: usize, v: usize) -> usize {
        let verts = self.faces[f].verts;
        if verts[0] == v {
            0
        } else if verts[1] == v {
            1
        } else {
            2
        }
    }

    pub(super) fn horizon_rec(&mut self, f: usize, e: usize) -> bool {
        let face = self.faces[f];
        if face.v.dot(self.w) - face.dist2 > MINVAL {
            self.delete_face(f);
            for kk in 1..=2 {
                let i = (e + kk) % 3;
                let adj = face.adj[i];
                if self.faces[adj].index > -2 {
                    let ae = self.edge_of(adj, face.verts[(i + 1) % 3]);
                    if !self.horizon_rec(adj, ae) {
                        self.hidx.push(adj);
                        self.hedge.push(ae);
                    }
                }
            }
            return true;
        }
        false
    }

    /// Deletes the faces that the new point `w` sees, starting at `f`, and records the horizon.
    pub(super) fn horizon(&mut self, f: usize) {
        self.delete_face(f);
        let face = self.faces[f];
        for k in 0..3 {
            let adj = face.adj[k];
            let ae = self.edge_of(adj, face.verts[(k + 1) % 3]);
            if (k == 0 || self.faces[adj].index > -2) && !self.horizon_rec(adj, ae) {
                self.hidx.push(adj);
                self.hedge.push(ae);
            }
        }
    }
}

pub(super) fn epa_support(pt: &mut Polytope, o1: &mut Obj<'_>, o2: &mut Obj<'_>, d: DVec3, dn: f64) -> usize {
    let dir = if dn > MINVAL { d / dn } else { DVec3::X };
    pt.verts.push(support(o1, o2, dir, -dir));
    pt.verts.len() - 1
}

pub(super) fn same_side(p0: DVec3, p1: DVec3, p2: DVec3, p3: DVec3) -> bool {
    let n = (p1 - p0).cross(p2 - p0);
    same_sign(n.dot(p3 - p0), n.dot(-p0))
}

pub(super) fn test_tetra(p0: DVec3, p1: DVec3, p2: DVec3, p3: DVec3) -> bool {
    same_side(p0, p1, p2, p3)
        && same_side(p1, p2, p3, p0)
        && same_side(p2, p3, p0, p1)
        && same_side(p3, p0, p1, p2)
}

/// Rotation by 120° about `a` (row-major).
pub(super) fn rotmat(a: DVec3) -> [f64; 9] {
    let n = a.length();
    let (u1, u2, u3) = (a.x / n, a.y / n, a.z / n);
    let (s, c) = (0.86602540378, -0.5);
    [
        c + u1 * u1 * (1.0 - c),
        u1 * u2 * (1.0 - c) - u3 * s,
        u1 * u3 * (1.0 - c) + u2 * s,
        u2 * u1 * (1.0 - c) + u3 * s,
        c + u2 * u2 * (1.0 - c),
        u2 * u3 * (1.0 - c) - u1 * s,
        u1 * u3 * (1.0 - c) - u2 * s,
        u2 * u3 * (1.0 - c) + u1 * s,
        c + u3 * u3 * (1.0 - c),
    ]
}

pub(super) fn mat_vec(m: &[f64; 9], v: DVec3) -> DVec3 {
    DVec3::new(
        m[0] * v.x + m[1] * v.y + m[2] * v.z,
        m[3] * v.x + m[4] * v.y + m[5] * v.z,
        m[6] * v.x + m[7] * v.y + m[8] * v.z,
    )
}

/// `rayTriangle`'s signed volumes of the segment `v1 v2` with the edges `v3 v4`, `v4 v5` and `v5 v3` of a triangle.
pub(super) fn ray_volumes(v1: DVec3, v2: DVec3, v3: DVec3, v4: DVec3, v5: DVec3) -> [f64; 3] {
    let (d12, d13, d14, d15) = (v2 - v1, v3 - v1, v4 - v1, v5 - v1);
    [det3(d13, d14, d12), det3(d14, d15, d12), det3(d15, d13, d12)]
}

/// Whether the segment of `ray_volumes` crosses the triangle: 1 if all three volumes are at least `tol`, −1 if all
/// are at most `−tol`, else 0.
fn crossing(vols: [f64; 3], tol: f64) -> i32 {
    if vols.iter().all(|&v| v >= tol) {
        1
    } else if vols.iter().all(|&v| v <= -tol) {
        -1
    } else {
        0
    }
}

/// MuJoCo 4.0's `originOnEdge`: whether the origin lies within 1e-15 of the segment `a b` (with `a` and `b` on either
/// side of it).
fn origin_on_edge(a: DVec3, b: DVec3) -> bool {
    if a.dot(b) >= 0.0 {
        return false;
    }
    let d = b - a;
    let dd = d.dot(d);
    if dd < MINVAL2 {
        return false;
    }
    let p = b + d * (-b.dot(d) / dd);
    p.dot(p) < MINVAL2
}

/// Barycentric coordinates of `p` (in the triangle's plane) in the triangle `v1 v2 v3` (MuJoCo 4.0.1's
/// `triAffineCoord`, read off `triPointIntersect`): the signed areas of `p` with each edge in the two coordinates
/// where the triangle's normal projects largest, over their sum.
pub(super) fn tri_affine(v1: DVec3, v2: DVec3, v3: DVec3, p: DVec3) -> [f64; 3] {
    let (u, v) = tri_axes(v1, v2, v3);
    let (a0, a1) = (v1[u] - p[u], v1[v] - p[v]);
    let (b0, b1) = (v2[u] - p[u], v2[v] - p[v]);
    let (c0, c1) = (v3[u] - p[u], v3[v] - p[v]);
    let c = [c1 * b0 - c0 * b1, c0 * a1 - a0 * c1, a0 * b1 - b0 * a1];
    let sum = c[0] + c[1] + c[2];
    [c[0] / sum, c[1] / sum, c[2] / sum]
}

pub(super) fn tri_point_intersect(v1: DVec3, v2: DVec3, v3: DVec3, p: DVec3) -> bool {
    let l = tri_affine(v1, v2, v3, p);
    if l[0] < 0.0 || l[1] < 0.0 || l[2] < 0.0 {
        return false;
    }
    let pr = v1 * l[0] + v2 * l[1] + v3 * l[2];
    (pr - p).length() < MINVAL
}

/// GJK's simplex becomes the polytope vertices `verts` (a face or an edge of it), and the polytope is cleared.
pub(super) fn replace_simplex(pt: &mut Polytope, st: &mut Status, verts: &[usize]) {
    st.nsimplex = verts.len();
    for (s, &v) in st.simplex.iter_mut().zip(verts) {
        *s = pt.verts[v];
    }
    pt.clear();
}

/// The six faces (vertices, then adjacent faces) of the bipyramid with apexes `a`, `b` around the ring `c`, MuJoCo's
/// order for `polytope2` and `polytope3`: faces 0–2 on `a`, face `k + 3` on `b` across the ring edge of face `k`.
fn bipyramid(a: usize, b: usize, [c1, c2, c3]: [usize; 3]) -> [[usize; 6]; 6] {
    [
        [a, c1, c2, 1, 3, 2],
        [a, c3, c1, 2, 4, 0],
        [a, c2, c3, 0, 5, 1],
        [b, c2, c1, 5, 0, 4],
        [b, c1, c3, 3, 1, 5],
        [b, c3, c2, 4, 2, 3],
    ]
}

/// Adds `faces` (vertices and adjacent faces); their squared distances from the origin, or `None` when one is below
/// `mjMINVAL²` (the origin on a face).
fn attach_faces<const N: usize>(pt: &mut Polytope, faces: &[[usize; 6]; N]) -> Option<[f64; N]> {
    let mut dist = [0.0; N];
    for (d, &[a, b, c, x, y, z]) in dist.iter_mut().zip(faces) {
        *d = pt.attach_face(a, b, c, x, y, z);
    }
    (!dist.iter().any(|&d| d < MINVAL2)).then_some(dist)
}

/// MuJoCo 4.0's check of an initial polytope: the origin on the inner side of every face (the side of the vertex
/// `opposite` it), or within the tolerance of the face.
fn origin_inside<const N: usize>(
    pt: &Polytope,
    faces: &[[usize; 6]; N],
    opposite: [usize; N],
    dist: [f64; N],
) -> bool {
    let tol2 = TOLERANCE * TOLERANCE;
    faces
        .iter()
        .zip(opposite)
        .zip(dist)
        .all(|((f, o), d)| same_side(pt.p(f[0]), pt.p(f[1]), pt.p(f[2]), pt.p(o)) || d < tol2)
}

/// `recoverHexa`: when the apexes' segment `v4 v5` passes beside GJK's triangle `v1 v2 v3` across exactly one edge
/// (`vols`, tolerance 1e-15), that edge's vertices become the apexes around the third vertex and the old apexes, which
/// makes the hexahedron convex. Otherwise the first two entries become the edge of the smallest volume, for a
/// tetrahedron with the apexes.
fn recover_hexa(idx: &mut [usize; 5], [a, b, c]: [f64; 3]) -> bool {
    let [i0, i1, i2, i3, i4] = *idx;
    let t = -MINVAL;
    if a > 0.0 && b < t && c < t {
        *idx = [i2, i4, i3, i0, i1];
    } else if b > 0.0 && a < t && c < t {
        *idx = [i0, i4, i3, i1, i2];
    } else if a < t && b < t && c > 0.0 {
        *idx = [i1, i4, i3, i2, i0];
    } else {
        if !(b < a || c < a) {
        } else if !(a < b || c < b) {
            (idx[0], idx[1]) = (i1, i2);
        } else {
            (idx[0], idx[1]) = (i2, i0);
        }
        return false;
    }
    true
}

/// Initial polytope from GJK's triangle `v1 v2 v3` and the support points `v4`, `v5` along its normal `±n`
/// (MuJoCo 4.0's `polytope3`, decoded from the 4.0.1 library since the public source is 3.x):
/// * `v4` and `v5` must stand off the triangle's plane by `1e-15 |n|` on their sides;
/// * when the segment `v4 v5` crosses the triangle, the bipyramid with apexes `v4`, `v5`; when it passes beside one
///   edge, the bipyramid with that edge's ends as apexes ([`recover_hexa`]); else the tetrahedron of the edge of the
///   smallest volume and `v4`, `v5`;
/// * the centre is the mean of the polytope's vertices;
/// * with the origin on a face: when `edge_fallback`, EPA starts again from an edge of the triangle that the origin
///   lies on (`polytope2`), else fails;
/// * the origin must be on the inner side of every face, or within the tolerance of it.
pub(super) fn polytope3(
    pt: &mut Polytope,
    st: &mut Status,
    o1: &mut Obj<'_>,
    o2: &mut Obj<'_>,
    edge_fallback: bool,
) -> i32 {
    let (v1i, v2i, v3i) = (pt.verts.len(), pt.verts.len() + 1, pt.verts.len() + 2);
    pt.verts.extend_from_slice(&st.simplex[..3]);
    let (p1, p2, p3) = (pt.p(v1i), pt.p(v2i), pt.p(v3i));
    let n = (p2 - p1).cross(p3 - p1);
    let nn = n.length();
    if nn < MINVAL {
        return 3;
    }
    let v5i = epa_support(pt, o1, o2, -n, nn);
    let v4i = epa_support(pt, o1, o2, n, nn);
    let (p4, p5) = (pt.p(v4i), pt.p(v5i));
    if tri_point_intersect(p1, p2, p3, p4) {
        return 4;
    }
    if tri_point_intersect(p1, p2, p3, p5) {
        return 5;
    }
    if MINVAL * nn > n.dot(p4 - p1) || MINVAL * nn > (-n).dot(p5 - p1) {
        return 6;
    }
    let mut idx = [v1i, v2i, v3i, v4i, v5i];
    let vols = ray_volumes(p4, p5, p1, p2, p3);
    let inside = if crossing(vols, 0.0) != 0 || recover_hexa(&mut idx, vols) {
        let [r1, r2, r3, r4, r5] = idx;
        pt.center = (pt.p(r1) + pt.p(r2) + pt.p(r3) + pt.p(r4) + pt.p(r5)) * 0.2;
        let faces = bipyramid(r4, r5, [r1, r2, r3]);
        attach_faces(pt, &faces).map(|d| origin_inside(pt, &faces, [r3, r2, r1, r3, r2, r1], d))
    } else {
        let [t1, t2, _, t3, t4] = idx;
        pt.center = (pt.p(t1) + pt.p(t2) + pt.p(t3) + pt.p(t4)) * 0.25;
        let faces =
            [[t1, t2, t3, 1, 3, 2], [t1, t4, t2, 2, 3, 0], [t1, t3, t4, 0, 3, 1], [t4, t3, t2, 2, 0, 1]];
        attach_faces(pt, &faces).map(|d| origin_inside(pt, &faces, [t4, t3, t2, t1], d))
    };
    match inside {
        Some(true) => {
            pt.finish_map(pt.faces.len());
            0
        }
        Some(false) => 7,
        None if edge_fallback => {
            for (a, b) in [(v1i, v2i), (v2i, v3i), (v3i, v1i)] {
                if origin_on_edge(pt.p(a), pt.p(b)) {
                    replace_simplex(pt, st, &[a, b]);
                    return polytope2(pt, st, o1, o2);
                }
            }
            8
        }
        None => 8,
    }
}

/// Initial polytope from GJK's segment `v1 v2`: three support points around it, 120° apart, and the two ends make a
/// bipyramid (MuJoCo 4.0's `polytope2`, decoded from the 4.0.1 library). When the segment passes beside the
/// triangle of the three (by more than `1e-15 |v2 − v1|³` in volume), the edge `a b` it passes across is pushed out:
/// a support point along `(b − a) × (v2 − v1)`, tilted by 1e-3 rad along the segment (away from the third vertex's
/// side of its midpoint), replaces `a`, `b` or the third vertex, the first of these that makes the segment cross the
/// triangle; if none does, the points stay. The centre is the mean of the five points.
pub(super) fn polytope2(pt: &mut Polytope, st: &mut Status, o1: &mut Obj<'_>, o2: &mut Obj<'_>) -> i32 {
    let (v1, v2) = (st.simplex[0].vert, st.simplex[1].vert);
    let diff = v2 - v1;
    let mut val = MAX_LIMIT;
    let mut idx = 0;
    for i in 0..3 {
        if diff[i].abs() < val {
            val = diff[i].abs();
            idx = i;
        }
    }
    let mut e = DVec3::ZERO;
    e[idx] = 1.0;
    let d1 = e.cross(diff);
    let r = rotmat(diff);
    let d2 = mat_vec(&r, d1);
    let d3 = mat_vec(&r, d2);
    let (v1i, v2i) = (pt.verts.len(), pt.verts.len() + 1);
    pt.verts.extend_from_slice(&st.simplex[..2]);
    let v3i = epa_support(pt, o1, o2, d1, d1.length());
    let v4i = epa_support(pt, o1, o2, d2, d2.length());
    let v5i = epa_support(pt, o1, o2, d3, d3.length());
    let diff2 = diff.dot(diff);
    let tol = diff2 * MINVAL * diff2.sqrt();
    let vols = ray_volumes(v1, v2, pt.p(v3i), pt.p(v4i), pt.p(v5i));
    if crossing(vols, tol) == 0 {
        let [va, vb, vc] = vols;
        let (a, b, c) = if vb >= va && vc >= va {
            (v3i, v4i, v5i)
        } else if vb <= va && vb <= vc {
            (v4i, v5i, v3i)
        } else {
            (v5i, v3i, v4i)
        };
        let (pa, pb, pc) = (pt.p(a), pt.p(b), pt.p(c));
        let edge = pb - pa;
        let tilt = if 0.5 * diff2 <= diff.dot(pc - v1) { 1e-3 } else { -1e-3 };
        let dir = diff * (edge.length() * tilt) + edge.cross(diff);
        let dn = dir.length();
        let unit = if dn > MINVAL { dir / dn } else { DVec3::X };
        let w = support(o1, o2, unit, -unit);
        for (slot, tri) in [(a, [w.vert, pb, pc]), (b, [pa, w.vert, pc]), (c, [pa, pb, w.vert])] {
            if crossing(ray_volumes(v1, v2, tri[0], tri[1], tri[2]), tol) != 0 {
                pt.verts[slot] = w;
                break;
            }
        }
    }
    pt.center = (v1 + v2 + pt.p(v3i) + pt.p(v4i) + pt.p(v5i)) * 0.2;
    let faces = bipyramid(v1i, v2i, [v3i, v4i, v5i]);
    for (k, &[a, b, c, x, y, z]) in faces.iter().enumerate() {
        if pt.attach_face(a, b, c, x, y, z) < MINVAL2 {
            // The origin on a face: EPA starts again from it or from the face across the ring edge it shares.
            let [_, p, q, ..] = faces[k % 3];
            replace_best_simplex3(pt, st, v1i, v2i, p, q);
            return polytope3(pt, st, o1, o2, false);
        }
    }
    pt.finish_map(6);
    0
}

/// MuJoCo 4.0's `replaceBestSimplex3`: GJK's simplex becomes the triangle `a c d` or `b d c` (the two faces of a
/// segment's bipyramid on the ring edge `c d`): the one that is not degenerate (squared normal below 1e-15), else the
/// one whose closest point to the origin is nearer (`a c d` on a tie).
fn replace_best_simplex3(pt: &mut Polytope, st: &mut Status, a: usize, b: usize, c: usize, d: usize) {
    let (pa, pb, pc, pd) = (pt.p(a), pt.p(b), pt.p(c), pt.p(d));
    let na = (pc - pa).cross(pd - pa).length_squared();
    let nb = (pd - pb).cross(pc - pb).length_squared();
    let take_b = if na < MINVAL && nb >= MINVAL {
        true
    } else if na >= MINVAL && nb < MINVAL {
        false
    } else {
        let closest = |p: [DVec3; 3]| {
            let l = s2d(p[0], p[1], p[2]);
            p[0] * l[0] + p[1] * l[1] + p[2] * l[2]
        };
        closest([pa, pc, pd]).length_squared() > closest([pb, pd, pc]).length_squared()
    };
    if take_b {
        replace_simplex(pt, st, &[b, d, c]);
    } else {
        replace_simplex(pt, st, &[a, c, d]);
    }
}

pub(super) fn polytope4(pt: &mut Polytope, st: &mut Status, o1: &mut Obj<'_>, o2: &mut Obj<'_>) -> i32 {
    let (v1, v2, v3, v4) = (pt.verts.len(), pt.verts.len() + 1, pt.verts.len() + 2, pt.verts.len() + 3);
    pt.verts.extend_from_slice(&st.simplex);
    pt.center = (pt.p(v1) + pt.p(v2) + pt.p(v3) + pt.p(v4)) * 0.25;
    for (a, b, c, x, y, z) in
        [(v1, v2, v3, 1, 3, 2), (v1, v4, v2, 2, 3, 0), (v1, v3, v4, 0, 3, 1), (v4, v3, v2, 2, 0, 1)]
    {
        if pt.attach_face(a, b, c, x, y, z) < MINVAL2 {
            replace_simplex(pt, st, &[a, b, c]);
            return polytope3(pt, st, o1, o2, true);
        }
    }
    if !test_tetra(pt.p(v1), pt.p(v2), pt.p(v3), pt.p(v4)) {
        return 9;
    }
    pt.finish_map(4);
    0
}

/// EPA witness points of a face and the (negative) distance.
pub(super) fn epa_witness(pt: &Polytope, f: usize) -> (DVec3, DVec3, f64) {
    let face = &pt.faces[f];
    let [a, b, c] = face.verts.map(|i| pt.verts[i]);
    let l = tri_affine(a.vert, b.vert, c.vert, face.v);
    let x1 = a.vert1 * l[0] + b.vert1 * l[1] + c.vert1 * l[2];
    let x2 = a.vert2 * l[0] + b.vert2 * l[1] + c.vert2 * l[2];
    (x1, x2, -face.dist2.sqrt())
}

/// Expands the polytope; returns the final face, if EPA converged to one.
pub(super) fn epa(pt: &mut Polytope, o1: &mut Obj<'_>, o2: &mut Obj<'_>) -> Option<usize> {
    let mut upper = MAX_LIMIT;
    let mut upper2 = MAX_LIMIT;
    let mut face: Option<usize> = None;
    let disc = discrete(o1, o2);
    let tol = if disc { MINVAL } else { TOLERANCE };
    let max_faces = 6 * MAX_ITERATIONS;
    let mut k = 0;
    while k < MAX_ITERATIONS.min(1000) {
        let pface = face;
        let mut lower2 = MAX_LIMIT;
        for &f in &pt.map {
            if pt.faces[f].dist2 < lower2 {
                face = Some(f);
                lower2 = pt.faces[f].dist2;
            }
        }
        let Some(fi) = face.filter(|_| !(lower2 > upper2)) else {
            face = pface;
            break;
        };
        if lower2 <= 0.0 {
            break;
        }
        let lower = lower2.sqrt();
        let fv = pt.faces[fi].v;
        let wi = epa_support(pt, o1, o2, fv, lower);
        let w = pt.verts[wi];
        let uk = fv.dot(w.vert) / lower;
        if uk < upper {
            upper = uk;
            upper2 = upper * upper;
        }
        // MuJoCo 4.0 ends on this iteration's gap, not on the best upper bound so far (which stops earlier).
        if uk - lower < tol {
            // A first support below the face by more than the tolerance: no contact. MuJoCo 4.0.1 compares with
            // its EPA tolerance (`lower − tolerance > upper` in its `epa`), where the 3.x source had 1e-10.
            if k == 0 && upper < lower - tol {
                face = None;
            }
            break;
        }
        if disc && pt.verts[..wi].iter().any(|v| v.index1 == w.index1 && v.index2 == w.index2) {
            break;
        }
        pt.w = w.vert;
        pt.hidx.clear();
        pt.hedge.clear();
        pt.horizon(fi);
        if pt.hidx.len() < 3 {
            face = None;
            break;
        }
        let (nf, ne) = (pt.faces.len(), pt.hidx.len());
        if nf + ne > max_faces {
            break;
        }
        for i in 0..ne {
            let (cur, next) = (nf + i, nf + (i + 1) % ne);
            let (hi, he) = (pt.hidx[i], pt.hedge[i]);
            let hv = pt.faces[hi].verts;
            let (a, b) = (hv[he], hv[(he + 1) % 3]);
            pt.faces[hi].adj[he] = cur;
            let d2 = if i == 0 {
                pt.attach_face(wi, b, a, nf + ne - 1, hi, nf + 1)
            } else {
                pt.attach_face(wi, b, a, cur - 1, hi, next)
            };
            if d2 == 0.0 {
                return None;
            }
            if d2 >= lower2 && d2 <= upper2 {
                let last = pt.faces.len() - 1;
                pt.faces[last].index = pt.map.len() as isize;
                pt.map.push(last);
            }
        }
        if pt.map.is_empty() {
            break;
        }
        k += 1;
    }
    face
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polytope(points: &[DVec3]) -> Polytope {
        Polytope {
            verts: points.iter().map(|&vert| Vertex { vert, ..Vertex::default() }).collect(),
            ..Polytope::default()
        }
    }

    #[test]
    fn best_simplex_is_the_nondegenerate_triangle_then_the_nearer_one() {
        let (a, b) = (DVec3::new(0.0, 0.0, -1.0), DVec3::new(0.0, 0.0, 1.0));
        let (c, d) = (DVec3::new(1.0, 0.0, 0.0), DVec3::new(-1.0, 0.1, 0.0));
        let chosen = |points: &[DVec3]| {
            let mut pt = polytope(points);
            let mut st = Status::default();
            replace_best_simplex3(&mut pt, &mut st, 0, 1, 2, 3);
            assert!(pt.verts.is_empty() && st.nsimplex == 3);
            [st.simplex[0].vert, st.simplex[1].vert, st.simplex[2].vert]
        };
        // Both triangles sound: `a c d` and `b d c` are as near the origin; the tie takes `a c d`.
        assert_eq!(chosen(&[a, b, c, d]), [a, c, d]);
        // With the edge `c d` away from the origin, `b d c` (across the origin) is nearer than `a c d`.
        let (far_c, far_d) = (DVec3::new(1.0, 0.0, 1.0), DVec3::new(-1.0, 0.0, 1.0));
        let (far_a, low_b) = (DVec3::new(0.0, 1.0, 2.0), DVec3::new(0.0, -1.0, -1.0));
        assert_eq!(chosen(&[far_a, low_b, far_c, far_d]), [low_b, far_d, far_c]);
        // `a` on the line `c d`: `a c d` degenerate, so `b d c` whatever the distances.
        let on_cd = (c + d) * 0.5;
        assert_eq!(chosen(&[on_cd, DVec3::new(0.0, 0.0, 9.0), c, d]), [DVec3::new(0.0, 0.0, 9.0), d, c]);
    }

    #[test]
    fn recover_hexa_turns_the_edge_the_apexes_miss_into_the_axis() {
        let t = 1e-15;
        let mut idx = [0, 1, 2, 3, 4];
        assert!(recover_hexa(&mut idx, [1.0, -1.0, -1.0]));
        assert_eq!(idx, [2, 4, 3, 0, 1]);
        let mut idx = [0, 1, 2, 3, 4];
        assert!(recover_hexa(&mut idx, [-1.0, 1.0, -1.0]));
        assert_eq!(idx, [0, 4, 3, 1, 2]);
        let mut idx = [0, 1, 2, 3, 4];
        assert!(recover_hexa(&mut idx, [-1.0, -1.0, 1.0]));
        assert_eq!(idx, [1, 4, 3, 2, 0]);
        // Not beside exactly one edge (or within 1e-15 of it): the edge of the smallest volume leads the tetrahedron.
        for (vols, edge) in
            [([1.0, -t, -1.0], [2, 0]), ([-2.0, 1.0, 1.0], [0, 1]), ([1.0, -3.0, 1.0], [1, 2])]
        {
            let mut idx = [0, 1, 2, 3, 4];
            assert!(!recover_hexa(&mut idx, vols));
            assert_eq!(&idx[..2], &edge, "{vols:?}");
            assert_eq!(&idx[3..], &[3, 4]);
        }
    }

    #[test]
    fn origin_on_edge_needs_the_ends_on_both_sides_and_1e15() {
        let x = DVec3::X;
        assert!(origin_on_edge(-x, x));
        assert!(origin_on_edge(-x + DVec3::Y * 1e-16, x));
        assert!(!origin_on_edge(-x + DVec3::Y * 1e-14, x));
        assert!(!origin_on_edge(x, 2.0 * x));
        assert!(!origin_on_edge(DVec3::ZERO, DVec3::ZERO));
    }
}
