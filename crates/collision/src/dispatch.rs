//! The narrow-phase dispatch tables: one `match` over the pair of shape kinds per query.
//!
//! [`signed_distance`] is the distance table (one for both dialects). [`contacts`] is the contact table of the
//! native dialect; the MuJoCo dialect runs it for the pairs MuJoCo 4.0 has no dedicated function for. The few
//! choices in it that differ between dialects are the plain data of [`ContactRules`], supplied by the dialect
//! (`crate::dialect`); nothing here asks which dialect it serves.
//!
//! `docs/NARROW_PHASE.md` lists which routine answers each pair. Routines written for one order (plane first, sphere
//! before box, ...) are called with A and B swapped and their result mirrored. Generic GJK/EPA is monomorphised per
//! pair of shape types through [`with_convex!`], so the hot loops see concrete support functions, never a `dyn` call.

use glam::DVec3;
use signorini_geometry::{ConvexMesh, Pose, Shape, ShapeKind, SupportMap, TriangleMesh};

use crate::contact::{Contact, Manifold};
use crate::error::{CollisionError, Result};
use crate::multi_contact::{
    Detection, FacePerturbation, PlanePerturbation, face_perturbation_contacts, plane_perturbation_contacts,
};
use crate::narrow::box_box;
use crate::narrow::epa::EpaSettings;
use crate::narrow::gjk::GjkSettings;
use crate::narrow::minkowski::{CoreShape, MinkowskiPair, Posed, SupportPoint};
use crate::narrow::mpr::{MprSettings, MprStart, mpr_with_cache};
use crate::narrow::support_newton::{SupportMinimum, SupportSum};
use crate::pairs::capsule_box::capsule_box;
use crate::pairs::capsule_capsule::{capsule_capsule, capsules_within};
use crate::pairs::capsule_contact::capsule_capsule_contact;
use crate::pairs::convex_convex::{CoreDistance, IterativeSettings, convex_convex, core_distance};
use crate::pairs::height_field::{height_field_contacts, height_field_distance};
use crate::pairs::mesh_convex::mesh_convex;
use crate::pairs::mesh_mesh::mesh_mesh;
use crate::pairs::plane_convex::plane_convex;
use crate::pairs::sphere_box::sphere_box;
use crate::pairs::sphere_sphere::sphere_sphere;
use crate::pairs::{SignedDistance, mesh_sdf, plane_box};
use crate::query::{
    Algorithm, ContactRequest, ConvexAlgorithm, DistanceRequest, QueryWorkspace, contact_from_signed,
};
use crate::smooth_contact::refine_smooth_position;

/// The choices of the contact table [`contacts`] that differ between dialects.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ContactRules {
    /// MPR's settings (its depth: portal plane or portal triangle).
    pub mpr: MprSettings,
    /// Whether a deep MPR contact, or a non-shallow one without a cached normal, is recomputed by GJK/EPA
    /// (spec §A.8).
    pub refine_deep_mpr: bool,
    /// MPR's reach tolerance relative to the pair's scale, half the smaller local box diagonal (Genesis 1.4.5's
    /// `CCD_TOLERANCE` outside MuJoCo compatibility); `None`: the absolute tolerance of `mpr`.
    pub mpr_relative_tolerance: Option<f64>,
    /// Whether `multi_contact` adds perturbation contacts to pairs without an analytic manifold: Genesis 1.4.5's, for
    /// a half-space and a convex shape and for two convex shapes ([`crate::multi_contact`]).
    pub perturbations: bool,
    /// The size of a shape that scales the request's relative tolerance into metres (spec §A.9).
    pub tolerance_size: fn(&Shape) -> f64,
    /// Whether contacts found by MPR, GJK/EPA, a plane's support or the perturbations take their position from the
    /// smooth shape of the pair ([`crate::smooth_contact`]).
    pub smooth_positions: bool,
    /// The grazing band of a half-space's support contact, relative to `tolerance_size` of the other shape: a
    /// distance `0 ≤ d < band · size` is still a contact, of penetration 0 (Genesis 1.4.5's plane branch, where a
    /// depth within rounding of zero would otherwise be accepted or rejected by rounding alone). `None`: strictly
    /// penetrating only.
    pub plane_grazing_band: Option<f64>,
}

/// Runs `$body` with `$s` bound to the concrete bounded convex shape inside `$shape`; otherwise evaluates `$other`.
macro_rules! with_convex {
    ($shape:expr, |$s:ident| $body:expr, $other:expr) => {
        match $shape {
            Shape::Sphere($s) => $body,
            Shape::Capsule($s) => $body,
            Shape::Cylinder($s) => $body,
            Shape::Box($s) => $body,
            Shape::Ellipsoid($s) => $body,
            Shape::ConvexMesh(mesh) => {
                let $s: &ConvexMesh = mesh;
                $body
            }
            Shape::Plane(_) | Shape::TriangleMesh(_) | Shape::HeightField(_) => $other,
        }
    };
}

fn unsupported(query: &'static str, a: &Shape, b: &Shape) -> CollisionError {
    CollisionError::Unsupported { query, a: a.kind(), b: b.kind() }
}

/// World support point of a bounded convex shape (the caller has checked the kind).
#[inline]
fn world_support(shape: &Shape, pose: &Pose, d: DVec3) -> DVec3 {
    shape.world_support(pose, d).unwrap_or(pose.translation)
}

/// World segment of a sphere (degenerate) or capsule core.
#[inline(always)]
fn core_segment(shape: &Shape, pose: &Pose) -> Option<([DVec3; 2], f64)> {
    match shape {
        Shape::Sphere(s) => Some(([pose.translation; 2], s.radius())),
        Shape::Capsule(c) => Some((capsule_segment(c, pose), c.radius())),
        _ => None,
    }
}

/// A capsule's core segment in the world: ends `t ∓ h a` with the world axis `a = R e_z` (one rotation, not two).
#[inline(always)]
fn capsule_segment(c: &signorini_geometry::Capsule, pose: &Pose) -> [DVec3; 2] {
    let half = rotate_z(pose, c.half_length());
    [pose.translation - half, pose.translation + half]
}

/// `R (0, 0, h)`: glam's rotation `v (w² − b·b) + b (2 v·b) + 2w (b × v)` (`b` the quaternion's vector part) with
/// the products by the zero components of `v` left out, the same value (a zero component may change sign).
#[inline(always)]
fn rotate_z(pose: &Pose, h: f64) -> DVec3 {
    let q = pose.rotation;
    let w2b = q.w * q.w - (q.x * q.x + q.y * q.y + q.z * q.z);
    let k = (h * q.z) * 2.0;
    let m = q.w * 2.0;
    DVec3::new(q.x * k + (q.y * h) * m, q.y * k - (q.x * h) * m, h * w2b + q.z * k)
}

/// Signed distance (Coal convention). `early_exit`: a boolean query with this security margin may stop as soon as
/// the distance is known to exceed it, or to be negative without computing the depth when the margin is ≥ 0.
/// `exact_primitives`: a cylinder or an ellipsoid against a primitive is answered by Newton's method on the support
/// function ([`primitive_newton`], the query API); the native contact table passes false, so that its contacts stay
/// those of GJK/EPA as in Genesis.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn signed_distance(
    ws: &mut QueryWorkspace,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &DistanceRequest,
    early_exit: Option<f64>,
    exact_primitives: bool,
) -> Result<SignedDistance> {
    match closed_form_distance(a, pose_a, b, pose_b) {
        Some(sd) => Ok(sd),
        None => iterative_distance(ws, a, pose_a, b, pose_b, request, early_exit, exact_primitives),
    }
}

/// The rows of the distance table that are closed forms of a few dozen flops: spheres, capsules, sphere–box, a plane
/// against a sphere, capsule or box (the same routines and supports as [`Shape::world_support`]). Small
/// enough to inline into the query functions, so that these pairs skip the call into the large
/// [`iterative_distance`] (whose frame holds GJK's and EPA's state); `None` for every other pair.
#[inline(always)]
pub(crate) fn closed_form_distance(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
) -> Option<SignedDistance> {
    use Shape as S;
    Some(match (a, b) {
        (S::Sphere(sa), S::Sphere(sb)) => {
            sphere_sphere(pose_a.translation, sa.radius(), pose_b.translation, sb.radius())
        }
        (S::Sphere(_) | S::Capsule(_), S::Sphere(_) | S::Capsule(_)) => {
            let ((sa, ra), (sb, rb)) = (core_segment(a, pose_a)?, core_segment(b, pose_b)?);
            capsule_capsule(sa, ra, sb, rb)
        }
        (S::Sphere(s), S::Box(bx)) => sphere_box(pose_a.translation, s.radius(), bx.half_extents(), pose_b),
        (S::Box(bx), S::Sphere(s)) => {
            sphere_box(pose_b.translation, s.radius(), bx.half_extents(), pose_a).swapped()
        }
        (S::Plane(p), S::Sphere(s)) => plane_convex(p, pose_a, |d| s.world_support(pose_b, d)),
        (S::Plane(p), S::Capsule(c)) => plane_convex(p, pose_a, |d| c.world_support(pose_b, d)),
        (S::Plane(p), S::Box(bx)) => plane_convex(p, pose_a, |d| bx.world_support(pose_b, d)),
        (S::Sphere(s), S::Plane(p)) => plane_convex(p, pose_b, |d| s.world_support(pose_a, d)).swapped(),
        (S::Capsule(c), S::Plane(p)) => plane_convex(p, pose_b, |d| c.world_support(pose_a, d)).swapped(),
        (S::Box(bx), S::Plane(p)) => plane_convex(p, pose_b, |d| bx.world_support(pose_a, d)).swapped(),
        _ => return None,
    })
}

/// The boolean test `distance ≤ margin` of a capsule and a sphere or capsule, with the arithmetic of
/// [`closed_form_distance`] but without its normal and witness points; `None` for every other pair.
#[inline(always)]
pub(crate) fn closed_form_within(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    margin: f64,
) -> Option<bool> {
    use Shape as S;
    match (a, b) {
        (S::Capsule(_), S::Sphere(_) | S::Capsule(_)) | (S::Sphere(_), S::Capsule(_)) => {
            let ((sa, ra), (sb, rb)) = (core_segment(a, pose_a)?, core_segment(b, pose_b)?);
            Some(capsules_within(sa, ra, sb, rb, margin))
        }
        _ => None,
    }
}

/// The rest of the distance table: capsule–box (a closed form of a few hundred flops, kept out of the inlined ones),
/// planes, boxes by SAT, meshes, height fields and GJK/EPA.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn iterative_distance(
    ws: &mut QueryWorkspace,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &DistanceRequest,
    early_exit: Option<f64>,
    exact_primitives: bool,
) -> Result<SignedDistance> {
    use Shape as S;
    // Capsule–box: closed form.
    match (a, b) {
        (S::Capsule(c), S::Box(bx)) => {
            return Ok(capsule_box(capsule_segment(c, pose_a), c.radius(), bx.half_extents(), pose_b));
        }
        (S::Box(bx), S::Capsule(c)) => {
            return Ok(
                capsule_box(capsule_segment(c, pose_b), c.radius(), bx.half_extents(), pose_a).swapped()
            );
        }
        _ => {}
    }
    let convex_b = b.kind().is_bounded_convex();
    let convex_a = a.kind().is_bounded_convex();
    Ok(match (a, b) {
        (S::HeightField(hf), _) if convex_b => with_convex!(
            b,
            |sb| height_field_distance(&mut ws.epa, hf, pose_a, sb, pose_b, request),
            return Err(unsupported("distance", a, b))
        ),
        (_, S::HeightField(hf)) if convex_a => with_convex!(
            a,
            |sa| height_field_distance(&mut ws.epa, hf, pose_b, sa, pose_a, request).swapped(),
            return Err(unsupported("distance", a, b))
        ),
        (S::Plane(p), _) if convex_b => plane_convex(p, pose_a, |d| world_support(b, pose_b, d)),
        (_, S::Plane(p)) if convex_a => plane_convex(p, pose_b, |d| world_support(a, pose_a, d)).swapped(),
        (S::Box(ba), S::Box(bb)) => {
            // SAT first: it settles overlap exactly and cheaply; only separated boxes need GJK.
            let (ha, hb) = (ba.half_extents(), bb.half_extents());
            match box_box::box_box_sat(ha, pose_a, hb, pose_b) {
                Some(sat) if early_exit.is_some_and(|m| m >= 0.0) => SignedDistance {
                    distance: -sat.depth,
                    point_a: pose_a.translation,
                    point_b: pose_b.translation,
                    normal: sat.normal,
                    iterations: 0,
                    algorithm: Algorithm::Sat,
                },
                Some(sat) if sat.depth > 0.0 => box_overlap(ha, pose_a, hb, pose_b),
                _ => {
                    let gjk = gjk_settings(&request.gjk, early_exit, 0.0);
                    match core_distance(ba, pose_a, bb, pose_b, &gjk, request.warm_start).0 {
                        CoreDistance::Apart(sd) => sd,
                        CoreDistance::Overlap => box_overlap(ha, pose_a, hb, pose_b),
                    }
                }
            }
        }
        (S::TriangleMesh(ma), S::TriangleMesh(mb)) => {
            // The hulls' distance first: a lower bound, and (separated) witnesses to start the search from.
            let hulls = match (ma.convex_hull(), mb.convex_hull()) {
                (Some(ha), Some(hb)) => hull_distance(ha, pose_a, hb.as_ref(), pose_b, request, early_exit),
                _ => None,
            };
            let stacks = (&mut ws.bvh_stack, &mut ws.point_stack);
            mesh_mesh(stacks, ma, pose_a, mb, pose_b, early_exit, hulls.as_ref())
        }
        (S::TriangleMesh(m), _) if convex_b => {
            mesh_convex_distance(ws, m, pose_a, b, pose_b, request, early_exit)?
        }
        (_, S::TriangleMesh(m)) if convex_a => {
            mesh_convex_distance(ws, m, pose_b, a, pose_a, request, early_exit)?.swapped()
        }
        _ if convex_a && convex_b => {
            if exact_primitives
                && early_exit.is_none()
                && let Some(sd) = primitive_newton(ws, a, pose_a, b, pose_b, request)
            {
                return Ok(sd);
            }
            with_convex!(
                a,
                |sa| with_convex!(
                    b,
                    |sb| generic(ws, sa, pose_a, sb, pose_b, request, early_exit),
                    return Err(unsupported("distance", a, b))
                ),
                return Err(unsupported("distance", a, b))
            )
        }
        _ => return Err(unsupported("distance", a, b)),
    })
}

/// A triangle mesh (A) against a bounded convex shape (B): the mesh's hull against the shape first, then the BVH
/// search of [`mesh_convex`].
fn mesh_convex_distance(
    ws: &mut QueryWorkspace,
    mesh: &TriangleMesh,
    pose_m: &Pose,
    shape: &Shape,
    pose_s: &Pose,
    request: &DistanceRequest,
    early_exit: Option<f64>,
) -> Result<SignedDistance> {
    let hull = match mesh.convex_hull() {
        Some(h) => with_convex!(
            shape,
            |s| hull_distance(h, pose_m, s, pose_s, request, early_exit),
            return Err(CollisionError::Unsupported {
                query: "distance",
                a: ShapeKind::TriangleMesh,
                b: shape.kind()
            })
        ),
        None => None,
    };
    let shape_box = shape.local_aabb();
    let stack = &mut ws.point_stack;
    Ok(with_convex!(
        shape,
        |s| mesh_convex(stack, mesh, pose_m, s, &shape_box, pose_s, early_exit, hull.as_ref()),
        return Err(CollisionError::Unsupported {
            query: "distance",
            a: ShapeKind::TriangleMesh,
            b: shape.kind()
        })
    ))
}

/// GJK between a triangle mesh's hull and the core of `b`: their signed distance when the cores are apart, `None` when
/// they overlap (the distance is then ≤ 0 and bounds nothing; no EPA is run). Boolean queries take GJK's early exit
/// at the margin.
fn hull_distance<B: CoreShape>(
    hull: &ConvexMesh,
    pose_h: &Pose,
    b: &B,
    pose_b: &Pose,
    request: &DistanceRequest,
    early_exit: Option<f64>,
) -> Option<SignedDistance> {
    let gjk = gjk_settings(&request.gjk, early_exit, b.core_radius());
    match core_distance(hull, pose_h, b, pose_b, &gjk, request.warm_start).0 {
        CoreDistance::Apart(sd) => Some(sd),
        CoreDistance::Overlap => None,
    }
}

fn gjk_settings(base: &GjkSettings, early_exit: Option<f64>, radii: f64) -> GjkSettings {
    GjkSettings { early_exit_distance: early_exit.map(|m| m.max(0.0) + radii), ..*base }
}

/// Iterations of [`primitive_newton`]'s first start, from the centres' direction.
const SEPARATED_ITERATIONS: u32 = 16;

/// The relative tolerance of the GJK/EPA run that only picks the basin of [`primitive_newton`]'s second start.
const BASIN_TOLERANCE: f64 = 1e-2;

/// How much closer than the best depth (relative to the size of `A ⊖ B`) an EPA face must lie for
/// [`primitive_newton`] to start again from its normal.
const RESTART_MARGIN: f64 = 1e-9;

/// A cylinder or an ellipsoid against a primitive (sphere, capsule, box, cylinder, ellipsoid): Newton's method on
/// the support function of `A ⊖ B` (`narrow/support_newton.rs`), exact to rounding. It starts from the warm start or
/// the centres' direction, which settles separated shapes (the minimum is then global); when that finds an overlap
/// or does not settle, it starts again from the normal of GJK/EPA run to [`BASIN_TOLERANCE`], and from the normal of
/// every EPA face closer than the depth that start found (the global minimum's direction crosses one of them).
/// `None` for other pairs, or when the EPA start does not settle (the caller then runs GJK/EPA to the request's
/// tolerance).
#[inline(never)]
fn primitive_newton(
    ws: &mut QueryWorkspace,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &DistanceRequest,
) -> Option<SignedDistance> {
    let sum = SupportSum::of_pair(a, pose_a, b, pose_b)?;
    let start = match request.warm_start {
        Some(w) if w.is_finite() && w.length_squared() > 0.0 => -w,
        _ => pose_b.translation - pose_a.translation,
    };
    let newton = |m: SupportMinimum, iterations: u32| SignedDistance {
        distance: m.distance,
        point_a: m.point_a,
        point_b: m.point_b,
        normal: m.normal,
        iterations: iterations + m.iterations,
        algorithm: Algorithm::Newton,
    };
    // Coincident centres (no direction to start from) overlap: straight to EPA's basin.
    if let Some(m) = sum.minimize_with(start, SEPARATED_ITERATIONS, true)
        && m.distance > 0.0
    {
        return Some(newton(m, 0));
    }
    let coarse = DistanceRequest {
        gjk: GjkSettings { tolerance: request.gjk.tolerance.max(BASIN_TOLERANCE), ..request.gjk },
        epa: EpaSettings { tolerance: request.epa.tolerance.max(BASIN_TOLERANCE), ..request.epa },
        warm_start: None,
    };
    let (basin, radii) = with_convex!(
        a,
        |sa| with_convex!(
            b,
            |sb| (generic(ws, sa, pose_a, sb, pose_b, &coarse, None), sa.core_radius() + sb.core_radius()),
            return None
        ),
        return None
    );
    let mut best = sum.minimize(basin.normal)?;
    if basin.algorithm == Algorithm::GjkEpa {
        // EPA's polytope lies inside `A ⊖ B`, so a face bounds `h_D` from below over its cone: a face closer than
        // the basin's depth may hide a shallower minimum (two basins within the coarse tolerance of each other).
        // Newton starts again from each such face's normal, nearest first, until no face is closer than the best.
        let margin = RESTART_MARGIN * sum.scale() + radii;
        let mut starts = std::mem::take(&mut ws.restarts);
        starts.clear();
        starts.extend(ws.epa.faces_closer_than(-best.distance - margin));
        starts.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        for &(d, n) in &starts {
            if d >= -best.distance - margin {
                break;
            }
            // A restart that ends on a cap's cone point may have jumped past a shallower minimum of the face's own
            // basin beside it: that basin's minimum too.
            let m = sum.minimize(n);
            let smooth = match m {
                Some(m) if sum.at_cap(m.normal) => sum.minimize_in_basin(n),
                _ => None,
            };
            for m in [m, smooth].into_iter().flatten() {
                if m.distance > best.distance {
                    best = m;
                }
            }
        }
        ws.restarts = starts;
    }
    Some(newton(best, basin.iterations))
}

fn generic<A: CoreShape, B: CoreShape>(
    ws: &mut QueryWorkspace,
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    request: &DistanceRequest,
    early_exit: Option<f64>,
) -> SignedDistance {
    let radii = a.core_radius() + b.core_radius();
    let gjk = gjk_settings(&request.gjk, early_exit, radii);
    if let Some(margin) = early_exit
        && margin >= 0.0
    {
        // Boolean query: an overlap of the cores decides it without EPA.
        return match core_distance(a, pose_a, b, pose_b, &gjk, request.warm_start).0 {
            CoreDistance::Apart(sd) => sd,
            CoreDistance::Overlap => SignedDistance {
                distance: -radii,
                point_a: pose_a.translation,
                point_b: pose_b.translation,
                normal: (pose_b.translation - pose_a.translation).normalize_or(DVec3::Z),
                iterations: 0,
                algorithm: Algorithm::Gjk,
            },
        };
    }
    let settings = IterativeSettings { gjk: &gjk, epa: &request.epa, init: request.warm_start };
    convex_convex(a, pose_a, b, pose_b, &settings, &mut ws.epa)
}

/// Overlapping boxes: the exact SAT depth and its witnesses.
fn box_overlap(ha: DVec3, pose_a: &Pose, hb: DVec3, pose_b: &Pose) -> SignedDistance {
    match box_box::box_box_penetration(ha, pose_a, hb, pose_b) {
        Some(p) => SignedDistance {
            distance: -p.depth,
            point_a: p.point_a,
            point_b: p.point_b,
            normal: p.normal,
            iterations: 0,
            algorithm: Algorithm::Sat,
        },
        // Touching within rounding: GJK saw contact, SAT a zero gap.
        None => SignedDistance {
            distance: 0.0,
            point_a: pose_a.translation,
            point_b: pose_a.translation,
            normal: (pose_b.translation - pose_a.translation).normalize_or(DVec3::Z),
            iterations: 0,
            algorithm: Algorithm::Sat,
        },
    }
}

/// Contact manifold (simulator convention) under a dialect's `rules`, appended to `out`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn contacts(
    ws: &mut QueryWorkspace,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &ContactRequest,
    rules: &ContactRules,
    out: &mut Manifold,
) -> Result<()> {
    use Shape as S;
    if matches!(a, S::TriangleMesh(_)) || matches!(b, S::TriangleMesh(_)) {
        // A mesh is a non-convex solid through its signed distance field.
        let tol = tolerance(rules, request, (a.kind() != ShapeKind::Plane).then_some(a), b);
        let (max, out) = (request.max_sdf_contacts, &mut out.contacts);
        return match mesh_sdf::sdf_contacts(&mut ws.sdf, a, pose_a, b, pose_b, tol, max, out) {
            Some(()) => Ok(()),
            None if matches!(a, S::HeightField(_)) || matches!(b, S::HeightField(_)) => {
                Err(unsupported("contacts", a, b))
            }
            None => Err(CollisionError::MeshWithoutSdf { a: a.kind(), b: b.kind() }),
        };
    }
    let start = out.contacts.len();
    match (a, b) {
        (S::HeightField(hf), _) if b.kind().is_bounded_convex() => {
            let tol = tolerance(rules, request, None, b);
            with_convex!(
                b,
                |sb| height_field_contacts(&mut ws.epa, hf, pose_a, sb, pose_b, request, rules, tol, out),
                ()
            );
        }
        (_, S::HeightField(_)) if a.kind().is_bounded_convex() => {
            contacts(ws, b, pose_b, a, pose_a, &request.swapped(), rules, out)?;
            for c in &mut out.contacts[start..] {
                *c = c.flipped();
            }
        }
        (S::Box(_), S::Plane(_)) | (S::Capsule(_), S::Plane(_)) => {
            contacts(ws, b, pose_b, a, pose_a, &request.swapped(), rules, out)?;
            for c in &mut out.contacts[start..] {
                *c = c.flipped();
            }
            return Ok(());
        }
        (S::Plane(p), S::Box(bx)) if !p.is_two_sided() => {
            let tol = tolerance(rules, request, None, b);
            plane_box::plane_box_contacts(
                pose_a,
                bx,
                pose_b,
                tol,
                request.multi_contact,
                request.max_contacts,
                out,
            );
        }
        (S::Box(ba), S::Box(bb)) => {
            box_box::box_box_contacts(
                ba.half_extents(),
                pose_a,
                bb.half_extents(),
                pose_b,
                &mut out.contacts,
            );
        }
        _ => {
            let plane_a = a.kind() == ShapeKind::Plane;
            let tol = tolerance(rules, request, (!plane_a).then_some(a), b);
            let refine = |c: Contact| {
                if !rules.smooth_positions {
                    return c;
                }
                let position =
                    refine_smooth_position(a, pose_a, b, pose_b, c.normal, c.penetration, c.position);
                Contact { position, ..c }
            };
            let Some((first, first_detection)) =
                detect_contact(ws, a, pose_a, b, pose_b, request, rules, tol)?
            else {
                return Ok(());
            };
            let first = refine(first);
            out.contacts.push(first);
            let smooth = |s: &Shape| matches!(s.kind(), ShapeKind::Sphere | ShapeKind::Ellipsoid);
            let two_sided = |s: &Shape| matches!(s, S::Plane(p) if p.is_two_sided());
            // Geoms with flat faces: their overlap is outlined (Genesis 1.4.5 leaves spheres, ellipsoids and capsules
            // out).
            let faceted =
                |s: &Shape| matches!(s.kind(), ShapeKind::Box | ShapeKind::ConvexMesh | ShapeKind::Cylinder);
            // MuJoCo 4.0 has no perturbation scheme: under its rules, pairs without a routine keep one contact.
            if rules.perturbations
                && request.multi_contact
                && !smooth(a)
                && !smooth(b)
                && !two_sided(a)
                && !two_sided(b)
            {
                if plane_a {
                    let detect = |pa: &Pose, pb: &Pose| {
                        detect_contact(ws, a, pa, b, pb, request, rules, tol).ok().flatten().map(|(c, _)| c)
                    };
                    let scale = (rules.tolerance_size)(b);
                    let frame_b = pose_b.rotation * request.frames[1];
                    let pp = PlanePerturbation { first, pose_a: *pose_a, pose_b: *pose_b, frame_b, scale };
                    plane_perturbation_contacts(&pp, request, out, refine, detect);
                } else {
                    let vol = |s: &Shape| {
                        let m = s.local_aabb().max;
                        m.x * m.y * m.z
                    };
                    let frame = if vol(a) < vol(b) {
                        pose_a.rotation * request.frames[0]
                    } else {
                        pose_b.rotation * request.frames[1]
                    };
                    let discrete = |s: &Shape| matches!(s.kind(), ShapeKind::Box | ShapeKind::ConvexMesh);
                    let fp = FacePerturbation {
                        first,
                        first_detection,
                        pose_a: *pose_a,
                        pose_b: *pose_b,
                        frame,
                        scale: (rules.tolerance_size)(a).min((rules.tolerance_size)(b)),
                        discrete: discrete(a) && discrete(b),
                        outlined: faceted(a) && faceted(b),
                    };
                    let support = |g: usize, d: DVec3| {
                        if g == 0 { world_support(a, pose_a, d) } else { world_support(b, pose_b, d) }
                    };
                    // Genesis 1.4.5 caches contact 0's normal before the perturbed detections, which warm-start from it.
                    let warm = ContactRequest { cached_normal: Some(first.normal), ..*request };
                    let detect = |pa: &Pose, pb: &Pose| {
                        detect_contact(ws, a, pa, b, pb, &warm, rules, tol).ok().flatten()
                    };
                    face_perturbation_contacts(&fp, request, out, refine, support, detect);
                }
            }
        }
    }
    Ok(())
}

/// Whether a pair of kinds has a closed form (or SAT) in [`signed_distance`], so MPR is not used for it.
fn has_closed_form(a: ShapeKind, b: ShapeKind) -> bool {
    use ShapeKind as K;
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    matches!(
        (a, b),
        (K::Plane, _)
            | (K::Sphere, K::Sphere | K::Capsule | K::Box)
            | (K::Capsule, K::Capsule)
            | (K::Box, K::Box)
    )
}

/// One contact (simulator convention), if the shapes penetrate (or a half-space grazes the shape within the rules'
/// `plane_grazing_band`, at penetration 0): Genesis's analytic capsule–capsule, closed forms where they exist,
/// otherwise MPR with
/// the MPR → GJK/EPA rule of spec §A.8 where the rules ask for it, or GJK/EPA directly.
/// Also says how it was found: MPR's portal, or GJK/EPA's witnesses and answer face.
#[allow(clippy::too_many_arguments)]
fn detect_contact(
    ws: &mut QueryWorkspace,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &ContactRequest,
    rules: &ContactRules,
    tol: f64,
) -> Result<Option<(Contact, Detection)>> {
    // Genesis 1.4.5's analytic capsule–capsule (the MuJoCo dialect has its own routine for the pair).
    if let (Shape::Capsule(ca), Shape::Capsule(cb)) = (a, b) {
        let c = capsule_capsule_contact(
            capsule_segment(ca, pose_a),
            ca.radius(),
            capsule_segment(cb, pose_b),
            cb.radius(),
        );
        return Ok(c.map(|c| (c, Detection::default())));
    }
    let generic =
        a.kind().is_bounded_convex() && b.kind().is_bounded_convex() && !has_closed_form(a.kind(), b.kind());
    if generic && request.convex_algorithm == ConvexAlgorithm::Mpr {
        let min_diag = a.local_aabb().diagonal_length().min(b.local_aabb().diagonal_length());
        let stage = with_convex!(
            a,
            |sa| with_convex!(
                b,
                |sb| mpr_stage_traced(sa, pose_a, sb, pose_b, request, rules, tol, min_diag),
                (MprStage::Miss, None)
            ),
            (MprStage::Miss, None)
        );
        match stage {
            (MprStage::Miss, _) => return Ok(None),
            (MprStage::Keep(hit), portal) => {
                return Ok(Some((hit, Detection { supports: portal, ..Detection::default() })));
            }
            (MprStage::Refine, _) => {}
        }
    }
    let sd = signed_distance(ws, a, pose_a, b, pose_b, &request.distance, None, false)?;
    if let (Some(band), Shape::Plane(plane)) = (rules.plane_grazing_band, a)
        && !plane.is_two_sided()
        && sd.distance >= 0.0
        && sd.distance < band * (rules.tolerance_size)(b)
    {
        let c = Contact { position: 0.5 * (sd.point_a + sd.point_b), normal: -sd.normal, penetration: 0.0 };
        return Ok(Some((c, Detection::default())));
    }
    Ok(contact_from_signed(&sd).map(|c| {
        let supports = if sd.algorithm == Algorithm::GjkEpa { ws.epa.answer_face() } else { None };
        (c, Detection { used_gjk: true, witnesses: Some((sd.point_a, sd.point_b)), supports })
    }))
}

/// What the MPR stage of a generic convex pair decided.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MprStage {
    /// No penetration.
    Miss,
    /// MPR's contact stands.
    Keep(Contact),
    /// The contact is recomputed by GJK/EPA (spec §A.8).
    Refine,
}

/// MPR on two convex cores, and whether its contact stands: spec §A.8 recomputes a deep contact, or any non-shallow
/// contact without a cached normal, by GJK/EPA (where the rules ask for it). `min_diag`: the smaller of the two
/// local box diagonals.
#[allow(clippy::too_many_arguments)]
pub(crate) fn mpr_stage<A: CoreShape, B: CoreShape>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    request: &ContactRequest,
    rules: &ContactRules,
    tol: f64,
    min_diag: f64,
) -> MprStage {
    mpr_stage_traced(a, pose_a, b, pose_b, request, rules, tol, min_diag).0
}

/// [`mpr_stage`] with MPR's last portal (world support points on A and B).
#[allow(clippy::too_many_arguments)]
fn mpr_stage_traced<A: CoreShape, B: CoreShape>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    request: &ContactRequest,
    rules: &ContactRules,
    tol: f64,
    min_diag: f64,
) -> (MprStage, Option<[SupportPoint; 3]>) {
    let pair = MinkowskiPair { a: Posed::new(a, pose_a), b: Posed::new(b, pose_b), inflate: true };
    let mut start = MprStart::new(&pair);
    if let Some(n) = request.cached_normal {
        start = start.with_cached_normal(n);
    }
    let settings = match rules.mpr_relative_tolerance {
        Some(relative) => MprSettings { tolerance: relative * 0.5 * min_diag, ..rules.mpr },
        None => rules.mpr,
    };
    let out = mpr_with_cache(&pair, &start, &settings);
    let Some(hit) = out.contact() else { return (MprStage::Miss, None) };
    let prefer_gjk = rules.refine_deep_mpr
        && hit.penetration > tol
        && (request.cached_normal.is_none() || hit.penetration >= 0.125 * min_diag);
    if prefer_gjk { (MprStage::Refine, None) } else { (MprStage::Keep(hit), out.portal) }
}

/// Absolute tolerance of spec §A.9, `tolerance · min(size)` over A and B with the rules' size (`a = None` for a
/// plane).
fn tolerance(rules: &ContactRules, request: &ContactRequest, a: Option<&Shape>, b: &Shape) -> f64 {
    let size = rules.tolerance_size;
    let sb = size(b);
    request.tolerance * a.map_or(sb, |a| size(a).min(sb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// The capsule axis of [`rotate_z`] equals glam's full rotation of `(0, 0, h)` exactly (as values), on random
    /// rotations, the identity and quarter turns.
    #[test]
    fn z_axis_is_the_full_rotation() {
        let mut rng = Rng(0x2a15);
        let mut poses: Vec<Pose> = (0..5000).map(|_| rng.pose(2.0)).collect();
        poses.push(Pose::IDENTITY);
        for axis in [DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X] {
            let q = glam::DQuat::from_axis_angle(axis, std::f64::consts::FRAC_PI_2);
            poses.push(Pose::new(DVec3::ZERO, q).expect("a unit quaternion"));
        }
        for (k, pose) in poses.iter().enumerate() {
            let h = 0.1 + rng.unit();
            assert_eq!(rotate_z(pose, h), pose.transform_vector(DVec3::new(0.0, 0.0, h)), "pose {k}");
        }
    }

    /// Capsule–box and box–capsule are one closed form, mirrored: same distance, opposite normals, witnesses
    /// exchanged.
    #[test]
    fn box_capsule_mirrors_capsule_box() {
        let mut rng = Rng(0xb0ca);
        let request = DistanceRequest::default();
        let mut ws = QueryWorkspace::default();
        for k in 0..500 {
            let capsule: Shape = signorini_geometry::Capsule::new(0.05 + 0.3 * rng.unit(), 0.05 + rng.unit())
                .expect("valid")
                .into();
            let cuboid: Shape = signorini_geometry::Cuboid::new(DVec3::new(
                0.2 + rng.unit(),
                0.2 + rng.unit(),
                0.2 + rng.unit(),
            ))
            .expect("valid")
            .into();
            let (pc, pb) = (rng.pose(1.5), rng.pose(1.5));
            let ab = signed_distance(&mut ws, &capsule, &pc, &cuboid, &pb, &request, None, true)
                .expect("supported");
            let ba = signed_distance(&mut ws, &cuboid, &pb, &capsule, &pc, &request, None, true)
                .expect("supported");
            assert_eq!(ab.algorithm, Algorithm::Analytic, "case {k}");
            assert_eq!((ab.distance, ab.normal), (ba.distance, -ba.normal), "case {k}");
            assert_eq!((ab.point_a, ab.point_b), (ba.point_b, ba.point_a), "case {k}");
        }
    }
}
