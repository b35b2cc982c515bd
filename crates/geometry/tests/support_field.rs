//! The support field (spec §A.12) against exact supports.

use std::f64::consts::PI;

use proptest::prelude::*;
use signorini_geometry::support_field::{RESOLUTION, cell_direction};
use signorini_geometry::{ConvexMesh, DMat3, DQuat, DVec3, SupportField};

fn cube_points(rotation: DMat3) -> Vec<DVec3> {
    (0..8)
        .map(|k| {
            rotation
                * DVec3::new(
                    if k & 1 != 0 { 1.0 } else { -1.0 },
                    if k & 2 != 0 { 1.0 } else { -1.0 },
                    if k & 4 != 0 { 1.0 } else { -1.0 },
                )
        })
        .collect()
}

/// The four cells a query evaluates, in evaluation order, computed independently of the implementation.
fn four_cells(dir: DVec3) -> [(usize, usize); 4] {
    let d = dir.normalize();
    let theta = d.y.atan2(d.x);
    let phi = d.z.clamp(-1.0, 1.0).acos();
    let ii = (theta + PI) / (2.0 * PI) * 180.0;
    let jj = phi / PI * 180.0;
    let i = [ii.floor() as usize % 180, ii.ceil() as usize % 180];
    let j = [(jj.floor() as usize).clamp(1, 178), (jj.ceil() as usize).clamp(1, 178)];
    [(i[0], j[0]), (i[0], j[1]), (i[1], j[0]), (i[1], j[1])]
}

/// The direction at fractional cell coordinates `(ii, jj)`.
fn direction_at(ii: f64, jj: f64) -> DVec3 {
    let theta = ii / 180.0 * 2.0 * PI - PI;
    let phi = jj / 180.0 * PI;
    DVec3::new(phi.sin() * theta.cos(), phi.sin() * theta.sin(), phi.cos())
}

/// A rotation whose first column is the direction at `(ii, jj)` and whose other columns are the local azimuth
/// and polar tangents there, so that a body axis can be placed strictly between four grid cells.
fn frame_at(ii: f64, jj: f64) -> DMat3 {
    let theta = ii / 180.0 * 2.0 * PI - PI;
    let n = direction_at(ii, jj);
    let e_theta = DVec3::new(-theta.sin(), theta.cos(), 0.0);
    DMat3::from_cols(n, e_theta, n.cross(e_theta))
}

fn check_table(mesh: &ConvexMesh) {
    let field = SupportField::new(mesh);
    for i in 0..RESOLUTION {
        for j in 0..RESOLUTION {
            let (id, p) = field.cell_support(i, j).expect("cell in the grid");
            assert_eq!(id, mesh.support_index_brute_force(cell_direction(i, j)), "cell ({i}, {j})");
            assert_eq!(p, mesh.vertices()[id]);
        }
    }
}

#[test]
fn stored_table_equals_brute_force_on_small_hulls() {
    let octahedron = [DVec3::X, DVec3::NEG_X, DVec3::Y, DVec3::NEG_Y, DVec3::Z, DVec3::NEG_Z];
    let mut grid = Vec::new();
    for x in [-1.0, 0.0, 1.0] {
        for y in [-1.0, 0.0, 1.0] {
            for z in [-1.0, 0.0, 1.0] {
                grid.push(DVec3::new(x, y, z * 0.5));
            }
        }
    }
    let golden = (0..60)
        .map(|k| {
            let z = 1.0 - 2.0 * (k as f64 + 0.5) / 60.0;
            let t = k as f64 * PI * (3.0 - 5f64.sqrt());
            DVec3::new((1.0 - z * z).sqrt() * t.cos(), (1.0 - z * z).sqrt() * t.sin(), z) * 2.0 + DVec3::X
        })
        .collect::<Vec<_>>();
    for pts in
        [octahedron.to_vec(), grid, golden, cube_points(DMat3::IDENTITY), cube_points(frame_at(10.3, 47.9))]
    {
        check_table(&ConvexMesh::from_points(&pts).unwrap());
    }
}

#[test]
fn tie_count_on_a_cube_face_between_four_cells_is_4() {
    // Face normal +x of the body at cell coordinates (90.5, 90.5): the four cells tilt towards the four corners.
    let r = frame_at(90.5, 90.5);
    let mesh = ConvexMesh::from_points(&cube_points(r)).unwrap();
    let field = SupportField::new(&mesh);
    let n = r * DVec3::X;
    let (id, ties) = field.support_with_tie_count(n);
    assert_eq!(ties, 4);
    let corners: Vec<usize> =
        four_cells(n).iter().map(|&(i, j)| field.cell_support(i, j).unwrap().0).collect();
    let mut distinct = corners.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{corners:?}");
    assert!(corners.contains(&id));
    assert!((n.dot(mesh.vertices()[id]) - 1.0).abs() < 1e-12);
}

#[test]
fn tie_count_on_a_cube_edge_between_cells_is_2() {
    // Edge normal (1, 1, 0)/√2 of the body at cell coordinates (90.5, 90.5), the edge along the polar tangent.
    let r = frame_at(90.5, 90.5) * DMat3::from_rotation_z(-PI / 4.0);
    let mesh = ConvexMesh::from_points(&cube_points(r)).unwrap();
    let field = SupportField::new(&mesh);
    let n = r * DVec3::new(1.0, 1.0, 0.0).normalize();
    assert!((n - direction_at(90.5, 90.5)).length() < 1e-12);
    assert_eq!(field.support_with_tie_count(n).1, 2);
}

#[test]
fn tie_count_in_a_generic_direction_is_1() {
    let r = frame_at(90.5, 90.5);
    let field = SupportField::new(&ConvexMesh::from_points(&cube_points(r)).unwrap());
    for d in [DVec3::new(0.3, 0.5, 0.8), DVec3::new(-0.9, 0.2, -0.1), r * DVec3::new(1.0, 0.4, -0.3)] {
        assert_eq!(field.support_with_tie_count(d).1, 1, "{d}");
    }
}

#[test]
fn exact_on_an_axis_aligned_cube_away_from_octant_boundaries() {
    // Each corner's normal cone is an octant; when every component of the unit direction exceeds sin 2.5° in
    // magnitude, all four evaluated cells (within 2.24° of it) lie in the same octant, so the field is exact.
    let mesh = ConvexMesh::from_points(&cube_points(DMat3::IDENTITY)).unwrap();
    let field = SupportField::new(&mesh);
    let mut state = 7u64;
    let mut next = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let mut checked = 0;
    while checked < 2000 {
        let d = DVec3::new(next(), next(), next()).normalize();
        if d.abs().min_element() > 2.5f64.to_radians().sin() {
            assert_eq!(field.support_index(d), mesh.support_index_brute_force(d), "{d}");
            checked += 1;
        }
    }
}

#[test]
fn zero_and_polar_directions() {
    let mesh = ConvexMesh::from_points(&cube_points(frame_at(3.0, 20.0))).unwrap();
    let field = SupportField::new(&mesh);
    assert_eq!(field.support_index(DVec3::ZERO), field.support_index(DVec3::Z));
    assert_eq!(field.support(DVec3::ZERO), mesh.vertices()[field.support_index(DVec3::Z)]);
    for d in [DVec3::Z, DVec3::NEG_Z, DVec3::new(1e-9, 0.0, -1.0), DVec3::new(-1.0, -1e-17, 0.0)] {
        let (id, ties) = field.support_with_tie_count(d);
        assert!(id < mesh.vertices().len() && (1..=4).contains(&ties));
    }
    let bytes = field.memory_bytes();
    assert!((RESOLUTION * RESOLUTION * 28..RESOLUTION * RESOLUTION * 29).contains(&bytes), "{bytes}");
}

fn unit() -> impl Strategy<Value = DVec3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64)
        .prop_filter_map("short", |(x, y, z)| DVec3::new(x, y, z).try_normalize().filter(|v| v.is_finite()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn field_is_the_best_of_four_exact_cell_supports(
        pts in prop::collection::vec(unit(), 4..120),
        stretch in (0.2..3.0f64, 0.2..3.0f64, 0.2..3.0f64),
        offset in (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
        dirs in prop::collection::vec(
            prop_oneof![
                4 => unit(),
                1 => prop::sample::select(vec![DVec3::X, DVec3::NEG_X, DVec3::Y, DVec3::NEG_Y, DVec3::Z, DVec3::NEG_Z]),
            ],
            50,
        ),
    ) {
        let s = DVec3::new(stretch.0, stretch.1, stretch.2);
        let o = DVec3::new(offset.0, offset.1, offset.2);
        let pts: Vec<DVec3> = pts.iter().map(|p| *p * s + o).collect();
        let mesh = ConvexMesh::from_points(&pts).unwrap();
        let field = SupportField::new(&mesh);
        let radius = mesh.bounding_radius();
        for dir in dirs {
            let d = dir.normalize();
            // Independent re-evaluation: brute-force supports of the four cell directions, best dot wins (first on
            // ties).
            let cells = four_cells(d);
            let mut best: Option<(usize, f64)> = None;
            for (i, j) in cells {
                let v = mesh.support_index_brute_force(cell_direction(i, j));
                let dot = d.dot(mesh.vertices()[v]);
                if best.is_none_or(|(_, b)| dot > b) {
                    best = Some((v, dot));
                }
            }
            let (expected, _) = best.unwrap();
            prop_assert_eq!(field.support_index(d), expected);
            prop_assert_eq!(field.support(d), mesh.vertices()[expected]);
            prop_assert_eq!(field.support_with_tie_count(d).0, expected);
            // Error bound: for any evaluated cell c, h(d) − d·s(c) ≤ |d − c| |s(d) − s(c)| ≤ 2R |d − c|.
            let exact = d.dot(mesh.vertices()[mesh.support_index_brute_force(d)]);
            let gap = exact - d.dot(field.support(d));
            let nearest = cells.iter().map(|&(i, j)| (d - cell_direction(i, j)).length()).fold(f64::INFINITY, f64::min);
            prop_assert!(gap >= -1e-12 * radius);
            prop_assert!(gap <= 2.0 * radius * nearest + 1e-12 * radius, "gap {} nearest {}", gap, nearest);
            prop_assert!(gap <= 2.0 * radius * 2.0 * (1.25f64.to_radians()).sin() + 1e-12 * radius);
        }
    }

    #[test]
    fn field_is_exact_at_cell_directions(
        pts in prop::collection::vec(unit(), 4..80),
        cells in prop::collection::vec((0usize..180, 1usize..179), 40),
        axis in unit(),
        angle in -3.2..3.2f64,
    ) {
        // A cell's own direction is among the four evaluated cells, so the field returns an exact support there.
        let q = DQuat::from_axis_angle(axis, angle);
        let pts: Vec<DVec3> = pts.iter().map(|p| q * *p * 1.5).collect();
        let mesh = ConvexMesh::from_points(&pts).unwrap();
        let field = SupportField::new(&mesh);
        for (i, j) in cells {
            let d = cell_direction(i, j);
            let exact = d.dot(mesh.vertices()[mesh.support_index_brute_force(d)]);
            prop_assert!((exact - d.dot(field.support(d))).abs() <= 1e-12 * mesh.bounding_radius());
        }
    }
}
