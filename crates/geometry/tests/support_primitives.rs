//! Closed-form support functions against brute force over densely sampled surface points.
//!
//! For every direction `d`: the support point lies on the surface, its support value `d·s(d)` is at least the value of
//! every sample, and at most the best sample plus the sampling resolution.

use proptest::prelude::*;
use signorini_geometry::{
    Capsule, Cuboid, Cylinder, DQuat, DVec3, Ellipsoid, Pose, Shape, Sphere, SupportMap,
};
use std::f64::consts::PI;

const N: usize = 160;

/// Points on the unit sphere on an `N × N` latitude/longitude grid (poles included).
fn unit_sphere() -> Vec<DVec3> {
    let mut out = Vec::new();
    for i in 0..=N {
        let phi = PI * i as f64 / N as f64;
        for j in 0..N {
            let theta = 2.0 * PI * j as f64 / N as f64;
            out.push(DVec3::new(phi.sin() * theta.cos(), phi.sin() * theta.sin(), phi.cos()));
        }
    }
    out
}

fn surface_samples(shape: &Shape) -> Vec<DVec3> {
    match shape {
        Shape::Sphere(s) => unit_sphere().into_iter().map(|p| p * s.radius()).collect(),
        Shape::Ellipsoid(s) => unit_sphere().into_iter().map(|p| p * s.semi_axes()).collect(),
        Shape::Capsule(s) => unit_sphere()
            .into_iter()
            .map(|p| p * s.radius() + DVec3::new(0.0, 0.0, s.half_length().copysign(p.z)))
            .collect(),
        Shape::Cylinder(s) => {
            let mut out = Vec::new();
            for j in 0..N {
                let theta = 2.0 * PI * j as f64 / N as f64;
                for k in 0..=8 {
                    let rim = DVec3::new(theta.cos(), theta.sin(), 0.0) * s.radius();
                    out.push(rim + DVec3::Z * s.half_length() * (k as f64 / 4.0 - 1.0));
                }
            }
            out
        }
        Shape::Box(b) => {
            let h = b.half_extents();
            let mut out = Vec::new();
            let m = 12;
            for i in 0..=m {
                for j in 0..=m {
                    let u = 2.0 * i as f64 / m as f64 - 1.0;
                    let v = 2.0 * j as f64 / m as f64 - 1.0;
                    for s in [-1.0, 1.0] {
                        out.push(DVec3::new(s, u, v) * h);
                        out.push(DVec3::new(u, s, v) * h);
                        out.push(DVec3::new(u, v, s) * h);
                    }
                }
            }
            out
        }
        _ => unreachable!("only primitives are sampled"),
    }
}

/// Implicit "inside" value: 0 on the surface, < 0 inside.
fn surface_residual(shape: &Shape, p: DVec3) -> f64 {
    match shape {
        Shape::Sphere(s) => p.length() - s.radius(),
        Shape::Ellipsoid(s) => ((p / s.semi_axes()).length() - 1.0) * s.semi_axes().min_element(),
        Shape::Capsule(s) => {
            let z = p.z.clamp(-s.half_length(), s.half_length());
            (p - DVec3::new(0.0, 0.0, z)).length() - s.radius()
        }
        Shape::Cylinder(s) => {
            let r = (p.x * p.x + p.y * p.y).sqrt() - s.radius();
            let z = p.z.abs() - s.half_length();
            r.max(z)
        }
        Shape::Box(b) => (p.abs() - b.half_extents()).max_element(),
        _ => unreachable!(),
    }
}

/// Bound on how far the best sample can be below the true support value: the sample spacing times the size.
fn sampling_slack(shape: &Shape) -> f64 {
    let size = shape.local_aabb().half_extents().length();
    size * (1.0 - (2.0 * PI / N as f64).cos()) + 1e-12 * size
}

fn shape_strategy() -> impl Strategy<Value = Shape> {
    let len = 0.05f64..3.0;
    prop_oneof![
        len.clone().prop_map(|r| Shape::from(Sphere::new(r).unwrap())),
        (len.clone(), len.clone()).prop_map(|(r, h)| Shape::from(Capsule::new(r, h).unwrap())),
        (len.clone(), len.clone()).prop_map(|(r, h)| Shape::from(Cylinder::new(r, h).unwrap())),
        (len.clone(), len.clone(), len.clone())
            .prop_map(|(a, b, c)| Shape::from(Cuboid::new(DVec3::new(a, b, c)).unwrap())),
        (len.clone(), len.clone(), len)
            .prop_map(|(a, b, c)| Shape::from(Ellipsoid::new(DVec3::new(a, b, c)).unwrap())),
    ]
}

fn direction_strategy() -> impl Strategy<Value = DVec3> {
    prop_oneof![
        4 => (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0).prop_map(|(x, y, z)| DVec3::new(x, y, z)),
        1 => (0usize..3, prop::bool::ANY).prop_map(|(k, neg)| {
            let mut d = DVec3::ZERO;
            d[k] = if neg { -1.0 } else { 1.0 };
            d
        }),
    ]
}

fn check_support(shape: &Shape, samples: &[DVec3], d: DVec3) -> Result<(), TestCaseError> {
    let s = shape.local_support(d).unwrap();
    let size = shape.local_aabb().half_extents().length();
    prop_assert!(
        surface_residual(shape, s).abs() <= 1e-12 * size,
        "support {s} not on the surface of {shape:?}"
    );
    if d.length() == 0.0 {
        return Ok(());
    }
    let dn = d.normalize();
    let h = dn.dot(s);
    let best = samples.iter().map(|p| dn.dot(*p)).fold(f64::NEG_INFINITY, f64::max);
    prop_assert!(h >= best - 1e-12 * size, "support value {h} below a sample {best} for {shape:?} along {d}");
    prop_assert!(
        h <= best + sampling_slack(shape),
        "support value {h} too far above samples {best} for {shape:?}"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn support_is_the_maximiser(shape in shape_strategy(), dirs in prop::collection::vec(direction_strategy(), 8)) {
        let samples = surface_samples(&shape);
        for d in dirs {
            check_support(&shape, &samples, d)?;
        }
    }

    #[test]
    fn world_support_is_posed_local_support(
        shape in shape_strategy(),
        d in direction_strategy(),
        t in (-5.0f64..5.0, -5.0f64..5.0, -5.0f64..5.0),
        axis in (-1.0f64..1.0, -1.0f64..1.0, 0.1f64..1.0),
        angle in -3.0f64..3.0,
    ) {
        let pose = Pose::new(DVec3::new(t.0, t.1, t.2),
            DQuat::from_axis_angle(DVec3::new(axis.0, axis.1, axis.2).normalize(), angle)).unwrap();
        let w = shape.world_support(&pose, d).unwrap();
        let samples: Vec<DVec3> = surface_samples(&shape).into_iter().map(|p| pose.transform_point(p)).collect();
        if d.length() > 0.0 {
            let dn = d.normalize();
            let best = samples.iter().map(|p| dn.dot(*p)).fold(f64::NEG_INFINITY, f64::max);
            prop_assert!(dn.dot(w) >= best - 1e-9);
            prop_assert!(dn.dot(w) <= best + sampling_slack(&shape) + 1e-9);
        }
    }
}

#[test]
fn ties_are_deterministic() {
    let b = Cuboid::new(DVec3::new(1.0, 2.0, 3.0)).unwrap();
    assert_eq!(b.local_support(DVec3::ZERO), DVec3::new(1.0, 2.0, 3.0));
    assert_eq!(b.local_support(DVec3::new(-0.0, -1.0, 0.0)), DVec3::new(1.0, -2.0, 3.0));
    assert_eq!(Cuboid::support_tie_count(DVec3::new(0.0, 0.0, 1.0)), 4);
    assert_eq!(Cuboid::support_tie_count(DVec3::new(1.0, 0.0, 1.0)), 2);
    assert_eq!(Cuboid::support_tie_count(DVec3::new(1.0, -2.0, 1.0)), 1);
    let c = Capsule::new(0.5, 1.0).unwrap();
    assert_eq!(c.local_support(DVec3::X), DVec3::new(0.5, 0.0, 1.0));
    let cyl = Cylinder::new(0.5, 1.0).unwrap();
    assert_eq!(cyl.local_support(-DVec3::Z), DVec3::new(0.0, 0.0, -1.0));
    assert_eq!(Sphere::new(2.0).unwrap().local_support(DVec3::ZERO), DVec3::new(0.0, 0.0, 2.0));
}

#[test]
fn extreme_scales() {
    for scale in [1e-6, 1.0, 1e6] {
        let shapes: Vec<Shape> = vec![
            Sphere::new(scale).unwrap().into(),
            Capsule::new(scale, 2.0 * scale).unwrap().into(),
            Cylinder::new(scale, 0.5 * scale).unwrap().into(),
            Cuboid::new(DVec3::new(1.0, 2.0, 3.0) * scale).unwrap().into(),
            Ellipsoid::new(DVec3::new(1.0, 2.0, 3.0) * scale).unwrap().into(),
        ];
        for s in &shapes {
            let samples = surface_samples(s);
            for d in
                [DVec3::new(0.3, -0.2, 0.9), DVec3::new(-1e-300, 1e-300, 0.0), DVec3::new(1e300, 0.0, -1e300)]
            {
                let p = s.local_support(d).unwrap();
                assert!(p.is_finite(), "{s:?} along {d}: {p}");
                check_support(s, &samples, d).unwrap();
            }
        }
    }
}

#[test]
fn unbounded_shapes_have_no_support() {
    let plane: Shape = signorini_geometry::Plane::new().into();
    assert!(plane.local_support(DVec3::Z).is_err());
}
