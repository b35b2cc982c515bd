//! Shared frames (MuJoCo's `mjtSameFrame`): MuJoCo's compiler marks a geom or site whose pose in its body equals the
//! body frame, or the body's inertial frame, within a tolerance (`kFrameEps` = 10⁻⁶, element-wise on positions and
//! on quaternions up to sign), and an inertial frame that equals the body frame; its forward kinematics then copies
//! the shared frame (`mj_local2Global`) instead of composing the local pose. A pose within the tolerance but not
//! equal therefore moves by up to 10⁻⁶ (in metres, or in quaternion components).
//!
//! [`ModelSpec::share_frames`] gives the same poses by snapping the local poses onto the frames they share before
//! the model is compiled, in MuJoCo's order: every geom and site is compared with its body's inertial frame as the
//! compiler computed it, then the inertial frames are snapped onto their bodies', then each geom and site takes the
//! (snapped) frame it shares:
//!
//! | MuJoCo | condition | local pose becomes |
//! |---|---|---|
//! | `BODY` | `pos ≈ 0`, `quat ≈ 1` | identity |
//! | `BODYROT` | `quat ≈ 1` | `(pos, 1)` |
//! | `INERTIA` | `pos ≈ ipos`, `quat ≈ iquat` | `(ipos, iquat)` |
//! | `INERTIAROT` | `quat ≈ iquat` | `(pos, iquat)` |
//!
//! Exact equalities change nothing, so a model compiled with tolerance 0 is the model as written (Genesis's
//! kinematics, the native dialect).

use glam::{DQuat, DVec3, DVec4};

use crate::spec::ModelSpec;

/// MuJoCo's `kFrameEps`: the tolerance of its compiler's frame comparisons.
pub const MUJOCO_FRAME_TOLERANCE: f64 = 1e-6;

/// Whether `a` and `b` differ by less than `tol` in every component (MuJoCo's `IsSameVec`).
fn same_vec(a: DVec3, b: DVec3, tol: f64) -> bool {
    (a - b).abs().max_element() < tol
}

/// Whether `a` and `b` differ by less than `tol` in every component, up to the sign of the quaternion (MuJoCo's
/// `IsSameQuat`).
fn same_quat(a: DQuat, b: DQuat, tol: f64) -> bool {
    let close = |b: DQuat| DVec4::from(a - b).abs().max_element() < tol;
    close(b) || close(-b)
}

/// Which frame a geom or site shares (the module table): the body's, or the body's inertial frame (read after the
/// inertial frames are snapped), with or without its position.
#[derive(Clone, Copy)]
enum Share {
    Body { with_position: bool },
    Inertia { with_position: bool },
}

/// MuJoCo's classification of a local pose against its body's inertial frame `(ipos, iquat)`.
fn classify(pos: DVec3, quat: DQuat, ipos: DVec3, iquat: DQuat, tol: f64) -> Option<Share> {
    let unrotated = same_quat(quat, DQuat::IDENTITY, tol);
    if unrotated {
        Some(Share::Body { with_position: same_vec(pos, DVec3::ZERO, tol) })
    } else if same_quat(quat, iquat, tol) {
        Some(Share::Inertia { with_position: same_vec(pos, ipos, tol) })
    } else {
        None
    }
}

/// Sets `(pos, quat)` to the frame `share` names (the snapped inertial frame `(ipos, iquat)` for `Inertia`); whether
/// it changed.
fn apply(share: Share, pos: &mut DVec3, quat: &mut DQuat, ipos: DVec3, iquat: DQuat) -> bool {
    let (new_pos, new_quat) = match share {
        Share::Body { with_position } => (if with_position { DVec3::ZERO } else { *pos }, DQuat::IDENTITY),
        Share::Inertia { with_position } => (if with_position { ipos } else { *pos }, iquat),
    };
    let changed = new_pos != *pos || new_quat != *quat;
    (*pos, *quat) = (new_pos, new_quat);
    changed
}

impl ModelSpec {
    /// Snaps geom, site and inertial frames onto the frames they share within `tolerance`, as MuJoCo's compiler and
    /// kinematics treat them (module docs; [`MUJOCO_FRAME_TOLERANCE`] for MuJoCo's). Returns how many local poses
    /// changed. A tolerance of 0 changes nothing.
    pub fn share_frames(&mut self, tolerance: f64) -> usize {
        let mut changed = 0;
        for body in self.bodies.iter_mut().skip(1) {
            let (ipos, iquat) = (body.inertial.pos, body.inertial.quat);
            let geoms: Vec<Option<Share>> =
                body.geoms.iter().map(|g| classify(g.pos, g.quat, ipos, iquat, tolerance)).collect();
            let sites: Vec<Option<Share>> =
                body.sites.iter().map(|s| classify(s.1, s.2, ipos, iquat, tolerance)).collect();
            // The inertial frame itself: `BODY` or `BODYROT`.
            let i = &mut body.inertial;
            if same_quat(i.quat, DQuat::IDENTITY, tolerance) {
                let pos = if same_vec(i.pos, DVec3::ZERO, tolerance) { DVec3::ZERO } else { i.pos };
                if pos != i.pos || i.quat != DQuat::IDENTITY {
                    changed += 1;
                }
                (i.pos, i.quat) = (pos, DQuat::IDENTITY);
            }
            let (ipos, iquat) = (body.inertial.pos, body.inertial.quat);
            for (g, share) in body.geoms.iter_mut().zip(geoms) {
                if let Some(share) = share {
                    changed += usize::from(apply(share, &mut g.pos, &mut g.quat, ipos, iquat));
                }
            }
            for (s, share) in body.sites.iter_mut().zip(sites) {
                if let Some(share) = share {
                    changed += usize::from(apply(share, &mut s.1, &mut s.2, ipos, iquat));
                }
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use signorini_geometry::{Shape, Sphere};

    use super::*;
    use crate::spec::{BodySpec, GeomSpec, InertialSpec};

    /// One body with an inertial frame `(ipos, iquat)` and geoms at the given local poses.
    fn spec(ipos: DVec3, iquat: DQuat, poses: &[(DVec3, DQuat)]) -> ModelSpec {
        let mut body = BodySpec::new("b", 0, DVec3::Z, DQuat::IDENTITY);
        body.inertial = InertialSpec { mass: 1.0, inertia: DVec3::ONE, pos: ipos, quat: iquat };
        for (k, &(pos, quat)) in poses.iter().enumerate() {
            let shape: Shape = Sphere::new(0.1).unwrap().into();
            body.geoms.push(GeomSpec { pos, quat, ..GeomSpec::new(format!("g{k}"), shape) });
            body.sites.push((format!("s{k}"), pos, quat));
        }
        ModelSpec { bodies: vec![BodySpec::world(), body], ..ModelSpec::default() }
    }

    /// Each row of the module table, both sides of the tolerance, and quaternions equal up to sign.
    #[test]
    fn poses_within_the_tolerance_take_the_frame_they_share() {
        let tilt = DQuat::from_rotation_y(0.7);
        let (ipos, iquat) = (DVec3::new(0.1, 0.0, 0.0), tilt);
        let nudge = DVec3::new(4e-7, -3e-7, 2e-7);
        let poses = [
            (nudge, DQuat::from_xyzw(3e-7, 0.0, 0.0, 1.0)), // BODY
            (DVec3::new(0.2, 0.0, 0.0), DQuat::IDENTITY),   // BODYROT
            (ipos + nudge, -iquat),                         // INERTIA (opposite sign)
            (DVec3::new(0.3, 0.0, 0.0), iquat),             // INERTIAROT
            (ipos + DVec3::new(2e-6, 0.0, 0.0), DQuat::from_rotation_x(0.3)), // none
            (ipos + 2e-6 * DVec3::X, iquat),                // INERTIAROT: position 2e-6 off
        ];
        let mut s = spec(ipos, iquat, &poses);
        let changed = s.share_frames(MUJOCO_FRAME_TOLERANCE);
        let geoms: Vec<(DVec3, DQuat)> = s.bodies[1].geoms.iter().map(|g| (g.pos, g.quat)).collect();
        let expected = [
            (DVec3::ZERO, DQuat::IDENTITY),
            poses[1],
            (ipos, iquat),
            (poses[3].0, iquat),
            poses[4],
            (poses[5].0, iquat),
        ];
        assert_eq!(geoms, expected);
        let sites: Vec<(DVec3, DQuat)> = s.bodies[1].sites.iter().map(|s| (s.1, s.2)).collect();
        assert_eq!(sites, expected, "sites follow the same rule");
        // The geoms and sites that moved: BODY, INERTIA (its sign) — the others were equal already.
        assert_eq!(changed, 4);
        // Tolerance 0: nothing moves.
        let mut exact = spec(ipos, iquat, &poses);
        assert_eq!(exact.share_frames(0.0), 0);
        assert_eq!(exact, spec(ipos, iquat, &poses));
    }

    /// An inertial frame within the tolerance of the body frame is snapped onto it, and a geom that shared the
    /// (unsnapped) inertial frame takes the snapped one, as MuJoCo's kinematics copies `xipos`/`ximat`.
    #[test]
    fn inertial_frames_snap_onto_their_body_and_geoms_follow() {
        let ipos = DVec3::new(5e-7, 0.0, -5e-7);
        let iquat = DQuat::from_xyzw(0.0, 4e-7, 0.0, 1.0).normalize();
        let mut s = spec(ipos, iquat, &[(ipos, iquat)]);
        s.share_frames(MUJOCO_FRAME_TOLERANCE);
        let b = &s.bodies[1];
        assert_eq!((b.inertial.pos, b.inertial.quat), (DVec3::ZERO, DQuat::IDENTITY));
        assert_eq!((b.geoms[0].pos, b.geoms[0].quat), (DVec3::ZERO, DQuat::IDENTITY));
        // Only the rotation within the tolerance: BODYROT keeps the centre of mass.
        let far = DVec3::new(0.02, 0.0, 0.0);
        let mut s = spec(far, iquat, &[]);
        s.share_frames(MUJOCO_FRAME_TOLERANCE);
        assert_eq!((s.bodies[1].inertial.pos, s.bodies[1].inertial.quat), (far, DQuat::IDENTITY));
    }
}
