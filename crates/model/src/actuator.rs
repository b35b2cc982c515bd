//! Actuators (MuJoCo `general` with affine gain and bias; joint or fixed-tendon transmission).
//!
//! `length = gear·q` (a tendon: `gear·L`), `velocity = gear·q̇` (`gear·L̇`), `ctrl` clamped to `ctrlrange`,
//! `force = gain·ctrl + bias₀ + bias₁·length + bias₂·velocity` clamped to `forcerange`, and
//! `qfrc_actuator += gear·force·J` (`J` the joint's unit row or the tendon's Jacobian; [`Model::tendon_state`] runs
//! first, in [`Model::passive`]). Motor: `gain = 1`, no bias; position: `gain = kp`, `bias = (0, −kp, −kv)`;
//! velocity: `gain = kv`, `bias = (0, 0, −kv)` (see the constructors of [`crate::spec::ActuatorSpec`]).

use crate::data::Data;
use crate::model::Model;
use crate::spec::Transmission;

fn clamp(x: f64, range: Option<[f64; 2]>) -> f64 {
    match range {
        Some([lo, hi]) => x.clamp(lo, hi),
        None => x,
    }
}

impl Model {
    /// Computes `actuator_length`, `actuator_velocity`, `actuator_force` and `qfrc_actuator` from `ctrl`, `qpos`
    /// and `qvel`.
    pub fn actuation(&self, d: &mut Data) {
        d.qfrc_actuator.fill(0.0);
        for u in 0..self.nu {
            let gear = self.actuator_gear[u];
            let (length, velocity) = match self.actuator_transmission[u] {
                Transmission::Joint(j) => (d.qpos[self.jnt_qposadr[j]], d.qvel[self.jnt_dofadr[j]]),
                Transmission::Tendon(t) => (d.ten_length[t], d.ten_velocity[t]),
            };
            let (length, velocity) = (gear * length, gear * velocity);
            let ctrl = clamp(d.ctrl[u], self.actuator_ctrlrange[u]);
            let [b0, b1, b2] = self.actuator_bias[u];
            let force = self.actuator_gain[u] * ctrl + b0 + b1 * length + b2 * velocity;
            let force = clamp(force, self.actuator_forcerange[u]);
            d.actuator_length[u] = length;
            d.actuator_velocity[u] = velocity;
            d.actuator_force[u] = force;
            match self.actuator_transmission[u] {
                Transmission::Joint(j) => d.qfrc_actuator[self.jnt_dofadr[j]] += gear * force,
                Transmission::Tendon(t) => {
                    for (dof, c) in self.tendons.jacobian(t) {
                        d.qfrc_actuator[dof] += gear * force * c;
                    }
                }
            }
        }
        if self.has_gravcomp {
            // MuJoCo `actuatorgravcomp`: the compensation of these joints' dofs is applied as an actuator force.
            for dof in 0..self.nv {
                if self.jnt_actgravcomp[self.dof_jntid[dof]] {
                    d.qfrc_actuator[dof] += d.qfrc_gravcomp[dof];
                }
            }
        }
        // Joint-level limits of the total actuator force (MuJoCo `actuatorfrcrange`), gravity compensation included.
        for (j, range) in self.jnt_actfrcrange.iter().enumerate() {
            if let Some(r) = range {
                let dof = self.jnt_dofadr[j];
                d.qfrc_actuator[dof] = clamp(d.qfrc_actuator[dof], Some(*r));
            }
        }
    }
}
