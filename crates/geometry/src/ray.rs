//! Ray casts against the solid primitives, in the shape's frame (MuJoCo `mju_rayGeom`).
//!
//! [`ray_distance`] returns the smallest `t ≥ 0` at which `origin + t·dir` lies on the surface, so a ray that starts
//! inside the shape hits where it leaves it. `t` is in units of `|dir|` (the distance when `dir` is a unit vector).
//! Planes, meshes and height fields are not cast against here (`None`).

use glam::DVec3;

use crate::shape::Shape;

/// The smallest `t ≥ 0` with `origin + t·dir` on the surface of `shape` (its own frame), if any.
pub fn ray_distance(shape: &Shape, origin: DVec3, dir: DVec3) -> Option<f64> {
    match shape {
        Shape::Sphere(s) => ray_sphere(origin, dir, s.radius()),
        Shape::Ellipsoid(e) => {
            // Scale the ellipsoid to the unit sphere: `t` is unchanged.
            let inv = e.semi_axes().recip();
            ray_sphere(origin * inv, dir * inv, 1.0)
        }
        Shape::Box(b) => ray_box(origin, dir, b.half_extents()),
        Shape::Cylinder(c) => ray_cylinder(origin, dir, c.radius(), c.half_length()),
        Shape::Capsule(c) => {
            let (r, h) = (c.radius(), c.half_length());
            let side = ray_side(origin, dir, r, h);
            // Only the outer half of each end sphere belongs to the capsule's surface.
            let caps = [h, -h].into_iter().filter_map(|z| {
                let t = ray_sphere(origin - DVec3::new(0.0, 0.0, z), dir, r)?;
                let p = origin.z + t * dir.z;
                (if z > 0.0 { p >= h } else { p <= -h }).then_some(t)
            });
            side.into_iter().chain(caps).reduce(f64::min)
        }
        _ => None,
    }
}

/// Smallest non-negative root of `|o + t d|² = r²`.
fn ray_sphere(o: DVec3, d: DVec3, r: f64) -> Option<f64> {
    let a = d.length_squared();
    if a == 0.0 {
        return None;
    }
    let b = o.dot(d) / a;
    let c = (o.length_squared() - r * r) / a;
    let disc = b * b - c;
    if disc < 0.0 {
        return None;
    }
    let s = disc.sqrt();
    [-b - s, -b + s].into_iter().find(|&t| t >= 0.0)
}

/// The lateral surface `x² + y² = r², |z| ≤ h`.
fn ray_side(o: DVec3, d: DVec3, r: f64, h: f64) -> Option<f64> {
    let a = d.x * d.x + d.y * d.y;
    if a == 0.0 {
        return None;
    }
    let b = (o.x * d.x + o.y * d.y) / a;
    let c = (o.x * o.x + o.y * o.y - r * r) / a;
    let disc = b * b - c;
    if disc < 0.0 {
        return None;
    }
    let s = disc.sqrt();
    [-b - s, -b + s].into_iter().find(|&t| t >= 0.0 && (o.z + t * d.z).abs() <= h)
}

fn ray_cylinder(o: DVec3, d: DVec3, r: f64, h: f64) -> Option<f64> {
    let caps = [h, -h].into_iter().filter_map(|z| {
        if d.z == 0.0 {
            return None;
        }
        let t = (z - o.z) / d.z;
        let (x, y) = (o.x + t * d.x, o.y + t * d.y);
        (t >= 0.0 && x * x + y * y <= r * r).then_some(t)
    });
    ray_side(o, d, r, h).into_iter().chain(caps).reduce(f64::min)
}

fn ray_box(o: DVec3, d: DVec3, half: DVec3) -> Option<f64> {
    let mut best: Option<f64> = None;
    for axis in 0..3 {
        if d[axis] == 0.0 {
            continue;
        }
        for side in [half[axis], -half[axis]] {
            let t = (side - o[axis]) / d[axis];
            if t < 0.0 {
                continue;
            }
            let p = o + t * d;
            let inside = (0..3).filter(|&k| k != axis).all(|k| p[k].abs() <= half[k]);
            if inside && best.is_none_or(|b| t < b) {
                best = Some(t);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{Capsule, Cuboid, Cylinder, Ellipsoid, Sphere};

    /// The first `t ≥ 0` on a fine grid where the point is inside (or, starting inside, outside), refined by
    /// bisection: a brute-force reference for the closed forms.
    fn march(inside: impl Fn(DVec3) -> bool, o: DVec3, d: DVec3) -> Option<f64> {
        let start = inside(o);
        let step = 1e-3;
        let mut t = 0.0;
        while t < 20.0 {
            let next = t + step;
            if inside(o + next * d) != start {
                let (mut lo, mut hi) = (t, next);
                for _ in 0..60 {
                    let mid = 0.5 * (lo + hi);
                    if inside(o + mid * d) != start { hi = mid } else { lo = mid }
                }
                return Some(hi);
            }
            t = next;
        }
        None
    }

    #[test]
    fn closed_forms_match_marching() {
        let (r, h) = (0.4, 0.7);
        let half = DVec3::new(0.3, 0.5, 0.8);
        let axes = DVec3::new(0.3, 0.6, 0.9);
        type Inside = Box<dyn Fn(DVec3) -> bool>;
        let cases: Vec<(Shape, Inside)> = vec![
            (Shape::Sphere(Sphere::new(r).unwrap()), Box::new(move |p: DVec3| p.length() <= r)),
            (
                Shape::Ellipsoid(Ellipsoid::new(axes).unwrap()),
                Box::new(move |p: DVec3| (p / axes).length() <= 1.0),
            ),
            (Shape::Box(Cuboid::new(half).unwrap()), Box::new(move |p: DVec3| p.abs().cmple(half).all())),
            (
                Shape::Cylinder(Cylinder::new(r, h).unwrap()),
                Box::new(move |p: DVec3| p.x * p.x + p.y * p.y <= r * r && p.z.abs() <= h),
            ),
            (
                Shape::Capsule(Capsule::new(r, h).unwrap()),
                Box::new(move |p: DVec3| {
                    let z = p.z.clamp(-h, h);
                    (p - DVec3::new(0.0, 0.0, z)).length() <= r
                }),
            ),
        ];
        let mut seed = 7u64;
        let mut uniform = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for (shape, inside) in &cases {
            let (mut hits, mut grazing) = (0, 0);
            for _ in 0..300 {
                let o = DVec3::new(uniform(), uniform(), uniform()) * 1.5;
                // Aimed near the centre half of the time, so that most rays hit.
                let target = DVec3::new(uniform(), uniform(), uniform()) * 0.3;
                let d = if uniform() > 0.0 {
                    (target - o).normalize()
                } else {
                    DVec3::new(uniform(), uniform(), uniform()).normalize()
                };
                let ours = ray_distance(shape, o, d);
                let brute = march(inside, o, d);
                match (ours, brute) {
                    (Some(a), Some(b)) => {
                        hits += 1;
                        assert!((a - b).abs() < 2e-3, "{:?}: {a} vs {b} from {o} along {d}", shape.kind());
                    }
                    (None, None) => {}
                    // A grazing ray may touch the surface between two grid points of the march.
                    _ => grazing += 1,
                }
            }
            assert!(hits > 50, "{:?}: too few hits to test ({hits})", shape.kind());
            assert!(grazing <= 3, "{:?}: {grazing} disagreements on hit or miss", shape.kind());
        }
    }

    #[test]
    fn inside_counts_and_behind_does_not() {
        let s = Shape::Sphere(Sphere::new(1.0).unwrap());
        assert_eq!(ray_distance(&s, DVec3::ZERO, DVec3::X), Some(1.0));
        assert_eq!(ray_distance(&s, DVec3::new(3.0, 0.0, 0.0), DVec3::X), None);
        assert_eq!(ray_distance(&s, DVec3::new(-3.0, 0.0, 0.0), DVec3::X), Some(2.0));
    }
}
