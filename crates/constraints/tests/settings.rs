//! Each setting of `ConstraintOptions` flipped alone from the default: the rows show the rule it names.

mod common;

use common::*;
use glam::DVec3;
use signorini_collision::contact_set::ContactSet;
use signorini_constraints::frame::{mujoco_row_tangents, native_tangents};
use signorini_constraints::{
    AssemblyScratch, ConstraintAssembler, ConstraintOptions, ConstraintRows, ContactDimension,
    EllipticRegularizer, FrictionCone, ImpedanceCurve, JointLimitSides, PyramidRegularizer, RowKind,
    TangentFrame, ZeroRotationalFriction,
};
use signorini_model::{Data, Model};

fn assemble(model: &Model, d: &Data, cs: &ContactSet, options: ConstraintOptions) -> ConstraintRows {
    let asm = ConstraintAssembler::new(model, options).expect("valid");
    let mut rows = ConstraintRows::new();
    asm.assemble(model, d, cs, &mut AssemblyScratch::default(), &mut rows).expect("assembles");
    rows
}

/// One ball–floor contact of the given `condim`.
fn floor_contact(condim: u8) -> ContactSet {
    let mut cs = ContactSet::new();
    push_contact(&mut cs, (0, BALL), DVec3::new(1.0, 0.5, 0.0), DVec3::NEG_Z, 2e-4, condim);
    cs
}

fn elliptic() -> ConstraintOptions {
    ConstraintOptions { friction_cone: FrictionCone::Elliptic, ..Default::default() }
}

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn the_assembler_is_send_and_sync_configuration() {
    assert_send_sync::<ConstraintAssembler>();
    assert_send_sync::<AssemblyScratch>();
    assert_send_sync::<ConstraintOptions>();
}

#[test]
fn the_mujoco_preset_sets_every_rule_and_nothing_else() {
    let (native, mujoco) = (ConstraintOptions::default(), ConstraintOptions::mujoco());
    let expected = ConstraintOptions {
        elliptic_auto_impratio: 1.0,
        contact_dimension: ContactDimension::PerContactCondim,
        tangent_frame: TangentFrame::MakeFrame,
        pyramid_regularizer: PyramidRegularizer::LeadingFactorScaled,
        elliptic_regularizer: EllipticRegularizer::ScaledToFirstSliding,
        zero_rotational_friction: ZeroRotationalFriction::NormalEdges,
        include_contact_margin: true,
        frictionloss_threshold: 0.0,
        joint_limit_sides: JointLimitSides::EachViolated,
        limit_margins: true,
        impedance_curve: ImpedanceCurve::FlatAtZeroWidth,
        direct_solref: true,
        equality_velocity_bias: true,
        mujoco_sums: true,
        limits_before_contacts: true,
        contact_rows_at_centre_of_mass: false,
        ..native
    };
    assert_eq!(mujoco, expected);
}

/// `contact_dimension`: the options' `3 (+1) (+2)` for every contact, or each contact's own `condim`.
#[test]
fn contact_dimension_picks_the_condim_source() {
    let model = model();
    let d = state(&model);
    let mut cs = ContactSet::new();
    for condim in [1, 3, 4, 6] {
        push_contact(&mut cs, (0, BALL), DVec3::new(1.0, 0.5, 0.0), DVec3::NEG_Z, 0.001, condim);
    }
    let native = ConstraintOptions::default();
    let per_contact = ConstraintOptions { contact_dimension: ContactDimension::PerContactCondim, ..native };
    let from_options = assemble(&model, &d, &cs, native);
    assert_eq!(from_options.contact_dim, vec![3; 4]);
    assert_eq!(from_options.contact_nrows, vec![4; 4]);
    let own = assemble(&model, &d, &cs, per_contact);
    assert_eq!(own.contact_dim, vec![1, 3, 4, 6]);
    assert_eq!(own.contact_nrows, vec![1, 4, 6, 10]);
    assert_eq!(own.kind[own.contact_row_start[0]], RowKind::ContactFrictionless);
    // The torsional/rolling options are ignored with per-contact condim.
    let rolling =
        ConstraintOptions { enable_torsional_friction: true, enable_rolling_friction: true, ..per_contact };
    assert_eq!(assemble(&model, &d, &cs, rolling).contact_nrows, vec![1, 4, 6, 10]);
}

/// `tangent_frame`: the elliptic friction rows measure the relative velocity along `d₁`, `d₂` of the chosen
/// construction.
#[test]
fn tangent_frame_orients_the_friction_rows() {
    let model = model();
    let d = state(&model);
    let n = DVec3::new(0.3, -0.5, 0.8).normalize();
    let p = DVec3::new(0.7, 0.2, 0.9);
    let mut cs = ContactSet::new();
    push_contact(&mut cs, (BALL, LINK2), p, n, 0.01, 3);
    let (va, _) = model.point_velocity(&d, BALL, p, &d.qvel);
    let (vb, _) = model.point_velocity(&d, LINK2, p, &d.qvel);
    for (frame, (t1, t2)) in
        [(TangentFrame::Orthogonals, native_tangents(n)), (TangentFrame::MakeFrame, mujoco_row_tangents(n))]
    {
        let rows = assemble(&model, &d, &cs, ConstraintOptions { tangent_frame: frame, ..elliptic() });
        let e0 = rows.contact_row_start[0];
        assert_close(rows.row_dot(e0 + 1, &d.qvel), (va - vb).dot(t1), 1e-12, "d1 row");
        assert_close(rows.row_dot(e0 + 2, &d.qvel), (va - vb).dot(t2), 1e-12, "d2 row");
    }
    assert_ne!(native_tangents(n).0, mujoco_row_tangents(n).0);
}

/// `pyramid_regularizer`: with `impratio = 4`, `μ_reg² = μ²/4` in both factors or in the leading factor only.
#[test]
fn pyramid_regularizer_places_impratio() {
    let model = model();
    let d = state(&model);
    let cs = floor_contact(3);
    let base = ConstraintOptions { impratio: Some(4.0), ..Default::default() };
    let both = assemble(&model, &d, &cs, base);
    let leading = assemble(
        &model,
        &d,
        &cs,
        ConstraintOptions { pyramid_regularizer: PyramidRegularizer::LeadingFactorScaled, ..base },
    );
    let i = both.contact_row_start[0];
    let (mu, imp) = (0.8, both.imp[i]);
    assert_eq!(imp, leading.imp[i]);
    let iw = model.body_invweight0[BALL][0] + model.body_invweight0[0][0];
    let m2 = mu * mu / 4.0;
    assert_close(both.r[i], iw * (1.0 + m2) * 2.0 * m2 * (1.0 - imp) / imp, 1e-12, "both factors");
    assert_close(leading.r[i], 2.0 * m2 * (1.0 + mu * mu) * iw * (1.0 - imp) / imp, 1e-12, "leading factor");
    assert!(leading.r[i] > both.r[i]);
}

/// `zero_rotational_friction`: a zero torsional coefficient gives two empty rows, or two copies of the normal row.
#[test]
fn zero_rotational_friction_decides_the_spin_edges() {
    let model = model();
    let d = state(&model);
    let mut cs = floor_contact(4);
    cs.friction_torsional[0] = 0.0;
    let base = ConstraintOptions { enable_torsional_friction: true, ..Default::default() };
    let empty = assemble(&model, &d, &cs, base);
    let normal = assemble(
        &model,
        &d,
        &cs,
        ConstraintOptions { zero_rotational_friction: ZeroRotationalFriction::NormalEdges, ..base },
    );
    for rows in [&empty, &normal] {
        assert_eq!(rows.contact_nrows, vec![6]);
    }
    let i = empty.contact_row_start[0];
    let nv = model.nv;
    // The first sliding edge is `J_n + μ J_1`; its normal part is `J_n` = half the sum of both sliding edges.
    let jn: Vec<f64> =
        dense(&normal, i, nv).iter().zip(dense(&normal, i + 1, nv)).map(|(a, b)| 0.5 * (a + b)).collect();
    for k in [4, 5] {
        assert!(empty.jacobian_row(i + k).0.is_empty(), "empty spin edge {k}");
        assert_eq!((empty.aref[i + k], empty.mu[i + k]), (0.0, 0.0));
        for (a, b) in dense(&normal, i + k, nv).iter().zip(&jn) {
            assert_close(*a, *b, 1e-12, "spin edge = J_n");
        }
        assert_close(normal.vel[i + k], 0.5 * (normal.vel[i] + normal.vel[i + 1]), 1e-12, "spin edge J_n q̇");
    }
}

/// `include_contact_margin`: the contact's `margin` enters its `x = dist − margin` (MuJoCo 4.0's `includemargin`),
/// or nothing does; a contact beyond its margin (found within the gap) makes no rows.
#[test]
fn include_contact_margin_moves_the_violation() {
    let model = model();
    let mut d = state(&model);
    d.qvel.fill(0.0);
    let mut cs = floor_contact(3);
    (cs.margin[0], cs.gap[0]) = (1e-3, 4e-4);
    let base = ConstraintOptions { timestep: 0.002, ..elliptic() };
    let without = assemble(&model, &d, &cs, base);
    let with = assemble(&model, &d, &cs, ConstraintOptions { include_contact_margin: true, ..base });
    let i = without.contact_row_start[0];
    assert_eq!((without.margin[i], without.pos[i]), (0.0, -2e-4));
    assert_close(with.margin[i], 1e-3, 1e-12, "the margin, gap aside");
    assert_eq!(with.pos[i], -2e-4, "pos stays the distance");
    let k = 1.0 / (0.95f64 * 0.95 * 0.02 * 0.02);
    assert_close(without.aref[i], k * without.imp[i] * 2e-4, 1e-12, "x = dist");
    assert_close(with.aref[i], k * with.imp[i] * 1.2e-3, 1e-12, "x = dist − margin");
    assert!(with.imp[i] > without.imp[i], "imp at |x| = 1.2e-3 vs 2e-4");
    // 1.1 mm apart: beyond the margin, within margin + gap: the contact stays, without rows.
    cs.penetration[0] = -1.1e-3;
    let excluded = assemble(&model, &d, &cs, ConstraintOptions { include_contact_margin: true, ..base });
    assert_eq!(excluded.contact_nrows, [0]);
    assert_eq!(excluded.len(), with.len() - with.contact_nrows[0], "the other rows stay");
}

/// `frictionloss_threshold`: a dof's friction-loss row needs `frictionloss > threshold`.
#[test]
fn frictionloss_threshold_gates_the_friction_rows() {
    let mut model = model();
    model.dof_frictionloss[0] = 1e-16;
    let d = state(&model);
    let none = ContactSet::new();
    let count = |o: ConstraintOptions| assemble(&model, &d, &none, o).count(RowKind::FrictionLoss);
    assert_eq!(count(ConstraintOptions::default()), 0, "1e-16 ≤ MINVAL");
    assert_eq!(count(ConstraintOptions { frictionloss_threshold: 0.0, ..Default::default() }), 1);
    model.dof_frictionloss[0] = 0.3;
    let count = |o: ConstraintOptions| assemble(&model, &d, &none, o).count(RowKind::FrictionLoss);
    assert_eq!(count(ConstraintOptions { frictionloss_threshold: 0.3, ..Default::default() }), 0);
    assert_eq!(count(ConstraintOptions { frictionloss_threshold: 0.29, ..Default::default() }), 1);
}

/// `joint_limit_sides`: with both sides violated (`q = 0.6` in the inverted range `[0.65, 0.5]`), one row for the
/// more violated side or a row per side.
#[test]
fn joint_limit_sides_decides_doubly_violated_limits() {
    let mut model = model();
    model.jnt_range[0] = Some([0.65, 0.5]);
    let d = state(&model);
    let none = ContactSet::new();
    let limits = |o: ConstraintOptions| {
        let rows = assemble(&model, &d, &none, o);
        (0..rows.len())
            .filter(|&i| rows.kind[i] == RowKind::LimitJoint && rows.id[i] == 0)
            .map(|i| (rows.jacobian_row(i).1[0], rows.pos[i]))
            .collect::<Vec<_>>()
    };
    let most = limits(ConstraintOptions::default());
    assert_eq!(most.len(), 1);
    assert_eq!(most[0].0, -1.0, "upper side: δ_hi = −0.1 < δ_lo = −0.05");
    assert_close(most[0].1, -0.1, 1e-12, "δ_hi");
    let each =
        limits(ConstraintOptions { joint_limit_sides: JointLimitSides::EachViolated, ..Default::default() });
    assert_eq!(each.len(), 2);
    assert_eq!((each[0].0, each[1].0), (1.0, -1.0), "lower side first");
    assert_close(each[0].1, -0.05, 1e-12, "δ_lo");
    // One violated side: the same row either way.
    let mut model = self::model();
    model.jnt_range[0] = Some([-0.5, 0.5]);
    let d = state(&model);
    let rows = |o| assemble(&model, &d, &none, o);
    let each = ConstraintOptions { joint_limit_sides: JointLimitSides::EachViolated, ..Default::default() };
    assert_eq!(rows(ConstraintOptions::default()), rows(each));
}

/// `limit_margins`: a side closer to its limit than the joint's `margin` gets a row that measures `x = δ − margin`
/// (MuJoCo's `mj_instantiateLimit` and `efc_pos − efc_margin`): the same impedance and reference acceleration as a
/// side violated by `δ − margin` without a margin. Without the switch the margin is 0 and the side makes no row.
#[test]
fn limit_margins_make_rows_within_the_margin() {
    let none = ContactSet::new();
    let limit = |model: &Model, o: ConstraintOptions| {
        let d = state(model);
        let rows = assemble(model, &d, &none, o);
        (0..rows.len())
            .filter(|&i| rows.kind[i] == RowKind::LimitJoint && rows.id[i] == 0)
            .map(|i| (rows.jacobian_row(i).1[0], rows.pos[i], rows.margin[i], rows.imp[i], rows.aref[i]))
            .collect::<Vec<_>>()
    };
    let on = ConstraintOptions { limit_margins: true, ..ConstraintOptions::mujoco() };
    let off = ConstraintOptions { limit_margins: false, ..on };
    // q = 0.6: 0.05 below the upper limit, within a margin of 0.125.
    let mut within = model();
    within.jnt_range[0] = Some([-0.5, 0.65]);
    within.jnt_margin[0] = 0.125;
    assert!(limit(&within, off).is_empty(), "no margin: the side is not violated");
    assert!(limit(&within, ConstraintOptions::default()).is_empty(), "native mode reads no margin");
    let rows = limit(&within, on);
    assert_eq!(rows.len(), 1, "the upper side only");
    let (j, pos, margin, imp, aref) = rows[0];
    assert_eq!(j, -1.0);
    assert_close(pos, 0.05, 1e-12, "δ_hi");
    assert_eq!(margin, 0.125);
    // The same violation without a margin: δ = 0.525 − 0.6 = 0.05 − 0.125.
    let mut violated = model();
    violated.jnt_range[0] = Some([-0.5, 0.525]);
    let reference = limit(&violated, off);
    assert_eq!(reference.len(), 1);
    assert_close(reference[0].1, pos - margin, 1e-12, "x = δ − margin");
    assert_close(imp, reference[0].3, 1e-12, "imp(δ − margin)");
    assert_close(aref, reference[0].4, 1e-12, "aref with x = δ − margin");
    // A negative margin: the row starts only past the limit by more than |margin|.
    let mut deep = model();
    deep.jnt_range[0] = Some([-0.5, 0.55]);
    deep.jnt_margin[0] = -0.0625;
    assert!(limit(&deep, on).is_empty(), "δ = −0.05 is above the margin −0.0625");
    deep.jnt_margin[0] = -0.03125;
    assert_eq!(limit(&deep, on).len(), 1);
}

/// `impedance_curve`: a zero-width `solimp` gives `dmax` (a step) or the flat `(dmin + dmax)/2`.
#[test]
fn impedance_curve_decides_zero_width_contacts() {
    let model = model();
    let d = state(&model);
    let mut cs = floor_contact(3);
    cs.solimp[0] = [0.9, 0.95, 0.0, 0.5, 2.0];
    let step = assemble(&model, &d, &cs, ConstraintOptions::default());
    let flat = assemble(
        &model,
        &d,
        &cs,
        ConstraintOptions { impedance_curve: ImpedanceCurve::FlatAtZeroWidth, ..Default::default() },
    );
    let i = step.contact_row_start[0];
    assert_eq!(step.imp[i], 0.95);
    assert_eq!(flat.imp[i], 0.925);
}

/// `elliptic_auto_impratio`: the elliptic friction rows' `R = R₀/impratio` and the cone's `μ/√impratio` follow it
/// when `impratio` is not given.
#[test]
fn elliptic_auto_impratio_scales_the_friction_rows() {
    let model = model();
    let d = state(&model);
    let cs = floor_contact(3);
    for (auto, expected) in [(100.0, 100.0), (1.0, 1.0), (25.0, 25.0)] {
        let rows =
            assemble(&model, &d, &cs, ConstraintOptions { elliptic_auto_impratio: auto, ..elliptic() });
        let i = rows.contact_row_start[0];
        assert_close(rows.r[i + 1], rows.r[i] / expected, 1e-12, "R1 = R0/impratio");
        assert_close(rows.contact_mu[0], 0.8 / expected.sqrt(), 1e-12, "cone μ");
    }
}

/// `elliptic_regularizer`: MuJoCo's rule scales every friction row after the first sliding one from it,
/// `R_k μ_k² = R₁ μ₀²` (the second sliding row too, where it rounds), and takes the cone coefficient as
/// `μ₀ √(R₁/R₀)`: with `impratio` 3 and `μ₀ = 0.8` that is MuJoCo 4.0.1's `con->mu` = 0.4618802153517007 (a
/// contact of `condim` 6 on the floor), an ulp from the default's `μ₀/√3` = 0.46188021535170065.
#[test]
fn elliptic_regularizer_scales_the_friction_rows_from_the_first() {
    let model = model();
    let d = state(&model);
    let cs = floor_contact(6);
    let base = ConstraintOptions {
        impratio: Some(3.0),
        contact_dimension: ContactDimension::PerContactCondim,
        ..elliptic()
    };
    let native = assemble(&model, &d, &cs, base);
    let mujoco = assemble(
        &model,
        &d,
        &cs,
        ConstraintOptions { elliptic_regularizer: EllipticRegularizer::ScaledToFirstSliding, ..base },
    );
    assert_eq!(native.contact_mu[0], 0.46188021535170065);
    assert_eq!(mujoco.contact_mu[0], 0.4618802153517007);
    let i = mujoco.contact_row_start[0];
    assert_eq!(mujoco.contact_nrows[0], 6);
    let r1 = mujoco.r[i + 1];
    assert_eq!(r1, mujoco.r[i] / 3.0);
    assert_eq!(native.r[i + 2], native.r[i + 1], "the default shares the sliding rows' R");
    assert_eq!(mujoco.r[i + 2], r1 * 0.8 * 0.8 / (0.8 * 0.8), "MuJoCo scales the second sliding row too");
    for (k, mu_k) in [(2, 0.8), (3, 0.02), (4, 0.001), (5, 0.001)] {
        assert_close(mujoco.r[i + k] * mu_k * mu_k, r1 * 0.8 * 0.8, 1e-15 * r1, "R_k μ_k² = R₁ μ₀²");
        assert_close(native.r[i + k], mujoco.r[i + k], 1e-15 * mujoco.r[i + k], "the same rule to rounding");
    }
}
