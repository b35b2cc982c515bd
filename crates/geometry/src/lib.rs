//! # signorini-geometry
//!
//! The bottom layer of signorini: shapes, support functions, support fields, axis-aligned bounding boxes, convex
//! hulls and mass properties, all in f64.
//!
//! Conventions (see `docs/CONVENTIONS.md`): SI units; every shape is defined in its own local frame and placed by a
//! [`Pose`] (`p_world = R p_local + t`); quaternions are Hamilton `(w, x, y, z)` at every boundary.
//! Constructors validate their input and return [`GeometryError`]; nothing is clamped silently.
//!
//! | module | what it owns |
//! |---|---|
//! | [`pose`] | rigid transforms |
//! | [`shape`] | the shape types and the [`Shape`] enum that the higher layers dispatch on |
//! | [`support`] | support mappings `s(d) = argmax_{x∈S} d·x` (closed forms per shape) |
//! | [`support_field`] | the precomputed 180×180 direction table for convex meshes |
//! | [`quickhull`] | convex hull construction |
//! | [`ray`] | ray casts against the solid primitives |
//! | [`aabb`] | local and world AABBs |
//! | [`bvh`] | the AABB tree a [`TriangleMesh`] holds over its triangles |
//! | [`mass`] | volume, centre of mass, inertia, principal frames |
//! | [`sdf`] | the signed distance field a closed [`TriangleMesh`] can carry for non-convex contacts |

pub mod aabb;
pub mod bvh;
pub mod error;
pub mod mass;
pub mod pose;
pub mod quickhull;
pub mod ray;
pub mod rotation;
pub mod sdf;
pub mod shape;
pub mod support;
pub mod support_field;

pub use aabb::Aabb;
pub use bvh::{Bvh, BvhNode};
pub use error::{GeometryError, MAX_COORDINATE, Result};
pub use mass::MassProperties;
pub use pose::Pose;
pub use sdf::{SdfSettings, SignedDistanceField};
pub use shape::{
    Capsule, ConvexMesh, Cuboid, Cylinder, Ellipsoid, HeightField, Plane, Shape, ShapeKind, Sphere,
    TriangleMesh,
};
pub use support::SupportMap;
pub use support_field::SupportField;

/// Re-export of the math types used in every public signature.
pub use glam::{DMat3, DQuat, DVec3};
