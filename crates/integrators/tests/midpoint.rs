//! The implicit midpoint rule for unconstrained free bodies (spec §D.5, Genesis 1.4.5): invariants of torque-free
//! tumbling, convergence to an accurate RK4 solution with gravity and damping, and the fall-back of constrained bodies.

use glam::{DMat3, DQuat, DVec3};
use signorini_integrators::{
    FreeBodyIntegration, ImplicitForces, IntegratorKind, IntegratorScratch, IntegratorSettings,
    step_unconstrained,
};
use signorini_model::{BodySpec, Data, InertialSpec, JointSpec, Model, ModelSpec};

const MIDPOINT: IntegratorSettings = IntegratorSettings {
    euler_implicit_damping: true,
    free_bodies: FreeBodyIntegration::ImplicitMidpoint,
    implicit_forces: ImplicitForces::MassTimesAcceleration,
};

/// The free bodies of the tests: the centre of mass on the joint origin with principal axes along the body axes
/// (`Lone`), off the origin with rotated principal axes (`Offset`), or a body with another welded under it
/// (`Composite`), with the free joint's damping.
#[derive(Debug, Clone, Copy)]
enum Shape {
    Lone,
    Offset,
    Composite,
}

fn tumbler(shape: Shape, gravity: DVec3, damping: f64) -> Model {
    let mut spec = ModelSpec { gravity, ..ModelSpec::default() };
    let mut body = BodySpec::new("body", 0, DVec3::new(0.0, 0.0, 1.0), DQuat::IDENTITY);
    let inertia = DVec3::new(0.05, 0.11, 0.16);
    body.inertial = match shape {
        Shape::Lone | Shape::Composite => {
            InertialSpec { mass: 2.0, inertia, pos: DVec3::ZERO, quat: DQuat::IDENTITY }
        }
        Shape::Offset => InertialSpec {
            mass: 2.0,
            inertia,
            pos: DVec3::new(0.12, -0.05, 0.08),
            quat: DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1),
        },
    };
    body.joints.push(JointSpec { damping, ..JointSpec::free("free") });
    let body = spec.add_body(body);
    if let Shape::Composite = shape {
        let mut knob = BodySpec::new(
            "knob",
            body,
            DVec3::new(0.1, 0.05, 0.1),
            DQuat::from_euler(glam::EulerRot::XYZ, 0.35, 0.0, 0.17),
        );
        knob.inertial = InertialSpec {
            mass: 0.8,
            inertia: DVec3::new(0.004, 0.002, 0.003),
            pos: DVec3::new(0.02, 0.0, -0.01),
            quat: DQuat::IDENTITY,
        };
        spec.add_body(knob);
    }
    Model::compile(spec).expect("tumbler compiles")
}

/// A spin near the intermediate principal axis (unstable: the body flips) and a drift.
fn launch(data: &mut Data) {
    data.qvel.copy_from_slice(&[0.3, -0.2, 0.5, 0.2, 9.0, 0.15]);
}

/// World angular momentum about the centre of mass of the whole body, from the forward kinematics.
fn angular_momentum(model: &Model, data: &Data) -> DVec3 {
    let mass: f64 = (1..model.nbody).map(|b| data.body_mass[b]).sum();
    let com = (1..model.nbody).map(|b| data.body_mass[b] * data.xipos[b]).sum::<DVec3>() / mass;
    let omega = data.xmat[1] * DVec3::new(data.qvel[3], data.qvel[4], data.qvel[5]);
    (1..model.nbody)
        .map(|b| {
            let r = data.ximat[b];
            let d = data.xipos[b] - com;
            r * DMat3::from_diagonal(data.body_inertia[b]) * r.transpose() * omega
                + data.body_mass[b] * d.cross(omega.cross(d))
        })
        .sum()
}

/// The kinetic energy, `None` once the state has blown up.
fn kinetic_energy(model: &Model, data: &mut Data) -> Option<f64> {
    model.forward(data).ok()?;
    model.energy(data);
    data.energy_kinetic.is_finite().then_some(data.energy_kinetic)
}

/// Largest relative change of the kinetic energy and of the magnitude of the angular momentum (the rule's quadratic
/// invariants) over `steps` steps of 10 ms; infinite if the run blows up.
fn invariant_drift(
    kind: IntegratorKind,
    settings: IntegratorSettings,
    shape: Shape,
    steps: usize,
) -> (f64, f64) {
    let model = tumbler(shape, DVec3::ZERO, 0.0);
    let integrator = kind.build_with(settings);
    let mut scratch = IntegratorScratch::new();
    let mut data = Data::new(&model);
    launch(&mut data);
    let e0 = kinetic_energy(&model, &mut data).expect("finite");
    let l0 = angular_momentum(&model, &data);
    let (mut de, mut dl) = (0.0f64, 0.0f64);
    for _ in 0..steps {
        let step = step_unconstrained(integrator.as_ref(), &model, &mut data, &mut scratch, 0.01);
        let Some(e) = step.ok().and_then(|_| kinetic_energy(&model, &mut data)) else {
            return (f64::INFINITY, f64::INFINITY);
        };
        de = de.max((e - e0).abs() / e0);
        dl = dl.max((angular_momentum(&model, &data).length() - l0.length()).abs() / l0.length());
    }
    (de, dl)
}

#[test]
fn torque_free_tumbling_keeps_energy_and_angular_momentum() {
    for shape in [Shape::Lone, Shape::Offset, Shape::Composite] {
        for kind in [IntegratorKind::ImplicitFast, IntegratorKind::ApproximateImplicitFast] {
            let (de, dl) = invariant_drift(kind, MIDPOINT, shape, 3000);
            let (de_plain, dl_plain) = invariant_drift(kind, IntegratorSettings::default(), shape, 3000);
            println!(
                "{shape:?} {kind}: midpoint |ΔE|/E {de:.1e}, Δ|L|/|L| {dl:.1e}; without it {de_plain:.1e}, {dl_plain:.1e}"
            );
            assert!(de < 1e-10 && dl < 1e-10, "{shape:?} {kind}: {de:e} {dl:e}");
        }
        // The semi-implicit Euler step itself does not keep them (what the rule is for).
        let (de, dl) = invariant_drift(
            IntegratorKind::ApproximateImplicitFast,
            IntegratorSettings::default(),
            shape,
            3000,
        );
        assert!(de > 1e-4 || dl > 1e-4, "{shape:?}: {de:e} {dl:e}");
    }
}

/// Free-body position and orientation after `t` seconds of a launch under gravity with damping.
fn flight(
    kind: IntegratorKind,
    settings: IntegratorSettings,
    shape: Shape,
    h: f64,
    t: f64,
) -> (DVec3, DQuat) {
    let model = tumbler(shape, DVec3::new(0.0, 0.0, -9.81), 0.02);
    let integrator = kind.build_with(settings);
    let mut scratch = IntegratorScratch::new();
    let mut data = Data::new(&model);
    launch(&mut data);
    for _ in 0..(t / h).round() as usize {
        step_unconstrained(integrator.as_ref(), &model, &mut data, &mut scratch, h).expect("step");
    }
    let q = &data.qpos;
    (DVec3::new(q[0], q[1], q[2]), DQuat::from_xyzw(q[4], q[5], q[6], q[3]))
}

#[test]
fn midpoint_flights_converge_to_runge_kutta() {
    // RK4 at h = 1e-4 is the reference (its error is far below the midpoint step's). The rule has the order of the
    // translation update it keeps (one, the semi-implicit Euler step of the origin, when the centre of mass is on it).
    let t = 0.5;
    for shape in [Shape::Lone, Shape::Offset, Shape::Composite] {
        let (x_ref, q_ref) = flight(IntegratorKind::Rk4, IntegratorSettings::default(), shape, 1e-4, t);
        for kind in [IntegratorKind::ImplicitFast, IntegratorKind::ApproximateImplicitFast] {
            let errors: Vec<(f64, f64)> = [4e-3, 2e-3, 1e-3]
                .iter()
                .map(|&h| {
                    let (x, q) = flight(kind, MIDPOINT, shape, h, t);
                    ((x - x_ref).length(), (q.dot(q_ref).abs().min(1.0)).acos() * 2.0)
                })
                .collect();
            println!("{shape:?} {kind}: (position, angle) errors at h = 4, 2, 1 ms: {errors:.3?}");
            for w in errors.windows(2) {
                assert!(w[0].0 / w[1].0 > 1.8, "{shape:?} {kind}: position errors {errors:?}");
                assert!(w[0].1 / w[1].1 > 1.8, "{shape:?} {kind}: angle errors {errors:?}");
            }
            assert!(errors[2].0 < 1e-2 && errors[2].1 < 1e-3, "{shape:?} {kind}: {errors:?}");
        }
    }
}

#[test]
fn a_constrained_body_takes_the_plain_update() {
    let model = tumbler(Shape::Lone, DVec3::new(0.0, 0.0, -9.81), 0.02);
    for kind in [IntegratorKind::ImplicitFast, IntegratorKind::ApproximateImplicitFast] {
        let run = |kind: IntegratorKind, settings: IntegratorSettings, constrained: &[usize]| {
            let integrator = kind.build_with(settings);
            let mut scratch = IntegratorScratch::new();
            let mut data = Data::new(&model);
            launch(&mut data);
            scratch.set_constrained_dofs(model.nv, constrained.iter().copied());
            step_unconstrained(integrator.as_ref(), &model, &mut data, &mut scratch, 0.01).expect("step");
            (data.qpos, data.qvel)
        };
        let touched = run(kind, MIDPOINT, &[4]);
        assert_ne!(touched, run(kind, MIDPOINT, &[]), "{kind}: the rule changes an unconstrained step");
        // A touched body takes Genesis's plain update: the integrator without the rule, and for implicitfast also
        // without MuJoCo's gyroscopic block, that is Euler's implicit damping (no actuators, no fluid here).
        let plain = match kind {
            IntegratorKind::ImplicitFast => run(IntegratorKind::Euler, IntegratorSettings::default(), &[]),
            _ => run(kind, IntegratorSettings::default(), &[]),
        };
        assert_eq!(touched, plain, "{kind}: a touched body's step is the plain one");
    }
}

/// A touched body whose centre of mass is off its origin takes Genesis's plain update of a body it anchors there: the
/// centre of mass moves by the semi-implicit Euler step, `v_c' = v_c + h g`, `x_c' = x_c + h v_c'` for a body under
/// gravity alone, however fast it spins (the origin's own step would put it `O(h² ω² r)` off).
#[test]
fn a_touched_off_centre_body_steps_its_centre_of_mass() {
    let g = DVec3::new(0.0, 0.0, -9.81);
    let h = 0.01;
    for shape in [Shape::Offset, Shape::Composite] {
        let model = tumbler(shape, g, 0.0);
        let com = |data: &Data| {
            let mass: f64 = (1..model.nbody).map(|b| data.body_mass[b]).sum();
            (1..model.nbody).map(|b| data.body_mass[b] * data.xipos[b]).sum::<DVec3>() / mass
        };
        let integrator = IntegratorKind::ApproximateImplicitFast.build_with(MIDPOINT);
        let mut scratch = IntegratorScratch::new();
        let mut data = Data::new(&model);
        launch(&mut data);
        scratch.set_constrained_dofs(model.nv, [0]);
        model.forward(&mut data).expect("forward");
        let x0 = com(&data);
        let omega = data.xmat[1] * DVec3::new(data.qvel[3], data.qvel[4], data.qvel[5]);
        let v0 = DVec3::new(data.qvel[0], data.qvel[1], data.qvel[2]) + omega.cross(x0 - data.xpos[1]);
        step_unconstrained(integrator.as_ref(), &model, &mut data, &mut scratch, h).expect("step");
        model.forward(&mut data).expect("forward");
        let x1 = com(&data);
        let omega = data.xmat[1] * DVec3::new(data.qvel[3], data.qvel[4], data.qvel[5]);
        let v1 = DVec3::new(data.qvel[0], data.qvel[1], data.qvel[2]) + omega.cross(x1 - data.xpos[1]);
        let (dv, dx) = ((v1 - (v0 + h * g)).length(), (x1 - (x0 + h * (v0 + h * g))).length());
        println!("{shape:?}: centre-of-mass velocity off by {dv:.1e} m/s, position by {dx:.1e} m");
        assert!(dv < 1e-13 && dx < 1e-14, "{shape:?}: {dv:e} {dx:e}");
    }
}
