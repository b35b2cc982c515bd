//! Forward kinematics (MuJoCo `mj_kinematics` + `mj_comPos`): body, inertial-frame, geom and site poses, subtree
//! centres of mass, motion subspaces `cdof` and body inertias `cinert`.
//!
//! Per body: start from the parent pose composed with `(body_pos, body_quat)`, then apply the joints in order.
//! A slide moves the frame by `axis·(q − q0)`; a hinge rotates it by `(axis, q − q0)` about its anchor; a ball
//! rotates it by the unit quaternion in qpos about its anchor; a free joint sets the world pose to qpos.
//! Motion subspaces (world axes, see [`crate::spatial`]): slide `(0, a)`, rotation about unit axis `a` through
//! anchor `p` `(a, a × (c − p))`; the free joint's translations are the world axes and the rotations of free and
//! ball joints are about the axes of the frame just after the joint (the body frame when it is the body's last
//! joint, as in MuJoCo), matching `qvel` in that frame.

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::rotation::{mul_quat, normalize_quat, normalize_vec3, quat_to_mat, rotate_vec};

use crate::data::Data;
use crate::model::{MINVAL, Model};
use crate::spatial::{SpatialInertia, SpatialVec};
use crate::spec::JointKind;

/// The unit quaternion of a `(w, x, y, z)` slice, normalised; the identity when its norm is below [`MINVAL`]
/// (MuJoCo `mju_normalize4`).
#[inline]
pub fn quat_from_wxyz(q: &[f64]) -> DQuat {
    unit_quat(DQuat::from_xyzw(q[1], q[2], q[3], q[0]))
}

/// `q / |q|` with MuJoCo's arithmetic (`mju_normalize4`, [`normalize_quat`]): identity below `MINVAL`, unchanged
/// when `|q|` is within `MINVAL` of 1, else scaled by `1/|q|`. Keeping the bits of an already unit quaternion keeps
/// poses (and the contacts that depend on them to rounding) equal to MuJoCo's.
#[inline]
pub fn unit_quat(q: DQuat) -> DQuat {
    normalize_quat(q, MINVAL)
}

/// How a ball or free joint's quaternion is turned by the body-frame rotation `h ω` in [`Model::integrate_qpos`]. The
/// two agree to rounding; a resting body can tell them apart (an upright cylinder on the floor in native mode settles
/// with one and keeps rocking at 4e-4 rad/s with the other).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuaternionStep {
    /// MuJoCo's `mju_quatIntegrate` ([`quat_integrate_scaled`]).
    MuJoCo,
    /// Genesis's: the rotation vector `h ω`, the product, then a normalisation ([`quat_integrate`]).
    Genesis,
}

/// `q ⊗ exp(ω)`: `q` rotated by the body-frame rotation vector `ω`, then normalised (the free-body midpoint rule's
/// rotation, as Genesis composes it).
#[inline]
pub fn quat_integrate(q: DQuat, omega: DVec3) -> DQuat {
    let angle = omega.length();
    if angle < MINVAL {
        return q;
    }
    (q * DQuat::from_axis_angle(omega / angle, angle)).normalize()
}

/// `q ⊗ exp(h ω)` with MuJoCo 4.0.1's arithmetic (`mju_quatIntegrate(q, ω, h)`): the axis `ω / |ω|` and `|ω|` from
/// [`normalize_vec3`] (`mju_normalize3`: `e_x` below `MINVAL`, scaled even when `|ω|` is 1 to rounding), the angle
/// `h |ω|`, `q` normalised first ([`unit_quat`]) and not after.
#[inline]
pub fn quat_integrate_scaled(q: DQuat, omega: DVec3, h: f64) -> DQuat {
    let (axis, norm) = normalize_vec3(omega, MINVAL);
    mul_quat(unit_quat(q), axis_angle(axis, h * norm))
}

/// The matrix of `xquat ⊗ q` (`mj_local2Global`'s orientation); `mat`, the matrix of `xquat`, for the identity (most
/// frames are aligned with their body's; the product would give the same bits).
#[inline]
fn rotated(mat: DMat3, xquat: DQuat, q: DQuat) -> DMat3 {
    if q == DQuat::IDENTITY { mat } else { quat_to_mat(mul_quat(xquat, q)) }
}

/// The rotation by `angle` about the unit `axis` (`mju_axisAngle2Quat`): exactly the identity for a zero angle.
#[inline]
fn axis_angle(axis: DVec3, angle: f64) -> DQuat {
    if angle == 0.0 { DQuat::IDENTITY } else { DQuat::from_axis_angle(axis, angle) }
}

impl Model {
    /// The mocap bodies in order of their mocap index.
    pub fn mocap_bodies(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.nbody).filter(|&b| self.body_mocapid[b].is_some())
    }

    /// `qpos ← qpos ⊕ h·qvel` (MuJoCo `mj_integratePos`): hinge/slide and free translations add `h·q̇`; ball and
    /// free orientations are right-multiplied by `exp(h ω)` with the body-frame `ω`.
    pub fn integrate_qpos(&self, qpos: &mut [f64], qvel: &[f64], h: f64) {
        for j in 0..self.njnt {
            let qa = self.jnt_qposadr[j];
            let da = self.jnt_dofadr[j];
            let rotate = |qpos: &mut [f64], at: usize, w: usize| {
                let omega = DVec3::new(qvel[w], qvel[w + 1], qvel[w + 2]);
                let q = DQuat::from_xyzw(qpos[at + 1], qpos[at + 2], qpos[at + 3], qpos[at]);
                let q = match self.quaternion_step {
                    QuaternionStep::MuJoCo => quat_integrate_scaled(q, omega, h),
                    QuaternionStep::Genesis => quat_integrate(unit_quat(q), omega * h),
                };
                qpos[at..at + 4].copy_from_slice(&[q.w, q.x, q.y, q.z]);
            };
            match self.jnt_type[j] {
                JointKind::Free => {
                    for k in 0..3 {
                        qpos[qa + k] += h * qvel[da + k];
                    }
                    rotate(qpos, qa + 3, da + 3);
                }
                JointKind::Ball => rotate(qpos, qa, da),
                JointKind::Hinge | JointKind::Slide => qpos[qa] += h * qvel[da],
            }
        }
    }

    /// Computes `xpos`, `xquat`, `xmat`, `xipos`, `ximat`, `xanchor`, `xaxis`, geom and site poses,
    /// `subtree_com`, `cdof` and `cinert` from `qpos`.
    pub fn forward_kinematics(&self, d: &mut Data) {
        d.xpos[0] = DVec3::ZERO;
        d.xquat[0] = DQuat::IDENTITY;
        d.xmat[0] = DMat3::IDENTITY;
        d.xipos[0] = DVec3::ZERO;
        d.ximat[0] = DMat3::IDENTITY;
        for b in 1..self.nbody {
            if !d.body_awake[b] {
                continue;
            }
            let parent = self.body_parent[b];
            let (mut pos, mut quat) = match self.body_mocapid[b] {
                // A mocap body is a child of the world: its input pose is its world pose.
                Some(i) => (d.mocap_pos[i], unit_quat(d.mocap_quat[i])),
                None => (
                    d.xpos[parent] + d.xmat[parent] * self.body_pos[b],
                    mul_quat(d.xquat[parent], self.body_quat[b]),
                ),
            };
            let jnt0 = self.body_jntadr[b];
            let last = jnt0 + self.body_jntnum[b];
            // The rotational dofs of a ball or free joint that is the body's last joint: their axes are the body
            // frame's, taken from its matrix once it is made.
            let mut body_frame_dofs = None;
            for j in jnt0..last {
                let qa = self.jnt_qposadr[j];
                let da = self.jnt_dofadr[j];
                let anchor = rotate_vec(quat, self.jnt_pos[j]) + pos;
                let axis = rotate_vec(quat, self.jnt_axis[j]);
                d.xanchor[j] = anchor;
                d.xaxis[j] = axis;
                match self.jnt_type[j] {
                    JointKind::Free => {
                        pos = DVec3::new(d.qpos[qa], d.qpos[qa + 1], d.qpos[qa + 2]);
                        quat = quat_from_wxyz(&d.qpos[qa + 3..qa + 7]);
                        d.xanchor[j] = pos;
                        for k in 0..3 {
                            d.cdof[da + k] = SpatialVec::new(DVec3::ZERO, DVec3::AXES[k]);
                        }
                        self.rotation_dofs(d, da + 3, quat, j + 1 == last, &mut body_frame_dofs);
                    }
                    JointKind::Ball => {
                        quat = mul_quat(quat, quat_from_wxyz(&d.qpos[qa..qa + 4]));
                        pos = anchor - rotate_vec(quat, self.jnt_pos[j]);
                        self.rotation_dofs(d, da, quat, j + 1 == last, &mut body_frame_dofs);
                    }
                    JointKind::Hinge => {
                        let angle = d.qpos[qa] - self.qpos0[qa];
                        quat = mul_quat(quat, axis_angle(self.jnt_axis[j], angle));
                        pos = anchor - rotate_vec(quat, self.jnt_pos[j]);
                        d.cdof[da].ang = axis;
                    }
                    JointKind::Slide => {
                        pos += axis * (d.qpos[qa] - self.qpos0[qa]);
                        d.cdof[da] = SpatialVec::new(DVec3::ZERO, axis);
                    }
                }
            }
            let quat = unit_quat(quat);
            let mat = quat_to_mat(quat);
            if let Some(r) = body_frame_dofs {
                for k in 0..3 {
                    d.cdof[r + k].ang = mat.col(k);
                }
            }
            d.xpos[b] = pos;
            d.xquat[b] = quat;
            d.xmat[b] = mat;
            d.xipos[b] = pos + mat * self.body_ipos[b];
            d.ximat[b] = rotated(mat, quat, self.body_iquat[b]);
        }
        let geoms = self.collision.geoms();
        for g in 0..self.ngeom {
            let b = geoms.body[g];
            if !d.body_awake[b] {
                continue;
            }
            let local = &geoms.local_pose[g];
            d.geom_xpos[g] = d.xpos[b] + d.xmat[b] * local.translation;
            d.geom_xmat[g] = rotated(d.xmat[b], d.xquat[b], local.rotation);
        }
        for s in 0..self.nsite {
            let b = self.site_bodyid[s];
            if !d.body_awake[b] {
                continue;
            }
            d.site_xpos[s] = d.xpos[b] + d.xmat[b] * self.site_pos[s];
            d.site_xmat[s] = rotated(d.xmat[b], d.xquat[b], self.site_quat[s]);
        }
        self.com_positions(d);
    }

    /// The axes of the rotational dofs `dof..dof + 3` of a ball or free joint: those of the frame `quat` just after
    /// the joint. For the body's last joint that frame is the body's, whose matrix forward kinematics makes anyway:
    /// the dofs are left to `deferred` and take its columns.
    #[inline]
    fn rotation_dofs(&self, d: &mut Data, dof: usize, quat: DQuat, last: bool, deferred: &mut Option<usize>) {
        if last {
            *deferred = Some(dof);
            return;
        }
        let frame = quat_to_mat(unit_quat(quat));
        for k in 0..3 {
            d.cdof[dof + k].ang = frame.col(k);
        }
    }

    /// `subtree_com`, the rotational `cdof` linear parts about the tree reference point, and `cinert`.
    fn com_positions(&self, d: &mut Data) {
        for b in 0..self.nbody {
            d.subtree_com[b] = d.xipos[b] * d.body_mass[b];
        }
        for b in (1..self.nbody).rev() {
            let moment = d.subtree_com[b];
            d.subtree_com[self.body_parent[b]] += moment;
        }
        for b in 0..self.nbody {
            let mass = d.body_subtreemass[b];
            // MuJoCo scales by the reciprocal of the mass.
            d.subtree_com[b] = if mass < MINVAL { d.xipos[b] } else { d.subtree_com[b] * (1.0 / mass) };
        }
        for dof in 0..self.nv {
            if !d.dof_awake[dof] {
                continue;
            }
            let j = self.dof_jntid[dof];
            let rotational = match self.jnt_type[j] {
                JointKind::Slide => false,
                JointKind::Free => dof - self.jnt_dofadr[j] >= 3,
                JointKind::Ball | JointKind::Hinge => true,
            };
            if rotational {
                let c = d.subtree_com[self.body_rootid[self.dof_bodyid[dof]]];
                let ang = d.cdof[dof].ang;
                d.cdof[dof].lin = ang.cross(c - d.xanchor[j]);
            }
        }
        d.cinert[0] = SpatialInertia::ZERO;
        for b in 1..self.nbody {
            if !d.body_awake[b] {
                continue;
            }
            let c = d.subtree_com[self.body_rootid[b]];
            d.cinert[b] =
                SpatialInertia::from_principal(d.body_mass[b], d.body_inertia[b], d.ximat[b], d.xipos[b] - c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mujoco.mju_quatIntegrate` of 4.0.1 with `|ω|` 1.1e-16 short of 1: the axis is scaled by `1/|ω|` all the same
    /// (3.x's source left it alone, which moves `x` by one bit here).
    #[test]
    fn quat_integrate_matches_mujoco_bits_near_unit_rate() {
        let q = DQuat::from_xyzw(
            0.10259783520851541,
            -0.3077935056255462,
            0.20519567041703082,
            0.9233805168766387,
        );
        let omega = DVec3::new(-0.5878836575040151, 0.7249926029290347, -0.35885725705060634);
        let p = quat_integrate_scaled(q, omega, 0.01);
        let mujoco = [0.9251544650089942, 0.09969080621771947, -0.3048615162107793, 0.20300348510123536];
        assert_eq!([p.w, p.x, p.y, p.z].map(f64::to_bits), mujoco.map(f64::to_bits));
    }
}
