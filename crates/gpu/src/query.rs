//! Batched signed distance and collision between convex primitives (sphere, capsule, box) on the GPU:
//! [`GpuQueries`] runs `shaders/query.wgsl`, one invocation per [`QueryPair`].
//!
//! **Conventions** (Coal, as the CPU path [`signorini_collision::query`]): SI units (metres); world frame; the signed
//! distance is `> 0` for separated shapes and minus the penetration depth when they overlap; `normal` is the unit
//! vector **from A to B**; `point_a` lies on A's surface, `point_b` on B's, and `point_b − point_a = distance ·
//! normal` in both cases. Results are [`DistanceResult`]s, the CPU path's type, with `algorithm` [`Algorithm::Gjk`]
//! (separated cores) or [`Algorithm::Sat`] (cores overlapping or within `32 ε · scale`, answered by the
//! separating-axis test), and `iterations` the GJK iterations of both stages of the kernel (at most 64 each).
//!
//! **Method** (details beside the kernel): each shape is a core (point, segment, box) inflated by a radius; GJK on
//! the cores in A's frame; the separating-axis test over the face normals of the cores' Minkowski difference when
//! they overlap or touch (exact for these polytopes); witness points from the supporting features along the axis.
//!
//! **Accuracy** against the f64 CPU path, measured by `tests/query.rs` (27 000 random poses of every ordered pair of
//! kinds, separated, touching within 1e-4 m and penetrating, in a scene of about 1 m; the figures per pair are in
//! its output). f32: signed distances within 5e-7 m, witnesses within 1e-6 m of the surfaces; normals within 1e-5
//! for cores more than 1e-2 m apart (3e-5 from 1e-3 m), and a normal of least penetration (support gap below
//! 1e-6 m) for overlapping cores. Nearer contacts of vertices and edges have normals only as good as the f32 poses
//! allow, about `1e-7 m / distance` (5e-3 at 1e-5 m), and within `32 ε · scale` the separating axis may differ from
//! the CPU's normal altogether (its distance stays a bound within that tolerance). f64: distances and witnesses
//! within 2e-15 m, normals within 2e-10 for cores more than 1e-6 m apart.
//!
//! **Batches.** A call is split into dispatches of at most [`GpuQueries::max_batch`] pairs (the adapter's workgroup
//! and storage-buffer limits); the device buffers are allocated once per call at that size.

use std::sync::Arc;

use glam::DVec3;
use signorini_collision::query::{Algorithm, DistanceResult};
use signorini_geometry::{Pose, Shape};

use crate::context::{GpuContext, Precision, pack_u32, unpack_u32};
use crate::error::{GpuError, Result};

const SOURCE: &str = include_str!("../../../shaders/query.wgsl");
const WORKGROUP: usize = 64;
/// Scalars per pair in the input buffer (`IN_STRIDE` of the kernel).
const IN_STRIDE: usize = 20;
/// Scalars per pair in the output buffer (`OUT_STRIDE` of the kernel).
const OUT_STRIDE: usize = 10;
/// Status bit set when the separating-axis test answered (`STATUS_SAT` of the kernel).
const STATUS_SAT: u32 = 0x10000;
/// The kernel's tolerances, in machine epsilons of the device precision (times the pair's scale, see the kernel).
/// GJK's stopping gap: a few roundings of a support point.
const GJK_TOL: f64 = 8.0;
/// Core distance below which the separating-axis test answers: beneath it GJK's normal has lost most of its digits
/// (about ε · scale / distance); SAT's distance is exact for overlap and a lower bound within this for near contact
/// (4e-6 m at 1 m in f32).
const CONTACT_TOL: f64 = 32.0;
/// Flatness of a feature: axis components within this of zero leave an edge direction free (the rotation error of
/// an f32 pose is a few ε).
const FLAT: f64 = 64.0;
/// Support points this close to a simplex vertex repeat it.
const DUP: f64 = 1.0;

/// A convex primitive of the GPU path, in its local frame (as the [`signorini_geometry`] shape of the same name).
/// Sizes in metres, finite and `> 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GpuShape {
    /// The ball of `radius` centred at the origin.
    Sphere { radius: f64 },
    /// The points within `radius` of the segment from `(0, 0, −half_length)` to `(0, 0, half_length)`.
    Capsule { radius: f64, half_length: f64 },
    /// The box `|x_i| ≤ half_extents_i`.
    Box { half_extents: DVec3 },
}

impl GpuShape {
    /// The kernel's kind code (`KIND_*` in `query.wgsl`).
    fn code(&self) -> u32 {
        match self {
            GpuShape::Sphere { .. } => 0,
            GpuShape::Capsule { .. } => 1,
            GpuShape::Box { .. } => 2,
        }
    }

    /// The kernel's size triple: sphere `(r, 0, 0)`, capsule `(r, h, 0)`, box `(h_x, h_y, h_z)`.
    fn size(&self) -> [f64; 3] {
        match *self {
            GpuShape::Sphere { radius } => [radius, 0.0, 0.0],
            GpuShape::Capsule { radius, half_length } => [radius, half_length, 0.0],
            GpuShape::Box { half_extents } => half_extents.to_array(),
        }
    }

    /// The sizes that must be finite and positive, with their names.
    fn check(&self) -> std::result::Result<(), String> {
        let named: &[(&str, f64)] = match *self {
            GpuShape::Sphere { radius } => &[("sphere radius", radius)],
            GpuShape::Capsule { radius, half_length } => {
                &[("capsule radius", radius), ("capsule half_length", half_length)]
            }
            GpuShape::Box { half_extents: h } => {
                &[("box half_extents.x", h.x), ("box half_extents.y", h.y), ("box half_extents.z", h.z)]
            }
        };
        for &(name, value) in named {
            if !(value > 0.0 && value.is_finite()) {
                return Err(format!("{name} must be finite and > 0, got {value}"));
            }
        }
        Ok(())
    }
}

impl TryFrom<&Shape> for GpuShape {
    type Error = GpuError;

    /// Spheres, capsules and boxes; any other kind is [`GpuError::Unsupported`] naming it.
    fn try_from(shape: &Shape) -> Result<Self> {
        match shape {
            Shape::Sphere(s) => Ok(GpuShape::Sphere { radius: s.radius() }),
            Shape::Capsule(c) => Ok(GpuShape::Capsule { radius: c.radius(), half_length: c.half_length() }),
            Shape::Box(b) => Ok(GpuShape::Box { half_extents: b.half_extents() }),
            other => Err(GpuError::Unsupported {
                what: format!(
                    "{} shapes in batched distance queries (sphere, capsule and box only)",
                    other.kind().name()
                ),
            }),
        }
    }
}

/// One query: shape A at `pose_a` and shape B at `pose_b` (local → world, translations in metres, unit rotations).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryPair {
    /// Shape A.
    pub a: GpuShape,
    /// World pose of A.
    pub pose_a: Pose,
    /// Shape B.
    pub b: GpuShape,
    /// World pose of B.
    pub pose_b: Pose,
}

impl QueryPair {
    /// A pair from two [`signorini_geometry`] shapes; [`GpuError::Unsupported`] for kinds other than sphere,
    /// capsule and box.
    pub fn new(a: &Shape, pose_a: Pose, b: &Shape, pose_b: Pose) -> Result<Self> {
        Ok(QueryPair { a: GpuShape::try_from(a)?, pose_a, b: GpuShape::try_from(b)?, pose_b })
    }
}

/// Answer of [`GpuQueries::collide`] for one pair (Coal convention, see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuCollision {
    /// Whether the signed distance is `≤ security_margin`, as [`signorini_collision::query::collide`].
    pub colliding: bool,
    /// The signed distance, normal (A → B) and witness points.
    pub distance: DistanceResult,
}

/// The compiled query kernel on one device, for one precision.
#[derive(Debug)]
pub struct GpuQueries {
    ctx: Arc<GpuContext>,
    precision: Precision,
    pipeline: wgpu::ComputePipeline,
    max_batch: usize,
}

impl GpuQueries {
    /// Compiles `shaders/query.wgsl` for `precision` ([`GpuError::NoF64`] where the adapter lacks f64).
    pub fn new(ctx: Arc<GpuContext>, precision: Precision) -> Result<Self> {
        let eps = match precision {
            Precision::F32 => f64::from(f32::EPSILON),
            Precision::F64 => f64::EPSILON,
        };
        let source = format!(
            "const GJK_TOL: real = {:e};\nconst CONTACT_TOL: real = {:e};\nconst FLAT: real = {:e};\n\
             const DUP: real = {:e};\n{SOURCE}",
            GJK_TOL * eps,
            CONTACT_TOL * eps,
            FLAT * eps,
            DUP * eps
        );
        let pipeline = ctx.compile("query.wgsl", &source, precision, &["distance"])?.remove(0);
        let by_groups = ctx.max_workgroups() as usize * WORKGROUP;
        let by_buffer =
            usize::try_from(ctx.max_buffer() / (IN_STRIDE * precision.size()) as u64).unwrap_or(usize::MAX);
        let max_batch = by_groups.min(by_buffer);
        Ok(GpuQueries { ctx, precision, pipeline, max_batch })
    }

    /// The device arithmetic.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Most pairs per dispatch.
    pub fn max_batch(&self) -> usize {
        self.max_batch
    }

    /// Lowers the pairs per dispatch to `max_batch` (≥ 1; above the adapter's limits it keeps the limit): smaller
    /// device buffers, more dispatches.
    pub fn with_max_batch(mut self, max_batch: usize) -> Result<Self> {
        if max_batch == 0 {
            return Err(GpuError::Invalid("max_batch must be at least 1".into()));
        }
        self.max_batch = self.max_batch.min(max_batch);
        Ok(self)
    }

    /// Signed distance, normal and witness points of every pair, in order (conventions in the module docs).
    ///
    /// Errors: [`GpuError::Invalid`] naming the first pair with a size that is not finite and positive, or a pose
    /// that is not finite, beyond [`signorini_geometry::MAX_COORDINATE`], or whose rotation is not unit within
    /// [`signorini_geometry::pose::QUAT_NORM_TOLERANCE`]; device errors as [`GpuError::Wgpu`].
    pub fn distance(&self, pairs: &[QueryPair]) -> Result<Vec<DistanceResult>> {
        validate(pairs)?;
        let mut results = Vec::with_capacity(pairs.len());
        if pairs.is_empty() {
            return Ok(results);
        }
        let ctx = &self.ctx;
        let size = self.precision.size();
        let cap = pairs.len().min(self.max_batch);
        let input = ctx.storage("query input", &vec![0; cap * IN_STRIDE * size])?;
        let kinds = ctx.storage("query kinds", &vec![0; cap * 2 * 4])?;
        let output = ctx.storage("query output", &vec![0; cap * OUT_STRIDE * size])?;
        let status = ctx.storage("query status", &vec![0; cap * 4])?;
        let params = ctx.storage("query params", &pack_u32(&[0]))?;
        let bind = ctx.bind(&self.pipeline, &[&input, &kinds, &output, &status, &params]);
        let mut scalars = Vec::with_capacity(cap * IN_STRIDE);
        let mut codes = Vec::with_capacity(cap * 2);
        for chunk in pairs.chunks(cap) {
            scalars.clear();
            codes.clear();
            for pair in chunk {
                for pose in [&pair.pose_a, &pair.pose_b] {
                    let q = pose.rotation.normalize();
                    scalars.extend_from_slice(&pose.translation.to_array());
                    scalars.extend_from_slice(&[q.x, q.y, q.z, q.w]);
                }
                scalars.extend_from_slice(&pair.a.size());
                scalars.extend_from_slice(&pair.b.size());
                codes.extend_from_slice(&[pair.a.code(), pair.b.code()]);
            }
            ctx.write(&input, &self.precision.pack(&scalars));
            ctx.write(&kinds, &pack_u32(&codes));
            ctx.write(&params, &pack_u32(&[chunk.len() as u32]));
            ctx.run(&[(&self.pipeline, &bind, chunk.len().div_ceil(WORKGROUP) as u32)]);
            let out = self.precision.unpack(&ctx.read(&output)?);
            let st = unpack_u32(&ctx.read(&status)?);
            for (o, &s) in out.chunks_exact(OUT_STRIDE).zip(&st).take(chunk.len()) {
                let v = |i: usize| DVec3::new(o[i], o[i + 1], o[i + 2]);
                results.push(DistanceResult {
                    distance: o[0],
                    normal: v(1),
                    point_a: v(4),
                    point_b: v(7),
                    iterations: s & 0xffff,
                    algorithm: if s & STATUS_SAT != 0 { Algorithm::Sat } else { Algorithm::Gjk },
                });
            }
        }
        Ok(results)
    }

    /// [`distance`](Self::distance) and whether each pair collides: signed distance `≤ security_margin` (m, finite,
    /// may be negative), as the CPU path's `collide`. [`GpuError::Invalid`] for a non-finite margin.
    pub fn collide(&self, pairs: &[QueryPair], security_margin: f64) -> Result<Vec<GpuCollision>> {
        if !security_margin.is_finite() {
            return Err(GpuError::Invalid(format!("security_margin must be finite, got {security_margin}")));
        }
        Ok(self
            .distance(pairs)?
            .into_iter()
            .map(|distance| GpuCollision { colliding: distance.distance <= security_margin, distance })
            .collect())
    }
}

/// Checks every pair: sizes, then poses through [`Pose::new`] (whose renormalisation the packing repeats).
fn validate(pairs: &[QueryPair]) -> Result<()> {
    for (i, p) in pairs.iter().enumerate() {
        p.a.check().map_err(|e| GpuError::Invalid(format!("pair {i}, shape A: {e}")))?;
        p.b.check().map_err(|e| GpuError::Invalid(format!("pair {i}, shape B: {e}")))?;
        for (pose, which) in [(&p.pose_a, "A"), (&p.pose_b, "B")] {
            Pose::new(pose.translation, pose.rotation)
                .map_err(|e| GpuError::Invalid(format!("pair {i}, pose of {which}: {e}")))?;
        }
    }
    Ok(())
}
