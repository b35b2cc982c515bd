//! Convex polyhedron: the convex hull of a point set.
//!
//! Local frame = the frame of the input points (no recentring). The mesh stores its extreme points, the
//! outward-oriented hull triangles with unit normals, the unique undirected edges and the vertex adjacency
//! (compressed sparse rows), which the hill-climbing support query walks, and the polygonal faces (coplanar
//! triangles merged, see [`hull_polygons`](super::hull_polygons)) with the volume centroid, which MuJoCo's
//! plane–mesh contacts use.

use glam::{DMat3, DQuat, DVec3};

use super::hull_polygons::{HullPolygons, Polygons};
use super::mujoco_polygons::mujoco_polygons;
use super::support_cube_map::{SupportCubeMap, cube_cell, face_direction};
use crate::error::Result;
use crate::mass::polyhedron;
use crate::quickhull::{Hull, convex_hull, triangle_normal};
use crate::support::{SupportMap, brute_force_support_index};

/// Relative width of the near-tie band that the hill-climbing support explores after reaching a local maximum:
/// vertices with `d·v ≥ d·v_local − PLATEAU_REL · |d|₁ · max|v|` are visited. It is far above the rounding error of a
/// dot product (`≈ 3e-16 · |d| · |v|`), so the band always contains the exact (brute-force) maximiser.
const PLATEAU_REL: f64 = 1e-9;

/// Largest plateau resolved by the allocation-free local search before falling back to the brute-force scan.
const PLATEAU_CAP: usize = 64;

/// A convex polyhedron, built as the convex hull of points ([`ConvexMesh::from_points`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexMesh {
    vertices: Vec<DVec3>,
    triangles: Vec<[u32; 3]>,
    face_normals: Vec<DVec3>,
    edges: Vec<[u32; 2]>,
    /// Neighbours of vertex `v` are `adjacency[adjacency_start[v]..adjacency_start[v + 1]]`, sorted ascending.
    adjacency_start: Vec<u32>,
    adjacency: Vec<u32>,
    /// `max |v|` over the vertices (distance from the local origin).
    bounding_radius: f64,
    polygons: HullPolygons,
    /// MuJoCo 4.0's polygons ([`ConvexMesh::with_mujoco_polygons`]), when they were made.
    mujoco_polygons: Option<HullPolygons>,
    /// Centroid of the enclosed volume.
    centroid: DVec3,
    /// Mean of the vertices.
    vertex_mean: DVec3,
    /// Componentwise minimum and maximum of the vertices (the local AABB).
    vertex_bounds: (DVec3, DVec3),
    /// The centre of mass given by [`ConvexMesh::with_inertial_frame`] and the vertices' bounds in that frame.
    inertial: Option<(DVec3, (DVec3, DVec3))>,
    /// The support vertex through the centre of each start-table cell: where a hill climb starts.
    start_vertices: [u32; START_CELLS],
    /// Candidate supports per cube-map cell, for hulls of `CUBE_MAP_MIN ..= CUBE_MAP_MAX` vertices.
    support_map: Option<SupportCubeMap>,
}

/// Directions with no component of at least this size take the hill climb (see
/// [`ConvexMesh::support_index_cube_map`]).
const TINY_DIRECTION: f64 = 1e-300;

/// Largest hull given a [`SupportCubeMap`], whose build visits every vertex per cell (1 536 cells). Here (best of 3,
/// points on a sphere) a hull of 100 vertices with its map takes 1.2 ms to build, of 4 000 73 ms; of 5 000 (no map)
/// 55 ms.
const CUBE_MAP_MAX: usize = 4096;

/// Smallest hull given a [`SupportCubeMap`]. The map's lookup has no data-dependent branch, where the hill climb
/// from the last support branches on every neighbour: on the Panda's 18-vertex finger hulls the map removed the
/// climb's mispredictions from GJK (`valgrind --tool=cachegrind --branch-sim=yes`). A box's 8 corners keep the
/// climb (a step or two from the start table), and their 12 kB map would outweigh the hull.
const CUBE_MAP_MIN: usize = 9;

/// Cells per cube-face side of the start table (see [`ConvexMesh::support_start`]).
const START_GRID: usize = 8;

/// Cells of the start table: six faces of `START_GRID²`.
const START_CELLS: usize = 6 * START_GRID * START_GRID;

/// The start-table cell of a non-zero direction (a cube map, see [`cube_cell`]).
#[inline]
fn start_cell(dir: DVec3) -> usize {
    cube_cell(dir, START_GRID)
}

/// The direction through the centre of start-table cell `k` (the inverse of [`start_cell`]).
fn start_cell_direction(k: usize) -> DVec3 {
    let (face, rest) = (k / (START_GRID * START_GRID), k % (START_GRID * START_GRID));
    let centre = |i: usize| (i as f64 + 0.5) / START_GRID as f64 * 2.0 - 1.0;
    face_direction(face, centre(rest / START_GRID), centre(rest % START_GRID))
}

impl ConvexMesh {
    /// The convex hull of `points`, in their frame (see [`crate::quickhull`] for the algorithm and the tolerance).
    ///
    /// Errors: [`GeometryError::NonFinite`](crate::GeometryError::NonFinite) for a non-finite coordinate,
    /// [`GeometryError::DegenerateHull`](crate::GeometryError::DegenerateHull) for fewer than 4 points or points
    /// that coincide, are collinear or are coplanar.
    pub fn from_points(points: &[DVec3]) -> Result<ConvexMesh> {
        Ok(Self::from_hull(convex_hull(points)?))
    }

    fn from_hull(hull: Hull) -> ConvexMesh {
        let Hull { vertices, triangles } = hull;
        let face_normals: Vec<DVec3> = triangles
            .iter()
            .map(|t| {
                triangle_normal(vertices[t[0] as usize], vertices[t[1] as usize], vertices[t[2] as usize])
            })
            .collect();
        let mut edges: Vec<[u32; 2]> = triangles
            .iter()
            .flat_map(|t| (0..3).map(move |k| [t[k].min(t[(k + 1) % 3]), t[k].max(t[(k + 1) % 3])]))
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let n = vertices.len();
        let mut degree = vec![0u32; n];
        for [a, b] in &edges {
            degree[*a as usize] += 1;
            degree[*b as usize] += 1;
        }
        let mut adjacency_start = Vec::with_capacity(n + 1);
        let mut acc = 0u32;
        adjacency_start.push(0);
        for d in &degree {
            acc += d;
            adjacency_start.push(acc);
        }
        let mut fill: Vec<u32> = adjacency_start[..n].to_vec();
        let mut adjacency = vec![0u32; acc as usize];
        // Edges are sorted by (a, b): each list receives its entries in ascending order (the lower ends `a` of the
        // edges of `b` come in increasing order, before the upper ends of `b`'s own edges).
        for [a, b] in &edges {
            adjacency[fill[*a as usize] as usize] = *b;
            fill[*a as usize] += 1;
            adjacency[fill[*b as usize] as usize] = *a;
            fill[*b as usize] += 1;
        }
        let bounding_radius = vertices.iter().map(|v| v.length()).fold(0.0, f64::max);
        let polygons = HullPolygons::new(n, &triangles, &face_normals);
        // A hull from `convex_hull` encloses volume; the vertex mean only stands in for a degenerate one.
        let vertex_mean = vertices.iter().copied().sum::<DVec3>() / n.max(1) as f64;
        let centroid = polyhedron(&vertices, &triangles, "convex mesh").map_or(vertex_mean, |m| m.com);
        let vertex_bounds = vertices
            .iter()
            .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let start_vertices: [u32; START_CELLS] = std::array::from_fn(|k| {
            brute_force_support_index(&vertices, start_cell_direction(k)).unwrap_or(0) as u32
        });
        let mut mesh = ConvexMesh {
            start_vertices,
            support_map: None,
            vertices,
            triangles,
            face_normals,
            edges,
            adjacency_start,
            adjacency,
            bounding_radius,
            polygons,
            mujoco_polygons: None,
            centroid,
            vertex_mean,
            vertex_bounds,
            inertial: None,
        };
        if (CUBE_MAP_MIN..=CUBE_MAP_MAX).contains(&n) {
            let map = SupportCubeMap::new(&mesh.vertices, mesh.bounding_radius, |d, start| {
                mesh.support_index_hill_climb(d, start)
            });
            mesh.support_map = Some(map);
        }
        mesh
    }

    /// The hull's extreme points (local frame), in increasing order of their index in the input of
    /// [`ConvexMesh::from_points`].
    pub fn vertices(&self) -> &[DVec3] {
        &self.vertices
    }

    /// Triangles, counter-clockwise seen from outside: `(b − a) × (c − a)` points outward.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Unit outward normal of each triangle.
    pub fn face_normals(&self) -> &[DVec3] {
        &self.face_normals
    }

    /// The unique undirected edges `[a, b]` with `a < b`, sorted.
    pub fn edges(&self) -> &[[u32; 2]] {
        &self.edges
    }

    /// The neighbours of vertex `v` (sorted ascending); empty for an out-of-range `v`.
    pub fn neighbors(&self, v: usize) -> &[u32] {
        let start = self.adjacency_start.get(v);
        let end = v.checked_add(1).and_then(|w| self.adjacency_start.get(w));
        match (start, end) {
            (Some(&s), Some(&e)) => self.adjacency.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Number of polygonal faces (coplanar triangles merged; see the module docs).
    pub fn polygon_count(&self) -> usize {
        self.polygons.normals.len()
    }

    /// The vertices of polygon `p`, counter-clockwise seen from outside; empty for an out-of-range `p`.
    pub fn polygon(&self, p: usize) -> &[u32] {
        let s = &self.polygons.start;
        match (s.get(p), p.checked_add(1).and_then(|q| s.get(q))) {
            (Some(&a), Some(&b)) => &self.polygons.vertices[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Unit outward normal of polygon `p` (the normal of its first triangle); zero for an out-of-range `p`.
    pub fn polygon_normal(&self, p: usize) -> DVec3 {
        self.polygons.normals.get(p).copied().unwrap_or(DVec3::ZERO)
    }

    /// This hull with MuJoCo 4.0's polygons besides its own. MuJoCo bins the triangles by the direction of their
    /// normals in the mesh file's frame, before its `scale` (see [`ConvexMesh::mujoco_polygons`]): `file_from_hull`
    /// is the linear map from this hull's frame to that one, `diag(1 / scale)` for a hull of the file's vertices
    /// times `scale`, the rotation of MuJoCo's `mesh_quat` for one in MuJoCo's stored frame.
    pub fn with_mujoco_polygons(mut self, file_from_hull: DMat3) -> ConvexMesh {
        self.mujoco_polygons = Some(mujoco_polygons(&self.vertices, &self.triangles, file_from_hull, None));
        self
    }

    /// [`ConvexMesh::with_mujoco_polygons`] with each polygon's normal summed over `exact`, the hull's vertices
    /// (one per vertex, in order) in another frame, which the rotation `hull_from_exact` turns into the hull's. MuJoCo
    /// computes `mesh_polynormal` from its double-precision vertices in the mesh's inertial frame and then stores the
    /// vertices in single precision: a hull of those stored vertices takes its normals from the unrounded ones (a
    /// polygon a few millimetres wide tilts by 1e-7 rad otherwise).
    ///
    /// Errors: [`GeometryError::InvalidMesh`](crate::GeometryError::InvalidMesh) when `exact` does not hold one
    /// point per hull vertex.
    pub fn with_mujoco_polygons_normals_from(
        mut self,
        file_from_hull: DMat3,
        exact: &[DVec3],
        hull_from_exact: DMat3,
    ) -> Result<ConvexMesh> {
        if exact.len() != self.vertices.len() {
            return Err(crate::GeometryError::InvalidMesh {
                shape: "convex mesh",
                what: format!(
                    "{} points for the normals of a hull of {} vertices",
                    exact.len(),
                    self.vertices.len()
                ),
            });
        }
        self.mujoco_polygons = Some(mujoco_polygons(
            &self.vertices,
            &self.triangles,
            file_from_hull,
            Some((exact, hull_from_exact)),
        ));
        Ok(self)
    }

    /// The polygons MuJoCo 4.0's compiler makes of this mesh (`mesh_polyvert`, `mesh_polynormal`): triangles whose
    /// normals fall in the same 0.01 rad bins of azimuth and polar angle, merged where they share edges, each with
    /// its area-weighted normal. A curved mesh keeps most of its triangles. The coplanar polygons
    /// ([`ConvexMesh::polygon`]) when [`ConvexMesh::with_mujoco_polygons`] was not called.
    pub fn mujoco_polygons(&self) -> Polygons<'_> {
        self.mujoco_polygons.as_ref().unwrap_or(&self.polygons).view()
    }

    /// The polygons that have `v` as a vertex (ascending); empty for an out-of-range `v`.
    pub fn vertex_polygons(&self, v: usize) -> &[u32] {
        let s = &self.polygons.vertex_start;
        match (s.get(v), v.checked_add(1).and_then(|w| s.get(w))) {
            (Some(&a), Some(&b)) => &self.polygons.vertex_polygons[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Centroid of the enclosed volume (local frame).
    pub fn centroid(&self) -> DVec3 {
        self.centroid
    }

    /// The mean of the vertices (local frame).
    pub fn vertex_mean(&self) -> DVec3 {
        self.vertex_mean
    }

    /// The componentwise minimum and maximum of the vertices: the local AABB.
    pub fn vertex_bounds(&self) -> (DVec3, DVec3) {
        self.vertex_bounds
    }

    /// Records the mesh's inertial frame (centre of mass `com`, principal axes `rotation`, both in this hull's
    /// frame): MuJoCo's compiler moves a mesh to that frame, so the box of its vertices there is the local AABB
    /// MuJoCo and Genesis see ([`ConvexMesh::inertial_bounds`]), while this hull keeps the frame it was written in.
    pub fn with_inertial_frame(mut self, com: DVec3, rotation: DQuat) -> ConvexMesh {
        let r = DMat3::from_quat(rotation).transpose();
        let bounds = self.vertices.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), &v| {
            let p = r * (v - com);
            (lo.min(p), hi.max(p))
        });
        self.inertial = Some((com, bounds));
        self
    }

    /// The origin of the inertial frame given by [`ConvexMesh::with_inertial_frame`] (where MuJoCo places a mesh
    /// geom's frame, `geom_xpos`); the hull's volume centroid when none was given.
    pub fn inertial_origin(&self) -> DVec3 {
        self.inertial.map_or(self.centroid, |(com, _)| com)
    }

    /// Componentwise minimum and maximum of the vertices in the inertial frame given by
    /// [`ConvexMesh::with_inertial_frame`]; the local AABB ([`ConvexMesh::vertex_bounds`]) when none was given.
    pub fn inertial_bounds(&self) -> (DVec3, DVec3) {
        self.inertial.map_or(self.vertex_bounds, |(_, bounds)| bounds)
    }

    /// `max |v|` over the vertices: the radius of the smallest origin-centred ball holding the mesh.
    pub fn bounding_radius(&self) -> f64 {
        self.bounding_radius
    }

    /// Index of the vertex maximising `dir · v` by an O(n) scan; the lowest index wins ties.
    pub fn support_index_brute_force(&self, dir: DVec3) -> usize {
        brute_force_support_index(&self.vertices, dir).unwrap_or(0)
    }

    /// A good vertex to start a hill climb along `dir` from: the support through the centre of the cube-map cell
    /// that `dir` falls in (384 cells, each within ~10° of its centre), so the climb takes a step or two. 0 for a
    /// zero or non-finite direction.
    #[inline]
    pub fn support_start(&self, dir: DVec3) -> usize {
        if !(dir.abs().max_element() > 0.0) || !dir.is_finite() {
            return 0;
        }
        self.start_vertices[start_cell(dir)] as usize
    }

    /// Index of the vertex maximising `dir · v` (lowest index on ties, equal to
    /// [`ConvexMesh::support_index_brute_force`]) by a scan of the candidates of `dir`'s cube-map cell: for each of
    /// 1 536 cells of directions, the mesh keeps the vertices that no other vertex beats at all four corners of the
    /// cell, which hold every maximiser in the cell. `None` for a hull without a map (under 9 or over 4 096
    /// vertices) and for a direction whose largest component is below 1e-300 (zero included) or whose dots are not
    /// finite.
    #[inline(always)]
    pub fn support_index_cube_map(&self, dir: DVec3) -> Option<usize> {
        let map = self.support_map.as_ref()?;
        // Below `TINY_DIRECTION` the cell's division by the largest component could overflow, and the dots lose
        // digits to underflow (so that the candidates' lowest-index tie need not be the brute force's).
        let largest = dir.abs().max_element();
        if !(largest >= TINY_DIRECTION) || !(largest * self.bounding_radius).is_finite() {
            return None;
        }
        map.best_candidate(dir, &self.vertices)
    }

    /// Mean number of candidate vertices per cube-map cell (0 without a map): the cost of
    /// [`ConvexMesh::support_index_cube_map`] in dot products.
    pub fn cube_map_mean_candidates(&self) -> f64 {
        self.support_map.as_ref().map_or(0.0, SupportCubeMap::mean_candidates)
    }

    /// Index of the vertex maximising `dir · v` by hill climbing from `start` (0 if out of range); always equal to
    /// [`ConvexMesh::support_index_brute_force`], in `O(√n)` steps on typical meshes.
    ///
    /// Steepest ascent moves to the best strictly better neighbour until none exists (on a convex polytope a local
    /// maximum of a linear function is global). Then the band of vertices within `PLATEAU_REL · |d|₁ · max|v|` of
    /// that value is explored by breadth-first search (the vertices of a polytope in a half-space form a connected
    /// subgraph), and its best vertex, lowest index on exact ties, is returned; if the band holds a strictly better
    /// vertex the climb resumes from it. Dots are `dir.dot(v)` as in the brute force, so ties agree bit for bit.
    /// A zero direction gives 0; a direction whose dots are not finite falls back to the brute force.
    pub fn support_index_hill_climb(&self, dir: DVec3, start: usize) -> usize {
        let n = self.vertices.len();
        if n == 0 || dir == DVec3::ZERO {
            return 0;
        }
        let scale = (dir.x.abs() + dir.y.abs() + dir.z.abs()) * self.bounding_radius;
        if !scale.is_finite() {
            return self.support_index_brute_force(dir);
        }
        let tol = PLATEAU_REL * scale;
        let mut cur = if start < n { start } else { 0 };
        let mut cur_dot = dir.dot(self.vertices[cur]);
        loop {
            // One pass over the neighbours both climbs and notices a near-tie (a plateau to resolve).
            let (mut best, mut best_dot) = (cur, cur_dot);
            let mut near_tie = false;
            for &w in self.neighbors(cur) {
                let d = dir.dot(self.vertices[w as usize]);
                if d > best_dot {
                    (best, best_dot) = (w as usize, d);
                } else if d >= cur_dot - tol {
                    near_tie = true;
                }
            }
            if best != cur {
                (cur, cur_dot) = (best, best_dot);
                continue;
            }
            if !near_tie {
                return cur;
            }
            let (best, best_dot) = self.plateau_best(dir, cur, cur_dot, cur_dot - tol);
            if best_dot > cur_dot {
                (cur, cur_dot) = (best, best_dot);
            } else {
                return best;
            }
        }
    }

    /// Index of a vertex maximising `dir · v`, by ascent from `start` (0 if out of range) without resolving ties:
    /// it moves to the first strictly better neighbour until none exists, which on a convex polytope is a maximiser.
    /// Among vertices of equal (or within rounding equal) dots, a face facing `dir`, it returns the one it reached,
    /// not necessarily the lowest index: for iterative queries (GJK, EPA), which need the support value and some
    /// support point, not [`ConvexMesh::support_index_hill_climb`]'s canonical one. First-improvement moves cost
    /// fewer dot products than steepest ascent from a nearby start (the previous support): Panda hull distances 16 →
    /// 14 µs. A zero or non-finite direction falls back to the exact query.
    #[inline]
    pub fn support_index_ascent(&self, dir: DVec3, start: usize) -> usize {
        let n = self.vertices.len();
        if n == 0 || !(dir.abs().max_element() * self.bounding_radius).is_finite() || dir == DVec3::ZERO {
            return self.support_index_hill_climb(dir, start);
        }
        let mut cur = if start < n { start } else { 0 };
        let mut cur_dot = dir.dot(self.vertices[cur]);
        'climb: loop {
            for &w in self.neighbors(cur) {
                let d = dir.dot(self.vertices[w as usize]);
                if d > cur_dot {
                    (cur, cur_dot) = (w as usize, d);
                    continue 'climb;
                }
            }
            return cur;
        }
    }

    /// Best vertex (largest dot, then lowest index) among those reachable from `v` through vertices with
    /// `dir · w ≥ threshold`. The search uses fixed-size stacks (no allocation); a plateau larger than
    /// [`PLATEAU_CAP`] vertices is resolved by the brute-force scan, which gives the same answer.
    fn plateau_best(&self, dir: DVec3, v: usize, v_dot: f64, threshold: f64) -> (usize, f64) {
        let mut best = (v, v_dot);
        let mut seen = [0u32; PLATEAU_CAP];
        let mut stack = [0u32; PLATEAU_CAP];
        seen[0] = v as u32;
        stack[0] = v as u32;
        let (mut n_seen, mut n_stack) = (1usize, 1usize);
        while n_stack > 0 {
            n_stack -= 1;
            let u = stack[n_stack] as usize;
            for &w in self.neighbors(u) {
                let d = dir.dot(self.vertices[w as usize]);
                if d < threshold || seen[..n_seen].contains(&w) {
                    continue;
                }
                if n_seen == PLATEAU_CAP {
                    let i = self.support_index_brute_force(dir);
                    return (i, dir.dot(self.vertices[i]));
                }
                seen[n_seen] = w;
                n_seen += 1;
                stack[n_stack] = w;
                n_stack += 1;
                if d > best.1 || (d == best.1 && (w as usize) < best.0) {
                    best = (w as usize, d);
                }
            }
        }
        best
    }
}

/// Up to this many vertices a scan over them beats hill climbing (same answer, by the climb's contract).
const SCAN_MAX: usize = 32;

impl SupportMap for ConvexMesh {
    /// The vertex maximising `dir · v` (lowest index on ties): a scan of small hulls, the cube map's candidates
    /// ([`ConvexMesh::support_index_cube_map`]) on larger ones, hill climbing from [`ConvexMesh::support_start`] on
    /// hulls too large for a map.
    #[inline]
    fn local_support(&self, dir: DVec3) -> DVec3 {
        let i = if self.vertices.len() <= SCAN_MAX {
            self.support_index_brute_force(dir)
        } else if let Some(i) = self.support_index_cube_map(dir) {
            i
        } else if !(dir.abs().max_element() >= TINY_DIRECTION) {
            // The dots underflow: the climb can stop at a tie that is not the lowest-index maximum.
            self.support_index_brute_force(dir)
        } else {
            self.support_index_hill_climb(dir, self.support_start(dir))
        };
        self.vertices.get(i).copied().unwrap_or(DVec3::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GeometryError;

    fn cube(h: f64) -> ConvexMesh {
        ConvexMesh::from_points(&crate::Cuboid::new(DVec3::splat(h)).unwrap().corners()).unwrap()
    }

    #[test]
    fn cube_topology() {
        let m = cube(0.5);
        assert_eq!(m.vertices().len(), 8);
        assert_eq!(m.triangles().len(), 12);
        assert_eq!(m.edges().len(), 18);
        assert!(m.edges().windows(2).all(|w| w[0] < w[1]));
        assert!(m.edges().iter().all(|[a, b]| a < b));
        for v in 0..8 {
            let nb = m.neighbors(v);
            assert!(nb.windows(2).all(|w| w[0] < w[1]));
            assert!((3..=6).contains(&nb.len()));
            for &w in nb {
                assert!(m.neighbors(w as usize).contains(&(v as u32)));
            }
        }
        assert!(m.neighbors(8).is_empty());
        assert!(m.neighbors(usize::MAX).is_empty());
        assert!((m.bounding_radius() - 0.75f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn normals_are_unit_and_axis_aligned_on_a_cube() {
        let m = cube(1.0);
        for (t, n) in m.triangles().iter().zip(m.face_normals()) {
            assert!((n.length() - 1.0).abs() < 1e-15);
            assert_eq!(n.abs().max_element(), 1.0);
            let c = t.iter().map(|&i| m.vertices()[i as usize]).sum::<DVec3>() / 3.0;
            assert!(n.dot(c) > 0.0);
        }
    }

    #[test]
    fn hill_climb_matches_brute_force_on_cube_ties() {
        let m = cube(1.0);
        let dirs = [
            DVec3::ZERO,
            DVec3::X,
            DVec3::NEG_X,
            DVec3::Y,
            DVec3::Z,
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(0.0, -1.0, 1.0),
            DVec3::new(0.3, -0.2, 0.9),
        ];
        for d in dirs {
            let expected = m.support_index_brute_force(d);
            for start in [0, 3, 7, 8, usize::MAX] {
                assert_eq!(m.support_index_hill_climb(d, start), expected, "dir {d} start {start}");
            }
            assert_eq!(m.local_support(d), m.vertices()[expected]);
        }
    }

    #[test]
    fn start_table_cells_round_trip_and_start_near_the_support() {
        for k in 0..START_CELLS {
            assert_eq!(start_cell(start_cell_direction(k)), k);
        }
        // A finely tessellated ball: the table's start is within one cell (≲ 40°) of the true support, and the
        // climb from it is the brute force's answer.
        let points: Vec<DVec3> = (0..400)
            .map(|i| {
                let z = 1.0 - 2.0 * (i as f64 + 0.5) / 400.0;
                let phi = i as f64 * 2.399_963_229_728_653;
                let r = (1.0 - z * z).sqrt();
                DVec3::new(r * phi.cos(), r * phi.sin(), z)
            })
            .collect();
        let m = ConvexMesh::from_points(&points).unwrap();
        for i in 0..500 {
            let t = i as f64 * 0.7;
            let d = DVec3::new(t.sin() * 3.0, (1.3 * t).cos(), (0.7 * t).sin() - 0.2);
            let start = m.support_start(d);
            let cos = m.vertices()[start].normalize().dot(d.normalize());
            assert!(cos > 0.75, "direction {d}: start vertex at cos {cos}");
            assert_eq!(m.support_index_hill_climb(d, start), m.support_index_brute_force(d));
        }
        assert_eq!(m.support_start(DVec3::ZERO), 0);
        assert_eq!(m.support_start(DVec3::NAN), 0);
    }

    #[test]
    fn non_finite_direction_does_not_panic() {
        let m = cube(1.0);
        for d in [DVec3::NAN, DVec3::INFINITY, DVec3::splat(1e308)] {
            assert_eq!(m.support_index_hill_climb(d, 2), m.support_index_brute_force(d));
        }
    }

    /// Checks the polygon tables against the triangles: every polygon is a counter-clockwise planar cycle whose
    /// triangles it covers (`len − 2` triangles per polygon, as a hull face has no interior vertex), and the vertex
    /// map is the inverse of the polygon lists.
    fn check_polygons(m: &ConvexMesh) {
        let mut covered = 0;
        for p in 0..m.polygon_count() {
            let vs = m.polygon(p);
            let n = m.polygon_normal(p);
            assert!(vs.len() >= 3, "polygon {p}");
            assert!((n.length() - 1.0).abs() < 1e-12);
            let pts: Vec<DVec3> = vs.iter().map(|&v| m.vertices()[v as usize]).collect();
            for k in 0..pts.len() {
                let (a, b, c) = (pts[k], pts[(k + 1) % pts.len()], pts[(k + 2) % pts.len()]);
                assert!((b - a).cross(c - b).dot(n) > 0.0, "polygon {p} turns clockwise at {k}");
                assert!((a - pts[0]).dot(n).abs() < 1e-9, "polygon {p} is not planar");
            }
            covered += vs.len() - 2;
            for &v in vs {
                assert!(m.vertex_polygons(v as usize).contains(&(p as u32)));
            }
        }
        assert_eq!(covered, m.triangles().len());
        let listed: usize = (0..m.vertices().len()).map(|v| m.vertex_polygons(v).len()).sum();
        assert_eq!(listed, (0..m.polygon_count()).map(|p| m.polygon(p).len()).sum::<usize>());
        assert!(m.polygon(m.polygon_count()).is_empty() && m.vertex_polygons(usize::MAX).is_empty());
        assert_eq!(m.polygon_normal(usize::MAX), DVec3::ZERO);
    }

    #[test]
    fn cube_polygons_are_its_six_squares() {
        let m = cube(0.5);
        check_polygons(&m);
        assert_eq!(m.polygon_count(), 6);
        for p in 0..6 {
            assert_eq!(m.polygon(p).len(), 4);
            assert_eq!(m.polygon_normal(p).abs().max_element(), 1.0);
        }
        for v in 0..8 {
            assert_eq!(m.vertex_polygons(v).len(), 3);
        }
        assert!(m.centroid().length() < 1e-15);
    }

    #[test]
    fn prism_polygons_and_centroid() {
        // A regular 12-gon prism, shifted: two 12-gon caps and twelve side rectangles; centroid at the shift.
        let shift = DVec3::new(0.3, -0.2, 0.1);
        let pts: Vec<DVec3> = (0..12)
            .flat_map(|k| {
                let a = std::f64::consts::TAU * k as f64 / 12.0;
                [-0.05, 0.05].map(|z| DVec3::new(0.1 * a.cos(), 0.1 * a.sin(), z) + shift)
            })
            .collect();
        let m = ConvexMesh::from_points(&pts).unwrap();
        check_polygons(&m);
        let mut sizes: Vec<usize> = (0..m.polygon_count()).map(|p| m.polygon(p).len()).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, [vec![4; 12], vec![12, 12]].concat());
        assert!((m.centroid() - shift).length() < 1e-15);
    }

    #[test]
    fn generic_hulls_keep_their_triangles() {
        // Points in general position: no two hull triangles are coplanar, every polygon is a triangle.
        let mut x = 0.123_f64;
        let mut next = || {
            x = (x * 9301.0 + 49297.0) % 233280.0;
            x / 233280.0 - 0.5
        };
        let pts: Vec<DVec3> = (0..60).map(|_| DVec3::new(next(), next(), next())).collect();
        let m = ConvexMesh::from_points(&pts).unwrap();
        check_polygons(&m);
        assert_eq!(m.polygon_count(), m.triangles().len());
    }

    #[test]
    fn errors_are_forwarded() {
        assert!(matches!(
            ConvexMesh::from_points(&[DVec3::ZERO; 3]),
            Err(GeometryError::DegenerateHull { .. })
        ));
    }
}
