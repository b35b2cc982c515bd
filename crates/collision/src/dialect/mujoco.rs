//! The MuJoCo-compatible dialect (MuJoCo 4.0's semantics, spec §2): [`MujocoDispatcher`].
//!
//! - **Contacts**: MuJoCo's pair function for every pair MuJoCo has one for (`crate::pairs::mujoco`, its
//!   `mjCOLLISIONFUNC` table: primitives, plane pairs, its box–box, and its `mjc_Convex` for the other convex pairs),
//!   with the pair's detection margin; a triangle mesh collides as its convex hull. Two-sided planes (no MuJoCo geom)
//!   take the native contact table under MuJoCo's rules: no perturbation contacts, absolute tolerance
//!   `tolerance · min(rbound)` with MuJoCo's bounding radii.
//! - **Margins** (MuJoCo 4.0's `mj_collideGeoms`): a pair detects contacts within the sum of its geoms' margins plus
//!   the sum of their gaps; such a contact has a negative penetration. The constraint rows use the summed margin
//!   (`includemargin`); a contact beyond it, within the gap, makes no rows.
//! - **Mixing** ([`mix_params`]): the higher `priority` wins outright; otherwise `condim` and each friction the max,
//!   `solref` and `solimp` the `solmix`-weighted mean (`solref` elementwise min when either is in direct mode,
//!   negative), and `margin`/`gap`/`adhesion` the sums (the winner's adhesion under priority). The mixed `timeconst` is stored as is: its `2h` floor belongs to the
//!   constraint layer (spec §4).
//! - **Boxes**: the world AABB inflated by the geom's margin plus gap (MuJoCo detects contacts within them).
//! - **Request**: [`ContactRequest::default`] with relative tolerance 1e-3 (spec §A.9); multiccd on (MuJoCo 4.0).
//! - **Normals** are normalised once more after the pair function, as `mj_setContact`'s `mju_makeFrame` does.

use signorini_geometry::{Aabb, Pose, Shape};

use super::{PairDispatcher, ParamMixing};
use crate::contact::Manifold;
use crate::contact_set::{GeomContactParams, MixedParams};
use crate::dispatch::{self, ContactRules};
use crate::error::{CollisionError, Result};
use crate::narrow::mpr::MprSettings;
use crate::pairs::mujoco::{MINVAL, frame_normal, geom_rbound, mj_rank, routine};
use crate::query::{ContactRequest, QueryWorkspace};

/// Pair dispatch with MuJoCo 4.0's semantics (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MujocoDispatcher;

/// MuJoCo's rules of the native contact table, for pairs without a dedicated function.
#[inline]
fn rules() -> ContactRules {
    ContactRules {
        mpr: MprSettings::mujoco_compatible(),
        refine_deep_mpr: false,
        mpr_relative_tolerance: None,
        perturbations: false,
        tolerance_size: geom_rbound,
        smooth_positions: false,
        plane_grazing_band: None,
    }
}

impl PairDispatcher for MujocoDispatcher {
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
        if matches!(a, Shape::TriangleMesh(_)) || matches!(b, Shape::TriangleMesh(_)) {
            // MuJoCo collides a mesh as its convex hull.
            return match (as_hull(a), as_hull(b)) {
                (Some(ha), Some(hb)) => self.append_contacts(ws, &ha, pose_a, &hb, pose_b, request, out),
                _ => Err(CollisionError::Unsupported { query: "contacts", a: a.kind(), b: b.kind() }),
            };
        }
        let start = out.contacts.len();
        match routine(a, b, request.multi_contact) {
            Some(routine) => routine.run(a, pose_a, b, pose_b, request.margin, &mut ws.mujoco, out),
            None => dispatch::contacts(ws, a, pose_a, b, pose_b, request, &rules(), out)?,
        }
        for c in &mut out.contacts[start..] {
            c.normal = frame_normal(c.normal);
        }
        Ok(())
    }

    fn default_request(&self) -> ContactRequest {
        ContactRequest { tolerance: 1e-3, ..ContactRequest::default() }
    }

    fn param_mixing(&self) -> ParamMixing {
        ParamMixing::Mujoco
    }

    fn prunes_contacts(&self) -> bool {
        false
    }

    fn keeps_generation_order(&self) -> bool {
        true
    }

    /// MuJoCo's geom type order (`mj_collideGeoms` swaps a pair so that geom 1 has the lower type: a capsule before
    /// an ellipsoid or a cylinder, a height field before any convex geom), which fixes the contact's geom order and
    /// the orientation of its frame.
    fn type_rank(&self, shape: &Shape) -> Option<u8> {
        mj_rank(shape)
    }

    fn detection_margin(&self, reach_a: f64, reach_b: f64) -> f64 {
        reach_a + reach_b
    }

    /// The box (from the geom frame's matrix as MuJoCo rounds it, as the narrow phase does) inflated by the margin,
    /// then by one ulp per side: MuJoCo's bounding tests are inclusive (two bodies resting exactly on each other,
    /// `dist = 0 ≤ margin`, are a candidate pair and make a contact), while the broad-phase contract is strict overlap.
    fn world_aabb(&self, shape: &Shape, pose: &Pose, margin: f64) -> Aabb {
        let aabb = shape.world_aabb_with(pose, signorini_geometry::rotation::quat_to_mat(pose.rotation));
        let aabb = if margin > 0.0 { aabb.expanded(margin) } else { aabb };
        Aabb::new(
            aabb.min.to_array().map(f64::next_down).into(),
            aabb.max.to_array().map(f64::next_up).into(),
        )
    }
}

/// The shape MuJoCo collides: a triangle mesh's convex hull (`None` for a flat mesh), any other shape itself.
fn as_hull(s: &Shape) -> Option<Shape> {
    match s {
        Shape::TriangleMesh(m) => m.convex_hull().map(|h| Shape::ConvexMesh(h.clone())),
        other => Some(other.clone()),
    }
}

/// MuJoCo's mixing of the parameters of geoms A and B (`mj_contactParam`; see the module docs).
pub fn mix_params(a: &GeomContactParams, b: &GeomContactParams) -> MixedParams {
    let margin = a.margin + b.margin;
    let gap = a.gap + b.gap;
    if a.priority != b.priority {
        let w = if a.priority > b.priority { a } else { b };
        return MixedParams {
            friction: w.friction,
            solref: w.solref,
            solimp: w.solimp,
            condim: w.condim,
            margin,
            gap,
            // The winner's own adhesion, even zero.
            adhesion: w.adhesion,
        };
    }
    let wa = match (a.solmix < MINVAL, b.solmix < MINVAL) {
        (true, true) => 0.5,
        (true, false) => 0.0,
        (false, true) => 1.0,
        (false, false) => a.solmix / (a.solmix + b.solmix),
    };
    let direct = a.solref[0] <= 0.0 || b.solref[0] <= 0.0;
    MixedParams {
        friction: std::array::from_fn(|k| a.friction[k].max(b.friction[k])),
        solref: std::array::from_fn(|k| {
            if direct { a.solref[k].min(b.solref[k]) } else { wa * a.solref[k] + (1.0 - wa) * b.solref[k] }
        }),
        solimp: std::array::from_fn(|k| wa * a.solimp[k] + (1.0 - wa) * b.solimp[k]),
        condim: a.condim.max(b.condim),
        margin,
        gap,
        adhesion: a.adhesion + b.adhesion,
    }
}

#[cfg(test)]
mod tests {
    use glam::DVec3;
    use signorini_geometry::{Cuboid, Pose, Shape};

    use super::*;

    fn params(mu: f64, solref: [f64; 2], priority: i32, solmix: f64) -> GeomContactParams {
        GeomContactParams {
            friction: [mu, 0.005, 0.0001],
            solref,
            solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            condim: 3,
            priority,
            solmix,
            margin: 0.0,
            gap: 0.0,
            adhesion: 0.0,
        }
    }

    /// MuJoCo 4.0's adhesion: the sum of the geoms', or the higher-priority geom's own (even zero).
    #[test]
    fn adhesion_mixes_the_mujoco_way() {
        let with = |adhesion: f64, priority: i32| GeomContactParams {
            adhesion,
            ..params(1.0, [0.02, 1.0], priority, 1.0)
        };
        assert_eq!(mix_params(&with(0.3, 0), &with(0.4, 0)).adhesion, 0.3 + 0.4);
        assert_eq!(mix_params(&with(0.3, 1), &with(0.4, 0)).adhesion, 0.3);
        assert_eq!(mix_params(&with(0.0, 1), &with(0.4, 0)).adhesion, 0.0);
        assert_eq!(mix_params(&with(-0.3, 0), &with(0.1, 0)).adhesion, -0.3 + 0.1);
    }

    /// Priority wins outright; equal priorities weight by `solmix`; no friction floor; direct `solref` takes the
    /// elementwise min.
    #[test]
    fn mixes_the_mujoco_way() {
        let d = MujocoDispatcher;
        assert_eq!(d.param_mixing(), ParamMixing::Mujoco);
        let (a, b) = (params(0.5, [0.02, 1.0], 1, 1.0), params(1.0, [0.04, 0.5], 0, 1.0));
        assert_eq!(d.mix_params(&a, &b).friction[0], 0.5);
        let b = params(1.0, [0.04, 0.5], 1, 3.0);
        let m = d.mix_params(&a, &b);
        assert_eq!(m.friction[0], 1.0);
        assert_eq!(m.solref, [0.25 * 0.02 + 0.75 * 0.04, 0.25 * 1.0 + 0.75 * 0.5]);
        let low = d.mix_params(&params(0.001, [0.02, 1.0], 0, 1.0), &params(0.0, [0.02, 1.0], 0, 1.0));
        assert_eq!(low.friction[0], 0.001);
        let direct = params(1.0, [-1000.0, -10.0], 1, 1.0);
        assert_eq!(d.mix_params(&a, &direct).solref, [-1000.0, -10.0]);
    }

    /// Relative tolerance 1e-3, multiccd on, and boxes inflated by the margin and one ulp: touching boxes overlap.
    #[test]
    fn request_defaults_and_boxes() {
        let d = MujocoDispatcher;
        let r = d.default_request();
        assert_eq!(r.tolerance, 1e-3);
        assert!(r.multi_contact);
        assert_eq!(ContactRequest { tolerance: 1e-2, ..r }, ContactRequest::default());
        let cube: Shape = Cuboid::new(DVec3::splat(0.5)).unwrap().into();
        let pose = Pose::from_translation(DVec3::new(1.0, 0.0, 0.0));
        let ulp = |a: Aabb| {
            Aabb::new(a.min.to_array().map(f64::next_down).into(), a.max.to_array().map(f64::next_up).into())
        };
        assert_eq!(d.world_aabb(&cube, &pose, 0.1), ulp(cube.world_aabb(&pose).expanded(0.1)));
        assert_eq!(d.world_aabb(&cube, &pose, 0.0), ulp(cube.world_aabb(&pose)));
        // A box 2 m high turned about z, its centre at 2 m: MuJoCo's matrix has 1 + 2⁻⁵² on the diagonal's z entry,
        // so the box reaches exactly z = 0 (glam's matrix has 1: 4.4e-16 above), as the narrow phase finds it.
        let pillar: Shape = Cuboid::new(DVec3::new(1.0, 0.5, 2.0)).unwrap().into();
        let turned = Pose {
            translation: DVec3::new(6.101049646137003, -13.703181864639017, 2.0000000000000004),
            rotation: glam::DQuat::from_xyzw(0.0, 0.0, 0.20791169081775931, 0.9781476007338057),
        };
        assert_eq!(d.world_aabb(&pillar, &turned, 0.0).min.z, f64::next_down(0.0));
        let on_top = Pose::from_translation(DVec3::new(1.0, 0.0, 1.0));
        assert!(!cube.world_aabb(&pose).overlaps(&cube.world_aabb(&on_top)));
        assert!(d.world_aabb(&cube, &pose, 0.0).overlaps(&d.world_aabb(&cube, &on_top, 0.0)));
    }
}
