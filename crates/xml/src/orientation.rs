//! Orientation conversions shared by the loaders: Euler sequences (MJCF `euler`, URDF `rpy`), `(w, x, y, z)`
//! quaternions, and the minimal rotation onto a direction (MJCF `zaxis` and `fromto` frames).
//!
//! Angles are in radians. In an Euler sequence a lowercase letter rotates about the axis of the frame as rotated so
//! far (intrinsic, post-multiplied), an uppercase letter about the fixed parent axis (extrinsic, pre-multiplied), as
//! in MuJoCo; URDF's `rpy` is the sequence `XYZ`: `R = Rz(y) Ry(p) Rx(r)`.

use glam::{DQuat, DVec3};
use signorini_geometry::rotation::normalize_quat_compiled;

/// The minimal rotation taking `+z` onto `vec` (MuJoCo's `mjuu_z2quat`; `vec` need not be unit). For `vec` along
/// `−z` it is the half-turn about `x`. The axis `z × vec` is scaled as `mjuu_normvec` scales it: left alone within
/// 1e-14 of unit length (a unit `vec` perpendicular to `z`), its length taken as 0 when its square is below 1e-14.
pub fn z2quat(vec: DVec3) -> DQuat {
    let cross = DVec3::Z.cross(vec);
    let norm2 = cross.x * cross.x + cross.y * cross.y + cross.z * cross.z;
    let s = if norm2 < 1e-14 { 0.0 } else { norm2.sqrt() };
    let axis = if s < 1e-10 {
        DVec3::X
    } else if (s - 1.0).abs() > 1e-14 {
        cross / s
    } else {
        cross
    };
    let angle = s.atan2(vec.z);
    let (sin, cos) = (angle / 2.0).sin_cos();
    DQuat::from_xyzw(axis.x * sin, axis.y * sin, axis.z * sin, cos)
}

/// Euler angles (radians) composed in the sequence `seq` (three of `xyzXYZ`).
pub fn euler_to_quat(angles: [f64; 3], seq: [u8; 3]) -> DQuat {
    let mut q = DQuat::IDENTITY;
    for (angle, axis) in angles.into_iter().zip(seq) {
        let (sin, cos) = (angle / 2.0).sin_cos();
        let r = match axis.to_ascii_lowercase() {
            b'x' => DQuat::from_xyzw(sin, 0.0, 0.0, cos),
            b'y' => DQuat::from_xyzw(0.0, sin, 0.0, cos),
            _ => DQuat::from_xyzw(0.0, 0.0, sin, cos),
        };
        q = if axis.is_ascii_lowercase() { q * r } else { r * q };
    }
    q
}

/// A `(w, x, y, z)` quaternion as glam's, normalised as MuJoCo's compiler does
/// ([`normalize_quat_compiled`]: left alone within 1e-14 of unit length, else divided by the norm); `None` for a zero
/// or non-finite quaternion.
pub fn quat_wxyz(q: [f64; 4]) -> Option<DQuat> {
    let v = DQuat::from_xyzw(q[1], q[2], q[3], q[0]);
    if let Some(unit) = normalize_quat_compiled(v) {
        return Some(unit);
    }
    // Components so small, or so large, that the squared norm underflows or overflows: scale by the largest first.
    let m = q.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    if !(m > 0.0 && m.is_finite()) {
        return None;
    }
    let s = v / m;
    Some(s / s.length())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MuJoCo 4.0.1's `body_quat` of `quat="0.39871 -0.125792 0.668374 -0.615209"` (the benchmark pile's first body),
    /// bit for bit; glam's norm, summed in `x, y, z, w` order, put `w` and `y` one unit in the last place off.
    #[test]
    fn quaternions_are_normalised_as_mujocos_compiler_does() {
        let q = quat_wxyz([0.39871, -0.125792, 0.668374, -0.615209]).unwrap();
        let mujoco = [0.39871015770564766, -0.1257920497557343, 0.6683742643684747, -0.6152092433396047];
        assert_eq!([q.w, q.x, q.y, q.z].map(f64::to_bits), mujoco.map(f64::to_bits));
        let unit = quat_wxyz([0.5, 0.5, 0.5, 0.5]).unwrap();
        assert_eq!([unit.w, unit.x, unit.y, unit.z], [0.5; 4]);
    }

    #[test]
    fn z2quat_matches_mujoco_fromto_frames() {
        // fromto 0 0 0 → 0.3 0 0: MuJoCo's z axis points from `to` towards `from`, i.e. vec = from − to.
        let q = z2quat(DVec3::new(-0.3, 0.0, 0.0));
        assert!((q.w - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-15);
        assert!((q.y + std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-15);
        assert!((q * DVec3::Z - DVec3::NEG_X).length() < 1e-15);
        assert_eq!(z2quat(DVec3::Z), DQuat::IDENTITY);
        assert!((z2quat(DVec3::NEG_Z) * DVec3::Z - DVec3::NEG_Z).length() < 1e-15);
    }

    #[test]
    fn intrinsic_and_extrinsic_euler() {
        let a = [0.3, -0.2, 0.5];
        let intrinsic = euler_to_quat(a, *b"xyz");
        let expected =
            DQuat::from_rotation_x(0.3) * DQuat::from_rotation_y(-0.2) * DQuat::from_rotation_z(0.5);
        assert!(intrinsic.abs_diff_eq(expected, 1e-15));
        let extrinsic = euler_to_quat(a, *b"XYZ");
        let expected =
            DQuat::from_rotation_z(0.5) * DQuat::from_rotation_y(-0.2) * DQuat::from_rotation_x(0.3);
        assert!(extrinsic.abs_diff_eq(expected, 1e-15));
    }
}
