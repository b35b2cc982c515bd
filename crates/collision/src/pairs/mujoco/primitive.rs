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

/// MuJoCo 4.0.1's capsule–capsule (`mjraw_CapsuleCapsule`, read off its machine code; the public source is older):
/// the core segments `pos ∓ h z` and the closest-point weights of [`seg_weights`] (one pair, or two for parallel
/// segments), each pair a sphere–sphere test of the weighted points `a + w (b − a)`.
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
    let (a1, b1) = (f1.pos - axis1, axis1 + f1.pos);
    let (a2, b2) = (f2.pos - axis2, axis2 + f2.pos);
    let (weights, n) = seg_weights(a1, b1, a2, b2);
    let (d1, d2) = (b1 - a1, b2 - a2);
    for &(w1, w2) in &weights[..n] {
        raw_sphere_sphere(w1 * d1 + a1, z1, r1, w2 * d2 + a2, z2, r2, margin, out);
    }
}

/// `x` clamped to `[0, 1]` (MuJoCo's vectorised `x < 0 ? 0 : min(1, x)`, the same for every `x`, NaN and `−0`
/// included).
#[inline]
fn unit_clip(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

/// MuJoCo 4.0.1's `mjc_segWeights`: the weights `(s, t)` of the closest points `a1 + s (b1 − a1)` and
/// `a2 + t (b2 − a2)` of two segments (Ericson's clamped minimiser), with its tolerances: a segment shorter than
/// `√1e-15` is a point, and segments with `‖d₁ × d₂‖² ≤ 1e-8 ‖d₁‖² ‖d₂‖²` are parallel and give two pairs, from
/// `s = 0` and `s = 1`. Returns the pairs and their number.
pub(crate) fn seg_weights(a1: DVec3, b1: DVec3, a2: DVec3, b2: DVec3) -> ([(f64, f64); 2], usize) {
    // glam's products are MuJoCo's: `dot` sums `(x + y) + z`, `cross` forms each component as `mjc_segWeights` does.
    let (d1, d2) = (b1 - a1, b2 - a2);
    let (a, e) = (d1.dot(d1), d2.dot(d2));
    if a <= MINVAL && e <= MINVAL {
        return ([(0.0, 0.0); 2], 1);
    }
    let r = a1 - a2;
    let f = r.dot(d2);
    if a <= MINVAL {
        return ([(0.0, unit_clip(f / e)), (0.0, 0.0)], 1);
    }
    let c = d1.dot(r);
    let s0 = -c / a;
    if e <= MINVAL {
        return ([(unit_clip(s0), 0.0), (0.0, 0.0)], 1);
    }
    let b = d1.dot(d2);
    let s1 = (b - c) / a;
    // The end of segment 2 that `t` clamps to, with segment 1's matching weight.
    let clamped = |t: f64, inside: f64| {
        if t < 0.0 {
            (unit_clip(s0), 0.0)
        } else if t > 1.0 {
            (unit_clip(s1), 1.0)
        } else {
            (inside, t)
        }
    };
    let cross = d1.cross(d2);
    let denom = cross.dot(cross);
    if denom > (a * 1e-8) * e {
        let s = unit_clip(cross.dot(d2.cross(r)) / denom);
        let t = (b * s + f) / e;
        return ([clamped(t, s), (0.0, 0.0)], 1);
    }
    ([clamped(f / e, 0.0), clamped((f + b) / e, 1.0)], 2)
}
