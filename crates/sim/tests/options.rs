//! Spec §4's build-time validation: every rejected option combination is a typed error (one test each).

use signorini_sim::{ContactResolution, FrictionCone, Options, SimError, SolverKind};

fn rejected(o: &Options, name: &str) {
    match o.validate() {
        Err(SimError::InvalidOption { name: n, .. }) => assert_eq!(n, name),
        other => panic!("expected an InvalidOption error for {name}, got {other:?}"),
    }
}

#[test]
fn defaults_are_valid() {
    Options::default().validate().unwrap();
    Options { mujoco_compatibility: true, ..Options::default() }.validate().unwrap();
}

#[test]
fn signorini_needs_elliptic_newton_native() {
    let o = Options { contact_resolution: ContactResolution::Signorini, ..Options::default() };
    rejected(&o, "contact_resolution");
    let o = Options {
        contact_resolution: ContactResolution::Signorini,
        friction_cone: FrictionCone::Elliptic,
        constraint_solver: SolverKind::Cg,
        ..Options::default()
    };
    rejected(&o, "contact_resolution");
}

/// No-slip with the elliptic cone (MuJoCo's QCQP on each contact's cone; against MuJoCo in
/// `scenes.rs::noslip_matches_mujoco`) is a valid combination in both dialects.
#[test]
fn elliptic_with_noslip_is_accepted() {
    let o = Options { friction_cone: FrictionCone::Elliptic, noslip_iterations: 10, ..Options::default() };
    o.validate().unwrap();
}

#[test]
fn swept_collision_needs_a_one_evaluation_integrator() {
    let mut o = Options { enable_ccd: true, ..Options::default() };
    o.validate().unwrap();
    o.set("integrator", "rk4").unwrap();
    assert_eq!(o.integrator, signorini_sim::IntegratorKind::Rk4);
    rejected(&o, "enable_ccd");
}

/// Tendon damping and a tendon servo's velocity gain couple the dofs of the tendon: `implicit` and MuJoCo-compatible
/// `implicitfast` take them in MuJoCo's `qDeriv` (`mujoco_parity_implicit_bits`); the integrators whose implicit terms
/// are diagonal (native `implicitfast`, Genesis's; `approximate_implicitfast`) refuse them, naming the option.
#[test]
fn coupled_velocity_derivatives_need_an_integrator_that_treats_them() {
    let xml = |integrator: &str, tendon: &str, act: &str| {
        format!(
            r#"<mujoco><option integrator="{integrator}"/><worldbody><body><joint name="a"/><geom size="0.1"/>
      <body><joint name="b"/><geom size="0.1"/></body></body></worldbody>
      <tendon><fixed name="t" {tendon}><joint joint="a"/><joint joint="b" coef="-1"/></fixed></tendon>
      <actuator>{act}</actuator></mujoco>"#
        )
    };
    // `approximate_implicitfast` is not an MJCF value: it is set as an option over the file's `implicitfast`.
    let load = |xml: &str, dialect: signorini_sim::Dialect| {
        let set: Vec<(String, String)> = xml
            .contains("approximate_implicitfast")
            .then(|| ("integrator".to_string(), "approximate_implicitfast".to_string()))
            .into_iter()
            .collect();
        let xml = xml.replace("approximate_implicitfast", "implicitfast");
        signorini_mjcf::load_scene_str(&xml, std::path::Path::new("."), dialect, &set)
    };
    use signorini_sim::Dialect::{Mujoco, Native};
    let damped = |integrator: &str| xml(integrator, r#"damping="1""#, "");
    let servo = |integrator: &str| xml(integrator, "", r#"<position tendon="t" kp="1" kv="0.5"/>"#);
    for (integrator, dialect) in [("implicitfast", Native), ("approximate_implicitfast", Mujoco)] {
        let err = load(&damped(integrator), dialect).expect_err("rejected");
        assert!(
            err.to_string().contains("tendon damping") && err.to_string().contains("integrator"),
            "{err}"
        );
        let err = load(&servo(integrator), dialect).expect_err("rejected");
        assert!(err.to_string().contains("velocity gain"), "{err}");
        // A motor has no velocity gain.
        load(&xml(integrator, "", r#"<motor tendon="t"/>"#), dialect).unwrap();
    }
    for integrator in ["implicitfast", "implicit", "Euler", "RK4"] {
        load(&damped(integrator), Mujoco).unwrap();
        load(&servo(integrator), Mujoco).unwrap();
    }
}

#[test]
fn rolling_requires_torsional() {
    let o = Options { enable_rolling_friction: true, ..Options::default() };
    rejected(&o, "enable_rolling_friction");
}

#[test]
fn non_positive_or_non_finite_values_are_rejected() {
    rejected(&Options { dt: 0.0, ..Options::default() }, "dt");
    rejected(&Options { dt: f64::NAN, ..Options::default() }, "dt");
    rejected(&Options { substeps: 0, ..Options::default() }, "substeps");
    rejected(&Options { tolerance: Some(-1.0), ..Options::default() }, "tolerance");
    rejected(&Options { noslip_tolerance: f64::NAN, ..Options::default() }, "noslip_tolerance");
    // A tolerance of 0 runs the loop to its cap, as MuJoCo reads `tolerance="0"` (dm_control's composer arena).
    let zero =
        Options { tolerance: Some(0.0), ls_tolerance: 0.0, noslip_tolerance: 0.0, ..Options::default() };
    zero.validate().unwrap();
    rejected(&Options { impratio: Some(0.0), ..Options::default() }, "impratio");
    rejected(&Options { max_collision_pairs: 0, ..Options::default() }, "max_collision_pairs");
    rejected(&Options { constraint_timeconst: -0.01, ..Options::default() }, "constraint_timeconst");
}

#[test]
fn set_by_name_lists_valid_names_and_values() {
    let mut o = Options::default();
    o.set("friction_cone", "elliptic").unwrap();
    assert_eq!(o.friction_cone, FrictionCone::Elliptic);
    o.set("max_collision_pairs", "10").unwrap();
    assert_eq!(o.max_collision_pairs, 10);
    let err = o.set("no_such_option", "1").unwrap_err().to_string();
    assert!(err.contains("valid names") && err.contains("friction_cone"), "{err}");
    let err = o.set("friction_cone", "round").unwrap_err().to_string();
    assert!(err.contains("pyramidal") && err.contains("elliptic"), "{err}");
    assert!(o.set("iterations", "many").is_err());
}

#[test]
fn signorini_noslip_and_hibernation_are_built() {
    let o = Options { friction_cone: FrictionCone::Elliptic, ..Options::default() };
    assert!(o.uses_signorini() && o.validate().is_ok(), "auto selects signorini here, and it is built");
    let o = Options { use_hibernation: true, hibernation_thresh_vel: Some(1e-3), ..Options::default() };
    assert!(o.validate().is_ok());
    let o = Options { noslip_iterations: 10, ..Options::default() };
    assert!(o.validate().is_ok(), "no-slip with the pyramidal cone is built");
}

/// The per-pair contact caps are options: a height-field pair over `contacts_per_height_field_pair` fails the step
/// with an error naming it, and raising it with `--set` lets the same scene run.
#[test]
fn per_pair_contact_caps_are_options() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/scenes/terrain.xml");
    let low = [("contacts_per_height_field_pair".to_string(), "1".to_string())];
    let mut scene = signorini_mjcf::load_scene(&path, signorini_sim::Dialect::Mujoco, &low).unwrap();
    let err = (0..400).find_map(|_| scene.step().err()).expect("a pair with two prism contacts");
    assert!(err.to_string().contains("contacts_per_height_field_pair"), "{err}");
    let high = [("contacts_per_height_field_pair".to_string(), "50".to_string())];
    let mut scene = signorini_mjcf::load_scene(&path, signorini_sim::Dialect::Mujoco, &high).unwrap();
    for _ in 0..400 {
        scene.step().unwrap();
    }
    for name in ["contacts_per_convex_pair", "contacts_per_box_box_pair", "contacts_per_nonconvex_pair"] {
        let mut o = signorini_sim::Options::default();
        o.set(name, "7").unwrap();
        assert!(o.validate().is_ok());
        o.set(name, "0").unwrap();
        assert!(o.validate().unwrap_err().to_string().contains(name));
    }
}

#[test]
fn contact_pruning_is_native_only_and_budgets_are_positive() {
    let mut o = Options::default();
    o.set("contact_pruning_tolerance", "0.05").unwrap();
    o.validate().unwrap();
    o.mujoco_compatibility = true;
    rejected(&o, "contact_pruning_tolerance");
    o.set("contact_pruning_tolerance", "0").unwrap();
    o.validate().unwrap();
    rejected(
        &Options { contact_pruning_tolerance: Some(f64::NAN), ..Options::default() },
        "contact_pruning_tolerance",
    );
    rejected(&Options { max_contacts: Some(0), ..Options::default() }, "max_contacts");
}
