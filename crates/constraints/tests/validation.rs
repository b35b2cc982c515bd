//! Every rejected option and `sol_params` combination returns its typed error (spec README §4), one test each.

mod common;

use common::*;
use glam::DVec3;
use signorini_collision::contact_set::ContactSet;
use signorini_constraints::{
    AssemblyScratch, ConstraintAssembler, ConstraintError, ConstraintOptions, ConstraintRows, FrictionCone,
};
use signorini_model::{EqualitySpec, Model, ModelSpec};

fn build(spec: ModelSpec, options: ConstraintOptions) -> Result<ConstraintAssembler, ConstraintError> {
    ConstraintAssembler::new(&Model::compile(spec).expect("compiles"), options)
}

fn with_geom_sol(solref: [f64; 2], solimp: [f64; 5]) -> ModelSpec {
    let mut spec = spec();
    spec.bodies[0].geoms[0].solref = solref;
    spec.bodies[0].geoms[0].solimp = solimp;
    spec
}

const IMP: [f64; 5] = [0.9, 0.95, 0.001, 0.5, 2.0];

fn sol_error(result: Result<ConstraintAssembler, ConstraintError>) -> (String, &'static str) {
    match result {
        Err(ConstraintError::InvalidSolParams { object, parameter, .. }) => (object, parameter),
        other => panic!("expected InvalidSolParams, got {other:?}"),
    }
}

#[test]
fn the_default_model_and_options_are_valid() {
    build(spec(), ConstraintOptions::default()).expect("valid");
    build(spec(), ConstraintOptions::mujoco()).expect("valid");
}

#[test]
fn dmin_above_dmax_is_rejected() {
    let (object, parameter) =
        sol_error(build(with_geom_sol([0.02, 1.0], [0.96, 0.95, 0.001, 0.5, 2.0]), Default::default()));
    assert_eq!((object.as_str(), parameter), ("geom 'floor' (#0)", "dmin"));
}

#[test]
fn negative_width_is_rejected() {
    let (_, parameter) =
        sol_error(build(with_geom_sol([0.02, 1.0], [0.9, 0.95, -0.001, 0.5, 2.0]), Default::default()));
    assert_eq!(parameter, "width");
}

#[test]
fn power_below_one_is_rejected() {
    let (_, parameter) =
        sol_error(build(with_geom_sol([0.02, 1.0], [0.9, 0.95, 0.001, 0.5, 0.5]), Default::default()));
    assert_eq!(parameter, "power");
}

#[test]
fn non_positive_dampratio_is_rejected() {
    for dampratio in [0.0, -1.0] {
        let (_, parameter) = sol_error(build(with_geom_sol([0.02, dampratio], IMP), Default::default()));
        assert_eq!(parameter, "dampratio");
    }
}

#[test]
fn negative_timeconst_is_rejected_without_direct_solref() {
    let (_, parameter) = sol_error(build(with_geom_sol([-100.0, -10.0], IMP), Default::default()));
    assert_eq!(parameter, "timeconst");
}

#[test]
fn direct_solref_accepts_direct_mode_but_not_mixed_signs() {
    let direct = ConstraintOptions { direct_solref: true, ..Default::default() };
    build(with_geom_sol([-100.0, -10.0], IMP), direct).expect("direct mode");
    let (_, parameter) = sol_error(build(with_geom_sol([-100.0, 10.0], IMP), direct));
    assert_eq!(parameter, "dampratio");
    build(with_geom_sol([-100.0, -10.0], IMP), ConstraintOptions::mujoco()).expect("the MuJoCo preset");
}

#[test]
fn non_finite_mixed_contact_params_are_rejected_at_assembly() {
    let model = model();
    let d = state(&model);
    let asm = ConstraintAssembler::new(&model, Default::default()).expect("valid");
    let mut cs = ContactSet::new();
    push_contact(&mut cs, (0, BALL), DVec3::new(1.0, 0.5, 0.0), DVec3::NEG_Z, 1e-3, 3);
    cs.solimp[0][4] = f64::NAN;
    let mut rows = ConstraintRows::new();
    let err =
        asm.assemble(&model, &d, &cs, &mut AssemblyScratch::default(), &mut rows).expect_err("rejected");
    assert!(matches!(err, ConstraintError::InvalidSolParams { parameter: "power", .. }), "{err}");
    assert!(err.to_string().contains("contact #0"), "{err}");
}

#[test]
fn invalid_equality_sol_params_name_the_equality() {
    let mut spec = spec();
    if let EqualitySpec::Connect { solimp, .. } = &mut spec.equalities[0] {
        solimp[2] = -1.0;
    }
    let (object, parameter) = sol_error(build(spec, Default::default()));
    assert_eq!((object.as_str(), parameter), ("equality 'connect' (#0)", "width"));
}

#[test]
fn invalid_joint_limit_sol_params_name_the_joint() {
    let mut spec = spec();
    spec.bodies[1].joints[0].solref_limit = [0.02, 0.0];
    let (object, parameter) = sol_error(build(spec, Default::default()));
    assert_eq!((object.as_str(), parameter), ("joint 'h1' (#0)", "dampratio"));
}

#[test]
fn rolling_without_torsional_is_rejected() {
    let o = ConstraintOptions { enable_rolling_friction: true, ..Default::default() };
    assert_eq!(o.validate(), Err(ConstraintError::RollingWithoutTorsional));
    assert_eq!(build(spec(), o).expect_err("rejected"), ConstraintError::RollingWithoutTorsional);
}

#[test]
fn non_positive_impratio_is_rejected() {
    let o = ConstraintOptions { impratio: Some(0.0), ..Default::default() };
    assert!(matches!(o.validate(), Err(ConstraintError::InvalidOption { option: "impratio", .. })));
}

#[test]
fn non_positive_timestep_is_rejected() {
    let o = ConstraintOptions { timestep: 0.0, ..Default::default() };
    assert!(matches!(o.validate(), Err(ConstraintError::InvalidOption { option: "timestep", .. })));
}

#[test]
fn non_positive_constraint_timeconst_is_rejected() {
    let o = ConstraintOptions { constraint_timeconst: -0.01, ..Default::default() };
    assert!(matches!(
        o.validate(),
        Err(ConstraintError::InvalidOption { option: "constraint_timeconst", .. })
    ));
}

#[test]
fn joint_equality_on_a_free_joint_is_rejected() {
    let mut spec = spec();
    if let EqualitySpec::Joint { joint2, .. } = &mut spec.equalities[2] {
        *joint2 = Some(3);
    }
    // The model compiler already refuses it; the constraint layer checks again for models built otherwise.
    if let Ok(model) = Model::compile(spec) {
        let err = ConstraintAssembler::new(&model, Default::default()).expect_err("rejected");
        assert!(matches!(err, ConstraintError::NonScalarEqualityJoint { joint: 3, .. }), "{err}");
    }
}

#[test]
fn impratio_auto_rule() {
    let o = ConstraintOptions::default();
    assert_eq!(o.impratio(), 1.0);
    let ell = ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..o };
    assert_eq!(ell.impratio(), 100.0);
    assert_eq!(ConstraintOptions { elliptic_auto_impratio: 1.0, ..ell }.impratio(), 1.0);
    assert_eq!(
        ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..ConstraintOptions::mujoco() }.impratio(),
        1.0
    );
    assert_eq!(ConstraintOptions { impratio: Some(3.0), ..ell }.impratio(), 3.0);
    // The elliptic default never touches the pyramidal cone.
    assert_eq!(ConstraintOptions { elliptic_auto_impratio: 7.0, ..o }.impratio(), 1.0);
}

#[test]
fn non_positive_elliptic_auto_impratio_is_rejected() {
    for value in [0.0, -1.0, f64::NAN] {
        let o = ConstraintOptions { elliptic_auto_impratio: value, ..Default::default() };
        assert!(matches!(
            o.validate(),
            Err(ConstraintError::InvalidOption { option: "elliptic_auto_impratio", .. })
        ));
    }
}

#[test]
fn negative_or_non_finite_frictionloss_threshold_is_rejected() {
    for value in [-1e-9, f64::NAN, f64::INFINITY] {
        let o = ConstraintOptions { frictionloss_threshold: value, ..Default::default() };
        assert!(matches!(
            o.validate(),
            Err(ConstraintError::InvalidOption { option: "frictionloss_threshold", .. })
        ));
    }
    ConstraintOptions { frictionloss_threshold: 0.0, ..Default::default() }.validate().expect("0 is valid");
}

#[test]
fn signorini_needs_the_elliptic_cone() {
    let o = ConstraintOptions { signorini: true, ..Default::default() };
    assert_eq!(o.validate(), Err(ConstraintError::SignoriniNeedsElliptic));
    ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..o }.validate().expect("valid");
}

#[test]
fn friction_cone_names_serde_fromstr_and_display_agree() {
    assert_eq!(FrictionCone::NAMES, ["pyramidal", "elliptic"]);
    for (name, cone) in FrictionCone::NAMES.iter().zip(FrictionCone::ALL) {
        assert_eq!(cone.name(), *name);
        assert_eq!(cone.to_string(), *name);
        assert_eq!(FrictionCone::from_name(name), Ok(cone));
        assert_eq!(name.parse::<FrictionCone>(), Ok(cone));
        assert_eq!(serde_json::to_string(&cone).expect("serialize"), format!("\"{name}\""));
        assert_eq!(serde_json::from_str::<FrictionCone>(&format!("\"{name}\"")).expect("deserialize"), cone);
    }
    for bad in ["Elliptic", "cone", ""] {
        let err = bad.parse::<FrictionCone>().expect_err("unknown name");
        assert_eq!(err, ConstraintError::UnknownFrictionCone { name: bad.to_owned() });
        assert!(err.to_string().contains("pyramidal, elliptic"), "{err}");
    }
}
