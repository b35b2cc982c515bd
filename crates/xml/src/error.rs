//! The typed error of XML reading: every variant names the file and line, and, where one is at fault, the element
//! and the attribute. The loaders wrap it in their own errors (`MjcfError`, `UrdfError`) with the same message.

use std::path::PathBuf;

use thiserror::Error;

use crate::location::Location;

/// What went wrong while reading an XML document: the file, its syntax, its elements and attribute values.
///
/// Faults of the model a document describes (a name that refers to nothing, a cycle, a bad mesh) are the loaders'
/// own errors.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum XmlError {
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
    Syntax {
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
    /// Elements nest deeper than [`crate::element::MAX_DEPTH`].
    #[error("{at}: elements nest deeper than {depth} levels (the deepest nesting accepted)")]
    TooDeep {
        /// The first element past the limit.
        at: Location,
        /// The limit.
        depth: usize,
    },
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
    /// A value rule that fails with the attribute not written (its default is in force), or an element-level
    /// reading fault.
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

impl XmlError {
    /// The location the error points at, if any (a syntax error has a line but no [`Location`]).
    pub fn location(&self) -> Option<&Location> {
        match self {
            XmlError::Io { at, .. } => at.as_ref(),
            XmlError::Syntax { .. } => None,
            XmlError::UnknownElement { at, .. }
            | XmlError::UnknownAttribute { at, .. }
            | XmlError::NotSupported { at, .. }
            | XmlError::MissingAttribute { at, .. }
            | XmlError::InvalidValue { at, .. }
            | XmlError::Invalid { at, .. }
            | XmlError::TooDeep { at, .. } => Some(at),
        }
    }

    /// The 1-based line the error points at, if any.
    pub fn line(&self) -> Option<u32> {
        match self {
            XmlError::Syntax { line, .. } => Some(*line),
            _ => self.location().map(|l| l.line),
        }
    }

    /// The element at fault, if any.
    pub fn element(&self) -> Option<&str> {
        match self {
            XmlError::Io { .. } | XmlError::Syntax { .. } | XmlError::TooDeep { .. } => None,
            XmlError::UnknownElement { element, .. }
            | XmlError::UnknownAttribute { element, .. }
            | XmlError::NotSupported { element, .. }
            | XmlError::MissingAttribute { element, .. }
            | XmlError::InvalidValue { element, .. }
            | XmlError::Invalid { element, .. } => Some(element),
        }
    }

    /// The attribute at fault, if any.
    pub fn attribute(&self) -> Option<&str> {
        match self {
            XmlError::UnknownAttribute { attribute, .. }
            | XmlError::MissingAttribute { attribute, .. }
            | XmlError::InvalidValue { attribute, .. } => Some(attribute),
            XmlError::NotSupported { attribute, .. } => attribute.as_deref(),
            _ => None,
        }
    }
}

/// Result alias of XML reading.
pub type Result<T, E = XmlError> = std::result::Result<T, E>;
