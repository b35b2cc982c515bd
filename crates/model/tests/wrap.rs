//! Tendon wrapping around spheres and cylinders against MuJoCo 4.0.1's `mju_wrap`, bit for bit
//! (`tests/data/mujoco_wrap.json`, `scripts/mujoco_wrap_cases.py`): 600 random cases, a third without a side site, a
//! third with one outside the wrap object and a third with one inside (the inside wrap); the wrap decision, both
//! tangent points and the length. 4.0.1's routine is newer than its published source (read off its machine code): a
//! side site outside decides by the turns `atan2(a × b, a·b)` from the ends to it, the arc angle is an `atan2`, and the
//! inside wrap solves for the tangent angle by Newton's method in the angle. With the published source's routine 258
//! cases differed, 41 of them in whether the tendon wraps at all.

use glam::{DMat3, DVec3};
use serde_json::Value;
use signorini_model::tendon::wrap;

fn vec3(v: &Value) -> DVec3 {
    DVec3::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap(), v[2].as_f64().unwrap())
}

#[test]
fn wraps_are_mujocos_bit_for_bit() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mujoco_wrap.json")).unwrap();
    let data: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(data["mujoco"], "4.0.1");
    let cases = data["cases"].as_array().unwrap();
    let (mut wraps, mut inside, mut differ) = (0, 0, Vec::new());
    for (k, c) in cases.iter().enumerate() {
        let m: Vec<f64> = serde_json::from_value(c["mat"].clone()).unwrap();
        let mat = DMat3::from_cols_array(&m.try_into().unwrap()).transpose();
        let side = (!c["side"].is_null()).then(|| vec3(&c["side"]));
        let ours = wrap(
            vec3(&c["x0"]),
            vec3(&c["x1"]),
            vec3(&c["pos"]),
            mat,
            c["radius"].as_f64().unwrap(),
            c["sphere"].as_bool().unwrap(),
            side,
        );
        let length = c["length"].as_f64().unwrap();
        let points: Vec<f64> = serde_json::from_value(c["points"].clone()).unwrap();
        wraps += usize::from(length > 0.0);
        inside += usize::from(length == 0.0);
        let same = match ours {
            None => length < 0.0,
            Some((p0, p1, l)) if length >= 0.0 => {
                let ours = p0.to_array().into_iter().chain(p1.to_array()).chain([l]);
                ours.zip(points.iter().copied().chain([length])).all(|(a, b)| a.to_bits() == b.to_bits())
            }
            Some(_) => false,
        };
        if !same {
            differ.push(format!("case {k}: ours {ours:?}, MuJoCo's {points:?} and length {length}"));
        }
    }
    assert!(wraps > 100 && inside > 50, "{wraps} wraps around, {inside} from the inside");
    assert!(differ.is_empty(), "{} of {} cases differ:\n{}", differ.len(), cases.len(), differ.join("\n"));
}
