//! Signed distance field of a closed triangle mesh, sampled on a regular grid (spec §A.14.1, Genesis's
//! `RigidGeom._preprocess` and `utils/sdf.py`).
//!
//! **Grid.** Centred on the mesh's AABB centre; per axis the padded extent is `G = e + 0.2·max(e)` for the AABB
//! extents `e`. The cell size is `h = min(max(cell_size, max G / (max_res − 1)), min G / max(min_res − 1, 2))`
//! (Genesis clips `sdf_cell_size = 0.005` between those bounds; `sdf_min_res = 32`, `sdf_max_res = 128`) and an axis
//! has `⌈G/h⌉ + 1` nodes. The padding keeps every boundary node outside the mesh.
//!
//! **Node values** are the exact signed distances to the surface, negative inside: the distance to the closest
//! triangle (branch and bound over the mesh's BVH), signed by the angle-weighted pseudo-normal of the closest
//! feature (face, edge or vertex; Bærentzen and Aanæs 2005), which is exact for a closed, consistently oriented
//! mesh. Node gradients are the normalised central differences of the node values; where those collapse (across
//! the middle of a wall thinner than two cells) the exact gradient `s·(x − c)/‖x − c‖` (`c` the closest point, `s`
//! the sign; on the surface itself, the pseudo-normal).
//!
//! **Query** (mesh frame). Inside the grid: trilinear interpolation of the node values and of the node gradients.
//! Outside it (never a penetration, the boundary is outside the mesh): the value at the nearest grid point plus the
//! distance to the grid, and the gradient `normalize(x − grid centre)` as Genesis's proxy.

use std::collections::HashMap;

use glam::DVec3;

use crate::aabb::Aabb;
use crate::error::{GeometryError, Result};
use crate::shape::TriangleMesh;

/// Grid resolution settings (Genesis's rigid material options, spec §A.14.1).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SdfSettings {
    /// Preferred cell size, metres (Genesis `sdf_cell_size`, 0.005).
    pub cell_size: f64,
    /// Fewest nodes along the shortest padded axis (Genesis `sdf_min_res`, 32).
    pub min_resolution: usize,
    /// Most nodes along the longest padded axis (Genesis `sdf_max_res`, 128).
    pub max_resolution: usize,
}

impl Default for SdfSettings {
    fn default() -> Self {
        Self { cell_size: 0.005, min_resolution: 32, max_resolution: 128 }
    }
}

/// Most grid nodes one field may hold (16.8 M, 256³): a bigger grid is an error, not a silent coarsening.
pub const MAX_SDF_NODES: usize = 1 << 24;

/// A signed distance field on a regular grid in a mesh's local frame (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct SignedDistanceField {
    origin: DVec3,
    cell: f64,
    res: [usize; 3],
    values: Vec<f64>,
    gradients: Vec<DVec3>,
}

/// The closest feature of a triangle to a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Feature {
    Vertex(usize),
    /// Edge from corner `i` to corner `(i + 1) % 3`.
    Edge(usize),
    Face,
}

impl SignedDistanceField {
    /// Samples the field of `mesh`, which must be closed and consistently oriented ([`TriangleMesh::is_closed`]):
    /// an open mesh has no inside, so it has a distance but no signed distance field.
    pub fn build(mesh: &TriangleMesh, settings: &SdfSettings) -> Result<Self> {
        let invalid = |what: String| GeometryError::InvalidMesh { shape: "triangle mesh", what };
        if !(settings.cell_size > 0.0) || settings.min_resolution < 2 || settings.max_resolution < 2 {
            return Err(invalid(format!(
                "SDF settings need a positive cell size and resolutions of at least 2, got {settings:?}"
            )));
        }
        if !mesh.is_closed() {
            return Err(invalid(
                "an SDF needs a closed, consistently oriented mesh (every edge shared by exactly two triangles in \
                 opposite directions); this one is open or non-manifold, which is fine for distance queries but \
                 has no inside"
                    .into(),
            ));
        }
        let normals = PseudoNormals::of(mesh);
        if normals.faces.iter().all(|n| *n == DVec3::ZERO) {
            return Err(invalid(
                "every triangle has zero area: an SDF needs a mesh that encloses a volume".into(),
            ));
        }
        let bounds =
            Aabb::from_points(mesh.triangles().iter().flatten().map(|&i| mesh.vertices()[i as usize]))
                .ok_or_else(|| invalid("no vertices".into()))?;
        let extent = bounds.extents();
        let padded = extent + DVec3::splat(0.2 * extent.max_element());
        let lo = padded.max_element() / (settings.max_resolution - 1) as f64;
        let hi = padded.min_element() / (settings.min_resolution - 1).max(2) as f64;
        let cell = f64::EPSILON + settings.cell_size.max(lo).min(hi);
        if !(cell > f64::EPSILON) {
            return Err(invalid("the mesh is flat: an SDF needs a mesh that encloses a volume".into()));
        }
        let res = padded.to_array().map(|g| (g / cell).ceil() as usize + 1);
        let nodes = res.iter().try_fold(1usize, |n, &r| n.checked_mul(r)).unwrap_or(usize::MAX);
        if nodes > MAX_SDF_NODES {
            return Err(invalid(format!(
                "the SDF grid would have {res:?} = {nodes} nodes (at most {MAX_SDF_NODES}); raise the cell size"
            )));
        }
        let span = DVec3::new(res[0] as f64 - 1.0, res[1] as f64 - 1.0, res[2] as f64 - 1.0) * cell;
        let origin = bounds.center() - 0.5 * span;
        let mut values = Vec::with_capacity(nodes);
        let mut gradients = Vec::with_capacity(nodes);
        let mut stack: Vec<(u32, f64)> = Vec::new();
        let mut hint = 0u32;
        for i in 0..res[0] {
            for j in 0..res[1] {
                for k in 0..res[2] {
                    let x = origin + DVec3::new(i as f64, j as f64, k as f64) * cell;
                    let (c, t, feature) = closest_triangle(&mut stack, mesh, &normals, x, hint);
                    hint = t;
                    let pseudo = normals.at(mesh, t as usize, feature);
                    let d = x - c;
                    let dist = d.length();
                    let sign = if d.dot(pseudo) < 0.0 { -1.0 } else { 1.0 };
                    values.push(sign * dist);
                    gradients.push(if dist > 1e-12 * cell {
                        sign * d / dist
                    } else {
                        pseudo.normalize_or_zero()
                    });
                }
            }
        }
        let mut field = Self { origin, cell, res, values, gradients };
        field.smooth_gradients();
        Ok(field)
    }

    /// Replaces each node's gradient by the central difference of the node values (one-sided on the boundary),
    /// normalised, where that difference has a length above one half. Where two surface points are equally close
    /// (a crease between facets, the symmetry plane of a hollow) the exact gradient picks one of them; the
    /// difference averages them. Across a thin wall's middle the difference collapses and the exact gradient stays.
    fn smooth_gradients(&mut self) {
        let [nx, ny, nz] = self.res;
        for i in 0..nx {
            for j in 0..ny {
                for k in 0..nz {
                    let at = [i, j, k];
                    let mut fd = DVec3::ZERO;
                    for axis in 0..3 {
                        let (mut lo, mut hi) = (at, at);
                        lo[axis] = at[axis].saturating_sub(1);
                        hi[axis] = (at[axis] + 1).min(self.res[axis] - 1);
                        let span = (hi[axis] - lo[axis]) as f64 * self.cell;
                        fd[axis] = (self.values[self.index(hi[0], hi[1], hi[2])]
                            - self.values[self.index(lo[0], lo[1], lo[2])])
                            / span;
                    }
                    if fd.length() > 0.5 {
                        let n = self.index(i, j, k);
                        self.gradients[n] = fd.normalize();
                    }
                }
            }
        }
    }

    /// The cell size `h`, metres.
    pub fn cell_size(&self) -> f64 {
        self.cell
    }

    /// Nodes per axis.
    pub fn resolution(&self) -> [usize; 3] {
        self.res
    }

    /// The box the grid covers (mesh frame).
    pub fn aabb(&self) -> Aabb {
        let span = DVec3::new(self.res[0] as f64 - 1.0, self.res[1] as f64 - 1.0, self.res[2] as f64 - 1.0);
        Aabb::new(self.origin, self.origin + span * self.cell)
    }

    /// The sampled value at node `(i, j, k)`.
    pub fn node_value(&self, i: usize, j: usize, k: usize) -> f64 {
        self.values[self.index(i, j, k)]
    }

    #[inline]
    fn index(&self, i: usize, j: usize, k: usize) -> usize {
        (i * self.res[1] + j) * self.res[2] + k
    }

    /// The signed distance at `x` (mesh frame), negative inside.
    #[inline]
    pub fn value(&self, x: DVec3) -> f64 {
        self.value_and_gradient(x).0
    }

    /// The signed distance at `x` (mesh frame) and its gradient (not normalised inside the grid: an interpolation
    /// of unit vectors).
    pub fn value_and_gradient(&self, x: DVec3) -> (f64, DVec3) {
        let last = DVec3::new(self.res[0] as f64 - 1.0, self.res[1] as f64 - 1.0, self.res[2] as f64 - 1.0);
        let raw = (x - self.origin) / self.cell;
        let u = raw.clamp(DVec3::ZERO, last);
        let outside = (raw - u).length() * self.cell;
        let base = |a: usize| (u[a].floor() as usize).min(self.res[a] - 2);
        let (i, j, k) = (base(0), base(1), base(2));
        let f = u - DVec3::new(i as f64, j as f64, k as f64);
        let mut value = 0.0;
        let mut gradient = DVec3::ZERO;
        for corner in 0..8 {
            let (di, dj, dk) = (corner >> 2 & 1, corner >> 1 & 1, corner & 1);
            let w = if di == 1 { f.x } else { 1.0 - f.x }
                * if dj == 1 { f.y } else { 1.0 - f.y }
                * if dk == 1 { f.z } else { 1.0 - f.z };
            let n = self.index(i + di, j + dj, k + dk);
            value += w * self.values[n];
            gradient += w * self.gradients[n];
        }
        if outside > 0.0 {
            return (value + outside, (x - self.aabb().center()).normalize_or(DVec3::Z));
        }
        (value, gradient)
    }
}

/// Angle-weighted pseudo-normals of a mesh's faces, edges and vertices.
struct PseudoNormals {
    faces: Vec<DVec3>,
    edges: HashMap<(u32, u32), DVec3>,
    vertices: Vec<DVec3>,
}

impl PseudoNormals {
    fn of(mesh: &TriangleMesh) -> Self {
        let v = mesh.vertices();
        let mut faces = Vec::with_capacity(mesh.triangles().len());
        let mut edges: HashMap<(u32, u32), DVec3> = HashMap::new();
        let mut vertices = vec![DVec3::ZERO; v.len()];
        for &tri in mesh.triangles() {
            let p = tri.map(|i| v[i as usize]);
            let n = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
            faces.push(n);
            for c in 0..3 {
                let (a, b) = (tri[c], tri[(c + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_default() += n;
                let e1 = (p[(c + 1) % 3] - p[c]).normalize_or_zero();
                let e2 = (p[(c + 2) % 3] - p[c]).normalize_or_zero();
                vertices[tri[c] as usize] += e1.dot(e2).clamp(-1.0, 1.0).acos() * n;
            }
        }
        Self { faces, edges, vertices }
    }

    fn at(&self, mesh: &TriangleMesh, t: usize, feature: Feature) -> DVec3 {
        let tri = mesh.triangles()[t];
        match feature {
            Feature::Face => self.faces[t],
            Feature::Vertex(c) => self.vertices[tri[c] as usize],
            Feature::Edge(c) => {
                let (a, b) = (tri[c], tri[(c + 1) % 3]);
                self.edges[&(a.min(b), a.max(b))]
            }
        }
    }
}

/// The point of the mesh closest to `x`, its triangle and the triangle's feature holding it: the BVH's
/// branch and bound ([`crate::Bvh::nearest_first`]), seeded with the distance to triangle `hint`.
fn closest_triangle(
    stack: &mut Vec<(u32, f64)>,
    mesh: &TriangleMesh,
    normals: &PseudoNormals,
    x: DVec3,
    hint: u32,
) -> (DVec3, u32, Feature) {
    // Zero-area triangles are skipped: their points lie on their neighbours' edges, whose pseudo-normals are sound,
    // while their own face normal is zero.
    let usable = |t: u32| normals.faces[t as usize] != DVec3::ZERO;
    let mut found = (x, hint, Feature::Face);
    let mut best = f64::INFINITY;
    let mut visit = |t: u32, best: &mut f64| {
        if usable(t) {
            let (c, f) = closest_point_triangle(x, mesh.triangle(t as usize));
            let d = (c - x).length_squared();
            if d < *best {
                *best = d;
                found = (c, t, f);
            }
        }
    };
    visit(hint, &mut best);
    mesh.bvh().nearest_first(stack, &mut best, |b| b.distance_squared_to_point(x), visit);
    found
}

/// The point of triangle `[a, b, c]` closest to `x` and the feature it lies on (Ericson, *Real-Time Collision
/// Detection*, §5.1.5, Voronoi regions in barycentric form).
fn closest_point_triangle(x: DVec3, [a, b, c]: [DVec3; 3]) -> (DVec3, Feature) {
    let (ab, ac, ap) = (b - a, c - a, x - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = x - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Edge(0));
    }
    let cp = x - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return (b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), Feature::Edge(1));
    }
    let denom = va + vb + vc;
    if denom.abs() < f64::MIN_POSITIVE {
        // A zero-area triangle whose regions all failed: its first corner stands for it.
        return (a, Feature::Vertex(0));
    }
    (a + ab * (vb / denom) + ac * (vc / denom), Feature::Face)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn box_mesh(h: DVec3) -> TriangleMesh {
        TriangleMesh::cuboid(h).unwrap()
    }

    /// The exact signed distance to a box.
    fn box_sdf(h: DVec3, x: DVec3) -> f64 {
        let q = x.abs() - h;
        q.max(DVec3::ZERO).length() + q.max_element().min(0.0)
    }

    #[test]
    fn closest_point_matches_brute_force_sampling() {
        let tri = [DVec3::new(0.1, -0.2, 0.0), DVec3::new(1.0, 0.3, 0.2), DVec3::new(-0.3, 0.8, -0.1)];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
        };
        for _ in 0..200 {
            let x = DVec3::new(next(), next(), next());
            let (c, _) = closest_point_triangle(x, tri);
            let mut best = f64::INFINITY;
            for i in 0..=100 {
                for j in 0..=(100 - i) {
                    let (u, v) = (i as f64 / 100.0, j as f64 / 100.0);
                    let p = tri[0] + u * (tri[1] - tri[0]) + v * (tri[2] - tri[0]);
                    best = best.min((p - x).length());
                }
            }
            let d = (c - x).length();
            assert!(d <= best + 1e-12 && d >= best - 0.02, "{d} vs sampled {best}");
        }
    }

    #[test]
    fn box_field_matches_closed_form() {
        let h = DVec3::new(0.05, 0.03, 0.02);
        let sdf = SignedDistanceField::build(&box_mesh(h), &SdfSettings::default()).unwrap();
        // Nodes are exact.
        let [nx, ny, nz] = sdf.resolution();
        for i in (0..nx).step_by(3) {
            for j in (0..ny).step_by(3) {
                for k in (0..nz).step_by(3) {
                    let x = sdf.origin + DVec3::new(i as f64, j as f64, k as f64) * sdf.cell;
                    assert!((sdf.node_value(i, j, k) - box_sdf(h, x)).abs() < 1e-12, "node {i},{j},{k}");
                }
            }
        }
        // Between nodes the interpolation is within a cell's curvature error; the boundary is outside.
        let b = sdf.aabb();
        for (i, x) in
            [DVec3::new(0.01, 0.004, -0.013), DVec3::new(0.049, 0.0, 0.0), DVec3::new(0.06, 0.035, 0.0)]
                .into_iter()
                .enumerate()
        {
            let (v, g) = sdf.value_and_gradient(x);
            assert!((v - box_sdf(h, x)).abs() < 0.5 * sdf.cell_size(), "point {i}: {v} vs {}", box_sdf(h, x));
            let fd = DVec3::new(
                box_sdf(h, x + DVec3::X * 1e-7) - box_sdf(h, x - DVec3::X * 1e-7),
                box_sdf(h, x + DVec3::Y * 1e-7) - box_sdf(h, x - DVec3::Y * 1e-7),
                box_sdf(h, x + DVec3::Z * 1e-7) - box_sdf(h, x - DVec3::Z * 1e-7),
            ) / 2e-7;
            assert!(g.normalize().dot(fd.normalize()) > 0.95, "point {i}: gradient {g} vs {fd}");
        }
        assert!(sdf.node_value(0, 0, 0) > 0.0 && b.contains_point(DVec3::ZERO));
        // Outside the grid the value keeps growing and stays positive.
        assert!(sdf.value(DVec3::new(1.0, 0.0, 0.0)) > sdf.value(b.max));
    }

    #[test]
    fn bowl_field_is_signed_like_the_bowl() {
        // Hemispherical shell: outer radius 0.12, inner 0.1, both centred at (0, 0, 0.12), cut at z = 0.12.
        let (ro, ri) = (0.12, 0.1);
        let c = DVec3::new(0.0, 0.0, ro);
        let steps = 24;
        let arc = |r: f64, s: usize| {
            let phi = std::f64::consts::FRAC_PI_2 * s as f64 / steps as f64;
            (r * phi.sin(), ro - r * phi.cos())
        };
        let profile: Vec<(f64, f64)> =
            (0..=steps).map(|s| arc(ro, s)).chain((0..=steps).rev().map(|s| arc(ri, s))).collect();
        let mesh = TriangleMesh::of_revolution(&profile, 64).unwrap();
        let sdf = SignedDistanceField::build(&mesh, &SdfSettings::default()).unwrap();
        let [nx, ny, nz] = sdf.resolution();
        let (mut inside, mut outside, mut hollow) = (0, 0, 0);
        for i in 0..nx {
            for j in 0..ny {
                for k in 0..nz {
                    let x = sdf.origin + DVec3::new(i as f64, j as f64, k as f64) * sdf.cell;
                    let v = sdf.node_value(i, j, k);
                    let r = (x - c).length();
                    // Clear of the surfaces by more than the facets' 0.2 mm: the sign is the shell's.
                    let depth = (ro - r).min(r - ri).min(ro - x.z);
                    if depth > 1e-3 {
                        inside += 1;
                        assert!(v < 0.0, "node {x} is in the wall, value {v}");
                    } else if depth < -1e-3 {
                        outside += 1;
                        assert!(v > 0.0, "node {x} is outside, value {v}");
                    }
                    // In the hollow's lower part the nearest surface is the inner sphere.
                    if r < ri && x.z < ro - 0.06 {
                        hollow += 1;
                        assert!((v - (ri - r)).abs() < 3e-4, "hollow node {x}: {v} vs {}", ri - r);
                    }
                }
            }
        }
        assert!(inside > 500 && outside > 10_000 && hollow > 1000, "{inside} {outside} {hollow}");
    }

    /// A zero-area triangle in a closed mesh (a box face split through a vertex on its diagonal) changes nothing:
    /// the field still equals the box's closed form at every node.
    #[test]
    fn zero_area_triangles_do_not_flip_signs() {
        let h = DVec3::new(0.05, 0.03, 0.02);
        let m = box_mesh(h);
        let mut v = m.vertices().to_vec();
        let mut t = m.triangles().to_vec();
        // The top face (+z) is triangles [4, 5, 7] and [4, 7, 6]: split the second through the diagonal's midpoint
        // and close the seam with the zero-area triangle [4, 7, mid].
        let mid = v.len() as u32;
        v.push(0.5 * (v[4] + v[7]));
        let k = t.iter().position(|&tri| tri == [4, 7, 6]).unwrap();
        t[k] = [7, 6, mid];
        t.push([mid, 6, 4]);
        t.push([4, 7, mid]);
        let split = TriangleMesh::new(v, t).unwrap();
        assert!(split.is_closed());
        let sdf = SignedDistanceField::build(&split, &SdfSettings::default()).unwrap();
        let [nx, ny, nz] = sdf.resolution();
        for i in 0..nx {
            for j in 0..ny {
                for k in 0..nz {
                    let x = sdf.origin + DVec3::new(i as f64, j as f64, k as f64) * sdf.cell;
                    assert!((sdf.node_value(i, j, k) - box_sdf(h, x)).abs() < 1e-12, "node {x}");
                }
            }
        }
    }

    #[test]
    fn cell_size_follows_the_clip_rule() {
        // A 0.2 m cube: padded 0.24 m; max(0.005, 0.24/127) = 0.005 is below 0.24/31, so h = 0.005.
        let sdf = SignedDistanceField::build(&box_mesh(DVec3::splat(0.1)), &SdfSettings::default()).unwrap();
        assert!((sdf.cell_size() - 0.005).abs() < 1e-12);
        assert_eq!(sdf.resolution(), [49, 49, 49]);
        // A 0.1 m cube: 0.12/31 < 0.005, so h = 0.12/31 and the shortest axis has 32 nodes.
        let small =
            SignedDistanceField::build(&box_mesh(DVec3::splat(0.05)), &SdfSettings::default()).unwrap();
        assert!((small.cell_size() - 0.12 / 31.0).abs() < 1e-12);
        assert_eq!(small.resolution(), [32, 32, 32]);
        // A 2 m cube: h = 2.4/127.
        let big = SignedDistanceField::build(&box_mesh(DVec3::splat(1.0)), &SdfSettings::default()).unwrap();
        assert!((big.cell_size() - 2.4 / 127.0).abs() < 1e-12);
        assert_eq!(big.resolution(), [128, 128, 128]);
    }

    #[test]
    fn open_mesh_is_refused_with_the_reason() {
        let m = box_mesh(DVec3::ONE);
        let open = TriangleMesh::new(m.vertices().to_vec(), m.triangles()[..10].to_vec()).unwrap();
        let err = SignedDistanceField::build(&open, &SdfSettings::default()).unwrap_err().to_string();
        assert!(err.contains("closed") && err.contains("distance queries"), "{err}");
    }
}
