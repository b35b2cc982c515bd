//! Row layout, Jacobians against finite differences and velocities, contact cones, regularizers and reuse.

mod common;

use common::*;
use glam::{DQuat, DVec3};
use signorini_collision::contact_set::ContactSet;
use signorini_constraints::frame::native_tangents;
use signorini_constraints::{
    AssemblyScratch, ConstraintAssembler, ConstraintOptions, ConstraintRows, FrictionCone, RowKind,
};
use signorini_model::{BodySpec, Data, InertialSpec, JointSpec, Model};

fn assemble(model: &Model, d: &Data, cs: &ContactSet, options: ConstraintOptions) -> ConstraintRows {
    let asm = ConstraintAssembler::new(model, options).expect("valid");
    let mut rows = ConstraintRows::new();
    asm.assemble(model, d, cs, &mut AssemblyScratch::default(), &mut rows).expect("assembles");
    rows
}

/// The elliptic cone with torsional and rolling friction (six rows per contact).
fn elliptic_with_spin_and_roll() -> ConstraintOptions {
    ConstraintOptions {
        friction_cone: FrictionCone::Elliptic,
        enable_torsional_friction: true,
        enable_rolling_friction: true,
        ..Default::default()
    }
}

/// Equality and limit rows: `J q̇` equals the central difference of `pos` along `q̇`, and `vel` stores it.
#[test]
fn equality_and_limit_jacobians_match_finite_differences() {
    let model = model();
    let d = state(&model);
    let none = ContactSet::new();
    let options = ConstraintOptions::default();
    let rows = assemble(&model, &d, &none, options);
    let h = 1e-6;
    let plus = assemble(&model, &advanced(&model, &d, h), &none, options);
    let minus = assemble(&model, &advanced(&model, &d, -h), &none, options);
    assert_eq!(rows.kind, plus.kind);
    assert_eq!(rows.kind, minus.kind);
    assert_eq!(rows.count(RowKind::EqualityConnect), 3);
    assert_eq!(rows.count(RowKind::EqualityWeld), 6);
    assert_eq!(rows.count(RowKind::EqualityJoint), 1);
    assert_eq!(rows.count(RowKind::LimitJoint), 2);
    for i in 0..rows.len() {
        if rows.kind[i] == RowKind::FrictionLoss {
            continue;
        }
        let fd = (plus.pos[i] - minus.pos[i]) / (2.0 * h);
        let jv = rows.row_dot(i, &d.qvel);
        assert_close(jv, fd, 1e-6, &format!("row {i} ({:?})", rows.kind[i]));
        assert_close(rows.vel[i], jv, 1e-12, "vel = J q̇");
    }
    // The constraints are violated at this state (the anchors were set at qpos0).
    assert!(rows.pos[..3].iter().any(|p| p.abs() > 1e-3));
}

#[test]
fn connect_is_the_difference_of_anchor_point_jacobians() {
    let model = model();
    let d = state(&model);
    let rows = assemble(&model, &d, &ContactSet::new(), ConstraintOptions::default());
    // World anchors from the row's violation and body 1's anchor: p1 − p2 = pos.
    let p1 = d.xpos[LINK2] + d.xquat[LINK2] * DVec3::new(0.1, 0.2, -0.1);
    let p2 = p1 - DVec3::new(rows.pos[0], rows.pos[1], rows.pos[2]);
    let nv = model.nv;
    let (mut jp1, mut jr1, mut jp2, mut jr2) =
        (vec![0.0; 3 * nv], vec![0.0; 3 * nv], vec![0.0; 3 * nv], vec![0.0; 3 * nv]);
    model.jacobian_point(&d, LINK2, p1, &mut jp1, &mut jr1);
    model.jacobian_point(&d, BALL, p2, &mut jp2, &mut jr2);
    for k in 0..3 {
        assert_eq!(rows.kind[k], RowKind::EqualityConnect);
        let row = dense(&rows, k, nv);
        for dof in 0..nv {
            assert_close(row[dof], jp1[k * nv + dof] - jp2[k * nv + dof], 1e-12, "connect column");
        }
    }
}

#[test]
fn limit_rows_are_signed_unit_vectors_and_friction_rows_too() {
    let model = model();
    let d = state(&model);
    let rows = assemble(&model, &d, &ContactSet::new(), ConstraintOptions::default());
    let limits: Vec<usize> = (0..rows.len()).filter(|&i| rows.kind[i] == RowKind::LimitJoint).collect();
    // h1 = 0.6 > 0.5: upper limit, J = −e_0; slide = −0.15 < −0.1: lower limit, J = +e_2.
    assert_eq!(rows.jacobian_row(limits[0]), (&[0u32][..], &[-1.0][..]));
    assert_close(rows.pos[limits[0]], -0.1, 1e-12, "h1 upper violation");
    assert_eq!(rows.jacobian_row(limits[1]), (&[2u32][..], &[1.0][..]));
    assert_close(rows.pos[limits[1]], -0.05, 1e-12, "slide lower violation");
    let f = (0..rows.len()).find(|&i| rows.kind[i] == RowKind::FrictionLoss).expect("friction row");
    assert_eq!(rows.jacobian_row(f), (&[0u32][..], &[1.0][..]));
    assert_eq!(rows.frictionloss[f], 0.3);
    assert_eq!(rows.imp[f], 0.9, "friction rows use imp(0) = dmin");
    let sol_b = 2.0 / (0.95 * 0.02);
    assert_close(rows.aref[f], -sol_b * d.qvel[0], 1e-12, "friction aref = −b q̇ (k term 0)");
}

/// Sphere on the floor: the normal row's `J q̇` is the rate of the analytic separation `z − r`, and the tangent
/// rows give the relative tangential velocity.
#[test]
fn contact_normal_row_is_the_separation_rate() {
    let model = model();
    let d = state(&model);
    let contact = |d: &Data| {
        let mut cs = ContactSet::new();
        let c = d.xpos[BALL];
        let pen = RADIUS - c.z;
        push_contact(&mut cs, (0, BALL), DVec3::new(c.x, c.y, -0.5 * pen), DVec3::NEG_Z, pen, 3);
        cs
    };
    let mut d = d;
    d.qpos[5] = 0.08;
    model.forward_kinematics(&mut d);
    let options = ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..ConstraintOptions::default() };
    let rows = assemble(&model, &d, &contact(&d), options);
    let first = rows.contact_row_start[0];
    assert_eq!(rows.contact_nrows[0], 3);
    let h = 1e-6;
    let sep = |d: &Data| d.xpos[BALL].z - RADIUS;
    let fd = (sep(&advanced(&model, &d, h)) - sep(&advanced(&model, &d, -h))) / (2.0 * h);
    assert_close(rows.row_dot(first, &d.qvel), fd, 1e-6, "normal row");
    assert_close(rows.pos[first], -0.02, 1e-12, "dist = −penetration");
    let p = contact(&d).position[0];
    let (v, _) = model.point_velocity(&d, BALL, p, &d.qvel);
    let (t1, t2) = native_tangents(DVec3::NEG_Z);
    assert_close(rows.row_dot(first + 1, &d.qvel), -v.dot(t1), 1e-12, "t1 row");
    assert_close(rows.row_dot(first + 2, &d.qvel), -v.dot(t2), 1e-12, "t2 row");
}

/// Two moving bodies, including a pair in the same tree (shared dofs cancel): `J_n q̇ = (v_A − v_B)·n`.
#[test]
fn contact_rows_between_moving_bodies() {
    let model = model();
    let d = state(&model);
    let p = DVec3::new(0.7, 0.2, 0.9);
    let n = DVec3::new(0.3, -0.5, 0.8).normalize();
    let mut cs = ContactSet::new();
    push_contact(&mut cs, (BALL, LINK2), p, n, 0.01, 3);
    push_contact(&mut cs, (LINK2, LINK1), p, n, 0.01, 3);
    let options = ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..ConstraintOptions::default() };
    let rows = assemble(&model, &d, &cs, options);
    for (c, (a, b)) in [(BALL, LINK2), (LINK2, LINK1)].into_iter().enumerate() {
        let (va, _) = model.point_velocity(&d, a, p, &d.qvel);
        let (vb, _) = model.point_velocity(&d, b, p, &d.qvel);
        let first = rows.contact_row_start[c];
        assert_close(rows.row_dot(first, &d.qvel), (va - vb).dot(n), 1e-12, "normal row");
    }
    let second = rows.contact_row_start[1];
    let (dofs, _) = rows.jacobian_row(second);
    assert!(!dofs.contains(&0), "link1's hinge is shared by both bodies and cancels: {dofs:?}");
}

#[test]
fn pyramid_edges_are_normal_plus_minus_mu_tangent() {
    let model = model();
    let d = state(&model);
    let mut cs = ContactSet::new();
    push_contact(
        &mut cs,
        (BALL, LINK2),
        DVec3::new(0.7, 0.2, 0.9),
        DVec3::new(0.3, -0.5, 0.8).normalize(),
        0.01,
        3,
    );
    let ell = assemble(
        &model,
        &d,
        &cs,
        ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..Default::default() },
    );
    let pyr = assemble(&model, &d, &cs, ConstraintOptions::default());
    assert_eq!(pyr.contact_nrows, vec![4]);
    assert_eq!(pyr.count(RowKind::ContactPyramidal), 4);
    let (e0, p0) = (ell.contact_row_start[0], pyr.contact_row_start[0]);
    let nv = model.nv;
    let (jn, jt1, jt2) = (dense(&ell, e0, nv), dense(&ell, e0 + 1, nv), dense(&ell, e0 + 2, nv));
    let mu = 0.8;
    for (i, (jt, s)) in [(&jt1, 1.0), (&jt1, -1.0), (&jt2, 1.0), (&jt2, -1.0)].into_iter().enumerate() {
        let row = dense(&pyr, p0 + i, nv);
        for k in 0..nv {
            assert_close(row[k], jn[k] + s * mu * jt[k], 1e-12, "edge");
        }
        assert_eq!(pyr.pos[p0 + i], -0.01);
        assert_eq!(pyr.mu[p0 + i], mu);
        assert_eq!(pyr.cone[p0 + i], Some(0));
    }
    // Native pyramid regularizer (impratio 1): iw (1 + μ²) 2μ² (1 − imp)/imp.
    let iw = model.body_invweight0[BALL][0] + model.body_invweight0[LINK2][0];
    let imp = pyr.imp[p0];
    assert_close(pyr.r[p0], iw * (1.0 + mu * mu) * 2.0 * mu * mu * (1.0 - imp) / imp, 1e-12, "R pyramid");
    // Elliptic: R0 from the normal, friction R0/impratio (auto 100), cone μ/√impratio.
    assert_close(ell.r[e0], iw * (1.0 - imp) / imp, 1e-12, "R0");
    assert_close(ell.r[e0 + 1], ell.r[e0] / 100.0, 1e-12, "R1");
    assert_close(ell.contact_mu[0], mu / 10.0, 1e-12, "cone μ");
    assert_eq!(ell.pos[e0 + 1], 0.0);
    assert_eq!(ell.kind[e0..e0 + 3], [RowKind::ContactElliptic; 3]);
}

#[test]
fn rows_per_contact_follow_the_cone_and_condim() {
    let model = model();
    let d = state(&model);
    let mut cs = ContactSet::new();
    for condim in [1, 3, 4, 6] {
        push_contact(&mut cs, (0, BALL), DVec3::new(1.0, 0.5, 0.0), DVec3::NEG_Z, 0.001, condim);
    }
    let count = |o: ConstraintOptions| assemble(&model, &d, &cs, o).contact_nrows;
    let muj = ConstraintOptions::mujoco();
    assert_eq!(count(muj), vec![1, 4, 6, 10]);
    assert_eq!(count(ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..muj }), vec![1, 3, 4, 6]);
    let native = ConstraintOptions::default();
    assert_eq!(count(native), vec![4; 4]);
    let tors = ConstraintOptions { enable_torsional_friction: true, ..native };
    assert_eq!(count(tors), vec![6; 4]);
    let roll = ConstraintOptions { enable_rolling_friction: true, ..tors };
    assert_eq!(count(roll), vec![10; 4]);
    assert_eq!(count(ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..roll }), vec![6; 4]);
    let ell = assemble(&model, &d, &cs, ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..roll });
    // Spin and roll rows: R = R1 μ²/μ_k².
    let e0 = ell.contact_row_start[0];
    let (r1, mu) = (ell.r[e0 + 1], 0.8);
    assert_close(ell.r[e0 + 2], r1, 1e-12, "t2 R");
    assert_close(ell.r[e0 + 3], r1 * mu * mu / (0.02 * 0.02), 1e-12, "spin R");
    assert_close(ell.r[e0 + 4], r1 * mu * mu / (0.001 * 0.001), 1e-12, "roll R");
}

#[test]
fn row_order_and_positive_regularizers() {
    let model = model();
    let d = state(&model);
    let mut cs = ContactSet::new();
    push_contact(&mut cs, (0, BALL), DVec3::new(1.0, 0.5, 0.0), DVec3::NEG_Z, 0.001, 3);
    push_contact(&mut cs, (BALL, LINK2), DVec3::new(0.7, 0.2, 0.9), DVec3::Z, 0.002, 3);
    for cone in [FrictionCone::Pyramidal, FrictionCone::Elliptic] {
        for preset in [ConstraintOptions::default(), ConstraintOptions::mujoco()] {
            let o = ConstraintOptions { friction_cone: cone, ..preset };
            let rows = assemble(&model, &d, &cs, o);
            // Equalities, friction loss, then contacts and limits: MuJoCo's order (limits first) in its preset.
            let (contact_rank, limit_rank) = if o.limits_before_contacts { (3, 2) } else { (2, 3) };
            let rank = |k: RowKind| match k {
                k if k.is_equality() => 0,
                RowKind::FrictionLoss => 1,
                k if k.is_contact() => contact_rank,
                _ => limit_rank,
            };
            let ranks: Vec<u8> = rows.kind.iter().map(|&k| rank(k)).collect();
            assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
            assert_eq!(ranks.iter().filter(|&&r| r == 0).count(), 10);
            assert_eq!(ranks.iter().filter(|&&r| r == 1).count(), 1);
            assert_eq!(ranks.iter().filter(|&&r| r == limit_rank).count(), 2);
            assert_eq!(rows.jac_start.len(), rows.len() + 1);
            for i in 0..rows.len() {
                assert!(rows.r[i] > 0.0 && rows.r[i].is_finite(), "R of row {i}");
                assert!(rows.d[i] > 0.0 && rows.d[i].is_finite(), "D of row {i}");
                assert_close(rows.d[i] * rows.r[i], 1.0, 1e-15, "D = 1/R");
                assert!(rows.aref[i].is_finite());
            }
        }
    }
}

#[test]
fn assembling_again_does_not_reallocate() {
    let model = model();
    let d = state(&model);
    let mut cs = ContactSet::new();
    push_contact(&mut cs, (0, BALL), DVec3::new(1.0, 0.5, 0.0), DVec3::NEG_Z, 0.001, 3);
    push_contact(&mut cs, (BALL, LINK2), DVec3::new(0.7, 0.2, 0.9), DVec3::Z, 0.002, 3);
    let asm = ConstraintAssembler::new(&model, ConstraintOptions::default()).expect("valid");
    let mut rows = ConstraintRows::new();
    let mut scratch = AssemblyScratch::new();
    asm.assemble(&model, &d, &cs, &mut scratch, &mut rows).expect("first");
    let caps = |r: &ConstraintRows| {
        [
            r.kind.capacity(),
            r.jac_start.capacity(),
            r.jac_dof.capacity(),
            r.jac_val.capacity(),
            r.pos.capacity(),
            r.aref.capacity(),
            r.r.capacity(),
            r.d.capacity(),
            r.cone.capacity(),
            r.contact_row_start.capacity(),
        ]
    };
    let (before, ptr) = (caps(&rows), rows.jac_val.as_ptr());
    let first = rows.clone();
    let d2 = advanced(&model, &d, 1e-3);
    asm.assemble(&model, &d2, &cs, &mut scratch, &mut rows).expect("second");
    assert_eq!(caps(&rows), before);
    assert_eq!(rows.jac_val.as_ptr(), ptr);
    assert_eq!(rows.len(), first.len());
    asm.assemble(&model, &d, &cs, &mut scratch, &mut rows).expect("third");
    assert_eq!(rows, first, "assembly is deterministic");
    asm.assemble(&model, &d, &cs, &mut AssemblyScratch::default(), &mut rows).expect("fresh scratch");
    assert_eq!(rows, first, "the scratch carries nothing between calls");
}

/// Resting contact: `aref = k·imp·p` with `k = 1/(dmax² τ² ζ²)`, τ floored at 2h.
#[test]
fn resting_contact_aref() {
    let model = model();
    let mut d = state(&model);
    d.qvel.fill(0.0);
    let mut cs = ContactSet::new();
    let pen = 2e-4;
    push_contact(&mut cs, (0, BALL), DVec3::new(1.0, 0.5, 0.0), DVec3::NEG_Z, pen, 3);
    for (timestep, tau) in [(0.002, 0.02), (0.02, 0.04)] {
        let o = ConstraintOptions { timestep, friction_cone: FrictionCone::Elliptic, ..Default::default() };
        let rows = assemble(&model, &d, &cs, o);
        let i = rows.contact_row_start[0];
        let (dmax, x) = (0.95, pen / 0.001);
        let imp = 0.9 + (x * x / 0.5) * (dmax - 0.9);
        assert_close(rows.imp[i], imp, 1e-12, "imp");
        let k = 1.0 / (dmax * dmax * tau * tau);
        assert_close(rows.aref[i], k * imp * pen, 1e-12, "aref");
        assert!(rows.aref[i] > 0.0, "pushes apart");
        assert_eq!(rows.aref[i + 1], 0.0, "friction rows: no position term at rest");
    }
}

/// Spin and rolling rows measure the relative angular velocity about `n`, `d₁`, `d₂`.
#[test]
fn spin_and_roll_rows_are_relative_angular_velocities() {
    let model = model();
    let d = state(&model);
    let p = DVec3::new(0.7, 0.2, 0.9);
    let n = DVec3::new(0.3, -0.5, 0.8).normalize();
    let mut cs = ContactSet::new();
    push_contact(&mut cs, (BALL, LINK2), p, n, 0.01, 6);
    let rows = assemble(&model, &d, &cs, elliptic_with_spin_and_roll());
    let (_, wa) = model.point_velocity(&d, BALL, p, &d.qvel);
    let (_, wb) = model.point_velocity(&d, LINK2, p, &d.qvel);
    let (t1, t2) = native_tangents(n);
    let e0 = rows.contact_row_start[0];
    for (k, axis) in [(3, n), (4, t1), (5, t2)] {
        assert_close(rows.row_dot(e0 + k, &d.qvel), (wa - wb).dot(axis), 1e-12, "angular row");
    }
}

/// The MuJoCo preset measures `imp` and `aref` from the contact's margin (MuJoCo 4.0's `includemargin`).
#[test]
fn mujoco_preset_uses_the_contact_margin() {
    let model = model();
    let mut d = state(&model);
    d.qvel.fill(0.0);
    let mut cs = ContactSet::new();
    push_contact(&mut cs, (0, BALL), DVec3::new(1.0, 0.5, 0.0), DVec3::NEG_Z, 2e-4, 3);
    // MuJoCo 4.0: `includemargin` is the margin; the gap only widens detection.
    cs.margin[0] = 6e-4;
    cs.gap[0] = 1e-3;
    let o = ConstraintOptions { timestep: 0.002, ..ConstraintOptions::mujoco() };
    let rows = assemble(&model, &d, &cs, o);
    let i = rows.contact_row_start[0];
    assert_close(rows.margin[i], 6e-4, 1e-12, "includemargin");
    let x: f64 = -2e-4 - 6e-4;
    let xi = x.abs() / 0.001;
    let imp = 0.9 + (1.0 - (1.0 - xi).powi(2) / 0.5) * 0.05;
    assert_close(rows.imp[i], imp, 1e-12, "imp at |dist − margin|");
    let k = 1.0 / (0.95f64 * 0.95 * 0.02 * 0.02);
    assert_close(rows.aref[i], -k * imp * x, 1e-12, "aref");
}

/// The assembler's runs of rows over the same dofs cover every row in order, each run's rows have the same dofs,
/// and the runs are those of a contact, an equality, or a single row (native empty rows of zero coefficients start
/// their own runs).
#[test]
fn dof_runs_cover_the_rows_and_share_their_dofs() {
    let model = model();
    let d = state(&model);
    let mut cs = ContactSet::new();
    push_contact(&mut cs, (0, BALL), DVec3::new(1.0, 0.5, 0.0), DVec3::NEG_Z, 0.001, 3);
    push_contact(&mut cs, (BALL, LINK2), DVec3::new(0.7, 0.2, 0.9), DVec3::Z, 0.002, 6);
    for cone in [FrictionCone::Pyramidal, FrictionCone::Elliptic] {
        for preset in [ConstraintOptions::default(), ConstraintOptions::mujoco()] {
            for enable_torsional_friction in [false, true] {
                let o = ConstraintOptions { friction_cone: cone, enable_torsional_friction, ..preset };
                let rows = assemble(&model, &d, &cs, o);
                let mut next = 0;
                for &(first, n) in &rows.dof_runs {
                    assert_eq!(first, next, "runs are consecutive");
                    assert!(n >= 1);
                    for i in first..first + n {
                        assert!(rows.same_dofs(first, i), "row {i} of run {first}");
                        assert_eq!(rows.id[i], rows.id[first]);
                        assert_eq!(rows.kind[i], rows.kind[first]);
                    }
                    next = first + n;
                }
                assert_eq!(next, rows.len(), "runs cover the rows");
                let mut groups = Vec::new();
                rows.dof_groups(&mut groups);
                assert_eq!(groups, rows.dof_runs);
                // The connect equality (3 rows) and the weld (6 rows) are one run each.
                assert!(
                    rows.dof_runs.iter().any(|&(f, n)| rows.kind[f] == RowKind::EqualityConnect && n == 3)
                );
                assert!(rows.dof_runs.iter().any(|&(f, n)| rows.kind[f] == RowKind::EqualityWeld && n == 6));
                // Each contact's rows are one run unless it has empty rows.
                for c in 0..cs.len() {
                    let (start, nrows) = (rows.contact_row_start[c], rows.contact_nrows[c]);
                    let empty = (start..start + nrows).any(|i| rows.jacobian_row(i).0.is_empty());
                    assert_eq!(rows.dof_runs.contains(&(start, nrows)), !empty, "contact {c} with {o:?}");
                }
            }
        }
    }
}

/// Every contact row (elliptic, condim 6: normal, tangents, spin, roll) equals the dense point Jacobians
/// `(J_A(p) − J_B(p))` projected on its direction, for free bodies (whose six dofs the assembler treats as one
/// block) with rotated frames and offset centres of mass, against a hinge–slide chain and the world.
#[test]
fn contact_rows_equal_the_dense_point_jacobians() {
    let mut spec = spec();
    let mut block = BodySpec::new("block", 0, DVec3::new(-0.4, 0.3, 0.6), DQuat::from_rotation_y(0.4));
    block.inertial = InertialSpec {
        mass: 1.5,
        inertia: DVec3::new(0.01, 0.02, 0.025),
        pos: DVec3::new(0.1, -0.05, 0.02),
        quat: DQuat::from_rotation_x(0.7),
    };
    block.joints.push(JointSpec::free("block"));
    spec.add_body(block);
    let model = Model::compile(spec).expect("model compiles");
    const BLOCK: usize = 4;
    let mut d = Data::new(&model);
    let base = state(&self::model());
    d.qpos[..10].copy_from_slice(&base.qpos);
    d.qvel[..9].copy_from_slice(&base.qvel);
    let q = DQuat::from_euler(glam::EulerRot::ZYX, -0.7, 0.4, 1.1);
    d.qpos[10..13].copy_from_slice(&[-0.3, 0.2, 0.7]);
    d.qpos[13..17].copy_from_slice(&[q.w, q.x, q.y, q.z]);
    d.qvel[9..15].copy_from_slice(&[0.4, -0.2, 0.1, 1.3, -0.8, 0.6]);
    model.forward_kinematics(&mut d);

    let p = DVec3::new(0.2, -0.1, 0.8);
    let n = DVec3::new(-0.2, 0.6, 0.7).normalize();
    let pairs = [(BLOCK, BALL), (BALL, BLOCK), (BLOCK, LINK2), (LINK2, BLOCK), (BLOCK, 0), (0, BALL)];
    let mut cs = ContactSet::new();
    for &pair in &pairs {
        push_contact(&mut cs, pair, p, n, 0.01, 6);
    }
    let rows = assemble(&model, &d, &cs, elliptic_with_spin_and_roll());
    let nv = model.nv;
    let jac = |body: usize| {
        let (mut jp, mut jr) = (vec![0.0; 3 * nv], vec![0.0; 3 * nv]);
        model.jacobian_point(&d, body, p, &mut jp, &mut jr);
        (jp, jr)
    };
    let (t1, t2) = native_tangents(n);
    for (c, &(a, b)) in pairs.iter().enumerate() {
        let ((pa, ra), (pb, rb)) = (jac(a), jac(b));
        let first = rows.contact_row_start[c];
        let directions = [(n, false), (t1, false), (t2, false), (n, true), (t1, true), (t2, true)];
        for (k, &(axis, angular)) in directions.iter().enumerate() {
            let row = dense(&rows, first + k, nv);
            let (ja, jb) = if angular { (&ra, &rb) } else { (&pa, &pb) };
            for (dof, &value) in row.iter().enumerate() {
                let expected: f64 = (0..3).map(|r| axis[r] * (ja[r * nv + dof] - jb[r * nv + dof])).sum();
                assert_close(value, expected, 1e-12, &format!("contact {c} row {k} dof {dof}"));
            }
            assert_close(rows.vel[first + k], rows.row_dot(first + k, &d.qvel), 1e-12, "stored J q̇");
        }
    }
}
