//! `Model::compile` rejects every malformed spec with a typed error that names the object at fault.

use glam::{DQuat, DVec3};
use signorini_geometry::{Shape, Sphere};
use signorini_model::spec::{DEFAULT_SOLIMP, DEFAULT_SOLREF};
use signorini_model::{
    ActuatorSpec, BodySpec, ContactPairSpec, EqualitySpec, GeomSpec, InertialSpec, JointKind, JointSpec,
    KeyframeSpec, Model, ModelError, ModelSpec,
};

/// world → "arm" (hinge "elbow" about z, mass 1 off the axis) → "hand" (welded, mass 0.5, one sphere geom).
fn valid() -> ModelSpec {
    let mut spec = ModelSpec::default();
    let mut arm = BodySpec::new("arm", 0, DVec3::ZERO, DQuat::IDENTITY);
    arm.inertial = InertialSpec {
        mass: 1.0,
        inertia: DVec3::splat(0.01),
        pos: DVec3::new(0.3, 0.0, 0.0),
        quat: DQuat::IDENTITY,
    };
    arm.joints.push(JointSpec::hinge("elbow", DVec3::Z));
    spec.add_body(arm);
    let mut hand = BodySpec::new("hand", 1, DVec3::new(0.5, 0.0, 0.0), DQuat::IDENTITY);
    hand.inertial.mass = 0.5;
    hand.inertial.inertia = DVec3::splat(0.001);
    hand.geoms.push(GeomSpec::new("palm", Shape::from(Sphere::new(0.05).expect("sphere"))));
    spec.add_body(hand);
    spec
}

fn rejects(spec: ModelSpec, names: &str) -> ModelError {
    let err = Model::compile(spec).expect_err("must be rejected");
    let text = err.to_string();
    assert!(text.contains(names), "`{text}` should name {names}");
    err
}

#[test]
fn the_valid_spec_compiles() {
    let model = Model::compile(valid()).expect("valid");
    assert_eq!((model.nbody, model.njnt, model.nq, model.nv, model.ngeom), (3, 1, 1, 1, 1));
    assert_eq!(model.body_weldid, vec![0, 1, 1]);
    assert_eq!(model.body_lastdof, vec![None, Some(0), Some(0)]);
}

#[test]
fn world_must_come_first_and_be_inert() {
    let mut spec = valid();
    spec.bodies.clear();
    assert!(matches!(rejects(spec, "world"), ModelError::InvalidWorld { .. }));
    let mut spec = valid();
    spec.bodies[0].joints.push(JointSpec::hinge("j", DVec3::Z));
    assert!(matches!(rejects(spec, "world"), ModelError::InvalidWorld { .. }));
    let mut spec = valid();
    spec.bodies[0].inertial.mass = 1.0;
    assert!(matches!(rejects(spec, "world"), ModelError::InvalidWorld { .. }));
}

#[test]
fn parents_precede_children() {
    let mut spec = valid();
    spec.bodies[2].parent = 2;
    assert!(matches!(rejects(spec, "'hand'"), ModelError::BadParent { parent: 2, .. }));
}

#[test]
fn masses_and_inertias_are_checked() {
    let mut spec = valid();
    spec.bodies[1].inertial.mass = -1.0;
    assert!(matches!(rejects(spec, "'arm'"), ModelError::Negative { parameter: "mass", .. }));
    let mut spec = valid();
    spec.bodies[1].inertial.inertia.y = f64::NAN;
    assert!(matches!(rejects(spec, "'arm'"), ModelError::NonFinite { parameter: "inertia", .. }));
    let mut spec = valid();
    spec.bodies[1].inertial.inertia = DVec3::new(1.0, 0.1, 0.1);
    assert!(matches!(rejects(spec, "'arm'"), ModelError::InertiaTriangle { .. }));
    let mut spec = valid();
    spec.bodies[1].inertial.mass = 0.0;
    spec.bodies[2].inertial.mass = 0.0;
    assert!(matches!(rejects(spec, "'arm'"), ModelError::MasslessSubtree { .. }));
}

#[test]
fn a_dof_that_moves_no_inertia_is_singular() {
    let mut spec = valid();
    spec.bodies.truncate(2);
    spec.bodies[1].inertial = InertialSpec { mass: 1.0, ..InertialSpec::default() };
    assert!(matches!(rejects(spec, "'elbow'"), ModelError::SingularInertia { dof: 0, .. }));
}

#[test]
fn frames_must_be_finite_unit_poses() {
    let mut spec = valid();
    spec.bodies[2].pos.x = f64::INFINITY;
    assert!(matches!(rejects(spec, "'hand'"), ModelError::NonFinite { parameter: "pos", .. }));
    let mut spec = valid();
    spec.bodies[2].quat = DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0);
    assert!(matches!(rejects(spec, "'hand'"), ModelError::NotUnitQuaternion { .. }));
    let mut spec = valid();
    spec.bodies[2].geoms[0].quat = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.5);
    assert!(matches!(rejects(spec, "'palm'"), ModelError::NotUnitQuaternion { .. }));
}

#[test]
fn joints_are_checked() {
    let mut spec = valid();
    spec.bodies[1].joints[0].axis = DVec3::ZERO;
    assert!(matches!(rejects(spec, "'elbow'"), ModelError::ZeroAxis { .. }));
    let mut spec = valid();
    spec.bodies[1].joints[0].damping = -0.5;
    assert!(matches!(rejects(spec, "'elbow'"), ModelError::Negative { parameter: "damping", .. }));
    let mut spec = valid();
    spec.bodies[1].joints[0].range = Some([1.0, -1.0]);
    assert!(matches!(rejects(spec, "'elbow'"), ModelError::InvalidRange { .. }));
    let mut spec = valid();
    spec.bodies[1].joints[0] = JointSpec { range: Some([0.1, 1.0]), ..JointSpec::ball("shoulder") };
    assert!(matches!(rejects(spec, "'shoulder'"), ModelError::InvalidRange { .. }));
    let mut spec = valid();
    spec.bodies[2].joints.push(JointSpec::free("loose"));
    assert!(matches!(rejects(spec, "'loose'"), ModelError::FreeJointPlacement { .. }));
    let mut spec = valid();
    spec.bodies[1].joints.push(JointSpec::free("extra"));
    assert!(matches!(rejects(spec, "'extra'"), ModelError::FreeJointPlacement { .. }));
}

#[test]
fn geoms_are_checked() {
    let mut spec = valid();
    spec.bodies[2].geoms[0].condim = 2;
    assert!(matches!(rejects(spec, "'palm'"), ModelError::InvalidCondim { condim: 2, .. }));
    let mut spec = valid();
    spec.bodies[2].geoms[0].friction[0] = -1.0;
    assert!(matches!(rejects(spec, "'palm'"), ModelError::Negative { parameter: "friction", .. }));
}

#[test]
fn actuators_are_checked() {
    let mut spec = valid();
    spec.actuators.push(ActuatorSpec::motor("drive", 3, 1.0));
    assert!(matches!(rejects(spec, "'drive'"), ModelError::IndexOutOfRange { index: 3, len: 1, .. }));
    let mut spec = valid();
    spec.actuators.push(ActuatorSpec { ctrlrange: Some([1.0, 1.0]), ..ActuatorSpec::motor("drive", 0, 1.0) });
    assert!(matches!(rejects(spec, "'drive'"), ModelError::InvalidRange { parameter: "ctrlrange", .. }));
    let mut spec = valid();
    spec.bodies[1].joints[0] = JointSpec::new("shoulder", JointKind::Ball);
    spec.actuators.push(ActuatorSpec::motor("drive", 0, 1.0));
    assert!(matches!(rejects(spec, "'drive'"), ModelError::NotScalarJoint { joint: 0, .. }));
}

#[test]
fn references_are_checked() {
    let mut spec = valid();
    spec.equalities.push(EqualitySpec::Connect {
        name: "pin".into(),
        body1: 1,
        body2: 9,
        anchor: DVec3::ZERO,
        solref: DEFAULT_SOLREF,
        solimp: DEFAULT_SOLIMP,
    });
    assert!(matches!(rejects(spec, "'pin'"), ModelError::IndexOutOfRange { parameter: "body2", .. }));
    let mut spec = valid();
    spec.contact_excludes.push((0, 7));
    assert!(matches!(rejects(spec, "contact exclude"), ModelError::IndexOutOfRange { .. }));
    let mut spec = valid();
    spec.contact_pairs.push(ContactPairSpec {
        name: "touch".into(),
        geom1: (2, 0),
        geom2: (1, 0),
        condim: 3,
        friction: [1.0, 1.0, 0.005, 0.0001, 0.0001],
        solref: DEFAULT_SOLREF,
        solimp: DEFAULT_SOLIMP,
        margin: 0.0,
        gap: 0.0,
        adhesion: 0.0,
    });
    assert!(matches!(rejects(spec, "'touch'"), ModelError::IndexOutOfRange { parameter: "geom2", .. }));
    let mut spec = valid();
    spec.keyframes.push(KeyframeSpec {
        name: "home".into(),
        time: 0.0,
        qpos: vec![0.0, 1.0],
        qvel: vec![],
        ctrl: vec![],
        act: vec![],
        mpos: vec![],
        mquat: vec![],
    });
    assert!(matches!(rejects(spec, "'home'"), ModelError::KeyframeSize { field: "qpos", .. }));
}

#[test]
fn mocap_bodies_are_children_of_the_world_without_joints() {
    let mut spec = valid();
    spec.bodies[2].mocap = true;
    assert!(matches!(rejects(spec, "'hand'"), ModelError::BadMocap { .. }));
    let mut spec = valid();
    spec.bodies[1].mocap = true;
    assert!(matches!(rejects(spec, "'arm'"), ModelError::BadMocap { reason: "it has joints", .. }));
    let mut spec = valid();
    let target =
        BodySpec { mocap: true, ..BodySpec::new("target", 0, DVec3::new(1.0, 2.0, 3.0), DQuat::IDENTITY) };
    spec.add_body(target);
    spec.keyframes.push(KeyframeSpec {
        name: "k".into(),
        time: 0.0,
        qpos: vec![],
        qvel: vec![],
        ctrl: vec![],
        act: vec![],
        mpos: vec![0.0; 2],
        mquat: vec![],
    });
    assert!(matches!(
        rejects(spec.clone(), "'k'"),
        ModelError::KeyframeSize { field: "mpos", expected: 3, .. }
    ));
    spec.keyframes[0].mpos = vec![4.0, 5.0, 6.0];
    spec.keyframes[0].mquat = vec![0.0, 0.0, 0.0, 2.0];
    let model = Model::compile(spec).expect("valid");
    assert_eq!((model.nmocap, model.body_mocapid[3], model.body_weldid[3]), (1, Some(0), 3));
    // Forward kinematics reads the input pose (normalised); the keyframe sets it.
    let mut d = signorini_model::Data::new(&model);
    assert_eq!(d.mocap_pos, [DVec3::new(1.0, 2.0, 3.0)]);
    d.reset_to_keyframe(&model, 0).expect("keyframe");
    model.forward_kinematics(&mut d);
    assert_eq!(d.xpos[3], DVec3::new(4.0, 5.0, 6.0));
    assert!((d.xquat[3].z - 1.0).abs() < 1e-15 && d.xquat[3].length() - 1.0 < 1e-15);
    d.mocap_quat[0] = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    model.forward_kinematics(&mut d);
    assert_eq!(d.xquat[3], DQuat::IDENTITY, "a zero quaternion reads as the identity");
}
