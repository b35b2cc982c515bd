//! Property tests on random trees (every joint type, bodies with two joints, welded bodies) and random states:
//! Jacobians against finite differences of forward kinematics, `M` symmetric positive definite, the sparse
//! `Lᵀ D L` solve against a dense Cholesky solve, RNE inverse dynamics against `M q̈ + bias`, energy conservation
//! of the unforced motion, and `J·v`, `Jᵀ·f` against the dense Jacobians.

mod common;

use common::{Rng, cholesky, cholesky_solve, mat_vec, max_abs, random_model, random_state, rel_err};
use glam::{DMat3, DVec3};
use proptest::prelude::*;
use signorini_model::passive::quat_to_rotvec;
use signorini_model::{Data, JointKind, Model, Wrench};

fn setup(seed: u64, nbody: usize) -> (Model, Data, Rng) {
    let mut rng = Rng(seed);
    let model = random_model(&mut rng, nbody);
    let mut data = Data::new(&model);
    let (mut qpos, mut qvel) = (data.qpos.clone(), data.qvel.clone());
    random_state(&mut rng, &model, &mut qpos, &mut qvel);
    data.qpos = qpos;
    data.qvel = qvel;
    model.forward(&mut data).expect("forward");
    (model, data, rng)
}

/// World position of `local` on `body` and the body rotation at `qpos`.
fn point_and_frame(
    model: &Model,
    data: &mut Data,
    qpos: &[f64],
    body: usize,
    local: DVec3,
) -> (DVec3, DMat3) {
    data.qpos.copy_from_slice(qpos);
    model.forward_kinematics(data);
    (data.xpos[body] + data.xmat[body] * local, data.xmat[body])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn jacobians_match_finite_differences(seed in any::<u64>(), nbody in 2usize..9) {
        let (model, data, mut rng) = setup(seed, nbody);
        let nv = model.nv;
        let (mut jacp, mut jacr) = (vec![0.0; 3 * nv], vec![0.0; 3 * nv]);
        let qpos = data.qpos.clone();
        let mut fd = data.clone();
        let h = 1e-6;
        for body in 1..model.nbody {
            let local = rng.vec3(0.5);
            let point = data.xpos[body] + data.xmat[body] * local;
            model.jacobian_point(&data, body, point, &mut jacp, &mut jacr);
            for dof in 0..nv {
                let mut e = vec![0.0; nv];
                e[dof] = 1.0;
                let mut plus = qpos.clone();
                model.integrate_qpos(&mut plus, &e, h);
                let mut minus = qpos.clone();
                model.integrate_qpos(&mut minus, &e, -h);
                let (xp, rp) = point_and_frame(&model, &mut fd, &plus, body, local);
                let (xm, rm) = point_and_frame(&model, &mut fd, &minus, body, local);
                let lin = (xp - xm) / (2.0 * h);
                let ang = quat_to_rotvec(glam::DQuat::from_mat3(&(rp * rm.transpose()))) / (2.0 * h);
                for r in 0..3 {
                    prop_assert!((jacp[r * nv + dof] - lin[r]).abs() < 1e-7,
                        "jacp body {body} dof {dof} row {r}: {} vs fd {}", jacp[r * nv + dof], lin[r]);
                    prop_assert!((jacr[r * nv + dof] - ang[r]).abs() < 1e-7,
                        "jacr body {body} dof {dof} row {r}: {} vs fd {}", jacr[r * nv + dof], ang[r]);
                }
            }
        }
    }

    #[test]
    fn mass_matrix_is_spd_and_sparse_solve_matches_dense(seed in any::<u64>(), nbody in 2usize..12) {
        let (model, data, mut rng) = setup(seed, nbody);
        let nv = model.nv;
        prop_assume!(nv > 0);
        let dense = model.dense_qm(&data);
        for i in 0..nv {
            for j in 0..nv {
                prop_assert_eq!(dense[i * nv + j], dense[j * nv + i]);
            }
        }
        let chol = cholesky(&dense, nv);
        prop_assert!(chol.is_some(), "M is not positive definite");
        let chol = chol.unwrap();
        let b: Vec<f64> = (0..nv).map(|_| rng.range(-1.0, 1.0)).collect();
        let mut x = b.clone();
        model.solve_m(&data, &mut x);
        let reference = cholesky_solve(&chol, nv, &b);
        prop_assert!(rel_err(&x, &reference) < 1e-10, "solve: {x:?} vs {reference:?}");
        let mut mx = vec![0.0; nv];
        model.mul_m(&data, &b, &mut mx);
        prop_assert!(rel_err(&mx, &mat_vec(&dense, nv, &b)) < 1e-14);
    }

    #[test]
    fn inverse_dynamics_is_m_qacc_plus_bias(seed in any::<u64>(), nbody in 2usize..12) {
        let (model, mut data, mut rng) = setup(seed, nbody);
        let nv = model.nv;
        let qacc: Vec<f64> = (0..nv).map(|_| rng.range(-3.0, 3.0)).collect();
        let mut rne = vec![0.0; nv];
        model.inverse_dynamics(&mut data, &qacc, &mut rne);
        let mut expected = vec![0.0; nv];
        model.mul_m(&data, &qacc, &mut expected);
        for (e, b) in expected.iter_mut().zip(&data.qfrc_bias) {
            *e += b;
        }
        prop_assert!(rel_err(&rne, &expected) < 1e-12, "{rne:?} vs {expected:?}");
    }

    /// Unforced, undamped motion (`M q̈ = spring − bias`) conserves kinetic + gravity + spring energy:
    /// a central difference of `E` along the trajectory vanishes.
    #[test]
    fn unforced_motion_conserves_energy(seed in any::<u64>(), nbody in 2usize..9) {
        let (model, mut data, _) = setup(seed, nbody);
        // A ball or free joint's spring energy ½k·θ² has a kink at θ = π (the rotation vector wraps there, in
        // MuJoCo too): a state within the central difference's reach of it has no derivative to compare.
        prop_assume!((0..model.njnt).all(|j| {
            let a = model.jnt_qposadr[j] + if model.jnt_type[j] == JointKind::Free { 3 } else { 0 };
            let rotates = matches!(model.jnt_type[j], JointKind::Ball | JointKind::Free);
            !rotates || model.jnt_stiffness[j] == 0.0 || data.qpos[a].abs() > 1e-3
        }));
        let nv = model.nv;
        let mut acc: Vec<f64> = (0..nv)
            .map(|d| data.qfrc_passive[d] + model.dof_damping[d] * data.qvel[d] - data.qfrc_bias[d])
            .collect();
        model.solve_m(&data, &mut acc);
        let (qpos, qvel) = (data.qpos.clone(), data.qvel.clone());
        let h = 1e-5;
        let mut energy_at = |sign: f64| {
            let mut q = qpos.clone();
            let w: Vec<f64> = (0..nv).map(|d| qvel[d] + sign * 0.5 * h * acc[d]).collect();
            model.integrate_qpos(&mut q, &w, sign * h);
            data.qpos.copy_from_slice(&q);
            for d in 0..nv {
                data.qvel[d] = qvel[d] + sign * h * acc[d];
            }
            model.forward_kinematics(&mut data);
            model.mass_matrix(&mut data);
            model.energy(&mut data);
            data.energy_kinetic + data.energy_potential
        };
        let rate = (energy_at(1.0) - energy_at(-1.0)) / (2.0 * h);
        let power_scale: Vec<f64> = qvel.iter().zip(&acc).map(|(v, a)| (v * a).abs()).collect();
        let scale = max_abs(&power_scale).max(1.0);
        prop_assert!(rate.abs() < 1e-5 * scale, "dE/dt = {rate} (scale {scale})");
    }

    #[test]
    fn jacobian_products_match_dense(seed in any::<u64>(), nbody in 2usize..9) {
        let (model, mut data, mut rng) = setup(seed, nbody);
        let nv = model.nv;
        let (mut jacp, mut jacr) = (vec![0.0; 3 * nv], vec![0.0; 3 * nv]);
        let v: Vec<f64> = (0..nv).map(|_| rng.range(-1.0, 1.0)).collect();
        for body in 0..model.nbody {
            let point = data.xipos[body] + rng.vec3(0.3);
            model.jacobian_point(&data, body, point, &mut jacp, &mut jacr);
            let (lin, ang) = model.point_velocity(&data, body, point, &v);
            for r in 0..3 {
                let jp: f64 = (0..nv).map(|d| jacp[r * nv + d] * v[d]).sum();
                let jr: f64 = (0..nv).map(|d| jacr[r * nv + d] * v[d]).sum();
                prop_assert!((lin[r] - jp).abs() < 1e-12 && (ang[r] - jr).abs() < 1e-12);
            }
            let (force, torque) = (rng.vec3(1.0), rng.vec3(1.0));
            let mut out = vec![0.0; nv];
            model.add_jacobian_transpose(&data, body, point, force, torque, &mut out);
            for d in 0..nv {
                let expected: f64 = (0..3).map(|r| jacp[r * nv + d] * force[r] + jacr[r * nv + d] * torque[r]).sum();
                prop_assert!((out[d] - expected).abs() < 1e-12);
            }
        }
        // xfrc_applied enters qfrc_smooth as Jᵀ(COM) wrench.
        let body = 1 + rng.below(model.nbody - 1);
        let wrench = Wrench { force: rng.vec3(2.0), torque: rng.vec3(2.0) };
        data.xfrc_applied[body] = wrench;
        model.smooth_acceleration(&mut data);
        let mut expected = vec![0.0; nv];
        model.add_jacobian_transpose(&data, body, data.xipos[body], wrench.force, wrench.torque, &mut expected);
        for (d, jt) in expected.iter().enumerate() {
            let base = data.qfrc_applied[d] + data.qfrc_passive[d] + data.qfrc_actuator[d] - data.qfrc_bias[d];
            prop_assert!((data.qfrc_smooth[d] - base - jt).abs() < 1e-12);
        }
        let mut back = vec![0.0; nv];
        model.mul_m(&data, &data.qacc_smooth, &mut back);
        prop_assert!(rel_err(&back, &data.qfrc_smooth) < 1e-10);
    }
}

/// Bodies on a fixed base with their inertia frame at the body frame and joints at the origin: with axes along the
/// frame's axes (and at most one rotation, no repeated slide axis) they are simple, and their constant diagonal
/// `M` equals the general composite-rigid-body `M` at every pose, and the factor, solve and product over their
/// diagonal-only rows match dense linear algebra on it; the other joint sets are not simple.
#[test]
fn simple_bodies_have_the_general_mass_matrix() {
    use common::Rng;
    use signorini_model::{BodySpec, InertialSpec, JointKind, JointSpec, ModelSpec};
    let axes = [DVec3::X, DVec3::Y, DVec3::Z];
    let mut rng = Rng(7);
    // (joints as (kind, axis index or usize::MAX for a tilted axis), expected simple)
    let cases: &[(&[(JointKind, usize)], bool)] = &[
        (&[(JointKind::Free, 0)], true),
        (&[(JointKind::Ball, 0)], true),
        (&[(JointKind::Hinge, 1)], true),
        (&[(JointKind::Slide, 2), (JointKind::Slide, 0), (JointKind::Hinge, 1)], true),
        (&[(JointKind::Slide, 0), (JointKind::Ball, 0)], true),
        (&[(JointKind::Hinge, usize::MAX)], false),
        (&[(JointKind::Hinge, 0), (JointKind::Hinge, 1)], false),
        (&[(JointKind::Slide, 1), (JointKind::Slide, 1)], false),
    ];
    for &(joints, expected) in cases {
        let mut spec = ModelSpec::default();
        // A fixed child of the world as the base, so that both kinds of fixed base are covered.
        let mut base = BodySpec::new("base", 0, rng.vec3(0.5), rng.quat());
        base.inertial = InertialSpec {
            mass: 1.0,
            inertia: DVec3::splat(0.1),
            pos: DVec3::ZERO,
            quat: glam::DQuat::IDENTITY,
        };
        let base = spec.add_body(base);
        let parent = if joints.iter().any(|j| j.0 == JointKind::Free) { 0 } else { base };
        let mut body = BodySpec::new("body", parent, rng.vec3(0.5), rng.quat());
        body.inertial = InertialSpec {
            mass: rng.range(0.5, 3.0),
            inertia: DVec3::new(0.5 + rng.unit(), 0.5 + rng.unit(), 0.5 + rng.unit()) * 0.1,
            pos: DVec3::ZERO,
            quat: glam::DQuat::IDENTITY,
        };
        for (k, &(kind, axis)) in joints.iter().enumerate() {
            let axis = axes.get(axis).copied().unwrap_or(DVec3::new(1.0, 1.0, 0.0));
            body.joints.push(JointSpec {
                axis,
                armature: rng.range(0.0, 0.1),
                ..JointSpec::new(format!("j{k}"), kind)
            });
        }
        spec.add_body(body);
        let model = Model::compile(spec).expect("compiles");
        assert!(model.dof_simple.iter().all(|&s| s == expected), "{joints:?}: {:?}", model.dof_simple);
        let mut general = model.clone();
        general.dof_simple.fill(false);
        for _ in 0..20 {
            let mut data = Data::new(&model);
            let (mut qpos, mut qvel) = (data.qpos.clone(), data.qvel.clone());
            common::random_state(&mut rng, &model, &mut qpos, &mut qvel);
            data.qpos = qpos;
            let mut reference = data.clone();
            model.forward_kinematics(&mut data);
            model.mass_matrix(&mut data);
            general.forward_kinematics(&mut reference);
            general.mass_matrix(&mut reference);
            let (ours, full) = (model.dense_qm(&data), general.dense_qm(&reference));
            assert!(rel_err(&ours, &full) < 1e-12, "{joints:?}: {ours:?} vs {full:?}");
            // The factor, solve and product that read only `dof_rownnz` entries.
            let nv = model.nv;
            model.factor_m(&mut data).expect("factor");
            let b: Vec<f64> = (0..nv).map(|_| rng.range(-1.0, 1.0)).collect();
            let mut x = b.clone();
            model.solve_m(&data, &mut x);
            let dense = cholesky_solve(&cholesky(&full, nv).expect("spd"), nv, &b);
            assert!(rel_err(&x, &dense) < 1e-12, "{joints:?}: solve {x:?} vs {dense:?}");
            let mut mx = vec![0.0; nv];
            model.mul_m(&data, &b, &mut mx);
            assert!(rel_err(&mx, &mat_vec(&full, nv, &b)) < 1e-12, "{joints:?}: product");
        }
    }
}

/// `dof_treeid` against the definition (a root dof opens the next tree, in dof order; every other dof is in its
/// parent's tree), and `M`'s sparsity never links two trees.
#[test]
fn tree_ids_follow_the_dof_parents() {
    for seed in 1..20u64 {
        let mut rng = common::Rng(seed);
        let model = common::random_model(&mut rng, 2 + seed as usize % 9);
        let mut next = 0;
        for d in 0..model.nv {
            match model.dof_parentid[d] {
                None => {
                    assert_eq!(model.dof_treeid[d], next, "seed {seed}: root dof {d} opens tree {next}");
                    next += 1;
                }
                Some(p) => assert_eq!(model.dof_treeid[d], model.dof_treeid[p], "seed {seed}: dof {d}"),
            }
        }
        assert_eq!(model.ntree, next, "seed {seed}");
        // M is block-diagonal across trees: no stored entry of a row leaves its tree.
        for d in 0..model.nv {
            for &c in &model.dof_colind[model.dof_madr[d]..model.dof_madr[d + 1]] {
                assert_eq!(
                    model.dof_treeid[c], model.dof_treeid[d],
                    "seed {seed}: M[{d}][{c}] crosses trees"
                );
            }
        }
    }
}

/// `∂qfrc_bias/∂q̇` of the tangent RNE pass equals central differences of `qfrc_bias`, on random trees with every
/// joint kind.
#[test]
fn bias_velocity_derivative_matches_finite_differences() {
    let mut rng = Rng(11);
    for seed in 0..12u64 {
        let model = random_model(&mut rng, 2 + seed as usize % 7);
        let nv = model.nv;
        if nv == 0 {
            continue;
        }
        let mut d = signorini_model::Data::new(&model);
        let (mut qpos, mut qvel) = (d.qpos.clone(), d.qvel.clone());
        random_state(&mut rng, &model, &mut qpos, &mut qvel);
        d.qpos = qpos;
        d.qvel = qvel;
        model.forward_kinematics(&mut d);
        model.bias(&mut d);
        // The dof–dof layout's entries, negated back into a dense `∂bias/∂q̇`; entries it does not store (dofs
        // on no common chain) must be zero.
        let layout = &model.derivative_layout;
        let mut sparse = vec![0.0; layout.nnz()];
        model.sub_bias_velocity_derivative(&d, &mut Default::default(), &mut sparse);
        let mut ours = vec![0.0; nv * nv];
        for i in 0..nv {
            for (e, &c) in layout.row(i).iter().enumerate() {
                ours[i * nv + c] = -sparse[layout.dof_adr[i] + e];
            }
        }
        let eps = 1e-6;
        for j in 0..nv {
            let bump = |s: f64| {
                let mut e = d.clone();
                e.qvel[j] += s;
                model.bias(&mut e);
                e.qfrc_bias.clone()
            };
            let (plus, minus) = (bump(eps), bump(-eps));
            for i in 0..nv {
                let fd = (plus[i] - minus[i]) / (2.0 * eps);
                let a = ours[i * nv + j];
                assert!(
                    (a - fd).abs() < 1e-6 * fd.abs().max(1.0),
                    "seed {seed}: ∂bias[{i}]/∂q̇[{j}] {a} vs {fd}"
                );
            }
        }
    }
}
