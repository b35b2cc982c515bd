//! Motion validation against dense sampling (soundness: a segment certified free has no colliding sample; a reported
//! first collision has no colliding sample before it), the batch API against single queries, and ACM generation
//! against the matrix Pinocchio+Coal sampling produced for the iiwa.

use std::path::PathBuf;

use signorini_robot::{AcmSettings, MeshGeometry, MotionCheck, MotionSettings, RobotModel, RobotOptions};

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/robots")
}

fn iiwa(geometry: MeshGeometry, srdf: bool) -> RobotModel {
    let srdf = srdf.then(|| shared().join("iiwa.srdf"));
    let options = RobotOptions { geometry, ..RobotOptions::default() };
    RobotModel::from_files(&shared().join("kuka_iiwa/model.urdf"), srdf.as_deref(), &options).unwrap()
}

fn lerp(a: &[f64], b: &[f64], t: f64) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + t * (y - x)).collect()
}

#[test]
fn motion_check_is_sound_against_dense_sampling() {
    let robot = iiwa(MeshGeometry::ConvexHull, true);
    let mut data = robot.data();
    let settings = MotionSettings::default();
    let (mut q0, mut q1) = (vec![0.0; 7], vec![0.0; 7]);
    let (mut free, mut hit) = (0, 0);
    let mut next = 0;
    for s in 0..40 {
        robot.sample_configuration(7, 2 * s, &mut q0);
        if s % 2 == 0 {
            // Segments as a planner checks them: a quarter of the way to another sample.
            robot.sample_configuration(7, 2 * s + 1, &mut q1);
            q1 = lerp(&q0, &q1, 0.25);
        } else {
            // Segments that end in collision (uniform samples rarely collide with the SRDF's three pairs).
            q1 = (next..)
                .find_map(|k| {
                    next = k + 1;
                    robot.sample_configuration(8, k, &mut q1);
                    robot.is_colliding(&mut data, &q1).unwrap().then(|| q1.clone())
                })
                .unwrap();
        }
        let answer = robot.check_motion(&mut data, &q0, &q1, &settings).unwrap();
        let end = match answer {
            MotionCheck::Free { .. } => {
                free += 1;
                1.0
            }
            MotionCheck::Collision { fraction, pair, .. } => {
                hit += 1;
                robot.forward(&mut data, &lerp(&q0, &q1, fraction)).unwrap();
                let mut within = Vec::new();
                robot
                    .distances_within(&mut data, &lerp(&q0, &q1, fraction), settings.tolerance, &mut within)
                    .unwrap();
                assert!(
                    within.iter().any(|d| d.pair == pair),
                    "segment {s}: pair {pair} is not within tolerance"
                );
                fraction
            }
            MotionCheck::Undecided { certified } => panic!("segment {s}: undecided after {certified}"),
        };
        let n = 400;
        for k in 0..n {
            let t = k as f64 / n as f64;
            if t >= end {
                break;
            }
            assert!(
                !robot.is_colliding(&mut data, &lerp(&q0, &q1, t)).unwrap(),
                "segment {s}: {answer:?} but the sample at t = {t} collides"
            );
        }
    }
    assert!(
        free >= 10 && hit >= 20,
        "the segments should include both answers: {free} free, {hit} colliding"
    );
}

#[test]
fn a_colliding_end_is_found_and_a_static_segment_is_its_start() {
    let robot = iiwa(MeshGeometry::ConvexHull, true);
    let mut data = robot.data();
    let mut q = vec![0.0; 7];
    let colliding = (0..)
        .find_map(|s| {
            robot.sample_configuration(3, s, &mut q);
            robot.is_colliding(&mut data, &q).unwrap().then(|| q.clone())
        })
        .unwrap();
    let settings = MotionSettings::default();
    let still = robot.check_motion(&mut data, &colliding, &colliding, &settings).unwrap();
    assert!(matches!(still, MotionCheck::Collision { fraction: 0.0, .. }), "{still:?}");
    let home = vec![0.0; 7];
    assert!(!robot.is_colliding(&mut data, &home).unwrap());
    let to = robot.check_motion(&mut data, &home, &colliding, &settings).unwrap();
    let MotionCheck::Collision { fraction, .. } = to else { panic!("{to:?}") };
    assert!(fraction > 0.0 && fraction <= 1.0, "{fraction}");
    let bad = MotionSettings { tolerance: f64::NAN, ..settings };
    assert!(robot.check_motion(&mut data, &home, &colliding, &bad).is_err());
}

#[test]
fn batches_equal_single_queries_in_input_order() {
    let robot = iiwa(MeshGeometry::ConvexHull, true);
    let qs: Vec<Vec<f64>> = (0..64)
        .map(|s| {
            let mut q = vec![0.0; 7];
            robot.sample_configuration(11, s, &mut q);
            q
        })
        .collect();
    let flags = robot.batch_is_colliding(&qs).unwrap();
    let dists = robot.batch_distances(&qs).unwrap();
    let mins = robot.batch_min_distance(&qs).unwrap();
    let mut data = robot.data();
    let mut out = Vec::new();
    for (i, q) in qs.iter().enumerate() {
        assert_eq!(flags[i], robot.is_colliding(&mut data, q).unwrap());
        robot.distances(&mut data, q, &mut out).unwrap();
        assert_eq!(dists[i], out);
        assert_eq!(mins[i], robot.min_distance(&mut data, q).unwrap());
    }
    let mut bad = qs.clone();
    bad[9][2] = f64::INFINITY;
    let e = robot.batch_is_colliding(&bad).unwrap_err();
    assert!(e.to_string().contains("configuration 9"), "{e}");
}

#[test]
fn generated_acm_matches_pinocchio_coal_sampling() {
    let robot = iiwa(MeshGeometry::TriangleMesh, false);
    let generation =
        robot.generate_acm(&AcmSettings { samples: 3000, seed: 1, ..AcmSettings::default() }).unwrap();
    let ours = robot.acm_srdf(&generation);
    let lines = |text: &str| {
        let mut v: Vec<String> =
            text.lines().filter(|l| l.contains("disable_collisions")).map(|l| l.trim().to_string()).collect();
        v.sort();
        v
    };
    let reference = std::fs::read_to_string(shared().join("iiwa.srdf")).unwrap();
    assert_eq!(lines(&ours), lines(&reference));
}
