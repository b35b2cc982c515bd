//! MuJoCo 4.0.1's multiccd (`mjc_multicontact`, read off its machine code: the public source has an older version
//! without cylinders and capsules): the features (vertex, edge, face) of both geoms on the final EPA face or GJK
//! simplex, their face normals (box faces, mesh polygons, a cylinder's cap), face–face and edge–face polygon clipping
//! (`polygonClip`; a cylinder's cap is a 16-gon, a cylinder's or capsule's side an edge), and the reduction to four
//! points.

use super::*;

/// Buffers of the feature search and the polygon clipping.
#[derive(Debug, Default)]
pub(super) struct Clip {
    /// Face normals (world) and face ids of the features of geom 1 and geom 2.
    pub(super) n1: Vec<DVec3>,
    pub(super) idx1: Vec<usize>,
    pub(super) n2: Vec<DVec3>,
    pub(super) idx2: Vec<usize>,
    /// Edge directions and far ends of an edge feature.
    pub(super) edges: Vec<DVec3>,
    pub(super) ends: Vec<DVec3>,
    pub(super) face1: Vec<DVec3>,
    pub(super) face2: Vec<DVec3>,
    pub(super) plane_n: Vec<DVec3>,
    pub(super) poly: Vec<DVec3>,
    pub(super) next: Vec<DVec3>,
}

/// Number of distinct vertices of a face's support ids (3, 2 or 1); for 2 the distinct pair is moved to the front.
pub(super) fn simplex_dim(vi: &mut [i64; 3], v: &mut [DVec3; 3]) -> usize {
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
pub(super) fn intersect2(a: &[u32], b: &[u32]) -> ([u32; 2], usize) {
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

pub(super) fn vertex_polygons(m: &ConvexMesh, v: i64) -> &[u32] {
    usize::try_from(v).map_or(&[], |v| m.mujoco_polygons().around(v))
}

/// World normals and ids of the polygons of a mesh feature (`mjc_meshNormals`).
pub(super) fn mesh_normals(
    o: &Obj<'_>,
    m: &ConvexMesh,
    dim: usize,
    vi: &[i64; 3],
    n: &mut Vec<DVec3>,
    idx: &mut Vec<usize>,
) {
    let mut push = |p: u32| {
        n.push(o.rotate(m.mujoco_polygons().normal(p as usize)));
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
pub(super) fn box_normals_dir(o: &Obj<'_>, dir: DVec3, n: &mut Vec<DVec3>, idx: &mut Vec<usize>) {
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

pub(super) const BOX_NORMALS: [DVec3; 6] =
    [DVec3::X, DVec3::NEG_X, DVec3::Y, DVec3::NEG_Y, DVec3::Z, DVec3::NEG_Z];

/// World normals and face ids (`2k` for `+axis k`, `2k + 1` for `−axis k`) of a box feature (`mjc_boxNormals`).
pub(super) fn box_normals(
    o: &Obj<'_>,
    dim: usize,
    vi: &[i64; 3],
    dir: DVec3,
    n: &mut Vec<DVec3>,
    idx: &mut Vec<usize>,
) {
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

/// Face normals and face ids of a geom's feature (MuJoCo 4.0.1's `mjc_multicontact`): a box's
/// (`mjc_boxNormals`, `dir` pointing away from the geom), a mesh's polygons (`mjc_meshNormals`), and a cylinder's cap
/// when all the feature's support points lie on that cap (dimension 1: ids 0 for the top cap, 1 for the bottom, as
/// its support function numbers them). Capsules, spheres and ellipsoids have no faces.
pub(super) fn feature_normals(
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
        Geom::Cylinder { .. } if dim == 1 => {
            let top = vi[0] == 0;
            n.push(if top { o.mat.z_axis } else { -o.mat.z_axis });
            idx.push(usize::from(!top));
        }
        _ => {}
    }
}

/// Directions and far ends of the edges of a feature (`geomEdgeNormals`): an edge (dim 2) or the edges at a vertex
/// (dim 1) of a box or mesh; a capsule's surface line through the witness point `x` parallel to its axis, from the
/// `−z` end (written into `v[0]`) to the `+z` end; a cylinder's axis (its side line is placed when the face it lies
/// on is known, [`side_line`]).
pub(super) fn edge_normals(
    o: &Obj<'_>,
    dim: usize,
    (v, vi): (&mut [DVec3; 3], &[i64; 3]),
    x: DVec3,
    dirs: &mut Vec<DVec3>,
    ends: &mut Vec<DVec3>,
) {
    dirs.clear();
    ends.clear();
    match o.geom {
        Geom::Capsule { radius, half_length } => {
            let z = o.mat.z_axis;
            let t = (x - o.origin).dot(z);
            // The witness lies on the capsule grown by half the pair's margin; the edge is the capsule's own surface
            // line, so that a contact within the margin has the gap as its distance, as MuJoCo's.
            let x = if o.margin > 0.0 {
                let core = z * t + o.origin;
                core + (x - core) * (radius / (radius + 0.5 * o.margin))
            } else {
                x
            };
            v[0] = z * (-t - half_length) + x;
            dirs.push(z);
            ends.push(z * (half_length - t) + x);
        }
        Geom::Cylinder { .. } => dirs.push(o.mat.z_axis),
        Geom::Box(_) | Geom::Mesh(_) if dim == 2 => {
            dirs.push(normalize(v[1] - v[0]));
            ends.push(v[1]);
        }
        Geom::Box(s) if dim == 1 => {
            let c = box_corner(s, vi[0]);
            for k in 0..3 {
                let mut e = c;
                e[k] = -e[k];
                let e = o.world(e);
                ends.push(e);
                dirs.push(normalize(e - v[0]));
            }
        }
        Geom::Mesh(m) if dim == 1 => {
            for &p in vertex_polygons(m, vi[0]) {
                let pv = m.mujoco_polygons().vertices(p as usize);
                if let Some(j) = pv.iter().position(|&w| i64::from(w) == vi[0]) {
                    let prev = pv[if j == 0 { pv.len() - 1 } else { j - 1 }];
                    let e = o.mesh_vertex(i64::from(prev));
                    ends.push(e);
                    dirs.push(normalize(e - v[0]));
                }
            }
        }
        _ => {}
    }
}

/// A cylinder's side line lying along a face of normal `n` (outward from the other geom, towards the cylinder): the
/// surface line nearest the face, `pos − r p̂ ± h z` with `p = n − (n·z) z`; `None` when `n` is along the axis.
fn side_line(o: &Obj<'_>, n: DVec3, out: &mut Vec<DVec3>) -> bool {
    let Geom::Cylinder { radius, half_length } = o.geom else { return false };
    let z = o.mat.z_axis;
    let p = n - z * n.dot(z);
    let len = p.length();
    if len < MINVAL {
        return false;
    }
    let c = p * (-radius / len) + o.origin;
    out.clear();
    out.extend([c - z * half_length, z * half_length + c]);
    true
}

/// World vertices of face `idx` of the geom, clockwise seen from outside (MuJoCo reverses mesh polygons); a
/// cylinder's face 0 is its top cap, 1 its bottom.
pub(super) fn face_vertices(o: &Obj<'_>, idx: usize, out: &mut Vec<DVec3>) {
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
            out.extend(m.mujoco_polygons().vertices(idx).iter().rev().map(|&v| o.mesh_vertex(i64::from(v))));
        }
        Geom::Cylinder { radius, half_length } => {
            // `cylinderFace`: 16 vertices from the local +x axis, clockwise about the cap's outward normal.
            let sign = if idx == 0 { 1.0 } else { -1.0 };
            out.extend((0..16).map(|k| {
                let (c, s) = (CAP_COS[k], CAP_COS[(k + 12) % 16]);
                o.world(DVec3::new(radius * c, sign * (radius * -s), sign * half_length))
            }));
        }
        _ => {}
    }
}

/// MuJoCo 4.0.1's table of the cosines of a cylinder cap's 16 vertices (`cylinderFace.cos_16`), to its 15 digits;
/// its `sin_16` holds the same literals a quarter turn on: `sin_16[k] == cos_16[(k + 12) % 16]`.
// MuJoCo's literals, not the nearest doubles of cos and sin: the last bits of the cap's vertices follow them.
#[allow(clippy::approx_constant)]
const CAP_COS: [f64; 16] = [
    1.0,
    0.923879532511287,
    0.707106781186548,
    0.38268343236509,
    0.0,
    -0.38268343236509,
    -0.707106781186547,
    -0.923879532511287,
    -1.0,
    -0.923879532511287,
    -0.707106781186548,
    -0.38268343236509,
    0.0,
    0.38268343236509,
    0.707106781186547,
    0.923879532511287,
];

/// The pair of faces, geom 1's facing along `−dir` and geom 2's along `dir` by more than `EDGE_TOL |dir|`, whose
/// normals have the smallest dot product below `−tol` (`dir` from geom 1's witness to geom 2's).
pub(super) fn aligned_faces(v: &[DVec3], w: &[DVec3], dir: DVec3, tol: f64) -> Option<(usize, usize)> {
    let thr = dir.length() * EDGE_TOL;
    let mut best = None;
    let mut bd = -tol;
    for (i, a) in v.iter().enumerate() {
        if a.dot(dir) >= -thr {
            continue;
        }
        for (j, b) in w.iter().enumerate() {
            if b.dot(dir) <= thr {
                continue;
            }
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
pub(super) fn aligned_face_edge(edges: &[DVec3], faces: &[DVec3], dir: DVec3) -> Option<(usize, usize)> {
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

/// The four points of a convex polygon spanning (about) the largest quadrilateral (MuJoCo's `polygonQuad`): the
/// [`climb`] from every first corner in turn, the other corners carried over from one corner to the next.
pub(super) fn polygon_quad(p: &[DVec3]) -> [usize; 4] {
    let nh = p.len();
    let mut q = [0, 1, 2, 3];
    let mut res = q;
    let mut m = area4(p[0], p[1], p[2], p[3]);
    while q[0] < nh {
        if climb(|k| p[k], nh, &mut q, &mut m) {
            res = q;
        }
        if q[1] == q[0] {
            q[1] = (q[1] + 1) % nh;
            if q[2] == q[1] {
                q[2] = (q[2] + 1) % nh;
                if q[3] == q[2] {
                    q[3] = (q[3] + 1) % nh;
                }
            }
        }
        q[0] += 1;
    }
    res
}

/// MuJoCo 4.0.1's `polygonClip`: clips `subject` (a polygon, or an edge of 2 points) by the polygon `clipper`
/// (normal `n`), one edge's side plane at a time (a point is inside when its signed distance exceeds `−mjMINVAL`; a
/// crossing at `t = d_P / (d_P − d_Q)`), drops the points above the clipper's plane by more than `prune`, and appends
/// one contact per kept point: its projection `x` onto the clipper's plane and `x − dir ((x − v)·dir)` are the
/// witness points (in that order, or swapped when `swap`: the clipper is geom 2's face), their signed distance along
/// `dir` the depth. More than four points are reduced to a quadrilateral, a clipped edge to its two farthest points.
/// Returns false when nothing is left (the single contact stands).
#[allow(clippy::too_many_arguments)]
pub(super) fn polygon_clip(
    clipper: &[DVec3],
    subject: &[DVec3],
    n: DVec3,
    dir: DVec3,
    swap: bool,
    prune: f64,
    bufs: (&mut Vec<DVec3>, &mut Vec<DVec3>, &mut Vec<DVec3>),
    out: &mut Vec<MjContact>,
) -> bool {
    let (plane_n, poly, next) = bufs;
    let nc = clipper.len();
    if nc < 3 {
        return false;
    }
    plane_n.clear();
    for i in 0..nc {
        let (v1, v2) = (clipper[i], clipper[(i + 1) % nc]);
        let v3 = v1 + n;
        plane_n.push(normalize((v2 - v1).cross(v3 - v1)));
    }
    poly.clear();
    poly.extend_from_slice(subject);
    for e in 0..nc {
        next.clear();
        let len = poly.len();
        for i in 0..len {
            let p = poly[i];
            let q = if i < len - 1 { poly[i + 1] } else { poly[0] };
            let dp = (p - clipper[e]).dot(plane_n[e]);
            let dq = (q - clipper[e]).dot(plane_n[e]);
            let (in1, in2) = (dp > -MINVAL, dq > -MINVAL);
            if !in1 && !in2 {
                continue;
            }
            if in1 && in2 {
                next.push(q);
                continue;
            }
            let den = dp - dq;
            if den != 0.0 {
                let t = dp / den;
                if (0.0..=1.0).contains(&t) {
                    next.push((q - p) * t + p);
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
        let x = v - n * (v - base).dot(n);
        let dist = (x - v).dot(dir);
        let w = x - dir * dist;
        let (x1, x2) = if swap { (w, x) } else { (x, w) };
        // Geom 2's witness to geom 1's, turned when the faces are apart (a contact within the margin): MuJoCo clips
        // the faces grown by half the margin each, which still overlap, and its normal does not turn.
        let d = if dist > 0.0 { x2 - x1 } else { x1 - x2 };
        out.push(MjContact { dist, pos: (x1 + x2) * 0.5, normal: normalize(d), tangent: DVec3::ZERO });
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

/// The support points of one geom that make the feature `mjc_multicontact` starts from: the vertices of the final
/// EPA face, or those of GJK's final simplex when a sphere or capsule core was found apart (`count` of them, 1 to 3).
#[derive(Debug, Clone, Copy)]
pub(super) struct Feature {
    pub(super) ids: [i64; 3],
    pub(super) pts: [DVec3; 3],
    pub(super) count: usize,
}

impl Feature {
    /// The feature of geom 1 (`first`) or geom 2 from up to three Minkowski vertices.
    pub(super) fn of(o: &Obj<'_>, verts: &[Vertex], first: bool) -> Self {
        let mut ids = [0; 3];
        let mut pts = [DVec3::ZERO; 3];
        for (k, v) in verts.iter().take(3).enumerate() {
            let (id, p) = if first { (v.index1, v.vert1) } else { (v.index2, v.vert2) };
            ids[k] = id;
            pts[k] = o.raw_vertex(id, p);
        }
        Feature { ids, pts, count: verts.len().min(3) }
    }

    /// The first three points, the second and third repeating the first when there are fewer, and their dimension
    /// (`simplexDim`).
    fn dim(mut self) -> (usize, [i64; 3], [DVec3; 3]) {
        let (a, b) = (usize::from(self.count >= 2), if self.count > 2 { 2 } else { 0 });
        let mut ids = [self.ids[0], self.ids[a], self.ids[b]];
        self.pts = [self.pts[0], self.pts[a], self.pts[b]];
        let d = simplex_dim(&mut ids, &mut self.pts);
        (d, ids, self.pts)
    }
}

/// MuJoCo 4.0.1's `mjc_multicontact`, read off its machine code (the public source has an older version without
/// cylinders and capsules): from the features `f1`, `f2` of the two geoms and the contact's witness points `x1`, `x2`,
///
/// * the faces of each feature ([`feature_normals`]); of the pairs with geom 1's facing along `x1 − x2` and geom 2's
///   along `x2 − x1` (by more than `EDGE_TOL`), the most opposite one below `−FACE_TOL` is clipped face against face;
/// * otherwise an edge of one geom within `EDGE_TOL` of parallel to a face of the other facing it: geom 2's edges
///   first when geom 1 has faces, geom 2's feature is not a face and (it is a smaller feature than geom 1's or geom 2
///   has no faces), geom 1's first otherwise. A capsule's edge is its surface line through the witness point, a
///   cylinder's the side line along that face ([`side_line`]); a cylinder's cap is a 16-gon ([`face_vertices`]).
///
/// Returns whether contacts were appended to `out`; when not, the caller keeps the single contact of `x1`, `x2`.
#[allow(clippy::too_many_arguments)]
pub(super) fn multicontact(
    (f1, f2): (Feature, Feature),
    x1: DVec3,
    x2: DVec3,
    o1: &Obj<'_>,
    o2: &Obj<'_>,
    margin: f64,
    c: &mut Clip,
    out: &mut Vec<MjContact>,
) -> bool {
    if f1.count == 0 || f2.count == 0 {
        return false;
    }
    let (nf1, v1i, mut v1) = f1.dim();
    let (nf2, v2i, mut v2) = f2.dim();
    let dir = x2 - x1;
    let dir_neg = x1 - x2;
    feature_normals(o1, nf1, &v1i, dir_neg, &mut c.n1, &mut c.idx1);
    feature_normals(o2, nf2, &v2i, dir, &mut c.n2, &mut c.idx2);

    if let Some((i, j)) = aligned_faces(&c.n1, &c.n2, dir, FACE_TOL) {
        face_vertices(o1, c.idx1[i], &mut c.face1);
        face_vertices(o2, c.idx2[j], &mut c.face2);
        let bufs = (&mut c.plane_n, &mut c.poly, &mut c.next);
        let n2 = c.n2[j];
        let ok = polygon_clip(&c.face1, &c.face2, c.n1[i], n2, false, margin, bufs, out);
        return ok;
    }
    let geom2_first = !c.n1.is_empty() && nf2 != 3 && (nf2 < nf1 || c.n2.is_empty());
    for edge_of_geom2 in [geom2_first, !geom2_first] {
        if edge_of_geom2 {
            if nf2 == 3 || c.n1.is_empty() {
                continue;
            }
            edge_normals(o2, nf2, (&mut v2, &v2i), x2, &mut c.edges, &mut c.ends);
            let Some((e, i)) = aligned_face_edge(&c.edges, &c.n1, dir_neg) else { continue };
            // An edge of geom 2 along face `i` of geom 1.
            let n1 = c.n1[i];
            face_vertices(o1, c.idx1[i], &mut c.face1);
            if matches!(o2.geom, Geom::Cylinder { .. }) {
                if !side_line(o2, n1, &mut c.face2) {
                    return false;
                }
            } else {
                c.face2.clear();
                c.face2.extend([v2[0], c.ends[e]]);
            }
            let bufs = (&mut c.plane_n, &mut c.poly, &mut c.next);
            let ok = polygon_clip(&c.face1, &c.face2, n1, -n1, false, margin, bufs, out);
            return ok;
        }
        if nf1 == 3 || c.n2.is_empty() {
            continue;
        }
        edge_normals(o1, nf1, (&mut v1, &v1i), x1, &mut c.edges, &mut c.ends);
        let Some((e, j)) = aligned_face_edge(&c.edges, &c.n2, dir) else { continue };
        // An edge of geom 1 along face `j` of geom 2.
        let n2 = c.n2[j];
        if matches!(o1.geom, Geom::Cylinder { .. }) {
            if !side_line(o1, n2, &mut c.face1) {
                return false;
            }
        } else {
            c.face1.clear();
            c.face1.extend([v1[0], c.ends[e]]);
        }
        face_vertices(o2, c.idx2[j], &mut c.face2);
        let bufs = (&mut c.plane_n, &mut c.poly, &mut c.next);
        let ok = polygon_clip(&c.face2, &c.face1, n2, -n2, true, margin, bufs, out);
        return ok;
    }
    false
}
