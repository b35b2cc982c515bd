//! Sensors (MuJoCo `<sensor>`): what each one reads, the layout of `sensordata`, and the kinematic quantities the
//! acceleration-stage sensors need (MuJoCo `mj_rnePostConstraint`, `mj_subtreeVel`, `mj_objectVelocity`,
//! `mj_objectAcceleration`).
//!
//! A sensor's value is a function of one evaluation of the dynamics: its position-stage quantities (poses, lengths),
//! velocity-stage ones (velocities) and acceleration-stage ones (the constrained `qacc`, actuator and constraint
//! forces). After a step, `sensordata` describes the state the step started from, as in MuJoCo. The simulator
//! evaluates them (`signorini-sim`, which has the contacts and constraint forces); this module defines them and
//! the rigid-body parts of the evaluation.
//!
//! **Frames.** Spatial vectors are `(angular; linear)` in world axes about the reference point of the body's tree
//! (`subtree_com[body_rootid[b]]`), as everywhere in this crate. `cacc` holds the body accelerations of the constrained
//! motion with gravity as an upward acceleration of the world (`cacc[0] = (0, −g)`), so an accelerometer at rest reads
//! `+g` upwards. `cfrc_ext` is the external wrench on each body (contacts, equality constraints, spatial tendons,
//! `xfrc_applied`) and `cfrc_int` the wrench its parent exerts on its subtree.

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::Shape;

use crate::data::Data;
use crate::model::Model;
use crate::spatial::SpatialVec;

/// A frame a sensor reads (MuJoCo `objtype`/`objname`, `reftype`/`refname`). Indices are in model order: joints,
/// geoms and sites numbered body by body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SensorFrame {
    /// A body's inertial frame (`xipos`, `ximat`; MuJoCo `body`).
    Body(usize),
    /// A body's own frame (`xpos`, `xmat`; MuJoCo `xbody`).
    XBody(usize),
    /// A geom's frame.
    Geom(usize),
    /// A site's frame.
    Site(usize),
}

/// What a frame sensor reads of its frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameQuantity {
    /// Position (3).
    Pos,
    /// Orientation quaternion `(w, x, y, z)` (4).
    Quat,
    /// The frame's x axis (3).
    XAxis,
    /// The frame's y axis (3).
    YAxis,
    /// The frame's z axis (3).
    ZAxis,
    /// Linear velocity of the frame's origin (3).
    LinVel,
    /// Angular velocity (3).
    AngVel,
    /// Linear acceleration of the frame's origin, gravity included as `−g` (3; world axes, no reference frame).
    LinAcc,
    /// Angular acceleration (3; world axes, no reference frame).
    AngAcc,
}

/// What a sensor measures. Joints, tendons and actuators are model indices; `site` is a site index in model order.
#[derive(Debug, Clone, PartialEq)]
pub enum SensorKind {
    /// `qpos` of a hinge or slide joint (1).
    JointPos(usize),
    /// `qvel` of a hinge or slide joint (1).
    JointVel(usize),
    /// A ball joint's normalised quaternion (4).
    BallQuat(usize),
    /// A ball joint's angular velocity, in the child frame (3).
    BallAngVel(usize),
    /// A joint limit's distance `dist − margin` while its row exists, else 0 (1).
    JointLimitPos(usize),
    /// A joint limit row's velocity, else 0 (1).
    JointLimitVel(usize),
    /// A joint limit row's force, else 0 (1).
    JointLimitFrc(usize),
    /// A tendon's length (1).
    TendonPos(usize),
    /// A tendon's velocity (1).
    TendonVel(usize),
    /// A tendon limit's distance while its row exists, else 0 (1).
    TendonLimitPos(usize),
    /// A tendon limit row's velocity, else 0 (1).
    TendonLimitVel(usize),
    /// A tendon limit row's force, else 0 (1).
    TendonLimitFrc(usize),
    /// An actuator's length (1).
    ActuatorPos(usize),
    /// An actuator's velocity (1).
    ActuatorVel(usize),
    /// An actuator's scalar force (1).
    ActuatorFrc(usize),
    /// The actuator force on a hinge or slide joint's dof, `qfrc_actuator` (1).
    JointActuatorFrc(usize),
    /// The sum of the scalar forces of the actuators on a tendon (1, without gear, as MuJoCo).
    TendonActuatorFrc(usize),
    /// A frame sensor: `quantity` of `object`, relative to `reference` (position and axes in the reference frame,
    /// quaternion `q_ref⁻¹ q`, velocities relative and in the reference frame) or in world coordinates.
    Frame {
        /// What is read.
        quantity: FrameQuantity,
        /// Whose frame.
        object: SensorFrame,
        /// Relative to which frame (`None`: the world).
        reference: Option<SensorFrame>,
    },
    /// A body subtree's centre of mass (3, world).
    SubtreeCom(usize),
    /// A body subtree's linear momentum over its mass (3, world).
    SubtreeLinVel(usize),
    /// A body subtree's angular momentum about its centre of mass (3, world).
    SubtreeAngMom(usize),
    /// Linear acceleration at a site, gravity included as `−g`, site frame (3).
    Accelerometer(usize),
    /// Linear velocity at a site, site frame (3).
    Velocimeter(usize),
    /// Angular velocity of a site, site frame (3).
    Gyro(usize),
    /// The magnetic field `field` (world, MJCF `<option magnetic>`) in the site frame (3).
    Magnetometer {
        /// The site.
        site: usize,
        /// The field (T, world).
        field: DVec3,
    },
    /// The force the parent exerts on the site's body subtree, site frame (3).
    Force(usize),
    /// The torque the parent exerts on the site's body subtree, about the site, site frame (3).
    Torque(usize),
    /// The sum of the normal forces of the contacts of the site's body whose point lies in `shape` (the site's
    /// volume, site frame) or whose normal ray from the point hits it (1, ≥ 0).
    Touch {
        /// The site.
        site: usize,
        /// The site's shape (sphere, capsule, ellipsoid, cylinder or box).
        shape: Shape,
    },
    /// The distance along the site's z axis to the nearest geom surface a ray from the site hits, the site's body's
    /// geoms and invisible geoms left out; −1 when it hits nothing (1; MuJoCo `rangefinder` with `data="dist"`).
    Rangefinder(usize),
    /// Simulation time (1).
    Clock,
}

/// The evaluation stage a sensor needs (MuJoCo `needstage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SensorStage {
    /// Positions.
    Pos,
    /// Velocities.
    Vel,
    /// Accelerations and forces.
    Acc,
}

/// One sensor.
#[derive(Debug, Clone, PartialEq)]
pub struct SensorSpec {
    /// Name (may be empty).
    pub name: String,
    /// What it measures.
    pub kind: SensorKind,
    /// When positive, each value is clamped to `[−cutoff, cutoff]` (to `≤ cutoff` for touch); axes and
    /// quaternions are never clamped.
    pub cutoff: f64,
    /// MuJoCo `noise`: kept for the user, never applied (as MuJoCo).
    pub noise: f64,
}

impl SensorKind {
    /// Number of values.
    pub fn dim(&self) -> usize {
        match self {
            SensorKind::BallQuat(_) => 4,
            SensorKind::Frame { quantity: FrameQuantity::Quat, .. } => 4,
            SensorKind::BallAngVel(_)
            | SensorKind::Frame { .. }
            | SensorKind::SubtreeCom(_)
            | SensorKind::SubtreeLinVel(_)
            | SensorKind::SubtreeAngMom(_)
            | SensorKind::Accelerometer(_)
            | SensorKind::Velocimeter(_)
            | SensorKind::Gyro(_)
            | SensorKind::Magnetometer { .. }
            | SensorKind::Force(_)
            | SensorKind::Torque(_) => 3,
            _ => 1,
        }
    }

    /// The stage it needs.
    pub fn stage(&self) -> SensorStage {
        use FrameQuantity as Q;
        match self {
            SensorKind::JointPos(_)
            | SensorKind::BallQuat(_)
            | SensorKind::JointLimitPos(_)
            | SensorKind::TendonPos(_)
            | SensorKind::TendonLimitPos(_)
            | SensorKind::ActuatorPos(_)
            | SensorKind::SubtreeCom(_)
            | SensorKind::Magnetometer { .. }
            | SensorKind::Rangefinder(_)
            | SensorKind::Clock => SensorStage::Pos,
            SensorKind::Frame { quantity: Q::Pos | Q::Quat | Q::XAxis | Q::YAxis | Q::ZAxis, .. } => {
                SensorStage::Pos
            }
            SensorKind::JointVel(_)
            | SensorKind::BallAngVel(_)
            | SensorKind::JointLimitVel(_)
            | SensorKind::TendonVel(_)
            | SensorKind::TendonLimitVel(_)
            | SensorKind::ActuatorVel(_)
            | SensorKind::SubtreeLinVel(_)
            | SensorKind::SubtreeAngMom(_)
            | SensorKind::Velocimeter(_)
            | SensorKind::Gyro(_) => SensorStage::Vel,
            SensorKind::Frame { quantity: Q::LinVel | Q::AngVel, .. } => SensorStage::Vel,
            _ => SensorStage::Acc,
        }
    }

    /// Whether its value needs `cacc`/`cfrc_int` ([`Model::rne_post_constraint`]).
    pub fn needs_rne_post(&self) -> bool {
        matches!(
            self,
            SensorKind::Accelerometer(_)
                | SensorKind::Force(_)
                | SensorKind::Torque(_)
                | SensorKind::Frame { quantity: FrameQuantity::LinAcc | FrameQuantity::AngAcc, .. }
        )
    }

    /// Whether its value needs `subtree_linvel`/`subtree_angmom` ([`Model::subtree_velocity`]).
    pub fn needs_subtree_velocity(&self) -> bool {
        matches!(self, SensorKind::SubtreeLinVel(_) | SensorKind::SubtreeAngMom(_))
    }

    /// Whether the value is an axis or a quaternion (never clamped by a cutoff).
    pub fn is_direction(&self) -> bool {
        matches!(
            self,
            SensorKind::BallQuat(_)
                | SensorKind::Frame {
                    quantity: FrameQuantity::Quat
                        | FrameQuantity::XAxis
                        | FrameQuantity::YAxis
                        | FrameQuantity::ZAxis,
                    ..
                }
        )
    }
}

/// `v` (motion, about `old`) as the motion of point `new`, optionally in the axes of `rot` (MuJoCo
/// `mju_transformSpatial` with `flg_force = 0`).
fn motion_at(v: SpatialVec, new: DVec3, old: DVec3, rot: Option<&DMat3>) -> SpatialVec {
    let lin = v.lin - (new - old).cross(v.ang);
    match rot {
        Some(r) => SpatialVec::new(r.transpose() * v.ang, r.transpose() * lin),
        None => SpatialVec::new(v.ang, lin),
    }
}

/// `f` (force, about `old`) as the force about point `new`, optionally in the axes of `rot` (`flg_force = 1`).
pub fn force_at(f: SpatialVec, new: DVec3, old: DVec3, rot: Option<&DMat3>) -> SpatialVec {
    let ang = f.ang - (new - old).cross(f.lin);
    match rot {
        Some(r) => SpatialVec::new(r.transpose() * ang, r.transpose() * f.lin),
        None => SpatialVec::new(ang, f.lin),
    }
}

impl Model {
    /// The body, origin and axes of `frame`.
    pub fn sensor_frame(&self, d: &Data, frame: SensorFrame) -> (usize, DVec3, DMat3) {
        match frame {
            SensorFrame::Body(b) => (b, d.xipos[b], d.ximat[b]),
            SensorFrame::XBody(b) => (b, d.xpos[b], d.xmat[b]),
            SensorFrame::Geom(g) => (self.collision.geoms().body[g], d.geom_xpos[g], d.geom_xmat[g]),
            SensorFrame::Site(s) => (self.site_bodyid[s], d.site_xpos[s], d.site_xmat[s]),
        }
    }

    /// The orientation of `frame` as MuJoCo's frame sensors build it: the body quaternion times the element's local
    /// one, not normalised.
    pub fn sensor_frame_quat(&self, d: &Data, frame: SensorFrame) -> DQuat {
        match frame {
            SensorFrame::Body(b) => d.xquat[b] * self.body_iquat[b],
            SensorFrame::XBody(b) => d.xquat[b],
            SensorFrame::Geom(g) => {
                let geoms = self.collision.geoms();
                d.xquat[geoms.body[g]] * geoms.local_pose[g].rotation
            }
            SensorFrame::Site(s) => d.xquat[self.site_bodyid[s]] * self.site_quat[s],
        }
    }

    /// The spatial velocity `(ω; v)` of `frame`'s origin (MuJoCo `mj_objectVelocity`): world axes, or the frame's
    /// own with `local`. Zero for a body without degrees of freedom (a mocap body included).
    pub fn object_velocity(&self, d: &Data, frame: SensorFrame, local: bool) -> SpatialVec {
        let (b, p, r) = self.sensor_frame(d, frame);
        if self.body_dofnum[self.body_weldid[b]] == 0 {
            return SpatialVec::ZERO;
        }
        motion_at(d.cvel[b], p, d.subtree_com[self.body_rootid[b]], local.then_some(&r))
    }

    /// The classical acceleration `(α; a)` of `frame`'s origin (MuJoCo `mj_objectAcceleration`, after
    /// [`Model::rne_post_constraint`]): gravity enters as `−g`.
    pub fn object_acceleration(&self, d: &Data, frame: SensorFrame, local: bool) -> SpatialVec {
        let (b, p, r) = self.sensor_frame(d, frame);
        let c = d.subtree_com[self.body_rootid[b]];
        let rot = local.then_some(&r);
        let a = motion_at(d.cacc[b], p, c, rot);
        let v = motion_at(d.cvel[b], p, c, rot);
        SpatialVec::new(a.ang, a.lin + v.ang.cross(v.lin))
    }

    /// `cacc` and `cfrc_int` of the constrained motion (MuJoCo `mj_rnePostConstraint`), from `qacc`, the velocities
    /// of [`Model::com_velocity`] and the external wrenches `cfrc_ext` the caller filled.
    pub fn rne_post_constraint(&self, d: &mut Data, qacc: &[f64]) {
        d.cacc[0] = SpatialVec::new(DVec3::ZERO, -d.gravity);
        d.cfrc_int[0] = SpatialVec::ZERO;
        for b in 1..self.nbody {
            let mut a = d.cacc[self.body_parent[b]];
            let dof0 = self.body_dofadr[b];
            for dof in dof0..dof0 + self.body_dofnum[b] {
                a += d.cdof_dot[dof].scale(d.qvel[dof]);
            }
            for (cdof, &qa) in d.cdof[dof0..dof0 + self.body_dofnum[b]].iter().zip(&qacc[dof0..]) {
                a += cdof.scale(qa);
            }
            d.cacc[b] = a;
            let inertia = &d.cinert[b];
            let v = d.cvel[b];
            let f = inertia.mul_motion(a) + v.cross_force(inertia.mul_motion(v));
            d.cfrc_int[b] = f - d.cfrc_ext[b];
        }
        for b in (1..self.nbody).rev() {
            let f = d.cfrc_int[b];
            d.cfrc_int[self.body_parent[b]] += f;
        }
    }

    /// `subtree_linvel` (linear momentum over mass) and `subtree_angmom` (angular momentum about the subtree's
    /// centre of mass) of every body (MuJoCo `mj_subtreeVel`).
    pub fn subtree_velocity(&self, d: &mut Data) {
        let mut body_lin = std::mem::take(&mut d.body_linvel);
        for (b, lin) in body_lin.iter_mut().enumerate() {
            let v = self.object_velocity(d, SensorFrame::Body(b), false);
            *lin = v.lin;
            d.subtree_linvel[b] = v.lin * d.body_mass[b];
            let local = d.ximat[b].transpose() * v.ang * d.body_inertia[b];
            d.subtree_angmom[b] = d.ximat[b] * local;
        }
        for b in (1..self.nbody).rev() {
            let l = d.subtree_linvel[b];
            d.subtree_linvel[self.body_parent[b]] += l;
        }
        for b in 0..self.nbody {
            d.subtree_linvel[b] *= 1.0 / d.body_subtreemass[b].max(1e-15);
        }
        for b in (1..self.nbody).rev() {
            let p = self.body_parent[b];
            let own =
                (d.xipos[b] - d.subtree_com[b]).cross(d.body_mass[b] * (body_lin[b] - d.subtree_linvel[b]));
            d.subtree_angmom[b] += own;
            let l = d.subtree_angmom[b];
            d.subtree_angmom[p] += l;
            let rel = d.body_subtreemass[b] * (d.subtree_linvel[b] - d.subtree_linvel[p]);
            d.subtree_angmom[p] += (d.subtree_com[b] - d.subtree_com[p]).cross(rel);
        }
        d.body_linvel = body_lin;
    }
}
