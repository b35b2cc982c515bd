//! Contact pruning (spec §A.16, G-W `func_clamp_prune_contacts`): the contacts of one link pair that lie on one
//! plane are reduced to the corners of their support polygon.
//!
//! Only the polygon's convex hull carries a wrench the interior points do not: a resting face reports every vertex
//! that touches, and the solver pays for rows that add nothing. The contacts of a step arrive sorted (link pair,
//! geoms, frame key, ...; see [`crate::contact_set`]), so each link pair is one contiguous bucket. For a bucket:
//!
//! 1. **Patches.** The bucket is split into patches of agreeing normals: each contact joins the first patch whose
//!    first contact's normal `n₀` satisfies `|n₀·n| ≥ cos_tol = 1 − tol²/2` (an angle of about `tol` radians), else
//!    opens a new one. A contact along another normal transmits a wrench the others do not span.
//! 2. **Coplanarity.** For a patch of ≥ 3 contacts, the mean normal `n̄` (each normal folded into the hemisphere of the
//!    first) and the centroid `c`: the patch is coplanar iff `max |(pᵢ − c)·n̄| ≤ tol · max rᵢ`, `rᵢ` the in-plane
//!    distance of `pᵢ` from `c`. A patch that is not coplanar is kept whole.
//! 3. **Support polygon.** The points are projected on an in-plane basis `(u, v)` (u from the world axis least aligned
//!    with `n̄`, `v = n̄ × u`), relative to `c`. Andrew's monotone chain gives their convex hull. A hull whose doubled
//!    area is within `rounding · perimeter` (`rounding = √(EPS · r²max)`) is a segment and keeps its two farthest
//!    points. Otherwise passes over the hull remove each vertex whose turn is below 90°, whose loss (the doubled area
//!    of the triangle with its two neighbours) is strictly the least of its neighbours' (equal losses ordered by the
//!    projected positions, lexicographically) and which is either collinear (loss ≤ `rounding` × its two edge lengths)
//!    or loses at most `tol` times the hull's doubled area; passes repeat until none removes a vertex.
//! 4. **Deep points.** A dropped contact whose penetration exceeds [`DEEP_PENETRATION_RATIO`] times the deepest hull
//!    vertex's is restored: it is a distinct support (a body resting inside its convex envelope).
//!
//! The normal of a kept contact is its own; the mean normal only chooses the plane. Everything depends on the sorted
//! order alone, so the kept set does not depend on the order in which the narrow phase found the contacts.

use glam::{DVec2, DVec3};

/// G-W's `prune_deep_penetration_ratio`.
pub const DEEP_PENETRATION_RATIO: f64 = 3.0;

/// Genesis's `EPS` (float64): a mean normal shorter than this has no direction, and `√(EPS · r²)` is the rounding
/// length of a patch of radius `r`.
const EPS: f64 = 1e-15;

/// What pruning reads of one contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PruneContact {
    /// `(min(link_a, link_b), max(link_a, link_b))`: contacts of one bucket share it and are contiguous.
    pub link_pair: (usize, usize),
    /// World position (m).
    pub position: DVec3,
    /// World unit normal (either sign: folded per patch).
    pub normal: DVec3,
    /// Penetration (m).
    pub penetration: f64,
}

/// Reused buffers of [`prune`].
#[derive(Debug, Clone, Default)]
pub struct PruneScratch {
    keep: Vec<bool>,
    patch_of: Vec<usize>,
    heads: Vec<usize>,
    members: Vec<usize>,
    points: Vec<DVec2>,
    lex: Vec<usize>,
    hull: Vec<usize>,
    losses: Vec<f64>,
    removed: Vec<bool>,
}

/// The contacts of `contacts` (sorted so that each link pair is contiguous) that survive pruning with tolerance
/// `tol` (see the module docs): `keep[i]` for contact `i`. With `tol ≤ 0` every contact is kept.
pub fn prune<'s>(contacts: &[PruneContact], tol: f64, scratch: &'s mut PruneScratch) -> &'s [bool] {
    let n = contacts.len();
    scratch.keep.clear();
    scratch.keep.resize(n, true);
    if !(tol > 0.0) || n < 3 {
        return &scratch.keep;
    }
    let cos_tol = 1.0 - 0.5 * tol * tol;
    let mut start = 0;
    while start < n {
        let pair = contacts[start].link_pair;
        let end = start + contacts[start..].iter().take_while(|c| c.link_pair == pair).count();
        if end - start >= 3 {
            prune_bucket(contacts, start..end, tol, cos_tol, scratch);
        }
        start = end;
    }
    &scratch.keep
}

/// Splits one link-pair bucket into patches of agreeing normals and prunes each.
fn prune_bucket(
    contacts: &[PruneContact],
    bucket: std::ops::Range<usize>,
    tol: f64,
    cos_tol: f64,
    s: &mut PruneScratch,
) {
    s.heads.clear();
    s.patch_of.clear();
    for i in bucket.clone() {
        let n = contacts[i].normal;
        let patch = s.heads.iter().position(|&h| contacts[h].normal.dot(n).abs() >= cos_tol);
        s.patch_of.push(patch.unwrap_or_else(|| {
            s.heads.push(i);
            s.heads.len() - 1
        }));
    }
    for p in 0..s.heads.len() {
        s.members.clear();
        s.members.extend(bucket.clone().zip(&s.patch_of).filter(|&(_, &q)| q == p).map(|(i, _)| i));
        if s.members.len() >= 3 {
            prune_patch(contacts, tol, s);
        }
    }
}

/// Prunes the patch `s.members` (contact indices, in bucket order) to its support polygon, if it is coplanar.
fn prune_patch(contacts: &[PruneContact], tol: f64, s: &mut PruneScratch) {
    let members = &s.members;
    let reference = contacts[members[0]].normal;
    let (mut mean, mut centroid) = (DVec3::ZERO, DVec3::ZERO);
    for &i in members {
        let n = contacts[i].normal;
        mean += if reference.dot(n) < 0.0 { -n } else { n };
        centroid += contacts[i].position;
    }
    centroid /= members.len() as f64;
    let norm = mean.length();
    if !(norm > EPS) {
        return;
    }
    let normal = mean / norm;
    let (mut max_depth, mut max_r2) = (0.0f64, 0.0f64);
    for &i in members {
        let d = contacts[i].position - centroid;
        let depth = d.dot(normal).abs();
        max_depth = max_depth.max(depth);
        max_r2 = max_r2.max(d.length_squared() - depth * depth);
    }
    if max_depth > tol * max_r2.sqrt() {
        return;
    }
    let (u, v) = plane_basis(normal);
    s.points.clear();
    s.points.extend(members.iter().map(|&i| {
        let d = contacts[i].position - centroid;
        DVec2::new(d.dot(u), d.dot(v))
    }));
    let rounding = (EPS * max_r2).sqrt();
    support_polygon(&s.points, tol, rounding, &mut s.lex, &mut s.hull, &mut s.losses, &mut s.removed);

    for &i in members {
        s.keep[i] = false;
    }
    let mut deepest = 0.0f64;
    for &h in &s.hull {
        let i = members[h];
        s.keep[i] = true;
        deepest = deepest.max(contacts[i].penetration);
    }
    for &i in members {
        if contacts[i].penetration > DEEP_PENETRATION_RATIO * deepest {
            s.keep[i] = true;
        }
    }
}

/// The in-plane basis of G-W: `u` from the world axis least aligned with `normal` (x unless y or z is strictly less
/// aligned; z wins a tie with y), `v = normal × u`.
fn plane_basis(normal: DVec3) -> (DVec3, DVec3) {
    let a = normal.abs();
    let axis = if a.y < a.x && a.y < a.z {
        DVec3::Y
    } else if a.z < a.x && a.z <= a.y {
        DVec3::Z
    } else {
        DVec3::X
    };
    let u = (axis - axis.dot(normal) * normal).normalize();
    (u, normal.cross(u))
}

fn cross(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// Lexicographic order of projected points.
fn lex_less(a: DVec2, b: DVec2) -> bool {
    a.x < b.x || (a.x <= b.x && a.y < b.y)
}

/// The support polygon of `points` (module docs, step 3): the indices of its vertices in `hull`, counter-clockwise.
fn support_polygon(
    points: &[DVec2],
    tol: f64,
    rounding: f64,
    lex: &mut Vec<usize>,
    hull: &mut Vec<usize>,
    losses: &mut Vec<f64>,
    removed: &mut Vec<bool>,
) {
    convex_hull(points, lex, hull);
    let at = |hull: &[usize], k: usize| points[hull[k % hull.len()]];
    let m = hull.len();
    let (mut area2, mut perimeter) = (0.0, 0.0);
    for k in 0..m {
        let (p, q) = (at(hull, k), at(hull, k + 1));
        area2 += cross(p, q);
        perimeter += (q - p).length();
    }
    if m > 2 && area2.abs() <= rounding * perimeter {
        // A segment: its two farthest points, by a sweep to the farthest from the first, then from that one.
        let farthest = |from: DVec2| {
            let mut best = (0, -1.0);
            for (k, &h) in hull.iter().enumerate() {
                let d = (points[h] - from).length_squared();
                if d > best.1 {
                    best = (k, d);
                }
            }
            best.0
        };
        let e0 = farthest(points[hull[0]]);
        let e1 = farthest(points[hull[e0]]);
        let ends = [hull[e0], hull[e1]];
        hull.clear();
        hull.extend(ends);
        return;
    }
    let area_tol = tol * area2.abs();
    for _ in 0..m {
        let m = hull.len();
        if m <= 2 {
            break;
        }
        losses.clear();
        losses.extend((0..m).map(|k| {
            let (prev, p, next) = (at(hull, k + m - 1), at(hull, k), at(hull, k + 1));
            cross(p - prev, next - p).abs()
        }));
        removed.clear();
        removed.extend((0..m).map(|k| {
            let (prev, p, next) = (at(hull, k + m - 1), at(hull, k), at(hull, k + 1));
            let (inward, outward) = (p - prev, next - p);
            let between = inward.dot(outward) > 0.0;
            let collinear = losses[k] <= rounding * (inward.length() + outward.length());
            let least = [(k + m - 1) % m, (k + 1) % m]
                .iter()
                .all(|&j| losses[k] < losses[j] || (losses[k] <= losses[j] && lex_less(p, at(hull, j))));
            between && least && (collinear || losses[k] <= area_tol)
        }));
        if !removed.contains(&true) {
            break;
        }
        let mut k = 0;
        hull.retain(|_| {
            k += 1;
            !removed[k - 1]
        });
    }
}

/// Andrew's monotone chain: the vertices of the convex hull of `points`, counter-clockwise from the
/// lexicographically least, without collinear points (`lex` is scratch).
fn convex_hull(points: &[DVec2], lex: &mut Vec<usize>, hull: &mut Vec<usize>) {
    lex.clear();
    lex.extend(0..points.len());
    lex.sort_by(|&a, &b| {
        let (p, q) = (points[a], points[b]);
        p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y)).then(a.cmp(&b))
    });
    hull.clear();
    let turns_left = |hull: &[usize], p: DVec2| {
        let (s, t) = (points[hull[hull.len() - 2]], points[hull[hull.len() - 1]]);
        cross(t - s, p - s) > 0.0
    };
    for &i in lex.iter() {
        while hull.len() >= 2 && !turns_left(hull, points[i]) {
            hull.pop();
        }
        hull.push(i);
    }
    let lower = hull.len() + 1;
    for &i in lex.iter().rev().skip(1) {
        while hull.len() >= lower && !turns_left(hull, points[i]) {
            hull.pop();
        }
        hull.push(i);
    }
    if points.len() > 1 {
        hull.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(x: f64, y: f64, z: f64, penetration: f64) -> PruneContact {
        PruneContact { link_pair: (0, 1), position: DVec3::new(x, y, z), normal: DVec3::Z, penetration }
    }

    fn kept(contacts: &[PruneContact], tol: f64) -> Vec<usize> {
        let mut s = PruneScratch::default();
        prune(contacts, tol, &mut s).iter().enumerate().filter(|&(_, &k)| k).map(|(i, _)| i).collect()
    }

    /// A face resting on a plane with a grid of touching points keeps the four corners.
    #[test]
    fn a_grid_keeps_its_corners() {
        let mut contacts = Vec::new();
        for i in 0..5 {
            for j in 0..4 {
                contacts.push(contact(0.1 * i as f64, 0.1 * j as f64, 0.0, 0.001));
            }
        }
        let corners: Vec<usize> = vec![0, 3, 16, 19];
        assert_eq!(kept(&contacts, 0.02), corners);
        assert_eq!(kept(&contacts, 0.0).len(), contacts.len(), "a zero tolerance keeps everything");
    }

    /// Of a square's four corners none goes (each carries half the area); a fifth corner cutting a sliver off a
    /// corner goes when its loss is below `tol` of the area and stays above it.
    #[test]
    fn small_corners_go_large_ones_stay() {
        let square =
            [contact(0.0, 0.0, 0.0, 0.001), contact(1.0, 0.0, 0.0, 0.001), contact(1.0, 1.0, 0.0, 0.001)];
        let mut c = square.to_vec();
        c.push(contact(0.0, 1.0, 0.0, 0.001));
        assert_eq!(kept(&c, 0.02), vec![0, 1, 2, 3]);
        // A fifth vertex barely outside the top edge: its loss is 2·(½·1·0.005) = 0.005 of a doubled area ≈ 2.
        c.push(contact(0.5, 1.005, 0.0, 0.001));
        assert_eq!(kept(&c, 0.02), vec![0, 1, 2, 3]);
        assert_eq!(kept(&c, 0.001), vec![0, 1, 2, 3, 4]);
    }

    /// Points along one line keep their two ends; a tilted patch is not coplanar and keeps all; an interior point
    /// three times deeper than the hull comes back.
    #[test]
    fn segments_tilted_patches_and_deep_points() {
        let line: Vec<PruneContact> =
            (0..6).map(|i| contact(0.2 * i as f64, 0.1 * i as f64, 0.0, 0.001)).collect();
        assert_eq!(kept(&line, 0.02), vec![0, 5]);

        let mut bent: Vec<PruneContact> =
            (0..4).map(|i| contact((i % 2) as f64, (i / 2) as f64, 0.0, 0.001)).collect();
        bent.push(contact(0.5, 0.5, 0.1, 0.001));
        assert_eq!(kept(&bent, 0.02).len(), 5);

        let mut deep = bent.clone();
        deep[4] = contact(0.5, 0.5, 0.0, 0.0031);
        assert_eq!(kept(&deep, 0.02), vec![0, 1, 2, 3, 4]);
        deep[4].penetration = 0.0029;
        assert_eq!(kept(&deep, 0.02), vec![0, 1, 2, 3]);
    }

    /// Contacts along two normals of one link pair (a box in a corner) are pruned per patch; another link pair is
    /// its own bucket.
    #[test]
    fn patches_and_buckets_are_pruned_apart() {
        let mut c = Vec::new();
        for i in 0..3 {
            for j in 0..3 {
                c.push(contact(i as f64, j as f64, 0.0, 0.001));
            }
        }
        for i in 0..3 {
            for k in 0..3 {
                let mut w = contact(i as f64, 0.0, 1.0 + k as f64, 0.001);
                w.normal = DVec3::Y;
                c.push(w);
            }
        }
        let first_link_pair = c.len();
        for i in 0..3 {
            let mut o = contact(0.5 * i as f64, 5.0, 0.0, 0.001);
            o.link_pair = (0, 2);
            c.push(o);
        }
        assert_eq!(kept(&c, 0.02), vec![0, 2, 6, 8, 9, 11, 15, 17, first_link_pair, first_link_pair + 2]);
    }

    /// The hull does not depend on where the patch stands or how it is oriented (the projections are relative to its
    /// centroid), and duplicates of a corner keep one copy.
    #[test]
    fn translated_rotated_and_duplicated_patches() {
        let rotation = glam::DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        let base: Vec<(f64, f64)> =
            vec![(0.0, 0.0), (0.3, 0.0), (0.3, 0.2), (0.0, 0.2), (0.1, 0.1), (0.2, 0.05)];
        for offset in [DVec3::ZERO, DVec3::new(1e3, -2e3, 5e2)] {
            let c: Vec<PruneContact> = base
                .iter()
                .map(|&(x, y)| PruneContact {
                    link_pair: (3, 4),
                    position: offset + rotation * DVec3::new(x, y, 0.0),
                    normal: rotation * DVec3::Z,
                    penetration: 0.002,
                })
                .collect();
            assert_eq!(kept(&c, 0.02), vec![0, 1, 2, 3], "offset {offset}");
        }
        let mut dup: Vec<PruneContact> =
            (0..4).map(|i| contact((i % 2) as f64, (i / 2) as f64, 0.0, 0.001)).collect();
        dup.push(dup[3]);
        assert_eq!(kept(&dup, 0.02).len(), 4);
    }

    /// Whether `p` is a vertex of the convex hull of `points` by brute force: not inside or on any triangle of
    /// three others.
    fn extreme(points: &[DVec2], p: usize) -> bool {
        let n = points.len();
        let inside = |a: DVec2, b: DVec2, c: DVec2, q: DVec2| {
            let s = cross(b - a, c - a).signum();
            [(a, b), (b, c), (c, a)].iter().all(|&(u, w)| cross(w - u, q - u) * s >= 0.0)
        };
        for i in 0..n {
            for j in i + 1..n {
                for k in j + 1..n {
                    if ![i, j, k].contains(&p) && inside(points[i], points[j], points[k], points[p]) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Area of points in convex position, ordered by angle about their centroid.
    fn convex_area(points: &[DVec2]) -> f64 {
        let c = points.iter().copied().sum::<DVec2>() / points.len() as f64;
        let mut sorted = points.to_vec();
        sorted.sort_by(|a, b| (a.y - c.y).atan2(a.x - c.x).total_cmp(&(b.y - c.y).atan2(b.x - c.x)));
        (0..sorted.len()).map(|k| cross(sorted[k], sorted[(k + 1) % sorted.len()])).sum::<f64>().abs() / 2.0
    }

    proptest::proptest! {
        /// Random coplanar patches against brute force: every kept contact is a vertex of the patch's hull, every
        /// corner of the hull turning by 90° or more is kept, and the kept polygon loses at most `tol` of the area
        /// per dropped hull vertex.
        #[test]
        fn kept_contacts_span_the_hull(
            xy in proptest::collection::vec((-1.0f64..1.0, -1.0f64..1.0), 3..12),
            (rx, ry, rz) in (-3.0f64..3.0, -3.0f64..3.0, -3.0f64..3.0),
            tol in 0.001f64..0.2,
        ) {
            let rotation = glam::DQuat::from_euler(glam::EulerRot::XYZ, rx, ry, rz);
            let points: Vec<DVec2> = xy.iter().map(|&(x, y)| DVec2::new(x, y)).collect();
            let contacts: Vec<PruneContact> = points
                .iter()
                .map(|p| PruneContact {
                    link_pair: (1, 2),
                    position: rotation * DVec3::new(p.x, p.y, 0.0),
                    normal: rotation * DVec3::Z,
                    penetration: 0.001,
                })
                .collect();
            let kept = kept(&contacts, tol);
            let hull: Vec<usize> = (0..points.len()).filter(|&p| extreme(&points, p)).collect();
            for &k in &kept {
                proptest::prop_assert!(hull.contains(&k), "kept {k} is not a hull vertex");
            }
            let full = convex_area(&hull.iter().map(|&h| points[h]).collect::<Vec<_>>());
            let kept_points: Vec<DVec2> = kept.iter().map(|&k| points[k]).collect();
            let area = if kept.len() >= 3 { convex_area(&kept_points) } else { 0.0 };
            let dropped = hull.len().saturating_sub(kept.len()) as f64;
            proptest::prop_assert!(area >= full * (1.0 - dropped * tol) - 1e-9, "{area} of {full}, {dropped} dropped");
            // Sharp corners: the hull, ordered by angle, turns by 90° or more at the vertex.
            let c = hull.iter().map(|&h| points[h]).sum::<DVec2>() / hull.len() as f64;
            let mut ring = hull.clone();
            ring.sort_by(|&a, &b| {
                (points[a] - c).to_angle().total_cmp(&(points[b] - c).to_angle())
            });
            let m = ring.len();
            for k in 0..m {
                let (prev, p, next) = (points[ring[(k + m - 1) % m]], points[ring[k]], points[ring[(k + 1) % m]]);
                if (p - prev).dot(next - p) < -1e-12 && cross(p - prev, next - p).abs() > 1e-9 {
                    proptest::prop_assert!(kept.contains(&ring[k]), "sharp corner {} dropped", ring[k]);
                }
            }
        }
    }
}
