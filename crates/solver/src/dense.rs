//! A dense Cholesky factorisation `H = L Lᵀ` (row-major, lower triangle, in place) for the Newton Hessian.
//!
//! Below [`FAER_MIN_N`] dofs our loops are used: on the benchmark scenes' systems (`nv` ≤ 24 per dense problem)
//! they match or beat `faer`, whose blocked kernels have a fixed cost per call. From [`FAER_MIN_N`] on (a single
//! large tree: the DeepMind control suite's dog, humanoid_CMU) the factorisation and rank-1 updates are `faer`'s,
//! and from [`FAER_SOLVE_MIN_N`] the solves: 2× faster at 40 dofs, 14× at 480 (`cargo bench -p signorini-benches
//! --bench factorization`, `docs/LINEAR_ALGEBRA.md`). Both paths floor pivots at [`PIVOT_FLOOR`] like MuJoCo's
//! `mju_cholFactor(…, mjMINVAL)` and read and write the same storage.

use std::cell::RefCell;

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt;
use faer::{MatMut, MatRef, Par};

use crate::block_cholesky::Degenerate;

/// The pivot floor (MuJoCo `mjMINVAL`).
pub const PIVOT_FLOOR: f64 = 1e-15;

/// From this size on the factorisation and rank-1 updates are `faer`'s (the measured crossover lies between 27 and
/// 40 dofs).
pub const FAER_MIN_N: usize = 32;

/// From this size on the triangular solves are `faer`'s (the measured crossover lies between 40 and 60 dofs).
pub const FAER_SOLVE_MIN_N: usize = 48;

thread_local! {
    /// `faer`'s scratch memory, grown to the largest request seen on this thread.
    static SCRATCH: RefCell<(StackReq, MemBuffer)> = RefCell::new((StackReq::EMPTY, MemBuffer::new(StackReq::EMPTY)));
}

/// Runs `f` with at least `req` of `faer` scratch memory.
fn with_scratch<T>(req: StackReq, f: impl FnOnce(&mut MemStack) -> T) -> T {
    SCRATCH.with(|cell| {
        let mut guard = cell.borrow_mut();
        let (have, buf) = &mut *guard;
        if req.size_bytes() > have.size_bytes() || req.align_bytes() > have.align_bytes() {
            *have = req.or(*have);
            *buf = MemBuffer::new(*have);
        }
        f(MemStack::new(buf))
    })
}

/// `faer`'s view of our row-major `n × n` storage.
fn view_mut(h: &mut [f64], n: usize) -> MatMut<'_, f64> {
    MatMut::from_row_major_slice_mut(h, n, n)
}

fn refresh_inv_diag(l: &[f64], n: usize, inv_diag: &mut [f64]) {
    for (i, inv) in inv_diag.iter_mut().enumerate() {
        *inv = 1.0 / l[i * n + i];
    }
}

/// Factors the symmetric `n × n` row-major matrix `h` in place: on return its lower triangle holds `L` with
/// `H = L Lᵀ` (the strict upper triangle is left untouched) and `inv_diag` (length `n`) holds `1 / L_ii`, so that
/// the substitutions multiply (a division on their dependency chain costs several multiplications). Returns the
/// number of pivots that were floored (0 for a numerically positive-definite `H`).
pub fn cholesky_in_place(h: &mut [f64], n: usize, inv_diag: &mut [f64]) -> usize {
    assert!(h.len() == n * n && inv_diag.len() == n, "cholesky_in_place: h needs n² entries, inv_diag n");
    if n >= FAER_MIN_N {
        let regularization = llt::factor::LltRegularization {
            dynamic_regularization_delta: PIVOT_FLOOR,
            dynamic_regularization_epsilon: PIVOT_FLOOR,
        };
        let req = llt::factor::cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default());
        let done = with_scratch(req, |stack| {
            llt::factor::cholesky_in_place(
                view_mut(h, n),
                regularization,
                Par::Seq,
                stack,
                Default::default(),
            )
        });
        // faer scales a floored pivot's column by 1/√floor but leaves its diagonal entry at the unfloored value
        // over √floor (at most √floor): write √floor there, as our loops do.
        let floored = done.map_or(n, |info| info.dynamic_regularization_count);
        if floored > 0 {
            let root = PIVOT_FLOOR.sqrt();
            for i in 0..n {
                if !(h[i * n + i] >= root) {
                    h[i * n + i] = root;
                }
            }
        }
        refresh_inv_diag(h, n, inv_diag);
        // faer stops at a non-finite pivot (a non-finite H, where our loops produce a non-finite factor too).
        return floored;
    }
    factor_loops(h, n, inv_diag)
}

/// Our factorisation loops ([`cholesky_in_place`] below [`FAER_MIN_N`]).
fn factor_loops(h: &mut [f64], n: usize, inv_diag: &mut [f64]) -> usize {
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
    if n >= FAER_SOLVE_MIN_N {
        let req = llt::solve::solve_in_place_scratch::<f64>(n, 1, Par::Seq);
        let l = MatRef::from_row_major_slice(l, n, n);
        let rhs = MatMut::from_column_major_slice_mut(x, n, 1);
        with_scratch(req, |stack| llt::solve::solve_in_place(l, rhs, Par::Seq, stack));
        return;
    }
    solve_loops(l, inv_diag, n, x);
}

/// Our substitutions ([`cholesky_solve`] below [`FAER_SOLVE_MIN_N`]).
fn solve_loops(l: &[f64], inv_diag: &[f64], n: usize, x: &mut [f64]) {
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
    if n >= FAER_MIN_N {
        let mut alpha = [sigma];
        let alpha = faer::ColMut::from_slice_mut(&mut alpha).as_diagonal_mut();
        let w = MatMut::from_column_major_slice_mut(v, n, 1);
        let done = llt::update::rank_r_update_clobber(view_mut(l, n), w, alpha);
        refresh_inv_diag(l, n, inv_diag);
        // faer reports an indefinite result; ours also refuses pivots at or below the floor.
        return match done {
            Ok(()) if inv_diag.iter().all(|&d| d.is_finite() && d * d < 1.0 / PIVOT_FLOOR) => Ok(()),
            _ => Err(Degenerate),
        };
    }
    rank_one_loops(l, inv_diag, n, v, sigma)
}

/// Our rotations ([`cholesky_rank_one`] below [`FAER_MIN_N`]).
fn rank_one_loops(
    l: &mut [f64],
    inv_diag: &mut [f64],
    n: usize,
    v: &mut [f64],
    sigma: f64,
) -> Result<(), Degenerate> {
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

    /// A dense SPD matrix `A Aᵀ + n I` and a vector, from a fixed-seed generator.
    fn spd(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let a: Vec<f64> = (0..n * n).map(|_| next()).collect();
        let h = (0..n * n)
            .map(|k| {
                let (i, j) = (k / n, k % n);
                (0..n).map(|m| a[i * n + m] * a[j * n + m]).sum::<f64>() + if i == j { n as f64 } else { 0.0 }
            })
            .collect();
        (h, (0..n).map(|_| 0.5 * next()).collect())
    }

    /// Above the thresholds faer's factor, solve and rank-1 update equal our loops' to rounding, in the same storage.
    #[test]
    fn faer_path_matches_the_loops() {
        for n in [FAER_MIN_N, 40, FAER_SOLVE_MIN_N + 5, 100] {
            let (h, v) = spd(n, n as u64);
            let (mut l, mut inv) = (h.clone(), vec![0.0; n]);
            let (mut l0, mut inv0) = (h.clone(), vec![0.0; n]);
            assert_eq!(cholesky_in_place(&mut l, n, &mut inv), 0);
            assert_eq!(factor_loops(&mut l0, n, &mut inv0), 0);
            let close = |a: &[f64], b: &[f64], what: &str| {
                for i in 0..n {
                    for j in 0..=i {
                        let (x, y) = (a[i * n + j], b[i * n + j]);
                        assert!(
                            (x - y).abs() < 1e-11 * (1.0 + y.abs()),
                            "n {n} {what} L[{i}][{j}]: {x} vs {y}"
                        );
                    }
                }
            };
            close(&l, &l0, "factor");
            assert!(
                (0..n).all(|i| (i + 1..n).all(|j| l[i * n + j] == h[i * n + j])),
                "n {n}: the upper triangle moved"
            );
            let (mut x, mut x0) = (v.clone(), v.clone());
            cholesky_solve(&l, &inv, n, &mut x);
            solve_loops(&l0, &inv0, n, &mut x0);
            for i in 0..n {
                let r: f64 = (0..n).map(|j| h[i * n + j] * x[j]).sum::<f64>() - v[i];
                assert!(r.abs() < 1e-10 && (x[i] - x0[i]).abs() < 1e-12, "n {n} solve x[{i}]");
            }
            for sigma in [1.0, -1.0] {
                cholesky_rank_one(&mut l, &mut inv, n, &mut v.clone(), sigma).expect("positive definite");
                rank_one_loops(&mut l0, &mut inv0, n, &mut v.clone(), sigma).expect("positive definite");
                close(&l, &l0, "rank one");
                for i in 0..n {
                    assert!((inv[i] - inv0[i]).abs() < 1e-12, "n {n} 1/L[{i}][{i}] after rank one");
                }
            }
        }
    }

    /// Pivots at or below the floor are floored on both paths (MuJoCo's `mjMINVAL`), and a downdate past positive
    /// definiteness fails on both.
    #[test]
    fn faer_path_floors_pivots_and_refuses_indefinite_downdates() {
        let n = 40;
        let (mut h, _) = spd(n, 3);
        // Make the last row and column zero: its pivot is 0 and is floored.
        for k in 0..n {
            h[(n - 1) * n + k] = 0.0;
            h[k * n + n - 1] = 0.0;
        }
        let (mut l, mut inv) = (h.clone(), vec![0.0; n]);
        assert_eq!(cholesky_in_place(&mut l, n, &mut inv), 1);
        assert_eq!(l[n * n - 1], PIVOT_FLOOR.sqrt());
        let (mut l0, mut inv0) = (h.clone(), vec![0.0; n]);
        assert_eq!(factor_loops(&mut l0, n, &mut inv0), 1);
        for i in 0..n {
            assert!(
                (inv[i] - inv0[i]).abs() <= 1e-12 * inv0[i].abs(),
                "1/L[{i}][{i}]: {} vs {}",
                inv[i],
                inv0[i]
            );
            for j in 0..=i {
                assert!((l[i * n + j] - l0[i * n + j]).abs() < 1e-11, "L[{i}][{j}]");
            }
        }
        let (h, _) = spd(n, 4);
        let (mut l, mut inv) = (h.clone(), vec![0.0; n]);
        cholesky_in_place(&mut l, n, &mut inv);
        let mut big = vec![0.0; n];
        big[n - 1] = 100.0;
        assert!(cholesky_rank_one(&mut l, &mut inv, n, &mut big, -1.0).is_err());
    }
}
