//! `<geom>` and `<site>`: shape, frame (`pos` + orientation, or `fromto`), contact parameters and mass.
//!
//! Sizes per type (MuJoCo's): sphere `r`; capsule and cylinder `r h` (half-length); box `hx hy hz`; ellipsoid
//! `a b c`; plane: rendering only; mesh: none. `fromto="x1 y1 z1 x2 y2 z2"` (capsule, cylinder, box, ellipsoid)
//! centres the geom on the segment's midpoint with its z axis along `from − to` (MuJoCo's `mjuu_z2quat` of that
//! vector) and sets the half-length: `size[1]` for capsule and cylinder; for box and ellipsoid `size[2]`, with
//! `size[1] = size[0]`. It replaces the orientation; a non-zero `pos` with it is an error. Planes are only allowed in
//! bodies that do not move (no joint in the body or its ancestors). Mass: `mass` when given (the density is then ignored), else `density` (default 1000 kg/m³) times the
//! volume; planes have none.

use glam::{DQuat, DVec3};
use signorini_geometry::{Capsule, Cuboid, Cylinder, Ellipsoid, MassProperties, Plane, Shape, Sphere};
use signorini_model::spec::{DEFAULT_SOLIMP, DEFAULT_SOLREF, GeomSpec};

use crate::Ctx;
use crate::assets::MeshShape;
use crate::error::{MjcfError, Result};
use crate::orientation;
use crate::schema;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;
use signorini_xml::orientation::z2quat;

/// MuJoCo's default geom density (kg/m³).
pub const DEFAULT_DENSITY: f64 = 1000.0;
/// MuJoCo's default geom friction `(sliding, torsional, rolling)`.
pub const DEFAULT_FRICTION: [f64; 3] = [1.0, 0.005, 0.0001];

/// A geom as read, before the body's inertia is compiled.
#[derive(Debug, Clone)]
pub struct ParsedGeom {
    /// The geom (its `mass` is filled by inertia compilation).
    pub spec: GeomSpec,
    /// `group` (selects the geoms that contribute to inertia).
    pub group: i64,
    /// Mass properties in the geom frame (zero for planes and massless geoms).
    pub props: MassProperties,
    /// Whether the shape is a primitive, whose inertia is diagonal about the geom origin.
    pub primitive: bool,
    /// A mesh's unit-density mass properties (mass = volume) as its asset compiled them.
    pub unit: Option<MassProperties>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GeomType {
    Plane,
    Sphere,
    Capsule,
    Ellipsoid,
    Cylinder,
    Box,
    Mesh,
    HeightField,
    Sdf,
}

/// The frame of `fromto`: midpoint, `z2quat` of `from − to` scaled to unit length as `mjuu_normvec` scales it
/// (MuJoCo's compiler turns the unit direction, not the difference), half-length (`0` when the points coincide).
pub fn fromto_frame(v: [f64; 6]) -> (DVec3, DQuat, f64) {
    let from = DVec3::new(v[0], v[1], v[2]);
    let to = DVec3::new(v[3], v[4], v[5]);
    let vec = from - to;
    let direction = signorini_model::model::unit_axis(vec).unwrap_or(vec);
    ((from + to) * 0.5, z2quat(direction), vec.length() * 0.5)
}

/// Reads a `<geom>` of default class `class`.
pub fn read_geom(e: &Element, class: usize, ctx: &Ctx<'_>) -> Result<ParsedGeom> {
    e.check_attributes(schema::GEOM)?;
    if let Some(c) = e.children.first() {
        return Err(e.unknown_child(c).into());
    }
    let a = Attrs::new(e, ctx.defaults.layers(class, "geom"));
    let types = [
        ("plane", GeomType::Plane),
        ("sphere", GeomType::Sphere),
        ("capsule", GeomType::Capsule),
        ("ellipsoid", GeomType::Ellipsoid),
        ("cylinder", GeomType::Cylinder),
        ("box", GeomType::Box),
        ("mesh", GeomType::Mesh),
        ("hfield", GeomType::HeightField),
        ("sdf", GeomType::Sdf),
    ];
    let ty = match a.keyword("type", &types)? {
        Some(t) => t,
        None if a.has("mesh") => GeomType::Mesh,
        None => GeomType::Sphere,
    };
    match ty {
        GeomType::Sdf => {
            return Err(a.unsupported(Some("type"), "SDF geoms (not yet)").into());
        }
        GeomType::Mesh | GeomType::HeightField => {}
        _ if a.has("mesh") => {
            return Err(a
                .unsupported(Some("mesh"), "fitting a primitive geom to a mesh; use type=\"mesh\"")
                .into());
        }
        _ => {}
    }
    if a.bool("shellinertia")? == Some(true) {
        return Err(a.unsupported(Some("shellinertia"), "shell inertia").into());
    }
    let fluid = match a.keyword("fluidshape", &[("none", false), ("ellipsoid", true)])? {
        Some(true) => {
            if matches!(ty, GeomType::Plane | GeomType::HeightField) {
                return Err(a
                    .invalid_named("fluidshape", "a plane or height field has no fluid ellipsoid")
                    .into());
            }
            Some(a.partial::<5>("fluidcoef", signorini_model::fluid::DEFAULT_FLUIDCOEF)?)
        }
        _ => None,
    };
    if a.has("hfield") && ty != GeomType::HeightField {
        return Err(a.invalid_named("hfield", "an hfield is only used by a geom of type=\"hfield\"").into());
    }

    let mut size = a.partial::<3>("size", [0.0; 3])?;
    let (pos, quat) = match a.array::<6>("fromto")? {
        Some(v) => {
            let slot = match ty {
                GeomType::Capsule | GeomType::Cylinder => 1,
                GeomType::Box | GeomType::Ellipsoid => 2,
                _ => {
                    return Err(a
                        .invalid_named(
                            "fromto",
                            "fromto is only defined for capsule, cylinder, box and ellipsoid geoms",
                        )
                        .into());
                }
            };
            let (p, q, half) = fromto_frame(v);
            if !(half >= 1e-14) {
                return Err(a.invalid_named("fromto", "the two points coincide").into());
            }
            if a.array_or::<3>("pos", [0.0; 3])? != [0.0; 3] {
                return Err(a.invalid_named("pos", "pos and fromto cannot both be given").into());
            }
            if slot == 2 {
                size[1] = size[0];
            }
            size[slot] = half;
            (p, q)
        }
        None => (DVec3::from_array(a.array_or::<3>("pos", [0.0; 3])?), orientation::read(&a, ctx.compiler)?),
    };
    let shape = shape_of(ty, size, &a, ctx)?;

    let condim = a.int_in("condim", 3, 1, 6)?;
    if ![1, 3, 4, 6].contains(&condim) {
        return Err(a.invalid_named("condim", "must be 1, 3, 4 or 6").into());
    }
    let bitmask = |name: &str| -> Result<u32> { Ok(a.int_in(name, 1, 0, u32::MAX as i64)? as u32) };
    let friction = a.partial::<3>("friction", DEFAULT_FRICTION)?;
    if friction.iter().any(|f| *f < 0.0) {
        return Err(a.invalid_named("friction", "friction coefficients must be >= 0").into());
    }
    let spec = GeomSpec {
        name: a.str("name").unwrap_or_default().to_string(),
        shape,
        pos,
        quat,
        contype: bitmask("contype")?,
        conaffinity: bitmask("conaffinity")?,
        condim: condim as u8,
        friction,
        solref: a.partial::<2>("solref", DEFAULT_SOLREF)?,
        solimp: a.partial::<5>("solimp", DEFAULT_SOLIMP)?,
        solmix: a.nonneg_or("solmix", 1.0)?,
        priority: a.int_in("priority", 0, i32::MIN as i64, i32::MAX as i64)? as i32,
        margin: a.nonneg_or("margin", 0.0)?,
        gap: a.nonneg_or("gap", 0.0)?,
        adhesion: a.f64_or("adhesion", 0.0)?,
        mass: 0.0,
        fluid,
        surfacevel: a.partial::<6>("surfacevel", [0.0; 6])?,
        // MuJoCo's ray casts skip a geom whose material (when it has one) or rgba has alpha 0.
        visible: match a.str("material").and_then(|m| ctx.assets.material_alpha(m)) {
            Some(alpha) => alpha != 0.0,
            None => a.array_or::<4>("rgba", [0.5, 0.5, 0.5, 1.0])?[3] != 0.0,
        },
        plane_extent: if ty == GeomType::Plane { [size[0], size[1]] } else { [0.0; 2] },
    };
    if spec.contype | spec.conaffinity != 0
        && let Some(reason) = ctx.assets.flat_mesh_reason(&spec.shape)
    {
        return Err(a.invalid_named("mesh", reason).into());
    }
    let props = mass_of(&spec.shape, &a, ctx)?;
    let unit = mesh_unit(&spec.shape, &a, ctx);
    Ok(ParsedGeom { group: a.int("group")?.unwrap_or(0), primitive: ty != GeomType::Mesh, props, spec, unit })
}

fn shape_of(ty: GeomType, size: [f64; 3], a: &Attrs<'_>, ctx: &Ctx<'_>) -> Result<Shape> {
    let kind = a.str("type").unwrap_or("sphere");
    let need = |k: usize, what: &str| -> Result<f64> {
        if size[k] > 0.0 {
            Ok(size[k])
        } else if !a.has("size") {
            Err(a.missing("size", format!("a {kind} geom needs {what}")).into())
        } else {
            Err(a.invalid_named("size", format!("{what} (size[{k}]) must be > 0")).into())
        }
    };
    let geometry = |source| MjcfError::Geometry {
        at: a.get("size").map_or(a.at(), |s| &s.at).clone(),
        element: a.element().to_string(),
        attribute: Some("size".into()),
        source,
    };
    Ok(match ty {
        GeomType::Plane => Plane::half_space().into(),
        GeomType::Sphere => Sphere::new(need(0, "the radius")?).map_err(geometry)?.into(),
        GeomType::Capsule => Capsule::new(need(0, "the radius")?, need(1, "the half-length or fromto")?)
            .map_err(geometry)?
            .into(),
        GeomType::Cylinder => Cylinder::new(need(0, "the radius")?, need(1, "the half-length or fromto")?)
            .map_err(geometry)?
            .into(),
        GeomType::Box => Cuboid::new(DVec3::new(
            need(0, "three half-sizes")?,
            need(1, "three half-sizes")?,
            need(2, "three half-sizes")?,
        ))
        .map_err(geometry)?
        .into(),
        GeomType::Ellipsoid => Ellipsoid::new(DVec3::new(
            need(0, "three semi-axes")?,
            need(1, "three semi-axes")?,
            need(2, "three semi-axes")?,
        ))
        .map_err(geometry)?
        .into(),
        GeomType::Mesh => {
            let m = a.get("mesh").ok_or_else(|| a.missing("mesh", "a mesh geom names its mesh asset"))?;
            let asset = ctx.assets.mesh(&m.value).ok_or_else(|| MjcfError::UndefinedName {
                at: m.at.clone(),
                element: a.element().to_string(),
                attribute: "mesh".into(),
                kind: "mesh",
                name: m.value.clone(),
            })?;
            match &asset.shape {
                MeshShape::Hull(hull) => Shape::ConvexMesh(hull.clone()),
                // Checked against the geom's contact bits by `read_geom`.
                MeshShape::Flat { mesh, .. } => Shape::TriangleMesh(mesh.clone()),
            }
        }
        GeomType::HeightField => {
            let h = a
                .get("hfield")
                .ok_or_else(|| a.missing("hfield", "an hfield geom names its hfield asset"))?;
            let asset = ctx.assets.hfield(&h.value).ok_or_else(|| MjcfError::UndefinedName {
                at: h.at.clone(),
                element: a.element().to_string(),
                attribute: "hfield".into(),
                kind: "hfield",
                name: h.value.clone(),
            })?;
            Shape::HeightField(asset.field.clone())
        }
        GeomType::Sdf => {
            return Err(a.unsupported(Some("type"), "SDF geoms (not yet)").into());
        }
    })
}

/// The unit-density mass properties of a mesh geom's asset (mass = volume), as the asset compiled them.
fn mesh_unit(shape: &Shape, a: &Attrs<'_>, ctx: &Ctx<'_>) -> Option<MassProperties> {
    match (shape, a.get("mesh")) {
        (Shape::ConvexMesh(_) | Shape::TriangleMesh(_), Some(m)) => {
            ctx.assets.mesh(&m.value).map(|asset| asset.unit)
        }
        _ => None,
    }
}

/// Mass properties of the geom in its own frame.
fn mass_of(shape: &Shape, a: &Attrs<'_>, ctx: &Ctx<'_>) -> Result<MassProperties> {
    // Planes and height fields sit in bodies that do not move (checked by the tree): no mass.
    if matches!(shape, Shape::Plane(_) | Shape::HeightField(_)) {
        return Ok(MassProperties::ZERO);
    }
    if let Some(volume) = primitive_volume(shape) {
        let mass = match a.f64("mass")? {
            Some(m) if m < 0.0 => return Err(a.invalid_named("mass", "must be >= 0").into()),
            Some(m) if m == 0.0 || volume <= 1e-14 => 0.0,
            Some(m) => m,
            None => a.nonneg_or("density", DEFAULT_DENSITY)? * volume,
        };
        return Ok(primitive_inertia(shape, mass));
    }
    let unit = match mesh_unit(shape, a, ctx) {
        Some(u) => u,
        None => MassProperties::from_density(shape, 1.0).map_err(|source| MjcfError::Geometry {
            at: a.at().clone(),
            element: a.element().to_string(),
            attribute: None,
            source,
        })?,
    };
    if let Some(m) = a.f64("mass")? {
        if m < 0.0 {
            return Err(a.invalid_named("mass", "must be >= 0").into());
        }
        return Ok(if m > 0.0 { unit.scaled(m / unit.mass) } else { MassProperties::ZERO });
    }
    let density = a.nonneg_or("density", DEFAULT_DENSITY)?;
    Ok(if density > 0.0 { unit.scaled(density) } else { MassProperties::ZERO })
}

/// A primitive's volume as MuJoCo's compiler computes it (`mjCGeom::GetVolume`), `None` for other shapes.
fn primitive_volume(shape: &Shape) -> Option<f64> {
    use std::f64::consts::PI;
    Some(match shape {
        Shape::Sphere(s) => {
            let r = s.radius();
            4.0 * PI * r * r * r / 3.0
        }
        Shape::Capsule(c) => {
            let (r, h) = (c.radius(), 2.0 * c.half_length());
            PI * (r * r * h + 4.0 * r * r * r / 3.0)
        }
        Shape::Cylinder(c) => {
            let (r, h) = (c.radius(), 2.0 * c.half_length());
            PI * r * r * h
        }
        Shape::Ellipsoid(e) => {
            let s = e.semi_axes();
            4.0 * PI * s.x * s.y * s.z / 3.0
        }
        Shape::Box(b) => {
            let s = b.half_extents();
            s.x * s.y * s.z * 8.0
        }
        _ => return None,
    })
}

/// A primitive's diagonal inertia about its centre for mass `mass`, in MuJoCo's arithmetic (`mjCGeom::SetInertia`,
/// volume inertia): the capsule as a cylinder and two hemispheres moved along its axis.
fn primitive_inertia(shape: &Shape, mass: f64) -> MassProperties {
    let i = match shape {
        Shape::Sphere(s) => DVec3::splat(2.0 * mass * s.radius() * s.radius() / 5.0),
        Shape::Capsule(c) => {
            let (r, h) = (c.radius(), 2.0 * c.half_length());
            let sphere_mass = mass * 4.0 * r / (4.0 * r + 3.0 * h);
            let cylinder_mass = mass - sphere_mass;
            let side = cylinder_mass * (3.0 * r * r + h * h) / 12.0;
            let axial = cylinder_mass * r * r / 2.0;
            let sphere = 2.0 * sphere_mass * r * r / 5.0;
            let side = side + (sphere + sphere_mass * h * (3.0 * r + 2.0 * h) / 8.0);
            DVec3::new(side, side, axial + sphere)
        }
        Shape::Cylinder(c) => {
            let (r, h) = (c.radius(), 2.0 * c.half_length());
            let side = mass * (3.0 * r * r + h * h) / 12.0;
            DVec3::new(side, side, mass * r * r / 2.0)
        }
        Shape::Ellipsoid(e) => {
            let s = e.semi_axes();
            let (s00, s11, s22) = (s.x * s.x, s.y * s.y, s.z * s.z);
            DVec3::new(mass * (s11 + s22) / 5.0, mass * (s00 + s22) / 5.0, mass * (s00 + s11) / 5.0)
        }
        Shape::Box(b) => {
            let s = b.half_extents();
            let (s00, s11, s22) = (s.x * s.x, s.y * s.y, s.z * s.z);
            DVec3::new(mass * (s11 + s22) / 3.0, mass * (s00 + s22) / 3.0, mass * (s00 + s11) / 3.0)
        }
        _ => DVec3::ZERO,
    };
    MassProperties { mass, com: DVec3::ZERO, inertia: glam::DMat3::from_diagonal(i) }
}

/// A `<site>`: its name, frame and shape.
#[derive(Debug, Clone)]
pub struct ParsedSite {
    /// Name (may be empty).
    pub name: String,
    /// Position in the body (or frame).
    pub pos: DVec3,
    /// Orientation in the body (or frame).
    pub quat: DQuat,
    /// The site's volume (its `type` and `size`; a touch sensor's zone), `None` when a size is not positive.
    pub shape: Option<Shape>,
}

/// Reads a `<site>` of default class `class`.
pub fn read_site(e: &Element, class: usize, ctx: &Ctx<'_>) -> Result<ParsedSite> {
    e.check_attributes(schema::SITE)?;
    if let Some(c) = e.children.first() {
        return Err(e.unknown_child(c).into());
    }
    let a = Attrs::new(e, ctx.defaults.layers(class, "site"));
    let types = [
        ("sphere", GeomType::Sphere),
        ("capsule", GeomType::Capsule),
        ("ellipsoid", GeomType::Ellipsoid),
        ("cylinder", GeomType::Cylinder),
        ("box", GeomType::Box),
    ];
    let ty = a.keyword("type", &types)?.unwrap_or(GeomType::Sphere);
    let mut size = a.partial::<3>("size", [0.005; 3])?;
    let (pos, quat) = match a.array::<6>("fromto")? {
        Some(v) => {
            let (p, q, half) = fromto_frame(v);
            if !(half >= 1e-14) {
                return Err(a.invalid_named("fromto", "the two points coincide").into());
            }
            if a.array_or::<3>("pos", [0.0; 3])? != [0.0; 3] {
                return Err(a.invalid_named("pos", "pos and fromto cannot both be given").into());
            }
            match ty {
                GeomType::Capsule | GeomType::Cylinder => size[1] = half,
                GeomType::Box | GeomType::Ellipsoid => (size[1], size[2]) = (size[0], half),
                _ => {}
            }
            (p, q)
        }
        None => (DVec3::from_array(a.array_or::<3>("pos", [0.0; 3])?), orientation::read(&a, ctx.compiler)?),
    };
    let shape = match ty {
        GeomType::Sphere => Sphere::new(size[0]).ok().map(Shape::from),
        GeomType::Capsule => Capsule::new(size[0], size[1]).ok().map(Shape::from),
        GeomType::Cylinder => Cylinder::new(size[0], size[1]).ok().map(Shape::from),
        GeomType::Box => Cuboid::new(DVec3::from_array(size)).ok().map(Shape::from),
        _ => Ellipsoid::new(DVec3::from_array(size)).ok().map(Shape::from),
    };
    Ok(ParsedSite { name: a.str("name").unwrap_or_default().to_string(), pos, quat, shape })
}
