//! `<keyframe>`: named states. Each given vector must have the model's size (`qpos`: nq, `qvel`: nv, `ctrl`: nu);
//! an omitted one stays empty (meaning `qpos0`, zeros, zeros). Activations and mocap poses are errors: signorini
//! models have neither.

use signorini_model::spec::KeyframeSpec;

use crate::error::{MjcfError, Result};
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// Reads one `<keyframe>` section for a model of sizes `nq`, `nv`, `nu`.
pub fn read_section(e: &Element, nq: usize, nv: usize, nu: usize, out: &mut Vec<KeyframeSpec>) -> Result<()> {
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
        vector("act", 0)?;
        vector("mpos", 0)?;
        vector("mquat", 0)?;
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
        });
    }
    Ok(())
}
