//! # signorini-collision
//!
//! The narrow phase and the query API of signorini.
//!
//! - [`query`]: [`distance`], [`collide`] and [`contacts`] between two posed [`Shape`](signorini_geometry::Shape)s,
//!   with their request/result types. Distances follow Coal's convention (normal from A to B, negative distance when
//!   penetrating); contacts follow the simulator's (normal from B to A, penetration ≥ 0).
//! - [`narrow`]: the algorithms, one per file: GJK (signed-volume simplex, Nesterov option), EPA, MPR, box–box SAT
//!   and clipping.
//! - [`pairs`]: closed forms per shape pair and the GJK/EPA driver on core shapes.
//! - [`multi_contact`]: extra contacts by small perturbations (spec §A.9).
//!
//! Which routine answers which pair is listed in `docs/NARROW_PHASE.md`.

pub mod contact;
pub mod dataset;
pub(crate) mod dispatch;
pub mod error;
pub mod multi_contact;
pub mod narrow;
pub mod pairs;
pub mod query;

pub use contact::{Contact, Manifold};
pub use error::{CollisionError, Result};
pub use query::{
    Algorithm, CollisionContact, CollisionRequest, CollisionResult, ContactMode, ContactRequest,
    ConvexAlgorithm, DistanceRequest, DistanceResult, QueryWorkspace, collide, collide_with, contacts,
    contacts_into, distance, distance_with,
};
