//! Indexed triangle mesh.

use std::sync::Arc;

use glam::DVec3;

use crate::aabb::Aabb;
use crate::bvh::Bvh;
use crate::error::{GeometryError, Result, finite_vec};
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
#[derive(Debug, Clone, PartialEq)]
pub struct TriangleMesh {
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    bvh: Bvh,
    hull: Option<Arc<ConvexMesh>>,
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
        Ok(Self { vertices, triangles, bvh, hull })
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
