//! [`Batch`]: many environments of one scene — one shared [`Model`], one [`Data`] per environment — stepped in
//! parallel over environments with `rayon`, with batched state and read-back as `ndarray` arrays (environments
//! first), as Genesis's `scene.build(n_envs=N)` exposes them.
//!
//! Every environment is stepped by the same [`step`](crate::step::step) as a lone [`Scene`](crate::Scene): its trajectory depends
//! neither on the thread count nor on `n_envs`, and is bit-identical to the same environment stepped alone.
//!
//! Selections of environments ([`Envs`]) are all of them, a list of indices or a mask. Setters take one row per
//! selected environment, in selection order; a wrong shape, an index out of range or a non-finite value is a typed
//! error naming the environment, and nothing is written then.

use std::sync::Arc;

use ndarray::{Array1, Array2, Array3, ArrayView2, Axis};
use rayon::prelude::*;

use crate::data::{ConstraintTypes, Data};
use crate::error::{Result, SimError};
use crate::model::Model;
use crate::parameters::{
    SolParams, check_body_mass_scale, check_equality_sol_params, check_friction_ratio, check_geom_friction,
    check_geom_sol_params, check_joint_range, check_joint_sol_params, check_nonnegative,
};
use crate::step::{StageClock, step_with};

/// Which environments an operation applies to.
#[derive(Debug, Clone, Copy)]
pub enum Envs<'a> {
    /// Every environment, in order.
    All,
    /// These environments, in this order (each at most once).
    Indices(&'a [usize]),
    /// The environments whose flag is set (`n_envs` flags), in order.
    Mask(&'a [bool]),
}

/// Errors: `env` is not an index of `n_envs` environments.
fn check_env_index(env: usize, n_envs: usize) -> Result<()> {
    if env < n_envs {
        Ok(())
    } else {
        Err(SimError::InvalidState {
            what: format!("environment {env} does not exist (the batch has {n_envs})"),
        })
    }
}

impl Envs<'_> {
    /// The selected indices out of `n_envs` environments, in selection order. Errors: an index out of range or
    /// selected twice, a mask of the wrong length.
    pub fn select(self, n_envs: usize) -> Result<Vec<usize>> {
        let n = n_envs;
        let check = |env: usize| check_env_index(env, n);
        match self {
            Envs::All => Ok((0..n).collect()),
            Envs::Indices(idx) => {
                let mut seen = vec![false; n];
                for &env in idx {
                    check(env)?;
                    if std::mem::replace(&mut seen[env], true) {
                        return Err(SimError::InvalidState {
                            what: format!("environment {env} is selected twice"),
                        });
                    }
                }
                Ok(idx.to_vec())
            }
            Envs::Mask(mask) => {
                if mask.len() != n {
                    return Err(SimError::InvalidState {
                        what: format!(
                            "the environment mask has {} flags, the batch has {n} environments",
                            mask.len()
                        ),
                    });
                }
                Ok((0..n).filter(|&e| mask[e]).collect())
            }
        }
    }
}

/// The contacts of every environment, padded to the largest count in the batch (spec §5, Genesis's layout):
/// entry `[e, k]` is contact `k` of environment `e` when `valid_mask[[e, k]]`, zeros (and geom/link −1) past it.
/// Simulator convention: normal from B to A, `force_a = −force_b`, newtons, world frame.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchContacts {
    /// Whether entry `[e, k]` is a contact (`n_envs × max`).
    pub valid_mask: Array2<bool>,
    /// Contacts per environment (`n_envs`).
    pub count: Array1<usize>,
    /// Geom A (`n_envs × max`, −1 when not valid).
    pub geom_a: Array2<i64>,
    /// Geom B.
    pub geom_b: Array2<i64>,
    /// Body (link) of geom A.
    pub link_a: Array2<i64>,
    /// Body of geom B.
    pub link_b: Array2<i64>,
    /// Midpoint between the surfaces (m, `n_envs × max × 3`).
    pub position: Array3<f64>,
    /// Unit normal from B to A (`n_envs × max × 3`).
    pub normal: Array3<f64>,
    /// Penetration depth (m, ≥ 0; `n_envs × max`).
    pub penetration: Array2<f64>,
    /// Force on A (N, `n_envs × max × 3`).
    pub force_a: Array3<f64>,
}

/// Many environments of one model (see the module docs).
#[derive(Debug)]
pub struct Batch {
    model: Arc<Model>,
    envs: Vec<Data>,
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Whether steps time their stages (off by default; see [`Batch::set_stage_timing`]).
    stage_clock: StageClock,
}

impl Batch {
    /// `n_envs ≥ 1` environments of `model`, each at the model's initial state, stepped on rayon's global pool.
    pub fn new(model: Arc<Model>, n_envs: usize) -> Result<Batch> {
        if n_envs == 0 {
            return Err(SimError::InvalidOption { name: "n_envs".into(), what: "must be at least 1".into() });
        }
        let first = Data::new(&model)?;
        let mut envs = Vec::with_capacity(n_envs);
        envs.resize(n_envs - 1, first.clone());
        envs.push(first);
        Ok(Batch { model, envs, pool: None, stage_clock: StageClock::Off })
    }

    /// The same batch stepped on a pool of `threads` threads of its own (results do not depend on it). Errors:
    /// `threads` is 0 or above [`max_threads`](crate::options::max_threads).
    pub fn with_threads(mut self, threads: usize) -> Result<Batch> {
        crate::options::check_threads("threads", threads)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("signorini-batch-{i}"))
            .build()
            .map_err(|e| SimError::InvalidOption {
                name: "threads".into(),
                what: format!("cannot start {threads} threads: {e}"),
            })?;
        self.pool = Some(Arc::new(pool));
        Ok(self)
    }

    /// Whether steps time their stages into each environment's [`StepStatistics`](crate::StepStatistics)
    /// (`time_forward` … `time_integrate`). Off by default: a batch is judged by environment-steps per second, and
    /// the clock reads were 1.6 % of `arm.xml`'s step (perf); the trajectories are the same either way.
    pub fn set_stage_timing(&mut self, on: bool) {
        self.stage_clock = if on { StageClock::On } else { StageClock::Off };
    }

    /// The shared model.
    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// Number of environments.
    pub fn n_envs(&self) -> usize {
        self.envs.len()
    }

    /// Environment `env`'s data.
    pub fn env(&self, env: usize) -> Result<&Data> {
        self.check_env(env)?;
        Ok(&self.envs[env])
    }

    /// Environment `env`'s data, mutably (its setters and the `(&Model, &mut Data)` functions apply).
    pub fn env_mut(&mut self, env: usize) -> Result<&mut Data> {
        self.check_env(env)?;
        Ok(&mut self.envs[env])
    }

    /// Advances every environment by `dt`, in parallel (on the caller's thread when there is one environment or
    /// one thread). Errors name the first failing environment (in index order); every other environment has still
    /// been stepped.
    pub fn step(&mut self) -> Result<()> {
        self.step_n_with(1, &mut vec![(); self.envs.len()], |_, _, _| {})
    }

    /// Advances every environment by `n` steps, each environment on its own from start to end (no barrier between
    /// steps: one hand-over to the pool per call), calling `after_step(k, data, state)` after its step `k` (1-based)
    /// with that environment's entry of `per_env` (`n_envs` entries). Trajectories are those of `n` calls of
    /// [`Batch::step`]. Errors: `per_env` of the wrong length; a failing environment (the first in index order),
    /// whose later steps are skipped.
    pub fn step_n_with<T: Send>(
        &mut self,
        n: usize,
        per_env: &mut [T],
        after_step: impl Fn(usize, &Data, &mut T) + Sync,
    ) -> Result<()> {
        if per_env.len() != self.envs.len() {
            return Err(SimError::InvalidState {
                what: format!(
                    "{} per-environment entries for {} environments",
                    per_env.len(),
                    self.envs.len()
                ),
            });
        }
        let (model, clock) = (&*self.model, self.stage_clock);
        let run_env = |d: &mut Data, state: &mut T| -> Result<()> {
            for k in 1..=n {
                step_with(model, d, clock)?;
                after_step(k, d, state);
            }
            Ok(())
        };
        let sequential =
            self.envs.len() == 1 || self.pool.as_ref().is_some_and(|p| p.current_num_threads() == 1);
        let envs = &mut self.envs;
        let results: Vec<Result<()>> = match &self.pool {
            // One environment at a time: each steps on a worker of the model's own pool (`threads`), which its narrow
            // phase and its islands share, as a `Scene` does (on this thread when `threads` is 1).
            _ if sequential => model
                .collision()
                .install(|| envs.iter_mut().zip(per_env.iter_mut()).map(|(d, t)| run_env(d, t)).collect()),
            Some(pool) => pool.install(|| {
                envs.par_iter_mut().zip(per_env.par_iter_mut()).map(|(d, t)| run_env(d, t)).collect()
            }),
            None => envs.par_iter_mut().zip(per_env.par_iter_mut()).map(|(d, t)| run_env(d, t)).collect(),
        };
        for (env, r) in results.into_iter().enumerate() {
            if let Err(e) = r {
                return Err(SimError::Environment { env, source: Box::new(e) });
            }
        }
        Ok(())
    }

    /// `qpos` of every environment (`n_envs × nq`).
    pub fn qpos(&self) -> Array2<f64> {
        self.rows(self.model.multibody.nq, |d| &d.multibody.qpos)
    }

    /// `qvel` of every environment (`n_envs × nv`).
    pub fn qvel(&self) -> Array2<f64> {
        self.rows(self.model.multibody.nv, |d| &d.multibody.qvel)
    }

    /// `ctrl` of every environment (`n_envs × nu`).
    pub fn ctrl(&self) -> Array2<f64> {
        self.rows(self.model.multibody.nu, |d| &d.multibody.ctrl)
    }

    /// Actuator activations of every environment (`n_envs × na`; the actuators with activation dynamics, in order).
    pub fn act(&self) -> Array2<f64> {
        self.rows(self.model.multibody.na, |d| &d.multibody.act)
    }

    /// Sensor values of every environment (`n_envs × nsensordata`; [`signorini_model::Model::sensor_adr`]): those of
    /// the state each environment's last step started from, as MuJoCo's `sensordata` after `mj_step`.
    pub fn sensordata(&self) -> Array2<f64> {
        self.rows(self.model.multibody.nsensordata, |d| &d.multibody.sensordata)
    }

    /// Simulated time of every environment (s).
    pub fn time(&self) -> Array1<f64> {
        self.envs.iter().map(|d| d.multibody.time).collect()
    }

    /// Body positions (world frame, m; `n_envs × nbody × 3`) after the last step's forward pass.
    pub fn body_pos(&self) -> Array3<f64> {
        let nbody = self.model.multibody.nbody;
        Array3::from_shape_fn((self.n_envs(), nbody, 3), |(e, b, k)| self.envs[e].multibody.xpos[b][k])
    }

    /// Body orientations (unit quaternions `w, x, y, z`; `n_envs × nbody × 4`) after the last step's forward pass.
    pub fn body_quat(&self) -> Array3<f64> {
        let nbody = self.model.multibody.nbody;
        Array3::from_shape_fn((self.n_envs(), nbody, 4), |(e, b, k)| {
            let q = self.envs[e].multibody.xquat[b];
            [q.w, q.x, q.y, q.z][k]
        })
    }

    /// World positions of the mocap bodies of every environment (m; `n_envs × nmocap × 3`, mocap order).
    pub fn mocap_pos(&self) -> Array3<f64> {
        let n = self.model.multibody.nmocap;
        Array3::from_shape_fn((self.n_envs(), n, 3), |(e, i, k)| self.envs[e].multibody.mocap_pos[i][k])
    }

    /// World orientations of the mocap bodies of every environment (`w, x, y, z`; `n_envs × nmocap × 4`), as set.
    pub fn mocap_quat(&self) -> Array3<f64> {
        let n = self.model.multibody.nmocap;
        Array3::from_shape_fn((self.n_envs(), n, 4), |(e, i, k)| {
            let q = self.envs[e].multibody.mocap_quat[i];
            [q.w, q.x, q.y, q.z][k]
        })
    }

    /// Sets the mocap positions of the selected environments (`selected × 3·nmocap`: `x, y, z` per mocap body).
    pub fn set_mocap_pos(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let n = self.model.multibody.nmocap;
        self.set_rows(
            "mocap_pos",
            3 * n,
            values,
            envs,
            |_| Ok(()),
            |d, row| {
                for (p, v) in d.multibody.mocap_pos.iter_mut().zip(row.chunks_exact(3)) {
                    *p = glam::DVec3::new(v[0], v[1], v[2]);
                }
                Ok(())
            },
        )
    }

    /// Sets the mocap orientations of the selected environments (`selected × 4·nmocap`: `w, x, y, z` per mocap body;
    /// normalised when read, a zero quaternion reads as the identity).
    pub fn set_mocap_quat(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let n = self.model.multibody.nmocap;
        self.set_rows(
            "mocap_quat",
            4 * n,
            values,
            envs,
            |_| Ok(()),
            |d, row| {
                for (q, v) in d.multibody.mocap_quat.iter_mut().zip(row.chunks_exact(4)) {
                    *q = glam::DQuat::from_xyzw(v[1], v[2], v[3], v[0]);
                }
                Ok(())
            },
        )
    }

    /// Net contact force on every body of every environment (N, world; `n_envs × nbody × 3`).
    pub fn links_net_contact_force(&self) -> Array3<f64> {
        let nbody = self.model.multibody.nbody;
        let mut out = Array3::zeros((self.n_envs(), nbody, 3));
        for (e, d) in self.envs.iter().enumerate() {
            for (b, f) in d.links_net_contact_force(&self.model).iter().enumerate() {
                for k in 0..3 {
                    out[[e, b, k]] = f[k];
                }
            }
        }
        out
    }

    /// The last step's contacts of every environment, padded (see [`BatchContacts`]).
    pub fn contacts(&self) -> BatchContacts {
        let lists: Vec<_> = self.envs.iter().map(|d| d.contacts(&self.model)).collect();
        let n = self.n_envs();
        let max = lists.iter().map(|c| c.len()).max().unwrap_or(0);
        let mut out = BatchContacts {
            valid_mask: Array2::from_elem((n, max), false),
            count: lists.iter().map(|c| c.len()).collect(),
            geom_a: Array2::from_elem((n, max), -1),
            geom_b: Array2::from_elem((n, max), -1),
            link_a: Array2::from_elem((n, max), -1),
            link_b: Array2::from_elem((n, max), -1),
            position: Array3::zeros((n, max, 3)),
            normal: Array3::zeros((n, max, 3)),
            penetration: Array2::zeros((n, max)),
            force_a: Array3::zeros((n, max, 3)),
        };
        for (e, c) in lists.iter().enumerate() {
            for k in 0..c.len() {
                out.valid_mask[[e, k]] = true;
                out.geom_a[[e, k]] = c.geom_a[k] as i64;
                out.geom_b[[e, k]] = c.geom_b[k] as i64;
                out.link_a[[e, k]] = c.link_a[k] as i64;
                out.link_b[[e, k]] = c.link_b[k] as i64;
                out.penetration[[e, k]] = c.penetration[k];
                for j in 0..3 {
                    out.position[[e, k, j]] = c.position[k][j];
                    out.normal[[e, k, j]] = c.normal[k][j];
                    out.force_a[[e, k, j]] = c.force_a[k][j];
                }
            }
        }
        out
    }

    /// Sets `qpos` of the selected environments (one row of `nq` per selected environment) and wakes them.
    pub fn set_qpos(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let nq = self.model.multibody.nq;
        self.set_rows("qpos", nq, values, envs, |_| Ok(()), |d, row| d.set_qpos(row))
    }

    /// Sets `qvel` of the selected environments (one row of `nv` per selected environment) and wakes them.
    pub fn set_qvel(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let nv = self.model.multibody.nv;
        self.set_rows("qvel", nv, values, envs, |_| Ok(()), |d, row| d.set_qvel(row))
    }

    /// Sets `ctrl` of the selected environments (one row of `nu` per selected environment) and wakes them.
    pub fn set_ctrl(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let nu = self.model.multibody.nu;
        self.set_rows("ctrl", nu, values, envs, |_| Ok(()), |d, row| d.set_ctrl(row))
    }

    /// Gravity of every environment (m/s², world; `n_envs × 3`).
    pub fn gravity(&self) -> Array2<f64> {
        Array2::from_shape_fn((self.n_envs(), 3), |(e, k)| self.envs[e].multibody.gravity[k])
    }

    /// Friction ratio of every geom of every environment (`n_envs × ngeom`; see [`Data::set_friction_ratio`]).
    pub fn friction_ratio(&self) -> Array2<f64> {
        let ngeom = self.model.multibody.ngeom;
        Array2::from_shape_fn((self.n_envs(), ngeom), |(e, g)| self.envs[e].collision.friction_ratio()[g])
    }

    /// Sets gravity (one row of 3 per selected environment, finite) for domain randomisation.
    pub fn set_gravity(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let gravity = |row: &[f64]| glam::DVec3::new(row[0], row[1], row[2]);
        self.set_rows("gravity", 3, values, envs, |_| Ok(()), |d, row| d.set_gravity(gravity(row)))
    }

    /// Sets the friction ratio of every geom (one row of `ngeom` per selected environment, each in `[0.01, 5]`).
    pub fn set_friction_ratio(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let ngeom = self.model.multibody.ngeom;
        self.set_rows("friction_ratio", ngeom, values, envs, check_friction_ratio, |d, row| {
            d.set_friction_ratio(row)
        })
    }

    /// Sets the limits of hinge or slide joint `joint` (one row `[lower, upper]` per selected environment; see
    /// [`Data::set_joint_range`]).
    pub fn set_joint_range(
        &mut self,
        joint: usize,
        values: ArrayView2<'_, f64>,
        envs: Envs<'_>,
    ) -> Result<()> {
        let model = Arc::clone(&self.model);
        let range = |row: &[f64]| Some([row[0], row[1]]);
        self.set_rows(
            "jnt_range",
            2,
            values,
            envs,
            |row| check_joint_range(&model, joint, range(row)),
            |d, row| d.set_joint_range(&model, joint, range(row)),
        )
    }

    /// Sets geom `geom`'s `(sliding, torsional, rolling)` friction (one row of 3 per selected environment, each
    /// ≥ 0; see [`Data::set_geom_friction`]).
    pub fn set_geom_friction(
        &mut self,
        geom: usize,
        values: ArrayView2<'_, f64>,
        envs: Envs<'_>,
    ) -> Result<()> {
        let model = Arc::clone(&self.model);
        let friction = |row: &[f64]| [row[0], row[1], row[2]];
        self.set_rows(
            "geom_friction",
            3,
            values,
            envs,
            |row| check_geom_friction(&model, geom, friction(row)),
            |d, row| d.set_geom_friction(&model, geom, friction(row)),
        )
    }

    /// Sets geom `geom`'s contact `sol_params` (one row of 7 per selected environment; see [`SolParams`]).
    pub fn set_geom_sol_params(
        &mut self,
        geom: usize,
        values: ArrayView2<'_, f64>,
        envs: Envs<'_>,
    ) -> Result<()> {
        let model = Arc::clone(&self.model);
        self.set_rows(
            "geom_sol_params",
            7,
            values,
            envs,
            |row| check_geom_sol_params(&model, geom, &sol_params(row)),
            |d, row| d.set_geom_sol_params(&model, geom, &sol_params(row)),
        )
    }

    /// Sets the `sol_params` of joint `joint`'s limits (one row of 7 per selected environment).
    pub fn set_joint_sol_params(
        &mut self,
        joint: usize,
        values: ArrayView2<'_, f64>,
        envs: Envs<'_>,
    ) -> Result<()> {
        let model = Arc::clone(&self.model);
        self.set_rows(
            "joint_sol_params",
            7,
            values,
            envs,
            |row| check_joint_sol_params(&model, joint, &sol_params(row)),
            |d, row| d.set_joint_sol_params(&model, joint, Some(&sol_params(row))),
        )
    }

    /// Sets the `sol_params` of equality `equality` (one row of 7 per selected environment).
    pub fn set_equality_sol_params(
        &mut self,
        equality: usize,
        values: ArrayView2<'_, f64>,
        envs: Envs<'_>,
    ) -> Result<()> {
        let model = Arc::clone(&self.model);
        self.set_rows(
            "equality_sol_params",
            7,
            values,
            envs,
            |row| check_equality_sol_params(&model, equality, &sol_params(row)),
            |d, row| d.set_equality_sol_params(&model, equality, Some(&sol_params(row))),
        )
    }

    /// Armature of every dof of every environment (`n_envs × nv`).
    pub fn dof_armature(&self) -> Array2<f64> {
        self.rows(self.model.multibody.nv, |d| &d.multibody.dof_armature)
    }

    /// Sets every dof's armature (one row of `nv` per selected environment, each ≥ 0).
    pub fn set_dof_armature(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let model = Arc::clone(&self.model);
        let nv = model.multibody.nv;
        let check = |row: &[f64]| check_nonnegative("dof_armature", "dof", row, nv);
        self.set_rows("dof_armature", nv, values, envs, check, |d, row| d.set_dof_armature(&model, row))
    }

    /// Damping of every dof of every environment (`n_envs × nv`).
    pub fn dof_damping(&self) -> Array2<f64> {
        self.rows(self.model.multibody.nv, |d| &d.multibody.dof_damping)
    }

    /// Sets every dof's damping (one row of `nv` per selected environment, each ≥ 0).
    pub fn set_dof_damping(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let nv = self.model.multibody.nv;
        let check = |row: &[f64]| check_nonnegative("dof_damping", "dof", row, nv);
        self.set_rows("dof_damping", nv, values, envs, check, |d, row| d.set_dof_damping(row))
    }

    /// Stiffness of every joint of every environment (`n_envs × njnt`).
    pub fn joint_stiffness(&self) -> Array2<f64> {
        self.rows(self.model.multibody.njnt, |d| &d.multibody.jnt_stiffness)
    }

    /// Sets every joint's stiffness (one row of `njnt` per selected environment, each ≥ 0).
    pub fn set_joint_stiffness(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let njnt = self.model.multibody.njnt;
        let check = |row: &[f64]| check_nonnegative("jnt_stiffness", "joint", row, njnt);
        self.set_rows("jnt_stiffness", njnt, values, envs, check, |d, row| d.set_joint_stiffness(row))
    }

    /// Mass of every body of every environment (kg, `n_envs × nbody`).
    pub fn body_mass(&self) -> Array2<f64> {
        self.rows(self.model.multibody.nbody, |d| &d.multibody.body_mass)
    }

    /// Scales every body's mass and inertia from the model's (one row of `nbody` factors per selected environment,
    /// each > 0; see [`Data::set_body_mass_scale`]).
    pub fn set_body_mass_scale(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        let model = Arc::clone(&self.model);
        let nbody = model.multibody.nbody;
        self.set_rows(
            "body_mass_scale",
            nbody,
            values,
            envs,
            |row| check_body_mass_scale(&model, row),
            |d, row| d.set_body_mass_scale(&model, row),
        )
    }

    /// Puts every per-environment parameter of the selected environments back to the model's
    /// ([`Data::reset_parameters`]).
    pub fn reset_parameters(&mut self, envs: Envs<'_>) -> Result<()> {
        let model = Arc::clone(&self.model);
        for env in self.select(envs)? {
            self.envs[env]
                .reset_parameters(&model)
                .map_err(|e| SimError::Environment { env, source: Box::new(e) })?;
        }
        Ok(())
    }

    /// Sets which constraint types the selected environments assemble (a type disabled per environment).
    pub fn set_constraint_types(&mut self, types: ConstraintTypes, envs: Envs<'_>) -> Result<()> {
        for env in self.select(envs)? {
            self.envs[env].constraint_types = types;
        }
        Ok(())
    }

    /// Switches equality `equality` (model order) on or off in the selected environments, e.g. a weld released at
    /// run time. Errors: no such equality.
    pub fn set_equality_active(&mut self, equality: usize, active: bool, envs: Envs<'_>) -> Result<()> {
        let n = self.model.multibody.equalities.len();
        if equality >= n {
            return Err(SimError::InvalidOption {
                name: "equality".into(),
                what: format!("equality {equality} does not exist (the model has {n})"),
            });
        }
        for env in self.select(envs)? {
            self.envs[env].equality_active[equality] = active;
        }
        Ok(())
    }

    /// Resets the selected environments to `qpos0` (or keyframe 0 when the model has one), without reallocating
    /// ([`Data::reset`]).
    pub fn reset(&mut self, envs: Envs<'_>) -> Result<()> {
        let keyframe = (!self.model.multibody.keyframes.is_empty()).then_some(0);
        self.reset_to(keyframe, envs)
    }

    /// Resets the selected environments to keyframe `keyframe` (`None`: `qpos0`), without reallocating.
    pub fn reset_to(&mut self, keyframe: Option<usize>, envs: Envs<'_>) -> Result<()> {
        let selected = self.select(envs)?;
        for env in selected {
            let model = &self.model;
            self.envs[env]
                .reset_to(model, keyframe)
                .map_err(|e| SimError::Environment { env, source: Box::new(e) })?;
        }
        Ok(())
    }

    /// The full state of environment `env` (a clone of its [`Data`]); [`Batch::restore`] puts it back bit-exact.
    pub fn snapshot(&self, env: usize) -> Result<Data> {
        Ok(self.env(env)?.clone())
    }

    /// Replaces environment `env`'s state by `data` (from [`Batch::snapshot`] or a [`Data`] of this model).
    pub fn restore(&mut self, env: usize, data: &Data) -> Result<()> {
        self.check_env(env)?;
        data.check_model(&self.model)?;
        self.envs[env].clone_from(data);
        Ok(())
    }

    /// Copies environment `source`'s full state into the selected environments.
    pub fn clone_env(&mut self, source: usize, targets: Envs<'_>) -> Result<()> {
        self.check_env(source)?;
        for env in self.select(targets)? {
            if env != source {
                let (src, dst) = if source < env {
                    let (a, b) = self.envs.split_at_mut(env);
                    (&a[source], &mut b[0])
                } else {
                    let (a, b) = self.envs.split_at_mut(source);
                    (&b[0], &mut a[env])
                };
                dst.clone_from(src);
            }
        }
        Ok(())
    }

    fn check_env(&self, env: usize) -> Result<()> {
        check_env_index(env, self.envs.len())
    }

    /// The selected environment indices, checked.
    fn select(&self, envs: Envs<'_>) -> Result<Vec<usize>> {
        envs.select(self.envs.len())
    }

    fn rows(&self, width: usize, field: impl Fn(&Data) -> &Vec<f64>) -> Array2<f64> {
        Array2::from_shape_fn((self.n_envs(), width), |(e, k)| field(&self.envs[e])[k])
    }

    /// Writes one row per selected environment with `set`, after checking every row first (shape `(selected,
    /// width)`, finite values, then `check`): a bad row is an error naming its environment and leaves every
    /// environment unchanged.
    fn set_rows(
        &mut self,
        what: &str,
        width: usize,
        values: ArrayView2<'_, f64>,
        envs: Envs<'_>,
        check: impl Fn(&[f64]) -> Result<()>,
        set: impl Fn(&mut Data, &[f64]) -> Result<()>,
    ) -> Result<()> {
        let selected = self.select(envs)?;
        if values.dim() != (selected.len(), width) {
            return Err(SimError::InvalidState {
                what: format!(
                    "{what} has shape {:?}, the selection needs ({}, {width})",
                    values.dim(),
                    selected.len()
                ),
            });
        }
        let rows: Vec<Vec<f64>> = values.axis_iter(Axis(0)).map(|row| row.to_vec()).collect();
        let in_env = |env: usize| move |e: SimError| SimError::Environment { env, source: Box::new(e) };
        for (row, &env) in rows.iter().zip(&selected) {
            if let Some(bad) = row.iter().find(|x| !x.is_finite()) {
                let e =
                    SimError::InvalidState { what: format!("{what} contains the non-finite value {bad}") };
                return Err(in_env(env)(e));
            }
            check(row).map_err(in_env(env))?;
        }
        for (row, &env) in rows.iter().zip(&selected) {
            set(&mut self.envs[env], row).map_err(in_env(env))?;
        }
        Ok(())
    }
}

fn sol_params(row: &[f64]) -> SolParams {
    std::array::from_fn(|k| row[k])
}
