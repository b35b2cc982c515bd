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
//!   `1/Σ_island M_dd` (per island, current `M`; MuJoCo 4.0.1's rule, its published source scales by the whole
//!   system's) or `1/(meaninertia · max(1, nv))` (whole system) is below `tolerance`.
//! - **Arithmetic**: MuJoCo 4.0.1's on a model it keeps dense: `Y = J M^{-1/2}` by `mj_solveM2`, `AR` by
//!   `mju_sqrMatTD` (each entry summed over the dofs in order) plus `R`, `b` by `mj_mulJacVec`, each residual a
//!   `mju_dot` over the whole row of `AR`, a scalar step `f −= res · (1/AR_ii)`, the elliptic block's products by
//!   `mju_dot`, `mju_QCQP2`/`mju_QCQP3`/`mju_QCQP`, and `qacc = M⁻¹ (Jᵀ f) + a_s` (`dualFinish`, `Jᵀ f` row by
//!   row). On a model MuJoCo keeps sparse (60 dofs or more) a residual and the warm start's `AR f` sum a row's
//!   structural non-zeros (`mju_dotSparse`); `AR`'s entries are the same sums.

use signorini_constraints::mujoco_dot::mujoco_jac_row_dot;
use signorini_constraints::{ConstraintRows, RowKind};
use signorini_model::factor::mujoco_dot;
use signorini_model::{Data, Model};

use crate::cost::{RowState, update_rows};
use crate::dual::{DualProblem, mul_vec_mat_vec};
use crate::islands::Islands;
use crate::mujoco_newton::{chol_factor_min, chol_solve};
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

/// The work arrays of PGS (data, carried in [`SolverData`]; rewritten before they are read). Rows are held in
/// MuJoCo's order: position `c` is row `dual.perm[c]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct PgsWork {
    dual: DualProblem,
    /// `1 / AR_cc`.
    ar_inv: Vec<f64>,
    /// The forces in MuJoCo's order.
    force: Vec<f64>,
    jar: Vec<f64>,
    state: Vec<RowState>,
    islands: Islands,
    /// One solve's list of positions (increasing), its blocks, and the previous and extrapolated forces.
    list: Vec<usize>,
    blocks: Vec<usize>,
    f_prev: Vec<f64>,
    f_mom: Vec<f64>,
    dense: Vec<f64>,
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
        w.dual.build(model, data, rows);
        w.ar_inv.clear();
        w.ar_inv.extend((0..n).map(|c| 1.0 / w.dual.a[c * n + c]));
        w.force.clear();
        w.force.resize(n, 0.0);

        // Warm start (MuJoCo's `warmstart`): the primal forces at the incoming acceleration, unless their dual cost
        // `f·b + ½ f·(AR f)` is positive.
        if warm {
            w.jar.clear();
            w.jar.extend((0..n).map(|i| {
                let (dofs, vals) = rows.jacobian_row(i);
                mujoco_jac_row_dot(nv, dofs, vals, &incoming) - rows.aref[i]
            }));
            w.state.clear();
            w.state.resize(n, RowState::Inactive);
            update_rows(rows, &w.jar, &mut w.state, efc_force);
            for (c, &i) in w.dual.perm.iter().enumerate() {
                w.force[c] = efc_force[i];
            }
            w.dense.clear();
            w.dense.extend((0..n).map(|c| w.dual.row_dot(c, &w.force)));
            let cost = mujoco_dot(&w.force, &w.dual.b) + 0.5 * mujoco_dot(&w.force, &w.dense);
            if cost > 0.0 {
                w.force.fill(0.0);
            }
        }

        let mut stats = SolveStats { converged: true, ..SolveStats::default() };
        let mut sweeps = 0;
        if self.islands {
            w.islands.build(model, rows);
            for k in 0..w.islands.count() {
                let mut list = std::mem::take(&mut w.list);
                list.clear();
                list.extend(w.islands.rows(k).iter().map(|&i| w.dual.pos[i]));
                list.sort_unstable();
                let trace: f64 = w.islands.dofs(k).iter().map(|&d| data.qm[model.dof_madr[d]]).sum();
                let (it, converged) = sweep_island(rows, w, &list, 1.0 / trace.max(MINVAL), options);
                w.list = list;
                sweeps += it;
                stats.converged &= converged;
                stats.islands += 1;
            }
        } else {
            let mut list = std::mem::take(&mut w.list);
            list.clear();
            list.extend(0..n);
            let scale = 1.0 / (model.meaninertia * nv.max(1) as f64);
            let (it, converged) = sweep_island(rows, w, &list, scale, options);
            w.list = list;
            sweeps = it;
            stats.converged = converged;
            stats.islands = 1;
        }
        stats.iterations = sweeps;
        for (c, &i) in w.dual.perm.iter().enumerate() {
            efc_force[i] = w.force[c];
        }

        w.dual.finish(model, data, rows, efc_force, &mut w.dense, qacc);
        if !qacc.iter().chain(efc_force.iter()).all(|v| v.is_finite()) {
            return Err(SolverError::NonFinite { cost: f64::NAN });
        }
        Ok(stats)
    }
}

/// The size of the block whose first row is `i`.
pub(crate) fn block_size(rows: &ConstraintRows, i: usize) -> usize {
    if rows.kind[i] == RowKind::ContactElliptic { rows.contact_nrows[rows.cone[i].unwrap_or(0)] } else { 1 }
}

/// The friction coefficients `μ_j` of the elliptic block at `i` (`dim − 1` of them).
pub(crate) fn cone_coefficients(rows: &ConstraintRows, i: usize, dim: usize) -> &[f64] {
    &rows.mu[i + 1..i + dim]
}

/// Projects the friction `ft` onto the ellipse of radius `fnorm`: always when `!feasible`, else only when outside
/// (MuJoCo `projectEllipsoid`).
fn project_ellipse(ft: &mut [f64], fnorm: f64, mu: &[f64], feasible: bool) {
    let mut s = 0.0;
    for (f, m) in ft.iter().zip(mu) {
        s += f * f / (m * m);
    }
    let normal2 = fnorm * fnorm;
    if !feasible || s > normal2 {
        let k = (normal2 / s.max(MINVAL)).sqrt();
        ft.iter_mut().for_each(|f| *f *= k);
    }
}

/// The sweeps of one island's positions `list` (increasing) over `w.force` (MuJoCo's `solPGS`); returns the number
/// of sweeps and whether the improvement test stopped them.
fn sweep_island(
    rows: &ConstraintRows,
    w: &mut PgsWork,
    list: &[usize],
    scale: f64,
    options: &SolverOptions,
) -> (usize, bool) {
    let nlist = list.len();
    let perm = &w.dual.perm;
    let is_eq = |c: usize| rows.kind[perm[c]].is_equality();
    let is_friction =
        |c: usize| matches!(rows.kind[perm[c]], RowKind::FrictionLoss | RowKind::FrictionTendon);
    let f = &mut w.force;
    w.blocks.clear();
    let mut k = 0;
    while k < nlist {
        w.blocks.push(k);
        k += block_size(rows, perm[list[k]]);
    }
    w.f_prev.clear();
    w.f_prev.extend(list.iter().map(|&c| f[c]));
    w.f_mom.clear();
    w.f_mom.resize(nlist, 0.0);
    let mut rng = Pcg32::new();
    let (mut iter, mut restarts) = (0, 0usize);
    let mut converged = false;
    while iter < options.iterations {
        // Nesterov extrapolation, projected onto the bounds.
        let beta = if iter > 0 { (restarts as f64 - 1.0) / (restarts as f64 + 2.0) } else { 0.0 };
        if beta > 0.0 {
            for (k, &c) in list.iter().enumerate() {
                let save = f[c];
                f[c] += beta * (f[c] - w.f_prev[k]);
                w.f_prev[k] = save;
            }
            let mut k = 0;
            while k < nlist {
                let c = list[k];
                let i = perm[c];
                let size = block_size(rows, i);
                if is_friction(c) {
                    let fl = rows.frictionloss[i];
                    f[c] = f[c].clamp(-fl, fl);
                } else if rows.kind[i] == RowKind::ContactElliptic {
                    if f[c] < 0.0 {
                        f[c..c + size].fill(0.0);
                    } else {
                        let fnorm = f[c];
                        project_ellipse(
                            &mut f[c + 1..c + size],
                            fnorm,
                            cone_coefficients(rows, i, size),
                            true,
                        );
                    }
                } else if !is_eq(c) && f[c] < 0.0 {
                    f[c] = 0.0;
                }
                k += size;
            }
        } else {
            for (k, &c) in list.iter().enumerate() {
                w.f_prev[k] = f[c];
            }
        }
        for (k, &c) in list.iter().enumerate() {
            w.f_mom[k] = f[c];
        }

        let mut improvement = 0.0;
        rng.shuffle(&mut w.blocks);
        for b in 0..w.blocks.len() {
            let c = list[w.blocks[b]];
            let i = perm[c];
            let size = block_size(rows, i);
            // The residual over the whole row (`mju_dot` over every position; the other islands' entries are zero).
            let mut res = [0.0; 6];
            for (k, r) in res[..size].iter_mut().enumerate() {
                *r = w.dual.residual(c + k, f);
            }
            let mut old = [0.0; 6];
            old[..size].copy_from_slice(&f[c..c + size]);
            let change = if size == 1 {
                f[c] -= res[0] * w.ar_inv[c];
                if is_friction(c) {
                    let fl = rows.frictionloss[i];
                    if f[c] < -fl {
                        f[c] = -fl;
                    } else if f[c] > fl {
                        f[c] = fl;
                    }
                } else if !is_eq(c) && f[c] < 0.0 {
                    f[c] = 0.0;
                }
                // MuJoCo's `costChange` with `A = 1/(1/AR_cc)`.
                let delta = f[c] - old[0];
                0.5 * delta * delta * (1.0 / w.ar_inv[c]) + delta * res[0]
            } else {
                let mut block = [0.0; 36];
                for p in 0..size {
                    block[p * size..(p + 1) * size].copy_from_slice(&w.dual.row(c + p)[c..c + size]);
                }
                elliptic_update(rows, &block, w.ar_inv[c], i, size, &res, &old, &mut f[c..c + size]);
                let mut delta = [0.0; 6];
                for p in 0..size {
                    delta[p] = f[c + p] - old[p];
                }
                0.5 * mul_vec_mat_vec(&delta[..size], &block, &delta[..size])
                    + mujoco_dot(&delta[..size], &res[..size])
            };
            // Undone when the dual cost rises.
            let change = if change > COST_RISE {
                f[c..c + size].copy_from_slice(&old[..size]);
                0.0
            } else {
                change
            };
            improvement -= change;
        }
        improvement *= scale;
        if iter > 0 {
            let mut dot = 0.0;
            for (k, &c) in list.iter().enumerate() {
                dot += (f[c] - w.f_mom[k]) * (w.f_mom[k] - w.f_prev[k]);
            }
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

/// One elliptic contact block (`dim` rows, the first row `i`; `f` its forces, `a` its `dim × dim` block of `AR`,
/// `ar_inv` `1/AR` of its normal): a normal or ray step, then the friction with the normal fixed (see the module
/// docs; MuJoCo's `solPGS`).
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
fn elliptic_update(
    rows: &ConstraintRows,
    a: &[f64; 36],
    ar_inv: f64,
    i: usize,
    dim: usize,
    res: &[f64; 6],
    old: &[f64; 6],
    f: &mut [f64],
) {
    let at = |p: usize, q: usize| a[p * dim + q];
    if f[0] < MINVAL {
        f[0] -= res[0] * ar_inv;
        if f[0] < 0.0 {
            f[0] = 0.0;
        }
        f[1..dim].fill(0.0);
    } else {
        let mut v = [0.0; 6];
        v[..dim].copy_from_slice(&f[..dim]);
        let mut av = [0.0; 6];
        for p in 0..dim {
            av[p] = mujoco_dot(&a[p * dim..(p + 1) * dim], &v[..dim]);
        }
        let denom = mujoco_dot(&v[..dim], &av[..dim]);
        if denom >= MINVAL {
            let mut x = -mujoco_dot(&v[..dim], &res[..dim]) / denom;
            if f[0] + x * v[0] < 0.0 {
                x = -v[0] / f[0];
            }
            for p in 0..dim {
                f[p] += x * v[p];
            }
        }
    }
    let m = dim - 1;
    let mut ac = [0.0; 25];
    let mut bc = [0.0; 5];
    for p in 0..m {
        for q in 0..m {
            ac[p * m + q] = at(p + 1, q + 1);
        }
        bc[p] = res[p + 1];
        bc[p] -= mujoco_dot(&ac[p * m..(p + 1) * m], &old[1..dim]);
        bc[p] += at(p + 1, 0) * (f[0] - old[0]);
    }
    let fnorm = f[0];
    if fnorm < MINVAL {
        f[1..dim].fill(0.0);
        return;
    }
    solve_friction(&ac, &bc, cone_coefficients(rows, i, dim), f);
}

/// MuJoCo's `solveQCQP`: the friction `f[1..]` of an elliptic block with normal force `f[0]` that minimises
/// `½ xᵀ A_c x + xᵀ b_c` in the cone (`a_c` row-major `(dim − 1)²`), projected onto the ellipse when it is active.
pub(crate) fn solve_friction(ac: &[f64; 25], bc: &[f64; 5], mu: &[f64], f: &mut [f64]) {
    let m = f.len() - 1;
    let (mut x, active) = qcqp(ac, bc, mu, f[0], m);
    if active {
        project_ellipse(&mut x[..m], f[0], mu, false);
    }
    f[1..].copy_from_slice(&x[..m]);
}

/// `min ½ xᵀAx + xᵀb` subject to `Σ (x_j/d_j)² ≤ r²` for `m` = 2 to 5 unknowns (`a` row-major `m × m`), in the
/// arithmetic of MuJoCo's `mju_QCQP2`, `mju_QCQP3` (explicit inverses of the scaled `A + λI`) and `mju_QCQP`
/// (Cholesky): Newton on the multiplier `λ` of the scaled problem, at most 20 steps; `(x, λ ≠ 0)`, or zero when
/// `A + λI` is (nearly) singular.
fn qcqp(a: &[f64; 25], b: &[f64; 5], d: &[f64], r: f64, m: usize) -> ([f64; 5], bool) {
    match m {
        2 => qcqp2(a, b, d, r),
        3 => qcqp3(a, b, d, r),
        _ => qcqp_n(a, b, d, r, m),
    }
}

/// `mju_QCQP2`.
fn qcqp2(a: &[f64; 25], b: &[f64; 5], d: &[f64], r: f64) -> ([f64; 5], bool) {
    let (b1, b2) = (b[0] * d[0], b[1] * d[1]);
    let (a11, a22, a12) = (a[0] * d[0] * d[0], a[3] * d[1] * d[1], a[1] * d[0] * d[1]);
    let mut la = 0.0;
    let (mut v1, mut v2) = (0.0, 0.0);
    for _ in 0..20 {
        let det = (a11 + la) * (a22 + la) - a12 * a12;
        if det < 1e-10 {
            return ([0.0; 5], false);
        }
        let detinv = 1.0 / det;
        let (p11, p22, p12) = ((a22 + la) * detinv, (a11 + la) * detinv, -a12 * detinv);
        v1 = -p11 * b1 - p12 * b2;
        v2 = -p12 * b1 - p22 * b2;
        let val = v1 * v1 + v2 * v2 - r * r;
        if val < 1e-10 {
            break;
        }
        let deriv = -2.0 * (p11 * v1 * v1 + 2.0 * p12 * v1 * v2 + p22 * v2 * v2);
        let delta = -val / deriv;
        if delta < 1e-10 {
            break;
        }
        la += delta;
    }
    ([v1 * d[0], v2 * d[1], 0.0, 0.0, 0.0], la != 0.0)
}

/// `mju_QCQP3`.
fn qcqp3(a: &[f64; 25], b: &[f64; 5], d: &[f64], r: f64) -> ([f64; 5], bool) {
    let (b1, b2, b3) = (b[0] * d[0], b[1] * d[1], b[2] * d[2]);
    let (a11, a22, a33) = (a[0] * d[0] * d[0], a[4] * d[1] * d[1], a[8] * d[2] * d[2]);
    let (a12, a13, a23) = (a[1] * d[0] * d[1], a[2] * d[0] * d[2], a[5] * d[1] * d[2]);
    let mut la = 0.0;
    let (mut v1, mut v2, mut v3) = (0.0, 0.0, 0.0);
    for _ in 0..20 {
        let mut p11 = (a22 + la) * (a33 + la) - a23 * a23;
        let mut p22 = (a11 + la) * (a33 + la) - a13 * a13;
        let mut p33 = (a11 + la) * (a22 + la) - a12 * a12;
        let mut p12 = a13 * a23 - a12 * (a33 + la);
        let mut p13 = a12 * a23 - a13 * (a22 + la);
        let mut p23 = a12 * a13 - a23 * (a11 + la);
        let det = (a11 + la) * p11 + a12 * p12 + a13 * p13;
        if det < 1e-10 {
            return ([0.0; 5], false);
        }
        let detinv = 1.0 / det;
        for p in [&mut p11, &mut p22, &mut p33, &mut p12, &mut p13, &mut p23] {
            *p *= detinv;
        }
        v1 = -p11 * b1 - p12 * b2 - p13 * b3;
        v2 = -p12 * b1 - p22 * b2 - p23 * b3;
        v3 = -p13 * b1 - p23 * b2 - p33 * b3;
        let val = v1 * v1 + v2 * v2 + v3 * v3 - r * r;
        if val < 1e-10 {
            break;
        }
        let deriv = -2.0 * (p11 * v1 * v1 + p22 * v2 * v2 + p33 * v3 * v3)
            - 4.0 * (p12 * v1 * v2 + p13 * v1 * v3 + p23 * v2 * v3);
        let delta = -val / deriv;
        if delta < 1e-10 {
            break;
        }
        la += delta;
    }
    ([v1 * d[0], v2 * d[1], v3 * d[2], 0.0, 0.0], la != 0.0)
}

/// `mju_QCQP` (up to five unknowns): `mju_cholFactor` with pivots below 1e-10 failing, `mju_cholSolve`, `mju_dot`.
fn qcqp_n(a: &[f64; 25], b: &[f64; 5], d: &[f64], r: f64, m: usize) -> ([f64; 5], bool) {
    let mut scaled = [0.0; 25];
    let mut bs = [0.0; 5];
    for i in 0..m {
        bs[i] = b[i] * d[i];
        for j in 0..m {
            scaled[j + i * m] = a[j + i * m] * d[i] * d[j];
        }
    }
    let mut la = 0.0;
    let mut res = [0.0; 5];
    for _ in 0..20 {
        let mut ala = scaled;
        for i in 0..m {
            ala[i * (m + 1)] += la;
        }
        if chol_factor_min(&mut ala[..m * m], m, 1e-10) < m {
            return ([0.0; 5], false);
        }
        res = bs;
        chol_solve(&ala[..m * m], m, &mut res[..m]);
        res[..m].iter_mut().for_each(|v| *v *= -1.0);
        let val = mujoco_dot(&res[..m], &res[..m]) - r * r;
        if val < 1e-10 {
            break;
        }
        let mut tmp = res;
        chol_solve(&ala[..m * m], m, &mut tmp[..m]);
        let deriv = -2.0 * mujoco_dot(&res[..m], &tmp[..m]);
        let delta = -val / deriv;
        if delta < 1e-10 {
            break;
        }
        la += delta;
    }
    for i in 0..m {
        res[i] *= d[i];
    }
    (res, la != 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The QCQP's solution is the constrained minimum, for each size: inside the ellipse when the free minimum is
    /// (`x = −A⁻¹ b`), else on it with the gradient `A x + b` along the constraint's normal `x_j / d_j²`.
    #[test]
    fn qcqp_solves_the_ellipse_constrained_quadratic() {
        for m in 2..=5 {
            let mut a = [0.0; 25];
            for p in 0..m {
                for q in 0..m {
                    a[p * m + q] = if p == q { 2.0 + p as f64 } else { 0.1 * (p + q) as f64 };
                }
            }
            let d: Vec<f64> = (0..m).map(|p| 1.0 / (1.0 + p as f64)).collect();
            let grad = |x: &[f64; 5], b: &[f64; 5], p: usize| {
                (0..m).map(|q| a[p * m + q] * x[q]).sum::<f64>() + b[p]
            };
            let inside = [0.01, -0.02, 0.015, -0.01, 0.005];
            let (x, active) = qcqp(&a, &inside, &d, 1.0, m);
            assert!(!active, "m {m}");
            for p in 0..m {
                assert!(grad(&x, &inside, p).abs() < 1e-12, "m {m}: free minimum, row {p}");
            }
            let outside = [5.0, -4.0, 3.0, -2.0, 1.0];
            let (x, active) = qcqp(&a, &outside, &d, 1.0, m);
            assert!(active, "m {m}");
            let s: f64 = (0..m).map(|p| (x[p] / d[p]).powi(2)).sum();
            assert!((s - 1.0).abs() < 1e-6, "m {m}: on the ellipse, {s}");
            // Gradient parallel to the normal, pointing inwards: −(A x + b) = λ' x / d², λ' > 0, the same for all p.
            let ratios: Vec<f64> = (0..m).map(|p| -grad(&x, &outside, p) / (x[p] / (d[p] * d[p]))).collect();
            for r in &ratios {
                assert!(*r > 0.0 && (r - ratios[0]).abs() < 1e-4 * ratios[0], "m {m}: {ratios:?}");
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
