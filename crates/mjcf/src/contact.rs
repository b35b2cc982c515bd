//! `<contact>`: `<exclude>` body pairs and explicit `<pair>` geom pairs.
//!
//! A pair collides whatever the contact filters say, with its own parameters: those it (or its default class) gives,
//! the pair element's defaults otherwise, not the geoms' values (MuJoCo 4.0). As in MuJoCo, the two geoms are
//! swapped when the first one's body comes later.

use signorini_model::spec::{ContactPairSpec, DEFAULT_SOLIMP, DEFAULT_SOLREF};

use crate::Ctx;
use crate::error::Result;
use crate::schema;
use crate::tree::Tree;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// Reads one `<contact>` section.
pub fn read_section(
    e: &Element,
    tree: &Tree,
    ctx: &Ctx<'_>,
    excludes: &mut Vec<(usize, usize)>,
    pairs: &mut Vec<ContactPairSpec>,
) -> Result<()> {
    e.check_attributes(&[])?;
    for child in &e.children {
        if let Some(c) = child.children.first() {
            return Err(child.unknown_child(c).into());
        }
        match child.name.as_str() {
            "exclude" => {
                child.check_attributes(schema::EXCLUDE)?;
                let a = Attrs::own(child);
                let b1 = tree.body(&a, "body1")?.ok_or_else(|| a.missing("body1", ""))?;
                let b2 = tree.body(&a, "body2")?.ok_or_else(|| a.missing("body2", ""))?;
                excludes.push((b1, b2));
            }
            "pair" => {
                child.check_attributes(schema::PAIR)?;
                let class = ctx.defaults.resolve(child, 0)?;
                let a = Attrs::new(child, ctx.defaults.layers(class, "pair"));
                pairs.push(read_pair(&a, tree, ctx)?);
            }
            _ => return Err(e.unknown_child(child).into()),
        }
    }
    Ok(())
}

/// One `<pair>`. As MuJoCo 4.0, an attribute the element (or its class) does not give takes the pair element's own
/// default (condim 3, friction `1 1 0.005 0.0001 0.0001`, the default `solref`/`solimp`, margin, gap and adhesion
/// 0), not the geoms' values. The geoms are ordered so that body1 ≤ body2.
fn read_pair(a: &Attrs<'_>, tree: &Tree, ctx: &Ctx<'_>) -> Result<ContactPairSpec> {
    let mut g1 = tree.geom(a, "geom1")?.ok_or_else(|| a.missing("geom1", ""))?;
    let mut g2 = tree.geom(a, "geom2")?.ok_or_else(|| a.missing("geom2", ""))?;
    for (attribute, (b, g)) in [("geom1", g1), ("geom2", g2)] {
        if let Some(reason) = tree
            .bodies
            .get(b)
            .and_then(|body| body.geoms.get(g))
            .and_then(|g| ctx.assets.flat_mesh_reason(&g.shape))
        {
            return Err(a.invalid_named(attribute, reason).into());
        }
    }
    if g1.0 > g2.0 {
        std::mem::swap(&mut g1, &mut g2);
    }
    if g1 == g2 {
        return Err(a.invalid_named("geom2", "a pair needs two different geoms").into());
    }
    if a.array_or::<2>("solreffriction", [0.0; 2])? != [0.0; 2] {
        return Err(a
            .unsupported(Some("solreffriction"), "a separate solref for friction directions")
            .into());
    }
    let condim = match a.int("condim")? {
        Some(c) if [1, 3, 4, 6].contains(&c) => c as u8,
        Some(_) => return Err(a.invalid_named("condim", "must be 1, 3, 4 or 6").into()),
        None => 3,
    };
    let friction = a.partial::<5>("friction", [1.0, 1.0, 0.005, 0.0001, 0.0001])?;
    if friction.iter().any(|f| *f < 0.0) {
        return Err(a.invalid_named("friction", "friction coefficients must be >= 0").into());
    }
    if friction[0] != friction[1] || friction[3] != friction[4] {
        return Err(a
            .unsupported(Some("friction"), "anisotropic friction (different tangent or rolling coefficients)")
            .into());
    }
    Ok(ContactPairSpec {
        name: a.str("name").unwrap_or_default().to_string(),
        geom1: g1,
        geom2: g2,
        condim,
        friction,
        solref: a.partial::<2>("solref", DEFAULT_SOLREF)?,
        solimp: a.partial::<5>("solimp", DEFAULT_SOLIMP)?,
        margin: a.nonneg_or("margin", 0.0)?,
        gap: a.nonneg_or("gap", 0.0)?,
        adhesion: a.f64_or("adhesion", 0.0)?,
    })
}
