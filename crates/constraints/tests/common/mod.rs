//! Shared test helpers: a small articulated model with every constraint kind, contact sets built by hand, and a
//! dense view of the sparse rows.
#![allow(dead_code)]

use glam::{DQuat, DVec3};
use signorini_collision::contact_set::ContactSet;
use signorini_constraints::ConstraintRows;
use signorini_geometry::{Plane, Shape, Sphere};
use signorini_model::spec::{DEFAULT_SOLIMP, DEFAULT_SOLREF};
use signorini_model::{BodySpec, Data, EqualitySpec, GeomSpec, InertialSpec, JointSpec, Model, ModelSpec};

pub const RADIUS: f64 = 0.1;

fn inertial(mass: f64, offset: DVec3) -> InertialSpec {
    InertialSpec {
        mass,
        inertia: DVec3::new(0.02, 0.03, 0.04) * mass,
        pos: offset,
        quat: DQuat::from_rotation_z(0.3),
    }
}

/// Body indices of [`model`].
pub const LINK1: usize = 1;
pub const LINK2: usize = 2;
pub const BALL: usize = 3;

/// World with a floor; `link1` (hinge y, limited ±0.5, friction loss 0.3) → `link2` (hinge x, then slide z limited
/// to [−0.1, 0.1]); a free `ball` (sphere of radius [`RADIUS`]). Equalities: connect link2–ball, weld ball–link1,
/// joint slide = poly(hinge y).
pub fn spec() -> ModelSpec {
    let mut spec = ModelSpec { name: "constraints".into(), ..ModelSpec::default() };
    spec.bodies[0].geoms.push(GeomSpec::new("floor", Shape::from(Plane::new())));

    let mut link1 = BodySpec::new("link1", 0, DVec3::new(0.0, 0.0, 1.0), DQuat::IDENTITY);
    link1.inertial = inertial(1.0, DVec3::new(0.2, 0.0, 0.0));
    let mut h1 = JointSpec::hinge("h1", DVec3::Y);
    h1.range = Some([-0.5, 0.5]);
    h1.frictionloss = 0.3;
    link1.joints.push(h1);
    spec.add_body(link1);

    let mut link2 = BodySpec::new("link2", LINK1, DVec3::new(0.5, 0.0, 0.0), DQuat::from_rotation_x(0.2));
    link2.inertial = inertial(0.7, DVec3::new(0.1, 0.05, 0.0));
    link2.joints.push(JointSpec::hinge("h2", DVec3::X));
    let mut s = JointSpec::slide("s", DVec3::new(0.0, 0.3, 1.0));
    s.range = Some([-0.1, 0.1]);
    link2.joints.push(s);
    spec.add_body(link2);

    let mut ball = BodySpec::new("ball", 0, DVec3::new(1.0, 0.5, 0.5), DQuat::IDENTITY);
    ball.inertial = inertial(2.0, DVec3::ZERO);
    ball.joints.push(JointSpec::free("free"));
    ball.geoms.push(GeomSpec::new("ball", Shape::from(Sphere::new(RADIUS).expect("sphere"))));
    spec.add_body(ball);

    spec.equalities.push(EqualitySpec::Connect {
        name: "connect".into(),
        body1: LINK2,
        body2: BALL,
        anchor: DVec3::new(0.1, 0.2, -0.1),
        solref: DEFAULT_SOLREF,
        solimp: DEFAULT_SOLIMP,
    });
    spec.equalities.push(EqualitySpec::Weld {
        name: "weld".into(),
        body1: BALL,
        body2: LINK1,
        anchor: DVec3::new(0.0, 0.1, 0.0),
        relpose: None,
        torquescale: 0.7,
        solref: DEFAULT_SOLREF,
        solimp: DEFAULT_SOLIMP,
    });
    spec.equalities.push(EqualitySpec::Joint {
        name: "joint".into(),
        joint1: 2,
        joint2: Some(0),
        polycoef: [0.01, 0.5, 0.2, -0.3, 0.1],
        solref: DEFAULT_SOLREF,
        solimp: DEFAULT_SOLIMP,
    });
    spec
}

pub fn model() -> Model {
    Model::compile(spec()).expect("model compiles")
}

/// A state away from `qpos0`: both limited joints beyond a limit (h1 above 0.5, slide below −0.1), the ball
/// displaced and rotated; a generic velocity.
pub fn state(model: &Model) -> Data {
    let mut d = Data::new(model);
    d.qpos[0] = 0.6;
    d.qpos[1] = -0.4;
    d.qpos[2] = -0.15;
    d.qpos[3] += 0.05;
    d.qpos[4] -= 0.03;
    d.qpos[5] = 0.3;
    let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.2, 0.5);
    d.qpos[6..10].copy_from_slice(&[q.w, q.x, q.y, q.z]);
    let v = [0.7, -0.4, 0.3, 0.2, -0.5, 0.8, 0.3, -0.6, 0.9];
    d.qvel.copy_from_slice(&v);
    model.forward_kinematics(&mut d);
    d
}

/// The state of `d` moved by `h·qvel` (FK done).
pub fn advanced(model: &Model, d: &Data, h: f64) -> Data {
    let mut e = d.clone();
    model.integrate_qpos(&mut e.qpos, &d.qvel, h);
    model.forward_kinematics(&mut e);
    e
}

/// Appends one contact with the given pair, point, normal (B → A) and penetration, default mixed parameters.
pub fn push_contact(
    cs: &mut ContactSet,
    (link_a, link_b): (usize, usize),
    position: DVec3,
    normal: DVec3,
    penetration: f64,
    condim: u8,
) {
    cs.geom_a.push(0);
    cs.geom_b.push(0);
    cs.link_a.push(link_a);
    cs.link_b.push(link_b);
    cs.position.push(position);
    cs.normal.push(normal);
    cs.penetration.push(penetration);
    cs.friction.push(0.8);
    cs.friction_torsional.push(0.02);
    cs.friction_rolling.push(0.001);
    cs.solref.push(DEFAULT_SOLREF);
    cs.solimp.push(DEFAULT_SOLIMP);
    cs.condim.push(condim);
    cs.margin.push(0.0);
    cs.gap.push(0.0);
    cs.adhesion.push(0.0);
}

/// Row `i` as a dense vector over the `nv` dofs.
pub fn dense(rows: &ConstraintRows, i: usize, nv: usize) -> Vec<f64> {
    let mut out = vec![0.0; nv];
    let (dofs, vals) = rows.jacobian_row(i);
    for (&k, v) in dofs.iter().zip(vals) {
        out[k as usize] += v;
    }
    out
}

pub fn assert_close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol * (1.0 + a.abs().max(b.abs())), "{what}: {a} vs {b}");
}
