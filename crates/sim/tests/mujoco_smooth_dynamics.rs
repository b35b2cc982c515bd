//! The smooth dynamics of `../shared/scenes/arm.xml` (a free box and a 7-joint arm with position servos, damping
//! and armature) against MuJoCo 4.0.1 bit for bit over its first 7 steps, before the box meets the table
//! (`model/tests/data/mujoco_arithmetic.json`, `scripts/mujoco_arithmetic_reference.py`): the compiled masses and
//! inertias (MuJoCo's primitive formulas), then `qpos`, `qvel` and `qacc_smooth` after each step. They depend on
//! the composite rigid body algorithm and the bias forces (`mju_mulInertVec`'s and `mju_dot`'s orders), the
//! centre-of-mass inertias (`mju_inertCom`), the subtree centres of mass (scaled by the reciprocal mass), the
//! factorisation and solve with `M` (`mju_dotSparse`'s order), and `qfrc_smooth`'s order `((passive − bias) +
//! applied) + actuator`. Before these followed MuJoCo the run parted at step 1 by 1e-20 and at step 13 by 2.5e-11.

use std::path::PathBuf;

use serde_json::Value;
use signorini_sim::Dialect;

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .flat_map(|x| x.as_array().cloned().unwrap_or_else(|| vec![x.clone()]))
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn bits_equal(ours: &[f64], theirs: &[f64]) -> bool {
    ours.len() == theirs.len() && ours.iter().zip(theirs).all(|(a, b)| a.to_bits() == b.to_bits())
}

#[test]
fn arm_follows_mujoco_bit_for_bit_until_contact() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("../model/tests/data/mujoco_arithmetic.json")).unwrap(),
    )
    .unwrap();
    let arm = &reference["arm"];
    let mut scene =
        signorini_mjcf::load_scene(&root.join("../../../shared/scenes/arm.xml"), Dialect::Mujoco, &[])
            .unwrap();
    let model = &scene.model().multibody;
    let inertia: Vec<f64> = model.body_inertia.iter().flat_map(|i| i.to_array()).collect();
    assert!(bits_equal(&model.body_mass, &numbers(&arm["body_mass"])), "body_mass");
    assert!(bits_equal(&inertia, &numbers(&arm["body_inertia"])), "body_inertia");
    for (k, step) in arm["steps"].as_array().unwrap().iter().enumerate() {
        scene.step().unwrap();
        let d = &scene.data().multibody;
        for (name, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel), ("qacc_smooth", &d.qacc_smooth)] {
            let theirs = numbers(&step[name]);
            assert!(bits_equal(ours, &theirs), "step {}: {name} {ours:?} against {theirs:?}", k + 1);
        }
        assert_eq!(scene.contacts().geom_a.len(), 0, "step {}: no contact yet", k + 1);
    }
}
