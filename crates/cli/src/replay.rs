//! Replays: what `signorini run --record OUT.html` keeps of a run (the geoms once, the body poses and contacts every
//! K steps) and the self-contained HTML page that replays it in a browser with three.js (`signorini view`).
//!
//! The page inlines the pinned three.js release fetched by `cargo xtask vendor` (or the file `SIGNORINI_THREE_JS`
//! names) and the replay as JSON: it fetches nothing when viewed. Frames: world, z up, metres; quaternions
//! `(w, x, y, z)`; a contact is its midpoint and its normal (from geom B to geom A).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use signorini_geometry::Shape;
use signorini_sim::{Data, Model};

use crate::error::CliError;

/// The page's template: `/*THREE_JS*/` and `/*REPLAY_JSON*/` are replaced.
const TEMPLATE: &str = include_str!("viewer.html");

/// The three.js release the page inlines (see `cargo xtask vendor`).
pub const THREE_VERSION: &str = "0.159.0";

/// A recorded run (see the module docs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Replay {
    /// The scene's label (its path).
    pub scene: String,
    /// Time step (s).
    pub dt: f64,
    /// Body names (body 0 is the world).
    pub bodies: Vec<String>,
    /// Every geom, in its body's frame.
    pub geoms: Vec<GeomView>,
    /// The recorded frames, in step order.
    pub frames: Vec<Frame>,
}

/// One geom as the page draws it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GeomView {
    /// Its body.
    pub body: usize,
    /// `plane`, `sphere`, `capsule`, `cylinder`, `box`, `ellipsoid` or `mesh`.
    pub kind: String,
    /// Radius / half-length / half-extents / semi-axes, by kind (m).
    pub size: Vec<f64>,
    /// Position in the body frame.
    pub pos: [f64; 3],
    /// Orientation in the body frame `(w, x, y, z)`.
    pub quat: [f64; 4],
    /// Meshes: vertices `(x, y, z)` flattened, in the geom frame.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vertices: Vec<f32>,
    /// Meshes: triangles (vertex indices) flattened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triangles: Vec<u32>,
}

/// The state of one recorded step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Frame {
    /// Step index.
    pub step: u64,
    /// Simulated time (s).
    pub time: f64,
    /// Body positions, `(x, y, z)` per body.
    pub pos: Vec<f32>,
    /// Body orientations, `(w, x, y, z)` per body.
    pub quat: Vec<f32>,
    /// Contacts, `(position, normal)` per contact (6 numbers each).
    pub contacts: Vec<f32>,
}

impl Replay {
    /// An empty recording of `model`'s geoms.
    pub fn new(model: &Model, scene: &str) -> Replay {
        let geoms = model.collision().geoms();
        let views = (0..geoms.shape.len())
            .map(|g| geom_view(&geoms.shape[g], geoms.body[g], &geoms.local_pose[g]))
            .collect();
        Replay {
            scene: scene.into(),
            dt: model.options.dt,
            bodies: model.multibody.body_name.clone(),
            geoms: views,
            frames: Vec::new(),
        }
    }

    /// Appends the state of `data` after step `step`.
    pub fn record(&mut self, data: &Data, step: u64) {
        let d = &data.multibody;
        let pos = d.xpos.iter().flat_map(|p| p.to_array()).map(|x| x as f32).collect();
        let quat = d.xquat.iter().flat_map(|q| [q.w, q.x, q.y, q.z]).map(|x| x as f32).collect();
        let c = data.collision.contacts();
        let contacts = (0..c.len())
            .flat_map(|k| c.position[k].to_array().into_iter().chain(c.normal[k].to_array()))
            .map(|x| x as f32)
            .collect();
        self.frames.push(Frame { step, time: d.time, pos, quat, contacts });
    }

    /// The self-contained page (see the module docs).
    pub fn html(&self) -> Result<String, CliError> {
        let three = three_js()?;
        crate::finite::ensure(self, "the replay")?;
        let json = serde_json::to_string(self).map_err(|e| CliError::Usage(e.to_string()))?;
        // Inside <script>, `</` could close the element: JSON may escape the slash.
        let json = json.replace("</", "<\\/");
        Ok(TEMPLATE.replacen("/*THREE_JS*/", &three, 1).replacen("/*REPLAY_JSON*/", &json, 1))
    }
}

/// How the page draws geom `shape` of `body` at `pose` (body frame); meshes and height fields (their surface) as
/// triangles.
fn geom_view(shape: &Shape, body: usize, pose: &signorini_geometry::Pose) -> GeomView {
    let q = pose.rotation;
    let mut view = GeomView {
        body,
        kind: String::new(),
        size: Vec::new(),
        pos: pose.translation.to_array(),
        quat: [q.w, q.x, q.y, q.z],
        vertices: Vec::new(),
        triangles: Vec::new(),
    };
    let mut mesh = |v: &[signorini_geometry::DVec3], t: &[[u32; 3]]| {
        view.vertices = v.iter().flat_map(|p| p.to_array()).map(|x| x as f32).collect();
        view.triangles = t.iter().flatten().copied().collect();
        "mesh"
    };
    let (kind, size) = match shape {
        Shape::Plane(_) => ("plane", vec![]),
        Shape::Sphere(s) => ("sphere", vec![s.radius()]),
        Shape::Capsule(c) => ("capsule", vec![c.radius(), c.half_length()]),
        Shape::Cylinder(c) => ("cylinder", vec![c.radius(), c.half_length()]),
        Shape::Box(b) => ("box", b.half_extents().to_array().to_vec()),
        Shape::Ellipsoid(e) => ("ellipsoid", e.semi_axes().to_array().to_vec()),
        Shape::ConvexMesh(m) => (mesh(m.vertices(), m.triangles()), vec![]),
        Shape::TriangleMesh(m) => (mesh(m.vertices(), m.triangles()), vec![]),
        Shape::HeightField(h) => {
            let (v, t) = h.surface_mesh();
            (mesh(&v, &t), vec![])
        }
    };
    view.kind = kind.into();
    view.size = size;
    view
}

/// Where three.js is read from: `SIGNORINI_THREE_JS`, else `target/vendor/three-VERSION/three.min.js` of this
/// repository (written by `cargo xtask vendor`).
pub fn three_js_path() -> PathBuf {
    match std::env::var_os("SIGNORINI_THREE_JS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../target/vendor")
            .join(format!("three-{THREE_VERSION}"))
            .join("three.min.js"),
    }
}

fn three_js() -> Result<String, CliError> {
    let path = three_js_path();
    let text = std::fs::read_to_string(&path).map_err(|e| {
        CliError::Usage(format!(
            "the replay page inlines three.js {THREE_VERSION}, read from {}: {e}; run `cargo xtask vendor` (or set \
             SIGNORINI_THREE_JS to a three.min.js)",
            path.display()
        ))
    })?;
    if text.contains("</script") {
        return Err(CliError::Usage(format!(
            "{}: cannot be inlined (it contains `</script`)",
            path.display()
        )));
    }
    Ok(text)
}

/// `signorini view DUMP.json --out FILE.html`: the page of a dump written with `run --record ... --dump`.
pub fn view(dump: &Path, out: &Path) -> Result<(), CliError> {
    if let (Ok(a), Ok(b)) = (dump.canonicalize(), out.canonicalize())
        && a == b
    {
        return Err(CliError::Usage(format!(
            "--out {} is the input file; choose another path",
            out.display()
        )));
    }
    let text = std::fs::read_to_string(dump).map_err(|source| CliError::Io { path: dump.into(), source })?;
    #[derive(Deserialize)]
    struct WithReplay {
        replay: Option<Replay>,
    }
    let parsed: WithReplay =
        serde_json::from_str(&text).map_err(|source| CliError::Json { path: dump.into(), source })?;
    let replay = parsed.replay.ok_or_else(|| {
        CliError::Usage(format!(
            "{}: no `replay` in this dump; record one with `signorini run SCENE.xml --record OUT.html --dump {}`",
            dump.display(),
            dump.display()
        ))
    })?;
    write_page(&replay, out)
}

/// Writes the page of `replay` to `out`.
pub fn write_page(replay: &Replay, out: &Path) -> Result<(), CliError> {
    let html = replay.html()?;
    crate::output::write_atomically(out, html.as_bytes())?;
    eprintln!("signorini: wrote {} ({} frames)", out.display(), replay.frames.len());
    Ok(())
}
