//! Contact positions rebuilt from the smooth side of a pair (native dialect; Genesis 1.4.5's smooth refinement).
//!
//! MPR and GJK/EPA report a contact position that depends on where the portal or polytope happened to land; on a
//! static contact against a rotationally symmetric shape that bias becomes a lever arm off the normal, a spurious
//! torque and a slow drift. When one shape of the pair is smooth (sphere, ellipsoid, capsule, cylinder barrel) its
//! surface point along the contact normal has a closed form, and the position is replaced by the midpoint between
//! that point and the other surface, `s + ½ p n'` (`n'` the normal pointing out of the other shape into the smooth
//! one's side, `p` the penetration), so that the lever arm is parallel to the normal:
//!
//! - sphere (radius `r`, centre `c`): `s = c − r n'`;
//! - ellipsoid (semi-axes `a, b, c` in its frame): `s = −(a² m_x, b² m_y, c² m_z) / √(a² m_x² + b² m_y² + c² m_z²)`
//!   in the local frame, `m` the local `n'`;
//! - capsule (half-length `h` along local z): the position projected on the axis, clamped to `[−h, h]`, then
//!   `− r n'`;
//! - cylinder: as the capsule when the normal is within 60° of radial (`|n'·axis| < ½`: a barrel or rim contact);
//!   a contact on a flat cap has no curvature and keeps its position.
//!
//! In a pair ordered by kind (`kind(A) ≤ kind(B)`, the order of Genesis's geometry types) A is refined when smooth,
//! else B. Closed forms already produce these positions; the rule is applied to the contacts of MPR, GJK/EPA, the
//! plane's support point and the perturbation scheme.

use glam::DVec3;
use signorini_geometry::{Pose, Shape};

/// The contact position rebuilt from the smooth shape of the pair, if either is smooth (see the module docs).
/// `normal` points from B to A (simulator convention); `position` is the detected midpoint.
pub fn refine_smooth_position(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    normal: DVec3,
    penetration: f64,
    position: DVec3,
) -> DVec3 {
    surface_midpoint(a, pose_a, normal, penetration, position)
        .or_else(|| surface_midpoint(b, pose_b, -normal, penetration, position))
        .unwrap_or(position)
}

/// `s + ½ p n` for a smooth `shape` whose outward direction towards the other shape is `−n`; `None` for a shape that
/// is not smooth.
fn surface_midpoint(
    shape: &Shape,
    pose: &Pose,
    n: DVec3,
    penetration: f64,
    position: DVec3,
) -> Option<DVec3> {
    let c = pose.translation;
    let on_axis = |half_length: f64| {
        let axis = pose.transform_vector(DVec3::Z);
        let t = (position - c).dot(axis).clamp(-half_length, half_length);
        c + t * axis
    };
    Some(match shape {
        Shape::Sphere(s) => c - (s.radius() - 0.5 * penetration) * n,
        Shape::Ellipsoid(e) => {
            let r = e.semi_axes();
            let m = pose.inverse_transform_vector(n);
            let r2 = r * r;
            let denom = (r2 * m * m).element_sum().sqrt();
            if !(denom > 0.0) {
                return Some(position);
            }
            pose.transform_point(-(r2 * m) / denom) + 0.5 * penetration * n
        }
        Shape::Capsule(cap) => on_axis(cap.half_length()) - (cap.radius() - 0.5 * penetration) * n,
        Shape::Cylinder(cyl) => {
            if n.dot(pose.transform_vector(DVec3::Z)).abs() >= 0.5 {
                return Some(position);
            }
            on_axis(cyl.half_length()) - (cyl.radius() - 0.5 * penetration) * n
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use glam::DQuat;
    use signorini_geometry::{Capsule, Cuboid, Cylinder, Ellipsoid, Sphere};

    use super::*;

    /// A sphere resting on a box: the midpoint below its centre, whatever the detected position.
    #[test]
    fn sphere_position_is_below_the_centre() {
        let ball: Shape = Sphere::new(0.1).unwrap().into();
        let slab: Shape = Cuboid::new(DVec3::new(1.0, 1.0, 0.1)).unwrap().into();
        let pa = Pose::from_translation(DVec3::new(0.3, -0.2, 0.19));
        let pb = Pose::from_translation(DVec3::new(0.0, 0.0, 0.0));
        let p = refine_smooth_position(&ball, &pa, &slab, &pb, DVec3::Z, 0.01, DVec3::new(0.31, -0.2, 0.095));
        assert!((p - DVec3::new(0.3, -0.2, 0.095)).length() < 1e-15, "{p}");
    }

    /// The ellipsoid's point along `−n` maximises `−n·x` over its surface: checked against a dense sampling.
    #[test]
    fn ellipsoid_surface_point_is_the_support() {
        let axes = DVec3::new(0.3, 0.2, 0.1);
        let shape: Shape = Ellipsoid::new(axes).unwrap().into();
        let pose =
            Pose::new(DVec3::new(0.1, 0.2, 0.3), DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1))
                .unwrap();
        let n = DVec3::new(0.2, -0.5, 1.0).normalize();
        let p = refine_smooth_position(&shape, &pose, &shape, &pose, n, 0.0, DVec3::ZERO);
        let mut best = f64::NEG_INFINITY;
        for i in 0..400 {
            for j in 0..200 {
                let (u, v) =
                    (i as f64 / 400.0 * std::f64::consts::TAU, j as f64 / 199.0 * std::f64::consts::PI);
                let local = axes * DVec3::new(v.sin() * u.cos(), v.sin() * u.sin(), v.cos());
                best = best.max(-n.dot(pose.transform_point(local)));
            }
        }
        assert!((-n.dot(p) - best).abs() < 1e-4, "{} vs {best}", -n.dot(p));
        assert!(-n.dot(p) >= best - 1e-12);
    }

    /// A capsule lying on a box: the detected position's axial coordinate is kept, the radial bias removed; past an
    /// end it is clamped to the end sphere.
    #[test]
    fn capsule_keeps_the_axial_coordinate() {
        let cap: Shape = Capsule::new(0.05, 0.2).unwrap().into();
        let slab: Shape = Cuboid::new(DVec3::new(1.0, 1.0, 0.1)).unwrap().into();
        let pa = Pose::new(DVec3::new(0.0, 0.0, 0.149), DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2))
            .unwrap();
        let pb = Pose::IDENTITY;
        let p = refine_smooth_position(&cap, &pa, &slab, &pb, DVec3::Z, 0.001, DVec3::new(0.07, 0.003, 0.1));
        assert!((p - DVec3::new(0.07, 0.0, 0.0995)).length() < 1e-15, "{p}");
        let p = refine_smooth_position(&cap, &pa, &slab, &pb, DVec3::Z, 0.001, DVec3::new(0.5, 0.0, 0.1));
        assert!((p.x - 0.2).abs() < 1e-15, "{p}");
    }

    /// A cylinder standing on its cap keeps the detected position; lying on its barrel it is snapped like a capsule.
    /// B-side refinement (a box below a cylinder in pair order would be A) uses the flipped normal.
    #[test]
    fn cylinder_cap_and_barrel() {
        let cyl: Shape = Cylinder::new(0.05, 0.1).unwrap().into();
        let slab: Shape = Cuboid::new(DVec3::new(1.0, 1.0, 0.1)).unwrap().into();
        let standing = Pose::from_translation(DVec3::new(0.0, 0.0, 0.199));
        let detected = DVec3::new(0.03, 0.01, 0.0995);
        let p = refine_smooth_position(&cyl, &standing, &slab, &Pose::IDENTITY, DVec3::Z, 0.001, detected);
        assert_eq!(p, detected);
        let lying =
            Pose::new(DVec3::new(0.0, 0.0, 0.149), DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2))
                .unwrap();
        let p = refine_smooth_position(&slab, &Pose::IDENTITY, &cyl, &lying, -DVec3::Z, 0.001, detected);
        assert!((p - DVec3::new(0.0, 0.01, 0.0995)).length() < 1e-15, "{p}");
    }

    /// Two polytopes: nothing to refine.
    #[test]
    fn polytopes_keep_their_position() {
        let slab: Shape = Cuboid::new(DVec3::new(1.0, 1.0, 0.1)).unwrap().into();
        let x = DVec3::new(0.1, 0.2, 0.3);
        assert_eq!(
            refine_smooth_position(&slab, &Pose::IDENTITY, &slab, &Pose::IDENTITY, DVec3::Z, 0.1, x),
            x
        );
    }
}
