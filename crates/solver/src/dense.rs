//! A small dense Cholesky factorisation `H = L Lᵀ` (row-major, lower triangle, in place) for the Newton Hessian.
//!
//! Dense on purpose: the benchmark scenes have `nv` up to a few hundred, where `nv³/3` flops per factorisation are
//! cheap, and a dependency such as `faer` would cost minutes of compile time. Pivots are floored at
//! [`PIVOT_FLOOR`] like MuJoCo's `mju_cholFactor(…, mjMINVAL)`.

/// The pivot floor (MuJoCo `mjMINVAL`).
pub const PIVOT_FLOOR: f64 = 1e-15;

/// Factors the symmetric `n × n` row-major matrix `h` in place: on return its lower triangle holds `L` with
/// `H = L Lᵀ` (the strict upper triangle is left untouched). Returns the number of pivots that were floored
/// (0 for a numerically positive-definite `H`).
pub fn cholesky_in_place(h: &mut [f64], n: usize) -> usize {
    assert_eq!(h.len(), n * n, "cholesky_in_place: h needs n² entries");
    let mut floored = 0;
    for j in 0..n {
        let (done, rest) = h.split_at_mut(j * n);
        let row_j = &mut rest[..n];
        // Row j left of the diagonal: L_jk = (H_jk − Σ_{m<k} L_jm L_km) / L_kk.
        for k in 0..j {
            let row_k = &done[k * n..k * n + n];
            let s: f64 = row_j[..k].iter().zip(&row_k[..k]).map(|(a, b)| a * b).sum();
            row_j[k] = (row_j[k] - s) / row_k[k];
        }
        let s: f64 = row_j[..j].iter().map(|v| v * v).sum();
        let mut pivot = row_j[j] - s;
        if !(pivot > PIVOT_FLOOR) {
            pivot = PIVOT_FLOOR;
            floored += 1;
        }
        row_j[j] = pivot.sqrt();
    }
    floored
}

/// Solves `L Lᵀ x = b` in place (`x` holds `b` on entry) with the factor from [`cholesky_in_place`].
pub fn cholesky_solve(l: &[f64], n: usize, x: &mut [f64]) {
    assert!(l.len() == n * n && x.len() == n, "cholesky_solve: dimension mismatch");
    for i in 0..n {
        let row = &l[i * n..i * n + i];
        let s: f64 = row.iter().zip(&x[..i]).map(|(a, b)| a * b).sum();
        x[i] = (x[i] - s) / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= l[k * n + i] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_spd_system() {
        let n = 4;
        let a = [4.0, 1.0, 0.5, 0.0, 1.0, 3.0, 0.2, 0.1, 0.5, 0.2, 2.0, 0.3, 0.0, 0.1, 0.3, 1.5];
        let mut l = a.to_vec();
        assert_eq!(cholesky_in_place(&mut l, n), 0);
        let b = [1.0, -2.0, 0.5, 3.0];
        let mut x = b.to_vec();
        cholesky_solve(&l, n, &mut x);
        for i in 0..n {
            let r: f64 = (0..n).map(|j| a[i * n + j] * x[j]).sum::<f64>() - b[i];
            assert!(r.abs() < 1e-12, "residual {r}");
        }
    }
}
