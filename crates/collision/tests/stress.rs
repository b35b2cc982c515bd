//! Long randomized runs: at least 1e6 random pairs per algorithm, with zero panics and no NaN outputs.
//! Not part of the default test run: `cargo xtask stress` (release mode, `--ignored`). Set `STRESS_TRACE=1` (with
//! `--nocapture`) to print each pair before it runs, which pins down a pair that hangs.

use glam::{DQuat, DVec3};
use signorini_collision::narrow::minkowski::{MinkowskiPair, Posed};
use signorini_collision::narrow::mpr::{MprSettings, MprStart, mpr};
use signorini_collision::{
    CollisionRequest, ContactRequest, ConvexAlgorithm, DistanceRequest, Manifold, MujocoDispatcher,
    PairDispatcher, QueryWorkspace, collide_with, contacts_into, distance_with,
};
use signorini_geometry::{Capsule, ConvexMesh, Cuboid, Cylinder, Ellipsoid, Plane, Pose, Shape, Sphere};

const PAIRS: usize = 1_000_000;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
    fn vec(&mut self, s: f64) -> DVec3 {
        DVec3::new(self.range(-s, s), self.range(-s, s), self.range(-s, s))
    }
    /// A pose; one in eight is axis-aligned with grid translations (touching and coplanar cases), one in sixteen
    /// coincides with the identity.
    fn pose(&mut self, spread: f64) -> Pose {
        match (self.next() * 16.0) as u32 {
            0 => Pose::IDENTITY,
            1 | 2 => Pose::from_translation((self.vec(spread) * 4.0).round() / 4.0),
            _ => {
                let axis = self.vec(1.0).try_normalize().unwrap_or(DVec3::Z);
                Pose::new(self.vec(spread), DQuat::from_axis_angle(axis, self.range(-3.2, 3.2))).unwrap()
            }
        }
    }
}

fn shape(rng: &mut Rng, kind: usize, hulls: &[Shape]) -> Shape {
    let scale = [1e-3, 1.0, 1.0, 1.0, 1e3][(rng.next() * 5.0) as usize];
    let len = |rng: &mut Rng| rng.range(0.05, 1.0) * scale;
    match kind {
        0 => Sphere::new(len(rng)).unwrap().into(),
        1 => Capsule::new(len(rng), len(rng)).unwrap().into(),
        2 => Cylinder::new(len(rng), len(rng)).unwrap().into(),
        3 => Cuboid::new(DVec3::new(len(rng), len(rng), len(rng))).unwrap().into(),
        4 => Ellipsoid::new(DVec3::new(len(rng), len(rng), len(rng))).unwrap().into(),
        5 => hulls[(rng.next() * hulls.len() as f64) as usize].clone(),
        _ => Plane::new().into(),
    }
}

fn hulls(rng: &mut Rng) -> Vec<Shape> {
    (0..16)
        .map(|k| {
            let n = 8 + 6 * k;
            let pts: Vec<DVec3> = (0..n).map(|_| rng.vec(0.6)).collect();
            ConvexMesh::from_points(&pts).unwrap().into()
        })
        .collect()
}

fn finite(v: DVec3) -> bool {
    v.is_finite()
}

/// Runs `PAIRS` random pairs whose kinds are drawn from `kinds` through distance, boolean collide and contacts.
fn run(kinds_a: &[usize], kinds_b: &[usize], seed: u64) {
    let mut rng = Rng(seed);
    let hulls = hulls(&mut rng);
    let mut ws = QueryWorkspace::default();
    let mut manifold = Manifold::new();
    let boolean = CollisionRequest { max_contacts: 0, ..Default::default() };
    for i in 0..PAIRS {
        let ka = kinds_a[i % kinds_a.len()];
        let kb = kinds_b[(i / kinds_a.len()) % kinds_b.len()];
        let (a, b) = (shape(&mut rng, ka, &hulls), shape(&mut rng, kb, &hulls));
        let spread = a.local_aabb().half_extents().length().clamp(1e-3, 1e3);
        let (pa, pb) = (rng.pose(spread), rng.pose(spread));
        if std::env::var("STRESS_TRACE").is_ok() {
            eprintln!("pair {i}: {a:?} at {pa:?}; {b:?} at {pb:?}");
        }
        let d = distance_with(&mut ws, &a, &pa, &b, &pb, &DistanceRequest::default()).unwrap();
        assert!(
            d.distance.is_finite() && finite(d.point_a) && finite(d.point_b) && finite(d.normal),
            "pair {i} ({a:?} at {pa:?}, {b:?} at {pb:?}): {d:?}"
        );
        collide_with(&mut ws, &a, &pa, &b, &pb, &boolean).unwrap();
        if i % 2 == 0 {
            contacts_into(&mut ws, &a, &pa, &b, &pb, &ContactRequest::default(), &mut manifold).unwrap();
        } else {
            let request = ContactRequest {
                convex_algorithm: ConvexAlgorithm::GjkEpa,
                ..MujocoDispatcher.default_request()
            };
            MujocoDispatcher.contacts_into(&mut ws, &a, &pa, &b, &pb, &request, &mut manifold).unwrap();
        }
        for c in &manifold.contacts {
            assert!(
                finite(c.position) && finite(c.normal) && c.penetration.is_finite() && c.penetration >= 0.0,
                "pair {i}: {c:?}"
            );
        }
    }
}

#[test]
#[ignore = "long: run with `cargo xtask stress`"]
fn stress_analytic_pairs() {
    // sphere, capsule, box against each other and planes: closed forms and SAT.
    run(&[0, 1, 3, 6], &[0, 1, 3], 1);
}

#[test]
#[ignore = "long: run with `cargo xtask stress`"]
fn stress_gjk_epa_pairs() {
    run(&[2, 4, 5], &[1, 2, 3, 4, 5], 2);
}

#[test]
#[ignore = "long: run with `cargo xtask stress`"]
fn stress_mpr() {
    let mut rng = Rng(3);
    let hulls = hulls(&mut rng);
    for i in 0..PAIRS {
        let (a, b) = (shape(&mut rng, 1 + i % 5, &hulls), shape(&mut rng, 1 + (i / 5) % 5, &hulls));
        let spread = a.local_aabb().half_extents().length().clamp(1e-3, 1e3);
        let (pa, pb) = (rng.pose(spread), rng.pose(spread));
        let out = with_pair(&a, &pa, &b, &pb);
        assert!(out.0.is_finite() && finite(out.1) && finite(out.2), "pair {i}: {out:?}");
    }
}

/// MPR on a pair of bounded convex shapes: `(depth, normal, position)`.
fn with_pair(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> (f64, DVec3, DVec3) {
    macro_rules! inner {
        ($sa:expr, $sb:expr) => {{
            let pair = MinkowskiPair { a: Posed::new($sa, pa), b: Posed::new($sb, pb), inflate: true };
            let o = mpr(&pair, &MprStart::new(&pair), &MprSettings::default());
            (o.depth, o.normal, o.position)
        }};
    }
    macro_rules! outer {
        ($sa:expr) => {
            match b {
                Shape::Sphere(s) => inner!($sa, s),
                Shape::Capsule(s) => inner!($sa, s),
                Shape::Cylinder(s) => inner!($sa, s),
                Shape::Box(s) => inner!($sa, s),
                Shape::Ellipsoid(s) => inner!($sa, s),
                Shape::ConvexMesh(s) => inner!($sa, &**s),
                _ => unreachable!("only bounded convex shapes are generated"),
            }
        };
    }
    match a {
        Shape::Sphere(s) => outer!(s),
        Shape::Capsule(s) => outer!(s),
        Shape::Cylinder(s) => outer!(s),
        Shape::Box(s) => outer!(s),
        Shape::Ellipsoid(s) => outer!(s),
        Shape::ConvexMesh(s) => outer!(&**s),
        _ => unreachable!("only bounded convex shapes are generated"),
    }
}
