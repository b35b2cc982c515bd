//! # signorini (Python)
//!
//! The `signorini` Python module: `signorini.Scene` loads an MJCF or URDF file into `n_envs` environments of one
//! model (Genesis's `scene.build(n_envs=N)`), steps them with the GIL released, and reads and writes their state and
//! domain-randomisation parameters as NumPy arrays, environments first; `signorini.distance` and `signorini.collide` expose the Coal-style distance
//! and collision queries on shapes; `signorini.Robot` is a URDF's self-collision model for planners (flags, pair
//! distances, gradients, motion checks, batched); `signorini.GpuScene` steps the environments on a GPU (wgpu) instead. Every Rust error is raised as `signorini.SignoriniError` with its message; no
//! panic crosses into Python.
//!
//! Arrays are copies: each environment's state lives in its own `Data`, so an `(n_envs, ·)` array is gathered.

use pyo3::prelude::*;

mod envs;
mod error;
mod gpu_scene;
mod query;
mod robot;
mod scene;

/// The `signorini` module.
#[pymodule]
fn signorini(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SignoriniError", m.py().get_type::<error::SignoriniError>())?;
    m.add_class::<scene::Scene>()?;
    m.add_class::<scene::State>()?;
    m.add_class::<gpu_scene::GpuScene>()?;
    m.add_class::<query::Shape>()?;
    m.add_class::<robot::Robot>()?;
    m.add_function(wrap_pyfunction!(query::distance, m)?)?;
    m.add_function(wrap_pyfunction!(query::collide, m)?)?;
    Ok(())
}
