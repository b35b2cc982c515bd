//! The collision world: geoms on bodies, driven by body poses, producing world AABBs, sorted contact sets and
//! robotics queries (spec §A.1–§A.4, §A.15–§A.16; seed 004 §6–§7).
//!
//! It is plain data (structure of arrays) and does not depend on the dynamics crates: the simulator and the robotics
//! tools both fill it (bodies, geoms) and drive it with body poses.
//!
//! **One step** ([`CollisionWorld::step`] = [`update`](CollisionWorld::update) + [`collide`](CollisionWorld::collide)):
//! 1. geom poses `X_body · X_local` and exact world AABBs ([`Shape::world_aabb`]; inflated by the geom margin in
//!    MuJoCo-compatible mode);
//! 2. the broad phase (one `dyn BroadPhase` call), pairs sorted by geom index;
//! 3. the pair filters of [`crate::filter`];
//! 4. the candidate budget ([`crate::capacity`]);
//! 5. the narrow phase per pair in the simulator convention, A and B ordered so that `kind(A) ≤ kind(B)` (ties: lower
//!    index first), with the pair's cached normal from the previous step as MPR's warm start (spec §A.7); in
//!    parallel over pairs with `rayon` when `threads > 1`, each pair writing its own slot;
//! 6. merge of the slots in pair order, per-pair and contact budgets, parameter mixing (spec §A.15), the normal
//!    cache update (pairs whose boxes stopped overlapping are forgotten, spec §A.4);
//! 7. the deterministic sort of spec §A.16 into the [`ContactSet`].
//!
//! Results are byte-identical for any thread count and any order of the candidate pairs.
//!
//! **Robotics queries** (Coal convention, normal from A to B, A the lower geom index):
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

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use glam::DVec3;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use signorini_geometry::{Aabb, ConvexMesh, Pose, Shape};

use crate::broad::{BroadPhase, BroadPhaseInput, BroadPhaseKind, GeomPair};
use crate::capacity;
use crate::contact::Manifold;
use crate::contact_set::{
    ContactRecord, ContactSet, GeomContactParams, SolImp, SolRef, StagedContact, frame_key, mix_params,
};
use crate::error::{CollisionError, Result};
use crate::filter::{AllowedCollisionMatrix, FilterReason, PairFilter, PairRules, is_adjacent};
use crate::query::{
    CollisionRequest, ContactMode, ContactRequest, ConvexAlgorithm, DistanceRequest, DistanceResult,
    QueryWorkspace, collide_with, contacts_into, distance_with,
};

/// Pairs per parallel work item (fixed, so the split does not depend on the thread count).
const CHUNK: usize = 8;

/// Slack (m) added to every box of a robotics query so that exactly touching shapes are candidates.
const QUERY_SLACK: f64 = 1e-9;

/// MuJoCo's default `solref`.
pub const DEFAULT_SOLREF: SolRef = [0.02, 1.0];
/// MuJoCo's default `solimp`.
pub const DEFAULT_SOLIMP: SolImp = [0.9, 0.95, 0.001, 0.5, 2.0];

/// Options of a [`CollisionWorld`], with the defaults of spec §4 (native mode).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CollisionOptions {
    /// Native (Genesis) or MuJoCo-compatible contact semantics and parameter mixing. Default native.
    pub mode: ContactMode,
    /// Algorithm for convex pairs without a closed form. Default MPR (with the GJK/EPA rule of spec §A.8).
    pub convex_algorithm: ConvexAlgorithm,
    /// Broad phase. Default sweep and prune (spec §A.4).
    pub broad_phase: BroadPhaseKind,
    /// Fat-box margin of the dynamic tree (m), ≥ 0. Default 0.05: a geom may drift 5 cm before its leaf moves.
    pub tree_fat_margin: f64,
    /// The pair budget of spec §A.4, ≥ 1. Default 150. A step may have at most this times `broad_phase_multiplier`
    /// filtered broad-phase candidates, and at most this times `n_contacts_per_pair` contacts
    /// ([`crate::capacity::contacts_per_pair`]: 5, or 16 with box–box detection and more than one box).
    pub max_collision_pairs: usize,
    /// Genesis's `multiplier_collision_broad_phase`, ≥ 1. Default 8.
    pub broad_phase_multiplier: usize,
    /// Contact cap of a pair other than analytic box–box, ≥ 1; also the perturbation manifold size (spec §A.4/§A.9).
    /// Default 5.
    pub contacts_per_convex_pair: usize,
    /// Contact cap of an analytic box–box pair, ≥ 1 (spec §A.4: at least 16 with `box_box_detection`). Default 16.
    pub contacts_per_box_box_pair: usize,
    /// Check pairs of bodies with the same kinematic root. Default true.
    pub enable_self_collision: bool,
    /// Check adjacent bodies (see [`crate::filter::is_adjacent`]). Default false.
    pub enable_adjacent_collision: bool,
    /// Check geom pairs that penetrate at the neutral pose (see [`CollisionWorld::apply_neutral_filter`]). Default
    /// false.
    pub enable_neutral_collision: bool,
    /// Add perturbation contacts for convex pairs (spec §A.9). Default true.
    pub enable_multi_contact: bool,
    /// Analytic box–box (SAT + clipping, spec §A.10). When false, box–box pairs go through the general convex path
    /// (MPR and perturbations on the boxes' hulls), as Genesis does by default. Default true (spec §4).
    pub box_box_detection: bool,
    /// Threads of the narrow phase, ≥ 1. Results do not depend on it. Default 1.
    pub threads: usize,
}

impl Default for CollisionOptions {
    fn default() -> Self {
        Self {
            mode: ContactMode::Native,
            convex_algorithm: ConvexAlgorithm::Mpr,
            broad_phase: BroadPhaseKind::SweepAndPrune,
            tree_fat_margin: 0.05,
            max_collision_pairs: 150,
            broad_phase_multiplier: 8,
            contacts_per_convex_pair: 5,
            contacts_per_box_box_pair: 16,
            enable_self_collision: true,
            enable_adjacent_collision: false,
            enable_neutral_collision: false,
            enable_multi_contact: true,
            box_box_detection: true,
            threads: 1,
        }
    }
}

impl CollisionOptions {
    /// The defaults in MuJoCo-compatible mode.
    pub fn mujoco_compatible() -> Self {
        Self { mode: ContactMode::MujocoCompatible, ..Self::default() }
    }

    /// Checks every field's rule (see the field docs); the error names the field.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: String| Err(CollisionError::InvalidRequest { what });
        if !(self.tree_fat_margin >= 0.0 && self.tree_fat_margin.is_finite()) {
            return bad(format!("tree_fat_margin must be finite and ≥ 0, got {}", self.tree_fat_margin));
        }
        for (name, v) in [
            ("max_collision_pairs", self.max_collision_pairs),
            ("broad_phase_multiplier", self.broad_phase_multiplier),
            ("contacts_per_convex_pair", self.contacts_per_convex_pair),
            ("contacts_per_box_box_pair", self.contacts_per_box_box_pair),
            ("threads", self.threads),
        ] {
            if v == 0 {
                return bad(format!("{name} must be ≥ 1"));
            }
        }
        Ok(())
    }

    /// The narrow-phase request every pair starts from (its cached normal is filled per pair).
    fn contact_request(&self) -> ContactRequest {
        let base = match self.mode {
            ContactMode::Native => ContactRequest::default(),
            ContactMode::MujocoCompatible => ContactRequest::mujoco_compatible(),
        };
        ContactRequest {
            convex_algorithm: self.convex_algorithm,
            multi_contact: self.enable_multi_contact,
            max_contacts: self.contacts_per_convex_pair,
            ..base
        }
    }
}

/// A body (link) to add to a world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyDesc {
    /// Name (unique when not empty; SRDF link names resolve against it).
    pub name: String,
    /// Parent body index (0 = the world); must already exist.
    pub parent: usize,
    /// Whether at least one joint to the parent moves (hinge, slide, ball, free). A body without one is rigidly
    /// attached to its parent.
    pub moving_joint: bool,
    /// Entity (model instance) id, for the local-mask rule of `contype`/`conaffinity`. Default 0.
    pub entity: u32,
}

impl BodyDesc {
    /// A body on `parent`, moving or welded.
    pub fn new(name: impl Into<String>, parent: usize, moving_joint: bool) -> Self {
        Self { name: name.into(), parent, moving_joint, entity: 0 }
    }

    /// A free-floating body (moving joint to the world).
    pub fn free(name: impl Into<String>) -> Self {
        Self::new(name, 0, true)
    }
}

/// A geom to add to a world; [`GeomDesc::new`] gives MuJoCo's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct GeomDesc {
    /// Name (may be empty).
    pub name: String,
    /// Shape in the geom frame.
    pub shape: Shape,
    /// Owning body.
    pub body: usize,
    /// Geom frame in the body frame.
    pub local_pose: Pose,
    /// `contype` bitmask (default 1).
    pub contype: u32,
    /// `conaffinity` bitmask (default 1).
    pub conaffinity: u32,
    /// `condim` ∈ {1, 3, 4, 6} (default 3).
    pub condim: u8,
    /// `(sliding, torsional, rolling)` friction, finite and ≥ 0 (default `(1, 0.005, 0.0001)`).
    pub friction: [f64; 3],
    /// Contact `solref` (default `(0.02, 1)`), finite.
    pub solref: SolRef,
    /// Contact `solimp` (default `(0.9, 0.95, 0.001, 0.5, 2)`), finite.
    pub solimp: SolImp,
    /// MuJoCo `priority` (default 0).
    pub priority: i32,
    /// MuJoCo `solmix`, finite and ≥ 0 (default 1).
    pub solmix: f64,
    /// Margin (m), finite and ≥ 0 (default 0). Used in MuJoCo-compatible mode only.
    pub margin: f64,
    /// Gap (m), finite and ≥ 0 (default 0). Recorded only.
    pub gap: f64,
}

impl GeomDesc {
    /// A geom of `shape` on `body` at the body origin, with MuJoCo's defaults.
    pub fn new(shape: impl Into<Shape>, body: usize) -> Self {
        Self {
            name: String::new(),
            shape: shape.into(),
            body,
            local_pose: Pose::IDENTITY,
            contype: 1,
            conaffinity: 1,
            condim: 3,
            friction: [1.0, 0.005, 0.0001],
            solref: DEFAULT_SOLREF,
            solimp: DEFAULT_SOLIMP,
            priority: 0,
            solmix: 1.0,
            margin: 0.0,
            gap: 0.0,
        }
    }

    /// The same geom at `pose` in the body frame.
    pub fn at(mut self, pose: Pose) -> Self {
        self.local_pose = pose;
        self
    }

    /// The same geom named `name`.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

/// The bodies of a world (structure of arrays; index 0 is the world).
#[derive(Debug, Clone, Default)]
pub struct BodyTable {
    /// Names.
    pub name: Vec<String>,
    /// Parent (`None` for the world).
    pub parent: Vec<Option<usize>>,
    /// Whether a joint to the parent moves.
    pub moving_joint: Vec<bool>,
    /// Entity ids.
    pub entity: Vec<u32>,
    /// Fixed to the world: no moving joint on the chain to the world.
    pub fixed: Vec<bool>,
    /// Kinematic-tree root: the ancestor whose parent is the world (the world's root is itself).
    pub root: Vec<usize>,
    /// Weld group: the topmost body reached through bodies without a moving joint (0 when welded to the world).
    pub weld_root: Vec<usize>,
    /// Current poses (world frame), from the last [`CollisionWorld::update`].
    pub pose: Vec<Pose>,
}

impl BodyTable {
    /// Number of bodies, the world included.
    pub fn len(&self) -> usize {
        self.name.len()
    }

    /// Never true: the world body always exists.
    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }
}

/// The geoms of a world (structure of arrays).
#[derive(Debug, Clone, Default)]
pub struct GeomTable {
    /// Names.
    pub name: Vec<String>,
    /// Shapes (geom frame).
    pub shape: Vec<Shape>,
    /// Owning bodies.
    pub body: Vec<usize>,
    /// Geom frames in their body frames.
    pub local_pose: Vec<Pose>,
    /// `contype`.
    pub contype: Vec<u32>,
    /// `conaffinity`.
    pub conaffinity: Vec<u32>,
    /// `condim`.
    pub condim: Vec<u8>,
    /// `(sliding, torsional, rolling)` friction.
    pub friction: Vec<[f64; 3]>,
    /// `solref`.
    pub solref: Vec<SolRef>,
    /// `solimp`.
    pub solimp: Vec<SolImp>,
    /// `priority`.
    pub priority: Vec<i32>,
    /// `solmix`.
    pub solmix: Vec<f64>,
    /// Margin (m).
    pub margin: Vec<f64>,
    /// Gap (m).
    pub gap: Vec<f64>,
    /// World poses, from the last [`CollisionWorld::update`].
    pub world_pose: Vec<Pose>,
    /// World AABBs, from the last [`CollisionWorld::update`].
    pub aabb: Vec<Aabb>,
}

impl GeomTable {
    /// Number of geoms.
    pub fn len(&self) -> usize {
        self.shape.len()
    }

    /// Whether there is no geom.
    pub fn is_empty(&self) -> bool {
        self.shape.is_empty()
    }

    /// The contact parameters of geom `g`.
    pub fn params(&self, g: usize) -> GeomContactParams {
        GeomContactParams {
            friction: self.friction[g],
            solref: self.solref[g],
            solimp: self.solimp[g],
            condim: self.condim[g],
            priority: self.priority[g],
            solmix: self.solmix[g],
            margin: self.margin[g],
            gap: self.gap[g],
        }
    }
}

/// Counts of the last step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepStats {
    /// Pairs reported by the broad phase (or given to [`CollisionWorld::collide_pairs`] and overlapping).
    pub broad_phase_pairs: usize,
    /// Pairs left after the filters (sent to the narrow phase).
    pub candidate_pairs: usize,
    /// Pairs with at least one contact.
    pub colliding_pairs: usize,
    /// Contacts.
    pub contacts: usize,
}

/// The signed distance of one geom pair (Coal convention: normal from A to B, negative when penetrating).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairDistance {
    /// Geom A (the lower index).
    pub geom_a: usize,
    /// Geom B.
    pub geom_b: usize,
    /// Body of A.
    pub body_a: usize,
    /// Body of B.
    pub body_b: usize,
    /// Distance, witnesses and normal.
    pub result: DistanceResult,
}

/// One pair's narrow-phase output slot.
#[derive(Debug, Default)]
struct PairSlot {
    manifold: Manifold,
    cached: Option<DVec3>,
    error: Option<CollisionError>,
}

/// Per-pair warm-start normals (B → A), keyed by `[min, max]` geom index, sorted.
#[derive(Debug, Default)]
struct NormalCache {
    entries: Vec<(GeomPair, DVec3)>,
    next: Vec<(GeomPair, DVec3)>,
}

impl NormalCache {
    fn lookup(&self, pair: GeomPair) -> Option<DVec3> {
        let key = canonical(pair);
        self.entries.binary_search_by_key(&key, |e| e.0).ok().map(|i| self.entries[i].1)
    }

    fn commit(&mut self) {
        self.next.sort_unstable_by_key(|e| e.0);
        std::mem::swap(&mut self.entries, &mut self.next);
        self.next.clear();
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.next.clear();
    }
}

fn canonical([a, b]: GeomPair) -> GeomPair {
    if a <= b { [a, b] } else { [b, a] }
}

/// Orders a pair for the narrow phase: `kind(A) ≤ kind(B)`, ties by index.
fn narrow_order(shapes: &[Shape], i: usize, j: usize) -> GeomPair {
    let (ki, kj) = (shapes[i].kind(), shapes[j].kind());
    if (ki, i) <= (kj, j) { [i as u32, j as u32] } else { [j as u32, i as u32] }
}

fn lock(m: &Mutex<QueryWorkspace>) -> MutexGuard<'_, QueryWorkspace> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the narrow phase of one pair reads.
struct NarrowContext<'a> {
    shapes: &'a [Shape],
    hulls: &'a [Option<Shape>],
    poses: &'a [Pose],
    use_hulls: bool,
    request: ContactRequest,
}

impl NarrowContext<'_> {
    fn run(&self, ws: &mut QueryWorkspace, pairs: &[GeomPair], slots: &mut [PairSlot]) {
        for (slot, &[a, b]) in slots.iter_mut().zip(pairs) {
            let (a, b) = (a as usize, b as usize);
            let (mut sa, mut sb) = (&self.shapes[a], &self.shapes[b]);
            if self.use_hulls
                && let (Some(ha), Some(hb)) = (&self.hulls[a], &self.hulls[b])
            {
                (sa, sb) = (ha, hb);
            }
            let request = ContactRequest { cached_normal: slot.cached, ..self.request };
            slot.manifold.contacts.clear();
            slot.error =
                contacts_into(ws, sa, &self.poses[a], sb, &self.poses[b], &request, &mut slot.manifold).err();
        }
    }
}

fn check_pose(p: &Pose) -> std::result::Result<(), String> {
    let n2 = p.rotation.length_squared();
    if !p.translation.is_finite() {
        return Err(format!("translation {} is not finite", p.translation));
    }
    if !p.rotation.is_finite() || (n2 - 1.0).abs() > 2.0 * signorini_geometry::pose::QUAT_NORM_TOLERANCE {
        return Err(format!("rotation {} is not a unit quaternion", p.rotation));
    }
    Ok(())
}

fn build_pool(threads: usize) -> Result<Option<rayon::ThreadPool>> {
    if threads <= 1 {
        return Ok(None);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("signorini-collision-{i}"))
        .build()
        .map(Some)
        .map_err(|e| CollisionError::InvalidRequest { what: format!("cannot start {threads} threads: {e}") })
}

/// Largest extent, over the three axes, of the finite coordinates of all boxes (0 when there are none).
fn finite_span(aabbs: &[Aabb]) -> f64 {
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for b in aabbs {
        for v in [b.min, b.max] {
            for k in 0..3 {
                if v[k].is_finite() {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
        }
    }
    (0..3).map(|k| if hi[k] >= lo[k] { hi[k] - lo[k] } else { 0.0 }).fold(0.0, f64::max)
}

/// A collision world (see the module docs).
#[derive(Debug)]
pub struct CollisionWorld {
    options: CollisionOptions,
    bodies: BodyTable,
    body_names: BTreeMap<String, usize>,
    geoms: GeomTable,
    geom_fixed: Vec<bool>,
    /// Fixed or on a sleeping body ([`Self::set_asleep`]): the broad phase pairs such geoms only with awake ones.
    geom_frozen: Vec<bool>,
    /// Sleeping bodies.
    body_asleep: Vec<bool>,
    /// Convex hulls of box geoms, for `box_box_detection = false`.
    hulls: Vec<Option<Shape>>,
    /// Number of box geoms (for Genesis's `n_contacts_per_pair`).
    n_boxes: usize,
    filter: PairFilter,
    broad: Box<dyn BroadPhase>,
    query_broad: Box<dyn BroadPhase>,
    pool: Option<rayon::ThreadPool>,
    workspaces: Vec<Mutex<QueryWorkspace>>,
    updated: bool,
    candidates: Vec<GeomPair>,
    pairs: Vec<GeomPair>,
    scratch: Vec<GeomPair>,
    slots: Vec<PairSlot>,
    cache: NormalCache,
    staging: Vec<StagedContact>,
    /// The staged contacts' sort keys and indices, sorted (the records are large: the sort moves keys).
    staging_order: Vec<(u128, i64, u32)>,
    contacts: ContactSet,
    stats: StepStats,
    query_aabbs: Vec<Aabb>,
    query_candidates: Vec<GeomPair>,
    query_pairs: Vec<GeomPair>,
}

impl CollisionWorld {
    /// An empty world (only the world body, index 0, named `"world"`) with validated options.
    pub fn new(options: CollisionOptions) -> Result<Self> {
        options.validate()?;
        let mut bodies = BodyTable::default();
        bodies.name.push("world".into());
        bodies.parent.push(None);
        bodies.moving_joint.push(false);
        bodies.entity.push(0);
        bodies.fixed.push(true);
        bodies.root.push(0);
        bodies.weld_root.push(0);
        bodies.pose.push(Pose::IDENTITY);
        Ok(Self {
            options,
            bodies,
            body_names: BTreeMap::from([("world".to_string(), 0)]),
            geoms: GeomTable::default(),
            geom_fixed: Vec::new(),
            geom_frozen: Vec::new(),
            body_asleep: vec![false],
            hulls: Vec::new(),
            n_boxes: 0,
            filter: PairFilter::default(),
            broad: options.broad_phase.build(options.tree_fat_margin),
            query_broad: options.broad_phase.build(options.tree_fat_margin),
            pool: build_pool(options.threads)?,
            workspaces: (0..options.threads).map(|_| Mutex::new(QueryWorkspace::default())).collect(),
            updated: false,
            candidates: Vec::new(),
            pairs: Vec::new(),
            scratch: Vec::new(),
            slots: Vec::new(),
            cache: NormalCache::default(),
            staging: Vec::new(),
            staging_order: Vec::new(),
            contacts: ContactSet::new(),
            stats: StepStats::default(),
            query_aabbs: Vec::new(),
            query_candidates: Vec::new(),
            query_pairs: Vec::new(),
        })
    }

    /// The options in force.
    pub fn options(&self) -> &CollisionOptions {
        &self.options
    }

    /// Replaces the options (validated). Changing the broad phase or its margin restarts it, changing `threads`
    /// restarts the thread pool, and changing `mode` requires a new [`update`](Self::update) (boxes depend on it).
    pub fn set_options(&mut self, options: CollisionOptions) -> Result<()> {
        options.validate()?;
        let old = self.options;
        if old.threads != options.threads {
            self.pool = build_pool(options.threads)?;
            self.workspaces = (0..options.threads).map(|_| Mutex::new(QueryWorkspace::default())).collect();
        }
        if old.broad_phase != options.broad_phase || old.tree_fat_margin != options.tree_fat_margin {
            self.broad = options.broad_phase.build(options.tree_fat_margin);
            self.query_broad = options.broad_phase.build(options.tree_fat_margin);
        }
        if old.mode != options.mode {
            self.updated = false;
        }
        self.options = options;
        Ok(())
    }

    /// The bodies.
    pub fn bodies(&self) -> &BodyTable {
        &self.bodies
    }

    /// The geoms (world poses and boxes from the last update).
    pub fn geoms(&self) -> &GeomTable {
        &self.geoms
    }

    /// The index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.body_names.get(name).copied()
    }

    /// The broad phase in use (for statistics such as the tree's reinsertions).
    pub fn broad_phase(&self) -> &dyn BroadPhase {
        self.broad.as_ref()
    }

    fn invalidate(&mut self) {
        self.updated = false;
        self.broad.reset();
        self.query_broad.reset();
        self.cache.clear();
    }

    /// Adds a body; returns its index. Errors: unknown parent, duplicate non-empty name.
    pub fn add_body(&mut self, desc: BodyDesc) -> Result<usize> {
        let idx = self.bodies.len();
        if desc.parent >= idx {
            return Err(CollisionError::InvalidWorld {
                what: format!(
                    "body `{}`: parent {} does not exist (there are {idx} bodies)",
                    desc.name, desc.parent
                ),
            });
        }
        if !desc.name.is_empty() && self.body_names.contains_key(&desc.name) {
            return Err(CollisionError::InvalidWorld {
                what: format!("duplicate body name `{}`", desc.name),
            });
        }
        let p = desc.parent;
        let root = if p == 0 { idx } else { self.bodies.root[p] };
        let weld_root = if desc.moving_joint { idx } else { self.bodies.weld_root[p] };
        let b = &mut self.bodies;
        b.parent.push(Some(p));
        b.moving_joint.push(desc.moving_joint);
        b.entity.push(desc.entity);
        b.fixed.push(weld_root == 0);
        b.root.push(root);
        b.weld_root.push(weld_root);
        b.pose.push(Pose::IDENTITY);
        self.body_asleep.push(false);
        if !desc.name.is_empty() {
            self.body_names.insert(desc.name.clone(), idx);
        }
        b.name.push(desc.name);
        self.invalidate();
        Ok(idx)
    }

    /// Adds a geom; returns its index. Errors name the geom and the bad parameter.
    pub fn add_geom(&mut self, desc: GeomDesc) -> Result<usize> {
        let idx = self.geoms.len();
        let label =
            if desc.name.is_empty() { format!("geom {idx}") } else { format!("geom `{}`", desc.name) };
        let bad = |what: String| Err(CollisionError::InvalidWorld { what: format!("{label}: {what}") });
        if idx + 1 >= u32::MAX as usize {
            return bad("too many geoms".into());
        }
        if desc.body >= self.bodies.len() {
            return bad(format!("body {} does not exist", desc.body));
        }
        if let Err(e) = check_pose(&desc.local_pose) {
            return bad(format!("local pose: {e}"));
        }
        if !matches!(desc.condim, 1 | 3 | 4 | 6) {
            return bad(format!("condim must be 1, 3, 4 or 6, got {}", desc.condim));
        }
        let finite_nonneg = |x: f64| x.is_finite() && x >= 0.0;
        if !desc.friction.iter().all(|&x| finite_nonneg(x)) {
            return bad(format!("friction must be finite and ≥ 0, got {:?}", desc.friction));
        }
        if !desc.solref.iter().chain(&desc.solimp).all(|x| x.is_finite()) {
            return bad(format!("solref/solimp must be finite, got {:?} / {:?}", desc.solref, desc.solimp));
        }
        for (name, v) in [("solmix", desc.solmix), ("margin", desc.margin), ("gap", desc.gap)] {
            if !finite_nonneg(v) {
                return bad(format!("{name} must be finite and ≥ 0, got {v}"));
            }
        }
        let hull = match &desc.shape {
            Shape::Box(b) => Some(Shape::from(ConvexMesh::from_points(&b.corners())?)),
            _ => None,
        };
        let g = &mut self.geoms;
        g.name.push(desc.name);
        g.shape.push(desc.shape);
        g.body.push(desc.body);
        g.local_pose.push(desc.local_pose);
        g.contype.push(desc.contype);
        g.conaffinity.push(desc.conaffinity);
        g.condim.push(desc.condim);
        g.friction.push(desc.friction);
        g.solref.push(desc.solref);
        g.solimp.push(desc.solimp);
        g.priority.push(desc.priority);
        g.solmix.push(desc.solmix);
        g.margin.push(desc.margin);
        g.gap.push(desc.gap);
        g.world_pose.push(Pose::IDENTITY);
        g.aabb.push(Aabb::new(DVec3::ZERO, DVec3::ZERO));
        self.geom_fixed.push(self.bodies.fixed[desc.body]);
        self.geom_frozen.push(self.bodies.fixed[desc.body] || self.body_asleep[desc.body]);
        self.n_boxes += usize::from(hull.is_some());
        self.hulls.push(hull);
        self.invalidate();
        Ok(idx)
    }

    /// Poses every geom from the body poses (world frame, one per body, the world body first) and computes the
    /// world AABBs. Errors: wrong count, non-finite pose, non-unit rotation (naming the body).
    pub fn update(&mut self, body_poses: &[Pose]) -> Result<()> {
        if body_poses.len() != self.bodies.len() {
            return Err(CollisionError::InvalidWorld {
                what: format!("{} body poses given for {} bodies", body_poses.len(), self.bodies.len()),
            });
        }
        for (b, p) in body_poses.iter().enumerate() {
            if let Err(e) = check_pose(p) {
                return Err(CollisionError::InvalidWorld {
                    what: format!("pose of body {b} (`{}`): {e}", self.bodies.name[b]),
                });
            }
        }
        self.bodies.pose.copy_from_slice(body_poses);
        let inflate = self.options.mode == ContactMode::MujocoCompatible;
        let g = &mut self.geoms;
        for i in 0..g.shape.len() {
            let pose = body_poses[g.body[i]] * g.local_pose[i];
            g.world_pose[i] = pose;
            let aabb = g.shape[i].world_aabb(&pose);
            g.aabb[i] = if inflate && g.margin[i] > 0.0 { aabb.expanded(g.margin[i]) } else { aabb };
        }
        self.updated = true;
        Ok(())
    }

    fn require_updated(&self) -> Result<()> {
        if self.updated {
            Ok(())
        } else {
            Err(CollisionError::InvalidWorld {
                what: "no body poses since the world or its options changed: call `update` first".into(),
            })
        }
    }

    /// [`update`](Self::update) then [`collide`](Self::collide).
    pub fn step(&mut self, body_poses: &[Pose]) -> Result<&ContactSet> {
        self.update(body_poses)?;
        self.collide()
    }

    /// The contact set of the current poses: broad phase, filters, narrow phase, budgets, sort (see the module
    /// docs). Errors: a budget exceeded ([`CollisionError::CapacityExceeded`]), a pair the narrow phase cannot
    /// handle ([`CollisionError::Pair`]), no [`update`](Self::update) since the world changed.
    pub fn collide(&mut self) -> Result<&ContactSet> {
        self.require_updated()?;
        let input = BroadPhaseInput::new(&self.geoms.aabb, &self.geom_frozen)?;
        self.broad.find_pairs(&input, &mut self.candidates);
        self.candidates.sort_unstable();
        self.run_pairs()
    }

    /// Like [`collide`](Self::collide), with the candidate pairs given instead of found by the broad phase. Pairs
    /// whose boxes do not overlap strictly, or whose geoms are both fixed, are skipped as the broad phase would;
    /// the rest go through the filters. The result does not depend on the order of `pairs`. Errors: an index out of
    /// range, a geom paired with itself, a pair given twice.
    pub fn collide_pairs(&mut self, pairs: &[[usize; 2]]) -> Result<&ContactSet> {
        self.require_updated()?;
        let n = self.geoms.len();
        self.candidates.clear();
        for &[i, j] in pairs {
            if i >= n || j >= n || i == j {
                return Err(CollisionError::InvalidRequest {
                    what: format!("pair [{i}, {j}] is not a pair of distinct geoms among {n}"),
                });
            }
            let (lo, hi) = (i.min(j), i.max(j));
            if !(self.geom_frozen[lo] && self.geom_frozen[hi])
                && self.geoms.aabb[lo].overlaps(&self.geoms.aabb[hi])
            {
                self.candidates.push([lo as u32, hi as u32]);
            }
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.candidates);
        self.scratch.sort_unstable();
        if let Some(w) = self.scratch.windows(2).find(|w| w[0] == w[1]) {
            return Err(CollisionError::InvalidRequest { what: format!("pair {:?} given twice", w[0]) });
        }
        self.run_pairs()
    }

    /// Marks sleeping bodies (one flag per body, the world body first; hibernation, spec §E): their geoms are
    /// paired only with geoms of awake moving bodies, as fixed geoms are, so a sleeping body keeps no contact with
    /// the static world or with another sleeper. All bodies start awake. Errors: wrong count.
    pub fn set_asleep(&mut self, asleep: &[bool]) -> Result<()> {
        if asleep.len() != self.bodies.len() {
            return Err(CollisionError::InvalidWorld {
                what: format!("{} sleep flags given for {} bodies", asleep.len(), self.bodies.len()),
            });
        }
        self.body_asleep.copy_from_slice(asleep);
        for ((frozen, &fixed), &b) in self.geom_frozen.iter_mut().zip(&self.geom_fixed).zip(&self.geoms.body)
        {
            *frozen = fixed || asleep[b];
        }
        Ok(())
    }

    /// The contact set of the last successful [`collide`](Self::collide).
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

    /// Filters `self.candidates` into `self.pairs`, then narrow phase, merge and sort.
    fn run_pairs(&mut self) -> Result<&ContactSet> {
        self.pairs.clear();
        for &[i, j] in &self.candidates {
            let (i, j) = (i as usize, j as usize);
            if self.filter.reason(&self.bodies, &self.geoms, &self.options, i, j, PairRules::ALL).is_none() {
                let ordered = narrow_order(&self.geoms.shape, i, j);
                self.pairs.push(ordered);
            }
        }
        self.stats = StepStats {
            broad_phase_pairs: self.candidates.len(),
            candidate_pairs: self.pairs.len(),
            ..StepStats::default()
        };
        capacity::check_candidates(&self.options, self.pairs.len())?;
        self.narrow_phase();
        self.merge()?;
        Ok(&self.contacts)
    }

    fn narrow_phase(&mut self) {
        let n = self.pairs.len();
        if self.slots.len() < n {
            self.slots.resize_with(n, PairSlot::default);
        }
        for (slot, &pair) in self.slots.iter_mut().zip(&self.pairs) {
            slot.cached = self.cache.lookup(pair);
            slot.error = None;
        }
        let ctx = NarrowContext {
            shapes: &self.geoms.shape,
            hulls: &self.hulls,
            poses: &self.geoms.world_pose,
            use_hulls: !self.options.box_box_detection,
            request: self.options.contact_request(),
        };
        let (pairs, slots, workspaces) = (&self.pairs[..], &mut self.slots[..n], &self.workspaces[..]);
        match &self.pool {
            Some(pool) if n > CHUNK => pool.install(|| {
                slots.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
                    let t = rayon::current_thread_index().unwrap_or(0) % workspaces.len();
                    ctx.run(&mut lock(&workspaces[t]), &pairs[c * CHUNK..], chunk);
                });
            }),
            _ => ctx.run(&mut lock(&workspaces[0]), pairs, slots),
        }
    }

    fn merge(&mut self) -> Result<()> {
        self.staging.clear();
        let mut colliding = 0;
        for (slot, &[a, b]) in self.slots.iter().zip(&self.pairs) {
            let (a, b) = (a as usize, b as usize);
            if let Some(e) = &slot.error {
                return Err(CollisionError::Pair { geom_a: a, geom_b: b, source: Box::new(e.clone()) });
            }
            if slot.manifold.is_empty() {
                continue;
            }
            colliding += 1;
            let g = &self.geoms;
            capacity::check_pair_contacts(
                &self.options,
                g.shape[a].kind(),
                g.shape[b].kind(),
                slot.manifold.len(),
            )?;
            let params = mix_params(self.options.mode, &g.params(a), &g.params(b));
            let (link_a, link_b) = (g.body[a], g.body[b]);
            let frame = self.bodies.pose[link_b];
            for c in &slot.manifold.contacts {
                self.staging.push(StagedContact {
                    record: ContactRecord {
                        geom_a: a,
                        geom_b: b,
                        link_a,
                        link_b,
                        position: c.position,
                        normal: c.normal,
                        penetration: c.penetration,
                        params,
                    },
                    frame_key: frame_key(frame.inverse_transform_point(c.position)),
                });
            }
        }
        capacity::check_contacts(&self.options, self.n_boxes, self.staging.len())?;
        self.cache.next.clear();
        for (slot, &pair) in self.slots.iter().zip(&self.pairs) {
            if let Some(n) = slot.manifold.contacts.first().map(|c| c.normal).or(slot.cached) {
                self.cache.next.push((canonical(pair), n));
            }
        }
        self.cache.commit();
        self.contacts.fill_sorted(&self.staging, &mut self.staging_order, colliding);
        self.stats.colliding_pairs = colliding;
        self.stats.contacts = self.contacts.len();
        Ok(())
    }

    // ----- filters -----

    /// Why geoms `ga` and `gb` are never examined (`None`: they are), with every rule of [`crate::filter`].
    pub fn filter_reason(&self, ga: usize, gb: usize) -> Result<Option<FilterReason>> {
        let n = self.geoms.len();
        if ga >= n || gb >= n || ga == gb {
            return Err(CollisionError::InvalidRequest {
                what: format!("[{ga}, {gb}] is not a pair of distinct geoms among {n}"),
            });
        }
        Ok(self.filter_reason_with(ga, gb, PairRules::ALL))
    }

    pub(crate) fn filter_reason_with(&self, ga: usize, gb: usize, rules: PairRules) -> Option<FilterReason> {
        self.filter.reason(&self.bodies, &self.geoms, &self.options, ga, gb, rules)
    }

    fn check_body(&self, b: usize) -> Result<()> {
        if b < self.bodies.len() {
            Ok(())
        } else {
            Err(CollisionError::InvalidRequest {
                what: format!("body {b} does not exist (there are {})", self.bodies.len()),
            })
        }
    }

    /// Registers a weld equality between two bodies (spec §A.2 rule 6, §A.3): their geoms never collide.
    pub fn add_weld(&mut self, a: usize, b: usize) -> Result<()> {
        self.check_body(a)?;
        self.check_body(b)?;
        self.filter.welds.insert((a.min(b), a.max(b)));
        Ok(())
    }

    /// Removes a weld registered with [`add_weld`](Self::add_weld); returns whether it existed.
    pub fn remove_weld(&mut self, a: usize, b: usize) -> bool {
        self.filter.welds.remove(&(a.min(b), a.max(b)))
    }

    /// Excludes a body pair from contact (MJCF `<contact><exclude>`).
    pub fn exclude_bodies(&mut self, a: usize, b: usize) -> Result<()> {
        self.check_body(a)?;
        self.check_body(b)?;
        self.filter.excludes.insert((a.min(b), a.max(b)));
        Ok(())
    }

    /// Declares the `contype`/`conaffinity` masks of `entity` local (Genesis's `is_local_collision_mask`): masks
    /// then apply only within the entity and against entities that are not local.
    pub fn set_local_collision_mask(&mut self, entity: u32, local: bool) {
        if local {
            self.filter.local_mask_entities.insert(entity);
        } else {
            self.filter.local_mask_entities.remove(&entity);
        }
    }

    /// The allowed-collision matrix in force.
    pub fn acm(&self) -> &AllowedCollisionMatrix {
        &self.filter.acm
    }

    /// Replaces the allowed-collision matrix. Errors: an entry naming a body that does not exist.
    pub fn set_acm(&mut self, acm: AllowedCollisionMatrix) -> Result<()> {
        for (a, b, _) in acm.iter() {
            self.check_body(a)?;
            self.check_body(b)?;
        }
        self.filter.acm = acm;
        Ok(())
    }

    /// The neutral-pose rule (spec §A.2 rule 7): poses the world at `neutral_body_poses` and, unless
    /// `enable_neutral_collision`, excludes every self-collision geom pair (same root, not adjacent) that penetrates
    /// deeper than 0.1% of the shapes' half diagonals there (Genesis shrinks each geom by 0.1% towards its centre and
    /// tests voxelised meshes; we use the exact signed distance instead). Replaces the previous neutral set; returns
    /// the excluded pairs. The world stays posed at the neutral configuration.
    pub fn apply_neutral_filter(&mut self, neutral_body_poses: &[Pose]) -> Result<Vec<[usize; 2]>> {
        self.filter.neutral.clear();
        if self.options.enable_neutral_collision {
            return Ok(Vec::new());
        }
        self.update(neutral_body_poses)?;
        self.query_candidates(0.0, PairRules::STRUCTURAL)?;
        let mut found = Vec::new();
        let mut ws = lock(&self.workspaces[0]);
        for &[i, j] in &self.query_pairs {
            let (i, j) = (i as usize, j as usize);
            let (a, b) = (self.geoms.body[i], self.geoms.body[j]);
            if self.bodies.root[a] != self.bodies.root[b]
                || (!self.options.enable_adjacent_collision && is_adjacent(&self.bodies, a, b))
            {
                continue;
            }
            let d = self.pair_distance(&mut ws, i, j)?;
            let half_diag = |s: &Shape| {
                let d = s.local_aabb().diagonal_length();
                if d.is_finite() { 0.5 * d } else { 0.0 }
            };
            let shrink = 1e-3 * (half_diag(&self.geoms.shape[i]) + half_diag(&self.geoms.shape[j]));
            if d.result.distance < -shrink {
                found.push([i, j]);
            }
        }
        drop(ws);
        for &[i, j] in &found {
            self.filter.neutral.insert((i, j));
        }
        Ok(found)
    }

    // ----- robotics queries -----

    /// Fills `self.query_pairs` with the filtered pairs (`[lo, hi]`, sorted) whose boxes, each grown by
    /// `inflate / 2`, overlap: every pair closer than `inflate` is among them.
    fn query_candidates(&mut self, inflate: f64, rules: PairRules) -> Result<()> {
        self.require_updated()?;
        let grow = 0.5 * inflate + QUERY_SLACK;
        self.query_aabbs.clear();
        self.query_aabbs.extend(self.geoms.aabb.iter().map(|b| b.expanded(grow)));
        let input = BroadPhaseInput::new(&self.query_aabbs, &self.geom_fixed)?;
        self.query_broad.find_pairs(&input, &mut self.query_candidates);
        self.query_candidates.sort_unstable();
        self.query_pairs.clear();
        for &[i, j] in &self.query_candidates {
            if self
                .filter
                .reason(&self.bodies, &self.geoms, &self.options, i as usize, j as usize, rules)
                .is_none()
            {
                self.query_pairs.push([i, j]);
            }
        }
        Ok(())
    }

    fn pair_distance(&self, ws: &mut QueryWorkspace, i: usize, j: usize) -> Result<PairDistance> {
        let g = &self.geoms;
        let result = distance_with(
            ws,
            &g.shape[i],
            &g.world_pose[i],
            &g.shape[j],
            &g.world_pose[j],
            &DistanceRequest::default(),
        )
        .map_err(|e| CollisionError::Pair { geom_a: i, geom_b: j, source: Box::new(e) })?;
        Ok(PairDistance { geom_a: i, geom_b: j, body_a: g.body[i], body_b: g.body[j], result })
    }

    /// The smallest signed distance over all pairs that pass the filters (allowed-collision matrix included), with
    /// the pair that achieves it (the first in geom order on ties); `None` when no pair passes. The broad phase is
    /// run on boxes grown by a radius `r` (first 0, then growing) until the best pair found is closer than `r`, so
    /// far pairs are never measured.
    pub fn min_distance(&mut self) -> Result<Option<PairDistance>> {
        self.require_updated()?;
        let span = finite_span(&self.geoms.aabb);
        let mut r = 0.0;
        loop {
            self.query_candidates(r, PairRules::ALL)?;
            let mut best: Option<PairDistance> = None;
            {
                let mut ws = lock(&self.workspaces[0]);
                for &[i, j] in &self.query_pairs {
                    let d = self.pair_distance(&mut ws, i as usize, j as usize)?;
                    if best.is_none_or(|b| d.result.distance < b.result.distance) {
                        best = Some(d);
                    }
                }
            }
            match best {
                Some(b) if b.result.distance <= r => return Ok(Some(b)),
                Some(b) => r = b.result.distance,
                None if r > span => return Ok(None),
                None => r = if r == 0.0 { (span / 16.0).max(1e-6) } else { 4.0 * r },
            }
        }
    }

    /// Whether no pair that passes the filters is within `security_margin` (m, finite; negative values require a
    /// penetration deeper than `−security_margin`). Stops at the first colliding pair.
    pub fn is_collision_free(&mut self, security_margin: f64) -> Result<bool> {
        if !security_margin.is_finite() {
            return Err(CollisionError::InvalidRequest {
                what: format!("security_margin must be finite, got {security_margin}"),
            });
        }
        self.query_candidates(security_margin.max(0.0), PairRules::ALL)?;
        let request = CollisionRequest { security_margin, max_contacts: 0, ..CollisionRequest::default() };
        let mut ws = lock(&self.workspaces[0]);
        for &[i, j] in &self.query_pairs {
            if self.collides(&mut ws, i as usize, j as usize, &request)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Every pair that passes the filters with signed distance `< d_act` (the activation distance of seed 004 §7.4;
    /// finite, ≥ 0), in geom order, into `out` (cleared first).
    pub fn distances_within(&mut self, d_act: f64, out: &mut Vec<PairDistance>) -> Result<()> {
        out.clear();
        if !(d_act >= 0.0 && d_act.is_finite()) {
            return Err(CollisionError::InvalidRequest {
                what: format!("activation distance must be finite and ≥ 0, got {d_act}"),
            });
        }
        self.query_candidates(d_act, PairRules::ALL)?;
        let mut ws = lock(&self.workspaces[0]);
        for &[i, j] in &self.query_pairs {
            let d = self.pair_distance(&mut ws, i as usize, j as usize)?;
            if d.result.distance < d_act {
                out.push(d);
            }
        }
        Ok(())
    }

    fn collides(
        &self,
        ws: &mut QueryWorkspace,
        i: usize,
        j: usize,
        request: &CollisionRequest,
    ) -> Result<bool> {
        let g = &self.geoms;
        collide_with(ws, &g.shape[i], &g.world_pose[i], &g.shape[j], &g.world_pose[j], request)
            .map(|r| r.colliding)
            .map_err(|e| CollisionError::Pair { geom_a: i, geom_b: j, source: Box::new(e) })
    }

    /// Every pair passing `rules` that collides (signed distance ≤ 0) at the current poses, into `out`.
    pub(crate) fn colliding_pairs(&mut self, rules: PairRules, out: &mut Vec<GeomPair>) -> Result<()> {
        out.clear();
        self.query_candidates(0.0, rules)?;
        let request =
            CollisionRequest { security_margin: 0.0, max_contacts: 0, ..CollisionRequest::default() };
        let mut ws = lock(&self.workspaces[0]);
        for &[i, j] in &self.query_pairs {
            if self.collides(&mut ws, i as usize, j as usize, &request)? {
                out.push([i, j]);
            }
        }
        Ok(())
    }
}
