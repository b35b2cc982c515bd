//! Height field (terrain).

use glam::DVec3;

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
}
