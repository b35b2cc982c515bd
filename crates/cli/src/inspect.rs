//! `signorini inspect SCENE.xml --states FILE.json` (spec §6).
//!
//! Prints one JSON line with the compiled `body_mass`, `body_inertia` (principal moments), `body_ipos`, `body_iquat`
//! (`w, x, y, z`), then one line per record of FILE (`{"records": [{"qpos": [...], "qvel": [...]}, ...]}`) with the
//! body poses `xpos`, `xquat`, the dense joint-space inertia `qM` (row-major, armature included), `qfrc_bias`
//! (`C(q, q̇) q̇ + g(q)`) and `qfrc_passive`, in MuJoCo's conventions.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use signorini_model::{Data, Model};

use crate::error::CliError;

#[derive(Deserialize)]
struct States {
    records: Vec<State>,
}

#[derive(Deserialize)]
struct State {
    qpos: Vec<f64>,
    qvel: Vec<f64>,
}

#[derive(Serialize)]
struct Compiled {
    body_mass: Vec<f64>,
    body_inertia: Vec<[f64; 3]>,
    body_ipos: Vec<[f64; 3]>,
    body_iquat: Vec<[f64; 4]>,
}

#[derive(Serialize)]
struct Evaluated {
    xpos: Vec<[f64; 3]>,
    xquat: Vec<[f64; 4]>,
    #[serde(rename = "qM")]
    qm: Vec<Vec<f64>>,
    qfrc_bias: Vec<f64>,
    qfrc_passive: Vec<f64>,
}

fn wxyz(q: signorini_geometry::DQuat) -> [f64; 4] {
    [q.w, q.x, q.y, q.z]
}

/// Loads and compiles an MJCF scene, or a URDF robot (`.urdf`, root welded to the world).
pub fn compile(scene: &Path) -> Result<Model, CliError> {
    let spec = if crate::run::is_urdf(scene) {
        let options = signorini_urdf::UrdfOptions::default();
        signorini_urdf::load_urdf(scene, &options).map_err(|e| CliError::Scene(e.to_string()))?.spec
    } else {
        signorini_mjcf::load_mjcf(scene).map_err(|e| CliError::Scene(e.to_string()))?.spec
    };
    Model::compile(spec).map_err(|e| CliError::Scene(format!("{}: {e}", scene.display())))
}

/// Runs the subcommand.
pub fn run(scene: &Path, states: &Path, out: &mut dyn Write) -> Result<(), CliError> {
    let model = compile(scene)?;
    let text =
        std::fs::read_to_string(states).map_err(|source| CliError::Io { path: states.into(), source })?;
    let states: States =
        serde_json::from_str(&text).map_err(|source| CliError::Json { path: states.into(), source })?;
    crate::query::write_json(
        out,
        &Compiled {
            body_mass: model.body_mass.clone(),
            body_inertia: model.body_inertia.iter().map(|v| v.to_array()).collect(),
            body_ipos: model.body_ipos.iter().map(|v| v.to_array()).collect(),
            body_iquat: model.body_iquat.iter().map(|q| wxyz(*q)).collect(),
        },
    )?;
    let mut data = Data::new(&model);
    for (k, s) in states.records.iter().enumerate() {
        if s.qpos.len() != model.nq || s.qvel.len() != model.nv {
            return Err(CliError::Usage(format!(
                "record {k}: qpos has {} values and qvel {}, the model needs nq = {} and nv = {}",
                s.qpos.len(),
                s.qvel.len(),
                model.nq,
                model.nv
            )));
        }
        if let Some(bad) = s.qpos.iter().chain(&s.qvel).find(|x| !x.is_finite()) {
            return Err(CliError::Usage(format!("record {k}: state value {bad} is not finite")));
        }
        let max = signorini_geometry::MAX_COORDINATE;
        if let Some(bad) = s.qpos.iter().chain(&s.qvel).find(|x| x.abs() > max) {
            return Err(CliError::Usage(format!(
                "record {k}: state value {bad:e} is beyond ±{max:e} (the largest magnitude accepted)"
            )));
        }
        data.qpos.copy_from_slice(&s.qpos);
        data.qvel.copy_from_slice(&s.qvel);
        model.forward_kinematics(&mut data);
        model.mass_matrix(&mut data);
        model.bias(&mut data);
        model.passive(&mut data);
        let dense = model.dense_qm(&data);
        let nv = model.nv;
        crate::query::write_json(
            out,
            &Evaluated {
                xpos: data.xpos.iter().map(|v| v.to_array()).collect(),
                xquat: data.xquat.iter().map(|q| wxyz(*q)).collect(),
                qm: (0..nv).map(|i| dense[i * nv..(i + 1) * nv].to_vec()).collect(),
                qfrc_bias: data.qfrc_bias.clone(),
                qfrc_passive: data.qfrc_passive.clone(),
            },
        )?;
    }
    Ok(())
}
