//! Rotations with MuJoCo 4.0.1's arithmetic, so that frames computed from the same quaternions round as MuJoCo's do.
//!
//! Mathematically these are glam's `DMat3::from_quat`, `DQuat * DVec3`, `DQuat * DQuat` and `DQuat::normalize`; they
//! differ in the last bits. MuJoCo 4.0.1 computes `mju_mulQuat`, `mju_quat2Mat`'s diagonal and `mju_normalize4`'s norm
//! with AVX lanes, in an order that differs from its C source (read off its disassembly; each formula here equals
//! MuJoCo's bit for bit on 20 000 random inputs). A body lying
//! on a plane at a distance of exactly 0 in MuJoCo is ±1e-16 away with glam's rounding, which decides whether the
//! contact exists (the model folder's `humanoid/100_humanoids.xml`: 40 of MuJoCo's 792 contacts at the first step).

use glam::{DMat3, DQuat, DVec3};

/// The rotation matrix of a unit quaternion (`mju_quat2Mat`): diagonal `(w² ∓ y²) ± (x² ∓ z²)` and
/// `(w² + y²) − (x² + z²)`, off-diagonal `2(q_i q_j ± w q_k)`; exactly the identity for `(1, 0, 0, 0)`.
#[inline]
pub fn quat_to_mat(q: DQuat) -> DMat3 {
    let (w, x, y, z) = (q.w, q.x, q.y, q.z);
    if w == 1.0 && x == 0.0 && y == 0.0 && z == 0.0 {
        return DMat3::IDENTITY;
    }
    let (q00, q01, q02, q03) = (w * w, w * x, w * y, w * z);
    let (q11, q12, q13) = (x * x, x * y, x * z);
    let (q22, q23, q33) = (y * y, y * z, z * z);
    DMat3::from_cols(
        DVec3::new((q00 - q22) + (q11 - q33), 2.0 * (q12 + q03), 2.0 * (q13 - q02)),
        DVec3::new(2.0 * (q12 - q03), (q00 + q22) - (q11 + q33), 2.0 * (q23 + q01)),
        DVec3::new(2.0 * (q13 + q02), 2.0 * (q23 - q01), (q00 - q22) - (q11 - q33)),
    )
}

/// `v` rotated by the unit quaternion `q` (`mju_rotVecQuat`): `t = w v + q_xyz × v`, then `v + 2 q_xyz × t`; zero
/// for a zero `v` and `v` itself for the identity.
#[inline]
pub fn rotate_vec(q: DQuat, v: DVec3) -> DVec3 {
    if v == DVec3::ZERO {
        return DVec3::ZERO;
    }
    if q.w == 1.0 && q.x == 0.0 && q.y == 0.0 && q.z == 0.0 {
        return v;
    }
    let t = DVec3::new(
        q.w * v.x + q.y * v.z - q.z * v.y,
        q.w * v.y + q.z * v.x - q.x * v.z,
        q.w * v.z + q.x * v.y - q.y * v.x,
    );
    DVec3::new(
        v.x + 2.0 * (q.y * t.z - q.z * t.y),
        v.y + 2.0 * (q.z * t.x - q.x * t.z),
        v.z + 2.0 * (q.x * t.y - q.y * t.x),
    )
}

/// The Hamilton product `a ⊗ b` (`mju_mulQuat`): each component as two pairs of products, summed pair by pair.
#[inline]
pub fn mul_quat(a: DQuat, b: DQuat) -> DQuat {
    let (a0, a1, a2, a3) = (a.w, a.x, a.y, a.z);
    let (b0, b1, b2, b3) = (b.w, b.x, b.y, b.z);
    DQuat::from_xyzw(
        (a0 * b1 + a1 * b0) + (a2 * b3 + -(a3 * b2)),
        (a0 * b2 - a1 * b3) + (a2 * b0 + a3 * b1),
        (a0 * b3 + a1 * b2) + (-(a2 * b1) + a3 * b0),
        (a0 * b0 - a1 * b1) + (-(a2 * b2) + -(a3 * b3)),
    )
}

/// `q ⊗ (0, a)` (`mju_mulQuatAxis` of MuJoCo 4.0.1, AVX lanes read off its machine code): each component as the sum of
/// the first two products, then the third.
#[inline]
pub fn mul_quat_axis(q: DQuat, a: DVec3) -> DQuat {
    let (q0, q1, q2, q3) = (q.w, q.x, q.y, q.z);
    DQuat::from_xyzw(
        (q0 * a.x + -(q3 * a.y)) + q2 * a.z,
        (q3 * a.x + q0 * a.y) + -(q1 * a.z),
        (-(q2 * a.x) + q1 * a.y) + q0 * a.z,
        (-(q1 * a.x) + -(q2 * a.y)) + -(q3 * a.z),
    )
}

/// `q / |q|` (`mju_normalize4`), with `|q|² = (w² + x²) + (y² + z²)`: the identity below `min_norm`, `q` itself
/// when `|q|` is within `min_norm` of 1, else `q · (1/|q|)`.
#[inline]
pub fn normalize_quat(q: DQuat, min_norm: f64) -> DQuat {
    let norm = ((q.w * q.w + q.x * q.x) + (q.y * q.y + q.z * q.z)).sqrt();
    if norm < min_norm {
        DQuat::IDENTITY
    } else if (norm - 1.0).abs() > min_norm {
        q * (1.0 / norm)
    } else {
        q
    }
}

/// `(v / |v|, |v|)` (`mju_normalize3` of MuJoCo 4.0.1, which returns the norm too): `|v|² = (x² + y²) + z²`, then
/// `v · (1/|v|)`; `e_x` when `|v|` is below `min_norm`. Unlike [`normalize_quat`] (and MuJoCo 3.x), a vector already
/// within `min_norm` of unit length is scaled all the same (read off 4.0.1's disassembly of `mju_normalize3` and of
/// `mju_quatIntegrate`, which inlines it).
#[inline]
pub fn normalize_vec3(v: DVec3, min_norm: f64) -> (DVec3, f64) {
    let norm = ((v.x * v.x + v.y * v.y) + v.z * v.z).sqrt();
    (if norm < min_norm { DVec3::X } else { v * (1.0 / norm) }, norm)
}

/// A quaternion normalised as MuJoCo's compiler does (`mjuu_normvec` on `(w, x, y, z)`, unlike [`normalize_quat`] at
/// run time): `|q|² = ((w² + x²) + y²) + z²`; `q` itself when `|q|` is within 10⁻¹⁴ of 1 (normalising again would move
/// its last bits, and with them every pose computed from it), else each component divided by `|q|`. `None` when `|q|²`
/// is below 10⁻¹⁴ or not finite, where `mjuu_normvec` leaves the vector as it is.
#[inline]
pub fn normalize_quat_compiled(q: DQuat) -> Option<DQuat> {
    let norm2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
    if !(norm2 >= 1e-14 && norm2.is_finite()) {
        return None;
    }
    let norm = norm2.sqrt();
    Some(if (norm - 1.0).abs() > 1e-14 {
        DQuat::from_xyzw(q.x / norm, q.y / norm, q.z / norm, q.w / norm)
    } else {
        q
    })
}

/// The world pose of a frame given in a body's frame (`mj_local2Global`): position `R(body) · local + body`, with
/// `R` from [`quat_to_mat`], orientation [`mul_quat`]`(body, local)`.
#[inline]
pub fn local_to_world(body: &crate::Pose, local: &crate::Pose) -> crate::Pose {
    crate::Pose {
        translation: quat_to_mat(body.rotation) * local.translation + body.translation,
        rotation: mul_quat(body.rotation, local.rotation),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mju_mulQuatAxis` of MuJoCo 4.0.1 (`mujoco.mju_mulQuatAxis` on random unit quaternions `(w, x, y, z)` and axes),
    /// bit for bit; its C source's order rounds differently on about half of such inputs.
    #[test]
    fn mul_quat_axis_is_mujocos() {
        let cases: [([u64; 4], [u64; 3], [u64; 4]); 6] = [
            (
                [0x3f5498bfccdf5905, 0x3fd389f3206876c9, 0xbfd1edf05c74682d, 0xbfed1fab395a4995],
                [0xbfdd19537e309692, 0xbfefbb918e5cd3f0, 0x3faecb246c7071e5],
                [0xbfb59223faec29d6, 0xbfed7019314ffa70, 0x3fd93a7d5dfa9ffe, 0xbfdb85d6ac9f90a6],
            ),
            (
                [0x3fea476994b83628, 0xbfd34d68dc631ab2, 0xbfd8552272689290, 0x3fd335ac08555455],
                [0x3fd6d73c9b1a8b33, 0x3fbafc6d9ffa76ca, 0xbfedc664ebbfd571],
                [0x3fdb53e6ad9b9dc3, 0x3fe3afbc2d7c5582, 0xbfb641c2cd1a1fd8, 0xbfe5208a8ab8effa],
            ),
            (
                [0xbf92f12e4bf3211e, 0x3fdc23eef8cfbfb8, 0xbfeb339a9e8cd0e6, 0xbfd2854a06dc4749],
                [0xbffe6b68891db2c3, 0xbff4a1f253355902, 0xbffd77bf28b367b0],
                [0xbfe961c9caf68772, 0x3ff3a41772aee2d1, 0x3ff62433c004e54a, 0xc00131492ea3234b],
            ),
            (
                [0xbfc6aef6c9242a9b, 0xbfee92c4ea787459, 0x3fca2c79bb77344a, 0x3fbe3fc9ae32c332],
                [0xbfc7ed5a6ae5e4ab, 0xc0042252ea4eea8a, 0xbfe13cf8e247f67c],
                [0x3fd9947e5a0e3314, 0x3fcc34a119a63062, 0xbfb73be31f6e556c, 0x40044e51607c40d3],
            ),
            (
                [0xbf9ee4403c62986e, 0x3fb20adb9d324c2f, 0xbfee74b0723e71e8, 0xbfd304b5d1b2ec4c],
                [0xbfef50073dd87da6, 0xbfe9e1fea263d5fb, 0x3ff0f970d5bd08b8],
                [0xbfd8ad6318661940, 0xbff38755ba94a283, 0x3fcec5be21651400, 0xbff05330a6dbf62b],
            ),
            (
                [0xbfe3641bd27ecd5f, 0xbf98fd65f16bbc60, 0x3fe53c8e509be972, 0xbfdc07100ec54ed2],
                [0xbfbc987fbc5d0834, 0x3fbc4760caa31e1e, 0x3fb054009a819fe2],
                [0xbfa8a0e82d88720f, 0x3fc4463083e8a1a3, 0xbf90dbdbec16e1e5, 0x3fa0c9204faccd76],
            ),
        ];
        for (q, a, expected) in cases {
            let f = |b: u64| f64::from_bits(b);
            let q = DQuat::from_xyzw(f(q[1]), f(q[2]), f(q[3]), f(q[0]));
            let r = mul_quat_axis(q, DVec3::new(f(a[0]), f(a[1]), f(a[2])));
            assert_eq!([r.w, r.x, r.y, r.z].map(f64::to_bits), expected);
        }
    }

    /// Against glam's conversions (the same rotations, to rounding), on random unit quaternions and vectors.
    #[test]
    fn agree_with_glam_to_rounding() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut r = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for _ in 0..1000 {
            let q = DQuat::from_xyzw(r(), r(), r(), r()).normalize();
            let v = DVec3::new(r(), r(), r());
            assert!(quat_to_mat(q).abs_diff_eq(DMat3::from_quat(q), 1e-15));
            assert!((rotate_vec(q, v) - q * v).length() < 1e-15);
        }
        assert_eq!(quat_to_mat(DQuat::IDENTITY), DMat3::IDENTITY);
    }

    /// Bit patterns of MuJoCo 4.0.1's `mju_quat2Mat` and `mju_rotVecQuat` (printed with `mujoco.mju_quat2Mat` and
    /// `mujoco.mju_rotVecQuat` for this quaternion and vector).
    #[test]
    fn matches_mujoco_bits() {
        let q = DQuat::from_xyzw(
            0.48278395983181416,
            -0.468543129443505,
            -0.529591668978362,
            -0.5166426696751955,
        );
        let m = quat_to_mat(q);
        let v = rotate_vec(q, DVec3::new(0.1, -0.2, 0.3));
        const MUJOCO_MAT: [f64; 9] = [
            -1.3877787807814457e-16,
            -0.9996295221668978,
            -0.027217979579299667,
            0.09480909262799536,
            -0.027095375444347425,
            0.9951266635884026,
            -0.995495472593952,
            -0.002580511947080588,
            0.0947739679608002,
        ];
        const MUJOCO_VEC: [f64; 3] = [0.1917605105595897, 0.3134379834281898, -0.07060125448173898];
        let expect_m: [f64; 9] = MUJOCO_MAT;
        let expect_v: [f64; 3] = MUJOCO_VEC;
        let rows = m.transpose().to_cols_array();
        assert_eq!(rows, expect_m);
        assert_eq!(v.to_array(), expect_v);
        // mju_mulQuat([0.3, -0.7, 0.2, 0.61], [-0.45, 0.12, 0.83, -0.31]) and mju_normalize4([0.3, -0.7, 0.2, 0.61]).
        let (a, b) = (DQuat::from_xyzw(-0.7, 0.2, 0.61, 0.3), DQuat::from_xyzw(0.12, 0.83, -0.31, -0.45));
        let p = mul_quat(a, b);
        assert_eq!(
            [p.w, p.x, p.y, p.z],
            [-0.027900000000000036, -0.21730000000000005, 0.015199999999999964, -0.9724999999999999]
        );
        let n = normalize_quat(a, 1e-15);
        assert_eq!(
            [n.w, n.x, n.y, n.z],
            [0.3011920676692069, -0.7027814912281495, 0.20079471177947128, 0.6124238709273874]
        );
    }

    /// MuJoCo 4.0.1's compiled `body_quat` of `quat="0.39871 -0.125792 0.668374 -0.615209"`, bit for bit; a unit
    /// quaternion and one within 1e-14 of unit length are left alone; a zero one has no direction.
    #[test]
    fn compiled_normalisation_matches_mujoco_bits() {
        let q = normalize_quat_compiled(DQuat::from_xyzw(-0.125792, 0.668374, -0.615209, 0.39871)).unwrap();
        let mujoco = [0.39871015770564766, -0.1257920497557343, 0.6683742643684747, -0.6152092433396047];
        assert_eq!([q.w, q.x, q.y, q.z].map(f64::to_bits), mujoco.map(f64::to_bits));
        let near = DQuat::from_xyzw(0.0, 0.0, 0.0, 1.0 + 4e-15);
        assert_eq!(normalize_quat_compiled(near), Some(near));
        assert_eq!(
            normalize_quat_compiled(DQuat::from_xyzw(0.5, 0.5, 0.5, 0.5)),
            Some(DQuat::from_xyzw(0.5, 0.5, 0.5, 0.5))
        );
        assert_eq!(normalize_quat_compiled(DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0)), None);
        assert_eq!(normalize_quat_compiled(DQuat::from_xyzw(f64::NAN, 0.0, 0.0, 1.0)), None);
    }

    /// `mujoco.mju_normalize3` of 4.0.1 on a vector 1.1e-16 short of unit length: scaled all the same.
    #[test]
    fn normalize_vec3_matches_mujoco_bits() {
        let v = DVec3::new(-0.5878836575040151, 0.7249926029290347, -0.35885725705060634);
        let mujoco = [-0.5878836575040152, 0.7249926029290348, -0.3588572570506064];
        assert_eq!(normalize_vec3(v, 1e-15).0.to_array().map(f64::to_bits), mujoco.map(f64::to_bits));
        assert_eq!(normalize_vec3(DVec3::new(1e-16, 0.0, 0.0), 1e-15), (DVec3::X, 1e-16));
    }
}
