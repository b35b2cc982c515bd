//! [`RobotModel`]: a URDF's links, joints and collision geometry, the enabled geometry pairs, and the map from joint
//! names to the configuration vector `q`. Immutable once built; [`RobotData`](crate::RobotData) holds what a query
//! writes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use signorini_geometry::{Aabb, Pose, Shape};
use signorini_model::model::shape_rbound;
use signorini_model::spec::{EqualitySpec, JointKind};
use signorini_urdf::{LoadedUrdf, MeshGeometry, Srdf, UrdfOptions, load_srdf, load_urdf};

use crate::error::{Result, RobotError};
use crate::kinematics::{Chain, Coordinate, Link, Motion};

/// How to build a [`RobotModel`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RobotOptions {
    /// Mesh collision geometry as the triangle mesh (Coal's BVH model: unsigned distance, 0 when the surfaces cross)
    /// or as its convex hull (signed distance, negative penetration). Default: the hull.
    pub geometry: MeshGeometry,
    /// ROS package folders for `package://` mesh names (see [`UrdfOptions::package_dirs`]).
    pub package_dirs: Vec<(String, PathBuf)>,
    /// The joints of `q`, in order. `None`: every movable joint that is neither locked nor a mimic, depth-first.
    pub joint_names: Option<Vec<String>>,
    /// Joints held at a value (rad or m), within their limits; their links move rigidly with their parents.
    pub locked_joints: Vec<(String, f64)>,
}

/// One collision geometry of the robot.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotGeom {
    /// `<link>_<k>`: `k` is the index of the `<collision>` element in its link.
    pub name: String,
    /// The link (index into [`RobotModel::link_names`]).
    pub link: usize,
    /// The geometry frame in the link frame (the `<collision>` origin).
    pub local: Pose,
    /// The shape in the geometry frame.
    pub shape: Shape,
    /// The shape's box in the geometry frame.
    pub(crate) local_box: Aabb,
    /// Radius of a ball about the link origin that holds the shape.
    pub(crate) link_radius: f64,
}

/// A robot as a collision model over joint configurations (see the crate docs for the conventions).
#[derive(Debug, Clone, PartialEq)]
pub struct RobotModel {
    name: String,
    pub(crate) chain: Chain,
    joint_names: Vec<String>,
    limits: Vec<[f64; 2]>,
    pub(crate) geoms: Vec<RobotGeom>,
    pub(crate) pairs: Vec<[usize; 2]>,
    /// Per pair, the motion-bound weight of each variable (see `motion.rs`).
    pub(crate) motion_weights: Vec<Vec<(usize, f64)>>,
    geometry: MeshGeometry,
}

impl RobotModel {
    /// Loads `urdf` (and the SRDF `srdf`, whose `disable_collisions` pairs are not checked).
    pub fn from_files(urdf: &Path, srdf: Option<&Path>, options: &RobotOptions) -> Result<RobotModel> {
        let loaded = load_urdf(
            urdf,
            &UrdfOptions {
                floating_base: false,
                package_dirs: options.package_dirs.clone(),
                mesh_geometry: options.geometry,
            },
        )?;
        let srdf = srdf.map(|p| load_srdf(p, &loaded)).transpose()?;
        RobotModel::new(&loaded, srdf.as_ref(), options)
    }

    /// The model of a loaded URDF (loaded with the same [`RobotOptions::geometry`] as `options` says) and its SRDF.
    pub fn new(urdf: &LoadedUrdf, srdf: Option<&Srdf>, options: &RobotOptions) -> Result<RobotModel> {
        let spec = &urdf.spec;
        // Joints as the spec numbers them (body order), with their link.
        let mut joints: Vec<(usize, &signorini_model::spec::JointSpec)> = Vec::new();
        for (b, body) in spec.bodies.iter().enumerate().skip(1) {
            for j in &body.joints {
                joints.push((b - 1, j));
            }
        }
        if let Some((_, j)) =
            joints.iter().find(|(_, j)| !matches!(j.kind, JointKind::Hinge | JointKind::Slide))
        {
            return Err(RobotError::NotSupported {
                what: format!(
                    "joint `{}` of kind {:?} (only revolute, continuous, prismatic, fixed)",
                    j.name, j.kind
                ),
            });
        }
        let movable: Vec<&str> = joints.iter().map(|(_, j)| j.name.as_str()).collect();
        let known = || movable.join(", ");
        let index_of = |name: &str, context: &'static str| {
            movable.iter().position(|&n| n == name).ok_or_else(|| RobotError::UnknownJoint {
                context,
                name: name.to_string(),
                known: known(),
            })
        };
        let mut mimic: HashMap<usize, (usize, f64, f64)> = HashMap::new();
        for e in &spec.equalities {
            if let EqualitySpec::Joint { joint1, joint2: Some(joint2), polycoef, .. } = e {
                mimic.insert(*joint1, (*joint2, polycoef[1], polycoef[0]));
            }
        }
        let mut coordinate: Vec<Option<Coordinate>> = vec![None; joints.len()];
        for (name, value) in &options.locked_joints {
            let j = index_of(name, "locked_joints")?;
            if coordinate[j].is_some() {
                return Err(RobotError::DuplicateJoint { name: name.clone(), context: "locked_joints" });
            }
            if let Some([lower, upper]) = joints[j].1.range
                && !(*value >= lower && *value <= upper)
            {
                return Err(RobotError::LockedOutOfLimits {
                    name: name.clone(),
                    value: *value,
                    lower,
                    upper,
                });
            }
            coordinate[j] = Some(Coordinate::Constant(*value));
        }
        let variables: Vec<usize> = match &options.joint_names {
            Some(names) => names.iter().map(|n| index_of(n, "joint_names")).collect::<Result<_>>()?,
            None => {
                (0..joints.len()).filter(|j| coordinate[*j].is_none() && !mimic.contains_key(j)).collect()
            }
        };
        for (v, &j) in variables.iter().enumerate() {
            if coordinate[j].is_some() {
                let context =
                    if variables[..v].contains(&j) { "joint_names" } else { "joint_names and locked_joints" };
                return Err(RobotError::DuplicateJoint { name: movable[j].to_string(), context });
            }
            coordinate[j] = Some(Coordinate::Variable { variable: v, multiplier: 1.0, offset: 0.0 });
        }
        // Mimics follow their joint (a chain of mimics resolves in at most `joints.len()` rounds).
        for _ in 0..joints.len() {
            for (&j, &(of, multiplier, offset)) in &mimic {
                if coordinate[j].is_some() {
                    continue;
                }
                coordinate[j] = match coordinate[of] {
                    Some(Coordinate::Constant(c)) => Some(Coordinate::Constant(offset + multiplier * c)),
                    Some(Coordinate::Variable { variable, multiplier: m, offset: o }) => {
                        Some(Coordinate::Variable {
                            variable,
                            multiplier: multiplier * m,
                            offset: offset + multiplier * o,
                        })
                    }
                    None => None,
                };
            }
        }
        if let Some(j) = coordinate.iter().position(Option::is_none) {
            return Err(RobotError::UnassignedJoint { name: movable[j].to_string() });
        }
        let limits = variables
            .iter()
            .map(|&j| joints[j].1.range.unwrap_or([-std::f64::consts::PI, std::f64::consts::PI]))
            .collect();

        let mut links = Vec::with_capacity(spec.bodies.len() - 1);
        let mut joint_of_link: Vec<Option<usize>> = vec![None; spec.bodies.len() - 1];
        for (j, (l, _)) in joints.iter().enumerate() {
            joint_of_link[*l] = Some(j);
        }
        for (b, body) in spec.bodies.iter().enumerate().skip(1) {
            let (motion, coord) = match joint_of_link[b - 1] {
                None => (Motion::Fixed, Coordinate::Constant(0.0)),
                Some(j) => {
                    let spec_joint = joints[j].1;
                    let motion = match spec_joint.kind {
                        JointKind::Slide => Motion::Prismatic { axis: spec_joint.axis },
                        _ => Motion::Revolute { axis: spec_joint.axis },
                    };
                    (motion, coordinate[j].expect("every joint was assigned above"))
                }
            };
            links.push(Link {
                name: body.name.clone(),
                parent: (body.parent != 0).then(|| body.parent - 1),
                placement: Pose { translation: body.pos, rotation: body.quat },
                motion,
                coordinate: coord,
            });
        }
        let chain = Chain::new(links);

        let mut geoms = Vec::new();
        for (b, body) in spec.bodies.iter().enumerate().skip(1) {
            for (k, g) in body.geoms.iter().enumerate() {
                let local = Pose { translation: g.pos, rotation: g.quat };
                geoms.push(RobotGeom {
                    name: format!("{}_{k}", body.name),
                    link: b - 1,
                    local,
                    shape: g.shape.clone(),
                    local_box: g.shape.local_aabb(),
                    link_radius: g.pos.length() + shape_rbound(&g.shape),
                });
            }
        }
        let acm = srdf.map(|s| s.acm(|n| urdf.body_index(n))).transpose()?;
        // Links that move rigidly together (through fixed or locked joints) are never checked against each other.
        let rigid_root = |mut l: usize| {
            while !chain.links[l].moves_with_q() {
                match chain.links[l].parent {
                    Some(p) => l = p,
                    None => break,
                }
            }
            l
        };
        let mut pairs = Vec::new();
        for a in 0..geoms.len() {
            for b in a + 1..geoms.len() {
                let (la, lb) = (geoms[a].link, geoms[b].link);
                if rigid_root(la) == rigid_root(lb)
                    || acm.as_ref().is_some_and(|m| m.is_disabled(la + 1, lb + 1))
                {
                    continue;
                }
                pairs.push([a, b]);
            }
        }
        let mut model = RobotModel {
            name: spec.name.clone(),
            chain,
            joint_names: variables.iter().map(|&j| movable[j].to_string()).collect(),
            limits,
            geoms,
            pairs,
            motion_weights: Vec::new(),
            geometry: options.geometry,
        };
        model.motion_weights = model.pair_motion_weights();
        Ok(model)
    }

    /// The robot's name (`<robot name>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of configuration variables (entries of `q`).
    pub fn nq(&self) -> usize {
        self.joint_names.len()
    }

    /// The joints of `q`, in order.
    pub fn joint_names(&self) -> &[String] {
        &self.joint_names
    }

    /// `[lower, upper]` of each entry of `q` (URDF limits; `[-π, π]` for continuous joints).
    pub fn joint_limits(&self) -> &[[f64; 2]] {
        &self.limits
    }

    /// Link names, depth-first from the root link (the order of [`RobotGeom::link`]).
    pub fn link_names(&self) -> impl Iterator<Item = &str> {
        self.chain.links.iter().map(|l| l.name.as_str())
    }

    /// The collision geometries, in URDF order (depth-first links, `<collision>` elements in order).
    pub fn geoms(&self) -> &[RobotGeom] {
        &self.geoms
    }

    /// The enabled geometry pairs `[a, b]`, `a < b`, in order of `a` then `b`: pairs on links that can move relative
    /// to each other and that the SRDF does not disable.
    pub fn pairs(&self) -> &[[usize; 2]] {
        &self.pairs
    }

    /// Whether mesh geometry is the triangle mesh or its hull.
    pub fn geometry(&self) -> MeshGeometry {
        self.geometry
    }

    /// Checks a configuration: `nq` finite entries. `index` names it in errors (its place in a batch).
    pub fn check_configuration(&self, q: &[f64], index: usize) -> Result<()> {
        if q.len() != self.nq() {
            return Err(RobotError::ConfigurationLength {
                index,
                expected: self.nq(),
                got: q.len(),
                names: self.joint_names.join(", "),
            });
        }
        if let Some(j) = q.iter().position(|v| !v.is_finite()) {
            return Err(RobotError::NonFiniteConfiguration {
                index,
                joint: j,
                name: self.joint_names[j].clone(),
                value: q[j],
            });
        }
        Ok(())
    }
}
