//! [`Model`]: what a simulated scene *is* — the compiled multibody model (tree, inertias, joints, actuators,
//! geoms), the collision model (geoms with their contact parameters, pair filters), the validated [`Options`] and
//! every stage's configuration, fixed once built. It is immutable, `Send + Sync`, and meant to be shared by `Arc`:
//! a batch of environments is one `Model` and many [`Data`](crate::Data).

use signorini_collision::world::{BodyDesc, CollisionModel, GeomDesc};
use signorini_constraints::{ConstraintAssembler, ConstraintOptions};
use signorini_geometry::Pose;
use signorini_integrators::Integrator;
use signorini_model::spec::{JointKind, ModelSpec};
use signorini_solver::noslip::NoSlipOptions;
use signorini_solver::{ConstraintSolver, SolverOptions, island_solver_for, solver_for};

use crate::dialect::{Dialect, DialectStages};
use crate::error::Result;
use crate::options::Options;

/// A compiled scene (see the module docs).
#[derive(Debug)]
pub struct Model {
    /// The kinematic tree and its dynamics (spec §D), geoms included.
    pub multibody: signorini_model::Model,
    /// The collision model: one body per multibody body, one geom per multibody geom, in the same order.
    pub collision: CollisionModel,
    /// The options in force (validated).
    pub options: Options,
    /// The dialect every stage was configured for.
    pub dialect: Dialect,
    pub(crate) constraint_options: ConstraintOptions,
    pub(crate) assembler: ConstraintAssembler,
    pub(crate) solver: Box<dyn ConstraintSolver>,
    pub(crate) solver_options: SolverOptions,
    pub(crate) noslip_options: Option<NoSlipOptions>,
    pub(crate) integrator: Box<dyn Integrator>,
    /// Hibernation's rest threshold (m/s), when hibernation is on.
    pub(crate) hibernation_thresh_vel: Option<f64>,
}

impl Model {
    /// Validates `options`, compiles `spec` and configures every stage for the options' dialect.
    pub fn new(spec: ModelSpec, options: Options) -> Result<Model> {
        options.validate()?;
        Model::from_compiled(signorini_model::Model::compile(spec)?, options)
    }

    /// [`Model::new`] for an already compiled multibody model.
    pub fn from_compiled(multibody: signorini_model::Model, options: Options) -> Result<Model> {
        options.validate()?;
        let dialect = Dialect::of(&options);
        let collision = collision_model(&multibody, &options, dialect)?;
        let constraint_options = dialect.constraint_options(&options);
        let assembler = ConstraintAssembler::new(&multibody, constraint_options)?;
        let noslip_options = (options.noslip_iterations > 0).then_some(NoSlipOptions {
            iterations: options.noslip_iterations,
            tolerance: options.noslip_tolerance,
            islands: options.enable_islands,
        });
        let hibernation_thresh_vel = options
            .use_hibernation
            .then(|| options.hibernation_thresh_vel.unwrap_or(dialect.default_hibernation_thresh_vel()));
        Ok(Model {
            collision,
            constraint_options,
            assembler,
            solver: {
                let kind = dialect.solver_kind(&options);
                if options.enable_islands { island_solver_for(kind) } else { solver_for(kind) }
            },
            solver_options: dialect.solver_options(&options),
            noslip_options,
            integrator: options.integrator.build(),
            hibernation_thresh_vel,
            dialect,
            options,
            multibody,
        })
    }

    /// Indices of the free joints, in joint order (the `qpos_free` layout of `signorini run --dump`).
    pub fn free_joints(&self) -> Vec<usize> {
        let m = &self.multibody;
        (0..m.njnt).filter(|&j| m.jnt_type[j] == JointKind::Free).collect()
    }
}

/// The collision model of a compiled multibody model: one body per model body, one geom per model geom, in model
/// order, with the model's contact excludes.
fn collision_model(
    model: &signorini_model::Model,
    options: &Options,
    dialect: Dialect,
) -> Result<CollisionModel> {
    let mut world = CollisionModel::new(dialect.collision_options(options))?;
    for b in 1..model.nbody {
        let moving = model.body_jntnum[b] > 0;
        world.add_body(BodyDesc::new(model.body_name[b].clone(), model.body_parent[b], moving))?;
    }
    for g in 0..model.ngeom {
        let mut desc = GeomDesc::new(model.geom_shape[g].clone(), model.geom_bodyid[g])
            .at(Pose { translation: model.geom_pos[g], rotation: model.geom_quat[g] })
            .named(model.geom_name[g].clone());
        desc.contype = model.geom_contype[g];
        desc.conaffinity = model.geom_conaffinity[g];
        desc.condim = model.geom_condim[g];
        desc.friction = model.geom_friction[g];
        desc.solref = model.geom_solref[g];
        desc.solimp = model.geom_solimp[g];
        desc.solmix = model.geom_solmix[g];
        desc.priority = model.geom_priority[g];
        desc.margin = model.geom_margin[g];
        desc.gap = model.geom_gap[g];
        world.add_geom(desc)?;
    }
    for &(a, b) in &model.contact_excludes {
        world.exclude_bodies(a, b)?;
    }
    Ok(world)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_model_is_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<super::Model>();
    }
}
