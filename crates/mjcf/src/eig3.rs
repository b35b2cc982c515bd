//! MuJoCo's principal axes of a symmetric 3×3 inertia (`mju_eig3`, which its compiler's `mjuu_fullInertia`
//! matches): Jacobi rotations accumulated in a quaternion, then the moments sorted in decreasing order by quarter
//! turns.
//!
//! A principal frame is unique only up to the signs and the order of its axes, and to the accuracy the iteration
//! stops at. MuJoCo's runtime compares the frame it compiled with the geoms' frames (a geom whose frame equals its
//! body's inertial frame within 10⁻⁶ is posed *as* that frame, `mjSAMEFRAME_INERTIA`), so the body inertial frames
//! are computed the way MuJoCo 4.0 does, step for step. Each step forms `D = Rᵀ M R` (`R` from the quaternion),
//! picks the largest off-diagonal entry `D_rc` and stops when it is below 10⁻¹⁵ (or the quaternion no longer
//! changes); otherwise it zeroes it by the
//! rotation about the third axis with `tan θ = t = sign(τ)/(|τ| + √(1 + τ²))`, `τ = (D_cc − D_rr)/(2 D_rc)`,
//! written as the quaternion `(1 + cos θ, ∓ sin θ)` normalised (no cancellation for tiny angles).
//!
//! Checked against MuJoCo 4.0.1's compiled `body_inertia`/`body_iquat` (tests): equal to a few units in the last
//! place. (MuJoCo's published source forms the half-angle sine as `√(0.5 − 0.5 cos θ)`, stops once
//! `cos θ > 1 − 10⁻¹²` or the entry is below 10⁻¹², and would leave frames 10⁻⁷ from 4.0.1's: its binaries take
//! more steps. This form was fitted to their output.)

use glam::{DQuat, DVec3};

/// The sort's threshold between moments (MuJoCo's `eigEPS`, `1000·mjMINVAL`).
const EIG_EPS: f64 = 1e-12;

/// The iteration's threshold on the largest off-diagonal entry. MuJoCo's source stops at `eigEPS`, but 4.0.1's
/// frames are those of an iteration run closer to convergence: stopping at 10⁻¹² leaves them 2.5·10⁻¹³ from
/// MuJoCo's on the tests' fourth tensor, stopping at `mjMINVAL` within 7·10⁻¹⁶ on all.
const OFF_DIAGONAL_EPS: f64 = 1e-15;

/// MuJoCo's `mjMINVAL`.
const MINVAL: f64 = 1e-15;

/// `cos(π/4) = sin(π/4)` as MuJoCo writes it (15 digits: not `FRAC_1_SQRT_2`, whose last bits differ).
#[allow(clippy::approx_constant)]
const QUARTER_TURN: f64 = 0.707106781186548;

/// Iteration cap (MuJoCo's).
const MAX_ITERATIONS: usize = 500;

/// `mju_normalize4` on a `(w, x, y, z)` quaternion: the identity below `mjMINVAL`, unchanged when the norm is
/// within `mjMINVAL` of 1, else scaled by `1/norm`.
fn normalize(q: &mut [f64; 4]) {
    let norm = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if norm < MINVAL {
        *q = [1.0, 0.0, 0.0, 0.0];
    } else if (norm - 1.0).abs() > MINVAL {
        let inv = 1.0 / norm;
        for v in q.iter_mut() {
            *v *= inv;
        }
    }
}

/// `mju_mulQuat`: `a ⊗ b`.
fn mul_quat(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// `mju_quat2Mat`: the row-major rotation matrix of a `(w, x, y, z)` quaternion.
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

/// `mji_mulMatTMat3` then `mji_mulMatMat3`: `Rᵀ M R` for row-major `R`, `M`.
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
/// compiles them (module docs).
pub fn principal(full: [f64; 6]) -> (DVec3, DQuat) {
    let (eig, quat) = jacobi(full, Stop::Converged);
    (DVec3::from_array(eig), DQuat::from_xyzw(quat[1], quat[2], quat[3], quat[0]))
}

/// The principal frame of a mesh's inertia `[xx, yy, zz, xy, xz, yz]` as MuJoCo 4.0.1's mesh compiler computes it
/// (`mjuu_eig3`): the Jacobi rotations of [`principal`], stopping once the largest off-diagonal entry is below
/// 10⁻¹² or the rotation's `cos θ` is within `mjMINVAL` of 1, with quaternions normalised by `mjuu_normvec` (left
/// alone within 10⁻¹⁴ of unit length). It stops earlier than [`principal`], so the frame can be 10⁻⁷ from the
/// converged one, and a mesh's stored single-precision vertices depend on it to the last bit
/// (`assets::stored_as_mujoco_does`). Fitted, like [`principal`], to 4.0.1's output (its `mesh_quat` and
/// `mesh_vert`, `tests/mesh_vertices.rs`): the published source's half-angle sine `√(0.5 − 0.5 cos θ)` and its stop
/// at `cos θ > 1 − 10⁻¹²` leave frames 10⁻⁸ from 4.0.1's. The fit is partial: it gives 4.0.1's frame for the tests'
/// four meshes and for 161 of 200 random point clouds; on the others 4.0.1 stops one rotation earlier or later,
/// and no single threshold on the rotation fits them and the tests' meshes together.
pub fn mesh_frame(full: [f64; 6]) -> DQuat {
    let (_, quat) = jacobi(full, Stop::MeshCompiler);
    DQuat::from_xyzw(quat[1], quat[2], quat[3], quat[0])
}

/// Where MuJoCo's two Jacobi iterations stop, and how they normalise their quaternions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The body inertial frames ([`principal`]): off-diagonal below [`OFF_DIAGONAL_EPS`], or a rotation below the
    /// quaternion's resolution; `mju_normalize4`.
    Converged,
    /// The mesh frames ([`mesh_frame`]): off-diagonal below 10⁻¹², or `cos θ > 1 − mjMINVAL`; `mjuu_normvec`.
    MeshCompiler,
}

impl Stop {
    fn normalize(self, q: &mut [f64; 4]) {
        match self {
            Stop::Converged => normalize(q),
            Stop::MeshCompiler => normvec(q),
        }
    }
}

/// `mjuu_normvec` on a quaternion: unchanged when its squared norm is below `mjEPS` (10⁻¹⁴) or its norm within
/// `mjEPS` of 1, else divided by the norm.
pub(crate) fn normvec(q: &mut [f64; 4]) {
    let norm2: f64 = q.iter().map(|v| v * v).sum();
    if norm2 < 1e-14 {
        return;
    }
    let norm = norm2.sqrt();
    if (norm - 1.0).abs() > 1e-14 {
        q.iter_mut().for_each(|v| *v /= norm);
    }
}

/// The Jacobi iteration both frames share: `D = Rᵀ M R`, the largest off-diagonal entry zeroed by a rotation
/// accumulated in the quaternion until `stop` says so, then the moments sorted in decreasing order by quarter turns.
/// Returns the moments and the `(w, x, y, z)` quaternion.
fn jacobi(full: [f64; 6], stop: Stop) -> ([f64; 3], [f64; 4]) {
    let off_diagonal_eps = match stop {
        Stop::Converged => OFF_DIAGONAL_EPS,
        Stop::MeshCompiler => 1e-12,
    };
    let mat = [full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2]];
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
        if d[3 * rk + ck].abs() < off_diagonal_eps {
            break;
        }
        let tau = (d[4 * ck] - d[4 * rk]) / (2.0 * d[3 * rk + ck]);
        let t = if tau >= 0.0 {
            1.0 / (tau + (1.0 + tau * tau).sqrt())
        } else {
            -1.0 / (-tau + (1.0 + tau * tau).sqrt())
        };
        let c = 1.0 / (1.0 + t * t).sqrt();
        if stop == Stop::MeshCompiler && c > 1.0 - MINVAL {
            break;
        }
        let mut rot = [1.0 + c, 0.0, 0.0, 0.0];
        rot[rotk + 1] = if rotk == 1 { t * c } else { -t * c };
        stop.normalize(&mut rot);
        let mut next = mul_quat(&quat, &rot);
        stop.normalize(&mut next);
        if stop == Stop::Converged && next == quat {
            // The rotation is below the quaternion's resolution: converged.
            break;
        }
        quat = next;
    }
    // Decreasing order: bubble sort over the pairs (0, 1), (1, 2), (0, 1), each swap a quarter turn.
    for j in 0..3 {
        let j1 = j % 2;
        if eig[j1] + EIG_EPS < eig[j1 + 1] {
            eig.swap(j1, j1 + 1);
            let mut rot = [QUARTER_TURN, 0.0, 0.0, 0.0];
            rot[(j1 + 2) % 3 + 1] = rot[0];
            quat = mul_quat(&quat, &rot);
            stop.normalize(&mut quat);
        }
    }
    (eig, quat)
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

    /// MuJoCo 4.0.1's own answers, sign and axis order included: `body_inertia` and `body_iquat` of a body with
    /// `<inertial fullinertia="…"/>` (`mujoco.MjModel.from_xml_string`), for three random tensors, a diagonal one
    /// out of order and an isotropic one. Equal to a few units in the last place.
    #[test]
    fn moments_and_frames_are_mujocos() {
        #[allow(clippy::type_complexity)]
        let cases: [([f64; 6], [f64; 3], [f64; 4]); 5] = [
            (
                [0.3, 0.2, 0.25, 0.01, -0.02, 0.03],
                [0.3070182901982248, 0.2597228563807117, 0.18325885342106363],
                [0.8445799384325687, 0.5079849633960374, 0.14358071991874927, -0.08955769887832167],
            ),
            ([1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0]),
            (
                [0.1, 0.3, 0.2, 0.0, 0.0, 0.0],
                [0.3, 0.2, 0.1],
                [0.5000000000000007, 0.5000000000000007, 0.5000000000000007, 0.5000000000000007],
            ),
            (
                [
                    0.6125990672380228,
                    0.8156103021627777,
                    0.6612831480357302,
                    0.08256316602293749,
                    0.029161599319006113,
                    -0.17272951234039158,
                ],
                [0.936776722698132, 0.6500831424556135, 0.502632652282788],
                [0.6426601529455028, -0.4139703058117611, -0.01778171584335328, 0.6444379910463444],
            ),
            (
                [
                    0.9064029589263952,
                    0.7949935785144465,
                    0.7118275002384812,
                    -0.038935795291970755,
                    -0.10389155034601044,
                    0.12490473104313703,
                ],
                [0.994480073840943, 0.8110896147205816, 0.6076543491177995],
                [0.9119856818743134, 0.21770649798044317, 0.19154615359193972, -0.2901655869283403],
            ),
        ];
        for (full, moments, wxyz) in cases {
            let (m, q) = principal(full);
            assert!(
                (m - DVec3::from_array(moments)).abs().max_element() < 1e-15,
                "{full:?}: {m} vs {moments:?}"
            );
            let ours = [q.w, q.x, q.y, q.z];
            for k in 0..4 {
                assert!((ours[k] - wxyz[k]).abs() < 1e-15, "{full:?}: {ours:?} vs MuJoCo's {wxyz:?}");
            }
        }
    }
}
