//! Box–box: separating-axis test, exact penetration witnesses and the clipped contact manifold.
//!
//! Boxes are given by half extents `h` and a pose (`p_world = R p_local + t`). Everything is computed in A's frame,
//! where B has centre `c = R_Aᵀ (t_B − t_A)` and axes `b_j` (the columns of `R_Aᵀ R_B`).
//!
//! **SAT.** On a unit axis `n` the overlap of the projections is `r_A + r_B − |c·n|`, with the projected radii
//! `r_A = Σ_k h_A,k |n·a_k|` and `r_B = Σ_k h_B,k |n·b_k|`; it equals `min(max_A − min_B, max_B − min_A)`. The 15
//! candidate axes are the 3 face normals of A, the 3 of B and the 9 edge directions `a_i × b_j`; a cross product with
//! norm below [`EDGE_AXIS_MIN_NORM`] (near-parallel edges; both factors are unit, so the norm is the sine of their
//! angle) is skipped, the face axes covering that case. The boxes are separated iff some overlap is negative; the
//! penetration depth is the minimum overlap, and the minimising axis, oriented so that `n·c ≥ 0`, is the normal from
//! A towards B. Ties keep the earlier axis in the order FaceA 0..3, FaceB 0..3, Edge (i, j) row-major; an edge axis
//! is chosen only if the shallowest edge axis (ties: the earlier) beats the best face axis by the relative margin
//! [`FACE_BIAS`] (MuJoCo's bias toward face contacts) plus an absolute `1e-12 ×` the largest half extent (rounding).
//!
//! **Conventions.** [`box_box_sat`] and [`box_box_penetration`] use the Coal convention (normal from A to B, signed
//! distance `−depth`); [`box_box_contacts`] produces [`Contact`]s in the simulator convention (normal from B to A).

use glam::{DMat3, DVec3};
use serde::{Deserialize, Serialize};
use signorini_geometry::Pose;

use crate::contact::Contact;

/// Edge×edge axes whose cross product has a norm below this (sine of the angle between the edges) are skipped.
pub const EDGE_AXIS_MIN_NORM: f64 = 1e-6;

/// An edge axis replaces the best axis only if its overlap is `< best · (1 − FACE_BIAS) − ε`, with `ε = 1e-12 ×` the
/// largest half extent. The absolute part covers rounding: an edge axis that coincides with a face axis up to rounding
/// (for example when two edges are parallel to one face) must not win, since its edges are not the touching features.
pub const FACE_BIAS: f64 = 1e-12;

/// The face bias of the contact manifold ([`box_box_contacts`]): an edge axis within 5° of the best face axis must be
/// 5 % shallower than it to win (ODE's `fudge_factor` of 1.05). Two nearly parallel faces, slightly tilted, then touch through their
/// clipped faces (up to 8 points) instead of the single point of an edge axis that is marginally shallower, which
/// would leave a resting box balanced on one contact. Depth queries keep the exact minimum ([`FACE_BIAS`]).
pub const CONTACT_FACE_BIAS: f64 = 0.05;

/// [`CONTACT_FACE_BIAS`] applies only to an edge axis within 5° of the best face axis (`|cos| > cos 5°`), and only
/// when that face overlap is below half the thinnest half extent (a resting contact, not a deep overlap).
pub const NEAR_FACE_COS: f64 = 0.996_194_698_091_745_5;

/// Geometric tolerance relative to the largest half extent: touching points, duplicate merging, the clipping of the
/// exact witness of [`box_box_penetration`].
const REL_TOL: f64 = 1e-12;

/// Slack of the side planes when [`box_box_contacts`] clips the incident face, relative to the largest half extent:
/// an incident corner at most this far outside the reference rectangle is kept as it is instead of being cut.
///
/// Two boxes whose side faces are flush (a stack, a pyramid layer) put incident corners exactly on the side planes.
/// With a cut at the exact plane, a yaw of 1e-7 rad, the rounding an iterative solver leaves, decides whether a
/// corner is cut into two points (5 or 6 instead of 4) and the contact count at rest depends on noise. With the
/// slack, contact points lie at most `1e-5 ×` the largest half extent (1 µm for a 0.1 m box) beyond the reference
/// face, and the count depends on the geometry only.
pub const CLIP_SLACK_REL: f64 = 1e-5;

/// Most vertices a quadrilateral can have after clipping by 4 half-planes.
const MAX_POLY: usize = 8;

/// The axis that realises the minimum overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SatAxis {
    /// Face normal `k` (local axis index 0..3) of box A.
    FaceA(usize),
    /// Face normal `k` of box B.
    FaceB(usize),
    /// Cross product of edge direction `i` of A and edge direction `j` of B.
    Edge(usize, usize),
}

/// Result of [`box_box_sat`] for overlapping (or touching) boxes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BoxBoxSat {
    /// Minimum overlap over the tested axes, `≥ 0`.
    pub depth: f64,
    /// World unit normal of the minimising axis, from A towards B.
    pub normal: DVec3,
    /// Which axis won.
    pub axis: SatAxis,
}

/// Penetration of overlapping boxes in the Coal convention: signed distance `−depth` along `normal` (A → B), with
/// `point_b − point_a = −depth · normal`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BoxBoxPenetration {
    /// Penetration depth `≥ 0` (the SAT minimum).
    pub depth: f64,
    /// World unit normal from A towards B.
    pub normal: DVec3,
    /// Witness on the surface of A (world).
    pub point_a: DVec3,
    /// Witness on the surface of B (world).
    pub point_b: DVec3,
    /// Which axis won the SAT.
    pub axis: SatAxis,
}

/// B seen from A's frame.
#[derive(Debug, Clone, Copy)]
struct Relative {
    h_a: DVec3,
    h_b: DVec3,
    /// B's centre in A's frame.
    c: DVec3,
    /// B's axes in A's frame (columns).
    rot: DMat3,
    /// Geometric tolerance (absolute).
    eps: f64,
}

/// SAT result in A's frame.
#[derive(Debug, Clone, Copy)]
struct SatLocal {
    depth: f64,
    /// Unit normal from A to B, A's frame.
    n: DVec3,
    axis: SatAxis,
}

/// The incident box seen from the reference box's frame.
#[derive(Debug, Clone, Copy)]
struct RefFrame {
    h_ref: DVec3,
    h_inc: DVec3,
    c: DVec3,
    rot: DMat3,
}

/// A small polygon stored inline.
#[derive(Debug, Clone, Copy)]
struct Poly {
    pts: [DVec3; MAX_POLY],
    len: usize,
}

impl Poly {
    const EMPTY: Poly = Poly { pts: [DVec3::ZERO; MAX_POLY], len: 0 };

    fn push(&mut self, p: DVec3) {
        if self.len < MAX_POLY {
            self.pts[self.len] = p;
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[DVec3] {
        &self.pts[..self.len]
    }
}

#[inline]
fn unit(i: usize) -> DVec3 {
    DVec3::AXES[i]
}

#[inline]
fn sign_nonneg(x: f64) -> f64 {
    if x >= 0.0 { 1.0 } else { -1.0 }
}

fn relative(h_a: DVec3, pose_a: &Pose, h_b: DVec3, pose_b: &Pose) -> Option<Relative> {
    let finite = h_a.is_finite()
        && h_b.is_finite()
        && pose_a.translation.is_finite()
        && pose_b.translation.is_finite()
        && pose_a.rotation.is_finite()
        && pose_b.rotation.is_finite();
    if !finite {
        return None;
    }
    let (h_a, h_b) = (h_a.abs(), h_b.abs());
    let rel = pose_a.inv_compose(pose_b);
    let eps = REL_TOL * h_a.max_element().max(h_b.max_element());
    Some(Relative { h_a, h_b, c: rel.translation, rot: DMat3::from_quat(rel.rotation), eps })
}

/// The 15-axis SAT in A's frame; `None` when some overlap is negative (or not a number).
fn sat_local(r: &Relative, face_bias: f64) -> Option<SatLocal> {
    let b = [r.rot.x_axis, r.rot.y_axis, r.rot.z_axis];
    let rot_t = r.rot.transpose();
    let mut best = SatLocal { depth: f64::INFINITY, n: DVec3::X, axis: SatAxis::FaceA(0) };
    // The contact bias is for resting contacts: overlaps below half the thinnest half extent.
    let shallow = 0.5 * r.h_a.min_element().min(r.h_b.min_element());

    for i in 0..3 {
        let r_b = r.h_b.dot(rot_t.col(i).abs());
        let d = r.c[i];
        let overlap = r.h_a[i] + r_b - d.abs();
        if overlap.is_nan() || overlap < 0.0 {
            return None;
        }
        if overlap < best.depth {
            best = SatLocal { depth: overlap, n: sign_nonneg(d) * unit(i), axis: SatAxis::FaceA(i) };
        }
    }
    for (j, bj) in b.iter().enumerate() {
        let r_a = r.h_a.dot(bj.abs());
        let d = r.c.dot(*bj);
        let overlap = r_a + r.h_b[j] - d.abs();
        if overlap.is_nan() || overlap < 0.0 {
            return None;
        }
        if overlap < best.depth {
            best = SatLocal { depth: overlap, n: sign_nonneg(d) * *bj, axis: SatAxis::FaceB(j) };
        }
    }
    // The shallowest edge axis (ties and rounding: the earlier one), then that one edge axis against the best face.
    // Comparing every edge axis against the running best instead would let a deeper edge axis win after a
    // shallower one was turned down by the face bias; a non-minimal edge axis has edges that need not touch.
    let mut best_edge: Option<SatLocal> = None;
    for i in 0..3 {
        for (j, bj) in b.iter().enumerate() {
            let cross = unit(i).cross(*bj);
            let len = cross.length();
            if len.is_nan() || len < EDGE_AXIS_MIN_NORM {
                continue;
            }
            let m = cross / len;
            let r_a = r.h_a.dot(m.abs());
            let r_b = r.h_b.dot((rot_t * m).abs());
            let d = r.c.dot(m);
            let overlap = r_a + r_b - d.abs();
            if overlap.is_nan() || overlap < 0.0 {
                return None;
            }
            if best_edge.is_none_or(|e| overlap < e.depth * (1.0 - FACE_BIAS) - r.eps) {
                best_edge =
                    Some(SatLocal { depth: overlap, n: sign_nonneg(d) * m, axis: SatAxis::Edge(i, j) });
            }
        }
    }
    if let Some(edge) = best_edge {
        // The contact bias applies against a face axis nearly parallel to the edge axis (a slightly tilted
        // face-on-face contact); elsewhere the exact minimum wins.
        let near_face = best.n.dot(edge.n).abs() > NEAR_FACE_COS && best.depth < shallow;
        let bias = if near_face { face_bias } else { FACE_BIAS };
        if edge.depth < best.depth * (1.0 - bias) - r.eps {
            best = edge;
        }
    }
    best.depth.is_finite().then_some(best)
}

/// Clips the incident face against the reference face `k` (outward normal `s e_k`, pointing at the incident box),
/// in the reference frame.
///
/// The incident face is the face of the incident box whose outward normal is most anti-parallel to `s e_k` (lowest
/// index on ties); its 4 corners, in a fixed cyclic order, are clipped (Sutherland–Hodgman) by the 4 side planes
/// `±x_p ≤ h_p + ε` of the reference rectangle, in the order `+p, −p, +q, −q` with `p, q` the other two axes; a
/// corner at most `slack` beyond a side plane is kept where it is. Consecutive points closer than `ε` are merged. If clipping leaves nothing (rounding only), the support vertex of
/// the incident box along `−s e_k` is returned instead.
fn clip_incident(f: &RefFrame, k: usize, s: f64, eps: f64, slack: f64) -> Poly {
    let m = [f.rot.x_axis, f.rot.y_axis, f.rot.z_axis];
    let mut j = 0;
    for jj in 1..3 {
        if m[jj][k].abs() > m[j][k].abs() {
            j = jj;
        }
    }
    let t = -sign_nonneg(s * m[j][k]);
    let centre = f.c + t * f.h_inc[j] * m[j];
    let du = f.h_inc[(j + 1) % 3] * m[(j + 1) % 3];
    let dv = f.h_inc[(j + 2) % 3] * m[(j + 2) % 3];
    let mut poly = Poly::EMPTY;
    for p in [centre + du + dv, centre - du + dv, centre - du - dv, centre + du - dv] {
        poly.push(p);
    }

    for axis in [(k + 1) % 3, (k + 2) % 3] {
        for sign in [1.0, -1.0] {
            poly = clip_half_plane(&poly, axis, sign, f.h_ref[axis] + eps, slack);
        }
    }

    let mut out = Poly::EMPTY;
    for &p in poly.as_slice() {
        if out.len == 0 || (p - out.pts[out.len - 1]).abs().max_element() > eps {
            out.push(p);
        }
    }
    if out.len > 1 && (out.pts[out.len - 1] - out.pts[0]).abs().max_element() <= eps {
        out.len -= 1;
    }
    if out.len == 0 {
        let mut v = f.c;
        for (jj, mj) in m.iter().enumerate() {
            v += sign_nonneg(-s * mj[k]) * f.h_inc[jj] * *mj;
        }
        out.push(v);
    }
    out
}

/// Sutherland–Hodgman step: keeps `sign · x[axis] ≤ limit`, where a vertex up to `slack ≥ 0` beyond the plane counts
/// as inside and is kept where it is. An edge from an inside vertex strictly below the plane to an outside one is cut
/// at the plane; an edge whose inside vertex lies on or beyond the plane adds no point, so vertices are never
/// duplicated. With `slack = 0` this is the plain step.
fn clip_half_plane(poly: &Poly, axis: usize, sign: f64, limit: f64, slack: f64) -> Poly {
    let mut out = Poly::EMPTY;
    let pts = poly.as_slice();
    let Some(&last) = pts.last() else {
        return out;
    };
    let mut prev = last;
    let mut d_prev = sign * prev[axis] - limit;
    for &cur in pts {
        let d_cur = sign * cur[axis] - limit;
        let (in_prev, in_cur) = (d_prev <= slack, d_cur <= slack);
        let d_in = if in_prev { d_prev } else { d_cur };
        if in_prev != in_cur && d_in < 0.0 {
            out.push(prev + (cur - prev) * (d_prev / (d_prev - d_cur)));
        }
        if in_cur {
            out.push(cur);
        }
        prev = cur;
        d_prev = d_cur;
    }
    out
}

/// Closest points of the segments `p0 + s d1` (`|s| ≤ l1`) and `q0 + t d2` (`|t| ≤ l2`), unit non-parallel `d1, d2`.
fn segment_closest(p0: DVec3, d1: DVec3, l1: f64, q0: DVec3, d2: DVec3, l2: f64) -> (DVec3, DVec3) {
    let r = p0 - q0;
    let b = d1.dot(d2);
    let c = d1.dot(r);
    let f = d2.dot(r);
    let denom = 1.0 - b * b;
    let mut s = if denom > 0.0 { ((b * f - c) / denom).clamp(-l1, l1) } else { 0.0 };
    let t = (f + s * b).clamp(-l2, l2);
    s = (t * b - c).clamp(-l1, l1);
    (p0 + s * d1, q0 + t * d2)
}

/// Everything the public queries need: the relative frame, the SAT result and the world normal.
struct Solved {
    rel: Relative,
    sat: SatLocal,
    normal: DVec3,
}

fn solve(h_a: DVec3, pose_a: &Pose, h_b: DVec3, pose_b: &Pose, face_bias: f64) -> Option<Solved> {
    let rel = relative(h_a, pose_a, h_b, pose_b)?;
    let sat = sat_local(&rel, face_bias)?;
    let normal = pose_a.transform_vector(sat.n);
    Some(Solved { rel, sat, normal })
}

/// The contact feature of the winning axis.
enum Feature<'p> {
    /// Reference face `k` with outward normal `s e_k` in the frame `f` of the reference box, placed by `pose`.
    Face { f: RefFrame, k: usize, s: f64, pose: &'p Pose },
    /// Edge `i` of A against edge `j` of B.
    Edge(usize, usize),
}

fn feature<'p>(sv: &Solved, pose_a: &'p Pose, pose_b: &'p Pose) -> Feature<'p> {
    let r = &sv.rel;
    match sv.sat.axis {
        SatAxis::FaceA(k) => Feature::Face {
            f: RefFrame { h_ref: r.h_a, h_inc: r.h_b, c: r.c, rot: r.rot },
            k,
            s: sign_nonneg(sv.sat.n[k]),
            pose: pose_a,
        },
        SatAxis::FaceB(k) => {
            let rot = r.rot.transpose();
            // The normal A→B is ±b_k; B's reference face points the other way, at A.
            let s = -sign_nonneg(sv.sat.n.dot(r.rot.col(k)));
            Feature::Face {
                f: RefFrame { h_ref: r.h_b, h_inc: r.h_a, c: -(rot * r.c), rot },
                k,
                s,
                pose: pose_b,
            }
        }
        SatAxis::Edge(i, j) => Feature::Edge(i, j),
    }
}

/// World midpoint of the closest points of the two SAT edges (edge axis only).
fn edge_midpoint(sv: &Solved, i: usize, j: usize, pose_a: &Pose) -> DVec3 {
    let r = &sv.rel;
    let n = sv.sat.n;
    let mut p0 = DVec3::ZERO;
    for k in (0..3).filter(|&k| k != i) {
        p0[k] = sign_nonneg(n[k]) * r.h_a[k];
    }
    let mut q0 = r.c;
    for k in (0..3).filter(|&k| k != j) {
        let bk = r.rot.col(k);
        q0 += sign_nonneg(-n.dot(bk)) * r.h_b[k] * bk;
    }
    let (pa, pb) = segment_closest(p0, unit(i), r.h_a[i], q0, r.rot.col(j), r.h_b[j]);
    pose_a.transform_point(0.5 * (pa + pb))
}

fn penetration(sv: &Solved, pose_a: &Pose, pose_b: &Pose) -> BoxBoxPenetration {
    let depth = sv.sat.depth;
    let normal = sv.normal;
    let (point_a, point_b) = match feature(sv, pose_a, pose_b) {
        Feature::Face { f, k, s, pose: pose_ref } => {
            let poly = clip_incident(&f, k, s, sv.rel.eps, sv.rel.eps);
            let mut deepest = poly.pts[0];
            for &p in poly.as_slice().iter().skip(1) {
                if -s * p[k] > -s * deepest[k] {
                    deepest = p;
                }
            }
            let mut y = deepest;
            y[k] = s * f.h_ref[k];
            for a in [(k + 1) % 3, (k + 2) % 3] {
                y[a] = y[a].clamp(-f.h_ref[a], f.h_ref[a]);
            }
            let on_ref = pose_ref.transform_point(y);
            if matches!(sv.sat.axis, SatAxis::FaceA(_)) {
                (on_ref, on_ref - depth * normal)
            } else {
                (on_ref + depth * normal, on_ref)
            }
        }
        Feature::Edge(i, j) => {
            let mid = edge_midpoint(sv, i, j, pose_a);
            (mid + 0.5 * depth * normal, mid - 0.5 * depth * normal)
        }
    };
    BoxBoxPenetration { depth, normal, point_a, point_b, axis: sv.sat.axis }
}

/// Separating-axis test of two boxes (half extents `h`, poses local → world).
///
/// `None` iff some of the 15 axes shows a strictly positive gap (or the input is not finite); touching boxes give
/// `depth = 0`. See the module docs for the axes, the face bias and the tie order.
pub fn box_box_sat(h_a: DVec3, pose_a: &Pose, h_b: DVec3, pose_b: &Pose) -> Option<BoxBoxSat> {
    box_box_sat_with_bias(h_a, pose_a, h_b, pose_b, FACE_BIAS)
}

/// [`box_box_sat`] with an edge axis within 5° of the best face axis ([`NEAR_FACE_COS`]) replacing it only when its
/// overlap is below `best · (1 − face_bias)`: the axis (and overlap along it) that [`box_box_contacts`] uses with
/// [`CONTACT_FACE_BIAS`]. Its depth is at most `depth / (1 − face_bias)` for the exact SAT depth.
pub fn box_box_sat_with_bias(
    h_a: DVec3,
    pose_a: &Pose,
    h_b: DVec3,
    pose_b: &Pose,
    face_bias: f64,
) -> Option<BoxBoxSat> {
    let sv = solve(h_a, pose_a, h_b, pose_b, face_bias.max(FACE_BIAS))?;
    Some(BoxBoxSat { depth: sv.sat.depth, normal: sv.normal, axis: sv.sat.axis })
}

/// Penetration depth, normal (A → B) and witness points of overlapping boxes, Coal convention; `None` if separated.
///
/// `depth` is the SAT minimum, which is the exact penetration depth (the distance from the origin to the boundary of
/// `A ⊖ B`, whose face normals are the 15 axes), and `point_a − point_b = depth · normal` holds by construction.
/// Face axis: the witness on the reference box is the deepest clipped point of the incident face (see
/// [`box_box_contacts`]) projected onto the reference face; the other witness is offset from it by `depth`. Edge
/// axis: the witnesses are `m ± ½ depth · normal` around the midpoint `m` of the closest points of the two edges.
pub fn box_box_penetration(
    h_a: DVec3,
    pose_a: &Pose,
    h_b: DVec3,
    pose_b: &Pose,
) -> Option<BoxBoxPenetration> {
    let sv = solve(h_a, pose_a, h_b, pose_b, FACE_BIAS)?;
    Some(penetration(&sv, pose_a, pose_b))
}

/// Appends the box–box contact manifold to `out` in the simulator convention ([`Contact`]: normal from B to A, equal
/// to `−`[`box_box_sat`]`.normal` for every point, except that an edge axis must beat the face axes by
/// [`CONTACT_FACE_BIAS`] here) and returns how many were appended (0 when separated).
///
/// Face axis (up to 8 points): the reference face is the winning face, the incident face the face of the other box
/// most anti-parallel to it. The incident face is clipped by the 4 side planes of the reference rectangle, where a
/// corner at most [`CLIP_SLACK_REL`] beyond a plane is kept where it is (Sutherland–Hodgman, fixed order); each resulting vertex `x` with height `z` above the reference plane gives
/// `penetration = −z` and `position = x` moved by `½ penetration` toward the plane. Vertices with `z ≤ ε` are kept
/// (`ε = 1e-12 ×` the largest half extent), so exactly touching points are reported with penetration 0. Edge axis: one
/// point at the midpoint of the closest points of the two edges, with the SAT depth. If rounding leaves no face
/// point, the single witness contact of [`box_box_penetration`] is used. Allocates nothing besides pushing into `out`.
pub fn box_box_contacts(
    h_a: DVec3,
    pose_a: &Pose,
    h_b: DVec3,
    pose_b: &Pose,
    out: &mut Vec<Contact>,
) -> usize {
    let Some(sv) = solve(h_a, pose_a, h_b, pose_b, CONTACT_FACE_BIAS) else {
        return 0;
    };
    let normal = -sv.normal;
    let start = out.len();
    match feature(&sv, pose_a, pose_b) {
        Feature::Face { f, k, s, pose: pose_ref } => {
            let slack = CLIP_SLACK_REL * sv.rel.h_a.max_element().max(sv.rel.h_b.max_element());
            let poly = clip_incident(&f, k, s, sv.rel.eps, slack);
            for &x in poly.as_slice() {
                let pen = f.h_ref[k] - s * x[k];
                if pen >= -sv.rel.eps {
                    let pen = pen.max(0.0);
                    let mut p = x;
                    p[k] += 0.5 * s * pen;
                    out.push(Contact { position: pose_ref.transform_point(p), normal, penetration: pen });
                }
            }
            if out.len() == start {
                let w = penetration(&sv, pose_a, pose_b);
                let position = 0.5 * (w.point_a + w.point_b);
                out.push(Contact { position, normal, penetration: w.depth });
            }
        }
        Feature::Edge(i, j) => {
            let position = edge_midpoint(&sv, i, j, pose_a);
            out.push(Contact { position, normal, penetration: sv.sat.depth });
        }
    }
    out.len() - start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(h: f64) -> Poly {
        let mut p = Poly::EMPTY;
        for v in
            [DVec3::new(h, h, 0.0), DVec3::new(-h, h, 0.0), DVec3::new(-h, -h, 0.0), DVec3::new(h, -h, 0.0)]
        {
            p.push(v);
        }
        p
    }

    #[test]
    fn clipping_on_the_plane_adds_no_duplicates() {
        let out = clip_half_plane(&square(1.0), 0, 1.0, 1.0, 0.0);
        assert_eq!(out.as_slice(), square(1.0).as_slice());
        let out = clip_half_plane(&square(1.0), 0, 1.0, 0.5, 0.0);
        assert_eq!(out.len, 4);
        assert!(out.as_slice().iter().all(|p| p.x <= 0.5));
        let out = clip_half_plane(&square(1.0), 0, -1.0, -2.0, 0.0);
        assert_eq!(out.len, 0);
    }

    /// A square turned by 1e-7 rad against a flush side plane: the plain cut makes 5 points, the slack keeps the 4
    /// corners where they are; a real overlap is still cut at the plane itself.
    #[test]
    fn corners_within_the_slack_are_kept() {
        let mut turned = Poly::EMPTY;
        let rot = glam::DQuat::from_rotation_z(1e-7);
        for &p in square(1.0).as_slice() {
            turned.push(rot * p);
        }
        assert_eq!(clip_half_plane(&turned, 0, 1.0, 1.0, 0.0).len, 5);
        let kept = clip_half_plane(&turned, 0, 1.0, 1.0, 1e-5);
        assert_eq!(kept.as_slice(), turned.as_slice());
        let cut = clip_half_plane(&turned, 0, 1.0, 0.5, 1e-5);
        assert_eq!(cut.len, 4);
        assert!(cut.as_slice().iter().all(|p| p.x <= 0.5 + 1e-15));
        assert_eq!(cut.as_slice().iter().filter(|p| (p.x - 0.5).abs() < 1e-15).count(), 2);
    }

    #[test]
    fn crossing_segments() {
        let (a, b) = segment_closest(DVec3::new(0.0, 0.0, 1.0), DVec3::X, 1.0, DVec3::ZERO, DVec3::Y, 1.0);
        assert_eq!((a, b), (DVec3::new(0.0, 0.0, 1.0), DVec3::ZERO));
        let (a, b) = segment_closest(DVec3::new(3.0, 0.0, 1.0), DVec3::X, 1.0, DVec3::ZERO, DVec3::Y, 1.0);
        assert_eq!((a, b), (DVec3::new(2.0, 0.0, 1.0), DVec3::ZERO));
    }

    #[test]
    fn rotated_square_gives_an_octagon() {
        let h = DVec3::splat(0.5);
        let top =
            Pose { translation: DVec3::new(0.0, 0.0, 0.99), rotation: glam::DQuat::from_rotation_z(0.7) };
        let mut out = Vec::new();
        assert_eq!(box_box_contacts(h, &top, h, &Pose::IDENTITY, &mut out), 8);
        assert!(out.iter().all(|c| (c.penetration - 0.01).abs() < 1e-12 && c.normal == DVec3::Z));
    }
}
