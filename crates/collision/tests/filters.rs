//! Pair filters (spec §A.2/§A.3) on hand-built chains, the allowed-collision matrix, and sampling-based ACM
//! generation and validation (seed 004 §6.5) on a planar arm whose forward kinematics is written here. Reading the
//! matrix from SRDF is tested in `signorini-urdf` (`tests/srdf.rs`).

use glam::{DQuat, DVec3};
use signorini_collision::CollisionError;
use signorini_collision::filter::{
    AcmSampling, AllowedCollisionMatrix, DisableReason, FilterReason, generate_acm, validate_acm,
};
use signorini_collision::world::{BodyDesc, CollisionOptions, CollisionWorld, GeomDesc};
use signorini_geometry::{Capsule, Cuboid, Plane, Pose, Sphere};

/// Bodies of the chain world.
struct Chain {
    world: CollisionWorld,
    floor: usize,
    base: usize,
    l1: usize,
    l1b: usize,
    l2: usize,
    l3: usize,
    l4: usize,
    ball: usize,
}

/// world ─ base (welded) ─ link1 (hinge) ─ link2 (hinge) ─ link3 (welded) ─ link4 (hinge); a free ball; a floor.
/// Every body carries a unit sphere at the origin, so every pair overlaps when all poses are the identity.
fn chain(options: CollisionOptions) -> Chain {
    let mut w = CollisionWorld::new(options).unwrap();
    let base = w.add_body(BodyDesc::new("base", 0, false)).unwrap();
    let link1 = w.add_body(BodyDesc::new("link1", base, true)).unwrap();
    let link2 = w.add_body(BodyDesc::new("link2", link1, true)).unwrap();
    let link3 = w.add_body(BodyDesc::new("link3", link2, false)).unwrap();
    let link4 = w.add_body(BodyDesc::new("link4", link3, true)).unwrap();
    let ball = w.add_body(BodyDesc { entity: 1, ..BodyDesc::free("ball") }).unwrap();
    let sphere = || Sphere::new(1.0).unwrap();
    let floor = w.add_geom(GeomDesc::new(Plane::new(), 0).named("floor")).unwrap();
    let g = |w: &mut CollisionWorld, b: usize| w.add_geom(GeomDesc::new(sphere(), b)).unwrap();
    let gbase = g(&mut w, base);
    let l1 = g(&mut w, link1);
    let l1b = g(&mut w, link1);
    let l2 = g(&mut w, link2);
    let l3 = g(&mut w, link3);
    let l4 = g(&mut w, link4);
    let gball = g(&mut w, ball);
    let n = w.bodies().len();
    w.update(&vec![Pose::IDENTITY; n]).unwrap();
    Chain { world: w, floor, base: gbase, l1, l1b, l2, l3, l4, ball: gball }
}

fn reason(c: &Chain, a: usize, b: usize) -> Option<FilterReason> {
    let r = c.world.filter_reason(a, b).unwrap();
    assert_eq!(r, c.world.filter_reason(b, a).unwrap(), "the filter is symmetric");
    r
}

#[test]
fn tree_structure_is_derived() {
    let c = chain(CollisionOptions::default());
    let b = c.world.bodies();
    assert_eq!(b.fixed, vec![true, true, false, false, false, false, false]);
    assert_eq!(b.root, vec![0, 1, 1, 1, 1, 1, 6]);
    assert_eq!(b.weld_root, vec![0, 0, 2, 3, 3, 5, 6]);
    assert_eq!(c.world.body_index("link3"), Some(4));
}

#[test]
fn same_body_and_both_fixed() {
    let c = chain(CollisionOptions::default());
    assert_eq!(reason(&c, c.l1, c.l1b), Some(FilterReason::SameBody));
    assert_eq!(reason(&c, c.floor, c.base), Some(FilterReason::BothFixed));
    assert_eq!(reason(&c, c.floor, c.ball), None);
    assert_eq!(reason(&c, c.floor, c.l4), None);
}

#[test]
fn adjacency_through_fixed_joints() {
    let c = chain(CollisionOptions::default());
    let adjacent = Some(FilterReason::Adjacent);
    // Direct parents.
    assert_eq!(reason(&c, c.base, c.l1), adjacent);
    assert_eq!(reason(&c, c.l1, c.l2), adjacent);
    assert_eq!(reason(&c, c.l2, c.l3), adjacent);
    // link3 is welded to link2, which is link1's child (Genesis finds this one too).
    assert_eq!(reason(&c, c.l1, c.l3), adjacent);
    // link4 is hinged to link3, welded to link2 (Genesis's FIXME: we find it).
    assert_eq!(reason(&c, c.l2, c.l4), adjacent);
    assert_eq!(reason(&c, c.l3, c.l4), adjacent);
    // Two moving joints apart: checked.
    assert_eq!(reason(&c, c.base, c.l2), None);
    assert_eq!(reason(&c, c.l1, c.l4), None);
    let c = chain(CollisionOptions { enable_adjacent_collision: true, ..CollisionOptions::default() });
    assert_eq!(reason(&c, c.l1, c.l2), None);
    assert_eq!(reason(&c, c.base, c.l1), None);
}

#[test]
fn self_collision_switch() {
    let c = chain(CollisionOptions { enable_self_collision: false, ..CollisionOptions::default() });
    assert_eq!(reason(&c, c.l1, c.l4), Some(FilterReason::SelfCollisionDisabled));
    assert_eq!(reason(&c, c.base, c.l2), Some(FilterReason::SelfCollisionDisabled));
    assert_eq!(reason(&c, c.ball, c.l4), None, "different kinematic trees still collide");
    assert_eq!(reason(&c, c.floor, c.l4), None);
}

#[test]
fn contype_conaffinity_with_local_masks() {
    let options = CollisionOptions { enable_adjacent_collision: true, ..CollisionOptions::default() };
    let mut w = CollisionWorld::new(options).unwrap();
    let a = w.add_body(BodyDesc::free("a")).unwrap();
    let b = w.add_body(BodyDesc { entity: 1, ..BodyDesc::free("b") }).unwrap();
    let c = w.add_body(BodyDesc::new("c", a, true)).unwrap();
    let s = || Sphere::new(0.5).unwrap();
    let ga = w.add_geom(GeomDesc { contype: 1, conaffinity: 1, ..GeomDesc::new(s(), a) }).unwrap();
    let gb = w.add_geom(GeomDesc { contype: 2, conaffinity: 2, ..GeomDesc::new(s(), b) }).unwrap();
    let gc = w.add_geom(GeomDesc { contype: 4, conaffinity: 4, ..GeomDesc::new(s(), c) }).unwrap();
    let gd = w.add_geom(GeomDesc { contype: 2, conaffinity: 0, ..GeomDesc::new(s(), c) }).unwrap();
    let r = |w: &CollisionWorld, i, j| w.filter_reason(i, j).unwrap();
    assert_eq!(r(&w, ga, gb), Some(FilterReason::Masks));
    assert_eq!(r(&w, ga, gc), Some(FilterReason::Masks));
    // One-directional match: contype of d against conaffinity of b.
    assert_eq!(r(&w, gd, gb), None);
    // Entity 1 declares its masks local: across entities they no longer apply ...
    w.set_local_collision_mask(1, true);
    assert_eq!(r(&w, ga, gb), None);
    // ... within entity 0 they still do.
    assert_eq!(r(&w, ga, gc), Some(FilterReason::Masks));
    w.set_local_collision_mask(1, false);
    assert_eq!(r(&w, ga, gb), Some(FilterReason::Masks));
}

#[test]
fn welds_excludes_and_the_matrix() {
    let mut c = chain(CollisionOptions::default());
    let (ball_body, l4_body) = (c.world.geoms().body[c.ball], c.world.geoms().body[c.l4]);
    assert_eq!(reason(&c, c.ball, c.l4), None);
    c.world.add_weld(ball_body, l4_body).unwrap();
    assert_eq!(reason(&c, c.ball, c.l4), Some(FilterReason::Weld));
    assert!(c.world.remove_weld(l4_body, ball_body));
    assert_eq!(reason(&c, c.ball, c.l4), None);
    c.world.exclude_bodies(l4_body, ball_body).unwrap();
    assert_eq!(reason(&c, c.ball, c.l4), Some(FilterReason::Excluded));
    let (l1_body, l4b) = (c.world.geoms().body[c.l1], c.world.geoms().body[c.l4]);
    let mut acm = AllowedCollisionMatrix::new();
    acm.disable(l1_body, l4b, DisableReason::Never);
    c.world.set_acm(acm).unwrap();
    assert_eq!(reason(&c, c.l1, c.l4), Some(FilterReason::Acm));
    let mut bad = AllowedCollisionMatrix::new();
    bad.disable(1, 99, DisableReason::User);
    assert!(matches!(c.world.set_acm(bad), Err(CollisionError::InvalidRequest { .. })));
    assert!(c.world.add_weld(0, 42).is_err());
}

#[test]
fn neutral_pose_collisions() {
    let mut c = chain(CollisionOptions::default());
    let n = c.world.bodies().len();
    // At the identity pose every sphere overlaps every other: base with link2, link3 and link4, and link1 with
    // link4, are the self-collision pairs that are neither adjacent nor otherwise filtered.
    let excluded = c.world.apply_neutral_filter(&vec![Pose::IDENTITY; n]).unwrap();
    let mut expected = vec![[c.base, c.l2], [c.base, c.l3], [c.base, c.l4], [c.l1, c.l4], [c.l1b, c.l4]];
    expected.sort();
    assert_eq!(excluded, expected);
    assert_eq!(reason(&c, c.l1, c.l4), Some(FilterReason::NeutralCollision));
    assert_eq!(reason(&c, c.ball, c.l4), None, "only self-collision pairs");
    // Spread out, nothing penetrates.
    let spread: Vec<Pose> =
        (0..n).map(|b| Pose::from_translation(DVec3::new(3.0 * b as f64, 0.0, 5.0))).collect();
    assert!(c.world.apply_neutral_filter(&spread).unwrap().is_empty());
    assert_eq!(reason(&c, c.l1, c.l4), None);
    let mut c = chain(CollisionOptions { enable_neutral_collision: true, ..CollisionOptions::default() });
    assert!(c.world.apply_neutral_filter(&vec![Pose::IDENTITY; n]).unwrap().is_empty());
}

#[test]
fn collide_applies_the_filters() {
    let mut c = chain(CollisionOptions::default());
    let set = c.world.collide().unwrap().clone();
    let mut seen: Vec<[usize; 2]> =
        set.geom_a.iter().zip(&set.geom_b).map(|(&a, &b)| [a.min(b), a.max(b)]).collect();
    seen.dedup();
    for &[a, b] in &seen {
        assert_eq!(c.world.filter_reason(a, b).unwrap(), None, "pair {a}-{b} should have been filtered");
    }
    // Every unfiltered pair of overlapping unit spheres is in contact.
    let g = c.world.geoms().len();
    let expected = (0..g)
        .flat_map(|a| (a + 1..g).map(move |b| [a, b]))
        .filter(|&[a, b]| c.world.filter_reason(a, b).unwrap().is_none())
        .count();
    assert_eq!(seen.len(), expected);
    assert!(seen.contains(&[c.l1, c.l4]) && seen.contains(&[c.floor, c.ball]));
}

/// A planar three-link arm: base (a small welded sphere at the origin) and three hinged unit-length capsules of
/// radius 0.1 along their local x, joints about z, limits ±2.5 rad.
struct Arm {
    world: CollisionWorld,
    base: usize,
    l1: usize,
    l2: usize,
    l3: usize,
}

const LINK: f64 = 1.0;
const LIMIT: f64 = 2.5;

fn arm() -> Arm {
    let mut w = CollisionWorld::new(CollisionOptions::default()).unwrap();
    let base = w.add_body(BodyDesc::new("base", 0, false)).unwrap();
    let l1 = w.add_body(BodyDesc::new("l1", base, true)).unwrap();
    let l2 = w.add_body(BodyDesc::new("l2", l1, true)).unwrap();
    let l3 = w.add_body(BodyDesc::new("l3", l2, true)).unwrap();
    w.add_geom(GeomDesc::new(Sphere::new(0.05).unwrap(), base)).unwrap();
    let along_x =
        Pose::new(DVec3::new(0.5 * LINK, 0.0, 0.0), DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2))
            .unwrap();
    for b in [l1, l2, l3] {
        w.add_geom(GeomDesc::new(Capsule::new(0.1, 0.5 * LINK - 0.1).unwrap(), b).at(along_x)).unwrap();
    }
    Arm { world: w, base, l1, l2, l3 }
}

/// Planar forward kinematics: world, base, then each link rotated by the running angle sum and placed at the end
/// of the previous link.
fn fk(q: [f64; 3]) -> Vec<Pose> {
    let mut poses = vec![Pose::IDENTITY, Pose::IDENTITY];
    let (mut angle, mut origin) = (0.0, DVec3::ZERO);
    for qi in q {
        angle += qi;
        poses.push(Pose::new(origin, DQuat::from_rotation_z(angle)).unwrap());
        origin += LINK * DVec3::new(angle.cos(), angle.sin(), 0.0);
    }
    poses
}

/// Joint angles of sample `s`: a deterministic low-discrepancy sequence over the joint limits, plus the
/// fully folded corners.
fn sample(s: usize) -> [f64; 3] {
    let frac = |x: f64| x - x.floor();
    let g = [0.819_172_513_396_164_4, 0.671_043_606_703_789_2, 0.549_700_477_901_970_5];
    let corners =
        [[LIMIT, LIMIT, LIMIT], [-LIMIT, -LIMIT, -LIMIT], [0.0, LIMIT, LIMIT], [0.0, -LIMIT, -LIMIT]];
    if s < corners.len() {
        return corners[s];
    }
    std::array::from_fn(|k| LIMIT * (2.0 * frac(0.5 + g[k] * s as f64) - 1.0))
}

#[test]
fn acm_generation_and_validation_on_a_planar_arm() {
    let mut a = arm();
    let settings = AcmSampling { n_samples: 3000, ..AcmSampling::default() };
    let generated = generate_acm(&mut a.world, &settings, |s| fk(sample(s))).unwrap();
    let acm = &generated.acm;
    for (x, y) in [(a.base, a.l1), (a.l1, a.l2), (a.l2, a.l3)] {
        assert_eq!(acm.reason(x, y), Some(&DisableReason::Adjacent), "{x}-{y}");
    }
    // l2 stays ≥ |sin 2.5| ≈ 0.6 m from the origin: base–l2 never collides.
    assert_eq!(acm.reason(a.base, a.l2), Some(&DisableReason::Never));
    // l3 folds back onto l1 near the limits: that pair must stay checked.
    assert!(!acm.is_disabled(a.l1, a.l3));
    let count = |x: usize, y: usize| {
        generated.counts.iter().find(|c| (c.body_a, c.body_b) == (x, y)).map(|c| c.colliding_samples)
    };
    assert!(count(a.l1, a.l3).unwrap() > 0);
    assert_eq!(count(a.base, a.l2), Some(0));
    assert_eq!(count(a.l1, a.l2), None, "adjacent pairs are not sampled");

    // The generated matrix misses nothing on fresh samples.
    let fresh = |s: usize| fk(sample(10_000 + 7 * s));
    let report = validate_acm(&mut a.world, acm, 2000, fresh).unwrap();
    assert!(report.is_safe(), "{report:?}");
    assert_eq!(report.missed_samples, 0);

    // A deliberately wrong entry is reported, with the first sample where it collides.
    let mut wrong = acm.clone();
    wrong.disable(a.l1, a.l3, DisableReason::Never);
    let report = validate_acm(&mut a.world, &wrong, 2000, fresh).unwrap();
    assert_eq!(report.missed.len(), 1, "{report:?}");
    let m = &report.missed[0];
    assert_eq!((m.body_a, m.body_b, &m.reason), (a.l1, a.l3, &DisableReason::Never));
    assert!(m.colliding_samples > 0 && m.colliding_samples == report.missed_samples);
    let poses = fresh(m.first_sample);
    a.world.update(&poses).unwrap();
    a.world.set_acm(AllowedCollisionMatrix::new()).unwrap();
    assert!(!a.world.is_collision_free(0.0).unwrap(), "the reported sample does collide");
    a.world.set_acm(wrong).unwrap();
    assert!(a.world.is_collision_free(0.0).unwrap(), "and the wrong matrix hides it");
}

#[test]
fn acm_sampling_settings_are_validated() {
    let mut a = arm();
    let bad = AcmSampling { n_samples: 0, ..AcmSampling::default() };
    assert!(generate_acm(&mut a.world, &bad, |s| fk(sample(s))).is_err());
    let bad = AcmSampling { always_fraction: 1.5, ..AcmSampling::default() };
    assert!(generate_acm(&mut a.world, &bad, |s| fk(sample(s))).is_err());
    // A closure returning the wrong number of poses is an error, not a panic.
    let err = generate_acm(&mut a.world, &AcmSampling::default(), |_| vec![Pose::IDENTITY]).unwrap_err();
    assert!(matches!(err, CollisionError::InvalidWorld { .. }), "{err}");
}

#[test]
fn box_geoms_and_unknown_bodies() {
    let mut w = CollisionWorld::new(CollisionOptions::default()).unwrap();
    assert!(w.add_body(BodyDesc::new("x", 3, true)).is_err());
    let b = w.add_body(BodyDesc::free("x")).unwrap();
    assert!(w.add_body(BodyDesc::free("x")).is_err(), "duplicate names are rejected");
    assert!(w.add_geom(GeomDesc::new(Cuboid::new(DVec3::ONE).unwrap(), 5)).is_err());
    let bad_friction =
        GeomDesc { friction: [-1.0, 0.0, 0.0], ..GeomDesc::new(Cuboid::new(DVec3::ONE).unwrap(), b) };
    let err = w.add_geom(bad_friction).unwrap_err();
    assert!(err.to_string().contains("friction"), "{err}");
    let bad_condim = GeomDesc { condim: 2, ..GeomDesc::new(Cuboid::new(DVec3::ONE).unwrap(), b) };
    assert!(w.add_geom(bad_condim).is_err());
}
