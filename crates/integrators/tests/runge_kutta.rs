//! RK4: fourth-order convergence on the pendulum and on a tumbling body, its stage protocol, and
//! the errors of a misused stage.

mod common;

use common::{free_body, pendulum};
use glam::DVec3;
use signorini_integrators::{
    Euler, Integrator, IntegratorError, IntegratorKind, IntegratorScratch, Rk4, step_unconstrained,
};
use signorini_model::{Data, Model};

/// `(qpos, qvel)` after `t_end` seconds of RK4 steps of `h` from `init`.
fn run(model: &Model, init: &dyn Fn(&mut Data), h: f64, t_end: f64) -> Vec<f64> {
    let mut data = Data::new(model);
    init(&mut data);
    let mut scratch = IntegratorScratch::default();
    for _ in 0..(t_end / h).round() as usize {
        step_unconstrained(&Rk4, model, &mut data, &mut scratch, h).expect("step");
    }
    assert!((data.time - t_end).abs() < 1e-12, "time {}", data.time);
    data.qpos.iter().chain(&data.qvel).copied().collect()
}

/// Errors against a run at `h/16` for `h`, `h/2`, `h/4`, and the observed orders `log₂(eₖ/eₖ₊₁)`.
fn orders(model: &Model, init: &dyn Fn(&mut Data), h: f64, t_end: f64) -> (Vec<f64>, Vec<f64>) {
    let reference = run(model, init, h / 16.0, t_end);
    let errors: Vec<f64> = [h, h / 2.0, h / 4.0]
        .iter()
        .map(|&h| {
            let x = run(model, init, h, t_end);
            x.iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)
        })
        .collect();
    let p = errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    (errors, p)
}

#[test]
fn pendulum_state_converges_at_fourth_order() {
    let model = pendulum(0.3);
    let (errors, p) = orders(&model, &|d| d.qpos[0] = 1.0, 0.04, 2.0);
    println!(
        "rk4 pendulum: errors {:?}, orders {p:.3?}",
        errors.iter().map(|e| format!("{e:.3e}")).collect::<Vec<_>>()
    );
    assert!(errors[0] < 1e-4, "{errors:?}");
    for p in p {
        assert!(p > 3.7 && p < 4.5, "order {p}");
    }
}

/// A free body tumbling about all three axes converges at fourth order, as MuJoCo 4.0.1's RK4 does: its stages sum the
/// rotation vectors' rates `dexp⁻¹_θ(ω)` (Runge–Kutta–Munthe-Kaas), not the angular velocities, whose sum ignores that
/// rotations about different axes do not commute (orders 1.8–2.5 on this body when the stages summed `ω`).
#[test]
fn tumbling_body_converges_at_fourth_order_as_in_mujoco() {
    let model = free_body(DVec3::new(1.0, 2.0, 3.0));
    let init = |d: &mut Data| d.qvel.copy_from_slice(&[0.3, -0.2, 0.1, 0.4, 0.2, 1.5]);
    let (errors, p) = orders(&model, &init, 0.05, 2.0);
    println!(
        "rk4 tumbling: errors {:?}, orders {p:.3?}",
        errors.iter().map(|e| format!("{e:.3e}")).collect::<Vec<_>>()
    );
    assert!(errors[0] < 1e-6, "{errors:?}");
    for p in p {
        assert!(p > 3.7 && p < 4.5, "order {p}");
    }
}

/// The stage protocol by hand gives the same step as `step_unconstrained`, and the first stage puts the state at
/// `x₀ ⊕ (h/2) f(x₀)`, time `t₀ + h/2`.
#[test]
fn stages_follow_the_tableau() {
    let model = pendulum(0.0);
    let h = 0.01;
    let mut data = Data::new(&model);
    data.qpos[0] = 0.7;
    data.qvel[0] = -0.2;
    let mut scratch = IntegratorScratch::default();
    model.forward(&mut data).expect("forward");
    let a0 = data.qacc_smooth[0];
    Rk4.stage(&model, &mut data, &mut scratch, 0, &[a0], h).expect("stage 0");
    assert_eq!(data.qpos[0], 0.7 + 0.5 * h * -0.2);
    assert_eq!(data.qvel[0], -0.2 + 0.5 * h * a0);
    assert_eq!(data.time, 0.5 * h);

    let mut by_hand = Data::new(&model);
    by_hand.qpos[0] = 0.7;
    by_hand.qvel[0] = -0.2;
    for i in 0..4 {
        model.forward(&mut by_hand).expect("forward");
        let a = [by_hand.qacc_smooth[0]];
        if i < 3 {
            Rk4.stage(&model, &mut by_hand, &mut scratch, i, &a, h).expect("stage");
        } else {
            Rk4.advance(&model, &mut by_hand, &mut scratch, &a, h).expect("advance");
            assert_eq!(by_hand.qacc[0], a[0], "qacc is the last evaluation's");
        }
    }
    let mut stepped = Data::new(&model);
    stepped.qpos[0] = 0.7;
    stepped.qvel[0] = -0.2;
    step_unconstrained(&Rk4, &model, &mut stepped, &mut IntegratorScratch::default(), h).expect("step");
    assert_eq!((by_hand.qpos[0], by_hand.qvel[0], by_hand.time), (stepped.qpos[0], stepped.qvel[0], h));
}

#[test]
fn misused_stages_are_typed_errors() {
    let model = pendulum(0.0);
    let mut data = Data::new(&model);
    model.forward(&mut data).expect("forward");
    let mut scratch = IntegratorScratch::default();
    assert_eq!(Euler::default().evaluations(), 1);
    assert_eq!(IntegratorKind::Rk4.build().evaluations(), 4);
    assert_eq!(
        Euler::default().stage(&model, &mut data, &mut scratch, 0, &[0.0], 0.01),
        Err(IntegratorError::Stage { stage: 0, evaluations: 1 })
    );
    assert_eq!(
        Rk4.stage(&model, &mut data, &mut scratch, 3, &[0.0], 0.01),
        Err(IntegratorError::Stage { stage: 3, evaluations: 4 })
    );
    // `advance` before any stage: nothing to combine.
    assert_eq!(
        Rk4.advance(&model, &mut data, &mut scratch, &[0.0], 0.01),
        Err(IntegratorError::Stage { stage: 3, evaluations: 4 })
    );
}
