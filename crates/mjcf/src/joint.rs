//! `<joint>` and `<freejoint>`.
//!
//! Angles (`range`, `ref`, `springref` of hinge and ball joints) are in the compiler's angle unit. `limited="auto"`
//! (the default) with `autolimits` (default true) means limited exactly when the range is not `0 0`, as in MuJoCo.
//! `<freejoint>` takes no default class: its dofs have no armature, damping or friction loss, as in MuJoCo.

use glam::DVec3;
use signorini_model::spec::{DEFAULT_SOLIMP, DEFAULT_SOLREF, JointKind, JointSpec};

use crate::Ctx;
use crate::error::Result;
use crate::schema;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// Resolves MJCF `limited`/`ctrllimited`/`forcelimited` (`None` = auto) against a range: whether the range applies.
pub fn resolve_limited(
    a: &Attrs<'_>,
    attribute: &str,
    range_attribute: &str,
    range: [f64; 2],
    autolimits: bool,
) -> Result<bool> {
    let given = a.keyword(attribute, &[("false", Some(false)), ("true", Some(true)), ("auto", None)])?;
    let has_range = !(range[0] == 0.0 && range[1] == 0.0);
    match given.flatten() {
        Some(l) => Ok(l),
        None if !has_range => Ok(false),
        None if autolimits => Ok(true),
        None => Err(a
            .invalid_named(
                range_attribute,
                format!("a range is given but `{attribute}` is not, and autolimits is disabled"),
            )
            .into()),
    }
}

/// Reads a `<joint>` of default class `class`.
pub fn read_joint(e: &Element, class: usize, ctx: &Ctx<'_>) -> Result<JointSpec> {
    e.check_attributes(schema::JOINT)?;
    if let Some(c) = e.children.first() {
        return Err(e.unknown_child(c).into());
    }
    let a = Attrs::new(e, ctx.defaults.layers(class, "joint"));
    let kind = a
        .keyword(
            "type",
            &[
                ("free", JointKind::Free),
                ("ball", JointKind::Ball),
                ("slide", JointKind::Slide),
                ("hinge", JointKind::Hinge),
            ],
        )?
        .unwrap_or(JointKind::Hinge);
    let angular = matches!(kind, JointKind::Hinge | JointKind::Ball);
    let angle = |v: f64| if angular { ctx.compiler.angle(v) } else { v };

    // A hinge or slide axis as written: the tree turns it by the frames around the joint, then scales it to unit
    // length (MuJoCo's order, `signorini_model::model::unit_axis`).
    let mut axis = DVec3::from_array(a.array_or::<3>("axis", [0.0, 0.0, 1.0])?);
    if matches!(kind, JointKind::Hinge | JointKind::Slide) {
        if signorini_model::model::unit_axis(axis).is_none() {
            return Err(a.invalid_named("axis", "the axis has zero length").into());
        }
    } else {
        axis = DVec3::Z;
    }

    let raw = a.array_or::<2>("range", [0.0, 0.0])?;
    let limited = resolve_limited(&a, "limited", "range", raw, ctx.compiler.autolimits)?;
    let range = if limited {
        let r = raw.map(angle);
        match kind {
            JointKind::Free => {
                return Err(a.invalid_named("limited", "a free joint cannot be limited").into());
            }
            JointKind::Ball if r[0] != 0.0 || !(r[1] > 0.0) => {
                return Err(a.invalid_named("range", "a ball joint range is `0 max` with max > 0").into());
            }
            JointKind::Hinge | JointKind::Slide if !(r[0] < r[1]) => {
                return Err(a.invalid_named("range", "the lower limit must be below the upper limit").into());
            }
            _ => Some(r),
        }
    } else {
        None
    };

    let springdamper = a.array_or::<2>("springdamper", [0.0; 2])?;
    if springdamper.iter().any(|&x| x < 0.0) {
        return Err(a
            .invalid_named("springdamper", "the time constant and damping ratio must be >= 0")
            .into());
    }
    let frc = a.array_or::<2>("actuatorfrcrange", [0.0; 2])?;
    let actuatorfrcrange =
        resolve_limited(&a, "actuatorfrclimited", "actuatorfrcrange", frc, ctx.compiler.autolimits)?
            .then_some(frc);
    if actuatorfrcrange.is_some() && !matches!(kind, JointKind::Hinge | JointKind::Slide) {
        return Err(a
            .invalid_named("actuatorfrcrange", "actuator force limits apply to hinge and slide joints")
            .into());
    }
    if actuatorfrcrange.is_some_and(|r| !(r[0] <= r[1])) {
        return Err(a.invalid_named("actuatorfrcrange", "the lower limit must not exceed the upper").into());
    }
    a.int("group")?;

    Ok(JointSpec {
        name: a.str("name").unwrap_or_default().to_string(),
        kind,
        pos: DVec3::from_array(a.array_or::<3>("pos", [0.0; 3])?),
        axis,
        range,
        margin: a.f64_or("margin", 0.0)?,
        armature: a.nonneg_or("armature", 0.0)?,
        damping: a.nonneg_or("damping", 0.0)?,
        stiffness: a.nonneg_or("stiffness", 0.0)?,
        springref: angle(a.f64_or("springref", 0.0)?),
        frictionloss: a.nonneg_or("frictionloss", 0.0)?,
        reference: angle(a.f64_or("ref", 0.0)?),
        solref_limit: a.partial::<2>("solreflimit", DEFAULT_SOLREF)?,
        solimp_limit: a.partial::<5>("solimplimit", DEFAULT_SOLIMP)?,
        solref_friction: a.partial::<2>("solreffriction", DEFAULT_SOLREF)?,
        solimp_friction: a.partial::<5>("solimpfriction", DEFAULT_SOLIMP)?,
        actuatorgravcomp: a.bool("actuatorgravcomp")?.unwrap_or(false),
        actuatorfrcrange,
        springdamper: (springdamper[0] > 0.0 && springdamper[1] > 0.0).then_some(springdamper),
    })
}

/// Reads a `<freejoint>` (no default class applies).
pub fn read_freejoint(e: &Element) -> Result<JointSpec> {
    e.check_attributes(schema::FREEJOINT)?;
    if let Some(c) = e.children.first() {
        return Err(e.unknown_child(c).into());
    }
    let a = Attrs::own(e);
    a.int("group")?;
    if a.keyword("align", &[("false", false), ("true", true), ("auto", false)])? == Some(true) {
        return Err(a.unsupported(Some("align"), "moving the body frame onto its inertial frame").into());
    }
    Ok(JointSpec::new(a.str("name").unwrap_or_default(), JointKind::Free))
}

/// `(nq, nv)` of a joint kind.
pub fn dims(kind: JointKind) -> (usize, usize) {
    match kind {
        JointKind::Free => (7, 6),
        JointKind::Ball => (4, 3),
        JointKind::Hinge | JointKind::Slide => (1, 1),
    }
}
