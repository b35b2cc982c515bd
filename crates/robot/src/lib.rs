//! # signorini-robot
//!
//! A robot as a collision model over its joint configurations, for motion planning: load a URDF (and an SRDF), then
//! at a configuration `q` ask whether it is in self-collision, how far each enabled geometry pair is, in which
//! direction the joints should move (∂distance/∂q), and whether the straight motion to another configuration is
//! free. Every query has a batched version over many configurations, run in parallel with `rayon`.
//!
//! ```no_run
//! use signorini_robot::{RobotModel, RobotOptions};
//! let robot = RobotModel::from_files("panda.urdf".as_ref(), Some("panda.srdf".as_ref()), &RobotOptions::default())?;
//! let mut data = robot.data();
//! let q = vec![0.0; robot.nq()];
//! let colliding = robot.is_colliding(&mut data, &q)?;
//! # Ok::<(), signorini_robot::RobotError>(())
//! ```
//!
//! **Model.** Links are depth-first from the root link, which sits at the world origin (fixed base). Geometry `k` of
//! link `L` is named `L_k`; geometries are in URDF order. A pair of geometries is enabled when their links can move
//! relative to each other (not joined by fixed or locked joints only) and the SRDF does not disable the two links.
//! Mesh geometry is the triangle mesh or its convex hull ([`RobotOptions::geometry`]).
//!
//! **Conventions** (Coal, spec §3): metres and radians, world frame = root link frame; distances signed for convex
//! geometry, unsigned for triangle meshes; normals from the pair's first geometry to its second (see [`queries`]).

pub mod acm;
pub mod batch;
pub mod error;
mod kinematics;
pub mod model;
pub mod motion;
pub mod queries;

pub use acm::AcmSettings;
pub use error::{Result, RobotError};
pub use model::{RobotGeom, RobotModel, RobotOptions};
pub use motion::{MotionCheck, MotionSettings};
pub use queries::{PairDistance, RobotData, Witness};
pub use signorini_urdf::MeshGeometry;
