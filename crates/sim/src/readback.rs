//! Contact and force read-back (spec §5, §F).
//!
//! **Convention:** `normal` points from geom B to geom A; `penetration ≥ 0` (MuJoCo-compatible mode: ≥ −margin, a
//! contact detected within the geoms' margin before they touch); `position` is the midpoint between the
//! surfaces; `force_a` is the contact force on A in newtons, world frame, and `force_b = −force_a`.
//! Forces are reconstructed from the solved row forces: a pyramid edge row with direction `n ± μ t_k` contributes
//! `f (n ± μ t_k)`; an elliptic block contributes `f₀ n + f₁ t₁ + f₂ t₂` (torsional and rolling rows carry torques,
//! not forces); a frictionless row contributes `f n`.

use glam::DVec3;
use serde::Serialize;
use signorini_collision::contact_set::ContactSet;
use signorini_constraints::frame::TangentFrame;
use signorini_constraints::{ConstraintRows, RowKind};

/// The contacts of one step, as parallel arrays.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Contacts {
    /// Geom A of each contact.
    pub geom_a: Vec<usize>,
    /// Geom B.
    pub geom_b: Vec<usize>,
    /// Body (link) of geom A.
    pub link_a: Vec<usize>,
    /// Body of geom B.
    pub link_b: Vec<usize>,
    /// Midpoint between the surfaces (m, world).
    pub position: Vec<DVec3>,
    /// Unit normal from B to A (world).
    pub normal: Vec<DVec3>,
    /// Penetration depth (m), ≥ 0.
    pub penetration: Vec<f64>,
    /// Force on A (N, world).
    pub force_a: Vec<DVec3>,
    /// Force on B (N, world), `−force_a`.
    pub force_b: Vec<DVec3>,
}

impl Contacts {
    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.geom_a.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.geom_a.is_empty()
    }

    /// Builds the arrays from the contact set and the solved row forces (`efc_force[i]` for row `i`).
    pub fn from_rows(
        cs: &ContactSet,
        rows: &ConstraintRows,
        efc_force: &[f64],
        tangents: TangentFrame,
    ) -> Contacts {
        let mut out = Contacts::default();
        for c in 0..cs.len() {
            let n = cs.normal[c];
            let (t1, t2) = tangents.hinted_tangents(n, cs.tangent_hint(c));
            let mut f = DVec3::ZERO;
            if let (Some(&start), Some(&nrows)) = (rows.contact_row_start.get(c), rows.contact_nrows.get(c)) {
                let force = |i: usize| efc_force.get(i).copied().unwrap_or(0.0);
                match rows.kind.get(start) {
                    Some(RowKind::ContactPyramidal) => {
                        // Rows come in (+, −) pairs per friction direction: t₁, t₂, then torsion/rolling.
                        for (k, i) in (start..start + nrows).enumerate() {
                            let (dir, sign) = (k / 2, if k % 2 == 0 { 1.0 } else { -1.0 });
                            let t = match dir {
                                0 => t1,
                                1 => t2,
                                _ => DVec3::ZERO,
                            };
                            f += force(i) * (n + sign * rows.mu[i] * t);
                        }
                    }
                    Some(RowKind::ContactElliptic) => {
                        f += force(start) * n;
                        if nrows > 1 {
                            f += force(start + 1) * t1;
                        }
                        if nrows > 2 {
                            f += force(start + 2) * t2;
                        }
                    }
                    Some(_) => f += force(start) * n,
                    None => {}
                }
                if nrows > 0 {
                    // MuJoCo 4.0's net force: the solver's normal force less the adhesion.
                    f -= cs.adhesion[c] * n;
                }
            }
            out.geom_a.push(cs.geom_a[c]);
            out.geom_b.push(cs.geom_b[c]);
            out.link_a.push(cs.link_a[c]);
            out.link_b.push(cs.link_b[c]);
            out.position.push(cs.position[c]);
            out.normal.push(n);
            out.penetration.push(cs.penetration[c]);
            out.force_a.push(f);
            out.force_b.push(-f);
        }
        out
    }

    /// Appends contact `k` of `other`.
    pub(crate) fn push_from(&mut self, other: &Contacts, k: usize) {
        self.geom_a.push(other.geom_a[k]);
        self.geom_b.push(other.geom_b[k]);
        self.link_a.push(other.link_a[k]);
        self.link_b.push(other.link_b[k]);
        self.position.push(other.position[k]);
        self.normal.push(other.normal[k]);
        self.penetration.push(other.penetration[k]);
        self.force_a.push(other.force_a[k]);
        self.force_b.push(other.force_b[k]);
    }

    /// Keeps the contacts `keep` says yes to, in order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let mut kept = Contacts::default();
        for k in 0..self.len() {
            if keep(k) {
                kept.push_from(self, k);
            }
        }
        *self = kept;
    }

    /// The contacts involving `body` (as A or B); with `other`, only those with that body; `exclude_self` drops the
    /// contacts of `body` with itself.
    pub fn with_body(&self, body: usize, other: Option<usize>, exclude_self: bool) -> Contacts {
        let mut out = Contacts::default();
        for k in 0..self.len() {
            let (a, b) = (self.link_a[k], self.link_b[k]);
            let involves = a == body || b == body;
            let matches_other = other.is_none_or(|o| (a == body && b == o) || (b == body && a == o));
            if !involves || !matches_other || (exclude_self && a == b) {
                continue;
            }
            out.push_from(self, k);
        }
        out
    }
}

/// Per-step statistics (spec §5).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StepStatistics {
    /// Solver iterations of the last physics step.
    pub iterations: usize,
    /// Final cost of the solver.
    pub cost: f64,
    /// Final gradient norm.
    pub gradient_norm: f64,
    /// Whether the solver met its tolerance.
    pub converged: bool,
    /// Islands solved on their own (1 for a whole-system solve with rows; 0 without rows).
    pub islands: usize,
    /// Whether the islands were solved in parallel on the scene's threads (`threads > 1`, several islands and at
    /// least 256 rows, none holding 90 % of them).
    pub islands_in_parallel: bool,
    /// Newton Hessian factorisations from scratch.
    pub factorizations: usize,
    /// Newton rank-1 updates/downdates applied instead of refactoring.
    pub rank_one_updates: usize,
    /// Sweeps of the no-slip post-process (0 when it is off).
    pub noslip_iterations: usize,
    /// Free bodies the swept collision stopped short of tunnelling this step (`Options::enable_ccd`; 0 when off).
    pub ccd_clamped_bodies: usize,
    /// Kinematic trees asleep after the step (hibernation; 0 when it is off).
    pub sleeping_trees: usize,
    /// Contacts.
    pub contacts: usize,
    /// Candidate pairs after the filters.
    pub candidate_pairs: usize,
    /// Constraint rows.
    pub rows: usize,
    /// Rows by type: equality, friction loss, contact, limit.
    pub rows_by_kind: [usize; 4],
    /// Deepest penetration (m).
    pub max_penetration: f64,
    /// Seconds in forward dynamics.
    pub time_forward: f64,
    /// Seconds in collision detection.
    pub time_collision: f64,
    /// Seconds in constraint assembly.
    pub time_assembly: f64,
    /// Seconds in the constraint solve.
    pub time_solve: f64,
    /// Seconds in integration.
    pub time_integrate: f64,
}
