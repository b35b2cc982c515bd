//! An elliptic contact in MuJoCo 4.0.1's arithmetic, for [`crate::mujoco_newton`]: `mj_constraintUpdate`'s zones,
//! forces and cone Hessian, and the line search's `PrimalPrepare`/`PrimalEval` terms. Where 4.0.1's machine code
//! departs from its public C source (read off the library's disassembly and checked against its exported
//! `mj_constraintUpdate`), the machine code is followed: the middle zone works with the unit tangent `U_j / T`, and
//! the line search sums the friction components afresh at each step length and takes the middle zone's curvature
//! from pairwise cross terms.

use signorini_constraints::ConstraintRows;
use signorini_model::factor::mujoco_dot as dot;

use crate::cost::RowState;

/// An elliptic contact in MuJoCo's arithmetic: its rows `start..start + dim` (the normal first), `mu` (`con->mu`),
/// `fr[j]` the friction of row `start + j` (`con->friction[j − 1]`, `j ≥ 1`) and `D_m = D₀ / (μ² (1 + μ²))`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cone {
    start: usize,
    /// Rows of the contact.
    pub(crate) dim: usize,
    mu: f64,
    fr: [f64; 6],
}

/// The zones of an elliptic contact, as `ellipticCostDif` numbers them.
const TOP: u8 = 1;
const BOTTOM: u8 = 2;
const MIDDLE: u8 = 3;

impl Cone {
    /// The contact whose first row is `r`.
    pub(crate) fn at(rows: &ConstraintRows, r: usize) -> Cone {
        let c = rows.cone[r].unwrap_or(0);
        let dim = rows.contact_nrows[c].clamp(1, 6);
        let mut fr = [0.0; 6];
        fr[1..dim].copy_from_slice(&rows.mu[r + 1..r + dim]);
        Cone { start: r, dim, mu: rows.contact_mu[c], fr }
    }

    /// The zone at normal `n` and tangential norm `t ≥ 0` (`mj_constraintUpdate` and 4.0.1's `PrimalEval`): top
    /// where `n ≥ μt` (or `t = 0` and `n ≥ 0`), bottom where `μn + t ≤ 0` (or `t = 0` and `n < 0`), else the middle.
    fn zone(&self, n: f64, t: f64) -> u8 {
        if t > 0.0 {
            if n >= self.mu * t {
                TOP
            } else if self.mu * n + t > 0.0 {
                MIDDLE
            } else {
                BOTTOM
            }
        } else if n < 0.0 {
            BOTTOM
        } else {
            TOP
        }
    }

    /// `D_m`.
    fn dm(&self, rows: &ConstraintRows) -> f64 {
        rows.d[self.start] / (self.mu * self.mu * (1.0 + self.mu * self.mu))
    }

    /// `mj_constraintUpdate_impl` on the contact's rows (residuals `jar`, forces `force` preset to `−D jar`): the
    /// zone (top: satisfied, no force; bottom: every row quadratic; middle: the cone, cost `½ D_m (N − μT)²`), its
    /// cost, and in the middle zone the cone Hessian into `h` when asked. `U = (jar₀ μ, jar_j fr_j)`, `N = U₀`,
    /// `T = ‖U_{1..}‖` (`mju_norm`); the middle zone's forces `−f₀ (U_j/T) fr_j` and Hessian in 4.0.1's arithmetic
    /// (checked against its `mj_constraintUpdate` bit for bit).
    pub(crate) fn update(
        &self,
        rows: &ConstraintRows,
        jar: &[f64],
        force: &mut [f64],
        h: Option<&mut [f64; 36]>,
    ) -> (RowState, f64) {
        let (dim, mu) = (self.dim, self.mu);
        let mut u = [0.0; 6];
        u[0] = jar[0] * mu;
        for j in 1..dim {
            u[j] = jar[j] * self.fr[j];
        }
        let (n, t) = (u[0], dot(&u[1..dim], &u[1..dim]).sqrt());
        let zone = self.zone(n, t);
        if zone == TOP {
            force[..dim].fill(0.0);
            return (RowState::Inactive, 0.0);
        }
        if zone == BOTTOM {
            let mut cost = 0.0;
            for (&d, &x) in rows.d[self.start..self.start + dim].iter().zip(jar) {
                cost += 0.5 * d * x * x;
            }
            return (RowState::Quadratic, cost);
        }
        let dm = self.dm(rows);
        let nmt = n - mu * t;
        // MuJoCo 4.0.1 works with the unit tangent `U_j / T` (read off `mj_constraintUpdate`'s outputs: its
        // source's `−f₀/T · U_j` and `μN/T³ U_j U_k` round differently on half the cases).
        let mut unit = [0.0; 6];
        for j in 1..dim {
            unit[j] = u[j] / t;
        }
        force[0] = -dm * nmt * mu;
        for j in 1..dim {
            force[j] = -force[0] * unit[j] * self.fr[j];
        }
        if let Some(h) = h {
            // First row (1, −μ u), upper block μ(N/T) u uᵀ plus (μ² − μ(N/T)) I, both sides scaled by (μ, fr) and
            // by D_m, then the upper triangle copied into the lower. `μ (N/T)`, not `(μN)/T`: they round apart on a
            // third of the condim 6 cases.
            h[0] = 1.0;
            for j in 1..dim {
                h[j] = -mu * unit[j];
            }
            let n_t = n / t;
            let scl = mu * n_t;
            for k in 1..dim {
                for j in k..dim {
                    h[k * dim + j] = scl * unit[j] * unit[k];
                }
            }
            let scl = mu * mu - mu * n_t;
            for j in 1..dim {
                h[j * (dim + 1)] += scl;
            }
            let side = |k: usize| if k == 0 { mu } else { self.fr[k] };
            for k in 0..dim {
                let scl = dm * side(k);
                for j in k..dim {
                    h[k * dim + j] *= scl * side(j);
                }
            }
            for k in 0..dim {
                for j in k + 1..dim {
                    h[j * dim + k] = h[k * dim + j];
                }
            }
        }
        (RowState::Cone, 0.5 * dm * nmt * nmt)
    }

    /// `PrimalPrepare` for the contact along `Jv` from `Jaref`, as MuJoCo 4.0.1 forms it (read off its machine code;
    /// its public source differs): the quadratic `[Σ jar D jar, Σ Jv D jar, Σ Jv D Jv]` over the contact's rows
    /// (halved at 0 and 2), then `U₀ = μ jar₀`, `V₀ = μ Jv₀`, `T₀ = ‖(fr_j jar_j)‖` and `D_m`.
    pub(crate) fn prepare(&self, rows: &ConstraintRows, jar: &[f64], jv: &[f64]) -> [f64; 9] {
        let d = &rows.d[self.start..self.start + self.dim];
        let dj0 = d[0] * jar[0];
        let mut q = [0.0; 9];
        q[0] = jar[0] * dj0;
        q[1] = jv[0] * dj0;
        q[2] = jv[0] * d[0] * jv[0];
        let mut uu = 0.0;
        for j in 1..self.dim {
            let djj = d[j] * jar[j];
            q[0] += jar[j] * djj;
            q[1] += jv[j] * djj;
            q[2] += jv[j] * d[j] * jv[j];
            let u = jar[j] * self.fr[j];
            uu += u * u;
        }
        let mu = self.mu;
        q[3] = jar[0] * mu;
        q[4] = jv[0] * mu;
        q[5] = uu.sqrt();
        q[6] = d[0] / ((mu * mu) * (1.0 + (mu * mu)));
        q[0] *= 0.5;
        q[2] *= 0.5;
        q
    }

    /// `PrimalEval` of the contact at `alpha` from its prepared `q` and its rows' `jar`, `Jv`: `(cost(α) − cost(0),
    /// d/dα, d²/dα²)`, as MuJoCo 4.0.1 computes them (read off its machine code): the friction components
    /// `u_j = U_j + α V_j` (`U_j = fr_j jar_j`, `V_j = fr_j Jv_j`) summed afresh for `T² = Σ u_j²`, `Σ u_j V_j` and
    /// `T² − T₀² = Σ α V_j (U_j + u_j)`, the cost change in `ellipticCostDif`'s forms, and the curvature of the middle
    /// zone from `P = Σ_{a<b} (û_a V_b − û_b V_a)²`, `û = u/T`: `D_m ((V₀ − μT′)² − (N/T − μ) μ P)`.
    pub(crate) fn eval(&self, q: &[f64; 9], jar: &[f64], jv: &[f64], alpha: f64) -> (f64, f64, f64) {
        let mu = self.mu;
        let (u0, v0, t0, dm) = (q[3], q[4], q[5], q[6]);
        let (mut u, mut v) = ([0.0; 6], [0.0; 6]);
        let (mut tsqr, mut uv, mut tsqr_delta) = (0.0, 0.0, 0.0);
        for j in 1..self.dim {
            let (uj, vj) = (self.fr[j] * jar[j], self.fr[j] * jv[j]);
            let av = alpha * vj;
            let x = av + uj;
            (u[j], v[j]) = (x, vj);
            tsqr += x * x;
            uv += x * vj;
            tsqr_delta += av * (uj + x);
        }
        let zone0 = self.zone(u0, t0);
        let av0 = alpha * v0;
        let n = av0 + u0;
        let t = tsqr.sqrt();
        let zone = self.zone(n, t);
        let alpha2 = alpha * alpha;
        let cost = match (zone0, zone) {
            (TOP, TOP) => 0.0,
            (BOTTOM, BOTTOM) => alpha2 * q[2] + alpha * q[1],
            (MIDDLE, MIDDLE) => {
                let r_delta = av0 - mu * (tsqr_delta / (t + t0));
                let r0 = u0 - mu * t0;
                0.5 * dm * r_delta * (2.0 * r0 + r_delta)
            }
            (MIDDLE, BOTTOM) => {
                let boundary0 = mu * u0 + t0;
                boundary0 * (0.5 * dm * boundary0) + alpha * (alpha * q[2] + q[1])
            }
            (BOTTOM, MIDDLE) => {
                let boundary = mu * n + t;
                alpha * (alpha * q[2] + q[1]) + boundary * (-0.5 * dm * boundary)
            }
            (TOP, BOTTOM) => alpha2 * q[2] + alpha * q[1] + q[0],
            (TOP, MIDDLE) => {
                let r = n - mu * t;
                r * (0.5 * dm * r)
            }
            (MIDDLE, TOP) => {
                let r0 = u0 - mu * t0;
                r0 * (-0.5 * dm * r0)
            }
            (BOTTOM, TOP) => -q[0],
            _ => 0.0,
        };
        let bottom = (2.0 * alpha * q[2] + q[1], q[2] + q[2]);
        let (d0, d1) = if !(tsqr > 0.0) {
            if n < 0.0 { bottom } else { (0.0, 0.0) }
        } else if n >= mu * t {
            (0.0, 0.0)
        } else if !(mu * n + t > 0.0) {
            bottom
        } else {
            let mut p = 0.0;
            let mut unit = [0.0; 6];
            for j in 1..self.dim {
                unit[j] = u[j] / t;
            }
            for a in 1..self.dim {
                for b in a + 1..self.dim {
                    let c = unit[a] * v[b] + -v[a] * unit[b];
                    p += c * c;
                }
            }
            let t1 = uv / t;
            let n1 = v0 - mu * t1;
            (dm * (n - mu * t) * n1, dm * (n1 * n1 - (n / t - mu) * (p * mu)))
        };
        (cost, d0, d1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::uniform;
    use signorini_constraints::RowKind;

    /// An elliptic contact of `dim` rows with random friction and `μ` (`rng` uniform in [−1, 1)), and `D` in MuJoCo's
    /// proportions (`D_j = D₀ fr_j² / μ²`, on which the cross-zone cost differences rest).
    fn cone_rows(rng: &mut impl FnMut() -> f64, dim: usize) -> ConstraintRows {
        let mut rows = ConstraintRows::new();
        let mu = 0.7 + 0.5 * rng();
        rows.contact_row_start.push(0);
        rows.contact_nrows.push(dim);
        rows.contact_dim.push(dim);
        rows.contact_mu.push(mu);
        let d0 = 6.0 + 5.0 * rng();
        for j in 0..dim {
            let fr = if j == 0 { mu } else { 0.6 + 0.5 * rng() };
            rows.kind.push(RowKind::ContactElliptic);
            rows.cone.push(Some(0));
            rows.mu.push(fr);
            rows.d.push(d0 * fr * fr / (mu * mu));
        }
        rows
    }

    /// `mj_constraintUpdate` of MuJoCo 4.0.1 on the elliptic contacts of `arm__elliptic.xml` (`testdata/
    /// mujoco_elliptic_update.txt`, `scripts/mujoco_arithmetic_reference.py`: 300 condim 3 contacts at random
    /// residuals, in all three zones) and on 175 condim 4 and 6 contacts of `sim/tests/data/rolling_condim.xml` in
    /// the middle zone: the cost, every force and, in the middle zone, the cone Hessian bit for bit. With the public
    /// source's `−f₀/T · U_j` and `μN/T³ U_j U_k` (not the unit tangent `U_j/T`) half of the first differed; with
    /// the curvature `(μN)/T` instead of `μ (N/T)`, a third of the condim 6 Hessians.
    #[test]
    fn elliptic_update_is_mujocos_bit_for_bit() {
        let mut zones = [0; 3];
        for (n, line) in include_str!("testdata/mujoco_elliptic_update.txt").lines().enumerate() {
            let v: Vec<f64> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
            let dim = v[0] as usize;
            let (mu, fr) = (v[1], &v[2..dim + 1]);
            let (d, jar) = (&v[dim + 1..2 * dim + 1], &v[2 * dim + 1..3 * dim + 1]);
            let (cost, force, h) = (v[3 * dim + 1], &v[3 * dim + 2..4 * dim + 2], &v[4 * dim + 2..]);
            let mut rows = ConstraintRows::new();
            rows.contact_nrows.push(dim);
            rows.contact_mu.push(mu);
            for j in 0..dim {
                rows.kind.push(RowKind::ContactElliptic);
                rows.cone.push(Some(0));
                rows.mu.push(if j == 0 { mu } else { fr[j - 1] });
                rows.d.push(d[j]);
            }
            let cone = Cone::at(&rows, 0);
            let mut ours: Vec<f64> = jar.iter().zip(d).map(|(x, d)| -d * x).collect();
            let mut hessian = [0.0; 36];
            let (state, c) = cone.update(&rows, jar, &mut ours, Some(&mut hessian));
            zones[match state {
                RowState::Inactive => 0,
                RowState::Quadratic => 1,
                _ => 2,
            }] += 1;
            assert_eq!(c.to_bits(), cost.to_bits(), "line {n}: cost {c} against {cost}");
            assert!(
                ours.iter().zip(force).all(|(a, b)| a.to_bits() == b.to_bits()),
                "line {n}: {ours:?} {force:?}"
            );
            assert_eq!(h.is_empty(), state != RowState::Cone, "line {n}: zone");
            assert!(
                h.iter().zip(&hessian).all(|(a, b)| a.to_bits() == b.to_bits()),
                "line {n}: {hessian:?} {h:?}"
            );
        }
        assert!(zones.iter().all(|&z| z > 20), "every zone is exercised: {zones:?}");
    }

    /// `PrimalEval`'s cost change across every pair of zones equals the difference of `mj_constraintUpdate`'s costs
    /// at `jar + α Jv` and `jar`, and its first derivative the central difference of that cost.
    #[test]
    fn elliptic_line_search_matches_the_constraint_cost() {
        let mut rng = uniform(7);
        let mut zones = std::collections::BTreeSet::new();
        for case in 0..3000 {
            let dim = [3, 4, 6][case % 3];
            let rows = cone_rows(&mut rng, dim);
            let cone = Cone::at(&rows, 0);
            let jar: Vec<f64> = (0..dim).map(|_| rng()).collect();
            let jv: Vec<f64> = (0..dim).map(|_| rng()).collect();
            let cost_at = |alpha: f64| {
                let x: Vec<f64> = jar.iter().zip(&jv).map(|(a, v)| a + alpha * v).collect();
                let mut force: Vec<f64> = x.iter().zip(&rows.d).map(|(x, d)| -d * x).collect();
                cone.update(&rows, &x, &mut force, None)
            };
            let q = cone.prepare(&rows, &jar, &jv);
            let alpha = 1.0 + 2.0 * rng();
            let (dif, d0, _) = cone.eval(&q, &jar, &jv, alpha);
            let ((z0, c0), (z1, c1)) = (cost_at(0.0), cost_at(alpha));
            zones.insert((z0 as u8, z1 as u8));
            assert!(
                (dif - (c1 - c0)).abs() <= 1e-9 * (1.0 + c0.abs() + c1.abs()),
                "case {case}: {dif} vs {}",
                c1 - c0
            );
            let h = 1e-6;
            let (za, ca) = cost_at(alpha - h);
            let (zb, cb) = cost_at(alpha + h);
            if za == z1 && zb == z1 {
                let fd = (cb - ca) / (2.0 * h);
                assert!((d0 - fd).abs() <= 1e-5 * (1.0 + fd.abs()), "case {case}: {d0} vs {fd}");
            }
        }
        assert_eq!(zones.len(), 9, "every pair of zones is exercised: {zones:?}");
    }
}
