//! Rows from the real assembler (equalities, friction loss, limits, pyramidal and elliptic contacts): Newton, CG
//! and the island solver agree, and the result is the optimum (finite-difference gradient of the cost vanishes).

mod common;

use common::{fd_gradient, gradient, tight};
use glam::{DQuat, DVec3};
use signorini_collision::contact_set::ContactSet;
use signorini_constraints::{
    AssemblyScratch, ConstraintAssembler, ConstraintOptions, ConstraintRows, FrictionCone, RowKind,
};
use signorini_geometry::{Plane, Shape, Sphere};
use signorini_model::spec::{DEFAULT_SOLIMP, DEFAULT_SOLREF};
use signorini_model::{BodySpec, Data, EqualitySpec, GeomSpec, InertialSpec, JointSpec, Model, ModelSpec};
use signorini_solver::{
    ConstraintSolver, PrimalSolver, SolverData, SolverKind, SolverOptions, WarmStart, island_solver_for,
    solver_for,
};

/// The solver's warm start that goes with rows assembled with or without `mujoco_compatibility`.
fn warm_start(mujoco: bool) -> WarmStart {
    if mujoco { WarmStart::CheaperOfIncomingAndSmooth } else { WarmStart::Incoming }
}

fn inertial(mass: f64, pos: DVec3) -> InertialSpec {
    InertialSpec {
        mass,
        inertia: DVec3::new(0.02, 0.03, 0.04) * mass,
        pos,
        quat: DQuat::from_rotation_z(0.3),
    }
}

/// A limited hinge/slide arm with friction loss, a free ball connected to it, and a second free ball.
fn model() -> Model {
    let mut spec = ModelSpec::default();
    spec.bodies[0].geoms.push(GeomSpec::new("floor", Shape::from(Plane::new())));
    let mut link1 = BodySpec::new("link1", 0, DVec3::new(0.0, 0.0, 1.0), DQuat::IDENTITY);
    link1.inertial = inertial(1.0, DVec3::new(0.2, 0.0, 0.0));
    let mut h1 = JointSpec::hinge("h1", DVec3::Y);
    h1.range = Some([-0.5, 0.5]);
    h1.frictionloss = 0.3;
    link1.joints.push(h1);
    spec.add_body(link1);
    let mut link2 = BodySpec::new("link2", 1, DVec3::new(0.5, 0.0, 0.0), DQuat::from_rotation_x(0.2));
    link2.inertial = inertial(0.7, DVec3::new(0.1, 0.05, 0.0));
    let mut s = JointSpec::slide("s", DVec3::new(0.0, 0.3, 1.0));
    s.range = Some([-0.1, 0.1]);
    link2.joints.push(s);
    spec.add_body(link2);
    for (name, pos) in [("ball", DVec3::new(1.0, 0.5, 0.09)), ("ball2", DVec3::new(-1.0, 0.0, 0.08))] {
        let mut ball = BodySpec::new(name, 0, pos, DQuat::IDENTITY);
        ball.inertial = inertial(2.0, DVec3::ZERO);
        ball.joints.push(JointSpec::free(name));
        ball.geoms.push(GeomSpec::new(name, Shape::from(Sphere::new(0.1).expect("sphere"))));
        spec.add_body(ball);
    }
    spec.equalities.push(EqualitySpec::Connect {
        name: "connect".into(),
        body1: 2,
        body2: 3,
        anchor: DVec3::new(0.1, 0.2, -0.1),
        solref: DEFAULT_SOLREF,
        solimp: DEFAULT_SOLIMP,
    });
    Model::compile(spec).expect("compiles")
}

fn contact(cs: &mut ContactSet, link: usize, position: DVec3, penetration: f64, condim: u8) {
    cs.geom_a.push(0);
    cs.geom_b.push(0);
    cs.link_a.push(link);
    cs.link_b.push(0);
    cs.position.push(position);
    cs.normal.push(DVec3::Z);
    cs.penetration.push(penetration);
    cs.friction.push(0.8);
    cs.friction_torsional.push(0.02);
    cs.friction_rolling.push(0.001);
    cs.solref.push(DEFAULT_SOLREF);
    cs.solimp.push(DEFAULT_SOLIMP);
    cs.condim.push(condim);
    cs.margin.push(0.0);
    cs.gap.push(0.0);
    cs.adhesion.push(0.0);
}

fn state(model: &Model) -> Data {
    let mut d = Data::new(model);
    d.qpos[0] = 0.6;
    d.qpos[1] = -0.15;
    for (k, v) in d.qvel.iter_mut().enumerate() {
        *v = 0.3 * ((k as f64) * 1.7).sin();
    }
    model.forward(&mut d).expect("forward");
    d
}

/// The rows of the model's state with two contacts, a condim-3 one on `ball` and a condim-6 one on `ball2`, at
/// heights `z`, assembled under `options` with torsional and rolling friction enabled.
fn two_contact_rows(model: &Model, data: &Data, z: [f64; 2], options: ConstraintOptions) -> ConstraintRows {
    let mut cs = ContactSet::new();
    contact(&mut cs, 3, DVec3::new(1.0, 0.5, z[0]), 0.01, 3);
    contact(&mut cs, 4, DVec3::new(-1.0, 0.0, z[1]), 0.02, 6);
    let options =
        ConstraintOptions { enable_torsional_friction: true, enable_rolling_friction: true, ..options };
    let asm = ConstraintAssembler::new(model, options).expect("valid");
    let mut rows = ConstraintRows::new();
    asm.assemble(model, data, &cs, &mut AssemblyScratch::default(), &mut rows).expect("assembles");
    rows
}

#[test]
fn assembled_rows_solve_consistently() {
    let model = model();
    let data = state(&model);
    for (cone, mujoco) in
        [(FrictionCone::Pyramidal, false), (FrictionCone::Elliptic, false), (FrictionCone::Elliptic, true)]
    {
        let preset = if mujoco { ConstraintOptions::mujoco() } else { ConstraintOptions::default() };
        let options = ConstraintOptions { timestep: 0.002, friction_cone: cone, ..preset };
        let rows = two_contact_rows(&model, &data, [0.0, 0.0], options);
        assert!(rows.count(RowKind::LimitJoint) > 0 && rows.count(RowKind::FrictionLoss) > 0);
        assert!(rows.count(RowKind::EqualityConnect) == 3 && rows.contact_row_start.len() == 2);

        let mut results = Vec::new();
        for (name, solver) in [
            ("newton", solver_for(SolverKind::Newton)),
            ("cg", solver_for(SolverKind::Cg)),
            ("newton islands", island_solver_for(SolverKind::Newton)),
            ("cg islands", island_solver_for(SolverKind::Cg)),
        ] {
            let (mut qacc, mut force) = (Vec::new(), Vec::new());
            let opts = SolverOptions { iterations: 20000, warm_start: warm_start(mujoco), ..tight() };
            let mut work = SolverData::new();
            let stats = solver.solve(&model, &data, &rows, &opts, &mut work, &mut qacc, &mut force).unwrap();
            let g = gradient(&model, &data, &rows, &qacc, &force);
            let fd = fd_gradient(&model, &data, &rows, &qacc, 1e-4);
            let gmax = g.iter().chain(&fd).map(|v| v.abs()).fold(0.0, f64::max);
            let fscale = data.qfrc_smooth.iter().map(|v| v.abs()).fold(1.0, f64::max);
            assert!(gmax < 1e-5 * fscale, "{cone:?} {name}: gradient {g:?} fd {fd:?} ({stats:?})");
            results.push((name, qacc, force));
        }
        // Default settings: Newton terminates within its 25 iterations, close to the tight optimum.
        let newton = solver_for(SolverKind::Newton);
        let (mut qacc, mut force) = (Vec::new(), Vec::new());
        let opts = SolverOptions { warm_start: warm_start(mujoco), ..SolverOptions::default() };
        let mut work = SolverData::new();
        let stats = newton.solve(&model, &data, &rows, &opts, &mut work, &mut qacc, &mut force).unwrap();
        assert!(stats.converged && stats.iterations <= 25, "{cone:?}: {stats:?}");
        for (x, y) in qacc.iter().zip(&results[0].1) {
            assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{cone:?} default: {x} vs {y}");
        }
        let (_, a0, f0) = &results[0];
        for (name, a, f) in &results[1..] {
            for (x, y) in a.iter().zip(a0) {
                assert!((x - y).abs() <= 1e-6 * (1.0 + y.abs()), "{cone:?} {name}: {x} vs {y}");
            }
            for (x, y) in f.iter().zip(f0) {
                assert!((x - y).abs() <= 1e-5 * (1.0 + y.abs()), "{cone:?} {name}: force {x} vs {y}");
            }
        }
        // Contact normal forces push.
        for (c, &start) in rows.contact_row_start.iter().enumerate() {
            if cone == FrictionCone::Elliptic {
                assert!(f0[start] >= 0.0, "contact {c}");
            } else {
                assert!((start..start + rows.contact_nrows[c]).all(|i| f0[i] >= 0.0));
            }
        }
    }
}

/// The tree-block sparse Newton factor (with rank-1 updates between iterations) and the dense one give the same
/// iterates: with the same iteration cap, the same `qacc` (to 1e-6 relative: round-off amplified by the cost scale
/// 1e6 of this problem), for every cone and mode.
#[test]
fn sparse_and_dense_newton_agree() {
    let model = model();
    let data = state(&model);
    for (cone, mujoco) in
        [(FrictionCone::Pyramidal, false), (FrictionCone::Pyramidal, true), (FrictionCone::Elliptic, true)]
    {
        let preset = if mujoco { ConstraintOptions::mujoco() } else { ConstraintOptions::default() };
        let options = ConstraintOptions { friction_cone: cone, ..preset };
        let rows = two_contact_rows(&model, &data, [-0.01, -0.02], options);
        for cap in [1, 2, 3, 25] {
            let opts = SolverOptions { iterations: cap, warm_start: warm_start(mujoco), ..tight() };
            let mut out = Vec::new();
            for limit in [0, usize::MAX] {
                let solver = PrimalSolver::new(SolverKind::Newton).with_dense_limit(limit);
                let mut work = SolverData::new();
                let (mut qacc, mut force) = (Vec::new(), Vec::new());
                let stats =
                    solver.solve(&model, &data, &rows, &opts, &mut work, &mut qacc, &mut force).unwrap();
                out.push((qacc, stats));
            }
            // Before convergence both run every iteration; at the optimum (cap 25, tolerance 0) the iteration that
            // finds no further improvement depends on round-off, so only the solutions are compared there.
            if cap < 25 {
                assert_eq!(out[0].1.iterations, out[1].1.iterations, "{cone:?} cap {cap}");
            }
            for (x, y) in out[0].0.iter().zip(&out[1].0) {
                assert!(
                    (x - y).abs() <= 1e-6 * (1.0 + y.abs()),
                    "{cone:?} cap {cap}: sparse {x} vs dense {y}"
                );
            }
        }
    }
}

/// Signorini resolution reaches its fixed point: the gradient `Ma − f_s − Jᵀλ` vanishes, every normal force is the
/// unilateral `max(−D₀x₀, 0)`, and every friction block lies in its Coulomb disc `‖λ_b‖ ≤ μ_b λ_n`, sticking
/// (`λ_b = −D y_b`) strictly inside it and sliding (`λ_b = −μ_b λ_n y_b/‖y_b‖`) on it.
#[test]
fn signorini_reaches_its_fixed_point() {
    let model = model();
    let data = state(&model);
    let options = ConstraintOptions {
        friction_cone: FrictionCone::Elliptic,
        signorini: true,
        ..ConstraintOptions::default()
    };
    let rows = two_contact_rows(&model, &data, [0.0, 0.0], options);
    let opts = SolverOptions { iterations: 100, signorini: true, ..SolverOptions::default() };
    let solver = solver_for(SolverKind::Newton);
    let (mut qacc, mut force) = (Vec::new(), Vec::new());
    let stats =
        solver.solve(&model, &data, &rows, &opts, &mut SolverData::new(), &mut qacc, &mut force).unwrap();
    let g = gradient(&model, &data, &rows, &qacc, &force);
    let fscale = data.qfrc_smooth.iter().map(|v| v.abs()).fold(1.0, f64::max);
    assert!(g.iter().all(|v| v.abs() < 1e-6 * fscale), "gradient {g:?} ({stats:?})");
    let x: Vec<f64> = (0..rows.len()).map(|i| rows.row_dot(i, &qacc) - rows.aref[i]).collect();
    let mut slid = 0;
    for (c, &s) in rows.contact_row_start.iter().enumerate() {
        let fn_ = force[s];
        assert!(
            (fn_ - (-rows.d[s] * x[s]).max(0.0)).abs() <= 1e-6 * (1.0 + fn_),
            "contact {c}: normal {fn_}"
        );
        assert!(fn_ > 0.0, "contact {c} is pressed");
        for &(off, len) in signorini_solver::signorini::friction_blocks(rows.contact_nrows[c]) {
            let r = s + off..s + off + len;
            let radius = rows.mu[s + off] * fn_;
            let lam: f64 = force[r.clone()].iter().map(|v| v * v).sum::<f64>().sqrt();
            let y: f64 = x[r.clone()].iter().map(|v| v * v).sum::<f64>().sqrt();
            assert!(lam <= radius * (1.0 + 1e-6) + 1e-12, "contact {c} block {off}: {lam} > {radius}");
            if lam < radius * (1.0 - 1e-6) {
                for k in r {
                    assert!(
                        (force[k] + rows.d[k] * x[k]).abs() <= 1e-6 * (1.0 + force[k].abs()),
                        "stick {k}"
                    );
                }
            } else {
                slid += 1;
                for k in r {
                    assert!((force[k] + radius * x[k] / y).abs() <= 1e-6 * (1.0 + radius), "slip {k}");
                }
            }
        }
    }
    assert!(stats.converged, "{stats:?}");
    assert!(slid > 0, "the case exercises sliding blocks");
}

/// The solver holds configuration only, so it can be shared between threads.
#[test]
fn solvers_are_send_and_sync() {
    fn shared<T: Send + Sync + ?Sized>() {}
    shared::<PrimalSolver>();
    shared::<dyn ConstraintSolver>();
    shared::<SolverData>();
}

/// A cloned [`SolverData`] reproduces the original's later solves bit for bit: two capped solves (the second warm-started
/// from the last, the sparse factor's analysis kept from the first), then one more from equal inputs with the
/// original and with the clone, and with a fresh `SolverData` (what a solve carries over gives the same numbers as
/// starting afresh). Covers Signorini's latched loads, the sparse Newton factor with rank-1 updates, MuJoCo's
/// choice of start and the per-island copies.
#[test]
fn cloned_solver_data_reproduces_later_solves() {
    let model = model();
    let data = state(&model);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    let signorini = ConstraintOptions {
        friction_cone: FrictionCone::Elliptic,
        signorini: true,
        ..ConstraintOptions::default()
    };
    let mujoco = ConstraintOptions { friction_cone: FrictionCone::Pyramidal, ..ConstraintOptions::mujoco() };
    let sparse_newton = PrimalSolver::new(SolverKind::Newton).with_dense_limit(0);
    let cases = [
        ("signorini sparse newton", signorini, sparse_newton, WarmStart::Incoming, true),
        (
            "signorini dense newton",
            signorini,
            PrimalSolver::new(SolverKind::Newton),
            WarmStart::Incoming,
            true,
        ),
        (
            "signorini islands",
            signorini,
            PrimalSolver::with_islands(SolverKind::Newton).with_dense_limit(0),
            WarmStart::Incoming,
            true,
        ),
        ("pyramidal sparse newton", mujoco, sparse_newton, WarmStart::CheaperOfIncomingAndSmooth, false),
        (
            "pyramidal cg islands",
            mujoco,
            PrimalSolver::with_islands(SolverKind::Cg),
            WarmStart::Incoming,
            false,
        ),
    ];
    for (name, constraint_options, solver, warm_start, signorini) in cases {
        let rows = two_contact_rows(&model, &data, [-0.01, -0.02], constraint_options);
        // One iteration per solve, no tolerance: every solve moves, from where the last one stopped.
        let options = SolverOptions {
            iterations: 1,
            tolerance: 0.0,
            signorini,
            warm_start,
            ..SolverOptions::default()
        };
        let mut work = SolverData::new();
        let (mut qacc, mut force) = (Vec::new(), Vec::new());
        for _ in 0..2 {
            solver.solve(&model, &data, &rows, &options, &mut work, &mut qacc, &mut force).unwrap();
        }
        let mut clone = work.clone();
        let mut results = Vec::new();
        for w in [&mut work, &mut clone, &mut SolverData::new()] {
            let (mut q, mut f) = (qacc.clone(), Vec::new());
            let stats = solver.solve(&model, &data, &rows, &options, w, &mut q, &mut f).unwrap();
            results.push((bits(&q), bits(&f), stats));
        }
        assert!(results[0].2.iterations > 0, "{name}: the third solve iterates ({:?})", results[0].2);
        assert_eq!(results[0], results[1], "{name}: clone");
        assert_eq!(results[0], results[2], "{name}: fresh");
    }
}
