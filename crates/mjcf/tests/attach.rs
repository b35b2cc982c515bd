//! `<model>`/`<attach>` and elements that refer to what a `<replicate>` copies, against MuJoCo 4.0's compiled model
//! and a short run of the same file (`tests/data/attach/attach.xml`, which attaches `arm.xml` three times: directly,
//! twice through a replicate, and a sub-branch into a body; `scripts/mujoco_attach_reference.py`).

use std::path::PathBuf;

use serde_json::Value;
use signorini_mjcf::{MjcfError, load_mjcf, load_mjcf_str, load_scene};
use signorini_model::spec::Transmission;
use signorini_sim::Dialect;

fn reference() -> Value {
    serde_json::from_str(include_str!("data/attach/attach_reference.json")).unwrap()
}

fn scene_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/attach/attach.xml")
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

#[test]
fn attached_model_compiles_as_mujoco_does() {
    let r = reference();
    let spec = load_mjcf(&scene_path()).unwrap().spec;

    let bodies = r["bodies"].as_array().unwrap();
    assert_eq!(spec.bodies.len(), bodies.len());
    for (ours, theirs) in spec.bodies.iter().zip(bodies).skip(1) {
        assert_eq!(ours.name, theirs["name"].as_str().unwrap());
        assert_eq!(
            spec.bodies[ours.parent].name,
            bodies[theirs["parent"].as_u64().unwrap() as usize]["name"]
        );
        let mass = theirs["mass"].as_f64().unwrap();
        // The attached file's defaults (density 500/2000, capsule radius 0.03), not this file's (density 100); the
        // wedge's volume from its vertices read in single precision, as MuJoCo reads them.
        assert!(
            close(ours.inertial.mass, mass, 1e-13),
            "mass of {}: {} vs {mass}",
            ours.name,
            ours.inertial.mass
        );
        for k in 0..3 {
            assert!(close(ours.pos[k], theirs["pos"][k].as_f64().unwrap(), 1e-12), "pos of {}", ours.name);
        }
    }

    let joints: Vec<_> = spec.bodies.iter().flat_map(|b| &b.joints).collect();
    let theirs = r["joints"].as_array().unwrap();
    assert_eq!(joints.len(), theirs.len());
    for (j, t) in joints.iter().zip(theirs) {
        assert_eq!(j.name, t["name"].as_str().unwrap());
        assert!(close(j.damping, t["damping"].as_f64().unwrap(), 1e-15), "damping of {}", j.name);
        assert!(close(j.stiffness, t["stiffness"].as_f64().unwrap(), 1e-15), "stiffness of {}", j.name);
        assert!(close(j.armature, t["armature"].as_f64().unwrap(), 1e-15), "armature of {}", j.name);
        let range = t["limited"]
            .as_bool()
            .unwrap()
            .then(|| [t["range"][0].as_f64().unwrap(), t["range"][1].as_f64().unwrap()]);
        assert_eq!(
            j.range.map(|r| r.map(|x| (x * 1e12).round())),
            range.map(|r| r.map(|x| (x * 1e12).round())),
            "{}",
            j.name
        );
    }

    let geoms: Vec<_> = spec.bodies.iter().flat_map(|b| &b.geoms).collect();
    let theirs = r["geoms"].as_array().unwrap();
    assert_eq!(geoms.len(), theirs.len());
    for (g, t) in geoms.iter().zip(theirs) {
        assert_eq!(g.name, t["name"].as_str().unwrap());
        assert!(close(g.friction[0], t["friction"][0].as_f64().unwrap(), 1e-15), "friction of {}", g.name);
    }

    let names = |v: &Value| -> Vec<String> {
        v.as_array().unwrap().iter().map(|x| x["name"].as_str().unwrap().to_string()).collect()
    };
    let tendons: Vec<_> = spec.tendons.iter().map(|t| t.name.clone()).collect();
    assert_eq!(tendons, names(&r["tendons"]));
    for (t, theirs) in spec.tendons.iter().zip(r["tendons"].as_array().unwrap()) {
        assert!(close(t.stiffness, theirs["stiffness"].as_f64().unwrap(), 1e-15), "{}", t.name);
        assert_eq!(t.range.is_some(), theirs["limited"].as_bool().unwrap(), "{}", t.name);
    }
    let actuators: Vec<_> = spec.actuators.iter().map(|a| a.name.clone()).collect();
    assert_eq!(actuators, names(&r["actuators"]));
    let joint_names: Vec<_> = joints.iter().map(|j| j.name.clone()).collect();
    for (a, theirs) in spec.actuators.iter().zip(r["actuators"].as_array().unwrap()) {
        assert_eq!(a.gear, theirs["gear"].as_f64().unwrap(), "{}", a.name);
        let target = match a.transmission {
            Transmission::Joint(j) => joint_names[j].clone(),
            Transmission::Tendon(t) => spec.tendons[t].name.clone(),
            other => panic!("{}: unexpected transmission {other:?}", a.name),
        };
        assert_eq!(target, theirs["target"].as_str().unwrap(), "{}", a.name);
    }
    let excludes: Vec<[String; 2]> = spec
        .contact_excludes
        .iter()
        .map(|&(a, b)| [spec.bodies[a].name.clone(), spec.bodies[b].name.clone()])
        .collect();
    let theirs: Vec<[String; 2]> = serde_json::from_value(r["excludes"].clone()).unwrap();
    assert_eq!(excludes, theirs);

    let keys = r["keys"].as_array().unwrap();
    assert_eq!(spec.keyframes.len(), keys.len());
    for (k, t) in spec.keyframes.iter().zip(keys) {
        assert_eq!(k.name, t["name"].as_str().unwrap());
        for (field, ours) in [("qpos", &k.qpos), ("qvel", &k.qvel), ("ctrl", &k.ctrl)] {
            let theirs: Vec<f64> = serde_json::from_value(t[field].clone()).unwrap();
            assert_eq!(ours.len(), theirs.len(), "{}: {field}", k.name);
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert!(close(*a, *b, 1e-12), "{}: {field}[{i}] {a} vs {b}", k.name);
            }
        }
    }
}

#[test]
fn attached_model_runs_as_mujoco_does() {
    let r = reference();
    let mut scene = load_scene(&scene_path(), Dialect::Mujoco, &[]).unwrap();
    let key = &scene.model().multibody.keyframes[1].clone();
    scene.set_qpos(&key.qpos).unwrap();
    scene.set_ctrl(&key.ctrl).unwrap();
    let mut worst: f64 = 0.0;
    let mut step = 0;
    for snap in r["run"].as_array().unwrap() {
        while step < snap["step"].as_u64().unwrap() {
            scene.step().unwrap();
            step += 1;
        }
        let theirs: Vec<f64> = serde_json::from_value(snap["qpos"].clone()).unwrap();
        let ours = &scene.data().multibody.qpos;
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            worst = worst.max((a - b).abs());
            assert!((a - b).abs() < 1e-9, "qpos[{i}] at step {step}: {a} vs {b}");
        }
    }
    // 1.4e-10 (5.2e-9 before mesh vertices were read in single precision, as MuJoCo reads them).
    println!("attach.xml, 60 steps vs MuJoCo 4.0: max |Δqpos| {worst:.1e}");
}

#[test]
fn attach_errors_name_what_is_wrong() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/attach");
    let load = |xml: &str| load_mjcf_str(xml, &dir).unwrap_err();
    let e = load(r#"<mujoco><worldbody><attach model="arm" body="base" prefix="a_"/></worldbody></mujoco>"#);
    assert!(matches!(&e, MjcfError::UndefinedName { kind: "model asset", .. }), "{e}");
    let e = load(
        r#"<mujoco><asset><model name="arm" file="arm.xml"/></asset>
           <worldbody><attach model="arm" body="nope" prefix="a_"/></worldbody></mujoco>"#,
    );
    assert!(matches!(&e, MjcfError::UndefinedName { kind: "body", .. }), "{e}");
    let e = load(
        r#"<mujoco><compiler angle="radian"/><asset><model name="arm" file="arm.xml"/></asset>
           <worldbody><attach model="arm" body="base" prefix="a_"/></worldbody></mujoco>"#,
    );
    assert!(e.to_string().contains("<compiler>"), "{e}");
    let e = load(
        r#"<mujoco><asset><model name="arm" file="arm.xml"/></asset>
           <worldbody><attach model="arm" body="base" prefix="a_"/><attach model="arm" body="base" prefix="a_"/></worldbody></mujoco>"#,
    );
    assert!(matches!(&e, MjcfError::DuplicateName { .. }), "{e}");
    let e = load(r#"<mujoco><asset><model name="arm" file="missing.xml"/></asset></mujoco>"#);
    assert!(e.to_string().contains("missing.xml"), "{e}");
}

#[test]
fn replicate_copies_the_elements_that_refer_to_it() {
    let xml = r#"<mujoco><worldbody>
        <replicate count="2" offset="1 0 0">
          <site name="a" pos="0 0 1"/>
          <body name="b" pos="0 0 0.5"><freejoint/><geom size="0.1"/><site name="s"/></body>
        </replicate>
        <replicate count="2" offset="0 1 0"><site name="c"/></replicate>
      </worldbody>
      <tendon><spatial name="t"><site site="a"/><site site="s"/></spatial></tendon>
      <actuator><motor name="m" tendon="t"/></actuator></mujoco>"#;
    let spec = load_mjcf_str(xml, std::path::Path::new(".")).unwrap().spec;
    let tendons: Vec<_> = spec.tendons.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tendons, ["t0", "t1"]);
    let actuators: Vec<_> = spec.actuators.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(actuators, ["m0", "m1"]);
    assert_eq!(spec.actuators[1].transmission, Transmission::Tendon(1));
    let mixed = xml.replace(r#"<site site="s"/>"#, r#"<site site="s"/><site site="c"/>"#);
    let e = load_mjcf_str(&mixed, std::path::Path::new(".")).unwrap_err();
    assert!(e.to_string().contains("two different <replicate>s"), "{e}");
}

/// `<attach frame>` without a model copies a named frame of the same file, names prefixed, against MuJoCo 4.0's
/// compiled geoms (`tests/data/attach/frame_attach.xml`).
#[test]
fn attached_frames_compile_as_mujoco_does() {
    let reference: Value =
        serde_json::from_str(include_str!("data/attach/frame_attach_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/attach/frame_attach.xml");
    let scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let m = &scene.model().multibody;
    let bodies: Vec<String> = serde_json::from_value(reference["bodies"].clone()).unwrap();
    assert_eq!(m.body_name, bodies);
    let geoms = reference["geoms"].as_array().unwrap();
    let names = &scene.model().collision().geoms().name;
    assert_eq!(names.len(), geoms.len());
    let d = &scene.data().multibody;
    let mut forward = d.clone();
    m.forward_kinematics(&mut forward);
    for (g, theirs) in geoms.iter().enumerate() {
        assert_eq!(names[g], theirs["name"].as_str().unwrap());
        for k in 0..3 {
            let b = theirs["xpos"][k].as_f64().unwrap();
            assert!(
                (forward.geom_xpos[g][k] - b).abs() < 1e-12,
                "{}: xpos {:?}",
                names[g],
                forward.geom_xpos[g]
            );
        }
    }
}

/// A keyframe of an attached model sets the joints it names (the first copy's, inside a replicate) and leaves every
/// other free joint at the model's `qpos0` bit for bit, as MuJoCo does: the copies' quaternions come out of the
/// nested replicates' rotations a rounding away from unit length, and `qpos0` holds them normalised. So trees marked
/// `sleep="init"` that the key does not move start asleep, as in MuJoCo's `sleep/100_humanoids.xml` (1 tree of 100
/// awake after the keyframe reset; 15 were before).
#[test]
fn an_attached_key_leaves_the_other_copies_at_qpos0() {
    let dir = std::env::temp_dir().join(format!("signorini-attach-key-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("child.xml"),
        r#"<mujoco>
  <worldbody>
    <body name="torso" pos="0 0 1.282" sleep="init">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
  <keyframe><key name="moved" qpos="0.3 0 0.9 1 0 0 0"/></keyframe>
</mujoco>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("parent.xml"),
        r#"<mujoco>
  <option><flag sleep="enable"/></option>
  <asset><model name="child" file="child.xml"/></asset>
  <worldbody>
    <geom type="plane" size="10 10 0.1"/>
    <replicate count="10" euler="0 0 36" sep="-">
      <frame pos="1.2 0 0">
        <replicate count="10" euler="0 0 17" sep="-" offset="0.6 0 0">
          <attach model="child" body="torso" prefix="_"/>
        </replicate>
      </frame>
    </replicate>
  </worldbody>
</mujoco>"#,
    )
    .unwrap();
    let scene = load_scene(&dir.join("parent.xml"), Dialect::Mujoco, &[]);
    std::fs::remove_dir_all(&dir).unwrap();
    let scene = scene.unwrap();
    let model = &scene.model().multibody;
    let key = &model.keyframes[0];
    assert_eq!(key.qpos[..7], [0.3, 0.0, 0.9, 1.0, 0.0, 0.0, 0.0], "the key moves the first copy");
    assert_eq!(key.qpos[7..], model.qpos0[7..], "the other copies stay at qpos0, bit for bit");
    let data = scene.data();
    assert!(!data.is_tree_asleep(0), "the copy the key moved is awake");
    assert!((1..100).all(|t| data.is_tree_asleep(t)), "the copies at qpos0 start asleep");
}
