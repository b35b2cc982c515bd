//! Sparse factorization `M = Lᵀ D L` that follows the tree (MuJoCo `mj_factorM` / `mj_solveM`).
//!
//! `L` is unit lower-triangular with the sparsity of `M`'s lower triangle: row `i` has nonzeros only at the dofs on
//! its chain to the root, so eliminating from the last dof up creates no fill-in. `qld` holds `D` on the diagonal
//! entries and `L` off the diagonal, in the layout of [`Model::dof_madr`]; `qld_diag_inv = 1/D`. Cost: the sum of
//! squared chain lengths to factor, `nm` multiply-adds per solve.

use crate::data::Data;
use crate::error::DynamicsError;
use crate::model::Model;

/// The layout of a tree-sparse symmetric matrix ([`Model::dof_madr`], [`Model::dof_colind`]): row `i` holds the
/// entries `madr[i]..madr[i + 1]`, the diagonal first, then the dofs of its chain to the root (`colind`, decreasing).
/// The same layout holds `M` and its factor `Lᵀ D L` (`D` on the diagonal entries, `L` off it). The model's mass
/// matrix, the solver's per-island copies and the integrators' shifted matrices all use these kernels.
///
/// The kernels read only the first `rownnz[i]` entries of row `i`; the rest must be zero (the off-diagonal part of
/// a simple dof, [`Model::dof_simple`]), and so must the entries past `rownnz` of every row that has `i` on its
/// chain (a simple body's dofs are all simple and it has no children).
#[derive(Debug, Clone, Copy)]
pub struct TreeLayout<'a> {
    /// Row starts (`nv + 1` entries).
    pub madr: &'a [usize],
    /// Column of every entry.
    pub colind: &'a [usize],
    /// Entries of each row the kernels read (`nv`), at most `madr[i + 1] − madr[i]`.
    pub rownnz: &'a [usize],
}

impl TreeLayout<'_> {
    /// Number of rows.
    #[inline]
    pub fn nv(&self) -> usize {
        self.madr.len().saturating_sub(1)
    }

    /// Factors in place: `ld` holds the matrix on entry and `L`, `D` on return, `diag_inv = 1/D`. Eliminating
    /// from the last row up follows the chains, so there is no fill-in. Fails with `(row, pivot)` on a pivot that
    /// is not positive and finite.
    pub fn factor(&self, ld: &mut [f64], diag_inv: &mut [f64]) -> Result<(), (usize, f64)> {
        self.factor_rows(ld, diag_inv, (0..self.nv()).rev())
    }

    /// [`Self::factor`] of the rows `rows` only (decreasing, whole trees); the other rows are left alone.
    pub fn factor_rows(
        &self,
        ld: &mut [f64],
        diag_inv: &mut [f64],
        rows: impl Iterator<Item = usize>,
    ) -> Result<(), (usize, f64)> {
        for k in rows {
            let (adr_kk, end) = (self.madr[k], self.madr[k] + self.rownnz[k]);
            let dkk = ld[adr_kk];
            if !(dkk > 0.0 && dkk.is_finite()) {
                return Err((k, dkk));
            }
            let inv = 1.0 / dkk;
            let (head, row_k) = ld.split_at_mut(adr_kk);
            // Row `ii` (an ancestor at position `off` of row k) holds exactly the rest of k's chain.
            for off in 1..end - adr_kk {
                let ii = self.colind[adr_kk + off];
                let l = row_k[off] * inv;
                let row = self.madr[ii];
                let count = self.rownnz[ii];
                for (target, source) in head[row..row + count].iter_mut().zip(&row_k[off..off + count]) {
                    *target -= l * source;
                }
                row_k[off] = l;
            }
            diag_inv[k] = inv;
        }
        Ok(())
    }

    /// `x ← (Lᵀ D L)⁻¹ x` with a factor from [`Self::factor`].
    pub fn solve(&self, ld: &[f64], diag_inv: &[f64], x: &mut [f64]) {
        self.solve_rows(ld, diag_inv, x, 0..self.nv());
    }

    /// [`Self::solve`] restricted to `dofs` (increasing, whole trees: closed under the chains), where `x` may be
    /// nonzero; the rest of `x` is left alone. Cost: the entries of those rows only.
    pub fn solve_on(&self, ld: &[f64], diag_inv: &[f64], x: &mut [f64], dofs: &[usize]) {
        self.solve_rows(ld, diag_inv, x, dofs.iter().copied());
    }

    /// The elimination over `rows` (increasing): `Lᵀ` backward, `D`, then `L` forward.
    #[inline]
    fn solve_rows(
        &self,
        ld: &[f64],
        diag_inv: &[f64],
        x: &mut [f64],
        rows: impl DoubleEndedIterator<Item = usize> + Clone,
    ) {
        for i in rows.clone().rev() {
            let xi = x[i];
            if xi == 0.0 {
                continue;
            }
            let entries = self.madr[i] + 1..self.madr[i] + self.rownnz[i];
            for (&l, &j) in ld[entries.clone()].iter().zip(&self.colind[entries]) {
                x[j] -= l * xi;
            }
        }
        for i in rows.clone() {
            x[i] *= diag_inv[i];
        }
        for i in rows {
            let (start, end) = (self.madr[i] + 1, self.madr[i] + self.rownnz[i]);
            if end > start {
                // MuJoCo's row holds the ancestors from the root down: the products in that order.
                let product = |t: usize| ld[end - 1 - t] * x[self.colind[end - 1 - t]];
                x[i] -= mujoco_sum_sparse(end - start, product);
            }
        }
    }

    /// `out = A x` for the symmetric matrix `a` stored in this layout.
    pub fn mul(&self, a: &[f64], x: &[f64], out: &mut [f64]) {
        let nv = self.nv();
        for i in 0..nv {
            out[i] = a[self.madr[i]] * x[i];
        }
        for i in 0..nv {
            let entries = self.madr[i] + 1..self.madr[i] + self.rownnz[i];
            let xi = x[i];
            let mut acc = out[i];
            for (&m, &j) in a[entries.clone()].iter().zip(&self.colind[entries]) {
                acc += m * x[j];
                out[j] += m * xi;
            }
            out[i] = acc;
        }
    }
}

/// The vectorised part of MuJoCo 4.0.1's dot products: four running lanes over the blocks of four terms, combined as
/// `(l₀ + l₂) + (l₁ + l₃)`; returns that sum and the number of terms it covers (`n` rounded down to a multiple of 4).
/// MuJoCo's lanes start at their first terms; ours start at `−0`, the one value that adds to every term (a `−0`
/// term included) as starting from it does. Without a block of four the sum is `+0`.
#[inline]
fn lane_sum(n: usize, term: &impl Fn(usize) -> f64) -> (f64, usize) {
    if n < 4 {
        return (0.0, 0);
    }
    let mut lanes = [-0.0; 4];
    let mut k = 0;
    while k + 4 <= n {
        for (j, lane) in lanes.iter_mut().enumerate() {
            *lane += term(k + j);
        }
        k += 4;
    }
    ((lanes[0] + lanes[2]) + (lanes[1] + lanes[3]), k)
}

/// `Σ term(t)` for `t < n`, summed as MuJoCo 4.0.1's vectorised `mju_dot`: four lanes over the blocks of four, combined `(l₀ + l₂) + (l₁ + l₃)`, then the one to three
/// remaining terms summed in order and added at once (checked against `mju_dot` for n = 1…12, bit for bit).
#[inline]
pub fn mujoco_sum(n: usize, term: impl Fn(usize) -> f64) -> f64 {
    let (sum, k) = lane_sum(n, &term);
    match n - k {
        1 => sum + term(k),
        2 => sum + (term(k) + term(k + 1)),
        3 => sum + ((term(k) + term(k + 1)) + term(k + 2)),
        _ => sum,
    }
}

/// `mju_dot(a, b)` over `a.len()` entries: [`mujoco_sum`] of `a_k b_k`, written over slices so that it compiles to
/// straight-line lanes (the solver's hot loops; 2.5 % fewer instructions per arm step than through the closure).
#[inline]
pub fn mujoco_dot(a: &[f64], b: &[f64]) -> f64 {
    let b = &b[..a.len()];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    // Lanes from `−0`, as [`lane_sum`]'s.
    let mut l = [-0.0; 4];
    for (x, y) in ca.zip(cb) {
        l[0] += x[0] * y[0];
        l[1] += x[1] * y[1];
        l[2] += x[2] * y[2];
        l[3] += x[3] * y[3];
    }
    let sum = if a.len() < 4 { 0.0 } else { (l[0] + l[2]) + (l[1] + l[3]) };
    match ra.len() {
        1 => sum + ra[0] * rb[0],
        2 => sum + (ra[0] * rb[0] + ra[1] * rb[1]),
        3 => sum + ((ra[0] * rb[0] + ra[1] * rb[1]) + ra[2] * rb[2]),
        _ => sum,
    }
}

/// `mju_dot` over `n` columns of terms that are zero outside the listed `(column, term)` pairs (columns increasing):
/// [`mujoco_sum`]'s lanes (a column's term in lane `column mod 4` below the last block of four, in the tail past
/// it), without visiting the zero columns. Their products are `±0`, which leave a lane's `+0` or non-zero sum as
/// it is.
#[inline]
pub fn mujoco_sum_at(n: usize, terms: impl IntoIterator<Item = (usize, f64)>) -> f64 {
    let full = n - n % 4;
    let mut lanes = [0.0; 4];
    let mut tail = [0.0; 3];
    for (k, t) in terms {
        if k < full {
            lanes[k % 4] += t;
        } else {
            tail[k - full] = t;
        }
    }
    let sum = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
    match n - full {
        1 => sum + tail[0],
        2 => sum + (tail[0] + tail[1]),
        3 => sum + ((tail[0] + tail[1]) + tail[2]),
        _ => sum,
    }
}

/// `Σ term(t)` for `t < n` as MuJoCo 4.0.1's `mju_dotSparse` sums it inside `mj_solveLD` (read off its
/// disassembly): the same four lanes, then the remaining terms added to it one at a time (`mju_dot` adds them to each other
/// first). Against `mj_solveM` on the benchmark chain (rows of up to 11 ancestors): 300 of 300 random right-hand
/// sides bit for bit, 62 with [`mujoco_sum`]'s tail.
#[inline]
pub fn mujoco_sum_sparse(n: usize, term: impl Fn(usize) -> f64) -> f64 {
    let (mut sum, k) = lane_sum(n, &term);
    for t in k..n {
        sum += term(t);
    }
    sum
}

/// [`mujoco_sum_sparse`] of `vals[t] · x[index(cols[t])]`, written over slices so that it compiles to straight-line
/// lanes (`mju_dotSparse` over a compressed row in the solver's hot loops).
#[inline]
pub fn mujoco_dot_sparse<I: Copy>(vals: &[f64], cols: &[I], x: &[f64], index: impl Fn(I) -> usize) -> f64 {
    sparse_lanes(vals, cols, |v, c| v * x[index(c)])
}

/// [`mujoco_dot_sparse`] of a row listed backwards: term `t` is `vals[n − 1 − t] · x[index(cols[n − 1 − t])]`.
#[inline]
pub fn mujoco_dot_sparse_rev<I: Copy>(
    vals: &[f64],
    cols: &[I],
    x: &[f64],
    index: impl Fn(I) -> usize,
) -> f64 {
    sparse_lanes_rev(vals, cols, |v, c| v * x[index(c)])
}

/// [`mujoco_dot_sparse`] with `x` gathered at the row's columns beforehand (`xs[t] = x[index(cols[t])]`): the same
/// sum over two contiguous slices, without an index load per term (rows over the same columns gather once).
#[inline]
pub fn mujoco_dot_gathered(vals: &[f64], xs: &[f64]) -> f64 {
    sparse_lanes(vals, xs, |v, y| v * y)
}

/// [`mujoco_dot_sparse_rev`] with `x` gathered in the row's (backward) order: term `t` is
/// `vals[n − 1 − t] · xs[n − 1 − t]`.
#[inline]
pub fn mujoco_dot_gathered_rev(vals: &[f64], xs: &[f64]) -> f64 {
    sparse_lanes_rev(vals, xs, |v, y| v * y)
}

/// [`mujoco_sum_sparse`] of `term(vals[t], with[t])` for `t < vals.len()`: four lanes from `−0` (as [`lane_sum`]'s)
/// over the blocks of four, combined `(l₀ + l₂) + (l₁ + l₃)`, then the rest added one at a time.
#[inline(always)]
fn sparse_lanes<T: Copy>(vals: &[f64], with: &[T], term: impl Fn(f64, T) -> f64) -> f64 {
    let with = &with[..vals.len()];
    let (cv, cw) = (vals.chunks_exact(4), with.chunks_exact(4));
    let (rv, rw) = (cv.remainder(), cw.remainder());
    let mut l = [-0.0; 4];
    for (v, w) in cv.zip(cw) {
        l[0] += term(v[0], w[0]);
        l[1] += term(v[1], w[1]);
        l[2] += term(v[2], w[2]);
        l[3] += term(v[3], w[3]);
    }
    let mut sum = if vals.len() < 4 { 0.0 } else { (l[0] + l[2]) + (l[1] + l[3]) };
    for (&v, &w) in rv.iter().zip(rw) {
        sum += term(v, w);
    }
    sum
}

/// [`sparse_lanes`] over the terms taken from the end: term `t` is `term(vals[n − 1 − t], with[n − 1 − t])`.
#[inline(always)]
fn sparse_lanes_rev<T: Copy>(vals: &[f64], with: &[T], term: impl Fn(f64, T) -> f64) -> f64 {
    let with = &with[..vals.len()];
    let (cv, cw) = (vals.rchunks_exact(4), with.rchunks_exact(4));
    let (rv, rw) = (cv.remainder(), cw.remainder());
    // Each chunk from the end holds terms `4j … 4j + 3` backwards.
    let mut l = [-0.0; 4];
    for (v, w) in cv.zip(cw) {
        l[0] += term(v[3], w[3]);
        l[1] += term(v[2], w[2]);
        l[2] += term(v[1], w[1]);
        l[3] += term(v[0], w[0]);
    }
    let mut sum = if vals.len() < 4 { 0.0 } else { (l[0] + l[2]) + (l[1] + l[3]) };
    for (&v, &w) in rv.iter().zip(rw).rev() {
        sum += term(v, w);
    }
    sum
}

/// `Σ row_k x_k` over the non-zero entries of `row`, in order, as [`mujoco_sum_sparse`] sums a compressed sparse row
/// (MuJoCo's `mju_dotSparse` on an actuator's moment, which keeps only its non-zero entries).
pub fn mujoco_dot_nonzero(row: &[f64], x: &[f64]) -> f64 {
    let nnz = row.iter().filter(|&&v| v != 0.0).count();
    let full = nnz - nnz % 4;
    let mut lanes = [-0.0; 4];
    let mut sum = 0.0;
    let mut t = 0;
    for (&v, &y) in row.iter().zip(x) {
        if v == 0.0 {
            continue;
        }
        if t < full {
            lanes[t % 4] += v * y;
        } else {
            if t == full && full > 0 {
                sum = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
            }
            sum += v * y;
        }
        t += 1;
    }
    if nnz == full && full > 0 { (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]) } else { sum }
}

impl Model {
    /// The layout of `qM` and `qLD`.
    #[inline]
    pub fn tree_layout(&self) -> TreeLayout<'_> {
        TreeLayout { madr: &self.dof_madr, colind: &self.dof_colind, rownnz: &self.dof_rownnz }
    }

    /// Factors `d.qm` into `d.qld`, `d.qld_diag_inv` (the rows of awake dofs, [`Data::set_awake`]). Errors on a
    /// pivot that is not positive and finite.
    pub fn factor_m(&self, d: &mut Data) -> Result<(), DynamicsError> {
        let layout = self.tree_layout();
        let result = if d.all_awake {
            d.qld.copy_from_slice(&d.qm);
            layout.factor(&mut d.qld, &mut d.qld_diag_inv)
        } else {
            for &i in &d.awake_dofs {
                let row = self.dof_madr[i]..self.dof_madr[i + 1];
                d.qld[row.clone()].copy_from_slice(&d.qm[row]);
            }
            layout.factor_rows(&mut d.qld, &mut d.qld_diag_inv, d.awake_dofs.iter().rev().copied())
        };
        result.map_err(|(dof, pivot)| DynamicsError::NotPositiveDefinite { dof, pivot })
    }

    /// `x ← M⁻¹ x` with the factor from [`Model::factor_m`].
    pub fn solve_m(&self, d: &Data, x: &mut [f64]) {
        assert_eq!(x.len(), self.nv, "solve_m: x needs nv entries");
        self.tree_layout().solve(&d.qld, &d.qld_diag_inv, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A row with zeros summed by [`mujoco_dot_nonzero`] equals [`mujoco_sum_sparse`] over its compressed entries,
        /// bit for bit.
        #[test]
        fn dot_over_nonzeros_is_the_compressed_sparse_sum(
            entries in prop::collection::vec((any::<bool>(), -1.0f64..1.0, -1.0f64..1.0), 0..24),
        ) {
            let row: Vec<f64> = entries.iter().map(|&(nonzero, v, _)| if nonzero { v } else { 0.0 }).collect();
            let x: Vec<f64> = entries.iter().map(|e| e.2).collect();
            let idx: Vec<usize> = (0..row.len()).filter(|&k| row[k] != 0.0).collect();
            let compressed = mujoco_sum_sparse(idx.len(), |t| row[idx[t]] * x[idx[t]]);
            prop_assert_eq!(mujoco_dot_nonzero(&row, &x).to_bits(), compressed.to_bits());
        }

        /// The slice forms ([`mujoco_dot_sparse`], backwards, gathered) equal [`mujoco_sum_sparse`] bit for bit, `−0`
        /// products included.
        #[test]
        fn sparse_dot_is_the_sparse_sum(
            entries in prop::collection::vec((-1.0f64..1.0, prop::sample::select(vec![-0.0f64, 0.0, 0.5, -2.0])), 0..24),
            perm_seed in any::<u64>(),
        ) {
            let n = entries.len();
            let x: Vec<f64> = entries.iter().map(|e| e.1).collect();
            let vals: Vec<f64> = entries.iter().map(|e| e.0).collect();
            let cols: Vec<u32> = (0..n as u32).map(|k| (k as u64 * 7 + perm_seed) as u32 % n.max(1) as u32).collect();
            let expected = mujoco_sum_sparse(n, |t| vals[t] * x[cols[t] as usize]);
            prop_assert_eq!(mujoco_dot_sparse(&vals, &cols, &x, |c| c as usize).to_bits(), expected.to_bits());
            let (rv, rc): (Vec<f64>, Vec<u32>) = vals.iter().rev().zip(cols.iter().rev()).unzip();
            prop_assert_eq!(mujoco_dot_sparse_rev(&rv, &rc, &x, |c| c as usize).to_bits(), expected.to_bits());
            let xs: Vec<f64> = cols.iter().map(|&c| x[c as usize]).collect();
            prop_assert_eq!(mujoco_dot_gathered(&vals, &xs).to_bits(), expected.to_bits());
            let rxs: Vec<f64> = xs.iter().rev().copied().collect();
            prop_assert_eq!(mujoco_dot_gathered_rev(&rv, &rxs).to_bits(), expected.to_bits());
        }
    }
}
