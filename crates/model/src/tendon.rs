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
    /// The dof of each entry.
    pub dof: Vec<usize>,
    /// The `qpos` address of each entry.
    pub qposadr: Vec<usize>,
    /// The coefficient of each entry.
    pub coef: Vec<f64>,
    /// First point of each tendon in `site_body`/`site_pos` (spatial tendons).
    pub site_adr: Vec<usize>,
    /// Number of points of each tendon (0 for a fixed tendon).
    pub site_num: Vec<usize>,
    /// The body of each point.
    pub site_body: Vec<usize>,
    /// The position of each point in its body's frame.
    pub site_pos: Vec<DVec3>,
    /// Length limits, `None` when unlimited.
    pub range: Vec<Option<[f64; 2]>>,
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

    /// The length of fixed tendon `t` at `qpos` (0 for a spatial tendon).
    fn fixed_length(&self, t: usize, qpos: &[f64]) -> f64 {
        let range = self.adr[t]..self.adr[t] + self.num[t];
        self.qposadr[range.clone()].iter().zip(&self.coef[range]).map(|(&a, &c)| c * qpos[a]).sum()
    }

    /// Adds tendon `spec` (validated) whose joints have the dof and `qpos` addresses `jnt_dofadr`, `jnt_qposadr`.
    pub(crate) fn push(&mut self, spec: TendonSpec, jnt_dofadr: &[usize], jnt_qposadr: &[usize]) {
        // Entries by decreasing dof (the order of the constraint rows' Jacobians), a joint listed twice summed.
        let mut entries: Vec<(usize, usize, f64)> =
            spec.joints.iter().map(|&(j, c)| (jnt_dofadr[j], jnt_qposadr[j], c)).collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.0));
        entries.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.2 += later.2;
            }
            same
        });
        self.name.push(spec.name);
        self.adr.push(self.dof.len());
        self.num.push(entries.len());
        self.site_adr.push(self.site_body.len());
        self.site_num.push(spec.sites.len());
        for (body, pos) in spec.sites {
            self.site_body.push(body);
            self.site_pos.push(pos);
        }
        for (dof, qposadr, coef) in entries {
            self.dof.push(dof);
            self.qposadr.push(qposadr);
            self.coef.push(coef);
        }
        self.range.push(spec.range);
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
                let points = t.site_adr[i]..t.site_adr[i] + t.site_num[i];
                let world = |k: usize| d.xpos[t.site_body[k]] + d.xquat[t.site_body[k]] * t.site_pos[k];
                for k in points.start..points.end - 1 {
                    let (a, b) = (world(k), world(k + 1));
                    let span = (b - a).length();
                    length += span;
                    if span < MINVAL {
                        continue;
                    }
                    let u = (b - a) / span;
                    for (body, point, sign) in [(t.site_body[k + 1], b, 1.0), (t.site_body[k], a, -1.0)] {
                        for dof in self.dof_chain(body) {
                            row[dof] += sign * u.dot(self.jacobian_column(d, dof, point).0);
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
            d.ten_velocity[i] = row.iter().zip(&d.qvel).map(|(j, v)| j * v).sum();
        }
        d.ten_j = ten_j;
    }

    /// The spring and damper tension of tendon `i`, `−k·stretch − b·L̇` (positive pulls the ends apart), with the
    /// dead band `lengthspring` (after [`Model::tendon_state`]).
    pub fn tendon_passive_force(&self, d: &Data, i: usize) -> f64 {
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
        -t.stiffness[i] * stretch - t.damping[i] * d.ten_velocity[i]
    }

    /// Adds every tendon's spring and damper force `Jᵀ f` to `qfrc_passive` (after [`Model::tendon_state`]).
    pub(crate) fn tendon_passive(&self, d: &mut Data) {
        let (t, nv) = (&self.tendons, self.nv);
        for i in 0..t.len() {
            if t.stiffness[i] == 0.0 && t.damping[i] == 0.0 {
                continue;
            }
            let force = self.tendon_passive_force(d, i);
            for (dof, j) in d.ten_j[i * nv..(i + 1) * nv].iter().enumerate() {
                d.qfrc_passive[dof] += j * force;
            }
        }
    }
}

/// Fills the constants of a freshly built model's tendons: the spring lengths left to `qpos_spring` and
/// `invweight0 = J M⁻¹ Jᵀ` at `qpos0` (`d` holds the factor of `M` at `qpos0`).
pub(crate) fn set_constants(m: &mut Model, d: &mut Data) -> Result<(), ModelError> {
    let nv = m.nv;
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
        let row = d.ten_j[i * nv..(i + 1) * nv].to_vec();
        x.copy_from_slice(&row);
        m.solve_m(d, &mut x);
        m.tendons.invweight0[i] = row.iter().zip(&x).map(|(a, b)| a * b).sum();
    }
    Ok(())
}
