//! [`ConstraintRows`]: the rows of one step as plain data (structure of arrays). Built by
//! [`crate::ConstraintAssembler::assemble`] with `clear` + `push` into vectors that keep their capacity, so a step
//! with no more rows than an earlier one does not allocate.
//!
//! Row `i`:
//! - Jacobian (CSR): entries `jac_start[i]..jac_start[i + 1]` of `jac_dof` / `jac_val`, distinct dofs of the rows'
//!   bodies' chains (the assembler lists them decreasing; the solvers accept any order; dofs absent from the row are
//!   zero);
//! - `pos`: the constraint function (violation, signed: < 0 violated for inequalities), `margin`, `imp`,
//!   `vel = J q̇`, `aref = −b vel − k imp (pos − margin)` (`k` term 0 for friction rows), `r` (R) and `d = 1/R`;
//! - `frictionloss`: the Huber bound of friction-loss rows (0 elsewhere);
//! - `cone`: the contact index of contact rows (`None` elsewhere), `mu`: the friction coefficient of the row's
//!   direction (pyramid edge `μ_k`, elliptic head row `μ` and friction rows `μ_k`; 0 elsewhere).
//!
//! Per contact `c`: its rows are `contact_row_start[c]..contact_row_start[c] + contact_dim_rows[c]`; `contact_dim`
//! is its dimensionality (1, 3, 4 or 6) and `contact_mu` its cone coefficient (pyramid `μ`; elliptic
//! `μ/√impratio`, MuJoCo `con->mu`).

/// The growth rule of the per-step arrays (re-exported for the solver's copies of the rows).
pub use signorini_collision::capacity::make_room;
use signorini_collision::capacity::room_for;

/// The kind of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowKind {
    /// Equality connect, one of 3 rows (§B.3). `id` = equality index.
    EqualityConnect,
    /// Equality weld, one of 6 rows (§B.4). `id` = equality index.
    EqualityWeld,
    /// Joint-coupling equality (§B.5). `id` = equality index.
    EqualityJoint,
    /// Tendon equality: `J₁ − poly'(L₂ − L₂⁰) J₂` (tendon Jacobians). `id` = equality.
    EqualityTendon,
    /// DOF friction loss (§B.6). `id` = dof.
    FrictionLoss,
    /// Frictionless contact (`condim` 1, MuJoCo mode): one normal row. `id` = contact index.
    ContactFrictionless,
    /// Pyramid edge `J_n ± μ_k J_k` (§B.8). `id` = contact index.
    ContactPyramidal,
    /// Elliptic contact row (§B.9): the normal row first, then the friction dims. `id` = contact index.
    ContactElliptic,
    /// Hinge/slide joint limit (§B.7). `id` = joint.
    LimitJoint,
    /// Fixed-tendon friction loss (MuJoCo `mjCNSTR_FRICTION_TENDON`), a friction-loss row along `J_tendon`. `id` =
    /// tendon.
    FrictionTendon,
    /// Fixed-tendon limit (MuJoCo `mjCNSTR_LIMIT_TENDON`): `J_tendon` at the lower bound, `−J_tendon` at the upper.
    /// `id` = tendon.
    LimitTendon,
}

impl RowKind {
    /// Whether the row belongs to an equality.
    pub fn is_equality(self) -> bool {
        matches!(
            self,
            RowKind::EqualityConnect
                | RowKind::EqualityWeld
                | RowKind::EqualityJoint
                | RowKind::EqualityTendon
        )
    }

    /// Whether the row is a plain one-sided row (joint or tendon limit, pyramidal or frictionless contact): quadratic
    /// cost below zero, none above. Elliptic contact rows are costed per contact block instead.
    pub fn is_one_sided(self) -> bool {
        matches!(
            self,
            RowKind::LimitJoint
                | RowKind::LimitTendon
                | RowKind::ContactPyramidal
                | RowKind::ContactFrictionless
        )
    }

    /// Whether the row is a friction-loss row (of a dof or of a tendon): a Huber cost bounded by `frictionloss`.
    pub fn is_friction_loss(self) -> bool {
        matches!(self, RowKind::FrictionLoss | RowKind::FrictionTendon)
    }

    /// Whether the row belongs to a contact.
    pub fn is_contact(self) -> bool {
        matches!(self, RowKind::ContactFrictionless | RowKind::ContactPyramidal | RowKind::ContactElliptic)
    }
}

/// The scalar data of one row, for the assembler.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowData {
    /// Constraint function value.
    pub pos: f64,
    /// Margin subtracted from `pos` (MuJoCo mode contacts).
    pub margin: f64,
    /// Impedance.
    pub imp: f64,
    /// `J q̇`.
    pub vel: f64,
    /// Reference acceleration.
    pub aref: f64,
    /// Regularizer.
    pub r: f64,
    /// Friction-loss bound.
    pub frictionloss: f64,
    /// Contact index.
    pub cone: Option<usize>,
    /// Friction coefficient of the row's direction.
    pub mu: f64,
}

impl RowData {
    /// A row with nothing set but `R = 1` (so that `D = 1/R` is finite): the base the assembler's builders fill in.
    pub(crate) fn plain() -> Self {
        RowData {
            pos: 0.0,
            margin: 0.0,
            imp: 0.0,
            vel: 0.0,
            aref: 0.0,
            r: 1.0,
            frictionloss: 0.0,
            cone: None,
            mu: 0.0,
        }
    }
}

/// A dof index of the rows' Jacobian. 32 bits: [`crate::ConstraintAssembler::new`] rejects a model with more dofs
/// than it can index ([`crate::ConstraintError::TooManyDofs`]).
pub type DofIndex = u32;

/// The rows of one step (see the module docs for the layout).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConstraintRows {
    /// Kind of each row.
    pub kind: Vec<RowKind>,
    /// Source object of each row (see [`RowKind`]).
    pub id: Vec<usize>,
    /// CSR row starts (`len + 1` entries once a row exists).
    pub jac_start: Vec<usize>,
    /// CSR dof indices ([`DofIndex`]: 32 bits, half the memory of `usize` for the largest array of a step).
    pub jac_dof: Vec<DofIndex>,
    /// CSR values.
    pub jac_val: Vec<f64>,
    /// Constraint function value.
    pub pos: Vec<f64>,
    /// Margin.
    pub margin: Vec<f64>,
    /// Impedance.
    pub imp: Vec<f64>,
    /// `J q̇`.
    pub vel: Vec<f64>,
    /// Reference acceleration.
    pub aref: Vec<f64>,
    /// Regularizer `R`.
    pub r: Vec<f64>,
    /// `D = 1/R`.
    pub d: Vec<f64>,
    /// Friction-loss bound (0 for other rows).
    pub frictionloss: Vec<f64>,
    /// Contact index of contact rows.
    pub cone: Vec<Option<usize>>,
    /// Friction coefficient of the row's direction.
    pub mu: Vec<f64>,
    /// First row of each contact.
    pub contact_row_start: Vec<usize>,
    /// Number of rows of each contact.
    pub contact_nrows: Vec<usize>,
    /// Dimensionality of each contact (1, 3, 4, 6).
    pub contact_dim: Vec<usize>,
    /// Cone coefficient of each contact.
    pub contact_mu: Vec<f64>,
    /// Runs of consecutive rows that their builder made over the same dofs, `(first row, rows)`. The assembler
    /// fills it for every row (one run per contact, equality, friction-loss dof and limit); a hand-built set of rows
    /// may leave it empty, and [`Self::dof_groups`] then compares the rows' dofs instead.
    pub dof_runs: Vec<(usize, usize)>,
}

impl ConstraintRows {
    /// No rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// Removes every row, keeping the capacity.
    pub fn clear(&mut self) {
        self.kind.clear();
        self.id.clear();
        self.jac_start.clear();
        self.jac_start.push(0);
        self.jac_dof.clear();
        self.jac_val.clear();
        self.pos.clear();
        self.margin.clear();
        self.imp.clear();
        self.vel.clear();
        self.aref.clear();
        self.r.clear();
        self.d.clear();
        self.frictionloss.clear();
        self.cone.clear();
        self.mu.clear();
        self.contact_row_start.clear();
        self.contact_nrows.clear();
        self.contact_dim.clear();
        self.contact_mu.clear();
        self.dof_runs.clear();
    }

    /// Makes room for `rows` more rows and `entries` more Jacobian entries ([`make_room`]: 1/8 of spare room when an
    /// array grows, not doubling; the Jacobian is the largest array of a step, and doubling left up to half of it
    /// unused). Every per-row array gets the same capacity, so the room of `kind` is the room of all of them. The
    /// assembler reserves before each contact; pushing a row or an entry into a full array reserves one more.
    pub fn reserve(&mut self, rows: usize, entries: usize) {
        make_room(&mut self.jac_dof, entries);
        make_room(&mut self.jac_val, entries);
        if self.kind.capacity() - self.kind.len() >= rows {
            return;
        }
        let target = room_for(self.kind.len(), rows);
        fn to<T>(v: &mut Vec<T>, capacity: usize) {
            if v.capacity() < capacity {
                v.reserve_exact(capacity - v.len());
            }
        }
        to(&mut self.kind, target);
        to(&mut self.id, target);
        to(&mut self.jac_start, target + 1);
        to(&mut self.pos, target);
        to(&mut self.margin, target);
        to(&mut self.imp, target);
        to(&mut self.vel, target);
        to(&mut self.aref, target);
        to(&mut self.r, target);
        to(&mut self.d, target);
        to(&mut self.frictionloss, target);
        to(&mut self.cone, target);
        to(&mut self.mu, target);
        to(&mut self.dof_runs, target);
    }

    /// The Jacobian entries `(dofs, values)` of row `i`.
    #[inline]
    pub fn jacobian_row(&self, i: usize) -> (&[DofIndex], &[f64]) {
        let range = self.jac_start[i]..self.jac_start[i + 1];
        (&self.jac_dof[range.clone()], &self.jac_val[range])
    }

    /// `J_i · x` for a vector `x` over the dofs.
    #[inline]
    pub fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        let (dofs, vals) = self.jacobian_row(i);
        dofs.iter().zip(vals).map(|(&k, v)| v * x[k as usize]).sum()
    }

    /// Whether rows `i` and `j` have the same dofs (an inlined comparison: the dof lists are short, and a
    /// `memcmp` call costs more than the comparison itself).
    #[inline]
    pub fn same_dofs(&self, i: usize, j: usize) -> bool {
        let (a, b) = (self.jacobian_row(i).0, self.jacobian_row(j).0);
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
    }

    /// Replaces `out` with runs of consecutive rows over the same dofs, as `(first row, rows)`, covering every row
    /// (the rows of one contact share their dofs, so products with `J` can load the dof indices once per run):
    /// [`Self::dof_runs`] when it covers the rows, else the maximal runs found by comparing neighbours.
    pub fn dof_groups(&self, out: &mut Vec<(usize, usize)>) {
        out.clear();
        if self.dof_runs.last().map_or(self.is_empty(), |&(first, n)| first + n == self.len()) {
            debug_assert!(
                self.dof_runs.iter().all(|&(first, n)| (first..first + n).all(|i| self.same_dofs(first, i)))
            );
            out.extend_from_slice(&self.dof_runs);
            return;
        }
        for i in 0..self.len() {
            match out.last_mut() {
                Some((first, n)) if *first + *n == i && self.same_dofs(*first, i) => *n += 1,
                _ => out.push((i, 1)),
            }
        }
    }

    /// `out += Σ_i J_iᵀ f_i`.
    pub fn add_transpose(&self, f: &[f64], out: &mut [f64]) {
        for (i, &fi) in f.iter().enumerate().take(self.len()) {
            let (dofs, vals) = self.jacobian_row(i);
            for (&k, v) in dofs.iter().zip(vals) {
                out[k as usize] += v * fi;
            }
        }
    }

    /// Number of rows of `kind`.
    pub fn count(&self, kind: RowKind) -> usize {
        self.kind.iter().filter(|&&k| k == kind).count()
    }

    /// Appends one Jacobian entry to the row being built.
    #[inline]
    pub(crate) fn push_entry(&mut self, dof: usize, value: f64) {
        if self.jac_val.len() == self.jac_val.capacity() {
            self.reserve(0, 1);
        }
        self.jac_dof.push(dof as DofIndex);
        self.jac_val.push(value);
    }

    /// Closes the row whose entries were just pushed, starting a new run of [`Self::dof_runs`].
    pub(crate) fn finish_row(&mut self, kind: RowKind, id: usize, row: RowData) {
        self.dof_runs.push((self.len(), 1));
        self.push_row(kind, id, row);
    }

    /// Closes the row whose entries were just pushed over the same dofs as the previous row (the same run).
    pub(crate) fn finish_row_same_dofs(&mut self, kind: RowKind, id: usize, row: RowData) {
        let len = self.len();
        match self.dof_runs.last_mut() {
            Some((first, n)) if *first + *n == len => *n += 1,
            _ => self.dof_runs.push((len, 1)),
        }
        self.push_row(kind, id, row);
        debug_assert!(self.len() < 2 || self.same_dofs(self.len() - 2, self.len() - 1));
    }

    fn push_row(&mut self, kind: RowKind, id: usize, row: RowData) {
        if self.jac_start.is_empty() {
            self.jac_start.push(0);
        }
        if self.kind.len() == self.kind.capacity() {
            self.reserve(1, 0);
        }
        self.kind.push(kind);
        self.id.push(id);
        self.jac_start.push(self.jac_dof.len());
        self.pos.push(row.pos);
        self.margin.push(row.margin);
        self.imp.push(row.imp);
        self.vel.push(row.vel);
        self.aref.push(row.aref);
        self.r.push(row.r);
        self.d.push(1.0 / row.r);
        self.frictionloss.push(row.frictionloss);
        self.cone.push(row.cone);
        self.mu.push(row.mu);
    }

    /// The index of the first Jacobian entry of the row being built.
    pub(crate) fn open_row_start(&self) -> usize {
        self.jac_start.last().copied().unwrap_or(0)
    }

    /// The dot product of the entries pushed since the last finished row with `x`.
    pub(crate) fn open_row_dot(&self, x: &[f64]) -> f64 {
        let start = self.open_row_start();
        self.jac_dof[start..].iter().zip(&self.jac_val[start..]).map(|(&k, v)| v * x[k as usize]).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows pushed one at a time (as limits and friction-loss rows are) grow every array by 1/8, not by doubling:
    /// the capacity stays within 1/8 of the length (plus the last push's need), the same for every per-row array
    /// (`jac_start`, one longer, at least one more).
    #[test]
    fn arrays_grow_by_an_eighth() {
        let mut rows = ConstraintRows::new();
        rows.clear();
        let row = RowData::plain();
        for i in 0..5000 {
            for k in 0..3 {
                rows.push_entry(k, i as f64);
            }
            rows.finish_row(RowKind::LimitJoint, i, row);
            let (n, e) = (rows.len(), rows.jac_val.len());
            assert!(rows.kind.capacity() <= n + n / 8 + 1, "{} rows, room for {}", n, rows.kind.capacity());
            assert!(
                rows.jac_val.capacity() <= e + e / 8 + 1,
                "{} entries, room for {}",
                e,
                rows.jac_val.capacity()
            );
            assert_eq!(rows.r.capacity(), rows.kind.capacity());
            assert!(rows.jac_start.capacity() > rows.kind.capacity());
        }
        assert_eq!(rows.jac_val.len(), 15_000);
    }

    #[test]
    fn dof_groups_are_runs_of_rows_over_the_same_dofs() {
        // Rows over [3 1], [3 1], [3 1], [2], [3 1], [], []: runs (0, 3), (3, 1), (4, 1), (5, 2).
        let dofs: [&[DofIndex]; 7] = [&[3, 1], &[3, 1], &[3, 1], &[2], &[3, 1], &[], &[]];
        let mut rows = ConstraintRows::new();
        rows.jac_start.push(0);
        for d in dofs {
            rows.jac_dof.extend_from_slice(d);
            rows.jac_val.extend(d.iter().map(|&k| k as f64));
            rows.jac_start.push(rows.jac_dof.len());
            rows.kind.push(RowKind::ContactPyramidal);
        }
        let mut groups = vec![(9, 9)];
        rows.dof_groups(&mut groups);
        assert_eq!(groups, [(0, 3), (3, 1), (4, 1), (5, 2)]);
    }
}
