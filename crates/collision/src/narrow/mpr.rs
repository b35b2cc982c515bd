//! MPR (Minkowski Portal Refinement, XenoCollide): a boolean intersection test with a penetration estimate, ported
//! from the Genesis port of libccd (spec §A.7).
//!
//! MPR casts the ray from an interior point `v0` of `D = A ⊖ B` (where `w = s_A(d) − s_B(−d)`) towards the origin.
//! It finds a *portal*, a triangle `(v1, v2, v3)` of support points that the ray crosses (discovery), moves it
//! outwards until it either encloses the origin (contact) or proves that the origin is beyond `∂D` (refinement), and
//! then keeps refining along the portal normal `d` until the portal plane reaches `∂D` within the tolerance
//! (penetration). The portal normal `d` points out of `D`, so moving A by `−p d` separates the pair.
//!
//! **Output convention** (simulator, [`crate::contact`]): `normal` is the unit vector **from B to A** (`−d`),
//! `depth ≥ 0`, `position` the midpoint of the two witness points. The depth is the distance from the origin to the
//! converged portal plane ([`MprDepth::PortalPlane`], Genesis native) or portal triangle
//! ([`MprDepth::PortalTriangle`], MuJoCo-compatible). At convergence the portal plane is a supporting plane of `D`
//! within the tolerance, so both are upper bounds of the true depth up to the tolerance, exact when the ray from
//! `v0` to the origin meets `∂D` where the normal is parallel to the ray (sphere–sphere).
//!
//! Constants are absolute lengths in metres (as in Genesis and libccd), not relative ones. The routine allocates
//! nothing, never panics and returns finite values for finite input.

use glam::DVec3;
use signorini_geometry::support::normalize_robust;

use super::minkowski::{CoreShape, MinkowskiPair, Posed, SupportPoint};
use crate::contact::Contact;

/// `CCD_EPS` for f64 (Genesis; 1e-9 in f32): the zero threshold of every sign test.
pub const CCD_EPS: f64 = 1e-10;
/// `CCD_TOLERANCE`: the portal has reached `∂D` when the new support point is less than this beyond it.
pub const CCD_TOLERANCE: f64 = 1e-6;
/// `CCD_ITERATIONS`: the cap of the penetration loop (stops when the counter exceeds it).
pub const CCD_ITERATIONS: u32 = 50;
/// Portal replacements allowed during discovery before giving up (reported as no contact).
pub const DISCOVERY_TRIALS: u32 = 15;
/// Safety cap of the refinement loop. Genesis/libccd have none; it only guards against cycling on rounding noise.
pub const REFINE_SAFETY_CAP: u32 = 1000;
/// Genesis `gs.EPS` for f64, `max(1e-15, machine ε)`: the smallest lateral offset the warm start acts on.
const WARM_START_EPS: f64 = 1e-15;
/// The warm-start shift applies when `‖n_ws × δ̂‖` exceeds this (centres laterally offset from the cached normal).
const WARM_START_MISALIGNMENT: f64 = 0.01;
/// Largest fraction of the AABB lengths that the warm start moves each centre.
const WARM_START_MAX_RATIO: f64 = 0.5;

/// How the depth and normal are read off the converged portal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MprDepth {
    /// Genesis native: `p = d·v1` (distance from the origin to the portal plane), `n = −d`; contact position from
    /// the portal-face weights. The cached normal shifts the interior point (warm start).
    #[default]
    PortalPlane,
    /// MuJoCo-compatible: `p` = distance from the origin to the portal triangle (closest point `q`), `n = −q/‖q‖`;
    /// contact position from the barycentric coordinates of the origin in the tetrahedron `(v0, v1, v2, v3)`.
    /// The cached normal is ignored (as in Genesis's MuJoCo-compatibility mode).
    PortalTriangle,
}

/// MPR settings; the default is Genesis native mode in f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MprSettings {
    /// Zero threshold of the sign tests (m, or m² / m³ where the spec compares products). Default [`CCD_EPS`].
    pub eps: f64,
    /// Reach tolerance (m). Default [`CCD_TOLERANCE`].
    pub tolerance: f64,
    /// Penetration-loop cap. Default [`CCD_ITERATIONS`].
    pub max_iterations: u32,
    /// Depth mode. Default [`MprDepth::PortalPlane`].
    pub depth: MprDepth,
}

impl Default for MprSettings {
    fn default() -> Self {
        Self {
            eps: CCD_EPS,
            tolerance: CCD_TOLERANCE,
            max_iterations: CCD_ITERATIONS,
            depth: MprDepth::PortalPlane,
        }
    }
}

impl MprSettings {
    /// The MuJoCo-compatible settings: defaults with [`MprDepth::PortalTriangle`].
    pub fn mujoco_compatible() -> Self {
        Self { depth: MprDepth::PortalTriangle, ..Self::default() }
    }
}

/// How an MPR query ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MprStatus {
    /// Separated: a support point could not pass the origin, or the refined portal reached `∂D` short of it.
    NoContact,
    /// Discovery gave up after [`DISCOVERY_TRIALS`] replacements, or on a degenerate triangle (no contact).
    DiscoveryFailed,
    /// Refinement hit [`REFINE_SAFETY_CAP`] without a decision (no contact).
    RefineCap,
    /// The origin lies on `∂D` on the ray through `v0` (discovery result 1): contact with depth 0.
    Touch,
    /// The origin lies on the segment `v0 v1` (discovery result 2): contact with depth `‖v1‖`.
    Segment,
    /// The penetration loop met the reach tolerance.
    Converged,
    /// The penetration loop exceeded `max_iterations`; the last portal is used.
    IterationCap,
    /// The next portal would have been degenerate (no normal): in refinement, no contact; in the penetration loop,
    /// the current portal is used.
    DegeneratePortal,
}

/// MPR result in the simulator convention of [`crate::contact`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MprOutput {
    /// Whether the shapes intersect (or touch).
    pub hit: bool,
    /// Penetration depth ≥ 0 (0 without a hit).
    pub depth: f64,
    /// Unit normal from B to A (zero without a hit).
    pub normal: DVec3,
    /// Midpoint of the witness points on A and B (zero without a hit).
    pub position: DVec3,
    /// How the query ended.
    pub status: MprStatus,
    /// Support-map evaluations of `A ⊖ B`, all phases together.
    pub iterations: u32,
    /// The last portal `(v1, v2, v3)` with its witnesses on A and B (world, on the poses MPR ran on), when the
    /// penetration stage built one (not on the touch and segment paths of discovery, nor without a hit).
    pub portal: Option<[SupportPoint; 3]>,
}

impl MprOutput {
    fn miss(status: MprStatus, iterations: u32) -> Self {
        Self {
            hit: false,
            depth: 0.0,
            normal: DVec3::ZERO,
            position: DVec3::ZERO,
            status,
            iterations,
            portal: None,
        }
    }

    /// The contact, when there is one.
    pub fn contact(&self) -> Option<Contact> {
        self.hit.then_some(Contact { position: self.position, normal: self.normal, penetration: self.depth })
    }
}

/// Step 0 input: the interior points of A and B, and the warm-start data.
///
/// Without a cached normal (or in [`MprDepth::PortalTriangle`] mode) the interior points are `center_a`, `center_b`.
/// With a cached normal `n_ws` (any component above `eps`) they are the world centres of the local AABBs, shifted
/// towards each other across their lateral offset from `n_ws` (spec §A.7 step 0):
/// `δ = c_A − c_B`; if `‖n_ws × δ̂‖ > 0.01`: `o = (δ·n_ws) n_ws − δ`, `ô = o/‖o‖`,
/// `ℓ_X = size_X · |R_Xᵀ ô|`, `ρ = min(‖o‖/(ℓ_A + ℓ_B), ½)`, `c_A += ô ℓ_A ρ`, `c_B −= ô ℓ_B ρ`.
/// The rotations `R_X` are those of the pair's poses. Only the line of `n_ws` matters, not its sign or length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MprStart {
    /// World interior point of A without warm start (its centre).
    pub center_a: DVec3,
    /// World interior point of B without warm start.
    pub center_b: DVec3,
    /// World centre of A's local AABB.
    pub aabb_center_a: DVec3,
    /// World centre of B's local AABB.
    pub aabb_center_b: DVec3,
    /// Full extents of A's local AABB (local frame).
    pub aabb_size_a: DVec3,
    /// Full extents of B's local AABB (local frame).
    pub aabb_size_b: DVec3,
    /// Cached normal of the previous step (zero: none).
    pub normal_ws: DVec3,
}

impl MprStart {
    /// Start data from the pair alone: core centres and tight local AABBs (computed from six supports per shape),
    /// no cached normal.
    pub fn new<A: CoreShape, B: CoreShape>(pair: &MinkowskiPair<'_, A, B>) -> Self {
        let (ca, sa) = pair.a.shape.core_local_aabb();
        let (cb, sb) = pair.b.shape.core_local_aabb();
        Self {
            center_a: pair.a.center(),
            center_b: pair.b.center(),
            aabb_center_a: pair.a.rot * ca + pair.a.pos,
            aabb_center_b: pair.b.rot * cb + pair.b.pos,
            aabb_size_a: sa,
            aabb_size_b: sb,
            normal_ws: DVec3::ZERO,
        }
    }

    /// The same start with the cached normal `n` (zero clears it).
    pub fn with_cached_normal(self, n: DVec3) -> Self {
        Self { normal_ws: n, ..self }
    }

    /// Whether the warm start applies: native mode and a cached normal with a component above `eps`.
    pub fn uses_cache(&self, settings: &MprSettings) -> bool {
        settings.depth == MprDepth::PortalPlane && self.normal_ws.abs().max_element() > settings.eps
    }

    /// Step 0: the interior points `(c_A, c_B)` of A and B.
    pub fn interior_points<A: CoreShape, B: CoreShape>(
        &self,
        pair: &MinkowskiPair<'_, A, B>,
        settings: &MprSettings,
    ) -> (DVec3, DVec3) {
        if !self.uses_cache(settings) {
            return (self.center_a, self.center_b);
        }
        let (mut ca, mut cb) = (self.aabb_center_a, self.aabb_center_b);
        let (Some(n), Some(nd)) = (normalize_robust(self.normal_ws), normalize_robust(ca - cb)) else {
            return (ca, cb);
        };
        if n.cross(nd).length() > WARM_START_MISALIGNMENT {
            let delta = ca - cb;
            let o = delta.dot(n) * n - delta;
            let on = o.length();
            if on > WARM_START_EPS {
                let oh = o / on;
                let la = self.aabb_size_a.dot(pair.a.to_local(oh).abs());
                let lb = self.aabb_size_b.dot(pair.b.to_local(oh).abs());
                let ratio = (on / (la + lb)).min(WARM_START_MAX_RATIO);
                if ratio.is_finite() {
                    ca += oh * la * ratio;
                    cb -= oh * lb * ratio;
                }
            }
        }
        (ca, cb)
    }
}

/// MPR on the full (inflated) shapes of `pair` (its `inflate` flag is ignored), starting from `start` (step 0).
pub fn mpr<A: CoreShape, B: CoreShape>(
    pair: &MinkowskiPair<'_, A, B>,
    start: &MprStart,
    settings: &MprSettings,
) -> MprOutput {
    let (ca, cb) = start.interior_points(pair, settings);
    mpr_from_centers(pair, ca, cb, settings)
}

/// The driver rule of §A.7: run [`mpr`]; if the warm start was used and found no contact, run once more without
/// the cached normal (persistence of shallow contacts). `iterations` counts both runs.
pub fn mpr_with_cache<A: CoreShape, B: CoreShape>(
    pair: &MinkowskiPair<'_, A, B>,
    start: &MprStart,
    settings: &MprSettings,
) -> MprOutput {
    let first = mpr(pair, start, settings);
    if first.hit || !start.uses_cache(settings) {
        return first;
    }
    let cold = start.with_cached_normal(DVec3::ZERO);
    let mut second = mpr(pair, &cold, settings);
    second.iterations += first.iterations;
    second
}

/// Steps 1–3 from the interior points `center_a ∈ A`, `center_b ∈ B` (`func_mpr_contact_from_centers`).
pub fn mpr_from_centers<A: CoreShape, B: CoreShape>(
    pair: &MinkowskiPair<'_, A, B>,
    center_a: DVec3,
    center_b: DVec3,
    settings: &MprSettings,
) -> MprOutput {
    let full = MinkowskiPair {
        a: Posed { shape: pair.a.shape, rot: pair.a.rot, pos: pair.a.pos, hint: pair.a.hint.clone() },
        b: Posed { shape: pair.b.shape, rot: pair.b.rot, pos: pair.b.pos, hint: pair.b.hint.clone() },
        inflate: true,
    };
    let mut run = Run { pair: &full, settings, calls: 0 };
    let mut portal = [SupportPoint::default(); 4];
    match run.discover(&mut portal, center_a, center_b) {
        Discovery::Separated => MprOutput::miss(MprStatus::NoContact, run.calls),
        Discovery::Failed => MprOutput::miss(MprStatus::DiscoveryFailed, run.calls),
        Discovery::Touch => {
            let normal = normalize_robust(portal[0].w).unwrap_or(DVec3::X);
            run.output(MprStatus::Touch, 0.0, normal, 0.5 * (portal[1].a + portal[1].b))
        }
        Discovery::Segment => {
            let normal = normalize_robust(-portal[1].w).unwrap_or(DVec3::X);
            run.output(MprStatus::Segment, portal[1].w.length(), normal, 0.5 * (portal[1].a + portal[1].b))
        }
        Discovery::Portal => match run.refine(&mut portal) {
            Ok(d) => run.penetration(&mut portal, d),
            Err(status) => MprOutput::miss(status, run.calls),
        },
    }
}

/// Result of portal discovery (libccd codes −1, 0, 1, 2, plus a numerical failure).
enum Discovery {
    Separated,
    Failed,
    Portal,
    Touch,
    Segment,
}

struct Run<'p, 'a, A, B> {
    pair: &'p MinkowskiPair<'a, A, B>,
    settings: &'p MprSettings,
    calls: u32,
}

/// Unit normal of the portal `(v1, v2, v3)`: `normalize((v2 − v1) × (v3 − v1))`.
fn portal_dir(p: &[SupportPoint; 4]) -> Option<DVec3> {
    normalize_robust((p[2].w - p[1].w).cross(p[3].w - p[1].w))
}

/// Unit normal of the triangle `(v0, v1, v2)`: `normalize((v1 − v0) × (v2 − v0))`.
fn triangle_dir(p: &[SupportPoint; 4]) -> Option<DVec3> {
    normalize_robust((p[1].w - p[0].w).cross(p[2].w - p[0].w))
}

/// `mpr_expand_portal`: replace the portal vertex that keeps the ray `v0 → origin` inside the new portal.
fn expand(p: &mut [SupportPoint; 4], v4: SupportPoint) {
    let w = v4.w.cross(p[0].w);
    let slot = if p[1].w.dot(w) > 0.0 {
        if p[2].w.dot(w) > 0.0 { 1 } else { 3 }
    } else if p[3].w.dot(w) > 0.0 {
        2
    } else {
        1
    };
    p[slot] = v4;
}

impl<A: CoreShape, B: CoreShape> Run<'_, '_, A, B> {
    fn support(&mut self, d: DVec3) -> SupportPoint {
        self.calls += 1;
        self.pair.support(d)
    }

    /// `mpr_portal_reach_tolerance`: `Δ = min_i (v4 − v_i)·d < tol + eps·max(1, Δ)`.
    fn reached(&self, p: &[SupportPoint; 4], v4: DVec3, d: DVec3) -> bool {
        let dv4 = v4.dot(d);
        let delta = (dv4 - p[1].w.dot(d)).min(dv4 - p[2].w.dot(d)).min(dv4 - p[3].w.dot(d));
        delta < self.settings.tolerance + self.settings.eps * delta.max(1.0)
    }

    /// Step 1, `mpr_discover_portal`.
    fn discover(&mut self, p: &mut [SupportPoint; 4], ca: DVec3, cb: DVec3) -> Discovery {
        let eps = self.settings.eps;
        p[0] = SupportPoint { w: ca - cb, a: ca, b: cb };
        if p[0].w.abs().max_element() < eps {
            p[0].w.x += 10.0 * eps;
        }
        let Some(d) = normalize_robust(-p[0].w) else {
            return Discovery::Failed;
        };
        p[1] = self.support(d);
        if p[1].w.dot(d) < eps {
            return Discovery::Separated;
        }
        let d = p[0].w.cross(p[1].w);
        if d.length_squared() < eps {
            return if p[1].w.abs().max_element() < eps { Discovery::Touch } else { Discovery::Segment };
        }
        let Some(d) = normalize_robust(d) else {
            return Discovery::Failed;
        };
        p[2] = self.support(d);
        if p[2].w.dot(d) < eps {
            return Discovery::Separated;
        }
        let Some(mut d) = triangle_dir(p) else {
            return Discovery::Failed;
        };
        if d.dot(p[0].w) > 0.0 {
            p.swap(1, 2);
            d = -d;
        }
        let mut trials = 0;
        loop {
            let v = self.support(d);
            if v.w.dot(d) < eps {
                return Discovery::Separated;
            }
            if p[1].w.cross(v.w).dot(p[0].w) < -eps {
                p[2] = v;
            } else if v.w.cross(p[2].w).dot(p[0].w) < -eps {
                p[1] = v;
            } else {
                p[3] = v;
                return Discovery::Portal;
            }
            let Some(nd) = triangle_dir(p) else {
                return Discovery::Failed;
            };
            d = nd;
            trials += 1;
            if trials == DISCOVERY_TRIALS {
                return Discovery::Failed;
            }
        }
    }

    /// Step 2, `mpr_refine_portal`: `Ok(portal normal)` once the portal encloses the origin.
    fn refine(&mut self, p: &mut [SupportPoint; 4]) -> Result<DVec3, MprStatus> {
        let eps = self.settings.eps;
        for _ in 0..REFINE_SAFETY_CAP {
            let d = portal_dir(p).ok_or(MprStatus::DegeneratePortal)?;
            if p[1].w.dot(d) > -eps {
                return Ok(d);
            }
            let v4 = self.support(d);
            if v4.w.dot(d) <= -eps || self.reached(p, v4.w, d) {
                return Err(MprStatus::NoContact);
            }
            expand(p, v4);
        }
        Err(MprStatus::RefineCap)
    }

    /// Step 3, `mpr_find_penetration`, from the enclosing portal with normal `d`.
    fn penetration(&mut self, p: &mut [SupportPoint; 4], mut d: DVec3) -> MprOutput {
        let mut iterations = 0u32;
        let status = loop {
            let v4 = self.support(d);
            if self.reached(p, v4.w, d) {
                break MprStatus::Converged;
            }
            if iterations > self.settings.max_iterations {
                break MprStatus::IterationCap;
            }
            let mut next = *p;
            expand(&mut next, v4);
            match portal_dir(&next) {
                Some(nd) => {
                    *p = next;
                    d = nd;
                }
                None => break MprStatus::DegeneratePortal,
            }
            iterations += 1;
        };
        let (depth, normal) = match self.settings.depth {
            MprDepth::PortalPlane => (d.dot(p[1].w), -d),
            MprDepth::PortalTriangle => {
                let (dist, q) = point_tri_depth(p[1].w, p[2].w, p[3].w, self.settings.eps);
                (dist, normalize_robust(-q).unwrap_or(-d))
            }
        };
        let position = find_pos(p, d, self.settings);
        MprOutput { portal: Some([p[1], p[2], p[3]]), ..self.output(status, depth, normal, position) }
    }

    /// A hit, with the depth clamped to `[0, ∞)` and a finite position.
    fn output(&self, status: MprStatus, depth: f64, normal: DVec3, position: DVec3) -> MprOutput {
        let depth = if depth > 0.0 && depth.is_finite() { depth } else { 0.0 };
        let position = if position.is_finite() { position } else { DVec3::ZERO };
        MprOutput { hit: true, depth, normal, position, status, iterations: self.calls, portal: None }
    }
}

/// `mpr_point_segment_dist2` for `P = 0`: squared distance to segment `ab` and the closest point (parameter snapped
/// to the ends within `eps`; a degenerate segment gives `a`).
fn point_segment_dist2(a: DVec3, b: DVec3, eps: f64) -> (f64, DVec3) {
    let ab = b - a;
    let ab2 = ab.length_squared();
    let mut t = if ab2 > 0.0 { -a.dot(ab) / ab2 } else { 0.0 };
    if t < eps {
        t = 0.0;
    } else if t > 1.0 - eps {
        t = 1.0;
    }
    let q = a + ab * t;
    (q.length_squared(), q)
}

/// `mpr_point_tri_depth` for `P = 0`: distance from the origin to the triangle `(x0, b, c)` and the closest point `q`.
/// The projection onto the plane is used when its barycentric coordinates lie in the triangle within `eps`;
/// otherwise the nearest of the three edges.
fn point_tri_depth(x0: DVec3, b: DVec3, c: DVec3, eps: f64) -> (f64, DVec3) {
    let d1 = b - x0;
    let d2 = c - x0;
    let a = x0;
    let v = d1.dot(d1);
    let w = d2.dot(d2);
    let p = a.dot(d1);
    let q = a.dot(d2);
    let r = d1.dot(d2);
    let det = w * v - r * r;
    let (s, t) = if det.abs() < eps {
        (-1.0, -1.0)
    } else {
        let s = (q * r - w * p) / det;
        (s, (-s * r - q) / w)
    };
    let inside = s > -eps && s < 1.0 + eps && t > -eps && t < 1.0 + eps && t + s < 1.0 + eps;
    let (dist2, pdir) = if inside {
        let pdir = x0 + d1 * s + d2 * t;
        (pdir.length_squared(), pdir)
    } else {
        let mut best = point_segment_dist2(x0, b, eps);
        for cand in [point_segment_dist2(x0, c, eps), point_segment_dist2(b, c, eps)] {
            if cand.0 < best.0 {
                best = cand;
            }
        }
        best
    };
    (dist2.sqrt(), pdir)
}

/// `mpr_find_pos`: the midpoint `Σ b_i (a_i + b_i') / (2 Σ b_i)` of the weighted witnesses. MuJoCo-compatible mode
/// first tries the barycentric coordinates of the origin in `(v0, v1, v2, v3)`; if their sum is below `eps` (and
/// always in native mode) the portal-face weights `b_0 = 0`, `b_i = (v_j × v_k)·d` (cyclic) are used. A degenerate
/// portal (weight sum not positive) falls back to the portal centroid.
fn find_pos(p: &[SupportPoint; 4], d: DVec3, settings: &MprSettings) -> DVec3 {
    let v = [p[0].w, p[1].w, p[2].w, p[3].w];
    let mut b = [0.0; 4];
    if settings.depth == MprDepth::PortalTriangle {
        b[0] = v[1].cross(v[2]).dot(v[3]);
        b[1] = -v[2].cross(v[3]).dot(v[0]);
        b[2] = -v[1].cross(v[0]).dot(v[3]);
        b[3] = v[2].cross(v[1]).dot(v[0]);
    }
    let mut sum: f64 = b.iter().sum();
    if !(sum >= settings.eps) {
        b = [0.0, v[2].cross(v[3]).dot(d), v[3].cross(v[1]).dot(d), v[1].cross(v[2]).dot(d)];
        sum = b.iter().sum();
    }
    if !(sum > 0.0) || !sum.is_finite() {
        b = [0.0, 1.0, 1.0, 1.0];
        sum = 3.0;
    }
    let mut acc = DVec3::ZERO;
    for (bi, s) in b.iter().zip(p) {
        acc += *bi * (s.a + s.b);
    }
    acc * (0.5 / sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use signorini_geometry::{Cuboid, Pose, Sphere};

    fn pair<'a, A: CoreShape, B: CoreShape>(
        a: &'a A,
        pa: DVec3,
        b: &'a B,
        pb: DVec3,
    ) -> MinkowskiPair<'a, A, B> {
        MinkowskiPair {
            a: Posed::new(a, &Pose::from_translation(pa)),
            b: Posed::new(b, &Pose::from_translation(pb)),
            inflate: true,
        }
    }

    #[test]
    fn point_tri_depth_inside_and_edge() {
        let (d, q) = point_tri_depth(
            DVec3::new(-1.0, -1.0, 2.0),
            DVec3::new(3.0, -1.0, 2.0),
            DVec3::new(-1.0, 3.0, 2.0),
            CCD_EPS,
        );
        assert!((d - 2.0).abs() < 1e-12 && (q - DVec3::new(0.0, 0.0, 2.0)).length() < 1e-12);
        let (d, q) = point_tri_depth(
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(3.0, 1.0, 0.0),
            DVec3::new(1.0, 3.0, 0.0),
            CCD_EPS,
        );
        assert!((d - 2f64.sqrt()).abs() < 1e-12 && (q - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-12);
        let (d, q) = point_tri_depth(DVec3::ONE, DVec3::ONE, DVec3::ONE, CCD_EPS);
        assert!((d - 3f64.sqrt()).abs() < 1e-12 && q == DVec3::ONE);
    }

    #[test]
    fn expand_keeps_ray_inside() {
        let sp = |w: DVec3| SupportPoint { w, a: w, b: DVec3::ZERO };
        let mut p = [
            sp(DVec3::new(0.0, 0.0, -1.0)),
            sp(DVec3::new(1.0, 0.0, 1.0)),
            sp(DVec3::new(-0.5, 0.9, 1.0)),
            sp(DVec3::new(-0.5, -0.9, 1.0)),
        ];
        expand(&mut p, sp(DVec3::new(0.1, 0.1, 2.0)));
        let n1 = p[1].w.cross(p[2].w).dot(DVec3::Z);
        let n2 = p[2].w.cross(p[3].w).dot(DVec3::Z);
        let n3 = p[3].w.cross(p[1].w).dot(DVec3::Z);
        assert!(n1 * n2 >= 0.0 && n2 * n3 >= 0.0, "the new portal must still cross the z axis");
    }

    #[test]
    fn touch_and_segment_and_coincident() {
        let s = Sphere::new(0.5).unwrap();
        // Exact touching: `v1·d = 0 < eps`, so discovery reports separation (libccd/Genesis semantics).
        let pr = pair(&s, DVec3::X, &s, DVec3::ZERO);
        assert_eq!(mpr(&pr, &MprStart::new(&pr), &MprSettings::default()).status, MprStatus::NoContact);
        // Touch (result 1) needs `v1·d ≥ eps` with every `|v1_i| < eps`: a 1.5e-10 overlap along the diagonal.
        let u = DVec3::ONE.normalize();
        let pr = pair(&s, u * (1.0 - 1.5e-10), &s, DVec3::ZERO);
        let touch = mpr(&pr, &MprStart::new(&pr), &MprSettings::default());
        assert!(touch.hit && touch.status == MprStatus::Touch && touch.depth == 0.0, "{touch:?}");
        assert!((touch.normal - u).length() < 1e-9 && (touch.position - 0.5 * u).length() < 1e-9);

        let pr = pair(&s, 0.8 * DVec3::X, &s, DVec3::ZERO);
        let seg = mpr(&pr, &MprStart::new(&pr), &MprSettings::default());
        assert!(seg.hit && seg.status == MprStatus::Segment);
        assert!((seg.depth - 0.2).abs() < 1e-12 && (seg.normal - DVec3::X).length() < 1e-12);
        assert!((seg.position - 0.4 * DVec3::X).length() < 1e-12);

        let c = Cuboid::new(DVec3::new(0.3, 0.2, 0.1)).unwrap();
        for settings in [MprSettings::default(), MprSettings::mujoco_compatible()] {
            let pr = pair(&c, DVec3::ONE, &c, DVec3::ONE);
            let out = mpr(&pr, &MprStart::new(&pr).with_cached_normal(DVec3::Z), &settings);
            assert!(out.hit && out.depth.is_finite() && out.normal.is_finite() && out.position.is_finite());
            assert!((out.normal.length() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn separated_spheres_miss() {
        let s = Sphere::new(0.5).unwrap();
        let pr = pair(&s, DVec3::new(1.01, 0.0, 0.0), &s, DVec3::ZERO);
        let out = mpr(&pr, &MprStart::new(&pr), &MprSettings::default());
        assert!(!out.hit && out.status == MprStatus::NoContact);
    }

    #[test]
    fn local_aabb_of_offset_shapes() {
        let c = Cuboid::new(DVec3::new(0.3, 0.2, 0.1)).unwrap();
        let (ctr, size) = c.core_local_aabb();
        assert_eq!(ctr, DVec3::ZERO);
        assert!((size - DVec3::new(0.6, 0.4, 0.2)).length() < 1e-15);
        let s = signorini_geometry::Capsule::new(0.1, 0.5).unwrap();
        let (_, size) = s.core_local_aabb();
        assert!((size - DVec3::new(0.2, 0.2, 1.2)).length() < 1e-15);
    }

    #[test]
    fn warm_start_shifts_centres_towards_the_cached_normal() {
        let c = Cuboid::new(DVec3::splat(0.5)).unwrap();
        let pr = pair(&c, DVec3::new(0.5, 0.9, 0.0), &c, DVec3::ZERO);
        let start = MprStart::new(&pr).with_cached_normal(DVec3::Y);
        let (ca, cb) = start.interior_points(&pr, &MprSettings::default());
        // δ = (0.5, 0.9, 0): o = (−0.5, 0, 0), ℓ_A = ℓ_B = 1, ρ = 0.25.
        assert!((ca - DVec3::new(0.25, 0.9, 0.0)).length() < 1e-12);
        assert!((cb - DVec3::new(0.25, 0.0, 0.0)).length() < 1e-12);
        let (ca, cb) = start.interior_points(&pr, &MprSettings::mujoco_compatible());
        assert_eq!((ca, cb), (start.center_a, start.center_b));
    }
}
