//! The contact set of one step: structure of arrays, mixed contact parameters, deterministic order.
//!
//! **Convention** (spec §3, Genesis; as [`crate::contact`]): `normal[i]` is a world unit vector **from geom B to geom
//! A**, `penetration[i] ≥ 0` (m), `position[i]` the world midpoint between the surfaces. The pair is ordered so that
//! `kind(A) ≤ kind(B)` (plane first, spec §0.2), ties by the lower geom index.
//!
//! **Parameters** (spec §A.15/§B.10), mixed once per pair by [`mix_params`]:
//! - native: `friction = max(μ_A, μ_B, 0.01)` (sliding; per-env friction ratio 1), torsional and rolling `max`,
//!   `solref`/`solimp` the plain mean, `condim`/`margin`/`gap` the max (recorded; native contacts ignore margin/gap);
//! - MuJoCo-compatible: the higher `priority` wins outright; otherwise `condim` and each friction the max, `solref`
//!   and `solimp` the `solmix`-weighted mean (`solref` elementwise min when either is in direct mode, negative), and
//!   `margin`/`gap` the max.
//!   The mixed `timeconst` is stored as is: its `2h` floor belongs to the constraint layer (spec §4).
//!
//! **Order** (spec §A.16, G-W `func_sort_contacts`): by link pair `(min, max)`, then `geom_a`, `geom_b`, then the
//! frame key `x + φy + φ²z` of the position in link B's frame (φ the golden ratio), then penetration, position and
//! normal, all floats by `total_cmp`. Two contacts with equal keys are bit-identical, so the sorted set does not
//! depend on the order in which pairs were examined or on the thread count.

use std::cmp::Ordering;

use glam::DVec3;
use serde::{Deserialize, Serialize};

use crate::query::ContactMode;

/// MuJoCo's `solref`: `(timeconst, dampratio)`, or `(−stiffness, −damping)` in direct mode.
pub type SolRef = [f64; 2];
/// MuJoCo's `solimp`: `(dmin, dmax, width, midpoint, power)`.
pub type SolImp = [f64; 5];

/// The friction floor of spec §A.15 (native mode).
pub const FRICTION_FLOOR: f64 = 1e-2;

/// φ, the golden ratio, of the frame key.
const PHI: f64 = 1.618_033_988_749_895;

/// MuJoCo's `mjMINVAL`.
const MIN_VAL: f64 = 1e-15;

/// The contact parameters of one geom, as [`mix_params`] reads them.
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
}

/// Mixes the parameters of geoms A and B (spec §A.15; see the module docs for both modes).
pub fn mix_params(mode: ContactMode, a: &GeomContactParams, b: &GeomContactParams) -> MixedParams {
    let margin = a.margin.max(b.margin);
    let gap = a.gap.max(b.gap);
    match mode {
        ContactMode::Native => MixedParams {
            friction: [
                a.friction[0].max(b.friction[0]).max(FRICTION_FLOOR),
                a.friction[1].max(b.friction[1]),
                a.friction[2].max(b.friction[2]),
            ],
            solref: std::array::from_fn(|k| 0.5 * (a.solref[k] + b.solref[k])),
            solimp: std::array::from_fn(|k| 0.5 * (a.solimp[k] + b.solimp[k])),
            condim: a.condim.max(b.condim),
            margin,
            gap,
        },
        ContactMode::MujocoCompatible => {
            if a.priority != b.priority {
                let w = if a.priority > b.priority { a } else { b };
                return MixedParams {
                    friction: w.friction,
                    solref: w.solref,
                    solimp: w.solimp,
                    condim: w.condim,
                    margin,
                    gap,
                };
            }
            let wa = match (a.solmix < MIN_VAL, b.solmix < MIN_VAL) {
                (true, true) => 0.5,
                (true, false) => 0.0,
                (false, true) => 1.0,
                (false, false) => a.solmix / (a.solmix + b.solmix),
            };
            let direct = a.solref[0] <= 0.0 || b.solref[0] <= 0.0;
            MixedParams {
                friction: std::array::from_fn(|k| a.friction[k].max(b.friction[k])),
                solref: std::array::from_fn(|k| {
                    if direct {
                        a.solref[k].min(b.solref[k])
                    } else {
                        wa * a.solref[k] + (1.0 - wa) * b.solref[k]
                    }
                }),
                solimp: std::array::from_fn(|k| wa * a.solimp[k] + (1.0 - wa) * b.solimp[k]),
                condim: a.condim.max(b.condim),
                margin,
                gap,
            }
        }
    }
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
    /// Penetration depth ≥ 0 (m).
    pub penetration: f64,
    /// Mixed parameters of the pair.
    pub params: MixedParams,
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
    /// Penetration ≥ 0 (m).
    pub penetration: Vec<f64>,
    /// Mixed sliding friction (floored at 0.01 in native mode).
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
            },
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

    fn clear(&mut self) {
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
        self.n_pairs = 0;
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
    }

    /// Sorts `staged` (spec §A.16) and replaces the contents of this set with it; buffers are reused.
    pub(crate) fn fill_sorted(&mut self, staged: &mut [StagedContact], n_pairs: usize) {
        staged.sort_unstable_by(compare);
        self.clear();
        for s in staged.iter() {
            self.push(&s.record);
        }
        self.n_pairs = n_pairs;
    }
}
