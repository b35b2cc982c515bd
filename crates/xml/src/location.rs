//! A place in an XML file: the file and the 1-based line.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// A place in an XML file: the file and the 1-based line. Displayed as `file:line`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_file_and_line() {
        let at = Location { file: Arc::new(PathBuf::from("dir/robot.urdf")), line: 7 };
        assert_eq!(at.to_string(), "dir/robot.urdf:7");
    }
}
