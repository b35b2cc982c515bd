//! An owned XML element tree with a file and line on every element and attribute (built with `roxmltree`).
//!
//! Comments, processing instructions and text are dropped (no element of MJCF, URDF or SRDF carries text that
//! signorini reads). Owning the tree lets `<include>` splice elements of several files into one tree while each keeps
//! its own location.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Location, MjcfError, Result};

/// One attribute with the line it is written on.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// Name.
    pub name: String,
    /// Value, with XML entities resolved.
    pub value: String,
    /// Where it is written.
    pub at: Location,
}

/// One element with its attributes and element children, in document order.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    /// Tag name (namespaces are not used by MJCF/URDF; a prefixed name keeps only its local part).
    pub name: String,
    /// Attributes in document order.
    pub attributes: Vec<Attribute>,
    /// Element children in document order.
    pub children: Vec<Element>,
    /// Where the start tag is.
    pub at: Location,
}

impl Element {
    /// The value of attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attribute(name).map(|a| a.value.as_str())
    }

    /// Attribute `name`, if present.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// Errors with [`MjcfError::UnknownAttribute`] for the first attribute not in `allowed`.
    pub fn check_attributes(&self, allowed: &[&str]) -> Result<()> {
        match self.attributes.iter().find(|a| !allowed.contains(&a.name.as_str())) {
            Some(a) => Err(MjcfError::UnknownAttribute {
                at: a.at.clone(),
                element: self.name.clone(),
                attribute: a.name.clone(),
            }),
            None => Ok(()),
        }
    }

    /// The error for an unexpected child `child` of this element.
    pub fn unknown_child(&self, child: &Element) -> MjcfError {
        MjcfError::UnknownElement {
            at: child.at.clone(),
            element: child.name.clone(),
            parent: self.name.clone(),
        }
    }

    /// The value of a required attribute, or [`MjcfError::MissingAttribute`].
    pub fn required(&self, name: &str) -> Result<&Attribute> {
        self.attribute(name).ok_or_else(|| MjcfError::MissingAttribute {
            at: self.at.clone(),
            element: self.name.clone(),
            attribute: name.to_string(),
            reason: String::new(),
        })
    }
}

/// Reads and parses the XML file `path`; `referenced_from` is where it was named (for the error).
pub fn read_file(path: &Path, referenced_from: Option<&Location>) -> Result<Element> {
    let text = std::fs::read_to_string(path).map_err(|source| MjcfError::Io {
        file: path.to_path_buf(),
        at: referenced_from.cloned(),
        source,
    })?;
    parse(&text, path)
}

/// Parses XML text; `file` is the name used in locations.
pub fn parse(text: &str, file: &Path) -> Result<Element> {
    let options = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        MjcfError::Xml { file: PathBuf::from(file), line: pos.row, column: pos.col, message: e.to_string() }
    })?;
    let file = Arc::new(file.to_path_buf());
    Ok(convert(&doc, doc.root_element(), &file))
}

fn convert(doc: &roxmltree::Document<'_>, node: roxmltree::Node<'_, '_>, file: &Arc<PathBuf>) -> Element {
    let at = |pos: usize| Location { file: file.clone(), line: doc.text_pos_at(pos).row };
    Element {
        name: node.tag_name().name().to_string(),
        attributes: node
            .attributes()
            .map(|a| Attribute {
                name: a.name().to_string(),
                value: a.value().to_string(),
                at: at(a.range().start),
            })
            .collect(),
        children: node.children().filter(|c| c.is_element()).map(|c| convert(doc, c, file)).collect(),
        at: at(node.range().start),
    }
}
