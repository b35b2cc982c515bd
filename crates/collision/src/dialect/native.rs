//! The native dialect (Genesis semantics, spec §2): [`NativeDispatcher`].
//!
//! - **Contacts**: the contact table of `dispatch.rs` (closed forms, Genesis's analytic capsule–capsule, analytic
//!   box–box, plane–box corners); other convex pairs get one contact by MPR with portal-plane depth, recomputed by
//!   GJK/EPA when deep or without a cached normal (spec §A.8), then Genesis 1.4.5's perturbation contacts
//!   (`crate::multi_contact`). Absolute tolerance:
//!   `tolerance · ½ · min(local AABB diagonals)`.
//! - **Mixing** ([`mix_params`]): `friction = max(μ_A, μ_B, 0.01)` (sliding), torsional and rolling `max`,
//!   `solref`/`solimp` the plain mean, `condim`/`margin`/`gap` the max (recorded; native contacts ignore
//!   margin/gap).
//! - **Boxes**: the exact world AABB; the geom margin does not inflate it.
//! - **Request**: [`ContactRequest::default`] (relative tolerance 1e-2).

use signorini_geometry::{Aabb, Pose, Shape};

use super::{PairDispatcher, ParamMixing};
use crate::contact::Manifold;
use crate::contact_set::{GeomContactParams, MixedParams};
use crate::dispatch::{self, ContactRules};
use crate::error::Result;
use crate::narrow::mpr::MprSettings;
use crate::query::{ContactRequest, QueryWorkspace};

/// The friction floor of spec §A.15 (native mixing).
pub const FRICTION_FLOOR: f64 = 1e-2;

/// Pair dispatch with Genesis semantics (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NativeDispatcher;

/// The native rules of the contact table.
#[inline]
fn rules() -> ContactRules {
    ContactRules {
        mpr: MprSettings::default(),
        refine_deep_mpr: true,
        mpr_relative_tolerance: Some(MPR_RELATIVE_TOLERANCE),
        perturbations: true,
        tolerance_size: half_diagonal,
        smooth_positions: true,
        plane_grazing_band: Some(GRAZING_BAND),
    }
}

/// Genesis 1.4.5's MPR tolerance outside MuJoCo compatibility (`CCD_TOLERANCE`), relative to the pair's scale.
pub const MPR_RELATIVE_TOLERANCE: f64 = 1e-5;

/// Genesis's `EPS` (its default `gs.init(eps=1e-15)` in double precision): the grazing band of a plane contact,
/// relative to half the other shape's box diagonal (Genesis's `geom_pair_scale`).
const GRAZING_BAND: f64 = 1e-15;

/// Half the diagonal of a shape's local AABB (m), Genesis's `geom_pair_scale`: a mesh's box in its inertial frame,
/// where MuJoCo's compiler (and Genesis's MJCF loader after it) puts the mesh.
fn half_diagonal(s: &Shape) -> f64 {
    match s {
        Shape::ConvexMesh(m) => {
            let (lo, hi) = m.inertial_bounds();
            0.5 * (hi - lo).length()
        }
        _ => 0.5 * s.local_aabb().diagonal_length(),
    }
}

impl PairDispatcher for NativeDispatcher {
    #[inline]
    fn append_contacts(
        &self,
        ws: &mut QueryWorkspace,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        request: &ContactRequest,
        out: &mut Manifold,
    ) -> Result<()> {
        dispatch::contacts(ws, a, pose_a, b, pose_b, request, &rules(), out)
    }

    fn default_request(&self) -> ContactRequest {
        ContactRequest::default()
    }

    fn param_mixing(&self) -> ParamMixing {
        ParamMixing::Genesis
    }

    fn world_aabb(&self, shape: &Shape, pose: &Pose, _margin: f64) -> Aabb {
        shape.world_aabb(pose)
    }
}

/// Genesis's mixing of the parameters of geoms A and B (spec §A.15; see the module docs).
pub fn mix_params(a: &GeomContactParams, b: &GeomContactParams) -> MixedParams {
    MixedParams {
        friction: [
            a.friction[0].max(b.friction[0]).max(FRICTION_FLOOR),
            a.friction[1].max(b.friction[1]),
            a.friction[2].max(b.friction[2]),
        ],
        solref: std::array::from_fn(|k| 0.5 * (a.solref[k] + b.solref[k])),
        solimp: std::array::from_fn(|k| 0.5 * (a.solimp[k] + b.solimp[k])),
        condim: a.condim.max(b.condim),
        margin: a.margin.max(b.margin),
        gap: a.gap.max(b.gap),
        adhesion: a.adhesion + b.adhesion,
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec3;
    use signorini_geometry::{Cuboid, Pose, Shape};

    use super::*;

    fn params(mu: f64, solref: [f64; 2], priority: i32, margin: f64) -> GeomContactParams {
        GeomContactParams {
            friction: [mu, 0.005, 0.0001],
            solref,
            solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            condim: 3,
            priority,
            solmix: 1.0,
            margin,
            gap: 0.0,
            adhesion: 0.0,
        }
    }

    /// Max friction with the 0.01 floor, plain means, priority and `solmix` ignored, margin the max.
    #[test]
    fn mixes_the_genesis_way() {
        let d = NativeDispatcher;
        assert_eq!(d.param_mixing(), ParamMixing::Genesis);
        let (a, b) = (params(0.5, [0.02, 1.0], 5, 0.01), params(1.0, [0.04, 0.5], 0, 0.0));
        let m = d.mix_params(&a, &b);
        assert_eq!(m.friction, [1.0, 0.005, 0.0001]);
        assert_eq!(m.solref, [0.03, 0.75]);
        assert_eq!(m.margin, 0.01);
        let low = d.mix_params(&params(0.001, [0.02, 1.0], 0, 0.0), &params(0.0, [0.02, 1.0], 0, 0.0));
        assert_eq!(low.friction[0], FRICTION_FLOOR);
    }

    /// Relative tolerance 1e-2, multi-contact on, and boxes not inflated by the margin.
    #[test]
    fn request_defaults_and_boxes() {
        let d = NativeDispatcher;
        let r = d.default_request();
        assert_eq!(r, ContactRequest::default());
        assert_eq!(r.tolerance, 1e-2);
        assert!(r.multi_contact);
        let cube: Shape = Cuboid::new(DVec3::splat(0.5)).unwrap().into();
        let pose = Pose::from_translation(DVec3::new(1.0, 0.0, 0.0));
        assert_eq!(d.world_aabb(&cube, &pose, 0.1), cube.world_aabb(&pose));
    }
}
