//! # signorini-xml
//!
//! The XML reading that signorini's loaders (`signorini-mjcf`, `signorini-urdf` with SRDF) share, so that neither
//! borrows the other's internals:
//!
//! | module | concept |
//! |---|---|
//! | [`element`] | owned element tree with a [`Location`] (file, line) on every element and attribute |
//! | [`attrs`] | typed attribute reading (numbers, arrays, keywords) over default layers |
//! | [`orientation`] | Euler sequences, `(w, x, y, z)` quaternions, the minimal rotation onto a direction |
//! | [`location`] | where in which file |
//! | [`error`] | [`XmlError`]: every variant names the file and line, and the element and attribute at fault |
//!
//! ```
//! use signorini_xml::{attrs::Attrs, element};
//!
//! let root = element::parse("<robot>\n  <link mass=\"2.5\"/>\n</robot>", std::path::Path::new("r.urdf"))?;
//! let link = &root.children[0];
//! assert_eq!(Attrs::own(link).f64("mass")?, Some(2.5));
//! let err = link.check_attributes(&["name"]).unwrap_err();
//! assert_eq!(err.to_string(), "r.urdf:2: unknown attribute `mass` on <link>");
//! # Ok::<(), signorini_xml::XmlError>(())
//! ```

pub mod attrs;
pub mod element;
pub mod error;
pub mod location;
pub mod orientation;

pub use element::{Attribute, Element, NotSimulated};
pub use error::{Result, XmlError};
pub use location::Location;
