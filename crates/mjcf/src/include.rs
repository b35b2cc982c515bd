//! `<include file="..."/>`: the children of the included file's root element (`<mujoco>`, or any other name, as
//! MuJoCo takes them: older models write `<mujocoinclude>`) replace the `include` element.
//!
//! As in MuJoCo, the file name is relative to the folder of the main model file (also for nested includes), and
//! when no file is there, to the folder of the file that includes it. An include may appear anywhere; a file that
//! includes itself, directly or not, is an error, and so is an included root without elements (MuJoCo's "Empty
//! include file").

use std::path::{Path, PathBuf};

use crate::error::{MjcfError, Result};
use signorini_xml::{Element, element as xml};

/// Replaces every `<include>` below `root` (read from the main model file in `main_dir`) by the included elements.
pub fn expand(root: &mut Element, main_dir: &Path, stack: &mut Vec<PathBuf>) -> Result<()> {
    expand_from(root, main_dir, main_dir, stack)
}

/// [`expand`] below `root`, read from a file in `file_dir`.
fn expand_from(root: &mut Element, main_dir: &Path, file_dir: &Path, stack: &mut Vec<PathBuf>) -> Result<()> {
    let mut out = Vec::with_capacity(root.children.len());
    for mut child in std::mem::take(&mut root.children) {
        if child.name != "include" {
            expand_from(&mut child, main_dir, file_dir, stack)?;
            out.push(child);
            continue;
        }
        child.check_attributes(&["file"])?;
        if let Some(c) = child.children.first() {
            return Err(child.unknown_child(c).into());
        }
        let file = child.required("file")?.value.clone();
        let mut path = main_dir.join(&file);
        if !path.exists() && file_dir.join(&file).exists() {
            path = file_dir.join(&file);
        }
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if stack.contains(&key) {
            return Err(MjcfError::CyclicInclude { at: child.at.clone(), file: PathBuf::from(file) });
        }
        let mut included = xml::read_file(&path, Some(&child.at))?;
        if included.children.is_empty() {
            return Err(MjcfError::Invalid {
                at: included.at.clone(),
                element: included.name.clone(),
                reason: "an included file's root element must hold the included elements (it is empty)"
                    .into(),
            });
        }
        included.check_attributes(&["model"])?;
        let dir = path.parent().map_or_else(|| file_dir.to_path_buf(), Path::to_path_buf);
        stack.push(key);
        expand_from(&mut included, main_dir, &dir, stack)?;
        stack.pop();
        out.extend(included.children);
    }
    root.children = out;
    Ok(())
}
