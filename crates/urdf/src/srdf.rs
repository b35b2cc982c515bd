//! SRDF: `<disable_collisions link1 link2 reason/>` pairs for the allowed-collision matrix (the ACM type will live in
//! the collision crate; for now the pairs are returned as link names). Groups, group states, end effectors, virtual
//! and passive joints and sphere approximations are planning data: accepted and not read.

use std::collections::HashSet;

use signorini_xml::{Element, Location};

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

/// What an SRDF says about collisions.
#[derive(Debug, Clone, PartialEq)]
pub struct Srdf {
    /// The `<robot name>`.
    pub robot: String,
    /// `(link1, link2, reason)` for every `<disable_collisions>`, in document order (`reason` may be empty).
    pub disable_collisions: Vec<(String, String, String)>,
    /// Where each pair is written (same order).
    pub locations: Vec<Location>,
}

impl Srdf {
    /// The disabled pairs as `(body index, body index)` of `urdf.spec`, in document order; `None` when a link
    /// name is not a body of `urdf` (an SRDF read for another robot).
    pub fn body_pairs(&self, urdf: &LoadedUrdf) -> Option<Vec<(usize, usize)>> {
        let find = |name: &str| urdf.spec.bodies.iter().skip(1).position(|b| b.name == name).map(|i| i + 1);
        self.disable_collisions.iter().map(|(a, b, _)| Some((find(a)?, find(b)?))).collect()
    }
}

/// Reads a parsed `<robot>` SRDF; every link it names must be a link of `urdf`.
pub fn load(root: &Element, urdf: &LoadedUrdf) -> Result<Srdf> {
    if root.name != "robot" {
        return Err(UrdfError::Invalid {
            at: root.at.clone(),
            element: root.name.clone(),
            reason: "an SRDF file has a <robot> root element".into(),
        });
    }
    root.check_attributes(&["name"])?;
    let links: HashSet<&str> = urdf.spec.bodies.iter().skip(1).map(|b| b.name.as_str()).collect();
    let mut out = Srdf {
        robot: root.attr("name").unwrap_or_default().to_string(),
        disable_collisions: Vec::new(),
        locations: Vec::new(),
    };
    for c in &root.children {
        match c.name.as_str() {
            "disable_collisions" => {
                c.check_attributes(&["link1", "link2", "reason"])?;
                if let Some(x) = c.children.first() {
                    return Err(c.unknown_child(x).into());
                }
                let mut pair = [String::new(), String::new()];
                for (slot, attr) in pair.iter_mut().zip(["link1", "link2"]) {
                    let a = c.required(attr)?;
                    if !links.contains(a.value.as_str()) {
                        return Err(UrdfError::UndefinedName {
                            at: a.at.clone(),
                            element: c.name.clone(),
                            attribute: attr.into(),
                            kind: "link",
                            name: a.value.clone(),
                        });
                    }
                    *slot = a.value.clone();
                }
                let [l1, l2] = pair;
                out.disable_collisions.push((l1, l2, c.attr("reason").unwrap_or_default().to_string()));
                out.locations.push(c.at.clone());
            }
            n if NOT_USED.contains(&n) => {}
            _ => return Err(root.unknown_child(c).into()),
        }
    }
    Ok(out)
}
