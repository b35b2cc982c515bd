//! Energy and momentum conservation to the integrators' order, and exact quaternion integration.

mod common;

use common::{energy, free_body, pendulum};
use glam::{DQuat, DVec3};
use signorini_integrators::{IntegratorKind, IntegratorScratch, integrate_positions, step_unconstrained};
use signorini_model::Data;

fn sci(xs: &[f64]) -> String {
    xs.iter().map(|x| format!("{x:.3e}")).collect::<Vec<_>>().join(", ")
}

/// Max |E − E₀| over `t_end` seconds of a frictionless pendulum released from 1 rad.
fn pendulum_energy_drift(kind: IntegratorKind, h: f64, t_end: f64) -> f64 {
    let model = pendulum(0.0);
    let mut data = Data::new(&model);
    data.qpos[0] = 1.0;
    let e0 = energy(&model, &mut data);
    let integrator = kind.build();
    let mut scratch = IntegratorScratch::default();
    let steps = (t_end / h).round() as usize;
    let mut worst: f64 = 0.0;
    for _ in 0..steps {
        step_unconstrained(integrator.as_ref(), &model, &mut data, &mut scratch, h).expect("step");
        worst = worst.max((energy(&model, &mut data) - e0).abs());
    }
    assert!((data.time - t_end).abs() < 1e-9);
    worst
}

/// The semi-implicit Euler family (one evaluation per step); RK4's fourth order is `runge_kutta.rs`'s.
fn euler_family() -> impl Iterator<Item = IntegratorKind> {
    IntegratorKind::ALL.into_iter().filter(|k| k.build().evaluations() == 1)
}

#[test]
fn frictionless_pendulum_conserves_energy_to_first_order() {
    for kind in euler_family() {
        let drifts: Vec<f64> =
            [2e-3, 1e-3, 5e-4].iter().map(|&h| pendulum_energy_drift(kind, h, 4.0)).collect();
        let orders: Vec<f64> = drifts.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
        println!("{}: pendulum max |ΔE| (J) {}, observed orders {orders:.3?}", kind.name(), sci(&drifts));
        // Symplectic Euler: bounded energy error of order h (no secular drift).
        assert!(drifts[0] < 0.05, "drift {drifts:?}");
        for p in orders {
            assert!(p > 0.9, "order {p} for {}", kind.name());
        }
    }
}

/// World-frame angular momentum `R I ω` of the free body (principal axes = body axes).
fn angular_momentum(data: &Data, inertia: DVec3) -> DVec3 {
    let q = DQuat::from_xyzw(data.qpos[4], data.qpos[5], data.qpos[6], data.qpos[3]);
    let w = DVec3::new(data.qvel[3], data.qvel[4], data.qvel[5]);
    q * (inertia * w)
}

/// `(max |ΔKE|/KE₀, max ‖ΔL‖/‖L₀‖, max | ‖q‖ − 1 |)` over `t_end` seconds of free tumbling.
fn tumbling_errors(kind: IntegratorKind, h: f64, t_end: f64) -> (f64, f64, f64) {
    let inertia = DVec3::new(1.0, 2.0, 3.0);
    let model = free_body(inertia);
    let mut data = Data::new(&model);
    data.qvel.copy_from_slice(&[0.3, -0.2, 0.1, 0.4, 0.2, 1.5]);
    let e0 = energy(&model, &mut data);
    let l0 = angular_momentum(&data, inertia);
    let integrator = kind.build();
    let mut scratch = IntegratorScratch::default();
    let (mut de, mut dl, mut dq): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for _ in 0..(t_end / h).round() as usize {
        step_unconstrained(integrator.as_ref(), &model, &mut data, &mut scratch, h).expect("step");
        de = de.max((energy(&model, &mut data) - e0).abs() / e0);
        dl = dl.max((angular_momentum(&data, inertia) - l0).length() / l0.length());
        let q = &data.qpos[3..7];
        dq = dq.max((q.iter().map(|x| x * x).sum::<f64>().sqrt() - 1.0).abs());
        // The linear velocity of a force-free body is untouched.
        assert_eq!(&data.qvel[..3], &[0.3, -0.2, 0.1]);
    }
    (de, dl, dq)
}

#[test]
fn free_tumbling_body_conserves_energy_and_angular_momentum_to_first_order() {
    for kind in euler_family() {
        let errs: Vec<(f64, f64, f64)> =
            [2e-3, 1e-3, 5e-4].iter().map(|&h| tumbling_errors(kind, h, 5.0)).collect();
        let order = |f: fn(&(f64, f64, f64)) -> f64| -> Vec<f64> {
            errs.windows(2).map(|w| (f(&w[0]) / f(&w[1])).log2()).collect()
        };
        let (pe, pl) = (order(|e| e.0), order(|e| e.1));
        let column = |f: fn(&(f64, f64, f64)) -> f64| sci(&errs.iter().map(f).collect::<Vec<_>>());
        println!(
            "{}: tumbling rel |ΔKE| {}, rel |ΔL| {}, | |q|-1 | {}; orders KE {pe:.3?} L {pl:.3?}",
            kind.name(),
            column(|e| e.0),
            column(|e| e.1),
            column(|e| e.2),
        );
        for (de, dl, dq) in &errs {
            assert!(*de < 0.05 && *dl < 0.05, "{errs:?}");
            assert!(*dq < 1e-14, "quaternion norm error {dq}");
        }
        for p in pe.into_iter().chain(pl) {
            assert!(p > 0.9, "order {p} for {}", kind.name());
        }
    }
}

#[test]
fn quaternion_integration_is_exact_for_constant_angular_velocity() {
    let model = free_body(DVec3::ONE);
    let omega = DVec3::new(0.7, -1.3, 2.1);
    let q0 = DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 0.4);
    let (h, steps) = (1e-2, 1000);
    let closed_form = |t: f64| q0 * DQuat::from_scaled_axis(omega * t);
    let set = |data: &mut Data| {
        data.qpos[3..7].copy_from_slice(&[q0.w, q0.x, q0.y, q0.z]);
        data.qvel[3..6].copy_from_slice(&omega.to_array());
    };
    let dist = |data: &Data, q: DQuat| {
        let ours = DQuat::from_xyzw(data.qpos[4], data.qpos[5], data.qpos[6], data.qpos[3]);
        (ours - q).length().min((ours + q).length())
    };

    // The position update alone, with ω held fixed: a product of exact exponentials.
    let mut data = Data::new(&model);
    set(&mut data);
    let mut worst: f64 = 0.0;
    for n in 1..=steps {
        integrate_positions(&model, &mut data, h);
        worst = worst.max(dist(&data, closed_form(n as f64 * h)));
    }
    println!("position update: max |q − q₀ exp(ωt)| = {worst:.2e} over {steps} steps");
    assert!(worst < 1e-12, "{worst}");

    // One large step (|ω h| ≈ 2.6 rad) is exact too.
    let mut data = Data::new(&model);
    set(&mut data);
    integrate_positions(&model, &mut data, 1.0);
    assert!(dist(&data, closed_form(1.0)) < 1e-15);

    // Full steps of every integrator on a torque-free body with isotropic inertia (ω constant).
    for kind in IntegratorKind::ALL {
        let mut data = Data::new(&model);
        set(&mut data);
        let integrator = kind.build();
        let mut scratch = IntegratorScratch::default();
        let mut worst: f64 = 0.0;
        for n in 1..=steps {
            step_unconstrained(integrator.as_ref(), &model, &mut data, &mut scratch, h).expect("step");
            worst = worst.max(dist(&data, closed_form(n as f64 * h)));
        }
        println!("{}: max |q − q₀ exp(ωt)| = {worst:.2e}", kind.name());
        assert!(worst < 1e-12, "{}: {worst}", kind.name());
    }
}
