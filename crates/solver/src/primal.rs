//! The primal iteration (`reference-semantics.md` §C.2–§C.5, §C.7; MuJoCo `mj_solPrimal`), shared by Newton and CG.
//!
//! ```text
//! warm start (§C.7) → rows (§C.1) → g = Ma − f_s − Jᵀλ → [Newton: H = M + Jᵀ D_active J, H = LLᵀ]
//! Mgrad = H⁻¹ g (Newton) or M⁻¹ g (CG);  zero-iteration certificate;  s = −Mgrad
//! repeat: exact line search along s (§C.4) → a += αs → rows → g, Mgrad → termination (§C.5) → new s
//! ```
//!
//! Termination with `scale = 1/(meaninertia·max(1, nv))` (per island: `1/tr(M_island)`): stop when
//! `0 < scale·improvement < tol`, when `scale·‖g‖ < tol`, or (Newton) when the decrement `½·scale·gᵀH⁻¹g < tol`.
//! The certificate skips the loop when `½·scale·gᵀM⁻¹g < tol` and (Newton) `scale·‖g‖ < tol`. With Signorini
//! resolution only a fixed point terminates: small gradient (or improvement) and, for Newton, small decrement.
//!
//! The method-specific parts live beside this loop, in the crate's private modules `newton` (the Hessian and its
//! factor), `cg` (the conjugate direction), `line_cost` (the cost along the search line) and `island_solve`
//! (per-island gather, solve, scatter), and in [`crate::signorini`] (the latched loads).

use signorini_constraints::ConstraintRows;
use signorini_model::{Data, Model};

use crate::cg;
use crate::cost::{RowState, gauss_cost, update_one_sided_rows, update_rows};
use crate::island_solve::solve_islands;
use crate::jacobian::{mul_j, mul_j2, sub_jt};
use crate::line_cost::AlongLine;
use crate::linesearch::search;
use crate::mass::TreeMass;
use crate::newton::{NewtonFactor, RowsAt};
use crate::reduce::{dot, dot_difference};
use crate::signorini::Latch;
use crate::validate::check_inputs;
use crate::{ConstraintSolver, SolveStats, SolverData, SolverError, SolverKind, SolverOptions, WarmStart};

/// Below this a step or direction counts as zero (MuJoCo `mjMINVAL`).
pub(crate) const EPS: f64 = 1e-15;

/// Every this many iterations `Ma` and `Ja − aref` are recomputed instead of updated along the step.
const REFRESH: usize = 8;

/// Newton problems with at most this many dofs (or a single tree) factor a dense Hessian; larger ones use the
/// tree-block sparse factor with rank-1 updates.
const DENSE_MAX_NV: usize = 24;

/// Newton or CG on the primal problem, on the whole system or per island: configuration only. Its work arrays are
/// the caller's [`SolverData`], so one solver can serve many simulations (it is `Copy`, `Send` and `Sync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PrimalSolver {
    /// The method.
    kind: SolverKind,
    /// Whether every island is solved and terminated on its own (§C.6).
    islands: bool,
    /// Newton problems with at most this many dofs (or a single tree) factor a dense Hessian.
    dense_max_nv: usize,
}

impl Default for PrimalSolver {
    /// Newton on the whole system, dense limit 24.
    fn default() -> Self {
        Self::new(SolverKind::default())
    }
}

/// The data of one (sub)problem: the mass matrix over its dofs, `f_s`, `a_s` and its rows (local dof indices).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Problem<'a> {
    pub mass: &'a TreeMass,
    pub fs: &'a [f64],
    pub a_s: &'a [f64],
    pub rows: &'a ConstraintRows,
    /// The model and state when the problem is the whole model (not a gathered island): MuJoCo's choice of start
    /// ([`crate::mujoco_newton`]) is made over them.
    pub whole: Option<(&'a Model, &'a Data)>,
    /// Whether MuJoCo keeps the model's matrices sparse ([`crate::mujoco_newton::keeps_sparse`]): the model's dofs
    /// decide, not the problem's, so an island of a large model takes its model's arithmetic.
    pub mujoco_sparse: bool,
}

/// The work arrays of the shared iteration over one (sub)problem: `nv` entries for the iterate, gradients and
/// directions, one per row for residuals, states, forces and line coefficients. Every entry is written before it
/// is read in a run.
#[derive(Debug, Clone, Default)]
pub(crate) struct PrimalWork {
    /// The iterate `a`, `M a`, `J a − aref`, `J s`.
    pub a: Vec<f64>,
    pub ma: Vec<f64>,
    pub jar: Vec<f64>,
    pub jv: Vec<f64>,
    /// Every row's state and force at `a`.
    pub state: Vec<RowState>,
    pub force: Vec<f64>,
    /// The gradient `g`, the preconditioned gradient (`H⁻¹g` or `M⁻¹g`) and (CG) their previous values.
    pub g: Vec<f64>,
    pub mgrad: Vec<f64>,
    pub g_prev: Vec<f64>,
    pub mgrad_prev: Vec<f64>,
    /// The search direction `s`, `M s`, and a scratch vector (`M⁻¹g` of the certificate).
    pub s: Vec<f64>,
    pub ms: Vec<f64>,
    pub tmp: Vec<f64>,
    /// Newton's factor of `H` (and the sparse analysis kept between solves).
    pub newton: NewtonFactor,
    /// Quadratic coefficients `[½ D x₀², D x₀ v, ½ D v²]` of every row along the current search direction.
    pub quad: Vec<[f64; 3]>,
    /// Every elliptic block along the current search direction, in row order (MuJoCo's `CGprepare`).
    pub cone_line: Vec<crate::cost::ConeLine>,
    /// Whether each row is a plain one-sided row (limit, pyramidal or frictionless contact).
    pub one_sided: Vec<bool>,
    /// Whether every row is one-sided (the line search then runs its branch-free loop).
    pub all_one_sided: bool,
    /// Runs of consecutive rows over the same dofs (the rows of one contact): `(first row, rows)`. `J x` and
    /// `Jᵀ f` load each run's dof indices and `x` entries once.
    pub groups: Vec<(usize, usize)>,
    /// Whether elliptic contacts use the Signorini resolution in this run (from the options).
    pub signorini: bool,
    /// Each Signorini contact's latched normal load in this run.
    pub latch: Latch,
    /// Every Signorini block along the current search direction, in row order.
    pub signorini_lines: Vec<crate::signorini::BlockLine>,
    /// Whether every row belongs to a Signorini block (the line search then reads `signorini_lines` alone).
    pub all_signorini: bool,
    /// The scratch of MuJoCo's dense Newton iteration ([`crate::mujoco_newton`]).
    pub(crate) mujoco: crate::mujoco_newton::MujocoDense,
}

impl PrimalSolver {
    /// A solver running `kind` on the whole system at once (termination scale `1/(meaninertia·max(1, nv))`).
    pub fn new(kind: SolverKind) -> Self {
        Self { kind, islands: false, dense_max_nv: DENSE_MAX_NV }
    }

    /// A solver running `kind` per island (§C.6): connected components of kinematic trees linked by rows, each
    /// solved and terminated on its own with the scale `1/tr(M_island)`; dofs without rows get `qacc_smooth`.
    pub fn with_islands(kind: SolverKind) -> Self {
        Self { islands: true, ..Self::new(kind) }
    }

    /// Newton problems (whole system or island) with at most `nv` dofs, or a single kinematic tree, factor a dense
    /// Hessian; larger ones use the tree-block sparse factor with rank-1 updates. Default 24. The two give the same
    /// iterates up to round-off.
    pub fn with_dense_limit(self, nv: usize) -> Self {
        Self { dense_max_nv: nv, ..self }
    }

    /// The method this solver runs.
    pub fn kind(&self) -> SolverKind {
        self.kind
    }

    /// Whether it solves per island.
    pub fn uses_islands(&self) -> bool {
        self.islands
    }

    /// The largest Newton problem (in dofs) that factors a dense Hessian.
    pub fn dense_limit(&self) -> usize {
        self.dense_max_nv
    }
}

impl ConstraintSolver for PrimalSolver {
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
        check_inputs(model, data, rows)?;
        let nv = model.nv;
        let warm_valid = qacc.len() == nv && qacc.iter().all(|v| v.is_finite());
        efc_force.clear();
        efc_force.resize(rows.len(), 0.0);
        if !warm_valid {
            qacc.clear();
            qacc.extend_from_slice(&data.qacc_smooth);
        }
        if self.islands {
            return solve_islands(self, model, data, rows, options, work, qacc, efc_force);
        }
        // The incoming `qacc` is a warm start only when there are rows; `run` may still prefer `qacc_smooth`
        // (`WarmStart::CheaperOfIncomingAndSmooth`).
        let warm = if warm_valid && !rows.is_empty() && options.warm_start != WarmStart::Smooth {
            Some(&qacc[..])
        } else {
            None
        };
        let SolverData { primal, mass, .. } = work;
        rows.dof_groups(&mut primal.groups);
        mass.assign_all(model, data);
        let p = Problem {
            mass: &*mass,
            fs: &data.qfrc_smooth,
            a_s: &data.qacc_smooth,
            rows,
            whole: Some((model, data)),
            mujoco_sparse: crate::mujoco_newton::keeps_sparse(model),
        };
        let scale = 1.0 / (model.meaninertia * nv.max(1) as f64);
        let stats = primal.run(self, &p, options, scale, warm)?;
        qacc.copy_from_slice(&primal.a);
        efc_force.copy_from_slice(&primal.force);
        Ok(SolveStats { islands: usize::from(!rows.is_empty()), ..stats })
    }
}

impl PrimalWork {
    /// Sizes the arrays for `nv` dofs and `nrows` rows and resets Newton's factor. Every entry is written before it
    /// is read in a run, so entries kept from the previous run are not zeroed.
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
        self.newton.reset();
    }

    /// MuJoCo's choice of start over a whole problem (the islands' solves then start from it): whether the total
    /// cost at `warm` is at most the rows' cost at `a = qacc_smooth`. Uses `ma`, `jar`, `jv`, row states and forces
    /// as scratch (sized here; the next run sizes them again).
    pub(crate) fn incoming_is_cheaper(
        &mut self,
        model: &Model,
        data: &Data,
        rows: &ConstraintRows,
        groups: &[(usize, usize)],
        warm: &[f64],
    ) -> bool {
        let nrows = rows.len();
        for v in [&mut self.jar, &mut self.jv, &mut self.force] {
            v.resize(nrows, 0.0);
        }
        self.state.resize(nrows, RowState::Inactive);
        self.ma.resize(model.nv, 0.0);
        mul_j2(rows, groups, [&data.qacc_smooth, warm], [&mut self.jv, &mut self.jar]);
        for ((xs, xw), aref) in self.jv.iter_mut().zip(self.jar.iter_mut()).zip(&rows.aref) {
            *xs -= aref;
            *xw -= aref;
        }
        let smooth_cost = update_rows(rows, &self.jv, &mut self.state, &mut self.force);
        model.mul_m(data, warm, &mut self.ma);
        let warm_cost = gauss_cost(&self.ma, warm, &data.qfrc_smooth, &data.qacc_smooth)
            + update_rows(rows, &self.jar, &mut self.state, &mut self.force);
        warm_cost <= smooth_cost
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
        // Signorini: every elliptic contact's latched load moves toward its normal force at the iterate.
        self.latch.advance_and_cost(rows, gauss, &self.jar, &mut self.state, &mut self.force)
    }

    /// `g = Ma − f_s − Jᵀλ` from the current `ma` and forces.
    fn gradient(&mut self, p: &Problem<'_>) {
        let rows = p.rows;
        for ((g, m), f) in self.g.iter_mut().zip(&self.ma).zip(p.fs) {
            *g = m - f;
        }
        sub_jt(rows, &self.groups, &self.force, &mut self.g);
    }

    /// `mgrad = H⁻¹ g` (Newton) or `M⁻¹ g` (CG).
    fn precondition(&mut self, kind: SolverKind, mass: &TreeMass) {
        self.mgrad.copy_from_slice(&self.g);
        match kind {
            SolverKind::Newton => self.newton.solve(mass.nv, &mut self.mgrad),
            // A primal solver asked for PGS (served by `pgs::PgsSolver` through `solver_for`) runs CG.
            SolverKind::Cg | SolverKind::Pgs => mass.solve(&mut self.mgrad),
        }
    }

    /// Runs the iteration on `p` from `a_s` or `warm` (§C.7), with the termination scale `scale`; leaves `a` and
    /// `force` in `self.a`, `self.force`. `self.groups` must hold the runs of `p.rows` over the same dofs (the
    /// caller knows them already from the islands).
    pub(crate) fn run(
        &mut self,
        method: &PrimalSolver,
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

        if crate::mujoco_newton::applies(rows, options, p.mujoco_sparse) {
            return self.run_mujoco(p, options, scale, warm);
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
        let newton = method.kind == SolverKind::Newton;
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
                let at = RowsAt { state: &self.state, jar: &self.jar, latch: self.latch.loads() };
                self.newton.factor(p, method.dense_max_nv, at);
                self.precondition(method.kind, p.mass);
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
            self.prepare_line(rows);
            let gauss0 = gauss_cost(&self.ma, &self.a, p.fs, p.a_s);
            let gauss1 = dot_difference(&self.s, &self.ma, p.fs);
            let gauss = [gauss0, gauss1, 0.5 * dot(&self.s, &self.ms)];
            let gtol = tol * options.ls_tolerance * snorm / scale;
            let found = search(AlongLine { work: self, rows, gauss }, gtol, options.ls_iterations);
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
                let at = RowsAt { state: &self.state, jar: &self.jar, latch: self.latch.loads() };
                self.newton.update(p, at);
            }
            self.precondition(method.kind, p.mass);

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
                cg::next_direction(
                    options.cg_update,
                    &self.g,
                    &self.mgrad,
                    &self.g_prev,
                    &self.mgrad_prev,
                    &mut self.s,
                );
            }
        }

        Ok(SolveStats {
            iterations,
            cost,
            gradient_norm: dot(&self.g, &self.g).sqrt(),
            converged,
            factorizations: self.newton.factorizations(),
            rank_one_updates: self.newton.updates(),
            islands: 1,
            ..SolveStats::default()
        })
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
