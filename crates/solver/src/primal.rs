//! The primal iteration (`reference-semantics.md` §C.2–§C.5, §C.7; MuJoCo `mj_solPrimal`), shared by Newton and CG.
//!
//! ```text
//! warm start (§C.7) → rows (§C.1) → g = Ma − f_s − Jᵀλ → [Newton: H = M + Jᵀ D_active J, H = LLᵀ]
//! Mgrad = H⁻¹ g (Newton) or M⁻¹ g (CG);  zero-iteration certificate;  s = −Mgrad
//! repeat: exact line search along s (§C.4) → a += αs → rows → g, Mgrad → termination (§C.5) → new s
//! ```
//!
//! Termination with `scale = 1/(meaninertia·max(1, nv))` (per island: `1/tr(M_island)`): stop when `0 < scale·improvement < tol`, when
//! `scale·‖g‖ < tol`, or (Newton) when the decrement `½·scale·gᵀH⁻¹g < tol`. The certificate skips the loop when
//! `½·scale·gᵀM⁻¹g < tol` and (Newton) `scale·‖g‖ < tol`.

use signorini_constraints::{ConstraintRows, RowKind};
use signorini_model::{Data, Model};

use crate::block_cholesky::BlockCholesky;
use crate::cost::{
    ConeBlock, ConeLine, MAX_CONE_ROWS, RowState, gauss_cost, row_coefficients, row_cost_force, row_state,
    update_one_sided_rows, update_rows,
};
use crate::dense::{cholesky_in_place, cholesky_rank_one, cholesky_solve};
use crate::islands::Islands;
use crate::linesearch::{Point, search};
use crate::mass::TreeMass;
use crate::reduce::{dot, dot_difference};
use crate::signorini;
use crate::{CgUpdate, ConstraintSolver, SolveStats, SolverError, SolverKind, SolverOptions, WarmStart};

/// Below this a step or direction counts as zero (MuJoCo `mjMINVAL`).
const EPS: f64 = 1e-15;

/// Every this many iterations `Ma` and `Ja − aref` are recomputed instead of updated along the step.
const REFRESH: usize = 8;

/// Newton problems with at most this many dofs (or a single tree) factor a dense Hessian; larger ones use the
/// tree-block sparse factor with rank-1 updates.
const DENSE_MAX_NV: usize = 24;

/// Newton or CG on the primal problem, with its work arrays kept between solves (a solve with no more dofs and
/// rows than an earlier one does not allocate).
#[derive(Debug, Clone, Default)]
pub struct PrimalSolver {
    work: Work,
    islands: bool,
    mass: TreeMass,
    scratch: IslandScratch,
}

/// The data of one (sub)problem: the mass matrix over its dofs, `f_s`, `a_s` and its rows (local dof indices).
#[derive(Debug, Clone, Copy)]
struct Problem<'a> {
    mass: &'a TreeMass,
    fs: &'a [f64],
    a_s: &'a [f64],
    rows: &'a ConstraintRows,
}

/// Per-island copies (islands mode).
#[derive(Debug, Clone, Default)]
struct IslandScratch {
    islands: Islands,
    /// Runs of rows over the same dofs of the whole problem.
    groups: Vec<(usize, usize)>,
    local: Vec<usize>,
    rows: ConstraintRows,
    fs: Vec<f64>,
    a_s: Vec<f64>,
    warm: Vec<f64>,
}

/// The work arrays of the iteration.
#[derive(Debug, Clone, Default)]
struct Work {
    kind: SolverKind,
    a: Vec<f64>,
    ma: Vec<f64>,
    jar: Vec<f64>,
    jv: Vec<f64>,
    state: Vec<RowState>,
    force: Vec<f64>,
    g: Vec<f64>,
    mgrad: Vec<f64>,
    g_prev: Vec<f64>,
    mgrad_prev: Vec<f64>,
    s: Vec<f64>,
    ms: Vec<f64>,
    tmp: Vec<f64>,
    hessian: Vec<f64>,
    /// `1 / L_ii` of the dense factor.
    hessian_inv: Vec<f64>,
    /// A dense rank-1 update's vector.
    rank_one_v: Vec<f64>,
    /// The sparse Newton factor (large problems), analysed once per solve.
    sparse: BlockCholesky,
    use_sparse: bool,
    analysed: bool,
    dense_max_nv: usize,
    /// The row states the sparse factor was built or last updated for.
    factored_state: Vec<RowState>,
    changed: Vec<usize>,
    trees: Vec<usize>,
    link_start: Vec<usize>,
    /// What the sparse factor's symbolic analysis was built for.
    analysed_for: AnalysisKey,
    factorizations: usize,
    updates: usize,
    /// Quadratic coefficients `[½ D x₀², D x₀ v, ½ D v²]` of every row along the current search direction.
    quad: Vec<[f64; 3]>,
    /// Every elliptic block along the current search direction, in row order (MuJoCo's `CGprepare`).
    cone_line: Vec<ConeLine>,
    /// Whether each row is a plain one-sided row (limit, pyramidal or frictionless contact).
    one_sided: Vec<bool>,
    /// Whether every row is one-sided (the line search then runs its branch-free loop).
    all_one_sided: bool,
    /// Runs of consecutive rows over the same dofs (the rows of one contact): `(first row, rows)`. `J x` and
    /// `Jᵀ f` load each run's dof indices and `x` entries once.
    groups: Vec<(usize, usize)>,
    /// Signorini resolution of elliptic contacts, and each contact's latched normal load.
    signorini: bool,
    latch: Vec<f64>,
    latch_gap: Vec<f64>,
}

impl PrimalSolver {
    /// A solver running `kind` on the whole system at once (termination scale `1/(meaninertia·max(1, nv))`).
    pub fn new(kind: SolverKind) -> Self {
        Self { work: Work { kind, dense_max_nv: DENSE_MAX_NV, ..Work::default() }, ..Self::default() }
    }

    /// A solver running `kind` per island (§C.6): connected components of kinematic trees linked by rows, each
    /// solved and terminated on its own with the scale `1/tr(M_island)`; dofs without rows get `qacc_smooth`.
    pub fn with_islands(kind: SolverKind) -> Self {
        Self { islands: true, ..Self::new(kind) }
    }

    /// Newton problems (whole system or island) with at most `nv` dofs, or a single kinematic tree, factor a dense
    /// Hessian; larger ones use the tree-block sparse factor with rank-1 updates. Default 24. The two give the same
    /// iterates up to round-off.
    pub fn with_dense_limit(mut self, nv: usize) -> Self {
        self.work.dense_max_nv = nv;
        self
    }

    /// The method this solver runs.
    pub fn kind(&self) -> SolverKind {
        self.work.kind
    }

    /// Whether it solves per island.
    pub fn uses_islands(&self) -> bool {
        self.islands
    }
}

impl Work {
    /// Sizes the scratch for `nv` dofs and `nrows` rows. Every entry is written before it is read in a run, so
    /// entries kept from the previous run are not zeroed.
    fn resize(&mut self, nv: usize, nrows: usize) {
        for v in [
            &mut self.a,
            &mut self.ma,
            &mut self.g,
            &mut self.mgrad,
            &mut self.g_prev,
            &mut self.mgrad_prev,
            &mut self.s,
            &mut self.ms,
            &mut self.tmp,
        ] {
            v.resize(nv, 0.0);
        }
        for v in [&mut self.jar, &mut self.jv, &mut self.force] {
            v.resize(nrows, 0.0);
        }
        self.quad.resize(nrows, [0.0; 3]);
        self.one_sided.clear();
        self.state.resize(nrows, RowState::Inactive);
        self.analysed = false;
        self.use_sparse = false;
        self.factorizations = 0;
        self.updates = 0;
        if self.kind == SolverKind::Newton {
            self.hessian.clear();
        }
    }

    /// `jar = J a − aref`, row states and forces; returns the total cost.
    fn evaluate(&mut self, p: &Problem<'_>) -> f64 {
        let rows = p.rows;
        mul_j(rows, &self.groups, &self.a, &mut self.jar);
        for (x, aref) in self.jar.iter_mut().zip(&rows.aref) {
            *x -= aref;
        }
        p.mass.mul(&self.a, &mut self.ma);
        self.update_cost(p)
    }

    /// MuJoCo's choice of start: the rows' cost at `a = a_s` (where the Gauss term vanishes, `M a_s = f_s`) against
    /// the total cost at `warm`. `J a_s` and `J warm` are computed in one pass over `J` (`J a_s` in the `jv`
    /// scratch). Leaves `a`, `ma`, `jar`, row states and forces at the chosen start; returns its cost. Not for
    /// Signorini blocks (their latch is seeded by the first full evaluation).
    fn choose_start(&mut self, p: &Problem<'_>, warm: &[f64]) -> f64 {
        let rows = p.rows;
        mul_j2(rows, &self.groups, [p.a_s, warm], [&mut self.jv, &mut self.jar]);
        for ((xs, xw), aref) in self.jv.iter_mut().zip(self.jar.iter_mut()).zip(&rows.aref) {
            *xs -= aref;
            *xw -= aref;
        }
        let smooth_cost = rows_cost(rows, self.all_one_sided, &self.jv, &mut self.state, &mut self.force);
        self.a.copy_from_slice(warm);
        p.mass.mul(&self.a, &mut self.ma);
        let cost = self.update_cost(p);
        if smooth_cost < cost {
            self.a.copy_from_slice(p.a_s);
            return self.evaluate(p);
        }
        cost
    }

    /// Row states, forces and the total cost from the current `a`, `ma` and `jar`.
    fn update_cost(&mut self, p: &Problem<'_>) -> f64 {
        let rows = p.rows;
        let gauss = gauss_cost(&self.ma, &self.a, p.fs, p.a_s);
        if self.all_one_sided || !self.signorini {
            return gauss + rows_cost(rows, self.all_one_sided, &self.jar, &mut self.state, &mut self.force);
        }
        // Signorini: each elliptic contact's latched normal load is seeded at the first iterate and then moved once
        // per outer iteration toward the normal force at the iterate, by the whole gap or by half of it when the gap
        // changed sign without shrinking (G-W PR #3381, spec §C.1 and §H.5).
        let seed = self.latch.len() != rows.contact_row_start.len();
        if seed {
            self.latch.clear();
            self.latch.resize(rows.contact_row_start.len(), 0.0);
            self.latch_gap.clear();
            self.latch_gap.resize(rows.contact_row_start.len(), 0.0);
        }
        let mut cost = gauss;
        let mut i = 0;
        while i < rows.len() {
            if let (RowKind::ContactElliptic, Some(c)) = (rows.kind[i], rows.cone[i]) {
                let n = rows.contact_nrows[c];
                let target = signorini::latch(rows, i, self.jar[i]);
                if seed {
                    self.latch[c] = target;
                } else {
                    let gap = target - self.latch[c];
                    let previous = self.latch_gap[c];
                    let oscillates = gap * previous < 0.0 && gap.abs() >= previous.abs();
                    self.latch[c] = (self.latch[c] + if oscillates { 0.5 * gap } else { gap }).max(0.0);
                    self.latch_gap[c] = gap;
                }
                let load = self.latch[c];
                let r = i..i + n;
                cost += signorini::cost_force(
                    rows,
                    i,
                    n,
                    load,
                    &self.jar[r.clone()],
                    &mut self.force[r.clone()],
                    &mut self.state[r],
                );
                i += n;
                continue;
            }
            let s = row_state(rows, i, self.jar[i]);
            let (c, f) = row_cost_force(rows, i, s, self.jar[i]);
            self.state[i] = s;
            self.force[i] = f;
            cost += c;
            i += 1;
        }
        cost
    }

    /// `g = Ma − f_s − Jᵀλ` from the current `ma` and forces.
    fn gradient(&mut self, p: &Problem<'_>) {
        let rows = p.rows;
        for ((g, m), f) in self.g.iter_mut().zip(&self.ma).zip(p.fs) {
            *g = m - f;
        }
        sub_jt(rows, &self.groups, &self.force, &mut self.g);
    }

    /// Newton: builds `H = M + Σ_active D JᵢᵀJᵢ (+ Σ_middle cones J_cᵀ H^c J_c)` and factors it, densely for small
    /// problems and with the tree-block sparse factor otherwise.
    fn factor_hessian(&mut self, p: &Problem<'_>) {
        let nv = p.mass.nv;
        self.factorizations += 1;
        if !self.analysed {
            self.analysed = true;
            let ntrees = p.mass.trees(&mut self.trees);
            self.use_sparse = nv > self.dense_max_nv && ntrees > 1;
            if self.use_sparse {
                self.analyse(p.rows);
            } else {
                self.hessian.resize(nv * nv, 0.0);
            }
        }
        if self.use_sparse {
            self.factor_sparse(p);
        } else {
            self.factor_dense(p);
        }
        self.factored_state.clear();
        self.factored_state.extend_from_slice(&self.state);
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

    fn factor_sparse(&mut self, p: &Problem<'_>) {
        let rows = p.rows;
        let f = &mut self.sparse;
        f.clear_values();
        p.mass.for_each_entry(|i, j, m| f.add(i, j, m));
        for r in 0..rows.len() {
            match self.state[r] {
                RowState::Quadratic => {
                    let vals = rows.jacobian_row(r).1;
                    f.add_outer(r, vals, r, vals, rows.d[r]);
                }
                RowState::Cone | RowState::Slip => {
                    let Some((n, hc)) = block_hessian(rows, &self.state, &self.jar, &self.latch, r) else {
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
    fn update_hessian(&mut self, p: &Problem<'_>) {
        let (rows, nv) = (p.rows, p.mass.nv);
        self.changed.clear();
        let mut rebuild = false;
        for (r, (&old, &new)) in self.factored_state.iter().zip(&self.state).enumerate() {
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
                .filter(|&r| self.state[r] == RowState::Quadratic)
                .map(|r| (rows.jac_start[r + 1] - rows.jac_start[r]).pow(2))
                .sum();
            self.changed.len() * nv * nv > assembly + nv * nv * nv / 6
        };
        if !rebuild {
            for &r in &self.changed {
                let sigma = if self.state[r] == RowState::Quadratic { 1.0 } else { -1.0 };
                let (dofs, vals) = rows.jacobian_row(r);
                let scale = rows.d[r].sqrt();
                let failed = if self.use_sparse {
                    self.sparse.rank_one(dofs, vals, scale, sigma).is_err()
                } else {
                    self.rank_one_v.clear();
                    self.rank_one_v.resize(nv, 0.0);
                    for (&k, &v) in dofs.iter().zip(vals) {
                        self.rank_one_v[k] += scale * v;
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
            if self.use_sparse { self.factor_sparse(p) } else { self.factor_dense(p) }
        } else {
            self.updates += self.changed.len();
        }
        self.factored_state.copy_from_slice(&self.state);
    }

    /// Builds the lower triangle of the dense `H` and factors it.
    fn factor_dense(&mut self, p: &Problem<'_>) {
        let (nv, rows) = (p.mass.nv, p.rows);
        let h = &mut self.hessian;
        p.mass.fill_dense(h);
        for r in 0..rows.len() {
            match self.state[r] {
                RowState::Quadratic => {
                    let d = rows.d[r];
                    let (dofs, vals) = rows.jacobian_row(r);
                    // The lower triangle only (the factor reads nothing else); a row's dofs decrease.
                    for (i, (&p, &vp)) in dofs.iter().zip(vals).enumerate() {
                        let dvp = d * vp;
                        for (&q, &vq) in dofs[i..].iter().zip(&vals[i..]) {
                            h[p * nv + q] += dvp * vq;
                        }
                    }
                }
                RowState::Cone | RowState::Slip => {
                    // J_bᵀ H^b J_b for a middle-zone elliptic block or a sliding Signorini friction block.
                    let Some((n, hc)) = block_hessian(rows, &self.state, &self.jar, &self.latch, r) else {
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
                                        h[p * nv + q] += w * vq;
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

    /// `mgrad = H⁻¹ g` (Newton) or `M⁻¹ g` (CG).
    fn precondition(&mut self, mass: &TreeMass) {
        self.mgrad.copy_from_slice(&self.g);
        match self.kind {
            SolverKind::Newton if self.use_sparse => self.sparse.solve(&mut self.mgrad),
            SolverKind::Newton => cholesky_solve(&self.hessian, &self.hessian_inv, mass.nv, &mut self.mgrad),
            SolverKind::Cg => mass.solve(&mut self.mgrad),
        }
    }

    /// The 1-D cost along `s` at `α` (uses `jar`, `jv`, `ma`, `ms`): the Gauss quadratic `gauss` plus every row in
    /// the state it has at `α`.
    /// The line-search data of every elliptic block (not for Signorini blocks, which have their own line).
    fn prepare_cones(&mut self, rows: &ConstraintRows) {
        self.cone_line.clear();
        if self.all_one_sided || self.signorini {
            return;
        }
        let mut i = 0;
        while i < rows.len() {
            if rows.kind[i] != RowKind::ContactElliptic {
                i += 1;
                continue;
            }
            let block = ConeBlock::new(rows, i);
            let r = i..i + block.n;
            self.cone_line.push(ConeLine::new(
                &block,
                &self.jar[r.clone()],
                &self.jv[r.clone()],
                &self.quad[r],
            ));
            i += block.n;
        }
    }

    fn line_point(&self, rows: &ConstraintRows, gauss: [f64; 3], alpha: f64) -> Point {
        // [cost, c', c''].
        let mut acc = [0.0; 3];
        add_quadratic(&mut acc, &gauss, alpha, 1.0);
        if self.all_one_sided {
            // MuJoCo's `CGeval`: the Gauss quadratic plus the active rows' quadratics, summed coefficient-wise,
            // then evaluated once.
            let rows = one_sided_quad(&self.jar, &self.jv, &self.quad, alpha);
            let q: [f64; 3] = std::array::from_fn(|j| gauss[j] + rows[j]);
            return Point {
                alpha,
                cost: alpha * alpha * q[2] + alpha * q[1] + q[0],
                d1: 2.0 * alpha * q[2] + q[1],
                d2: (2.0 * q[2]).max(EPS),
            };
        }
        let add = |acc: &mut [f64; 3], c: [f64; 3]| {
            for (a, c) in acc.iter_mut().zip(c) {
                *a += c;
            }
        };
        let mut i = 0;
        let mut cones = self.cone_line.iter();
        while i < rows.len() {
            if self.one_sided[i] {
                // Limits and pyramidal/frictionless contact rows: quadratic below zero (the common case, kept tight).
                if self.jar[i] + alpha * self.jv[i] < 0.0 {
                    add_quadratic(&mut acc, &self.quad[i], alpha, 1.0);
                }
                i += 1;
                continue;
            }
            if let (true, RowKind::ContactElliptic, Some(c)) = (self.signorini, rows.kind[i], rows.cone[i]) {
                let n = rows.contact_nrows[c];
                let r = i..i + n;
                add(
                    &mut acc,
                    signorini::line(rows, i, n, self.latch[c], &self.jar[r.clone()], &self.jv[r], alpha),
                );
                i += n;
                continue;
            }
            if rows.kind[i] == RowKind::ContactElliptic
                && let Some(cone) = cones.next()
            {
                add(&mut acc, cone.at(alpha));
                i += cone.rows;
                continue;
            }
            let (x0, v) = (self.jar[i], self.jv[i]);
            // Rows are summed one by one (not as one aggregated quadratic): near the minimum the per-row
            // derivatives are small while the aggregated coefficients can be large and cancel.
            let q = match row_state(rows, i, x0 + alpha * v) {
                // The quadratic coefficients were prepared once for this line search.
                RowState::Quadratic => self.quad[i],
                RowState::Inactive => {
                    i += 1;
                    continue;
                }
                state => row_coefficients(rows, i, state, x0, v),
            };
            add_quadratic(&mut acc, &q, alpha, 1.0);
            i += 1;
        }
        Point { alpha, cost: acc[0], d1: acc[1], d2: acc[2].max(EPS) }
    }
}

/// Adds `w·q(α)`, `w·q′(α)`, `w·q″(α)` of the quadratic `q(α) = q₀ + α(q₁ + α q₂)` to `acc` (`w` is 1, or 0 to add
/// nothing without a branch).
#[inline(always)]
fn add_quadratic(acc: &mut [f64; 3], q: &[f64; 3], alpha: f64, w: f64) {
    acc[0] += w * (q[0] + alpha * (q[1] + alpha * q[2]));
    acc[1] += w * (q[1] + 2.0 * alpha * q[2]);
    acc[2] += w * (2.0 * q[2]);
}

/// `Σ` over one-sided rows active at `α` (`x₀ + α v < 0`) of their prepared quadratics `[q₀, q₁, q₂]`, coefficient
/// by coefficient, without branches and in four partial sums.
fn one_sided_quad(jar: &[f64], jv: &[f64], quad: &[[f64; 3]], alpha: f64) -> [f64; 3] {
    let mut acc = [[0.0; 3]; 4];
    let n = jar.len().min(jv.len()).min(quad.len());
    let (jar, jv, quad) = (&jar[..n], &jv[..n], &quad[..n]);
    let term = |x: f64, v: f64, q: &[f64; 3], acc: &mut [f64; 3]| {
        let w = if x + alpha * v < 0.0 { 1.0 } else { 0.0 };
        for (a, q) in acc.iter_mut().zip(q) {
            *a += w * q;
        }
    };
    let (x4, v4, q4) = (jar.chunks_exact(4), jv.chunks_exact(4), quad.chunks_exact(4));
    let mut tail = [0.0; 3];
    for ((x, v), q) in x4.remainder().iter().zip(v4.remainder()).zip(q4.remainder()) {
        term(*x, *v, q, &mut tail);
    }
    for ((x, v), q) in x4.zip(v4).zip(q4) {
        for k in 0..4 {
            term(x[k], v[k], &q[k], &mut acc[k]);
        }
    }
    std::array::from_fn(|j| (acc[0][j] + acc[1][j]) + (acc[2][j] + acc[3][j]) + tail[j])
}

/// The residual-space Hessian of the block that starts at row `r` (`None` when `r` does not start one): a
/// middle-zone elliptic contact (`Cone`) or a sliding Signorini friction block (`Slip`).
fn block_hessian(
    rows: &ConstraintRows,
    state: &[RowState],
    jar: &[f64],
    latch: &[f64],
    r: usize,
) -> Option<(usize, [[f64; MAX_CONE_ROWS]; MAX_CONE_ROWS])> {
    let c = rows.cone[r]?;
    let start = rows.contact_row_start[c];
    match state[r] {
        RowState::Cone if start == r => {
            let block = ConeBlock::new(rows, r);
            Some((block.n, block.hessian(&jar[r..r + block.n])))
        }
        RowState::Slip => {
            let &(off, len) =
                signorini::friction_blocks(rows.contact_nrows[c]).iter().find(|b| start + b.0 == r)?;
            let rho = rows.mu[start + off] * latch[c];
            Some((len, signorini::slip_hessian(rho, &jar[r..r + len])))
        }
        _ => None,
    }
}

/// Row states, forces and the rows' cost at residuals `jar` (not for Signorini blocks), with the one-sided fast
/// path when every row is one-sided.
fn rows_cost(
    rows: &ConstraintRows,
    all_one_sided: bool,
    jar: &[f64],
    state: &mut [RowState],
    force: &mut [f64],
) -> f64 {
    if all_one_sided {
        update_one_sided_rows(&rows.d, jar, state, force)
    } else {
        update_rows(rows, jar, state, force)
    }
}

/// The inputs of a sparse symbolic analysis: local trees, links and the rows' dofs.
#[derive(Debug, Clone, Default)]
struct AnalysisKey {
    trees: Vec<usize>,
    link_start: Vec<usize>,
    jac_start: Vec<usize>,
    jac_dof: Vec<usize>,
}

fn check_inputs(model: &Model, data: &Data, rows: &ConstraintRows) -> Result<(), SolverError> {
    let nv = model.nv;
    let n = rows.len();
    let dim = |what, expected, got| {
        if expected == got { Ok(()) } else { Err(SolverError::DimensionMismatch { what, expected, got }) }
    };
    dim("data.qacc_smooth", nv, data.qacc_smooth.len())?;
    dim("data.qfrc_smooth", nv, data.qfrc_smooth.len())?;
    dim("data.qm", model.nm, data.qm.len())?;
    if n == 0 {
        return Ok(());
    }
    dim("rows.jac_start", n + 1, rows.jac_start.len())?;
    dim("rows.id", n, rows.id.len())?;
    dim("rows.aref", n, rows.aref.len())?;
    dim("rows.d", n, rows.d.len())?;
    dim("rows.r", n, rows.r.len())?;
    dim("rows.frictionloss", n, rows.frictionloss.len())?;
    dim("rows.jac_dof", rows.jac_start[n], rows.jac_dof.len())?;
    dim("rows.jac_val", rows.jac_start[n], rows.jac_val.len())?;
    // Whole-array checks first (vectorisable); the offending row is located only on failure.
    let sorted_starts = rows.jac_start.windows(2).all(|w| w[0] <= w[1]);
    let dofs_in_range = all_below(&rows.jac_dof, nv);
    let finite_values = all_finite(&rows.jac_val);
    let rows_ok = rows.d.iter().zip(&rows.r).zip(&rows.aref).fold(true, |ok, ((&d, &r), &a)| {
        ok & (d > 0.0) & d.is_finite() & (r > 0.0) & r.is_finite() & a.is_finite()
    }) & rows
        .kind
        .iter()
        .zip(&rows.frictionloss)
        .fold(true, |ok, (&k, &f)| ok & ((k != RowKind::FrictionLoss) | (f >= 0.0)));
    let all_ok = sorted_starts && dofs_in_range && finite_values && rows_ok;
    // Locate the offending row.
    if !all_ok {
        for i in 0..n {
            if !sorted_starts && rows.jac_start[i] > rows.jac_start[i + 1] {
                return Err(SolverError::InvalidRow { row: i, reason: "decreasing jac_start" });
            }
            if !(dofs_in_range && finite_values) {
                let (dofs, vals) = rows.jacobian_row(i);
                if let Some(&dof) = dofs.iter().find(|&&k| k >= nv) {
                    return Err(SolverError::DofOutOfRange { row: i, dof, nv });
                }
                if vals.iter().any(|v| !v.is_finite()) {
                    return Err(SolverError::InvalidRow { row: i, reason: "non-finite Jacobian entry" });
                }
            }
            if !(rows.d[i] > 0.0 && rows.d[i].is_finite() && rows.r[i] > 0.0 && rows.r[i].is_finite()) {
                return Err(SolverError::InvalidRow { row: i, reason: "D and R must be finite and > 0" });
            }
            if !rows.aref[i].is_finite() {
                return Err(SolverError::InvalidRow { row: i, reason: "non-finite aref" });
            }
            if rows.kind[i] == RowKind::FrictionLoss && !(rows.frictionloss[i] >= 0.0) {
                return Err(SolverError::InvalidRow { row: i, reason: "negative friction loss" });
            }
        }
    }
    dim("rows.cone", n, rows.cone.len())?;
    dim("rows.mu", n, rows.mu.len())?;
    let mut i = 0;
    while i < n {
        if rows.kind[i] != RowKind::ContactElliptic {
            i += 1;
            continue;
        }
        // An elliptic block: the normal row first, `contact_nrows` elliptic rows of the same contact.
        let bad = |reason| Err(SolverError::InvalidRow { row: i, reason });
        let Some(c) = rows.cone[i] else { return bad("elliptic row without a contact") };
        if c >= rows.contact_row_start.len() || c >= rows.contact_nrows.len() || c >= rows.contact_mu.len() {
            return bad("elliptic row of an unknown contact");
        }
        let len = rows.contact_nrows[c];
        if rows.contact_row_start[c] != i || len == 0 || len > MAX_CONE_ROWS || i + len > n {
            return bad("elliptic block does not start at its normal row or has a bad size");
        }
        if (i..i + len).any(|k| rows.kind[k] != RowKind::ContactElliptic || rows.cone[k] != Some(c)) {
            return bad("elliptic block mixes rows of other kinds or contacts");
        }
        if !(rows.contact_mu[c] > 0.0 && rows.contact_mu[c].is_finite())
            || rows.mu[i + 1..i + len].iter().any(|m| !m.is_finite())
        {
            return bad("elliptic cone coefficient must be finite and > 0");
        }
        i += len;
    }
    Ok(())
}

/// `out_i = J_i · x` for every row, run by run (`groups` from [`ConstraintRows::dof_groups`]): four rows of a run
/// at a time share each loaded `x` entry and keep their sums in registers (each sum still runs over the dofs in
/// order).
fn mul_j(rows: &ConstraintRows, groups: &[(usize, usize)], x: &[f64], out: &mut [f64]) {
    for &(first, n) in groups {
        let dofs = rows.jacobian_row(first).0;
        let len = dofs.len();
        let out = &mut out[first..first + n];
        if len == 0 {
            out.fill(0.0);
            continue;
        }
        let base = rows.jac_start[first];
        let vals = &rows.jac_val[base..base + n * len];
        let mut out4 = out.chunks_exact_mut(4);
        let mut vals4 = vals.chunks_exact(4 * len);
        for (o, v) in (&mut out4).zip(&mut vals4) {
            mul_rows::<4>(dofs, v, x, o);
        }
        let (o, v) = (out4.into_remainder(), vals4.remainder());
        match o.len() {
            1 => mul_rows::<1>(dofs, v, x, o),
            2 => mul_rows::<2>(dofs, v, x, o),
            3 => mul_rows::<3>(dofs, v, x, o),
            _ => {}
        }
    }
}

/// [`mul_j`] of two vectors in one pass over `J` (each output bit-identical to [`mul_j`]'s).
fn mul_j2(rows: &ConstraintRows, groups: &[(usize, usize)], x: [&[f64]; 2], out: [&mut [f64]; 2]) {
    let [out0, out1] = out;
    for &(first, n) in groups {
        let dofs = rows.jacobian_row(first).0;
        let len = dofs.len();
        let (o0, o1) = (&mut out0[first..first + n], &mut out1[first..first + n]);
        if len == 0 {
            o0.fill(0.0);
            o1.fill(0.0);
            continue;
        }
        let base = rows.jac_start[first];
        let vals = &rows.jac_val[base..base + n * len];
        for ((r0, r1), row) in o0.iter_mut().zip(o1.iter_mut()).zip(vals.chunks_exact(len)) {
            let (mut a0, mut a1) = (0.0, 0.0);
            for (&d, &v) in dofs.iter().zip(row) {
                a0 += v * x[0][d];
                a1 += v * x[1][d];
            }
            (*r0, *r1) = (a0, a1);
        }
    }
}

/// `out[i] = J_i x` for `K` consecutive rows over the same `dofs` (`vals` row-major), the `K` sums side by side.
#[inline(always)]
fn mul_rows<const K: usize>(dofs: &[usize], vals: &[f64], x: &[f64], out: &mut [f64]) {
    let len = dofs.len();
    let rows: [&[f64]; K] = std::array::from_fn(|i| &vals[i * len..(i + 1) * len]);
    let mut acc = [0.0; K];
    for (k, &d) in dofs.iter().enumerate() {
        let xd = x[d];
        for (a, row) in acc.iter_mut().zip(&rows) {
            *a += row[k] * xd;
        }
    }
    out.copy_from_slice(&acc);
}

/// `g −= Σ_i J_iᵀ f_i`, run by run, skipping runs without force. Each dof's sum runs over the run's rows in order.
fn sub_jt(rows: &ConstraintRows, groups: &[(usize, usize)], f: &[f64], g: &mut [f64]) {
    for &(first, n) in groups {
        let fs = &f[first..first + n];
        if fs.iter().all(|&v| v == 0.0) {
            continue;
        }
        let dofs = rows.jacobian_row(first).0;
        let len = dofs.len();
        let base = rows.jac_start[first];
        let vals = &rows.jac_val[base..base + n * len];
        match n {
            1 => sub_jt_run::<1>(dofs, vals, fs, g),
            3 => sub_jt_run::<3>(dofs, vals, fs, g),
            4 => sub_jt_run::<4>(dofs, vals, fs, g),
            6 => sub_jt_run::<6>(dofs, vals, fs, g),
            _ => {
                for (k, &d) in dofs.iter().enumerate() {
                    let mut acc = 0.0;
                    for (&fi, row) in fs.iter().zip(vals.chunks_exact(len)) {
                        acc += row[k] * fi;
                    }
                    g[d] -= acc;
                }
            }
        }
    }
}

/// One run of `N` rows of [`sub_jt`], with the forces and row slices in registers.
#[inline(always)]
fn sub_jt_run<const N: usize>(dofs: &[usize], vals: &[f64], fs: &[f64], g: &mut [f64]) {
    let len = dofs.len();
    let rows: [&[f64]; N] = std::array::from_fn(|i| &vals[i * len..(i + 1) * len]);
    let f: [f64; N] = std::array::from_fn(|i| fs[i]);
    for (k, &d) in dofs.iter().enumerate() {
        let mut acc = 0.0;
        for i in 0..N {
            acc += rows[i][k] * f[i];
        }
        g[d] -= acc;
    }
}

/// Whether every value is below `bound` (at most `isize::MAX`), with only shifts, subtractions and bit operations
/// so that it vectorises (a 64-bit unsigned compare or max does not on baseline x86-64): `k < bound` iff the top bit
/// of `k` is clear and that of `k − bound` (wrapping) is set.
fn all_below(values: &[usize], bound: usize) -> bool {
    const TOP: u32 = usize::BITS - 1;
    debug_assert!(bound <= isize::MAX as usize);
    let outside = |k: usize| (k >> TOP) | ((k.wrapping_sub(bound) >> TOP) ^ 1);
    let mut lanes = [0usize; 4];
    let chunks = values.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        for (lane, &k) in lanes.iter_mut().zip(c) {
            *lane |= outside(k);
        }
    }
    let tail = rest.iter().fold(0, |acc, &k| acc | outside(k));
    (lanes[0] | lanes[1] | lanes[2] | lanes[3] | tail) == 0
}

/// Whether every value is finite: `v · 0` is 0 for finite `v` and NaN otherwise, summed in 4 independent lanes
/// (vectorisable, no long dependency chain).
fn all_finite(values: &[f64]) -> bool {
    let mut lanes = [0.0f64; 4];
    let chunks = values.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        for (lane, v) in lanes.iter_mut().zip(c) {
            *lane += v * 0.0;
        }
    }
    let tail: f64 = rest.iter().map(|v| v * 0.0).sum();
    lanes.iter().sum::<f64>() + tail == 0.0
}

impl Work {
    /// Runs the iteration on `p` from `a_s` or `warm` (§C.7), with the termination scale `scale`; leaves `a` and
    /// `force` in `self.a`, `self.force`. `self.groups` must hold the runs of `p.rows` over the same dofs (the
    /// caller knows them already from the islands).
    fn run(
        &mut self,
        p: &Problem<'_>,
        options: &SolverOptions,
        scale: f64,
        warm: Option<&[f64]>,
    ) -> Result<SolveStats, SolverError> {
        let (nv, nrows, rows) = (p.mass.nv, p.rows.len(), p.rows);
        self.resize(nv, nrows);
        self.signorini = options.signorini;
        self.one_sided.extend(rows.kind.iter().map(|k| k.is_one_sided()));
        self.all_one_sided = self.one_sided.iter().all(|&o| o);
        // The Signorini latch is seeded by the first evaluation of this run.
        self.latch.clear();
        if nrows == 0 || nv == 0 {
            // No constraint on these dofs: the unconstrained acceleration is the minimiser.
            self.a.copy_from_slice(p.a_s);
            let cost = self.evaluate(p);
            self.gradient(p);
            let gradient_norm = dot(&self.g, &self.g).sqrt();
            return Ok(SolveStats {
                iterations: 0,
                cost,
                gradient_norm,
                converged: true,
                ..SolveStats::default()
            });
        }

        // Warm start (§C.7): the incoming `qacc` when there is one, or the cheaper of it and the smooth acceleration
        // (whose cost is the rows' alone); Signorini blocks always start from the incoming `qacc`.
        let mut cost;
        match warm {
            Some(warm) if options.warm_start == WarmStart::CheaperOfIncomingAndSmooth && !self.signorini => {
                cost = self.choose_start(p, warm);
            }
            Some(warm) => {
                self.a.copy_from_slice(warm);
                cost = self.evaluate(p);
            }
            None => {
                self.a.copy_from_slice(p.a_s);
                cost = self.evaluate(p);
            }
        }
        if !cost.is_finite() {
            return Err(SolverError::NonFinite { cost });
        }

        let tol = options.tolerance;
        let newton = self.kind == SolverKind::Newton;
        self.gradient(p);

        // Zero-iteration certificate: ½·scale·gᵀM⁻¹g < tol (and, for Newton, scale·‖g‖ < tol). It needs only M⁻¹,
        // so a warm start that already satisfies it skips the Hessian factorization altogether.
        self.tmp.copy_from_slice(&self.g);
        p.mass.solve(&mut self.tmp);
        let gnorm = dot(&self.g, &self.g).sqrt();
        let mut converged = 0.5 * scale * dot(&self.g, &self.tmp) < tol && (!newton || scale * gnorm < tol);
        let mut iterations = 0;

        if !converged {
            if newton {
                self.factor_hessian(p);
                self.precondition(p.mass);
            } else {
                // CG's preconditioned gradient M⁻¹g is the certificate's `tmp`.
                self.mgrad.copy_from_slice(&self.tmp);
            }
            for (s, m) in self.s.iter_mut().zip(&self.mgrad) {
                *s = -m;
            }
        }
        while !converged && iterations < options.iterations {
            // Line search along s.
            let snorm = dot(&self.s, &self.s).sqrt();
            if snorm < EPS {
                converged = true;
                break;
            }
            p.mass.mul(&self.s, &mut self.ms);
            mul_j(rows, &self.groups, &self.s, &mut self.jv);
            for (q, ((&x0, &v), &d)) in self.quad.iter_mut().zip(self.jar.iter().zip(&self.jv).zip(&rows.d)) {
                *q = [0.5 * d * x0 * x0, d * x0 * v, 0.5 * d * v * v];
            }
            self.prepare_cones(rows);
            let gauss0 = gauss_cost(&self.ma, &self.a, p.fs, p.a_s);
            let gauss1 = dot_difference(&self.s, &self.ma, p.fs);
            let gauss = [gauss0, gauss1, 0.5 * dot(&self.s, &self.ms)];
            let gtol = tol * options.ls_tolerance * snorm / scale;
            let found = search(|alpha| self.line_point(rows, gauss, alpha), gtol, options.ls_iterations);
            let alpha = found.alpha;
            if !(alpha.abs() >= EPS) || !alpha.is_finite() {
                converged = true;
                break;
            }
            iterations += 1;

            // Step: a, Ma and Ja − aref move along s, Ms and Js (MuJoCo's incremental update), recomputed from
            // scratch every REFRESH iterations so that rounding does not accumulate over long CG runs.
            for (a, s) in self.a.iter_mut().zip(&self.s) {
                *a += alpha * s;
            }
            let old_cost = cost;
            if iterations % REFRESH == 0 {
                cost = self.evaluate(p);
            } else {
                for (m, ms) in self.ma.iter_mut().zip(&self.ms) {
                    *m += alpha * ms;
                }
                for (x, v) in self.jar.iter_mut().zip(&self.jv) {
                    *x += alpha * v;
                }
                cost = self.update_cost(p);
            }
            if !cost.is_finite() {
                return Err(SolverError::NonFinite { cost });
            }
            if !newton {
                self.g_prev.copy_from_slice(&self.g);
                self.mgrad_prev.copy_from_slice(&self.mgrad);
            }
            self.gradient(p);
            if newton {
                self.update_hessian(p);
            }
            self.precondition(p.mass);

            // Termination (§C.5).
            let improvement = scale * (old_cost - cost);
            let gradient = scale * dot(&self.g, &self.g).sqrt();
            let decrement =
                if newton { (0.5 * scale * dot(&self.g, &self.mgrad)).max(0.0) } else { f64::INFINITY };
            // Signorini: the latched loads move the objective between iterations, so only a fixed point (small
            // gradient and, for Newton, small decrement) terminates.
            // It also stops when both the decrement and the improvement are below the tolerance: the iterate no
            // longer moves, and the gradient left (at the round-off floor of stiff rows) would only shrink slowly
            // (a deviation from G-W, which iterates to the cap there).
            let done = if self.signorini {
                (gradient < tol || improvement.abs() < tol) && (!newton || decrement < tol)
            } else {
                (improvement > 0.0 && improvement < tol) || gradient < tol || decrement < tol
            };
            if done {
                converged = true;
                break;
            }

            // New direction.
            if newton {
                for (s, m) in self.s.iter_mut().zip(&self.mgrad) {
                    *s = -m;
                }
            } else {
                let beta = match options.cg_update {
                    CgUpdate::PolakRibierePlus => {
                        // β = max(0, gᵀ(M⁻¹g − M⁻¹g_prev) / g_prevᵀM⁻¹g_prev).
                        let num: f64 = self
                            .g
                            .iter()
                            .zip(self.mgrad.iter().zip(&self.mgrad_prev))
                            .map(|(g, (m, mp))| g * (m - mp))
                            .sum();
                        let den = dot(&self.g_prev, &self.mgrad_prev).max(EPS);
                        (num / den).max(0.0)
                    }
                    CgUpdate::HagerZhang => {
                        // y = g − g_prev, My = M⁻¹g − M⁻¹g_prev, d = s:
                        // β = max(η, (yᵀM⁻¹g − 2 (yᵀMy / dᵀy) dᵀg) / dᵀy), η = −1 / max(ε, ‖d‖ min(0.01, ‖g‖));
                        // β = 0 when dᵀy < ε.
                        let (mut dy, mut ymg, mut ymy, mut dg, mut dd, mut gg) =
                            (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
                        let (g, mg) = (&self.g[..nv], &self.mgrad[..nv]);
                        let (gp, mgp, s) = (&self.g_prev[..nv], &self.mgrad_prev[..nv], &self.s[..nv]);
                        for k in 0..nv {
                            let y = g[k] - gp[k];
                            let my = mg[k] - mgp[k];
                            let d = s[k];
                            dy += d * y;
                            ymg += y * mg[k];
                            ymy += y * my;
                            dg += d * g[k];
                            dd += d * d;
                            gg += g[k] * g[k];
                        }
                        if dy < EPS {
                            0.0
                        } else {
                            let hz = (ymg - 2.0 * (ymy / dy) * dg) / dy;
                            let eta = -1.0 / (dd.sqrt() * gg.sqrt().min(0.01)).max(EPS);
                            hz.max(eta)
                        }
                    }
                };
                for (s, m) in self.s.iter_mut().zip(&self.mgrad) {
                    *s = -m + beta * *s;
                }
                // Not a descent direction (possible with an inexact line search): restart from −M⁻¹g.
                if dot(&self.s, &self.g) >= 0.0 {
                    for (s, m) in self.s.iter_mut().zip(&self.mgrad) {
                        *s = -m;
                    }
                }
            }
        }

        Ok(SolveStats {
            iterations,
            cost,
            gradient_norm: dot(&self.g, &self.g).sqrt(),
            converged,
            factorizations: self.factorizations,
            rank_one_updates: self.updates,
            islands: 1,
        })
    }
}

impl ConstraintSolver for PrimalSolver {
    fn solve(
        &mut self,
        model: &Model,
        data: &Data,
        rows: &ConstraintRows,
        options: &SolverOptions,
        qacc: &mut Vec<f64>,
        efc_force: &mut Vec<f64>,
    ) -> Result<SolveStats, SolverError> {
        check_inputs(model, data, rows)?;
        let nv = model.nv;
        let warm_valid = qacc.len() == nv && qacc.iter().all(|v| v.is_finite());
        efc_force.clear();
        efc_force.resize(rows.len(), 0.0);
        if !warm_valid {
            qacc.clear();
            qacc.extend_from_slice(&data.qacc_smooth);
        }
        // The incoming `qacc` is a warm start only when there are rows; `run` may still prefer `qacc_smooth`
        // (`WarmStart::CheaperOfIncomingAndSmooth`).
        let warm = if warm_valid && !rows.is_empty() { Some(&qacc[..]) } else { None };
        if !self.islands {
            rows.dof_groups(&mut self.work.groups);
            self.mass.assign_all(model, data);
            let p = Problem { mass: &self.mass, fs: &data.qfrc_smooth, a_s: &data.qacc_smooth, rows };
            let scale = 1.0 / (model.meaninertia * nv.max(1) as f64);
            let stats = self.work.run(&p, options, scale, warm)?;
            qacc.copy_from_slice(&self.work.a);
            efc_force.copy_from_slice(&self.work.force);
            return Ok(SolveStats { islands: usize::from(!rows.is_empty()), ..stats });
        }
        self.solve_islands(model, data, rows, options, qacc, efc_force)
    }
}

impl PrimalSolver {
    /// Per-island solves: every island is gathered into local copies, solved, and scattered back.
    fn solve_islands(
        &mut self,
        model: &Model,
        data: &Data,
        rows: &ConstraintRows,
        options: &SolverOptions,
        qacc: &mut [f64],
        efc_force: &mut [f64],
    ) -> Result<SolveStats, SolverError> {
        if rows.is_empty() {
            // No island: every dof is unconstrained.
            qacc.copy_from_slice(&data.qacc_smooth);
            return Ok(SolveStats { converged: true, ..SolveStats::default() });
        }
        let sc = &mut self.scratch;
        rows.dof_groups(&mut sc.groups);
        sc.islands.build_with_groups(model, rows, &sc.groups);
        // One island over every dof and row: solve in place, without gathering copies.
        if sc.islands.count() == 1 && sc.islands.dofs(0).len() == model.nv && sc.islands.free_rows.is_empty()
        {
            self.work.groups.clone_from(&sc.groups);
            self.mass.assign_all(model, data);
            let p = Problem { mass: &self.mass, fs: &data.qfrc_smooth, a_s: &data.qacc_smooth, rows };
            let scale = 1.0 / self.mass.trace().max(f64::MIN_POSITIVE);
            let stats = self.work.run(&p, options, scale, Some(&*qacc))?;
            qacc.copy_from_slice(&self.work.a);
            efc_force.copy_from_slice(&self.work.force);
            return Ok(stats);
        }
        sc.local.clear();
        sc.local.resize(model.nv, usize::MAX);
        let mut total = SolveStats { converged: true, ..SolveStats::default() };
        let warm_valid = !rows.is_empty();
        // Dofs outside every island are unconstrained.
        for (k, island) in sc.islands.dof_island.iter().enumerate() {
            if island.is_none() {
                qacc[k] = data.qacc_smooth[k];
            }
        }
        let mut gsq = 0.0;
        for island in 0..sc.islands.count() {
            let dofs = sc.islands.dofs(island);
            for (l, &g) in dofs.iter().enumerate() {
                sc.local[g] = l;
            }
            self.mass.assign(model, data, dofs, &sc.local);
            sc.fs.clear();
            sc.a_s.clear();
            sc.warm.clear();
            for &g in dofs {
                sc.fs.push(data.qfrc_smooth[g]);
                sc.a_s.push(data.qacc_smooth[g]);
                sc.warm.push(qacc[g]);
            }
            sc.rows.clear();
            self.work.groups.clear();
            let mut previous = usize::MAX;
            let island_rows = sc.islands.rows(island);
            for (l, &r) in island_rows.iter().enumerate() {
                match self.work.groups.last_mut() {
                    Some((_, n)) if r == previous.wrapping_add(1) && !sc.islands.starts_group(r) => *n += 1,
                    _ => self.work.groups.push((l, 1)),
                }
                previous = r;
            }
            // The island's rows are increasing: copy each run of consecutive rows at once.
            let mut k = 0;
            while k < island_rows.len() {
                let first = island_rows[k];
                let mut end = k + 1;
                while end < island_rows.len() && island_rows[end] == first + (end - k) {
                    end += 1;
                }
                copy_rows(rows, first..first + (end - k), &sc.local, &mut sc.rows);
                k = end;
            }
            let p = Problem { mass: &self.mass, fs: &sc.fs, a_s: &sc.a_s, rows: &sc.rows };
            let scale = 1.0 / self.mass.trace().max(f64::MIN_POSITIVE);
            let warm = if warm_valid { Some(&sc.warm[..]) } else { None };
            let stats = self.work.run(&p, options, scale, warm)?;
            for (l, &g) in dofs.iter().enumerate() {
                qacc[g] = self.work.a[l];
            }
            for (l, &r) in sc.islands.rows(island).iter().enumerate() {
                efc_force[r] = self.work.force[l];
            }
            total.iterations = total.iterations.max(stats.iterations);
            total.cost += stats.cost;
            gsq += stats.gradient_norm * stats.gradient_norm;
            total.converged &= stats.converged;
            total.factorizations += stats.factorizations;
            total.rank_one_updates += stats.rank_one_updates;
        }
        // Rows without Jacobian entries have the constant residual `−aref`: their cost and force are fixed.
        for &r in &sc.islands.free_rows {
            let x = -rows.aref[r];
            let state = row_state(rows, r, x);
            let (c, f) = crate::cost::row_cost_force(rows, r, state, x);
            total.cost += c;
            efc_force[r] = f;
        }
        total.gradient_norm = gsq.sqrt();
        total.islands = sc.islands.count();
        Ok(total)
    }
}

/// Appends rows `range` of `rows` to `out` with their dofs mapped through `local` (elliptic contacts keep their
/// block layout: the contact index is renumbered to the blocks of `out`).
fn copy_rows(
    rows: &ConstraintRows,
    range: std::ops::Range<usize>,
    local: &[usize],
    out: &mut ConstraintRows,
) {
    if out.jac_start.is_empty() {
        out.jac_start.push(0);
    }
    let (j0, j1) = (rows.jac_start[range.start], rows.jac_start[range.end]);
    let base = out.jac_dof.len();
    out.jac_dof.extend(rows.jac_dof[j0..j1].iter().map(|&k| local[k]));
    out.jac_val.extend_from_slice(&rows.jac_val[j0..j1]);
    out.jac_start.extend(rows.jac_start[range.start + 1..=range.end].iter().map(|&s| s - j0 + base));
    out.kind.extend_from_slice(&rows.kind[range.clone()]);
    out.id.extend_from_slice(&rows.id[range.clone()]);
    out.pos.extend_from_slice(&rows.pos[range.clone()]);
    out.margin.extend_from_slice(&rows.margin[range.clone()]);
    out.imp.extend_from_slice(&rows.imp[range.clone()]);
    out.vel.extend_from_slice(&rows.vel[range.clone()]);
    out.aref.extend_from_slice(&rows.aref[range.clone()]);
    out.r.extend_from_slice(&rows.r[range.clone()]);
    out.d.extend_from_slice(&rows.d[range.clone()]);
    out.frictionloss.extend_from_slice(&rows.frictionloss[range.clone()]);
    out.mu.extend_from_slice(&rows.mu[range.clone()]);
    for r in range {
        let cone = match rows.cone[r] {
            Some(c) if rows.kind[r] == RowKind::ContactElliptic => {
                if rows.contact_row_start[c] == r {
                    out.contact_row_start.push(out.cone.len());
                    out.contact_nrows.push(rows.contact_nrows[c]);
                    out.contact_dim.push(rows.contact_dim.get(c).copied().unwrap_or(rows.contact_nrows[c]));
                    out.contact_mu.push(rows.contact_mu[c]);
                }
                Some(out.contact_row_start.len() - 1)
            }
            // Other contact rows keep no block data in the copy (the solver does not read it).
            _ => None,
        };
        out.cone.push(cone);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `all_below` against the plain comparison, for lengths around the four-lane body and values at and around the
    /// bound, zero, and huge ones (top bit set).
    #[test]
    fn all_below_is_the_plain_comparison() {
        let specials = [0, 1, 5, 6, 7, usize::MAX, usize::MAX / 2, usize::MAX / 2 + 1, usize::MAX - 6];
        for bound in [0, 1, 6, 7, isize::MAX as usize] {
            for n in 0..10 {
                for &v in &specials {
                    for at in 0..n {
                        let mut values: Vec<usize> = (0..n).map(|i| i % 3).collect();
                        values[at] = v;
                        let plain = values.iter().all(|&k| k < bound);
                        assert_eq!(all_below(&values, bound), plain, "{values:?} < {bound}");
                    }
                }
                let values: Vec<usize> = (0..n).map(|i| i % 3).collect();
                assert_eq!(all_below(&values, bound), values.iter().all(|&k| k < bound));
            }
        }
    }

    /// Uniform numbers in [−1, 1) from a xorshift generator seeded with `state`.
    fn uniform(mut state: u64) -> impl FnMut() -> f64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    /// The branch-free coefficient sums equal the sum over the rows active at `α`, one by one, for every length
    /// (the four-lane body and its remainder) and rows switching on and off along the line.
    #[test]
    fn one_sided_quad_sums_the_active_rows() {
        let mut rnd = uniform(0x2545_f491_4f6c_dd1d);
        for n in 0..13 {
            let jar: Vec<f64> = (0..n).map(|_| rnd()).collect();
            let jv: Vec<f64> = (0..n).map(|_| rnd()).collect();
            let quad: Vec<[f64; 3]> = (0..n).map(|_| [rnd(), rnd(), rnd().abs()]).collect();
            for alpha in [-1.0, -0.3, 0.0, 0.4, 2.0] {
                let got = one_sided_quad(&jar, &jv, &quad, alpha);
                let mut expected = [0.0; 3];
                for k in 0..n {
                    if jar[k] + alpha * jv[k] < 0.0 {
                        for j in 0..3 {
                            expected[j] += quad[k][j];
                        }
                    }
                }
                for j in 0..3 {
                    assert!((got[j] - expected[j]).abs() < 1e-14, "n {n} α {alpha}: {got:?} vs {expected:?}");
                }
            }
        }
    }

    /// `mul_j2` gives exactly `mul_j`'s two products, over runs of 3 to 7 rows sharing dofs (the four-row body of
    /// `mul_j` and its remainders), empty rows included.
    #[test]
    fn mul_j2_is_mul_j_twice() {
        let mut rnd = uniform(0x9e37_79b9_7f4a_7c15);
        let nv = 9;
        let mut rows = ConstraintRows::new();
        rows.jac_start.push(0);
        let runs: [&[usize]; 5] = [&[8, 5, 2], &[7, 6, 4, 1, 0], &[], &[3], &[8, 7, 6, 5, 4, 3, 2, 1, 0]];
        for (r, dofs) in runs.iter().enumerate() {
            for _ in 0..r + 3 {
                rows.jac_dof.extend_from_slice(dofs);
                rows.jac_val.extend(dofs.iter().map(|_| rnd()));
                rows.jac_start.push(rows.jac_dof.len());
                rows.kind.push(RowKind::ContactPyramidal);
            }
        }
        let mut groups = Vec::new();
        rows.dof_groups(&mut groups);
        let n = rows.len();
        let (x0, x1): (Vec<f64>, Vec<f64>) =
            ((0..nv).map(|_| rnd()).collect(), (0..nv).map(|_| rnd()).collect());
        let (mut a0, mut a1, mut b0, mut b1) = (vec![9.0; n], vec![9.0; n], vec![7.0; n], vec![7.0; n]);
        mul_j(&rows, &groups, &x0, &mut a0);
        mul_j(&rows, &groups, &x1, &mut a1);
        mul_j2(&rows, &groups, [&x0, &x1], [&mut b0, &mut b1]);
        assert_eq!((a0, a1), (b0, b1));
    }
}
