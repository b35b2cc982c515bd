//! `Data` is the whole per-step state: a snapshot taken with `clone` and restored later continues bit for bit, and
//! one shared `Model` drives several `Data` independently.

use signorini_mjcf::load_scene;
use signorini_sim::Dialect;
use std::path::PathBuf;
use std::sync::Arc;

use signorini_sim::{Data, Scene, step};

fn shared(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(rel)
}

/// Every bit of the state and of the last step's contacts.
fn fingerprint(scene: &Scene) -> Vec<u64> {
    let d = scene.data();
    let mut out: Vec<u64> = d.multibody.qpos.iter().chain(&d.multibody.qvel).map(|x| x.to_bits()).collect();
    out.push(d.multibody.time.to_bits());
    let c = scene.contacts();
    out.push(c.len() as u64);
    for k in 0..c.len() {
        out.extend([c.geom_a[k] as u64, c.geom_b[k] as u64]);
        out.extend(c.position[k].to_array().map(f64::to_bits));
        out.extend(c.normal[k].to_array().map(f64::to_bits));
        out.extend(c.force_a[k].to_array().map(f64::to_bits));
        out.push(c.penetration[k].to_bits());
    }
    out
}

fn steps(scene: &mut Scene, n: usize) -> Vec<Vec<u64>> {
    (0..n)
        .map(|_| {
            scene.step().unwrap();
            fingerprint(scene)
        })
        .collect()
}

fn check_restore(file: &str, mujoco: bool, overrides: &[(&str, &str)]) {
    let overrides: Vec<(String, String)> =
        overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let dialect = if mujoco { Dialect::Mujoco } else { Dialect::Native };
    let mut scene = load_scene(&shared(file), dialect, &overrides).unwrap();
    steps(&mut scene, 500);
    let snapshot = scene.data().clone();
    let first = steps(&mut scene, 500);
    scene.restore(snapshot).unwrap();
    let again = steps(&mut scene, 500);
    assert!(first.last().unwrap().len() > 100, "{file}: the run has contacts");
    for (k, (a, b)) in first.iter().zip(&again).enumerate() {
        assert!(a == b, "{file} (mujoco: {mujoco}): step {} after the restore differs", 501 + k);
    }
}

#[test]
fn a_restored_snapshot_replays_bit_for_bit_native() {
    check_restore("scenes/box_stack.xml", false, &[]);
    // The Signorini resolution latches each contact's normal load between steps.
    check_restore("scenes/pyramid__elliptic.xml", false, &[]);
}

#[test]
fn a_restored_snapshot_replays_bit_for_bit_mujoco() {
    check_restore("scenes/convex.xml", true, &[]);
    check_restore("scenes/box_stack__cg.xml", true, &[("use_hibernation", "true")]);
}

#[test]
fn one_model_drives_independent_data() {
    let mut scene = load_scene(&shared("scenes/box_stack.xml"), Dialect::Native, &[]).unwrap();
    let model = Arc::clone(scene.model());
    let mut other = Data::new(&model).unwrap();
    for _ in 0..200 {
        scene.step().unwrap();
        step(&model, &mut other).unwrap();
    }
    assert_eq!(scene.data().multibody.qpos, other.multibody.qpos);
    let moved = other.multibody.qvel.iter().any(|v| *v != 0.0);
    assert!(moved || other.multibody.time > 0.0);
    let data = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let model = &model;
                s.spawn(move || {
                    let mut d = Data::new(model).unwrap();
                    for _ in 0..200 {
                        step(model, &mut d).unwrap();
                    }
                    d.multibody.qpos
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
    });
    assert!(data.iter().all(|q| *q == other.multibody.qpos), "threads step their own Data to the same state");
}

/// `step_n` on the scene's pool (2 threads) makes the steps that `step` makes on one thread, bit for bit, on a scene
/// with enough pairs to split them between the workers and, while the pile falls, separate islands solved in
/// parallel; in both dialects.
#[test]
fn step_n_on_the_pool_equals_single_threaded_steps() {
    for dialect in [Dialect::Native, Dialect::Mujoco] {
        let mut alone = load_scene(&shared("scenes/pile.xml"), dialect, &[]).unwrap();
        let threads = [("threads".to_string(), "2".to_string())];
        let mut pooled = load_scene(&shared("scenes/pile.xml"), dialect, &threads).unwrap();
        assert_eq!(pooled.options().threads, 2);
        let (mut split, mut parallel) = (0, 0);
        for _ in 0..6 {
            for _ in 0..50 {
                alone.step().unwrap();
                assert!(!alone.stats().islands_in_parallel);
            }
            pooled.step_n(49).unwrap();
            pooled.step().unwrap();
            assert!(fingerprint(&alone) == fingerprint(&pooled), "{dialect:?}: step {}", alone.steps());
            // 128 pairs or more, mostly between hulls, boxes and cylinders: the narrow phase is split between the
            // threads (`pipeline.rs`, `PARALLEL_MIN_PAIRS`).
            split += usize::from(pooled.stats().candidate_pairs >= 128);
            parallel += usize::from(pooled.stats().islands_in_parallel);
        }
        // The pile falls for 150 steps (2 candidate pairs at step 50, 113 at step 150, 276 at step 200), in 20 to 30
        // islands from step 150 to 300.
        assert!(split >= 3, "{dialect:?}: the narrow phase split between the threads in {split} of 6 checks");
        assert!(parallel >= 2, "{dialect:?}: the islands were solved in parallel in {parallel} of 6 checks");
        assert!(alone.contacts().len() > 50, "the pile is in contact: {}", alone.contacts().len());
    }
}
