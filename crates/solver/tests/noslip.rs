//! The no-slip post-process (§C.8) on problems with closed-form answers: a dof held by friction loss stops creeping
//! (or slides at the Coulomb rate when the bound is too small), and a pyramidal contact keeps its normal force while
//! its friction holds the tangential dof exactly (or saturates at `μN`).

mod common;

use common::{push_row, slide, solve};
use glam::{DQuat, DVec3};
use signorini_constraints::{ConstraintRows, RowKind};
use signorini_model::{BodySpec, Data, InertialSpec, JointSpec, Model, ModelSpec};
use signorini_solver::noslip::{NoSlip, NoSlipOptions};
use signorini_solver::{SolverKind, SolverOptions};

fn options(islands: bool) -> NoSlipOptions {
    NoSlipOptions { iterations: 100, tolerance: 1e-12, islands, mujoco_arithmetic: false }
}

/// Primal solve, then no-slip: `(qacc before, qacc after, forces after, sweeps)`.
fn solve_then_noslip(
    model: &Model,
    data: &Data,
    rows: &ConstraintRows,
    islands: bool,
) -> (Vec<f64>, Vec<f64>, Vec<f64>, usize) {
    let (qacc, mut force, _) = solve(SolverKind::Newton, model, data, rows, SolverOptions::default());
    let mut after = qacc.clone();
    let stats = NoSlip::default().run(model, data, rows, &options(islands), &mut force, &mut after);
    (qacc, after, force, stats.iterations)
}

#[test]
fn friction_loss_stops_the_creep() {
    let (model, data) = slide(2.0);
    let (a_s, m) = (data.qacc_smooth[0], model.dense_qm(&data)[0]);
    for islands in [false, true] {
        // A bound above the load: the soft row lets the dof creep; no-slip holds it exactly.
        let mut rows = ConstraintRows::new();
        push_row(&mut rows, RowKind::FrictionLoss, &[(0, 1.0)], 0.0, 100.0, 30.0);
        let (before, after, force, sweeps) = solve_then_noslip(&model, &data, &rows, islands);
        assert!(before[0].abs() > 0.1, "the soft row creeps: {}", before[0]);
        assert!(after[0].abs() < 1e-12, "islands {islands}: {}", after[0]);
        assert!((force[0] + m * a_s).abs() < 1e-9 && sweeps >= 1);

        // A bound below the load: it slides at a_s + f/m with the force at the bound.
        let mut rows = ConstraintRows::new();
        push_row(&mut rows, RowKind::FrictionLoss, &[(0, 1.0)], 0.0, 100.0, 10.0);
        let (_, after, force, _) = solve_then_noslip(&model, &data, &rows, islands);
        assert_eq!(force[0], 10.0);
        assert!((after[0] - (a_s + 10.0 / m)).abs() < 1e-12, "{}", after[0]);
    }
}

/// A body on two slides (x tangential, z normal, gravity along −z) pushed along x by `push`, with one pyramidal
/// contact (condim 3 seen in 2-D: the edge pair `n ± μ t`) whose `aref` makes it carry the weight.
fn sliding_block(push: f64) -> (Model, Data, ConstraintRows) {
    let mut spec = ModelSpec::default();
    let mut body = BodySpec::new("block", 0, DVec3::ZERO, DQuat::IDENTITY);
    body.inertial =
        InertialSpec { mass: 2.0, inertia: DVec3::splat(0.1), pos: DVec3::ZERO, quat: DQuat::IDENTITY };
    body.joints.push(JointSpec::slide("x", DVec3::X));
    body.joints.push(JointSpec::slide("z", DVec3::Z));
    spec.add_body(body);
    let model = Model::compile(spec).expect("compiles");
    let mut data = Data::new(&model);
    data.qfrc_applied[0] = push;
    model.forward(&mut data).expect("forward");
    let mu = 0.5;
    let mut rows = ConstraintRows::new();
    for sign in [1.0, -1.0] {
        push_row(&mut rows, RowKind::ContactPyramidal, &[(0, sign * mu), (1, 1.0)], 0.0, 50.0, 0.0);
    }
    (model, data, rows)
}

#[test]
fn pyramid_pairs_keep_the_normal_force_and_hold_or_saturate() {
    let mu = 0.5;
    for islands in [false, true] {
        // Pushed with 3 N < μ·mg ≈ 9.8 N: the soft contact slides; no-slip holds x, keeps z and the normal force.
        let (model, data, rows) = sliding_block(3.0);
        let (before, after, force, _) = solve_then_noslip(&model, &data, &rows, islands);
        let (_, primal_force, _) = solve(SolverKind::Newton, &model, &data, &rows, SolverOptions::default());
        let normal = force[0] + force[1];
        assert!((normal - (primal_force[0] + primal_force[1])).abs() < 1e-12, "the edge sum stays");
        assert!(before[0].abs() > 1e-3, "the soft friction creeps: {}", before[0]);
        assert!(after[0].abs() < 1e-12, "islands {islands}: held, {}", after[0]);
        assert!((after[1] - before[1]).abs() < 1e-12, "normal acceleration unchanged");
        assert!((mu * (force[0] - force[1]) + 3.0).abs() < 1e-9, "friction balances the push");

        // Pushed with 30 N > μN: one edge carries everything, the friction is μN and the block slides.
        let (model, data, rows) = sliding_block(30.0);
        let (_, after, force, _) = solve_then_noslip(&model, &data, &rows, islands);
        let normal = force[0] + force[1];
        assert!(force[0] == 0.0 || force[1] == 0.0, "saturated: {force:?}");
        assert!((after[0] - (30.0 - mu * normal) / 2.0).abs() < 1e-9, "Coulomb: {}", after[0]);
    }
}
