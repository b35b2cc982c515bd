//! Islands (§C.6): the components of trees linked by rows, and per-island solves that reach the same minimiser as
//! the whole-system solve.

mod common;

use common::*;
use signorini_constraints::{ConstraintRows, RowKind};
use signorini_solver::islands::Islands;
use signorini_solver::{SolverData, SolverKind, SolverOptions, island_solver_for, total_cost};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// `mixed` has two trees: the chain (dofs 0–2) and the free body (dofs 3–8).
#[test]
fn islands_follow_trees_and_rows() {
    let mut rng = Rng(1);
    let (model, _) = mixed(&mut rng);
    let mut islands = Islands::default();

    let mut rows = ConstraintRows::new();
    islands.build(&model, &rows);
    assert_eq!(islands.count(), 0);
    assert!(islands.dof_island.iter().all(Option::is_none));

    // A row on the free body only: one island of its 6 dofs; the chain is unconstrained.
    push_row(&mut rows, RowKind::LimitJoint, &[(5, 1.0)], 0.0, 1.0, 0.0);
    // A row without entries is in no island.
    push_row(&mut rows, RowKind::EqualityJoint, &[], 1.0, 1.0, 0.0);
    islands.build(&model, &rows);
    assert_eq!(islands.count(), 1);
    assert_eq!(islands.dofs(0), &[3, 4, 5, 6, 7, 8]);
    assert_eq!(islands.rows(0), &[0]);
    assert_eq!(islands.free_rows, vec![1]);
    assert_eq!(&islands.dof_island[..3], &[None, None, None]);

    // A row on the chain's last dof: a second island, numbered first (smallest dof), holding the whole chain.
    push_row(&mut rows, RowKind::ContactPyramidal, &[(2, 1.0)], 0.0, 1.0, 0.0);
    islands.build(&model, &rows);
    assert_eq!(islands.count(), 2);
    assert_eq!(islands.dofs(0), &[0, 1, 2]);
    assert_eq!(islands.rows(0), &[2]);
    assert_eq!(islands.rows(1), &[0]);

    // A row linking both trees merges them.
    push_row(&mut rows, RowKind::EqualityJoint, &[(7, 1.0), (1, -1.0)], 0.0, 1.0, 0.0);
    islands.build(&model, &rows);
    assert_eq!(islands.count(), 1);
    assert_eq!(islands.dofs(0).len(), 9);
    assert_eq!(islands.rows(0), &[0, 2, 3]);
}

/// Rows confined to single trees: the island solver reaches the whole-system minimiser (Newton and CG, with and
/// without elliptic cones), unconstrained dofs keep `qacc_smooth` exactly.
#[test]
fn island_solves_match_the_whole_system() {
    for seed in 0..20 {
        let mut rng = Rng(seed * 7 + 3);
        let (model, data) = mixed(&mut rng);
        let mut rows = ConstraintRows::new();
        let trees: [&[usize]; 2] = [&[0, 1, 2], &[3, 4, 5, 6, 7, 8]];
        let use_chain = seed % 3 != 0;
        for _ in 0..6 {
            let tree = if use_chain { trees[rng.below(2)] } else { trees[1] };
            let jac: Vec<(usize, f64)> = tree.iter().rev().map(|&k| (k, rng.range(-1.5, 1.5))).collect();
            let kinds = [
                RowKind::EqualityJoint,
                RowKind::FrictionLoss,
                RowKind::LimitJoint,
                RowKind::ContactPyramidal,
            ];
            let kind = kinds[rng.below(4)];
            let fl = if kind == RowKind::FrictionLoss { rng.range(0.1, 3.0) } else { 0.0 };
            push_row(&mut rows, kind, &jac, rng.range(-10.0, 10.0), 10f64.powf(rng.range(-1.0, 2.0)), fl);
        }
        if seed % 2 == 0 {
            // An elliptic contact on the free body.
            let (mu, d0) = (0.6, 20.0);
            let jacs: Vec<Vec<(usize, f64)>> =
                (0..3).map(|_| (3..9).rev().map(|k| (k, rng.range(-1.0, 1.0))).collect()).collect();
            let arefs = [5.0, 30.0, -10.0];
            let block: Vec<_> = (0..3).map(|j| (&jacs[j][..], arefs[j], d0, mu)).collect();
            push_cone(&mut rows, mu, &block);
        }
        for kind in [SolverKind::Newton, SolverKind::Cg] {
            let options = SolverOptions { iterations: 3000, ..tight() };
            let (whole, fw, sw) = solve(kind, &model, &data, &rows, options);
            let solver = island_solver_for(kind);
            let mut work = SolverData::new();
            let (mut qacc, mut force) = (Vec::new(), Vec::new());
            let si = solver
                .solve(
                    &model,
                    &data,
                    &rows,
                    &SolverOptions { kind, ..options },
                    &mut work,
                    &mut qacc,
                    &mut force,
                )
                .unwrap();
            for (k, (a, b)) in qacc.iter().zip(&whole).enumerate() {
                assert!(close(*a, *b, 1e-7), "seed {seed} {kind:?} dof {k}: {a} vs {b} ({si:?} {sw:?})");
            }
            for (a, b) in force.iter().zip(&fw) {
                assert!(close(*a, *b, 1e-6), "seed {seed} {kind:?}: force {a} vs {b}");
            }
            assert!(close(si.cost, total_cost(&model, &data, &rows, &qacc), 1e-10), "{si:?}");
            if !use_chain {
                assert_eq!(&qacc[..3], &data.qacc_smooth[..3], "unconstrained tree");
            }
            // Default options: every island terminates on its own.
            let mut qacc = Vec::new();
            let stats = solver
                .solve(
                    &model,
                    &data,
                    &rows,
                    &SolverOptions { kind, ..SolverOptions::default() },
                    &mut work,
                    &mut qacc,
                    &mut force,
                )
                .unwrap();
            assert!(kind == SolverKind::Cg || stats.converged, "{stats:?}");
        }
    }
}

/// Rows on the chain alone: one island over the first dofs (0–2), solved in place without gathering copies; the
/// free body after it is unconstrained. Same minimiser as the whole-system solve.
#[test]
fn an_island_over_the_first_dofs_is_solved_in_place() {
    for seed in 0..10 {
        let mut rng = Rng(seed * 11 + 5);
        let (model, data) = mixed(&mut rng);
        let mut rows = ConstraintRows::new();
        for _ in 0..4 {
            let jac: Vec<(usize, f64)> = [2, 1, 0].iter().map(|&k| (k, rng.range(-1.5, 1.5))).collect();
            let kind = [RowKind::LimitJoint, RowKind::ContactPyramidal][rng.below(2)];
            push_row(&mut rows, kind, &jac, rng.range(-10.0, 10.0), 10f64.powf(rng.range(-1.0, 2.0)), 0.0);
        }
        for kind in [SolverKind::Newton, SolverKind::Cg] {
            let options = SolverOptions { kind, iterations: 3000, ..tight() };
            let (whole, fw, _) = solve(kind, &model, &data, &rows, options);
            let mut work = SolverData::new();
            let (mut qacc, mut force) = (Vec::new(), Vec::new());
            let stats = island_solver_for(kind)
                .solve(&model, &data, &rows, &options, &mut work, &mut qacc, &mut force)
                .unwrap();
            assert_eq!(stats.islands, 1);
            for (k, (a, b)) in qacc.iter().zip(&whole).enumerate() {
                assert!(close(*a, *b, 1e-7), "seed {seed} {kind:?} dof {k}: {a} vs {b}");
            }
            for (a, b) in force.iter().zip(&fw) {
                assert!(close(*a, *b, 1e-6), "seed {seed} {kind:?}: force {a} vs {b}");
            }
            assert_eq!(&qacc[3..], &data.qacc_smooth[3..], "the free body is unconstrained");
        }
    }
}

/// MuJoCo chooses the start once, for the whole problem (`warmstart` in `engine_forward.c`), before it splits the
/// problem into islands: the incoming `qacc` when its total cost is at most the rows' cost at `qacc_smooth`. Here
/// the incoming `qacc` satisfies the free body's violated limit (cheaper overall) and only adds Gauss cost to the
/// chain, whose own island would prefer `qacc_smooth`; with no iteration allowed each island returns its start, and
/// both start from the incoming `qacc`. Without the MuJoCo rule (`WarmStart::Incoming`) the same; with cold starts
/// (`WarmStart::Smooth`) both start from `qacc_smooth`.
#[test]
fn the_warm_start_is_chosen_for_the_whole_problem() {
    let mut rng = Rng(5);
    let (model, data) = mixed(&mut rng);
    let a_s = data.qacc_smooth.clone();
    let mut rows = ConstraintRows::new();
    // Free body (dofs 3–8): `J a_s − aref = −10` at the smooth acceleration, 0 at the incoming one.
    push_row(&mut rows, RowKind::LimitJoint, &[(5, 1.0)], a_s[5] + 10.0, 100.0, 0.0);
    // Chain (dofs 0–2): inactive at both.
    push_row(&mut rows, RowKind::LimitJoint, &[(2, 1.0)], a_s[2] - 10.0, 100.0, 0.0);
    let mut incoming = a_s.clone();
    incoming[5] += 10.0;
    incoming[2] += 0.1;
    assert!(total_cost(&model, &data, &rows, &incoming) < total_cost(&model, &data, &rows, &a_s));

    let solver = island_solver_for(SolverKind::Newton);
    let start = |warm_start| {
        let options = SolverOptions { iterations: 0, warm_start, ..SolverOptions::default() };
        let (mut qacc, mut force) = (incoming.clone(), Vec::new());
        solver.solve(&model, &data, &rows, &options, &mut SolverData::new(), &mut qacc, &mut force).unwrap();
        qacc
    };
    for warm_start in
        [signorini_solver::WarmStart::CheaperOfIncomingAndSmooth, signorini_solver::WarmStart::Incoming]
    {
        let qacc = start(warm_start);
        assert_eq!((qacc[2], qacc[5]), (incoming[2], incoming[5]), "{warm_start:?}");
    }
    let qacc = start(signorini_solver::WarmStart::Smooth);
    assert_eq!((qacc[2], qacc[5]), (a_s[2], a_s[5]));
}

/// Islands solved in parallel (`SolverOptions::parallel_islands` on a worker of a 2-thread pool) give the serial
/// solve's `qacc`, forces and statistics bit for bit, with Newton and CG, in both arithmetics, whichever worker takes
/// which island; off a pool, or with too few rows, the same options solve them in turn.
#[test]
fn parallel_islands_equal_serial_islands() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let kinds =
        [RowKind::LimitJoint, RowKind::ContactPyramidal, RowKind::FrictionLoss, RowKind::EqualityJoint];
    for seed in 0..6 {
        let mut rng = Rng(seed * 13 + 1);
        // 11 bodies: 66 dofs, a model MuJoCo keeps sparse (its CG then runs over sparse `J`), for even seeds.
        let (model, data) = free_bodies(if seed % 2 == 0 { 11 } else { 7 }, &mut rng);
        let mut rows = ConstraintRows::new();
        // 48 rows on each of the first six bodies (the others unconstrained): 6 islands of a sixth of the rows each.
        for body in 0..6 {
            for _ in 0..48 {
                let jac: Vec<(usize, f64)> = (0..6).map(|k| (6 * body + k, rng.range(-1.5, 1.5))).collect();
                let kind = kinds[rng.below(4)];
                let fl = if kind == RowKind::FrictionLoss { rng.range(0.1, 3.0) } else { 0.0 };
                push_row(&mut rows, kind, &jac, rng.range(-10.0, 10.0), 10f64.powf(rng.range(-1.0, 2.0)), fl);
            }
        }
        for kind in [SolverKind::Newton, SolverKind::Cg] {
            for mujoco_arithmetic in [false, true] {
                let options = SolverOptions { kind, mujoco_arithmetic, ..SolverOptions::default() };
                let solver = island_solver_for(kind);
                let run = |options: &SolverOptions, work: &mut SolverData| {
                    let (mut qacc, mut force) = (data.qacc_smooth.clone(), Vec::new());
                    let stats =
                        solver.solve(&model, &data, &rows, options, work, &mut qacc, &mut force).unwrap();
                    (qacc, force, stats)
                };
                let serial = run(&options, &mut SolverData::new());
                assert!(!serial.2.parallel && serial.2.islands == 6, "{:?}", serial.2);
                let parallel_options = SolverOptions { parallel_islands: true, ..options };
                let mut work = SolverData::new();
                for _ in 0..3 {
                    let parallel = pool.install(|| run(&parallel_options, &mut work));
                    assert!(parallel.2.parallel, "{:?}", parallel.2);
                    assert_eq!(
                        SolveStatsBits::of(&parallel.2),
                        SolveStatsBits::of(&serial.2),
                        "seed {seed} {kind:?}"
                    );
                    assert!(
                        bits(&parallel.0) == bits(&serial.0),
                        "seed {seed} {kind:?} {mujoco_arithmetic}: qacc"
                    );
                    assert!(
                        bits(&parallel.1) == bits(&serial.1),
                        "seed {seed} {kind:?} {mujoco_arithmetic}: force"
                    );
                }
                // Off a pool the option changes nothing.
                let alone = run(&parallel_options, &mut SolverData::new());
                assert!(!alone.2.parallel && bits(&alone.0) == bits(&serial.0));
                // Too few rows for a parallel solve (two islands of 48, under 256): solved in turn on the pool too.
                let few = solver_rows(&rows, 96);
                let (mut qacc, mut force) = (data.qacc_smooth.clone(), Vec::new());
                let stats = pool
                    .install(|| {
                        solver.solve(&model, &data, &few, &parallel_options, &mut work, &mut qacc, &mut force)
                    })
                    .unwrap();
                assert!(!stats.parallel && stats.islands == 2, "{stats:?}");
            }
        }
    }
}

/// The first `n` rows of `rows` (plain rows, no cones).
fn solver_rows(rows: &ConstraintRows, n: usize) -> ConstraintRows {
    let mut out = ConstraintRows::new();
    for r in 0..n {
        let jac: Vec<(usize, f64)> = rows
            .jacobian_row(r)
            .0
            .iter()
            .zip(rows.jacobian_row(r).1)
            .map(|(&k, &v)| (k as usize, v))
            .collect();
        push_row(&mut out, rows.kind[r], &jac, rows.aref[r], rows.d[r], rows.frictionloss[r]);
    }
    out
}

/// The bits of a vector, so that equality is bit for bit (and NaN-proof).
fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// A solve's statistics with the floating-point ones as bits (the parallel flag left out).
#[derive(Debug, PartialEq)]
struct SolveStatsBits([u64; 2], [usize; 4], bool);

impl SolveStatsBits {
    fn of(s: &signorini_solver::SolveStats) -> Self {
        Self(
            [s.cost.to_bits(), s.gradient_norm.to_bits()],
            [s.iterations, s.islands, s.factorizations, s.rank_one_updates],
            s.converged,
        )
    }
}
