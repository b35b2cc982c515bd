//! Actuators (MuJoCo `general` with affine gain and bias; joint or fixed-tendon transmission).
//!
//! `length = gear·q` (a tendon: `gear·L`), `velocity = gear·q̇` (`gear·L̇`), `ctrl` clamped to `ctrlrange`,
//! `force = gain·ctrl + bias₀ + bias₁·length + bias₂·velocity` clamped to `forcerange`, and
//! `qfrc_actuator += gear·force·J` (`J` the joint's unit row or the tendon's Jacobian; [`Model::tendon_state`] runs
//! first, in [`Model::passive`]). Motor: `gain = 1`, no bias; position: `gain = kp`, `bias = (0, −kp, −kv)`;
//! velocity: `gain = kv`, `bias = (0, 0, −kv)` (see the constructors of [`crate::spec::ActuatorSpec`]).

use crate::data::Data;
use crate::model::{MINVAL, Model};
use crate::spec::{ActuatorDynamics, Transmission};

/// `act_dot` of activation dynamics `dynamics` at control `ctrl` (clamped) and activation `act`.
fn activation_rate(dynamics: ActuatorDynamics, ctrl: f64, act: f64) -> f64 {
    match dynamics {
        ActuatorDynamics::None => 0.0,
        ActuatorDynamics::Integrator => ctrl,
        ActuatorDynamics::Filter { tau } | ActuatorDynamics::FilterExact { tau } => {
            (ctrl - act) / tau.max(MINVAL)
        }
    }
}

fn clamp(x: f64, range: Option<[f64; 2]>) -> f64 {
    match range {
        Some([lo, hi]) => x.clamp(lo, hi),
        None => x,
    }
}

impl Model {
    /// Computes `actuator_length`, `actuator_velocity`, `act_dot`, `actuator_force` and `qfrc_actuator` from `ctrl`,
    /// `act`, `qpos` and `qvel`. An actuator with activation dynamics takes `act` as its input, else `ctrl`.
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
            let input = match self.actuator_actadr[u] {
                None => ctrl,
                Some(a) => {
                    d.act_dot[a] = activation_rate(self.actuator_dynamics[u], ctrl, d.act[a]);
                    d.act[a]
                }
            };
            let [b0, b1, b2] = self.actuator_bias[u];
            let [g1, g2] = self.actuator_gain_affine[u];
            let gain = self.actuator_gain[u] + g1 * length + g2 * velocity;
            let force = gain * input + b0 + b1 * length + b2 * velocity;
            let force = clamp(force, self.actuator_forcerange[u]);
            d.actuator_length[u] = length;
            d.actuator_velocity[u] = velocity;
            d.actuator_force[u] = force;
            match self.actuator_transmission[u] {
                Transmission::Joint(j) => d.qfrc_actuator[self.jnt_dofadr[j]] += gear * force,
                Transmission::Tendon(t) => {
                    let nv = self.nv;
                    for (dof, c) in d.ten_j[t * nv..(t + 1) * nv].iter().enumerate() {
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

    /// `act` after a step `h` at rate `act_dot` (MuJoCo `mj_nextActivation`): `act + h·act_dot`, exact for
    /// `filterexact` (`act + act_dot·τ·(1 − e^{−h/τ})`), then clamped to `actrange`.
    pub fn next_activation(&self, u: usize, act: f64, act_dot: f64, h: f64) -> f64 {
        let next = match self.actuator_dynamics[u] {
            ActuatorDynamics::FilterExact { tau } => {
                act + act_dot * tau * (1.0 - (-h / tau.max(MINVAL)).exp())
            }
            _ => act + h * act_dot,
        };
        clamp(next, self.actuator_actrange[u])
    }

    /// Advances every activation by `h` at the rates `act_dot` (one per activation, e.g. `Data::act_dot` or an
    /// integrator's weighted sum).
    pub fn advance_activations(&self, act: &mut [f64], act_dot: &[f64], h: f64) {
        for u in 0..self.nu {
            if let Some(a) = self.actuator_actadr[u] {
                act[a] = self.next_activation(u, act[a], act_dot[a], h);
            }
        }
    }
}
