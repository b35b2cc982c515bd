//! SRDF into the allowed-collision matrix of a collision world (moved from the collision crate's `filters.rs` when
//! SRDF parsing left it): reasons, the filter they switch on, the round trip through `write_srdf`, and errors that
//! name the line, element and attribute.

use std::path::Path;

use signorini_collision::filter::{AllowedCollisionMatrix, DisableReason, FilterReason};
use signorini_collision::world::{BodyDesc, CollisionOptions, CollisionWorld, GeomDesc};
use signorini_geometry::{Pose, Sphere};
use signorini_urdf::{Srdf, UrdfError, XmlError, write_srdf};

/// The chain world's geoms of interest.
struct Chain {
    world: CollisionWorld,
    base: usize,
    l2: usize,
    l4: usize,
    ball: usize,
}

/// world ─ base (welded) ─ link1 (hinge) ─ link2 (hinge) ─ link3 (welded) ─ link4 (hinge); a free ball. Every body
/// carries a unit sphere at the origin, so every pair overlaps when all poses are the identity.
fn chain() -> Chain {
    let mut w = CollisionWorld::new(CollisionOptions::default()).unwrap();
    let base = w.add_body(BodyDesc::new("base", 0, false)).unwrap();
    let link1 = w.add_body(BodyDesc::new("link1", base, true)).unwrap();
    let link2 = w.add_body(BodyDesc::new("link2", link1, true)).unwrap();
    let link3 = w.add_body(BodyDesc::new("link3", link2, false)).unwrap();
    let link4 = w.add_body(BodyDesc::new("link4", link3, true)).unwrap();
    let ball = w.add_body(BodyDesc { entity: 1, ..BodyDesc::free("ball") }).unwrap();
    let g =
        |w: &mut CollisionWorld, b: usize| w.add_geom(GeomDesc::new(Sphere::new(1.0).unwrap(), b)).unwrap();
    let gbase = g(&mut w, base);
    g(&mut w, link1);
    let l2 = g(&mut w, link2);
    g(&mut w, link3);
    let l4 = g(&mut w, link4);
    let gball = g(&mut w, ball);
    let n = w.bodies().len();
    w.update(&vec![Pose::IDENTITY; n]).unwrap();
    Chain { world: w, base: gbase, l2, l4, ball: gball }
}

const SRDF: &str = r#"<?xml version="1.0"?>
<robot name="chain">
  <group name="arm"><chain base_link="base" tip_link="link4"/></group>
  <disable_collisions link1="base" link2="link1" reason="Adjacent"/>
  <disable_collisions link1="link2" link2="link1" reason="Adjacent"/>
  <disable_collisions link1="base" link2="link2" reason="Never"/>
  <disable_collisions link1="link4" link2="ball"/>
</robot>
"#;

#[test]
fn acm_from_srdf() {
    let srdf = Srdf::parse(SRDF, Path::new(".")).unwrap();
    assert_eq!(srdf.disable_collisions.len(), 4);
    assert_eq!(srdf.disable_collisions[3].reason, None);
    let mut c = chain();
    let acm = srdf.acm(|n| c.world.body_index(n)).unwrap();
    assert_eq!(acm.len(), 4);
    c.world.set_acm(acm.clone()).unwrap();
    let id = |n: &str| c.world.body_index(n).unwrap();
    assert_eq!(acm.reason(id("link1"), id("link2")), Some(&DisableReason::Adjacent));
    assert_eq!(acm.reason(id("link2"), id("base")), Some(&DisableReason::Never));
    assert_eq!(acm.reason(id("ball"), id("link4")), Some(&DisableReason::User));
    assert!(!acm.is_disabled(id("link1"), id("link4")));
    let reason = |a: usize, b: usize| c.world.filter_reason(a, b).unwrap();
    assert_eq!(reason(c.base, c.l2), Some(FilterReason::Acm));
    assert_eq!(reason(c.ball, c.l4), Some(FilterReason::Acm));
    // Round trip through SRDF text.
    let names: Vec<String> = c.world.bodies().name.clone();
    let text = write_srdf("chain", &acm, |b| names[b].clone());
    let back = Srdf::parse(&text, Path::new(".")).unwrap().acm(|n| c.world.body_index(n)).unwrap();
    assert_eq!(back, acm);
}

#[test]
fn bad_srdf_is_an_error() {
    let c = chain();
    let unknown = "<robot name=\"r\">\n<disable_collisions link1=\"base\"\n  link2=\"gripper\" reason=\"Never\"/></robot>";
    let e = Srdf::parse(unknown, Path::new(".")).unwrap().acm(|n| c.world.body_index(n)).unwrap_err();
    assert!(matches!(e, UrdfError::UndefinedName { kind: "link", .. }), "{e}");
    assert!(e.to_string().contains("gripper"), "{e}");
    assert_eq!((e.line(), e.element(), e.attribute()), (Some(3), Some("disable_collisions"), Some("link2")));
    let missing = "<robot name=\"r\">\n\n  <disable_collisions link1=\"base\"/>\n</robot>";
    let e = Srdf::parse(missing, Path::new(".")).unwrap_err();
    assert!(matches!(e, UrdfError::Xml(XmlError::MissingAttribute { .. })), "{e}");
    assert_eq!((e.line(), e.attribute()), (Some(3), Some("link2")));
    let e = Srdf::parse("<robot><unclosed></robot>", Path::new(".")).unwrap_err();
    assert!(matches!(e, UrdfError::Xml(XmlError::Syntax { .. })), "{e}");
    let e = Srdf::parse("<model/>", Path::new(".")).unwrap_err();
    assert!(matches!(e, UrdfError::Invalid { .. }), "{e}");
    assert!(c.world.acm().is_empty(), "a failed read leaves the world's matrix unchanged");
    let e = Srdf::read(Path::new("/nonexistent/robot.srdf")).unwrap_err();
    assert!(matches!(e, UrdfError::Xml(XmlError::Io { .. })), "{e}");
    assert_eq!(
        AllowedCollisionMatrix::new(),
        Srdf::parse("<robot/>", Path::new(".")).unwrap().acm(|_| None).unwrap()
    );
}
