//! # signorini-collision
//!
//! The narrow phase and the query API of signorini.
//!
//! - [`query`]: [`distance`], [`collide`] and [`contacts`] between two posed [`Shape`](signorini_geometry::Shape)s,
//!   with their request/result types. Distances follow Coal's convention (normal from A to B, negative distance when
//!   penetrating); contacts follow the simulator's (normal from B to A, penetration ≥ 0, or ≥ −margin for the MuJoCo
//!   dialect's contacts within a geom margin).
//! - [`dialect`]: the seam between the native (Genesis) and MuJoCo-compatible semantics: the [`PairDispatcher`]
//!   trait and its two implementations, [`NativeDispatcher`] and [`MujocoDispatcher`], chosen by a [`Dialect`].
//! - [`narrow`]: the algorithms, one per file: GJK (signed-volume simplex, Nesterov option), EPA, MPR, box–box SAT
//!   and clipping.
//! - [`pairs`]: closed forms per shape pair and the GJK/EPA driver on core shapes.
//! - [`multi_contact`]: extra contacts by small perturbations (spec §A.9).
//! - [`world`]: the [`CollisionWorld`](world::CollisionWorld) of bodies and geoms: world AABBs, broad phase
//!   ([`broad`]: sweep and prune, dynamic AABB tree, all pairs), pair filters and allowed-collision matrices
//!   ([`filter`]), budgets ([`capacity`]), the sorted [`ContactSet`](contact_set::ContactSet) ([`contact_set`]), its
//!   pruning to support polygons ([`prune`], native dialect) and robotics queries (minimum distance, collision-free test, distances within an activation distance).
//!
//! Which routine answers which pair, in each dialect, is listed in `docs/NARROW_PHASE.md`.
//! The scene pipeline (filters, ACM, budgets, determinism, broad-phase choice) is in `docs/COLLISION_PIPELINE.md`.
//!
//! ```
//! use signorini_collision::{distance, DistanceRequest};
//! use signorini_geometry::{Cuboid, DQuat, DVec3, Pose, Shape, Sphere};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let a: Shape = Cuboid::new(DVec3::new(0.5, 0.5, 0.5))?.into();
//! let b: Shape = Sphere::new(0.25)?.into();
//! let pose_b = Pose::new(DVec3::new(1.0, 0.2, 0.0), DQuat::IDENTITY)?;
//! let r = distance(&a, &Pose::IDENTITY, &b, &pose_b, &DistanceRequest::default())?;
//! assert!((r.distance - 0.25).abs() < 1e-12);
//! assert!((r.point_b - r.point_a - r.distance * r.normal).length() < 1e-12);
//! # Ok(())
//! # }
//! ```

pub mod broad;
pub mod capacity;
pub mod ccd;
pub mod contact;
pub mod contact_overlap;
pub mod contact_set;
pub mod dialect;
pub(crate) mod dispatch;
pub mod error;
pub mod filter;
pub mod multi_contact;
pub mod narrow;
pub mod pairs;
pub mod prune;
pub mod query;
pub mod smooth_contact;
#[cfg(test)]
mod test_rng;
pub mod world;

pub use contact::{Contact, Manifold};
pub use dialect::{Dialect, MujocoDispatcher, NativeDispatcher, PairDispatcher};
pub use error::{CollisionError, Result};
pub use query::{
    Algorithm, CollisionContact, CollisionRequest, CollisionResult, ContactRequest, ConvexAlgorithm,
    DistanceRequest, DistanceResult, QueryWorkspace, collide, collide_with, contacts, contacts_into,
    distance, distance_with,
};
