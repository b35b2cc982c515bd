//! The exact line search of `reference-semantics.md` §C.4 (MuJoCo `PrimalSearch`) on a convex, piecewise-quadratic
//! 1-D cost `c(α)`: Newton steps from `α = 0`, bracketing of the minimum between two points whose derivatives have
//! opposite signs, then refinement with two Newton candidates and the midpoint per round until `|c'| < gtol`.

/// One evaluation of the 1-D cost: `α`, `c(α)`, `c'(α)`, `c''(α)` (floored at a tiny positive value).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// The step.
    pub alpha: f64,
    /// The cost.
    pub cost: f64,
    /// The first derivative.
    pub d1: f64,
    /// The second derivative (> 0).
    pub d2: f64,
}

impl Point {
    /// The Newton step from this point: `α − c'/c''`.
    #[inline]
    pub fn newton(&self) -> f64 {
        self.alpha - self.d1 / self.d2
    }
}

/// The result of a line search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Search {
    /// The chosen step (0: no improvement).
    pub alpha: f64,
    /// Cost evaluations used.
    pub evaluations: usize,
}

/// A cost along a line: `[cost, c′, c″]` at a step, or at three steps at once (one pass over the data where the
/// cost is a sum over many rows; the same values as three single evaluations).
pub trait LineCost {
    /// The cost and its derivatives at `alpha`.
    fn at(&mut self, alpha: f64) -> Point;

    /// [`LineCost::at`] at three steps.
    fn at3(&mut self, alphas: [f64; 3]) -> [Point; 3] {
        alphas.map(|a| self.at(a))
    }
}

impl<F: FnMut(f64) -> Point> LineCost for F {
    fn at(&mut self, alpha: f64) -> Point {
        self(alpha)
    }
}

/// Minimises `cost` along `α` starting from `α = 0`. `gtol` is the derivative tolerance, `budget` the maximum
/// number of evaluations.
pub fn search(mut cost: impl LineCost, gtol: f64, budget: usize) -> Search {
    let budget = budget.max(2);
    let mut n = 1;
    let p0 = cost.at(0.0);
    let mut p1 = cost.at(p0.newton());
    n += 1;
    if p0.cost < p1.cost {
        p1 = p0;
    }
    if p1.d1.abs() < gtol {
        return Search { alpha: p1.alpha, evaluations: n };
    }

    // Bracketing: Newton steps in the descent direction until the derivative changes sign.
    let dir = if p1.d1 < 0.0 { 1.0 } else { -1.0 };
    let mut p2: Option<Point> = None;
    while p1.d1 * dir <= -gtol && n < budget {
        p2 = Some(p1);
        p1 = cost.at(p1.newton());
        n += 1;
        if p1.d1.abs() < gtol {
            return Search { alpha: p1.alpha, evaluations: n };
        }
    }
    let Some(p2) = p2 else {
        return Search { alpha: p1.alpha, evaluations: n };
    };
    if p1.d1 * dir <= -gtol {
        // Budget exhausted while still descending.
        return Search { alpha: p1.alpha, evaluations: n };
    }

    // Refinement on the bracket [lo, hi] with c'(lo) < 0 < c'(hi).
    let (mut lo, mut hi) = if p1.d1 < 0.0 { (p1, p2) } else { (p2, p1) };
    let mut lo_next = lo.newton();
    let mut hi_next = hi.newton();
    while n < budget {
        let mid_alpha = 0.5 * (lo.alpha + hi.alpha);
        let candidates = cost.at3([lo_next, hi_next, mid_alpha]);
        n += 3;
        let best_converged =
            candidates.iter().filter(|p| p.d1.abs() < gtol).min_by(|a, b| a.cost.total_cmp(&b.cost)).copied();
        if let Some(p) = best_converged {
            return Search { alpha: p.alpha, evaluations: n };
        }
        let mut changed = false;
        for c in candidates {
            if c.d1 < 0.0 && c.d1 > lo.d1 && c.alpha.is_finite() {
                lo = c;
                lo_next = c.newton();
                changed = true;
            } else if c.d1 > 0.0 && c.d1 < hi.d1 && c.alpha.is_finite() {
                hi = c;
                hi_next = c.newton();
                changed = true;
            }
        }
        if !changed {
            let mid = cost.at(0.5 * (lo.alpha + hi.alpha));
            n += 1;
            let alpha = if improves(&p0, &mid) { mid.alpha } else { 0.0 };
            return Search { alpha, evaluations: n };
        }
        // A Newton candidate outside the bracket is replaced by the midpoint.
        let (a, b) = (lo.alpha.min(hi.alpha), lo.alpha.max(hi.alpha));
        if !(lo_next > a && lo_next < b) {
            lo_next = 0.5 * (a + b);
        }
        if !(hi_next > a && hi_next < b) {
            hi_next = 0.5 * (a + b);
        }
    }
    let best = if lo.cost < hi.cost { lo } else { hi };
    let alpha = if improves(&p0, &best) { best.alpha } else { 0.0 };
    Search { alpha, evaluations: n }
}

/// Whether moving from `p0` to `p` lowers the cost: by the computed costs, or — when those are equal to rounding —
/// because `p` lies on the descent side of `p0` inside a bracket of the minimum (`c` is convex, so the whole segment
/// from `p0` to the minimiser descends).
fn improves(p0: &Point, p: &Point) -> bool {
    p.cost < p0.cost || (p0.d1 < 0.0 && p.alpha > p0.alpha) || (p0.d1 > 0.0 && p.alpha < p0.alpha)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `c(α) = |α − 2|` smoothed: a convex piecewise quadratic with a kink in curvature at α = 1.
    fn piecewise(alpha: f64) -> Point {
        // c = 0.05 α² + (α < 1 ? 2(α−1)² : 0) − α ; minimum where c' = 0.
        let (mut c, mut d1, mut d2) = (0.05 * alpha * alpha - alpha, 0.1 * alpha - 1.0, 0.1);
        if alpha < 1.0 {
            c += 2.0 * (alpha - 1.0).powi(2);
            d1 += 4.0 * (alpha - 1.0);
            d2 += 4.0;
        }
        Point { alpha, cost: c, d1, d2 }
    }

    #[test]
    fn finds_the_minimum_of_a_piecewise_quadratic() {
        let s = search(piecewise, 1e-12, 50);
        assert!((s.alpha - 10.0).abs() < 1e-9, "alpha {}", s.alpha);
    }

    #[test]
    fn quadratic_needs_one_newton_step() {
        let s =
            search(|a| Point { alpha: a, cost: (a - 3.0).powi(2), d1: 2.0 * (a - 3.0), d2: 2.0 }, 1e-12, 50);
        assert_eq!(s.alpha, 3.0);
        assert_eq!(s.evaluations, 2);
    }
}
