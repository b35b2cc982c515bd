//! A small dense Cholesky factorisation `H = L Lᵀ` (row-major, lower triangle, in place) for the Newton Hessian.
//!
//! Dense on purpose: the benchmark scenes have `nv` up to a few hundred, where `nv³/3` flops per factorisation are
//! cheap, and a dependency such as `faer` would cost minutes of compile time. Pivots are floored at
//! [`PIVOT_FLOOR`] like MuJoCo's `mju_cholFactor(…, mjMINVAL)`.

use crate::block_cholesky::Degenerate;

/// The pivot floor (MuJoCo `mjMINVAL`).
pub const PIVOT_FLOOR: f64 = 1e-15;

/// Factors the symmetric `n × n` row-major matrix `h` in place: on return its lower triangle holds `L` with
/// `H = L Lᵀ` (the strict upper triangle is left untouched) and `inv_diag` (length `n`) holds `1 / L_ii`, so that
/// the substitutions multiply (a division on their dependency chain costs several multiplications). Returns the
/// number of pivots that were floored (0 for a numerically positive-definite `H`).
pub fn cholesky_in_place(h: &mut [f64], n: usize, inv_diag: &mut [f64]) -> usize {
    assert!(h.len() == n * n && inv_diag.len() == n, "cholesky_in_place: h needs n² entries, inv_diag n");
    let mut floored = 0;
    for j in 0..n {
        let (done, rest) = h.split_at_mut(j * n);
        let row_j = &mut rest[..n];
        // Row j left of the diagonal: L_jk = (H_jk − Σ_{m<k} L_jm L_km) / L_kk.
        for k in 0..j {
            let row_k = &done[k * n..k * n + n];
            let s: f64 = row_j[..k].iter().zip(&row_k[..k]).map(|(a, b)| a * b).sum();
            row_j[k] = (row_j[k] - s) * inv_diag[k];
        }
        let s: f64 = row_j[..j].iter().map(|v| v * v).sum();
        let mut pivot = row_j[j] - s;
        if !(pivot > PIVOT_FLOOR) {
            pivot = PIVOT_FLOOR;
            floored += 1;
        }
        row_j[j] = pivot.sqrt();
        inv_diag[j] = 1.0 / row_j[j];
    }
    floored
}

/// Solves `L Lᵀ x = b` in place (`x` holds `b` on entry) with the factor and inverse pivots from
/// [`cholesky_in_place`].
pub fn cholesky_solve(l: &[f64], inv_diag: &[f64], n: usize, x: &mut [f64]) {
    assert!(l.len() == n * n && x.len() == n && inv_diag.len() == n, "cholesky_solve: dimension mismatch");
    for i in 0..n {
        let row = &l[i * n..i * n + i];
        let s: f64 = row.iter().zip(&x[..i]).map(|(a, b)| a * b).sum();
        x[i] = (x[i] - s) * inv_diag[i];
    }
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= l[k * n + i] * x[k];
        }
        x[i] = s * inv_diag[i];
    }
}

/// Updates the factor `L` and inverse pivots of [`cholesky_in_place`] to those of `H + σ v vᵀ` (`sigma` = +1
/// update, −1 downdate) in `O(n²)`; `v` (dense, length `n`) is overwritten. Fails on a downdate that would leave a
/// pivot at or below [`PIVOT_FLOOR`] (`L` is then partly updated and must be refactored).
pub fn cholesky_rank_one(
    l: &mut [f64],
    inv_diag: &mut [f64],
    n: usize,
    v: &mut [f64],
    sigma: f64,
) -> Result<(), Degenerate> {
    assert!(l.len() == n * n && v.len() == n && inv_diag.len() == n, "cholesky_rank_one: dimension mismatch");
    for k in 0..n {
        let vk = v[k];
        if vk == 0.0 {
            // c = 1, s = 0: column k and the rest of v are unchanged.
            continue;
        }
        let lkk = l[k * n + k];
        let r2 = lkk * lkk + sigma * vk * vk;
        if !(r2 > PIVOT_FLOOR) {
            return Err(Degenerate);
        }
        let r = r2.sqrt();
        let (c, s) = (r / lkk, vk / lkk);
        l[k * n + k] = r;
        inv_diag[k] = 1.0 / r;
        for i in k + 1..n {
            let lik = (l[i * n + k] + sigma * s * v[i]) / c;
            l[i * n + k] = lik;
            v[i] = c * v[i] - s * lik;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_spd_system() {
        let n = 4;
        let a = [4.0, 1.0, 0.5, 0.0, 1.0, 3.0, 0.2, 0.1, 0.5, 0.2, 2.0, 0.3, 0.0, 0.1, 0.3, 1.5];
        let (mut l, mut inv) = (a.to_vec(), vec![0.0; n]);
        assert_eq!(cholesky_in_place(&mut l, n, &mut inv), 0);
        let b = [1.0, -2.0, 0.5, 3.0];
        let mut x = b.to_vec();
        cholesky_solve(&l, &inv, n, &mut x);
        for i in 0..n {
            let r: f64 = (0..n).map(|j| a[i * n + j] * x[j]).sum::<f64>() - b[i];
            assert!(r.abs() < 1e-12, "residual {r}");
        }
    }

    /// An update and a downdate equal the factor of `H ± v vᵀ` computed from scratch; a downdate past
    /// positive-definiteness fails.
    #[test]
    fn rank_one_matches_refactoring() {
        let n = 4;
        let a = [4.0, 1.0, 0.5, 0.0, 1.0, 3.0, 0.2, 0.1, 0.5, 0.2, 2.0, 0.3, 0.0, 0.1, 0.3, 1.5];
        let v = [0.0, 0.7, -0.4, 0.9];
        for sigma in [1.0, -1.0] {
            let (mut l, mut inv) = (a.to_vec(), vec![0.0; n]);
            cholesky_in_place(&mut l, n, &mut inv);
            cholesky_rank_one(&mut l, &mut inv, n, &mut v.clone(), sigma).expect("positive definite");
            let (mut expected, mut expected_inv) =
                ((0..n * n).map(|k| a[k] + sigma * v[k / n] * v[k % n]).collect::<Vec<f64>>(), vec![0.0; n]);
            cholesky_in_place(&mut expected, n, &mut expected_inv);
            for i in 0..n {
                assert!((inv[i] - expected_inv[i]).abs() < 1e-12, "sigma {sigma} 1/L[{i}][{i}]");
            }
            for i in 0..n {
                for j in 0..=i {
                    let (x, y) = (l[i * n + j], expected[i * n + j]);
                    assert!((x - y).abs() < 1e-12, "sigma {sigma} L[{i}][{j}]: {x} vs {y}");
                }
            }
        }
        let (mut l, mut inv) = (a.to_vec(), vec![0.0; n]);
        cholesky_in_place(&mut l, n, &mut inv);
        assert!(cholesky_rank_one(&mut l, &mut inv, n, &mut [0.0, 0.0, 0.0, 2.0], -1.0).is_err());
    }
}
