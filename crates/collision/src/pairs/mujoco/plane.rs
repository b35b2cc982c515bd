//! Plane (geom 1) against a bounded geom (geom 2): MuJoCo's `mjc_PlaneSphere`, `mjc_PlaneCapsule`,
//! `mjc_PlaneCylinder`, `mjc_PlaneBox` and `mjc_PlaneConvex` (ellipsoids and meshes, MuJoCo 4.0).
//!
//! The plane's world normal is its local z axis `n`; a point `x` is at signed distance `n·(x − o)` from the plane
//! through the plane origin `o`. Every contact has normal `n` (plane → geom) and sits at the deepest point of the geom
//! shifted by `−½ dist · n`, midway between the surfaces.

use glam::DVec3;
use signorini_geometry::Shape;

use super::quad::{area4, climb};
use super::{Frame, MINVAL, MjContact};

fn push_plane_contact(out: &mut Vec<MjContact>, n: DVec3, deepest: DVec3, dist: f64) {
    out.push(MjContact { dist, pos: deepest - 0.5 * dist * n, normal: n, tangent: DVec3::ZERO });
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
    // `mjraw_PlaneSphere`: the point `c + n (−dist/2 − r)`, in one product (not `c − r n − dist/2 n`).
    let dist = cdist - r;
    out.push(MjContact { dist, pos: center + n * (-dist / 2.0 - r), normal: n, tangent: DVec3::ZERO });
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
    let axis = f2.z();
    let seg = c.half_length() * axis;
    let start = out.len();
    raw_plane_sphere(f1, f2.pos + seg, c.radius(), margin, out);
    raw_plane_sphere(f1, f2.pos - seg, c.radius(), margin, out);
    // MuJoCo aligns the contact frames with the capsule axis.
    for contact in &mut out[start..] {
        contact.tangent = axis;
    }
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

/// MuJoCo's plane–convex (`mjc_PlaneConvex`, 4.0). The support point along `−n` is the first contact. An ellipsoid
/// stops there. A mesh adds vertices of one of its polygons (coplanar hull triangles merged,
/// [`ConvexMesh::polygon`](signorini_geometry::ConvexMesh::polygon)): among the polygons around the support vertex,
/// the one whose normal is most opposed to `n` (the first on ties). At most four of its vertices are considered,
/// chosen by [`quad_from_anchor`] starting at the support vertex. Each adds a contact if it lies within the margin
/// of the plane and below the mesh centroid along `n`.
pub(crate) fn plane_convex(
    _: &Shape,
    f1: &Frame,
    g: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let n = f1.z();
    if let Shape::Ellipsoid(e) = g {
        let ld = DVec3::new(f2.mat.x_axis.dot(-n), f2.mat.y_axis.dot(-n), f2.mat.z_axis.dot(-n));
        let v = super::convex::ellipsoid_support(&f2.mat, f2.pos, e.semi_axes(), ld);
        let dist = n.dot(v - f1.pos);
        if dist <= margin {
            push_plane_contact(out, n, v, dist);
        }
        return;
    }
    let Shape::ConvexMesh(m) = g else {
        if let Ok(v) = g.world_support(&f2.pose, -n) {
            let dist = n.dot(v - f1.pos);
            if dist <= margin {
                push_plane_contact(out, n, v, dist);
            }
        }
        return;
    };
    let ln = f2.mat.transpose() * n;
    let support = m.support_index_hill_climb(-ln, 0);
    let world = |v: u32| f2.pos + f2.mat * m.vertices()[v as usize];
    let deepest = world(support as u32);
    let dist = n.dot(deepest - f1.pos);
    if dist > margin {
        return;
    }
    push_plane_contact(out, n, deepest, dist);
    let polygons = m.mujoco_polygons();
    let mut facing = None;
    let mut best = 1.0;
    for &p in polygons.around(support) {
        let d = polygons.normal(p as usize).dot(ln);
        if d < best {
            (best, facing) = (d, Some(p as usize));
        }
    }
    let Some(p) = facing else { return };
    let polygon = polygons.vertices(p);
    let anchor = polygon.iter().position(|&v| v as usize == support).unwrap_or(0);
    let (quad, count) = quad_from_anchor(polygon, m.vertices(), anchor);
    let center = f2.pos + f2.mat * m.inertial_origin();
    for &k in &quad[1..count] {
        let pnt = world(polygon[k]);
        let d = n.dot(pnt - f1.pos);
        if d > margin || n.dot(pnt - center) > 0.0 {
            continue;
        }
        push_plane_contact(out, n, pnt, d);
    }
}

/// MuJoCo's `hull4f`: up to four vertices of the convex polygon `polygon` (indices into `vertices`, in order
/// around it), the first being `anchor`. With four or fewer vertices, all of them from `anchor` on; otherwise the
/// [`climb`] from `anchor` and the next three. Returns positions in `polygon` and how many are valid.
pub(crate) fn quad_from_anchor(polygon: &[u32], vertices: &[DVec3], anchor: usize) -> ([usize; 4], usize) {
    let n = polygon.len();
    if n == 0 {
        return ([0; 4], 0);
    }
    let a = anchor % n;
    let mut q = [a, (a + 1) % n, (a + 2) % n, (a + 3) % n];
    if n <= 4 {
        return (q, n);
    }
    let point = |k: usize| vertices[polygon[k] as usize];
    let mut best = area4(point(q[0]), point(q[1]), point(q[2]), point(q[3]));
    climb(point, n, &mut q, &mut best);
    (q, 4)
}
