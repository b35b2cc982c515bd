//! Malformed or unsupported MJCF: a typed error naming the element, the attribute and the line, never a panic and
//! never a silent skip.

use std::path::Path;

use signorini_mjcf::{MjcfError, XmlError, load_mjcf, load_mjcf_str};

fn err(xml: &str) -> MjcfError {
    match load_mjcf_str(xml, Path::new("/nonexistent")) {
        Ok(_) => panic!("loaded:\n{xml}"),
        Err(e) => e,
    }
}

/// Asserts the error's line, element and attribute, and that its message names them.
fn expect(e: &MjcfError, line: u32, element: &str, attribute: Option<&str>) {
    assert_eq!(e.line(), Some(line), "{e}");
    assert_eq!(e.element(), Some(element), "{e}");
    assert_eq!(e.attribute(), attribute, "{e}");
    let msg = e.to_string();
    assert!(msg.contains(&format!(":{line}:")), "{msg}");
    assert!(msg.contains(element), "{msg}");
    if let Some(a) = attribute {
        assert!(msg.contains(a), "{msg}");
    }
}

#[test]
fn unknown_element() {
    let e = err("<mujoco>\n<worldbody>\n<body>\n<gem type=\"sphere\"/>\n</body>\n</worldbody>\n</mujoco>");
    assert!(matches!(e, MjcfError::Xml(XmlError::UnknownElement { .. })), "{e}");
    expect(&e, 4, "gem", None);
    let e = err("<mujoco>\n<worldbody/>\n<sensors/>\n</mujoco>");
    assert!(matches!(e, MjcfError::Xml(XmlError::UnknownElement { .. })), "{e}");
    expect(&e, 3, "sensors", None);
    let e = err("<mujoco><worldbody>\n<joint/>\n</worldbody></mujoco>");
    expect(&e, 2, "joint", None);
}

#[test]
fn unknown_attribute() {
    let e = err(
        "<mujoco>\n<worldbody>\n<geom type=\"sphere\" size=\"1\"\n   colour=\"red\"/>\n</worldbody>\n</mujoco>",
    );
    assert!(matches!(e, MjcfError::Xml(XmlError::UnknownAttribute { .. })), "{e}");
    expect(&e, 4, "geom", Some("colour"));
}

#[test]
fn missing_size() {
    let e = err(
        "<mujoco>\n<worldbody>\n<body>\n<freejoint/>\n<geom type=\"box\"/>\n</body>\n</worldbody>\n</mujoco>",
    );
    assert!(matches!(e, MjcfError::Xml(XmlError::MissingAttribute { .. })), "{e}");
    expect(&e, 5, "geom", Some("size"));
    // A capsule needs its half-length unless fromto gives it.
    let e = err("<mujoco>\n<worldbody>\n<geom type=\"capsule\" size=\"0.1\"/>\n</worldbody>\n</mujoco>");
    assert!(matches!(e, MjcfError::Xml(XmlError::InvalidValue { .. })), "{e}");
    expect(&e, 3, "geom", Some("size"));
}

#[test]
fn bad_number() {
    let e = err("<mujoco>\n<worldbody>\n<body pos=\"0 0 1x\">\n</body>\n</worldbody>\n</mujoco>");
    assert!(matches!(e, MjcfError::Xml(XmlError::InvalidValue { .. })), "{e}");
    expect(&e, 3, "body", Some("pos"));
    assert!(e.to_string().contains("`1x` is not a number"), "{e}");
    let e = err("<mujoco>\n<worldbody>\n<body pos=\"0 0\"/>\n</worldbody>\n</mujoco>");
    expect(&e, 3, "body", Some("pos"));
    let e = err("<mujoco>\n<option timestep=\"nan\"/>\n</mujoco>");
    expect(&e, 2, "option", Some("timestep"));
}

#[test]
fn cyclic_default_class() {
    let e = err(
        "<mujoco>\n<default>\n<default class=\"a\">\n<default class=\"b\">\n<default class=\"a\"/>\n</default>\n\
         </default>\n</default>\n</mujoco>",
    );
    assert!(matches!(e, MjcfError::CyclicDefaultClass { .. }), "{e}");
    expect(&e, 5, "default", Some("class"));
    assert!(e.to_string().contains("main → a → b"), "{e}");
    let e = err("<mujoco>\n<default>\n<default class=\"a\"/>\n<default class=\"a\"/>\n</default>\n</mujoco>");
    assert!(matches!(e, MjcfError::DuplicateName { .. }), "{e}");
}

#[test]
fn undefined_class_and_names() {
    let e = err("<mujoco>\n<worldbody>\n<geom class=\"nope\" size=\"1\"/>\n</worldbody>\n</mujoco>");
    assert!(matches!(e, MjcfError::UndefinedName { kind: "default class", .. }), "{e}");
    expect(&e, 3, "geom", Some("class"));
    let e = err("<mujoco>\n<worldbody/>\n<actuator>\n<motor joint=\"j\"/>\n</actuator>\n</mujoco>");
    assert!(matches!(e, MjcfError::UndefinedName { kind: "joint", .. }), "{e}");
    expect(&e, 4, "motor", Some("joint"));
    let e = err("<mujoco>\n<worldbody>\n<geom type=\"mesh\" mesh=\"m\"/>\n</worldbody>\n</mujoco>");
    expect(&e, 3, "geom", Some("mesh"));
    let e = err("<mujoco>\n<worldbody>\n<body name=\"a\"/>\n<body name=\"a\"/>\n</worldbody>\n</mujoco>");
    assert!(matches!(e, MjcfError::DuplicateName { kind: "body", .. }), "{e}");
    expect(&e, 4, "body", None);
}

#[test]
fn unsupported_features_name_the_attribute() {
    let e = err("<mujoco>\n<worldbody>\n<body><freejoint align=\"true\"/></body>\n</worldbody>\n</mujoco>");
    assert!(matches!(e, MjcfError::Xml(XmlError::NotSupported { .. })), "{e}");
    expect(&e, 3, "freejoint", Some("align"));
    let e = err("<mujoco>\n<option solver=\"Jacobi\"/>\n</mujoco>");
    expect(&e, 2, "option", Some("solver"));
    let e = err("<mujoco>\n<option density=\"-1.2\"/>\n</mujoco>");
    expect(&e, 2, "option", Some("density"));
    let e = err(
        "<mujoco>\n<worldbody>\n<body><joint name=\"j\"/><geom size=\"1\"/></body>\n</worldbody>\n<actuator>\n\
                 <general joint=\"j\" dyntype=\"user\"/>\n</actuator>\n</mujoco>",
    );
    expect(&e, 6, "general", Some("dyntype"));
    let e = err("<mujoco>\n<worldbody>\n<composite/>\n</worldbody>\n</mujoco>");
    expect(&e, 3, "composite", None);
}

#[test]
fn misplaced_mocap_bodies_and_mocap_keyframes_are_errors() {
    let e = err("<mujoco>\n<worldbody>\n<body><body mocap=\"true\"/></body>\n</worldbody>\n</mujoco>");
    expect(&e, 3, "body", Some("mocap"));
    let e = err(
        "<mujoco>\n<worldbody>\n<body mocap=\"true\">\n<joint/><geom size=\"1\"/></body>\n</worldbody>\n</mujoco>",
    );
    expect(&e, 4, "joint", None);
    let e = err(
        "<mujoco>\n<worldbody>\n<body mocap=\"true\"/>\n</worldbody>\n<keyframe>\n<key mpos=\"1 2\"/>\n</keyframe>\n</mujoco>",
    );
    expect(&e, 6, "key", Some("mpos"));
}

#[test]
fn tendons_outside_the_subset_are_located_errors() {
    let arm = "<mujoco>\n<worldbody><body><joint name=\"h\"/><joint name=\"b\" type=\"ball\"/><geom size=\"1\"/></body></worldbody>\n<tendon>\n";
    let case = |inner: &str| err(&format!("{arm}{inner}\n</tendon>\n</mujoco>"));
    let e = case("<spatial><site site=\"s\"/><geom geom=\"g\"/></spatial>");
    assert!(matches!(e, MjcfError::UndefinedName { kind: "site", .. }), "{e}");
    // A wrapping geom must exist, be a sphere or a cylinder, and sit between two sites.
    let e = case("<spatial><geom geom=\"g\"/></spatial>");
    assert!(matches!(e, MjcfError::UndefinedName { kind: "geom", .. }), "{e}");
    let wrapped = |inner: &str| {
        err(&format!(
            "<mujoco>\n<worldbody><site name=\"a\"/><site name=\"b\" pos=\"1 0 0\"/><geom name=\"box\" type=\"box\" size=\"1 1 1\"/><geom name=\"ball\" size=\"0.1\"/></worldbody>\n<tendon>\n{inner}\n</tendon>\n</mujoco>"
        ))
    };
    expect(
        &wrapped("<spatial><site site=\"a\"/><geom geom=\"box\"/><site site=\"b\"/></spatial>"),
        4,
        "geom",
        Some("geom"),
    );
    expect(
        &wrapped("<spatial><geom geom=\"ball\"/><site site=\"a\"/><site site=\"b\"/></spatial>"),
        4,
        "geom",
        Some("geom"),
    );
    expect(
        &wrapped("<spatial><site site=\"a\"/><site site=\"b\"/><geom geom=\"ball\"/></spatial>"),
        4,
        "geom",
        Some("geom"),
    );
    expect(
        &wrapped("<spatial><site site=\"a\"/><pulley divisor=\"0\"/><site site=\"b\"/></spatial>"),
        4,
        "pulley",
        Some("divisor"),
    );
    expect(&case("<spatial/>"), 4, "spatial", None);
    expect(&case("<fixed armature=\"0.1\"><joint joint=\"h\"/></fixed>"), 4, "fixed", Some("armature"));
    expect(&case("<fixed><joint joint=\"b\"/></fixed>"), 4, "joint", Some("joint"));
    expect(&case("<fixed><joint joint=\"nope\"/></fixed>"), 4, "joint", Some("joint"));
    expect(&case("<fixed range=\"1 0\"><joint joint=\"h\"/></fixed>"), 4, "fixed", Some("range"));
    expect(
        &case("<fixed springlength=\"1 2 3\"><joint joint=\"h\"/></fixed>"),
        4,
        "fixed",
        Some("springlength"),
    );
    expect(&case("<fixed/>"), 4, "fixed", None);
    // Tendon transmissions: the tendon must exist, and an actuator has one transmission.
    let actuated = |act: &str| {
        err(&format!(
            "{arm}<fixed name=\"t\"><joint joint=\"h\"/></fixed>\n</tendon>\n<actuator>\n{act}\n</actuator>\n</mujoco>"
        ))
    };
    expect(&actuated("<motor tendon=\"nope\"/>"), 7, "motor", Some("tendon"));
    expect(&actuated("<motor site=\"nope\"/>"), 7, "motor", Some("site"));
    expect(&actuated("<motor cranksite=\"nope\"/>"), 7, "motor", Some("cranklength"));
    expect(&actuated("<motor joint=\"h\" refsite=\"x\"/>"), 7, "motor", Some("refsite"));
    expect(&actuated("<general body=\"nope\"/>"), 7, "general", Some("body"));
    expect(&actuated("<adhesion body=\"world\"/>"), 7, "adhesion", Some("ctrlrange"));
    expect(&actuated("<adhesion body=\"world\" ctrlrange=\"-1 1\"/>"), 7, "adhesion", Some("ctrlrange"));
    expect(
        &actuated("<adhesion body=\"world\" ctrlrange=\"0 1\" gain=\"-1\"/>"),
        7,
        "adhesion",
        Some("gain"),
    );
    expect(&actuated("<motor tendon=\"t\" joint=\"h\"/>"), 7, "motor", Some("tendon"));
}

#[test]
fn activation_dynamics_outside_the_subset_are_located_errors() {
    let case = |act: &str| {
        err(&format!(
            "<mujoco>\n<worldbody><body><joint name=\"h\"/><geom size=\"1\"/></body></worldbody>\n<actuator>\n{act}\n</actuator>\n</mujoco>"
        ))
    };
    expect(&case("<general joint=\"h\" dyntype=\"user\"/>"), 4, "general", Some("dyntype"));
    // A muscle's deactivation time constant dynprm[1] defaults to 0 on a general actuator.
    expect(&case("<general joint=\"h\" dyntype=\"muscle\"/>"), 4, "general", None);
    expect(&case("<general joint=\"h\" dyntype=\"filter\" dynprm=\"0\"/>"), 4, "general", Some("dynprm"));
    expect(&case("<general joint=\"h\" gaintype=\"user\"/>"), 4, "general", Some("gaintype"));
    // The general actuator's gainprm (1, 0, ...) is no muscle's: its range is empty.
    expect(&case("<general joint=\"h\" gaintype=\"muscle\"/>"), 4, "general", None);
    expect(&case("<muscle joint=\"h\" timeconst=\"0 0.04\"/>"), 4, "muscle", Some("timeconst"));
    expect(&case("<muscle joint=\"h\" lengthrange=\"1 0\"/>"), 4, "muscle", Some("lengthrange"));
    expect(&case("<damper joint=\"h\" kv=\"1\"/>"), 4, "damper", Some("ctrlrange"));
    expect(&case("<motor joint=\"h\" actrange=\"0 1\"/>"), 4, "motor", Some("actrange"));
    expect(&case("<intvelocity joint=\"h\" kp=\"1\" actrange=\"1 0\"/>"), 4, "intvelocity", Some("actrange"));
}

#[test]
fn semantic_errors() {
    // Wrong keyframe size.
    let e = err("<mujoco>\n<worldbody><body><freejoint/><geom size=\"1\"/></body></worldbody>\n<keyframe>\n\
                 <key qpos=\"0 0 0\"/>\n</keyframe>\n</mujoco>");
    expect(&e, 4, "key", Some("qpos"));
    assert!(e.to_string().contains("expected 7 numbers, got 3"), "{e}");
    // Bad joint range.
    let e = err(
        "<mujoco>\n<worldbody><body><joint range=\"1 -1\"/><geom size=\"1\"/></body></worldbody>\n</mujoco>",
    );
    expect(&e, 2, "joint", Some("range"));
    // A range without `limited` when autolimits is off.
    let e = err("<mujoco>\n<compiler autolimits=\"false\"/>\n<worldbody><body>\n<joint\n range=\"-1 1\"/>\
                 <geom size=\"1\"/></body></worldbody>\n</mujoco>");
    expect(&e, 5, "joint", Some("range"));
    // Two orientations.
    let e = err("<mujoco>\n<worldbody><body\n euler=\"0 0 1\" quat=\"1 0 0 0\"/></worldbody>\n</mujoco>");
    assert!(matches!(e, MjcfError::Xml(XmlError::InvalidValue { .. })), "{e}");
    assert_eq!(e.line(), Some(3));
    // Bad keyword.
    let e = err("<mujoco>\n<option\n integrator=\"verlet\"/>\n</mujoco>");
    expect(&e, 3, "option", Some("integrator"));
    assert!(e.to_string().contains("Euler, RK4, implicit, implicitfast"), "{e}");
}

#[test]
fn errors_in_default_values_point_at_the_default() {
    let e = err(
        "<mujoco>\n<default>\n<geom size=\"0.1 x\"/>\n</default>\n<worldbody>\n<geom/>\n</worldbody>\n</mujoco>",
    );
    expect(&e, 3, "geom", Some("size"));
}

#[test]
fn xml_syntax_and_root() {
    let e = err("<mujoco>\n<worldbody>\n</mujoco>");
    assert!(matches!(e, MjcfError::Xml(XmlError::Syntax { .. })), "{e}");
    assert_eq!(e.line(), Some(3));
    let e = err("<robot/>");
    assert!(matches!(e, MjcfError::Invalid { .. }), "{e}");
}

#[test]
fn missing_files_and_include_cycles() {
    let e = load_mjcf(Path::new("/nonexistent/scene.xml")).unwrap_err();
    assert!(matches!(e, MjcfError::Xml(XmlError::Io { .. })), "{e}");
    let dir = std::env::temp_dir().join(format!("signorini-mjcf-cycle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.xml"), "<mujoco>\n<include file=\"b.xml\"/>\n</mujoco>").unwrap();
    std::fs::write(dir.join("b.xml"), "<mujoco>\n\n<include file=\"a.xml\"/>\n</mujoco>").unwrap();
    let e = load_mjcf(&dir.join("a.xml")).unwrap_err();
    assert!(matches!(e, MjcfError::CyclicInclude { .. }), "{e}");
    expect(&e, 3, "include", Some("file"));
    assert!(e.location().unwrap().file.ends_with("b.xml"));
    let e = err("<mujoco>\n<asset>\n<mesh file=\"missing.stl\"/>\n</asset>\n</mujoco>");
    assert!(matches!(e, MjcfError::Xml(XmlError::Io { at: Some(_), .. })), "{e}");
    assert_eq!(e.line(), Some(3));
    std::fs::remove_dir_all(&dir).ok();
}
