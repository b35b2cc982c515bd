//! The device: adapter selection, shader compilation with the chosen precision, storage buffers and read-back.

use std::sync::Arc;

use wgpu::util::DeviceExt;

use crate::error::{GpuError, Result};

/// Floating-point type of the device-side state and arithmetic.
///
/// `F32` runs everywhere; `F64` needs an adapter with `SHADER_F64` (most desktop GPUs, Mesa's lavapipe) and is
/// slower on consumer GPUs. WGSL sources are written against the alias `real`, which is defined as one or the other
/// when a kernel is compiled. Host buffers are always `f64`; they are converted on upload and read-back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// 32-bit floats (WGSL `f32`).
    #[default]
    F32,
    /// 64-bit floats (WGSL `f64`, wgpu feature `SHADER_F64`).
    F64,
}

impl Precision {
    /// Bytes per scalar.
    pub const fn size(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }

    /// The WGSL scalar type name.
    pub const fn wgsl(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }

    /// Parses `f32` / `f64`.
    pub fn parse(s: &str) -> Option<Precision> {
        match s {
            "f32" => Some(Precision::F32),
            "f64" => Some(Precision::F64),
            _ => None,
        }
    }

    /// `values` as little-endian bytes of this precision.
    pub fn pack(self, values: &[f64]) -> Vec<u8> {
        let mut out = Vec::with_capacity(values.len() * self.size());
        for &v in values {
            match self {
                Precision::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
                Precision::F64 => out.extend_from_slice(&v.to_le_bytes()),
            }
        }
        out
    }

    /// Little-endian bytes of this precision as `f64`s.
    pub fn unpack(self, bytes: &[u8]) -> Vec<f64> {
        match self {
            Precision::F32 => {
                bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64).collect()
            }
            Precision::F64 => bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect(),
        }
    }
}

/// `u32`s as little-endian bytes.
pub fn pack_u32(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Little-endian bytes as `u32`s.
pub fn unpack_u32(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// An opened GPU device and its queue. Cheap to share (`Arc`); every GPU object of this crate holds one.
#[derive(Debug)]
pub struct GpuContext {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    f64: bool,
}

impl GpuContext {
    /// Opens the preferred adapter (a discrete or integrated GPU before a CPU driver), with `SHADER_F64` when the
    /// adapter has it. [`GpuError::NoAdapter`] when wgpu finds none; never falls back to anything else.
    pub fn new() -> Result<Arc<GpuContext>> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::PRIMARY,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        }))
        .map_err(|_| GpuError::NoAdapter)?;
        let info = adapter.get_info();
        let f64 = adapter.features().contains(wgpu::Features::SHADER_F64);
        let limits = adapter.limits();
        let features = if f64 { wgpu::Features::SHADER_F64 } else { wgpu::Features::empty() };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("signorini"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| GpuError::Device { adapter: info.name.clone(), reason: e.to_string() })?;
        Ok(Arc::new(GpuContext { device, queue, info, limits, f64 }))
    }

    /// A context for tests: `None`, with the reason printed, where no adapter exists, unless the environment
    /// variable `SIGNORINI_REQUIRE_GPU=1` makes that a panic (CI installs a CPU Vulkan driver and sets it).
    pub fn for_tests() -> Option<Arc<GpuContext>> {
        match GpuContext::new() {
            Ok(ctx) => Some(ctx),
            Err(e) if std::env::var("SIGNORINI_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
                panic!("SIGNORINI_REQUIRE_GPU=1 but {e}")
            }
            Err(e) => {
                eprintln!("skipping GPU test: {e}");
                None
            }
        }
    }

    /// The adapter's name, driver and backend, for reports.
    pub fn description(&self) -> String {
        format!(
            "{} ({:?}, {} {}, {:?})",
            self.info.name, self.info.device_type, self.info.driver, self.info.driver_info, self.info.backend
        )
    }

    /// Whether the adapter is a CPU driver (lavapipe, WARP, SwiftShader): correct, never fast.
    pub fn is_cpu(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// Whether the adapter is Mesa's llvmpipe (lavapipe), whose shaders end every loop once an invocation has run
    /// 65 535 loop iterations in total (`LP_MAX_TGSI_LOOP_ITERATIONS`); kernels bound their work there.
    pub fn is_llvmpipe(&self) -> bool {
        self.info.driver == "llvmpipe" || self.info.name.starts_with("llvmpipe")
    }

    /// Whether f64 shaders are available ([`Precision::F64`]).
    pub fn supports_f64(&self) -> bool {
        self.f64
    }

    /// [`GpuError::NoF64`] when `precision` is f64 and the adapter lacks it.
    pub fn check_precision(&self, precision: Precision) -> Result<()> {
        if precision == Precision::F64 && !self.f64 {
            return Err(GpuError::NoF64 { adapter: self.info.name.clone() });
        }
        Ok(())
    }

    /// The wgpu device.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The wgpu queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Largest storage buffer binding, bytes.
    pub fn max_buffer(&self) -> u64 {
        self.limits.max_storage_buffer_binding_size.min(self.limits.max_buffer_size)
    }

    /// Most workgroups per dispatch dimension.
    pub fn max_workgroups(&self) -> u32 {
        self.limits.max_compute_workgroups_per_dimension
    }

    /// Compiles `source` (WGSL written against the alias `real`) for `precision` into one pipeline per entry point.
    /// Validation errors are returned, not panicked on.
    pub fn compile(
        &self,
        label: &str,
        source: &str,
        precision: Precision,
        entries: &[&str],
    ) -> Result<Vec<wgpu::ComputePipeline>> {
        self.compile_with(label, source, precision, entries, None)
    }

    /// [`GpuContext::compile`] with one explicit layout shared by every entry point: group 0 holds storage
    /// buffers at bindings `0, 1, …`, read-only where `read_only[i]`. Entry points that use different subsets of
    /// the bindings can then share one bind group.
    pub fn compile_shared(
        &self,
        label: &str,
        source: &str,
        precision: Precision,
        entries: &[&str],
        read_only: &[bool],
    ) -> Result<Vec<wgpu::ComputePipeline>> {
        let layout_entries: Vec<wgpu::BindGroupLayoutEntry> = read_only
            .iter()
            .enumerate()
            .map(|(i, &read_only)| wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let group = self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &layout_entries,
        });
        let layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(&group)],
            immediate_size: 0,
        });
        self.compile_with(label, source, precision, entries, Some(&layout))
    }

    fn compile_with(
        &self,
        label: &str,
        source: &str,
        precision: Precision,
        entries: &[&str],
        layout: Option<&wgpu::PipelineLayout>,
    ) -> Result<Vec<wgpu::ComputePipeline>> {
        self.check_precision(precision)?;
        let code = format!("alias real = {};\n{}", precision.wgsl(), source);
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(code.into()),
        });
        let pipelines = entries
            .iter()
            .map(|entry| {
                self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout,
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .collect();
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Wgpu(format!("compiling {label}: {e}")));
        }
        Ok(pipelines)
    }

    /// A storage buffer holding `bytes` (at least 4 bytes: wgpu rejects empty bindings), readable back.
    pub fn storage(&self, label: &str, bytes: &[u8]) -> Result<wgpu::Buffer> {
        if bytes.len() as u64 > self.max_buffer() {
            return Err(GpuError::TooLarge {
                what: "a device buffer",
                bytes: bytes.len() as u64,
                limit: self.max_buffer(),
            });
        }
        let mut padded;
        let contents = if bytes.len() < 4 || !bytes.len().is_multiple_of(4) {
            padded = bytes.to_vec();
            padded.resize(bytes.len().max(4).next_multiple_of(4), 0);
            &padded[..]
        } else {
            bytes
        };
        Ok(self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        }))
    }

    /// A bind group for group 0 of `pipeline`, binding `buffers` to bindings `0, 1, …`.
    pub fn bind(&self, pipeline: &wgpu::ComputePipeline, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        })
    }

    /// Copies all of `buffer` back to the host (blocks until the queue is done with it).
    pub fn read(&self, buffer: &wgpu::Buffer) -> Result<Vec<u8>> {
        self.read_range(buffer, 0, buffer.size())
    }

    /// Copies `size` bytes of `buffer` from byte `offset` back to the host (both multiples of 4, wgpu's copy
    /// alignment); blocks until the queue is done with it.
    pub fn read_range(&self, buffer: &wgpu::Buffer, offset: u64, size: u64) -> Result<Vec<u8>> {
        if !offset.is_multiple_of(4) || !size.is_multiple_of(4) || size == 0 || offset + size > buffer.size()
        {
            return Err(GpuError::Invalid(format!(
                "read of {size} bytes at {offset} from a buffer of {} bytes (4-byte aligned, inside it)",
                buffer.size()
            )));
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("read-back"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
        self.queue.submit([encoder.finish()]);
        let (tx, rx) = std::sync::mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| GpuError::Wgpu(e.to_string()))?;
        rx.recv().map_err(|e| GpuError::Wgpu(e.to_string()))?.map_err(|e| GpuError::Wgpu(e.to_string()))?;
        let bytes = staging.slice(..).get_mapped_range().map_err(|e| GpuError::Wgpu(e.to_string()))?.to_vec();
        staging.unmap();
        Ok(bytes)
    }

    /// Overwrites the start of `buffer` with `bytes`.
    pub fn write(&self, buffer: &wgpu::Buffer, bytes: &[u8]) {
        self.queue.write_buffer(buffer, 0, bytes);
    }

    /// Records `dispatches` (pipeline, bind group, workgroup count) into one compute pass each and submits them, in
    /// order, as one command buffer. Does not wait.
    pub fn run(&self, dispatches: &[(&wgpu::ComputePipeline, &wgpu::BindGroup, u32)]) {
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        for &(pipeline, bind, groups) in dispatches {
            let mut pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(groups.max(1), 1, 1);
        }
        self.queue.submit([encoder.finish()]);
    }

    /// Blocks until all submitted work is done; reports device loss or an out-of-memory error.
    pub fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| GpuError::Wgpu(e.to_string()))
    }
}
