//! MJCF frame orientations: `quat`, `axisangle`, `euler`, `xyaxes`, `zaxis`, and the `fromto` frame.
//!
//! Quaternions are written `(w, x, y, z)` in MJCF and normalised on reading. Angles in `axisangle` and `euler` are in
//! the compiler's `angle` unit (degrees unless `<compiler angle="radian"/>`). `euler` follows `eulerseq` (default
//! `xyz`): a lowercase letter rotates about the axis of the frame as rotated so far (intrinsic, post-multiplied), an
//! uppercase letter about the fixed parent axis (extrinsic, pre-multiplied), as in MuJoCo. `euler`, and the
//! composition of frames ([`compose`], [`rotate`]), follow MuJoCo's compiler arithmetic to the bit; the other
//! conversions are [`signorini_xml::orientation`]'s.

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::rotation::normalize_quat_compiled;
use signorini_xml::orientation::{quat_wxyz, z2quat};

use crate::compiler::Compiler;
use crate::eig3;
use crate::error::Result;
use signorini_xml::attrs::Attrs;

/// `mjuu_normvec` for a quaternion, as MuJoCo's compiler normalises ([`normalize_quat_compiled`]): unchanged within
/// 1e-14 of unit length (glam's `normalize` would still move its last bits), else divided by its norm.
pub fn normalized(q: DQuat) -> DQuat {
    normalize_quat_compiled(q).unwrap_or(q)
}

/// `a ⊗ b` normalised as MuJoCo's compiler does (`mjuu_mulquat`).
pub fn compose(a: DQuat, b: DQuat) -> DQuat {
    normalized(a * b)
}

/// `R(q) v` as MuJoCo's compiler computes it (`mjuu_quat2mat`, then the row-major product `mjuu_mulvecmat`).
pub fn rotate(q: DQuat, v: DVec3) -> DVec3 {
    let m = eig3::quat_to_mat(&[q.w, q.x, q.y, q.z]);
    DVec3::new(
        m[0] * v.x + m[1] * v.y + m[2] * v.z,
        m[3] * v.x + m[4] * v.y + m[5] * v.z,
        m[6] * v.x + m[7] * v.y + m[8] * v.z,
    )
}

/// `R(q) v` for a direction, as MuJoCo's compiler turns a joint axis or a direction by a frame (`mjuu_rotVecQuat`):
/// `v + 2 q⃗ × (w v + q⃗ × v)`; the zero vector and the identity give `v` back unchanged.
pub fn rotate_direction(q: DQuat, v: DVec3) -> DVec3 {
    if v == DVec3::ZERO {
        return DVec3::ZERO;
    }
    if q.w == 1.0 && q.x == 0.0 && q.y == 0.0 && q.z == 0.0 {
        return v;
    }
    let t = [
        q.w * v.x + q.y * v.z - q.z * v.y,
        q.w * v.y + q.z * v.x - q.x * v.z,
        q.w * v.z + q.x * v.y - q.y * v.x,
    ];
    DVec3::new(
        v.x + 2.0 * (q.y * t[2] - q.z * t[1]),
        v.y + 2.0 * (q.z * t[0] - q.x * t[2]),
        v.z + 2.0 * (q.x * t[1] - q.y * t[0]),
    )
}

/// Euler angles in the compiler's unit, as MuJoCo's compiler turns them (`ResolveOrientation`): degrees as
/// `a / 180 · π`, one axis rotation after the other composed by [`compose`], the result normalised.
pub fn euler(angles: [f64; 3], compiler: &Compiler) -> DQuat {
    let mut q = DQuat::IDENTITY;
    for (a, axis) in angles.into_iter().zip(compiler.eulerseq) {
        let a = if compiler.degrees { a / 180.0 * std::f64::consts::PI } else { a };
        let (s, c) = ((a / 2.0).sin(), (a / 2.0).cos());
        let r = match axis.to_ascii_lowercase() {
            b'x' => DQuat::from_xyzw(s, 0.0, 0.0, c),
            b'y' => DQuat::from_xyzw(0.0, s, 0.0, c),
            _ => DQuat::from_xyzw(0.0, 0.0, s, c),
        };
        q = if axis.is_ascii_lowercase() { compose(q, r) } else { compose(r, q) };
    }
    normalized(q)
}

/// The orientation attributes; at most one may be given (per layer: an element's own one replaces a default's).
pub const ORIENTATION_ATTRIBUTES: [&str; 5] = ["quat", "axisangle", "euler", "xyaxes", "zaxis"];

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
            Ok(quat_wxyz(q).ok_or_else(|| attrs.invalid_named("quat", "quaternion has zero norm"))?)
        }
        "axisangle" => {
            let [x, y, z, a] = attrs.array_or::<4>("axisangle", [0.0; 4])?;
            let axis = DVec3::new(x, y, z);
            let n = axis.length();
            if !(n > 1e-12) {
                return Err(attrs.invalid_named("axisangle", "axis has zero length").into());
            }
            Ok(DQuat::from_axis_angle(axis / n, compiler.angle(a)))
        }
        "euler" => {
            let e = attrs.array_or::<3>("euler", [0.0; 3])?;
            Ok(euler(e, compiler))
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
            // Scaled to unit length as `mjuu_normvec` does (divided by the norm, unless within 1e-14 of 1), then
            // turned into MuJoCo's minimal rotation from +z.
            let z = DVec3::from_array(attrs.array_or::<3>("zaxis", [0.0, 0.0, 1.0])?);
            let z = signorini_model::model::unit_axis(z)
                .ok_or_else(|| attrs.invalid_named("zaxis", "axis has zero length"))?;
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
                return Err(attrs
                    .invalid(a, format!("only one of {} may be given", present.join(", ")))
                    .into());
            }
        }
    }
    Ok(None)
}
