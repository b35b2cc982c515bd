//! The unit tests' random numbers: a seeded xorshift64 generator (the same sequence on every platform) with the
//! draws the tests use.

use glam::{DQuat, DVec3};
use signorini_geometry::Pose;

/// xorshift64 from a non-zero seed.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in the cube `[−s, s]³`.
    pub(crate) fn vec(&mut self, s: f64) -> DVec3 {
        DVec3::new(self.unit() - 0.5, self.unit() - 0.5, self.unit() - 0.5) * 2.0 * s
    }

    /// A rotation (a normalised quaternion of uniform components).
    pub(crate) fn quat(&mut self) -> DQuat {
        DQuat::from_xyzw(self.unit() - 0.5, self.unit() - 0.5, self.unit() - 0.5, self.unit() - 0.5)
            .normalize()
    }

    /// A pose with its translation in `[−s, s]³`.
    pub(crate) fn pose(&mut self, s: f64) -> Pose {
        let t = self.vec(s);
        Pose::new(t, self.quat()).expect("a normalised quaternion and a finite translation")
    }
}
