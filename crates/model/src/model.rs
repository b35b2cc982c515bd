//! The compiled, immutable [`Model`]: the kinematic tree and every parameter as flat arrays (structure of arrays,
//! MuJoCo's `mjModel` layout), built and validated by [`Model::compile`].
//!
//! Indexing: bodies `0..nbody` (0 = world; parents precede children), joints `0..njnt` in body order then the order
//! of each body's `joints`, dofs `0..nv` and qpos `0..nq` in joint order, geoms `0..ngeom` in body order.
//! A body without joints is welded to its parent.

use glam::{DQuat, DVec3};
use signorini_collision::world::{BodyDesc, CollisionModel, CollisionOptions, GeomDesc};
use signorini_geometry::rotation::normalize_quat_compiled;
use signorini_geometry::{Pose, Shape};

use crate::error::{ModelError, object_name};
use crate::spec::{
    ActuatorDynamics, ContactPairSpec, EqualitySpec, JointKind, KeyframeSpec, ModelSpec, SolImp, SolRef,
    Transmission,
};

/// Below this a mass, an axis length or an invweight counts as zero (MuJoCo `mjMINVAL`).
pub const MINVAL: f64 = 1e-15;

impl JointKind {
    /// Number of qpos entries: free 7, ball 4, hinge/slide 1.
    pub const fn nq(self) -> usize {
        match self {
            JointKind::Free => 7,
            JointKind::Ball => 4,
            JointKind::Hinge | JointKind::Slide => 1,
        }
    }

    /// Number of dofs: free 6, ball 3, hinge/slide 1.
    pub const fn nv(self) -> usize {
        match self {
            JointKind::Free => 6,
            JointKind::Ball => 3,
            JointKind::Hinge | JointKind::Slide => 1,
        }
    }
}

/// The compiled model. Fields are public for reading (as MuJoCo's `mjModel`); only [`Model::compile`] builds one,
/// and changing structural fields (sizes, indices, addresses) afterwards is not supported. Per-object arrays have
/// one entry per object; positions and orientations are in the frame named on each field.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Model {
    /// Model name.
    pub name: String,
    /// Number of generalized coordinates.
    pub nq: usize,
    /// Number of dofs.
    pub nv: usize,
    /// Number of bodies, world included.
    pub nbody: usize,
    /// Number of joints.
    pub njnt: usize,
    /// Number of geoms.
    pub ngeom: usize,
    /// Number of sites.
    pub nsite: usize,
    /// Number of actuators.
    pub nu: usize,
    /// Number of stored entries of the sparse `qM` (see [`Model::dof_madr`]).
    pub nm: usize,
    /// Gravity (m/s², world): each [`Data`](crate::Data)'s `gravity` starts from it.
    pub gravity: DVec3,

    /// Body names.
    pub body_name: Vec<String>,
    /// Parent body (the world is its own parent).
    pub body_parent: Vec<usize>,
    /// The child of the world whose tree holds the body (0 for the world).
    pub body_rootid: Vec<usize>,
    /// The nearest body at or above this one that has joints or is a mocap body (0 when welded to the world).
    pub body_weldid: Vec<usize>,
    /// Index into each [`Data`](crate::Data)'s `mocap_pos`/`mocap_quat` of a mocap body (`None` for the others).
    pub body_mocapid: Vec<Option<usize>>,
    /// Number of mocap bodies.
    pub nmocap: usize,
    /// Gravity compensation of each body (MuJoCo `gravcomp`; 0: none).
    pub body_gravcomp: Vec<f64>,
    /// Sleep policy of each body (MJCF `sleep`; meaningful on tree roots, [`crate::spec::SleepPolicy`]).
    pub body_sleep: Vec<crate::spec::SleepPolicy>,
    /// Whether some body has gravity compensation.
    pub has_gravcomp: bool,
    /// Whether some forces depend on the step's contacts (adhesive geoms, body transmissions):
    /// [`Model::adhesion_pull`] and [`Model::body_transmissions`] have work to do.
    pub has_contact_forces: bool,
    /// First joint of the body.
    pub body_jntadr: Vec<usize>,
    /// Number of joints of the body.
    pub body_jntnum: Vec<usize>,
    /// First dof of the body.
    pub body_dofadr: Vec<usize>,
    /// Number of dofs of the body.
    pub body_dofnum: Vec<usize>,
    /// The last dof on the chain from the body to the world (its own last dof, or its nearest moving ancestor's);
    /// `None` when the body does not move. The chain is walked with [`Model::dof_parentid`].
    pub body_lastdof: Vec<Option<usize>>,
    /// First geom of the body.
    pub body_geomadr: Vec<usize>,
    /// Number of geoms of the body.
    pub body_geomnum: Vec<usize>,
    /// Body frame position in the parent frame.
    pub body_pos: Vec<DVec3>,
    /// Body frame orientation in the parent frame (unit).
    pub body_quat: Vec<DQuat>,
    /// Mass (kg).
    pub body_mass: Vec<f64>,
    /// Principal moments of inertia about the centre of mass (kg·m²), along the inertial frame's axes.
    pub body_inertia: Vec<DVec3>,
    /// Centre of mass in the body frame.
    pub body_ipos: Vec<DVec3>,
    /// Inertial frame orientation in the body frame (unit).
    pub body_iquat: Vec<DQuat>,
    /// Mass of the body's subtree (kg).
    pub body_subtreemass: Vec<f64>,
    /// `(translational, rotational)` inverse weight at `qpos0` (spec §B.2).
    pub body_invweight0: Vec<[f64; 2]>,

    /// Joint names.
    pub jnt_name: Vec<String>,
    /// Joint types.
    pub jnt_type: Vec<JointKind>,
    /// Body of each joint.
    pub jnt_bodyid: Vec<usize>,
    /// First qpos of each joint.
    pub jnt_qposadr: Vec<usize>,
    /// First dof of each joint.
    pub jnt_dofadr: Vec<usize>,
    /// Anchor in the body frame.
    pub jnt_pos: Vec<DVec3>,
    /// Unit axis in the body frame (hinge, slide; `+z` otherwise).
    pub jnt_axis: Vec<DVec3>,
    /// Limits, `None` when unlimited (ball: `(0, max angle)`); each [`Data`](crate::Data)'s `jnt_range` starts from
    /// them.
    pub jnt_range: Vec<Option<[f64; 2]>>,
    /// Limit margins ([`JointSpec::margin`](crate::spec::JointSpec::margin)): the distance to a limit below which
    /// its row is made, where the constraint options take margins.
    pub jnt_margin: Vec<f64>,
    /// Spring stiffness about `qpos_spring`.
    pub jnt_stiffness: Vec<f64>,
    /// Limit `solref`.
    pub jnt_solref: Vec<SolRef>,
    /// Limit `solimp`.
    pub jnt_solimp: Vec<SolImp>,
    /// Whether the joint takes its dofs' gravity compensation as an actuator force (MuJoCo `actuatorgravcomp`).
    pub jnt_actgravcomp: Vec<bool>,
    /// The clamp of the total actuator force on a hinge or slide joint (MuJoCo `actuatorfrcrange`).
    pub jnt_actfrcrange: Vec<Option<[f64; 2]>>,
    /// Per joint, MuJoCo's `springdamper = (timeconst, dampratio)` (its stiffness and damping, computed at compile).
    pub jnt_springdamper: Vec<Option<[f64; 2]>>,

    /// Body of each dof.
    pub dof_bodyid: Vec<usize>,
    /// Joint of each dof.
    pub dof_jntid: Vec<usize>,
    /// The previous dof on the chain to the world (`None` at a root): within a joint the previous dof, else the
    /// last dof of the previous joint of the body or of the nearest moving ancestor. Always `< dof`.
    pub dof_parentid: Vec<Option<usize>>,
    /// Kinematic tree of each dof (`0..ntree`): the connected components of [`Model::dof_parentid`] (a moving child
    /// of the world with its subtree, or each moving subtree of a body welded to the world), numbered in the order
    /// of their root dofs, so tree `t`'s smallest dof is below tree `t + 1`'s. `M` is block-diagonal across trees.
    pub dof_treeid: Vec<usize>,
    /// Number of kinematic trees with dofs.
    pub ntree: usize,
    /// Sparse `qM` layout, `nv + 1` entries: row `i` occupies `dof_madr[i]..dof_madr[i + 1]` and holds `M[i][i]`,
    /// `M[i][p(i)]`, `M[i][p(p(i))]`, … along the `dof_parentid` chain `p` (the only nonzeros of row `i` left of
    /// the diagonal). The same layout holds the factor `qLD`.
    pub dof_madr: Vec<usize>,
    /// The column of every stored entry of that layout (`nm` entries): `i` at `dof_madr[i]`, then the chain
    /// `p(i)`, `p(p(i))`, …, so that products and solves read the ancestors without walking `dof_parentid`.
    pub dof_colind: Vec<usize>,
    /// Whether the dof belongs to a *simple* body (MuJoCo `body_simple`): its inertia frame is its body frame, it
    /// moves relative to a fixed frame (a child of the world, or of a fixed child of the world), it has no children,
    /// and its joints sit at its origin with axes along its frame's axes, at most one of them rotational, no two
    /// slides along the same axis. Such a body's rows of `M` are diagonal and constant: `M[i][i] = dof_m0[i]`, every
    /// other entry zero (exactly, where the general algorithm leaves round-off).
    pub dof_simple: Vec<bool>,
    /// `M[i][i]` at `qpos0`, armature included (MuJoCo `dof_M0`); the diagonal of a simple dof at every pose.
    pub dof_m0: Vec<f64>,
    /// Entries of row `i` of the `qM` layout that can be nonzero: 1 for a simple dof, its whole chain otherwise
    /// (MuJoCo's reduced `M_rownnz`). [`TreeLayout`](crate::TreeLayout)'s kernels read only these.
    pub dof_rownnz: Vec<usize>,
    /// The dof–dof and body–dof sparsity of velocity derivatives (MuJoCo's `D` and `B`; the `implicit` integrator).
    pub derivative_layout: crate::rne_derivative::DerivativeLayout,
    /// Armature (rotor inertia) added to `M[i][i]`.
    pub dof_armature: Vec<f64>,
    /// Viscous damping.
    pub dof_damping: Vec<f64>,
    /// Friction loss.
    pub dof_frictionloss: Vec<f64>,
    /// Friction-loss `solref`.
    pub dof_solref: Vec<SolRef>,
    /// Friction-loss `solimp`.
    pub dof_solimp: Vec<SolImp>,
    /// Inverse weight `(M⁻¹)_dd` at `qpos0`, averaged over the translations and over the rotations of free and
    /// ball joints (MuJoCo `dof_invweight0`).
    pub dof_invweight0: Vec<f64>,
    /// Length scale: 1 for translations, the body's size for rotations (MuJoCo `dof_length`, see
    /// [`crate::invweight`]).
    pub dof_length: Vec<f64>,

    /// Reference configuration: free `(body pos, body quat)`, ball identity, hinge/slide `reference`.
    pub qpos0: Vec<f64>,
    /// How [`Model::integrate_qpos`] turns a quaternion by `h ω`. Default
    /// [`QuaternionStep::Genesis`](crate::kinematics::QuaternionStep::Genesis).
    pub quaternion_step: crate::kinematics::QuaternionStep,
    /// Spring rest configuration: as `qpos0` but hinge/slide take `springref`.
    pub qpos_spring: Vec<f64>,

    /// The geoms as collision sees them, one collision body per model body (same indices): name, shape, body, frame
    /// in the body frame (`local_pose`), contact parameters (`contype`, `conaffinity`, `condim`, friction, `solref`,
    /// `solimp`, `solmix`, `priority`, margin, gap), and the contact excludes. Defined once: the dynamics read the
    /// geom frames from here, the simulator collides with it (after setting its options).
    pub collision: CollisionModel,
    /// Compiled mass (kg), informative.
    pub geom_mass: Vec<f64>,
    /// Radius of a sphere about the geom origin that bounds the shape (0 for planes): sphere `r`, capsule `r + h`,
    /// cylinder `√(r² + h²)`, box `‖half extents‖`, ellipsoid largest semi-axis, meshes the farthest vertex, height
    /// field `√(hx² + hy² + max(|z|, base)²)`.
    pub geom_rbound: Vec<f64>,
    /// Each geom's ellipsoid fluid model (MJCF `fluidshape="ellipsoid"`; [`crate::fluid`]).
    pub geom_fluid: Vec<Option<crate::fluid::FluidEllipsoid>>,
    /// Each geom's surface velocity `(v, ω)`, geom frame ([`crate::spec::GeomSpec::surfacevel`]).
    pub geom_surfacevel: Vec<[f64; 6]>,
    /// Whether any geom has a surface velocity.
    pub has_surfacevel: bool,
    /// Whether ray casts see each geom ([`crate::spec::GeomSpec::visible`]).
    pub geom_visible: Vec<bool>,
    /// Each plane's rendered half sizes, bounding ray hits ([`crate::spec::GeomSpec::plane_extent`]).
    pub geom_plane_extent: Vec<[f64; 2]>,
    /// Per body: whether a geom of it has an ellipsoid fluid model (then the body has no inertia-box force).
    pub body_fluid_ellipsoid: Vec<bool>,
    /// The fluid medium (density, viscosity, wind; [`crate::fluid`]).
    pub medium: crate::fluid::Medium,

    /// Site names.
    pub site_name: Vec<String>,
    /// Body of each site.
    pub site_bodyid: Vec<usize>,
    /// Site position in the body frame.
    pub site_pos: Vec<DVec3>,
    /// Site orientation in the body frame (unit).
    pub site_quat: Vec<DQuat>,

    /// Actuator names.
    pub actuator_name: Vec<String>,
    /// What each actuator drives: a hinge or slide joint, or a fixed tendon.
    pub actuator_transmission: Vec<Transmission>,
    /// Gear: actuator length `= gear·q` (or `gear·L` of a tendon), generalized force `= gear·force` along the
    /// target's Jacobian.
    pub actuator_gear: Vec<f64>,
    /// Per actuator: its row in `Data::actuator_moment` (site and slider-crank transmissions, whose moment depends on
    /// the pose); `None` for joints and tendons.
    pub actuator_momentadr: Vec<Option<usize>>,
    /// Number of those rows.
    pub nmoment: usize,
    /// Gain: `force = gain·ctrl + bias₀ + bias₁·length + bias₂·velocity`.
    pub actuator_gain: Vec<f64>,
    /// Affine gain terms `(gainprm₁, gainprm₂)` (zero for a fixed gain).
    pub actuator_gain_affine: Vec<[f64; 2]>,
    /// Activation dynamics of each actuator.
    pub actuator_dynamics: Vec<ActuatorDynamics>,
    /// Index of each actuator's activation in `Data::act` (`None` without dynamics).
    pub actuator_actadr: Vec<Option<usize>>,
    /// Activation clamp (`actlimited`).
    pub actuator_actrange: Vec<Option<[f64; 2]>>,
    /// Number of activations.
    pub na: usize,
    /// Bias `(bias₀, bias₁, bias₂)`.
    pub actuator_bias: Vec<[f64; 3]>,
    /// Control clamping range.
    pub actuator_ctrlrange: Vec<Option<[f64; 2]>>,
    /// Force clamping range.
    pub actuator_forcerange: Vec<Option<[f64; 2]>>,
    /// Muscle gain, replacing `actuator_gain` and `actuator_gain_affine` ([`crate::muscle`]).
    pub actuator_gain_muscle: Vec<Option<crate::muscle::Muscle>>,
    /// Muscle bias (passive force), replacing `actuator_bias`.
    pub actuator_bias_muscle: Vec<Option<crate::muscle::Muscle>>,
    /// The range of the actuator's length (MuJoCo `actuator_lengthrange`; `[0, 0]` when neither given nor
    /// computed). The simulator computes the missing ones of a muscle when it compiles the model
    /// ([`crate::spec::LengthRangeOptions`]).
    pub actuator_lengthrange: Vec<[f64; 2]>,
    /// Whether the length range was given by the spec (else computed, or none).
    pub actuator_lengthrange_given: Vec<bool>,
    /// `‖M⁻¹ Jᵀ‖` at `qpos0` for the actuator's moment `J` (MuJoCo `actuator_acc0`): the acceleration a unit force
    /// causes; a muscle's default peak force is `scale/acc0`.
    pub actuator_acc0: Vec<f64>,
    /// The force takes the next step's activation (MuJoCo `actearly`).
    pub actuator_actearly: Vec<bool>,
    /// The physics step `h` (s) that `actearly` actuators look ahead by. The simulator sets it from its own step
    /// (`dt/substeps`); 0.002 (MuJoCo's default) on a model compiled alone.
    pub timestep: f64,
    /// How missing length ranges are computed ([`crate::spec::LengthRangeOptions`]).
    pub lengthrange_options: crate::spec::LengthRangeOptions,
    /// Actuators apply forces (MuJoCo's `actuation` flag; off: `actuator_force`, `qfrc_actuator` and `act_dot`
    /// stay zero, lengths and velocities are still computed). Set by the simulator from its options; default true.
    pub actuation_enabled: bool,
    /// Controls are clamped to `ctrlrange` (MuJoCo's `clampctrl` flag). Set by the simulator; default true.
    pub clamp_ctrl: bool,
    /// The adhesion pull is applied ([`Model::adhesion_pull`]). MuJoCo skips every passive force when both its
    /// `spring` and `damper` flags are off; the simulator then clears this, gravity compensation and the fluid
    /// medium. Default true.
    pub adhesion_pull: bool,

    /// Equality constraints (indices validated).
    pub equalities: Vec<EqualitySpec>,
    /// Fixed tendons ([`crate::tendon`]).
    pub tendons: crate::tendon::Tendons,
    /// Keyframes (sizes validated).
    pub keyframes: Vec<KeyframeSpec>,
    /// Explicit contact pairs (indices validated; see [`Model::geom_index`]).
    pub contact_pairs: Vec<ContactPairSpec>,

    /// Mean diagonal of `M(qpos0)` (armature included), 1 without dofs (MuJoCo `stat.meaninertia`).
    pub meaninertia: f64,

    /// Sensors (indices validated; [`crate::sensor`]).
    pub sensors: Vec<crate::sensor::SensorSpec>,
    /// Address of each sensor's first value in `sensordata`.
    pub sensor_adr: Vec<usize>,
    /// Number of sensor values.
    pub nsensordata: usize,
}

/// Iterator over the dofs on a chain to the world, from the last one down (see [`Model::dof_chain`]).
#[derive(Debug, Clone)]
pub struct DofChain<'a> {
    parent: &'a [Option<usize>],
    next: Option<usize>,
}

impl Iterator for DofChain<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let d = self.next?;
        self.next = self.parent[d];
        Some(d)
    }
}

impl Model {
    /// The dofs that move `body`, from its last dof down to the root (decreasing indices). Empty for bodies welded
    /// to the world.
    #[inline]
    pub fn dof_chain(&self, body: usize) -> DofChain<'_> {
        DofChain { parent: &self.dof_parentid, next: self.body_lastdof[body] }
    }

    /// The dofs on the chains of bodies `a` and `b`, each once, in decreasing order, as `(dof, on a's chain, on b's
    /// chain)`: the columns of MuJoCo's `mj_jacDifPair` (`skipcommon = 0`), where a dof on both chains takes
    /// `J_b − J_a` (not `J_b·x − J_a·x`).
    #[inline]
    pub fn dof_chain_union(&self, a: usize, b: usize) -> impl Iterator<Item = (usize, bool, bool)> + '_ {
        let (mut on_a, mut on_b) = (self.dof_chain(a).peekable(), self.dof_chain(b).peekable());
        std::iter::from_fn(move || {
            let (da, db) = (on_a.peek().copied(), on_b.peek().copied());
            let dof = da.max(db)?;
            let (in_a, in_b) = (da == Some(dof), db == Some(dof));
            if in_a {
                on_a.next();
            }
            if in_b {
                on_b.next();
            }
            Some((dof, in_a, in_b))
        })
    }

    /// The first dof of the free joint of the free body whose kinematic tree holds `body`, when that tree is a
    /// *standalone* free body: a free joint at the origin of a child of the world, alone in its tree (bodies welded
    /// under it included). Genesis anchors such a body at its centre of mass when it loads it (its
    /// `_align_free_roots`); `None` for any other body.
    pub fn standalone_free_dofs(&self, body: usize) -> Option<usize> {
        let root = *self.body_rootid.get(body)?;
        if root == 0 || self.body_parent[root] != 0 || self.body_jntnum[root] != 1 {
            return None;
        }
        let j = self.body_jntadr[root];
        if self.jnt_type[j] != JointKind::Free || self.jnt_pos[j] != DVec3::ZERO {
            return None;
        }
        let adr = self.jnt_dofadr[j];
        let tree = self.dof_treeid[adr];
        (adr + 6 == self.nv || self.dof_treeid[adr + 6] != tree).then_some(adr)
    }

    /// [`Self::dof_chain`] as a slice (the columns of the body's last dof's row in [`Self::dof_colind`]).
    #[inline]
    pub fn dof_chain_slice(&self, body: usize) -> &[usize] {
        match self.body_lastdof[body] {
            Some(d) => &self.dof_colind[self.dof_madr[d]..self.dof_madr[d + 1]],
            None => &[],
        }
    }

    /// The dofs on the chain starting at `dof` itself, down to the root.
    #[inline]
    pub fn dof_chain_from(&self, dof: usize) -> DofChain<'_> {
        DofChain { parent: &self.dof_parentid, next: Some(dof) }
    }

    /// The global index of geom `k` of `body`.
    #[inline]
    pub fn geom_index(&self, body: usize, k: usize) -> usize {
        self.body_geomadr[body] + k
    }

    /// The index of the body named `name`.
    pub fn body_id(&self, name: &str) -> Option<usize> {
        self.body_name.iter().position(|n| n == name)
    }

    /// The index of the joint named `name`.
    pub fn joint_id(&self, name: &str) -> Option<usize> {
        self.jnt_name.iter().position(|n| n == name)
    }

    /// Validates `spec` and compiles it: flat arrays, dof tree, sparse-`M` layout, and the constants computed at
    /// `qpos0` (`body_invweight0`, `dof_invweight0`, `dof_length`, `meaninertia`).
    pub fn compile(spec: ModelSpec) -> Result<Model, ModelError> {
        crate::validate::validate(&spec)?;
        let mut model = build(spec)?;
        check_masses(&model)?;
        crate::invweight::set_constants(&mut model)?;
        Ok(model)
    }
}

/// A direction at unit length as MuJoCo's compiler leaves a joint axis (`mjuu_normvec`): unchanged within 10⁻¹⁴ of
/// unit length (normalising again would move its last bits), else each component divided by the length. A squared
/// length below 10⁻¹⁴ (MuJoCo: "axis too small") or beyond the `f64` range is still a direction, scaled without
/// underflow or overflow; `None` for zero or non-finite vectors.
pub fn unit_axis(a: DVec3) -> Option<DVec3> {
    let norm2 = a.x * a.x + a.y * a.y + a.z * a.z;
    if !(norm2 >= 1e-14 && norm2.is_finite()) {
        return signorini_geometry::support::normalize_robust(a);
    }
    let norm = norm2.sqrt();
    Some(if (norm - 1.0).abs() > 1e-14 { DVec3::new(a.x / norm, a.y / norm, a.z / norm) } else { a })
}

/// A quaternion at unit length as MuJoCo's compiler leaves it ([`normalize_quat_compiled`]); glam's normalisation
/// where that leaves it alone (a length below 10⁻⁷).
pub fn unit_quat_compiled(q: DQuat) -> DQuat {
    normalize_quat_compiled(q).unwrap_or_else(|| q.normalize())
}

/// The bounding radius of `shape` about its origin (see [`Model::geom_rbound`]).
pub fn shape_rbound(shape: &Shape) -> f64 {
    match shape {
        Shape::Plane(_) => 0.0,
        Shape::Sphere(s) => s.radius(),
        Shape::Capsule(c) => c.radius() + c.half_length(),
        Shape::Cylinder(c) => c.radius().hypot(c.half_length()),
        Shape::Box(b) => b.half_extents().length(),
        Shape::Ellipsoid(e) => e.semi_axes().max_element(),
        Shape::ConvexMesh(m) => m.bounding_radius(),
        Shape::TriangleMesh(m) => m.vertices().iter().map(|v| v.length()).fold(0.0, f64::max),
        Shape::HeightField(h) => {
            let (hx, hy) = h.half_extents();
            let (lo, hi) = h.height_range();
            let z = lo.abs().max(hi.abs()).max(h.base_depth());
            (hx * hx + hy * hy + z * z).sqrt()
        }
    }
}

fn build(spec: ModelSpec) -> Result<Model, ModelError> {
    let nbody = spec.bodies.len();
    let mut m = Model {
        name: spec.name,
        nq: 0,
        nv: 0,
        nbody,
        njnt: 0,
        ngeom: 0,
        nsite: 0,
        nu: spec.actuators.len(),
        nm: 0,
        gravity: spec.gravity,
        body_name: Vec::with_capacity(nbody),
        body_parent: Vec::with_capacity(nbody),
        body_rootid: Vec::with_capacity(nbody),
        body_weldid: Vec::with_capacity(nbody),
        body_mocapid: Vec::with_capacity(nbody),
        nmocap: 0,
        body_gravcomp: Vec::with_capacity(nbody),
        body_sleep: Vec::with_capacity(nbody),
        has_gravcomp: false,
        has_contact_forces: false,
        jnt_actgravcomp: Vec::new(),
        jnt_actfrcrange: Vec::new(),
        jnt_springdamper: Vec::new(),
        body_jntadr: Vec::with_capacity(nbody),
        body_jntnum: Vec::with_capacity(nbody),
        body_dofadr: Vec::with_capacity(nbody),
        body_dofnum: Vec::with_capacity(nbody),
        body_lastdof: Vec::with_capacity(nbody),
        body_geomadr: Vec::with_capacity(nbody),
        body_geomnum: Vec::with_capacity(nbody),
        body_pos: Vec::with_capacity(nbody),
        body_quat: Vec::with_capacity(nbody),
        body_mass: Vec::with_capacity(nbody),
        body_inertia: Vec::with_capacity(nbody),
        body_ipos: Vec::with_capacity(nbody),
        body_iquat: Vec::with_capacity(nbody),
        body_subtreemass: Vec::new(),
        body_invweight0: vec![[0.0; 2]; nbody],
        jnt_name: Vec::new(),
        jnt_type: Vec::new(),
        jnt_bodyid: Vec::new(),
        jnt_qposadr: Vec::new(),
        jnt_dofadr: Vec::new(),
        jnt_pos: Vec::new(),
        jnt_axis: Vec::new(),
        jnt_range: Vec::new(),
        jnt_margin: Vec::new(),
        jnt_stiffness: Vec::new(),
        jnt_solref: Vec::new(),
        jnt_solimp: Vec::new(),
        dof_bodyid: Vec::new(),
        dof_jntid: Vec::new(),
        dof_parentid: Vec::new(),
        dof_treeid: Vec::new(),
        ntree: 0,
        dof_madr: Vec::new(),
        dof_colind: Vec::new(),
        dof_simple: Vec::new(),
        dof_m0: Vec::new(),
        dof_rownnz: Vec::new(),
        derivative_layout: Default::default(),
        dof_armature: Vec::new(),
        dof_damping: Vec::new(),
        dof_frictionloss: Vec::new(),
        dof_solref: Vec::new(),
        dof_solimp: Vec::new(),
        dof_invweight0: Vec::new(),
        dof_length: Vec::new(),
        qpos0: Vec::new(),
        quaternion_step: crate::kinematics::QuaternionStep::Genesis,
        qpos_spring: Vec::new(),
        collision: CollisionModel::new(CollisionOptions::default())?,
        geom_mass: Vec::new(),
        geom_rbound: Vec::new(),
        geom_fluid: Vec::new(),
        geom_surfacevel: Vec::new(),
        geom_visible: Vec::new(),
        geom_plane_extent: Vec::new(),
        has_surfacevel: false,
        body_fluid_ellipsoid: Vec::new(),
        medium: spec.medium,
        site_name: Vec::new(),
        site_bodyid: Vec::new(),
        site_pos: Vec::new(),
        site_quat: Vec::new(),
        actuator_name: Vec::new(),
        actuator_transmission: Vec::new(),
        actuator_gear: Vec::new(),
        actuator_momentadr: Vec::new(),
        nmoment: 0,
        actuator_gain: Vec::new(),
        actuator_gain_affine: Vec::new(),
        actuator_dynamics: Vec::new(),
        actuator_actadr: Vec::new(),
        actuator_actrange: Vec::new(),
        na: 0,
        actuator_bias: Vec::new(),
        actuator_ctrlrange: Vec::new(),
        actuator_forcerange: Vec::new(),
        actuator_gain_muscle: Vec::new(),
        actuator_bias_muscle: Vec::new(),
        actuator_lengthrange: Vec::new(),
        actuator_lengthrange_given: Vec::new(),
        actuator_acc0: Vec::new(),
        actuator_actearly: Vec::new(),
        timestep: 0.002,
        lengthrange_options: spec.lengthrange,
        actuation_enabled: true,
        clamp_ctrl: true,
        adhesion_pull: true,
        equalities: spec.equalities,
        tendons: crate::tendon::Tendons::default(),
        keyframes: spec.keyframes,
        contact_pairs: spec.contact_pairs,
        meaninertia: 1.0,
        sensor_adr: spec
            .sensors
            .iter()
            .scan(0, |adr, s| {
                let here = *adr;
                *adr += s.kind.dim();
                Some(here)
            })
            .collect(),
        nsensordata: spec.sensors.iter().map(|s| s.kind.dim()).sum(),
        sensors: spec.sensors,
    };

    let contact_excludes = spec.contact_excludes;
    let tendons = spec.tendons;
    let mut geoms = Vec::new();
    for (b, body) in spec.bodies.into_iter().enumerate() {
        let parent = if b == 0 { 0 } else { body.parent };
        m.body_name.push(body.name);
        m.body_parent.push(parent);
        m.body_sleep.push(body.sleep);
        m.body_rootid.push(match b {
            0 => 0,
            _ if parent == 0 => b,
            _ => m.body_rootid[parent],
        });
        m.body_weldid.push(match b {
            0 => 0,
            _ if !body.joints.is_empty() || body.mocap => b,
            _ => m.body_weldid[parent],
        });
        m.body_gravcomp.push(body.gravcomp);
        m.has_gravcomp |= body.gravcomp != 0.0;
        m.body_mocapid.push(body.mocap.then(|| {
            m.nmocap += 1;
            m.nmocap - 1
        }));
        m.body_pos.push(body.pos);
        m.body_quat.push(unit_quat_compiled(body.quat));
        m.body_mass.push(body.inertial.mass);
        m.body_inertia.push(body.inertial.inertia);
        m.body_ipos.push(body.inertial.pos);
        m.body_iquat.push(unit_quat_compiled(body.inertial.quat));

        m.body_jntadr.push(m.njnt);
        m.body_jntnum.push(body.joints.len());
        m.body_dofadr.push(m.nv);
        let mut last = if b == 0 { None } else { m.body_lastdof[parent] };
        for joint in body.joints {
            let j = m.njnt;
            m.njnt += 1;
            let kind = joint.kind;
            m.jnt_name.push(joint.name);
            m.jnt_type.push(kind);
            m.jnt_bodyid.push(b);
            m.jnt_qposadr.push(m.nq);
            m.jnt_dofadr.push(m.nv);
            m.jnt_pos.push(joint.pos);
            let axis = match kind {
                // Validation has refused zero and non-finite axes.
                JointKind::Hinge | JointKind::Slide => unit_axis(joint.axis).unwrap_or(DVec3::Z),
                JointKind::Free | JointKind::Ball => DVec3::Z,
            };
            m.jnt_axis.push(axis);
            m.jnt_range.push(joint.range);
            m.jnt_margin.push(joint.margin);
            m.jnt_stiffness.push(joint.stiffness);
            m.jnt_solref.push(joint.solref_limit);
            m.jnt_solimp.push(joint.solimp_limit);
            m.jnt_actgravcomp.push(joint.actuatorgravcomp);
            m.jnt_actfrcrange.push(joint.actuatorfrcrange);
            m.jnt_springdamper.push(joint.springdamper);
            match kind {
                JointKind::Free => {
                    let q = m.body_quat[b];
                    let pose = [body.pos.x, body.pos.y, body.pos.z, q.w, q.x, q.y, q.z];
                    m.qpos0.extend_from_slice(&pose);
                    m.qpos_spring.extend_from_slice(&pose);
                }
                JointKind::Ball => {
                    m.qpos0.extend_from_slice(&[1.0, 0.0, 0.0, 0.0]);
                    m.qpos_spring.extend_from_slice(&[1.0, 0.0, 0.0, 0.0]);
                }
                JointKind::Hinge | JointKind::Slide => {
                    m.qpos0.push(joint.reference);
                    m.qpos_spring.push(joint.springref);
                }
            }
            m.nq += kind.nq();
            for _ in 0..kind.nv() {
                let d = m.nv;
                m.nv += 1;
                m.dof_bodyid.push(b);
                m.dof_jntid.push(j);
                m.dof_parentid.push(last);
                last = Some(d);
                m.dof_armature.push(joint.armature);
                m.dof_damping.push(joint.damping);
                m.dof_frictionloss.push(joint.frictionloss);
                m.dof_solref.push(joint.solref_friction);
                m.dof_solimp.push(joint.solimp_friction);
            }
        }
        m.body_dofnum.push(m.nv - m.body_dofadr[b]);
        m.body_lastdof.push(last);

        m.body_geomadr.push(m.ngeom);
        m.body_geomnum.push(body.geoms.len());
        let mut fluid_ellipsoid = false;
        for geom in body.geoms {
            m.ngeom += 1;
            m.geom_rbound.push(shape_rbound(&geom.shape));
            let fluid = geom.fluid.and_then(|coefs| crate::fluid::FluidEllipsoid::new(&geom.shape, coefs));
            fluid_ellipsoid |= fluid.is_some();
            m.geom_fluid.push(fluid);
            m.geom_surfacevel.push(geom.surfacevel);
            m.geom_visible.push(geom.visible);
            m.geom_plane_extent.push(geom.plane_extent);
            m.has_surfacevel |= geom.surfacevel != [0.0; 6];
            m.geom_mass.push(geom.mass);
            let mut desc = GeomDesc::new(geom.shape, b)
                .at(Pose { translation: geom.pos, rotation: unit_quat_compiled(geom.quat) })
                .named(geom.name);
            desc.contype = geom.contype;
            desc.conaffinity = geom.conaffinity;
            desc.condim = geom.condim;
            desc.friction = geom.friction;
            desc.solref = geom.solref;
            desc.solimp = geom.solimp;
            desc.solmix = geom.solmix;
            desc.priority = geom.priority;
            desc.margin = geom.margin;
            desc.gap = geom.gap;
            desc.adhesion = geom.adhesion;
            m.has_contact_forces |= geom.adhesion != 0.0;
            geoms.push(desc);
        }
        m.body_fluid_ellipsoid.push(fluid_ellipsoid);
        for (name, pos, quat) in body.sites {
            m.nsite += 1;
            m.site_name.push(name);
            m.site_bodyid.push(b);
            m.site_pos.push(pos);
            m.site_quat.push(unit_quat_compiled(quat));
        }
    }

    for tendon in tendons {
        m.tendons.push(tendon, &m.jnt_dofadr, &m.jnt_qposadr);
    }

    for b in 1..nbody {
        let desc = BodyDesc {
            kinematic: m.body_mocapid[b].is_some(),
            inertial_rotation: m.body_iquat[b],
            ..BodyDesc::new(m.body_name[b].clone(), m.body_parent[b], m.body_jntnum[b] > 0)
        };
        m.collision.add_body(desc)?;
    }
    for desc in geoms {
        m.collision.add_geom(desc)?;
    }
    for (a, b) in contact_excludes {
        m.collision.exclude_bodies(a, b)?;
    }
    for pair in &m.contact_pairs {
        let params = signorini_collision::contact_set::MixedParams {
            friction: [pair.friction[0], pair.friction[2], pair.friction[3]],
            solref: pair.solref,
            solimp: pair.solimp,
            condim: pair.condim,
            margin: pair.margin,
            gap: pair.gap,
            adhesion: pair.adhesion,
        };
        let (g1, g2) = (m.geom_index(pair.geom1.0, pair.geom1.1), m.geom_index(pair.geom2.0, pair.geom2.1));
        m.collision.add_explicit_pair(g1, g2, params)?;
        m.has_contact_forces |= pair.adhesion != 0.0;
    }

    m.body_subtreemass = m.body_mass.clone();
    for b in (1..nbody).rev() {
        let p = m.body_parent[b];
        m.body_subtreemass[p] += m.body_subtreemass[b];
    }

    m.ntree = tree_ids(m.dof_parentid.iter().copied(), &mut m.dof_treeid);

    m.dof_madr = Vec::with_capacity(m.nv + 1);
    let mut adr = 0;
    m.dof_colind = Vec::new();
    for d in 0..m.nv {
        m.dof_madr.push(adr);
        let before = m.dof_colind.len();
        let chain: Vec<usize> = m.dof_chain_from(d).collect();
        m.dof_colind.extend(chain);
        adr += m.dof_colind.len() - before;
    }
    m.dof_madr.push(adr);
    m.nm = adr;
    let mut has_child = vec![false; nbody];
    for b in 1..nbody {
        has_child[m.body_parent[b]] = true;
    }
    m.dof_simple = (0..m.nv).map(|d| body_is_simple(&m, m.dof_bodyid[d], &has_child)).collect();
    m.dof_m0 = vec![0.0; m.nv];
    m.dof_rownnz =
        (0..m.nv).map(|d| if m.dof_simple[d] { 1 } else { m.dof_madr[d + 1] - m.dof_madr[d] }).collect();
    m.derivative_layout = crate::rne_derivative::DerivativeLayout::new(&m);

    for act in spec.actuators {
        m.actuator_name.push(act.name);
        m.actuator_transmission.push(act.transmission);
        m.actuator_momentadr.push(
            matches!(
                act.transmission,
                Transmission::Site { .. } | Transmission::SliderCrank { .. } | Transmission::Body(_)
            )
            .then(|| {
                m.nmoment += 1;
                m.nmoment - 1
            }),
        );
        m.actuator_gear.push(act.gear);
        m.actuator_gain.push(act.gain);
        m.actuator_gain_affine.push(act.gain_affine);
        m.actuator_dynamics.push(act.dynamics);
        m.actuator_actadr.push((act.dynamics != ActuatorDynamics::None).then(|| {
            m.na += 1;
            m.na - 1
        }));
        m.actuator_actrange.push(act.actrange);
        m.actuator_bias.push(act.bias);
        m.actuator_ctrlrange.push(act.ctrlrange);
        m.actuator_forcerange.push(act.forcerange);
        m.actuator_gain_muscle.push(act.gain_muscle);
        m.actuator_bias_muscle.push(act.bias_muscle);
        m.actuator_lengthrange.push(act.lengthrange.unwrap_or([0.0; 2]));
        m.actuator_lengthrange_given.push(act.lengthrange.is_some());
        m.actuator_actearly.push(act.actearly);
    }
    m.actuator_acc0 = vec![0.0; m.nu];
    m.has_contact_forces |= m.actuator_transmission.iter().any(|t| matches!(t, Transmission::Body(_)));
    m.dof_invweight0 = vec![0.0; m.nv];
    m.dof_length = vec![1.0; m.nv];
    normalize_keyframe_quaternions(&mut m);
    Ok(m)
}

/// The ball and free joints' quaternions of every keyframe `qpos` as MuJoCo's compiler leaves them in `key_qpos`
/// ([`normalize_quat_compiled`]: divided by their norm unless it is within 10⁻¹⁴ of 1), so that a key written to
/// seven digits starts where MuJoCo's does.
fn normalize_keyframe_quaternions(m: &mut Model) {
    for key in m.keyframes.iter_mut().filter(|k| k.qpos.len() == m.nq) {
        for j in 0..m.njnt {
            let at = match m.jnt_type[j] {
                JointKind::Free => m.jnt_qposadr[j] + 3,
                JointKind::Ball => m.jnt_qposadr[j],
                JointKind::Hinge | JointKind::Slide => continue,
            };
            let q = &mut key.qpos[at..at + 4];
            if let Some(u) = normalize_quat_compiled(DQuat::from_xyzw(q[1], q[2], q[3], q[0])) {
                q.copy_from_slice(&[u.w, u.x, u.y, u.z]);
            }
        }
    }
}

/// MuJoCo's `body_simple` rule (see [`Model::dof_simple`]), with one more condition: no two slides along the same
/// axis (their rows of `M` would couple).
fn body_is_simple(m: &Model, b: usize, has_child: &[bool]) -> bool {
    let parent = m.body_parent[b];
    let fixed_base = parent == 0 || (m.body_parent[parent] == 0 && m.body_dofnum[parent] == 0);
    let same_frame = m.body_ipos[b] == DVec3::ZERO && m.body_iquat[b] == DQuat::IDENTITY;
    let leaf = !has_child[b];
    if b == 0 || !fixed_base || !same_frame || !leaf {
        return false;
    }
    let (mut rotations, mut slide_axes) = (0, [false; 3]);
    for j in m.body_jntadr[b]..m.body_jntadr[b] + m.body_jntnum[b] {
        if m.jnt_pos[j] != DVec3::ZERO {
            return false;
        }
        let kind = m.jnt_type[j];
        if matches!(kind, JointKind::Hinge | JointKind::Slide) {
            let along = m.jnt_axis[j].to_array().map(|c| c.abs() > 1e-14);
            if along.iter().filter(|&&a| a).count() != 1 {
                return false;
            }
            if kind == JointKind::Slide {
                let k = along.iter().position(|&a| a).unwrap_or(0);
                if slide_axes[k] {
                    return false;
                }
                slide_axes[k] = true;
            }
        }
        if matches!(kind, JointKind::Hinge | JointKind::Ball) {
            rotations += 1;
            if rotations > 1 {
                return false;
            }
        }
    }
    true
}

/// The kinematic tree of every dof given the parent of each (`None` at a root, parents before children): a root
/// opens the next tree, every other dof is in its parent's; writes them to `out` and returns the number of trees
/// ([`Model::dof_treeid`], and the same for a subset of whole trees with local parents).
pub fn tree_ids(parents: impl Iterator<Item = Option<usize>>, out: &mut Vec<usize>) -> usize {
    out.clear();
    let mut ntree = 0;
    for p in parents {
        let t = match p {
            Some(p) => out[p],
            None => {
                ntree += 1;
                ntree - 1
            }
        };
        out.push(t);
    }
    ntree
}

/// Rejects a body with dofs whose subtree has no mass (after [`build`], which computes subtree masses).
fn check_masses(m: &Model) -> Result<(), ModelError> {
    for b in 1..m.nbody {
        if m.body_dofnum[b] > 0 && !(m.body_subtreemass[b] > MINVAL) {
            return Err(ModelError::MasslessSubtree { body: object_name("body", &m.body_name[b], b) });
        }
    }
    Ok(())
}
