//! Sphere and capsule pairs: MuJoCo's `mjc_SphereSphere`, `mjc_SphereCapsule`, `mjc_SphereCylinder` and
//! `mjc_CapsuleCapsule`. Capsules reduce to spheres at the closest points of their segments.

use glam::DVec3;
use signorini_geometry::Shape;

use super::plane::raw_plane_sphere;
use super::{Frame, MINVAL, MjContact};

/// MuJoCo's `mju_normalize3` ([`normalize_vec3`](signorini_geometry::rotation::normalize_vec3), by the reciprocal
/// of the norm): unit vector and norm, `(1, 0, 0)` when the norm is below `mjMINVAL`.
pub(crate) fn normalize3(v: DVec3) -> (DVec3, f64) {
    signorini_geometry::rotation::normalize_vec3(v, MINVAL)
}

/// Two spheres (centres `p1`, `p2`, radii `r1`, `r2`); `z1`, `z2` are the geoms' z axes, whose cross product is the
/// normal when the centres coincide.
#[allow(clippy::too_many_arguments)]
pub(crate) fn raw_sphere_sphere(
    p1: DVec3,
    z1: DVec3,
    r1: f64,
    p2: DVec3,
    z2: DVec3,
    r2: f64,
    margin: f64,
    out: &mut Vec<MjContact>,
) -> bool {
    let min_dist = margin + r1 + r2;
    let cdist_sqr = (p1 - p2).length_squared();
    if cdist_sqr > min_dist * min_dist {
        return false;
    }
    let dist = cdist_sqr.sqrt() - r1 - r2;
    let (mut normal, len) = normalize3(p2 - p1);
    if len < MINVAL {
        normal = normalize3(z1.cross(z2)).0;
    }
    out.push(MjContact { dist, pos: p1 + (r1 + 0.5 * dist) * normal, normal, tangent: DVec3::ZERO });
    true
}

pub(crate) fn sphere_sphere(
    a: &Shape,
    f1: &Frame,
    b: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let (Shape::Sphere(a), Shape::Sphere(b)) = (a, b) else { return };
    raw_sphere_sphere(f1.pos, f1.z(), a.radius(), f2.pos, f2.z(), b.radius(), margin, out);
}

pub(crate) fn sphere_capsule(
    a: &Shape,
    f1: &Frame,
    b: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let (Shape::Sphere(s), Shape::Capsule(c)) = (a, b) else { return };
    let axis = f2.z();
    let x = axis.dot(f1.pos - f2.pos).clamp(-c.half_length(), c.half_length());
    raw_sphere_sphere(f1.pos, f1.z(), s.radius(), f2.pos + x * axis, f2.z(), c.radius(), margin, out);
}

/// MuJoCo's sphere–cylinder: the barrel (sphere–sphere with the axis point), a cap (plane–sphere, normal flipped
/// back to sphere → cylinder), or the rim circle (sphere against a point).
pub(crate) fn sphere_cylinder(
    a: &Shape,
    f1: &Frame,
    b: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let (Shape::Sphere(s), Shape::Cylinder(c)) = (a, b) else { return };
    let (radius, height) = (c.radius(), c.half_length());
    let axis = f2.z();
    let vec = f1.pos - f2.pos;
    let x = axis.dot(vec);
    let a_proj = x * axis;
    let p_proj = vec - a_proj;
    let p_proj_sqr = p_proj.length_squared();
    let mut side = x.abs() < height;
    let mut cap = p_proj_sqr < radius * radius;
    if side && cap {
        // Centre inside: the nearer wall decides.
        if height - x.abs() < radius - p_proj_sqr.sqrt() {
            side = false;
        } else {
            cap = false;
        }
    }
    if side {
        raw_sphere_sphere(f1.pos, f1.z(), s.radius(), f2.pos + a_proj, f2.z(), radius, margin, out);
        return;
    }
    if cap {
        // The cap as a plane facing out of the cylinder; its normal (cap → sphere) is negated to sphere → cylinder.
        let (cap_pos, cap_mat) = if x > 0.0 {
            (f2.pos + height * axis, f2.mat)
        } else {
            let m = f2.mat;
            (f2.pos - height * axis, glam::DMat3::from_cols(-m.x_axis, m.y_axis, -m.z_axis))
        };
        let plane = Frame { pos: cap_pos, mat: cap_mat, pose: f2.pose };
        let start = out.len();
        if raw_plane_sphere(&plane, f1.pos, s.radius(), margin, out) {
            for c in &mut out[start..] {
                c.normal = -c.normal;
            }
        }
        return;
    }
    // Rim: a point sphere at the nearest rim point.
    let rim = f2.pos + p_proj * (radius / p_proj_sqr.sqrt()) + axis * if x > 0.0 { height } else { -height };
    raw_sphere_sphere(f1.pos, f1.z(), s.radius(), rim, f2.z(), 0.0, margin, out);
}

/// MuJoCo's capsule–capsule: the closest points of the segments (one contact), or for (near-)parallel axes the
/// segment ends projected onto the other segment (up to two contacts).
pub(crate) fn capsule_capsule(
    a: &Shape,
    f1: &Frame,
    b: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let (Shape::Capsule(c1), Shape::Capsule(c2)) = (a, b) else { return };
    let (r1, r2) = (c1.radius(), c2.radius());
    let (z1, z2) = (f1.z(), f2.z());
    let axis1 = z1 * c1.half_length();
    let axis2 = z2 * c2.half_length();
    let dif = f1.pos - f2.pos;
    let ma = axis1.dot(axis1);
    let mb = -axis1.dot(axis2);
    let mc = axis2.dot(axis2);
    let u = -axis1.dot(dif);
    let v = axis2.dot(dif);
    let det = ma * mc - mb * mb;
    let pair = |x1: f64, x2: f64, out: &mut Vec<MjContact>| {
        raw_sphere_sphere(f1.pos + x1 * axis1, z1, r1, f2.pos + x2 * axis2, z2, r2, margin, out) as usize
    };
    if det.abs() >= MINVAL {
        let mut x1 = (mc * u - mb * v) / det;
        let mut x2 = (ma * v - mb * u) / det;
        if x1 > 1.0 {
            x1 = 1.0;
            x2 = (v - mb) / mc;
        } else if x1 < -1.0 {
            x1 = -1.0;
            x2 = (v + mb) / mc;
        }
        if x2 > 1.0 {
            x2 = 1.0;
            x1 = ((u - mb) / ma).clamp(-1.0, 1.0);
        } else if x2 < -1.0 {
            x2 = -1.0;
            x1 = ((u + mb) / ma).clamp(-1.0, 1.0);
        }
        pair(x1, x2, out);
        return;
    }
    // Parallel axes: the ends of segment 1, then (if fewer than two contacts) the ends of segment 2.
    let mut n = pair(1.0, ((v - mb) / mc).clamp(-1.0, 1.0), out);
    n += pair(-1.0, ((v + mb) / mc).clamp(-1.0, 1.0), out);
    if n >= 2 {
        return;
    }
    n += pair(((u - mb) / ma).clamp(-1.0, 1.0), 1.0, out);
    if n >= 2 {
        return;
    }
    pair(((u + mb) / ma).clamp(-1.0, 1.0), -1.0, out);
}
