//! The dialect seam: which contact semantics a world follows, as one trait with one implementation per dialect.
//!
//! signorini speaks two collision dialects (spec §2): **native** (Genesis: MPR with portal-plane depth refined by
//! GJK/EPA, perturbation multi-contact, mean parameter mixing) and **MuJoCo-compatible** (MuJoCo 4.0's dedicated
//! pair functions, MPR with portal-triangle depth, one contact where MuJoCo has no routine, priority/`solmix`
//! mixing, margin-inflated boxes). Each is a [`PairDispatcher`], in the spirit of parry's `QueryDispatcher`:
//! [`NativeDispatcher`] ([`native`]) and [`MujocoDispatcher`] ([`mujoco`]). A world picks one once, from its
//! [`Dialect`]; no stage tests a mode flag. `docs/NARROW_PHASE.md` has one dispatch table per dialect.
//!
//! **Hot loops.** A world holds an `Arc<dyn PairDispatcher>` but never makes a virtual call per pair or per geom:
//! [`PairDispatcher::contacts_batch`] and [`PairDispatcher::world_aabbs`] are provided methods, compiled once per
//! implementation, whose loops call the implementation's methods statically; parameter mixing is a plain
//! [`ParamMixing`] value read once per step.

pub mod mujoco;
pub mod native;

use std::fmt::Debug;
use std::sync::Arc;

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};
use signorini_geometry::{Aabb, Pose, Shape};

use crate::broad::GeomPair;
use crate::contact::Manifold;
use crate::contact_set::{GeomContactParams, MixedParams};
use crate::error::{CollisionError, Result};
use crate::query::{ContactRequest, QueryWorkspace, validate_pose, with_workspace};

pub use mujoco::MujocoDispatcher;
pub use native::NativeDispatcher;

/// Which contact semantics a world follows (spec §2). Its only use is to construct the dispatcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    /// Genesis semantics: [`NativeDispatcher`].
    #[default]
    Native,
    /// MuJoCo 4.0's semantics: [`MujocoDispatcher`].
    Mujoco,
}

impl Dialect {
    /// The dispatcher of this dialect.
    pub fn dispatcher(self) -> Arc<dyn PairDispatcher> {
        match self {
            Self::Native => Arc::new(NativeDispatcher),
            Self::Mujoco => Arc::new(MujocoDispatcher),
        }
    }
}

/// A dialect's rule for mixing the contact parameters of two geoms (spec §A.15/§B.10): plain data, so a merge
/// reads it once and mixes every pair without a virtual call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamMixing {
    /// Genesis: [`native::mix_params`] (max friction floored at 0.01, mean `solref`/`solimp`).
    Genesis,
    /// MuJoCo: [`mujoco::mix_params`] (`priority` wins, else max friction and `solmix`-weighted means).
    Mujoco,
}

impl ParamMixing {
    /// The mixed parameters of geoms A and B under this rule.
    #[inline]
    pub fn mix(self, a: &GeomContactParams, b: &GeomContactParams) -> MixedParams {
        match self {
            Self::Genesis => native::mix_params(a, b),
            Self::Mujoco => mujoco::mix_params(a, b),
        }
    }
}

/// The geoms a batch of pairs indexes into (one entry per geom, world frame).
#[derive(Debug, Clone, Copy)]
pub struct BatchGeoms<'a> {
    /// Shape of each geom, in its geom frame.
    pub shapes: &'a [Shape],
    /// World pose of each geom.
    pub poses: &'a [Pose],
    /// Margin and gap of each geom (m); a pair's request carries the dialect's
    /// [`detection_margin`](PairDispatcher::detection_margin) of its two geoms' `margin + gap`.
    pub margins: &'a [f64],
    /// See `margins`.
    pub gaps: &'a [f64],
    /// Per geom, a convex hull that replaces its shape in every pair where both geoms have one (box–box pairs as
    /// convex meshes, when a world turns the analytic box–box routine off); `None`: shapes are used as they are.
    pub hulls: Option<&'a [Option<Shape>]>,
    /// Per geom, its perturbation frame in its geom frame (a pair's request carries its two geoms' as
    /// [`ContactRequest::frames`]); empty: every geom's frame is its geom frame.
    pub frames: &'a [DQuat],
}

/// One pair's input and output in a batch: the pair's cached normal in, its manifold or error out.
#[derive(Debug, Clone, Default)]
pub struct PairSlot {
    /// The contact manifold (simulator convention), cleared before the pair runs.
    pub manifold: Manifold,
    /// The pair's normal from the previous step (B → A), the request's `cached_normal`.
    pub cached_normal: Option<DVec3>,
    /// The pair's error, if the dispatcher could not answer it (the manifold is then empty or partial); boxed, as
    /// errors are rare and a slot is kept per pair.
    pub error: Option<Box<CollisionError>>,
    /// The detection margin of an explicit pair (its own margin plus gap), replacing the geoms'.
    pub margin: Option<f64>,
}

/// Pair dispatch of one dialect: for a pair of posed shapes, which routine answers the contact manifold, and the
/// dialect's other collision rules (parameter mixing, geom boxes, request defaults).
///
/// **Why a trait.** The two dialects of spec §2 differ in their narrow phase and in a few rules around it. Each is
/// one implementation chosen when a world is built ([`Dialect::dispatcher`]), as parry lets a `QueryDispatcher` be
/// swapped, instead of a mode flag tested inside the stages.
///
/// **Conventions.** Poses are world poses of the geom frames (unit quaternions); contacts follow the simulator
/// convention of [`crate::contact`]: normal from B to A, `penetration ≥ 0`, position midway between the surfaces.
/// Inside, implementations dispatch with a `match` on the pair of shape kinds (see `docs/NARROW_PHASE.md`).
///
/// **Unsupported pairs.** A pair the dialect has no routine for (anything with a triangle mesh — the distance
/// table treats meshes as surfaces, with no penetration to make contacts of — or a height field, plane–plane) returns [`CollisionError::Unsupported`]; nothing panics. The MuJoCo dispatcher answers pairs
/// MuJoCo 4.0 has no dedicated function for with the native table under its own rules (one contact by MPR).
///
/// **Thread safety.** Implementations are `Send + Sync` and stateless per query: all scratch lives in the
/// [`QueryWorkspace`] passed in, so one dispatcher serves every thread of a parallel narrow phase.
pub trait PairDispatcher: Debug + Send + Sync {
    /// Appends the contact manifold of A and B to `out`, for poses and a request already checked (use
    /// [`contacts_into`](Self::contacts_into) otherwise). Errors: [`CollisionError::Unsupported`].
    #[allow(clippy::too_many_arguments)]
    fn append_contacts(
        &self,
        ws: &mut QueryWorkspace,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        request: &ContactRequest,
        out: &mut Manifold,
    ) -> Result<()>;

    /// The request this dialect's contacts start from (relative tolerance 1e-2 native, 1e-3 MuJoCo, spec §A.9).
    fn default_request(&self) -> ContactRequest;

    /// The dialect's parameter-mixing rule.
    fn param_mixing(&self) -> ParamMixing;

    /// Whether the dialect prunes coplanar contacts to their support polygon ([`crate::prune`], spec §A.16):
    /// Genesis does (G-W), MuJoCo has no pruning.
    fn prunes_contacts(&self) -> bool {
        true
    }

    /// The dialect's own type rank of a shape, which orders a pair's geoms for the narrow phase where both geoms have
    /// one (geom A the lower rank, ties by the lower index); pairs with a geom without one are ordered by shape kind
    /// (spec §0.2: plane first). None natively. Read once per geom when the collision model is built, not per pair.
    fn type_rank(&self, shape: &Shape) -> Option<u8> {
        let _ = shape;
        None
    }

    /// Whether the contacts of one pair keep the order the pair's routine made them in (MuJoCo's contact list), or
    /// are ordered by their frame key (spec §A.16, Genesis). Pairs are ordered by links and geoms either way.
    fn keeps_generation_order(&self) -> bool {
        false
    }

    /// The distance (m) within which a pair of geoms reports contacts before touching, from each geom's reach
    /// `margin + gap`: none natively (Genesis has no margin), the sum in MuJoCo's dialect (MuJoCo 4.0 detects within
    /// the summed margins plus the summed gaps; contacts beyond the margin make no constraint rows).
    fn detection_margin(&self, reach_a: f64, reach_b: f64) -> f64 {
        let _ = (reach_a, reach_b);
        0.0
    }

    /// The world AABB of a geom of reach `margin ≥ 0` (m, its margin plus gap) at `pose`: the exact box, inflated by
    /// the reach in the dialects that detect contacts within it (MuJoCo).
    fn world_aabb(&self, shape: &Shape, pose: &Pose, margin: f64) -> Aabb;

    /// The mixed contact parameters of geoms A and B ([`param_mixing`](Self::param_mixing) applied).
    fn mix_params(&self, a: &GeomContactParams, b: &GeomContactParams) -> MixedParams {
        self.param_mixing().mix(a, b)
    }

    /// The contact manifold of A and B into a reused manifold (cleared first) with an explicit workspace.
    /// Errors: [`CollisionError::InvalidPose`] for a non-finite pose or non-unit rotation;
    /// [`CollisionError::InvalidRequest`] for a negative or non-finite tolerance;
    /// [`CollisionError::Unsupported`].
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn contacts_into(
        &self,
        ws: &mut QueryWorkspace,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        request: &ContactRequest,
        out: &mut Manifold,
    ) -> Result<()> {
        validate_pose(pose_a, "A")?;
        validate_pose(pose_b, "B")?;
        let valid = |x: f64| x >= 0.0 && x.is_finite();
        if !valid(request.tolerance) {
            return Err(CollisionError::InvalidRequest {
                what: format!("tolerance must be finite and ≥ 0, got {}", request.tolerance),
            });
        }
        out.contacts.clear();
        out.tangent = DVec3::ZERO;
        self.append_contacts(ws, a, pose_a, b, pose_b, request, out)
    }

    /// The contact manifold of A and B (a per-thread workspace; errors as [`contacts_into`](Self::contacts_into)).
    fn contacts(
        &self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        request: &ContactRequest,
    ) -> Result<Manifold> {
        let mut m = Manifold::new();
        with_workspace(|ws| self.contacts_into(ws, a, pose_a, b, pose_b, request, &mut m))?;
        Ok(m)
    }

    /// The contacts of a batch of pairs, one virtual call for the whole batch: pair `k` is `pairs[k] = [A, B]`
    /// (indices into `geoms`) and writes `slots[k]` (extra pairs or slots are ignored). Each pair runs
    /// [`contacts_into`](Self::contacts_into) with `request`, its slot's cached normal and the pair's
    /// [`detection_margin`](Self::detection_margin); an error stays in the slot and the batch goes on.
    fn contacts_batch(
        &self,
        ws: &mut QueryWorkspace,
        geoms: &BatchGeoms<'_>,
        request: &ContactRequest,
        pairs: &[GeomPair],
        slots: &mut [PairSlot],
    ) {
        for (slot, &[a, b]) in slots.iter_mut().zip(pairs) {
            let (a, b) = (a as usize, b as usize);
            let (mut sa, mut sb) = (&geoms.shapes[a], &geoms.shapes[b]);
            if let Some(hulls) = geoms.hulls
                && let (Some(ha), Some(hb)) = (&hulls[a], &hulls[b])
            {
                (sa, sb) = (ha, hb);
            }
            let reach = |g: usize| {
                geoms.margins.get(g).copied().unwrap_or(0.0) + geoms.gaps.get(g).copied().unwrap_or(0.0)
            };
            let margin = slot.margin.unwrap_or_else(|| self.detection_margin(reach(a), reach(b)));
            let frame = |g: usize| geoms.frames.get(g).copied().unwrap_or(DQuat::IDENTITY);
            let request = ContactRequest {
                cached_normal: slot.cached_normal,
                margin,
                frames: [frame(a), frame(b)],
                ..*request
            };
            slot.error = self
                .contacts_into(ws, sa, &geoms.poses[a], sb, &geoms.poses[b], &request, &mut slot.manifold)
                .err()
                .map(Box::new);
        }
    }

    /// World AABBs of many geoms, one virtual call: `out[i] = world_aabb(shapes[i], poses[i], margins[i] + gaps[i])`
    /// over the shortest of the slices.
    fn world_aabbs(&self, shapes: &[Shape], poses: &[Pose], margins: &[f64], gaps: &[f64], out: &mut [Aabb]) {
        for ((((aabb, shape), pose), &margin), &gap) in
            out.iter_mut().zip(shapes).zip(poses).zip(margins).zip(gaps)
        {
            *aabb = self.world_aabb(shape, pose, margin + gap);
        }
    }
}
