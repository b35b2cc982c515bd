//! Motion validation: is the straight joint-space segment `q(t) = q0 + t (q1 − q0)`, `t ∈ [0, 1]`, free of
//! collision? Answered by conservative advancement, not by sampling at a fixed resolution.
//!
//! **Bound.** For an enabled pair on links `A` and `B`, only the joints on exactly one of the two chains change their
//! distance (a joint above both moves them rigidly together). A revolute joint `k` moves any point of a geometry
//! below it at most `r_k · |q̇_k|`, where `r_k` bounds the distance from the joint's axis to the geometry: the
//! lengths of the link offsets from `k` down to the geometry's link, the prismatic travel on that path, and the
//! geometry's radius about its link origin. A prismatic joint moves it at most `|q̇_k|`. Along the segment the
//! pair's distance therefore falls at most at the rate `μ = Σ_k w_k |Δq_k|` per unit of `t`, and a pair at distance
//! `d` at `t` is free on `[t, t + d/μ)`.
//!
//! **Advancement.** Each pair keeps the fraction up to which it is certified free; the smallest is advanced: the
//! pair is measured there and either certified further, or found within `tolerance` — the first colliding fraction.

use crate::error::{Result, RobotError};
use crate::kinematics::{Coordinate, Motion};
use crate::model::RobotModel;
use crate::queries::RobotData;

/// Settings of [`RobotModel::check_motion`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotionSettings {
    /// A pair at a distance `≤ tolerance` (m) counts as colliding. Default 1e-6.
    pub tolerance: f64,
    /// Most pair measurements before giving up ([`MotionCheck::Undecided`]). Default 100 000.
    pub max_measurements: usize,
}

impl Default for MotionSettings {
    fn default() -> Self {
        Self { tolerance: 1e-6, max_measurements: 100_000 }
    }
}

/// The answer of [`RobotModel::check_motion`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MotionCheck {
    /// No enabled pair comes within `tolerance` anywhere on the segment.
    Free {
        /// Pair distances measured.
        measurements: usize,
    },
    /// The segment is free before `fraction`, and pair `pair` is within `tolerance` at `fraction`.
    Collision {
        /// `t ∈ [0, 1]`.
        fraction: f64,
        /// Index into [`RobotModel::pairs`].
        pair: usize,
        /// Pair distances measured.
        measurements: usize,
    },
    /// `max_measurements` ran out: the segment is free before `certified`, undecided after it (a grazing contact).
    Undecided {
        /// Fraction certified free.
        certified: f64,
    },
}

impl RobotModel {
    /// For every enabled pair, the rate bound `w_k` of each configuration variable (see the module docs), as
    /// `(variable, w)` lists.
    pub(crate) fn pair_motion_weights(&self) -> Vec<Vec<(usize, f64)>> {
        let chain = &self.chain;
        // Bound on the distance from link `k`'s origin to any point of geometry `g` below it.
        let reach = |k: usize, g: usize| {
            let mut r = self.geoms[g].link_radius;
            let mut l = self.geoms[g].link;
            while l != k {
                let link = &chain.links[l];
                r += link.placement.translation.length();
                if let Motion::Prismatic { .. } = link.motion {
                    r += match link.coordinate {
                        Coordinate::Constant(c) => c.abs(),
                        Coordinate::Variable { variable, multiplier, offset } => {
                            let [lo, hi] = self.joint_limits()[variable];
                            (offset + multiplier * lo).abs().max((offset + multiplier * hi).abs())
                        }
                    };
                }
                l = link.parent.expect("k is an ancestor of the geometry's link");
            }
            r
        };
        self.pairs
            .iter()
            .map(|&[a, b]| {
                let (la, lb) = (self.geoms[a].link, self.geoms[b].link);
                let mut w: Vec<(usize, f64)> = Vec::new();
                for (g, own, other) in [(a, la, lb), (b, lb, la)] {
                    for &k in &chain.ancestors[own] {
                        if chain.ancestors[other].contains(&k) {
                            continue;
                        }
                        let Coordinate::Variable { variable, multiplier, .. } = chain.links[k].coordinate
                        else {
                            continue;
                        };
                        let rate = match chain.links[k].motion {
                            Motion::Prismatic { .. } => 1.0,
                            _ => reach(k, g),
                        };
                        w.push((variable, multiplier.abs() * rate));
                    }
                }
                w
            })
            .collect()
    }

    /// Whether the straight segment from `q0` to `q1` is free (see the module docs). `data` is left posed at the
    /// last configuration measured.
    pub fn check_motion(
        &self,
        data: &mut RobotData,
        q0: &[f64],
        q1: &[f64],
        settings: &MotionSettings,
    ) -> Result<MotionCheck> {
        self.check_configuration(q0, 0)?;
        self.check_configuration(q1, 1)?;
        if !(settings.tolerance >= 0.0 && settings.tolerance.is_finite()) {
            return Err(RobotError::InvalidArgument {
                what: format!("the motion tolerance must be finite and ≥ 0, got {}", settings.tolerance),
            });
        }
        // The scratch lives in `data` (no allocation after the first check); `safe[p]`: pair p is certified free
        // on [0, safe[p]).
        let (mut rates, mut safe, mut q) = (
            std::mem::take(&mut data.motion_rate),
            std::mem::take(&mut data.motion_safe),
            std::mem::take(&mut data.motion_q),
        );
        rates.clear();
        rates.extend(
            self.motion_weights
                .iter()
                .map(|w| w.iter().map(|&(v, wk)| wk * (q1[v] - q0[v]).abs()).sum::<f64>()),
        );
        safe.clear();
        safe.resize(self.pairs.len(), 0.0);
        q.clear();
        q.extend_from_slice(q0);
        let answer = self.advance(data, q0, q1, settings, &rates, &mut safe, &mut q);
        (data.motion_rate, data.motion_safe, data.motion_q) = (rates, safe, q);
        answer
    }

    /// The advancement loop of [`RobotModel::check_motion`] over its scratch.
    #[allow(clippy::too_many_arguments)]
    fn advance(
        &self,
        data: &mut RobotData,
        q0: &[f64],
        q1: &[f64],
        settings: &MotionSettings,
        rates: &[f64],
        safe: &mut [f64],
        q: &mut [f64],
    ) -> Result<MotionCheck> {
        let mut measurements = 0;
        loop {
            let t = safe.iter().copied().fold(f64::INFINITY, f64::min);
            if t > 1.0 {
                return Ok(MotionCheck::Free { measurements });
            }
            for (qi, (a, b)) in q.iter_mut().zip(q0.iter().zip(q1)) {
                *qi = a + t * (b - a);
            }
            self.forward_unchecked(data, q);
            for p in 0..self.pairs.len() {
                if safe[p] != t {
                    continue;
                }
                if measurements == settings.max_measurements {
                    return Ok(MotionCheck::Undecided { certified: t });
                }
                measurements += 1;
                let d = self.pair_distance(data, p)?.distance;
                if d <= settings.tolerance {
                    return Ok(MotionCheck::Collision { fraction: t, pair: p, measurements });
                }
                safe[p] = if rates[p] > 0.0 { t + d / rates[p] } else { f64::INFINITY };
            }
        }
    }
}
