//! MuJoCo 4.0's multiccd (`engine_collision_gjk.c`): the features (vertex, edge, face) of both geoms on the final
//! EPA face, their polygon normals, face–face and edge–face polygon clipping, and the reduction to four points.

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
    pub(super) plane_d: Vec<f64>,
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
        // Multi-contact runs for boxes and meshes only (prisms and smooth geoms keep one contact).
        _ => {}
    }
}

/// Directions and far ends of the edges of an edge (dim 2) or vertex (dim 1) feature (`mjc_*EdgeNormals`).
pub(super) fn edge_normals(
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
        },
        _ => {}
    }
}

/// World vertices of face `idx` of the geom, clockwise seen from outside (MuJoCo reverses mesh polygons).
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
        _ => {}
    }
}

/// The pair of opposite faces (dot below `−FACE_TOL`) with the smallest dot product.
pub(super) fn aligned_faces(v: &[DVec3], w: &[DVec3]) -> Option<(usize, usize)> {
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

/// Clips `subject` (a polygon, or an edge of 2 points) by the polygon `clipper` (normal `n`) and appends one
/// contact per kept point with normal `frame`; `nsub` is the subject face's normal (face–face) or `None` (edge).
/// Returns false when nothing is left (the EPA contact stands).
#[allow(clippy::too_many_arguments)]
pub(super) fn polygon_clip(
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
        out.push(MjContact { dist, pos: (x1 + x2) * 0.5, normal: frame, tangent: DVec3::ZERO });
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
pub(super) enum Multi {
    /// Contacts were appended.
    Contacts,
    /// No feature pair or nothing clipped: the EPA contact stands, with its witness points swapped when an edge of
    /// geom 1 was clipped (MuJoCo swaps them after clipping whether or not points came out).
    None { swapped: bool },
}

#[allow(clippy::too_many_arguments)]
pub(super) fn multicontact(
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
