//! Equality rows (connect, weld, joint and tendon equalities) with MuJoCo 4.0's `J̇ q̇` term of connect and weld
//! rows; see the table in [`super`].

use super::*;
use signorini_geometry::rotation::{mul_quat, mul_quat_axis};
use signorini_model::factor::{mujoco_sum_at, mujoco_sum_sparse};

impl ConstraintAssembler {
    pub(super) fn equality(
        &self,
        model: &Model,
        data: &Data,
        e: usize,
        sols: Option<&SolOverrides>,
        scratch: &mut AssemblyScratch,
        rows: &mut ConstraintRows,
    ) {
        let AssemblyScratch { cols, dofs, chain, .. } = scratch;
        let replaced = sols.and_then(|o| o.equality(e));
        match self.equalities[e] {
            Equality::Connect { body1, body2, anchor1, anchor2, sol } => {
                let sol = replaced.unwrap_or(&sol);
                let (p1, p2) = (anchor_point(data, body1, anchor1), anchor_point(data, body2, anchor2));
                relative_columns(model, (dofs, &data.cdof), (body1, p1), (body2, p2), cols);
                let err = p1 - p2;
                let imp = sol.impedance(err.length());
                let iw = model.body_invweight0[body1][0] + model.body_invweight0[body2][0];
                let r = regularizer(iw, imp);
                let bias = if self.options.equality_velocity_bias {
                    let [[l1, _], [l2, _]] = jac_dot_v_pair(model, data, (body1, p1), (body2, p2), chain);
                    l1 - l2
                } else {
                    DVec3::ZERO
                };
                for k in 0..3 {
                    push_direction(rows, cols, DVec3::AXES[k], DVec3::ZERO);
                    let vel = self.open_row_velocity(model, data, rows);
                    let aref = sol.aref(imp, vel, err[k]) - bias[k];
                    let row = RowData { pos: err[k], imp, vel, aref, r, ..RowData::plain() };
                    if k == 0 {
                        rows.finish_row(RowKind::EqualityConnect, e, row);
                    } else {
                        rows.finish_row_same_dofs(RowKind::EqualityConnect, e, row);
                    }
                }
            }
            Equality::Weld { body1, body2, anchor1, anchor2, relquat, torquescale, sol } => {
                let sol = replaced.unwrap_or(&sol);
                let (p1, p2) = (anchor_point(data, body1, anchor1), anchor_point(data, body2, anchor2));
                relative_columns(model, (dofs, &data.cdof), (body1, p1), (body2, p2), cols);
                // MuJoCo's `neg(q₂) ⊗ q₁ ⊗ relpose` in its arithmetic (`mju_mulQuat`, `mju_negQuat`).
                let q = mul_quat(data.xquat[body1], relquat);
                let q2inv = data.xquat[body2].conjugate();
                let qe = mul_quat(q2inv, q);
                let ep = p1 - p2;
                let er = DVec3::new(qe.x, qe.y, qe.z) * torquescale;
                let imp = sol.impedance((ep.length_squared() + er.length_squared()).sqrt());
                let [t1, r1] = model.body_invweight0[body1];
                let [t2, r2] = model.body_invweight0[body2];
                let (rt, rr) = (regularizer(t1 + t2, imp), regularizer(r1 + r2, imp));
                let (bias_t, bias_r) = if self.options.equality_velocity_bias {
                    weld_velocity_bias(model, data, (body1, p1), (body2, p2), relquat, torquescale, chain)
                } else {
                    (DVec3::ZERO, DVec3::ZERO)
                };
                for k in 0..3 {
                    push_direction(rows, cols, DVec3::AXES[k], DVec3::ZERO);
                    let vel = self.open_row_velocity(model, data, rows);
                    let aref = sol.aref(imp, vel, ep[k]) - bias_t[k];
                    let row = RowData { pos: ep[k], imp, vel, aref, r: rt, ..RowData::plain() };
                    if k == 0 {
                        rows.finish_row(RowKind::EqualityWeld, e, row);
                    } else {
                        rows.finish_row_same_dofs(RowKind::EqualityWeld, e, row);
                    }
                }
                for k in 0..3 {
                    for c in cols.iter() {
                        // `½ neg(q₂) ⊗ (0, J_rot) ⊗ q₁ ⊗ relpose`, then scaled by `torquescale`.
                        let w = mul_quat(mul_quat_axis(q2inv, c.ang), q);
                        rows.push_entry(c.dof, 0.5 * [w.x, w.y, w.z][k] * torquescale);
                    }
                    let vel = self.open_row_velocity(model, data, rows);
                    let aref = sol.aref(imp, vel, er[k]) - bias_r[k];
                    let row = RowData { pos: er[k], imp, vel, aref, r: rr, ..RowData::plain() };
                    rows.finish_row_same_dofs(RowKind::EqualityWeld, e, row);
                }
            }
            Equality::Joint { dof1, qadr1, q01, second, poly, sol } => {
                let sol = replaced.unwrap_or(&sol);
                let q1 = data.qpos[qadr1] - q01;
                let (x, iw) = match second {
                    None => {
                        rows.push_entry(dof1, 1.0);
                        (q1 - poly[0], model.dof_invweight0[dof1])
                    }
                    Some((dof2, qadr2, q02)) => {
                        let (higher, slope) = polynomial(&poly, data.qpos[qadr2] - q02);
                        if dof2 == dof1 {
                            rows.push_entry(dof1, 1.0 - slope);
                        } else {
                            rows.push_entry(dof1, 1.0);
                            rows.push_entry(dof2, -slope);
                        }
                        ((q1 - poly[0]) - higher, model.dof_invweight0[dof1] + model.dof_invweight0[dof2])
                    }
                };
                let row = scalar_row(sol, x, iw, self.open_row_velocity(model, data, rows));
                rows.finish_row(RowKind::EqualityJoint, e, row);
            }
            Equality::Tendon { t1, l01, second, poly, sol } => {
                let sol = replaced.unwrap_or(&sol);
                let nv = model.nv;
                let x1 = data.ten_length[t1] - l01;
                let (x, slope, iw) = match second {
                    None => (x1 - poly[0], 0.0, model.tendons.invweight0[t1]),
                    Some((t2, l02)) => {
                        let (higher, slope) = polynomial(&poly, data.ten_length[t2] - l02);
                        (
                            (x1 - poly[0]) - higher,
                            slope,
                            model.tendons.invweight0[t1] + model.tendons.invweight0[t2],
                        )
                    }
                };
                // Entries by decreasing dof, as every row's.
                for dof in (0..nv).rev() {
                    let mut c = data.ten_j[t1 * nv + dof];
                    if let Some((t2, _)) = second {
                        c -= slope * data.ten_j[t2 * nv + dof];
                    }
                    if c != 0.0 {
                        rows.push_entry(dof, c);
                    }
                }
                let row = scalar_row(sol, x, iw, self.open_row_velocity(model, data, rows));
                rows.finish_row(RowKind::EqualityTendon, e, row);
            }
        }
    }
}

/// The world point of `anchor` (in `body`'s frame): `xmat·anchor + xpos`, as MuJoCo's `mj_equalityAnchors` forms it.
fn anchor_point(data: &Data, body: usize, anchor: DVec3) -> DVec3 {
    data.xmat[body] * anchor + data.xpos[body]
}

/// `[J̇_p q̇, J̇_r q̇]` of world point `p1` fixed to `body1` and of `p2` fixed to `body2`: the accelerations of the
/// points (and of the bodies' rotations) at `q̈ = 0` without gravity, as MuJoCo 4.0.1's `mj_Jdotv` forms them. The
/// columns are `mj_jacDot`'s (a ball or free rotation dof's `ċdof` taken with the body's whole velocity); each
/// component's sum over the dofs is `mju_dot` over the dense row of `nv` columns on a model MuJoCo keeps dense
/// (its four lanes by dof index), and `mju_dotSparseX3` over the union of both chains, dofs increasing, from
/// [`MUJOCO_SPARSE_NV`] dofs on (four lanes by position in the union, then the rest one at a time). `chain` is
/// scratch: per dof of the union, increasing, both bodies' columns times `q̇` (zero off a body's chain).
fn jac_dot_v_pair(
    model: &Model,
    data: &Data,
    (body1, p1): (usize, DVec3),
    (body2, p2): (usize, DVec3),
    chain: &mut Vec<(usize, [[f64; 6]; 2])>,
) -> [[DVec3; 2]; 2] {
    let column = |body: usize, point: DVec3| {
        let offset = point - data.subtree_com[model.body_rootid[body]];
        let v = data.cvel[body];
        let point_vel = v.lin - offset.cross(v.ang);
        move |dof: usize| {
            let cdof = data.cdof[dof];
            let j = model.dof_jntid[dof];
            let rotation = match model.jnt_type[j] {
                JointKind::Ball => true,
                JointKind::Free => dof >= model.jnt_dofadr[j] + 3,
                JointKind::Hinge | JointKind::Slide => false,
            };
            let cdof_dot = if rotation {
                data.cvel[model.dof_bodyid[dof]].cross_motion(cdof)
            } else {
                data.cdof_dot[dof]
            };
            let lin = cdof_dot.lin + cdof_dot.ang.cross(offset) + cdof.ang.cross(point_vel);
            let qv = data.qvel[dof];
            [lin.x, lin.y, lin.z, cdof_dot.ang.x, cdof_dot.ang.y, cdof_dot.ang.z].map(|c| c * qv)
        }
    };
    let (col1, col2) = (column(body1, p1), column(body2, p2));
    chain.clear();
    chain.extend(model.dof_chain_union(body1, body2).map(|(dof, on1, on2)| {
        let zero = [0.0 * data.qvel[dof]; 6];
        (dof, [if on1 { col1(dof) } else { zero }, if on2 { col2(dof) } else { zero }])
    }));
    chain.reverse();
    let sums = |b: usize| {
        let sum = |c: usize| {
            if model.nv < MUJOCO_SPARSE_NV {
                mujoco_sum_at(model.nv, chain.iter().map(|(dof, cols)| (*dof, cols[b][c])))
            } else {
                mujoco_sum_sparse(chain.len(), |t| chain[t].1[b][c])
            }
        };
        [DVec3::new(sum(0), sum(1), sum(2)), DVec3::new(sum(3), sum(4), sum(5))]
    };
    [sums(0), sums(1)]
}

/// The `J̇ q̇` of a weld's translational and rotational rows (MuJoCo 4.0's `mj_Jdotv`): the points' difference, and
/// the product rule on `½·torquescale·vec(q₂⁻¹ ⊗ (0, ω₁ − ω₂) ⊗ q₁ ⊗ relquat)` with `q̇ = ½ (0, ω) ⊗ q`.
fn weld_velocity_bias(
    model: &Model,
    data: &Data,
    (body1, p1): (usize, DVec3),
    (body2, p2): (usize, DVec3),
    relquat: DQuat,
    torquescale: f64,
    chain: &mut Vec<(usize, [[f64; 6]; 2])>,
) -> (DVec3, DVec3) {
    let [[l1, a1], [l2, a2]] = jac_dot_v_pair(model, data, (body1, p1), (body2, p2), chain);
    let axis = |v: DVec3| DQuat::from_xyzw(v.x, v.y, v.z, 0.0);
    let derivative = |q: DQuat, w: DVec3| {
        let d = axis(w) * q;
        DQuat::from_xyzw(0.5 * d.x, 0.5 * d.y, 0.5 * d.z, 0.5 * d.w)
    };
    let (q1, q2) = (data.xquat[body1], data.xquat[body2]);
    let (w1, w2) = (data.cvel[body1].ang, data.cvel[body2].ang);
    let q0r = q1 * relquat;
    let neg_q1 = q2.conjugate();
    let dw = w1 - w2;
    let qdot0r = derivative(q1, w1) * relquat;
    let neg_qdot1 = derivative(q2, w2).conjugate();
    let t1 = neg_qdot1 * axis(dw) * q0r;
    let t2 = neg_q1 * axis(a1 - a2) * q0r;
    let t3 = neg_q1 * axis(dw) * qdot0r;
    let sum = DVec3::new(t1.x + t2.x + t3.x, t1.y + t2.y + t3.y, t1.z + t2.z + t3.z);
    (l1 - l2, 0.5 * sum * torquescale)
}
