//! [`EnvBatch`]: the interface every batch backend offers, so that the device is chosen once and the code that steps,
//! reads and resets environments does not ask which one it has: the CPU [`Batch`] here, `signorini_gpu::GpuBatch`
//! on a GPU (`Box<dyn EnvBatch>` holds either).
//!
//! Arrays have environments first, SI units, quaternions `w, x, y, z`. Setters take one row per selected environment
//! ([`Envs`]), in selection order, and write nothing when any row is invalid. Errors of a device backend arrive as
//! [`SimError::Device`](crate::SimError::Device), whose source is the backend's own typed error.

use std::sync::Arc;

use ndarray::{Array1, Array2, ArrayView2};

use crate::batch::{Batch, Envs};
use crate::error::Result;
use crate::model::Model;

/// Where a batch is stepped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    /// The f64 CPU path, parallel over environments (`rayon`).
    Cpu,
    /// A GPU through `wgpu` (`signorini-gpu`).
    Gpu,
}

/// Many environments of one [`Model`], on some device (see the module docs).
pub trait EnvBatch: Send {
    /// The shared model.
    fn model(&self) -> &Arc<Model>;
    /// Number of environments.
    fn n_envs(&self) -> usize;
    /// Where the environments are stepped.
    fn device(&self) -> Device;
    /// Advances every environment by `steps` steps.
    fn step_n(&mut self, steps: usize) -> Result<()>;
    /// Positions, `n_envs × nq`.
    fn qpos(&self) -> Result<Array2<f64>>;
    /// Velocities, `n_envs × nv`.
    fn qvel(&self) -> Result<Array2<f64>>;
    /// Controls, `n_envs × nu`.
    fn ctrl(&self) -> Result<Array2<f64>>;
    /// Gravity of each environment, `n_envs × 3`, m/s², world frame.
    fn gravity(&self) -> Result<Array2<f64>>;
    /// Simulated time of each environment, s.
    fn time(&self) -> Result<Array1<f64>>;
    /// Contacts of each environment found in its last step.
    fn contact_counts(&self) -> Result<Array1<usize>>;
    /// Sets the positions of the selected environments (`selected × nq`).
    fn set_qpos(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()>;
    /// Sets the velocities of the selected environments (`selected × nv`).
    fn set_qvel(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()>;
    /// Sets the controls of the selected environments (`selected × nu`).
    fn set_ctrl(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()>;
    /// Sets the gravity of the selected environments (`selected × 3`), a per-environment parameter.
    fn set_gravity(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()>;
    /// The selected environments back to the model's initial state (keyframe 0 when the model has one, else
    /// `qpos0`; zero velocity, control and time), keeping their parameters.
    fn reset(&mut self, envs: Envs<'_>) -> Result<()>;
    /// The selected environments' per-environment parameters (gravity, …) back to the model's.
    fn reset_parameters(&mut self, envs: Envs<'_>) -> Result<()>;
}

impl EnvBatch for Batch {
    fn model(&self) -> &Arc<Model> {
        Batch::model(self)
    }

    fn n_envs(&self) -> usize {
        Batch::n_envs(self)
    }

    fn device(&self) -> Device {
        Device::Cpu
    }

    fn step_n(&mut self, steps: usize) -> Result<()> {
        self.step_n_with(steps, &mut vec![(); Batch::n_envs(self)], |_, _, _| {})
    }

    fn qpos(&self) -> Result<Array2<f64>> {
        Ok(Batch::qpos(self))
    }

    fn qvel(&self) -> Result<Array2<f64>> {
        Ok(Batch::qvel(self))
    }

    fn ctrl(&self) -> Result<Array2<f64>> {
        Ok(Batch::ctrl(self))
    }

    fn gravity(&self) -> Result<Array2<f64>> {
        Ok(Batch::gravity(self))
    }

    fn time(&self) -> Result<Array1<f64>> {
        Ok(Batch::time(self))
    }

    fn contact_counts(&self) -> Result<Array1<usize>> {
        Ok(Batch::contacts(self).count)
    }

    fn set_qpos(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        Batch::set_qpos(self, values, envs)
    }

    fn set_qvel(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        Batch::set_qvel(self, values, envs)
    }

    fn set_ctrl(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        Batch::set_ctrl(self, values, envs)
    }

    fn set_gravity(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        Batch::set_gravity(self, values, envs)
    }

    fn reset(&mut self, envs: Envs<'_>) -> Result<()> {
        Batch::reset(self, envs)
    }

    fn reset_parameters(&mut self, envs: Envs<'_>) -> Result<()> {
        Batch::reset_parameters(self, envs)
    }
}
