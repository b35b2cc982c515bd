//! The typed error of the URDF and SRDF loaders: reading faults of the XML ([`XmlError`]: file, syntax, unknown
//! elements and attributes, bad values) and faults of the robot it describes (undefined or duplicate names, the
//! link tree, mesh files, shapes). Every variant names the file and line, and, where one is at fault, the element
//! and the attribute.

use std::path::PathBuf;

use signorini_geometry::GeometryError;
pub use signorini_xml::{Location, XmlError};
use thiserror::Error;

/// What went wrong while loading a URDF or SRDF file.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum UrdfError {
    /// The XML could not be read: I/O, syntax, an unknown element or attribute, a missing or invalid attribute, an
    /// unsupported feature. Its message is the reading error's own.
    #[error(transparent)]
    Xml(#[from] XmlError),
    /// A name that refers to nothing (a link, a joint).
    #[error("{at}: <{element} {attribute}=\"{name}\">: no {kind} named `{name}`")]
    UndefinedName {
        /// Where (the attribute holding the name).
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
    /// A mesh file could not be parsed.
    #[error("{at}: <{element}>: mesh file `{}`: {reason}", .file.display())]
    MeshFile {
        /// Where the mesh file is named.
        at: Location,
        /// The element that names it.
        element: String,
        /// The mesh file.
        file: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The geometry layer rejected a shape built from the element.
    #[error("{at}: <{element}>: {source}")]
    Geometry {
        /// Where.
        at: Location,
        /// The element.
        element: String,
        /// The geometry error.
        #[source]
        source: GeometryError,
    },
    /// A fault of the element as a whole (the root element, the link tree, a joint without its limits).
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

impl UrdfError {
    /// The location the error points at, if any.
    pub fn location(&self) -> Option<&Location> {
        match self {
            UrdfError::Xml(e) => e.location(),
            UrdfError::UndefinedName { at, .. }
            | UrdfError::DuplicateName { at, .. }
            | UrdfError::MeshFile { at, .. }
            | UrdfError::Geometry { at, .. }
            | UrdfError::Invalid { at, .. } => Some(at),
        }
    }

    /// The 1-based line the error points at, if any.
    pub fn line(&self) -> Option<u32> {
        match self {
            UrdfError::Xml(e) => e.line(),
            _ => self.location().map(|l| l.line),
        }
    }

    /// The element at fault, if any.
    pub fn element(&self) -> Option<&str> {
        match self {
            UrdfError::Xml(e) => e.element(),
            UrdfError::UndefinedName { element, .. }
            | UrdfError::DuplicateName { element, .. }
            | UrdfError::MeshFile { element, .. }
            | UrdfError::Geometry { element, .. }
            | UrdfError::Invalid { element, .. } => Some(element),
        }
    }

    /// The attribute at fault, if any.
    pub fn attribute(&self) -> Option<&str> {
        match self {
            UrdfError::Xml(e) => e.attribute(),
            UrdfError::UndefinedName { attribute, .. } => Some(attribute),
            _ => None,
        }
    }
}

/// Result alias of the URDF and SRDF loaders.
pub type Result<T, E = UrdfError> = std::result::Result<T, E>;
