//! Narrow-phase algorithms, one per file.

pub mod box_box;
pub mod epa;
pub mod gjk;
pub mod minkowski;
pub mod mpr;
pub mod simplex;
pub mod support_descent;
pub mod support_newton;
pub mod triangle_triangle;
