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
//!   (within the gap), formed from the step's contact rows by the constraint layer (`body_transmission_moment`,
//!   which averages a pyramidal contact's edges as MuJoCo does); the actuator's velocity is `moment·q̇` (over the
//!   moment's non-zeros, `mju_dot`'s lanes) and `qfrc_actuator` gains `momentᵀ·force`.

use signorini_collision::contact_set::ContactSet;

use crate::data::Data;
use crate::factor::mujoco_dot_nonzero;
use crate::model::Model;
use crate::spec::Transmission;

impl Model {
    /// Adds the adhesion pull of contacts `cs` (the step's, computed at `d`'s poses after [`Model::forward`]) to
    /// `qfrc_passive` and `qfrc_adhesion`. Does nothing in a model without contact forces
    /// ([`Model::has_contact_forces`]); [`Model::body_transmissions`] completes the step's contact forces.
    pub fn adhesion_pull(&self, d: &mut Data, cs: &ContactSet) {
        if !self.has_contact_forces {
            return;
        }
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
    }

    /// The body transmissions' moments, velocities, forces and `qfrc_actuator` terms (see the module docs), then
    /// `qacc_smooth` again. `moment(d, body, row)` writes the moment row of an actuator on `body` into `row` (`nv`,
    /// by the caller's contact rows). Does nothing in a model without contact forces.
    pub fn body_transmissions(&self, d: &mut Data, mut moment: impl FnMut(&Data, usize, &mut [f64])) {
        if !self.has_contact_forces {
            return;
        }
        let nv = self.nv;
        let mut rows = std::mem::take(&mut d.actuator_moment);
        for u in 0..self.nu {
            let (Transmission::Body(b), Some(r)) =
                (self.actuator_transmission[u], self.actuator_momentadr[u])
            else {
                continue;
            };
            let row = &mut rows[r * nv..(r + 1) * nv];
            moment(d, b, row);
            let velocity = mujoco_dot_nonzero(row, &d.qvel);
            let force =
                if self.actuation_enabled { self.actuator_force_at(d, u, 0.0, velocity) } else { 0.0 };
            d.actuator_velocity[u] = velocity;
            d.actuator_force[u] = force;
            for (q, j) in d.qfrc_actuator.iter_mut().zip(row.iter()) {
                *q += j * force;
            }
        }
        d.actuator_moment = rows;
        self.smooth_acceleration(d);
    }

    /// `out += scale·J_nᵀ` for contact `c` of `cs` (see the module docs).
    fn add_normal_row(&self, d: &Data, cs: &ContactSet, c: usize, scale: f64, out: &mut [f64]) {
        self.add_contact_normal_row(
            d,
            (cs.link_a[c], cs.link_b[c]),
            cs.position[c],
            cs.normal[c],
            scale,
            out,
        );
    }

    /// `out += scale·J_nᵀ`, `J_n = n·(J_A(p) − J_B(p))` the normal row of a contact at `p` between bodies `A` and `B`
    /// (`n` from B to A), as MuJoCo's `mj_contactJacobian` and the contact frame's normal form it: over the union of the
    /// two chains, a dof on both taking `(J_A − J_B)·n` ([`Model::dof_chain_union`]).
    pub fn add_contact_normal_row(
        &self,
        d: &Data,
        (a, b): (usize, usize),
        p: glam::DVec3,
        n: glam::DVec3,
        scale: f64,
        out: &mut [f64],
    ) {
        for (dof, on_b, on_a) in self.dof_chain_union(b, a) {
            let mut jac = glam::DVec3::ZERO;
            if on_a {
                jac = self.jacobian_column(d, dof, p).0;
            }
            if on_b {
                jac -= self.jacobian_column(d, dof, p).0;
            }
            out[dof] += jac.dot(n) * scale;
        }
    }
}
