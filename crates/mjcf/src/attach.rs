//! `<asset><model>` and `<attach>`: a body subtree of another MJCF file grafted into this one, every name prefixed.
//!
//! `<model name="m" file="f.xml"/>` names a file (relative to this file's folder; its own includes are relative to
//! its folder); `name` defaults to the file's `<mujoco model>`. `<attach model="m" body="b" prefix="p"/>` in a body,
//! frame or replicate puts body `b` of that file, with everything below it, in its place, as MuJoCo's `mjs_attach`
//! does:
//!
//! - every name inside gets the prefix (`torso` → `p` + `torso`), and so does every reference to a name, default
//!   class, mesh or height field;
//! - the file's default classes come along as a separate tree, its `main` class named `p` + `main`: attached elements
//!   use the defaults of their own file, not this one's;
//! - its meshes and height fields come along, prefixed, read from its own `meshdir`;
//! - its contact exclusions and pairs, equalities, tendons, actuators and sensors come along when everything they
//!   refer to was attached (MuJoCo drops the others), prefixed, before this file's own;
//! - its keyframes come along, prefixed, before this file's own, holding its values for the attached dofs and actuators and this model's
//!   defaults (`qpos0`, zero velocity and controls) elsewhere. Inside a replicate they apply to the first copy, as in
//!   MuJoCo.
//!
//! `<attach frame="f" prefix="p"/>` without a model copies frame `f` of this same file there, its names prefixed (its
//! classes and assets are this file's).
//!
//! This runs on the XML tree before anything else is read. The file's `<option>` and its other sections are not used
//! (MuJoCo keeps the parent's options). A file whose `<compiler>` reads angles, Euler sequences, limits or inertia
//! differently from this one is an error rather than a silent reinterpretation.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use signorini_model::spec::ModelSpec;

use crate::compiler::Compiler;
use crate::error::{MjcfError, Result};
use crate::include;
use crate::replicated::REFERENCES;
use signorini_xml::{Attribute, Element, element as xml};

/// Attributes that name a default class or an asset.
const CLASS_AND_ASSET: &[&str] = &["class", "childclass", "mesh", "hfield", "material", "texture"];
/// Sections of an attached file whose elements come along when what they refer to was attached.
const REFERRING: &[&str] = &["contact", "equality", "tendon", "actuator", "sensor"];

/// A keyframe of an attached file, for the dofs of the first copy of its attachment.
#[derive(Debug, Clone)]
pub struct AttachedKey {
    /// The `<key>`, its name prefixed.
    pub key: Element,
    /// The attachment's prefix.
    pub prefix: String,
    /// The attached file as a model of its own: the layout of the key's vectors.
    pub child: Arc<ModelSpec>,
    /// Per actuator of `child`: whether it was attached.
    pub attached_actuators: Vec<bool>,
}

/// What the attachments add beside the grafted bodies.
#[derive(Debug, Clone, Default)]
pub struct Attached {
    /// One root default class per attachment (`<default class="p main">`).
    pub default_roots: Vec<Element>,
    /// The attached files' keyframes.
    pub keys: Vec<AttachedKey>,
}

struct ModelAsset {
    name: String,
    root: Element,
    dir: PathBuf,
    compiler: Compiler,
    /// The file loaded on its own, when a keyframe needs its layout.
    spec: OnceLock<Arc<ModelSpec>>,
}

impl ModelAsset {
    fn spec(&self) -> Result<Arc<ModelSpec>> {
        if let Some(s) = self.spec.get() {
            return Ok(s.clone());
        }
        let loaded = crate::parse::load(self.root.clone(), &self.dir, Vec::new())?;
        Ok(self.spec.get_or_init(|| Arc::new(loaded.spec)).clone())
    }
}

/// Replaces every `<attach>` below `root` and moves the attached files' assets and referring elements into `root`.
pub fn expand(root: &mut Element, model_dir: &Path, stack: &mut Vec<PathBuf>) -> Result<Attached> {
    let mut models = Vec::new();
    for section in root.children.iter_mut().filter(|s| s.name == "asset") {
        let (model_elements, rest): (Vec<_>, Vec<_>) =
            std::mem::take(&mut section.children).into_iter().partition(|c| c.name == "model");
        section.children = rest;
        for m in model_elements {
            models.push(read_model(&m, model_dir, stack)?);
        }
    }
    let mut out = Attached::default();
    // `<attach frame="f">` without a model copies frame `f` of this file (MuJoCo 4.0).
    let mut frames = Vec::new();
    for w in root.children.iter().filter(|s| s.name == "worldbody") {
        collect_frames(w, &mut frames);
    }
    for section in root.children.iter_mut().filter(|s| s.name == "worldbody") {
        graft_frames(section, &frames)?;
    }
    if models.is_empty() {
        return match find_attach(root) {
            Some(a) => {
                check_attach(a)?;
                Err(undefined_model(a))
            }
            None => Ok(out),
        };
    }
    let mut compiler = Compiler::default();
    for s in root.children.iter().filter(|s| s.name == "compiler") {
        compiler.apply(s)?;
    }
    let mut extra_sections = Vec::new();
    for section in root.children.iter_mut().filter(|s| s.name == "worldbody") {
        graft(section, &models, &compiler, &mut out, &mut extra_sections)?;
    }
    // MuJoCo attaches while it reads the worldbody, before this file's own later sections: the attached elements
    // come first.
    root.children.splice(0..0, extra_sections);
    Ok(out)
}

fn read_model(e: &Element, model_dir: &Path, stack: &mut Vec<PathBuf>) -> Result<ModelAsset> {
    e.check_attributes(&["name", "file", "content_type"])?;
    e.check_no_children()?;
    let file = e.required("file")?;
    let path = model_dir.join(&file.value);
    let key = path.canonicalize().unwrap_or_else(|_| path.clone());
    if stack.contains(&key) {
        return Err(MjcfError::CyclicInclude { at: file.at.clone(), file: PathBuf::from(&file.value) });
    }
    let mut root = xml::read_file(&path, Some(&e.at))?;
    if root.name != "mujoco" {
        return Err(MjcfError::Invalid {
            at: root.at.clone(),
            element: root.name.clone(),
            reason: "a model asset's file must have a <mujoco> root element".into(),
        });
    }
    let dir = path.parent().map_or_else(|| model_dir.to_path_buf(), Path::to_path_buf);
    stack.push(key);
    include::expand(&mut root, &dir, stack)?;
    let nested = expand(&mut root, &dir, stack)?;
    stack.pop();
    if !nested.keys.is_empty() || !nested.default_roots.is_empty() {
        return Err(e.not_supported("a model asset that itself attaches models").into());
    }
    let mut compiler = Compiler::default();
    for s in root.children.iter().filter(|s| s.name == "compiler") {
        compiler.apply(s)?;
    }
    let name = match e.attr("name") {
        Some(n) => n.to_string(),
        None => root.attr("model").unwrap_or("MuJoCo Model").to_string(),
    };
    Ok(ModelAsset { name, root, dir, compiler, spec: OnceLock::new() })
}

fn check_attach(a: &Element) -> Result<()> {
    a.check_attributes(&["model", "body", "prefix", "frame"])?;
    a.check_no_children()?;
    if a.attribute("frame").is_some() {
        return Err(a.not_supported("attaching a <frame> of another model (attach a body)").into());
    }
    Ok(())
}

/// The named frames below `e` (bodies and frames), as written.
fn collect_frames(e: &Element, out: &mut Vec<Element>) {
    for c in &e.children {
        if c.name == "frame" && c.attr("name").is_some() {
            out.push(c.clone());
        }
        if matches!(c.name.as_str(), "body" | "frame" | "replicate") {
            collect_frames(c, out);
        }
    }
}

/// Replaces every `<attach frame="f" prefix="p">` without a model by a copy of this file's frame `f` (its names
/// prefixed; it keeps this file's classes and assets).
fn graft_frames(e: &mut Element, frames: &[Element]) -> Result<()> {
    for child in &mut e.children {
        if child.name == "attach" && child.attribute("frame").is_some() && child.attribute("model").is_none()
        {
            child.check_attributes(&["frame", "prefix"])?;
            child.check_no_children()?;
            let attr = child.required("frame")?;
            let frame =
                frames.iter().find(|f| f.attr("name") == Some(attr.value.as_str())).ok_or_else(|| {
                    MjcfError::UndefinedName {
                        at: attr.at.clone(),
                        element: "attach".into(),
                        attribute: "frame".into(),
                        kind: "frame",
                        name: attr.value.clone(),
                    }
                })?;
            let prefix = child.attr("prefix").unwrap_or_default().to_string();
            let mut copy = frame.clone();
            prefix_names(&mut copy, &prefix);
            *child = copy;
        } else if matches!(child.name.as_str(), "body" | "frame" | "replicate") {
            graft_frames(child, frames)?;
        }
    }
    Ok(())
}

/// Prefixes every name and every reference to an element name in `e` and below (not classes or assets).
fn prefix_names(e: &mut Element, prefix: &str) {
    for a in &mut e.attributes {
        let n = a.name.as_str();
        if (n == "name" && !a.value.is_empty()) || (REFERENCES.contains(&n) && a.value != "world") {
            a.value.insert_str(0, prefix);
        }
    }
    for c in &mut e.children {
        prefix_names(c, prefix);
    }
}

fn find_attach(e: &Element) -> Option<&Element> {
    e.children.iter().find_map(|c| if c.name == "attach" { Some(c) } else { find_attach(c) })
}

fn undefined_model(a: &Element) -> MjcfError {
    let attr = a.attribute("model");
    MjcfError::UndefinedName {
        at: attr.map_or(a.at.clone(), |x| x.at.clone()),
        element: "attach".into(),
        attribute: "model".into(),
        kind: "model asset",
        name: attr.map(|x| x.value.clone()).unwrap_or_default(),
    }
}

/// Replaces the `<attach>` elements below `e` (bodies, frames, replicates) by the bodies they name.
fn graft(
    e: &mut Element,
    models: &[ModelAsset],
    compiler: &Compiler,
    out: &mut Attached,
    extra: &mut Vec<Element>,
) -> Result<()> {
    for child in &mut e.children {
        if child.name == "attach" {
            *child = attach(child, models, compiler, out, extra)?;
        } else if matches!(child.name.as_str(), "body" | "frame" | "replicate") {
            graft(child, models, compiler, out, extra)?;
        }
    }
    Ok(())
}

fn attach(
    a: &Element,
    models: &[ModelAsset],
    compiler: &Compiler,
    out: &mut Attached,
    extra: &mut Vec<Element>,
) -> Result<Element> {
    check_attach(a)?;
    let model_name = a.required("model")?.value.as_str();
    let model = models.iter().find(|m| m.name == model_name).ok_or_else(|| undefined_model(a))?;
    if !same_reading(&model.compiler, compiler) {
        return Err(a
            .not_supported(
                "attaching a model whose <compiler> reads angles, Euler sequences, limits or inertia differently from \
                 this file's",
            )
            .into());
    }
    let body_attr = a.required("body")?;
    let prefix = a.attr("prefix").unwrap_or_default();
    let (body, inherited_class) = model
        .root
        .children
        .iter()
        .filter(|s| s.name == "worldbody")
        .find_map(|w| find_body(w, &body_attr.value, None))
        .ok_or_else(|| MjcfError::UndefinedName {
            at: body_attr.at.clone(),
            element: "attach".into(),
            attribute: "body".into(),
            kind: "body",
            name: body_attr.value.clone(),
        })?;

    let mut grafted = body.clone();
    let mut names = HashSet::from(["world".to_string()]);
    collect_names(&grafted, &mut names);
    prefix_tree(&mut grafted, prefix);
    if grafted.attribute("childclass").is_none() {
        let class = inherited_class.unwrap_or("main");
        grafted.attributes.push(Attribute {
            name: "childclass".into(),
            value: format!("{prefix}{class}"),
            at: grafted.at.clone(),
        });
    }

    let mut root_default = Element {
        name: "default".into(),
        attributes: vec![Attribute {
            name: "class".into(),
            value: format!("{prefix}main"),
            at: a.at.clone(),
        }],
        children: Vec::new(),
        at: a.at.clone(),
    };
    for d in model.root.children.iter().filter(|s| s.name == "default") {
        for c in &d.children {
            let mut c = c.clone();
            prefix_tree(&mut c, prefix);
            root_default.children.push(c);
        }
    }
    out.default_roots.push(root_default);

    for s in model.root.children.iter().filter(|s| s.name == "asset") {
        let mut section = Element { children: Vec::new(), ..s.clone() };
        for c in s.children.iter().filter(|c| matches!(c.name.as_str(), "mesh" | "hfield")) {
            let mut c = c.clone();
            if let Some(file) = c.attributes.iter_mut().find(|x| x.name == "file") {
                let stem = Path::new(&file.value).file_stem().map(|s| s.to_string_lossy().into_owned());
                let dir =
                    model.compiler.meshdir.as_ref().map_or_else(|| model.dir.clone(), |m| model.dir.join(m));
                file.value = dir.join(&file.value).to_string_lossy().into_owned();
                if c.attribute("name").is_none()
                    && let Some(stem) = stem
                {
                    c.attributes.push(Attribute { name: "name".into(), value: stem, at: c.at.clone() });
                }
            }
            prefix_tree(&mut c, prefix);
            section.children.push(c);
        }
        extra.push(section);
    }

    let mut attached_actuators = Vec::new();
    for kind in REFERRING {
        for s in model.root.children.iter().filter(|s| s.name == *kind) {
            let mut section = Element { children: Vec::new(), ..s.clone() };
            for c in &s.children {
                let attached = refers_only_to(c, &names);
                if *kind == "actuator" {
                    attached_actuators.push(attached);
                }
                if !attached {
                    continue;
                }
                if let Some(n) = c.attr("name").filter(|n| !n.is_empty()) {
                    names.insert(n.to_string());
                }
                let mut c = c.clone();
                prefix_tree(&mut c, prefix);
                section.children.push(c);
            }
            extra.push(section);
        }
    }
    for s in model.root.children.iter().filter(|s| s.name == "keyframe") {
        s.check_attributes(&[])?;
        for k in &s.children {
            let mut key = k.clone();
            prefix_tree(&mut key, prefix);
            out.keys.push(AttachedKey {
                key,
                prefix: prefix.to_string(),
                child: model.spec()?,
                attached_actuators: attached_actuators.clone(),
            });
        }
    }
    Ok(grafted)
}

/// Whether two files read the same XML into the same model (everything but the asset folders).
fn same_reading(a: &Compiler, b: &Compiler) -> bool {
    let strip = |c: &Compiler| Compiler { meshdir: None, strippath: false, ..c.clone() };
    strip(a) == strip(b)
}

/// The body named `name` below `e` (through bodies and frames), with the innermost `childclass` around it.
fn find_body<'a>(
    e: &'a Element,
    name: &str,
    class: Option<&'a str>,
) -> Option<(&'a Element, Option<&'a str>)> {
    for c in &e.children {
        match c.name.as_str() {
            "body" if c.attr("name") == Some(name) => return Some((c, class)),
            "body" | "frame" => {
                if let Some(found) = find_body(c, name, c.attr("childclass").or(class)) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

fn collect_names(e: &Element, names: &mut HashSet<String>) {
    if let Some(n) = e.attr("name").filter(|n| !n.is_empty()) {
        names.insert(n.to_string());
    }
    for c in &e.children {
        collect_names(c, names);
    }
}

fn refers_only_to(e: &Element, names: &HashSet<String>) -> bool {
    e.attributes.iter().filter(|a| REFERENCES.contains(&a.name.as_str())).all(|a| names.contains(&a.value))
        && e.children.iter().all(|c| refers_only_to(c, names))
}

/// Prefixes every name, reference, class and asset name in `e` and below (`world` stays `world`).
fn prefix_tree(e: &mut Element, prefix: &str) {
    if prefix.is_empty() {
        return;
    }
    for a in &mut e.attributes {
        let n = a.name.as_str();
        let named = n == "name" && !a.value.is_empty();
        let reference = REFERENCES.contains(&n) && a.value != "world";
        if named || reference || CLASS_AND_ASSET.contains(&n) {
            a.value.insert_str(0, prefix);
        }
    }
    for c in &mut e.children {
        prefix_tree(c, prefix);
    }
}
