//! The typed error of the loaders: every variant names the file and line, and, where one is at fault, the element
//! and the attribute.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use signorini_geometry::GeometryError;
use thiserror::Error;

/// A place in an XML file: the file and the 1-based line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// The file (for a string input, the `base_dir` joined with `<string>`); shared by all locations in it.
    pub file: Arc<PathBuf>,
    /// 1-based line.
    pub line: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// What went wrong while loading an MJCF (or URDF/SRDF) file.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MjcfError {
    /// A file could not be read.
    #[error("{}cannot read `{}`: {source}", referenced_from(.at), .file.display())]
    Io {
        /// The file that could not be read.
        file: PathBuf,
        /// Where it was referenced from (`None` for the top-level file).
        at: Option<Location>,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The text is not well-formed XML.
    #[error("{}:{line}:{column}: XML syntax error: {message}", .file.display())]
    Xml {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The parser's message.
        message: String,
    },
    /// An element that is not part of the format (or not allowed where it is).
    #[error("{at}: unknown element <{element}> inside <{parent}>")]
    UnknownElement {
        /// Where.
        at: Location,
        /// The element.
        element: String,
        /// Its parent element.
        parent: String,
    },
    /// An attribute that the element does not have.
    #[error("{at}: unknown attribute `{attribute}` on <{element}>")]
    UnknownAttribute {
        /// Where.
        at: Location,
        /// The element.
        element: String,
        /// The attribute.
        attribute: String,
    },
    /// A valid feature of the format that signorini does not support (yet).
    #[error("{at}: <{element}>{}: not supported: {what}", attr_suffix(.attribute))]
    NotSupported {
        /// Where.
        at: Location,
        /// The element.
        element: String,
        /// The attribute, when one is at fault.
        attribute: Option<String>,
        /// What is not supported, and why.
        what: String,
    },
    /// A required attribute is missing.
    #[error("{at}: <{element}> needs attribute `{attribute}`{}", reason_suffix(.reason))]
    MissingAttribute {
        /// Where.
        at: Location,
        /// The element.
        element: String,
        /// The missing attribute.
        attribute: String,
        /// Why it is needed (may be empty).
        reason: String,
    },
    /// An attribute value that cannot be parsed or is out of range.
    #[error("{at}: <{element} {attribute}=\"{value}\">: {reason}")]
    InvalidValue {
        /// Where (the line of the attribute, which may be in a default class).
        at: Location,
        /// The element.
        element: String,
        /// The attribute.
        attribute: String,
        /// The value as written.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A name that refers to nothing (class, body, joint, geom, mesh...).
    #[error("{at}: <{element} {attribute}=\"{name}\">: no {kind} named `{name}`")]
    UndefinedName {
        /// Where.
        at: Location,
        /// The element.
        element: String,
        /// The attribute holding the name.
        attribute: String,
        /// What kind of object was looked for.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// Two objects of the same kind share a name.
    #[error("{at}: <{element}>: duplicate {kind} name `{name}`")]
    DuplicateName {
        /// Where (the second occurrence).
        at: Location,
        /// The element.
        element: String,
        /// The kind of object.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A default class is nested inside itself (`<default class="a"> … <default class="a">`).
    #[error("{at}: <default class=\"{class}\"> is nested inside itself (class chain: {})", .chain.join(" → "))]
    CyclicDefaultClass {
        /// Where.
        at: Location,
        /// The class.
        class: String,
        /// The chain of enclosing classes, outermost first.
        chain: Vec<String>,
    },
    /// A file includes itself, directly or through other files.
    #[error("{at}: <include file=\"{}\"> includes itself", .file.display())]
    CyclicInclude {
        /// Where.
        at: Location,
        /// The file.
        file: PathBuf,
    },
    /// A mesh file could not be parsed.
    #[error("{at}: <{element}>: mesh file `{}`: {reason}", .file.display())]
    MeshFile {
        /// Where the mesh was declared.
        at: Location,
        /// The element that declared it.
        element: String,
        /// The mesh file.
        file: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The geometry layer rejected a shape or a pose built from the element.
    #[error("{at}: <{element}>{}: {source}", attr_suffix(.attribute))]
    Geometry {
        /// Where.
        at: Location,
        /// The element.
        element: String,
        /// The attribute that produced the bad value, when known.
        attribute: Option<String>,
        /// The geometry error.
        #[source]
        source: GeometryError,
    },
    /// A semantic error that involves the element as a whole (e.g. a keyframe of the wrong size).
    #[error("{at}: <{element}>: {reason}")]
    Invalid {
        /// Where.
        at: Location,
        /// The element.
        element: String,
        /// What is wrong.
        reason: String,
    },
}

fn referenced_from(at: &Option<Location>) -> String {
    at.as_ref().map(|l| format!("{l}: ")).unwrap_or_default()
}

fn attr_suffix(attribute: &Option<String>) -> String {
    attribute.as_ref().map(|a| format!(" attribute `{a}`")).unwrap_or_default()
}

fn reason_suffix(reason: &str) -> String {
    if reason.is_empty() { String::new() } else { format!(" ({reason})") }
}

impl MjcfError {
    /// The location the error points at, if any.
    pub fn location(&self) -> Option<&Location> {
        match self {
            MjcfError::Io { at, .. } => at.as_ref(),
            MjcfError::Xml { .. } => None,
            MjcfError::UnknownElement { at, .. }
            | MjcfError::UnknownAttribute { at, .. }
            | MjcfError::NotSupported { at, .. }
            | MjcfError::MissingAttribute { at, .. }
            | MjcfError::InvalidValue { at, .. }
            | MjcfError::UndefinedName { at, .. }
            | MjcfError::DuplicateName { at, .. }
            | MjcfError::CyclicDefaultClass { at, .. }
            | MjcfError::CyclicInclude { at, .. }
            | MjcfError::MeshFile { at, .. }
            | MjcfError::Geometry { at, .. }
            | MjcfError::Invalid { at, .. } => Some(at),
        }
    }

    /// The 1-based line the error points at, if any.
    pub fn line(&self) -> Option<u32> {
        match self {
            MjcfError::Xml { line, .. } => Some(*line),
            _ => self.location().map(|l| l.line),
        }
    }

    /// The element at fault, if any.
    pub fn element(&self) -> Option<&str> {
        match self {
            MjcfError::Io { .. } | MjcfError::Xml { .. } => None,
            MjcfError::CyclicDefaultClass { .. } => Some("default"),
            MjcfError::CyclicInclude { .. } => Some("include"),
            MjcfError::UnknownElement { element, .. }
            | MjcfError::UnknownAttribute { element, .. }
            | MjcfError::NotSupported { element, .. }
            | MjcfError::MissingAttribute { element, .. }
            | MjcfError::InvalidValue { element, .. }
            | MjcfError::UndefinedName { element, .. }
            | MjcfError::DuplicateName { element, .. }
            | MjcfError::MeshFile { element, .. }
            | MjcfError::Geometry { element, .. }
            | MjcfError::Invalid { element, .. } => Some(element),
        }
    }

    /// The attribute at fault, if any.
    pub fn attribute(&self) -> Option<&str> {
        match self {
            MjcfError::UnknownAttribute { attribute, .. }
            | MjcfError::MissingAttribute { attribute, .. }
            | MjcfError::InvalidValue { attribute, .. }
            | MjcfError::UndefinedName { attribute, .. } => Some(attribute),
            MjcfError::NotSupported { attribute, .. } | MjcfError::Geometry { attribute, .. } => {
                attribute.as_deref()
            }
            MjcfError::CyclicDefaultClass { .. } => Some("class"),
            MjcfError::CyclicInclude { .. } => Some("file"),
            _ => None,
        }
    }
}

/// Result alias of the loaders.
pub type Result<T, E = MjcfError> = std::result::Result<T, E>;
