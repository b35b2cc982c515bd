//! From an MJCF file to a simulated [`Scene`]: the file's `<option>` and `<flag>` values become [`Options`] over the
//! chosen dialect's defaults, then `NAME=VALUE` overrides (the names of [`Options::set`]) apply, then the model is
//! compiled and every stage built ([`Scene::new`]).
//!
//! A scene is one immutable `Model`, shared by `Arc`, and a `Data` per environment (the README's simulation example,
//! checked here):
//!
//! ```
//! use std::path::Path;
//! use std::sync::Arc;
//! use signorini_sim::{Data, Dialect, step};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes/box_stack.xml");
//! let scene = signorini_mjcf::load_scene(&path, Dialect::Native, &[])?;
//! let model = Arc::clone(scene.model()); // Arc<Model>: immutable, Send + Sync
//! let mut envs = (0..4).map(|_| Data::new(&model)).collect::<Result<Vec<Data>, _>>()?;
//! for data in &mut envs {
//!     for _ in 0..50 {
//!         step(&model, data)?; // one step of dt
//!     }
//! }
//! let snapshot = envs[0].clone();
//! step(&model, &mut envs[0])?;
//! let after = envs[0].multibody.qpos.clone();
//! envs[0] = snapshot;
//! step(&model, &mut envs[0])?;
//! assert_eq!(envs[0].multibody.qpos, after); // a restored snapshot repeats the step bit for bit
//! assert!(!envs[0].contacts(&model).is_empty());
//! # Ok(())
//! # }
//! ```

use std::path::Path;

use signorini_sim::{Dialect, DialectStages, Options, Scene};

use crate::error::Result;
use crate::options::MjcfOptions;
use crate::{LoadedMjcf, load_mjcf, load_mjcf_str};

/// Loads an MJCF file and builds its scene: the file's `<option>` values (timestep, cone, solver, iterations,
/// tolerances, impratio, integrator, no-slip, islands, sleep) over `dialect`'s defaults, then `overrides`.
pub fn load_scene(path: &Path, dialect: Dialect, overrides: &[(String, String)]) -> Result<Scene> {
    scene(load_mjcf(path)?, dialect, overrides).map_err(|e| match e {
        crate::error::MjcfError::Scene(source) => {
            crate::error::MjcfError::Compile { file: path.to_path_buf(), source }
        }
        other => other,
    })
}

/// [`load_scene`] for MJCF text (relative `include`s and mesh files resolve against `base_dir`).
pub fn load_scene_str(
    xml: &str,
    base_dir: &Path,
    dialect: Dialect,
    overrides: &[(String, String)],
) -> Result<Scene> {
    scene(load_mjcf_str(xml, base_dir)?, dialect, overrides)
}

/// The scene of a loaded file (see [`load_scene`]).
pub fn scene(mut loaded: LoadedMjcf, dialect: Dialect, overrides: &[(String, String)]) -> Result<Scene> {
    let options = scene_options(&loaded.options, dialect).with_overrides(overrides)?;
    if !loaded.options.flag("gravity") {
        loaded.spec.gravity = glam::DVec3::ZERO;
    }
    if dialect == Dialect::Native {
        // Genesis's loader: a solref the file does not write is unset, then sanitized per geom, joint and
        // equality to max(constraint_timeconst, 2h).
        let timeconst = options.constraint_timeconst.max(2.0 * options.h());
        loaded.unwritten_solref.resolve(&mut loaded.spec, timeconst);
        // Meshes the file names as non-convex collide through their signed distance fields.
        loaded.nonconvex.apply(&mut loaded.spec)?;
    }
    let mut model = signorini_sim::Model::new(loaded.spec, options)?;
    model.equality_active0 = loaded.equality_active;
    Ok(Scene::from_model(std::sync::Arc::new(model))?)
}

/// The simulation options of a file's `<option>` and `<flag>` values over `dialect`'s defaults. In MuJoCo's
/// dialect, box and mesh pairs get MuJoCo 4.0's multi-contact unless `<flag multiccd="disable"/>`;
/// `<flag sleep="enable"/>` turns hibernation on with MuJoCo's rest threshold (`sleep_tolerance`, 1e-3 m/s unless
/// set); `contact`, `limit`, `equality` and `frictionloss` switch those constraints off (`contact` with collision
/// detection, as MuJoCo), `constraint` all of them, `island` the island solver, `sensor` the sensors, `spring`,
/// `damper`, `actuation`, `clampctrl`, `warmstart`, `filterparent`, `refsafe` and `eulerdamp` what they name. (`gravity` is applied to the model by
/// [`scene`].)
pub fn scene_options(m: &MjcfOptions, dialect: Dialect) -> Options {
    let mut options = dialect.default_options(m.flag("multiccd"));
    if let Some(t) = m.timestep {
        options.dt = t;
    }
    if let Some(c) = m.cone {
        options.friction_cone = c;
    }
    if let Some(s) = m.solver {
        options.constraint_solver = s;
    }
    if let Some(i) = m.integrator {
        options.integrator = i;
    }
    if let Some(i) = m.iterations {
        options.iterations = Some(i as usize);
    }
    if let Some(t) = m.tolerance {
        options.tolerance = Some(t);
    }
    if let Some(i) = m.ls_iterations {
        options.ls_iterations = i as usize;
    }
    if let Some(t) = m.ls_tolerance {
        options.ls_tolerance = t;
    }
    if let Some(r) = m.impratio {
        options.impratio = Some(r);
    }
    if let Some(i) = m.noslip_iterations {
        options.noslip_iterations = i as usize;
    }
    if let Some(t) = m.noslip_tolerance {
        options.noslip_tolerance = t;
    }
    if let Some(&enabled) = m.flags.get("island") {
        options.enable_islands = enabled;
    }
    // MuJoCo skips collision detection when contacts or all constraints are disabled.
    let constraints = m.flag("constraint");
    options.enable_collision = constraints && m.flag("contact");
    options.enable_joint_limit = constraints && m.flag("limit");
    options.enable_equality = constraints && m.flag("equality");
    options.enable_friction_loss = constraints && m.flag("frictionloss");
    options.enable_sensors = m.flag("sensor");
    options.enable_springs = m.flag("spring");
    options.enable_dampers = m.flag("damper");
    options.enable_actuation = m.flag("actuation");
    options.clamp_ctrl = m.flag("clampctrl");
    options.enable_warm_start = m.flag("warmstart");
    options.refsafe = m.flag("refsafe");
    options.euler_implicit_damping = m.flag("eulerdamp");
    if !m.flag("filterparent") {
        // MuJoCo's parent filter off: parent and child bodies collide.
        options.enable_adjacent_collision = true;
    }
    if let Some(&enabled) = m.flags.get("sleep") {
        options.use_hibernation = enabled;
        options.hibernation_thresh_vel = Some(m.sleep_tolerance.unwrap_or(1e-3));
    } else if let Some(t) = m.sleep_tolerance {
        options.hibernation_thresh_vel = Some(t);
    }
    options
}
