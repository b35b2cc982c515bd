//! The top level: `<mujoco>` sections in MuJoCo's order (compiler, option, default, asset, worldbody, contact,
//! equality, actuator, sensor, keyframe), whatever their order in the file.

use std::path::{Path, PathBuf};

use glam::DVec3;
use signorini_model::spec::ModelSpec;

use crate::UnwrittenSolref;
use crate::assets::Assets;
use crate::compiler::Compiler;
use crate::defaults::Defaults;
use crate::error::{MjcfError, Result};
use crate::nonconvex::NonconvexMeshes;
use crate::options::MjcfOptions;
use crate::tree::Tree;
use crate::{
    Ctx, LoadedMjcf, NotSimulated, RawElement, actuator, attach, contact, equality, include, keyframe,
    sensor, tendon,
};
use signorini_model::spec::ActuatorDynamics;
use signorini_xml::Element;

/// Top-level sections that signorini reads.
const SECTIONS: &[&str] = &[
    "compiler",
    "option",
    "default",
    "asset",
    "worldbody",
    "contact",
    "equality",
    "tendon",
    "actuator",
    "sensor",
    "keyframe",
];
/// Top-level sections that are accepted and not simulated.
const NOT_SIMULATED_SECTIONS: &[&str] = &["visual", "statistic", "size", "custom"];
/// Elements anywhere in the tree that are accepted and not simulated.
const NOT_SIMULATED_ELEMENTS: &[&str] = &["camera", "light", "texture", "material", "skin"];

/// MuJoCo's default gravity (m/s²).
pub const DEFAULT_GRAVITY: DVec3 = DVec3::new(0.0, 0.0, -9.81);

/// Loads a parsed `<mujoco>` tree; `model_dir` is the folder of the main file, `stack` the files being included.
pub fn load(mut root: Element, model_dir: &Path, mut stack: Vec<PathBuf>) -> Result<LoadedMjcf> {
    if root.name != "mujoco" {
        return Err(MjcfError::Invalid {
            at: root.at.clone(),
            element: root.name.clone(),
            reason: "an MJCF file has a <mujoco> root element".into(),
        });
    }
    root.check_attributes(&["model"])?;
    include::expand(&mut root, model_dir, &mut stack)?;
    let attached = attach::expand(&mut root, model_dir, &mut stack)?;

    let mut not_simulated = Vec::new();
    for s in &root.children {
        let name = s.name.as_str();
        if matches!(name, "extension" | "deformable") {
            return Err(not_supported(s, "plugins and deformable objects"));
        }
        if NOT_SIMULATED_SECTIONS.contains(&name) {
            not_simulated.push(NotSimulated { element: s.name.clone(), at: s.at.clone() });
        } else if !SECTIONS.contains(&name) {
            return Err(root.unknown_child(s).into());
        }
    }
    let sections = |name: &'static str| root.children.iter().filter(move |s| s.name == name);

    let mut compiler = Compiler::default();
    for s in sections("compiler") {
        compiler.apply(s)?;
    }
    let mut options = MjcfOptions::default();
    for s in sections("option") {
        options.apply(s)?;
    }
    let mut defaults = Defaults::default();
    for s in sections("default") {
        defaults.add_top_level(s)?;
    }
    for r in &attached.default_roots {
        defaults.add_root(r)?;
    }
    let mut assets = Assets::default();
    for s in sections("asset") {
        assets.add_section(s, &defaults, &compiler, model_dir)?;
    }
    let ctx = Ctx { compiler: &compiler, defaults: &defaults, assets: &assets };
    let mut tree = Tree::default();
    for s in sections("worldbody") {
        tree.add_worldbody(s, &ctx)?;
    }
    tree.compile_inertia(&ctx)?;
    // Elements that refer to what a <replicate> copied become one element per copy.
    let mut replicas = std::mem::take(&mut tree.replicas);
    let mut section_names = std::collections::HashSet::new();
    let mut expanded = |kind: &'static str| -> Result<Vec<Element>> {
        let mut out = Vec::new();
        for s in sections(kind) {
            let exists = |n: &str| tree.has_name(n) || section_names.contains(n);
            let e = replicas.expand_section(s, &exists)?;
            section_names.extend(e.children.iter().filter_map(|c| c.attr("name")).map(str::to_string));
            out.push(e);
        }
        Ok(out)
    };
    let contact_sections = expanded("contact")?;
    let equality_sections = expanded("equality")?;
    let tendon_sections = expanded("tendon")?;
    let actuator_sections = expanded("actuator")?;
    let sensor_sections = expanded("sensor")?;

    let mut spec = ModelSpec {
        name: root.attr("model").unwrap_or("MuJoCo Model").to_string(),
        bodies: Vec::new(),
        actuators: Vec::new(),
        equalities: Vec::new(),
        tendons: Vec::new(),
        keyframes: Vec::new(),
        gravity: options.gravity.map_or(DEFAULT_GRAVITY, DVec3::from_array),
        contact_excludes: Vec::new(),
        contact_pairs: Vec::new(),
        sensors: Vec::new(),
        medium: signorini_model::fluid::Medium {
            density: options.density.unwrap_or(0.0),
            viscosity: options.viscosity.unwrap_or(0.0),
            wind: options.wind.map_or(DVec3::ZERO, DVec3::from_array),
        },
        lengthrange: ctx.compiler.lengthrange,
    };
    for s in &contact_sections {
        contact::read_section(s, &tree, &ctx, &mut spec.contact_excludes, &mut spec.contact_pairs)?;
    }
    for s in &tendon_sections {
        tendon::read_section(s, &tree, &ctx, &mut spec.tendons)?;
    }
    // Equalities after tendons: a tendon equality names tendons.
    let mut equality_active = Vec::new();
    let mut unwritten_equalities = Vec::new();
    for s in &equality_sections {
        equality::read_section(
            s,
            &tree,
            &spec.tendons,
            &ctx,
            &mut spec.equalities,
            &mut equality_active,
            &mut unwritten_equalities,
        )?;
    }
    for s in &actuator_sections {
        actuator::read_section(s, &tree, &spec.tendons, &ctx, &mut spec.actuators)?;
    }
    let mut sensors_raw = Vec::new();
    let magnetic = options.magnetic.unwrap_or(sensor::DEFAULT_MAGNETIC);
    for s in &sensor_sections {
        sensor::read_section(s, &tree, &spec.tendons, &spec.actuators, magnetic, &mut spec.sensors)?;
        sensors_raw.extend(s.children.iter().map(RawElement::from_element));
    }
    let (nq, nv) = tree.dims();
    let nmocap = tree.bodies.iter().filter(|b| b.mocap).count();
    for k in &attached.keys {
        keyframe::read_attached(k, &tree, &replicas, &spec.actuators, &mut spec.keyframes)?;
    }
    for s in sections("keyframe") {
        let na = spec.actuators.iter().filter(|a| a.dynamics != ActuatorDynamics::None).count();
        keyframe::read_section(s, [nq, nv, spec.actuators.len(), na, nmocap], &mut spec.keyframes)?;
    }
    collect_not_simulated(&root, &mut not_simulated);
    spec.bodies = tree.bodies;
    let unwritten_solref = UnwrittenSolref { equalities: unwritten_equalities, ..tree.unwritten };
    let nonconvex = NonconvexMeshes::read(sections("custom"), &assets, &spec)?;
    Ok(LoadedMjcf {
        spec,
        options,
        compiler,
        sensors_raw,
        equality_active,
        unwritten_solref,
        nonconvex,
        not_simulated,
        mesh_surfaces: assets.meshes().iter().map(|m| (m.name.clone(), m.surface.clone())).collect(),
    })
}

fn not_supported(e: &Element, what: &str) -> MjcfError {
    e.not_supported(what).into()
}

fn collect_not_simulated(e: &Element, out: &mut Vec<NotSimulated>) {
    for c in &e.children {
        if NOT_SIMULATED_SECTIONS.contains(&c.name.as_str()) || c.name == "sensor" {
            continue;
        }
        if NOT_SIMULATED_ELEMENTS.contains(&c.name.as_str()) {
            out.push(NotSimulated { element: c.name.clone(), at: c.at.clone() });
        } else {
            collect_not_simulated(c, out);
        }
    }
}
