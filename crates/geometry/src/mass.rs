//! Mass properties: volume, centre of mass, inertia tensor and principal frame.
//!
//! All solids are uniform. Closed forms, in the shape's local frame, for a solid of mass `m` (these are MuJoCo's
//! geom-inertia formulas, so MJCF bodies compile to the same numbers):
//! - sphere `r`: `V = 4/3 π r³`, `I = 2/5 m r²`;
//! - ellipsoid `(a, b, c)`: `V = 4/3 π abc`, `I_xx = m (b² + c²)/5` (cyclic);
//! - box half extents `(x, y, z)`: `V = 8xyz`, `I_xx = m (y² + z²)/3` (cyclic);
//! - cylinder `r`, half-length `h`, height `H = 2h`: `V = π r² H`, `I_zz = m r²/2`, `I_xx = m (3r² + H²)/12`;
//! - capsule `r`, `h`, `H = 2h`: a cylinder of mass `m_c` plus two hemispheres of total mass `m_s`,
//!   `I_zz = m_c r²/2 + 2/5 m_s r²`, `I_xx = m_c (3r² + H²)/12 + m_s (2/5 r² + H²/4 + 3/8 H r)` (exact: each
//!   hemisphere's centroid is `3r/8` from its flat face);
//! - convex and closed triangle meshes: exact signed-tetrahedron integration over the boundary triangles
//!   (each triangle `(a, b, c)` with the origin spans a tetrahedron of signed volume `a·(b×c)/6`, and the canonical
//!   tetrahedron's second moment `C = det[a b c]/120 · A (𝟙 + 𝟙𝟙ᵀ) Aᵀ`, `A = [a b c]`, is summed).
//!
//! The inertia tensor is stored about the centre of mass in the local axes. [`MassProperties::principal`] diagonalises
//! it (Jacobi rotations) into moments sorted in decreasing order and a right-handed frame.

use glam::{DMat3, DQuat, DVec3};
use serde::{Deserialize, Serialize};

use crate::error::{GeometryError, Result, positive};
use crate::pose::Pose;
use crate::shape::Shape;

/// Mass, centre of mass and inertia of a rigid body or shape.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MassProperties {
    /// Mass in kg.
    pub mass: f64,
    /// Centre of mass in the local frame (m).
    pub com: DVec3,
    /// Inertia tensor about the centre of mass, local axes (kg·m²).
    pub inertia: DMat3,
}

/// Principal moments and the frame in which the inertia tensor is diagonal.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PrincipalInertia {
    /// Principal moments `(I_1 ≥ I_2 ≥ I_3)` in kg·m².
    pub moments: DVec3,
    /// Rotation from the principal frame to the local frame: `inertia = R diag(moments) Rᵀ`.
    pub frame: DQuat,
}

impl MassProperties {
    /// Zero mass at the origin (the neutral element of [`MassProperties::combine`]).
    pub const ZERO: MassProperties = MassProperties { mass: 0.0, com: DVec3::ZERO, inertia: DMat3::ZERO };

    /// Mass properties of a uniform solid of `density > 0` (kg/m³) filling `shape`.
    ///
    /// Errors for non-positive or non-finite density and for shapes that enclose no volume (plane, height field, open
    /// or inside-out triangle meshes).
    pub fn from_density(shape: &Shape, density: f64) -> Result<Self> {
        positive("mass properties", "density", density)?;
        let unit = unit_density(shape)?;
        Ok(unit.scaled(density))
    }

    /// Mass properties of a uniform solid of total `mass > 0` (kg) filling `shape`.
    pub fn from_mass(shape: &Shape, mass: f64) -> Result<Self> {
        positive("mass properties", "mass", mass)?;
        let unit = unit_density(shape)?;
        Ok(unit.scaled(mass / unit.mass))
    }

    /// The volume of `shape` in m³ (the mass at unit density).
    pub fn volume(shape: &Shape) -> Result<f64> {
        Ok(unit_density(shape)?.mass)
    }

    /// The same body with mass and inertia multiplied by `factor` (e.g. a density).
    pub fn scaled(&self, factor: f64) -> Self {
        Self { mass: self.mass * factor, com: self.com, inertia: self.inertia * factor }
    }

    /// The same body expressed in the parent frame of `pose` (`com' = pose(com)`, `I' = R I Rᵀ`).
    pub fn transformed(&self, pose: &Pose) -> Self {
        let r = pose.rotation_matrix();
        Self {
            mass: self.mass,
            com: pose.transform_point(self.com),
            inertia: r * self.inertia * r.transpose(),
        }
    }

    /// Inertia about an arbitrary point `p` (parallel-axis theorem): `I + m (‖d‖² 𝟙 − d dᵀ)`, `d = com − p`.
    pub fn inertia_about(&self, p: DVec3) -> DMat3 {
        self.inertia + shift(self.mass, self.com - p)
    }

    /// The union of two bodies expressed in the same frame.
    pub fn combine(&self, other: &MassProperties) -> MassProperties {
        let mass = self.mass + other.mass;
        if mass <= 0.0 {
            return MassProperties::ZERO;
        }
        let com = (self.com * self.mass + other.com * other.mass) / mass;
        MassProperties { mass, com, inertia: self.inertia_about(com) + other.inertia_about(com) }
    }

    /// Principal moments (decreasing) and frame.
    pub fn principal(&self) -> PrincipalInertia {
        let (values, vectors) = symmetric_eigen(self.inertia);
        let mut order = [0usize, 1, 2];
        order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
        let cols = [vectors.col(order[0]), vectors.col(order[1]), vectors.col(order[2])];
        let mut frame = DMat3::from_cols(cols[0], cols[1], cols[2]);
        if frame.determinant() < 0.0 {
            frame.z_axis = -frame.z_axis;
        }
        PrincipalInertia {
            moments: DVec3::new(values[order[0]], values[order[1]], values[order[2]]),
            frame: DQuat::from_mat3(&frame).normalize(),
        }
    }
}

/// `m (‖d‖² 𝟙 − d dᵀ)`.
fn shift(m: f64, d: DVec3) -> DMat3 {
    let dd = d.length_squared();
    m * (DMat3::from_diagonal(DVec3::splat(dd)) - outer(d, d))
}

fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// Mass properties at density 1 (so `mass` is the volume).
fn unit_density(shape: &Shape) -> Result<MassProperties> {
    use std::f64::consts::PI;
    let diag =
        |m: f64, i: DVec3| MassProperties { mass: m, com: DVec3::ZERO, inertia: DMat3::from_diagonal(i) };
    Ok(match shape {
        Shape::Sphere(s) => {
            let r = s.radius();
            let m = 4.0 / 3.0 * PI * r * r * r;
            diag(m, DVec3::splat(0.4 * m * r * r))
        }
        Shape::Ellipsoid(s) => {
            let e = s.semi_axes();
            let m = 4.0 / 3.0 * PI * e.x * e.y * e.z;
            let e2 = e * e;
            diag(m, DVec3::new(e2.y + e2.z, e2.x + e2.z, e2.x + e2.y) * (m / 5.0))
        }
        Shape::Box(s) => {
            let h = s.half_extents();
            let m = 8.0 * h.x * h.y * h.z;
            let h2 = h * h;
            diag(m, DVec3::new(h2.y + h2.z, h2.x + h2.z, h2.x + h2.y) * (m / 3.0))
        }
        Shape::Cylinder(s) => {
            let (r, height) = (s.radius(), 2.0 * s.half_length());
            let m = PI * r * r * height;
            let perp = m * (3.0 * r * r + height * height) / 12.0;
            diag(m, DVec3::new(perp, perp, m * r * r / 2.0))
        }
        Shape::Capsule(s) => {
            let (r, height) = (s.radius(), 2.0 * s.half_length());
            let mc = PI * r * r * height;
            let ms = 4.0 / 3.0 * PI * r * r * r;
            let perp = mc * (3.0 * r * r + height * height) / 12.0
                + ms * (0.4 * r * r + height * height / 4.0 + 3.0 / 8.0 * height * r);
            let axial = mc * r * r / 2.0 + 0.4 * ms * r * r;
            diag(mc + ms, DVec3::new(perp, perp, axial))
        }
        Shape::ConvexMesh(m) => polyhedron(m.vertices(), m.triangles(), "convex mesh")?,
        Shape::TriangleMesh(m) => {
            if !m.is_closed() {
                return Err(GeometryError::NoVolume { kind: "open triangle mesh" });
            }
            polyhedron(m.vertices(), m.triangles(), "triangle mesh")?
        }
        Shape::Plane(_) | Shape::HeightField(_) => {
            return Err(GeometryError::NoVolume { kind: shape.kind().name() });
        }
    })
}

/// Exact unit-density mass properties of the solid bounded by outward-oriented triangles.
///
/// Integrates relative to the vertex centroid to keep the sums well conditioned far from the origin.
pub(crate) fn polyhedron(
    vertices: &[DVec3],
    triangles: &[[u32; 3]],
    kind: &'static str,
) -> Result<MassProperties> {
    let reference = vertices.iter().copied().sum::<DVec3>() / vertices.len().max(1) as f64;
    let mut volume = 0.0;
    let mut first = DVec3::ZERO;
    let mut second = DMat3::ZERO;
    for tri in triangles {
        let [a, b, c] = tri.map(|i| vertices[i as usize] - reference);
        let det = a.dot(b.cross(c));
        volume += det / 6.0;
        first += det / 24.0 * (a + b + c);
        // ∫ x xᵀ over the tetrahedron (0, a, b, c) = det/120 · (Σ p pᵀ + s sᵀ), s = a + b + c.
        let s = a + b + c;
        second += (outer(a, a) + outer(b, b) + outer(c, c) + outer(s, s)) * (det / 120.0);
    }
    if volume.is_nan() || volume <= 0.0 || volume.is_infinite() {
        return Err(GeometryError::NoVolume { kind });
    }
    let com_rel = first / volume;
    let covariance = second - outer(com_rel, com_rel) * volume;
    let trace = covariance.x_axis.x + covariance.y_axis.y + covariance.z_axis.z;
    let inertia = DMat3::from_diagonal(DVec3::splat(trace)) - covariance;
    Ok(MassProperties { mass: volume, com: com_rel + reference, inertia })
}

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations: `m = V diag(λ) Vᵀ`.
///
/// Each rotation `J` in the `(p, q)` plane (`J_pp = J_qq = c`, `J_pq = s`, `J_qp = −s`, with `t = s/c` the smaller
/// root of `t² + 2θt − 1 = 0`, `θ = (a_qq − a_pp)/(2 a_pq)`) zeroes `a_pq` in `Jᵀ A J`.
fn symmetric_eigen(m: DMat3) -> ([f64; 3], DMat3) {
    let mut a = m;
    let mut v = DMat3::IDENTITY;
    let scale = m.to_cols_array().iter().fold(0.0_f64, |s, x| s.max(x.abs()));
    for _sweep in 0..64 {
        let off = a.y_axis.x.abs() + a.z_axis.x.abs() + a.z_axis.y.abs();
        if off <= scale * 1e-18 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            let apq = a.col(q)[p];
            if apq == 0.0 {
                continue;
            }
            let theta = (a.col(q)[q] - a.col(p)[p]) / (2.0 * apq);
            let t = if theta == 0.0 {
                1.0
            } else {
                theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt())
            };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            let mut j = DMat3::IDENTITY;
            j.col_mut(p)[p] = c;
            j.col_mut(p)[q] = -s;
            j.col_mut(q)[p] = s;
            j.col_mut(q)[q] = c;
            a = j.transpose() * a * j;
            v *= j;
        }
    }
    ([a.x_axis.x, a.y_axis.y, a.z_axis.z], v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Capsule, Cuboid, Cylinder, Ellipsoid, Sphere};

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn closed_forms() {
        let s = MassProperties::from_density(&Sphere::new(2.0).unwrap().into(), 3.0).unwrap();
        let m = 3.0 * 4.0 / 3.0 * std::f64::consts::PI * 8.0;
        assert!(close(s.mass, m, 1e-15));
        assert!(close(s.inertia.x_axis.x, 0.4 * m * 4.0, 1e-15));
        let b =
            MassProperties::from_mass(&Cuboid::new(DVec3::new(0.1, 0.2, 0.3)).unwrap().into(), 6.0).unwrap();
        assert!(close(b.inertia.x_axis.x, 6.0 * (0.04 + 0.09) / 3.0, 1e-15));
        assert!(close(b.inertia.z_axis.z, 6.0 * (0.01 + 0.04) / 3.0, 1e-15));
    }

    #[test]
    fn eigen_recovers_rotated_tensor() {
        let r = DMat3::from_quat(DQuat::from_euler(glam::EulerRot::ZYX, 0.4, -0.9, 1.3));
        let d = DVec3::new(3.0, 1.0, 2.0);
        let m = r * DMat3::from_diagonal(d) * r.transpose();
        let body = MassProperties { mass: 1.0, com: DVec3::ZERO, inertia: m };
        let p = body.principal();
        assert!((p.moments - DVec3::new(3.0, 2.0, 1.0)).abs().max_element() < 1e-13);
        let f = DMat3::from_quat(p.frame);
        let back = f * DMat3::from_diagonal(p.moments) * f.transpose();
        for (x, y) in back.to_cols_array().iter().zip(m.to_cols_array()) {
            assert!((x - y).abs() < 1e-13);
        }
    }

    #[test]
    fn combine_matches_parallel_axis() {
        let s: Shape = Sphere::new(0.5).unwrap().into();
        let a = MassProperties::from_density(&s, 1.0).unwrap().transformed(&Pose::from_translation(DVec3::X));
        let b =
            MassProperties::from_density(&s, 1.0).unwrap().transformed(&Pose::from_translation(-DVec3::X));
        let ab = a.combine(&b);
        assert!(ab.com.length() < 1e-15);
        let single = MassProperties::from_density(&s, 1.0).unwrap();
        assert!(close(ab.inertia.y_axis.y, 2.0 * (single.inertia.y_axis.y + single.mass), 1e-14));
        assert!(close(ab.inertia.x_axis.x, 2.0 * single.inertia.x_axis.x, 1e-14));
    }

    #[test]
    fn bad_density_and_volumeless_shapes() {
        let s: Shape = Cylinder::new(1.0, 1.0).unwrap().into();
        assert!(MassProperties::from_density(&s, 0.0).is_err());
        assert!(MassProperties::from_density(&s, f64::NAN).is_err());
        assert!(MassProperties::from_mass(&s, -1.0).is_err());
        let plane: Shape = crate::Plane::new().into();
        assert!(matches!(MassProperties::from_density(&plane, 1.0), Err(GeometryError::NoVolume { .. })));
        let _ = (Capsule::new(1.0, 1.0).unwrap(), Ellipsoid::new(DVec3::ONE).unwrap());
    }
}
