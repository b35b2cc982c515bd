//! Support field: a precomputed direction table for convex meshes (spec §A.12, the G-A single chart).
//!
//! **Grid.** `RESOLUTION = 180`; cell `(i, j)` has azimuth `θ_i = (i/180)·2π − π` and polar angle
//! `φ_j = (j/180)·π` (`i, j ∈ 0..180`), direction `d_ij = (sin φ cos θ, sin φ sin θ, cos φ)`
//! ([`cell_direction`]). Each cell stores the vertex maximising `d_ij · v` (lowest index on ties, i.e. exactly
//! [`ConvexMesh::support_index_brute_force`]) and its position, in flat arrays with cell index `i·180 + j`.
//! The table is built by hill climbing warm-started from the neighbouring cell, which returns the same vertex as the
//! brute force.
//!
//! **Query** (direction `d` in the mesh frame, any length): `d` is normalised (a zero or non-finite `d` is treated as
//! `+z`), `θ = atan2(d_y, d_x)`, `φ = acos(clamp(d_z, −1, 1))`, `ii = (θ + π)/(2π)·180`, `jj = φ/π·180`. The four
//! cells `i ∈ {⌊ii⌋ mod 180, ⌈ii⌉ mod 180}` × `j ∈ {⌊jj⌋, ⌈jj⌉}` are evaluated in that order (`i` outer, `j` inner)
//! and the stored vertex with the largest `v · d` wins (strict `>`, the first one on ties).
//!
//! **Decision on the polar clamp.** The spec's literal text clamps only the floor index to `≥ 1` and the ceil index to
//! `≤ 178`; at `φ = π` the floor index is then 180, outside the grid. Here *both* `j` indices are clamped to
//! `[1, 178]`, so the poles rows `j = 0` and `j = 179` are never read and every lookup is in range. The result is
//! approximate near the poles and, in general, up to the grid angle (2° azimuth, 1° polar) on finely tessellated
//! meshes: the returned vertex is the best of the four cells' exact supports.
//!
//! **Tie count.** [`SupportField::support_with_tie_count`] counts the *distinct* vertex ids among the four cells whose
//! dot with `d` is within `TIE_REL · max|v|` of the maximum (the G-W semantics). G-A's version always returns 1
//! because its running maximum is never updated (spec §A.12); that bug is not reproduced.

use std::f64::consts::{PI, TAU};

use glam::DVec3;

use crate::shape::ConvexMesh;

/// Number of cells along each of the two angles.
pub const RESOLUTION: usize = 180;

/// Relative tolerance of the tie count: dots within `TIE_REL · max|v|` of the maximum tie.
pub const TIE_REL: f64 = 1e-12;

/// The direction of cell `(i, j)`: `θ = (i/180)·2π − π`, `φ = (j/180)·π`, `(sin φ cos θ, sin φ sin θ, cos φ)`.
pub fn cell_direction(i: usize, j: usize) -> DVec3 {
    let res = RESOLUTION as f64;
    let theta = (i as f64 / res) * TAU - PI;
    let phi = (j as f64 / res) * PI;
    let (sp, cp) = phi.sin_cos();
    let (st, ct) = theta.sin_cos();
    DVec3::new(sp * ct, sp * st, cp)
}

/// The precomputed 180 × 180 support table of one convex mesh (local frame).
#[derive(Debug, Clone)]
pub struct SupportField {
    /// Vertex id per cell, index `i·180 + j`.
    ids: Vec<u32>,
    /// Vertex position per cell, same indexing.
    points: Vec<DVec3>,
    /// `max |v|` of the mesh, the scale of the tie tolerance.
    bounding_radius: f64,
}

impl SupportField {
    /// Builds the table of `mesh` (32 400 hill-climbing queries, each warm-started from the previous cell).
    pub fn new(mesh: &ConvexMesh) -> SupportField {
        let mut ids = Vec::with_capacity(RESOLUTION * RESOLUTION);
        let mut points = Vec::with_capacity(RESOLUTION * RESOLUTION);
        let mut row_start = 0;
        for i in 0..RESOLUTION {
            let mut warm = row_start;
            for j in 0..RESOLUTION {
                let v = mesh.support_index_hill_climb(cell_direction(i, j), warm);
                if j == 0 {
                    row_start = v;
                }
                warm = v;
                ids.push(v as u32);
                points.push(mesh.vertices().get(v).copied().unwrap_or(DVec3::ZERO));
            }
        }
        SupportField { ids, points, bounding_radius: mesh.bounding_radius() }
    }

    /// The stored vertex id and position of cell `(i, j)`; `None` outside the grid.
    pub fn cell_support(&self, i: usize, j: usize) -> Option<(usize, DVec3)> {
        if i >= RESOLUTION || j >= RESOLUTION {
            return None;
        }
        let c = i * RESOLUTION + j;
        Some((*self.ids.get(c)? as usize, *self.points.get(c)?))
    }

    /// Unit query direction and the four evaluated cell indices, in evaluation order.
    fn cells(dir: DVec3) -> (DVec3, [usize; 4]) {
        let d = dir.try_normalize().unwrap_or(DVec3::Z);
        let theta = d.y.atan2(d.x);
        let phi = d.z.clamp(-1.0, 1.0).acos();
        let ii = (theta + PI) / TAU * RESOLUTION as f64;
        let jj = phi / PI * RESOLUTION as f64;
        // Float-to-int casts saturate; every index below is reduced into the grid.
        let i0 = (ii.floor() as usize) % RESOLUTION;
        let i1 = (ii.ceil() as usize) % RESOLUTION;
        let j0 = (jj.floor() as usize).clamp(1, RESOLUTION - 2);
        let j1 = (jj.ceil() as usize).clamp(1, RESOLUTION - 2);
        let r = RESOLUTION;
        (d, [i0 * r + j0, i0 * r + j1, i1 * r + j0, i1 * r + j1])
    }

    /// Best of the four cells: `(cell, dot)` with the largest `v · d` (first on ties), plus the unit direction.
    fn best(&self, dir: DVec3) -> (DVec3, [usize; 4], usize, f64) {
        let (d, cells) = Self::cells(dir);
        let mut best = (cells[0], f64::NEG_INFINITY);
        for &c in &cells {
            let dot = d.dot(self.points.get(c).copied().unwrap_or(DVec3::ZERO));
            if dot > best.1 {
                best = (c, dot);
            }
        }
        (d, cells, best.0, best.1)
    }

    /// The vertex id of the approximate support along `dir` (see the module documentation).
    pub fn support_index(&self, dir: DVec3) -> usize {
        let (_, _, c, _) = self.best(dir);
        self.ids.get(c).copied().unwrap_or(0) as usize
    }

    /// The approximate support point along `dir`, local frame.
    pub fn support(&self, dir: DVec3) -> DVec3 {
        let (_, _, c, _) = self.best(dir);
        self.points.get(c).copied().unwrap_or(DVec3::ZERO)
    }

    /// The support vertex id and the number of distinct vertex ids among the four evaluated cells whose dot with the
    /// unit direction is within `TIE_REL · max|v|` of the maximum (≥ 1; used by GJK to detect face-aligned
    /// directions).
    pub fn support_with_tie_count(&self, dir: DVec3) -> (usize, u32) {
        let (d, cells, c, max) = self.best(dir);
        let tol = TIE_REL * self.bounding_radius;
        let mut tied: [Option<u32>; 4] = [None; 4];
        let mut count = 0u32;
        for &cell in &cells {
            let (Some(&id), Some(&p)) = (self.ids.get(cell), self.points.get(cell)) else {
                continue;
            };
            if d.dot(p) >= max - tol && !tied.contains(&Some(id)) {
                if let Some(slot) = tied.get_mut(count as usize) {
                    *slot = Some(id);
                }
                count += 1;
            }
        }
        (self.ids.get(c).copied().unwrap_or(0) as usize, count.max(1))
    }

    /// Heap and inline memory of the table in bytes.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.ids.capacity() * std::mem::size_of::<u32>()
            + self.points.capacity() * std::mem::size_of::<DVec3>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> ConvexMesh {
        let pts: Vec<DVec3> = (0..8)
            .map(|k| {
                DVec3::new(
                    if k & 1 != 0 { 1.0 } else { -1.0 },
                    if k & 2 != 0 { 1.0 } else { -1.0 },
                    if k & 4 != 0 { 1.0 } else { -1.0 },
                )
            })
            .collect();
        ConvexMesh::from_points(&pts).unwrap()
    }

    #[test]
    fn cell_directions_follow_the_chart() {
        assert!((cell_direction(0, 90) - DVec3::NEG_X).length() < 1e-15);
        assert!((cell_direction(90, 90) - DVec3::X).length() < 1e-15);
        assert!((cell_direction(45, 90) - DVec3::NEG_Y).length() < 1e-15);
        let pole = cell_direction(17, 0);
        assert_eq!((pole.x.abs() + pole.y.abs(), pole.z), (0.0, 1.0));
        for (i, j) in [(0, 0), (33, 77), (179, 179)] {
            assert!((cell_direction(i, j).length() - 1.0).abs() < 1e-15);
        }
    }

    #[test]
    fn table_equals_brute_force_on_a_cube() {
        let m = cube();
        let f = SupportField::new(&m);
        for i in 0..RESOLUTION {
            for j in 0..RESOLUTION {
                let (id, p) = f.cell_support(i, j).unwrap();
                assert_eq!(id, m.support_index_brute_force(cell_direction(i, j)), "cell ({i}, {j})");
                assert_eq!(p, m.vertices()[id]);
            }
        }
        assert!(f.cell_support(RESOLUTION, 0).is_none());
        assert!(f.memory_bytes() >= RESOLUTION * RESOLUTION * 28);
    }

    #[test]
    fn queries_never_leave_the_grid() {
        let f = SupportField::new(&cube());
        for d in [
            DVec3::ZERO,
            DVec3::Z,
            DVec3::NEG_Z,
            DVec3::NEG_X,
            DVec3::NAN,
            DVec3::INFINITY,
            DVec3::splat(1e-320),
        ] {
            let (id, ties) = f.support_with_tie_count(d);
            assert!(id < 8 && (1..=4).contains(&ties));
            assert_eq!(f.support_index(d), id);
        }
        assert_eq!(f.support(DVec3::ZERO), f.support(DVec3::Z));
    }
}
