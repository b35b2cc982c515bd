//! The per-row costs of `reference-semantics.md` §C.1 and the total primal cost of §C.0.
//!
//! A row with residual `x = J_i a − aref_i` is in one of four states; in each the cost is a quadratic in `x`:
//!
//! | state | cost `s(x)` | force `λ = −s'(x)` |
//! |---|---|---|
//! | [`RowState::Quadratic`] (active) | `½ D x²` | `−D x` |
//! | [`RowState::Inactive`] | 0 | 0 |
//! | [`RowState::LinearPos`] (friction loss, `x ≥ R f`) | `f x − ½ R f²` | `−f` |
//! | [`RowState::LinearNeg`] (friction loss, `x ≤ −R f`) | `−f x − ½ R f²` | `+f` |
//!
//! Elliptic contact rows are evaluated per contact block (normal row first, then the friction rows) with the
//! three-zone cost of §C.1: top (separating, no cost), bottom (every row quadratic: [`RowState::Quadratic`]) and
//! middle (sliding on the cone surface, `½ D_m (N − μT)²`: [`RowState::Cone`] on every row of the block). The cost
//! is continuous (and convex) across the zones when the friction rows' `D_j = D_0 μ_j² / μ²`, which is how the
//! assembler builds them (§B.9, MuJoCo's `R` of the elliptic friction dimensions).

use signorini_constraints::{ConstraintRows, RowKind};
use signorini_model::{Data, Model};

/// The state of a row at a residual.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowState {
    /// `½ D x²`: contributes `D JᵢᵀJᵢ` to the Newton Hessian.
    Quadratic,
    /// No cost, no force.
    Inactive,
    /// Friction loss saturated at `−f` (`x ≥ R f`).
    LinearPos,
    /// Friction loss saturated at `+f` (`x ≤ −R f`).
    LinearNeg,
    /// A row of an elliptic contact in the middle zone: the block contributes `J_cᵀ H^c J_c` to the Hessian.
    Cone,
    /// A row of a Signorini friction block that slides (see [`crate::signorini`]): the block contributes
    /// `J_bᵀ H^s J_b` to the Hessian.
    Slip,
}

/// The largest elliptic contact block (normal, 2 tangents, spin, 2 rolling).
pub const MAX_CONE_ROWS: usize = 6;

/// The zone of an elliptic contact block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConeZone {
    /// Separating: no cost, no force.
    Top,
    /// Inside the cone: every row quadratic.
    Bottom,
    /// On the cone surface: `½ D_m (N − μT)²`.
    Middle,
}

/// The data of one elliptic contact block: `n` rows from `start`, cone coefficient `mu`, the per-row friction
/// coefficients `mu_j` (index 0 unused) and `D_m = D_0 / (μ²(1 + μ²))`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConeBlock {
    /// First row.
    pub start: usize,
    /// Number of rows (≤ [`MAX_CONE_ROWS`]).
    pub n: usize,
    /// The regularised cone coefficient (`contact_mu`).
    pub mu: f64,
    /// Per-row coefficients: `[μ, μ_1, …]`.
    pub scale: [f64; MAX_CONE_ROWS],
    /// `D_m`.
    pub dm: f64,
}

impl ConeBlock {
    /// The block of the elliptic contact whose normal row is `start` (validated by the solver beforehand).
    #[inline]
    pub fn new(rows: &ConstraintRows, start: usize) -> Self {
        let c = rows.cone[start].unwrap_or(0);
        let n = rows.contact_nrows[c];
        let mu = rows.contact_mu[c];
        let mut scale = [0.0; MAX_CONE_ROWS];
        scale[0] = mu;
        scale[1..n].copy_from_slice(&rows.mu[start + 1..start + n]);
        Self { start, n, mu, scale, dm: rows.d[start] / (mu * mu * (1.0 + mu * mu)) }
    }

    /// `(N, T, U)` for the residuals `x` of the block.
    #[inline]
    fn nt(&self, x: &[f64]) -> (f64, f64, [f64; MAX_CONE_ROWS]) {
        let mut u = [0.0; MAX_CONE_ROWS];
        for j in 0..self.n {
            u[j] = self.scale[j] * x[j];
        }
        let t = u[1..self.n].iter().map(|v| v * v).sum::<f64>().sqrt();
        (u[0], t, u)
    }

    /// The zone at residuals `x` (MuJoCo `mj_constraintUpdate_impl`).
    #[inline]
    pub fn zone(&self, x: &[f64]) -> ConeZone {
        let (n, t, _) = self.nt(x);
        let mu = self.mu;
        if n >= mu * t || (t <= 0.0 && n >= 0.0) {
            ConeZone::Top
        } else if mu * n + t <= 0.0 || (t <= 0.0 && n < 0.0) {
            ConeZone::Bottom
        } else {
            ConeZone::Middle
        }
    }

    /// Cost of the block at `x`; writes the forces into `force[..n]` and returns the zone.
    #[inline]
    pub fn cost_force(&self, rows: &ConstraintRows, x: &[f64], force: &mut [f64]) -> (ConeZone, f64) {
        let zone = self.zone(x);
        match zone {
            ConeZone::Top => {
                force[..self.n].fill(0.0);
                (zone, 0.0)
            }
            ConeZone::Bottom => {
                let mut cost = 0.0;
                for j in 0..self.n {
                    let d = rows.d[self.start + j];
                    cost += 0.5 * d * x[j] * x[j];
                    force[j] = -d * x[j];
                }
                (zone, cost)
            }
            ConeZone::Middle => {
                let (n, t, u) = self.nt(x);
                let nmt = n - self.mu * t;
                let f0 = -self.dm * nmt * self.mu;
                force[0] = f0;
                for j in 1..self.n {
                    force[j] = -f0 / t * u[j] * self.scale[j];
                }
                (zone, 0.5 * self.dm * nmt * nmt)
            }
        }
    }

    /// The middle-zone Hessian `H^c` in residual space (row-major `n × n` in a 6 × 6 array).
    pub fn hessian(&self, x: &[f64]) -> [[f64; MAX_CONE_ROWS]; MAX_CONE_ROWS] {
        let (n, t, u) = self.nt(x);
        let mu = self.mu;
        let mut h = [[0.0; MAX_CONE_ROWS]; MAX_CONE_ROWS];
        h[0][0] = 1.0;
        for j in 1..self.n {
            h[0][j] = -mu / t * u[j];
            h[j][0] = h[0][j];
            for k in 1..self.n {
                h[j][k] = mu * n / (t * t * t) * u[j] * u[k];
            }
            h[j][j] += mu * mu - mu * n / t;
        }
        for (a, row) in h.iter_mut().enumerate().take(self.n) {
            for (b, v) in row.iter_mut().enumerate().take(self.n) {
                *v *= self.dm * self.scale[a] * self.scale[b];
            }
        }
        h
    }
}

/// An elliptic block along a search direction `x(α) = x₀ + α v`, prepared once per line search (MuJoCo's
/// `CGprepare`): with `u = (μ, μ₁, …) ∘ x`, the normal part `N(α) = N₀ + α N₁`, the tangential norm
/// `T(α)² = UU + α (2 UV + α VV)`, the bottom-zone quadratic (the sum of the rows' own `[½ D x₀², D x₀ v, ½ D v²]`)
/// and `D_m`. [`ConeLine::at`] then evaluates a point in O(1) (MuJoCo's `CGeval`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConeLine {
    /// Rows of the block.
    pub rows: usize,
    mu: f64,
    dm: f64,
    n0: f64,
    n1: f64,
    uu: f64,
    uv: f64,
    vv: f64,
    bottom: [f64; 3],
}

impl ConeLine {
    /// The line data of `block` at residuals `x0`, direction `v` and row quadratics `quad` (each `block.n` long).
    pub fn new(block: &ConeBlock, x0: &[f64], v: &[f64], quad: &[[f64; 3]]) -> Self {
        let (mut uu, mut uv, mut vv) = (0.0, 0.0, 0.0);
        for ((&s, &x), &v) in block.scale[1..block.n].iter().zip(&x0[1..]).zip(&v[1..]) {
            let (u, w) = (s * x, s * v);
            uu += u * u;
            uv += u * w;
            vv += w * w;
        }
        let mut bottom = [0.0; 3];
        for q in &quad[..block.n] {
            for (b, q) in bottom.iter_mut().zip(q) {
                *b += q;
            }
        }
        Self {
            rows: block.n,
            mu: block.mu,
            dm: block.dm,
            n0: block.mu * x0[0],
            n1: block.mu * v[0],
            uu,
            uv,
            vv,
            bottom,
        }
    }

    /// Cost, first and second derivative of the block at `alpha`, by zone: top (no cost), bottom (the rows'
    /// quadratics) or middle (`½ D_m (N − μT)²`).
    pub fn at(&self, alpha: f64) -> [f64; 3] {
        let n = self.n0 + alpha * self.n1;
        let tsqr = self.uu + alpha * (2.0 * self.uv + alpha * self.vv);
        let q = &self.bottom;
        let bottom = [q[0] + alpha * (q[1] + alpha * q[2]), q[1] + 2.0 * alpha * q[2], 2.0 * q[2]];
        if tsqr <= 0.0 {
            return if n < 0.0 { bottom } else { [0.0; 3] };
        }
        let t = tsqr.sqrt();
        if n >= self.mu * t {
            return [0.0; 3];
        }
        if self.mu * n + t <= 0.0 {
            return bottom;
        }
        let t1 = (self.uv + alpha * self.vv) / t;
        let t2 = self.vv / t - (self.uv + alpha * self.vv) * t1 / (t * t);
        let nmt = n - self.mu * t;
        let dnmt = self.n1 - self.mu * t1;
        [0.5 * self.dm * nmt * nmt, self.dm * nmt * dnmt, self.dm * (dnmt * dnmt - nmt * self.mu * t2)]
    }
}

/// The state of row `i` of `rows` at residual `x`.
#[inline]
pub fn row_state(rows: &ConstraintRows, i: usize, x: f64) -> RowState {
    match rows.kind[i] {
        RowKind::EqualityConnect
        | RowKind::EqualityWeld
        | RowKind::EqualityJoint
        | RowKind::EqualityTendon => RowState::Quadratic,
        RowKind::FrictionLoss | RowKind::FrictionTendon => {
            let bound = rows.r[i] * rows.frictionloss[i];
            if x >= bound {
                RowState::LinearPos
            } else if x <= -bound {
                RowState::LinearNeg
            } else {
                RowState::Quadratic
            }
        }
        // Limits and one-sided contact rows (elliptic rows are evaluated per block by [`ConeBlock`]).
        RowKind::LimitJoint
        | RowKind::LimitTendon
        | RowKind::ContactPyramidal
        | RowKind::ContactFrictionless
        | RowKind::ContactElliptic => {
            if x < 0.0 {
                RowState::Quadratic
            } else {
                RowState::Inactive
            }
        }
    }
}

/// The coefficients `(c0, c1, c2)` of row `i`'s cost along a line, `s(x0 + α v) = c0 + c1 α + c2 α²`, in `state`.
#[inline]
pub fn row_coefficients(rows: &ConstraintRows, i: usize, state: RowState, x0: f64, v: f64) -> [f64; 3] {
    match state {
        RowState::Quadratic => {
            let d = rows.d[i];
            [0.5 * d * x0 * x0, d * x0 * v, 0.5 * d * v * v]
        }
        RowState::Inactive | RowState::Cone | RowState::Slip => [0.0; 3],
        RowState::LinearPos | RowState::LinearNeg => {
            let f = rows.frictionloss[i];
            let sign = if state == RowState::LinearPos { 1.0 } else { -1.0 };
            [sign * f * x0 - 0.5 * rows.r[i] * f * f, sign * f * v, 0.0]
        }
    }
}

/// Cost and force of row `i` at residual `x` in `state`.
#[inline]
pub fn row_cost_force(rows: &ConstraintRows, i: usize, state: RowState, x: f64) -> (f64, f64) {
    match state {
        RowState::Quadratic => {
            let d = rows.d[i];
            (0.5 * d * x * x, -d * x)
        }
        RowState::Inactive | RowState::Cone | RowState::Slip => (0.0, 0.0),
        RowState::LinearPos => {
            let f = rows.frictionloss[i];
            (f * x - 0.5 * rows.r[i] * f * f, -f)
        }
        RowState::LinearNeg => {
            let f = rows.frictionloss[i];
            (-f * x - 0.5 * rows.r[i] * f * f, f)
        }
    }
}

/// [`update_rows`] for rows that are all one-sided (limits, pyramidal and frictionless contacts): quadratic
/// below zero, in one pass without per-row dispatch (the same sums in the same order).
pub fn update_one_sided_rows(d: &[f64], jar: &[f64], state: &mut [RowState], force: &mut [f64]) -> f64 {
    let mut cost = 0.0;
    for (((&x, &d), s), f) in jar.iter().zip(d).zip(state.iter_mut()).zip(force.iter_mut()) {
        let active = x < 0.0;
        cost += if active { 0.5 * d * x * x } else { 0.0 };
        *f = if active { -d * x } else { 0.0 };
        *s = if active { RowState::Quadratic } else { RowState::Inactive };
    }
    cost
}

/// Updates the states and forces of every row from the residuals `jar` and returns the constraint cost
/// `Σ_i s_i(jar_i)` (elliptic contacts per block).
pub fn update_rows(rows: &ConstraintRows, jar: &[f64], state: &mut [RowState], force: &mut [f64]) -> f64 {
    let mut cost = 0.0;
    let mut i = 0;
    while i < rows.len() {
        if rows.kind[i] == RowKind::ContactElliptic {
            let block = ConeBlock::new(rows, i);
            let range = i..i + block.n;
            let (zone, c) = block.cost_force(rows, &jar[range.clone()], &mut force[range.clone()]);
            state[range].fill(match zone {
                ConeZone::Top => RowState::Inactive,
                ConeZone::Bottom => RowState::Quadratic,
                ConeZone::Middle => RowState::Cone,
            });
            cost += c;
            i += block.n;
            continue;
        }
        let x = jar[i];
        if rows.kind[i].is_one_sided() {
            // One-sided rows, the common case: quadratic below zero.
            if x < 0.0 {
                let d = rows.d[i];
                cost += 0.5 * d * x * x;
                force[i] = -d * x;
                state[i] = RowState::Quadratic;
            } else {
                force[i] = 0.0;
                state[i] = RowState::Inactive;
            }
            i += 1;
            continue;
        }
        let s = row_state(rows, i, x);
        let (c, f) = row_cost_force(rows, i, s, x);
        state[i] = s;
        force[i] = f;
        cost += c;
        i += 1;
    }
    cost
}

/// The Gauss term `½ (Ma − f_s)·(a − a_s)` (equal to `½ (a − a_s)ᵀ M (a − a_s)` because `M a_s = f_s`).
pub fn gauss_cost(ma: &[f64], a: &[f64], fs: &[f64], a_s: &[f64]) -> f64 {
    0.5 * crate::reduce::dot_of_differences(ma, fs, a, a_s)
}

/// The total primal cost `C(qacc)` of §C.0 for the rows. Allocates; for warm-start decisions, tests and
/// diagnostics.
pub fn total_cost(model: &Model, data: &Data, rows: &ConstraintRows, qacc: &[f64]) -> f64 {
    let mut ma = vec![0.0; model.nv];
    model.mul_m(data, qacc, &mut ma);
    let jar: Vec<f64> = (0..rows.len()).map(|i| rows.row_dot(i, qacc) - rows.aref[i]).collect();
    let mut state = vec![RowState::Inactive; rows.len()];
    let mut force = vec![0.0; rows.len()];
    gauss_cost(&ma, qacc, &data.qfrc_smooth, &data.qacc_smooth)
        + update_rows(rows, &jar, &mut state, &mut force)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_rows(mu: f64, mus: &[f64], d: &[f64]) -> ConstraintRows {
        let n = d.len();
        let mut rows = ConstraintRows::new();
        for (j, &dj) in d.iter().enumerate() {
            rows.kind.push(RowKind::ContactElliptic);
            rows.d.push(dj);
            rows.r.push(1.0 / dj);
            rows.cone.push(Some(0));
            rows.mu.push(if j == 0 { mu } else { mus[j - 1] });
        }
        rows.contact_row_start.push(0);
        rows.contact_nrows.push(n);
        rows.contact_mu.push(mu);
        rows
    }

    /// The line of a cone block ([`ConeLine`]) matches the block's cost ([`ConeBlock::cost_force`]) and finite
    /// differences in every zone, and its second derivative matches the Hessian.
    #[test]
    fn cone_line_derivatives_match_finite_differences() {
        let rows = block_rows(0.7, &[0.7, 0.7, 0.1], &[20.0, 300.0, 300.0, 40.0]);
        let block = ConeBlock::new(&rows, 0);
        let mut seen = [false; 3];
        let mut state: u64 = 12345;
        let mut rnd = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for _ in 0..300 {
            let x0: Vec<f64> = (0..4).map(|_| 3.0 * rnd()).collect();
            let v: Vec<f64> = (0..4).map(|_| rnd()).collect();
            let alpha = rnd();
            let h = 1e-6;
            let quad: Vec<[f64; 3]> = (0..4)
                .map(|j| {
                    let d = rows.d[j];
                    [0.5 * d * x0[j] * x0[j], d * x0[j] * v[j], 0.5 * d * v[j] * v[j]]
                })
                .collect();
            let line = ConeLine::new(&block, &x0, &v, &quad);
            let at = |a: f64| line.at(a);
            let c = at(alpha);
            let x: Vec<f64> = (0..4).map(|j| x0[j] + alpha * v[j]).collect();
            let zone = block.zone(&x);
            seen[zone as usize] = true;
            let (cp, cm) = (at(alpha + h), at(alpha - h));
            if block.zone(&x.iter().zip(&v).map(|(a, b)| a + h * b).collect::<Vec<_>>()) != zone
                || block.zone(&x.iter().zip(&v).map(|(a, b)| a - h * b).collect::<Vec<_>>()) != zone
            {
                continue;
            }
            let tol = |a: f64| 1e-5 * (1.0 + a.abs());
            assert!((c[1] - (cp[0] - cm[0]) / (2.0 * h)).abs() < tol(c[1]), "{zone:?} d1 {c:?}");
            assert!((c[2] - (cp[1] - cm[1]) / (2.0 * h)).abs() < tol(c[2]), "{zone:?} d2 {c:?}");
            let mut f = [0.0; MAX_CONE_ROWS];
            let (_, cost) = block.cost_force(&rows, &x, &mut f);
            assert!((cost - c[0]).abs() < 1e-12 * (1.0 + cost.abs()));
            if zone == ConeZone::Middle {
                // vᵀ H^c v = c''.
                let hc = block.hessian(&x);
                let q: f64 = (0..4).map(|a| (0..4).map(|b| v[a] * hc[a][b] * v[b]).sum::<f64>()).sum();
                assert!((q - c[2]).abs() < 1e-9 * (1.0 + q.abs()), "{q} vs {}", c[2]);
            }
        }
        assert!(seen.iter().all(|&s| s), "{seen:?}");
    }
}
