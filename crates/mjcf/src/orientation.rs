//! MJCF frame orientations: `quat`, `axisangle`, `euler`, `xyaxes`, `zaxis`, and the `fromto` frame.
//!
//! Quaternions are written `(w, x, y, z)` in MJCF and normalised on reading. Angles in `axisangle` and `euler` are in
//! the compiler's `angle` unit (degrees unless `<compiler angle="radian"/>`). `euler` follows `eulerseq` (default
//! `xyz`): a lowercase letter rotates about the axis of the frame as rotated so far (intrinsic, post-multiplied), an
//! uppercase letter about the fixed parent axis (extrinsic, pre-multiplied), as in MuJoCo.

use glam::{DMat3, DQuat, DVec3};

use crate::attrs::Attrs;
use crate::compiler::Compiler;
use crate::error::Result;

/// The orientation attributes; at most one may be given (per layer: an element's own one replaces a default's).
pub const ORIENTATION_ATTRIBUTES: [&str; 5] = ["quat", "axisangle", "euler", "xyaxes", "zaxis"];

/// The minimal rotation taking `+z` onto `vec` (MuJoCo's `mjuu_z2quat`; `vec` need not be unit). For `vec` along
/// `−z` it is the half-turn about `x`.
pub fn z2quat(vec: DVec3) -> DQuat {
    let cross = DVec3::Z.cross(vec);
    let s = cross.length();
    let axis = if s < 1e-10 { DVec3::X } else { cross / s };
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

/// A `(w, x, y, z)` quaternion as glam's, normalised; `None` for a zero quaternion.
pub fn quat_wxyz(q: [f64; 4]) -> Option<DQuat> {
    let v = DQuat::from_xyzw(q[1], q[2], q[3], q[0]);
    let n = v.length();
    (n > 0.0 && n.is_finite()).then(|| v / n)
}

/// Reads the orientation of the element (identity when none is given).
///
/// The last layer (element or default class) that gives an orientation decides; two different orientation
/// attributes in that layer are an error.
pub fn read(attrs: &Attrs<'_>, compiler: &Compiler) -> Result<DQuat> {
    let Some(given) = given_attribute(attrs)? else {
        return Ok(DQuat::IDENTITY);
    };
    match given {
        "quat" => {
            let q = attrs.array_or::<4>("quat", [1.0, 0.0, 0.0, 0.0])?;
            quat_wxyz(q).ok_or_else(|| attrs.invalid_named("quat", "quaternion has zero norm"))
        }
        "axisangle" => {
            let [x, y, z, a] = attrs.array_or::<4>("axisangle", [0.0; 4])?;
            let axis = DVec3::new(x, y, z);
            let n = axis.length();
            if !(n > 1e-12) {
                return Err(attrs.invalid_named("axisangle", "axis has zero length"));
            }
            Ok(DQuat::from_axis_angle(axis / n, compiler.angle(a)))
        }
        "euler" => {
            let e = attrs.array_or::<3>("euler", [0.0; 3])?;
            Ok(euler_to_quat(e.map(|a| compiler.angle(a)), compiler.eulerseq).normalize())
        }
        "xyaxes" => {
            let v = attrs.array_or::<6>("xyaxes", [0.0; 6])?;
            let x = DVec3::new(v[0], v[1], v[2]);
            let y = DVec3::new(v[3], v[4], v[5]);
            let bad = || attrs.invalid_named("xyaxes", "axes must be non-zero and not parallel");
            let x = x.try_normalize().ok_or_else(bad)?;
            let y = (y - x * x.dot(y)).try_normalize().ok_or_else(bad)?;
            let z = x.cross(y).try_normalize().ok_or_else(bad)?;
            Ok(DQuat::from_mat3(&DMat3::from_cols(x, y, z)).normalize())
        }
        _ => {
            let z = DVec3::from_array(attrs.array_or::<3>("zaxis", [0.0, 0.0, 1.0])?);
            let z = z.try_normalize().ok_or_else(|| attrs.invalid_named("zaxis", "axis has zero length"))?;
            Ok(z2quat(z))
        }
    }
}

/// The orientation attribute in effect, if any.
fn given_attribute(attrs: &Attrs<'_>) -> Result<Option<&'static str>> {
    for layer in attrs.layers().iter().rev() {
        let present: Vec<&'static str> =
            ORIENTATION_ATTRIBUTES.iter().copied().filter(|n| layer.iter().any(|a| a.name == *n)).collect();
        match present.as_slice() {
            [] => continue,
            [one] => return Ok(Some(one)),
            [_, second, ..] => {
                let a = layer.iter().find(|a| a.name == *second).unwrap_or(&layer[0]);
                return Err(attrs.invalid(a, format!("only one of {} may be given", present.join(", "))));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

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
