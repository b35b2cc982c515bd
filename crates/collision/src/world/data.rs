//! [`CollisionData`]: what a collision scene is *doing* — body and geom poses, world boxes, sleep flags, the
//! broad phases' kept state, the per-pair warm-start normals, every per-step buffer and the last contact set. It is
//! made for one [`CollisionModel`], written by its pipeline and queries, and can be cloned to snapshot a simulation:
//! a clone continues bit for bit as the original would.

use std::sync::{Mutex, MutexGuard, PoisonError};

use glam::DVec3;
use serde::{Deserialize, Serialize};
use signorini_geometry::{Aabb, Pose};

use super::model::CollisionModel;
use crate::broad::{BroadPhase, GeomPair};
use crate::contact_set::{ContactSet, GeomContactParams, Pruning, SolImp, SolRef, StagedContact};
use crate::dialect::PairSlot;
use crate::query::QueryWorkspace;

/// [`CollisionData`]'s mark of a pair that is not an explicit pair.
pub(crate) const NOT_EXPLICIT: u32 = u32::MAX;

/// Counts of the last step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepStats {
    /// Pairs reported by the broad phase (or given to [`CollisionModel::collide_pairs`] and overlapping).
    pub broad_phase_pairs: usize,
    /// Pairs left after the filters (sent to the narrow phase).
    pub candidate_pairs: usize,
    /// Pairs with at least one contact.
    pub colliding_pairs: usize,
    /// Contacts.
    pub contacts: usize,
}

/// Per-pair warm-start normals (B → A), keyed by `[min, max]` geom index, sorted.
#[derive(Debug, Clone, Default)]
pub(crate) struct NormalCache {
    entries: Vec<(GeomPair, DVec3)>,
    pub(crate) next: Vec<(GeomPair, DVec3)>,
}

impl NormalCache {
    pub(crate) fn lookup(&self, pair: GeomPair) -> Option<DVec3> {
        let key = canonical(pair);
        self.entries.binary_search_by_key(&key, |e| e.0).ok().map(|i| self.entries[i].1)
    }

    pub(crate) fn commit(&mut self) {
        self.next.sort_unstable_by_key(|e| e.0);
        std::mem::swap(&mut self.entries, &mut self.next);
        self.next.clear();
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.next.clear();
    }
}

pub(crate) fn canonical([a, b]: GeomPair) -> GeomPair {
    if a <= b { [a, b] } else { [b, a] }
}

pub(crate) fn lock(m: &Mutex<QueryWorkspace>) -> MutexGuard<'_, QueryWorkspace> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The rule of [`CollisionData::set_friction_ratio`] for the values: each in `[0.01, 5]` (Genesis's range; NaN is
/// outside it). The error names the first geom that breaks it.
pub fn check_friction_ratio(ratios: &[f64]) -> crate::error::Result<()> {
    match ratios.iter().enumerate().find(|(_, r)| !(0.01..=5.0).contains(*r)) {
        Some((g, r)) => Err(crate::error::CollisionError::InvalidRequest {
            what: format!("friction ratio of geom {g} must be in [0.01, 5], got {r}"),
        }),
        None => Ok(()),
    }
}

/// The per-step state of a [`CollisionModel`] (see the module docs).
#[derive(Debug)]
pub struct CollisionData {
    /// Body poses (world frame), from the last [`CollisionModel::update`].
    pub(crate) body_pose: Vec<Pose>,
    /// Geom poses (world frame), from the last update.
    pub(crate) geom_pose: Vec<Pose>,
    /// Geom world AABBs (margin-inflated in MuJoCo-compatible mode), from the last update.
    pub(crate) geom_aabb: Vec<Aabb>,
    /// Fixed or on a sleeping body: the broad phase pairs such geoms only with awake ones.
    pub(crate) geom_frozen: Vec<bool>,
    /// Sleeping bodies.
    pub(crate) body_asleep: Vec<bool>,
    /// Per geom, the factor on its friction coefficients before mixing (Genesis's friction ratio; 1 by default).
    pub(crate) geom_friction_ratio: Vec<f64>,
    /// Per geom, this environment's contact parameters once any was set (friction, `solref`, `solimp`; domain
    /// randomisation); `None` until then: the model's.
    pub(crate) geom_params: Option<Vec<GeomContactParams>>,
    /// This environment's active weld links `(lo, hi)` body pairs, sorted: their geoms do not collide (spec §A.2
    /// rule 5, as the welds are switched on and off at run time). See [`CollisionData::set_active_welds`].
    pub(crate) active_welds: Vec<(usize, usize)>,
    pub(crate) broad: Box<dyn BroadPhase>,
    pub(crate) query_broad: Box<dyn BroadPhase>,
    /// One workspace per narrow-phase thread.
    pub(crate) workspaces: Vec<Mutex<QueryWorkspace>>,
    pub(crate) updated: bool,
    pub(crate) candidates: Vec<GeomPair>,
    pub(crate) pairs: Vec<GeomPair>,
    /// Per entry of `pairs`: its index in the model's explicit pairs, or [`NOT_EXPLICIT`].
    pub(crate) pair_explicit: Vec<u32>,
    pub(crate) scratch: Vec<GeomPair>,
    pub(crate) slots: Vec<PairSlot>,
    pub(crate) cache: NormalCache,
    pub(crate) staging: Vec<StagedContact>,
    /// The staged contacts' sort keys and indices, sorted (the records are large: the sort moves keys).
    pub(crate) staging_order: Vec<(u128, i64, u32)>,
    pub(crate) pruning: Pruning,
    pub(crate) contacts: ContactSet,
    pub(crate) stats: StepStats,
    pub(crate) query_aabbs: Vec<Aabb>,
    pub(crate) query_candidates: Vec<GeomPair>,
    pub(crate) query_pairs: Vec<GeomPair>,
}

impl Clone for CollisionData {
    fn clone(&self) -> Self {
        Self {
            body_pose: self.body_pose.clone(),
            geom_pose: self.geom_pose.clone(),
            geom_aabb: self.geom_aabb.clone(),
            geom_frozen: self.geom_frozen.clone(),
            body_asleep: self.body_asleep.clone(),
            geom_friction_ratio: self.geom_friction_ratio.clone(),
            geom_params: self.geom_params.clone(),
            active_welds: self.active_welds.clone(),
            broad: self.broad.clone_box(),
            query_broad: self.query_broad.clone_box(),
            workspaces: self.workspaces.iter().map(|w| Mutex::new(lock(w).clone())).collect(),
            updated: self.updated,
            candidates: self.candidates.clone(),
            pairs: self.pairs.clone(),
            pair_explicit: self.pair_explicit.clone(),
            scratch: self.scratch.clone(),
            slots: self.slots.clone(),
            cache: self.cache.clone(),
            staging: self.staging.clone(),
            staging_order: self.staging_order.clone(),
            pruning: self.pruning.clone(),
            contacts: self.contacts.clone(),
            stats: self.stats,
            query_aabbs: self.query_aabbs.clone(),
            query_candidates: self.query_candidates.clone(),
            query_pairs: self.query_pairs.clone(),
        }
    }
}

impl CollisionData {
    /// The state of `model` before its first update: bodies at the identity, all awake, no contact.
    pub fn new(model: &CollisionModel) -> Self {
        let o = &model.options;
        let mut data = Self {
            body_pose: Vec::new(),
            geom_pose: Vec::new(),
            geom_aabb: Vec::new(),
            geom_frozen: Vec::new(),
            body_asleep: Vec::new(),
            geom_friction_ratio: Vec::new(),
            geom_params: None,
            active_welds: Vec::new(),
            broad: o.broad_phase.build(o.tree_fat_margin),
            query_broad: o.broad_phase.build(o.tree_fat_margin),
            workspaces: Vec::new(),
            updated: false,
            candidates: Vec::new(),
            pairs: Vec::new(),
            pair_explicit: Vec::new(),
            scratch: Vec::new(),
            slots: Vec::new(),
            cache: NormalCache::default(),
            staging: Vec::new(),
            staging_order: Vec::new(),
            pruning: Pruning::default(),
            contacts: ContactSet::new(),
            stats: StepStats::default(),
            query_aabbs: Vec::new(),
            query_candidates: Vec::new(),
            query_pairs: Vec::new(),
        };
        data.sync(model);
        data
    }

    /// Follows a change of `model` (bodies or geoms added, options replaced): per-body and per-geom arrays grow
    /// (new bodies awake), the broad phases and the warm-start normals restart, the workspaces match `threads`,
    /// and a new [`CollisionModel::update`] is required.
    pub fn sync(&mut self, model: &CollisionModel) {
        let (nbody, ngeom) = (model.bodies.len(), model.geoms.len());
        self.body_pose.resize(nbody, Pose::IDENTITY);
        self.body_asleep.resize(nbody, false);
        self.geom_pose.resize(ngeom, Pose::IDENTITY);
        self.geom_aabb.resize(ngeom, Aabb::new(DVec3::ZERO, DVec3::ZERO));
        self.geom_friction_ratio.resize(ngeom, 1.0);
        if let Some(params) = &mut self.geom_params {
            params.truncate(ngeom);
            params.extend((params.len()..ngeom).map(|g| model.geoms.params(g)));
        }
        self.geom_frozen.clear();
        self.geom_frozen.extend(
            model.geom_fixed.iter().zip(&model.geoms.body).map(|(&fixed, &b)| fixed || self.body_asleep[b]),
        );
        let o = &model.options;
        let threads = o.threads.max(1);
        if self.workspaces.len() != threads {
            self.workspaces = (0..threads).map(|_| Mutex::new(QueryWorkspace::default())).collect();
        }
        self.broad = o.broad_phase.build(o.tree_fat_margin);
        self.query_broad = o.broad_phase.build(o.tree_fat_margin);
        self.cache.clear();
        self.updated = false;
    }

    /// Back to the state of [`CollisionData::new`] without freeing memory: bodies at the identity and awake, the
    /// broad phases and the warm-start normals forgotten, no contact, and a new [`CollisionModel::update`] required.
    /// A reset data continues bit for bit as a new one would.
    pub fn reset(&mut self, model: &CollisionModel) {
        self.body_pose.fill(Pose::IDENTITY);
        self.geom_pose.fill(Pose::IDENTITY);
        self.geom_aabb.fill(Aabb::new(DVec3::ZERO, DVec3::ZERO));
        self.body_asleep.fill(false);
        self.geom_frozen.copy_from_slice(&model.geom_fixed);
        self.broad.reset();
        self.query_broad.reset();
        self.cache.clear();
        self.contacts.clear();
        self.stats = StepStats::default();
        self.updated = false;
    }

    /// This environment's active weld links (body pairs, either order): the next steps skip their geom pairs, as the
    /// model's static welds ([`CollisionModel::add_weld`]) are skipped in every environment. Replaces the previous
    /// set without allocating once warm; a weld switched off collides again.
    pub fn set_active_welds(&mut self, welds: impl IntoIterator<Item = (usize, usize)>) {
        self.active_welds.clear();
        self.active_welds.extend(welds.into_iter().map(|(a, b)| (a.min(b), a.max(b))));
        self.active_welds.sort_unstable();
    }

    /// Whether an active weld of this environment links bodies `a` and `b`.
    pub(crate) fn welded(&self, a: usize, b: usize) -> bool {
        !self.active_welds.is_empty() && self.active_welds.binary_search(&(a.min(b), a.max(b))).is_ok()
    }

    /// The contact set of the last successful [`CollisionModel::collide`].
    pub fn contacts(&self) -> &ContactSet {
        &self.contacts
    }

    /// The pairs examined by the narrow phase in the last step, ordered `(A, B)` as the narrow phase saw them.
    pub fn candidate_pairs(&self) -> &[GeomPair] {
        &self.pairs
    }

    /// Counts of the last step.
    pub fn stats(&self) -> StepStats {
        self.stats
    }

    /// Body poses (world frame, the world body first) of the last update.
    pub fn body_poses(&self) -> &[Pose] {
        &self.body_pose
    }

    /// Geom poses (world frame) of the last update.
    pub fn geom_poses(&self) -> &[Pose] {
        &self.geom_pose
    }

    /// Geom world boxes of the last update (margin-inflated in MuJoCo-compatible mode).
    pub fn geom_aabbs(&self) -> &[Aabb] {
        &self.geom_aabb
    }

    /// The sleep flag of every body (hibernation).
    pub fn asleep(&self) -> &[bool] {
        &self.body_asleep
    }

    /// The factor on each geom's friction coefficients (sliding, torsional, rolling) before mixing, 1 by default
    /// (Genesis's `set_friction_ratio`, for domain randomisation). A [`reset`](Self::reset) keeps it.
    pub fn friction_ratio(&self) -> &[f64] {
        &self.geom_friction_ratio
    }

    /// Sets every geom's friction ratio (one per geom, each finite and in `[0.01, 5]`, Genesis's range). Errors name
    /// the geom and the value; nothing is written then.
    pub fn set_friction_ratio(&mut self, ratios: &[f64]) -> crate::error::Result<()> {
        if ratios.len() != self.geom_friction_ratio.len() {
            return Err(crate::error::CollisionError::InvalidRequest {
                what: format!(
                    "{} friction ratios given for {} geoms",
                    ratios.len(),
                    self.geom_friction_ratio.len()
                ),
            });
        }
        check_friction_ratio(ratios)?;
        self.geom_friction_ratio.copy_from_slice(ratios);
        Ok(())
    }

    /// Geom `g`'s contact parameters in this environment (the model's unless set here). Errors: no such geom.
    pub fn geom_params(&self, model: &CollisionModel, g: usize) -> crate::error::Result<GeomContactParams> {
        check_geom(model, g)?;
        Ok(self.geom_params.as_ref().map_or_else(|| model.geoms.params(g), |p| p[g]))
    }

    /// Sets geom `g`'s `(sliding, torsional, rolling)` friction coefficients in this environment (each finite and
    /// ≥ 0; mixed with the other geom's as the dialect mixes the model's, after the friction ratio). A reset keeps
    /// them. Errors name the geom and the value; nothing is written then.
    pub fn set_geom_friction(
        &mut self,
        model: &CollisionModel,
        g: usize,
        friction: [f64; 3],
    ) -> crate::error::Result<()> {
        check_geom_friction(model, g, friction)?;
        self.params_mut(model)[g].friction = friction;
        Ok(())
    }

    /// Sets geom `g`'s contact `solref` and `solimp` in this environment (mixed as the model's are). Only the
    /// finiteness is checked here: the rules of `sol_params` depend on the constraint options, and the simulator
    /// checks them before calling this. A reset keeps them. Errors: no such geom, a non-finite value.
    pub fn set_geom_sol(
        &mut self,
        model: &CollisionModel,
        g: usize,
        solref: SolRef,
        solimp: SolImp,
    ) -> crate::error::Result<()> {
        check_geom(model, g)?;
        if let Some(bad) = solref.iter().chain(&solimp).find(|x| !x.is_finite()) {
            return Err(crate::error::CollisionError::InvalidRequest {
                what: format!("geom {g}: sol_params must be finite, got {bad}"),
            });
        }
        let p = &mut self.params_mut(model)[g];
        p.solref = solref;
        p.solimp = solimp;
        Ok(())
    }

    /// Every geom's contact parameters back to the model's.
    pub fn clear_geom_params(&mut self) {
        self.geom_params = None;
    }

    fn params_mut(&mut self, model: &CollisionModel) -> &mut Vec<GeomContactParams> {
        self.geom_params
            .get_or_insert_with(|| (0..model.geoms.len()).map(|g| model.geoms.params(g)).collect())
    }

    /// The broad phase in use (for statistics such as the tree's reinsertions).
    pub fn broad_phase(&self) -> &dyn BroadPhase {
        self.broad.as_ref()
    }
}

/// The rule of [`CollisionData::set_geom_friction`]: an existing geom, coefficients finite and ≥ 0.
pub fn check_geom_friction(model: &CollisionModel, g: usize, friction: [f64; 3]) -> crate::error::Result<()> {
    check_geom(model, g)?;
    match friction.iter().find(|f| !(f.is_finite() && **f >= 0.0)) {
        Some(bad) => Err(crate::error::CollisionError::InvalidRequest {
            what: format!("geom {g}: friction must be finite and ≥ 0, got {bad}"),
        }),
        None => Ok(()),
    }
}

fn check_geom(model: &CollisionModel, g: usize) -> crate::error::Result<()> {
    let n = model.geoms.len();
    if g < n {
        Ok(())
    } else {
        Err(crate::error::CollisionError::InvalidRequest {
            what: format!("geom {g} does not exist (the model has {n})"),
        })
    }
}
