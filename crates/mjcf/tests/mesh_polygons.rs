//! The polygons MuJoCo-compatible collisions read off a mesh hull (`ConvexMesh::mujoco_polygons`) against MuJoCo 4.0's
//! compiled `mesh_polyvert`/`mesh_polynormal` (`tests/data/mesh_polygons_mujoco.json`, `scripts/mujoco_mesh_polygons.py`):
//! builtin superspheres and a supertorus, scaled and not, and an inline point cloud.

use std::collections::HashMap;

use glam::DVec3;
use serde_json::Value;
use signorini_geometry::Shape;
use signorini_mjcf::load_mjcf_str;

fn reference() -> Value {
    serde_json::from_str(include_str!("data/mesh_polygons_mujoco.json")).unwrap()
}

fn vec3(v: &Value) -> DVec3 {
    DVec3::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap(), v[2].as_f64().unwrap())
}

/// Every MuJoCo polygon is one of ours (the same vertices, within MuJoCo's single-precision storage, in the same
/// cyclic order) and none of ours is extra; normals agree within 1e-13 rad: both come from the double-precision
/// vertices in the mesh's inertial frame, before MuJoCo stores them in single precision (from those, a small
/// triangle's normal turned by up to 4e-5 rad, the bound this test held before).
#[test]
fn mujoco_polygons_are_mujocos() {
    let r = reference();
    let loaded = load_mjcf_str(r["xml"].as_str().unwrap(), std::path::Path::new(".")).unwrap();
    let geoms: HashMap<&str, &Shape> =
        loaded.spec.bodies.iter().flat_map(|b| &b.geoms).map(|g| (g.name.as_str(), &g.shape)).collect();
    for mesh in r["meshes"].as_array().unwrap() {
        let name = mesh["name"].as_str().unwrap();
        let Shape::ConvexMesh(hull) = geoms[name] else { panic!("{name} is not a mesh") };
        let ours = hull.mujoco_polygons();
        let theirs = mesh["polygons"].as_array().unwrap();
        assert_eq!(ours.len(), theirs.len(), "{name}: polygon count");
        // Our vertex nearest each of MuJoCo's (MuJoCo keeps every file vertex; a hull keeps those on it).
        let nearest = |x: DVec3| {
            let (i, d) = hull
                .vertices()
                .iter()
                .enumerate()
                .map(|(i, v)| (i as u32, v.distance(x)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            assert!(d < 1e-7 * x.length().max(1.0), "{name}: MuJoCo vertex {x} is {d} from our hull's");
            i
        };
        let mut by_vertices: HashMap<Vec<u32>, usize> = HashMap::new();
        for p in 0..ours.len() {
            let mut key = ours.vertices(p).to_vec();
            key.sort_unstable();
            assert!(by_vertices.insert(key, p).is_none(), "{name}: two polygons on the same vertices");
        }
        let mut worst: f64 = 0.0;
        for (k, (poly, normal)) in theirs.iter().zip(mesh["normals"].as_array().unwrap()).enumerate() {
            let ids: Vec<u32> = poly.as_array().unwrap().iter().map(|v| nearest(vec3(v))).collect();
            let mut key = ids.clone();
            key.sort_unstable();
            let Some(&p) = by_vertices.get(&key) else {
                panic!("{name}: MuJoCo's polygon {k} {ids:?} is not ours")
            };
            let mine = ours.vertices(p);
            let shift = mine.iter().position(|&v| v == ids[0]).unwrap();
            assert!(
                (0..ids.len()).all(|i| mine[(shift + i) % ids.len()] == ids[i]),
                "{name}: polygon {k} in another order: ours {mine:?}, MuJoCo's {ids:?}"
            );
            // The chord between unit normals (their angle to first order; `acos` resolves only ~1e-8 rad).
            worst = worst.max((ours.normal(p) - vec3(normal)).length());
        }
        println!("{name}: normals within {worst:.1e} rad of MuJoCo's");
        assert!(worst < 1e-13, "{name}: a normal {worst} rad off MuJoCo's");
    }
}
