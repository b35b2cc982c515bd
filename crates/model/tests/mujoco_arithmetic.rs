//! MuJoCo 4.0.1's summation orders, bit for bit (`tests/data/mujoco_arithmetic.json`,
//! `scripts/mujoco_arithmetic_reference.py`): `mju_dot` for 1 to 12 terms (our `factor::mujoco_sum` and `mujoco_dot`, and the order of
//! the six-term dot of `mj_crb` and `mj_rne`, `SpatialVec::dot`), and
//! `mju_mulInertVec` (`SpatialInertia::mul_motion`). A sequential sum differs from MuJoCo's in a third of the 4-term
//! and 60 % of the 12-term dots.

use glam::{DMat3, DVec3};
use serde_json::Value;
use signorini_model::factor::{mujoco_dot, mujoco_sum};
use signorini_model::{SpatialInertia, SpatialVec};

fn reference() -> Value {
    serde_json::from_str(include_str!("data/mujoco_arithmetic.json")).unwrap()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

#[test]
fn sums_are_mujocos_dot_bit_for_bit() {
    let r = reference();
    let cases = r["dot"].as_array().unwrap();
    assert_eq!(cases.len(), 120);
    for (i, c) in cases.iter().enumerate() {
        let (a, b) = (numbers(&c["a"]), numbers(&c["b"]));
        let ours = mujoco_sum(a.len(), |k| a[k] * b[k]);
        let theirs = c["dot"].as_f64().unwrap();
        assert_eq!(ours.to_bits(), theirs.to_bits(), "case {i} (n = {}): {ours} against {theirs}", a.len());
        assert_eq!(mujoco_dot(&a, &b).to_bits(), theirs.to_bits(), "case {i}: mujoco_dot");
        if a.len() == 6 {
            let v = |x: &[f64]| SpatialVec::new(DVec3::new(x[0], x[1], x[2]), DVec3::new(x[3], x[4], x[5]));
            assert_eq!(v(&a).dot(v(&b)).to_bits(), theirs.to_bits(), "case {i}: SpatialVec::dot");
        }
    }
}

#[test]
fn inertia_times_motion_is_mujocos_bit_for_bit() {
    let r = reference();
    let cases = r["mul_inert_vec"].as_array().unwrap();
    assert_eq!(cases.len(), 100);
    for (n, c) in cases.iter().enumerate() {
        // MuJoCo's layout: (xx, yy, zz, xy, xz, yz, h, mass).
        let i = numbers(&c["inertia"]);
        let v = numbers(&c["motion"]);
        let rot = DMat3::from_cols(
            DVec3::new(i[0], i[3], i[4]),
            DVec3::new(i[3], i[1], i[5]),
            DVec3::new(i[4], i[5], i[2]),
        );
        let inertia = SpatialInertia { mass: i[9], h: DVec3::new(i[6], i[7], i[8]), rot };
        let out =
            inertia.mul_motion(SpatialVec::new(DVec3::new(v[0], v[1], v[2]), DVec3::new(v[3], v[4], v[5])));
        let ours = [out.ang.x, out.ang.y, out.ang.z, out.lin.x, out.lin.y, out.lin.z];
        let theirs = numbers(&c["result"]);
        assert!(
            ours.iter().zip(&theirs).all(|(a, b)| a.to_bits() == b.to_bits()),
            "case {n}: {ours:?} {theirs:?}"
        );
    }
}
