//! Whole scenes against MuJoCo 4.0's reference runs (`../shared/testdata/mujoco/*.json`) and physical read-back.

use std::path::PathBuf;

use serde_json::Value;
use signorini_sim::Scene;

fn shared(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(rel)
}

/// MuJoCo parity (spec §6 acceptance): `ncon` at steps 100, 500, 2000, free-body positions within 1e-4 m and
/// orientations within 1e-4 rad there, and the run's maximum penetration within 5 %, in MuJoCo-compatible mode.
fn parity(variant: &str) {
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(shared(&format!("testdata/mujoco/{variant}.json"))).unwrap(),
    )
    .unwrap();
    let mut scene = Scene::from_mjcf(&shared(&format!("scenes/{variant}.xml")), true, &[]).unwrap();
    let mut max_pen: f64 = 0.0;
    for k in 1..=2000u64 {
        scene.step().unwrap();
        max_pen = max_pen.max(scene.stats().max_penetration);
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        assert_eq!(
            scene.stats().contacts as u64,
            snap["ncon"].as_u64().unwrap(),
            "{variant} ncon at step {k}"
        );
        let m = scene.model();
        let d = scene.data();
        for (i, j) in scene.free_joints().into_iter().enumerate() {
            let adr = m.jnt_qposadr[j];
            let theirs: Vec<f64> = serde_json::from_value(snap["qpos_free"][i].clone()).unwrap();
            for (ours, theirs) in d.qpos[adr..adr + 3].iter().zip(&theirs[..3]) {
                assert!((ours - theirs).abs() < 1e-4, "{variant} body {i} position at step {k}");
            }
            let q =
                glam::DQuat::from_xyzw(d.qpos[adr + 4], d.qpos[adr + 5], d.qpos[adr + 6], d.qpos[adr + 3]);
            let r = glam::DQuat::from_xyzw(theirs[4], theirs[5], theirs[6], theirs[3]);
            assert!(q.angle_between(r) < 1e-4, "{variant} body {i} orientation at step {k}");
        }
    }
    let theirs = reference["settled"]["max_penetration_over_run"].as_f64().unwrap();
    assert!(
        (max_pen - theirs).abs() <= 0.05 * theirs,
        "{variant}: max penetration {max_pen} vs MuJoCo {theirs}"
    );
}

#[test]
fn mujoco_parity_sphere_drop() {
    for v in ["sphere_drop", "sphere_drop__cg", "sphere_drop__noisland", "sphere_drop__elliptic"] {
        parity(v);
    }
}

#[test]
fn mujoco_parity_box_stack() {
    parity("box_stack");
    parity("box_stack__noisland");
}

#[test]
fn resting_box_forces_balance_its_weight() {
    let xml = r#"<mujoco><option timestep="0.002"/><worldbody>
        <geom type="plane" size="1 1 0.1"/>
        <body name="box" pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
        </worldbody></mujoco>"#;
    let mut scene = Scene::from_mjcf_str(xml, std::path::Path::new("."), false, &[]).unwrap();
    for _ in 0..1000 {
        scene.step().unwrap();
    }
    let c = scene.contacts();
    assert!(c.len() >= 4);
    let total: glam::DVec3 = c.force_b.iter().copied().sum();
    let box_body = 1;
    let weight = scene.model().body_mass[box_body] * 9.81;
    // The contacts are plane (A) – box (B): the force on B holds the box up.
    assert!((total.z - weight).abs() < 1e-6 * weight, "{total} vs weight {weight}");
    for k in 0..c.len() {
        assert_eq!(c.force_a[k], -c.force_b[k]);
    }
    let net = scene.links_net_contact_force();
    assert!((net[box_body] - glam::DVec3::new(0.0, 0.0, weight)).length() < 1e-6 * weight);
}

#[test]
fn mujoco_parity_box_stack_elliptic() {
    parity("box_stack__elliptic");
}

/// `box_stack__cg` is chaotic in MuJoCo itself: perturbing every body by 1e-9 m moves positions by 3e-4 m at step 100
/// (the reference's `perturbation_divergence`), beyond the 1e-4 m of the position check. As the issue prescribes for
/// such scenes, its statistics are compared instead: mean contact count (MuJoCo 47.2) within 10 %, maximum
/// penetration within 5 %, mean CG iterations (MuJoCo 23.7) within 35 %, and a stack that stays up (max |qvel| at
/// step 2000 below 1e-2 m/s; MuJoCo 4.3e-3).
#[test]
fn mujoco_statistics_box_stack_cg() {
    let variant = "box_stack__cg";
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(shared(&format!("testdata/mujoco/{variant}.json"))).unwrap(),
    )
    .unwrap();
    let divergence = reference["perturbation_divergence"]["by_step"]["100"].as_f64().unwrap();
    assert!(divergence > 1e-4, "the reference is chaotic at step 100 ({divergence} m)");
    let settled = &reference["settled"];
    let mut scene = Scene::from_mjcf(&shared(&format!("scenes/{variant}.xml")), true, &[]).unwrap();
    let (mut max_pen, mut ncon, mut niter): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for _ in 0..2000 {
        scene.step().unwrap();
        max_pen = max_pen.max(scene.stats().max_penetration);
        ncon += scene.stats().contacts as f64 / 2000.0;
        niter += scene.stats().iterations as f64 / 2000.0;
    }
    let close = |ours: f64, key: &str, rel: f64| {
        let theirs = settled[key].as_f64().unwrap();
        assert!((ours - theirs).abs() <= rel * theirs, "{variant}: {key} {ours} vs MuJoCo {theirs}");
    };
    close(ncon, "ncon_mean_steps_1_2000", 0.10);
    close(max_pen, "max_penetration_over_run", 0.05);
    close(niter, "solver_niter_mean_steps_1_2000", 0.35);
    let speed = scene.data().qvel.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(speed < 1e-2, "{variant}: max |qvel| {speed} at step 2000");
}
