//! One simulation step as a function of `(&Model, &mut Data)` (spec §D.1). Repeated `substeps` times with
//! `h = dt/substeps`: forward dynamics (kinematics, mass matrix and its factor, bias, passive and actuator forces,
//! `qacc_smooth`) → collision (AABBs, broad phase, narrow phase, sorted contact set) → constraint rows → integrator
//! preparation (the implicit damping of approximate_implicitfast enters `M` here) → constraint solve (`qacc`, row
//! forces) → optional no-slip → integration. An integrator with several evaluations per step (RK4) repeats everything
//! before the integration at each of its stages. Every buffer lives in [`Data`] and is reused.

use std::time::Instant;

use signorini_constraints::body_transmission::body_transmission_moment;
use signorini_constraints::mujoco_dot::{TransposeScratch, mujoco_transpose_mul};
use signorini_constraints::{ConstraintRows, RowKind};
use signorini_geometry::Pose;
use signorini_solver::SolveStats;
use signorini_solver::noslip::NoSlipStats;

use crate::data::Data;
use crate::error::{Result, SimError};
use crate::model::Model;
use crate::readback::Contacts;

/// Advances `data` by `dt` (`substeps` physics steps), timing its stages ([`StepStatistics`]'s `time_*`). `data`
/// must have been made for `model` ([`Data::new`]).
///
/// [`StepStatistics`]: crate::StepStatistics
pub fn step(model: &Model, data: &mut Data) -> Result<()> {
    step_with(model, data, StageClock::On)
}

/// Whether a step reads the clock around its stages. Off, the `time_*` statistics are 0: the six clock reads of a
/// step were 1.6 % of `arm.xml`'s time (perf, a batch of 200 steps), and a batch reports environment-steps per
/// second, not stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StageClock {
    On,
    Off,
}

impl StageClock {
    fn now(self) -> Option<Instant> {
        (self == StageClock::On).then(Instant::now)
    }
}

/// Seconds from `start` to `end` (0 when the clock is off).
fn seconds(start: Option<Instant>, end: Option<Instant>) -> f64 {
    match (start, end) {
        (Some(start), Some(end)) => (end - start).as_secs_f64(),
        _ => 0.0,
    }
}

/// [`step`] with the stage clock on or off (the results are the same).
pub(crate) fn step_with(model: &Model, data: &mut Data, clock: StageClock) -> Result<()> {
    for _ in 0..model.options.substeps {
        substep(model, data, clock)?;
    }
    data.steps += 1;
    Ok(())
}

fn substep(model: &Model, d: &mut Data, clock: StageClock) -> Result<()> {
    let m = &model.multibody;
    let h = model.options.h();
    let evaluations = model.integrator.evaluations();
    let sleeps_first = d.hibernation.as_ref().is_some_and(|h| h.rules().decides_before_advance);
    // MuJoCo holds sleeping trees still in the integration only: its warm start keeps their acceleration (the second
    // solve's in the step they fall asleep, then their last `qacc_smooth`). RK4's stages move every tree, so there
    // each solve holds them.
    let freeze = !sleeps_first || evaluations > 1;
    if evaluations > 1 || sleeps_first {
        d.step_warmstart.clone_from(&d.qacc_warmstart);
    }
    let mut times = [0.0; 4];
    let (mut solve, mut noslip) = evaluate(model, d, &mut times, freeze, clock)?;
    if model.options.enable_sensors {
        crate::sensor::evaluate(model, d);
    }
    for i in 1..evaluations {
        // A multi-evaluation integrator (RK4) moves the state to its next stage; every evaluation warm-starts from
        // the step's incoming acceleration.
        model.integrator.stage(m, &mut d.multibody, &mut d.integrator, i - 1, &d.qacc_warmstart, h)?;
        d.qacc_warmstart.copy_from_slice(&d.step_warmstart);
        (solve, noslip) = evaluate(model, d, &mut times, freeze, clock)?;
    }
    let t4 = clock.now();
    if sleeps_first {
        let resolved = sleep_before_advance(model, d, &mut times, freeze, clock)?;
        match resolved {
            Some(stats) => {
                (solve, noslip) = stats;
                if model.options.enable_sensors {
                    crate::sensor::evaluate(model, d);
                }
            }
            None => d.step_warmstart.copy_from_slice(&d.qacc_warmstart),
        }
        if let Some(hib) = &d.hibernation {
            hib.freeze(m, &mut d.qacc_warmstart);
        }
    }
    if model.integrator.reads_constraint_force(&d.multibody)
        && let Some(hib) = &d.hibernation
    {
        hib.hold_still(m, &d.multibody.qfrc_smooth, d.integrator.constraint_force_mut(m.nv));
    }
    model.integrator.advance(m, &mut d.multibody, &mut d.integrator, &d.qacc_warmstart, h)?;
    if sleeps_first {
        d.qacc_warmstart.copy_from_slice(&d.step_warmstart);
    }
    let clamped = if model.options.enable_ccd {
        crate::swept::clamp_fast_bodies(model, &mut d.multibody, &d.collision, &d.body_poses, &mut d.ccd)?
    } else {
        0
    };
    if let Some(hib) = d.hibernation.as_mut().filter(|_| !sleeps_first) {
        let first_new = hib.groups_before();
        hib.update(m, &mut d.multibody, &d.rows);
        if hib.rules().keeps_contacts && hib.groups_before() > first_new {
            let tangents = model.constraint_options.tangent_frame;
            let step = Contacts::from_rows(d.collision.contacts(), &d.rows, &d.efc_force, tangents);
            hib.keep_contacts(&step, first_new);
        }
    }
    let t5 = clock.now();
    if let Some(what) = non_finite(&d.multibody) {
        return Err(SimError::NonFinite { step: d.steps + 1, time: d.multibody.time, what });
    }
    let world = d.collision.stats();
    let s = &mut d.stats;
    s.iterations = solve.iterations;
    s.cost = solve.cost;
    s.gradient_norm = solve.gradient_norm;
    s.converged = solve.converged;
    s.islands = solve.islands;
    s.islands_in_parallel = solve.parallel;
    s.factorizations = solve.factorizations;
    s.rank_one_updates = solve.rank_one_updates;
    s.noslip_iterations = noslip.iterations;
    s.ccd_clamped_bodies = clamped;
    s.sleeping_trees = d.hibernation.as_ref().map_or(0, |h| h.sleeping_trees());
    s.contacts = world.contacts;
    s.candidate_pairs = world.candidate_pairs;
    s.rows = d.rows.len();
    s.rows_by_kind = count_rows(&d.rows);
    s.max_penetration = d.collision.contacts().penetration.iter().copied().fold(0.0, f64::max);
    s.time_forward = times[0];
    s.time_collision = times[1];
    s.time_assembly = times[2];
    s.time_solve = times[3];
    s.time_integrate = seconds(t4, t5);
    Ok(())
}

/// One evaluation of the dynamics at `d`'s state: forward, collision, rows, integrator preparation, constraint solve
/// and no-slip. The constrained acceleration is left in `d.qacc_warmstart` (with `freeze`, zero on sleeping dofs);
/// the stages' wall times are added to `times` (forward, collision, assembly, solve).
fn evaluate(
    model: &Model,
    d: &mut Data,
    times: &mut [f64; 4],
    freeze: bool,
    clock: StageClock,
) -> Result<(SolveStats, NoSlipStats)> {
    let m = &model.multibody;
    let cm = model.collision();
    let t0 = clock.now();
    m.forward(&mut d.multibody)?;
    if let Some(hib) = &mut d.hibernation {
        // From the next forward pass on, sleeping trees are skipped; this one saw them at their final state.
        d.multibody.set_awake(m, hib.awake_bodies());
        hib.clear_reset_smooth(m, &mut d.multibody);
    }
    for (b, pose) in d.body_poses.iter_mut().enumerate() {
        *pose = Pose { translation: d.multibody.xpos[b], rotation: d.multibody.xquat[b] };
    }
    if !model.weld_bodies.is_empty() {
        // Genesis's rule 5: the bodies of an enforced weld do not collide.
        let enforced = model.options.enable_equality && d.constraint_types.equality;
        let active = model.weld_bodies.iter().zip(&d.equality_active).filter_map(|(w, &on)| w.filter(|_| on));
        d.collision.set_active_welds(active.filter(|_| enforced));
    }
    let t1 = clock.now();
    match &d.hibernation {
        // No collision detection: poses and boxes are kept current for read-back, the contact set stays empty.
        _ if !model.options.enable_collision => {
            cm.update(&mut d.collision, &d.body_poses)?;
            cm.collide_pairs(&mut d.collision, &[])?;
        }
        Some(hib) => {
            cm.update(&mut d.collision, &d.body_poses)?;
            cm.set_asleep(&mut d.collision, hib.asleep_bodies())?;
            cm.collide(&mut d.collision)?;
        }
        None => {
            cm.step(&mut d.collision, &d.body_poses)?;
        }
    }
    if let Some(hib) = &mut d.hibernation {
        // A sleeper touched by an awake body wakes with its island: its forward quantities are computed again
        // and its contacts with the world come back.
        if hib.wake_on_contacts(d.collision.contacts()) {
            d.multibody.set_awake(m, hib.awake_bodies());
            m.forward(&mut d.multibody)?;
            cm.set_asleep(&mut d.collision, hib.asleep_bodies())?;
            cm.collide(&mut d.collision)?;
        }
    }
    let t2 = clock.now();
    times[0] += seconds(t0, t1);
    times[1] += seconds(t1, t2);
    solve_contacts(model, d, times, freeze, clock)
}

/// The part of an evaluation after collision: contact forces, rows, integrator preparation, constraint solve and
/// no-slip, at `d`'s state and contacts, the sleeping dofs' acceleration zeroed with `freeze`. Adds the assembly and
/// solve wall times to `times`.
fn solve_contacts(
    model: &Model,
    d: &mut Data,
    times: &mut [f64; 4],
    freeze: bool,
    clock: StageClock,
) -> Result<(SolveStats, NoSlipStats)> {
    let m = &model.multibody;
    let h = model.options.h();
    let t2 = clock.now();
    // Adhesion and body transmissions act through the contacts just found (a body transmission through their rows).
    m.adhesion_pull(&mut d.multibody, d.collision.contacts());
    let overrides = d.constraint_types.overrides(&d.equality_active, &d.sol);
    model.assembler.assemble_for(
        m,
        &d.multibody,
        d.collision.contacts(),
        overrides,
        &mut d.assembly,
        &mut d.rows,
    )?;
    let (contacts, rows, marks) = (d.collision.contacts(), &d.rows, &mut d.transmission_marks);
    m.body_transmissions(&mut d.multibody, |data, body, row| {
        body_transmission_moment(m, data, contacts, rows, body, marks, row)
    });
    // The implicit midpoint rule of free bodies (native dialect) leaves out the bodies these rows act on.
    if model.integrator.reads_constrained_dofs() {
        d.integrator.set_constrained_dofs(m.nv, d.rows.jac_dof.iter().map(|&k| k as usize));
    }
    let t3 = clock.now();
    model.integrator.prepare(m, &mut d.multibody, &mut d.integrator, h)?;
    let solve = model.solver.solve(
        m,
        &d.multibody,
        &d.rows,
        &model.solver_options,
        &mut d.solver,
        &mut d.qacc_warmstart,
        &mut d.efc_force,
    )?;
    // No-slip (§C.8) replaces the friction forces and qacc; the next step warm-starts from its qacc, as
    // MuJoCo 4.0 does.
    let noslip = match &model.noslip_options {
        Some(options) if !d.rows.is_empty() => d.noslip.get_or_insert_default().run(
            m,
            &d.multibody,
            &d.rows,
            options,
            &mut d.efc_force,
            &mut d.qacc_warmstart,
        ),
        _ => NoSlipStats::default(),
    };
    if model.integrator.reads_constraint_force(&d.multibody) {
        constraint_force(&d.rows, &d.efc_force, d.integrator.constraint_force_mut(m.nv), &mut d.transpose);
    }
    if let Some(hib) = d.hibernation.as_ref().filter(|_| freeze) {
        hib.freeze(m, &mut d.qacc_warmstart);
    }
    let t4 = clock.now();
    times[2] += seconds(t2, t3);
    times[3] += seconds(t3, t4);
    Ok((solve, noslip))
}

/// MuJoCo's sleep, in `mj_advance` before the velocity update: puts the islands at rest at the velocities this step
/// was evaluated at to sleep and, if any did, evaluates the velocity-dependent dynamics again with their velocities
/// zeroed (contacts and positions are kept) and solves again from the step's incoming warm start. On return
/// `d.qacc_warmstart` holds the first solve's acceleration, for the integrator, and `d.step_warmstart` the second,
/// for the next step; `None` when nothing fell asleep (nothing changed).
fn sleep_before_advance(
    model: &Model,
    d: &mut Data,
    times: &mut [f64; 4],
    freeze: bool,
    clock: StageClock,
) -> Result<Option<(SolveStats, NoSlipStats)>> {
    let m = &model.multibody;
    let Some(hib) = &mut d.hibernation else { return Ok(None) };
    if !hib.update(m, &mut d.multibody, &d.rows) {
        return Ok(None);
    }
    std::mem::swap(&mut d.qacc_warmstart, &mut d.step_warmstart);
    let t0 = clock.now();
    m.forward(&mut d.multibody)?;
    d.multibody.set_awake(m, hib.awake_bodies());
    times[0] += seconds(t0, clock.now());
    let stats = solve_contacts(model, d, times, freeze, clock)?;
    std::mem::swap(&mut d.qacc_warmstart, &mut d.step_warmstart);
    Ok(Some(stats))
}

/// `qfrc = Jᵀ f` in MuJoCo 4.0.1's arithmetic ([`mujoco_transpose_mul`]), the rows in its order (limits, friction loss and
/// equalities before contacts).
fn constraint_force(rows: &ConstraintRows, force: &[f64], qfrc: &mut [f64], scratch: &mut TransposeScratch) {
    let (contact, other) = (|r: &usize| rows.kind[*r].is_contact(), |r: &usize| !rows.kind[*r].is_contact());
    let order = (0..rows.len()).filter(other).chain((0..rows.len()).filter(contact));
    mujoco_transpose_mul(rows, force, order, qfrc, scratch);
}

fn non_finite(d: &signorini_model::Data) -> Option<String> {
    if d.qpos.iter().any(|x| !x.is_finite()) {
        return Some("qpos".into());
    }
    if d.qvel.iter().any(|x| !x.is_finite()) {
        return Some("qvel".into());
    }
    None
}

fn count_rows(rows: &ConstraintRows) -> [usize; 4] {
    let mut n = [0usize; 4];
    for k in &rows.kind {
        let i = match k {
            RowKind::EqualityConnect
            | RowKind::EqualityWeld
            | RowKind::EqualityJoint
            | RowKind::EqualityTendon => 0,
            RowKind::FrictionLoss | RowKind::FrictionTendon => 1,
            RowKind::ContactFrictionless | RowKind::ContactPyramidal | RowKind::ContactElliptic => 2,
            RowKind::LimitJoint | RowKind::LimitTendon => 3,
        };
        n[i] += 1;
    }
    n
}
