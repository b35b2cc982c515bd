//! The soak test of `cargo xtask stress` (ignored by default: minutes in release): `pile` for 10⁵ steps in both
//! modes through the CLI (progress bar on stderr, a snapshot every 1 000 steps). Every snapshot is finite, no body
//! leaves the bin, and the deepest penetration stays bounded. `SIGNORINI_SOAK_STEPS` changes the step count.

use std::path::PathBuf;
use std::process::Command;

#[test]
#[ignore = "long: run by `cargo xtask stress`"]
fn stress_pile_soaks_for_1e5_steps_in_both_modes() {
    let steps: u64 =
        std::env::var("SIGNORINI_SOAK_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes/pile.xml");
    let dir = std::env::temp_dir().join(format!("signorini-soak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for compat in [false, true] {
        let dump = dir.join(format!("pile-{compat}.json"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_signorini"));
        cmd.arg("run")
            .arg(&scene)
            .args(["--steps", &steps.to_string(), "--every", "1000", "--dump"])
            .arg(&dump);
        if compat {
            cmd.arg("--mujoco-compat");
        }
        let out = cmd.stderr(std::process::Stdio::inherit()).output().unwrap();
        assert!(out.status.success(), "mujoco_compat = {compat}: the run failed");
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
        let snapshots = json["snapshots"].as_object().unwrap();
        assert!(snapshots.len() as u64 >= steps / 1000);
        for (step, s) in snapshots {
            for (body, q) in s["qpos_free"].as_array().unwrap().iter().enumerate() {
                let q: Vec<f64> = serde_json::from_value(q.clone()).unwrap();
                assert!(q.iter().all(|x| x.is_finite()), "{compat} step {step} body {body}: {q:?}");
                let inside = q[0].abs() < 0.5 && q[1].abs() < 0.5 && q[2] > -0.01;
                assert!(inside, "mujoco_compat = {compat}, step {step}: body {body} left the bin at {q:?}");
            }
            for v in s["qvel_free"].as_array().unwrap() {
                let v: Vec<f64> = serde_json::from_value(v.clone()).unwrap();
                assert!(
                    v.iter().all(|x| x.is_finite() && x.abs() < 100.0),
                    "{compat} step {step}: qvel {v:?}"
                );
            }
        }
        let deepest = json["settled"]["max_penetration_over_run"].as_f64().unwrap();
        assert!(deepest < 0.1, "mujoco_compat = {compat}: penetration reached {deepest} m");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
