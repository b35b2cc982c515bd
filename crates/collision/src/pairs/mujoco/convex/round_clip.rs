//! Cylinder against cylinder, box or mesh, and capsule against cylinder or mesh, in MuJoCo 4.0: after the single
//! native-GJK/EPA contact, MuJoCo 4.0's multiccd clips polygon features as for box and mesh pairs, with a
//! cylinder's caps read as 16-gons and a cylinder's or capsule's side read as an edge. That routine is not in the
//! public MuJoCo source we port from; what it does was read off its contacts:
//!
//! * a cap on a face (a box face, a mesh polygon or the other cylinder's cap within `FACE_TOL` of the contact
//!   normal): face–face clipping (`multicontact.rs`), the face of geom 1 clipping the face of geom 2, a cap being the
//!   16 vertices at 22.5° steps from the cylinder's local +x axis, counter-clockwise about +z on the bottom cap and
//!   clockwise on the top one ([`cap_polygon`]); more than four points reduced to a quadrilateral (`polygon_quad`).
//!   On 48 resting cases this gives MuJoCo's counts and normals, and its points and depths in 34; in the other 14
//!   MuJoCo 4.0 keeps other points (`tests/mujoco_pairs.rs`: `cylinder_caps_match_mujoco`);
//! * a side along a face ([`clip_side`]): a cylinder's or a capsule's side line (its axis segment moved towards the
//!   face) clipped by a box face, a mesh polygon or a cylinder's cap (the contact on that cap's face or rim), as
//!   MuJoCo clips an edge: up to two contacts at their own depths, the face's normal
//!   (`tests/mujoco_pairs.rs`: `capsule_edges_match_mujoco`, `cylinder_sides_match_mujoco`);
//! * otherwise (side against side, a tilted geom) the single contact.

use glam::DVec3;

use super::multicontact::{Clip, box_normals_dir, face_vertices, polygon_clip};
use super::support::{Geom, Obj};
use super::{EDGE_TOL, FACE_TOL, MjContact, Scratch, single_penetration};

/// A contact whose normal is within this of perpendicular to a cylinder's axis lies on its side, not on a cap
/// (GJK/EPA leave side normals this close to perpendicular).
const CAP_SIDE_TOL: f64 = 1e-6;
/// A contact point within this (relative to the cylinder's size) of a cap's plane lies on that cap or its rim.
const CAP_PLANE_TOL: f64 = 1e-9;
/// Vertices of a cap polygon in MuJoCo 4.0's clipping.
const CAP_VERTICES: usize = 16;

/// One `mjc_penetration` contact, then the cap or side clipping where MuJoCo 4.0's multiccd clips (see the module
/// docs); `multi`: `<flag multiccd>`, on by default.
pub(super) fn penetration_clipped(
    s: &mut Scratch,
    o1: &mut Obj<'_>,
    o2: &mut Obj<'_>,
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
    if cap_on_face(o1, o2, first.normal) {
        // MuJoCo 4.0's face–face clipping with the cap as a 16-gon.
        out.truncate(start);
        if !clip_cap(o1, o2, first.normal, margin, &mut s.clip, out) {
            out.truncate(start);
            out.push(first);
        }
        return;
    }
    // A side along a face of the other geom: geom 1's first, as MuJoCo looks at geom 1's edge first.
    if clip_side((o1, true), o2, &first, margin, &mut s.clip, out)
        || clip_side((o2, false), o1, &first, margin, &mut s.clip, out)
    {
        out.remove(start);
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

/// MuJoCo 4.0's edge–face clipping of the side of `edge` (a capsule or a cylinder; `is_geom1` when it is the pair's
/// first geom) lying along a face of `other`, after the `first` contact. With `n` the contact normal from `edge`
/// towards `other`, the face is:
/// * a cylinder's cap ([`cap_polygon`]) when the first contact lies on that cap's face or rim: its point on the
///   cylinder in the cap's plane and `n` not perpendicular to the axis (a capsule meeting the rim from the side is
///   clipped by the cap, as MuJoCo does; a contact on the cylinder's side is not);
/// * a box face or mesh polygon within `FACE_TOL` of `−n` ([`facing_face`]).
///
/// The side's axis must lie within `EDGE_TOL` of perpendicular to the face normal. The side line runs from the
/// `−z` end to the `+z` end of the axis segment, moved towards the face: a cylinder's by its radius along the part of
/// the face's inward normal perpendicular to the axis (its surface line touching the face), a capsule's by
/// `radius · (n − (n·axis) axis)`, the part of the contact normal perpendicular to the axis, not normalised. Both were
/// read off MuJoCo 4.0's contacts (to 1e-17); offset along the contact normal instead, a cylinder's line differed from
/// MuJoCo's in 27 of the 72 reference cases (a level cylinder's contacts 8e-7 m along its axis). It is clipped by the face (`multicontact.rs`): up to
/// two contacts, each at its own depth along the face normal, which is their normal; the same point twice when one end
/// lies above the face, as MuJoCo reports it. Returns false when the side does not lie along a face or nothing is
/// left.
fn clip_side(
    (edge, is_geom1): (&Obj<'_>, bool),
    other: &Obj<'_>,
    first: &MjContact,
    margin: f64,
    c: &mut Clip,
    out: &mut Vec<MjContact>,
) -> bool {
    let (radius, half_length, normalised) = match edge.geom {
        Geom::Capsule { radius, half_length } => (radius, half_length, false),
        Geom::Cylinder { radius, half_length } => (radius, half_length, true),
        _ => return false,
    };
    let axis = edge.mat.z_axis;
    // `first.normal` points from geom 1 to geom 2.
    let n = if is_geom1 { first.normal } else { -first.normal };
    let face_normal = match other.geom {
        Geom::Cylinder { radius: cap_radius, half_length: cap_half } => {
            let along = other.mat.z_axis.dot(-n);
            let height = other.mat.z_axis.dot(first.pos + n * (0.5 * first.dist) - other.origin);
            let top = along > 0.0;
            let on_cap =
                if top { height } else { -height } >= cap_half - CAP_PLANE_TOL * cap_half.max(cap_radius);
            if along.abs() <= CAP_SIDE_TOL || !on_cap {
                return false;
            }
            cap_face(other, cap_radius, cap_half, top, &mut c.face2)
        }
        _ => match facing_face(other, -n, (&mut c.n2, &mut c.idx2), &mut c.face2) {
            Some(face_normal) => face_normal,
            None => return false,
        },
    };
    if axis.dot(face_normal).abs() >= EDGE_TOL {
        return false;
    }
    let offset = if normalised {
        // A cylinder's side line lies along the face: towards it, perpendicular to the axis.
        (-face_normal - axis * axis.dot(-face_normal)).normalize_or_zero() * radius
    } else {
        (n - axis * axis.dot(n)) * radius
    };
    c.face1.clear();
    c.face1.extend([-half_length, half_length].map(|z| edge.world(DVec3::new(0.0, 0.0, z)) + offset));
    let bufs = (&mut c.plane_n, &mut c.plane_d, &mut c.poly, &mut c.next);
    // The contact normal points from geom 1 to geom 2: into the face when the side is geom 1's.
    let frame = if is_geom1 { -face_normal } else { face_normal };
    polygon_clip(&c.face2, &c.face1, face_normal, None, frame, margin, bufs, out)
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
            (None, cap_face(o, radius, half_length, o.mat.z_axis.dot(dir) > 0.0, out))
        }
        Geom::Box(_) => {
            normals.clear();
            ids.clear();
            box_normals_dir(o, dir, normals, ids);
            (Some(*ids.first()?), *normals.first()?)
        }
        Geom::Mesh(m) => {
            let polygons = m.mujoco_polygons();
            most_aligned((0..polygons.len()).map(|p| o.rotate(polygons.normal(p))), dir)?
        }
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

/// The top or bottom cap of a cylinder `o` as a face: its polygon ([`cap_polygon`]) into `out`, and its outward
/// normal.
fn cap_face(o: &Obj<'_>, radius: f64, half_length: f64, top: bool, out: &mut Vec<DVec3>) -> DVec3 {
    cap_polygon(o, radius, half_length, top, out);
    if top { o.mat.z_axis } else { -o.mat.z_axis }
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

/// Whether a cylinder's cap lies on a face of the other geom (a box face, a mesh polygon or the other cylinder's cap)
/// within `FACE_TOL` of the contact normal `n`: MuJoCo 4.0's face–face clipping applies.
fn cap_on_face(o1: &Obj<'_>, o2: &Obj<'_>, n: DVec3) -> bool {
    let face = |o: &Obj<'_>| match o.geom {
        Geom::Box(_) => [o.mat.x_axis, o.mat.y_axis, o.mat.z_axis].iter().any(|a| a.dot(n).abs() > FACE_TOL),
        Geom::Mesh(m) => {
            let polygons = m.mujoco_polygons();
            (0..polygons.len()).any(|p| o.rotate(polygons.normal(p)).dot(n).abs() > FACE_TOL)
        }
        Geom::Cylinder { .. } => o.mat.z_axis.dot(n).abs() > FACE_TOL,
        _ => false,
    };
    let cap = |o: &Obj<'_>| matches!(o.geom, Geom::Cylinder { .. }) && face(o);
    (cap(o1) && face(o2)) || (face(o1) && cap(o2))
}
