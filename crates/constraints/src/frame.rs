//! The tangent frame of a contact normal. Both constructions start from the same helper axis:
//! `y = e_y` when `|n_y| < 0.5`, else `e_z`, and `t = normalize(y − (n·y) n)`.
//!
//! - [`TangentFrame::Orthogonals`] (Genesis `qd_orthogonals`, spec §B.8): `(d₁, d₂) = (t × n, t)`;
//! - [`TangentFrame::MakeFrame`] (MuJoCo): `(d₁, d₂) = (−t, n × t)`. MuJoCo builds its frame with `mju_makeFrame`
//!   from its own normal, which points the other way (from geom A to geom B: `−n`), as `(e₁, e₂) = (t, −n × t)`
//!   ([`mujoco_tangents`] of `−n`), and its rows measure `e·(v_B − v_A)`; signorini's rows measure `d·(v_A − v_B)`, so
//!   `d = −e` gives the same rows, pyramid edges and friction forces as MuJoCo's, in the same order.
//!
//! The choice only orients the pyramid edges and the friction rows (spec §H). While all four edges of a contact's
//! pyramid are active their costs sum to a rotation-invariant one; once some are not, the edges' directions change
//! the solution, so MuJoCo's frame must be followed exactly.
//!
//! A pair routine may give the first tangent (MuJoCo's `tangent` of an `mjPreContact`: plane–capsule contacts take
//! the capsule axis). [`TangentFrame::hinted_tangents`] then completes the frame as `mju_makeFrame` does: `t` is that
//! hint made orthogonal to MuJoCo's normal and unit (`e_x` when nothing is left), in place of the helper axis.

use glam::DVec3;

/// Which tangents `(d₁, d₂)` a contact with unit normal `n` gets, from the helper tangent `t` of the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TangentFrame {
    /// `(d₁, d₂) = (t × n, t)` (Genesis `qd_orthogonals`, [`native_tangents`]). Default.
    #[default]
    Orthogonals,
    /// `(d₁, d₂) = (t, n × t)` (MuJoCo `mju_makeFrame`, [`mujoco_tangents`]).
    MakeFrame,
}

impl TangentFrame {
    /// The tangents `(d₁, d₂)` of the unit normal `n`.
    #[inline]
    pub fn tangents(self, n: DVec3) -> (DVec3, DVec3) {
        match self {
            Self::Orthogonals => native_tangents(n),
            Self::MakeFrame => mujoco_row_tangents(n),
        }
    }

    /// [`TangentFrame::tangents`] with the pair routine's first tangent `hint` (zero for none). MuJoCo's frame uses a
    /// hint of squared length ≥ 0.25, as `mju_makeFrame` does; the native frame has no hints and ignores it.
    #[inline]
    pub fn hinted_tangents(self, n: DVec3, hint: DVec3) -> (DVec3, DVec3) {
        match self {
            Self::MakeFrame if hint.length_squared() >= 0.25 => {
                // MuJoCo's normal is −n: its frame is (t, −n × t) with t the hint made orthogonal to it.
                let (e1, e2) = made_frame(-n, hint);
                (-e1, -e2)
            }
            _ => self.tangents(n),
        }
    }
}

/// `mju_makeFrame`'s tangents `(t, x × t)` for the unit normal `x` and the axis `y` (the pair routine's tangent, else
/// the helper axis): `t = y − (x·y) x`, made unit by the reciprocal of its length, or `e_x` when that length is below
/// MuJoCo's `mjMINVAL` (1e-15; never for the helper axis).
fn made_frame(x: DVec3, y: DVec3) -> (DVec3, DVec3) {
    let v = y - x * x.dot(y);
    let len = v.length();
    let t = if len < 1e-15 { DVec3::X } else { v * (1.0 / len) };
    (t, x.cross(t))
}

/// The helper axis of `n`: `e_y` when `|n_y| < 0.5`, else `e_z` (never within 60° of `n`).
fn helper_axis(n: DVec3) -> DVec3 {
    if n.y.abs() < 0.5 { DVec3::Y } else { DVec3::Z }
}

/// The helper tangent `t` of the module docs.
fn helper(n: DVec3) -> DVec3 {
    made_frame(n, helper_axis(n)).0
}

/// The tangents `(t × n, t)` of a unit normal `n` ([`TangentFrame::Orthogonals`]).
pub fn native_tangents(n: DVec3) -> (DVec3, DVec3) {
    let t = helper(n);
    (t.cross(n), t)
}

/// MuJoCo's `mju_makeFrame` tangents `(t, n × t)` of a unit normal `n`.
pub fn mujoco_tangents(n: DVec3) -> (DVec3, DVec3) {
    made_frame(n, helper_axis(n))
}

/// The tangents of [`TangentFrame::MakeFrame`] for signorini's normal `n` (from B to A): minus MuJoCo's
/// `mju_makeFrame` tangents of its normal `−n`, `(−t, n × t)` (see the module docs).
pub fn mujoco_row_tangents(n: DVec3) -> (DVec3, DVec3) {
    let (e1, e2) = mujoco_tangents(-n);
    (-e1, -e2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_orthonormal_and_right_handed() {
        for n in [DVec3::Z, DVec3::NEG_Z, DVec3::Y, DVec3::new(0.3, -0.6, 0.2), DVec3::new(-1.0, 0.7, 0.1)] {
            let n = n.normalize();
            let (a, b) = native_tangents(n);
            let (c, d) = mujoco_tangents(n);
            for (t1, t2) in [(a, b), (c, d)] {
                assert!((t1.length() - 1.0).abs() < 1e-14 && (t2.length() - 1.0).abs() < 1e-14);
                assert!(t1.dot(n).abs() < 1e-14 && t2.dot(n).abs() < 1e-14 && t1.dot(t2).abs() < 1e-14);
            }
            assert!((a.cross(b) - n).length() < 1e-14, "native d1 × d2 = n");
            assert!((n.cross(c) - d).length() < 1e-14, "MuJoCo n × t1 = t2");
            assert_eq!(b, c, "same helper axis");
        }
        // mju_makeFrame for n = +z: helper e_y.
        assert_eq!(mujoco_tangents(DVec3::Z), (DVec3::Y, DVec3::NEG_X));
    }

    /// A hint replaces the helper axis in MuJoCo's frame only: a capsule axis along `e_x` on a floor (`n = +z`) gives
    /// MuJoCo's frame `(e_x, −e_z × e_x) = (e_x, −e_y)`, negated for signorini's rows; a short hint is no hint.
    #[test]
    fn a_hint_turns_mujocos_frame_only() {
        let tilted = DVec3::new(1.0, 0.0, 0.3);
        assert_eq!(TangentFrame::MakeFrame.hinted_tangents(DVec3::Z, tilted), (DVec3::NEG_X, DVec3::Y));
        assert_eq!(
            TangentFrame::MakeFrame.hinted_tangents(DVec3::Z, 0.4 * DVec3::X),
            mujoco_row_tangents(DVec3::Z)
        );
        assert_eq!(
            TangentFrame::MakeFrame.hinted_tangents(DVec3::Z, DVec3::ZERO),
            mujoco_row_tangents(DVec3::Z)
        );
        assert_eq!(TangentFrame::Orthogonals.hinted_tangents(DVec3::Z, tilted), native_tangents(DVec3::Z));
        // A hint along the normal leaves nothing: MuJoCo falls back to e_x.
        assert_eq!(TangentFrame::MakeFrame.hinted_tangents(DVec3::Z, DVec3::Z), (DVec3::NEG_X, DVec3::Y));
        let n = DVec3::new(0.3, -0.6, 0.2).normalize();
        let (d1, d2) = TangentFrame::MakeFrame.hinted_tangents(n, DVec3::new(0.2, 0.9, -0.4));
        assert!(d1.dot(n).abs() < 1e-15 && d2.dot(n).abs() < 1e-15 && d1.dot(d2).abs() < 1e-15);
        assert!((d1.length() - 1.0).abs() < 1e-15 && (d2.length() - 1.0).abs() < 1e-15);
    }

    /// The setting picks the construction and nothing else: for `n = +z` (helper `t = e_y`) the orthogonals are
    /// `(e_y × e_z, e_y) = (e_x, e_y)` and MuJoCo's rows `(−e_y, e_z × e_y) = (−e_y, −e_x)`.
    #[test]
    fn tangent_frame_selects_the_construction() {
        assert_eq!(TangentFrame::default(), TangentFrame::Orthogonals);
        assert_eq!(TangentFrame::Orthogonals.tangents(DVec3::Z), (DVec3::X, DVec3::Y));
        // Signorini's normal +z is MuJoCo's −z: its frame (e_y, −e_z × e_y) = (e_y, e_x), negated.
        assert_eq!(TangentFrame::MakeFrame.tangents(DVec3::Z), (DVec3::NEG_Y, DVec3::NEG_X));
        let n = DVec3::new(0.3, -0.6, 0.2).normalize();
        assert_eq!(TangentFrame::Orthogonals.tangents(n), native_tangents(n));
        assert_eq!(TangentFrame::MakeFrame.tangents(n), mujoco_row_tangents(n));
    }
}
