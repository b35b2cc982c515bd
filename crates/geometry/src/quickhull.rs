//! Robust 3-D quickhull.
//!
//! [`convex_hull`] returns the extreme points of a finite point cloud and a closed, outward-oriented triangulation
//! of their convex hull: for every triangle `(a, b, c)`, `(b − a) × (c − a)` points out of the hull.
//!
//! # Tolerance
//!
//! `ε = EPS_REL · max(extent, max|coord|)` with [`EPS_REL`] `= 1e-10`, where `extent` is the largest side of the
//! axis-aligned bounding box and `max|coord|` the largest absolute coordinate (see [`hull_tolerance`]). A point is
//! *outside* a face iff its signed distance to the face plane is `> ε`; anything within `ε` counts as on or inside
//! the hull, so every input point is within about `ε` of the result. `ε` scales with the cloud, so the result does
//! not depend on the unit; including `max|coord|` keeps `ε` far above the rounding of the coordinates themselves for
//! clouds far from the origin. A cloud thinner than `ε` in some direction is reported as degenerate.
//!
//! # Exact predicates
//!
//! The cloud is first multiplied by a power of two (exact) so that `max|coord| ∈ [0.5, 1)`, and coordinates below
//! `2^-300` are flushed to zero (a relative change `< 1e-90`): products of coordinates can then neither overflow nor
//! underflow. Whether a point is strictly in front of a face, `((b − a) × (c − a)) · (p − a) > 0`, is decided
//! exactly: a floating-point evaluation with Shewchuk's error bound, and exact expansion arithmetic when the bound
//! does not settle the sign. Face normals are computed in double-double arithmetic, so they are accurate even for
//! sliver triangles. Hence the hull under construction is always the exact (possibly flat-faced) convex hull of the
//! points added so far, every visible set is a topological disk and no face is degenerate; `ε` is only used to decide
//! which points are worth adding. The output refers to the input points by index, so every output vertex is
//! bit-identical to an input point.
//!
//! # Algorithm
//!
//! 1. Validation: every coordinate finite ([`GeometryError::NonFinite`]), at least 4 points.
//! 2. Initial simplex. `p0, p1` = the farthest pair among the six lexicographic axis extremes (each an exact extreme
//!    point); `p2` = the point farthest from the line `p0p1`; `p3` = the point farthest from the plane `p0p1p2`.
//!    A maximum `≤ ε` at these steps means all points coincide, are collinear or are coplanar
//!    ([`GeometryError::DegenerateHull`]).
//! 3. Every other point goes to the outside set of the first face it is more than `ε` outside of; points outside
//!    no face are dropped for good.
//! 4. While some face `f` has a non-empty outside set: its apex `p` is the point of the set farthest from the plane
//!    of `f`. Near-ties (within `ε` of the maximum distance) are broken by the largest squared distance to the
//!    centroid of `f` (a strictly convex key, so the choice is an extreme point of the near-tie set, never a point
//!    in the middle of a face or edge of it), then by the lowest index.
//! 5. Visible set `V`: breadth-first search over face adjacency from `f` through the faces that `p` is strictly in
//!    front of (exact sign). Horizon: the boundary edges of `V` in cyclic order. `V` is deleted, each horizon edge
//!    `(a, b)` gets a new face `(a, b, p)`, and the outside points of `V` are redistributed among the new faces.
//! 6. Cleanup: a vertex whose incident triangles all lie within `ε` of at most two planes is in the relative interior
//!    of a hull face or edge (possible when it was added before the corners that cover it, or when it sticks out by
//!    less than `ε`). Such vertices are dropped and the hull is rebuilt from the remaining vertices (a few passes at
//!    most), so a 5×5×5 grid yields its 8 corners only.
//!
//! Expected cost `O(n log n)`. The surface is closed and 2-manifold with `V − E + F = 2`.

use glam::DVec3;

use crate::error::{GeometryError, Result};

/// Relative tolerance of the hull: `ε = EPS_REL · max(extent, max|coord|)`.
pub const EPS_REL: f64 = 1e-10;

/// After rescaling, coordinates below `2^TINY_EXP` in magnitude are flushed to zero (keeps expansions normal).
const TINY_EXP: i32 = -300;

/// Upper bound on the cleanup passes of step 6 (one suffices in practice).
const MAX_CLEANUP_PASSES: usize = 4;

/// A convex hull: its extreme points and an outward-oriented triangulation of its surface.
#[derive(Debug, Clone, PartialEq)]
pub struct Hull {
    /// The hull's extreme points, in increasing order of their index in the input.
    pub vertices: Vec<DVec3>,
    /// Triangles indexing `vertices`, counter-clockwise seen from outside: `(b − a) × (c − a)` points outward.
    pub triangles: Vec<[u32; 3]>,
}

/// The absolute tolerance `ε = EPS_REL · max(extent, max|coord|)` that [`convex_hull`] uses for `points`
/// (`0` for an empty slice).
pub fn hull_tolerance(points: &[DVec3]) -> f64 {
    let Some(first) = points.first() else {
        return 0.0;
    };
    let (mut lo, mut hi) = (*first, *first);
    for p in points {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let max_abs = lo.abs().max(hi.abs()).max_element();
    EPS_REL * (hi - lo).max_element().max(max_abs)
}

/// The convex hull of `points` (see the module documentation for the algorithm and the tolerance).
///
/// Errors: [`GeometryError::NonFinite`] for a NaN or infinite coordinate, [`GeometryError::DegenerateHull`] for
/// fewer than 4 points, or points that all coincide, are all collinear or are all coplanar (within the tolerance).
pub fn convex_hull(points: &[DVec3]) -> Result<Hull> {
    for p in points {
        for c in p.to_array() {
            crate::error::bounded("convex mesh", "points", c)?;
        }
    }
    if points.len() < 4 {
        return Err(GeometryError::DegenerateHull {
            what: format!("only {} points given, at least 4 are needed", points.len()),
        });
    }
    let Ok(count) = u32::try_from(points.len()) else {
        return Err(GeometryError::DegenerateHull {
            what: format!("{} points exceed the u32 index range", points.len()),
        });
    };
    let pts = normalise(points);
    let cloud = Cloud { pts: &pts, eps: hull_tolerance(&pts) };
    let all: Vec<u32> = (0..count).collect();
    let mut triangles = build(&cloud, &all)?;
    for _ in 0..MAX_CLEANUP_PASSES {
        let (keep, total) = non_redundant_vertices(&cloud, &triangles);
        if keep.len() == total {
            break;
        }
        match build(&cloud, &keep) {
            Ok(t) => triangles = t,
            Err(_) => break,
        }
    }
    Ok(compact(points, &triangles))
}

/// `2^k` for `k ∈ [−1022, 1023]` (clamped), exactly.
fn pow2(k: i32) -> f64 {
    let biased = u64::try_from((k + 1023).clamp(1, 2046)).unwrap_or(1023);
    f64::from_bits(biased << 52)
}

/// Two powers of two whose product `f` brings `max_abs > 0` into `[0.5, 1)`: `max_abs · f1 · f2 ∈ [0.5, 1)`
/// (applied in two halves so that neither factor overflows).
fn unit_factors(max_abs: f64) -> (f64, f64) {
    let factors = |k: i32| (pow2(k / 2), pow2(k - k / 2));
    // `log2` may be off by one near powers of two; the loop settles the exponent exactly.
    let mut k = -1 - max_abs.log2().floor() as i32;
    for _ in 0..4 {
        let (f1, f2) = factors(k);
        let m = max_abs * f1 * f2;
        if m >= 1.0 {
            k -= 1;
        } else if m < 0.5 {
            k += 1;
        } else {
            break;
        }
    }
    factors(k)
}

/// The points multiplied by a power of two (exact) so that the largest absolute coordinate lies in `[0.5, 1)`, with
/// coordinates below `2^TINY_EXP` flushed to zero.
fn normalise(points: &[DVec3]) -> Vec<DVec3> {
    let max_abs = points.iter().map(|p| p.abs().max_element()).fold(0.0, f64::max);
    if max_abs == 0.0 {
        return points.to_vec();
    }
    let (f1, f2) = unit_factors(max_abs);
    let tiny = pow2(TINY_EXP);
    points
        .iter()
        .map(|p| DVec3::from_array((*p * f1 * f2).to_array().map(|c| if c.abs() < tiny { 0.0 } else { c })))
        .collect()
}

/// Exact geometric predicates (Shewchuk-style floating-point filter, expansion arithmetic fallback).
mod predicates {
    use glam::DVec3;

    /// Half an ulp of 1: the unit roundoff `2^-53`.
    const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;
    /// Shewchuk's `o3derrboundA`.
    const ORIENT_ERR_BOUND: f64 = (7.0 + 56.0 * UNIT_ROUNDOFF) * UNIT_ROUNDOFF;

    /// `s + e = a + b` exactly (Knuth).
    #[inline]
    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bv = s - a;
        let av = s - bv;
        (s, (a - av) + (b - bv))
    }

    /// `p + e = a · b` exactly (fused multiply-add).
    #[inline]
    fn two_product(a: f64, b: f64) -> (f64, f64) {
        let p = a * b;
        (p, a.mul_add(b, -p))
    }

    /// `e + b` for a non-overlapping expansion `e` in increasing magnitude (zero components eliminated).
    fn grow(e: &[f64], b: f64) -> Vec<f64> {
        let mut out = Vec::with_capacity(e.len() + 1);
        let mut q = b;
        for &x in e {
            let (s, h) = two_sum(q, x);
            if h != 0.0 {
                out.push(h);
            }
            q = s;
        }
        if q != 0.0 || out.is_empty() {
            out.push(q);
        }
        out
    }

    fn add(e: &[f64], f: &[f64]) -> Vec<f64> {
        f.iter().fold(e.to_vec(), |acc, &x| grow(&acc, x))
    }

    /// `e · b` (Shewchuk's `scale_expansion_zeroelim`, with `two_sum` in place of `fast_two_sum`).
    fn scale(e: &[f64], b: f64) -> Vec<f64> {
        let mut out = Vec::with_capacity(2 * e.len());
        let Some((&first, rest)) = e.split_first() else {
            return out;
        };
        let (mut q, h) = two_product(first, b);
        if h != 0.0 {
            out.push(h);
        }
        for &x in rest {
            let (p1, p0) = two_product(x, b);
            let (sum, h) = two_sum(q, p0);
            if h != 0.0 {
                out.push(h);
            }
            let (nq, h) = two_sum(p1, sum);
            if h != 0.0 {
                out.push(h);
            }
            q = nq;
        }
        if q != 0.0 || out.is_empty() {
            out.push(q);
        }
        out
    }

    fn mul(e: &[f64], f: &[f64]) -> Vec<f64> {
        f.iter().fold(Vec::new(), |acc, &x| add(&acc, &scale(e, x)))
    }

    fn neg(e: &[f64]) -> Vec<f64> {
        e.iter().map(|x| -x).collect()
    }

    /// `a − b` as an exact two-component expansion.
    fn diff(a: f64, b: f64) -> [f64; 2] {
        let (s, e) = two_sum(a, -b);
        [e, s]
    }

    /// `((b − a) × (c − a)) · (p − a)` with the exact sign (six times the signed volume of `abcp`; positive iff `p`
    /// is strictly on the side the normal `(b − a) × (c − a)` points to). The magnitude is accurate to about one
    /// ulp.
    pub(super) fn orient(a: DVec3, b: DVec3, c: DVec3, p: DVec3) -> f64 {
        // Shewchuk's determinant [a − p, b − p, c − p] equals −orient.
        let (ad, bd, cd) = (a - p, b - p, c - p);
        let (bdxcdy, cdxbdy) = (bd.x * cd.y, cd.x * bd.y);
        let (cdxady, adxcdy) = (cd.x * ad.y, ad.x * cd.y);
        let (adxbdy, bdxady) = (ad.x * bd.y, bd.x * ad.y);
        let det = ad.z * (bdxcdy - cdxbdy) + bd.z * (cdxady - adxcdy) + cd.z * (adxbdy - bdxady);
        let permanent = (bdxcdy.abs() + cdxbdy.abs()) * ad.z.abs()
            + (cdxady.abs() + adxcdy.abs()) * bd.z.abs()
            + (adxbdy.abs() + bdxady.abs()) * cd.z.abs();
        if det.abs() > ORIENT_ERR_BOUND * permanent {
            return -det;
        }
        -exact_det(a, b, c, p)
    }

    /// `[a − p, b − p, c − p]` exactly, rounded: the sum of a non-overlapping expansion in increasing magnitude,
    /// whose sign is the sign of its largest component.
    fn exact_det(a: DVec3, b: DVec3, c: DVec3, p: DVec3) -> f64 {
        let [adx, ady, adz] = [diff(a.x, p.x), diff(a.y, p.y), diff(a.z, p.z)];
        let [bdx, bdy, bdz] = [diff(b.x, p.x), diff(b.y, p.y), diff(b.z, p.z)];
        let [cdx, cdy, cdz] = [diff(c.x, p.x), diff(c.y, p.y), diff(c.z, p.z)];
        let minor = |u: &[f64], v: &[f64], w: &[f64], x: &[f64]| add(&mul(u, v), &neg(&mul(w, x)));
        let t1 = mul(&adz, &minor(&bdx, &cdy, &cdx, &bdy));
        let t2 = mul(&bdz, &minor(&cdx, &ady, &adx, &cdy));
        let t3 = mul(&cdz, &minor(&adx, &bdy, &bdx, &ady));
        add(&add(&t1, &t2), &t3).iter().sum()
    }

    /// `(b − a) × (c − a)` in double-double arithmetic, rounded: each component is accurate to about
    /// `ulp(component) + 2^-104 |b − a| |c − a|`, so the direction is reliable even for sliver triangles.
    pub(super) fn cross(a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
        let u = [b.x - a.x, b.y - a.y, b.z - a.z];
        let v = [c.x - a.x, c.y - a.y, c.z - a.z];
        let ul = [diff(b.x, a.x)[0], diff(b.y, a.y)[0], diff(b.z, a.z)[0]];
        let vl = [diff(c.x, a.x)[0], diff(c.y, a.y)[0], diff(c.z, a.z)[0]];
        let component = |i: usize, j: usize| {
            let (ph, pl) = two_product(u[i], v[j]);
            let (qh, ql) = two_product(u[j], v[i]);
            let tp = u[i] * vl[j] + ul[i] * v[j] + ul[i] * vl[j];
            let tq = u[j] * vl[i] + ul[j] * v[i] + ul[j] * vl[i];
            let (s, e) = two_sum(ph, -qh);
            s + (e + (pl - ql) + (tp - tq))
        };
        DVec3::new(component(1, 2), component(2, 0), component(0, 1))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Exact `((b − a) × (c − a)) · (p − a)` for integer coordinates `< 2^40`.
        fn orient_i128(a: [i64; 3], b: [i64; 3], c: [i64; 3], p: [i64; 3]) -> i128 {
            let d = |x: [i64; 3], y: [i64; 3]| [0, 1, 2].map(|k| x[k] as i128 - y[k] as i128);
            let (u, v, w) = (d(b, a), d(c, a), d(p, a));
            let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
            n[0] * w[0] + n[1] * w[1] + n[2] * w[2]
        }

        #[test]
        fn orient_sign_is_exact_on_near_coplanar_integer_points() {
            let mut state = 0x2545_F491_4F6C_DD1Du64;
            let mut next = move |bits: u32| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> (64 - bits)) as i64 - (1i64 << (bits - 1))
            };
            let mut coplanar = 0;
            for _ in 0..20_000 {
                let a = [next(36), next(36), next(36)];
                let b = [next(36), next(36), next(36)];
                let c = [next(36), next(36), next(36)];
                let (s, t) = (next(5), next(5));
                let off = [next(2), next(2), next(2)];
                let p = [0, 1, 2].map(|k| a[k] + s * (b[k] - a[k]) + t * (c[k] - a[k]) + off[k]);
                let f = |x: [i64; 3]| DVec3::new(x[0] as f64, x[1] as f64, x[2] as f64);
                let got = orient(f(a), f(b), f(c), f(p));
                let want = orient_i128(a, b, c, p);
                assert_eq!(got.partial_cmp(&0.0), want.partial_cmp(&0), "{a:?} {b:?} {c:?} {p:?}");
                coplanar += usize::from(want == 0);
            }
            assert!(coplanar > 100, "too few exactly coplanar cases ({coplanar})");
        }

        #[test]
        fn cross_is_accurate_for_slivers() {
            let a = DVec3::new(0.1, 0.2, 0.3);
            let b = DVec3::new(0.7, 0.9, 0.4);
            // `c` is within a few ulps of the segment ab: the naive cross product is mostly rounding noise.
            let c = a + (b - a) * 0.5 + DVec3::new(0.0, 0.0, 1e-15);
            let n = cross(a, b, c).normalize();
            assert!(n.dot(b - a).abs() < 1e-14, "{n}");
            assert!(orient(a, b, c, a + n) > 0.0);
            assert_eq!(cross(DVec3::ZERO, DVec3::X, DVec3::X * 3.0), DVec3::ZERO);
        }
    }
}

/// Unit normal `(b − a) × (c − a) / |…|` of a triangle, accurate even for slivers (zero for a degenerate one).
///
/// The corners are first scaled by a power of two (exact) into the unit box, so any finite input works.
pub(crate) fn triangle_normal(a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let max_abs = a.abs().max(b.abs()).max(c.abs()).max_element();
    if !(max_abs > 0.0 && max_abs.is_finite()) {
        return DVec3::ZERO;
    }
    let (f1, f2) = unit_factors(max_abs);
    unit(predicates::cross(a * f1 * f2, b * f1 * f2, c * f1 * f2))
}

/// `n / |n|`, pre-scaled by the largest component so that tiny (or huge) vectors do not underflow (overflow); zero
/// for a zero or non-finite `n`.
fn unit(n: DVec3) -> DVec3 {
    let m = n.abs().max_element();
    if m > 0.0 && m.is_finite() { (n / m).normalize_or_zero() } else { DVec3::ZERO }
}

/// The normalised point cloud and `ε` in its units.
#[derive(Debug)]
struct Cloud<'a> {
    pts: &'a [DVec3],
    eps: f64,
}

impl Cloud<'_> {
    #[inline]
    fn p(&self, q: u32) -> DVec3 {
        self.pts[q as usize]
    }

    /// Exact-sign orientation of `p` against triangle `v`.
    #[inline]
    fn orient(&self, v: [u32; 3], p: DVec3) -> f64 {
        predicates::orient(self.p(v[0]), self.p(v[1]), self.p(v[2]), p)
    }
}

/// The plane of a triangle: accurate unit normal through its first vertex.
#[derive(Debug, Clone, Copy)]
struct Plane {
    normal: DVec3,
    origin: DVec3,
}

impl Plane {
    fn new(cloud: &Cloud<'_>, v: [u32; 3]) -> Plane {
        let [a, b, c] = v.map(|q| cloud.p(q));
        Plane { normal: unit(predicates::cross(a, b, c)), origin: a }
    }

    /// Signed distance of `p` (accurate to a few ulps of the coordinates).
    #[inline]
    fn dist(&self, p: DVec3) -> f64 {
        self.normal.dot(p - self.origin)
    }
}

/// One triangle of the hull under construction.
#[derive(Debug)]
struct Face {
    /// Point ids, counter-clockwise seen from outside.
    v: [u32; 3],
    /// `nb[k]` = the face across the edge `(v[k], v[(k + 1) % 3])`.
    nb: [usize; 3],
    plane: Plane,
    alive: bool,
    /// Points more than `ε` outside this face, not yet processed.
    outside: Vec<u32>,
}

/// A boundary edge `a → b` of the visible set (as oriented in the visible face), and the face `outer` beyond it,
/// which holds the edge as `b → a` at index `slot`.
#[derive(Debug, Clone, Copy)]
struct HorizonEdge {
    a: u32,
    b: u32,
    outer: usize,
    slot: usize,
}

/// The quickhull state for one pass.
#[derive(Debug)]
struct Builder<'a> {
    cloud: &'a Cloud<'a>,
    faces: Vec<Face>,
    alive_count: usize,
    /// Per-face visit stamp of the current visible set.
    face_mark: Vec<usize>,
    stamp: usize,
    /// Per-point stamp and outgoing boundary edge of the current horizon extraction.
    vert_mark: Vec<usize>,
    vert_next: Vec<usize>,
}

/// The id among `ids` maximising `score`, near-ties (within `ε` of the maximum) broken by the largest
/// `|p − centre|²` and then the lowest id; with the maximum score. `None` for an empty `ids`.
fn pick_extreme(
    cloud: &Cloud<'_>,
    ids: &[u32],
    centre: DVec3,
    score: impl Fn(DVec3) -> f64,
) -> Option<(u32, f64)> {
    let max = ids.iter().map(|&q| score(cloud.p(q))).fold(f64::NEG_INFINITY, f64::max);
    let mut best: Option<(u32, f64)> = None;
    for &q in ids {
        let p = cloud.p(q);
        if score(p) >= max - cloud.eps {
            let key = (p - centre).length_squared();
            match best {
                Some((bq, bk)) if key < bk || (key == bk && q >= bq) => {}
                _ => best = Some((q, key)),
            }
        }
    }
    best.map(|(q, _)| (q, max))
}

/// Four affinely independent extreme points (step 2 of the module documentation).
fn initial_simplex(cloud: &Cloud<'_>, ids: &[u32]) -> Result<[u32; 4]> {
    let Some(&first) = ids.first() else {
        return Err(GeometryError::DegenerateHull { what: "no points given".into() });
    };
    let eps = cloud.eps;
    let less = |k: usize, x: u32, y: u32| {
        let (x, y) = (cloud.p(x).to_array(), cloud.p(y).to_array());
        let key = |a: [f64; 3]| [a[k], a[(k + 1) % 3], a[(k + 2) % 3]];
        let (x, y) = (key(x), key(y));
        x[0].total_cmp(&y[0]).then(x[1].total_cmp(&y[1])).then(x[2].total_cmp(&y[2])).is_lt()
    };
    let mut ext = [first; 6];
    for &q in ids {
        for k in 0..3 {
            if less(k, q, ext[2 * k]) {
                ext[2 * k] = q;
            }
            if less(k, ext[2 * k + 1], q) {
                ext[2 * k + 1] = q;
            }
        }
    }
    let (mut p0, mut p1, mut best) = (first, first, f64::NEG_INFINITY);
    for (i, &a) in ext.iter().enumerate() {
        for &b in &ext[i + 1..] {
            let d = (cloud.p(a) - cloud.p(b)).length_squared();
            if d > best {
                (p0, p1, best) = (a, b, d);
            }
        }
    }
    if best.sqrt() <= eps {
        return Err(GeometryError::DegenerateHull { what: "all points coincide (within tolerance)".into() });
    }
    let (a, b) = (cloud.p(p0), cloud.p(p1));
    let u = (b - a).normalize_or_zero();
    let line = pick_extreme(cloud, ids, 0.5 * (a + b), |x| (x - a).cross(u).length());
    let Some((p2, _)) = line.filter(|(_, d)| *d > eps) else {
        return Err(GeometryError::DegenerateHull {
            what: "all points are collinear (within tolerance)".into(),
        });
    };
    let plane = Plane::new(cloud, [p0, p1, p2]);
    let centre = (a + b + cloud.p(p2)) / 3.0;
    let off = pick_extreme(cloud, ids, centre, |x| plane.dist(x).abs());
    let Some((p3, _)) = off.filter(|(_, d)| *d > eps) else {
        return Err(GeometryError::DegenerateHull {
            what: "all points are coplanar (within tolerance)".into(),
        });
    };
    Ok([p0, p1, p2, p3])
}

/// One quickhull pass over the points `ids`; returns the triangles in point ids.
fn build(cloud: &Cloud<'_>, ids: &[u32]) -> Result<Vec<[u32; 3]>> {
    if ids.len() < 4 {
        return Err(GeometryError::DegenerateHull {
            what: format!("only {} points given, at least 4 are needed", ids.len()),
        });
    }
    let simplex = initial_simplex(cloud, ids)?;
    let mut b = Builder {
        cloud,
        faces: Vec::new(),
        alive_count: 0,
        face_mark: Vec::new(),
        stamp: 0,
        vert_mark: vec![0; cloud.pts.len()],
        vert_next: vec![0; cloud.pts.len()],
    };
    b.init_tetrahedron(simplex);
    for &q in ids {
        if !simplex.contains(&q) {
            b.assign(q, 0..4);
        }
    }
    let mut stack: Vec<usize> = (0..4).filter(|&f| !b.faces[f].outside.is_empty()).collect();
    while let Some(f) = stack.pop() {
        b.process(f, &mut stack);
    }
    Ok(b.faces.iter().filter(|f| f.alive).map(|f| f.v).collect())
}

impl Builder<'_> {
    fn new_face(&self, v: [u32; 3], nb: [usize; 3]) -> Face {
        Face { v, nb, plane: Plane::new(self.cloud, v), alive: true, outside: Vec::new() }
    }

    /// The four faces of the tetrahedron `s`, oriented outward and linked.
    fn init_tetrahedron(&mut self, s: [u32; 4]) {
        let [a, mut b, mut c, d] = s;
        if self.cloud.orient([a, b, c], self.cloud.p(d)) > 0.0 {
            std::mem::swap(&mut b, &mut c);
        }
        // With `d` behind `(a, b, c)` these four are all outward.
        let tris = [[a, b, c], [a, c, d], [a, d, b], [b, d, c]];
        for t in tris {
            let face = self.new_face(t, [0; 3]);
            self.faces.push(face);
        }
        for (f, tf) in tris.iter().enumerate() {
            for k in 0..3 {
                let (u, w) = (tf[k], tf[(k + 1) % 3]);
                for (g, tg) in tris.iter().enumerate() {
                    if (0..3).any(|m| tg[m] == w && tg[(m + 1) % 3] == u) {
                        self.faces[f].nb[k] = g;
                    }
                }
            }
        }
        self.alive_count = 4;
        self.face_mark = vec![0; 4];
    }

    /// Puts point `q` in the outside set of the first face of `candidates` it is more than `ε` outside of, or
    /// drops it.
    fn assign(&mut self, q: u32, candidates: std::ops::Range<usize>) {
        let p = self.cloud.p(q);
        for f in candidates {
            if self.faces[f].plane.dist(p) > self.cloud.eps {
                self.faces[f].outside.push(q);
                return;
            }
        }
    }

    /// One quickhull step on face `f`.
    fn process(&mut self, f: usize, stack: &mut Vec<usize>) {
        if !self.faces[f].alive || self.faces[f].outside.is_empty() {
            return;
        }
        let cloud = self.cloud;
        let face = &self.faces[f];
        let centre = face.v.iter().map(|&q| cloud.p(q)).sum::<DVec3>() / 3.0;
        let Some((apex, _)) = pick_extreme(cloud, &face.outside, centre, |x| face.plane.dist(x)) else {
            return;
        };
        let Some((visible, horizon)) = self.visible_region(f, cloud.p(apex)) else {
            // Unreachable with exact predicates; kept so that no input can loop or panic.
            self.faces[f].outside.retain(|&q| q != apex);
            stack.push(f);
            return;
        };
        let first_new = self.faces.len();
        let m = horizon.len();
        for (i, e) in horizon.iter().enumerate() {
            let prev = first_new + (i + m - 1) % m;
            let next = first_new + (i + 1) % m;
            let face = self.new_face([e.a, e.b, apex], [e.outer, next, prev]);
            self.faces.push(face);
            self.faces[e.outer].nb[e.slot] = first_new + i;
        }
        self.face_mark.resize(self.faces.len(), 0);
        let mut orphans = Vec::new();
        for &v in &visible {
            self.faces[v].alive = false;
            orphans.append(&mut self.faces[v].outside);
        }
        self.alive_count = self.alive_count + m - visible.len();
        let end = self.faces.len();
        for q in orphans {
            if q != apex {
                self.assign(q, first_new..end);
            }
        }
        stack.extend((first_new..end).filter(|&g| !self.faces[g].outside.is_empty()));
    }

    /// The faces strictly visible from `ap`, found from face `start`, and their horizon in cyclic order; `None` if
    /// the boundary is not a single simple cycle (impossible with exact predicates).
    fn visible_region(&mut self, start: usize, ap: DVec3) -> Option<(Vec<usize>, Vec<HorizonEdge>)> {
        self.stamp += 1;
        let s = self.stamp;
        self.face_mark[start] = s;
        let mut vis = vec![start];
        let mut k = 0;
        while let Some(&f) = vis.get(k) {
            k += 1;
            for g in self.faces[f].nb {
                if self.face_mark[g] != s && self.cloud.orient(self.faces[g].v, ap) > 0.0 {
                    self.face_mark[g] = s;
                    vis.push(g);
                }
            }
        }
        if vis.len() >= self.alive_count {
            return None;
        }
        let mut edges: Vec<HorizonEdge> = Vec::new();
        for &f in &vis {
            for k in 0..3 {
                let g = self.faces[f].nb[k];
                if self.face_mark[g] == s {
                    continue;
                }
                let (a, b) = (self.faces[f].v[k], self.faces[f].v[(k + 1) % 3]);
                if self.vert_mark[a as usize] == s {
                    return None;
                }
                self.vert_mark[a as usize] = s;
                self.vert_next[a as usize] = edges.len();
                edges.push(HorizonEdge { a, b, outer: g, slot: 0 });
            }
        }
        let mut cycle = Vec::with_capacity(edges.len());
        let mut cur = 0;
        loop {
            let mut e = *edges.get(cur)?;
            let outer = &self.faces[e.outer];
            e.slot = (0..3).find(|&m| outer.v[m] == e.b && outer.v[(m + 1) % 3] == e.a)?;
            cycle.push(e);
            if self.vert_mark[e.b as usize] != s || cycle.len() > edges.len() {
                return None;
            }
            cur = self.vert_next[e.b as usize];
            if cur == 0 {
                break;
            }
        }
        (cycle.len() == edges.len()).then_some((vis, cycle))
    }
}

/// The vertices of `triangles` that are not redundant (step 6), sorted, and the total number of vertices.
///
/// Candidate planes are taken from the incident triangles in decreasing order of area, so that a sliver never
/// defines one while a larger triangle in the same plane exists.
fn non_redundant_vertices(cloud: &Cloud<'_>, triangles: &[[u32; 3]]) -> (Vec<u32>, usize) {
    let area = |t: &[u32; 3]| predicates::cross(cloud.p(t[0]), cloud.p(t[1]), cloud.p(t[2])).length();
    let mut incidence: Vec<(u32, f64, usize)> = triangles
        .iter()
        .enumerate()
        .flat_map(|(t, tri)| {
            let a = area(tri);
            tri.iter().map(move |&v| (v, a, t))
        })
        .collect();
    incidence.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)).then(x.2.cmp(&y.2)));
    let mut keep = Vec::new();
    let mut total = 0;
    for group in incidence.chunk_by(|x, y| x.0 == y.0) {
        let Some(&(v, _, _)) = group.first() else {
            continue;
        };
        total += 1;
        let mut planes: Vec<Plane> = Vec::with_capacity(3);
        let mut redundant = true;
        for &(_, _, t) in group {
            let corners = triangles[t].map(|q| cloud.p(q));
            let fits = planes.iter().any(|pl| corners.iter().all(|p| pl.dist(*p).abs() <= cloud.eps));
            if !fits {
                let plane = Plane::new(cloud, triangles[t]);
                planes.push(plane);
                if plane.normal == DVec3::ZERO || planes.len() > 2 {
                    redundant = false;
                    break;
                }
            }
        }
        if !redundant {
            keep.push(v);
        }
    }
    (keep, total)
}

/// The hull with its vertices re-indexed compactly (in increasing input index).
fn compact(points: &[DVec3], triangles: &[[u32; 3]]) -> Hull {
    let mut ids: Vec<u32> = triangles.iter().flatten().copied().collect();
    ids.sort_unstable();
    ids.dedup();
    let remap = |v: u32| ids.partition_point(|&x| x < v) as u32;
    Hull {
        vertices: ids.iter().map(|&i| points[i as usize]).collect(),
        triangles: triangles.iter().map(|t| t.map(remap)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube_corners() -> Vec<DVec3> {
        (0..8)
            .map(|k| {
                DVec3::new(
                    if k & 1 != 0 { 1.0 } else { -1.0 },
                    if k & 2 != 0 { 1.0 } else { -1.0 },
                    if k & 4 != 0 { 1.0 } else { -1.0 },
                )
            })
            .collect()
    }

    fn assert_valid(points: &[DVec3], hull: &Hull) {
        let (v, f) = (hull.vertices.len(), hull.triangles.len());
        let mut edges: Vec<[u32; 2]> =
            hull.triangles.iter().flat_map(|t| (0..3).map(move |k| [t[k], t[(k + 1) % 3]])).collect();
        edges.sort_unstable();
        let before = edges.len();
        edges.dedup();
        assert_eq!(before, edges.len(), "a directed edge appears twice");
        for [a, b] in &edges {
            assert!(edges.binary_search(&[*b, *a]).is_ok(), "edge without twin");
        }
        assert_eq!(v as i64 - (edges.len() / 2) as i64 + f as i64, 2);
        let c = hull.vertices.iter().copied().sum::<DVec3>() / v as f64;
        let tol = 1e-9 * hull_tolerance(points) / EPS_REL;
        for t in &hull.triangles {
            let [a, b, cc] = t.map(|i| hull.vertices[i as usize]);
            let n = triangle_normal(a, b, cc);
            assert!(n.dot(c - a) < 0.0);
            for p in points {
                assert!(n.dot(*p - a) <= tol);
            }
        }
    }

    #[test]
    fn cube_has_8_vertices_and_12_triangles() {
        let pts = cube_corners();
        let hull = convex_hull(&pts).unwrap();
        assert_eq!(hull.vertices, pts);
        assert_eq!(hull.triangles.len(), 12);
        assert_valid(&pts, &hull);
    }

    #[test]
    fn tetrahedron_either_orientation() {
        let a = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
        let b = [DVec3::ZERO, DVec3::Y, DVec3::X, DVec3::Z];
        for pts in [a, b] {
            let hull = convex_hull(&pts).unwrap();
            assert_eq!(hull.triangles.len(), 4);
            assert_valid(&pts, &hull);
        }
    }

    #[test]
    fn interior_points_and_duplicates_are_not_vertices() {
        let mut pts = cube_corners();
        pts.extend([DVec3::ZERO, DVec3::splat(0.5), DVec3::X, DVec3::new(1.0, 1.0, 0.0)]);
        pts.extend(cube_corners());
        let hull = convex_hull(&pts).unwrap();
        assert_eq!(hull.vertices.len(), 8);
        assert_valid(&pts, &hull);
    }

    #[test]
    fn degenerate_inputs_are_typed_errors() {
        let is_degenerate = |pts: &[DVec3], word: &str| match convex_hull(pts) {
            Err(GeometryError::DegenerateHull { what }) => assert!(what.contains(word), "{what}"),
            other => panic!("expected DegenerateHull({word}), got {other:?}"),
        };
        is_degenerate(&[DVec3::ZERO, DVec3::X, DVec3::Y], "at least 4");
        is_degenerate(&[DVec3::ONE; 6], "coincide");
        is_degenerate(&[DVec3::ZERO; 6], "coincide");
        is_degenerate(&(0..6).map(|i| DVec3::splat(i as f64)).collect::<Vec<_>>(), "collinear");
        is_degenerate(&[DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::ONE.with_z(0.0)], "coplanar");
        let nan = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(0.0, f64::NAN, 1.0)];
        assert!(matches!(
            convex_hull(&nan),
            Err(GeometryError::NonFinite { shape: "convex mesh", parameter: "points", .. })
        ));
    }

    #[test]
    fn normalising_is_an_exact_power_of_two() {
        let cases: [&[DVec3]; 4] = [
            &[DVec3::new(3.0e300, -1.0, 0.5), DVec3::new(1e-310, 2.0, 7.0)],
            &[DVec3::splat(1e-320), DVec3::X * 2e-320],
            &[DVec3::splat(1024.0), -DVec3::X],
            &[DVec3::splat(f64::MAX), DVec3::splat(-f64::MAX)],
        ];
        for pts in cases {
            let m = normalise(pts).iter().map(|p| p.abs().max_element()).fold(0.0, f64::max);
            assert!((0.5..1.0).contains(&m), "{m}");
        }
        assert_eq!(
            normalise(&[DVec3::splat(1024.0), DVec3::splat(-0.375)])[1],
            DVec3::splat(-0.375 / 2048.0)
        );
        assert_eq!(normalise(&[DVec3::new(1.0, 1e-200, 0.0)])[0], DVec3::new(0.5, 0.0, 0.0));
        assert_eq!(normalise(&[DVec3::ZERO; 2]), vec![DVec3::ZERO; 2]);
    }

    #[test]
    fn sliver_normals_are_accurate() {
        let n = triangle_normal(DVec3::ZERO, DVec3::X, DVec3::new(0.5, 1e-300, 0.0));
        assert_eq!(n, DVec3::Z);
        let big = triangle_normal(DVec3::ZERO, DVec3::Y * 1e300, DVec3::new(-1e300, 1e300, 1e-30));
        assert!((big - DVec3::Z).length() < 1e-15, "{big}");
        assert_eq!(triangle_normal(DVec3::ZERO, DVec3::X, DVec3::X * 2.0), DVec3::ZERO);
    }
}
