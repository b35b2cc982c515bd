//! Signed distance of primitive pairs by Newton's method on the support function of `D = A ⊖ B`.
//!
//! Boxes, cylinders, ellipsoids, capsules and spheres are Minkowski sums of a centre `c`, segments `a [−e, e]` (a box
//! has three, a cylinder and a capsule one along the axis), ellipsoids `{M^{1/2} x : |x| ≤ 1}` (flat for a cylinder's
//! disc: `M = r² (I − e eᵀ)`) and a ball of radius `r`. So is `D = A ⊖ B`, whose support function is therefore
//!
//! ```text
//! h(u) = c·u + Σ_k a_k |e_k·u| + Σ_j √(uᵀ M_j u) + r,        c = c_A − c_B.
//! ```
//!
//! For separated shapes `min_{|u|=1} h(u) = −distance`, for overlapping ones it is the penetration depth, both reached
//! at the normal `u` from A to B; so the signed distance is `−min_{|u|=1} h(u)`. [`SupportSum::minimize`] finds a
//! local minimum on the unit sphere by Newton's method with an active set:
//!
//! - a segment is *active* where `e_k·u = 0` (its support is the whole segment: a box edge or face, a cylinder's side
//!   line); active segments are constraints, so `u` moves on a great circle (one active) or is fixed (two);
//! - a flat ellipsoid's *cone point* `u = ±e` (a cylinder's cap facing `u`) fixes `u` too;
//! - on the free part of the sphere the step solves `H δ = −g` with the tangential gradient `g` of `h` and the
//!   Riemannian Hessian `H = Tᵀ ∇²h T − h I` (the `−h I` is the sphere's curvature times the multiplier `h`, by
//!   Euler's relation `u·∇h = h`), backtracked to Armijo's decrease; a step that crosses a kink `e_k·u = 0` stops on
//!   it and activates the segment;
//! - at a stationary point the active constraints' multipliers are the KKT conditions: an active segment's weight
//!   `t_k` (its support point `a_k t_k e_k`) must lie in `[−1, 1]`, a cone point's disc offset within the disc's
//!   radius; otherwise the most violated one is released on the side its multiplier points to.
//!
//! The multipliers also split the support point of `D` into the shapes' witness points, exactly, including faces and
//! edges where a support point alone is not unique. For separated shapes a stationary point with `h < 0` is the
//! global minimum (`−h` is concave on the unit ball there); for overlapping ones it is the minimum of the basin its
//! start lies in, which the caller takes from EPA. Convergence is quadratic near a minimum where `D` is curved, so
//! the result is exact to rounding where GJK and EPA approach a curved `D` only linearly.

use glam::{DMat3, DVec2, DVec3};
use signorini_geometry::{Pose, Shape};

/// Most segments of one pair (a box and a cylinder: 4; two boxes are not curved and never come here).
const MAX_SEGMENTS: usize = 6;
/// Most ellipsoids of one pair.
const MAX_QUADRICS: usize = 2;
/// Iteration cap of [`SupportSum::minimize`] (Newton steps and backtrackings).
const MAX_ITERATIONS: u32 = 60;
/// Active-set changes before [`SupportSum::minimize`] gives up (it then returns `None`).
const MAX_SET_CHANGES: u32 = 8;
/// Angle (rad) within which a flat ellipsoid's axis is tested as a cone point.
const CONE_TEST_ANGLE: f64 = 0.3;
/// Length (rad) of a Newton step after which the point counts as stationary (the step's error is its square).
const STATIONARY_STEP: f64 = 1e-11;
/// Length (rad) below which a Newton step is taken without the line search.
const NEWTON_TRUST: f64 = 1e-3;
/// Largest residual of the witnesses' split of the support point, relative to the size of `D`.
const CONSISTENCY: f64 = 1e-12;
/// `|e·u|` below which a start lies on a segment's kink.
const ON_KINK: f64 = 1e-12;
/// Distance from a disc's axis below which its gradient is not used: `u` is moved off by [`CONE_NUDGE`].
const ON_AXIS: f64 = 1e-6;
/// The angle (rad) by which `u` leaves a cone point that is not a minimum.
const CONE_NUDGE: f64 = 1e-3;
/// Armijo's sufficient-decrease fraction.
const ARMIJO: f64 = 1e-4;

/// A segment term `a |e·u|` of the support function: half-length `a` along the unit direction `e`.
#[derive(Debug, Clone, Copy, Default)]
struct Segment {
    dir: DVec3,
    half: f64,
    of_b: bool,
}

/// An ellipsoid term of the support function.
#[derive(Debug, Clone, Copy)]
enum QuadricKind {
    /// `√(uᵀ M u)`, `M = R diag(r²) Rᵀ`.
    Ellipsoid(DMat3),
    /// A disc of `radius` normal to the unit `axis` (a cylinder's): `r |P u|`, `P = I − e eᵀ`, whose cone points are
    /// `u = ±e`.
    Disc { axis: DVec3, radius: f64 },
}

/// An ellipsoid term of A (`of_b = false`) or B.
#[derive(Debug, Clone, Copy)]
struct Quadric {
    kind: QuadricKind,
    of_b: bool,
}

impl Default for Quadric {
    fn default() -> Self {
        Self { kind: QuadricKind::Ellipsoid(DMat3::ZERO), of_b: false }
    }
}

impl Quadric {
    /// The axis and radius of a disc.
    fn disc(&self) -> Option<(DVec3, f64)> {
        match self.kind {
            QuadricKind::Disc { axis, radius } => Some((axis, radius)),
            QuadricKind::Ellipsoid(_) => None,
        }
    }

    /// `(√(uᵀ M u), M u / √(uᵀ M u))`: the support value and point (zero where the value is). A disc's are
    /// `r |P u|` and `r P u / |P u|`, which vanish at its cone point to rounding (its quadratic form's rounding,
    /// under the square root, would leave 1e-8 there).
    #[inline]
    fn support(&self, u: DVec3) -> (f64, DVec3) {
        match self.kind {
            QuadricKind::Disc { axis, radius } => {
                let pu = u - axis.dot(u) * axis;
                let n = pu.length();
                if n > 0.0 { (radius * n, pu * (radius / n)) } else { (0.0, DVec3::ZERO) }
            }
            QuadricKind::Ellipsoid(m) => {
                let mu = m * u;
                let qq = u.dot(mu);
                if qq > 0.0 {
                    let n = qq.sqrt();
                    (n, mu / n)
                } else {
                    (0.0, DVec3::ZERO)
                }
            }
        }
    }
}

/// The support function of `D = A ⊖ B` as a sum of closed-form terms (module docs), in the world frame.
#[derive(Debug, Clone, Default)]
pub struct SupportSum {
    center_a: DVec3,
    center_b: DVec3,
    segments: [Segment; MAX_SEGMENTS],
    n_segments: usize,
    quadrics: [Quadric; MAX_QUADRICS],
    n_quadrics: usize,
    radius_a: f64,
    radius_b: f64,
}

/// The minimum found by [`SupportSum::minimize`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SupportMinimum {
    /// Signed distance `−min h` (m).
    pub distance: f64,
    /// Unit normal from A towards B.
    pub normal: DVec3,
    /// Witness on A (world).
    pub point_a: DVec3,
    /// Witness on B (world).
    pub point_b: DVec3,
    /// Newton steps taken.
    pub iterations: u32,
}

/// The state of the active-set iteration.
#[derive(Debug, Clone, Copy)]
struct Active {
    /// Per segment: the sign of `e_k·u` it is taken with while inactive.
    sign: [f64; MAX_SEGMENTS],
    /// Bit `k`: segment `k` is active (`e_k·u = 0`).
    mask: u8,
    /// The quadric whose cone point `u = ±e` is active.
    cone: Option<usize>,
}

impl Active {
    fn is_active(&self, k: usize) -> bool {
        self.mask & (1 << k) != 0
    }
}

impl SupportSum {
    /// Sets shape A's (`of_b = false`) or B's centre.
    fn set_center(&mut self, center: DVec3, of_b: bool) {
        if of_b {
            self.center_b = center;
        } else {
            self.center_a = center;
        }
    }

    /// Adds a ball radius to A or B.
    fn add_radius(&mut self, radius: f64, of_b: bool) {
        if of_b {
            self.radius_b += radius;
        } else {
            self.radius_a += radius;
        }
    }

    /// Adds the segment `half · [−dir, dir]` (`dir` a unit vector) to A or B; false when full.
    fn add_segment(&mut self, dir: DVec3, half: f64, of_b: bool) -> bool {
        if half <= 0.0 {
            return true;
        }
        if self.n_segments == MAX_SEGMENTS {
            return false;
        }
        self.segments[self.n_segments] = Segment { dir, half, of_b };
        self.n_segments += 1;
        true
    }

    /// Adds the ellipsoid of semi-axes `radii` along the columns of `rot` to A or B; false when full.
    fn add_ellipsoid(&mut self, rot: &DMat3, radii: DVec3, of_b: bool) -> bool {
        let m = *rot * DMat3::from_diagonal(radii * radii) * rot.transpose();
        self.add_quadric(Quadric { kind: QuadricKind::Ellipsoid(m), of_b })
    }

    /// Adds the disc of `radius` normal to the unit `axis` to A or B; false when full.
    fn add_disc(&mut self, axis: DVec3, radius: f64, of_b: bool) -> bool {
        self.add_quadric(Quadric { kind: QuadricKind::Disc { axis, radius }, of_b })
    }

    fn add_quadric(&mut self, q: Quadric) -> bool {
        if self.n_quadrics == MAX_QUADRICS {
            return false;
        }
        self.quadrics[self.n_quadrics] = q;
        self.n_quadrics += 1;
        true
    }

    /// The terms of `A ⊖ B` for two primitives (sphere, capsule, box, cylinder, ellipsoid); `None` for other shapes
    /// and for pairs without a curved term (their `h` is piecewise linear: no Newton step applies).
    pub fn of_pair(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose) -> Option<Self> {
        let mut sum = Self::default();
        sum.add_shape(a, pose_a, false)?;
        sum.add_shape(b, pose_b, true)?;
        (sum.n_quadrics > 0).then_some(sum)
    }

    fn add_shape(&mut self, shape: &Shape, pose: &Pose, of_b: bool) -> Option<()> {
        self.set_center(pose.translation, of_b);
        let rot = pose.rotation_matrix();
        let ok = match shape {
            Shape::Sphere(s) => {
                self.add_radius(s.radius(), of_b);
                true
            }
            Shape::Capsule(c) => {
                self.add_radius(c.radius(), of_b);
                self.add_segment(rot.z_axis, c.half_length(), of_b)
            }
            Shape::Box(bx) => {
                let h = bx.half_extents();
                self.add_segment(rot.x_axis, h.x, of_b)
                    && self.add_segment(rot.y_axis, h.y, of_b)
                    && self.add_segment(rot.z_axis, h.z, of_b)
            }
            Shape::Cylinder(c) => {
                self.add_segment(rot.z_axis, c.half_length(), of_b)
                    && self.add_disc(rot.z_axis, c.radius(), of_b)
            }
            Shape::Ellipsoid(e) => self.add_ellipsoid(&rot, e.semi_axes(), of_b),
            _ => false,
        };
        ok.then_some(())
    }

    /// A length scale of `D` for the tolerances: `|c|` plus the terms' sizes.
    pub(crate) fn scale(&self) -> f64 {
        let c = (self.center_a - self.center_b).length();
        let s: f64 = self.segments[..self.n_segments].iter().map(|s| s.half).sum();
        let q: f64 = self.quadrics[..self.n_quadrics]
            .iter()
            .map(|q| match q.kind {
                QuadricKind::Ellipsoid(m) => (m.x_axis.x + m.y_axis.y + m.z_axis.z).max(0.0).sqrt(),
                QuadricKind::Disc { radius, .. } => radius,
            })
            .sum();
        (c + s + q).max(f64::MIN_POSITIVE)
    }

    /// `h(u)` without the radii.
    fn value(&self, u: DVec3) -> f64 {
        let mut f = (self.center_a - self.center_b).dot(u);
        for s in &self.segments[..self.n_segments] {
            f += s.half * s.dir.dot(u).abs();
        }
        for q in &self.quadrics[..self.n_quadrics] {
            f += q.support(u).0;
        }
        f
    }

    /// `h(u)` without the radii and the gradient of the terms that are smooth at `u` under `act` (inactive segments
    /// with their signs, ellipsoids but an active cone point).
    fn derivatives(&self, u: DVec3, act: &Active) -> (f64, DVec3) {
        let (f, g, _) = self.local_model(u, act, &[]);
        (f, g)
    }

    /// [`SupportSum::derivatives`] and the Hessian of the smooth ellipsoids projected on the tangent directions `t`
    /// (orthonormal, `⊥ u`; at most two): `[t₁ᵀHt₁, t₁ᵀHt₂, t₂ᵀHt₂]`. An ellipsoid's Hessian is
    /// `(M − p pᵀ)/h` with `p = M u / h`, a disc's `r (P − p̂ p̂ᵀ) / |P u|`; both are applied to `t` without forming
    /// them.
    fn local_model(&self, u: DVec3, act: &Active, t: &[DVec3]) -> (f64, DVec3, [f64; 3]) {
        let c = self.center_a - self.center_b;
        let (mut f, mut g) = (c.dot(u), c);
        for (k, s) in self.segments[..self.n_segments].iter().enumerate() {
            f += s.half * s.dir.dot(u).abs();
            if !act.is_active(k) {
                g += (s.half * act.sign[k]) * s.dir;
            }
        }
        let mut hess = [0.0; 3];
        for (j, q) in self.quadrics[..self.n_quadrics].iter().enumerate() {
            let (value, grad) = q.support(u);
            f += value;
            if act.cone == Some(j) || value <= 0.0 {
                continue;
            }
            g += grad;
            let pt: [f64; 2] = std::array::from_fn(|i| t.get(i).map_or(0.0, |ti| grad.dot(*ti)));
            match q.kind {
                QuadricKind::Disc { axis, radius: r } => {
                    // r (tᵢ·tⱼ − (a·tᵢ)(a·tⱼ)) − (p·tᵢ)(p·tⱼ)/r, over |P u| = value / r.
                    let at: [f64; 2] = std::array::from_fn(|i| t.get(i).map_or(0.0, |ti| axis.dot(*ti)));
                    let s = r / value;
                    hess[0] += (r * (1.0 - at[0] * at[0]) - pt[0] * pt[0] / r) * s;
                    hess[1] += (-r * at[0] * at[1] - pt[0] * pt[1] / r) * s;
                    hess[2] += (r * (1.0 - at[1] * at[1]) - pt[1] * pt[1] / r) * s;
                }
                QuadricKind::Ellipsoid(m) => {
                    let inv = 1.0 / value;
                    if let Some(&t1) = t.first() {
                        let m1 = m * t1;
                        hess[0] += (t1.dot(m1) - pt[0] * pt[0]) * inv;
                        if let Some(&t2) = t.get(1) {
                            hess[1] += (t2.dot(m1) - pt[0] * pt[1]) * inv;
                            hess[2] += (t2.dot(m * t2) - pt[1] * pt[1]) * inv;
                        }
                    }
                }
            }
        }
        (f, g, hess)
    }

    /// Minimises `h` on the unit sphere from `start` (any non-zero vector, e.g. a guess of the normal from A to B);
    /// `None` when the active-set iteration does not settle (degenerate contacts: parallel faces, a cap on a face).
    pub fn minimize(&self, start: DVec3) -> Option<SupportMinimum> {
        self.minimize_with(start, MAX_ITERATIONS, false)
    }

    /// [`SupportSum::minimize`] with an iteration cap; `newton_only`: give up (`None`) where the Hessian is not
    /// positive definite instead of taking a gradient step (a start far from any minimum, typically of overlapping
    /// shapes, whose minimum the caller then seeks from EPA's normal).
    pub fn minimize_with(
        &self,
        start: DVec3,
        max_iterations: u32,
        newton_only: bool,
    ) -> Option<SupportMinimum> {
        self.minimize_from(start, max_iterations, newton_only, true)
    }

    /// Whether `u` is a cone point: the axis (either sense) of a flat ellipsoid (a cylinder's cap), to rounding.
    pub fn at_cap(&self, u: DVec3) -> bool {
        self.quadrics[..self.n_quadrics]
            .iter()
            .any(|q| q.disc().is_some_and(|(a, _)| 1.0 - a.dot(u).abs() <= 1e-12))
    }

    /// [`SupportSum::minimize`] without the jumps to a cap facing `u` (a cone point within 0.3 rad of `u`):
    /// the minimum of the smooth basin `start` lies in, where a cone point near it is another local minimum (of an
    /// overlap: a cap against a face, and a shallower minimum a few degrees off its axis). A start on the axis still
    /// steps off it when the cone point is not a minimum. `None` where the iteration does not settle.
    pub fn minimize_in_basin(&self, start: DVec3) -> Option<SupportMinimum> {
        self.minimize_from(start, MAX_ITERATIONS, false, false)
    }

    fn minimize_from(
        &self,
        start: DVec3,
        max_iterations: u32,
        newton_only: bool,
        cone_jumps: bool,
    ) -> Option<SupportMinimum> {
        let mut u = start.try_normalize()?;
        let scale = self.scale();
        let mut act = Active { sign: [1.0; MAX_SEGMENTS], mask: 0, cone: None };
        for (k, s) in self.segments[..self.n_segments].iter().enumerate() {
            let e = s.dir.dot(u);
            act.sign[k] = if e < 0.0 { -1.0 } else { 1.0 };
            // A start on a kink (EPA's normal of a face or a cylinder's side) starts with that segment active.
            if e.abs() <= ON_KINK && act.mask.count_ones() < 2 {
                act.mask |= 1 << k;
            }
        }
        match act.mask.count_ones() {
            1 => u = project_out(u, self.segments[act.mask.trailing_zeros() as usize].dir),
            2 => u = self.fixed_by_pair(act.mask, u)?,
            _ => {}
        }
        let mut changes = 0;
        let mut iterations = 0;
        let gradient_tol = 1e-14 * scale;
        loop {
            iterations += 1;
            if iterations > max_iterations {
                return None;
            }
            if cone_jumps
                && act.cone.is_none()
                && act.mask == 0
                && let Some((j, uc)) = self.cone_candidate(u)
            {
                // The cap facing `u`: jump there if that is not uphill and its multiplier is feasible; on the axis
                // already (where the disc's gradient is undefined) but infeasible, step off it downhill.
                let mut trial = act;
                trial.cone = Some(j);
                for (k, s) in self.segments[..self.n_segments].iter().enumerate() {
                    trial.sign[k] = if s.dir.dot(uc) < 0.0 { -1.0 } else { 1.0 };
                }
                let (fc, g) = self.derivatives(uc, &trial);
                let g_perp = g - g.dot(uc) * uc;
                let gn = g_perp.length();
                let radius = self.quadrics[j].disc().map_or(0.0, |(_, r)| r);
                if gn <= radius && fc <= self.value(u) + CONSISTENCY * scale {
                    act = trial;
                    u = uc;
                    changes += 1;
                } else if (u - uc).length() <= ON_AXIS && gn > 0.0 {
                    u = (uc - CONE_NUDGE * g_perp / gn).normalize();
                    act.sign = trial.sign;
                }
            }
            let basis = tangent_basis(u, &act, &self.segments);
            let (step, f) = match basis {
                Basis::Fixed => {
                    let (f, _) = self.derivatives(u, &act);
                    (None, f)
                }
                Basis::Circle(t) => {
                    let (f, g, hess) = self.local_model(u, &act, &[t]);
                    let gt = t.dot(g);
                    if gt.abs() <= gradient_tol {
                        (None, f)
                    } else {
                        let h = hess[0] - f;
                        let d = if h > 0.0 { -gt / h } else { -gt / scale };
                        (Some((d * t, gt * d, h > 0.0)), f)
                    }
                }
                Basis::Sphere(t1, t2) => {
                    let (f, g, hess) = self.local_model(u, &act, &[t1, t2]);
                    let gt = DVec2::new(t1.dot(g), t2.dot(g));
                    if gt.length() <= gradient_tol {
                        (None, f)
                    } else {
                        let (h11, h12, h22) = (hess[0] - f, hess[1], hess[2] - f);
                        let det = h11 * h22 - h12 * h12;
                        let newton = h11 > 0.0 && det > 0.0;
                        let d = if newton {
                            DVec2::new(-(h22 * gt.x - h12 * gt.y) / det, -(h11 * gt.y - h12 * gt.x) / det)
                        } else {
                            -gt / scale
                        };
                        (Some((d.x * t1 + d.y * t2, gt.dot(d), newton)), f)
                    }
                }
            };
            // A Newton step this short leaves an error of its square: the next point is stationary to rounding
            // (`h` itself no longer resolves such steps: its decrease is below an ulp).
            let (step, f) = match step {
                Some((d, _, true)) if d.length() <= STATIONARY_STEP => {
                    u = (u + d).normalize();
                    (None, self.value(u))
                }
                other => (other, f),
            };
            if newton_only && step.is_some_and(|s| !s.2) {
                return None;
            }
            let Some((mut d, slope, newton)) = step else {
                // Stationary on the active constraints: check their multipliers.
                match self.release_violated(u, f, &mut act) {
                    Release::Optimal(t, cone) => {
                        return self.witnesses(u, f, &act, &t, cone, iterations, scale);
                    }
                    Release::Released(nudge) => {
                        changes += 1;
                        if changes > MAX_SET_CHANGES {
                            return None;
                        }
                        if let Some(v) = nudge {
                            u = v;
                        }
                        continue;
                    }
                    Release::Degenerate => return None,
                }
            };
            // A trust region of half a radian, then the first kink on the way.
            let len = d.length();
            if len > 0.5 {
                d *= 0.5 / len;
            }
            let slope = slope * (d.length() / len.max(f64::MIN_POSITIVE));
            let mut tau = 1.0;
            let mut kink = None;
            for (k, s) in self.segments[..self.n_segments].iter().enumerate() {
                if act.is_active(k) {
                    continue;
                }
                let (e0, ed) = (s.dir.dot(u) * act.sign[k], s.dir.dot(d) * act.sign[k]);
                if e0 > 0.0 && e0 + ed < 0.0 {
                    let t = e0 / -ed;
                    if t < tau {
                        tau = t;
                        kink = Some(k);
                    }
                }
            }
            let mut accepted = false;
            for _ in 0..40 {
                let mut v = (u + tau * d).normalize();
                if let Some(k) = kink {
                    v = project_out(v, self.segments[k].dir);
                }
                // Close to the minimum Newton's step is taken whole, and a kink at hand is taken: `h`'s rounding
                // hides their decrease.
                let whole = newton && tau == 1.0 && len <= NEWTON_TRUST;
                let at_kink = kink.is_some() && tau * len <= STATIONARY_STEP;
                if whole || at_kink || self.value(v) <= f + ARMIJO * tau * slope {
                    u = v;
                    accepted = true;
                    break;
                }
                tau *= 0.5;
                kink = None;
            }
            if !accepted {
                return None;
            }
            if let Some(k) = kink {
                act.mask |= 1 << k;
                changes += 1;
                if changes > MAX_SET_CHANGES || act.mask.count_ones() > 2 {
                    return None;
                }
                if act.mask.count_ones() == 2 {
                    u = self.fixed_by_pair(act.mask, u)?;
                }
            }
        }
    }

    /// The unit direction on `u`'s side that is perpendicular to both active segments of `mask`.
    fn fixed_by_pair(&self, mask: u8, u: DVec3) -> Option<DVec3> {
        let (i, j) = active_pair(mask);
        let n = self.segments[i].dir.cross(self.segments[j].dir).try_normalize()?;
        Some(if n.dot(u) < 0.0 { -n } else { n })
    }

    /// A flat ellipsoid whose axis lies within [`CONE_TEST_ANGLE`] of `±u`, with that signed axis.
    fn cone_candidate(&self, u: DVec3) -> Option<(usize, DVec3)> {
        self.quadrics[..self.n_quadrics].iter().enumerate().find_map(|(j, q)| {
            let (a, _) = q.disc()?;
            let c = a.dot(u);
            (1.0 - c.abs() <= 0.5 * CONE_TEST_ANGLE * CONE_TEST_ANGLE)
                .then(|| (j, if c < 0.0 { -a } else { a }))
        })
    }

    /// At a stationary point `u` of the active set: the multipliers, or the release of the most violated constraint
    /// (with the nudged start for a released cone point).
    fn release_violated(&self, u: DVec3, f: f64, act: &mut Active) -> Release {
        let (_, g) = self.derivatives(u, act);
        // The active terms must supply ρ = f u − g.
        let rho = f * u - g;
        if let Some(j) = act.cone {
            if act.mask != 0 {
                return Release::Degenerate;
            }
            let radius = self.quadrics[j].disc().map_or(0.0, |(_, r)| r);
            // `u` is the disc's axis (up to its sign).
            let y = rho - rho.dot(u) * u;
            let n = y.length();
            if n <= radius * (1.0 + 1e-12) {
                return Release::Optimal([0.0; 2], Some(y));
            }
            act.cone = None;
            // Descend off the axis towards y (module docs).
            let v = (u + CONE_NUDGE * y / n).normalize();
            return Release::Released(Some(v));
        }
        let t = match act.mask.count_ones() {
            0 => return Release::Optimal([0.0; 2], None),
            1 => {
                let k = act.mask.trailing_zeros() as usize;
                let s = &self.segments[k];
                [rho.dot(s.dir) / s.half, 0.0]
            }
            _ => {
                let (i, j) = active_pair(act.mask);
                // ρ = a_i t_i e_i + a_j t_j e_j: the Gram system of two unit directions.
                let (si, sj) = (&self.segments[i], &self.segments[j]);
                let c = si.dir.dot(sj.dir);
                let (b1, b2) = (rho.dot(si.dir), rho.dot(sj.dir));
                let det = 1.0 - c * c;
                if det <= 1e-12 {
                    return Release::Degenerate;
                }
                [(b1 - b2 * c) / det / si.half, (b2 - c * b1) / det / sj.half]
            }
        };
        let ids = active_ids(act.mask);
        let worst = (0..act.mask.count_ones() as usize).max_by(|&x, &y| t[x].abs().total_cmp(&t[y].abs()));
        match worst {
            Some(w) if t[w].abs() > 1.0 + 1e-12 => {
                let k = ids[w];
                act.mask &= !(1 << k);
                act.sign[k] = t[w].signum();
                Release::Released(None)
            }
            _ => Release::Optimal(t, None),
        }
    }

    /// The witnesses of the minimum from the terms' support points (active segments at their multipliers).
    #[allow(clippy::too_many_arguments)]
    fn witnesses(
        &self,
        u: DVec3,
        f: f64,
        act: &Active,
        t: &[f64; 2],
        cone: Option<DVec3>,
        iterations: u32,
        scale: f64,
    ) -> Option<SupportMinimum> {
        let (mut pa, mut pb) = (self.center_a, self.center_b);
        let ids = active_ids(act.mask);
        for (k, s) in self.segments[..self.n_segments].iter().enumerate() {
            let w = if act.is_active(k) { t[usize::from(ids[1] == k)] } else { act.sign[k] };
            let p = (s.half * w) * s.dir;
            if s.of_b {
                pb -= p;
            } else {
                pa += p;
            }
        }
        for (j, q) in self.quadrics[..self.n_quadrics].iter().enumerate() {
            let p = if act.cone == Some(j) { cone.unwrap_or(DVec3::ZERO) } else { q.support(u).1 };
            if q.of_b {
                pb -= p;
            } else {
                pa += p;
            }
        }
        // The multipliers split `f u` exactly; a residual means the active set does not describe the minimum.
        if (pa - pb - f * u).length() > CONSISTENCY * scale {
            return None;
        }
        Some(SupportMinimum {
            distance: -f - self.radius_a - self.radius_b,
            normal: u,
            point_a: pa + self.radius_a * u,
            point_b: pb - self.radius_b * u,
            iterations,
        })
    }
}

/// Outcome of the multiplier test.
enum Release {
    /// All multipliers feasible: the active segments' weights (in [`active_ids`] order) and a cone point's offset.
    Optimal([f64; 2], Option<DVec3>),
    /// A constraint was released; for a cone point, the start moved off the axis.
    Released(Option<DVec3>),
    /// The constraints do not determine the multipliers.
    Degenerate,
}

/// The free directions at `u`.
enum Basis {
    /// None (two active segments or a cone point).
    Fixed,
    /// One: a great circle.
    Circle(DVec3),
    /// Two: the tangent plane.
    Sphere(DVec3, DVec3),
}

fn tangent_basis(u: DVec3, act: &Active, segments: &[Segment; MAX_SEGMENTS]) -> Basis {
    if act.cone.is_some() {
        return Basis::Fixed;
    }
    match act.mask.count_ones() {
        0 => {
            let (t1, t2) = u.any_orthonormal_pair();
            Basis::Sphere(t1, t2)
        }
        1 => {
            let k = act.mask.trailing_zeros() as usize;
            match u.cross(segments[k].dir).try_normalize() {
                Some(t) => Basis::Circle(t),
                None => Basis::Fixed,
            }
        }
        _ => Basis::Fixed,
    }
}

/// The indices of the (at most two) active segments, ascending.
fn active_ids(mask: u8) -> [usize; 2] {
    let first = mask.trailing_zeros() as usize;
    let rest = mask & !(1 << first.min(7));
    [first.min(MAX_SEGMENTS), if rest == 0 { MAX_SEGMENTS } else { rest.trailing_zeros() as usize }]
}

fn active_pair(mask: u8) -> (usize, usize) {
    let [i, j] = active_ids(mask);
    (i, j)
}

/// `v` with its component along the unit `e` removed, normalised (the point of a great circle on the kink).
fn project_out(v: DVec3, e: DVec3) -> DVec3 {
    (v - v.dot(e) * e).normalize_or(v)
}
