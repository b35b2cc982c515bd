//! The integrators are configuration: their names (serde, `FromStr`/`Display`), `Send + Sync`, and an
//! [`IntegratorScratch`] that carries nothing from one step to the next.

mod common;

use common::damped_arm;
use signorini_integrators::{
    ApproximateImplicitFast, Euler, INTEGRATOR_NAMES, ImplicitFast, Integrator, IntegratorKind,
    IntegratorScratch, Rk4, step_unconstrained,
};
use signorini_model::{Data, Model};

/// The step of these tests (s).
const H: f64 = 0.002;

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn integrators_are_send_and_sync_configuration() {
    assert_send_sync::<Euler>();
    assert_send_sync::<ImplicitFast>();
    assert_send_sync::<ApproximateImplicitFast>();
    assert_send_sync::<Rk4>();
    assert_send_sync::<IntegratorKind>();
    assert_send_sync::<Box<dyn Integrator>>();
    assert_send_sync::<IntegratorScratch>();
}

#[test]
fn kind_names_serde_fromstr_and_display_agree() {
    assert_eq!(INTEGRATOR_NAMES, ["euler", "implicitfast", "approximate_implicitfast", "rk4", "implicit"]);
    for (name, kind) in INTEGRATOR_NAMES.iter().zip(IntegratorKind::ALL) {
        assert_eq!(kind.name(), *name);
        assert_eq!(kind.to_string(), *name);
        assert_eq!(name.parse::<IntegratorKind>(), Ok(kind));
        assert_eq!(serde_json::to_string(&kind).expect("serialize"), format!("\"{name}\""));
        assert_eq!(
            serde_json::from_str::<IntegratorKind>(&format!("\"{name}\"")).expect("deserialize"),
            kind
        );
    }
    assert!("implicit_fast".parse::<IntegratorKind>().is_err());
    assert!(serde_json::from_str::<IntegratorKind>("\"implicit_fast\"").is_err());
}

/// The arm with damping and a position servo, stepped `n` times with `integrator`, a fresh scratch per step or one
/// reused scratch: the states are bit-identical (the scratch carries nothing between steps), and the same as
/// through the boxed integrator.
fn run(model: &Model, integrator: &dyn Integrator, fresh_scratch: bool, n: usize) -> Data {
    let mut data = Data::new(model);
    data.qpos.copy_from_slice(&[0.4, -0.9]);
    data.qvel.copy_from_slice(&[1.1, -0.6]);
    data.ctrl[0] = 0.3;
    let mut scratch = IntegratorScratch::new();
    for _ in 0..n {
        if fresh_scratch {
            scratch = IntegratorScratch::default();
        }
        step_unconstrained(integrator, model, &mut data, &mut scratch, H).expect("step");
    }
    data
}

#[test]
fn the_scratch_carries_nothing_between_steps() {
    let model = damped_arm(2.0, 50.0, 4.0);
    for kind in IntegratorKind::ALL {
        let integrator = kind.build();
        let reused = run(&model, integrator.as_ref(), false, 50);
        let fresh = run(&model, integrator.as_ref(), true, 50);
        let boxed = run(&model, kind.build().as_ref(), false, 50);
        for other in [&fresh, &boxed] {
            assert_eq!(reused.qpos, other.qpos, "{kind}");
            assert_eq!(reused.qvel, other.qvel, "{kind}");
            assert_eq!(reused.qacc, other.qacc, "{kind}");
        }
    }
    // One scratch shared by different integrators in turn.
    let mut scratch = IntegratorScratch::default();
    let mut datas: Vec<Data> = IntegratorKind::ALL
        .iter()
        .map(|_| run(&model, IntegratorKind::Euler.build().as_ref(), false, 0))
        .collect();
    for _ in 0..50 {
        for (kind, data) in IntegratorKind::ALL.iter().zip(&mut datas) {
            step_unconstrained(kind.build().as_ref(), &model, data, &mut scratch, H).expect("step");
        }
    }
    for (kind, data) in IntegratorKind::ALL.iter().zip(&datas) {
        assert_eq!(
            data.qpos,
            run(&model, kind.build().as_ref(), false, 50).qpos,
            "{kind} with a shared scratch"
        );
    }
}
