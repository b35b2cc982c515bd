//! Velocities and recursive Newton–Euler (MuJoCo `mj_comVel`, `mj_rne`).
//!
//! Forward pass: `cvel_b = cvel_parent + Σ cdof_d q̇_d`, and for the dofs of each joint (the translations and the
//! rotations of a free joint counting as two joints) `cdof_dot_d = v ×ₘ cdof_d` with `v` the velocity accumulated
//! before that joint. Accelerations start from `cacc_world = (0, −g)` (gravity as an upward acceleration of the
//! world) and add `cdof_dot_d q̇_d + cdof_d q̈_d`. Body forces `f_b = I_b a_b + v_b ×_f (I_b v_b)` accumulate from
//! the leaves to the root, and `τ_d = cdof_d · f_{body(d)}`.

use crate::data::Data;
use crate::model::Model;
use crate::spatial::SpatialVec;
use crate::spec::JointKind;

impl Model {
    /// Computes `cvel` and `cdof_dot` from `qvel` (after [`Model::forward_kinematics`]).
    pub fn com_velocity(&self, d: &mut Data) {
        d.cvel[0] = SpatialVec::ZERO;
        for b in 1..self.nbody {
            if !d.body_awake[b] {
                continue;
            }
            let mut v = d.cvel[self.body_parent[b]];
            let jnt0 = self.body_jntadr[b];
            for j in jnt0..jnt0 + self.body_jntnum[b] {
                let da = self.jnt_dofadr[j];
                let groups: &[(usize, usize)] = match self.jnt_type[j] {
                    JointKind::Free => &[(0, 3), (3, 3)],
                    JointKind::Ball => &[(0, 3)],
                    JointKind::Hinge | JointKind::Slide => &[(0, 1)],
                };
                for &(start, len) in groups {
                    let dofs = da + start..da + start + len;
                    let mut dv = SpatialVec::ZERO;
                    for dof in dofs {
                        d.cdof_dot[dof] = v.cross_motion(d.cdof[dof]);
                        dv += d.cdof[dof].scale(d.qvel[dof]);
                    }
                    v += dv;
                }
            }
            d.cvel[b] = v;
        }
    }

    /// Bias forces `qfrc_bias = C(q, q̇) q̇ + g(q)` (velocities from [`Model::com_velocity`], which this runs).
    pub fn bias(&self, d: &mut Data) {
        self.com_velocity(d);
        self.rne_passes(d, None);
        for &dof in &d.awake_dofs {
            d.qfrc_bias[dof] = d.cdof[dof].dot(d.cfrc[self.dof_bodyid[dof]]);
        }
    }

    /// Inverse dynamics: `out = M(q) qacc + C(q, q̇) q̇ + g(q)` by RNE plus `armature ⊙ qacc` (after
    /// [`Model::forward_kinematics`]; runs [`Model::com_velocity`]).
    pub fn inverse_dynamics(&self, d: &mut Data, qacc: &[f64], out: &mut [f64]) {
        assert!(
            qacc.len() == self.nv && out.len() == self.nv,
            "inverse_dynamics: qacc and out need nv entries"
        );
        self.com_velocity(d);
        self.rne_passes(d, Some(qacc));
        for dof in 0..self.nv {
            out[dof] = d.cdof[dof].dot(d.cfrc[self.dof_bodyid[dof]]) + d.dof_armature[dof] * qacc[dof];
        }
    }

    /// Fills `cacc` and the accumulated body forces `cfrc` (subtree sums).
    fn rne_passes(&self, d: &mut Data, qacc: Option<&[f64]>) {
        d.rne_cacc[0] = SpatialVec::new(glam::DVec3::ZERO, -d.gravity);
        for b in 1..self.nbody {
            if !d.body_awake[b] {
                continue;
            }
            // `cacc = cacc_parent + Σ cdof_dot q̇ (+ Σ cdof q̈)`, each sum formed on its own first (MuJoCo's
            // `mju_mulDofVec`: one product for a single dof, else row by row with zero entries skipped).
            let dofs = self.body_dofadr[b]..self.body_dofadr[b] + self.body_dofnum[b];
            let mut a = d.rne_cacc[self.body_parent[b]] + dof_sum(&d.cdof_dot, &d.qvel, dofs.clone());
            if let Some(qacc) = qacc {
                a += dof_sum(&d.cdof, qacc, dofs);
            }
            d.rne_cacc[b] = a;
            let inertia = &d.cinert[b];
            let v = d.cvel[b];
            d.cfrc[b] = inertia.mul_motion(a) + v.cross_force(inertia.mul_motion(v));
        }
        for b in (1..self.nbody).rev() {
            let p = self.body_parent[b];
            if p > 0 && d.body_awake[b] {
                let f = d.cfrc[b];
                d.cfrc[p] += f;
            }
        }
    }
}

/// `Σ_k basis_k x_k` over `dofs` as MuJoCo's `mju_mulDofVec` forms it: `basis_k x_k` for a single dof, else the
/// products added one at a time from zero, with zero `x_k` skipped.
fn dof_sum(basis: &[SpatialVec], x: &[f64], dofs: std::ops::Range<usize>) -> SpatialVec {
    if dofs.len() == 1 {
        return basis[dofs.start].scale(x[dofs.start]);
    }
    let mut sum = SpatialVec::ZERO;
    for k in dofs {
        if x[k] != 0.0 {
            sum += basis[k].scale(x[k]);
        }
    }
    sum
}
