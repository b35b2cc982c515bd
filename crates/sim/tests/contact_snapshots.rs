//! `insta` snapshots of the solved contact sets of canonical resting configurations (native mode, 1000 steps of
//! 2 ms): a box, a sphere, a capsule and a cylinder on the floor, and a two-box stack, with each contact's geoms,
//! position, normal (B → A), penetration and the force on B. Values are rounded to 1e-6 (positions, normals) and
//! 1e-4 N (forces); any change of the contact set or of the solved forces beyond that shows up as a diff.

use signorini_mjcf::load_scene_str;
use signorini_sim::Dialect;
use std::fmt::Write;
use std::path::Path;

fn resting(body: &str) -> String {
    let xml = format!(
        r#"<mujoco><option timestep="0.002"/><worldbody>
        <geom name="floor" type="plane" size="2 2 0.1"/>{body}</worldbody></mujoco>"#
    );
    let mut scene = load_scene_str(&xml, Path::new("."), Dialect::Native, &[]).unwrap();
    for _ in 0..1000 {
        scene.step().unwrap();
    }
    let c = scene.contacts();
    // Fixed decimals; negative zero prints as zero.
    let r = |v: f64, decimals: usize| {
        let text = format!("{v:.decimals$}");
        if text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
            text.replace('-', "")
        } else {
            text
        }
    };
    let v3 = |v: glam::DVec3, d: usize| format!("[{}, {}, {}]", r(v.x, d), r(v.y, d), r(v.z, d));
    let mut out = String::new();
    for k in 0..c.len() {
        writeln!(
            out,
            "{}-{} p {} n {} pen {} f_b {}",
            c.geom_a[k],
            c.geom_b[k],
            v3(c.position[k], 6),
            v3(c.normal[k], 6),
            r(c.penetration[k], 6),
            v3(c.force_b[k], 4)
        )
        .unwrap();
    }
    out
}

#[test]
fn box_on_the_floor() {
    insta::assert_snapshot!(resting(
        r#"<body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>"#
    ));
}

#[test]
fn sphere_on_the_floor() {
    insta::assert_snapshot!(resting(
        r#"<body pos="0 0 0.1"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>"#
    ));
}

#[test]
fn capsule_lying_on_the_floor() {
    insta::assert_snapshot!(resting(
        r#"<body pos="0 0 0.05" euler="0 90 0"><freejoint/><geom type="capsule" size="0.05 0.2" mass="1"/></body>"#
    ));
}

#[test]
fn cylinder_standing_on_the_floor() {
    insta::assert_snapshot!(resting(
        r#"<body pos="0 0 0.1"><freejoint/><geom type="cylinder" size="0.1 0.1" mass="1"/></body>"#
    ));
}

#[test]
fn two_box_stack() {
    insta::assert_snapshot!(resting(
        r#"<body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
        <body pos="0.02 0 0.301" euler="0 0 20"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>"#
    ));
}
