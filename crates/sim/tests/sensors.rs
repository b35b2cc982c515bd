//! Sensors against MuJoCo 4.0 (`tests/data/sensors.xml`, `scripts/mujoco_sensor_reference.py`): every sensor kind
//! signorini computes (joint, tendon, actuator, limit, frame with and without a reference frame, subtree, IMU,
//! force/torque through contacts, a weld and a spatial tendon, touch, cutoffs, clock), in three runs (Euler with
//! pyramidal cones, implicitfast with elliptic cones, RK4), compared value by value after 1, 2, 50, 100, 150 and 300
//! steps. After a step, `sensordata` describes the state the step started from, as in MuJoCo.
//!
//! Until the box lands (step ~100) the Euler and implicitfast runs agree to rounding, and values must agree to
//! 1e-8; once it bounces on the floor the two solvers' last digits (tolerance 1e-12) grow through the contacts, so
//! later values (touch, contact-borne force/torque) are checked to 1e-5.

use std::path::PathBuf;

use serde_json::Value;
use signorini_mjcf::load_scene;
use signorini_sim::Dialect;

#[test]
fn sensors_match_mujoco() {
    let reference: Value = serde_json::from_str(include_str!("data/sensors_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/sensors.xml");
    let sensors = reference["sensors"].as_array().unwrap();
    // The sensors of an RK4 step are those of its first evaluation, not of a later stage.
    let runs = [
        ("euler_pyramidal", "Euler", "pyramidal", [1e-8, 1e-5], 300),
        ("implicitfast_elliptic", "implicitfast", "elliptic", [1e-8, 1e-5], 300),
        ("rk4_pyramidal", "RK4", "pyramidal", [1e-12, 1e-12], 300),
    ];
    for (run, integrator, cone, [early, late], last) in runs {
        let set = [
            ("integrator".to_string(), integrator.to_string()),
            ("friction_cone".to_string(), cone.to_string()),
        ];
        let mut scene = load_scene(&path, Dialect::Mujoco, &set).unwrap();
        let m = &scene.model().multibody;
        assert_eq!(m.nsensordata, reference["nsensordata"].as_u64().unwrap() as usize);
        for (ours, theirs) in m.sensors.iter().zip(sensors) {
            assert_eq!(ours.name, theirs["name"].as_str().unwrap());
        }
        let adr = m.sensor_adr.clone();
        let (mut worst, mut worst_late): (f64, f64) = (0.0, 0.0);
        let snaps = &reference["runs"][run];
        for step in 1..=last {
            scene.step().unwrap();
            let Some(snap) = snaps.get(step.to_string()) else { continue };
            let theirs: Vec<f64> = serde_json::from_value(snap["sensordata"].clone()).unwrap();
            let ours = &scene.data().multibody.sensordata;
            for (i, s) in sensors.iter().enumerate() {
                let a = adr[i];
                for k in a..a + s["dim"].as_u64().unwrap() as usize {
                    let (x, y) = (ours[k], theirs[k]);
                    let err = (x - y).abs() / y.abs().max(1.0);
                    let tolerance = if step <= 100 { early } else { late };
                    if step <= 100 {
                        worst = worst.max(err);
                    } else {
                        worst_late = worst_late.max(err);
                    }
                    assert!(
                        err < tolerance,
                        "{run}, step {step}: sensor #{i} ({} type {}) value {}: {x} vs MuJoCo {y}",
                        s["name"],
                        s["type"],
                        k - a
                    );
                }
            }
        }
        println!(
            "sensors, {run}, vs MuJoCo 4.0: max relative |Δ| {worst:.1e} to step 100, {worst_late:.1e} at 150 and 300"
        );
    }
}
