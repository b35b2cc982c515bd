//! The device image of a [`Model`]: model arrays (one `f64` and one `u32` array with named offsets), per-environment
//! strides of the state, work and integer work buffers, and the WGSL `const` block that tells `shaders/sim.wgsl`
//! all of it. Built once per model; checks that the scene stays within what the GPU path implements.

use signorini_collision::dialect::ParamMixing;
use signorini_collision::narrow::box_box::CLIP_SLACK_REL;
use signorini_constraints::options::{JointLimitSides, PyramidRegularizer};
use signorini_constraints::{FrictionCone, ImpedanceCurve, ResolvedSol, TangentFrame};
use signorini_geometry::Shape;
use signorini_integrators::IntegratorKind;
use signorini_model::spec::JointKind;
use signorini_sim::{Dialect, Model};

use crate::context::Precision;
use crate::error::{GpuError, Result};

/// Sentinel of "no dof" / "no parent" in the integer arrays.
const NONE: u32 = u32::MAX;

/// Per candidate pair, in `mf`: friction, condim, tolerance, translational invweight, then the resolved solimp and
/// solref (dmin, dmax, width, midpoint, power, b, k).
pub(crate) const PAIR_STRIDE: usize = 11;
/// Pairs per dispatch of the narrow phase.
pub(crate) const PAIR_CHUNK: usize = 128;
/// Floats per joint of `MF_JNT_MID`: mass, aligned flag, centre of mass (3), principal frame (xyzw), inertia (9).
pub(crate) const MID_STRIDE: usize = 18;

/// The f32 kernels' box–box clipping slack ([`CLIP_SLACK_REL`] in f64): 0.1 mm for a 0.1 m box. f32 rounding leaves
/// yaws of 5e-5 rad between resting boxes of a pyramid after 500 steps, which put flush corners 1e-5 m (1e-4 relative)
/// beyond a side plane; 1e-3 keeps their manifolds at 4 points as in f64.
const CLIP_SLACK_REL_F32: f64 = 1e-3;

fn unsupported(what: impl Into<String>) -> GpuError {
    GpuError::Unsupported { what: what.into() }
}

/// Appends named arrays and records their offsets as WGSL constants.
#[derive(Debug, Default)]
struct Arrays {
    f: Vec<f64>,
    u: Vec<u32>,
    consts: Vec<String>,
}

impl Arrays {
    fn f(&mut self, name: &str, values: impl IntoIterator<Item = f64>) {
        self.consts.push(format!("const {name}: u32 = {}u;", self.f.len()));
        self.f.extend(values);
    }

    fn u(&mut self, name: &str, values: impl IntoIterator<Item = u32>) {
        self.consts.push(format!("const {name}: u32 = {}u;", self.u.len()));
        self.u.extend(values);
    }
}

/// Offsets of one environment's slice of a buffer, by name.
#[derive(Debug, Default)]
struct Stride {
    size: usize,
    consts: Vec<String>,
}

impl Stride {
    fn add(&mut self, name: &str, len: usize) -> usize {
        let at = self.size;
        self.consts.push(format!("const {name}: u32 = {at}u;"));
        self.size += len;
        at
    }
}

/// A compiled model's device image (see the module docs).
#[derive(Debug)]
pub(crate) struct SimLayout {
    pub mf: Vec<f64>,
    pub mu: Vec<u32>,
    /// WGSL constants (sizes, options, offsets).
    pub header: String,
    /// Reals of state per environment: qpos, qvel, warm-start qacc, time, ctrl, gravity, the pairs' warm-start
    /// normals.
    pub state_stride: usize,
    /// State offset of the pairs' warm-start normals (3 reals per pair).
    pub normal_cache_at: usize,
    pub work_stride: usize,
    pub iwork_stride: usize,
    pub nq: usize,
    pub nv: usize,
    pub nu: usize,
    pub max_contacts: usize,
    pub max_rows: usize,
    /// Work offset of the contact records (position, normal, penetration).
    pub w_con: usize,
    /// Integer-work offset of the contacts' pair indices.
    pub i_conpair: usize,
    /// Candidate geom pairs, in the order of the `pair` index of a contact.
    pub pairs: Vec<[usize; 2]>,
}

fn joint_code(kind: JointKind) -> Result<u32> {
    match kind {
        JointKind::Free => Ok(0),
        JointKind::Slide => Ok(2),
        JointKind::Hinge => Ok(3),
        JointKind::Ball => Err(unsupported("ball joints")),
    }
}

fn geom_size(shape: &Shape) -> Option<[f64; 3]> {
    match shape {
        Shape::Plane(_) => Some([0.0; 3]),
        Shape::Sphere(s) => Some([s.radius(), 0.0, 0.0]),
        Shape::Capsule(c) => Some([c.radius(), c.half_length(), 0.0]),
        Shape::Box(b) => Some(b.half_extents().to_array()),
        _ => None,
    }
}

fn sol7(sol: &ResolvedSol, what: &dyn Fn() -> String) -> Result<[f64; 7]> {
    if !(sol.power == sol.power.trunc() && (1.0..=16.0).contains(&sol.power)) {
        return Err(unsupported(format!("a non-integer solimp power ({}) on {}", sol.power, what())));
    }
    Ok([sol.dmin, sol.dmax, sol.width, sol.midpoint, sol.power, sol.b, sol.k])
}

impl SimLayout {
    /// The device image of `model`, with at most `max_contacts` contacts per environment (`None`: a bound from the
    /// candidate pairs, capped at 16 per geom).
    pub fn new(
        model: &Model,
        max_contacts: Option<usize>,
        precision: Precision,
        loop_budget: Option<u32>,
    ) -> Result<SimLayout> {
        let m = &model.multibody;
        let o = &model.options;
        let cm = model.collision();
        let copts = model.constraint_options();
        let sopts = model.solver_options();
        let geoms = cm.geoms();

        if model.dialect == Dialect::Mujoco {
            // The kernels implement the native pair routines; MuJoCo's (mjc_BoxBox, mjc_PlaneBox, …) differ in
            // general (pyramid: 438 contacts against 400), so the dialect is refused rather than half honoured.
            return Err(unsupported(
                "the MuJoCo-compatible dialect's contact routines (use the native dialect)",
            ));
        }
        if !m.equalities.is_empty() {
            return Err(unsupported("equality constraints"));
        }
        if !m.contact_pairs.is_empty() {
            return Err(unsupported("explicit <contact><pair> elements"));
        }
        if m.dof_frictionloss.iter().any(|&f| f > copts.frictionloss_threshold) {
            return Err(unsupported("dof friction loss"));
        }
        if copts.friction_cone == FrictionCone::Elliptic {
            return Err(unsupported("the elliptic friction cone (use friction_cone=pyramidal)"));
        }
        if o.noslip_iterations > 0 {
            return Err(unsupported("the no-slip post-process (noslip_iterations > 0)"));
        }
        if o.use_hibernation {
            return Err(unsupported("hibernation (use_hibernation)"));
        }
        if o.enable_ccd {
            return Err(unsupported("swept collision (enable_ccd)"));
        }
        if !(o.enable_collision && o.enable_joint_limit && o.enable_equality && o.enable_friction_loss) {
            return Err(unsupported(
                "constraint switches (enable_collision, enable_joint_limit, enable_equality, enable_friction_loss \
                 = false)",
            ));
        }
        if !o.box_box_detection {
            return Err(unsupported("box_box_detection = false (boxes as hulls)"));
        }
        if !m.tendons.is_empty() {
            return Err(unsupported("tendons (and tendon actuators)"));
        }
        if m.has_contact_forces {
            return Err(unsupported("adhesion (geom adhesion and adhesion actuators)"));
        }
        let muscle = m.actuator_gain_muscle.iter().chain(&m.actuator_bias_muscle).any(Option::is_some);
        if m.na > 0 || muscle || m.actuator_gain_affine.iter().any(|g| *g != [0.0; 2]) {
            return Err(unsupported("actuator activation dynamics, affine gains or muscles"));
        }
        if m.jnt_actfrcrange.iter().any(Option::is_some) {
            return Err(unsupported("joint actuator force limits (actuatorfrcrange)"));
        }
        if m.has_gravcomp {
            return Err(unsupported("gravity compensation (gravcomp)"));
        }
        if m.has_surfacevel {
            return Err(unsupported("surface velocities (surfacevel)"));
        }
        if m.medium.is_active() {
            return Err(unsupported("fluid forces (density, viscosity)"));
        }
        if !m.sensors.is_empty() {
            return Err(unsupported("sensors (sensordata is computed by the CPU path only)"));
        }
        if m.nmocap > 0 {
            return Err(unsupported("mocap bodies (their poses are inputs of the CPU path only)"));
        }
        if o.integrator == IntegratorKind::Implicit {
            return Err(unsupported("the implicit integrator (the GPU path implements the symmetric ones)"));
        }
        if o.integrator == IntegratorKind::Rk4 {
            return Err(unsupported(
                "the rk4 integrator (the GPU path implements the one-evaluation integrators)",
            ));
        }
        let velocity_gains =
            m.dof_damping.iter().any(|&d| d != 0.0) || m.actuator_bias.iter().any(|b| b[2] != 0.0);
        if o.integrator != IntegratorKind::ApproximateImplicitFast && velocity_gains {
            return Err(unsupported(format!(
                "dof damping or actuator velocity gains with the {} integrator (the GPU path implements \
                 approximate_implicitfast)",
                o.integrator
            )));
        }
        let jnt_type: Vec<u32> = m.jnt_type.iter().map(|&k| joint_code(k)).collect::<Result<_>>()?;

        // Geoms.
        let mut size = Vec::with_capacity(3 * m.ngeom);
        let mut gtype = Vec::with_capacity(m.ngeom);
        for g in 0..m.ngeom {
            let shape = &geoms.shape[g];
            let Some(s) = geom_size(shape) else {
                return Err(unsupported(format!("{:?} geoms (geom '{}')", shape.kind(), geoms.name[g])));
            };
            if geoms.margin[g] != 0.0 || geoms.gap[g] != 0.0 {
                return Err(unsupported(format!("a geom margin or gap (geom '{}')", geoms.name[g])));
            }
            size.extend(s);
            gtype.push(shape.kind() as u32);
        }

        // Candidate pairs with their mixed and resolved contact parameters.
        let mixing = ParamMixing::Genesis;
        let tolerance = signorini_collision::query::ContactRequest::default().tolerance;
        let mut pairs = Vec::new();
        let mut pair_f = Vec::new();
        let mut bound = 0usize;
        for ga in 0..m.ngeom {
            for gb in ga + 1..m.ngeom {
                let filtered = cm.filter_reason(ga, gb).map_err(|e| GpuError::Invalid(e.to_string()))?;
                if filtered.is_some() {
                    continue;
                }
                use signorini_geometry::ShapeKind as K;
                let (ka, kb) = (geoms.shape[ga].kind(), geoms.shape[gb].kind());
                let max = match (ka, kb) {
                    (K::Plane, K::Plane) => continue,
                    (K::Sphere, _) | (_, K::Sphere) => 1,
                    (K::Plane, K::Capsule) | (K::Capsule, K::Plane) => 2,
                    (K::Plane, K::Box) | (K::Box, K::Plane) => cm.options().contacts_per_convex_pair.max(1),
                    (K::Box, K::Box) => 8,
                    (K::Capsule, K::Capsule | K::Box) | (K::Box, K::Capsule) => {
                        cm.options().contacts_per_convex_pair.max(1)
                    }
                    _ => {
                        return Err(unsupported(format!(
                            "{ka:?}–{kb:?} contacts (geoms '{}' and '{}')",
                            geoms.name[ga], geoms.name[gb]
                        )));
                    }
                };
                bound += max;
                let mixed = mixing.mix(&geoms.params(ga), &geoms.params(gb));
                let dim = copts.contact_condim(mixed.condim);
                if dim != 1 && dim != 3 {
                    return Err(unsupported(format!(
                        "contact dimension {dim} (geoms '{}' and '{}'; the GPU path has condim 1 and 3)",
                        geoms.name[ga], geoms.name[gb]
                    )));
                }
                let name = || format!("the contact of geoms '{}' and '{}'", geoms.name[ga], geoms.name[gb]);
                let sol = ResolvedSol::resolve(copts, &name, mixed.solref, mixed.solimp)
                    .map_err(|e| GpuError::Invalid(e.to_string()))?;
                let other = if ka == K::Plane { gb } else { ga };
                // Spec §A.9's tolerance: `tolerance · min(size)` over the non-plane geoms (half box diagonals).
                let size = |g: usize| 0.5 * geoms.shape[g].local_aabb().diagonal_length();
                let tol = tolerance
                    * if ka == K::Plane || kb == K::Plane { size(other) } else { size(ga).min(size(gb)) };
                let (ba, bb) = (geoms.body[ga], geoms.body[gb]);
                let tran = m.body_invweight0[ba][0] + m.body_invweight0[bb][0];
                pair_f.extend([mixed.friction[0], dim as f64, tol, tran]);
                pair_f.extend(sol7(&sol, &name)?);
                // A and B in the CPU's narrow-phase order (by kind, then index), which fixes each contact's normal
                // and the order MPR runs in.
                pairs.push(if (ka as u8, ga) <= (kb as u8, gb) { [ga, gb] } else { [gb, ga] });
            }
        }
        // The pairs in the CPU's contact order (link pair, then geoms), so that a link pair's contacts are contiguous
        // for pruning (shaders/prune.wgsl) and the rows come in the CPU's order.
        let key = |&[ga, gb]: &[usize; 2]| {
            let (ba, bb) = (geoms.body[ga], geoms.body[gb]);
            (ba.min(bb), ba.max(bb), ga, gb)
        };
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        order.sort_by_key(|&i| key(&pairs[i]));
        let pairs: Vec<[usize; 2]> = order.iter().map(|&i| pairs[i]).collect();
        let pair_f: Vec<f64> = order
            .iter()
            .flat_map(|&i| pair_f[i * PAIR_STRIDE..(i + 1) * PAIR_STRIDE].iter().copied())
            .collect();
        let max_contacts = max_contacts.unwrap_or_else(|| bound.min(16 * m.ngeom.max(4))).max(1);

        // Joint limits and their resolved sol parameters.
        let mut jnt_limited = Vec::with_capacity(m.njnt);
        let mut jnt_range = Vec::with_capacity(2 * m.njnt);
        let mut jnt_sol = Vec::with_capacity(7 * m.njnt);
        let mut nlimit_rows = 0;
        for j in 0..m.njnt {
            let limited = copts.enable_joint_limit
                && matches!(m.jnt_type[j], JointKind::Hinge | JointKind::Slide)
                && m.jnt_range[j].is_some();
            let [lo, hi] = m.jnt_range[j].unwrap_or([0.0, 0.0]);
            jnt_limited.push(u32::from(limited));
            jnt_range.extend([lo, hi]);
            let name = || format!("the limit of joint '{}'", m.jnt_name[j]);
            let sol = ResolvedSol::resolve(copts, &name, m.jnt_solref[j], m.jnt_solimp[j])
                .map_err(|e| GpuError::Invalid(e.to_string()))?;
            jnt_sol.extend(if limited { sol7(&sol, &name)? } else { [0.0; 7] });
            nlimit_rows += if limited { 2 } else { 0 };
        }

        // Longest dof chain of a body: the row width bound.
        let chain = |b: usize| {
            let mut n = 0;
            let mut d = m.body_lastdof[b];
            while let Some(i) = d {
                n += 1;
                d = m.dof_parentid[i];
            }
            n
        };
        let max_chain = (0..m.nbody).map(chain).max().unwrap_or(0);
        // Row entries are stored in zero-padded groups of 4 (the kernel reads four per loop pass).
        let k = (2 * max_chain).max(1_usize).next_multiple_of(4);
        let rows_per_contact = if pair_f.chunks(PAIR_STRIDE).any(|p| p[1] == 3.0) { 4 } else { 1 };
        let max_rows = (max_contacts * rows_per_contact + nlimit_rows).max(1);

        let mut a = Arrays::default();
        let opt = |v: Option<usize>| v.map_or(NONE, |x| x as u32);
        let us = |v: &[usize]| v.iter().map(|&x| x as u32).collect::<Vec<_>>();
        a.u("MU_BODY_PARENT", us(&m.body_parent));
        a.u("MU_BODY_ROOT", us(&m.body_rootid));
        a.u("MU_BODY_JNTADR", us(&m.body_jntadr));
        a.u("MU_BODY_JNTNUM", us(&m.body_jntnum));
        a.u("MU_BODY_DOFADR", us(&m.body_dofadr));
        a.u("MU_BODY_DOFNUM", us(&m.body_dofnum));
        a.u("MU_BODY_LASTDOF", m.body_lastdof.iter().map(|&d| opt(d)).collect::<Vec<_>>());
        // The free dofs of each body's standalone free body (Genesis's anchored bodies), for the contact rows at the
        // centre of mass (`ConstraintOptions::contact_rows_at_centre_of_mass`).
        a.u("MU_BODY_FREEDOF", (0..m.nbody).map(|b| opt(m.standalone_free_dofs(b))).collect::<Vec<_>>());
        a.u("MU_JNT_TYPE", jnt_type);
        a.u("MU_JNT_QPOSADR", us(&m.jnt_qposadr));
        a.u("MU_JNT_DOFADR", us(&m.jnt_dofadr));
        a.u("MU_JNT_LIMITED", jnt_limited);
        a.u("MU_DOF_BODY", us(&m.dof_bodyid));
        a.u("MU_DOF_JNT", us(&m.dof_jntid));
        a.u("MU_DOF_PARENT", m.dof_parentid.iter().map(|&d| opt(d)).collect::<Vec<_>>());
        a.u("MU_DOF_MADR", us(&m.dof_madr));
        a.u("MU_DOF_ROWNNZ", us(&m.dof_rownnz));
        a.u("MU_DOF_COLIND", us(&m.dof_colind));
        a.u("MU_DOF_SIMPLE", m.dof_simple.iter().map(|&s| u32::from(s)).collect::<Vec<_>>());
        a.u("MU_GEOM_BODY", us(&geoms.body));
        // The implicit midpoint rule of unconstrained free bodies (native implicitfast and approximate_implicitfast,
        // spec §D.5): per joint, whether it may apply, and the body's mass properties, constant in the body frame
        // (mass, aligned, ipos, iquat xyzw, inertia by columns).
        let midpoint =
            matches!(o.integrator, IntegratorKind::ImplicitFast | IntegratorKind::ApproximateImplicitFast);
        let mut kinematics = signorini_model::Data::new(m);
        m.forward_kinematics(&mut kinematics);
        let mut jnt_midpoint = vec![0u32; m.njnt];
        let mut jnt_mid = vec![0.0; MID_STRIDE * m.njnt];
        for j in 0..m.njnt {
            let Some((body, _)) = signorini_integrators::midpoint_candidate(m, j).filter(|_| midpoint) else {
                continue;
            };
            let b = signorini_integrators::free_body_inertia(m, &kinematics, body);
            jnt_midpoint[j] = 1;
            let q = b.iquat;
            let i = b.inertia.to_cols_array();
            let values =
                [b.mass, f64::from(u8::from(b.aligned())), b.ipos.x, b.ipos.y, b.ipos.z, q.x, q.y, q.z, q.w];
            jnt_mid[MID_STRIDE * j..MID_STRIDE * j + 9].copy_from_slice(&values);
            jnt_mid[MID_STRIDE * j + 9..MID_STRIDE * (j + 1)].copy_from_slice(&i);
        }
        let midpoint_any = jnt_midpoint.contains(&1);
        a.u("MU_JNT_MIDPOINT", jnt_midpoint);
        a.u("MU_GEOM_TYPE", gtype);
        let act_jnt = m
            .actuator_transmission
            .iter()
            .map(|t| match *t {
                signorini_model::Transmission::Joint(j) => Ok(j),
                signorini_model::Transmission::Tendon(_) => Err(unsupported("tendon actuators")),
                signorini_model::Transmission::Site { .. }
                | signorini_model::Transmission::SliderCrank { .. } => {
                    Err(unsupported("site and slider-crank transmissions"))
                }
                signorini_model::Transmission::Body(_) => Err(unsupported("body transmissions (adhesion)")),
            })
            .collect::<Result<Vec<usize>>>()?;
        a.u("MU_ACT_JNT", us(&act_jnt));
        a.u(
            "MU_ACT_CTRLLIMITED",
            m.actuator_ctrlrange.iter().map(|r| u32::from(r.is_some())).collect::<Vec<_>>(),
        );
        a.u(
            "MU_ACT_FORCELIMITED",
            m.actuator_forcerange.iter().map(|r| u32::from(r.is_some())).collect::<Vec<_>>(),
        );
        a.u("MU_PAIR", pairs.iter().flat_map(|p| [p[0] as u32, p[1] as u32]).collect::<Vec<_>>());
        let v3 = |v: &[glam::DVec3]| v.iter().flat_map(|x| x.to_array()).collect::<Vec<_>>();
        let q4 = |v: &[glam::DQuat]| v.iter().flat_map(|q| [q.x, q.y, q.z, q.w]).collect::<Vec<_>>();
        a.f("MF_BODY_POS", v3(&m.body_pos));
        a.f("MF_BODY_QUAT", q4(&m.body_quat));
        a.f("MF_BODY_IPOS", v3(&m.body_ipos));
        a.f("MF_BODY_IQUAT", q4(&m.body_iquat));
        a.f("MF_BODY_MASS", m.body_mass.clone());
        a.f("MF_BODY_INERTIA", v3(&m.body_inertia));
        a.f("MF_BODY_SUBTREEMASS", m.body_subtreemass.clone());
        a.f("MF_JNT_POS", v3(&m.jnt_pos));
        a.f("MF_JNT_AXIS", v3(&m.jnt_axis));
        a.f("MF_JNT_RANGE", jnt_range);
        a.f("MF_JNT_STIFFNESS", m.jnt_stiffness.clone());
        a.f("MF_JNT_SOL", jnt_sol);
        a.f("MF_QPOS0", m.qpos0.clone());
        a.f("MF_QPOS_SPRING", m.qpos_spring.clone());
        a.f("MF_DOF_ARMATURE", m.dof_armature.clone());
        a.f("MF_DOF_DAMPING", m.dof_damping.clone());
        a.f("MF_DOF_M0", m.dof_m0.clone());
        a.f("MF_DOF_INVWEIGHT0", m.dof_invweight0.clone());
        a.f(
            "MF_GEOM_POS",
            geoms.local_pose.iter().flat_map(|p| p.translation.to_array()).collect::<Vec<_>>(),
        );
        a.f(
            "MF_GEOM_QUAT",
            geoms
                .local_pose
                .iter()
                .flat_map(|p| {
                    let q = p.rotation;
                    [q.x, q.y, q.z, q.w]
                })
                .collect::<Vec<_>>(),
        );
        a.f("MF_GEOM_FRAME", cm.geom_frames().iter().flat_map(|q| [q.x, q.y, q.z, q.w]).collect::<Vec<_>>());
        a.f("MF_GEOM_SIZE", size);
        a.f(
            "MF_GEOM_RBOUND",
            m.geom_rbound.iter().map(|&r| if r.is_finite() { r } else { 0.0 }).collect::<Vec<_>>(),
        );
        a.f("MF_PAIR", pair_f);
        a.f("MF_JNT_MID", jnt_mid);
        a.f("MF_ACT_GEAR", m.actuator_gear.clone());
        a.f("MF_ACT_GAIN", m.actuator_gain.clone());
        a.f("MF_ACT_BIAS", m.actuator_bias.iter().flatten().copied().collect::<Vec<_>>());
        a.f(
            "MF_ACT_CTRLRANGE",
            m.actuator_ctrlrange.iter().flat_map(|r| r.unwrap_or([0.0; 2])).collect::<Vec<_>>(),
        );
        a.f(
            "MF_ACT_FORCERANGE",
            m.actuator_forcerange.iter().flat_map(|r| r.unwrap_or([0.0; 2])).collect::<Vec<_>>(),
        );

        let (nq, nv, nbody, njnt, ngeom) = (m.nq, m.nv, m.nbody, m.njnt, m.ngeom);
        let mut s = Stride::default();
        s.add("S_QPOS", nq);
        s.add("S_QVEL", nv);
        s.add("S_QACCW", nv);
        s.add("S_TIME", 1);
        s.add("S_CTRL", m.nu);
        s.add("S_GRAVITY", 3);
        // Each pair's contact normal of the previous step, MPR's warm start (zero: none).
        let normal_cache_at = s.add("S_NCACHE", 3 * pairs.len());
        let mut w = Stride::default();
        for (name, len) in [
            ("W_XPOS", 3 * nbody),
            ("W_XQUAT", 4 * nbody),
            ("W_XMAT", 9 * nbody),
            ("W_XIPOS", 3 * nbody),
            ("W_XIMAT", 9 * nbody),
            ("W_SCOM", 3 * nbody),
            ("W_XANCHOR", 3 * njnt),
            ("W_CDOF", 6 * nv),
            ("W_CDOFDOT", 6 * nv),
            ("W_CINERT", 13 * nbody),
            ("W_CRB", 13 * nbody),
            ("W_CVEL", 6 * nbody),
            ("W_CACC", 6 * nbody),
            ("W_CFRC", 6 * nbody),
            ("W_QM", m.nm),
            ("W_QLD", m.nm),
            ("W_QLDI", nv),
            ("W_SMOOTH", nv),
            ("W_A0", nv),
            ("W_GXPOS", 3 * ngeom),
            ("W_GXMAT", 9 * ngeom),
            ("W_GAABB", 3 * ngeom),
            ("W_QACC", nv),
            ("W_MA", nv),
            ("W_GRAD", nv),
            ("W_MGRAD", nv),
            ("W_SEARCH", nv),
            ("W_MS", nv),
            ("W_TMP", nv),
            ("W_MID", nv),
            ("W_NEXT", nv),
            ("W_TOUCH", nbody),
            ("W_COST", 1),
            ("W_AREF", max_rows),
            ("W_D", max_rows),
            ("W_JA", max_rows),
            ("W_JP", max_rows),
            ("W_JV", max_rows * k),
        ] {
            w.add(name, len);
        }
        let w_con = w.add("W_CON", 7 * max_contacts);
        // Pruning's scratch (shaders/prune.wgsl): projected points and hull losses; per contact its patch head and
        // whether it is kept; a patch's contacts, their lexicographic order, the hull (one more while it is built)
        // and the vertices a pass removes.
        w.add("W_PRUNE_XY", 2 * max_contacts);
        w.add("W_PRUNE_LOSS", max_contacts + 1);
        let mut iw = Stride::default();
        let i_conpair = iw.add("I_CONPAIR", max_contacts);
        for (name, len) in [
            ("I_PRUNE_PATCH", max_contacts),
            ("I_PRUNE_KEEP", max_contacts),
            ("I_PRUNE_MEMBER", max_contacts),
            ("I_PRUNE_LEX", max_contacts),
            ("I_PRUNE_HULL", max_contacts + 1),
            ("I_PRUNE_GONE", max_contacts + 1),
        ] {
            iw.add(name, len);
        }
        iw.add("I_JN", max_rows);
        iw.add("I_JI", max_rows * k);

        let f = |x: f64| match precision {
            Precision::F32 => format!("{:?}", x as f32),
            Precision::F64 => format!("{x:?}"),
        };
        let b = |x: bool| if x { "true" } else { "false" };
        let eps_rel = match precision {
            Precision::F32 => 1e-6,
            Precision::F64 => 1e-12,
        };
        let mut header = vec![
            format!("const NQ: u32 = {nq}u;"),
            format!("const NV: u32 = {nv}u;"),
            format!("const NBODY: u32 = {nbody}u;"),
            format!("const NJNT: u32 = {njnt}u;"),
            format!("const NU: u32 = {}u;", m.nu),
            format!("const NGEOM: u32 = {ngeom}u;"),
            format!("const NM: u32 = {}u;", m.nm),
            format!("const NPAIR: u32 = {}u;", pairs.len()),
            format!("const MAXCON: u32 = {max_contacts}u;"),
            format!("const MAXROW: u32 = {max_rows}u;"),
            format!("const K: u32 = {k}u;"),
            format!("const PAIR_STRIDE: u32 = {PAIR_STRIDE}u;"),
            format!("const PAIR_CHUNK: u32 = {PAIR_CHUNK}u;"),
            format!("const MID_STRIDE: u32 = {MID_STRIDE}u;"),
            format!("const MIDPOINT_ANY: bool = {};", b(midpoint_any)),
            format!(
                "const MIDPOINT_TOLERANCE: real = {};",
                f(if precision == Precision::F32 { 1e-6 } else { 1e-13 })
            ),
            format!(
                "const MAX_PLANE_BOX: u32 = {}u;",
                if o.enable_multi_contact { cm.options().contacts_per_convex_pair.max(1) } else { 1 }
            ),
            format!("const H: real = {};", f(o.h())),
            format!("const SUBSTEPS: u32 = {}u;", o.substeps),
            format!("const ITERATIONS: u32 = {}u;", sopts.iterations),
            format!("const TOLERANCE: real = {};", f(sopts.tolerance)),
            format!("const LS_ITERATIONS: u32 = {}u;", sopts.ls_iterations.max(1)),
            format!("const LS_TOLERANCE: real = {};", f(sopts.ls_tolerance.max(eps_rel))),
            format!("const MEANINERTIA: real = {};", f(m.meaninertia)),
            format!("const LOOP_BUDGET: u32 = {}u;", loop_budget.unwrap_or(u32::MAX)),
            format!("const IMPRATIO: real = {};", f(copts.impratio())),
            format!("const EPS_REL: real = {};", f(eps_rel)),
            format!(
                "const CLIP_SLACK_REL: real = {};",
                f(if precision == Precision::F32 { CLIP_SLACK_REL_F32 } else { CLIP_SLACK_REL })
            ),
            format!(
                "const MC_PERTURBATION: real = {};",
                f(signorini_collision::multi_contact::MC_PERTURBATION)
            ),
            format!("const MC_TOLERANCE: real = {};", f(signorini_collision::multi_contact::MC_TOLERANCE)),
            // Genesis's `gs.EPS` and `CCD_EPS` of the precision (f32: its machine epsilon and 1e-9).
            format!(
                "const GENESIS_EPS: real = {};",
                f(if precision == Precision::F32 {
                    f64::from(f32::EPSILON)
                } else {
                    signorini_collision::multi_contact::GENESIS_EPS
                })
            ),
            format!(
                "const GENESIS_EPS_SQRT: real = {};",
                f(if precision == Precision::F32 {
                    f64::from(f32::EPSILON).sqrt()
                } else {
                    signorini_collision::multi_contact::GENESIS_EPS.sqrt()
                })
            ),
            format!(
                "const CCD_EPS: real = {};",
                f(if precision == Precision::F32 { 1e-9 } else { signorini_collision::narrow::mpr::CCD_EPS })
            ),
            format!(
                "const MPR_RELATIVE_TOLERANCE: real = {};",
                f(signorini_collision::dialect::native::MPR_RELATIVE_TOLERANCE)
            ),
            format!("const PRUNE_TOLERANCE: real = {};", f(cm.prune_tolerance())),
            format!(
                "const DEEP_PENETRATION_RATIO: real = {};",
                f(signorini_collision::prune::DEEP_PENETRATION_RATIO)
            ),
            format!("const DEPTH_NOISE: real = {};", f(signorini_collision::multi_contact::DEPTH_NOISE)),
            format!("const GJK_TOLERANCE: real = {};", f(signorini_collision::multi_contact::GJK_TOLERANCE)),
            format!("const MULTI_CONTACT: bool = {};", b(o.enable_multi_contact)),
            format!("const MAX_CONVEX: u32 = {}u;", cm.options().contacts_per_convex_pair.max(1)),
            format!(
                "const IMP_FLAT: bool = {};",
                b(copts.impedance_curve == ImpedanceCurve::FlatAtZeroWidth)
            ),
            format!("const TANGENT_MAKEFRAME: bool = {};", b(copts.tangent_frame == TangentFrame::MakeFrame)),
            format!("const ROWS_AT_COM: bool = {};", b(copts.contact_rows_at_centre_of_mass)),
            format!(
                "const PYR_BOTH_SCALED: bool = {};",
                b(copts.pyramid_regularizer == PyramidRegularizer::BothFactorsScaled)
            ),
            format!("const ENABLE_LIMITS: bool = {};", b(nlimit_rows > 0)),
            format!(
                "const LIMITS_MOST_VIOLATED: bool = {};",
                b(copts.joint_limit_sides == JointLimitSides::MostViolated)
            ),
            format!("const S_STRIDE: u32 = {}u;", s.size),
            format!("const W_STRIDE: u32 = {}u;", w.size),
            format!("const I_STRIDE: u32 = {}u;", iw.size),
        ];
        header.extend(a.consts);
        header.extend(s.consts);
        header.extend(w.consts);
        header.extend(iw.consts);
        Ok(SimLayout {
            mf: a.f,
            mu: a.u,
            header: header.join("\n"),
            state_stride: s.size,
            normal_cache_at,
            work_stride: w.size,
            iwork_stride: iw.size,
            nq,
            nv,
            nu: m.nu,
            max_contacts,
            max_rows,
            w_con,
            i_conpair,
            pairs,
        })
    }
}
