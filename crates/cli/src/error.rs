//! The CLI's typed error and its exit codes.

use std::path::PathBuf;

use signorini_collision::CollisionError;
use signorini_testdata::TestDataError;
use thiserror::Error;

/// Everything the CLI can fail with. Printed as `signorini: error: <message>` on stderr.
#[derive(Debug, Error)]
pub enum CliError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// An input file is not valid JSON of the expected layout.
    #[error("{}: malformed input: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's message (with line and column).
        source: serde_json::Error,
    },
    /// A query failed (unsupported pair, invalid shape or pose).
    #[error("record {id}: {source}")]
    Query {
        /// Record id.
        id: u64,
        /// The typed error.
        source: CollisionError,
    },
    /// The dataset could not be turned into shapes.
    #[error("{}: {source}", path.display())]
    Dataset {
        /// The file.
        path: PathBuf,
        /// The typed error.
        source: TestDataError,
    },
    /// A scene could not be loaded or compiled (the loader's message names file, line, element and attribute).
    #[error("{0}")]
    Scene(String),
    /// An argument is out of range.
    #[error("{0}")]
    Usage(String),
    /// A JSON document about to be written holds a NaN or an infinity (JSON would show it as `null`); nothing of it
    /// was written.
    #[error("{what} holds a non-finite number at {path}; it was not written")]
    NonFinite {
        /// The document (`the summary`, a dump path).
        what: String,
        /// The JSON path of the first such number.
        path: String,
    },
    /// The run was interrupted (Ctrl-C or SIGTERM) after writing its summary and the snapshots so far (exit 130).
    #[error("interrupted after step {step}: the summary and the snapshots so far were written")]
    Interrupted {
        /// The last step completed.
        step: u64,
    },
    /// The robot collision model could not be built or queried (the message names the joint, file or link).
    #[error("{0}")]
    Robot(#[from] signorini_robot::RobotError),
    /// A plot could not be drawn or written.
    #[error("{}: {what}", path.display())]
    Plot {
        /// The output file.
        path: PathBuf,
        /// What failed.
        what: String,
    },
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Interrupted { .. } => 130,
            _ => 1,
        }
    }
}
