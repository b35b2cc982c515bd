//! MuJoCo 4.0's polygonal faces of a mesh hull (`mjCMesh::MakePolygons`, `mesh_polyvert`/`mesh_polynormal`),
//! which its multi-contact clipping reads.
//!
//! Each hull triangle is binned by the direction of its normal in the mesh file's frame, before the `scale`:
//! azimuth `θ = atan2(n_y, n_x)` and polar angle `φ = acos(n_z)`, each rounded to a multiple of 0.01 rad (a normal
//! within 1e-7 of ±z goes to the pole's bin). The triangles of a bin that share edges form a polygon, and a bin may
//! hold several polygons apart. So triangles up to about 0.6° apart can merge, and triangles 1e-9° apart across a
//! bin's border do not: a curved mesh keeps most of its triangles, where the coplanar rule of
//! [`super::hull_polygons`] merges the nearly flat ones. A polygon's normal is its area-weighted normal, as
//! MuJoCo 4.0.1 stores it (a merged polygon is not quite flat, and need not be convex).
//!
//! The polygons are listed in the order their bins first appear over the triangles (MuJoCo iterates a hash map),
//! and a triangle's polygon starts at its first vertex, so polygon ids, and the vertex a polygon starts at, need not
//! be MuJoCo's; its vertex sets and normals are.

use std::collections::HashMap;

use glam::{DMat3, DVec3};

use super::hull_polygons::HullPolygons;

/// The bin width of the normal's angles, radians (MuJoCo's `kAngleTol`).
const ANGLE_TOL: f64 = 0.01;

/// The length of a triangle's edge cross product (twice its area) below which it is left out of every polygon
/// (MuJoCo's `mjMINVAL`).
const MIN_NORMAL: f64 = 1e-15;

/// The bin of the triangle `(a, b, c)`: its normal's rounded azimuth and polar angle (`MeshPolygonKey`).
fn bin(a: DVec3, b: DVec3, c: DVec3) -> Option<(i64, i64)> {
    let n = (b - a).cross(c - a);
    let norm = n.dot(n).sqrt();
    if norm < MIN_NORMAL {
        return None;
    }
    // `+ 0.0` turns −0 into +0 for `atan2`, as MuJoCo does.
    let n = DVec3::new(n.x / norm + 0.0, n.y / norm + 0.0, n.z / norm + 0.0);
    if n.z.abs() > 1.0 - 1e-7 {
        let phi = if n.z < 0.0 { (std::f64::consts::PI / ANGLE_TOL).round() } else { 0.0 };
        return Some((0, phi as i64));
    }
    Some(((n.y.atan2(n.x) / ANGLE_TOL).round() as i64, (n.z.acos() / ANGLE_TOL).round() as i64))
}

/// The directed boundary edges of one bin's triangles, each with its island (a connected group of triangles).
struct Bin {
    edges: Vec<(u32, u32)>,
    islands: Vec<usize>,
    nisland: usize,
}

impl Bin {
    fn new([a, b, c]: [u32; 3]) -> Bin {
        Bin { edges: vec![(a, b), (b, c), (c, a)], islands: vec![0; 3], nisland: 1 }
    }

    /// Adds a triangle: an edge it shares with the bin (reversed) is removed, joining the triangle to that edge's
    /// island, and islands it connects become one; its other edges are added (`MeshPolygon::InsertFace`).
    fn insert(&mut self, [a, b, c]: [u32; 3]) {
        let mut island: Option<usize> = None;
        let mut add = [true; 3];
        for (k, (from, to)) in [(a, b), (b, c), (c, a)].into_iter().enumerate() {
            let Some(i) = self.edges.iter().position(|&e| e == (to, from)) else { continue };
            let other = self.islands[i];
            match island {
                None => island = Some(other),
                Some(current) if current != other => {
                    self.nisland -= 1;
                    island = Some(self.combine(current, other));
                }
                Some(_) => {}
            }
            add[k] = false;
            self.edges.remove(i);
            self.islands.remove(i);
        }
        let island = island.unwrap_or_else(|| {
            self.nisland += 1;
            self.nisland - 1
        });
        for (k, edge) in [(a, b), (b, c), (c, a)].into_iter().enumerate() {
            if add[k] {
                self.edges.push(edge);
                self.islands.push(island);
            }
        }
    }

    /// Merges two islands into the lower number and closes the gap in the numbering; returns the merged island
    /// (`MeshPolygon::CombineIslands`).
    fn combine(&mut self, one: usize, other: usize) -> usize {
        let (low, high) = (one.min(other), one.max(other));
        for i in &mut self.islands {
            if *i == high {
                *i = low;
            } else if *i > high {
                *i -= 1;
            }
        }
        low
    }

    /// Each island's boundary, followed edge to edge from the island's first edge (`MeshPolygon::Paths`: the next
    /// edge is looked for from the bin's second edge on, and a boundary that does not close is dropped).
    fn paths(&self, out: &mut Vec<Vec<u32>>) {
        if self.edges.len() == 3 {
            out.push(self.edges.iter().map(|e| e.0).collect());
            return;
        }
        for i in 0..self.nisland {
            let Some(j) = self.islands.iter().position(|&k| k == i) else { continue };
            let mut path = vec![self.edges[j].0, self.edges[j].1];
            let mut next = self.edges[j].1;
            for _ in 0..self.edges.len() {
                let Some(k) =
                    (1..self.edges.len()).find(|&k| self.islands[k] == i && self.edges[k].0 == next)
                else {
                    continue;
                };
                next = self.edges[k].1;
                if next == path[0] {
                    out.push(path);
                    break;
                }
                path.push(next);
            }
        }
    }
}

/// The area-weighted normal of the polygon `path`, `Σ (v_k − v_0) × (v_{k+1} − v_0)` normalised: MuJoCo 4.0.1's
/// `mesh_polynormal` (over MuJoCo's double-precision vertices it agrees with this within 1e-13 rad on six meshes,
/// `mjcf/tests/mesh_polygons.rs`; the normal of the first three vertices is up to π off on merged polygons, which
/// need not be convex).
fn area_normal(vertices: &[DVec3], path: &[u32]) -> DVec3 {
    let v0 = vertices[path[0] as usize];
    let sum: DVec3 = path[1..]
        .windows(2)
        .map(|w| (vertices[w[0] as usize] - v0).cross(vertices[w[1] as usize] - v0))
        .sum();
    sum.try_normalize().unwrap_or(DVec3::X)
}

/// MuJoCo's polygons of a hull with outward counter-clockwise `triangles`, binned in the mesh file's frame:
/// `file_from_hull` maps the hull's vertices there (less a translation; see the module docs). A mirroring map
/// (negative determinant, a scale with an odd number of negative components) turns the triangles inside out in the
/// file's frame; they are binned by their outward normals there.
///
/// With `normals_from = Some((points, rotation))` the normals are summed over `points` (one per vertex, in order) and
/// turned into the hull's frame by `rotation`: MuJoCo sums them over its double-precision vertices in the mesh's inertial frame
/// before it stores the vertices in single precision.
pub(crate) fn mujoco_polygons(
    vertices: &[DVec3],
    triangles: &[[u32; 3]],
    file_from_hull: DMat3,
    normals_from: Option<(&[DVec3], DMat3)>,
) -> HullPolygons {
    let mut bins: HashMap<(i64, i64), Bin> = HashMap::new();
    let mut order = Vec::new();
    let mirrored = file_from_hull.determinant() < 0.0;
    for &t in triangles {
        let [a, mut b, mut c] = t.map(|v| file_from_hull * vertices[v as usize]);
        if mirrored {
            std::mem::swap(&mut b, &mut c);
        }
        let Some(key) = bin(a, b, c) else { continue };
        match bins.get_mut(&key) {
            Some(existing) => existing.insert(t),
            None => {
                order.push(key);
                bins.insert(key, Bin::new(t));
            }
        }
    }
    let mut out = HullPolygons { start: vec![0], ..HullPolygons::default() };
    let mut paths = Vec::new();
    for key in &order {
        paths.clear();
        bins[key].paths(&mut paths);
        for path in paths.iter().filter(|p| p.len() >= 3) {
            out.vertices.extend_from_slice(path);
            out.start.push(out.vertices.len() as u32);
            out.normals.push(match normals_from {
                Some((exact, hull_from_normals)) => hull_from_normals * area_normal(exact, path),
                None => area_normal(vertices, path),
            });
        }
    }
    out.index_vertices(vertices.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConvexMesh;

    fn box_points(h: DVec3) -> Vec<DVec3> {
        (0..8)
            .map(|i| h * DVec3::new([-1.0, 1.0][i & 1], [-1.0, 1.0][(i >> 1) & 1], [-1.0, 1.0][i >> 2]))
            .collect()
    }

    /// A box's twelve triangles make its six faces, each with its axis as normal, scaled or mirrored.
    #[test]
    fn a_box_has_six_square_faces() {
        for scale in [DVec3::ONE, DVec3::new(0.3, 2.0, 0.7), DVec3::new(-0.3, 2.0, 0.7)] {
            let m = ConvexMesh::from_points(&box_points(DVec3::new(0.5, 0.2, 0.1) * scale.abs()))
                .unwrap()
                .with_mujoco_polygons(DMat3::from_diagonal(1.0 / scale));
            let p = m.mujoco_polygons();
            assert_eq!(p.len(), 6, "scale {scale}");
            for i in 0..6 {
                assert_eq!(p.vertices(i).len(), 4);
                let n = p.normal(i);
                assert!((n.abs().max_element() - 1.0).abs() < 1e-15, "an axis: {n}");
                for &v in p.vertices(i) {
                    let x = m.vertices()[v as usize];
                    assert!((n.dot(x) - n.abs().dot(DVec3::new(0.5, 0.2, 0.1) * scale.abs())).abs() < 1e-15);
                }
            }
        }
    }

    /// The two faces of a roof whose normals lie in the x–z plane at polar angles `phi ∓ delta` (azimuth 0), ridge
    /// along y, closed by a slab behind; returns how many polygons face the roof's way.
    fn roof_faces(phi: f64, delta: f64) -> usize {
        let normal = |a: f64| DVec3::new(a.sin(), 0.0, a.cos());
        let down = |a: f64| DVec3::new(a.cos(), 0.0, -a.sin());
        let mut pts = vec![];
        for y in [-1.0, 1.0] {
            let ridge = DVec3::new(0.0, y, 0.0);
            pts.extend([ridge, ridge + down(phi + delta), ridge - down(phi - delta)]);
            pts.extend([ridge + down(phi + delta) - normal(phi), ridge - down(phi - delta) - normal(phi)]);
        }
        let m = ConvexMesh::from_points(&pts).unwrap().with_mujoco_polygons(DMat3::IDENTITY);
        let p = m.mujoco_polygons();
        (0..p.len()).filter(|&i| p.normal(i).dot(normal(phi)) > 0.99).count()
    }

    /// Faces merge by bin, not by angle: 0.46° apart in one bin they make one polygon, 0.057° apart across a bin's
    /// border two (the coplanar rule of `hull_polygons` does the opposite); near the pole the azimuth splits faces
    /// 0.1° apart, and within 1e-7 of it every face is in the pole's bin.
    #[test]
    fn faces_merge_by_bin_not_by_angle() {
        // Polar angles 156.68 and 157.48 hundredths of a radian (π/2 ∓ 0.004): both round to 157.
        assert_eq!(roof_faces(std::f64::consts::FRAC_PI_2, 0.004), 1);
        // 157.45 and 157.55: 157 and 158.
        assert_eq!(roof_faces(1.575, 0.0005), 2);
        // Polar angles 0.0009 at azimuths π and 0: two bins.
        assert_eq!(roof_faces(0.0, 0.0009), 2);
        assert_eq!(roof_faces(0.0, 1e-5), 1);
    }
}
