//! Axis-aligned bounding boxes.
//!
//! [`Shape::local_aabb`] is the tight box in the shape's own frame. [`Shape::world_aabb`] is the tight box of the
//! posed shape, exact for every primitive: with `R` the rotation and `a = R e_z` the world axis,
//! - box: half extents `|R| h` (componentwise absolute value of `R`);
//! - sphere: `r` on every axis;
//! - capsule: `h |a_i| + r`;
//! - cylinder: `h |a_i| + r √(1 − a_i²)` (the rim circle's extent plus the axis);
//! - ellipsoid: `√(Σ_j (R_ij s_j)²)`;
//! - meshes: min/max over the transformed vertices.
//!
//! A height field uses the conservative bound of spec §A.4 (the 8 transformed corners of its local box), available
//! for every shape as [`Aabb::transformed_corners_bound`]. A plane is unbounded: its box is infinite except along a
//! world axis that its normal is exactly parallel to.

use glam::{DMat3, DVec3};
use serde::{Deserialize, Serialize};

use crate::pose::Pose;
use crate::shape::Shape;

/// An axis-aligned box `[min, max]` (metres). Components may be `±∞` for unbounded shapes (planes).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Aabb {
    /// Smallest corner.
    pub min: DVec3,
    /// Largest corner.
    pub max: DVec3,
}

impl Aabb {
    /// The box `[min, max]`; callers keep `min ≤ max` componentwise.
    pub const fn new(min: DVec3, max: DVec3) -> Self {
        Self { min, max }
    }

    /// The box of centre `c` and half extents `h`.
    pub fn from_center_half_extents(c: DVec3, h: DVec3) -> Self {
        Self { min: c - h, max: c + h }
    }

    /// The tight box of a set of points, `None` if there are none.
    pub fn from_points<I: IntoIterator<Item = DVec3>>(points: I) -> Option<Self> {
        let mut it = points.into_iter();
        let first = it.next()?;
        Some(it.fold(Self { min: first, max: first }, |b, p| Self { min: b.min.min(p), max: b.max.max(p) }))
    }

    /// Centre `(min + max)/2`.
    pub fn center(&self) -> DVec3 {
        0.5 * (self.min + self.max)
    }

    /// Half extents `(max − min)/2`.
    pub fn half_extents(&self) -> DVec3 {
        0.5 * (self.max - self.min)
    }

    /// Full extents `max − min`.
    pub fn extents(&self) -> DVec3 {
        self.max - self.min
    }

    /// Length of the diagonal `‖max − min‖`.
    pub fn diagonal_length(&self) -> f64 {
        (self.max - self.min).length()
    }

    /// Whether `p` lies inside or on the box.
    pub fn contains_point(&self, p: DVec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }

    /// Whether `other` lies inside or on this box.
    pub fn contains(&self, other: &Aabb) -> bool {
        other.min.cmpge(self.min).all() && other.max.cmple(self.max).all()
    }

    /// Strict overlap test of spec §A.4: the boxes are disjoint if on some axis `max_a ≤ min_b` or `min_a ≥ max_b`,
    /// so boxes that only touch do not overlap.
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.max.cmpgt(other.min).all() && self.min.cmplt(other.max).all()
    }

    /// Euclidean distance between the boxes, `‖max(0, |c_a − c_b| − h_a − h_b)‖` per axis (centres `c`, half
    /// extents `h`); 0 when they overlap or touch. A lower bound of the distance between anything inside them.
    pub fn distance(&self, other: &Aabb) -> f64 {
        let gap = (self.min - other.max).max(other.min - self.max).max(DVec3::ZERO);
        gap.length()
    }

    /// Squared distance from `x` to the box (0 inside).
    pub fn distance_squared_to_point(&self, x: DVec3) -> f64 {
        (self.min - x).max(x - self.max).max(DVec3::ZERO).length_squared()
    }

    /// The smallest box containing both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// The box grown by `margin` on every side (shrunk for a negative margin).
    pub fn expanded(&self, margin: f64) -> Aabb {
        Aabb { min: self.min - DVec3::splat(margin), max: self.max + DVec3::splat(margin) }
    }

    /// Volume (0 for a box with any non-positive extent).
    pub fn volume(&self) -> f64 {
        let e = self.extents().max(DVec3::ZERO);
        e.x * e.y * e.z
    }

    /// Surface area (used by the BVH cost model later).
    pub fn surface_area(&self) -> f64 {
        let e = self.extents().max(DVec3::ZERO);
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }

    /// The 8 corners; corner `k` takes `max` on axis `a` when bit `a` of `k` is set (corner 0 = min, corner 7 = max),
    /// the numbering of spec §A.1.
    pub fn corners(&self) -> [DVec3; 8] {
        std::array::from_fn(|k| {
            DVec3::new(
                if k & 1 != 0 { self.max.x } else { self.min.x },
                if k & 2 != 0 { self.max.y } else { self.min.y },
                if k & 4 != 0 { self.max.z } else { self.min.z },
            )
        })
    }

    /// The conservative bound of spec §A.1/§A.4: the componentwise min/max of the 8 corners of this (local) box
    /// mapped by `pose`. Contains the posed shape; exact only for boxes.
    pub fn transformed_corners_bound(&self, pose: &Pose) -> Aabb {
        let c = pose.transform_point(self.center());
        let h = abs_mat(pose.rotation_matrix()) * self.half_extents();
        Aabb::from_center_half_extents(c, h)
    }
}

/// Componentwise absolute value of a matrix.
fn abs_mat(m: DMat3) -> DMat3 {
    DMat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs())
}

impl Shape {
    /// The tight AABB in the shape's local frame (a plane's is `z ≤ 0`, infinite in x and y).
    pub fn local_aabb(&self) -> Aabb {
        match self {
            Shape::Plane(p) => Aabb::new(
                DVec3::new(
                    f64::NEG_INFINITY,
                    f64::NEG_INFINITY,
                    if p.is_two_sided() { 0.0 } else { f64::NEG_INFINITY },
                ),
                DVec3::new(f64::INFINITY, f64::INFINITY, 0.0),
            ),
            Shape::Sphere(s) => Aabb::from_center_half_extents(DVec3::ZERO, DVec3::splat(s.radius())),
            Shape::Ellipsoid(s) => Aabb::from_center_half_extents(DVec3::ZERO, s.semi_axes()),
            Shape::Cylinder(s) => Aabb::from_center_half_extents(
                DVec3::ZERO,
                DVec3::new(s.radius(), s.radius(), s.half_length()),
            ),
            Shape::Capsule(s) => Aabb::from_center_half_extents(
                DVec3::ZERO,
                DVec3::new(s.radius(), s.radius(), s.half_length() + s.radius()),
            ),
            Shape::Box(s) => Aabb::from_center_half_extents(DVec3::ZERO, s.half_extents()),
            Shape::ConvexMesh(m) => {
                let (lo, hi) = m.vertex_bounds();
                Aabb::new(lo, hi)
            }
            // The BVH's root box: the tight box of the triangles, kept by the mesh.
            Shape::TriangleMesh(m) => m.bvh().root().map_or_else(|| points_aabb(m.vertices()), |r| r.aabb),
            Shape::HeightField(h) => {
                let (hx, hy) = h.half_extents();
                let (_, top) = h.height_range();
                Aabb::new(DVec3::new(-hx, -hy, -h.base_depth()), DVec3::new(hx, hy, top.max(0.0)))
            }
        }
    }

    /// The AABB of the shape placed by `pose`, in the parent (world) frame. Exact for every shape except the height
    /// field (corner bound); see the module docs for the formulas.
    pub fn world_aabb(&self, pose: &Pose) -> Aabb {
        self.world_aabb_with(pose, pose.rotation_matrix())
    }

    /// [`Shape::world_aabb`] with the rotation matrix `r` of `pose.rotation` given: the one the narrow phase uses, so
    /// that both round alike (the MuJoCo dialect's, [`crate::rotation::quat_to_mat`]; a box resting exactly on a
    /// plane touches it in both or in neither). Planes and height fields use `pose` alone.
    pub fn world_aabb_with(&self, pose: &Pose, r: DMat3) -> Aabb {
        let t = pose.translation;
        match self {
            Shape::Plane(p) => plane_world_aabb(pose, p.is_two_sided()),
            Shape::Sphere(s) => Aabb::from_center_half_extents(t, DVec3::splat(s.radius())),
            Shape::Ellipsoid(s) => {
                let e = s.semi_axes();
                let rows = r.transpose();
                let h = DVec3::new(
                    (rows.x_axis * e).length(),
                    (rows.y_axis * e).length(),
                    (rows.z_axis * e).length(),
                );
                Aabb::from_center_half_extents(t, h)
            }
            Shape::Cylinder(s) => {
                let a = r.z_axis;
                let rim = (DVec3::ONE - a * a).max(DVec3::ZERO);
                let h = s.half_length() * a.abs()
                    + s.radius() * DVec3::new(rim.x.sqrt(), rim.y.sqrt(), rim.z.sqrt());
                Aabb::from_center_half_extents(t, h)
            }
            Shape::Capsule(s) => {
                let h = s.half_length() * r.z_axis.abs() + DVec3::splat(s.radius());
                Aabb::from_center_half_extents(t, h)
            }
            Shape::Box(s) => Aabb::from_center_half_extents(t, abs_mat(r) * s.half_extents()),
            Shape::ConvexMesh(m) => transformed_points_aabb(m.vertices(), r, t),
            // The hull's vertices have the same box as the mesh's, and are usually far fewer.
            Shape::TriangleMesh(m) => match m.convex_hull() {
                Some(h) => transformed_points_aabb(h.vertices(), r, t),
                None => transformed_points_aabb(m.vertices(), r, t),
            },
            Shape::HeightField(_) => self.local_aabb().transformed_corners_bound(pose),
        }
    }
}

fn points_aabb(points: &[DVec3]) -> Aabb {
    Aabb::from_points(points.iter().copied()).unwrap_or(Aabb::new(DVec3::ZERO, DVec3::ZERO))
}

fn transformed_points_aabb(points: &[DVec3], r: DMat3, t: DVec3) -> Aabb {
    // The bounds of R p, shifted by t once (rounding is monotonic, so min(R p) + t = min(R p + t)); one rotation
    // matrix per pose instead of a quaternion rotation per point.
    Aabb::from_points(points.iter().map(|&p| r * p))
        .map_or(Aabb::new(t, t), |b| Aabb::new(b.min + t, b.max + t))
}

/// The half-space `n·(x − t) ≤ 0` with `n = R e_z` is bounded only along a world axis that `n` equals (±); the
/// two-sided surface `n·(x − t) = 0` is bounded on both sides of that axis.
fn plane_world_aabb(pose: &Pose, two_sided: bool) -> Aabb {
    let n = pose.transform_vector(DVec3::Z);
    let mut min = DVec3::splat(f64::NEG_INFINITY);
    let mut max = DVec3::splat(f64::INFINITY);
    for axis in 0..3 {
        let others_zero = (0..3).filter(|&k| k != axis).all(|k| n[k] == 0.0);
        if others_zero && (two_sided || n[axis] > 0.0) {
            max[axis] = pose.translation[axis];
        }
        if others_zero && (two_sided || n[axis] < 0.0) {
            min[axis] = pose.translation[axis];
        }
    }
    Aabb::new(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Capsule, Cuboid, Cylinder, Ellipsoid, Plane, Sphere};
    use glam::DQuat;

    fn rotated() -> Pose {
        Pose::new(DVec3::new(0.5, -1.0, 2.0), DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.4)).unwrap()
    }

    /// A tight world AABB's face along `±e_i` is the support value `±h(±e_i)` of the posed shape.
    #[test]
    fn exact_boxes_match_support_values() {
        let shapes: Vec<Shape> = vec![
            Sphere::new(0.3).unwrap().into(),
            Capsule::new(0.2, 0.7).unwrap().into(),
            Cylinder::new(0.4, 0.25).unwrap().into(),
            Cuboid::new(DVec3::new(0.1, 0.6, 0.3)).unwrap().into(),
            Ellipsoid::new(DVec3::new(0.2, 0.5, 0.9)).unwrap().into(),
        ];
        for pose in [Pose::IDENTITY, rotated()] {
            for s in &shapes {
                let b = s.world_aabb(&pose);
                for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
                    let hi = axis.dot(s.world_support(&pose, axis).unwrap());
                    let lo = axis.dot(s.world_support(&pose, -axis).unwrap());
                    assert!((b.max.dot(axis) - hi).abs() < 1e-12, "{:?} max along {axis}", s.kind());
                    assert!((b.min.dot(axis) - lo).abs() < 1e-12, "{:?} min along {axis}", s.kind());
                }
                let bound = s.local_aabb().transformed_corners_bound(&pose);
                assert!(bound.contains(&b.expanded(-1e-12)));
            }
        }
    }

    #[test]
    fn strict_overlap_and_corners() {
        let a = Aabb::new(DVec3::ZERO, DVec3::ONE);
        let touching = Aabb::new(DVec3::new(1.0, 0.0, 0.0), DVec3::new(2.0, 1.0, 1.0));
        let overlapping = Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5));
        assert!(!a.overlaps(&touching));
        assert!(a.overlaps(&overlapping));
        assert_eq!(a.corners()[0], a.min);
        assert_eq!(a.corners()[7], a.max);
        assert_eq!(a.corners()[5], DVec3::new(1.0, 0.0, 1.0));
        assert_eq!(a.volume(), 1.0);
        assert_eq!(a.surface_area(), 6.0);
        assert_eq!(a.distance(&touching), 0.0);
        assert_eq!(a.distance(&overlapping), 0.0);
        let apart = Aabb::new(DVec3::new(4.0, 5.0, 0.5), DVec3::new(6.0, 6.0, 0.7));
        assert_eq!(a.distance(&apart), 5.0);
        assert_eq!(apart.distance(&a), 5.0);
    }

    #[test]
    fn plane_is_bounded_only_along_its_axis() {
        let p: Shape = Plane::new().into();
        let b = p.world_aabb(&Pose::from_translation(DVec3::new(0.0, 0.0, 0.25)));
        assert_eq!(b.max.z, 0.25);
        assert!(b.min.z.is_infinite() && b.max.x.is_infinite() && b.min.y.is_infinite());
        let flipped = Pose::from_rotation(DQuat::from_rotation_x(std::f64::consts::PI));
        let b = p.world_aabb(&flipped);
        assert!(b.max.z.is_infinite());
        let tilted = p.world_aabb(&Pose::from_rotation(DQuat::from_rotation_x(0.3)));
        assert!(tilted.max.z.is_infinite() && tilted.min.z.is_infinite());
        let surface: Shape = Plane::two_sided().into();
        let b = surface.world_aabb(&Pose::from_translation(DVec3::new(0.0, 0.0, -1.5)));
        assert_eq!((b.min.z, b.max.z), (-1.5, -1.5));
        assert!(b.min.x.is_infinite() && b.max.y.is_infinite());
    }
}
