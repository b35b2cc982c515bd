//! Cylinder against cylinder, box or mesh in MuJoCo 4.0: after the single native-GJK/EPA contact, MuJoCo 4.0's
//! multiccd clips polygon features as for box and mesh pairs, with the cylinder's caps read as 16-gons (its contacts
//! lie on the cap's 22.5° vertices in the cylinder frame). That routine is not in the public MuJoCo source we port
//! from, so the extra contacts come from MuJoCo's other multiCCD, the perturbation pass it runs under libccd
//! (`mjc_Convex` in `engine_collision_convex.c`), and only where 4.0's clipping would add contacts:
//!
//! * when a cap lies on a face (cap against a box face, a mesh polygon or the other cylinder's cap, normals within
//!   `FACE_TOL` of the contact normal, as the clipping's face–face test), or the cylinder's side lies along one
//!   (`|axis·n| < EDGE_TOL` against a face or a cap: its edge–face test); side against side stays one contact;
//! * the pass: both geoms turned about the first contact's point, geom 1 by `R(a, ±ε)` and geom 2 by its inverse,
//!   for `a` the two tangents of `mju_makeFrame(normal)` and `ε = 1e-3` rad, one more `mjc_penetration` each; a new
//!   contact farther than `1e-3 · min(rbound₁, rbound₂)` from every kept one is kept with the first contact's depth;
//! * a cap on a face keeps four contacts (the pass's four rim points, without the first contact when all four were
//!   found), a side on a face two (the two farthest apart), as the face–face and edge–face clipping do.
//!
//! Measured against MuJoCo 4.0 (`tests/mujoco_pairs.rs`): same deepest depth and the same contact counts in the
//! resting cases (cylinders standing or lying on boxes, cylinders and a hull, a box on a cylinder); the rim points
//! are where the pass finds them, not on MuJoCo's 16-gon vertices.

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::Shape;

use super::support::{Geom, Obj};
use super::{EDGE_TOL, FACE_TOL, MjContact, Scratch, single_penetration};

use crate::pairs::mujoco::{geom_rbound, quat_to_mat};

/// `perturbation_angle` (rad).
const ANGLE: f64 = 1e-3;
/// `relative_tolerance`.
const RELATIVE_TOLERANCE: f64 = 1e-3;

/// One `mjc_penetration` contact, then the perturbation pass where MuJoCo's clipping would add contacts (see the
/// module docs).
pub(super) fn penetration_perturbed(
    s: &mut Scratch,
    (g1, o1): (&Shape, &mut Obj<'_>),
    (g2, o2): (&Shape, &mut Obj<'_>),
    margin: f64,
    multi: bool,
    out: &mut Vec<MjContact>,
) {
    let start = out.len();
    single_penetration(s, o1, o2, margin, out);
    if !multi || out.len() - start != 1 {
        return;
    }
    let first = out[start];
    let Some(keep) = clipped_contacts(o1, o2, first.normal) else { return };
    let (t1, t2) = make_frame(first.normal);
    let tolerance = RELATIVE_TOLERANCE * geom_rbound(g1).min(geom_rbound(g2));
    let saved = [(o1.origin, o1.center, o1.mat), (o2.origin, o2.center, o2.mat)];
    for axis in [t1, t2] {
        for angle in [-ANGLE, ANGLE] {
            let rot = quat_to_mat(axis_angle(axis, angle));
            rotate(o1, first.pos, rot);
            rotate(o2, first.pos, rot.transpose());
            let before = out.len();
            single_penetration(s, o1, o2, margin, out);
            if out.len() > before {
                let new = out[before].pos;
                if out[start..before].iter().all(|c| c.pos.distance(new) > tolerance) {
                    out[before].dist = first.dist;
                    out.truncate(before + 1);
                } else {
                    out.truncate(before);
                }
            }
            (o1.origin, o1.center, o1.mat) = saved[0];
            (o2.origin, o2.center, o2.mat) = saved[1];
        }
    }
    if keep == 4 && out.len() - start > 4 {
        // A cap on a face: MuJoCo's clipping keeps four points of the cap's rim; the pass found four rim points
        // after the first contact, which it drops.
        out.remove(start);
    }
    if keep == 2 && out.len() - start > 2 {
        // The two farthest apart (the first pair in index order on ties).
        let found = &out[start..];
        let mut best = (0, 1, -1.0);
        for i in 0..found.len() {
            for j in i + 1..found.len() {
                let d = found[i].pos.distance_squared(found[j].pos);
                if d > best.2 {
                    best = (i, j, d);
                }
            }
        }
        let (a, b) = (found[best.0], found[best.1]);
        out.truncate(start);
        out.extend([a, b]);
    }
}

/// How many contacts MuJoCo 4.0's clipping would give a cylinder pair at a contact with normal `n`: `Some(4)` for a
/// cap on a face, `Some(2)` for a side along a face or a cap, `None` (the single contact) otherwise. Only cylinder against cylinder, box or mesh reaches here.
fn clipped_contacts(o1: &Obj<'_>, o2: &Obj<'_>, n: DVec3) -> Option<usize> {
    let face = |o: &Obj<'_>| match o.geom {
        Geom::Box(_) => [o.mat.x_axis, o.mat.y_axis, o.mat.z_axis].iter().any(|a| a.dot(n).abs() > FACE_TOL),
        Geom::Mesh(m) => {
            (0..m.polygon_count()).any(|p| o.rotate(m.polygon_normal(p)).dot(n).abs() > FACE_TOL)
        }
        Geom::Cylinder { .. } => o.mat.z_axis.dot(n).abs() > FACE_TOL,
        _ => false,
    };
    let side = |o: &Obj<'_>| matches!(o.geom, Geom::Cylinder { .. }) && o.mat.z_axis.dot(n).abs() < EDGE_TOL;
    let cap = |o: &Obj<'_>| matches!(o.geom, Geom::Cylinder { .. }) && face(o);
    if (cap(o1) && face(o2)) || (face(o1) && cap(o2)) {
        Some(4)
    } else if (side(o1) && face(o2)) || (face(o1) && side(o2)) {
        Some(2)
    } else {
        None
    }
}

/// `mju_rotateFrame` about `origin`: `mat ← rot·mat`, each point `x ← x − (rot·(origin − x) − (origin − x))`.
fn rotate(o: &mut Obj<'_>, origin: DVec3, rot: DMat3) {
    o.mat = rot * o.mat;
    for x in [&mut o.center, &mut o.origin] {
        let rel = origin - *x;
        let vec = rot * rel - rel;
        *x -= vec;
    }
}

/// `mji_axisAngle2Quat` (the axis is a unit vector).
fn axis_angle(axis: DVec3, angle: f64) -> DQuat {
    let s = (angle * 0.5).sin();
    DQuat::from_xyzw(axis.x * s, axis.y * s, axis.z * s, (angle * 0.5).cos())
}

/// The two tangents (`frame[3..6]`, `frame[6..9]`) of `mju_makeFrame` with the normal as x axis.
fn make_frame(normal: DVec3) -> (DVec3, DVec3) {
    let n = normalize3(normal);
    let y = if n.y < 0.5 && n.y > -0.5 { DVec3::Y } else { DVec3::Z };
    let t = normalize3(y - n * n.dot(y));
    (t, n.cross(t))
}

/// `mju_normalize3`: scaled by the reciprocal of the norm; `(1, 0, 0)` below `mjMINVAL`.
fn normalize3(v: DVec3) -> DVec3 {
    let norm = (v.x * v.x + v.y * v.y + v.z * v.z).sqrt();
    if norm < super::MINVAL { DVec3::X } else { v * (1.0 / norm) }
}
