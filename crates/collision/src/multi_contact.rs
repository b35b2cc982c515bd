//! Multi-contact by small perturbations (native mode).
//!
//! A single detection returns one contact `(n₀, p₀, c₀)` (normal from B to A). To capture a resting face, the pair
//! is detected four more times with A rotated by a small rotation `q` about `c₀` and B by `q⁻¹`, and each contact
//! found is brought back to the unperturbed poses.
//!
//! **A half-space A and a convex B** ([`plane_perturbation_contacts`], Genesis 1.4.5's `_func_multicontact_detect`
//! with its `func_recompute_perturbed_contact` and `_func_multicontact_accept`; a box B has its own routine in
//! `pairs::plane_box`, a capsule comes here as in 1.4.5; its angle `ε` and tolerance are 1.4.5's,
//! [`MC_PERTURBATION`] and [`MC_TOLERANCE`]): the rotation vectors are `ε·a` for
//! `a = +a₀, −a₀, +a₁, −a₁`, built in B's perturbation frame `F` (its body's inertial frame): with `m = Fᵀn₀` and
//! `b = normalize(e_y − m_y m)` when `|m_y| < ½`, else `normalize(e_z − m_z m)`, `a₀ = √½ F(b × m + b)` and
//! `a₁ = √½ F(b − b × m)` (diagonal directions, which break the ties of a face aligned with the frame). A contact
//! found with the tilted poses keeps only B's witness `w = R(q)(pos + ½ p n − c₀) + c₀`, a material point of the
//! unperturbed B; its depth below the unperturbed plane is `d = n₀·(w − c₀) + ½ p₀`, its position `w − ½ d n₀`
//! and its normal `n₀`. A point above the plane (`d < 0`) moves towards `c₀` to where the depth interpolated between
//! both vanishes, `pos += d/(d − p₀)·(c₀ − pos)` (when `p₀ − d` exceeds the depth noise `10⁻⁵·s`), and is kept at
//! depth 0. A contact is a duplicate of one kept when it lies within `max(tol, √EPS·s + EPS(|x| + |x_k|))` of it
//! (1.4.5 also asks their normals to agree within `2ε`, which holds here: every contact carries `n₀`); `s` is half B's
//! box diagonal and `tol = MC_TOLERANCE·s`.
//!
//! **Two convex shapes** ([`perturbation_contacts`], spec §A.9): rotation vectors
//! `ε (s₀ a₀ + s₁ a₁)` for `(s₀, s₁) = (+,+), (−,−), (+,−), (−,+)`, where `a₀` is the reference
//! frame's next axis after the one most aligned with `n₀`, projected perpendicular to `n₀`, and `a₁ = n₀ × a₀`.
//! Each perturbed contact is mapped back to the unperturbed poses:
//! `x_A = R(q)⁻¹(pos − ½ p n − c₀) + c₀`, `x_B = R(q)(pos + ½ p n − c₀) + c₀`, `pos ← ½(x_A + x_B)`,
//! `n ← n + clamp(n × n₀, ±ε) × n` (then normalised: our contact normals are unit, a deliberate deviation from
//! Genesis, which leaves the first-order correction unnormalised), `p ← n·(x_B − x_A)`.
//! A contact is kept if it is further than `tol` from every contact already kept and `p > −tol` (then clamped at 0).
//! Genesis 1.4.5 aims these detections at the corners of the overlap of the two faces instead (not ported); `ε` and
//! `tol` are the request's (1e-2 both), which keep the pile's cylinder pairs' contact counts near 1.4.5's (with its
//! 5e-3 and 1.5e-2 here, 60 cylinder–cylinder contacts at step 500 against its 127).
//!
//! MuJoCo 4.0 has no such scheme (its multiccd clips polygons, `pairs::mujoco`): only the native dialect's rules
//! run these (`crate::dialect`).

use glam::{DMat3, DQuat, DVec3};
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

/// Genesis's `EPS` in double precision (`gs.EPS`, 1e-15): the rounding floor of its merge distance.
const GENESIS_EPS: f64 = 1e-15;

/// Genesis 1.4.5's perturbation angle outside MuJoCo compatibility (`mc_perturbation`, rad), of the half-space
/// scheme.
pub const MC_PERTURBATION: f64 = 5e-3;

/// Genesis 1.4.5's relative multi-contact tolerance outside MuJoCo compatibility (`mc_tolerance`), of the half-space
/// scheme.
pub const MC_TOLERANCE: f64 = 1.5e-2;

/// Genesis 1.4.5's depth noise of an MPR or plane contact 0, relative to the pair's scale (its `CCD_TOLERANCE`
/// outside MuJoCo compatibility).
const DEPTH_NOISE: f64 = 1e-5;

/// Inputs of the half-space scheme ([`plane_perturbation_contacts`]).
#[derive(Debug, Clone, Copy)]
pub struct PlanePerturbation {
    /// The unperturbed contact (detection 0, its position already on the smooth side).
    pub first: Contact,
    /// Unperturbed pose of the half-space A.
    pub pose_a: Pose,
    /// Unperturbed pose of B.
    pub pose_b: Pose,
    /// World rotation of B's perturbation frame.
    pub frame_b: DQuat,
    /// The pair's scale `s`: half B's box diagonal (m).
    pub scale: f64,
}

/// Genesis 1.4.5's perturbation contacts of a half-space A and a convex B (see the module docs): runs detections
/// 1–4 with `detect` on the perturbed poses and appends the contacts kept to `out` (which holds detection 0 last).
/// Each contact recomputed on the unperturbed poses passes through `map` (the smooth-side position) before the
/// duplicate test.
pub fn plane_perturbation_contacts(
    pp: &PlanePerturbation,
    request: &ContactRequest,
    out: &mut Manifold,
    map: impl Fn(Contact) -> Contact,
    mut detect: impl FnMut(&Pose, &Pose) -> Option<Contact>,
) {
    let start = out.contacts.len().saturating_sub(1);
    let (n0, c0, p0) = (pp.first.normal, pp.first.position, pp.first.penetration);
    let eps = MC_PERTURBATION;
    let tol = MC_TOLERANCE * pp.scale;
    let noise = DEPTH_NOISE.max(GENESIS_EPS) * pp.scale;
    let (a0, a1) = plane_perturbation_axes(n0, pp.frame_b);
    for axis in [a0, -a0, a1, -a1] {
        if out.contacts.len() - start >= request.max_contacts {
            break;
        }
        let q = genesis_rotvec_quat(eps * axis);
        let pa = rotate_about(&pp.pose_a, c0, q);
        let pb = rotate_about(&pp.pose_b, c0, q.conjugate());
        let Some(c) = detect(&pa, &pb) else { continue };
        let witness_b = q * (c.position + 0.5 * c.penetration * c.normal - c0) + c0;
        let depth = n0.dot(witness_b - c0) + 0.5 * p0;
        let mut position = witness_b - 0.5 * depth * n0;
        if depth < 0.0 && p0 - depth > noise {
            position += depth / (depth - p0) * (c0 - position);
        }
        let c = map(Contact { position, normal: n0, penetration: depth.max(0.0) });
        // Every contact of the pair carries `n₀`, so 1.4.5's normal test (within `2ε`) always passes: position only.
        let duplicate = out.contacts[start..].iter().any(|k| {
            let merge = (GENESIS_EPS.sqrt() * pp.scale
                + GENESIS_EPS * (c.position.length() + k.position.length()))
            .max(tol);
            (c.position - k.position).length() < merge
        });
        if !duplicate {
            out.contacts.push(c);
        }
    }
}

/// The axes `(a₀, a₁)` of the half-space scheme (see the module docs; Genesis 1.4.5's `func_contact_orthogonals`
/// outside MuJoCo compatibility).
fn plane_perturbation_axes(n0: DVec3, frame: DQuat) -> (DVec3, DVec3) {
    let f = DMat3::from_quat(frame);
    let m = f.transpose() * n0;
    let b = if m.y.abs() < 0.5 {
        DVec3::new(-m.x * m.y, 1.0 - m.y * m.y, -m.z * m.y)
    } else {
        DVec3::new(-m.x * m.z, -m.y * m.z, 1.0 - m.z * m.z)
    }
    .normalize();
    let (l0, l1) = (b.cross(m), b);
    let half = 0.5f64.sqrt();
    (half * (f * (l0 + l1)), half * (f * (l1 - l0)))
}

/// Genesis's rotation vector to quaternion (`qd_rotvec_to_quat`): `(cos ½θ, sin ½θ/θ · v)` with a first-order
/// renormalisation, the identity for `θ ≤ EPS`.
fn genesis_rotvec_quat(v: DVec3) -> DQuat {
    let theta_sq = v.length_squared();
    if theta_sq <= GENESIS_EPS * GENESIS_EPS {
        return DQuat::IDENTITY;
    }
    let theta = theta_sq.sqrt();
    let (s, c) = (0.5 * theta).sin_cos();
    let xyz = s / theta * v;
    let q = DQuat::from_xyzw(xyz.x, xyz.y, xyz.z, c);
    q * (0.5 * (3.0 - q.length_squared()))
}

/// `pose` turned by `q` about the world point `c` (Genesis's `func_rotate_frame`).
fn rotate_about(pose: &Pose, c: DVec3, q: DQuat) -> Pose {
    let rel = c - pose.translation;
    Pose { translation: pose.translation - (q * rel - rel), rotation: (q * pose.rotation).normalize() }
}
