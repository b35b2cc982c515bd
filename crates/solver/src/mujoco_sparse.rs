//! MuJoCo 4.0.1's sparse constraint Jacobian products on a model it keeps sparse (60 dofs or more: `mj_isSparse`),
//! for [`crate::mujoco_newton`]'s CG iteration. MuJoCo keeps `J` in compressed rows with the columns increasing
//! (`efc_J`) and `Jᵀ` in compressed rows over the dofs with the constraint rows increasing (`mju_transposeSparse`);
//! `J x` and `Jᵀ f` are `mju_mulMatVecSparse` over them: `mju_dotSparse` over a row's stored entries (four lanes
//! over the blocks of four, `(l₀ + l₂) + (l₁ + l₃)`, then the rest added one at a time), supernodes or not.
//!
//! Here `J` is read from the problem's rows (which list a row's dofs increasing or decreasing) run by run: the rows
//! of a run share their dofs, so `x` is gathered at them once and each row's sum runs over two contiguous slices.
//! `Jᵀ` keeps its values only; its row indices are the row runs a dof is in, shared by the runs of dofs in the
//! same row runs (a free body's six), over which `f` is gathered once. Checked against the library's functions
//! (`tests` below, `scripts/mujoco_sparse_cases.py`).

use signorini_constraints::ConstraintRows;
use signorini_constraints::rows::make_room;
use signorini_model::factor::{mujoco_dot_gathered, mujoco_dot_gathered_rev};

/// `Jᵀ` of one problem and the scratch of the products (rebuilt by [`SparseJacobian::assign`] for every solve; the
/// vectors keep their capacity).
#[derive(Debug, Clone, Default)]
pub(crate) struct SparseJacobian {
    /// Runs of consecutive rows over the same dofs, `(first row, rows)`: the problem's runs, neighbours over the
    /// same dofs merged (the contacts of one pair of bodies).
    runs: Vec<(usize, usize)>,
    /// `x` at one row run's dofs (in the rows' order), or `f` at one dof run's rows.
    gathered: Vec<f64>,
    /// `Jᵀ`'s values: dof `v`'s are `jt_val[jt_adr[v]..jt_adr[v + 1]]`, constraint rows increasing.
    jt_adr: Vec<usize>,
    jt_val: Vec<f64>,
    /// Runs of consecutive dofs in the same row runs: dofs `dof_run[s]..dof_run[s + 1]` are in the row runs
    /// `runs_of[runs_at[s]..runs_at[s + 1]]` (indices into the problem's row runs, increasing).
    dof_run: Vec<usize>,
    runs_at: Vec<usize>,
    runs_of: Vec<usize>,
}

impl SparseJacobian {
    /// Builds `Jᵀ` of `rows` over `nv` dofs; `runs` are the rows' runs over the same dofs
    /// ([`ConstraintRows::dof_groups`], covering every row in order).
    pub(crate) fn assign(&mut self, rows: &ConstraintRows, runs: &[(usize, usize)], nv: usize) {
        self.runs.clear();
        for &(first, n) in runs {
            match self.runs.last_mut() {
                Some((f, k)) if rows.same_dofs(*f, first) => *k += n,
                _ => self.runs.push((first, n)),
            }
        }
        let runs = &self.runs;
        // Each dof's row runs, by counting: `runs_at` holds each dof's count, then its start, then (while filling)
        // its write position, shifted back at the end. The same trick lays out `jt_adr` over the rows.
        self.runs_at.clear();
        self.runs_at.resize(nv + 1, 0);
        self.jt_adr.clear();
        self.jt_adr.resize(nv + 1, 0);
        for &(first, n) in runs {
            for &d in rows.jacobian_row(first).0 {
                self.runs_at[d as usize + 1] += 1;
                self.jt_adr[d as usize + 1] += n;
            }
        }
        for v in 0..nv {
            self.runs_at[v + 1] += self.runs_at[v];
            self.jt_adr[v + 1] += self.jt_adr[v];
        }
        // Grown by an eighth, not doubled (the CG's working set is kept per environment).
        grow_to(&mut self.runs_of, self.runs_at[nv], 0);
        grow_to(&mut self.jt_val, self.jt_adr[nv], 0.0);
        for (g, &(first, n)) in runs.iter().enumerate() {
            let dofs = rows.jacobian_row(first).0;
            let base = rows.jac_start[first];
            for (p, &d) in dofs.iter().enumerate() {
                let d = d as usize;
                self.runs_of[self.runs_at[d]] = g;
                self.runs_at[d] += 1;
                let at = self.jt_adr[d];
                for (k, v) in self.jt_val[at..at + n].iter_mut().enumerate() {
                    *v = rows.jac_val[base + k * dofs.len() + p];
                }
                self.jt_adr[d] += n;
            }
        }
        for v in (1..=nv).rev() {
            self.runs_at[v] = self.runs_at[v - 1];
            self.jt_adr[v] = self.jt_adr[v - 1];
        }
        self.runs_at[0] = 0;
        self.jt_adr[0] = 0;
        // Merge neighbouring dofs in the same row runs, compacting `runs_of` in place (a run's list is written at
        // or before where it was read).
        self.dof_run.clear();
        let mut write = 0;
        for v in 0..nv {
            let (a, b) = (self.runs_at[v], self.runs_at[v + 1]);
            let last = self.dof_run.len().checked_sub(1);
            let same = last.is_some_and(|s| {
                let (la, lb) = (self.runs_at[s], write);
                lb - la == b - a && self.runs_of[la..lb] == self.runs_of[a..b]
            });
            if !same {
                self.dof_run.push(v);
                self.runs_at[self.dof_run.len() - 1] = write;
                self.runs_of.copy_within(a..b, write);
                write += b - a;
            }
        }
        let nrun = self.dof_run.len();
        self.dof_run.push(nv);
        self.runs_at.truncate(nrun);
        self.runs_at.push(write);
        self.runs_of.truncate(write);
    }

    /// `out = J x`, each row `mju_dotSparse` over its entries, columns increasing ([`mul_runs`]).
    pub(crate) fn mul(&mut self, rows: &ConstraintRows, x: &[f64], out: &mut [f64]) {
        mul_runs(rows, &self.runs, x, out, &mut self.gathered);
    }

    /// `out = Jᵀ f` (`mju_mulMatVecSparse` over `Jᵀ`).
    pub(crate) fn mul_transpose(&mut self, f: &[f64], out: &mut [f64]) {
        for s in 0..self.dof_run.len() - 1 {
            self.gathered.clear();
            for &g in &self.runs_of[self.runs_at[s]..self.runs_at[s + 1]] {
                let (first, n) = self.runs[g];
                self.gathered.extend_from_slice(&f[first..first + n]);
            }
            // The run's dofs are in the same rows: their values are consecutive lists of one length.
            let (dofs, len) = (self.dof_run[s]..self.dof_run[s + 1], self.gathered.len());
            let out = &mut out[dofs.clone()];
            if len == 0 {
                out.fill(0.0);
                continue;
            }
            let vals = &self.jt_val[self.jt_adr[dofs.start]..self.jt_adr[dofs.end]];
            for (o, v) in out.iter_mut().zip(vals.chunks_exact(len)) {
                *o = mujoco_dot_gathered(v, &self.gathered);
            }
        }
    }
}

/// `out = J x` over the rows' `runs` over the same dofs (covering every row in order), each row `mju_dotSparse`
/// over its entries, columns increasing: `x` is gathered at a run's dofs once (into `gathered`), and each row's sum
/// runs over two contiguous slices.
pub(crate) fn mul_runs(
    rows: &ConstraintRows,
    runs: &[(usize, usize)],
    x: &[f64],
    out: &mut [f64],
    gathered: &mut Vec<f64>,
) {
    for &(first, n) in runs {
        let dofs = rows.jacobian_row(first).0;
        let (m, out) = (dofs.len(), &mut out[first..first + n]);
        if m == 0 {
            out.fill(0.0);
            continue;
        }
        gathered.clear();
        gathered.extend(dofs.iter().map(|&d| x[d as usize]));
        let base = rows.jac_start[first];
        let vals = rows.jac_val[base..base + n * m].chunks_exact(m);
        if dofs.first() > dofs.last() {
            for (o, row) in out.iter_mut().zip(vals) {
                *o = mujoco_dot_gathered_rev(row, gathered);
            }
        } else {
            for (o, row) in out.iter_mut().zip(vals) {
                *o = mujoco_dot_gathered(row, gathered);
            }
        }
    }
}

/// `v.resize(len, value)`, room made by [`make_room`] when it must grow.
fn grow_to<T: Clone>(v: &mut Vec<T>, len: usize, value: T) {
    make_room(v, len.saturating_sub(v.len()));
    v.resize(len, value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use signorini_constraints::{DofIndex, RowKind};

    #[derive(serde::Deserialize)]
    struct Case {
        nv: usize,
        j_rows: Vec<(Vec<usize>, Vec<f64>)>,
        x: Vec<f64>,
        force: Vec<f64>,
        jx: Vec<f64>,
        jtf: Vec<f64>,
    }

    #[derive(serde::Deserialize)]
    struct Cases {
        cases: Vec<Case>,
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// `J x` and `Jᵀ f` against MuJoCo 4.0.1's `mju_mulMatVecSparse` (over `J` with `mju_superSparse`'s
    /// supernodes, and over `mju_transposeSparse`'s `Jᵀ` with its own) on the random problems of
    /// `scripts/mujoco_sparse_cases.py`, bit for bit; half the row runs are handed over with their columns
    /// decreasing.
    #[test]
    fn products_match_mujoco() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mujoco_sparse.json");
        let cases: Cases = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert!(cases.cases.len() >= 40);
        let (mut multi_row_runs, mut shared_dofs, mut merged) = (0, 0, 0);
        for (n, c) in cases.cases.iter().enumerate() {
            // Rows come in runs with one pattern (a contact's rows); every other run lists its columns backwards.
            let mut rows = ConstraintRows::new();
            rows.clear();
            let mut backwards = false;
            for (r, (cols, vals)) in c.j_rows.iter().enumerate() {
                if r == 0 || c.j_rows[r - 1].0 != *cols {
                    backwards = !backwards;
                }
                if backwards {
                    rows.jac_dof.extend(cols.iter().rev().map(|&k| k as DofIndex));
                    rows.jac_val.extend(vals.iter().rev());
                } else {
                    rows.jac_dof.extend(cols.iter().map(|&k| k as DofIndex));
                    rows.jac_val.extend_from_slice(vals);
                }
                rows.jac_start.push(rows.jac_dof.len());
                rows.kind.push(RowKind::ContactFrictionless);
            }
            let mut runs = Vec::new();
            rows.dof_groups(&mut runs);
            multi_row_runs += runs.iter().filter(|r| r.1 > 1).count();
            // Split every run of several rows in two (as the rows of two contacts of one pair come): `assign`
            // merges them again.
            let runs: Vec<(usize, usize)> = runs
                .iter()
                .flat_map(
                    |&(first, n)| if n > 1 { vec![(first, 1), (first + 1, n - 1)] } else { vec![(first, n)] },
                )
                .collect();
            let mut sp = SparseJacobian::default();
            sp.assign(&rows, &runs, c.nv);
            merged += runs.len() - sp.runs.len();
            let mut jx = vec![f64::NAN; rows.len()];
            sp.mul(&rows, &c.x, &mut jx);
            assert_eq!(bits(&jx), bits(&c.jx), "case {n}: J x");
            let mut jtf = vec![f64::NAN; c.nv];
            sp.mul_transpose(&c.force, &mut jtf);
            shared_dofs += sp.dof_run.windows(2).filter(|w| w[1] - w[0] > 1).count();
            assert_eq!(bits(&jtf), bits(&c.jtf), "case {n}: Jᵀ f");
        }
        // Both gathers are exercised: runs of rows (merged ones too), and dofs sharing their rows.
        assert!(
            multi_row_runs > 50 && shared_dofs > 50 && merged > 10,
            "{multi_row_runs} {shared_dofs} {merged}"
        );
    }
}
