//! An owned XML element tree with a file and line on every element and attribute (built with `roxmltree`).
//!
//! Comments, processing instructions and text are dropped (no element of MJCF, URDF or SRDF carries text that
//! signorini reads). Owning the tree lets `<include>` splice elements of several files into one tree while each keeps
//! its own location.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Result, XmlError};
use crate::location::Location;

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

    /// Errors with [`XmlError::UnknownAttribute`] for the first attribute not in `allowed`.
    pub fn check_attributes(&self, allowed: &[&str]) -> Result<()> {
        match self.attributes.iter().find(|a| !allowed.contains(&a.name.as_str())) {
            Some(a) => Err(XmlError::UnknownAttribute {
                at: a.at.clone(),
                element: self.name.clone(),
                attribute: a.name.clone(),
            }),
            None => Ok(()),
        }
    }

    /// The error for an unexpected child `child` of this element.
    pub fn unknown_child(&self, child: &Element) -> XmlError {
        XmlError::UnknownElement {
            at: child.at.clone(),
            element: child.name.clone(),
            parent: self.name.clone(),
        }
    }

    /// The error for a valid feature of the format that signorini does not support: the element as a whole.
    pub fn not_supported(&self, what: impl Into<String>) -> XmlError {
        XmlError::NotSupported {
            at: self.at.clone(),
            element: self.name.clone(),
            attribute: None,
            what: what.into(),
        }
    }

    /// Errors with [`XmlError::UnknownElement`] for the first child, if any (for elements that have none).
    pub fn check_no_children(&self) -> Result<()> {
        match self.children.first() {
            Some(c) => Err(self.unknown_child(c)),
            None => Ok(()),
        }
    }

    /// The value of a required attribute, or [`XmlError::MissingAttribute`].
    pub fn required(&self, name: &str) -> Result<&Attribute> {
        self.attribute(name).ok_or_else(|| XmlError::MissingAttribute {
            at: self.at.clone(),
            element: self.name.clone(),
            attribute: name.to_string(),
            reason: String::new(),
        })
    }
}

/// An element that was accepted but does not change the dynamics (MJCF's `<visual>`, URDF's `<material>`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct NotSimulated {
    /// Tag name.
    pub element: String,
    /// Where it is written.
    pub at: Location,
}

/// Reads and parses the XML file `path`; `referenced_from` is where it was named (for the error).
pub fn read_file(path: &Path, referenced_from: Option<&Location>) -> Result<Element> {
    let text = std::fs::read_to_string(path).map_err(|source| XmlError::Io {
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
        XmlError::Syntax { file: PathBuf::from(file), line: pos.row, column: pos.col, message: e.to_string() }
    })?;
    let file = Arc::new(file.to_path_buf());
    convert(&doc, &LineStarts::new(text), &file)
}

/// The deepest element nesting accepted (the root is depth 1): real robots and scenes nest a few dozen deep, and the
/// loaders and the compiler walk the tree recursively, so deeper files are refused with a typed error rather than
/// risking the stack.
pub const MAX_DEPTH: usize = 1000;

/// The byte offsets where lines start, for line numbers by binary search (roxmltree's `text_pos_at` rescans the
/// text from its start at every call, which made loading quadratic in the file size).
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(text: &str) -> Self {
        LineStarts(std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect())
    }

    /// The 1-based line of byte `pos`.
    fn line(&self, pos: usize) -> u32 {
        self.0.partition_point(|&start| start <= pos) as u32
    }
}

/// The element tree of `doc`, built without recursion: the elements in breadth-first order (each after its parent,
/// siblings in document order), then each moved into its parent from the last to the first.
fn convert(doc: &roxmltree::Document<'_>, lines: &LineStarts, file: &Arc<PathBuf>) -> Result<Element> {
    let at = |pos: usize| Location { file: file.clone(), line: lines.line(pos) };
    let mut order = vec![(doc.root_element(), usize::MAX, 1usize)];
    let mut next = 0;
    while next < order.len() {
        let (node, _, depth) = order[next];
        if depth > MAX_DEPTH {
            return Err(XmlError::TooDeep { at: at(node.range().start), depth: MAX_DEPTH });
        }
        order.extend(node.children().filter(|c| c.is_element()).map(|c| (c, next, depth + 1)));
        next += 1;
    }
    let mut elements: Vec<Option<Element>> = order
        .iter()
        .map(|(node, _, _)| {
            Some(Element {
                name: node.tag_name().name().to_string(),
                attributes: node
                    .attributes()
                    .map(|a| Attribute {
                        name: a.name().to_string(),
                        value: a.value().to_string(),
                        at: at(a.range().start),
                    })
                    .collect(),
                children: Vec::new(),
                at: at(node.range().start),
            })
        })
        .collect();
    for k in (1..order.len()).rev() {
        let child = elements[k].take().expect("each element is moved once");
        let parent = elements[order[k].1].as_mut().expect("a parent comes before its children");
        parent.children.push(child);
    }
    let mut root = elements[0].take().expect("the root element");
    // Children were appended last first.
    let mut stack = vec![&mut root];
    while let Some(e) = stack.pop() {
        e.children.reverse();
        stack.extend(e.children.iter_mut());
    }
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_and_attributes_keep_their_lines() {
        let root = parse(
            "<robot name=\"r\">\n  <!-- c -->\n  <link\n    name=\"a\"/>\n</robot>",
            Path::new("f.xml"),
        )
        .unwrap();
        let link = &root.children[0];
        assert_eq!((root.at.line, link.at.line, link.attribute("name").unwrap().at.line), (1, 3, 4));
        assert_eq!(link.attr("name"), Some("a"));
        assert_eq!(*link.at.file, PathBuf::from("f.xml"));
    }

    #[test]
    fn syntax_and_structure_errors_name_the_line() {
        let e = parse("<robot>\n<link>\n</robot>", Path::new("f.xml")).unwrap_err();
        assert!(matches!(e, XmlError::Syntax { line: 3, .. }), "{e}");
        let root = parse("<robot>\n<link/>\n</robot>", Path::new("f.xml")).unwrap();
        let e = root.check_no_children().unwrap_err();
        assert_eq!((e.line(), e.element()), (Some(2), Some("link")));
        let e = root.children[0].required("name").unwrap_err();
        assert_eq!(e.to_string(), "f.xml:2: <link> needs attribute `name`");
        let e = read_file(Path::new("/nonexistent/f.xml"), None).unwrap_err();
        assert!(matches!(e, XmlError::Io { at: None, .. }), "{e}");
    }
}
