//! Helpers shared by the collision crate's integration tests.

#![allow(dead_code)]

use glam::{DQuat, DVec3};

/// A small deterministic generator (xorshift64) for reproducible random worlds and moves.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in `[0, 1)`.
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    /// Uniform integer in `[0, n)`.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n - 1)
    }

    /// A random rotation (random axis, angle in `[−3, 3)`).
    pub fn rotation(&mut self) -> DQuat {
        let axis = DVec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0));
        DQuat::from_axis_angle(axis.normalize_or(DVec3::Z), self.range(-3.0, 3.0))
    }
}
