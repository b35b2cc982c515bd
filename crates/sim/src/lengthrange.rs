//! Actuator length ranges computed by simulation when a model does not give them (MuJoCo `mj_setLengthRange`).
//!
//! A muscle normalises its length by its `lengthrange`, the lengths its transmission can reach. A file may give it;
//! otherwise, as MuJoCo's compiler does ([`LengthRangeOptions`]), the actuator is pushed from `qpos0` to each end of
//! its travel: contacts, gravity, springs, dampers, friction loss and actuation are switched off, the generalised
//! force `±accel·J/‖M⁻¹J‖` (its moment `J`) is applied for `inttotal` seconds of steps `timestep` while the velocity
//! decays by `e^{−h/max(0.01, timeconst)}` per step, and the extreme lengths over the last `interval` seconds are the
//! range. Joint limits, tendon limits and equalities stay on: they are what stops the motion.

use signorini_model::factor::mujoco_dot;
use signorini_model::model::MINVAL;
use signorini_model::spec::{LengthRangeMode, Transmission};

use crate::data::Data;
use crate::error::{Result, SimError};
use crate::model::Model;
use crate::options::Options;
use crate::step::step;

/// Whether `mode` selects actuator `u` of `m`.
fn selected(m: &signorini_model::Model, mode: LengthRangeMode, u: usize) -> bool {
    let muscle = m.actuator_gain_muscle[u].is_some() || m.actuator_bias_muscle[u].is_some();
    match mode {
        LengthRangeMode::None => false,
        LengthRangeMode::Muscle | LengthRangeMode::MuscleUser => muscle,
        LengthRangeMode::All => true,
    }
}

/// Fills the missing `actuator_lengthrange` of the actuators `multibody.lengthrange_options` selects, simulating
/// with `options` (see the module docs). Errors: a run that does not settle, or an empty range, as MuJoCo's
/// compiler reports them.
pub(crate) fn compute(multibody: &mut signorini_model::Model, options: &Options) -> Result<()> {
    let lr = multibody.lengthrange_options;
    let mut todo = Vec::new();
    for u in 0..multibody.nu {
        let given = multibody.actuator_lengthrange[u];
        if !selected(multibody, lr.mode, u) || (lr.useexisting && given[0] < given[1]) {
            continue;
        }
        // MuJoCo copies the joint's or tendon's range as it is (not scaled by the gear).
        let limit = match multibody.actuator_transmission[u] {
            Transmission::Joint(j) if lr.uselimit => multibody.jnt_range[j],
            Transmission::Tendon(t) if lr.uselimit => multibody.tendons.range[t],
            _ => None,
        };
        match limit {
            Some(range) => multibody.actuator_lengthrange[u] = range,
            None => todo.push(u),
        }
    }
    if todo.is_empty() {
        return Ok(());
    }

    let mut probe = multibody.clone();
    probe.lengthrange_options.mode = LengthRangeMode::None;
    probe.gravity = glam::DVec3::ZERO;
    probe.jnt_stiffness.fill(0.0);
    probe.dof_damping.fill(0.0);
    probe.tendons.stiffness.fill(0.0);
    probe.tendons.damping.fill(0.0);
    for u in 0..probe.nu {
        probe.actuator_gain[u] = 0.0;
        probe.actuator_gain_affine[u] = [0.0; 2];
        probe.actuator_bias[u] = [0.0; 3];
        probe.actuator_gain_muscle[u] = None;
        probe.actuator_bias_muscle[u] = None;
    }
    probe.jnt_actgravcomp.fill(false);
    let probe_options = Options {
        dt: if lr.timestep > 0.0 { lr.timestep } else { options.h() },
        substeps: 1,
        enable_collision: false,
        enable_friction_loss: false,
        use_hibernation: false,
        enable_islands: true,
        enable_joint_limit: true,
        enable_equality: true,
        enable_warm_start: true,
        refsafe: true,
        euler_implicit_damping: true,
        clamp_ctrl: true,
        ..options.clone()
    };
    let model = Model::from_compiled(probe, probe_options)?;
    let mut data = Data::new(&model)?;
    let m = &model.multibody;
    let h = model.options.h();
    let decay = (-h / lr.timeconst.max(0.01)).exp();
    let (mut row, mut x) = (vec![0.0; m.nv], vec![0.0; m.nv]);
    for u in todo {
        let name =
            if m.actuator_name[u].is_empty() { format!("actuator #{u}") } else { m.actuator_name[u].clone() };
        let mut seen = [[0.0; 2]; 2];
        for (side, seen) in seen.iter_mut().enumerate() {
            data.reset_to(&model, None)?;
            let mut updated = false;
            while data.multibody.time < lr.inttotal {
                for v in &mut data.multibody.qvel {
                    *v *= decay;
                }
                let d = &mut data.multibody;
                m.forward(d)?;
                let length = d.actuator_length[u];
                m.actuator_moment_row(d, u, &mut row);
                x.copy_from_slice(&row);
                m.solve_m(d, &mut x);
                let norm = mujoco_dot(&x, &x).sqrt();
                let sign = if side == 0 { -1.0 } else { 1.0 };
                let scale = sign * lr.accel / norm.max(MINVAL);
                for (f, j) in d.qfrc_applied.iter_mut().zip(&row) {
                    *f = scale * j;
                }
                let force = mujoco_dot(&d.qfrc_applied, &d.qfrc_applied).sqrt();
                if lr.maxforce > 0.0 && force > lr.maxforce {
                    let cap = lr.maxforce / force.max(MINVAL);
                    d.qfrc_applied.iter_mut().for_each(|f| *f *= cap);
                }
                step(&model, &mut data)?;
                if data.multibody.time > lr.inttotal - lr.interval {
                    if !updated || length < seen[0] {
                        seen[0] = length;
                    }
                    if !updated || length > seen[1] {
                        seen[1] = length;
                    }
                    updated = true;
                }
            }
        }
        let range = [seen[0][0], seen[1][1]];
        let span = range[1] - range[0];
        if !(span > 0.0) {
            return Err(SimError::LengthRange {
                actuator: name,
                what: format!("the computed range ({}, {}) is empty", range[0], range[1]),
            });
        }
        for (side, s) in seen.iter().enumerate() {
            if s[1] - s[0] > lr.tolrange * span {
                return Err(SimError::LengthRange {
                    actuator: name,
                    what: format!(
                        "the {} run did not settle: its lengths over the last {} s span ({}, {}), more than \
                         tolrange = {} of the range ({}, {}); give the actuator a lengthrange, limit its joint or \
                         tendon, or change <compiler><lengthrange>",
                        if side == 0 { "shortening" } else { "lengthening" },
                        lr.interval,
                        s[0],
                        s[1],
                        lr.tolrange,
                        range[0],
                        range[1]
                    ),
                });
            }
        }
        multibody.actuator_lengthrange[u] = range;
    }
    Ok(())
}
