//! Cylinder against cylinder, box or mesh, and capsule against cylinder or mesh, in MuJoCo 4.0: after the single
//! native-GJK/EPA contact, MuJoCo 4.0's multiccd clips polygon features as for box and mesh pairs, with the
//! cylinder's caps read as 16-gons. That routine is not in the public MuJoCo source we port from; what it does was
//! read off its contacts:
//!
//! * a cap on a face (a box face, a mesh polygon or the other cylinder's cap within `FACE_TOL` of the contact
//!   normal): face–face clipping (`multicontact.rs`), the face of geom 1 clipping the face of geom 2, a cap being the
//!   16 vertices at 22.5° steps from the cylinder's local +x axis, counter-clockwise about +z on the bottom cap and
//!   clockwise on the top one ([`cap_polygon`]); more than four points reduced to a quadrilateral (`polygon_quad`).
//!   On 48 resting cases this gives MuJoCo's counts and normals, and its points and depths in 33; in the other 15
//!   MuJoCo 4.0 keeps other points (`tests/mujoco_pairs.rs`: `cylinder_caps_match_mujoco`);
//! * the cylinder's side along a face or a cap (`|axis·n| < EDGE_TOL`: MuJoCo's edge–face clipping): two contacts,
//!   from MuJoCo's other multiCCD, the perturbation pass it runs under libccd (`mjc_Convex` in
//!   `engine_collision_convex.c`): both geoms turned about the first contact's point, geom 1 by `R(a, ±ε)` and geom 2
//!   by its inverse, for `a` the two tangents of `mju_makeFrame(normal)` and `ε = 1e-3` rad, one more
//!   `mjc_penetration` each; a new contact farther than `1e-3 · min(rbound₁, rbound₂)` from every kept one is kept
//!   with the first contact's depth, and the two farthest apart remain (the edge's clipped ends in MuJoCo);
//! * side against side stays one contact;
//! * a capsule against a cylinder or a mesh (MuJoCo 4.0 reads the capsule as its side line, an edge): lying along a
//!   cap (the contact on its face or its rim) or a mesh face, its side line clipped by that face
//!   ([`clip_capsule_side`]); otherwise one contact.

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::Shape;

use super::multicontact::{Clip, box_normals_dir, face_vertices, polygon_clip};
use super::support::{Geom, Obj};
use super::{EDGE_TOL, FACE_TOL, MjContact, Scratch, single_penetration};

use crate::pairs::mujoco::{geom_rbound, quat_to_mat};

/// `perturbation_angle` (rad).
const ANGLE: f64 = 1e-3;
/// `relative_tolerance`.
const RELATIVE_TOLERANCE: f64 = 1e-3;
/// A contact whose normal is within this of perpendicular to a cylinder's axis lies on its side, not on a cap
/// (GJK/EPA leave side normals this close to perpendicular).
const CAP_SIDE_TOL: f64 = 1e-6;
/// A contact point within this (relative to the cylinder's size) of a cap's plane lies on that cap or its rim.
const CAP_PLANE_TOL: f64 = 1e-9;
/// Vertices of a cap polygon in MuJoCo 4.0's clipping.
const CAP_VERTICES: usize = 16;

/// One `mjc_penetration` contact, then the cap clipping or the perturbation pass where MuJoCo's clipping would add
/// contacts (see the module docs).
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
    if matches!(o1.geom, Geom::Capsule { .. }) {
        // A capsule (geom 1 of each pair that gets here with one) lying along a face: its side line clipped by the
        // face replaces the EPA contact.
        if clip_capsule_side(o1, o2, &first, margin, &mut s.clip, out) {
            out.remove(start);
        }
        return;
    }
    let Some(keep) = clipped_contacts(o1, o2, first.normal) else { return };
    if keep == 4 {
        // A cap on a face: MuJoCo 4.0's face–face clipping with the cap as a 16-gon.
        out.truncate(start);
        if !clip_cap(o1, o2, first.normal, margin, &mut s.clip, out) {
            out.truncate(start);
            out.push(first);
        }
        return;
    }
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

/// The face–face clipping of a cap on a face (MuJoCo's, `multicontact.rs`): the face of geom 1 facing geom 2 along
/// `n` (from geom 1 to geom 2) clips the face of geom 2 facing back, a cylinder's cap read as [`cap_polygon`]. Returns
/// false when a face is missing or nothing is left.
fn clip_cap(
    o1: &Obj<'_>,
    o2: &Obj<'_>,
    n: DVec3,
    margin: f64,
    c: &mut Clip,
    out: &mut Vec<MjContact>,
) -> bool {
    let (Some(n1), Some(n2)) = (
        facing_face(o1, n, (&mut c.n1, &mut c.idx1), &mut c.face1),
        facing_face(o2, -n, (&mut c.n2, &mut c.idx2), &mut c.face2),
    ) else {
        return false;
    };
    let bufs = (&mut c.plane_n, &mut c.plane_d, &mut c.poly, &mut c.next);
    polygon_clip(&c.face1, &c.face2, n1, Some(n2), -n2, margin, bufs, out)
}

/// MuJoCo 4.0's edge–face clipping of a capsule (geom 1) lying along a face of geom 2, after the `first` contact with
/// normal `n` (from geom 1 to geom 2). The face: a cylinder's cap ([`cap_polygon`]) when the first contact lies on
/// that cap or on its rim (its point on the cylinder in the cap's plane, `n` not perpendicular to the axis; a capsule
/// meeting the rim from the side is clipped by the cap, as MuJoCo does); a box face or mesh polygon within `FACE_TOL` of `−n`
/// ([`facing_face`]) with the capsule's axis within `EDGE_TOL` of perpendicular to `n`. The capsule's axis must lie
/// within `EDGE_TOL` of perpendicular to the face normal. The
/// capsule's side line towards the face (its core segment from the `−z` end to the `+z` end, moved by
/// `radius · (n − (n·axis) axis)`, the part of `n` perpendicular to the axis, not normalised, as MuJoCo 4.0 places it)
/// is clipped by the face (`multicontact.rs`): up to two contacts, each at its own depth along the face normal, which
/// is their normal; the same point twice when one end lies above the face, as MuJoCo reports it. Read off MuJoCo
/// 4.0's contacts (its routine is not in the public source; `tests/mujoco_pairs.rs`). Returns false when the capsule
/// does not lie along a face or nothing is left.
fn clip_capsule_side(
    o1: &Obj<'_>,
    o2: &Obj<'_>,
    first: &MjContact,
    margin: f64,
    c: &mut Clip,
    out: &mut Vec<MjContact>,
) -> bool {
    let Geom::Capsule { radius, half_length } = o1.geom else { return false };
    let (axis, n) = (o1.mat.z_axis, first.normal);
    let face_normal = match o2.geom {
        Geom::Cylinder { radius: cap_radius, half_length: cap_half } => {
            // The cap the contact lies on (its face or its rim): the contact's point on the cylinder,
            // `pos + dist/2 · n`, in the cap's plane, and the normal not perpendicular to the axis (a side contact).
            let along = o2.mat.z_axis.dot(-n);
            let height = o2.mat.z_axis.dot(first.pos + n * (0.5 * first.dist) - o2.origin);
            let top = along > 0.0;
            let on_cap =
                if top { height } else { -height } >= cap_half - CAP_PLANE_TOL * cap_half.max(cap_radius);
            if along.abs() <= CAP_SIDE_TOL || !on_cap {
                return false;
            }
            cap_polygon(o2, cap_radius, cap_half, top, &mut c.face2);
            if top { o2.mat.z_axis } else { -o2.mat.z_axis }
        }
        _ => {
            if axis.dot(n).abs() >= EDGE_TOL {
                return false;
            }
            match facing_face(o2, -n, (&mut c.n2, &mut c.idx2), &mut c.face2) {
                Some(face_normal) => face_normal,
                None => return false,
            }
        }
    };
    if axis.dot(face_normal).abs() >= EDGE_TOL {
        return false;
    }
    let side = (n - axis * axis.dot(n)) * radius;
    c.face1.clear();
    c.face1.extend([-half_length, half_length].map(|z| o1.world(DVec3::new(0.0, 0.0, z)) + side));
    let bufs = (&mut c.plane_n, &mut c.plane_d, &mut c.poly, &mut c.next);
    polygon_clip(&c.face2, &c.face1, face_normal, None, -face_normal, margin, bufs, out)
}

/// The face of `o` whose outward normal is closest to `dir` and within `FACE_TOL` of it: its vertices (world) into
/// `out`, and its normal. A box's face comes from `box_normals_dir` (into the `normals` scratch).
fn facing_face(
    o: &Obj<'_>,
    dir: DVec3,
    (normals, ids): (&mut Vec<DVec3>, &mut Vec<usize>),
    out: &mut Vec<DVec3>,
) -> Option<DVec3> {
    let (idx, normal) = match o.geom {
        Geom::Cylinder { radius, half_length } => {
            let top = o.mat.z_axis.dot(dir) > 0.0;
            cap_polygon(o, radius, half_length, top, out);
            (None, if top { o.mat.z_axis } else { -o.mat.z_axis })
        }
        Geom::Box(_) => {
            normals.clear();
            ids.clear();
            box_normals_dir(o, dir, normals, ids);
            (Some(*ids.first()?), *normals.first()?)
        }
        Geom::Mesh(m) => most_aligned((0..m.polygon_count()).map(|p| o.rotate(m.polygon_normal(p))), dir)?,
        _ => return None,
    };
    if normal.dot(dir) <= FACE_TOL {
        return None;
    }
    if let Some(idx) = idx {
        face_vertices(o, idx, out);
    }
    Some(normal)
}

/// The index and normal of the normal closest to `dir` (the first on ties).
fn most_aligned(normals: impl Iterator<Item = DVec3>, dir: DVec3) -> Option<(Option<usize>, DVec3)> {
    normals
        .enumerate()
        .fold(None, |best: Option<(usize, DVec3)>, (i, v)| match best {
            Some((_, b)) if b.dot(dir) >= v.dot(dir) => best,
            _ => Some((i, v)),
        })
        .map(|(i, v)| (Some(i), v))
}

/// A cylinder's cap as MuJoCo 4.0's clipping reads it: the 16 vertices at 22.5° steps from the local +x axis,
/// counter-clockwise about +z on the bottom cap and clockwise on the top one (clockwise about the cap's outward
/// normal, as MuJoCo's box faces), in the world frame. Found by matching MuJoCo 4.0's contacts (its routine is not
/// in the public source): `tests/mujoco_pairs.rs`.
fn cap_polygon(o: &Obj<'_>, radius: f64, half_length: f64, top: bool, out: &mut Vec<DVec3>) {
    out.clear();
    let (z, turn) = if top { (half_length, -1.0) } else { (-half_length, 1.0) };
    for k in 0..CAP_VERTICES {
        let angle = turn * (k as f64 * std::f64::consts::TAU / CAP_VERTICES as f64);
        out.push(o.world(DVec3::new(radius * angle.cos(), radius * angle.sin(), z)));
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
