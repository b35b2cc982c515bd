//! # signorini-urdf
//!
//! Loads URDF robots into the plain-data [`ModelSpec`] of `signorini-model`, and SRDF `disable_collisions` into
//! [`Srdf`], whose [`Srdf::acm`] is the collision layer's allowed-collision matrix ([`write_srdf`] writes one back);
//! this is signorini's only SRDF reader. Errors are the typed [`UrdfError`] (file, line,
//! element, attribute); the XML tree, attribute parsing and orientations are `signorini-xml`'s, mesh files are read by
//! `signorini-mesh-io`.
//!
//! Supported URDF: links with `<inertial>` (origin, mass, full inertia) and `<collision>` geometry (box, cylinder,
//! sphere, capsule, mesh from STL/OBJ as its convex hull or, with [`MeshGeometry::TriangleMesh`], as the triangle
//! mesh, with `scale`); joints `revolute`, `continuous`, `prismatic`,
//! `fixed` and `floating`, with `origin`, `axis`, `limit` (lower/upper; effort and velocity are read and not
//! simulated), `dynamics` (damping, friction → friction loss) and `mimic` (a joint equality). Accepted and not
//! simulated: `<visual>`, `<material>` (also inside `<collision>`), pybullet's `<contact>` in a link, `<axis>`,
//! `<limit>` and `<dynamics>` of a fixed joint, `<transmission>`, `<gazebo>`, `<ros2_control>`, `calibration`,
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
pub use srdf::{DisabledPair, Srdf, write_srdf};

/// How to load a URDF.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UrdfOptions {
    /// Put the root link on a free joint (named `<root link>_free`); otherwise it is welded to the world.
    pub floating_base: bool,
    /// Folders of ROS packages for `package://NAME/...` mesh file names: `(NAME, folder)`. A package not listed is
    /// looked for beside the URDF: in the first folder `F`, from the URDF's folder up, that is named `NAME` (then
    /// `F/rest`) or that holds `NAME/rest`.
    pub package_dirs: Vec<(String, PathBuf)>,
    /// What a `<mesh>` collision geometry becomes.
    pub mesh_geometry: MeshGeometry,
}

/// The shape a URDF `<mesh>` collision geometry is loaded as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MeshGeometry {
    /// The convex hull of the file's vertices (what the simulator collides).
    #[default]
    ConvexHull,
    /// The triangle mesh itself (a surface; what Coal's BVH distance measures). Not simulated as a contact shape.
    TriangleMesh,
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

impl LoadedUrdf {
    /// The body index of the link `name` (links are bodies `1..`; the world, body 0, is no link).
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.spec.bodies.iter().skip(1).position(|b| b.name == name).map(|i| i + 1)
    }
}

/// Loads the SRDF file `path` for the robot `urdf` (every link it names must exist there).
pub fn load_srdf(path: &Path, urdf: &LoadedUrdf) -> Result<Srdf> {
    let srdf = Srdf::read(path)?;
    srdf.check_links(urdf)?;
    Ok(srdf)
}

/// Loads SRDF text for the robot `urdf`; locations name the file `base_dir/<string>`.
pub fn load_srdf_str(text: &str, base_dir: &Path, urdf: &LoadedUrdf) -> Result<Srdf> {
    let srdf = Srdf::parse(text, base_dir)?;
    srdf.check_links(urdf)?;
    Ok(srdf)
}
