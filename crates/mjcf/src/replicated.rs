//! Elements outside a `<replicate>` that refer to what it copies: one copy of the element per copy of the replicate.
//!
//! A tendon through sites `a` and `b` made inside `<replicate count="5">` refers to names that exist only with the
//! copies' suffixes (`a0` … `a4`). As MuJoCo does, such an element (a tendon, actuator, sensor, equality, contact
//! pair or exclusion) becomes one element per copy: copy `s` refers to `a`+`s` and `b`+`s` and its own name, when it
//! has one, gets the suffix too. The copies of the elements that refer to one replicate come together, copy by copy
//! (copy 0 of every such element, then copy 1, ...), at the place of the first of them; this is MuJoCo 4.0's order
//! (`model/replicate/newton_cradle.xml`: tendons `a0–b0`, `c0–d0`, `a1–b1`, ...).

use std::collections::{HashMap, HashSet};

use crate::error::{MjcfError, Result};
use crate::frame::Placement;
use signorini_xml::Element;

/// Attributes that name another element (a body, joint, geom, site, tendon or actuator).
pub const REFERENCES: &[&str] = &[
    "body",
    "body1",
    "body2",
    "joint",
    "joint1",
    "joint2",
    "jointinparent",
    "geom",
    "geom1",
    "geom2",
    "site",
    "site1",
    "site2",
    "refsite",
    "cranksite",
    "slidersite",
    "tendon",
    "tendon1",
    "tendon2",
    "actuator",
    "objname",
    "refname",
    "target",
];

/// The copies of one outermost `<replicate>`.
#[derive(Debug, Clone, Default)]
struct Group {
    /// The name suffixes of its copies (nested replicates included: `0-2`), in document order.
    suffixes: Vec<String>,
    seen: HashSet<String>,
}

/// The names made inside replicates: per name as written (its *base*), the replicate whose copies carry it.
#[derive(Debug, Clone, Default)]
pub struct Replicas {
    groups: Vec<Group>,
    by_key: HashMap<String, usize>,
    base: HashMap<String, usize>,
}

impl Replicas {
    /// The name of an element written `raw` at `placement` (the replicates' suffix appended), noted for the elements
    /// that will refer to it.
    pub fn name(&mut self, raw: &str, placement: &Placement) -> String {
        let full = placement.name(raw);
        if let (false, Some(key)) = (raw.is_empty(), &placement.group) {
            let g = match self.by_key.get(key) {
                Some(&g) => g,
                None => {
                    self.groups.push(Group::default());
                    self.by_key.insert(key.clone(), self.groups.len() - 1);
                    self.groups.len() - 1
                }
            };
            let group = &mut self.groups[g];
            if group.seen.insert(placement.suffix.clone()) {
                group.suffixes.push(placement.suffix.clone());
            }
            self.base.entry(raw.to_string()).or_insert(g);
        }
        full
    }

    /// The name of the first copy of `base`, when `base` was written inside a replicate and `exists` knows a copy.
    pub fn first_copy(&self, base: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
        let g = *self.base.get(base)?;
        self.groups[g].suffixes.iter().map(|s| format!("{base}{s}")).find(|n| exists(n))
    }

    /// `section` with every child that refers to replicated names (names that `exists` does not know but a
    /// replicate made copies of) replaced by its copies. The copies' own names become replicated names too, so that
    /// a later section can refer to them (an actuator on a replicated tendon).
    pub fn expand_section(&mut self, section: &Element, exists: &dyn Fn(&str) -> bool) -> Result<Element> {
        enum Slot<'a> {
            Plain(&'a Element),
            Copies(usize, Vec<&'a Element>),
        }
        let mut slots: Vec<Slot<'_>> = Vec::new();
        for child in &section.children {
            match self.group_of(child, exists)? {
                None => slots.push(Slot::Plain(child)),
                Some(g) => {
                    let slot = slots.iter_mut().find_map(|s| match s {
                        Slot::Copies(h, elements) if *h == g => Some(elements),
                        _ => None,
                    });
                    match slot {
                        Some(elements) => elements.push(child),
                        None => slots.push(Slot::Copies(g, vec![child])),
                    }
                }
            }
        }
        let mut out = Element { children: Vec::new(), ..section.clone() };
        for slot in slots {
            match slot {
                Slot::Plain(e) => out.children.push(e.clone()),
                Slot::Copies(g, elements) => {
                    let mut copies = vec![0usize; elements.len()];
                    for suffix in self.groups[g].suffixes.clone() {
                        for (e, n) in elements.iter().zip(&mut copies) {
                            if let Some(copy) = self.copy(e, g, &suffix, exists) {
                                out.children.push(copy);
                                *n += 1;
                            }
                        }
                    }
                    for (e, n) in elements.iter().zip(copies) {
                        if n == 0 {
                            return Err(MjcfError::Invalid {
                                at: e.at.clone(),
                                element: e.name.clone(),
                                reason:
                                    "it refers to names made by a <replicate>, but no copy has all of them"
                                        .into(),
                            });
                        }
                        if let Some(name) = e.attr("name").filter(|n| !n.is_empty()) {
                            self.base.entry(name.to_string()).or_insert(g);
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// The replicate whose copies `e` (or an element inside it) refers to, if any.
    fn group_of(&self, e: &Element, exists: &dyn Fn(&str) -> bool) -> Result<Option<usize>> {
        let mut found: Option<usize> = None;
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            for a in x.attributes.iter().filter(|a| REFERENCES.contains(&a.name.as_str())) {
                if exists(&a.value) {
                    continue;
                }
                if let Some(&g) = self.base.get(&a.value) {
                    if found.is_some_and(|f| f != g) {
                        return Err(MjcfError::Invalid {
                            at: a.at.clone(),
                            element: x.name.clone(),
                            reason: "it refers to the copies of two different <replicate>s".into(),
                        });
                    }
                    found = Some(g);
                }
            }
            stack.extend(x.children.iter());
        }
        Ok(found)
    }

    /// Copy `suffix` of `e`: its name and its references to names of group `g` suffixed; `None` when a suffixed
    /// reference does not exist (the name is not in that copy).
    fn copy(&self, e: &Element, g: usize, suffix: &str, exists: &dyn Fn(&str) -> bool) -> Option<Element> {
        let mut copy = e.clone();
        if let Some(a) = copy.attributes.iter_mut().find(|a| a.name == "name" && !a.value.is_empty()) {
            a.value.push_str(suffix);
        }
        let mut stack = vec![&mut copy];
        while let Some(x) = stack.pop() {
            for a in x.attributes.iter_mut().filter(|a| REFERENCES.contains(&a.name.as_str())) {
                if !exists(&a.value) && self.base.get(&a.value) == Some(&g) {
                    a.value.push_str(suffix);
                    if !exists(&a.value) {
                        return None;
                    }
                }
            }
            stack.extend(x.children.iter_mut());
        }
        Some(copy)
    }
}
