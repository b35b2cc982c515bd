//! Robotics queries of a [`CollisionModel`] at the poses of its [`CollisionData`] (Coal convention: signed distance,
//! normal from A to B, A the lower geom index): the neutral-pose filter, [`min_distance`](CollisionModel::min_distance),
//! [`is_collision_free`](CollisionModel::is_collision_free) and
//! [`distances_within`](CollisionModel::distances_within). They apply the same pair filters as the contact pipeline
//! (allowed-collision matrix included) and run a second broad-phase instance on boxes grown by the query distance, so
//! far pairs are never measured. They have no pair budget: they produce no contacts.

use glam::DVec3;
use serde::{Deserialize, Serialize};
use signorini_geometry::{Aabb, Pose, Shape};

use super::data::{CollisionData, lock};
use super::model::CollisionModel;
use crate::broad::{BroadPhaseInput, GeomPair};
use crate::error::{CollisionError, Result};
use crate::filter::{PairRules, is_adjacent};
use crate::query::{
    CollisionRequest, DistanceRequest, DistanceResult, QueryWorkspace, collide_with, distance_with,
};

/// Slack (m) added to every box of a robotics query so that exactly touching shapes are candidates.
const QUERY_SLACK: f64 = 1e-9;

/// The signed distance of one geom pair (Coal convention: normal from A to B, negative when penetrating).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairDistance {
    /// Geom A (the lower index).
    pub geom_a: usize,
    /// Geom B.
    pub geom_b: usize,
    /// Body of A.
    pub body_a: usize,
    /// Body of B.
    pub body_b: usize,
    /// Distance, witnesses and normal.
    pub result: DistanceResult,
}

/// Largest extent, over the three axes, of the finite coordinates of all boxes (0 when there are none).
fn finite_span(aabbs: &[Aabb]) -> f64 {
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    for b in aabbs {
        for v in [b.min, b.max] {
            for k in 0..3 {
                if v[k].is_finite() {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
        }
    }
    (0..3).map(|k| if hi[k] >= lo[k] { hi[k] - lo[k] } else { 0.0 }).fold(0.0, f64::max)
}

impl CollisionModel {
    /// The neutral-pose rule (spec §A.2 rule 7): poses `data` at `neutral_body_poses` and, unless
    /// `enable_neutral_collision`, excludes every self-collision geom pair (same root, not adjacent) that penetrates
    /// deeper than 0.1% of the shapes' half diagonals there (Genesis shrinks each geom by 0.1% towards its centre and
    /// tests voxelised meshes; we use the exact signed distance instead). Replaces the previous neutral set; returns
    /// the excluded pairs. `data` stays posed at the neutral configuration.
    pub fn apply_neutral_filter(
        &mut self,
        data: &mut CollisionData,
        neutral_body_poses: &[Pose],
    ) -> Result<Vec<[usize; 2]>> {
        self.filter.neutral.clear();
        self.pruned_budget = std::sync::OnceLock::new();
        if self.options.enable_neutral_collision {
            return Ok(Vec::new());
        }
        self.update(data, neutral_body_poses)?;
        self.query_candidates(data, 0.0, PairRules::STRUCTURAL)?;
        let mut found = Vec::new();
        let mut ws = lock(&data.workspaces[0]);
        for &[i, j] in &data.query_pairs {
            let (i, j) = (i as usize, j as usize);
            let (a, b) = (self.geoms.body[i], self.geoms.body[j]);
            if self.bodies.root[a] != self.bodies.root[b]
                || (!self.options.enable_adjacent_collision && is_adjacent(&self.bodies, a, b))
            {
                continue;
            }
            let d = self.pair_distance(&data.geom_pose, &mut ws, i, j)?;
            let half_diag = |s: &Shape| {
                let d = s.local_aabb().diagonal_length();
                if d.is_finite() { 0.5 * d } else { 0.0 }
            };
            let shrink = 1e-3 * (half_diag(&self.geoms.shape[i]) + half_diag(&self.geoms.shape[j]));
            if d.result.distance < -shrink {
                found.push([i, j]);
            }
        }
        drop(ws);
        for &[i, j] in &found {
            self.filter.neutral.insert((i, j));
        }
        Ok(found)
    }

    /// Fills `data.query_pairs` with the filtered pairs (`[lo, hi]`, sorted) whose boxes, each grown by
    /// `inflate / 2`, overlap: every pair closer than `inflate` is among them.
    fn query_candidates(&self, data: &mut CollisionData, inflate: f64, rules: PairRules) -> Result<()> {
        self.require_updated(data)?;
        let grow = 0.5 * inflate + QUERY_SLACK;
        data.query_aabbs.clear();
        data.query_aabbs.extend(data.geom_aabb.iter().map(|b| b.expanded(grow)));
        let input = BroadPhaseInput::new(&data.query_aabbs, &self.geom_fixed)?;
        data.query_broad.find_pairs(&input, &mut data.query_candidates);
        data.query_candidates.sort_unstable();
        data.query_pairs.clear();
        for &[i, j] in &data.query_candidates {
            if self
                .filter
                .reason(&self.bodies, &self.geoms, &self.options, i as usize, j as usize, rules)
                .is_none()
            {
                data.query_pairs.push([i, j]);
            }
        }
        Ok(())
    }

    fn pair_distance(
        &self,
        poses: &[Pose],
        ws: &mut QueryWorkspace,
        i: usize,
        j: usize,
    ) -> Result<PairDistance> {
        let g = &self.geoms;
        let result =
            distance_with(ws, &g.shape[i], &poses[i], &g.shape[j], &poses[j], &DistanceRequest::default())
                .map_err(|e| CollisionError::Pair { geom_a: i, geom_b: j, source: Box::new(e) })?;
        Ok(PairDistance { geom_a: i, geom_b: j, body_a: g.body[i], body_b: g.body[j], result })
    }

    /// The smallest signed distance over all pairs that pass the filters (allowed-collision matrix included), with
    /// the pair that achieves it (the first in geom order on ties); `None` when no pair passes. The broad phase is
    /// run on boxes grown by a radius `r` (first 0, then growing) until the best pair found is closer than `r`, so
    /// far pairs are never measured.
    pub fn min_distance(&self, data: &mut CollisionData) -> Result<Option<PairDistance>> {
        self.require_updated(data)?;
        let span = finite_span(&data.geom_aabb);
        let mut r = 0.0;
        loop {
            self.query_candidates(data, r, PairRules::ALL)?;
            let mut best: Option<PairDistance> = None;
            {
                let mut ws = lock(&data.workspaces[0]);
                for &[i, j] in &data.query_pairs {
                    let d = self.pair_distance(&data.geom_pose, &mut ws, i as usize, j as usize)?;
                    if best.is_none_or(|b| d.result.distance < b.result.distance) {
                        best = Some(d);
                    }
                }
            }
            match best {
                Some(b) if b.result.distance <= r => return Ok(Some(b)),
                Some(b) => r = b.result.distance,
                None if r > span => return Ok(None),
                None => r = if r == 0.0 { (span / 16.0).max(1e-6) } else { 4.0 * r },
            }
        }
    }

    /// Whether no pair that passes the filters is within `security_margin` (m, finite; negative values require a
    /// penetration deeper than `−security_margin`). Stops at the first colliding pair.
    pub fn is_collision_free(&self, data: &mut CollisionData, security_margin: f64) -> Result<bool> {
        if !security_margin.is_finite() {
            return Err(CollisionError::InvalidRequest {
                what: format!("security_margin must be finite, got {security_margin}"),
            });
        }
        self.query_candidates(data, security_margin.max(0.0), PairRules::ALL)?;
        let request = CollisionRequest { security_margin, max_contacts: 0, ..CollisionRequest::default() };
        let mut ws = lock(&data.workspaces[0]);
        for &[i, j] in &data.query_pairs {
            if self.collides(&data.geom_pose, &mut ws, i as usize, j as usize, &request)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Every pair that passes the filters with signed distance `< d_act` (the activation distance of seed 004 §7.4;
    /// finite, ≥ 0), in geom order, into `out` (cleared first).
    pub fn distances_within(
        &self,
        data: &mut CollisionData,
        d_act: f64,
        out: &mut Vec<PairDistance>,
    ) -> Result<()> {
        out.clear();
        if !(d_act >= 0.0 && d_act.is_finite()) {
            return Err(CollisionError::InvalidRequest {
                what: format!("activation distance must be finite and ≥ 0, got {d_act}"),
            });
        }
        self.query_candidates(data, d_act, PairRules::ALL)?;
        let mut ws = lock(&data.workspaces[0]);
        for &[i, j] in &data.query_pairs {
            let d = self.pair_distance(&data.geom_pose, &mut ws, i as usize, j as usize)?;
            if d.result.distance < d_act {
                out.push(d);
            }
        }
        Ok(())
    }

    fn collides(
        &self,
        poses: &[Pose],
        ws: &mut QueryWorkspace,
        i: usize,
        j: usize,
        request: &CollisionRequest,
    ) -> Result<bool> {
        let g = &self.geoms;
        collide_with(ws, &g.shape[i], &poses[i], &g.shape[j], &poses[j], request)
            .map(|r| r.colliding)
            .map_err(|e| CollisionError::Pair { geom_a: i, geom_b: j, source: Box::new(e) })
    }

    /// Every pair passing `rules` that collides (signed distance ≤ 0) at the current poses, into `out`.
    pub(crate) fn colliding_pairs(
        &self,
        data: &mut CollisionData,
        rules: PairRules,
        out: &mut Vec<GeomPair>,
    ) -> Result<()> {
        out.clear();
        self.query_candidates(data, 0.0, rules)?;
        let request =
            CollisionRequest { security_margin: 0.0, max_contacts: 0, ..CollisionRequest::default() };
        let mut ws = lock(&data.workspaces[0]);
        for &[i, j] in &data.query_pairs {
            if self.collides(&data.geom_pose, &mut ws, i as usize, j as usize, &request)? {
                out.push([i, j]);
            }
        }
        Ok(())
    }
}
