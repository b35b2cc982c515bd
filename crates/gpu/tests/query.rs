//! Batched GPU distance queries against the f64 CPU path (`signorini_collision::query::distance`), on random poses of
//! every ordered pair of sphere, capsule and box, separated, touching and penetrating, in a scene of about 1 m; and
//! the error paths. Witness points are checked against exact signed-distance functions written here.

use std::collections::BTreeMap;

use glam::{DQuat, DVec3};
use signorini_collision::query::{CollisionRequest, DistanceRequest, DistanceResult, collide, distance};
use signorini_geometry::{Capsule, Cuboid, Cylinder, Pose, Shape, Sphere};
use signorini_gpu::{GpuContext, GpuError, GpuQueries, GpuShape, Precision, QueryPair};

/// SplitMix64: a seeded, dependency-free generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn vec(&mut self, lo: f64, hi: f64) -> DVec3 {
        DVec3::new(self.uniform(lo, hi), self.uniform(lo, hi), self.uniform(lo, hi))
    }

    /// Uniform on the unit sphere (rejection from the cube).
    fn direction(&mut self) -> DVec3 {
        loop {
            let v = self.vec(-1.0, 1.0);
            let l2 = v.length_squared();
            if l2 > 1e-4 && l2 <= 1.0 {
                return v / l2.sqrt();
            }
        }
    }

    /// Uniform on the rotations (rejection from the 4-cube onto the unit 3-sphere).
    fn rotation(&mut self) -> DQuat {
        loop {
            let q = DQuat::from_xyzw(
                self.uniform(-1.0, 1.0),
                self.uniform(-1.0, 1.0),
                self.uniform(-1.0, 1.0),
                self.uniform(-1.0, 1.0),
            );
            let l2 = q.length_squared();
            if l2 > 1e-4 && l2 <= 1.0 {
                return q / l2.sqrt();
            }
        }
    }
}

const KINDS: [&str; 3] = ["sphere", "capsule", "box"];

fn random_shape(rng: &mut Rng, kind: &str) -> Shape {
    match kind {
        "sphere" => Sphere::new(rng.uniform(0.05, 0.5)).unwrap().into(),
        "capsule" => Capsule::new(rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.5)).unwrap().into(),
        _ => Cuboid::new(rng.vec(0.05, 0.5)).unwrap().into(),
    }
}

/// Radius of a ball around the origin holding the shape.
fn bounding_radius(shape: &Shape) -> f64 {
    match shape {
        Shape::Sphere(s) => s.radius(),
        Shape::Capsule(c) => c.radius() + c.half_length(),
        Shape::Box(b) => b.half_extents().length(),
        _ => unreachable!(),
    }
}

/// Radius by which the shape inflates its core (point, segment, box).
fn core_radius(shape: &Shape) -> f64 {
    match shape {
        Shape::Sphere(s) => s.radius(),
        Shape::Capsule(c) => c.radius(),
        _ => 0.0,
    }
}

/// Exact signed distance from a world point to the shape's surface (negative inside).
fn sdf(shape: &Shape, pose: &Pose, p: DVec3) -> f64 {
    let q = pose.inverse_transform_point(p);
    match shape {
        Shape::Sphere(s) => q.length() - s.radius(),
        Shape::Capsule(c) => {
            let z = q.z.clamp(-c.half_length(), c.half_length());
            (q - DVec3::new(0.0, 0.0, z)).length() - c.radius()
        }
        Shape::Box(b) => {
            let d = q.abs() - b.half_extents();
            d.max(DVec3::ZERO).length() + d.max_element().min(0.0)
        }
        _ => unreachable!(),
    }
}

/// How far `n` is from a direction of extreme separation: `h_A(n) + h_B(−n) + d ≥ 0`, zero exactly when moving B
/// by `−d n` makes the shapes touch (the signed distance is `max_n −(h_A(n) + h_B(−n))` over unit `n`).
fn support_gap(case: &Case, n: DVec3) -> f64 {
    let sa = case.a.world_support(&case.pair.pose_a, n).unwrap();
    let sb = case.b.world_support(&case.pair.pose_b, -n).unwrap();
    n.dot(sa) - n.dot(sb) + case.cpu.distance
}

struct Case {
    pair: QueryPair,
    a: Shape,
    b: Shape,
    cpu: DistanceResult,
    combo: String,
}

fn cpu_distance(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose) -> DistanceResult {
    distance(a, pose_a, b, pose_b, &DistanceRequest::default()).unwrap()
}

/// `per_combo` random pairs of each ordered kind pair: B's centre at `s` times the sum of the bounding radii from
/// A's, `s` uniform in [0, 1.3); every third pair is then moved along the CPU normal to touch within ±1e-4 m.
fn cases(seed: u64, per_combo: usize) -> Vec<Case> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for ka in KINDS {
        for kb in KINDS {
            for i in 0..per_combo {
                let a = random_shape(&mut rng, ka);
                let b = random_shape(&mut rng, kb);
                let pose_a = Pose::new(rng.vec(-1.0, 1.0), rng.rotation()).unwrap();
                let reach = rng.uniform(0.0, 1.3) * (bounding_radius(&a) + bounding_radius(&b));
                let mut pose_b =
                    Pose::new(pose_a.translation + reach * rng.direction(), rng.rotation()).unwrap();
                let mut cpu = cpu_distance(&a, &pose_a, &b, &pose_b);
                if i % 3 == 0 {
                    let gap = rng.uniform(-1e-4, 1e-4);
                    pose_b.translation -= (cpu.distance - gap) * cpu.normal;
                    cpu = cpu_distance(&a, &pose_a, &b, &pose_b);
                }
                let pair = QueryPair::new(&a, pose_a, &b, pose_b).unwrap();
                out.push(Case { pair, a, b, cpu, combo: format!("{ka}-{kb}") });
            }
        }
    }
    out
}

/// Largest errors of one group of results.
#[derive(Default, Debug)]
struct Errors {
    pairs: usize,
    /// |d_gpu − d_cpu|.
    distance: f64,
    /// ‖n_gpu − n_cpu‖ where the normal is well conditioned (cores at least `normal_from` apart), and how many.
    normal: f64,
    normals: usize,
    /// ‖n_gpu − n_cpu‖ for cores apart by less than `normal_from`: the normal of nearly touching vertex or edge
    /// features moves by about `ε · scale / distance` under the rounding of the poses alone (reported, not checked).
    normal_near: f64,
    /// Support gap of the GPU normal (see [`support_gap`]) where the normal is well conditioned: cores at least
    /// `normal_from` apart, or overlapping (then the normal is a face normal of their Minkowski difference, which
    /// ties may make differ from the CPU's; this checks it is a normal of least penetration).
    gap: f64,
    /// |sdf_A(point_a)|, |sdf_B(point_b)|.
    surface: f64,
    /// ‖point_b − point_a − d n‖ and |‖n‖ − 1|.
    relation: f64,
}

fn category(d: f64) -> &'static str {
    if d > 1e-3 {
        "separated"
    } else if d >= -1e-3 {
        "touching"
    } else {
        "penetrating"
    }
}

/// Runs every case at `precision` and returns the largest errors per (kind pair, category); `None` without an
/// adapter (or without f64 support when asked for f64).
fn measure(precision: Precision, normal_from: f64) -> Option<BTreeMap<(String, &'static str), Errors>> {
    let ctx = GpuContext::for_tests()?;
    if precision == Precision::F64 && !ctx.supports_f64() {
        eprintln!("skipping f64: {} has no SHADER_F64", ctx.description());
        return None;
    }
    let queries = GpuQueries::new(ctx, precision).unwrap();
    let cases = cases(7, 1000);
    let pairs: Vec<QueryPair> = cases.iter().map(|c| c.pair).collect();
    let gpu = queries.distance(&pairs).unwrap();
    let mut table: BTreeMap<(String, &'static str), Errors> = BTreeMap::new();
    for (case, g) in cases.iter().zip(&gpu) {
        let e = table.entry((case.combo.clone(), category(case.cpu.distance))).or_default();
        e.pairs += 1;
        e.distance = e.distance.max((g.distance - case.cpu.distance).abs());
        let core = case.cpu.distance + core_radius(&case.a) + core_radius(&case.b);
        if core >= normal_from {
            e.normals += 1;
            e.normal = e.normal.max((g.normal - case.cpu.normal).length());
        }
        if core <= 0.0 || core >= normal_from {
            e.gap = e.gap.max(support_gap(case, g.normal).abs());
        } else {
            e.normal_near = e.normal_near.max((g.normal - case.cpu.normal).length());
        }
        e.surface = e
            .surface
            .max(sdf(&case.a, &case.pair.pose_a, g.point_a).abs())
            .max(sdf(&case.b, &case.pair.pose_b, g.point_b).abs());
        e.relation = e
            .relation
            .max((g.point_b - g.point_a - g.distance * g.normal).length())
            .max((g.normal.length() - 1.0).abs());
    }
    println!(
        "{precision:?}: pair, category, n, max |Δd|, max ‖Δn‖ (how many), max ‖Δn‖ nearly touching, max support gap, \
         max |sdf| of the witnesses, max relation error"
    );
    for ((combo, cat), e) in &table {
        println!(
            "  {combo:16} {cat:12} {:5} {:9.2e} {:9.2e} ({:4}) {:9.2e} {:9.2e} {:9.2e} {:9.2e}",
            e.pairs, e.distance, e.normal, e.normals, e.normal_near, e.gap, e.surface, e.relation
        );
    }
    Some(table)
}

fn check(table: &BTreeMap<(String, &'static str), Errors>, tol_distance: f64, tol_normal: f64) {
    for ((combo, cat), e) in table {
        let at = format!("{combo} {cat}: {e:?}");
        assert!(e.distance <= tol_distance, "distance {at}");
        assert!(e.normal <= tol_normal, "normal {at}");
        assert!(e.gap <= tol_distance, "support gap {at}");
        assert!(e.surface <= tol_distance, "witness off the surface {at}");
        assert!(e.relation <= tol_distance, "point_b − point_a ≠ d n {at}");
    }
}

#[test]
fn f32_matches_the_cpu_path() {
    if let Some(table) = measure(Precision::F32, 1e-2) {
        check(&table, 1e-5, 1e-4);
    }
}

#[test]
fn f64_matches_the_cpu_path() {
    if let Some(table) = measure(Precision::F64, 1e-6) {
        check(&table, 1e-9, 1e-9);
    }
}

/// Closed-form cases: coincident spheres (a deterministic axis, depth r_a + r_b), a sphere centre inside a box
/// (nearest face), capsules whose axes cross 0.01 m apart (normal along the cross product, towards B) and exactly.
#[test]
fn degenerate_cores() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let queries = GpuQueries::new(ctx, Precision::F32).unwrap();
    let at = |t: DVec3| Pose::from_translation(t);
    let pairs = [
        QueryPair {
            a: GpuShape::Sphere { radius: 0.3 },
            pose_a: at(DVec3::ZERO),
            b: GpuShape::Sphere { radius: 0.2 },
            pose_b: at(DVec3::ZERO),
        },
        QueryPair {
            a: GpuShape::Sphere { radius: 0.1 },
            pose_a: at(DVec3::new(0.05, 0.0, 0.35)),
            b: GpuShape::Box { half_extents: DVec3::new(0.5, 0.5, 0.4) },
            pose_b: at(DVec3::ZERO),
        },
        QueryPair {
            a: GpuShape::Capsule { radius: 0.1, half_length: 0.5 },
            pose_a: Pose::from_rotation(DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2)),
            b: GpuShape::Capsule { radius: 0.2, half_length: 0.5 },
            pose_b: Pose::new(
                DVec3::new(0.0, 0.0, 0.01),
                DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
            )
            .unwrap(),
        },
    ];
    let mut crossing = pairs[2];
    crossing.pose_b.translation = DVec3::ZERO;
    let r = queries.distance(&[pairs[0], pairs[1], pairs[2], crossing]).unwrap();
    assert!((r[0].distance + 0.5).abs() < 1e-6, "{:?}", r[0]);
    assert!(
        (r[1].distance + 0.15).abs() < 1e-6 && (r[1].normal - DVec3::NEG_Z).length() < 1e-6,
        "{:?}",
        r[1]
    );
    assert!((r[2].distance + 0.29).abs() < 1e-6 && (r[2].normal - DVec3::Z).length() < 1e-6, "{:?}", r[2]);
    assert!((r[3].distance + 0.3).abs() < 1e-6 && (r[3].normal.z.abs() - 1.0).abs() < 1e-6, "{:?}", r[3]);
    for g in &r {
        assert!((g.point_b - g.point_a - g.distance * g.normal).length() < 1e-6, "{g:?}");
        assert!((g.normal.length() - 1.0).abs() < 1e-6, "{g:?}");
    }
}

/// Splitting a batch into many dispatches gives the same answers as one dispatch, and `collide` agrees with the CPU
/// path's boolean collision.
#[test]
fn chunked_batches_and_collide() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let whole = GpuQueries::new(ctx.clone(), Precision::F32).unwrap();
    let chunked = GpuQueries::new(ctx, Precision::F32).unwrap().with_max_batch(97).unwrap();
    assert_eq!(chunked.max_batch(), 97);
    let cases = cases(11, 40);
    let pairs: Vec<QueryPair> = cases.iter().map(|c| c.pair).collect();
    assert_eq!(whole.distance(&pairs).unwrap(), chunked.distance(&pairs).unwrap());
    let margin = 0.05;
    let hits = chunked.collide(&pairs, margin).unwrap();
    let request = CollisionRequest { security_margin: margin, max_contacts: 0, ..Default::default() };
    for (case, hit) in cases.iter().zip(&hits) {
        let cpu = collide(&case.a, &case.pair.pose_a, &case.b, &case.pair.pose_b, &request).unwrap();
        if (case.cpu.distance - margin).abs() > 1e-5 {
            assert_eq!(hit.colliding, cpu.colliding, "{} at distance {}", case.combo, case.cpu.distance);
        }
    }
    assert!(whole.distance(&[]).unwrap().is_empty());
}

/// A million pairs in one call (several dispatches where the adapter's limits ask for it).
#[test]
fn a_million_pairs() {
    let Some(ctx) = GpuContext::for_tests() else { return };
    let queries = GpuQueries::new(ctx, Precision::F32).unwrap();
    let n = 1_000_000;
    let pairs: Vec<QueryPair> = (0..n)
        .map(|i| QueryPair {
            a: GpuShape::Sphere { radius: 0.5 },
            pose_a: Pose::IDENTITY,
            b: GpuShape::Box { half_extents: DVec3::splat(0.25) },
            pose_b: Pose::from_translation(DVec3::new(0.0, 0.0, 0.5 + 1e-6 * i as f64)),
        })
        .collect();
    let r = queries.distance(&pairs).unwrap();
    assert_eq!(r.len(), n);
    for (i, g) in r.iter().enumerate().step_by(997) {
        assert!((g.distance - (1e-6 * i as f64 - 0.25)).abs() < 1e-5, "{i}: {g:?}");
    }
}

#[test]
fn error_paths() {
    let cylinder: Shape = Cylinder::new(0.1, 0.2).unwrap().into();
    let sphere: Shape = Sphere::new(0.1).unwrap().into();
    match GpuShape::try_from(&cylinder) {
        Err(GpuError::Unsupported { what }) => assert!(what.contains("cylinder"), "{what}"),
        other => panic!("expected Unsupported, got {other:?}"),
    }
    assert!(matches!(
        QueryPair::new(&sphere, Pose::IDENTITY, &cylinder, Pose::IDENTITY),
        Err(GpuError::Unsupported { .. })
    ));
    let Some(ctx) = GpuContext::for_tests() else { return };
    let queries = GpuQueries::new(ctx.clone(), Precision::F32).unwrap();
    let good = QueryPair::new(&sphere, Pose::IDENTITY, &sphere, Pose::from_translation(DVec3::X)).unwrap();
    let mut bad_pose = good;
    bad_pose.pose_b.translation.y = f64::NAN;
    let mut bad_rotation = good;
    bad_rotation.pose_a.rotation = DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0);
    let mut bad_size = good;
    bad_size.a = GpuShape::Capsule { radius: -0.1, half_length: 0.2 };
    for (pair, needle) in
        [(bad_pose, "pair 1, pose of B"), (bad_rotation, "pair 1, pose of A"), (bad_size, "capsule radius")]
    {
        match queries.distance(&[good, pair]) {
            Err(GpuError::Invalid(msg)) => assert!(msg.contains(needle), "{msg}"),
            other => panic!("expected Invalid ({needle}), got {other:?}"),
        }
    }
    assert!(matches!(queries.collide(&[good], f64::NAN), Err(GpuError::Invalid(_))));
    assert!(matches!(
        GpuQueries::new(ctx, Precision::F32).unwrap().with_max_batch(0),
        Err(GpuError::Invalid(_))
    ));
}
