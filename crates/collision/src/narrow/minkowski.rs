//! Posed shapes and the support mapping of the Minkowski difference `A ⊖ B = {a − b}`.
//!
//! GJK and EPA run on *core* shapes: a sphere is its centre and a capsule its segment, each inflated by a radius
//! (Coal's swept-sphere trick). Distances between cores are exact to the GJK tolerance, and the inflation is then
//! closed-form: `d = d_core − r_A − r_B`, with the same witness direction.
//!
//! The support chain (pair → posed shape → mesh cube map) is `#[inline(always)]`: called out of line, the direction
//! went through the stack, and its 16-byte reload stalled on the two 8-byte stores that wrote it (store forwarding);
//! inlining the pair's and the posed shapes' supports took the Panda's 22 hull distances from 27.1–27.6 µs to
//! 22.2–24.6 µs per configuration (30 configurations cycled, best of 20 passes, three runs each).

use std::cell::Cell;

use glam::{DMat3, DVec3};
use signorini_geometry::support::normalize_robust;
use signorini_geometry::{Capsule, ConvexMesh, Cuboid, Cylinder, Ellipsoid, Pose, Sphere, SupportMap};

/// A convex shape seen as a core shape plus an inflation radius: `S = core ⊕ ball(radius)`.
pub trait CoreShape {
    /// Support point of the core in the local frame (tie rules of [`signorini_geometry::support`]).
    fn core_support(&self, dir: DVec3) -> DVec3;
    /// Inflation radius (0 for shapes that are their own core).
    fn core_radius(&self) -> f64;
    /// Whether the core's boundary is curved (a cylinder, an ellipsoid), so that EPA's polytope approaches its depth
    /// only slowly and the depth is refined by [`descend`](super::support_descent::descend). Polytope cores (points,
    /// segments, boxes, hulls) are not.
    fn core_is_curved(&self) -> bool {
        false
    }
    /// A point inside the core, used as the first search direction.
    fn core_center(&self) -> DVec3 {
        DVec3::ZERO
    }
    /// The tight local AABB `(centre, full size)` of the full shape (core inflated by the radius), from its
    /// supports along `±e_i`.
    fn core_local_aabb(&self) -> (DVec3, DVec3) {
        let r = self.core_radius();
        let mut lo = DVec3::ZERO;
        let mut hi = DVec3::ZERO;
        for (i, e) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
            hi[i] = self.core_support(e)[i] + r;
            lo[i] = self.core_support(-e)[i] - r;
        }
        (0.5 * (lo + hi), hi - lo)
    }
    /// A support point warm-started from the feature in `hint`, which it updates. Successive GJK/EPA directions are
    /// close, so a mesh's climb then takes a step or two instead of O(√n). On ties (a face facing `dir`) a mesh may
    /// return another maximiser than [`CoreShape::core_support`]'s lowest-index one: same support value.
    #[inline]
    fn core_support_hinted(&self, dir: DVec3, _hint: &Cell<u32>) -> DVec3 {
        self.core_support(dir)
    }
}

impl CoreShape for Sphere {
    #[inline]
    fn core_support(&self, _dir: DVec3) -> DVec3 {
        DVec3::ZERO
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        self.radius()
    }
}

impl CoreShape for Capsule {
    #[inline]
    fn core_support(&self, dir: DVec3) -> DVec3 {
        DVec3::new(0.0, 0.0, if dir.z >= 0.0 { self.half_length() } else { -self.half_length() })
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        self.radius()
    }
}

/// Shapes that are their own core; `curved` says whether its boundary is curved ([`CoreShape::core_is_curved`]).
macro_rules! own_core {
    ($($t:ty: $curved:expr),*) => {$(
        impl CoreShape for $t {
            #[inline]
            fn core_support(&self, dir: DVec3) -> DVec3 {
                self.local_support(dir)
            }
            #[inline]
            fn core_radius(&self) -> f64 {
                0.0
            }
            #[inline]
            fn core_is_curved(&self) -> bool {
                $curved
            }
        }
    )*};
}
own_core!(Cuboid: false, Cylinder: true, Ellipsoid: true);

impl CoreShape for ConvexMesh {
    #[inline]
    fn core_support(&self, dir: DVec3) -> DVec3 {
        self.local_support(dir)
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        0.0
    }
    fn core_center(&self) -> DVec3 {
        self.vertex_mean()
    }
    /// The vertices' bounds, kept by the mesh (equal to the supports along `±e_i`: a coordinate's extreme is a
    /// vertex's).
    fn core_local_aabb(&self) -> (DVec3, DVec3) {
        let (lo, hi) = self.vertex_bounds();
        (0.5 * (lo + hi), hi - lo)
    }
    #[inline(always)]
    fn core_support_hinted(&self, dir: DVec3, hint: &Cell<u32>) -> DVec3 {
        if let Some(i) = self.support_index_cube_map(dir) {
            return self.vertices()[i];
        }
        // Start from the last support (the start table's before the first): cheaper than comparing both.
        let start = match hint.get() {
            h if (h as usize) < self.vertices().len() => h as usize,
            _ => self.support_start(dir),
        };
        let i = self.support_index_ascent(dir, start);
        hint.set(i as u32);
        self.vertices()[i]
    }
}

/// The hint of a [`Posed`] before its first support query.
pub const NO_HINT: u32 = u32::MAX;

/// A shape with its pose cached as a rotation matrix (local → world), and the support warm-start hint.
#[derive(Debug, Clone)]
pub struct Posed<'a, S> {
    /// The shape.
    pub shape: &'a S,
    /// Rotation, local → world.
    pub rot: DMat3,
    /// Translation (world position of the local origin).
    pub pos: DVec3,
    /// Feature (vertex) of the last support query, the start of the next one ([`NO_HINT`] before the first).
    pub hint: Cell<u32>,
}

impl<'a, S: CoreShape> Posed<'a, S> {
    /// Caches `pose` for repeated support queries.
    pub fn new(shape: &'a S, pose: &Pose) -> Self {
        Self { shape, rot: pose.rotation_matrix(), pos: pose.translation, hint: Cell::new(NO_HINT) }
    }

    /// World → local for a direction: `Rᵀ d`.
    #[inline(always)]
    pub fn to_local(&self, d: DVec3) -> DVec3 {
        DVec3::new(self.rot.x_axis.dot(d), self.rot.y_axis.dot(d), self.rot.z_axis.dot(d))
    }

    /// World support point of the core along the world direction `d`.
    #[inline(always)]
    pub fn core_support(&self, d: DVec3) -> DVec3 {
        self.rot * self.shape.core_support_hinted(self.to_local(d), &self.hint) + self.pos
    }

    /// World support point of the full (inflated) shape along `d`.
    #[inline(always)]
    pub fn support(&self, d: DVec3, inflate: bool) -> DVec3 {
        let core = self.core_support(d);
        let r = self.shape.core_radius();
        if inflate && r > 0.0 { core + normalize_robust(d).unwrap_or(DVec3::Z) * r } else { core }
    }

    /// World position of the core centre.
    pub fn center(&self) -> DVec3 {
        self.rot * self.shape.core_center() + self.pos
    }
}

/// A support point of `A ⊖ B` with its two witnesses: `w = a − b`, `a = s_A(d)`, `b = s_B(−d)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SupportPoint {
    /// `a − b`.
    pub w: DVec3,
    /// Witness on A.
    pub a: DVec3,
    /// Witness on B.
    pub b: DVec3,
}

/// The pair `(A, B)` whose Minkowski difference GJK/EPA explore; `inflate` selects full shapes instead of cores.
#[derive(Debug, Clone)]
pub struct MinkowskiPair<'a, A, B> {
    /// Shape A.
    pub a: Posed<'a, A>,
    /// Shape B.
    pub b: Posed<'a, B>,
    /// Whether supports include the inflation radii.
    pub inflate: bool,
}

impl<A: CoreShape, B: CoreShape> MinkowskiPair<'_, A, B> {
    /// `s_{A⊖B}(d)` with witnesses.
    #[inline(always)]
    pub fn support(&self, d: DVec3) -> SupportPoint {
        let a = self.a.support(d, self.inflate);
        let b = self.b.support(-d, self.inflate);
        SupportPoint { w: a - b, a, b }
    }

    /// Sum of the inflation radii.
    pub fn radii(&self) -> f64 {
        self.a.shape.core_radius() + self.b.shape.core_radius()
    }
}
