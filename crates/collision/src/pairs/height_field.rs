//! Height field against a bounded convex shape: the field is the union of its cell prisms
//! ([`HeightField::prism`]), and each prism near the shape is a small convex polytope for the generic convex
//! routines (MPR and GJK/EPA).
//!
//! * **Contacts** (simulator convention, A = the field): one contact per penetrating prism, from MPR (refined by
//!   GJK/EPA under the dialect's rules) or GJK/EPA, at most [`MAX_CONTACTS`] per pair as MuJoCo keeps
//!   (`mjMAXCONPAIR`); prisms are visited row by row, cell by cell. Only prisms under the shape's box (in the field
//!   frame) whose top reaches its bottom are tested.
//! * **Distance** (Coal convention): the minimum over the prisms of the prism–shape signed distance. Apart, this is
//!   the exact distance to the solid. Penetrating, it is the depth of the deepest single prism, which equals the
//!   solid's depth when the shape's deepest point lies in one prism's column and underestimates it otherwise (a
//!   shape sunk across a ridge). Prisms are pruned by their boxes' distance to the shape's box.

use std::ops::ControlFlow;

use glam::{DVec2, DVec3};
use signorini_geometry::{Aabb, HeightField, Pose};

use super::SignedDistance;
use super::convex_convex::{IterativeSettings, convex_convex};
use crate::contact::{Contact, Manifold};
use crate::dispatch::{ContactRules, MprStage, mpr_stage};
use crate::narrow::epa::EpaWorkspace;
use crate::narrow::minkowski::{CoreShape, Posed};
use crate::query::{ContactRequest, ConvexAlgorithm, DistanceRequest, contact_from_signed};

/// Contacts kept per height-field pair (MuJoCo's `mjMAXCONPAIR`).
pub const MAX_CONTACTS: usize = 50;

/// One prism of a height field, in the field's frame: three bottom corners, then the three surface corners.
#[derive(Debug, Clone, Copy)]
pub struct Prism {
    corners: [DVec3; 6],
    center: DVec3,
}

impl Prism {
    fn new(corners: [DVec3; 6]) -> Self {
        let center = corners.iter().sum::<DVec3>() / 6.0;
        Self { corners, center }
    }

    fn bounds(&self) -> Aabb {
        let lo = self.corners.iter().fold(DVec3::INFINITY, |a, &v| a.min(v));
        let hi = self.corners.iter().fold(DVec3::NEG_INFINITY, |a, &v| a.max(v));
        Aabb::new(lo, hi)
    }
}

impl CoreShape for Prism {
    /// The corner maximising `dir · v` (first on ties).
    fn core_support(&self, dir: DVec3) -> DVec3 {
        let mut best = self.corners[0];
        let mut best_dot = best.dot(dir);
        for &v in &self.corners[1..] {
            let d = v.dot(dir);
            if d > best_dot {
                (best, best_dot) = (v, d);
            }
        }
        best
    }
    fn core_radius(&self) -> f64 {
        0.0
    }
    fn core_center(&self) -> DVec3 {
        self.center
    }
}

/// The box of a posed convex shape in the field's frame (exact: supports along the field's axes).
fn local_box<B: CoreShape>(pose_h: &Pose, b: &B, pose_b: &Pose) -> Aabb {
    let posed = Posed::new(b, &pose_h.inv_compose(pose_b));
    let mut lo = DVec3::ZERO;
    let mut hi = DVec3::ZERO;
    for (i, e) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
        hi[i] = posed.support(e, true)[i];
        lo[i] = posed.support(-e, true)[i];
    }
    Aabb::new(lo, hi)
}

/// Visits the prisms of the cells under `bx` grown by `reach` in x and y, row by row, skipping those whose top lies
/// below `bx.min.z − reach`.
fn prisms_near(hf: &HeightField, bx: &Aabb, reach: f64, mut f: impl FnMut(Prism) -> ControlFlow<()>) {
    let grow = DVec2::splat(reach);
    let (rows, cols) = hf.cells_overlapping(bx.min.truncate() - grow, bx.max.truncate() + grow);
    for r in rows {
        for c in cols.clone() {
            for k in 0..2 {
                let Some(corners) = hf.prism(r, c, k) else { continue };
                if corners[3..].iter().all(|v| v.z < bx.min.z - reach) {
                    continue;
                }
                if f(Prism::new(corners)).is_break() {
                    return;
                }
            }
        }
    }
}

/// Contacts of the field (A) with a convex shape (B), appended to `out` (see the module docs). `tol`: the dialect's
/// absolute tolerance of the MPR stage.
#[allow(clippy::too_many_arguments)]
pub(crate) fn height_field_contacts<B: CoreShape>(
    ws: &mut EpaWorkspace,
    hf: &HeightField,
    pose_h: &Pose,
    b: &B,
    pose_b: &Pose,
    request: &ContactRequest,
    rules: &ContactRules,
    tol: f64,
    out: &mut Manifold,
) {
    let bx = local_box(pose_h, b, pose_b);
    let b_diag = {
        let (_, size) = b.core_local_aabb();
        size.length()
    };
    let settings = IterativeSettings {
        gjk: &request.distance.gjk,
        epa: &request.distance.epa,
        init: request.distance.warm_start,
    };
    let start = out.contacts.len();
    prisms_near(hf, &bx, 0.0, |prism| {
        let stage = if request.convex_algorithm == ConvexAlgorithm::Mpr {
            let min_diag = prism.bounds().diagonal_length().min(b_diag);
            mpr_stage(&prism, pose_h, b, pose_b, request, rules, tol, min_diag)
        } else {
            MprStage::Refine
        };
        let contact: Option<Contact> = match stage {
            MprStage::Miss => None,
            MprStage::Keep(c) => Some(c),
            MprStage::Refine => contact_from_signed(&convex_convex(&prism, pose_h, b, pose_b, &settings, ws)),
        };
        if let Some(c) = contact {
            out.contacts.push(c);
        }
        if out.contacts.len() - start >= MAX_CONTACTS {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
}

/// Signed distance from the field (A) to a convex shape (B), Coal convention (see the module docs).
pub(crate) fn height_field_distance<B: CoreShape>(
    ws: &mut EpaWorkspace,
    hf: &HeightField,
    pose_h: &Pose,
    b: &B,
    pose_b: &Pose,
    request: &DistanceRequest,
) -> SignedDistance {
    let settings = IterativeSettings { gjk: &request.gjk, epa: &request.epa, init: request.warm_start };
    let bx = local_box(pose_h, b, pose_b);
    let mut measure = |prism: &Prism| convex_convex(prism, pose_h, b, pose_b, &settings, ws);
    // An upper bound first: a prism of the cell under the box's centre (clamped to the grid).
    let (hx, hy) = hf.half_extents();
    let centre = bx.center().truncate().clamp(DVec2::new(-hx, -hy), DVec2::new(hx, hy));
    let (rows, cols) = hf.cells_overlapping(centre, centre);
    let (r, c) = (rows.start.min(hf.rows() - 2), cols.start.min(hf.cols() - 2));
    let first = hf.prism(r, c, 0).map(Prism::new);
    let mut best = first.as_ref().map(&mut measure);
    let bound = best.map_or(f64::INFINITY, |d| d.distance.max(0.0));
    prisms_near(hf, &bx, bound, |prism| {
        let limit = best.map_or(f64::INFINITY, |d| d.distance);
        if prism.bounds().distance(&bx) <= limit.max(0.0) {
            let d = measure(&prism);
            if d.distance < limit {
                best = Some(d);
            }
        }
        ControlFlow::Continue(())
    });
    // The grid has at least one cell, so `best` holds a measurement.
    best.unwrap_or(SignedDistance {
        distance: f64::INFINITY,
        point_a: pose_h.translation,
        point_b: pose_b.translation,
        normal: DVec3::Z,
        iterations: 0,
        algorithm: crate::query::Algorithm::Gjk,
    })
}
