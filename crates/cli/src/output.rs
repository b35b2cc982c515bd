//! Writing output files safely: every file is checked writable before the work that fills it starts, written to a
//! temporary file beside it and renamed into place (an interrupted or failed write never leaves a truncated file),
//! and never one of the command's inputs.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::CliError;

/// Errors: `output` is (the same file as) one of `inputs`.
pub fn refuse_inputs(output: &Path, inputs: &[&Path]) -> Result<(), CliError> {
    for input in inputs {
        let same = match (input.canonicalize(), output.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => input == &output,
        };
        if same {
            return Err(CliError::Usage(format!(
                "the output {} is also an input of this command; choose another path",
                output.display()
            )));
        }
    }
    Ok(())
}

fn temporary(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Errors, before any work: `path`'s folder does not exist or a file cannot be created there.
pub fn check_writable(path: &Path) -> Result<(), CliError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(CliError::Usage(format!(
            "{}: the folder {} does not exist",
            path.display(),
            dir.display()
        )));
    }
    if path.is_dir() {
        return Err(CliError::Usage(format!("{} is a folder, not a file", path.display())));
    }
    let probe = temporary(path);
    std::fs::File::create(&probe).map_err(|source| CliError::Io { path: path.into(), source })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file renamed into place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let tmp = temporary(path);
    let io = |source| CliError::Io { path: path.into(), source };
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}
