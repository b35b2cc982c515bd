//! The smooth forward dynamics of one state (spec §D.1 steps 1–2): kinematics, `M` and its factor, bias, passive
//! and actuator forces, and the unconstrained acceleration
//! `qacc_smooth = M⁻¹ (qfrc_applied + qfrc_passive + qfrc_actuator + Σ_b J_bᵀ xfrc_applied_b − qfrc_bias)`.

use crate::data::Data;
use crate::error::DynamicsError;
use crate::model::Model;
use crate::spatial::SpatialVec;

impl Model {
    /// Computes `qfrc_smooth` and `qacc_smooth` from the forces already in `d` (after [`Model::bias`],
    /// [`Model::passive`], [`Model::actuation`] and [`Model::factor_m`]). Each `xfrc_applied[b]` acts at `xipos[b]`.
    pub fn smooth_acceleration(&self, d: &mut Data) {
        d.cfrc[0] = SpatialVec::ZERO;
        for b in 1..self.nbody {
            if !d.body_awake[b] {
                continue;
            }
            let w = d.xfrc_applied[b];
            let r = d.xipos[b] - d.subtree_com[self.body_rootid[b]];
            d.cfrc[b] = SpatialVec::new(w.torque + r.cross(w.force), w.force);
        }
        for b in (1..self.nbody).rev() {
            let p = self.body_parent[b];
            if p > 0 && d.body_awake[b] {
                let f = d.cfrc[b];
                d.cfrc[p] += f;
            }
        }
        for &dof in &d.awake_dofs {
            // MuJoCo's order: `((passive − bias) + applied) + actuator`, then the applied wrenches.
            d.qfrc_smooth[dof] = d.qfrc_passive[dof] - d.qfrc_bias[dof]
                + d.qfrc_applied[dof]
                + d.qfrc_actuator[dof]
                + d.cdof[dof].dot(d.cfrc[self.dof_bodyid[dof]]);
        }
        let mut x = std::mem::take(&mut d.qacc_smooth);
        if d.all_awake {
            x.copy_from_slice(&d.qfrc_smooth);
            self.solve_m(d, &mut x);
        } else {
            for &dof in &d.awake_dofs {
                x[dof] = d.qfrc_smooth[dof];
            }
            self.tree_layout().solve_on(&d.qld, &d.qld_diag_inv, &mut x, &d.awake_dofs);
        }
        d.qacc_smooth = x;
    }

    /// Runs [`Model::forward_kinematics`], [`Model::mass_matrix`], [`Model::factor_m`], [`Model::bias`],
    /// [`Model::passive`], [`Model::actuation`] and [`Model::smooth_acceleration`].
    pub fn forward(&self, d: &mut Data) -> Result<(), DynamicsError> {
        self.forward_kinematics(d);
        self.mass_matrix(d);
        self.factor_m(d)?;
        self.bias(d);
        self.passive(d);
        self.actuation(d);
        self.smooth_acceleration(d);
        Ok(())
    }
}
