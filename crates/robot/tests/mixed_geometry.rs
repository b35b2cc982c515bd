//! A robot mixing primitives and triangle meshes: every pair is answered in both geometry modes, and the mesh mode's
//! gradients match central finite differences.

use std::path::PathBuf;

use signorini_robot::{MeshGeometry, RobotModel, RobotOptions};

fn urdf() -> String {
    let mesh =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/robots/kuka_iiwa/meshes/link_2.stl");
    format!(
        r#"<robot name="mixed">
  <link name="base"><collision><origin xyz="0 0 0.05"/><geometry><box size="0.4 0.4 0.1"/></geometry></collision></link>
  <link name="upper"><collision><geometry><mesh filename="{}"/></geometry></collision></link>
  <link name="fore"><collision><origin xyz="0 0 0.15"/><geometry><capsule radius="0.04" length="0.3"/></geometry></collision>
    <collision><origin xyz="0 0 0.35"/><geometry><sphere radius="0.06"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0 0.2"/>
    <axis xyz="0 1 0"/><limit lower="-2.5" upper="2.5" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="upper"/><child link="fore"/><origin xyz="0 0 0.2"/>
    <axis xyz="1 0 0"/><limit lower="-2.8" upper="2.8" effort="1" velocity="1"/></joint>
</robot>"#,
        mesh.display()
    )
}

#[test]
fn mixed_primitives_and_meshes_are_answered_with_gradients() {
    let dir = std::env::temp_dir().join(format!("signorini-robot-mixed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mixed.urdf"), urdf()).unwrap();
    for geometry in [MeshGeometry::TriangleMesh, MeshGeometry::ConvexHull] {
        let options = RobotOptions { geometry, ..RobotOptions::default() };
        let robot = RobotModel::from_files(&dir.join("mixed.urdf"), None, &options).unwrap();
        // base–fore (box–capsule, box–sphere) and upper–fore would move relative to each other; base–upper too.
        assert_eq!(robot.pairs().len(), 5);
        let mut data = robot.data();
        let (mut out, mut grad, mut tmp) = (Vec::new(), Vec::new(), Vec::new());
        let mut checked = 0;
        for s in 0..40 {
            let mut q = vec![0.0; 2];
            robot.sample_configuration(9, s, &mut q);
            robot.distance_gradients(&mut data, &q, &mut out, &mut grad).unwrap();
            for (p, d) in out.iter().enumerate() {
                if d.distance <= 1e-3 || d.witness.is_none() {
                    continue;
                }
                for v in 0..2 {
                    let h = 1e-6;
                    let mut at = |x: f64| {
                        let mut qq = q.clone();
                        qq[v] = x;
                        robot.distances(&mut data, &qq, &mut tmp).unwrap();
                        tmp[p].distance
                    };
                    let fd = (at(q[v] + h) - at(q[v] - h)) / (2.0 * h);
                    assert!(
                        (fd - grad[p * 2 + v]).abs() < 1e-5,
                        "{geometry:?} pair {p}: {fd} vs {}",
                        grad[p * 2 + v]
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
