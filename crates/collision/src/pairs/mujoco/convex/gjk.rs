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

pub(super) fn s1d(s1: DVec3, s2: DVec3) -> [f64; 2] {
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
    if same_sign(mu_max, c1) && same_sign(mu_max, c2) { [c1 / mu_max, c2 / mu_max] } else { [0.0, 1.0] }
}

/// The three 2×2 minors of a triangle and the projection axes MuJoCo picks (`S2D`, `triAffineCoord`).
pub(super) fn tri_minors(s1: DVec3, s2: DVec3, s3: DVec3) -> (f64, usize, usize) {
    let m14 = s2.y * s3.z - s2.z * s3.y - s1.y * s3.z + s1.z * s3.y + s1.y * s2.z - s1.z * s2.y;
    let m24 = s2.x * s3.z - s2.z * s3.x - s1.x * s3.z + s1.z * s3.x + s1.x * s2.z - s1.z * s2.x;
    let m34 = s2.x * s3.y - s2.y * s3.x - s1.x * s3.y + s1.y * s3.x + s1.x * s2.y - s1.y * s2.x;
    let (mu1, mu2, mu3) = (m14.abs(), m24.abs(), m34.abs());
    if mu1 >= mu2 && mu1 >= mu3 {
        (m14, 1, 2)
    } else if mu2 >= mu3 {
        (m24, 0, 2)
    } else {
        (m34, 0, 1)
    }
}

/// Unnormalised barycentric numerators of `p` in the triangle, in the projection `(x, y)`.
pub(super) fn tri_cofactors(s1: DVec3, s2: DVec3, s3: DVec3, p: DVec3, x: usize, y: usize) -> [f64; 3] {
    let (a0, a1, b0, b1, c0, c1, q0, q1) = (s1[x], s1[y], s2[x], s2[y], s3[x], s3[y], p[x], p[y]);
    [
        q0 * b1 + q1 * c0 + b0 * c1 - q0 * c1 - q1 * b0 - c0 * b1,
        q0 * c1 + q1 * a0 + c0 * a1 - q0 * a1 - q1 * c0 - a0 * c1,
        q0 * a1 + q1 * b0 + a0 * b1 - q0 * b1 - q1 * a0 - b0 * a1,
    ]
}

pub(super) fn s2d(s1: DVec3, s2: DVec3, s3: DVec3) -> [f64; 3] {
    let Some(p) = project_origin_plane(s1, s2, s3) else {
        let l = s1d(s1, s2);
        return [l[0], l[1], 0.0];
    };
    let (mm, x, y) = tri_minors(s1, s2, s3);
    let c = tri_cofactors(s1, s2, s3, p, x, y);
    let (c1, c2, c3) = (same_sign(mm, c[0]), same_sign(mm, c[1]), same_sign(mm, c[2]));
    if c1 && c2 && c3 {
        // The cofactors sum to the minor; MuJoCo 4.0 divides by their sum, which keeps the coordinates summing to one
        // for a sliver triangle (dividing by the minor put GJK's point 2e-9 off the plane of a 2e-6 m triangle).
        let sum = c[0] + c[1] + c[2];
        return [c[0] / sum, c[1] / sum, c[2] / sum];
    }
    let mut lambda = [0.0; 3];
    let mut dmin = MAX_LIMIT;
    if !c1 {
        let l = s1d(s2, s3);
        let xx = s2 * l[0] + s3 * l[1];
        lambda = [0.0, l[0], l[1]];
        dmin = xx.dot(xx);
    }
    if !c2 {
        let l = s1d(s1, s3);
        let xx = s1 * l[0] + s3 * l[1];
        let d = xx.dot(xx);
        if d < dmin {
            lambda = [l[0], 0.0, l[1]];
            dmin = d;
        }
    }
    if !c3 {
        let l = s1d(s1, s2);
        let xx = s1 * l[0] + s2 * l[1];
        if xx.dot(xx) < dmin {
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
    let mut xprev = 0.0;
    while k < MAX_ITERATIONS {
        if xn < min_norm || (xprev - xn).abs() < MINVAL {
            break;
        }
        st.simplex[n] = gjk_support(o1, o2, xk, xn);
        let sk = st.simplex[n].vert;
        if xk.dot(xk - sk) < eps {
            break;
        }
        // No distance is asked for: a separating support point ends the test; otherwise a lower bound beyond the
        // cutoff does.
        let lower = xk.dot(sk);
        let beyond_cutoff = !get_dist || (st.dist_cutoff < MAX_LIMIT && lower >= st.dist_cutoff * xn);
        if lower > 0.0 && beyond_cutoff {
            st.separated = true;
            st.gjk_iterations = k;
            st.nsimplex = 0;
            st.dist = MAX_LIMIT;
            return;
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
        xk = lincomb(&lambda, n, st.simplex.map(|v| v.vert));
        xprev = xn;
        xn = xk.length();
        // MuJoCo 4.0 stops as soon as the new point is within the tolerance, without counting the iteration (its
        // `gjk_iterations`).
        if n == 4 || xn < min_norm {
            break;
        }
        k += 1;
    }
    if n > 0 {
        st.x1 = lincomb(&lambda, n, st.simplex.map(|v| v.vert1));
        st.x2 = lincomb(&lambda, n, st.simplex.map(|v| v.vert2));
    }
    // MuJoCo's final separation check (it also moves the support warm starts).
    let tmp = gjk_support(o1, o2, xk, xn);
    if xk.dot(tmp.vert) > 0.0 {
        st.separated = true;
    }
    st.gjk_iterations = k;
    st.nsimplex = n;
    st.dist = if n == 4 && !st.separated { 0.0 } else { xn };
}
