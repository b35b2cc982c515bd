//! MuJoCo 4.0.1's principal axes of a symmetric 3×3 inertia (`mjuu_eig3`, read off its machine code and checked
//! against the function itself, called in its library): Jacobi rotations accumulated in a quaternion until the
//! largest off-diagonal entry is within `max(tol, 4e-15)` of the largest entry (`tol` 4e-15 for the body compiler,
//! 1e-7 for the mesh compiler), each rotation `(cos θ/2, ±sin θ/2)` from `tan θ/2 = t/(1 + √(1 + t²))`,
//! `t = sign(τ)/(|τ| + √(1 + τ²))`, `τ = (D_cc − D_rr)/(2 D_rc)`, the quaternion normalised twice by `mjuu_normvec`;
//! then the moments sorted in decreasing order by quarter turns (`max(tol, 1e-12)` of the largest entry apart).
//!
//! A principal frame is unique only up to the signs and the order of its axes, and to the accuracy the iteration
//! stops at. MuJoCo's runtime compares the frame it compiled with the geoms' frames (a geom whose frame equals its
//! body's inertial frame within 10⁻⁶ is posed *as* that frame, `mjSAMEFRAME_INERTIA`), and a mesh's stored vertices
//! are rounded in its frame, so both are computed as MuJoCo 4.0.1 does, bit for bit.

use glam::{DQuat, DVec3};
use signorini_geometry::rotation::normalize_quat_compiled;

/// The tolerance MuJoCo 4.0.1's body compiler passes (`mjCBody::Compile`, `AccumulateInertia`).
const BODY_TOL: f64 = 4e-15;
/// The tolerance its mesh compiler passes (`mjCMesh::Process`).
const MESH_TOL: f64 = 1e-7;
/// The floor of the iteration's threshold, relative to the largest entry.
const MIN_TOL: f64 = 4e-15;
/// The floor of the sort's threshold between moments, relative to the largest entry (`kEigEPS`).
const SORT_EPS: f64 = 1e-12;
/// `cos(π/4) = sin(π/4)` as MuJoCo writes it (15 digits: not `FRAC_1_SQRT_2`, whose last bits differ).
#[allow(clippy::approx_constant)]
const QUARTER_TURN: f64 = 0.707106781186548;
/// Iteration cap (MuJoCo's).
const MAX_ITERATIONS: usize = 500;

/// `mjuu_mulquat` without its normalisation: `a ⊗ b`, `(w, x, y, z)`.
fn mul_quat(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// `mjuu_quat2mat`: the row-major rotation matrix of a `(w, x, y, z)` quaternion.
pub(crate) fn quat_to_mat(q: &[f64; 4]) -> [f64; 9] {
    if *q == [1.0, 0.0, 0.0, 0.0] {
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    }
    let (q00, q01, q02, q03) = (q[0] * q[0], q[0] * q[1], q[0] * q[2], q[0] * q[3]);
    let (q11, q12, q13) = (q[1] * q[1], q[1] * q[2], q[1] * q[3]);
    let (q22, q23, q33) = (q[2] * q[2], q[2] * q[3], q[3] * q[3]);
    [
        q00 + q11 - q22 - q33,
        2.0 * (q12 - q03),
        2.0 * (q13 + q02),
        2.0 * (q12 + q03),
        q00 - q11 + q22 - q33,
        2.0 * (q23 - q01),
        2.0 * (q13 - q02),
        2.0 * (q23 + q01),
        q00 - q11 - q22 + q33,
    ]
}

/// `Rᵀ M R` for row-major `R`, `M` (`mjuu_mulmat` twice).
fn rotate_into(r: &[f64; 9], m: &[f64; 9]) -> [f64; 9] {
    let t: [f64; 9] = std::array::from_fn(|k| {
        let (i, j) = (k / 3, k % 3);
        r[i] * m[j] + r[3 + i] * m[3 + j] + r[6 + i] * m[6 + j]
    });
    std::array::from_fn(|k| {
        let (i, j) = (k / 3, k % 3);
        t[3 * i] * r[j] + t[3 * i + 1] * r[3 + j] + t[3 * i + 2] * r[6 + j]
    })
}

/// The principal moments (decreasing) and frame of the symmetric inertia `[xx, yy, zz, xy, xz, yz]`, as MuJoCo
/// 4.0.1's body compiler computes them (module docs).
pub fn principal(full: [f64; 6]) -> (DVec3, DQuat) {
    eig3(full, BODY_TOL)
}

/// The principal frame of a mesh's inertia `[xx, yy, zz, xy, xz, yz]` as MuJoCo 4.0.1's mesh compiler computes it,
/// with its looser tolerance (1e-7 of the largest entry): the frame can be 1e-7 from the converged one, and a mesh's
/// stored single-precision vertices depend on it to the last bit (`assets::stored_as_mujoco_does`).
pub fn mesh_frame(full: [f64; 6]) -> DQuat {
    mesh_principal(full).1
}

/// [`mesh_frame`] with the moments along its axes (decreasing), as MuJoCo's mesh compiler keeps them.
pub fn mesh_principal(full: [f64; 6]) -> (DVec3, DQuat) {
    eig3(full, MESH_TOL)
}

/// `mjuu_normvec` on a quaternion stored `(w, x, y, z)` ([`normalize_quat_compiled`]).
fn normvec(q: &mut [f64; 4]) {
    if let Some(u) = normalize_quat_compiled(DQuat::from_xyzw(q[1], q[2], q[3], q[0])) {
        *q = [u.w, u.x, u.y, u.z];
    }
}

/// MuJoCo 4.0.1's `mjuu_eig3(eigval, eigvec, quat, mat, tol)` (module docs).
fn eig3(full: [f64; 6], tol: f64) -> (DVec3, DQuat) {
    let mat = [full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2]];
    let scale = mat.iter().fold(0.0f64, |m, v| v.abs().max(m));
    let threshold = MIN_TOL.max(tol) * scale;
    let mut quat = [1.0, 0.0, 0.0, 0.0];
    let mut eig = [0.0; 3];
    for _ in 0..MAX_ITERATIONS {
        let d = rotate_into(&quat_to_mat(&quat), &mat);
        eig = [d[0], d[4], d[8]];
        let (rk, ck, rotk) = if d[1].abs() > d[2].abs() && d[1].abs() > d[5].abs() {
            (0, 1, 2)
        } else if d[2].abs() > d[5].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        let off = d[3 * rk + ck];
        if threshold >= off.abs() {
            break;
        }
        let tau = (d[4 * ck] - d[4 * rk]) / (off + off);
        let root = (1.0 + tau * tau).sqrt();
        let t = if tau >= 0.0 { 1.0 / (tau + root) } else { -1.0 / (root - tau) };
        // The half angle's tangent, cosine and sine.
        let half = t / (1.0 + (1.0 + t * t).sqrt());
        let c = 1.0 / (1.0 + half * half).sqrt();
        let s = if rotk == 1 { half * c } else { -half * c };
        let mut rot = [c, 0.0, 0.0, 0.0];
        rot[rotk + 1] = s;
        quat = mul_quat(&quat, &rot);
        normvec(&mut quat);
        normvec(&mut quat);
    }
    // Decreasing order: bubble sort over the pairs (0, 1), (1, 2), (0, 1), each swap a quarter turn.
    let eps = SORT_EPS.max(tol) * scale;
    for j in 0..3 {
        let j1 = j % 2;
        if eig[j1] + eps < eig[j1 + 1] {
            eig.swap(j1, j1 + 1);
            let mut rot = [QUARTER_TURN, 0.0, 0.0, 0.0];
            rot[(j1 + 2) % 3 + 1] = rot[0];
            quat = mul_quat(&quat, &rot);
            normvec(&mut quat);
            normvec(&mut quat);
        }
    }
    (DVec3::from_array(eig), DQuat::from_xyzw(quat[1], quat[2], quat[3], quat[0]))
}

#[cfg(test)]
mod tests {
    use glam::DMat3;

    use super::*;

    /// The frame diagonalises the inertia: `Rᵀ M R` is `diag(moments)` with moments in decreasing order, for random
    /// tensors and for the degenerate ones (equal moments, already diagonal, diagonal out of order).
    #[test]
    fn the_frame_diagonalises_the_inertia_with_decreasing_moments() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut cases = vec![
            [1.0, 1.0, 1.0, 0.0, 0.0, 0.0],
            [1.0, 2.0, 3.0, 0.0, 0.0, 0.0],
            [3.0, 1.0, 2.0, 0.0, 0.0, 0.0],
        ];
        for _ in 0..200 {
            let q = DQuat::from_xyzw(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
            let r = DMat3::from_quat(q);
            let m =
                r * DMat3::from_diagonal(DVec3::new(0.1 + rnd(), 0.1 + rnd(), 0.1 + rnd())) * r.transpose();
            cases.push([m.x_axis.x, m.y_axis.y, m.z_axis.z, m.y_axis.x, m.z_axis.x, m.z_axis.y]);
        }
        for f in cases {
            let (moments, frame) = principal(f);
            let m = DMat3::from_cols_array(&[f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]]);
            let r = DMat3::from_quat(frame);
            let d = r.transpose() * m * r;
            let scale = f[0] + f[1] + f[2];
            for i in 0..3 {
                assert!((d.col(i)[i] - moments[i]).abs() < 1e-11 * scale, "{f:?}: {d} vs {moments}");
                for j in (0..3).filter(|&j| j != i) {
                    assert!(d.col(i)[j].abs() < 1e-11 * scale, "{f:?}: off-diagonal {d}");
                }
            }
            assert!(moments.x + 1e-12 >= moments.y && moments.y + 1e-12 >= moments.z, "{moments}");
            assert!((frame.length() - 1.0).abs() < 1e-12);
        }
    }

    /// MuJoCo 4.0.1's `mjuu_eig3` itself, called in its library (`tests/data/eig3_mujoco.json`,
    /// `scripts/mujoco_eig3_reference.py`): 306 tensors (random at scales 1e-6 to 1, diagonal in and out of order,
    /// isotropic, two equal moments, nearly diagonal), each with the body compiler's and the mesh compiler's
    /// tolerance: every moment and quaternion component bit for bit.
    #[test]
    fn moments_and_frames_are_mujocos_bit_for_bit() {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../tests/data/eig3_mujoco.json")).unwrap();
        let nums = |x: &serde_json::Value| -> Vec<f64> {
            x.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect()
        };
        let cases = v["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 612);
        for (i, c) in cases.iter().enumerate() {
            let full: [f64; 6] = nums(&c["full"]).try_into().unwrap();
            let tol = c["tol"].as_f64().unwrap();
            let (moments, q) = eig3(full, tol);
            let ours = [moments.x, moments.y, moments.z, q.w, q.x, q.y, q.z];
            let theirs: Vec<f64> = nums(&c["eigval"]).into_iter().chain(nums(&c["quat"])).collect();
            assert!(
                ours.iter().zip(&theirs).all(|(a, b)| a.to_bits() == b.to_bits()),
                "case {i} (tol {tol}): {ours:?} against {theirs:?}"
            );
        }
    }
}
