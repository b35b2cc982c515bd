//! Capsule.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::error::{Result, positive};
use crate::support::{SupportMap, normalize_robust, sign_nonneg};

/// The set of points within `radius` of the segment from `(0, 0, −half_length)` to `(0, 0, +half_length)`.
///
/// MJCF `size="r h"` maps to `radius = r`, `half_length = h`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Capsule {
    radius: f64,
    half_length: f64,
}

impl Capsule {
    /// A capsule with `radius > 0` and cylindrical `half_length > 0` along local z (metres).
    pub fn new(radius: f64, half_length: f64) -> Result<Self> {
        Ok(Self {
            radius: positive("capsule", "radius", radius)?,
            half_length: positive("capsule", "half_length", half_length)?,
        })
    }

    /// Radius in metres.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// Half-length of the core segment in metres.
    pub fn half_length(&self) -> f64 {
        self.half_length
    }

    /// The core segment's end points `(0, 0, ∓half_length)`.
    pub fn segment(&self) -> [DVec3; 2] {
        [DVec3::new(0.0, 0.0, -self.half_length), DVec3::new(0.0, 0.0, self.half_length)]
    }
}

impl SupportMap for Capsule {
    /// The end point `(0, 0, sign(d_z) h)` (`+` on a tie) plus `r d/‖d‖` (`+z` for `d = 0`).
    #[inline]
    fn local_support(&self, dir: DVec3) -> DVec3 {
        let end = DVec3::new(0.0, 0.0, sign_nonneg(dir.z) * self.half_length);
        let round = normalize_robust(dir).unwrap_or(DVec3::Z) * self.radius;
        end + round
    }
}
