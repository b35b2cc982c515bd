//! Per-environment parameters (domain randomisation) change the dynamics they govern, and only in the environments
//! they are set in: an environment given parameters by the setters steps bit for bit as a model compiled with those
//! parameters in its MJCF; armature and mass scaling give the closed-form accelerations; friction follows Coulomb's
//! law; invalid values are typed errors naming the parameter and the environment, and write nothing.

use std::path::Path;
use std::sync::Arc;

use ndarray::{Array2, array};
use signorini_mjcf::load_scene_str;
use signorini_sim::{Batch, Data, Dialect, Envs, Scene, SimError};

fn load(xml: &str, dialect: Dialect) -> Scene {
    load_scene_str(xml, Path::new("."), dialect, &[]).unwrap()
}

fn bits(d: &Data) -> Vec<u64> {
    d.multibody.qpos.iter().chain(&d.multibody.qvel).map(|x| x.to_bits()).collect()
}

/// A box dropped on a floor, a damped, sprung and limited double pendulum, and a ball hung from the world by a
/// connect equality; every parameter the batch can set per environment appears in the file.
struct Params {
    floor_friction: [f64; 3],
    floor_sol: [f64; 7],
    damping: f64,
    stiffness: f64,
    limit_sol: [f64; 7],
    equality_sol: [f64; 7],
}

const DEFAULT: Params = Params {
    floor_friction: [1.0, 0.005, 0.0001],
    floor_sol: [0.02, 1.0, 0.9, 0.95, 0.001, 0.5, 2.0],
    damping: 0.1,
    stiffness: 0.0,
    limit_sol: [0.02, 1.0, 0.9, 0.95, 0.001, 0.5, 2.0],
    equality_sol: [0.02, 1.0, 0.9, 0.95, 0.001, 0.5, 2.0],
};

const CHANGED: Params = Params {
    floor_friction: [0.3, 0.01, 0.001],
    floor_sol: [0.05, 0.7, 0.8, 0.9, 0.002, 0.3, 3.0],
    damping: 0.8,
    stiffness: 2.5,
    limit_sol: [0.04, 0.5, 0.85, 0.97, 0.01, 0.4, 2.0],
    equality_sol: [0.1, 0.3, 0.5, 0.9, 0.05, 0.5, 1.5],
};

fn list(v: &[f64]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ")
}

fn xml(p: &Params) -> String {
    let (fr, fs, ls, es) = (&p.floor_friction, &p.floor_sol, &p.limit_sol, &p.equality_sol);
    format!(
        r#"<mujoco><compiler angle="radian"/><option timestep="0.002"/><worldbody>
        <geom name="floor" type="plane" size="5 5 0.1" friction="{}" solref="{}" solimp="{}"/>
        <body name="box" pos="0 0 0.3" euler="0.3 0.2 0"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
        <body name="arm" pos="1 0 1">
          <joint name="shoulder" type="hinge" axis="0 1 0" limited="true" range="-0.4 0.4" damping="{}" stiffness="{}"
                 solreflimit="{}" solimplimit="{}"/>
          <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.02" mass="1" contype="0" conaffinity="0"/>
          <body pos="0.5 0 0"><joint name="elbow" type="hinge" axis="0 1 0"/>
            <geom type="sphere" size="0.05" mass="0.2" contype="0" conaffinity="0"/></body>
        </body>
        <body name="ball" pos="2 0 1"><freejoint/>
          <geom type="sphere" size="0.05" mass="0.3" contype="0" conaffinity="0"/></body>
        </worldbody>
        <equality><connect body1="ball" anchor="0 0 0.2" solref="{}" solimp="{}"/></equality></mujoco>"#,
        list(fr),
        list(&fs[..2]),
        list(&fs[2..]),
        p.damping,
        p.stiffness,
        list(&ls[..2]),
        list(&ls[2..]),
        list(&es[..2]),
        list(&es[2..]),
    )
}

#[test]
fn set_parameters_step_as_a_model_compiled_with_them() {
    for dialect in [Dialect::Native, Dialect::Mujoco] {
        let model = Arc::clone(load(&xml(&DEFAULT), dialect).model());
        let mut compiled = load(&xml(&CHANGED), dialect);
        let mut b = Batch::new(Arc::clone(&model), 3).unwrap().with_threads(2).unwrap();
        let one = Envs::Indices(&[1]);
        let row = |v: &[f64]| Array2::from_shape_vec((1, v.len()), v.to_vec()).unwrap();
        b.set_geom_friction(0, row(&CHANGED.floor_friction).view(), one).unwrap();
        b.set_geom_sol_params(0, row(&CHANGED.floor_sol).view(), one).unwrap();
        let (nv, njnt) = (model.multibody.nv, model.multibody.njnt);
        let mut damping = b.dof_damping().row(1).to_vec();
        damping[6] = CHANGED.damping;
        b.set_dof_damping(row(&damping).view(), one).unwrap();
        let mut stiffness = vec![0.0; njnt];
        stiffness[1] = CHANGED.stiffness;
        b.set_joint_stiffness(row(&stiffness).view(), one).unwrap();
        b.set_joint_sol_params(1, row(&CHANGED.limit_sol).view(), one).unwrap();
        b.set_equality_sol_params(0, row(&CHANGED.equality_sol).view(), one).unwrap();
        assert_eq!(b.dof_damping().dim(), (3, nv));
        assert_eq!(b.env(1).unwrap().geom_params(&model, 0).unwrap().friction, CHANGED.floor_friction);

        // The pendulum starts past its limit and the ball swings, so limits and the equality are active.
        let mut qvel = vec![0.0; nv];
        qvel[6] = 3.0;
        qvel[8] = 1.5;
        let qvel3 = Array2::from_shape_fn((3, nv), |(_, k)| qvel[k]);
        b.set_qvel(qvel3.view(), Envs::All).unwrap();
        compiled.set_qvel(&qvel).unwrap();
        let mut default = Scene::from_model(Arc::clone(&model)).unwrap();
        default.set_qvel(&qvel).unwrap();
        let mut limit_rows = 0;
        for _ in 0..600 {
            b.step().unwrap();
            compiled.step().unwrap();
            default.step().unwrap();
            limit_rows += compiled.data().rows.len();
        }
        assert!(limit_rows > 0);
        assert_eq!(bits(b.env(1).unwrap()), bits(compiled.data()), "{dialect:?}: set == compiled");
        assert_eq!(bits(b.env(0).unwrap()), bits(default.data()), "{dialect:?}: untouched env == model");
        assert_eq!(bits(b.env(2).unwrap()), bits(default.data()), "{dialect:?}: untouched env == model");
        assert_ne!(bits(b.env(0).unwrap()), bits(b.env(1).unwrap()), "{dialect:?}: the parameters matter");

        // A reset keeps the parameters; reset_parameters puts the model's back.
        b.reset(Envs::All).unwrap();
        assert_eq!(b.dof_damping()[[1, 6]], CHANGED.damping);
        b.reset_parameters(Envs::Indices(&[1])).unwrap();
        b.set_qvel(qvel3.view(), Envs::All).unwrap();
        for _ in 0..100 {
            b.step().unwrap();
        }
        assert_eq!(bits(b.env(1).unwrap()), bits(b.env(0).unwrap()), "{dialect:?}: parameters reset");
    }
}

/// A 2 kg body on a vertical slide (mass 2, armature 0.5) under gravity, and a body on a hinge through its centre of
/// mass (`I_yy = 0.2`, armature 0.1) driven by an applied torque τ = 1, twice: with its principal axes on the body
/// axes (a simple body, whose diagonal of `M` is kept constant) and turned about `y` (the general algorithm). After
/// one Euler step from rest, `q̇ = −h s m g / (s m + a)` and `q̇ = h τ / (s I + a)` for a mass scale `s` and armature
/// `a`.
#[test]
fn mass_scale_and_armature_give_the_closed_form_accelerations() {
    const XML: &str = r#"<mujoco><option timestep="0.01" integrator="Euler"/><worldbody>
        <body pos="0 0 1"><joint type="slide" axis="0 0 1" armature="0.5"/>
          <inertial pos="0 0 0" mass="2" diaginertia="0.1 0.1 0.1"/></body>
        <body pos="1 0 1"><joint type="hinge" axis="0 1 0" armature="0.1"/>
          <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.2 0.3"/></body>
        <body pos="2 0 1"><joint type="hinge" axis="0 1 0" armature="0.1"/>
          <inertial pos="0 0 0" quat="0.9238795 0 0.3826834 0" mass="1" diaginertia="0.1 0.2 0.3"/></body>
      </worldbody></mujoco>"#;
    let (h, g) = (0.01, 9.81);
    let model = Arc::clone(load(XML, Dialect::Native).model());
    let mut b = Batch::new(Arc::clone(&model), 4).unwrap();
    let scales = [1.0, 2.0, 0.5, 3.0];
    assert_eq!(model.multibody.dof_simple, [true, true, false]);
    let armature = [[0.5, 0.1, 0.1], [0.5, 0.1, 0.1], [0.0, 0.0, 0.0], [1.5, 0.7, 0.2]];
    let s = Array2::from_shape_fn((4, 4), |(e, body)| if body == 0 { 1.0 } else { scales[e] });
    b.set_body_mass_scale(s.view(), Envs::All).unwrap();
    let a = Array2::from_shape_fn((4, 3), |(e, k)| armature[e][k]);
    b.set_dof_armature(a.view(), Envs::All).unwrap();
    assert_eq!(b.dof_armature(), a);
    for e in 0..4 {
        b.env_mut(e).unwrap().multibody.qfrc_applied[1] = 1.0;
        b.env_mut(e).unwrap().multibody.qfrc_applied[2] = 1.0;
    }
    b.step().unwrap();
    for e in 0..4 {
        let (s, [a0, a1, a2]) = (scales[e], armature[e]);
        assert_eq!(b.body_mass()[[e, 1]], 2.0 * s);
        let qvel = &b.env(e).unwrap().multibody.qvel;
        let slide = -h * s * 2.0 * g / (s * 2.0 + a0);
        let hinge = h * 1.0 / (s * 0.2 + a1);
        assert!((qvel[0] - slide).abs() < 1e-12 * slide.abs(), "env {e}: slide {} vs {slide}", qvel[0]);
        assert!((qvel[1] - hinge).abs() < 1e-12 * hinge.abs(), "env {e}: hinge {} vs {hinge}", qvel[1]);
        let turned = h * 1.0 / (s * 0.2 + a2);
        assert!((qvel[2] - turned).abs() < 1e-6 * turned, "env {e}: turned hinge {} vs {turned}", qvel[2]);
    }
}

/// A 1 kg box on a floor under gravity tilted by `θ = atan 0.4` (an incline): with the geoms' friction 0.5 it sticks
/// (μ > tan θ); set per environment to 0.25 and 0.15 it slides with Coulomb's `a = g (sin θ − μ cos θ)`.
#[test]
fn geom_friction_follows_coulombs_law_per_environment() {
    const XML: &str = r#"<mujoco><option timestep="0.002"/><worldbody>
        <geom type="plane" size="5 5 0.1" friction="0.5"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1" friction="0.5"/></body>
      </worldbody></mujoco>"#;
    for dialect in [Dialect::Native, Dialect::Mujoco] {
        let model = Arc::clone(load(XML, dialect).model());
        let mut b = Batch::new(Arc::clone(&model), 3).unwrap();
        let (g, theta) = (9.81, 0.4f64.atan());
        let tilted = [g * theta.sin(), 0.0, -g * theta.cos()];
        b.set_gravity(Array2::from_shape_fn((3, 3), |(_, k)| tilted[k]).view(), Envs::All).unwrap();
        let mus = [0.5, 0.25, 0.15];
        let friction = Array2::from_shape_fn((3, 3), |(e, k)| if k == 0 { mus[e] } else { 0.0 });
        for geom in 0..2 {
            b.set_geom_friction(geom, friction.view(), Envs::All).unwrap();
        }
        for _ in 0..500 {
            b.step().unwrap();
        }
        let x = |e: usize| b.env(e).unwrap().multibody.qpos[0];
        assert!(x(0).abs() < 5e-3, "{dialect:?}: μ = 0.5 sticks, moved {}", x(0));
        for (e, mu) in mus.iter().enumerate().skip(1) {
            let expected = 0.5 * g * (theta.sin() - mu * theta.cos());
            assert!(
                (x(e) - expected).abs() < 0.05 * expected,
                "{dialect:?}: μ = {mu}: {} vs {expected}",
                x(e)
            );
        }
    }
}

#[test]
fn invalid_parameters_are_typed_errors_naming_parameter_and_environment() {
    let model = Arc::clone(load(&xml(&DEFAULT), Dialect::Native).model());
    let mut b = Batch::new(Arc::clone(&model), 2).unwrap();
    let (nv, njnt, nbody) = (model.multibody.nv, model.multibody.njnt, model.multibody.nbody);
    let expect = |r: Result<(), SimError>, env: usize, name: &str| {
        let err = r.unwrap_err();
        assert!(matches!(err, SimError::Environment { env: e, .. } if e == env), "{err}");
        assert!(err.to_string().contains(name), "{name}: {err}");
    };
    let good_sol = [0.02, 1.0, 0.9, 0.95, 0.001, 0.5, 2.0];
    let sols =
        |bad: [f64; 7]| Array2::from_shape_fn((2, 7), |(e, k)| if e == 1 { bad[k] } else { good_sol[k] });
    let mut sol = good_sol;
    sol[1] = -1.0; // dampratio ≤ 0
    expect(b.set_geom_sol_params(0, sols(sol).view(), Envs::All), 1, "dampratio");
    sol = good_sol;
    sol[2] = 0.99; // dmin > dmax
    expect(b.set_joint_sol_params(0, sols(sol).view(), Envs::All), 1, "dmin");
    sol = good_sol;
    sol[6] = 0.5; // power < 1
    expect(b.set_equality_sol_params(0, sols(sol).view(), Envs::All), 1, "power");
    let friction = array![[0.5, 0.0, 0.0], [-0.1, 0.0, 0.0]];
    expect(b.set_geom_friction(0, friction.view(), Envs::All), 1, "geom_friction");
    let mut armature = Array2::zeros((2, nv));
    armature[[0, 3]] = -1.0;
    expect(b.set_dof_armature(armature.view(), Envs::All), 0, "dof_armature");
    let mut damping = Array2::zeros((2, nv));
    damping[[1, 0]] = f64::INFINITY;
    expect(b.set_dof_damping(damping.view(), Envs::All), 1, "dof_damping");
    let mut stiffness = Array2::zeros((2, njnt));
    stiffness[[1, 1]] = -2.0;
    expect(b.set_joint_stiffness(stiffness.view(), Envs::All), 1, "jnt_stiffness");
    let mut scale = Array2::ones((2, nbody));
    scale[[1, 2]] = 0.0;
    expect(b.set_body_mass_scale(scale.view(), Envs::All), 1, "body_mass_scale");
    // Objects that do not exist, and wrong shapes.
    let ok = Array2::from_shape_fn((2, 7), |(_, k)| good_sol[k]);
    expect(b.set_geom_sol_params(9, ok.view(), Envs::All), 0, "geom");
    expect(b.set_joint_sol_params(9, ok.view(), Envs::All), 0, "joint 9");
    expect(b.set_equality_sol_params(3, ok.view(), Envs::All), 0, "equality 3");
    assert!(matches!(
        b.set_dof_damping(Array2::zeros((2, nv + 1)).view(), Envs::All),
        Err(SimError::InvalidState { .. })
    ));
    // Nothing was written.
    let fresh = Batch::new(Arc::clone(&model), 2).unwrap();
    assert_eq!(b.dof_armature(), fresh.dof_armature());
    assert_eq!(b.dof_damping(), fresh.dof_damping());
    assert_eq!(b.joint_stiffness(), fresh.joint_stiffness());
    assert_eq!(b.body_mass(), fresh.body_mass());
    for e in 0..2 {
        let params = |b: &Batch| b.env(e).unwrap().geom_params(&model, 0).unwrap();
        assert_eq!(params(&b), params(&fresh));
    }
}
