//! A simulated scene: the compiled [`Model`], its [`Data`], the collision world and the constraint/solver/integrator
//! stages, stepped in the order of spec §D.1.
//!
//! One step of `h = dt/substeps`, repeated `substeps` times: forward dynamics (kinematics, mass matrix and its
//! factor, bias, passive and actuator forces, `qacc_smooth`) → collision (AABBs, broad phase, narrow phase, sorted
//! contact set) → constraint rows → integrator preparation (the implicit damping of approximate_implicitfast enters
//! `M` here) → constraint solve (`qacc`, row forces) → integration. All buffers live in the scene and are reused.

use std::path::Path;
use std::time::Instant;

use glam::DVec3;
use signorini_collision::ConvexAlgorithm;
use signorini_collision::world::{BodyDesc, CollisionOptions, CollisionWorld, GeomDesc};
use signorini_constraints::{ConstraintAssembler, ConstraintOptions, ConstraintRows, FrictionCone, RowKind};
use signorini_geometry::Pose;
use signorini_integrators::{Integrator, IntegratorKind};
use signorini_model::spec::{JointKind, ModelSpec};
use signorini_model::{Data, Model};
use signorini_solver::noslip::{NoSlip, NoSlipOptions, NoSlipStats};
use signorini_solver::{
    CgUpdate, ConstraintSolver, SolverKind, SolverOptions, island_solver_for, solver_for,
};

use crate::error::{Result, SimError};
use crate::hibernation::Hibernation;
use crate::options::{ConeChoice, IntegratorChoice, Options, SolverChoice};
use crate::readback::{Contacts, StepStatistics};

/// A scene being simulated.
#[derive(Debug)]
pub struct Scene {
    model: Model,
    data: Data,
    options: Options,
    world: CollisionWorld,
    assembler: ConstraintAssembler,
    rows: ConstraintRows,
    solver: Box<dyn ConstraintSolver>,
    solver_options: SolverOptions,
    integrator: Box<dyn Integrator>,
    noslip: NoSlip,
    hibernation: Option<Hibernation>,
    qacc: Vec<f64>,
    efc_force: Vec<f64>,
    body_poses: Vec<Pose>,
    stats: StepStatistics,
    steps: u64,
}

impl Scene {
    /// Loads an MJCF file, takes its `<option>` values (timestep, cone, solver, iterations, tolerances, impratio,
    /// integrator) over the defaults of `options`' mode, then applies `overrides` (`NAME=VALUE` pairs) and validates.
    pub fn from_mjcf(
        path: &Path,
        mujoco_compatibility: bool,
        overrides: &[(String, String)],
    ) -> Result<Scene> {
        Scene::from_loaded(signorini_mjcf::load_mjcf(path)?, mujoco_compatibility, overrides)
    }

    /// [`Scene::from_mjcf`] for MJCF text (relative `include`s and mesh files resolve against `base_dir`).
    pub fn from_mjcf_str(
        xml: &str,
        base_dir: &Path,
        mujoco_compatibility: bool,
        overrides: &[(String, String)],
    ) -> Result<Scene> {
        Scene::from_loaded(signorini_mjcf::load_mjcf_str(xml, base_dir)?, mujoco_compatibility, overrides)
    }

    fn from_loaded(
        loaded: signorini_mjcf::LoadedMjcf,
        mujoco_compatibility: bool,
        overrides: &[(String, String)],
    ) -> Result<Scene> {
        let mut options = Options { mujoco_compatibility, ..Options::default() };
        if mujoco_compatibility {
            options.integrator = IntegratorChoice::Euler;
            // Box and mesh pairs get MuJoCo 4.0's multi-contact unless `<flag multiccd="disable"/>`.
            options.enable_multi_contact = loaded.options.flag("multiccd");
        }
        apply_mjcf_options(&mut options, &loaded.options)?;
        for (name, value) in overrides {
            options.set(name, value)?;
        }
        Scene::new(loaded.spec, options)
    }

    /// Compiles `spec` and builds every stage for `options` (validated first).
    pub fn new(spec: ModelSpec, options: Options) -> Result<Scene> {
        options.validate()?;
        let model = Model::compile(spec)?;
        let mut data = Data::new(&model);
        if !model.keyframes.is_empty() {
            data.reset_to_keyframe(&model, 0)?;
        }
        let world = build_world(&model, &options)?;
        let constraint_options = ConstraintOptions {
            timestep: options.h(),
            friction_cone: match options.friction_cone {
                ConeChoice::Pyramidal => FrictionCone::Pyramidal,
                ConeChoice::Elliptic => FrictionCone::Elliptic,
            },
            impratio: options.impratio,
            constraint_timeconst: options.constraint_timeconst,
            enable_torsional_friction: options.enable_torsional_friction,
            enable_rolling_friction: options.enable_rolling_friction,
            mujoco_compatibility: options.mujoco_compatibility,
            signorini: options.uses_signorini(),
            ..ConstraintOptions::default()
        };
        let assembler = ConstraintAssembler::new(&model, constraint_options)?;
        let kind = match options.constraint_solver {
            SolverChoice::Newton => SolverKind::Newton,
            SolverChoice::Cg => SolverKind::Cg,
        };
        let solver_options = SolverOptions {
            iterations: options.resolved_iterations(),
            tolerance: options.resolved_tolerance(),
            ls_iterations: options.ls_iterations,
            ls_tolerance: options.ls_tolerance,
            kind,
            cg_update: CgUpdate::HagerZhang,
            elliptic: options.friction_cone == ConeChoice::Elliptic,
            signorini: options.uses_signorini(),
            mujoco_compatibility: options.mujoco_compatibility,
        };
        let integrator = match options.integrator {
            IntegratorChoice::Euler => IntegratorKind::Euler,
            IntegratorChoice::Implicitfast => IntegratorKind::ImplicitFast,
            IntegratorChoice::ApproximateImplicitfast => IntegratorKind::ApproximateImplicitFast,
        }
        .build();
        let nbody = model.nbody;
        let nv = model.nv;
        let solver = if options.enable_islands { island_solver_for(kind) } else { solver_for(kind) };
        let hibernation = options.use_hibernation.then(|| {
            let default = if options.mujoco_compatibility { 1e-4 } else { 2e-3 };
            Hibernation::new(&model, options.hibernation_thresh_vel.unwrap_or(default))
        });
        Ok(Scene {
            model,
            data,
            options,
            world,
            assembler,
            rows: ConstraintRows::new(),
            solver,
            solver_options,
            integrator,
            noslip: NoSlip::default(),
            hibernation,
            qacc: vec![0.0; nv],
            efc_force: Vec::new(),
            body_poses: vec![Pose::IDENTITY; nbody],
            stats: StepStatistics::default(),
            steps: 0,
        })
    }

    /// The compiled model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The current state and derived quantities.
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Statistics of the last step (spec §5).
    pub fn stats(&self) -> &StepStatistics {
        &self.stats
    }

    /// Steps taken since construction or the last reset.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Simulated time (s).
    pub fn time(&self) -> f64 {
        self.data.time
    }

    /// Wakes every sleeping tree (hibernation); the state setters and [`Scene::reset`] do it.
    pub fn wake_all(&mut self) {
        if let Some(h) = &mut self.hibernation {
            h.wake_all();
        }
        self.data.wake_all();
    }

    /// Back to `qpos0` (or keyframe 0 when the model has one), zero velocity.
    pub fn reset(&mut self) -> Result<()> {
        self.data.reset(&self.model);
        if !self.model.keyframes.is_empty() {
            self.data.reset_to_keyframe(&self.model, 0)?;
        }
        self.qacc.iter_mut().for_each(|x| *x = 0.0);
        self.steps = 0;
        self.wake_all();
        Ok(())
    }

    /// Sets `qpos` (length `nq`, finite).
    pub fn set_qpos(&mut self, qpos: &[f64]) -> Result<()> {
        copy_state("qpos", qpos, &mut self.data.qpos)?;
        self.wake_all();
        Ok(())
    }

    /// Sets `qvel` (length `nv`, finite).
    pub fn set_qvel(&mut self, qvel: &[f64]) -> Result<()> {
        copy_state("qvel", qvel, &mut self.data.qvel)?;
        self.wake_all();
        Ok(())
    }

    /// Sets `ctrl` (length `nu`, finite).
    pub fn set_ctrl(&mut self, ctrl: &[f64]) -> Result<()> {
        copy_state("ctrl", ctrl, &mut self.data.ctrl)?;
        self.wake_all();
        Ok(())
    }

    /// Advances the scene by `dt` (`substeps` physics steps).
    pub fn step(&mut self) -> Result<()> {
        for _ in 0..self.options.substeps {
            self.substep()?;
        }
        self.steps += 1;
        Ok(())
    }

    fn substep(&mut self) -> Result<()> {
        let h = self.options.h();
        let t0 = Instant::now();
        self.model.forward(&mut self.data)?;
        if let Some(h) = &self.hibernation {
            // From the next forward pass on, sleeping trees are skipped; this one saw them at their final state.
            self.data.set_awake(&self.model, h.awake_bodies());
        }
        for (b, pose) in self.body_poses.iter_mut().enumerate() {
            *pose = Pose { translation: self.data.xpos[b], rotation: self.data.xquat[b] };
        }
        let t1 = Instant::now();
        let mut contacts = match &self.hibernation {
            Some(h) => {
                self.world.update(&self.body_poses)?;
                self.world.set_asleep(h.asleep_bodies())?;
                self.world.collide()?
            }
            None => self.world.step(&self.body_poses)?,
        };
        if let Some(h) = &mut self.hibernation {
            // A sleeper touched by an awake body wakes with its island: its forward quantities are computed again
            // and its contacts with the world come back.
            if h.wake_on_contacts(contacts) {
                self.data.set_awake(&self.model, h.awake_bodies());
                self.model.forward(&mut self.data)?;
                self.world.set_asleep(h.asleep_bodies())?;
                contacts = self.world.collide()?;
            }
        }
        let t2 = Instant::now();
        self.assembler.assemble(&self.model, &self.data, contacts, &mut self.rows)?;
        let t3 = Instant::now();
        self.integrator.prepare(&self.model, &mut self.data, h)?;
        let solve = self.solver.solve(
            &self.model,
            &self.data,
            &self.rows,
            &self.solver_options,
            &mut self.qacc,
            &mut self.efc_force,
        )?;
        // No-slip (§C.8) replaces the friction forces and qacc; the next step warm-starts from its qacc, as
        // MuJoCo 4.0 does.
        let noslip = if self.options.noslip_iterations > 0 && !self.rows.is_empty() {
            let options = NoSlipOptions {
                iterations: self.options.noslip_iterations,
                tolerance: self.options.noslip_tolerance,
                islands: self.options.enable_islands,
            };
            self.noslip.run(
                &self.model,
                &self.data,
                &self.rows,
                &options,
                &mut self.efc_force,
                &mut self.qacc,
            )
        } else {
            NoSlipStats::default()
        };
        if let Some(hib) = &self.hibernation {
            hib.freeze(&self.model, &mut self.qacc);
        }
        let t4 = Instant::now();
        self.integrator.advance(&self.model, &mut self.data, &self.qacc, h)?;
        if let Some(hib) = &mut self.hibernation {
            hib.update(&self.model, &mut self.data, &self.rows);
        }
        let t5 = Instant::now();
        if let Some(what) = non_finite(&self.data) {
            return Err(SimError::NonFinite { step: self.steps, time: self.data.time, what });
        }
        let world = self.world.stats();
        let s = &mut self.stats;
        s.iterations = solve.iterations;
        s.cost = solve.cost;
        s.gradient_norm = solve.gradient_norm;
        s.converged = solve.converged;
        s.islands = solve.islands;
        s.factorizations = solve.factorizations;
        s.rank_one_updates = solve.rank_one_updates;
        s.noslip_iterations = noslip.iterations;
        s.sleeping_trees = self.hibernation.as_ref().map_or(0, Hibernation::sleeping_trees);
        s.contacts = world.contacts;
        s.candidate_pairs = world.candidate_pairs;
        s.rows = self.rows.len();
        s.rows_by_kind = count_rows(&self.rows);
        s.max_penetration = self.world.contacts().penetration.iter().copied().fold(0.0, f64::max);
        s.time_forward = (t1 - t0).as_secs_f64();
        s.time_collision = (t2 - t1).as_secs_f64();
        s.time_assembly = (t3 - t2).as_secs_f64();
        s.time_solve = (t4 - t3).as_secs_f64();
        s.time_integrate = (t5 - t4).as_secs_f64();
        Ok(())
    }

    /// The contacts of the last step with their solved forces (spec §5; simulator convention: normal from B to A,
    /// `force_a = −force_b`, newtons, world frame).
    pub fn contacts(&self) -> Contacts {
        Contacts::from_rows(
            self.world.contacts(),
            &self.rows,
            &self.efc_force,
            self.options.mujoco_compatibility,
        )
    }

    /// Net contact force on every body (`nbody × 3`, world frame, N) from the last step's solved forces.
    pub fn links_net_contact_force(&self) -> Vec<DVec3> {
        let c = self.contacts();
        let mut net = vec![DVec3::ZERO; self.model.nbody];
        for k in 0..c.len() {
            net[c.link_a[k]] += c.force_a[k];
            net[c.link_b[k]] += c.force_b[k];
        }
        net
    }

    /// Indices of the free joints' bodies, in joint order (the `qpos_free` layout of the dump).
    pub fn free_joints(&self) -> Vec<usize> {
        (0..self.model.njnt).filter(|&j| self.model.jnt_type[j] == JointKind::Free).collect()
    }
}

fn copy_state(what: &str, src: &[f64], dst: &mut [f64]) -> Result<()> {
    if src.len() != dst.len() {
        return Err(SimError::InvalidState {
            what: format!("{what} has {} values, the model needs {}", src.len(), dst.len()),
        });
    }
    if let Some(bad) = src.iter().find(|x| !x.is_finite()) {
        return Err(SimError::InvalidState { what: format!("{what} contains the non-finite value {bad}") });
    }
    dst.copy_from_slice(src);
    Ok(())
}

fn non_finite(d: &Data) -> Option<String> {
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
            RowKind::EqualityConnect | RowKind::EqualityWeld | RowKind::EqualityJoint => 0,
            RowKind::FrictionLoss => 1,
            RowKind::ContactFrictionless | RowKind::ContactPyramidal | RowKind::ContactElliptic => 2,
            RowKind::LimitJoint => 3,
        };
        n[i] += 1;
    }
    n
}

/// The collision world of a compiled model: one body per model body, one geom per model geom, in model order.
fn build_world(model: &Model, options: &Options) -> Result<CollisionWorld> {
    let mut copts = if options.mujoco_compatibility {
        CollisionOptions::mujoco_compatible()
    } else {
        CollisionOptions::default()
    };
    copts.convex_algorithm = ConvexAlgorithm::Mpr;
    copts.max_collision_pairs = options.max_collision_pairs;
    copts.enable_self_collision = options.enable_self_collision;
    copts.enable_adjacent_collision = options.enable_adjacent_collision;
    copts.enable_neutral_collision = options.enable_neutral_collision;
    copts.enable_multi_contact = options.enable_multi_contact;
    copts.box_box_detection = options.box_box_detection;
    copts.threads = options.threads;
    let mut world = CollisionWorld::new(copts)?;
    for b in 1..model.nbody {
        let moving = model.body_jntnum[b] > 0;
        world.add_body(BodyDesc::new(model.body_name[b].clone(), model.body_parent[b], moving))?;
    }
    for g in 0..model.ngeom {
        let mut desc = GeomDesc::new(model.geom_shape[g].clone(), model.geom_bodyid[g])
            .at(Pose { translation: model.geom_pos[g], rotation: model.geom_quat[g] })
            .named(model.geom_name[g].clone());
        desc.contype = model.geom_contype[g];
        desc.conaffinity = model.geom_conaffinity[g];
        desc.condim = model.geom_condim[g];
        desc.friction = model.geom_friction[g];
        desc.solref = model.geom_solref[g];
        desc.solimp = model.geom_solimp[g];
        desc.solmix = model.geom_solmix[g];
        desc.priority = model.geom_priority[g];
        desc.margin = model.geom_margin[g];
        desc.gap = model.geom_gap[g];
        world.add_geom(desc)?;
    }
    for &(a, b) in &model.contact_excludes {
        world.exclude_bodies(a, b)?;
    }
    Ok(world)
}

/// Takes the `<option>` values an MJCF file gives.
fn apply_mjcf_options(options: &mut Options, m: &signorini_mjcf::MjcfOptions) -> Result<()> {
    use signorini_mjcf::{Cone, Integrator as MjIntegrator, Solver};
    if let Some(t) = m.timestep {
        options.dt = t;
    }
    if let Some(c) = m.cone {
        options.friction_cone = match c {
            Cone::Pyramidal => ConeChoice::Pyramidal,
            Cone::Elliptic => ConeChoice::Elliptic,
        };
    }
    if let Some(s) = m.solver {
        options.constraint_solver = match s {
            Solver::Newton => SolverChoice::Newton,
            Solver::Cg => SolverChoice::Cg,
            Solver::Pgs => {
                return Err(SimError::NotImplemented {
                    what: "the PGS solver (MJCF option solver=\"PGS\")".into(),
                });
            }
        };
    }
    if let Some(i) = m.integrator {
        options.integrator = match i {
            MjIntegrator::Euler => IntegratorChoice::Euler,
            MjIntegrator::ImplicitFast => IntegratorChoice::Implicitfast,
            other => {
                return Err(SimError::NotImplemented { what: format!("the MJCF integrator {other:?}") });
            }
        };
    }
    if let Some(i) = m.iterations {
        options.iterations = Some(i as usize);
    }
    if let Some(t) = m.tolerance {
        options.tolerance = Some(t);
    }
    if let Some(i) = m.ls_iterations {
        options.ls_iterations = i as usize;
    }
    if let Some(t) = m.ls_tolerance {
        options.ls_tolerance = t;
    }
    if let Some(r) = m.impratio {
        options.impratio = Some(r);
    }
    if let Some(i) = m.noslip_iterations {
        options.noslip_iterations = i as usize;
    }
    if let Some(t) = m.noslip_tolerance {
        options.noslip_tolerance = t;
    }
    if let Some(&enabled) = m.flags.get("island") {
        options.enable_islands = enabled;
    }
    if let Some(&enabled) = m.flags.get("sleep") {
        // MuJoCo's sleeping: its rest threshold is `sleep_tolerance`, 1e-3 m/s unless the file sets it.
        options.use_hibernation = enabled;
        options.hibernation_thresh_vel = Some(m.sleep_tolerance.unwrap_or(1e-3));
    } else if let Some(t) = m.sleep_tolerance {
        options.hibernation_thresh_vel = Some(t);
    }
    Ok(())
}
