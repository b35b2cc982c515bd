//! The mutable [`Data`] of one simulation: state, inputs, and every quantity computed from them, allocated once by
//! [`Data::new`] and overwritten in place by the stages (no stage allocates).

use glam::{DMat3, DQuat, DVec3};

use crate::error::DynamicsError;
use crate::model::Model;
use crate::spatial::{SpatialInertia, SpatialVec, Wrench};

/// State, inputs and computed quantities of one simulation of a [`Model`]. Frames: `x*` are world poses; spatial
/// vectors follow [`crate::spatial`] (world axes, per-tree reference point `subtree_com[body_rootid[b]]`).
#[derive(Debug, Clone)]
pub struct Data {
    /// Simulation time (s).
    pub time: f64,
    /// Gravitational acceleration (m/s², world frame) this data is simulated under: the model's `gravity` unless
    /// set per environment (domain randomisation). A reset keeps it.
    pub gravity: DVec3,
    /// Joint limits this data is simulated under (`None`: unlimited): the model's `jnt_range` unless set per
    /// environment (domain randomisation). A reset keeps them.
    pub jnt_range: Vec<Option<[f64; 2]>>,
    /// Body masses (kg) this data is simulated under: the model's `body_mass` unless scaled per environment
    /// ([`Data::scale_body_mass`]). A reset keeps them, as it keeps every per-environment parameter below.
    pub body_mass: Vec<f64>,
    /// Principal inertias about each body's centre of mass (kg m², inertial frame): the model's unless scaled.
    pub body_inertia: Vec<DVec3>,
    /// Mass of each body's subtree (kg), from `body_mass`.
    pub body_subtreemass: Vec<f64>,
    /// Armature per dof (kg m² or kg), added to the diagonal of `M`: the model's unless set per environment.
    pub dof_armature: Vec<f64>,
    /// Viscous damping per dof (N m s/rad or N s/m): the model's unless set per environment.
    pub dof_damping: Vec<f64>,
    /// `M[i][i]` of each simple dof, armature included ([`Model::dof_m0`] for this data's masses and armatures;
    /// kept up to date by [`Data::scale_body_mass`] and [`Data::update_simple_diagonal`]).
    pub dof_m0: Vec<f64>,
    /// Spring stiffness per joint (N m/rad or N/m, towards `qpos_spring`): the model's unless set per environment.
    pub jnt_stiffness: Vec<f64>,
    /// Generalized coordinates (`nq`): free `(x, y, z, qw, qx, qy, qz)`, ball `(qw, qx, qy, qz)`, hinge angle,
    /// slide displacement.
    pub qpos: Vec<f64>,
    /// Generalized velocities (`nv`): free `(world linear velocity of the body origin, body-frame angular
    /// velocity)`, ball body-frame angular velocity, hinge/slide rate.
    pub qvel: Vec<f64>,
    /// Generalized accelerations (`nv`), written by the solver layers.
    pub qacc: Vec<f64>,
    /// Actuator controls (`nu`).
    pub ctrl: Vec<f64>,
    /// Actuator activations (`na`; [`Model::actuator_actadr`]): state, advanced by the integrators.
    pub act: Vec<f64>,
    /// Their time derivatives (`na`), from [`Model::actuation`].
    pub act_dot: Vec<f64>,
    /// Applied generalized forces (`nv`).
    pub qfrc_applied: Vec<f64>,
    /// Applied body wrenches at the centres of mass, world frame (`nbody`).
    pub xfrc_applied: Vec<Wrench>,
    /// World positions of the mocap bodies (`nmocap`, in body order; [`Model::body_mocapid`]): inputs, like `ctrl`,
    /// read by forward kinematics. Start at the bodies' `pos`.
    pub mocap_pos: Vec<DVec3>,
    /// World orientations of the mocap bodies (`nmocap`; normalised when read, a zero quaternion reads as the
    /// identity, as MuJoCo's `mju_normalize4`). Start at the bodies' `quat`.
    pub mocap_quat: Vec<DQuat>,

    /// Body frame positions (world).
    pub xpos: Vec<DVec3>,
    /// Body frame orientations (world, unit).
    pub xquat: Vec<DQuat>,
    /// Body frame rotation matrices.
    pub xmat: Vec<DMat3>,
    /// Body centres of mass (world).
    pub xipos: Vec<DVec3>,
    /// Body inertial frame rotation matrices.
    pub ximat: Vec<DMat3>,
    /// Joint anchors (world), before the joint's own motion (MuJoCo `xanchor`).
    pub xanchor: Vec<DVec3>,
    /// Joint axes (world; hinge/slide, `+z` of the frame before the joint otherwise).
    pub xaxis: Vec<DVec3>,
    /// Geom positions (world).
    pub geom_xpos: Vec<DVec3>,
    /// Geom rotation matrices (world).
    pub geom_xmat: Vec<DMat3>,
    /// Site positions (world).
    pub site_xpos: Vec<DVec3>,
    /// Site rotation matrices (world).
    pub site_xmat: Vec<DMat3>,
    /// Centre of mass of each body's subtree (world; the body's own `xipos` when the subtree is massless).
    pub subtree_com: Vec<DVec3>,
    /// Motion subspace of each dof: the spatial velocity of its body per unit `qvel` (`nv`).
    pub cdof: Vec<SpatialVec>,
    /// Body inertias about the tree reference point (`nbody`).
    pub cinert: Vec<SpatialInertia>,

    /// Body spatial velocities (`nbody`), from [`Model::com_velocity`].
    pub cvel: Vec<SpatialVec>,
    /// Time derivative of `cdof` (`nv`), from [`Model::com_velocity`].
    pub cdof_dot: Vec<SpatialVec>,

    /// Joint-space inertia `M(q)`, armature included, in the sparse layout of [`Model::dof_madr`] (`nm`).
    pub qm: Vec<f64>,
    /// `M = Lᵀ D L` factor in the same layout: diagonal entries hold `D`, off-diagonal ones `L` (`nm`).
    pub qld: Vec<f64>,
    /// `1 / D` (`nv`).
    pub qld_diag_inv: Vec<f64>,
    /// Bias forces `C(q, q̇) q̇ + g(q)` (`nv`): `M q̈ + qfrc_bias = qfrc_applied + qfrc_passive + qfrc_actuator +
    /// Jᵀ xfrc_applied + constraint forces`.
    pub qfrc_bias: Vec<f64>,
    /// Passive forces (`nv`): `qfrc_spring + qfrc_damper`, then fluid, gravity compensation and adhesion.
    pub qfrc_passive: Vec<f64>,
    /// The springs' part of `qfrc_passive`: joint and tendon springs (`nv`; MuJoCo `qfrc_spring`).
    pub qfrc_spring: Vec<f64>,
    /// The dampers' part of `qfrc_passive`: dof and tendon dampers (`nv`; MuJoCo `qfrc_damper`).
    pub qfrc_damper: Vec<f64>,
    /// Fluid forces (`nv`; [`crate::fluid`]): part of `qfrc_passive`. Zero without a medium.
    pub qfrc_fluid: Vec<f64>,
    /// Tendon lengths (`ntendon`; [`Model::tendon_state`], run by [`Model::passive`]).
    pub ten_length: Vec<f64>,
    /// Tendon velocities `J q̇` (`ntendon`).
    pub ten_velocity: Vec<f64>,
    /// Tendon Jacobians `∂L/∂q`, one dense row of `nv` per tendon ([`Data::tendon_jacobian`]).
    pub ten_j: Vec<f64>,
    /// Gravity compensation (`nv`; [`Model::passive`]): part of `qfrc_passive`, or of `qfrc_actuator` for the dofs of
    /// `actuatorgravcomp` joints. Zero in models without `gravcomp`.
    pub qfrc_gravcomp: Vec<f64>,
    /// The adhesion pull of the step's contacts (`nv`; MuJoCo 4.0 `qfrc_adhesion`, [`Model::adhesion_pull`]): part
    /// of `qfrc_passive`. Zero without adhesive geoms.
    pub qfrc_adhesion: Vec<f64>,
    /// Actuator forces in joint space (`nv`).
    pub qfrc_actuator: Vec<f64>,
    /// Actuator lengths `gear·q` (`nu`).
    pub actuator_length: Vec<f64>,
    /// Actuator velocities `gear·q̇` (`nu`).
    pub actuator_velocity: Vec<f64>,
    /// Moments `∂l/∂q` of the site and slider-crank actuators, one dense row of `nv` per
    /// [`Model::actuator_momentadr`].
    pub actuator_moment: Vec<f64>,
    /// Actuator forces after clamping (`nu`).
    pub actuator_force: Vec<f64>,
    /// Every force but the constraints': `applied + passive + actuator + Jᵀ xfrc − bias` (`nv`).
    pub qfrc_smooth: Vec<f64>,
    /// Unconstrained acceleration `M⁻¹ qfrc_smooth` (`nv`).
    pub qacc_smooth: Vec<f64>,
    /// Potential energy: gravity `−Σ m g·x_com` plus joint springs (J).
    pub energy_potential: f64,
    /// Kinetic energy `½ q̇ᵀ M q̇`, armature included (J).
    pub energy_kinetic: f64,

    /// Sensor values (`nsensordata`; [`Model::sensor_adr`]): after a step, those of the state it started from.
    pub sensordata: Vec<f64>,
    /// Body accelerations of the constrained motion (`nbody`; [`crate::sensor`]), gravity as `cacc[0] = (0, −g)`.
    /// Computed for the sensors that need them ([`Model::rne_post_constraint`]).
    pub cacc: Vec<SpatialVec>,
    /// The wrench each body's parent exerts on its subtree (`nbody`), with `cacc`.
    pub cfrc_int: Vec<SpatialVec>,
    /// External wrenches on each body (`nbody`): contacts, equality constraints, spatial tendons, `xfrc_applied`.
    pub cfrc_ext: Vec<SpatialVec>,
    /// Linear momentum over mass of each body's subtree (`nbody`, world; [`Model::subtree_velocity`]).
    pub subtree_linvel: Vec<DVec3>,
    /// Angular momentum of each body's subtree about its centre of mass (`nbody`, world).
    pub subtree_angmom: Vec<DVec3>,

    /// Bodies whose derived quantities the forward stages recompute (`nbody`); see [`Data::set_awake`].
    pub(crate) body_awake: Vec<bool>,
    /// The dofs of awake bodies (`nv` flags, and their indices, increasing), and whether every body is awake.
    pub(crate) dof_awake: Vec<bool>,
    pub(crate) awake_dofs: Vec<usize>,
    pub(crate) all_awake: bool,

    /// Scratch: composite inertias (`nbody`).
    pub(crate) crb: Vec<SpatialInertia>,
    /// Scratch: body accelerations of the bias and inverse-dynamics passes (`nbody`).
    pub(crate) rne_cacc: Vec<SpatialVec>,
    /// Scratch: body forces (`nbody`).
    pub(crate) cfrc: Vec<SpatialVec>,
    /// Scratch (`nv`).
    pub(crate) scratch: Vec<f64>,
    /// Scratch: linear velocity of each body's centre of mass (`nbody`).
    pub(crate) body_linvel: Vec<DVec3>,
}

impl Data {
    /// Data for `model` at `qpos0`, at rest, with zero inputs. Computed quantities are zero until the stages run.
    pub fn new(model: &Model) -> Self {
        let (nb, nv, nu) = (model.nbody, model.nv, model.nu);
        Self {
            time: 0.0,
            gravity: model.gravity,
            jnt_range: model.jnt_range.clone(),
            body_mass: model.body_mass.clone(),
            body_inertia: model.body_inertia.clone(),
            body_subtreemass: model.body_subtreemass.clone(),
            dof_armature: model.dof_armature.clone(),
            dof_damping: model.dof_damping.clone(),
            dof_m0: model.dof_m0.clone(),
            jnt_stiffness: model.jnt_stiffness.clone(),
            qpos: model.qpos0.clone(),
            qvel: vec![0.0; nv],
            qacc: vec![0.0; nv],
            ctrl: vec![0.0; nu],
            act: vec![0.0; model.na],
            act_dot: vec![0.0; model.na],
            qfrc_applied: vec![0.0; nv],
            xfrc_applied: vec![Wrench::default(); nb],
            mocap_pos: model.mocap_bodies().map(|b| model.body_pos[b]).collect(),
            mocap_quat: model.mocap_bodies().map(|b| model.body_quat[b]).collect(),
            xpos: vec![DVec3::ZERO; nb],
            xquat: vec![DQuat::IDENTITY; nb],
            xmat: vec![DMat3::IDENTITY; nb],
            xipos: vec![DVec3::ZERO; nb],
            ximat: vec![DMat3::IDENTITY; nb],
            xanchor: vec![DVec3::ZERO; model.njnt],
            xaxis: vec![DVec3::Z; model.njnt],
            geom_xpos: vec![DVec3::ZERO; model.ngeom],
            geom_xmat: vec![DMat3::IDENTITY; model.ngeom],
            site_xpos: vec![DVec3::ZERO; model.nsite],
            site_xmat: vec![DMat3::IDENTITY; model.nsite],
            subtree_com: vec![DVec3::ZERO; nb],
            cdof: vec![SpatialVec::ZERO; nv],
            cinert: vec![SpatialInertia::ZERO; nb],
            cvel: vec![SpatialVec::ZERO; nb],
            cdof_dot: vec![SpatialVec::ZERO; nv],
            qm: vec![0.0; model.nm],
            qld: vec![0.0; model.nm],
            qld_diag_inv: vec![0.0; nv],
            qfrc_bias: vec![0.0; nv],
            qfrc_passive: vec![0.0; nv],
            qfrc_spring: vec![0.0; nv],
            qfrc_damper: vec![0.0; nv],
            qfrc_gravcomp: vec![0.0; nv],
            qfrc_adhesion: vec![0.0; nv],
            ten_length: vec![0.0; model.tendons.len()],
            ten_velocity: vec![0.0; model.tendons.len()],
            ten_j: vec![0.0; model.tendons.len() * nv],
            qfrc_actuator: vec![0.0; nv],
            actuator_length: vec![0.0; nu],
            actuator_moment: vec![0.0; model.nmoment * nv],
            actuator_velocity: vec![0.0; nu],
            actuator_force: vec![0.0; nu],
            qfrc_smooth: vec![0.0; nv],
            qacc_smooth: vec![0.0; nv],
            energy_potential: 0.0,
            energy_kinetic: 0.0,
            body_awake: vec![true; nb],
            dof_awake: vec![true; nv],
            awake_dofs: (0..nv).collect(),
            all_awake: true,
            crb: vec![SpatialInertia::ZERO; nb],
            rne_cacc: vec![SpatialVec::ZERO; nb],
            cacc: vec![SpatialVec::ZERO; nb],
            cfrc_int: vec![SpatialVec::ZERO; nb],
            cfrc_ext: vec![SpatialVec::ZERO; nb],
            subtree_linvel: vec![DVec3::ZERO; nb],
            subtree_angmom: vec![DVec3::ZERO; nb],
            body_linvel: vec![DVec3::ZERO; nb],
            sensordata: vec![0.0; model.nsensordata],
            qfrc_fluid: vec![0.0; nv],
            cfrc: vec![SpatialVec::ZERO; nb],
            scratch: vec![0.0; nv],
        }
    }

    /// Scales body `body`'s mass and inertia by `scale` (from the model's: uniform density, same centre of mass and
    /// principal axes) and updates the subtree masses; the mass matrix, bias forces and energies follow at the next
    /// forward pass. The model's `body_invweight0` (constraint scaling) is kept, as MuJoCo keeps it until
    /// `mj_setConst`. The caller checks `body < nbody` and that `scale` is finite and positive.
    pub fn scale_body_mass(&mut self, model: &Model, body: usize, scale: f64) {
        self.body_mass[body] = model.body_mass[body] * scale;
        self.body_inertia[body] = model.body_inertia[body] * scale;
        self.body_subtreemass.copy_from_slice(&self.body_mass);
        for b in (1..model.nbody).rev() {
            let p = model.body_parent[b];
            self.body_subtreemass[p] += self.body_subtreemass[b];
        }
        self.update_simple_diagonal(model);
    }

    /// Recomputes `dof_m0` after a change of `body_mass` or `dof_armature`: a simple dof's diagonal is its body's
    /// mass or inertia term, which scales with the body's mass, plus the armature. Dofs whose body mass and armature
    /// are the model's keep the model's value exactly.
    pub fn update_simple_diagonal(&mut self, model: &Model) {
        for i in 0..model.nv {
            if !model.dof_simple[i] {
                continue;
            }
            let b = model.dof_bodyid[i];
            let (mass, armature) = (self.body_mass[b], self.dof_armature[i]);
            self.dof_m0[i] = if mass == model.body_mass[b] && armature == model.dof_armature[i] {
                model.dof_m0[i]
            } else {
                (model.dof_m0[i] - model.dof_armature[i]) * (mass / model.body_mass[b]) + armature
            };
        }
    }

    /// Back to `qpos0`, at rest, time 0, inputs cleared (no allocation).
    pub fn reset(&mut self, model: &Model) {
        self.time = 0.0;
        self.qpos.copy_from_slice(&model.qpos0);
        for v in [
            &mut self.qvel,
            &mut self.qacc,
            &mut self.ctrl,
            &mut self.act,
            &mut self.act_dot,
            &mut self.qfrc_applied,
        ] {
            v.fill(0.0);
        }
        self.xfrc_applied.fill(Wrench::default());
        for (i, b) in model.mocap_bodies().enumerate() {
            self.mocap_pos[i] = model.body_pos[b];
            self.mocap_quat[i] = model.body_quat[b];
        }
        self.wake_all();
    }

    /// Marks the bodies whose derived quantities [`Model::forward`] recomputes (`nbody` flags, whole kinematic trees
    /// at a time; the world body's flag is ignored). The others are asleep (hibernation): their state must not change
    /// while they are, and their poses, inertias, rows of `M` and of its factor, velocities, bias and smooth forces
    /// and `qacc_smooth` keep the values of the last forward pass that computed them.
    pub fn set_awake(&mut self, model: &Model, body_awake: &[bool]) {
        assert_eq!(body_awake.len(), model.nbody, "set_awake: one flag per body");
        self.body_awake.copy_from_slice(body_awake);
        self.body_awake[0] = true;
        self.awake_dofs.clear();
        for (d, awake) in self.dof_awake.iter_mut().enumerate() {
            *awake = self.body_awake[model.dof_bodyid[d]];
            if *awake {
                self.awake_dofs.push(d);
            }
        }
        self.all_awake = self.body_awake.iter().all(|&a| a);
    }

    /// Every body awake (the default).
    pub fn wake_all(&mut self) {
        self.body_awake.fill(true);
        self.dof_awake.fill(true);
        self.awake_dofs.clear();
        self.awake_dofs.extend(0..self.dof_awake.len());
        self.all_awake = true;
    }

    /// The non-zero entries `(dof, ∂L/∂q_dof)` of tendon `t`'s Jacobian, by decreasing dof (the order of constraint
    /// rows), from the last [`Model::tendon_state`].
    pub fn tendon_jacobian(&self, t: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let nv = self.qvel.len();
        let row = &self.ten_j[t * nv..(t + 1) * nv];
        (0..nv).rev().filter(move |&k| row[k] != 0.0).map(move |k| (k, row[k]))
    }

    /// Whether body `b`'s derived quantities are recomputed ([`Data::set_awake`]).
    pub fn is_body_awake(&self, b: usize) -> bool {
        self.body_awake[b]
    }

    /// [`Data::reset`], then the time, `qpos`, `qvel`, `ctrl`, `act`, `mocap_pos` and `mocap_quat` of keyframe `index`
    /// (empty fields keep the reset values).
    pub fn reset_to_keyframe(&mut self, model: &Model, index: usize) -> Result<(), DynamicsError> {
        let key = model
            .keyframes
            .get(index)
            .ok_or(DynamicsError::NoKeyframe { index, len: model.keyframes.len() })?;
        self.reset(model);
        self.time = key.time;
        for (dst, src) in [
            (&mut self.qpos, &key.qpos),
            (&mut self.qvel, &key.qvel),
            (&mut self.ctrl, &key.ctrl),
            (&mut self.act, &key.act),
        ] {
            if !src.is_empty() {
                dst.copy_from_slice(src);
            }
        }
        for (i, p) in key.mpos.chunks_exact(3).enumerate() {
            self.mocap_pos[i] = DVec3::new(p[0], p[1], p[2]);
        }
        for (i, q) in key.mquat.chunks_exact(4).enumerate() {
            self.mocap_quat[i] = DQuat::from_xyzw(q[1], q[2], q[3], q[0]);
        }
        Ok(())
    }
}
