//! Broad-phase and whole-pipeline benchmarks of `signorini-collision`.
//!
//! - `broad_phase/<kind>/<n>`: one broad-phase step ([`BroadPhase::find_pairs`]) for `n` = 100, 1 000, 10 000
//!   moving boxes (edges 0.06–0.2 m) at constant density (a cube of side `0.35 · n^⅓` m), each oscillating with an
//!   amplitude of 5 cm over a 64-step period (frames precomputed, so only the broad phase is timed, warm-started
//!   from the previous frame as in a simulation). `kind` = `sap` (spec §A.4), `tree` (fat margin 5 cm), `all_pairs`.
//! - `broad_phase_fast/<kind>/<n>`: the same boxes moving 20× faster (amplitude 1 m, about 10 cm per step, twice
//!   the fat margin): most tree leaves leave their fat box every step.
//! - `broad_phase_static/<kind>/<n>`: slow motion with 95% of the geoms fixed to the world (a robot or a few objects
//!   in a large static environment): the tree never touches the static leaves.
//! - `pipeline/<layout>`: [`CollisionWorld::step`] (AABBs + broad phase + filters + narrow phase + sort) on 200 mixed
//!   primitives (spheres, boxes, capsules, cylinders, ellipsoids, 0.03–0.07 m) in a 1.1 m bin on a floor, built in
//!   code after `shared/scenes/pile.xml` (5 × 5 per layer, 8 layers). `initial` is the scene's spaced layout (grid
//!   0.19 m, layers 0.19 m apart: few contacts); `packed` puts the same primitives 0.1 m × 0.09 m apart so that
//!   neighbours overlap by millimetres, a stand-in for the settled pile (several hundred colliding pairs). Poses
//!   jitter by a few millimetres per step over a 16-step cycle. `threads2` runs the narrow phase on two threads.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{DQuat, DVec3};
use signorini_benches::Rng;
use signorini_collision::broad::{BroadPhase, BroadPhaseInput, BroadPhaseKind, GeomPair};
use signorini_collision::world::{BodyDesc, CollisionOptions, CollisionWorld, GeomDesc};
use signorini_geometry::{Aabb, Capsule, Cuboid, Cylinder, Ellipsoid, Plane, Pose, Shape, Sphere};

const FRAMES: usize = 64;

/// `FRAMES` frames of `n` boxes oscillating with `amplitude` (m) about random centres; `static_fraction` of them never
/// move.
fn frames(n: usize, static_fraction: f64, amplitude: f64) -> (Vec<Vec<Aabb>>, Vec<bool>) {
    let mut rng = Rng::new(0x1234_5678_9ABC_DEF1 ^ n as u64);
    let side = 0.35 * (n as f64).cbrt();
    let geoms: Vec<(DVec3, DVec3, DVec3, f64, bool)> = (0..n)
        .map(|_| {
            let c = DVec3::new(rng.range(0.0, side), rng.range(0.0, side), rng.range(0.0, side));
            let h = DVec3::new(rng.range(0.03, 0.1), rng.range(0.03, 0.1), rng.range(0.03, 0.1));
            let dir = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0))
                .normalize_or(DVec3::X);
            (c, h, dir, rng.range(0.0, std::f64::consts::TAU), rng.unit() < static_fraction)
        })
        .collect();
    let fixed = geoms.iter().map(|g| g.4).collect();
    let frames = (0..FRAMES)
        .map(|f| {
            let t = std::f64::consts::TAU * f as f64 / FRAMES as f64;
            geoms
                .iter()
                .map(|&(c, h, dir, phase, fixed)| {
                    let offset = if fixed { DVec3::ZERO } else { amplitude * (t + phase).sin() * dir };
                    Aabb::from_center_half_extents(c + offset, h)
                })
                .collect()
        })
        .collect();
    (frames, fixed)
}

fn bench_broad(c: &mut Criterion, group: &str, static_fraction: f64, amplitude: f64) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    for n in [100, 1_000, 10_000] {
        let (frames, fixed) = frames(n, static_fraction, amplitude);
        for kind in [BroadPhaseKind::SweepAndPrune, BroadPhaseKind::DynamicTree, BroadPhaseKind::AllPairs] {
            let mut bp: Box<dyn BroadPhase> = kind.build(0.05);
            let mut out: Vec<GeomPair> = Vec::new();
            let mut f = 0;
            let mut step = |bp: &mut Box<dyn BroadPhase>, out: &mut Vec<GeomPair>| {
                let input = BroadPhaseInput::new(&frames[f % FRAMES], &fixed).expect("valid boxes");
                bp.find_pairs(&input, out);
                f += 1;
            };
            for _ in 0..FRAMES {
                step(&mut bp, &mut out);
            }
            g.bench_function(BenchmarkId::new(kind.name(), n), |b| {
                b.iter(|| {
                    step(&mut bp, &mut out);
                    black_box(out.len())
                })
            });
        }
    }
    g.finish();
}

fn broad_phase(c: &mut Criterion) {
    bench_broad(c, "broad_phase", 0.0, 0.05);
    bench_broad(c, "broad_phase_fast", 0.0, 1.0);
    bench_broad(c, "broad_phase_static", 0.95, 0.05);
}

fn primitive(rng: &mut Rng, k: usize) -> Shape {
    let s = |rng: &mut Rng| rng.range(0.03, 0.07);
    match k % 5 {
        0 => Sphere::new(s(rng)).expect("radius").into(),
        1 => Cuboid::new(DVec3::new(s(rng), s(rng), s(rng))).expect("box").into(),
        2 => Capsule::new(0.75 * s(rng), 0.75 * s(rng)).expect("capsule").into(),
        3 => Cylinder::new(s(rng), 0.7 * s(rng)).expect("cylinder").into(),
        _ => Ellipsoid::new(DVec3::new(s(rng), s(rng), s(rng))).expect("ellipsoid").into(),
    }
}

/// The pile of `pile.xml` (floor, four walls, 200 free primitives in 8 layers of 5 × 5): grid `dx`, layer spacing
/// `dz`, first layer at `z0`. Returns the world and `cycle` jittered pose sets.
fn pile(
    dx: f64,
    dz: f64,
    z0: f64,
    options: CollisionOptions,
    cycle: usize,
) -> (CollisionWorld, Vec<Vec<Pose>>) {
    let mut rng = Rng::new(0x0051_CE0F_5EED);
    let mut w = CollisionWorld::new(options).expect("options");
    w.add_geom(GeomDesc::new(Plane::new(), 0)).expect("floor");
    for (c, h) in [
        (DVec3::new(0.55, 0.0, 0.4), DVec3::new(0.05, 0.6, 0.4)),
        (DVec3::new(-0.55, 0.0, 0.4), DVec3::new(0.05, 0.6, 0.4)),
        (DVec3::new(0.0, 0.55, 0.4), DVec3::new(0.5, 0.05, 0.4)),
        (DVec3::new(0.0, -0.55, 0.4), DVec3::new(0.5, 0.05, 0.4)),
    ] {
        w.add_geom(GeomDesc::new(Cuboid::new(h).expect("wall"), 0).at(Pose::from_translation(c)))
            .expect("wall");
    }
    let mut base = vec![Pose::IDENTITY];
    for k in 0..200 {
        let (i, j, l) = (k % 5, (k / 5) % 5, k / 25);
        let b = w.add_body(BodyDesc::free(format!("b{k}"))).expect("body");
        w.add_geom(GeomDesc::new(primitive(&mut rng, k), b)).expect("geom");
        let centre = DVec3::new(
            dx * (i as f64 - 2.0) + rng.range(-0.01, 0.01),
            dx * (j as f64 - 2.0) + rng.range(-0.01, 0.01),
            z0 + dz * l as f64,
        );
        let axis = DVec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0))
            .normalize_or(DVec3::Z);
        base.push(Pose::new(centre, DQuat::from_axis_angle(axis, rng.range(-3.0, 3.0))).expect("pose"));
    }
    let poses = (0..cycle)
        .map(|f| {
            let t = std::f64::consts::TAU * f as f64 / cycle as f64;
            base.iter()
                .enumerate()
                .map(|(b, p)| {
                    if b == 0 {
                        return *p;
                    }
                    let phase = 0.7 * b as f64;
                    let d = 0.002
                        * DVec3::new((t + phase).sin(), (t + 2.0 * phase).cos(), (t + 3.0 * phase).sin());
                    let r = DQuat::from_rotation_z(0.02 * (t + phase).sin());
                    Pose::new(p.translation + d, (r * p.rotation).normalize()).expect("pose")
                })
                .collect()
        })
        .collect();
    (w, poses)
}

fn pipeline(c: &mut Criterion) {
    let mut g = c.benchmark_group("pipeline");
    g.sample_size(20);
    let budget = CollisionOptions { max_collision_pairs: 5_000, ..CollisionOptions::default() };
    let layouts = [("initial", 0.19, 0.19, 0.12), ("packed", 0.1, 0.09, 0.06)];
    for (name, dx, dz, z0) in layouts {
        for (label, options) in [
            ("sap", budget),
            ("tree", CollisionOptions { broad_phase: BroadPhaseKind::DynamicTree, ..budget }),
            ("sap_threads2", CollisionOptions { threads: 2, ..budget }),
        ] {
            let (mut w, poses) = pile(dx, dz, z0, options, 16);
            let mut f = 0;
            for p in &poses {
                w.step(p).expect("pile step");
            }
            let stats = w.stats();
            eprintln!(
                "pipeline/{name}/{label}: {} broad pairs, {} candidates, {} colliding pairs, {} contacts",
                stats.broad_phase_pairs, stats.candidate_pairs, stats.colliding_pairs, stats.contacts
            );
            g.bench_function(BenchmarkId::new(name, label), |b| {
                b.iter(|| {
                    let n = w.step(&poses[f % poses.len()]).expect("pile step").len();
                    f += 1;
                    black_box(n)
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, broad_phase, pipeline);
criterion_main!(benches);
