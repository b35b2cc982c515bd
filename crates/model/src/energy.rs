//! Energies (MuJoCo `mj_energyPos`, `mj_energyVel`).
//!
//! Potential: `−Σ_b m_b g·x_com,b` plus `½ k ‖q ⊖ q_spring‖²` per joint (see [`crate::passive`]).
//! Kinetic: `½ q̇ᵀ M q̇` with the armature included in `M`.

use crate::data::Data;
use crate::model::Model;

impl Model {
    /// Computes `energy_potential` (after [`Model::forward_kinematics`]) and `energy_kinetic` (after
    /// [`Model::mass_matrix`]).
    pub fn energy(&self, d: &mut Data) {
        let mut potential = 0.0;
        for b in 1..self.nbody {
            potential -= d.body_mass[b] * d.gravity.dot(d.xipos[b]);
        }
        for j in 0..self.njnt {
            let k = d.jnt_stiffness[j];
            if k == 0.0 {
                continue;
            }
            let mut dq = [0.0; 6];
            self.spring_displacement(d, j, &mut dq);
            potential += 0.5 * k * dq.iter().map(|x| x * x).sum::<f64>();
        }
        d.energy_potential = potential;

        let mut mv = std::mem::take(&mut d.scratch);
        self.mul_m(d, &d.qvel, &mut mv);
        d.energy_kinetic = 0.5 * mv.iter().zip(&d.qvel).map(|(a, b)| a * b).sum::<f64>();
        d.scratch = mv;
    }
}
