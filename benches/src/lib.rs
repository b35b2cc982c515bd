//! Shared fixtures for the criterion benches in `benches/benches/`: deterministic random directions and point clouds,
//! so that every library in a side-by-side group sees the same inputs.

use glam::DVec3;

/// A small deterministic generator (SplitMix64), so bench inputs are identical across runs and libraries.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform direction on the unit sphere.
    pub fn direction(&mut self) -> DVec3 {
        let z = 2.0 * self.unit() - 1.0;
        let phi = std::f64::consts::TAU * self.unit();
        let r = (1.0 - z * z).max(0.0).sqrt();
        DVec3::new(r * phi.cos(), r * phi.sin(), z)
    }
}

/// `n` random unit directions.
pub fn directions(n: usize, seed: u64) -> Vec<DVec3> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.direction()).collect()
}

/// `n` random points on an ellipsoid with semi-axes `(1, 0.7, 0.5)`: all of them are hull vertices.
pub fn ellipsoid_cloud(n: usize, seed: u64) -> Vec<DVec3> {
    directions(n, seed).into_iter().map(|d| d * DVec3::new(1.0, 0.7, 0.5)).collect()
}

/// The Coal reference datasets (`shared/testdata/coal/<kind>.json`, see the README there), relative to this crate.
pub const COAL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/testdata/coal/");

/// The text of the Coal reference dataset `kind` (e.g. `"box_box"`); panics with the path when it cannot be read.
pub fn coal_json(kind: &str) -> String {
    let path = format!("{COAL_DIR}{kind}.json");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read the Coal dataset {path}: {e}"))
}
