//! # signorini-urdf
//!
//! Loads URDF robots into the plain-data [`ModelSpec`] of `signorini-model`, and SRDF `disable_collisions` into
//! `(link, link, reason)` pairs for the allowed-collision matrix. Errors are the typed [`UrdfError`] (file, line,
//! element, attribute); the XML tree, attribute parsing and orientations are `signorini-xml`'s, mesh files are read by
//! `signorini-mesh-io`.
//!
//! Supported URDF: links with `<inertial>` (origin, mass, full inertia) and `<collision>` geometry (box, cylinder,
//! sphere, capsule, mesh as STL/OBJ convex hull, with `scale`); joints `revolute`, `continuous`, `prismatic`,
//! `fixed` and `floating`, with `origin`, `axis`, `limit` (lower/upper; effort and velocity are read and not
//! simulated), `dynamics` (damping, friction → friction loss) and `mimic` (a joint equality). Accepted and not
//! simulated: `<visual>`, `<material>`, `<transmission>`, `<gazebo>`, `<ros2_control>`, `calibration`,
//! `safety_controller`. `planar` joints and anything unknown are errors. A link without `<inertial>` is massless
//! (URDF semantics; inertia is not inferred from collision geometry).

pub mod error;
mod robot;
mod srdf;

use std::path::{Path, PathBuf};

pub use error::{Location, Result, UrdfError, XmlError};
pub use signorini_model::spec::ModelSpec;
pub use signorini_xml::NotSimulated;
use signorini_xml::element as xml;
pub use srdf::Srdf;

/// How to load a URDF.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UrdfOptions {
    /// Put the root link on a free joint (named `<root link>_free`); otherwise it is welded to the world.
    pub floating_base: bool,
    /// Folders of ROS packages for `package://NAME/...` mesh file names: `(NAME, folder)`.
    pub package_dirs: Vec<(String, PathBuf)>,
}

/// What loading a URDF produces.
#[derive(Debug, Clone)]
pub struct LoadedUrdf {
    /// The model: body 0 is the world, body `i ≥ 1` is a link (named as the link), depth-first from the root link.
    pub spec: ModelSpec,
    /// Elements accepted but not simulated.
    pub not_simulated: Vec<NotSimulated>,
}

/// Loads the URDF file `path`; relative mesh file names are resolved from its folder.
pub fn load_urdf(path: &Path, options: &UrdfOptions) -> Result<LoadedUrdf> {
    let root = xml::read_file(path, None)?;
    robot::load(&root, path.parent().unwrap_or(Path::new(".")), options)
}

/// Loads URDF text; relative mesh file names are resolved from `base_dir`.
pub fn load_urdf_str(text: &str, base_dir: &Path, options: &UrdfOptions) -> Result<LoadedUrdf> {
    let root = xml::parse(text, &base_dir.join("<string>"))?;
    robot::load(&root, base_dir, options)
}

/// Loads the SRDF file `path` for the robot `urdf` (every link it names must exist there).
pub fn load_srdf(path: &Path, urdf: &LoadedUrdf) -> Result<Srdf> {
    srdf::load(&xml::read_file(path, None)?, urdf)
}

/// Loads SRDF text for the robot `urdf`; locations name the file `base_dir/<string>`.
pub fn load_srdf_str(text: &str, base_dir: &Path, urdf: &LoadedUrdf) -> Result<Srdf> {
    srdf::load(&xml::parse(text, &base_dir.join("<string>"))?, urdf)
}
