//! Actuators (MuJoCo `general` with affine or muscle gain and bias; joint, tendon, site and slider-crank
//! transmissions; activation dynamics, `actearly`).
//!
//! `length = gear·q` (a tendon: `gear·L`; a site or slider-crank: [`Transmission`]'s formulas, with the moment row
//! `∂l/∂q` in `Data::actuator_moment`), `velocity = gear·q̇` (`moment·q̇`), `ctrl` clamped to `ctrlrange`,
//! `force = gain·input + bias₀ + bias₁·length + bias₂·velocity` clamped to `forcerange` (`input`: `ctrl`, or the
//! activation `act` — the next one, `act + h·act_dot`, with `actearly`; a muscle's gain and bias are
//! [`crate::muscle`]'s curves), and
//! `qfrc_actuator += gear·force·J` (`J` the joint's unit row or the tendon's Jacobian; [`Model::tendon_state`] runs
//! first, in [`Model::passive`]). Motor: `gain = 1`, no bias; position: `gain = kp`, `bias = (0, −kp, −kv)`;
//! velocity: `gain = kv`, `bias = (0, 0, −kv)` (see the constructors of [`crate::spec::ActuatorSpec`]).

use glam::DVec3;
use signorini_geometry::rotation::mul_quat;

use crate::passive::quat_difference;

use crate::data::Data;
use crate::factor::mujoco_dot_nonzero;
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
        ActuatorDynamics::Muscle { tau_act, tau_deact, tausmooth } => {
            crate::muscle::activation_rate(ctrl, act, tau_act, tau_deact, tausmooth)
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
        let nv = self.nv;
        let mut moment = std::mem::take(&mut d.actuator_moment);
        for u in 0..self.nu {
            let gear = self.actuator_gear[u];
            let transmission = self.actuator_transmission[u];
            let row = self.actuator_momentadr[u].map(|r| r * nv..(r + 1) * nv);
            let (length, velocity) = match (transmission, &row) {
                (Transmission::Joint(j), _) => {
                    (gear * d.qpos[self.jnt_qposadr[j]], gear * d.qvel[self.jnt_dofadr[j]])
                }
                (Transmission::Tendon(t), _) => (gear * d.ten_length[t], gear * d.ten_velocity[t]),
                (_, Some(row)) => {
                    let row = &mut moment[row.clone()];
                    let length = self.pose_transmission(d, transmission, gear, row);
                    (length, mujoco_dot_nonzero(row, &d.qvel))
                }
                (_, None) => (0.0, 0.0),
            };
            if !self.actuation_enabled {
                d.actuator_length[u] = length;
                d.actuator_velocity[u] = velocity;
                d.actuator_force[u] = 0.0;
                continue;
            }
            if let Some(a) = self.actuator_actadr[u] {
                d.act_dot[a] = activation_rate(self.actuator_dynamics[u], self.actuator_ctrl(d, u), d.act[a]);
            }
            let force = self.actuator_force_at(d, u, length, velocity);
            d.actuator_length[u] = length;
            d.actuator_velocity[u] = velocity;
            d.actuator_force[u] = force;
            match (transmission, row) {
                (Transmission::Joint(j), _) => d.qfrc_actuator[self.jnt_dofadr[j]] += gear * force,
                (Transmission::Tendon(t), _) => {
                    for (dof, c) in d.ten_j[t * nv..(t + 1) * nv].iter().enumerate() {
                        d.qfrc_actuator[dof] += gear * force * c;
                    }
                }
                (_, Some(row)) => {
                    for (q, j) in d.qfrc_actuator.iter_mut().zip(&moment[row]) {
                        *q += j * force;
                    }
                }
                (_, None) => {}
            }
        }
        d.actuator_moment = moment;
        if !self.actuation_enabled {
            // MuJoCo's `actuation` flag: no actuator force at all, gravity compensation included.
            d.qfrc_actuator.fill(0.0);
            return;
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

    /// Actuator `u`'s control, clamped to its `ctrlrange` unless [`Model::clamp_ctrl`] is off.
    pub fn actuator_ctrl(&self, d: &Data, u: usize) -> f64 {
        if self.clamp_ctrl { clamp(d.ctrl[u], self.actuator_ctrlrange[u]) } else { d.ctrl[u] }
    }

    /// The force of actuator `u` at transmission length `length` and velocity `velocity`: `gain·input + bias`
    /// clamped to `forcerange`, `input` the clamped control or the activation (the next one with `actearly`; `act_dot`
    /// must be current).
    pub(crate) fn actuator_force_at(&self, d: &Data, u: usize, length: f64, velocity: f64) -> f64 {
        let input = match self.actuator_actadr[u] {
            None => self.actuator_ctrl(d, u),
            Some(a) if self.actuator_actearly[u] => {
                self.next_activation(u, d.act[a], d.act_dot[a], self.timestep)
            }
            Some(a) => d.act[a],
        };
        let [b0, b1, b2] = self.actuator_bias[u];
        let [g1, g2] = self.actuator_gain_affine[u];
        let input = match self.actuator_transmission[u] {
            // MuJoCo 4.0 wraps a servo's setpoint on a purely rotational reference-site transmission to within
            // half a turn of the current angle.
            Transmission::Site { refsite: Some(_), gear: g, .. }
                if g[..3] == [0.0; 3] && [g1, g2] == [0.0; 2] && b1 == -self.actuator_gain[u] =>
            {
                let period = 2.0 * std::f64::consts::PI * DVec3::new(g[3], g[4], g[5]).length();
                input - period * ((input - length) / period).round()
            }
            _ => input,
        };
        let (lengthrange, acc0) = (self.actuator_lengthrange[u], self.actuator_acc0[u]);
        let gain = match &self.actuator_gain_muscle[u] {
            Some(muscle) => muscle.gain(length, velocity, lengthrange, acc0),
            None => self.actuator_gain[u] + g1 * length + g2 * velocity,
        };
        let bias = match &self.actuator_bias_muscle[u] {
            Some(muscle) => muscle.bias(length, lengthrange, acc0),
            None => b0 + b1 * length + b2 * velocity,
        };
        clamp(gain * input + bias, self.actuator_forcerange[u])
    }

    /// The length of a site or slider-crank transmission and its moment `∂l/∂q` into `row` (MuJoCo
    /// `mj_transmission`); 0 for the others.
    fn pose_transmission(&self, d: &Data, transmission: Transmission, gear: f64, row: &mut [f64]) -> f64 {
        row.fill(0.0);
        match transmission {
            Transmission::Site { site, refsite: None, gear: g } => {
                let r = d.site_xmat[site];
                let (force, torque) = (r * DVec3::new(g[0], g[1], g[2]), r * DVec3::new(g[3], g[4], g[5]));
                for dof in self.dof_chain(self.site_bodyid[site]) {
                    let (lin, ang) = self.jacobian_column(d, dof, d.site_xpos[site]);
                    row[dof] = lin.dot(force) + ang.dot(torque);
                }
                0.0
            }
            Transmission::Site { site, refsite: Some(reference), gear: g } => {
                let (gf, gt) = (DVec3::new(g[0], g[1], g[2]), DVec3::new(g[3], g[4], g[5]));
                let rr = d.site_xmat[reference];
                let (bs, br) = (self.site_bodyid[site], self.site_bodyid[reference]);
                let (ps, pr) = (d.site_xpos[site], d.site_xpos[reference]);
                let mut length = 0.0;
                if gf != DVec3::ZERO {
                    length += (rr.transpose() * (ps - pr)).dot(gf);
                    let axis = rr * gf;
                    for dof in self.dof_chain(bs) {
                        row[dof] += self.jacobian_column(d, dof, ps).0.dot(axis);
                    }
                    for dof in self.dof_chain(br) {
                        row[dof] -= self.jacobian_column(d, dof, pr).0.dot(axis);
                    }
                }
                if gt != DVec3::ZERO {
                    let qs = mul_quat(d.xquat[bs], self.site_quat[site]);
                    let qr = mul_quat(d.xquat[br], self.site_quat[reference]);
                    length += quat_difference(qs, qr).dot(gt);
                    let axis = rr * gt;
                    for dof in self.dof_chain(bs) {
                        row[dof] += self.jacobian_column(d, dof, ps).1.dot(axis);
                    }
                    for dof in self.dof_chain(br) {
                        row[dof] -= self.jacobian_column(d, dof, pr).1.dot(axis);
                    }
                }
                // The dofs both chains share move the two sites together: left out, as MuJoCo does.
                for dof in self.dof_chain(bs) {
                    if self.dof_chain(br).any(|x| x == dof) {
                        row[dof] = 0.0;
                    }
                }
                length
            }
            Transmission::SliderCrank { crank, slider, rod } => {
                let a = d.site_xmat[slider].z_axis;
                let (pc, ps) = (d.site_xpos[crank], d.site_xpos[slider]);
                let v = pc - ps;
                let av = a.dot(v);
                let det = av * av + rod * rod - v.dot(v);
                let (length, dlda, dldv) = if det <= 0.0 {
                    (av, v, a)
                } else {
                    let sdet = det.sqrt();
                    (av - sdet, v * (1.0 - av / sdet), a * (1.0 - av / sdet) + v * (1.0 / sdet))
                };
                self.slider_crank_moment(d, (crank, slider), (a, pc, ps), (dlda, dldv), row);
                for j in row.iter_mut() {
                    *j *= gear;
                }
                gear * length
            }
            // Set from the step's contacts ([`Model::body_transmissions`]).
            Transmission::Joint(_) | Transmission::Tendon(_) | Transmission::Body(_) => 0.0,
        }
    }

    /// The slider-crank moment `∂l/∂q = Σ_k dlda_k J_axis,k + dldv_k (J_crank − J_slider)_k` into `row` (zeroed),
    /// in `mj_transmission`'s arithmetic: per dof the three rows summed in order from 0, each term
    /// `dlda_k J_axis,k + dldv_k J_k`, where `J_axis` is the slider's axis turned by the slider body's rotational
    /// Jacobian (`mj_jacPointAxis`) and `J` the crank site's translational Jacobian minus the slider site's; `a` is the
    /// slider's axis, `pc` and `ps` the two sites' positions.
    fn slider_crank_moment(
        &self,
        d: &Data,
        (crank, slider): (usize, usize),
        (a, pc, ps): (DVec3, DVec3, DVec3),
        (dlda, dldv): (DVec3, DVec3),
        row: &mut [f64],
    ) {
        // The chains' dofs, each once.
        for (dof, on_slider, on_crank) in
            self.dof_chain_union(self.site_bodyid[slider], self.site_bodyid[crank])
        {
            let (slider_lin, axis) = if on_slider {
                let (lin, ang) = self.jacobian_column(d, dof, ps);
                (lin, ang.cross(a))
            } else {
                (DVec3::ZERO, DVec3::ZERO)
            };
            let crank_lin = if on_crank { self.jacobian_column(d, dof, pc).0 } else { DVec3::ZERO };
            let jac = crank_lin - slider_lin;
            let mut m = 0.0;
            for r in 0..3 {
                m += dlda[r] * axis[r] + dldv[r] * jac[r];
            }
            row[dof] = m;
        }
    }

    /// Actuator `u`'s dense moment row `∂l/∂q` into `row` (`nv`): `gear` times the joint's unit row or the tendon's
    /// Jacobian, or the site/slider-crank moment. `d` holds the kinematics and tendons of the pose.
    pub fn actuator_moment_row(&self, d: &Data, u: usize, row: &mut [f64]) {
        let (nv, gear) = (self.nv, self.actuator_gear[u]);
        row.fill(0.0);
        match self.actuator_transmission[u] {
            Transmission::Joint(j) => row[self.jnt_dofadr[j]] = gear,
            Transmission::Tendon(t) => {
                for (r, j) in row.iter_mut().zip(&d.ten_j[t * nv..(t + 1) * nv]) {
                    *r = gear * j;
                }
            }
            transmission => {
                self.pose_transmission(d, transmission, gear, row);
            }
        }
    }

    /// The constants of the actuators at `qpos0` (MuJoCo `set0`): `actuator_acc0 = ‖M⁻¹ Jᵀ‖` and 4.0's `dampratio`:
    /// a servo (`gain = −bias₁`) whose `bias₂ > 0` holds a damping ratio gets the damping `bias₂ = −ratio·2·√(kp·m)`
    /// with `m = 1/(J M⁻¹ Jᵀ)` the inertia its moment `J` sees. `d` holds the kinematics, tendons and factored `M` at
    /// `qpos0`.
    pub(crate) fn set_actuator_constants(&mut self, d: &mut Data) {
        let nv = self.nv;
        let mut row = vec![0.0; nv];
        let mut x = vec![0.0; nv];
        for u in 0..self.nu {
            self.actuator_moment_row(d, u, &mut row);
            x.copy_from_slice(&row);
            self.solve_m(d, &mut x);
            self.actuator_acc0[u] = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            let [_, b1, ratio] = self.actuator_bias[u];
            let kp = self.actuator_gain[u];
            if !(ratio > 0.0 && b1 == -kp && self.actuator_gain_affine[u] == [0.0; 2]) {
                continue;
            }
            let inverse_mass: f64 = row.iter().zip(&x).map(|(a, b)| a * b).sum();
            let mass = if inverse_mass > 0.0 { 1.0 / inverse_mass } else { 0.0 };
            self.actuator_bias[u][2] = -(ratio * 2.0 * (kp * mass).sqrt());
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
