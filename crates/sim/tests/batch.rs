//! A batch of environments over one model: each environment is the lone scene, bit for bit, for any thread count
//! and batch size; padded contacts match the per-environment lists; setters, resets and snapshots act on exactly the
//! selected environments; misuse is a typed error.

use std::path::PathBuf;
use std::sync::Arc;

use ndarray::Array2;
use signorini_mjcf::load_scene;
use signorini_sim::{Batch, Data, Device, Dialect, EnvBatch, Envs, Model, Scene, SimError};

fn shared(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(rel)
}

fn scene(file: &str, dialect: Dialect) -> Scene {
    load_scene(&shared(file), dialect, &[]).unwrap()
}

/// Initial velocities of environment `e`: the model's, plus a small deterministic push on every dof.
fn push(model: &Model, e: usize) -> Vec<f64> {
    (0..model.multibody.nv).map(|k| 0.05 * ((e * 7 + k * 3) % 11) as f64 / 11.0 - 0.02).collect()
}

fn bits(d: &Data) -> Vec<u64> {
    d.multibody.qpos.iter().chain(&d.multibody.qvel).map(|x| x.to_bits()).collect()
}

fn batch(model: &Arc<Model>, n: usize, threads: usize) -> Batch {
    let mut b = Batch::new(Arc::clone(model), n).unwrap().with_threads(threads).unwrap();
    let qvel = Array2::from_shape_fn((n, model.multibody.nv), |(e, k)| push(model, e)[k]);
    b.set_qvel(qvel.view(), Envs::All).unwrap();
    b
}

#[test]
fn every_environment_is_the_lone_scene_for_any_thread_count_and_batch_size() {
    for (file, dialect) in [("scenes/box_stack.xml", Dialect::Native), ("scenes/convex.xml", Dialect::Mujoco)]
    {
        let lone = scene(file, dialect);
        let model = Arc::clone(lone.model());
        let expected: Vec<Vec<u64>> = (0..3)
            .map(|e| {
                let mut s = Scene::from_model(Arc::clone(&model)).unwrap();
                s.set_qvel(&push(&model, e)).unwrap();
                for _ in 0..150 {
                    s.step().unwrap();
                }
                bits(s.data())
            })
            .collect();
        for (n, threads) in [(3, 1), (3, 2), (2, 2)] {
            let mut b = batch(&model, n, threads);
            for _ in 0..150 {
                b.step().unwrap();
            }
            for (e, expected) in expected.iter().enumerate().take(n) {
                assert!(bits(b.env(e).unwrap()) == *expected, "{file}: env {e} of {n} on {threads} threads");
            }
        }
    }
}

/// One environment over a model with `threads = 2` steps on the model's pool, which its narrow phase and its islands
/// share: the pile splits its islands while it falls, and the environment is the one-thread scene bit for bit.
#[test]
fn a_lone_environment_steps_on_the_models_pool() {
    let threads = [("threads".to_string(), "2".to_string())];
    let pooled = load_scene(&shared("scenes/pile.xml"), Dialect::Native, &threads).unwrap();
    let mut b = Batch::new(Arc::clone(pooled.model()), 1).unwrap();
    let mut alone = scene("scenes/pile.xml", Dialect::Native);
    let mut parallel = vec![0usize];
    b.step_n_with(150, &mut parallel, |_, _, _| {}).unwrap();
    alone.step_n(150).unwrap();
    b.step_n_with(100, &mut parallel, |_, d, n| *n += usize::from(d.stats().islands_in_parallel)).unwrap();
    alone.step_n(100).unwrap();
    assert!(bits(b.env(0).unwrap()) == bits(alone.data()));
    assert!(parallel[0] > 10, "the islands were solved in parallel in {} of steps 151–250", parallel[0]);
}

/// A batch times its stages only when asked: off (the default) every `time_*` statistic is 0, on they add up to a
/// positive time; the trajectories are the same bit for bit.
#[test]
fn stage_timing_is_off_by_default_and_changes_nothing() {
    let model = Arc::clone(scene("scenes/box_stack.xml", Dialect::Mujoco).model());
    let mut quiet = batch(&model, 2, 1);
    let mut timed = batch(&model, 2, 1);
    timed.set_stage_timing(true);
    for _ in 0..20 {
        quiet.step().unwrap();
        timed.step().unwrap();
    }
    let times = |d: &Data| {
        let s = d.stats();
        [s.time_forward, s.time_collision, s.time_assembly, s.time_solve, s.time_integrate]
    };
    for e in 0..2 {
        let (q, t) = (quiet.env(e).unwrap(), timed.env(e).unwrap());
        assert_eq!(bits(q), bits(t), "env {e}");
        assert_eq!(times(q), [0.0; 5], "env {e}");
        assert!(times(t).iter().sum::<f64>() > 0.0 && times(t).iter().all(|&x| x >= 0.0), "env {e}");
    }
}

#[test]
fn padded_contacts_match_each_environment() {
    let lone = scene("scenes/box_stack.xml", Dialect::Native);
    let model = Arc::clone(lone.model());
    let mut b = batch(&model, 3, 2);
    // Environment 1 starts higher: fewer contacts at first.
    let mut qpos = b.qpos().row(1).to_owned();
    for k in (0..model.multibody.nq).step_by(7) {
        qpos[k + 2] += 0.3;
    }
    b.set_qpos(qpos.view().insert_axis(ndarray::Axis(0)), Envs::Indices(&[1])).unwrap();
    for _ in 0..20 {
        b.step().unwrap();
    }
    let c = b.contacts();
    let max = c.valid_mask.ncols();
    assert!(c.count[0] != c.count[1] && max == *c.count.iter().max().unwrap());
    for e in 0..3 {
        let list = b.env(e).unwrap().contacts(&model);
        assert_eq!(c.count[e], list.len());
        for k in 0..max {
            assert_eq!(c.valid_mask[[e, k]], k < list.len());
            if k < list.len() {
                assert_eq!(
                    (c.geom_a[[e, k]], c.link_b[[e, k]]),
                    (list.geom_a[k] as i64, list.link_b[k] as i64)
                );
                assert_eq!(c.penetration[[e, k]], list.penetration[k]);
                assert_eq!(c.force_a[[e, k, 2]], list.force_a[k].z);
            } else {
                assert_eq!((c.geom_a[[e, k]], c.penetration[[e, k]]), (-1, 0.0));
            }
        }
    }
    let net = b.links_net_contact_force();
    assert_eq!(net.dim(), (3, model.multibody.nbody, 3));
    assert_eq!(b.body_pos().dim(), (3, model.multibody.nbody, 3));
    assert_eq!(b.body_quat().dim(), (3, model.multibody.nbody, 4));
}

#[test]
fn reset_restore_and_clone_act_on_the_selected_environments_only() {
    let lone = scene("scenes/box_stack.xml", Dialect::Native);
    let model = Arc::clone(lone.model());
    let mut fresh = batch(&model, 3, 1);
    let mut b = batch(&model, 3, 1);
    for _ in 0..100 {
        b.step().unwrap();
    }
    let snapshot = b.snapshot(2).unwrap();
    let moved = bits(b.env(0).unwrap());
    // A reset environment continues as a new one would, bit for bit.
    b.reset(Envs::Mask(&[false, true, false])).unwrap();
    let qvel = Array2::from_shape_fn((1, model.multibody.nv), |(_, k)| push(&model, 1)[k]);
    b.set_qvel(qvel.view(), Envs::Indices(&[1])).unwrap();
    assert_eq!(bits(b.env(0).unwrap()), moved, "env 0 untouched");
    for _ in 0..50 {
        b.step().unwrap();
        fresh.step().unwrap();
    }
    assert!(bits(b.env(1).unwrap()) == bits(fresh.env(1).unwrap()), "reset == new");
    // Restoring a snapshot replays bit for bit; cloning copies the whole state.
    let later = bits(b.env(2).unwrap());
    b.restore(2, &snapshot).unwrap();
    for _ in 0..50 {
        b.step().unwrap();
    }
    assert!(bits(b.env(2).unwrap()) == later);
    b.clone_env(2, Envs::Indices(&[0])).unwrap();
    assert_eq!(bits(b.env(0).unwrap()), bits(b.env(2).unwrap()));
}

#[test]
fn misuse_is_a_typed_error_and_changes_nothing() {
    let lone = scene("scenes/box_stack.xml", Dialect::Native);
    let model = Arc::clone(lone.model());
    let nq = model.multibody.nq;
    let mut b = batch(&model, 2, 1);
    let before = b.qpos();
    let bad_shape = Array2::zeros((2, nq + 1));
    assert!(matches!(b.set_qpos(bad_shape.view(), Envs::All), Err(SimError::InvalidState { .. })));
    assert!(matches!(
        b.set_qpos(Array2::zeros((1, nq)).view(), Envs::Indices(&[5])),
        Err(SimError::InvalidState { .. })
    ));
    assert!(b.set_qpos(Array2::zeros((2, nq)).view(), Envs::Indices(&[1, 1])).is_err());
    assert!(b.reset(Envs::Mask(&[true])).is_err());
    let mut nan = before.clone();
    nan[[1, 0]] = f64::NAN;
    let err = b.set_qpos(nan.view(), Envs::All).unwrap_err();
    assert!(matches!(err, SimError::Environment { env: 1, .. }), "{err}");
    assert_eq!(b.qpos(), before, "nothing written");
    assert!(Batch::new(Arc::clone(&model), 0).is_err());
    assert!(b.env(2).is_err());
    assert!(b.reset_to(Some(9), Envs::All).is_err());
}

/// A 1 kg box resting on a floor with friction 0.5 (box and floor), under gravity tilted by `θ = atan 0.4` (the same
/// as an incline): with a friction ratio of 1 it sticks (μ = 0.5 > tan θ); with ratios 0.5 and 0.3 (μ = 0.25, 0.15)
/// it slides with Coulomb's `a = g (sin θ − μ cos θ)`.
#[test]
fn friction_ratio_and_gravity_follow_coulombs_law_per_environment() {
    const XML: &str = r#"<mujoco><option timestep="0.002"/><worldbody>
        <geom type="plane" size="5 5 0.1" friction="0.5"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1" friction="0.5"/></body>
      </worldbody></mujoco>"#;
    for dialect in [Dialect::Native, Dialect::Mujoco] {
        let scene = signorini_mjcf::load_scene_str(XML, std::path::Path::new("."), dialect, &[]).unwrap();
        let model = Arc::clone(scene.model());
        let ngeom = model.multibody.ngeom;
        let mut b = Batch::new(Arc::clone(&model), 4).unwrap();
        let (g, theta) = (9.81, 0.4f64.atan());
        let tilted = [g * theta.sin(), 0.0, -g * theta.cos()];
        let gravity = Array2::from_shape_fn((4, 3), |(e, k)| if e == 3 { 0.0 } else { tilted[k] });
        b.set_gravity(gravity.view(), Envs::All).unwrap();
        let ratios = [1.0, 0.5, 0.3, 1.0];
        let r = Array2::from_shape_fn((4, ngeom), |(e, _)| ratios[e]);
        b.set_friction_ratio(r.view(), Envs::All).unwrap();
        assert_eq!(b.friction_ratio(), r);
        let steps = 500; // 1 s
        for _ in 0..steps {
            b.step().unwrap();
        }
        let x = |e: usize| b.env(e).unwrap().multibody.qpos[0];
        let t = 1.0;
        assert!(x(0).abs() < 5e-3, "{dialect:?}: μ = 0.5 sticks, moved {}", x(0));
        for (e, mu) in [(1, 0.25), (2, 0.15)] {
            let expected = 0.5 * g * (theta.sin() - mu * theta.cos()) * t * t;
            assert!(
                (x(e) - expected).abs() < 0.05 * expected,
                "{dialect:?}: μ = {mu}: {} vs {expected}",
                x(e)
            );
        }
        let z0 = 0.1;
        assert!((b.env(3).unwrap().multibody.qpos[2] - z0).abs() < 1e-3, "{dialect:?}: no gravity, no fall");
        // Out-of-range ratios are typed errors naming the environment and the parameter; nothing is written.
        let mut bad = r.clone();
        bad[[2, 0]] = 6.0;
        let err = b.set_friction_ratio(bad.view(), Envs::All).unwrap_err();
        assert!(
            matches!(err, SimError::Environment { env: 2, .. }) && err.to_string().contains("friction_ratio")
        );
        assert_eq!(b.friction_ratio(), r);
    }
}

/// A horizontal arm on a hinge falls under gravity onto its joint limit: each environment stops at its own limit
/// (`Batch::set_joint_range`, Genesis's `set_dofs_limit`); an empty or non-finite range is a typed error.
#[test]
fn joint_limits_are_set_per_environment() {
    const XML: &str = r#"<mujoco><compiler angle="radian"/><option timestep="0.002"/><worldbody>
        <body><joint name="hinge" type="hinge" axis="0 1 0" limited="true" range="-1 1" damping="0.5"/>
          <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1"/></body>
      </worldbody></mujoco>"#;
    let scene = signorini_mjcf::load_scene_str(XML, std::path::Path::new("."), Dialect::Native, &[]).unwrap();
    let model = Arc::clone(scene.model());
    let mut b = Batch::new(Arc::clone(&model), 3).unwrap();
    let limits = ndarray::array![[-0.6, 0.6], [-0.3, 0.3]];
    b.set_joint_range(0, limits.view(), Envs::Indices(&[1, 2])).unwrap();
    for _ in 0..1500 {
        b.step().unwrap();
    }
    for (e, limit) in [(0, 1.0), (1, 0.6), (2, 0.3)] {
        let q = b.env(e).unwrap().multibody.qpos[0].abs();
        assert!((q - limit).abs() < 0.03, "env {e}: rests at |q| = {q}, limit {limit}");
    }
    let before = b.env(1).unwrap().multibody.jnt_range.clone();
    for bad in [ndarray::array![[0.3, -0.3]], ndarray::array![[f64::NAN, 0.3]]] {
        let err = b.set_joint_range(0, bad.view(), Envs::Indices(&[1])).unwrap_err();
        assert!(
            matches!(err, SimError::Environment { env: 1, .. }) && err.to_string().contains("jnt_range"),
            "{err}"
        );
    }
    assert!(b.set_joint_range(7, limits.view(), Envs::Indices(&[1, 2])).is_err());
    assert_eq!(b.env(1).unwrap().multibody.jnt_range, before, "nothing written");
    // A reset keeps the environment's limits.
    b.reset(Envs::All).unwrap();
    assert_eq!(b.env(2).unwrap().multibody.jnt_range[0], Some([-0.3, 0.3]));
}

/// A box welded to the world (MJCF `<weld>`) above a floor, in four environments: as loaded it hangs; with its weld
/// switched off it falls onto the floor; with contacts disabled as well it falls through it; with the weld written
/// `active="false"` in the file, it starts released.
#[test]
fn equalities_and_constraint_types_switch_per_environment() {
    let xml = |active: &str| {
        format!(
            r#"<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="5 5 0.1"/>
            <body name="box" pos="0 0 0.5"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
            </worldbody><equality><weld body1="box" active="{active}"/></equality></mujoco>"#
        )
    };
    let scene = signorini_mjcf::load_scene_str(&xml("true"), std::path::Path::new("."), Dialect::Native, &[])
        .unwrap();
    let mut b = Batch::new(Arc::clone(scene.model()), 3).unwrap();
    b.set_equality_active(0, false, Envs::Indices(&[1, 2])).unwrap();
    let no_contact = signorini_sim::ConstraintTypes { contact: false, ..Default::default() };
    b.set_constraint_types(no_contact, Envs::Indices(&[2])).unwrap();
    for _ in 0..500 {
        b.step().unwrap();
    }
    let z = |b: &Batch, e: usize| b.env(e).unwrap().multibody.qpos[2];
    assert!((z(&b, 0) - 0.5).abs() < 0.01, "welded: hangs at {}", z(&b, 0));
    assert!((z(&b, 1) - 0.1).abs() < 0.01, "released: rests on the floor at {}", z(&b, 1));
    assert!(z(&b, 2) < -0.5, "released without contacts: falls through, at {}", z(&b, 2));
    assert!(b.set_equality_active(3, true, Envs::All).is_err());
    let inactive =
        signorini_mjcf::load_scene_str(&xml("false"), std::path::Path::new("."), Dialect::Native, &[]);
    let mut scene = inactive.unwrap();
    for _ in 0..500 {
        scene.step().unwrap();
    }
    assert!((scene.data().multibody.qpos[2] - 0.1).abs() < 0.01, "active=\"false\" starts released");
}

/// A state that overflows is reported in the step that produced it (1-based), with a short time; values beyond the
/// accepted magnitude are refused when set.
#[test]
fn a_non_finite_state_names_the_step_that_produced_it() {
    const XML: &str = r#"<mujoco><worldbody><body><freejoint/><geom type="sphere" size="0.01" mass="0.001"/></body>
      </worldbody></mujoco>"#;
    let mut lone =
        signorini_mjcf::load_scene_str(XML, std::path::Path::new("."), Dialect::Native, &[]).unwrap();
    assert!(lone.set_qvel(&[1e308, 0.0, 0.0, 0.0, 0.0, 0.0]).is_err(), "beyond 1e9 is refused");
    lone.data_mut().multibody.qfrc_applied[0] = f64::MAX;
    let err = lone.step().unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, SimError::NonFinite { step: 1, .. }), "{text}");
    assert!(text.contains("in step 1") && text.len() < 300, "{text}");
}

/// The CPU batch behind `dyn EnvBatch` (the batch API's device seam): `step_n` is bit-identical to repeated
/// `Batch::step`, `reset` keeps the per-environment gravity and `reset_parameters` restores the model's, and a bad
/// selection is a typed error.
#[test]
fn the_cpu_batch_behind_env_batch() {
    let model = scene("scenes/box_stack.xml", Dialect::Native).model().clone();
    let mut direct = Batch::new(model.clone(), 3).unwrap();
    let mut boxed: Box<dyn EnvBatch> = Box::new(Batch::new(model, 3).unwrap());
    assert_eq!(boxed.device(), Device::Cpu);
    let g = ndarray::array![[0.0, 0.0, -4.0]];
    direct.set_gravity(g.view(), Envs::Indices(&[2])).unwrap();
    boxed.set_gravity(g.view(), Envs::Indices(&[2])).unwrap();
    for _ in 0..30 {
        direct.step().unwrap();
    }
    boxed.step_n(30).unwrap();
    assert_eq!(boxed.qpos().unwrap(), direct.qpos());
    assert_eq!(boxed.contact_counts().unwrap(), direct.contacts().count);
    boxed.reset(Envs::Mask(&[true, false, true])).unwrap();
    assert_eq!(boxed.time().unwrap().to_vec(), vec![0.0, direct.time()[1], 0.0]);
    assert_eq!(boxed.gravity().unwrap()[[2, 2]], -4.0);
    boxed.reset_parameters(Envs::All).unwrap();
    assert_eq!(boxed.gravity().unwrap()[[2, 2]], direct.gravity()[[0, 2]]);
    let err = boxed.reset(Envs::Indices(&[0, 0])).unwrap_err();
    assert!(err.to_string().contains("selected twice"), "{err}");
}
