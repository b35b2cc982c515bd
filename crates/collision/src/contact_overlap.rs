//! The overlap of two touching faces around a contact, and the perturbations aimed at its corners (native mode,
//! Genesis 1.4.5's `func_contact_overlap_axes`).
//!
//! Around contact 0 `(c₀, n₀)` (normal from B to A) the plane coordinates are `x = (p − c₀)·a₀`, `y = (p − c₀)·a₁`
//! and the height `h = (p − c₀)·n₀`, for the pair's perturbation axes `a₀, a₁ ⊥ n₀`. Each geom's face is outlined
//! by support queries along `n_g + 2ε (dₓ a₀ + d_y a₁)` (`n_A = −n₀`, `n_B = +n₀`, `ε` the perturbation angle): two
//! opposite seeds, then the outward normal of the unsettled edge nearest `c₀`, until the outline has 8 vertices or
//! every edge is settled (a support no farther out than the edge), 32 queries in all. A new support outside one
//! edge alone is inserted there; outside a chain of edges it replaces the chain; where rounding splits the chain,
//! the hull is rebuilt by gift wrapping.
//!
//! Each outline's plane (Newell's normal through its centroid) gives its height as an affine function of `(x, y)`;
//! the depth `δ(x, y) = h_B − h_A` is affine too. The overlap is A's outline clipped by B's (Sutherland–Hodgman) and
//! by the half-plane `δ ≥ 0`, corners within the coincidence tolerance `√EPS·s + 2 EPS‖c₀‖` merged (`s` the pair's
//! scale). Of more than four corners, the four spanning the largest area with the corner at `c₀` are the targets.
//!
//! A tilt by `ε` about the axis `n₀ × d` (A turning, B counter-turning about `c₀`) deepens the overlap along `d`: a
//! detection returns the corner whose normal cone holds the tilted depth's gradient `∇δ + 2ε d`. Each target's `d`
//! maximises the gradient's smaller margin to the two sides of its cone, so that the detection cannot tie with a
//! neighbouring corner. Targets within the merge tolerance of `c₀` or of an earlier target get a zero axis (their
//! detection is skipped). The merge tolerance is `min(τ s, 0.005 |area| / perimeter)`, `τ` the relative
//! multi-contact tolerance: the overlap's narrow width, so that a thin patch keeps its corners apart.
//!
//! An overlap with no area beyond rounding (`|area| ≤ EPS·s·perimeter`: no face, an edge on a face, faces apart)
//! keeps the default axes `(+a₀, −a₀, +a₁, −a₁)` and the merge tolerance `τ s`.

use glam::{DVec2, DVec3};

/// Genesis's `EPS` in double precision.
const EPS: f64 = 1e-15;

/// Vertices kept per outline.
const OUTLINE: usize = 8;

/// Corners of the overlap of two outlines and the depth half-plane, at most.
const OVERLAP: usize = 2 * OUTLINE + 1;

/// Support queries outlining both faces: two seeds per geom, then refinements.
const QUERIES: usize = 4 + 2 * (6 + 8);

/// The perturbation axes of detections 1–4 (a zero axis: no detection) and the merge distance of their contacts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlapAxes {
    /// Unit rotation axes of the four detections, or zero where no corner is left to target.
    pub axes: [DVec3; 4],
    /// Distance within which two contacts of the pair are one (m).
    pub merge_tolerance: f64,
}

/// Inputs of [`overlap_axes`].
#[derive(Debug, Clone, Copy)]
pub struct OverlapFrame {
    /// Contact 0's normal `n₀` (from B to A).
    pub normal: DVec3,
    /// Contact 0's position `c₀`.
    pub position: DVec3,
    /// The pair's perturbation axes `a₀, a₁` (unit, orthogonal to `n₀`).
    pub axis: [DVec3; 2],
    /// The pair's scale `s`: half the smaller geom's box diagonal (m).
    pub scale: f64,
    /// The perturbation angle `ε` (rad).
    pub perturbation: f64,
    /// The relative multi-contact tolerance `τ`.
    pub tolerance: f64,
}

/// One geom's outline: vertices `(x, y, h)` in the contact frame, and a bit per edge `(k, k + 1)` once settled.
#[derive(Debug, Clone, Copy, Default)]
struct Outline {
    p: [DVec3; OUTLINE],
    n: usize,
    settled: u32,
}

impl Outline {
    fn edge(&self, k: usize) -> (DVec3, DVec3) {
        (self.p[k], self.p[(k + 1) % self.n])
    }

    /// `(e × (c − p₀))_z` for the edge `k`: negative when `c` lies outside it.
    fn side(&self, k: usize, c: DVec3) -> f64 {
        let (p0, p1) = self.edge(k);
        let e = p1 - p0;
        e.x * (c.y - p0.y) - e.y * (c.x - p0.x)
    }

    /// The unsettled edge nearest the origin (a two-vertex outline's first: the side facing contact 0).
    fn nearest_unsettled_edge(&self) -> usize {
        if self.n == 2 && self.settled == 0 {
            let e = self.p[1] - self.p[0];
            return if e.y * self.p[0].x - e.x * self.p[0].y <= 0.0 { 0 } else { 1 };
        }
        let mut best = (0, -1.0);
        for k in (0..self.n).filter(|&k| self.settled & (1 << k) == 0) {
            let (p0, p1) = self.edge(k);
            let (ex, ey) = (p1.x - p0.x, p1.y - p0.y);
            let t = (-(p0.x * ex + p0.y * ey) / (ex * ex + ey * ey).max(EPS * EPS)).clamp(0.0, 1.0);
            let d = (p0.x + t * ex).powi(2) + (p0.y + t * ey).powi(2);
            if best.1 < 0.0 || d < best.1 {
                best = (k, d);
            }
        }
        best.0
    }

    /// Adds the support `c` found outside edge `k` by more than `tol`.
    fn insert(&mut self, k: usize, c: DVec3) {
        let n = self.n;
        let local = [(k + n - 1) % n, (k + 1) % n].iter().all(|&j| self.side(j, c) >= 0.0);
        if local {
            self.p.copy_within(k + 1..n, k + 2);
            self.p[k + 1] = c;
            self.n = n + 1;
            let lower = self.settled & ((1 << k) - 1);
            let upper = (self.settled >> (k + 1)) << (k + 2);
            self.settled = lower | upper;
            return;
        }
        let visible = (0..n).fold(0u32, |m, j| if self.side(j, c) < 0.0 { m | (1 << j) } else { m });
        let (mut start, mut end, mut runs) = (0, 0, 0);
        for j in 0..n {
            let (is, prev) = (visible & (1 << j) != 0, visible & (1 << ((j + n - 1) % n)) != 0);
            if prev && !is {
                start = j;
            }
            if is && !prev {
                end = j;
                runs += 1;
            }
        }
        if runs == 1 {
            // The chain from `start` to `end` stays, rotated to the front; `c` closes it.
            let kept = (end + n - start) % n + 1;
            let settled = ((self.settled >> start) | (self.settled << (n - start))) & ((1 << (kept - 1)) - 1);
            self.p[..n].rotate_left(start);
            self.p[kept] = c;
            self.n = kept + 1;
            self.settled = settled;
        } else {
            self.p[n] = c;
            self.rebuild_hull(n + 1);
        }
    }

    /// Gift wrapping over the first `n` points, from the lowest `x` (then `y`); collinear points give way to the
    /// farther one. Every edge becomes unsettled.
    fn rebuild_hull(&mut self, n: usize) {
        let mut first = 0;
        for j in 1..n {
            let (pj, pf) = (self.p[j], self.p[first]);
            if pj.x < pf.x || (pj.x <= pf.x && pj.y < pf.y) {
                first = j;
            }
        }
        self.p.swap(0, first);
        let mut hull = 0;
        for i in 0..n {
            hull = i + 1;
            let mut next = if i == 0 && n > 1 { 1 } else { 0 };
            for j in i + 1..n {
                let e = self.p[next] - self.p[i];
                let d = self.p[j] - self.p[i];
                let side = e.x * d.y - e.y * d.x;
                let (dist, len) = (d.x * d.x + d.y * d.y, e.x * e.x + e.y * e.y);
                let tol = EPS * (len * dist).sqrt();
                if side < -tol || (side.abs() <= tol && dist > len) {
                    next = j;
                }
            }
            if next == 0 {
                break;
            }
            self.p.swap(hull, next);
        }
        self.n = hull;
        self.settled = 0;
    }

    /// The outline's plane: its height at the origin and its gradient in `(x, y)` (Newell's normal through the
    /// centroid; flat when the normal lies in the plane).
    fn plane(&self) -> (f64, DVec2) {
        let (mut normal, mut centroid) = (DVec3::ZERO, DVec3::ZERO);
        for k in 0..self.n {
            let (p0, p1) = self.edge(k);
            normal += DVec3::new(
                (p0.y - p1.y) * (p0.z + p1.z),
                (p0.z - p1.z) * (p0.x + p1.x),
                (p0.x - p1.x) * (p0.y + p1.y),
            );
            centroid += p0 / self.n as f64;
        }
        let gradient = if normal.z.abs() > EPS * normal.length() {
            -DVec2::new(normal.x, normal.y) / normal.z
        } else {
            DVec2::ZERO
        };
        (centroid.z - gradient.x * centroid.x - gradient.y * centroid.y, gradient)
    }
}

/// The overlap polygon, corners in order.
#[derive(Debug, Clone, Copy)]
struct Polygon {
    p: [DVec2; OVERLAP],
    n: usize,
}

impl Polygon {
    /// The part where `offset + inward·p ≥ 0` (Sutherland–Hodgman, one half-plane).
    fn clip(&self, inward: DVec2, offset: f64) -> Polygon {
        let mut out = Polygon { p: [DVec2::ZERO; OVERLAP], n: 0 };
        for k in 0..self.n {
            let (p, q) = (self.p[k], self.p[(k + 1) % self.n]);
            let (sp, sq) = (offset + inward.dot(p), offset + inward.dot(q));
            if sp >= 0.0 && out.n < OVERLAP {
                out.p[out.n] = p;
                out.n += 1;
            }
            if sp * sq < 0.0 && out.n < OVERLAP {
                out.p[out.n] = p + sp / (sp - sq) * (q - p);
                out.n += 1;
            }
        }
        out
    }

    /// Twice the signed area.
    fn area2(&self) -> f64 {
        (0..self.n).map(|k| self.p[k].perp_dot(self.p[(k + 1) % self.n])).sum()
    }
}

/// Unit vector `v/(‖v‖ + EPS)`, Genesis's `normalized(EPS)`.
fn unit(v: DVec2) -> DVec2 {
    v / (v.length() + EPS)
}

/// Aims the four perturbed detections of a contact at the corners of the overlap of both geoms' faces around it
/// (see the module docs). `support(g, d)` is the world support point of geom `g` (0: A, 1: B) along `d` on the
/// unperturbed poses. `outlined`: whether both geoms may have a flat face (no sphere, ellipsoid or capsule).
pub fn overlap_axes(
    frame: &OverlapFrame,
    outlined: bool,
    mut support: impl FnMut(usize, DVec3) -> DVec3,
) -> OverlapAxes {
    let OverlapFrame { normal, position, axis: [a0, a1], scale, perturbation, tolerance } = *frame;
    let coincidence = EPS.sqrt() * scale + 2.0 * EPS * position.length();
    let mut outlines = [Outline::default(); 2];
    let mut overlap = Polygon { p: [DVec2::ZERO; OVERLAP], n: 0 };
    let mut slope = DVec2::ZERO;
    if outlined {
        outline_faces(frame, coincidence, &mut outlines, &mut support);
        let mut depth_origin = 0.0;
        for (g, o) in outlines.iter().enumerate() {
            let (height, gradient) = o.plane();
            let sign = if g == 1 { 1.0 } else { -1.0 };
            slope += sign * gradient;
            depth_origin += sign * height;
        }
        overlap = clip_overlap(&outlines, slope, depth_origin, coincidence);
    }
    let area = 0.5 * overlap.area2();
    let perimeter: f64 =
        (0..overlap.n).map(|k| (overlap.p[(k + 1) % overlap.n] - overlap.p[k]).length()).sum();
    let degenerate = area.abs() <= EPS * scale * perimeter;
    let mut merge_tolerance = tolerance * scale;
    let defaults = [a0, -a0, a1, -a1];
    if degenerate {
        return OverlapAxes { axes: defaults, merge_tolerance };
    }
    merge_tolerance = merge_tolerance.min(0.005 * area.abs() / perimeter);
    let orientation = if area >= 0.0 { 1.0 } else { -1.0 };
    let n = overlap.n;
    // The outward normal of each edge `(k, k + 1)`.
    let edge_normal = |k: usize| {
        let (p, q) = (overlap.p[k], overlap.p[(k + 1) % n]);
        orientation * DVec2::new(q.y - p.y, p.x - q.x)
    };
    let targets = if n > 4 { widest_corners(&overlap, orientation, coincidence) } else { [0, 1, 2, 3] };
    let target_tolerance = (EPS * scale).max(merge_tolerance);
    let gain = 2.0 * perturbation;
    let mut axes = [DVec3::ZERO; 4];
    for t in 0..4.min(n) {
        let k = targets[t];
        let corner = overlap.p[k];
        let distinct = corner.length_squared() > target_tolerance * target_tolerance
            && (0..t).all(|j| {
                axes[j] == DVec3::ZERO
                    || (corner - overlap.p[targets[j]]).length_squared() > target_tolerance.powi(2)
            });
        if !distinct {
            continue;
        }
        let normal_prev = unit(edge_normal((k + n - 1) % n));
        let normal_next = unit(edge_normal(k));
        let side_prev = unit(normal_next - normal_next.dot(normal_prev) * normal_prev);
        let side_next = unit(normal_prev - normal_prev.dot(normal_next) * normal_next);
        let (margin_prev, margin_next) = (side_prev.dot(slope), side_next.dot(slope));
        let deepening = if margin_next + gain <= margin_prev + gain * side_prev.dot(side_next) {
            side_next
        } else if margin_prev + gain > margin_next + gain * side_next.dot(side_prev) {
            // Both margins equal along the direction that maximises them.
            let gap = side_prev - side_next;
            let along = gap / gap.length();
            let mut across = along.perp();
            if across.dot(side_prev) < 0.0 {
                across = -across;
            }
            let ratio = (margin_next - margin_prev) / (gain * gap.length());
            ratio * along + (1.0 - ratio * ratio).max(0.0).sqrt() * across
        } else {
            side_prev
        };
        let axis = normal.cross(deepening.x * a0 + deepening.y * a1);
        axes[t] = axis / axis.length().max(EPS);
    }
    OverlapAxes { axes, merge_tolerance }
}

/// Outlines both faces with at most [`QUERIES`] support queries, nearest edges first.
fn outline_faces(
    frame: &OverlapFrame,
    coincidence: f64,
    outlines: &mut [Outline; 2],
    support: &mut impl FnMut(usize, DVec3) -> DVec3,
) {
    let OverlapFrame { normal, position, axis: [a0, a1], perturbation, .. } = *frame;
    let mut query = |g: usize, d: DVec2| {
        let dir = 2.0 * perturbation * (d.x * a0 + d.y * a1) + if g == 1 { normal } else { -normal };
        let s = support(g, dir / (dir.length() + EPS)) - position;
        DVec3::new(s.dot(a0), s.dot(a1), s.dot(normal))
    };
    let mut refining = 0usize;
    for q in 0..QUERIES {
        if q < 4 {
            // Two opposite seeds per geom; coincident ones leave one point.
            let g = q / 2;
            let c = query(g, DVec2::new(if q % 2 == 0 { 1.0 } else { -1.0 }, 0.0));
            let o = &mut outlines[g];
            let far = |p: DVec3| (c.x - p.x).powi(2) + (c.y - p.y).powi(2) > coincidence * coincidence;
            let distinct = o.n == 0 || (far(o.p[o.n - 1]) && (q % 2 == 0 || o.n <= 1 || far(o.p[0])));
            if distinct {
                o.p[o.n] = c;
                o.n += 1;
            }
            continue;
        }
        for _ in 0..2 {
            if refining < 2 {
                let o = &outlines[refining];
                if o.n < 2 || o.n >= OUTLINE || o.settled == (1 << o.n) - 1 {
                    refining += 1;
                }
            }
        }
        if refining >= 2 {
            continue;
        }
        let g = refining;
        let edge = outlines[g].nearest_unsettled_edge();
        let (p0, p1) = outlines[g].edge(edge);
        let e = DVec2::new(p1.x - p0.x, p1.y - p0.y);
        let c = query(g, DVec2::new(e.y, -e.x) / e.length());
        let o = &mut outlines[g];
        if o.side(edge, c) < -coincidence * e.length() {
            o.insert(edge, c);
        } else {
            o.settled |= 1 << edge;
        }
    }
}

/// A's outline clipped by B's and by the half-plane `δ ≥ 0`, coincident corners merged; empty when either outline
/// bounds no area or lies wholly where `δ < 0`.
fn clip_overlap(outlines: &[Outline; 2], slope: DVec2, depth_origin: f64, coincidence: f64) -> Polygon {
    let [subject, clip] = outlines;
    let mut overlap = Polygon { p: [DVec2::ZERO; OVERLAP], n: 0 };
    let depth = |p: DVec3| depth_origin + slope.x * p.x + slope.y * p.y;
    let pressed = |o: &Outline| o.p[..o.n].iter().any(|&p| depth(p) >= 0.0);
    if clip.n < 3 || !pressed(subject) || !pressed(clip) {
        return overlap;
    }
    for k in 0..subject.n {
        overlap.p[k] = subject.p[k].truncate();
    }
    overlap.n = subject.n;
    let m = clip.n;
    let clip_area: f64 = (0..m).map(|k| clip.p[k].truncate().perp_dot(clip.p[(k + 1) % m].truncate())).sum();
    let orientation = if clip_area >= 0.0 { 1.0 } else { -1.0 };
    for k in 0..m {
        let corner = clip.p[k].truncate();
        let e = clip.p[(k + 1) % m].truncate() - corner;
        let inward = orientation * DVec2::new(-e.y, e.x);
        overlap = overlap.clip(inward, -inward.dot(corner));
    }
    overlap = overlap.clip(slope, depth_origin);
    // An edge of one outline through a corner of the other leaves a point of each there.
    let mut distinct = Polygon { p: [DVec2::ZERO; OVERLAP], n: 0 };
    for k in 0..overlap.n {
        let p = overlap.p[k];
        if distinct.n == 0 || (p - distinct.p[distinct.n - 1]).length_squared() > coincidence * coincidence {
            distinct.p[distinct.n] = p;
            distinct.n += 1;
        }
    }
    if distinct.n > 1
        && (distinct.p[distinct.n - 1] - distinct.p[0]).length_squared() <= coincidence * coincidence
    {
        distinct.n -= 1;
    }
    distinct
}

/// The four corners of a convex polygon of more than four that, with the corner at the origin (if any, which
/// needs no detection), span the largest area: for each pair of opposite corners `(k₀, k₂)` the farthest corner on
/// each side of the diagonal, found by a walk that advances as the diagonal turns.
fn widest_corners(overlap: &Polygon, orientation: f64, coincidence: f64) -> [usize; 4] {
    let n = overlap.n;
    let p = |k: usize| overlap.p[k];
    let origin = (0..n).rev().find(|&k| p(k).length_squared() <= coincidence * coincidence);
    let search = n - usize::from(origin.is_some());
    let start = origin.map_or(0, |o| o + 1);
    let at = |i: usize| (start + i) % n;
    let cross = |u: DVec2, v: DVec2| orientation * u.perp_dot(v);
    let mut targets = [0, 1, 2, 3];
    let mut best_area = -1.0;
    for i0 in 0..search - 3 {
        let c0 = p(at(i0));
        let anchor = origin.map_or(c0, p);
        let (mut i1_best, mut i3_best) = (i0 + 1, i0 + 3);
        for i2 in i0 + 2..search - 1 {
            let c2 = p(at(i2));
            let area_origin = if origin.is_some() { cross(c0 - anchor, c2 - anchor) } else { 0.0 };
            i3_best = i3_best.max(i2 + 1);
            let triangle = |from: usize, to: usize, first: bool| {
                let (mut best, mut best_area) = (from, -1.0);
                for i in from..to {
                    let c = p(at(i));
                    let area = if first { cross(c - c0, c2 - c0) } else { cross(c2 - anchor, c - anchor) };
                    if area <= best_area {
                        break;
                    }
                    (best, best_area) = (i, area);
                }
                (best, best_area)
            };
            let (i1, mid) = triangle(i1_best, i2, true);
            let (i3, last) = triangle(i3_best, search, false);
            (i1_best, i3_best) = (i1, i3);
            let area = area_origin + mid + last;
            if area > best_area {
                best_area = area;
                targets = [at(i0), at(i1_best), at(i2), at(i3_best)];
            }
        }
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    fn polygon(points: &[DVec2]) -> Polygon {
        let mut p = Polygon { p: [DVec2::ZERO; OVERLAP], n: points.len() };
        p.p[..points.len()].copy_from_slice(points);
        p
    }

    /// Area of the polygon through `points` in order (absolute).
    fn area(points: &[DVec2]) -> f64 {
        0.5 * (0..points.len()).map(|k| points[k].perp_dot(points[(k + 1) % points.len()])).sum::<f64>().abs()
    }

    /// The four target corners span, with the corner at the origin when there is one, the largest area of any four
    /// corners in order: brute force over every choice, on random convex polygons of 5 to 17 corners, both senses.
    #[test]
    fn widest_corners_span_the_largest_area() {
        let mut rng = Rng(0x0e71);
        for case in 0..2000 {
            let n = 5 + (rng.unit() * 13.0) as usize % 13;
            let mut angles: Vec<f64> = (0..n).map(|_| rng.unit() * std::f64::consts::TAU).collect();
            angles.sort_by(f64::total_cmp);
            let (rx, ry) = (0.5 + rng.unit(), 0.5 + rng.unit());
            let mut points: Vec<DVec2> =
                angles.iter().map(|&a| DVec2::new(rx * a.cos(), ry * a.sin())).collect();
            let with_origin = case % 2 == 0;
            if with_origin {
                let shift = points[case % n];
                points.iter_mut().for_each(|p| *p -= shift);
            }
            if case % 4 < 2 {
                points.reverse();
            }
            let orientation = if polygon(&points).area2() >= 0.0 { 1.0 } else { -1.0 };
            let targets = widest_corners(&polygon(&points), orientation, 1e-12);
            let origin = (0..n).find(|&k| points[k].length_squared() <= 1e-24);
            let chosen = |t: &[usize]| {
                let mut ks: Vec<usize> = t.iter().copied().chain(origin).collect();
                ks.sort_unstable();
                ks.dedup();
                ks.iter().map(|&k| points[k]).collect::<Vec<_>>()
            };
            let found = area(&chosen(&targets));
            let others: Vec<usize> = (0..n).filter(|&k| Some(k) != origin).collect();
            let mut best: f64 = 0.0;
            for i in 0..others.len() {
                for j in i + 1..others.len() {
                    for k in j + 1..others.len() {
                        for l in k + 1..others.len() {
                            best = best.max(area(&chosen(&[others[i], others[j], others[k], others[l]])));
                        }
                    }
                }
            }
            assert!(found >= best * (1.0 - 1e-12), "case {case}: {found} < {best} ({n} corners)");
            assert!(targets.iter().all(|&k| Some(k) != origin), "case {case}: the origin corner is a target");
        }
    }

    /// Spheres, ellipsoids and capsules have no face: the default axes and the geom-scale merge distance.
    #[test]
    fn an_unoutlined_pair_keeps_the_default_axes() {
        let frame = OverlapFrame {
            normal: DVec3::Z,
            position: DVec3::ZERO,
            axis: [DVec3::X, DVec3::Y],
            scale: 0.2,
            perturbation: 5e-3,
            tolerance: 1.5e-2,
        };
        let out = overlap_axes(&frame, false, |_, d| d);
        assert_eq!(out.axes, [DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y]);
        assert_eq!(out.merge_tolerance, 1.5e-2 * 0.2);
    }
}
