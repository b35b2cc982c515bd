//! # signorini-testdata
//!
//! Reference test-data formats, kept out of the library crates: the collision tests, the benchmarks and the
//! `signorini query` command read them; no simulation does.
//!
//! | module | concept |
//! |---|---|
//! | [`coal`] | Coal query records (`shared/testdata/coal/*.json`): shapes, poses and reference outputs |
//! | [`error`] | [`TestDataError`]: a record that cannot be turned into shapes |

pub mod coal;
pub mod error;

pub use coal::{CcdDataset, PreparedCcd, PreparedRecord, QueryDataset};
pub use error::{Result, TestDataError};
