//! `<worldbody>`: the kinematic tree. Bodies are numbered depth-first in document order (world = 0), joints and
//! geoms in body order, as MuJoCo numbers them; a body's joints, geoms and sites come before its child bodies'.
//! `<frame>` and `<replicate>` are flattened into their bodies as they are read ([`crate::frame`]).

use std::collections::HashMap;

use glam::{DQuat, DVec3};
use signorini_model::spec::{BodySpec, JointKind, JointSpec, SleepPolicy};

use crate::compile_inertia::{self, GeomMass, InertiaSource, ZERO_INERTIAL};
use crate::error::{Location, MjcfError, Result};
use crate::frame::{self, Placement};
use crate::geom;
use crate::joint;
use crate::orientation;
use crate::replicated::Replicas;
use crate::schema;
use crate::{Ctx, UnwrittenSolref};
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// A joint in model order.
#[derive(Debug, Clone)]
pub struct JointInfo {
    /// Kind.
    pub kind: JointKind,
    /// Range, when limited.
    pub range: Option<[f64; 2]>,
}

/// The kinematic tree being built, with the name tables the later sections look names up in.
#[derive(Debug, Clone)]
pub struct Tree {
    /// Bodies; 0 is the world.
    pub bodies: Vec<BodySpec>,
    /// Per body, what its inertia is compiled from.
    pub inertia: Vec<InertiaSource>,
    /// Joints in model order.
    pub joints: Vec<JointInfo>,
    /// Body index by name.
    pub body_names: HashMap<String, usize>,
    /// Joint index by name.
    pub joint_names: HashMap<String, usize>,
    /// `(body, geom within body)` by geom name.
    pub geom_names: HashMap<String, (usize, usize)>,
    /// `(body, site within body)` by site name.
    pub site_names: HashMap<String, (usize, usize)>,
    /// The volume of each site `(body, site within body)` whose size is valid (for touch sensors).
    pub site_shapes: HashMap<(usize, usize), signorini_geometry::Shape>,
    /// The geoms and joints whose `solref`, `solreflimit` or `solreffriction` the file does not write.
    pub unwritten: UnwrittenSolref,
    /// The names made inside `<replicate>`s, for the elements that refer to them.
    pub replicas: Replicas,
    /// Per body (filled as bodies are completed): whether it or an ancestor has a joint.
    moving: Vec<bool>,
}

/// Body children that are accepted but not simulated.
const NOT_SIMULATED: &[&str] = &["camera", "light"];
/// MuJoCo body children that signorini does not support.
const UNSUPPORTED: &[&str] = &["composite", "flexcomp", "attach", "plugin"];

impl Default for Tree {
    fn default() -> Self {
        Tree {
            bodies: vec![BodySpec {
                name: "world".into(),
                parent: 0,
                pos: DVec3::ZERO,
                quat: DQuat::IDENTITY,
                inertial: ZERO_INERTIAL,
                joints: Vec::new(),
                geoms: Vec::new(),
                sites: Vec::new(),
                mocap: false,
                gravcomp: 0.0,
                sleep: Default::default(),
            }],
            inertia: vec![InertiaSource::default()],
            joints: Vec::new(),
            body_names: HashMap::from([("world".to_string(), 0)]),
            joint_names: HashMap::new(),
            geom_names: HashMap::new(),
            site_names: HashMap::new(),
            site_shapes: HashMap::new(),
            unwritten: UnwrittenSolref::default(),
            replicas: Replicas::default(),
            moving: vec![false],
        }
    }
}

fn check_unique<V>(map: &HashMap<String, V>, name: &str, e: &Element, kind: &'static str) -> Result<()> {
    if !name.is_empty() && map.contains_key(name) {
        return Err(MjcfError::DuplicateName {
            at: e.attribute("name").map_or(e.at.clone(), |a| a.at.clone()),
            element: e.name.clone(),
            kind,
            name: name.to_string(),
        });
    }
    Ok(())
}

impl Tree {
    /// Reads one `<worldbody>` section (several add to the same world).
    ///
    /// Bodies are numbered in depth-first pre-order (a body before its children, siblings in file order), as MuJoCo
    /// numbers them. The traversal keeps its pending bodies on a heap stack, not the call stack, so nesting depth
    /// costs no thread stack (the XML reader bounds it at `signorini_xml::element::MAX_DEPTH`).
    pub fn add_worldbody(&mut self, e: &Element, ctx: &Ctx<'_>) -> Result<()> {
        e.check_attributes(&[])?;
        let placed = frame::placed_children(e, &Placement::body(0, "", None), ctx)?;
        // Pending bodies, last first (popped from the stack, they come out in file order).
        let mut pending: Vec<(&Element, usize, Placement)> =
            self.add_children(e, &placed, 0, ctx)?.into_iter().rev().map(|(c, p)| (c, 0, p)).collect();
        while let Some((child, parent, placement)) = pending.pop() {
            let (index, inside) = self.add_body(child, parent, &placement, ctx)?;
            let placed = frame::placed_children(child, &inside, ctx)?;
            let bodies = self.add_children(child, &placed, index, ctx)?;
            pending.extend(bodies.into_iter().rev().map(|(c, p)| (c, index, p)));
        }
        Ok(())
    }

    /// Whether a body, joint, geom or site is named `name`.
    pub fn has_name(&self, name: &str) -> bool {
        self.body_names.contains_key(name)
            || self.joint_names.contains_key(name)
            || self.geom_names.contains_key(name)
            || self.site_names.contains_key(name)
    }

    /// The model-order index (sites numbered body by body) of the site named `name`.
    pub fn site_index(&self, name: &str) -> Option<usize> {
        let &(body, k) = self.site_names.get(name)?;
        Some(self.bodies[..body].iter().map(|b| b.sites.len()).sum::<usize>() + k)
    }

    /// Number of position and velocity coordinates.
    pub fn dims(&self) -> (usize, usize) {
        self.joints.iter().fold((0, 0), |(q, v), j| {
            let (dq, dv) = joint::dims(j.kind);
            (q + dq, v + dv)
        })
    }

    /// Adds the placed children of body `e` (index `body`) except its child bodies, which it returns with their
    /// placements in file order.
    fn add_children<'a>(
        &mut self,
        e: &Element,
        placed: &[(&'a Element, Placement)],
        body: usize,
        ctx: &Ctx<'_>,
    ) -> Result<Vec<(&'a Element, Placement)>> {
        let mut inertial_seen: Option<&Location> = None;
        let mut plane: Option<&Element> = None;
        let mut bodies = Vec::new();
        for (child, placement) in placed {
            let (child, class) = (*child, placement.class);
            match child.name.as_str() {
                "body" => bodies.push((child, placement.clone())),
                "geom" => {
                    let geom_class = ctx.defaults.resolve(child, class)?;
                    let mut g = geom::read_geom(child, geom_class, ctx)?;
                    (g.spec.pos, g.spec.quat) = placement.pose(g.spec.pos, g.spec.quat);
                    g.spec.name = self.replicas.name(&g.spec.name, placement);
                    if !Attrs::new(child, ctx.defaults.layers(geom_class, "geom")).has("solref") {
                        self.unwritten.geoms.push((body, self.bodies[body].geoms.len()));
                    }
                    if matches!(
                        g.spec.shape,
                        signorini_geometry::Shape::Plane(_) | signorini_geometry::Shape::HeightField(_)
                    ) {
                        plane = plane.or(Some(child));
                    }
                    check_unique(&self.geom_names, &g.spec.name, child, "geom")?;
                    if !g.spec.name.is_empty() {
                        self.geom_names.insert(g.spec.name.clone(), (body, self.bodies[body].geoms.len()));
                    }
                    self.inertia[body].geoms.push(GeomMass {
                        pos: g.spec.pos,
                        quat: g.spec.quat,
                        props: g.props,
                        group: g.group,
                        primitive: g.primitive,
                        unit: g.unit,
                    });
                    self.bodies[body].geoms.push(g.spec);
                }
                "site" => {
                    let site = geom::read_site(child, ctx.defaults.resolve(child, class)?, ctx)?;
                    let (pos, quat) = placement.pose(site.pos, site.quat);
                    let s = (self.replicas.name(&site.name, placement), pos, quat);
                    check_unique(&self.site_names, &s.0, child, "site")?;
                    let at = (body, self.bodies[body].sites.len());
                    if !s.0.is_empty() {
                        self.site_names.insert(s.0.clone(), at);
                    }
                    if let Some(shape) = site.shape {
                        self.site_shapes.insert(at, shape);
                    }
                    self.bodies[body].sites.push(s);
                }
                "joint" | "freejoint" if body != 0 => {
                    let (mut j, written) = if child.name == "joint" {
                        let joint_class = ctx.defaults.resolve(child, class)?;
                        let a = Attrs::new(child, ctx.defaults.layers(joint_class, "joint"));
                        let written = [a.has("solreflimit"), a.has("solreffriction")];
                        (joint::read_joint(child, joint_class, ctx)?, written)
                    } else {
                        (joint::read_freejoint(child)?, [false; 2])
                    };
                    j.pos = placement.pose(j.pos, DQuat::IDENTITY).0;
                    if matches!(j.kind, JointKind::Hinge | JointKind::Slide) {
                        // Turned by the frames, then scaled to unit length, as MuJoCo's compiler does (a free or
                        // ball joint keeps +z).
                        let axis = placement.direction(j.axis);
                        j.axis =
                            signorini_model::model::unit_axis(axis).ok_or_else(|| MjcfError::Invalid {
                                at: child.at.clone(),
                                element: child.name.clone(),
                                reason: "the axis has zero length after its frames' rotation".into(),
                            })?;
                    }
                    j.name = self.replicas.name(&j.name, placement);
                    let at = (body, self.bodies[body].joints.len());
                    if !written[0] {
                        self.unwritten.joint_limits.push(at);
                    }
                    if !written[1] {
                        self.unwritten.joint_frictions.push(at);
                    }
                    self.add_joint(child, body, j)?;
                }
                "inertial" if body != 0 => {
                    if let Some(first) = inertial_seen {
                        return Err(MjcfError::Invalid {
                            at: child.at.clone(),
                            element: "inertial".into(),
                            reason: format!("a body has at most one <inertial> (first at {first})"),
                        });
                    }
                    inertial_seen = Some(&child.at);
                    self.inertia[body].explicit = Some(compile_inertia::read_inertial(child, ctx.compiler)?);
                }
                n if NOT_SIMULATED.contains(&n) => {}
                n if UNSUPPORTED.contains(&n) => {
                    return Err(child.not_supported(format!("<{n}> in a body")).into());
                }
                _ => return Err(e.unknown_child(child).into()),
            }
        }
        if body != 0 {
            let b = &self.bodies[body];
            if b.mocap && !b.joints.is_empty() {
                let at = placed.iter().find(|(c, _)| c.name.ends_with("joint")).map_or(&e.at, |(c, _)| &c.at);
                return Err(MjcfError::Invalid {
                    at: at.clone(),
                    element: "joint".into(),
                    reason: "a mocap body cannot have joints (its pose is set from outside)".into(),
                });
            }
            let moving = self.moving[b.parent] || !b.joints.is_empty() || b.mocap;
            self.moving.push(moving);
        }
        if let (true, Some(p)) = (self.moving[body], plane) {
            return Err(MjcfError::Invalid {
                at: p.at.clone(),
                element: "geom".into(),
                reason: "a plane or height field is only allowed in a body that does not move (no joints up to the \
                         world)"
                    .into(),
            });
        }
        Ok(bodies)
    }

    fn add_joint(&mut self, e: &Element, body: usize, j: JointSpec) -> Result<()> {
        check_unique(&self.joint_names, &j.name, e, "joint")?;
        if !j.name.is_empty() {
            self.joint_names.insert(j.name.clone(), self.joints.len());
        }
        self.joints.push(JointInfo { kind: j.kind, range: j.range });
        self.bodies[body].joints.push(j);
        Ok(())
    }

    /// Adds body `e` under `parent`, placed by `placement` (the frames and replicates around it), without its
    /// children; returns its index and the placement of its own children (its class and name suffix).
    fn add_body(
        &mut self,
        e: &Element,
        parent: usize,
        placement: &Placement,
        ctx: &Ctx<'_>,
    ) -> Result<(usize, Placement)> {
        e.check_attributes(schema::BODY)?;
        let a = Attrs::own(e);
        let mocap = a.bool("mocap")?.unwrap_or(false);
        if mocap && parent != 0 {
            return Err(a.invalid_named("mocap", "a mocap body must be a child of the world body").into());
        }
        let gravcomp = a.f64_or("gravcomp", 0.0)?;
        let policies = [
            ("auto", SleepPolicy::Auto),
            ("never", SleepPolicy::Never),
            ("allowed", SleepPolicy::Allowed),
            ("init", SleepPolicy::Init),
        ];
        let sleep = a.keyword("sleep", &policies)?.unwrap_or_default();
        if sleep != SleepPolicy::Auto && parent != 0 {
            return Err(a
                .invalid_named("sleep", "a sleep policy belongs to a tree's root (a child of the world)")
                .into());
        }
        let name = self.replicas.name(a.str("name").unwrap_or_default(), placement);
        check_unique(&self.body_names, &name, e, "body")?;
        let class = match a.get("childclass") {
            Some(c) => ctx.defaults.class_of(e, "childclass", &c.value)?,
            None => placement.class,
        };
        let index = self.bodies.len();
        if !name.is_empty() {
            self.body_names.insert(name.clone(), index);
        }
        let (pos, quat) = placement
            .pose(DVec3::from_array(a.array_or::<3>("pos", [0.0; 3])?), orientation::read(&a, ctx.compiler)?);
        self.bodies.push(BodySpec {
            name,
            parent,
            pos,
            quat,
            inertial: ZERO_INERTIAL,
            joints: Vec::new(),
            geoms: Vec::new(),
            sites: Vec::new(),
            mocap,
            gravcomp,
            sleep,
        });
        self.inertia.push(InertiaSource { frame: (pos, quat), at: Some(e.at.clone()), ..Default::default() });
        Ok((index, Placement::body(class, &placement.suffix, placement.group.clone())))
    }

    /// Compiles the inertias and fills `inertial` of every body and `mass` of every geom.
    pub fn compile_inertia(&mut self, ctx: &Ctx<'_>) -> Result<()> {
        let (inertials, masses) = compile_inertia::compile(&self.inertia, ctx.compiler)?;
        for ((body, inertial), masses) in self.bodies.iter_mut().zip(inertials).zip(masses) {
            body.inertial = inertial;
            for (g, m) in body.geoms.iter_mut().zip(masses) {
                g.mass = m;
            }
        }
        Ok(())
    }

    /// The body named by attribute `attribute` of `e`.
    pub fn body(&self, a: &Attrs<'_>, attribute: &str) -> Result<Option<usize>> {
        lookup(&self.body_names, a, attribute, "body")
    }

    /// The joint named by attribute `attribute` of `e`.
    pub fn joint(&self, a: &Attrs<'_>, attribute: &str) -> Result<Option<usize>> {
        lookup(&self.joint_names, a, attribute, "joint")
    }

    /// The geom named by attribute `attribute` of `e`.
    pub fn geom(&self, a: &Attrs<'_>, attribute: &str) -> Result<Option<(usize, usize)>> {
        lookup(&self.geom_names, a, attribute, "geom")
    }
}

fn lookup<V: Copy>(
    map: &HashMap<String, V>,
    a: &Attrs<'_>,
    attribute: &str,
    kind: &'static str,
) -> Result<Option<V>> {
    let Some(attr) = a.get(attribute) else {
        return Ok(None);
    };
    map.get(&attr.value).copied().map(Some).ok_or_else(|| MjcfError::UndefinedName {
        at: attr.at.clone(),
        element: a.element().to_string(),
        attribute: attribute.into(),
        kind,
        name: attr.value.clone(),
    })
}
