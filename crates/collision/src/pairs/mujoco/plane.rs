//! Plane (geom 1) against a bounded geom (geom 2): MuJoCo's `mjc_PlaneSphere`, `mjc_PlaneCapsule`,
//! `mjc_PlaneCylinder`, `mjc_PlaneBox` and `mjc_PlaneConvex` (ellipsoids and meshes).
//!
//! The plane's world normal is its local z axis `n`; a point `x` is at signed distance `n·(x − o)` from the plane
//! through the plane origin `o`. Every contact has normal `n` (plane → geom) and sits at the deepest point of the geom
//! shifted by `−½ dist · n`, midway between the surfaces.

use glam::DVec3;
use signorini_geometry::Shape;

use super::{Frame, MINVAL, MjContact};

fn push_plane_contact(out: &mut Vec<MjContact>, n: DVec3, deepest: DVec3, dist: f64) {
    out.push(MjContact { dist, pos: deepest - 0.5 * dist * n, normal: n });
}

/// Sphere of radius `r` at `center` against the plane: one contact when `n·(c − o) − r ≤ margin`.
pub(crate) fn raw_plane_sphere(
    plane: &Frame,
    center: DVec3,
    r: f64,
    margin: f64,
    out: &mut Vec<MjContact>,
) -> bool {
    let n = plane.z();
    let cdist = n.dot(center - plane.pos);
    if cdist > margin + r {
        return false;
    }
    push_plane_contact(out, n, center - r * n, cdist - r);
    true
}

pub(crate) fn plane_sphere(
    _: &Shape,
    f1: &Frame,
    s: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let Shape::Sphere(s) = s else { return };
    raw_plane_sphere(f1, f2.pos, s.radius(), margin, out);
}

/// Both end caps, `+h` end first (MuJoCo's order).
pub(crate) fn plane_capsule(
    _: &Shape,
    f1: &Frame,
    c: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let Shape::Capsule(c) = c else { return };
    let seg = c.half_length() * f2.z();
    raw_plane_sphere(f1, f2.pos + seg, c.radius(), margin, out);
    raw_plane_sphere(f1, f2.pos - seg, c.radius(), margin, out);
}

/// MuJoCo's plane–cylinder: the deepest rim point of the cap nearer the plane, the matching rim point of the other
/// cap, and two more points of the near cap's rim at ±120° (on the chord halfway to the centre side) when that chord
/// is within the margin: 1, 2, 3 or 4 contacts.
pub(crate) fn plane_cylinder(
    _: &Shape,
    f1: &Frame,
    c: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let Shape::Cylinder(c) = c else { return };
    let (radius, half) = (c.radius(), c.half_length());
    let normal = f1.z();
    let mut axis = f2.z();
    // Make the axis point towards the plane.
    let mut prjaxis = normal.dot(axis);
    if prjaxis > 0.0 {
        axis = -axis;
        prjaxis = -prjaxis;
    }
    let dist0 = normal.dot(f2.pos - f1.pos);
    // Radial direction of the deepest rim point: −normal with its axial part removed.
    let mut vec = axis * prjaxis - normal;
    let len_sqr = vec.length_squared();
    if len_sqr >= MINVAL * MINVAL {
        vec *= radius / len_sqr.sqrt();
    } else {
        // Disc parallel to the plane: the cylinder's x axis.
        vec = f2.mat.x_axis * radius;
    }
    let prjvec = vec.dot(normal);
    let axis = axis * half;
    let prjaxis = prjaxis * half;

    let d1 = dist0 + prjaxis + prjvec;
    if d1 > margin {
        return;
    }
    push_plane_contact(out, normal, f2.pos + vec + axis, d1);
    let d2 = dist0 - prjaxis + prjvec;
    if d2 <= margin {
        push_plane_contact(out, normal, f2.pos + vec - axis, d2);
    }
    let d3 = dist0 + prjaxis - 0.5 * prjvec;
    if d3 <= margin {
        let side = vec.cross(axis).normalize_or_zero() * (radius * 3f64.sqrt() / 2.0);
        push_plane_contact(out, normal, f2.pos + side + axis - 0.5 * vec, d3);
        push_plane_contact(out, normal, f2.pos - side + axis - 0.5 * vec, d3);
    }
}

/// MuJoCo's plane–box: the corners in bit order (corner `i` is `+` on axis `k` when bit `k` of `i` is set) that are
/// within the margin and on the plane's side of the centre (`n·(corner − centre) ≤ 0`), at most 4.
pub(crate) fn plane_box(_: &Shape, f1: &Frame, b: &Shape, f2: &Frame, margin: f64, out: &mut Vec<MjContact>) {
    let Shape::Box(b) = b else { return };
    let size = b.half_extents();
    let n = f1.z();
    let dist = n.dot(f2.pos - f1.pos);
    let mut count = 0;
    for i in 0..8 {
        let local = DVec3::new(
            if i & 1 != 0 { size.x } else { -size.x },
            if i & 2 != 0 { size.y } else { -size.y },
            if i & 4 != 0 { size.z } else { -size.z },
        );
        let corner = f2.mat * local;
        let ldist = n.dot(corner);
        if dist + ldist > margin || ldist > 0.0 {
            continue;
        }
        push_plane_contact(out, n, corner + f2.pos, dist + ldist);
        count += 1;
        if count >= 4 {
            return;
        }
    }
}

/// Most contacts of a plane–mesh pair and the spread filter of MuJoCo's `addplanemesh` (relative to the mesh's
/// bounding radius).
const MAX_PLANE_MESH: usize = 3;
const TOL_PLANE_MESH: f64 = 0.3;

/// MuJoCo's plane–convex: the support point along `−n`; for a mesh, also up to two hull neighbours of the support
/// vertex within the margin that are at least `0.3 · rbound` from the first contact.
pub(crate) fn plane_convex(
    _: &Shape,
    f1: &Frame,
    g: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let n = f1.z();
    let (deepest, mesh) = match g {
        Shape::ConvexMesh(m) => {
            let local_dir = f2.mat.transpose() * -n;
            let best = m.support_index_brute_force(local_dir);
            (f2.pos + f2.mat * m.vertices()[best], Some((m, best)))
        }
        _ => match g.world_support(&f2.pose, -n) {
            Ok(v) => (v, None),
            Err(_) => return,
        },
    };
    let dist = n.dot(deepest - f1.pos);
    if dist > margin {
        return;
    }
    push_plane_contact(out, n, deepest, dist);
    let Some((m, best)) = mesh else { return };
    let first = out[out.len() - 1].pos;
    let rbound = m.vertices().iter().map(|v| v.length()).fold(0.0, f64::max);
    let mut count = 1;
    for &k in m.neighbors(best) {
        if count >= MAX_PLANE_MESH {
            break;
        }
        let pnt = f2.pos + f2.mat * m.vertices()[k as usize];
        let d = n.dot(pnt - f1.pos);
        if d >= margin || (pnt - first).length() < TOL_PLANE_MESH * rbound {
            continue;
        }
        push_plane_contact(out, n, pnt, d);
        count += 1;
    }
}
