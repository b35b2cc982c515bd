//! `<frame>` and `<replicate>` against MuJoCo 4.0's compiled model of the same file (`tests/data/frames.xml`,
//! `scripts/mujoco_frame_reference.py`): the same bodies, joints, geoms and sites in the same order, with the same
//! names (replicate suffixes), parents and local frames.

use std::path::PathBuf;

use glam::{DQuat, DVec3};
use serde_json::Value;
use signorini_mjcf::{MjcfError, load_mjcf, load_mjcf_str};

fn vec3(v: &Value) -> DVec3 {
    DVec3::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap(), v[2].as_f64().unwrap())
}

fn quat(v: &Value) -> DQuat {
    DQuat::from_xyzw(
        v[1].as_f64().unwrap(),
        v[2].as_f64().unwrap(),
        v[3].as_f64().unwrap(),
        v[0].as_f64().unwrap(),
    )
}

/// `|Δpos|` and the angle between the orientations (sign-blind).
fn frame_error(pos: DVec3, q: DQuat, theirs: &Value) -> (f64, f64) {
    let d = q.inverse() * quat(&theirs["quat"]);
    ((pos - vec3(&theirs["pos"])).length(), 2.0 * d.xyz().length().atan2(d.w.abs()))
}

/// The bodies' local frames to the bit: MuJoCo's compiler turns Euler angles as `a / 180 · π`, composes axis
/// rotations and frames with products normalised only beyond 1e-14 of unit length (`mjuu_mulquat`), moves positions by
/// `mjuu_quat2mat`'s matrix, and turns a replicate's `i · euler` before converting it. 19 of the 20 body positions are
/// MuJoCo's bit for bit (16 before); the other, `arm`, sits in two nested frames, which MuJoCo applies from the inside
/// out and we compose first (one rounding apart). Orientations within 2e-16.
#[test]
fn replicated_body_positions_are_mujocos_to_the_bit() {
    let reference: Value = serde_json::from_str(include_str!("data/frames_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/frames.xml");
    let spec = load_mjcf(&path).unwrap().spec;
    let bodies = reference["bodies"].as_array().unwrap();
    let mut equal = 0;
    for (ours, theirs) in spec.bodies.iter().zip(bodies) {
        let t = vec3(&theirs["pos"]);
        equal += usize::from(ours.pos.to_array() == t.to_array());
        let d = ours.quat.inverse() * quat(&theirs["quat"]);
        assert!(d.xyz().length() < 2e-16, "{}: {:?} against {:?}", ours.name, ours.quat, theirs["quat"]);
    }
    assert_eq!((equal, bodies.len()), (19, 20), "bodies at MuJoCo's position bit for bit");
    // Joint axes: turned by their frames (`mjuu_rotVecQuat`), then scaled to unit length (`mjuu_normvec`).
    let axes: Vec<[f64; 3]> =
        spec.bodies.iter().flat_map(|b| b.joints.iter().map(|j| j.axis.to_array())).collect();
    let theirs: Vec<[f64; 3]> =
        reference["joints"].as_array().unwrap().iter().map(|j| vec3(&j["axis"]).to_array()).collect();
    assert_eq!(axes, theirs, "joint axes bit for bit");
}

#[test]
fn frames_and_replicates_match_mujoco() {
    let reference: Value = serde_json::from_str(include_str!("data/frames_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/frames.xml");
    let spec = load_mjcf(&path).unwrap().spec;
    let mut worst: f64 = 0.0;
    let mut check = |what: &str, (dp, dq): (f64, f64)| {
        worst = worst.max(dp).max(dq);
        assert!(dp < 1e-12 && dq < 1e-12, "{what}: |Δpos| {dp:e}, angle {dq:e}");
    };

    let bodies = reference["bodies"].as_array().unwrap();
    assert_eq!(spec.bodies.len(), bodies.len());
    for (b, (ours, theirs)) in spec.bodies.iter().zip(bodies).enumerate().skip(1) {
        assert_eq!(ours.name, theirs["name"].as_str().unwrap(), "body {b}");
        assert_eq!(ours.parent as u64, theirs["parent"].as_u64().unwrap(), "parent of {}", ours.name);
        check(&format!("body {}", ours.name), frame_error(ours.pos, ours.quat, theirs));
    }

    let in_order = |kind: &str| reference[kind].as_array().unwrap().clone();
    let joints: Vec<_> = spec
        .bodies
        .iter()
        .enumerate()
        .flat_map(|(b, body)| body.joints.iter().map(move |j| (b, j)))
        .collect();
    let theirs = in_order("joints");
    assert_eq!(joints.len(), theirs.len());
    for ((b, j), t) in joints.iter().zip(&theirs) {
        assert_eq!((j.name.as_str(), *b as u64), (t["name"].as_str().unwrap(), t["body"].as_u64().unwrap()));
        let dp = (j.pos - vec3(&t["pos"])).length();
        let da = (j.axis - vec3(&t["axis"])).length();
        check(&format!("joint {}", j.name), (dp, da));
    }

    let geoms: Vec<_> =
        spec.bodies.iter().enumerate().flat_map(|(b, body)| body.geoms.iter().map(move |g| (b, g))).collect();
    let theirs = in_order("geoms");
    assert_eq!(geoms.len(), theirs.len());
    for ((b, g), t) in geoms.iter().zip(&theirs) {
        assert_eq!((g.name.as_str(), *b as u64), (t["name"].as_str().unwrap(), t["body"].as_u64().unwrap()));
        check(&format!("geom {}", g.name), frame_error(g.pos, g.quat, t));
    }

    let sites: Vec<_> =
        spec.bodies.iter().enumerate().flat_map(|(b, body)| body.sites.iter().map(move |s| (b, s))).collect();
    let theirs = in_order("sites");
    assert_eq!(sites.len(), theirs.len());
    for ((b, (name, pos, q)), t) in sites.iter().zip(&theirs) {
        assert_eq!((name.as_str(), *b as u64), (t["name"].as_str().unwrap(), t["body"].as_u64().unwrap()));
        check(&format!("site {name}"), frame_error(*pos, *q, t));
    }
    println!("frames.xml against MuJoCo: worst |Δpos| or angle {worst:.1e}");
}

/// The childclass of a frame reaches the elements inside it (the `red` class gives the flaps' damping and the ring
/// size); the body's own class applies outside.
#[test]
fn frame_childclass_applies_inside() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/frames.xml");
    let spec = load_mjcf(&path).unwrap().spec;
    let joint =
        |name: &str| spec.bodies.iter().flat_map(|b| &b.joints).find(|j| j.name == name).unwrap().clone();
    assert_eq!(joint("shoulder").damping, 0.5);
    assert_eq!(joint("flap07").damping, 0.5);
    assert_eq!(joint("rack_slide").damping, 0.0);
}

#[test]
fn malformed_frames_and_replicates_are_located_errors() {
    let cases = [
        (r#"<replicate offset="1 0 0"><geom size="1"/></replicate>"#, "count"),
        (r#"<replicate count="0"><geom size="1"/></replicate>"#, "count"),
        (r#"<replicate count="2" childclass="nope"><geom size="1"/></replicate>"#, "childclass"),
        (r#"<frame pos="1 2"><geom size="1"/></frame>"#, "pos"),
        (r#"<frame bogus="1"/>"#, "bogus"),
    ];
    for (inner, attribute) in cases {
        let xml = format!("<mujoco><worldbody>\n{inner}\n</worldbody></mujoco>");
        let e = load_mjcf_str(&xml, std::path::Path::new(".")).unwrap_err();
        assert_eq!(e.line(), Some(2), "{inner}: {e}");
        assert_eq!(e.attribute(), Some(attribute), "{inner}: {e}");
    }
    // A replicate copies names: two copies of a name that is already suffixed elsewhere collide.
    let xml = r#"<mujoco><worldbody><geom name="g0" size="1"/>
<replicate count="2"><geom name="g" size="1"/></replicate></worldbody></mujoco>"#;
    let e = load_mjcf_str(xml, std::path::Path::new(".")).unwrap_err();
    assert!(matches!(e, MjcfError::DuplicateName { .. }), "{e}");
    // An inertial belongs to its body.
    let xml = r#"<mujoco><worldbody><body><frame><inertial mass="1" pos="0 0 0"/></frame><geom size="1"/></body></worldbody></mujoco>"#;
    let e = load_mjcf_str(xml, std::path::Path::new(".")).unwrap_err();
    assert!(e.to_string().contains("inertial"), "{e}");
}
