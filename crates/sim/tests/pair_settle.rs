//! Issue 23's pair table as a test: a tilted body dropped on another resting on the floor, left to settle for 1000
//! steps in MuJoCo-compatible mode, for the ten pairs of the issue (cylinder on box, cylinder, capsule and ellipsoid;
//! capsule on box and capsule; ellipsoid on sphere, capsule and ellipsoid; box on cylinder), against MuJoCo 4.0.1's
//! runs of the same scenes (`tests/data/pair_settle_reference.json`, from `python3 scripts/mujoco_pair_settle.py
//! --reference ...`, which also prints the side-by-side table). Every pair follows MuJoCo bit for bit: the contact
//! count every 50 steps, the largest penetration over the run and both bodies' final `qpos`.

use serde_json::Value;
use signorini_mjcf::load_scene_str;
use signorini_sim::Dialect;
use std::path::Path;

#[test]
fn dropped_pairs_settle_as_in_mujoco() {
    let reference: Value = serde_json::from_str(include_str!("data/pair_settle_reference.json")).unwrap();
    let pairs = reference["pairs"].as_object().unwrap();
    assert_eq!(pairs.len(), 10, "the ten pairs of issue 23's table");
    for (name, theirs) in pairs {
        let xml = theirs["xml"].as_str().unwrap();
        let mut scene = load_scene_str(xml, Path::new("."), Dialect::Mujoco, &[]).unwrap();
        let steps = theirs["steps"].as_u64().unwrap();
        let mut max_penetration = 0.0f64;
        for k in 1..=steps {
            scene.step().unwrap();
            let stats = scene.stats();
            max_penetration = max_penetration.max(stats.max_penetration);
            if let Some(n) = theirs["ncon"].get(k.to_string()) {
                assert_eq!(stats.contacts as u64, n.as_u64().unwrap(), "{name}: contacts at step {k}");
            }
        }
        let their_penetration = theirs["max_penetration"].as_f64().unwrap();
        assert_eq!(max_penetration, their_penetration, "{name}: largest penetration");
        let qpos = &scene.data().multibody.qpos;
        let their_qpos: Vec<f64> =
            theirs["qpos"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(qpos.len(), their_qpos.len(), "{name}: nq");
        for (i, (a, b)) in qpos.iter().zip(&their_qpos).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "{name}: qpos[{i}] {a} vs MuJoCo's {b}");
        }
    }
}
