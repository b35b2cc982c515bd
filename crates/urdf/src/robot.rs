//! `<robot>`: links and joints into a kinematic tree.
//!
//! The root link (the one that is no joint's child) hangs from the world, welded or, with
//! [`UrdfOptions::floating_base`], on a free joint. Every other link is a body whose frame is its joint's `origin` in
//! the parent link's frame (`rpy` = fixed-axis roll, pitch, yaw: `R = Rz(y) Ry(p) Rx(r)`); the joint sits at the
//! body origin with its `axis` in the body frame. Bodies are numbered depth-first, children in joint order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::{
    Capsule, ConvexMesh, Cuboid, Cylinder, GeometryError, MassProperties, Shape, Sphere, TriangleMesh,
};
use signorini_mesh_io::{MeshReadError, read_mesh};
use signorini_model::spec::{
    BodySpec, DEFAULT_SOLIMP, DEFAULT_SOLREF, EqualitySpec, GeomSpec, InertialSpec, JointKind, JointSpec,
    ModelSpec,
};
use signorini_xml::attrs::Attrs;
use signorini_xml::orientation::euler_to_quat;
use signorini_xml::{Attribute, Element, NotSimulated, XmlError};

use crate::error::{Result, UrdfError};
use crate::{LoadedUrdf, MeshGeometry, UrdfOptions};

/// Top-level elements accepted and not simulated.
const NOT_SIMULATED: &[&str] = &["material", "transmission", "gazebo", "ros2_control"];

struct Link<'a> {
    e: &'a Element,
    name: String,
}

struct Joint<'a> {
    e: &'a Element,
    name: String,
    parent: usize,
    child: usize,
}

fn invalid(e: &Element, reason: impl Into<String>) -> UrdfError {
    UrdfError::Invalid { at: e.at.clone(), element: e.name.clone(), reason: reason.into() }
}

/// The single child element `name` of `e`, if any (two are an error).
fn single<'a>(e: &'a Element, name: &str) -> Result<Option<&'a Element>> {
    let mut it = e.children.iter().filter(|c| c.name == name);
    let first = it.next();
    if let Some(second) = it.next() {
        return Err(invalid(second, format!("<{}> has at most one <{name}>", e.name)));
    }
    Ok(first)
}

/// `<origin xyz rpy>` (identity when absent).
fn origin(e: &Element) -> Result<(DVec3, DQuat)> {
    let Some(o) = single(e, "origin")? else {
        return Ok((DVec3::ZERO, DQuat::IDENTITY));
    };
    o.check_attributes(&["xyz", "rpy"])?;
    o.check_no_children()?;
    let a = Attrs::own(o);
    let xyz = a.array_or::<3>("xyz", [0.0; 3])?;
    let rpy = a.array_or::<3>("rpy", [0.0; 3])?;
    Ok((DVec3::from_array(xyz), euler_to_quat(rpy, *b"XYZ").normalize()))
}

/// Builds the model from a parsed `<robot>`; `base_dir` resolves relative mesh file names.
pub fn load(root: &Element, base_dir: &Path, options: &UrdfOptions) -> Result<LoadedUrdf> {
    if root.name != "robot" {
        return Err(invalid(root, "a URDF file has a <robot> root element"));
    }
    root.check_attributes(&["name", "version"])?;
    let mut links: Vec<Link<'_>> = Vec::new();
    let mut link_index: HashMap<&str, usize> = HashMap::new();
    let mut joint_elems = Vec::new();
    let mut not_simulated = Vec::new();
    for c in &root.children {
        match c.name.as_str() {
            "link" => {
                let name = c.required("name")?;
                if link_index.insert(&name.value, links.len()).is_some() {
                    return Err(duplicate(c, "link", &name.value));
                }
                links.push(Link { e: c, name: name.value.clone() });
            }
            "joint" => joint_elems.push(c),
            n if NOT_SIMULATED.contains(&n) => {
                not_simulated.push(NotSimulated { element: c.name.clone(), at: c.at.clone() })
            }
            _ => return Err(root.unknown_child(c).into()),
        }
    }
    let mut joints: Vec<Joint<'_>> = Vec::new();
    let mut parent_of: Vec<Option<usize>> = vec![None; links.len()];
    for e in joint_elems {
        e.check_attributes(&["name", "type"])?;
        let name = e.required("name")?.value.clone();
        if joints.iter().any(|j| j.name == name) {
            return Err(duplicate(e, "joint", &name));
        }
        let link_ref = |tag: &str| -> Result<usize> {
            let el =
                single(e, tag)?.ok_or_else(|| invalid(e, format!("a joint needs <{tag} link=\"...\"/>")))?;
            el.check_attributes(&["link"])?;
            let l = el.required("link")?;
            link_index.get(l.value.as_str()).copied().ok_or_else(|| UrdfError::UndefinedName {
                at: l.at.clone(),
                element: tag.to_string(),
                attribute: "link".into(),
                kind: "link",
                name: l.value.clone(),
            })
        };
        let (parent, child) = (link_ref("parent")?, link_ref("child")?);
        if parent_of[child].is_some() {
            return Err(invalid(e, format!("link `{}` is the child of two joints", links[child].name)));
        }
        parent_of[child] = Some(joints.len());
        joints.push(Joint { e, name, parent, child });
    }
    let roots: Vec<usize> = (0..links.len()).filter(|&l| parent_of[l].is_none()).collect();
    let root_link = match roots.as_slice() {
        [r] => *r,
        [] if links.is_empty() => return Err(invalid(root, "the robot has no link")),
        [] => return Err(invalid(root, "the joints form a cycle: every link has a parent")),
        many => {
            let names: Vec<&str> = many.iter().map(|&l| links[l].name.as_str()).collect();
            return Err(invalid(root, format!("several root links (no parent joint): {}", names.join(", "))));
        }
    };

    let mut builder = Builder {
        base_dir,
        options,
        bodies: Vec::new(),
        body_of_link: vec![usize::MAX; links.len()],
        joint_index: HashMap::new(),
        mimics: Vec::new(),
    };
    builder.bodies.push(BodySpec::world());
    // Depth-first, children in joint order (an explicit stack keeps deep chains off the call stack).
    let mut stack = vec![(root_link, None::<usize>)];
    while let Some((link, via)) = stack.pop() {
        builder.add_link(link, &links[link], via.map(|j| &joints[j]))?;
        for j in (0..joints.len()).rev().filter(|&j| joints[j].parent == link) {
            stack.push((joints[j].child, Some(j)));
        }
    }
    if let Some(l) = builder.body_of_link.iter().position(|&b| b == usize::MAX) {
        return Err(invalid(
            links[l].e,
            "the link is not connected to the root link (the joints form a cycle)",
        ));
    }
    let equalities = builder.mimic_equalities()?;
    Ok(LoadedUrdf {
        spec: ModelSpec {
            name: root.attr("name").unwrap_or_default().to_string(),
            bodies: builder.bodies,
            equalities,
            ..ModelSpec::default()
        },
        not_simulated,
    })
}

fn duplicate(e: &Element, kind: &'static str, name: &str) -> UrdfError {
    UrdfError::DuplicateName { at: e.at.clone(), element: e.name.clone(), kind, name: name.to_string() }
}

struct Builder<'a> {
    base_dir: &'a Path,
    options: &'a UrdfOptions,
    bodies: Vec<BodySpec>,
    body_of_link: Vec<usize>,
    joint_index: HashMap<String, usize>,
    /// `(mimic element, joint index of the mimicking joint)`.
    mimics: Vec<(&'a Element, usize)>,
}

impl<'a> Builder<'a> {
    fn add_link(&mut self, li: usize, link: &Link<'a>, via: Option<&Joint<'a>>) -> Result<()> {
        let e = link.e;
        e.check_attributes(&["name", "type"])?;
        let index = self.bodies.len();
        let (parent, pos, quat, joints) = match via {
            None => {
                let joints =
                    if self.options.floating_base { vec![free_joint(&link.name)] } else { Vec::new() };
                (0, DVec3::ZERO, DQuat::IDENTITY, joints)
            }
            Some(j) => {
                let (pos, quat) = origin(j.e)?;
                let joint = self.read_joint(j)?;
                (self.body_of_link[j.parent], pos, quat, joint.into_iter().collect())
            }
        };
        self.body_of_link[li] = index;
        let mut inertial = InertialSpec::default();
        let mut geoms = Vec::new();
        let mut seen_inertial = false;
        for c in &e.children {
            match c.name.as_str() {
                "inertial" => {
                    if seen_inertial {
                        return Err(invalid(c, "a link has at most one <inertial>"));
                    }
                    seen_inertial = true;
                    inertial = read_inertial(c)?;
                }
                "collision" => geoms.push(self.read_collision(c)?),
                // pybullet's `<contact>` (friction and stiffness of its own engine) has no URDF meaning here.
                "visual" | "self_collision_checking" | "contact" => {}
                _ => return Err(e.unknown_child(c).into()),
            }
        }
        for j in &joints {
            if !j.name.is_empty() {
                self.joint_index.insert(j.name.clone(), self.joint_count());
            }
        }
        self.bodies.push(BodySpec {
            name: link.name.clone(),
            parent,
            pos,
            quat,
            inertial,
            joints,
            geoms,
            sites: Vec::new(),
            mocap: false,
            gravcomp: 0.0,
            sleep: Default::default(),
        });
        Ok(())
    }

    fn joint_count(&self) -> usize {
        self.bodies.iter().map(|b| b.joints.len()).sum()
    }

    /// The joint spec of a URDF joint (`None` for `fixed`).
    fn read_joint(&mut self, j: &Joint<'a>) -> Result<Option<JointSpec>> {
        let e = j.e;
        let a = Attrs::own(e);
        let kind = a
            .keyword(
                "type",
                &[
                    ("revolute", Some(JointKind::Hinge)),
                    ("continuous", Some(JointKind::Hinge)),
                    ("prismatic", Some(JointKind::Slide)),
                    ("fixed", None),
                    ("floating", Some(JointKind::Free)),
                    ("planar", None),
                ],
            )?
            .ok_or_else(|| a.missing("type", ""))?;
        let ty = a.str("type").unwrap_or_default();
        if ty == "planar" {
            return Err(a.unsupported(Some("type"), "planar joints").into());
        }
        for c in &e.children {
            match c.name.as_str() {
                "origin" | "parent" | "child" => {}
                "axis" | "limit" | "dynamics" | "mimic" => {}
                "calibration" | "safety_controller" => {}
                _ => return Err(e.unknown_child(c).into()),
            }
        }
        let Some(kind) = kind else {
            // urdfdom reads and ignores `<axis>`, `<limit>` and `<dynamics>` on a fixed joint (pybullet's Panda writes
            // `<axis xyz="0 0 0"/>` there); a mimic of a joint that cannot move is a modelling error.
            for tag in ["axis", "limit", "dynamics"] {
                single(e, tag)?;
            }
            if let Some(c) = single(e, "mimic")? {
                return Err(invalid(c, "a fixed joint has no <mimic>"));
            }
            return Ok(None);
        };
        let axis = match single(e, "axis")? {
            Some(x) => {
                x.check_attributes(&["xyz"])?;
                x.check_no_children()?;
                let ax = Attrs::own(x);
                DVec3::from_array(ax.array_or::<3>("xyz", [1.0, 0.0, 0.0])?)
                    .try_normalize()
                    .ok_or_else(|| ax.invalid_named("xyz", "the axis has zero length"))?
            }
            None => DVec3::X,
        };
        let range = match single(e, "limit")? {
            Some(l) if ty != "floating" => {
                l.check_attributes(&["lower", "upper", "effort", "velocity"])?;
                l.check_no_children()?;
                let la = Attrs::own(l);
                la.f64("effort")?;
                la.f64("velocity")?;
                let r = [la.f64_or("lower", 0.0)?, la.f64_or("upper", 0.0)?];
                if ty == "continuous" {
                    None
                } else {
                    if !(r[0] < r[1]) {
                        return Err(la
                            .invalid_named("upper", "the upper limit must be above the lower limit")
                            .into());
                    }
                    Some(r)
                }
            }
            Some(l) => return Err(invalid(l, "a floating joint has no <limit>")),
            None if matches!(ty, "revolute" | "prismatic") => {
                return Err(invalid(e, format!("a {ty} joint needs <limit lower upper effort velocity>")));
            }
            None => None,
        };
        let (damping, frictionloss) = match single(e, "dynamics")? {
            Some(d) => {
                d.check_attributes(&["damping", "friction"])?;
                d.check_no_children()?;
                let da = Attrs::own(d);
                (da.nonneg_or("damping", 0.0)?, da.nonneg_or("friction", 0.0)?)
            }
            None => (0.0, 0.0),
        };
        if let Some(m) = single(e, "mimic")? {
            m.check_attributes(&["joint", "multiplier", "offset"])?;
            m.check_no_children()?;
            self.mimics.push((m, self.joint_count()));
        }
        Ok(Some(JointSpec {
            name: j.name.clone(),
            kind,
            pos: DVec3::ZERO,
            axis: if kind == JointKind::Free { DVec3::Z } else { axis },
            range,
            margin: 0.0,
            armature: 0.0,
            damping,
            stiffness: 0.0,
            springref: 0.0,
            frictionloss,
            reference: 0.0,
            solref_limit: DEFAULT_SOLREF,
            solimp_limit: DEFAULT_SOLIMP,
            solref_friction: DEFAULT_SOLREF,
            solimp_friction: DEFAULT_SOLIMP,
            actuatorgravcomp: false,
            actuatorfrcrange: None,
            springdamper: None,
        }))
    }

    /// `<mimic joint multiplier offset>` as joint equalities `q = offset + multiplier·q_mimicked`.
    fn mimic_equalities(&self) -> Result<Vec<EqualitySpec>> {
        let mut out = Vec::new();
        for (m, joint1) in &self.mimics {
            let a = Attrs::own(m);
            let target = m.required("joint")?;
            let joint2 = *self.joint_index.get(&target.value).ok_or_else(|| UrdfError::UndefinedName {
                at: target.at.clone(),
                element: "mimic".into(),
                attribute: "joint".into(),
                kind: "joint",
                name: target.value.clone(),
            })?;
            out.push(EqualitySpec::Joint {
                name: String::new(),
                joint1: *joint1,
                joint2: Some(joint2),
                polycoef: [a.f64_or("offset", 0.0)?, a.f64_or("multiplier", 1.0)?, 0.0, 0.0, 0.0],
                solref: DEFAULT_SOLREF,
                solimp: DEFAULT_SOLIMP,
            });
        }
        Ok(out)
    }

    fn read_collision(&self, e: &Element) -> Result<GeomSpec> {
        e.check_attributes(&["name"])?;
        for c in &e.children {
            // `<material>` inside `<collision>` is not URDF, but common (pybullet's Panda writes it); it has no effect.
            if !matches!(c.name.as_str(), "origin" | "geometry" | "material") {
                return Err(e.unknown_child(c).into());
            }
        }
        let (pos, quat) = origin(e)?;
        let g = single(e, "geometry")?.ok_or_else(|| invalid(e, "a collision needs <geometry>"))?;
        g.check_attributes(&[])?;
        let shape = match g.children.as_slice() {
            [s] => self.shape(s)?,
            [] => return Err(invalid(g, "<geometry> needs one of box, cylinder, sphere, capsule, mesh")),
            [_, second, ..] => return Err(invalid(second, "<geometry> holds exactly one shape")),
        };
        Ok(GeomSpec { pos, quat, ..GeomSpec::new(e.attr("name").unwrap_or_default(), shape) })
    }

    fn shape(&self, s: &Element) -> Result<Shape> {
        s.check_no_children()?;
        let a = Attrs::own(s);
        let geometry =
            |source: GeometryError| UrdfError::Geometry { at: s.at.clone(), element: s.name.clone(), source };
        let req =
            |name: &str| -> signorini_xml::Result<f64> { a.f64(name)?.ok_or_else(|| a.missing(name, "")) };
        Ok(match s.name.as_str() {
            "box" => {
                s.check_attributes(&["size"])?;
                let size = a.array::<3>("size")?.ok_or_else(|| a.missing("size", "full edge lengths"))?;
                Cuboid::new(DVec3::from_array(size) * 0.5).map_err(geometry)?.into()
            }
            "sphere" => {
                s.check_attributes(&["radius"])?;
                Sphere::new(req("radius")?).map_err(geometry)?.into()
            }
            "cylinder" => {
                s.check_attributes(&["radius", "length"])?;
                Cylinder::new(req("radius")?, req("length")? * 0.5).map_err(geometry)?.into()
            }
            "capsule" => {
                s.check_attributes(&["radius", "length"])?;
                Capsule::new(req("radius")?, req("length")? * 0.5).map_err(geometry)?.into()
            }
            "mesh" => {
                s.check_attributes(&["filename", "scale"])?;
                let f = s.required("filename")?;
                let scale = DVec3::from_array(a.array_or::<3>("scale", [1.0; 3])?);
                let path = self.resolve(f, s)?;
                let data = read_mesh(&path).map_err(|err| match err {
                    MeshReadError::Io(source) => {
                        XmlError::Io { file: path.clone(), at: Some(f.at.clone()), source }.into()
                    }
                    MeshReadError::Format(reason) => UrdfError::MeshFile {
                        at: f.at.clone(),
                        element: "mesh".into(),
                        file: path.clone(),
                        reason,
                    },
                })?;
                let points: Vec<DVec3> = data.vertices.iter().map(|v| *v * scale).collect();
                match self.options.mesh_geometry {
                    MeshGeometry::ConvexHull => {
                        Shape::ConvexMesh(Arc::new(ConvexMesh::from_points(&points).map_err(geometry)?))
                    }
                    MeshGeometry::TriangleMesh => Shape::TriangleMesh(Arc::new(
                        TriangleMesh::new(points, data.triangles).map_err(geometry)?,
                    )),
                }
            }
            _ => {
                return Err(XmlError::UnknownElement {
                    at: s.at.clone(),
                    element: s.name.clone(),
                    parent: "geometry".into(),
                }
                .into());
            }
        })
    }

    /// A mesh file name: `package://name/rest` through [`UrdfOptions::package_dirs`] or found beside the URDF (see
    /// there), `file://` stripped, relative names from the URDF's folder.
    fn resolve(&self, f: &Attribute, s: &Element) -> Result<PathBuf> {
        let v = f.value.as_str();
        if let Some(rest) = v.strip_prefix("package://") {
            let (pkg, tail) = rest.split_once('/').unwrap_or((rest, ""));
            if let Some((_, dir)) = self.options.package_dirs.iter().find(|(name, _)| name == pkg) {
                return Ok(dir.join(tail));
            }
            let beside = self.base_dir.ancestors().find_map(|dir| {
                let named = dir.file_name().is_some_and(|n| n == pkg);
                [named.then(|| dir.join(tail)), Some(dir.join(pkg).join(tail))]
                    .into_iter()
                    .flatten()
                    .find(|p| p.is_file())
            });
            return beside.ok_or_else(|| {
                XmlError::InvalidValue {
                    at: f.at.clone(),
                    element: s.name.clone(),
                    attribute: "filename".into(),
                    value: v.to_string(),
                    reason: format!(
                        "package `{pkg}` is not in UrdfOptions::package_dirs, and no folder from the URDF's \
                         up is named `{pkg}` or holds `{pkg}/{tail}`"
                    ),
                }
                .into()
            });
        }
        let p = Path::new(v.strip_prefix("file://").unwrap_or(v));
        Ok(if p.is_absolute() { p.to_path_buf() } else { self.base_dir.join(p) })
    }
}

fn free_joint(link: &str) -> JointSpec {
    JointSpec::free(format!("{link}_free"))
}

/// `<inertial>`: origin, `<mass value>`, `<inertia ixx ixy ixz iyy iyz izz>` (about the centre of mass, in the
/// origin's axes). A non-diagonal tensor is diagonalised; the inertial frame then turns with its principal axes.
fn read_inertial(e: &Element) -> Result<InertialSpec> {
    e.check_attributes(&[])?;
    for c in &e.children {
        if !matches!(c.name.as_str(), "origin" | "mass" | "inertia") {
            return Err(e.unknown_child(c).into());
        }
    }
    let (pos, quat) = origin(e)?;
    let m = single(e, "mass")?.ok_or_else(|| invalid(e, "an inertial needs <mass value>"))?;
    m.check_attributes(&["value"])?;
    m.check_no_children()?;
    let ma = Attrs::own(m);
    let mass = ma.f64("value")?.ok_or_else(|| ma.missing("value", ""))?;
    if mass < 0.0 {
        return Err(ma.invalid_named("value", "must be >= 0").into());
    }
    let i = single(e, "inertia")?.ok_or_else(|| invalid(e, "an inertial needs <inertia>"))?;
    let names = ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"];
    i.check_attributes(&names)?;
    i.check_no_children()?;
    let ia = Attrs::own(i);
    let mut v = [0.0; 6];
    for (slot, n) in v.iter_mut().zip(names) {
        *slot = ia.f64(n)?.ok_or_else(|| ia.missing(n, ""))?;
    }
    let [ixx, ixy, ixz, iyy, iyz, izz] = v;
    if ixy == 0.0 && ixz == 0.0 && iyz == 0.0 {
        if ixx < 0.0 || iyy < 0.0 || izz < 0.0 {
            return Err(ia.invalid_named("ixx", "principal moments must be >= 0").into());
        }
        return Ok(InertialSpec { mass, inertia: DVec3::new(ixx, iyy, izz), pos, quat });
    }
    let tensor = DMat3::from_cols_array(&[ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz]);
    let p = MassProperties { mass, com: DVec3::ZERO, inertia: tensor }.principal();
    if p.moments.min_element() < 0.0 {
        return Err(ia.invalid_named("ixx", "the inertia tensor is not positive semi-definite").into());
    }
    Ok(InertialSpec { mass, inertia: p.moments, pos, quat: (quat * p.frame).normalize() })
}
