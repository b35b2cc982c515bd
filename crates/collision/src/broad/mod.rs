//! Broad phases: from world AABBs to the candidate pairs the narrow phase examines.
//!
//! **Contract** (every implementation, so that they are interchangeable and the tests can compare them): given one
//! world AABB per geom and a per-geom "fixed to the world" flag, report every unordered pair `{i, j}` exactly once,
//! as `[i, j]` with `i < j`, such that
//! - the boxes overlap **strictly** on all three axes (spec §A.4: touching boxes, `max_a ≤ min_b` on some axis, do
//!   not overlap; see [`Aabb::overlaps`]), and
//! - not both geoms are fixed (such pairs can never produce a contact; spec §A.2 rule 3).
//!
//! The order of the output is unspecified; the collision world sorts it. Boxes may be unbounded (planes: `±∞`
//! components) but never NaN ([`BroadPhaseInput::new`] rejects NaN).
//!
//! A broad phase is used through `dyn BroadPhase` **once per step** (one [`BroadPhase::find_pairs`] call), never per
//! pair; each implementation loops over plain slices inside. State kept between calls (the sweep-and-prune endpoint
//! order, the tree's fat boxes) makes consecutive steps cheap; when the number of geoms changes the state is rebuilt.
//!
//! | implementation | per step | wins when |
//! |---|---|---|
//! | [`SweepAndPrune`] (§A.4) | insertion sort of the x endpoints (≈ O(n) when nearly sorted) + sweep | many moving geoms spread along x; the simulator default |
//! | [`DynamicAabbTree`] (seed 004 §2.4.2) | reinsert only leaves that left their fat box, one tree query per moving geom | many static geoms, few moving ones; robotics scenes |
//! | [`AllPairs`] | `n(n−1)/2` box tests | tiny scenes; the reference in tests |

mod all_pairs;
mod dynamic_tree;
mod sap;

use std::fmt::Debug;

use serde::{Deserialize, Serialize};
use signorini_geometry::Aabb;

pub use all_pairs::AllPairs;
pub use dynamic_tree::DynamicAabbTree;
pub use sap::SweepAndPrune;

use crate::error::{CollisionError, Result};

/// A candidate pair of geom indices `[i, j]` with `i < j`.
pub type GeomPair = [u32; 2];

/// The per-step input of a broad phase: one world AABB and one fixed flag per geom.
#[derive(Debug, Clone, Copy)]
pub struct BroadPhaseInput<'a> {
    aabbs: &'a [Aabb],
    fixed: &'a [bool],
}

impl<'a> BroadPhaseInput<'a> {
    /// Checks that both slices have one entry per geom, that there are fewer than `u32::MAX` geoms and that no box
    /// has a NaN component.
    pub fn new(aabbs: &'a [Aabb], fixed: &'a [bool]) -> Result<Self> {
        if aabbs.len() != fixed.len() {
            return Err(CollisionError::InvalidRequest {
                what: format!("broad phase: {} boxes but {} fixed flags", aabbs.len(), fixed.len()),
            });
        }
        if aabbs.len() >= u32::MAX as usize {
            return Err(CollisionError::InvalidRequest {
                what: format!("broad phase: {} geoms exceed the u32 index range", aabbs.len()),
            });
        }
        if let Some(i) = aabbs.iter().position(|b| b.min.is_nan() || b.max.is_nan()) {
            return Err(CollisionError::InvalidRequest {
                what: format!("broad phase: box {i} has a NaN bound"),
            });
        }
        Ok(Self { aabbs, fixed })
    }

    /// The boxes.
    pub fn aabbs(&self) -> &'a [Aabb] {
        self.aabbs
    }

    /// The fixed-to-world flags.
    pub fn fixed(&self) -> &'a [bool] {
        self.fixed
    }

    /// Number of geoms.
    pub fn len(&self) -> usize {
        self.aabbs.len()
    }

    /// Whether there is no geom.
    pub fn is_empty(&self) -> bool {
        self.aabbs.is_empty()
    }

    /// Whether geoms `i` and `j` form a reportable pair given that their boxes were found close: strict 3-D overlap
    /// and not both fixed.
    #[inline]
    pub(crate) fn accepts(&self, i: usize, j: usize) -> bool {
        !(self.fixed[i] && self.fixed[j]) && self.aabbs[i].overlaps(&self.aabbs[j])
    }
}

/// Which broad phase a [`crate::world::CollisionWorld`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BroadPhaseKind {
    /// Sweep and prune on the world x axis (spec §A.4). Default.
    #[default]
    SweepAndPrune,
    /// Dynamic AABB tree with fat boxes (seed 004 §2.4.2).
    DynamicTree,
    /// Every pair (reference).
    AllPairs,
}

impl BroadPhaseKind {
    /// A fresh broad phase of this kind; `fat_margin` (m) is the tree's fat-box margin, unused by the others.
    pub fn build(self, fat_margin: f64) -> Box<dyn BroadPhase> {
        match self {
            BroadPhaseKind::SweepAndPrune => Box::new(SweepAndPrune::new()),
            BroadPhaseKind::DynamicTree => Box::new(DynamicAabbTree::new(fat_margin)),
            BroadPhaseKind::AllPairs => Box::new(AllPairs::new()),
        }
    }

    /// Lower-case name used in benchmarks and messages.
    pub fn name(self) -> &'static str {
        match self {
            BroadPhaseKind::SweepAndPrune => "sap",
            BroadPhaseKind::DynamicTree => "tree",
            BroadPhaseKind::AllPairs => "all_pairs",
        }
    }
}

/// A broad phase (see the module docs for the contract). Called once per step through `dyn BroadPhase`.
pub trait BroadPhase: Debug + Send {
    /// Which implementation this is.
    fn kind(&self) -> BroadPhaseKind;

    /// Clears `out` and fills it with the candidate pairs of this step (see the module docs).
    fn find_pairs(&mut self, input: &BroadPhaseInput<'_>, out: &mut Vec<GeomPair>);

    /// Forgets the state kept between steps (the next call starts from scratch, like a first step).
    fn reset(&mut self);

    /// A copy with the same kept state (the copy reports the same pairs as the original would, step after step).
    fn clone_box(&self) -> Box<dyn BroadPhase>;
}
