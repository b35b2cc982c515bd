//! Point and body Jacobians, and the products `J·v`, `Jᵀ·f`, walking only the dofs on the body's chain.
//!
//! For a world point `x` fixed to body `b` and a dof `d` on `b`'s chain (tree reference point `c`), column `d` of
//! the translational Jacobian is `cdof_d.lin + cdof_d.ang × (x − c)` and of the rotational Jacobian `cdof_d.ang`:
//! `(ẋ, ω_b) = (jacp, jacr) q̇` in world coordinates. Every other column is zero. Run
//! [`Model::forward_kinematics`] first.

use glam::DVec3;

use crate::data::Data;
use crate::model::Model;
use crate::spatial::SpatialVec;

/// Entry `k` of `Jᵀ f` from column `k` of a translational or rotational Jacobian, as MuJoCo's `mju_mulMatTVec` sums it
/// in `mj_applyFT`: over the non-zero components of `f`, from 0.
#[inline]
pub(crate) fn transpose_entry(column: DVec3, f: DVec3) -> f64 {
    let mut sum = 0.0;
    for r in 0..3 {
        if f[r] != 0.0 {
            sum += column[r] * f[r];
        }
    }
    sum
}

impl Model {
    /// The tree reference point of `body` (`subtree_com` of its root).
    #[inline]
    fn reference_point(&self, d: &Data, body: usize) -> DVec3 {
        d.subtree_com[self.body_rootid[body]]
    }

    /// Column `dof` of the Jacobian of world point `point` (fixed to a body moved by `dof`): `(linear, angular)`.
    #[inline]
    pub fn jacobian_column(&self, d: &Data, dof: usize, point: DVec3) -> (DVec3, DVec3) {
        let s = d.cdof[dof];
        let c = self.reference_point(d, self.dof_bodyid[dof]);
        (s.lin + s.ang.cross(point - c), s.ang)
    }

    /// Dense Jacobians of world point `point` fixed to `body`: `jacp`, `jacr` are `3 × nv` row-major (MuJoCo
    /// `mj_jac`). Zeroes them, then writes the chain's columns.
    pub fn jacobian_point(&self, d: &Data, body: usize, point: DVec3, jacp: &mut [f64], jacr: &mut [f64]) {
        let nv = self.nv;
        assert!(
            jacp.len() == 3 * nv && jacr.len() == 3 * nv,
            "jacobian_point: jacp and jacr need 3·nv entries"
        );
        jacp.fill(0.0);
        jacr.fill(0.0);
        for dof in self.dof_chain(body) {
            let (lin, ang) = self.jacobian_column(d, dof, point);
            for r in 0..3 {
                jacp[r * nv + dof] = lin[r];
                jacr[r * nv + dof] = ang[r];
            }
        }
    }

    /// [`Model::jacobian_point`] at the body frame origin `xpos`.
    pub fn jacobian_body(&self, d: &Data, body: usize, jacp: &mut [f64], jacr: &mut [f64]) {
        self.jacobian_point(d, body, d.xpos[body], jacp, jacr);
    }

    /// [`Model::jacobian_point`] at the body's centre of mass `xipos`.
    pub fn jacobian_body_com(&self, d: &Data, body: usize, jacp: &mut [f64], jacr: &mut [f64]) {
        self.jacobian_point(d, body, d.xipos[body], jacp, jacr);
    }

    /// `J·v`: the world velocity of point `point` fixed to `body` and the body's angular velocity, for the
    /// generalized velocity `v` (`nv`): `(linear, angular)`.
    pub fn point_velocity(&self, d: &Data, body: usize, point: DVec3, v: &[f64]) -> (DVec3, DVec3) {
        let mut sum = SpatialVec::ZERO;
        for dof in self.dof_chain(body) {
            sum += d.cdof[dof].scale(v[dof]);
        }
        (sum.lin + sum.ang.cross(point - self.reference_point(d, body)), sum.ang)
    }

    /// `out += Jᵀ (force, torque)`: the generalized force of a world force applied at point `point` fixed to `body`
    /// plus a torque on `body`.
    pub fn add_jacobian_transpose(
        &self,
        d: &Data,
        body: usize,
        point: DVec3,
        force: DVec3,
        torque: DVec3,
        out: &mut [f64],
    ) {
        let f = SpatialVec::new(torque + (point - self.reference_point(d, body)).cross(force), force);
        for dof in self.dof_chain(body) {
            out[dof] += d.cdof[dof].dot(f);
        }
    }
}
