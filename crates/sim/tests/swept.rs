//! Swept collision (`enable_ccd`): a bullet fired at a thin wall tunnels through it without, and stops at it with.

use signorini_mjcf::load_scene_str;
use signorini_sim::Dialect;
use std::path::Path;

/// A 1 cm sphere at 300 m/s (0.6 m per 2 ms step) towards a 1 cm thick wall 0.5 m away, no gravity; `shape` is the
/// bullet's geom.
fn bullet(shape: &str, ccd: bool, dialect: Dialect) -> (f64, usize) {
    let xml = format!(
        r#"<mujoco><option timestep="0.002" gravity="0 0 0"/>
        <worldbody>
          <geom name="wall" type="box" size="0.005 0.5 0.5"/>
          <body name="bullet" pos="-0.5 0 0"><freejoint/><geom {shape} density="8000"/></body>
        </worldbody>
        <keyframe><key qpos="-0.5 0 0 1 0 0 0" qvel="300 0 0 0 0 0"/></keyframe></mujoco>"#
    );
    let overrides = [("enable_ccd".to_string(), ccd.to_string())];
    let mut scene = load_scene_str(&xml, Path::new("."), dialect, &overrides).unwrap();
    let mut clamped = 0;
    for _ in 0..50 {
        scene.step().unwrap();
        clamped += scene.stats().ccd_clamped_bodies;
    }
    (scene.data().multibody.qpos[0], clamped)
}

#[test]
fn a_bullet_does_not_tunnel_through_a_thin_wall() {
    for dialect in [Dialect::Native, Dialect::Mujoco] {
        for shape in [
            r#"type="sphere" size="0.01""#,
            r#"type="box" size="0.01 0.01 0.01""#,
            r#"type="capsule" size="0.005 0.01" euler="0 90 0""#,
        ] {
            let (x, clamped) = bullet(shape, false, dialect);
            assert!(x > 1.0 && clamped == 0, "{dialect:?} {shape}: without CCD the bullet passes (x = {x})");
            let (x, clamped) = bullet(shape, true, dialect);
            // Stopped on the near side: its centre stays left of the wall's far face minus its own core.
            assert!(
                x < 0.0,
                "{dialect:?} {shape}: with CCD the bullet must stay in front of the wall (x = {x})"
            );
            assert!(x > -0.05, "{dialect:?} {shape}: it reached the wall (x = {x})");
            assert!(clamped >= 1, "{dialect:?} {shape}: clamped {clamped}");
        }
    }
}

/// A body resting on a table is never swept (same trajectory bit for bit with CCD on), and a body dropped onto it
/// comes to rest at the same height with CCD on as without (the clamp only holds it back while its core would enter
/// the table).
#[test]
fn resting_and_landing_bodies_are_unaffected() {
    let xml = |z: f64| {
        format!(
            r#"<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="1 1 0.1"/>
            <geom type="box" size="0.2 0.2 0.05" pos="0 0 0.05"/>
            <body pos="0.05 0 {z}"><freejoint/><geom type="box" size="0.03 0.02 0.01"/></body></worldbody></mujoco>"#
        )
    };
    let run = |z: f64, ccd: bool| {
        let overrides = [("enable_ccd".to_string(), ccd.to_string())];
        let mut s = load_scene_str(&xml(z), Path::new("."), Dialect::Native, &overrides).unwrap();
        let mut clamped = 0;
        for _ in 0..500 {
            s.step().unwrap();
            clamped += s.stats().ccd_clamped_bodies;
        }
        (s.data().multibody.qpos.clone(), clamped)
    };
    let (with, clamped) = run(0.11, true);
    assert_eq!(clamped, 0);
    assert_eq!(with, run(0.11, false).0);
    let (with, _) = run(0.4, true);
    let (without, _) = run(0.4, false);
    assert!((with[2] - without[2]).abs() < 1e-3, "rest height {} with CCD, {} without", with[2], without[2]);
    assert!((with[2] - 0.11).abs() < 2e-3, "rest height {}", with[2]);
}
