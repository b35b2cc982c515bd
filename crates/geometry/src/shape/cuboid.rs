//! Box (cuboid).

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::error::{Result, positive};
use crate::support::{SupportMap, sign_nonneg};

/// A solid box `|x| ≤ h_x, |y| ≤ h_y, |z| ≤ h_z` centred at the local origin. MJCF's box `size` is the half extents.
///
/// Named `Cuboid` because `Box` is Rust's heap pointer; [`ShapeKind::Box`](crate::ShapeKind::Box) is its kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cuboid {
    half_extents: DVec3,
}

impl Cuboid {
    /// A box with half extents `> 0` along each local axis (metres).
    pub fn new(half_extents: DVec3) -> Result<Self> {
        positive("box", "half_extents.x", half_extents.x)?;
        positive("box", "half_extents.y", half_extents.y)?;
        positive("box", "half_extents.z", half_extents.z)?;
        Ok(Self { half_extents })
    }

    /// Half extents in metres.
    pub fn half_extents(&self) -> DVec3 {
        self.half_extents
    }

    /// The 8 corners, corner `k` having sign `+` on axis `a` when bit `a` of `k` is set (corner 0 = min, 7 = max).
    pub fn corners(&self) -> [DVec3; 8] {
        let h = self.half_extents;
        std::array::from_fn(|k| {
            DVec3::new(
                if k & 1 != 0 { h.x } else { -h.x },
                if k & 2 != 0 { h.y } else { -h.y },
                if k & 4 != 0 { h.z } else { -h.z },
            )
        })
    }

    /// Number of corners that tie as support points along `dir`: `2^(number of zero components)` (spec §A.12).
    pub fn support_tie_count(dir: DVec3) -> u32 {
        1 << dir.to_array().iter().filter(|c| **c == 0.0).count()
    }
}

impl SupportMap for Cuboid {
    /// The corner `(sign(d_x) h_x, sign(d_y) h_y, sign(d_z) h_z)` with `sign(0) = +`.
    #[inline]
    fn local_support(&self, dir: DVec3) -> DVec3 {
        let h = self.half_extents;
        DVec3::new(sign_nonneg(dir.x) * h.x, sign_nonneg(dir.y) * h.y, sign_nonneg(dir.z) * h.z)
    }
}
