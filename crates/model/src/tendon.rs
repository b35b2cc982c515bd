//! Fixed tendons (MuJoCo `<tendon><fixed>`): `L = Σₖ cₖ q_{jₖ}` over hinge and slide joints, so the Jacobian
//! `J = ∂L/∂q` is the constant row with `cₖ` at joint `jₖ`'s dof, and `L̇ = J q̇`.
//!
//! Along a tendon act a spring with a dead band, `f = −k (L − l_upper)` above it and `−k (L − l_lower)` below, and a
//! damper `f = −b L̇` (MuJoCo's `mj_passive`), applied as `qfrc_passive += Jᵀ f`. Its dry friction and limits are
//! constraint rows (`signorini-constraints`), with the regulariser weight `tendon_invweight0 = J M⁻¹ Jᵀ` at `qpos0`
//! (MuJoCo `mj_setConst`).

use crate::data::Data;
use crate::error::ModelError;
use crate::model::Model;
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

    /// Entries `(dof, coefficient)` of tendon `t`'s Jacobian row.
    pub fn jacobian(&self, t: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.adr[t]..self.adr[t] + self.num[t];
        self.dof[range.clone()].iter().copied().zip(self.coef[range].iter().copied())
    }

    /// The length of tendon `t` at `qpos`.
    pub fn length(&self, t: usize, qpos: &[f64]) -> f64 {
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
    /// `ten_length` and `ten_velocity` of every tendon from `qpos` and `qvel`.
    pub fn tendon_state(&self, d: &mut Data) {
        let t = &self.tendons;
        for i in 0..t.len() {
            d.ten_length[i] = t.length(i, &d.qpos);
            d.ten_velocity[i] = t.jacobian(i).map(|(dof, c)| c * d.qvel[dof]).sum();
        }
    }

    /// Adds every tendon's spring and damper force `Jᵀ f` to `qfrc_passive` (after [`Model::tendon_state`]).
    pub(crate) fn tendon_passive(&self, d: &mut Data) {
        let t = &self.tendons;
        for i in 0..t.len() {
            let (k, b) = (t.stiffness[i], t.damping[i]);
            if k == 0.0 && b == 0.0 {
                continue;
            }
            let [lower, upper] = t.lengthspring[i];
            let length = d.ten_length[i];
            let stretch = if length > upper {
                length - upper
            } else if length < lower {
                length - lower
            } else {
                0.0
            };
            let force = -k * stretch - b * d.ten_velocity[i];
            for (dof, c) in t.jacobian(i) {
                d.qfrc_passive[dof] += c * force;
            }
        }
    }
}

/// Fills the constants of a freshly built model's tendons: the spring lengths left to `qpos_spring` and
/// `invweight0 = J M⁻¹ Jᵀ` at `qpos0` (`d` holds the factor of `M` at `qpos0`).
pub(crate) fn set_constants(m: &mut Model, d: &mut Data) -> Result<(), ModelError> {
    let mut x = vec![0.0; m.nv];
    for i in 0..m.tendons.len() {
        if m.tendons.lengthspring[i].iter().any(|l| l.is_nan()) {
            let l = m.tendons.length(i, &m.qpos_spring);
            m.tendons.lengthspring[i] = [l, l];
        }
        x.fill(0.0);
        for (dof, c) in m.tendons.jacobian(i) {
            x[dof] += c;
        }
        let row = x.clone();
        m.solve_m(d, &mut x);
        m.tendons.invweight0[i] = row.iter().zip(&x).map(|(a, b)| a * b).sum();
    }
    Ok(())
}
