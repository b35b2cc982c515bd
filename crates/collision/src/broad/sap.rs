//! Sweep and prune exactly as spec §A.4 (Genesis `_func_broad_phase_sap`).
//!
//! - **Axis:** world x, fixed (no variance-based axis choice).
//! - **Endpoint buffer** of `2n` entries `(value, is_max, geom)`, persistent across steps. On the first step (or after
//!   [`BroadPhase::reset`], or when the number of geoms changes) it is filled in geom order, min then max endpoint;
//!   afterwards only the values are refreshed, in the previous step's order (warm start).
//! - **Insertion sort** by value with a strict `<` (stable; near `O(n)` on nearly sorted data).
//! - **Sweep** with an active list: at a min endpoint of `g`, test `g` against every active geom with the strict 3-D
//!   box test, then activate `g`; at a max endpoint, remove `g` (linear search and shift).
//! - **Few geoms** (at most [`ALL_PAIRS_MAX_GEOMS`]): every pair gets the strict 3-D box test instead, in index
//!   order. A pair whose x intervals overlap strictly is always met by the sweep, so both find the same pairs; the
//!   sweep's sort and active list cost more than the `n(n − 1)/2` tests there (the 11 geoms of `arm.xml`: 3 300
//!   instructions per step for the sweep, 1 500 for all pairs, callgrind).

use super::all_pairs::all_pairs;
use super::{BroadPhase, BroadPhaseInput, BroadPhaseKind, GeomPair};

/// Up to this many geoms, [`SweepAndPrune`] tests every pair (see the module docs).
pub const ALL_PAIRS_MAX_GEOMS: usize = 16;

/// One endpoint of a box's x interval.
#[derive(Debug, Clone, Copy)]
struct Endpoint {
    value: f64,
    is_max: bool,
    geom: u32,
}

/// Sweep and prune on world x with a persistent, insertion-sorted endpoint buffer.
#[derive(Debug, Clone, Default)]
pub struct SweepAndPrune {
    endpoints: Vec<Endpoint>,
    active: Vec<u32>,
    warm: bool,
}

impl SweepAndPrune {
    /// A new sweep and prune; its first step fills the endpoint buffer in geom order.
    pub fn new() -> Self {
        Self::default()
    }

    fn fill(&mut self, input: &BroadPhaseInput<'_>) {
        self.endpoints.clear();
        for (g, b) in input.aabbs().iter().enumerate() {
            self.endpoints.push(Endpoint { value: b.min.x, is_max: false, geom: g as u32 });
            self.endpoints.push(Endpoint { value: b.max.x, is_max: true, geom: g as u32 });
        }
        self.warm = true;
    }

    fn refresh(&mut self, input: &BroadPhaseInput<'_>) {
        let aabbs = input.aabbs();
        for e in &mut self.endpoints {
            let b = &aabbs[e.geom as usize];
            e.value = if e.is_max { b.max.x } else { b.min.x };
        }
    }

    fn insertion_sort(&mut self) {
        let buf = &mut self.endpoints;
        for i in 1..buf.len() {
            let e = buf[i];
            let mut j = i;
            while j > 0 && e.value < buf[j - 1].value {
                buf[j] = buf[j - 1];
                j -= 1;
            }
            buf[j] = e;
        }
    }
}

impl BroadPhase for SweepAndPrune {
    fn clone_box(&self) -> Box<dyn BroadPhase> {
        Box::new(self.clone())
    }

    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::SweepAndPrune
    }

    fn find_pairs(&mut self, input: &BroadPhaseInput<'_>, out: &mut Vec<GeomPair>) {
        if input.len() <= ALL_PAIRS_MAX_GEOMS {
            // The endpoint buffer is filled again if the sweep runs later.
            self.warm = false;
            return all_pairs(input, out);
        }
        out.clear();
        if !self.warm || self.endpoints.len() != 2 * input.len() {
            self.fill(input);
        } else {
            self.refresh(input);
        }
        self.insertion_sort();
        self.active.clear();
        for k in 0..self.endpoints.len() {
            let e = self.endpoints[k];
            if e.is_max {
                if let Some(pos) = self.active.iter().position(|&h| h == e.geom) {
                    self.active.remove(pos);
                }
                continue;
            }
            let g = e.geom as usize;
            for &h in &self.active {
                let h = h as usize;
                if input.accepts(g, h) {
                    out.push(if g < h { [g as u32, h as u32] } else { [h as u32, g as u32] });
                }
            }
            self.active.push(e.geom);
        }
    }

    fn reset(&mut self) {
        self.warm = false;
    }
}
