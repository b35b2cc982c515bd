//! The `signorini` binary as a user drives it (spec §6).

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_signorini"))
}

fn coal(kind: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/testdata/coal")
        .join(format!("{kind}.json"))
}

#[test]
fn query_prints_one_coal_convention_line_per_record() {
    for (kind, tol) in
        [("sphere_box", 1e-9), ("plane_box", 1e-9), ("convex50_convex50", 1e-5), ("mesh_mesh", 1e-6)]
    {
        let out = bin().arg("query").arg(coal(kind)).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let reference: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(coal(kind)).unwrap()).unwrap();
        let records = reference["records"].as_array().unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), records.len());
        for (line, rec) in lines.iter().zip(records) {
            assert_eq!(line["id"], rec["id"]);
            let d = line["distance"].as_f64().unwrap();
            assert!((d - rec["distance"].as_f64().unwrap()).abs() < tol, "{kind} {line} vs {rec}");
            assert_eq!(line["collision"], rec["collision"]);
            let p1: Vec<f64> = serde_json::from_value(line["p1"].clone()).unwrap();
            let p2: Vec<f64> = serde_json::from_value(line["p2"].clone()).unwrap();
            let n: Vec<f64> = serde_json::from_value(line["normal"].clone()).unwrap();
            for k in 0..3 {
                assert!((p2[k] - p1[k] - d * n[k]).abs() < 1e-9);
            }
        }
    }
}

#[test]
fn query_bench_prints_timings() {
    let out = bin().args(["query", "--bench", "--repeat", "2"]).arg(coal("sphere_sphere")).output().unwrap();
    assert!(out.status.success());
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["kind"], "sphere_sphere");
    assert_eq!(line["n"], 60);
    assert!(line["distance_ns"].as_f64().unwrap() > 0.0 && line["collide_ns"].as_f64().unwrap() > 0.0);
}

#[test]
fn bad_input_exits_non_zero_with_a_message() {
    let dir = std::env::temp_dir().join(format!("signorini-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plane = r#"{"type": "plane", "normal": [0, 0, 1], "offset": 0}"#;
    let identity = r#"{"t": [0, 0, 0], "q_wxyz": [1, 0, 0, 0]}"#;
    let unsupported = dir.join("plane_plane.json");
    std::fs::write(
        &unsupported,
        format!(
            r#"{{"kind": "plane_plane", "records": [{{"id": 1, "shape1": {plane}, "shape2": {plane},
                "tf1": {identity}, "tf2": {identity}}}]}}"#
        ),
    )
    .unwrap();
    let out = bin().arg("query").arg(&unsupported).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not supported"));
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"kind\": \"x\", \"records\": [ {\"id\": 1} ]}").unwrap();
    let out = bin().arg("query").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("malformed input"));
    let missing = bin().arg("query").arg(dir.join("missing.json")).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ccd_matches_the_reference_times_of_impact() {
    let out = bin().arg("ccd").arg(coal("ccd")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(coal("ccd")).unwrap()).unwrap();
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let records = reference["records"].as_array().unwrap();
    assert_eq!(lines.len(), records.len());
    for (line, rec) in lines.iter().zip(records) {
        assert_eq!(line["id"], rec["id"]);
        assert_eq!(line["collides"], rec["collides_ref"], "{line} vs {rec}");
        if let Some(toi) = rec["toi_ref"].as_f64().filter(|_| rec["collides_ref"] == true) {
            assert!((line["toi"].as_f64().unwrap() - toi).abs() < 1e-4, "{line} vs toi_ref {toi}");
        } else {
            assert!(line["toi"].is_null(), "{line}");
        }
    }
    let missing = bin().args(["ccd", "x.json"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
}

/// `signorini run ../shared/scenes/SCENE.xml --steps STEPS --mujoco-compat --dump`: the summary and the dump.
fn run_dumped(scene: &str, steps: usize) -> (serde_json::Value, serde_json::Value) {
    let dir = std::env::temp_dir().join(format!("signorini-run-{scene}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("out.json");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../../shared/scenes/{scene}.xml"));
    let out = bin()
        .arg("run")
        .arg(&path)
        .args(["--steps", &steps.to_string(), "--mujoco-compat", "--dump"])
        .arg(&dump)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = serde_json::from_slice(&out.stdout).unwrap();
    let d = serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    (summary, d)
}

#[test]
fn run_steps_a_scene_and_dumps_the_reference_layout() {
    let (summary, d) = run_dumped("box_stack", 600);
    assert!(summary["steps_per_second"].as_f64().unwrap() > 0.0);
    assert_eq!(summary["steps"], 600);
    for k in ["0", "100", "500", "600"] {
        let s = &d["snapshots"][k];
        assert_eq!(s["qpos_free"].as_array().unwrap().len(), 10, "snapshot {k}");
        assert!(s["time"].is_number() && s["ncon"].is_number() && s["qvel_free"].is_array());
    }
    assert_eq!(d["snapshots"]["500"]["ncon"], 40);
    assert!(d["settled"]["max_penetration_over_run"].as_f64().unwrap() > 0.0);
    assert!(d["perf"]["steps_per_second"].as_f64().unwrap() > 0.0);
}

/// A scene with other joints than free ones dumps the whole `qpos` and `qvel` too (the free-joint views cover the
/// rest): the chain's (MuJoCo: nq 15, nv 13) at step 100, its velocities not all zero.
#[test]
fn run_dumps_whole_positions_and_velocities_of_jointed_scenes() {
    let (_, d) = run_dumped("chain", 100);
    let s = &d["snapshots"]["100"];
    let (qpos, qvel) = (s["qpos"].as_array().unwrap(), s["qvel"].as_array().unwrap());
    assert!(
        qpos.len() >= qvel.len() && !qvel.is_empty(),
        "{} coordinates, {} velocities",
        qpos.len(),
        qvel.len()
    );
    assert_eq!((qpos.len(), qvel.len()), (15, 13));
    assert!(qvel.iter().any(|v| v.as_f64().unwrap() != 0.0));
}

#[test]
fn run_without_a_scene_uses_the_built_in_pile() {
    let dir = std::env::temp_dir().join(format!("signorini-run-default-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = bin().current_dir(&dir).args(["run", "--steps", "50"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote signorini-run.json"));
    assert!(dir.join("signorini-run.json").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_rejects_unknown_options_with_the_valid_names() {
    let out = bin().args(["run", "--steps", "1", "--set", "frobnicate=3"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("valid names") && err.contains("max_collision_pairs"), "{err}");
}

fn max_rel_err(ours: &serde_json::Value, theirs: &serde_json::Value) -> f64 {
    fn flat(v: &serde_json::Value, out: &mut Vec<f64>) {
        match v {
            serde_json::Value::Array(a) => a.iter().for_each(|x| flat(x, out)),
            x => out.push(x.as_f64().unwrap()),
        }
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    flat(ours, &mut a);
    flat(theirs, &mut b);
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
    a.iter().zip(&b).map(|(x, y)| (x - y).abs() / scale).fold(0.0, f64::max)
}

#[test]
fn inspect_matches_mujoco_on_the_chain_model() {
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let states = shared.join("testdata/mujoco/model/chain.json");
    let out = bin()
        .arg("inspect")
        .arg(shared.join("scenes/chain.xml"))
        .arg("--states")
        .arg(&states)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&states).unwrap()).unwrap();
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for key in ["body_mass", "body_inertia", "body_ipos", "body_iquat"] {
        assert!(max_rel_err(&lines[0][key], &reference[key]) < 1e-12, "{key}");
    }
    let records = reference["records"].as_array().unwrap();
    assert_eq!(lines.len(), records.len() + 1);
    for (line, rec) in lines[1..].iter().zip(records) {
        for key in ["xpos", "xquat", "qM", "qfrc_bias", "qfrc_passive"] {
            let e = max_rel_err(&line[key], &rec[key]);
            assert!(e < 1e-10, "{key}: {e:e}");
        }
    }
}

#[test]
fn inspect_reports_bad_scenes_and_states() {
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let dir = std::env::temp_dir().join(format!("signorini-inspect-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad_scene = dir.join("bad.xml");
    std::fs::write(&bad_scene, "<mujoco>\n<worldbody>\n<geom type=\"sphere\"/>\n</worldbody>\n</mujoco>\n")
        .unwrap();
    let states = shared.join("testdata/mujoco/model/chain.json");
    let out = bin().arg("inspect").arg(&bad_scene).arg("--states").arg(&states).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.xml:3"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wrong_states = dir.join("states.json");
    std::fs::write(&wrong_states, "{\"records\": [{\"qpos\": [1.0], \"qvel\": []}]}").unwrap();
    let out = bin()
        .arg("inspect")
        .arg(shared.join("scenes/chain.xml"))
        .arg("--states")
        .arg(&wrong_states)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nq = 15"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `data_bytes` is the memory one environment holds (its struct and live heap): the same whatever the batch size and
/// the thread count (identical environments grow identical buffers; the pool is not counted), more than its state
/// vectors, and unchanged by `--dump` (the snapshots are not counted).
#[test]
fn run_envs_data_bytes_is_the_heap_of_one_environment() {
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes/box_stack.xml");
    let dump = std::env::temp_dir().join(format!("signorini-data-bytes-{}.json", std::process::id()));
    let bytes = |envs: &str, threads: &str, dump: Option<&PathBuf>| {
        let mut cmd = bin();
        cmd.arg("run").arg(&scene).args(["--envs", envs, "--threads", threads, "--steps", "60"]);
        if let Some(d) = dump {
            cmd.arg("--dump").arg(d);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        summary["data_bytes"].as_u64().expect("data_bytes is measured")
    };
    let one = bytes("1", "1", None);
    // box_stack: nv = 60, nq = 70; qpos, qvel, qacc and the mass matrix alone are over 1 kB.
    assert!(one > 8 * (70 + 60 + 60 + 60 * 61 / 2), "data_bytes {one}");
    assert_eq!(bytes("4", "1", None), one, "per environment, whatever the batch size");
    assert_eq!(bytes("3", "2", None), one, "the thread pool is not counted");
    assert_eq!(bytes("2", "1", Some(&dump)), one, "the snapshots of --dump are not counted");
    std::fs::remove_file(&dump).ok();
}

#[test]
fn run_envs_steps_a_batch_whose_environments_do_not_depend_on_the_thread_count() {
    let dir = std::env::temp_dir().join(format!("signorini-run-envs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes/box_stack.xml");
    let run = |threads: &str, dump: &PathBuf| {
        let out = bin()
            .arg("run")
            .arg(&scene)
            .args(["--envs", "3", "--threads", threads, "--perturb", "0.05", "--seed", "7", "--steps", "120"])
            .arg("--dump")
            .arg(dump)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((summary["envs"].as_u64(), summary["steps"].as_u64()), (Some(3), Some(120)));
        assert!(summary["env_steps_per_second"].as_f64().unwrap() > 0.0);
        assert!(summary["data_bytes"].as_u64().is_some_and(|b| b > 0), "data_bytes with --dump: {summary}");
        let d: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dump).unwrap()).unwrap();
        d["envs"].as_array().unwrap().iter().map(|e| e["snapshots"].clone()).collect::<Vec<_>>()
    };
    let one = run("1", &dir.join("one.json"));
    let two = run("2", &dir.join("two.json"));
    assert_eq!(one.len(), 3);
    assert_eq!(one, two, "environments do not depend on the thread count");
    assert_ne!(
        one[0]["100"]["qvel_free"], one[1]["100"]["qvel_free"],
        "the perturbation differs per environment"
    );
    let bad = bin().arg("run").arg(&scene).args(["--envs", "2", "--perturb=-1"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("--perturb"));
    std::fs::remove_dir_all(&dir).ok();
}
