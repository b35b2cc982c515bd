//! [`SolverData`]: everything a constraint solve writes, kept between solves so that a solve with no more dofs and
//! rows than an earlier one does not allocate. The solver itself ([`crate::PrimalSolver`]) holds configuration
//! only.

use crate::island_solve::IslandWork;
use crate::mass::TreeMass;
use crate::primal::PrimalWork;

/// The work arrays of the constraint solver: the iterate and its row states, forces and gradients, Newton's
/// factor, the Signorini latched loads, the per-island copies and the mass matrix over the problem's dofs.
///
/// Data, not configuration: one `SolverData` serves any [`crate::ConstraintSolver`] (one per simulation, or one per
/// environment of a batch). A solve's results depend on it only through what it carries from the previous solve,
/// the sparse Newton factor's symbolic analysis (reused while the kinematic trees and the rows' dofs are the same;
/// it gives the same numbers as a fresh one); the Signorini latch and every other array are rewritten before they
/// are read. Cloning it and later solving from the clone reproduces the original's solves bit for bit.
#[derive(Debug, Clone, Default)]
pub struct SolverData {
    /// The shared primal iteration's arrays (and Newton's factor, the Signorini latch).
    pub(crate) primal: PrimalWork,
    /// `M` over the dofs of the problem being solved (all, or one island).
    pub(crate) mass: TreeMass,
    /// The per-island copies.
    pub(crate) islands: IslandWork,
    /// PGS's dual matrix and sweeps.
    pub(crate) pgs: crate::pgs::PgsWork,
}

impl SolverData {
    /// Empty work arrays (they grow to the largest problem solved).
    pub fn new() -> Self {
        Self::default()
    }
}
