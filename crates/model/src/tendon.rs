//! Tendons. A fixed tendon (MuJoCo `<tendon><fixed>`) has `L = Σₖ cₖ q_{jₖ}` over hinge and slide joints, so its
//! Jacobian `J = ∂L/∂q` is the constant row with `cₖ` at joint `jₖ`'s dof. A spatial tendon through sites
//! (`<spatial>`, no wrapping) has `L = Σₖ |pₖ₊₁ − pₖ|` over its points, and `J = Σₖ uₖᵀ (J_{pₖ₊₁} − J_{pₖ})` with
//! `uₖ` the unit direction of segment `k` and `J_p` the translational Jacobian of a point (a segment shorter than
//! `MINVAL` adds nothing, as in MuJoCo). Either way `L̇ = J q̇`; `J` is kept per [`Data`] (`ten_j`, dense rows).
//!
//! Along a tendon act a spring with a dead band, `f = −k (L − l_upper)` above it and `−k (L − l_lower)` below, and a
//! damper `f = −b L̇` (MuJoCo's `mj_passive`), applied as `qfrc_passive += Jᵀ f`. Its dry friction and limits are
//! constraint rows (`signorini-constraints`), with the regulariser weight `tendon_invweight0 = J M⁻¹ Jᵀ` at `qpos0`
//! (MuJoCo `mj_setConst`).

use glam::DVec3;

use crate::data::Data;
use crate::error::ModelError;
use signorini_geometry::rotation::normalize_vec3;

use crate::factor::mujoco_sum_sparse;
use crate::model::{MINVAL, Model};
use crate::spec::{SolImp, SolRef, TendonSpec};

/// The compiled tendons of a [`Model`] (structure of arrays, one entry per tendon; the joint lists flattened).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tendons {
    /// Names.
    pub name: Vec<String>,
    /// First entry of each tendon in `dof`/`qposadr`/`coef`.
    pub adr: Vec<usize>,
    /// Number of joints of each tendon.
    pub num: Vec<usize>,
    /// The dof of each entry (a fixed tendon's joints in the order written, a joint written twice listed twice).
    pub dof: Vec<usize>,
    /// The `qpos` address of each entry.
    pub qposadr: Vec<usize>,
    /// The coefficient of each entry.
    pub coef: Vec<f64>,
    /// The dofs a tendon's Jacobian may touch (MuJoCo's `ten_J_colind`, ascending): a fixed tendon's joints' dofs, a
    /// spatial tendon's the chains of its points' and wrap geoms' bodies; tendon `i`'s from `jac_adr[i]` to
    /// `jac_adr[i + 1]` (set with the model's constants).
    pub jac_colind: Vec<usize>,
    /// Start of each tendon's dofs in `jac_colind`, and one past the last (`len + 1`).
    pub jac_adr: Vec<usize>,
    /// First point of each tendon in `site_body`/`site_pos` (spatial tendons).
    pub site_adr: Vec<usize>,
    /// Number of points of each tendon (0 for a fixed tendon).
    pub site_num: Vec<usize>,
    /// The body of each point.
    pub site_body: Vec<usize>,
    /// The position of each point in its body's frame.
    pub site_pos: Vec<DVec3>,
    /// Per point: the obstacle the tendon wraps around on its way to the next point.
    pub site_wrap: Vec<Option<crate::spec::TendonWrap>>,
    /// Per point: the divisor of the branch a pulley starts at this point (no segment from the previous point).
    pub site_pulley: Vec<Option<f64>>,
    /// Length limits, `None` when unlimited.
    pub range: Vec<Option<[f64; 2]>>,
    /// Limit margins ([`TendonSpec::margin`](crate::spec::TendonSpec::margin)).
    pub margin: Vec<f64>,
    /// Spring stiffness.
    pub stiffness: Vec<f64>,
    /// Damping.
    pub damping: Vec<f64>,
    /// Friction loss.
    pub frictionloss: Vec<f64>,
    /// Spring dead band `(lower, upper)` (the length at `qpos_spring` when the spec gave none).
    pub lengthspring: Vec<[f64; 2]>,
    /// Limit `solref`.
    pub solref_limit: Vec<SolRef>,
    /// Limit `solimp`.
    pub solimp_limit: Vec<SolImp>,
    /// Friction-loss `solref`.
    pub solref_friction: Vec<SolRef>,
    /// Friction-loss `solimp`.
    pub solimp_friction: Vec<SolImp>,
    /// `J M⁻¹ Jᵀ` at `qpos0`.
    pub invweight0: Vec<f64>,
}

impl Tendons {
    /// Number of tendons.
    pub fn len(&self) -> usize {
        self.name.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }

    /// Whether tendon `t` is spatial (through points) rather than fixed.
    pub fn is_spatial(&self, t: usize) -> bool {
        self.site_num[t] > 0
    }

    /// Entries `(dof, coefficient)` of fixed tendon `t`'s constant Jacobian row (none for a spatial tendon).
    fn fixed_jacobian(&self, t: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.adr[t]..self.adr[t] + self.num[t];
        self.dof[range.clone()].iter().copied().zip(self.coef[range].iter().copied())
    }

    /// The length of fixed tendon `t` at `qpos`, `Σ cⱼ qⱼ` summed over its joints as written, as MuJoCo's `mj_tendon`
    /// sums it (0 for a spatial tendon).
    fn fixed_length(&self, t: usize, qpos: &[f64]) -> f64 {
        let range = self.adr[t]..self.adr[t] + self.num[t];
        self.qposadr[range.clone()]
            .iter()
            .zip(&self.coef[range])
            .fold(0.0, |length, (&a, c)| length + c * qpos[a])
    }

    /// The dofs tendon `t`'s Jacobian may touch, ascending ([`Tendons::jac_colind`]).
    pub fn jacobian_dofs(&self, t: usize) -> &[usize] {
        &self.jac_colind[self.jac_adr[t]..self.jac_adr[t + 1]]
    }

    /// Adds tendon `spec` (validated) whose joints have the dof and `qpos` addresses `jnt_dofadr`, `jnt_qposadr`.
    pub(crate) fn push(&mut self, spec: TendonSpec, jnt_dofadr: &[usize], jnt_qposadr: &[usize]) {
        self.name.push(spec.name);
        self.adr.push(self.dof.len());
        self.num.push(spec.joints.len());
        self.site_adr.push(self.site_body.len());
        self.site_num.push(spec.sites.len());
        let first = self.site_body.len();
        for (body, pos) in spec.sites {
            self.site_body.push(body);
            self.site_pos.push(pos);
            self.site_wrap.push(None);
            self.site_pulley.push(None);
        }
        for (k, wrap) in spec.wraps {
            self.site_wrap[first + k] = Some(wrap);
        }
        for (k, divisor) in spec.pulleys {
            self.site_pulley[first + k] = Some(divisor);
        }
        for &(j, coef) in &spec.joints {
            self.dof.push(jnt_dofadr[j]);
            self.qposadr.push(jnt_qposadr[j]);
            self.coef.push(coef);
        }
        self.range.push(spec.range);
        self.margin.push(spec.margin);
        self.stiffness.push(spec.stiffness);
        self.damping.push(spec.damping);
        self.frictionloss.push(spec.frictionloss);
        // NaN marks "the length at qpos_spring", filled by `set_constants`.
        self.lengthspring.push(spec.springlength.unwrap_or([f64::NAN; 2]));
        self.solref_limit.push(spec.solref_limit);
        self.solimp_limit.push(spec.solimp_limit);
        self.solref_friction.push(spec.solref_friction);
        self.solimp_friction.push(spec.solimp_friction);
        self.invweight0.push(0.0);
    }
}

impl Model {
    /// `ten_length`, the Jacobian rows `ten_j` and `ten_velocity` of every tendon, from the kinematics of `d`
    /// (after [`Model::forward_kinematics`]) and `qvel`.
    pub fn tendon_state(&self, d: &mut Data) {
        let (t, nv) = (&self.tendons, self.nv);
        let mut ten_j = std::mem::take(&mut d.ten_j);
        for i in 0..t.len() {
            let row = &mut ten_j[i * nv..(i + 1) * nv];
            row.fill(0.0);
            if t.is_spatial(i) {
                let mut length = 0.0;
                let mut divisor = 1.0;
                let world = |k: usize| d.xpos[t.site_body[k]] + d.xmat[t.site_body[k]] * t.site_pos[k];
                // `row += (1/div) (J_b − J_a)ᵀ u`, `u` the unit vector from `a` to `b`, as MuJoCo's `mj_tendon`
                // forms it (`mj_jacDifPair` over the union of the chains: a dof on both takes `(J_b − J_a)·u`,
                // not `J_b·u − J_a·u`).
                let segment =
                    |row: &mut [f64], (ba, a): (usize, DVec3), (bb, b): (usize, DVec3), div: f64| {
                        if ba == bb {
                            return;
                        }
                        let u = normalize_vec3(b - a, MINVAL).0;
                        let scale = 1.0 / div;
                        for (dof, on_a, on_b) in self.dof_chain_union(ba, bb) {
                            let mut jac = DVec3::ZERO;
                            if on_b {
                                jac = self.jacobian_column(d, dof, b).0;
                            }
                            if on_a {
                                jac -= self.jacobian_column(d, dof, a).0;
                            }
                            row[dof] += jac.dot(u) * scale;
                        }
                    };
                for k in t.site_adr[i]..t.site_adr[i] + t.site_num[i] - 1 {
                    if let Some(div) = t.site_pulley[k + 1] {
                        // A pulley: the next branch starts at point k + 1.
                        divisor = div;
                        continue;
                    }
                    let (a, b) = ((t.site_body[k], world(k)), (t.site_body[k + 1], world(k + 1)));
                    let wrapped = t.site_wrap[k].and_then(|w| {
                        let g = w.geom;
                        let side = w.side.map(|(body, pos)| d.xpos[body] + d.xmat[body] * pos);
                        wrap(a.1, b.1, d.geom_xpos[g], d.geom_xmat[g], w.radius, w.sphere, side)
                            .map(|(t0, t1, arc)| (self.collision.geoms().body[g], t0, t1, arc))
                    });
                    match wrapped {
                        Some((gb, t0, t1, arc)) => {
                            length += ((t0 - a.1).length() + arc + (b.1 - t1).length()) / divisor;
                            segment(row, a, (gb, t0), divisor);
                            segment(row, (gb, t1), b, divisor);
                        }
                        None => {
                            length += (b.1 - a.1).length() / divisor;
                            segment(row, a, b, divisor);
                        }
                    }
                }
                d.ten_length[i] = length;
            } else {
                for (dof, c) in t.fixed_jacobian(i) {
                    row[dof] += c;
                }
                d.ten_length[i] = t.fixed_length(i, &d.qpos);
            }
            // `J q̇` over the tendon's dofs as MuJoCo's `mju_dotSparse` sums it.
            let dofs = t.jacobian_dofs(i);
            d.ten_velocity[i] = mujoco_sum_sparse(dofs.len(), |k| row[dofs[k]] * d.qvel[dofs[k]]);
        }
        d.ten_j = ten_j;
    }

    /// The points of spatial tendon `i`'s path at `d`'s pose (MuJoCo `wrap_xpos`): `(body, world point, divisor)`,
    /// the tangent points of a wrap on the geom's body, a pulley marked by a point with a `NaN` divisor (no segment
    /// across it). Appended to `out`.
    pub fn tendon_path_points(&self, d: &Data, i: usize, out: &mut Vec<(usize, DVec3, f64)>) {
        let t = &self.tendons;
        let world = |k: usize| d.xpos[t.site_body[k]] + d.xmat[t.site_body[k]] * t.site_pos[k];
        let mut divisor = 1.0;
        let last = t.site_adr[i] + t.site_num[i];
        for k in t.site_adr[i]..last {
            if let Some(div) = t.site_pulley[k] {
                divisor = div;
                out.push((0, DVec3::ZERO, f64::NAN));
            }
            out.push((t.site_body[k], world(k), divisor));
            if k + 1 < last
                && t.site_pulley[k + 1].is_none()
                && let Some(w) = t.site_wrap[k]
            {
                let side = w.side.map(|(body, pos)| d.xpos[body] + d.xmat[body] * pos);
                let g = w.geom;
                if let Some((t0, t1, _)) =
                    wrap(world(k), world(k + 1), d.geom_xpos[g], d.geom_xmat[g], w.radius, w.sphere, side)
                {
                    let gb = self.collision.geoms().body[g];
                    out.push((gb, t0, divisor));
                    out.push((gb, t1, divisor));
                }
            }
        }
    }

    /// The spring and damper tension of tendon `i`, `−k·stretch − b·L̇` (positive pulls the ends apart), with the
    /// dead band `lengthspring` (after [`Model::tendon_state`]).
    pub fn tendon_passive_force(&self, d: &Data, i: usize) -> f64 {
        let (spring, damper) = self.tendon_passive_parts(d, i);
        spring + damper
    }

    /// The spring tension `−stretch·k` and the damper tension `−L̇·b` of tendon `i` (MuJoCo's operation order).
    fn tendon_passive_parts(&self, d: &Data, i: usize) -> (f64, f64) {
        let t = &self.tendons;
        let [lower, upper] = t.lengthspring[i];
        let length = d.ten_length[i];
        let stretch = if length > upper {
            length - upper
        } else if length < lower {
            length - lower
        } else {
            0.0
        };
        (-stretch * t.stiffness[i], -d.ten_velocity[i] * t.damping[i])
    }

    /// Adds every tendon's spring force `Jᵀ f_spring` to `qfrc_spring` and its damper force `Jᵀ f_damper` to
    /// `qfrc_damper` (after [`Model::tendon_state`]).
    pub(crate) fn tendon_passive(&self, d: &mut Data) {
        let (t, nv) = (&self.tendons, self.nv);
        for i in 0..t.len() {
            if t.stiffness[i] == 0.0 && t.damping[i] == 0.0 {
                continue;
            }
            let (spring, damper) = self.tendon_passive_parts(d, i);
            if spring == 0.0 && damper == 0.0 {
                continue;
            }
            for (dof, &j) in d.ten_j[i * nv..(i + 1) * nv].iter().enumerate() {
                if j != 0.0 {
                    d.qfrc_spring[dof] += j * spring;
                    d.qfrc_damper[dof] += j * damper;
                }
            }
        }
    }
}

/// Fills the constants of a freshly built model's tendons: the spring lengths left to `qpos_spring` and
/// `invweight0 = J M⁻¹ Jᵀ` at `qpos0` (`d` holds the factor of `M` at `qpos0`).
pub(crate) fn set_constants(m: &mut Model, d: &mut Data) -> Result<(), ModelError> {
    let nv = m.nv;
    jacobian_sparsity(m);
    let mut x = vec![0.0; nv];
    if m.tendons.lengthspring.iter().flatten().any(|l| l.is_nan()) {
        // The lengths at `qpos_spring` (the kinematics there, once for every tendon left to it).
        let mut at_spring = Data::new(m);
        at_spring.qpos.clone_from(&m.qpos_spring);
        m.forward_kinematics(&mut at_spring);
        m.tendon_state(&mut at_spring);
        for (spring, &l) in m.tendons.lengthspring.iter_mut().zip(&at_spring.ten_length) {
            if spring.iter().any(|s| s.is_nan()) {
                *spring = [l, l];
            }
        }
    }
    m.tendon_state(d);
    for i in 0..m.tendons.len() {
        let row = &d.ten_j[i * nv..(i + 1) * nv];
        x.copy_from_slice(row);
        m.solve_m(d, &mut x);
        // `mju_dot` over the `nv` columns, as `mj_setConst` sums it.
        m.tendons.invweight0[i] = crate::factor::mujoco_sum(nv, |k| row[k] * x[k]);
    }
    Ok(())
}

/// Fills [`Tendons::jac_colind`] and [`Tendons::jac_adr`].
fn jacobian_sparsity(m: &mut Model) {
    let mut colind = Vec::new();
    let mut adr = vec![0];
    for i in 0..m.tendons.len() {
        let t = &m.tendons;
        let mut dofs: Vec<usize> = if t.is_spatial(i) {
            let points = t.site_adr[i]..t.site_adr[i] + t.site_num[i];
            let wraps =
                t.site_wrap[points.clone()].iter().flatten().map(|w| m.collision.geoms().body[w.geom]);
            t.site_body[points].iter().copied().chain(wraps).flat_map(|body| m.dof_chain(body)).collect()
        } else {
            t.fixed_jacobian(i).map(|(dof, _)| dof).collect()
        };
        dofs.sort_unstable();
        dofs.dedup();
        colind.extend(dofs);
        adr.push(colind.len());
    }
    m.tendons.jac_colind = colind;
    m.tendons.jac_adr = adr;
}

/// MuJoCo's `mju_wrap`: the two tangent points and the arc length of a tendon from `x0` to `x1` around a sphere or a
/// cylinder (axis `z` of `mat`) of `radius` at `pos`, or `None` when the straight segment does not touch it. `side`:
/// the side site (world), which picks the side and, inside the circle, wraps from the inside.
pub fn wrap(
    x0: DVec3,
    x1: DVec3,
    pos: DVec3,
    mat: glam::DMat3,
    radius: f64,
    sphere: bool,
    side: Option<DVec3>,
) -> Option<(DVec3, DVec3, f64)> {
    let rt = mat.transpose();
    let p = [rt * (x0 - pos), rt * (x1 - pos)];
    if p[0].length() < MINVAL || p[1].length() < MINVAL {
        return None;
    }
    let axis = if sphere {
        let a0 = p[0].normalize();
        let mut normal = p[0].cross(p[1]);
        if normal.length() < MINVAL {
            let i = if a0.y.abs() > a0.x.abs() && a0.y.abs() > a0.z.abs() {
                1
            } else if a0.z.abs() > a0.x.abs() && a0.z.abs() > a0.y.abs() {
                2
            } else {
                0
            };
            let mut a1 = DVec3::ONE;
            a1[i] = 0.0;
            normal = a0.cross(a1);
        }
        let normal = normal.normalize();
        [a0, normal.cross(a0).normalize()]
    } else {
        [DVec3::X, DVec3::Y]
    };
    let d = [p[0].dot(axis[0]), p[0].dot(axis[1]), p[1].dot(axis[0]), p[1].dot(axis[1])];
    let s = side.map(|x| rt * (x - pos));
    let sd = s.map(|s| normalize2(glam::DVec2::new(s.dot(axis[0]), s.dot(axis[1]))) * radius);
    let (pnt, arc) = match s {
        Some(s) if s.length() < radius => (wrap_inside(d, radius)?, 0.0),
        _ => wrap_circle(d, sd, radius)?,
    };
    let mut res = [axis[0] * pnt[0] + axis[1] * pnt[1], axis[0] * pnt[2] + axis[1] * pnt[3]];
    let mut arc = arc;
    if !sphere {
        let l0 = ((p[0].x - res[0].x).powi(2) + (p[0].y - res[0].y).powi(2)).sqrt();
        let l1 = ((p[1].x - res[1].x).powi(2) + (p[1].y - res[1].y).powi(2)).sqrt();
        res[0].z = p[0].z + (p[1].z - p[0].z) * l0 / (l0 + arc + l1);
        res[1].z = p[0].z + (p[1].z - p[0].z) * (l0 + arc) / (l0 + arc + l1);
        let height = (res[1].z - res[0].z).abs();
        arc = (arc * arc + height * height).sqrt();
    }
    Some((mat * res[0] + pos, mat * res[1] + pos, arc))
}

/// `v/‖v‖` as MuJoCo's `mju_normalize` forms it (times the reciprocal of the norm), `(1, 0)` below `mjMINVAL`.
fn normalize2(v: glam::DVec2) -> glam::DVec2 {
    let norm = v.length();
    if norm < MINVAL { glam::DVec2::X } else { v * (1.0 / norm) }
}

/// Whether segments `p1–p2` and `p3–p4` (2D) cross.
fn segments_cross(p1: [f64; 2], p2: [f64; 2], p3: [f64; 2], p4: [f64; 2]) -> bool {
    let det = (p4[1] - p3[1]) * (p2[0] - p1[0]) - (p4[0] - p3[0]) * (p2[1] - p1[1]);
    if det.abs() < MINVAL {
        return false;
    }
    let a = ((p4[0] - p3[0]) * (p1[1] - p3[1]) - (p4[1] - p3[1]) * (p1[0] - p3[0])) / det;
    let b = ((p2[0] - p1[0]) * (p1[1] - p3[1]) - (p2[1] - p1[1]) * (p1[0] - p3[0])) / det;
    (0.0..=1.0).contains(&a) && (0.0..=1.0).contains(&b)
}

/// The arc angle from `p0` to `p1` on the circle, the long way round when `ind` says so (MuJoCo 4.0.1: the angle
/// `atan2(|p₀ × p₁|, p₀·p₁)`, not flipped below 1e-6).
fn circle_angle(p0: [f64; 2], p1: [f64; 2], ind: bool) -> f64 {
    let cross = p0[1] * p1[0] - p0[0] * p1[1];
    let angle = cross.abs().atan2(p0[0] * p1[0] + p0[1] * p1[1] + 0.0);
    if angle > 1e-6 && ((cross > 0.0 && ind) || (cross < 0.0 && !ind)) {
        2.0 * std::f64::consts::PI - angle
    } else {
        angle
    }
}

/// The signed angle `atan2(a × b, a·b)` that turns direction `a` onto `b` (2D).
fn turn(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] * b[1] - a[1] * b[0]).atan2(a[0] * b[0] + a[1] * b[1])
}

/// The tangent points (2D, `[x0, y0, x1, y1]`) and arc length of the wrap of `end` around the circle of `radius`
/// (MuJoCo 4.0.1's circle wrap, read off its machine code). Without a side point the tendon wraps only when its
/// straight segment cuts the circle, along the shorter of the two tangent paths. With a side point `s` (on the
/// circle) the turns `θ(e₀→s) + θ(s→e₁)` decide: when the segment misses the circle and they add up to less than
/// half a turn away from `θ(e₀→e₁)` (the side lies between the ends) it does not wrap; otherwise it wraps along the
/// tangent path that turns the way the side does, and the arc is the angle between the tangent points through the
/// side.
fn wrap_circle(end: [f64; 4], side: Option<glam::DVec2>, radius: f64) -> Option<([f64; 4], f64)> {
    let sqlen0 = end[0] * end[0] + end[1] * end[1];
    let sqlen1 = end[2] * end[2] + end[3] * end[3];
    let sqrad = radius * radius;
    if sqlen0 < sqrad || sqlen1 < sqrad || radius < MINVAL {
        return None;
    }
    let dif = [end[2] - end[0], end[3] - end[1]];
    let dd = dif[0] * dif[0] + dif[1] * dif[1];
    if dd < MINVAL {
        return None;
    }
    let a = (-(dif[0] * end[0] + dif[1] * end[1]) / dd).clamp(0.0, 1.0);
    let near = [a * dif[0] + end[0], a * dif[1] + end[1]];
    let misses = near[0] * near[0] + near[1] * near[1] > sqrad;
    let (e0, e1) = ([end[0], end[1]], [end[2], end[3]]);
    let through_side = match side {
        None if misses => return None,
        None => None,
        Some(s) => {
            let s = [s.x, s.y];
            let sum = turn(s, e1) + turn(e0, s);
            if misses && (sum - turn(e0, e1)).abs() < std::f64::consts::PI {
                return None;
            }
            Some(sum)
        }
    };
    let (sqrt0, sqrt1) = ((sqlen0 - sqrad).sqrt(), (sqlen1 - sqrad).sqrt());
    let mut sol = [[[0.0; 2]; 2]; 2];
    let mut good = [0.0; 2];
    for i in 0..2 {
        let sgn = if i == 0 { 1.0 } else { -1.0 };
        sol[i][0] = [
            (end[0] * sqrad + sgn * radius * end[1] * sqrt0) / sqlen0,
            (end[1] * sqrad - sgn * radius * end[0] * sqrt0) / sqlen0,
        ];
        sol[i][1] = [
            (end[2] * sqrad - sgn * radius * end[3] * sqrt1) / sqlen1,
            (end[3] * sqrad + sgn * radius * end[2] * sqrt1) / sqlen1,
        ];
        let dx = [sol[i][0][0] - sol[i][1][0], sol[i][0][1] - sol[i][1][1]];
        good[i] = -(dx[0] * dx[0] + dx[1] * dx[1]);
        if segments_cross(e0, sol[i][0], e1, sol[i][1]) {
            good[i] = -10000.0;
        }
    }
    let i = match through_side {
        Some(sum) => usize::from(sum > 0.0),
        None => usize::from(good[0] <= good[1]),
    };
    let (p0, p1) = (sol[i][0], sol[i][1]);
    if segments_cross(e0, p0, e1, p1) {
        return None;
    }
    let angle = match through_side {
        Some(sum) => (sum - turn(e0, p0) - turn(p1, e1)).abs(),
        None => circle_angle(p0, p1, i == 1),
    };
    Some(([p0[0], p0[1], p1[0], p1[1]], radius * angle))
}

/// The tangent point of a wrap from inside the circle (MuJoCo 4.0.1's inside wrap, read off its machine code);
/// `None` when there is no wrap. With `A = r/|e₀|`, `B = r/|e₁|` and `G` the angle between the ends, the point at
/// angle `u` solves `asin(A sin u) + asin(B sin u) − 2u + G = 0` by Newton's method from `u = π/2` (to `|f| ≤ 1e-6`,
/// at most 20 steps); any failure returns the ends' mean direction on the circle.
fn wrap_inside(end: [f64; 4], radius: f64) -> Option<[f64; 4]> {
    const TOLERANCE: f64 = 1e-6;
    let (len0, len1) =
        ((end[0] * end[0] + end[1] * end[1]).sqrt(), (end[2] * end[2] + end[3] * end[3]).sqrt());
    let dif = [end[2] - end[0], end[3] - end[1]];
    let dd = dif[0] * dif[0] + dif[1] * dif[1];
    if len0 <= radius || len1 <= radius || radius < MINVAL || len0 < MINVAL || len1 < MINVAL {
        return None;
    }
    if dd > MINVAL {
        let a = -(dif[0] * end[0] + dif[1] * end[1]) / dd;
        if a > 0.0 && a < 1.0 {
            let near = [end[0] + a * dif[0], end[1] + a * dif[1]];
            if (near[0] * near[0] + near[1] * near[1]).sqrt() <= radius {
                return None;
            }
        }
    }
    let mid = normalize2(glam::DVec2::new(0.5 * (end[0] + end[2]), 0.5 * (end[1] + end[3]))) * radius;
    let fallback = Some([mid.x, mid.y, mid.x, mid.y]);
    let (a_, b_) = (radius / len0, radius / len1);
    let cos_g = (len0 * len0 + len1 * len1 - dd) / (2.0 * len0 * len1);
    if cos_g < -1.0 + MINVAL {
        return None;
    } else if cos_g > 1.0 - MINVAL {
        return fallback;
    }
    let g = cos_g.acos();
    let f1 = b_.asin() + a_.asin() + -std::f64::consts::PI + g;
    if f1 > 0.0 {
        return fallback;
    }
    let (mut u, mut z) = (std::f64::consts::FRAC_PI_2, 1.0);
    if f1.abs() > TOLERANCE {
        let mut f = f1;
        let mut steps = 0;
        loop {
            let cos_u = u.cos();
            let z2 = z * z;
            let root_a = (z2 * -a_ * a_ + 1.0).sqrt();
            let root_b = (z2 * -b_ * b_ + 1.0).sqrt();
            let df = (a_ / root_a.max(MINVAL) + b_ / root_b.max(MINVAL)) * cos_u + -2.0;
            if df > -MINVAL {
                return fallback;
            }
            let u1 = u - f / df;
            if u1 > u {
                return fallback;
            }
            u = u1;
            z = u.sin();
            f = (z * b_).asin() + (z * a_).asin() - (u + u) + g;
            steps += 1;
            if f > TOLERANCE || steps >= 20 {
                return fallback;
            }
            if f.abs() <= TOLERANCE {
                break;
            }
        }
    }
    let (k, vec) = if end[0] * end[3] - end[1] * end[2] > 0.0 {
        (a_, glam::DVec2::new(end[0], end[1]))
    } else {
        (b_, glam::DVec2::new(end[2], end[3]))
    };
    let ang = u - (k * z).asin();
    let vec = normalize2(vec);
    let x = radius * (ang.cos() * vec.x - ang.sin() * vec.y);
    let y = radius * (ang.sin() * vec.x + ang.cos() * vec.y);
    Some([x, y, x, y])
}
