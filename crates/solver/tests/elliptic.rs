//! The elliptic three-zone cone (§C.1): forces consistent with the cost, Newton = CG at an optimum certified by
//! the finite-difference gradient, zones and the cone-surface force of a sliding contact.

mod common;

use common::*;
use signorini_constraints::ConstraintRows;
use signorini_solver::cost::{ConeBlock, ConeZone};
use signorini_solver::{SolverData, SolverKind, SolverOptions, total_cost};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// At random points (warm start, 0 iterations) the solver's forces are `−∂s/∂x`: `Ma − f_s − Jᵀλ` equals the
/// finite-difference gradient of the total cost, in every zone.
#[test]
fn forces_are_the_negative_cost_gradient() {
    let mut zones = [0usize; 3];
    for seed in 0..30 {
        let (model, data, rows) = random_elliptic_problem(seed, 3);
        let mut rng = Rng(seed + 11);
        for _ in 0..5 {
            let a: Vec<f64> = (0..model.nv).map(|_| rng.range(-20.0, 20.0)).collect();
            let solver = signorini_solver::solver_for(SolverKind::Newton);
            let (mut qacc, mut force) = (a.clone(), Vec::new());
            let options = SolverOptions { iterations: 0, ..SolverOptions::default() };
            solver
                .solve(&model, &data, &rows, &options, &mut SolverData::new(), &mut qacc, &mut force)
                .unwrap();
            assert_eq!(qacc, a);
            let g = gradient(&model, &data, &rows, &a, &force);
            let fd = fd_gradient(&model, &data, &rows, &a, 1e-6);
            for (x, y) in g.iter().zip(&fd) {
                assert!(close(*x, *y, 1e-5), "seed {seed}: {x} vs {y}");
            }
            for (c, &start) in rows.contact_row_start.iter().enumerate() {
                let block = ConeBlock::new(&rows, start);
                let x: Vec<f64> = (start..start + rows.contact_nrows[c])
                    .map(|i| rows.row_dot(i, &a) - rows.aref[i])
                    .collect();
                zones[block.zone(&x) as usize] += 1;
            }
        }
    }
    assert!(zones.iter().all(|&z| z > 10), "every zone is exercised: {zones:?}");
}

/// Newton and CG reach the same point, where the finite-difference gradient vanishes (convex cost: the optimum).
#[test]
fn newton_and_cg_agree_at_the_optimum() {
    for seed in 0..20 {
        let (model, data, rows) = random_elliptic_problem(seed, 1 + seed as usize % 3);
        let (a, fa, sa) = solve(SolverKind::Newton, &model, &data, &rows, tight());
        let (b, fb, sb) =
            solve(SolverKind::Cg, &model, &data, &rows, SolverOptions { iterations: 5000, ..tight() });
        for (x, y) in a.iter().zip(&b) {
            assert!(close(*x, *y, 1e-7), "seed {seed}: {x} vs {y} ({sa:?} {sb:?})");
        }
        for (x, y) in fa.iter().zip(&fb) {
            assert!(close(*x, *y, 1e-6), "seed {seed}: force {x} vs {y}");
        }
        let g = gradient(&model, &data, &rows, &a, &fa);
        let scale = 1.0 + a.iter().map(|v| v.abs()).fold(0.0, f64::max);
        assert!(g.iter().all(|v| v.abs() < 1e-8 * scale), "seed {seed}: g = {g:?}");
        // With the default tolerance Newton stops early (improvement test), near the optimum.
        let (d, _, sd) = solve(SolverKind::Newton, &model, &data, &rows, SolverOptions::default());
        assert!(sd.converged && sd.iterations < 25, "seed {seed}: {sd:?}");
        assert!(sd.cost - sa.cost <= 1e-8 * (1.0 + sa.cost.abs()), "seed {seed}: {sd:?} vs {sa:?}");
        for (x, y) in a.iter().zip(&d) {
            assert!(close(*x, *y, 1e-3), "seed {seed}: default tolerance {x} vs {y}");
        }
        // No nearby point is cheaper.
        let c = total_cost(&model, &data, &rows, &a);
        let mut rng = Rng(seed + 5);
        for _ in 0..20 {
            let p: Vec<f64> = a.iter().map(|v| v + rng.range(-1e-3, 1e-3)).collect();
            assert!(total_cost(&model, &data, &rows, &p) >= c - 1e-12 * (1.0 + c.abs()));
        }
    }
}

/// A free body's linear dofs as one contact (normal `z`, tangents `x`, `y`, μ = 0.5). Pulled hard sideways it
/// slides with the force on the cone surface `‖f_t‖ = μ f_n`, along the pull's reference direction; pulled gently
/// it sticks inside the cone; pulled away from the contact it feels no force.
#[test]
fn sliding_contact_force_lies_on_the_cone() {
    let mut rng = Rng(3);
    let (model, data) = mixed(&mut rng);
    // Dofs 3..6 of `mixed` are the free body's linear velocity (world frame).
    let mu = 0.5;
    for (normal_aref, pull, zone) in [
        (5.0, [200.0, 100.0], ConeZone::Middle),
        (5.0, [0.01, 0.0], ConeZone::Bottom),
        (-100.0, [1.0, 1.0], ConeZone::Top),
    ] {
        let mut rows = ConstraintRows::new();
        // The sign convention: x = J a − aref < 0 is pushing into the contact.
        push_cone(
            &mut rows,
            mu,
            &[
                (&[(5, 1.0)], normal_aref, 1e3, mu),
                (&[(3, 1.0)], pull[0], 1e3, mu),
                (&[(4, 1.0)], pull[1], 1e3, mu),
            ],
        );
        for kind in [SolverKind::Newton, SolverKind::Cg] {
            let (a, f, _) = solve(kind, &model, &data, &rows, SolverOptions { iterations: 2000, ..tight() });
            let block = ConeBlock::new(&rows, 0);
            let x: Vec<f64> = (0..3).map(|i| rows.row_dot(i, &a) - rows.aref[i]).collect();
            assert_eq!(block.zone(&x), zone, "{kind:?}: x = {x:?}");
            let ft = (f[1] * f[1] + f[2] * f[2]).sqrt();
            match zone {
                ConeZone::Middle => {
                    assert!(f[0] > 0.0);
                    assert!(close(ft, mu * f[0], 1e-9), "{f:?}");
                    let cos = (f[1] * pull[0] + f[2] * pull[1]) / (ft * (pull[0].hypot(pull[1])));
                    assert!(cos > 0.999, "force along the reference direction: cos = {cos}");
                }
                ConeZone::Bottom => assert!(ft < mu * f[0] && f[0] > 0.0),
                ConeZone::Top => assert!(f.iter().all(|&v| v == 0.0)),
            }
        }
    }
}

/// With cones too, the cost after k iterations does not increase with k.
#[test]
fn cost_decreases_monotonically_with_cones() {
    for seed in 50..58 {
        let (model, data, rows) = random_elliptic_problem(seed, 3);
        for kind in [SolverKind::Newton, SolverKind::Cg] {
            let mut previous = total_cost(&model, &data, &rows, &data.qacc_smooth);
            for iterations in 1..25 {
                let (_, _, stats) =
                    solve(kind, &model, &data, &rows, SolverOptions { iterations, ..tight() });
                assert!(
                    stats.cost <= previous + 1e-12 * (1.0 + previous.abs()),
                    "seed {seed} {kind:?} it {iterations}"
                );
                previous = stats.cost;
            }
        }
    }
}
