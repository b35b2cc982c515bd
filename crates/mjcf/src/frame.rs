//! `<frame>` and `<replicate>` in a body: where the elements inside them end up.
//!
//! Both are flattened away while the tree is read, as MuJoCo's compiler does. A frame `F = (p, q)` (its `pos` and
//! orientation) moves every element it holds from the frame into the enclosing body: a body, geom or site at
//! `(x, r)` in the frame sits at `(p + q x, q r)` in the body; a joint's `pos` and `axis` move likewise. Frames nest
//! (`F_outer ∘ F_inner`), and a frame's `childclass` is the default class of what it holds.
//!
//! `<replicate count="n" offset="o" euler="e" sep="s">` holds its children `n` times, copy `i` in the frame
//! `(pᵢ, qᵢ)` with `qᵢ` the orientation of the Euler angles `i·e` (compiler units and `eulerseq`), `p₀ = 0` and
//! `pᵢ₊₁ = pᵢ + qᵢ o`. Every name inside copy `i` gets the suffix `s` followed by `i` zero-padded to the digits of
//! `n`; a replicate inside a replicate suffixes first (`ring` → `ring0` → `ring0-2`). Copies come in order, each at
//! the replicate's place in the document, so bodies, joints and geoms are numbered as MuJoCo numbers them.

use glam::{DQuat, DVec3};
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

use crate::Ctx;
use crate::error::{MjcfError, Result};
use crate::orientation;

/// Attributes of `<frame>`.
const FRAME: &[&str] = &["name", "childclass", "pos", "quat", "axisangle", "xyaxes", "zaxis", "euler"];
/// Attributes of `<replicate>`.
const REPLICATE: &[&str] = &["count", "offset", "euler", "sep", "childclass"];
/// The most copies one `<replicate>` makes.
const MAX_COUNT: i64 = 100_000;

/// Where an element of a body sits: the composed frames around it, its default class and the suffix its name gets.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Position of the frames' origin in the body frame.
    pub pos: DVec3,
    /// Orientation of the frames in the body frame.
    pub quat: DQuat,
    /// The default class that applies (a frame's or replicate's `childclass`, else the body's).
    pub class: usize,
    /// Appended to every non-empty name.
    pub suffix: String,
    /// Whether a `<frame>` or `<replicate>` is around the element (between it and its body).
    pub framed: bool,
    /// The outermost `<replicate>` around the element (its location), when there is one: the copies of that
    /// replicate are one group for the elements that refer to them ([`crate::replicated`]).
    pub group: Option<String>,
}

impl Placement {
    /// Directly in a body whose children use default class `class` and whose names get `suffix` (the body's own, when
    /// it is inside a replicate).
    pub fn body(class: usize, suffix: &str, group: Option<String>) -> Self {
        Placement {
            pos: DVec3::ZERO,
            quat: DQuat::IDENTITY,
            class,
            suffix: suffix.to_string(),
            framed: false,
            group,
        }
    }

    /// `(pos, quat)` given in the frames, in the body frame.
    pub fn pose(&self, pos: DVec3, quat: DQuat) -> (DVec3, DQuat) {
        if !self.framed {
            return (pos, quat);
        }
        (self.pos + orientation::rotate(self.quat, pos), orientation::compose(self.quat, quat))
    }

    /// A direction given in the frames, in the body frame (MuJoCo's `mjuu_rotVecQuat`, [`orientation::rotate_direction`]).
    pub fn direction(&self, v: DVec3) -> DVec3 {
        if self.framed { orientation::rotate_direction(self.quat, v) } else { v }
    }

    /// `name` with the replicates' suffix (an empty name stays empty).
    pub fn name(&self, name: &str) -> String {
        if name.is_empty() { String::new() } else { format!("{name}{}", self.suffix) }
    }

    fn inner(&self, pos: DVec3, quat: DQuat, class: usize, suffix: &str, group: Option<&str>) -> Placement {
        let (pos, quat) = self.pose(pos, quat);
        Placement {
            pos,
            quat,
            class,
            suffix: format!("{suffix}{}", self.suffix),
            framed: true,
            group: self.group.clone().or_else(|| group.map(str::to_string)),
        }
    }
}

/// The children of body (or worldbody) `e` other than frames and replicates, in document order with copies
/// expanded, each with its placement; `body` is the placement of `e`'s own children.
pub fn placed_children<'a>(
    e: &'a Element,
    body: &Placement,
    ctx: &Ctx<'_>,
) -> Result<Vec<(&'a Element, Placement)>> {
    let mut out = Vec::new();
    expand(e, body, ctx, &mut out)?;
    Ok(out)
}

fn expand<'a>(
    e: &'a Element,
    placement: &Placement,
    ctx: &Ctx<'_>,
    out: &mut Vec<(&'a Element, Placement)>,
) -> Result<()> {
    for child in &e.children {
        match child.name.as_str() {
            "frame" => {
                child.check_attributes(FRAME)?;
                let a = Attrs::own(child);
                let class = child_class(child, &a, placement.class, ctx)?;
                let pos = DVec3::from_array(a.array_or::<3>("pos", [0.0; 3])?);
                let quat = orientation::read(&a, ctx.compiler)?;
                expand(child, &placement.inner(pos, quat, class, "", None), ctx, out)?;
            }
            "replicate" => {
                child.check_attributes(REPLICATE)?;
                let a = Attrs::own(child);
                let count = a.int("count")?.ok_or_else(|| a.missing("count", "the number of copies"))?;
                if !(1..=MAX_COUNT).contains(&count) {
                    return Err(a
                        .invalid_named("count", format!("must be between 1 and {MAX_COUNT}"))
                        .into());
                }
                let class = child_class(child, &a, placement.class, ctx)?;
                let offset = DVec3::from_array(a.array_or::<3>("offset", [0.0; 3])?);
                let euler = a.array_or::<3>("euler", [0.0; 3])?;
                let sep = a.str("sep").unwrap_or_default();
                let digits = count.to_string().len();
                let mut pos = DVec3::ZERO;
                let group = child.at.to_string();
                for i in 0..count {
                    // MuJoCo turns `i·euler` in the compiler's unit, then converts it.
                    let quat = orientation::euler(euler.map(|x| x * i as f64), ctx.compiler);
                    let suffix = format!("{sep}{i:0digits$}");
                    expand(child, &placement.inner(pos, quat, class, &suffix, Some(&group)), ctx, out)?;
                    pos += orientation::rotate(quat, offset);
                }
            }
            "inertial" if placement.framed => {
                return Err(MjcfError::Invalid {
                    at: child.at.clone(),
                    element: "inertial".into(),
                    reason: "an <inertial> belongs to its body: it cannot be inside a <frame> or <replicate>"
                        .into(),
                });
            }
            _ => out.push((child, placement.clone())),
        }
    }
    Ok(())
}

/// The class of `childclass`, else `inherited`.
fn child_class(e: &Element, a: &Attrs<'_>, inherited: usize, ctx: &Ctx<'_>) -> Result<usize> {
    match a.str("childclass") {
        Some(name) => ctx.defaults.class_of(e, "childclass", name),
        None => Ok(inherited),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_compose_and_suffix() {
        let outer = Placement::body(0, "", None).inner(
            DVec3::new(1.0, 0.0, 0.0),
            DQuat::from_rotation_z(0.5),
            0,
            "-1",
            Some("outer"),
        );
        let inner =
            outer.inner(DVec3::new(0.0, 2.0, 0.0), DQuat::from_rotation_z(0.25), 3, "2", Some("inner"));
        let (p, q) = inner.pose(DVec3::X, DQuat::IDENTITY);
        let expect = DVec3::new(1.0, 0.0, 0.0)
            + DQuat::from_rotation_z(0.5)
                * (DVec3::new(0.0, 2.0, 0.0) + DQuat::from_rotation_z(0.25) * DVec3::X);
        assert!((p - expect).length() < 1e-15);
        let (a, b) = (q.to_array(), DQuat::from_rotation_z(0.75).to_array());
        assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-15), "{q:?}");
        assert_eq!(inner.name("ring"), "ring2-1");
        assert_eq!(inner.name(""), "");
        assert_eq!(inner.class, 3);
        assert_eq!(inner.group.as_deref(), Some("outer"));
        assert!(!Placement::body(2, "-1", None).framed && inner.framed);
        assert_eq!(Placement::body(2, "-1", None).name("pole"), "pole-1");
    }
}
