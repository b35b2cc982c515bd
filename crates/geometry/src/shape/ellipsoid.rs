//! Ellipsoid.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::error::{Result, positive};
use crate::support::{SupportMap, normalize_robust};

/// The solid `(x/a)² + (y/b)² + (z/c)² ≤ 1` with semi-axes `(a, b, c)` along the local axes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ellipsoid {
    semi_axes: DVec3,
}

impl Ellipsoid {
    /// An ellipsoid with semi-axes `> 0` (metres).
    pub fn new(semi_axes: DVec3) -> Result<Self> {
        positive("ellipsoid", "semi_axes.x", semi_axes.x)?;
        positive("ellipsoid", "semi_axes.y", semi_axes.y)?;
        positive("ellipsoid", "semi_axes.z", semi_axes.z)?;
        Ok(Self { semi_axes })
    }

    /// Semi-axes in metres.
    pub fn semi_axes(&self) -> DVec3 {
        self.semi_axes
    }
}

impl SupportMap for Ellipsoid {
    /// `s(d) = diag(a², b², c²) d / ‖diag(a, b, c) d‖`; for `d = 0` the tie rule picks `(0, 0, c)`.
    #[inline]
    fn local_support(&self, dir: DVec3) -> DVec3 {
        let e = self.semi_axes;
        match normalize_robust(e * dir) {
            Some(u) => e * u,
            None => DVec3::new(0.0, 0.0, e.z),
        }
    }
}
