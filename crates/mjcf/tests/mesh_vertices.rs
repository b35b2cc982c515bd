//! The vertices of a compiled mesh against MuJoCo 4.0's stored ones (`tests/data/mesh_vertices_mujoco.json`,
//! `scripts/mujoco_mesh_vertices.py`): MuJoCo narrows a mesh's vertices to single precision in the mesh's inertial
//! frame, and collision reads those floats. A chamfered cube scaled by 1e-3, an oblique point cloud off the origin, and
//! the Panda's link5 collision mesh at scale 1 and at an uneven scale.

use std::collections::HashMap;
use std::path::PathBuf;

use glam::{DQuat, DVec3};
use serde_json::Value;
use signorini_geometry::Shape;
use signorini_mjcf::load_mjcf;

fn vec3(v: &Value) -> DVec3 {
    DVec3::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap(), v[2].as_f64().unwrap())
}

/// Each vertex of our hull, placed in its body's frame by our geom pose, is one of MuJoCo's placed by MuJoCo's geom
/// pose, to 1e-15 m: far below the single-precision spacing (1e-10 to 1e-8 m at these sizes) by which vertices
/// kept in double, or narrowed in a frame 1e-8 from MuJoCo's, differ (then none of the four meshes matches).
#[test]
fn hull_vertices_are_mujocos_floats() {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("mesh_vertices_mujoco.json")).unwrap())
            .unwrap();
    let loaded = load_mjcf(&data.join("mesh_vertices.xml")).unwrap();
    let geoms: HashMap<&str, _> =
        loaded.spec.bodies.iter().flat_map(|b| &b.geoms).map(|g| (g.name.as_str(), g)).collect();
    for g in reference["geoms"].as_array().unwrap() {
        let name = g["name"].as_str().unwrap();
        let q = &g["quat"];
        let rot = DQuat::from_xyzw(
            q[1].as_f64().unwrap(),
            q[2].as_f64().unwrap(),
            q[3].as_f64().unwrap(),
            q[0].as_f64().unwrap(),
        );
        let pos = vec3(&g["pos"]);
        let theirs: Vec<DVec3> = g["vert"].as_array().unwrap().iter().map(|v| pos + rot * vec3(v)).collect();
        let geom = geoms[name];
        let Shape::ConvexMesh(hull) = &geom.shape else { panic!("{name} is not a mesh") };
        let (mut worst, mut exact) = (0.0f64, 0);
        for &v in hull.vertices() {
            let ours = geom.pos + geom.quat * v;
            let d = theirs.iter().map(|t| t.distance(ours)).fold(f64::INFINITY, f64::min);
            worst = worst.max(d);
            exact += usize::from(d < 1e-15);
        }
        let n = hull.vertices().len();
        println!(
            "{name}: {exact} of {n} hull vertices within 1e-15 m of MuJoCo's, largest distance {worst:.1e} m"
        );
        assert_eq!(exact, n, "{name}: a hull vertex is {worst:e} m from MuJoCo's nearest");
    }
}
