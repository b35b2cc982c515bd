//! Hostile and careless use of the CLI (issue 15): outputs never clobber inputs and are checked before a run, flags
//! and `--set` agree or are refused, thread counts are bounded, and URDF robots are accepted where scenes are.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_signorini"))
}

fn shared(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(rel)
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("signorini-robust-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fails_with(cmd: &mut Command, message: &str) {
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(message), "expected `{message}` in: {err}");
}

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = tempdir("same");
    let records = dir.join("records.json");
    std::fs::copy(shared("testdata/coal/sphere_box.json"), &records).unwrap();
    let before = std::fs::read(&records).unwrap();
    fails_with(bin().arg("query").arg(&records).arg("--out").arg(&records), "also an input");
    assert_eq!(std::fs::read(&records).unwrap(), before, "the input is intact");
    let scene = dir.join("scene.xml");
    std::fs::copy(shared("scenes/sphere_drop.xml"), &scene).unwrap();
    fails_with(bin().arg("run").arg(&scene).arg("--dump").arg(&scene), "also an input");
    assert!(std::fs::read_to_string(&scene).unwrap().contains("<mujoco"));
}

#[test]
fn unwritable_outputs_fail_before_the_run() {
    let scene = shared("scenes/pile.xml");
    for dump in ["/proc/signorini.json", "/no/such/folder/x.json"] {
        let start = Instant::now();
        fails_with(bin().arg("run").arg(&scene).args(["--steps", "1000000", "--dump", dump]), dump);
        assert!(start.elapsed().as_secs_f64() < 10.0, "{dump}: the error came after running");
    }
}

#[test]
fn query_output_is_written_whole() {
    let dir = tempdir("query");
    let out = dir.join("out.jsonl");
    let o = bin()
        .arg("query")
        .arg(shared("testdata/coal/sphere_box.json"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.lines().count() > 10
            && text.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
    );
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
}

fn run_dump(args: &[&str], dump: &Path) -> serde_json::Value {
    let o = bin()
        .arg("run")
        .arg(shared("scenes/box_stack.xml"))
        .args(args)
        .arg("--dump")
        .arg(dump)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(dump).unwrap()).unwrap()
}

#[test]
fn flags_and_set_agree_or_are_refused() {
    let dir = tempdir("flags");
    let by_set = run_dump(&["--steps", "60", "--set", "mujoco_compatibility=true"], &dir.join("set.json"));
    let by_flag = run_dump(&["--steps", "60", "--mujoco-compat"], &dir.join("flag.json"));
    assert_eq!(by_set["mujoco_compatibility"], true, "the dump says what was simulated");
    assert_eq!(
        by_set["snapshots"], by_flag["snapshots"],
        "--set mujoco_compatibility=true is --mujoco-compat"
    );
    let threads = run_dump(&["--steps", "5", "--set", "threads=2"], &dir.join("threads.json"));
    assert_eq!(threads["perf"]["threads"], 2, "--set threads is honoured");
    let scene = shared("scenes/box_stack.xml");
    fails_with(bin().arg("run").arg(&scene).args(["--threads", "1", "--set", "threads=2"]), "disagree");
    fails_with(
        bin().arg("run").arg(&scene).args(["--mujoco-compat", "--set", "mujoco_compatibility=false"]),
        "disagree",
    );
    fails_with(bin().arg("run").arg(&scene).args(["--every", "0"]), "--every");
}

#[test]
fn thread_counts_are_bounded() {
    let scene = shared("scenes/box_stack.xml");
    for args in [&["--threads", "10000"][..], &["--threads", "10000", "--envs", "2"], &["--threads", "0"]] {
        let start = Instant::now();
        fails_with(bin().arg("run").arg(&scene).args(args), "threads");
        assert!(start.elapsed().as_secs_f64() < 10.0, "{args:?} answered at once");
    }
}

#[test]
fn urdf_robots_run_and_inspect() {
    let urdf = shared("robots/kuka_iiwa/model.urdf");
    let o = bin().arg("run").arg(&urdf).args(["--steps", "50"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["steps"], 50);
    let dir = tempdir("urdf");
    let states = dir.join("states.json");
    std::fs::write(
        &states,
        r#"{"records": [{"qpos": [0, 0.5, 0, -1, 0, 0.3, 0], "qvel": [0, 0, 0, 0, 0, 0, 0]}]}"#,
    )
    .unwrap();
    let o = bin().arg("inspect").arg(&urdf).arg("--states").arg(&states).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(o.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["body_mass"].as_array().unwrap().len(), 9, "world + 8 links");
}

/// `--floating-base` puts the root link on a free joint (the robot falls), `--ground` adds the floor it lands on; both
/// are usage errors for an MJCF scene.
#[test]
fn urdf_scenes_float_and_stand_on_a_ground_when_asked() {
    let urdf = shared("robots/kuka_iiwa/model.urdf");
    let dir = tempdir("urdf_ground");
    let run = |args: &[&str]| {
        let dump = dir.join(format!("{}.json", args.join("_")));
        let o =
            bin().arg("run").arg(&urdf).args(["--steps", "300"]).args(args).arg("--dump").arg(&dump).output();
        let o = o.unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let dump: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
        let last = &dump["snapshots"]["300"];
        let base_z = last["qpos_free"].get(0).map(|q| q[2].as_f64().unwrap());
        (last["ncon"].as_u64().unwrap(), base_z)
    };
    assert_eq!(run(&[]), (0, None), "welded, no floor: no free joint, no contact");
    let (ncon, z) = run(&["--floating-base"]);
    let z = z.unwrap();
    assert!(ncon == 0 && z < -0.3, "free fall: base at z = {z}");
    let (ncon, z) = run(&["--floating-base", "--ground"]);
    let z = z.unwrap();
    assert!(ncon > 0 && z > -0.02, "on the ground: {ncon} contacts, base at z = {z}");
    fails_with(bin().arg("run").arg(shared("scenes/box_stack.xml")).arg("--ground"), "apply to URDF robots");
    fails_with(bin().arg("run").arg(&urdf).args(["--ground", "nan"]), "must be finite");
}

#[test]
fn grow_capacity_raises_the_budget_and_the_run_is_the_one_with_that_budget() {
    let dir = tempdir("grow");
    let scene = shared("scenes/pile.xml");
    let run = |args: &[&str], dump: &Path| {
        let o =
            bin().arg("run").arg(&scene).args(["--steps", "220"]).args(args).arg("--dump").arg(dump).output();
        let o = o.unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let dump: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dump).unwrap()).unwrap();
        (summary, dump)
    };
    fails_with(
        bin().arg("run").arg(&scene).args(["--steps", "220", "--set", "max_collision_pairs=20"]),
        "raise `max_collision_pairs` to at least",
    );
    let (summary, grown) =
        run(&["--set", "max_collision_pairs=20", "--grow-capacity"], &dir.join("grown.json"));
    let raised =
        summary["grown"]["max_collision_pairs"].as_u64().expect("the summary lists the raised budget");
    assert!(raised > 20);
    let (_, ample) = run(&["--set", "max_collision_pairs=1000"], &dir.join("ample.json"));
    assert_eq!(grown["snapshots"], ample["snapshots"], "budgets do not change the physics");
}

#[test]
fn huge_option_values_are_refused_with_short_numbers() {
    let scene = shared("scenes/box_stack.xml");
    let out = bin().arg("run").arg(&scene).args(["--set", "dt=1e300"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("dt") && err.contains("1e300") && err.len() < 200, "{err}");
}

#[test]
fn an_interrupted_run_writes_its_summary_and_snapshots_so_far() {
    let dir = tempdir("interrupt");
    for (signal, envs) in [("-INT", None), ("-TERM", Some("2"))] {
        let dump = dir.join(format!("run{signal}.json"));
        let mut cmd = bin();
        cmd.arg("run").arg(shared("scenes/pile.xml")).args([
            "--steps",
            "100000000",
            "--every",
            "50",
            "--dump",
        ]);
        cmd.arg(&dump);
        if let Some(n) = envs {
            cmd.args(["--envs", n]);
        }
        let child =
            cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let killed = Command::new("kill").arg(signal).arg(child.id().to_string()).status().unwrap();
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted after step"));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["interrupted"], true);
        let steps = summary["steps"].as_u64().unwrap();
        assert!(steps > 0 && steps < 100_000_000);
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
        let first = match envs {
            Some(_) => json["envs"][0].clone(),
            None => json,
        };
        assert_eq!(first["steps"].as_u64(), Some(steps));
        assert!(first["snapshots"].get(steps.to_string()).is_some(), "the last state is kept");
    }
}

#[test]
fn magnitudes_beyond_the_bound_are_typed_errors_and_huge_directions_are_directions() {
    let dir = tempdir("magnitude");
    // A query with a shape 2e200 m away: refused, naming the value (it printed `"distance": null`).
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shared("testdata/coal/sphere_box.json")).unwrap())
            .unwrap();
    let mut huge = reference.clone();
    huge["records"] = serde_json::json!([reference["records"][0].clone()]);
    huge["records"][0]["tf2"]["t"] = serde_json::json!([2e200, 0.0, 0.0]);
    let records = dir.join("huge.json");
    std::fs::write(&records, huge.to_string()).unwrap();
    fails_with(bin().arg("query").arg(&records), "2e200");
    // A body at 1e308 m: refused, naming the file, the body and the value.
    let far = dir.join("far.xml");
    std::fs::write(
        &far,
        r#"<mujoco><worldbody><body name="far" pos="0 0 1e308"><freejoint/><geom type="sphere" size="0.1"/></body>
        </worldbody></mujoco>"#,
    )
    .unwrap();
    fails_with(bin().arg("run").arg(&far), "far.xml: body 'far'");
    // Orientations and axes of huge (or tiny) but finite components are directions, not "zero norm".
    let turned = dir.join("turned.xml");
    std::fs::write(
        &turned,
        r#"<mujoco><worldbody><body quat="1e200 1e200 0 0"><joint type="hinge" axis="1e-200 1e-200 0"/>
        <geom type="sphere" size="0.1"/></body></worldbody></mujoco>"#,
    )
    .unwrap();
    let o = bin().arg("run").arg(&turned).args(["--steps", "3"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A huge state in inspect: refused (it printed JSON full of null).
    let states = dir.join("states.json");
    std::fs::write(
        &states,
        r#"{"records": [{"qpos": [1e200, 0, 0, 1, 0, 0, 0], "qvel": [0, 0, 0, 0, 0, 0]}]}"#,
    )
    .unwrap();
    let ball = dir.join("ball.xml");
    std::fs::write(&ball, r#"<mujoco><worldbody><body><freejoint/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>"#)
        .unwrap();
    fails_with(bin().arg("inspect").arg(&ball).arg("--states").arg(&states), "1e200");
}
