//! The robot collision model against Pinocchio 4.1 + Coal 3.0.3 (`shared/robots/iiwa_queries.json`: 60 iiwa
//! configurations; `crates/testdata/robots/panda_queries.json`: the Panda with its fingers locked open, made by
//! `scripts/robot_reference.py`): geometry poses, collision flags, distances, witnesses and gradients, for the triangle
//! meshes and for their convex hulls; gradients also against our own central finite differences.

use std::path::PathBuf;

use glam::DVec3;
use serde_json::Value;
use signorini_robot::{MeshGeometry, RobotModel, RobotOptions};

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/robots")
}

fn vec3(v: &Value) -> DVec3 {
    DVec3::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap(), v[2].as_f64().unwrap())
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

struct Case {
    reference: Value,
    urdf: PathBuf,
    srdf: PathBuf,
}

fn options(reference: &Value, geometry: MeshGeometry) -> RobotOptions {
    let joint_names =
        reference["joint_names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().into()).collect();
    let locked = reference["locked_joints"].as_object().unwrap();
    RobotOptions {
        geometry,
        joint_names: Some(joint_names),
        locked_joints: locked.iter().map(|(k, v)| (k.clone(), v.as_f64().unwrap())).collect(),
        ..RobotOptions::default()
    }
}

/// Compares every configuration of `case` for one geometry kind (`"mesh"` or `"hull"`).
fn compare(case: &Case, geometry: MeshGeometry) {
    let key = match geometry {
        MeshGeometry::TriangleMesh => "mesh",
        MeshGeometry::ConvexHull => "hull",
    };
    let r = &case.reference;
    let robot = RobotModel::from_files(&case.urdf, Some(&case.srdf), &options(r, geometry)).unwrap();
    let names: Vec<&str> = robot.geoms().iter().map(|g| g.name.as_str()).collect();
    let expected_names: Vec<&str> =
        r["geometry_names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(names, expected_names);
    let pairs: Vec<[usize; 2]> = r["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| [p[0].as_u64().unwrap() as usize, p[1].as_u64().unwrap() as usize])
        .collect();
    assert_eq!(robot.pairs(), pairs.as_slice());
    let nq = robot.nq();
    let mut data = robot.data();
    let (mut out, mut grad) = (Vec::new(), Vec::new());
    let (mut max_d, mut max_p, mut max_g, mut max_pose) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    for c in r["configs"].as_array().unwrap() {
        let q = floats(&c["q"]);
        let ans = &c[key];
        robot.distance_gradients(&mut data, &q, &mut out, &mut grad).unwrap();
        for (g, pose) in c["geom_poses"].as_array().unwrap().iter().enumerate() {
            let p = floats(pose);
            let ours = data.geom_poses()[g];
            max_pose = max_pose.max((ours.translation - DVec3::new(p[0], p[1], p[2])).length());
            let [w, x, y, z] = ours.rotation_wxyz();
            let dq = (w * p[3] + x * p[4] + y * p[5] + z * p[6]).abs();
            max_pose = max_pose.max(1.0 - dq);
        }
        let index = c["index"].as_u64().unwrap();
        assert!(
            max_pose < 1e-12,
            "{key} config {index}: geometry poses differ from Pinocchio's by {max_pose}"
        );
        for (p, d) in out.iter().enumerate() {
            let at = format!("{key} config {index} pair {p}");
            assert_eq!(d.collision, ans["collision"][p].as_bool().unwrap(), "{at}: collision flag");
            let dist = ans["distance"][p].as_f64().unwrap();
            assert!((d.distance - dist).abs() < 1e-6, "{at}: distance {} vs {dist}", d.distance);
            max_d = max_d.max((d.distance - dist).abs());
            if ans["p1"][p].is_null() {
                assert!(d.witness.is_none(), "{at}: Coal gives no witness here");
                continue;
            }
            let w = d.witness.unwrap_or_else(|| panic!("{at}: no witness"));
            // Witnesses are unique only for separated pairs (a penetration's deepest points can tie).
            if !d.collision {
                let e = (w.point_a - vec3(&ans["p1"][p]))
                    .length()
                    .max((w.point_b - vec3(&ans["p2"][p])).length());
                assert!(e < 1e-5, "{at}: witness points {e}");
                max_p = max_p.max(e);
            }
            assert!((w.normal - vec3(&ans["normal"][p])).length() < 1e-4, "{at}: normal");
            let row = &grad[p * nq..(p + 1) * nq];
            let e = row.iter().zip(floats(&ans["grad"][p])).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            assert!(e < 1e-5, "{at}: gradient {row:?} vs {:?}", ans["grad"][p]);
            max_g = max_g.max(e);
        }
        let md = robot.min_distance(&mut data, &q).unwrap().unwrap();
        assert!((md.distance - ans["min_distance"]["distance"].as_f64().unwrap()).abs() < 1e-6);
        assert_eq!(robot.is_colliding(&mut data, &q).unwrap(), ans["any_collision"].as_bool().unwrap());
    }
    assert!(max_pose < 1e-12, "geometry poses differ from Pinocchio's by {max_pose}");
    eprintln!("{key}: max |Δdistance| {max_d:.2e}, |Δwitness| {max_p:.2e}, |Δgrad| {max_g:.2e}");
}

fn iiwa() -> Case {
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(shared().join("iiwa_queries.json")).unwrap()).unwrap();
    Case { reference, urdf: shared().join("kuka_iiwa/model.urdf"), srdf: shared().join("iiwa.srdf") }
}

fn panda() -> Option<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/robots");
    let text = std::fs::read_to_string(dir.join("panda_queries.json")).ok()?;
    Some(Case {
        reference: serde_json::from_str(&text).unwrap(),
        urdf: shared().join("franka_panda/panda.urdf"),
        srdf: dir.join("panda.srdf"),
    })
}

#[test]
fn iiwa_hulls_match_coal() {
    compare(&iiwa(), MeshGeometry::ConvexHull);
}

#[test]
fn iiwa_meshes_match_coal() {
    compare(&iiwa(), MeshGeometry::TriangleMesh);
}

#[test]
fn panda_hulls_match_coal() {
    compare(&panda().expect("crates/testdata/robots/panda_queries.json"), MeshGeometry::ConvexHull);
}

#[test]
fn panda_meshes_match_coal() {
    compare(&panda().expect("crates/testdata/robots/panda_queries.json"), MeshGeometry::TriangleMesh);
}

/// Central finite differences of each pair's distance against the analytic gradient, on the hulls (signed, smooth
/// away from ties) at configurations of the reference.
#[test]
fn gradients_match_finite_differences() {
    let case = iiwa();
    let robot = RobotModel::from_files(
        &case.urdf,
        Some(&case.srdf),
        &options(&case.reference, MeshGeometry::ConvexHull),
    )
    .unwrap();
    let mut data = robot.data();
    let (mut out, mut grad, mut tmp) = (Vec::new(), Vec::new(), Vec::new());
    let h = 1e-6;
    let mut worst = 0.0_f64;
    for c in case.reference["configs"].as_array().unwrap().iter().take(20) {
        let q = floats(&c["q"]);
        robot.distance_gradients(&mut data, &q, &mut out, &mut grad).unwrap();
        for v in 0..robot.nq() {
            let mut dist = |x: f64| {
                let mut qq = q.clone();
                qq[v] = x;
                robot.distances(&mut data, &qq, &mut tmp).unwrap();
                tmp.iter().map(|d| d.distance).collect::<Vec<_>>()
            };
            let (hi, lo) = (dist(q[v] + h), dist(q[v] - h));
            for p in 0..out.len() {
                let fd = (hi[p] - lo[p]) / (2.0 * h);
                worst = worst.max((fd - grad[p * robot.nq() + v]).abs());
            }
        }
    }
    assert!(worst < 1e-5, "gradient vs finite differences: {worst}");
}

#[test]
fn typed_errors_name_the_culprit() {
    use signorini_robot::RobotError;
    let case = iiwa();
    let (urdf, srdf) = (case.urdf.as_path(), Some(case.srdf.as_path()));
    let robot = RobotModel::from_files(urdf, srdf, &RobotOptions::default()).unwrap();
    let mut data = robot.data();
    let e = robot.is_colliding(&mut data, &[0.0; 6]).unwrap_err();
    assert!(matches!(e, RobotError::ConfigurationLength { expected: 7, got: 6, .. }), "{e}");
    let e = robot.is_colliding(&mut data, &[0.0, 0.0, f64::NAN, 0.0, 0.0, 0.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("lbr_iiwa_joint_3"), "{e}");
    let unknown = RobotOptions { joint_names: Some(vec!["elbow".into()]), ..RobotOptions::default() };
    let e = RobotModel::from_files(urdf, srdf, &unknown).unwrap_err();
    assert!(matches!(&e, RobotError::UnknownJoint { name, .. } if name == "elbow"), "{e}");
    let locked =
        RobotOptions { locked_joints: vec![("lbr_iiwa_joint_2".into(), 3.0)], ..RobotOptions::default() };
    let e = RobotModel::from_files(urdf, srdf, &locked).unwrap_err();
    assert!(matches!(e, RobotError::LockedOutOfLimits { .. }), "{e}");
    let missing =
        RobotOptions { joint_names: Some(vec!["lbr_iiwa_joint_1".into()]), ..RobotOptions::default() };
    let e = RobotModel::from_files(urdf, srdf, &missing).unwrap_err();
    assert!(matches!(&e, RobotError::UnassignedJoint { name } if name == "lbr_iiwa_joint_2"), "{e}");
    let dir = std::env::temp_dir().join(format!("signorini-robot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bad.srdf"),
        "<robot name=\"r\">\n<disable_collisions link1=\"lbr_iiwa_link_1\" link2=\"gripper\"/>\n</robot>",
    )
    .unwrap();
    let e = RobotModel::from_files(urdf, Some(&dir.join("bad.srdf")), &RobotOptions::default()).unwrap_err();
    assert!(e.to_string().contains("gripper"), "{e}");
    std::fs::write(dir.join("r.urdf"), "<robot name=\"r\"><link name=\"a\"><collision><geometry><mesh filename=\"gone.stl\"/></geometry></collision></link></robot>").unwrap();
    let e = RobotModel::from_files(&dir.join("r.urdf"), None, &RobotOptions::default()).unwrap_err();
    assert!(e.to_string().contains("gone.stl"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
