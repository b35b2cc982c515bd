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

/// Sleep policies against MuJoCo 4.0 (`tests/data/sleep.xml`, `scripts/mujoco_sleep_reference.py`): `init` starts
/// asleep in mid-air and stays there, `never` stays awake at rest, the automatic rule lets a resting box sleep and
/// keeps an actuated hinge awake, `allowed` lets an actuated hinge sleep. The step each falls asleep matches MuJoCo's
/// within one step (the rest count starts after the first step here, before it in MuJoCo).
#[test]
fn sleep_policies_follow_mujoco() {
    let reference: serde_json::Value =
        serde_json::from_str(include_str!("data/sleep_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/sleep.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let ntree = scene.model().multibody.ntree;
    let start: Vec<bool> = serde_json::from_value(reference["asleep_at_start"].clone()).unwrap();
    let first: Vec<Option<u64>> = serde_json::from_value(reference["first_asleep"].clone()).unwrap();
    assert_eq!(ntree, start.len());
    let ours_start: Vec<bool> = (0..ntree).map(|t| scene.data().is_tree_asleep(t)).collect();
    assert_eq!(ours_start, start);
    let mut ours_first = vec![None; ntree];
    for step in 1..=500u64 {
        scene.step().unwrap();
        for (t, f) in ours_first.iter_mut().enumerate() {
            if f.is_none() && scene.data().is_tree_asleep(t) {
                *f = Some(step);
            }
        }
    }
    for t in 0..ntree {
        match (ours_first[t], first[t]) {
            (Some(a), Some(b)) => {
                assert!(a.abs_diff(b) <= 1 || (a == 1 && b == 1), "tree {t}: step {a} vs {b}")
            }
            (a, b) => assert_eq!(a, b, "tree {t}"),
        }
    }
    let qpos: Vec<f64> = serde_json::from_value(reference["qpos"].clone()).unwrap();
    // The mid-air box never moved.
    assert_eq!(scene.data().multibody.qpos[..7], qpos[..7]);
    println!("sleep: first asleep {ours_first:?} vs MuJoCo {first:?}");
}
