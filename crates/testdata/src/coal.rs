//! Coal query datasets in the layout of `shared/testdata/coal/*.json` (spec §6, `signorini query`).
//!
//! Shapes are centred at their local origin; a transform `{t, q_wxyz}` maps local to world. Coal's `halfspace`
//! `{x : n·x ≤ d}` becomes our half-space [`Plane`] placed with its `+z` along `n` at `d n`; Coal's two-sided `plane`
//! `{x : n·x = d}` becomes [`Plane::two_sided`] placed the same way; `convex` and `mesh` refer to the dataset's
//! `hulls` and `meshes` tables. Reference outputs (`distance`, `p1`, `p2`, `normal`, `collision`) are kept when present.

use std::collections::HashMap;
use std::sync::Arc;

use glam::{DQuat, DVec3};
use serde::Deserialize;
use signorini_geometry::{
    Capsule, ConvexMesh, Cuboid, Cylinder, Ellipsoid, Plane, Pose, Shape, Sphere, TriangleMesh,
};

use crate::error::{Result, TestDataError};

/// A local-to-world transform: `p_world = R(q) p_local + t`, quaternion `(w, x, y, z)`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Transform {
    /// Translation.
    pub t: [f64; 3],
    /// Rotation quaternion `(w, x, y, z)`.
    pub q_wxyz: [f64; 4],
}

impl Transform {
    /// The validated pose.
    pub fn pose(&self) -> Result<Pose> {
        Ok(Pose::from_wxyz(self.t, self.q_wxyz)?)
    }
}

/// One shape of a record.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ShapeSpec {
    /// Ball.
    Sphere {
        /// Radius.
        radius: f64,
    },
    /// Box by half extents.
    Box {
        /// Half extents.
        half_extents: [f64; 3],
    },
    /// Capsule along z.
    Capsule {
        /// Radius.
        radius: f64,
        /// Half-length of the core segment.
        half_length: f64,
    },
    /// Cylinder along z.
    Cylinder {
        /// Radius.
        radius: f64,
        /// Half-length.
        half_length: f64,
    },
    /// Ellipsoid by semi-axes.
    Ellipsoid {
        /// Semi-axes.
        radii: [f64; 3],
    },
    /// Convex hull from the dataset's `hulls` table.
    Convex {
        /// Key into `hulls`.
        hull_id: u64,
    },
    /// Triangle mesh from the dataset's `meshes` table.
    Mesh {
        /// Key into `meshes`.
        mesh_id: u64,
    },
    /// Half-space `{x : n·x ≤ offset}`.
    Halfspace {
        /// Outward normal (need not be unit).
        normal: [f64; 3],
        /// Offset along the unit normal.
        offset: f64,
    },
    /// Two-sided plane `{x : n·x = offset}`.
    Plane {
        /// Normal (need not be unit).
        normal: [f64; 3],
        /// Offset along the unit normal.
        offset: f64,
    },
}

/// Vertex/triangle table entry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MeshData {
    /// Vertices.
    pub vertices: Vec<[f64; 3]>,
    /// Triangles (vertex indices).
    pub triangles: Vec<[u32; 3]>,
}

/// One query record with its optional reference outputs.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct QueryRecord {
    /// Record id.
    pub id: u64,
    /// Shape 1 (A).
    pub shape1: ShapeSpec,
    /// Shape 2 (B).
    pub shape2: ShapeSpec,
    /// Pose of shape 1.
    pub tf1: Transform,
    /// Pose of shape 2.
    pub tf2: Transform,
    /// Reference signed distance.
    pub distance: Option<f64>,
    /// Reference witness on shape 1.
    pub p1: Option<[f64; 3]>,
    /// Reference witness on shape 2.
    pub p2: Option<[f64; 3]>,
    /// Reference normal (1 → 2).
    pub normal: Option<[f64; 3]>,
    /// Reference collision flag.
    pub collision: Option<bool>,
    /// Coal-vs-FCL disagreement flags.
    #[serde(default)]
    pub flags: Vec<String>,
}

/// A whole dataset file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct QueryDataset {
    /// Pair kind, e.g. `"box_box"`.
    pub kind: String,
    /// Records, in order.
    pub records: Vec<QueryRecord>,
    /// Convex hulls by id.
    #[serde(default)]
    pub hulls: HashMap<String, MeshData>,
    /// Triangle meshes by id.
    #[serde(default)]
    pub meshes: HashMap<String, MeshData>,
}

/// A record turned into shapes and poses.
#[derive(Debug, Clone)]
pub struct PreparedRecord {
    /// Record id.
    pub id: u64,
    /// Shape A and its pose.
    pub a: (Shape, Pose),
    /// Shape B and its pose.
    pub b: (Shape, Pose),
}

impl QueryDataset {
    /// Builds every record's shapes and poses (hulls and meshes are built once and shared).
    pub fn prepare(&self) -> Result<Vec<PreparedRecord>> {
        let mut tables = Tables { hulls: &self.hulls, meshes: &self.meshes, built: HashMap::new() };
        let mut out = Vec::with_capacity(self.records.len());
        for r in &self.records {
            let a = tables.shape(&r.shape1, &r.tf1)?;
            let b = tables.shape(&r.shape2, &r.tf2)?;
            out.push(PreparedRecord { id: r.id, a, b });
        }
        Ok(out)
    }
}

/// A motion of a continuous-collision record: the poses at `s = 0` and `s = 1`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct MotionSpec {
    /// Pose at the start.
    pub start: Transform,
    /// Pose at the end.
    pub end: Transform,
}

/// One continuous-collision record (`shared/testdata/coal/ccd.json`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CcdRecord {
    /// Record id.
    pub id: u64,
    /// Shape 1 (A).
    pub shape1: ShapeSpec,
    /// Shape 2 (B).
    pub shape2: ShapeSpec,
    /// Motion of shape 1.
    pub shape1_motion: MotionSpec,
    /// Motion of shape 2.
    pub shape2_motion: MotionSpec,
    /// Reference time of impact (the first `s` at which Coal's discrete `collide` is true).
    #[serde(default)]
    pub toi_ref: Option<f64>,
    /// Reference: whether the shapes touch for some `s ∈ [0, 1]`.
    #[serde(default)]
    pub collides_ref: Option<bool>,
}

/// A continuous-collision dataset file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CcdDataset {
    /// Records, in order.
    pub records: Vec<CcdRecord>,
    /// Convex hulls by id.
    #[serde(default)]
    pub hulls: HashMap<String, MeshData>,
    /// Triangle meshes by id.
    #[serde(default)]
    pub meshes: HashMap<String, MeshData>,
}

/// A continuous-collision record turned into shapes and start/end poses.
#[derive(Debug, Clone)]
pub struct PreparedCcd {
    /// Record id.
    pub id: u64,
    /// Shape A with its poses at `s = 0` and `s = 1`.
    pub a: (Shape, Pose, Pose),
    /// Shape B with its poses at `s = 0` and `s = 1`.
    pub b: (Shape, Pose, Pose),
}

impl CcdDataset {
    /// Builds every record's shapes and poses.
    pub fn prepare(&self) -> Result<Vec<PreparedCcd>> {
        let mut tables = Tables { hulls: &self.hulls, meshes: &self.meshes, built: HashMap::new() };
        let mut out = Vec::with_capacity(self.records.len());
        for r in &self.records {
            let mut side = |spec: &ShapeSpec, m: &MotionSpec| -> Result<(Shape, Pose, Pose)> {
                let (shape, start) = tables.shape(spec, &m.start)?;
                let (_, end) = tables.shape(spec, &m.end)?;
                Ok((shape, start, end))
            };
            let a = side(&r.shape1, &r.shape1_motion)?;
            let b = side(&r.shape2, &r.shape2_motion)?;
            out.push(PreparedCcd { id: r.id, a, b });
        }
        Ok(out)
    }
}

/// A dataset's `hulls` and `meshes` tables, and the shapes built from them so far (each built once and shared).
struct Tables<'a> {
    hulls: &'a HashMap<String, MeshData>,
    meshes: &'a HashMap<String, MeshData>,
    built: HashMap<(bool, u64), Shape>,
}

impl Tables<'_> {
    fn shape(&mut self, spec: &ShapeSpec, tf: &Transform) -> Result<(Shape, Pose)> {
        let pose = tf.pose()?;
        let v3 = DVec3::from_array;
        Ok(match spec {
            ShapeSpec::Sphere { radius } => (Sphere::new(*radius)?.into(), pose),
            ShapeSpec::Box { half_extents } => (Cuboid::new(v3(*half_extents))?.into(), pose),
            ShapeSpec::Capsule { radius, half_length } => (Capsule::new(*radius, *half_length)?.into(), pose),
            ShapeSpec::Cylinder { radius, half_length } => {
                (Cylinder::new(*radius, *half_length)?.into(), pose)
            }
            ShapeSpec::Ellipsoid { radii } => (Ellipsoid::new(v3(*radii))?.into(), pose),
            ShapeSpec::Convex { hull_id } => {
                let shape = match self.built.get(&(false, *hull_id)) {
                    Some(s) => s.clone(),
                    None => {
                        let data = table_entry(self.hulls, "hulls", *hull_id)?;
                        let points: Vec<DVec3> = data.vertices.iter().map(|p| v3(*p)).collect();
                        let s = Shape::ConvexMesh(Arc::new(ConvexMesh::from_points(&points)?));
                        self.built.insert((false, *hull_id), s.clone());
                        s
                    }
                };
                (shape, pose)
            }
            ShapeSpec::Mesh { mesh_id } => {
                let shape = match self.built.get(&(true, *mesh_id)) {
                    Some(s) => s.clone(),
                    None => {
                        let data = table_entry(self.meshes, "meshes", *mesh_id)?;
                        let vertices = data.vertices.iter().map(|p| v3(*p)).collect();
                        let s = Shape::TriangleMesh(Arc::new(TriangleMesh::new(
                            vertices,
                            data.triangles.clone(),
                        )?));
                        self.built.insert((true, *mesh_id), s.clone());
                        s
                    }
                };
                (shape, pose)
            }
            ShapeSpec::Halfspace { normal, offset } => {
                (Plane::half_space().into(), plane_pose(&pose, *normal, *offset)?)
            }
            ShapeSpec::Plane { normal, offset } => {
                (Plane::two_sided().into(), plane_pose(&pose, *normal, *offset)?)
            }
        })
    }
}

fn table_entry<'a>(
    table: &'a HashMap<String, MeshData>,
    name: &'static str,
    id: u64,
) -> Result<&'a MeshData> {
    table.get(&id.to_string()).ok_or(TestDataError::MissingEntry { table: name, id })
}

/// The pose of our plane (local `+z` normal through the origin) for `{x : n·x = d}` in the frame of `frame`.
fn plane_pose(frame: &Pose, normal: [f64; 3], offset: f64) -> Result<Pose> {
    let n = DVec3::from_array(normal);
    let Some(unit) = signorini_geometry::support::normalize_robust(n) else {
        return Err(TestDataError::InvalidPlane { what: format!("plane normal {n} has no direction") });
    };
    if !offset.is_finite() {
        return Err(TestDataError::InvalidPlane { what: format!("plane offset {offset} is not finite") });
    }
    let local = Pose { translation: unit * offset, rotation: DQuat::from_rotation_arc(DVec3::Z, unit) };
    Ok(frame.compose(&local))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dataset(json: &str) -> QueryDataset {
        serde_json::from_str(json).unwrap()
    }

    const IDENTITY: &str = r#"{"t": [0, 0, 0], "q_wxyz": [1, 0, 0, 0]}"#;

    #[test]
    fn a_half_space_is_placed_along_its_normal() {
        let json = format!(
            r#"{{"kind": "halfspace_sphere", "records": [{{"id": 7,
                "shape1": {{"type": "halfspace", "normal": [0, 0, 2], "offset": 0.5}},
                "shape2": {{"type": "sphere", "radius": 1}}, "tf1": {IDENTITY}, "tf2": {IDENTITY},
                "distance": -1.5}}]}}"#
        );
        let data = dataset(&json);
        let r = &data.prepare().unwrap()[0];
        assert_eq!((r.id, data.records[0].distance), (7, Some(-1.5)));
        assert!(matches!(r.a.0, Shape::Plane(_)) && matches!(r.b.0, Shape::Sphere(_)));
        assert_eq!(r.a.1.translation, DVec3::new(0.0, 0.0, 0.5));
    }

    #[test]
    fn missing_tables_and_degenerate_planes_are_errors() {
        let record = |shape1: &str| {
            format!(
                r#"{{"kind": "k", "records": [{{"id": 1, "shape1": {shape1},
                    "shape2": {{"type": "sphere", "radius": 1}}, "tf1": {IDENTITY}, "tf2": {IDENTITY}}}]}}"#
            )
        };
        let e = dataset(&record(r#"{"type": "convex", "hull_id": 3}"#)).prepare().unwrap_err();
        assert_eq!(e, TestDataError::MissingEntry { table: "hulls", id: 3 });
        let e =
            dataset(&record(r#"{"type": "plane", "normal": [0, 0, 0], "offset": 0}"#)).prepare().unwrap_err();
        assert!(matches!(e, TestDataError::InvalidPlane { .. }), "{e}");
        let e = dataset(&record(r#"{"type": "sphere", "radius": -1}"#)).prepare().unwrap_err();
        assert!(matches!(e, TestDataError::Geometry(_)), "{e}");
    }
}
