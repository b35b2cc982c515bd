//! Swept collision for fast free bodies (`Options::enable_ccd`): motion clamping against tunnelling.
//!
//! A body that moves farther in one step than its own thickness can pass through a thin obstacle between two
//! collision passes. After integration, each geom of a free body is represented by its **core sphere**: centred at
//! the centre of the geom's local box, of radius `r = ½ · min(local box half extents)` (inside the geom). When that
//! centre moved more than `r/10` in the step, the sphere is swept along the straight segment from its start-of-step to
//! its new position against every geom the pair filters let it meet, held at their start-of-step poses
//! ([`time_of_impact`], conservative advancement). If the sweep touches a geom at a fraction `s ∈ [0, 1)` of the
//! step, the body's free-joint pose is set back to its pose at the earliest such `s` (translation interpolated
//! linearly, rotation by slerp: [`Motion::at`]); its velocity is kept, so the next steps' contacts stop it. A core
//! already touching at the start (a body held back the step before) stops the body only while it moves into that
//! geom (its displacement along the distance normal is positive), so it can always leave.
//!
//! The core sphere lies inside the geom, so a body resting on or pressing into a surface is not held back (its core
//! does not touch), while a body about to cross a wall is stopped with at most its core margin `(half extent − r)`
//! inside it. Planes are half-spaces (nothing passes through them) and are not swept against; height fields and
//! triangle meshes are. Only bodies with a free joint are clamped (articulated chains are left to their joints).

use glam::DVec3;
use signorini_collision::CollisionError;
use signorini_collision::ccd::{CcdRequest, Motion, time_of_impact};
use signorini_collision::query::{DistanceRequest, QueryWorkspace, distance_with};
use signorini_collision::world::{CollisionData, CollisionModel};
use signorini_geometry::{Aabb, Pose, Shape, Sphere};
use signorini_model::JointKind;

use crate::error::Result;
use crate::model::Model;

/// A geom is swept when its core centre moves more than this fraction of the core radius in the step: enough to
/// catch a body creeping into a thin wall after the contact has slowed it (a soft contact lets a slow body sink by
/// about its speed times the contact time constant), few enough to leave resting bodies alone.
const SWEEP_FRACTION: f64 = 0.1;

/// The core sphere of a geom: its centre in the geom frame and its radius (see the module docs); `None` for planes.
fn core_sphere(shape: &Shape) -> Option<(DVec3, f64)> {
    if matches!(shape, Shape::Plane(_)) {
        return None;
    }
    let b = shape.local_aabb();
    let r = 0.5 * (0.5 * (b.max - b.min)).min_element();
    (r > 0.0 && r.is_finite()).then_some((b.center(), r))
}

/// Clamps the free bodies of `d` that would tunnel this step (see the module docs). `start` holds each body's pose
/// at the start of the step; the collision data holds the geoms' start-of-step poses and boxes. Returns the number
/// of bodies clamped.
pub(crate) fn clamp_fast_bodies(
    model: &Model,
    d: &mut signorini_model::Data,
    collision: &CollisionData,
    start: &[Pose],
    ws: &mut QueryWorkspace,
) -> Result<usize> {
    let m = &model.multibody;
    let cm: &CollisionModel = model.collision();
    let geoms = cm.geoms();
    let (poses, boxes) = (collision.geom_poses(), collision.geom_aabbs());
    let request = CcdRequest::default();
    let mut clamped = 0;
    for j in 0..m.njnt {
        if m.jnt_type[j] != JointKind::Free {
            continue;
        }
        let (b, adr) = (m.jnt_bodyid[j], m.jnt_qposadr[j]);
        let q = &d.qpos[adr..adr + 7];
        let end = Pose {
            translation: DVec3::new(q[0], q[1], q[2]),
            rotation: signorini_model::kinematics::quat_from_wxyz(&q[3..7]),
        };
        let body_motion = Motion { start: start[b], end };
        let mut first = 1.0f64;
        let own = m.body_geomadr[b]..m.body_geomadr[b] + m.body_geomnum[b];
        for g in own {
            let Some((centre, r)) = core_sphere(&geoms.shape[g]) else { continue };
            let local = geoms.local_pose[g];
            let (p0, p1) = (
                start[b].transform_point(local.transform_point(centre)),
                end.transform_point(local.transform_point(centre)),
            );
            if (p1 - p0).length() <= SWEEP_FRACTION * r {
                continue;
            }
            let Ok(sphere) = Sphere::new(r) else { continue };
            let sphere = Shape::from(sphere);
            let motion = Motion { start: Pose::from_translation(p0), end: Pose::from_translation(p1) };
            let swept = Aabb::new(p0.min(p1) - DVec3::splat(r), p0.max(p1) + DVec3::splat(r));
            for o in 0..geoms.len() {
                if geoms.body[o] == b
                    || matches!(geoms.shape[o], Shape::Plane(_))
                    || swept.distance(&boxes[o]) > 0.0
                    || cm.filter_reason(g, o)?.is_some()
                {
                    continue;
                }
                let hit =
                    time_of_impact(ws, &sphere, &motion, &geoms.shape[o], &Motion::fixed(poses[o]), &request);
                match hit {
                    Ok(r) => match r.toi {
                        // Touching at the start: stopped there only while the core moves into the geom.
                        Some(0.0) => {
                            let at = Pose::from_translation(p0);
                            let d0 = distance_with(
                                ws,
                                &sphere,
                                &at,
                                &geoms.shape[o],
                                &poses[o],
                                &DistanceRequest::default(),
                            )?;
                            if (p1 - p0).dot(d0.normal) > 0.0 {
                                first = 0.0;
                            }
                        }
                        Some(s) if s < first => first = s,
                        _ => {}
                    },
                    // A pair without a distance (e.g. a mesh surface against another) is not swept.
                    Err(CollisionError::Unsupported { .. }) => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
        if first < 1.0 {
            let pose = body_motion.at(first);
            let t = pose.translation;
            let r = pose.rotation;
            d.qpos[adr..adr + 7].copy_from_slice(&[t.x, t.y, t.z, r.w, r.x, r.y, r.z]);
            clamped += 1;
        }
    }
    Ok(clamped)
}
