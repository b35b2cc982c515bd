//! Vector reductions over the dofs in four interleaved partial sums `Σ_{i ≡ k mod 4}`, added pairwise at the end.
//! A sequential sum is a chain of dependent additions (one per add latency); four chains vectorise and overlap.
//! The result differs from the sequential sum by round-off only.

/// `Σ_i term(a_i, b_i)` over the common length, in four partial sums.
#[inline(always)]
fn sum4(a: &[f64], b: &[f64], term: impl Fn(f64, f64) -> f64) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = ca.remainder().iter().zip(cb.remainder()).map(|(&x, &y)| term(x, y)).sum();
    let mut acc = [0.0; 4];
    for (x, y) in ca.zip(cb) {
        for k in 0..4 {
            acc[k] += term(x[k], y[k]);
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// `aᵀb`.
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    sum4(a, b, |x, y| x * y)
}

/// `Σ_i s_i (m_i − f_i)`.
#[inline]
pub fn dot_difference(s: &[f64], m: &[f64], f: &[f64]) -> f64 {
    let n = s.len().min(m.len()).min(f.len());
    let (s, m, f) = (&s[..n], &m[..n], &f[..n]);
    let (cs, cm, cf) = (s.chunks_exact(4), m.chunks_exact(4), f.chunks_exact(4));
    let tail: f64 = cs
        .remainder()
        .iter()
        .zip(cm.remainder().iter().zip(cf.remainder()))
        .map(|(s, (m, f))| s * (m - f))
        .sum();
    let mut acc = [0.0; 4];
    for (s, (m, f)) in cs.zip(cm.zip(cf)) {
        for k in 0..4 {
            acc[k] += s[k] * (m[k] - f[k]);
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// `Σ_i (a_i − b_i)(c_i − d_i)`.
#[inline]
pub fn dot_of_differences(a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> f64 {
    let n = a.len().min(b.len()).min(c.len()).min(d.len());
    let mut acc = [0.0; 4];
    let body = n / 4 * 4;
    let (a4, b4, c4, d4) = (&a[..body], &b[..body], &c[..body], &d[..body]);
    for (((a, b), c), d) in
        a4.chunks_exact(4).zip(b4.chunks_exact(4)).zip(c4.chunks_exact(4)).zip(d4.chunks_exact(4))
    {
        for k in 0..4 {
            acc[k] += (a[k] - b[k]) * (c[k] - d[k]);
        }
    }
    let tail: f64 = (body..n).map(|i| (a[i] - b[i]) * (c[i] - d[i])).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
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
