//! Queries at one configuration: self-collision with early exit, the distance of every enabled pair, the minimum
//! distance, the pairs within an activation distance, and ∂distance/∂q.
//!
//! **Conventions** (Coal, spec §3). For a pair `[a, b]`, `distance` is signed for convex geometry (negative: minus
//! the penetration depth) and unsigned for a triangle-mesh pair (0 when the surfaces cross); `point_a`, `point_b` are
//! the witness points on `a` and `b` (world frame), `normal` the unit vector from `a` to `b`, and
//! `point_b − point_a = distance · normal`. A pair is in collision when its distance is `≤ 0`. A triangle-mesh pair
//! whose surfaces cross has no witness and no gradient (as Coal gives none).
//!
//! **Gradient.** With the witness points fixed to their links, `∂d/∂q_v = n · (J_b(p_b) − J_a(p_a))_v`, where `J_l(p)`
//! is the world-frame point Jacobian of link `l` (columns `axis × (p − anchor)` for a revolute joint, `axis` for a
//! prismatic one, times the mimic multiplier). The tests compare it with central finite differences.

use glam::DVec3;
use signorini_collision::query::{
    CollisionRequest, DistanceRequest, QueryWorkspace, collide_with, distance_with,
};
use signorini_geometry::{Aabb, Pose, Shape};

use crate::error::Result;
use crate::kinematics::Coordinate;
use crate::model::RobotModel;

/// Witness points and normal of a pair distance (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Witness {
    /// On geometry `a`, world frame.
    pub point_a: DVec3,
    /// On geometry `b`, world frame.
    pub point_b: DVec3,
    /// Unit normal from `a` to `b`.
    pub normal: DVec3,
}

/// The distance of one enabled pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairDistance {
    /// Index into [`RobotModel::pairs`].
    pub pair: usize,
    /// `distance ≤ 0`.
    pub collision: bool,
    /// Signed (convex) or unsigned (triangle mesh) distance, m.
    pub distance: f64,
    /// Witnesses; `None` for a triangle-mesh pair whose surfaces cross.
    pub witness: Option<Witness>,
}

/// What queries write: link and geometry poses, world boxes, and the narrow phase's scratch memory. Make one per
/// thread with [`RobotModel::data`]; a query reuses it without allocating.
#[derive(Debug, Clone)]
pub struct RobotData {
    pub(crate) links: Vec<Pose>,
    pub(crate) geom_pose: Vec<Pose>,
    /// World box of each geometry.
    pub(crate) geom_box: Vec<Aabb>,
    pub(crate) ws: QueryWorkspace,
    /// Motion checks' scratch: per pair the approach-rate bound and the certified fraction, and the configuration.
    pub(crate) motion_rate: Vec<f64>,
    pub(crate) motion_safe: Vec<f64>,
    pub(crate) motion_q: Vec<f64>,
}

impl RobotData {
    /// World pose of each link at the last configuration.
    pub fn link_poses(&self) -> &[Pose] {
        &self.links
    }

    /// World pose of each geometry at the last configuration.
    pub fn geom_poses(&self) -> &[Pose] {
        &self.geom_pose
    }
}

impl RobotModel {
    /// A fresh [`RobotData`] for this model.
    pub fn data(&self) -> RobotData {
        RobotData {
            links: vec![Pose::IDENTITY; self.chain.links.len()],
            geom_pose: vec![Pose::IDENTITY; self.geoms.len()],
            geom_box: vec![Aabb::new(DVec3::ZERO, DVec3::ZERO); self.geoms.len()],
            ws: QueryWorkspace::default(),
            motion_rate: Vec::with_capacity(self.pairs.len()),
            motion_safe: Vec::with_capacity(self.pairs.len()),
            motion_q: Vec::with_capacity(self.nq()),
        }
    }

    /// Forward kinematics at `q`: link and geometry poses and world boxes into `data`. Errors: a `q` of the wrong
    /// length or with a non-finite entry.
    pub fn forward(&self, data: &mut RobotData, q: &[f64]) -> Result<()> {
        self.check_configuration(q, 0)?;
        self.forward_unchecked(data, q);
        Ok(())
    }

    pub(crate) fn forward_unchecked(&self, data: &mut RobotData, q: &[f64]) {
        self.forward_poses(data, q);
        for (g, geom) in self.geoms.iter().enumerate() {
            data.geom_box[g] = geom.local_box.transformed_corners_bound(&data.geom_pose[g]);
        }
    }

    /// Link and geometry poses only (the queries that measure every pair need no boxes).
    fn forward_poses(&self, data: &mut RobotData, q: &[f64]) {
        self.chain.forward(q, &mut data.links);
        for (g, geom) in self.geoms.iter().enumerate() {
            let link = &data.links[geom.link];
            data.geom_pose[g] = if geom.local == Pose::IDENTITY { *link } else { link.compose(&geom.local) };
        }
    }

    /// The shapes and poses of pair `p`, with the query workspace. The poses are borrowed, not copied: a copy
    /// written by 16-byte moves and read back at other offsets stalled every query on store forwarding.
    fn pair_shapes<'d>(
        &'d self,
        data: &'d mut RobotData,
        p: usize,
    ) -> (&'d mut QueryWorkspace, &'d Shape, &'d Pose, &'d Shape, &'d Pose) {
        let [a, b] = self.pairs[p];
        (&mut data.ws, &self.geoms[a].shape, &data.geom_pose[a], &self.geoms[b].shape, &data.geom_pose[b])
    }

    fn is_mesh_pair(&self, p: usize) -> bool {
        let [a, b] = self.pairs[p];
        [a, b].iter().any(|&g| matches!(self.geoms[g].shape, Shape::TriangleMesh(_)))
    }

    /// The distance of pair `p` at the poses in `data`.
    pub(crate) fn pair_distance(&self, data: &mut RobotData, p: usize) -> Result<PairDistance> {
        let (ws, sa, pa, sb, pb) = self.pair_shapes(data, p);
        let r = distance_with(ws, sa, pa, sb, pb, &DistanceRequest::default())?;
        let witness = (r.distance > 0.0 || !self.is_mesh_pair(p)).then_some(Witness {
            point_a: r.point_a,
            point_b: r.point_b,
            normal: r.normal,
        });
        Ok(PairDistance { pair: p, collision: r.distance <= 0.0, distance: r.distance, witness })
    }

    /// Whether any enabled pair is in collision at `q` (stops at the first).
    pub fn is_colliding(&self, data: &mut RobotData, q: &[f64]) -> Result<bool> {
        Ok(self.first_collision(data, q)?.is_some())
    }

    /// The first enabled pair (in [`RobotModel::pairs`] order) in collision at `q`, if any.
    pub fn first_collision(&self, data: &mut RobotData, q: &[f64]) -> Result<Option<usize>> {
        self.forward(data, q)?;
        let request =
            CollisionRequest { security_margin: 0.0, max_contacts: 0, ..CollisionRequest::default() };
        for (p, &[a, b]) in self.pairs.iter().enumerate() {
            if data.geom_box[a].distance(&data.geom_box[b]) > 0.0 {
                continue;
            }
            let (ws, sa, pa, sb, pb) = self.pair_shapes(data, p);
            if collide_with(ws, sa, pa, sb, pb, &request)?.colliding {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }

    /// The distance of every enabled pair at `q`, in pair order, into `out` (cleared first).
    pub fn distances(&self, data: &mut RobotData, q: &[f64], out: &mut Vec<PairDistance>) -> Result<()> {
        self.check_configuration(q, 0)?;
        self.forward_poses(data, q);
        out.clear();
        for p in 0..self.pairs.len() {
            out.push(self.pair_distance(data, p)?);
        }
        Ok(())
    }

    /// The pair with the smallest distance at `q` (`None` when no pair is enabled; the first pair on ties). Pairs
    /// whose boxes are farther apart than the best distance so far are not measured.
    pub fn min_distance(&self, data: &mut RobotData, q: &[f64]) -> Result<Option<PairDistance>> {
        self.forward(data, q)?;
        let mut best: Option<PairDistance> = None;
        for (p, &[a, b]) in self.pairs.iter().enumerate() {
            // Boxes apart bound the distance from below; overlapping boxes bound nothing (it may be negative).
            let bound = data.geom_box[a].distance(&data.geom_box[b]);
            if bound > 0.0 && best.is_some_and(|d| bound >= d.distance) {
                continue;
            }
            let d = self.pair_distance(data, p)?;
            if best.is_none_or(|b| d.distance < b.distance) {
                best = Some(d);
            }
        }
        Ok(best)
    }

    /// The pairs whose distance at `q` is `≤ d_act` (m), in pair order, into `out` (cleared first). Pairs whose boxes
    /// are farther apart than `d_act` are not measured.
    pub fn distances_within(
        &self,
        data: &mut RobotData,
        q: &[f64],
        d_act: f64,
        out: &mut Vec<PairDistance>,
    ) -> Result<()> {
        if !d_act.is_finite() {
            return Err(crate::RobotError::InvalidArgument {
                what: format!("the activation distance must be finite, got {d_act}"),
            });
        }
        self.forward(data, q)?;
        out.clear();
        for (p, &[a, b]) in self.pairs.iter().enumerate() {
            if data.geom_box[a].distance(&data.geom_box[b]) > d_act {
                continue;
            }
            let d = self.pair_distance(data, p)?;
            if d.distance <= d_act {
                out.push(d);
            }
        }
        Ok(())
    }

    /// `∂distance/∂q` of one pair distance measured at the poses now in `data`, into `grad` (`nq` entries). Returns
    /// `false` (and leaves `grad` untouched) when the distance has no witness.
    pub fn pair_gradient(&self, data: &RobotData, d: &PairDistance, grad: &mut [f64]) -> bool {
        let Some(w) = d.witness else {
            return false;
        };
        grad.fill(0.0);
        let [a, b] = self.pairs[d.pair];
        for (link, point, sign) in
            [(self.geoms[a].link, w.point_a, -1.0), (self.geoms[b].link, w.point_b, 1.0)]
        {
            for &k in &self.chain.ancestors[link] {
                if let Coordinate::Variable { variable, multiplier, .. } = self.chain.links[k].coordinate {
                    let column = self.chain.point_jacobian_column(&data.links, k, point);
                    grad[variable] += sign * multiplier * w.normal.dot(column);
                }
            }
        }
        true
    }

    /// The distances of every enabled pair at `q` (as [`RobotModel::distances`]) and their gradients: `grad` is
    /// `pairs × nq`, row-major, with a row of NaN for a pair without a witness.
    pub fn distance_gradients(
        &self,
        data: &mut RobotData,
        q: &[f64],
        out: &mut Vec<PairDistance>,
        grad: &mut Vec<f64>,
    ) -> Result<()> {
        self.distances(data, q, out)?;
        let nq = self.nq();
        grad.clear();
        grad.resize(out.len() * nq, f64::NAN);
        for (d, row) in out.iter().zip(grad.chunks_mut(nq.max(1))) {
            self.pair_gradient(data, d, row);
        }
        Ok(())
    }
}
