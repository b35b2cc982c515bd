//! `<equality>`: `connect`, `weld` and `joint` constraints between bodies or joints named in the tree.

use glam::DVec3;
use signorini_model::spec::{DEFAULT_SOLIMP, DEFAULT_SOLREF, EqualitySpec, JointKind, TendonSpec};

use crate::Ctx;
use crate::error::{MjcfError, Result};
use crate::schema;
use crate::tree::Tree;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;
use signorini_xml::orientation::quat_wxyz;

/// Reads one `<equality>` section, appending the constraints to `out` and their `active` flags to `active`.
pub fn read_section(
    e: &Element,
    tree: &Tree,
    tendons: &[TendonSpec],
    ctx: &Ctx<'_>,
    out: &mut Vec<EqualitySpec>,
    active: &mut Vec<bool>,
    unwritten: &mut Vec<usize>,
) -> Result<()> {
    e.check_attributes(&[])?;
    for child in &e.children {
        let specific: &[&str] = match child.name.as_str() {
            "connect" => &["body1", "body2", "anchor", "site1", "site2"],
            "weld" => &["body1", "body2", "relpose", "anchor", "torquescale", "site1", "site2"],
            "joint" => &["joint1", "joint2", "polycoef"],
            "tendon" => &["tendon1", "tendon2", "polycoef"],
            "flex" | "distance" => {
                return Err(child.not_supported("flex and distance equality constraints").into());
            }
            _ => return Err(e.unknown_child(child).into()),
        };
        let mut allowed = schema::EQUALITY_COMMON.to_vec();
        allowed.extend_from_slice(specific);
        child.check_attributes(&allowed)?;
        if let Some(c) = child.children.first() {
            return Err(child.unknown_child(c).into());
        }
        let class = ctx.defaults.resolve(child, 0)?;
        let a = Attrs::new(child, ctx.defaults.layers(class, "equality"));
        if a.has("site1") || a.has("site2") {
            return Err(a
                .unsupported(Some("site1"), "site-based connect and weld; name body1 (and body2)")
                .into());
        }
        let name = a.str("name").unwrap_or_default().to_string();
        let solref = a.partial::<2>("solref", DEFAULT_SOLREF)?;
        let solimp = a.partial::<5>("solimp", DEFAULT_SOLIMP)?;
        let body1 =
            || -> Result<usize> { Ok(tree.body(&a, "body1")?.ok_or_else(|| a.missing("body1", ""))?) };
        let spec = match child.name.as_str() {
            "connect" => EqualitySpec::Connect {
                name,
                body1: body1()?,
                body2: tree.body(&a, "body2")?.unwrap_or(0),
                anchor: DVec3::from_array(a.array::<3>("anchor")?.ok_or_else(|| a.missing("anchor", ""))?),
                solref,
                solimp,
            },
            "weld" => {
                let r = a.array_or::<7>("relpose", [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])?;
                let relpose = if r[3..] == [0.0; 4] {
                    None
                } else {
                    let q = quat_wxyz([r[3], r[4], r[5], r[6]])
                        .ok_or_else(|| a.invalid_named("relpose", "quaternion has zero norm"))?;
                    Some((DVec3::new(r[0], r[1], r[2]), q))
                };
                EqualitySpec::Weld {
                    name,
                    body1: body1()?,
                    body2: tree.body(&a, "body2")?.unwrap_or(0),
                    anchor: DVec3::from_array(a.array_or::<3>("anchor", [0.0; 3])?),
                    relpose,
                    torquescale: a.f64_or("torquescale", 1.0)?,
                    solref,
                    solimp,
                }
            }
            "tendon" => {
                let tendon = |attribute: &str| -> Result<Option<usize>> {
                    let Some(attr) = a.get(attribute) else { return Ok(None) };
                    tendons
                        .iter()
                        .position(|t| !t.name.is_empty() && t.name == attr.value)
                        .map(Some)
                        .ok_or_else(|| MjcfError::UndefinedName {
                            at: attr.at.clone(),
                            element: "tendon".into(),
                            attribute: attribute.into(),
                            kind: "tendon",
                            name: attr.value.clone(),
                        })
                };
                EqualitySpec::Tendon {
                    name,
                    tendon1: tendon("tendon1")?
                        .ok_or_else(|| a.missing("tendon1", "the constrained tendon"))?,
                    tendon2: tendon("tendon2")?,
                    polycoef: a.partial::<5>("polycoef", [0.0, 1.0, 0.0, 0.0, 0.0])?,
                    solref,
                    solimp,
                }
            }
            _ => {
                let joint1 = tree.joint(&a, "joint1")?.ok_or_else(|| a.missing("joint1", ""))?;
                let joint2 = tree.joint(&a, "joint2")?;
                for (j, attr) in [(Some(joint1), "joint1"), (joint2, "joint2")] {
                    if let Some(j) = j
                        && !matches!(tree.joints[j].kind, JointKind::Hinge | JointKind::Slide)
                    {
                        return Err(a
                            .invalid_named(attr, "joint equality needs hinge or slide joints")
                            .into());
                    }
                }
                EqualitySpec::Joint {
                    name,
                    joint1,
                    joint2,
                    polycoef: a.partial::<5>("polycoef", [0.0, 1.0, 0.0, 0.0, 0.0])?,
                    solref,
                    solimp,
                }
            }
        };
        active.push(a.bool_or("active", true)?);
        if !a.has("solref") {
            unwritten.push(out.len());
        }
        out.push(spec);
    }
    Ok(())
}
