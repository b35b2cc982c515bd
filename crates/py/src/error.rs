//! The one Python exception of the module: every Rust error becomes a `signorini.SignoriniError` carrying its message.

use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::PyException;

create_exception!(
    signorini,
    SignoriniError,
    PyException,
    "An error reported by signorini: a file that does not load, an invalid option or parameter, a wrong array shape, \
     a failed step. The message names what is wrong."
);

/// A Rust error as a `SignoriniError`.
pub(crate) fn to_py(e: impl std::fmt::Display) -> PyErr {
    SignoriniError::new_err(e.to_string())
}
