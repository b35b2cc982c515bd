//! Passive joint forces (MuJoCo `mj_passive`, springs, dampers, tendons and gravity compensation):
//! `qfrc_passive = −k (q ⊖ q_spring) − b q̇ + Jᵀ f_tendon + qfrc_gravcomp`, where `qfrc_gravcomp = Σ_b J_bᵀ (−gravcomp_b m_b g)`
//! with `J_b` the translational Jacobian of body `b`'s centre of mass (the dofs of `actuatorgravcomp` joints take
//! it as an actuator force instead, [`Model::actuation`]).
//!
//! Hinge/slide: `q ⊖ q_s = q − springref`. Ball and the rotation of a free joint: the body-frame rotation vector
//! `log(q_s⁻¹ q)` (angle in `[−π, π]`); the translation of a free joint: `x − x_s`. Damping is per dof.

use glam::{DQuat, DVec3};
use signorini_geometry::rotation::{mul_quat, normalize_vec3};

use crate::data::Data;
use crate::kinematics::quat_from_wxyz;
use crate::model::{MINVAL, Model};
use crate::spec::JointKind;

/// The rotation vector `θ a` of a unit quaternion, `θ ∈ [−π, π]` (MuJoCo `mju_quat2Vel` with unit time), in MuJoCo
/// 4.0.1's arithmetic: the axis `(x, y, z)` times the reciprocal of its norm `s` (`e_x` below `mjMINVAL`), then
/// times `θ = 2 atan2(s, w)`.
pub fn quat_to_rotvec(q: DQuat) -> DVec3 {
    let (axis, s) = normalize_vec3(DVec3::new(q.x, q.y, q.z), MINVAL);
    let mut angle = 2.0 * s.atan2(q.w);
    if angle > std::f64::consts::PI {
        angle -= 2.0 * std::f64::consts::PI;
    }
    axis * angle
}

/// `log(b⁻¹ a)`: the body-frame rotation vector that takes orientation `b` to `a` (MuJoCo `mju_subQuat`).
#[inline]
pub fn quat_difference(a: DQuat, b: DQuat) -> DVec3 {
    quat_to_rotvec(mul_quat(b.conjugate(), a))
}

impl Model {
    /// The spring displacement `q ⊖ q_spring` of joint `j`'s dofs, written to `out[..nv(j)]`.
    pub(crate) fn spring_displacement(&self, d: &Data, j: usize, out: &mut [f64; 6]) {
        let qa = self.jnt_qposadr[j];
        let q = &d.qpos;
        let s = &self.qpos_spring;
        let rot = |at: usize| {
            quat_difference(quat_from_wxyz(&q[at..at + 4]), quat_from_wxyz(&s[at..at + 4])).to_array()
        };
        match self.jnt_type[j] {
            JointKind::Free => {
                for k in 0..3 {
                    out[k] = q[qa + k] - s[qa + k];
                }
                out[3..6].copy_from_slice(&rot(qa + 3));
            }
            JointKind::Ball => out[..3].copy_from_slice(&rot(qa)),
            JointKind::Hinge | JointKind::Slide => out[0] = q[qa] - s[qa],
        }
    }

    /// Computes `qfrc_passive` from `qpos` and `qvel`. The springs and the dampers are summed apart and then added
    /// (`qfrc_spring + qfrc_damper`, as MuJoCo's `mj_passive`): a tendon adds `J f_spring` to one and `J f_damper` to
    /// the other.
    pub fn passive(&self, d: &mut Data) {
        for dof in 0..self.nv {
            let damping = d.dof_damping[dof];
            d.qfrc_spring[dof] = 0.0;
            d.qfrc_damper[dof] = if damping != 0.0 { -d.qvel[dof] * damping } else { 0.0 };
        }
        for j in 0..self.njnt {
            let k = d.jnt_stiffness[j];
            if k == 0.0 {
                continue;
            }
            let mut dq = [0.0; 6];
            self.spring_displacement(d, j, &mut dq);
            let da = self.jnt_dofadr[j];
            for (t, x) in dq.iter().take(self.jnt_type[j].nv()).enumerate() {
                d.qfrc_spring[da + t] -= k * x;
            }
        }
        if !self.tendons.is_empty() {
            self.tendon_state(d);
            self.tendon_passive(d);
        }
        for dof in 0..self.nv {
            d.qfrc_passive[dof] = d.qfrc_spring[dof] + d.qfrc_damper[dof];
        }
        self.fluid(d);
        if self.has_gravcomp {
            self.gravity_compensation(d);
            for dof in 0..self.nv {
                if !self.jnt_actgravcomp[self.dof_jntid[dof]] {
                    d.qfrc_passive[dof] += d.qfrc_gravcomp[dof];
                }
            }
        }
    }

    /// `qfrc_gravcomp = Σ_b J_bᵀ f_b`, `f_b = −gravcomp_b m_b g` at `xipos[b]` (MuJoCo `mj_gravcomp`, with this data's
    /// gravity and masses), in `mj_applyFT`'s arithmetic: body by body, each column `J_b,k` as `mj_jac` forms it and
    /// `Jᵀ f` summed over the force's non-zero components.
    fn gravity_compensation(&self, d: &mut Data) {
        d.qfrc_gravcomp.fill(0.0);
        if d.gravity == DVec3::ZERO {
            return;
        }
        for b in 1..self.nbody {
            if self.body_gravcomp[b] == 0.0 || !d.body_awake[b] {
                continue;
            }
            let f = d.gravity * -(d.body_mass[b] * self.body_gravcomp[b]);
            for dof in self.dof_chain(b) {
                let (lin, _) = self.jacobian_column(d, dof, d.xipos[b]);
                d.qfrc_gravcomp[dof] += crate::jacobian::transpose_entry(lin, f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_vectors_take_the_short_way() {
        let axis = DVec3::new(1.0, -2.0, 0.5).normalize();
        for angle in [0.0, 1e-9, 0.4, 3.0, -2.5] {
            let q = DQuat::from_axis_angle(axis, angle);
            assert!((quat_to_rotvec(q) - axis * angle).length() < 1e-15);
            assert!((quat_to_rotvec(-q) - axis * angle).length() < 1e-14);
        }
        let a = DQuat::from_axis_angle(DVec3::Z, 0.3);
        let b = DQuat::from_axis_angle(DVec3::X, -0.2);
        let w = quat_difference(a * b, a);
        assert!((w - DVec3::X * -0.2).length() < 1e-15);
    }
}
