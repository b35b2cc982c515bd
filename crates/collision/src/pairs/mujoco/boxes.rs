//! Box pairs: MuJoCo's `mjc_SphereBox` and `mjc_CapsuleBox` (`engine_collision_box.c`). Box–box keeps the existing
//! port of MuJoCo's `mjc_BoxBox` (`crate::narrow::box_box`).

use glam::DVec3;
use signorini_geometry::Shape;

use super::primitive::normalize3;
use super::{Frame, MINVAL, MjContact};

/// Sphere (centre `center`, radius `r`) against the box `(f2, size)`: one contact, from the sphere to the box.
pub(crate) fn raw_sphere_box(
    center_world: DVec3,
    r: f64,
    f2: &Frame,
    size: DVec3,
    margin: f64,
    out: &mut Vec<MjContact>,
) -> bool {
    let center = f2.mat.transpose() * (center_world - f2.pos);
    let clamped = center.clamp(-size, size);
    let (dir, dist) = normalize3(clamped - center);
    if dist - r > margin {
        return false;
    }
    let (pos, normal_local, dist) = if dist <= MINVAL {
        // Centre inside the box: push out through the nearest face.
        let mut closest = 2.0 * (size.x + size.y + size.z);
        let mut k = 0;
        for i in 0..6 {
            let face = if i % 2 == 1 { size[i / 2] } else { -size[i / 2] };
            let d = (face - center[i / 2]).abs();
            if closest > d {
                closest = d;
                k = i;
            }
        }
        let mut nearest = DVec3::ZERO;
        nearest[k / 2] = if k % 2 == 1 { -1.0 } else { 1.0 };
        (center + nearest * (0.5 * (r - closest)), nearest, -closest)
    } else {
        let deepest = center + dir * r;
        // `pos = 0 + ½ clamped + ½ deepest` (two `mji_addToScl3`), not `½ (clamped + deepest)`.
        (clamped * 0.5 + deepest * 0.5, dir, dist)
    };
    out.push(MjContact {
        dist: dist - r,
        pos: f2.mat * pos + f2.pos,
        normal: f2.mat * normal_local,
        tangent: DVec3::ZERO,
    });
    true
}

pub(crate) fn sphere_box(
    a: &Shape,
    f1: &Frame,
    b: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let (Shape::Sphere(s), Shape::Box(bx)) = (a, b) else { return };
    raw_sphere_box(f1.pos, s.radius(), f2, bx.half_extents(), margin, out);
}

/// MuJoCo's capsule–box: the point of the capsule segment closest to the box (over the two end caps against the
/// faces and the segment against the 12 edges) gives a sphere–box contact; a second sphere–box contact is placed
/// further along the segment when the segment lies along a face or edge (the farthest point still over the box).
pub(crate) fn capsule_box(
    a: &Shape,
    f1: &Frame,
    b: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let (Shape::Capsule(c), Shape::Box(bx)) = (a, b) else { return };
    let size = bx.half_extents();
    let (radius, halflength) = (c.radius(), c.half_length());
    let rt = f2.mat.transpose();
    let pos = rt * (f1.pos - f2.pos);
    let axis = rt * f1.z();
    let halfaxis = axis * halflength;
    let axisdir = (halfaxis.x > 0.0) as u32 + 2 * (halfaxis.y > 0.0) as u32 + 4 * (halfaxis.z > 0.0) as u32;

    let mut bestdist = margin + 2.0 * (radius + halflength + size.x + size.y + size.z);
    let mut bestsegmentpos = 0.0;
    let mut bestboxpos = 0.0;
    let mut cltype: i32 = -4;
    let mut clface: i32 = -1;
    let mut clcorner: u32 = 0;
    let mut cledge: usize = 0;
    let mut secondpos = -4.0;

    // An end of the segment against the faces: ends whose clamped image differs in at most one coordinate.
    for i in [-1.0, 1.0] {
        let end = pos + i * halfaxis;
        let mut clamped = end;
        let (mut count, mut last) = (0, -1);
        for j in 0..3 {
            if end[j] < -size[j] {
                count += 1;
                last = j as i32;
                clamped[j] = -size[j];
            } else if end[j] > size[j] {
                count += 1;
                last = j as i32;
                clamped[j] = size[j];
            }
        }
        if count > 1 {
            continue;
        }
        let dist = (clamped - end).length_squared();
        if dist < bestdist {
            bestdist = dist;
            bestsegmentpos = i;
            cltype = -2 + i as i32;
            clface = last;
        }
    }

    // The segment against each edge (edge j runs along axis j from the corner with bit j clear).
    for j in 0..3 {
        for i in 0..8u32 {
            if i & (1 << j) != 0 {
                continue;
            }
            let mut start = DVec3::new(
                if i & 1 != 0 { size.x } else { -size.x },
                if i & 2 != 0 { size.y } else { -size.y },
                if i & 4 != 0 { size.z } else { -size.z },
            );
            start[j] = 0.0;
            let dif = start - pos;
            let ma = size[j] * size[j];
            let mb = -size[j] * halfaxis[j];
            let mc = halflength * halflength;
            let u = -size[j] * dif[j];
            let v = halfaxis.dot(dif);
            let det = ma * mc - mb * mb;
            if det.abs() < MINVAL {
                continue;
            }
            let idet = 1.0 / det;
            let mut x1 = (mc * u - mb * v) * idet;
            let mut x2 = (ma * v - mb * u) * idet;
            let (mut s1, mut s2) = (1, 1);
            if x1 > 1.0 {
                x1 = 1.0;
                s1 = 2;
                x2 = (v - mb) * (1.0 / mc);
            } else if x1 < -1.0 {
                x1 = -1.0;
                s1 = 0;
                x2 = (v + mb) * (1.0 / mc);
            }
            let clamp_x1 = |x1: &mut f64, s1: &mut i32| {
                if *x1 > 1.0 {
                    *x1 = 1.0;
                    *s1 = 2;
                } else if *x1 < -1.0 {
                    *x1 = -1.0;
                    *s1 = 0;
                }
            };
            if x2 > 1.0 {
                x2 = 1.0;
                s2 = 2;
                x1 = (u - mb) * (1.0 / ma);
                clamp_x1(&mut x1, &mut s1);
            } else if x2 < -1.0 {
                x2 = -1.0;
                s2 = 0;
                x1 = (u + mb) * (1.0 / ma);
                clamp_x1(&mut x1, &mut s1);
            }
            let mut d = start - pos - x2 * halfaxis;
            d[j] += size[j] * x1;
            let dist = d.length_squared();
            let code = s1 * 3 + s2;
            if dist < bestdist - MINVAL {
                bestdist = dist;
                bestsegmentpos = x2;
                bestboxpos = x1;
                clcorner = i + (1 << j) * (code / 6) as u32;
                cledge = j;
                cltype = code;
            }
        }
    }

    if cltype == -4 {
        return;
    }
    let inv = |k: usize| 1.0 / halfaxis[k].abs();
    if cltype >= 0 && cltype / 3 != 1 {
        // Closest to a corner of the box.
        let mut c1 = axisdir ^ clcorner;
        if c1 != 0 && c1 != 7 {
            let (mul, de, dp) = if matches!(c1, 1 | 2 | 4) {
                (1.0, 1.0 - bestsegmentpos, 1.0 + bestsegmentpos)
            } else {
                c1 = 7 - c1;
                (-1.0, 1.0 + bestsegmentpos, 1.0 - bestsegmentpos)
            };
            let (ax, ax1, ax2) = match c1 {
                1 => (0, 1, 2),
                2 => (1, 2, 0),
                _ => (2, 0, 1),
            };
            if axis[ax] * axis[ax] > 0.5 {
                // Second point along the edge.
                secondpos = de.min(2.0 * size[ax] * inv(ax)) * mul;
            } else {
                // Second point along a face.
                secondpos = dp.min(2.0 * size[ax1] * inv(ax1)).min(2.0 * size[ax2] * inv(ax2)) * -mul;
            }
        }
    } else if cltype >= 0 {
        // Closest to the middle of an edge: a second point only in a cross (not T) configuration.
        let c1 = (axisdir ^ clcorner) & (7 - (1 << cledge));
        if matches!(c1, 1 | 2 | 4) {
            let ax = cledge;
            let (mut ax1, mut ax2) = match cledge {
                0 => (1, 2),
                1 => (2, 0),
                _ => (0, 1),
            };
            if axis[ax1].abs() > axis[ax2].abs() {
                ax1 = ax2;
            }
            ax2 = 3 - ax - ax1;
            let (mul, mut sp) =
                if c1 & (1 << ax2) != 0 { (1.0, 1.0 - bestsegmentpos) } else { (-1.0, 1.0 + bestsegmentpos) };
            sp = sp.min(2.0 * size[ax2] * inv(ax2));
            let e2 = if ((axisdir & (1 << ax)) != 0) == ((c1 & (1 << ax2)) != 0) {
                1.0 - bestboxpos
            } else {
                1.0 + bestboxpos
            };
            sp = sp.min(size[ax] * e2 * inv(ax));
            secondpos = sp * mul;
        }
    } else if clface != -1 {
        // An end is closest to a face: the farthest point of the segment still over that face.
        let mul = if cltype == -3 { 1.0 } else { -1.0 };
        let mut sp = 2.0;
        let other = pos - mul * halfaxis;
        for i in 0..3 {
            if i as i32 == clface {
                continue;
            }
            for bound in [size[i], -size[i]] {
                let e1 = (bound - other[i]) / halfaxis[i] * mul;
                if e1 > 0.0 && e1 < sp {
                    sp = e1;
                }
            }
        }
        secondpos = sp * mul;
    }

    let world = |t: f64| f2.mat * (pos + halfaxis * t) + f2.pos;
    raw_sphere_box(world(bestsegmentpos), radius, f2, size, margin, out);
    if secondpos > -3.0 {
        raw_sphere_box(world(secondpos + bestsegmentpos), radius, f2, size, margin, out);
    }
}
