//! The greedy largest quadrilateral of a convex polygon that MuJoCo uses to keep at most four contacts: `hull4f`
//! (plane–mesh, the support vertex as fixed first corner) and `polygonQuad` (multiccd clipping, every corner in turn).
//!
//! Corners are polygon indices taken cyclically; the area of `[a, b, c, d]` is `½ |(p_a − p_c) × (p_b − p_d)|` (half
//! the cross product of the diagonals). The climb is a local search: the result is not always the largest
//! quadrilateral, and MuJoCo's exact choice depends on it.

use glam::DVec3;

/// Area of the quadrilateral `a, b, c, d` from its diagonals.
pub(crate) fn area4(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    0.5 * (a - c).cross(b - d).length()
}

/// With the first corner fixed, grows the quadrilateral `q` of the `n`-gon whose corners are `point(i)`: advance `d`
/// while the area grows strictly and, after each step of `d`, advance `c`, then `b`, the same way. `best` is the area
/// of `q` on entry and on return. A NaN area ends the climb. Returns whether `q` moved.
pub(crate) fn climb(point: impl Fn(usize) -> DVec3, n: usize, q: &mut [usize; 4], best: &mut f64) -> bool {
    let area = |q: &[usize; 4]| area4(point(q[0]), point(q[1]), point(q[2]), point(q[3]));
    let mut moved = false;
    // Advances corner `k` while that grows the area.
    let advance = |q: &mut [usize; 4], best: &mut f64, k: usize, once: bool| -> bool {
        let mut any = false;
        loop {
            let mut next = *q;
            next[k] = (next[k] + 1) % n;
            let grown = area(&next);
            if !(grown > *best) {
                return any;
            }
            (*q, *best, any) = (next, grown, true);
            if once {
                return true;
            }
        }
    };
    while advance(q, best, 3, true) {
        moved = true;
        advance(q, best, 2, false);
        advance(q, best, 1, false);
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regular(n: usize) -> Vec<DVec3> {
        (0..n)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / n as f64;
                DVec3::new(a.cos(), a.sin(), 0.0)
            })
            .collect()
    }

    #[test]
    fn climb_from_an_anchor_is_local_and_stops_on_nan() {
        // A regular 12-gon anchored at 11: the anchor stays, the area grows, and no single corner step improves on the
        // result, which is still short of the largest quadrilateral (the square, area 2): a local maximum.
        let p = regular(12);
        let mut q = [11, 0, 1, 2];
        let start = area4(p[11], p[0], p[1], p[2]);
        let mut best = start;
        assert!(climb(|k| p[k], 12, &mut q, &mut best));
        assert_eq!(q[0], 11);
        assert!(best > start && best < 2.0 - 1e-3, "{best}");
        assert!((best - area4(p[q[0]], p[q[1]], p[q[2]], p[q[3]])).abs() < 1e-15);
        for k in 1..4 {
            let mut next = q;
            next[k] = (next[k] + 1) % 12;
            assert!(area4(p[next[0]], p[next[1]], p[next[2]], p[next[3]]) <= best);
        }
        assert!(!climb(|k| p[k], 12, &mut q, &mut best), "a second climb stays put");
        // Non-finite corners give NaN areas: the climb ends at once instead of cycling.
        let bad = [DVec3::splat(f64::INFINITY); 6];
        let mut q = [0, 1, 2, 3];
        let mut best = area4(bad[0], bad[1], bad[2], bad[3]);
        assert!(!climb(|k| bad[k], 6, &mut q, &mut best));
    }
}
