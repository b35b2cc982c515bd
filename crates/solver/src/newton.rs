//! Newton's Hessian (`reference-semantics.md` §C.2): `H = M + Σ_active D_i J_iᵀJ_i (+ Σ_blocks J_bᵀ H^b J_b)`, its
//! factor, and its upkeep between iterations.
//!
//! - **Dense** for small problems (at most [`PrimalSolver::with_dense_limit`] dofs, default 24, or a single tree):
//!   the lower triangle of `H` is assembled and factored with [`crate::dense`].
//! - **Sparse** otherwise: the tree-block factor of [`crate::block_cholesky`], whose symbolic analysis is built over
//!   every row (whatever its state) and kept between solves while the trees and the rows' dofs are the same
//!   ([`AnalysisKey`]).
//! - **Updates**: after a step, rows that entered (left) the quadratic zone are added (removed) by rank-1 updates
//!   (downdates) of either factor, as MuJoCo's `mju_cholUpdate`, unless a rebuild is cheaper, a downdate is
//!   degenerate, or an elliptic/Signorini block is in its curved zone; nothing is done when the active set is the
//!   same.
//!
//! [`PrimalSolver::with_dense_limit`]: crate::PrimalSolver::with_dense_limit

use signorini_constraints::{ConstraintRows, DofIndex, RowKind};

use crate::block_cholesky::BlockCholesky;
use crate::cost::{ConeBlock, MAX_CONE_ROWS, RowState};
use crate::dense::{cholesky_in_place, cholesky_rank_one, cholesky_solve};
use crate::primal::Problem;
use crate::signorini;

/// The rows at the current iterate, as the Hessian reads them: their states, their residuals `jar = J a − aref`
/// and the latched normal load of every Signorini contact (empty without Signorini resolution).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowsAt<'a> {
    /// The state of every row.
    pub state: &'a [RowState],
    /// `J a − aref` of every row.
    pub jar: &'a [f64],
    /// The latched normal load of every contact ([`signorini::Latch::loads`]).
    pub latch: &'a [f64],
}

/// Newton's factor of `H` (dense or sparse) with its scratch, the row states it was built for and the kept
/// symbolic analysis of the sparse factor. Reset at the start of every solve except for that analysis.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewtonFactor {
    /// The dense `H` and then its factor `L` (lower triangle, row-major `nv × nv`).
    hessian: Vec<f64>,
    /// `1 / L_ii` of the dense factor.
    hessian_inv: Vec<f64>,
    /// A dense rank-1 update's vector.
    rank_one_v: Vec<f64>,
    /// `Dᵢ Jᵢ` and `Jᵢ` of the quadratic rows of a run that shares its dofs (dense assembly).
    run_dv: Vec<f64>,
    /// The sparse Newton factor (large problems), analysed once per solve.
    sparse: BlockCholesky,
    /// Whether this solve uses the sparse factor (decided at its first factorisation).
    use_sparse: bool,
    /// Whether this solve has decided between the dense and the sparse factor.
    analysed: bool,
    /// The row states the factor was built or last updated for.
    factored_state: Vec<RowState>,
    /// Rows whose quadratic state changed since the last factorisation or update.
    changed: Vec<usize>,
    /// The kinematic tree of every (local) dof.
    trees: Vec<usize>,
    /// Each link of the analysis (a row, or the rows of an elliptic contact) as a range of `rows.jac_dof`.
    link_start: Vec<usize>,
    /// What the sparse factor's symbolic analysis was built for (carried between solves).
    analysed_for: AnalysisKey,
    /// Factorisations from scratch in this solve.
    factorizations: usize,
    /// Rank-1 updates and downdates in this solve.
    updates: usize,
}

/// The inputs of a sparse symbolic analysis: local trees, links and the rows' dofs.
#[derive(Debug, Clone, Default)]
struct AnalysisKey {
    trees: Vec<usize>,
    link_start: Vec<usize>,
    jac_start: Vec<usize>,
    jac_dof: Vec<DofIndex>,
}

impl NewtonFactor {
    /// Forgets the previous solve's factor and counts (the sparse analysis and its key are kept).
    pub(crate) fn reset(&mut self) {
        self.analysed = false;
        self.use_sparse = false;
        self.factorizations = 0;
        self.updates = 0;
        self.hessian.clear();
    }

    /// Factorisations from scratch in this solve.
    pub(crate) fn factorizations(&self) -> usize {
        self.factorizations
    }

    /// Rank-1 updates and downdates in this solve.
    pub(crate) fn updates(&self) -> usize {
        self.updates
    }

    /// `x ← H⁻¹ x` with the current factor (`nv` dofs).
    pub(crate) fn solve(&mut self, nv: usize, x: &mut [f64]) {
        if self.use_sparse {
            self.sparse.solve(x)
        } else {
            cholesky_solve(&self.hessian, &self.hessian_inv, nv, x)
        }
    }

    /// Newton: builds `H = M + Σ_active D JᵢᵀJᵢ (+ Σ_middle cones J_cᵀ H^c J_c)` and factors it, densely for small
    /// problems and with the tree-block sparse factor otherwise.
    pub(crate) fn factor(&mut self, p: &Problem<'_>, dense_max_nv: usize, at: RowsAt<'_>) {
        let nv = p.mass.nv;
        self.factorizations += 1;
        if !self.analysed {
            self.analysed = true;
            let ntrees = p.mass.trees(&mut self.trees);
            self.use_sparse = nv > dense_max_nv && ntrees > 1;
            if self.use_sparse {
                self.analyse(p.rows);
            } else {
                self.hessian.resize(nv * nv, 0.0);
            }
        }
        if self.use_sparse {
            self.factor_sparse(p, at);
        } else {
            self.factor_dense(p, at);
        }
        self.factored_state.clear();
        self.factored_state.extend_from_slice(at.state);
    }

    /// The sparse factor's symbolic analysis over every row (whatever its state), so that rank-1 updates and
    /// state changes stay inside its pattern. The rows of an elliptic contact are linked together. The analysis of
    /// the previous run is kept when its trees and rows' dofs are the same (a resting scene keeps its contacts).
    fn analyse(&mut self, rows: &ConstraintRows) {
        // Each link (a row, or the rows of an elliptic contact) as a range of `rows.jac_dof`.
        self.link_start.clear();
        self.link_start.push(0);
        let mut i = 0;
        while i < rows.len() {
            let len = match (rows.kind[i], rows.cone[i]) {
                (RowKind::ContactElliptic, Some(c)) => rows.contact_nrows[c].max(1),
                _ => 1,
            };
            i += len;
            self.link_start.push(rows.jac_start[i]);
        }
        // An empty key never matches: the sparse path has trees.
        let analysed = &self.analysed_for;
        if analysed.trees == self.trees
            && analysed.link_start == self.link_start
            && analysed.jac_start == rows.jac_start
            && analysed.jac_dof == rows.jac_dof
        {
            return;
        }
        let (links, starts) = (&rows.jac_dof, &self.link_start);
        self.sparse.analyze(&self.trees, starts.windows(2).map(|w| &links[w[0]..w[1]]));
        self.sparse.index_rows((0..rows.len()).map(|r| rows.jacobian_row(r).0));
        let a = &mut self.analysed_for;
        a.trees.clone_from(&self.trees);
        a.link_start.clone_from(&self.link_start);
        a.jac_start.clone_from(&rows.jac_start);
        a.jac_dof.clone_from(&rows.jac_dof);
    }

    fn factor_sparse(&mut self, p: &Problem<'_>, at: RowsAt<'_>) {
        let rows = p.rows;
        let f = &mut self.sparse;
        f.clear_values();
        p.mass.for_each_entry(|i, j, m| f.add(i, j, m));
        for r in 0..rows.len() {
            match at.state[r] {
                RowState::Quadratic => {
                    let vals = rows.jacobian_row(r).1;
                    f.add_outer(r, vals, r, vals, rows.d[r]);
                }
                RowState::Cone | RowState::Slip => {
                    let Some((n, hc)) = block_hessian(rows, at, r) else {
                        continue;
                    };
                    let vals: [&[f64]; MAX_CONE_ROWS] =
                        std::array::from_fn(|a| if a < n { rows.jacobian_row(r + a).1 } else { &[] });
                    f.add_block(r, &vals[..n], &hc);
                }
                _ => {}
            }
        }
        f.factor();
    }

    /// Newton, after a step: brings the factor to the new row states. The factor (sparse or dense) is updated by
    /// rank-1 updates (rows that became quadratic) and downdates (rows that left) when few rows changed, as MuJoCo's
    /// `mju_cholUpdate`, and rebuilt when many did, when a downdate is degenerate, or when an elliptic cone is in
    /// its middle zone (its Hessian block depends on the residuals). It is not touched when the active set is the
    /// same.
    pub(crate) fn update(&mut self, p: &Problem<'_>, at: RowsAt<'_>) {
        let (rows, nv) = (p.rows, p.mass.nv);
        self.changed.clear();
        let mut rebuild = false;
        for (r, (&old, &new)) in self.factored_state.iter().zip(at.state).enumerate() {
            if matches!(old, RowState::Cone | RowState::Slip)
                || matches!(new, RowState::Cone | RowState::Slip)
            {
                rebuild = true;
                break;
            }
            if (old == RowState::Quadratic) != (new == RowState::Quadratic) {
                self.changed.push(r);
            }
        }
        if !rebuild && self.changed.is_empty() {
            // Same active set: H is unchanged.
            return;
        }
        // Each update sweeps its row's elimination-tree path (sparse) or the whole factor (dense, n² per row); a
        // rebuild assembles H again (Σ nnz² over the quadratic rows) and refactors.
        rebuild |= if self.use_sparse {
            let updates: f64 =
                self.changed.iter().map(|&r| self.sparse.update_cost(rows.jacobian_row(r).0)).sum();
            updates > self.sparse.rebuild_cost()
        } else {
            let assembly: usize = (0..rows.len())
                .filter(|&r| at.state[r] == RowState::Quadratic)
                .map(|r| (rows.jac_start[r + 1] - rows.jac_start[r]).pow(2))
                .sum();
            self.changed.len() * nv * nv > assembly + nv * nv * nv / 6
        };
        if !rebuild {
            for &r in &self.changed {
                let sigma = if at.state[r] == RowState::Quadratic { 1.0 } else { -1.0 };
                let (dofs, vals) = rows.jacobian_row(r);
                let scale = rows.d[r].sqrt();
                let failed = if self.use_sparse {
                    self.sparse.rank_one(dofs, vals, scale, sigma).is_err()
                } else {
                    self.rank_one_v.clear();
                    self.rank_one_v.resize(nv, 0.0);
                    for (&k, &v) in dofs.iter().zip(vals) {
                        self.rank_one_v[k as usize] += scale * v;
                    }
                    cholesky_rank_one(
                        &mut self.hessian,
                        &mut self.hessian_inv,
                        nv,
                        &mut self.rank_one_v,
                        sigma,
                    )
                    .is_err()
                };
                if failed {
                    rebuild = true;
                    break;
                }
            }
        }
        if rebuild {
            self.factorizations += 1;
            if self.use_sparse { self.factor_sparse(p, at) } else { self.factor_dense(p, at) }
        } else {
            self.updates += self.changed.len();
        }
        self.factored_state.copy_from_slice(at.state);
    }

    /// Builds the lower triangle of the dense `H` and factors it.
    fn factor_dense(&mut self, p: &Problem<'_>, at: RowsAt<'_>) {
        let nv = p.mass.nv;
        let h = &mut self.hessian;
        p.mass.fill_dense(h);
        add_rows_dense(h, nv, p.rows, at, &mut self.run_dv);
        self.hessian_inv.resize(nv, 0.0);
        cholesky_in_place(h, nv, &mut self.hessian_inv);
    }
}

/// `H += Σ_quadratic D JᵢᵀJᵢ + Σ_blocks J_bᵀ H^b J_b` into the lower triangle of the dense row-major `h`.
fn add_rows_dense(h: &mut [f64], nv: usize, rows: &ConstraintRows, at: RowsAt<'_>, run_dv: &mut Vec<f64>) {
    let mut r = 0;
    while r < rows.len() {
        match at.state[r] {
            RowState::Quadratic => {
                // The rows from `r` on over the same strictly decreasing dofs (a contact's pyramid edges, a
                // weld's six rows) are added together, cell by cell.
                if is_decreasing(rows.jacobian_row(r).0) {
                    let end = run_end(rows, at.state, r);
                    add_quadratic_run(h, nv, rows, at.state, r..end, run_dv);
                    r = end;
                } else {
                    add_quadratic_row(h, nv, rows, r);
                    r += 1;
                }
                continue;
            }
            RowState::Cone | RowState::Slip => {
                // J_bᵀ H^b J_b for a middle-zone elliptic block or a sliding Signorini friction block.
                if let Some((n, hc)) = block_hessian(rows, at, r) {
                    for (a, hc_row) in hc.iter().enumerate().take(n) {
                        let (dofs_a, vals_a) = rows.jacobian_row(r + a);
                        for (b, &hab) in hc_row.iter().enumerate().take(n) {
                            let (dofs_b, vals_b) = rows.jacobian_row(r + b);
                            for (&p, &vp) in dofs_a.iter().zip(vals_a) {
                                let w = hab * vp;
                                for (&q, &vq) in dofs_b.iter().zip(vals_b) {
                                    if q <= p {
                                        h[p as usize * nv + q as usize] += w * vq;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        r += 1;
    }
}

/// The end of the run of rows from `r` that list the same dofs as row `r` and are quadratic or add nothing to the
/// Hessian (inactive, saturated friction loss).
fn run_end(rows: &ConstraintRows, state: &[RowState], r: usize) -> usize {
    let dofs = rows.jacobian_row(r).0;
    let mut end = r + 1;
    while end < rows.len()
        && !matches!(state[end], RowState::Cone | RowState::Slip)
        && rows.jacobian_row(end).0 == dofs
    {
        end += 1;
    }
    end
}

fn is_decreasing(dofs: &[DofIndex]) -> bool {
    dofs.windows(2).all(|w| w[0] > w[1])
}

/// `H += D JᵢᵀJᵢ` (lower triangle) for one quadratic row, in any dof order.
fn add_quadratic_row(h: &mut [f64], nv: usize, rows: &ConstraintRows, r: usize) {
    let d = rows.d[r];
    let (dofs, vals) = rows.jacobian_row(r);
    for (i, (&p, &vp)) in dofs.iter().zip(vals).enumerate() {
        let dvp = d * vp;
        for (&q, &vq) in dofs[i..].iter().zip(&vals[i..]) {
            h[p.max(q) as usize * nv + p.min(q) as usize] += dvp * vq;
        }
    }
}

/// `H += Σ D JᵢᵀJᵢ` (lower triangle) over the quadratic rows of `run`, which share strictly decreasing dofs. Each
/// cell takes its rows' terms `(Dᵢ Jᵢₚ) Jᵢq` in row order, as row-by-row additions would, read and written once.
fn add_quadratic_run(
    h: &mut [f64],
    nv: usize,
    rows: &ConstraintRows,
    state: &[RowState],
    run: std::ops::Range<usize>,
    dv: &mut Vec<f64>,
) {
    let dofs = rows.jacobian_row(run.start).0;
    let n = dofs.len();
    // `Dₖ Jₖᵢ` then `Jₖᵢ` over the quadratic rows `k`, each laid out dof-major (`[i][k]`).
    let quadratic = || run.clone().filter(|&r| state[r] == RowState::Quadratic);
    let m = quadratic().count();
    dv.clear();
    dv.resize(2 * n * m, 0.0);
    let (scaled, plain) = dv.split_at_mut(n * m);
    for (k, r) in quadratic().enumerate() {
        let (d, vals) = (rows.d[r], rows.jacobian_row(r).1);
        for (i, &v) in vals.iter().enumerate() {
            scaled[i * m + k] = d * v;
            plain[i * m + k] = v;
        }
    }
    match m {
        1 => add_cells::<1>(h, nv, dofs, scaled, plain),
        2 => add_cells::<2>(h, nv, dofs, scaled, plain),
        3 => add_cells::<3>(h, nv, dofs, scaled, plain),
        4 => add_cells::<4>(h, nv, dofs, scaled, plain),
        6 => add_cells::<6>(h, nv, dofs, scaled, plain),
        _ => {
            for (i, &p) in dofs.iter().enumerate() {
                let h_row = &mut h[p as usize * nv..(p as usize + 1) * nv];
                let a = &scaled[i * m..(i + 1) * m];
                for (&q, b) in dofs[i..].iter().zip(plain[i * m..].chunks_exact(m)) {
                    h_row[q as usize] = a.iter().zip(b).fold(h_row[q as usize], |cell, (x, y)| cell + x * y);
                }
            }
        }
    }
}

/// The cells of [`add_quadratic_run`] for `M` quadratic rows (the row loop unrolled).
fn add_cells<const M: usize>(h: &mut [f64], nv: usize, dofs: &[DofIndex], scaled: &[f64], plain: &[f64]) {
    for ((i, &p), a) in dofs.iter().enumerate().zip(scaled.chunks_exact(M)) {
        let h_row = &mut h[p as usize * nv..(p as usize + 1) * nv];
        for (&q, b) in dofs[i..].iter().zip(plain[i * M..].chunks_exact(M)) {
            let mut cell = h_row[q as usize];
            for k in 0..M {
                cell += a[k] * b[k];
            }
            h_row[q as usize] = cell;
        }
    }
}

/// The residual-space Hessian of the block that starts at row `r` (`None` when `r` does not start one): a
/// middle-zone elliptic contact (`Cone`) or a sliding Signorini friction block (`Slip`).
fn block_hessian(
    rows: &ConstraintRows,
    at: RowsAt<'_>,
    r: usize,
) -> Option<(usize, [[f64; MAX_CONE_ROWS]; MAX_CONE_ROWS])> {
    let c = rows.cone[r]?;
    let start = rows.contact_row_start[c];
    match at.state[r] {
        RowState::Cone if start == r => {
            let block = ConeBlock::new(rows, r);
            Some((block.n, block.hessian(&at.jar[r..r + block.n])))
        }
        RowState::Slip => {
            let &(off, len) =
                signorini::friction_blocks(rows.contact_nrows[c]).iter().find(|b| start + b.0 == r)?;
            let rho = rows.mu[start + off] * at.latch[c];
            Some((len, signorini::slip_hessian(rho, &at.jar[r..r + len])))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::uniform;

    /// The dense assembly by runs of rows sharing dofs gives, bit for bit, the row-by-row sum `H += D JᵢᵀJᵢ`: runs of
    /// 1 to 7 rows (the unrolled counts and the loop), inactive and saturated rows inside a run, dofs listed out of
    /// order, and a run broken by a row over other dofs.
    #[test]
    fn runs_add_as_rows_do() {
        let mut rnd = uniform(0x2545_f491_4f6c_dd1d);
        let nv = 10;
        let mut rows = ConstraintRows::new();
        rows.jac_start.push(0);
        let mut state = Vec::new();
        let runs: [(&[DofIndex], usize); 8] = [
            (&[9, 7, 3], 4),
            (&[8, 6, 5, 4, 1, 0], 6),
            (&[2], 1),
            (&[5, 9, 1], 3),
            (&[9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 7),
            (&[6, 2], 2),
            (&[7, 3, 0], 3),
            (&[6, 2], 5),
        ];
        let states = [RowState::Quadratic, RowState::Quadratic, RowState::Inactive, RowState::LinearPos];
        for (dofs, n) in runs {
            for _ in 0..n {
                rows.jac_dof.extend_from_slice(dofs);
                rows.jac_val.extend(dofs.iter().map(|_| rnd() - 0.5));
                rows.jac_start.push(rows.jac_dof.len());
                rows.d.push(1.1 + rnd());
                rows.kind.push(RowKind::ContactPyramidal);
                state.push(states[(rnd() * 4.0) as usize % 4]);
            }
        }
        let h0: Vec<f64> = (0..nv * nv).map(|_| rnd()).collect();
        let mut by_rows = h0.clone();
        for r in (0..rows.len()).filter(|&r| state[r] == RowState::Quadratic) {
            add_quadratic_row(&mut by_rows, nv, &rows, r);
        }
        let mut by_runs = h0;
        let zeros = vec![0.0; rows.len()];
        let at = RowsAt { state: &state, jar: &zeros, latch: &[] };
        add_rows_dense(&mut by_runs, nv, &rows, at, &mut Vec::new());
        assert_eq!(by_runs, by_rows);
    }
}
