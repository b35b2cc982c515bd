//! The no-slip post-process (`reference-semantics.md` §C.8; MuJoCo `mj_solNoSlip`): after the primal solve, a
//! projected Gauss–Seidel pass on the friction forces alone, against the Delassus operator **without** the
//! regularizer, `A = J M⁻¹ Jᵀ`, so that the soft constraints' creep (the friction force a regularized row can hold
//! at a nonzero sliding acceleration) is removed.
//!
//! With `b = J a_s − aref` the residual of row `i` is `res_i = b_i + (A λ)_i`, kept as `b_i + J_i v` with
//! `v = M⁻¹ Jᵀ λ`, which moves by `M⁻¹ J_iᵀ δ_i` when `λ_i` moves by `δ_i`. One sweep:
//!
//! - **DOF friction loss** rows: `λ_i ← clamp(λ_i − res_i / A_ii, −f_i, f_i)`;
//! - **pyramidal contacts**, per pair of opposite edges `(j, j+1)`: their sum (the normal force) stays; with
//!   `mid = ½(λ_j + λ_j+1)`, `K₁ = A_jj + A_j+1,j+1 − 2A_j,j+1` and `K₀ = mid(A_jj − A_j+1,j+1) + c_j − c_j+1`
//!   (`c = res − A_c λ_old`, the residual of the pair's rows without their own forces),
//!   `y = clamp(−K₀/K₁, −mid, mid)` (`λ = mid` on both when `K₁` vanishes), `λ_j = mid + y`, `λ_j+1 = mid − y`;
//!   the update is undone when it raises the cost `½ΔᵀA_cΔ + Δᵀres` by more than 1e-10.
//!
//! - **elliptic contacts** (MuJoCo's pass, [`NoSlip::run`], whatever the model's size): the friction rows with the
//!   normal force fixed, a QCQP on the cone (`mju_QCQP2/3/n`), undone when the cost rises.
//!
//! Equality, limit and frictionless rows keep their forces. The sweeps stop when `scale · improvement < tolerance`, `scale = 1/(meaninertia ·
//! max(1, nv))` (the first sweep's improvement counts the regularizer energy `½ Σ R_i λ_i²` it removes), or after
//! `iterations` sweeps. Finally `qacc = a_s + M⁻¹ Jᵀ λ`.

use signorini_constraints::{ConstraintRows, RowKind};
use signorini_model::{Data, Model};

use signorini_constraints::mujoco_dot::MUJOCO_SPARSE_NV;
use signorini_model::factor::mujoco_dot;

use crate::dual::{DualProblem, mul_vec_mat_vec};
use crate::islands::Islands;
use crate::mass::TreeMass;
use crate::pgs::{block_size, cone_coefficients, solve_friction};

/// Below this `A_ii` and `K₁` count as zero (MuJoCo `mjMINVAL`).
const EPS: f64 = 1e-15;

/// A pair update that raises the cost by more than this is undone (MuJoCo `costChange`).
const COST_RISE: f64 = 1e-10;

/// The no-slip pass's work arrays: data, not configuration (the settings are [`NoSlipOptions`]). Reused between
/// steps (no allocation once the largest problem has been seen); every array is rewritten before it is read in a
/// [`NoSlip::run`], so nothing carries from one run to the next and a clone behaves exactly as the original.
#[derive(Debug, Clone, Default)]
pub struct NoSlip {
    mass: TreeMass,
    /// `v = M⁻¹ Jᵀ λ`.
    v: Vec<f64>,
    /// `b = J a_s − aref`.
    b: Vec<f64>,
    /// The dofs of each kinematic tree, increasing: tree `t` at `tree_dofs[tree_start[t]..tree_start[t + 1]]`.
    tree_start: Vec<usize>,
    tree_dofs: Vec<usize>,
    /// Per updated row (friction-loss rows and pyramid edges, in row order): `w_i = M⁻¹ J_iᵀ` on the dofs of the
    /// trees the row touches, at `w_dof[w_start[k]..w_start[k + 1]]`.
    updated: Vec<usize>,
    w_start: Vec<usize>,
    w_dof: Vec<usize>,
    w_val: Vec<f64>,
    /// Per updated row `k`: `A_kk`, and for the first row of a pyramid pair `A_k,k+1` (the second holds
    /// `A_k+1,k`).
    a_diag: Vec<f64>,
    a_off: Vec<f64>,
    /// Dense scratch (`nv`, zero between uses), the tree of every dof, and the trees and support of one row.
    dense: Vec<f64>,
    trees: Vec<usize>,
    row_trees: Vec<usize>,
    support: Vec<usize>,
    islands: Islands,
    /// Counting-sort cursors.
    fill: Vec<usize>,
    /// Updated-row index `k` of every row (`usize::MAX` for the others), and one island's `k`s.
    row_k: Vec<usize>,
    sweep: Vec<usize>,
    /// The work of the pass in MuJoCo's arithmetic.
    mujoco: MujocoNoSlip,
}

/// The no-slip pass in MuJoCo 4.0.1's arithmetic ([`NoSlip::run`]): its dual problem and the forces by position.
#[derive(Debug, Clone, Default)]
struct MujocoNoSlip {
    dual: DualProblem,
    /// `1/max(mjMINVAL, AR_cc − R_c)` by position (MuJoCo's `ARdiaginv` without `R`).
    ar_inv: Vec<f64>,
    force: Vec<f64>,
    list: Vec<usize>,
}

impl MujocoNoSlip {
    /// MuJoCo's `solNoSlip` over one island's positions `list` (increasing).
    fn sweeps(
        &mut self,
        rows: &ConstraintRows,
        list: &[usize],
        scale: f64,
        options: &NoSlipOptions,
    ) -> NoSlipStats {
        let (dual, ar_inv, f) = (&self.dual, &self.ar_inv, &mut self.force);
        let row = |c: usize| dual.perm[c];
        // `b + AR·f − R f` at position `c`.
        let residual = |f: &[f64], c: usize| dual.residual(c, f) - rows.r[row(c)] * f[c];
        let mut stats = NoSlipStats::default();
        while stats.iterations < options.iterations {
            let mut improvement = 0.0;
            if stats.iterations == 0 {
                for &c in list {
                    improvement += 0.5 * f[c] * f[c] * rows.r[row(c)];
                }
            }
            for &c in list.iter().filter(|&&c| rows.kind[row(c)].is_friction_loss()) {
                let res = residual(f, c);
                let old = f[c];
                let ar_inv = ar_inv[c];
                f[c] -= res * ar_inv;
                let limit = rows.frictionloss[row(c)];
                if f[c] < -limit {
                    f[c] = -limit;
                } else if f[c] > limit {
                    f[c] = limit;
                }
                let delta = f[c] - old;
                improvement -= 0.5 * delta * delta / ar_inv + delta * res;
            }
            let mut p = 0;
            while p < list.len() {
                let c = list[p];
                if rows.kind[row(c)] == RowKind::ContactElliptic {
                    // An elliptic contact: its friction rows' QCQP with the normal fixed.
                    let dim = block_size(rows, row(c));
                    let m = dim - 1;
                    let mut res = [0.0; 5];
                    let mut old = [0.0; 5];
                    for k in 0..m {
                        res[k] = residual(f, c + 1 + k);
                        old[k] = f[c + 1 + k];
                    }
                    let mut ac = [0.0; 25];
                    for j in 0..m {
                        ac[j * m..(j + 1) * m].copy_from_slice(&dual.row(c + 1 + j)[c + 1..c + dim]);
                        ac[j * (m + 1)] = (ac[j * (m + 1)] - rows.r[row(c + 1 + j)]).max(1e-10);
                    }
                    let mut bc = [0.0; 5];
                    for j in 0..m {
                        bc[j] = res[j] - mujoco_dot(&ac[j * m..(j + 1) * m], &old[..m]);
                    }
                    if f[c] < EPS {
                        f[c + 1..c + dim].fill(0.0);
                    } else {
                        solve_friction(&ac, &bc, cone_coefficients(rows, row(c), dim), &mut f[c..c + dim]);
                    }
                    let mut delta = [0.0; 5];
                    for k in 0..m {
                        delta[k] = f[c + 1 + k] - old[k];
                    }
                    let mut change = 0.5 * mul_vec_mat_vec(&delta[..m], &ac[..m * m], &delta[..m])
                        + mujoco_dot(&delta[..m], &res[..m]);
                    if change > COST_RISE {
                        f[c + 1..c + dim].copy_from_slice(&old[..m]);
                        change = 0.0;
                    }
                    improvement -= change;
                    p += dim;
                    continue;
                }
                if rows.kind[row(c)] != RowKind::ContactPyramidal {
                    p += 1;
                    continue;
                }
                // A pair of opposite pyramid edges: its rows' residuals and 2×2 block of `AR − R`.
                let res = [residual(f, c), residual(f, c + 1)];
                let old = [f[c], f[c + 1]];
                let mut ac = [dual.row(c)[c], dual.row(c)[c + 1], dual.row(c + 1)[c], dual.row(c + 1)[c + 1]];
                ac[0] = (ac[0] - rows.r[row(c)]).max(1e-10);
                ac[3] = (ac[3] - rows.r[row(c + 1)]).max(1e-10);
                let bc = [res[0] - mujoco_dot(&ac[..2], &old), res[1] - mujoco_dot(&ac[2..], &old)];
                let mid = 0.5 * (f[c] + f[c + 1]);
                let k1 = ac[0] + ac[3] - ac[1] - ac[2];
                let k0 = mid * (ac[0] - ac[3]) + bc[0] - bc[1];
                if k1 < EPS {
                    f[c] = mid;
                    f[c + 1] = mid;
                } else {
                    let y = -k0 / k1;
                    if y < -mid {
                        f[c] = 0.0;
                        f[c + 1] = 2.0 * mid;
                    } else if y > mid {
                        f[c] = 2.0 * mid;
                        f[c + 1] = 0.0;
                    } else {
                        f[c] = mid + y;
                        f[c + 1] = mid - y;
                    }
                }
                let delta = [f[c] - old[0], f[c + 1] - old[1]];
                let mut change = 0.5 * mul_vec_mat_vec(&delta, &ac, &delta) + mujoco_dot(&delta, &res);
                if change > COST_RISE {
                    f[c] = old[0];
                    f[c + 1] = old[1];
                    change = 0.0;
                }
                improvement -= change;
                p += 2;
            }
            improvement *= scale;
            stats.iterations += 1;
            stats.improvement = improvement;
            if improvement < options.tolerance {
                break;
            }
        }
        stats
    }
}

/// What one no-slip pass did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NoSlipStats {
    /// Sweeps run, summed over the islands.
    pub iterations: usize,
    /// The largest final `scale · improvement` over the islands.
    pub improvement: f64,
}

/// The settings of a no-slip pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoSlipOptions {
    /// At most this many sweeps (per island).
    pub iterations: usize,
    /// Stop when `scale · improvement` of a sweep is below this.
    pub tolerance: f64,
    /// Sweep and terminate every island (§C.6) on its own, with `scale = 1/tr(M_island)` (MuJoCo 4.0 with islands);
    /// otherwise the whole system with `scale = 1/(meaninertia · max(1, nv))`.
    pub islands: bool,
    /// On a model of fewer than 60 dofs (one MuJoCo keeps dense), run MuJoCo 4.0.1's `solNoSlip` in its own
    /// arithmetic over its dense `AR` (see [`NoSlip::run`]).
    pub mujoco_arithmetic: bool,
}

impl NoSlip {
    /// Runs the sweeps on `force` (the primal solve's row forces, updated in place) and writes
    /// `qacc = a_s + M⁻¹ Jᵀ λ`. `M` is `data`'s (factorised, as for the primal solve). With
    /// [`NoSlipOptions::mujoco_arithmetic`] on a model MuJoCo keeps dense, the pass is MuJoCo 4.0.1's `solNoSlip`
    /// operation for operation: the dense `AR` of MuJoCo's dual problem (the private `dual` module), residuals
    /// `b + AR·λ − R_i λ_i` over whole rows, the friction-loss rows first and then the contacts in row order (no
    /// shuffle), `A_ii − R_i` floored at `mjMINVAL` (friction loss) or 1e-10 (edge pairs), and
    /// `qacc = M⁻¹ (Jᵀ λ) + a_s` (`dualFinish`).
    pub fn run(
        &mut self,
        model: &Model,
        data: &Data,
        rows: &ConstraintRows,
        options: &NoSlipOptions,
        force: &mut [f64],
        qacc: &mut [f64],
    ) -> NoSlipStats {
        let nv = model.nv;
        // The elliptic cone's friction is solved only by MuJoCo's pass (any model size, either dialect).
        let elliptic = rows.kind.contains(&RowKind::ContactElliptic);
        if (options.mujoco_arithmetic && nv < MUJOCO_SPARSE_NV) || elliptic {
            return self.run_mujoco(model, data, rows, options, force, qacc);
        }
        self.mass.assign_all(model, data);
        self.prepare(rows, force, &data.qacc_smooth);
        // The regularizer energy ½ Σ R_i λ_i² that the first sweep removes.
        let energy = |force: &[f64], i: usize| 0.5 * rows.r[i] * force[i] * force[i];
        let mut sweep = std::mem::take(&mut self.sweep);
        let mut stats = NoSlipStats::default();
        if options.islands {
            self.islands.build(model, rows);
            for island in 0..self.islands.count() {
                let island_rows = self.islands.rows(island);
                sweep.clear();
                sweep.extend(island_rows.iter().map(|&r| self.row_k[r]).filter(|&k| k != usize::MAX));
                let regularizer: f64 = island_rows.iter().map(|&i| energy(force, i)).sum();
                let trace: f64 = self.islands.dofs(island).iter().map(|&d| data.qm[model.dof_madr[d]]).sum();
                let scale = 1.0 / trace.max(f64::MIN_POSITIVE);
                let s = self.sweeps(rows, &sweep, regularizer, scale, options, force);
                stats.iterations += s.iterations;
                stats.improvement = stats.improvement.max(s.improvement);
            }
        } else {
            sweep.clear();
            sweep.extend(0..self.updated.len());
            let regularizer: f64 = (0..rows.len()).map(|i| energy(force, i)).sum();
            let scale = 1.0 / (model.meaninertia * nv.max(1) as f64);
            stats = self.sweeps(rows, &sweep, regularizer, scale, options, force);
        }
        self.sweep = sweep;
        // qacc = a_s + M⁻¹ Jᵀ λ from scratch (no drift from the incremental updates).
        self.set_v(rows, force);
        for ((q, a), v) in qacc.iter_mut().zip(&data.qacc_smooth).zip(&self.v) {
            *q = a + v;
        }
        stats
    }

    /// [`Self::run`] in MuJoCo 4.0.1's arithmetic (see there).
    fn run_mujoco(
        &mut self,
        model: &Model,
        data: &Data,
        rows: &ConstraintRows,
        options: &NoSlipOptions,
        force: &mut [f64],
        qacc: &mut [f64],
    ) -> NoSlipStats {
        let (n, nv) = (rows.len(), model.nv);
        let m = &mut self.mujoco;
        m.dual.build(model, data, rows);
        m.ar_inv.clear();
        m.ar_inv.extend((0..n).map(|c| 1.0 / (m.dual.row(c)[c] - rows.r[m.dual.perm[c]]).max(EPS)));
        m.force.clear();
        m.force.extend(m.dual.perm.iter().map(|&i| force[i]));
        let mut stats = NoSlipStats::default();
        let mut list = std::mem::take(&mut m.list);
        if options.islands {
            self.islands.build(model, rows);
            for island in 0..self.islands.count() {
                list.clear();
                list.extend(self.islands.rows(island).iter().map(|&i| m.dual.pos[i]));
                list.sort_unstable();
                let trace: f64 = self.islands.dofs(island).iter().map(|&d| data.qm[model.dof_madr[d]]).sum();
                let s = m.sweeps(rows, &list, 1.0 / trace.max(EPS), options);
                stats.iterations += s.iterations;
                stats.improvement = stats.improvement.max(s.improvement);
            }
        } else {
            list.clear();
            list.extend(0..n);
            stats = m.sweeps(rows, &list, 1.0 / (model.meaninertia * nv.max(1) as f64), options);
        }
        m.list = list;
        for (c, &i) in m.dual.perm.iter().enumerate() {
            force[i] = m.force[c];
        }
        m.dual.finish(model, data, rows, force, &mut self.dense, qacc);
        stats
    }

    /// Sweeps over the updated rows `sweep` (indices into `updated`, in row order) until `scale · improvement`
    /// is below the tolerance; the first sweep's improvement starts at `regularizer`.
    fn sweeps(
        &mut self,
        rows: &ConstraintRows,
        sweep: &[usize],
        regularizer: f64,
        scale: f64,
        options: &NoSlipOptions,
        force: &mut [f64],
    ) -> NoSlipStats {
        let mut stats = NoSlipStats::default();
        while stats.iterations < options.iterations {
            let mut improvement = if stats.iterations == 0 { regularizer } else { 0.0 };
            let mut p = 0;
            while p < sweep.len() {
                let k = sweep[p];
                if rows.kind[self.updated[k]].is_friction_loss() {
                    improvement -= self.friction_loss(rows, k, force);
                    p += 1;
                } else {
                    improvement -= self.edge_pair(rows, k, force);
                    p += 2;
                }
            }
            stats.iterations += 1;
            stats.improvement = scale * improvement;
            if stats.improvement < options.tolerance {
                break;
            }
        }
        stats
    }

    /// `b`, `v = M⁻¹ Jᵀ λ`, the trees' dofs and `w_i` of every updated row.
    fn prepare(&mut self, rows: &ConstraintRows, force: &[f64], a_s: &[f64]) {
        let nv = self.mass.nv;
        self.b.clear();
        self.b.extend((0..rows.len()).map(|i| rows.row_dot(i, a_s) - rows.aref[i]));
        self.set_v(rows, force);

        let ntrees = self.mass.trees(&mut self.trees);
        self.tree_start.clear();
        self.tree_start.resize(ntrees + 1, 0);
        for &t in &self.trees {
            self.tree_start[t + 1] += 1;
        }
        for t in 0..ntrees {
            self.tree_start[t + 1] += self.tree_start[t];
        }
        self.tree_dofs.clear();
        self.tree_dofs.resize(nv, 0);
        // Counting sort by tree: each tree's dofs stay increasing.
        self.fill.clear();
        self.fill.extend_from_slice(&self.tree_start[..ntrees]);
        for (d, &t) in self.trees.iter().enumerate() {
            self.tree_dofs[self.fill[t]] = d;
            self.fill[t] += 1;
        }

        self.updated.clear();
        self.row_k.clear();
        for i in 0..rows.len() {
            if matches!(
                rows.kind[i],
                RowKind::FrictionLoss | RowKind::FrictionTendon | RowKind::ContactPyramidal
            ) {
                self.row_k.push(self.updated.len());
                self.updated.push(i);
            } else {
                self.row_k.push(usize::MAX);
            }
        }
        self.w_start.clear();
        self.w_start.push(0);
        self.w_dof.clear();
        self.w_val.clear();
        self.dense.clear();
        self.dense.resize(nv, 0.0);
        for k in 0..self.updated.len() {
            let (dofs, vals) = rows.jacobian_row(self.updated[k]);
            // The support of M⁻¹ J_iᵀ: every dof of the trees the row touches.
            self.row_trees.clear();
            for &d in dofs {
                if !self.row_trees.contains(&self.trees[d as usize]) {
                    self.row_trees.push(self.trees[d as usize]);
                }
            }
            self.support.clear();
            for &t in &self.row_trees {
                self.support.extend_from_slice(&self.tree_dofs[self.tree_start[t]..self.tree_start[t + 1]]);
            }
            self.support.sort_unstable();
            for (&d, &j) in dofs.iter().zip(vals) {
                self.dense[d as usize] += j;
            }
            self.mass.solve_on(&mut self.dense, &self.support);
            for &d in &self.support {
                self.w_dof.push(d);
                self.w_val.push(self.dense[d]);
                self.dense[d] = 0.0;
            }
            self.w_start.push(self.w_dof.len());
        }
        // The entries of A the sweeps read.
        self.a_diag.clear();
        self.a_off.clear();
        let mut k = 0;
        while k < self.updated.len() {
            let i = self.updated[k];
            self.a_diag.push(self.a_entry(rows, i, k));
            self.a_off.push(0.0);
            if rows.kind[i] == RowKind::ContactPyramidal {
                let j = self.updated[k + 1];
                self.a_diag.push(self.a_entry(rows, j, k + 1));
                self.a_off[k] = self.a_entry(rows, i, k + 1);
                self.a_off.push(self.a_entry(rows, j, k));
                k += 2;
            } else {
                k += 1;
            }
        }
    }

    /// `v = M⁻¹ Jᵀ λ`.
    fn set_v(&mut self, rows: &ConstraintRows, force: &[f64]) {
        self.v.clear();
        self.v.resize(self.mass.nv, 0.0);
        rows.add_transpose(force, &mut self.v);
        self.mass.solve(&mut self.v);
    }

    /// `J_i · w_k` for updated row `k`: the entry `A_ik`.
    fn a_entry(&self, rows: &ConstraintRows, i: usize, k: usize) -> f64 {
        let range = self.w_start[k]..self.w_start[k + 1];
        let (dofs, vals) = rows.jacobian_row(i);
        let (wd, wv) = (&self.w_dof[range.clone()], &self.w_val[range]);
        dofs.iter().zip(vals).map(|(&d, &j)| j * wd.binary_search(&(d as usize)).map_or(0.0, |p| wv[p])).sum()
    }

    /// `res_i = b_i + J_i v`.
    fn residual(&self, rows: &ConstraintRows, i: usize) -> f64 {
        self.b[i] + rows.row_dot(i, &self.v)
    }

    /// `v += δ w_k`.
    fn apply(&mut self, k: usize, delta: f64) {
        if delta == 0.0 {
            return;
        }
        let range = self.w_start[k]..self.w_start[k + 1];
        for (&d, &w) in self.w_dof[range.clone()].iter().zip(&self.w_val[range]) {
            self.v[d] += delta * w;
        }
    }

    /// One friction-loss row (updated row `k`); returns the cost change (≤ 0 up to round-off).
    fn friction_loss(&mut self, rows: &ConstraintRows, k: usize, force: &mut [f64]) -> f64 {
        let i = self.updated[k];
        let res = self.residual(rows, i);
        let a = self.a_diag[k].max(EPS);
        let old = force[i];
        let limit = rows.frictionloss[i];
        force[i] = (old - res / a).clamp(-limit, limit);
        let delta = force[i] - old;
        self.apply(k, delta);
        0.5 * delta * delta * a + delta * res
    }

    /// The pair of opposite pyramid edges at updated rows `k`, `k + 1`; returns the cost change (≤ 0).
    fn edge_pair(&mut self, rows: &ConstraintRows, k: usize, force: &mut [f64]) -> f64 {
        let (j0, j1) = (self.updated[k], self.updated[k + 1]);
        let res = [self.residual(rows, j0), self.residual(rows, j1)];
        let old = [force[j0], force[j1]];
        let (a00, a11) = (self.a_diag[k].max(1e-10), self.a_diag[k + 1].max(1e-10));
        let (a01, a10) = (self.a_off[k], self.a_off[k + 1]);
        let c = [res[0] - a00 * old[0] - a01 * old[1], res[1] - a10 * old[0] - a11 * old[1]];
        let mid = 0.5 * (old[0] + old[1]);
        let k1 = a00 + a11 - a01 - a10;
        let k0 = mid * (a00 - a11) + c[0] - c[1];
        let new = if k1 < EPS {
            [mid, mid]
        } else {
            let y = -k0 / k1;
            if y < -mid {
                [0.0, 2.0 * mid]
            } else if y > mid {
                [2.0 * mid, 0.0]
            } else {
                [mid + y, mid - y]
            }
        };
        let delta = [new[0] - old[0], new[1] - old[1]];
        let change = 0.5
            * (delta[0] * (a00 * delta[0] + a01 * delta[1]) + delta[1] * (a10 * delta[0] + a11 * delta[1]))
            + delta[0] * res[0]
            + delta[1] * res[1];
        if change > COST_RISE {
            return 0.0;
        }
        force[j0] = new[0];
        force[j1] = new[1];
        self.apply(k, delta[0]);
        self.apply(k + 1, delta[1]);
        change
    }
}
