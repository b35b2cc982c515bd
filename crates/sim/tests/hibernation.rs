//! Hibernation (spec §E): islands at rest sleep in place and stop costing contacts, an awake body that touches a
//! sleeper wakes its island (which then holds on the floor again), setting the state wakes everything, and driven
//! trees stay awake.

use signorini_mjcf::{load_scene, load_scene_str};
use signorini_sim::Dialect;
use std::path::{Path, PathBuf};

use signorini_sim::Scene;

fn shared(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(rel)
}

fn set(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Free-body positions (`x, y, z` per free joint).
fn positions(scene: &Scene) -> Vec<[f64; 3]> {
    let (m, d) = (&scene.model().multibody, &scene.data().multibody);
    scene
        .free_joints()
        .into_iter()
        .map(|j| {
            let a = m.jnt_qposadr[j];
            [d.qpos[a], d.qpos[a + 1], d.qpos[a + 2]]
        })
        .collect()
}

#[test]
fn a_resting_stack_sleeps_in_place() {
    for dialect in [Dialect::Native, Dialect::Mujoco] {
        let path = shared("scenes/box_stack.xml");
        let mut asleep = load_scene(&path, dialect, &set(&[("use_hibernation", "true")])).unwrap();
        let mut awake = load_scene(&path, dialect, &[]).unwrap();
        let mut frozen = Vec::new();
        for k in 1..=600 {
            asleep.step().unwrap();
            awake.step().unwrap();
            if k == 400 {
                assert_eq!(asleep.stats().sleeping_trees, 10, "{dialect:?}: the whole stack sleeps");
                assert_eq!(asleep.stats().contacts, 0, "no contact with the floor or between sleepers");
                frozen = asleep.data().multibody.qpos.clone();
            }
        }
        assert_eq!(asleep.data().multibody.qpos, frozen, "a sleeping stack does not move");
        assert!(asleep.data().multibody.qvel.iter().all(|&v| v == 0.0));
        for (a, b) in positions(&asleep).iter().zip(positions(&awake)) {
            for k in 0..3 {
                assert!((a[k] - b[k]).abs() < 1e-3, "{dialect:?}: asleep {a:?} vs awake {b:?}");
            }
        }
    }
}

const DROP: &str = r#"<mujoco><option timestep="0.002"/>
  <worldbody><geom type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="ball" pos="0.02 0 1.2"><freejoint/><geom type="sphere" size="0.05" mass="2"/></body>
  </worldbody></mujoco>"#;

#[test]
fn a_falling_ball_wakes_the_sleeping_box() {
    let mut scene =
        load_scene_str(DROP, Path::new("."), Dialect::Native, &set(&[("use_hibernation", "true")])).unwrap();
    let mut reference = load_scene_str(DROP, Path::new("."), Dialect::Native, &[]).unwrap();
    let (mut slept, mut woke) = (false, false);
    let (mut lowest_box, mut lowest_reference): (f64, f64) = (1.0, 1.0);
    for _ in 0..1500 {
        scene.step().unwrap();
        reference.step().unwrap();
        lowest_reference = lowest_reference.min(positions(&reference)[0][2]);
        let sleeping = scene.stats().sleeping_trees;
        // The box rests from the start; the ball falls for ~0.45 s, then lands on it.
        slept |= sleeping == 1;
        woke |= slept && sleeping == 0;
        lowest_box = lowest_box.min(positions(&scene)[0][2]);
    }
    assert!(slept && woke, "slept {slept}, woke {woke}");
    // The impact presses the box into the floor as deep as without hibernation: its floor contact is back.
    assert!(
        (lowest_box - lowest_reference).abs() < 1e-5,
        "the woken box keeps its floor contact: lowest z {lowest_box} vs {lowest_reference} awake"
    );
    assert_eq!(scene.stats().sleeping_trees, 2, "box and ball settle and sleep together");
    let p = positions(&scene);
    assert!(p[1][2] > 0.24 && p[1][2] < 0.26, "the ball rests on the box: {p:?}");
}

#[test]
fn setting_the_state_wakes_everything_and_driven_trees_stay_awake() {
    let hib = set(&[("use_hibernation", "true")]);
    let mut scene = load_scene_str(DROP, Path::new("."), Dialect::Native, &hib).unwrap();
    for _ in 0..1500 {
        scene.step().unwrap();
    }
    assert_eq!(scene.stats().sleeping_trees, 2);
    let qvel = scene.data().multibody.qvel.clone();
    scene.set_qvel(&qvel).unwrap();
    scene.step().unwrap();
    assert_eq!(scene.stats().sleeping_trees, 0, "set_qvel wakes every tree");

    // The arm's actuators hold a nonzero ctrl (keyframe 0): its tree never sleeps; the free box beside it does.
    let mut arm = load_scene(&shared("scenes/arm.xml"), Dialect::Native, &hib).unwrap();
    assert!(arm.data().multibody.ctrl.iter().any(|&c| c != 0.0));
    for _ in 0..2000 {
        arm.step().unwrap();
    }
    let trees_with_dofs = 2;
    assert!(arm.stats().sleeping_trees < trees_with_dofs, "{}", arm.stats().sleeping_trees);
}

/// The forward stages skip sleeping trees: with the box asleep and the ball falling, a forward pass that skips the
/// box gives bit for bit the quantities of a full forward pass of the same state.
#[test]
fn forward_passes_that_skip_sleepers_match_full_ones() {
    let mut scene =
        load_scene_str(DROP, Path::new("."), Dialect::Native, &set(&[("use_hibernation", "true")])).unwrap();
    for _ in 0..100 {
        scene.step().unwrap();
    }
    assert_eq!(scene.stats().sleeping_trees, 1, "the box sleeps, the ball falls");
    let model = &scene.model().multibody;
    let mut skipping = scene.data().multibody.clone();
    assert!(!skipping.is_body_awake(1) && skipping.is_body_awake(2));
    let mut full = skipping.clone();
    full.wake_all();
    model.forward(&mut skipping).unwrap();
    model.forward(&mut full).unwrap();
    assert_eq!(skipping.xpos, full.xpos);
    assert_eq!(skipping.xquat, full.xquat);
    assert_eq!(skipping.geom_xpos, full.geom_xpos);
    assert_eq!(skipping.cdof, full.cdof);
    assert_eq!(skipping.qm, full.qm);
    assert_eq!(skipping.qld, full.qld);
    assert_eq!(skipping.qld_diag_inv, full.qld_diag_inv);
    assert_eq!(skipping.qfrc_bias, full.qfrc_bias);
    assert_eq!(skipping.qfrc_smooth, full.qfrc_smooth);
    assert_eq!(skipping.qacc_smooth, full.qacc_smooth);
}

/// MJCF's `<flag sleep="enable"/>` turns hibernation on with MuJoCo's rest threshold, `sleep_tolerance` (1e-3 m/s
/// unless the file sets it); the boxes then sleep.
#[test]
fn mjcf_sleep_flag_and_tolerance() {
    let xml = |option: &str| {
        format!(
            r#"<mujoco><option timestep="0.002" {option}><flag sleep="enable"/></option><worldbody>
            <geom type="plane" size="1 1 0.1"/><body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
            </worldbody></mujoco>"#
        )
    };
    for (option, threshold) in [("", 1e-3), (r#"sleep_tolerance="2e-3""#, 2e-3)] {
        let mut scene = load_scene_str(&xml(option), Path::new("."), Dialect::Mujoco, &[]).unwrap();
        assert!(scene.options().use_hibernation);
        assert_eq!(scene.options().hibernation_thresh_vel, Some(threshold));
        for _ in 0..200 {
            scene.step().unwrap();
        }
        assert_eq!(scene.stats().sleeping_trees, 1, "{option}");
    }
}

/// Seed 001 §8.4 (Genesis): a sleeping body keeps the contacts and solved forces of the step it fell asleep in for
/// read-back, so a resting box still reads its weight in the floor's support, until it wakes; MuJoCo 4.0 reports no
/// contact for a sleeper, and its dialect keeps none.
#[test]
fn sleeping_bodies_keep_their_support_forces_natively() {
    const XML: &str = r#"<mujoco><worldbody><geom type="plane" size="1 1 0.1"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="2"/></body>
        </worldbody></mujoco>"#;
    let set = [("use_hibernation".to_string(), "true".to_string())];
    for (dialect, keeps) in [(signorini_sim::Dialect::Native, true), (signorini_sim::Dialect::Mujoco, false)]
    {
        let mut s = signorini_mjcf::load_scene_str(XML, std::path::Path::new("."), dialect, &set).unwrap();
        let mut slept = false;
        for _ in 0..3000 {
            s.step().unwrap();
            if s.stats().sleeping_trees == 1 {
                slept = true;
                break;
            }
        }
        assert!(slept, "{dialect:?}: the box falls asleep");
        for _ in 0..20 {
            s.step().unwrap();
        }
        assert_eq!(s.stats().sleeping_trees, 1);
        assert_eq!(s.stats().contacts, 0, "{dialect:?}: no live contact while asleep");
        let c = s.contacts();
        if keeps {
            assert!(c.len() >= 4, "kept contacts: {}", c.len());
            let support: f64 = c.force_b.iter().map(|f| f.z).sum::<f64>().abs();
            assert!((support - 2.0 * 9.81).abs() < 0.05 * 2.0 * 9.81, "support {support} N");
            let net = s.data().links_net_contact_force(s.model());
            assert!((net[1].z - 2.0 * 9.81).abs() < 0.05 * 2.0 * 9.81, "net force on the box {}", net[1]);
        } else {
            assert!(c.is_empty(), "MuJoCo keeps none: {}", c.len());
        }
        // Woken by a new state, the box's contacts are live again and the kept ones are gone.
        let q = s.data().multibody.qpos.clone();
        s.set_qpos(&q).unwrap();
        s.step().unwrap();
        assert_eq!(s.stats().sleeping_trees, 0);
        assert_eq!(s.contacts().len(), s.stats().contacts, "{dialect:?}: only live contacts after waking");
    }
}

/// Steps `scene` (in `tests/data`) from the reference's keyframe as far as the reference goes and checks, each step,
/// MuJoCo's contact count and number of sleeping trees; returns the scene, the reference and each tree's first step
/// asleep.
fn follow_sleep_reference(scene: &str) -> (Scene, serde_json::Value, Vec<Option<u64>>) {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let text = std::fs::read_to_string(data.join(scene.replace(".xml", "_reference.json"))).unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut s = load_scene(&data.join(scene), Dialect::Mujoco, &[]).unwrap();
    let keyframe: Option<usize> = serde_json::from_value(reference["keyframe"].clone()).unwrap();
    let model = s.model().clone();
    s.data_mut().reset_to(&model, keyframe).unwrap();
    let ntree = model.multibody.ntree;
    let start: Vec<bool> = serde_json::from_value(reference["asleep_at_start"].clone()).unwrap();
    let ours_start: Vec<bool> = (0..ntree).map(|t| s.data().is_tree_asleep(t)).collect();
    assert_eq!(ours_start, start, "{scene}");
    let ncon: Vec<usize> = serde_json::from_value(reference["ncon"].clone()).unwrap();
    let nasleep: Vec<usize> = serde_json::from_value(reference["nasleep"].clone()).unwrap();
    let warmstart: std::collections::HashMap<String, Vec<f64>> =
        serde_json::from_value(reference["qacc_warmstart"].clone()).unwrap();
    let mocap: Option<Vec<[f64; 3]>> = serde_json::from_value(reference["mocap_pos"].clone()).unwrap_or(None);
    let mut first = vec![None; ntree];
    for step in 1..=ncon.len() as u64 {
        if let Some(path) = &mocap {
            let p = path[step as usize - 1];
            s.set_mocap_pose(0, glam::DVec3::from(p), glam::DQuat::IDENTITY).unwrap();
        }
        s.step().unwrap();
        let k = step as usize - 1;
        assert_eq!(
            (s.stats().contacts, s.stats().sleeping_trees),
            (ncon[k], nasleep[k]),
            "{scene}, step {step}"
        );
        if let Some(expected) = warmstart.get(&step.to_string()) {
            // The next step's warm start on sleeping dofs is MuJoCo's: the second solve's acceleration in the step a
            // tree falls asleep, then its last smooth acceleration (zero after a reset that slept it). (On awake dofs
            // it is the solve's, equal to MuJoCo's within the solver's tolerance.) The 2e-4 m/s² allows for sleep.xml's
            // rocking boxes: 1e-8 apart in the step one falls asleep, their tangential accelerations differ by up to
            // 1.1e-4 while the normal one agrees to 1e-10 (sleep_wake.xml's agree to 1e-14).
            let ours = &s.data().qacc_warmstart;
            for (dof, (a, b)) in ours.iter().zip(expected).enumerate() {
                if s.data().is_tree_asleep(model.multibody.dof_treeid[dof]) {
                    assert!((a - b).abs() < 2e-4, "{scene}, step {step}, dof {dof}: {a} vs {b}");
                }
            }
        }
        for (t, f) in first.iter_mut().enumerate() {
            if f.is_none() && s.data().is_tree_asleep(t) {
                *f = Some(step);
            }
        }
    }
    let expected: Vec<Option<u64>> = serde_json::from_value(reference["first_asleep"].clone()).unwrap();
    assert_eq!(first, expected, "{scene}");
    (s, reference, first)
}

/// Sleep policies and timing against MuJoCo 4.0 (`tests/data/sleep.xml`, `scripts/mujoco_sleep_reference.py`):
/// `init` starts asleep in mid-air and stays there, `never` stays awake at rest, the automatic rule lets a resting box
/// sleep and keeps an actuated hinge awake, `allowed` lets an actuated hinge sleep. Each falls asleep in MuJoCo's step:
/// the box in the step whose contacts still hold it (MuJoCo decides before advancing), the hinge one step early
/// (the reset that put the `init` box to sleep counted a step at rest). Every step has MuJoCo's contact count.
#[test]
fn sleep_policies_follow_mujoco() {
    let (scene, reference, first) = follow_sleep_reference("sleep.xml");
    let qpos: Vec<f64> = serde_json::from_value(reference["qpos"].clone()).unwrap();
    let ours = &scene.data().multibody.qpos;
    // The mid-air box never moved.
    assert_eq!(ours[..7], qpos[..7]);
    let gap = ours.iter().zip(&qpos).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("sleep: first asleep {first:?}; qpos at step 500 within {gap:.1e} of MuJoCo's");
    // The two boxes start 1 mm into the plane and rock on their corners, which grows rounding (1e-12 at step 5):
    // MuJoCo's own runs part by 6e-8 to 1.1e-7 at step 500 when their velocities are perturbed by 1e-14 to 1e-12.
    assert!(gap < 2e-7, "{gap}");
}

/// Waking against MuJoCo 4.0 (`tests/data/sleep_wake.xml`): the box asleep from the reset wakes at the touch of a
/// slow box that has counted five steps at rest, takes that count, and the pair sleeps again four steps later, still
/// moving apart, at step 9 (restarting the count at zero would put the pair to sleep at step 14, not counting the
/// reset at step 10). Positions equal MuJoCo's, and so do the contact forces of every step: in the step the pair falls asleep they
/// come from the second solve, with the velocities zeroed (0.069 N against the first solve's 0.30 N).
#[test]
fn a_woken_tree_takes_the_rest_count_of_its_toucher_as_in_mujoco() {
    let (scene, reference, _) = follow_sleep_reference("sleep_wake.xml");
    let qpos: Vec<f64> = serde_json::from_value(reference["qpos"].clone()).unwrap();
    let gap = scene.data().multibody.qpos.iter().zip(&qpos).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(gap < 1e-14, "{gap}");
    let normal: Vec<Vec<f64>> = serde_json::from_value(reference["normal_force"].clone()).unwrap();
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/sleep_wake.xml");
    let mut s = load_scene(&data, Dialect::Mujoco, &[]).unwrap();
    let model = s.model().clone();
    s.data_mut().reset_to(&model, Some(0)).unwrap();
    for (k, expected) in normal.iter().enumerate() {
        s.step().unwrap();
        let c = s.contacts();
        let mut ours: Vec<f64> = (0..c.len()).map(|i| c.force_a[i].dot(c.normal[i]).abs()).collect();
        ours.sort_by(f64::total_cmp);
        assert_eq!(ours.len(), expected.len(), "step {}", k + 1);
        for (a, b) in ours.iter().zip(expected) {
            assert!((a - b).abs() < 1e-12, "step {}: {ours:?} vs {expected:?}", k + 1);
        }
    }
}

/// A mocap box pushed into a box asleep from the reset wakes it, as in MuJoCo 4.0 (`tests/data/sleep_mocap.xml`): the
/// mocap body has no dofs, so no tree of its own, yet its touch wakes the sleeper (before, it passed through the
/// sleeping box). Every step's contact count and sleeping trees are MuJoCo's, and the pushed box ends within 1e-9 m of
/// MuJoCo's.
#[test]
fn a_mocap_body_wakes_what_it_touches_as_in_mujoco() {
    let (scene, reference, _) = follow_sleep_reference("sleep_mocap.xml");
    let qpos: Vec<f64> = serde_json::from_value(reference["qpos"].clone()).unwrap();
    let gap = scene.data().multibody.qpos.iter().zip(&qpos).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("sleep_mocap: qpos at step 200 within {gap:.1e} of MuJoCo's");
    assert!(gap < 1e-9, "{gap}");
    // Natively too: the pushed box moves ahead of the pusher.
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/sleep_mocap.xml");
    let mut native = load_scene(&data, Dialect::Native, &[]).unwrap();
    assert!(native.data().is_tree_asleep(0));
    for step in 1..=200 {
        let x = -0.2 + 0.001 * step as f64;
        native.set_mocap_pose(0, glam::DVec3::new(x, 0.0, 0.05), glam::DQuat::IDENTITY).unwrap();
        native.step().unwrap();
    }
    assert!(native.data().multibody.qpos[0] > 0.05, "{}", native.data().multibody.qpos[0]);
}
