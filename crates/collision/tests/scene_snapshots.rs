//! `insta` snapshots of the contact sets of the benchmark scenes `box_stack.xml` and `pyramid.xml`, built in code
//! with the layouts of `../shared/scenes/` (the MJCF loader will replace the builders). Each scene is snapshotted
//! at its initial layout (1 mm gaps everywhere: no contact) and at a resting layout where every layer is lowered so
//! that each box sinks 0.5 mm into its support. One line per contact; values rounded to 1e-9.

use std::fmt::Write;

use glam::DVec3;
use signorini_collision::contact_set::ContactSet;
use signorini_collision::world::{BodyDesc, CollisionOptions, CollisionWorld, GeomDesc};
use signorini_geometry::{Cuboid, Plane, Pose};

const HALF: f64 = 0.1;

/// A floor plane on the world body and one free 0.2 m cube per centre, named `box{k}` as in the scenes.
fn scene(centres: &[DVec3]) -> (CollisionWorld, Vec<Pose>) {
    let mut w = CollisionWorld::new(CollisionOptions::default()).unwrap();
    w.add_geom(GeomDesc::new(Plane::new(), 0).named("floor")).unwrap();
    let mut poses = vec![Pose::IDENTITY];
    for (k, c) in centres.iter().enumerate() {
        let b = w.add_body(BodyDesc::free(format!("box{k}"))).unwrap();
        w.add_geom(GeomDesc::new(Cuboid::new(DVec3::splat(HALF)).unwrap(), b).named(format!("box{k}")))
            .unwrap();
        poses.push(Pose::from_translation(*c));
    }
    (w, poses)
}

/// `box_stack.xml`: ten cubes on the z axis, centres `z₀ + k·dz` (initially 0.101 + 0.201 k).
fn box_stack(z0: f64, dz: f64) -> Vec<DVec3> {
    (0..10).map(|k| DVec3::new(0.0, 0.0, z0 + dz * k as f64)).collect()
}

/// `pyramid.xml`: layer `l` (0..10) holds `10 − l` cubes at `x = −0.945 + 0.105 l + 0.21 i`, `z = z₀ + l·dz`
/// (initially 0.101 + 0.201 l), 55 cubes in all.
fn pyramid(z0: f64, dz: f64) -> Vec<DVec3> {
    let mut out = Vec::new();
    for l in 0..10 {
        for i in 0..10 - l {
            let x = -0.945 + 0.105 * l as f64 + 0.21 * i as f64;
            out.push(DVec3::new(x, 0.0, z0 + dz * l as f64));
        }
    }
    out
}

fn round(x: f64) -> f64 {
    let r = (x * 1e9).round() / 1e9;
    if r == 0.0 { 0.0 } else { r }
}

fn table(set: &ContactSet) -> String {
    let mut s = format!("contacts {} pairs {}\n", set.len(), set.n_pairs);
    s.push_str("geom_a geom_b link_a link_b | position | normal | penetration | friction solref solimp\n");
    for r in set.iter() {
        let v = |p: DVec3| format!("{} {} {}", round(p.x), round(p.y), round(p.z));
        let _ = writeln!(
            s,
            "{} {} {} {} | {} | {} | {} | {} {:?} {:?}",
            r.geom_a,
            r.geom_b,
            r.link_a,
            r.link_b,
            v(r.position),
            v(r.normal),
            round(r.penetration),
            round(r.params.friction[0]),
            r.params.solref,
            r.params.solimp
        );
    }
    s
}

fn contacts(centres: &[DVec3]) -> String {
    let (mut w, poses) = scene(centres);
    table(w.step(&poses).unwrap())
}

#[test]
fn box_stack_initial_layout() {
    let text = contacts(&box_stack(0.101, 0.201));
    assert!(text.starts_with("contacts 0 pairs 0"));
    insta::assert_snapshot!(text);
}

#[test]
fn box_stack_resting() {
    let text = contacts(&box_stack(HALF - 5e-4, 2.0 * HALF - 5e-4));
    assert!(text.starts_with("contacts 40 pairs 10"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn pyramid_initial_layout() {
    let text = contacts(&pyramid(0.101, 0.201));
    assert!(text.starts_with("contacts 0 pairs 0"));
    insta::assert_snapshot!(text);
}

#[test]
fn pyramid_resting() {
    let text = contacts(&pyramid(HALF - 5e-4, 2.0 * HALF - 5e-4));
    // 10 boxes on the floor and 45 boxes each on two below: 100 pairs, 4 contacts each.
    assert!(text.starts_with("contacts 400 pairs 100"), "{}", &text[..40]);
    insta::assert_snapshot!(text);
}
