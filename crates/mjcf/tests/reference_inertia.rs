//! Compiled inertias against MuJoCo 4.0's (`../shared/testdata/mujoco`): `body_mass`, `body_inertia`, `body_ipos`,
//! `body_iquat`. `model/chain.json` is printed at full precision (checked to 1e-12); the scene runs print 8 to 10
//! digits, so each of their numbers is checked to half a unit of its last printed digit (at most 5e-9 here).

use std::path::{Path, PathBuf};

use glam::{DQuat, DVec3};
use signorini_mjcf::{LoadedMjcf, load_mjcf};

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// The numbers of the JSON array after `"key":`, each with half a unit of its last printed digit.
fn printed_numbers(text: &str, key: &str) -> Vec<(f64, f64)> {
    let start = text.find(&format!("\"{key}\"")).unwrap_or_else(|| panic!("no {key}")) + key.len() + 2;
    let rest = &text[start..];
    let open = rest.find('[').unwrap();
    let mut depth = 0;
    let mut end = open;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    end = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    rest[open..end]
        .split(|c: char| c == '[' || c == ']' || c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| {
            let (mantissa, exp) = match t.find(['e', 'E']) {
                Some(i) => (&t[..i], t[i + 1..].parse::<i32>().unwrap()),
                None => (t, 0),
            };
            let decimals = mantissa.find('.').map_or(0, |i| mantissa.len() - i - 1) as i32;
            (t.parse::<f64>().unwrap(), 0.5 * 10f64.powi(exp - decimals))
        })
        .collect()
}

/// Ours, flattened in the JSON's order.
fn ours(m: &LoadedMjcf, key: &str) -> Vec<f64> {
    m.spec
        .bodies
        .iter()
        .flat_map(|b| {
            let i = &b.inertial;
            match key {
                "body_mass" => vec![i.mass],
                "body_inertia" => i.inertia.to_array().to_vec(),
                "body_ipos" => i.pos.to_array().to_vec(),
                _ => vec![i.quat.w, i.quat.x, i.quat.y, i.quat.z],
            }
        })
        .collect()
}

/// Checks all four arrays; returns the largest absolute error. `tol`: `None` = half a printed digit.
fn check(scene: &Path, json: &Path, tol: Option<f64>) -> f64 {
    let m = load_mjcf(scene).unwrap_or_else(|e| panic!("{}: {e}", scene.display()));
    let text = std::fs::read_to_string(json).unwrap();
    let mut worst: f64 = 0.0;
    for key in ["body_mass", "body_inertia", "body_ipos", "body_iquat"] {
        let reference = printed_numbers(&text, key);
        let got = ours(&m, key);
        assert_eq!(reference.len(), got.len(), "{}: {key} length", json.display());
        for (k, ((want, half_digit), g)) in reference.iter().zip(&got).enumerate() {
            let err = (want - g).abs();
            let allowed = tol.unwrap_or(half_digit * (1.0 + 1e-9));
            assert!(
                err <= allowed,
                "{}: {key}[{k}] = {g}, MuJoCo {want} (error {err:e} > {allowed:e})",
                json.display()
            );
            worst = worst.max(err);
        }
    }
    worst
}

#[test]
fn chain_matches_mujoco_to_1e_12() {
    let worst = check(
        &shared().join("scenes/chain.xml"),
        &shared().join("testdata/mujoco/model/chain.json"),
        Some(1e-12),
    );
    eprintln!("chain.json: max |error| = {worst:e}");
}

#[test]
fn scene_runs_match_mujoco_to_printed_digits() {
    let dir = shared().join("testdata/mujoco");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let json = entry.unwrap().path();
        if json.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let scene = shared().join("scenes").join(json.file_name().unwrap()).with_extension("xml");
        let worst = check(&scene, &json, None);
        eprintln!("{}: max |error| = {worst:e}", json.display());
        n += 1;
    }
    assert!(n >= 8, "expected the 8 scene runs, found {n}");
}

/// The body frames of chain.xml (euler sequence, quat, hinge axis) reproduce MuJoCo's world orientation of the
/// `slider` body in every recorded state.
#[test]
fn chain_euler_frames_match_mujoco_kinematics() {
    let m = load_mjcf(&shared().join("scenes/chain.xml")).unwrap();
    let text = std::fs::read_to_string(shared().join("testdata/mujoco/model/chain.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let b = &m.spec.bodies;
    let (base, upper, lower, slider) = (1, 2, 3, 4);
    assert_eq!(b[slider].name, "slider");
    let elbow_axis = b[lower].joints[0].axis;
    for rec in json["records"].as_array().unwrap() {
        let q: Vec<f64> = rec["qpos"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        let free = DQuat::from_xyzw(q[4], q[5], q[6], q[3]);
        let ball = DQuat::from_xyzw(q[8], q[9], q[10], q[7]);
        let elbow = DQuat::from_axis_angle(elbow_axis, q[11]);
        let x = free * b[base].quat * b[upper].quat * ball * b[lower].quat * elbow * b[slider].quat;
        let want = &rec["xquat"][slider];
        let want = DQuat::from_xyzw(
            want[1].as_f64().unwrap(),
            want[2].as_f64().unwrap(),
            want[3].as_f64().unwrap(),
            want[0].as_f64().unwrap(),
        );
        let err = (x - want).length().min((x + want).length());
        assert!(err < 1e-12, "slider xquat off by {err:e}");
        let pos = DVec3::new(q[0], q[1], q[2])
            + free
                * (b[upper].pos
                    + b[upper].quat * ball * (b[lower].pos + b[lower].quat * elbow * b[slider].pos))
            + x * (b[slider].joints[0].axis * q[12]);
        let want_pos = DVec3::new(
            rec["xpos"][slider][0].as_f64().unwrap(),
            rec["xpos"][slider][1].as_f64().unwrap(),
            rec["xpos"][slider][2].as_f64().unwrap(),
        );
        assert!((pos - want_pos).length() < 1e-12, "slider xpos off by {:e}", (pos - want_pos).length());
    }
}

/// Inertias combined from several geoms and geom frames from `fromto` and `zaxis`, bit for bit against MuJoCo 4.0.1
/// (`tests/data/geom_inertia.xml`, `scripts/mujoco_geom_inertia.py`): `mjCBody::InertiaFromGeom` sums masses,
/// mass-weighted positions and each geom's turned inertia plus its parallel-axis term (`mjuu_globalinertia`,
/// `mjuu_offcenter`) in order, and the compiler turns the unit `fromto` direction (`mjuu_normvec`) into the geom's
/// quaternion. A mesh geom's frame is the mesh's inertial frame accumulated into the geom's (`mjuu_frameaccum`) and
/// its moments those of the mesh's equivalent inertia box (`m (b_i² + b_j²)/3`). The control suite's humanoid, whose
/// feet and limbs are such geoms, now starts from MuJoCo's model bit for bit (its feet's middle moment and its arms'
/// frames were an ulp off), as do the model folder's mug, helix and bowl (mesh bodies).
#[test]
fn geom_inertias_and_frames_are_mujocos_bit_for_bit() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let m = load_mjcf(&dir.join("geom_inertia.xml")).unwrap();
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("geom_inertia_mujoco.json")).unwrap())
            .unwrap();
    let rows = |key: &str| -> Vec<Vec<f64>> { serde_json::from_value(reference[key].clone()).unwrap() };
    let flat = |key: &str| -> Vec<f64> { serde_json::from_value(reference[key].clone()).unwrap() };
    let bodies = &m.spec.bodies;
    assert_eq!(bodies.len(), flat("body_mass").len());
    for (b, body) in bodies.iter().enumerate() {
        let i = &body.inertial;
        let q = [i.quat.w, i.quat.x, i.quat.y, i.quat.z];
        assert_eq!(i.mass, flat("body_mass")[b], "body {b} mass");
        assert_eq!(i.inertia.to_array().to_vec(), rows("body_inertia")[b], "body {b} inertia");
        assert_eq!(i.pos.to_array().to_vec(), rows("body_ipos")[b], "body {b} ipos");
        assert_eq!(q.to_vec(), rows("body_iquat")[b], "body {b} iquat");
    }
    let geoms: Vec<_> = m.spec.bodies.iter().flat_map(|b| &b.geoms).collect();
    assert_eq!(geoms.len(), rows("geom_pos").len());
    for (g, geom) in geoms.iter().enumerate() {
        // A mesh geom keeps its asset's frame here; MuJoCo moves the geom to the mesh's inertial frame.
        if matches!(geom.shape, signorini_geometry::Shape::ConvexMesh(_)) {
            continue;
        }
        let q = [geom.quat.w, geom.quat.x, geom.quat.y, geom.quat.z];
        assert_eq!(geom.pos.to_array().to_vec(), rows("geom_pos")[g], "geom {g} pos");
        assert_eq!(q.to_vec(), rows("geom_quat")[g], "geom {g} quat");
    }
}
