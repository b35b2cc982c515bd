//! Builtin meshes against MuJoCo 4.0 (`tests/data/builtin_meshes.xml`, `scripts/mujoco_builtin_mesh_reference.py`):
//! the generated vertices (single precision, as MuJoCo stores them) and faces, bit for bit through order-dependent
//! checksums and the first vertices, and the bodies' mass and inertia from their hulls (or, `inertia="exact"`, the
//! closed non-convex supertorus itself).

use std::path::PathBuf;

use serde_json::Value;
use signorini_mjcf::{load_mjcf, load_mjcf_str};

fn checksum(values: impl Iterator<Item = f64>) -> f64 {
    values.enumerate().fold(0.0, |total, (i, x)| total + (i + 1) as f64 * x)
}

#[test]
fn builtin_meshes_match_mujoco() {
    let reference: Value = serde_json::from_str(include_str!("data/builtin_meshes_reference.json")).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/builtin_meshes.xml");
    let loaded = load_mjcf(&path).unwrap();
    for (name, theirs) in reference["meshes"].as_object().unwrap() {
        let mesh = &loaded.mesh_surfaces[name];
        // The scale is applied to the generated vertices; the reference is before it.
        let scale: Vec<f64> = serde_json::from_value(theirs["scale"].clone()).unwrap();
        let scale = glam::DVec3::from_slice(&scale);
        let raw: Vec<f64> = mesh.vertices.iter().flat_map(|v| (*v / scale).to_array()).collect();
        assert_eq!(raw.len() / 3, theirs["nvert"].as_u64().unwrap() as usize, "{name}: vertices");
        assert_eq!(mesh.triangles.len(), theirs["nface"].as_u64().unwrap() as usize, "{name}: faces");
        let first: Vec<f64> = serde_json::from_value(theirs["first"].clone()).unwrap();
        for (k, (a, b)) in raw.iter().zip(&first).enumerate() {
            assert!((a - b).abs() <= 1e-7 * b.abs().max(1.0), "{name}: coordinate {k}: {a} vs {b}");
        }
        let faces = checksum(mesh.triangles.iter().flatten().map(|&i| i as f64));
        assert_eq!(faces, theirs["face_checksum"].as_f64().unwrap(), "{name}: face order");
        let v = checksum(raw.iter().copied());
        let expected = theirs["vertex_checksum"].as_f64().unwrap();
        assert!((v - expected).abs() <= 1e-9 * expected.abs().max(1.0), "{name}: vertices {v} vs {expected}");
    }
    for (name, theirs) in reference["bodies"].as_object().unwrap() {
        let body = loaded.spec.bodies.iter().find(|b| &b.name == name).unwrap();
        let mass = theirs["mass"].as_f64().unwrap();
        assert!(
            (body.inertial.mass - mass).abs() < 1e-6 * mass,
            "{name}: mass {} vs {mass}",
            body.inertial.mass
        );
        let inertia: Vec<f64> = serde_json::from_value(theirs["inertia"].clone()).unwrap();
        let mut ours = body.inertial.inertia.to_array();
        let mut expected = [inertia[0], inertia[1], inertia[2]];
        ours.sort_by(f64::total_cmp);
        expected.sort_by(f64::total_cmp);
        for (a, b) in ours.iter().zip(&expected) {
            assert!((a - b).abs() < 1e-5 * b.abs().max(1e-9), "{name}: inertia {ours:?} vs {expected:?}");
        }
    }
}

#[test]
fn builtin_mesh_errors_name_the_parameter() {
    let load = |mesh: &str| {
        load_mjcf_str(&format!("<mujoco><asset>{mesh}</asset></mujoco>"), std::path::Path::new("."))
            .unwrap_err()
    };
    let e = load(r#"<mesh name="m" builtin="sphere" params="5"/>"#);
    assert!(e.to_string().contains("between 0 and 4"), "{e}");
    let e = load(r#"<mesh name="m" builtin="sphere"/>"#);
    assert!(e.to_string().contains("params"), "{e}");
    let e = load(r#"<mesh name="m" builtin="cone" params="2 0.5"/>"#);
    assert!(e.to_string().contains("at least 3 edges"), "{e}");
    let e = load(r#"<mesh name="m" builtin="plate" params="3 3"/>"#);
    assert!(e.to_string().contains("not supported"), "{e}");
    let e = load(r#"<mesh name="m" builtin="sphere" params="1" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/>"#);
    assert!(e.to_string().contains("builtin"), "{e}");
}
