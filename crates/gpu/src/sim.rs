//! [`GpuBatch`]: many environments of one [`Model`] stepped on the GPU by `shaders/sim.wgsl`, one invocation per
//! environment. The state (`qpos`, `qvel`, the warm-start `qacc`, time) stays on the device between steps;
//! read-back is explicit and batched (arrays with environments first, as [`signorini_sim::Batch`]).
//!
//! Each stage is one dispatch, the narrow phase one per 128 candidate pairs: Mesa's llvmpipe (lavapipe, the CPU adapter
//! the tests run on) ends every loop of an invocation once it has run 65 535 loop iterations in all, which the narrow
//! phase of the 55-box pyramid reached in one dispatch. The narrow phase's and pruning's loops check that they ran to
//! their end: one the device ended early fails the step ([`GpuError::Invalid`] naming it) instead of dropping pairs or
//! contacts.
//!
//! Environments are split into chunks that each fit the adapter's largest storage binding (one set of buffers and
//! bind groups per chunk, one pipeline for all), so the batch size is bounded by device memory, not by one binding.
//!
//! What the GPU path implements (anything else is [`GpuError::Unsupported`], naming it, at construction): the native
//! dialect (MuJoCo's own pair routines are not ported); free, hinge and slide joints; joint actuators (gain, bias,
//! ctrl and force ranges, gear; their velocity gain enters the implicit mass matrix as the damping does); plane,
//! sphere, capsule and box geoms with every pair among them as the CPU's native table has it (closed forms, the
//! clipped box–box manifold, Genesis 1.4.5's analytic capsule–capsule with its tilts about the default axes, and its
//! MPR for capsule–box, `shaders/mpr.wgsl` and `capsule_box.wgsl`: warm-started from each pair's normal of the previous
//! step, kept in the state with the warm-start `qacc`; deep contacts by the exact signed distance; the same tilts),
//! contact pruning to each link pair's support polygon (`shaders/prune.wgsl`); pyramidal contacts of condim 1 or 3 and joint limits with the soft-constraint model
//! of spec §B; dof damping (approximate_implicitfast), armature and joint springs; the primal CG solver with an exact
//! line search and the model's iteration budget; gravity per environment; per-environment reset and setters on any
//! selection of environments ([`Envs`]), and [`signorini_sim::EnvBatch`] (the batch API's device seam). Not yet:
//! equality constraints, friction loss, the elliptic cone, the other per-environment parameters of `Batch`.
//!
//! **Precision.** f32 by default, where results differ from the f64 CPU path (`tests/sim.rs`, 500 steps, lavapipe,
//! 2026-12-07): body positions by 2.2e-8 m (sphere_drop), 1.6e-6 m (box_stack) and 3.3e-5 m (pyramid), with equal
//! contact counts; simulated time by the f32 sum of the steps (3e-6 s after 400 steps of 2 ms). The f32 kernels clip
//! box–box faces with a slack of 1e-3 × the largest half extent (f64 and the CPU: 1e-5), so that f32 rounding does
//! not split the corners of flush faces, and prune with Genesis's f32 rounding length `√(EPS r²)`, `EPS` the f32
//! machine epsilon (three nearly collinear contacts may be taken for a segment where f64 keeps all three).
//! [`Precision::F64`] agrees to 1.8e-14 m on sphere_drop and 2.8e-8 m on box_stack; on the pyramid (3.3e-5 m) the
//! difference is the device's CG against the scene's Newton solver on the CPU.

use std::sync::Arc;

use glam::DVec3;
use ndarray::{Array1, Array2, ArrayView2};
use signorini_sim::{Data, Envs, Model};

use crate::context::{GpuContext, Precision, pack_u32, unpack_u32};
use crate::error::{GpuError, Result};
use crate::sim_layout::{PAIR_CHUNK, SimLayout};

const SOURCE: &str = include_str!("../../../shaders/sim.wgsl");
const MPR_SOURCE: &str = include_str!("../../../shaders/mpr.wgsl");
const CAPSULE_BOX_SOURCE: &str = include_str!("../../../shaders/capsule_box.wgsl");
const PRUNE_SOURCE: &str = include_str!("../../../shaders/prune.wgsl");
const WORKGROUP: u32 = 64;
/// The stages of one step, in order (one dispatch each; the narrow phase one per chunk of pairs, the solver one per
/// iteration), then the step counter.
const ENTRIES: [&str; 9] = [
    "k_forward",
    "k_collide_start",
    "k_collide",
    "k_prune",
    "k_assemble",
    "k_solve_start",
    "k_solve_iteration",
    "k_integrate",
    "k_count",
];
const STATUS: usize = 8;

/// Options of a [`GpuBatch`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GpuBatchOptions {
    /// Device arithmetic.
    pub precision: Precision,
    /// Contacts per environment (`None`: bounded from the candidate pairs, at most 16 per geom). A step that needs
    /// more fails with [`GpuError::Capacity`] naming this option; nothing is dropped silently.
    pub max_contacts: Option<usize>,
    /// Environments per chunk (`None`: as many as the adapter's largest storage binding holds). Results do not
    /// depend on it.
    pub chunk_envs: Option<usize>,
}

/// One contact of one environment, read back (simulator convention: `normal` from geom B to geom A, world frame,
/// `penetration > 0`, SI units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuContact {
    pub geom_a: usize,
    pub geom_b: usize,
    pub position: DVec3,
    pub normal: DVec3,
    pub penetration: f64,
}

/// Per-environment counters of the last step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuEnvStats {
    pub contacts: usize,
    pub rows: usize,
    pub solver_iterations: usize,
    pub steps: usize,
}

/// One chunk of environments: its buffers and bind groups.
#[derive(Debug)]
struct Chunk {
    /// First environment of the chunk (batch index).
    first: usize,
    n_envs: usize,
    state: wgpu::Buffer,
    work: wgpu::Buffer,
    iwork: wgpu::Buffer,
    status: wgpu::Buffer,
    binds: Vec<wgpu::BindGroup>,
}

/// A batch of environments on the GPU (see the module docs).
#[derive(Debug)]
pub struct GpuBatch {
    ctx: Arc<GpuContext>,
    model: Arc<Model>,
    layout: SimLayout,
    options: GpuBatchOptions,
    n_envs: usize,
    /// The stages of [`ENTRIES`], in order.
    pipelines: Vec<wgpu::ComputePipeline>,
    chunks: Vec<Chunk>,
    substeps: usize,
    /// The solver's iteration budget: one dispatch each.
    iterations: usize,
    /// One environment's initial state (qpos, qvel, warm start, time, ctrl, gravity, no warm-start normals).
    initial: Vec<f64>,
}

impl GpuBatch {
    /// `n_envs ≥ 1` environments of `model`, all at the model's initial state.
    pub fn new(
        ctx: Arc<GpuContext>,
        model: Arc<Model>,
        n_envs: usize,
        options: GpuBatchOptions,
    ) -> Result<GpuBatch> {
        if n_envs == 0 {
            return Err(GpuError::Invalid("n_envs must be ≥ 1".into()));
        }
        let p = options.precision;
        // Mesa's llvmpipe/lavapipe ends every loop of an invocation after 65 535 loop iterations in total; the line
        // search is bounded to stay well below that there.
        let loop_budget = ctx.is_llvmpipe().then_some(30_000);
        let layout = SimLayout::new(&model, options.max_contacts, p, loop_budget)?;
        let per_env = [
            ("the state buffer", layout.state_stride * p.size()),
            ("the work buffer", layout.work_stride * p.size()),
            ("the integer work buffer", layout.iwork_stride * 4),
        ];
        let limit = ctx.max_buffer();
        let mut chunk_envs = (ctx.max_workgroups() as usize).saturating_mul(WORKGROUP as usize);
        if let Some(n) = options.chunk_envs {
            if n == 0 {
                return Err(GpuError::Invalid("chunk_envs must be ≥ 1".into()));
            }
            chunk_envs = chunk_envs.min(n);
        }
        for (what, bytes) in per_env {
            if bytes as u64 > limit {
                return Err(GpuError::TooLarge { what, bytes: bytes as u64, limit });
            }
            chunk_envs = chunk_envs.min((limit / bytes.max(1) as u64) as usize);
        }
        let source = format!(
            "const WORKGROUP: u32 = {WORKGROUP}u;\n{}\n{SOURCE}\n{MPR_SOURCE}\n{CAPSULE_BOX_SOURCE}\n{PRUNE_SOURCE}",
            layout.header
        );
        let read_only = [true, true, false, false, false, false];
        let pipelines = ctx.compile_shared("sim.wgsl", &source, p, &ENTRIES, &read_only)?;

        let data = Data::new(&model).map_err(|e| GpuError::Invalid(e.to_string()))?;
        let mut initial = Vec::with_capacity(layout.state_stride);
        initial.extend(&data.multibody.qpos);
        initial.extend(&data.multibody.qvel);
        initial.extend(std::iter::repeat_n(0.0, layout.nv));
        initial.push(data.multibody.time);
        initial.extend(&data.multibody.ctrl);
        initial.extend(data.multibody.gravity.to_array());
        initial.resize(layout.state_stride, 0.0);

        let mf = ctx.storage("model reals", &p.pack(&layout.mf))?;
        let mu = ctx.storage("model integers", &pack_u32(&layout.mu))?;
        let mut chunks = Vec::new();
        let mut first = 0;
        while first < n_envs {
            let n = chunk_envs.min(n_envs - first);
            let state_host: Vec<f64> = (0..n).flat_map(|_| initial.iter().copied()).collect();
            let state = ctx.storage("state", &p.pack(&state_host))?;
            let work = ctx.storage("work", &vec![0u8; n * layout.work_stride * p.size()])?;
            let iwork = ctx.storage("integer work", &vec![0u8; n * layout.iwork_stride * 4])?;
            let status = ctx.storage("status", &vec![0u8; n * STATUS * 4])?;
            let binds = pipelines
                .iter()
                .map(|pl| ctx.bind(pl, &[&mf, &mu, &state, &work, &iwork, &status]))
                .collect();
            chunks.push(Chunk { first, n_envs: n, state, work, iwork, status, binds });
            first += n;
        }
        ctx.wait()?;
        let substeps = model.options.substeps;
        let iterations = model.solver_options().iterations.max(1);
        Ok(GpuBatch { ctx, model, layout, options, n_envs, pipelines, chunks, substeps, iterations, initial })
    }

    /// The shared model.
    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    /// Number of environments.
    pub fn n_envs(&self) -> usize {
        self.n_envs
    }

    /// Number of chunks the environments are split into (see the module docs).
    pub fn n_chunks(&self) -> usize {
        self.chunks.len()
    }

    /// The device arithmetic.
    pub fn precision(&self) -> Precision {
        self.options.precision
    }

    /// The device.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// Contacts per environment this batch was built with.
    pub fn max_contacts(&self) -> usize {
        self.layout.max_contacts
    }

    /// Advances every environment by `n` steps (one dispatch per stage and chunk, submitted together), then checks
    /// every environment's status: a contact or row budget overflow is [`GpuError::Capacity`], a singular mass
    /// matrix or a non-finite state is [`GpuError::Invalid`] naming the environment.
    pub fn step(&mut self, n: usize) -> Result<()> {
        // The narrow phase takes one dispatch per chunk of pairs (shaders/sim.wgsl `collide_chunk`).
        let chunks_of_pairs = self.layout.pairs.len().div_ceil(PAIR_CHUNK);
        let mut stages =
            Vec::with_capacity(n * (self.substeps * (6 + chunks_of_pairs + self.iterations) + 1));
        for _ in 0..n {
            for _ in 0..self.substeps {
                stages.extend([0, 1]);
                stages.extend(std::iter::repeat_n(2, chunks_of_pairs));
                stages.extend(3..6);
                stages.extend(std::iter::repeat_n(6, self.iterations));
                stages.push(7);
            }
            stages.push(8);
        }
        let (pipelines, chunks) = (&self.pipelines, &self.chunks);
        let mut dispatches = Vec::with_capacity(stages.len() * chunks.len());
        for &k in &stages {
            for c in chunks {
                dispatches.push((&pipelines[k], &c.binds[k], (c.n_envs as u32).div_ceil(WORKGROUP)));
            }
        }
        for batch in dispatches.chunks(1024) {
            self.ctx.run(batch);
        }
        self.ctx.wait()?;
        self.check()
    }

    fn raw_status(&self) -> Result<Vec<u32>> {
        let mut all = Vec::with_capacity(self.n_envs * STATUS);
        for c in &self.chunks {
            all.extend_from_slice(&unpack_u32(&self.ctx.read(&c.status)?)[..c.n_envs * STATUS]);
        }
        Ok(all)
    }

    fn check(&self) -> Result<()> {
        let status = self.raw_status()?;
        for (env, s) in status.chunks_exact(STATUS).enumerate() {
            let flags = s[0];
            if flags & 1 != 0 {
                return Err(GpuError::Capacity {
                    what: "contacts in one environment",
                    needed: s[1] as usize,
                    capacity: self.layout.max_contacts,
                    option: "GpuBatchOptions::max_contacts (--gpu-max-contacts)",
                });
            }
            if flags & 2 != 0 {
                return Err(GpuError::Capacity {
                    what: "constraint rows in one environment",
                    needed: self.layout.max_rows + 1,
                    capacity: self.layout.max_rows,
                    option: "GpuBatchOptions::max_contacts (--gpu-max-contacts)",
                });
            }
            if flags & 8 != 0 {
                return Err(GpuError::Invalid(format!(
                    "environment {env}: the device ended a loop early at step {} (Mesa's llvmpipe stops the loops of \
                     an invocation after 65 535 iterations in all); the scene is too large for this adapter",
                    s[5] + 1
                )));
            }
            if flags & 4 != 0 {
                return Err(GpuError::Invalid(format!(
                    "environment {env}: the state became non-finite or the mass matrix singular at step {}",
                    s[5] + 1
                )));
            }
        }
        Ok(())
    }

    /// Per-environment counters of the last step.
    pub fn stats(&self) -> Result<Vec<GpuEnvStats>> {
        Ok(self
            .raw_status()?
            .chunks_exact(STATUS)
            .map(|s| GpuEnvStats {
                contacts: s[2] as usize,
                rows: s[3] as usize,
                solver_iterations: s[4] as usize,
                steps: s[5] as usize,
            })
            .collect())
    }

    /// Every environment's state slice, concatenated.
    fn read_state(&self) -> Result<Vec<f64>> {
        let p = self.options.precision;
        let mut all = Vec::with_capacity(self.n_envs * self.layout.state_stride);
        for c in &self.chunks {
            all.extend_from_slice(
                &p.unpack(&self.ctx.read(&c.state)?)[..c.n_envs * self.layout.state_stride],
            );
        }
        Ok(all)
    }

    /// Writes every environment's state slice back, and clears the status (failures, counters) of the `written`
    /// environments only: the others keep their last step's statistics.
    fn write_state(&self, all: &[f64], written: &[usize]) -> Result<()> {
        let stride = self.layout.state_stride;
        let mut status = self.raw_status()?;
        for &e in written {
            status[e * STATUS..(e + 1) * STATUS].fill(0);
        }
        for c in &self.chunks {
            let slice = &all[c.first * stride..(c.first + c.n_envs) * stride];
            self.ctx.write(&c.state, &self.options.precision.pack(slice));
            self.ctx.write(&c.status, &pack_u32(&status[c.first * STATUS..(c.first + c.n_envs) * STATUS]));
        }
        Ok(())
    }

    fn column_block(&self, start: usize, len: usize) -> Result<Array2<f64>> {
        let s = self.read_state()?;
        let stride = self.layout.state_stride;
        Ok(Array2::from_shape_fn((self.n_envs, len), |(e, i)| s[e * stride + start + i]))
    }

    /// Positions, `(n_envs, nq)` (quaternions `w, x, y, z`).
    pub fn qpos(&self) -> Result<Array2<f64>> {
        self.column_block(0, self.layout.nq)
    }

    /// Velocities, `(n_envs, nv)`.
    pub fn qvel(&self) -> Result<Array2<f64>> {
        self.column_block(self.layout.nq, self.layout.nv)
    }

    /// Controls, `(n_envs, nu)`.
    pub fn ctrl(&self) -> Result<Array2<f64>> {
        self.column_block(self.ctrl_at(), self.layout.nu)
    }

    fn ctrl_at(&self) -> usize {
        self.layout.nq + 2 * self.layout.nv + 1
    }

    /// Gravity of each environment, `(n_envs, 3)`, m/s² (world frame).
    pub fn gravity(&self) -> Result<Array2<f64>> {
        self.column_block(self.gravity_at(), 3)
    }

    fn gravity_at(&self) -> usize {
        self.ctrl_at() + self.layout.nu
    }

    /// Simulated time of each environment, s.
    pub fn time(&self) -> Result<Array1<f64>> {
        Ok(self.column_block(self.layout.nq + 2 * self.layout.nv, 1)?.column(0).to_owned())
    }

    /// The selected environments, checked ([`Envs::select`]).
    fn select(&self, envs: Envs<'_>) -> Result<Vec<usize>> {
        envs.select(self.n_envs).map_err(|e| GpuError::Invalid(e.to_string()))
    }

    /// Writes `values` (one row per selected environment) into columns `start..start + len` of the state; nothing is
    /// written when the shape or a value is invalid.
    fn write_rows(
        &mut self,
        start: usize,
        len: usize,
        values: ArrayView2<'_, f64>,
        envs: Envs<'_>,
        name: &str,
    ) -> Result<()> {
        let selected = self.select(envs)?;
        if values.dim() != (selected.len(), len) {
            return Err(GpuError::Invalid(format!(
                "{name} has shape {:?}, the selection needs ({}, {len})",
                values.dim(),
                selected.len()
            )));
        }
        if let Some((row, bad)) = values.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return Err(GpuError::Invalid(format!(
                "environment {}: {name} contains the non-finite value {bad}",
                selected[row.0]
            )));
        }
        let mut s = self.read_state()?;
        let stride = self.layout.state_stride;
        let (nq, nv) = (self.layout.nq, self.layout.nv);
        for (row, &e) in selected.iter().enumerate() {
            for i in 0..len {
                s[e * stride + start + i] = values[[row, i]];
            }
            // A new state invalidates the warm start (controls and parameters do not).
            if start < nq + nv {
                s[e * stride + nq + nv..e * stride + nq + 2 * nv].fill(0.0);
            }
        }
        self.write_state(&s, &selected)
    }

    /// Sets the positions of the selected environments, `(selected, nq)`; clears their failures and counters.
    pub fn set_qpos(&mut self, qpos: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        self.write_rows(0, self.layout.nq, qpos, envs, "qpos")
    }

    /// Sets the velocities of the selected environments, `(selected, nv)`; clears their failures and counters.
    pub fn set_qvel(&mut self, qvel: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        self.write_rows(self.layout.nq, self.layout.nv, qvel, envs, "qvel")
    }

    /// Sets the controls of the selected environments, `(selected, nu)` (clamped to each actuator's ctrlrange when
    /// applied).
    pub fn set_ctrl(&mut self, ctrl: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        self.write_rows(self.ctrl_at(), self.layout.nu, ctrl, envs, "ctrl")
    }

    /// Sets the gravity of the selected environments, `(selected, 3)` m/s², a per-environment parameter (kept by
    /// the state setters and [`GpuBatch::reset`]; [`GpuBatch::reset_parameters`] restores the model's).
    pub fn set_gravity(&mut self, gravity: ArrayView2<'_, f64>, envs: Envs<'_>) -> Result<()> {
        if gravity.iter().any(|g| g.abs() > signorini_geometry::MAX_COORDINATE) {
            return Err(GpuError::Invalid(format!(
                "gravity components must be within ±{:e} m/s²",
                signorini_geometry::MAX_COORDINATE
            )));
        }
        self.write_rows(self.gravity_at(), 3, gravity, envs, "gravity")
    }

    /// The selected environments back to the model's initial state (keyframe 0 when the model has one, else
    /// `qpos0`; zero velocity, warm start, time and control), keeping their parameters; clears their failures and counters.
    pub fn reset(&mut self, envs: Envs<'_>) -> Result<()> {
        let (state, normals) = (self.gravity_at(), self.layout.normal_cache_at);
        self.copy_initial(envs, &[0..state, normals..self.layout.state_stride])
    }

    /// The selected environments' parameters (gravity) back to the model's.
    pub fn reset_parameters(&mut self, envs: Envs<'_>) -> Result<()> {
        let at = self.gravity_at();
        self.copy_initial(envs, std::slice::from_ref(&(at..at + 3)))
    }

    fn copy_initial(&mut self, envs: Envs<'_>, columns: &[std::ops::Range<usize>]) -> Result<()> {
        let selected = self.select(envs)?;
        let mut s = self.read_state()?;
        let stride = self.layout.state_stride;
        for &e in &selected {
            for c in columns {
                s[e * stride + c.start..e * stride + c.end].copy_from_slice(&self.initial[c.clone()]);
            }
        }
        self.write_state(&s, &selected)
    }

    /// The contacts of environment `env` found in the last step.
    pub fn contacts(&self, env: usize) -> Result<Vec<GpuContact>> {
        let Some(c) = self.chunks.iter().find(|c| env >= c.first && env < c.first + c.n_envs) else {
            return Err(GpuError::Invalid(format!(
                "environment {env} does not exist (n_envs = {})",
                self.n_envs
            )));
        };
        let n = self.stats()?[env].contacts;
        let p = self.options.precision;
        // Only this environment's contact records and pair indices come back, not the chunk's whole buffers.
        let local = (env - c.first) as u64;
        let w_at = (local * self.layout.work_stride as u64 + self.layout.w_con as u64) * p.size() as u64;
        let work = p.unpack(&self.ctx.read_range(&c.work, w_at, (7 * n.max(1) * p.size()) as u64)?);
        let i_at = (local * self.layout.iwork_stride as u64 + self.layout.i_conpair as u64) * 4;
        let pairs = unpack_u32(&self.ctx.read_range(&c.iwork, i_at, 4 * n.max(1) as u64)?);
        Ok((0..n)
            .map(|k| {
                let v = |j: usize| DVec3::new(work[7 * k + j], work[7 * k + j + 1], work[7 * k + j + 2]);
                let [geom_a, geom_b] = self.layout.pairs[pairs[k] as usize];
                GpuContact { geom_a, geom_b, position: v(0), normal: v(3), penetration: work[7 * k + 6] }
            })
            .collect())
    }
}
