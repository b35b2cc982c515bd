//! Per-environment parameters of a [`Data`] (domain randomisation, as Genesis exposes them): gravity, friction
//! ratios, geom friction and `sol_params`, joint limits and their `sol_params`, equality `sol_params`, armature,
//! damping, stiffness and body mass scaling. Each starts from the model's, is kept by a reset, and is written only
//! when valid: a value outside its range is a [`SimError::InvalidOption`] naming the parameter (and, in a
//! [`Batch`](crate::Batch), the environment), and nothing is clamped.
//!
//! Every setter wakes the environment's sleeping trees (hibernation), whose kept quantities would otherwise be stale.
//!
//! The model's constraint scaling `body_invweight0`/`dof_invweight0` (computed at `qpos0` when the model is built) is
//! kept when masses or armatures change, as MuJoCo keeps it until `mj_setConst` and as MJX domain randomisation does.

use glam::DVec3;
use signorini_constraints::SolOverrides;
use signorini_model::error::object_name;
use signorini_model::spec::{JointKind, SolImp, SolRef};

use crate::data::Data;
use crate::error::{Result, SimError};
use crate::model::Model;

/// Genesis's `sol_params` of one object: `(timeconst, dampratio, dmin, dmax, width, midpoint, power)`, that is
/// MuJoCo's `solref` followed by its `solimp`.
pub type SolParams = [f64; 7];

/// `sol_params` split into MuJoCo's `(solref, solimp)`.
pub fn split_sol_params(p: &SolParams) -> (SolRef, SolImp) {
    ([p[0], p[1]], [p[2], p[3], p[4], p[5], p[6]])
}

impl Data {
    /// Sets the gravitational acceleration this environment is simulated under (m/s², world frame, finite); the
    /// model's `gravity` until set.
    pub fn set_gravity(&mut self, gravity: DVec3) -> Result<()> {
        if !gravity.is_finite() {
            return Err(invalid("gravity", format!("must be finite, got {gravity}")));
        }
        self.multibody.gravity = gravity;
        self.wake_all();
        Ok(())
    }

    /// Sets the friction ratio of every geom (one per geom, in `[0.01, 5]`): each geom's friction coefficients are
    /// multiplied by it before mixing (Genesis's `set_friction_ratio`). 1 until set.
    pub fn set_friction_ratio(&mut self, ratios: &[f64]) -> Result<()> {
        self.collision.set_friction_ratio(ratios).map_err(|e| collision_error("friction_ratio", e))?;
        self.wake_all();
        Ok(())
    }

    /// Sets geom `geom`'s `(sliding, torsional, rolling)` friction coefficients (each finite and ≥ 0), mixed with the
    /// other geom's by the dialect's rule (Genesis's `set_geoms_friction`, MuJoCo's `geom_friction`).
    pub fn set_geom_friction(&mut self, model: &Model, geom: usize, friction: [f64; 3]) -> Result<()> {
        let cm = model.collision();
        self.collision
            .set_geom_friction(cm, geom, friction)
            .map_err(|e| collision_error("geom_friction", e))?;
        self.wake_all();
        Ok(())
    }

    /// Sets geom `geom`'s contact `sol_params`, mixed with the other geom's as the model's are. Errors: no such
    /// geom, values breaking the `sol_params` rules (spec README §4).
    pub fn set_geom_sol_params(&mut self, model: &Model, geom: usize, sol: &SolParams) -> Result<()> {
        check_geom_sol_params(model, geom, sol)?;
        let (solref, solimp) = split_sol_params(sol);
        let cm = model.collision();
        self.collision
            .set_geom_sol(cm, geom, solref, solimp)
            .map_err(|e| collision_error("geom_sol_params", e))?;
        self.wake_all();
        Ok(())
    }

    /// Sets the limits of hinge or slide joint `joint` (`None`: unlimited; otherwise finite with `lower < upper`,
    /// rad or m): Genesis's `set_dofs_limit`. The model's limits until set.
    pub fn set_joint_range(&mut self, model: &Model, joint: usize, range: Option<[f64; 2]>) -> Result<()> {
        check_joint_range(model, joint, range)?;
        self.multibody.jnt_range[joint] = range;
        self.wake_all();
        Ok(())
    }

    /// Sets the `sol_params` of joint `joint`'s limit rows (`None`: the model's `solreflimit`/`solimplimit`).
    pub fn set_joint_sol_params(
        &mut self,
        model: &Model,
        joint: usize,
        sol: Option<&SolParams>,
    ) -> Result<()> {
        let sol = sol.map(split_sol_params);
        model
            .assembler
            .set_joint_limit_sol(&model.multibody, &mut self.sol, joint, sol)
            .map_err(|e| constraint_error("joint_sol_params", e))?;
        self.wake_all();
        Ok(())
    }

    /// Sets the `sol_params` of equality `equality`'s rows (`None`: the model's).
    pub fn set_equality_sol_params(
        &mut self,
        model: &Model,
        equality: usize,
        sol: Option<&SolParams>,
    ) -> Result<()> {
        let sol = sol.map(split_sol_params);
        model
            .assembler
            .set_equality_sol(&model.multibody, &mut self.sol, equality, sol)
            .map_err(|e| constraint_error("equality_sol_params", e))?;
        self.wake_all();
        Ok(())
    }

    /// Sets every dof's armature (`nv` values, finite, ≥ 0; kg m² or kg), added to the diagonal of `M`.
    pub fn set_dof_armature(&mut self, model: &Model, armature: &[f64]) -> Result<()> {
        check_nonnegative("dof_armature", "dof", armature, self.multibody.dof_armature.len())?;
        self.multibody.dof_armature.copy_from_slice(armature);
        self.multibody.update_simple_diagonal(&model.multibody);
        self.wake_all();
        Ok(())
    }

    /// Sets every dof's viscous damping (`nv` values, finite, ≥ 0; N m s/rad or N s/m).
    pub fn set_dof_damping(&mut self, damping: &[f64]) -> Result<()> {
        check_nonnegative("dof_damping", "dof", damping, self.multibody.dof_damping.len())?;
        self.multibody.dof_damping.copy_from_slice(damping);
        self.wake_all();
        Ok(())
    }

    /// Sets every joint's spring stiffness (`njnt` values, finite, ≥ 0; N m/rad or N/m, towards `qpos_spring`).
    pub fn set_joint_stiffness(&mut self, stiffness: &[f64]) -> Result<()> {
        check_nonnegative("jnt_stiffness", "joint", stiffness, self.multibody.jnt_stiffness.len())?;
        self.multibody.jnt_stiffness.copy_from_slice(stiffness);
        self.wake_all();
        Ok(())
    }

    /// Scales every body's mass and inertia by its factor from the model's (`nbody` values, finite, > 0; the world
    /// body's has no effect): uniform density, same centre of mass. The mass matrix, bias and gravity forces and the
    /// energies follow at the next step.
    pub fn set_body_mass_scale(&mut self, model: &Model, scales: &[f64]) -> Result<()> {
        check_body_mass_scale(model, scales)?;
        for (b, &s) in scales.iter().enumerate() {
            self.multibody.scale_body_mass(&model.multibody, b, s);
        }
        self.wake_all();
        Ok(())
    }

    /// This environment's contact parameters of geom `geom` (`friction`, `solref`, `solimp`, ...).
    pub fn geom_params(
        &self,
        model: &Model,
        geom: usize,
    ) -> Result<signorini_collision::contact_set::GeomContactParams> {
        self.collision.geom_params(model.collision(), geom).map_err(|e| collision_error("geom", e))
    }

    /// Every per-environment parameter back to the model's (gravity, friction ratios, geom contact parameters,
    /// joint limits, `sol_params`, armature, damping, stiffness, masses); wakes every tree.
    pub fn reset_parameters(&mut self, model: &Model) -> Result<()> {
        let (m, d) = (&model.multibody, &mut self.multibody);
        d.gravity = m.gravity;
        d.jnt_range.clone_from(&m.jnt_range);
        d.body_mass.clone_from(&m.body_mass);
        d.body_inertia.clone_from(&m.body_inertia);
        d.body_subtreemass.clone_from(&m.body_subtreemass);
        d.dof_armature.clone_from(&m.dof_armature);
        d.dof_damping.clone_from(&m.dof_damping);
        d.dof_m0.clone_from(&m.dof_m0);
        d.jnt_stiffness.clone_from(&m.jnt_stiffness);
        self.collision.set_friction_ratio(&vec![1.0; m.ngeom])?;
        self.collision.clear_geom_params();
        self.sol.clear();
        self.wake_all();
        Ok(())
    }
}

/// The rule of [`Data::set_friction_ratio`] (collision's), as the simulator's error.
pub(crate) fn check_friction_ratio(ratios: &[f64]) -> Result<()> {
    signorini_collision::world::data::check_friction_ratio(ratios)
        .map_err(|e| collision_error("friction_ratio", e))
}

/// The rule of [`Data::set_geom_friction`] (collision's).
pub(crate) fn check_geom_friction(model: &Model, geom: usize, friction: [f64; 3]) -> Result<()> {
    signorini_collision::world::data::check_geom_friction(model.collision(), geom, friction)
        .map_err(|e| collision_error("geom_friction", e))
}

/// The rule of [`Data::set_geom_sol_params`].
pub(crate) fn check_geom_sol_params(model: &Model, geom: usize, sol: &SolParams) -> Result<()> {
    check_index(model.multibody.ngeom, "geom_sol_params", "geom", geom)?;
    let name = &model.collision().geoms().name[geom];
    let (solref, solimp) = split_sol_params(sol);
    model
        .assembler
        .check_sol(&|| object_name("geom", name, geom), solref, solimp)
        .map_err(|e| constraint_error("geom_sol_params", e))
}

/// The rule of [`Data::set_joint_sol_params`].
pub(crate) fn check_joint_sol_params(model: &Model, joint: usize, sol: &SolParams) -> Result<()> {
    let sol = Some(split_sol_params(sol));
    model
        .assembler
        .set_joint_limit_sol(&model.multibody, &mut SolOverrides::new(), joint, sol)
        .map_err(|e| constraint_error("joint_sol_params", e))
}

/// The rule of [`Data::set_equality_sol_params`].
pub(crate) fn check_equality_sol_params(model: &Model, equality: usize, sol: &SolParams) -> Result<()> {
    let sol = Some(split_sol_params(sol));
    model
        .assembler
        .set_equality_sol(&model.multibody, &mut SolOverrides::new(), equality, sol)
        .map_err(|e| constraint_error("equality_sol_params", e))
}

/// The rule of [`Data::set_joint_range`].
pub(crate) fn check_joint_range(model: &Model, joint: usize, range: Option<[f64; 2]>) -> Result<()> {
    let m = &model.multibody;
    check_index(m.njnt, "jnt_range", "joint", joint)?;
    if !matches!(m.jnt_type[joint], JointKind::Hinge | JointKind::Slide) {
        return Err(invalid("jnt_range", format!("joint {joint} is not a hinge or slide joint")));
    }
    if let Some([lo, hi]) = range
        && !(lo.is_finite() && hi.is_finite() && lo < hi)
    {
        return Err(invalid(
            "jnt_range",
            format!("joint {joint}: the range must be finite with lower < upper, got [{lo}, {hi}]"),
        ));
    }
    Ok(())
}

/// The rule of [`Data::set_dof_armature`], [`Data::set_dof_damping`] and [`Data::set_joint_stiffness`]: `n`
/// values, each finite and ≥ 0.
pub(crate) fn check_nonnegative(name: &str, item: &str, values: &[f64], n: usize) -> Result<()> {
    if values.len() != n {
        return Err(invalid(name, format!("{} values given, the model needs {n}", values.len())));
    }
    match values.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        Some(i) => Err(invalid(name, format!("{item} {i}: must be finite and ≥ 0, got {}", values[i]))),
        None => Ok(()),
    }
}

/// The rule of [`Data::set_body_mass_scale`].
pub(crate) fn check_body_mass_scale(model: &Model, scales: &[f64]) -> Result<()> {
    let n = model.multibody.nbody;
    if scales.len() != n {
        return Err(invalid(
            "body_mass_scale",
            format!("{} values given, the model has {n} bodies", scales.len()),
        ));
    }
    match scales.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
        Some(b) => {
            Err(invalid("body_mass_scale", format!("body {b}: must be finite and > 0, got {}", scales[b])))
        }
        None => Ok(()),
    }
}

fn check_index(n: usize, name: &str, item: &str, i: usize) -> Result<()> {
    if i < n { Ok(()) } else { Err(invalid(name, format!("{item} {i} does not exist (the model has {n})"))) }
}

fn invalid(name: &str, what: String) -> SimError {
    SimError::InvalidOption { name: name.into(), what }
}

fn collision_error(name: &str, e: signorini_collision::CollisionError) -> SimError {
    match e {
        signorini_collision::CollisionError::InvalidRequest { what } => invalid(name, what),
        other => other.into(),
    }
}

fn constraint_error(name: &str, e: signorini_constraints::ConstraintError) -> SimError {
    match e {
        signorini_constraints::ConstraintError::InvalidSelection { what } => invalid(name, what),
        other => other.into(),
    }
}
