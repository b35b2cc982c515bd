//! The unit tests' shared random numbers: a seeded xorshift generator (the same sequence on every platform).

/// Uniform numbers in [−1, 1) from a xorshift generator seeded with `state`.
pub(crate) fn uniform(mut state: u64) -> impl FnMut() -> f64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}
