//! The public query API: signed distance, boolean collision with a security margin, and contact manifolds.
//!
//! **Conventions.**
//! - [`distance`] and [`collide`] follow Coal (spec §3): the signed distance is negative when the shapes overlap
//!   (minus the penetration depth); `point_a` lies on A and `point_b` on B (world frame); `normal` is a unit vector
//!   **from A to B**, and `point_b − point_a = distance · normal`. Translating B by `−distance · normal` makes
//!   penetrating shapes touch.
//! - Triangle meshes are **surfaces** (Coal's `BVHModel` semantics): a distance involving a
//!   [`TriangleMesh`](signorini_geometry::TriangleMesh) is the unsigned distance between the triangle soup and the
//!   other mesh's triangles or the other (convex, solid) shape, 0 when they meet, with `point_a`, `point_b` on the
//!   two. At distance 0 both witnesses are one point where they meet and `normal` is the unit normal of the mesh's
//!   triangle there (see `pairs/mesh_mesh.rs`, `pairs/mesh_convex.rs`). [`contacts`] does not take triangle meshes
//!   ([`CollisionError::Unsupported`]).
//! - [`contacts`] follows the simulator (Genesis) convention of [`crate::contact`]: normal **from B to A**,
//!   `penetration ≥ 0`, position at the midpoint between the surfaces.
//!
//! **Dispatch.** Each query matches on the pair of [`ShapeKind`](signorini_geometry::ShapeKind)s (a `match` the compiler checks for exhaustiveness,
//! see `dispatch.rs` and `docs/NARROW_PHASE.md`), swapping A and B where a routine is written for one order. The
//! free [`contacts`] functions follow the native dialect; the MuJoCo-compatible one is reached through
//! [`MujocoDispatcher`](crate::dialect::MujocoDispatcher) (see [`crate::dialect`]). A
//! pair without an algorithm returns [`CollisionError::Unsupported`]; nothing panics.
//!
//! **Thread safety and allocation.** Queries are pure functions of their inputs. EPA's polytope lives in a
//! [`QueryWorkspace`]; the free functions use one per thread (`thread_local!`), so after the first call on a thread
//! no query allocates except to return contacts.

use std::cell::RefCell;

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};
use signorini_geometry::{Pose, Shape};

use crate::contact::{Contact, Manifold};
use crate::dialect::{NativeDispatcher, PairDispatcher};
use crate::dispatch;
use crate::error::{CollisionError, Result};
use crate::narrow::epa::{EpaSettings, EpaWorkspace};
use crate::narrow::gjk::GjkSettings;

/// Which algorithm produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// A closed form for the pair.
    Analytic,
    /// GJK (separated shapes).
    Gjk,
    /// GJK then EPA (overlapping shapes).
    GjkEpa,
    /// Separating-axis test (box–box overlap).
    Sat,
    /// Minkowski portal refinement.
    Mpr,
    /// Branch and bound over bounding-volume hierarchies (triangle meshes), exact per triangle.
    Bvh,
    /// Newton's method on the support function of `A ⊖ B` (a cylinder or an ellipsoid against a primitive).
    Newton,
}

/// Parameters of a distance query.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DistanceRequest {
    /// GJK settings (tolerance 1e-10 relative, 128 iterations, no Nesterov by default).
    pub gjk: GjkSettings,
    /// EPA settings (tolerance 1e-10 relative, 255 iterations).
    pub epa: EpaSettings,
    /// Warm start for GJK: a guess of the direction `point_a − point_b`, e.g. `−normal` of the previous query on
    /// the same pair (Coal's cached guess). `None` starts from the centre difference.
    pub warm_start: Option<DVec3>,
}

/// Result of a distance query (Coal convention, see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DistanceResult {
    /// Signed distance (m): `> 0` separated, `< 0` minus the penetration depth.
    pub distance: f64,
    /// Witness point on A, world frame.
    pub point_a: DVec3,
    /// Witness point on B, world frame.
    pub point_b: DVec3,
    /// Unit normal from A towards B; `point_b − point_a = distance · normal`.
    pub normal: DVec3,
    /// Iterations (support queries) of the iterative algorithms, 0 for closed forms.
    pub iterations: u32,
    /// Which algorithm answered.
    pub algorithm: Algorithm,
}

/// Parameters of a boolean collision query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollisionRequest {
    /// The shapes collide when their signed distance is `≤ security_margin` (m). Default 0. May be negative (then
    /// only penetrations deeper than `−security_margin` count).
    pub security_margin: f64,
    /// Most contacts to report when colliding (0: boolean answer only, the fastest). Default 1.
    pub max_contacts: usize,
    /// Settings of the underlying distance computation.
    pub distance: DistanceRequest,
}

impl Default for CollisionRequest {
    fn default() -> Self {
        Self { security_margin: 0.0, max_contacts: 1, distance: DistanceRequest::default() }
    }
}

/// A contact reported by [`collide`], in the Coal convention (normal from A to B, signed distance).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CollisionContact {
    /// Signed distance at this contact (negative: penetration; Coal 3's `penetration_depth`).
    pub distance: f64,
    /// Unit normal from A towards B.
    pub normal: DVec3,
    /// Midpoint of the two witness points.
    pub position: DVec3,
    /// Witness on A.
    pub point_a: DVec3,
    /// Witness on B.
    pub point_b: DVec3,
}

/// Result of [`collide`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CollisionResult {
    /// Whether the signed distance is `≤ security_margin`.
    pub colliding: bool,
    /// Up to `max_contacts` contacts, deepest first (empty when not colliding or `max_contacts = 0`).
    pub contacts: Vec<CollisionContact>,
}

/// Which algorithm answers general convex–convex contacts (pairs without a closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConvexAlgorithm {
    /// MPR, replaced by GJK/EPA when it is unreliable (spec §A.8). Genesis's default.
    #[default]
    Mpr,
    /// GJK then EPA (exact depth to tolerance; slower).
    GjkEpa,
}

/// Parameters of a contact-manifold query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactRequest {
    /// Algorithm for convex pairs without a closed form.
    pub convex_algorithm: ConvexAlgorithm,
    /// The pair's normal from the previous step (B → A), if any: MPR's warm start (spec §A.7) and the MPR→GJK rule.
    pub cached_normal: Option<DVec3>,
    /// More than one contact for convex pairs. [`NativeDispatcher`]: by small perturbations (spec §A.9).
    /// [`MujocoDispatcher`](crate::dialect::MujocoDispatcher): MuJoCo 4.0's multiccd polygon clipping for box and
    /// mesh pairs (its `multiccd` flag); other pairs without a MuJoCo routine keep one contact, as MuJoCo 4.0 has no
    /// perturbation scheme. Default true.
    pub multi_contact: bool,
    /// Relative tolerance for deduplication and acceptance, ≥ 0. Default 1e-2; the MuJoCo dialect's
    /// [`default_request`](PairDispatcher::default_request) uses 1e-3.
    pub tolerance: f64,
    /// Cap on contacts per pair for perturbation-based manifolds (5 in Genesis). Analytic manifolds (box–box) may
    /// return up to 8.
    pub max_contacts: usize,
    /// Detection margin of the pair (m), ≥ 0: the MuJoCo dialect reports contacts while the surfaces are less than
    /// this far apart (MuJoCo: the sum of the two geoms' margins; such a contact has a negative penetration, down to
    /// `−margin`); the native dialect has no margin (Genesis) and ignores it. Default 0.
    pub margin: f64,
    /// Cap on contacts of a pair with a triangle mesh carrying a signed distance field (the manifold chosen from its
    /// penetrating points). Default 8.
    pub max_sdf_contacts: usize,
    /// Settings of the underlying distance computations.
    pub distance: DistanceRequest,
    /// The perturbation frame of A and of B, each in its geom frame: the native dialect's perturbation contacts
    /// tilt the pair about axes built in the reference geom's frame (Genesis 1.4.5: its link's inertial frame,
    /// [`BodyDesc::inertial_rotation`](crate::world::BodyDesc::inertial_rotation), which a
    /// [`CollisionModel`](crate::world::CollisionModel) fills in per pair). Default: both identity (the geom frames).
    pub frames: [DQuat; 2],
}

impl ContactRequest {
    /// The request with its per-geom fields (`frames`) in the order of the swapped pair `(B, A)`.
    #[inline]
    pub(crate) fn swapped(&self) -> Self {
        Self { frames: [self.frames[1], self.frames[0]], ..*self }
    }
}

impl Default for ContactRequest {
    fn default() -> Self {
        Self {
            convex_algorithm: ConvexAlgorithm::Mpr,
            cached_normal: None,
            multi_contact: true,
            tolerance: 1e-2,
            max_contacts: 5,
            max_sdf_contacts: 8,
            margin: 0.0,
            distance: DistanceRequest::default(),
            frames: [DQuat::IDENTITY; 2],
        }
    }
}

/// Reusable scratch memory of the iterative algorithms.
#[derive(Debug, Clone, Default)]
pub struct QueryWorkspace {
    /// EPA polytope storage.
    pub epa: EpaWorkspace,
    /// Contacts of a MuJoCo pair routine before their conversion.
    pub(crate) mujoco: Vec<crate::pairs::mujoco::MjContact>,
    /// The node-pair stack of the BVH traversals (triangle meshes).
    pub(crate) bvh_stack: Vec<crate::pairs::mesh_mesh::NodePair>,
    /// The node stack of point–mesh searches.
    pub(crate) point_stack: Vec<(u32, f64)>,
    /// Candidate contacts of a mesh with a signed distance field.
    pub(crate) sdf: crate::pairs::mesh_sdf::SdfScratch,
    /// EPA faces `(distance, normal)` from which the support-function Newton starts again (overlapping curved pairs).
    pub(crate) restarts: Vec<(f64, DVec3)>,
}

thread_local! {
    static WORKSPACE: RefCell<QueryWorkspace> = RefCell::new(QueryWorkspace::default());
}

pub(crate) fn with_workspace<T>(f: impl FnOnce(&mut QueryWorkspace) -> T) -> T {
    WORKSPACE.with(|ws| match ws.try_borrow_mut() {
        Ok(mut ws) => f(&mut ws),
        Err(_) => f(&mut QueryWorkspace::default()),
    })
}

/// Checks both poses of a query ([`validate_pose`] on A, then B).
#[inline(always)]
fn validate_poses(pose_a: &Pose, pose_b: &Pose) -> Result<()> {
    validate_pose(pose_a, "A")?;
    validate_pose(pose_b, "B")
}

/// Checks that a pose is finite with a unit rotation (within 1e-6). The fast path avoids the square root; only a
/// failing pose goes through [`Pose::new`] for its detailed error.
#[inline(always)]
pub(crate) fn validate_pose(pose: &Pose, which: &'static str) -> Result<()> {
    let n2 = pose.rotation.length_squared();
    if pose.translation.is_finite() && (n2 - 1.0).abs() <= 2.0 * signorini_geometry::pose::QUAT_NORM_TOLERANCE
    {
        return Ok(());
    }
    invalid_pose(pose, which)
}

#[cold]
#[inline(never)]
fn invalid_pose(pose: &Pose, which: &'static str) -> Result<()> {
    Pose::new(pose.translation, pose.rotation)
        .map(|_| ())
        .map_err(|source| CollisionError::InvalidPose { which, source })
}

/// Signed distance between A and B with witness points (Coal convention; see the module docs).
///
/// Two triangle meshes: the unsigned distance between their surfaces, by branch and bound over their BVHs and exact
/// triangle–triangle distances (the module docs give the normal at distance 0).
///
/// Errors: [`CollisionError::InvalidPose`] for a non-finite pose or non-unit rotation; [`CollisionError::Unsupported`]
/// for pairs without an algorithm (a triangle mesh with anything but a triangle mesh, anything with a height field,
/// plane–plane).
pub fn distance(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &DistanceRequest,
) -> Result<DistanceResult> {
    with_workspace(|ws| distance_with(ws, a, pose_a, b, pose_b, request))
}

/// [`distance`] with an explicit workspace.
#[inline(always)]
pub fn distance_with(
    ws: &mut QueryWorkspace,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &DistanceRequest,
) -> Result<DistanceResult> {
    validate_poses(pose_a, pose_b)?;
    let sd = dispatch::signed_distance(ws, a, pose_a, b, pose_b, request, None, true)?;
    Ok(DistanceResult {
        distance: sd.distance,
        point_a: sd.point_a,
        point_b: sd.point_b,
        normal: sd.normal,
        iterations: sd.iterations,
        algorithm: sd.algorithm,
    })
}

/// Boolean collision with a security margin, optionally with contacts (Coal convention). Two triangle meshes collide
/// when their unsigned distance is `≤ security_margin`; with `max_contacts = 0` the BVH search stops at the first
/// triangle pair within the margin, otherwise the one contact is the nearest pair (distance 0 when intersecting).
pub fn collide(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &CollisionRequest,
) -> Result<CollisionResult> {
    with_workspace(|ws| collide_with(ws, a, pose_a, b, pose_b, request))
}

/// [`collide`] with an explicit workspace.
#[inline(always)]
pub fn collide_with(
    ws: &mut QueryWorkspace,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &CollisionRequest,
) -> Result<CollisionResult> {
    validate_poses(pose_a, pose_b)?;
    if !request.security_margin.is_finite() {
        return Err(invalid_margin(request.security_margin));
    }
    if request.max_contacts == 0
        && let Some(colliding) = dispatch::closed_form_within(a, pose_a, b, pose_b, request.security_margin)
    {
        return Ok(CollisionResult { colliding, contacts: Vec::new() });
    }
    let early = if request.max_contacts == 0 { Some(request.security_margin) } else { None };
    let sd = dispatch::signed_distance(ws, a, pose_a, b, pose_b, &request.distance, early, true)?;
    let colliding = sd.distance <= request.security_margin;
    let contacts = if colliding && request.max_contacts > 0 {
        collision_contacts(ws, a, pose_a, b, pose_b, request, &sd)?
    } else {
        Vec::new()
    };
    Ok(CollisionResult { colliding, contacts })
}

#[cold]
#[inline(never)]
fn invalid_margin(margin: f64) -> CollisionError {
    CollisionError::InvalidRequest { what: format!("security_margin must be finite, got {margin}") }
}

/// The contacts of a colliding pair: the nearest points of `sd`, then (penetrating, `max_contacts > 1`) the rest of
/// the native manifold.
#[inline(never)]
fn collision_contacts(
    ws: &mut QueryWorkspace,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &CollisionRequest,
    sd: &crate::pairs::SignedDistance,
) -> Result<Vec<CollisionContact>> {
    let mut contacts = vec![CollisionContact {
        distance: sd.distance,
        normal: sd.normal,
        position: 0.5 * (sd.point_a + sd.point_b),
        point_a: sd.point_a,
        point_b: sd.point_b,
    }];
    if request.max_contacts > 1 && sd.distance < 0.0 {
        let mut manifold = Manifold::new();
        let creq = ContactRequest { max_contacts: request.max_contacts, ..ContactRequest::default() };
        NativeDispatcher.append_contacts(ws, a, pose_a, b, pose_b, &creq, &mut manifold)?;
        for c in manifold.contacts.iter().skip(1).take(request.max_contacts - 1) {
            contacts.push(CollisionContact {
                distance: -c.penetration,
                normal: -c.normal,
                position: c.position,
                point_a: c.point_on_a(),
                point_b: c.point_on_b(),
            });
        }
    }
    Ok(contacts)
}

/// The contact manifold of A and B in the simulator convention (normal from B to A, `penetration ≥ 0`), with the
/// native dialect's semantics ([`NativeDispatcher`]; other dialects: [`PairDispatcher::contacts`]).
pub fn contacts(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &ContactRequest,
) -> Result<Manifold> {
    NativeDispatcher.contacts(a, pose_a, b, pose_b, request)
}

/// [`contacts`] into a reused manifold (cleared first) with an explicit workspace (native dialect; see
/// [`PairDispatcher::contacts_into`] for the errors).
pub fn contacts_into(
    ws: &mut QueryWorkspace,
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    request: &ContactRequest,
    out: &mut Manifold,
) -> Result<()> {
    NativeDispatcher.contacts_into(ws, a, pose_a, b, pose_b, request, out)
}

/// Converts a Coal-convention signed distance into a simulator contact, if penetrating.
pub(crate) fn contact_from_signed(sd: &crate::pairs::SignedDistance) -> Option<Contact> {
    (sd.distance < 0.0).then(|| Contact {
        position: 0.5 * (sd.point_a + sd.point_b),
        normal: -sd.normal,
        penetration: -sd.distance,
    })
}
