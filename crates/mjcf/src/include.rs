//! `<include file="..."/>`: the children of the included file's `<mujoco>` root replace the `include` element.
//!
//! As in MuJoCo, the file name is relative to the folder of the main model file (also for nested includes). An
//! include may appear anywhere; a file that includes itself, directly or not, is an error.

use std::path::{Path, PathBuf};

use crate::error::{MjcfError, Result};
use signorini_xml::{Element, element as xml};

/// Replaces every `<include>` below `root` by the included elements.
pub fn expand(root: &mut Element, main_dir: &Path, stack: &mut Vec<PathBuf>) -> Result<()> {
    let mut out = Vec::with_capacity(root.children.len());
    for mut child in std::mem::take(&mut root.children) {
        if child.name != "include" {
            expand(&mut child, main_dir, stack)?;
            out.push(child);
            continue;
        }
        child.check_attributes(&["file"])?;
        if let Some(c) = child.children.first() {
            return Err(child.unknown_child(c).into());
        }
        let file = child.required("file")?.value.clone();
        let path = main_dir.join(&file);
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if stack.contains(&key) {
            return Err(MjcfError::CyclicInclude { at: child.at.clone(), file: PathBuf::from(file) });
        }
        let mut included = xml::read_file(&path, Some(&child.at))?;
        if included.name != "mujoco" {
            return Err(MjcfError::Invalid {
                at: included.at.clone(),
                element: included.name.clone(),
                reason: "an included file must have a <mujoco> root element".into(),
            });
        }
        included.check_attributes(&["model"])?;
        stack.push(key);
        expand(&mut included, main_dir, stack)?;
        stack.pop();
        out.extend(included.children);
    }
    root.children = out;
    Ok(())
}
