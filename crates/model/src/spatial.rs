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

    /// The pairing `ang·other.ang + lin·other.lin` (power of a force on a motion), summed as MuJoCo 4.0.1's
    /// vectorised `mju_dot` sums six products `p₀…p₅`: `((p₀ + p₂) + (p₁ + p₃)) + (p₄ + p₅)` (checked against
    /// `mujoco.mju_dot` on random vectors, bit for bit).
    #[inline]
    pub fn dot(self, other: SpatialVec) -> f64 {
        let (a, b) = (self.ang * other.ang, self.lin * other.lin);
        ((a.x + a.z) + (a.y + b.x)) + (b.y + b.z)
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

    /// The inertia of a body with principal moments `moments` along the columns of `frame`, its centre of mass at
    /// `com_offset` from the reference point, in MuJoCo's arithmetic (`mju_inertCom`): `R diag(i) Rᵀ` entry by entry,
    /// then the shift `m (‖d‖² 𝟙 − d dᵀ)` added entry by entry.
    #[inline]
    pub fn from_principal(mass: f64, moments: DVec3, frame: DMat3, com_offset: DVec3) -> Self {
        let m = frame.to_cols_array();
        // Row-major `mat`, as MuJoCo holds it: mat[3r + c] = frame.col(c)[r].
        let mat = [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]];
        let i = moments;
        let tmp = [
            mat[0] * i.x,
            mat[3] * i.x,
            mat[6] * i.x,
            mat[1] * i.y,
            mat[4] * i.y,
            mat[7] * i.y,
            mat[2] * i.z,
            mat[5] * i.z,
            mat[8] * i.z,
        ];
        let d = com_offset;
        let xx = mat[0] * tmp[0] + mat[1] * tmp[3] + mat[2] * tmp[6] + mass * (d.y * d.y + d.z * d.z);
        let yy = mat[3] * tmp[1] + mat[4] * tmp[4] + mat[5] * tmp[7] + mass * (d.x * d.x + d.z * d.z);
        let zz = mat[6] * tmp[2] + mat[7] * tmp[5] + mat[8] * tmp[8] + mass * (d.x * d.x + d.y * d.y);
        let xy = mat[0] * tmp[1] + mat[1] * tmp[4] + mat[2] * tmp[7] - mass * d.x * d.y;
        let xz = mat[0] * tmp[2] + mat[1] * tmp[5] + mat[2] * tmp[8] - mass * d.x * d.z;
        let yz = mat[3] * tmp[2] + mat[4] * tmp[5] + mat[5] * tmp[8] - mass * d.y * d.z;
        let rot = DMat3::from_cols(DVec3::new(xx, xy, xz), DVec3::new(xy, yy, yz), DVec3::new(xz, yz, zz));
        Self { mass, h: DVec3::new(mass * d.x, mass * d.y, mass * d.z), rot }
    }

    /// The momentum `I·v = (I_c ω + h × v, m v − h × ω)` of motion `v`, summed term by term in MuJoCo 4.0.1's
    /// order (`mju_mulInertVec`, checked against it bit for bit).
    #[inline]
    pub fn mul_motion(&self, v: SpatialVec) -> SpatialVec {
        let r = &self.rot;
        let (xx, yy, zz, xy, xz, yz) =
            (r.x_axis.x, r.y_axis.y, r.z_axis.z, r.x_axis.y, r.x_axis.z, r.y_axis.z);
        let (h, m) = (self.h, self.mass);
        let (w, l) = (v.ang, v.lin);
        SpatialVec {
            ang: DVec3::new(
                xx * w.x + xy * w.y + xz * w.z - h.z * l.y + h.y * l.z,
                xy * w.x + yy * w.y + yz * w.z + h.z * l.x - h.x * l.z,
                xz * w.x + yz * w.y + zz * w.z - h.y * l.x + h.x * l.y,
            ),
            lin: DVec3::new(
                h.z * w.y - h.y * w.z + m * l.x,
                h.x * w.z - h.z * w.x + m * l.y,
                h.y * w.x - h.x * w.y + m * l.z,
            ),
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
        let inertia = SpatialInertia::from_principal(mass, DVec3::ZERO, DMat3::IDENTITY, d);
        let motion = v([0.4, 1.0, -0.6, 0.2, 0.7, -0.3]);
        let momentum = inertia.mul_motion(motion);
        let velocity = motion.lin + motion.ang.cross(d);
        assert!((momentum.lin - velocity * mass).length() < 1e-15);
        assert!((momentum.ang - d.cross(velocity * mass)).length() < 1e-15);
    }
}
