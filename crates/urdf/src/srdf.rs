//! SRDF, the one reader and writer of signorini: `<disable_collisions link1 link2 reason/>` entries, turned into the
//! collision layer's [`AllowedCollisionMatrix`] and written back from one.
//!
//! Groups, group states, end effectors, virtual and passive joints and sphere approximations are planning data:
//! accepted and not read. Anything else under `<robot>` is an error. A `reason` is MoveIt's vocabulary
//! (`Adjacent`, `Never`, `Always`, `Default`, `User`, case-sensitive); an entry without one is `User`, any other string
//! is kept verbatim ([`DisableReason::Other`]).

use std::path::Path;

use signorini_collision::filter::{AllowedCollisionMatrix, DisableReason};
use signorini_xml::{Element, Location, element};

use crate::LoadedUrdf;
use crate::error::{Result, UrdfError};

/// SRDF elements that are accepted and not read.
const NOT_USED: &[&str] = &[
    "group",
    "group_state",
    "end_effector",
    "virtual_joint",
    "passive_joint",
    "link_sphere_approximation",
    "disable_default_collisions",
    "enable_collisions",
    "joint_property",
];

/// One `<disable_collisions link1 link2 reason>` entry, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct DisabledPair {
    /// `[link1, link2]`.
    pub links: [String; 2],
    /// The `reason` attribute, if written.
    pub reason: Option<String>,
    /// Where the element is written.
    pub at: Location,
    /// Where `link1` and `link2` are written.
    pub links_at: [Location; 2],
}

impl DisabledPair {
    /// The reason as the collision layer's [`DisableReason`]: MoveIt's keywords, [`DisableReason::User`] when the
    /// attribute is absent, [`DisableReason::Other`] for any other string.
    pub fn disable_reason(&self) -> DisableReason {
        match self.reason.as_deref() {
            Some("Adjacent") => DisableReason::Adjacent,
            Some("Never") => DisableReason::Never,
            Some("Always") => DisableReason::Always,
            Some("Default") => DisableReason::Default,
            Some("User") | None => DisableReason::User,
            Some(other) => DisableReason::Other(other.to_string()),
        }
    }

    /// The error for link `k` (0 or 1) naming no link.
    fn undefined_link(&self, k: usize) -> UrdfError {
        UrdfError::UndefinedName {
            at: self.links_at[k].clone(),
            element: "disable_collisions".into(),
            attribute: ["link1", "link2"][k].into(),
            kind: "link",
            name: self.links[k].clone(),
        }
    }
}

/// What an SRDF says about collisions.
#[derive(Debug, Clone, PartialEq)]
pub struct Srdf {
    /// The `<robot name>`.
    pub robot: String,
    /// Every `<disable_collisions>`, in document order.
    pub disable_collisions: Vec<DisabledPair>,
}

impl Srdf {
    /// Reads the SRDF file `path` (link names are not checked; see [`Srdf::check_links`]).
    pub fn read(path: &Path) -> Result<Srdf> {
        from_root(&element::read_file(path, None)?)
    }

    /// Reads SRDF text; locations name the file `base_dir/<string>` (link names are not checked).
    pub fn parse(text: &str, base_dir: &Path) -> Result<Srdf> {
        from_root(&element::parse(text, &base_dir.join("<string>"))?)
    }

    /// Errors with [`UrdfError::UndefinedName`] (at the attribute) for the first entry naming a link that `urdf`
    /// does not have (an SRDF written for another robot).
    pub fn check_links(&self, urdf: &LoadedUrdf) -> Result<()> {
        self.acm(|name| urdf.body_index(name)).map(|_| ())
    }

    /// The allowed-collision matrix of the entries, with link names resolved to body indices by `resolve` (for a
    /// URDF, [`LoadedUrdf::body_index`]; for a collision world, its `body_index`). A later entry for the same pair
    /// replaces the reason of an earlier one. Errors: [`UrdfError::UndefinedName`] for a name `resolve` does not
    /// know (the entry is not skipped).
    pub fn acm(&self, resolve: impl Fn(&str) -> Option<usize>) -> Result<AllowedCollisionMatrix> {
        let mut acm = AllowedCollisionMatrix::new();
        for pair in &self.disable_collisions {
            let find = |k: usize| resolve(&pair.links[k]).ok_or_else(|| pair.undefined_link(k));
            let (a, b) = (find(0)?, find(1)?);
            acm.disable(a, b, pair.disable_reason());
        }
        Ok(acm)
    }
}

/// The matrix `acm` as an SRDF document `<robot name="robot">` with one `<disable_collisions>` per pair, in the
/// matrix's order; `name` maps a body index to its link name. [`Srdf::parse`] and [`Srdf::acm`] read it back to
/// the same matrix.
pub fn write_srdf(robot: &str, acm: &AllowedCollisionMatrix, name: impl Fn(usize) -> String) -> String {
    let mut s = format!("<?xml version=\"1.0\"?>\n<robot name=\"{}\">\n", escape(robot));
    for (a, b, r) in acm.iter() {
        s.push_str(&format!(
            "  <disable_collisions link1=\"{}\" link2=\"{}\" reason=\"{}\"/>\n",
            escape(&name(a)),
            escape(&name(b)),
            escape(r.as_str())
        ));
    }
    s.push_str("</robot>\n");
    s
}

/// `s` as an XML attribute value (`&`, `<`, `>` and `"` escaped).
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Reads a parsed `<robot>` SRDF.
fn from_root(root: &Element) -> Result<Srdf> {
    if root.name != "robot" {
        return Err(UrdfError::Invalid {
            at: root.at.clone(),
            element: root.name.clone(),
            reason: "an SRDF file has a <robot> root element".into(),
        });
    }
    root.check_attributes(&["name"])?;
    let mut out =
        Srdf { robot: root.attr("name").unwrap_or_default().to_string(), disable_collisions: Vec::new() };
    for c in &root.children {
        match c.name.as_str() {
            "disable_collisions" => {
                c.check_attributes(&["link1", "link2", "reason"])?;
                c.check_no_children()?;
                let (l1, l2) = (c.required("link1")?, c.required("link2")?);
                out.disable_collisions.push(DisabledPair {
                    links: [l1.value.clone(), l2.value.clone()],
                    reason: c.attr("reason").map(str::to_string),
                    at: c.at.clone(),
                    links_at: [l1.at.clone(), l2.at.clone()],
                });
            }
            n if NOT_USED.contains(&n) => {}
            _ => return Err(root.unknown_child(c).into()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_follow_moveit_spelling() {
        let text = "<robot name=\"r\">\n<disable_collisions link1=\"a\" link2=\"b\"/>\n\
                    <disable_collisions link1=\"a\" link2=\"c\" reason=\"Never\"/>\n\
                    <disable_collisions link1=\"b\" link2=\"c\" reason=\"never\"/>\n</robot>";
        let s = Srdf::parse(text, Path::new(".")).unwrap();
        let reasons: Vec<DisableReason> =
            s.disable_collisions.iter().map(DisabledPair::disable_reason).collect();
        assert_eq!(
            reasons,
            [DisableReason::User, DisableReason::Never, DisableReason::Other("never".into())]
        );
        assert_eq!(s.disable_collisions[1].links_at[1].line, 3);
    }

    #[test]
    fn the_writer_escapes_names() {
        let mut acm = AllowedCollisionMatrix::new();
        acm.disable(2, 1, DisableReason::Other("a \"b\" & <c>".into()));
        let text = write_srdf("r&d", &acm, |b| format!("link<{b}>"));
        let back = Srdf::parse(&text, Path::new(".")).unwrap();
        assert_eq!(back.robot, "r&d");
        assert_eq!(back.disable_collisions[0].links, ["link<1>".to_string(), "link<2>".to_string()]);
        assert_eq!(back.acm(|n| n[5..n.len() - 1].parse().ok()).unwrap(), acm);
    }
}
