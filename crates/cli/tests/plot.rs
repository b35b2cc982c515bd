//! `signorini plot` draws run dumps and benchmark reports; the dump's per-snapshot series it plots are checked against
//! closed forms (a free fall: `½ m v²`, `m g z`, energy conserved to the integrator's order).

use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_signorini"))
}

/// Width and height of a PNG file, after checking its signature.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{} is not a PNG", path.display());
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

const FALL: &str = r#"<mujoco><option timestep="0.002"/><worldbody>
    <body pos="0 0 10"><freejoint/><geom type="sphere" size="0.1" mass="2"/></body>
  </worldbody></mujoco>"#;

#[test]
fn snapshots_carry_the_series_plot_draws() {
    let dir = tempdir("snapshots");
    let (scene, dump) = (dir.join("fall.xml"), dir.join("fall.json"));
    std::fs::write(&scene, FALL).unwrap();
    let out = bin()
        .args(["run"])
        .arg(&scene)
        .args(["--steps", "200", "--every", "20", "--dump"])
        .arg(&dump)
        .output();
    let out = out.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    let snaps = json["snapshots"].as_object().unwrap();
    assert!(snaps.len() >= 10);
    let (m, g) = (2.0, 9.81);
    let e0 = m * g * 10.0;
    for (step, s) in snaps {
        let v: Vec<f64> = serde_json::from_value(s["qvel_free"][0].clone()).unwrap();
        let z = s["qpos_free"][0][2].as_f64().unwrap();
        let kinetic = 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        let (k, p) = (s["energy_kinetic"].as_f64().unwrap(), s["energy_potential"].as_f64().unwrap());
        assert!((k - kinetic).abs() < 1e-9, "step {step}: kinetic {k} vs {kinetic}");
        assert!((p - m * g * z).abs() < 1e-9, "step {step}: potential {p} vs {}", m * g * z);
        assert!((k + p - e0).abs() < 0.01 * e0, "step {step}: energy {} vs {e0}", k + p);
        assert_eq!(s["max_abs_qvel"].as_f64().unwrap(), v.iter().fold(0.0, |a: f64, x| a.max(x.abs())));
        assert_eq!(s["max_penetration"].as_f64().unwrap(), 0.0);
        assert_eq!(s["ncon"].as_u64().unwrap(), 0);
    }
    let png = dir.join("fall.png");
    let out = bin().arg("plot").arg(&dump).arg("--out").arg(&png).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(png_size(&png), (1000, 1250));
}

#[test]
fn plot_draws_batch_dumps_and_bench_reports() {
    let dir = tempdir("batch");
    let (scene, dump, png) = (dir.join("fall.xml"), dir.join("batch.json"), dir.join("batch.png"));
    std::fs::write(&scene, FALL).unwrap();
    let out = bin()
        .arg("run")
        .arg(&scene)
        .args(["--steps", "100", "--every", "10", "--envs", "3", "--perturb", "0.5", "--dump"])
        .arg(&dump)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = bin().arg("plot").arg(&dump).arg("--out").arg(&png).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(png_size(&png), (1000, 1250));

    let report = dir.join("bench.json");
    let row = |scene: &str, m: f64, c: f64, n: f64| {
        serde_json::json!({"scene": scene, "mujoco": {"steps_per_second": m},
            "ours_compat": {"steps_per_second": c}, "ours_native": {"steps_per_second": n}})
    };
    let rows = vec![
        row("arm", 1.2e5, 1.4e5, 1.5e5),
        row("pile", 75.0, 450.0, 350.0),
        row("pyramid", 1.8e3, 3.1e3, 2.9e3),
    ];
    std::fs::write(&report, serde_json::json!({ "rows": rows }).to_string()).unwrap();
    let bars = dir.join("bench.png");
    let out = bin().arg("plot").arg(&report).arg("--out").arg(&bars).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (w, h) = png_size(&bars);
    assert_eq!(w, 1100);
    assert!(h > 200);
}

#[test]
fn plot_refuses_bad_inputs_with_a_message() {
    let dir = tempdir("bad");
    let other = dir.join("other.json");
    std::fs::write(&other, r#"{"hello": 1}"#).unwrap();
    let cases: [(&Path, &Path, &str); 3] = [
        (&other, &other, "also an input"),
        (&other, &dir.join("x.png"), "expected a `signorini run --dump` file"),
        (&dir.join("missing.json"), &dir.join("x.png"), "missing.json"),
    ];
    for (input, out, message) in cases {
        let o = bin().arg("plot").arg(input).arg("--out").arg(out).output().unwrap();
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(message), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&other).unwrap(), r#"{"hello": 1}"#, "the input is untouched");
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("signorini-plot-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
