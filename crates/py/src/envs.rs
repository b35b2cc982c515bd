//! Environment selections and value arrays from Python: `envs=None` (all), an index, a sequence of indices or a
//! boolean mask; values as an `(selected, k)` array, or one row of `k` for every selected environment.

use ndarray::{Array2, Ix1, Ix2};
use numpy::{AllowTypeChange, PyArrayLikeDyn};
use pyo3::prelude::*;
use signorini_sim::Envs;

use crate::error::{SignoriniError, to_py};

/// An owned selection of environments, borrowed as [`Envs`].
#[derive(Debug, Clone)]
pub(crate) enum Selection {
    All,
    Indices(Vec<usize>),
    Mask(Vec<bool>),
}

impl Selection {
    /// The selection `envs` describes.
    pub(crate) fn from_py(envs: Option<&Bound<'_, PyAny>>) -> PyResult<Selection> {
        let Some(envs) = envs else { return Ok(Selection::All) };
        if envs.is_none() {
            return Ok(Selection::All);
        }
        if let Ok(i) = envs.extract::<usize>() {
            return Ok(Selection::Indices(vec![i]));
        }
        if let Ok(mask) = envs.extract::<Vec<bool>>() {
            return Ok(Selection::Mask(mask));
        }
        if let Ok(idx) = envs.extract::<Vec<usize>>() {
            return Ok(Selection::Indices(idx));
        }
        Err(SignoriniError::new_err(
            "envs must be None (all), an environment index, a sequence of indices or a boolean mask",
        ))
    }

    pub(crate) fn envs(&self) -> Envs<'_> {
        match self {
            Selection::All => Envs::All,
            Selection::Indices(i) => Envs::Indices(i),
            Selection::Mask(m) => Envs::Mask(m),
        }
    }

    /// How many environments are selected out of `n_envs` (before the batch checks the selection).
    pub(crate) fn count(&self, n_envs: usize) -> usize {
        match self {
            Selection::All => n_envs,
            Selection::Indices(i) => i.len(),
            Selection::Mask(m) => m.iter().filter(|&&b| b).count(),
        }
    }
}

/// `values` as one row per selected environment: a 2-D array as given, a 1-D array repeated `rows` times.
pub(crate) fn rows_of(
    values: &PyArrayLikeDyn<'_, f64, AllowTypeChange>,
    rows: usize,
) -> PyResult<Array2<f64>> {
    let view = values.as_array();
    match view.ndim() {
        1 => {
            let row = view.into_dimensionality::<Ix1>().map_err(to_py)?;
            Ok(Array2::from_shape_fn((rows, row.len()), |(_, k)| row[k]))
        }
        2 => Ok(view.into_dimensionality::<Ix2>().map_err(to_py)?.to_owned()),
        n => Err(SignoriniError::new_err(format!(
            "values must be one row (1-D) or one row per selected environment (2-D), got {n} dimensions"
        ))),
    }
}
