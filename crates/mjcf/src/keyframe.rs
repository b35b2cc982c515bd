//! `<keyframe>`: named states. Each given vector must have the model's size (`qpos`: nq, `qvel`: nv, `ctrl`: nu,
//! `act`: na, `mpos`: 3·nmocap, `mquat`: 4·nmocap); an omitted one stays empty (meaning `qpos0`, zeros, zeros, zeros,
//! the mocap bodies' own poses).

use signorini_model::spec::KeyframeSpec;

use crate::error::{MjcfError, Result};
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// Reads one `<keyframe>` section for a model of sizes `[nq, nv, nu, na, nmocap]`.
pub fn read_section(
    e: &Element,
    [nq, nv, nu, na, nmocap]: [usize; 5],
    out: &mut Vec<KeyframeSpec>,
) -> Result<()> {
    e.check_attributes(&[])?;
    for child in &e.children {
        if child.name != "key" {
            return Err(e.unknown_child(child).into());
        }
        if let Some(c) = child.children.first() {
            return Err(child.unknown_child(c).into());
        }
        child.check_attributes(&["name", "time", "qpos", "qvel", "act", "ctrl", "mpos", "mquat"])?;
        let a = Attrs::own(child);
        let vector = |name: &str, n: usize| -> Result<Vec<f64>> {
            let v = a.numbers(name)?.unwrap_or_default();
            if !v.is_empty() && v.len() != n {
                return Err(a.invalid_named(name, format!("expected {n} numbers, got {}", v.len())).into());
            }
            Ok(v)
        };
        let name = a.str("name").unwrap_or_default().to_string();
        if !name.is_empty() && out.iter().any(|k| k.name == name) {
            return Err(MjcfError::DuplicateName {
                at: child.at.clone(),
                element: "key".into(),
                kind: "keyframe",
                name,
            });
        }
        out.push(KeyframeSpec {
            name,
            time: a.f64_or("time", 0.0)?,
            qpos: vector("qpos", nq)?,
            qvel: vector("qvel", nv)?,
            ctrl: vector("ctrl", nu)?,
            act: vector("act", na)?,
            mpos: vector("mpos", 3 * nmocap)?,
            mquat: vector("mquat", 4 * nmocap)?,
        });
    }
    Ok(())
}
