//! Models built in code for the integrator tests.
#![allow(dead_code)]

use glam::{DQuat, DVec3};
use signorini_model::{ActuatorSpec, BodySpec, InertialSpec, JointSpec, Model, ModelSpec};

/// A point-like bob of mass 1 (small isotropic inertia) one metre below a hinge about `+y`, under gravity, with
/// the given joint damping.
pub fn pendulum(damping: f64) -> Model {
    let mut spec = ModelSpec::default();
    let mut bob = BodySpec::new("bob", 0, DVec3::ZERO, DQuat::IDENTITY);
    bob.inertial = InertialSpec {
        mass: 1.0,
        inertia: DVec3::splat(0.01),
        pos: DVec3::new(0.0, 0.0, -1.0),
        quat: DQuat::IDENTITY,
    };
    bob.joints.push(JointSpec { damping, ..JointSpec::hinge("swing", DVec3::Y) });
    spec.add_body(bob);
    Model::compile(spec).expect("pendulum compiles")
}

/// A free body with principal inertia `inertia` (mass 2) and no gravity.
pub fn free_body(inertia: DVec3) -> Model {
    let mut spec = ModelSpec { gravity: DVec3::ZERO, ..ModelSpec::default() };
    let mut body = BodySpec::new("body", 0, DVec3::ZERO, DQuat::IDENTITY);
    body.inertial = InertialSpec { mass: 2.0, inertia, pos: DVec3::ZERO, quat: DQuat::IDENTITY };
    body.joints.push(JointSpec::free("free"));
    spec.add_body(body);
    Model::compile(spec).expect("free body compiles")
}

/// A block of mass `mass` on a slide along `+x`, no gravity, joint damping `damping`, and (when `kv ≠ 0`) a
/// velocity servo of gain `kv` with gear `gear`
/// (when `kv ≠ 0`; a negative `kv` is a destabilising velocity feedback).
pub fn damped_slide(mass: f64, damping: f64, kv: f64, gear: f64) -> Model {
    let mut spec = ModelSpec { gravity: DVec3::ZERO, ..ModelSpec::default() };
    let mut block = BodySpec::new("block", 0, DVec3::ZERO, DQuat::IDENTITY);
    block.inertial =
        InertialSpec { mass, inertia: DVec3::splat(0.1), pos: DVec3::ZERO, quat: DQuat::IDENTITY };
    block.joints.push(JointSpec { damping, ..JointSpec::slide("x", DVec3::X) });
    spec.add_body(block);
    if kv != 0.0 {
        spec.actuators.push(ActuatorSpec { gear, ..ActuatorSpec::velocity("servo", 0, kv) });
    }
    Model::compile(spec).expect("slide compiles")
}

/// A two-link planar arm (hinges about `+y`), damped, with a position servo on the elbow.
pub fn damped_arm(damping: f64, kp: f64, kv: f64) -> Model {
    let mut spec = ModelSpec::default();
    let inertial = InertialSpec {
        mass: 1.5,
        inertia: DVec3::new(0.02, 0.03, 0.01),
        pos: DVec3::new(0.0, 0.0, -0.4),
        quat: DQuat::IDENTITY,
    };
    let mut upper = BodySpec::new("upper", 0, DVec3::ZERO, DQuat::IDENTITY);
    upper.inertial = inertial;
    upper.joints.push(JointSpec { damping, ..JointSpec::hinge("shoulder", DVec3::Y) });
    let upper = spec.add_body(upper);
    let mut lower = BodySpec::new("lower", upper, DVec3::new(0.0, 0.0, -0.8), DQuat::IDENTITY);
    lower.inertial = InertialSpec { mass: 0.7, ..inertial };
    lower.joints.push(JointSpec { damping: 0.5 * damping, ..JointSpec::hinge("elbow", DVec3::Y) });
    spec.add_body(lower);
    spec.actuators.push(ActuatorSpec { gear: 2.0, ..ActuatorSpec::position("elbow_servo", 1, kp, kv) });
    Model::compile(spec).expect("arm compiles")
}

/// Total energy (potential + kinetic) of the current state.
pub fn energy(model: &Model, data: &mut signorini_model::Data) -> f64 {
    model.forward(data).expect("forward");
    model.energy(data);
    data.energy_potential + data.energy_kinetic
}
