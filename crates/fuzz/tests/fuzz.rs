//! The fuzzing harness (see the crate docs): generated MJCF scenes, URDF robots and queries, each of which must
//! load and step (or be refused with an error) without a panic, a hang or a non-finite output.
//!
//! Budget: `SIGNORINI_FUZZ_SECONDS` per test when set (`cargo xtask fuzz --minutes N`), else a bounded count for
//! the default test run. Each test prints how many inputs it generated; a watchdog aborts with the input at hand
//! when one input takes more than 60 s (a hang).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use glam::{DQuat, DVec3};
use signorini_collision::{CollisionRequest, DistanceRequest, collide, distance};
use signorini_fuzz::{Rng, mjcf, urdf};
use signorini_geometry::{Capsule, ConvexMesh, Cuboid, Cylinder, Ellipsoid, Pose, Shape, Sphere};
use signorini_sim::{Dialect, DialectStages, Model, Scene};

/// Runs `case(rng, input)` on fresh seeds until the budget is spent (`default_cases`, or `SIGNORINI_FUZZ_SECONDS`);
/// returns how many cases ran. `case` describes its input in the `String` (for a failure report).
fn run(name: &str, default_cases: u64, mut case: impl FnMut(&mut Rng, &mut String)) -> u64 {
    let seconds: Option<f64> = std::env::var("SIGNORINI_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok());
    let start = Instant::now();
    let done = Arc::new(AtomicU64::new(0));
    let current = Arc::new(Mutex::new(String::new()));
    let (watch_done, watch_input) = (Arc::clone(&done), Arc::clone(&current));
    let finished = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watch_finished = Arc::clone(&finished);
    let watchdog = std::thread::spawn(move || {
        let (mut last, mut since) = (0, Instant::now());
        while !watch_finished.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
            let now = watch_done.load(Ordering::Relaxed);
            if now != last {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() > Duration::from_secs(60) {
                eprintln!(
                    "HANG: one input ran for 60 s:\n{}",
                    watch_input.lock().map(|s| s.clone()).unwrap_or_default()
                );
                std::process::abort();
            }
        }
    });
    let base = std::env::var("SIGNORINI_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0u64);
    let mut n = 0u64;
    loop {
        let within = match seconds {
            Some(s) => start.elapsed().as_secs_f64() < s,
            None => n < default_cases,
        };
        if !within {
            break;
        }
        let mut rng = Rng::new(base.wrapping_mul(1 << 32).wrapping_add(n));
        let mut input = String::new();
        let outcome = catch_unwind(AssertUnwindSafe(|| case(&mut rng, &mut input)));
        if outcome.is_err() {
            finished.store(true, Ordering::Relaxed);
            panic!("{name}: case {n} (seed {base}) panicked on:\n{input}");
        }
        if let Ok(mut c) = current.lock() {
            c.clone_from(&input);
        }
        n += 1;
        done.store(n, Ordering::Relaxed);
    }
    finished.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    println!("{name}: {n} generated inputs survived in {:.1} s", start.elapsed().as_secs_f64());
    n
}

/// Steps a loaded scene a few times: each step succeeds with a finite state or fails with an error.
fn step_a_little(scene: &mut Scene, input: &str) {
    for k in 0..5 {
        if scene.step().is_err() {
            return;
        }
        let d = &scene.data().multibody;
        assert!(
            d.qpos.iter().chain(&d.qvel).all(|x| x.is_finite()),
            "step {k} returned Ok with a non-finite state:\n{input}"
        );
    }
}

#[test]
fn generated_mjcf_scenes_load_and_step_or_are_refused() {
    let mut loaded = 0;
    let n = run("mjcf", 300, |rng, input| {
        *input = mjcf(rng, 8);
        let dialect = if rng.below(2) == 0 { Dialect::Native } else { Dialect::Mujoco };
        if let Ok(mut scene) = signorini_mjcf::load_scene_str(input, Path::new("."), dialect, &[]) {
            loaded += 1;
            step_a_little(&mut scene, input);
        }
    });
    println!("mjcf: {loaded} of {n} loaded and were stepped");
    assert!(loaded * 10 >= n, "the generator should produce loadable scenes too");
}

#[test]
fn generated_urdf_robots_load_and_step_or_are_refused() {
    let mut loaded = 0;
    let n = run("urdf", 300, |rng, input| {
        *input = urdf(rng, 8);
        let options = signorini_urdf::UrdfOptions { floating_base: rng.below(2) == 0, ..Default::default() };
        let Ok(robot) = signorini_urdf::load_urdf_str(input, Path::new("."), &options) else { return };
        let Ok(model) = Model::new(robot.spec, Dialect::Native.default_options(false)) else { return };
        if let Ok(mut scene) = Scene::from_model(Arc::new(model)) {
            loaded += 1;
            step_a_little(&mut scene, input);
        }
    });
    println!("urdf: {loaded} of {n} loaded and were stepped");
    assert!(loaded * 10 >= n, "the generator should produce loadable robots too");
}

/// A random shape: sizes from 1e-4 to 1e4 m with aspect ratios up to 100 (see the README for what larger ratios
/// do), sometimes invalid ones (which the constructor must refuse).
fn shape(rng: &mut Rng) -> Option<(Shape, f64)> {
    let scale = 10f64.powf(rng.range(-4.0, 4.0));
    let mut size = || {
        let s = scale * 10f64.powf(rng.range(-2.0, 0.0));
        if rng.below(30) == 0 { *rng.pick(&[0.0, -1.0, f64::NAN, 1e300]) } else { s }
    };
    let (a, b, c) = (size(), size(), size());
    let largest = a.abs().max(b.abs()).max(c.abs());
    let shape = match rng.below(6) {
        0 => Sphere::new(a).ok()?.into(),
        1 => Cuboid::new(DVec3::new(a, b, c)).ok()?.into(),
        2 => Capsule::new(a, b).ok()?.into(),
        3 => Cylinder::new(a, b).ok()?.into(),
        4 => Ellipsoid::new(DVec3::new(a, b, c)).ok()?.into(),
        _ => {
            let n = 4 + rng.below(12);
            let points: Vec<DVec3> =
                (0..n).map(|_| DVec3::new(rng.range(-a, a), rng.range(-a, a), rng.range(-a, a))).collect();
            ConvexMesh::from_points(&points).ok()?.into()
        }
    };
    Some((shape, largest))
}

fn pose(rng: &mut Rng) -> Option<Pose> {
    let scale = 10f64.powf(rng.range(-3.0, 3.0));
    let t = DVec3::new(rng.range(-scale, scale), rng.range(-scale, scale), rng.range(-scale, scale));
    let q = DQuat::from_xyzw(
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
    );
    let q = if rng.below(30) == 0 { q } else { q.normalize() };
    Pose::new(t, q).ok()
}

#[test]
fn generated_queries_answer_finite_and_consistent_or_are_refused() {
    run("queries", 20_000, |rng, input| {
        let (Some((a, sa)), Some((b, sb)), Some(pa), Some(pb)) =
            (shape(rng), shape(rng), pose(rng), pose(rng))
        else {
            return;
        };
        *input = format!("{a:?}\n{pa:?}\n{b:?}\n{pb:?}");
        if let Ok(r) = distance(&a, &pa, &b, &pb, &DistanceRequest::default()) {
            assert!(r.distance.is_finite(), "distance {:?}:\n{input}", r.distance);
            assert!((r.normal.length() - 1.0).abs() < 1e-6, "normal {:?}:\n{input}", r.normal);
            // Accuracy is relative to the scene's size: the shapes' largest dimension and their distance from the origin.
            let scale = 1.0 + sa + sb + pa.translation.length() + pb.translation.length();
            let gap = (r.point_b - r.point_a - r.distance * r.normal).length();
            assert!(gap < 1e-6 * scale, "witness gap {gap}:\n{input}");
        }
        if let Ok(c) = collide(&a, &pa, &b, &pb, &CollisionRequest { max_contacts: 4, ..Default::default() })
        {
            for k in &c.contacts {
                assert!(
                    k.distance.is_finite() && k.position.is_finite() && k.normal.is_finite(),
                    "{k:?}:\n{input}"
                );
            }
        }
    });
}

/// Found by this harness (`cargo xtask fuzz`, seed 1796148963, case 1 691 461): a thin cylinder 24 m from a wide,
/// flat one. GJK stopped on a step that made no progress and returned the witnesses of the rejected simplex with the
/// distance of the kept one: 10.7 m apart from `point_a + distance · normal`.
#[test]
fn gjk_witnesses_match_the_distance_when_it_stops_without_progress() {
    let a: Shape = Cylinder::new(0.013_136_957_561_024_683, 0.076_427_561_286_151_08).unwrap().into();
    let b: Shape = Cylinder::new(31.462_277_808_765_055, 1.711_290_873_222_050_4).unwrap().into();
    let pa = Pose::new(
        DVec3::new(-3.035_993_678_592_493_7, -8.895_826_545_218_696, 22.827_806_332_128_194),
        DQuat::from_xyzw(
            -0.687_522_504_599_317_4,
            -0.657_844_068_763_305_1,
            0.168_369_240_408_311_3,
            0.257_304_849_831_381_85,
        ),
    )
    .unwrap();
    let pb = Pose::new(
        DVec3::new(-0.003_979_418_942_608_342, 0.004_596_052_904_879_865, -0.000_319_890_780_508_091_94),
        DQuat::from_xyzw(
            0.403_805_321_458_673_26,
            0.721_747_393_880_548_3,
            -0.484_732_565_472_939_8,
            -0.284_703_884_340_056_7,
        ),
    )
    .unwrap();
    let r = distance(&a, &pa, &b, &pb, &DistanceRequest::default()).unwrap();
    let gap = (r.point_b - r.point_a - r.distance * r.normal).length();
    assert!(gap < 1e-6 * 60.0, "distance {} ({:?}), witness gap {gap} m", r.distance, r.algorithm);
}
