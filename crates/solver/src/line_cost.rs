//! The primal cost restricted to the search line `a + α s` (`reference-semantics.md` §C.4), as the exact line search
//! ([`crate::linesearch`]) reads it: with the residuals `x₀ = J a − aref` and `v = J s`, every row is prepared once
//! per direction (`[½ D x₀², D x₀ v, ½ D v²]`, and MuJoCo's `CGprepare` data of every elliptic block), and each trial
//! `α` then costs one pass over the rows: the Gauss quadratic plus every row in the state it has at `α` (MuJoCo's
//! `CGeval`). When every row is one-sided the pass is branch-free; Signorini blocks are evaluated with their
//! latched loads held fixed ([`signorini::BlockLine`], gathered once per direction).

use signorini_constraints::{ConstraintRows, RowKind};

use crate::cost::{ConeBlock, ConeLine, RowState, row_coefficients, row_state};
use crate::linesearch::{LineCost, Point};
use crate::primal::{EPS, PrimalWork};
use crate::signorini;

impl PrimalWork {
    /// Prepares the line along `s` from `jar` and `jv = J s`: every row's quadratic coefficients and the line data
    /// of every elliptic block.
    pub(crate) fn prepare_line(&mut self, rows: &ConstraintRows) {
        for (q, ((&x0, &v), &d)) in self.quad.iter_mut().zip(self.jar.iter().zip(&self.jv).zip(&rows.d)) {
            *q = [0.5 * d * x0 * x0, d * x0 * v, 0.5 * d * v * v];
        }
        self.prepare_cones(rows);
        self.prepare_signorini(rows);
    }

    /// Gathers every Signorini block along `s`, in row order ([`Self::line_points`] reads them in turn), and
    /// whether every row belongs to one (the common native scene of elliptic contacts alone, whose evaluations then
    /// sum the blocks without walking the rows).
    fn prepare_signorini(&mut self, rows: &ConstraintRows) {
        self.signorini_lines.clear();
        self.all_signorini = false;
        if !self.signorini || self.all_one_sided {
            return;
        }
        let (mut i, mut all) = (0, true);
        while i < rows.len() {
            let (RowKind::ContactElliptic, Some(c)) = (rows.kind[i], rows.cone[i]) else {
                all = false;
                i += 1;
                continue;
            };
            let n = rows.contact_nrows[c];
            let r = i..i + n;
            let load = self.latch.loads()[c];
            let line = signorini::BlockLine::new(rows, i, n, load, &self.jar[r.clone()], &self.jv[r]);
            self.signorini_lines.push(line);
            i += n;
        }
        self.all_signorini = all;
    }

    /// The line-search data of every elliptic block (not for Signorini blocks, which have their own line).
    fn prepare_cones(&mut self, rows: &ConstraintRows) {
        self.cone_line.clear();
        if self.all_one_sided || self.signorini {
            return;
        }
        let mut i = 0;
        while i < rows.len() {
            if rows.kind[i] != RowKind::ContactElliptic {
                i += 1;
                continue;
            }
            let block = ConeBlock::new(rows, i);
            let r = i..i + block.n;
            self.cone_line.push(ConeLine::new(
                &block,
                &self.jar[r.clone()],
                &self.jv[r.clone()],
                &self.quad[r],
            ));
            i += block.n;
        }
    }

    /// The 1-D cost along `s` at `α` (uses `jar`, `jv` and the prepared `quad`, `cone_line`): the Gauss quadratic
    /// `gauss` (`[q₀, q₁, q₂]`) plus every row in the state it has at `α`, as `[cost, c′, c″]` with `c″ ≥ ε`.
    pub(crate) fn line_point(&self, rows: &ConstraintRows, gauss: [f64; 3], alpha: f64) -> Point {
        self.line_points(rows, gauss, [alpha])[0]
    }

    /// [`Self::line_point`] at `K` steps in one pass over the rows (the line search's refinement takes three at a
    /// time); each step's sums are accumulated in the same order as alone, so the values are the same bits.
    pub(crate) fn line_points<const K: usize>(
        &self,
        rows: &ConstraintRows,
        gauss: [f64; 3],
        alphas: [f64; K],
    ) -> [Point; K] {
        // [cost, c', c''] of each step.
        let mut acc = [[0.0; 3]; K];
        for (acc, &alpha) in acc.iter_mut().zip(&alphas) {
            add_quadratic(acc, &gauss, alpha, 1.0);
        }
        if self.all_one_sided {
            // MuJoCo's `CGeval`: the Gauss quadratic plus the active rows' quadratics, summed coefficient-wise,
            // then evaluated once.
            return std::array::from_fn(|k| {
                let alpha = alphas[k];
                let rows = one_sided_quad(&self.jar, &self.jv, &self.quad, alpha);
                let q: [f64; 3] = std::array::from_fn(|j| gauss[j] + rows[j]);
                Point {
                    alpha,
                    cost: alpha * alpha * q[2] + alpha * q[1] + q[0],
                    d1: 2.0 * alpha * q[2] + q[1],
                    d2: (2.0 * q[2]).max(EPS),
                }
            });
        }
        let add = |acc: &mut [f64; 3], c: [f64; 3]| {
            for (a, c) in acc.iter_mut().zip(c) {
                *a += c;
            }
        };
        if self.all_signorini {
            for block in &self.signorini_lines {
                for (acc, c) in acc.iter_mut().zip(block.at(alphas)) {
                    add(acc, c);
                }
            }
            return points(alphas, acc);
        }
        let mut i = 0;
        let mut cones = self.cone_line.iter();
        let mut signorini_lines = self.signorini_lines.iter();
        while i < rows.len() {
            if self.one_sided[i] {
                // Limits and pyramidal/frictionless contact rows: quadratic below zero (the common case, kept tight).
                let (x0, v) = (self.jar[i], self.jv[i]);
                for (acc, &alpha) in acc.iter_mut().zip(&alphas) {
                    if x0 + alpha * v < 0.0 {
                        add_quadratic(acc, &self.quad[i], alpha, 1.0);
                    }
                }
                i += 1;
                continue;
            }
            if let (true, RowKind::ContactElliptic, Some(c)) = (self.signorini, rows.kind[i], rows.cone[i])
                && let Some(line) = signorini_lines.next()
            {
                for (acc, block) in acc.iter_mut().zip(line.at(alphas)) {
                    add(acc, block);
                }
                i += rows.contact_nrows[c];
                continue;
            }
            if rows.kind[i] == RowKind::ContactElliptic
                && let Some(cone) = cones.next()
            {
                for (acc, &alpha) in acc.iter_mut().zip(&alphas) {
                    add(acc, cone.at(alpha));
                }
                i += cone.rows;
                continue;
            }
            let (x0, v) = (self.jar[i], self.jv[i]);
            for (acc, &alpha) in acc.iter_mut().zip(&alphas) {
                // Rows are summed one by one (not as one aggregated quadratic): near the minimum the per-row
                // derivatives are small while the aggregated coefficients can be large and cancel.
                let q = match row_state(rows, i, x0 + alpha * v) {
                    // The quadratic coefficients were prepared once for this line search.
                    RowState::Quadratic => self.quad[i],
                    RowState::Inactive => continue,
                    state => row_coefficients(rows, i, state, x0, v),
                };
                add_quadratic(acc, &q, alpha, 1.0);
            }
            i += 1;
        }
        points(alphas, acc)
    }
}

/// The primal cost along the prepared search line, as [`crate::linesearch::search`] reads it: one step, or the
/// refinement's three in one pass over the rows.
pub(crate) struct AlongLine<'a> {
    pub(crate) work: &'a PrimalWork,
    pub(crate) rows: &'a ConstraintRows,
    /// The Gauss quadratic `[q₀, q₁, q₂]` of the line.
    pub(crate) gauss: [f64; 3],
}

impl LineCost for AlongLine<'_> {
    fn at(&mut self, alpha: f64) -> Point {
        self.work.line_point(self.rows, self.gauss, alpha)
    }

    fn at3(&mut self, alphas: [f64; 3]) -> [Point; 3] {
        self.work.line_points(self.rows, self.gauss, alphas)
    }
}

/// The points at `alphas` of the summed `[cost, c′, c″]` (`c″` floored at [`EPS`]).
fn points<const K: usize>(alphas: [f64; K], acc: [[f64; 3]; K]) -> [Point; K] {
    std::array::from_fn(|k| Point {
        alpha: alphas[k],
        cost: acc[k][0],
        d1: acc[k][1],
        d2: acc[k][2].max(EPS),
    })
}

/// Adds `w·q(α)`, `w·q′(α)`, `w·q″(α)` of the quadratic `q(α) = q₀ + α(q₁ + α q₂)` to `acc` (`w` is 1, or 0 to add
/// nothing without a branch).
#[inline(always)]
fn add_quadratic(acc: &mut [f64; 3], q: &[f64; 3], alpha: f64, w: f64) {
    acc[0] += w * (q[0] + alpha * (q[1] + alpha * q[2]));
    acc[1] += w * (q[1] + 2.0 * alpha * q[2]);
    acc[2] += w * (2.0 * q[2]);
}

/// `Σ` over one-sided rows active at `α` (`x₀ + α v < 0`) of their prepared quadratics `[q₀, q₁, q₂]`, coefficient
/// by coefficient, without branches and in four partial sums.
fn one_sided_quad(jar: &[f64], jv: &[f64], quad: &[[f64; 3]], alpha: f64) -> [f64; 3] {
    let mut acc = [[0.0; 3]; 4];
    let n = jar.len().min(jv.len()).min(quad.len());
    let (jar, jv, quad) = (&jar[..n], &jv[..n], &quad[..n]);
    let term = |x: f64, v: f64, q: &[f64; 3], acc: &mut [f64; 3]| {
        let w = if x + alpha * v < 0.0 { 1.0 } else { 0.0 };
        for (a, q) in acc.iter_mut().zip(q) {
            *a += w * q;
        }
    };
    let (x4, v4, q4) = (jar.chunks_exact(4), jv.chunks_exact(4), quad.chunks_exact(4));
    let mut tail = [0.0; 3];
    for ((x, v), q) in x4.remainder().iter().zip(v4.remainder()).zip(q4.remainder()) {
        term(*x, *v, q, &mut tail);
    }
    for ((x, v), q) in x4.zip(v4).zip(q4) {
        for k in 0..4 {
            term(x[k], v[k], &q[k], &mut acc[k]);
        }
    }
    std::array::from_fn(|j| (acc[0][j] + acc[1][j]) + (acc[2][j] + acc[3][j]) + tail[j])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::uniform;

    /// The branch-free coefficient sums equal the sum over the rows active at `α`, one by one, for every length
    /// (the four-lane body and its remainder) and rows switching on and off along the line.
    #[test]
    fn one_sided_quad_sums_the_active_rows() {
        let mut rnd = uniform(0x2545_f491_4f6c_dd1d);
        for n in 0..13 {
            let jar: Vec<f64> = (0..n).map(|_| rnd()).collect();
            let jv: Vec<f64> = (0..n).map(|_| rnd()).collect();
            let quad: Vec<[f64; 3]> = (0..n).map(|_| [rnd(), rnd(), rnd().abs()]).collect();
            for alpha in [-1.0, -0.3, 0.0, 0.4, 2.0] {
                let got = one_sided_quad(&jar, &jv, &quad, alpha);
                let mut expected = [0.0; 3];
                for k in 0..n {
                    if jar[k] + alpha * jv[k] < 0.0 {
                        for j in 0..3 {
                            expected[j] += quad[k][j];
                        }
                    }
                }
                for j in 0..3 {
                    assert!((got[j] - expected[j]).abs() < 1e-14, "n {n} α {alpha}: {got:?} vs {expected:?}");
                }
            }
        }
    }
}
