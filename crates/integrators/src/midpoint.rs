//! The implicit midpoint rule for unconstrained free bodies (spec §D.5; Genesis 1.4.5
//! `func_midpoint_free_body`, seed 001 §7.1).
//!
//! A *standalone* free body — a free joint on a child of the world whose tree has no other dof; bodies welded under it
//! make it a composite — that no constraint row touches in this step is advanced by the implicit midpoint rule under
//! `implicitfast` and `approximate_implicitfast`. In a frame where the inertia `I` is constant (the principal frame of
//! a lone body, the body frame of a composite), the midpoint angular velocity `w_m` solves
//!
//! `F(w_m) = (2/h)(I + E)(w_m − w) + w_m × (I w_m) − τ [− r × (E_lin a_origin)] = 0`
//!
//! by Newton's method with backtracking (`J_F = (2/h)(I + E) + [w_m]ₓ I − [I w_m]ₓ`, at most 100 steps, 20 halvings
//! each, tolerance `1e-13 (1 + (2/h)‖I w‖)`), `E` being the per-dof `armature + h·damping + h·kv` along the body axes
//! and `τ` the torque about the centre of mass (every force but the velocity products and gravity). `w' = 2 w_m − w`.
//! A centre of mass off the joint origin (`r ≠ 0`) also takes the midpoint of its translation in the rotating frame,
//! `((2/h) 1 + [w_m]ₓ) v_com,m = a_com + (2/h) v_com`, in closed form, with gravity explicit; on the origin the
//! translation keeps the standard update. Positions are integrated with the midpoint velocities, then the velocities
//! become `2·mid − old`. Torque-free tumbling keeps its kinetic energy and angular momentum (the rule preserves
//! quadratic invariants), where the semi-implicit Euler step gains or loses them.

use glam::{DMat3, DQuat, DVec3};
use signorini_model::{Data, JointKind, Model};

/// Relative tolerance of the Newton iteration on the midpoint residual (Genesis's f64 value).
const TOLERANCE: f64 = 1e-13;
/// Newton steps and halvings per step of the midpoint solve (Genesis's caps).
const MAX_NEWTON: usize = 100;
const MAX_HALVINGS: usize = 20;

/// One body the midpoint rule advanced this step: its dofs `adr..adr+6`, the first of them it integrates (`0`, or `3`
/// when the centre of mass is on the joint origin and the translation keeps the standard update), and the velocities
/// before the step and at the midpoint.
#[derive(Debug, Clone, Copy)]
struct MidpointBody {
    adr: usize,
    first: usize,
    old: [f64; 6],
    mid: [f64; 6],
}

/// The midpoint rule's buffers: which dofs the step's constraint rows act on (set by the caller), the bodies it
/// advanced and the acceleration it hands to the position update.
#[derive(Debug, Clone, Default)]
pub(crate) struct MidpointScratch {
    pub(crate) constrained: Vec<bool>,
    bodies: Vec<MidpointBody>,
    acc: Vec<f64>,
}

/// The mass properties of a free body in the frame where its inertia is constant (constant in the body frame):
/// `iquat` rotates that frame into the body frame, `ipos` is the centre of mass in the body frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FreeBodyInertia {
    /// Mass (kg), of the welded bodies too.
    pub mass: f64,
    /// Inertia about the centre of mass in the frame of `iquat` (kg·m²).
    pub inertia: DMat3,
    /// That frame's rotation into the body frame: the principal frame of a lone body, the identity for a composite.
    pub iquat: DQuat,
    /// The centre of mass in the body frame (m).
    pub ipos: DVec3,
    /// Whether bodies are welded under the body (Genesis's composite).
    pub composite: bool,
}

impl FreeBodyInertia {
    /// Whether the centre of mass is on the joint origin of a lone body: the rule then keeps the standard translation
    /// update (Genesis's `func_midpoint_is_aligned`).
    pub fn aligned(&self) -> bool {
        !self.composite && self.ipos == DVec3::ZERO
    }
}

/// The body and dof address of free joint `j` when the midpoint rule may apply to it (the model's part of the rule's
/// eligibility): a free joint at the origin of a child of the world, alone in its tree. The step adds: awake, and
/// touched by no constraint row.
pub fn midpoint_candidate(model: &Model, j: usize) -> Option<(usize, usize)> {
    if model.jnt_type[j] != JointKind::Free || model.jnt_pos[j] != DVec3::ZERO {
        return None;
    }
    let body = model.jnt_bodyid[j];
    let adr = model.jnt_dofadr[j];
    let tree = model.dof_treeid[adr];
    let alone = model.body_parent[body] == 0
        && model.body_jntnum[body] == 1
        && (adr + 6 == model.nv || model.dof_treeid[adr + 6] != tree);
    alone.then_some((body, adr))
}

/// [`midpoint_candidate`], awake and touched by no constraint row.
fn eligible(model: &Model, data: &Data, constrained: &[bool], j: usize) -> Option<(usize, usize)> {
    let (body, adr) = midpoint_candidate(model, j)?;
    let free = !constrained.get(adr..adr + 6).is_some_and(|c| c.iter().any(|&c| c));
    (free && data.is_body_awake(body)).then_some((body, adr))
}

/// The inertia of free body `body` and of the bodies welded under it (Genesis's composite: mass, centre of mass and
/// inertia of the whole, in the body frame), or the body's own principal inertia when nothing is welded under it,
/// from `data`'s kinematics.
pub fn free_body_inertia(model: &Model, data: &Data, body: usize) -> FreeBodyInertia {
    let children = (body + 1..model.nbody).take_while(|&c| model.body_rootid[c] == body);
    if children.clone().next().is_none() {
        return FreeBodyInertia {
            mass: data.body_mass[body],
            inertia: DMat3::from_diagonal(data.body_inertia[body]),
            iquat: model.body_iquat[body],
            ipos: model.body_ipos[body],
            composite: false,
        };
    }
    let parts = || std::iter::once(body).chain(children.clone());
    let mass: f64 = parts().map(|c| data.body_mass[c]).sum();
    let com = parts().map(|c| data.body_mass[c] * data.xipos[c]).sum::<DVec3>() / mass;
    let mut world = DMat3::ZERO;
    for c in parts() {
        let r = data.ximat[c];
        let d = data.xipos[c] - com;
        let shift = DMat3::from_diagonal(DVec3::splat(d.length_squared())) - outer(d, d);
        world += r * DMat3::from_diagonal(data.body_inertia[c]) * r.transpose() + data.body_mass[c] * shift;
    }
    let rot = data.xmat[body];
    FreeBodyInertia {
        mass,
        inertia: rot.transpose() * world * rot,
        iquat: DQuat::IDENTITY,
        ipos: rot.transpose() * (com - data.xpos[body]),
        composite: true,
    }
}

fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

fn skew(v: DVec3) -> DMat3 {
    DMat3::from_cols(DVec3::new(0.0, v.z, -v.y), DVec3::new(-v.z, 0.0, v.x), DVec3::new(v.y, -v.x, 0.0))
}

impl MidpointScratch {
    /// Writes `qacc` into the scratch's acceleration and replaces, for every eligible free body, its dofs' entries by
    /// the midpoint rule's `(new − old)/h`, recording the midpoint velocities. `shift` is the per-dof `h·damping +
    /// h·kv` of the integrator (empty: none). Returns the number of bodies it advanced.
    pub(crate) fn apply(&mut self, model: &Model, data: &Data, qacc: &[f64], shift: &[f64], h: f64) -> usize {
        self.acc.clear();
        self.acc.extend_from_slice(qacc);
        self.bodies.clear();
        for j in 0..model.njnt {
            let Some((body, adr)) = eligible(model, data, &self.constrained, j) else { continue };
            let aug: [f64; 6] = std::array::from_fn(|k| {
                data.dof_armature[adr + k] + shift.get(adr + k).copied().unwrap_or(0.0)
            });
            let b = advance_body(model, data, body, adr, &aug, h, &mut self.acc);
            self.bodies.push(b);
        }
        self.bodies.len()
    }

    /// The acceleration of the step, after [`Self::apply`].
    pub(crate) fn acceleration(&self) -> &[f64] {
        &self.acc
    }

    /// Before the position update: the advanced bodies' velocities become their midpoint velocities.
    pub(crate) fn set_midpoint_velocities(&self, qvel: &mut [f64]) {
        for b in &self.bodies {
            qvel[b.adr + b.first..b.adr + 6].copy_from_slice(&b.mid[b.first..]);
        }
    }

    /// After the position update: the advanced bodies' velocities become `2·mid − old`.
    pub(crate) fn set_next_velocities(&self, qvel: &mut [f64]) {
        for b in &self.bodies {
            for k in b.first..6 {
                qvel[b.adr + k] = 2.0 * b.mid[k] - b.old[k];
            }
        }
    }
}

/// The midpoint step of one free body (module docs): writes its accelerations into `acc` and returns its velocities.
fn advance_body(
    model: &Model,
    data: &Data,
    body: usize,
    adr: usize,
    aug: &[f64; 6],
    h: f64,
    acc: &mut [f64],
) -> MidpointBody {
    let i2h = 2.0 / h;
    let body_inertia = free_body_inertia(model, data, body);
    let FreeBodyInertia { mass, inertia, iquat, ipos, .. } = body_inertia;
    let xquat = data.xquat[body];
    let inv_iquat = iquat.inverse();
    let x2i = inv_iquat * xquat.inverse();
    let rot_i = DMat3::from_quat(iquat);
    let aug_ang = DMat3::from_diagonal(DVec3::new(aug[3], aug[4], aug[5]));
    let inertia_aug = inertia + rot_i.transpose() * aug_ang * rot_i;

    // Every force but the velocity products and gravity: the smooth force less the bias (no constraint acts).
    let total = |k: usize| data.qfrc_smooth[adr + k] + data.qfrc_bias[adr + k];
    let w_body = DVec3::new(data.qvel[adr + 3], data.qvel[adr + 4], data.qvel[adr + 5]);
    let w = inv_iquat * w_body;
    let mut tau = inv_iquat * DVec3::new(total(3), total(4), total(5));

    let aligned = body_inertia.aligned();
    let mut force = DVec3::ZERO;
    let mut r_com = DVec3::ZERO;
    let mut gravity = DVec3::ZERO;
    let mut aug_vel = DMat3::ZERO;
    let mut mass_inv = DMat3::ZERO;
    let mut coupled = false;
    if !aligned {
        force = x2i * DVec3::new(total(0), total(1), total(2));
        r_com = inv_iquat * ipos;
        tau -= r_com.cross(force);
        // qfrc_bias holds the whole gravity; gravity compensation is a passive force, already in `force`.
        gravity = x2i * data.gravity;
        coupled = aug[..3].iter().any(|&e| e > 0.0);
        if coupled {
            let r = DMat3::from_quat(x2i);
            aug_vel = r * DMat3::from_diagonal(DVec3::new(aug[0], aug[1], aug[2])) * r.transpose();
            let inv = DVec3::new(1.0 / (mass + aug[0]), 1.0 / (mass + aug[1]), 1.0 / (mass + aug[2]));
            mass_inv = r * DMat3::from_diagonal(inv) * r.transpose();
        }
    }
    let skew_r = skew(r_com);

    // Newton with backtracking on F(w_m); each candidate is evaluated once.
    let mut w_mid = w;
    let mut w_try = w;
    let mut delta = DVec3::ZERO;
    let mut step = 1.0;
    let mut f_norm = -1.0;
    let (mut newton, mut halvings) = (0, 0);
    while newton < MAX_NEWTON && halvings < MAX_HALVINGS {
        let iw = inertia * w_try;
        let mut f = i2h * (inertia_aug * (w_try - w)) + w_try.cross(iw) - tau;
        if coupled {
            let alpha = i2h * (w_try - w);
            let u = alpha.cross(r_com) + w_try.cross(w_try.cross(r_com));
            let a_origin = mass_inv * (force + mass * gravity + aug_vel * u) - u;
            f -= r_com.cross(aug_vel * a_origin);
        }
        if f_norm < 0.0 || f.length() < f_norm {
            w_mid = w_try;
            f_norm = f.length();
            if f_norm < TOLERANCE * (1.0 + i2h * iw.length()) {
                break;
            }
            let mut jac = i2h * inertia_aug + skew(w_mid) * inertia - skew(iw);
            if coupled {
                let du_dw = -i2h * skew_r
                    + outer(w_mid, r_com)
                    + DMat3::from_diagonal(DVec3::splat(w_mid.dot(r_com)))
                    - 2.0 * outer(r_com, w_mid);
                jac -= skew_r * aug_vel * ((mass_inv * aug_vel - DMat3::IDENTITY) * du_dw);
            }
            delta = jac.inverse() * (-f);
            step = 1.0;
            newton += 1;
            halvings = 0;
        } else {
            step *= 0.5;
            halvings += 1;
        }
        w_try = w_mid + step * delta;
    }

    let mut old = [0.0; 6];
    let mut mid = [0.0; 6];
    old.copy_from_slice(&data.qvel[adr..adr + 6]);
    let w_new_body = iquat * (2.0 * w_mid - w);
    for k in 0..3 {
        acc[adr + 3 + k] = (w_new_body[k] - w_body[k]) / h;
        mid[3 + k] = 0.5 * (w_new_body[k] + w_body[k]);
    }
    if !aligned {
        let v_world = DVec3::new(old[0], old[1], old[2]);
        let v = x2i * v_world;
        let vcom = v + w.cross(r_com);
        let a_com = if coupled {
            let alpha = i2h * (w_mid - w);
            let u = alpha.cross(r_com) + w_mid.cross(w_mid.cross(r_com));
            mass_inv * (force + mass * gravity + aug_vel * u)
        } else {
            force / mass + gravity
        };
        let b = a_com + i2h * vcom;
        let denom = i2h * i2h + w_mid.dot(w_mid);
        let vcom_mid = (i2h * b + (w_mid.dot(b) / i2h) * w_mid - w_mid.cross(b)) / denom;
        let v_new = 2.0 * (vcom_mid - w_mid.cross(r_com)) - v;
        // The world-frame velocity goes through the estimated next orientation.
        let xquat_new = signorini_model::kinematics::quat_integrate(xquat, (iquat * w_mid) * h);
        let v_new_world = xquat_new * (iquat * v_new);
        for k in 0..3 {
            acc[adr + k] = (v_new_world[k] - v_world[k]) / h;
            mid[k] = 0.5 * (v_new_world[k] + v_world[k]);
        }
    }
    MidpointBody { adr, first: if aligned { 3 } else { 0 }, old, mid }
}
