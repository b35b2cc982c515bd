//! `signorini robot` as a motion-planning user drives it: answers against Pinocchio+Coal's for the iiwa, the
//! benchmark line, ACM generation, and typed errors for bad input.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_signorini"))
}

fn robots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/robots")
}

/// `signorini robot` on the iiwa with the shared configurations and SRDF, plus `extra` arguments.
fn iiwa(extra: &[&str]) -> std::process::Output {
    let r = robots();
    bin()
        .arg("robot")
        .arg(r.join("kuka_iiwa/model.urdf"))
        .arg("--configs")
        .arg(r.join("iiwa_queries.json"))
        .arg("--srdf")
        .arg(r.join("iiwa.srdf"))
        .args(extra)
        .output()
        .unwrap()
}

fn lines(out: &std::process::Output) -> Vec<Value> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn robot_answers_match_pinocchio_coal_for_meshes_and_hulls() {
    let r = robots();
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(r.join("iiwa_queries.json")).unwrap()).unwrap();
    for geometry in ["hull", "mesh"] {
        let lines = lines(&iiwa(&["--geometry", geometry, "--gradients"]));
        let configs = reference["configs"].as_array().unwrap();
        assert_eq!(lines.len(), configs.len());
        for (line, c) in lines.iter().zip(configs) {
            let ans = &c[geometry];
            assert_eq!(line["index"], c["index"]);
            assert_eq!(line["any_collision"], ans["any_collision"]);
            let md = ans["min_distance"]["distance"].as_f64().unwrap();
            assert!((line["min_distance"].as_f64().unwrap() - md).abs() < 1e-6);
            let pairs = line["pairs"].as_array().unwrap();
            for (p, names) in reference["pair_names"].as_array().unwrap().iter().enumerate() {
                assert_eq!(pairs[p]["geom1"], names[0]);
                assert_eq!(pairs[p]["geom2"], names[1]);
                assert_eq!(pairs[p]["collision"], ans["collision"][p]);
                let d = pairs[p]["distance"].as_f64().unwrap();
                assert!((d - ans["distance"][p].as_f64().unwrap()).abs() < 1e-6, "{geometry} {line}");
                assert_eq!(pairs[p]["grad"].is_null(), ans["grad"][p].is_null());
                if let Some(g) = pairs[p]["grad"].as_array() {
                    for (a, b) in g.iter().zip(ans["grad"][p].as_array().unwrap()) {
                        assert!((a.as_f64().unwrap() - b.as_f64().unwrap()).abs() < 1e-5);
                    }
                }
            }
        }
    }
}

#[test]
fn robot_bench_prints_one_timing_line() {
    let lines = lines(&iiwa(&["--bench", "--repeat", "1"]));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["robot"], "lbr_iiwa");
    assert_eq!(lines[0]["configs"], 60);
    for key in ["fk_ns", "check_ns", "distances_ns", "gradients_ns"] {
        assert!(lines[0][key].as_f64().unwrap() > 0.0, "{key}");
    }
}

#[test]
fn robot_generates_an_acm_it_can_read_back() {
    let r = robots();
    let dir = std::env::temp_dir().join(format!("signorini-cli-robot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let srdf = dir.join("iiwa.srdf");
    let out = bin()
        .arg("robot")
        .arg(r.join("kuka_iiwa/model.urdf"))
        .args(["--generate-acm", "--samples", "500", "--geometry", "mesh", "--out"])
        .arg(&srdf)
        .output()
        .unwrap();
    let summary = lines(&out);
    assert_eq!(summary[0]["disabled"]["Adjacent"], 7);
    let text = std::fs::read_to_string(&srdf).unwrap();
    assert!(text.contains("reason=\"Adjacent\""));
    // The generated file is a valid SRDF for the same robot.
    let back = bin()
        .arg("robot")
        .arg(r.join("kuka_iiwa/model.urdf"))
        .arg("--configs")
        .arg(r.join("iiwa_queries.json"))
        .arg("--srdf")
        .arg(&srdf)
        .output()
        .unwrap();
    assert_eq!(lines(&back).len(), 60);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn robot_bad_input_names_the_culprit() {
    let r = robots();
    let dir = std::env::temp_dir().join(format!("signorini-cli-robot-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (r#"{"joint_names": ["lbr_iiwa_joint_1"], "configs": []}"#, "lbr_iiwa_joint_2"),
        (r#"{"configs": [{"q": [0, 0, 0]}]}"#, "configuration 0: q has 3 entries"),
        (r#"{"joint_names": ["wrist"], "configs": []}"#, "wrist"),
        (r#"{"locked_joints": {"lbr_iiwa_joint_7": 9.0}, "configs": []}"#, "outside its limits"),
        (r#"{"configs": [{"q": [0, 0, 0, 0, 0, 0, "x"]}]}"#, "malformed"),
    ];
    for (k, (json, expect)) in cases.iter().enumerate() {
        let file = dir.join(format!("c{k}.json"));
        std::fs::write(&file, json).unwrap();
        let out = bin()
            .arg("robot")
            .arg(r.join("kuka_iiwa/model.urdf"))
            .arg("--configs")
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{json}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expect), "{json}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn robot_resolves_ros_packages_given_on_the_command_line() {
    let dir = std::env::temp_dir().join(format!("signorini-cli-robot-pkg-{}", std::process::id()));
    let pkg = dir.join("elsewhere/arm_description");
    std::fs::create_dir_all(pkg.join("meshes")).unwrap();
    std::fs::create_dir_all(dir.join("urdf")).unwrap();
    std::fs::copy(robots().join("kuka_iiwa/meshes/link_1.stl"), pkg.join("meshes/link.stl")).unwrap();
    std::fs::write(
        dir.join("urdf/arm.urdf"),
        r#"<robot name="arm"><link name="base"><collision><geometry><box size="0.3 0.3 0.1"/></geometry></collision></link>
  <link name="upper"><collision><geometry><mesh filename="package://arm_description/meshes/link.stl"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0 0.3"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>"#,
    )
    .unwrap();
    std::fs::write(dir.join("q.json"), r#"{"configs": [{"q": [0.2]}]}"#).unwrap();
    let run = |extra: &[String]| {
        bin()
            .arg("robot")
            .arg(dir.join("urdf/arm.urdf"))
            .arg("--configs")
            .arg(dir.join("q.json"))
            .args(extra)
            .output()
            .unwrap()
    };
    let missing = run(&[]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("arm_description"));
    let given = run(&["--package-dir".into(), format!("arm_description={}", pkg.display())]);
    assert_eq!(lines(&given)[0]["pairs"].as_array().unwrap().len(), 1);
    let bad = run(&["--package-dir".into(), "nodir".into()]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("NAME=DIR"));
    std::fs::remove_dir_all(&dir).ok();
}
