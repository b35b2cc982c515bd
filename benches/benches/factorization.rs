//! Cholesky factorisations of Newton Hessians: ours (`signorini_solver::dense`, `signorini_solver::block_cholesky`)
//! side by side with `faer`'s (issue 22 item 4: the design card names faer; we hand-wrote ours to save compile time,
//! and this measures what that costs or gains). Single thread, f64, the same matrices on both sides.
//!
//! - `dense/<op>/<lib>/<n>`: a dense SPD `H = A Aᵀ + n I` of size `n` = 6 (one free body), 12, 24 (the solver's
//!   dense limit), 27 (a humanoid), 40, 60, 120, 240, 480. `factor` copies `H` and factors it in place (ours:
//!   [`cholesky_in_place`]; faer: `llt::factor::cholesky_in_place` with preallocated scratch), `solve` solves
//!   `L Lᵀ x = b` with the factor, `rank1` applies an update by `v vᵀ` and the downdate by the same `v` (so `L`
//!   returns to its value; MuJoCo's and our Newton solver do one per row that changes state).
//! - `tree/<op>/<lib>/<scene>`: the block-sparse Hessians of the scenes, `H = M + Σ d JᵀJ`, with `M` dense inside
//!   each kinematic tree and rows that couple trees as contacts do: `box_stack` (10 free boxes, each touching the one
//!   below: a chain), `pile` (200 free bodies, 300 contacts between random neighbours), `humanoids` (22 trees of 27
//!   dofs, 6 contacts between neighbours). `factor` fills the values and factors (ours: [`BlockCholesky`], analysed
//!   once; faer: sparse `Llt` from its symbolic analysis, done once), `solve` solves with the factor. Our
//!   `rank1` is an update and downdate of a two-tree contact row; faer has no sparse rank-1 update.
//!
//! Run: `cargo bench -p signorini-benches --bench factorization`. The crossover is written up in
//! `docs/LINEAR_ALGEBRA.md`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt;
use faer::linalg::solvers::SolveCore;
use faer::sparse::linalg::solvers::{Llt as SparseLlt, SymbolicLlt};
use faer::sparse::{SparseColMat, Triplet};
use faer::{Conj, Mat, Par, Side};
use signorini_benches::Rng;
use signorini_solver::block_cholesky::BlockCholesky;
use signorini_solver::dense::{cholesky_in_place, cholesky_rank_one, cholesky_solve};

/// A dense SPD matrix `A Aᵀ + n I` (row-major, symmetric).
fn dense_spd(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let a: Vec<f64> = (0..n * n).map(|_| rng.range(-1.0, 1.0)).collect();
    let mut h = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let s: f64 = (0..n).map(|k| a[i * n + k] * a[j * n + k]).sum();
            h[i * n + j] = s + if i == j { n as f64 } else { 0.0 };
        }
    }
    h
}

fn random_vec(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.range(-0.5, 0.5)).collect()
}

const DENSE_SIZES: [usize; 9] = [6, 12, 24, 27, 40, 60, 120, 240, 480];

fn dense(c: &mut Criterion) {
    let mut group = c.benchmark_group("dense");
    for n in DENSE_SIZES {
        let h = dense_spd(n, 7 + n as u64);
        let b = random_vec(n, 11 + n as u64);
        let v = random_vec(n, 13 + n as u64);
        // Ours.
        let mut l = h.clone();
        let mut inv = vec![0.0; n];
        group.bench_with_input(BenchmarkId::new("factor/ours", n), &n, |bench, _| {
            bench.iter(|| {
                l.copy_from_slice(&h);
                black_box(cholesky_in_place(&mut l, n, &mut inv));
            })
        });
        let mut x = b.clone();
        group.bench_with_input(BenchmarkId::new("solve/ours", n), &n, |bench, _| {
            bench.iter(|| {
                x.copy_from_slice(&b);
                cholesky_solve(&l, &inv, n, &mut x);
                black_box(&x);
            })
        });
        let mut w = v.clone();
        group.bench_with_input(BenchmarkId::new("rank1/ours", n), &n, |bench, _| {
            bench.iter(|| {
                for sigma in [1.0, -1.0] {
                    w.copy_from_slice(&v);
                    black_box(cholesky_rank_one(&mut l, &mut inv, n, &mut w, sigma)).ok();
                }
            })
        });
        // faer.
        let hm = Mat::<f64>::from_fn(n, n, |i, j| h[i * n + j]);
        let mut lm = hm.clone();
        let mut buf =
            MemBuffer::new(llt::factor::cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default()));
        group.bench_with_input(BenchmarkId::new("factor/faer", n), &n, |bench, _| {
            bench.iter(|| {
                lm.copy_from(&hm);
                let stack = MemStack::new(&mut buf);
                black_box(
                    llt::factor::cholesky_in_place(
                        lm.as_mut(),
                        Default::default(),
                        Par::Seq,
                        stack,
                        Default::default(),
                    )
                    .is_ok(),
                );
            })
        });
        let bm = Mat::<f64>::from_fn(n, 1, |i, _| b[i]);
        let mut xm = bm.clone();
        let mut solve_buf = MemBuffer::new(llt::solve::solve_in_place_scratch::<f64>(n, 1, Par::Seq));
        group.bench_with_input(BenchmarkId::new("solve/faer", n), &n, |bench, _| {
            bench.iter(|| {
                xm.copy_from(&bm);
                let stack = MemStack::new(&mut solve_buf);
                llt::solve::solve_in_place(lm.as_ref(), xm.as_mut(), Par::Seq, stack);
                black_box(&xm);
            })
        });
        let vm = Mat::<f64>::from_fn(n, 1, |i, _| v[i]);
        let mut wm = vm.clone();
        group.bench_with_input(BenchmarkId::new("rank1/faer", n), &n, |bench, _| {
            bench.iter(|| {
                for sigma in [1.0, -1.0] {
                    wm.copy_from(&vm);
                    let mut alpha = faer::Col::<f64>::from_fn(1, |_| sigma);
                    black_box(
                        llt::update::rank_r_update_clobber(
                            lm.as_mut(),
                            wm.as_mut(),
                            alpha.as_mut().as_diagonal_mut(),
                        )
                        .is_ok(),
                    );
                }
            })
        });
        // Both sides factor the same matrix: their solutions agree (factored afresh: a filter may skip the benches).
        l.copy_from_slice(&h);
        cholesky_in_place(&mut l, n, &mut inv);
        lm.copy_from(&hm);
        llt::factor::cholesky_in_place(
            lm.as_mut(),
            Default::default(),
            Par::Seq,
            MemStack::new(&mut buf),
            Default::default(),
        )
        .expect("SPD");
        x.copy_from_slice(&b);
        cholesky_solve(&l, &inv, n, &mut x);
        xm.copy_from(&bm);
        llt::solve::solve_in_place(lm.as_ref(), xm.as_mut(), Par::Seq, MemStack::new(&mut solve_buf));
        let err = (0..n).map(|i| (x[i] - xm[(i, 0)]).abs()).fold(0.0, f64::max);
        assert!(err < 1e-9, "dense n = {n}: ours and faer's solutions differ by {err}");
    }
    group.finish();
}

/// A scene's Newton Hessian: `tree[d]` is the tree of dof `d`, `rows` the dofs and values of each constraint row.
struct TreeProblem {
    name: &'static str,
    tree: Vec<usize>,
    rows: Vec<(Vec<usize>, Vec<f64>)>,
    /// Lower triangle of `H`: `(i, j, value)` with `i ≥ j`.
    lower: Vec<(usize, usize, f64)>,
}

/// `trees` trees of `size` dofs; `links` the coupled tree pairs (three rows each, over both trees' dofs, as a
/// contact's normal and friction rows), plus three rows on tree 0 alone (its ground contact).
fn tree_problem(
    name: &'static str,
    trees: usize,
    size: usize,
    links: &[(usize, usize)],
    seed: u64,
) -> TreeProblem {
    let mut rng = Rng::new(seed);
    let n = trees * size;
    let tree: Vec<usize> = (0..n).map(|d| d / size).collect();
    let mut rows = Vec::new();
    let dofs_of = |t: usize| (t * size..(t + 1) * size).collect::<Vec<_>>();
    for _ in 0..3 {
        let dofs = dofs_of(0);
        let vals = dofs.iter().map(|_| rng.range(-1.0, 1.0)).collect();
        rows.push((dofs, vals));
    }
    for &(a, b) in links {
        for _ in 0..3 {
            let mut dofs = dofs_of(a.min(b));
            dofs.extend(dofs_of(a.max(b)));
            let vals = dofs.iter().map(|_| rng.range(-1.0, 1.0)).collect();
            rows.push((dofs, vals));
        }
    }
    // H: a diagonally dominant dense block per tree (the mass matrix) plus Σ d JᵀJ.
    let mut h = std::collections::BTreeMap::new();
    for i in 0..n {
        for j in 0..=i {
            if tree[i] == tree[j] {
                let v = if i == j { 4.0 + size as f64 * 0.3 } else { rng.range(-0.3, 0.3) };
                h.insert((i, j), v);
            }
        }
    }
    for (r, (dofs, vals)) in rows.iter().enumerate() {
        let d = 1.0 + r as f64 * 0.01;
        for (&p, &vp) in dofs.iter().zip(vals) {
            for (&q, &vq) in dofs.iter().zip(vals) {
                if p >= q {
                    *h.entry((p, q)).or_insert(0.0) += d * vp * vq;
                }
            }
        }
    }
    let lower = h.into_iter().map(|((i, j), v)| (i, j, v)).collect();
    TreeProblem { name, tree, rows, lower }
}

fn tree_problems() -> Vec<TreeProblem> {
    let chain: Vec<(usize, usize)> = (1..10).map(|t| (t - 1, t)).collect();
    let mut rng = Rng::new(99);
    let pile: Vec<(usize, usize)> = (0..300)
        .map(|_| {
            let a = (rng.unit() * 199.0) as usize;
            let b = (a + 1 + (rng.unit() * 12.0) as usize).min(199);
            (a, b)
        })
        .collect();
    let humanoids: Vec<(usize, usize)> = (0..6).map(|k| (3 * k, 3 * k + 1)).collect();
    vec![
        tree_problem("box_stack", 10, 6, &chain, 1),
        tree_problem("pile", 200, 6, &pile, 2),
        tree_problem("humanoids", 22, 27, &humanoids, 3),
    ]
}

fn tree(c: &mut Criterion) {
    let mut group = c.benchmark_group("tree");
    for p in tree_problems() {
        let n = p.tree.len();
        let b = random_vec(n, 17);
        // Ours: analysed once, then each factorisation fills the values and factors.
        // The rows' dofs as the constraint rows keep them (32-bit `DofIndex`).
        let row_dofs: Vec<Vec<u32>> =
            p.rows.iter().map(|r| r.0.iter().map(|&d| d as u32).collect()).collect();
        let mut f = BlockCholesky::default();
        f.analyze(&p.tree, row_dofs.iter().map(|r| &r[..]));
        let fill = |f: &mut BlockCholesky| {
            f.clear_values();
            for &(i, j, v) in &p.lower {
                f.add(i, j, v);
            }
        };
        group.bench_function(BenchmarkId::new("factor/ours", p.name), |bench| {
            bench.iter(|| {
                fill(&mut f);
                black_box(f.factor());
            })
        });
        let mut x = b.clone();
        group.bench_function(BenchmarkId::new("solve/ours", p.name), |bench| {
            bench.iter(|| {
                x.copy_from_slice(&b);
                f.solve(&mut x);
                black_box(&x);
            })
        });
        let (dofs, vals) = (&row_dofs[p.rows.len() - 1], &p.rows[p.rows.len() - 1].1);
        group.bench_function(BenchmarkId::new("rank1/ours", p.name), |bench| {
            bench.iter(|| {
                for sigma in [1.0, -1.0] {
                    black_box(f.rank_one(dofs, vals, 0.5, sigma)).ok();
                }
            })
        });
        // faer: the symbolic analysis once, then numeric factorisations from the matrix's values.
        let triplets: Vec<Triplet<usize, usize, f64>> =
            p.lower.iter().map(|&(i, j, v)| Triplet::new(i, j, v)).collect();
        let a = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &triplets).expect("valid triplets");
        let symbolic = SymbolicLlt::try_new(a.symbolic(), Side::Lower).expect("symbolic analysis");
        group.bench_function(BenchmarkId::new("factor/faer", p.name), |bench| {
            bench.iter(|| {
                black_box(
                    SparseLlt::try_new_with_symbolic(symbolic.clone(), a.as_ref(), Side::Lower).is_ok(),
                );
            })
        });
        let llt = SparseLlt::try_new_with_symbolic(symbolic.clone(), a.as_ref(), Side::Lower).expect("SPD");
        let bm = Mat::<f64>::from_fn(n, 1, |i, _| b[i]);
        let mut xm = bm.clone();
        group.bench_function(BenchmarkId::new("solve/faer", p.name), |bench| {
            bench.iter(|| {
                xm.copy_from(&bm);
                llt.solve_in_place_with_conj(Conj::No, xm.as_mut());
                black_box(&xm);
            })
        });
        // The same system on both sides.
        fill(&mut f);
        f.factor();
        x.copy_from_slice(&b);
        f.solve(&mut x);
        xm.copy_from(&bm);
        llt.solve_in_place_with_conj(Conj::No, xm.as_mut());
        let err = (0..n).map(|i| (x[i] - xm[(i, 0)]).abs()).fold(0.0, f64::max);
        assert!(err < 1e-9, "{}: ours and faer's solutions differ by {err}", p.name);
    }
    group.finish();
}

criterion_group!(benches, dense, tree);
criterion_main!(benches);
