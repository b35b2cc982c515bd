//! Smooth dynamics per state: forward kinematics + CRBA `M` + sparse `Lᵀ D L` factorization + RNE bias, for the
//! 7-dof arm of `shared/scenes/arm.xml` (its hinges, link capsules at density 1000, armature, damping; the free box
//! and the static geoms left out) and a pile of 200 free boxes. Each stage is also timed alone.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{DQuat, DVec3};
use signorini_geometry::{Capsule, Cuboid, MassProperties, Pose, Shape, Sphere};
use signorini_model::{ActuatorSpec, BodySpec, Data, GeomSpec, InertialSpec, JointSpec, Model, ModelSpec};

/// A body's inertial from its geoms `(shape, pos)` (MuJoCo density 1000, geom frames along `+z`).
fn inertial(geoms: &[(Shape, DVec3)]) -> InertialSpec {
    let total = geoms.iter().fold(MassProperties::ZERO, |acc, (shape, pos)| {
        let props = MassProperties::from_density(shape, 1000.0).expect("mass");
        acc.combine(&props.transformed(&Pose::from_translation(*pos)))
    });
    let principal = total.principal();
    InertialSpec { mass: total.mass, inertia: principal.moments, pos: total.com, quat: principal.frame }
}

/// A capsule from `(0, 0, z0)` to `(0, 0, z1)` of radius `r`.
fn capsule_z(r: f64, z0: f64, z1: f64) -> (Shape, DVec3) {
    (Shape::from(Capsule::new(r, 0.5 * (z1 - z0)).expect("capsule")), DVec3::new(0.0, 0.0, 0.5 * (z0 + z1)))
}

/// One link of the arm: `(z offset from the parent, hinge axis, range, capsule radius, capsule z0, z1, kp)`.
type Link = (f64, DVec3, [f64; 2], f64, f64, f64, f64);

/// The serial arm of `arm.xml`: 7 hinges (z, y, z, y, z, y, z), position servos.
fn arm() -> Model {
    let links: [Link; 7] = [
        (0.5, DVec3::Z, [-2.9, 2.9], 0.045, 0.06, 0.08, 300.0),
        (0.1, DVec3::Y, [-1.8, 1.8], 0.04, 0.0, 0.18, 300.0),
        (0.2, DVec3::Z, [-2.9, 2.9], 0.04, 0.0, 0.13, 150.0),
        (0.15, DVec3::Y, [-2.6, 2.6], 0.035, 0.0, 0.18, 200.0),
        (0.2, DVec3::Z, [-2.9, 2.9], 0.03, 0.0, 0.08, 50.0),
        (0.1, DVec3::Y, [-2.0, 2.0], 0.03, 0.0, 0.08, 50.0),
        (0.1, DVec3::Z, [-0.4, 0.4], 0.025, 0.0, 0.06, 20.0),
    ];
    let mut spec = ModelSpec::default();
    let mut parent = 0;
    for (k, &(z, axis, range, r, z0, z1, kp)) in links.iter().enumerate() {
        let x = if k == 0 { -0.45 } else { 0.0 };
        let mut body = BodySpec::new(format!("l{}", k + 1), parent, DVec3::new(x, 0.0, z), DQuat::IDENTITY);
        let mut geoms = vec![capsule_z(r, z0, z1)];
        if k == 6 {
            geoms.push((Shape::from(Sphere::new(0.035).expect("sphere")), DVec3::new(0.0, 0.0, 0.1)));
        }
        body.inertial = inertial(&geoms);
        for (shape, pos) in geoms {
            body.geoms.push(GeomSpec { pos, ..GeomSpec::new(format!("g{}", k + 1), shape) });
        }
        body.joints.push(JointSpec {
            range: Some(range),
            armature: 0.05,
            damping: 2.0,
            ..JointSpec::hinge(format!("j{}", k + 1), axis)
        });
        parent = spec.add_body(body);
        spec.actuators.push(ActuatorSpec::position(format!("a{}", k + 1), k, kp, 0.0));
    }
    Model::compile(spec).expect("arm compiles")
}

/// 200 free boxes (half extents 0.05–0.1 m) on a 10 × 20 grid, 5 layers high.
fn pile() -> Model {
    let mut spec = ModelSpec::default();
    for i in 0..200 {
        let half = DVec3::new(0.05 + 0.005 * (i % 7) as f64, 0.06, 0.05 + 0.01 * (i % 5) as f64);
        let shape = Shape::from(Cuboid::new(half).expect("box"));
        let pos =
            DVec3::new((i % 10) as f64 * 0.25, ((i / 10) % 4) as f64 * 0.25, 0.2 + (i / 40) as f64 * 0.25);
        let mut body =
            BodySpec::new(format!("box{i}"), 0, pos, DQuat::from_axis_angle(DVec3::Z, 0.1 * i as f64));
        body.inertial = inertial(&[(shape.clone(), DVec3::ZERO)]);
        body.joints.push(JointSpec::free(format!("box{i}")));
        body.geoms.push(GeomSpec::new(format!("box{i}"), shape));
        spec.add_body(body);
    }
    Model::compile(spec).expect("pile compiles")
}

/// A moving state: every dof at a velocity of 0.1·(1 + index mod 5).
fn moving(model: &Model) -> Data {
    let mut data = Data::new(model);
    for (i, v) in data.qvel.iter_mut().enumerate() {
        *v = 0.1 * (1 + i % 5) as f64;
    }
    data
}

fn bench_model(c: &mut Criterion, name: &str, model: &Model) {
    let mut data = moving(model);
    let mut group = c.benchmark_group(format!("dynamics/{name}"));
    group.bench_function("fk_m_factor_bias", |b| {
        b.iter(|| {
            model.forward_kinematics(black_box(&mut data));
            model.mass_matrix(&mut data);
            model.factor_m(&mut data).expect("factor");
            model.bias(&mut data);
        })
    });
    model.forward_kinematics(&mut data);
    model.mass_matrix(&mut data);
    group.bench_function("fk", |b| b.iter(|| model.forward_kinematics(black_box(&mut data))));
    group.bench_function("crba", |b| b.iter(|| model.mass_matrix(black_box(&mut data))));
    group.bench_function("factor", |b| b.iter(|| model.factor_m(black_box(&mut data)).expect("factor")));
    group.bench_function("bias", |b| b.iter(|| model.bias(black_box(&mut data))));
    group.finish();
}

fn dynamics(c: &mut Criterion) {
    bench_model(c, "arm7", &arm());
    bench_model(c, "pile200", &pile());
}

criterion_group!(benches, dynamics);
criterion_main!(benches);
