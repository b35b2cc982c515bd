//! Closed-form checks on small models: a hinge pendulum (kinematics, `M`, gravity bias, springs and dampers,
//! actuators with clamping, energies), a ball spring, a slide, and the constants computed at `qpos0`
//! (invweights, meaninertia, `dof_length` as in MuJoCo's `SetConstTest.DofLength`).

use glam::{DQuat, DVec3};
use signorini_geometry::{Shape, Sphere};
use signorini_model::{
    ActuatorSpec, BodySpec, Data, GeomSpec, InertialSpec, JointKind, JointSpec, Model, ModelSpec,
};

const G: f64 = 9.81;
const MASS: f64 = 2.0;
const ARM: f64 = 0.5;
const IYY: f64 = 0.03;
const ARMATURE: f64 = 0.1;
const DAMPING: f64 = 0.7;
const STIFFNESS: f64 = 3.0;
const SPRINGREF: f64 = 0.2;

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} vs {b}");
}

/// A hinge about `+y` at the origin, centre of mass at `(ARM, 0, 0)`.
fn pendulum(actuators: Vec<ActuatorSpec>) -> Model {
    let mut spec = ModelSpec::default();
    let mut body = BodySpec::new("link", 0, DVec3::ZERO, DQuat::IDENTITY);
    body.inertial = InertialSpec {
        mass: MASS,
        inertia: DVec3::new(0.02, IYY, 0.04),
        pos: DVec3::new(ARM, 0.0, 0.0),
        quat: DQuat::IDENTITY,
    };
    body.joints.push(JointSpec {
        armature: ARMATURE,
        damping: DAMPING,
        stiffness: STIFFNESS,
        springref: SPRINGREF,
        ..JointSpec::hinge("hinge", DVec3::Y)
    });
    spec.add_body(body);
    spec.actuators = actuators;
    Model::compile(spec).expect("pendulum compiles")
}

#[test]
fn pendulum_dynamics_are_closed_form() {
    let model = pendulum(Vec::new());
    let mut d = Data::new(&model);
    let (q, qd) = (0.4, -1.3);
    d.qpos[0] = q;
    d.qvel[0] = qd;
    model.forward(&mut d).expect("forward");
    model.energy(&mut d);
    let com = DVec3::new(ARM * q.cos(), 0.0, -ARM * q.sin());
    assert!((d.xipos[1] - com).length() < 1e-15);
    let inertia = IYY + MASS * ARM * ARM + ARMATURE;
    close(d.qm[0], inertia);
    close(d.qfrc_bias[0], -MASS * G * ARM * q.cos());
    close(d.qfrc_passive[0], -STIFFNESS * (q - SPRINGREF) - DAMPING * qd);
    close(d.qacc_smooth[0], (d.qfrc_passive[0] - d.qfrc_bias[0]) / inertia);
    close(d.energy_potential, MASS * G * com.z + 0.5 * STIFFNESS * (q - SPRINGREF).powi(2));
    close(d.energy_kinetic, 0.5 * inertia * qd * qd);
    close(model.dof_invweight0[0], 1.0 / inertia);
    close(model.meaninertia, inertia);
}

/// `body_invweight0 = (tr(A_lin)/3, tr(A_rot)/3)` with `A = J M⁻¹ Jᵀ` at the centre of mass: a hinge about `y` moves
/// its centre of mass at `(ARM, 0, 0)` along `z` alone, so `(ARM²/I, 1/I)/3`. With the centre of mass on the axis the
/// translational part is 0, which MuJoCo 4.0 keeps (`cube_3x3x3.xml`'s face cubelets: their frictionless contacts
/// get `R ∝ tran`) and Genesis's rule replaces by the rotational part.
#[test]
fn body_invweights_are_closed_form_and_a_degenerate_part_is_kept() {
    let model = pendulum(Vec::new());
    let inertia = IYY + MASS * ARM * ARM + ARMATURE;
    close(model.body_invweight0[1][0], ARM * ARM / inertia / 3.0);
    close(model.body_invweight0[1][1], 1.0 / inertia / 3.0);

    let mut spec = ModelSpec::default();
    let mut body = BodySpec::new("wheel", 0, DVec3::ZERO, DQuat::IDENTITY);
    body.inertial = InertialSpec {
        mass: MASS,
        inertia: DVec3::new(0.02, IYY, 0.04),
        pos: DVec3::ZERO,
        quat: DQuat::IDENTITY,
    };
    body.joints.push(JointSpec { armature: ARMATURE, ..JointSpec::hinge("axle", DVec3::Y) });
    spec.add_body(body);
    let mut wheel = Model::compile(spec).unwrap();
    let rot = 1.0 / (IYY + ARMATURE) / 3.0;
    assert_eq!(wheel.body_invweight0[1][0], 0.0);
    close(wheel.body_invweight0[1][1], rot);
    wheel.fill_degenerate_invweights();
    close(wheel.body_invweight0[1][0], rot);
    close(wheel.body_invweight0[1][1], rot);
}

#[test]
fn actuators_apply_gain_bias_and_clamping() {
    let position =
        ActuatorSpec { ctrlrange: Some([-1.0, 1.0]), ..ActuatorSpec::position("servo", 0, 10.0, 1.0) };
    let velocity = ActuatorSpec { forcerange: Some([-0.5, 0.5]), ..ActuatorSpec::velocity("damper", 0, 5.0) };
    let general = ActuatorSpec::general("affine", 0, 1.5, 2.0, [0.25, -1.0, 0.5]);
    let model = pendulum(vec![ActuatorSpec::motor("motor", 0, 2.0), position, velocity, general]);
    let mut d = Data::new(&model);
    let (q, qd) = (0.3, 0.8);
    d.qpos[0] = q;
    d.qvel[0] = qd;
    d.ctrl.copy_from_slice(&[0.7, 3.0, 0.1, -0.4]);
    model.forward_kinematics(&mut d);
    model.actuation(&mut d);
    let forces = [
        0.7,
        10.0 * 1.0 - 10.0 * q - qd,
        (5.0 * 0.1 - 5.0 * qd).clamp(-0.5, 0.5),
        2.0 * -0.4 + 0.25 - 1.0 * (1.5 * q) + 0.5 * (1.5 * qd),
    ];
    for (a, b) in d.actuator_force.iter().zip(&forces) {
        close(*a, *b);
    }
    close(d.actuator_length[3], 1.5 * q);
    close(d.actuator_velocity[3], 1.5 * qd);
    close(d.qfrc_actuator[0], 2.0 * forces[0] + forces[1] + forces[2] + 1.5 * forces[3]);
}

#[test]
fn ball_spring_pulls_back_along_the_rotation_vector() {
    let mut spec = ModelSpec::default();
    let mut body = BodySpec::new("ball", 0, DVec3::new(0.0, 0.0, 1.0), DQuat::IDENTITY);
    body.inertial = InertialSpec { mass: 1.0, inertia: DVec3::splat(0.1), ..InertialSpec::default() };
    body.joints.push(JointSpec { stiffness: 2.0, ..JointSpec::ball("ball") });
    spec.add_body(body);
    let model = Model::compile(spec).expect("compiles");
    let mut d = Data::new(&model);
    let axis = DVec3::new(1.0, 2.0, -0.5).normalize();
    let q = DQuat::from_axis_angle(axis, 0.6);
    d.qpos.copy_from_slice(&[q.w, q.x, q.y, q.z]);
    model.forward_kinematics(&mut d);
    model.passive(&mut d);
    model.energy(&mut d);
    for k in 0..3 {
        close(d.qfrc_passive[k], -2.0 * 0.6 * axis[k]);
    }
    close(d.energy_potential, 0.5 * 2.0 * 0.36 + G * 1.0);
}

#[test]
fn slide_moves_along_its_world_axis() {
    let mut spec = ModelSpec::default();
    let quat = DQuat::from_axis_angle(DVec3::Z, 0.5);
    let mut body = BodySpec::new("carriage", 0, DVec3::new(1.0, 0.0, 0.0), quat);
    body.inertial = InertialSpec { mass: 3.0, inertia: DVec3::splat(0.1), ..InertialSpec::default() };
    body.joints.push(JointSpec { reference: 0.1, ..JointSpec::slide("rail", DVec3::X) });
    spec.add_body(body);
    let model = Model::compile(spec).expect("compiles");
    let mut d = Data::new(&model);
    d.qpos[0] = 0.6;
    model.forward(&mut d).expect("forward");
    let expected = DVec3::new(1.0, 0.0, 0.0) + quat * DVec3::X * 0.5;
    assert!((d.xpos[1] - expected).length() < 1e-15);
    close(d.qm[0], 3.0);
    close(d.qfrc_bias[0], 0.0);
}

#[test]
fn free_body_invweights_and_meaninertia() {
    let (mass, inertia) = (2.5, DVec3::new(0.2, 0.3, 0.5));
    let mut spec = ModelSpec::default();
    let mut body =
        BodySpec::new("free", 0, DVec3::new(0.3, -0.2, 1.0), DQuat::from_axis_angle(DVec3::X, 0.7));
    body.inertial = InertialSpec { mass, inertia, ..InertialSpec::default() };
    body.joints.push(JointSpec::free("free"));
    spec.add_body(body);
    let model = Model::compile(spec).expect("compiles");
    let rot = (1.0 / inertia).element_sum() / 3.0;
    close(model.body_invweight0[1][0], 1.0 / mass);
    close(model.body_invweight0[1][1], rot);
    for k in 0..3 {
        close(model.dof_invweight0[k], 1.0 / mass);
        close(model.dof_invweight0[3 + k], rot);
    }
    close(model.meaninertia, (3.0 * mass + inertia.element_sum()) / 6.0);
    assert_eq!(model.body_invweight0[0], [0.0, 0.0]);
}

/// MuJoCo `SetConstTest.DofLength`: one body per joint type, each with a sphere of size 2, 3, 4, 5 at its origin.
#[test]
fn dof_length_matches_mujoco() {
    let mut spec = ModelSpec::default();
    for (name, kind, radius) in [
        ("B1", JointKind::Slide, 2.0),
        ("B2", JointKind::Hinge, 3.0),
        ("B3", JointKind::Ball, 4.0),
        ("B4", JointKind::Free, 5.0),
    ] {
        let mut body = BodySpec::new(name, 0, DVec3::ZERO, DQuat::IDENTITY);
        let r: f64 = radius;
        let mass = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        body.inertial =
            InertialSpec { mass, inertia: DVec3::splat(0.4 * mass * r * r), ..InertialSpec::default() };
        body.joints.push(JointSpec::new(name, kind));
        body.geoms.push(GeomSpec::new(name, Shape::from(Sphere::new(r).expect("sphere"))));
        spec.add_body(body);
    }
    let model = Model::compile(spec).expect("compiles");
    let expected = [1.0, 3.0, 4.0, 4.0, 4.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.0];
    assert_eq!(model.dof_length.len(), expected.len());
    for (a, b) in model.dof_length.iter().zip(&expected) {
        close(*a, *b);
    }
}

#[test]
fn keyframes_reset_the_state() {
    let mut spec = ModelSpec::default();
    let mut body = BodySpec::new("link", 0, DVec3::ZERO, DQuat::IDENTITY);
    body.inertial.mass = 1.0;
    body.inertial.inertia = DVec3::splat(0.1);
    body.joints.push(JointSpec::hinge("hinge", DVec3::Z));
    spec.add_body(body);
    spec.actuators.push(ActuatorSpec::motor("m", 0, 1.0));
    spec.keyframes.push(signorini_model::KeyframeSpec {
        name: "k".into(),
        time: 1.5,
        qpos: vec![0.3],
        qvel: vec![],
        ctrl: vec![0.9],
        act: vec![],
        mpos: vec![],
        mquat: vec![],
    });
    let model = Model::compile(spec).expect("compiles");
    let mut d = Data::new(&model);
    d.qvel[0] = 4.0;
    d.reset_to_keyframe(&model, 0).expect("keyframe 0");
    assert_eq!((d.time, d.qpos[0], d.qvel[0], d.ctrl[0]), (1.5, 0.3, 0.0, 0.9));
    assert!(d.reset_to_keyframe(&model, 1).is_err());
}
