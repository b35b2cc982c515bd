//! `signorini.GpuScene`: `n_envs` environments of one model stepped on a GPU (`signorini-gpu`): the state stays on
//! the device between steps and each read-back is one batched copy. The same loading arguments as `Scene`; what the
//! GPU path does not implement (named in the error) or a missing adapter raises `SignoriniError` at construction,
//! never a CPU fallback.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};

use numpy::{AllowTypeChange, IntoPyArray, PyArrayLikeDyn};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use signorini_gpu::{GpuBatch, GpuBatchOptions, GpuContext, Precision};

use signorini_sim::Envs;

use crate::envs::{Selection, rows_of};
use crate::error::{SignoriniError, to_py};
use crate::scene::model_of;

/// `n_envs` environments on the GPU (see the module docs).
///
/// `GpuScene(path, n_envs=1, dialect="native", options=None, precision="f32", max_contacts=None,
/// floating_base=False)`. `precision` is `"f32"` or `"f64"` (an adapter with f64 shaders); `max_contacts` bounds the
/// contacts of one environment (a step that needs more raises, naming it). Units SI; contact normals point from
/// geom B to geom A.
#[pyclass(module = "signorini")]
#[derive(Debug)]
pub struct GpuScene {
    batch: Mutex<GpuBatch>,
    adapter: String,
}

#[pymethods]
impl GpuScene {
    #[new]
    #[pyo3(signature = (path, n_envs=1, dialect="native", options=None, precision="f32", max_contacts=None, floating_base=false))]
    fn new(
        path: PathBuf,
        n_envs: usize,
        dialect: &str,
        options: Option<HashMap<String, Bound<'_, PyAny>>>,
        precision: &str,
        max_contacts: Option<usize>,
        floating_base: bool,
    ) -> PyResult<GpuScene> {
        let model = model_of(&path, dialect, options, floating_base)?;
        let precision = Precision::parse(precision).ok_or_else(|| {
            SignoriniError::new_err(format!("precision is 'f32' or 'f64', got '{precision}'"))
        })?;
        let ctx = GpuContext::new().map_err(to_py)?;
        let adapter = ctx.description();
        let options = GpuBatchOptions { precision, max_contacts, chunk_envs: None };
        let batch = GpuBatch::new(ctx, model, n_envs, options).map_err(to_py)?;
        Ok(GpuScene { batch: Mutex::new(batch), adapter })
    }

    /// Advances every environment by `steps` steps (the GIL is released meanwhile).
    #[pyo3(signature = (steps=1))]
    fn step(&self, py: Python<'_>, steps: usize) -> PyResult<()> {
        py.detach(|| self.batch().step(steps)).map_err(to_py)
    }

    /// Number of environments.
    #[getter]
    fn n_envs(&self) -> usize {
        self.batch().n_envs()
    }

    /// Number of position coordinates.
    #[getter]
    fn nq(&self) -> usize {
        self.batch().model().multibody.nq
    }

    /// Number of degrees of freedom.
    #[getter]
    fn nv(&self) -> usize {
        self.batch().model().multibody.nv
    }

    /// The adapter's name, driver and backend.
    #[getter]
    fn adapter(&self) -> String {
        self.adapter.clone()
    }

    /// `"f32"` or `"f64"`.
    #[getter]
    fn precision(&self) -> &'static str {
        self.batch().precision().wgsl()
    }

    /// Positions, `(n_envs, nq)`.
    #[getter]
    fn qpos<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.batch().qpos().map_err(to_py)?.into_pyarray(py).into_any())
    }

    /// Velocities, `(n_envs, nv)`.
    #[getter]
    fn qvel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.batch().qvel().map_err(to_py)?.into_pyarray(py).into_any())
    }

    /// Controls, `(n_envs, nu)`.
    #[getter]
    fn ctrl<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.batch().ctrl().map_err(to_py)?.into_pyarray(py).into_any())
    }

    /// Simulated time, `(n_envs,)`, s.
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.batch().time().map_err(to_py)?.into_pyarray(py).into_any())
    }

    /// Gravity of each environment, `(n_envs, 3)`, m/s².
    #[getter]
    fn gravity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.batch().gravity().map_err(to_py)?.into_pyarray(py).into_any())
    }

    /// Sets the selected environments' gravity (`(selected, 3)`, or one row for all selected), kept until
    /// `reset_parameters`.
    #[pyo3(signature = (values, envs=None))]
    fn set_gravity(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, GpuBatch::set_gravity)
    }

    /// Sets the selected environments' positions (`(selected, nq)`, or one row for all selected).
    #[pyo3(signature = (values, envs=None))]
    fn set_qpos(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, GpuBatch::set_qpos)
    }

    /// Sets the selected environments' velocities (`(selected, nv)`, or one row).
    #[pyo3(signature = (values, envs=None))]
    fn set_qvel(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, GpuBatch::set_qvel)
    }

    /// Sets the selected environments' controls (`(selected, nu)`, or one row).
    #[pyo3(signature = (values, envs=None))]
    fn set_ctrl(
        &self,
        values: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_rows(&values, envs, GpuBatch::set_ctrl)
    }

    /// Resets the selected environments (`envs`: None for all, an index, indices or a mask) to the model's initial
    /// state (keyframe 0 when the model has one), keeping their parameters.
    #[pyo3(signature = (envs=None))]
    fn reset(&self, envs: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        self.batch().reset(selection.envs()).map_err(to_py)
    }

    /// Puts the selected environments' parameters (gravity) back to the model's.
    #[pyo3(signature = (envs=None))]
    fn reset_parameters(&self, envs: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        self.batch().reset_parameters(selection.envs()).map_err(to_py)
    }

    /// Contacts of each environment in the last step, `(n_envs,)`.
    fn contact_counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let stats = self.batch().stats().map_err(to_py)?;
        let counts: Vec<i64> = stats.iter().map(|s| s.contacts as i64).collect();
        Ok(counts.into_pyarray(py).into_any())
    }

    /// The contacts of environment `env` in the last step: a dict of `geom_a`, `geom_b` `(n,)`, `position`, `normal`
    /// `(n, 3)` and `penetration` `(n,)`.
    fn contacts<'py>(&self, py: Python<'py>, env: usize) -> PyResult<Bound<'py, PyDict>> {
        let contacts = self.batch().contacts(env).map_err(to_py)?;
        let n = contacts.len();
        let out = PyDict::new(py);
        let ints = |f: &dyn Fn(&signorini_gpu::GpuContact) -> usize| -> Vec<i64> {
            contacts.iter().map(|c| f(c) as i64).collect()
        };
        let vecs = |f: &dyn Fn(&signorini_gpu::GpuContact) -> glam::DVec3| {
            ndarray::Array2::from_shape_fn((n, 3), |(i, k)| f(&contacts[i])[k])
        };
        out.set_item("geom_a", ints(&|c| c.geom_a).into_pyarray(py))?;
        out.set_item("geom_b", ints(&|c| c.geom_b).into_pyarray(py))?;
        out.set_item("position", vecs(&|c| c.position).into_pyarray(py))?;
        out.set_item("normal", vecs(&|c| c.normal).into_pyarray(py))?;
        let pen: Vec<f64> = contacts.iter().map(|c| c.penetration).collect();
        out.set_item("penetration", pen.into_pyarray(py))?;
        Ok(out)
    }
}

impl GpuScene {
    fn batch(&self) -> MutexGuard<'_, GpuBatch> {
        self.batch.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Applies `set` to `values` as one row per selected environment (a 1-D row stands for every one).
    fn set_rows(
        &self,
        values: &PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        envs: Option<&Bound<'_, PyAny>>,
        set: fn(&mut GpuBatch, ndarray::ArrayView2<'_, f64>, Envs<'_>) -> signorini_gpu::Result<()>,
    ) -> PyResult<()> {
        let selection = Selection::from_py(envs)?;
        let mut batch = self.batch();
        let rows = rows_of(values, selection.count(batch.n_envs()))?;
        set(&mut batch, rows.view(), selection.envs()).map_err(to_py)
    }
}
