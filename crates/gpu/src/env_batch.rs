//! The GPU as a device of the batch API: [`EnvBatch`] for [`GpuBatch`], and [`env_batch`], which builds a batch on
//! the device asked for (the CPU [`Batch`] or a [`GpuBatch`]) behind one `Box<dyn EnvBatch>`. Nothing falls back: a
//! GPU asked for and missing, or a scene the GPU path does not implement, is an error naming it.

use std::sync::Arc;

use ndarray::{Array1, Array2, ArrayView2};
use signorini_sim::{Batch, Device, EnvBatch, Envs, Model, SimError};

use crate::context::GpuContext;
use crate::error::GpuError;
use crate::sim::{GpuBatch, GpuBatchOptions};

type SimResult<T> = signorini_sim::Result<T>;

fn on_gpu(e: GpuError) -> SimError {
    SimError::Device { device: Device::Gpu, source: Box::new(e) }
}

/// `n_envs` environments of `model` on `device`: a [`Batch`] on the CPU, a [`GpuBatch`] with `options` (and a new
/// [`GpuContext`]) on the GPU. Errors: those of the constructors; on the GPU they are [`SimError::Device`] wrapping
/// the [`GpuError`] (no adapter, an unsupported feature, a buffer too large).
pub fn env_batch(
    device: Device,
    model: Arc<Model>,
    n_envs: usize,
    options: GpuBatchOptions,
) -> SimResult<Box<dyn EnvBatch>> {
    Ok(match device {
        Device::Cpu => Box::new(Batch::new(model, n_envs)?),
        Device::Gpu => {
            let ctx = GpuContext::new().map_err(on_gpu)?;
            Box::new(GpuBatch::new(ctx, model, n_envs, options).map_err(on_gpu)?)
        }
    })
}

impl EnvBatch for GpuBatch {
    fn model(&self) -> &Arc<Model> {
        GpuBatch::model(self)
    }

    fn n_envs(&self) -> usize {
        GpuBatch::n_envs(self)
    }

    fn device(&self) -> Device {
        Device::Gpu
    }

    fn step_n(&mut self, steps: usize) -> SimResult<()> {
        self.step(steps).map_err(on_gpu)
    }

    fn qpos(&self) -> SimResult<Array2<f64>> {
        GpuBatch::qpos(self).map_err(on_gpu)
    }

    fn qvel(&self) -> SimResult<Array2<f64>> {
        GpuBatch::qvel(self).map_err(on_gpu)
    }

    fn ctrl(&self) -> SimResult<Array2<f64>> {
        GpuBatch::ctrl(self).map_err(on_gpu)
    }

    fn gravity(&self) -> SimResult<Array2<f64>> {
        GpuBatch::gravity(self).map_err(on_gpu)
    }

    fn time(&self) -> SimResult<Array1<f64>> {
        GpuBatch::time(self).map_err(on_gpu)
    }

    fn contact_counts(&self) -> SimResult<Array1<usize>> {
        Ok(self.stats().map_err(on_gpu)?.iter().map(|s| s.contacts).collect())
    }

    fn set_qpos(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> SimResult<()> {
        GpuBatch::set_qpos(self, values, envs).map_err(on_gpu)
    }

    fn set_qvel(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> SimResult<()> {
        GpuBatch::set_qvel(self, values, envs).map_err(on_gpu)
    }

    fn set_ctrl(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> SimResult<()> {
        GpuBatch::set_ctrl(self, values, envs).map_err(on_gpu)
    }

    fn set_gravity(&mut self, values: ArrayView2<'_, f64>, envs: Envs<'_>) -> SimResult<()> {
        GpuBatch::set_gravity(self, values, envs).map_err(on_gpu)
    }

    fn reset(&mut self, envs: Envs<'_>) -> SimResult<()> {
        GpuBatch::reset(self, envs).map_err(on_gpu)
    }

    fn reset_parameters(&mut self, envs: Envs<'_>) -> SimResult<()> {
        GpuBatch::reset_parameters(self, envs).map_err(on_gpu)
    }
}
