//! Non-convex meshes in the simulator (`<custom><text name="signorini:sdf">`): the bowl, peg and mug scenes of
//! `crates/cli/scenes` in native mode, where the meshes collide through their signed distance fields, against the
//! MuJoCo-compatible mode, where they collide as convex hulls; and the switch's errors.

use std::path::{Path, PathBuf};

use glam::{DQuat, DVec3};
use signorini_geometry::Shape;
use signorini_mjcf::{load_scene, load_scene_str};
use signorini_sim::{Dialect, Scene};

fn scene_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/scenes").join(name)
}

/// Position and orientation of the `i`-th free body.
fn free_pose(scene: &Scene, i: usize) -> (DVec3, DQuat) {
    let j = scene.free_joints()[i];
    let adr = scene.model().multibody.jnt_qposadr[j];
    let q = &scene.data().multibody.qpos[adr..adr + 7];
    (DVec3::new(q[0], q[1], q[2]), DQuat::from_xyzw(q[4], q[5], q[6], q[3]))
}

/// The bowl's hollow: a sphere of radius 0.1 centred 0.12 above the floor; the ball's radius is 0.02.
const HOLLOW_CENTRE: DVec3 = DVec3::new(0.0, 0.0, 0.12);
const HOLLOW_RADIUS: f64 = 0.1;
const BALL: f64 = 0.02;

/// A ball dropped off-axis into the bowl stays inside it for 5 s (never deeper in the wall than 5 mm, the landing at 1.8 m/s included), rolls through
/// its bottom, and loses energy; with MuJoCo's convex hull it rests on the lid instead.
#[test]
fn ball_stays_in_the_bowl_and_reaches_its_bottom() {
    let mut scene = load_scene(&scene_file("bowl.xml"), Dialect::Native, &[]).unwrap();
    assert!(
        matches!(&scene.model().multibody.collision.geoms().shape[1], Shape::TriangleMesh(m) if m.sdf().is_some())
    );
    let energy = |s: &Scene| {
        let (p, _) = free_pose(s, 0);
        let v = &s.data().multibody.qvel[..3];
        0.05 * 9.81 * p.z + 0.5 * 0.05 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    };
    let mut closest_to_bottom = f64::INFINITY;
    let mut entered = false;
    let mut after_entry = Vec::new();
    for step in 1..=2500 {
        scene.step().unwrap();
        let (p, _) = free_pose(&scene, 0);
        let from_centre = (p - HOLLOW_CENTRE).length();
        if p.z < HOLLOW_CENTRE.z {
            entered = true;
            assert!(
                from_centre <= HOLLOW_RADIUS - BALL + 0.005,
                "step {step}: the ball at {p} is {:.4} m into the wall",
                from_centre - (HOLLOW_RADIUS - BALL)
            );
        }
        if entered {
            let radial = p.truncate().length();
            assert!(radial < HOLLOW_RADIUS - BALL + 0.005, "step {step}: the ball left the bowl at {p}");
            closest_to_bottom =
                closest_to_bottom.min((p - (HOLLOW_CENTRE - DVec3::Z * (HOLLOW_RADIUS - BALL))).length());
            if step % 250 == 0 {
                after_entry.push(energy(&scene));
            }
        }
    }
    assert!(entered);
    assert!(closest_to_bottom < 0.005, "the ball came no closer than {closest_to_bottom} m to the bottom");
    assert!(after_entry.last().unwrap() < after_entry.first().unwrap(), "energy {after_entry:?}");

    let mut hull = load_scene(&scene_file("bowl.xml"), Dialect::Mujoco, &[]).unwrap();
    assert!(matches!(&hull.model().multibody.collision.geoms().shape[1], Shape::ConvexMesh(_)));
    for _ in 0..500 {
        hull.step().unwrap();
    }
    let (p, _) = free_pose(&hull, 0);
    assert!((p.z - (0.12 + BALL)).abs() < 2e-3, "on the hull's lid: {p}");
}

/// A peg (a cylinder along y) dropped over the U holder's slot falls in and rests on the slot's floor between the
/// arms, still lying along y; the convex hull holds it on top of the arms.
#[test]
fn peg_rests_in_the_holder_slot() {
    let mut scene = load_scene(&scene_file("peg.xml"), Dialect::Native, &[]).unwrap();
    for _ in 0..1500 {
        scene.step().unwrap();
    }
    let (p, q) = free_pose(&scene, 0);
    // Slot: |x| < 0.018, floor at z = 0.02; peg radius 0.012.
    assert!((p.z - 0.032).abs() < 1e-3, "on the slot's floor: {p}");
    assert!(p.x.abs() < 0.018 - 0.012 + 5e-4, "between the arms: {p}");
    let axis = q * DVec3::Z;
    assert!(axis.y.abs() > 0.99, "still along the slot: {axis}");
    // At rest: what is left is the soft contacts' creep about the peg's axis (it stops on the next facet of the
    // sampled rims, after about 6 s).
    let qvel = &scene.data().multibody.qvel;
    assert!(
        qvel[..3].iter().all(|v| v.abs() < 1e-3) && qvel[3..].iter().all(|w| w.abs() < 0.05),
        "at rest: {qvel:?}"
    );

    let mut hull = load_scene(&scene_file("peg.xml"), Dialect::Mujoco, &[]).unwrap();
    for _ in 0..500 {
        hull.step().unwrap();
    }
    assert!(free_pose(&hull, 0).0.z > 0.08, "above the arms on the hull: {:?}", free_pose(&hull, 0).0);
}

/// The mug lands upright on the table and stays there; the marble dropped over it lands inside, on the cup's
/// bottom (10 mm thick); with the hull it rests on the lid.
#[test]
fn mug_stands_on_the_table_with_the_marble_inside() {
    let mut scene = load_scene(&scene_file("mug.xml"), Dialect::Native, &[]).unwrap();
    for _ in 0..1500 {
        scene.step().unwrap();
    }
    let (mug, q) = free_pose(&scene, 0);
    let (marble, _) = free_pose(&scene, 1);
    let table_top = 0.35 + 0.015;
    assert!((mug.z - table_top).abs() < 1.5e-3, "mug on the table: {mug}");
    assert!((q * DVec3::Z).z > 0.9998, "upright: {}", q * DVec3::Z);
    assert!((marble.z - (table_top + 0.01 + 0.01)).abs() < 1.5e-3, "marble on the cup's bottom: {marble}");
    assert!(
        (marble - mug).truncate().length() < 0.032 - 0.01 + 1e-3,
        "marble inside the cup: {marble} vs {mug}"
    );

    let mut hull = load_scene(&scene_file("mug.xml"), Dialect::Mujoco, &[]).unwrap();
    for _ in 0..500 {
        hull.step().unwrap();
    }
    assert!((free_pose(&hull, 1).0.z - (table_top + 0.09 + 0.01)).abs() < 2e-3, "marble on the lid");
}

fn load(xml: &str, dialect: Dialect) -> Result<Scene, String> {
    let dir = scene_file("");
    load_scene_str(xml, &dir, dialect, &[]).map_err(|e| e.to_string())
}

#[test]
fn switch_errors_name_the_mesh_and_the_reason() {
    let open = r#"<mujoco><custom><text name="signorini:sdf" data="sheet"/></custom>
        <asset><mesh name="sheet" vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3"/></asset>
        <worldbody><geom type="mesh" mesh="sheet"/></worldbody></mujoco>"#;
    let err = load(open, Dialect::Native).unwrap_err();
    assert!(err.contains("`sheet`") && err.contains("open"), "{err}");
    let cloud = r#"<mujoco><custom><text name="signorini:sdf" data="cloud"/></custom>
        <asset><mesh name="cloud" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset>
        <worldbody><geom type="mesh" mesh="cloud"/></worldbody></mujoco>"#;
    let err = load(cloud, Dialect::Native).unwrap_err();
    assert!(err.contains("no faces"), "{err}");
    let unknown = r#"<mujoco><custom><text name="signorini:sdf" data="nothing"/></custom>
        <worldbody/></mujoco>"#;
    let err = load(unknown, Dialect::Native).unwrap_err();
    assert!(err.contains("no mesh named `nothing`"), "{err}");
    let cell = r#"<mujoco><custom><numeric name="signorini:sdf_cell_size" data="-1"/></custom>
        <worldbody/></mujoco>"#;
    let err = load(cell, Dialect::Native).unwrap_err();
    assert!(err.contains("positive number"), "{err}");
    // A closed tetrahedron is fine, and its geom becomes a mesh with a field; the other dialect keeps the hull.
    let tetra = r#"<mujoco><custom><text name="signorini:sdf" data="t"/>
        <numeric name="signorini:sdf_cell_size" data="0.05"/></custom>
        <asset><mesh name="t" vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3 0 3 2 1 2 3"/></asset>
        <worldbody><geom type="mesh" mesh="t"/></worldbody></mujoco>"#;
    let native = load(tetra, Dialect::Native).unwrap();
    match &native.model().multibody.collision.geoms().shape[0] {
        Shape::TriangleMesh(m) => assert!(m.sdf().is_some()),
        other => panic!("{other:?}"),
    }
    let compat = load(tetra, Dialect::Mujoco).unwrap();
    assert!(matches!(&compat.model().multibody.collision.geoms().shape[0], Shape::ConvexMesh(_)));
    // Per geom: only the named geom of two using the same mesh.
    let per_geom = r#"<mujoco><custom><text name="signorini:sdf_geoms" data="second"/></custom>
        <asset><mesh name="t" vertex="0 0 0 1 0 0 0 1 0 0 0 1" face="0 2 1 0 1 3 0 3 2 1 2 3"/></asset>
        <worldbody><geom name="first" type="mesh" mesh="t"/><geom name="second" type="mesh" mesh="t" pos="3 0 0"/>
        </worldbody></mujoco>"#;
    let scene = load(per_geom, Dialect::Native).unwrap();
    let shapes = &scene.model().multibody.collision.geoms().shape;
    assert!(matches!(&shapes[0], Shape::ConvexMesh(_)) && matches!(&shapes[1], Shape::TriangleMesh(_)));
    let not_mesh = r#"<mujoco><custom><text name="signorini:sdf_geoms" data="ball"/></custom>
        <worldbody><geom name="ball" size="0.1"/></worldbody></mujoco>"#;
    assert!(load(not_mesh, Dialect::Native).unwrap_err().contains("not a mesh geom"));
}
