//! [`SolOverrides`]: one environment's `sol_params` in place of the model's for some equalities and joint limits
//! (domain randomisation, Genesis's `set_sol_params`), validated and resolved by
//! [`ConstraintAssembler`](crate::ConstraintAssembler) under its options when set, so a step reads them as it reads
//! the model's. Contacts need none: their parameters are mixed from the geoms' each step.

use crate::impedance::ResolvedSol;

/// Per-environment replacements of resolved `sol_params` (see the module docs). Empty by default: the model's
/// everywhere. Built and changed only by [`ConstraintAssembler::set_equality_sol`](crate::ConstraintAssembler::set_equality_sol)
/// and [`ConstraintAssembler::set_joint_limit_sol`](crate::ConstraintAssembler::set_joint_limit_sol).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SolOverrides {
    /// Per equality (model order), when any is replaced: the replacement, `None` for the model's.
    pub(crate) equality: Vec<Option<ResolvedSol>>,
    /// Per joint, when any limit is replaced: the replacement, `None` for the model's.
    pub(crate) joint_limit: Vec<Option<ResolvedSol>>,
}

impl SolOverrides {
    /// No replacement: the model's `sol_params` everywhere.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether nothing is replaced.
    pub fn is_empty(&self) -> bool {
        self.equality.iter().chain(&self.joint_limit).all(Option::is_none)
    }

    /// Forgets every replacement (keeps the memory).
    pub fn clear(&mut self) {
        self.equality.iter_mut().chain(&mut self.joint_limit).for_each(|s| *s = None);
    }

    /// Equality `e`'s replacement, if any.
    pub(crate) fn equality(&self, e: usize) -> Option<&ResolvedSol> {
        self.equality.get(e).and_then(Option::as_ref)
    }

    /// Joint `j`'s limit replacement, if any.
    pub(crate) fn joint_limit(&self, j: usize) -> Option<&ResolvedSol> {
        self.joint_limit.get(j).and_then(Option::as_ref)
    }
}

/// Sets entry `i` of `slots` (sized to `n` on first use) to `sol`.
pub(crate) fn replace(slots: &mut Vec<Option<ResolvedSol>>, n: usize, i: usize, sol: Option<ResolvedSol>) {
    if slots.len() != n {
        slots.resize(n, None);
    }
    slots[i] = sol;
}
