//! Box–mesh and mesh–mesh: MuJoCo 4.0's `mjc_Convex` (`engine_collision_convex.c`) with its native convex
//! collision (`engine_collision_gjk.c`, "nativeccd"): GJK decides whether the geoms intersect, EPA finds the
//! penetration depth and its witness points, and, as multiccd is on by default in 4.0, the features of the final
//! EPA face give up to four contacts by polygon clipping.
//!
//! * GJK uses the signed-volume subalgorithm (`S1D`/`S2D`/`S3D`) from the segment between the geom centres, with
//!   MuJoCo's discrete-geometry settings (margin 0: no distance tolerance, `mjMINVAL` minimum norm), until the
//!   simplex is a tetrahedron around the origin (MuJoCo 4.0.1 has no `gjkIntersect` backup; its next point is the
//!   origin's projection onto the reduced simplex; see `gjk.rs`).
//! * EPA starts from the GJK simplex (a segment, triangle or tetrahedron grown to a hexahedron or tetrahedron),
//!   expands the face nearest to the origin by its support point, deletes the visible faces (the horizon walk) and
//!   stops at `ccd_tolerance` or on a repeated support vertex pair; a first support lying below the first face by
//!   more than the tolerance means no contact. The single contact is `dist = −depth`, normal
//!   `normalize(x1 − x2)`, position midway between the witness points.
//! * Multi-contact (`multicontact.rs`, MuJoCo 4.0.1's `mjc_multicontact`): the distinct support vertices of each
//!   geom on the final EPA face (or GJK's simplex, for a capsule's shallow contact) make a vertex, edge or face
//!   feature; their face normals (box faces, mesh polygons, a cylinder's cap when all its support points lie on
//!   it) are compared. The most opposite pair of faces facing each other within `0.996` is clipped face against
//!   face (Sutherland–Hodgman); else an edge within `0.0888` of parallel to a face is clipped by that face (a
//!   capsule's edge is its surface line through the witness point, a cylinder's its side line along the face). More
//!   than four clipped points are reduced to the largest-area quadrilateral, a clipped edge keeps its two farthest
//!   points. Each point is projected onto the clipping face; its depth is measured along the other face's normal
//!   (face–face) or the clipping face's normal (edge–face), the normal is that of the witness difference.
//!
//! The port follows MuJoCo's arithmetic (loop orders, strict/non-strict comparisons, tie rules) so that contacts
//! agree to rounding. Meshes are in their asset frame (MuJoCo recentres them on the centroid; GJK starts from the
//! centroid's world position, as MuJoCo does). What cannot follow MuJoCo is the mesh polygon data, which comes from
//! our hull ([`ConvexMesh`]) rather than qhull's triangles: where each polygon's vertex list starts (it decides which
//! quadrilateral is kept when clipping leaves more than four points; another one of the same clipped polygon comes
//! out), the order of a vertex's polygons (it decides between two faces that both qualify for an edge–face contact),
//! and the normal of a polygon merged from nearly but not exactly coplanar triangles. Support ties also break
//! differently where MuJoCo's vertex list holds interior points (its hill climb and vertex indices differ).
//!
//! Storage: the EPA polytope and the clipping buffers are `Vec`s in a thread-local scratch, reused across calls
//! (no allocation once warm).

use std::cell::RefCell;

use glam::{DMat3, DVec3};
use signorini_geometry::{ConvexMesh, Shape};

use super::quad::{area4, climb};
use super::{Frame, MINVAL, MjContact};

mod epa;
mod gjk;
mod hfield;
mod multicontact;
mod support;

pub(crate) use hfield::convex_hfield;
pub(crate) use support::ellipsoid_support;

use epa::*;
use gjk::*;
use multicontact::*;
use support::*;

const MINVAL2: f64 = MINVAL * MINVAL;
/// `mjMAX_LIMIT`.
const MAX_LIMIT: f64 = f64::MAX;
const FLT_MAX: f64 = f32::MAX as f64;
/// `mjOption.ccd_tolerance` and `ccd_iterations` (MuJoCo's defaults).
const TOLERANCE: f64 = 1e-6;
const MAX_ITERATIONS: usize = 35;
/// Box and mesh pairs with multiccd: at most four contacts.
const MAX_CONTACTS: usize = 4;
/// Two polygon normals are opposite faces when their dot product is below `−FACE_TOL`.
const FACE_TOL: f64 = 0.996;
/// An edge lies along a face when `|e·n| < EDGE_TOL`.
const EDGE_TOL: f64 = 0.0888;
/// Meshes with at least this many vertices use the hill-climbing support (`mjMESH_HILLCLIMB_MIN`).
const HILL_MIN: usize = 10;

/// MuJoCo's convex collision of a box or mesh (geom 1) with a box or mesh (geom 2) with multiccd (MuJoCo 4.0's
/// default); appends 0–4 contacts.
pub(crate) fn convex(g1: &Shape, f1: &Frame, g2: &Shape, f2: &Frame, margin: f64, out: &mut Vec<MjContact>) {
    convex_with(g1, f1, g2, f2, margin, true, out);
}

/// [`convex`] with `<flag multiccd="disable"/>`: the single EPA contact.
pub(crate) fn convex_single(
    g1: &Shape,
    f1: &Frame,
    g2: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    convex_with(g1, f1, g2, f2, margin, false, out);
}

fn convex_with(
    g1: &Shape,
    f1: &Frame,
    g2: &Shape,
    f2: &Frame,
    margin: f64,
    multi: bool,
    out: &mut Vec<MjContact>,
) {
    with_objects(g1, f1, g2, f2, margin, |s, o1, o2| penetration(s, o1, o2, margin, multi, out));
}

/// Runs `f` with the two geoms' CCD objects and this thread's scratch; nothing for a shape without a support.
fn with_objects(
    g1: &Shape,
    f1: &Frame,
    g2: &Shape,
    f2: &Frame,
    margin: f64,
    f: impl FnOnce(&mut Scratch, &mut Obj<'_>, &mut Obj<'_>),
) {
    let (Some(mut o1), Some(mut o2)) = (Obj::new(g1, f1, margin), Obj::new(g2, f2, margin)) else {
        return;
    };
    with_scratch(|s| f(s, &mut o1, &mut o2));
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Runs `f` with this thread's scratch buffers.
fn with_scratch(f: impl FnOnce(&mut Scratch)) {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        // Not reachable (no re-entrant call), but never panic: use fresh buffers.
        Err(_) => f(&mut Scratch::default()),
    });
}

#[derive(Debug, Default)]
struct Scratch {
    pt: Polytope,
    clip: Clip,
}

/// `mjc_Convex` for cylinder against cylinder, box or mesh and capsule against cylinder or mesh: the single contact,
/// then MuJoCo 4.0.1's multi-contact step, which reads cylinder caps and sides and capsule sides as polygon features
/// ([`multicontact`]).
pub(crate) fn convex_clipped(
    g1: &Shape,
    f1: &Frame,
    g2: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    with_objects(g1, f1, g2, f2, margin, |s, o1, o2| penetration(s, o1, o2, margin, true, out));
}

/// `mjc_Convex` for the pairs that get one contact (sphere and ellipsoid against the convex shapes, capsule against
/// an ellipsoid; with `<flag multiccd="disable"/>`, cylinder and capsule pairs too): `mjc_penetration`'s single
/// contact.
pub(crate) fn convex_one(
    g1: &Shape,
    f1: &Frame,
    g2: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    with_objects(g1, f1, g2, f2, margin, |s, o1, o2| penetration(s, o1, o2, margin, false, out));
}

/// `mjc_penetration` (`mjc_ccd`, MuJoCo 4.0.1). GJK first runs on the geoms without their margins, spheres and
/// capsules shrunk to their centre point or segment: when the cores are farther apart than the tolerance, GJK's
/// witnesses moved out by each geom's [`Obj::shrink_radius`] along the core normal give the contact, and with `multi`
/// the multi-contact step starts from GJK's final simplex; otherwise (deep contact) GJK and EPA run again on the full
/// geoms ([`collide`]), as they do at once for a pair of margin-free boxes, meshes, cylinders and ellipsoids.
fn penetration(
    s: &mut Scratch,
    o1: &mut Obj<'_>,
    o2: &mut Obj<'_>,
    margin: f64,
    multi: bool,
    out: &mut Vec<MjContact>,
) {
    let round = |o: &Obj<'_>| matches!(o.geom, Geom::Sphere(_) | Geom::Capsule { .. });
    if round(o1) || round(o2) || o1.margin > 0.0 || o2.margin > 0.0 {
        let (r1, r2) = (o1.shrink_radius(), o2.shrink_radius());
        (o1.shrunk, o2.shrunk) = (round(o1), round(o2));
        // Each geom's half margin is in its shrink radius: GJK runs on the geoms without their margins.
        let (m1, m2) = (o1.margin, o2.margin);
        (o1.margin, o2.margin) = (0.0, 0.0);
        let mut st = Status { x1: o1.center, x2: o2.center, dist_cutoff: r1 + r2, ..Status::default() };
        gjk(&mut st, o1, o2);
        (o1.shrunk, o2.shrunk) = (false, false);
        (o1.margin, o2.margin) = (m1, m2);
        if st.dist > TOLERANCE {
            // `inflate`: move the witnesses out by the radii along the core normal.
            let n = normalize(st.x2 - st.x1);
            let (x1, x2) = (st.x1 + n * r1, st.x2 - n * r2);
            let dist = st.dist - (r1 + r2);
            if dist < 0.0 {
                let features = multi.then(|| {
                    let simplex = &st.simplex[..st.nsimplex.min(3)];
                    (Feature::of(o1, simplex, true), Feature::of(o2, simplex, false))
                });
                contacts(features, (x1, x2, dist), o1, o2, margin, &mut s.clip, out);
            }
            return;
        }
    }
    collide(s, o1, o2, margin, multi, out);
}

/// `mjc_Convex` → `mjc_ccd`: GJK, EPA when the geoms intersect, then the multi-contact step.
fn collide(
    s: &mut Scratch,
    o1: &mut Obj<'_>,
    o2: &mut Obj<'_>,
    margin: f64,
    multi: bool,
    out: &mut Vec<MjContact>,
) {
    let mut st = Status { x1: o1.center, x2: o2.center, ..Status::default() };
    gjk(&mut st, o1, o2);
    if !(st.dist <= TOLERANCE && st.nsimplex > 1 && !st.separated) {
        return;
    }
    let pt = &mut s.pt;
    pt.clear();
    let ret = match st.nsimplex {
        2 => polytope2(pt, &mut st, o1, o2),
        3 => polytope3(pt, &mut st, o1, o2, true),
        _ => polytope4(pt, &mut st, o1, o2),
    };
    if ret != 0 {
        return;
    }
    let Some(face) = epa(pt, o1, o2) else { return };
    let (x1, x2, dist) = epa_witness(pt, face);
    let features = multi.then(|| {
        let verts = pt.faces[face].verts.map(|i| pt.verts[i]);
        (Feature::of(o1, &verts, true), Feature::of(o2, &verts, false))
    });
    contacts(features, (x1, x2, dist), o1, o2, margin, &mut s.clip, out);
}

/// Appends the contacts of the multi-contact step from `features` when it clips any, otherwise the single contact
/// at the midpoint of the witness points `x1`, `x2` (normal from geom 2's witness to geom 1's) when `dist < 0`.
fn contacts(
    features: Option<(Feature, Feature)>,
    (x1, x2, dist): (DVec3, DVec3, f64),
    o1: &Obj<'_>,
    o2: &Obj<'_>,
    margin: f64,
    clip: &mut Clip,
    out: &mut Vec<MjContact>,
) {
    if let Some(features) = features {
        let start = out.len();
        if multicontact(features, x1, x2, o1, o2, margin, clip, out) {
            return;
        }
        out.truncate(start);
    }
    if dist < 0.0 {
        out.push(MjContact {
            dist: margin + dist,
            pos: (x1 + x2) * 0.5,
            normal: normalize(x1 - x2),
            tangent: DVec3::ZERO,
        });
    }
}

#[cfg(test)]
mod tests {
    use glam::DQuat;
    use signorini_geometry::{ConvexMesh, Cuboid, Pose};

    use super::*;

    fn cube(h: f64) -> Shape {
        ConvexMesh::from_points(&Cuboid::new(DVec3::splat(h)).unwrap().corners()).unwrap().into()
    }

    fn frame(t: DVec3, q: DQuat) -> Frame {
        Frame::new(&Pose::new(t, q).unwrap())
    }

    fn run(g1: &Shape, f1: &Frame, g2: &Shape, f2: &Frame) -> Vec<MjContact> {
        let mut out = Vec::new();
        convex(g1, f1, g2, f2, 0.0, &mut out);
        out
    }

    fn has(cs: &[MjContact], p: DVec3) -> bool {
        cs.iter().any(|c| (c.pos - p).length() < 1e-12)
    }

    #[test]
    fn cube_face_down_on_cube_gives_the_clipped_square() {
        // A 0.1 cube sunk 1 mm into the top face of a 0.2 cube: its bottom face, inside the big top face.
        let (small, big) = (cube(0.05), cube(0.1));
        let top = frame(DVec3::new(0.02, 0.01, 0.149), DQuat::IDENTITY);
        let cs = run(&small, &top, &big, &frame(DVec3::ZERO, DQuat::IDENTITY));
        assert_eq!(cs.len(), 4, "{cs:?}");
        for c in &cs {
            assert!((c.dist + 0.001).abs() < 1e-12, "{c:?}");
            assert!((c.normal - DVec3::NEG_Z).length() < 1e-12, "{c:?}");
        }
        for (x, y) in [(-0.03, -0.04), (0.07, -0.04), (0.07, 0.06), (-0.03, 0.06)] {
            assert!(has(&cs, DVec3::new(x, y, 0.0995)), "{cs:?}");
        }
        // Overhanging a corner: the overlap square [0.05, 0.1]².
        let top = frame(DVec3::new(0.1, 0.1, 0.149), DQuat::IDENTITY);
        let cs = run(&small, &top, &big, &frame(DVec3::ZERO, DQuat::IDENTITY));
        assert_eq!(cs.len(), 4, "{cs:?}");
        for (x, y) in [(0.05, 0.05), (0.1, 0.05), (0.1, 0.1), (0.05, 0.1)] {
            assert!(has(&cs, DVec3::new(x, y, 0.0995)), "{cs:?}");
        }
    }

    #[test]
    fn cube_on_its_edge_gives_two() {
        let (small, big) = (cube(0.05), cube(0.1));
        let h = 0.05 * 2f64.sqrt();
        let q = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4);
        let cs = run(
            &small,
            &frame(DVec3::new(0.0, 0.0, 0.1 + h - 0.001), q),
            &big,
            &frame(DVec3::ZERO, DQuat::IDENTITY),
        );
        assert_eq!(cs.len(), 2, "{cs:?}");
        for c in &cs {
            assert!((c.dist + 0.001).abs() < 1e-9, "{c:?}");
            assert!((c.normal - DVec3::NEG_Z).length() < 1e-12, "{c:?}");
            assert!((c.pos.x.abs() - 0.05).abs() < 1e-12 && c.pos.y.abs() < 1e-12, "{c:?}");
        }
    }

    #[test]
    fn primitive_box_and_separated_and_degenerate() {
        let b: Shape = Cuboid::new(DVec3::new(0.2, 0.2, 0.05)).unwrap().into();
        let m = cube(0.05);
        // Mesh cube resting 2 mm deep on the box: four contacts, normal from the box (geom 1) up to the mesh.
        let cs = run(
            &b,
            &frame(DVec3::ZERO, DQuat::IDENTITY),
            &m,
            &frame(DVec3::new(0.0, 0.0, 0.098), DQuat::IDENTITY),
        );
        assert_eq!(cs.len(), 4, "{cs:?}");
        assert!(cs.iter().all(|c| (c.dist + 0.002).abs() < 1e-12 && (c.normal - DVec3::Z).length() < 1e-12));
        // Apart: nothing.
        let cs = run(
            &b,
            &frame(DVec3::ZERO, DQuat::IDENTITY),
            &m,
            &frame(DVec3::new(0.0, 0.0, 0.101), DQuat::IDENTITY),
        );
        assert!(cs.is_empty());
        // Coincident centres and a NaN pose neither panic nor hang.
        let _ = run(&m, &frame(DVec3::ZERO, DQuat::IDENTITY), &m, &frame(DVec3::ZERO, DQuat::IDENTITY));
        let bad = Frame { pos: DVec3::NAN, mat: DMat3::IDENTITY, pose: Pose::IDENTITY };
        assert!(run(&m, &bad, &b, &frame(DVec3::ZERO, DQuat::IDENTITY)).is_empty());
    }
}
