//! The bodies and geoms of a collision model: what a user adds ([`BodyDesc`], [`GeomDesc`]) and what the model
//! keeps (structure of arrays, [`BodyTable`], [`GeomTable`]). Both are fixed once the model is built; poses and
//! boxes of the current step live in [`CollisionData`](super::CollisionData).

use glam::DQuat;
use serde::{Deserialize, Serialize};
use signorini_geometry::{Pose, Shape};

use crate::contact_set::{GeomContactParams, SolImp, SolRef};

/// MuJoCo's default `solref`.
pub const DEFAULT_SOLREF: SolRef = [0.02, 1.0];
/// MuJoCo's default `solimp`.
pub const DEFAULT_SOLIMP: SolImp = [0.9, 0.95, 0.001, 0.5, 2.0];

/// A body (link) to add to a world.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyDesc {
    /// Name (unique when not empty; SRDF link names resolve against it).
    pub name: String,
    /// Parent body index (0 = the world); must already exist.
    pub parent: usize,
    /// Whether at least one joint to the parent moves (hinge, slide, ball, free). A body without one is rigidly
    /// attached to its parent.
    pub moving_joint: bool,
    /// Entity (model instance) id, for the local-mask rule of `contype`/`conaffinity`. Default 0.
    pub entity: u32,
    /// Moved by the caller, not by joints (a MuJoCo mocap body): no degree of freedom, yet not attached to its
    /// parent, so it is not fixed and is its own weld group. Its pairs with fixed or other kinematic bodies are
    /// never examined (filter rule 2). Default false.
    pub kinematic: bool,
    /// The body's inertial frame (principal axes) in the body frame, a unit quaternion. The native dialect's
    /// perturbation contacts tilt a pair about axes built in it, as Genesis 1.4.5 builds them in the link's
    /// inertial frame. Default identity (the body frame).
    #[serde(default = "identity")]
    pub inertial_rotation: DQuat,
}

fn identity() -> DQuat {
    DQuat::IDENTITY
}

impl BodyDesc {
    /// A body on `parent`, moving or welded.
    pub fn new(name: impl Into<String>, parent: usize, moving_joint: bool) -> Self {
        Self {
            name: name.into(),
            parent,
            moving_joint,
            entity: 0,
            kinematic: false,
            inertial_rotation: DQuat::IDENTITY,
        }
    }

    /// A free-floating body (moving joint to the world).
    pub fn free(name: impl Into<String>) -> Self {
        Self::new(name, 0, true)
    }
}

/// A geom to add to a world; [`GeomDesc::new`] gives MuJoCo's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct GeomDesc {
    /// Name (may be empty).
    pub name: String,
    /// Shape in the geom frame.
    pub shape: Shape,
    /// Owning body.
    pub body: usize,
    /// Geom frame in the body frame.
    pub local_pose: Pose,
    /// `contype` bitmask (default 1).
    pub contype: u32,
    /// `conaffinity` bitmask (default 1).
    pub conaffinity: u32,
    /// `condim` ∈ {1, 3, 4, 6} (default 3).
    pub condim: u8,
    /// `(sliding, torsional, rolling)` friction, finite and ≥ 0 (default `(1, 0.005, 0.0001)`).
    pub friction: [f64; 3],
    /// Contact `solref` (default `(0.02, 1)`), finite.
    pub solref: SolRef,
    /// Contact `solimp` (default `(0.9, 0.95, 0.001, 0.5, 2)`), finite.
    pub solimp: SolImp,
    /// MuJoCo `priority` (default 0).
    pub priority: i32,
    /// MuJoCo `solmix`, finite and ≥ 0 (default 1).
    pub solmix: f64,
    /// Margin (m), finite and ≥ 0 (default 0). Used in MuJoCo-compatible mode only.
    pub margin: f64,
    /// Gap (m), finite and ≥ 0 (default 0). Recorded only.
    pub gap: f64,
    /// Adhesion (N, MuJoCo 4.0 `adhesion`, default 0): the pull of its contacts, in MuJoCo-compatible mode.
    pub adhesion: f64,
}

impl GeomDesc {
    /// A geom of `shape` on `body` at the body origin, with MuJoCo's defaults.
    pub fn new(shape: impl Into<Shape>, body: usize) -> Self {
        Self {
            name: String::new(),
            shape: shape.into(),
            body,
            local_pose: Pose::IDENTITY,
            contype: 1,
            conaffinity: 1,
            condim: 3,
            friction: [1.0, 0.005, 0.0001],
            solref: DEFAULT_SOLREF,
            solimp: DEFAULT_SOLIMP,
            priority: 0,
            solmix: 1.0,
            margin: 0.0,
            gap: 0.0,
            adhesion: 0.0,
        }
    }

    /// The same geom at `pose` in the body frame.
    pub fn at(mut self, pose: Pose) -> Self {
        self.local_pose = pose;
        self
    }

    /// The same geom named `name`.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

/// The bodies of a world (structure of arrays; index 0 is the world).
#[derive(Debug, Clone, Default)]
pub struct BodyTable {
    /// Names.
    pub name: Vec<String>,
    /// Parent (`None` for the world).
    pub parent: Vec<Option<usize>>,
    /// Whether a joint to the parent moves.
    pub moving_joint: Vec<bool>,
    /// Entity ids.
    pub entity: Vec<u32>,
    /// Fixed to the world: no moving joint and no kinematic body on the chain to the world.
    pub fixed: Vec<bool>,
    /// No degree of freedom on the chain to the world: fixed, or carried by a kinematic body only.
    pub dofless: Vec<bool>,
    /// Kinematic-tree root: the ancestor whose parent is the world (the world's root is itself).
    pub root: Vec<usize>,
    /// Weld group: the topmost body reached through bodies without a moving joint (0 when welded to the world).
    pub weld_root: Vec<usize>,
    /// Inertial frames in the body frames.
    pub inertial_rotation: Vec<DQuat>,
}

impl BodyTable {
    /// Number of bodies, the world included.
    pub fn len(&self) -> usize {
        self.name.len()
    }

    /// Never true: the world body always exists.
    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }
}

/// The geoms of a world (structure of arrays).
#[derive(Debug, Clone, Default)]
pub struct GeomTable {
    /// Names.
    pub name: Vec<String>,
    /// Shapes (geom frame).
    pub shape: Vec<Shape>,
    /// Owning bodies.
    pub body: Vec<usize>,
    /// Geom frames in their body frames.
    pub local_pose: Vec<Pose>,
    /// `contype`.
    pub contype: Vec<u32>,
    /// `conaffinity`.
    pub conaffinity: Vec<u32>,
    /// `condim`.
    pub condim: Vec<u8>,
    /// `(sliding, torsional, rolling)` friction.
    pub friction: Vec<[f64; 3]>,
    /// `solref`.
    pub solref: Vec<SolRef>,
    /// `solimp`.
    pub solimp: Vec<SolImp>,
    /// `priority`.
    pub priority: Vec<i32>,
    /// `solmix`.
    pub solmix: Vec<f64>,
    /// Margin (m).
    pub margin: Vec<f64>,
    /// Gap (m).
    pub gap: Vec<f64>,
    /// Adhesion (N).
    pub adhesion: Vec<f64>,
}

impl GeomTable {
    /// Number of geoms.
    pub fn len(&self) -> usize {
        self.shape.len()
    }

    /// Whether there is no geom.
    pub fn is_empty(&self) -> bool {
        self.shape.is_empty()
    }

    /// The contact parameters of geom `g`.
    #[inline]
    pub fn params(&self, g: usize) -> GeomContactParams {
        GeomContactParams {
            friction: self.friction[g],
            solref: self.solref[g],
            solimp: self.solimp[g],
            condim: self.condim[g],
            priority: self.priority[g],
            solmix: self.solmix[g],
            margin: self.margin[g],
            gap: self.gap[g],
            adhesion: self.adhesion[g],
        }
    }
}
