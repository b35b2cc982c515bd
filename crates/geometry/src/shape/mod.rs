//! The shape types.
//!
//! Every shape lives in its own local frame (documented on each type) and is placed in the world by a
//! [`Pose`](crate::Pose). Constructors validate their parameters and return a typed error naming the bad one.
//! The higher layers dispatch on [`Shape`] / [`ShapeKind`] with a `match`, never through a `dyn` object per pair.

mod capsule;
mod convex_mesh;
mod cuboid;
mod cylinder;
mod ellipsoid;
mod height_field;
mod hull_polygons;
mod mujoco_polygons;
mod plane;
mod sphere;
mod support_cube_map;
mod triangle_mesh;

use std::sync::Arc;

use glam::DVec3;

pub use capsule::Capsule;
pub use convex_mesh::ConvexMesh;
pub use cuboid::Cuboid;
pub use cylinder::Cylinder;
pub use ellipsoid::Ellipsoid;
pub use height_field::HeightField;
pub use hull_polygons::Polygons;
pub use plane::Plane;
pub use sphere::Sphere;
pub use triangle_mesh::TriangleMesh;

use crate::error::{GeometryError, Result};
use crate::support::SupportMap;

/// The kind of a shape. The order is the narrow-phase pair order of spec §0.2 (a pair is swapped so that
/// `kind(A) ≤ kind(B)`): plane first, height field last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeKind {
    /// Half-space `z ≤ 0` of its frame.
    Plane = 0,
    /// Ball.
    Sphere = 1,
    /// Ellipsoid with semi-axes along the local axes.
    Ellipsoid = 2,
    /// Solid cylinder along local z.
    Cylinder = 3,
    /// Capsule along local z.
    Capsule = 4,
    /// Box ("cuboid") with half extents along the local axes.
    Box = 5,
    /// Convex polyhedron (hull of points).
    ConvexMesh = 6,
    /// Indexed triangle soup, possibly non-convex.
    TriangleMesh = 7,
    /// Height field (terrain) over a rectangular grid.
    HeightField = 8,
}

impl ShapeKind {
    /// Lower-case name used in messages, JSON and docs.
    pub fn name(self) -> &'static str {
        match self {
            ShapeKind::Plane => "plane",
            ShapeKind::Sphere => "sphere",
            ShapeKind::Ellipsoid => "ellipsoid",
            ShapeKind::Cylinder => "cylinder",
            ShapeKind::Capsule => "capsule",
            ShapeKind::Box => "box",
            ShapeKind::ConvexMesh => "convex mesh",
            ShapeKind::TriangleMesh => "triangle mesh",
            ShapeKind::HeightField => "height field",
        }
    }

    /// Whether the shape is bounded and convex, i.e. has a support function.
    pub fn is_bounded_convex(self) -> bool {
        matches!(
            self,
            ShapeKind::Sphere
                | ShapeKind::Ellipsoid
                | ShapeKind::Cylinder
                | ShapeKind::Capsule
                | ShapeKind::Box
                | ShapeKind::ConvexMesh
        )
    }
}

/// Any shape signorini knows. Large shapes (meshes, height fields) are shared behind an [`Arc`] so that cloning a
/// `Shape` (e.g. into a compiled model) never copies vertex data.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// See [`Plane`].
    Plane(Plane),
    /// See [`Sphere`].
    Sphere(Sphere),
    /// See [`Ellipsoid`].
    Ellipsoid(Ellipsoid),
    /// See [`Cylinder`].
    Cylinder(Cylinder),
    /// See [`Capsule`].
    Capsule(Capsule),
    /// See [`Cuboid`].
    Box(Cuboid),
    /// See [`ConvexMesh`].
    ConvexMesh(Arc<ConvexMesh>),
    /// See [`TriangleMesh`].
    TriangleMesh(Arc<TriangleMesh>),
    /// See [`HeightField`].
    HeightField(Arc<HeightField>),
}

impl Shape {
    /// The kind of this shape.
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Plane(_) => ShapeKind::Plane,
            Shape::Sphere(_) => ShapeKind::Sphere,
            Shape::Ellipsoid(_) => ShapeKind::Ellipsoid,
            Shape::Cylinder(_) => ShapeKind::Cylinder,
            Shape::Capsule(_) => ShapeKind::Capsule,
            Shape::Box(_) => ShapeKind::Box,
            Shape::ConvexMesh(_) => ShapeKind::ConvexMesh,
            Shape::TriangleMesh(_) => ShapeKind::TriangleMesh,
            Shape::HeightField(_) => ShapeKind::HeightField,
        }
    }

    /// The local-frame support point along `dir` (see [`crate::support`] for the tie rules).
    ///
    /// Errors with [`GeometryError::Unsupported`] for shapes without a support function (plane, triangle mesh,
    /// height field).
    #[inline]
    pub fn local_support(&self, dir: DVec3) -> Result<DVec3> {
        Ok(match self {
            Shape::Sphere(s) => s.local_support(dir),
            Shape::Ellipsoid(s) => s.local_support(dir),
            Shape::Cylinder(s) => s.local_support(dir),
            Shape::Capsule(s) => s.local_support(dir),
            Shape::Box(s) => s.local_support(dir),
            Shape::ConvexMesh(s) => s.local_support(dir),
            Shape::Plane(_) | Shape::TriangleMesh(_) | Shape::HeightField(_) => {
                return Err(GeometryError::Unsupported {
                    operation: "support function",
                    kind: self.kind().name(),
                });
            }
        })
    }

    /// The world-frame support point along a world direction: `R s(Rᵀ d) + t`.
    #[inline]
    pub fn world_support(&self, pose: &crate::Pose, dir: DVec3) -> Result<DVec3> {
        Ok(pose.transform_point(self.local_support(pose.inverse_transform_vector(dir))?))
    }
}

macro_rules! impl_from_shape {
    ($($ty:ty => $variant:ident),*) => {
        $(impl From<$ty> for Shape {
            fn from(s: $ty) -> Shape {
                Shape::$variant(s)
            }
        })*
    };
}
impl_from_shape!(Plane => Plane, Sphere => Sphere, Ellipsoid => Ellipsoid, Cylinder => Cylinder,
    Capsule => Capsule, Cuboid => Box);

impl From<ConvexMesh> for Shape {
    fn from(s: ConvexMesh) -> Shape {
        Shape::ConvexMesh(Arc::new(s))
    }
}
impl From<TriangleMesh> for Shape {
    fn from(s: TriangleMesh) -> Shape {
        Shape::TriangleMesh(Arc::new(s))
    }
}
impl From<HeightField> for Shape {
    fn from(s: HeightField) -> Shape {
        Shape::HeightField(Arc::new(s))
    }
}
