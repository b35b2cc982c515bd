//! Pair filters (spec §A.2/§A.3) and the allowed-collision matrix (seed 004 §6), as data: no file format is read
//! here (SRDF is `signorini-urdf`'s).
//!
//! **Rules**, checked in this order for a geom pair on bodies `a`, `b` (the first that applies is the reason
//! reported by [`FilterReason`]):
//! 1. same body;
//! 2. both bodies without a degree of freedom: fixed to the world (no moving joint on the chain to the world) or
//!    carried by a kinematic body (MuJoCo's mocap bodies: moved by the caller, they push what they touch but a
//!    pair of them, or one with the static world, makes no contact, as in MuJoCo);
//! 3. `contype`/`conaffinity`: `(contype_i & conaffinity_j) | (contype_j & conaffinity_i) == 0` rejects the pair if
//!    the bodies belong to the same entity or neither entity declares its mask local
//!    ([`crate::world::CollisionWorld::set_local_collision_mask`]);
//! 4. same kinematic root (self-collision) when `enable_self_collision` is false;
//! 5. linked by a weld equality (static or registered at run time);
//! 6. self-collision pairs only, unless `enable_adjacent_collision`: **adjacent** bodies (see [`is_adjacent`]);
//! 7. self-collision pairs only, unless `enable_neutral_collision`: geom pairs found penetrating at the neutral pose
//!    given to [`crate::world::CollisionWorld::apply_neutral_filter`];
//! 8. body pairs excluded explicitly (MJCF `<contact><exclude>`);
//! 9. body pairs disabled in the [`AllowedCollisionMatrix`].
//!
//! Rules 1–5 and 8 are *structural*: the sampling tools below keep them and drop 6, 7 and 9, so they see the
//! collisions that the adjacency rule, the neutral-pose rule and the matrix would hide.
//!
//! **ACM generation** ([`generate_acm`], seed 004 §6.5, MoveIt Setup Assistant style): every body pair that passes the
//! structural rules (by default only self-collision pairs) is classified as `Adjacent` (kinematically adjacent),
//! `Never` (collides in none of the samples), `Always` (collides in at least `always_fraction` of them) or kept.
//! Forward kinematics stays outside: the caller supplies a closure mapping a sample index to all body poses.
//! **Validation** ([`validate_acm`]) samples again and reports every disabled, non-adjacent pair that collides.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};
use signorini_geometry::Pose;

use crate::broad::GeomPair;
use crate::error::{CollisionError, Result};
use crate::world::{BodyTable, CollisionOptions, CollisionWorld, GeomTable};

/// Why a geom pair is never examined (see the module docs for the order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FilterReason {
    /// Both geoms belong to the same body.
    SameBody,
    /// Neither body has a degree of freedom (fixed to the world, or kinematic).
    BothFixed,
    /// `contype`/`conaffinity` do not match.
    Masks,
    /// Same kinematic root and `enable_self_collision` is false.
    SelfCollisionDisabled,
    /// A weld equality links the bodies.
    Weld,
    /// The bodies are adjacent and `enable_adjacent_collision` is false.
    Adjacent,
    /// The geoms penetrate at the neutral pose and `enable_neutral_collision` is false.
    NeutralCollision,
    /// The body pair is excluded explicitly.
    Excluded,
    /// The allowed-collision matrix disables the body pair.
    Acm,
}

/// Which of the optional rules (6, 7, 9) apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PairRules {
    pub(crate) adjacent: bool,
    pub(crate) neutral: bool,
    pub(crate) acm: bool,
}

impl PairRules {
    /// Every rule (simulation and robotics queries).
    pub(crate) const ALL: PairRules = PairRules { adjacent: true, neutral: true, acm: true };
    /// Only the structural rules (sampling-based ACM generation and validation).
    pub(crate) const STRUCTURAL: PairRules = PairRules { adjacent: false, neutral: false, acm: false };
}

/// Whether bodies `a` and `b` are adjacent: rigidly attached to each other, or one's weld group is the parent of the
/// other's. A body's weld group is the topmost body reached by walking up through bodies without a moving joint
/// (the world for bodies welded to it).
///
/// This is the relation Genesis intends ("adjacent means directly parented, or parented through fixed-joint-only
/// links", spec §A.2 rule 7). Genesis's code walks up only from the higher-index link and stops at its first moving
/// joint, so it misses a link hinged to a child that is welded to the other link (its own `FIXME`); we include it.
pub fn is_adjacent(bodies: &BodyTable, a: usize, b: usize) -> bool {
    let (wa, wb) = (bodies.weld_root[a], bodies.weld_root[b]);
    if wa == wb {
        return true;
    }
    let up = |w: usize| bodies.parent[w].map(|p| bodies.weld_root[p]);
    up(wa) == Some(wb) || up(wb) == Some(wa)
}

fn key(a: usize, b: usize) -> (usize, usize) {
    if a <= b { (a, b) } else { (b, a) }
}

/// The filter state of a world beyond its bodies and geoms: welds, exclusions, neutral-pose pairs, local-mask
/// entities and the allowed-collision matrix.
#[derive(Debug, Clone, Default)]
pub struct PairFilter {
    pub(crate) welds: BTreeSet<(usize, usize)>,
    pub(crate) excludes: BTreeSet<(usize, usize)>,
    pub(crate) neutral: BTreeSet<(usize, usize)>,
    pub(crate) local_mask_entities: BTreeSet<u32>,
    pub(crate) acm: AllowedCollisionMatrix,
}

impl PairFilter {
    /// The first rule that rejects geoms `ga`, `gb` (indices checked by the caller), `None` if the pair is examined.
    pub(crate) fn reason(
        &self,
        bodies: &BodyTable,
        geoms: &GeomTable,
        options: &CollisionOptions,
        ga: usize,
        gb: usize,
        rules: PairRules,
    ) -> Option<FilterReason> {
        let (a, b) = (geoms.body[ga], geoms.body[gb]);
        if a == b {
            return Some(FilterReason::SameBody);
        }
        if bodies.dofless[a] && bodies.dofless[b] {
            return Some(FilterReason::BothFixed);
        }
        let matched =
            (geoms.contype[ga] & geoms.conaffinity[gb]) | (geoms.contype[gb] & geoms.conaffinity[ga]);
        if matched == 0 {
            let (ea, eb) = (bodies.entity[a], bodies.entity[b]);
            let local = self.local_mask_entities.contains(&ea) || self.local_mask_entities.contains(&eb);
            if ea == eb || !local {
                return Some(FilterReason::Masks);
            }
        }
        let same_root = bodies.root[a] == bodies.root[b];
        if same_root && !options.enable_self_collision {
            return Some(FilterReason::SelfCollisionDisabled);
        }
        let body_pair = key(a, b);
        if !self.welds.is_empty() && self.welds.contains(&body_pair) {
            return Some(FilterReason::Weld);
        }
        let through_world =
            options.world_weld_adjacent || (bodies.weld_root[a] != 0 && bodies.weld_root[b] != 0);
        if rules.adjacent
            && same_root
            && !options.enable_adjacent_collision
            && through_world
            && is_adjacent(bodies, a, b)
        {
            return Some(FilterReason::Adjacent);
        }
        if rules.neutral
            && !options.enable_neutral_collision
            && !self.neutral.is_empty()
            && self.neutral.contains(&key(ga, gb))
        {
            return Some(FilterReason::NeutralCollision);
        }
        if !self.excludes.is_empty() && self.excludes.contains(&body_pair) {
            return Some(FilterReason::Excluded);
        }
        if rules.acm && self.acm.is_disabled(a, b) {
            return Some(FilterReason::Acm);
        }
        None
    }
}

/// Why an allowed-collision matrix disables a pair (MoveIt's reasons; `signorini-urdf` reads and writes them as
/// SRDF's `reason` attribute).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DisableReason {
    /// Kinematically adjacent: always touching (`"Adjacent"`).
    Adjacent,
    /// Never collided in the sampled configurations (`"Never"`).
    Never,
    /// Collided in (almost) all sampled configurations (`"Always"`).
    Always,
    /// Collides in the default configuration (`"Default"`).
    Default,
    /// Disabled by the user (`"User"`, also used when an SRDF entry has no reason).
    User,
    /// Any other reason string, kept verbatim.
    Other(String),
}

impl DisableReason {
    /// The spelling of MoveIt and SRDF (`"Adjacent"`, ..., or the `Other` string).
    pub fn as_str(&self) -> &str {
        match self {
            DisableReason::Adjacent => "Adjacent",
            DisableReason::Never => "Never",
            DisableReason::Always => "Always",
            DisableReason::Default => "Default",
            DisableReason::User => "User",
            DisableReason::Other(s) => s,
        }
    }
}

impl fmt::Display for DisableReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An allowed-collision matrix: the set of body (link) pairs whose collisions are never checked, each with its
/// reason. Symmetric; indices are the world's body indices. Built here programmatically or by [`generate_acm`];
/// `signorini-urdf` builds one from SRDF (`Srdf::acm`) and writes one as SRDF (`write_srdf`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllowedCollisionMatrix {
    entries: BTreeMap<(usize, usize), DisableReason>,
}

impl AllowedCollisionMatrix {
    /// An empty matrix (every pair allowed to collide, i.e. checked).
    pub fn new() -> Self {
        Self::default()
    }

    /// Disables collisions between bodies `a` and `b` (replacing an earlier reason). A pair of a body with itself is
    /// ignored: such pairs are never checked anyway.
    pub fn disable(&mut self, a: usize, b: usize, reason: DisableReason) {
        if a != b {
            self.entries.insert(key(a, b), reason);
        }
    }

    /// Re-enables collisions between `a` and `b`; returns the reason they were disabled for, if they were.
    pub fn enable(&mut self, a: usize, b: usize) -> Option<DisableReason> {
        self.entries.remove(&key(a, b))
    }

    /// Whether collisions between `a` and `b` are disabled.
    pub fn is_disabled(&self, a: usize, b: usize) -> bool {
        !self.entries.is_empty() && self.entries.contains_key(&key(a, b))
    }

    /// The reason `a`–`b` is disabled, if it is.
    pub fn reason(&self, a: usize, b: usize) -> Option<&DisableReason> {
        self.entries.get(&key(a, b))
    }

    /// Number of disabled pairs.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no pair is disabled.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The disabled pairs `(a, b, reason)` with `a < b`, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, &DisableReason)> + '_ {
        self.entries.iter().map(|(&(a, b), r)| (a, b, r))
    }

    /// Adds every entry of `other` (its reasons win).
    pub fn merge(&mut self, other: &AllowedCollisionMatrix) {
        for (k, r) in &other.entries {
            self.entries.insert(*k, r.clone());
        }
    }
}

/// Settings of [`generate_acm`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AcmSampling {
    /// Number of sampled configurations (MoveIt's default is 10 000; seed 004 §6.5 recommends ≥ 50 000 for
    /// validation). Default 10 000.
    pub n_samples: usize,
    /// A pair colliding in at least this fraction of the samples is disabled as `Always`. Default 0.99 (seed 004:
    /// "rate > 0.99").
    pub always_fraction: f64,
    /// Only consider pairs of bodies with the same kinematic root (the robot's own links). Default true.
    pub self_collision_only: bool,
}

impl Default for AcmSampling {
    fn default() -> Self {
        Self { n_samples: 10_000, always_fraction: 0.99, self_collision_only: true }
    }
}

/// How often one body pair collided during sampling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairCollisionCount {
    /// First body (`body_a < body_b`).
    pub body_a: usize,
    /// Second body.
    pub body_b: usize,
    /// Samples in which any geom of `body_a` collided with any geom of `body_b`.
    pub colliding_samples: usize,
}

/// Result of [`generate_acm`].
#[derive(Debug, Clone, PartialEq)]
pub struct AcmGeneration {
    /// The generated matrix: `Adjacent`, `Never` and `Always` pairs.
    pub acm: AllowedCollisionMatrix,
    /// Every considered non-adjacent pair with its collision count, in body order; pairs with
    /// `0 < colliding_samples < always_fraction · n_samples` stay enabled.
    pub counts: Vec<PairCollisionCount>,
    /// Number of samples taken.
    pub n_samples: usize,
}

/// Body pairs `(a, b)`, `a < b`, with geoms that pass the structural rules (and share a root if `self_only`).
fn candidate_body_pairs(world: &CollisionWorld, self_only: bool) -> BTreeSet<(usize, usize)> {
    let (bodies, geoms) = (world.bodies(), world.geoms());
    let mut out = BTreeSet::new();
    for ga in 0..geoms.len() {
        for gb in ga + 1..geoms.len() {
            let (a, b) = (geoms.body[ga], geoms.body[gb]);
            if self_only && bodies.root[a] != bodies.root[b] {
                continue;
            }
            if !out.contains(&key(a, b)) && world.filter_reason_with(ga, gb, PairRules::STRUCTURAL).is_none()
            {
                out.insert(key(a, b));
            }
        }
    }
    out
}

/// Body pairs colliding at the poses of sample `s` (structural rules only), deduplicated, into `out`.
fn colliding_bodies(
    world: &mut CollisionWorld,
    poses: &[Pose],
    scratch: &mut Vec<GeomPair>,
    out: &mut BTreeSet<(usize, usize)>,
) -> Result<()> {
    world.update(poses)?;
    world.colliding_pairs(PairRules::STRUCTURAL, scratch)?;
    out.clear();
    let geoms = world.geoms();
    for &[ga, gb] in scratch.iter() {
        out.insert(key(geoms.body[ga as usize], geoms.body[gb as usize]));
    }
    Ok(())
}

/// Generates an allowed-collision matrix by sampling (see the module docs). `poses(s)` returns the poses of all
/// bodies (world first) for sample `s` in `0..n_samples`. The world is left posed at the last sample.
pub fn generate_acm<F>(world: &mut CollisionWorld, settings: &AcmSampling, poses: F) -> Result<AcmGeneration>
where
    F: Fn(usize) -> Vec<Pose>,
{
    if settings.n_samples == 0 || !(settings.always_fraction > 0.0 && settings.always_fraction <= 1.0) {
        return Err(CollisionError::InvalidRequest {
            what: format!(
                "ACM sampling needs n_samples ≥ 1 and always_fraction in (0, 1], got {} and {}",
                settings.n_samples, settings.always_fraction
            ),
        });
    }
    let mut acm = AllowedCollisionMatrix::new();
    let mut counts: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (a, b) in candidate_body_pairs(world, settings.self_collision_only) {
        let bodies = world.bodies();
        if bodies.root[a] == bodies.root[b] && is_adjacent(bodies, a, b) {
            acm.disable(a, b, DisableReason::Adjacent);
        } else {
            counts.insert((a, b), 0);
        }
    }
    let (mut scratch, mut hit) = (Vec::new(), BTreeSet::new());
    for s in 0..settings.n_samples {
        colliding_bodies(world, &poses(s), &mut scratch, &mut hit)?;
        for pair in &hit {
            if let Some(c) = counts.get_mut(pair) {
                *c += 1;
            }
        }
    }
    let always = (settings.always_fraction * settings.n_samples as f64).ceil() as usize;
    let mut out = Vec::with_capacity(counts.len());
    for (&(a, b), &c) in &counts {
        if c == 0 {
            acm.disable(a, b, DisableReason::Never);
        } else if c >= always {
            acm.disable(a, b, DisableReason::Always);
        }
        out.push(PairCollisionCount { body_a: a, body_b: b, colliding_samples: c });
    }
    Ok(AcmGeneration { acm, counts: out, n_samples: settings.n_samples })
}

/// A disabled pair that collided during validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissedPair {
    /// First body (`body_a < body_b`).
    pub body_a: usize,
    /// Second body.
    pub body_b: usize,
    /// Why the matrix disables it.
    pub reason: DisableReason,
    /// Samples in which it collided.
    pub colliding_samples: usize,
    /// The first such sample.
    pub first_sample: usize,
}

/// Result of [`validate_acm`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcmValidation {
    /// Number of samples taken.
    pub n_samples: usize,
    /// Samples in which some collision would be missed because of the matrix (seed 004's "missed configurations";
    /// acceptable value: 0).
    pub missed_samples: usize,
    /// The disabled pairs that collided, in body order.
    pub missed: Vec<MissedPair>,
}

impl AcmValidation {
    /// Whether no collision was missed.
    pub fn is_safe(&self) -> bool {
        self.missed.is_empty()
    }
}

/// Samples `n_samples` configurations and reports every pair the matrix disables that collides in one of them
/// (structural rules only, so the check sees what the matrix hides). Kinematically adjacent pairs are not reported:
/// they touch by construction and the adjacency rule filters them anyway. The world is left posed at the last
/// sample.
pub fn validate_acm<F>(
    world: &mut CollisionWorld,
    acm: &AllowedCollisionMatrix,
    n_samples: usize,
    poses: F,
) -> Result<AcmValidation>
where
    F: Fn(usize) -> Vec<Pose>,
{
    let mut missed: BTreeMap<(usize, usize), MissedPair> = BTreeMap::new();
    let mut missed_samples = 0;
    let (mut scratch, mut hit) = (Vec::new(), BTreeSet::new());
    for s in 0..n_samples {
        colliding_bodies(world, &poses(s), &mut scratch, &mut hit)?;
        let mut any = false;
        for &(a, b) in &hit {
            let Some(reason) = acm.reason(a, b) else { continue };
            let bodies = world.bodies();
            if bodies.root[a] == bodies.root[b] && is_adjacent(bodies, a, b) {
                continue;
            }
            any = true;
            missed.entry((a, b)).and_modify(|m| m.colliding_samples += 1).or_insert(MissedPair {
                body_a: a,
                body_b: b,
                reason: reason.clone(),
                colliding_samples: 1,
                first_sample: s,
            });
        }
        missed_samples += usize::from(any);
    }
    Ok(AcmValidation { n_samples, missed_samples, missed: missed.into_values().collect() })
}
