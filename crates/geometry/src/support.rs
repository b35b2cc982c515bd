//! Support mappings.
//!
//! For a convex set `S` and a direction `d`, the support point is `s_S(d) = argmax_{x ∈ S} d · x`: the point where a
//! plane with normal `d`, slid in from infinity, first touches `S` (spec §A.7, seed 000 "支撑函数"). GJK, EPA and MPR
//! see shapes only through this map; the support of a Minkowski difference is `s_{A⊖B}(d) = s_A(d) − s_B(−d)`.
//!
//! Conventions shared by every implementation:
//! - `d` need not be unit length; only its direction matters.
//! - Ties are resolved deterministically: a zero component of `d` counts as positive (`sign(0) = +`), and a mesh
//!   returns the lowest vertex index among equal maximisers.
//! - `d = 0` is allowed and returns the point chosen by those same tie rules.

use glam::DVec3;

use crate::pose::Pose;

/// A bounded convex shape that answers support queries in its local frame.
///
/// Implemented by every bounded convex shape. Used through generics (static dispatch) in the narrow phase, never as a
/// `dyn` object per pair.
pub trait SupportMap {
    /// The point of the shape, in its local frame, that maximises `dir · x`.
    fn local_support(&self, dir: DVec3) -> DVec3;

    /// The support point in the world frame for a world direction: `R s(Rᵀ d) + t`.
    #[inline]
    fn world_support(&self, pose: &Pose, dir: DVec3) -> DVec3 {
        pose.transform_point(self.local_support(pose.inverse_transform_vector(dir)))
    }

    /// The support value `h(d) = d · s(d)` in the local frame.
    #[inline]
    fn support_value(&self, dir: DVec3) -> f64 {
        dir.dot(self.local_support(dir))
    }
}

/// `+1.0` for `x ≥ 0` (including `+0.0` and `−0.0`), `−1.0` otherwise: the tie rule of every closed-form support.
#[inline]
pub fn sign_nonneg(x: f64) -> f64 {
    if x >= 0.0 { 1.0 } else { -1.0 }
}

/// Index of the point maximising `dir · p`; the lowest index wins ties. `None` for an empty slice.
///
/// The O(n) reference that the faster mesh supports (hill climbing, support field) are tested against, and the
/// exhaustive scan of MuJoCo-compatible mode.
pub fn brute_force_support_index(points: &[DVec3], dir: DVec3) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, p) in points.iter().enumerate() {
        let v = dir.dot(*p);
        match best {
            Some((_, b)) if v <= b => {}
            _ => best = Some((i, v)),
        }
    }
    best.map(|(i, _)| i)
}

/// `d/‖d‖`, computed without overflow or underflow for any finite `d` (the vector is first scaled by its largest
/// component), or `None` for `d = 0` and non-finite `d`.
#[inline]
pub fn normalize_robust(d: DVec3) -> Option<DVec3> {
    let n2 = d.length_squared();
    // Fast path: the squared length neither underflowed nor overflowed.
    if n2 > 1e-280 && n2 < 1e280 {
        return Some(d * (1.0 / n2.sqrt()));
    }
    let m = d.abs().max_element();
    if m.is_nan() || m <= 0.0 || m.is_infinite() {
        return None;
    }
    let s = d / m;
    Some(s / s.length())
}
