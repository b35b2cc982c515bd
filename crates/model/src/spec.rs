//! The plain-data description of a model, as a loader (MJCF, URDF) or user code produces it, before compilation.
//!
//! Frames: every body's `pos`/`quat` is relative to its parent body's frame; joint anchors and axes, geom poses and
//! inertial frames are in the body's own frame. Quaternions are glam `DQuat` (written `(w, x, y, z)` in files).
//! Angles are radians, units SI. Body 0 is the world; `bodies[0]` must be the world body (no joints, no inertia).
//! Nothing here is validated: [`crate::Model::compile`] checks it and returns a typed error.

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};
use signorini_geometry::Shape;

pub use signorini_collision::contact_set::{SolImp, SolRef};
pub use signorini_collision::world::{DEFAULT_SOLIMP, DEFAULT_SOLREF};

/// Joint type, in MuJoCo's qpos/qvel layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointKind {
    /// 7 qpos `(x, y, z, qw, qx, qy, qz)`, 6 dofs `(world linear velocity, body-frame angular velocity)`.
    Free,
    /// 4 qpos (unit quaternion), 3 dofs (body-frame angular velocity).
    Ball,
    /// 1 qpos (angle), 1 dof, about `axis`.
    Hinge,
    /// 1 qpos (displacement), 1 dof, along `axis`.
    Slide,
}

/// A joint of a body (a body may have several, applied in order, as in MuJoCo).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JointSpec {
    /// Name (may be empty).
    pub name: String,
    /// Type.
    pub kind: JointKind,
    /// Anchor in the body frame (ignored for free joints).
    pub pos: DVec3,
    /// Axis in the body frame (hinge, slide), normalised by compilation.
    pub axis: DVec3,
    /// Limits `(lower, upper)` in radians or metres, `None` when unlimited.
    pub range: Option<[f64; 2]>,
    /// Limit margin (MuJoCo `margin`, qpos units, never converted from degrees): a limit row is made while the
    /// distance to the limit is below it, and measures its violation from it (`x = dist − margin`). Used where the
    /// constraint options ask (`ConstraintOptions::limit_margins`: MuJoCo-compatible mode; Genesis reads none).
    pub margin: f64,
    /// Armature added to the diagonal of `M` for this joint's dofs.
    pub armature: f64,
    /// Viscous damping (N·m·s/rad or N·s/m).
    pub damping: f64,
    /// Spring stiffness about `springref`.
    pub stiffness: f64,
    /// Spring reference position (qpos units; hinge/slide only).
    pub springref: f64,
    /// Dry friction (friction loss) magnitude.
    pub frictionloss: f64,
    /// Reference position `qpos0` (hinge/slide; MJCF `ref`).
    pub reference: f64,
    /// Limit constraint `solref`.
    pub solref_limit: SolRef,
    /// Limit constraint `solimp`.
    pub solimp_limit: SolImp,
    /// Friction-loss constraint `solref`.
    pub solref_friction: SolRef,
    /// Friction-loss constraint `solimp`.
    pub solimp_friction: SolImp,
    /// MuJoCo `actuatorgravcomp`: the gravity compensation of this joint's dofs is an actuator force
    /// (`qfrc_actuator`) rather than a passive one (`qfrc_passive`).
    pub actuatorgravcomp: bool,
    /// MuJoCo `actuatorfrcrange` (hinge and slide joints): the total actuator force on the joint's dof is clamped to
    /// it, after every actuator and the actuator gravity compensation; `None`: unlimited.
    pub actuatorfrcrange: Option<[f64; 2]>,
    /// MuJoCo `springdamper = (timeconst, dampratio)`: the stiffness and damping are computed when the model is
    /// compiled, from the joint's inertia at `qpos0` (replacing `stiffness` and `damping`).
    pub springdamper: Option<[f64; 2]>,
}

/// A collision/visual geom attached to a body.
#[derive(Debug, Clone, PartialEq)]
pub struct GeomSpec {
    /// Name (may be empty).
    pub name: String,
    /// Shape in the geom frame.
    pub shape: Shape,
    /// Geom frame in the body frame.
    pub pos: DVec3,
    /// Geom frame orientation in the body frame.
    pub quat: DQuat,
    /// MuJoCo `contype` bitmask.
    pub contype: u32,
    /// MuJoCo `conaffinity` bitmask.
    pub conaffinity: u32,
    /// MuJoCo `condim` (1, 3, 4 or 6).
    pub condim: u8,
    /// `(sliding, torsional, rolling)` friction.
    pub friction: [f64; 3],
    /// Contact `solref`.
    pub solref: SolRef,
    /// Contact `solimp`.
    pub solimp: SolImp,
    /// MuJoCo `solmix` weight.
    pub solmix: f64,
    /// MuJoCo `priority`.
    pub priority: i32,
    /// Contact margin (m).
    pub margin: f64,
    /// Contact gap (m).
    pub gap: f64,
    /// Adhesion (N, MuJoCo 4.0 `adhesion`, MuJoCo-compatible mode): each of its contacts pulls the two geoms together
    /// with this force (summed over the pair's geoms) and stays active within the gap.
    pub adhesion: f64,
    /// Mass of this geom as compiled (kg); 0 for geoms that do not contribute inertia.
    pub mass: f64,
    /// The ellipsoid fluid model's coefficients `(C_Db, C_Ds, C_Da, C_K, C_M)` when the geom has one (MJCF
    /// `fluidshape="ellipsoid"`, `fluidcoef`); `None`: the body's inertia box ([`crate::fluid`]).
    pub fluid: Option<[f64; 5]>,
    /// Velocity of the geom's surface material (MuJoCo `surfacevel`: a conveyor belt, a turntable), `(v, ω)` in the
    /// geom frame about its origin, `σ(x) = v + ω × (x − p)`: contacts see it as a sliding and spinning velocity; the
    /// geom itself does not move.
    pub surfacevel: [f64; 6],
    /// Whether ray casts see the geom (MuJoCo skips a geom whose rgba, or its material's, has alpha 0).
    pub visible: bool,
    /// The half sizes of a plane as rendered: MuJoCo's ray casts hit a plane only within them (a zero entry:
    /// unbounded along that axis). Unused for other shapes.
    pub plane_extent: [f64; 2],
}

/// Inertial properties of a body: mass and principal inertia in the inertial frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct InertialSpec {
    /// Mass (kg).
    pub mass: f64,
    /// Principal moments (kg·m²) about the centre of mass, along the inertial frame's axes.
    pub inertia: DVec3,
    /// Centre of mass in the body frame (`body_ipos`).
    pub pos: DVec3,
    /// Inertial frame orientation in the body frame (`body_iquat`).
    pub quat: DQuat,
}

/// A body of the kinematic tree.
#[derive(Debug, Clone, PartialEq)]
pub struct BodySpec {
    /// Name (may be empty; the world is `"world"`).
    pub name: String,
    /// Parent body index (the world is its own parent, index 0). Parents precede children.
    pub parent: usize,
    /// Body frame position in the parent frame.
    pub pos: DVec3,
    /// Body frame orientation in the parent frame.
    pub quat: DQuat,
    /// Inertial properties (zero mass allowed only for bodies without dofs of their own subtree, as in MuJoCo).
    pub inertial: InertialSpec,
    /// Joints, in order (empty: welded to the parent).
    pub joints: Vec<JointSpec>,
    /// Geoms.
    pub geoms: Vec<GeomSpec>,
    /// Sites: named frames `(name, pos, quat)` in the body frame.
    pub sites: Vec<(String, DVec3, DQuat)>,
    /// A mocap body (MuJoCo `mocap="true"`): a child of the world without joints whose world pose is input, each
    /// [`crate::Data`]'s `mocap_pos`/`mocap_quat` (starting at `pos`/`quat`). It has no degrees of freedom: it pushes
    /// what it touches and nothing pushes it.
    pub mocap: bool,
    /// Gravity compensation (MuJoCo `gravcomp`): a force `−gravcomp·m·g` at the centre of mass, every step (1: the
    /// body floats; 0: none).
    pub gravcomp: f64,
    /// Whether the kinematic tree rooted here may sleep (MuJoCo `sleep`; only on a tree root, a child of the world
    /// with degrees of freedom, unless [`SleepPolicy::Auto`]).
    pub sleep: SleepPolicy,
}

/// A kinematic tree's sleep policy (MuJoCo body `sleep`), when hibernation is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SleepPolicy {
    /// The simulator's rule (MuJoCo-compatible mode: an actuated tree, or one joined to others by a tendon with a
    /// spring or damper or by a tendon through three or more trees, never sleeps; otherwise it may).
    #[default]
    Auto,
    /// Never sleeps (and keeps its whole island awake).
    Never,
    /// May sleep, even actuated.
    Allowed,
    /// May sleep, and starts asleep (at every reset).
    Init,
}

/// Actuator transmission gain and bias (MuJoCo `general` semantics: `force = gain·ctrl + bias₀ + bias₁ q + bias₂ q̇`
/// with `gain = gainprm₀`, clamped to `forcerange`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActuatorSpec {
    /// Name.
    pub name: String,
    /// What it drives.
    pub transmission: Transmission,
    /// Gear ratio.
    pub gear: f64,
    /// Fixed gain `gainprm[0]`.
    pub gain: f64,
    /// Bias `(biasprm[0], biasprm[1], biasprm[2])`.
    pub bias: [f64; 3],
    /// Control clamping range, if limited.
    pub ctrlrange: Option<[f64; 2]>,
    /// Force clamping range, if limited.
    pub forcerange: Option<[f64; 2]>,
    /// Affine gain terms `(gainprm₁, gainprm₂)`: `gain = gainprm₀ + gainprm₁·length + gainprm₂·velocity` (MuJoCo
    /// `gaintype="affine"`; zero for a fixed gain).
    pub gain_affine: [f64; 2],
    /// Activation dynamics: what the force's input is (the control itself, or an activation state).
    pub dynamics: ActuatorDynamics,
    /// Clamp of the activation after each step (MuJoCo `actrange` with `actlimited`); `None`: unlimited.
    pub actrange: Option<[f64; 2]>,
    /// MuJoCo's muscle gain (`gaintype="muscle"`): replaces `gain` and `gain_affine` by
    /// [`Muscle::gain`](crate::muscle::Muscle::gain) of the actuator's length and velocity.
    pub gain_muscle: Option<crate::muscle::Muscle>,
    /// MuJoCo's muscle bias (`biastype="muscle"`): replaces `bias` by the passive force
    /// [`Muscle::bias`](crate::muscle::Muscle::bias).
    pub bias_muscle: Option<crate::muscle::Muscle>,
    /// The range of lengths the actuator can reach (MuJoCo `lengthrange`), which normalises a muscle's length;
    /// `None`: computed when the simulator compiles the model ([`LengthRangeOptions`]).
    pub lengthrange: Option<[f64; 2]>,
    /// The force takes the activation after this step (`act + h·act_dot`, MuJoCo `actearly`) rather than the
    /// current one, removing the one-step delay of activation dynamics.
    pub actearly: bool,
}

/// How actuator length ranges are computed when a file does not give them (MuJoCo `<compiler><lengthrange>`).
///
/// For each selected actuator, two runs from `qpos0` with contacts, gravity, springs, dampers, friction loss and
/// actuation off push along the actuator's moment `J` with the generalised force `±accel·J/‖M⁻¹J‖` (capped at
/// `maxforce` when positive), damping the velocity by `e^{−h/max(0.01, timeconst)}` each step `h = timestep`, for
/// `inttotal` seconds; the smallest (first run) and largest (second run) lengths over the last `interval` seconds
/// are the range. Each run must settle: its lengths over that interval must span less than `tolrange` of the range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LengthRangeOptions {
    /// Which actuators: MuJoCo `mode` (`none`, `muscle` (default), `muscleuser`, `all`).
    pub mode: LengthRangeMode,
    /// Keep a range the file gives (`lengthrange` with `min < max`).
    pub useexisting: bool,
    /// Take the range of a limited joint or tendon instead of simulating.
    pub uselimit: bool,
    /// Target acceleration (default 20).
    pub accel: f64,
    /// Force cap (0: none).
    pub maxforce: f64,
    /// Velocity damping time constant (s, default 1).
    pub timeconst: f64,
    /// Step (s, default 0.01; `≤ 0`: the model's).
    pub timestep: f64,
    /// Simulated time per run (s, default 10).
    pub inttotal: f64,
    /// The final interval over which lengths are recorded (s, default 2).
    pub interval: f64,
    /// Convergence tolerance, relative to the range (default 0.05).
    pub tolrange: f64,
}

/// Which actuators get a computed length range ([`LengthRangeOptions::mode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LengthRangeMode {
    /// None.
    None,
    /// Muscles (muscle gain or bias).
    Muscle,
    /// Muscles and user gains or biases (signorini has none: as `Muscle`).
    MuscleUser,
    /// Every actuator.
    All,
}

impl Default for LengthRangeOptions {
    fn default() -> Self {
        LengthRangeOptions {
            mode: LengthRangeMode::Muscle,
            useexisting: true,
            uselimit: false,
            accel: 20.0,
            maxforce: 0.0,
            timeconst: 1.0,
            timestep: 0.01,
            inttotal: 10.0,
            interval: 2.0,
            tolrange: 0.05,
        }
    }
}

/// An actuator's activation dynamics (MuJoCo `dyntype`): the force's input is `ctrl` (`None`) or an activation
/// `act` with `act_dot` as below.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActuatorDynamics {
    /// No state: the input is `ctrl`.
    None,
    /// `act_dot = ctrl` (MuJoCo `integrator`; an integrated-velocity servo when the bias follows `act`).
    Integrator,
    /// `act_dot = (ctrl − act)/τ`, integrated like the velocities (MuJoCo `filter`).
    Filter {
        /// Time constant τ (s), > 0.
        tau: f64,
    },
    /// `act_dot = (ctrl − act)/τ`, integrated exactly over the step: `act += act_dot·τ·(1 − e^{−h/τ})` (MuJoCo
    /// `filterexact`).
    FilterExact {
        /// Time constant τ (s), > 0.
        tau: f64,
    },
    /// MuJoCo's muscle activation ([`crate::muscle::activation_rate`]): a first-order filter of `clamp(ctrl, 0, 1)`
    /// whose time constant depends on the activation and on whether it rises or falls.
    Muscle {
        /// Activation time constant (s, default 0.01).
        tau_act: f64,
        /// Deactivation time constant (s, default 0.04).
        tau_deact: f64,
        /// Width of the smooth blend between the two (0: a hard switch).
        tausmooth: f64,
    },
}

/// What an actuator drives (MuJoCo's transmission): its length `l` and moment `∂l/∂q` (for a joint or tendon `gear`
/// times the target's). Sites are indexed in model order (body by body).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transmission {
    /// A hinge or slide joint (index in model order): `l = gear·q`.
    Joint(usize),
    /// A fixed tendon (index in [`ModelSpec::tendons`]): `l = gear·L`, the force acting along `J_tendon`.
    Tendon(usize),
    /// A site (MuJoCo `site`): the wrench `force·(R g_f, R g_τ)` at the site, `gear = (g_f, g_τ)` in the site
    /// frame `R`, length 0. With `refsite`, the site's pose relative to the reference site, `l = g_f·R_refᵀ(p −
    /// p_ref) + g_τ·log(q_ref⁻¹ q)`, the wrench in the reference frame, the dofs both sites share left out (MuJoCo's
    /// moment).
    Site {
        /// The site.
        site: usize,
        /// The reference site.
        refsite: Option<usize>,
        /// Force and torque axes (site or reference frame).
        gear: [f64; 6],
    },
    /// A slider-crank (MuJoCo `cranksite`/`slidersite`): a rod of length `rod` from the crank site to the slider,
    /// which moves along the slider site's z axis `a`: `l = gear·(a·v − √((a·v)² + rod² − v·v))`, `v = p_crank −
    /// p_slider` (`gear·a·v` where the root is imaginary).
    SliderCrank {
        /// The crank site.
        crank: usize,
        /// The slider site.
        slider: usize,
        /// Rod length (m, > 0).
        rod: f64,
    },
    /// A body's contacts (MuJoCo `body`, the adhesion actuator): the moment is minus the mean of the separating
    /// normal Jacobians `n·(J_A − J_B)` of the step's contacts that involve one of the body's geoms, so a positive
    /// force pulls the body onto what it touches; length 0, no moment without contacts; the gear is not used (as in
    /// MuJoCo). Computed after collision ([`crate::Model::body_transmissions`]).
    Body(usize),
}

/// An equality constraint (solved by the constraints layer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum EqualitySpec {
    /// Keep `anchor` (in body1's frame) coincident with the same world point on body2.
    Connect {
        /// Name.
        name: String,
        /// First body.
        body1: usize,
        /// Second body (0 = world).
        body2: usize,
        /// Anchor in body1's frame.
        anchor: DVec3,
        /// `solref`.
        solref: SolRef,
        /// `solimp`.
        solimp: SolImp,
    },
    /// Keep body2's frame fixed relative to body1 (`relpose` of body2 in body1; `None`: the pose at `qpos0`).
    Weld {
        /// Name.
        name: String,
        /// First body.
        body1: usize,
        /// Second body (0 = world).
        body2: usize,
        /// Anchor in body2's frame.
        anchor: DVec3,
        /// Relative pose `(pos, quat)` of body2 in body1, or `None` to take it from `qpos0`.
        relpose: Option<(DVec3, DQuat)>,
        /// Torque scale.
        torquescale: f64,
        /// `solref`.
        solref: SolRef,
        /// `solimp`.
        solimp: SolImp,
    },
    /// `q₁ = poly(q₂)` for two scalar joints (`joint2 = None`: `q₁ = polycoef₀`).
    Joint {
        /// Name.
        name: String,
        /// Constrained joint.
        joint1: usize,
        /// Driving joint.
        joint2: Option<usize>,
        /// Polynomial coefficients.
        polycoef: [f64; 5],
        /// `solref`.
        solref: SolRef,
        /// `solimp`.
        solimp: SolImp,
    },
    /// `L₁ − L₁⁰ = poly(L₂ − L₂⁰)` for two tendons, lengths relative to those at `qpos0` (`tendon2 = None`:
    /// `L₁ − L₁⁰ = polycoef₀`; MuJoCo's tendon equality).
    Tendon {
        /// Name.
        name: String,
        /// Constrained tendon (index in [`ModelSpec::tendons`]).
        tendon1: usize,
        /// Driving tendon.
        tendon2: Option<usize>,
        /// Polynomial coefficients.
        polycoef: [f64; 5],
        /// `solref`.
        solref: SolRef,
        /// `solimp`.
        solimp: SolImp,
    },
}

/// An obstacle a spatial tendon wraps around (MuJoCo's sphere or cylinder wrapping): the tendon leaves the straight
/// line between its neighbouring points when that line crosses the circle of `radius` about the geom's frame (a
/// sphere: the great circle in the plane of the two points; a cylinder: its cross-section, the path's height
/// interpolated), taking the shorter way round or the side of `side`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TendonWrap {
    /// The geom (model index).
    pub geom: usize,
    /// A sphere (`false`: a cylinder along the geom's z axis).
    pub sphere: bool,
    /// The radius (m).
    pub radius: f64,
    /// The side site `(body, position in the body frame)`: the tendon passes on its side (inside the circle: the
    /// tendon wraps from the inside).
    pub side: Option<(usize, DVec3)>,
}

/// A keyframe: named state and controls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyframeSpec {
    /// Name.
    pub name: String,
    /// Time.
    pub time: f64,
    /// `qpos` (empty: the model's `qpos0`).
    pub qpos: Vec<f64>,
    /// `qvel` (empty: zeros).
    pub qvel: Vec<f64>,
    /// `ctrl` (empty: zeros).
    pub ctrl: Vec<f64>,
    /// Activations `act` (`na`, in actuator order; empty: zeros).
    #[serde(default)]
    pub act: Vec<f64>,
    /// Mocap positions, `(x, y, z)` per mocap body in body order (empty: the bodies' `pos`).
    #[serde(default)]
    pub mpos: Vec<f64>,
    /// Mocap orientations, `(w, x, y, z)` per mocap body (empty: the bodies' `quat`; normalised when used).
    #[serde(default)]
    pub mquat: Vec<f64>,
}

/// An explicit contact pair (MJCF `<contact><pair>`): its parameters override the geoms' mixed ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContactPairSpec {
    /// Name.
    pub name: String,
    /// First geom, as `(body index, geom index within the body)`.
    pub geom1: (usize, usize),
    /// Second geom.
    pub geom2: (usize, usize),
    /// `condim`.
    pub condim: u8,
    /// Friction `(tangent1, tangent2, torsional, rolling1, rolling2)`.
    pub friction: [f64; 5],
    /// `solref`.
    pub solref: SolRef,
    /// `solimp`.
    pub solimp: SolImp,
    /// Margin (m).
    pub margin: f64,
    /// Gap (m).
    pub gap: f64,
    /// Adhesion (N, MuJoCo 4.0; a pair's own, 0 unless given).
    pub adhesion: f64,
}

/// A tendon: fixed (MuJoCo `<tendon><fixed>`, the length `L = Σ coefₖ qₖ` over hinge and slide joints; units follow
/// the joints) or spatial (`<spatial>` through sites: the length of the polyline through its points, metres), with a
/// spring-damper, dry friction and limits along it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TendonSpec {
    /// Name (may be empty).
    pub name: String,
    /// Fixed tendon: `(joint index in model order, coefficient)`, hinge and slide joints only. Empty for a spatial
    /// tendon.
    pub joints: Vec<(usize, f64)>,
    /// Spatial tendon (MuJoCo `<spatial>`): the path's points `(body, position in the body frame)`, at least two; `L`
    /// is the length of the path (with `wraps` and `pulleys`). Empty for a fixed tendon.
    pub sites: Vec<(usize, DVec3)>,
    /// Wrapping obstacles of a spatial tendon (MuJoCo `<geom>` in `<spatial>`): `(k, wrap)` puts `wrap` between
    /// points `k` and `k + 1`, where the tendon goes around it when it touches it.
    pub wraps: Vec<(usize, TendonWrap)>,
    /// Pulleys of a spatial tendon (MuJoCo `<pulley divisor>`): `(k, divisor)` starts a new branch at point `k` (no
    /// segment from point `k − 1`), whose lengths count `1/divisor`.
    pub pulleys: Vec<(usize, f64)>,
    /// Limits `(lower, upper)` of the length, `None` when unlimited.
    pub range: Option<[f64; 2]>,
    /// Limit margin (MuJoCo `margin`, length units), as [`JointSpec::margin`].
    pub margin: f64,
    /// Spring stiffness (N/m or N·m/rad per unit length).
    pub stiffness: f64,
    /// Viscous damping along the tendon.
    pub damping: f64,
    /// Dry friction (friction loss) along the tendon.
    pub frictionloss: f64,
    /// Spring rest length range `(lower, upper)`: no spring force in between (MuJoCo `springlength`); `None`: the
    /// length at `qpos_spring`.
    pub springlength: Option<[f64; 2]>,
    /// Limit constraint `solref`.
    pub solref_limit: SolRef,
    /// Limit constraint `solimp`.
    pub solimp_limit: SolImp,
    /// Friction-loss constraint `solref`.
    pub solref_friction: SolRef,
    /// Friction-loss constraint `solimp`.
    pub solimp_friction: SolImp,
}

impl TendonSpec {
    /// A spatial tendon through the points `sites` (`(body, position in the body frame)`), with the defaults of
    /// [`TendonSpec::fixed`].
    pub fn spatial(name: impl Into<String>, sites: Vec<(usize, DVec3)>) -> Self {
        Self { sites, ..Self::fixed(name, Vec::new()) }
    }

    /// A fixed tendon over `joints` with MuJoCo's defaults: unlimited, no spring, damper or friction.
    pub fn fixed(name: impl Into<String>, joints: Vec<(usize, f64)>) -> Self {
        Self {
            name: name.into(),
            joints,
            sites: Vec::new(),
            wraps: Vec::new(),
            pulleys: Vec::new(),
            range: None,
            margin: 0.0,
            stiffness: 0.0,
            damping: 0.0,
            frictionloss: 0.0,
            springlength: None,
            solref_limit: DEFAULT_SOLREF,
            solimp_limit: DEFAULT_SOLIMP,
            solref_friction: DEFAULT_SOLREF,
            solimp_friction: DEFAULT_SOLIMP,
        }
    }
}

/// Everything needed to compile a [`crate::Model`].
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSpec {
    /// Model name.
    pub name: String,
    /// Bodies; index 0 is the world.
    pub bodies: Vec<BodySpec>,
    /// Actuators.
    pub actuators: Vec<ActuatorSpec>,
    /// Equality constraints.
    pub equalities: Vec<EqualitySpec>,
    /// Fixed tendons.
    pub tendons: Vec<TendonSpec>,
    /// Keyframes.
    pub keyframes: Vec<KeyframeSpec>,
    /// Gravity (m/s²).
    pub gravity: DVec3,
    /// Body pairs excluded from contact (MJCF `<contact><exclude>`), as body indices.
    pub contact_excludes: Vec<(usize, usize)>,
    /// Explicit contact pairs (MJCF `<contact><pair>`).
    pub contact_pairs: Vec<ContactPairSpec>,
    /// Sensors, in the order of their values in `sensordata` ([`crate::sensor`]).
    pub sensors: Vec<crate::sensor::SensorSpec>,
    /// The fluid medium (MJCF `<option density viscosity wind>`; none by default).
    pub medium: crate::fluid::Medium,
    /// How missing actuator length ranges are computed (MJCF `<compiler><lengthrange>`).
    pub lengthrange: LengthRangeOptions,
}

impl JointSpec {
    /// A joint of `kind` with MuJoCo's defaults: anchor at the body origin, axis `+z`, unlimited, no armature,
    /// damping, stiffness, friction loss or reference, default `solref`/`solimp`.
    pub fn new(name: impl Into<String>, kind: JointKind) -> Self {
        Self {
            name: name.into(),
            kind,
            pos: DVec3::ZERO,
            axis: DVec3::Z,
            range: None,
            margin: 0.0,
            armature: 0.0,
            damping: 0.0,
            stiffness: 0.0,
            springref: 0.0,
            frictionloss: 0.0,
            reference: 0.0,
            solref_limit: DEFAULT_SOLREF,
            solimp_limit: DEFAULT_SOLIMP,
            solref_friction: DEFAULT_SOLREF,
            solimp_friction: DEFAULT_SOLIMP,
            actuatorgravcomp: false,
            actuatorfrcrange: None,
            springdamper: None,
        }
    }

    /// A free joint (6 dofs) with defaults.
    pub fn free(name: impl Into<String>) -> Self {
        Self::new(name, JointKind::Free)
    }

    /// A ball joint (3 dofs) about the body origin, with defaults.
    pub fn ball(name: impl Into<String>) -> Self {
        Self::new(name, JointKind::Ball)
    }

    /// A hinge about `axis` (body frame) through the body origin, with defaults.
    pub fn hinge(name: impl Into<String>, axis: DVec3) -> Self {
        Self { axis, ..Self::new(name, JointKind::Hinge) }
    }

    /// A slide along `axis` (body frame), with defaults.
    pub fn slide(name: impl Into<String>, axis: DVec3) -> Self {
        Self { axis, ..Self::new(name, JointKind::Slide) }
    }
}

impl GeomSpec {
    /// A geom at the body origin with MuJoCo's defaults: `contype = conaffinity = 1`, `condim = 3`, friction
    /// `(1, 0.005, 0.0001)`, default `solref`/`solimp`, `solmix = 1`, priority, margin, gap and mass 0.
    pub fn new(name: impl Into<String>, shape: Shape) -> Self {
        Self {
            name: name.into(),
            shape,
            pos: DVec3::ZERO,
            quat: DQuat::IDENTITY,
            contype: 1,
            conaffinity: 1,
            condim: 3,
            friction: [1.0, 0.005, 0.0001],
            solref: DEFAULT_SOLREF,
            solimp: DEFAULT_SOLIMP,
            solmix: 1.0,
            priority: 0,
            margin: 0.0,
            gap: 0.0,
            adhesion: 0.0,
            visible: true,
            plane_extent: [0.0; 2],
            mass: 0.0,
            fluid: None,
            surfacevel: [0.0; 6],
        }
    }
}

impl Default for InertialSpec {
    /// No mass, at the body origin.
    fn default() -> Self {
        Self { mass: 0.0, inertia: DVec3::ZERO, pos: DVec3::ZERO, quat: DQuat::IDENTITY }
    }
}

impl BodySpec {
    /// A massless body without joints (welded to `parent`), placed at `pos`/`quat` in the parent frame.
    pub fn new(name: impl Into<String>, parent: usize, pos: DVec3, quat: DQuat) -> Self {
        Self {
            name: name.into(),
            parent,
            pos,
            quat,
            inertial: InertialSpec::default(),
            joints: Vec::new(),
            geoms: Vec::new(),
            sites: Vec::new(),
            mocap: false,
            gravcomp: 0.0,
            sleep: Default::default(),
        }
    }

    /// The world body (index 0, its own parent).
    pub fn world() -> Self {
        Self::new("world", 0, DVec3::ZERO, DQuat::IDENTITY)
    }
}

impl ActuatorSpec {
    /// A direct-drive motor: `force = ctrl`, joint torque `gear·force`.
    pub fn motor(name: impl Into<String>, joint: usize, gear: f64) -> Self {
        Self::general(name, joint, gear, 1.0, [0.0; 3])
    }

    /// A position servo (MuJoCo `position`): `force = kp·ctrl − kp·q − kv·q̇` (`q`, `q̇` of the actuator, i.e.
    /// `gear` times the joint's).
    pub fn position(name: impl Into<String>, joint: usize, kp: f64, kv: f64) -> Self {
        Self::general(name, joint, 1.0, kp, [0.0, -kp, -kv])
    }

    /// A velocity servo (MuJoCo `velocity`): `force = kv·ctrl − kv·q̇`.
    pub fn velocity(name: impl Into<String>, joint: usize, kv: f64) -> Self {
        Self::general(name, joint, 1.0, kv, [0.0, 0.0, -kv])
    }

    /// A general affine actuator: `force = gain·ctrl + bias₀ + bias₁·q + bias₂·q̇`, unclamped.
    pub fn general(name: impl Into<String>, joint: usize, gear: f64, gain: f64, bias: [f64; 3]) -> Self {
        Self {
            name: name.into(),
            transmission: Transmission::Joint(joint),
            gear,
            gain,
            bias,
            ctrlrange: None,
            forcerange: None,
            gain_affine: [0.0; 2],
            dynamics: ActuatorDynamics::None,
            actrange: None,
            gain_muscle: None,
            bias_muscle: None,
            lengthrange: None,
            actearly: false,
        }
    }
}

impl Default for ModelSpec {
    /// An empty model: the world body alone, gravity `(0, 0, −9.81)`.
    fn default() -> Self {
        Self {
            name: String::new(),
            bodies: vec![BodySpec::world()],
            actuators: Vec::new(),
            equalities: Vec::new(),
            tendons: Vec::new(),
            keyframes: Vec::new(),
            gravity: DVec3::new(0.0, 0.0, -9.81),
            contact_excludes: Vec::new(),
            contact_pairs: Vec::new(),
            sensors: Vec::new(),
            medium: crate::fluid::Medium::default(),
            lengthrange: LengthRangeOptions::default(),
        }
    }
}

impl ModelSpec {
    /// Appends `body` and returns its index.
    pub fn add_body(&mut self, body: BodySpec) -> usize {
        self.bodies.push(body);
        self.bodies.len() - 1
    }
}
