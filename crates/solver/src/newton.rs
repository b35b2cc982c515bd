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
        let (nv, rows) = (p.mass.nv, p.rows);
        let h = &mut self.hessian;
        p.mass.fill_dense(h);
        for r in 0..rows.len() {
            match at.state[r] {
                RowState::Quadratic => {
                    let d = rows.d[r];
                    let (dofs, vals) = rows.jacobian_row(r);
                    // The lower triangle only (the factor reads nothing else), whatever the order of the row's
                    // dofs (the assembler lists them decreasing; a hand-built row need not).
                    for (i, (&p, &vp)) in dofs.iter().zip(vals).enumerate() {
                        let dvp = d * vp;
                        for (&q, &vq) in dofs[i..].iter().zip(&vals[i..]) {
                            h[p.max(q) as usize * nv + p.min(q) as usize] += dvp * vq;
                        }
                    }
                }
                RowState::Cone | RowState::Slip => {
                    // J_bᵀ H^b J_b for a middle-zone elliptic block or a sliding Signorini friction block.
                    let Some((n, hc)) = block_hessian(rows, at, r) else {
                        continue;
                    };
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
                _ => {}
            }
        }
        self.hessian_inv.resize(nv, 0.0);
        cholesky_in_place(h, nv, &mut self.hessian_inv);
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
