//! The GJK simplex and its projection of the origin by signed volumes.
//!
//! Given a simplex of 1 to 4 points of `A ⊖ B`, [`Simplex::reduce`] finds the point `v` of the simplex closest to the
//! origin, keeps only the vertices of the smallest face that contains `v` (the support set) and stores `v`'s
//! barycentric weights, from which the witness points follow. It follows Montanari, Petrinic and Barbieri (2017),
//! "Improving the GJK algorithm for faster and more reliable distance queries between convex objects": the origin is
//! projected onto the affine hull, its barycentric coordinates come from signed areas/volumes computed in the best
//! conditioned coordinate plane, and sub-faces are searched only where a coordinate has the wrong sign. Unlike
//! Johnson's sub-algorithm there are no Voronoi-region special cases that rounding can make inconsistent.

use glam::{DVec2, DVec3};

use super::minkowski::SupportPoint;

/// Up to four support points with the barycentric weights of the closest point.
#[derive(Debug, Clone, Copy, Default)]
pub struct Simplex {
    /// Vertices; only the first `len` are live.
    pub pts: [SupportPoint; 4],
    /// Barycentric weights of the closest point (sum 1).
    pub lambda: [f64; 4],
    /// Number of live vertices.
    pub len: usize,
}

impl Simplex {
    /// An empty simplex.
    pub fn new() -> Self {
        Self::default()
    }

    /// The simplex of one vertex. The dead slots hold copies of it, which compiles to plain stores where
    /// `Simplex::new` zeroed 328 bytes through a `memset` call.
    #[inline]
    pub fn point(p: SupportPoint) -> Self {
        Self { pts: [p; 4], lambda: [1.0, 0.0, 0.0, 0.0], len: 1 }
    }

    /// Appends a vertex (the caller keeps `len < 4`).
    pub fn push(&mut self, p: SupportPoint) {
        self.pts[self.len] = p;
        self.len += 1;
    }

    /// Closest point `Σ λ_i w_i`.
    pub fn closest(&self) -> DVec3 {
        (0..self.len).map(|i| self.pts[i].w * self.lambda[i]).sum()
    }

    /// Witness points `(Σ λ_i a_i, Σ λ_i b_i)`.
    pub fn witnesses(&self) -> (DVec3, DVec3) {
        let a = (0..self.len).map(|i| self.pts[i].a * self.lambda[i]).sum();
        let b = (0..self.len).map(|i| self.pts[i].b * self.lambda[i]).sum();
        (a, b)
    }

    /// Whether `w` is (numerically) one of the live vertices.
    #[inline]
    pub fn contains(&self, w: DVec3, tol2: f64) -> bool {
        (0..self.len).any(|i| (self.pts[i].w - w).length_squared() <= tol2)
    }

    /// Projects the origin onto the simplex, reduces it to the support set and returns the closest point `v`.
    /// When the origin lies inside a full tetrahedron the simplex keeps its 4 vertices and `v = 0`.
    pub fn reduce(&mut self) -> DVec3 {
        self.apply(&self.project(false));
        self.closest()
    }

    /// [`Simplex::reduce`] for GJK, where the last vertex is the newest support point `w` and `v·w < ‖v‖²` for the
    /// previous closest point `v`: the new closest point then lies on a face that contains `w`, so faces without it
    /// are not searched (Montanari et al. 2017, §4). Falls back to the full search if rounding leaves no candidate.
    pub fn reduce_newest_last(&mut self) -> DVec3 {
        self.apply(&self.project(true));
        self.closest()
    }

    /// The projection of the origin (support set and weights) without changing the simplex; `newest_last` as in
    /// [`Simplex::reduce_newest_last`].
    #[inline]
    pub(crate) fn project(&self, newest_last: bool) -> Projection {
        let w = &self.pts;
        match self.len {
            1 => single(0),
            2 => s1d(w, [0, 1]),
            3 => s2d(w, [0, 1, 2], newest_last),
            _ => s3d(w, newest_last),
        }
    }

    /// The closest point `Σ λ_i w_i` of a projection, summed in the order [`Simplex::apply`] keeps, so that it equals
    /// [`Simplex::closest`] after it bit for bit.
    #[inline]
    pub(crate) fn closest_of(&self, p: &Projection) -> DVec3 {
        closest_of(&self.pts, p)
    }

    /// Drops the newest vertex (GJK's undo of a push that made no progress).
    #[inline]
    pub(crate) fn pop(&mut self) {
        self.len -= 1;
    }

    /// Keeps the vertices of `set` (ascending indices, so compacting in place never overwrites a kept vertex).
    #[inline]
    pub(crate) fn apply(&mut self, (set, lambda): &Projection) {
        for (k, i) in set.indices().enumerate() {
            if k != i {
                self.pts[k] = self.pts[i];
            }
        }
        self.lambda = *lambda;
        self.len = usize::from(set.len);
    }
}

/// A small set of vertex indices.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Subset {
    idx: [u8; 4],
    len: u8,
}

impl Subset {
    fn new(ids: &[usize]) -> Self {
        let mut idx = [0; 4];
        for (k, &i) in ids.iter().enumerate() {
            idx[k] = i as u8;
        }
        Self { idx, len: ids.len() as u8 }
    }
    fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.idx[..usize::from(self.len)].iter().map(|&i| usize::from(i))
    }

    /// Number of vertices.
    pub(crate) fn len(&self) -> usize {
        usize::from(self.len)
    }
}

/// A support set with the barycentric weights of the closest point, in the set's order (`λ[k]` weighs vertex
/// `set.idx[k]`; zero past the set's length). Weights in set order are written at fixed places: weights indexed by
/// vertex were stored at computed offsets and read back whole, which stalled on store forwarding.
pub(crate) type Projection = (Subset, [f64; 4]);

/// The simplex's vertices, read in place (copying them out costs more than the projection's arithmetic).
type Vertices = [SupportPoint; 4];

#[inline]
fn closest_of(w: &Vertices, p: &Projection) -> DVec3 {
    p.0.indices().enumerate().map(|(k, i)| w[i].w * p.1[k]).sum()
}

fn dist2(w: &Vertices, p: &Projection) -> f64 {
    closest_of(w, p).length_squared()
}

/// Same strict sign (zero matches nothing), as in the signed-volume paper.
#[inline]
fn same_sign(a: f64, b: f64) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

/// Segment `[w_i, w_j]`.
fn s1d(w: &Vertices, [i, j]: [usize; 2]) -> Projection {
    let (a, b) = (w[i].w, w[j].w);
    let t = b - a;
    // Barycentric coordinates of the origin's projection along the axis where the segment is longest.
    let k = t.abs().max_position();
    let len = t[k];
    if len == 0.0 {
        return single(i);
    }
    let p0 = a - t * (a.dot(t) / t.dot(t));
    let mu_b = (p0[k] - a[k]) / len;
    let mu_a = (b[k] - p0[k]) / len;
    if mu_a > 0.0 && mu_b > 0.0 {
        (Subset::new(&[i, j]), [mu_a, mu_b, 0.0, 0.0])
    } else if mu_b <= 0.0 {
        single(i)
    } else {
        single(j)
    }
}

fn single(i: usize) -> Projection {
    (Subset::new(&[i]), [1.0, 0.0, 0.0, 0.0])
}

/// Triangle `(w_i, w_j, w_k)`; with `newest_last`, `w_k` is the newest vertex and the edge `(i, j)` is skipped.
fn s2d(w: &Vertices, ids: [usize; 3], newest_last: bool) -> Projection {
    let [i, j, k] = ids;
    let (a, b, c) = (w[i].w, w[j].w, w[k].w);
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    let scale = (b - a).length_squared().max((c - a).length_squared());
    if nn <= 1e-28 * scale * scale || nn == 0.0 {
        // Degenerate (collinear) triangle: the best of its edges.
        return best_of([s1d(w, [i, j]), s1d(w, [j, k]), s1d(w, [i, k])].into_iter(), w)
            .unwrap_or_else(|| single(k));
    }
    let p0 = n * (a.dot(n) / nn);
    // Signed areas in the coordinate plane where the triangle's projection is largest.
    let drop = n.abs().max_position();
    let proj = |v: DVec3| match drop {
        0 => DVec2::new(v.y, v.z),
        1 => DVec2::new(v.x, v.z),
        _ => DVec2::new(v.x, v.y),
    };
    let (a2, b2, c2, p2) = (proj(a), proj(b), proj(c), proj(p0));
    let area = |x: DVec2, y: DVec2, z: DVec2| (y - x).perp_dot(z - x);
    let mu = area(a2, b2, c2);
    let cof = [area(p2, b2, c2), area(a2, p2, c2), area(a2, b2, p2)];
    if cof.iter().all(|&c| same_sign(mu, c)) {
        return (Subset::new(&[i, j, k]), [cof[0] / mu, cof[1] / mu, cof[2] / mu, 0.0]);
    }
    let edges = [[j, k], [i, k], [i, j]];
    let skip = if newest_last { 2 } else { 3 };
    let found = best_of((0..3).filter(|&e| e != skip && !same_sign(mu, cof[e])).map(|e| s1d(w, edges[e])), w);
    match found {
        Some(p) => p,
        None => best_of((0..3).filter(|&e| !same_sign(mu, cof[e])).map(|e| s1d(w, edges[e])), w)
            .unwrap_or_else(|| single(k)),
    }
}

/// Tetrahedron `(w_0, w_1, w_2, w_3)`; with `newest_last`, `w_3` is the newest vertex and the face `(0, 1, 2)` is
/// skipped.
fn s3d(pts: &Vertices, newest_last: bool) -> Projection {
    let vol = |a: DVec3, b: DVec3, c: DVec3, d: DVec3| (b - a).dot((c - a).cross(d - a));
    let o = DVec3::ZERO;
    let w = [pts[0].w, pts[1].w, pts[2].w, pts[3].w];
    let det = vol(w[0], w[1], w[2], w[3]);
    let cof = [
        vol(o, w[1], w[2], w[3]),
        vol(w[0], o, w[2], w[3]),
        vol(w[0], w[1], o, w[3]),
        vol(w[0], w[1], w[2], o),
    ];
    // Degenerate (flat) when |det| ≤ 1e-14 · scale³, compared squared to avoid square roots.
    let scale2 = (1..4).map(|i| (w[i] - w[0]).length_squared()).fold(0.0, f64::max);
    let degenerate = det * det <= 1e-28 * scale2 * scale2 * scale2;
    if !degenerate && cof.iter().all(|&c| same_sign(det, c)) {
        let l = cof.map(|c| c / det);
        return (Subset::new(&[0, 1, 2, 3]), l);
    }
    let faces = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]];
    let candidates = |restrict: bool| {
        (0..4)
            .filter(move |&f| !(restrict && f == 3))
            .filter(move |&f| degenerate || !same_sign(det, cof[f]))
            .map(move |f| s2d(pts, faces[f], restrict))
    };
    best_of(candidates(newest_last), pts)
        .or_else(|| best_of(candidates(false), pts))
        .unwrap_or_else(|| single(3))
}

/// The candidate nearest the origin (the first of equals). A lone candidate is returned without measuring it.
fn best_of(mut candidates: impl Iterator<Item = Projection>, w: &Vertices) -> Option<Projection> {
    let first = candidates.next()?;
    let Some(second) = candidates.next() else { return Some(first) };
    let mut best = (dist2(w, &first), first);
    for c in std::iter::once(second).chain(candidates) {
        let d = dist2(w, &c);
        if d < best.0 {
            best = (d, c);
        }
    }
    Some(best.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simplex(points: &[DVec3]) -> Simplex {
        let mut s = Simplex::new();
        for &p in points {
            s.push(SupportPoint { w: p, a: p, b: DVec3::ZERO });
        }
        s
    }

    #[test]
    fn segment_regions() {
        let mut s = simplex(&[DVec3::new(1.0, -1.0, 0.0), DVec3::new(1.0, 1.0, 0.0)]);
        assert!((s.reduce() - DVec3::X).length() < 1e-15);
        assert_eq!(s.len, 2);
        let mut s = simplex(&[DVec3::new(1.0, 1.0, 0.0), DVec3::new(1.0, 2.0, 0.0)]);
        assert!((s.reduce() - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-15);
        assert_eq!(s.len, 1);
    }

    #[test]
    fn triangle_interior_edge_and_vertex() {
        let tri = [DVec3::new(-1.0, -1.0, 2.0), DVec3::new(2.0, -1.0, 2.0), DVec3::new(-1.0, 2.0, 2.0)];
        let mut s = simplex(&tri);
        assert!((s.reduce() - DVec3::new(0.0, 0.0, 2.0)).length() < 1e-14);
        assert_eq!(s.len, 3);
        let shifted: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(2.0, 0.0, 0.0)).collect();
        let mut s = simplex(&shifted);
        let v = s.reduce();
        assert!((v - DVec3::new(1.0, 0.0, 2.0)).length() < 1e-14, "{v}");
        assert_eq!(s.len, 2);
        let corner: Vec<DVec3> = tri.iter().map(|p| *p + DVec3::new(2.0, 2.0, 0.0)).collect();
        let mut s = simplex(&corner);
        assert!((s.reduce() - DVec3::new(1.0, 1.0, 2.0)).length() < 1e-14);
        assert_eq!(s.len, 1);
    }

    #[test]
    fn tetrahedron_containing_origin() {
        let t =
            [DVec3::new(1.0, 0.0, -0.5), DVec3::new(-1.0, 1.0, -0.5), DVec3::new(-1.0, -1.0, -0.5), DVec3::Z];
        let mut s = simplex(&t);
        assert!(s.reduce().length() < 1e-15);
        assert_eq!(s.len, 4);
        let lsum: f64 = s.lambda.iter().sum();
        assert!((lsum - 1.0).abs() < 1e-14);
    }

    #[test]
    fn tetrahedron_outside_face() {
        let t = [
            DVec3::new(1.0, 0.0, 1.0),
            DVec3::new(-1.0, 1.0, 1.0),
            DVec3::new(-1.0, -1.0, 1.0),
            DVec3::Z * 3.0,
        ];
        let mut s = simplex(&t);
        let v = s.reduce();
        assert!((v - DVec3::Z).length() < 1e-14, "{v}");
        assert_eq!(s.len, 3);
    }

    /// In GJK the newest point makes progress (`v·w < ‖v‖²`); then the restricted search finds the same closest
    /// point as the full one.
    #[test]
    fn restricted_search_matches_full_search() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let mut checked = 0;
        for _ in 0..20000 {
            let n = 1 + (rnd().abs() * 3.0) as usize % 3;
            let base: Vec<DVec3> =
                (0..n).map(|_| DVec3::new(rnd(), rnd(), rnd()) + DVec3::new(0.0, 0.0, 1.5)).collect();
            let mut s = simplex(&base);
            let v = s.reduce();
            let w = DVec3::new(rnd(), rnd(), rnd()) * 2.0;
            if v.dot(w) >= v.length_squared() * (1.0 - 1e-6) || s.len == 4 {
                continue;
            }
            let mut full = s;
            full.push(SupportPoint { w, a: w, b: DVec3::ZERO });
            let mut restricted = full;
            let vf = full.reduce();
            let vr = restricted.reduce_newest_last();
            assert!((vf - vr).length() < 1e-12, "{vf} vs {vr}");
            checked += 1;
        }
        assert!(checked > 1000);
    }
}
