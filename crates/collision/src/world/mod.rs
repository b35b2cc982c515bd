//! The collision world: geoms on bodies, driven by body poses, producing world AABBs, sorted contact sets and
//! robotics queries (spec §A.1–§A.4, §A.15–§A.16; seed 004 §6–§7).
//!
//! It is plain data (structure of arrays) and does not depend on the dynamics crates: the simulator and the robotics
//! tools both fill it (bodies, geoms) and drive it with body poses. What a scene *is* — options, bodies, geoms and
//! their contact parameters, pair filters — is a [`CollisionModel`], built once and then shared read-only; what it is
//! *doing* — poses, boxes, sleep flags, broad-phase state, warm-start normals, buffers, the last contact set — is a
//! [`CollisionData`], one per simulated environment. Every stage is a method of the model taking `&mut` data.
//! [`CollisionWorld`] pairs one of each for the robotics tools and tests that build a world incrementally.
//!
//! | module | concept |
//! |---|---|
//! | [`options`] | [`CollisionOptions`] and their validation |
//! | [`tables`] | [`BodyDesc`], [`GeomDesc`] and the model's [`BodyTable`] / [`GeomTable`] |
//! | [`model`] | [`CollisionModel`]: building the model, pair filters, allowed-collision matrix |
//! | [`data`] | [`CollisionData`]: per-step state, [`StepStats`] |
//! | [`pipeline`] | update, broad phase, filters, narrow phase, merge and sort into a [`ContactSet`] |
//! | [`robotics`] | neutral-pose filter, minimum distance, collision-free checks, distances within a bound |
//!
//! **One step** ([`CollisionWorld::step`] = [`update`](CollisionWorld::update) + [`collide`](CollisionWorld::collide)):
//! 1. geom poses `X_body · X_local` and exact world AABBs ([`Shape::world_aabb`](signorini_geometry::Shape::world_aabb); inflated by the geom margin in
//!    MuJoCo-compatible mode);
//! 2. the broad phase (one `dyn BroadPhase` call), pairs sorted by geom index;
//! 3. the pair filters of [`crate::filter`];
//! 4. the candidate budget ([`crate::capacity`]);
//! 5. the narrow phase per pair in the simulator convention, A and B ordered so that `kind(A) ≤ kind(B)` (ties: lower
//!    index first), with the pair's cached normal from the previous step as MPR's warm start (spec §A.7); in
//!    parallel over pairs with `rayon` when `threads > 1`, each pair writing its own slot (the pairs run in blocks
//!    of 128, each staged before the next, so the slots never outnumber a block);
//! 6. merge of the slots in pair order, per-pair and contact budgets, parameter mixing (spec §A.15), the normal
//!    cache update (pairs whose boxes stopped overlapping are forgotten, spec §A.4);
//! 7. the deterministic sort of spec §A.16 into the [`ContactSet`].
//!
//! Results are byte-identical for any thread count and any order of the candidate pairs.
//!
//! **Robotics queries** (Coal convention, normal from A to B, A the lower geom index; [`robotics`]):
//! [`min_distance`](CollisionWorld::min_distance), [`is_collision_free`](CollisionWorld::is_collision_free) and
//! [`distances_within`](CollisionWorld::distances_within) apply the same filters (including the allowed-collision
//! matrix) and use a second broad-phase instance on boxes inflated by the query distance to skip far pairs. They
//! have no pair budget: they produce no contacts.
//!
//! ```
//! use signorini_collision::world::{BodyDesc, CollisionOptions, CollisionWorld, GeomDesc};
//! use signorini_geometry::{Cuboid, DVec3, Plane, Pose};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut world = CollisionWorld::new(CollisionOptions::default())?;
//! world.add_geom(GeomDesc::new(Plane::new(), 0))?; // the floor, on the world body
//! let cube = world.add_body(BodyDesc::free("cube"))?;
//! world.add_geom(GeomDesc::new(Cuboid::new(DVec3::splat(0.1))?, cube))?;
//! // One pose per body, the world first: the cube sinks 1 mm into the floor.
//! let poses = [Pose::IDENTITY, Pose::from_translation(DVec3::new(0.0, 0.0, 0.099))];
//! let contacts = world.step(&poses)?;
//! assert_eq!(contacts.len(), 4); // the four bottom corners
//! assert_eq!((contacts.geom_a[0], contacts.geom_b[0]), (0, 1)); // plane first
//! assert!((contacts.penetration[0] - 0.001).abs() < 1e-12);
//! assert_eq!(contacts.normal[0], -DVec3::Z); // from B (the cube) to A (the floor)
//! assert_eq!(world.min_distance()?.map(|d| d.geom_b), Some(1));
//! # Ok(())
//! # }
//! ```
//!
//! **Allocation.** Every per-step buffer (candidates, pair slots, manifolds, workspaces, staging, the contact set, the
//! normal cache) is reused; once the largest step has been seen, a step allocates nothing in this crate.

pub mod data;
pub mod model;
pub mod options;
pub mod pipeline;
pub mod robotics;
pub mod tables;

pub use data::{CollisionData, StepStats};
pub use model::CollisionModel;
pub use options::CollisionOptions;
pub use robotics::PairDistance;
pub use tables::{BodyDesc, BodyTable, DEFAULT_SOLIMP, DEFAULT_SOLREF, GeomDesc, GeomTable};

use signorini_geometry::Pose;

use crate::broad::{BroadPhase, GeomPair};
use crate::contact_set::ContactSet;
use crate::error::Result;
use crate::filter::{AllowedCollisionMatrix, FilterReason, PairRules};

/// A collision world: one [`CollisionModel`] and its [`CollisionData`], for building incrementally and querying
/// (see the module docs).
#[derive(Debug, Clone)]
pub struct CollisionWorld {
    model: CollisionModel,
    data: CollisionData,
}

impl CollisionWorld {
    /// An empty world (only the world body, index 0, named `"world"`) with validated options.
    pub fn new(options: CollisionOptions) -> Result<Self> {
        let model = CollisionModel::new(options)?;
        let data = CollisionData::new(&model);
        Ok(Self { model, data })
    }

    /// The model.
    pub fn model(&self) -> &CollisionModel {
        &self.model
    }

    /// The per-step state.
    pub fn data(&self) -> &CollisionData {
        &self.data
    }

    /// The model and its data, apart.
    pub fn into_parts(self) -> (CollisionModel, CollisionData) {
        (self.model, self.data)
    }

    /// The options in force.
    pub fn options(&self) -> &CollisionOptions {
        &self.model.options
    }

    /// Replaces the options (validated). Changing the broad phase or its margin restarts it, changing `threads`
    /// restarts the thread pool, and changing `dialect` requires a new [`update`](Self::update) (boxes depend on it).
    pub fn set_options(&mut self, options: CollisionOptions) -> Result<()> {
        let old = self.model.options;
        self.model.set_options(options)?;
        let data = &mut self.data;
        if old.threads != options.threads {
            data.workspaces =
                (0..options.threads).map(|_| std::sync::Mutex::new(Default::default())).collect();
        }
        if old.broad_phase != options.broad_phase || old.tree_fat_margin != options.tree_fat_margin {
            data.broad = options.broad_phase.build(options.tree_fat_margin);
            data.query_broad = options.broad_phase.build(options.tree_fat_margin);
        }
        if old.dialect != options.dialect {
            data.updated = false;
        }
        Ok(())
    }

    /// The bodies.
    pub fn bodies(&self) -> &BodyTable {
        &self.model.bodies
    }

    /// The geoms.
    pub fn geoms(&self) -> &GeomTable {
        &self.model.geoms
    }

    /// The index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.model.body_index(name)
    }

    /// The broad phase in use (for statistics such as the tree's reinsertions).
    pub fn broad_phase(&self) -> &dyn BroadPhase {
        self.data.broad_phase()
    }

    /// Adds a body; returns its index. Errors: unknown parent, duplicate non-empty name.
    pub fn add_body(&mut self, desc: BodyDesc) -> Result<usize> {
        let idx = self.model.add_body(desc)?;
        self.data.sync(&self.model);
        Ok(idx)
    }

    /// Adds a geom; returns its index. Errors name the geom and the bad parameter.
    pub fn add_geom(&mut self, desc: GeomDesc) -> Result<usize> {
        let idx = self.model.add_geom(desc)?;
        self.data.sync(&self.model);
        Ok(idx)
    }

    /// See [`CollisionModel::update`].
    pub fn update(&mut self, body_poses: &[Pose]) -> Result<()> {
        self.model.update(&mut self.data, body_poses)
    }

    /// [`update`](Self::update) then [`collide`](Self::collide).
    pub fn step(&mut self, body_poses: &[Pose]) -> Result<&ContactSet> {
        self.model.step(&mut self.data, body_poses)
    }

    /// See [`CollisionModel::collide`].
    pub fn collide(&mut self) -> Result<&ContactSet> {
        self.model.collide(&mut self.data)
    }

    /// See [`CollisionModel::collide_pairs`].
    pub fn collide_pairs(&mut self, pairs: &[[usize; 2]]) -> Result<&ContactSet> {
        self.model.collide_pairs(&mut self.data, pairs)
    }

    /// See [`CollisionModel::set_asleep`].
    pub fn set_asleep(&mut self, asleep: &[bool]) -> Result<()> {
        self.model.set_asleep(&mut self.data, asleep)
    }

    /// The contact set of the last successful [`collide`](Self::collide).
    pub fn contacts(&self) -> &ContactSet {
        self.data.contacts()
    }

    /// The pairs examined by the narrow phase in the last step, ordered `(A, B)` as the narrow phase saw them.
    pub fn candidate_pairs(&self) -> &[GeomPair] {
        self.data.candidate_pairs()
    }

    /// Counts of the last step.
    pub fn stats(&self) -> StepStats {
        self.data.stats()
    }

    /// See [`CollisionModel::filter_reason`].
    pub fn filter_reason(&self, ga: usize, gb: usize) -> Result<Option<FilterReason>> {
        self.model.filter_reason(ga, gb)
    }

    pub(crate) fn filter_reason_with(&self, ga: usize, gb: usize, rules: PairRules) -> Option<FilterReason> {
        self.model.filter_reason_with(ga, gb, rules)
    }

    /// See [`CollisionModel::add_weld`].
    pub fn add_weld(&mut self, a: usize, b: usize) -> Result<()> {
        self.model.add_weld(a, b)
    }

    /// See [`CollisionModel::remove_weld`].
    pub fn remove_weld(&mut self, a: usize, b: usize) -> bool {
        self.model.remove_weld(a, b)
    }

    /// See [`CollisionModel::exclude_bodies`].
    pub fn exclude_bodies(&mut self, a: usize, b: usize) -> Result<()> {
        self.model.exclude_bodies(a, b)
    }

    /// See [`CollisionModel::add_explicit_pair`].
    pub fn add_explicit_pair(
        &mut self,
        a: usize,
        b: usize,
        params: crate::contact_set::MixedParams,
    ) -> Result<()> {
        self.model.add_explicit_pair(a, b, params)
    }

    /// See [`CollisionModel::set_local_collision_mask`].
    pub fn set_local_collision_mask(&mut self, entity: u32, local: bool) {
        self.model.set_local_collision_mask(entity, local)
    }

    /// The allowed-collision matrix in force.
    pub fn acm(&self) -> &AllowedCollisionMatrix {
        self.model.acm()
    }

    /// See [`CollisionModel::set_acm`].
    pub fn set_acm(&mut self, acm: AllowedCollisionMatrix) -> Result<()> {
        self.model.set_acm(acm)
    }

    /// See [`CollisionModel::apply_neutral_filter`]; the world stays posed at the neutral configuration.
    pub fn apply_neutral_filter(&mut self, neutral_body_poses: &[Pose]) -> Result<Vec<[usize; 2]>> {
        self.model.apply_neutral_filter(&mut self.data, neutral_body_poses)
    }

    /// See [`CollisionModel::min_distance`].
    pub fn min_distance(&mut self) -> Result<Option<PairDistance>> {
        self.model.min_distance(&mut self.data)
    }

    /// See [`CollisionModel::is_collision_free`].
    pub fn is_collision_free(&mut self, security_margin: f64) -> Result<bool> {
        self.model.is_collision_free(&mut self.data, security_margin)
    }

    /// See [`CollisionModel::distances_within`].
    pub fn distances_within(&mut self, d_act: f64, out: &mut Vec<PairDistance>) -> Result<()> {
        self.model.distances_within(&mut self.data, d_act, out)
    }

    pub(crate) fn colliding_pairs(&mut self, rules: PairRules, out: &mut Vec<GeomPair>) -> Result<()> {
        self.model.colliding_pairs(&mut self.data, rules, out)
    }
}
