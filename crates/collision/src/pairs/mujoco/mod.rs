//! MuJoCo's dedicated pair functions (`engine_collision_primitive.c`, `engine_collision_box.c`,
//! `engine_collision_convex.c`, `engine_collision_gjk.c`), used by the
//! [`MujocoDispatcher`](crate::dialect::MujocoDispatcher) so that contact sets (count, points, depths, normals)
//! follow MuJoCo 4.0.
//!
//! Each routine is written for MuJoCo's geom order (`plane < sphere < capsule < ellipsoid < cylinder < box < mesh`)
//! and reports [`MjContact`]s in MuJoCo's convention: `dist < 0` when penetrating, `normal` from geom 1 to geom 2,
//! `pos` midway between the surfaces. A contact exists while `dist ≤ margin`, the pair's margin (the sum of its
//! geoms', as MuJoCo's `mj_collideGeoms`). `routine` is the table from a pair of our shape kinds to a routine (with the order
//! swap) and `PairRoutine::run` converts to the simulator convention (normal from B to A, `penetration = −dist`).
//!
//! Box–box is MuJoCo 4.0's rewritten `mjc_BoxBox` (`box_box`: separating axes, then face clipping with up to 8
//! contacts or one edge–edge contact). Every pair MuJoCo sends to `mjc_Convex` follows its port (`convex`): native
//! GJK/EPA, then 4.0.1's multiccd polygon clipping for box–mesh and mesh–mesh and for the cylinder and capsule pairs
//! (a cylinder's cap or a cylinder's or capsule's side lying on a face; `convex::multicontact`); the others keep one
//! contact. Two-sided planes have no MuJoCo geom: they go to the native contact table under MuJoCo's
//! rules (`crate::dialect::mujoco`).

mod box_box;
mod boxes;
mod convex;
mod plane;
mod primitive;
mod quad;

use glam::{DMat3, DVec3};
use signorini_geometry::{Pose, Shape};

use crate::contact::{Contact, Manifold};

/// A contact in MuJoCo's convention (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MjContact {
    /// Signed distance, negative when penetrating (m).
    pub dist: f64,
    /// World midpoint between the surfaces.
    pub pos: DVec3,
    /// World unit normal from geom 1 to geom 2 (MuJoCo's `frame[0..3]`).
    pub normal: DVec3,
    /// MuJoCo's `tangent` (`frame[3..6]` before `mju_makeFrame` completes the frame): zero but for plane–capsule,
    /// whose contacts take the capsule axis.
    pub tangent: DVec3,
}

/// A geom in MuJoCo's terms: world position and rotation matrix (columns are the local axes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    pub pos: DVec3,
    pub mat: DMat3,
    pub pose: Pose,
}

/// MuJoCo's `mjMINVAL`.
pub(crate) const MINVAL: f64 = 1e-15;

impl Frame {
    fn new(pose: &Pose) -> Self {
        Self {
            pos: pose.translation,
            mat: signorini_geometry::rotation::quat_to_mat(pose.rotation),
            pose: *pose,
        }
    }

    /// The local z axis in world coordinates.
    fn z(&self) -> DVec3 {
        self.mat.z_axis
    }
}

/// MuJoCo's `geom_rbound`: the radius of the ball about the geom's centre holding it (a mesh's centre is its
/// centre of mass, where MuJoCo recentres it; unbounded shapes and triangle meshes: half their box diagonal).
pub(crate) fn geom_rbound(s: &Shape) -> f64 {
    match s {
        Shape::Sphere(x) => x.radius(),
        Shape::Capsule(x) => x.radius() + x.half_length(),
        Shape::Ellipsoid(x) => x.semi_axes().max_element(),
        Shape::Cylinder(x) => x.radius().hypot(x.half_length()),
        Shape::Box(x) => x.half_extents().length(),
        Shape::ConvexMesh(m) => {
            let c = m.inertial_origin();
            m.vertices().iter().map(|v| (*v - c).length()).fold(0.0, f64::max)
        }
        _ => 0.5 * s.local_aabb().diagonal_length(),
    }
}

/// A MuJoCo pair function: geom 1, geom 2 (MuJoCo order), margin, output.
pub(crate) type MjPairFn = fn(&Shape, &Frame, &Shape, &Frame, f64, &mut Vec<MjContact>);

/// A dedicated routine for a pair of shapes, with whether our (A, B) is MuJoCo's (geom 2, geom 1).
#[derive(Clone, Copy)]
pub(crate) struct PairRoutine {
    func: MjPairFn,
    swapped: bool,
}

/// MuJoCo's geom type order (`mjtGeom`: plane, hfield, sphere, ...); `None` for shapes MuJoCo has no dedicated function for.
pub(crate) fn mj_rank(s: &Shape) -> Option<u8> {
    Some(match s {
        Shape::Plane(p) if !p.is_two_sided() => 0,
        Shape::HeightField(_) => 1,
        Shape::Sphere(_) => 2,
        Shape::Capsule(_) => 3,
        Shape::Ellipsoid(_) => 4,
        Shape::Cylinder(_) => 5,
        Shape::Box(_) => 6,
        Shape::ConvexMesh(_) => 7,
        _ => return None,
    })
}

/// The MuJoCo routine for this pair (`mjCOLLISIONFUNC` of `engine_collision_driver.c`): box–box gets MuJoCo 4.0's
/// `mjc_BoxBox`; every pair MuJoCo answers with `mjc_Convex` gets its port: box–mesh and mesh–mesh with multiccd's
/// polygon clipping, cylinder against cylinder, box or mesh and capsule against cylinder or mesh with the same step's
/// cap and side clipping, the others with one contact. `None` only for shapes MuJoCo has no geom type for (two-sided
/// planes, triangle meshes).
pub(crate) fn routine(a: &Shape, b: &Shape, multi_contact: bool) -> Option<PairRoutine> {
    let (ra, rb) = (mj_rank(a)?, mj_rank(b)?);
    let swapped = rb < ra;
    let (lo, hi) = if swapped { (rb, ra) } else { (ra, rb) };
    let func: MjPairFn = match (lo, hi) {
        (0, 2) => plane::plane_sphere,
        (0, 3) => plane::plane_capsule,
        (0, 4) | (0, 7) => plane::plane_convex,
        (0, 5) => plane::plane_cylinder,
        (0, 6) => plane::plane_box,
        (1, 2..=7) => convex::convex_hfield,
        (2, 2) => primitive::sphere_sphere,
        (2, 3) => primitive::sphere_capsule,
        (2, 5) => primitive::sphere_cylinder,
        (2, 6) => boxes::sphere_box,
        (3, 3) => primitive::capsule_capsule,
        (3, 6) => boxes::capsule_box,
        (6, 6) => box_box::box_box,
        (6, 7) | (7, 7) if multi_contact => convex::convex,
        (6, 7) | (7, 7) => convex::convex_single,
        (3, 5) | (3, 7) | (5, 5..=7) if multi_contact => convex::convex_clipped,
        (2, 4) | (2, 7) | (3, 4) | (3, 5) | (3, 7) | (4, 4..=7) | (5, 5..=7) => convex::convex_one,
        _ => return None,
    };
    Some(PairRoutine { func, swapped })
}

impl PairRoutine {
    /// Runs the routine on our (A, B) with the pair's detection `margin` and appends the contacts in the simulator
    /// convention (a contact within the margin has a negative penetration); `mj` is scratch for MuJoCo's contacts
    /// (cleared first, reused across calls).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        margin: f64,
        mj: &mut Vec<MjContact>,
        out: &mut Manifold,
    ) {
        mj.clear();
        let (fa, fb) = (Frame::new(pose_a), Frame::new(pose_b));
        if self.swapped {
            (self.func)(b, &fb, a, &fa, margin, mj);
        } else {
            (self.func)(a, &fa, b, &fb, margin, mj);
        }
        // MuJoCo's normal points from geom 1 to geom 2; ours from B to A.
        let sign = if self.swapped { 1.0 } else { -1.0 };
        out.contacts.extend(mj.iter().map(|c| Contact {
            position: c.pos,
            normal: sign * c.normal,
            penetration: -c.dist,
        }));
        // The routines that set a tangent (plane–capsule) give all their contacts the same one.
        out.tangent = mj.first().map_or(DVec3::ZERO, |c| c.tangent);
    }
}

/// MuJoCo contacts of our (A, B) in MuJoCo's own convention and geom order, as `d.contact` reports them (normals
/// normalised again by `mju_makeFrame`), for tests: `None` without a dedicated routine; otherwise the contacts and
/// whether A is MuJoCo's geom 2.
pub fn mujoco_contacts(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose) -> Option<(Vec<MjContact>, bool)> {
    let r = routine(a, b, true)?;
    let mut mj = Vec::new();
    let (fa, fb) = (Frame::new(pose_a), Frame::new(pose_b));
    if r.swapped {
        (r.func)(b, &fb, a, &fa, 0.0, &mut mj);
    } else {
        (r.func)(a, &fa, b, &fb, 0.0, &mut mj);
    }
    for c in &mut mj {
        c.normal = frame_normal(c.normal);
    }
    Some((mj, r.swapped))
}

/// A pair routine's normal as MuJoCo reports it: `mj_setContact` completes every contact's frame with
/// `mju_makeFrame`, which normalises the normal once more
/// ([`normalize_vec3`](signorini_geometry::rotation::normalize_vec3)),
/// and a unit normal can move by an ulp. `−n` gives minus `n`'s result, so either orientation gets MuJoCo's bits.
pub(crate) fn frame_normal(n: DVec3) -> DVec3 {
    signorini_geometry::rotation::normalize_vec3(n, MINVAL).0
}
