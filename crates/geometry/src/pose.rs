//! Rigid transforms.
//!
//! A [`Pose`] maps points from a local frame to its parent (usually world) frame:
//! `p_parent = R(q) · p_local + t`. Quaternions are Hamilton, unit, stored by glam as `(x, y, z, w)` but read and
//! written as `(w, x, y, z)` at every boundary of signorini (MJCF, JSON, CLI), see [`Pose::from_wxyz`].

use glam::{DMat3, DQuat, DVec3};
use serde::{Deserialize, Serialize};

use crate::error::{GeometryError, Result};

/// Largest accepted deviation of a rotation quaternion's norm from 1 in [`Pose::new`]. Inputs within it are
/// renormalised (this is rounding noise from text formats, not a user mistake); anything further is an error.
pub const QUAT_NORM_TOLERANCE: f64 = 1e-6;

/// A rigid transform (rotation then translation), local → parent: `p_parent = rotation * p_local + translation`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// Translation `t` in metres, parent frame.
    pub translation: DVec3,
    /// Unit rotation quaternion `q` (local → parent).
    pub rotation: DQuat,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// The identity transform.
    pub const IDENTITY: Pose = Pose { translation: DVec3::ZERO, rotation: DQuat::IDENTITY };

    /// A validated pose. Errors on non-finite components or a quaternion whose norm is not within
    /// [`QUAT_NORM_TOLERANCE`] of 1; a quaternion within the tolerance is renormalised.
    pub fn new(translation: DVec3, rotation: DQuat) -> Result<Self> {
        if !translation.is_finite() {
            return Err(GeometryError::InvalidPose {
                what: format!("translation {translation} is not finite"),
            });
        }
        if translation.abs().max_element() > crate::MAX_COORDINATE {
            return Err(GeometryError::InvalidPose {
                what: format!(
                    "translation [{:e}, {:e}, {:e}] exceeds {:e} m in magnitude (the largest coordinate accepted)",
                    translation.x,
                    translation.y,
                    translation.z,
                    crate::MAX_COORDINATE
                ),
            });
        }
        if !rotation.is_finite() {
            return Err(GeometryError::InvalidPose { what: format!("rotation {rotation} is not finite") });
        }
        let norm = rotation.length();
        if (norm - 1.0).abs() > QUAT_NORM_TOLERANCE {
            return Err(GeometryError::InvalidPose {
                what: format!(
                    "rotation quaternion has norm {norm}, expected 1 (within {QUAT_NORM_TOLERANCE})"
                ),
            });
        }
        Ok(Self { translation, rotation: rotation / norm })
    }

    /// A validated pose from a translation and a `(w, x, y, z)` quaternion (the MuJoCo/Coal order).
    pub fn from_wxyz(translation: [f64; 3], wxyz: [f64; 4]) -> Result<Self> {
        let [w, x, y, z] = wxyz;
        Self::new(DVec3::from_array(translation), DQuat::from_xyzw(x, y, z, w))
    }

    /// A pure translation.
    pub fn from_translation(translation: DVec3) -> Self {
        Self { translation, rotation: DQuat::IDENTITY }
    }

    /// A pure rotation.
    pub fn from_rotation(rotation: DQuat) -> Self {
        Self { translation: DVec3::ZERO, rotation }
    }

    /// The rotation as `(w, x, y, z)`.
    pub fn rotation_wxyz(&self) -> [f64; 4] {
        let q = self.rotation;
        [q.w, q.x, q.y, q.z]
    }

    /// The rotation matrix `R` (columns are the local axes expressed in the parent frame).
    pub fn rotation_matrix(&self) -> DMat3 {
        DMat3::from_quat(self.rotation)
    }

    /// `self ∘ other`: first `other`, then `self` (`(self * other)(p) = self(other(p))`).
    pub fn compose(&self, other: &Pose) -> Pose {
        Pose {
            translation: self.translation + self.rotation * other.translation,
            rotation: self.rotation * other.rotation,
        }
    }

    /// The inverse transform (parent → local).
    pub fn inverse(&self) -> Pose {
        let inv = self.rotation.conjugate();
        Pose { translation: -(inv * self.translation), rotation: inv }
    }

    /// `inverse(self) ∘ other`: the pose of `other`'s frame expressed in `self`'s frame.
    pub fn inv_compose(&self, other: &Pose) -> Pose {
        let inv = self.rotation.conjugate();
        Pose { translation: inv * (other.translation - self.translation), rotation: inv * other.rotation }
    }

    /// Maps a point from the local to the parent frame: `R p + t`.
    #[inline]
    pub fn transform_point(&self, p: DVec3) -> DVec3 {
        self.rotation * p + self.translation
    }

    /// Maps a free vector (direction, normal) from the local to the parent frame: `R v`.
    #[inline]
    pub fn transform_vector(&self, v: DVec3) -> DVec3 {
        self.rotation * v
    }

    /// Maps a point from the parent to the local frame: `Rᵀ (p − t)`.
    #[inline]
    pub fn inverse_transform_point(&self, p: DVec3) -> DVec3 {
        self.rotation.conjugate() * (p - self.translation)
    }

    /// Maps a free vector from the parent to the local frame: `Rᵀ v`.
    #[inline]
    pub fn inverse_transform_vector(&self, v: DVec3) -> DVec3 {
        self.rotation.conjugate() * v
    }
}

impl std::ops::Mul for Pose {
    type Output = Pose;
    fn mul(self, rhs: Pose) -> Pose {
        self.compose(&rhs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Pose {
        Pose::new(
            DVec3::new(0.3, -1.2, 2.0),
            DQuat::from_axis_angle(DVec3::new(1.0, 2.0, -0.5).normalize(), 0.7),
        )
        .unwrap()
    }

    #[test]
    fn inverse_undoes_transform() {
        let p = sample();
        let x = DVec3::new(-0.4, 0.9, 1.7);
        let back = p.inverse().transform_point(p.transform_point(x));
        assert!((back - x).length() < 1e-14);
        assert!((p.inverse_transform_point(p.transform_point(x)) - x).length() < 1e-14);
        let id = p.compose(&p.inverse());
        assert!(id.translation.length() < 1e-14);
        assert!(id.rotation.angle_between(DQuat::IDENTITY) < 1e-7);
    }

    #[test]
    fn compose_is_function_composition() {
        let a = sample();
        let b = Pose::new(DVec3::new(1.0, 0.0, 0.5), DQuat::from_rotation_z(1.1)).unwrap();
        let x = DVec3::new(0.2, 0.3, -0.1);
        let lhs = (a * b).transform_point(x);
        let rhs = a.transform_point(b.transform_point(x));
        assert!((lhs - rhs).length() < 1e-14);
        let rel = a.inv_compose(&a.compose(&b));
        assert!((rel.translation - b.translation).length() < 1e-14);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(Pose::new(DVec3::new(f64::NAN, 0.0, 0.0), DQuat::IDENTITY).is_err());
        assert!(Pose::new(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.0, 0.0, f64::INFINITY)).is_err());
        assert!(Pose::new(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0)).is_err());
        assert!(Pose::new(DVec3::ZERO, DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0)).is_err());
        let p = Pose::from_wxyz([0.0; 3], [1.0 + 1e-9, 0.0, 0.0, 0.0]).unwrap();
        assert!((p.rotation.length() - 1.0).abs() < 1e-15);
    }
}
