//! MuJoCo 4.0's box–box (`mjc_BoxBox`, the rewrite with Sutherland–Hodgman face clipping), in two stages:
//!
//! 1. **Separating axes**: the 3 + 3 face normals and the 9 edge–edge cross products (skipped when the edges are
//!    parallel to rounding, `sin² < 1e-16`); a separation above the margin (plus a rounding slack of
//!    `1e-13 · Σ half-sizes`) means no contact. An edge axis wins only if it beats the best face axis by a relative
//!    `1e-6`, and a winning edge axis within ~8° (`|cos| > 0.99`) of the best face normal gives way to the face unless
//!    it is deeper by 5 % of the face depth.
//! 2. **Manifold**: for a face axis, the face of the other (incident) box most opposed to the reference normal is
//!    clipped against the reference face's four side planes; every clipped vertex within the margin (near-duplicates
//!    dropped) is a contact, up to 8, at depth `z` (its height above the reference face) and midway between the
//!    surfaces. For an edge axis, one contact at the midpoint of the closest points of the two supporting edges
//!    (both corner choices tried when an axis component is ambiguous to rounding).
//!
//! Frames: `rot = R₁ᵀR₂` (box 2's axes in box 1's frame, `rot(i, j) = e₁ᵢ · e₂ⱼ`); normals from geom 1 to geom 2.

use glam::{DMat3, DVec3};
use signorini_geometry::Shape;

use super::{Frame, MINVAL, MjContact};

/// Slack on the separation tests, times the summed half-sizes.
const SEP_EPS: f64 = 1e-13;
/// `sin²` below which an edge-cross axis is rounding noise.
const PAR_EPS: f64 = 1e-16;
/// An axis component below this makes a supporting corner ambiguous.
const SGN_EPS: f64 = 1e-9;
/// Squared relative radius for dropping near-duplicate clipped vertices.
const DUP_EPS: f64 = 1e-14;
/// Relative penalty on an edge axis's separation in near-ties with the best face axis.
const EDGE_BIAS: f64 = 1e-6;
/// Capacity of the clipped polygon (a quadrilateral clipped by four half-planes has at most 8 vertices).
const MAX_VERT: usize = 12;

/// `m(r, c)` of a glam matrix (columns are `c`).
#[inline]
fn at(m: &DMat3, r: usize, c: usize) -> f64 {
    m.col(c)[r]
}

/// Clips the polygon `cur[..n]` against `sign · v[coord] ≤ limit` into `spare` (swapping the buffers) unless every
/// vertex is already inside; returns the vertex count. `z` is carried as an attribute.
fn clip_half_plane(
    n: usize,
    cur: &mut [DVec3; MAX_VERT],
    spare: &mut [DVec3; MAX_VERT],
    coord: usize,
    sign: f64,
    limit: f64,
) -> usize {
    let mut d = [0.0; MAX_VERT];
    let mut all_inside = true;
    for k in 0..n {
        d[k] = sign * cur[k][coord] - limit;
        all_inside &= d[k] <= 0.0;
    }
    if all_inside {
        return n;
    }
    let mut out = 0;
    for k in 0..n {
        let k1 = if k + 1 == n { 0 } else { k + 1 };
        let (p, dp, dq) = (cur[k], d[k], d[k1]);
        if dp <= 0.0 && out < MAX_VERT {
            spare[out] = p;
            out += 1;
        }
        if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) && out < MAX_VERT {
            let t = dp / (dp - dq);
            spare[out] = p + t * (cur[k1] - p);
            out += 1;
        }
    }
    std::mem::swap(cur, spare);
    out
}

/// MuJoCo's box–box for geom 1 `a` and geom 2 `b` (see the module docs).
pub(crate) fn box_box(a: &Shape, f1: &Frame, b: &Shape, f2: &Frame, margin: f64, out: &mut Vec<MjContact>) {
    let (Shape::Box(b1), Shape::Box(b2)) = (a, b) else { return };
    let (size1, size2) = (b1.half_extents().to_array(), b2.half_extents().to_array());
    let (mat1, mat2) = (f1.mat, f2.mat);
    let pos21 = (mat1.transpose() * (f2.pos - f1.pos)).to_array();
    let pos12 = (mat2.transpose() * (f1.pos - f2.pos)).to_array();
    let rot = mat1.transpose() * mat2;
    let r = |i: usize, j: usize| at(&rot, i, j);

    // Stage 1: separating axes. Codes: 0..2 faces of box 1, 3..5 faces of box 2, 6 + 3i + j edge pairs.
    let septol = margin + SEP_EPS * (size1.iter().sum::<f64>() + size2.iter().sum::<f64>());
    let mut sep_best = f64::MIN;
    let mut code = usize::MAX;
    for i in 0..3 {
        let radius2 = (0..3).map(|j| r(i, j).abs() * size2[j]).sum::<f64>();
        let sep = pos21[i].abs() - size1[i] - radius2;
        if sep > septol {
            return;
        }
        if sep > sep_best {
            sep_best = sep;
            code = i;
        }
    }
    for j in 0..3 {
        let radius1 = (0..3).map(|i| r(i, j).abs() * size1[i]).sum::<f64>();
        let sep = pos12[j].abs() - size2[j] - radius1;
        if sep > septol {
            return;
        }
        if sep > sep_best {
            sep_best = sep;
            code = 3 + j;
        }
    }
    let (sep_face, code_face) = (sep_best, code);
    for i in 0..3 {
        for j in 0..3 {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            let (mut ax1, mut ax2) = (-r(i2, j), r(i1, j));
            let norm2 = ax1 * ax1 + ax2 * ax2;
            if norm2 < PAR_EPS {
                continue;
            }
            let inv = 1.0 / norm2.sqrt();
            ax1 *= inv;
            ax2 *= inv;
            let radius1 = size1[i1] * ax1.abs() + size1[i2] * ax2.abs();
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let a2_1 = ax1 * r(i1, j1) + ax2 * r(i2, j1);
            let a2_2 = ax1 * r(i1, j2) + ax2 * r(i2, j2);
            let radius2 = size2[j1] * a2_1.abs() + size2[j2] * a2_2.abs();
            let sep = (ax1 * pos21[i1] + ax2 * pos21[i2]).abs() - radius1 - radius2;
            if sep > septol {
                return;
            }
            if sep - EDGE_BIAS * sep.abs() > sep_best && sep > sep_face {
                sep_best = sep;
                code = 6 + 3 * i + j;
            }
        }
    }
    if code == usize::MAX {
        return;
    }

    // The unit cross axis of edge pair (i, j), in box 1's frame.
    let edge_axis = |i: usize, j: usize| {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let mut axis = [0.0; 3];
        axis[i1] = -r(i2, j);
        axis[i2] = r(i1, j);
        DVec3::from(axis).normalize()
    };
    // A winning edge axis nearly parallel to the best face normal gives way to the face unless it is deeper by 5 %.
    if code >= 6 {
        let axis = edge_axis((code - 6) / 3, (code - 6) % 3);
        let face_dot = if code_face < 3 {
            axis[code_face].abs()
        } else {
            let f = code_face - 3;
            (axis.x * r(0, f) + axis.y * r(1, f) + axis.z * r(2, f)).abs()
        };
        if face_dot > 0.99 && sep_best < sep_face + 0.05 * sep_face.abs() + MINVAL {
            code = code_face;
        }
    }

    if code >= 6 {
        edge_contact(code, &rot, size1, size2, pos21, septol, f1, out);
    } else {
        face_contacts(code, &rot, size1, size2, pos21, pos12, margin, f1, f2, out);
    }
}

/// Stage 2a: one contact between the supporting edges of edge pair `code`.
#[allow(clippy::too_many_arguments)]
fn edge_contact(
    code: usize,
    rot: &DMat3,
    size1: [f64; 3],
    size2: [f64; 3],
    pos21: [f64; 3],
    septol: f64,
    f1: &Frame,
    out: &mut Vec<MjContact>,
) {
    let r = |i: usize, j: usize| at(rot, i, j);
    let (i, j) = ((code - 6) / 3, (code - 6) % 3);
    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
    let mut axis = [0.0; 3];
    axis[i1] = -r(i2, j);
    axis[i2] = r(i1, j);
    let mut axis = DVec3::from(axis).normalize();
    let p21 = DVec3::from(pos21);
    if axis.dot(p21) < 0.0 {
        axis = -axis;
    }
    // The axis in box 2's frame.
    let a2 = [0, 1, 2].map(|k| axis.x * r(0, k) + axis.y * r(1, k) + axis.z * r(2, k));
    let ambiguous = |v: f64| v.abs() < SGN_EPS;
    let amb1 = if ambiguous(axis[i1]) {
        Some(i1)
    } else if ambiguous(axis[i2]) {
        Some(i2)
    } else {
        None
    };
    let amb2 = if ambiguous(a2[j1]) {
        Some(j1)
    } else if ambiguous(a2[j2]) {
        Some(j2)
    } else {
        None
    };
    let d2 = DVec3::new(r(0, j), r(1, j), r(2, j));
    let b = d2[i];
    let denom = 1.0 - b * b;
    let (mut w1, mut w2, mut best) = (DVec3::ZERO, DVec3::ZERO, f64::MAX);
    for v1 in 0..if amb1.is_some() { 2 } else { 1 } {
        for v2 in 0..if amb2.is_some() { 2 } else { 1 } {
            let mut c1 = [0.0; 3];
            c1[i1] = if axis[i1] >= 0.0 { size1[i1] } else { -size1[i1] };
            c1[i2] = if axis[i2] >= 0.0 { size1[i2] } else { -size1[i2] };
            if let (Some(k), 1) = (amb1, v1) {
                c1[k] = -c1[k];
            }
            let mut cc = [0.0; 3];
            cc[j1] = if a2[j1] >= 0.0 { -size2[j1] } else { size2[j1] };
            cc[j2] = if a2[j2] >= 0.0 { -size2[j2] } else { size2[j2] };
            if let (Some(k), 1) = (amb2, v2) {
                cc[k] = -cc[k];
            }
            let c1 = DVec3::from(c1);
            let c2 = *rot * DVec3::from(cc) + p21;
            let e = c2 - c1;
            let (d1e, d2e) = (e[i], d2.dot(e));
            let s = if denom < MINVAL { 0.0 } else { (d1e - b * d2e) / denom };
            let s = s.clamp(-size1[i], size1[i]);
            let t = (b * s - d2e).clamp(-size2[j], size2[j]);
            let s = (d1e + b * t).clamp(-size1[i], size1[i]);
            let mut p1 = c1;
            p1[i] += s;
            let p2 = c2 + t * d2;
            let gap = p2 - p1;
            if gap.dot(gap) < best {
                best = gap.dot(gap);
                (w1, w2) = (p1, p2);
            }
        }
    }
    let dist = (w2 - w1).dot(axis);
    if dist > septol {
        return;
    }
    let mid = 0.5 * (w1 + w2);
    out.push(MjContact { dist, pos: f1.mat * mid + f1.pos, normal: f1.mat * axis, tangent: DVec3::ZERO });
}

/// Stage 2b: the incident face clipped against the reference face of face axis `code`.
#[allow(clippy::too_many_arguments)]
fn face_contacts(
    code: usize,
    rot: &DMat3,
    size1: [f64; 3],
    size2: [f64; 3],
    pos21: [f64; 3],
    pos12: [f64; 3],
    margin: f64,
    f1: &Frame,
    f2: &Frame,
    out: &mut Vec<MjContact>,
) {
    let ref1 = code < 3;
    let a = if ref1 { code } else { code - 3 };
    let (sizeref, sizeinc) = if ref1 { (size1, size2) } else { (size2, size1) };
    let fref = if ref1 { f1 } else { f2 };
    let posoi = if ref1 { pos21 } else { pos12 };
    // rinc(r, c): component r of incident axis c in the reference frame.
    let rinc = if ref1 { *rot } else { rot.transpose() };
    let ri = |r: usize, c: usize| at(&rinc, r, c);
    let sgn = if posoi[a] >= 0.0 { 1.0 } else { -1.0 };
    let mut binc = 0;
    for k in 1..3 {
        if ri(a, k).abs() > ri(a, binc).abs() {
            binc = k;
        }
    }
    let tinc = if sgn * ri(a, binc) > 0.0 { -1.0 } else { 1.0 };

    // The incident face's corners in (x, y, z): the two other reference axes, and the height above the face.
    let (ax, ay) = ((a + 1) % 3, (a + 2) % 3);
    let (bu, bv) = ((binc + 1) % 3, (binc + 2) % 3);
    let (mut cx, mut du, mut dv) = ([0.0; 3], [0.0; 3], [0.0; 3]);
    for (k, c) in [ax, ay, a].into_iter().enumerate() {
        cx[k] = posoi[c] + tinc * sizeinc[binc] * ri(c, binc);
        du[k] = sizeinc[bu] * ri(c, bu);
        dv[k] = sizeinc[bv] * ri(c, bv);
    }
    cx[2] = sgn * cx[2] - sizeref[a];
    du[2] *= sgn;
    dv[2] *= sgn;
    let (cx, du, dv) = (DVec3::from(cx), DVec3::from(du), DVec3::from(dv));
    let mut cur = [DVec3::ZERO; MAX_VERT];
    let mut spare = [DVec3::ZERO; MAX_VERT];
    for (k, (su, sv)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)].into_iter().enumerate() {
        cur[k] = cx + su * du + sv * dv;
    }
    let mut n = 4;
    n = clip_half_plane(n, &mut cur, &mut spare, 0, 1.0, sizeref[ax]);
    n = clip_half_plane(n, &mut cur, &mut spare, 0, -1.0, sizeref[ax]);
    n = clip_half_plane(n, &mut cur, &mut spare, 1, 1.0, sizeref[ay]);
    n = clip_half_plane(n, &mut cur, &mut spare, 1, -1.0, sizeref[ay]);

    let dupe2 = DUP_EPS * (sizeref[ax] * sizeref[ax] + sizeref[ay] * sizeref[ay]);
    let mut accepted = [DVec3::ZERO; MAX_VERT];
    let mut count = 0;
    for v in &cur[..n] {
        if v.z > margin {
            continue;
        }
        let dupe = accepted[..count].iter().any(|q| {
            let (dx, dy) = (q.x - v.x, q.y - v.y);
            dx * dx + dy * dy < dupe2
        });
        if !dupe {
            accepted[count] = *v;
            count += 1;
        }
    }
    let nsign = if ref1 { sgn } else { -sgn };
    let normal = nsign * fref.mat.col(a);
    for v in &accepted[..count] {
        let mut posc = [0.0; 3];
        posc[ax] = v.x;
        posc[ay] = v.y;
        posc[a] = sgn * (sizeref[a] + 0.5 * v.z);
        out.push(MjContact {
            dist: v.z,
            pos: fref.mat * DVec3::from(posc) + fref.pos,
            normal,
            tangent: DVec3::ZERO,
        });
    }
}
