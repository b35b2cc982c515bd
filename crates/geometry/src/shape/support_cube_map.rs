//! Exact support of a convex mesh by a cube map of candidate vertices.
//!
//! The directions are cut into the cells of a cube map: the face of the cube that `d` points to (its largest
//! component, `|d_k|`) and a `GRID × GRID` cell of the two other components divided by `|d_k|` ([`cube_cell`]).
//! A cell is a convex cone of directions, spanned by its four corner rays `c_1..c_4`. For each cell the map keeps
//! every vertex that may maximise `d · v` for some `d` in the cell: a vertex `v` is dropped only when another
//! vertex `u` beats it at all four corners, `(u − v) · c_k > tol`, which, `d` being a non-negative combination of
//! the corners, makes `u` beat `v` on the whole cell. So the candidates hold every maximiser of every direction of
//! the cell, and the support is a scan of a few candidates (about two on the robot hulls), with no climb.
//!
//! Exactness against rounding: each cell's cone is widened by `CELL_MARGIN` in the face coordinates before the
//! corners are tested, so a direction whose cell index was computed with rounding still lies inside its cell's cone,
//! and `tol` is far above the rounding of a dot product. A scan over the candidates in ascending index order with a
//! strict `>` returns the lowest-index maximiser, i.e. [`crate::support::brute_force_support_index`] bit for bit.

use glam::DVec3;

/// Cells per cube-face side.
pub(crate) const GRID: usize = 16;

/// Cells of the map: six faces of `GRID²`.
const CELLS: usize = 6 * GRID * GRID;

/// Widening of each cell in face coordinates (the ratios `d_i / |d_k|`, in `[−1, 1]`): far above the rounding of
/// [`cube_cell`]'s arithmetic (a few ulps of 1).
const CELL_MARGIN: f64 = 1e-9;

/// Dominance margin relative to the mesh's `max |v|`.
const DOMINANCE_REL: f64 = 1e-9;

/// The cube-map cell of a non-zero finite direction for a `grid × grid` map per face: the face its largest
/// component points to (`2k` for `+e_k`, `2k + 1` for `−e_k`), then the cells of the face coordinates `(u, v)`:
/// `(d_y, d_z)/|d_x|` on the x faces, `(d_z, d_x)/|d_y|` on the y faces, `(d_x, d_y)/|d_z|` on the z faces.
///
/// Computed without branches: in GJK's sequence of directions the face is unpredictable, and a mispredicted
/// three-way branch cost more than the selection.
#[inline(always)]
pub(crate) fn cube_cell(dir: DVec3, grid: usize) -> usize {
    let a = dir.abs();
    // x when it is the largest (ties to x), else y when it is at least z, else z.
    let not_x = !(a.x >= a.y) | !(a.x >= a.z);
    let axis = usize::from(not_x) * (1 + usize::from(!(a.y >= a.z)));
    // `(u, v)` are the next two components, cyclically.
    let cyclic = [dir.x, dir.y, dir.z, dir.x, dir.y];
    let (big, u, v) = (cyclic[axis].abs(), cyclic[axis + 1], cyclic[axis + 2]);
    let face = 2 * axis + usize::from(cyclic[axis] < 0.0);
    // `(t + 1)·g/2` for `t = u/big`: one division, the rounding far inside the cells' widening.
    let half_g = 0.5 * grid as f64;
    let scale = half_g / big;
    let cell = |x: f64| ((x * scale + half_g) as usize).min(grid - 1);
    (face * grid + cell(u)) * grid + cell(v)
}

/// The direction of face coordinates `(u, v)` on `face` (the inverse of the projection in [`cube_cell`]).
pub(crate) fn face_direction(face: usize, u: f64, v: f64) -> DVec3 {
    let sign = if face.is_multiple_of(2) { 1.0 } else { -1.0 };
    match face / 2 {
        0 => DVec3::new(sign, u, v),
        1 => DVec3::new(v, sign, u),
        _ => DVec3::new(u, v, sign),
    }
}

/// Face coordinate of grid line `i` of a `grid`-cell side.
fn grid_line(i: usize, grid: usize) -> f64 {
    i as f64 / grid as f64 * 2.0 - 1.0
}

/// Candidates kept inside a cell's entry; larger cells point into the overflow list.
const INLINE: usize = 3;

/// The candidate vertices of every cell. A support query reads one 8-byte entry (and the vertices): a cell of at
/// most [`INLINE`] candidates (93 % of the cells of the Panda's hulls, 81 % of the iiwa's) holds them in its entry,
/// which saves the dependent load of a row start before the candidates.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SupportCubeMap {
    /// Per cell `[n, c_0, c_1, c_2]`: the count `n`, then the candidates (ascending, unused slots repeating `c_0`)
    /// when `n ≤ INLINE`; otherwise
    /// `[n, lo, hi, 0]`, the candidates being `overflow[o..o + n]` with `o = lo + 2¹⁶ hi`. Vertex indices fit in
    /// 16 bits: maps are built for at most 4 096 vertices.
    cells: Vec<[u16; 4]>,
    overflow: Vec<u16>,
}

impl SupportCubeMap {
    /// The map of `vertices` (the hull's extreme points); `exact_support(d, start)` must return a maximiser of
    /// `d · v` (a hill climb from `start`; the centre's gives the pruning bound, the others are only tried as
    /// dominators), and `bounding_radius` is `max |v|`.
    pub(crate) fn new(
        vertices: &[DVec3],
        bounding_radius: f64,
        mut exact_support: impl FnMut(DVec3, usize) -> usize,
    ) -> SupportCubeMap {
        debug_assert!(vertices.len() <= usize::from(u16::MAX));
        let tol = DOMINANCE_REL * bounding_radius.max(f64::MIN_POSITIVE);
        let mut cells = Vec::with_capacity(CELLS);
        let mut overflow = Vec::new();
        let mut cell_candidates: Vec<u16> = Vec::new();
        // Supports at the grid points and the cell centres: the first vertices tried as dominators.
        let mut at_point = vec![0usize; (GRID + 1) * (GRID + 1)];
        let mut warm = 0;
        let mut kept: Vec<u32> = Vec::new();
        for face in 0..6 {
            for (k, s) in at_point.iter_mut().enumerate() {
                let d =
                    face_direction(face, grid_line(k / (GRID + 1), GRID), grid_line(k % (GRID + 1), GRID));
                warm = exact_support(d, warm);
                *s = warm;
            }
            for i in 0..GRID {
                for j in 0..GRID {
                    let (u0, u1) = (grid_line(i, GRID) - CELL_MARGIN, grid_line(i + 1, GRID) + CELL_MARGIN);
                    let (v0, v1) = (grid_line(j, GRID) - CELL_MARGIN, grid_line(j + 1, GRID) + CELL_MARGIN);
                    let corners = [
                        face_direction(face, u0, v0),
                        face_direction(face, u0, v1),
                        face_direction(face, u1, v0),
                        face_direction(face, u1, v1),
                    ];
                    let centre = face_direction(face, 0.5 * (u0 + u1), 0.5 * (v0 + v1));
                    warm = exact_support(centre, warm);
                    // A support `v` at a unit direction `d̂` of the cell has `ĉ·(s_c − v) ≤ (ĉ − d̂)·(s_c − v)`
                    // `≤ δ·diameter` (`s_c` the support at the centre `ĉ`, `δ` the largest `|d̂ − ĉ|`, at a corner):
                    // vertices farther below `s_c` along `ĉ` are not candidates, and skip the dominance tests.
                    let c_hat = centre.normalize();
                    let delta = corners.iter().map(|c| (c.normalize() - c_hat).length()).fold(0.0, f64::max);
                    let depth_bound = delta * 2.0 * bounding_radius * (1.0 + 1e-9) + tol;
                    let top = c_hat.dot(vertices[warm]);
                    let dominators = [
                        warm,
                        at_point[i * (GRID + 1) + j],
                        at_point[i * (GRID + 1) + j + 1],
                        at_point[(i + 1) * (GRID + 1) + j],
                        at_point[(i + 1) * (GRID + 1) + j + 1],
                    ];
                    let beats = |u: usize, v: usize| {
                        let e = vertices[u] - vertices[v];
                        corners.iter().all(|c| e.dot(*c) > tol)
                    };
                    kept.clear();
                    for (v, &p) in vertices.iter().enumerate() {
                        if top - c_hat.dot(p) > depth_bound {
                            continue;
                        }
                        if !dominators.iter().any(|&u| beats(u, v)) {
                            kept.push(v as u32);
                        }
                    }
                    // Candidates may also beat one another.
                    cell_candidates.clear();
                    cell_candidates.extend(
                        kept.iter()
                            .copied()
                            .filter(|&v| !kept.iter().any(|&u| beats(u as usize, v as usize)))
                            .map(|v| v as u16),
                    );
                    let n = cell_candidates.len() as u16;
                    if cell_candidates.len() <= INLINE {
                        // Unused slots repeat the first candidate (see `best_candidate`).
                        let first = cell_candidates.first().copied().unwrap_or(0);
                        let mut entry = [n, first, first, first];
                        entry[1..=cell_candidates.len()].copy_from_slice(&cell_candidates);
                        cells.push(entry);
                    } else {
                        let o = overflow.len();
                        cells.push([n, (o & 0xffff) as u16, (o >> 16) as u16, 0]);
                        overflow.extend_from_slice(&cell_candidates);
                    }
                }
            }
        }
        SupportCubeMap { cells, overflow }
    }

    /// The candidates of the cell of `dir` (non-zero, finite).
    #[cfg(test)]
    pub(crate) fn candidates(&self, dir: DVec3) -> &[u16] {
        let Some(entry) = self.cells.get(cube_cell(dir, GRID)) else { return &[] };
        let n = usize::from(entry[0]);
        if n <= INLINE { &entry[1..=n] } else { self.overflow_candidates(entry) }
    }

    /// The candidates of a cell of more than [`INLINE`] (an `[n, lo, hi, 0]` entry).
    #[inline(always)]
    fn overflow_candidates(&self, &[n, lo, hi, _]: &[u16; 4]) -> &[u16] {
        let o = usize::from(lo) | usize::from(hi) << 16;
        self.overflow.get(o..o + usize::from(n)).unwrap_or(&[])
    }

    /// The candidate of `dir`'s cell maximising `dir · v` (the first on ties, as a scan of
    /// [`SupportCubeMap::candidates`] in order); `None` for a cell without candidates. `dir` is non-zero and finite,
    /// and the dots finite.
    ///
    /// A cell of at most [`INLINE`] candidates is read as three (the unused slots repeat the first candidate, which
    /// never wins a strict comparison against itself), so the selection needs no branch on the count or the dots.
    #[inline(always)]
    pub(crate) fn best_candidate(&self, dir: DVec3, vertices: &[DVec3]) -> Option<usize> {
        let entry = self.cells.get(cube_cell(dir, GRID))?;
        let [n, c0, c1, c2] = *entry;
        if usize::from(n) > INLINE {
            let (&first, rest) = self.overflow_candidates(entry).split_first()?;
            let (mut best, mut best_dot) = (first, dir.dot(*vertices.get(usize::from(first))?));
            for &c in rest {
                let d = dir.dot(*vertices.get(usize::from(c))?);
                if d > best_dot {
                    (best, best_dot) = (c, d);
                }
            }
            return Some(usize::from(best));
        }
        if n == 0 {
            return None;
        }
        let dot = |c: u16| vertices.get(usize::from(c)).map(|v| dir.dot(*v));
        let (d0, d1, d2) = (dot(c0)?, dot(c1)?, dot(c2)?);
        let (best01, dot01) = if d1 > d0 { (c1, d1) } else { (c0, d0) };
        Some(usize::from(if d2 > dot01 { c2 } else { best01 }))
    }

    /// Mean number of candidates per cell.
    pub(crate) fn mean_candidates(&self) -> f64 {
        self.cells.iter().map(|e| f64::from(e[0])).sum::<f64>() / CELLS as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_of_face_directions_round_trip() {
        for face in 0..6 {
            for i in 0..GRID {
                for j in 0..GRID {
                    let centre = |k: usize| (grid_line(k, GRID) + grid_line(k + 1, GRID)) * 0.5;
                    let d = face_direction(face, centre(i), centre(j));
                    assert_eq!(cube_cell(d, GRID), (face * GRID + i) * GRID + j);
                    assert_eq!(cube_cell(d * 1e-200, GRID), cube_cell(d * 1e200, GRID));
                }
            }
        }
    }

    /// The branch-free face selection against the plain three-way choice, on directions whose components tie in
    /// magnitude (the tie-breaking order: x, then y) or are signed zeros.
    #[test]
    fn cells_match_the_branching_choice_on_ties() {
        let reference = |dir: DVec3, grid: usize| {
            let a = dir.abs();
            let (axis, big, u, v) = if a.x >= a.y && a.x >= a.z {
                (0, a.x, dir.y, dir.z)
            } else if a.y >= a.z {
                (1, a.y, dir.z, dir.x)
            } else {
                (2, a.z, dir.x, dir.y)
            };
            let face = 2 * axis + usize::from(dir[axis] < 0.0);
            let half_g = 0.5 * grid as f64;
            let cell = |x: f64| ((x * (half_g / big) + half_g) as usize).min(grid - 1);
            (face * grid + cell(u)) * grid + cell(v)
        };
        let values = [-1.0, -0.7, -0.3, -0.0, 0.0, 0.3, 0.7, 1.0];
        for &x in &values {
            for &y in &values {
                for &z in &values {
                    let d = DVec3::new(x, y, z);
                    if d.abs().max_element() > 0.0 {
                        assert_eq!(cube_cell(d, GRID), reference(d, GRID), "{d}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_cube_keeps_its_corner_per_cell_and_ties_on_the_axes() {
        let corners: Vec<DVec3> = (0..8)
            .map(|k| DVec3::new([-1.0, 1.0][k & 1], [-1.0, 1.0][(k >> 1) & 1], [-1.0, 1.0][k >> 2]))
            .collect();
        let map = SupportCubeMap::new(&corners, 3f64.sqrt(), |d, _| {
            crate::support::brute_force_support_index(&corners, d).unwrap()
        });
        // Inside a cell away from the coordinate planes one corner wins; cells touching a plane keep both sides.
        assert_eq!(map.candidates(DVec3::new(1.0, 0.3, 0.55)), &[7]);
        assert_eq!(map.candidates(DVec3::new(1.0, 0.01, 0.55)), &[5, 7]);
        assert_eq!(map.candidates(DVec3::new(1.0, 0.01, -0.01)), &[1, 3, 5, 7]);
    }
}
