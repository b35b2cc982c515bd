//! The Signorini contact resolution (`reference-semantics.md` §C.1, G-W `contact_resolution="signorini"`): an
//! elliptic contact's normal row is a plain unilateral row, and its friction rows form blocks (the tangent pair,
//! the spin row, the rolling pair) each limited by a Coulomb disc whose radius follows the normal load already
//! developed, not the tangential demand.
//!
//! With the latched normal load `ℓ = max(−D₀ x₀, 0)` (evaluated at the current iterate and held fixed along the
//! line search), a block with residuals `y`, its rows' `D`, coefficient `μ_b` and radius `ρ = μ_b ℓ`, `τ = ‖y‖`:
//!
//! | zone | condition | cost | force | Hessian (residual space) |
//! |---|---|---|---|---|
//! | none | `ℓ = 0` | 0 | 0 | 0 |
//! | stick | `D τ ≤ ρ` | `½ D τ²` | `−D y` | `D I` |
//! | slip | `D τ > ρ` | `ρ (τ − ½ ρ / D)` | `−ρ y / τ` | `(ρ/τ)(I − y yᵀ/τ²)` |
//!
//! The cost is a Huber function of `τ`, continuous with its derivative at the zone boundary. Because `ℓ` moves
//! with the iterate, the Newton iteration is a fixed-point iteration on a sequence of convex problems; it stops when
//! both the gradient and the Newton decrement are below the tolerance (§C.5).

use signorini_constraints::{ConstraintRows, RowKind};

use crate::cost::{MAX_CONE_ROWS, RowState, row_cost_force, row_state};

/// The friction blocks of an elliptic contact with `n` rows, as `(offset from the normal row, length)`: the
/// tangent pair, then the spin row, then the rolling pair.
pub fn friction_blocks(n: usize) -> &'static [(usize, usize)] {
    match n {
        0 | 1 => &[],
        2 | 3 => &[(1, 2)],
        4 | 5 => &[(1, 2), (3, 1)],
        _ => &[(1, 2), (3, 1), (4, 2)],
    }
}

/// The latched normal load of the contact whose normal row is `start`, at normal residual `x0`.
#[inline]
pub fn latch(rows: &ConstraintRows, start: usize, x0: f64) -> f64 {
    (-rows.d[start] * x0).max(0.0)
}

/// Cost of the contact block (normal row at `start`, `n` rows) at residuals `x` with latched load `load`; writes
/// the rows' forces and states.
pub fn cost_force(
    rows: &ConstraintRows,
    start: usize,
    n: usize,
    load: f64,
    x: &[f64],
    force: &mut [f64],
    state: &mut [RowState],
) -> f64 {
    let d0 = rows.d[start];
    let mut cost = 0.0;
    if x[0] < 0.0 {
        cost += 0.5 * d0 * x[0] * x[0];
        force[0] = -d0 * x[0];
        state[0] = RowState::Quadratic;
    } else {
        force[0] = 0.0;
        state[0] = RowState::Inactive;
    }
    for &(off, len) in friction_blocks(n) {
        let r = off..off + len;
        let d = rows.d[start + off];
        let rho = rows.mu[start + off] * load;
        let tau = x[r.clone()].iter().map(|v| v * v).sum::<f64>().sqrt();
        if !(rho > 0.0) {
            force[r.clone()].fill(0.0);
            state[r].fill(RowState::Inactive);
        } else if d * tau <= rho {
            cost += 0.5 * d * tau * tau;
            for j in r.clone() {
                force[j] = -d * x[j];
            }
            state[r].fill(RowState::Quadratic);
        } else {
            cost += rho * (tau - 0.5 * rho / d);
            for j in r.clone() {
                force[j] = -rho * x[j] / tau;
            }
            state[r].fill(RowState::Slip);
        }
    }
    cost
}

/// The slip Hessian `(ρ/τ)(I − y yᵀ/τ²)` of the block of `len` rows at residuals `y` (row-major in a 6 × 6 array).
pub fn slip_hessian(rho: f64, y: &[f64]) -> [[f64; MAX_CONE_ROWS]; MAX_CONE_ROWS] {
    let tau2: f64 = y.iter().map(|v| v * v).sum();
    let tau = tau2.sqrt();
    let mut h = [[0.0; MAX_CONE_ROWS]; MAX_CONE_ROWS];
    for a in 0..y.len() {
        for b in 0..y.len() {
            let delta = if a == b { 1.0 } else { 0.0 };
            h[a][b] = rho / tau * (delta - y[a] * y[b] / tau2);
        }
    }
    h
}

/// One contact block along a search line `x(α) = x0 + α v`, with its latched load held fixed, gathered once per
/// direction (its rows' residuals `x0` and `v`, `D₀`, and per friction block `ρ = μ_b ℓ`, `D` and `‖v‖²`) so that the
/// line search's evaluations read it from one place.
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockLine {
    x0: [f64; MAX_CONE_ROWS],
    v: [f64; MAX_CONE_ROWS],
    d0: f64,
    /// `(offset, length)` of each friction block, then its `ρ`, `D` and `‖v‖²`.
    blocks: [(usize, usize); 3],
    rho: [f64; 3],
    d: [f64; 3],
    vv: [f64; 3],
    n_blocks: usize,
}

impl BlockLine {
    /// The block whose normal row is `start` (`n` rows, latched load `load`) at residuals `x0` and direction `v`.
    #[inline]
    pub fn new(rows: &ConstraintRows, start: usize, n: usize, load: f64, x0: &[f64], v: &[f64]) -> Self {
        let mut line = BlockLine { d0: rows.d[start], ..Default::default() };
        line.x0[..n].copy_from_slice(&x0[..n]);
        line.v[..n].copy_from_slice(&v[..n]);
        for (b, &(off, len)) in friction_blocks(n).iter().enumerate() {
            line.blocks[b] = (off, len);
            line.rho[b] = rows.mu[start + off] * load;
            line.d[b] = rows.d[start + off];
            line.vv[b] = v[off..off + len].iter().fold(0.0, |vv, v| vv + v * v);
            line.n_blocks = b + 1;
        }
        line
    }

    /// Cost, first and second derivative of the block at each of `alphas`, in one pass (each step's sums in the same
    /// order as alone, so the same bits as `at([α])`).
    #[inline]
    pub fn at<const K: usize>(&self, alphas: [f64; K]) -> [[f64; 3]; K] {
        let mut out = [[0.0; 3]; K];
        let (d0, v0) = (self.d0, self.v[0]);
        for (out, &alpha) in out.iter_mut().zip(&alphas) {
            let x = self.x0[0] + alpha * v0;
            if x < 0.0 {
                out[0] += 0.5 * d0 * x * x;
                out[1] += d0 * x * v0;
                out[2] += d0 * v0 * v0;
            }
        }
        for b in 0..self.n_blocks {
            let rho = self.rho[b];
            if !(rho > 0.0) {
                continue;
            }
            let (d, vv, (off, len)) = (self.d[b], self.vv[b], self.blocks[b]);
            let (x0, v) = (&self.x0[off..off + len], &self.v[off..off + len]);
            for (out, &alpha) in out.iter_mut().zip(&alphas) {
                let (mut tau2, mut yv) = (0.0, 0.0);
                for (&x, &v) in x0.iter().zip(v) {
                    let y = x + alpha * v;
                    tau2 += y * y;
                    yv += y * v;
                }
                let tau = tau2.sqrt();
                if d * tau <= rho {
                    out[0] += 0.5 * d * tau2;
                    out[1] += d * yv;
                    out[2] += d * vv;
                } else {
                    // τ' = yᵀv/τ, τ'' = (‖v‖² − τ'²)/τ.
                    let dt = yv / tau;
                    out[0] += rho * (tau - 0.5 * rho / d);
                    out[1] += rho * dt;
                    out[2] += rho * (vv - dt * dt) / tau;
                }
            }
        }
        out
    }
}

/// Each elliptic contact's latched normal load `ℓ` during one solve, and its last move. The loads are seeded at the
/// first iterate of the solve and then moved once per outer iteration toward the normal force at the iterate, by
/// the whole gap or by half of it when the gap changed sign without shrinking (G-W PR #3381, spec §C.1 and §H.5).
/// Data of the solve: cleared at its start, so nothing carries to the next solve.
#[derive(Debug, Clone, Default)]
pub(crate) struct Latch {
    /// `ℓ_c` of every contact `c` (indexed like `rows.contact_row_start`).
    load: Vec<f64>,
    /// The last move `target − ℓ_c` of every contact.
    gap: Vec<f64>,
}

impl Latch {
    /// Forgets the loads: the next [`Latch::advance_and_cost`] seeds them at its iterate.
    pub(crate) fn clear(&mut self) {
        self.load.clear();
    }

    /// The latched load `ℓ_c` of every contact.
    pub(crate) fn loads(&self) -> &[f64] {
        &self.load
    }

    /// Seeds (first call after [`Latch::clear`]) or moves every contact's latched load toward its normal force at
    /// the residuals `jar = J a − aref`, then writes every row's state and force at `jar` and returns `gauss` plus
    /// the rows' cost: Signorini blocks ([`cost_force`]) with their latched loads, other rows as in [`crate::cost`].
    pub(crate) fn advance_and_cost(
        &mut self,
        rows: &ConstraintRows,
        gauss: f64,
        jar: &[f64],
        state: &mut [RowState],
        force: &mut [f64],
    ) -> f64 {
        let seed = self.load.len() != rows.contact_row_start.len();
        if seed {
            self.load.clear();
            self.load.resize(rows.contact_row_start.len(), 0.0);
            self.gap.clear();
            self.gap.resize(rows.contact_row_start.len(), 0.0);
        }
        let mut cost = gauss;
        let mut i = 0;
        while i < rows.len() {
            if let (RowKind::ContactElliptic, Some(c)) = (rows.kind[i], rows.cone[i]) {
                let n = rows.contact_nrows[c];
                let target = latch(rows, i, jar[i]);
                if seed {
                    self.load[c] = target;
                } else {
                    let gap = target - self.load[c];
                    let previous = self.gap[c];
                    let oscillates = gap * previous < 0.0 && gap.abs() >= previous.abs();
                    self.load[c] = (self.load[c] + if oscillates { 0.5 * gap } else { gap }).max(0.0);
                    self.gap[c] = gap;
                }
                let load = self.load[c];
                let r = i..i + n;
                cost += cost_force(rows, i, n, load, &jar[r.clone()], &mut force[r.clone()], &mut state[r]);
                i += n;
                continue;
            }
            let s = row_state(rows, i, jar[i]);
            let (c, f) = row_cost_force(rows, i, s, jar[i]);
            state[i] = s;
            force[i] = f;
            cost += c;
            i += 1;
        }
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One contact (only `D` and `μ` matter here): normal row, tangent pair, spin row and rolling pair.
    fn rows() -> ConstraintRows {
        ConstraintRows {
            d: vec![100.0, 30.0, 30.0, 30.0, 30.0, 30.0],
            mu: vec![1.0, 0.7, 0.7, 0.05, 0.02, 0.02],
            ..ConstraintRows::new()
        }
    }

    #[test]
    fn line_derivatives_match_finite_differences_and_the_cost() {
        let rows = rows();
        let x0 = [-0.3, 0.002, -0.001, 0.03, 0.3, -0.2];
        let v = [0.1, 0.004, 0.003, -0.02, 0.1, 0.05];
        let load = latch(&rows, 0, x0[0]);
        for alpha in [0.0, 0.1, 0.4, 1.0, 2.5] {
            let line = BlockLine::new(&rows, 0, 6, load, &x0, &v);
            let h = 1e-6;
            let [p, pp, pm] = [alpha, alpha + h, alpha - h].map(|a| line.at([a])[0]);
            assert!((p[1] - (pp[0] - pm[0]) / (2.0 * h)).abs() < 1e-5 * (1.0 + p[1].abs()), "{alpha}: d1");
            assert!((p[2] - (pp[1] - pm[1]) / (2.0 * h)).abs() < 1e-4 * (1.0 + p[2].abs()), "{alpha}: d2");
            let x: Vec<f64> = x0.iter().zip(&v).map(|(a, b)| a + alpha * b).collect();
            let (mut f, mut s) = ([0.0; 6], [RowState::Inactive; 6]);
            let c = cost_force(&rows, 0, 6, load, &x, &mut f, &mut s);
            assert!((c - p[0]).abs() < 1e-12 * (1.0 + c.abs()));
        }
    }

    /// Three steps in one pass give each step's values bit for bit, across the stick and slip zones and the normal
    /// row's release (the refinement of the line search relies on it).
    #[test]
    fn three_steps_at_once_equal_three_single_evaluations() {
        let rows = rows();
        let x0 = [-0.3, 0.002, -0.001, 0.03, 0.3, -0.2];
        let v = [0.1, 0.004, 0.003, -0.02, 0.1, 0.05];
        let load = latch(&rows, 0, x0[0]);
        for alphas in [[0.0, 0.1, 0.4], [1.0, 2.5, 3.5], [-1.0, 0.05, 10.0]] {
            let line = BlockLine::new(&rows, 0, 6, load, &x0, &v);
            let at = line.at(alphas);
            for (k, alpha) in alphas.into_iter().enumerate() {
                let one = line.at([alpha])[0];
                assert_eq!(at[k].map(f64::to_bits), one.map(f64::to_bits), "α = {alpha}");
            }
        }
    }

    #[test]
    fn forces_are_the_negative_cost_gradient_and_bounded_by_the_disc() {
        let rows = rows();
        let x = [-0.3, 1.0, -0.5, 0.5, 0.003, -0.002];
        let load = latch(&rows, 0, x[0]);
        let (mut f, mut s) = ([0.0; 6], [RowState::Inactive; 6]);
        let c = cost_force(&rows, 0, 6, load, &x, &mut f, &mut s);
        for j in 0..6 {
            let mut xp = x;
            xp[j] += 1e-7;
            let (mut g, mut t) = ([0.0; 6], [RowState::Inactive; 6]);
            let cp = cost_force(&rows, 0, 6, load, &xp, &mut g, &mut t);
            assert!((-(cp - c) / 1e-7 - f[j]).abs() < 1e-4 * (1.0 + f[j].abs()), "row {j}");
        }
        assert_eq!(s[1], RowState::Slip, "the tangent block slides");
        assert_eq!(s[3], RowState::Slip, "the spin row slides");
        assert_eq!(s[4], RowState::Quadratic, "the rolling block sticks");
        let ft = (f[1] * f[1] + f[2] * f[2]).sqrt();
        assert!((ft - 0.7 * load).abs() < 1e-12 * load, "sliding friction is μ times the latched load");
        assert!((f[3].abs() - 0.05 * load).abs() < 1e-12 * load);
    }

    #[test]
    fn slip_hessian_matches_the_force_derivative() {
        let y = [0.3, -0.4];
        let rho = 2.0;
        let h = slip_hessian(rho, &y);
        // λ = −ρ y/τ: ∂(−λ)/∂y = H.
        for b in 0..2 {
            let mut yp = y;
            yp[b] += 1e-7;
            let tau = |y: &[f64; 2]| (y[0] * y[0] + y[1] * y[1]).sqrt();
            for a in 0..2 {
                let fd = (rho * yp[a] / tau(&yp) - rho * y[a] / tau(&y)) / 1e-7;
                assert!((fd - h[a][b]).abs() < 1e-5, "{a} {b}");
            }
        }
    }
}
