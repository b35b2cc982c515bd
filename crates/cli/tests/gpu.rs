//! `signorini run --device gpu`: a run on the GPU path, and the errors that name what it does not support.

use std::path::Path;
use std::process::Command;

fn scene(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes").join(name).display().to_string()
}

fn signorini(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_signorini")).args(args).output().expect("the binary runs")
}

/// Whether a GPU adapter exists here; otherwise the test is skipped (unless CI requires one).
fn adapter() -> bool {
    let out =
        signorini(&["run", &scene("sphere_drop.xml"), "--envs", "1", "--device", "gpu", "--steps", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("no GPU adapter found") {
        assert!(
            std::env::var("SIGNORINI_REQUIRE_GPU").as_deref() != Ok("1"),
            "SIGNORINI_REQUIRE_GPU=1: {stderr}"
        );
        eprintln!("skipping: {stderr}");
        return false;
    }
    true
}

#[test]
fn a_gpu_run_prints_its_summary() {
    if !adapter() {
        return;
    }
    let out =
        signorini(&["run", &scene("sphere_drop.xml"), "--envs", "3", "--device", "gpu", "--steps", "300"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(summary["device"], "gpu");
    assert_eq!(summary["envs"], 3);
    assert_eq!(summary["steps"], 300);
    assert_eq!(summary["precision"], "f32");
    assert!(summary["env_steps_per_second"].as_f64().unwrap() > 0.0);
    // The ball has landed by step 300 (0.6 s): one contact in every environment at the last read-back.
    assert_eq!(summary["mean_contacts"].as_f64().unwrap().round(), 1.0, "{summary}");
}

#[test]
fn what_the_gpu_path_lacks_is_named() {
    if !adapter() {
        return;
    }
    for (file, what) in
        [("arm.xml", "Cylinder"), ("chain.xml", "friction loss"), ("box_stack__elliptic.xml", "elliptic")]
    {
        let out = signorini(&["run", &scene(file), "--envs", "2", "--device", "gpu", "--steps", "5"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {stderr}");
        assert!(stderr.contains(what) && stderr.contains("--device cpu"), "{file}: {stderr}");
        assert!(out.stdout.is_empty(), "{file}: no CPU fallback output");
    }
    let out = signorini(&["run", &scene("sphere_drop.xml"), "--device", "gpu", "--gpu-precision", "f16"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--gpu-precision is f32 or f64"));
    let out = signorini(&["run", &scene("sphere_drop.xml"), "--device", "gpu", "--dump", "/tmp/x.json"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("CPU-only"));
}
