//! Sphere (ball).

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::error::{Result, positive};
use crate::support::{SupportMap, normalize_robust};

/// A solid ball of radius `r` centred at the local origin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sphere {
    radius: f64,
}

impl Sphere {
    /// A ball of radius `radius > 0` (metres).
    pub fn new(radius: f64) -> Result<Self> {
        Ok(Self { radius: positive("sphere", "radius", radius)? })
    }

    /// Radius in metres.
    pub fn radius(&self) -> f64 {
        self.radius
    }
}

impl SupportMap for Sphere {
    /// `s(d) = r d/‖d‖`; for `d = 0` the tie rule picks `(0, 0, r)`.
    #[inline]
    fn local_support(&self, dir: DVec3) -> DVec3 {
        match normalize_robust(dir) {
            Some(u) => u * self.radius,
            None => DVec3::new(0.0, 0.0, self.radius),
        }
    }
}
