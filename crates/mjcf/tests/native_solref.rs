//! Genesis's rule for `solref` values a file does not write (native mode): they are unset and become
//! `max(constraint_timeconst, 2h)`; written values, and MuJoCo-compatible mode, keep theirs.

use signorini_mjcf::{load_mjcf_str, load_scene_str};
use signorini_sim::Dialect;
use std::path::Path;

fn drop(solref: &str, dialect: Dialect, overrides: &[(String, String)]) -> f64 {
    let xml = format!(
        r#"<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="5 5 0.1" {solref}/>
        <body pos="0 0 0.5"><freejoint/><geom type="sphere" size="0.1" {solref}/></body></worldbody></mujoco>"#
    );
    let mut scene = load_scene_str(&xml, Path::new("."), dialect, overrides).unwrap();
    let mut deepest = 0.0f64;
    for _ in 0..500 {
        scene.step().unwrap();
        deepest = deepest.max(scene.stats().max_penetration);
    }
    deepest
}

/// `sphere_drop` in native mode: unwritten solref behaves exactly as a written 0.01 s (Genesis's 0.0095 m maximum
/// penetration), a written MuJoCo default keeps MuJoCo's 0.02 s (twice as deep), and MuJoCo-compatible mode keeps
/// 0.02 s whatever the file writes. `constraint_timeconst` moves the unset value, floored at 2h.
#[test]
fn unwritten_solref_is_genesis_unset() {
    let native = drop("", Dialect::Native, &[]);
    assert_eq!(native, drop(r#"solref="0.01 1""#, Dialect::Native, &[]));
    assert!((native - 0.0095).abs() < 5e-5, "{native}");
    let written = drop(r#"solref="0.02 1""#, Dialect::Native, &[]);
    assert!(written > 1.9 * native, "{written} vs {native}");
    assert_eq!(drop("", Dialect::Mujoco, &[]), drop(r#"solref="0.02 1""#, Dialect::Mujoco, &[]));
    let set = |v: &str| [("constraint_timeconst".to_string(), v.to_string())];
    assert_eq!(drop("", Dialect::Native, &set("0.02")), written);
    // Below 2h = 0.004 s the floor holds.
    assert_eq!(drop("", Dialect::Native, &set("0.001")), drop(r#"solref="0.004 1""#, Dialect::Native, &[]));
}

/// The loader records exactly the unwritten values: defaults classes count as written.
#[test]
fn unwritten_values_are_recorded() {
    let xml = r#"<mujoco><default><default class="stiff"><geom solref="0.005 1"/><joint solreflimit="0.01 1"/></default></default>
        <worldbody><geom type="plane" size="1 1 0.1"/><geom class="stiff" type="box" size="0.1 0.1 0.1"/>
        <body><joint type="hinge" limited="true" range="-1 1"/><joint class="stiff" type="hinge"/>
        <geom type="sphere" size="0.1" solref="0.03 1"/></body></worldbody>
        <equality><weld body1="world" body2="world"/></equality></mujoco>"#;
    let loaded = load_mjcf_str(xml, Path::new(".")).unwrap();
    let u = &loaded.unwritten_solref;
    assert_eq!(u.geoms, vec![(0, 0)]);
    assert_eq!(u.joint_limits, vec![(1, 0)]);
    assert_eq!(u.joint_frictions, vec![(1, 0), (1, 1)]);
    assert_eq!(u.equalities, vec![0]);
}
