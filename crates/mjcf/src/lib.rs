//! # signorini-mjcf
//!
//! Loads a documented subset of MuJoCo's MJCF format into the plain-data [`ModelSpec`] of `signorini-model` (which
//! stays free of XML). `docs/MJCF.md` lists what is simulated, what is accepted but not simulated, and what is an
//! error. Everything outside the subset is a typed [`MjcfError`] naming the file, line, element and attribute; nothing
//! is silently ignored.
//!
//! ```no_run
//! let loaded = signorini_mjcf::load_mjcf(std::path::Path::new("scene.xml"))?;
//! println!("{} bodies, timestep {:?}", loaded.spec.bodies.len(), loaded.options.timestep);
//! # Ok::<(), signorini_mjcf::MjcfError>(())
//! ```
//!
//! The XML tree with locations, typed attribute reading and the orientation conversions are `signorini-xml`'s; mesh
//! files are read by `signorini-mesh-io`.
//!
//! | module | concept |
//! |---|---|
//! | [`error`] | [`MjcfError`]: the reading faults of [`XmlError`] and the model faults of MJCF |
//! | `include` | `<include>` splicing |
//! | `defaults` | default classes, inheritance, `childclass` (the layers of `signorini_xml::attrs::Attrs`) |
//! | [`compiler`] | `<compiler>` settings |
//! | [`options`] | `<option>`/`<flag>` as given ([`MjcfOptions`]) |
//! | [`orientation`] | `quat`, `axisangle`, `euler`, `xyaxes`, `zaxis` in the compiler's angle unit |
//! | `assets` | mesh assets |
//! | `tree`, `joint`, `geom` | bodies, joints, geoms, sites |
//! | `compile_inertia` | body inertia from `<inertial>` or from geoms, as MuJoCo compiles it |
//! | `actuator`, `equality`, `contact`, `keyframe` | the remaining sections |
//! | [`nonconvex`] | the `<custom>` switch that makes meshes non-convex solids (native mode) |

pub mod compiler;
pub mod error;
pub mod options;
pub mod orientation;

mod actuator;
mod assets;
mod attach;
mod builtin_mesh;
mod compile_inertia;
mod contact;
mod defaults;
mod eig3;
mod equality;
mod frame;
mod geom;
mod hfield;
mod include;
mod joint;
mod keyframe;
mod mesh_inertia;
pub mod nonconvex;
mod parse;
mod replicated;
pub mod scene;
mod schema;
mod sensor;
mod tendon;
mod tree;

use std::path::Path;

pub use compiler::{Compiler, InertiaFromGeom};
pub use error::{Location, MjcfError, Result, XmlError};
pub use geom::{DEFAULT_DENSITY, DEFAULT_FRICTION};
pub use options::{Jacobian, MjcfOptions};
pub use parse::DEFAULT_GRAVITY;
pub use scene::{load_scene, load_scene_str, scene_options};
use signorini_model::spec::EqualitySpec;
pub use signorini_model::spec::ModelSpec;
pub use signorini_xml::NotSimulated;
use signorini_xml::element as xml;

/// What loading an MJCF file produces.
#[derive(Debug, Clone)]
pub struct LoadedMjcf {
    /// The model.
    pub spec: ModelSpec,
    /// The `<option>` values given in the file.
    pub options: MjcfOptions,
    /// The `<compiler>` settings in effect.
    pub compiler: Compiler,
    /// The `<sensor>` children as written (the sensors themselves are `spec.sensors`).
    pub sensors_raw: Vec<RawElement>,
    /// The `active` flag of each equality constraint, in the order of `spec.equalities`.
    pub equality_active: Vec<bool>,
    /// The `solref` values the file does not write (native mode treats them as unset, see [`UnwrittenSolref`]).
    pub unwritten_solref: UnwrittenSolref,
    /// The geoms whose mesh the file names as non-convex (native mode gives them a signed distance field, see
    /// [`nonconvex`]).
    pub nonconvex: nonconvex::NonconvexMeshes,
    /// Elements accepted but not simulated (visual, statistic, size, custom, camera, light, texture, material, skin).
    pub not_simulated: Vec<NotSimulated>,
    /// The mesh assets' surfaces by name: vertices (mesh frame, scaled) and triangles, as read, written or generated
    /// (`builtin`).
    pub mesh_surfaces: std::collections::BTreeMap<String, std::sync::Arc<signorini_mesh_io::MeshData>>,
}

/// Where a file leaves a `solref` unwritten: neither on the element nor in one of its default classes. The spec
/// holds MuJoCo's default (0.02 s, damping ratio 1) there. Genesis's MJCF loader marks these as unset instead, and
/// its `_sanitize_sol_params` gives each of them `max(constraint_timeconst, 2h)` before geoms are mixed; native mode
/// does the same through [`UnwrittenSolref::resolve`]. A written value, even MuJoCo's default, is kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnwrittenSolref {
    /// `(body, geom within the body)` of geoms without `solref`.
    pub geoms: Vec<(usize, usize)>,
    /// `(body, joint within the body)` of joints without `solreflimit` (free joints included).
    pub joint_limits: Vec<(usize, usize)>,
    /// `(body, joint within the body)` of joints without `solreffriction` (free joints included).
    pub joint_frictions: Vec<(usize, usize)>,
    /// Indices into `spec.equalities` of equalities without `solref`.
    pub equalities: Vec<usize>,
}

impl UnwrittenSolref {
    /// Sets the time constant of every unwritten `solref` of `spec` to `timeconst`, keeping its damping ratio.
    pub fn resolve(&self, spec: &mut ModelSpec, timeconst: f64) {
        for &(b, g) in &self.geoms {
            if let Some(geom) = spec.bodies.get_mut(b).and_then(|body| body.geoms.get_mut(g)) {
                geom.solref[0] = timeconst;
            }
        }
        for (list, limit) in [(&self.joint_limits, true), (&self.joint_frictions, false)] {
            for &(b, j) in list {
                if let Some(joint) = spec.bodies.get_mut(b).and_then(|body| body.joints.get_mut(j)) {
                    let solref = if limit { &mut joint.solref_limit } else { &mut joint.solref_friction };
                    solref[0] = timeconst;
                }
            }
        }
        for &e in &self.equalities {
            if let Some(
                EqualitySpec::Connect { solref, .. }
                | EqualitySpec::Weld { solref, .. }
                | EqualitySpec::Joint { solref, .. }
                | EqualitySpec::Tendon { solref, .. },
            ) = spec.equalities.get_mut(e)
            {
                solref[0] = timeconst;
            }
        }
    }
}

/// An element kept as written.
#[derive(Debug, Clone, PartialEq)]
pub struct RawElement {
    /// Tag name (e.g. `jointpos`).
    pub name: String,
    /// Attributes `(name, value)` in document order.
    pub attributes: Vec<(String, String)>,
    /// Element children.
    pub children: Vec<RawElement>,
    /// Where it is written.
    pub at: Location,
}

impl RawElement {
    fn from_element(e: &xml::Element) -> Self {
        RawElement {
            name: e.name.clone(),
            attributes: e.attributes.iter().map(|a| (a.name.clone(), a.value.clone())).collect(),
            children: e.children.iter().map(RawElement::from_element).collect(),
            at: e.at.clone(),
        }
    }

    /// The value of attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// What every element reader needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub compiler: &'a Compiler,
    pub defaults: &'a defaults::Defaults,
    pub assets: &'a assets::Assets,
}

/// Loads the MJCF file `path`. Includes and asset files are resolved relative to its folder.
pub fn load_mjcf(path: &Path) -> Result<LoadedMjcf> {
    let root = xml::read_file(path, None)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    parse::load(root, dir, vec![key])
}

/// Loads MJCF text; includes and asset files are resolved relative to `base_dir`, and locations name the file
/// `base_dir/<string>`.
pub fn load_mjcf_str(xml: &str, base_dir: &Path) -> Result<LoadedMjcf> {
    let root = xml::parse(xml, &base_dir.join("<string>"))?;
    parse::load(root, base_dir, Vec::new())
}
