//! `signorini.Scene`: `n_envs` environments of one model loaded from MJCF or URDF, stepped in parallel with the GIL
//! released; state, read-back and domain-randomisation parameters as NumPy arrays with the environments first.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use ndarray::ArrayView2;
use numpy::{AllowTypeChange, IntoPyArray, PyArrayLikeDyn};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use signorini_sim::{Batch, ConstraintTypes, Data, Dialect, DialectStages, Envs, Model};

use crate::envs::{Selection, rows_of};
use crate::error::{SignoriniError, to_py};

/// `n_envs` environments of one scene (see the module docs).
///
/// `Scene(path, n_envs=1, dialect="native", options=None, threads=None, floating_base=False)` loads an MJCF
/// (`.xml`) or URDF (`.urdf`) file. `dialect` is `"native"` (Genesis semantics) or `"mujoco"` (MuJoCo-compatible);
/// `options` maps option names of spec §4 (`"dt"`, `"solver"`, `"iterations"`, `"friction_cone"`, ...) to values;
/// `threads` sizes the pool the environments are stepped on (default: rayon's global pool); `floating_base` puts a
/// URDF's root link on a free joint. Units SI; contact normals point from geom B to geom A.
#[pyclass(module = "signorini")]
#[derive(Debug)]
pub struct Scene {
    batch: Mutex<Batch>,
    model: Arc<Model>,
}

/// The full state of one environment ([`Scene::snapshot`]); [`Scene::restore`] puts it back bit for bit.
#[pyclass(module = "signorini")]
#[derive(Debug)]
pub struct State {
    data: Mutex<Data>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn option_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if value.is_instance_of::<PyBool>() {
        return Ok(if value.extract::<bool>()? { "true" } else { "false" }.into());
    }
    Ok(value.str()?.to_string())
}

fn load_model(
    path: &Path,
    dialect: Dialect,
    overrides: &[(String, String)],
    floating_base: bool,
) -> Result<Arc<Model>, String> {
    let is_urdf = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("urdf"));
    if is_urdf {
        let options = signorini_urdf::UrdfOptions { floating_base, ..Default::default() };
        let loaded = signorini_urdf::load_urdf(path, &options).map_err(|e| e.to_string())?;
        let opts = dialect.default_options(false).with_overrides(overrides).map_err(|e| e.to_string())?;
        let model = Model::new(loaded.spec, opts).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Arc::new(model))
    } else {
        if floating_base {
            return Err("floating_base applies to URDF files only".into());
        }
        let scene = signorini_mjcf::load_scene(path, dialect, overrides).map_err(|e| e.to_string())?;
        Ok(Arc::clone(scene.model()))
    }
}

/// The model of `path` under the dialect named `dialect` with the `options` overrides (shared by [`Scene`] and
/// [`GpuScene`](crate::gpu_scene::GpuScene)).
pub(crate) fn model_of(
    path: &Path,
    dialect: &str,
    options: Option<HashMap<String, Bound<'_, PyAny>>>,
    floating_base: bool,
) -> PyResult<Arc<Model>> {
    let dialect = match dialect {
        "native" => Dialect::Native,
        "mujoco" => Dialect::Mujoco,
        other => {
            return Err(SignoriniError::new_err(format!(
                "unknown dialect '{other}': valid names are native, mujoco"
            )));
        }
    };
    let mut overrides = Vec::new();
    for (name, value) in options.unwrap_or_default() {
        overrides.push((name, option_text(&value)?));
    }
    overrides.sort();
    load_model(path, dialect, &overrides, floating_base).map_err(SignoriniError::new_err)
}

impl Scene {
    fn batch(&self) -> MutexGuard<'_, Batch> {
        lock(&self.batch)
    }

    /// Applies `set` to one row per selected environment of `values`.
    fn set_rows(
        &self,
        values: &PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
        set: impl FnOnce(&mut Batch, ArrayView2<'_, f64>, Envs<'_>) -> signorini_sim::Result<()>,
    ) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        let mut batch = self.batch();
        let rows = rows_of(values, selection.count(batch.n_envs()))?;
        set(&mut batch, rows.view(), selection.envs()).map_err(to_py)
    }

    /// Applies `set` to per-object frames of `width` numbers: `(selected, n, width)` values, or `(n, width)` for every
    /// selected environment, flattened to one row per environment.
    fn set_frames(
        &self,
        values: &PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
        width: usize,
        set: impl FnOnce(&mut Batch, ArrayView2<'_, f64>, Envs<'_>) -> signorini_sim::Result<()>,
    ) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        let mut batch = self.batch();
        let rows = selection.count(batch.n_envs());
        let view = values.as_array();
        let shape = view.shape().to_vec();
        let flat: Vec<f64> = view.iter().copied().collect();
        let rows = match shape.as_slice() {
            [n, w] if *w == width => ndarray::Array2::from_shape_fn((rows, n * w), |(_, k)| flat[k]),
            [r, n, w] if *w == width => ndarray::Array2::from_shape_vec((*r, n * w), flat)
                .map_err(|e| SignoriniError::new_err(e.to_string()))?,
            _ => {
                return Err(SignoriniError::new_err(format!(
                    "values must have shape (n, {width}) or (selected, n, {width}), got {shape:?}"
                )));
            }
        };
        set(&mut batch, rows.view(), selection.envs()).map_err(to_py)
    }
}

#[pymethods]
impl Scene {
    #[new]
    #[pyo3(signature = (path, n_envs=1, dialect="native", options=None, threads=None, floating_base=false))]
    fn new(
        path: PathBuf,
        n_envs: usize,
        dialect: &str,
        options: Option<HashMap<String, Bound<'_, PyAny>>>,
        threads: Option<usize>,
        floating_base: bool,
    ) -> PyResult<Scene> {
        let model = model_of(&path, dialect, options, floating_base)?;
        let mut batch = Batch::new(Arc::clone(&model), n_envs).map_err(to_py)?;
        if let Some(t) = threads {
            batch = batch.with_threads(t).map_err(to_py)?;
        }
        Ok(Scene { batch: Mutex::new(batch), model })
    }

    /// Advances every environment by `steps` steps (the GIL is released meanwhile).
    #[pyo3(signature = (steps=1))]
    fn step(&self, py: Python<'_>, steps: usize) -> PyResult<()> {
        py.detach(|| {
            let mut batch = self.batch();
            let n = batch.n_envs();
            batch.step_n_with(steps, &mut vec![(); n], |_, _, _| {})
        })
        .map_err(to_py)
    }

    /// Number of environments.
    #[getter]
    fn n_envs(&self) -> usize {
        self.batch().n_envs()
    }

    /// Position coordinates per environment.
    #[getter]
    fn nq(&self) -> usize {
        self.model.multibody.nq
    }

    /// Degrees of freedom.
    #[getter]
    fn nv(&self) -> usize {
        self.model.multibody.nv
    }

    /// Actuators.
    #[getter]
    fn nu(&self) -> usize {
        self.model.multibody.nu
    }

    /// Bodies (links), the world body 0 included.
    #[getter]
    fn nbody(&self) -> usize {
        self.model.multibody.nbody
    }

    /// Geoms.
    #[getter]
    fn ngeom(&self) -> usize {
        self.model.multibody.ngeom
    }

    /// Joints.
    #[getter]
    fn njnt(&self) -> usize {
        self.model.multibody.njnt
    }

    /// Time step (s).
    #[getter]
    fn dt(&self) -> f64 {
        self.model.options.dt
    }

    /// `"native"` or `"mujoco"`.
    #[getter]
    fn dialect(&self) -> &'static str {
        match self.model.dialect {
            Dialect::Native => "native",
            Dialect::Mujoco => "mujoco",
        }
    }

    /// Body names, in index order.
    #[getter]
    fn body_names(&self) -> Vec<String> {
        self.model.multibody.body_name.clone()
    }

    /// Joint names, in index order.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.model.multibody.jnt_name.clone()
    }

    /// Geom names, in index order.
    #[getter]
    fn geom_names(&self) -> Vec<String> {
        self.model.collision().geoms().name.clone()
    }

    /// `qpos` of every environment, `(n_envs, nq)`.
    #[getter]
    fn qpos<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().qpos().into_pyarray(py).into_any()
    }
    /// `qvel` of every environment, `(n_envs, nv)`.
    #[getter]
    fn qvel<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().qvel().into_pyarray(py).into_any()
    }
    /// `ctrl` of every environment, `(n_envs, nu)`.
    #[getter]
    fn ctrl<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().ctrl().into_pyarray(py).into_any()
    }
    /// Actuator activations, `(n_envs, na)` (the actuators with activation dynamics, in order).
    #[getter]
    fn act<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().act().into_pyarray(py).into_any()
    }
    /// Sensor values, `(n_envs, nsensordata)`, in the order of `sensor_names` (each sensor's values at
    /// `sensor_adr`): those of the state the last step started from, as MuJoCo's `sensordata` after `mj_step`.
    #[getter]
    fn sensordata<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().sensordata().into_pyarray(py).into_any()
    }
    /// Sensor names, in `sensordata` order (an unnamed sensor is `""`).
    #[getter]
    fn sensor_names(&self) -> Vec<String> {
        self.model.multibody.sensors.iter().map(|s| s.name.clone()).collect()
    }
    /// Address of each sensor's first value in a row of `sensordata`.
    #[getter]
    fn sensor_adr(&self) -> Vec<usize> {
        self.model.multibody.sensor_adr.clone()
    }
    /// Simulated time of every environment (s), `(n_envs,)`.
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().time().into_pyarray(py).into_any()
    }
    /// Body positions (world, m), `(n_envs, nbody, 3)`.
    #[getter]
    fn body_pos<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().body_pos().into_pyarray(py).into_any()
    }
    /// Body orientations (world, `(w, x, y, z)`), `(n_envs, nbody, 4)`.
    #[getter]
    fn body_quat<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().body_quat().into_pyarray(py).into_any()
    }
    /// World positions of the mocap bodies (m), `(n_envs, nmocap, 3)`.
    #[getter]
    fn mocap_pos<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().mocap_pos().into_pyarray(py).into_any()
    }
    /// World orientations of the mocap bodies (`(w, x, y, z)`, as set), `(n_envs, nmocap, 4)`.
    #[getter]
    fn mocap_quat<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().mocap_quat().into_pyarray(py).into_any()
    }
    /// Gravity of every environment (m/s²), `(n_envs, 3)`.
    #[getter]
    fn gravity<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().gravity().into_pyarray(py).into_any()
    }
    /// Friction ratio of every geom, `(n_envs, ngeom)`.
    #[getter]
    fn friction_ratio<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().friction_ratio().into_pyarray(py).into_any()
    }
    /// Armature of every dof, `(n_envs, nv)`.
    #[getter]
    fn dof_armature<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().dof_armature().into_pyarray(py).into_any()
    }
    /// Damping of every dof, `(n_envs, nv)`.
    #[getter]
    fn dof_damping<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().dof_damping().into_pyarray(py).into_any()
    }
    /// Stiffness of every joint, `(n_envs, njnt)`.
    #[getter]
    fn joint_stiffness<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().joint_stiffness().into_pyarray(py).into_any()
    }
    /// Mass of every body (kg), `(n_envs, nbody)`.
    #[getter]
    fn body_mass<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().body_mass().into_pyarray(py).into_any()
    }

    /// Net contact force on every body from the last step (world, N), `(n_envs, nbody, 3)`.
    #[getter]
    fn links_net_contact_force<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.batch().links_net_contact_force().into_pyarray(py).into_any()
    }

    /// The contacts of the last step, padded to the largest count (Genesis's layout): a dict of arrays
    /// `valid_mask (n_envs, max)`, `count (n_envs,)`, `geom_a`, `geom_b`, `link_a`, `link_b` (−1 past the count),
    /// `position`, `normal` (from B to A), `force_a` (N, on A) `(n_envs, max, 3)` and `penetration (n_envs, max)`.
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.batch().contacts();
        let d = PyDict::new(py);
        d.set_item("valid_mask", c.valid_mask.into_pyarray(py))?;
        d.set_item("count", c.count.mapv(|n| n as i64).into_pyarray(py))?;
        d.set_item("geom_a", c.geom_a.into_pyarray(py))?;
        d.set_item("geom_b", c.geom_b.into_pyarray(py))?;
        d.set_item("link_a", c.link_a.into_pyarray(py))?;
        d.set_item("link_b", c.link_b.into_pyarray(py))?;
        d.set_item("position", c.position.into_pyarray(py))?;
        d.set_item("normal", c.normal.into_pyarray(py))?;
        d.set_item("penetration", c.penetration.into_pyarray(py))?;
        d.set_item("force_a", c.force_a.into_pyarray(py))?;
        Ok(d)
    }

    /// Sets `qpos` (`(selected, nq)`, or one row for all selected environments) and wakes them.
    #[pyo3(signature = (values, envs=None))]
    fn set_qpos(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_qpos(v, e))
    }
    /// Sets `qvel` (`(selected, nv)` or one row).
    #[pyo3(signature = (values, envs=None))]
    fn set_qvel(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_qvel(v, e))
    }
    /// Sets `ctrl` (`(selected, nu)` or one row).
    #[pyo3(signature = (values, envs=None))]
    fn set_ctrl(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_ctrl(v, e))
    }
    /// Sets the mocap bodies' world positions (m): `(selected, nmocap, 3)`, or `(nmocap, 3)` for every selected
    /// environment. They take effect at the next step.
    #[pyo3(signature = (values, envs=None))]
    fn set_mocap_pos(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_frames(&values, envs, 3, |b, v, e| b.set_mocap_pos(v, e))
    }
    /// Sets the mocap bodies' world orientations (`(w, x, y, z)`): `(selected, nmocap, 4)` or `(nmocap, 4)`.
    #[pyo3(signature = (values, envs=None))]
    fn set_mocap_quat(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_frames(&values, envs, 4, |b, v, e| b.set_mocap_quat(v, e))
    }
    /// Sets gravity (m/s², `(selected, 3)` or one row).
    #[pyo3(signature = (values, envs=None))]
    fn set_gravity(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_gravity(v, e))
    }
    /// Sets every geom's friction ratio (`(selected, ngeom)` or one row; each in `[0.01, 5]`).
    #[pyo3(signature = (values, envs=None))]
    fn set_friction_ratio(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_friction_ratio(v, e))
    }
    /// Sets every dof's armature (`(selected, nv)` or one row; each ≥ 0).
    #[pyo3(signature = (values, envs=None))]
    fn set_dof_armature(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_dof_armature(v, e))
    }
    /// Sets every dof's damping (`(selected, nv)` or one row; each ≥ 0).
    #[pyo3(signature = (values, envs=None))]
    fn set_dof_damping(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_dof_damping(v, e))
    }
    /// Sets every joint's stiffness (`(selected, njnt)` or one row; each ≥ 0).
    #[pyo3(signature = (values, envs=None))]
    fn set_joint_stiffness(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_joint_stiffness(v, e))
    }
    /// Scales every body's mass and inertia from the model's (`(selected, nbody)` or one row; each > 0).
    #[pyo3(signature = (values, envs=None))]
    fn set_body_mass_scale(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_body_mass_scale(v, e))
    }
    /// Sets geom `geom`'s `(sliding, torsional, rolling)` friction (`(selected, 3)` or one row; each ≥ 0).
    #[pyo3(signature = (geom, values, envs=None))]
    fn set_geom_friction(
        &self,
        geom: usize,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_geom_friction(geom, v, e))
    }
    /// Sets geom `geom`'s contact `sol_params` `(timeconst, dampratio, dmin, dmax, width, midpoint, power)`.
    #[pyo3(signature = (geom, values, envs=None))]
    fn set_geom_sol_params(
        &self,
        geom: usize,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_geom_sol_params(geom, v, e))
    }
    /// Sets the `sol_params` of joint `joint`'s limits.
    #[pyo3(signature = (joint, values, envs=None))]
    fn set_joint_sol_params(
        &self,
        joint: usize,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_joint_sol_params(joint, v, e))
    }
    /// Sets the `sol_params` of equality `equality`.
    #[pyo3(signature = (equality, values, envs=None))]
    fn set_equality_sol_params(
        &self,
        equality: usize,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_equality_sol_params(equality, v, e))
    }
    /// Sets the `[lower, upper]` limits of hinge or slide joint `joint` (Genesis's `set_dofs_limit`).
    #[pyo3(signature = (joint, values, envs=None))]
    fn set_joint_range(
        &self,
        joint: usize,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, |b, v, e| b.set_joint_range(joint, v, e))
    }

    /// Switches equality `equality` on or off (e.g. a weld released: a suction gripper letting go).
    #[pyo3(signature = (equality, active, envs=None))]
    fn set_equality_active(
        &self,
        equality: usize,
        active: bool,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        self.batch().set_equality_active(equality, active, selection.envs()).map_err(to_py)
    }

    /// Chooses which constraint types the selected environments assemble.
    #[pyo3(signature = (equality=true, friction_loss=true, contact=true, limit=true, envs=None))]
    fn set_constraint_types(
        &self,
        equality: bool,
        friction_loss: bool,
        contact: bool,
        limit: bool,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        let types = ConstraintTypes { equality, friction_loss, contact, limit };
        self.batch().set_constraint_types(types, selection.envs()).map_err(to_py)
    }

    /// Resets the selected environments to keyframe `keyframe` (default: keyframe 0 when the model has one, else
    /// `qpos0`), keeping their parameters.
    #[pyo3(signature = (envs=None, keyframe=None))]
    fn reset(&self, envs: Option<&Bound<'_, PyAny>>, keyframe: Option<usize>) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        let mut batch = self.batch();
        match keyframe {
            Some(k) => batch.reset_to(Some(k), selection.envs()),
            None => batch.reset(selection.envs()),
        }
        .map_err(to_py)
    }

    /// Puts the selected environments' parameters back to the model's.
    #[pyo3(signature = (envs=None))]
    fn reset_parameters(&self, envs: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        self.batch().reset_parameters(selection.envs()).map_err(to_py)
    }

    /// The full state of environment `env`.
    fn snapshot(&self, env: usize) -> PyResult<State> {
        let data = self.batch().snapshot(env).map_err(to_py)?;
        Ok(State { data: Mutex::new(data) })
    }

    /// Puts a [`State`] back into environment `env` (bit for bit).
    fn restore(&self, env: usize, state: &State) -> PyResult<()> {
        let data = lock(&state.data);
        self.batch().restore(env, &data).map_err(to_py)
    }

    /// Copies environment `source`'s full state into the selected environments.
    #[pyo3(signature = (source, envs=None))]
    fn clone_env(&self, source: usize, envs: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        self.batch().clone_env(source, selection.envs()).map_err(to_py)
    }

    fn __repr__(&self) -> String {
        format!(
            "signorini.Scene(n_envs={}, nbody={}, nv={}, ngeom={}, dialect='{}')",
            self.n_envs(),
            self.nbody(),
            self.nv(),
            self.ngeom(),
            self.dialect()
        )
    }
}
