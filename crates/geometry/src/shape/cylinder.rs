//! Cylinder.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::error::{Result, positive};
use crate::support::{SupportMap, normalize_robust, sign_nonneg};

/// A solid circular cylinder of `radius` around local z, from `z = −half_length` to `z = +half_length`.
///
/// MJCF `size="r h"` maps to `radius = r`, `half_length = h`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cylinder {
    radius: f64,
    half_length: f64,
}

impl Cylinder {
    /// A cylinder with `radius > 0` and `half_length > 0` (metres).
    pub fn new(radius: f64, half_length: f64) -> Result<Self> {
        Ok(Self {
            radius: positive("cylinder", "radius", radius)?,
            half_length: positive("cylinder", "half_length", half_length)?,
        })
    }

    /// Radius in metres.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// Half-length along z in metres.
    pub fn half_length(&self) -> f64 {
        self.half_length
    }
}

impl SupportMap for Cylinder {
    /// The rim point of the cap on the side of `d_z`: `(r (d_x, d_y)/‖(d_x, d_y)‖, sign(d_z) h)`, `+` cap on a tie.
    /// When `d` is parallel to the axis the whole cap ties and the cap centre `(0, 0, ±h)` is returned.
    #[inline]
    fn local_support(&self, dir: DVec3) -> DVec3 {
        let z = sign_nonneg(dir.z) * self.half_length;
        match normalize_robust(DVec3::new(dir.x, dir.y, 0.0)) {
            Some(u) => DVec3::new(u.x * self.radius, u.y * self.radius, z),
            None => DVec3::new(0.0, 0.0, z),
        }
    }
}
