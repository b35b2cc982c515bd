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
//! **Two convex geoms** (no sphere or ellipsoid: [`face_perturbation_contacts`], Genesis 1.4.5's
//! `func_contact_overlap_axes` and `func_recompute_perturbed_contact`; its angle and tolerance): where both may have a
//! flat face (boxes, meshes, cylinders), both faces around `c₀` are outlined by support queries and clipped into their
//! overlap, and each tilt is aimed at one of its corners ([`crate::contact_overlap`]), about axes built as the
//! half-space scheme's in the perturbation frame of the geom of smaller box volume; a pair with a capsule (which has
//! no face) keeps those axes, `±a₀, ±a₁`. Each contact found is recomputed on the unperturbed geoms from the
//! detection's witnesses and its support triangles (MPR's last portal, or EPA's answer face when GJK/EPA found it;
//! the analytic capsule–capsule detection has none), un-rotated: [`recompute_perturbed_contact`]. A contact is a
//! duplicate of one kept when it lies within the merge distance of it (the overlap's, or `MC_TOLERANCE·s`) and their
//! normals agree within `2ε`.
//!
//! MuJoCo 4.0 has no such scheme (its multiccd clips polygons, `pairs::mujoco`): only the native dialect's rules
//! run these (`crate::dialect`).

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::Pose;

use crate::contact::{Contact, Manifold};
use crate::contact_overlap::{OverlapFrame, overlap_axes};
use crate::narrow::minkowski::SupportPoint;
use crate::pairs::capsule_contact::closest_points_on_segments;
use crate::query::ContactRequest;

/// Genesis's `EPS` in double precision (`gs.EPS`, 1e-15): the rounding floor of its merge distance.
pub const GENESIS_EPS: f64 = 1e-15;

/// Genesis 1.4.5's perturbation angle outside MuJoCo compatibility (`mc_perturbation`, rad), of the half-space
/// scheme.
pub const MC_PERTURBATION: f64 = 5e-3;

/// Genesis 1.4.5's relative multi-contact tolerance outside MuJoCo compatibility (`mc_tolerance`), of the half-space
/// scheme.
pub const MC_TOLERANCE: f64 = 1.5e-2;

/// Genesis 1.4.5's depth noise of an MPR or plane contact 0, relative to the pair's scale (its `CCD_TOLERANCE`
/// outside MuJoCo compatibility).
pub const DEPTH_NOISE: f64 = 1e-5;

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
    let (a0, a1) = diagonal_axes(n0, pp.frame_b);
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

/// The axes `(a₀, a₁)` of the half-space and face schemes (see the module docs; Genesis 1.4.5's
/// `func_contact_orthogonals` outside MuJoCo compatibility), built in the perturbation frame `frame`.
fn diagonal_axes(n0: DVec3, frame: DQuat) -> (DVec3, DVec3) {
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

/// How a detection found its contact: what the face scheme's recomputation of a perturbed contact reads.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Detection {
    /// Whether GJK/EPA rather than MPR gave the contact.
    pub used_gjk: bool,
    /// GJK/EPA's witnesses on A and B (world), when it gave the contact.
    pub witnesses: Option<(DVec3, DVec3)>,
    /// The support points of MPR's last portal or of EPA's answer face, with their witnesses on A and B (world),
    /// when the detection built one.
    pub supports: Option<[SupportPoint; 3]>,
}

/// Inputs of the face scheme ([`face_perturbation_contacts`]).
#[derive(Debug, Clone, Copy)]
pub struct FacePerturbation {
    /// The unperturbed contact (detection 0, its position already on the smooth side).
    pub first: Contact,
    /// How detection 0 found it.
    pub first_detection: Detection,
    /// Unperturbed pose of A.
    pub pose_a: Pose,
    /// Unperturbed pose of B.
    pub pose_b: Pose,
    /// World rotation of the reference geom's perturbation frame (the geom of the smaller box volume, B on a tie).
    pub frame: DQuat,
    /// The pair's scale `s`: half the smaller geom's box diagonal (m).
    pub scale: f64,
    /// Whether both geoms are boxes or meshes (GJK's depth is then exact).
    pub discrete: bool,
    /// Whether both geoms may have a flat face (no capsule): their faces' overlap is then outlined, otherwise the
    /// tilts keep the default axes `±a₀, ±a₁`.
    pub outlined: bool,
}

/// Genesis 1.4.5's perturbation contacts of two convex geoms (no sphere or ellipsoid): the four tilts are aimed at
/// the corners of the overlap of both faces around contact 0 where both may have one ([`crate::contact_overlap`],
/// its axes built as the half-space scheme's in the reference geom's frame; a capsule pair keeps those axes), each
/// contact found is recomputed on the unperturbed geoms ([`recompute_perturbed_contact`]) and passes through `map`
/// (the smooth-side position); a contact within the merge distance of one kept, with a normal within `2ε` of its
/// own, is a duplicate. `support(g, d)` is geom `g`'s world support on the unperturbed poses (0: A, 1: B). Appends
/// to `out`, which holds detection 0 last.
pub fn face_perturbation_contacts(
    fp: &FacePerturbation,
    request: &ContactRequest,
    out: &mut Manifold,
    map: impl Fn(Contact) -> Contact,
    support: impl FnMut(usize, DVec3) -> DVec3,
    mut detect: impl FnMut(&Pose, &Pose) -> Option<(Contact, Detection)>,
) {
    let start = out.contacts.len().saturating_sub(1);
    let (n0, c0) = (fp.first.normal, fp.first.position);
    let eps = MC_PERTURBATION;
    let (a0, a1) = diagonal_axes(n0, fp.frame);
    let frame = OverlapFrame {
        normal: n0,
        position: c0,
        axis: [a0, a1],
        scale: fp.scale,
        perturbation: eps,
        tolerance: MC_TOLERANCE,
    };
    let aims = overlap_axes(&frame, fp.outlined, support);
    let tol = (MC_TOLERANCE * fp.scale).min(aims.merge_tolerance);
    let normal_cos = (2.0 * eps).cos();
    for axis in aims.axes {
        if out.contacts.len() - start >= request.max_contacts {
            break;
        }
        if axis == DVec3::ZERO {
            continue;
        }
        let q = genesis_rotvec_quat(eps * axis);
        let pa = rotate_about(&fp.pose_a, c0, q);
        let pb = rotate_about(&fp.pose_b, c0, q.conjugate());
        let Some((c, detection)) = detect(&pa, &pb) else { continue };
        let c = map(recompute_perturbed_contact(fp, c, &detection, q));
        let duplicate = out.contacts[start..].iter().any(|k| {
            let merge = (GENESIS_EPS.sqrt() * fp.scale
                + GENESIS_EPS * (c.position.length() + k.position.length()))
            .max(tol);
            (c.position - k.position).length() < merge && c.normal.dot(k.normal) >= normal_cos
        });
        if !duplicate {
            out.contacts.push(c);
        }
    }
}

/// A contact found on the geoms tilted by `q` (A) and `q⁻¹` (B) about `c₀`, brought back to the unperturbed geoms
/// (Genesis 1.4.5's `func_recompute_perturbed_contact` for two convex geoms).
///
/// The witnesses `w_A`, `w_B` (GJK's, or `pos ∓ ½ p n`), un-rotated, are material points of the unperturbed geoms.
/// Where the detection's support triangles (MPR's portal or EPA's face, un-rotated) are two edges, the depth along
/// `n₀` is exact where they cross seen along `n₀`; otherwise an edge's end that the tilt deepened replaces its geom's
/// witness, and the other geom's support triangle, where it covers a witness along `n₀`, bounds the depth from
/// below: the contact takes `n₀` and the largest bound. Without supports, the un-rotated normal's tangent plane
/// measures the depth if it lies within `2ε` of `n₀`. Otherwise the contact keeps its own patch: the normal of the
/// Minkowski face of the supports (or the detection's), the depth `n·(w_B − w_A)`, the witnesses' midpoint. A
/// contact on `n₀`'s patch of negative depth moves towards `c₀` to where the depth interpolated between both
/// vanishes (when `p₀ − d` exceeds the depth noise of detection 0); the depth is clamped at 0.
pub fn recompute_perturbed_contact(
    fp: &FacePerturbation,
    c: Contact,
    detection: &Detection,
    q: DQuat,
) -> Contact {
    let (n0, c0, p0, s) = (fp.first.normal, fp.first.position, fp.first.penetration, fp.scale);
    let eps2 = GENESIS_EPS * GENESIS_EPS;
    let r = DMat3::from_quat(q);
    let r_inv = r.transpose();
    let back_a = |p: DVec3| r_inv * (p - c0) + c0;
    let back_b = |p: DVec3| r * (p - c0) + c0;
    let (wa, wb) = detection.witnesses.unwrap_or((
        c.position - 0.5 * c.penetration * c.normal,
        c.position + 0.5 * c.penetration * c.normal,
    ));
    let (mut wa, mut wb) = (back_a(wa), back_b(wb));
    let mut depth = n0.dot(wb - wa);
    let mut position = wb - 0.5 * depth * n0;
    let mut has_depth = false;
    let supports = detection.supports.map(|t| [t.map(|p| back_a(p.a)), t.map(|p| back_b(p.b))]);
    // A triangle spans no area when its height is within the rounding of its coordinates (relative to their
    // distance from the origin after the un-rotation about `c₀`), measured against its longest edge.
    let flat = |e1: DVec3, e2: DVec3, e3: DVec3, height_sq: f64| {
        let longest = e1.length_squared().max(e2.length_squared()).max(e3.length_squared());
        height_sq <= 2.0 * eps2 * longest * (longest + 4.0 * c0.length_squared())
    };
    let across = |e: DVec3| e - e.dot(n0) * n0;
    if let Some(sup) = supports {
        let mut degenerate = [false; 2];
        let mut ends: [Option<[DVec3; 2]>; 2] = [None; 2];
        for (g, v) in sup.iter().enumerate() {
            let (e1, e2, e3) = (v[1] - v[0], v[2] - v[0], v[2] - v[1]);
            if flat(e1, e2, e3, e1.cross(e2).dot(n0).powi(2)) {
                degenerate[g] = true;
                // The support points line up: the edge's ends are the two farthest apart across `n₀`.
                let (mut end, mut span) = ([v[0], v[1]], across(e1));
                if across(e2).length_squared() > span.length_squared() {
                    (end, span) = ([v[0], v[2]], across(e2));
                }
                if across(e3).length_squared() > span.length_squared() {
                    (end, span) = ([v[1], v[2]], across(e3));
                }
                if span.length_squared() > GENESIS_EPS * s * s {
                    ends[g] = Some(end);
                }
            }
        }
        if let [Some([a0, a1]), Some([b0, b1])] = ends {
            // Two edges touch where they cross seen along `n₀`: both closest points lie on one line along it.
            let (pa0, pa1, pb0, pb1) = (across(a0), across(a1), across(b0), across(b1));
            let (la, lb) = ((pa1 - pa0).length_squared(), (pb1 - pb0).length_squared());
            if la > GENESIS_EPS * s * s && lb > GENESIS_EPS * s * s {
                let (ca, cb) = closest_points_on_segments(pa0, pa1, pb0, pb1, GENESIS_EPS * la * lb);
                if (cb - ca).length_squared() <= GENESIS_EPS * s * s {
                    let ra = (ca - pa0).dot(pa1 - pa0) / la;
                    let rb = (cb - pb0).dot(pb1 - pb0) / lb;
                    wa = a0 + ra * (a1 - a0);
                    wb = b0 + rb * (b1 - b0);
                    depth = n0.dot(wb - wa);
                    position = 0.5 * (wa + wb);
                    has_depth = true;
                }
            }
        } else {
            // Along an edge lying on the other face the depth is linear: the tilt deepens one end, a material point.
            let mut deepened = [None; 2];
            for g in 0..2 {
                let Some([e0, e1]) = ends[g] else { continue };
                let turn = if g == 0 { r } else { r_inv };
                let sign = if g == 0 { -1.0 } else { 1.0 };
                let lift = |e: DVec3| sign * n0.dot(turn * (e - c0) - (e - c0));
                let (l0, l1) = (lift(e0), lift(e1));
                if (l1 - l0).abs() > GENESIS_EPS * (l0.abs() + l1.abs()) {
                    deepened[g] = Some(if l1 > l0 { e1 } else { e0 });
                }
            }
            // The other geom's support triangle, where it covers a witness along `n₀`, bounds the depth from below.
            for g in 0..2 {
                if degenerate[1 - g] {
                    continue;
                }
                let v = sup[1 - g];
                let (e1, e2) = (v[1] - v[0], v[2] - v[0]);
                let area = e1.cross(e2).dot(n0);
                let witness = if g == 0 { wa } else { wb };
                for candidate in [deepened[g], Some(witness)].into_iter().flatten() {
                    let offset = candidate - v[0];
                    let l2 = offset.cross(e2).dot(n0) / area;
                    let l3 = e1.cross(offset).dot(n0) / area;
                    if !(l2 >= 0.0 && l3 >= 0.0 && l2 + l3 <= 1.0) {
                        continue;
                    }
                    if g == 0 {
                        wa = candidate;
                    } else {
                        wb = candidate;
                    }
                    let height = n0.dot(v[0] + l2 * e1 + l3 * e2);
                    let bound = if g == 0 { height - n0.dot(wa) } else { n0.dot(wb) - height };
                    if !has_depth || bound > depth {
                        depth = bound;
                        position = candidate + if g == 0 { 0.5 } else { -0.5 } * bound * n0;
                        has_depth = true;
                    }
                    break;
                }
            }
        }
    }
    if !has_depth && supports.is_none() {
        // The un-rotated normal is B's tangent plane at A's witness (1.4.5 anchors B's witness instead where B's support
        // triangle alone is degenerate, which needs supports: never here); one tilted beyond the relative rotation of
        // both geoms belongs to another face.
        let tangent = r * c.normal;
        let slope = tangent.dot(n0);
        if slope >= (2.0 * MC_PERTURBATION).cos() {
            depth = tangent.dot(wb - wa) / slope;
            position = wa + 0.5 * depth * n0;
            has_depth = true;
        }
    }
    let mut normal = n0;
    if !has_depth {
        normal = c.normal;
        if let Some([sa, sb]) = supports {
            let m = [sa[0] - sb[0], sa[1] - sb[1], sa[2] - sb[2]];
            let (e1, e2, e3) = (m[1] - m[0], m[2] - m[0], m[2] - m[1]);
            let face = e1.cross(e2);
            if !flat(e1, e2, e3, face.length_squared()) {
                normal = face.normalize();
                if normal.dot(c.normal) < 0.0 {
                    normal = -normal;
                }
            }
        }
        depth = normal.dot(wb - wa);
        position = 0.5 * (wa + wb);
    }
    // The interpolation divides by the difference of depth, which must exceed its error: rounding, and the stopping
    // tolerance of detection 0.
    let noise = if fp.first_detection.used_gjk {
        if fp.discrete { GENESIS_EPS * s } else { (GENESIS_EPS * s).max(GJK_TOLERANCE) }
    } else {
        (GENESIS_EPS * s).max(DEPTH_NOISE * s)
    };
    if has_depth && depth < 0.0 && p0 - depth > noise {
        position += depth / (depth - p0) * (c0 - position);
    }
    Contact { position, normal, penetration: depth.max(0.0) }
}

/// Genesis 1.4.5's GJK tolerance (m), the depth noise of a GJK contact 0 between curved geoms.
pub const GJK_TOLERANCE: f64 = 1e-6;
