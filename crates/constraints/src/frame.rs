//! The tangent frame of a contact normal. Both constructions start from the same helper axis:
//! `y = e_y` when `|n_y| < 0.5`, else `e_z`, and `t = normalize(y − (n·y) n)`.
//!
//! - [`TangentFrame::Orthogonals`] (Genesis `qd_orthogonals`, spec §B.8): `(d₁, d₂) = (t × n, t)`;
//! - [`TangentFrame::MakeFrame`] (MuJoCo): `(d₁, d₂) = (−t, n × t)`. MuJoCo builds its frame with `mju_makeFrame`
//!   from its own normal, which points the other way (from geom A to geom B: `−n`), as `(e₁, e₂) = (t, −n × t)`
//!   ([`mujoco_tangents`] of `−n`), and its rows measure `e·(v_B − v_A)`; signorini's rows measure `d·(v_A − v_B)`, so
//!   `d = −e` gives the same rows, pyramid edges and friction forces as MuJoCo's, in the same order.
//!
//! The choice only orients the pyramid edges and the friction rows (spec §H): a Newton or CG solve does not depend
//! on it, MuJoCo's PGS (which visits the rows in a shuffled order) does.

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
}

fn helper(n: DVec3) -> DVec3 {
    let y = if n.y.abs() < 0.5 { DVec3::Y } else { DVec3::Z };
    (y - n.dot(y) * n).normalize()
}

/// The tangents `(t × n, t)` of a unit normal `n` ([`TangentFrame::Orthogonals`]).
pub fn native_tangents(n: DVec3) -> (DVec3, DVec3) {
    let t = helper(n);
    (t.cross(n), t)
}

/// MuJoCo's `mju_makeFrame` tangents `(t, n × t)` of a unit normal `n`.
pub fn mujoco_tangents(n: DVec3) -> (DVec3, DVec3) {
    let t = helper(n);
    (t, n.cross(t))
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
