//! Vector reductions over the dofs in four interleaved partial sums `Σ_{i ≡ k mod 4}`, added pairwise at the end.
//! A sequential sum is a chain of dependent additions (one per add latency); four chains vectorise and overlap.
//! The result differs from the sequential sum by round-off only.

/// `Σ_i term([x_0,i, …, x_K−1,i])` over the common length of the `K` slices, in four partial sums.
#[inline(always)]
fn sum4<const K: usize>(xs: [&[f64]; K], term: impl Fn([f64; K]) -> f64) -> f64 {
    let n = xs.iter().map(|x| x.len()).min().unwrap_or(0);
    let body = n - n % 4;
    let mut acc = [0.0; 4];
    for start in (0..body).step_by(4) {
        let blocks: [&[f64; 4]; K] =
            std::array::from_fn(|j| xs[j][start..start + 4].try_into().expect("a block of four"));
        for (k, acc) in acc.iter_mut().enumerate() {
            *acc += term(std::array::from_fn(|j| blocks[j][k]));
        }
    }
    let tail: f64 = (body..n).map(|i| term(std::array::from_fn(|j| xs[j][i]))).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// `aᵀb`.
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    sum4([a, b], |[x, y]| x * y)
}

/// `Σ_i s_i (m_i − f_i)`.
#[inline]
pub fn dot_difference(s: &[f64], m: &[f64], f: &[f64]) -> f64 {
    sum4([s, m, f], |[s, m, f]| s * (m - f))
}

/// `Σ_i (a_i − b_i)(c_i − d_i)`.
#[inline]
pub fn dot_of_differences(a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> f64 {
    sum4([a, b, c, d], |[a, b, c, d]| (a - b) * (c - d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(n: usize, seed: f64) -> Vec<f64> {
        (0..n).map(|i| ((i as f64 + 1.0) * seed).sin() * 3.0).collect()
    }

    #[test]
    fn reductions_match_sequential_sums() {
        for n in [0, 1, 3, 4, 5, 8, 13, 64, 101] {
            let (a, b, c, d) = (values(n, 0.7), values(n, 1.3), values(n, 2.1), values(n, 0.37));
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * (1.0 + y.abs());
            let seq: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!(close(dot(&a, &b), seq), "n = {n}");
            let seq: f64 = (0..n).map(|i| a[i] * (b[i] - c[i])).sum();
            assert!(close(dot_difference(&a, &b, &c), seq), "n = {n}");
            let seq: f64 = (0..n).map(|i| (a[i] - b[i]) * (c[i] - d[i])).sum();
            assert!(close(dot_of_differences(&a, &b, &c, &d), seq), "n = {n}");
        }
    }
}
