//! The geoms of MuJoCo's native convex collision (`mjCCDObj`): boxes and meshes with their support functions
//! (exhaustive search below ten vertices, hill climbing above), height-field prisms, the smooth primitives (sphere,
//! capsule, ellipsoid, cylinder; a sphere or capsule can be shrunk to its centre point or segment, as `mjc_ccd`
//! does for shallow contacts), the Minkowski support points, and small helpers that follow MuJoCo's arithmetic.

use super::*;
use signorini_geometry::rotation::normalize_vec3;

#[derive(Debug, Clone, Copy)]
pub(super) enum Geom<'a> {
    /// Half sizes.
    Box(DVec3),
    Mesh(&'a ConvexMesh),
    /// A height-field prism (`mjc_prism_support`): three bottom then three top corners, in the frame of the
    /// computation (the height field's), so the object's pose is the identity.
    Prism([DVec3; 6]),
    Sphere(f64),
    Capsule {
        radius: f64,
        half_length: f64,
    },
    /// Semi-axes.
    Ellipsoid(DVec3),
    Cylinder {
        radius: f64,
        half_length: f64,
    },
}

/// MuJoCo's `mjCCDObj`: a geom in the world with the warm-start state of its support function.
#[derive(Debug)]
pub(super) struct Obj<'a> {
    pub(super) geom: Geom<'a>,
    /// Origin of the shape's local frame (box centre, mesh asset origin).
    pub(super) origin: DVec3,
    pub(super) mat: DMat3,
    /// MuJoCo's `geom_xpos`: the box centre or the mesh's centre of mass (its inertial frame's origin).
    pub(super) center: DVec3,
    pub(super) margin: f64,
    /// Last support vertex (mesh vertex index, box corner bits: bit k set for `+size[k]`, a cylinder's cap: 0 the top,
    /// 1 the bottom); −1 before the first and for the other shapes.
    pub(super) vertindex: i64,
    /// Last hill-climbing vertex; −1 before the first.
    pub(super) meshindex: i64,
    pub(super) hill: bool,
    /// A sphere read as its centre point, a capsule as its segment (`mjc_pointSupport`, `mjc_lineSupport`).
    pub(super) shrunk: bool,
}

impl<'a> Obj<'a> {
    pub(super) fn new(shape: &'a Shape, f: &Frame, margin: f64) -> Option<Self> {
        let (geom, center, hill) = match shape {
            Shape::Box(b) => (Geom::Box(b.half_extents()), f.pos, false),
            Shape::ConvexMesh(m) => {
                if m.vertices().is_empty() {
                    return None;
                }
                (Geom::Mesh(m), f.pos + f.mat * m.inertial_origin(), m.vertices().len() >= HILL_MIN)
            }
            Shape::Sphere(s) => (Geom::Sphere(s.radius()), f.pos, false),
            Shape::Capsule(c) => {
                (Geom::Capsule { radius: c.radius(), half_length: c.half_length() }, f.pos, false)
            }
            Shape::Ellipsoid(e) => (Geom::Ellipsoid(e.semi_axes()), f.pos, false),
            Shape::Cylinder(c) => {
                (Geom::Cylinder { radius: c.radius(), half_length: c.half_length() }, f.pos, false)
            }
            _ => return None,
        };
        Some(Obj {
            geom,
            origin: f.pos,
            mat: f.mat,
            center,
            margin,
            vertindex: -1,
            meshindex: -1,
            hill,
            shrunk: false,
        })
    }

    /// A height-field prism (corners in the computation's frame); its centre is the corners' mean (`mjc_center`).
    pub(super) fn prism(corners: [DVec3; 6]) -> Obj<'static> {
        let center = corners.iter().fold(DVec3::ZERO, |a, &v| a + v) * (1.0 / 6.0);
        Obj {
            geom: Geom::Prism(corners),
            origin: DVec3::ZERO,
            mat: DMat3::IDENTITY,
            center,
            margin: 0.0,
            vertindex: -1,
            meshindex: -1,
            hill: false,
            shrunk: false,
        }
    }

    /// Whether the support has flat faces only (`discreteGeoms`: boxes, meshes and prisms without margin).
    pub(super) fn is_discrete(&self) -> bool {
        self.margin == 0.0 && matches!(self.geom, Geom::Box(_) | Geom::Mesh(_) | Geom::Prism(_))
    }

    /// How far `mjc_ccd` shrinks the geom before its first GJK: a sphere's or capsule's radius and half the margin,
    /// half the margin for the other geoms.
    pub(super) fn shrink_radius(&self) -> f64 {
        match self.geom {
            Geom::Sphere(r) | Geom::Capsule { radius: r, .. } => r + 0.5 * self.margin,
            _ => 0.5 * self.margin,
        }
    }

    /// World point of a local point.
    pub(super) fn world(&self, local: DVec3) -> DVec3 {
        self.mat * local + self.origin
    }

    /// World direction of a local direction.
    pub(super) fn rotate(&self, local: DVec3) -> DVec3 {
        self.mat * local
    }

    /// `matᵀ v`.
    pub(super) fn to_local(&self, v: DVec3) -> DVec3 {
        DVec3::new(self.mat.x_axis.dot(v), self.mat.y_axis.dot(v), self.mat.z_axis.dot(v))
    }

    pub(super) fn mesh_vertex(&self, i: i64) -> DVec3 {
        match self.geom {
            Geom::Mesh(m) => usize::try_from(i)
                .ok()
                .and_then(|i| m.vertices().get(i))
                .map_or(self.center, |&v| self.world(v)),
            _ => self.center,
        }
    }

    /// Support point in direction `dir` (not normalised), without the margin; updates `vertindex`.
    pub(super) fn support_raw(&mut self, dir: DVec3) -> DVec3 {
        match self.geom {
            Geom::Prism(p) => {
                // The bottom or the top triangle by the sign of dir.z; the first best corner (no vertex index).
                let start = if dir.z < 0.0 { 0 } else { 3 };
                let mut best = start;
                let mut best_dot = p[start].dot(dir);
                for (i, v) in p.iter().enumerate().skip(start + 1).take(2) {
                    let d = v.dot(dir);
                    if d > best_dot {
                        (best, best_dot) = (i, d);
                    }
                }
                return p[best];
            }
            Geom::Sphere(_) if self.shrunk => return self.origin,
            Geom::Sphere(r) => return dir * r + self.origin,
            Geom::Capsule { half_length, .. } if self.shrunk => {
                let axis = self.mat.z_axis;
                let scl = if axis.dot(dir) >= 0.0 { half_length } else { -half_length };
                return axis * scl + self.origin;
            }
            _ => {}
        }
        let ld = self.to_local(dir);
        match self.geom {
            Geom::Prism(_) | Geom::Sphere(_) => self.center,
            Geom::Capsule { radius, half_length } => {
                let mut ls = ld * radius;
                ls.z += if ld.z >= 0.0 { half_length } else { -half_length };
                self.world(ls)
            }
            Geom::Ellipsoid(size) => ellipsoid_support(&self.mat, self.origin, size, ld),
            Geom::Cylinder { radius, half_length } => {
                let n2 = ld.x * ld.x + ld.y * ld.y;
                let scl = if n2 >= MINVAL2 { radius / n2.sqrt() } else { 0.0 };
                let top = ld.z >= 0.0;
                // MuJoCo 4.0.1's `mjc_cylinderSupport` numbers the caps: 0 the top, 1 the bottom.
                self.vertindex = i64::from(!top);
                let z = if top { half_length } else { -half_length };
                self.world(DVec3::new(scl * ld.x, scl * ld.y, z))
            }
            Geom::Box(s) => {
                let ls = DVec3::new(
                    if ld.x >= 0.0 { s.x } else { -s.x },
                    if ld.y >= 0.0 { s.y } else { -s.y },
                    if ld.z >= 0.0 { s.z } else { -s.z },
                );
                self.vertindex =
                    (ls.x > 0.0) as i64 | ((ls.y > 0.0) as i64) << 1 | ((ls.z > 0.0) as i64) << 2;
                self.world(ls)
            }
            Geom::Mesh(m) => {
                let verts = m.vertices();
                let imax = if self.hill {
                    // MuJoCo's hill climb over the hull graph, from the previous vertex.
                    let mut max = -FLT_MAX;
                    let mut imax =
                        usize::try_from(self.meshindex).ok().filter(|&i| i < verts.len()).unwrap_or(0);
                    let mut prev = usize::MAX;
                    while imax != prev {
                        prev = imax;
                        for &w in m.neighbors(prev) {
                            let Some(v) = verts.get(w as usize) else { continue };
                            let vdot = ld.dot(*v);
                            if vdot > max {
                                max = vdot;
                                imax = w as usize;
                            }
                        }
                    }
                    self.meshindex = imax as i64;
                    imax
                } else {
                    let mut max = -FLT_MAX;
                    let mut imax = 0;
                    if let Some(i) = usize::try_from(self.vertindex).ok().filter(|&i| i < verts.len()) {
                        imax = i;
                        max = ld.dot(verts[i]);
                    }
                    for (i, v) in verts.iter().enumerate() {
                        let vdot = ld.dot(*v);
                        if vdot > max {
                            max = vdot;
                            imax = i;
                        }
                    }
                    imax
                };
                self.vertindex = imax as i64;
                self.world(verts[imax])
            }
        }
    }

    /// The vertex `idx` of the geom without its margin (MuJoCo re-reads it when the margin inflates the support).
    pub(super) fn raw_vertex(&self, idx: i64, fallback: DVec3) -> DVec3 {
        if self.margin == 0.0 {
            return fallback;
        }
        match self.geom {
            Geom::Mesh(_) => self.mesh_vertex(idx),
            Geom::Box(s) => self.world(box_corner(s, idx)),
            _ => fallback,
        }
    }
}

pub(super) fn box_corner(s: DVec3, bits: i64) -> DVec3 {
    DVec3::new(
        if bits & 1 != 0 { s.x } else { -s.x },
        if bits & 2 != 0 { s.y } else { -s.y },
        if bits & 4 != 0 { s.z } else { -s.z },
    )
}

/// A point of the Minkowski difference with its two support points and their vertex ids.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Vertex {
    pub(super) vert: DVec3,
    pub(super) vert1: DVec3,
    pub(super) vert2: DVec3,
    pub(super) index1: i64,
    pub(super) index2: i64,
}

pub(super) fn support(o1: &mut Obj<'_>, o2: &mut Obj<'_>, dir: DVec3, dir_neg: DVec3) -> Vertex {
    let mut vert1 = o1.support_raw(dir);
    if o1.margin > 0.0 {
        vert1 += dir * (0.5 * o1.margin);
    }
    let mut vert2 = o2.support_raw(dir_neg);
    if o2.margin > 0.0 {
        vert2 += dir_neg * (0.5 * o2.margin);
    }
    Vertex { vert: vert1 - vert2, vert1, vert2, index1: o1.vertindex, index2: o2.vertindex }
}

/// Polytope vertices only: meshes, boxes and prisms without margin (`discreteGeoms`).
pub(super) fn discrete(o1: &Obj<'_>, o2: &Obj<'_>) -> bool {
    o1.is_discrete() && o2.is_discrete()
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers with MuJoCo's arithmetic
// ---------------------------------------------------------------------------------------------------------------

/// `a / s` with Python's/MuJoCo's reading of a zero divisor: ±∞ for a non-zero `a`, NaN for `0/0`.
pub(super) fn sdiv(a: f64, s: f64) -> f64 {
    if s == 0.0 { if a != 0.0 { f64::INFINITY.copysign(a) } else { f64::NAN } } else { a / s }
}

/// `mju_normalize3`'s result ([`normalize_vec3`]): the unit vector, `(1, 0, 0)` below `mjMINVAL`.
pub(super) fn normalize(a: DVec3) -> DVec3 {
    normalize_vec3(a, MINVAL).0
}

pub(super) fn det3(a: DVec3, b: DVec3, c: DVec3) -> f64 {
    a.x * (b.y * c.z - b.z * c.y) + a.y * (b.z * c.x - b.x * c.z) + a.z * (b.x * c.y - b.y * c.x)
}

pub(super) fn same_sign(a: f64, b: f64) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

pub(super) fn lincomb(c: &[f64; 4], n: usize, v: [DVec3; 4]) -> DVec3 {
    match n {
        1 => v[0] * c[0],
        2 => v[0] * c[0] + v[1] * c[1],
        3 => v[0] * c[0] + v[1] * c[1] + v[2] * c[2],
        4 => v[0] * c[0] + v[1] * c[1] + v[2] * c[2] + v[3] * c[3],
        _ => DVec3::ZERO,
    }
}

/// Projection of the origin onto the plane of a triangle; `None` for a degenerate triangle.
pub(super) fn project_origin_plane(v1: DVec3, v2: DVec3, v3: DVec3) -> Option<DVec3> {
    let (d21, d31, d32) = (v2 - v1, v3 - v1, v3 - v2);
    // The normal from two edges at a time, as MuJoCo tries them; the last pair is used whatever its size.
    for (n, v) in [(d32.cross(d21), v2), (d21.cross(d31), v1)] {
        let (nv, nn) = (n.dot(v), n.dot(n));
        if nn == 0.0 {
            return None;
        }
        if nv != 0.0 && nn > MINVAL {
            return Some(n * (nv / nn));
        }
    }
    let n = d31.cross(d32);
    let nn = n.dot(n);
    if nn == 0.0 {
        return None;
    }
    Some(n * (n.dot(v3) / nn))
}

pub(super) fn project_origin_line(v1: DVec3, v2: DVec3) -> DVec3 {
    let diff = v2 - v1;
    let scl = -sdiv(v2.dot(diff), diff.dot(diff));
    v2 + diff * scl
}

/// `mjc_ellipsoidSupport`: the support point of the ellipsoid with semi-axes `size` at `pos`, turned by `mat`,
/// along the local direction `ld` (`matᵀ dir`): `s = ld ∘ size`, then `mat (s ∘ (size / |s|)) + pos`, `|s|²` as
/// `mju_dot3` sums it; the end of the first axis when `|s|²` is below `mjMINVAL²`. `mjc_PlaneConvex` takes the same
/// arithmetic in MuJoCo 4.0.1 (on all 1734 plane–ellipsoid contacts of 2000 steps of the benchmark chain).
pub(crate) fn ellipsoid_support(mat: &DMat3, pos: DVec3, size: DVec3, ld: DVec3) -> DVec3 {
    let ls = ld * size;
    let norm2 = ls.dot(ls);
    if norm2 < MINVAL2 {
        return mat.x_axis * size.x + pos;
    }
    let inv = 1.0 / norm2.sqrt();
    *mat * DVec3::new(ls.x * (inv * size.x), ls.y * (inv * size.y), ls.z * (inv * size.z)) + pos
}
