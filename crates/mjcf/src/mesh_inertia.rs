//! MuJoCo's `legacy` mesh inertia, its default for `<mesh inertia>` (`mjs_defaultMesh`).
//!
//! Each triangle `(D, E, F)` with unit normal `n`, area `A` and centre `c` spans a tetrahedron with a reference
//! point `o` of volume `|(c − o)·n| A / 3`: the absolute value, so that a non-convex or open surface still gives a
//! positive volume (unlike the exact signed sum). Two passes, as `mjCMesh::ComputeVolume` and `ComputeInertia` do:
//!
//! 1. `o` = the area-weighted centroid of the triangles; the centre of mass is the volume-weighted mean of the
//!    tetrahedra's centroids `¾ c + ¼ o`;
//! 2. `o` = that centre of mass; the volume is summed again and the second moments
//!    `P_kl = Σ V/20 · (2(D_k D_l + E_k E_l + F_k F_l) + D_k E_l + D_l E_k + D_k F_l + D_l F_k + E_k F_l + E_l F_k)`
//!    (vertices relative to the centre of mass) give the inertia `I = tr(P) 1 − P` at unit density.
//!
//! For a closed convex surface this is the solid's exact volume and inertia; for the thin, curved bones of a
//! skeleton it is far from the convex hull's (the DeepMind control suite's dog weighs 10.30 kg in MuJoCo 4.0, and
//! 11.73 kg with hull inertias).
//!
//! `inertia="shell"` ([`shell_unit_mass`]) puts the mass on the surface instead: mass = area, the centre of mass
//! `Σ A (¾ c + ¼ o) / Σ A` (`mjCMesh::ComputeSurfaceArea`, with `o` the area-weighted centroid), and each triangle's
//! second moments with weight `A/12` in place of `V/20`.

use glam::{DMat3, DVec3};
use signorini_geometry::MassProperties;

/// MuJoCo's `mjMINVAL`: a triangle whose doubled area is below it counts as empty, and a volume below it is too
/// small.
const MINVAL: f64 = 1e-15;

/// Area, unit normal and centre of a triangle (MuJoCo's `triangle`; zero area and an unnormalised normal for a
/// degenerate one).
fn triangle(a: DVec3, b: DVec3, c: DVec3) -> (f64, DVec3, DVec3) {
    let center = (a + b + c) / 3.0;
    let normal = (b - a).cross(c - a);
    let len = normal.length();
    if len < MINVAL {
        return (0.0, normal, center);
    }
    (0.5 * len, normal / len, center)
}

/// The legacy mass properties at unit density (mass = volume) of the surface `triangles` over `vertices`, in the
/// vertices' frame; `None` when the surface area or the volume is below MuJoCo's `mjMINVAL` (MuJoCo rejects such
/// a mesh).
pub(crate) fn legacy_unit_mass(vertices: &[DVec3], triangles: &[[u32; 3]]) -> Option<MassProperties> {
    let (faces, shapes, o) = surface(vertices, triangles)?;
    let com =
        pyramid_centroid(&shapes, o, |area, normal, center| ((center - o).dot(normal) * area / 3.0).abs())?;
    second_moments(&faces, com, |area, normal, center| (center.dot(normal) * area / 3.0).abs(), 20.0)
}

/// MuJoCo's `shell` mesh inertia at unit surface density (mass = area) of the surface `triangles` over `vertices`;
/// `None` when the area is below `mjMINVAL`.
pub(crate) fn shell_unit_mass(vertices: &[DVec3], triangles: &[[u32; 3]]) -> Option<MassProperties> {
    let (faces, shapes, o) = surface(vertices, triangles)?;
    let com = pyramid_centroid(&shapes, o, |area, _, _| area)?;
    second_moments(&faces, com, |area, _, _| area, 12.0)
}

type Faces = (Vec<[DVec3; 3]>, Vec<(f64, DVec3, DVec3)>, DVec3);

/// The corners of `triangles` over `vertices`, each triangle's area, unit normal and centre, and their area-weighted
/// centroid `o` (`mjCMesh::ComputeFaceCentroid`); `None` for an index out of range or a total area below `mjMINVAL`.
fn surface(vertices: &[DVec3], triangles: &[[u32; 3]]) -> Option<Faces> {
    let corners = |t: &[u32; 3]| -> Option<[DVec3; 3]> {
        Some([*vertices.get(t[0] as usize)?, *vertices.get(t[1] as usize)?, *vertices.get(t[2] as usize)?])
    };
    let faces: Vec<[DVec3; 3]> = triangles.iter().map(corners).collect::<Option<_>>()?;
    let shapes: Vec<(f64, DVec3, DVec3)> = faces.iter().map(|&[a, b, c]| triangle(a, b, c)).collect();
    let (mut area_sum, mut facecen) = (0.0, DVec3::ZERO);
    for &(area, _, center) in &shapes {
        facecen += area * center;
        area_sum += area;
    }
    if area_sum < MINVAL {
        return None;
    }
    Some((faces, shapes, facecen / area_sum))
}

/// `Σ w (¾ c + ¼ o) / Σ w` over the triangles, `w = weight(A, n, c)`: the centre of mass of the pyramids from `o`
/// (`mjCMesh::ComputeVolume` with their volumes, `ComputeSurfaceArea` with the areas); `None` when `Σ w` is below
/// `mjMINVAL`.
fn pyramid_centroid(
    shapes: &[(f64, DVec3, DVec3)],
    o: DVec3,
    weight: impl Fn(f64, DVec3, DVec3) -> f64,
) -> Option<DVec3> {
    let (mut total, mut com) = (0.0, DVec3::ZERO);
    for &(area, normal, center) in shapes {
        let w = weight(area, normal, center);
        total += w;
        com += w * (center * 3.0 / 4.0 + o / 4.0);
    }
    (total >= MINVAL).then(|| com / total)
}

/// `mjCMesh::ComputeInertia`: with the vertices relative to `com`, each triangle's weight `w = weight(A, n, c)`
/// (its volume or its area), `P_kl = Σ w/divisor · (2(D_k D_l + E_k E_l + F_k F_l) + D_k E_l + D_l E_k + D_k F_l +
/// D_l F_k + E_k F_l + E_l F_k)`, the inertia `tr(P) 1 − P` and the mass `Σ w`; `None` when that is below
/// `mjMINVAL`.
fn second_moments(
    faces: &[[DVec3; 3]],
    com: DVec3,
    weight: impl Fn(f64, DVec3, DVec3) -> f64,
    divisor: f64,
) -> Option<MassProperties> {
    const PAIRS: [(usize, usize); 6] = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)];
    let (mut total, mut p) = (0.0, [0.0; 6]);
    for &[a, b, c] in faces {
        let (d, e, f) = (a - com, b - com, c - com);
        let (area, normal, center) = triangle(d, e, f);
        let v = weight(area, normal, center);
        total += v;
        for (slot, &(k, l)) in p.iter_mut().zip(&PAIRS) {
            *slot += v / divisor
                * (2.0 * (d[k] * d[l] + e[k] * e[l] + f[k] * f[l])
                    + d[k] * e[l]
                    + d[l] * e[k]
                    + d[k] * f[l]
                    + d[l] * f[k]
                    + e[k] * f[l]
                    + e[l] * f[k]);
        }
    }
    if total < MINVAL {
        return None;
    }
    let [xx, yy, zz, xy, xz, yz] = p;
    let inertia = DMat3::from_cols(
        DVec3::new(yy + zz, -xy, -xz),
        DVec3::new(-xy, xx + zz, -yz),
        DVec3::new(-xz, -yz, xx + yy),
    );
    Some(MassProperties { mass: total, com, inertia })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube() -> (Vec<DVec3>, Vec<[u32; 3]>) {
        let v: Vec<DVec3> = (0..8)
            .map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64))
            .collect();
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let t = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
        (v, t)
    }

    /// A closed convex surface: the solid's volume, centre and inertia (unit cube: 1, ½, 1/6 on the diagonal).
    #[test]
    fn unit_cube_is_exact() {
        let (v, t) = cube();
        let m = legacy_unit_mass(&v, &t).unwrap();
        assert!((m.mass - 1.0).abs() < 1e-14, "{}", m.mass);
        assert!((m.com - DVec3::splat(0.5)).length() < 1e-14);
        let expected = DMat3::from_diagonal(DVec3::splat(1.0 / 6.0));
        assert!((m.inertia - expected).abs().to_cols_array().iter().all(|&x| x < 1e-14), "{:?}", m.inertia);
    }

    /// Winding does not matter (absolute volumes); a 2 × 1 × 1 box moved off the origin has the solid's mass, centre
    /// and inertia `m/12 (b² + c², a² + c², a² + b²)`.
    #[test]
    fn winding_and_placement() {
        let (v, t) = cube();
        let flipped: Vec<[u32; 3]> = t.iter().map(|&[a, b, c]| [a, c, b]).collect();
        assert!((legacy_unit_mass(&v, &flipped).unwrap().mass - 1.0).abs() < 1e-14);
        let offset = DVec3::new(2.0, -1.0, 3.0);
        let moved: Vec<DVec3> = v.iter().map(|p| DVec3::new(2.0 * p.x, p.y, p.z) + offset).collect();
        let m = legacy_unit_mass(&moved, &t).unwrap();
        assert!((m.mass - 2.0).abs() < 1e-13);
        assert!((m.com - (offset + DVec3::new(1.0, 0.5, 0.5))).length() < 1e-13);
        let expected = DMat3::from_diagonal(DVec3::new(2.0, 5.0, 5.0) * (2.0 / 12.0));
        assert!((m.inertia - expected).abs().to_cols_array().iter().all(|&x| x < 1e-12), "{:?}", m.inertia);
    }

    /// A surface that is not star-shaped about its centre of mass: a unit cube whose top face is a pyramid pushed
    /// 0.875 deep into it (f32-exact coordinates: MuJoCo stores vertices as floats). The solid has volume
    /// 1 − 0.875/3 = 0.7083 and its hull 1; the legacy sum counts the tetrahedra
    /// of the dent's faces seen from behind as positive. MuJoCo 4.0.1 compiles this mesh (inline `vertex`/`face`,
    /// density 1) to mass 0.9268837657441219, centre (0.5, 0.5, 0.45282564861618246) and principal moments
    /// (0.15935504324107877, 0.13954065941343144, 0.13954065941343144); with `inertia="exact"` to 0.7083, `"convex"` 1.
    #[test]
    fn dents_count_positive_as_in_mujoco() {
        let (mut v, t) = cube();
        v.push(DVec3::new(0.5, 0.5, 0.125));
        let mut t: Vec<[u32; 3]> = t[..2].iter().chain(&t[4..]).copied().collect();
        // The top face (4, 5, 7, 6) becomes four triangles to the sunken apex 8, wound outwards from the solid.
        t.extend([[4, 5, 8], [5, 7, 8], [7, 6, 8], [6, 4, 8]]);
        let m = legacy_unit_mass(&v, &t).unwrap();
        assert!((m.mass - 0.9268837657441219).abs() < 1e-13, "{}", m.mass);
        assert!((m.com - DVec3::new(0.5, 0.5, 0.45282564861618246)).length() < 1e-13, "{}", m.com);
        let moments = m.principal().moments;
        for (ours, theirs) in
            moments.to_array().iter().zip([0.15935504324107877, 0.13954065941343144, 0.13954065941343144])
        {
            assert!((ours - theirs).abs() < 1e-13, "{moments}");
        }
    }

    #[test]
    fn degenerate_surfaces_are_rejected() {
        let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y];
        assert!(legacy_unit_mass(&v, &[[0, 1, 2]]).is_none(), "a flat triangle has no volume");
        assert!(legacy_unit_mass(&v, &[[0, 1, 5]]).is_none(), "an index out of range");
    }
}
