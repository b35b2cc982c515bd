//! `signorini.Robot`: a URDF (and SRDF) as a collision model over joint configurations (`signorini-robot`), for
//! planners. Configurations are a `(nq,)` array or a batch `(n, nq)`; a batch runs in parallel with the GIL released
//! and gives arrays with the configurations first. Conventions (Coal): signed distance (unsigned for triangle
//! meshes), witness points in the world frame, normals from a pair's first geometry to its second.

use std::collections::HashMap;
use std::path::PathBuf;

use ndarray::{Array1, Array2, Array3, ArrayView2};
use numpy::{AllowTypeChange, IntoPyArray, PyArrayLike2, PyArrayLikeDyn};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use signorini_robot::{
    AcmSettings, MeshGeometry, MotionCheck, MotionSettings, PairDistance, RobotModel, RobotOptions,
};

use crate::error::{SignoriniError, to_py};

/// A robot's collision model (see the module docs).
///
/// `Robot(urdf, srdf=None, geometry="hull", joint_names=None, locked_joints=None, package_dirs=None)`: `geometry` is
/// `"hull"` (mesh collision geometry as convex hulls) or `"mesh"` (the triangle meshes); `joint_names` orders `q`
/// (default: every movable joint that is neither locked nor a mimic); `locked_joints` maps joint names to held
/// values; `package_dirs` maps ROS package names to folders for `package://` mesh names.
#[pyclass(module = "signorini", frozen)]
#[derive(Debug)]
pub struct Robot {
    model: RobotModel,
}

/// Configurations from a `(nq,)` or `(n, nq)` array: the rows, and whether the input was one configuration.
fn configurations(q: &PyArrayLikeDyn<'_, f64, AllowTypeChange>) -> PyResult<(Vec<Vec<f64>>, bool)> {
    let view = q.as_array();
    match view.ndim() {
        1 => Ok((vec![view.iter().copied().collect()], true)),
        2 => Ok((view.outer_iter().map(|r| r.iter().copied().collect()).collect(), false)),
        n => Err(SignoriniError::new_err(format!("q must be (nq,) or (n, nq), got {n} dimensions"))),
    }
}

/// `out[name] = array`, or its first row (a view) when the input was one configuration.
fn set_batched(out: &Bound<'_, PyDict>, name: &str, array: Bound<'_, PyAny>, single: bool) -> PyResult<()> {
    if single { out.set_item(name, array.get_item(0)?) } else { out.set_item(name, array) }
}

/// One answer per configuration as a `(n,)` array, or the lone answer when the input was one configuration.
fn batched<'py>(
    py: Python<'py>,
    values: Array1<impl numpy::Element>,
    single: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let array = values.into_pyarray(py).into_any();
    if single { array.get_item(0) } else { Ok(array) }
}

/// Per-configuration pair distances as arrays `(n, pairs, ·)`; NaN witnesses where a pair has none.
fn distance_arrays<'py>(
    py: Python<'py>,
    all: &[Vec<PairDistance>],
    pairs: usize,
    single: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let n = all.len();
    let mut distance = Array2::<f64>::zeros((n, pairs));
    let mut collision = Array2::<bool>::from_elem((n, pairs), false);
    let mut points =
        [Array3::<f64>::from_elem((n, pairs, 3), f64::NAN), Array3::from_elem((n, pairs, 3), f64::NAN)];
    let mut normal = Array3::<f64>::from_elem((n, pairs, 3), f64::NAN);
    for (c, ds) in all.iter().enumerate() {
        for d in ds {
            distance[[c, d.pair]] = d.distance;
            collision[[c, d.pair]] = d.collision;
            if let Some(w) = d.witness {
                for k in 0..3 {
                    points[0][[c, d.pair, k]] = w.point_a[k];
                    points[1][[c, d.pair, k]] = w.point_b[k];
                    normal[[c, d.pair, k]] = w.normal[k];
                }
            }
        }
    }
    let out = PyDict::new(py);
    let [point_a, point_b] = points;
    set_batched(&out, "distance", distance.into_pyarray(py).into_any(), single)?;
    set_batched(&out, "collision", collision.into_pyarray(py).into_any(), single)?;
    set_batched(&out, "point_a", point_a.into_pyarray(py).into_any(), single)?;
    set_batched(&out, "point_b", point_b.into_pyarray(py).into_any(), single)?;
    set_batched(&out, "normal", normal.into_pyarray(py).into_any(), single)?;
    Ok(out)
}

#[pymethods]
impl Robot {
    #[new]
    #[pyo3(signature = (urdf, srdf=None, geometry="hull", joint_names=None, locked_joints=None, package_dirs=None))]
    fn new(
        urdf: PathBuf,
        srdf: Option<PathBuf>,
        geometry: &str,
        joint_names: Option<Vec<String>>,
        locked_joints: Option<HashMap<String, f64>>,
        package_dirs: Option<HashMap<String, PathBuf>>,
    ) -> PyResult<Robot> {
        let geometry = match geometry {
            "hull" => MeshGeometry::ConvexHull,
            "mesh" => MeshGeometry::TriangleMesh,
            other => {
                return Err(SignoriniError::new_err(format!(
                    "geometry must be \"hull\" or \"mesh\", got {other:?}"
                )));
            }
        };
        let mut locked: Vec<(String, f64)> = locked_joints.unwrap_or_default().into_iter().collect();
        locked.sort_by(|a, b| a.0.cmp(&b.0));
        let mut package_dirs: Vec<(String, PathBuf)> = package_dirs.unwrap_or_default().into_iter().collect();
        package_dirs.sort();
        let options = RobotOptions { geometry, package_dirs, joint_names, locked_joints: locked };
        let model = RobotModel::from_files(&urdf, srdf.as_deref(), &options).map_err(to_py)?;
        Ok(Robot { model })
    }

    /// The joints of `q`, in order.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.model.joint_names().to_vec()
    }

    /// `(nq, 2)` lower and upper limits of `q`.
    #[getter]
    fn joint_limits<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let l = self.model.joint_limits();
        Array2::from_shape_fn((l.len(), 2), |(i, k)| l[i][k]).into_pyarray(py).into_any()
    }

    /// Collision geometry names, `<link>_<k>`, in URDF order.
    #[getter]
    fn geometry_names(&self) -> Vec<String> {
        self.model.geoms().iter().map(|g| g.name.clone()).collect()
    }

    /// The enabled pairs as `(pairs, 2)` geometry indices.
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        let p = self.model.pairs();
        Array2::from_shape_fn((p.len(), 2), |(i, k)| p[i][k] as i64).into_pyarray(py).into_any()
    }

    /// Whether each configuration is in self-collision: a bool, or a `(n,)` bool array for a batch.
    fn is_colliding<'py>(
        &self,
        py: Python<'py>,
        q: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (qs, single) = configurations(&q)?;
        let flags = py.detach(|| self.model.batch_is_colliding(&qs)).map_err(to_py)?;
        batched(py, Array1::from(flags), single)
    }

    /// Every enabled pair's answer: a dict of arrays `distance` `(·, pairs)`, `collision`, `point_a`, `point_b`,
    /// `normal` `(·, pairs, 3)` (NaN where a crossing triangle-mesh pair has no witness) and, with `gradients=True`,
    /// `grad` `(·, pairs, nq)` (∂distance/∂q; NaN rows likewise).
    #[pyo3(signature = (q, gradients=false))]
    fn distances<'py>(
        &self,
        py: Python<'py>,
        q: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
        gradients: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (qs, single) = configurations(&q)?;
        let answers = py.detach(|| self.model.batch_distance_gradients(&qs)).map_err(to_py)?;
        let pairs = self.model.pairs().len();
        let dists: Vec<Vec<PairDistance>> = answers.iter().map(|(d, _)| d.clone()).collect();
        let out = distance_arrays(py, &dists, pairs, single)?;
        if gradients {
            let nq = self.model.nq();
            let mut grad = Array3::<f64>::zeros((answers.len(), pairs, nq));
            for (c, (_, g)) in answers.iter().enumerate() {
                for p in 0..pairs {
                    for v in 0..nq {
                        grad[[c, p, v]] = g[p * nq + v];
                    }
                }
            }
            set_batched(&out, "grad", grad.into_pyarray(py).into_any(), single)?;
        }
        Ok(out)
    }

    /// The smallest pair distance of each configuration (`inf` when no pair is enabled): a float or `(n,)`.
    fn min_distance<'py>(
        &self,
        py: Python<'py>,
        q: PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (qs, single) = configurations(&q)?;
        let mins = py.detach(|| self.model.batch_min_distance(&qs)).map_err(to_py)?;
        let values: Vec<f64> = mins.iter().map(|m| m.map_or(f64::INFINITY, |d| d.distance)).collect();
        batched(py, Array1::from(values), single)
    }

    /// Whether the straight joint-space motions from each row of `q0` to the same row of `q1` are free (conservative
    /// advancement): a dict of arrays `free` (bool), `fraction` (the first colliding fraction, NaN when free) and
    /// `pair` (its pair index, −1 when free).
    #[pyo3(signature = (q0, q1, tolerance=1e-6))]
    fn check_motion<'py>(
        &self,
        py: Python<'py>,
        q0: PyArrayLike2<'_, f64, AllowTypeChange>,
        q1: PyArrayLike2<'_, f64, AllowTypeChange>,
        tolerance: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let rows = |a: ArrayView2<'_, f64>| -> Vec<Vec<f64>> { a.outer_iter().map(|r| r.to_vec()).collect() };
        let (a, b) = (rows(q0.as_array()), rows(q1.as_array()));
        if a.len() != b.len() {
            return Err(SignoriniError::new_err(format!("q0 has {} rows and q1 {}", a.len(), b.len())));
        }
        let segments: Vec<(Vec<f64>, Vec<f64>)> = a.into_iter().zip(b).collect();
        let settings = MotionSettings { tolerance, ..MotionSettings::default() };
        let answers = py.detach(|| self.model.batch_check_motion(&segments, &settings)).map_err(to_py)?;
        let (mut free, mut fraction, mut pair) = (Vec::new(), Vec::new(), Vec::new());
        for a in answers {
            let (f, t, p) = match a {
                MotionCheck::Free { .. } => (true, f64::NAN, -1),
                MotionCheck::Collision { fraction, pair, .. } => (false, fraction, pair as i64),
                MotionCheck::Undecided { certified } => {
                    return Err(SignoriniError::new_err(format!(
                        "a motion stayed undecided after the measurement budget (free up to {certified})"
                    )));
                }
            };
            free.push(f);
            fraction.push(t);
            pair.push(p);
        }
        let out = PyDict::new(py);
        out.set_item("free", Array1::from(free).into_pyarray(py))?;
        out.set_item("fraction", Array1::from(fraction).into_pyarray(py))?;
        out.set_item("pair", Array1::from(pair).into_pyarray(py))?;
        Ok(out)
    }

    /// The allowed-collision matrix from `samples` configurations (MoveIt's setup-assistant rules) as SRDF text.
    #[pyo3(signature = (samples=10_000, seed=0))]
    fn generate_acm(&self, py: Python<'_>, samples: usize, seed: u64) -> PyResult<String> {
        let settings = AcmSettings { samples, seed, ..AcmSettings::default() };
        let generation = py.detach(|| self.model.generate_acm(&settings)).map_err(to_py)?;
        Ok(self.model.acm_srdf(&generation))
    }

    fn __repr__(&self) -> String {
        format!(
            "signorini.Robot({}, nq={}, geometries={}, pairs={})",
            self.model.name(),
            self.model.nq(),
            self.model.geoms().len(),
            self.model.pairs().len()
        )
    }
}
