//! GJK (Gilbert–Johnson–Keerthi) distance between two convex shapes.
//!
//! Frank–Wolfe on the Minkowski difference `D = A ⊖ B`: keep a simplex in `D` and its point `v` closest to the
//! origin; query `w = s_D(−v)`; stop when the duality gap `‖v‖² − v·w` (an upper bound on `‖v‖ (‖v‖ − dist)`) is
//! below `tolerance · ‖v‖²`, or when the simplex is a tetrahedron around the origin (the shapes intersect).
//! The closest point is found by signed volumes ([`super::simplex`]).
//!
//! Options, as in Coal: warm start from a cached direction; Nesterov acceleration (Montaut et al. 2022, "Collision
//! detection accelerated: an optimization perspective"): with `m = (k+1)/(k+2)`, `y = m v + (1 − m) w_prev` and the
//! search direction `d = m d̂_prev + (1 − m) ŷ` (normalised momentum); when the gap measured with the support along
//! `d` closes, or the momentum step makes no progress, the algorithm continues as plain GJK, which certifies
//! convergence; and an early exit once a separating plane proves the distance exceeds a margin (boolean queries).

use glam::DVec3;

use super::minkowski::{CoreShape, MinkowskiPair, SupportPoint};
use super::simplex::Simplex;

/// Relative decrease of `‖v‖²` below which a Nesterov step counts as stagnating (GJK then continues plain).
const NESTEROV_MIN_PROGRESS: f64 = 1e-3;

/// GJK settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GjkSettings {
    /// Relative duality-gap tolerance: stop when `‖v‖² − v·w ≤ tolerance · ‖v‖²`, i.e. the distance is known to a
    /// relative precision of `tolerance`. Default 1e-10.
    pub tolerance: f64,
    /// Iteration cap. Default 128 (Coal's).
    pub max_iterations: u32,
    /// Use Nesterov-accelerated directions. Default false.
    pub nesterov: bool,
    /// Stop as soon as a separating plane shows the distance is larger than this (boolean queries). Default `None`.
    pub early_exit_distance: Option<f64>,
}

impl Default for GjkSettings {
    fn default() -> Self {
        Self { tolerance: 1e-10, max_iterations: 128, nesterov: false, early_exit_distance: None }
    }
}

/// How GJK ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GjkStatus {
    /// Separated; `distance` is the converged distance.
    Separated,
    /// The shapes intersect or touch (`distance = 0`); the simplex encloses or touches the origin.
    Intersecting,
    /// A separating plane proved the distance exceeds `early_exit_distance`; `distance` is a lower bound.
    SeparatedEarly,
    /// The iteration cap was reached; the result is the best found.
    MaxIterations,
}

/// GJK output. Points are world-frame witnesses on the explored (core or inflated) shapes.
#[derive(Debug, Clone, Copy)]
pub struct GjkOutput {
    /// How it ended.
    pub status: GjkStatus,
    /// Distance between the explored shapes (0 when intersecting).
    pub distance: f64,
    /// Closest point of `A ⊖ B` to the origin (`point_a − point_b`).
    pub v: DVec3,
    /// Witness on A.
    pub point_a: DVec3,
    /// Witness on B.
    pub point_b: DVec3,
    /// Final simplex (input to EPA when intersecting).
    pub simplex: Simplex,
    /// Support queries made.
    pub iterations: u32,
}

/// Runs GJK on `pair` starting from the search direction `init` (any non-zero vector roughly along `a − b`; the
/// centre difference is used when it is zero).
pub fn gjk<A: CoreShape, B: CoreShape>(
    pair: &MinkowskiPair<'_, A, B>,
    init: DVec3,
    settings: &GjkSettings,
) -> GjkOutput {
    let mut v = init;
    if !(v.length_squared() > 0.0) || !v.is_finite() {
        v = pair.a.center() - pair.b.center();
    }
    if !(v.length_squared() > 0.0) {
        v = DVec3::X;
    }
    let first = pair.support(-v);
    let mut simplex = Simplex::point(first);
    v = first.w;
    let mut v2 = v.length_squared();
    let mut scale2 = v2.max(1e-300);
    let mut last_w = first.w;
    let mut dir_prev = v;
    let mut nesterov = settings.nesterov;
    let mut iterations = 1u32;
    let mut status = GjkStatus::MaxIterations;

    loop {
        // Touching: the origin is (numerically) on the simplex.
        if v2 <= 1e-30 * scale2 {
            status = GjkStatus::Intersecting;
            break;
        }
        if iterations >= settings.max_iterations {
            break;
        }
        let k = iterations as f64;
        let dir = if nesterov {
            // y = m v + (1 − m) w_prev, and the direction itself carries momentum: d = m d̂_prev + (1 − m) ŷ.
            let m = (k + 1.0) / (k + 2.0);
            let y = m * v + (1.0 - m) * last_w;
            let (Some(dp), Some(yn)) = (dir_prev.try_normalize(), y.try_normalize()) else {
                nesterov = false;
                continue;
            };
            m * dp + (1.0 - m) * yn
        } else {
            v
        };
        dir_prev = dir;
        let s = pair.support(-dir);
        iterations += 1;
        scale2 = scale2.max(s.w.length_squared());
        let vw = v.dot(s.w);
        if let Some(margin) = settings.early_exit_distance
            && vw > 0.0
            && vw * vw > margin * margin * v2
        {
            status = GjkStatus::SeparatedEarly;
            break;
        }
        let gap = v2 - vw;
        if gap <= settings.tolerance * v2 || simplex.contains(s.w, 1e-30 * scale2) {
            if nesterov {
                // The gap was measured with a support along y, not v: confirm with a plain iteration.
                nesterov = false;
                continue;
            }
            status = GjkStatus::Separated;
            break;
        }
        // The new simplex is only committed when it makes progress; otherwise `s` is popped again.
        simplex.push(s);
        last_w = s.w;
        let projection = simplex.project(true);
        if projection.0.len() == 4 {
            simplex.apply(&projection);
            v = DVec3::ZERO;
            status = GjkStatus::Intersecting;
            break;
        }
        let v_new = simplex.closest_of(&projection);
        let v2_new = v_new.length_squared();
        if v2_new >= v2 {
            simplex.pop();
            if nesterov {
                // Momentum overshot: drop it and continue from the previous simplex with plain GJK.
                nesterov = false;
                continue;
            }
            // No progress: the rounding floor is reached. Keep the simplex `v` came from, so that the witnesses,
            // the distance and the direction describe the same closest points.
            status = GjkStatus::Separated;
            break;
        }
        simplex.apply(&projection);
        if nesterov && v2_new > (1.0 - NESTEROV_MIN_PROGRESS) * v2 {
            // Momentum has stopped paying off near the optimum, where its lagging directions only creep.
            nesterov = false;
        }
        v = v_new;
        v2 = v2_new;
    }

    let (point_a, point_b) = simplex.witnesses();
    let distance = if status == GjkStatus::Intersecting { 0.0 } else { v2.sqrt() };
    GjkOutput { status, distance, v, point_a, point_b, simplex, iterations }
}

/// Returns the support point of the pair along `d` (re-exported for EPA's initial polytope).
pub(crate) fn support_along<A: CoreShape, B: CoreShape>(
    pair: &MinkowskiPair<'_, A, B>,
    d: DVec3,
) -> SupportPoint {
    pair.support(d)
}
