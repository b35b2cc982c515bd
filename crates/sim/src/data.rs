//! [`Data`]: what a simulated scene is *doing* — the state (`qpos`, `qvel`, `ctrl`, `time`), everything a
//! step derives from it (kinematics, mass matrix, contacts, constraint rows and forces), what carries from one step
//! to the next (the solver's warm start and kept analysis, the collision normal cache and broad-phase state, the
//! sleep state) and all scratch. It is made for one [`Model`], allocated once and reused by every step; cloning it
//! snapshots the simulation, and a clone stepped with the same model continues bit for bit as the original would.

use glam::{DQuat, DVec3};
use signorini_collision::world::CollisionData;
use signorini_constraints::mujoco_dot::TransposeScratch;
use signorini_constraints::{AssemblyScratch, ConstraintRows, EnvironmentOverrides, SolOverrides};
use signorini_geometry::Pose;
use signorini_integrators::IntegratorScratch;
use signorini_solver::SolverData;
use signorini_solver::noslip::NoSlip;

use crate::dialect::DialectStages;
use crate::error::{Result, SimError};
use crate::hibernation::Hibernation;
use crate::model::Model;
use crate::readback::{Contacts, StepStatistics};

/// The constraint types an environment assembles (see [`Data::constraint_types`]); a new environment's follow the
/// model's options ([`ConstraintTypes::of`]), each `true` by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstraintTypes {
    /// Equality rows.
    pub equality: bool,
    /// DOF friction-loss rows.
    pub friction_loss: bool,
    /// Contact rows (the contacts are still detected and read back, with zero force).
    pub contact: bool,
    /// Joint-limit rows.
    pub limit: bool,
}

impl Default for ConstraintTypes {
    fn default() -> Self {
        Self { equality: true, friction_loss: true, contact: true, limit: true }
    }
}

impl ConstraintTypes {
    /// The types a model's options switch on (every type by default): a new environment's.
    pub fn of(options: &crate::Options) -> ConstraintTypes {
        ConstraintTypes {
            equality: options.enable_equality,
            friction_loss: options.enable_friction_loss,
            contact: options.enable_collision,
            limit: options.enable_joint_limit,
        }
    }

    /// What the assembler changes for an environment with these types, `active` equalities and `sol` replacements.
    pub(crate) fn overrides<'a>(
        &self,
        active: &'a [bool],
        sol: &'a SolOverrides,
    ) -> EnvironmentOverrides<'a> {
        let all_active = active.iter().all(|&a| a);
        EnvironmentOverrides {
            equality: self.equality,
            friction_loss: self.friction_loss,
            contact: self.contact,
            limit: self.limit,
            active_equalities: (!all_active).then_some(active),
            sol: (!sol.is_empty()).then_some(sol),
        }
    }
}

/// The per-step state of a [`Model`] (see the module docs).
#[derive(Debug, Clone)]
pub struct Data {
    /// State and smooth dynamics: `qpos`, `qvel`, `ctrl`, `time`, kinematics, `M` and its factor, forces.
    pub multibody: signorini_model::Data,
    /// Poses, boxes, broad-phase state, warm-start normals and the last contact set.
    pub collision: CollisionData,
    /// The last step's constraint rows (equalities, friction loss, contacts, limits).
    pub rows: ConstraintRows,
    /// The last step's row forces (`rows.len()`).
    pub efc_force: Vec<f64>,
    /// The last step's constrained acceleration: the next solve's warm start (`nv`).
    pub qacc_warmstart: Vec<f64>,
    /// Which constraint types this environment assembles (all by default; Genesis lets a type be disabled).
    pub constraint_types: ConstraintTypes,
    /// Per equality (model order), whether it is active (all by default; a weld switched off at run time, as a
    /// suction gripper releasing).
    pub equality_active: Vec<bool>,
    /// This environment's replacements of equality and joint-limit `sol_params` (none by default; see
    /// [`Data::set_equality_sol_params`], [`Data::set_joint_sol_params`]).
    pub(crate) sol: SolOverrides,
    pub(crate) assembly: AssemblyScratch,
    pub(crate) solver: SolverData,
    /// The no-slip pass's scratch, made at its first run (most scenes never run it; boxed, it costs 8 bytes here).
    pub(crate) noslip: Option<Box<NoSlip>>,
    pub(crate) integrator: IntegratorScratch,
    /// Scratch of `Jᵀ f` for the implicit integrators (MuJoCo dialect).
    pub(crate) transpose: TransposeScratch,
    /// Scratch of the body transmissions' moments (a mark per row).
    pub(crate) transmission_marks: Vec<f64>,
    /// The warm start at the start of a step, given to every evaluation of a multi-evaluation integrator (RK4) and to
    /// the second solve of a step in which trees fall asleep (MuJoCo dialect), as MuJoCo does: `qacc_warmstart`
    /// changes only when the step ends.
    pub(crate) step_warmstart: Vec<f64>,
    /// The sleep state, with hibernation on (boxed: without it the field costs 8 bytes).
    pub(crate) hibernation: Option<Box<Hibernation>>,
    pub(crate) body_poses: Vec<Pose>,
    /// Scratch of the swept collision (`Options::enable_ccd`).
    pub(crate) ccd: signorini_collision::query::QueryWorkspace,
    pub(crate) stats: StepStatistics,
    pub(crate) steps: u64,
}

impl Data {
    /// The initial state of `model`: `qpos0` (or keyframe 0 when the model has one), zero velocity, all awake but the
    /// trees whose sleep policy is `init` (with hibernation on).
    pub fn new(model: &Model) -> Result<Data> {
        let m = &model.multibody;
        let mut multibody = signorini_model::Data::new(m);
        if !m.keyframes.is_empty() {
            multibody.reset_to_keyframe(m, 0)?;
        }
        let mut data = Data {
            multibody,
            collision: CollisionData::new(model.collision()),
            rows: ConstraintRows::new(),
            efc_force: Vec::new(),
            qacc_warmstart: vec![0.0; m.nv],
            constraint_types: ConstraintTypes::of(&model.options),
            equality_active: model.equality_active0.clone(),
            sol: SolOverrides::new(),
            assembly: AssemblyScratch::default(),
            solver: SolverData::new(),
            noslip: None,
            integrator: IntegratorScratch::default(),
            transpose: TransposeScratch::default(),
            transmission_marks: Vec::new(),
            step_warmstart: Vec::new(),
            hibernation: model
                .hibernation_thresh_vel
                .map(|t| Box::new(Hibernation::new(m, t, &model.tree_sleep, model.dialect.sleep_rules()))),
            body_poses: vec![Pose::IDENTITY; m.nbody],
            ccd: Default::default(),
            stats: StepStatistics::default(),
            steps: 0,
        };
        if let Some(h) = &mut data.hibernation {
            h.sleep_initial(m, &mut data.multibody);
        }
        Ok(data)
    }

    /// Back to `qpos0` (or keyframe 0 when the model has one) without freeing memory: zero velocity and warm
    /// start, no contact or row, the collision warm-start normals and broad-phase state forgotten, all awake. A reset
    /// `Data` continues bit for bit as a new one ([`Data::new`]) would.
    pub fn reset(&mut self, model: &Model) -> Result<()> {
        let keyframe = (!model.multibody.keyframes.is_empty()).then_some(0);
        self.reset_to(model, keyframe)
    }

    /// [`Data::reset`] to keyframe `keyframe` (`None`: `qpos0`, zero velocity and control). Errors: no such keyframe.
    pub fn reset_to(&mut self, model: &Model, keyframe: Option<usize>) -> Result<()> {
        let m = &model.multibody;
        if let Some(k) = keyframe
            && k >= m.keyframes.len()
        {
            return Err(SimError::InvalidState {
                what: format!("keyframe {k} does not exist (the model has {})", m.keyframes.len()),
            });
        }
        self.multibody.reset(m);
        if let Some(k) = keyframe {
            self.multibody.reset_to_keyframe(m, k)?;
        }
        self.collision.reset(model.collision());
        self.rows.clear();
        self.efc_force.clear();
        self.qacc_warmstart.iter_mut().for_each(|x| *x = 0.0);
        self.body_poses.fill(Pose::IDENTITY);
        self.stats = StepStatistics::default();
        self.steps = 0;
        if let Some(h) = &mut self.hibernation {
            h.reset();
            h.sleep_initial(m, &mut self.multibody);
        }
        self.multibody.wake_all();
        Ok(())
    }

    /// Whether kinematic tree `tree` ([`signorini_model::Model::dof_treeid`]) sleeps (always `false` without
    /// hibernation).
    pub fn is_tree_asleep(&self, tree: usize) -> bool {
        self.hibernation.as_ref().is_some_and(|h| h.is_asleep(tree))
    }

    /// Wakes every sleeping tree (hibernation); the state setters and [`Data::reset`] do it.
    pub fn wake_all(&mut self) {
        if let Some(h) = &mut self.hibernation {
            h.wake_all();
        }
        self.multibody.wake_all();
    }

    /// Sets `qpos` (length `nq`, finite) and wakes every tree.
    pub fn set_qpos(&mut self, qpos: &[f64]) -> Result<()> {
        copy_state("qpos", qpos, &mut self.multibody.qpos)?;
        self.wake_all();
        Ok(())
    }

    /// Sets `qvel` (length `nv`, finite) and wakes every tree.
    pub fn set_qvel(&mut self, qvel: &[f64]) -> Result<()> {
        copy_state("qvel", qvel, &mut self.multibody.qvel)?;
        self.wake_all();
        Ok(())
    }

    /// Sets `ctrl` (length `nu`, finite) and wakes every tree.
    pub fn set_ctrl(&mut self, ctrl: &[f64]) -> Result<()> {
        copy_state("ctrl", ctrl, &mut self.multibody.ctrl)?;
        self.wake_all();
        Ok(())
    }

    /// Sets the world pose of mocap body `mocap` (its index in `multibody.mocap_pos`, [`signorini_model::Model::body_mocapid`]):
    /// the next step's forward kinematics places the body there (a unit or non-unit quaternion, normalised; a zero
    /// one is the identity, as in MuJoCo). Mocap bodies have no velocity: moving one pushes what it touches through
    /// penetration only. Errors: an index out of range, a non-finite value.
    pub fn set_mocap_pose(&mut self, mocap: usize, pos: DVec3, quat: DQuat) -> Result<()> {
        let n = self.multibody.mocap_pos.len();
        if mocap >= n {
            return Err(SimError::InvalidState {
                what: format!("mocap index {mocap}: the model has {n} mocap bodies"),
            });
        }
        if !pos.is_finite() || !quat.is_finite() {
            return Err(SimError::InvalidState { what: format!("mocap {mocap}: non-finite pose") });
        }
        self.multibody.mocap_pos[mocap] = pos;
        self.multibody.mocap_quat[mocap] = quat;
        Ok(())
    }

    /// Errors: `self` was made for a model of other dimensions than `model`.
    pub(crate) fn check_model(&self, model: &Model) -> Result<()> {
        let (m, d) = (&model.multibody, &self.multibody);
        if d.qpos.len() != m.nq || d.qvel.len() != m.nv || d.ctrl.len() != m.nu || d.xpos.len() != m.nbody {
            return Err(SimError::InvalidState { what: "the data was made for another model".into() });
        }
        Ok(())
    }

    /// Simulated time (s).
    pub fn time(&self) -> f64 {
        self.multibody.time
    }

    /// Steps taken since construction or the last reset.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Statistics of the last step (spec §5).
    pub fn stats(&self) -> &StepStatistics {
        &self.stats
    }

    /// The contacts of the last step with their solved forces (spec §5; simulator convention: normal from B to A,
    /// `force_a = −force_b`, newtons, world frame), then, in native mode with hibernation, the contacts sleeping
    /// groups kept from the step they fell asleep in (seed 001 §8.4).
    pub fn contacts(&self, model: &Model) -> Contacts {
        let mut live = Contacts::from_rows(
            self.collision.contacts(),
            &self.rows,
            &self.efc_force,
            model.constraint_options.tangent_frame,
        );
        if let Some(h) = &self.hibernation {
            let kept = h.kept_contacts();
            for k in 0..kept.len() {
                live.push_from(kept, k);
            }
        }
        live
    }

    /// Net contact force on every body (`nbody × 3`, world frame, N) from the last step's solved forces.
    pub fn links_net_contact_force(&self, model: &Model) -> Vec<DVec3> {
        let c = self.contacts(model);
        let mut net = vec![DVec3::ZERO; model.multibody.nbody];
        for k in 0..c.len() {
            net[c.link_a[k]] += c.force_a[k];
            net[c.link_b[k]] += c.force_b[k];
        }
        net
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
    let max = signorini_geometry::MAX_COORDINATE;
    if let Some(bad) = src.iter().find(|x| x.abs() > max) {
        return Err(SimError::InvalidState {
            what: format!("{what} contains {bad:e}, beyond ±{max:e} (the largest magnitude accepted)"),
        });
    }
    dst.copy_from_slice(src);
    Ok(())
}
