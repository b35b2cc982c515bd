//! Forces that depend on the step's contacts, applied after collision detection (MuJoCo 4.0's adhesion).
//!
//! For a contact between geoms A and B at `p` with normal `n` (from B to A), `J_n = n·(J_A(p) − J_B(p))` is the
//! separating velocity's row.
//!
//! - **Adhesion pull** (geom `adhesion`, MuJoCo `mj_adhesion`): every contact with adhesion `a` adds `−a·J_nᵀ` to
//!   `qfrc_passive` (`qfrc_adhesion`), a constant pull; the constraint rows add `R·a` to the normal's reference
//!   acceleration (the constraints layer), so the solver's non-negative force is the net force plus `a`.
//! - **Body transmissions** (the adhesion actuator, MuJoCo `mj_transmission`'s `mjTRN_BODY`): the moment of an
//!   actuator on body `b` is `−(Σ J_n)/k` over the `k` contacts that involve a geom of `b`, with or without rows
//!   (within the gap); the actuator's velocity is `moment·q̇` and `qfrc_actuator` gains `momentᵀ·force`.

use signorini_collision::contact_set::ContactSet;

use crate::data::Data;
use crate::model::Model;
use crate::spec::Transmission;

impl Model {
    /// Applies the forces of the module docs for contacts `cs` (the step's, computed at `d`'s poses after
    /// [`Model::forward`]) and recomputes `qacc_smooth`. Does nothing in a model without them
    /// ([`Model::has_contact_forces`]).
    pub fn contact_forces(&self, d: &mut Data, cs: &ContactSet) {
        if !self.has_contact_forces {
            return;
        }
        let nv = self.nv;
        let mut row = std::mem::take(&mut d.actuator_moment);
        d.qfrc_adhesion.fill(0.0);
        let mut pull = std::mem::take(&mut d.qfrc_adhesion);
        for c in 0..cs.len() {
            let a = cs.adhesion[c];
            if a != 0.0 && self.adhesion_pull {
                self.add_normal_row(d, cs, c, -a, &mut pull);
            }
        }
        for (q, f) in d.qfrc_passive.iter_mut().zip(&pull) {
            *q += f;
        }
        d.qfrc_adhesion = pull;
        for u in 0..self.nu {
            let (Transmission::Body(b), Some(r)) =
                (self.actuator_transmission[u], self.actuator_momentadr[u])
            else {
                continue;
            };
            let moment = &mut row[r * nv..(r + 1) * nv];
            moment.fill(0.0);
            let mut count = 0usize;
            for c in 0..cs.len() {
                let (ga, gb) = (cs.geom_a[c], cs.geom_b[c]);
                if self.geom_bodyid(ga) == b || self.geom_bodyid(gb) == b {
                    self.add_normal_row(d, cs, c, 1.0, moment);
                    count += 1;
                }
            }
            if count > 0 {
                let scale = -1.0 / count as f64;
                moment.iter_mut().for_each(|m| *m *= scale);
            }
            let velocity: f64 = moment.iter().zip(&d.qvel).map(|(j, v)| j * v).sum();
            let force =
                if self.actuation_enabled { self.actuator_force_at(d, u, 0.0, velocity) } else { 0.0 };
            d.actuator_velocity[u] = velocity;
            d.actuator_force[u] = force;
            for (q, j) in d.qfrc_actuator.iter_mut().zip(moment.iter()) {
                *q += j * force;
            }
        }
        d.actuator_moment = row;
        self.smooth_acceleration(d);
    }

    /// `out += scale·J_nᵀ` for contact `c` of `cs` (see the module docs).
    fn add_normal_row(&self, d: &Data, cs: &ContactSet, c: usize, scale: f64, out: &mut [f64]) {
        let (p, n) = (cs.position[c], cs.normal[c]);
        for (body, sign) in [(cs.link_a[c], scale), (cs.link_b[c], -scale)] {
            for dof in self.dof_chain(body) {
                out[dof] += sign * self.jacobian_column(d, dof, p).0.dot(n);
            }
        }
    }

    /// The body of geom `g`.
    fn geom_bodyid(&self, g: usize) -> usize {
        self.collision.geoms().body[g]
    }
}
