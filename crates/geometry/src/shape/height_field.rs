//! Height field (terrain), and its decomposition into triangular prisms.
//!
//! Each grid cell `(r, c)` (between sample rows `r, r+1` and columns `c, c+1`) is split along the diagonal from
//! `(r, c)` to `(r+1, c+1)` into two triangles; each triangle extruded down to the flat bottom is a convex prism. The
//! solid is the union of the prisms, so contacts and distances against it are those of small convex pieces, as in
//! MuJoCo's `mjc_ConvexHField`.

use std::ops::Range;

use glam::{DVec2, DVec3};

use crate::error::{GeometryError, Result, finite, positive};

/// A terrain over a regular grid in its local frame.
///
/// The grid has `rows × cols` samples (`rows, cols ≥ 2`), row-major: sample `(r, c)` sits at
/// `x = −half_x + c·(2 half_x)/(cols − 1)`, `y = −half_y + r·(2 half_y)/(rows − 1)`, with height `z = heights[r·cols + c]`
/// in metres. The solid is everything between the surface and the flat bottom `z = −base_depth`; its sides are
/// vertical. This matches MuJoCo's `hfield` (`size = (half_x, half_y, elevation, base)` with heights already scaled by
/// the elevation).
#[derive(Debug, Clone, PartialEq)]
pub struct HeightField {
    rows: usize,
    cols: usize,
    heights: Vec<f64>,
    half_x: f64,
    half_y: f64,
    base_depth: f64,
    min_height: f64,
    max_height: f64,
}

impl HeightField {
    /// Validates and stores a height field: `rows, cols ≥ 2`, `heights.len() == rows·cols`, finite heights,
    /// positive half extents, and `base_depth > 0` below `z = 0`.
    pub fn new(
        rows: usize,
        cols: usize,
        heights: Vec<f64>,
        half_x: f64,
        half_y: f64,
        base_depth: f64,
    ) -> Result<Self> {
        let invalid = |what: String| GeometryError::InvalidMesh { shape: "height field", what };
        if rows < 2 || cols < 2 {
            return Err(invalid(format!("needs at least 2×2 samples, got {rows}×{cols}")));
        }
        let expected = rows.checked_mul(cols).ok_or_else(|| invalid(format!("{rows}×{cols} overflows")))?;
        if heights.len() != expected {
            return Err(invalid(format!(
                "{rows}×{cols} grid needs {expected} heights, got {}",
                heights.len()
            )));
        }
        for h in &heights {
            finite("height field", "heights", *h)?;
        }
        positive("height field", "half_x", half_x)?;
        positive("height field", "half_y", half_y)?;
        positive("height field", "base_depth", base_depth)?;
        let min_height = heights.iter().copied().fold(f64::INFINITY, f64::min);
        let max_height = heights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Ok(Self { rows, cols, heights, half_x, half_y, base_depth, min_height, max_height })
    }

    /// Number of sample rows (along y).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of sample columns (along x).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Heights, row-major.
    pub fn heights(&self) -> &[f64] {
        &self.heights
    }

    /// Half extents `(half_x, half_y)` of the grid in metres.
    pub fn half_extents(&self) -> (f64, f64) {
        (self.half_x, self.half_y)
    }

    /// Depth of the flat bottom below `z = 0`.
    pub fn base_depth(&self) -> f64 {
        self.base_depth
    }

    /// Smallest and largest sample heights.
    pub fn height_range(&self) -> (f64, f64) {
        (self.min_height, self.max_height)
    }

    /// Grid spacing `(dx, dy)` in metres.
    pub fn cell_size(&self) -> (f64, f64) {
        (2.0 * self.half_x / (self.cols - 1) as f64, 2.0 * self.half_y / (self.rows - 1) as f64)
    }

    /// The surface sample `(r, c)` as a local point, or `None` outside the grid.
    pub fn vertex(&self, r: usize, c: usize) -> Option<DVec3> {
        if r >= self.rows || c >= self.cols {
            return None;
        }
        let (dx, dy) = self.cell_size();
        Some(DVec3::new(
            -self.half_x + c as f64 * dx,
            -self.half_y + r as f64 * dy,
            self.heights[r * self.cols + c],
        ))
    }

    /// Number of prisms: two per cell.
    pub fn prism_count(&self) -> usize {
        2 * (self.rows - 1) * (self.cols - 1)
    }

    /// The cells whose footprint may overlap the local box `[lo, hi]` (x, y in metres): row and column ranges of
    /// cell indices, `floor`/`ceil` of the box's grid coordinates clamped to the grid (empty when the box misses
    /// the grid). MuJoCo computes the same sub-grid.
    pub fn cells_overlapping(&self, lo: DVec2, hi: DVec2) -> (Range<usize>, Range<usize>) {
        let span = |lo: f64, hi: f64, half: f64, n: usize| -> Range<usize> {
            let to_grid = |t: f64| (t + half) / (2.0 * half) * (n - 1) as f64;
            let (a, b) = (to_grid(lo).floor(), to_grid(hi).ceil());
            if !(a <= b) || b < 0.0 || a > (n - 1) as f64 {
                return 0..0;
            }
            // In range and finite after the checks above; `as` saturates.
            (a.max(0.0) as usize)..(b.min((n - 1) as f64) as usize)
        };
        (span(lo.y, hi.y, self.half_y, self.rows), span(lo.x, hi.x, self.half_x, self.cols))
    }

    /// Prism `k ∈ {0, 1}` of cell `(r, c)` as six local points: the triangle's bottom corners (`z = −base_depth`)
    /// then the same corners on the surface. Triangle 0 is `(r+1, c), (r, c), (r+1, c+1)`, triangle 1 is
    /// `(r, c), (r+1, c+1), (r, c+1)` (MuJoCo's order). `None` outside the grid or for `k > 1`.
    pub fn prism(&self, r: usize, c: usize, k: usize) -> Option<[DVec3; 6]> {
        if r + 1 >= self.rows || c + 1 >= self.cols || k > 1 {
            return None;
        }
        let corners =
            if k == 0 { [(r + 1, c), (r, c), (r + 1, c + 1)] } else { [(r, c), (r + 1, c + 1), (r, c + 1)] };
        let mut p = [DVec3::ZERO; 6];
        for (i, &(rr, cc)) in corners.iter().enumerate() {
            let top = self.vertex(rr, cc)?;
            p[i] = DVec3::new(top.x, top.y, -self.base_depth);
            p[i + 3] = top;
        }
        Some(p)
    }

    /// The surface as a triangle mesh: the samples as vertices (row-major) and each cell's two triangles
    /// (the prisms' tops), counter-clockwise seen from `+z`.
    pub fn surface_mesh(&self) -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let mut vertices = Vec::with_capacity(self.rows * self.cols);
        for r in 0..self.rows {
            for c in 0..self.cols {
                vertices.extend(self.vertex(r, c));
            }
        }
        let id = |r: usize, c: usize| (r * self.cols + c) as u32;
        let mut triangles = Vec::with_capacity(self.prism_count());
        for r in 0..self.rows - 1 {
            for c in 0..self.cols - 1 {
                triangles.push([id(r + 1, c), id(r, c), id(r + 1, c + 1)]);
                triangles.push([id(r, c), id(r, c + 1), id(r + 1, c + 1)]);
            }
        }
        (vertices, triangles)
    }

    /// Surface height at local `(x, y)` by linear interpolation on the cell's triangle, `None` outside the grid.
    pub fn height_at(&self, x: f64, y: f64) -> Option<f64> {
        if !(x.abs() <= self.half_x && y.abs() <= self.half_y) {
            return None;
        }
        let (dx, dy) = self.cell_size();
        let u = ((x + self.half_x) / dx).clamp(0.0, (self.cols - 1) as f64);
        let v = ((y + self.half_y) / dy).clamp(0.0, (self.rows - 1) as f64);
        let (c, r) = ((u.floor() as usize).min(self.cols - 2), (v.floor() as usize).min(self.rows - 2));
        let (fu, fv) = (u - c as f64, v - r as f64);
        let h = |rr: usize, cc: usize| self.heights[rr * self.cols + cc];
        // Diagonal from (r, c) to (r+1, c+1): above it (fv ≥ fu) is triangle 0.
        Some(if fv >= fu {
            h(r, c) + fu * (h(r + 1, c + 1) - h(r + 1, c)) + fv * (h(r + 1, c) - h(r, c))
        } else {
            h(r, c) + fu * (h(r, c + 1) - h(r, c)) + fv * (h(r + 1, c + 1) - h(r, c + 1))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_validation() {
        let hf = HeightField::new(2, 3, vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5], 1.0, 0.5, 0.1).unwrap();
        assert_eq!(hf.vertex(1, 2), Some(DVec3::new(1.0, 0.5, 0.5)));
        assert_eq!(hf.vertex(0, 0), Some(DVec3::new(-1.0, -0.5, 0.0)));
        assert_eq!(hf.vertex(2, 0), None);
        assert_eq!(hf.height_range(), (0.0, 0.5));
        assert!(HeightField::new(1, 3, vec![0.0; 3], 1.0, 1.0, 0.1).is_err());
        assert!(HeightField::new(2, 2, vec![0.0; 3], 1.0, 1.0, 0.1).is_err());
        assert!(HeightField::new(2, 2, vec![0.0, f64::NAN, 0.0, 0.0], 1.0, 1.0, 0.1).is_err());
        assert!(HeightField::new(2, 2, vec![0.0; 4], -1.0, 1.0, 0.1).is_err());
        assert!(HeightField::new(2, 2, vec![0.0; 4], 1.0, 1.0, 0.0).is_err());
    }

    /// The two prisms of a cell tile its footprint, share the diagonal, and interpolate the surface.
    #[test]
    fn prisms_tile_the_cells() {
        let hf =
            HeightField::new(3, 4, (0..12).map(|i| 0.01 * (i * i) as f64).collect(), 1.5, 1.0, 0.2).unwrap();
        assert_eq!(hf.prism_count(), 12);
        let p0 = hf.prism(1, 2, 0).unwrap();
        let p1 = hf.prism(1, 2, 1).unwrap();
        assert_eq!(p0[3], hf.vertex(2, 2).unwrap());
        assert_eq!(p0[4], hf.vertex(1, 2).unwrap());
        assert_eq!(p0[5], hf.vertex(2, 3).unwrap());
        assert_eq!(
            [p1[3], p1[4], p1[5]],
            [hf.vertex(1, 2).unwrap(), hf.vertex(2, 3).unwrap(), hf.vertex(1, 3).unwrap()]
        );
        for p in [p0, p1] {
            for i in 0..3 {
                assert_eq!(p[i].truncate(), p[i + 3].truncate());
                assert_eq!(p[i].z, -0.2);
            }
        }
        assert!(hf.prism(2, 0, 0).is_none() && hf.prism(0, 3, 0).is_none() && hf.prism(0, 0, 2).is_none());
        // Interpolation: exact at samples, planar on each triangle (checked at the centroid of each).
        for r in 0..3 {
            for c in 0..4 {
                let v = hf.vertex(r, c).unwrap();
                assert!((hf.height_at(v.x, v.y).unwrap() - v.z).abs() < 1e-12);
            }
        }
        for p in [p0, p1] {
            let g = (p[3] + p[4] + p[5]) / 3.0;
            assert!((hf.height_at(g.x, g.y).unwrap() - g.z).abs() < 1e-12);
        }
        assert_eq!(hf.height_at(1.6, 0.0), None);
    }

    /// The surface mesh has one vertex per sample and two upward-facing triangles per cell.
    #[test]
    fn surface_mesh_faces_up() {
        let hf = HeightField::new(3, 4, (0..12).map(|i| 0.01 * i as f64).collect(), 1.5, 1.0, 0.2).unwrap();
        let (v, t) = hf.surface_mesh();
        assert_eq!((v.len(), t.len()), (12, 12));
        for tri in &t {
            let [a, b, c] = tri.map(|i| v[i as usize]);
            assert!((b - a).cross(c - a).z > 0.0, "{tri:?}");
        }
    }

    /// The sub-grid of a box: cells it can touch, clamped; empty off the grid.
    #[test]
    fn cells_overlapping_a_box() {
        let hf = HeightField::new(5, 5, vec![0.0; 25], 1.0, 1.0, 0.1).unwrap();
        // Cells are 0.5 wide; x in [-0.1, 0.3] spans grid coordinates [1.8, 2.6] -> cells 1..3.
        let (rows, cols) = hf.cells_overlapping(DVec2::new(-0.1, -1.0), DVec2::new(0.3, -0.8));
        assert_eq!(cols, 1..3);
        assert_eq!(rows, 0..1);
        let (rows, cols) = hf.cells_overlapping(DVec2::splat(-5.0), DVec2::splat(5.0));
        assert_eq!((rows, cols), (0..4, 0..4));
        assert!(hf.cells_overlapping(DVec2::splat(1.5), DVec2::splat(2.0)).1.is_empty());
        assert!(hf.cells_overlapping(DVec2::splat(f64::NAN), DVec2::splat(2.0)).1.is_empty());
    }
}
