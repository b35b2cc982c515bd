//! Spatial (6-D) vectors and inertias in MuJoCo's "com-based" convention.
//!
//! Every spatial quantity of a body is expressed in world axes and referred to one point per kinematic tree: the
//! centre of mass of the tree at the current configuration, `c = subtree_com[body_rootid[b]]`, treated as a point
//! fixed in space. A motion vector `(ω, v)` gives the velocity of the material point at `x` as `v + ω × (x − c)`;
//! a force vector `(τ, f)` is a force `f` through `c` plus a couple `τ`. The power pairing is `ω·τ + v·f`.

use glam::{DMat3, DVec3};

/// A spatial motion (`ang = ω`, `lin = v` at the reference point) or force (`ang = τ` about the reference point,
/// `lin = f`) vector, world axes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SpatialVec {
    /// Angular part (rad/s, or N·m).
    pub ang: DVec3,
    /// Linear part (m/s at the reference point, or N).
    pub lin: DVec3,
}

impl SpatialVec {
    /// The zero vector.
    pub const ZERO: SpatialVec = SpatialVec { ang: DVec3::ZERO, lin: DVec3::ZERO };

    /// `(ang, lin)`.
    #[inline]
    pub const fn new(ang: DVec3, lin: DVec3) -> Self {
        Self { ang, lin }
    }

    /// The pairing `ang·other.ang + lin·other.lin` (power of a force on a motion).
    #[inline]
    pub fn dot(self, other: SpatialVec) -> f64 {
        self.ang.dot(other.ang) + self.lin.dot(other.lin)
    }

    /// Motion cross product `self ×ₘ m = (ω × m_ω, ω × m_v + v × m_ω)`.
    #[inline]
    pub fn cross_motion(self, m: SpatialVec) -> SpatialVec {
        SpatialVec { ang: self.ang.cross(m.ang), lin: self.ang.cross(m.lin) + self.lin.cross(m.ang) }
    }

    /// Force cross product `self ×_f f = (ω × f_τ + v × f_f, ω × f_f)`.
    #[inline]
    pub fn cross_force(self, f: SpatialVec) -> SpatialVec {
        SpatialVec { ang: self.ang.cross(f.ang) + self.lin.cross(f.lin), lin: self.ang.cross(f.lin) }
    }

    /// `self · s`.
    #[inline]
    pub fn scale(self, s: f64) -> SpatialVec {
        SpatialVec { ang: self.ang * s, lin: self.lin * s }
    }
}

impl std::ops::Add for SpatialVec {
    type Output = SpatialVec;
    #[inline]
    fn add(self, o: SpatialVec) -> SpatialVec {
        SpatialVec { ang: self.ang + o.ang, lin: self.lin + o.lin }
    }
}

impl std::ops::AddAssign for SpatialVec {
    #[inline]
    fn add_assign(&mut self, o: SpatialVec) {
        self.ang += o.ang;
        self.lin += o.lin;
    }
}

impl std::ops::Sub for SpatialVec {
    type Output = SpatialVec;
    #[inline]
    fn sub(self, o: SpatialVec) -> SpatialVec {
        SpatialVec { ang: self.ang - o.ang, lin: self.lin - o.lin }
    }
}

/// A body inertia about the tree's reference point `c`, world axes: mass `m`, first moment `h = m (x_com − c)` and
/// rotational inertia `I_c = I_com + m (‖d‖² 𝟙 − d dᵀ)` with `d = x_com − c`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpatialInertia {
    /// Mass (kg).
    pub mass: f64,
    /// First moment `m (x_com − c)` (kg·m).
    pub h: DVec3,
    /// Rotational inertia about `c` (kg·m²).
    pub rot: DMat3,
}

impl Default for SpatialInertia {
    fn default() -> Self {
        Self::ZERO
    }
}

impl SpatialInertia {
    /// No inertia.
    pub const ZERO: SpatialInertia = SpatialInertia { mass: 0.0, h: DVec3::ZERO, rot: DMat3::ZERO };

    /// The inertia of mass `mass` with world-frame inertia `inertia_com` about its centre `com_offset = x_com − c`.
    #[inline]
    pub fn from_com(mass: f64, inertia_com: DMat3, com_offset: DVec3) -> Self {
        let d = com_offset;
        let shift = DMat3::from_diagonal(DVec3::splat(d.length_squared())) - outer(d, d);
        Self { mass, h: d * mass, rot: inertia_com + shift * mass }
    }

    /// The momentum `I·v = (I_c ω + h × v, m v − h × ω)` of motion `v`.
    #[inline]
    pub fn mul_motion(&self, v: SpatialVec) -> SpatialVec {
        SpatialVec {
            ang: self.rot * v.ang + self.h.cross(v.lin),
            lin: v.lin * self.mass - self.h.cross(v.ang),
        }
    }
}

impl std::ops::AddAssign for SpatialInertia {
    #[inline]
    fn add_assign(&mut self, o: SpatialInertia) {
        self.mass += o.mass;
        self.h += o.h;
        self.rot += o.rot;
    }
}

/// An applied wrench on a body: a force through the body's centre of mass and a torque, world frame (MuJoCo
/// `xfrc_applied`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Wrench {
    /// Force (N), applied at the centre of mass.
    pub force: DVec3,
    /// Torque (N·m).
    pub torque: DVec3,
}

/// `a bᵀ`.
#[inline]
pub(crate) fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: [f64; 6]) -> SpatialVec {
        SpatialVec::new(DVec3::new(a[0], a[1], a[2]), DVec3::new(a[3], a[4], a[5]))
    }

    /// `(v ×ₘ m)·f = −m·(v ×_f f)`: the force cross product is the negative adjoint of the motion one.
    #[test]
    fn cross_products_are_adjoint() {
        let a = v([0.3, -1.2, 0.7, 2.0, 0.1, -0.4]);
        let m = v([-0.5, 0.9, 1.1, 0.2, -0.8, 0.6]);
        let f = v([1.4, 0.3, -0.2, -1.0, 0.5, 0.9]);
        let lhs = a.cross_motion(m).dot(f);
        let rhs = -m.dot(a.cross_force(f));
        assert!((lhs - rhs).abs() < 1e-14);
        assert_eq!(a.cross_motion(a), SpatialVec::ZERO);
    }

    /// The spatial inertia of a point mass gives momentum `m·(velocity of the point)` and its moment about `c`.
    #[test]
    fn point_mass_momentum() {
        let (mass, d) = (2.0, DVec3::new(0.3, -0.1, 0.5));
        let inertia = SpatialInertia::from_com(mass, DMat3::ZERO, d);
        let motion = v([0.4, 1.0, -0.6, 0.2, 0.7, -0.3]);
        let momentum = inertia.mul_motion(motion);
        let velocity = motion.lin + motion.ang.cross(d);
        assert!((momentum.lin - velocity * mass).length() < 1e-15);
        assert!((momentum.ang - d.cross(velocity * mass)).length() < 1e-15);
    }
}
