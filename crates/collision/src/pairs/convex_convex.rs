//! General convex–convex signed distance: GJK on the core shapes, EPA on the cores when they intersect, then the
//! closed-form inflation by the core radii.
//!
//! With `A = K_A ⊕ ball(r_A)` and `B = K_B ⊕ ball(r_B)`, the support function of `A ⊖ B` is that of `K_A ⊖ K_B`
//! plus `r_A + r_B`. Hence the signed distance is the cores' signed distance minus `r_A + r_B`, reached along the
//! same normal, whether the cores are apart (GJK) or overlap (EPA). Spheres and capsules are thus exact wherever
//! their cores are, and polytopes terminate exactly. When a core is curved (cylinder, ellipsoid) and EPA stops short
//! of its tolerance, the depth is refined by descent on the support function ([`descend`]): EPA's depth is a lower
//! bound there, the descent's an upper bound that reaches the exact depth on smooth shapes.

use glam::DVec3;
use signorini_geometry::Pose;

use super::SignedDistance;
use crate::narrow::epa::{EpaSettings, EpaWorkspace, epa};
use crate::narrow::gjk::{GjkSettings, GjkStatus, gjk};
use crate::narrow::minkowski::{CoreShape, MinkowskiPair, Posed};
use crate::narrow::support_descent::descend;
use crate::query::Algorithm;

/// Outcome of the GJK stage alone, for callers that handle overlap themselves (e.g. box–box by SAT).
#[derive(Debug, Clone, Copy)]
pub enum CoreDistance {
    /// The cores are apart: the inflated signed distance (may still be negative if the radii overlap).
    Apart(SignedDistance),
    /// The cores overlap (or touch).
    Overlap,
}

/// GJK between the cores of two posed shapes; `Apart` carries the inflated result.
pub fn core_distance<A: CoreShape, B: CoreShape>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    settings: &GjkSettings,
    init: Option<DVec3>,
) -> (CoreDistance, u32) {
    let pair = MinkowskiPair { a: Posed::new(a, pose_a), b: Posed::new(b, pose_b), inflate: false };
    let out = gjk(&pair, init.unwrap_or(pair.a.center() - pair.b.center()), settings);
    match out.status {
        GjkStatus::Intersecting => (CoreDistance::Overlap, out.iterations),
        _ => {
            let n = (-out.v).normalize_or(DVec3::Z);
            let mut sd = SignedDistance::from_cores(
                out.point_a,
                out.point_b,
                n,
                out.distance,
                a.core_radius(),
                b.core_radius(),
            );
            sd.iterations = out.iterations;
            sd.algorithm = Algorithm::Gjk;
            (CoreDistance::Apart(sd), out.iterations)
        }
    }
}

/// The iterative stages' parameters for one query.
#[derive(Debug, Clone, Copy)]
pub struct IterativeSettings<'a> {
    /// GJK settings (possibly with a boolean early exit).
    pub gjk: &'a GjkSettings,
    /// EPA settings.
    pub epa: &'a EpaSettings,
    /// GJK's first search direction (a guess of `point_a − point_b`), `None` for the centre difference.
    pub init: Option<DVec3>,
}

/// Signed distance between two convex shapes by GJK and, on overlap of the cores, EPA.
pub fn convex_convex<A: CoreShape, B: CoreShape>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    settings: &IterativeSettings<'_>,
    ws: &mut EpaWorkspace,
) -> SignedDistance {
    let (gjk_settings, epa_settings, init) = (settings.gjk, settings.epa, settings.init);
    let pair = MinkowskiPair { a: Posed::new(a, pose_a), b: Posed::new(b, pose_b), inflate: false };
    let out = gjk(&pair, init.unwrap_or(pair.a.center() - pair.b.center()), gjk_settings);
    let (ra, rb) = (a.core_radius(), b.core_radius());
    if out.status != GjkStatus::Intersecting {
        let n = (-out.v).normalize_or(DVec3::Z);
        let mut sd = SignedDistance::from_cores(out.point_a, out.point_b, n, out.distance, ra, rb);
        sd.iterations = out.iterations;
        sd.algorithm = Algorithm::Gjk;
        return sd;
    }
    let mut pen = epa(&pair, &out.simplex, ws, epa_settings);
    if !pen.converged && (a.core_is_curved() || b.core_is_curved()) && pen.depth > 0.0 {
        let r = descend(&pair, pen.normal, epa_settings.max_iterations);
        // Witnesses re-centred on their midpoint, as EPA's: `point_a − point_b = depth · normal`.
        let mid = 0.5 * (r.support.a + r.support.b);
        pen.depth = r.depth;
        pen.normal = r.normal;
        pen.point_a = mid + 0.5 * r.depth * r.normal;
        pen.point_b = mid - 0.5 * r.depth * r.normal;
        pen.iterations += r.iterations;
    }
    let n = pen.normal;
    SignedDistance {
        distance: -pen.depth - ra - rb,
        point_a: pen.point_a + ra * n,
        point_b: pen.point_b - rb * n,
        normal: n,
        iterations: out.iterations + pen.iterations,
        algorithm: Algorithm::GjkEpa,
    }
}
