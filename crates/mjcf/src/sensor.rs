//! `<sensor>`: the sensors `signorini_model::sensor` computes, in document order (the layout of `sensordata`).
//!
//! Every element takes `name`, `noise` (kept, never applied, as in MuJoCo), `cutoff` and `user` (not simulated).
//! Sensor history (`nsample`, `interp`, `delay`, `interval`), cameras as frames, and the sensor types signorini does
//! not compute (camprojection, distance/normal/fromto, contact, energies, tactile, insidesite, user and plugin
//! sensors; a rangefinder on a camera or with `data` other than `dist`) are `NotSupported` errors.

use std::collections::HashMap;

use glam::DVec3;
use signorini_model::sensor::{FrameQuantity, SensorFrame, SensorKind, SensorSpec};
use signorini_model::spec::{ActuatorSpec, TendonSpec};

use crate::error::{MjcfError, Result};
use crate::tree::Tree;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// MuJoCo's default `<option magnetic>` (T).
pub const DEFAULT_MAGNETIC: [f64; 3] = [0.0, -0.5, 0.0];

/// Attributes every sensor takes.
const COMMON: &[&str] = &["name", "noise", "cutoff", "user", "nsample", "interp", "interval", "delay"];

/// Sensor types MuJoCo has and signorini does not compute.
const NOT_COMPUTED: &[&str] = &[
    "camprojection",
    "distance",
    "normal",
    "fromto",
    "contact",
    "e_potential",
    "e_kinetic",
    "tactile",
    "insidesite",
    "geomdist",
    "geomnormal",
    "geomfromto",
    "user",
    "plugin",
];

/// Model-order indices of the sites and geoms (numbered body by body).
struct Flat {
    site: HashMap<(usize, usize), usize>,
    geom: HashMap<(usize, usize), usize>,
}

impl Flat {
    fn of(tree: &Tree) -> Flat {
        let (mut site, mut geom) = (HashMap::new(), HashMap::new());
        for (b, body) in tree.bodies.iter().enumerate() {
            for k in 0..body.sites.len() {
                let n = site.len();
                site.insert((b, k), n);
            }
            for k in 0..body.geoms.len() {
                let n = geom.len();
                geom.insert((b, k), n);
            }
        }
        Flat { site, geom }
    }
}

/// Reads one `<sensor>` section.
pub fn read_section(
    e: &Element,
    tree: &Tree,
    tendons: &[TendonSpec],
    actuators: &[ActuatorSpec],
    magnetic: [f64; 3],
    out: &mut Vec<SensorSpec>,
) -> Result<()> {
    e.check_attributes(&[])?;
    let flat = Flat::of(tree);
    for child in &e.children {
        let kind = child.name.as_str();
        if NOT_COMPUTED.contains(&kind) {
            return Err(child.not_supported(format!("<{kind}> sensors")).into());
        }
        let specific: &[&str] = match kind {
            "jointpos" | "jointvel" | "jointactuatorfrc" | "ballquat" | "ballangvel" | "jointlimitpos"
            | "jointlimitvel" | "jointlimitfrc" => &["joint"],
            "tendonpos" | "tendonvel" | "tendonactuatorfrc" | "tendonlimitpos" | "tendonlimitvel"
            | "tendonlimitfrc" => &["tendon"],
            "actuatorpos" | "actuatorvel" | "actuatorfrc" => &["actuator"],
            "framepos" | "framequat" | "framexaxis" | "frameyaxis" | "framezaxis" | "framelinvel"
            | "frameangvel" => &["objtype", "objname", "reftype", "refname"],
            "framelinacc" | "frameangacc" => &["objtype", "objname"],
            "subtreecom" | "subtreelinvel" | "subtreeangmom" => &["body"],
            "accelerometer" | "velocimeter" | "gyro" | "magnetometer" | "force" | "torque" | "touch" => {
                &["site"]
            }
            "rangefinder" => &["site", "camera", "data"],
            "clock" => &[],
            _ => return Err(e.unknown_child(child).into()),
        };
        let mut allowed = COMMON.to_vec();
        allowed.extend_from_slice(specific);
        child.check_attributes(&allowed)?;
        child.check_no_children()?;
        let a = Attrs::own(child);
        for history in ["nsample", "interp", "interval", "delay"] {
            if a.has(history) {
                return Err(a
                    .unsupported(Some(history), "sensor history (nsample, interp, interval, delay)")
                    .into());
            }
        }
        let cutoff = a.f64_or("cutoff", 0.0)?;
        let noise = a.f64_or("noise", 0.0)?;
        for (name, value) in [("cutoff", cutoff), ("noise", noise)] {
            if !(value >= 0.0) || !value.is_finite() {
                return Err(a.invalid_named(name, "must be finite and >= 0").into());
            }
        }
        let joint = || -> Result<usize> {
            tree.joint(&a, "joint")?.ok_or_else(|| a.missing("joint", "the joint it reads").into())
        };
        let named = |attribute: &str, what: &'static str, names: Vec<&str>| -> Result<usize> {
            let attr =
                a.get(attribute).ok_or_else(|| a.missing(attribute, format!("the {what} it reads")))?;
            names.iter().position(|n| !n.is_empty() && *n == attr.value).ok_or_else(|| {
                MjcfError::UndefinedName {
                    at: attr.at.clone(),
                    element: kind.to_string(),
                    attribute: attribute.into(),
                    kind: what,
                    name: attr.value.clone(),
                }
            })
        };
        let tendon = || named("tendon", "tendon", tendons.iter().map(|t| t.name.as_str()).collect());
        let actuator = || named("actuator", "actuator", actuators.iter().map(|x| x.name.as_str()).collect());
        let site = || -> Result<usize> {
            let attr = a.get("site").ok_or_else(|| a.missing("site", "the site it is attached to"))?;
            let at = tree.site_names.get(&attr.value).ok_or_else(|| MjcfError::UndefinedName {
                at: attr.at.clone(),
                element: kind.to_string(),
                attribute: "site".into(),
                kind: "site",
                name: attr.value.clone(),
            })?;
            Ok(flat.site[at])
        };
        let body = || -> Result<usize> {
            tree.body(&a, "body")?.ok_or_else(|| a.missing("body", "the body it reads").into())
        };
        let frame = |type_attr: &str, name_attr: &str| -> Result<Option<SensorFrame>> {
            let Some(ty) = a.get(type_attr) else {
                if a.has(name_attr) {
                    return Err(a.missing(type_attr, format!("the kind of `{name_attr}`")).into());
                }
                return Ok(None);
            };
            let name = a.get(name_attr).ok_or_else(|| a.missing(name_attr, "the frame's name"))?;
            let undefined = |what: &'static str| MjcfError::UndefinedName {
                at: name.at.clone(),
                element: kind.to_string(),
                attribute: name_attr.into(),
                kind: what,
                name: name.value.clone(),
            };
            Ok(Some(match ty.value.as_str() {
                "body" => {
                    SensorFrame::Body(*tree.body_names.get(&name.value).ok_or_else(|| undefined("body"))?)
                }
                "xbody" => {
                    SensorFrame::XBody(*tree.body_names.get(&name.value).ok_or_else(|| undefined("body"))?)
                }
                "geom" => {
                    let at = tree.geom_names.get(&name.value).ok_or_else(|| undefined("geom"))?;
                    SensorFrame::Geom(flat.geom[at])
                }
                "site" => {
                    let at = tree.site_names.get(&name.value).ok_or_else(|| undefined("site"))?;
                    SensorFrame::Site(flat.site[at])
                }
                "camera" => return Err(a.unsupported(Some(type_attr), "cameras as sensor frames").into()),
                _ => {
                    return Err(a.invalid_named(type_attr, "one of body, xbody, geom, site, camera").into());
                }
            }))
        };
        let frame_sensor = |quantity: FrameQuantity| -> Result<SensorKind> {
            let object = frame("objtype", "objname")?
                .ok_or_else(|| a.missing("objtype", "the kind of the object it reads (objtype, objname)"))?;
            Ok(SensorKind::Frame { quantity, object, reference: frame("reftype", "refname")? })
        };
        let kind = match kind {
            "jointpos" => SensorKind::JointPos(joint()?),
            "jointvel" => SensorKind::JointVel(joint()?),
            "jointactuatorfrc" => SensorKind::JointActuatorFrc(joint()?),
            "ballquat" => SensorKind::BallQuat(joint()?),
            "ballangvel" => SensorKind::BallAngVel(joint()?),
            "jointlimitpos" => SensorKind::JointLimitPos(joint()?),
            "jointlimitvel" => SensorKind::JointLimitVel(joint()?),
            "jointlimitfrc" => SensorKind::JointLimitFrc(joint()?),
            "tendonpos" => SensorKind::TendonPos(tendon()?),
            "tendonvel" => SensorKind::TendonVel(tendon()?),
            "tendonactuatorfrc" => SensorKind::TendonActuatorFrc(tendon()?),
            "tendonlimitpos" => SensorKind::TendonLimitPos(tendon()?),
            "tendonlimitvel" => SensorKind::TendonLimitVel(tendon()?),
            "tendonlimitfrc" => SensorKind::TendonLimitFrc(tendon()?),
            "actuatorpos" => SensorKind::ActuatorPos(actuator()?),
            "actuatorvel" => SensorKind::ActuatorVel(actuator()?),
            "actuatorfrc" => SensorKind::ActuatorFrc(actuator()?),
            "framepos" => frame_sensor(FrameQuantity::Pos)?,
            "framequat" => frame_sensor(FrameQuantity::Quat)?,
            "framexaxis" => frame_sensor(FrameQuantity::XAxis)?,
            "frameyaxis" => frame_sensor(FrameQuantity::YAxis)?,
            "framezaxis" => frame_sensor(FrameQuantity::ZAxis)?,
            "framelinvel" => frame_sensor(FrameQuantity::LinVel)?,
            "frameangvel" => frame_sensor(FrameQuantity::AngVel)?,
            "framelinacc" => frame_sensor(FrameQuantity::LinAcc)?,
            "frameangacc" => frame_sensor(FrameQuantity::AngAcc)?,
            "subtreecom" => SensorKind::SubtreeCom(body()?),
            "subtreelinvel" => SensorKind::SubtreeLinVel(body()?),
            "subtreeangmom" => SensorKind::SubtreeAngMom(body()?),
            "accelerometer" => SensorKind::Accelerometer(site()?),
            "velocimeter" => SensorKind::Velocimeter(site()?),
            "gyro" => SensorKind::Gyro(site()?),
            "magnetometer" => SensorKind::Magnetometer { site: site()?, field: DVec3::from_array(magnetic) },
            "force" => SensorKind::Force(site()?),
            "torque" => SensorKind::Torque(site()?),
            "touch" => {
                let s = site()?;
                let at = tree.site_names[&a.str("site").unwrap_or_default().to_string()];
                let shape = tree.site_shapes.get(&at).cloned().ok_or_else(|| {
                    a.invalid_named("site", "a touch sensor's site needs a positive size (its volume)")
                })?;
                SensorKind::Touch { site: s, shape }
            }
            "rangefinder" => {
                if a.has("camera") {
                    return Err(a
                        .unsupported(Some("camera"), "rangefinders on cameras (depth images)")
                        .into());
                }
                if a.str("data").is_some_and(|d| d.split_whitespace().ne(["dist"])) {
                    return Err(a.unsupported(Some("data"), "rangefinder data other than dist").into());
                }
                SensorKind::Rangefinder(site()?)
            }
            _ => SensorKind::Clock,
        };
        if cutoff > 0.0 && kind.is_direction() {
            return Err(a
                .invalid_named("cutoff", "a cutoff does not apply to an axis or a quaternion")
                .into());
        }
        out.push(SensorSpec { name: a.str("name").unwrap_or_default().to_string(), kind, cutoff, noise });
    }
    Ok(())
}
