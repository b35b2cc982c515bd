//! Continuous collision: the first time two moving shapes touch, by conservative advancement.
//!
//! **Motion** (Coal/FCL's interpolated motion, `shared/testdata/coal/README.md`): over `s ∈ [0, 1]` a shape's
//! translation moves linearly and its rotation by slerp along the shortest arc, about its local origin:
//! `t(s) = t₀ + s (t₁ − t₀)`, `q(s) = slerp(q₀, q₁, s)`.
//!
//! **Bound.** A point at `p` (local, `|p| ≤ r`) moves at most at `|t₁ − t₀| + θ r` per unit `s` (`θ`: the rotation
//! angle from `q₀` to `q₁`), so the distance of the two shapes falls at most at `μ = |Δt_B − Δt_A| + θ_A r_A +
//! θ_B r_B`, with `r` the radius of the shape's local box about its origin. At distance `d` at `s` the shapes are
//! therefore apart on `[s, s + d/μ)`.
//!
//! **Advancement.** From `s = 0`: measure the distance ([`distance_with`]); within `tolerance` it is the time of
//! impact; otherwise advance by `d/μ`; past `s = 1` the motions never touch. The time returned is at most the true
//! first contact, and above it by at most about `tolerance` over the approach speed. Triangle meshes are surfaces
//! (their distance is 0 when they meet), as in the distance query.

use glam::DQuat;
use signorini_geometry::{Pose, Shape};

use crate::error::{CollisionError, Result};
use crate::query::{DistanceRequest, QueryWorkspace, distance_with};

/// A rigid motion over `s ∈ [0, 1]` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    /// Pose at `s = 0`.
    pub start: Pose,
    /// Pose at `s = 1`.
    pub end: Pose,
}

impl Motion {
    /// A shape that does not move.
    pub fn fixed(pose: Pose) -> Motion {
        Motion { start: pose, end: pose }
    }

    /// The pose at `s`: translation interpolated linearly, rotation by slerp along the shortest arc.
    pub fn at(&self, s: f64) -> Pose {
        let q1 = if self.start.rotation.dot(self.end.rotation) < 0.0 {
            -self.end.rotation
        } else {
            self.end.rotation
        };
        Pose {
            translation: self.start.translation.lerp(self.end.translation, s),
            rotation: slerp(self.start.rotation, q1, s),
        }
    }

    /// The rotation angle from start to end along the shortest arc (rad).
    pub fn angle(&self) -> f64 {
        2.0 * self.start.rotation.dot(self.end.rotation).abs().min(1.0).acos()
    }
}

/// Spherical interpolation of unit quaternions with `a·b ≥ 0`; normalised linear interpolation when they are nearly
/// equal.
fn slerp(a: DQuat, b: DQuat, s: f64) -> DQuat {
    let cos = a.dot(b).min(1.0);
    if cos > 1.0 - 1e-12 {
        return (a * (1.0 - s) + b * s).normalize();
    }
    let theta = cos.acos();
    let sin = theta.sin();
    (a * (((1.0 - s) * theta).sin() / sin) + b * ((s * theta).sin() / sin)).normalize()
}

/// Parameters of [`time_of_impact`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CcdRequest {
    /// The shapes touch when their distance is `≤ tolerance` (m). Default 1e-7.
    pub tolerance: f64,
    /// Most distance queries before giving up with [`CollisionError::NotConverged`]. Default 100 000.
    pub max_iterations: u32,
}

impl Default for CcdRequest {
    fn default() -> Self {
        Self { tolerance: 1e-7, max_iterations: 100_000 }
    }
}

/// The answer of [`time_of_impact`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CcdResult {
    /// `Some(s)`: the shapes touch first at `s ∈ [0, 1]` (within the tolerance); `None`: they never touch.
    pub toi: Option<f64>,
    /// Distance queries made.
    pub iterations: u32,
}

/// Radius of the shape's local box about its origin: no point of the shape is farther from the origin.
fn origin_radius(shape: &Shape) -> f64 {
    let b = shape.local_aabb();
    b.min.abs().max(b.max.abs()).length()
}

/// The first time the shapes `a` and `b` touch while moving along `motion_a` and `motion_b` (see the module docs).
///
/// Errors: [`CollisionError::Unsupported`] for unbounded shapes (planes, half-spaces) and pairs without a distance;
/// [`CollisionError::InvalidRequest`] for a negative or non-finite tolerance; [`CollisionError::NotConverged`] when
/// `max_iterations` distance queries do not settle it (a grazing motion).
pub fn time_of_impact(
    ws: &mut QueryWorkspace,
    a: &Shape,
    motion_a: &Motion,
    b: &Shape,
    motion_b: &Motion,
    request: &CcdRequest,
) -> Result<CcdResult> {
    if !(request.tolerance >= 0.0 && request.tolerance.is_finite()) {
        return Err(CollisionError::InvalidRequest {
            what: format!("the CCD tolerance must be finite and ≥ 0, got {}", request.tolerance),
        });
    }
    let (ra, rb) = (origin_radius(a), origin_radius(b));
    if !(ra.is_finite() && rb.is_finite()) {
        return Err(CollisionError::Unsupported { query: "time of impact", a: a.kind(), b: b.kind() });
    }
    let dt = (motion_b.end.translation - motion_b.start.translation)
        - (motion_a.end.translation - motion_a.start.translation);
    let rate = dt.length() + motion_a.angle() * ra + motion_b.angle() * rb;
    let mut s = 0.0;
    let mut iterations = 0;
    while iterations < request.max_iterations {
        let (pa, pb) = (motion_a.at(s), motion_b.at(s));
        let d = distance_with(ws, a, &pa, b, &pb, &DistanceRequest::default())?.distance;
        iterations += 1;
        if d <= request.tolerance {
            return Ok(CcdResult { toi: Some(s), iterations });
        }
        if !(rate > 0.0) {
            break;
        }
        s += d / rate;
        if s > 1.0 {
            break;
        }
    }
    if iterations == request.max_iterations {
        return Err(CollisionError::NotConverged {
            what: format!("time of impact: {iterations} distance queries reached s = {s} without a decision"),
        });
    }
    Ok(CcdResult { toi: None, iterations })
}

#[cfg(test)]
mod tests {
    use glam::DVec3;
    use signorini_geometry::{Capsule, ConvexMesh, Cuboid, Sphere};

    use super::*;
    use crate::query::{CollisionRequest, collide};
    use crate::test_rng::Rng;

    /// The first `s` at which `collide` is true: a 2001-point grid, then 60 bisections (how `ccd.json`'s `toi_ref`
    /// is made).
    fn sampled_toi(a: &Shape, ma: &Motion, b: &Shape, mb: &Motion) -> Option<f64> {
        let hit =
            |s: f64| collide(a, &ma.at(s), b, &mb.at(s), &CollisionRequest::default()).unwrap().colliding;
        let n = 2000;
        let k = (0..=n).find(|&k| hit(k as f64 / n as f64))?;
        if k == 0 {
            return Some(0.0);
        }
        let (mut lo, mut hi) = ((k - 1) as f64 / n as f64, k as f64 / n as f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if hit(mid) { hi = mid } else { lo = mid }
        }
        Some(hi)
    }

    #[test]
    fn rotating_and_translating_convex_pairs_match_dense_sampling() {
        let mut rng = Rng(0x5851_f42d_4c95_7f2d);
        let (mut hits, mut misses) = (0, 0);
        for case in 0..150 {
            let shapes: [Shape; 3] = [
                Cuboid::new(DVec3::new(0.2, 0.4, 0.1) + rng.vec(0.05).abs()).unwrap().into(),
                Capsule::new(0.1 + 0.1 * rng.unit(), 0.3).unwrap().into(),
                ConvexMesh::from_points(&(0..10).map(|_| rng.vec(0.35)).collect::<Vec<_>>()).unwrap().into(),
            ];
            let (a, b) = (&shapes[case % 3], &shapes[(case / 3) % 3]);
            let ma = Motion {
                start: Pose::new(rng.vec(1.5), rng.quat()).unwrap(),
                end: Pose::new(rng.vec(1.5), rng.quat()).unwrap(),
            };
            let mb = Motion {
                start: Pose::new(rng.vec(1.5), rng.quat()).unwrap(),
                end: Pose::new(rng.vec(1.5), rng.quat()).unwrap(),
            };
            if collide(a, &ma.start, b, &mb.start, &CollisionRequest::default()).unwrap().colliding {
                continue;
            }
            let ours = time_of_impact(&mut QueryWorkspace::default(), a, &ma, b, &mb, &CcdRequest::default())
                .unwrap()
                .toi;
            let reference = sampled_toi(a, &ma, b, &mb);
            match (ours, reference) {
                (Some(t), Some(r)) => {
                    assert!((t - r).abs() < 1e-4, "case {case}: {t} vs {r}");
                    hits += 1;
                }
                (None, None) => misses += 1,
                // A contact shorter than the grid step can escape the sampling, never the advancement.
                (Some(t), None) => assert!(
                    (0..=200).any(|k| collide(
                        a,
                        &ma.at(t + k as f64 * 1e-6),
                        b,
                        &mb.at(t + k as f64 * 1e-6),
                        &CollisionRequest { security_margin: 1e-6, ..Default::default() }
                    )
                    .unwrap()
                    .colliding),
                    "case {case}: a contact at {t} that sampling does not see"
                ),
                (None, Some(r)) => panic!("case {case}: missed the contact at {r}"),
            }
        }
        assert!(hits >= 20 && misses >= 20, "{hits} hits, {misses} misses");
    }

    #[test]
    fn a_sphere_thrown_at_a_sphere_touches_when_the_gap_closes() {
        let a: Shape = Sphere::new(0.5).unwrap().into();
        let b: Shape = Sphere::new(0.25).unwrap().into();
        let ma = Motion {
            start: Pose::from_translation(DVec3::new(-2.0, 0.0, 0.0)),
            end: Pose::from_translation(DVec3::new(2.0, 0.0, 0.0)),
        };
        let mb = Motion::fixed(Pose::from_translation(DVec3::new(1.0, 0.0, 0.0)));
        let r =
            time_of_impact(&mut QueryWorkspace::default(), &a, &ma, &b, &mb, &CcdRequest::default()).unwrap();
        // Centre at −2 + 4 s touches at 1 − 0.75: s = 0.5625.
        assert!((r.toi.unwrap() - 0.5625).abs() < 1e-6, "{r:?}");
        let away = Motion::fixed(Pose::from_translation(DVec3::new(0.0, 2.0, 0.0)));
        let r = time_of_impact(&mut QueryWorkspace::default(), &a, &ma, &b, &away, &CcdRequest::default())
            .unwrap();
        assert_eq!(r.toi, None);
    }

    #[test]
    fn a_spinning_bar_sweeps_into_a_box() {
        // A thin bar along x, centred at the origin, turning a quarter turn about z; a small box on the y axis.
        let bar: Shape = Cuboid::new(DVec3::new(1.0, 0.05, 0.05)).unwrap().into();
        let spin = Motion {
            start: Pose::IDENTITY,
            end: Pose::from_rotation(DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2)),
        };
        let cube: Shape = Cuboid::new(DVec3::splat(0.1)).unwrap().into();
        let at = Motion::fixed(Pose::from_translation(DVec3::new(0.0, 0.8, 0.0)));
        let r =
            time_of_impact(&mut QueryWorkspace::default(), &bar, &spin, &cube, &at, &CcdRequest::default())
                .unwrap();
        // The bar's near face (y = 0.05 in its frame) meets the cube's corner (0.1, 0.7) when
        // −x sin φ + y cos φ = 0.05 with (x, y) = (0.1, 0.7): φ = 2 atan((0.7 − 0.05)/(0.1 + √(0.1²+0.7²−0.05²)))… solved:
        let phi = {
            let (x, y, w) = (0.1_f64, 0.7_f64, 0.05_f64);
            // y cos φ − x sin φ = w  ⇔  R cos(φ + α) = w with R = √(x²+y²), α = atan2(x, y).
            (w / x.hypot(y)).acos() - x.atan2(y)
        };
        let expected = phi / std::f64::consts::FRAC_PI_2;
        assert!((r.toi.unwrap() - expected).abs() < 1e-5, "{r:?} vs {expected}");
    }
}
