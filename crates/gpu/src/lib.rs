//! # signorini-gpu
//!
//! The GPU batch path: WGSL compute kernels (sources in the workspace's `shaders/`, compiled at run time for the
//! chosen [`Precision`]) run through `wgpu` on any Vulkan, Metal or DX12 adapter, including CPU drivers such as
//! Mesa's lavapipe (correct, never fast).
//!
//! - [`GpuContext`]: the opened device; [`GpuError::NoAdapter`] where there is none, never a CPU fallback.
//! - [`GpuBatch`]: many environments of one `Model` stepped on the device (`shaders/sim.wgsl`).
//! - [`env_batch()`]: a batch on the device asked for, CPU or GPU, behind `signorini_sim::EnvBatch` (the batch API's
//!   device selection); [`GpuBatch`] implements that trait.
//! - [`query`]: batched distance and collision queries between convex primitives (many pose pairs in one call).
//!
//! Device arithmetic is f32 by default, f64 where the adapter has `SHADER_F64` ([`Precision::F64`]); each kernel
//! documents how far its f32 results are from the f64 CPU path. The device prunes each link pair's contacts to its
//! support polygon as native mode does on the CPU (`contact_pruning_tolerance`, `shaders/prune.wgsl`), over the
//! contacts in the order the narrow phase made them (the CPU sorts a pair's contacts by their frame key first, which
//! decides only ties).

pub mod context;
pub mod env_batch;
pub mod error;
pub mod query;
pub mod sim;
mod sim_layout;

pub use context::{GpuContext, Precision};
pub use env_batch::env_batch;
pub use error::{GpuError, Result};
pub use query::{GpuCollision, GpuQueries, GpuShape, QueryPair};
pub use sim::{GpuBatch, GpuBatchOptions, GpuContact, GpuEnvStats};
