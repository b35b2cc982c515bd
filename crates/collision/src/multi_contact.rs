//! Multi-contact by small perturbations (spec §A.9, native mode).
//!
//! A single detection returns one contact `(n₀, p₀, c₀)` (normal from B to A). To capture a resting face, the pair
//! is detected four more times with A rotated by a small rotation `q` about `c₀` and B by `q⁻¹`:
//! rotation vectors `ε (s₀ a₀ + s₁ a₁)` for `(s₀, s₁) = (+,+), (−,−), (+,−), (−,+)`, where `a₀` is the reference
//! frame's next axis after the one most aligned with `n₀`, projected perpendicular to `n₀`, and `a₁ = n₀ × a₀`.
//! Each perturbed contact is mapped back to the unperturbed poses:
//! `x_A = R(q)⁻¹(pos − ½ p n − c₀) + c₀`, `x_B = R(q)(pos + ½ p n − c₀) + c₀`, `pos ← ½(x_A + x_B)`,
//! `n ← n + clamp(n × n₀, ±ε) × n` (then normalised: our contact normals are unit, a deliberate deviation from
//! Genesis, which leaves the first-order correction unnormalised), `p ← n·(x_B − x_A)`.
//! A contact is kept if it is further than `tol` from every contact already kept and `p > −tol` (then clamped at 0).
//!
//! MuJoCo 4.0 has no such scheme (its multiccd clips polygons, `pairs::mujoco`): only the native dialect's rules
//! run this one (`crate::dialect`).

use glam::{DMat3, DVec3};
use signorini_geometry::Pose;

use crate::contact::{Contact, Manifold};
use crate::query::{ContactRequest, rotvec_quat};

/// Inputs of the perturbation scheme.
#[derive(Debug, Clone, Copy)]
pub struct PerturbationFrame {
    /// The unperturbed contact (detection 0).
    pub first: Contact,
    /// Unperturbed pose of A.
    pub pose_a: Pose,
    /// Unperturbed pose of B.
    pub pose_b: Pose,
    /// Rotation of the reference geom (columns are its axes in the world).
    pub frame: DMat3,
    /// Absolute tolerance for deduplication and acceptance (m).
    pub tol: f64,
}

/// Runs detections 1–4 and appends the accepted contacts to `out` (which already holds detection 0 last). Each
/// contact mapped back to the unperturbed poses passes through `map` (the native dialect's smooth-side position,
/// [`crate::smooth_contact`]) before the tolerance test.
pub fn perturbation_contacts(
    pf: &PerturbationFrame,
    request: &ContactRequest,
    out: &mut Manifold,
    map: impl Fn(Contact) -> Contact,
    mut detect: impl FnMut(&Pose, &Pose) -> Option<Contact>,
) {
    let start = out.contacts.len().saturating_sub(1);
    let n0 = pf.first.normal;
    let c0 = pf.first.position;
    let eps = request.perturbation;
    let Some((a0, a1)) = perturbation_axes(n0, &pf.frame) else {
        return;
    };
    for i in 1..=4u32 {
        if out.contacts.len() - start >= request.max_contacts {
            break;
        }
        let s0 = 2.0 * f64::from(i % 2) - 1.0;
        let s1 = 1.0 - 2.0 * f64::from((i / 2) % 2);
        let rotvec = eps * (s0 * a0 + s1 * a1);
        let q = rotvec_quat(rotvec);
        let rotate = |pose: &Pose, q: glam::DQuat| Pose {
            translation: c0 + q * (pose.translation - c0),
            rotation: (q * pose.rotation).normalize(),
        };
        let pa = rotate(&pf.pose_a, q);
        let pb = rotate(&pf.pose_b, q.conjugate());
        let Some(c) = detect(&pa, &pb) else { continue };
        let x_a = q.conjugate() * (c.position - 0.5 * c.penetration * c.normal - c0) + c0;
        let x_b = q * (c.position + 0.5 * c.penetration * c.normal - c0) + c0;
        let pos = 0.5 * (x_a + x_b);
        let tau = c.normal.cross(n0).clamp(DVec3::splat(-eps), DVec3::splat(eps));
        let n = (c.normal + tau.cross(c.normal)).normalize_or(c.normal);
        let p = n.dot(x_b - x_a);
        if !(p > -pf.tol) {
            continue;
        }
        let c = map(Contact { position: pos, normal: n, penetration: p.max(0.0) });
        if out.contacts[start..].iter().all(|k| (k.position - c.position).length() >= pf.tol) {
            out.contacts.push(c);
        }
    }
}

/// The two perturbation axes perpendicular to `n0` (see the module docs), or `None` if degenerate.
fn perturbation_axes(n0: DVec3, frame: &DMat3) -> Option<(DVec3, DVec3)> {
    let cols = [frame.x_axis, frame.y_axis, frame.z_axis];
    let k = (0..3).max_by(|&i, &j| cols[i].dot(n0).abs().total_cmp(&cols[j].dot(n0).abs())).unwrap_or(2);
    let next = cols[(k + 1) % 3];
    let a0 = (next - n0 * next.dot(n0)).try_normalize()?;
    Some((a0, n0.cross(a0)))
}
