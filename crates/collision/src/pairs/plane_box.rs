//! Plane (half-space) contacts with boxes, in the simulator convention (normal from B to A).
//!
//! The half-space A is `{x : n·x ≤ o}` with world normal `n = R_A e_z`; a point `x` of B penetrates by
//! `p = o − n·x > 0`, and its contact sits at the midpoint `x + ½ p n`. The contact normal (B → A) is `−n`.
//! - Box (spec §A.6): the support point of the box along `−n` first, then the other corners in their fixed order
//!   (corner `k` has `+` on axis `a` when bit `a` of `k` is set) with `p > 0` that are further than `tol` from the
//!   contacts already taken, up to `max_contacts`.
//!
//! A capsule on a half-space takes the generic route (its support point, then Genesis 1.4.5's perturbations of
//! [`crate::multi_contact`]), as 1.4.5 does; MuJoCo's dialect has its own plane–capsule routine.

use glam::DVec3;
use signorini_geometry::{Cuboid, Pose, SupportMap};

use crate::contact::{Contact, Manifold};

fn plane_frame(pose_plane: &Pose) -> (DVec3, f64) {
    let n = pose_plane.transform_vector(DVec3::Z);
    (n, n.dot(pose_plane.translation))
}

/// Corner contacts of box B on half-space A.
pub fn plane_box_contacts(
    pose_plane: &Pose,
    bx: &Cuboid,
    pose_box: &Pose,
    tol: f64,
    multi_contact: bool,
    max_contacts: usize,
    out: &mut Manifold,
) {
    let (n, o) = plane_frame(pose_plane);
    let start = out.contacts.len();
    let deepest = bx.world_support(pose_box, -n);
    let p0 = o - n.dot(deepest);
    if !(p0 > 0.0) {
        return;
    }
    out.contacts.push(Contact { position: deepest + 0.5 * p0 * n, normal: -n, penetration: p0 });
    if !multi_contact {
        return;
    }
    for corner in bx.corners() {
        if out.contacts.len() - start >= max_contacts.max(1) {
            break;
        }
        let x = pose_box.transform_point(corner);
        let p = o - n.dot(x);
        let pos = x + 0.5 * p * n;
        if p > 0.0 && out.contacts[start..].iter().all(|c| (c.position - pos).length() > tol) {
            out.contacts.push(Contact { position: pos, normal: -n, penetration: p });
        }
    }
}
