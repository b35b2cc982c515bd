//! Box–mesh and mesh–mesh: MuJoCo 4.0's `mjc_Convex` (`engine_collision_convex.c`) with its native convex
//! collision (`engine_collision_gjk.c`, "nativeccd"): GJK decides whether the geoms intersect, EPA finds the
//! penetration depth and its witness points, and, as multiccd is on by default in 4.0, the features of the final
//! EPA face give up to four contacts by polygon clipping.
//!
//! * GJK uses the signed-volume subalgorithm (`S1D`/`S2D`/`S3D`) from the segment between the geom centres, with
//!   MuJoCo's discrete-geometry settings (margin 0: no distance tolerance, `mjMINVAL` minimum norm) and its
//!   intersection backup (`gjkIntersect`) once the simplex is a tetrahedron.
//! * EPA starts from the GJK simplex (a segment, triangle or tetrahedron grown to a hexahedron or tetrahedron),
//!   expands the face nearest to the origin by its support point, deletes the visible faces (the horizon walk) and
//!   stops at `ccd_tolerance` or on a repeated support vertex pair. The single contact is `dist = −depth`, normal
//!   `normalize(x1 − x2)`, position midway between the witness points.
//! * Multi-contact: the distinct support vertices of each geom on the final EPA face make a vertex, edge or face
//!   feature; their polygon normals (mesh polygons, box faces) are compared. Two faces within `0.996` of opposite
//!   are clipped against each other (face 2 clipped by face 1, Sutherland–Hodgman), an edge within `0.0888` of
//!   parallel to a face is clipped by that face; more than four clipped points are reduced to the largest-area
//!   quadrilateral, a clipped edge keeps its two farthest points. Each point is projected onto the clipping face;
//!   its depth is measured along the other face's normal (face–face) or the clipping face's normal (edge–face),
//!   which is also the contact normal.
//!
//! The port follows MuJoCo's arithmetic (loop orders, strict/non-strict comparisons, tie rules) so that contacts
//! agree to rounding. Meshes are in their asset frame (MuJoCo recentres them on the centroid; GJK starts from the
//! centroid's world position, as MuJoCo does). What cannot follow MuJoCo is the mesh polygon data, which comes from
//! our hull ([`ConvexMesh`]) rather than qhull's triangles: where each polygon's vertex list starts (it decides which
//! quadrilateral is kept when clipping leaves more than four points; another one of the same clipped polygon comes
//! out), the order of a vertex's polygons (it decides between two faces that both qualify for an edge–face contact),
//! and the normal of a polygon merged from nearly but not exactly coplanar triangles. Support ties also break
//! differently where MuJoCo's vertex list holds interior points (its hill climb and vertex indices differ).
//!
//! Storage: the EPA polytope and the clipping buffers are `Vec`s in a thread-local scratch, reused across calls
//! (no allocation once warm).

use std::cell::RefCell;

use glam::{DMat3, DVec3};
use signorini_geometry::{ConvexMesh, Shape};

use super::{Frame, MINVAL, MjContact};

const MINVAL2: f64 = MINVAL * MINVAL;
const MAXVAL2: f64 = 1e20;
/// `mjMAX_LIMIT`.
const MAX_LIMIT: f64 = f64::MAX;
const FLT_MAX: f64 = f32::MAX as f64;
/// `mjOption.ccd_tolerance` and `ccd_iterations` (MuJoCo's defaults).
const TOLERANCE: f64 = 1e-6;
const MAX_ITERATIONS: usize = 35;
/// Box and mesh pairs with multiccd: at most four contacts.
const MAX_CONTACTS: usize = 4;
/// Two polygon normals are opposite faces when their dot product is below `−FACE_TOL`.
const FACE_TOL: f64 = 0.996;
/// An edge lies along a face when `|e·n| < EDGE_TOL`.
const EDGE_TOL: f64 = 0.0888;
/// Meshes with at least this many vertices use the hill-climbing support (`mjMESH_HILLCLIMB_MIN`).
const HILL_MIN: usize = 10;

/// MuJoCo's convex collision of a box or mesh (geom 1) with a box or mesh (geom 2) with multiccd (MuJoCo 4.0's
/// default); appends 0–4 contacts.
pub(crate) fn convex(g1: &Shape, f1: &Frame, g2: &Shape, f2: &Frame, margin: f64, out: &mut Vec<MjContact>) {
    convex_with(g1, f1, g2, f2, margin, true, out);
}

/// [`convex`] with `<flag multiccd="disable"/>`: the single EPA contact.
pub(crate) fn convex_single(
    g1: &Shape,
    f1: &Frame,
    g2: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    convex_with(g1, f1, g2, f2, margin, false, out);
}

fn convex_with(
    g1: &Shape,
    f1: &Frame,
    g2: &Shape,
    f2: &Frame,
    margin: f64,
    multi: bool,
    out: &mut Vec<MjContact>,
) {
    let (Some(mut o1), Some(mut o2)) = (Obj::new(g1, f1, margin), Obj::new(g2, f2, margin)) else {
        return;
    };
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => collide(&mut s, &mut o1, &mut o2, margin, multi, out),
        // Not reachable (no re-entrant call), but never panic: use fresh buffers.
        Err(_) => collide(&mut Scratch::default(), &mut o1, &mut o2, margin, multi, out),
    });
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

#[derive(Debug, Default)]
struct Scratch {
    pt: Polytope,
    clip: Clip,
}

// ---------------------------------------------------------------------------------------------------------------
// Geoms and support points
// ---------------------------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Geom<'a> {
    /// Half sizes.
    Box(DVec3),
    Mesh(&'a ConvexMesh),
}

/// MuJoCo's `mjCCDObj`: a geom in the world with the warm-start state of its support function.
#[derive(Debug)]
struct Obj<'a> {
    geom: Geom<'a>,
    /// Origin of the shape's local frame (box centre, mesh asset origin).
    origin: DVec3,
    mat: DMat3,
    /// MuJoCo's `geom_xpos`: the box centre or the mesh centroid.
    center: DVec3,
    margin: f64,
    /// Last support vertex (mesh vertex index, or box corner bits: bit k set for `+size[k]`); −1 before the first.
    vertindex: i64,
    /// Last hill-climbing vertex; −1 before the first.
    meshindex: i64,
    hill: bool,
}

impl<'a> Obj<'a> {
    fn new(shape: &'a Shape, f: &Frame, margin: f64) -> Option<Self> {
        let (geom, center, hill) = match shape {
            Shape::Box(b) => (Geom::Box(b.half_extents()), f.pos, false),
            Shape::ConvexMesh(m) => {
                if m.vertices().is_empty() {
                    return None;
                }
                (Geom::Mesh(m), f.pos + f.mat * m.centroid(), m.vertices().len() >= HILL_MIN)
            }
            _ => return None,
        };
        Some(Obj { geom, origin: f.pos, mat: f.mat, center, margin, vertindex: -1, meshindex: -1, hill })
    }

    /// World point of a local point.
    fn world(&self, local: DVec3) -> DVec3 {
        self.mat * local + self.origin
    }

    /// World direction of a local direction.
    fn rotate(&self, local: DVec3) -> DVec3 {
        self.mat * local
    }

    /// `matᵀ v`.
    fn to_local(&self, v: DVec3) -> DVec3 {
        DVec3::new(self.mat.x_axis.dot(v), self.mat.y_axis.dot(v), self.mat.z_axis.dot(v))
    }

    fn mesh_vertex(&self, i: i64) -> DVec3 {
        match self.geom {
            Geom::Mesh(m) => usize::try_from(i)
                .ok()
                .and_then(|i| m.vertices().get(i))
                .map_or(self.center, |&v| self.world(v)),
            Geom::Box(_) => self.center,
        }
    }

    /// Support point in direction `dir` (not normalised), without the margin; updates `vertindex`.
    fn support_raw(&mut self, dir: DVec3) -> DVec3 {
        let ld = self.to_local(dir);
        match self.geom {
            Geom::Box(s) => {
                let ls = DVec3::new(
                    if ld.x >= 0.0 { s.x } else { -s.x },
                    if ld.y >= 0.0 { s.y } else { -s.y },
                    if ld.z >= 0.0 { s.z } else { -s.z },
                );
                self.vertindex =
                    (ls.x > 0.0) as i64 | ((ls.y > 0.0) as i64) << 1 | ((ls.z > 0.0) as i64) << 2;
                self.world(ls)
            }
            Geom::Mesh(m) => {
                let verts = m.vertices();
                let imax = if self.hill {
                    // MuJoCo's hill climb over the hull graph, from the previous vertex.
                    let mut max = -FLT_MAX;
                    let mut imax =
                        usize::try_from(self.meshindex).ok().filter(|&i| i < verts.len()).unwrap_or(0);
                    let mut prev = usize::MAX;
                    while imax != prev {
                        prev = imax;
                        for &w in m.neighbors(prev) {
                            let Some(v) = verts.get(w as usize) else { continue };
                            let vdot = ld.dot(*v);
                            if vdot > max {
                                max = vdot;
                                imax = w as usize;
                            }
                        }
                    }
                    self.meshindex = imax as i64;
                    imax
                } else {
                    let mut max = -FLT_MAX;
                    let mut imax = 0;
                    if let Some(i) = usize::try_from(self.vertindex).ok().filter(|&i| i < verts.len()) {
                        imax = i;
                        max = ld.dot(verts[i]);
                    }
                    for (i, v) in verts.iter().enumerate() {
                        let vdot = ld.dot(*v);
                        if vdot > max {
                            max = vdot;
                            imax = i;
                        }
                    }
                    imax
                };
                self.vertindex = imax as i64;
                self.world(verts[imax])
            }
        }
    }

    /// The vertex `idx` of the geom without its margin (MuJoCo re-reads it when the margin inflates the support).
    fn raw_vertex(&self, idx: i64, fallback: DVec3) -> DVec3 {
        if self.margin == 0.0 {
            return fallback;
        }
        match self.geom {
            Geom::Mesh(_) => self.mesh_vertex(idx),
            Geom::Box(s) => self.world(box_corner(s, idx)),
        }
    }
}

fn box_corner(s: DVec3, bits: i64) -> DVec3 {
    DVec3::new(
        if bits & 1 != 0 { s.x } else { -s.x },
        if bits & 2 != 0 { s.y } else { -s.y },
        if bits & 4 != 0 { s.z } else { -s.z },
    )
}

/// A point of the Minkowski difference with its two support points and their vertex ids.
#[derive(Debug, Clone, Copy, Default)]
struct Vertex {
    vert: DVec3,
    vert1: DVec3,
    vert2: DVec3,
    index1: i64,
    index2: i64,
}

fn support(o1: &mut Obj<'_>, o2: &mut Obj<'_>, dir: DVec3, dir_neg: DVec3) -> Vertex {
    let mut vert1 = o1.support_raw(dir);
    if o1.margin > 0.0 {
        vert1 += dir * (0.5 * o1.margin);
    }
    let mut vert2 = o2.support_raw(dir_neg);
    if o2.margin > 0.0 {
        vert2 += dir_neg * (0.5 * o2.margin);
    }
    Vertex { vert: vert1 - vert2, vert1, vert2, index1: o1.vertindex, index2: o2.vertindex }
}

/// Polytope vertices only: meshes and boxes without margin (`discreteGeoms`).
fn discrete(o1: &Obj<'_>, o2: &Obj<'_>) -> bool {
    o1.margin == 0.0 && o2.margin == 0.0
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers with MuJoCo's arithmetic
// ---------------------------------------------------------------------------------------------------------------

/// `a / s` with Python's/MuJoCo's reading of a zero divisor: ±∞ for a non-zero `a`, NaN for `0/0`.
fn sdiv(a: f64, s: f64) -> f64 {
    if s == 0.0 { if a != 0.0 { f64::INFINITY.copysign(a) } else { f64::NAN } } else { a / s }
}

/// `mju_normalize3`'s result: the unit vector, `(1, 0, 0)` below `mjMINVAL`.
fn normalize(a: DVec3) -> DVec3 {
    let n = a.length();
    if n < MINVAL { DVec3::X } else { a / n }
}

fn det3(a: DVec3, b: DVec3, c: DVec3) -> f64 {
    a.x * (b.y * c.z - b.z * c.y) + a.y * (b.z * c.x - b.x * c.z) + a.z * (b.x * c.y - b.y * c.x)
}

fn same_sign(a: f64, b: f64) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

fn lincomb(c: &[f64; 4], n: usize, v: [DVec3; 4]) -> DVec3 {
    match n {
        1 => v[0] * c[0],
        2 => v[0] * c[0] + v[1] * c[1],
        3 => v[0] * c[0] + v[1] * c[1] + v[2] * c[2],
        4 => v[0] * c[0] + v[1] * c[1] + v[2] * c[2] + v[3] * c[3],
        _ => DVec3::ZERO,
    }
}

/// Projection of the origin onto the plane of a triangle; `None` for a degenerate triangle.
fn project_origin_plane(v1: DVec3, v2: DVec3, v3: DVec3) -> Option<DVec3> {
    let (d21, d31, d32) = (v2 - v1, v3 - v1, v3 - v2);
    let n = d32.cross(d21);
    let (nv, nn) = (n.dot(v2), n.dot(n));
    if nn == 0.0 {
        return None;
    }
    if nv != 0.0 && nn > MINVAL {
        return Some(n * (nv / nn));
    }
    let n = d21.cross(d31);
    let (nv, nn) = (n.dot(v1), n.dot(n));
    if nn == 0.0 {
        return None;
    }
    if nv != 0.0 && nn > MINVAL {
        return Some(n * (nv / nn));
    }
    let n = d31.cross(d32);
    Some(n * sdiv(n.dot(v3), n.dot(n)))
}

fn project_origin_line(v1: DVec3, v2: DVec3) -> DVec3 {
    let diff = v2 - v1;
    let scl = -sdiv(v2.dot(diff), diff.dot(diff));
    v2 + diff * scl
}

// ---------------------------------------------------------------------------------------------------------------
// GJK
// ---------------------------------------------------------------------------------------------------------------

fn s1d(s1: DVec3, s2: DVec3) -> [f64; 2] {
    let p = project_origin_line(s1, s2);
    let mut mu_max = s1.x - s2.x;
    let mut idx = 0;
    let mu = s1.y - s2.y;
    if mu.abs() >= mu_max.abs() {
        mu_max = mu;
        idx = 1;
    }
    let mu = s1.z - s2.z;
    if mu.abs() >= mu_max.abs() {
        mu_max = mu;
        idx = 2;
    }
    let c1 = p[idx] - s2[idx];
    let c2 = s1[idx] - p[idx];
    if same_sign(mu_max, c1) && same_sign(mu_max, c2) { [c1 / mu_max, c2 / mu_max] } else { [0.0, 1.0] }
}

/// The three 2×2 minors of a triangle and the projection axes MuJoCo picks (`S2D`, `triAffineCoord`).
fn tri_minors(s1: DVec3, s2: DVec3, s3: DVec3) -> (f64, usize, usize) {
    let m14 = s2.y * s3.z - s2.z * s3.y - s1.y * s3.z + s1.z * s3.y + s1.y * s2.z - s1.z * s2.y;
    let m24 = s2.x * s3.z - s2.z * s3.x - s1.x * s3.z + s1.z * s3.x + s1.x * s2.z - s1.z * s2.x;
    let m34 = s2.x * s3.y - s2.y * s3.x - s1.x * s3.y + s1.y * s3.x + s1.x * s2.y - s1.y * s2.x;
    let (mu1, mu2, mu3) = (m14.abs(), m24.abs(), m34.abs());
    if mu1 >= mu2 && mu1 >= mu3 {
        (m14, 1, 2)
    } else if mu2 >= mu3 {
        (m24, 0, 2)
    } else {
        (m34, 0, 1)
    }
}

/// Unnormalised barycentric numerators of `p` in the triangle, in the projection `(x, y)`.
fn tri_cofactors(s1: DVec3, s2: DVec3, s3: DVec3, p: DVec3, x: usize, y: usize) -> [f64; 3] {
    let (a0, a1, b0, b1, c0, c1, q0, q1) = (s1[x], s1[y], s2[x], s2[y], s3[x], s3[y], p[x], p[y]);
    [
        q0 * b1 + q1 * c0 + b0 * c1 - q0 * c1 - q1 * b0 - c0 * b1,
        q0 * c1 + q1 * a0 + c0 * a1 - q0 * a1 - q1 * c0 - a0 * c1,
        q0 * a1 + q1 * b0 + a0 * b1 - q0 * b1 - q1 * a0 - b0 * a1,
    ]
}

fn s2d(s1: DVec3, s2: DVec3, s3: DVec3) -> [f64; 3] {
    let Some(p) = project_origin_plane(s1, s2, s3) else {
        let l = s1d(s1, s2);
        return [l[0], l[1], 0.0];
    };
    let (mm, x, y) = tri_minors(s1, s2, s3);
    let c = tri_cofactors(s1, s2, s3, p, x, y);
    let (c1, c2, c3) = (same_sign(mm, c[0]), same_sign(mm, c[1]), same_sign(mm, c[2]));
    if c1 && c2 && c3 {
        return [c[0] / mm, c[1] / mm, c[2] / mm];
    }
    let mut lambda = [0.0; 3];
    let mut dmin = MAX_LIMIT;
    if !c1 {
        let l = s1d(s2, s3);
        let xx = s2 * l[0] + s3 * l[1];
        lambda = [0.0, l[0], l[1]];
        dmin = xx.dot(xx);
    }
    if !c2 {
        let l = s1d(s1, s3);
        let xx = s1 * l[0] + s3 * l[1];
        let d = xx.dot(xx);
        if d < dmin {
            lambda = [l[0], 0.0, l[1]];
            dmin = d;
        }
    }
    if !c3 {
        let l = s1d(s1, s2);
        let xx = s1 * l[0] + s2 * l[1];
        if xx.dot(xx) < dmin {
            lambda = [l[0], l[1], 0.0];
        }
    }
    lambda
}

fn s3d(s1: DVec3, s2: DVec3, s3: DVec3, s4: DVec3) -> [f64; 4] {
    let c41 = -det3(s2, s3, s4);
    let c42 = det3(s1, s3, s4);
    let c43 = -det3(s1, s2, s4);
    let c44 = det3(s1, s2, s3);
    let md = c41 + c42 + c43 + c44;
    let (b1, b2, b3, b4) = (same_sign(md, c41), same_sign(md, c42), same_sign(md, c43), same_sign(md, c44));
    if b1 && b2 && b3 && b4 {
        return [c41 / md, c42 / md, c43 / md, c44 / md];
    }
    let mut lambda = [0.0; 4];
    let mut dmin = MAX_LIMIT;
    let sqr = |a: DVec3, b: DVec3, c: DVec3, l: [f64; 3]| {
        let xx = a * l[0] + b * l[1] + c * l[2];
        xx.dot(xx)
    };
    if !b1 {
        let l = s2d(s2, s3, s4);
        lambda = [0.0, l[0], l[1], l[2]];
        dmin = sqr(s2, s3, s4, l);
    }
    if !b2 {
        let l = s2d(s1, s3, s4);
        let d = sqr(s1, s3, s4, l);
        if d < dmin {
            lambda = [l[0], 0.0, l[1], l[2]];
            dmin = d;
        }
    }
    if !b3 {
        let l = s2d(s1, s2, s4);
        let d = sqr(s1, s2, s4, l);
        if d < dmin {
            lambda = [l[0], l[1], 0.0, l[2]];
            dmin = d;
        }
    }
    if !b4 {
        let l = s2d(s1, s2, s3);
        if sqr(s1, s2, s3, l) < dmin {
            lambda = [l[0], l[1], l[2], 0.0];
        }
    }
    lambda
}

fn subdistance(n: usize, s: &[Vertex; 4]) -> [f64; 4] {
    match n {
        4 => s3d(s[0].vert, s[1].vert, s[2].vert, s[3].vert),
        3 => {
            let l = s2d(s[0].vert, s[1].vert, s[2].vert);
            [l[0], l[1], l[2], 0.0]
        }
        2 => {
            let l = s1d(s[0].vert, s[1].vert);
            [l[0], l[1], 0.0, 0.0]
        }
        _ => [1.0, 0.0, 0.0, 0.0],
    }
}

/// GJK and EPA state (`mjCCDStatus`).
#[derive(Debug, Default)]
struct Status {
    x1: DVec3,
    x2: DVec3,
    simplex: [Vertex; 4],
    nsimplex: usize,
    gjk_iterations: usize,
    dist: f64,
    separated: bool,
}

fn gjk_support(o1: &mut Obj<'_>, o2: &mut Obj<'_>, xk: DVec3, xn: f64) -> Vertex {
    let inv = if xn == 0.0 { f64::INFINITY } else { 1.0 / xn };
    let dn = xk * inv;
    support(o1, o2, -dn, dn)
}

/// Signed distance of the origin to the plane of a triangle and its unit normal.
fn signed_distance(v1: DVec3, v2: DVec3, v3: DVec3) -> (f64, DVec3) {
    let n = (v3 - v1).cross(v2 - v1);
    let n2 = n.dot(n);
    if n2 > MINVAL2 && n2 < MAXVAL2 {
        let n = n * (1.0 / n2.sqrt());
        (n.dot(v1), n)
    } else {
        (MAX_LIMIT, n)
    }
}

/// `gjkIntersect`: 1 intersecting (tetrahedron around the origin), 0 separated, −1 undecided.
fn gjk_intersect(st: &mut Status, o1: &mut Obj<'_>, o2: &mut Obj<'_>) -> i32 {
    let mut s = st.simplex;
    let mut order = [0usize, 1, 2, 3];
    let mut k = st.gjk_iterations;
    while k < MAX_ITERATIONS {
        let v = |i: usize| s[order[i]].vert;
        let faces = [
            signed_distance(v(2), v(1), v(3)),
            signed_distance(v(0), v(2), v(3)),
            signed_distance(v(1), v(0), v(3)),
            signed_distance(v(0), v(1), v(2)),
        ];
        let dist = [faces[0].0, faces[1].0, faces[2].0, faces[3].0];
        if dist.contains(&0.0) {
            st.gjk_iterations = k;
            return -1;
        }
        let i = if dist[0] < dist[1] { 0 } else { 1 };
        let j = if dist[2] < dist[3] { 2 } else { 3 };
        let idx = if dist[i] < dist[j] { i } else { j };
        if dist[idx] > 0.0 {
            st.nsimplex = 4;
            st.simplex = [s[order[0]], s[order[1]], s[order[2]], s[order[3]]];
            st.gjk_iterations = k;
            return 1;
        }
        let n = faces[idx].1;
        s[order[idx]] = support(o1, o2, n, -n);
        if n.dot(s[order[idx]].vert) < 0.0 {
            st.nsimplex = 0;
            st.gjk_iterations = k;
            return 0;
        }
        order.swap((idx + 1) & 3, (idx + 2) & 3);
        k += 1;
    }
    st.gjk_iterations = k;
    -1
}

fn gjk(st: &mut Status, o1: &mut Obj<'_>, o2: &mut Obj<'_>) {
    let mut backup = true;
    let mut n = 0usize;
    let mut k = 0usize;
    let mut lambda = [0.0; 4];
    st.separated = false;
    let disc = discrete(o1, o2);
    let eps = if disc { 0.0 } else { 0.5 * TOLERANCE * TOLERANCE };
    let min_norm = if disc { MINVAL } else { TOLERANCE };
    let mut xk = st.x1 - st.x2;
    let mut xn = xk.length();
    let mut xprev = 0.0;
    while k < MAX_ITERATIONS {
        if xn < min_norm || (xprev - xn).abs() < MINVAL {
            break;
        }
        st.simplex[n] = gjk_support(o1, o2, xk, xn);
        let sk = st.simplex[n].vert;
        if xk.dot(xk - sk) < eps {
            break;
        }
        // No distance is asked for: a separating support point ends the test.
        if xk.dot(sk) > 0.0 {
            st.separated = true;
            st.gjk_iterations = k;
            st.nsimplex = 0;
            st.dist = MAX_LIMIT;
            return;
        }
        if n == 3 && backup {
            st.gjk_iterations = k;
            let ret = gjk_intersect(st, o1, o2);
            if ret != -1 {
                st.separated = ret == 0;
                st.dist = if ret > 0 { 0.0 } else { MAX_LIMIT };
                return;
            }
            k = st.gjk_iterations;
            backup = false;
        }
        lambda = subdistance(n + 1, &st.simplex);
        n = 0;
        for i in 0..4 {
            if lambda[i] == 0.0 {
                continue;
            }
            st.simplex[n] = st.simplex[i];
            lambda[n] = lambda[i];
            n += 1;
        }
        if n < 1 {
            st.gjk_iterations = k;
            st.nsimplex = 0;
            st.dist = MAX_LIMIT;
            st.separated = true;
            return;
        }
        xk = lincomb(&lambda, n, st.simplex.map(|v| v.vert));
        xprev = xn;
        xn = xk.length();
        if n == 4 {
            break;
        }
        k += 1;
    }
    if n > 0 {
        st.x1 = lincomb(&lambda, n, st.simplex.map(|v| v.vert1));
        st.x2 = lincomb(&lambda, n, st.simplex.map(|v| v.vert2));
    }
    // MuJoCo's final separation check (it also moves the support warm starts).
    let tmp = gjk_support(o1, o2, xk, xn);
    if xk.dot(tmp.vert) > 0.0 {
        st.separated = true;
    }
    st.gjk_iterations = k;
    st.nsimplex = n;
    st.dist = if n == 4 && !st.separated { 0.0 } else { xn };
}

// ---------------------------------------------------------------------------------------------------------------
// EPA
// ---------------------------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, Default)]
struct Face {
    verts: [usize; 3],
    adj: [usize; 3],
    /// Projection of the origin onto the face plane.
    v: DVec3,
    dist2: f64,
    /// Position in the map of candidate faces; −1 not a candidate, −2 deleted.
    index: isize,
}

#[derive(Debug, Default)]
struct Polytope {
    verts: Vec<Vertex>,
    faces: Vec<Face>,
    map: Vec<usize>,
    center: DVec3,
    /// Horizon: faces and their edge facing the new vertex.
    hidx: Vec<usize>,
    hedge: Vec<usize>,
    w: DVec3,
}

impl Polytope {
    fn clear(&mut self) {
        self.verts.clear();
        self.faces.clear();
        self.map.clear();
        self.hidx.clear();
        self.hedge.clear();
    }

    fn p(&self, i: usize) -> DVec3 {
        self.verts[i].vert
    }

    /// Adds a face and returns its squared distance from the origin (0 for a degenerate face).
    fn attach_face(&mut self, v1: usize, v2: usize, v3: usize, a1: usize, a2: usize, a3: usize) -> f64 {
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

    fn finish_map(&mut self, n: usize) {
        self.map.clear();
        for i in 0..n {
            self.map.push(i);
            self.faces[i].index = i as isize;
        }
    }

    fn delete_face(&mut self, f: usize) {
        if let Ok(idx) = usize::try_from(self.faces[f].index)
            && let Some(last) = self.map.pop()
            && last != f
        {
            self.map[idx] = last;
            self.faces[last].index = idx as isize;
        }
        self.faces[f].index = -2;
    }

    fn edge_of(&self, f: usize, v: usize) -> usize {
        let verts = self.faces[f].verts;
        if verts[0] == v {
            0
        } else if verts[1] == v {
            1
        } else {
            2
        }
    }

    fn horizon_rec(&mut self, f: usize, e: usize) -> bool {
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
    fn horizon(&mut self, f: usize) {
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

fn epa_support(pt: &mut Polytope, o1: &mut Obj<'_>, o2: &mut Obj<'_>, d: DVec3, dn: f64) -> usize {
    let dir = if dn > MINVAL { d / dn } else { DVec3::X };
    pt.verts.push(support(o1, o2, dir, -dir));
    pt.verts.len() - 1
}

fn same_side(p0: DVec3, p1: DVec3, p2: DVec3, p3: DVec3) -> bool {
    let n = (p1 - p0).cross(p2 - p0);
    same_sign(n.dot(p3 - p0), n.dot(-p0))
}

fn test_tetra(p0: DVec3, p1: DVec3, p2: DVec3, p3: DVec3) -> bool {
    same_side(p0, p1, p2, p3)
        && same_side(p1, p2, p3, p0)
        && same_side(p2, p3, p0, p1)
        && same_side(p3, p0, p1, p2)
}

/// Rotation by 120° about `a` (row-major).
fn rotmat(a: DVec3) -> [f64; 9] {
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

fn mat_vec(m: &[f64; 9], v: DVec3) -> DVec3 {
    DVec3::new(
        m[0] * v.x + m[1] * v.y + m[2] * v.z,
        m[3] * v.x + m[4] * v.y + m[5] * v.z,
        m[6] * v.x + m[7] * v.y + m[8] * v.z,
    )
}

/// 1 if the segment `v1 v2` crosses the triangle `v3 v4 v5` one way, −1 the other, 0 if it misses.
fn ray_triangle(v1: DVec3, v2: DVec3, v3: DVec3, v4: DVec3, v5: DVec3) -> i32 {
    let (d12, d13, d14, d15) = (v2 - v1, v3 - v1, v4 - v1, v5 - v1);
    let a = det3(d13, d14, d12);
    let b = det3(d14, d15, d12);
    let c = det3(d15, d13, d12);
    if a >= 0.0 && b >= 0.0 && c >= 0.0 {
        1
    } else if a <= 0.0 && b <= 0.0 && c <= 0.0 {
        -1
    } else {
        0
    }
}

fn tri_affine(v1: DVec3, v2: DVec3, v3: DVec3, p: DVec3) -> [f64; 3] {
    let (mm, x, y) = tri_minors(v1, v2, v3);
    let c = tri_cofactors(v1, v2, v3, p, x, y);
    [sdiv(c[0], mm), sdiv(c[1], mm), sdiv(c[2], mm)]
}

fn tri_point_intersect(v1: DVec3, v2: DVec3, v3: DVec3, p: DVec3) -> bool {
    let l = tri_affine(v1, v2, v3, p);
    if l[0] < 0.0 || l[1] < 0.0 || l[2] < 0.0 {
        return false;
    }
    let pr = v1 * l[0] + v2 * l[1] + v3 * l[2];
    (pr - p).length() < MINVAL
}

fn replace_simplex3(pt: &mut Polytope, st: &mut Status, a: usize, b: usize, c: usize) {
    st.nsimplex = 3;
    st.simplex[0] = pt.verts[a];
    st.simplex[1] = pt.verts[b];
    st.simplex[2] = pt.verts[c];
    pt.clear();
}

/// Initial polytope from a triangle: the two support points along its normal make a triangular bipyramid.
fn polytope3(pt: &mut Polytope, st: &mut Status, o1: &mut Obj<'_>, o2: &mut Obj<'_>) -> i32 {
    let (v1, v2, v3) = (st.simplex[0].vert, st.simplex[1].vert, st.simplex[2].vert);
    pt.center = (v1 + v2 + v3) * (1.0 / 3.0);
    let n = (v2 - v1).cross(v3 - v1);
    let nn = n.length();
    if nn < MINVAL {
        return 3;
    }
    let (v1i, v2i, v3i) = (pt.verts.len(), pt.verts.len() + 1, pt.verts.len() + 2);
    pt.verts.extend_from_slice(&st.simplex[..3]);
    let v5i = epa_support(pt, o1, o2, -n, nn);
    let v4i = epa_support(pt, o1, o2, n, nn);
    let (p1, p2, p3) = (pt.p(v1i), pt.p(v2i), pt.p(v3i));
    if tri_point_intersect(p1, p2, p3, pt.p(v4i)) {
        return 4;
    }
    if tri_point_intersect(p1, p2, p3, pt.p(v5i)) {
        return 5;
    }
    // MuJoCo's `dist > 10 mjMINVAL` test (code 6) never applies here: EPA runs with `dist = 0`.
    for (a, b, c, x, y, z) in [
        (v4i, v1i, v2i, 1, 3, 2),
        (v4i, v3i, v1i, 2, 4, 0),
        (v4i, v2i, v3i, 0, 5, 1),
        (v5i, v2i, v1i, 5, 0, 4),
        (v5i, v1i, v3i, 3, 1, 5),
        (v5i, v3i, v2i, 4, 2, 3),
    ] {
        if pt.attach_face(a, b, c, x, y, z) < MINVAL2 {
            return 7;
        }
    }
    pt.finish_map(6);
    0
}

/// Initial polytope from a segment: three support points around it (120° apart) make a hexahedron.
fn polytope2(pt: &mut Polytope, st: &mut Status, o1: &mut Obj<'_>, o2: &mut Obj<'_>) -> i32 {
    let (v1, v2) = (st.simplex[0].vert, st.simplex[1].vert);
    pt.center = (v1 + v2) * 0.5;
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
    for (a, b, c, x, y, z) in [
        (v1i, v3i, v4i, 1, 3, 2),
        (v1i, v5i, v3i, 2, 4, 0),
        (v1i, v4i, v5i, 0, 5, 1),
        (v2i, v4i, v3i, 5, 0, 4),
        (v2i, v3i, v5i, 3, 1, 5),
        (v2i, v5i, v4i, 4, 2, 3),
    ] {
        if pt.attach_face(a, b, c, x, y, z) < MINVAL2 {
            replace_simplex3(pt, st, a, b, c);
            return polytope3(pt, st, o1, o2);
        }
    }
    if ray_triangle(pt.p(v1i), pt.p(v2i), pt.p(v3i), pt.p(v4i), pt.p(v5i)) == 0 {
        return 2;
    }
    pt.finish_map(6);
    0
}

fn polytope4(pt: &mut Polytope, st: &mut Status, o1: &mut Obj<'_>, o2: &mut Obj<'_>) -> i32 {
    let (v1, v2, v3, v4) = (pt.verts.len(), pt.verts.len() + 1, pt.verts.len() + 2, pt.verts.len() + 3);
    pt.verts.extend_from_slice(&st.simplex);
    pt.center = (pt.p(v1) + pt.p(v2) + pt.p(v3) + pt.p(v4)) * 0.25;
    for (a, b, c, x, y, z) in
        [(v1, v2, v3, 1, 3, 2), (v1, v4, v2, 2, 3, 0), (v1, v3, v4, 0, 3, 1), (v4, v3, v2, 2, 0, 1)]
    {
        if pt.attach_face(a, b, c, x, y, z) < MINVAL2 {
            replace_simplex3(pt, st, a, b, c);
            return polytope3(pt, st, o1, o2);
        }
    }
    if !test_tetra(pt.p(v1), pt.p(v2), pt.p(v3), pt.p(v4)) {
        return 9;
    }
    pt.finish_map(4);
    0
}

/// EPA witness points of a face and the (negative) distance.
fn epa_witness(pt: &Polytope, f: usize) -> (DVec3, DVec3, f64) {
    let face = &pt.faces[f];
    let [a, b, c] = face.verts.map(|i| pt.verts[i]);
    let l = tri_affine(a.vert, b.vert, c.vert, face.v);
    let x1 = a.vert1 * l[0] + b.vert1 * l[1] + c.vert1 * l[2];
    let x2 = a.vert2 * l[0] + b.vert2 * l[1] + c.vert2 * l[2];
    (x1, x2, -face.dist2.sqrt())
}

/// Expands the polytope; returns the final face, if EPA converged to one.
fn epa(pt: &mut Polytope, o1: &mut Obj<'_>, o2: &mut Obj<'_>) -> Option<usize> {
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
        if upper - lower < tol {
            if k == 0 && upper < lower - 1e-10 {
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

// ---------------------------------------------------------------------------------------------------------------
// Multi-contact
// ---------------------------------------------------------------------------------------------------------------

/// Buffers of the feature search and the polygon clipping.
#[derive(Debug, Default)]
struct Clip {
    /// Face normals (world) and face ids of the features of geom 1 and geom 2.
    n1: Vec<DVec3>,
    idx1: Vec<usize>,
    n2: Vec<DVec3>,
    idx2: Vec<usize>,
    /// Edge directions and far ends of an edge feature.
    edges: Vec<DVec3>,
    ends: Vec<DVec3>,
    face1: Vec<DVec3>,
    face2: Vec<DVec3>,
    plane_n: Vec<DVec3>,
    plane_d: Vec<f64>,
    poly: Vec<DVec3>,
    next: Vec<DVec3>,
}

/// Number of distinct vertices of a face's support ids (3, 2 or 1); for 2 the distinct pair is moved to the front.
fn simplex_dim(vi: &mut [i64; 3], v: &mut [DVec3; 3]) -> usize {
    if vi[0] == vi[1] {
        if vi[0] == vi[2] {
            return 1;
        }
        vi[1] = vi[2];
        v[1] = v[2];
        return 2;
    }
    if vi[2] == vi[0] || vi[2] == vi[1] { 2 } else { 3 }
}

/// Up to two polygons common to the lists `a` and `b`, in the order of `a`.
fn intersect2(a: &[u32], b: &[u32]) -> ([u32; 2], usize) {
    let mut res = [0; 2];
    let mut n = 0;
    for &x in a {
        if b.contains(&x) {
            res[n] = x;
            n += 1;
            if n == 2 {
                break;
            }
        }
    }
    (res, n)
}

fn vertex_polygons(m: &ConvexMesh, v: i64) -> &[u32] {
    usize::try_from(v).map_or(&[], |v| m.vertex_polygons(v))
}

/// World normals and ids of the polygons of a mesh feature (`mjc_meshNormals`).
fn mesh_normals(
    o: &Obj<'_>,
    m: &ConvexMesh,
    dim: usize,
    vi: &[i64; 3],
    n: &mut Vec<DVec3>,
    idx: &mut Vec<usize>,
) {
    let mut push = |p: u32| {
        n.push(o.rotate(m.polygon_normal(p as usize)));
        idx.push(p as usize);
    };
    match dim {
        3 => {
            let (e, ne) = intersect2(vertex_polygons(m, vi[0]), vertex_polygons(m, vi[1]));
            if ne == 0 {
                return;
            }
            let (f, nf) = intersect2(&e[..ne], vertex_polygons(m, vi[2]));
            if nf > 0 {
                push(f[0]);
            }
        }
        2 => {
            let (e, ne) = intersect2(vertex_polygons(m, vi[0]), vertex_polygons(m, vi[1]));
            e[..ne].iter().for_each(|&p| push(p));
        }
        1 => vertex_polygons(m, vi[0]).iter().for_each(|&p| push(p)),
        _ => {}
    }
}

/// The face of a box within `FACE_TOL` of the direction `dir` (`mjc_boxNormals2`).
fn box_normals_dir(o: &Obj<'_>, dir: DVec3, n: &mut Vec<DVec3>, idx: &mut Vec<usize>) {
    let ln = o.to_local(dir);
    let ln = ln * (1.0 / ln.dot(ln).sqrt());
    for (i, axis) in BOX_NORMALS.iter().enumerate() {
        if ln.dot(*axis) > FACE_TOL {
            n.push(o.rotate(*axis));
            idx.push(i);
            return;
        }
    }
}

const BOX_NORMALS: [DVec3; 6] = [DVec3::X, DVec3::NEG_X, DVec3::Y, DVec3::NEG_Y, DVec3::Z, DVec3::NEG_Z];

/// World normals and face ids (`2k` for `+axis k`, `2k + 1` for `−axis k`) of a box feature (`mjc_boxNormals`).
fn box_normals(o: &Obj<'_>, dim: usize, vi: &[i64; 3], dir: DVec3, n: &mut Vec<DVec3>, idx: &mut Vec<usize>) {
    let all = |bit: i64, k: usize| vi[..k].iter().all(|v| v & bit != 0) as i32;
    let none = |bit: i64, k: usize| vi[..k].iter().all(|v| v & bit == 0) as i32;
    match dim {
        3 => {
            let (x, y, z) = (all(1, 3) - none(1, 3), all(2, 3) - none(2, 3), all(4, 3) - none(4, 3));
            if (x != 0) as i32 + (y != 0) as i32 + (z != 0) as i32 == 1 {
                n.push(o.rotate(DVec3::new(x as f64, y as f64, z as f64)));
                let axis = if x != 0 {
                    0
                } else if y != 0 {
                    2
                } else {
                    4
                };
                idx.push(if x + y + z == -1 { axis + 1 } else { axis });
            } else {
                box_normals_dir(o, dir, n, idx);
            }
        }
        2 => {
            let s = [all(1, 2) - none(1, 2), all(2, 2) - none(2, 2), all(4, 2) - none(4, 2)];
            if s.iter().filter(|&&c| c != 0).count() == 2 {
                for (k, &c) in s.iter().enumerate() {
                    if c != 0 {
                        let mut a = DVec3::ZERO;
                        a[k] = c as f64;
                        n.push(o.rotate(a));
                        idx.push(2 * k + (c < 0) as usize);
                    }
                }
            } else {
                box_normals_dir(o, dir, n, idx);
            }
        }
        1 => {
            for k in 0..3 {
                let positive = vi[0] & (1 << k) != 0;
                let mut a = DVec3::ZERO;
                a[k] = if positive { 1.0 } else { -1.0 };
                n.push(o.rotate(a));
                idx.push(2 * k + (!positive) as usize);
            }
        }
        _ => {}
    }
}

fn feature_normals(
    o: &Obj<'_>,
    dim: usize,
    vi: &[i64; 3],
    dir: DVec3,
    n: &mut Vec<DVec3>,
    idx: &mut Vec<usize>,
) {
    n.clear();
    idx.clear();
    match o.geom {
        Geom::Box(_) => box_normals(o, dim, vi, dir, n, idx),
        Geom::Mesh(m) => mesh_normals(o, m, dim, vi, n, idx),
    }
}

/// Directions and far ends of the edges of an edge (dim 2) or vertex (dim 1) feature (`mjc_*EdgeNormals`).
fn edge_normals(
    o: &Obj<'_>,
    dim: usize,
    v: &[DVec3; 3],
    vi: &[i64; 3],
    dirs: &mut Vec<DVec3>,
    ends: &mut Vec<DVec3>,
) {
    dirs.clear();
    ends.clear();
    match dim {
        2 => {
            dirs.push(normalize(v[1] - v[0]));
            ends.push(v[1]);
        }
        1 => match o.geom {
            Geom::Box(s) => {
                let c = box_corner(s, vi[0]);
                for k in 0..3 {
                    let mut e = c;
                    e[k] = -e[k];
                    let e = o.world(e);
                    ends.push(e);
                    dirs.push(normalize(e - v[0]));
                }
            }
            Geom::Mesh(m) => {
                for &p in vertex_polygons(m, vi[0]) {
                    let pv = m.polygon(p as usize);
                    if let Some(j) = pv.iter().position(|&w| i64::from(w) == vi[0]) {
                        let prev = pv[if j == 0 { pv.len() - 1 } else { j - 1 }];
                        let e = o.mesh_vertex(i64::from(prev));
                        ends.push(e);
                        dirs.push(normalize(e - v[0]));
                    }
                }
            }
        },
        _ => {}
    }
}

/// World vertices of face `idx` of the geom, clockwise seen from outside (MuJoCo reverses mesh polygons).
fn face_vertices(o: &Obj<'_>, idx: usize, out: &mut Vec<DVec3>) {
    out.clear();
    match o.geom {
        Geom::Box(s) => {
            const FACES: [[[f64; 3]; 4]; 6] = [
                [[1., 1., 1.], [1., 1., -1.], [1., -1., -1.], [1., -1., 1.]],
                [[-1., 1., -1.], [-1., 1., 1.], [-1., -1., 1.], [-1., -1., -1.]],
                [[-1., 1., -1.], [1., 1., -1.], [1., 1., 1.], [-1., 1., 1.]],
                [[-1., -1., 1.], [1., -1., 1.], [1., -1., -1.], [-1., -1., -1.]],
                [[-1., 1., 1.], [1., 1., 1.], [1., -1., 1.], [-1., -1., 1.]],
                [[1., 1., -1.], [-1., 1., -1.], [-1., -1., -1.], [1., -1., -1.]],
            ];
            if let Some(face) = FACES.get(idx) {
                out.extend(face.iter().map(|c| o.world(DVec3::from(*c) * s)));
            }
        }
        Geom::Mesh(m) => {
            out.extend(m.polygon(idx).iter().rev().map(|&v| o.mesh_vertex(i64::from(v))));
        }
    }
}

/// The pair of opposite faces (dot below `−FACE_TOL`) with the smallest dot product.
fn aligned_faces(v: &[DVec3], w: &[DVec3]) -> Option<(usize, usize)> {
    let mut best = None;
    let mut bd = -FACE_TOL;
    for (i, a) in v.iter().enumerate() {
        for (j, b) in w.iter().enumerate() {
            let d = a.dot(*b);
            if d < bd {
                bd = d;
                best = Some((i, j));
            }
        }
    }
    best
}

/// The first face (facing `dir`) and edge along it: `(edge, face)`.
fn aligned_face_edge(edges: &[DVec3], faces: &[DVec3], dir: DVec3) -> Option<(usize, usize)> {
    for (i, f) in faces.iter().enumerate() {
        if f.dot(dir) <= MINVAL {
            continue;
        }
        if let Some(j) = edges.iter().position(|e| e.dot(*f).abs() < EDGE_TOL) {
            return Some((j, i));
        }
    }
    None
}

fn area4(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    0.5 * (a - c).cross(b - d).length()
}

/// The four points of a convex polygon spanning (about) the largest quadrilateral (MuJoCo's `polygonQuad`).
fn polygon_quad(p: &[DVec3]) -> [usize; 4] {
    let nh = p.len();
    let (mut a, mut b, mut c, mut d) = (0, 1, 2, 3);
    let mut res = [0, 1, 2, 3];
    let mut m = area4(p[a], p[b], p[c], p[d]);
    while a < nh {
        loop {
            let dn = (d + 1) % nh;
            let mn = area4(p[a], p[b], p[c], p[dn]);
            // `!(mn > m)` rather than `mn <= m`: a NaN area must end the climb.
            if !(mn > m) {
                break;
            }
            d = dn;
            m = mn;
            res = [a, b, c, d];
            loop {
                let cn = (c + 1) % nh;
                let mn = area4(p[a], p[b], p[cn], p[d]);
                if !(mn > m) {
                    break;
                }
                c = cn;
                m = mn;
                res = [a, b, c, d];
            }
            loop {
                let bn = (b + 1) % nh;
                let mn = area4(p[a], p[bn], p[c], p[d]);
                if !(mn > m) {
                    break;
                }
                b = bn;
                m = mn;
                res = [a, b, c, d];
            }
        }
        if b == a {
            b = (b + 1) % nh;
            if c == b {
                c = (c + 1) % nh;
                if d == c {
                    d = (d + 1) % nh;
                }
            }
        }
        a += 1;
    }
    res
}

/// Clips `subject` (a polygon, or an edge of 2 points) by the polygon `clipper` (normal `n`) and appends one
/// contact per kept point with normal `frame`; `nsub` is the subject face's normal (face–face) or `None` (edge).
/// Returns false when nothing is left (the EPA contact stands).
#[allow(clippy::too_many_arguments)]
fn polygon_clip(
    clipper: &[DVec3],
    subject: &[DVec3],
    n: DVec3,
    nsub: Option<DVec3>,
    frame: DVec3,
    prune: f64,
    bufs: (&mut Vec<DVec3>, &mut Vec<f64>, &mut Vec<DVec3>, &mut Vec<DVec3>),
    out: &mut Vec<MjContact>,
) -> bool {
    let (plane_n, plane_d, poly, next) = bufs;
    let nc = clipper.len();
    if nc < 3 {
        return false;
    }
    plane_n.clear();
    plane_d.clear();
    for i in 0..nc {
        let (v1, v2) = (clipper[i], clipper[(i + 1) % nc]);
        let v3 = v1 + n;
        let r = normalize((v2 - v1).cross(v3 - v1));
        plane_n.push(r);
        plane_d.push(r.dot(v1));
    }
    poly.clear();
    poly.extend_from_slice(subject);
    for e in 0..nc {
        next.clear();
        let len = poly.len();
        for i in 0..len {
            let p = poly[i];
            let q = if i < len - 1 { poly[i + 1] } else { poly[0] };
            let in1 = (p - clipper[e]).dot(plane_n[e]) > -MINVAL;
            let in2 = (q - clipper[e]).dot(plane_n[e]) > -MINVAL;
            if !in1 && !in2 {
                continue;
            }
            if in1 && in2 {
                next.push(q);
                continue;
            }
            let pq = q - p;
            let tmp = plane_n[e].dot(pq);
            if tmp != 0.0 {
                let t = (plane_d[e] - plane_n[e].dot(p)) / tmp;
                if (0.0..=1.0).contains(&t) {
                    next.push(p + pq * t);
                }
            }
            if in2 {
                next.push(q);
            }
        }
        std::mem::swap(poly, next);
    }
    let base = clipper[0];
    poly.retain(|p| (*p - base).dot(n) <= prune);
    if poly.is_empty() {
        return false;
    }
    let mut emit = |v: DVec3| {
        let dd = (v - base).dot(n);
        let c = v - n * dd;
        let (x1, x2, dist) = match nsub {
            None => (c, v, dd),
            Some(ns) => {
                let d2 = (c - v).dot(ns);
                (c, c - ns * d2, d2)
            }
        };
        out.push(MjContact { dist, pos: (x1 + x2) * 0.5, normal: frame });
    };
    if MAX_CONTACTS < 5 && poly.len() > 4 {
        for i in polygon_quad(poly) {
            emit(poly[i]);
        }
    } else if subject.len() == 2 && poly.len() > 2 {
        let (mut b1, mut b2, mut best) = (0, 1, 0.0);
        for i in 0..poly.len() {
            for j in i + 1..poly.len() {
                let d2 = (poly[j] - poly[i]).length_squared();
                if d2 > best {
                    best = d2;
                    b1 = i;
                    b2 = j;
                }
            }
        }
        emit(poly[b1]);
        emit(poly[b2]);
    } else {
        poly.iter().take(50).for_each(|&p| emit(p));
    }
    true
}

/// What the multi-contact step did.
enum Multi {
    /// Contacts were appended.
    Contacts,
    /// No feature pair or nothing clipped: the EPA contact stands, with its witness points swapped when an edge of
    /// geom 1 was clipped (MuJoCo swaps them after clipping whether or not points came out).
    None { swapped: bool },
}

#[allow(clippy::too_many_arguments)]
fn multicontact(
    pt: &Polytope,
    face: usize,
    x1: DVec3,
    x2: DVec3,
    o1: &Obj<'_>,
    o2: &Obj<'_>,
    margin: f64,
    c: &mut Clip,
    out: &mut Vec<MjContact>,
) -> Multi {
    let verts = pt.faces[face].verts.map(|i| pt.verts[i]);
    let mut v1i = verts.map(|v| v.index1);
    let mut v2i = verts.map(|v| v.index2);
    let mut v1 = verts.map(|v| o1.raw_vertex(v.index1, v.vert1));
    let mut v2 = verts.map(|v| o2.raw_vertex(v.index2, v.vert2));
    let nf1 = simplex_dim(&mut v1i, &mut v1);
    let nf2 = simplex_dim(&mut v2i, &mut v2);
    let dir = x2 - x1;
    let dir_neg = x1 - x2;
    feature_normals(o1, nf1, &v1i, dir_neg, &mut c.n1, &mut c.idx1);
    feature_normals(o2, nf2, &v2i, dir, &mut c.n2, &mut c.idx2);

    let none = Multi::None { swapped: false };
    if let Some((i, j)) = aligned_faces(&c.n1, &c.n2) {
        face_vertices(o1, c.idx1[i], &mut c.face1);
        face_vertices(o2, c.idx2[j], &mut c.face2);
        let bufs = (&mut c.plane_n, &mut c.plane_d, &mut c.poly, &mut c.next);
        let n2 = c.n2[j];
        let ok = polygon_clip(&c.face1, &c.face2, c.n1[i], Some(n2), -n2, margin, bufs, out);
        return if ok { Multi::Contacts } else { none };
    }
    if nf1 < 3 && nf1 <= nf2 {
        edge_normals(o1, nf1, &v1, &v1i, &mut c.edges, &mut c.ends);
        if let Some((i, j)) = aligned_face_edge(&c.edges, &c.n2, dir) {
            // Edge of geom 1 against a face of geom 2.
            c.face1.clear();
            c.face1.extend([v1[0], c.ends[i]]);
            face_vertices(o2, c.idx2[j], &mut c.face2);
            let bufs = (&mut c.plane_n, &mut c.plane_d, &mut c.poly, &mut c.next);
            let nn = c.n2[j];
            let ok = polygon_clip(&c.face2, &c.face1, nn, None, -nn, margin, bufs, out);
            return if ok { Multi::Contacts } else { Multi::None { swapped: true } };
        }
    }
    if nf2 < 3 {
        edge_normals(o2, nf2, &v2, &v2i, &mut c.edges, &mut c.ends);
        if let Some((i, j)) = aligned_face_edge(&c.edges, &c.n1, dir_neg) {
            // Edge of geom 2 against a face of geom 1.
            face_vertices(o1, c.idx1[j], &mut c.face1);
            c.face2.clear();
            c.face2.extend([v2[0], c.ends[i]]);
            let bufs = (&mut c.plane_n, &mut c.plane_d, &mut c.poly, &mut c.next);
            let nn = c.n1[j];
            let ok = polygon_clip(&c.face1, &c.face2, nn, None, nn, margin, bufs, out);
            return if ok { Multi::Contacts } else { none };
        }
    }
    none
}

// ---------------------------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------------------------

/// `mjc_Convex` → `mjc_ccd`: GJK, EPA when the geoms intersect, then the multi-contact step.
fn collide(
    s: &mut Scratch,
    o1: &mut Obj<'_>,
    o2: &mut Obj<'_>,
    margin: f64,
    multi: bool,
    out: &mut Vec<MjContact>,
) {
    let mut st = Status { x1: o1.center, x2: o2.center, ..Status::default() };
    gjk(&mut st, o1, o2);
    if !(st.dist <= TOLERANCE && st.nsimplex > 1 && !st.separated) {
        return;
    }
    let pt = &mut s.pt;
    pt.clear();
    let ret = match st.nsimplex {
        2 => polytope2(pt, &mut st, o1, o2),
        3 => polytope3(pt, &mut st, o1, o2),
        _ => polytope4(pt, &mut st, o1, o2),
    };
    if ret != 0 {
        return;
    }
    let Some(face) = epa(pt, o1, o2) else { return };
    let (mut x1, mut x2, dist) = epa_witness(pt, face);
    let start = out.len();
    if multi {
        match multicontact(pt, face, x1, x2, o1, o2, margin, &mut s.clip, out) {
            Multi::Contacts => return,
            Multi::None { swapped } => {
                out.truncate(start);
                if swapped {
                    std::mem::swap(&mut x1, &mut x2);
                }
            }
        }
    }
    if dist < 0.0 {
        out.push(MjContact { dist: margin + dist, pos: (x1 + x2) * 0.5, normal: normalize(x1 - x2) });
    }
}

#[cfg(test)]
mod tests {
    use glam::DQuat;
    use signorini_geometry::{ConvexMesh, Cuboid, Pose};

    use super::*;

    fn cube(h: f64) -> Shape {
        let pts: Vec<DVec3> = (0..8)
            .map(|k| {
                DVec3::new(
                    if k & 1 != 0 { h } else { -h },
                    if k & 2 != 0 { h } else { -h },
                    if k & 4 != 0 { h } else { -h },
                )
            })
            .collect();
        ConvexMesh::from_points(&pts).unwrap().into()
    }

    fn frame(t: DVec3, q: DQuat) -> Frame {
        Frame::new(&Pose::new(t, q).unwrap())
    }

    fn run(g1: &Shape, f1: &Frame, g2: &Shape, f2: &Frame) -> Vec<MjContact> {
        let mut out = Vec::new();
        convex(g1, f1, g2, f2, 0.0, &mut out);
        out
    }

    fn has(cs: &[MjContact], p: DVec3) -> bool {
        cs.iter().any(|c| (c.pos - p).length() < 1e-12)
    }

    #[test]
    fn cube_face_down_on_cube_gives_the_clipped_square() {
        // A 0.1 cube sunk 1 mm into the top face of a 0.2 cube: its bottom face, inside the big top face.
        let (small, big) = (cube(0.05), cube(0.1));
        let top = frame(DVec3::new(0.02, 0.01, 0.149), DQuat::IDENTITY);
        let cs = run(&small, &top, &big, &frame(DVec3::ZERO, DQuat::IDENTITY));
        assert_eq!(cs.len(), 4, "{cs:?}");
        for c in &cs {
            assert!((c.dist + 0.001).abs() < 1e-12, "{c:?}");
            assert!((c.normal - DVec3::NEG_Z).length() < 1e-12, "{c:?}");
        }
        for (x, y) in [(-0.03, -0.04), (0.07, -0.04), (0.07, 0.06), (-0.03, 0.06)] {
            assert!(has(&cs, DVec3::new(x, y, 0.0995)), "{cs:?}");
        }
        // Overhanging a corner: the overlap square [0.05, 0.1]².
        let top = frame(DVec3::new(0.1, 0.1, 0.149), DQuat::IDENTITY);
        let cs = run(&small, &top, &big, &frame(DVec3::ZERO, DQuat::IDENTITY));
        assert_eq!(cs.len(), 4, "{cs:?}");
        for (x, y) in [(0.05, 0.05), (0.1, 0.05), (0.1, 0.1), (0.05, 0.1)] {
            assert!(has(&cs, DVec3::new(x, y, 0.0995)), "{cs:?}");
        }
    }

    #[test]
    fn cube_on_its_edge_gives_two() {
        let (small, big) = (cube(0.05), cube(0.1));
        let h = 0.05 * 2f64.sqrt();
        let q = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4);
        let cs = run(
            &small,
            &frame(DVec3::new(0.0, 0.0, 0.1 + h - 0.001), q),
            &big,
            &frame(DVec3::ZERO, DQuat::IDENTITY),
        );
        assert_eq!(cs.len(), 2, "{cs:?}");
        for c in &cs {
            assert!((c.dist + 0.001).abs() < 1e-9, "{c:?}");
            assert!((c.normal - DVec3::NEG_Z).length() < 1e-12, "{c:?}");
            assert!((c.pos.x.abs() - 0.05).abs() < 1e-12 && c.pos.y.abs() < 1e-12, "{c:?}");
        }
    }

    #[test]
    fn primitive_box_and_separated_and_degenerate() {
        let b: Shape = Cuboid::new(DVec3::new(0.2, 0.2, 0.05)).unwrap().into();
        let m = cube(0.05);
        // Mesh cube resting 2 mm deep on the box: four contacts, normal from the box (geom 1) up to the mesh.
        let cs = run(
            &b,
            &frame(DVec3::ZERO, DQuat::IDENTITY),
            &m,
            &frame(DVec3::new(0.0, 0.0, 0.098), DQuat::IDENTITY),
        );
        assert_eq!(cs.len(), 4, "{cs:?}");
        assert!(cs.iter().all(|c| (c.dist + 0.002).abs() < 1e-12 && (c.normal - DVec3::Z).length() < 1e-12));
        // Apart: nothing.
        let cs = run(
            &b,
            &frame(DVec3::ZERO, DQuat::IDENTITY),
            &m,
            &frame(DVec3::new(0.0, 0.0, 0.101), DQuat::IDENTITY),
        );
        assert!(cs.is_empty());
        // Coincident centres and a NaN pose neither panic nor hang.
        let _ = run(&m, &frame(DVec3::ZERO, DQuat::IDENTITY), &m, &frame(DVec3::ZERO, DQuat::IDENTITY));
        let bad = Frame { pos: DVec3::NAN, mat: DMat3::IDENTITY, pose: Pose::IDENTITY };
        assert!(run(&m, &bad, &b, &frame(DVec3::ZERO, DQuat::IDENTITY)).is_empty());
    }
}
