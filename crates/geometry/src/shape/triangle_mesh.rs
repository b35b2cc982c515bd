//! Indexed triangle mesh.

use std::sync::Arc;

use glam::DVec3;

use crate::aabb::Aabb;
use crate::bvh::Bvh;
use crate::error::{GeometryError, Result, finite_vec};
use crate::sdf::{SdfSettings, SignedDistanceField};
use crate::shape::ConvexMesh;

/// An indexed triangle mesh in its local frame, possibly non-convex and possibly open.
///
/// Triangles are counter-clockwise seen from outside (the right-hand normal `(b − a) × (c − a)` points out) when the
/// mesh is a closed surface; for an open mesh the orientation only matters to one-sided queries. Zero-area triangles
/// are kept (real meshes contain them); they contribute nothing to areas or volumes.
///
/// The mesh holds a [`Bvh`] over its triangles' boxes (local frame), built once by [`TriangleMesh::new`], as
/// parry's `TriMesh` holds its tree: distance and collision queries traverse it. It also holds the convex hull of
/// its triangles' vertices (when they span a volume), which contains the surface: queries use the hull's distance as
/// a lower bound and a first guess.
///
/// A closed mesh can also carry a [`SignedDistanceField`] ([`TriangleMesh::with_sdf`]): the simulator makes the
/// contacts of such a mesh from it, as a non-convex solid (spec §A.14.1).
#[derive(Debug, Clone, PartialEq)]
pub struct TriangleMesh {
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    edges: LazyEdges,
    bvh: Bvh,
    hull: Option<Arc<ConvexMesh>>,
    sdf: Option<Arc<SignedDistanceField>>,
}

/// The edge list, built on the first [`TriangleMesh::edges`] call (only the SDF contacts' edge tests use it). Derived
/// from the triangles, so it takes no part in equality.
#[derive(Debug, Clone, Default)]
struct LazyEdges(std::sync::OnceLock<Vec<[u32; 2]>>);

impl PartialEq for LazyEdges {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl TriangleMesh {
    /// Validates and stores the mesh: at least one triangle, every vertex finite, every index in range, no triangle
    /// repeating a vertex index; then builds its [`Bvh`] and the convex hull of the vertices the triangles use (both
    /// O(n log n)).
    pub fn new(vertices: Vec<DVec3>, triangles: Vec<[u32; 3]>) -> Result<Self> {
        let invalid = |what: String| GeometryError::InvalidMesh { shape: "triangle mesh", what };
        if triangles.is_empty() {
            return Err(invalid("no triangles".into()));
        }
        for v in &vertices {
            finite_vec("triangle mesh", "vertices", *v)?;
        }
        let n = vertices.len();
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(bad) = tri.iter().find(|&&i| i as usize >= n) {
                return Err(invalid(format!(
                    "triangle {t} uses vertex {bad}, but there are only {n} vertices"
                )));
            }
            if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
                return Err(invalid(format!("triangle {t} repeats a vertex index: {tri:?}")));
            }
        }
        let boxes: Vec<Aabb> = triangles
            .iter()
            .filter_map(|&[a, b, c]| {
                Aabb::from_points([vertices[a as usize], vertices[b as usize], vertices[c as usize]])
            })
            .collect();
        let bvh = Bvh::build(&boxes);
        let mut used = vec![false; n];
        for &i in triangles.iter().flatten() {
            used[i as usize] = true;
        }
        let corners: Vec<DVec3> = vertices.iter().zip(&used).filter(|(_, u)| **u).map(|(v, _)| *v).collect();
        let hull = ConvexMesh::from_points(&corners).ok().map(Arc::new);
        Ok(Self { vertices, triangles, edges: LazyEdges::default(), bvh, hull, sdf: None })
    }

    /// The closed surface of a box with half extents `h` (8 vertices, 12 triangles, counter-clockwise from outside),
    /// for a box that should collide as a mesh (with a signed distance field, say). Errors: a non-positive or
    /// non-finite half extent.
    pub fn cuboid(h: DVec3) -> Result<Self> {
        let corners = crate::shape::Cuboid::new(h)?.corners();
        // `Cuboid::corners` is in bit order: bit 0 → +x, bit 1 → +y, bit 2 → +z.
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
        Self::new(corners.to_vec(), triangles)
    }

    /// A closed solid of revolution about the local z axis (a bowl, a cup, a peg): `profile` lists `(radius, z)`
    /// points from one point on the axis (radius 0) to another, with positive radii between; each is turned into
    /// a ring of `segments` vertices. The triangles are counter-clockwise seen from outside whichever way the
    /// profile runs. Errors: fewer than 3 profile points or 3 segments, ends off the axis, a non-positive radius
    /// between them, non-finite values.
    pub fn of_revolution(profile: &[(f64, f64)], segments: usize) -> Result<Self> {
        let invalid = |what: String| GeometryError::InvalidMesh { shape: "triangle mesh", what };
        let m = profile.len();
        if m < 3 || segments < 3 {
            return Err(invalid(format!(
                "a solid of revolution needs at least 3 profile points and 3 segments, got {m} and {segments}"
            )));
        }
        for &(r, z) in profile {
            finite_vec("triangle mesh", "profile", DVec3::new(r, z, 0.0))?;
        }
        if profile[0].0 != 0.0 || profile[m - 1].0 != 0.0 {
            return Err(invalid("the profile must start and end on the axis (radius 0)".into()));
        }
        if let Some(i) = (1..m - 1).find(|&i| !(profile[i].0 > 0.0)) {
            return Err(invalid(format!("profile point {i} has radius {} (must be > 0)", profile[i].0)));
        }
        let mut v = vec![DVec3::new(0.0, 0.0, profile[0].1)];
        for &(r, z) in &profile[1..m - 1] {
            for k in 0..segments {
                let t = std::f64::consts::TAU * k as f64 / segments as f64;
                v.push(DVec3::new(r * t.cos(), r * t.sin(), z));
            }
        }
        v.push(DVec3::new(0.0, 0.0, profile[m - 1].1));
        let ring = |i: usize, k: usize| (1 + (i - 1) * segments + k % segments) as u32;
        let last = (v.len() - 1) as u32;
        let mut t = Vec::with_capacity(2 * segments * (m - 2));
        for k in 0..segments {
            t.push([0, ring(1, k + 1), ring(1, k)]);
            for i in 1..m - 2 {
                t.push([ring(i, k), ring(i, k + 1), ring(i + 1, k + 1)]);
                t.push([ring(i, k), ring(i + 1, k + 1), ring(i + 1, k)]);
            }
            t.push([last, ring(m - 2, k), ring(m - 2, k + 1)]);
        }
        // Six times the signed volume: negative when the profile ran the other way round.
        let volume: f64 =
            t.iter().map(|&[a, b, c]| v[a as usize].dot(v[b as usize].cross(v[c as usize]))).sum();
        if volume < 0.0 {
            t.iter_mut().for_each(|tri| tri.swap(1, 2));
        }
        Self::new(v, t)
    }

    /// The mesh with its signed distance field sampled under `settings` (see [`SignedDistanceField::build`]; the
    /// mesh must be closed).
    pub fn with_sdf(mut self, settings: &SdfSettings) -> Result<Self> {
        self.sdf = Some(Arc::new(SignedDistanceField::build(&self, settings)?));
        Ok(self)
    }

    /// The signed distance field, when [`TriangleMesh::with_sdf`] sampled one.
    pub fn sdf(&self) -> Option<&SignedDistanceField> {
        self.sdf.as_deref()
    }

    /// The undirected edges `[a, b]` (`a < b`), each once, sorted; computed on the first call.
    pub fn edges(&self) -> &[[u32; 2]] {
        self.edges.0.get_or_init(|| {
            let mut edges: Vec<[u32; 2]> = self
                .triangles
                .iter()
                .flat_map(|&[a, b, c]| [[a, b], [b, c], [c, a]])
                .map(|[a, b]| [a.min(b), a.max(b)])
                .collect();
            edges.sort_unstable();
            edges.dedup();
            edges
        })
    }

    /// The convex hull of the vertices the triangles use; `None` when they do not span a volume (a flat mesh).
    pub fn convex_hull(&self) -> Option<&Arc<ConvexMesh>> {
        self.hull.as_ref()
    }

    /// The AABB tree over the triangles (local frame); its primitive indices are triangle indices.
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }

    /// Vertices, local frame.
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// Triangles as vertex index triples.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The three corners of triangle `t`.
    pub fn triangle(&self, t: usize) -> [DVec3; 3] {
        let [a, b, c] = self.triangles[t];
        [self.vertices[a as usize], self.vertices[b as usize], self.vertices[c as usize]]
    }

    /// Whether the mesh is a closed, consistently oriented 2-manifold: every directed edge `(a, b)` appears exactly
    /// once and its reverse `(b, a)` appears exactly once. Only such a mesh encloses a volume.
    pub fn is_closed(&self) -> bool {
        let mut directed: Vec<(u32, u32)> =
            self.triangles.iter().flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)]).collect();
        directed.sort_unstable();
        if directed.windows(2).any(|w| w[0] == w[1]) {
            return false;
        }
        directed.iter().all(|&(a, b)| directed.binary_search(&(b, a)).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetra() -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
        let t = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
        (v, t)
    }

    #[test]
    fn closed_tetrahedron() {
        let (v, t) = tetra();
        let m = TriangleMesh::new(v, t).unwrap();
        assert!(m.is_closed());
    }

    #[test]
    fn open_and_misoriented_are_not_closed() {
        let (v, mut t) = tetra();
        let open = TriangleMesh::new(v.clone(), t[..3].to_vec()).unwrap();
        assert!(!open.is_closed());
        t[3] = [1, 3, 2];
        assert!(!TriangleMesh::new(v, t).unwrap().is_closed());
    }

    #[test]
    fn bvh_covers_every_triangle() {
        let (v, t) = tetra();
        let m = TriangleMesh::new(v, t).unwrap();
        let root = m.bvh().root().unwrap();
        assert!(root.is_leaf());
        let mut tris = m.bvh().leaf_primitives(root).to_vec();
        tris.sort_unstable();
        assert_eq!(tris, [0, 1, 2, 3]);
        assert_eq!(root.aabb, Aabb::new(DVec3::ZERO, DVec3::ONE));
    }

    #[test]
    fn cuboid_mesh_is_closed_with_the_box_volume() {
        let m = TriangleMesh::cuboid(DVec3::new(0.1, 0.2, 0.3)).unwrap();
        assert!(m.is_closed());
        let volume = crate::MassProperties::from_density(&crate::Shape::from(m), 1.0).unwrap().mass;
        assert!((volume - 0.2 * 0.4 * 0.6).abs() < 1e-15, "{volume}");
        assert!(TriangleMesh::cuboid(DVec3::new(0.1, 0.0, 0.3)).is_err());
    }

    #[test]
    fn solid_of_revolution_is_closed_with_the_cylinder_volume() {
        let cyl = TriangleMesh::of_revolution(&[(0.0, 0.0), (1.0, 0.0), (1.0, 2.0), (0.0, 2.0)], 64).unwrap();
        assert!(cyl.is_closed());
        let volume = crate::MassProperties::from_density(&crate::Shape::from(cyl), 1.0).unwrap().mass;
        // A 64-gon prism: (64/2) sin(2π/64) r² h.
        let exact = 32.0 * (std::f64::consts::TAU / 64.0).sin() * 2.0;
        assert!((volume - exact).abs() < 1e-9, "{volume} vs {exact}");
        let reversed =
            TriangleMesh::of_revolution(&[(0.0, 2.0), (1.0, 2.0), (1.0, 0.0), (0.0, 0.0)], 64).unwrap();
        let v2 = crate::MassProperties::from_density(&crate::Shape::from(reversed), 1.0).unwrap().mass;
        assert!((v2 - exact).abs() < 1e-9);
        assert!(TriangleMesh::of_revolution(&[(0.1, 0.0), (1.0, 0.0), (0.0, 1.0)], 8).is_err());
        assert!(TriangleMesh::of_revolution(&[(0.0, 0.0), (0.0, 0.5), (0.0, 1.0)], 8).is_err());
    }

    #[test]
    fn rejects_bad_input() {
        let (v, _) = tetra();
        assert!(matches!(TriangleMesh::new(v.clone(), vec![]), Err(GeometryError::InvalidMesh { .. })));
        assert!(matches!(
            TriangleMesh::new(v.clone(), vec![[0, 1, 9]]),
            Err(GeometryError::InvalidMesh { .. })
        ));
        assert!(matches!(TriangleMesh::new(v, vec![[0, 1, 1]]), Err(GeometryError::InvalidMesh { .. })));
        let nan = vec![DVec3::ZERO, DVec3::X, DVec3::new(0.0, f64::NAN, 0.0)];
        assert!(matches!(TriangleMesh::new(nan, vec![[0, 1, 2]]), Err(GeometryError::NonFinite { .. })));
    }
}
