//! The collision world end to end: determinism (pair order, thread count, broad phase), budgets, parameter mixing,
//! the normal cache and the robotics queries.

use glam::{DQuat, DVec3};
use signorini_collision::broad::BroadPhaseKind;
use signorini_collision::contact_set::{ContactSet, GeomContactParams};
use signorini_collision::filter::{AllowedCollisionMatrix, DisableReason};
use signorini_collision::world::{BodyDesc, CollisionData, CollisionOptions, CollisionWorld, GeomDesc};
use signorini_collision::{
    CollisionError, DistanceRequest, MujocoDispatcher, NativeDispatcher, PairDispatcher, distance,
};
use signorini_geometry::{Capsule, Cuboid, Cylinder, Ellipsoid, Plane, Pose, Shape, Sphere};

mod common;
use common::Rng;

fn shape(rng: &mut Rng, kind: usize) -> Shape {
    let s = |rng: &mut Rng| rng.range(0.035, 0.06);
    match kind % 5 {
        0 => Sphere::new(s(rng)).unwrap().into(),
        1 => Cuboid::new(DVec3::new(s(rng), s(rng), s(rng))).unwrap().into(),
        2 => Capsule::new(0.7 * s(rng), 0.6 * s(rng)).unwrap().into(),
        3 => Cylinder::new(s(rng), 0.7 * s(rng)).unwrap().into(),
        _ => Ellipsoid::new(DVec3::new(s(rng), s(rng), s(rng))).unwrap().into(),
    }
}

/// A dense pile of `nx × ny × nz` mixed primitives on a floor inside four walls, 0.1 m apart so that neighbours
/// overlap a little. Returns the world and the bodies' base poses.
fn pile(nx: usize, ny: usize, nz: usize, options: CollisionOptions) -> (CollisionWorld, Vec<Pose>) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut w = CollisionWorld::new(options).unwrap();
    w.add_geom(GeomDesc::new(Plane::new(), 0)).unwrap();
    let (hx, hy) = (0.05 * nx as f64 + 0.02, 0.05 * ny as f64 + 0.02);
    for (c, h) in [
        (DVec3::new(hx + 0.05, 0.0, 0.4), DVec3::new(0.05, hy, 0.4)),
        (DVec3::new(-hx - 0.05, 0.0, 0.4), DVec3::new(0.05, hy, 0.4)),
        (DVec3::new(0.0, hy + 0.05, 0.4), DVec3::new(hx, 0.05, 0.4)),
        (DVec3::new(0.0, -hy - 0.05, 0.4), DVec3::new(hx, 0.05, 0.4)),
    ] {
        w.add_geom(GeomDesc::new(Cuboid::new(h).unwrap(), 0).at(Pose::from_translation(c))).unwrap();
    }
    let mut poses = vec![Pose::IDENTITY];
    for k in 0..nx * ny * nz {
        let (i, j, l) = (k % nx, (k / nx) % ny, k / (nx * ny));
        let b = w.add_body(BodyDesc::free(format!("b{k}"))).unwrap();
        let mut g = GeomDesc::new(shape(&mut rng, k), b);
        g.friction[0] = rng.range(0.3, 1.2);
        g.solref[0] = rng.range(0.01, 0.03);
        w.add_geom(g).unwrap();
        let c = DVec3::new(
            0.1 * (i as f64 - 0.5 * (nx - 1) as f64),
            0.1 * (j as f64 - 0.5 * (ny - 1) as f64),
            0.045 + 0.09 * l as f64,
        );
        poses.push(Pose::new(c, rng.rotation()).unwrap());
    }
    (w, poses)
}

/// The poses of step `k`: the base poses jittered by a few millimetres and a few degrees.
fn jitter(base: &[Pose], k: u64) -> Vec<Pose> {
    let mut rng = Rng(0xA5A5_5A5A ^ (k + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
    base.iter()
        .enumerate()
        .map(|(b, p)| {
            if b == 0 {
                return *p;
            }
            let d = DVec3::new(rng.range(-0.004, 0.004), rng.range(-0.004, 0.004), rng.range(-0.004, 0.004));
            let r = DQuat::from_axis_angle(
                DVec3::new(rng.range(-1.0, 1.0), 1.0, rng.range(-1.0, 1.0)).normalize(),
                0.05 * rng.next(),
            );
            Pose::new(p.translation + d, (r * p.rotation).normalize()).unwrap()
        })
        .collect()
}

/// Every bit of a contact set, for byte-identity checks.
fn bits(s: &ContactSet) -> Vec<u64> {
    let mut out = vec![s.len() as u64, s.n_pairs as u64];
    for r in s.iter() {
        out.extend([r.geom_a, r.geom_b, r.link_a, r.link_b].map(|x| x as u64));
        for v in [r.position, r.normal] {
            out.extend(v.to_array().map(f64::to_bits));
        }
        out.push(r.penetration.to_bits());
        out.extend(r.params.friction.map(f64::to_bits));
        out.extend(r.params.solref.map(f64::to_bits));
        out.extend(r.params.solimp.map(f64::to_bits));
        out.extend([r.params.condim as u64, r.params.margin.to_bits(), r.params.gap.to_bits()]);
    }
    out
}

fn big_budget() -> CollisionOptions {
    CollisionOptions { max_collision_pairs: 2000, ..CollisionOptions::default() }
}

#[test]
fn shuffled_pair_orders_give_byte_identical_contact_sets() {
    let (mut a, base) = pile(5, 5, 3, big_budget());
    let (mut b, _) = pile(5, 5, 3, big_budget());
    let n = a.geoms().len();
    let mut all: Vec<[usize; 2]> = (0..n).flat_map(|i| (i + 1..n).map(move |j| [i, j])).collect();
    let mut rng = Rng(12345);
    for k in 0..6 {
        let poses = jitter(&base, k);
        let sa = bits(a.step(&poses).unwrap());
        // Fisher–Yates shuffle, and each pair's orientation flipped at random.
        for i in (1..all.len()).rev() {
            all.swap(i, rng.below(i + 1));
        }
        for p in all.iter_mut() {
            if rng.next() < 0.5 {
                p.swap(0, 1);
            }
        }
        b.update(&poses).unwrap();
        let sb = bits(b.collide_pairs(&all).unwrap());
        assert_eq!(sa, sb, "step {k}");
        assert_eq!(a.stats(), b.stats());
        assert!(a.stats().colliding_pairs > 100, "{:?}", a.stats());
    }
}

#[test]
fn thread_count_and_broad_phase_do_not_change_the_contact_set() {
    let variants = [
        CollisionOptions { threads: 2, ..big_budget() },
        CollisionOptions { threads: 3, ..big_budget() },
        CollisionOptions { broad_phase: BroadPhaseKind::DynamicTree, threads: 2, ..big_budget() },
        CollisionOptions { broad_phase: BroadPhaseKind::AllPairs, ..big_budget() },
    ];
    let (mut reference, base) = pile(5, 5, 3, big_budget());
    let mut worlds: Vec<CollisionWorld> = variants.iter().map(|o| pile(5, 5, 3, *o).0).collect();
    for k in 0..5 {
        let poses = jitter(&base, k);
        let expected = bits(reference.step(&poses).unwrap());
        // Enough pairs that 2 and 3 threads split them (the narrow phase runs fewer than 128 on one thread).
        assert!(reference.stats().candidate_pairs >= 128, "{:?}", reference.stats());
        for (w, o) in worlds.iter_mut().zip(&variants) {
            assert_eq!(bits(w.step(&poses).unwrap()), expected, "step {k} with {o:?}");
        }
    }
}

#[test]
fn contact_sets_are_sorted_and_in_the_simulator_convention() {
    let (mut w, base) = pile(4, 4, 2, big_budget());
    let set = w.step(&base).unwrap().clone();
    assert!(!set.is_empty());
    let geoms = w.geoms();
    let mut last = (0, 0, 0, 0);
    for r in set.iter() {
        assert!(geoms.shape[r.geom_a].kind() <= geoms.shape[r.geom_b].kind());
        assert_eq!((r.link_a, r.link_b), (geoms.body[r.geom_a], geoms.body[r.geom_b]));
        assert!((r.normal.length() - 1.0).abs() < 1e-9 && r.penetration >= 0.0);
        let key = (r.link_a.min(r.link_b), r.link_a.max(r.link_b), r.geom_a, r.geom_b);
        assert!(key >= last, "sorted by link pair then geoms");
        last = key;
        assert!(r.params.friction[0] >= 0.01);
    }
    // The floor contacts: plane first (kind order), normal from B (the body) to A (the plane), i.e. downwards.
    let floor: Vec<_> = set.iter().filter(|r| r.geom_a == 0).collect();
    assert!(!floor.is_empty());
    assert!(floor.iter().all(|r| r.normal.z < -0.99));
}

/// `n` spheres resting 1 mm into the floor, 0.3 m apart (one contact each), or boxes (four contacts each).
fn resting(n: usize, boxes: bool, max_collision_pairs: usize) -> (CollisionWorld, Vec<Pose>) {
    let options = CollisionOptions { max_collision_pairs, ..CollisionOptions::default() };
    let mut w = CollisionWorld::new(options).unwrap();
    w.add_geom(GeomDesc::new(Plane::new(), 0)).unwrap();
    let mut poses = vec![Pose::IDENTITY];
    for k in 0..n {
        let b = w.add_body(BodyDesc::free(format!("b{k}"))).unwrap();
        let shape: Shape = if boxes {
            Cuboid::new(DVec3::splat(0.1)).unwrap().into()
        } else {
            Sphere::new(0.1).unwrap().into()
        };
        w.add_geom(GeomDesc::new(shape, b)).unwrap();
        poses.push(Pose::from_translation(DVec3::new(0.3 * (k % 20) as f64, 0.3 * (k / 20) as f64, 0.099)));
    }
    (w, poses)
}

#[test]
fn pair_budgets_are_typed_errors_with_the_needed_count() {
    // 150 spheres on the floor with max_collision_pairs = 20: 150 candidates fit the broad-phase budget (20 × 8),
    // 150 contacts exceed the contact budget (20 × 5); 30 pairs' worth would fit.
    let (mut w, poses) = resting(150, false, 20);
    match w.step(&poses) {
        Err(CollisionError::CapacityExceeded { option, what, limit, needed, required }) => {
            assert_eq!((option, what), ("max_collision_pairs", "contacts"));
            assert_eq!((limit, needed, required), (100, 150, 30));
        }
        other => panic!("expected a capacity error, got {other:?}"),
    }
    let msg = w.step(&poses).unwrap_err().to_string();
    assert!(msg.contains("raise `max_collision_pairs` to at least 30"), "{msg}");
    // 200 spheres: 200 candidates exceed 20 × 8, and the contacts (200 > 20 × 5) need more still: the step runs to
    // the end and reports what it needs as a whole (40), not the candidates' 25, which would fail again.
    let (mut w, poses) = resting(200, false, 20);
    match w.step(&poses) {
        Err(CollisionError::CapacityExceeded { option, what, limit, needed, required }) => {
            assert_eq!((option, what), ("max_collision_pairs", "contacts"));
            assert_eq!((limit, needed, required), (100, 200, 40));
        }
        other => panic!("expected a capacity error, got {other:?}"),
    }
    // At 25 the candidates fit, and the contacts still ask for 40; at 40 everything fits, nothing dropped.
    let (mut w, poses) = resting(200, false, 25);
    match w.step(&poses) {
        Err(CollisionError::CapacityExceeded { what: "contacts", needed: 200, required: 40, .. }) => {}
        other => panic!("expected a contact budget error, got {other:?}"),
    }
    let (mut w, poses) = resting(200, false, 40);
    let set = w.step(&poses).unwrap();
    assert_eq!((set.n_pairs, set.len()), (200, 200));
    // Boxes (more than one, box–box detection on) get 16 contacts per pair in the contact budget: 800 contacts of
    // 200 boxes fit 150 × 16 with the default option.
    let (mut w, poses) = resting(200, true, 150);
    let set = w.step(&poses).unwrap();
    assert_eq!((set.n_pairs, set.len()), (200, 800));
    assert_eq!(signorini_collision::capacity::contacts_per_pair(w.options(), 200), 16);
}

#[test]
fn per_pair_contact_caps_are_typed_errors() {
    let options = CollisionOptions { contacts_per_box_box_pair: 3, ..CollisionOptions::default() };
    let mut w = CollisionWorld::new(options).unwrap();
    let a = w.add_body(BodyDesc::free("a")).unwrap();
    let b = w.add_body(BodyDesc::free("b")).unwrap();
    w.add_geom(GeomDesc::new(Cuboid::new(DVec3::splat(0.5)).unwrap(), a)).unwrap();
    w.add_geom(GeomDesc::new(Cuboid::new(DVec3::splat(0.5)).unwrap(), b)).unwrap();
    let poses = [Pose::IDENTITY, Pose::IDENTITY, Pose::from_translation(DVec3::new(0.0, 0.0, 0.99))];
    match w.step(&poses) {
        Err(CollisionError::CapacityExceeded { option, needed, limit, .. }) => {
            assert_eq!((option, needed, limit), ("contacts_per_box_box_pair", 4, 3));
        }
        other => panic!("expected a capacity error, got {other:?}"),
    }
    // Without analytic box–box the pair goes through MPR and perturbations on the hulls, capped at 5 by request.
    let options =
        CollisionOptions { box_box_detection: false, contacts_per_box_box_pair: 3, ..Default::default() };
    w.set_options(options).unwrap();
    let set = w.step(&poses).unwrap();
    assert!((1..=5).contains(&set.len()), "{}", set.len());
    assert!(set.normal.iter().all(|n| (*n - DVec3::NEG_Z).length() < 1e-5), "{:?}", set.normal);
}

#[test]
fn parameters_are_mixed_per_spec() {
    let p = |mu: f64, solref: [f64; 2], priority: i32, solmix: f64| GeomContactParams {
        friction: [mu, 0.01, 0.001],
        solref,
        solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
        condim: 3,
        priority,
        solmix,
        margin: 0.0,
        gap: 0.0,
        adhesion: 0.0,
    };
    let (a, b) = (p(0.002, [0.02, 1.0], 0, 1.0), p(0.004, [0.04, 0.5], 1, 3.0));
    let native = NativeDispatcher.mix_params(&a, &b);
    assert_eq!(native.friction[0], 0.01, "floor");
    assert_eq!(native.solref, [0.03, 0.75]);
    let native = NativeDispatcher.mix_params(&p(0.8, [0.02, 1.0], 0, 1.0), &b);
    assert_eq!(native.friction[0], 0.8);
    // MuJoCo: the higher priority wins; equal priorities mix by solmix, direct mode takes the minimum.
    let mj = MujocoDispatcher.mix_params(&a, &b);
    assert_eq!((mj.friction[0], mj.solref), (0.004, [0.04, 0.5]));
    let b0 = GeomContactParams { priority: 0, ..b };
    let mj = MujocoDispatcher.mix_params(&a, &b0);
    assert_eq!(mj.solref, [0.25 * 0.02 + 0.75 * 0.04, 0.25 * 1.0 + 0.75 * 0.5]);
    let direct = GeomContactParams { solref: [-1000.0, -10.0], ..b0 };
    assert_eq!(MujocoDispatcher.mix_params(&a, &direct).solref, [-1000.0, -10.0]);
}

#[test]
fn the_normal_cache_forgets_pairs_whose_boxes_separate() {
    // MPR pairs (cylinders, ellipsoids) are warm-started from the cached normal. A world that saw the pile, then
    // every body lifted apart (all boxes disjoint, so every cache entry is dropped), then the pile again, must match
    // a fresh world that only saw the lifted layout and the pile.
    let (mut seasoned, base) = pile(4, 4, 2, big_budget());
    let apart: Vec<Pose> = base
        .iter()
        .enumerate()
        .map(|(b, p)| Pose::new(p.translation + DVec3::new(0.0, 0.0, 10.0 * b as f64), p.rotation).unwrap())
        .collect();
    for k in 0..3 {
        seasoned.step(&jitter(&base, k)).unwrap();
    }
    assert!(seasoned.step(&apart).unwrap().is_empty());
    let (mut fresh, _) = pile(4, 4, 2, big_budget());
    fresh.step(&apart).unwrap();
    let poses = jitter(&base, 7);
    assert_eq!(bits(seasoned.step(&poses).unwrap()), bits(fresh.step(&poses).unwrap()));
}

#[test]
fn world_misuse_is_an_error_not_a_panic() {
    let (mut w, base) = pile(2, 2, 1, CollisionOptions::default());
    assert!(matches!(w.collide(), Err(CollisionError::InvalidWorld { .. })));
    assert!(w.update(&base[..2]).is_err());
    let mut bad = base.clone();
    bad[2].translation.x = f64::NAN;
    let err = w.update(&bad).unwrap_err();
    assert!(err.to_string().contains("b1"), "{err}");
    w.update(&base).unwrap();
    assert!(w.collide_pairs(&[[0, 99]]).is_err());
    assert!(w.collide_pairs(&[[1, 1]]).is_err());
    assert!(w.collide_pairs(&[[0, 5], [5, 0]]).is_err());
    assert!(CollisionWorld::new(CollisionOptions { threads: 0, ..Default::default() }).is_err());
    assert!(
        CollisionWorld::new(CollisionOptions { tree_fat_margin: f64::NAN, ..Default::default() }).is_err()
    );
    assert!(w.distances_within(-1.0, &mut Vec::new()).is_err());
    assert!(w.is_collision_free(f64::INFINITY).is_err());
}

/// Scattered primitives on free bodies (no floor), for the robotics queries.
fn scattered(seed: u64, n: usize) -> (CollisionWorld, Vec<Pose>) {
    let mut rng = Rng(seed);
    let mut w = CollisionWorld::new(CollisionOptions::default()).unwrap();
    let mut poses = vec![Pose::IDENTITY];
    for k in 0..n {
        let b = w.add_body(BodyDesc::free(format!("b{k}"))).unwrap();
        w.add_geom(GeomDesc::new(shape(&mut rng, k), b)).unwrap();
        let c = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        poses.push(Pose::new(c, rng.rotation()).unwrap());
    }
    w.update(&poses).unwrap();
    (w, poses)
}

/// Brute force over every unfiltered pair.
fn brute_distances(w: &CollisionWorld) -> Vec<(usize, usize, f64)> {
    let g = w.geoms();
    let poses = w.data().geom_poses();
    let mut out = Vec::new();
    for i in 0..g.len() {
        for j in i + 1..g.len() {
            if w.filter_reason(i, j).unwrap().is_some() {
                continue;
            }
            let d = distance(&g.shape[i], &poses[i], &g.shape[j], &poses[j], &DistanceRequest::default())
                .unwrap();
            out.push((i, j, d.distance));
        }
    }
    out
}

#[test]
fn min_distance_matches_brute_force_and_respects_the_acm() {
    for seed in [1, 2, 3, 4, 5] {
        let (mut w, _) = scattered(seed, 40);
        let brute = brute_distances(&w);
        let best = brute.iter().copied().min_by(|a, b| a.2.total_cmp(&b.2)).unwrap();
        let got = w.min_distance().unwrap().unwrap();
        assert_eq!((got.geom_a, got.geom_b), (best.0, best.1), "seed {seed}");
        assert!((got.result.distance - best.2).abs() < 1e-12);
        // Disable the closest body pair: the answer moves to the next one.
        let mut acm = AllowedCollisionMatrix::new();
        acm.disable(got.body_a, got.body_b, DisableReason::User);
        w.set_acm(acm).unwrap();
        let second = brute_distances(&w).into_iter().min_by(|a, b| a.2.total_cmp(&b.2)).unwrap();
        let got2 = w.min_distance().unwrap().unwrap();
        assert_eq!((got2.geom_a, got2.geom_b), (second.0, second.1));
    }
    // A world with a single body has no pair.
    let (mut w, _) = scattered(9, 1);
    assert!(w.min_distance().unwrap().is_none());
}

#[test]
fn distances_within_and_collision_free_match_brute_force() {
    let (mut w, mut poses) = scattered(11, 60);
    let brute = brute_distances(&w);
    let mut out = Vec::new();
    for d_act in [0.0, 0.05, 0.2, 1.0] {
        w.distances_within(d_act, &mut out).unwrap();
        let got: Vec<(usize, usize)> = out.iter().map(|d| (d.geom_a, d.geom_b)).collect();
        let expected: Vec<(usize, usize)> =
            brute.iter().filter(|d| d.2 < d_act).map(|d| (d.0, d.1)).collect();
        assert_eq!(got, expected, "d_act {d_act}");
        assert!(out.iter().all(|d| d.result.distance < d_act && d.body_a < d.body_b));
    }
    let min = brute.iter().map(|d| d.2).fold(f64::INFINITY, f64::min);
    assert_eq!(w.is_collision_free(0.0).unwrap(), min > 0.0);
    if min > 0.0 {
        assert!(!w.is_collision_free(min + 1e-6).unwrap());
        assert!(w.is_collision_free(0.5 * min).unwrap());
    }
    // Put body 2 onto body 1: no longer free.
    poses[2] = poses[1];
    w.update(&poses).unwrap();
    assert!(!w.is_collision_free(0.0).unwrap());
    assert!(w.min_distance().unwrap().unwrap().result.distance < 0.0);
}

#[test]
fn worlds_can_move_between_threads() {
    fn assert_send<T: Send>() {}
    assert_send::<CollisionWorld>();
    assert_send::<ContactSet>();
}

#[test]
fn one_model_drives_many_data_and_a_cloned_data_continues_bit_for_bit() {
    let (w, base) = pile(4, 4, 3, big_budget());
    let (model, mut data) = w.into_parts();
    for k in 0..5 {
        model.step(&mut data, &jitter(&base, k)).unwrap();
    }
    // The normal cache and the broad phase's kept state travel with the clone.
    let snapshot = data.clone();
    let mut other = CollisionData::new(&model);
    let mut first = Vec::new();
    for k in 5..10 {
        first.push(bits(model.step(&mut data, &jitter(&base, k)).unwrap()));
        model.step(&mut other, &jitter(&base, k)).unwrap();
    }
    let mut restored = snapshot;
    for (k, expected) in (5..10).zip(&first) {
        assert_eq!(&bits(model.step(&mut restored, &jitter(&base, k)).unwrap()), expected, "step {k}");
    }
    assert!(first.iter().any(|b| !b.is_empty()));
    // A fresh data finds the same touching pairs; how many perturbation contacts a pair keeps may differ by the
    // MPR warm start (the previous step's normal, spec §A.7), which the fresh data lacks.
    let pairs = |d: &CollisionData| {
        let mut p: Vec<(usize, usize)> = d.contacts().iter().map(|c| (c.geom_a, c.geom_b)).collect();
        p.dedup();
        p
    };
    assert_eq!(pairs(&other), pairs(&data));
    fn shared<T: Send + Sync>(_: &T) {}
    shared(&model);
}

/// The dialect in the options decides the geom boxes (inflated by the margin in MuJoCo's), the detection margin
/// (contacts before touching in MuJoCo's) and the mixing rule (Genesis's friction floor), and `set_options`
/// switches it.
#[test]
fn the_dialect_decides_boxes_and_mixing() {
    let mut w = CollisionWorld::new(CollisionOptions::default()).unwrap();
    for name in ["a", "b"] {
        let body = w.add_body(BodyDesc::free(name)).unwrap();
        let geom = GeomDesc {
            margin: 0.05,
            friction: [0.001, 0.0, 0.0],
            ..GeomDesc::new(Sphere::new(0.1).unwrap(), body)
        };
        w.add_geom(geom).unwrap();
    }
    let at = |x: f64| Pose::from_translation(DVec3::new(x, 0.0, 0.0));
    let apart = [Pose::IDENTITY, at(0.0), at(0.25)];
    let touching = [Pose::IDENTITY, at(0.0), at(0.19)];
    w.step(&apart).unwrap();
    assert_eq!(w.stats().broad_phase_pairs, 0, "native boxes are exact");
    assert_eq!(w.step(&touching).unwrap().friction, [0.01], "native friction floor");
    w.set_options(CollisionOptions::mujoco_compatible()).unwrap();
    assert!(w.collide().is_err(), "a new dialect needs new boxes");
    // 0.05 apart, within the summed margins (0.1): MuJoCo reports the contact, at a negative penetration.
    let within = w.step(&apart).unwrap();
    assert_eq!(within.len(), 1, "a contact within the margins");
    assert!((within.penetration[0] + 0.05).abs() < 1e-12, "{}", within.penetration[0]);
    assert_eq!(w.stats().broad_phase_pairs, 1, "MuJoCo boxes are inflated by the margin");
    assert!(
        w.step(&[Pose::IDENTITY, at(0.0), at(0.31)]).unwrap().is_empty(),
        "0.11 apart: beyond the margins"
    );
    assert_eq!(w.step(&touching).unwrap().friction, [0.001], "no floor in MuJoCo's mixing");
}

/// An explicit pair collides whatever the masks and the exclusions say, with its own parameters (not the geoms'
/// mixed ones), within its own margin; it replaces the broad phase's pair of the same geoms; a pair of one geom is
/// an error; the same geoms paired again collide again with the second pair's parameters (MuJoCo 4.0.1 makes a
/// contact per `<pair>` element: two pairs of a ball and the floor, condim 1 and 3, give two contacts).
#[test]
fn explicit_pairs_bypass_the_filters_with_their_own_parameters() {
    // MuJoCo-compatible: contacts within a margin.
    let mut w = CollisionWorld::new(CollisionOptions::mujoco_compatible()).unwrap();
    w.add_geom(GeomDesc::new(Plane::new(), 0)).unwrap();
    let ball = w.add_body(BodyDesc::free("ball")).unwrap();
    let mut g = GeomDesc::new(Sphere::new(0.1).unwrap(), ball);
    (g.contype, g.conaffinity) = (0, 0);
    w.add_geom(g).unwrap();
    let boxed = w.add_body(BodyDesc::free("box")).unwrap();
    w.add_geom(GeomDesc::new(Cuboid::new(DVec3::splat(0.1)).unwrap(), boxed)).unwrap();
    w.exclude_bodies(ball, boxed).unwrap();
    // The ball 2 mm above the floor, the box resting on it 1 mm deep.
    let poses = [
        Pose::IDENTITY,
        Pose::from_translation(DVec3::new(0.0, 0.0, 0.102)),
        Pose::from_translation(DVec3::new(0.0, 0.0, 0.301)),
    ];
    let before = w.step(&poses).unwrap().len();
    assert_eq!(before, 0, "masks and the exclusion filter every pair");
    let params = signorini_collision::contact_set::MixedParams {
        friction: [0.3, 0.01, 0.001],
        solref: [0.01, 1.0],
        solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
        condim: 4,
        margin: 0.005,
        gap: 0.0,
        adhesion: 0.5,
    };
    w.add_explicit_pair(1, 0, params).unwrap();
    w.add_explicit_pair(1, 2, MixedParamsExt::frictionless(params)).unwrap();
    let cs = w.step(&poses).unwrap();
    assert_eq!(cs.len(), 2, "{cs:?}");
    let floor = (0..cs.len()).find(|&c| cs.geom_a[c] == 0 || cs.geom_b[c] == 0).unwrap();
    assert_eq!((cs.condim[floor], cs.friction[floor], cs.adhesion[floor]), (4, 0.3, 0.5));
    assert!(
        (cs.penetration[floor] + 0.002).abs() < 1e-12,
        "within the pair's margin: {}",
        cs.penetration[floor]
    );
    assert!(matches!(w.add_explicit_pair(2, 2, params), Err(CollisionError::InvalidRequest { .. })));
    let again =
        signorini_collision::contact_set::MixedParams { condim: 3, friction: [0.7, 0.0, 0.0], ..params };
    w.add_explicit_pair(0, 1, again).unwrap();
    let cs = w.step(&poses).unwrap();
    assert_eq!(cs.len(), 3, "{cs:?}");
    let floor: Vec<usize> = (0..cs.len()).filter(|&c| cs.geom_a[c] == 0 || cs.geom_b[c] == 0).collect();
    assert_eq!(floor.len(), 2);
    let seen: Vec<(u8, f64)> = floor.iter().map(|&c| (cs.condim[c], cs.friction[c])).collect();
    assert_eq!(seen, [(4, 0.3), (3, 0.7)], "each pair's own parameters, in the order given");
    for &c in &floor {
        assert!((cs.penetration[c] + 0.002).abs() < 1e-12, "the same contact: {}", cs.penetration[c]);
    }
}

trait MixedParamsExt {
    fn frictionless(self) -> Self;
}

impl MixedParamsExt for signorini_collision::contact_set::MixedParams {
    fn frictionless(self) -> Self {
        Self { condim: 1, margin: 0.0, adhesion: 0.0, ..self }
    }
}
