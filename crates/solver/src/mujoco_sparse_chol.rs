//! MuJoCo 4.0.1's sparse reverse Cholesky factor of the Newton Hessian on a model it keeps sparse (60 dofs or more:
//! `mj_isSparse`), for [`crate::mujoco_newton`], operation for operation.
//!
//! `H = M + Jᵀ D J` is factored as `H = Lᵀ L` with `L` lower triangular, eliminating from the last dof to the first
//! (a *reverse* Cholesky: a kinematic tree's leaves come last, so the factor has no fill beyond the dof chains). Its
//! pattern comes from `H`'s over **every** constraint row, quadratic or not (`mju_sqrMatTDSparseSymbolic` over `J`,
//! merged with `M`'s), through the elimination tree (`mju_cholFactorSymbolic`); the rows of `L` list their columns
//! increasing, the diagonal last, and `Lᵀ`'s rows list `L`'s entries in the order the elimination tree's walks meet
//! them, which is the order in which the numeric phase subtracts them:
//!
//! - factor (`mju_cholFactorNumeric`), rows `r = n−1, …, 0`: `h ← H_{r,0..r}`, then for every `c > r` with `L_cr ≠ 0`
//!   (in `Lᵀ`'s order) `h_j −= L_cr L_cj` for `j ≤ r`; `L_rr = √max(h_r, mjMINVAL)`, `L_rj = h_j · (1/L_rr)`;
//! - solve (`mju_cholSolveSparse`): `x ← L⁻ᵀ x` by rows from the last (`x_i /= L_ii`, then `x_j −= L_ij x_i`, skipped
//!   when `x_i = 0`), then `x ← L⁻¹ x` by rows from the first (`x_i −= mju_dotSparse(L_i, x)`, `x_i /= L_ii`), except
//!   that two or three consecutive rows of one pattern (row `i + b` holds row `i`'s columns, then `i, …, i + b − 1`)
//!   go together, their sums over the shared columns taken one term at a time: 4.0.1's machine code, where its C
//!   source has the single-row form only;
//! - rank-one update (`mju_cholUpdateSparse`): `LᵀL ± x xᵀ` by Givens rotations from the last entry of `x` down.
//!
//! `H`'s values are summed as `mju_sqrMatTDSparseNumeric` sums them: `H_rc = Σ_k (D_k J_kr) J_kc` over the rows in
//! order, then `+ M_rc` (`mju_addToMatSparse`).

use signorini_constraints::ConstraintRows;
use signorini_model::factor::mujoco_dot_gathered;

use crate::mass::TreeMass;

/// MuJoCo's `mjMINVAL`.
const MINVAL: f64 = 1e-15;

/// The pattern of `L` and `Lᵀ`, `H`'s values and the factors (vectors keep their capacity across solves).
#[derive(Debug, Clone, Default)]
pub(crate) struct SparseCholesky {
    n: usize,
    /// `H`'s structural entries `(c, i)`, `c ≤ i`, sorted: `Hᵀ`'s rows (the upper triangle) in order.
    pairs: Vec<(u32, u32)>,
    /// `Hᵀ`'s rows: columns `i ≥ r`, increasing.
    ht_adr: Vec<usize>,
    ht_col: Vec<usize>,
    /// `H`'s values in `L`'s pattern (which holds `H`'s lower triangle).
    h: Vec<f64>,
    /// `L` in compressed rows (columns increasing, the diagonal last) and `Lᵀ` in compressed rows with the index of
    /// each of its entries in `L` (`LT_map`).
    l_nnz: Vec<usize>,
    l_adr: Vec<usize>,
    l_col: Vec<usize>,
    lt_nnz: Vec<usize>,
    lt_adr: Vec<usize>,
    lt_col: Vec<usize>,
    lt_map: Vec<usize>,
    /// The factor `L` of `H`, and `Lcone` (`L` updated by the cone Hessians).
    pub l: Vec<f64>,
    pub lcone: Vec<f64>,
    /// Dense scratch of one row, the symbolic phase's work arrays, a gathered vector.
    dense: Vec<f64>,
    parent: Vec<usize>,
    flag: Vec<usize>,
    cursor: Vec<usize>,
    lt_write: Vec<usize>,
    gathered: Vec<f64>,
}

/// Marks "no parent" in the elimination tree.
const NONE: usize = usize::MAX;

impl SparseCholesky {
    /// The pattern of `H = M + Jᵀ D J` over every row of `rows` (in runs over the same dofs, `runs`) and the
    /// symbolic factorization.
    pub(crate) fn analyse(&mut self, rows: &ConstraintRows, runs: &[(usize, usize)], mass: &TreeMass) {
        let n = mass.nv;
        self.n = n;
        self.pairs.clear();
        for &(first, _) in runs {
            let dofs = rows.jacobian_row(first).0;
            for &i in dofs {
                self.pairs.extend(dofs.iter().filter(|&&c| c <= i).map(|&c| (c, i)));
            }
        }
        let pairs = &mut self.pairs;
        mass.for_each_entry(|i, j, _| pairs.push((j as u32, i as u32)));
        self.pairs.sort_unstable();
        self.pairs.dedup();
        self.analyse_pairs();
    }

    /// `Hᵀ`'s rows from the sorted structural entries, and the symbolic factorization.
    fn analyse_pairs(&mut self) {
        let n = self.n;
        self.ht_adr.clear();
        self.ht_col.clear();
        let mut at = 0;
        for r in 0..n {
            self.ht_adr.push(self.ht_col.len());
            while at < self.pairs.len() && self.pairs[at].0 as usize == r {
                self.ht_col.push(self.pairs[at].1 as usize);
                at += 1;
            }
        }
        self.ht_adr.push(self.ht_col.len());
        self.symbolic();
    }

    /// Position of `L_rc` in [`Self::l`] (`c` in row `r`'s pattern).
    fn entry(&self, r: usize, c: usize) -> usize {
        let (adr, nnz) = (self.l_adr[r], self.l_nnz[r]);
        adr + self.l_col[adr..adr + nnz].partition_point(|&x| x < c)
    }

    /// `mju_cholFactorSymbolic`: counting, then filling.
    fn symbolic(&mut self) {
        let n = self.n;
        for v in [&mut self.l_nnz, &mut self.lt_nnz, &mut self.l_adr, &mut self.lt_adr] {
            v.clear();
            v.resize(n, 0);
        }
        for v in [&mut self.parent, &mut self.flag, &mut self.cursor, &mut self.lt_write] {
            v.clear();
            v.resize(n, 0);
        }
        for fill in [false, true] {
            if fill {
                let total = self.l_nnz.iter().sum::<usize>();
                self.l_col.clear();
                self.l_col.resize(total, 0);
                self.lt_col.clear();
                self.lt_col.resize(total, 0);
                self.lt_map.clear();
                self.lt_map.resize(total, 0);
                for r in 0..n {
                    self.cursor[r] = (self.l_adr[r] + self.l_nnz[r]).wrapping_sub(2);
                    self.lt_write[r] = self.lt_adr[r];
                }
            }
            for r in (0..n).rev() {
                self.parent[r] = NONE;
                self.flag[r] = r;
                if fill {
                    let diag = self.l_adr[r] + self.l_nnz[r] - 1;
                    self.l_col[diag] = r;
                    let w = self.lt_write[r];
                    self.lt_col[w] = r;
                    self.lt_map[w] = diag;
                    self.lt_write[r] += 1;
                } else {
                    self.l_nnz[r] = 1;
                    self.lt_nnz[r] = 1;
                }
                for k in self.ht_adr[r]..self.ht_adr[r + 1] {
                    let mut i = self.ht_col[k];
                    if i <= r {
                        continue;
                    }
                    while self.flag[i] != r {
                        if self.parent[i] == NONE {
                            self.parent[i] = r;
                        }
                        if fill {
                            let at = self.cursor[i];
                            self.cursor[i] = at.wrapping_sub(1);
                            self.l_col[at] = r;
                            let w = self.lt_write[r];
                            self.lt_col[w] = i;
                            self.lt_map[w] = at;
                            self.lt_write[r] += 1;
                        } else {
                            self.l_nnz[i] += 1;
                            self.lt_nnz[r] += 1;
                        }
                        self.flag[i] = r;
                        i = self.parent[i];
                    }
                }
            }
            if !fill {
                for r in 1..n {
                    self.l_adr[r] = self.l_adr[r - 1] + self.l_nnz[r - 1];
                    self.lt_adr[r] = self.lt_adr[r - 1] + self.lt_nnz[r - 1];
                }
            }
        }
        self.l.clear();
        self.l.resize(self.l_col.len(), 0.0);
    }

    /// `H`'s values: `Σ_k (D_k J_kr) J_kc` over the rows with `d_k ≠ 0` in order, then `+ M` (lower triangle).
    pub(crate) fn assemble(&mut self, rows: &ConstraintRows, d: impl Fn(usize) -> f64, mass: &TreeMass) {
        let mut h = std::mem::take(&mut self.h);
        h.clear();
        h.resize(self.l.len(), 0.0);
        for k in 0..rows.len() {
            let dk = d(k);
            if dk == 0.0 {
                continue;
            }
            let (dofs, vals) = rows.jacobian_row(k);
            for (&r, &jr) in dofs.iter().zip(vals) {
                let scale = dk * jr;
                if scale == 0.0 {
                    continue;
                }
                for (&c, &jc) in dofs.iter().zip(vals) {
                    if c <= r {
                        h[self.entry(r as usize, c as usize)] += scale * jc;
                    }
                }
            }
        }
        mass.for_each_entry(|i, j, m| h[self.entry(i, j)] += m);
        self.h = h;
    }

    /// `mju_cholFactorNumeric` of the assembled `H` into [`Self::l`]; returns the rank.
    pub(crate) fn factor(&mut self) -> usize {
        let n = self.n;
        let mut rank = n;
        self.dense.clear();
        self.dense.resize(n, 0.0);
        let dense = &mut self.dense;
        for r in (0..n).rev() {
            let (adr, nnz) = (self.l_adr[r], self.l_nnz[r]);
            for p in adr..adr + nnz {
                dense[self.l_col[p]] = self.h[p];
            }
            let lt = self.lt_adr[r];
            for k in 1..self.lt_nnz[r] {
                let c = self.lt_col[lt + k];
                let at = self.lt_map[lt + k];
                let l_cr = self.l[at];
                let c_adr = self.l_adr[c];
                for p in c_adr..=at {
                    dense[self.l_col[p]] -= l_cr * self.l[p];
                }
            }
            let mut diag = dense[r];
            if diag < MINVAL {
                diag = MINVAL;
                rank -= 1;
            }
            let l_rr = diag.sqrt();
            let inv = 1.0 / l_rr;
            for p in adr..adr + nnz - 1 {
                self.l[p] = dense[self.l_col[p]] * inv;
            }
            self.l[adr + nnz - 1] = l_rr;
            for &c in &self.l_col[adr..adr + nnz] {
                dense[c] = 0.0;
            }
        }
        rank
    }

    /// `mju_cholSolveSparse`: `x ← (LᵀL)⁻¹ x` with `L` = [`Self::lcone`] when `cone`, else [`Self::l`].
    pub(crate) fn solve(&mut self, cone: bool, x: &mut [f64]) {
        let mat = if cone { &self.lcone } else { &self.l };
        let n = self.n;
        for i in (0..n).rev() {
            if x[i] != 0.0 {
                let (adr, nnz) = (self.l_adr[i], self.l_nnz[i]);
                x[i] /= mat[adr + nnz - 1];
                let t = x[i];
                for p in adr..adr + nnz - 1 {
                    x[self.l_col[p]] -= mat[p] * t;
                }
            }
        }
        let mut i = 0;
        while i < n {
            let (adr, nnz) = (self.l_adr[i], self.l_nnz[i]);
            let block = self.block_at(i);
            if block == 1 {
                if nnz > 1 {
                    self.gathered.clear();
                    self.gathered.extend(self.l_col[adr..adr + nnz - 1].iter().map(|&c| x[c]));
                    x[i] -= mujoco_dot_gathered(&mat[adr..adr + nnz - 1], &self.gathered);
                }
                x[i] /= mat[adr + nnz - 1];
                i += 1;
                continue;
            }
            // Rows `i..i + block` over row `i`'s columns, then their own triangle: sums one term at a time.
            let shared = nnz - 1;
            let mut sums = [0.0; 3];
            for k in 0..shared {
                let xc = x[self.l_col[adr + k]];
                for (b, s) in sums[..block].iter_mut().enumerate() {
                    *s += mat[self.l_adr[i + b] + k] * xc;
                }
            }
            for b in 0..block {
                let row = self.l_adr[i + b];
                let mut v = x[i + b] - sums[b];
                for p in 0..b {
                    v -= mat[row + shared + p] * x[i + p];
                }
                x[i + b] = v / mat[row + shared + b];
            }
            i += block;
        }
    }

    /// The rows that `mju_cholSolveSparse`'s forward pass takes together at row `i` (1 to 3): row `i + b` has
    /// `b` more entries than row `i` and holds column `i` right after row `i`'s off-diagonal columns.
    fn block_at(&self, i: usize) -> usize {
        let nnz = self.l_nnz[i];
        let follows = |b: usize| {
            i + b < self.n
                && self.l_nnz[i + b] == nnz + b
                && nnz >= 1
                && self.l_col[self.l_adr[i + b] + nnz - 1] == i
        };
        if !follows(1) {
            1
        } else if !follows(2) {
            2
        } else {
            3
        }
    }

    /// `mju_cholUpdateSparse` of [`Self::lcone`] (when `cone`) or [`Self::l`] by `x` (values `xv` at the increasing
    /// dofs `xi`): `LᵀL + x xᵀ` when `plus`, else `− x xᵀ`; returns the rank.
    pub(crate) fn update(&mut self, cone: bool, xv: &[f64], xi: &[usize], plus: bool) -> usize {
        let n = self.n;
        let Some(&start) = xi.last() else { return n };
        let mat = if cone { &mut self.lcone } else { &mut self.l };
        let dense = &mut self.dense;
        dense.clear();
        dense.resize(start + 1, 0.0);
        for (&i, &v) in xi.iter().zip(xv) {
            dense[i] = v;
        }
        let mut rank = n;
        for row in (0..=start).rev() {
            if dense[row] == 0.0 {
                continue;
            }
            let nnz = self.l_nnz[row] - 1;
            let adr = self.l_adr[row];
            let diag = mat[adr + nnz];
            let x_row = dense[row];
            let mut tmp = diag * diag + if plus { x_row * x_row } else { -x_row * x_row };
            if tmp < MINVAL {
                tmp = MINVAL;
                rank -= 1;
            }
            let r = tmp.sqrt();
            mat[adr + nnz] = r;
            let c = diag / r;
            let s = -x_row / r;
            let s_signed = if plus { -s } else { s };
            for (m, &j) in mat[adr..adr + nnz].iter_mut().zip(&self.l_col[adr..adr + nnz]) {
                let (dj, mv) = (dense[j], *m);
                *m = c * mv + s_signed * dj;
                dense[j] = s * mv + c * dj;
            }
        }
        rank
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::uniform;

    /// Uniform in [0, 1).
    fn unit(u: &mut impl FnMut() -> f64) -> f64 {
        0.5 * (u() + 1.0)
    }

    /// A random symmetric positive definite `H` (dense, row-major) over a random pattern with its diagonal, and the
    /// factor analysed for that pattern, with `H`'s values in it.
    fn random_problem(rng: &mut impl FnMut() -> f64, n: usize, density: f64) -> (SparseCholesky, Vec<f64>) {
        let mut h = vec![0.0; n * n];
        let mut ch = SparseCholesky { n, ..SparseCholesky::default() };
        for i in 0..n {
            for c in 0..i {
                if unit(rng) < density {
                    let v = unit(rng) - 0.5;
                    h[i * n + c] = v;
                    h[c * n + i] = v;
                    ch.pairs.push((c as u32, i as u32));
                }
            }
            ch.pairs.push((i as u32, i as u32));
        }
        for i in 0..n {
            let off: f64 = (0..n).filter(|&c| c != i).map(|c| h[i * n + c].abs()).sum();
            h[i * n + i] = off + 0.5 + unit(rng);
        }
        ch.pairs.sort_unstable();
        ch.analyse_pairs();
        ch.h = vec![0.0; ch.l.len()];
        for r in 0..n {
            for p in ch.l_adr[r]..ch.l_adr[r] + ch.l_nnz[r] {
                ch.h[p] = h[r * n + ch.l_col[p]];
            }
        }
        (ch, h)
    }

    /// `(LᵀL)_ij` from the factor's rows.
    fn lt_l(ch: &SparseCholesky, mat: &[f64]) -> Vec<f64> {
        let n = ch.n;
        let mut dense_l = vec![0.0; n * n];
        for r in 0..n {
            for p in ch.l_adr[r]..ch.l_adr[r] + ch.l_nnz[r] {
                dense_l[r * n + ch.l_col[p]] = mat[p];
            }
        }
        let mut out = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                out[i * n + j] = (0..n).map(|k| dense_l[k * n + i] * dense_l[k * n + j]).sum();
            }
        }
        out
    }

    fn mul(h: &[f64], n: usize, x: &[f64]) -> Vec<f64> {
        (0..n).map(|i| (0..n).map(|j| h[i * n + j] * x[j]).sum()).collect()
    }

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
    }

    /// The pattern: rows list their columns increasing with the diagonal last, `Lᵀ` indexes the same entries, and
    /// `LᵀL = H`; the solve inverts `H`.
    #[test]
    fn factor_and_solve_invert_h() {
        let mut rng = uniform(0x5c0f);
        for case in 0..60 {
            let n = 1 + case % 23;
            let (mut ch, h) = random_problem(&mut rng, n, [0.05, 0.2, 0.6][case % 3]);
            for r in 0..n {
                let cols = &ch.l_col[ch.l_adr[r]..ch.l_adr[r] + ch.l_nnz[r]];
                assert!(
                    cols.windows(2).all(|w| w[0] < w[1]) && cols.last() == Some(&r),
                    "case {case} row {r}"
                );
                for k in ch.lt_adr[r]..ch.lt_adr[r] + ch.lt_nnz[r] {
                    assert_eq!(ch.l_col[ch.lt_map[k]], r, "case {case}");
                }
            }
            assert_eq!(ch.factor(), n, "case {case}");
            assert!(close(&lt_l(&ch, &ch.l), &h, 1e-12), "case {case}");
            let b: Vec<f64> = (0..n).map(|_| unit(&mut rng) - 0.5).collect();
            let mut x = b.clone();
            ch.solve(false, &mut x);
            assert!(close(&mul(&h, n, &x), &b, 1e-10), "case {case}");
        }
    }

    /// A rank-one update by a sparse `x` gives the factor of `H + x xᵀ`, and the downdate takes it back.
    #[test]
    fn update_and_downdate() {
        let mut rng = uniform(0x0bd8);
        for case in 0..60 {
            let n = 2 + case % 17;
            let (mut ch, h) = random_problem(&mut rng, n, 0.3);
            ch.factor();
            // `x` over one row of the pattern (a constraint row's dofs are a row of `H`'s pattern).
            let r = (unit(&mut rng) * n as f64) as usize % n;
            let dofs: Vec<usize> = ch.l_col[ch.l_adr[r]..ch.l_adr[r] + ch.l_nnz[r]]
                .iter()
                .copied()
                .filter(|&c| (ch.entry(r, c) - ch.l_adr[r]) % 2 == 0 || c == r)
                .collect();
            let vals: Vec<f64> = dofs.iter().map(|_| unit(&mut rng) - 0.5).collect();
            let before = ch.l.clone();
            assert_eq!(ch.update(false, &vals, &dofs, true), n, "case {case}");
            let mut plus = h.clone();
            for (a, &i) in dofs.iter().enumerate() {
                for (b, &j) in dofs.iter().enumerate() {
                    plus[i * n + j] += vals[a] * vals[b];
                }
            }
            assert!(close(&lt_l(&ch, &ch.l), &plus, 1e-12), "case {case}");
            assert_eq!(ch.update(false, &vals, &dofs, false), n, "case {case}");
            assert!(close(&ch.l, &before, 1e-10), "case {case}");
        }
    }
}
