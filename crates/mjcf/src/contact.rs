//! `<contact>`: `<exclude>` body pairs and explicit `<pair>` geom pairs.
//!
//! A pair parameter that is given (on the pair or in its default class) is used as is; one that is not is derived
//! from the two geoms as MuJoCo's `mjCPair::Compile` does: margin and gap are the maxima; with different priorities
//! condim, friction, solref and solimp come from the higher-priority geom; with equal priorities condim and friction
//! are the maxima and solref/solimp are mixed with weight `solmix₁ / (solmix₁ + solmix₂)` (solref takes the
//! element-wise minimum when either is in direct `(−stiffness, −damping)` form). Geom friction `(s, t, r)` becomes
//! pair friction `(s, s, t, r, r)`. As in MuJoCo, the two geoms are swapped when the first one's body comes later.

use signorini_model::spec::{ContactPairSpec, GeomSpec};

use crate::Ctx;
use crate::error::Result;
use crate::schema;
use crate::tree::Tree;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// MuJoCo's `mjMINVAL`.
const MINVAL: f64 = 1e-15;

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
                pairs.push(read_pair(&a, tree)?);
            }
            _ => return Err(e.unknown_child(child).into()),
        }
    }
    Ok(())
}

fn read_pair(a: &Attrs<'_>, tree: &Tree) -> Result<ContactPairSpec> {
    let mut g1 = tree.geom(a, "geom1")?.ok_or_else(|| a.missing("geom1", ""))?;
    let mut g2 = tree.geom(a, "geom2")?.ok_or_else(|| a.missing("geom2", ""))?;
    if g1.0 > g2.0 {
        std::mem::swap(&mut g1, &mut g2);
    }
    let s1 = &tree.bodies[g1.0].geoms[g1.1];
    let s2 = &tree.bodies[g2.0].geoms[g2.1];
    if a.array_or::<2>("solreffriction", [0.0; 2])? != [0.0; 2] {
        return Err(a
            .unsupported(Some("solreffriction"), "a separate solref for friction directions")
            .into());
    }
    let mixed = Mixed::new(s1, s2);
    let condim = match a.int("condim")? {
        Some(c) if [1, 3, 4, 6].contains(&c) => c as u8,
        Some(_) => return Err(a.invalid_named("condim", "must be 1, 3, 4 or 6").into()),
        None => mixed.condim,
    };
    let friction = if a.has("friction") {
        a.partial::<5>("friction", [1.0, 1.0, 0.005, 0.0001, 0.0001])?
    } else {
        mixed.friction
    };
    if friction.iter().any(|f| *f < 0.0) {
        return Err(a.invalid_named("friction", "friction coefficients must be >= 0").into());
    }
    Ok(ContactPairSpec {
        name: a.str("name").unwrap_or_default().to_string(),
        geom1: g1,
        geom2: g2,
        condim,
        friction,
        solref: if a.has("solref") { a.partial::<2>("solref", mixed.solref)? } else { mixed.solref },
        solimp: if a.has("solimp") { a.partial::<5>("solimp", mixed.solimp)? } else { mixed.solimp },
        margin: a.nonneg_or("margin", s1.margin.max(s2.margin))?,
        gap: a.nonneg_or("gap", s1.gap.max(s2.gap))?,
        adhesion: a.f64_or("adhesion", 0.0)?,
    })
}

/// The pair parameters derived from two geoms.
struct Mixed {
    condim: u8,
    friction: [f64; 5],
    solref: [f64; 2],
    solimp: [f64; 5],
}

impl Mixed {
    fn new(g1: &GeomSpec, g2: &GeomSpec) -> Self {
        let expand = |f: [f64; 3]| [f[0], f[0], f[1], f[2], f[2]];
        if g1.priority != g2.priority {
            let g = if g1.priority > g2.priority { g1 } else { g2 };
            return Mixed {
                condim: g.condim,
                friction: expand(g.friction),
                solref: g.solref,
                solimp: g.solimp,
            };
        }
        let mix = match (g1.solmix >= MINVAL, g2.solmix >= MINVAL) {
            (true, true) => g1.solmix / (g1.solmix + g2.solmix),
            (false, false) => 0.5,
            (false, true) => 0.0,
            (true, false) => 1.0,
        };
        let solref = if g1.solref[0] > 0.0 && g2.solref[0] > 0.0 {
            [0, 1].map(|i| mix * g1.solref[i] + (1.0 - mix) * g2.solref[i])
        } else {
            [0, 1].map(|i| g1.solref[i].min(g2.solref[i]))
        };
        Mixed {
            condim: g1.condim.max(g2.condim),
            friction: expand([0, 1, 2].map(|i| g1.friction[i].max(g2.friction[i]))),
            solref,
            solimp: [0, 1, 2, 3, 4].map(|i| mix * g1.solimp[i] + (1.0 - mix) * g2.solimp[i]),
        }
    }
}
