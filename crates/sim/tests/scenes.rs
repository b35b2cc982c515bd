//! Whole scenes against MuJoCo 4.0's reference runs (`../shared/testdata/mujoco/*.json`) and physical read-back.

use signorini_mjcf::{load_scene, load_scene_str};
use signorini_sim::{Dialect, Scene};
use std::path::PathBuf;

use serde_json::Value;

fn shared(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(rel)
}

/// Our free bodies' positions against a reference snapshot's `qpos_free` (one `[x, y, z, qw, qx, qy, qz]` per free
/// joint, in joint order): `(body, ours, MuJoCo's)` for each coordinate.
fn free_positions(scene: &Scene, snap: &Value) -> Vec<(usize, f64, f64)> {
    let (m, d) = (&scene.model().multibody, &scene.data().multibody);
    let mut out = Vec::new();
    for (i, j) in scene.free_joints().into_iter().enumerate() {
        let adr = m.jnt_qposadr[j];
        let theirs: Vec<f64> = serde_json::from_value(snap["qpos_free"][i].clone()).unwrap();
        out.extend(d.qpos[adr..adr + 3].iter().zip(&theirs[..3]).map(|(&a, &b)| (i, a, b)));
    }
    out
}

/// Asserts that `ours` is the snapshot's `field` (a JSON array of MuJoCo's numbers) bit for bit, length included;
/// `label` prefixes the messages.
fn assert_field_bits(label: &str, field: &str, ours: &[f64], snap: &Value, k: u64) {
    let theirs: Vec<f64> = serde_json::from_value(snap[field].clone()).unwrap();
    assert_eq!(ours.len(), theirs.len(), "{label}{field}: length");
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a.to_bits(), b.to_bits(), "{label}{field}[{i}] at step {k}: {a} vs {b}");
    }
}

/// MuJoCo parity (spec §6 acceptance): `ncon` at steps 100, 500, 2000, free-body positions within 1e-4 m and
/// orientations within 1e-4 rad there, and the run's maximum penetration within 5 %, in MuJoCo-compatible mode.
fn parity(variant: &str) {
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(shared(&format!("testdata/mujoco/{variant}.json"))).unwrap(),
    )
    .unwrap();
    let mut scene = load_scene(&shared(&format!("scenes/{variant}.xml")), Dialect::Mujoco, &[]).unwrap();
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
        let m = &scene.model().multibody;
        let d = &scene.data().multibody;
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
    let mut scene = load_scene_str(xml, std::path::Path::new("."), Dialect::Native, &[]).unwrap();
    for _ in 0..1000 {
        scene.step().unwrap();
    }
    let c = scene.contacts();
    assert!(c.len() >= 4);
    let total: glam::DVec3 = c.force_b.iter().copied().sum();
    let box_body = 1;
    let weight = scene.model().multibody.body_mass[box_body] * 9.81;
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

/// Statistics `[mean contact count, deepest penetration, mean solver iterations, max |qvel| at the end]` of `trials`
/// MuJoCo-compatible runs of `../shared/scenes/{variant}.xml` over `steps` steps, stepped as one batch: trial 0 from
/// keyframe 0, the others with every free-joint position coordinate moved by ±1e-9 m (seeded), as
/// `scripts/mujoco_ensemble.py` perturbs MuJoCo's runs.
fn ensemble(variant: &str, trials: usize, steps: usize) -> Vec<[f64; 4]> {
    use signorini_model::spec::JointKind;
    let scene = load_scene(&shared(&format!("scenes/{variant}.xml")), Dialect::Mujoco, &[]).unwrap();
    let model = scene.model().clone();
    let mut batch = signorini_sim::Batch::new(model.clone(), trials).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for t in 1..trials {
        let data = batch.env_mut(t).unwrap();
        let mut qpos = data.multibody.qpos.clone();
        let mb = &model.multibody;
        for j in (0..mb.njnt).filter(|&j| mb.jnt_type[j] == JointKind::Free) {
            for q in &mut qpos[mb.jnt_qposadr[j]..mb.jnt_qposadr[j] + 3] {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *q += if seed & 1 == 0 { 1e-9 } else { -1e-9 };
            }
        }
        data.set_qpos(&qpos).unwrap();
    }
    let mut sums = vec![[0.0; 4]; trials];
    batch
        .step_n_with(steps, &mut sums, |_, d, sum| {
            let s = d.stats();
            sum[0] += s.contacts as f64 / steps as f64;
            sum[1] = sum[1].max(s.max_penetration);
            sum[2] += s.iterations as f64 / steps as f64;
        })
        .unwrap();
    for (t, sum) in sums.iter_mut().enumerate() {
        sum[3] = batch.env(t).unwrap().multibody.qvel.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    }
    sums
}

/// The median of column `k` of [`ensemble`]'s rows.
fn median(rows: &[[f64; 4]], k: usize) -> f64 {
    let mut v: Vec<f64> = rows.iter().map(|r| r[k]).collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `box_stack__cg` is chaotic in MuJoCo itself: perturbing every body by 1e-9 m moves positions by 3e-4 m at step 100
/// (the reference's `perturbation_divergence`), beyond the 1e-4 m of the position check, so its statistics are
/// compared instead, as the issue prescribes. One run is one draw among regimes: over 20 MuJoCo runs from ±1e-9 m
/// perturbed starts (`tests/data/box_stack__cg_ensemble.json`, from `scripts/mujoco_ensemble.py`) the mean contact
/// count spans 39.6–47.2 (a stack that settles or one that keeps rocking) and the mean CG iterations 6.9–25.8. So
/// ours are drawn the same way: the medians of 9 runs (one unperturbed, eight from ±1e-9 m starts) must fall inside
/// MuJoCo's range, widened by 5 % (contacts, penetration) and 50 % (iterations), and the unperturbed stack stays up
/// (max |qvel| at step 2000 within MuJoCo's range, widened by 50 %). A single run's mean contact count moves by 10 %
/// with the last bits of the arithmetic (47.7 and 49.8 before and after the contact Jacobian took MuJoCo's
/// rounding). Since the CG iteration runs MuJoCo's arithmetic on this sparse model, the unperturbed run is MuJoCo's
/// to the bit (`mujoco_parity_sparse_cg`) and the perturbed ones are draws from MuJoCo's own ensemble; the bands
/// stay as they were set for our earlier CG, which took fewer iterations than MuJoCo's.
#[test]
fn mujoco_statistics_box_stack_cg() {
    let variant = "box_stack__cg";
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(shared(&format!("testdata/mujoco/{variant}.json"))).unwrap(),
    )
    .unwrap();
    let divergence = reference["perturbation_divergence"]["by_step"]["100"].as_f64().unwrap();
    assert!(divergence > 1e-4, "the reference is chaotic at step 100 ({divergence} m)");
    let ensemble_ref: Value = serde_json::from_str(include_str!("data/box_stack__cg_ensemble.json")).unwrap();
    // The ensemble was run on the reference's scene, and its unperturbed trial is the reference run.
    assert_eq!(ensemble_ref["scene_sha256"], reference["scene_sha256"]);
    let unperturbed = ensemble_ref["trials"][0]["ncon_mean"].as_f64().unwrap();
    let settled = &reference["settled"];
    assert!((unperturbed - settled["ncon_mean_steps_1_2000"].as_f64().unwrap()).abs() < 1e-9);

    let ours = ensemble(variant, 9, 2000);
    let within = |value: f64, key: &str, widen_low: f64, widen_high: f64| {
        let range = &ensemble_ref["range"][key];
        let (lo, hi) = (range[0].as_f64().unwrap(), range[1].as_f64().unwrap());
        assert!(
            value >= lo * (1.0 - widen_low) && value <= hi * (1.0 + widen_high),
            "{variant}: {key} {value} outside MuJoCo's ensemble range [{lo}, {hi}] (widened by -{widen_low}, \
             +{widen_high}); our runs: {ours:?}"
        );
    };
    println!("{variant}: medians of our runs {:?}", [0, 1, 2].map(|k| median(&ours, k)));
    within(median(&ours, 0), "ncon_mean", 0.05, 0.05);
    within(median(&ours, 1), "max_penetration", 0.05, 0.05);
    within(median(&ours, 2), "solver_niter_mean", 0.5, 0.5);
    within(ours[0][3], "max_abs_qvel_at_end", 1.0, 0.5);
}

/// The `convex` pile of hulls without islands follows MuJoCo 4.0's run (`tests/data/convex__noisland_reference.json`,
/// from `scripts/mujoco_scene_reference.py`): its plane–mesh and mesh–mesh contacts are MuJoCo's own (polygon rule,
/// native GJK/EPA, multiccd clipping), so the contact count matches at steps 100, 500, 1000 and 2000 and the free
/// bodies stay within 2e-4 m of MuJoCo's. The residual (1.2e-4 m at step 500) is rounding in the convex pairs,
/// amplified while the hulls tumble; MuJoCo's own spread from ±1e-9 m starts is 5e-6 m. Mean contact count and mean
/// solver iterations over the run agree within 0.1 % and 1 %.
#[test]
fn mujoco_parity_convex_noisland() {
    let reference: Value =
        serde_json::from_str(include_str!("data/convex__noisland_reference.json")).unwrap();
    let mut scene = load_scene(&shared("scenes/convex__noisland.xml"), Dialect::Mujoco, &[]).unwrap();
    let steps = reference["steps"].as_u64().unwrap();
    let (mut ncon, mut niter) = (0.0, 0.0);
    for k in 1..=steps {
        scene.step().unwrap();
        ncon += scene.stats().contacts as f64 / steps as f64;
        niter += scene.stats().iterations as f64 / steps as f64;
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        assert_eq!(scene.stats().contacts as u64, snap["ncon"].as_u64().unwrap(), "ncon at step {k}");
        for (i, ours, theirs) in free_positions(&scene, snap) {
            assert!((ours - theirs).abs() < 2e-4, "body {i} position at step {k}: {ours} vs {theirs}");
        }
    }
    let (their_ncon, their_iter) =
        (reference["mean_ncon"].as_f64().unwrap(), reference["mean_solver_iterations"].as_f64().unwrap());
    assert!((ncon - their_ncon).abs() < 1e-3 * their_ncon, "mean ncon {ncon} vs MuJoCo {their_ncon}");
    assert!((niter - their_iter).abs() < 1e-2 * their_iter, "mean iterations {niter} vs MuJoCo {their_iter}");
}

/// MuJoCo 4.0's `multiccd` in MuJoCo-compatible scenes: on by default, a cube mesh resting face-down on another gives
/// the four corners of the clipped square; `<flag multiccd="disable"/>` leaves MuJoCo's single EPA contact (MuJoCo 4.0
/// on this scene: 4 and 1 after one step).
#[test]
fn mjcf_multiccd_flag_controls_mesh_contacts() {
    let xml = |flag: &str| {
        format!(
            r#"<mujoco><option timestep="0.002">{flag}</option>
            <asset><mesh name="cube" vertex="-1 -1 -1 1 -1 -1 -1 1 -1 1 1 -1 -1 -1 1 1 -1 1 -1 1 1 1 1 1" scale="0.1 0.1 0.1"/></asset>
            <worldbody><geom type="mesh" mesh="cube" pos="0 0 0.1"/>
            <body pos="0.03 -0.02 0.2995"><freejoint/><geom type="mesh" mesh="cube"/></body></worldbody></mujoco>"#
        )
    };
    let contacts = |flag: &str| {
        let mut scene = load_scene_str(&xml(flag), std::path::Path::new("."), Dialect::Mujoco, &[]).unwrap();
        scene.step().unwrap();
        scene.stats().contacts
    };
    assert_eq!(contacts(""), 4);
    assert_eq!(contacts(r#"<flag multiccd="disable"/>"#), 1);
}

/// The no-slip post-process (spec §C.8) against MuJoCo 4.0.1 (`scripts/mujoco_noslip_reference.py`): a box at rest
/// on an incline (pyramid edge pairs), a rolling ball and a rod held by DOF friction loss. With no-slip the state
/// follows MuJoCo's bit for bit (its `solNoSlip` over its dense `AR`), the rod no longer creeps (MuJoCo: 0.090 rad
/// after 2 s without no-slip, 0 with it) and the box creeps less; the no-slip sweeps per step (summed over islands)
/// average MuJoCo's count.
#[test]
fn noslip_matches_mujoco() {
    let reference: Value = serde_json::from_str(include_str!("data/noslip_reference.json")).unwrap();
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/noslip.xml");
    let steps = reference["steps"].as_u64().unwrap();
    // The contact count and `qpos` of `scene` at step `k` against `snap`, to the bit.
    let check = |case: &str, scene: &signorini_sim::Scene, snap: &Value, k: u64| {
        assert_eq!(scene.stats().contacts as u64, snap["ncon"].as_u64().unwrap(), "{case}: ncon at step {k}");
        let theirs: Vec<f64> = serde_json::from_value(snap["qpos"].clone()).unwrap();
        for (i, (ours, theirs)) in scene.data().multibody.qpos.iter().zip(&theirs).enumerate() {
            assert_eq!(ours.to_bits(), theirs.to_bits(), "{case}: qpos[{i}] at step {k}: {ours} vs {theirs}");
        }
    };
    for (case, overrides) in [("noslip", vec![]), ("plain", vec![("noslip_iterations".into(), "0".into())])] {
        let mut scene = load_scene(&path, Dialect::Mujoco, &overrides).unwrap();
        let mut sweeps = 0;
        for k in 1..=steps {
            scene.step().unwrap();
            sweeps += scene.stats().noslip_iterations;
            if let Some(snap) = reference[case]["snapshots"].get(k.to_string()) {
                check(case, &scene, snap, k);
            }
        }
        let mean = sweeps as f64 / steps as f64;
        let theirs = reference[case]["mean_noslip_sweeps"].as_f64().unwrap();
        assert!(
            (mean - theirs).abs() <= 0.02 * theirs,
            "{case}: mean no-slip sweeps {mean} vs MuJoCo {theirs}"
        );
        let rod = scene.data().multibody.qpos[14];
        let box_x = scene.data().multibody.qpos[0];
        if case == "noslip" {
            assert!(rod.abs() < 1e-9 && box_x < 9e-5, "{case}: rod {rod}, box x {box_x}");
        } else {
            assert!(rod > 0.08 && box_x > 1.2e-4, "{case}: rod {rod}, box x {box_x}");
        }
    }
    // No-slip after PGS and CG, over the whole system, and with the elliptic cone: bit for bit too.
    for (case, key, value) in [
        ("pgs", "constraint_solver", "pgs"),
        ("cg", "constraint_solver", "cg"),
        ("no_islands", "enable_islands", "false"),
        ("elliptic", "friction_cone", "elliptic"),
    ] {
        let mut scene = load_scene(&path, Dialect::Mujoco, &[(key.into(), value.into())]).unwrap();
        for k in 1..=steps {
            scene.step().unwrap();
            if let Some(snap) = reference["variants"][case].get(k.to_string()) {
                check(case, &scene, snap, k);
            }
        }
    }
}

/// What [`statistics`] compares for a scene.
struct Expect {
    /// Relative tolerance on the mean contact count: against MuJoCo's run, or, for a scene with an ensemble of
    /// MuJoCo runs from perturbed starts (`scripts/mujoco_ensemble.py`), against that ensemble's range.
    ncon: f64,
    /// The ensemble (JSON text), for a scene whose contact count MuJoCo itself does not reproduce.
    ensemble: Option<&'static str>,
    /// Relative tolerance on the largest penetration over the run (`None`: not compared).
    penetration: Option<f64>,
    /// Whether the largest |q̇| at the end agrees within 10 % + 0.01 (both at rest, or settling alike).
    settled: bool,
    /// Whether the mean solver iterations agree within 2 % (one island: MuJoCo's sum over islands is our count).
    iterations: bool,
}

/// MuJoCo-compatible runs of the benchmark scenes whose trajectories part from MuJoCo's at rounding level, against
/// MuJoCo 4.0's statistics (`tests/data/scene_statistics.json`, from `scripts/mujoco_scene_statistics.py`): mean
/// contact count, largest penetration over the run, settling and solver iterations, over the same steps.
fn statistics(scene: &str, expect: Expect) {
    let all: Value = serde_json::from_str(include_str!("data/scene_statistics.json")).unwrap();
    let theirs = &all["scenes"][scene];
    let steps = theirs["steps"].as_u64().unwrap();
    let mut scene_run = load_scene(&shared(&format!("scenes/{scene}.xml")), Dialect::Mujoco, &[]).unwrap();
    let (mut ncon, mut iterations, mut max_pen) = (0.0, 0.0, 0.0f64);
    for _ in 0..steps {
        scene_run.step().unwrap();
        let s = scene_run.stats();
        ncon += s.contacts as f64 / steps as f64;
        iterations += s.iterations as f64 / steps as f64;
        max_pen = max_pen.max(s.max_penetration);
    }
    let qvel = scene_run.data().multibody.qvel.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let value = |key: &str| theirs[key].as_f64().unwrap();
    let their_ncon = value("mean_ncon");
    if let Some(text) = expect.ensemble {
        let e: Value = serde_json::from_str(text).unwrap();
        assert_eq!(e["steps"].as_u64(), Some(steps), "{scene}: the ensemble's steps");
        assert_eq!(
            e["trials"][0]["ncon_mean"].as_f64(),
            Some(their_ncon),
            "{scene}: trial 0 is MuJoCo's run"
        );
        let range = &e["range"]["ncon_mean"];
        let (lo, hi) = (range[0].as_f64().unwrap(), range[1].as_f64().unwrap());
        assert!(
            ncon >= lo * (1.0 - expect.ncon) && ncon <= hi * (1.0 + expect.ncon),
            "{scene}: mean ncon {ncon} outside MuJoCo's ensemble range [{lo}, {hi}] widened by {}",
            expect.ncon
        );
    } else {
        assert!(
            (ncon - their_ncon).abs() <= expect.ncon * their_ncon,
            "{scene}: mean ncon {ncon} vs MuJoCo {their_ncon}"
        );
    }
    if let Some(tolerance) = expect.penetration {
        let t = value("max_penetration");
        assert!((max_pen - t).abs() <= tolerance * t, "{scene}: max penetration {max_pen} vs MuJoCo {t}");
    }
    if expect.settled {
        let t = value("max_abs_qvel_at_end");
        assert!((qvel - t).abs() <= 0.1 * t + 0.01, "{scene}: max |qvel| at the end {qvel} vs MuJoCo {t}");
    }
    if expect.iterations {
        let t = value("mean_solver_iterations");
        assert!((iterations - t).abs() <= 0.02 * t, "{scene}: mean iterations {iterations} vs MuJoCo {t}");
    }
}

/// The arm (actuated chain on a table) follows MuJoCo closely: contacts, depth, settling and iterations.
#[test]
fn mujoco_statistics_arm() {
    statistics(
        "arm",
        Expect { ncon: 0.01, ensemble: None, penetration: Some(0.05), settled: true, iterations: true },
    );
}

/// The chain (free base with ball, hinge and slide joints, limits and friction loss) over 2000 steps.
#[test]
fn mujoco_statistics_chain() {
    statistics(
        "chain",
        Expect { ncon: 0.01, ensemble: None, penetration: Some(0.05), settled: true, iterations: true },
    );
}

/// The pyramid of boxes: resting faces make box–box contact counts of 4 to 8 per pair that follow the last bits of
/// the state, so MuJoCo's own runs from ±1e-9 m starts average 407.5–433.5 contacts (`pyramid`) and 408.4–446.6
/// (`pyramid__elliptic`) over 2000 steps (`tests/data/pyramid*_ensemble.json`, 12 runs each from
/// `scripts/mujoco_ensemble.py`; its unperturbed run: 410.2 and 413.1). Ours must lie in that range, widened by 2 %
/// (420.1 and 435.7 since the contact Jacobian took MuJoCo's rounding; 410.3 and 417.7 before). The depth and the rest
/// state agree with MuJoCo's run.
#[test]
fn mujoco_statistics_pyramid() {
    let ensemble = Some(include_str!("data/pyramid_ensemble.json"));
    statistics(
        "pyramid",
        Expect { ncon: 0.02, ensemble, penetration: Some(0.05), settled: true, iterations: false },
    );
    let ensemble = Some(include_str!("data/pyramid__elliptic_ensemble.json"));
    statistics(
        "pyramid__elliptic",
        Expect { ncon: 0.02, ensemble, penetration: Some(0.05), settled: true, iterations: false },
    );
}

/// The pile of mixed shapes (200 bodies, 1000 steps). It follows MuJoCo 4.0.1 within 2e-7 through step 150 with its
/// contact count at every step (`scripts/mujoco_divergence.py`), and then by chaos only: MuJoCo's own runs from
/// ±1e-9 m starts average 432.1–446.2 contacts (`tests/data/pile_ensemble.json`, 16 runs of
/// `scripts/mujoco_ensemble.py --steps 1000`; its unperturbed run: 442.7). Ours (445.6) must lie in that range,
/// widened by 2 %. The deepest contact, a cylinder pressed into another at step 142 (0.1011 m), is MuJoCo's to
/// 3e-16 m (the MuJoCo 4.0.0 figures, 434.2 contacts and 0.097 m, came from another run). Not compared: the state
/// of a heap still moving at step 1000.
#[test]
fn mujoco_statistics_pile() {
    let ensemble = Some(include_str!("data/pile_ensemble.json"));
    statistics(
        "pile",
        Expect { ncon: 0.02, ensemble, penetration: Some(1e-12), settled: false, iterations: false },
    );
}

/// Terrain (`crates/cli/scenes/terrain.xml`: spheres, boxes and capsules dropped into a height-field bowl) against
/// MuJoCo 4.0's run (`tests/data/terrain_reference.json`, from `scripts/mujoco_scene_reference.py`): the height field
/// meets each body through MuJoCo's prism decomposition (`mjc_ConvexHField`). The run is chaotic: MuJoCo's own runs
/// from ±1e-9 m starts spread by 6 mm at step 200, 4.9 cm at step 500 and 15 cm at step 2000 (spheres rolling in
/// the bowl), and their contact counts by up to 3. Our run differs from MuJoCo's by more than such a start (the box
/// contacts below), so it is one draw of a wider ensemble: the bodies are compared within three times that spread
/// (at least 2 mm; measured 1.4×, 1.8×, 2.2× and 0.8× of it at steps 200, 500, 1000 and 2000 since the contacts of
/// a pair keep MuJoCo's order, 1.4×, 0.9×, 1.0× and 0.6× with the frame-key order before) and the contact count
/// within the range of MuJoCo's runs widened by 3, one per box. Known difference: sphere
/// and capsule contacts equal MuJoCo's to print precision at the same poses, but box–prism contacts are fragile in
/// MuJoCo (its EPA stops at the first repeated box corner, the prism having no vertex ids, so a rounding-level
/// change of the box frame moves a contact by centimetres): 2 of 15 differ at MuJoCo's step-500 poses, and the boxes
/// land differently (15 contacts at step 200 where MuJoCo's runs all have 12, the spheres and capsules equal to
/// 1e-4 m there). The mean contact count over the run (25.04) lies within MuJoCo's runs (23.78–25.61; nominal 25.27),
/// held there within 3 %.
#[test]
fn mujoco_parity_terrain() {
    let reference: Value = serde_json::from_str(include_str!("data/terrain_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cli/scenes/terrain.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let steps = reference["steps"].as_u64().unwrap();
    let mut ncon = 0.0;
    for k in 1..=steps {
        scene.step().unwrap();
        ncon += scene.stats().contacts as f64 / steps as f64;
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        let range = &reference["perturbation_ncon"][k.to_string()];
        let (lo, hi) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
        let n = scene.stats().contacts as u64;
        assert!(
            (lo.saturating_sub(3)..=hi + 3).contains(&n),
            "ncon {n} at step {k}, MuJoCo's runs {lo}..={hi}"
        );
        let spread = reference["perturbation_spread"][k.to_string()].as_f64().unwrap();
        let tol = (3.0 * spread).max(2e-3);
        for (i, ours, theirs) in free_positions(&scene, snap) {
            assert!(
                (ours - theirs).abs() < tol,
                "body {i} at step {k}: {ours} vs {theirs} (tolerance {tol})"
            );
        }
    }
    let range = &reference["perturbation_mean_ncon"];
    let (lo, hi) = (range[0].as_f64().unwrap(), range[1].as_f64().unwrap());
    assert!(ncon >= 0.97 * lo && ncon <= 1.03 * hi, "mean ncon {ncon}, MuJoCo's runs {lo}..{hi}");
}

/// The terrain scene in native mode: every body comes to rest inside the bowl, on the surface (not through it).
#[test]
fn terrain_native_bodies_rest_on_the_field() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cli/scenes/terrain.xml");
    let mut scene = load_scene(&path, Dialect::Native, &[]).unwrap();
    for _ in 0..300 {
        scene.step().unwrap();
    }
    assert!(scene.stats().contacts >= 9, "{} contacts", scene.stats().contacts);
    let (m, d) = (&scene.model().multibody, &scene.data().multibody);
    for j in scene.free_joints() {
        let p = &d.qpos[m.jnt_qposadr[j]..m.jnt_qposadr[j] + 3];
        assert!(p[0].abs() < 1.0 && p[1].abs() < 1.0, "left the field: {p:?}");
        // The bowl's surface lies between 0 and 0.15 m; a body resting on it has its centre above the lowest point.
        assert!(p[2] > 0.0 && p[2] < 0.3, "height {p:?}");
    }
}

/// Geom margins in MuJoCo-compatible mode (`tests/data/margin.xml`: a sphere, box, capsule with a gap, cylinder and
/// ellipsoid with margins, settling on a floor with its own margin and on each other) against MuJoCo 4.0's run
/// (`tests/data/margin_reference.json`, `scripts/mujoco_scene_reference.py`): contacts exist while the surfaces are
/// still apart, the gap widens detection without making rows, and the bodies rest on them. Contact counts equal
/// MuJoCo's at every snapshot; positions within 1e-6 m over 2000 steps (they agree to 1e-7).
#[test]
fn mujoco_parity_margin() {
    let reference: Value = serde_json::from_str(include_str!("data/margin_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/margin.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let steps = reference["steps"].as_u64().unwrap();
    let mut apart = 0;
    for k in 1..=steps {
        scene.step().unwrap();
        apart += scene.contacts().penetration.iter().filter(|&&p| p < 0.0).count();
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        assert_eq!(scene.stats().contacts as u64, snap["ncon"].as_u64().unwrap(), "ncon at step {k}");
        for (i, ours, theirs) in free_positions(&scene, snap) {
            assert!((ours - theirs).abs() < 1e-6, "body {i} at step {k}: {ours} vs {theirs}");
        }
    }
    assert!(apart > 0, "no contact within a margin");
}

/// MuJoCo's plane–capsule contact frames (`tests/data/capsule_plane.xml`: capsules slipping, rolling and held on a
/// 15° slope, pyramidal cone) against MuJoCo 4.0's run (`tests/data/capsule_plane_reference.json`,
/// `scripts/mujoco_scene_reference.py`). MuJoCo takes the capsule axis as the contacts' first friction tangent; with
/// the frame of the normal alone the bodies were 5.4e-4 m off MuJoCo's at step 500 and 5.3e-3 m at step 2000, once
/// slipping left pyramid edges inactive. Now: equal contact counts, positions within 1e-8 m (1.5e-10 measured;
/// MuJoCo's own spread under a 1e-9 m perturbation is 1.2e-9 m).
#[test]
fn mujoco_parity_capsule_plane_frames() {
    let reference: Value = serde_json::from_str(include_str!("data/capsule_plane_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/capsule_plane.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let steps = reference["steps"].as_u64().unwrap();
    let mut worst = 0.0f64;
    for k in 1..=steps {
        scene.step().unwrap();
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        assert_eq!(scene.stats().contacts as u64, snap["ncon"].as_u64().unwrap(), "ncon at step {k}");
        for (i, ours, theirs) in free_positions(&scene, snap) {
            worst = worst.max((ours - theirs).abs());
            assert!((ours - theirs).abs() < 1e-8, "body {i} at step {k}: {ours} vs {theirs}");
        }
    }
    println!("capsule_plane vs MuJoCo: {worst:.1e} m");
}

/// MuJoCo 4.0.1's RK4 integrator bit for bit (`tests/data/rk4_reference.json`,
/// `scripts/mujoco_integrator_reference.py`: `mj_step` from keyframe 0, snapshots up to step 1000) on two scenes:
/// `rk4.xml` (a damped two-link arm with an elbow servo, a box dropped on the floor, a pendulum swinging into its
/// limit) and `rk4_rotations.xml` (free bodies tumbling in flight at up to 4.6 rad a step, a ball-joint double
/// pendulum, a capsule spinning on the floor). Both depend on the stages' rotation-vector rates (Runge–Kutta–
/// Munthe-Kaas, `integrators/src/rk4.rs`): with the angular velocities summed as they are, the box parted from
/// MuJoCo by 1.3e-4 at its first contact (step 52) and the tumbling bodies at step 1.
#[test]
fn mujoco_parity_rk4() {
    let reference: Value = serde_json::from_str(include_str!("data/rk4_reference.json")).unwrap();
    assert_eq!(reference["mujoco"], "4.0.1");
    let steps = reference["steps"].as_u64().unwrap();
    for name in ["rk4", "rk4_rotations"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/{name}.xml"));
        let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
        assert_eq!(scene.model().options.integrator, signorini_integrators::IntegratorKind::Rk4);
        let snaps = &reference["scenes"][name]["mj_step"];
        let mut checked = 0;
        for k in 1..=steps {
            scene.step().unwrap();
            let Some(snap) = snaps.get(k.to_string()) else { continue };
            let d = &scene.data().multibody;
            assert_eq!(
                scene.stats().contacts as u64,
                snap["ncon"].as_u64().unwrap(),
                "{name}: ncon at step {k}"
            );
            for (field, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel)] {
                assert_field_bits(&format!("{name}: "), field, ours, snap, k);
            }
            checked += 1;
        }
        assert_eq!(checked, snaps.as_object().unwrap().len(), "{name}: every snapshot compared");
    }
}

/// MuJoCo's CG on models it keeps sparse (60 dofs or more), bit for bit: `box_stack__cg` (ten boxes, 60 dofs; chaotic
/// in MuJoCo itself, a 1e-9 m perturbation moves it by 3e-4 m at step 100) over 1000 steps and `pyramid__cg` (55
/// boxes, 330 dofs) over 150 steps follow `mj_step` to the bit in `qpos`, `qvel` and the contact count
/// (`tests/data/sparse_cg_reference.json`, `scripts/mujoco_sparse_cg_reference.py`). What it takes: the CG iteration
/// in MuJoCo's arithmetic with `J x` and `Jᵀ f` over its sparse `J` and `Jᵀ` (`solver/src/mujoco_sparse.rs`) and the
/// rows' velocities summed as `mju_dotSparse` sums a sparse row; both parted at step 8 before. `box_stack__elliptic` with
/// its solver set to CG over 300 steps: elliptic cones in the CG iteration (which keeps no cone Hessians).
#[test]
fn mujoco_parity_sparse_cg() {
    let reference: Value = serde_json::from_str(include_str!("data/sparse_cg_reference.json")).unwrap();
    assert_eq!(reference["mujoco"], "4.0.1");
    for name in ["box_stack__cg", "pyramid__cg", "box_stack__elliptic"] {
        // `"solver": "cg"`: the scene's solver set to CG (elliptic cones in the CG iteration).
        let overrides: Vec<(String, String)> = match reference["scenes"][name]["solver"].as_str() {
            Some(solver) => vec![("solver".into(), solver.into())],
            None => Vec::new(),
        };
        let mut scene =
            load_scene(&shared(&format!("scenes/{name}.xml")), Dialect::Mujoco, &overrides).unwrap();
        assert!(scene.model().multibody.nv >= 60, "{name} is sparse in MuJoCo");
        let snaps = reference["scenes"][name]["mj_step"].as_object().unwrap();
        let last = snaps.keys().map(|k| k.parse::<u64>().unwrap()).max().unwrap();
        for k in 1..=last {
            scene.step().unwrap();
            let Some(snap) = snaps.get(&k.to_string()) else { continue };
            assert_eq!(
                scene.stats().contacts as u64,
                snap["ncon"].as_u64().unwrap(),
                "{name}: ncon at step {k}"
            );
            let d = &scene.data().multibody;
            for (field, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel)] {
                assert_field_bits(&format!("{name}: "), field, ours, snap, k);
            }
        }
    }
}

/// The paddle's path of `scripts/mujoco_mocap_reference.py`: `(pos, quat)` at time `t`.
fn paddle_pose(t: f64) -> (glam::DVec3, glam::DQuat) {
    let s = t.min(1.5);
    let x = -0.2 + 0.6 * (1.0 - (std::f64::consts::PI * s / 1.5).cos()) / 2.0;
    let a = 0.3 * (2.0 * t).sin();
    (glam::DVec3::new(x, 0.0, 0.07), glam::DQuat::from_xyzw(0.0, 0.0, (a / 2.0).sin(), (a / 2.0).cos()))
}

/// Mocap bodies (`tests/data/mocap.xml`) against MuJoCo 4.0 (`tests/data/mocap_reference.json`,
/// `scripts/mujoco_mocap_reference.py`): the keyframe's `mpos`/`mquat` place both mocap bodies, the paddle set on
/// its path before every step sweeps the box and the ball as in MuJoCo (equal contact counts at every snapshot,
/// positions to 1e-6), and neither mocap body touches the floor or the other (no degree of freedom on either side).
#[test]
fn mujoco_parity_mocap() {
    let reference: Value = serde_json::from_str(include_str!("data/mocap_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/mocap.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    assert_eq!(scene.model().multibody.nmocap, 2);
    let d = &scene.data().multibody;
    assert_eq!(d.mocap_pos[1], glam::DVec3::new(0.1, 0.2, 0.03), "the keyframe's mpos");
    // The keyframe's mquat as written (1/√2 to 7 digits), normalised only when forward kinematics reads it.
    let written: f64 = "0.7071068".parse().unwrap();
    assert_eq!([d.mocap_quat[1].w, d.mocap_quat[1].y], [written, written]);
    let steps = reference["steps"].as_u64().unwrap();
    let (mut paddle_contacts, mut worst) = (0u64, 0.0f64);
    for k in 1..=steps {
        let (pos, quat) = paddle_pose(scene.time());
        scene.set_mocap_pose(0, pos, quat).unwrap();
        scene.step().unwrap();
        let contacts = scene.contacts();
        for (a, b) in contacts.link_a.iter().zip(&contacts.link_b) {
            let mocap_or_world = |x: usize| x <= 2;
            assert!(!(mocap_or_world(*a) && mocap_or_world(*b)), "a contact between bodies {a} and {b}");
            paddle_contacts += u64::from(*a == 1 || *b == 1);
        }
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        assert_eq!(scene.stats().contacts as u64, snap["ncon"].as_u64().unwrap(), "ncon at step {k}");
        let theirs: Vec<f64> = serde_json::from_value(snap["qpos"].clone()).unwrap();
        for (i, (a, b)) in scene.data().multibody.qpos.iter().zip(&theirs).enumerate() {
            worst = worst.max((a - b).abs());
            assert!((a - b).abs() < 1e-6, "qpos[{i}] at step {k}: {a} vs {b}");
        }
    }
    assert_eq!(paddle_contacts, reference["paddle_contacts"].as_u64().unwrap());
    println!("mocap vs MuJoCo: {paddle_contacts} paddle contacts, qpos max |Δ| {worst:.1e}");
}

/// Gravity compensation (`tests/data/gravcomp.xml`: a floating arm with a servo and an `actuatorgravcomp` wrist
/// whose motor and compensation its `actuatorfrcrange` clamps, a half-compensated ball, an over-compensated box)
/// against MuJoCo 4.0.1 (`tests/data/gravcomp_reference.json`, `scripts/mujoco_gravcomp_reference.py`):
/// `qfrc_gravcomp`, `qfrc_passive` and `qfrc_actuator` at the keyframe to 1e-12, then equal contact counts and the
/// state bit for bit over 1000 steps. It depends on the keyframe's ball quaternion (written to seven digits)
/// normalised as MuJoCo's compiler normalises `key_qpos`, and on `mj_gravcomp`'s `Jᵀ f` body by body in `mj_jac`'s
/// arithmetic; before, the run parted at step 0 (1e-8 by step 1000).
#[test]
fn mujoco_parity_gravcomp() {
    let reference: Value = serde_json::from_str(include_str!("data/gravcomp_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gravcomp.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let model = scene.model().clone();
    let mut d = scene.data().multibody.clone();
    model.multibody.forward(&mut d).unwrap();
    for (field, ours) in [
        ("qfrc_gravcomp", &d.qfrc_gravcomp),
        ("qfrc_passive", &d.qfrc_passive),
        ("qfrc_actuator", &d.qfrc_actuator),
    ] {
        let theirs: Vec<f64> =
            serde_json::from_value(reference["forces_at_keyframe"][field].clone()).unwrap();
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert!((a - b).abs() < 1e-12, "{field}[{i}]: {a} vs {b}");
        }
    }
    for k in 1..=reference["steps"].as_u64().unwrap() {
        scene.step().unwrap();
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        assert_eq!(scene.stats().contacts as u64, snap["ncon"].as_u64().unwrap(), "ncon at step {k}");
        let d = &scene.data().multibody;
        for (field, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel)] {
            assert_field_bits("", field, ours, snap, k);
        }
    }
    println!("gravcomp vs MuJoCo: state bit for bit");
}

/// A tendon scene of `tests/data` against its MuJoCo 4.0 reference (`scripts/mujoco_tendon_reference.py`): the
/// compiled `tendon_invweight0` and spring lengths; lengths, velocities, passive and actuator forces at the keyframe;
/// then the tendon rows and the state over 1000 Euler steps (state to `tol`).
fn tendon_parity(scene: &str, reference: &str, tol: f64) {
    use signorini_constraints::RowKind;
    let reference: Value = serde_json::from_str(reference).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(scene);
    let name = scene;
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let vec = |v: &Value| -> Vec<f64> { serde_json::from_value(v.clone()).unwrap() };
    let close = |what: &str, ours: &[f64], theirs: &[f64], tol: f64| {
        assert_eq!(ours.len(), theirs.len(), "{what}");
        for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
            assert!((a - b).abs() <= tol * b.abs().max(1.0), "{what}[{i}]: {a} vs {b}");
        }
    };
    let t = &scene.model().multibody.tendons;
    close("tendon_invweight0", &t.invweight0, &vec(&reference["tendon_invweight0"]), 1e-12);
    let indices = |key: &str| -> Vec<usize> { serde_json::from_value(reference[key].clone()).unwrap() };
    assert_eq!(t.jac_colind, indices("ten_J_colind"), "{name}: the tendon Jacobians' dofs");
    assert_eq!(t.jac_adr[..t.len()], indices("ten_J_rowadr"), "{name}: the tendon Jacobians' row starts");
    let spring: Vec<f64> = t.lengthspring.iter().flatten().copied().collect();
    let theirs: Vec<f64> = vec(&reference["tendon_lengthspring"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p.as_array().unwrap().clone())
        .collect::<Value>());
    close("tendon_lengthspring", &spring, &theirs, 1e-15);
    let key = &reference["at_keyframe"];
    let mut d = scene.data().multibody.clone();
    scene.model().multibody.forward(&mut d).unwrap();
    close("ten_length", &d.ten_length, &vec(&key["ten_length"]), 1e-14);
    close("ten_velocity", &d.ten_velocity, &vec(&key["ten_velocity"]), 1e-14);
    close("qfrc_passive", &d.qfrc_passive, &vec(&key["qfrc_passive"]), 1e-13);
    close("qfrc_actuator", &d.qfrc_actuator, &vec(&key["qfrc_actuator"]), 1e-13);
    close("actuator_length", &d.actuator_length, &vec(&key["actuator_length"]), 1e-14);
    let mut worst: f64 = 0.0;
    let mut limit_steps = 0;
    for k in 1..=reference["steps"].as_u64().unwrap() {
        scene.step().unwrap();
        let rows = &scene.data().rows;
        limit_steps += u64::from(rows.count(RowKind::LimitTendon) > 0);
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        assert_eq!(
            rows.count(RowKind::FrictionTendon) as u64,
            snap["rows"]["friction_tendon"].as_u64().unwrap()
        );
        assert_eq!(
            rows.count(RowKind::LimitTendon) as u64,
            snap["rows"]["limit_tendon"].as_u64().unwrap(),
            "step {k}"
        );
        let d = &scene.data().multibody;
        for (field, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel), ("ten_length", &d.ten_length)] {
            let theirs = vec(&snap[field]);
            for (a, b) in ours.iter().zip(&theirs) {
                worst = worst.max((a - b).abs());
            }
            close(&format!("{name}: {field} at step {k}"), ours, &theirs, tol);
        }
    }
    assert_eq!(limit_steps, reference["steps_with_limit_rows"].as_u64().unwrap());
    println!("{name} vs MuJoCo: {limit_steps} steps with tendon limit rows, state max |Δ| {worst:.1e}");
}

/// Fixed tendons (`tests/data/tendon.xml`: a spring-damper tendon with a dead band, dry friction, limits and a
/// position servo coupling an arm's three hinges; the limited, motor-driven sum and the frictional difference of two
/// sliders): the state bit for bit over 1000 steps (tolerance 0). A fixed tendon's length is summed over its joints
/// in the order they are written (`mj_tendon`); summed by dof it parted at step 1 (1.2e-11 at step 1000).
#[test]
fn mujoco_parity_fixed_tendons() {
    tendon_parity("tendon.xml", include_str!("data/tendon_reference.json"), 0.0);
}

/// Spatial tendons through sites (`tests/data/spatial_tendon.xml`: a ball on a length-limited rope, an arm pulled
/// by a spring tendon with a motor, a three-point sling over two free boxes with damping, friction and a limit):
/// the state bit for bit over 1000 steps (tolerance 0). The sling's velocity is `J q̇` over MuJoCo's sparsity of the
/// tendon Jacobian (`ten_J_colind`: the chains of its points' bodies) as `mju_dotSparse` sums it; summed densely in
/// dof order it parted at step 6 (7.2e-7 at step 1000, the boxes the sling drags sliding on the floor).
#[test]
fn mujoco_parity_spatial_tendons() {
    tendon_parity("spatial_tendon.xml", include_str!("data/spatial_tendon_reference.json"), 0.0);
}

/// Activation dynamics and affine gains (`tests/data/actuators.xml`: a filtered position servo, an
/// integrated-velocity servo, filter and integrator motors with limited activations, a damper) against MuJoCo 4.0
/// (`tests/data/actuators_reference.json`, `scripts/mujoco_actuator_reference.py`) with Euler, implicitfast and RK4:
/// `qpos`, `qvel`, `act` and the actuator forces over 1000 steps.
#[test]
fn mujoco_parity_activation_dynamics() {
    let reference: Value = serde_json::from_str(include_str!("data/actuators_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/actuators.xml");
    for (name, run) in reference["runs"].as_object().unwrap() {
        let set = [("integrator".to_string(), name.clone())];
        let mut scene = load_scene(&path, Dialect::Mujoco, &set).unwrap();
        assert_eq!(scene.model().multibody.na, 4);
        let mut worst: f64 = 0.0;
        for k in 1..=reference["steps"].as_u64().unwrap() {
            scene.step().unwrap();
            let Some(snap) = run.get(k.to_string()) else { continue };
            let d = &scene.data().multibody;
            for (field, ours) in
                [("qpos", &d.qpos), ("qvel", &d.qvel), ("act", &d.act), ("actuator_force", &d.actuator_force)]
            {
                let theirs: Vec<f64> = serde_json::from_value(snap[field].clone()).unwrap();
                assert_eq!(ours.len(), theirs.len(), "{name}: {field}");
                for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                    worst = worst.max((a - b).abs() / b.abs().max(1.0));
                    assert!(
                        (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                        "{name}: {field}[{i}] at step {k}: {a} vs {b}"
                    );
                }
            }
        }
        println!("activation dynamics, {name}, vs MuJoCo: max relative |Δ| {worst:.1e}");
    }
}

/// The compiled ellipsoid fluid model of every geom of `tests/data/fluid.xml` against MuJoCo 4.0.1's `geom_fluid`:
/// the virtual mass and inertia of each primitive bit for bit (`mjCGeom::SetFluidCoefs`: the Gauss–Kronrod terms
/// `scale·d/denom·w`, the inertia `volume·fac/5`; the products grouped otherwise were an ulp off on five of six
/// geoms), the mesh card's to 1e-6 (its semi-axes come from our hull's principal frame, MuJoCo's from its mesh
/// compiler's).
#[test]
fn fluid_coefficients_are_mujocos() {
    let reference: Value = serde_json::from_str(include_str!("data/fluid_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/fluid.xml");
    let scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let m = &scene.model().multibody;
    let theirs: Vec<Vec<f64>> = serde_json::from_value(reference["geom_fluid"].clone()).unwrap();
    let mut compared = 0;
    for (g, fluid) in m.geom_fluid.iter().enumerate() {
        let Some(e) = fluid.filter(|_| theirs[g][0] > 0.0) else { continue };
        let ours: Vec<f64> =
            e.virtual_mass.to_array().into_iter().chain(e.virtual_inertia.to_array()).collect();
        let mesh = matches!(m.collision.geoms().shape[g], signorini_geometry::Shape::ConvexMesh(_));
        for (k, (a, b)) in ours.iter().zip(&theirs[g][6..12]).enumerate() {
            if mesh {
                assert!((a - b).abs() <= 1e-6 * b.abs(), "geom {g} (mesh) coefficient {k}: {a} vs {b}");
            } else {
                assert_eq!(a.to_bits(), b.to_bits(), "geom {g} coefficient {k}: {a} vs {b}");
            }
        }
        compared += 1;
    }
    assert_eq!(compared, 6);
}

/// Fluid forces against MuJoCo 4.0 (`tests/data/fluid.xml`, `scripts/mujoco_fluid_reference.py`): the inertia-box
/// model, the ellipsoid model on a box, a capsule and a mesh card, and a pendulum with an ellipsoid bob, in a dense
/// viscous medium with wind, with Euler (every coordinate and `qfrc_fluid`) and implicitfast (whose matrix takes the
/// fluid forces' velocity derivative, and whose standalone free bodies are re-solved with the bias derivative).
#[test]
fn mujoco_parity_fluid() {
    let reference: Value = serde_json::from_str(include_str!("data/fluid_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/fluid.xml");
    for (run, snaps) in reference["runs"].as_object().unwrap() {
        let set = [("integrator".to_string(), run.clone())];
        let mut scene = load_scene(&path, Dialect::Mujoco, &set).unwrap();
        let mut worst: f64 = 0.0;
        for k in 1..=500u64 {
            scene.step().unwrap();
            let Some(snap) = snaps.get(k.to_string()) else { continue };
            let d = &scene.data().multibody;
            let qpos: Vec<f64> = serde_json::from_value(snap["qpos"].clone()).unwrap();
            // Every integrator to 1e-13 (measured 2.3e-15 over 500 steps; 2.6e-14 with the published source's
            // projected area): the implicit ones take the ellipsoid model's derivative in MuJoCo's closed form
            // (central differences were 1e-9 off), and the card's hull is MuJoCo's single-precision vertices.
            for (i, (a, b)) in d.qpos.iter().zip(&qpos).enumerate() {
                worst = worst.max((a - b).abs());
                assert!((a - b).abs() < 1e-13, "{run}: qpos[{i}] at step {k}: {a} vs {b}");
            }
            if run == "Euler" {
                // The fluid forces of the step's own evaluation (before its integration).
                let theirs: Vec<f64> = serde_json::from_value(snap["qfrc_fluid"].clone()).unwrap();
                for (i, (a, b)) in d.qfrc_fluid.iter().zip(&theirs).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-11 * b.abs().max(1.0),
                        "qfrc_fluid[{i}] at step {k}: {a} vs {b}"
                    );
                }
            }
        }
        println!("fluid, {run}, vs MuJoCo 4.0: max |Δqpos| {worst:.1e}");
    }
}

/// CG stopped at MuJoCo's tolerance 1e-6 on light thin plates in contact (`tests/data/cg_light_bodies.xml`), with
/// joint damping under Euler and with implicitfast: the implicit update solves with the solve's forces
/// `f_s + Jᵀf`, as MuJoCo's `qfrc_smooth + qfrc_constraint` (`M·qacc` leaves out the CG gradient, which along the
/// plates' rotations is large against their 1e-11 kg m² inertia: with it the run was 5.4e-6 m off at step 25).
/// Against MuJoCo 4.0.1 every 25 steps (`scripts/mujoco_cg_light_bodies.py`): within 1e-10 through step 75 (measured
/// 1.4e-11), while MuJoCo's own runs from velocities perturbed by 1e-14 stay within 1.4e-10 of each other; the
/// plates then chatter and that spread grows to 1e-4 by step 150, so later steps are held to 1e-3 only.
#[test]
fn mujoco_parity_cg_light_bodies() {
    let reference: Value = serde_json::from_str(include_str!("data/cg_light_bodies_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/cg_light_bodies.xml");
    for (run, snaps) in reference["runs"].as_object().unwrap() {
        let set = [("integrator".to_string(), run.clone())];
        let mut scene = load_scene(&path, Dialect::Mujoco, &set).unwrap();
        for k in 1..=300u64 {
            scene.step().unwrap();
            let Some(snap) = snaps.get(k.to_string()) else { continue };
            let qpos: Vec<f64> = serde_json::from_value(snap["qpos"].clone()).unwrap();
            let ours = &scene.data().multibody.qpos;
            let off = ours.iter().zip(&qpos).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            if k <= 75 {
                assert_eq!(
                    scene.contacts().geom_a.len() as u64,
                    snap["ncon"].as_u64().unwrap(),
                    "{run}: step {k}"
                );
                assert!(off < 1e-10, "{run}: |Δqpos| {off:.1e} at step {k}");
            } else {
                assert!(off < 1e-3, "{run}: |Δqpos| {off:.1e} at step {k}");
            }
            println!("cg light bodies, {run}, step {k}: |Δqpos| {off:.1e} against MuJoCo 4.0");
        }
    }
}

/// The `implicit` integrator against MuJoCo 4.0 (`tests/data/implicit.xml`: the derivatives of the bias forces, dof
/// and tendon damping, a velocity servo and fluid forces on a tumbling box; 300 steps).
#[test]
fn mujoco_parity_implicit() {
    let reference: Value = serde_json::from_str(include_str!("data/fluid_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/implicit.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let mut worst: f64 = 0.0;
    for k in 1..=300u64 {
        scene.step().unwrap();
        let Some(snap) = reference["implicit"].get(k.to_string()) else { continue };
        let d = &scene.data().multibody;
        for (field, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel)] {
            let theirs: Vec<f64> = serde_json::from_value(snap[field].clone()).unwrap();
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                worst = worst.max((a - b).abs());
                // The ellipsoid model's velocity derivative differs from MuJoCo's in the last bits (its force is
                // bit for bit, `mujoco_parity_fluid_bits`); without fluid the integrator is bit for bit
                // (`mujoco_parity_implicit_bits`).
                assert!((a - b).abs() < 1e-13, "{field}[{i}] at step {k}: {a} vs {b}");
            }
        }
    }
    println!("implicit vs MuJoCo 4.0: max |Δ| {worst:.1e}");
}

/// The `implicit` integrator against MuJoCo 4.0.1, bit for bit (`scripts/mujoco_implicit_reference.py`):
/// `tests/data/implicit_tree.xml` (chains of hinge, ball and slide joints, a free body with a child, damping, velocity
/// servos, a damped tendon across two trees; 500 steps) and `implicit_stack.xml` (ten free boxes in contact, a model
/// MuJoCo keeps sparse; 300 steps), and the sparsity of their velocity derivatives (MuJoCo's `D` and `B`). Before the
/// port of `mjd_rne_vel` and `mju_factorLUSparse` the tree parted at step 1 (a dense LU with pivoting, and the
/// tendon's cross-tree coupling kept); the stack parted at its first contact (step 8) until `Jᵀf` took MuJoCo's sparse
/// sums. `implicitfast_tree` runs the tree under `implicitfast`, which refused its tendon damping and servos until
/// it took MuJoCo's `qDeriv` (`M − h qDeriv` over `M`'s layout) instead of a diagonal shift.
#[test]
fn mujoco_parity_implicit_bits() {
    let reference: Value = serde_json::from_str(include_str!("data/implicit_reference.json")).unwrap();
    for (name, scene_name, integrator) in [
        ("implicit_tree", "implicit_tree", None),
        ("implicit_stack", "implicit_stack", None),
        ("implicitfast_tree", "implicit_tree", Some("implicitfast")),
    ] {
        let run = &reference[name];
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/{scene_name}.xml"));
        let set: Vec<(String, String)> =
            integrator.iter().map(|i| ("integrator".to_string(), i.to_string())).collect();
        let mut scene = load_scene(&path, Dialect::Mujoco, &set).unwrap();
        let layout = &scene.model().multibody.derivative_layout;
        let ints = |key: &str| -> Vec<usize> { serde_json::from_value(run[key].clone()).unwrap() };
        assert_eq!(layout.dof_adr[..layout.dof_adr.len() - 1], ints("D_rowadr")[..], "{name}: D_rowadr");
        assert_eq!(layout.dof_colind, ints("D_colind"), "{name}: D_colind");
        assert_eq!(layout.dof_diag, ints("D_diag"), "{name}: D_diag");
        assert_eq!(layout.body_adr[..layout.body_adr.len() - 1], ints("B_rowadr")[..], "{name}: B_rowadr");
        assert_eq!(layout.body_colind, ints("B_colind"), "{name}: B_colind");
        let last: u64 = run["steps"].as_object().unwrap().keys().map(|k| k.parse().unwrap()).max().unwrap();
        for k in 1..=last {
            scene.step().unwrap();
            let Some(snap) = run["steps"].get(k.to_string()) else { continue };
            assert_eq!(
                scene.contacts().geom_a.len() as u64,
                snap["ncon"].as_u64().unwrap(),
                "{name}: ncon at {k}"
            );
            let d = &scene.data().multibody;
            assert_field_bits(&format!("{name}: "), "qpos", &d.qpos, snap, k);
            assert_field_bits(&format!("{name}: "), "qvel", &d.qvel, snap, k);
        }
        println!("{name} vs MuJoCo 4.0.1: qpos and qvel bit for bit over {last} steps");
    }
}

/// The fluid forces against MuJoCo 4.0.1 bit for bit under Euler (`tests/data/implicit.xml`: the ellipsoid model on a
/// tumbling free box, the inertia-box model on a hinge-and-ball arm; 300 steps, `scripts/mujoco_implicit_reference.py`).
/// The ellipsoid model's projected area and Kutta lift take 4.0.1's scaled formulation (semi-axes over the largest,
/// the velocity over its norm; `crates/model/src/fluid.rs`); with its published source's it parted at step 1.
#[test]
fn mujoco_parity_fluid_bits() {
    let reference: Value = serde_json::from_str(include_str!("data/implicit_reference.json")).unwrap();
    let run = &reference["fluid_euler"];
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/implicit.xml");
    let set = [("integrator".to_string(), "Euler".to_string())];
    let mut scene = load_scene(&path, Dialect::Mujoco, &set).unwrap();
    for k in 1..=300u64 {
        scene.step().unwrap();
        let Some(snap) = run["steps"].get(k.to_string()) else { continue };
        let d = &scene.data().multibody;
        assert_field_bits("fluid, Euler: ", "qpos", &d.qpos, snap, k);
        assert_field_bits("fluid, Euler: ", "qvel", &d.qvel, snap, k);
    }
    println!("fluid forces, Euler, vs MuJoCo 4.0.1: qpos and qvel bit for bit over 300 steps");
}

/// implicitfast's gyroscopic derivative of a standalone free body against MuJoCo 4.0.1, bit for bit
/// (`tests/data/spin.xml`: a box spinning about a non-principal axis in vacuum, its centre of mass off the body
/// origin; 200 steps). It depends on the block's inertia read from `cinert` and on `mju_factorLU6`'s arithmetic
/// (`integrators/src/free_body.rs`); with the inertia from `ximat` and a division per multiplier it parted at step 1.
#[test]
fn mujoco_parity_free_body_implicitfast() {
    let reference: Value = serde_json::from_str(include_str!("data/fluid_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/spin.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    for k in 1..=200u64 {
        scene.step().unwrap();
        let Some(snap) = reference["spin"].get(k.to_string()) else { continue };
        let d = &scene.data().multibody;
        for (field, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel)] {
            assert_field_bits("", field, ours, snap, k);
        }
    }
    println!("free body, implicitfast, vs MuJoCo 4.0.1: state bit for bit");
}

/// Site, reference-site and slider-crank transmissions, a cylinder and dampratio servos against MuJoCo 4.0
/// (`tests/data/transmissions.xml`, `scripts/mujoco_transmission_reference.py`): the compiled damping of the
/// dampratio servos, then 300 Euler steps from the keyframe's controls (positions, actuator lengths, velocities,
/// forces), bit for bit. The reference-site rotation's length takes `mju_subQuat`'s arithmetic (4.0.1's quaternion
/// product, the axis times the reciprocal of its norm); with glam's it parted at step 105.
#[test]
fn mujoco_parity_transmissions() {
    let reference: Value = serde_json::from_str(include_str!("data/transmissions_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/transmissions.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let biasprm2: Vec<f64> = serde_json::from_value(reference["biasprm2"].clone()).unwrap();
    for (u, (ours, theirs)) in scene.model().multibody.actuator_bias.iter().zip(&biasprm2).enumerate() {
        assert!(
            (ours[2] - theirs).abs() < 1e-12 * theirs.abs().max(1.0),
            "biasprm[{u}][2]: {} vs {theirs}",
            ours[2]
        );
    }
    let mut worst: f64 = 0.0;
    for k in 1..=300u64 {
        scene.step().unwrap();
        let Some(snap) = reference["steps"].get(k.to_string()) else { continue };
        let d = &scene.data().multibody;
        for (field, ours) in [
            ("qpos", &d.qpos),
            ("actuator_length", &d.actuator_length),
            ("actuator_velocity", &d.actuator_velocity),
            ("actuator_force", &d.actuator_force),
        ] {
            let theirs: Vec<f64> = serde_json::from_value(snap[field].clone()).unwrap();
            assert_eq!(ours.len(), theirs.len(), "{field}");
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                let err = (a - b).abs() / b.abs().max(1.0);
                worst = worst.max(err);
                assert_eq!(a.to_bits(), b.to_bits(), "{field}[{i}] at step {k}: {a} vs {b}");
            }
        }
    }
    println!("transmissions vs MuJoCo 4.0.1: max relative |Δ| {worst:.1e}");
}

/// Tendon equality constraints against MuJoCo 4.0.1 (`tests/data/tendon_equality.xml`,
/// `scripts/mujoco_tendon_reference.py`): two pendulums coupled through a polynomial of their fixed tendons, and a bob
/// held at its spatial tendon's length (a force sensor reads the tension through the equality): 1000 steps, bit for
/// bit. It depends on the equality rows' velocities summed as `mj_mulJacVec` sums them and on the polynomial's terms
/// in `mj_instantiateEquality`'s order (Horner's scheme and a row sum in dof order parted at steps 1 and 2).
#[test]
fn mujoco_parity_tendon_equality() {
    tendon_state_parity("tendon_equality.xml", include_str!("data/tendon_equality_reference.json"), true);
}

/// Spatial tendons wrapping around a sphere and a cylinder (side sites, a wrap from inside) and a pulley against
/// MuJoCo 4.0.1 (`tests/data/tendon_wrap.xml`, `scripts/mujoco_tendon_reference.py`): lengths, force sensors through
/// the wrapped paths, 1000 steps, bit for bit. It depends on 4.0.1's wrap (`model/tests/wrap.rs`) and on the tendon
/// springs and dampers summed into separate accumulators (`qfrc_spring + qfrc_damper`); with the published source's
/// wrap it parted at step 2, and with the tendon's spring and damper added as one force at step 299.
#[test]
fn mujoco_parity_tendon_wrap() {
    tendon_state_parity("tendon_wrap.xml", include_str!("data/tendon_wrap_reference.json"), true);
}

/// `qpos`, `qvel` and `sensordata` of `file` against its reference after steps 1, 100, 500 and 1000 from `qpos0`, to
/// a relative 1e-9 or (`bits`) bit for bit.
fn tendon_state_parity(file: &str, reference: &str, bits: bool) {
    let reference: Value = serde_json::from_str(reference).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(file);
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let mut worst: f64 = 0.0;
    for k in 1..=1000u64 {
        scene.step().unwrap();
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        let rows = scene.stats().rows_by_kind[0];
        assert_eq!(rows as u64, snap["equality_rows"].as_u64().unwrap(), "{file}: equality rows at step {k}");
        let d = &scene.data().multibody;
        for (field, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel), ("sensordata", &d.sensordata)] {
            let theirs: Vec<f64> = serde_json::from_value(snap[field].clone()).unwrap();
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                let err = (a - b).abs() / b.abs().max(1.0);
                worst = worst.max(err);
                assert!(err < 1e-9, "{file}: {field}[{i}] at step {k}: {a} vs {b}");
                assert!(!bits || a.to_bits() == b.to_bits(), "{file}: {field}[{i}] at step {k}: {a} vs {b}");
            }
        }
    }
    println!("{file} vs MuJoCo 4.0: max relative |Δ| {worst:.1e}");
}

/// Moving surfaces against MuJoCo 4.0.1 (`tests/data/surfacevel.xml`, `scripts/mujoco_surfacevel_reference.py`): a box
/// carried by a conveyor plane, a box on a turntable (torsional friction) and a ball between counter-rotating rollers,
/// with pyramidal and elliptic cones, 600 steps, bit for bit: each contact row's velocity is `J_r q̇` summed as
/// `mj_mulJacVec` sums it, then the surfaces' slip and spin in the contact frame added to it (`mj_addSurfaceVel`;
/// a pyramid edge gains `0 ± μ cs_k`). With the surface term inside the row's sum the runs parted at steps 4 and 3.
#[test]
fn mujoco_parity_surfacevel() {
    let reference: Value = serde_json::from_str(include_str!("data/surfacevel_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/surfacevel.xml");
    for (cone, snaps) in reference["runs"].as_object().unwrap() {
        let set = [("friction_cone".to_string(), cone.clone())];
        let mut scene = load_scene(&path, Dialect::Mujoco, &set).unwrap();
        let mut worst: f64 = 0.0;
        for k in 1..=600u64 {
            scene.step().unwrap();
            let Some(snap) = snaps.get(k.to_string()) else { continue };
            let d = &scene.data().multibody;
            for (field, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel)] {
                let theirs: Vec<f64> = serde_json::from_value(snap[field].clone()).unwrap();
                for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                    worst = worst.max((a - b).abs());
                    assert!(a.to_bits() == b.to_bits(), "{cone}: {field}[{i}] at step {k}: {a} vs {b}");
                }
            }
        }
        println!("surfacevel, {cone}, vs MuJoCo 4.0: max |Δ| {worst:.1e}");
    }
}

/// MuJoCo's `springdamper` against MuJoCo 4.0's compiled stiffness and damping of the same XML (printed by
/// `mujoco.MjModel.from_xml_string(XML).jnt_stiffness`, `.dof_damping` with MuJoCo 4.0.0): a hinge, a ball and a slide.
#[test]
fn springdamper_compiles_as_mujoco_does() {
    let xml = r#"<mujoco><worldbody>
      <body pos="0 0 1"><joint name="hinge" axis="0 1 0" springdamper="0.2 0.7"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body pos="0.3 0 0"><joint name="ball" type="ball" springdamper="0.1 1.2"/>
          <geom type="box" size="0.1 0.05 0.02" pos="0.1 0 0"/></body></body>
      <body pos="1 0 1"><joint name="slide" type="slide" axis="1 0 0" springdamper="0.5 0.3"/><geom size="0.1"/></body>
    </worldbody></mujoco>"#;
    let scene = load_scene_str(xml, std::path::Path::new("."), Dialect::Mujoco, &[]).unwrap();
    let m = &scene.model().multibody;
    let stiffness = [2.5349083857217676, 0.12372449082675882, 186.16845354606184];
    let damping = [
        0.4968420436014665,
        0.035632653358106545,
        0.035632653358106545,
        0.035632653358106545,
        16.755160819145566,
    ];
    for (a, b) in m.jnt_stiffness.iter().zip(stiffness) {
        assert!((a - b).abs() < 1e-12 * b, "stiffness {a} vs {b}");
    }
    for (a, b) in m.dof_damping.iter().zip(damping) {
        assert!((a - b).abs() < 1e-12 * b, "damping {a} vs {b}");
    }
}

/// Muscles against MuJoCo 4.0.1 (`tests/data/muscles.xml`, `scripts/mujoco_muscle_reference.py`), bit for bit: the
/// length ranges the compiler simulates (spatial tendons, joints stopped by their limits; `mj_setLengthRange` with
/// islands on and the tendon Jacobian of `mj_tendon`) or keeps (given), `acc0`, then 1000 Euler steps of muscle
/// activation, force–length–velocity and passive forces, `tausmooth` and `actearly`.
#[test]
fn mujoco_parity_muscles() {
    let reference: Value = serde_json::from_str(include_str!("data/muscles_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/muscles.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let m = &scene.model().multibody;
    let lengthrange: Vec<[f64; 2]> = serde_json::from_value(reference["lengthrange"].clone()).unwrap();
    let acc0: Vec<f64> = serde_json::from_value(reference["acc0"].clone()).unwrap();
    let mut worst_range: f64 = 0.0;
    for u in 0..m.nu {
        for (k, theirs) in lengthrange[u].iter().enumerate() {
            let ours = m.actuator_lengthrange[u][k];
            worst_range = worst_range.max((ours - theirs).abs());
            assert_eq!(ours.to_bits(), theirs.to_bits(), "lengthrange[{u}][{k}]: {ours} vs {theirs}");
        }
        assert!(
            (m.actuator_acc0[u] - acc0[u]).abs() < 1e-12 * acc0[u],
            "acc0[{u}]: {} vs {}",
            m.actuator_acc0[u],
            acc0[u]
        );
    }
    let mut worst: f64 = 0.0;
    for k in 1..=1000u64 {
        scene.step().unwrap();
        let Some(snap) = reference["steps"].get(k.to_string()) else { continue };
        let d = &scene.data().multibody;
        for (field, ours) in [
            ("qpos", &d.qpos),
            ("act", &d.act),
            ("actuator_length", &d.actuator_length),
            ("actuator_velocity", &d.actuator_velocity),
            ("actuator_force", &d.actuator_force),
        ] {
            let theirs: Vec<f64> = serde_json::from_value(snap[field].clone()).unwrap();
            assert_eq!(ours.len(), theirs.len(), "{field}");
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                worst = worst.max((a - b).abs() / b.abs().max(1.0));
                assert_eq!(a.to_bits(), b.to_bits(), "{field}[{i}] at step {k}: {a} vs {b}");
            }
        }
    }
    println!(
        "muscles vs MuJoCo 4.0: lengthrange |Δ| {worst_range:.1e}, 1000 steps max relative |Δ| {worst:.1e}"
    );
}

/// A muscle on an unlimited hinge has no length range: the compiler's runs never settle, and the model is rejected,
/// as MuJoCo 4.0 rejects it ("Lengthrange computation did not converge in actuator 1: eval (-181.003, -140.808),
/// range (-181.003, 181.003)").
#[test]
fn muscle_without_a_length_range_is_an_error() {
    let xml = r#"<mujoco><worldbody><body><joint name="spin" type="hinge" axis="0 0 1"/>
        <geom size="0.1 0.02" type="cylinder"/></body></worldbody>
        <actuator><motor joint="spin"/><muscle name="free_spin" joint="spin"/></actuator></mujoco>"#;
    let err = load_scene_str(xml, std::path::Path::new("."), Dialect::Mujoco, &[]).unwrap_err().to_string();
    assert!(err.contains("free_spin") && err.contains("did not settle"), "{err}");
    // MuJoCo's numbers (printed to 6 digits): the shortening run's lengths over the last 2 s and the range.
    let numbers: Vec<f64> = err
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter_map(|w| w.trim_end_matches('.').parse().ok())
        .collect();
    for theirs in [-181.003, -140.808, 181.003] {
        assert!(numbers.iter().any(|ours| (ours - theirs).abs() < 5e-4), "{err} lacks {theirs}");
    }
    let given =
        xml.replace(r#"joint="spin"/></actuator>"#, r#"joint="spin" lengthrange="-1 1"/></actuator>"#);
    load_scene_str(&given, std::path::Path::new("."), Dialect::Mujoco, &[]).unwrap();
}

/// MuJoCo 4.0's adhesion (`tests/data/adhesion.xml`, `scripts/mujoco_adhesion_reference.py`): geom adhesion pulling
/// a resting box and a pushed block (whose friction budget grows by the adhesion), an adhesive ball held in the gap
/// band by one frictionless row, a plain ball in the gap band (no rows), and adhesion actuators whose moments are the
/// mean normal Jacobians of their body's contacts (a pyramidal contact's as the mean of its edge rows, as MuJoCo forms
/// it: the moments bit for bit); 300 steps with the pyramidal and the elliptic cone.
#[test]
fn mujoco_parity_adhesion() {
    let reference: Value = serde_json::from_str(include_str!("data/adhesion_reference.json")).unwrap();
    let worst = two_cone_parity("adhesion.xml", &reference, |cone, scene, snap| {
        let Some(moments) = snap.get("moment") else { return };
        let (m, d) = (&scene.model().multibody, &scene.data().multibody);
        for u in 0..m.nu {
            let theirs: Vec<f64> = serde_json::from_value(moments[u].clone()).unwrap();
            let mut ours = vec![0.0; m.nv];
            m.actuator_moment_row(d, u, &mut ours);
            if let Some(r) = m.actuator_momentadr[u] {
                ours.copy_from_slice(&d.actuator_moment[r * m.nv..(r + 1) * m.nv]);
            }
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert_eq!(a, b, "{cone}: moment[{u}][{i}]");
            }
        }
    });
    println!("adhesion vs MuJoCo 4.0: 300 steps, max relative |Δ| {worst:.1e}");
}

/// Explicit contact pairs against MuJoCo 4.0 (`tests/data/contact_pairs.xml`, `scripts/mujoco_pair_reference.py`):
/// a ball that collides with the floor only through a pair (its condim, friction, margin and adhesion), a pushed box
/// whose dynamic floor contact the pair replaces (low friction), a parent and child and an excluded body pair that
/// collide only through pairs; 300 steps with the pyramidal and the elliptic cone.
#[test]
fn mujoco_parity_contact_pairs() {
    let reference: Value = serde_json::from_str(include_str!("data/contact_pairs_reference.json")).unwrap();
    let worst = two_cone_parity("contact_pairs.xml", &reference, |_, _, _| {});
    println!("contact pairs vs MuJoCo 4.0: 300 steps, max relative |Δ| {worst:.1e}");
}

/// A 3×3×3 puzzle cube against MuJoCo 4.0 (`tests/data/cubelets.xml`, `scripts/mujoco_cubelets_reference.py`): 26
/// chamfered-cube meshes settling against each other by less than a micrometre. The face cubelets' hinges pass through
/// their centres of mass, so their translational inverse weight is 0, which MuJoCo keeps (Genesis's rule would make
/// their contacts 700 times softer); touching faces cross by 4e-7 m only with MuJoCo's single-precision mesh vertices
/// (without them 16 contacts are missing at step 2). Eleven steps: at step 12 MuJoCo keeps other four points of a
/// mesh pair's clipped polygon than we do, and the runs part by 1e-6.
#[test]
fn mujoco_parity_cubelets() {
    let reference: Value = serde_json::from_str(include_str!("data/cubelets_reference.json")).unwrap();
    let worst = two_cone_parity("cubelets.xml", &reference, |_, _, _| {});
    println!("cubelets vs MuJoCo 4.0: 11 steps, max relative |Δ| {worst:.1e}");
}

/// Runs `file` from keyframe 0 to the last step of `reference[cone]` with each cone and compares the contact count,
/// `qpos`, `qvel`, `qfrc_adhesion` and the actuators' velocities and forces with `reference[cone][step]`, calling
/// `extra` on each snapshot; returns the largest relative difference.
fn two_cone_parity(
    file: &str,
    reference: &Value,
    extra: impl Fn(&str, &signorini_sim::Scene, &Value),
) -> f64 {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(file);
    let mut worst: f64 = 0.0;
    for cone in ["pyramidal", "elliptic"] {
        let overrides = [("friction_cone".to_string(), cone.to_string())];
        let mut scene = load_scene(&path, Dialect::Mujoco, &overrides).unwrap();
        let last =
            reference[cone].as_object().unwrap().keys().map(|k| k.parse::<u64>().unwrap()).max().unwrap();
        for k in 1..=last {
            scene.step().unwrap();
            let Some(snap) = reference[cone].get(k.to_string()) else { continue };
            assert_eq!(
                scene.contacts().len() as u64,
                snap["ncon"].as_u64().unwrap(),
                "{cone}: ncon at step {k}"
            );
            let d = &scene.data().multibody;
            for (field, ours) in [
                ("qpos", &d.qpos),
                ("qvel", &d.qvel),
                ("qfrc_adhesion", &d.qfrc_adhesion),
                ("actuator_velocity", &d.actuator_velocity),
                ("actuator_force", &d.actuator_force),
                ("sensordata", &d.sensordata),
            ] {
                let Some(theirs) = snap.get(field) else { continue };
                let theirs: Vec<f64> = serde_json::from_value(theirs.clone()).unwrap();
                assert_eq!(ours.len(), theirs.len(), "{field}");
                for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                    let err = (a - b).abs() / b.abs().max(1.0);
                    worst = worst.max(err);
                    assert!(err < 1e-8, "{file} {cone}: {field}[{i}] at step {k}: {a} vs {b}");
                }
            }
            extra(cone, &scene, snap);
        }
    }
    worst
}

/// MuJoCo's PGS solver against MuJoCo 4.0.1 (`tests/data/pgs.xml`, `scripts/mujoco_pgs_reference.py`): joint and
/// tendon limits, friction loss, joint and connect equalities and a sliding, spinning ball, solved per island with
/// MuJoCo's shuffled sweeps and momentum; 300 steps with the pyramidal and the elliptic cone, bit for bit (MuJoCo's
/// `Y = J M^{-1/2}`, `AR = Y Yᵀ + R`, residuals over whole rows of `AR`, `mju_QCQP2/3/n` and `dualFinish`).
#[test]
fn mujoco_parity_pgs() {
    let reference: Value = serde_json::from_str(include_str!("data/pgs_reference.json")).unwrap();
    let worst = two_cone_parity("pgs.xml", &reference, |_, _, _| {});
    println!("PGS vs MuJoCo 4.0: 300 steps, max relative |Δ| {worst:.1e}");
    assert_eq!(worst, 0.0, "PGS is MuJoCo 4.0.1's to the bit");
}

/// PGS on a model MuJoCo keeps sparse (66 dofs; `tests/data/pgs_sparse.xml`, `scripts/mujoco_pgs_reference.py`): ten
/// boxes tethered to a free hub by limited spatial tendons that wrap around it, falling onto a frictionless floor;
/// bit for bit over 400 steps with both cones. MuJoCo's sparse arithmetic: a tendon row holds every dof of the
/// tendon's sparsity (zeros included: its sums' lanes run over the stored entries), a residual sums the row's
/// structural non-zeros of `AR`, and `dualFinish` sums `Jᵀ f` row by row (`mju_mulMatTVecSparse`).
#[test]
fn mujoco_parity_pgs_sparse() {
    let reference: Value = serde_json::from_str(include_str!("data/pgs_sparse_reference.json")).unwrap();
    let worst = two_cone_parity("pgs_sparse.xml", &reference, |_, _, _| {});
    println!("sparse PGS vs MuJoCo 4.0: 400 steps, max relative |Δ| {worst:.1e}");
    assert_eq!(worst, 0.0, "sparse PGS is MuJoCo 4.0.1's to the bit");
}

/// Site rangefinders against MuJoCo 4.0 (`tests/data/rangefinder.xml`, `scripts/mujoco_rangefinder_reference.py`):
/// rays from a swinging arm onto a bounded plane, a height field, a mesh, primitives and the arm's parent, skipping
/// the arm's own geoms, an invisible geom and a transparent material; misses (−1) and a cutoff; 500 steps.
#[test]
fn mujoco_parity_rangefinder() {
    let reference: Value = serde_json::from_str(include_str!("data/rangefinder_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/rangefinder.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let mut worst: f64 = 0.0;
    for k in 1..=500u64 {
        scene.step().unwrap();
        let Some(snap) = reference["steps"].get(k.to_string()) else { continue };
        let d = &scene.data().multibody;
        for (field, ours) in [("qpos", &d.qpos), ("sensordata", &d.sensordata)] {
            let theirs: Vec<f64> = serde_json::from_value(snap[field].clone()).unwrap();
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                let err = (a - b).abs();
                worst = worst.max(err);
                assert!(err < 1e-9, "{field}[{i}] at step {k}: {a} vs {b}");
            }
        }
    }
    println!("rangefinder vs MuJoCo 4.0: 500 steps, max |Δ| {worst:.1e}");
}

/// MuJoCo's disable flags against MuJoCo 4.0.1 (`tests/data/flags.xml`, `scripts/mujoco_flags_reference.py`):
/// `spring`, `damper`, both (which also drops gravity compensation and fluid forces), `actuation`, `clampctrl`,
/// `warmstart`, `filterparent`, `refsafe` and `eulerdamp`, each written as `<flag NAME="disable"/>`; 400 steps, to the
/// bit. The floater's inertia-box fluid force takes `mj_inertiaBoxFluidModel`'s grouping of its products (`((−π d) d)
/// d β`, `((½ρ b₁) b₂) |v| v`): with `π d³ β`, the run parted at step 315 by 1e-41 m.
#[test]
fn mujoco_parity_flags() {
    let reference: Value = serde_json::from_str(include_str!("data/flags_reference.json")).unwrap();
    assert_eq!(reference["mujoco"], "4.0.1");
    let text = include_str!("data/flags.xml");
    let mut checked = 0;
    for (variant, snaps) in reference["variants"].as_object().unwrap() {
        let xml = if variant == "none" {
            text.to_string()
        } else {
            let tags: Vec<String> = variant.split(' ').map(|f| format!(r#"{f}="disable""#)).collect();
            text.replace(
                r#"viscosity="0.01"/>"#,
                &format!(r#"viscosity="0.01"><flag {}/></option>"#, tags.join(" ")),
            )
        };
        let mut scene = load_scene_str(&xml, std::path::Path::new("."), Dialect::Mujoco, &[]).unwrap();
        for k in 1..=400u64 {
            scene.step().unwrap();
            let Some(snap) = snaps.get(k.to_string()) else { continue };
            assert_eq!(
                scene.contacts().len() as u64,
                snap["ncon"].as_u64().unwrap(),
                "{variant}: ncon at step {k}"
            );
            let d = &scene.data().multibody;
            for (field, ours) in [("qpos", &d.qpos), ("act", &d.act)] {
                assert_field_bits(&format!("{variant}: "), field, ours, snap, k);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 50, "every snapshot compared");
}

/// Ball joints with cone limits (`tests/data/ball_limit.xml`: a spinning two-link pendulum on 40° and 25° cones)
/// against MuJoCo 4.0.1 (`tests/data/ball_limit_reference.json`, `scripts/mujoco_ball_limit_reference.py`): the
/// limit rows (which joints, their violation `efc_pos`) and the state over 1000 steps, bit for bit. It depends on the
/// cone angle in `mj_instantiateLimit`'s arithmetic (`mju_normalize4`, `mju_quat2Vel`, `mju_normalize3`) and on the
/// row's velocity summed as `mj_mulJacVec` sums it; before, the run parted at step 76 (7e-13 by step 1000).
#[test]
fn mujoco_parity_ball_joint_limits() {
    use signorini_constraints::RowKind;
    let reference: Value = serde_json::from_str(include_str!("data/ball_limit_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ball_limit.xml");
    let mut scene = load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let mut limited = 0usize;
    for k in 1..=1000u64 {
        scene.step().unwrap();
        let Some(snap) = reference["snapshots"].get(k.to_string()) else { continue };
        let rows = &scene.data().rows;
        let ours: Vec<(u64, f64)> = (0..rows.len())
            .filter(|&i| rows.kind[i] == RowKind::LimitJoint)
            .map(|i| (rows.id[i] as u64, rows.pos[i]))
            .collect();
        let ids: Vec<u64> = serde_json::from_value(snap["limit_id"].clone()).unwrap();
        let pos: Vec<f64> = serde_json::from_value(snap["limit_pos"].clone()).unwrap();
        assert_eq!(ours.iter().map(|r| r.0).collect::<Vec<_>>(), ids, "limited joints at step {k}");
        for ((_, a), b) in ours.iter().zip(&pos) {
            assert_eq!(a.to_bits(), b.to_bits(), "efc_pos at step {k}: {a} vs {b}");
        }
        limited += ids.len();
        let d = &scene.data().multibody;
        for (field, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel)] {
            assert_field_bits("", field, ours, snap, k);
        }
    }
    assert!(limited >= 8, "the limits should bind: {limited} limit rows at the snapshots");
    println!("ball joint limits vs MuJoCo: {limited} limit rows at the snapshots, state bit for bit");
}
