//! Ray casts in the shape's frame (MuJoCo `mju_rayGeom`, `mj_rayMesh`, `mj_rayHfield`).
//!
//! [`ray_distance`] returns the smallest `t ≥ 0` at which `origin + t·dir` lies on the surface, so a ray that starts
//! inside a primitive hits where it leaves it. `t` is in units of `|dir|` (the distance when `dir` is a unit
//! vector). As in MuJoCo: a plane is hit only on its front face (a ray going down through `z = 0`), unbounded here
//! (the caller bounds it to a rendered rectangle if it wants); a mesh is hit on any of its triangles, from either
//! side; a height field is hit on its surface triangles, its vertical sides (below the boundary's surface) and its
//! base box.

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
        Shape::Plane(_) => {
            if dir.z > -MINVAL {
                return None;
            }
            let t = -origin.z / dir.z;
            (t >= 0.0).then_some(t)
        }
        Shape::TriangleMesh(m) => ray_triangles(m.vertices(), m.triangles(), origin, dir),
        Shape::ConvexMesh(m) => ray_triangles(m.vertices(), m.triangles(), origin, dir),
        Shape::HeightField(h) => ray_height_field(h, origin, dir),
    }
}

/// MuJoCo's `mjMINVAL`.
const MINVAL: f64 = 1e-15;

/// The nearest hit `t ≥ 0` of the segment-free ray on triangle `(a, b, c)` (either side), Möller–Trumbore.
fn ray_triangle(o: DVec3, d: DVec3, [a, b, c]: [DVec3; 3]) -> Option<f64> {
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < MINVAL {
        return None;
    }
    let s = o - a;
    let u = s.dot(p) / det;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) / det;
    (t >= 0.0).then_some(t)
}

fn ray_triangles(vertices: &[DVec3], triangles: &[[u32; 3]], o: DVec3, d: DVec3) -> Option<f64> {
    triangles.iter().filter_map(|t| ray_triangle(o, d, t.map(|i| vertices[i as usize]))).reduce(f64::min)
}

/// The height field's solid: the base box `z ∈ [−base, 0]`, the surface triangles of the cells under the ray, and the
/// four vertical sides up to the boundary's surface.
fn ray_height_field(h: &crate::shape::HeightField, o: DVec3, d: DVec3) -> Option<f64> {
    let (hx, hy) = h.half_extents();
    let base = h.base_depth();
    let top = h.height_range().1.max(0.0);
    let mut best = ray_box(o - DVec3::new(0.0, 0.0, -0.5 * base), d, DVec3::new(hx, hy, 0.5 * base));
    let mut keep = |t: Option<f64>| {
        if let Some(t) = t
            && best.is_none_or(|b| t < b)
        {
            best = Some(t);
        }
    };
    // The part of the ray inside the box above the base, `[−hx, hx] × [−hy, hy] × [0, top]`.
    let (lo, hi) = (DVec3::new(-hx, -hy, 0.0), DVec3::new(hx, hy, top));
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for k in 0..3 {
        if d[k] == 0.0 {
            if o[k] < lo[k] || o[k] > hi[k] {
                return best;
            }
            continue;
        }
        let (a, b) = ((lo[k] - o[k]) / d[k], (hi[k] - o[k]) / d[k]);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    if t0 > t1 {
        return best;
    }
    let (p0, p1) = (o + t0 * d, o + t1 * d);
    let (dx, dy) = h.cell_size();
    let (rows, cols) = (h.rows(), h.cols());
    let cell = |x: f64, n: usize, half: f64, step: f64| {
        (((x + half) / step).floor() as isize).clamp(0, n as isize - 2)
    };
    let (c0, c1) = (cell(p0.x.min(p1.x), cols, hx, dx), cell(p0.x.max(p1.x), cols, hx, dx));
    let (r0, r1) = (cell(p0.y.min(p1.y), rows, hy, dy), cell(p0.y.max(p1.y), rows, hy, dy));
    for r in r0 as usize..=r1 as usize {
        for c in c0 as usize..=c1 as usize {
            for k in 0..2 {
                if let Some(p) = h.prism(r, c, k) {
                    keep(ray_triangle(o, d, [p[3], p[4], p[5]]));
                }
            }
        }
    }
    // The sides x = ±hx and y = ±hy, below the surface along the boundary.
    for (axis, side) in [(0, -hx), (0, hx), (1, -hy), (1, hy)] {
        if d[axis] == 0.0 {
            continue;
        }
        let t = (side - o[axis]) / d[axis];
        if t < 0.0 {
            continue;
        }
        let p = o + t * d;
        let other = 1 - axis;
        if p[other].abs() > [hx, hy][other] || p.z < 0.0 {
            continue;
        }
        let surface = if axis == 0 { h.height_at(side, p.y) } else { h.height_at(p.x, side) };
        if surface.is_some_and(|z| p.z < z) {
            keep(Some(t));
        }
    }
    best
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

    /// A mesh cube gives the box's distances from outside; a plane is hit only from the front.
    #[test]
    fn meshes_and_planes() {
        let half = DVec3::new(0.3, 0.5, 0.8);
        let cube = Cuboid::new(half).unwrap();
        let mesh = Shape::ConvexMesh(crate::shape::ConvexMesh::from_points(&cube.corners()).unwrap().into());
        let solid = Shape::Box(cube);
        for (o, d) in [
            (DVec3::new(2.0, 0.1, 0.2), DVec3::NEG_X),
            (DVec3::new(1.0, 1.0, 1.0), DVec3::new(-1.0, -1.2, -0.9).normalize()),
            (DVec3::new(0.0, 0.0, 3.0), DVec3::new(0.05, 0.02, -1.0).normalize()),
        ] {
            let (a, b) = (ray_distance(&mesh, o, d).unwrap(), ray_distance(&solid, o, d).unwrap());
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
        let plane = Shape::Plane(crate::shape::Plane::new());
        assert_eq!(ray_distance(&plane, DVec3::new(1.0, 2.0, 3.0), DVec3::NEG_Z), Some(3.0));
        assert_eq!(ray_distance(&plane, DVec3::new(1.0, 2.0, -3.0), DVec3::Z), None, "back face");
        assert_eq!(ray_distance(&plane, DVec3::new(1.0, 2.0, 3.0), DVec3::Z), None, "away");
    }

    /// A height field's ray distances against marching through its solid (below the interpolated surface, inside
    /// the footprint, above the base).
    #[test]
    fn height_field_matches_marching() {
        let (rows, cols) = (7, 9);
        let heights: Vec<f64> = (0..rows * cols)
            .map(|k| 0.2 + 0.15 * ((k % cols) as f64 * 0.7).sin() * ((k / cols) as f64 * 0.5).cos())
            .collect();
        let hf = crate::shape::HeightField::new(rows, cols, heights, 1.2, 0.9, 0.3).unwrap();
        let inside = |p: DVec3| hf.height_at(p.x, p.y).is_some_and(|z| p.z <= z && p.z >= -0.3);
        let shape = Shape::HeightField(hf.clone().into());
        let mut seed = 11u64;
        let mut uniform = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let (mut hits, mut disagreements) = (0, 0);
        for k in 0..300 {
            // From above and from the sides, aimed at the footprint.
            let o = if k % 3 == 0 {
                DVec3::new(2.0 * uniform(), 2.0 * uniform(), 0.2 + 0.3 * uniform())
            } else {
                DVec3::new(1.5 * uniform(), 1.2 * uniform(), 1.0 + 0.5 * uniform().abs())
            };
            let target = DVec3::new(1.1 * uniform(), 0.8 * uniform(), 0.2 * uniform());
            let d = (target - o).normalize();
            if inside(o) {
                continue;
            }
            match (ray_distance(&shape, o, d), march(inside, o, d)) {
                (Some(a), Some(b)) => {
                    hits += 1;
                    assert!((a - b).abs() < 2e-3, "{a} vs {b} from {o} along {d}");
                }
                (None, None) => {}
                _ => disagreements += 1,
            }
        }
        assert!(hits > 150 && disagreements <= 3, "{hits} hits, {disagreements} disagreements");
    }

    #[test]
    fn inside_counts_and_behind_does_not() {
        let s = Shape::Sphere(Sphere::new(1.0).unwrap());
        assert_eq!(ray_distance(&s, DVec3::ZERO, DVec3::X), Some(1.0));
        assert_eq!(ray_distance(&s, DVec3::new(3.0, 0.0, 0.0), DVec3::X), None);
        assert_eq!(ray_distance(&s, DVec3::new(-3.0, 0.0, 0.0), DVec3::X), Some(2.0));
    }
}
