//! [`Model`]: what a simulated scene *is* — the compiled multibody model (tree, inertias, joints, actuators,
//! geoms), the collision model (geoms with their contact parameters, pair filters), the validated [`Options`] and
//! every stage's configuration, fixed once built. It is immutable, `Send + Sync`, and meant to be shared by `Arc`:
//! a batch of environments is one `Model` and many [`Data`](crate::Data).

use signorini_collision::world::{CollisionData, CollisionModel};
use signorini_constraints::{ConstraintAssembler, ConstraintOptions};
use signorini_geometry::Pose;
use signorini_integrators::Integrator;
use signorini_model::spec::{EqualitySpec, JointKind, ModelSpec, SleepPolicy, Transmission};
use signorini_solver::noslip::NoSlipOptions;
use signorini_solver::{ConstraintSolver, SolverOptions, island_solver_for, solver_for};

use crate::dialect::{Dialect, DialectStages};
use crate::error::{Result, SimError};
use crate::options::Options;

/// Genesis's neutral-pose pair filter (spec §A.2 rule 7): unless `enable_neutral_collision`, the geom pairs of one
/// tree that penetrate at `qpos0` never collide. (Rule 5, welds, depends on each environment's active equalities:
/// see `step`.)
fn neutral_filter(multibody: &mut signorini_model::Model) -> Result<()> {
    let mut d = signorini_model::Data::new(multibody);
    multibody.forward_kinematics(&mut d);
    let poses: Vec<Pose> =
        d.xpos.iter().zip(&d.xquat).map(|(&translation, &rotation)| Pose { translation, rotation }).collect();
    let mut cd = CollisionData::new(&multibody.collision);
    multibody.collision.apply_neutral_filter(&mut cd, &poses)?;
    Ok(())
}

/// The body pairs of the weld equalities, in equality order (`None` for other kinds).
fn weld_bodies(multibody: &signorini_model::Model) -> Vec<Option<(usize, usize)>> {
    multibody
        .equalities
        .iter()
        .map(|e| match e {
            EqualitySpec::Weld { body1, body2, .. } => Some((*body1, *body2)),
            _ => None,
        })
        .collect()
}

/// A compiled scene (see the module docs).
#[derive(Debug)]
pub struct Model {
    /// The kinematic tree and its dynamics (spec §D), with its geoms' collision model (`multibody.collision`: one
    /// collision body per body, one geom per geom, same indices) set to the dialect's collision options.
    pub multibody: signorini_model::Model,
    /// The options in force (validated).
    pub options: Options,
    /// The dialect every stage was configured for.
    pub dialect: Dialect,
    /// Whether each equality (model order) starts active in a new [`Data`](crate::Data) (MJCF `active`, MuJoCo's
    /// `eq_active0`); all `true` unless set before the model is shared.
    pub equality_active0: Vec<bool>,
    pub(crate) constraint_options: ConstraintOptions,
    pub(crate) assembler: ConstraintAssembler,
    pub(crate) solver: Box<dyn ConstraintSolver>,
    pub(crate) solver_options: SolverOptions,
    pub(crate) noslip_options: Option<NoSlipOptions>,
    pub(crate) integrator: Box<dyn Integrator>,
    /// Hibernation's rest threshold (m/s), when hibernation is on.
    pub(crate) hibernation_thresh_vel: Option<f64>,
    /// Per kinematic tree, its resolved sleep policy (`Never`, `Allowed` or `Init`; [`tree_sleep_policies`]).
    pub(crate) tree_sleep: Vec<SleepPolicy>,
    /// Per equality, the bodies of a weld whose active link stops their collisions (Genesis's rule 5; empty in
    /// MuJoCo's dialect, which has no such rule).
    pub(crate) weld_bodies: Vec<Option<(usize, usize)>>,
}

impl Model {
    /// Validates `options`, compiles `spec` and configures every stage for the options' dialect (MuJoCo's shared
    /// frames included: [`DialectStages::frame_tolerance`]).
    pub fn new(mut spec: ModelSpec, options: Options) -> Result<Model> {
        options.validate()?;
        spec.share_frames(Dialect::of(&options).frame_tolerance());
        Model::configure(signorini_model::Model::compile(spec)?, options)
    }

    /// [`Model::new`] for an already compiled multibody model. Its frames stay as compiled: MuJoCo's shared frames
    /// are applied to a spec, before compiling ([`Model::new`], [`ModelSpec::share_frames`]).
    pub fn from_compiled(multibody: signorini_model::Model, options: Options) -> Result<Model> {
        options.validate()?;
        Model::configure(multibody, options)
    }

    /// Configures every stage of `multibody` for validated `options`.
    fn configure(mut multibody: signorini_model::Model, options: Options) -> Result<Model> {
        multibody.timestep = options.h();
        crate::lengthrange::compute(&mut multibody, &options)?;
        // MuJoCo's spring, damper, actuation and clampctrl flags.
        if !options.enable_springs {
            multibody.jnt_stiffness.fill(0.0);
            multibody.tendons.stiffness.fill(0.0);
        }
        if !options.enable_dampers {
            multibody.dof_damping.fill(0.0);
            multibody.tendons.damping.fill(0.0);
        }
        if !options.enable_springs && !options.enable_dampers {
            // MuJoCo then skips every passive force: gravity compensation, fluid forces, the adhesion pull.
            multibody.body_gravcomp.fill(0.0);
            multibody.has_gravcomp = false;
            multibody.medium = signorini_model::fluid::Medium::default();
            multibody.adhesion_pull = false;
        }
        multibody.actuation_enabled = options.enable_actuation;
        multibody.clamp_ctrl = options.clamp_ctrl;
        let dialect = Dialect::of(&options);
        let integrator = options.integrator.build_with(dialect.integrator_settings(&options));
        let diagonal = !integrator.treats_coupled_derivatives();
        let tendon_gain = (0..multibody.nu).any(|u| {
            !matches!(multibody.actuator_transmission[u], Transmission::Joint(_))
                && (multibody.actuator_bias[u][2] != 0.0 || multibody.actuator_gain_affine[u][1] != 0.0)
        });
        if diagonal && tendon_gain {
            return Err(SimError::InvalidOption {
                name: "integrator".into(),
                what: format!(
                    "{}: the velocity gain of an actuator on a tendon, site or slider-crank couples the dofs of its \
                     transmission, which this integrator's diagonal implicit terms cannot hold; use implicit, euler \
                     or rk4, or implicitfast in MuJoCo-compatible mode",
                    options.integrator
                ),
            });
        }
        if diagonal && multibody.tendons.damping.iter().any(|&b| b > 0.0) {
            return Err(SimError::InvalidOption {
                name: "integrator".into(),
                what: format!(
                    "{}: tendon damping couples the dofs of a tendon, which this integrator's diagonal implicit \
                     terms cannot hold; use implicit, euler or rk4, or implicitfast in MuJoCo-compatible mode",
                    options.integrator
                ),
            });
        }
        multibody.collision.set_options(dialect.collision_options(&options))?;
        if dialect.fills_degenerate_invweights() {
            multibody.fill_degenerate_invweights();
        }
        multibody.quaternion_step = dialect.quaternion_step();
        if dialect.structural_filters() {
            neutral_filter(&mut multibody)?;
        }
        let weld_bodies = if dialect.structural_filters() { weld_bodies(&multibody) } else { Vec::new() };
        let constraint_options = dialect.constraint_options(&options);
        let assembler = ConstraintAssembler::new(&multibody, constraint_options)?;
        let solver_options = dialect.solver_options(&options);
        let noslip_options = (options.noslip_iterations > 0).then_some(NoSlipOptions {
            iterations: options.noslip_iterations,
            tolerance: options.noslip_tolerance,
            islands: options.enable_islands,
            mujoco_arithmetic: solver_options.mujoco_arithmetic,
        });
        let hibernation_thresh_vel = options
            .use_hibernation
            .then(|| options.hibernation_thresh_vel.unwrap_or(dialect.default_hibernation_thresh_vel()));
        Ok(Model {
            constraint_options,
            assembler,
            solver: {
                let kind = dialect.solver_kind(&options);
                if options.enable_islands { island_solver_for(kind) } else { solver_for(kind) }
            },
            solver_options,
            noslip_options,
            integrator,
            hibernation_thresh_vel,
            tree_sleep: tree_sleep_policies(&multibody, dialect.model_sleep_policy()),
            weld_bodies,
            dialect,
            equality_active0: vec![true; multibody.equalities.len()],
            options,
            multibody,
        })
    }

    /// The collision model (the multibody model's geoms with the dialect's collision options).
    pub fn collision(&self) -> &CollisionModel {
        &self.multibody.collision
    }

    /// The constraint stage's options, resolved for the dialect (what the assembler uses).
    pub fn constraint_options(&self) -> &ConstraintOptions {
        &self.constraint_options
    }

    /// The solver's options, resolved for the dialect (iterations, tolerances, kind).
    pub fn solver_options(&self) -> &SolverOptions {
        &self.solver_options
    }

    /// Indices of the free joints, in joint order (the `qpos_free` layout of `signorini run --dump`).
    pub fn free_joints(&self) -> Vec<usize> {
        let m = &self.multibody;
        (0..m.njnt).filter(|&j| m.jnt_type[j] == JointKind::Free).collect()
    }
}

/// Each tree's sleep policy: the root body's written `never`, `allowed` or `init`, else (`Auto`) MuJoCo's rule when
/// `model_rule` (an actuated tree, a tree reached by a tendon through three or more trees or by a tendon with a spring
/// or damper through two, never sleeps) or `Allowed`.
fn tree_sleep_policies(m: &signorini_model::Model, model_rule: bool) -> Vec<SleepPolicy> {
    let mut policy = vec![SleepPolicy::Allowed; m.ntree];
    if model_rule {
        let mut never = |dofs: &mut dyn Iterator<Item = usize>| {
            for dof in dofs {
                policy[m.dof_treeid[dof]] = SleepPolicy::Never;
            }
        };
        for u in 0..m.nu {
            match m.actuator_transmission[u] {
                Transmission::Joint(j) => never(&mut std::iter::once(m.jnt_dofadr[j])),
                Transmission::Tendon(t) => never(&mut m.tendons.jacobian_dofs(t).iter().copied()),
                Transmission::Site { site, refsite, .. } => {
                    never(&mut m.dof_chain(m.site_bodyid[site]));
                    if let Some(r) = refsite {
                        never(&mut m.dof_chain(m.site_bodyid[r]));
                    }
                }
                Transmission::SliderCrank { crank, slider, .. } => {
                    never(&mut m.dof_chain(m.site_bodyid[crank]));
                    never(&mut m.dof_chain(m.site_bodyid[slider]));
                }
                Transmission::Body(b) => never(&mut m.dof_chain(b)),
            }
        }
        let t = &m.tendons;
        for k in 0..t.len() {
            let dofs = t.jacobian_dofs(k);
            let mut trees: Vec<usize> = dofs.iter().map(|&d| m.dof_treeid[d]).collect();
            trees.sort_unstable();
            trees.dedup();
            let compliant = t.stiffness[k] != 0.0 || t.damping[k] != 0.0;
            if trees.len() >= 3 || (trees.len() == 2 && compliant) {
                never(&mut dofs.iter().copied());
            }
        }
    }
    for (b, &p) in m.body_sleep.iter().enumerate() {
        if p != SleepPolicy::Auto && m.body_dofnum[b] > 0 {
            policy[m.dof_treeid[m.body_dofadr[b]]] = p;
        }
    }
    policy
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_model_is_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<super::Model>();
    }
}
