//! MuJoCo's native GJK (`engine_collision_gjk.c`): the signed-volume subalgorithm (`S1D`/`S2D`/`S3D`) from the
//! segment between the geom centres, run until the simplex is a tetrahedron around the origin.
//!
//! The 3.x source hands a tetrahedron that does not contain the origin to `gjkIntersect` when no distance is asked
//! for, which replaces the vertex opposite the face nearest the origin by the support along that face's normal.
//! MuJoCo 4.0.1 has no such backup: its `gjk` calls only `S1D`, `S2D`, `projectOriginPlane`, `gjkSupport` and
//! `lincomb`, with two square roots, where the backup's four face normals would need four; and its iterates follow
//! plain GJK's (`replicate/leaves.xml`, geoms 24 and 26 after 70 steps: the seven values `mjc_ccd` reports with its
//! iteration cap at 5 to 11 are those of the closest points of plain GJK's simplices, not of the backup's).

use super::*;

/// The closest point of the segment `s1 s2` to the origin as barycentric weights (MuJoCo 4.0.1's `S1D`): `s2` for a
/// segment shorter than 1e-15; the projection when it lies inside, else the nearer end (4.0.1 returns `s1` when the
/// projection lies beyond it, where the 3.x source always returned `s2`).
pub(super) fn s1d(s1: DVec3, s2: DVec3) -> [f64; 2] {
    let diff = s2 - s1;
    if diff.dot(diff) < 1e-30 {
        return [0.0, 1.0];
    }
    let p = project_origin_line(s1, s2);
    let mut mu_max = s1.x - s2.x;
    let mut idx = 0;
    let mu = s1.y - s2.y;
    if mu.abs() >= mu_max.abs() {
        mu_max = mu;
        idx = 1;
    }
    let mu = s1.z - s2.z;
    if mu.abs() >= mu_max.abs() {
        mu_max = mu;
        idx = 2;
    }
    let c1 = p[idx] - s2[idx];
    let c2 = s1[idx] - p[idx];
    match (same_sign(mu_max, c1), same_sign(mu_max, c2)) {
        (true, true) => [c1 / mu_max, c2 / mu_max],
        (true, false) => [1.0, 0.0],
        _ => [0.0, 1.0],
    }
}

/// The minors `(s2 − s1) × (s3 − s1)` of a triangle (the components of its normal, the second negated) and the
/// coordinates MuJoCo 4.0.1 works in: the two other than the one where the normal is largest (the first on ties).
pub(super) fn tri_minors(s1: DVec3, s2: DVec3, s3: DVec3) -> (f64, usize, usize) {
    let (a, b) = (s2 - s1, s3 - s1);
    let m1 = b.z * a.y - a.z * b.y;
    let m2 = b.z * a.x - a.z * b.x;
    let m3 = a.x * b.y - a.y * b.x;
    if m1.abs() >= m2.abs() && m1.abs() >= m3.abs() {
        (m1, 1, 2)
    } else if m2.abs() >= m3.abs() {
        (m2, 0, 2)
    } else {
        (m3, 0, 1)
    }
}

/// [`tri_minors`]' two coordinates.
pub(super) fn tri_axes(s1: DVec3, s2: DVec3, s3: DVec3) -> (usize, usize) {
    let (_, u, v) = tri_minors(s1, s2, s3);
    (u, v)
}

/// The closest point of the triangle `s1 s2 s3` to the origin as barycentric weights (MuJoCo 4.0.1's `S2D`, read
/// off its machine code): the origin's projection `p` onto the plane, the triangle's normal `(s2 − s1) × (s3 − s1)`
/// choosing the two coordinates to work in, and the signed areas of `p` with each edge; inside when all three have
/// the normal's sign, else the nearest point of the edges whose area has the wrong sign (all three when the
/// triangle is degenerate), the first of them unconditionally, the others when strictly nearer.
pub(super) fn s2d(s1: DVec3, s2: DVec3, s3: DVec3) -> [f64; 3] {
    let signs = project_origin_plane(s1, s2, s3).map(|p| {
        let (mu, u, v) = tri_minors(s1, s2, s3);
        let (a0, a1) = (s1[u] - p[u], s1[v] - p[v]);
        let (b0, b1) = (s2[u] - p[u], s2[v] - p[v]);
        let (c0, c1) = (s3[u] - p[u], s3[v] - p[v]);
        let c = [c1 * b0 - c0 * b1, c0 * a1 - a0 * c1, a0 * b1 - b0 * a1];
        (mu, c)
    });
    let inside = match signs {
        Some((mu, c)) => [same_sign(mu, c[0]), same_sign(mu, c[1]), same_sign(mu, c[2])],
        None => [false; 3],
    };
    if let (Some((_, c)), [true, true, true]) = (signs, inside) {
        let sum = c[0] + c[1] + c[2];
        return [c[0] / sum, c[1] / sum, c[2] / sum];
    }
    let mut lambda = [0.0; 3];
    let mut dmin = MAX_LIMIT;
    let sqr = |a: DVec3, b: DVec3, l: [f64; 2]| {
        let x = a * l[0] + b * l[1];
        x.dot(x)
    };
    if !inside[0] {
        let l = s1d(s2, s3);
        lambda = [0.0, l[0], l[1]];
        dmin = sqr(s2, s3, l);
    }
    if !inside[1] {
        let l = s1d(s1, s3);
        let d = sqr(s1, s3, l);
        if d < dmin {
            lambda = [l[0], 0.0, l[1]];
            dmin = d;
        }
    }
    if !inside[2] {
        let l = s1d(s1, s2);
        if sqr(s1, s2, l) < dmin {
            lambda = [l[0], l[1], 0.0];
        }
    }
    lambda
}

pub(super) fn s3d(s1: DVec3, s2: DVec3, s3: DVec3, s4: DVec3) -> [f64; 4] {
    let c41 = -det3(s2, s3, s4);
    let c42 = det3(s1, s3, s4);
    let c43 = -det3(s1, s2, s4);
    let c44 = det3(s1, s2, s3);
    let md = c41 + c42 + c43 + c44;
    let (b1, b2, b3, b4) = (same_sign(md, c41), same_sign(md, c42), same_sign(md, c43), same_sign(md, c44));
    if b1 && b2 && b3 && b4 {
        return [c41 / md, c42 / md, c43 / md, c44 / md];
    }
    let mut lambda = [0.0; 4];
    let mut dmin = MAX_LIMIT;
    let sqr = |a: DVec3, b: DVec3, c: DVec3, l: [f64; 3]| {
        let xx = a * l[0] + b * l[1] + c * l[2];
        xx.dot(xx)
    };
    if !b1 {
        let l = s2d(s2, s3, s4);
        lambda = [0.0, l[0], l[1], l[2]];
        dmin = sqr(s2, s3, s4, l);
    }
    if !b2 {
        let l = s2d(s1, s3, s4);
        let d = sqr(s1, s3, s4, l);
        if d < dmin {
            lambda = [l[0], 0.0, l[1], l[2]];
            dmin = d;
        }
    }
    if !b3 {
        let l = s2d(s1, s2, s4);
        let d = sqr(s1, s2, s4, l);
        if d < dmin {
            lambda = [l[0], l[1], 0.0, l[2]];
            dmin = d;
        }
    }
    if !b4 {
        let l = s2d(s1, s2, s3);
        if sqr(s1, s2, s3, l) < dmin {
            lambda = [l[0], l[1], l[2], 0.0];
        }
    }
    lambda
}

pub(super) fn subdistance(n: usize, s: &[Vertex; 4]) -> [f64; 4] {
    match n {
        4 => s3d(s[0].vert, s[1].vert, s[2].vert, s[3].vert),
        3 => {
            let l = s2d(s[0].vert, s[1].vert, s[2].vert);
            [l[0], l[1], l[2], 0.0]
        }
        2 => {
            let l = s1d(s[0].vert, s[1].vert);
            [l[0], l[1], 0.0, 0.0]
        }
        _ => [1.0, 0.0, 0.0, 0.0],
    }
}

/// GJK and EPA state (`mjCCDStatus`).
#[derive(Debug, Default)]
pub(super) struct Status {
    pub(super) x1: DVec3,
    pub(super) x2: DVec3,
    pub(super) simplex: [Vertex; 4],
    pub(super) nsimplex: usize,
    pub(super) gjk_iterations: usize,
    pub(super) dist: f64,
    pub(super) separated: bool,
    /// Distance below which GJK must recover the geoms' distance (`dist_cutoff`); 0: only whether they touch.
    pub(super) dist_cutoff: f64,
}

pub(super) fn gjk_support(o1: &mut Obj<'_>, o2: &mut Obj<'_>, xk: DVec3, xn: f64) -> Vertex {
    let inv = if xn == 0.0 { f64::INFINITY } else { 1.0 / xn };
    let dn = xk * inv;
    support(o1, o2, -dn, dn)
}

/// MuJoCo 4.0.1's `gjk` (read off its machine code): from `x1 − x2`, add the support point along the current point,
/// stop on a separating support (or, when a distance is asked for, one beyond the cutoff; a separating support below
/// it only marks the geoms apart), on a support no farther along than `eps` (from the second iteration on), reduce
/// the simplex to the sub-simplex nearest the origin (`S1D`, `S2D`, `S3D`), and take as the next point the origin's
/// projection onto that sub-simplex's line or plane (the weighted vertices for a point or a degenerate one). Stops
/// when that point is within `min_norm` of the origin (1e-15 for a single vertex), when its norm changes by less
/// than 1e-15 (from the second iteration on), when the simplex is a tetrahedron around the origin, or after
/// `MAX_ITERATIONS`.
pub(super) fn gjk(st: &mut Status, o1: &mut Obj<'_>, o2: &mut Obj<'_>) {
    let get_dist = st.dist_cutoff > 0.0;
    let mut n = 0usize;
    let mut k = 0usize;
    let mut lambda = [0.0; 4];
    st.separated = false;
    let disc = discrete(o1, o2);
    let eps = if disc { 0.0 } else { 0.5 * TOLERANCE * TOLERANCE };
    let min_norm = if disc { MINVAL } else { TOLERANCE };
    let mut xk = st.x1 - st.x2;
    let mut xn = xk.length();
    if xn < MINVAL {
        (xk, xn) = (DVec3::X, 1.0);
    }
    while k < MAX_ITERATIONS {
        st.simplex[n] = gjk_support(o1, o2, xk, xn);
        let sk = st.simplex[n].vert;
        let lower = xk.dot(sk);
        if lower > 0.0 {
            // A separating support point: the test is over, or, when a distance is asked for, over beyond the
            // cutoff.
            st.separated = true;
            if !get_dist || (st.dist_cutoff < MAX_LIMIT && lower >= st.dist_cutoff * xn) {
                st.gjk_iterations = k;
                st.nsimplex = 0;
                st.dist = MAX_LIMIT;
                return;
            }
        }
        if k != 0 && xk.dot(xk - sk) < eps {
            break;
        }
        lambda = subdistance(n + 1, &st.simplex);
        n = 0;
        for i in 0..4 {
            if lambda[i] == 0.0 {
                continue;
            }
            st.simplex[n] = st.simplex[i];
            lambda[n] = lambda[i];
            n += 1;
        }
        if n < 1 {
            st.gjk_iterations = k;
            st.nsimplex = 0;
            st.dist = MAX_LIMIT;
            st.separated = true;
            return;
        }
        if n == 4 {
            if !st.separated {
                xn = 0.0;
            }
            break;
        }
        xk = nearest_point(n, &lambda, &st.simplex);
        let xnew = xk.length();
        let stop = xnew < if n == 1 { MINVAL } else { min_norm } || (k != 0 && (xnew - xn).abs() < MINVAL);
        xn = xnew;
        if stop {
            break;
        }
        k += 1;
    }
    if n > 0 {
        st.x1 = lincomb(&lambda, n, st.simplex.map(|v| v.vert1));
        st.x2 = lincomb(&lambda, n, st.simplex.map(|v| v.vert2));
    }
    // MuJoCo's final separation check (it also moves the support warm starts).
    if n <= 3 && !st.separated && xn >= MINVAL {
        let tmp = gjk_support(o1, o2, xk, xn);
        if xk.dot(tmp.vert) > 0.0 {
            st.separated = true;
        }
    }
    st.gjk_iterations = k;
    st.nsimplex = n;
    st.dist = xn;
}

/// GJK's next point from the reduced simplex's `n` vertices and weights (MuJoCo 4.0.1): the weighted vertex, the
/// origin's projection onto the segment's line (the weighted ends when they are within 1e-15), or onto the
/// triangle's plane (the weighted vertices when the triangle is degenerate).
fn nearest_point(n: usize, lambda: &[f64; 4], s: &[Vertex; 4]) -> DVec3 {
    let v = s.map(|v| v.vert);
    match n {
        1 => v[0] * lambda[0],
        2 => {
            let d = v[1] - v[0];
            if d.dot(d) < 1e-30 {
                v[0] * lambda[0] + v[1] * lambda[1]
            } else {
                project_origin_line(v[0], v[1])
            }
        }
        _ => project_origin_plane(v[0], v[1], v[2]).unwrap_or_else(|| lincomb(lambda, 3, v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `S1D` and `S2D` against MuJoCo 4.0.1's own, called in its library on 400 segments and triangles (random,
    /// slivers, millimetre-sized, near-duplicate and duplicate vertices; `scripts/mujoco_simplex_reference.py`): every
    /// weight bit for bit.
    #[test]
    fn s1d_and_s2d_are_mujocos_bit_for_bit() {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../../../../tests/data/simplex_mujoco.json")).unwrap();
        let p = |x: &serde_json::Value| {
            DVec3::new(x[0].as_f64().unwrap(), x[1].as_f64().unwrap(), x[2].as_f64().unwrap())
        };
        let cases = v["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 400);
        for (i, c) in cases.iter().enumerate() {
            let s: Vec<DVec3> = c["s"].as_array().unwrap().iter().map(p).collect();
            let l2: Vec<f64> = c["l2"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            let l1: Vec<f64> = c["l1"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            let ours2 = s2d(s[0], s[1], s[2]);
            let ours1 = s1d(s[0], s[1]);
            assert!(
                ours2.iter().zip(&l2).all(|(a, b)| a.to_bits() == b.to_bits()),
                "case {i}: S2D {ours2:?} {l2:?}"
            );
            assert!(
                ours1.iter().zip(&l1).all(|(a, b)| a.to_bits() == b.to_bits()),
                "case {i}: S1D {ours1:?} {l1:?}"
            );
        }
    }
}
