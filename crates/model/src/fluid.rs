//! Fluid forces (MuJoCo `mj_fluid`): drag, and for ellipsoid geoms lift and added mass, from the medium's
//! `density` ρ, `viscosity` β and `wind` w, as passive forces (`qfrc_fluid`, part of `qfrc_passive`). No buoyancy
//! (as MuJoCo: use `gravcomp` for it).
//!
//! **Inertia-box model** (a body without ellipsoid geoms): the box `bᵢ = √(6 (I_j + I_k − I_i)/m)` of the body's
//! inertia, in its inertial frame; with `(ω, v)` the local angular and linear velocity of the centre of mass
//! relative to the wind, `f = −3π d̄ β v − ½ ρ (b_j b_k |vᵢ| vᵢ)ᵢ` and `τ = −π d̄³ β ω − ρ (bᵢ (b_j⁴ + b_k⁴) |ωᵢ| ωᵢ / 64)ᵢ`
//! with `d̄` the mean side, applied at the centre of mass.
//!
//! **Ellipsoid model** (MJCF `fluidshape="ellipsoid"`, per geom, in the geom frame with the geom's semi-axes):
//! added mass (`ρ m_A v` and `ρ I_A ω` with the virtual mass and inertia of the ellipsoid from Lamb's integrals,
//! 15-point Gauss–Kronrod), Magnus lift `C_M ρ V ω × v`, Kutta lift, blunt/slender viscous and quadratic drag and
//! angular drag with the coefficients `fluidcoef = (C_Db, C_Ds, C_Da, C_K, C_M)`, applied at the geom's frame origin.
//! A body with an ellipsoid geom has no inertia-box force. Formulas as MuJoCo 4.0's `engine_passive.c`.
//!
//! [`Model::fluid_velocity_jacobian`] gives `−h ∂f/∂q̇` for the implicit integrators: `h Jᵀ B J` with `B` the 6×6
//! derivative of the local force (closed forms: MuJoCo 4.0's `mjd_inertiaBoxFluid` and `mjd_ellipsoidFluid`,
//! symmetrised as MuJoCo's `implicitfast` symmetrises it). It has the sparsity of `M` (a body's dofs are its chain).

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::{MassProperties, Shape};

use crate::data::Data;
use crate::model::Model;

/// The medium (MJCF `<option density viscosity wind>`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Medium {
    /// Density ρ (kg/m³).
    pub density: f64,
    /// Dynamic viscosity β (Pa·s).
    pub viscosity: f64,
    /// Wind velocity (m/s, world).
    pub wind: DVec3,
}

impl Medium {
    /// Whether there are fluid forces at all.
    pub fn is_active(&self) -> bool {
        self.density != 0.0 || self.viscosity != 0.0
    }
}

/// MuJoCo's default `fluidcoef`: blunt drag, slender drag, angular drag, Kutta lift, Magnus lift.
pub const DEFAULT_FLUIDCOEF: [f64; 5] = [0.5, 0.25, 1.5, 1.0, 1.0];

/// A geom's ellipsoid fluid model, compiled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FluidEllipsoid {
    /// `(C_Db, C_Ds, C_Da, C_K, C_M)`.
    pub coefs: [f64; 5],
    /// Semi-axes of the ellipsoid (m), in `frame`.
    pub semi_axes: DVec3,
    /// Virtual (added) mass per unit density, along each axis (m³).
    pub virtual_mass: DVec3,
    /// Virtual inertia per unit density, about each axis (m⁵).
    pub virtual_inertia: DVec3,
    /// The ellipsoid's frame in the geom frame (identity for primitives; a mesh's centre of mass and principal axes,
    /// MuJoCo's frame of a mesh geom).
    pub frame: (DVec3, DQuat),
}

impl FluidEllipsoid {
    /// The model of a geom of `shape` with coefficients `coefs`; `None` for planes and height fields.
    pub fn new(shape: &Shape, coefs: [f64; 5]) -> Option<FluidEllipsoid> {
        let (semi_axes, frame) = match shape {
            Shape::Sphere(s) => (DVec3::splat(s.radius()), (DVec3::ZERO, DQuat::IDENTITY)),
            Shape::Capsule(c) => {
                let (r, h) = (c.radius(), c.half_length());
                (DVec3::new(r, r, h + r), (DVec3::ZERO, DQuat::IDENTITY))
            }
            Shape::Cylinder(c) => {
                let r = c.radius();
                (DVec3::new(r, r, c.half_length()), (DVec3::ZERO, DQuat::IDENTITY))
            }
            Shape::Box(b) => (b.half_extents(), (DVec3::ZERO, DQuat::IDENTITY)),
            Shape::Ellipsoid(e) => (e.semi_axes(), (DVec3::ZERO, DQuat::IDENTITY)),
            Shape::ConvexMesh(m) => mesh_frame(shape, m.vertices())?,
            Shape::TriangleMesh(m) => mesh_frame(shape, m.vertices())?,
            Shape::Plane(_) | Shape::HeightField(_) => return None,
        };
        let [dx, dy, dz] = semi_axes.to_array();
        let volume = 4.0 / 3.0 * std::f64::consts::PI * dx * dy * dz;
        let (kx, ky, kz) = (kappa(dx, dy, dz), kappa(dy, dz, dx), kappa(dz, dx, dy));
        let eps = 1e-14;
        let fac = |a2: f64, b2: f64, ka: f64, kb: f64| {
            (b2 - a2).powi(2) * (ka - kb).abs() / (2.0 * (b2 - a2) + (b2 + a2) * (kb - ka)).abs().max(eps)
        };
        let (dx2, dy2, dz2) = (dx * dx, dy * dy, dz * dz);
        let inertia_fac = DVec3::new(fac(dz2, dy2, kz, ky), fac(dx2, dz2, kx, kz), fac(dy2, dx2, ky, kx));
        let mass = |k: f64| volume * k / (2.0 - k).max(eps);
        Some(FluidEllipsoid {
            coefs,
            semi_axes,
            virtual_mass: DVec3::new(mass(kx), mass(ky), mass(kz)),
            virtual_inertia: inertia_fac * volume / 5.0,
            frame,
        })
    }

    /// `∂(τ, f)/∂(ω, v)` of [`FluidEllipsoid::force`] at `(ω, v)` in closed form (row `r`, column `c`:
    /// `∂out_r/∂in_c`), symmetrised when `symmetric`. The terms are added in the order of MuJoCo 4.0's
    /// `mjd_ellipsoidFluid`, which the arithmetic follows: Magnus lift, Kutta lift, viscous drag, viscous torque and
    /// the added mass's gyroscopic terms; a zero denominator gives a zero term ([`ratio`]).
    fn derivative(&self, medium: &Medium, w: DVec3, v: DVec3, symmetric: bool) -> [[f64; 6]; 6] {
        let (rho, beta) = (medium.density, medium.viscosity);
        let [c_blunt, c_slender, c_ang, c_kutta, c_magnus] = self.coefs;
        let size = self.semi_axes.to_array();
        let pi = std::f64::consts::PI;
        let mut out = [[0.0; 6]; 6];
        // Adds the row-major 3×3 `d` (`∂out_i/∂in_j`) to the block of output rows `rows` and input columns `cols`
        // (0: the angular part, 1: the linear part).
        let add = |m: &mut [[f64; 6]; 6], d: &[f64; 9], rows: usize, cols: usize| {
            for i in 0..3 {
                for j in 0..3 {
                    m[3 * rows + i][3 * cols + j] += d[3 * i + j];
                }
            }
        };
        let [x, y, z] = v.to_array();
        let (xx, yy, zz, xy, yz, xz) = (x * x, y * y, z * z, x * y, y * z, x * z);
        let pow2 = |a: f64| a * a;
        let (a, b, c) = (pow2(size[1] * size[2]), pow2(size[2] * size[0]), pow2(size[0] * size[1]));
        let (aa, bb, cc) = (a * a, b * b, c * c);
        let proj_denom = aa * xx + bb * yy + cc * zz;
        let proj_num = a * xx + b * yy + c * zz;
        let d_max = size[0].max(size[1]).max(size[2]);
        let d_min = size[0].min(size[1]).min(size[2]);
        let d_mid = size[0] + size[1] + size[2] - d_max - d_min;
        let eq_sphere_d = 2.0 / 3.0 * (size[0] + size[1] + size[2]);

        // Magnus lift: f += C_M ρ V ω × v.
        let volume = 4.0 / 3.0 * pi * size[0] * size[1] * size[2];
        let magnus = c_magnus * rho * volume;
        let (d_ang, d_lin) = cross_derivatives(magnus * w, magnus * v);
        add(&mut out, &d_ang, 1, 0);
        add(&mut out, &d_lin, 1, 1);

        // Kutta lift: f = cos α A_proj ((diag(a, b, c) v) × v) × v (MuJoCo's SymPy form).
        let norm2 = xx + yy + zz;
        let df_denom = ratio(pi * c_kutta * rho, (proj_denom * proj_num * norm2).sqrt());
        let df_coef = [yy * (a - b) + zz * (a - c), xx * (b - a) + zz * (b - c), xx * (c - a) + yy * (c - b)];
        let proj_term = ratio(proj_num, proj_denom);
        let cos_term = ratio(proj_num, norm2);
        let abc = [a, b, c];
        let mut d = [0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                d[3 * i + j] = (abc[j] - abc[i]) * (2.0 * proj_num);
            }
        }
        let inner =
            [aa * proj_term - a + cos_term, bb * proj_term - b + cos_term, cc * proj_term - c + cos_term];
        for i in 0..3 {
            for j in 0..3 {
                d[3 * i + j] += inner[j] * df_coef[i];
            }
        }
        let outer = [xx, xy, xz, xy, yy, yz, xz, yz, zz];
        for (e, o) in d.iter_mut().zip(outer) {
            *e *= o;
        }
        for i in 0..3 {
            d[4 * i] -= df_coef[i] * proj_num;
        }
        for e in &mut d {
            *e *= df_denom;
        }
        add(&mut out, &d, 1, 1);

        // Viscous drag: f = −(3π β d_eq + ρ |v| (C_Db A_proj + C_Ds (A_max − A_proj))) v.
        let a_max = pi * d_max * d_mid;
        let da_coef = ratio(pi, (proj_num * proj_num * proj_num * proj_denom).sqrt());
        let a_proj = pi * ratio(proj_denom, proj_num).sqrt();
        let norm = norm2.sqrt();
        let inv_norm = ratio(1.0, norm);
        let lin_coef = beta * 3.0 * pi * eq_sphere_d;
        let quad_coef = rho * (a_proj * c_blunt + c_slender * (a_max - a_proj));
        let aproj_coef = rho * norm * (c_blunt - c_slender);
        let daproj_dv = [
            aproj_coef * da_coef * a * x * (b * yy * (a - b) + c * zz * (a - c)),
            aproj_coef * da_coef * b * y * (a * xx * (b - a) + c * zz * (b - c)),
            aproj_coef * da_coef * c * z * (a * xx * (c - a) + b * yy * (c - b)),
        ];
        let mut d = outer;
        for i in 0..3 {
            d[4 * i] += norm2;
        }
        let scale = -quad_coef * inv_norm;
        for e in &mut d {
            *e *= scale;
        }
        for (i, vi) in [x, y, z].into_iter().enumerate() {
            for j in 0..3 {
                d[3 * i + j] += daproj_dv[j] * -vi;
            }
        }
        for i in 0..3 {
            d[4 * i] -= lin_coef;
        }
        add(&mut out, &d, 1, 1);

        // Viscous torque: τ = −(π β d_eq³ + ρ |diag(k) ω|) ω.
        let lin_coef = beta * (pi * eq_sphere_d * eq_sphere_d * eq_sphere_d);
        let i_max = 8.0 / 15.0 * pi * d_mid * (d_max * d_max) * (d_max * d_max);
        let max_moment = |dir: usize| {
            let (d0, d1, d2) = (size[dir], size[(dir + 1) % 3], size[(dir + 2) % 3]);
            8.0 / 15.0 * pi * d0 * pow2(pow2(d1.max(d2)))
        };
        let [wx, wy, wz] = w.to_array();
        let mom_coef: [f64; 3] = std::array::from_fn(|k| {
            let ii = max_moment(k);
            c_ang * ii + c_slender * (i_max - ii)
        });
        let mom_visc = DVec3::new(wx * mom_coef[0], wy * mom_coef[1], wz * mom_coef[2]);
        let density = ratio(rho, mom_visc.length());
        let mom_sq = [
            -density * wx * mom_coef[0] * mom_coef[0],
            -density * wy * mom_coef[1] * mom_coef[1],
            -density * wz * mom_coef[2] * mom_coef[2],
        ];
        let diagonal = wx * mom_sq[0] + wy * mom_sq[1] + wz * mom_sq[2] - lin_coef;
        let mut d = [diagonal, 0.0, 0.0, 0.0, diagonal, 0.0, 0.0, 0.0, diagonal];
        for (i, wi) in [wx, wy, wz].into_iter().enumerate() {
            for j in 0..3 {
                d[3 * i + j] += mom_sq[j] * wi;
            }
        }
        add(&mut out, &d, 0, 0);

        // Added mass: τ += p × v + l × ω, f += p × ω, with p = ρ m_A v and l = ρ I_A ω.
        let vm = self.virtual_mass.to_array();
        let vi = self.virtual_inertia.to_array();
        let lin_mom = DVec3::new(rho * vm[0] * x, rho * vm[1] * y, rho * vm[2] * z);
        let ang_mom = DVec3::new(rho * vi[0] * wx, rho * vi[1] * wy, rho * vi[2] * wz);
        let scaled = |mut d: [f64; 9], k: [f64; 3]| {
            for (i, e) in d.iter_mut().enumerate() {
                *e *= rho * k[i % 3];
            }
            d
        };
        let (da, db) = cross_derivatives(ang_mom, w);
        add(&mut out, &db, 0, 0);
        add(&mut out, &scaled(da, vi), 0, 0);
        let (da, db) = cross_derivatives(lin_mom, v);
        add(&mut out, &db, 0, 1);
        add(&mut out, &scaled(da, vm), 0, 1);
        let (da, db) = cross_derivatives(lin_mom, w);
        add(&mut out, &db, 1, 0);
        add(&mut out, &scaled(da, vm), 1, 1);

        if symmetric {
            std::array::from_fn(|i| std::array::from_fn(|j| 0.5 * (out[i][j] + out[j][i])))
        } else {
            out
        }
    }

    /// The local force and torque `(τ, f)` on the geom moving at local `(ω, v)` (relative to the wind) in `medium`.
    fn force(&self, medium: &Medium, w: DVec3, v: DVec3) -> (DVec3, DVec3) {
        let (rho, beta) = (medium.density, medium.viscosity);
        let [c_blunt, c_slender, c_ang, c_kutta, c_magnus] = self.coefs;
        let r = self.semi_axes;
        let pi = std::f64::consts::PI;
        // Added mass (without the acceleration terms).
        let p = rho * self.virtual_mass * v;
        let l = rho * self.virtual_inertia * w;
        let mut torque = p.cross(v) + l.cross(w);
        let mut force = p.cross(w);
        // Viscous forces.
        let volume = 4.0 / 3.0 * pi * r.x * r.y * r.z;
        let (dmax, dmin) = (r.max_element(), r.min_element());
        let dmid = r.x + r.y + r.z - dmax - dmin;
        let a_max = pi * dmax * dmid;
        let magnus = c_magnus * rho * volume * w.cross(v);
        // Projected area and Kutta lift in MuJoCo 4.0.1's formulation (read off its machine code; its published
        // source forms `Σ (s_j s_k)⁴ v_i²` and `Σ (s_j s_k v_i)²` directly, which over- and underflow for thin or
        // slow shapes): the semi-axes scaled by the largest, `t = s / d_max`, the velocity by its norm, `u = v / |v|`,
        // `A_i = (t_j t_k)²`, `Q = Σ A_i u_i²`, `B_i = A_i / Q`, `R = Σ B_i² u_i²`; then `A_proj = π d_max² √(R Q)`
        // and the lift's normal `n_i = B_i u_i` with `cos α / |n| = 1 / R`. Each reciprocal is 0 below `mjMINVAL`.
        let recip = |x: f64| if x > 1e-15 { 1.0 / x } else { 0.0 };
        let speed = v.length();
        let u = v * recip(speed);
        let t = r * recip(dmax);
        let a = [(t.y * t.z) * (t.y * t.z), (t.x * t.z) * (t.x * t.z), (t.x * t.y) * (t.x * t.y)];
        let q = (a[0] * u.x * u.x + a[1] * u.y * u.y) + a[2] * u.z * u.z;
        let b = a.map(|a| a * recip(q));
        let r_sum = (b[0] * b[0] * u.x * u.x + b[1] * b[1] * u.y * u.y) + b[2] * b[2] * u.z * u.z;
        let a_proj = pi * dmax * dmax * (r_sum * q).sqrt();
        let n = DVec3::new(b[0] * u.x, b[1] * u.y, b[2] * u.z);
        let circulation = n.cross(v) * (a_proj * (rho * c_kutta * recip(r_sum)));
        let kutta = circulation.cross(v);
        let pow4 = |x: f64| (x * x) * (x * x);
        let d_eq = 2.0 / 3.0 * (r.x + r.y + r.z);
        let i_max = 8.0 / 15.0 * pi * dmid * pow4(dmax);
        let ii = [
            8.0 / 15.0 * pi * r.x * pow4(r.y.max(r.z)),
            8.0 / 15.0 * pi * r.y * pow4(r.z.max(r.x)),
            8.0 / 15.0 * pi * r.z * pow4(r.x.max(r.y)),
        ];
        let mom = DVec3::new(
            w.x * (c_ang * ii[0] + c_slender * (i_max - ii[0])),
            w.y * (c_ang * ii[1] + c_slender * (i_max - ii[1])),
            w.z * (c_ang * ii[2] + c_slender * (i_max - ii[2])),
        );
        // Stokes drag of the equivalent sphere (its coefficients formed first, as MuJoCo's `mj_viscousForces`).
        let (visc_force, visc_torque) = (3.0 * pi * d_eq, pi * d_eq * d_eq * d_eq);
        let drag_lin = beta * visc_force + rho * speed * (a_proj * c_blunt + c_slender * (a_max - a_proj));
        let drag_ang = beta * visc_torque + rho * mom.length();
        torque -= drag_ang * w;
        force += magnus + kutta - drag_lin * v;
        (torque, force)
    }
}

/// `num / den`, and 0 for `den = 0`. MuJoCo 4.0.1's ellipsoid derivative does not clamp its denominators at
/// `mjMINVAL` (the 3.x source does, which changes the derivative of flat shapes at low speed: a 2 mm card's by 2e-4,
/// MuJoCo's `leaves.xml` at its second step); every term they divide vanishes with them.
fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 { num / den } else { 0.0 }
}

/// `∂(a × b)/∂a` and `∂(a × b)/∂b`, row-major (`[3 i + j] = ∂(a × b)_i/∂·_j`).
fn cross_derivatives(a: DVec3, b: DVec3) -> ([f64; 9], [f64; 9]) {
    ([0.0, b.z, -b.y, -b.z, 0.0, b.x, b.y, -b.x, 0.0], [0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0])
}

/// A mesh's ellipsoid: its centre of mass and principal axes (MuJoCo's mesh frame) and the half extents of its
/// vertices there.
fn mesh_frame(shape: &Shape, vertices: &[DVec3]) -> Option<(DVec3, (DVec3, DQuat))> {
    let props = MassProperties::from_density(shape, 1.0).ok()?;
    let principal = props.principal();
    let to_local = principal.frame.conjugate();
    let extent = vertices.iter().fold(DVec3::ZERO, |e, &p| e.max((to_local * (p - props.com)).abs()));
    Some((extent, (props.com, principal.frame)))
}

/// `κ = ∫₀^∞ dx dy dz / √((dx² + λ)³ (dy² + λ)(dz² + λ)) dλ` by MuJoCo's 15-point Gauss–Kronrod rule on a mapped
/// domain.
fn kappa(dx: f64, dy: f64, dz: f64) -> f64 {
    const W: [f64; 15] = [
        0.01146766, 0.03154605, 0.05239501, 0.07032663, 0.08450236, 0.09517529, 0.10221647, 0.10474107,
        0.10221647, 0.09517529, 0.08450236, 0.07032663, 0.05239501, 0.03154605, 0.01146766,
    ];
    const L: [f64; 15] = [
        7.865151709349917e-08,
        1.7347976913907274e-05,
        0.0003548008144506193,
        0.002846636252924549,
        0.014094260903596077,
        0.053063261727396636,
        0.17041978741317773,
        0.5,
        1.4036301548686991,
        3.9353484827022642,
        11.644841677041734,
        39.53187807410903,
        177.5711362220801,
        1429.4772912937397,
        54087.416549217705,
    ];
    const DL: [f64; 15] = [
        5.538677720489877e-05,
        0.002080868285293228,
        0.016514126520723166,
        0.07261900344370877,
        0.23985243401862602,
        0.6868318249020725,
        1.8551129519182894,
        5.0,
        14.060031152313941,
        43.28941239611009,
        156.58546376397112,
        747.9826085305024,
        5827.4042950027115,
        116754.0197944512,
        25482945.327264845,
    ];
    let (ix, iy, iz) = (1.0 / (dx * dx), 1.0 / (dy * dy), 1.0 / (dz * dz));
    let scale = (dx * dx * dx * dy * dz).powf(0.4);
    let mut k = 0.0;
    for i in 0..15 {
        let lambda = scale * L[i];
        let (a, b, c) = (1.0 + lambda * ix, 1.0 + lambda * iy, 1.0 + lambda * iz);
        k += scale * DL[i] / (a * (a * b * c).sqrt()) * W[i];
    }
    k * ix
}

/// The inertia box of a body (full side lengths) from its principal inertia and mass.
fn inertia_box(inertia: DVec3, mass: f64) -> DVec3 {
    let side = |a: f64, b: f64, c: f64| ((b + c - a).max(1e-15) / mass * 6.0).sqrt();
    DVec3::new(
        side(inertia.x, inertia.y, inertia.z),
        side(inertia.y, inertia.z, inertia.x),
        side(inertia.z, inertia.x, inertia.y),
    )
}

/// The inertia-box force and torque `(τ, f)` on a body moving at local `(ω, v)` relative to the wind, with the
/// products grouped left to right as `mj_inertiaBoxFluidModel` writes them (`((−π d) d) d β`, `((½ρ b₁) b₂) |v| v`,
/// `ρ b₀ (b₁⁴ + b₂⁴) |ω| ω / 64` with `b⁴ = ((b b) b) b`).
fn box_force(medium: &Medium, b: DVec3, w: DVec3, v: DVec3) -> (DVec3, DVec3) {
    let (rho, beta) = (medium.density, medium.viscosity);
    let pi = std::f64::consts::PI;
    let (mut torque, mut force) = (DVec3::ZERO, DVec3::ZERO);
    if beta > 0.0 {
        let diam = (b.x + b.y + b.z) / 3.0;
        torque = w * (-pi * diam * diam * diam * beta);
        force = v * (-3.0 * pi * diam * beta);
    }
    if rho > 0.0 {
        let (b, v, w) = (b.to_array(), v.to_array(), w.to_array());
        let (mut f, mut t) = (force.to_array(), torque.to_array());
        let p4 = |x: f64| x * x * x * x;
        for (k, (i, j)) in [(1, 2), (0, 2), (0, 1)].into_iter().enumerate() {
            f[k] -= 0.5 * rho * b[i] * b[j] * v[k].abs() * v[k];
            t[k] -= rho * b[k] * (p4(b[i]) + p4(b[j])) * w[k].abs() * w[k] / 64.0;
        }
        (force, torque) = (DVec3::from_array(f), DVec3::from_array(t));
    }
    (torque, force)
}

/// The diagonal of `∂(τ, f)/∂(ω, v)` of [`box_force`].
fn box_derivative(medium: &Medium, b: DVec3, w: DVec3, v: DVec3) -> [f64; 6] {
    let (rho, beta) = (medium.density, medium.viscosity);
    let pi = std::f64::consts::PI;
    let mut out = [0.0; 6];
    if beta > 0.0 {
        let diam = (b.x + b.y + b.z) / 3.0;
        for (k, o) in out.iter_mut().enumerate() {
            *o = if k < 3 { -pi * diam.powi(3) * beta } else { -3.0 * pi * diam * beta };
        }
    }
    if rho > 0.0 {
        out[0] -= rho * b.x * (b.y.powi(4) + b.z.powi(4)) * 2.0 * w.x.abs() / 64.0;
        out[1] -= rho * b.y * (b.x.powi(4) + b.z.powi(4)) * 2.0 * w.y.abs() / 64.0;
        out[2] -= rho * b.z * (b.x.powi(4) + b.y.powi(4)) * 2.0 * w.z.abs() / 64.0;
        out[3] -= 0.5 * rho * b.y * b.z * 2.0 * v.x.abs();
        out[4] -= 0.5 * rho * b.x * b.z * 2.0 * v.y.abs();
        out[5] -= 0.5 * rho * b.x * b.y * 2.0 * v.z.abs();
    }
    out
}

/// The inertia box's derivative as MuJoCo's `mjd_inertiaBoxFluid` adds it: `(component, ∂f_c/∂u_c)` pairs, the
/// viscous terms of the six components first, then the quadratic drag of each, in its arithmetic
/// (`((−π d) d) d β`, `((−ρ b₀) (b₁⁴ + b₂⁴)) 2 |ω₀| / 64`, `((−½ρ b₁) b₂) 2 |v₀|`, `b⁴ = ((b b) b) b`).
fn box_derivative_terms(medium: &Medium, b: DVec3, w: DVec3, v: DVec3) -> impl Iterator<Item = (usize, f64)> {
    let (rho, beta) = (medium.density, medium.viscosity);
    let pi = std::f64::consts::PI;
    let diam = (b.x + b.y + b.z) / 3.0;
    let viscous = (0..6)
        .filter(move |_| beta > 0.0)
        .map(move |c| (c, if c < 3 { -pi * diam * diam * diam * beta } else { -3.0 * pi * diam * beta }));
    let q4 = |x: f64| x * x * x * x;
    let drag = [
        -rho * b.x * (q4(b.y) + q4(b.z)) * 2.0 * w.x.abs() / 64.0,
        -rho * b.y * (q4(b.x) + q4(b.z)) * 2.0 * w.y.abs() / 64.0,
        -rho * b.z * (q4(b.x) + q4(b.y)) * 2.0 * w.z.abs() / 64.0,
        -0.5 * rho * b.y * b.z * 2.0 * v.x.abs(),
        -0.5 * rho * b.x * b.z * 2.0 * v.y.abs(),
        -0.5 * rho * b.x * b.y * 2.0 * v.z.abs(),
    ];
    viscous.chain(drag.into_iter().enumerate().filter(move |_| rho > 0.0))
}

/// The buffers of [`Model::add_fluid_velocity_derivative`]: a site's chain with its local Jacobian columns, and
/// where each pair of them sits in the dof–dof layout.
#[derive(Debug, Clone, Default)]
pub struct FluidDerivativeScratch {
    chain: Vec<(usize, [f64; 6])>,
    at: Vec<usize>,
}

/// One place a fluid force acts: the body, the point and local axes, and which model.
struct Site {
    body: usize,
    point: DVec3,
    axes: DMat3,
    model: Option<FluidEllipsoid>,
}

impl Model {
    /// Calls `f` on every point where a fluid force acts, with its model (`None`: the body's inertia box): the
    /// ellipsoid geoms of a body that has some, else the body's centre of mass.
    fn for_each_fluid_site(&self, d: &Data, mut f: impl FnMut(Site)) {
        for b in 1..self.nbody {
            if d.body_mass[b] < 1e-15 || !d.body_awake[b] {
                continue;
            }
            if !self.body_fluid_ellipsoid[b] {
                f(Site { body: b, point: d.xipos[b], axes: d.ximat[b], model: None });
                continue;
            }
            for g in self.body_geomadr[b]..self.body_geomadr[b] + self.body_geomnum[b] {
                if let Some(model) = self.geom_fluid[g] {
                    let (offset, rotation) = model.frame;
                    let axes = d.geom_xmat[g] * DMat3::from_quat(rotation);
                    f(Site {
                        body: b,
                        point: d.geom_xpos[g] + d.geom_xmat[g] * offset,
                        axes,
                        model: Some(model),
                    });
                }
            }
        }
    }

    /// The local velocity `(ω, v)` of `site` relative to the wind (zero motion for a body without dofs).
    fn fluid_velocity(&self, d: &Data, site: &Site) -> (DVec3, DVec3) {
        let rt = site.axes.transpose();
        let (w, v) = if self.body_dofnum[self.body_weldid[site.body]] == 0 {
            (DVec3::ZERO, DVec3::ZERO)
        } else {
            let c = d.subtree_com[self.body_rootid[site.body]];
            let cv = d.cvel[site.body];
            (rt * cv.ang, rt * (cv.lin - (site.point - c).cross(cv.ang)))
        };
        (w, v - rt * self.medium.wind)
    }

    /// Adds the fluid forces to `qfrc_fluid` (zeroed first) and `qfrc_passive` (after [`Model::com_velocity`]).
    pub(crate) fn fluid(&self, d: &mut Data) {
        d.qfrc_fluid.fill(0.0);
        if !self.medium.is_active() {
            return;
        }
        let mut out = std::mem::take(&mut d.qfrc_fluid);
        self.for_each_fluid_site(d, |site| {
            let (w, v) = self.fluid_velocity(d, &site);
            let (torque, force) = match &site.model {
                Some(e) => e.force(&self.medium, w, v),
                None => box_force(
                    &self.medium,
                    inertia_box(d.body_inertia[site.body], d.body_mass[site.body]),
                    w,
                    v,
                ),
            };
            let (torque, force) = (site.axes * torque, site.axes * force);
            // `Jᵀ f`, then `Jᵀ τ`, each added on its own (MuJoCo's `mj_applyFT`).
            for dof in self.dof_chain(site.body) {
                let (lin, ang) = self.jacobian_column(d, dof, site.point);
                out[dof] += crate::jacobian::transpose_entry(lin, force);
                out[dof] += crate::jacobian::transpose_entry(ang, torque);
            }
        });
        for (p, f) in d.qfrc_passive.iter_mut().zip(&out) {
            *p += f;
        }
        d.qfrc_fluid = out;
    }

    /// Adds `∂f_fluid/∂q̇ = Jᵀ B J` (unsymmetrised) at `d`'s velocities to `qderiv`, a matrix in the dof–dof layout
    /// of [`Model::derivative_layout`], term by term as MuJoCo 4.0.1's `mjd_passive_vel` adds them to `qDeriv` (for
    /// the `implicit` integrator): `J_jp (J_ik B_ij)` for every site in body order, every non-zero `B_ij` in row order
    /// and every dof `k` with `J_ik ≠ 0` (increasing), then every dof `p` of the site's chain (increasing), `J` the
    /// site's Jacobian in its local axes (rotation rows first). The inertia box adds its diagonal as MuJoCo does, one
    /// rank-one term at a time: the viscous terms, then the quadratic drag. An ellipsoid's `B` is symmetrised,
    /// `(B + Bᵀ)/2`, on the bodies where `symmetric(body)` (MuJoCo's `implicitfast`, but for standalone free bodies).
    /// Allocates only when `scratch` first meets a longer chain.
    pub fn add_fluid_velocity_derivative(
        &self,
        d: &Data,
        qderiv: &mut [f64],
        scratch: &mut FluidDerivativeScratch,
        symmetric: impl Fn(usize) -> bool,
    ) {
        if !self.medium.is_active() {
            return;
        }
        let layout = &self.derivative_layout;
        let FluidDerivativeScratch { chain, at } = scratch;
        self.for_each_fluid_site(d, |site| {
            let (w, v) = self.fluid_velocity(d, &site);
            let rt = site.axes.transpose();
            chain.clear();
            chain.extend(self.dof_chain_slice(site.body).iter().rev().map(|&dof| {
                let (lin, ang) = self.jacobian_column(d, dof, site.point);
                let (a, l) = (rt * ang, rt * lin);
                (dof, [a.x, a.y, a.z, l.x, l.y, l.z])
            }));
            // `at[kc·n + pc]`: the entry `(chain[kc], chain[pc])` of the layout. Row `k` lists `k`'s ancestors (the
            // chain before it), `k`, then its descendants in increasing order, among them the rest of the chain.
            let n = chain.len();
            at.clear();
            for (kc, &(k, _)) in chain.iter().enumerate() {
                let (adr, cols) = (layout.dof_adr[k], layout.row(k));
                at.extend((0..=kc).map(|pc| adr + pc));
                let mut e = kc + 1;
                for &(p, _) in &chain[kc + 1..] {
                    while cols[e] != p {
                        e += 1;
                    }
                    at.push(adr + e);
                }
            }
            // The site's terms `(i, j, B_ij)` in MuJoCo's order (at most 36 of an ellipsoid's, 12 of a box's).
            let mut terms = [(0usize, 0usize, 0.0f64); 36];
            let mut nterms = 0;
            let mut push = |t: (usize, usize, f64)| {
                if t.2 != 0.0 {
                    terms[nterms] = t;
                    nterms += 1;
                }
            };
            match &site.model {
                Some(e) => {
                    let b = e.derivative(&self.medium, w, v, symmetric(site.body));
                    for (i, row) in b.iter().enumerate() {
                        for (j, &bij) in row.iter().enumerate() {
                            push((i, j, bij));
                        }
                    }
                }
                None => {
                    let box_ = inertia_box(d.body_inertia[site.body], d.body_mass[site.body]);
                    for (c, b) in box_derivative_terms(&self.medium, box_, w, v) {
                        push((c, c, b));
                    }
                }
            }
            // Entry by entry, its terms in MuJoCo's order (the same additions as MuJoCo's term-by-term loops, each
            // entry's sum carried in a register).
            let terms = &terms[..nterms];
            for (kc, &(_, jk)) in chain.iter().enumerate() {
                for (&e, &(_, jp)) in at[kc * n..(kc + 1) * n].iter().zip(chain.iter()) {
                    let mut acc = qderiv[e];
                    for &(i, j, b) in terms {
                        if jk[i] != 0.0 {
                            acc += jp[j] * (jk[i] * b);
                        }
                    }
                    qderiv[e] = acc;
                }
            }
        });
    }

    /// Adds `−h ∂f_fluid/∂q̇ = −h Jᵀ B J` to `out`, a matrix in the layout of `M` ([`Model::dof_madr`]), at `d`'s
    /// velocities (after [`Model::com_velocity`]); nothing without a medium.
    pub fn fluid_velocity_jacobian(&self, d: &Data, h: f64, out: &mut [f64]) {
        if !self.medium.is_active() {
            return;
        }
        self.for_each_fluid_site(d, |site| {
            let (w, v) = self.fluid_velocity(d, &site);
            let b = match &site.model {
                Some(e) => e.derivative(&self.medium, w, v, true),
                None => {
                    let diag = box_derivative(
                        &self.medium,
                        inertia_box(d.body_inertia[site.body], d.body_mass[site.body]),
                        w,
                        v,
                    );
                    let mut b = [[0.0; 6]; 6];
                    for (k, row) in b.iter_mut().enumerate() {
                        row[k] = diag[k];
                    }
                    b
                }
            };
            let rt = site.axes.transpose();
            let local = |dof: usize| {
                let (lin, ang) = self.jacobian_column(d, dof, site.point);
                let (a, l) = (rt * ang, rt * lin);
                [a.x, a.y, a.z, l.x, l.y, l.z]
            };
            // The chain runs by decreasing dof: `dof_j ≤ dof_i`, entry `(dof_i, dof_j)` of the lower triangle.
            let chain = self.dof_chain_slice(site.body);
            for (i, &dof_i) in chain.iter().enumerate() {
                let li = local(dof_i);
                let bj: [f64; 6] = std::array::from_fn(|r| (0..6).map(|c| b[r][c] * li[c]).sum());
                for &dof_j in &chain[i..] {
                    let lj = local(dof_j);
                    let value: f64 = (0..6).map(|r| lj[r] * bj[r]).sum();
                    let row = self.dof_madr[dof_i]..self.dof_madr[dof_i + 1];
                    if let Some(k) = row.into_iter().find(|&k| self.dof_colind[k] == dof_j) {
                        out[k] -= h * value;
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use signorini_geometry::{Cuboid, Sphere};

    /// The closed-form derivative of the ellipsoid model equals central differences of its force, on ellipsoids from
    /// round to flat and slender (a 2 mm card, a 1 mm leaf), at velocities with every term active and at a leaf's
    /// slow fall, where clamping the denominators at `MINVAL` would change it.
    #[test]
    fn ellipsoid_derivative_matches_central_differences() {
        let medium = Medium { density: 1.2, viscosity: 0.3, wind: DVec3::ZERO };
        let coefs = [0.5, 0.25, 1.5, 1.0, 1.0];
        for semi_axes in [
            DVec3::new(0.1, 0.2, 0.3),
            DVec3::new(0.3, 0.05, 0.2),
            DVec3::new(0.02, 0.02, 0.4),
            DVec3::new(0.06, 0.09, 0.002),
            DVec3::new(0.025, 0.01, 0.001),
        ] {
            let shape = Shape::Ellipsoid(signorini_geometry::Ellipsoid::new(semi_axes).unwrap());
            let e = FluidEllipsoid::new(&shape, coefs).unwrap();
            for (w, v) in [
                (DVec3::new(0.3, -1.1, 0.7), DVec3::new(0.9, 0.4, -1.3)),
                (DVec3::new(-2.0, 0.1, 0.05), DVec3::new(-0.2, 1.7, 0.6)),
                (DVec3::ZERO, DVec3::new(-0.6, 0.3, -0.1)),
                (DVec3::new(0.01, 0.0, 0.0), DVec3::new(0.002, -0.001, -0.03)),
            ] {
                let b = e.derivative(&medium, w, v, false);
                let f = |x: [f64; 6]| {
                    let (t, f) = e.force(&medium, DVec3::new(x[0], x[1], x[2]), DVec3::new(x[3], x[4], x[5]));
                    [t.x, t.y, t.z, f.x, f.y, f.z]
                };
                let x0 = [w.x, w.y, w.z, v.x, v.y, v.z];
                for c in 0..6 {
                    let step = 1e-6;
                    let (mut plus, mut minus) = (x0, x0);
                    plus[c] += step;
                    minus[c] -= step;
                    let (fp, fm) = (f(plus), f(minus));
                    for r in 0..6 {
                        let numeric = (fp[r] - fm[r]) / (2.0 * step);
                        assert!(
                            (b[r][c] - numeric).abs() < 1e-7 * (1.0 + numeric.abs()),
                            "{semi_axes}: ∂out{r}/∂in{c} = {} vs {numeric}",
                            b[r][c]
                        );
                    }
                }
            }
        }
    }

    /// A sphere's added mass is half its displaced volume (κ = 2/3 on every axis) and it has no added inertia.
    #[test]
    fn sphere_added_mass_is_half_its_volume() {
        let r = 0.3;
        let e = FluidEllipsoid::new(&Shape::Sphere(Sphere::new(r).unwrap()), DEFAULT_FLUIDCOEF).unwrap();
        let half_volume = 0.5 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
        assert!((e.virtual_mass - DVec3::splat(half_volume)).abs().max_element() < 1e-6 * half_volume);
        assert!(e.virtual_inertia.abs().max_element() < 1e-12);
    }

    /// The inertia box of a solid box body is the box itself.
    #[test]
    fn inertia_box_of_a_box_is_the_box() {
        let half = DVec3::new(0.3, 0.2, 0.05);
        let props = MassProperties::from_density(&Shape::Box(Cuboid::new(half).unwrap()), 700.0).unwrap();
        let inertia = DVec3::new(props.inertia.x_axis.x, props.inertia.y_axis.y, props.inertia.z_axis.z);
        assert!((inertia_box(inertia, props.mass) - 2.0 * half).abs().max_element() < 1e-12);
    }

    /// The box model's derivative is the derivative of its force (central differences).
    #[test]
    fn box_derivative_matches_finite_differences() {
        let medium = Medium { density: 30.0, viscosity: 0.4, wind: DVec3::ZERO };
        let b = DVec3::new(0.3, 0.2, 0.05);
        let (w, v) = (DVec3::new(0.7, -1.3, 2.1), DVec3::new(-0.4, 0.9, 1.6));
        let ours = box_derivative(&medium, b, w, v);
        let eps = 1e-6;
        for k in 0..6 {
            let bump = |s: f64| {
                let (mut w, mut v) = (w, v);
                if k < 3 {
                    w[k] += s
                } else {
                    v[k - 3] += s
                }
                let (t, f) = box_force(&medium, b, w, v);
                if k < 3 { t[k] } else { f[k - 3] }
            };
            let fd = (bump(eps) - bump(-eps)) / (2.0 * eps);
            assert!((ours[k] - fd).abs() < 1e-6 * fd.abs().max(1.0), "{k}: {} vs {fd}", ours[k]);
        }
    }
}
