//! MuJoCo's projected Gauss–Seidel solver (`solver="PGS"`, MuJoCo 4.0's `mj_solPGS`): the dual problem
//!
//! `min_f ½ fᵀ A f + fᵀ b`, `A = J M⁻¹ Jᵀ + diag(R)`, `b = J a_s − aref`,
//!
//! with equality forces free, friction-loss forces in `[−floss, floss]`, limit, frictionless and pyramid-edge forces
//! `≥ 0`, and each elliptic contact's forces in its cone `Σ_j (f_j/μ_j)² ≤ f_n²`, `f_n ≥ 0`. Then
//! `qacc = a_s + M⁻¹ Jᵀ f`.
//!
//! - **Warm start**: the primal forces at the incoming `qacc` (the previous step's), `f(J qacc − aref)` as the
//!   primal solvers cost them; dropped (all zero) when their dual cost is positive, or with [`crate::WarmStart::Smooth`].
//! - **Order**: rows in MuJoCo's order (equalities, friction loss, limits, contacts), per island (§C.6) or all at
//!   once. Each sweep visits the blocks (a row, or an elliptic contact) in an order shuffled by a PCG32 stream that
//!   restarts at every solve and every island, accumulating over the sweeps.
//! - **Updates**: a scalar row moves to its clamped minimum `f −= res/A_ii`. An elliptic contact first moves its
//!   normal (when its force is zero) or scales the whole block along its own ray, then solves its friction exactly
//!   with the normal fixed (a small QCQP on the cone, `mju_QCQP2/3/n`). An update that raises the dual cost by more
//!   than 1e-10 is undone.
//! - **Momentum**: Nesterov extrapolation `f += β (f − f_prev)`, `β = (k − 1)/(k + 2)`, projected onto the bounds,
//!   restarted (`k = 0`) when the sweep moved against the momentum.
//! - **Termination**: after `iterations` sweeps, or when the sweep's improvement (the dual cost decrease) times
//!   `1/Σ_island M_dd` (per island, current `M`) or `1/(meaninertia · max(1, nv))` (whole system) is below
//!   `tolerance`.

use signorini_constraints::{ConstraintRows, RowKind};
use signorini_model::{Data, Model};

use crate::cost::{RowState, update_rows};
use crate::islands::Islands;
use crate::{ConstraintSolver, SolveStats, SolverData, SolverError, SolverOptions};

/// MuJoCo's `mjMINVAL`.
const MINVAL: f64 = 1e-15;

/// An update that raises the dual cost by more than this is undone (MuJoCo `costChange`).
const COST_RISE: f64 = 1e-10;

/// MuJoCo's PGS (see the module docs): configuration only.
#[derive(Debug, Clone, Copy, Default)]
pub struct PgsSolver {
    islands: bool,
}

impl PgsSolver {
    /// PGS over the whole system.
    pub fn new() -> Self {
        Self { islands: false }
    }

    /// PGS on every island on its own (MuJoCo's default).
    pub fn with_islands() -> Self {
        Self { islands: true }
    }
}

/// The work arrays of PGS (data, carried in [`SolverData`]; rewritten before they are read).
#[derive(Debug, Clone, Default)]
pub(crate) struct PgsWork {
    /// `M⁻¹ J_iᵀ` of every row, `nv` each.
    minv_jt: Vec<f64>,
    /// `A`, dense, `n × n`.
    a: Vec<f64>,
    b: Vec<f64>,
    jar: Vec<f64>,
    state: Vec<RowState>,
    islands: Islands,
    /// One solve's list of rows (MuJoCo order), its blocks, and the previous and extrapolated forces.
    list: Vec<usize>,
    blocks: Vec<usize>,
    f_prev: Vec<f64>,
    f_mom: Vec<f64>,
    dense: Vec<f64>,
}

/// MuJoCo's row classes, in its row order.
fn class(kind: RowKind) -> u8 {
    match kind {
        k if k.is_equality() => 0,
        RowKind::FrictionLoss | RowKind::FrictionTendon => 1,
        RowKind::LimitJoint | RowKind::LimitTendon => 2,
        _ => 3,
    }
}

/// PCG32 with MuJoCo's fixed seed (state 0, increment 1, one advance).
struct Pcg32(u64);

impl Pcg32 {
    fn new() -> Self {
        let mut rng = Pcg32(0);
        rng.next();
        rng
    }

    fn next(&mut self) -> u32 {
        let old = self.0;
        self.0 = old.wrapping_mul(6364136223846793005).wrapping_add(1);
        let x = (((old >> 18) ^ old) >> 27) as u32;
        x.rotate_right((old >> 59) as u32)
    }

    /// Fisher–Yates in place.
    fn shuffle(&mut self, a: &mut [usize]) {
        for i in (1..a.len()).rev() {
            let j = self.next() as usize % (i + 1);
            a.swap(i, j);
        }
    }
}

impl ConstraintSolver for PgsSolver {
    fn solve(
        &self,
        model: &Model,
        data: &Data,
        rows: &ConstraintRows,
        options: &SolverOptions,
        work: &mut SolverData,
        qacc: &mut Vec<f64>,
        efc_force: &mut Vec<f64>,
    ) -> Result<SolveStats, SolverError> {
        crate::validate::check_inputs(model, data, rows)?;
        let (n, nv) = (rows.len(), model.nv);
        let warm = qacc.len() == nv
            && qacc.iter().all(|v| v.is_finite())
            && options.warm_start != crate::WarmStart::Smooth;
        let incoming = std::mem::take(qacc);
        qacc.clear();
        qacc.extend_from_slice(&data.qacc_smooth);
        efc_force.clear();
        efc_force.resize(n, 0.0);
        if n == 0 {
            return Ok(SolveStats::default());
        }
        let w = &mut work.pgs;
        build_dual(model, data, rows, w);

        // Warm start: the primal forces at the incoming acceleration, unless their dual cost is positive.
        if warm {
            w.jar.clear();
            w.jar.resize(n, 0.0);
            for (i, x) in w.jar.iter_mut().enumerate() {
                let (dofs, vals) = rows.jacobian_row(i);
                *x =
                    dofs.iter().zip(vals).map(|(&d, v)| v * incoming[d as usize]).sum::<f64>() - rows.aref[i];
            }
            w.state.clear();
            w.state.resize(n, RowState::Inactive);
            update_rows(rows, &w.jar, &mut w.state, efc_force);
            let mut cost = 0.0;
            for i in 0..n {
                let af: f64 = (0..n).map(|j| w.a[i * n + j] * efc_force[j]).sum();
                cost += efc_force[i] * (w.b[i] + 0.5 * af);
            }
            if cost > 0.0 {
                efc_force.fill(0.0);
            }
        }

        let mut stats = SolveStats { converged: true, ..SolveStats::default() };
        let mut sweeps = 0;
        if self.islands {
            w.islands.build(model, rows);
            for k in 0..w.islands.count() {
                let trace: f64 = w.islands.dofs(k).iter().map(|&d| data.qm[model.dof_madr[d]]).sum();
                let mut list = std::mem::take(&mut w.list);
                list.clear();
                list.extend_from_slice(w.islands.rows(k));
                list.sort_by_key(|&i| (class(rows.kind[i]), i));
                let (it, converged) =
                    sweep_island(rows, w, &list, 1.0 / trace.max(MINVAL), options, efc_force);
                w.list = list;
                sweeps += it;
                stats.converged &= converged;
                stats.islands += 1;
            }
        } else {
            let mut list = std::mem::take(&mut w.list);
            list.clear();
            list.extend(0..n);
            list.sort_by_key(|&i| (class(rows.kind[i]), i));
            let scale = 1.0 / (model.meaninertia * nv.max(1) as f64);
            let (it, converged) = sweep_island(rows, w, &list, scale, options, efc_force);
            w.list = list;
            sweeps = it;
            stats.converged = converged;
            stats.islands = 1;
        }
        stats.iterations = sweeps;

        // qacc = a_s + M⁻¹ Jᵀ f.
        w.dense.clear();
        w.dense.resize(nv, 0.0);
        for (i, &f) in efc_force.iter().enumerate() {
            if f != 0.0 {
                for (q, m) in w.dense.iter_mut().zip(&w.minv_jt[i * nv..(i + 1) * nv]) {
                    *q += m * f;
                }
            }
        }
        for (a, d) in qacc.iter_mut().zip(&w.dense) {
            *a += d;
        }
        if !qacc.iter().chain(efc_force.iter()).all(|v| v.is_finite()) {
            return Err(SolverError::NonFinite { cost: f64::NAN });
        }
        Ok(stats)
    }
}

/// `M⁻¹ J_iᵀ`, the dense `A = J M⁻¹ Jᵀ + diag(R)` and `b = J a_s − aref`.
fn build_dual(model: &Model, data: &Data, rows: &ConstraintRows, w: &mut PgsWork) {
    let (n, nv) = (rows.len(), model.nv);
    w.minv_jt.clear();
    w.minv_jt.resize(n * nv, 0.0);
    for i in 0..n {
        let x = &mut w.minv_jt[i * nv..(i + 1) * nv];
        let (dofs, vals) = rows.jacobian_row(i);
        for (&d, &v) in dofs.iter().zip(vals) {
            x[d as usize] += v;
        }
        model.solve_m(data, x);
    }
    w.a.clear();
    w.a.resize(n * n, 0.0);
    w.b.clear();
    for j in 0..n {
        let (dofs, vals) = rows.jacobian_row(j);
        for i in 0..n {
            let x = &w.minv_jt[i * nv..(i + 1) * nv];
            w.a[i * n + j] = dofs.iter().zip(vals).map(|(&d, v)| v * x[d as usize]).sum();
        }
        w.a[j * n + j] += rows.r[j];
        w.b.push(
            dofs.iter().zip(vals).map(|(&d, v)| v * data.qacc_smooth[d as usize]).sum::<f64>() - rows.aref[j],
        );
    }
}

/// The size of the block whose first row is `i`.
fn block_size(rows: &ConstraintRows, i: usize) -> usize {
    if rows.kind[i] == RowKind::ContactElliptic { rows.contact_nrows[rows.cone[i].unwrap_or(0)] } else { 1 }
}

/// The friction coefficients `μ_j` of the elliptic block at `i` (`dim − 1` of them).
fn cone_coefficients(rows: &ConstraintRows, i: usize, dim: usize) -> &[f64] {
    &rows.mu[i + 1..i + dim]
}

/// Projects the friction `ft` onto the ellipse of radius `fnorm`: always when `!feasible`, else only when outside.
fn project_ellipse(ft: &mut [f64], fnorm: f64, mu: &[f64], feasible: bool) {
    let s: f64 = ft.iter().zip(mu).map(|(f, m)| f * f / (m * m)).sum();
    if !feasible || s > fnorm * fnorm {
        let k = (fnorm * fnorm / s.max(MINVAL)).sqrt();
        ft.iter_mut().for_each(|f| *f *= k);
    }
}

/// The sweeps of one list of rows (MuJoCo order); returns the number of sweeps and whether the improvement test
/// stopped them.
fn sweep_island(
    rows: &ConstraintRows,
    w: &mut PgsWork,
    list: &[usize],
    scale: f64,
    options: &SolverOptions,
    f: &mut [f64],
) -> (usize, bool) {
    let n = rows.len();
    let nlist = list.len();
    let is_eq = |i: usize| rows.kind[i].is_equality();
    let is_friction = |i: usize| matches!(rows.kind[i], RowKind::FrictionLoss | RowKind::FrictionTendon);
    w.blocks.clear();
    let mut c = 0;
    while c < nlist {
        w.blocks.push(c);
        c += block_size(rows, list[c]);
    }
    w.f_prev.clear();
    w.f_prev.extend(list.iter().map(|&i| f[i]));
    w.f_mom.clear();
    w.f_mom.resize(nlist, 0.0);
    let mut rng = Pcg32::new();
    let (mut iter, mut restarts) = (0, 0usize);
    let mut converged = false;
    while iter < options.iterations {
        // Nesterov extrapolation, projected onto the bounds.
        let beta = if iter > 0 { (restarts as f64 - 1.0) / (restarts as f64 + 2.0) } else { 0.0 };
        if beta > 0.0 {
            for (c, &i) in list.iter().enumerate() {
                let save = f[i];
                f[i] += beta * (f[i] - w.f_prev[c]);
                w.f_prev[c] = save;
            }
            let mut c = 0;
            while c < nlist {
                let i = list[c];
                let size = block_size(rows, i);
                if is_friction(i) {
                    let fl = rows.frictionloss[i];
                    f[i] = f[i].clamp(-fl, fl);
                } else if rows.kind[i] == RowKind::ContactElliptic {
                    if f[i] < 0.0 {
                        f[i..i + size].fill(0.0);
                    } else {
                        let fnorm = f[i];
                        project_ellipse(
                            &mut f[i + 1..i + size],
                            fnorm,
                            cone_coefficients(rows, i, size),
                            true,
                        );
                    }
                } else if !is_eq(i) && f[i] < 0.0 {
                    f[i] = 0.0;
                }
                c += size;
            }
        } else {
            for (c, &i) in list.iter().enumerate() {
                w.f_prev[c] = f[i];
            }
        }
        for (c, &i) in list.iter().enumerate() {
            w.f_mom[c] = f[i];
        }

        let mut improvement = 0.0;
        rng.shuffle(&mut w.blocks);
        for b in 0..w.blocks.len() {
            let i = list[w.blocks[b]];
            let size = block_size(rows, i);
            let mut res = [0.0; 6];
            for (k, r) in res[..size].iter_mut().enumerate() {
                let row = &w.a[(i + k) * n..(i + k + 1) * n];
                *r = w.b[i + k] + list.iter().map(|&j| row[j] * f[j]).sum::<f64>();
            }
            let mut old = [0.0; 6];
            old[..size].copy_from_slice(&f[i..i + size]);
            let aii = w.a[i * n + i];
            if size == 1 {
                f[i] -= res[0] / aii;
                if is_friction(i) {
                    let fl = rows.frictionloss[i];
                    f[i] = f[i].clamp(-fl, fl);
                } else if !is_eq(i) && f[i] < 0.0 {
                    f[i] = 0.0;
                }
            } else {
                elliptic_update(rows, &w.a, n, i, size, &res, &old, f);
            }
            // The dual cost change ½ δᵀAδ + δ·res; undone when it rises.
            let mut change = 0.0;
            for p in 0..size {
                let dp = f[i + p] - old[p];
                let adp: f64 = (0..size).map(|q| w.a[(i + p) * n + i + q] * (f[i + q] - old[q])).sum();
                change += dp * (0.5 * adp + res[p]);
            }
            if change > COST_RISE {
                f[i..i + size].copy_from_slice(&old[..size]);
                change = 0.0;
            }
            improvement -= change;
        }
        improvement *= scale;
        if iter > 0 {
            let dot: f64 =
                list.iter().enumerate().map(|(c, &i)| (f[i] - w.f_mom[c]) * (w.f_mom[c] - w.f_prev[c])).sum();
            restarts = if dot < 0.0 { 0 } else { restarts + 1 };
        } else {
            restarts += 1;
        }
        iter += 1;
        if improvement < options.tolerance {
            converged = true;
            break;
        }
    }
    (iter, converged)
}

/// One elliptic contact block at rows `i..i + dim`: a normal or ray step, then the friction with the normal fixed
/// (see the module docs).
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
fn elliptic_update(
    rows: &ConstraintRows,
    a: &[f64],
    n: usize,
    i: usize,
    dim: usize,
    res: &[f64; 6],
    old: &[f64; 6],
    f: &mut [f64],
) {
    let at = |p: usize, q: usize| a[(i + p) * n + i + q];
    if f[i] < MINVAL {
        f[i] -= res[0] / at(0, 0);
        if f[i] < 0.0 {
            f[i] = 0.0;
        }
        f[i + 1..i + dim].fill(0.0);
    } else {
        let mut v = [0.0; 6];
        v[..dim].copy_from_slice(&f[i..i + dim]);
        let denom: f64 = (0..dim).map(|p| v[p] * (0..dim).map(|q| at(p, q) * v[q]).sum::<f64>()).sum();
        if denom >= MINVAL {
            let mut x = -(0..dim).map(|p| v[p] * res[p]).sum::<f64>() / denom;
            if f[i] + x * v[0] < 0.0 {
                x = -v[0] / f[i];
            }
            for p in 0..dim {
                f[i + p] += x * v[p];
            }
        }
    }
    let fnorm = f[i];
    if fnorm < MINVAL {
        f[i + 1..i + dim].fill(0.0);
        return;
    }
    let m = dim - 1;
    let mut ac = [[0.0; 5]; 5];
    let mut bc = [0.0; 5];
    for p in 0..m {
        for q in 0..m {
            ac[p][q] = at(p + 1, q + 1);
        }
        bc[p] =
            res[p + 1] - (0..m).map(|q| ac[p][q] * old[q + 1]).sum::<f64>() + at(p + 1, 0) * (fnorm - old[0]);
    }
    let mu = cone_coefficients(rows, i, dim);
    let (mut x, active) = qcqp(&ac, &bc, mu, fnorm, m);
    if active {
        project_ellipse(&mut x[..m], fnorm, mu, false);
    }
    f[i + 1..i + dim].copy_from_slice(&x[..m]);
}

/// `min ½ xᵀAx + xᵀb` subject to `Σ (x_j/d_j)² ≤ r²` (MuJoCo `mju_QCQP2/3/n`): Newton on the multiplier `λ` of the
/// scaled problem, at most 20 steps; `(x, λ ≠ 0)`, or zero when `A + λI` is (nearly) singular.
#[allow(clippy::needless_range_loop)]
fn qcqp(a: &[[f64; 5]; 5], b: &[f64; 5], d: &[f64], r: f64, m: usize) -> ([f64; 5], bool) {
    let mut as_ = [[0.0; 5]; 5];
    let mut bs = [0.0; 5];
    for p in 0..m {
        bs[p] = b[p] * d[p];
        for q in 0..m {
            as_[p][q] = a[p][q] * d[p] * d[q];
        }
    }
    let mut lambda = 0.0;
    let mut y = [0.0; 5];
    for _ in 0..20 {
        let mut al = as_;
        for (p, row) in al.iter_mut().enumerate().take(m) {
            row[p] += lambda;
        }
        let Some(inv) = invert(&al, m) else { return ([0.0; 5], false) };
        for p in 0..m {
            y[p] = -(0..m).map(|q| inv[p][q] * bs[q]).sum::<f64>();
        }
        let val = (0..m).map(|p| y[p] * y[p]).sum::<f64>() - r * r;
        if val < 1e-10 {
            break;
        }
        let deriv = -2.0 * (0..m).map(|p| y[p] * (0..m).map(|q| inv[p][q] * y[q]).sum::<f64>()).sum::<f64>();
        let delta = -val / deriv;
        if delta < 1e-10 {
            break;
        }
        lambda += delta;
    }
    let mut x = [0.0; 5];
    for p in 0..m {
        x[p] = y[p] * d[p];
    }
    (x, lambda != 0.0)
}

/// The inverse of the symmetric `m × m` matrix `a` (m = 2, 3: by the adjugate, `None` when the determinant is below
/// 1e-10; m = 5: by Cholesky, `None` when a pivot is below 1e-10), as MuJoCo's QCQP routines decide singularity.
#[allow(clippy::needless_range_loop)]
fn invert(a: &[[f64; 5]; 5], m: usize) -> Option<[[f64; 5]; 5]> {
    let mut inv = [[0.0; 5]; 5];
    match m {
        2 => {
            let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
            if det < 1e-10 {
                return None;
            }
            inv[0][0] = a[1][1] / det;
            inv[1][1] = a[0][0] / det;
            inv[0][1] = -a[0][1] / det;
            inv[1][0] = -a[1][0] / det;
        }
        3 => {
            let c = |p: usize, q: usize| {
                let (r0, r1) = ((p + 1) % 3, (p + 2) % 3);
                let (c0, c1) = ((q + 1) % 3, (q + 2) % 3);
                a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0]
            };
            let det = a[0][0] * c(0, 0) + a[0][1] * c(0, 1) + a[0][2] * c(0, 2);
            if det < 1e-10 {
                return None;
            }
            for (p, row) in inv.iter_mut().enumerate().take(3) {
                for (q, v) in row.iter_mut().enumerate().take(3) {
                    *v = c(q, p) / det;
                }
            }
        }
        _ => {
            // Cholesky L Lᵀ, then the inverse column by column.
            let mut l = [[0.0; 5]; 5];
            for p in 0..m {
                for q in 0..=p {
                    let s = a[p][q] - (0..q).map(|k| l[p][k] * l[q][k]).sum::<f64>();
                    if p == q {
                        if s < 1e-10 {
                            return None;
                        }
                        l[p][p] = s.sqrt();
                    } else {
                        l[p][q] = s / l[q][q];
                    }
                }
            }
            for col in 0..m {
                let mut z = [0.0; 5];
                for p in 0..m {
                    let e = if p == col { 1.0 } else { 0.0 };
                    z[p] = (e - (0..p).map(|k| l[p][k] * z[k]).sum::<f64>()) / l[p][p];
                }
                for p in (0..m).rev() {
                    inv[p][col] = (z[p] - (p + 1..m).map(|k| l[k][p] * inv[k][col]).sum::<f64>()) / l[p][p];
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The QCQP's solution is the constrained minimum: inside the ellipse when the free minimum is, else on it with
    /// the gradient along the constraint's normal.
    #[test]
    fn qcqp_solves_the_ellipse_constrained_quadratic() {
        let a = [[2.0, 0.3, 0.0, 0.0, 0.0], [0.3, 1.0, 0.0, 0.0, 0.0], [0.0; 5], [0.0; 5], [0.0; 5]];
        let d = [1.0, 0.5];
        // Free minimum inside: x = −A⁻¹ b.
        let (x, active) = qcqp(&a, &[0.1, -0.05, 0.0, 0.0, 0.0], &d, 1.0, 2);
        assert!(!active);
        assert!((2.0 * x[0] + 0.3 * x[1] + 0.1).abs() < 1e-12 && (0.3 * x[0] + x[1] - 0.05).abs() < 1e-12);
        // Free minimum outside: on the ellipse.
        let (x, active) = qcqp(&a, &[5.0, -4.0, 0.0, 0.0, 0.0], &d, 1.0, 2);
        assert!(active);
        let s = (x[0] / d[0]).powi(2) + (x[1] / d[1]).powi(2);
        assert!((s - 1.0).abs() < 1e-6, "{s}");
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn the_inverses_agree() {
        let mut a = [[0.0; 5]; 5];
        for p in 0..5 {
            for q in 0..5 {
                a[p][q] = if p == q { 3.0 + p as f64 } else { 0.2 * (p + q) as f64 / 5.0 };
            }
        }
        for m in [2, 3, 5] {
            let inv = invert(&a, m).unwrap();
            for p in 0..m {
                for q in 0..m {
                    let e: f64 = (0..m).map(|k| a[p][k] * inv[k][q]).sum();
                    assert!((e - f64::from(u8::from(p == q))).abs() < 1e-12, "m {m} ({p}, {q}) {e}");
                }
            }
        }
    }

    /// MuJoCo's PCG32 stream and shuffle: the first outputs after its fixed seeding, and two accumulated shuffles
    /// of ten blocks (values from the reference generator of `scripts/mujoco_pgs_reference.py`).
    #[test]
    fn pcg32_is_mujocos_stream() {
        let mut rng = Pcg32::new();
        let first: Vec<u32> = (0..4).map(|_| rng.next()).collect();
        assert_eq!(first, [0, 3837872008, 932996374, 1548399547]);
        let mut rng = Pcg32::new();
        let mut blocks: Vec<usize> = (0..10).collect();
        rng.shuffle(&mut blocks);
        rng.shuffle(&mut blocks);
        assert_eq!(blocks, [1, 8, 6, 4, 7, 2, 3, 5, 0, 9]);
    }
}
