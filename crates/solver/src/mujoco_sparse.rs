//! MuJoCo 4.0.1's sparse constraint Jacobian on a model it keeps sparse (60 dofs or more: `mj_isSparse`), for
//! [`crate::mujoco_newton`]'s CG iteration: `J` in compressed rows with the columns increasing (`efc_J`) and `Jᵀ` in
//! compressed rows over the dofs with the constraint rows increasing (`mju_transposeSparse`). `J x` and `Jᵀ f` are
//! `mju_mulMatVecSparse` over them: `mju_dotSparse` over a row's stored entries (four lanes over the blocks of four,
//! `(l₀ + l₂) + (l₁ + l₃)`, then the rest added one at a time), supernodes or not. Checked against the library's
//! functions (`tests` below, `scripts/mujoco_sparse_cases.py`).

use signorini_constraints::ConstraintRows;
use signorini_model::factor::mujoco_dot_sparse;

/// `J` and `Jᵀ` of one problem (rebuilt by [`SparseJacobian::assign`] for every solve; the vectors keep their
/// capacity).
#[derive(Debug, Clone, Default)]
pub(crate) struct SparseJacobian {
    nv: usize,
    /// `J`: row starts (`nefc + 1`), columns (increasing within a row) and values.
    j_adr: Vec<usize>,
    j_col: Vec<usize>,
    j_val: Vec<f64>,
    /// `Jᵀ`: row starts (`nv + 1`), the constraint rows (increasing) and values.
    jt_adr: Vec<usize>,
    jt_row: Vec<usize>,
    jt_val: Vec<f64>,
}

impl SparseJacobian {
    /// Builds `J` and `Jᵀ` from `rows` over `nv` dofs (rows list their columns in either order).
    pub(crate) fn assign(&mut self, rows: &ConstraintRows, nv: usize) {
        self.nv = nv;
        self.j_adr.clear();
        self.j_col.clear();
        self.j_val.clear();
        self.j_adr.push(0);
        for r in 0..rows.len() {
            let (dofs, vals) = rows.jacobian_row(r);
            if dofs.first() > dofs.last() {
                self.j_col.extend(dofs.iter().rev().map(|&d| d as usize));
                self.j_val.extend(vals.iter().rev());
            } else {
                self.j_col.extend(dofs.iter().map(|&d| d as usize));
                self.j_val.extend_from_slice(vals);
            }
            self.j_adr.push(self.j_col.len());
        }
        // Jᵀ by counting: `jt_adr` first holds each dof's count, then its row start, then (while filling) its
        // write position, shifted back at the end.
        self.jt_adr.clear();
        self.jt_adr.resize(nv + 1, 0);
        for &c in &self.j_col {
            self.jt_adr[c + 1] += 1;
        }
        for v in 0..nv {
            self.jt_adr[v + 1] += self.jt_adr[v];
        }
        self.jt_row.resize(self.j_col.len(), 0);
        self.jt_val.resize(self.j_col.len(), 0.0);
        for r in 0..rows.len() {
            for k in self.j_adr[r]..self.j_adr[r + 1] {
                let c = self.j_col[k];
                let at = self.jt_adr[c];
                self.jt_row[at] = r;
                self.jt_val[at] = self.j_val[k];
                self.jt_adr[c] += 1;
            }
        }
        for v in (1..=nv).rev() {
            self.jt_adr[v] = self.jt_adr[v - 1];
        }
        self.jt_adr[0] = 0;
    }

    /// `J_r x` (`mju_dotSparse` over row `r`'s entries).
    #[inline]
    pub(crate) fn row_dot(&self, r: usize, x: &[f64]) -> f64 {
        let (a, b) = (self.j_adr[r], self.j_adr[r + 1]);
        mujoco_dot_sparse(&self.j_val[a..b], &self.j_col[a..b], x, |c| c)
    }

    /// `out = J x`, every row as [`Self::row_dot`].
    pub(crate) fn mul(&self, x: &[f64], out: &mut [f64]) {
        for (o, w) in out.iter_mut().zip(self.j_adr.windows(2)) {
            *o = mujoco_dot_sparse(&self.j_val[w[0]..w[1]], &self.j_col[w[0]..w[1]], x, |c| c);
        }
    }

    /// `out = Jᵀ f` (`mju_mulMatVecSparse` over `Jᵀ`).
    pub(crate) fn mul_transpose(&self, f: &[f64], out: &mut [f64]) {
        for (v, o) in out[..self.nv].iter_mut().enumerate() {
            let (a, b) = (self.jt_adr[v], self.jt_adr[v + 1]);
            *o = mujoco_dot_sparse(&self.jt_val[a..b], &self.jt_row[a..b], f, |r| r);
        }
    }
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
    /// `scripts/mujoco_sparse_cases.py`, bit for bit; half the rows are handed over with their columns decreasing.
    #[test]
    fn products_match_mujoco() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mujoco_sparse.json");
        let cases: Cases = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert!(cases.cases.len() >= 40);
        for (n, c) in cases.cases.iter().enumerate() {
            let mut rows = ConstraintRows::new();
            rows.clear();
            for (r, (cols, vals)) in c.j_rows.iter().enumerate() {
                if r % 2 == 0 {
                    rows.jac_dof.extend(cols.iter().map(|&k| k as DofIndex));
                    rows.jac_val.extend_from_slice(vals);
                } else {
                    rows.jac_dof.extend(cols.iter().rev().map(|&k| k as DofIndex));
                    rows.jac_val.extend(vals.iter().rev());
                }
                rows.jac_start.push(rows.jac_dof.len());
                rows.kind.push(RowKind::ContactFrictionless);
            }
            let mut sp = SparseJacobian::default();
            sp.assign(&rows, c.nv);
            let jx: Vec<f64> = (0..rows.len()).map(|r| sp.row_dot(r, &c.x)).collect();
            assert_eq!(bits(&jx), bits(&c.jx), "case {n}: J x");
            let mut jtf = vec![0.0; c.nv];
            sp.mul_transpose(&c.force, &mut jtf);
            assert_eq!(bits(&jtf), bits(&c.jtf), "case {n}: Jᵀ f");
        }
    }
}
