//! Quickhull and convex-mesh support queries on random and degenerate point sets.

use std::collections::HashSet;

use proptest::prelude::*;
use signorini_geometry::quickhull::{EPS_REL, Hull, convex_hull, hull_tolerance};
use signorini_geometry::{ConvexMesh, DQuat, DVec3, GeometryError, SupportMap};

/// Checks every invariant of a hull of `points`; returns the hull for further checks.
fn check_hull(points: &[DVec3]) -> Hull {
    let hull = convex_hull(points).unwrap_or_else(|e| panic!("hull of {} points failed: {e}", points.len()));
    let (v, f) = (hull.vertices.len(), hull.triangles.len());
    assert!(v >= 4 && f >= 4);
    // Every vertex is an input point (bit for bit), listed once.
    let input: HashSet<[u64; 3]> = points.iter().map(|p| p.to_array().map(f64::to_bits)).collect();
    let mut seen = HashSet::new();
    for p in &hull.vertices {
        let bits = p.to_array().map(f64::to_bits);
        assert!(input.contains(&bits), "vertex {p} is not an input point");
        assert!(seen.insert(bits), "vertex {p} listed twice");
    }
    // Closed 2-manifold: every directed edge once, its twin present, so every undirected edge is shared by exactly
    // 2 triangles; Euler characteristic 2.
    let mut directed: Vec<[u32; 2]> =
        hull.triangles.iter().flat_map(|t| (0..3).map(move |k| [t[k], t[(k + 1) % 3]])).collect();
    for t in &hull.triangles {
        assert!(t.iter().all(|&i| (i as usize) < v));
        assert!(t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
    }
    directed.sort_unstable();
    let n_directed = directed.len();
    directed.dedup();
    assert_eq!(n_directed, directed.len(), "a directed edge is used twice");
    for [a, b] in &directed {
        assert!(directed.binary_search(&[*b, *a]).is_ok(), "edge {a}-{b} has one triangle");
    }
    let e = directed.len() / 2;
    assert_eq!(v as i64 - e as i64 + f as i64, 2, "Euler characteristic");
    // Outward faces and containment, with the mesh's normals (accurate even for slivers).
    let mesh = ConvexMesh::from_points(points).expect("hull succeeded above");
    assert_eq!(mesh.vertices(), hull.vertices.as_slice());
    assert_eq!(mesh.triangles(), hull.triangles.as_slice());
    let scale = hull_tolerance(points) / EPS_REL;
    let tol = 1e-9 * scale;
    let centroid = hull.vertices.iter().copied().sum::<DVec3>() / v as f64;
    for (t, n) in hull.triangles.iter().zip(mesh.face_normals()) {
        let a = hull.vertices[t[0] as usize];
        assert!((n.length() - 1.0).abs() < 1e-12, "degenerate triangle");
        assert!(n.dot(centroid - a) < 0.0, "face not outward");
        for p in points {
            let s = n.dot(*p - a);
            assert!(s <= tol, "point {p} is {s} outside a face (tolerance {tol})");
        }
    }
    hull
}

fn rotation(axis: (f64, f64, f64), angle: f64) -> DQuat {
    let a = DVec3::new(axis.0, axis.1, axis.2).try_normalize().unwrap_or(DVec3::Z);
    DQuat::from_axis_angle(a, angle)
}

fn grid(n: usize) -> Vec<DVec3> {
    let s = (n - 1) as f64;
    let mut pts = Vec::new();
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                pts.push(DVec3::new(i as f64, j as f64, k as f64) / s * 2.0 - DVec3::ONE);
            }
        }
    }
    pts
}

fn vec3(range: f64) -> impl Strategy<Value = DVec3> {
    (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn unit() -> impl Strategy<Value = DVec3> {
    vec3(1.0).prop_filter_map("too short", |v| v.try_normalize().filter(|_| v.length() > 1e-3))
}

fn scale() -> impl Strategy<Value = f64> {
    prop_oneof![Just(1e-6), Just(1.0), Just(1e6), 1e-3..1e3]
}

/// Directions for support tests: random, axis-aligned, diagonal, zero.
fn direction() -> impl Strategy<Value = DVec3> {
    prop_oneof![
        4 => vec3(1.0),
        1 => prop::sample::select(vec![
            DVec3::ZERO,
            DVec3::X,
            DVec3::NEG_X,
            DVec3::Y,
            DVec3::NEG_Y,
            DVec3::Z,
            DVec3::NEG_Z,
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(0.0, -1.0, 1.0),
            DVec3::ONE,
        ]),
    ]
}

#[test]
fn grid_5x5x5_gives_the_8_corners() {
    let pts = grid(5);
    let hull = check_hull(&pts);
    assert_eq!(hull.vertices.len(), 8);
    assert_eq!(hull.triangles.len(), 12);
    assert!(hull.vertices.iter().all(|v| v.abs() == DVec3::ONE));
}

#[test]
fn cube_with_face_centres_and_edge_midpoints_gives_8_vertices() {
    let mut pts = Vec::new();
    for x in [-1.0, 0.0, 1.0] {
        for y in [-1.0, 0.0, 1.0] {
            for z in [-1.0, 0.0, 1.0] {
                let p = DVec3::new(x, y, z);
                if p != DVec3::ZERO {
                    pts.push(p);
                }
            }
        }
    }
    // Put the corners last, so that face and edge points are met first.
    pts.sort_by_key(|p| (p.abs().element_sum() * 2.0) as i32);
    let hull = check_hull(&pts);
    assert_eq!(hull.vertices.len(), 8);
    assert_eq!(hull.triangles.len(), 12);
}

#[test]
fn sphere_5000_points_is_fast_and_every_point_is_a_vertex() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let mut pts = Vec::new();
    while pts.len() < 5000 {
        let v = DVec3::new(next(), next(), next());
        if let Some(u) = v.try_normalize().filter(|_| v.length() > 0.1 && v.length() < 1.0) {
            pts.push(u);
        }
    }
    let t0 = std::time::Instant::now();
    let hull = convex_hull(&pts).unwrap();
    let elapsed = t0.elapsed();
    assert_eq!(hull.vertices.len(), 5000);
    assert_eq!(hull.triangles.len(), 2 * 5000 - 4);
    // Generous bound for unoptimised test builds; release builds take a few milliseconds.
    assert!(elapsed.as_secs_f64() < 2.0, "5000-point hull took {elapsed:?}");
    let mesh = ConvexMesh::from_points(&pts).unwrap();
    for (k, v) in pts.iter().enumerate().step_by(97) {
        assert_eq!(mesh.support_index_hill_climb(*v, k), mesh.support_index_brute_force(*v));
    }
}

#[test]
fn degenerate_sets_give_typed_errors() {
    let degenerate = |pts: &[DVec3], word: &str| match convex_hull(pts) {
        Err(GeometryError::DegenerateHull { what }) => assert!(what.contains(word), "{what}"),
        other => panic!("expected DegenerateHull({word}), got {other:?}"),
    };
    degenerate(&[], "at least 4");
    degenerate(&[DVec3::X, DVec3::Y, DVec3::Z], "at least 4");
    degenerate(&[DVec3::splat(3.0); 10], "coincide");
    degenerate(&(0..10).map(|i| DVec3::new(1.0, 2.0, 3.0) * i as f64).collect::<Vec<_>>(), "collinear");
    degenerate(&grid(4).into_iter().filter(|p| p.z == -1.0).collect::<Vec<_>>(), "coplanar");
    let bad = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::new(0.0, 0.0, f64::INFINITY)];
    assert!(matches!(
        convex_hull(&bad),
        Err(GeometryError::NonFinite { shape: "convex mesh", parameter: "points", .. })
    ));
}

/// The hull of random points (`kind` 0), of rounded points with a grid (1: many coplanar faces and ties), or of
/// flattened points (2): the support queries' test meshes.
fn support_test_mesh(pts: Vec<DVec3>, kind: usize) -> ConvexMesh {
    let pts: Vec<DVec3> = match kind {
        0 => pts,
        1 => pts.iter().map(|p| p.round()).chain(grid(3)).collect(),
        _ => pts.iter().map(|p| *p * DVec3::new(3.0, 1.0, 0.2)).collect(),
    };
    ConvexMesh::from_points(&pts).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn random_box_points(pts in prop::collection::vec(vec3(1.0), 4..200), s in scale(), off in vec3(3.0)) {
        let pts: Vec<DVec3> = pts.iter().map(|p| (*p + off) * s).collect();
        check_hull(&pts);
    }

    #[test]
    fn random_sphere_points(pts in prop::collection::vec(unit(), 4..300), s in scale(), off in vec3(2.0)) {
        let pts: Vec<DVec3> = pts.iter().map(|p| (*p + off) * s).collect();
        check_hull(&pts);
    }

    #[test]
    fn duplicates_are_harmless(
        pts in prop::collection::vec(vec3(1.0), 4..60),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..60),
    ) {
        let mut all = pts.clone();
        all.extend(picks.iter().map(|i| pts[i.index(pts.len())]));
        let once = convex_hull(&pts).map(|h| h.vertices.len());
        let twice = check_hull(&all).vertices.len();
        prop_assert_eq!(once.ok(), Some(twice));
    }

    #[test]
    fn coplanar_and_collinear_subsets_on_the_boundary(
        pts in prop::collection::vec(vec3(1.0), 4..80),
        face in prop::collection::vec((-1.0..1.0f64, -1.0..1.0f64), 0..40),
        edge in prop::collection::vec(-1.0..1.0f64, 0..20),
        axis in vec3(1.0),
        angle in -3.2..3.2f64,
        s in scale(),
    ) {
        // Points on the face z = 1 and on the edge x = y = 1 of the box [-1, 1]³ together with its corners, then the
        // whole set rotated and scaled: only the 8 corners may become vertices.
        let q = rotation((axis.x, axis.y, axis.z), angle);
        let mut all: Vec<DVec3> = pts.iter().map(|p| *p * 0.99).collect();
        all.extend(face.iter().map(|(x, y)| DVec3::new(*x, *y, 1.0)));
        all.extend(edge.iter().map(|t| DVec3::new(1.0, 1.0, *t)));
        all.extend(grid(2));
        let all: Vec<DVec3> = all.iter().map(|p| q * *p * s).collect();
        let hull = check_hull(&all);
        prop_assert_eq!(hull.vertices.len(), 8);
        prop_assert_eq!(hull.triangles.len(), 12);
    }

    #[test]
    fn random_coplanar_subset_inside_a_cloud(
        pts in prop::collection::vec(unit(), 4..80),
        plane in prop::collection::vec((-1.0..1.0f64, -1.0..1.0f64), 3..40),
        normal in unit(),
        height in -1.2..1.2f64,
    ) {
        let u = normal.any_orthonormal_vector();
        let w = normal.cross(u);
        let mut all = pts.clone();
        all.extend(plane.iter().map(|(a, b)| normal * height + u * *a + w * *b));
        check_hull(&all);
    }

    #[test]
    fn rotated_grids(n in 2usize..6, axis in vec3(1.0), angle in -3.2..3.2f64, s in scale(), off in vec3(1.0)) {
        let q = rotation((axis.x, axis.y, axis.z), angle);
        let pts: Vec<DVec3> = grid(n).iter().map(|p| (q * *p + off) * s).collect();
        let hull = check_hull(&pts);
        prop_assert_eq!(hull.vertices.len(), 8);
        prop_assert_eq!(hull.triangles.len(), 12);
    }

    #[test]
    fn degenerate_random_sets_never_panic(
        base in prop::collection::vec((-1.0..1.0f64, -1.0..1.0f64), 4..50),
        o in vec3(1.0),
        u in unit(),
        v in unit(),
        s in scale(),
        kind in 0usize..4,
    ) {
        let w = u.cross(v).try_normalize().unwrap_or(u.any_orthonormal_vector()).cross(u);
        let pts: Vec<DVec3> = base
            .iter()
            .map(|(a, b)| match kind {
                0 => (o + u * *a + w * *b) * s,
                1 => (o + u * *a) * s,
                2 => o * s,
                _ => (o + u * *a + w * *b + v * f64::NAN) * s,
            })
            .collect();
        match (kind, convex_hull(&pts)) {
            (0, Err(GeometryError::DegenerateHull { what })) => prop_assert!(what.contains("coplanar"), "{}", what),
            (1, Err(GeometryError::DegenerateHull { what })) => prop_assert!(what.contains("collinear"), "{}", what),
            (2, Err(GeometryError::DegenerateHull { what })) => prop_assert!(what.contains("coincide"), "{}", what),
            (3, Err(GeometryError::NonFinite { .. })) => {}
            (k, other) => prop_assert!(false, "kind {}: {:?}", k, other),
        }
    }

    #[test]
    fn hill_climb_equals_brute_force(
        pts in prop::collection::vec(unit(), 4..150),
        dirs in prop::collection::vec((direction(), any::<usize>()), 1..40),
        kind in 0usize..3,
    ) {
        let mesh = support_test_mesh(pts, kind);
        let n = mesh.vertices().len();
        for (d, start) in dirs {
            let expected = mesh.support_index_brute_force(d);
            prop_assert_eq!(mesh.support_index_hill_climb(d, start % (n + 2)), expected);
            prop_assert_eq!(mesh.local_support(d), mesh.vertices()[expected]);
        }
    }

    /// The tie-free ascent GJK uses reaches the maximum dot: the brute force's, up to the rounding of a dot product
    /// (exactly equal on these point sets but for ties, which then pick another vertex of the same value).
    #[test]
    fn ascent_reaches_the_maximum(
        pts in prop::collection::vec(unit(), 4..150),
        dirs in prop::collection::vec((direction(), any::<usize>()), 1..40),
        kind in 0usize..3,
    ) {
        let mesh = support_test_mesh(pts, kind);
        let (n, v) = (mesh.vertices().len(), mesh.vertices());
        for (d, start) in dirs {
            let best = d.dot(v[mesh.support_index_brute_force(d)]);
            let got = d.dot(v[mesh.support_index_ascent(d, start % (n + 2))]);
            prop_assert!(got >= best - 1e-14 * d.length() * mesh.bounding_radius(), "{} < {}", got, best);
        }
    }

    /// The cube map's candidate scan is the brute force bit for bit (lowest index on ties), on directions through
    /// the map's cell corners, edges and faces (with offsets down to rounding) as well as random ones, for hulls of
    /// many ties (points snapped to a grid), flat hulls, tiny, huge and off-origin ones, from the smallest hulls
    /// given a map (9 vertices) up.
    #[test]
    fn cube_map_equals_brute_force(
        pts in prop::collection::vec(unit(), 9..300),
        kind in 0usize..3,
        s in scale(),
        off in vec3(5.0),
        lines in prop::collection::vec((0usize..6, 0usize..=16, 0usize..=16, -2i32..=2, direction()), 1..40),
    ) {
        let pts: Vec<DVec3> = match kind {
            0 => pts,
            1 => pts.iter().map(|p| (*p * 4.0).round() / 4.0).chain(pts.iter().copied()).collect(),
            _ => pts.iter().map(|p| *p * DVec3::new(3.0, 1.0, 0.2)).collect(),
        };
        let pts: Vec<DVec3> = pts.iter().map(|p| (*p + off) * s).collect();
        let mesh = ConvexMesh::from_points(&pts).unwrap();
        prop_assume!(mesh.vertices().len() >= 9);
        prop_assert!(mesh.cube_map_mean_candidates() >= 1.0);
        for (face, i, j, nudge, random) in lines {
            // Grid line k of a face is at k/8 − 1 (16 cells a side); `nudge` moves it by a few ulps or 1e-12.
            let t = |k: usize| {
                let x = k as f64 / 8.0 - 1.0;
                match nudge { -2 => x - 1e-12, -1 => x - f64::EPSILON, 1 => x + f64::EPSILON, 2 => x + 1e-12, _ => x }
            };
            let sign = if face % 2 == 0 { 1.0 } else { -1.0 };
            let (u, v) = (t(i), t(j));
            let on_grid = match face / 2 {
                0 => DVec3::new(sign, u, v),
                1 => DVec3::new(v, sign, u),
                _ => DVec3::new(u, v, sign),
            };
            for d in [on_grid, on_grid * 1e-3, random] {
                let expected = mesh.support_index_brute_force(d);
                if d != DVec3::ZERO {
                    prop_assert_eq!(mesh.support_index_cube_map(d), Some(expected), "direction {}", d);
                }
                prop_assert_eq!(mesh.local_support(d), mesh.vertices()[expected]);
            }
            // Tiny and subnormal directions (the map declines those below 1e-300) and huge ones.
            for d in [on_grid * 1e-299, on_grid * 1e-305, on_grid * 1e-310, on_grid * 1e300] {
                prop_assert_eq!(mesh.local_support(d), mesh.vertices()[mesh.support_index_brute_force(d)], "direction {}", d);
            }
        }
    }

    #[test]
    fn hill_climb_on_rotated_cubes(axis in vec3(1.0), angle in -3.2..3.2f64, d in direction(), start in 0usize..8) {
        let q = rotation((axis.x, axis.y, axis.z), angle);
        let pts: Vec<DVec3> = grid(2).iter().map(|p| q * *p).collect();
        let mesh = ConvexMesh::from_points(&pts).unwrap();
        for dir in [d, q * d, q * DVec3::X, q * DVec3::new(1.0, 1.0, 0.0)] {
            prop_assert_eq!(mesh.support_index_hill_climb(dir, start), mesh.support_index_brute_force(dir));
        }
    }
}

#[test]
fn convex_mesh_matches_its_hull() {
    let pts = grid(3);
    let mesh = ConvexMesh::from_points(&pts).unwrap();
    let hull = convex_hull(&pts).unwrap();
    assert_eq!(mesh.vertices(), hull.vertices.as_slice());
    assert_eq!(mesh.triangles(), hull.triangles.as_slice());
    assert_eq!(mesh.edges().len(), 18);
    assert_eq!(mesh.face_normals().len(), 12);
    for ([a, b, c], n) in mesh.triangles().iter().zip(mesh.face_normals()) {
        let [a, b, c] = [a, b, c].map(|i| mesh.vertices()[*i as usize]);
        assert!(((b - a).cross(c - a).normalize() - *n).length() < 1e-14);
    }
}
