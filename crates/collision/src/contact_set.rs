//! The contact set of one step: structure of arrays, mixed contact parameters, deterministic order.
//!
//! **Convention** (spec §3, Genesis; as [`crate::contact`]): `normal[i]` is a world unit vector **from geom B to geom
//! A**, `penetration[i] ≥ 0` (m), `position[i]` the world midpoint between the surfaces. The pair is ordered so that
//! `kind(A) ≤ kind(B)` (plane first, spec §0.2), ties by the lower geom index.
//!
//! **Parameters** (spec §A.15/§B.10): each geom's [`GeomContactParams`], mixed once per pair into [`MixedParams`]
//! by the dialect's rule ([`crate::dialect::ParamMixing`]: Genesis's in
//! [`dialect::native::mix_params`](crate::dialect::native::mix_params), MuJoCo's in
//! [`dialect::mujoco::mix_params`](crate::dialect::mujoco::mix_params)).
//!
//! **Order** (spec §A.16, G-W `func_sort_contacts`): by link pair `(min, max)`, then `geom_a`, `geom_b`, then the
//! frame key `x + φy + φ²z` of the position in link B's frame (φ the golden ratio), then penetration, position and
//! normal, all floats by `total_cmp`. Two contacts with equal keys are bit-identical, so the sorted set does not
//! depend on the order in which pairs were examined or on the thread count.

use std::cmp::Ordering;

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::capacity::make_room;
use crate::prune::{PruneContact, PruneScratch, prune};

/// MuJoCo's `solref`: `(timeconst, dampratio)`, or `(−stiffness, −damping)` in direct mode.
pub type SolRef = [f64; 2];
/// MuJoCo's `solimp`: `(dmin, dmax, width, midpoint, power)`.
pub type SolImp = [f64; 5];

/// φ, the golden ratio, of the frame key.
const PHI: f64 = 1.618_033_988_749_895;

/// The contact parameters of one geom, as a dialect's mixing rule reads them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GeomContactParams {
    /// `(sliding, torsional, rolling)` friction coefficients.
    pub friction: [f64; 3],
    /// Contact `solref`.
    pub solref: SolRef,
    /// Contact `solimp`.
    pub solimp: SolImp,
    /// MuJoCo `condim`.
    pub condim: u8,
    /// MuJoCo `priority`.
    pub priority: i32,
    /// MuJoCo `solmix` weight.
    pub solmix: f64,
    /// Margin (m).
    pub margin: f64,
    /// Gap (m).
    pub gap: f64,
    /// Adhesion (N, MuJoCo 4.0).
    pub adhesion: f64,
}

/// The mixed parameters of a pair (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MixedParams {
    /// `(sliding, torsional, rolling)` friction.
    pub friction: [f64; 3],
    /// Mixed `solref`.
    pub solref: SolRef,
    /// Mixed `solimp`.
    pub solimp: SolImp,
    /// Contact dimensionality.
    pub condim: u8,
    /// Margin (m).
    pub margin: f64,
    /// Gap (m).
    pub gap: f64,
    /// Adhesion (N, MuJoCo 4.0): a constant pull along the normal, which also keeps a contact in the gap active.
    pub adhesion: f64,
}

/// One contact with its pair data (array-of-structs view of one row of a [`ContactSet`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContactRecord {
    /// Geom A (`kind(A) ≤ kind(B)`).
    pub geom_a: usize,
    /// Geom B.
    pub geom_b: usize,
    /// Body (link) of geom A.
    pub link_a: usize,
    /// Body (link) of geom B.
    pub link_b: usize,
    /// World midpoint between the surfaces (m).
    pub position: DVec3,
    /// World unit normal from B to A.
    pub normal: DVec3,
    /// Penetration depth (m): ≥ 0, or down to −margin for a MuJoCo-dialect contact within the margins.
    pub penetration: f64,
    /// Mixed parameters of the pair.
    pub params: MixedParams,
    /// The pair routine's first friction tangent ([`crate::Manifold::tangent`]); zero for the default frame.
    #[serde(default, skip_serializing_if = "crate::contact::is_zero")]
    pub tangent: DVec3,
}

/// A contact awaiting the sort, with its frame key.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StagedContact {
    pub(crate) record: ContactRecord,
    /// `x + φy + φ²z` of the position in link B's frame.
    pub(crate) frame_key: f64,
}

/// The frame key of spec §A.16 for a point given in link B's frame.
pub(crate) fn frame_key(local: DVec3) -> f64 {
    local.x + PHI * local.y + PHI * PHI * local.z
}

fn cmp_vec(a: DVec3, b: DVec3) -> Ordering {
    a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)).then(a.z.total_cmp(&b.z))
}

/// The total order of spec §A.16 (see the module docs).
pub(crate) fn compare(a: &StagedContact, b: &StagedContact) -> Ordering {
    let (ra, rb) = (&a.record, &b.record);
    let links = |r: &ContactRecord| (r.link_a.min(r.link_b), r.link_a.max(r.link_b));
    links(ra)
        .cmp(&links(rb))
        .then(ra.geom_a.cmp(&rb.geom_a))
        .then(ra.geom_b.cmp(&rb.geom_b))
        .then(a.frame_key.total_cmp(&b.frame_key))
        .then(ra.penetration.total_cmp(&rb.penetration))
        .then(cmp_vec(ra.position, rb.position))
        .then(cmp_vec(ra.normal, rb.normal))
}

/// A sort key that orders like [`compare`] up to the frame key: the link pair and the geoms packed into 32 bits
/// each, and the frame key's `total_cmp` order as an integer. `None` when an index does not fit in 32 bits.
fn sort_key(s: &StagedContact) -> Option<(u128, i64)> {
    let r = &s.record;
    let id = |v: usize| u32::try_from(v).ok().map(u128::from);
    let (lo, hi) = (id(r.link_a.min(r.link_b))?, id(r.link_a.max(r.link_b))?);
    let pair = lo << 96 | hi << 64 | id(r.geom_a)? << 32 | id(r.geom_b)?;
    // f64::total_cmp as a signed integer order.
    let bits = s.frame_key.to_bits() as i64;
    Some((pair, bits ^ (((bits >> 63) as u64) >> 1) as i64))
}

/// The contacts of one step as parallel arrays (structure of arrays), sorted as in the module docs. Index `i` of
/// every array describes contact `i`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContactSet {
    /// Geom A of each contact.
    pub geom_a: Vec<usize>,
    /// Geom B.
    pub geom_b: Vec<usize>,
    /// Body (link) of geom A.
    pub link_a: Vec<usize>,
    /// Body (link) of geom B.
    pub link_b: Vec<usize>,
    /// World midpoint between the surfaces (m).
    pub position: Vec<DVec3>,
    /// World unit normal from B to A.
    pub normal: Vec<DVec3>,
    /// Penetration (m): ≥ 0, or down to −margin for a MuJoCo-dialect contact within the margins.
    pub penetration: Vec<f64>,
    /// Mixed sliding friction (floored at 0.01 by the native mixing rule).
    pub friction: Vec<f64>,
    /// Mixed torsional friction.
    pub friction_torsional: Vec<f64>,
    /// Mixed rolling friction.
    pub friction_rolling: Vec<f64>,
    /// Mixed `solref`.
    pub solref: Vec<SolRef>,
    /// Mixed `solimp`.
    pub solimp: Vec<SolImp>,
    /// Mixed `condim`.
    pub condim: Vec<u8>,
    /// Mixed margin (m).
    pub margin: Vec<f64>,
    /// Mixed gap (m).
    pub gap: Vec<f64>,
    /// Mixed adhesion (N, MuJoCo 4.0; 0 without).
    pub adhesion: Vec<f64>,
    /// First friction tangent set by the pair routine ([`crate::Manifold::tangent`]; zero: the frame follows from
    /// the normal alone). A set built by hand may leave it empty, which reads as zero.
    pub tangent: Vec<DVec3>,
    /// Number of geom pairs that produced at least one contact.
    pub n_pairs: usize,
}

impl ContactSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.geom_a.len()
    }

    /// Removes every contact, keeping the memory.
    pub fn clear(&mut self) {
        self.geom_a.clear();
        self.geom_b.clear();
        self.link_a.clear();
        self.link_b.clear();
        self.position.clear();
        self.normal.clear();
        self.penetration.clear();
        self.friction.clear();
        self.friction_torsional.clear();
        self.friction_rolling.clear();
        self.solref.clear();
        self.solimp.clear();
        self.condim.clear();
        self.margin.clear();
        self.gap.clear();
        self.adhesion.clear();
        self.tangent.clear();
        self.n_pairs = 0;
    }

    /// Makes room for `n` more contacts in every array ([`make_room`]: 1/8 of spare room when an array grows).
    pub fn reserve(&mut self, n: usize) {
        make_room(&mut self.geom_a, n);
        make_room(&mut self.geom_b, n);
        make_room(&mut self.link_a, n);
        make_room(&mut self.link_b, n);
        make_room(&mut self.position, n);
        make_room(&mut self.normal, n);
        make_room(&mut self.penetration, n);
        make_room(&mut self.friction, n);
        make_room(&mut self.friction_torsional, n);
        make_room(&mut self.friction_rolling, n);
        make_room(&mut self.solref, n);
        make_room(&mut self.solimp, n);
        make_room(&mut self.condim, n);
        make_room(&mut self.margin, n);
        make_room(&mut self.gap, n);
        make_room(&mut self.adhesion, n);
        make_room(&mut self.tangent, n);
    }

    /// Whether there is no contact.
    pub fn is_empty(&self) -> bool {
        self.geom_a.is_empty()
    }

    /// Contact `i` as a record, `None` past the end.
    pub fn get(&self, i: usize) -> Option<ContactRecord> {
        (i < self.len()).then(|| ContactRecord {
            geom_a: self.geom_a[i],
            geom_b: self.geom_b[i],
            link_a: self.link_a[i],
            link_b: self.link_b[i],
            position: self.position[i],
            normal: self.normal[i],
            penetration: self.penetration[i],
            params: MixedParams {
                friction: [self.friction[i], self.friction_torsional[i], self.friction_rolling[i]],
                solref: self.solref[i],
                solimp: self.solimp[i],
                condim: self.condim[i],
                margin: self.margin[i],
                gap: self.gap[i],
                adhesion: self.adhesion[i],
            },
            tangent: self.tangent_hint(i),
        })
    }

    /// All contacts as records, in order.
    pub fn iter(&self) -> impl Iterator<Item = ContactRecord> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The largest penetration, 0 when empty.
    pub fn max_penetration(&self) -> f64 {
        self.penetration.iter().copied().fold(0.0, f64::max)
    }

    fn push(&mut self, r: &ContactRecord) {
        self.geom_a.push(r.geom_a);
        self.geom_b.push(r.geom_b);
        self.link_a.push(r.link_a);
        self.link_b.push(r.link_b);
        self.position.push(r.position);
        self.normal.push(r.normal);
        self.penetration.push(r.penetration);
        self.friction.push(r.params.friction[0]);
        self.friction_torsional.push(r.params.friction[1]);
        self.friction_rolling.push(r.params.friction[2]);
        self.solref.push(r.params.solref);
        self.solimp.push(r.params.solimp);
        self.condim.push(r.params.condim);
        self.margin.push(r.params.margin);
        self.gap.push(r.params.gap);
        self.adhesion.push(r.params.adhesion);
        self.tangent.push(r.tangent);
    }

    /// Contact `i`'s first friction tangent (zero when the routine set none, or the set has no tangents).
    pub fn tangent_hint(&self, i: usize) -> DVec3 {
        self.tangent.get(i).copied().unwrap_or(DVec3::ZERO)
    }

    /// Replaces the contents of this set with `staged` in the order of spec §A.16 (sorted through `order`: the
    /// keys of [`sort_key`] and the indices of `staged`, so the large records are not moved), less the contacts that
    /// pruning with tolerance `prune_tolerance` drops ([`crate::prune`]; 0 keeps all); buffers are reused. Contacts
    /// with equal keys are bit-identical, so the unstable sort still gives one set. `n_pairs` counts the geom pairs
    /// with a kept contact.
    pub(crate) fn fill_sorted(
        &mut self,
        staged: &[StagedContact],
        order: &mut Vec<(u128, i64, u32)>,
        prune_tolerance: f64,
        generation_order: bool,
        pruning: &mut Pruning,
    ) {
        order.clear();
        make_room(order, staged.len());
        let mut packed = true;
        order.extend(staged.iter().enumerate().map(|(i, s)| {
            let key = sort_key(s);
            packed &= key.is_some();
            let (pair, frame) = key.unwrap_or((0, 0));
            // Within a pair: the staging order (the pair's own order, staged pair by pair) or the frame key.
            (pair, if generation_order { i as i64 } else { frame }, i as u32)
        }));
        if !packed {
            // Some index needs more than 32 bits: equal keys everywhere, the full comparison decides.
            order.iter_mut().for_each(|o| (o.0, o.1) = (0, 0));
        }
        order.sort_unstable_by(|a, b| {
            (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| compare(&staged[a.2 as usize], &staged[b.2 as usize]))
        });
        self.clear();
        self.reserve(order.len());
        let keep: &[bool] = if prune_tolerance > 0.0 {
            pruning.input.clear();
            pruning.input.extend(order.iter().map(|&(_, _, i)| {
                let r = &staged[i as usize].record;
                PruneContact {
                    link_pair: (r.link_a.min(r.link_b), r.link_a.max(r.link_b)),
                    position: r.position,
                    normal: r.normal,
                    penetration: r.penetration,
                }
            }));
            prune(&pruning.input, prune_tolerance, &mut pruning.scratch)
        } else {
            &[]
        };
        let mut last_pair = None;
        for (k, &(_, _, i)) in order.iter().enumerate() {
            if keep.get(k) == Some(&false) {
                continue;
            }
            let record = &staged[i as usize].record;
            let pair = (record.geom_a, record.geom_b);
            if last_pair != Some(pair) {
                self.n_pairs += 1;
                last_pair = Some(pair);
            }
            self.push(record);
        }
    }
}

/// The reused buffers of pruning: the sorted contacts as [`prune`] reads them, and its scratch.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pruning {
    input: Vec<PruneContact>,
    scratch: PruneScratch,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorting through the integer keys gives the order of [`compare`], with ties on links, geoms and frame keys
    /// (signed zeros, negative keys, indices past `u32::MAX`) left to the full comparison.
    #[test]
    fn keyed_sort_matches_the_total_order() {
        let params = MixedParams {
            friction: [1.0, 0.0, 0.0],
            solref: [0.02, 1.0],
            solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            condim: 3,
            margin: 0.0,
            gap: 0.0,
            adhesion: 0.0,
        };
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let big = u32::MAX as usize;
        for ids in [[0, 1, 2, 3, 4], [0, 1, 2, big, big + 1]] {
            let keys = [-1.5, -0.0, 0.0, 0.25, 0.25, 3.0];
            let staged: Vec<StagedContact> = (0..300)
                .map(|_| StagedContact {
                    record: ContactRecord {
                        geom_a: ids[next(5) as usize],
                        geom_b: ids[next(5) as usize],
                        link_a: ids[next(5) as usize],
                        link_b: ids[next(3) as usize],
                        position: DVec3::new(next(3) as f64, 0.0, 0.0),
                        normal: DVec3::Z,
                        penetration: next(3) as f64 * 0.01,
                        params,
                        tangent: DVec3::ZERO,
                    },
                    frame_key: keys[next(6) as usize],
                })
                .collect();
            let (mut set, mut order) = (ContactSet::new(), Vec::new());
            set.fill_sorted(&staged, &mut order, 0.0, false, &mut Pruning::default());
            let mut seen: Vec<usize> = order.iter().map(|o| o.2 as usize).collect();
            for (k, w) in seen.windows(2).enumerate() {
                assert_ne!(
                    compare(&staged[w[0]], &staged[w[1]]),
                    Ordering::Greater,
                    "positions {k}, {}",
                    k + 1
                );
            }
            for (k, &i) in seen.iter().enumerate() {
                assert_eq!(set.get(k), Some(staged[i].record));
            }
            seen.sort_unstable();
            assert!(seen.iter().copied().eq(0..staged.len()), "a permutation");
        }
    }
}
