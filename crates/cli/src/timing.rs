//! The benchmarks' one timing rule: the median over `repeat` timed passes of the mean time per item.

use std::time::Instant;

/// Runs `pass` (which handles `items` items) `repeat` times and returns the median of its mean time per item (ns).
/// `repeat` ≥ 1 (the callers check it).
pub(crate) fn median_ns_per_item(repeat: usize, items: usize, mut pass: impl FnMut()) -> f64 {
    let mut samples: Vec<f64> = (0..repeat.max(1))
        .map(|_| {
            let start = Instant::now();
            pass();
            start.elapsed().as_nanos() as f64 / items.max(1) as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
