//! Geom mass properties against MuJoCo 4.0's compiled `body_mass` / `body_inertia` / `body_ipos`
//! (`../shared/testdata/mujoco`), for the bodies whose inertia comes from a single primitive geom. MuJoCo places such
//! a body's inertial frame on the geom frame (for `fromto` geoms: centred on the segment, z along it), so the
//! principal moments are the geom-frame diagonal in order.

use std::path::PathBuf;

use serde::Deserialize;
use signorini_geometry::{Capsule, Cuboid, Cylinder, DVec3, Ellipsoid, MassProperties, Shape, Sphere};

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

#[derive(Deserialize)]
struct Compiled {
    body_mass: Vec<f64>,
    body_inertia: Vec<[f64; 3]>,
    body_ipos: Vec<[f64; 3]>,
}

fn load(rel: &str) -> Compiled {
    let path = shared().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn assert_close(what: &str, ours: f64, theirs: f64, rel: f64) {
    let err = (ours - theirs).abs() / theirs.abs().max(1e-300);
    assert!(err <= rel, "{what}: ours {ours:e}, MuJoCo {theirs:e}, relative error {err:e}");
}

/// `(body index, shape, density, geom centre in the body frame)` for each single-primitive body of `chain.xml`.
fn chain_bodies() -> Vec<(usize, &'static str, Shape, f64, DVec3)> {
    vec![
        (1, "base box", Cuboid::new(DVec3::new(0.2, 0.15, 0.1)).unwrap().into(), 800.0, DVec3::ZERO),
        // fromto (0,0,0)-(0.3,0,0), size 0.04: half-length 0.15, centred at x = 0.15.
        (2, "upper capsule", Capsule::new(0.04, 0.15).unwrap().into(), 1000.0, DVec3::new(0.15, 0.0, 0.0)),
        (
            3,
            "lower cylinder",
            Cylinder::new(0.035, 0.125).unwrap().into(),
            1000.0,
            DVec3::new(0.125, 0.0, 0.0),
        ),
        (
            4,
            "slider ellipsoid",
            Ellipsoid::new(DVec3::new(0.05, 0.04, 0.03)).unwrap().into(),
            1000.0,
            DVec3::ZERO,
        ),
        (5, "fixedchild sphere", Sphere::new(0.03).unwrap().into(), 1000.0, DVec3::ZERO),
        (7, "leg capsule", Capsule::new(0.03, 0.15).unwrap().into(), 1000.0, DVec3::new(0.0, 0.0, -0.15)),
    ]
}

#[test]
fn chain_primitive_bodies_match_mujoco() {
    let reference = load("testdata/mujoco/model/chain.json");
    for (body, name, shape, density, centre) in chain_bodies() {
        let m = MassProperties::from_density(&shape, density).unwrap();
        assert_close(&format!("{name} mass"), m.mass, reference.body_mass[body], 1e-12);
        let diag = [m.inertia.x_axis.x, m.inertia.y_axis.y, m.inertia.z_axis.z];
        for (k, (ours, theirs)) in diag.iter().zip(reference.body_inertia[body]).enumerate() {
            assert_close(&format!("{name} inertia[{k}]"), *ours, theirs, 1e-12);
        }
        let ipos = DVec3::from_array(reference.body_ipos[body]);
        assert!((ipos - (centre + m.com)).length() < 1e-12, "{name}: ipos {ipos} vs geom centre {centre}");
    }
}

#[test]
fn box_stack_bodies_match_mujoco() {
    let reference = load("testdata/mujoco/box_stack.json");
    let cube: Shape = Cuboid::new(DVec3::splat(0.1)).unwrap().into();
    let m = MassProperties::from_density(&cube, 1000.0).unwrap();
    for body in 1..reference.body_mass.len() {
        assert_close("cube mass", m.mass, reference.body_mass[body], 1e-12);
        for k in 0..3 {
            // The reference file prints these inertias with 10 significant digits.
            assert_close("cube inertia", m.inertia.col(k)[k], reference.body_inertia[body][k], 1e-9);
        }
    }
}
