//! `signorini run SCENE.xml --envs N --device gpu [--gpu-precision f32|f64] [--gpu-max-contacts C]`: N copies of the
//! scene stepped on the GPU ([`GpuBatch`]). Prints a one-line JSON summary
//! `{scene, device, adapter, precision, envs, steps, env_steps_per_second, mean_contacts, max_solver_iterations}`.
//! No adapter, or a scene using something the GPU path does not implement, is an error naming it; nothing falls back
//! to the CPU.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use signorini_gpu::{GpuBatch, GpuBatchOptions, GpuContext, Precision};
use signorini_sim::{Envs, Model};

use crate::error::CliError;
use crate::run::RunArgs;

#[derive(Serialize)]
struct GpuSummary<'a> {
    scene: &'a str,
    device: &'static str,
    adapter: String,
    precision: &'static str,
    envs: usize,
    steps: u64,
    env_steps_per_second: f64,
    /// Contacts per environment, averaged over the environments and over the read-back points (every chunk of
    /// steps).
    mean_contacts: f64,
    max_solver_iterations: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
}

/// Runs the batch on the GPU (see the module docs).
pub fn run(
    args: &RunArgs,
    n_envs: usize,
    model: Arc<Model>,
    label: &str,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let gpu = |e: signorini_gpu::GpuError| CliError::Scene(format!("--device gpu: {e}"));
    let precision = Precision::parse(&args.gpu_precision).ok_or_else(|| {
        CliError::Usage(format!("--gpu-precision is f32 or f64, got '{}'", args.gpu_precision))
    })?;
    let ctx = GpuContext::new().map_err(gpu)?;
    let options = GpuBatchOptions { precision, max_contacts: args.gpu_max_contacts, chunk_envs: None };
    let mut batch = GpuBatch::new(Arc::clone(&ctx), model, n_envs, options).map_err(gpu)?;
    if args.perturb > 0.0 {
        let mut noise = crate::run_batch::Normal::new(args.seed);
        let mut qvel = batch.qvel().map_err(gpu)?;
        qvel.iter_mut().for_each(|v| *v += args.perturb * noise.sample());
        batch.set_qvel(qvel.view(), Envs::All).map_err(gpu)?;
    } else if !(args.perturb >= 0.0 && args.perturb.is_finite()) {
        return Err(CliError::Usage(format!("--perturb must be finite and ≥ 0, got {}", args.perturb)));
    }
    const CHUNK: u64 = 64;
    let (mut done, mut stepping, mut contacts, mut samples, mut max_iter) = (0u64, 0.0, 0.0, 0usize, 0usize);
    while done < args.steps && !crate::interrupt::requested() {
        let n = CHUNK.min(args.steps - done);
        let t = Instant::now();
        batch
            .step(n as usize)
            .map_err(|e| CliError::Scene(format!("steps {}–{}: {e}", done + 1, done + n)))?;
        stepping += t.elapsed().as_secs_f64();
        done += n;
        let stats = batch.stats().map_err(gpu)?;
        contacts += stats.iter().map(|s| s.contacts as f64).sum::<f64>() / n_envs as f64;
        max_iter = max_iter.max(stats.iter().map(|s| s.solver_iterations).max().unwrap_or(0));
        samples += 1;
    }
    let interrupted = done < args.steps;
    let summary = GpuSummary {
        scene: label,
        device: "gpu",
        adapter: ctx.description(),
        precision: precision.wgsl(),
        envs: n_envs,
        steps: done,
        env_steps_per_second: if stepping > 0.0 { done as f64 * n_envs as f64 / stepping } else { 0.0 },
        mean_contacts: if samples > 0 { contacts / samples as f64 } else { 0.0 },
        max_solver_iterations: max_iter,
        interrupted,
    };
    crate::query::write_json(out, &summary)?;
    if interrupted { Err(CliError::Interrupted { step: done }) } else { Ok(()) }
}
