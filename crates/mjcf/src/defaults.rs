//! Default classes: `<default>` trees with inheritance, `class` on elements and `childclass` on bodies.
//!
//! The top-level `<default>` is the class `main`; a nested `<default class="name">` inherits everything from its
//! enclosing class. A class stores only the attributes written in it; an element sees the chain of classes from
//! `main` down to its own class as layers under its own attributes (see [`signorini_xml::attrs`]), which is MuJoCo's
//! copy-then-overwrite inheritance. Actuator defaults (`motor`, `position`, `velocity`, `general`) share one slot per
//! class, as in MuJoCo, so they are kept as the ordered list of elements that write to it.

use std::collections::HashMap;

use crate::error::{MjcfError, Result, XmlError};
use crate::schema;
use signorini_xml::{Attribute, Element};

/// Element kinds a default class holds attributes for (other than actuators).
const KINDS: &[&str] = &["geom", "joint", "site", "mesh", "pair", "equality", "tendon"];
/// Kinds accepted in a default class but not simulated (their attributes are not checked).
const NOT_SIMULATED: &[&str] = &["camera", "light", "material", "texture"];

/// One default class.
#[derive(Debug, Clone, Default)]
pub struct DefaultClass {
    /// Class name (`main` for the root).
    pub name: String,
    /// Enclosing class (`None` for `main`).
    pub parent: Option<usize>,
    own: HashMap<&'static str, Vec<Attribute>>,
    actuators: Vec<Element>,
}

/// All default classes; index 0 is `main`.
#[derive(Debug, Clone)]
pub struct Defaults {
    classes: Vec<DefaultClass>,
    by_name: HashMap<String, usize>,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            classes: vec![DefaultClass { name: "main".into(), ..Default::default() }],
            by_name: HashMap::from([("main".to_string(), 0)]),
        }
    }
}

impl Defaults {
    /// Adds a top-level `<default>` element (several top-level elements all add to `main`).
    pub fn add_top_level(&mut self, e: &Element) -> Result<()> {
        e.check_attributes(&["class"])?;
        if let Some(c) = e.attribute("class")
            && c.value != "main"
        {
            return Err(XmlError::InvalidValue {
                at: c.at.clone(),
                element: "default".into(),
                attribute: "class".into(),
                value: c.value.clone(),
                reason: "the top-level default class is `main`".into(),
            }
            .into());
        }
        self.fill(0, e)
    }

    /// Adds a separate root class (`<default class="name">` that inherits nothing): the `main` of an attached
    /// file ([`crate::attach`]), its nested classes below it.
    pub fn add_root(&mut self, e: &Element) -> Result<()> {
        e.check_attributes(&["class"])?;
        let attr = e.required("class")?;
        if self.by_name.contains_key(&attr.value) {
            return Err(MjcfError::DuplicateName {
                at: attr.at.clone(),
                element: "default".into(),
                kind: "default class",
                name: attr.value.clone(),
            });
        }
        let index = self.classes.len();
        self.classes.push(DefaultClass { name: attr.value.clone(), parent: None, ..Default::default() });
        self.by_name.insert(attr.value.clone(), index);
        self.fill(index, e)
    }

    fn fill(&mut self, index: usize, e: &Element) -> Result<()> {
        for child in &e.children {
            let name = child.name.as_str();
            if name == "default" {
                self.add_nested(index, child)?;
            } else if let Some(kind) = KINDS.iter().find(|k| **k == name) {
                check_default_attributes(child, kind)?;
                let slot = self.classes[index].own.entry(kind).or_default();
                for a in &child.attributes {
                    slot.retain(|b| b.name != a.name);
                    slot.push(a.clone());
                }
            } else if schema::ACTUATORS.contains(&name) {
                check_default_attributes(child, name)?;
                self.classes[index].actuators.push(child.clone());
            } else if schema::UNSUPPORTED_ACTUATORS.contains(&name) {
                return Err(not_supported(child, "this actuator type"));
            } else if !NOT_SIMULATED.contains(&name) {
                return Err(e.unknown_child(child).into());
            }
        }
        Ok(())
    }

    fn add_nested(&mut self, parent: usize, e: &Element) -> Result<()> {
        e.check_attributes(&["class"])?;
        let attr = e.required("class")?;
        let name = attr.value.clone();
        if let Some(&existing) = self.by_name.get(&name) {
            let chain = self.chain(parent);
            if chain.contains(&existing) {
                return Err(MjcfError::CyclicDefaultClass {
                    at: attr.at.clone(),
                    class: name,
                    chain: chain.iter().rev().map(|&i| self.classes[i].name.clone()).collect(),
                });
            }
            return Err(MjcfError::DuplicateName {
                at: attr.at.clone(),
                element: "default".into(),
                kind: "default class",
                name,
            });
        }
        let index = self.classes.len();
        self.classes.push(DefaultClass { name: name.clone(), parent: Some(parent), ..Default::default() });
        self.by_name.insert(name, index);
        self.fill(index, e)
    }

    /// The class and its ancestors, innermost first.
    fn chain(&self, class: usize) -> Vec<usize> {
        let mut out = vec![class];
        let mut c = class;
        while let Some(p) = self.classes[c].parent {
            out.push(p);
            c = p;
        }
        out
    }

    /// The class index of `name`, or an [`MjcfError::UndefinedName`] naming `attribute` of `element`.
    pub fn class_of(&self, element: &Element, attribute: &str, name: &str) -> Result<usize> {
        self.by_name.get(name).copied().ok_or_else(|| MjcfError::UndefinedName {
            at: element.attribute(attribute).map_or(element.at.clone(), |a| a.at.clone()),
            element: element.name.clone(),
            attribute: attribute.into(),
            kind: "default class",
            name: name.into(),
        })
    }

    /// The class an element uses: its own `class` attribute, else `inherited` (the enclosing `childclass`).
    pub fn resolve(&self, element: &Element, inherited: usize) -> Result<usize> {
        match element.attr("class") {
            Some(name) => self.class_of(element, "class", name),
            None => Ok(inherited),
        }
    }

    /// The attribute layers of `kind` for `class`, outermost (`main`) first.
    pub fn layers(&self, class: usize, kind: &str) -> Vec<&[Attribute]> {
        self.chain(class)
            .iter()
            .rev()
            .filter_map(|&c| self.classes[c].own.get(kind).map(Vec::as_slice))
            .collect()
    }

    /// The actuator default elements of `class` in the order they apply (`main`'s first).
    pub fn actuator_layers(&self, class: usize) -> Vec<&Element> {
        self.chain(class).iter().rev().flat_map(|&c| self.classes[c].actuators.iter()).collect()
    }
}

fn not_supported(e: &Element, what: &str) -> MjcfError {
    e.not_supported(what).into()
}

/// Checks the attributes of a default-class element: those of the element itself, without `name`, `class` or an
/// actuator's target.
fn check_default_attributes(e: &Element, kind: &str) -> Result<()> {
    if let Some(c) = e.children.first() {
        return Err(e.unknown_child(c).into());
    }
    let mut allowed: Vec<&str> = match kind {
        "geom" => schema::GEOM.to_vec(),
        "joint" => schema::JOINT.to_vec(),
        "site" => schema::SITE.to_vec(),
        "mesh" => schema::MESH.to_vec(),
        "pair" => schema::PAIR.to_vec(),
        "equality" => schema::EQUALITY_COMMON.to_vec(),
        "tendon" => schema::TENDON.to_vec(),
        _ => {
            let mut v = schema::ACTUATOR_COMMON.to_vec();
            v.extend_from_slice(schema::actuator_specific(kind));
            v.retain(|a| !schema::ACTUATOR_TARGETS.contains(a));
            v
        }
    };
    allowed.retain(|a| {
        !matches!(
            *a,
            "name" | "class" | "file" | "vertex" | "face" | "normal" | "texcoord" | "builtin" | "params"
        )
    });
    Ok(e.check_attributes(&allowed)?)
}
