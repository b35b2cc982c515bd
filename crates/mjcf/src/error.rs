//! The typed error of the MJCF loader: reading faults of the XML ([`XmlError`]: file, syntax, unknown elements and
//! attributes, bad values) and faults of the model it describes (undefined or duplicate names, cyclic default classes
//! or includes, mesh files, shapes). Every variant names the file and line, and, where one is at fault, the element
//! and the attribute.

use std::path::PathBuf;

use signorini_geometry::GeometryError;
pub use signorini_xml::{Location, XmlError};
use thiserror::Error;

/// What went wrong while loading an MJCF file.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MjcfError {
    /// The XML could not be read: I/O, syntax, an unknown element or attribute, a missing or invalid attribute, an
    /// unsupported feature. Its message is the reading error's own.
    #[error(transparent)]
    Xml(#[from] XmlError),
    /// The loaded scene could not be built: invalid options (including an override), a model the compiler or a
    /// stage rejects. Its message is the simulator's own.
    #[error(transparent)]
    Scene(#[from] signorini_sim::SimError),
    /// The scene of a file could not be built (as [`MjcfError::Scene`], with the file named).
    #[error("{}: {source}", file.display())]
    Compile {
        /// The MJCF file.
        file: std::path::PathBuf,
        /// The simulator's error.
        source: signorini_sim::SimError,
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

fn attr_suffix(attribute: &Option<String>) -> String {
    attribute.as_ref().map(|a| format!(" attribute `{a}`")).unwrap_or_default()
}

impl MjcfError {
    /// The location the error points at, if any.
    pub fn location(&self) -> Option<&Location> {
        match self {
            MjcfError::Xml(e) => e.location(),
            MjcfError::UndefinedName { at, .. }
            | MjcfError::DuplicateName { at, .. }
            | MjcfError::CyclicDefaultClass { at, .. }
            | MjcfError::CyclicInclude { at, .. }
            | MjcfError::MeshFile { at, .. }
            | MjcfError::Geometry { at, .. }
            | MjcfError::Invalid { at, .. } => Some(at),
            MjcfError::Scene(_) | MjcfError::Compile { .. } => None,
        }
    }

    /// The 1-based line the error points at, if any.
    pub fn line(&self) -> Option<u32> {
        match self {
            MjcfError::Xml(e) => e.line(),
            _ => self.location().map(|l| l.line),
        }
    }

    /// The element at fault, if any.
    pub fn element(&self) -> Option<&str> {
        match self {
            MjcfError::Xml(e) => e.element(),
            MjcfError::CyclicDefaultClass { .. } => Some("default"),
            MjcfError::CyclicInclude { .. } => Some("include"),
            MjcfError::UndefinedName { element, .. }
            | MjcfError::DuplicateName { element, .. }
            | MjcfError::MeshFile { element, .. }
            | MjcfError::Geometry { element, .. }
            | MjcfError::Invalid { element, .. } => Some(element),
            MjcfError::Scene(_) | MjcfError::Compile { .. } => None,
        }
    }

    /// The attribute at fault, if any.
    pub fn attribute(&self) -> Option<&str> {
        match self {
            MjcfError::Xml(e) => e.attribute(),
            MjcfError::UndefinedName { attribute, .. } => Some(attribute),
            MjcfError::Geometry { attribute, .. } => attribute.as_deref(),
            MjcfError::CyclicDefaultClass { .. } => Some("class"),
            MjcfError::CyclicInclude { .. } => Some("file"),
            _ => None,
        }
    }
}

/// Result alias of the MJCF loader.
pub type Result<T, E = MjcfError> = std::result::Result<T, E>;
