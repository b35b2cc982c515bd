//! MJCF `<flag>` switches end to end: each one honoured changes what MuJoCo changes (checked against closed forms),
//! the ones signorini does not reproduce are errors naming the flag, and the ones without effect here load.

use std::path::Path;

use signorini_mjcf::{MjcfError, load_scene_str};
use signorini_sim::Dialect;

/// A ball 0.5 m above a plane, a pendulum whose hinge range is ±0.1 rad started at 1 rad, and a body welded to the
/// world: semi-implicit Euler at h = 0.01.
fn xml(flags: &str) -> String {
    format!(
        r#"<mujoco><option timestep="0.01" integrator="Euler">{flags}</option><worldbody>
  <geom type="plane" size="5 5 0.1"/>
  <body name="ball" pos="0 0 0.5"><freejoint/><geom size="0.1"/></body>
  <body name="arm" pos="2 0 1"><joint name="hinge" axis="0 1 0" range="-0.1 0.1" limited="true" ref="0"/>
    <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02"/></body>
  <body name="held" pos="-2 0 1"><freejoint/><geom size="0.05" contype="0" conaffinity="0"/></body>
</worldbody>
<equality><weld body1="held"/></equality>
<keyframe><key qpos="0 0 0.5 1 0 0 0  1  -2 0 1 1 0 0 0"/></keyframe>
</mujoco>"#
    )
}

struct Run {
    max_contacts: usize,
    ball_z: f64,
    hinge: f64,
    held: [f64; 3],
}

fn run(flags: &str, steps: usize) -> Run {
    let mut scene = load_scene_str(&xml(flags), Path::new("."), Dialect::Mujoco, &[]).unwrap();
    let mut max_contacts = 0;
    for _ in 0..steps {
        scene.step().unwrap();
        max_contacts = max_contacts.max(scene.stats().contacts);
    }
    let q = &scene.data().multibody.qpos;
    Run { max_contacts, ball_z: q[2], hinge: q[7], held: [q[8], q[9], q[10]] }
}

/// Semi-implicit Euler free fall from rest: `z_n = z_0 − g h² n(n+1)/2`.
fn free_fall(z0: f64, n: usize) -> f64 {
    let (g, h) = (9.81, 0.01);
    z0 - g * h * h * (n * (n + 1)) as f64 / 2.0
}

#[test]
fn contact_and_constraint_flags_remove_collisions() {
    let on = run("", 100);
    assert!(on.max_contacts > 0 && on.ball_z > 0.05, "the ball rests on the plane: {}", on.ball_z);
    for flags in [r#"<flag contact="disable"/>"#, r#"<flag constraint="disable"/>"#] {
        let off = run(flags, 100);
        assert_eq!(off.max_contacts, 0, "{flags}");
        assert!((off.ball_z - free_fall(0.5, 100)).abs() < 1e-9, "{flags}: {} falls freely", off.ball_z);
    }
    // The same switch from `--set` (an override of the options).
    let set = [("enable_collision".to_string(), "false".to_string())];
    let mut scene = load_scene_str(&xml(""), Path::new("."), Dialect::Mujoco, &set).unwrap();
    for _ in 0..50 {
        scene.step().unwrap();
        assert_eq!(scene.stats().contacts, 0);
    }
    // `constraint` also frees the limit and the weld.
    let off = run(r#"<flag constraint="disable"/>"#, 100);
    assert!(off.hinge > 0.5 && (off.held[2] - free_fall(1.0, 100)).abs() < 1e-9);
}

/// MuJoCo 4.0 on this model after 100 steps (`mujoco.mj_step` from the keyframe): hinge −0.0016763001 rad with the
/// limit, 0.98858817732 without; the welded body at (−0.8354674, 0, −2.07159745) (the weld's anchor is the world
/// origin, so the body swings far from its start; we follow that violent motion to 1.1 cm), and in free fall without
/// the equality.
const MUJOCO_HINGE: [f64; 2] = [-0.0016763001464795754, 0.9885881773163178];
const MUJOCO_HELD: [f64; 3] = [-0.8354674, 0.0, -2.07159745];

#[test]
fn limit_equality_and_gravity_flags() {
    let near = |a: f64, b: f64, tol: f64| (a - b).abs() < tol;
    let on = run("", 100);
    assert!(near(on.hinge, MUJOCO_HINGE[0], 1e-6), "hinge {} vs MuJoCo {}", on.hinge, MUJOCO_HINGE[0]);
    assert!(
        (0..3).all(|k| near(on.held[k], MUJOCO_HELD[k], 2e-2)),
        "held {:?} vs MuJoCo {MUJOCO_HELD:?}",
        on.held
    );
    let no_limit = run(r#"<flag limit="disable"/>"#, 100);
    assert!(near(no_limit.hinge, MUJOCO_HINGE[1], 1e-6), "{} vs MuJoCo {}", no_limit.hinge, MUJOCO_HINGE[1]);
    assert!(
        (0..3).all(|k| near(no_limit.held[k], on.held[k], 1e-12)),
        "the limit flag leaves the weld alone"
    );
    let no_weld = run(r#"<flag equality="disable"/>"#, 100);
    assert!(
        near(no_weld.held[2], free_fall(1.0, 100), 1e-9) && no_weld.held[0] == -2.0,
        "{:?}",
        no_weld.held
    );
    assert!(near(no_weld.hinge, MUJOCO_HINGE[0], 1e-6));
    let no_gravity = run(r#"<flag gravity="disable"/>"#, 100);
    assert!(near(no_gravity.ball_z, 0.5, 1e-12), "{}", no_gravity.ball_z);
}

#[test]
fn flags_not_reproduced_are_errors_and_diagnostic_ones_load() {
    for flag in ["nativeccd", "passive"] {
        let e = load_scene_str(
            &xml(&format!(r#"<flag {flag}="disable"/>"#)),
            Path::new("."),
            Dialect::Mujoco,
            &[],
        )
        .err()
        .unwrap_or_else(|| panic!("{flag}=\"disable\" should be an error"));
        assert!(matches!(e, MjcfError::Xml(_)), "{e}");
        assert!(e.to_string().contains(flag), "{e}");
    }
    for flags in
        [r#"<flag warmstart="enable" spring="disable" midphase="disable"/>"#, r#"<flag energy="enable"/>"#]
    {
        assert!(load_scene_str(&xml(flags), Path::new("."), Dialect::Mujoco, &[]).is_ok(), "{flags}");
    }
}

/// A file without `<option timestep>` steps at MuJoCo's 0.002 s in MuJoCo-compatible mode and at Genesis's 0.01 s
/// natively.
#[test]
fn the_default_timestep_is_the_dialects() {
    let xml = r#"<mujoco><worldbody><body><freejoint/><geom size="0.1"/></body></worldbody></mujoco>"#;
    for (dialect, dt) in [(Dialect::Mujoco, 0.002), (Dialect::Native, 0.01)] {
        let scene = load_scene_str(xml, Path::new("."), dialect, &[]).unwrap();
        assert_eq!(scene.model().options.dt, dt, "{dialect:?}");
    }
}

/// `<flag sensor="disable"/>` leaves `sensordata` at zero, as MuJoCo does; by default the sensors are computed.
#[test]
fn the_sensor_flag_switches_the_sensors() {
    let xml = |flags: &str| {
        format!(
            r#"<mujoco><option>{flags}</option><worldbody><body name="b" pos="0 0 1"><freejoint/><geom size="0.1"/>
            </body></worldbody><sensor><framepos objtype="body" objname="b"/><clock/></sensor></mujoco>"#
        )
    };
    for (flags, computed) in [("", true), (r#"<flag sensor="disable"/>"#, false)] {
        let mut scene = load_scene_str(&xml(flags), Path::new("."), Dialect::Mujoco, &[]).unwrap();
        scene.step().unwrap();
        scene.step().unwrap();
        let data = &scene.data().multibody.sensordata;
        assert_eq!(data.len(), 4);
        assert_eq!(data.iter().any(|&v| v != 0.0), computed, "{flags}: {data:?}");
    }
}
