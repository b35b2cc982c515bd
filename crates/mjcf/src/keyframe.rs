//! `<keyframe>`: named states. Each given vector must have the model's size (`qpos`: nq, `qvel`: nv, `ctrl`: nu,
//! `act`: na, `mpos`: 3·nmocap, `mquat`: 4·nmocap); an omitted one stays empty (meaning `qpos0`, zeros, zeros, zeros,
//! the mocap bodies' own poses).

use signorini_model::spec::{ActuatorSpec, BodySpec, JointKind, KeyframeSpec};

use crate::attach::AttachedKey;
use crate::error::{MjcfError, Result};
use crate::joint;
use crate::replicated::Replicas;
use crate::tree::Tree;
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
        let name = unique_name(&a, child, out)?;
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

/// Adds the keyframe of an attached file ([`crate::attach`]), as MuJoCo maps it: each attached joint takes the key's
/// values for it (the first copy's joint, inside a replicate), each attached actuator its control; everything else
/// has this model's defaults (`qpos0`, zero velocities and controls).
pub fn read_attached(
    k: &AttachedKey,
    tree: &Tree,
    replicas: &Replicas,
    actuators: &[ActuatorSpec],
    out: &mut Vec<KeyframeSpec>,
) -> Result<()> {
    let e = &k.key;
    if e.name != "key" {
        return Err(MjcfError::Invalid {
            at: e.at.clone(),
            element: e.name.clone(),
            reason: "a <keyframe> section holds <key> elements".into(),
        });
    }
    e.check_attributes(&["name", "time", "qpos", "qvel", "act", "ctrl", "mpos", "mquat"])?;
    let a = Attrs::own(e);
    for unsupported in ["act", "mpos", "mquat"] {
        if a.numbers(unsupported)?.is_some_and(|v| !v.is_empty()) {
            return Err(e
                .not_supported(format!("`{unsupported}` in a keyframe of an attached model"))
                .into());
        }
    }
    let child = &k.child;
    let ours = Layout::of(&tree.bodies);
    let theirs = Layout::of(&child.bodies);
    let given = |name: &str, n: usize| -> Result<Option<Vec<f64>>> {
        match a.numbers(name)?.filter(|v| !v.is_empty()) {
            Some(v) if v.len() != n => Err(a
                .invalid_named(name, format!("the attached model has {n} of them, the key gives {}", v.len()))
                .into()),
            v => Ok(v),
        }
    };
    let (key_qpos, key_qvel) = (given("qpos", theirs.nq)?, given("qvel", theirs.nv)?);
    let key_ctrl = given("ctrl", child.actuators.len())?;
    let mut qpos = ours.qpos0.clone();
    let mut qvel = vec![0.0; ours.nv];
    let body_exists = |n: &str| tree.body_names.contains_key(n);
    for (b, body) in child.bodies.iter().enumerate().skip(1) {
        let name = format!("{}{}", k.prefix, body.name);
        let found = tree.body_names.get(&name).copied().or_else(|| {
            replicas.first_copy(&name, &body_exists).and_then(|n| tree.body_names.get(&n).copied())
        });
        let Some(p) = found.filter(|_| !body.name.is_empty()) else {
            continue;
        };
        for (j, joint) in body.joints.iter().enumerate() {
            let (nq, nv) = joint::dims(joint.kind);
            let ([tq, tv], [oq, ov]) = (theirs.adr[b][j], ours.adr[p][j]);
            if let Some(v) = &key_qpos {
                qpos[oq..oq + nq].copy_from_slice(&v[tq..tq + nq]);
            }
            if let Some(v) = &key_qvel {
                qvel[ov..ov + nv].copy_from_slice(&v[tv..tv + nv]);
            }
        }
    }
    let mut ctrl = vec![0.0; actuators.len()];
    if let Some(v) = &key_ctrl {
        let exists = |n: &str| actuators.iter().any(|x| x.name == n);
        for (i, act) in child.actuators.iter().enumerate().filter(|(i, _)| k.attached_actuators[*i]) {
            let name = format!("{}{}", k.prefix, act.name);
            let name = if exists(&name) { Some(name) } else { replicas.first_copy(&name, &exists) };
            match name
                .and_then(|n| actuators.iter().position(|x| x.name == n))
                .filter(|_| !act.name.is_empty())
            {
                Some(o) => ctrl[o] = v[i],
                None => {
                    return Err(e
                        .not_supported("`ctrl` in a keyframe of an attached model with unnamed actuators")
                        .into());
                }
            }
        }
    }
    let name = unique_name(&a, e, out)?;
    out.push(KeyframeSpec {
        name,
        time: a.f64_or("time", 0.0)?,
        qpos,
        qvel,
        ctrl,
        act: Vec::new(),
        mpos: Vec::new(),
        mquat: Vec::new(),
    });
    Ok(())
}

/// Where each joint's coordinates sit in a model's `qpos` and `qvel`, and its `qpos0` (a free joint's quaternion
/// normalised, as the compiled model's `qpos0` holds it, so that joints a key leaves alone stay there bit for bit).
struct Layout {
    /// Per body, per joint: `[qpos address, qvel address]`.
    adr: Vec<Vec<[usize; 2]>>,
    qpos0: Vec<f64>,
    nq: usize,
    nv: usize,
}

impl Layout {
    fn of(bodies: &[BodySpec]) -> Layout {
        let (mut adr, mut qpos0, mut nv) = (Vec::with_capacity(bodies.len()), Vec::new(), 0);
        for body in bodies {
            let mut here = Vec::with_capacity(body.joints.len());
            for j in &body.joints {
                here.push([qpos0.len(), nv]);
                match j.kind {
                    JointKind::Free => {
                        qpos0.extend(body.pos.to_array());
                        let q = signorini_model::model::unit_quat_compiled(body.quat);
                        qpos0.extend([q.w, q.x, q.y, q.z]);
                    }
                    JointKind::Ball => qpos0.extend([1.0, 0.0, 0.0, 0.0]),
                    JointKind::Hinge | JointKind::Slide => qpos0.push(j.reference),
                }
                nv += joint::dims(j.kind).1;
            }
            adr.push(here);
        }
        Layout { adr, nq: qpos0.len(), qpos0, nv }
    }
}

/// The `name` of key `e`, unless a keyframe of `out` already has it.
fn unique_name(a: &Attrs<'_>, e: &Element, out: &[KeyframeSpec]) -> Result<String> {
    let name = a.str("name").unwrap_or_default().to_string();
    if !name.is_empty() && out.iter().any(|k| k.name == name) {
        return Err(MjcfError::DuplicateName {
            at: e.at.clone(),
            element: "key".into(),
            kind: "keyframe",
            name,
        });
    }
    Ok(name)
}
