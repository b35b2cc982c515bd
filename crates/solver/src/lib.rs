//! # signorini-solver
//!
//! The constraint solver of signorini (layer 5): given the mass matrix `M` (factorised in [`Data`]), the smooth
//! force `f_s = qfrc_smooth`, the unconstrained acceleration `a_s = qacc_smooth` and the soft-constraint rows of
//! [`ConstraintRows`], it minimises the primal cost of `reference-semantics.md` §C.0
//!
//! `C(a) = ½ (a − a_s)ᵀ M (a − a_s) + Σ_i s_i(J_i a − aref_i)`
//!
//! with the per-row costs `s_i` of §C.1 (equality, friction loss, limit, pyramidal/frictionless contact rows and the
//! three-zone elliptic cone per contact block), and returns `qacc = argmin C` and the row forces `λ_i = −s_i'(x_i)`.
//!
//! | module | concept |
//! |---|---|
//! | [`primal`] | [`PrimalSolver`] (configuration) and the iteration shared by Newton and CG: warm start (§C.7), gradient, termination (§C.5), the loop |
//! | `newton` | Newton's Hessian (§C.2): dense or tree-block sparse factor, rank-1 updates, the kept symbolic analysis |
//! | `cg` | the conjugate-gradient direction (§C.3): Hager–Zhang or Polak–Ribière+, preconditioned by `M⁻¹` |
//! | [`signorini`] | the Signorini contact resolution: unilateral normal rows, friction discs on a latched load |
//! | `line_cost` | the cost along the search line, prepared once per direction and evaluated per trial step |
//! | [`linesearch`] | the exact line search of §C.4 on the piecewise-quadratic cost |
//! | `island_solve` | per-island solves (§C.6): gather each island's dofs and rows, solve, scatter back |
//! | [`islands`] | connected components of trees linked by rows (§C.6) |
//! | [`solver_data`] | [`SolverData`]: every work array a solve writes, carried from one solve to the next |
//! | [`cost`] | the row costs, forces and active states, [`total_cost`] |
//! | `jacobian` | the products `J x` and `g −= Jᵀ f` over runs of rows sharing dofs |
//! | `validate` | validation of the solver's inputs ([`SolverError`]) |
//! | `mujoco_newton`, `mujoco_sparse` | MuJoCo 4.0.1's Newton and CG iterations in its own arithmetic (dense models), and CG over its sparse Jacobian (sparse models) |
//! | [`block_cholesky`] | the tree-block sparse Cholesky of the Newton Hessian with rank-1 update/downdate |
//! | [`dense`] | the dense Cholesky factorisation of the Newton Hessian (small problems) |
//! | [`mass`] | [`mass::TreeMass`]: `M`, `M⁻¹` and the dense `M` over the dofs of whole trees (all, or one island) |
//! | [`noslip`] | the no-slip post-process (§C.8): Gauss–Seidel on the friction forces against `J M⁻¹ Jᵀ` |
//! | [`pgs`] | MuJoCo's projected Gauss–Seidel on the dual problem (`solver="PGS"`) |
//! | `dual` | MuJoCo's dual problem in its arithmetic (`Y = J M^{-1/2}`, `AR`, `b`) for PGS and the no-slip pass |
//!
//! Both solvers are reached through [`solver_for`] (whole system) or [`island_solver_for`] (per island) as
//! `Box<dyn ConstraintSolver>`. A solver holds configuration only; everything a solve writes (and may carry to the
//! next solve) is the caller's [`SolverData`], so a solver is `Send + Sync` and a simulation's state can be cloned
//! and restored.
//!
//! Newton factors `H` densely for small problems and with [`block_cholesky`] (sparse over kinematic trees, with
//! rank-1 updates when rows change state) otherwise; `H` is not refactored when the active set did not change.
//!
//! [`noslip::NoSlip`] is the optional no-slip post-process of §C.8 (pyramidal friction and DOF friction loss).

pub mod block_cholesky;
mod cg;
pub mod cost;
pub mod dense;
mod dual;
mod island_solve;
pub mod islands;
mod jacobian;
mod line_cost;
pub mod linesearch;
pub mod mass;
mod mujoco_cone;
mod mujoco_newton;
mod mujoco_sparse;
mod newton;
pub mod noslip;
pub mod pgs;
pub mod primal;
mod reduce;
pub mod signorini;
pub mod solver_data;
#[cfg(test)]
mod test_rng;
mod validate;

use signorini_constraints::ConstraintRows;
use signorini_model::{Data, Model};

pub use cost::total_cost;
pub use primal::PrimalSolver;
pub use solver_data::SolverData;

/// Which primal method runs (serde and option names: `newton`, `cg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverKind {
    /// Newton's method with the Hessian `M + Jᵀ D_active J` (§C.2).
    #[default]
    Newton,
    /// Nonlinear conjugate gradient preconditioned by `M⁻¹`, Hager–Zhang or Polak–Ribière+ (§C.3).
    Cg,
    /// MuJoCo's projected Gauss–Seidel on the dual problem ([`pgs`]).
    Pgs,
}

/// The conjugate-gradient direction update (§C.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CgUpdate {
    /// Hager–Zhang with the `η_k` lower bound (MuJoCo ≥ 3.10 and Genesis-World default).
    #[default]
    HagerZhang,
    /// Polak–Ribière+ (`β = max(0, β_PR)`, MuJoCo `mjCG_PRP`, Genesis-A).
    PolakRibierePlus,
}

/// Where the primal iteration starts (§C.7). Either way the start is `qacc_smooth` when there are no rows or the
/// incoming `qacc` is not finite or has the wrong length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WarmStart {
    /// The incoming `qacc` (the previous step's solution).
    #[default]
    Incoming,
    /// The cheaper of the incoming `qacc` (total cost `C(qacc)`) and `qacc_smooth` (cost of the rows alone, the
    /// Gauss term vanishing there), as MuJoCo's `mj_solPrimal` does. Signorini resolution
    /// ([`SolverOptions::signorini`]) ignores it and starts from the incoming `qacc`: its latched loads are seeded
    /// by the first evaluation, which must be the start.
    CheaperOfIncomingAndSmooth,
    /// `qacc_smooth`, whatever came in (MuJoCo with `<flag warmstart="disable"/>`; PGS starts from zero forces).
    Smooth,
}

/// Solver settings (spec §C.9).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolverOptions {
    /// Maximum number of outer iterations. Default: 25.
    pub iterations: usize,
    /// Termination tolerance on the scaled improvement, gradient and Newton decrement (§C.5). Default: `1e-9`
    /// (native mode); MuJoCo uses `1e-8`.
    pub tolerance: f64,
    /// Maximum number of cost evaluations per line search. Default: 50.
    pub ls_iterations: usize,
    /// Line-search gradient tolerance, relative to `tolerance` (§C.4). Default: `1e-2`.
    pub ls_tolerance: f64,
    /// Newton or CG. Default: Newton.
    pub kind: SolverKind,
    /// CG's direction update. Default: Hager–Zhang.
    pub cg_update: CgUpdate,
    /// Whether contacts use the elliptic cone. Informational: the row kinds decide how each contact is costed.
    /// Default: `false`.
    pub elliptic: bool,
    /// Elliptic contact rows use the Signorini resolution ([`signorini`]) instead of MuJoCo's convex cone; the
    /// rows must be assembled for it (no spin/roll `μ²` scaling of `R`). Meant for Newton. Default: `false`.
    pub signorini: bool,
    /// Where the iteration starts when there are rows and the incoming `qacc` is valid (§C.7). Default:
    /// [`WarmStart::Incoming`].
    pub warm_start: WarmStart,
    /// Newton and CG follow MuJoCo 4.0.1's arithmetic operation for operation (its sums' orders, its factorisation
    /// and line search; the crate's private `mujoco_newton` module), with its dense matrices on a model of fewer than
    /// 60 dofs and its sparse ones from 60 on, when the rows allow it (equalities, friction loss, limits,
    /// frictionless, pyramidal and elliptic contacts, without the Signorini resolution). Default: `false`.
    pub mujoco_arithmetic: bool,
    /// A per-island solver ([`PrimalSolver::with_islands`]) solves the islands of a large enough problem in
    /// parallel when it runs on a worker of a pool of several threads (a scene's `threads`); each island's
    /// arithmetic is the same as alone, so the results do not depend on it. Default: `false`.
    pub parallel_islands: bool,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self {
            iterations: 25,
            tolerance: 1e-9,
            ls_iterations: 50,
            ls_tolerance: 1e-2,
            kind: SolverKind::Newton,
            cg_update: CgUpdate::HagerZhang,
            elliptic: false,
            signorini: false,
            warm_start: WarmStart::Incoming,
            mujoco_arithmetic: false,
            parallel_islands: false,
        }
    }
}

/// What one solve did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SolveStats {
    /// Outer iterations run (0 when the warm start already satisfied the termination certificate).
    pub iterations: usize,
    /// The total cost `C(qacc)` at the returned `qacc`.
    pub cost: f64,
    /// `‖g‖` (unscaled) at the returned `qacc`.
    pub gradient_norm: f64,
    /// Whether the iteration stopped on a termination test (or because the line search could not improve)
    /// rather than by exhausting `iterations`.
    pub converged: bool,
    /// Islands solved on their own (per-island solver), or 1 for a whole-system solve with rows (0 without).
    pub islands: usize,
    /// Whether the islands were solved in parallel ([`SolverOptions::parallel_islands`]).
    pub parallel: bool,
    /// Newton: Hessian factorisations from scratch (dense or sparse).
    pub factorizations: usize,
    /// Newton: rank-1 updates and downdates applied to the sparse factor instead of refactoring.
    pub rank_one_updates: usize,
}

/// Why a solve failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolverError {
    /// An array has the wrong length.
    #[error("solver input `{what}` has {got} entries, expected {expected}")]
    DimensionMismatch {
        /// The array.
        what: &'static str,
        /// The expected length.
        expected: usize,
        /// Its length.
        got: usize,
    },
    /// A Jacobian entry refers to a dof that does not exist.
    #[error("constraint row {row} refers to dof {dof}, but the model has {nv} dofs")]
    DofOutOfRange {
        /// The row.
        row: usize,
        /// The dof.
        dof: usize,
        /// The model's `nv`.
        nv: usize,
    },
    /// A row has a non-finite or non-positive `D`, or a non-finite `aref`.
    #[error("constraint row {row} has invalid data: {reason}")]
    InvalidRow {
        /// The row.
        row: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// The iteration produced a non-finite value.
    #[error("the constraint solver produced a non-finite value (cost {cost})")]
    NonFinite {
        /// The cost at that point.
        cost: f64,
    },
}

/// A primal constraint solver: configuration only (its method and how it splits the problem), shared freely
/// between threads; the work arrays are the caller's [`SolverData`].
pub trait ConstraintSolver: std::fmt::Debug + Send + Sync {
    /// Solves the primal problem of §C.0 for `qacc` given `M` (from `data`, factorised: `data.qld` valid),
    /// `qacc_smooth` (`data.qacc_smooth`), `qfrc_smooth` and the rows; warm-starts from `qacc` (its incoming value,
    /// or `qacc_smooth` when it is not finite / has the wrong length; see [`WarmStart`]); writes `qacc` and the
    /// per-row constraint forces `efc_force` (`len = rows.len()`). `work` holds the scratch and what one solve
    /// carries to the next; equal inputs and equal `work` give bit-identical results.
    #[allow(clippy::too_many_arguments)]
    fn solve(
        &self,
        model: &Model,
        data: &Data,
        rows: &ConstraintRows,
        options: &SolverOptions,
        work: &mut SolverData,
        qacc: &mut Vec<f64>,
        efc_force: &mut Vec<f64>,
    ) -> Result<SolveStats, SolverError>;
}

/// The solver of `kind` (its method is fixed; `options.kind` is ignored by the returned solver).
pub fn solver_for(kind: SolverKind) -> Box<dyn ConstraintSolver> {
    match kind {
        SolverKind::Pgs => Box::new(pgs::PgsSolver::new()),
        kind => Box::new(PrimalSolver::new(kind)),
    }
}

/// The solver of `kind` that solves and terminates every island (§C.6) on its own, with the termination scale
/// `1/tr(M_island)`.
pub fn island_solver_for(kind: SolverKind) -> Box<dyn ConstraintSolver> {
    match kind {
        SolverKind::Pgs => Box::new(pgs::PgsSolver::with_islands()),
        kind => Box::new(PrimalSolver::with_islands(kind)),
    }
}
