//! `<tendon>`: fixed tendons (`<fixed>` with `<joint joint coef>` children) and spatial tendons through sites
//! (`<spatial>` with `<site site>` children), as MuJoCo reads them. Wrapping around geoms and pulleys are a precise
//! `NotSupported` error.
//!
//! A tendon's `range` is in its own length units (the joints' units times the coefficients: no degree conversion,
//! as in MuJoCo); `limited` follows `autolimits`; `springlength` is one value (no dead band) or two (the band), and
//! its default `-1 -1` means the length at the springs' reference pose.

use glam::DVec3;
use signorini_model::spec::{DEFAULT_SOLIMP, DEFAULT_SOLREF, TendonSpec};

use crate::Ctx;
use crate::error::Result;
use crate::joint::resolve_limited;
use crate::schema;
use crate::tree::Tree;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// Reads one `<tendon>` section, appending its tendons to `out`.
pub fn read_section(e: &Element, tree: &Tree, ctx: &Ctx<'_>, out: &mut Vec<TendonSpec>) -> Result<()> {
    e.check_attributes(&[])?;
    for child in &e.children {
        match child.name.as_str() {
            "fixed" | "spatial" => out.push(read_tendon(child, tree, ctx, out)?),
            _ => return Err(e.unknown_child(child).into()),
        }
    }
    Ok(())
}

fn read_tendon(e: &Element, tree: &Tree, ctx: &Ctx<'_>, earlier: &[TendonSpec]) -> Result<TendonSpec> {
    e.check_attributes(schema::TENDON)?;
    let class = ctx.defaults.resolve(e, 0)?;
    let a = Attrs::new(e, ctx.defaults.layers(class, "tendon"));
    let name = a.str("name").unwrap_or_default().to_string();
    if !name.is_empty() && earlier.iter().any(|t| t.name == name) {
        return Err(crate::error::MjcfError::DuplicateName {
            at: e.attribute("name").map_or(e.at.clone(), |x| x.at.clone()),
            element: e.name.clone(),
            kind: "tendon",
            name,
        });
    }
    if a.f64_or("armature", 0.0)? != 0.0 {
        return Err(a.unsupported(Some("armature"), "tendon armature").into());
    }
    let frc = a.array_or::<2>("actuatorfrcrange", [0.0; 2])?;
    if resolve_limited(&a, "actuatorfrclimited", "actuatorfrcrange", frc, ctx.compiler.autolimits)? {
        return Err(a.unsupported(Some("actuatorfrcrange"), "tendon actuator force limits").into());
    }
    let range = a.array_or::<2>("range", [0.0; 2])?;
    let limited = resolve_limited(&a, "limited", "range", range, ctx.compiler.autolimits)?;
    if limited && !(range[0] < range[1]) {
        return Err(a.invalid_named("range", "the lower bound must be below the upper").into());
    }
    let springlength = match a.numbers("springlength")?.as_deref() {
        None | Some([-1.0, -1.0]) => None,
        Some(&[l]) => Some([l, l]),
        Some(&[lo, hi]) if lo <= hi => Some([lo, hi]),
        Some(&[_, _]) => {
            return Err(a.invalid_named("springlength", "the lower length must not exceed the upper").into());
        }
        Some(v) => {
            return Err(a
                .invalid_named("springlength", format!("expected 1 or 2 numbers, got {}", v.len()))
                .into());
        }
    };
    let (mut joints, mut sites) = (Vec::new(), Vec::new());
    let (mut wraps, mut pulleys) = (Vec::new(), Vec::new());
    let spatial = e.name == "spatial";
    let site_point = |ca: &Attrs<'_>, attribute: &str| -> Result<(usize, DVec3)> {
        let name = ca.get(attribute).ok_or_else(|| ca.missing(attribute, "the site the tendon passes"))?;
        let found = tree.site_names.get(&name.value).map(|&(b, k)| (b, tree.bodies[b].sites[k].1));
        found.ok_or_else(|| crate::error::MjcfError::UndefinedName {
            at: name.at.clone(),
            element: ca.element().to_string(),
            attribute: attribute.into(),
            kind: "site",
            name: name.value.clone(),
        })
    };
    let mut pending_wrap: Option<(signorini_model::spec::TendonWrap, &signorini_xml::Element)> = None;
    for c in &e.children {
        match (spatial, c.name.as_str()) {
            (false, "joint") => c.check_attributes(&["joint", "coef"])?,
            (true, "site") => c.check_attributes(&["site"])?,
            (true, "geom") => c.check_attributes(&["geom", "sidesite"])?,
            (true, "pulley") => c.check_attributes(&["divisor"])?,
            _ => return Err(e.unknown_child(c).into()),
        }
        if let Some(cc) = c.children.first() {
            return Err(c.unknown_child(cc).into());
        }
        let ca = Attrs::own(c);
        if spatial && c.name == "geom" {
            let (b, k) =
                tree.geom(&ca, "geom")?.ok_or_else(|| ca.missing("geom", "the geom the tendon wraps"))?;
            let g = &tree.bodies[b].geoms[k];
            let (sphere, radius) = match &g.shape {
                signorini_geometry::Shape::Sphere(s) => (true, s.radius()),
                signorini_geometry::Shape::Cylinder(c) => (false, c.radius()),
                _ => {
                    return Err(ca
                        .invalid_named("geom", "a tendon wraps around a sphere or a cylinder")
                        .into());
                }
            };
            if sites.is_empty() || pending_wrap.is_some() {
                return Err(ca.invalid_named("geom", "a wrapping geom sits between two sites").into());
            }
            let index = tree.bodies[..b].iter().map(|body| body.geoms.len()).sum::<usize>() + k;
            let side = if ca.has("sidesite") { Some(site_point(&ca, "sidesite")?) } else { None };
            pending_wrap = Some((signorini_model::spec::TendonWrap { geom: index, sphere, radius, side }, c));
            continue;
        }
        if spatial && c.name == "pulley" {
            let divisor = ca.f64("divisor")?.ok_or_else(|| ca.missing("divisor", "a pulley's divisor"))?;
            if !(divisor > 0.0) {
                return Err(ca.invalid_named("divisor", "must be > 0").into());
            }
            if pending_wrap.is_some() {
                return Err(ca.invalid_named("divisor", "a wrapping geom sits between two sites").into());
            }
            pulleys.push((sites.len(), divisor));
            continue;
        }
        if spatial {
            if let Some((wrap, _)) = pending_wrap.take() {
                wraps.push((sites.len() - 1, wrap));
            }
            sites.push(site_point(&ca, "site")?);
            continue;
        }
        let j = tree.joint(&ca, "joint")?.ok_or_else(|| ca.missing("joint", "the joint of the tendon"))?;
        let kind = tree.joints[j].kind;
        if !matches!(kind, signorini_model::JointKind::Hinge | signorini_model::JointKind::Slide) {
            return Err(ca.invalid_named("joint", "a fixed tendon joins hinge and slide joints only").into());
        }
        joints.push((j, ca.f64_or("coef", 1.0)?));
    }
    if joints.is_empty() && sites.len() < 2 {
        return Err(crate::error::MjcfError::Invalid {
            at: e.at.clone(),
            element: e.name.clone(),
            reason: if spatial {
                "a spatial tendon passes at least two <site>s".into()
            } else {
                "a fixed tendon needs at least one <joint>".into()
            },
        });
    }
    if let Some((_, c)) = pending_wrap {
        return Err(Attrs::own(c).invalid_named("geom", "a wrapping geom sits between two sites").into());
    }
    Ok(TendonSpec {
        name,
        joints,
        sites,
        wraps,
        pulleys,
        range: limited.then_some(range),
        margin: a.f64_or("margin", 0.0)?,
        stiffness: a.nonneg_or("stiffness", 0.0)?,
        damping: a.nonneg_or("damping", 0.0)?,
        frictionloss: a.nonneg_or("frictionloss", 0.0)?,
        springlength,
        solref_limit: a.partial::<2>("solreflimit", DEFAULT_SOLREF)?,
        solimp_limit: a.partial::<5>("solimplimit", DEFAULT_SOLIMP)?,
        solref_friction: a.partial::<2>("solreffriction", DEFAULT_SOLREF)?,
        solimp_friction: a.partial::<5>("solimpfriction", DEFAULT_SOLIMP)?,
    })
}
