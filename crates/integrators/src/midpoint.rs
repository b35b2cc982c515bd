//! The implicit midpoint rule for unconstrained free bodies (spec §D.5; Genesis 1.4.5
//! `func_midpoint_free_body`, seed 001 §7.1).
//!
//! A *standalone* free body — a free joint on a child of the world whose tree has no other dof; bodies welded under it
//! make it a composite — that no constraint row touches in this step is advanced by the implicit midpoint rule under
//! `implicitfast` and `approximate_implicitfast`. In a frame where the inertia `I` is constant (the principal frame of
//! a lone body, the body frame of a composite), the midpoint angular velocity `w_m` solves
//!
//! `F(w_m) = (2/h)(I + E)(w_m − w) + w_m × (I w_m) − τ = 0`
//!
//! by Newton's method with backtracking (`J_F = (2/h)(I + E) + [w_m]ₓ I − [I w_m]ₓ`, at most 100 steps, 20 halvings
//! each, tolerance `1e-13 (1 + (2/h)‖I w‖)`), `E` being the per-dof `armature + h·damping + h·kv` along the body axes
//! and `τ` the torque about the centre of mass (every force but the velocity products and gravity). `w' = 2 w_m − w`;
//! the orientation moves with `w_m`.
//!
//! Genesis 1.4.5 anchors every such body at its centre of mass and principal axes when it loads it
//! (`_align_free_roots`), so its centre of mass takes the standard update, `v_c' = v_c + h (F + m g)/(m + E_lin)`,
//! `x_c' = x_c + h v_c'`. Signorini keeps the file's body frame in `qpos`: for a centre of mass off the joint origin
//! (`r ≠ 0`) the origin's position and velocity are read off the centre of mass's, `x' = x_c' − R' r`,
//! `v' = v_c' − ω' × R' r` (on the origin the solver's translation is that update already). A body a constraint row
//! touches keeps the integrator's update, also taken at its centre of mass when that is off the origin: the solver's
//! acceleration read there, `a_c = a + α × r + ω × (ω × r)`, then the same steps (`anchored_update`). Positions are
//! integrated with the midpoint velocities, then the velocities become the new ones (`2·mid − old` for the rotation).
//! Torque-free tumbling keeps its kinetic energy and angular momentum (the rule preserves quadratic invariants), where
//! the semi-implicit Euler step gains or loses them.

use glam::{DMat3, DQuat, DVec3};
use signorini_model::{Data, Model};

/// Relative tolerance of the Newton iteration on the midpoint residual (Genesis's f64 value).
const TOLERANCE: f64 = 1e-13;
/// Newton steps and halvings per step of the midpoint solve (Genesis's caps).
const MAX_NEWTON: usize = 100;
const MAX_HALVINGS: usize = 20;

/// One body the midpoint rule advanced this step: its dofs `adr..adr+6`, the first of them it integrates (`0`, or `3`
/// when the centre of mass is on the joint origin and the translation keeps the solver's update), the velocities
/// the position update takes and the velocities after the step.
#[derive(Debug, Clone, Copy)]
struct MidpointBody {
    adr: usize,
    first: usize,
    mid: [f64; 6],
    next: [f64; 6],
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
    let body = model.jnt_bodyid[j];
    let adr = model.standalone_free_dofs(body)?;
    (model.body_rootid[body] == body && model.jnt_dofadr[j] == adr).then_some((body, adr))
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
    /// Writes `qacc` into the scratch's acceleration and replaces, for every awake standalone free body, its dofs'
    /// entries by the midpoint rule's `(new − old)/h` (untouched bodies) or by the anchored update's (touched bodies
    /// with the centre of mass off the origin), recording the velocities of the position update and the new ones.
    /// `shift` is the per-dof `h·damping + h·kv` of the integrator (empty: none). Returns the number of bodies.
    pub(crate) fn apply(&mut self, model: &Model, data: &Data, qacc: &[f64], shift: &[f64], h: f64) -> usize {
        self.acc.clear();
        self.acc.extend_from_slice(qacc);
        self.bodies.clear();
        for j in 0..model.njnt {
            let Some((body, adr)) = midpoint_candidate(model, j).filter(|&(b, _)| data.is_body_awake(b))
            else {
                continue;
            };
            let touched = self.constrained.get(adr..adr + 6).is_some_and(|c| c.iter().any(|&c| c));
            if touched {
                // Genesis's plain update, of the centre of mass where it anchors the body.
                let inertia = free_body_inertia(model, data, body);
                if !inertia.aligned() {
                    let b = anchored_update(data, body, adr, inertia.ipos, h, &mut self.acc);
                    self.bodies.push(b);
                }
                continue;
            }
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

    /// After the position update: the advanced bodies' velocities become the new ones.
    pub(crate) fn set_next_velocities(&self, qvel: &mut [f64]) {
        for b in &self.bodies {
            qvel[b.adr + b.first..b.adr + 6].copy_from_slice(&b.next[b.first..]);
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
    let rot_i = DMat3::from_quat(iquat);
    let aug_ang = DMat3::from_diagonal(DVec3::new(aug[3], aug[4], aug[5]));
    let inertia_aug = inertia + rot_i.transpose() * aug_ang * rot_i;

    // Every force but the velocity products and gravity: the smooth force less the bias (no constraint acts). The
    // linear dofs take the world force, the angular ones the torque about the origin in the body frame.
    let total = |k: usize| data.qfrc_smooth[adr + k] + data.qfrc_bias[adr + k];
    let force = DVec3::new(total(0), total(1), total(2));
    let torque_origin = DVec3::new(total(3), total(4), total(5));
    let tau = inv_iquat * (torque_origin - ipos.cross(xquat.inverse() * force));
    let w_body = DVec3::new(data.qvel[adr + 3], data.qvel[adr + 4], data.qvel[adr + 5]);
    let w = inv_iquat * w_body;

    // Newton with backtracking on F(w_m); each candidate is evaluated once.
    let mut w_mid = w;
    let mut w_try = w;
    let mut delta = DVec3::ZERO;
    let mut step = 1.0;
    let mut f_norm = -1.0;
    let (mut newton, mut halvings) = (0, 0);
    while newton < MAX_NEWTON && halvings < MAX_HALVINGS {
        let iw = inertia * w_try;
        let f = i2h * (inertia_aug * (w_try - w)) + w_try.cross(iw) - tau;
        if f_norm < 0.0 || f.length() < f_norm {
            w_mid = w_try;
            f_norm = f.length();
            if f_norm < TOLERANCE * (1.0 + i2h * iw.length()) {
                break;
            }
            let jac = i2h * inertia_aug + skew(w_mid) * inertia - skew(iw);
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
    old.copy_from_slice(&data.qvel[adr..adr + 6]);
    let mut mid = [0.0; 6];
    let mut next = [0.0; 6];
    let w_new_body = iquat * (2.0 * w_mid - w);
    for k in 0..3 {
        acc[adr + 3 + k] = (w_new_body[k] - w_body[k]) / h;
        mid[3 + k] = 0.5 * (w_new_body[k] + w_body[k]);
        next[3 + k] = 2.0 * mid[3 + k] - old[3 + k];
    }
    let aligned = body_inertia.aligned();
    if !aligned {
        let a_com = (force + mass * data.gravity) / (DVec3::splat(mass) + DVec3::new(aug[0], aug[1], aug[2]));
        step_centre_of_mass(data, body, adr, ipos, |_, _| a_com, h, acc, &mut mid, &mut next);
    }
    MidpointBody { adr, first: if aligned { 3 } else { 0 }, mid, next }
}

/// The semi-implicit Euler step of a free body as Genesis takes it for a body it anchored at its centre of mass
/// (`ipos`, body frame): the solver's acceleration `acc` (origin, body-frame angular) read at the centre of mass,
/// `a_c = a + α × r + ω × (ω × r)`, then `v_c' = v_c + h a_c`, `ω' = ω + h α`, `x_c' = x_c + h v_c'`, and the origin
/// read off the centre of mass at the new orientation. Only the translation changes from the origin's update.
fn anchored_update(
    data: &Data,
    body: usize,
    adr: usize,
    ipos: DVec3,
    h: f64,
    acc: &mut [f64],
) -> MidpointBody {
    let mut next: [f64; 6] = std::array::from_fn(|k| data.qvel[adr + k] + h * acc[adr + k]);
    let mut mid = next;
    let a = DVec3::new(acc[adr], acc[adr + 1], acc[adr + 2]);
    let alpha = data.xmat[body] * DVec3::new(acc[adr + 3], acc[adr + 4], acc[adr + 5]);
    let a_com = |omega: DVec3, r: DVec3| a + alpha.cross(r) + omega.cross(omega.cross(r));
    step_centre_of_mass(data, body, adr, ipos, a_com, h, acc, &mut mid, &mut next);
    MidpointBody { adr, first: 0, mid, next }
}

/// The translation of a body anchored at its centre of mass (`ipos`, body frame), its rotation already stepped
/// (`mid[3..]`: the body-frame angular velocity of the position update, `next[3..]`: the new one): with `r` the
/// centre of mass's offset and `ω` the world angular velocity before the step, `v_c' = v + ω × r + h a_c(ω, r)`,
/// `x_c' = x + r + h v_c'`, and the origin read off the centre of mass at the new orientation `R'`:
/// `x' = x_c' − R' ipos`, `v' = v_c' − (R' ω'_body) × R' ipos`. Writes the translation's acceleration into `acc`, the
/// velocity that moves the origin to `x'` into `mid[..3]` and `v'` into `next[..3]`.
#[allow(clippy::too_many_arguments)]
fn step_centre_of_mass(
    data: &Data,
    body: usize,
    adr: usize,
    ipos: DVec3,
    a_com: impl Fn(DVec3, DVec3) -> DVec3,
    h: f64,
    acc: &mut [f64],
    mid: &mut [f64; 6],
    next: &mut [f64; 6],
) {
    let rot = data.xmat[body];
    let r = rot * ipos;
    let x = data.xpos[body];
    let v = DVec3::new(data.qvel[adr], data.qvel[adr + 1], data.qvel[adr + 2]);
    let omega = rot * DVec3::new(data.qvel[adr + 3], data.qvel[adr + 4], data.qvel[adr + 5]);
    let v_com = v + omega.cross(r) + h * a_com(omega, r);
    let x_com = x + r + h * v_com;
    let w_mid = DVec3::new(mid[3], mid[4], mid[5]);
    let rot_new = DMat3::from_quat(signorini_model::kinematics::quat_integrate(data.xquat[body], w_mid * h));
    let r_new = rot_new * ipos;
    let x_new = x_com - r_new;
    let v_new = v_com - (rot_new * DVec3::new(next[3], next[4], next[5])).cross(r_new);
    for k in 0..3 {
        mid[k] = (x_new[k] - x[k]) / h;
        next[k] = v_new[k];
        acc[adr + k] = (v_new[k] - v[k]) / h;
    }
}
