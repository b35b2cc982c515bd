//! The three broad phases report the same pair set (strict 3-D overlap, not both fixed) on random worlds, on the
//! first step and after many small moves (the tree's fat-box reinsertion, SAP's warm-started insertion sort).

use glam::DVec3;
use proptest::prelude::*;
use signorini_collision::broad::{
    AllPairs, BroadPhase, BroadPhaseInput, BroadPhaseKind, DynamicAabbTree, GeomPair, SweepAndPrune,
};
use signorini_geometry::Aabb;

mod common;
use common::Rng;

fn pairs(bp: &mut dyn BroadPhase, aabbs: &[Aabb], fixed: &[bool]) -> Vec<GeomPair> {
    let input = BroadPhaseInput::new(aabbs, fixed).unwrap();
    let mut out = Vec::new();
    bp.find_pairs(&input, &mut out);
    assert!(out.iter().all(|p| p[0] < p[1]), "{:?} pairs must be ordered", bp.kind());
    out.sort_unstable();
    let n = out.len();
    out.dedup();
    assert_eq!(n, out.len(), "{:?} reported a pair twice", bp.kind());
    out
}

/// A generated box: centre, half extents, fixed flag.
type BoxSpec = ((f64, f64, f64), (f64, f64, f64), bool);

/// Boxes: bounded ones from the strategy, plus an optional floor (`z ≤ 0`, infinite elsewhere).
fn world(boxes: &[BoxSpec], floor: bool) -> (Vec<Aabb>, Vec<bool>) {
    let mut aabbs: Vec<Aabb> = boxes
        .iter()
        .map(|&((x, y, z), (hx, hy, hz), _)| {
            Aabb::from_center_half_extents(DVec3::new(x, y, z), DVec3::new(hx, hy, hz))
        })
        .collect();
    let mut fixed: Vec<bool> = boxes.iter().map(|b| b.2).collect();
    if floor {
        aabbs.push(Aabb::new(
            DVec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
            DVec3::new(f64::INFINITY, f64::INFINITY, 0.0),
        ));
        fixed.push(true);
    }
    (aabbs, fixed)
}

fn all_kinds() -> Vec<Box<dyn BroadPhase>> {
    vec![
        Box::new(AllPairs::new()),
        Box::new(SweepAndPrune::new()),
        Box::new(DynamicAabbTree::new(0.05)),
        Box::new(DynamicAabbTree::new(0.0)),
        BroadPhaseKind::DynamicTree.build(0.3),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn broad_phases_agree_after_many_moves(
        boxes in prop::collection::vec(
            ((-2.0..2.0f64, -2.0..2.0f64, -0.5..2.0f64), (0.01..0.5f64, 0.01..0.5f64, 0.01..0.5f64), prop::bool::weighted(0.2)),
            1..90,
        ),
        floor in any::<bool>(),
        seed in 1u64..u64::MAX,
        steps in 1usize..40,
    ) {
        let (mut aabbs, fixed) = world(&boxes, floor);
        let mut phases = all_kinds();
        let mut rng = Rng(seed);
        for step in 0..=steps {
            let reference = pairs(phases[0].as_mut(), &aabbs, &fixed);
            for bp in phases.iter_mut().skip(1) {
                let got = pairs(bp.as_mut(), &aabbs, &fixed);
                prop_assert_eq!(&got, &reference, "{:?} at step {}", bp.kind(), step);
            }
            // Small moves of the moving boxes, with an occasional jump; boxes sometimes touch exactly.
            for (b, &f) in aabbs.iter_mut().zip(&fixed) {
                if f || !b.min.is_finite() {
                    continue;
                }
                let jump = rng.next() < 0.02;
                let scale = if jump { 1.0 } else { 0.02 };
                let d = DVec3::new(rng.range(-scale, scale), rng.range(-scale, scale), rng.range(-scale, scale));
                *b = Aabb::new(b.min + d, b.max + d);
            }
        }
    }
}

#[test]
fn tree_reinserts_only_leaves_that_leave_their_fat_box() {
    let mut rng = Rng(7);
    let n = 200;
    let mut aabbs: Vec<Aabb> = (0..n)
        .map(|_| {
            let c = DVec3::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0), rng.range(0.0, 2.0));
            Aabb::from_center_half_extents(c, DVec3::splat(0.1))
        })
        .collect();
    let fixed = vec![false; n];
    let mut tree = DynamicAabbTree::new(0.05);
    let mut reference = AllPairs::new();
    pairs(&mut tree, &aabbs, &fixed);
    assert_eq!(tree.reinserted_last_step(), n);
    tree.validate(&aabbs).unwrap();
    // Moves of at most 1 cm per axis in total stay inside the 5 cm fat boxes: nothing is reinserted.
    for _ in 0..3 {
        for b in &mut aabbs {
            let d = DVec3::new(rng.range(-0.003, 0.003), rng.range(-0.003, 0.003), rng.range(-0.003, 0.003));
            *b = Aabb::new(b.min + d, b.max + d);
        }
        assert_eq!(pairs(&mut tree, &aabbs, &fixed), pairs(&mut reference, &aabbs, &fixed));
        assert_eq!(tree.reinserted_last_step(), 0);
    }
    // Move 10 boxes by 20 cm: exactly those leaves are reinserted.
    for b in aabbs.iter_mut().take(10) {
        let d = DVec3::new(0.2, 0.0, 0.0);
        *b = Aabb::new(b.min + d, b.max + d);
    }
    assert_eq!(pairs(&mut tree, &aabbs, &fixed), pairs(&mut reference, &aabbs, &fixed));
    assert_eq!(tree.reinserted_last_step(), 10);
    tree.validate(&aabbs).unwrap();
    // A long random walk keeps the tree valid and balanced.
    for _ in 0..300 {
        for b in &mut aabbs {
            let d = DVec3::new(rng.range(-0.04, 0.04), rng.range(-0.04, 0.04), rng.range(-0.04, 0.04));
            *b = Aabb::new(b.min + d, b.max + d);
        }
        assert_eq!(pairs(&mut tree, &aabbs, &fixed), pairs(&mut reference, &aabbs, &fixed));
    }
    tree.validate(&aabbs).unwrap();
    assert!(tree.height() <= 2 * (n as f64).log2().ceil() as usize, "height {}", tree.height());
}

#[test]
fn touching_boxes_and_fixed_pairs_are_not_reported() {
    let unit = |x: f64, y: f64| Aabb::new(DVec3::new(x, y, 0.0), DVec3::new(x + 1.0, y + 1.0, 1.0));
    // 0 and 1 touch along x; 1 and 2 overlap; 1 and 3 touch along x; 2 and 3 overlap but both are fixed; 0 and 4
    // touch along y.
    let aabbs = [unit(0.0, 0.0), unit(1.0, 0.0), unit(1.5, 0.5), unit(2.0, 0.5), unit(0.0, 1.0)];
    let fixed = [false, false, true, true, false];
    for mut bp in all_kinds() {
        assert_eq!(pairs(bp.as_mut(), &aabbs, &fixed), vec![[1, 2]], "{:?}", bp.kind());
    }
}

#[test]
fn input_is_validated() {
    let b = Aabb::new(DVec3::ZERO, DVec3::ONE);
    assert!(BroadPhaseInput::new(&[b, b], &[false]).is_err());
    let nan = Aabb::new(DVec3::new(f64::NAN, 0.0, 0.0), DVec3::ONE);
    assert!(BroadPhaseInput::new(&[b, nan], &[false, false]).is_err());
    let input = BroadPhaseInput::new(&[], &[]).unwrap();
    for mut bp in all_kinds() {
        let mut out = vec![[0, 1]];
        bp.find_pairs(&input, &mut out);
        assert!(out.is_empty());
    }
}

#[test]
fn changing_the_geom_count_rebuilds_the_state() {
    let mut rng = Rng(99);
    let make = |rng: &mut Rng, n: usize| -> Vec<Aabb> {
        (0..n)
            .map(|_| {
                let c = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
                Aabb::from_center_half_extents(c, DVec3::splat(0.2))
            })
            .collect()
    };
    let mut phases = all_kinds();
    for n in [30, 31, 5, 60] {
        let aabbs = make(&mut rng, n);
        let fixed = vec![false; n];
        let reference = pairs(phases[0].as_mut(), &aabbs, &fixed);
        for bp in phases.iter_mut().skip(1) {
            assert_eq!(pairs(bp.as_mut(), &aabbs, &fixed), reference, "{:?} with {n} geoms", bp.kind());
        }
    }
}
