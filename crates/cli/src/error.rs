//! The CLI's typed error and its exit codes.

use thiserror::Error;

/// Everything the CLI can fail with. Printed as `signorini: error: <message>` on stderr.
#[derive(Debug, Error)]
pub enum CliError {
    /// A subcommand whose engine is not built yet (exit code 2).
    #[error("not implemented yet: {what}")]
    NotImplemented {
        /// What is missing.
        what: &'static str,
    },
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::NotImplemented { .. } => 2,
        }
    }
}
