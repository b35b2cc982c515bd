//! All-vs-all: every pair of geoms gets the strict 3-D box test. `O(n²)`; the reference the other broad phases are
//! tested against, and the fastest for a handful of geoms.

use super::{BroadPhase, BroadPhaseInput, BroadPhaseKind, GeomPair};

/// The all-vs-all broad phase (stateless).
#[derive(Debug, Clone, Default)]
pub struct AllPairs;

impl AllPairs {
    /// A new all-vs-all broad phase.
    pub fn new() -> Self {
        Self
    }
}

impl BroadPhase for AllPairs {
    fn clone_box(&self) -> Box<dyn BroadPhase> {
        Box::new(self.clone())
    }

    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::AllPairs
    }

    fn find_pairs(&mut self, input: &BroadPhaseInput<'_>, out: &mut Vec<GeomPair>) {
        all_pairs(input, out)
    }

    fn reset(&mut self) {}
}

/// Every pair `[i, j]` (`i < j`, in increasing order) that passes the strict 3-D box test, into `out` (cleared).
pub(crate) fn all_pairs(input: &BroadPhaseInput<'_>, out: &mut Vec<GeomPair>) {
    out.clear();
    let n = input.len();
    for i in 0..n {
        for j in i + 1..n {
            if input.accepts(i, j) {
                out.push([i as u32, j as u32]);
            }
        }
    }
}
