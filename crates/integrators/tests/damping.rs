//! Implicit damping and actuator gains: stability, the implicit-Euler recurrence, and the formulas of §D.2–§D.3.

mod common;

use common::{damped_arm, damped_slide, pendulum};
use signorini_integrators::{
    INTEGRATOR_NAMES, Integrator, IntegratorError, IntegratorKind, IntegratorScratch, integrator_from_name,
    step_unconstrained,
};
use signorini_model::{Data, Model};

#[test]
fn stiff_damping_is_stable_and_follows_the_implicit_euler_recurrence() {
    // m = 1, b = 1000, h = 0.01: b·h/m = 10. Explicit damping multiplies v by 1 − bh/m = −9 per step.
    let (m, b, h, v0) = (1.0, 1000.0, 0.01, 2.0);
    let model = damped_slide(m, b, 0.0, 1.0);

    let mut data = Data::new(&model);
    data.qvel[0] = v0;
    for _ in 0..20 {
        model.forward(&mut data).expect("forward");
        data.qvel[0] += h * data.qacc_smooth[0];
    }
    println!("explicit damping: |v| after 20 steps = {:.3e}", data.qvel[0].abs());
    assert!(data.qvel[0].abs() > 1e15 * v0);

    let ratio = m / (m + h * b);
    for kind in IntegratorKind::ALL.into_iter().filter(|&k| k != IntegratorKind::Rk4) {
        let integrator = kind.build();
        let mut scratch = IntegratorScratch::default();
        let mut data = Data::new(&model);
        data.qvel[0] = v0;
        let (mut v, mut x) = (v0, 0.0);
        let mut worst: f64 = 0.0;
        for _ in 0..50 {
            step_unconstrained(integrator.as_ref(), &model, &mut data, &mut scratch, h).expect("step");
            v *= ratio;
            x += h * v;
            worst = worst.max((data.qvel[0] - v).abs() / v.abs()).max((data.qpos[0] - x).abs() / x.abs());
        }
        println!("{}: max relative deviation from v_n = v₀ (m/(m+hb))ⁿ: {worst:.2e}", kind.name());
        assert!(worst < 1e-12, "{}: {worst}", kind.name());
    }
}

/// RK4's amplification factor on `v̇ = λv`: `R(z) = 1 + z + z²/2 + z³/6 + z⁴/24`, `z = hλ`; the position advances
/// by `h Σ bⱼ vⱼ = v (R(z) − 1)/λ`.
fn rk4_linear(z: f64, lambda: f64, v: f64) -> (f64, f64) {
    let r = 1.0 + z + z * z / 2.0 + z.powi(3) / 6.0 + z.powi(4) / 24.0;
    (r * v, v * (r - 1.0) / lambda)
}

#[test]
fn rk4_damping_is_explicit_and_follows_its_amplification_factor() {
    // Stable (z = −1: R = 0.375) and unstable (z = −10: R = 291) damping, as MuJoCo's RK4 treats damping explicitly.
    for (b, h) in [(100.0, 0.01), (1000.0, 0.01)] {
        let (m, v0) = (1.0, 2.0);
        let model = damped_slide(m, b, 0.0, 1.0);
        let lambda = -b / m;
        let mut data = Data::new(&model);
        data.qvel[0] = v0;
        let mut scratch = IntegratorScratch::default();
        let (mut v, mut x) = (v0, 0.0);
        let mut worst: f64 = 0.0;
        for _ in 0..20 {
            step_unconstrained(&signorini_integrators::Rk4, &model, &mut data, &mut scratch, h)
                .expect("step");
            let (v1, dx) = rk4_linear(h * lambda, lambda, v);
            (v, x) = (v1, x + dx);
            worst = worst.max((data.qvel[0] - v).abs() / v.abs()).max((data.qpos[0] - x).abs() / x.abs());
        }
        println!("rk4, z = {}: v after 20 steps {:.3e}, max relative deviation {worst:.2e}", h * lambda, v);
        assert!(worst < 1e-12, "{worst}");
    }
}

#[test]
fn actuator_kv_is_implicit_in_implicitfast_and_approximate_but_explicit_in_euler() {
    // A velocity servo (kv = 400, gear 0.5: joint-space gain gear²·kv = 100) on an undamped block, h = 0.05:
    // explicit factor 1 − h·100 = −4.
    let (m, kv, gear, h, v0) = (1.0, 400.0, 0.5, 0.05, 1.0);
    let model = damped_slide(m, 0.0, kv, gear);
    let ratio = m / (m + h * gear * gear * kv);
    for kind in IntegratorKind::ALL {
        let integrator = kind.build();
        let mut scratch = IntegratorScratch::default();
        let mut data = Data::new(&model);
        data.qvel[0] = v0;
        let mut v = v0;
        for _ in 0..10 {
            step_unconstrained(integrator.as_ref(), &model, &mut data, &mut scratch, h).expect("step");
            v *= ratio;
        }
        println!("{}: v after 10 steps {:.3e} (implicit recurrence {v:.3e})", kind.name(), data.qvel[0]);
        match kind {
            IntegratorKind::Euler => assert!((data.qvel[0] - v0 * (-4.0f64).powi(10)).abs() < 1e-6),
            // Explicit too: z = −5, R(z) = 1 − 5 + 12.5 − 125/6 + 625/24.
            IntegratorKind::Rk4 => {
                let (v, _) = rk4_linear(-5.0, -100.0, 1.0);
                assert!((data.qvel[0] - v0 * v.powi(10)).abs() < 1e-9 * v.powi(10).abs());
            }
            _ => assert!((data.qvel[0] - v).abs() < 1e-12 * v.abs()),
        }
    }
}

#[test]
fn euler_implicit_damping_matches_the_formula_on_one_dof() {
    // (M + h·b) a = M qacc for an arbitrary qacc (as a constraint solver would return), M the pendulum's inertia.
    let (b, h) = (3.0, 0.01);
    let model = pendulum(b);
    let mut data = Data::new(&model);
    data.qpos[0] = 0.7;
    data.qvel[0] = -1.2;
    model.forward(&mut data).expect("forward");
    let m = data.qm[0];
    assert!((m - 1.01).abs() < 1e-12, "M = {m}");
    let qacc = data.qacc_smooth[0] + 0.37;
    let (q, v) = (data.qpos[0], data.qvel[0]);
    let euler = integrator_from_name("euler").expect("euler");
    euler.advance(&model, &mut data, &mut IntegratorScratch::default(), &[qacc], h).expect("advance");
    let a = m * qacc / (m + h * b);
    assert!((data.qacc[0] - a).abs() < 1e-14 * a.abs(), "{} vs {a}", data.qacc[0]);
    assert!((data.qvel[0] - (v + h * a)).abs() < 1e-15);
    assert!((data.qpos[0] - (q + h * (v + h * a))).abs() < 1e-15);
    assert_eq!(data.time, h);
}

/// `x` solving the dense `A x = rhs` (Gaussian elimination with partial pivoting, row-major `A`).
fn dense_solve(mut a: Vec<f64>, mut rhs: Vec<f64>) -> Vec<f64> {
    let n = rhs.len();
    for k in 0..n {
        let p = (k..n).max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs())).expect("rows");
        for c in 0..n {
            a.swap(k * n + c, p * n + c);
        }
        rhs.swap(k, p);
        for i in k + 1..n {
            let f = a[i * n + k] / a[k * n + k];
            for c in k..n {
                a[i * n + c] -= f * a[k * n + c];
            }
            rhs[i] -= f * rhs[k];
        }
    }
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|c| a[k * n + c] * rhs[c]).sum();
        rhs[k] = (rhs[k] - s) / a[k * n + k];
    }
    rhs
}

/// The acceleration `integrator` produces from `qacc` at the arm state, and the dense reference
/// `(M + h·diag(shift)) a = M qacc`.
fn arm_case(
    model: &Model,
    kind: IntegratorKind,
    shift: &[f64],
    qacc: &[f64],
    h: f64,
) -> (Vec<f64>, Vec<f64>) {
    let mut data = Data::new(model);
    data.qpos.copy_from_slice(&[0.4, -0.9]);
    data.qvel.copy_from_slice(&[1.1, -0.6]);
    data.ctrl[0] = 0.3;
    model.forward(&mut data).expect("forward");
    let nv = model.nv;
    let m = model.dense_qm(&data);
    let rhs: Vec<f64> = (0..nv).map(|i| (0..nv).map(|j| m[i * nv + j] * qacc[j]).sum()).collect();
    let mut lhs = m;
    for (i, s) in shift.iter().enumerate() {
        lhs[i * nv + i] += h * s;
    }
    let integrator = kind.build();
    let mut scratch = IntegratorScratch::default();
    integrator.prepare(model, &mut data, &mut scratch, h).expect("prepare");
    integrator.advance(model, &mut data, &mut scratch, qacc, h).expect("advance");
    (data.qacc.clone(), dense_solve(lhs, rhs))
}

#[test]
fn implicit_matrices_on_a_two_link_arm_match_dense_solves() {
    let (b, kp, kv, h) = (2.0, 50.0, 4.0, 0.02);
    let model = damped_arm(b, kp, kv);
    let qacc = [0.8, -2.5];
    // Euler: damping only. implicitfast: damping + gear²·kv on the elbow.
    for (kind, shift) in
        [(IntegratorKind::Euler, [b, 0.5 * b]), (IntegratorKind::ImplicitFast, [b, 0.5 * b + 4.0 * kv])]
    {
        let (ours, reference) = arm_case(&model, kind, &shift, &qacc, h);
        for (o, r) in ours.iter().zip(&reference) {
            assert!((o - r).abs() < 1e-12 * (1.0 + r.abs()), "{}: {ours:?} vs {reference:?}", kind.name());
        }
    }

    // approximate_implicitfast modifies M and qacc_smooth in `prepare`: without constraints it agrees with
    // implicitfast fed qacc_smooth of the plain M.
    let mut approx_data = Data::new(&model);
    let mut fast_data = Data::new(&model);
    for data in [&mut approx_data, &mut fast_data] {
        data.qpos.copy_from_slice(&[0.4, -0.9]);
        data.qvel.copy_from_slice(&[1.1, -0.6]);
        data.ctrl[0] = 0.3;
    }
    let (approx, fast) =
        (IntegratorKind::ApproximateImplicitFast.build(), IntegratorKind::ImplicitFast.build());
    let mut scratch = IntegratorScratch::default();
    for _ in 0..100 {
        step_unconstrained(approx.as_ref(), &model, &mut approx_data, &mut scratch, h).expect("approx");
        step_unconstrained(fast.as_ref(), &model, &mut fast_data, &mut scratch, h).expect("fast");
    }
    for (a, f) in
        approx_data.qpos.iter().chain(&approx_data.qvel).zip(fast_data.qpos.iter().chain(&fast_data.qvel))
    {
        assert!((a - f).abs() < 1e-10, "{a} vs {f}");
    }

    // The modified mass matrix after `prepare`.
    let mut data = Data::new(&model);
    model.forward(&mut data).expect("forward");
    let plain = model.dense_qm(&data);
    approx.prepare(&model, &mut data, &mut scratch, h).expect("prepare");
    let tilde = model.dense_qm(&data);
    let expected = [h * b, h * (0.5 * b + 4.0 * kv)];
    for i in 0..2 {
        for j in 0..2 {
            let add = if i == j { expected[i] } else { 0.0 };
            assert!((tilde[i * 2 + j] - plain[i * 2 + j] - add).abs() < 1e-14);
        }
    }
}

#[test]
fn names_round_trip_and_unknown_names_are_typed_errors() {
    for (name, kind) in INTEGRATOR_NAMES.iter().zip(IntegratorKind::ALL) {
        let integrator = integrator_from_name(name).expect("valid name");
        assert_eq!(integrator.kind(), kind);
        assert_eq!(integrator.name(), *name);
    }
    for bad in ["RK4", "Implicit", "Euler", ""] {
        let err = integrator_from_name(bad).expect_err("unknown name");
        assert_eq!(err, IntegratorError::UnknownName { name: bad.to_owned() });
        let message = err.to_string();
        for name in INTEGRATOR_NAMES {
            assert!(message.contains(name), "{message}");
        }
    }
}

#[test]
fn bad_inputs_are_typed_errors() {
    let model = pendulum(1.0);
    let mut data = Data::new(&model);
    model.forward(&mut data).expect("forward");
    for kind in IntegratorKind::ALL {
        let integrator: Box<dyn Integrator> = kind.build();
        let mut scratch = IntegratorScratch::default();
        for h in [0.0, -1e-3, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                integrator.advance(&model, &mut data, &mut scratch, &[0.0], h),
                Err(IntegratorError::InvalidTimestep { .. })
            ));
            assert!(matches!(
                integrator.prepare(&model, &mut data, &mut scratch, h),
                Err(IntegratorError::InvalidTimestep { .. })
            ));
        }
        assert_eq!(
            integrator.advance(&model, &mut data, &mut scratch, &[0.0, 1.0], 1e-3),
            Err(IntegratorError::QaccLength { len: 2, nv: 1 })
        );
    }
    // A destabilising velocity gain (biasprm₂ > 0) large enough to make M − h·∂f/∂q̇ indefinite.
    let model = damped_slide(1.0, 0.0, -400.0, 1.0);
    let mut data = Data::new(&model);
    model.forward(&mut data).expect("forward");
    let h = 0.05;
    let mut scratch = IntegratorScratch::default();
    let fast = IntegratorKind::ImplicitFast.build();
    assert!(matches!(
        fast.advance(&model, &mut data, &mut scratch, &[0.0], h),
        Err(IntegratorError::NotPositiveDefinite { dof: 0, .. })
    ));
    let approx = IntegratorKind::ApproximateImplicitFast.build();
    assert!(matches!(approx.prepare(&model, &mut data, &mut scratch, h), Err(IntegratorError::Dynamics(_))));
}

#[test]
fn implicitfast_skips_actuators_clamped_by_forcerange() {
    let mut model = damped_slide(1.0, 0.0, 400.0, 1.0);
    model.actuator_forcerange[0] = Some([-1.0, 1.0]);
    let (h, v0) = (0.01, 1.0);
    let mut data = Data::new(&model);
    data.qvel[0] = v0;
    model.forward(&mut data).expect("forward");
    assert_eq!(data.actuator_force[0], -1.0);
    let qacc = data.qacc_smooth[0];
    assert_eq!(qacc, -1.0);
    let fast = IntegratorKind::ImplicitFast.build();
    fast.advance(&model, &mut data, &mut IntegratorScratch::default(), &[qacc], h).expect("advance");
    assert_eq!(data.qacc[0], qacc);
    assert_eq!(data.qvel[0], v0 + h * qacc);
}
