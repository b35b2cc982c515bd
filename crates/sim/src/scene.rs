//! [`Scene`]: one shared [`Model`] and its [`Data`], for the common case of simulating one environment. Every method
//! forwards to the `(&Model, &mut Data)` functions ([`step`](crate::step::step), [`Data`]'s setters and read-back); a batch of
//! environments shares the `Arc<Model>` of a scene ([`Scene::model`]) and keeps its own `Data`s.

use std::sync::Arc;

use glam::{DQuat, DVec3};
use signorini_model::spec::ModelSpec;

use crate::data::Data;
use crate::error::Result;
use crate::model::Model;
use crate::options::Options;
use crate::readback::{Contacts, StepStatistics};

/// A scene being simulated: a shared [`Model`] and its [`Data`].
#[derive(Debug, Clone)]
pub struct Scene {
    model: Arc<Model>,
    data: Data,
}

impl Scene {
    /// Compiles `spec` and builds every stage for `options` (validated first).
    pub fn new(spec: ModelSpec, options: Options) -> Result<Scene> {
        Scene::from_model(Arc::new(Model::new(spec, options)?))
    }

    /// A scene over a shared model, at the model's initial state.
    pub fn from_model(model: Arc<Model>) -> Result<Scene> {
        let data = Data::new(&model)?;
        Ok(Scene { model, data })
    }

    /// The compiled model (shared).
    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// The current state and everything derived from it.
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The state, mutably (for the `(&Model, &mut Data)` functions and direct edits).
    pub fn data_mut(&mut self) -> &mut Data {
        &mut self.data
    }

    /// Replaces the state by `data` (a snapshot taken with `scene.data().clone()`): stepping then continues bit for
    /// bit from where the snapshot was taken. Errors: `data` was made for a model of other dimensions.
    pub fn restore(&mut self, data: Data) -> Result<()> {
        data.check_model(&self.model)?;
        self.data = data;
        Ok(())
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.model.options
    }

    /// Statistics of the last step (spec §5).
    pub fn stats(&self) -> &StepStatistics {
        self.data.stats()
    }

    /// Steps taken since construction or the last reset.
    pub fn steps(&self) -> u64 {
        self.data.steps()
    }

    /// Simulated time (s).
    pub fn time(&self) -> f64 {
        self.data.time()
    }

    /// Wakes every sleeping tree (hibernation); the state setters and [`Scene::reset`] do it.
    pub fn wake_all(&mut self) {
        self.data.wake_all();
    }

    /// Back to `qpos0` (or keyframe 0 when the model has one), zero velocity.
    pub fn reset(&mut self) -> Result<()> {
        self.data.reset(&self.model)
    }

    /// Sets `qpos` (length `nq`, finite).
    pub fn set_qpos(&mut self, qpos: &[f64]) -> Result<()> {
        self.data.set_qpos(qpos)
    }

    /// Sets `qvel` (length `nv`, finite).
    pub fn set_qvel(&mut self, qvel: &[f64]) -> Result<()> {
        self.data.set_qvel(qvel)
    }

    /// Sets `ctrl` (length `nu`, finite).
    pub fn set_ctrl(&mut self, ctrl: &[f64]) -> Result<()> {
        self.data.set_ctrl(ctrl)
    }

    /// Sets the world pose of mocap body `mocap` ([`Data::set_mocap_pose`]).
    pub fn set_mocap_pose(&mut self, mocap: usize, pos: DVec3, quat: DQuat) -> Result<()> {
        self.data.set_mocap_pose(mocap, pos, quat)
    }

    /// Advances the scene by `dt` (`substeps` physics steps). With `threads > 1` the step runs on a worker of the
    /// scene's pool ([`signorini_collision::world::CollisionModel::install`]), which its narrow phase and its
    /// islands' solves share; the results do not depend on `threads`.
    pub fn step(&mut self) -> Result<()> {
        let Scene { model, data } = self;
        model.collision().install(|| crate::step::step(model, data))
    }

    /// [`Scene::step`] `n` times, stopping at the first error, all on one worker of the pool (so that each parallel
    /// narrow phase starts without handing its pairs to another thread); the results are those of `n` calls of
    /// `step`.
    pub fn step_n(&mut self, n: usize) -> Result<()> {
        let Scene { model, data } = self;
        model.collision().install(|| (0..n).try_for_each(|_| crate::step::step(model, data)))
    }

    /// The contacts of the last step with their solved forces (spec §5; simulator convention: normal from B to A,
    /// `force_a = −force_b`, newtons, world frame).
    pub fn contacts(&self) -> Contacts {
        self.data.contacts(&self.model)
    }

    /// Net contact force on every body (`nbody × 3`, world frame, N) from the last step's solved forces.
    pub fn links_net_contact_force(&self) -> Vec<DVec3> {
        self.data.links_net_contact_force(&self.model)
    }

    /// Indices of the free joints' bodies, in joint order (the `qpos_free` layout of the dump).
    pub fn free_joints(&self) -> Vec<usize> {
        self.model.free_joints()
    }
}
