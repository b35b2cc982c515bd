//! Products with the constraint Jacobian `J` of [`ConstraintRows`] (CSR rows, runs of rows over the same dofs from
//! [`ConstraintRows::dof_groups`]): `J x` ([`mul_j`], [`mul_j2`] for two vectors in one pass) and `g −= Jᵀ f`
//! ([`sub_jt`]). Each row's sum runs over its dofs in order and each dof's sum over the run's rows in order, so the
//! results do not depend on how many rows are processed side by side.

use signorini_constraints::{ConstraintRows, DofIndex};

/// `out_i = J_i · x` for every row, run by run (`groups` from [`ConstraintRows::dof_groups`]): four rows of a run
/// at a time share each loaded `x` entry and keep their sums in registers (each sum still runs over the dofs in
/// order).
pub(crate) fn mul_j(rows: &ConstraintRows, groups: &[(usize, usize)], x: &[f64], out: &mut [f64]) {
    for &(first, n) in groups {
        let dofs = rows.jacobian_row(first).0;
        let len = dofs.len();
        let out = &mut out[first..first + n];
        if len == 0 {
            out.fill(0.0);
            continue;
        }
        let base = rows.jac_start[first];
        let vals = &rows.jac_val[base..base + n * len];
        let mut out4 = out.chunks_exact_mut(4);
        let mut vals4 = vals.chunks_exact(4 * len);
        for (o, v) in (&mut out4).zip(&mut vals4) {
            mul_rows::<4>(dofs, v, x, o);
        }
        let (o, v) = (out4.into_remainder(), vals4.remainder());
        match o.len() {
            1 => mul_rows::<1>(dofs, v, x, o),
            2 => mul_rows::<2>(dofs, v, x, o),
            3 => mul_rows::<3>(dofs, v, x, o),
            _ => {}
        }
    }
}

/// [`mul_j`] of two vectors in one pass over `J` (each output bit-identical to [`mul_j`]'s).
pub(crate) fn mul_j2(rows: &ConstraintRows, groups: &[(usize, usize)], x: [&[f64]; 2], out: [&mut [f64]; 2]) {
    let [out0, out1] = out;
    for &(first, n) in groups {
        let dofs = rows.jacobian_row(first).0;
        let len = dofs.len();
        let (o0, o1) = (&mut out0[first..first + n], &mut out1[first..first + n]);
        if len == 0 {
            o0.fill(0.0);
            o1.fill(0.0);
            continue;
        }
        let base = rows.jac_start[first];
        let vals = &rows.jac_val[base..base + n * len];
        for ((r0, r1), row) in o0.iter_mut().zip(o1.iter_mut()).zip(vals.chunks_exact(len)) {
            let (mut a0, mut a1) = (0.0, 0.0);
            for (&d, &v) in dofs.iter().zip(row) {
                a0 += v * x[0][d as usize];
                a1 += v * x[1][d as usize];
            }
            (*r0, *r1) = (a0, a1);
        }
    }
}

/// `out[i] = J_i x` for `K` consecutive rows over the same `dofs` (`vals` row-major), the `K` sums side by side.
#[inline(always)]
fn mul_rows<const K: usize>(dofs: &[DofIndex], vals: &[f64], x: &[f64], out: &mut [f64]) {
    let len = dofs.len();
    let rows: [&[f64]; K] = std::array::from_fn(|i| &vals[i * len..(i + 1) * len]);
    let mut acc = [0.0; K];
    for (k, &d) in dofs.iter().enumerate() {
        let xd = x[d as usize];
        for (a, row) in acc.iter_mut().zip(&rows) {
            *a += row[k] * xd;
        }
    }
    out.copy_from_slice(&acc);
}

/// `g −= Σ_i J_iᵀ f_i`, run by run, skipping runs without force. Each dof's sum runs over the run's rows in order.
pub(crate) fn sub_jt(rows: &ConstraintRows, groups: &[(usize, usize)], f: &[f64], g: &mut [f64]) {
    for &(first, n) in groups {
        let fs = &f[first..first + n];
        if fs.iter().all(|&v| v == 0.0) {
            continue;
        }
        let dofs = rows.jacobian_row(first).0;
        let len = dofs.len();
        let base = rows.jac_start[first];
        let vals = &rows.jac_val[base..base + n * len];
        match n {
            1 => sub_jt_run::<1>(dofs, vals, fs, g),
            3 => sub_jt_run::<3>(dofs, vals, fs, g),
            4 => sub_jt_run::<4>(dofs, vals, fs, g),
            6 => sub_jt_run::<6>(dofs, vals, fs, g),
            _ => {
                for (k, &d) in dofs.iter().enumerate() {
                    let mut acc = 0.0;
                    for (&fi, row) in fs.iter().zip(vals.chunks_exact(len)) {
                        acc += row[k] * fi;
                    }
                    g[d as usize] -= acc;
                }
            }
        }
    }
}

/// One run of `N` rows of [`sub_jt`], with the forces and row slices in registers.
#[inline(always)]
fn sub_jt_run<const N: usize>(dofs: &[DofIndex], vals: &[f64], fs: &[f64], g: &mut [f64]) {
    let len = dofs.len();
    let rows: [&[f64]; N] = std::array::from_fn(|i| &vals[i * len..(i + 1) * len]);
    let f: [f64; N] = std::array::from_fn(|i| fs[i]);
    for (k, &d) in dofs.iter().enumerate() {
        let mut acc = 0.0;
        for i in 0..N {
            acc += rows[i][k] * f[i];
        }
        g[d as usize] -= acc;
    }
}

#[cfg(test)]
mod tests {
    use signorini_constraints::RowKind;

    use super::*;
    use crate::test_rng::uniform;

    /// `mul_j2` gives exactly `mul_j`'s two products, over runs of 3 to 7 rows sharing dofs (the four-row body of
    /// `mul_j` and its remainders), empty rows included.
    #[test]
    fn mul_j2_is_mul_j_twice() {
        let mut rnd = uniform(0x9e37_79b9_7f4a_7c15);
        let nv = 9;
        let mut rows = ConstraintRows::new();
        rows.jac_start.push(0);
        let runs: [&[DofIndex]; 5] = [&[8, 5, 2], &[7, 6, 4, 1, 0], &[], &[3], &[8, 7, 6, 5, 4, 3, 2, 1, 0]];
        for (r, dofs) in runs.iter().enumerate() {
            for _ in 0..r + 3 {
                rows.jac_dof.extend_from_slice(dofs);
                rows.jac_val.extend(dofs.iter().map(|_| rnd()));
                rows.jac_start.push(rows.jac_dof.len());
                rows.kind.push(RowKind::ContactPyramidal);
            }
        }
        let mut groups = Vec::new();
        rows.dof_groups(&mut groups);
        let n = rows.len();
        let (x0, x1): (Vec<f64>, Vec<f64>) =
            ((0..nv).map(|_| rnd()).collect(), (0..nv).map(|_| rnd()).collect());
        let (mut a0, mut a1, mut b0, mut b1) = (vec![9.0; n], vec![9.0; n], vec![7.0; n], vec![7.0; n]);
        mul_j(&rows, &groups, &x0, &mut a0);
        mul_j(&rows, &groups, &x1, &mut a1);
        mul_j2(&rows, &groups, [&x0, &x1], [&mut b0, &mut b1]);
        assert_eq!((a0, a1), (b0, b1));
    }
}
