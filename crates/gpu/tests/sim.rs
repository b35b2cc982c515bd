//! The GPU batch path against the f64 CPU path (`signorini_sim::Batch`) on the primitive benchmark scenes: positions
//! after 500 steps, standing stacks, contact counts at rest; and the errors of what it does not support.
//!
//! The default run checks the f32 kernels everywhere and the f64 kernels on the small box scenes; with
//! `SIGNORINI_GPU_F64=1` (`cargo xtask stress` sets it) every test also runs in f64. On lavapipe each precision
//! compiles its own shaders, which is most of the time these tests take.

use std::path::Path;
use std::sync::Arc;

use signorini_gpu::{GpuBatch, GpuBatchOptions, GpuContext, GpuError, Precision};
use signorini_mjcf::{load_scene, load_scene_str};
use signorini_sim::{Batch, Device, Dialect, Envs, Model};

/// The precisions every test runs in: f32, and f64 under `SIGNORINI_GPU_F64=1` where the adapter has it.
fn precisions(ctx: &GpuContext) -> Vec<Precision> {
    let f64_wanted = std::env::var("SIGNORINI_GPU_F64").is_ok_and(|v| v == "1");
    if f64_wanted && !ctx.supports_f64() {
        eprintln!("skipping f64: the adapter has no SHADER_F64");
    }
    let mut out = vec![Precision::F32];
    if f64_wanted && ctx.supports_f64() {
        out.push(Precision::F64);
    }
    out
}

fn scene(name: &str, dialect: Dialect) -> Arc<Model> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes").join(format!("{name}.xml"));
    load_scene(&path, dialect, &[]).unwrap_or_else(|e| panic!("{name}: {e}")).model().clone()
}

/// Largest difference between the body positions (the free joints' translations) of the GPU and CPU runs, the GPU
/// contact counts, and the CPU's.
fn compare(
    ctx: &Arc<GpuContext>,
    name: &str,
    dialect: Dialect,
    precision: Precision,
    steps: usize,
) -> (f64, Vec<usize>, usize) {
    let model = scene(name, dialect);
    let n = 4;
    let mut cpu = Batch::new(model.clone(), 1).unwrap();
    let mut gpu =
        GpuBatch::new(ctx.clone(), model.clone(), n, GpuBatchOptions { precision, ..Default::default() })
            .unwrap();
    for _ in 0..steps {
        cpu.step().unwrap();
    }
    gpu.step(steps).unwrap();
    let (qc, qg) = (cpu.qpos(), gpu.qpos().unwrap());
    let mut err: f64 = 0.0;
    for j in model.free_joints() {
        let a = model.multibody.jnt_qposadr[j];
        for e in 0..n {
            for k in 0..3 {
                err = err.max((qc[[0, a + k]] - qg[[e, a + k]]).abs());
            }
        }
    }
    let counts = gpu.stats().unwrap().iter().map(|s| s.contacts).collect();
    let cpu_contacts = cpu.env(0).unwrap().collision.contacts().len();
    (err, counts, cpu_contacts)
}

/// Steps `model` `steps` times on the CPU (1 environment) and the GPU (2) in every precision of [`precisions`], and
/// asserts for each that every qpos coordinate is within `bound` of the CPU's and the contact counts within
/// `count_slack` of its count (1e-3 and 0 but where the two paths run different routines). Returns whether the CPU run
/// had a contact at some step.
fn assert_within_cpu(
    ctx: &Arc<GpuContext>,
    model: &Arc<Model>,
    steps: usize,
    label: &str,
    bound: f64,
    count_slack: usize,
) -> bool {
    let mut touched = false;
    for precision in precisions(ctx) {
        let mut cpu = Batch::new(model.clone(), 1).unwrap();
        let options = GpuBatchOptions { precision, ..Default::default() };
        let mut gpu = GpuBatch::new(ctx.clone(), model.clone(), 2, options).unwrap();
        for _ in 0..steps {
            cpu.step().unwrap();
            touched |= !cpu.env(0).unwrap().collision.contacts().is_empty();
        }
        gpu.step(steps).unwrap();
        let (qc, qg) = (cpu.qpos(), gpu.qpos().unwrap());
        let err = (0..qc.ncols()).map(|i| (qc[[0, i]] - qg[[1, i]]).abs()).fold(0.0, f64::max);
        let counts: Vec<usize> = gpu.stats().unwrap().iter().map(|s| s.contacts).collect();
        let cpu_count = cpu.env(0).unwrap().collision.contacts().len();
        eprintln!("{label} {precision:?}: qpos difference {err:.3e}, contacts {counts:?} (CPU {cpu_count})");
        assert!(err < bound, "{label} {precision:?}: {err}");
        assert!(
            counts.iter().all(|&c| c.abs_diff(cpu_count) <= count_slack),
            "{label} {precision:?}: {counts:?} against {cpu_count}"
        );
    }
    touched
}

/// [`assert_within_cpu`] with the bounds of paths that run the same routines: qpos within 1e-3, equal counts.
fn assert_matches_cpu(ctx: &Arc<GpuContext>, model: &Arc<Model>, steps: usize, label: &str) -> bool {
    assert_within_cpu(ctx, model, steps, label, 1e-3, 0)
}

#[test]
fn sphere_drop_matches_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    for precision in precisions(&ctx) {
        let (err, counts, cpu) = compare(&ctx, "sphere_drop", Dialect::Native, precision, 500);
        eprintln!(
            "sphere_drop {precision:?}: max position difference {err:.3e} m, contacts {counts:?} (CPU {cpu})"
        );
        assert!(err < 1e-3, "{precision:?}: {err}");
        assert!(counts.iter().all(|&c| c == cpu));
    }
}

/// One box on the floor and two stacked boxes (free joints, plane–box and box–box manifolds, friction pyramids):
/// 300 steps against the CPU path, in f32 and f64 (the default run's check of the f64 kernels). The GPU path does
/// not prune contacts (native mode's support-polygon pruning, which Genesis 1.4.5 runs on every model): the upper
/// box, turned 0.3°, rests on an octagon whose two short cut corners the CPU path prunes (8 contacts against 10), so
/// the CPU reference runs without pruning.
#[test]
fn one_and_two_boxes_match_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let one = r#"<body pos="0 0 0.101"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>"#;
    let two = r#"<body pos="0.02 0 0.302" euler="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>"#;
    for (bodies, nbox) in [(one.to_string(), 1), (format!("{one}{two}"), 2)] {
        let xml = format!(
            r#"<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="5 5 0.1"/>{bodies}</worldbody></mujoco>"#
        );
        let unpruned = [("contact_pruning_tolerance".to_string(), "0".to_string())];
        let model = load_scene_str(&xml, Path::new("."), Dialect::Native, &unpruned).unwrap().model().clone();
        for precision in [Precision::F32, Precision::F64] {
            if precision == Precision::F64 && !ctx.supports_f64() {
                continue;
            }
            let mut cpu = Batch::new(model.clone(), 1).unwrap();
            let options = GpuBatchOptions { precision, ..Default::default() };
            let mut gpu = GpuBatch::new(ctx.clone(), model.clone(), 2, options).unwrap();
            for _ in 0..300 {
                cpu.step().unwrap();
            }
            gpu.step(300).unwrap();
            let (qc, qg) = (cpu.qpos(), gpu.qpos().unwrap());
            let err = (0..7 * nbox)
                .filter(|i| i % 7 < 3)
                .map(|i| (qc[[0, i]] - qg[[1, i]]).abs())
                .fold(0.0, f64::max);
            let counts: Vec<usize> = gpu.stats().unwrap().iter().map(|s| s.contacts).collect();
            let cpu_count = cpu.env(0).unwrap().collision.contacts().len();
            eprintln!(
                "{nbox} box(es) {precision:?}: position difference {err:.3e} m, contacts {counts:?} (CPU {cpu_count})"
            );
            assert!(err < 1e-3, "{nbox} box(es) {precision:?}: {err}");
            assert!(counts.iter().all(|&c| c == cpu_count));
        }
    }
}

#[test]
fn box_stack_stands_and_matches_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    for precision in precisions(&ctx) {
        let (err, counts, cpu) = compare(&ctx, "box_stack", Dialect::Native, precision, 500);
        eprintln!(
            "box_stack {precision:?}: max position difference {err:.3e} m, contacts {counts:?} (CPU {cpu})"
        );
        assert!(err < 1e-3, "{precision:?}: {err}");
        assert!(counts.iter().all(|&c| c == cpu));
    }
}

/// The pyramid's side faces are flush in every layer: its equal contact counts rest on the clipping slack of box–box
/// (`CLIP_SLACK_REL`), without which yaws of 1e-7 rad (f64 CG) to 5e-5 rad (f32) split flush corners and the device
/// run settled with 431 contacts against the CPU's 400.
#[test]
fn pyramid_stands_and_matches_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    for precision in precisions(&ctx) {
        let (err, counts, cpu) = compare(&ctx, "pyramid", Dialect::Native, precision, 500);
        eprintln!(
            "pyramid {precision:?}: max position difference {err:.3e} m, contacts {counts:?} (CPU {cpu})"
        );
        assert!(err < 1e-3, "{precision:?}: {err}");
        assert!(counts.iter().all(|&c| c == cpu), "{counts:?} against {cpu}");
    }
}

/// A hinge/slide chain (limits, damping, a spring, armature) swinging onto the floor: capsule–plane and box–plane
/// contacts, joint-limit rows, the implicit damping of approximate_implicitfast; 400 steps against the CPU path.
#[test]
fn hinge_and_slide_chain_matches_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let xml = r#"<mujoco><compiler angle="radian"/><option timestep="0.002"/>
      <default><geom contype="1" conaffinity="2"/><joint armature="0.01"/></default>
      <worldbody>
        <geom type="plane" size="5 5 0.1" contype="2" conaffinity="1"/>
        <body pos="0 0 0.3">
          <joint name="j0" type="hinge" axis="0 1 0" range="-1 1" damping="0.3"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
          <body pos="0.3 0 0">
            <joint name="j1" type="hinge" axis="0 1 0" stiffness="2" range="-0.8 0.8"/>
            <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.035"/>
            <body pos="0.25 0 0">
              <joint name="s" type="slide" axis="1 0 0" range="-0.05 0.05"/>
              <geom type="box" size="0.05 0.04 0.03"/>
            </body>
          </body>
        </body>
      </worldbody></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    assert!(assert_matches_cpu(&ctx, &model, 400, "chain"), "the chain should reach the floor");
}

/// Joint actuators (a motor with a ctrl range, a position servo with a velocity gain and a force range) on a hinge
/// and a slide, driven by per-environment controls; and the same batch split into chunks gives the same numbers.
#[test]
fn actuators_and_chunks_match_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let xml = r#"<mujoco><compiler angle="radian"/><option timestep="0.002"/>
      <worldbody>
        <body pos="0 0 1">
          <joint name="h" type="hinge" axis="0 1 0" damping="0.1"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
          <body pos="0.3 0 0">
            <joint name="s" type="slide" axis="1 0 0"/>
            <geom type="box" size="0.05 0.04 0.03"/>
          </body>
        </body>
      </worldbody>
      <actuator>
        <motor joint="h" gear="2" ctrlrange="-1 1"/>
        <position joint="s" kp="50" kv="3" forcerange="-4 4"/>
      </actuator></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    let n = 5;
    let ctrl =
        ndarray::Array2::from_shape_fn(
            (n, 2),
            |(e, u)| if u == 0 { 0.6 * e as f64 - 1.5 } else { 0.02 * e as f64 },
        );
    let mut cpu = Batch::new(model.clone(), n).unwrap();
    cpu.set_ctrl(ctrl.view(), signorini_sim::Envs::All).unwrap();
    for _ in 0..300 {
        cpu.step().unwrap();
    }
    let qc = cpu.qpos();
    for precision in precisions(&ctx) {
        let mut results = Vec::new();
        for chunk_envs in [None, Some(2)] {
            let options = GpuBatchOptions { precision, chunk_envs, ..Default::default() };
            let mut gpu = GpuBatch::new(ctx.clone(), model.clone(), n, options).unwrap();
            assert_eq!(gpu.n_chunks(), if chunk_envs.is_some() { 3 } else { 1 });
            gpu.set_ctrl(ctrl.view(), Envs::All).unwrap();
            let back = gpu.ctrl().unwrap();
            assert!((&back - &ctrl).iter().all(|d| d.abs() < 1e-6), "{back} against {ctrl}");
            gpu.step(300).unwrap();
            let qg = gpu.qpos().unwrap();
            let err = (&qc - &qg).iter().fold(0.0f64, |m, v| m.max(v.abs()));
            eprintln!("actuators {precision:?} chunks {chunk_envs:?}: qpos difference {err:.3e}");
            assert!(err < 1e-3, "{precision:?} {chunk_envs:?}: {err}");
            results.push(qg);
        }
        assert_eq!(results[0], results[1], "chunking changed the results");
    }
}

/// Two parallel capsules on the floor with a third lying across both: capsule–capsule contacts with the perturbation
/// manifold (spec §A.9), capsule–plane and sphere–capsule; 400 steps against the CPU path. The scene writes
/// MuJoCo's default `solref` (0.02 s): with native mode's unset value (0.01 s, stiffer) the f32 run drifts 1.2e-3 m
/// from the CPU's in 400 steps, over this test's 1e-3 bound.
#[test]
fn capsule_pile_matches_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let xml = r#"<mujoco><compiler angle="radian"/><option timestep="0.002"/>
      <default><geom solref="0.02 1"/></default>
      <worldbody>
        <geom type="plane" size="5 5 0.1"/>
        <body pos="0 0 0.05"><freejoint/><geom type="capsule" size="0.05 0.2" euler="0 1.5707963 0"/></body>
        <body pos="0 0.1005 0.05"><freejoint/><geom type="capsule" size="0.05 0.2" euler="0 1.5707963 0"/></body>
        <body pos="0 0.05 0.138"><freejoint/><geom type="capsule" size="0.05 0.15" euler="1.5707963 0 0"/></body>
        <body pos="0.3 0 0.06"><freejoint/><geom type="sphere" size="0.06"/></body>
      </worldbody></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    assert_matches_cpu(&ctx, &model, 400, "capsules");
}

/// Capsules and boxes: a capsule lying on a box's top face and a box resting across the middle of a capsule;
/// capsule–box in both geom orders, 400 steps against the CPU path. Both paths run Genesis 1.4.5's MPR with the
/// pair's warm-start normal, its tilts about the default axes and the pruning of each link pair's contacts
/// (`shaders/mpr.wgsl`, `capsule_box.wgsl`, `prune.wgsl`). (A capsule balanced across a box edge diverges from the CPU
/// run by ~3e-2 within 400 steps in f64: the balance is unstable, not the contact.)
#[test]
fn capsules_on_boxes_match_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let xml = r#"<mujoco><compiler angle="radian"/><option timestep="0.002"/>
      <worldbody>
        <geom type="plane" size="5 5 0.1"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.2 0.2 0.1"/></body>
        <body pos="0 0 0.25"><freejoint/><geom type="capsule" size="0.04 0.12" euler="0 1.5707963 0"/></body>
        <body pos="-1 0 0.04"><freejoint/><geom type="capsule" size="0.04 0.3" euler="1.5707963 0 0"/></body>
        <body pos="-1 0 0.135"><freejoint/><geom type="box" size="0.05 0.1 0.05"/></body>
      </worldbody></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    assert_matches_cpu(&ctx, &model, 400, "capsules on boxes");
}

/// Capsule–box contact sets, contact for contact, against the CPU's at the first step (MPR cold, the exact signed
/// distance for the deep pair) and the second (warm-started from each pair's normal): a capsule lying tilted on a
/// box, one crossing a box's edge, one standing on its end cap, one sunk 6 mm (the deep, exact path), and a box
/// lying across a capsule (the other geom order). Each GPU contact is matched with the nearest CPU contact of its
/// pair. f64: equal counts per pair, positions, depths and normals within 1e-9 at step 1 (the same state) and 1e-6 at
/// step 2 (the states after step 1 differ by the solvers, Newton on the CPU and CG on the device; MPR stops within
/// 1e-5 of the pair's scale). f32: within 2e-4, and per pair at most one contact more or fewer: pruning's rounding
/// length is Genesis's `√(EPS r²)` of the precision, which in f32 takes three nearly collinear contacts of the capsule
/// across the edge for a segment.
#[test]
fn capsule_box_contacts_match_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let xml = r#"<mujoco><option timestep="0.002" gravity="0 0 0"/>
      <worldbody>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.2 0.2 0.1"/></body>
        <body pos="0.01 0.02 0.2385" euler="3 88 1"><freejoint/><geom type="capsule" size="0.04 0.12"/></body>
        <body pos="1 0 0.1" euler="0 0 20"><freejoint/><geom type="box" size="0.2 0.2 0.1"/></body>
        <body pos="1.19 0.05 0.235" euler="80 10 40"><freejoint/><geom type="capsule" size="0.04 0.15"/></body>
        <body pos="2 0 0.1"><freejoint/><geom type="box" size="0.2 0.2 0.1"/></body>
        <body pos="2.03 -0.05 0.359" euler="4 3 0"><freejoint/><geom type="capsule" size="0.04 0.12"/></body>
        <body pos="3 0 0.1"><freejoint/><geom type="box" size="0.2 0.2 0.1"/></body>
        <body pos="3 0.03 0.234" euler="0 90 7"><freejoint/><geom type="capsule" size="0.04 0.12"/></body>
        <body pos="4 0 0.04" euler="90 0 0"><freejoint/><geom type="capsule" size="0.04 0.3"/></body>
        <body pos="4.01 0 0.1295" euler="2 1 15"><freejoint/><geom type="box" size="0.05 0.1 0.05"/></body>
      </worldbody></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    let per_pair = |pairs: Vec<(usize, usize)>| {
        let mut counts = std::collections::BTreeMap::new();
        pairs.into_iter().for_each(|p| *counts.entry(p).or_insert(0usize) += 1);
        counts
    };
    for precision in precisions(&ctx).into_iter().rev() {
        let f64_kernels = precision == Precision::F64;
        let mut cpu = Batch::new(model.clone(), 1).unwrap();
        let options = GpuBatchOptions { precision, ..Default::default() };
        let mut gpu = GpuBatch::new(ctx.clone(), model.clone(), 1, options).unwrap();
        for step in 1..=2 {
            let bound = match (f64_kernels, step) {
                (true, 1) => 1e-9,
                (true, _) => 1e-6,
                _ => 2e-4,
            };
            cpu.step().unwrap();
            gpu.step(1).unwrap();
            let theirs: Vec<_> = cpu.env(0).unwrap().collision.contacts().iter().collect();
            let ours = gpu.contacts(0).unwrap();
            let (mut worst, mut worst_normal) = (0.0f64, 0.0f64);
            for c in &ours {
                let nearest = theirs
                    .iter()
                    .filter(|t| (t.geom_a, t.geom_b) == (c.geom_a, c.geom_b))
                    .min_by(|x, y| {
                        (x.position - c.position).length().total_cmp(&(y.position - c.position).length())
                    })
                    .unwrap_or_else(|| panic!("{precision:?} step {step}: no CPU contact for {c:?}"));
                worst = worst
                    .max((nearest.position - c.position).length())
                    .max((nearest.penetration - c.penetration).abs());
                worst_normal = worst_normal.max((nearest.normal - c.normal).length());
            }
            eprintln!(
                "capsule–box contacts {precision:?}, step {step}: {} against the CPU's {}, position/depth {worst:.2e} m, \
                 normal {worst_normal:.2e}",
                ours.len(),
                theirs.len()
            );
            let (counts, cpu_counts) = (
                per_pair(ours.iter().map(|c| (c.geom_a, c.geom_b)).collect()),
                per_pair(theirs.iter().map(|c| (c.geom_a, c.geom_b)).collect()),
            );
            if f64_kernels {
                assert_eq!(counts, cpu_counts, "{precision:?} step {step}: contacts per geom pair");
            } else {
                assert_eq!(counts.keys().collect::<Vec<_>>(), cpu_counts.keys().collect::<Vec<_>>());
                assert!(
                    counts.iter().all(|(k, &n)| n.abs_diff(cpu_counts[k]) <= 1),
                    "{precision:?} step {step}: {counts:?} against {cpu_counts:?}"
                );
            }
            assert!(
                worst < bound && worst_normal < bound,
                "{precision:?} step {step}: {worst} {worst_normal}"
            );
        }
    }
}

/// Spinning free bodies in flight advance by the implicit midpoint rule (native mode, spec §D.5), then land: a box near
/// its intermediate axis, an off-centre body with a damped free joint (the coupled translation), a body with another
/// welded under it (a composite), and a ball resting off its body origin, spinning in place (Genesis's anchored
/// update of a body in contact). 80 steps against the CPU path (the tumblers land at step 58), positions and orientations (with
/// `SIGNORINI_GPU_F64=1`, f64 within 2e-14 in flight; the ball within the solvers' tolerance).
#[test]
fn tumbling_free_bodies_match_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let xml = r#"<mujoco><option timestep="0.005"/>
      <worldbody>
        <geom type="plane" size="5 5 0.1"/>
        <body pos="0 0 0.6"><freejoint/><geom type="box" size="0.05 0.1 0.2" density="800"/></body>
        <body pos="1 0 0.5"><joint type="free" damping="0.05"/>
          <geom type="capsule" size="0.05 0.15" pos="0.12 0.03 0" euler="0 30 0"/>
          <geom type="sphere" size="0.06" pos="-0.05 0 0.04" density="300"/></body>
        <body pos="-1 0 0.4"><freejoint/><geom type="box" size="0.15 0.08 0.04" density="500"/>
          <body pos="0.1 0.05 0.1" euler="20 0 10"><geom type="sphere" size="0.07" density="2000"/></body></body>
        <body pos="0 1.5 0.1"><freejoint/><geom type="sphere" size="0.1" pos="0.1 0 0"/></body>
      </worldbody></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    // The last body is a ball on the floor off its body origin, spinning in place about its vertical axis: it is in
    // contact throughout, and its centre of mass takes the update of Genesis's anchored body on both paths.
    let spin = [
        0.3, 0.0, 2.0, 0.2, 9.0, 0.15, -0.4, 0.2, 1.0, 4.0, -3.0, 6.0, 0.0, 0.5, 0.5, -2.0, 5.0, 3.0, 0.0,
        -0.5, 0.0, 0.0, 0.0, 5.0,
    ];
    for precision in precisions(&ctx) {
        let mut cpu = Batch::new(model.clone(), 1).unwrap();
        let options = GpuBatchOptions { precision, ..Default::default() };
        let mut gpu = GpuBatch::new(ctx.clone(), model.clone(), 2, options).unwrap();
        let qvel = |n: usize| ndarray::Array2::from_shape_fn((n, spin.len()), |(_, i)| spin[i]);
        cpu.set_qvel(qvel(1).view(), Envs::All).unwrap();
        gpu.set_qvel(qvel(2).view(), Envs::All).unwrap();
        let mut landed = 0;
        for step in 1..=80 {
            cpu.step().unwrap();
            gpu.step(1).unwrap();
            let (qc, qg) = (cpu.qpos(), gpu.qpos().unwrap());
            let err = (0..21).map(|i| (qc[[0, i]] - qg[[1, i]]).abs()).fold(0.0, f64::max);
            let ball = (21..28).map(|i| (qc[[0, i]] - qg[[1, i]]).abs()).fold(0.0, f64::max);
            if landed == 0 && cpu.env(0).unwrap().collision.contacts().len() > 1 {
                landed = step;
            }
            if step % 20 == 0 || step == landed {
                eprintln!(
                    "tumbling {precision:?}: step {step}, qpos difference {err:.3e}, spinning ball {ball:.3e}"
                );
            }
            // In flight the kernels follow the CPU to their rounding; contacts then add the usual GPU-CPU spread.
            let tol = match (precision, landed) {
                (Precision::F64, 0) => 1e-12,
                (Precision::F32, 0) => 1e-4,
                _ => 1e-3,
            };
            // The ball is in contact from the start: each path solves its rows to the solver's tolerance (CPU Newton,
            // device CG), and the two stop at different iterates (f64: 1.2e-10 m at step 3, 3.9e-9 m at step 40;
            // 4.9e-14 m and 1.7e-12 m with `tolerance` 1e-15). Without the centre-of-mass shift of its rows on one
            // path it parts by 2.1e-4 m at step 2.
            let ball_tol = match (precision, landed) {
                (Precision::F64, 0) => 1e-8,
                _ => tol,
            };
            assert!(err < tol, "tumbling {precision:?}: step {step}, {err}");
            assert!(ball < ball_tol, "spinning ball {precision:?}: step {step}, {ball}");
        }
        assert!(landed > 20, "the bodies fly before they land ({landed})");
    }
}

/// Gravity per environment (a domain-randomisation parameter): three environments of box_stack under different
/// gravities against the CPU batch with the same `set_gravity`, 200 steps; `reset` keeps them, `reset_parameters`
/// restores the model's.
#[test]
fn gravity_per_environment_matches_the_cpu() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let model = scene("box_stack", Dialect::Native);
    let g = ndarray::array![[0.0, 0.0, -9.81], [0.0, 0.0, -3.0], [0.0, 0.0, -15.0]];
    let mut cpu = Batch::new(model.clone(), 3).unwrap();
    cpu.set_gravity(g.view(), signorini_sim::Envs::All).unwrap();
    for _ in 0..200 {
        cpu.step().unwrap();
    }
    let precision = *precisions(&ctx).last().unwrap();
    let options = GpuBatchOptions { precision, ..Default::default() };
    let mut gpu = GpuBatch::new(ctx, model, 3, options).unwrap();
    gpu.set_gravity(g.view(), Envs::All).unwrap();
    gpu.step(200).unwrap();
    let err = (&cpu.qpos() - &gpu.qpos().unwrap()).iter().fold(0.0f64, |m, v| m.max(v.abs()));
    eprintln!("gravity per environment {precision:?}: qpos difference {err:.3e}");
    assert!(err < 1e-3, "{err}");
    assert!((&gpu.gravity().unwrap() - &g).iter().all(|d| d.abs() < 1e-6));
    gpu.reset(Envs::All).unwrap();
    assert!((&gpu.gravity().unwrap() - &g).iter().all(|d| d.abs() < 1e-6));
    gpu.reset_parameters(Envs::Indices(&[2])).unwrap();
    let back = gpu.gravity().unwrap();
    assert!((back[[1, 2]] + 3.0).abs() < 1e-6 && (back[[2, 2]] + 9.81).abs() < 1e-6, "{back}");
}

/// The batch API's device selection: the same code drives a CPU [`Batch`] and a [`GpuBatch`] behind
/// `Box<dyn EnvBatch>`; setters and resets on a subset of environments leave the others alone, and errors name the
/// environment. 400 steps of sphere_drop (the spheres land) with one environment lifted by 1 m at the start and
/// another reset half-way.
#[test]
fn the_batch_api_selects_the_device() {
    let Some(_ctx) = GpuContext::for_tests() else { return };
    let model = scene("sphere_drop", Dialect::Native);
    let mut runs = Vec::new();
    for device in [Device::Cpu, Device::Gpu] {
        let mut batch =
            signorini_gpu::env_batch(device, model.clone(), 3, GpuBatchOptions::default()).unwrap();
        assert_eq!((batch.device(), batch.n_envs()), (device, 3));
        let mut q = batch.qpos().unwrap().row(1).to_owned().insert_axis(ndarray::Axis(0));
        q[[0, 2]] += 1.0;
        batch.set_qpos(q.view(), Envs::Indices(&[1])).unwrap();
        batch.step_n(200).unwrap();
        assert!(
            batch.qpos().unwrap()[[1, 2]] > batch.qpos().unwrap()[[0, 2]] + 0.5,
            "environment 1 was lifted"
        );
        batch.reset(Envs::Mask(&[false, false, true])).unwrap();
        let counts = batch.contact_counts().unwrap();
        assert_eq!(
            (counts[0], counts[2]),
            (1, 0),
            "a reset clears the statistics of the reset environment only"
        );
        batch.step_n(200).unwrap();
        let err = batch.set_qvel(ndarray::Array2::zeros((1, 6)).view(), Envs::Indices(&[3])).unwrap_err();
        assert!(err.to_string().contains("environment 3 does not exist"), "{err}");
        let nan = ndarray::Array2::from_elem((1, 6), f64::NAN);
        assert!(batch.set_qvel(nan.view(), Envs::Indices(&[0])).is_err());
        runs.push((batch.qpos().unwrap(), batch.time().unwrap(), batch.contact_counts().unwrap()));
    }
    let ((qc, tc, nc), (qg, tg, ng)) = (&runs[0], &runs[1]);
    let err = (qc - qg).iter().fold(0.0f64, |m, v| m.max(v.abs()));
    eprintln!("EnvBatch cpu/gpu: qpos difference {err:.3e}, times {tc} / {tg}, contacts {nc} / {ng}");
    assert!(err < 1e-3, "{err}");
    // f32 time: 400 additions of 0.002 s.
    assert!(
        (tc - tg).iter().all(|d| d.abs() < 1e-5) && (tc[0] - 0.8).abs() < 1e-9 && (tc[2] - 0.4).abs() < 1e-9
    );
    assert_eq!(nc, ng);
    assert!(nc.iter().all(|&n| n == 1), "every sphere has landed: {nc}");
}

#[test]
fn unsupported_features_are_named() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let xml = r#"<mujoco><worldbody><body><joint type="ball"/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    let err = GpuBatch::new(ctx.clone(), model, 2, GpuBatchOptions::default()).unwrap_err();
    assert!(matches!(&err, GpuError::Unsupported { what } if what.contains("ball")), "{err}");
    let xml = r#"<mujoco><worldbody><geom type="plane" size="1 1 1"/><body><freejoint/><geom type="ellipsoid" size="0.1 0.2 0.3"/></body></worldbody></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    let err = GpuBatch::new(ctx.clone(), model, 2, GpuBatchOptions::default()).unwrap_err();
    assert!(err.to_string().contains("Ellipsoid"), "{err}");
    let xml = r#"<mujoco><worldbody><geom type="plane" size="1 1 1"/><body><freejoint/><geom size="0.1"/></body></worldbody></mujoco>"#;
    let set = [("integrator".to_string(), "rk4".to_string())];
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &set).unwrap().model().clone();
    let err = GpuBatch::new(ctx.clone(), model, 2, GpuBatchOptions::default()).unwrap_err();
    assert!(matches!(&err, GpuError::Unsupported { what } if what.contains("rk4")), "{err}");
    let xml = r#"<mujoco><worldbody><body mocap="true"><geom size="0.1"/></body><body><freejoint/><geom size="0.1"/></body></worldbody></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    let err = GpuBatch::new(ctx.clone(), model, 2, GpuBatchOptions::default()).unwrap_err();
    assert!(matches!(&err, GpuError::Unsupported { what } if what.contains("mocap")), "{err}");
    let xml =
        r#"<mujoco><worldbody><body gravcomp="1"><freejoint/><geom size="0.1"/></body></worldbody></mujoco>"#;
    let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
    let err = GpuBatch::new(ctx.clone(), model, 2, GpuBatchOptions::default()).unwrap_err();
    assert!(matches!(&err, GpuError::Unsupported { what } if what.contains("gravcomp")), "{err}");
    for (xml, what) in [
        (
            r#"<mujoco><worldbody><body><joint name="a"/><geom size="0.1"/></body></worldbody>
               <tendon><fixed><joint joint="a"/></fixed></tendon></mujoco>"#,
            "tendons",
        ),
        (
            r#"<mujoco><worldbody><body><joint name="a"/><geom size="0.1"/></body></worldbody>
               <actuator><general joint="a" dyntype="integrator"/></actuator></mujoco>"#,
            "activation",
        ),
        (
            r#"<mujoco><worldbody><body><joint name="a" actuatorfrcrange="-1 1"/><geom size="0.1"/></body></worldbody></mujoco>"#,
            "actuatorfrcrange",
        ),
        (
            r#"<mujoco><worldbody><body><joint name="a"/><geom size="0.1"/></body></worldbody>
               <sensor><jointpos joint="a"/></sensor></mujoco>"#,
            "sensors",
        ),
        (
            r#"<mujoco><option density="1.2"/><worldbody><body><freejoint/><geom size="0.1"/></body></worldbody></mujoco>"#,
            "fluid",
        ),
        (
            r#"<mujoco><option integrator="implicit"/><worldbody><body><freejoint/><geom size="0.1"/></body></worldbody></mujoco>"#,
            "implicit",
        ),
    ] {
        let model = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap().model().clone();
        let err = GpuBatch::new(ctx.clone(), model, 2, GpuBatchOptions::default()).unwrap_err();
        assert!(matches!(&err, GpuError::Unsupported { what: w } if w.contains(what)), "{err}");
    }
    let err =
        GpuBatch::new(ctx, scene("sphere_drop", Dialect::Mujoco), 2, GpuBatchOptions::default()).unwrap_err();
    assert!(err.to_string().contains("MuJoCo-compatible"), "{err}");
}
