//! The polygonal faces of a convex hull: its triangles merged into polygons where neighbouring triangles are
//! coplanar (the faces native collisions and the SDF depth read; MuJoCo 4.0's own polygons, which bin triangles by
//! the direction of their normals, are [`super::mujoco_polygons`]).
//!
//! A triangle joins a polygon it shares an edge with when its unit normal `n` and the polygon's normal `p`
//! satisfy `n·p > POLYGON_NORMAL_DOT` (about 0.09°, the tolerance of MuJoCo's compiler before 3.6). The polygon's
//! normal is the normal of its first triangle (lowest index). Each polygon lists its boundary vertices
//! counter-clockwise seen from outside, starting at the first vertex of its first triangle's first boundary edge.
//! This reproduces exactly coplanar faces (boxes, prisms, planar caps) whatever the triangulation.

use glam::DVec3;

/// `n₁·n₂` above which two unit normals count as the same plane (the `PolygonCmp` of MuJoCo's compiler before 3.6).
pub(crate) const POLYGON_NORMAL_DOT: f64 = 0.99999872;

/// Polygons of a hull (compressed rows) and the polygons around each vertex.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct HullPolygons {
    /// Vertices of polygon `i` are `vertices[start[i]..start[i + 1]]`.
    pub(crate) start: Vec<u32>,
    pub(crate) vertices: Vec<u32>,
    pub(crate) normals: Vec<DVec3>,
    /// Polygons around vertex `v` are `vertex_polygons[vertex_start[v]..vertex_start[v + 1]]` (ascending).
    pub(crate) vertex_start: Vec<u32>,
    pub(crate) vertex_polygons: Vec<u32>,
}

impl HullPolygons {
    /// Merges the outward, counter-clockwise `triangles` (unit `normals`) of a closed hull with `nvert` vertices.
    pub(crate) fn new(nvert: usize, triangles: &[[u32; 3]], normals: &[DVec3]) -> HullPolygons {
        let nt = triangles.len();
        // Directed edge (a, b) → its triangle; the reverse edge belongs to the neighbour across it.
        let mut directed: Vec<(u32, u32, u32)> = triangles
            .iter()
            .enumerate()
            .flat_map(|(t, tri)| (0..3).map(move |k| (tri[k], tri[(k + 1) % 3], t as u32)))
            .collect();
        directed.sort_unstable();
        let across = |a: u32, b: u32| -> Option<usize> {
            directed.binary_search_by(|e| (e.0, e.1).cmp(&(b, a))).ok().map(|i| directed[i].2 as usize)
        };

        // Grow polygons from triangles in index order: a triangle joins the first earlier neighbour's polygon
        // whose normal it matches, and links any other matching neighbour polygons into it.
        let mut group: Vec<usize> = (0..nt).collect();
        fn root(group: &mut [usize], mut t: usize) -> usize {
            while group[t] != t {
                group[t] = group[group[t]];
                t = group[t];
            }
            t
        }
        for (t, tri) in triangles.iter().enumerate() {
            for k in 0..3 {
                let Some(u) = across(tri[k], tri[(k + 1) % 3]).filter(|&u| u < t) else { continue };
                let (rt, ru) = (root(&mut group, t), root(&mut group, u));
                if rt == ru {
                    continue;
                }
                // A group's root is its lowest triangle, whose normal is the polygon's normal.
                let (lo, hi) = (rt.min(ru), rt.max(ru));
                if normals[t].dot(normals[ru]) > POLYGON_NORMAL_DOT
                    && normals[lo].dot(normals[hi]) > POLYGON_NORMAL_DOT
                {
                    group[hi] = lo;
                }
            }
        }

        // Boundary of each polygon: its directed edges whose reverse lies in another polygon, chained head to tail.
        let roots: Vec<usize> = (0..nt).map(|t| root(&mut group, t)).collect();
        let mut next = vec![u32::MAX; nvert];
        let mut out = HullPolygons { start: vec![0], ..HullPolygons::default() };
        for r in (0..nt).filter(|&t| roots[t] == t) {
            let mut first = None;
            for t in (r..nt).filter(|&t| roots[t] == r) {
                let tri = triangles[t];
                for k in 0..3 {
                    let (a, b) = (tri[k], tri[(k + 1) % 3]);
                    if across(a, b).is_none_or(|u| roots[u] != r) {
                        next[a as usize] = b;
                        first.get_or_insert(a);
                    }
                }
            }
            let Some(first) = first else { continue };
            // A closed hull makes every boundary a simple cycle; the step bound only guards malformed input.
            let mut v = first;
            for _ in 0..nvert {
                out.vertices.push(v);
                v = next[v as usize];
                if v == first || v == u32::MAX {
                    break;
                }
            }
            out.start.push(out.vertices.len() as u32);
            out.normals.push(normals[r]);
        }

        out.index_vertices(nvert);
        out
    }

    /// Fills the vertex → polygons lists from `start` and `vertices` (polygons ascending around each vertex).
    pub(crate) fn index_vertices(&mut self, nvert: usize) {
        let mut count = vec![0u32; nvert + 1];
        for &v in &self.vertices {
            count[v as usize + 1] += 1;
        }
        for v in 0..nvert {
            count[v + 1] += count[v];
        }
        self.vertex_polygons = vec![0; self.vertices.len()];
        let mut fill = count[..nvert].to_vec();
        for p in 0..self.normals.len() {
            for &v in &self.vertices[self.start[p] as usize..self.start[p + 1] as usize] {
                self.vertex_polygons[fill[v as usize] as usize] = p as u32;
                fill[v as usize] += 1;
            }
        }
        self.vertex_start = count;
    }

    /// A read-only view.
    pub(crate) fn view(&self) -> Polygons<'_> {
        Polygons(self)
    }
}

/// The polygonal faces of a hull ([`crate::ConvexMesh::polygon`] and its neighbours, or
/// [`crate::ConvexMesh::mujoco_polygons`]): vertex lists counter-clockwise seen from outside, unit outward normals,
/// and the polygons around each vertex.
#[derive(Debug, Clone, Copy)]
pub struct Polygons<'a>(&'a HullPolygons);

impl<'a> Polygons<'a> {
    /// Number of polygons.
    pub fn len(&self) -> usize {
        self.0.normals.len()
    }

    /// Whether there is no polygon.
    pub fn is_empty(&self) -> bool {
        self.0.normals.is_empty()
    }

    /// The vertices of polygon `p`, counter-clockwise seen from outside; empty for an out-of-range `p`.
    pub fn vertices(&self, p: usize) -> &'a [u32] {
        let s = &self.0.start;
        match (s.get(p), p.checked_add(1).and_then(|q| s.get(q))) {
            (Some(&a), Some(&b)) => &self.0.vertices[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Unit outward normal of polygon `p`; zero for an out-of-range `p`.
    pub fn normal(&self, p: usize) -> DVec3 {
        self.0.normals.get(p).copied().unwrap_or(DVec3::ZERO)
    }

    /// The polygons that have vertex `v` (ascending); empty for an out-of-range `v`.
    pub fn around(&self, v: usize) -> &'a [u32] {
        let s = &self.0.vertex_start;
        match (s.get(v), v.checked_add(1).and_then(|w| s.get(w))) {
            (Some(&a), Some(&b)) => &self.0.vertex_polygons[a as usize..b as usize],
            _ => &[],
        }
    }
}
