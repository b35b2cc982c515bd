//! Errors of the GPU path.

use thiserror::Error;

/// What can go wrong on the GPU path. None of these falls back to the CPU silently.
#[derive(Debug, Error)]
pub enum GpuError {
    /// No adapter (GPU, or CPU Vulkan driver such as Mesa's lavapipe) could be found.
    #[error(
        "no GPU adapter found (wgpu saw no Vulkan, Metal or DX12 device; on Linux without a GPU, install a CPU Vulkan \
         driver: apt-get install mesa-vulkan-drivers libvulkan1)"
    )]
    NoAdapter,
    /// The adapter was found but a device could not be opened on it.
    #[error("could not open a device on the GPU adapter '{adapter}': {reason}")]
    Device { adapter: String, reason: String },
    /// f64 shaders were asked for on an adapter without `SHADER_F64`.
    #[error(
        "the GPU adapter '{adapter}' has no f64 shader support (wgpu feature SHADER_F64); use precision f32"
    )]
    NoF64 { adapter: String },
    /// The scene uses something the GPU path does not implement.
    #[error("the GPU path does not support {what}; run this scene on the CPU (--device cpu)")]
    Unsupported { what: String },
    /// A bad argument (sizes, indices, non-finite values).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// A fixed-size device buffer is too small for what a step produced.
    #[error("{what}: {needed} needed, {capacity} available; raise {option}")]
    Capacity { what: &'static str, needed: usize, capacity: usize, option: &'static str },
    /// A buffer larger than the adapter allows.
    #[error("{what} needs {bytes} bytes, above the adapter's limit of {limit} bytes; use fewer environments")]
    TooLarge { what: &'static str, bytes: u64, limit: u64 },
    /// wgpu reported an error (validation, out of memory, lost device).
    #[error("wgpu: {0}")]
    Wgpu(String),
}

/// `Result` with [`GpuError`].
pub type Result<T> = std::result::Result<T, GpuError>;
