//! The contact pipeline of a [`CollisionModel`] over its [`CollisionData`] (spec §A.1–§A.4, §A.15–§A.16): geom
//! poses and world boxes, broad phase, pair filters, candidate budget, narrow phase (in parallel over chunks of
//! pairs, each writing its own slot), merge with parameter mixing and the warm-start normal cache, and the
//! deterministic sort into a [`ContactSet`]. See the [module docs](super) for the order of a step.

use rayon::prelude::*;
use signorini_geometry::rotation::local_to_world;
use signorini_geometry::{Pose, Shape, ShapeKind};

use super::data::{CollisionData, NOT_EXPLICIT, canonical, lock};
use super::model::{CollisionModel, check_pose};
use crate::broad::{BroadPhaseInput, GeomPair};
use crate::capacity::{self, make_room};
use crate::contact_set::{ContactRecord, ContactSet, StagedContact, frame_key};
use crate::dialect::{BatchGeoms, PairDispatcher, PairSlot};
use crate::error::{CollisionError, Result};
use crate::filter::PairRules;
use crate::query::{ContactRequest, QueryWorkspace};

/// Pairs per parallel work item (fixed, so the split does not depend on the thread count).
const CHUNK: usize = 8;

/// Fewer pairs than this run on one thread: splitting them costs more than it saves (on the 2-core test machine the
/// pyramid's 94 pairs, about 100 µs of narrow phase, took 12–51 µs longer on 2 threads in 7 interleaved pairs of
/// runs; the pile's 217 pairs, about 850 µs, 1.2–1.4× shorter; docs/COLLISION_PIPELINE.md). Counted in pairs of
/// [`PAIR_COST`]: the closed forms between planes, spheres and capsules count 1 (MuJoCo's 22 humanoids, 170–390 such
/// pairs over steps 100–500, had a collision stage of 110 µs on one thread and 141 µs on two when they counted as
/// full pairs).
const PARALLEL_MIN_PAIRS: usize = 128;

/// The narrow-phase cost of a pair other than a closed form between planes, spheres and capsules (a few hundred
/// nanoseconds), relative to one: boxes, hulls, cylinders, ellipsoids and meshes take a microsecond or more.
const PAIR_COST: usize = 8;

/// A pair's narrow-phase cost: 1 for planes, spheres and capsules among themselves, [`PAIR_COST`] otherwise.
fn pair_cost(a: ShapeKind, b: ShapeKind) -> usize {
    let closed_form = |k| matches!(k, ShapeKind::Plane | ShapeKind::Sphere | ShapeKind::Capsule);
    if closed_form(a) && closed_form(b) { 1 } else { PAIR_COST }
}

/// Pairs per block of a narrow phase on one thread: the narrow phase runs and merges the pairs a block at a time, so
/// the pair slots (with their manifolds' buffers) number at most this many, whatever the scene (the pile's 500 pairs
/// kept 148 kB of slots; in blocks of 128 the MuJoCo-dialect `pile__cg` kept 52 kB, in blocks of 32 it keeps 14 kB
/// of its `Data`'s 1.44 MB after 200 steps). A parallel narrow phase runs all its pairs as one block: each block is
/// a fork and a join, and the other workers, asleep again between blocks, took about 30 µs to wake for each (the
/// settled pile's narrow phase, about 800 pairs in 7 blocks a step, was 1.15× shorter on 2 threads in blocks:
/// 490 µs against 560 µs, with each thread busy about 280 µs).
const BLOCK: usize = 4 * CHUNK;

/// Orders a pair for the narrow phase: the dialect's type rank of A at most B's where both have one
/// ([`PairDispatcher::type_rank`], read per geom into `ranks`), else the shape kinds; ties by index.
fn narrow_order(ranks: &[Option<u8>], shapes: &[Shape], i: usize, j: usize) -> GeomPair {
    let (ki, kj) = match (ranks[i], ranks[j]) {
        (Some(ri), Some(rj)) => (ri, rj),
        _ => (shapes[i].kind() as u8, shapes[j].kind() as u8),
    };
    if (ki, i) <= (kj, j) { [i as u32, j as u32] } else { [j as u32, i as u32] }
}

/// What the narrow phase of one pair reads.
struct NarrowContext<'a> {
    dispatcher: &'a dyn PairDispatcher,
    geoms: BatchGeoms<'a>,
    request: ContactRequest,
}

impl NarrowContext<'_> {
    /// One chunk of pairs: one virtual call.
    fn run(&self, ws: &mut QueryWorkspace, pairs: &[GeomPair], slots: &mut [PairSlot]) {
        self.dispatcher.contacts_batch(ws, &self.geoms, &self.request, pairs, slots);
    }
}

impl CollisionModel {
    /// Poses every geom from the body poses (world frame, one per body, the world body first) and computes the
    /// world AABBs into `data`. Errors: wrong count, non-finite pose, non-unit rotation (naming the body).
    pub fn update(&self, data: &mut CollisionData, body_poses: &[Pose]) -> Result<()> {
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
        data.body_pose.copy_from_slice(body_poses);
        let g = &self.geoms;
        for i in 0..g.shape.len() {
            data.geom_pose[i] = local_to_world(&body_poses[g.body[i]], &g.local_pose[i]);
        }
        self.dispatcher.world_aabbs(&g.shape, &data.geom_pose, &g.margin, &g.gap, &mut data.geom_aabb);
        data.updated = true;
        Ok(())
    }

    pub(crate) fn require_updated(&self, data: &CollisionData) -> Result<()> {
        if data.updated {
            Ok(())
        } else {
            Err(CollisionError::InvalidWorld {
                what: "no body poses since the world or its options changed: call `update` first".into(),
            })
        }
    }

    /// [`update`](Self::update) then [`collide`](Self::collide).
    pub fn step<'d>(&self, data: &'d mut CollisionData, body_poses: &[Pose]) -> Result<&'d ContactSet> {
        self.update(data, body_poses)?;
        self.collide(data)
    }

    /// The contact set of the current poses: broad phase, filters, narrow phase, budgets, sort (see the module
    /// docs). Errors: a budget exceeded ([`CollisionError::CapacityExceeded`]), a pair the narrow phase cannot
    /// handle ([`CollisionError::Pair`]), no [`update`](Self::update) since the data was made or synced.
    pub fn collide<'d>(&self, data: &'d mut CollisionData) -> Result<&'d ContactSet> {
        self.require_updated(data)?;
        let input = BroadPhaseInput::new(&data.geom_aabb, &data.geom_frozen)?;
        data.broad.find_pairs(&input, &mut data.candidates);
        data.candidates.sort_unstable();
        self.run_pairs(data, true)
    }

    /// Like [`collide`](Self::collide), with the candidate pairs given instead of found by the broad phase. Pairs
    /// whose boxes do not overlap strictly, or whose geoms are both fixed, are skipped as the broad phase would;
    /// the rest go through the filters. The result does not depend on the order of `pairs`. Errors: an index out of
    /// range, a geom paired with itself, a pair given twice.
    pub fn collide_pairs<'d>(
        &self,
        data: &'d mut CollisionData,
        pairs: &[[usize; 2]],
    ) -> Result<&'d ContactSet> {
        self.require_updated(data)?;
        let n = self.geoms.len();
        data.candidates.clear();
        for &[i, j] in pairs {
            if i >= n || j >= n || i == j {
                return Err(CollisionError::InvalidRequest {
                    what: format!("pair [{i}, {j}] is not a pair of distinct geoms among {n}"),
                });
            }
            let (lo, hi) = (i.min(j), i.max(j));
            if !(data.geom_frozen[lo] && data.geom_frozen[hi])
                && data.geom_aabb[lo].overlaps(&data.geom_aabb[hi])
            {
                data.candidates.push([lo as u32, hi as u32]);
            }
        }
        data.scratch.clear();
        data.scratch.extend_from_slice(&data.candidates);
        data.scratch.sort_unstable();
        if let Some(w) = data.scratch.windows(2).find(|w| w[0] == w[1]) {
            return Err(CollisionError::InvalidRequest { what: format!("pair {:?} given twice", w[0]) });
        }
        self.run_pairs(data, false)
    }

    /// Marks sleeping bodies (one flag per body, the world body first; hibernation, spec §E): their geoms are
    /// paired only with geoms of awake moving bodies, as fixed geoms are, so a sleeping body keeps no contact with
    /// the static world or with another sleeper. All bodies start awake. Errors: wrong count.
    pub fn set_asleep(&self, data: &mut CollisionData, asleep: &[bool]) -> Result<()> {
        if asleep.len() != self.bodies.len() {
            return Err(CollisionError::InvalidWorld {
                what: format!("{} sleep flags given for {} bodies", asleep.len(), self.bodies.len()),
            });
        }
        data.body_asleep.copy_from_slice(asleep);
        for ((frozen, &fixed), &b) in data.geom_frozen.iter_mut().zip(&self.geom_fixed).zip(&self.geoms.body)
        {
            *frozen = fixed || asleep[b];
        }
        Ok(())
    }

    /// Filters `data.candidates` into `data.pairs` (with the explicit pairs in place of theirs when `explicit`),
    /// then narrow phase, merge and sort.
    fn run_pairs<'d>(&self, data: &'d mut CollisionData, explicit: bool) -> Result<&'d ContactSet> {
        data.pairs.clear();
        data.pair_explicit.clear();
        let mut cost = 0;
        for &[i, j] in &data.candidates {
            // A candidate that is an explicit pair: replaced by the explicit pairs below, or (given pairs) filtered
            // as any other and collided with the explicit pair's parameters.
            let index = self.explicit_pair_index([i, j]);
            if explicit && index.is_some() {
                continue;
            }
            let (i, j) = (i as usize, j as usize);
            if self.filter.reason(&self.bodies, &self.geoms, &self.options, i, j, PairRules::ALL).is_none()
                && !data.welded(self.geoms.body[i], self.geoms.body[j])
            {
                data.pairs.push(narrow_order(&self.geom_type_rank, &self.geoms.shape, i, j));
                data.pair_explicit.push(index.unwrap_or(NOT_EXPLICIT));
                cost += pair_cost(self.geoms.shape[i].kind(), self.geoms.shape[j].kind());
            }
        }
        if explicit {
            // Explicit pairs skip the filters and the broad phase (the narrow phase finds nothing beyond their
            // margin), not the sleep of both geoms.
            for (e, &([i, j], _)) in self.explicit_pairs.iter().enumerate() {
                let (i, j) = (i as usize, j as usize);
                if !(data.geom_frozen[i] && data.geom_frozen[j]) {
                    data.pairs.push(narrow_order(&self.geom_type_rank, &self.geoms.shape, i, j));
                    data.pair_explicit.push(e as u32);
                    cost += pair_cost(self.geoms.shape[i].kind(), self.geoms.shape[j].kind());
                }
            }
        }
        data.stats = super::StepStats {
            broad_phase_pairs: data.candidates.len(),
            candidate_pairs: data.pairs.len(),
            ..super::StepStats::default()
        };
        // Over the candidate budget, the step still runs to the end so that the error reports what the whole step
        // needs (the candidates and the contacts), not a value that fails again at the next check.
        let candidates = capacity::check_candidates(&self.options, data.pairs.len());
        let merged = self.narrow_phase_and_merge(data, cost);
        match (candidates, merged) {
            (Ok(()), merged) => merged?,
            (Err(e), Ok(())) => return Err(e),
            (Err(a), Err(b)) => return Err(capacity::larger_need(a, b)),
        }
        Ok(&data.contacts)
    }

    /// The narrow phase of `data.pairs[range]` (a block of pairs) into `data.slots[..range.len()]`, split between
    /// the pool's workers when `split`.
    fn narrow_phase(&self, data: &mut CollisionData, range: std::ops::Range<usize>, split: bool) {
        let n = range.len();
        if data.slots.len() < n {
            data.slots.resize_with(n, PairSlot::default);
        }
        for ((slot, &pair), &explicit) in
            data.slots.iter_mut().zip(&data.pairs[range.clone()]).zip(&data.pair_explicit[range.clone()])
        {
            slot.cached_normal = data.cache.lookup(pair);
            slot.margin = self.explicit_params(explicit).map(|p| p.margin + p.gap);
        }
        let ctx = NarrowContext {
            dispatcher: &*self.dispatcher,
            geoms: BatchGeoms {
                shapes: &self.geoms.shape,
                poses: &data.geom_pose,
                margins: &self.geoms.margin,
                gaps: &self.geoms.gap,
                hulls: (!self.options.box_box_detection).then_some(&self.hulls[..]),
                frames: &self.geom_frame,
            },
            request: self.request,
        };
        let (pairs, slots, workspaces) = (&data.pairs[range], &mut data.slots[..n], &data.workspaces[..]);
        match &self.pool {
            Some(pool) if split => pool.install(|| {
                slots.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
                    let t = rayon::current_thread_index().unwrap_or(0) % workspaces.len();
                    ctx.run(&mut lock(&workspaces[t]), &pairs[c * CHUNK..], chunk);
                });
            }),
            _ => ctx.run(&mut lock(&workspaces[0]), pairs, slots),
        }
    }

    /// The narrow phase and the merge of its manifolds into the sorted contact set, a block of pairs at a time (the
    /// staging keeps pair order, so the blocks change nothing but the slots' number); `cost` is the pairs'
    /// [`pair_cost`] summed, which decides whether the narrow phase is split between the pool's workers (then as
    /// one block).
    fn narrow_phase_and_merge(&self, data: &mut CollisionData, cost: usize) -> Result<()> {
        data.staging.clear();
        data.cache.next.clear();
        let n = data.pairs.len();
        let split = self.pool.is_some() && cost >= PARALLEL_MIN_PAIRS * PAIR_COST;
        let block = if split { n } else { BLOCK };
        for start in (0..n).step_by(block) {
            let range = start..(start + block).min(n);
            self.narrow_phase(data, range.clone(), split);
            self.stage(data, range)?;
        }
        self.merge(data)
    }

    /// Stages the contacts of the block `data.pairs[range]` (in `data.slots`) with their parameters and frame keys,
    /// and keeps each pair's normal for the next step. Errors: a pair's error, a pair over its contact budget.
    fn stage(&self, data: &mut CollisionData, range: std::ops::Range<usize>) -> Result<()> {
        let mixing = self.mixing;
        let generation_order = self.dispatcher.keeps_generation_order();
        for ((slot, &[a, b]), &explicit) in
            data.slots.iter().zip(&data.pairs[range.clone()]).zip(&data.pair_explicit[range.clone()])
        {
            let (a, b) = (a as usize, b as usize);
            if let Some(e) = &slot.error {
                return Err(CollisionError::Pair { geom_a: a, geom_b: b, source: e.clone() });
            }
            if slot.manifold.is_empty() {
                continue;
            }
            let g = &self.geoms;
            capacity::check_pair_contacts(
                &self.options,
                g.shape[a].kind(),
                g.shape[b].kind(),
                slot.manifold.len(),
            )?;
            let params = match self.explicit_params(explicit) {
                Some(params) => *params,
                None => {
                    let (mut pa, mut pb) = match &data.geom_params {
                        Some(p) => (p[a], p[b]),
                        None => (g.params(a), g.params(b)),
                    };
                    for (p, ratio) in
                        [(&mut pa, data.geom_friction_ratio[a]), (&mut pb, data.geom_friction_ratio[b])]
                    {
                        p.friction = p.friction.map(|f| f * ratio);
                    }
                    mixing.mix(&pa, &pb)
                }
            };
            let (link_a, link_b) = (g.body[a], g.body[b]);
            let frame = data.body_pose[link_b];
            make_room(&mut data.staging, slot.manifold.len());
            for c in &slot.manifold.contacts {
                data.staging.push(StagedContact {
                    record: ContactRecord {
                        geom_a: a,
                        geom_b: b,
                        link_a,
                        link_b,
                        position: c.position,
                        normal: c.normal,
                        penetration: c.penetration,
                        params,
                        tangent: slot.manifold.tangent,
                    },
                    // The frame key orders a pair's contacts unless the dialect keeps their generation order.
                    frame_key: if generation_order {
                        0.0
                    } else {
                        frame_key(frame.inverse_transform_point(c.position))
                    },
                });
            }
        }
        for (slot, &pair) in data.slots.iter().zip(&data.pairs[range]) {
            if let Some(n) = slot.manifold.contacts.first().map(|c| c.normal).or(slot.cached_normal) {
                data.cache.next.push((canonical(pair), n));
            }
        }
        Ok(())
    }

    /// Sorts and prunes the staged contacts into the contact set. Errors: over the contact budgets.
    fn merge(&self, data: &mut CollisionData) -> Result<()> {
        capacity::check_contacts(&self.options, self.n_boxes, data.staging.len())?;
        data.cache.commit();
        data.contacts.fill_sorted(
            &data.staging,
            &mut data.staging_order,
            self.prune_tolerance,
            self.dispatcher.keeps_generation_order(),
            &mut data.pruning,
        );
        data.stats.colliding_pairs = data.contacts.n_pairs;
        data.stats.contacts = data.contacts.len();
        let kept = data.contacts.len();
        // The default post-pruning budget is at least min(candidate budget, 512) and the candidates fitted.
        if kept > capacity::PRUNED_BUDGET_FLOOR || self.options.max_contacts.is_some() {
            capacity::check_pruned_contacts(self.max_contacts(), kept)?;
        }
        Ok(())
    }
}
