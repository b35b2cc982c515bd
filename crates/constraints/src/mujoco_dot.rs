//! Sums over a constraint row as MuJoCo 4.0.1 forms them on a dense model: `mju_dot` over the row's `nv` columns,
//! zeros included, in its vectorised order (four lanes by column, combined `(l₀ + l₂) + (l₁ + l₃)`, then the one
//! to three remaining columns; `signorini_model::factor::mujoco_sum`). MuJoCo keeps the Jacobian dense below
//! [`MUJOCO_SPARSE_NV`] dofs (`mj_isSparse` with `jacobian="auto"`).

use signorini_model::factor::{mujoco_dot_sparse, mujoco_dot_sparse_rev, mujoco_sum_at};

use crate::DofIndex;

/// From this many dofs on MuJoCo's Jacobian is sparse.
pub const MUJOCO_SPARSE_NV: usize = 60;

/// `J_r · x` of the row with entries `vals` at columns `dofs` (listed in decreasing or increasing order), as
/// `mju_dot` sums the dense row of `x.len()` columns ([`mujoco_sum_at`]).
pub fn mujoco_row_dot(dofs: &[DofIndex], vals: &[f64], x: &[f64]) -> f64 {
    let term = |(&d, &v): (&DofIndex, &f64)| (d as usize, v * x[d as usize]);
    if dofs.first() > dofs.last() {
        mujoco_sum_at(x.len(), dofs.iter().zip(vals).rev().map(term))
    } else {
        mujoco_sum_at(x.len(), dofs.iter().zip(vals).map(term))
    }
}

/// `J_r · x` of the row with entries `vals` at columns `dofs` (either order) as `mju_dotSparse` sums a row of
/// MuJoCo's sparse Jacobian (a model of [`MUJOCO_SPARSE_NV`] dofs or more): over the stored entries, columns
/// increasing (`signorini_model::factor::mujoco_sum_sparse`).
#[inline]
pub fn mujoco_sparse_row_dot(dofs: &[DofIndex], vals: &[f64], x: &[f64]) -> f64 {
    if dofs.first() > dofs.last() {
        mujoco_dot_sparse_rev(vals, dofs, x, |d| d as usize)
    } else {
        mujoco_dot_sparse(vals, dofs, x, |d| d as usize)
    }
}

/// `J_r · x` as MuJoCo's `mj_mulJacVec` sums it on a model of `nv` dofs: [`mujoco_row_dot`] on a model it keeps
/// dense, [`mujoco_sparse_row_dot`] from [`MUJOCO_SPARSE_NV`] dofs on.
#[inline]
pub fn mujoco_jac_row_dot(nv: usize, dofs: &[DofIndex], vals: &[f64], x: &[f64]) -> f64 {
    if nv < MUJOCO_SPARSE_NV { mujoco_row_dot(dofs, vals, x) } else { mujoco_sparse_row_dot(dofs, vals, x) }
}

/// The buffers of [`mujoco_transpose_mul`] (sized on first use).
#[derive(Debug, Clone, Default)]
pub struct TransposeScratch {
    /// Per dof: its number of stored entries over all rows, then the number summed so far.
    count: Vec<(u32, u32)>,
    /// Per dof: the four lanes, then the one to three terms past the last block of four.
    lanes: Vec<[f64; 4]>,
    tail: Vec<[f64; 3]>,
}

/// `out = Jᵀ f` row by row, `out += J_r f_r` for every `f_r ≠ 0`, the rows taken in `order`: MuJoCo's
/// `mju_mulMatTVec` on a dense model, and `mju_mulMatTVecSparse`, which its dual solvers' `dualFinish` calls
/// (`mj_mulJacTVec`) on a sparse one.
pub fn mujoco_transpose_mul_by_rows(
    rows: &crate::ConstraintRows,
    force: &[f64],
    order: impl Iterator<Item = usize>,
    out: &mut [f64],
) {
    out.fill(0.0);
    for r in order {
        let f = force[r];
        if f != 0.0 {
            let (dofs, vals) = rows.jacobian_row(r);
            for (&k, &v) in dofs.iter().zip(vals) {
                out[k as usize] += v * f;
            }
        }
    }
}

/// `out = Jᵀ f` as MuJoCo 4.0.1's `mj_mulJacTVec` sums it on a model of `out.len()` dofs, the rows taken in `order`
/// (MuJoCo's row order). Below [`MUJOCO_SPARSE_NV`] dofs `mju_mulMatTVec`: row by row, `out += J_r f_r` for every
/// `f_r ≠ 0`. From it on `mju_mulMatVecSparse` over `Jᵀ`: each dof's `mju_dotSparse` over its stored entries, rows
/// increasing (four lanes over the blocks of four, `(l₀ + l₂) + (l₁ + l₃)`, then the rest one at a time), zero forces
/// included.
pub fn mujoco_transpose_mul(
    rows: &crate::ConstraintRows,
    force: &[f64],
    order: impl Iterator<Item = usize> + Clone,
    out: &mut [f64],
    scratch: &mut TransposeScratch,
) {
    if out.len() < MUJOCO_SPARSE_NV {
        mujoco_transpose_mul_by_rows(rows, force, order, out);
        return;
    }
    out.fill(0.0);
    let nv = out.len();
    let s = scratch;
    s.count.clear();
    s.count.resize(nv, (0, 0));
    s.lanes.clear();
    s.lanes.resize(nv, [-0.0; 4]);
    s.tail.clear();
    s.tail.resize(nv, [0.0; 3]);
    for r in order.clone() {
        for &k in rows.jacobian_row(r).0 {
            s.count[k as usize].0 += 1;
        }
    }
    for r in order {
        let f = force[r];
        let (dofs, vals) = rows.jacobian_row(r);
        for (&k, &v) in dofs.iter().zip(vals) {
            let k = k as usize;
            let (n, t) = &mut s.count[k];
            let full = *n - *n % 4;
            if *t < full {
                s.lanes[k][(*t % 4) as usize] += v * f;
            } else {
                s.tail[k][(*t - full) as usize] = v * f;
            }
            *t += 1;
        }
    }
    for (k, o) in out.iter_mut().enumerate() {
        let (n, _) = s.count[k];
        let l = &s.lanes[k];
        let mut sum = if n < 4 { 0.0 } else { (l[0] + l[2]) + (l[1] + l[3]) };
        for &t in &s.tail[k][..(n % 4) as usize] {
            sum += t;
        }
        *o = sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the dense sum of `signorini_model::factor::mujoco_sum` (checked against `mju_dot` itself), for rows
    /// in both orders and every width from 1 to 13.
    #[test]
    fn equals_the_dense_vectorised_sum() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut r = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for n in 1..=13 {
            for _ in 0..20 {
                let x: Vec<f64> = (0..n).map(|_| r() * 1e3).collect();
                let dense: Vec<f64> = (0..n).map(|_| if r() > 0.0 { r() } else { 0.0 }).collect();
                let dofs: Vec<DofIndex> =
                    (0..n).filter(|&k| dense[k] != 0.0).map(|k| k as DofIndex).collect();
                let vals: Vec<f64> = dofs.iter().map(|&k| dense[k as usize]).collect();
                let expected = signorini_model::factor::mujoco_sum(n, |k| dense[k] * x[k]);
                assert_eq!(mujoco_row_dot(&dofs, &vals, &x).to_bits(), expected.to_bits(), "n {n}");
                let (rd, rv): (Vec<DofIndex>, Vec<f64>) = dofs.iter().rev().zip(vals.iter().rev()).unzip();
                assert_eq!(mujoco_row_dot(&rd, &rv, &x).to_bits(), expected.to_bits(), "n {n}, decreasing");
            }
        }
    }
}
