//! Genesis's structural pair filters in native mode (spec §A.2): bodies linked by an enforced weld equality do not
//! collide (rule 5, following each environment's equality switches), and the geom pairs of one tree that penetrate
//! at `qpos0` never collide (rule 7, unless `enable_neutral_collision`). MuJoCo has neither rule.

use std::path::Path;

use signorini_mjcf::load_scene_str;
use signorini_sim::{Dialect, Scene};

fn scene(xml: &str, dialect: Dialect, overrides: &[(&str, &str)]) -> Scene {
    let o: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load_scene_str(xml, Path::new("."), dialect, &o).unwrap()
}

/// Contacts between the geoms of bodies `a` and `b` after one step.
fn contacts_between(s: &mut Scene, a: usize, b: usize) -> usize {
    s.step().unwrap();
    let c = s.contacts();
    (0..c.len())
        .filter(|&k| (c.link_a[k], c.link_b[k]) == (a, b) || (c.link_a[k], c.link_b[k]) == (b, a))
        .count()
}

/// Two boxes welded to each other while overlapping, no gravity: natively they do not collide while the weld is
/// enforced, and do once it is switched off; MuJoCo's dialect collides them throughout.
#[test]
fn an_enforced_weld_stops_the_collisions_of_its_bodies() {
    const XML: &str = r#"<mujoco><option gravity="0 0 0"/><worldbody>
        <body name="a"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
        <body name="b" pos="0.15 0 0"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
        </worldbody><equality><weld body1="a" body2="b"/></equality></mujoco>"#;
    let mut native = scene(XML, Dialect::Native, &[]);
    assert_eq!(contacts_between(&mut native, 1, 2), 0, "welded: filtered");
    native.data_mut().equality_active[0] = false;
    assert!(contacts_between(&mut native, 1, 2) > 0, "released: they collide");
    let mut off = scene(XML, Dialect::Native, &[("enable_equality", "false")]);
    assert!(contacts_between(&mut off, 1, 2) > 0, "equalities off: nothing is enforced, they collide");
    let mut mujoco = scene(XML, Dialect::Mujoco, &[]);
    assert!(contacts_between(&mut mujoco, 1, 2) > 0, "MuJoCo has no weld rule");
}

/// A three-link chain whose last link overlaps its grandparent at `qpos0` (not adjacent, same tree): natively that
/// pair never collides, unless `enable_neutral_collision`; MuJoCo only filters parent and child.
#[test]
fn pairs_penetrating_at_the_neutral_pose_are_filtered() {
    const XML: &str = r#"<mujoco><option gravity="0 0 0"/><worldbody>
        <body name="l1" pos="0 0 1"><joint type="hinge" axis="0 1 0"/><geom type="box" size="0.2 0.05 0.05"/>
          <body name="l2" pos="0.3 0 0"><joint type="hinge" axis="0 1 0"/><geom type="sphere" size="0.02"/>
            <body name="l3" pos="-0.25 0 0"><joint type="hinge" axis="0 1 0"/><geom type="sphere" size="0.06"/>
            </body></body></body></worldbody></mujoco>"#;
    let mut native = scene(XML, Dialect::Native, &[]);
    assert_eq!(contacts_between(&mut native, 1, 3), 0, "penetrating at qpos0: filtered");
    let mut kept = scene(XML, Dialect::Native, &[("enable_neutral_collision", "true")]);
    assert!(contacts_between(&mut kept, 1, 3) > 0, "enable_neutral_collision keeps it");
    let mut mujoco = scene(XML, Dialect::Mujoco, &[]);
    assert!(contacts_between(&mut mujoco, 1, 3) > 0, "MuJoCo keeps it");
}
