//! The constraint-related simulation options (spec README §4), with their defaults and validation.

use crate::error::ConstraintError;

/// How a contact's friction is modelled (spec §B.8/§B.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrictionCone {
    /// Pyramid of `2(dim − 1)` edge rows `J_n ± μ_k J_k` (MuJoCo and Genesis default).
    #[default]
    Pyramidal,
    /// One normal row and `dim − 1` friction rows under the Euclidean cone `‖f_t‖ ≤ μ f_n`.
    Elliptic,
}

/// Options that shape the constraint rows. Build with [`Default`] and struct update syntax, then check with
/// [`ConstraintOptions::validate`] (called by [`crate::ConstraintAssembler::new`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConstraintOptions {
    /// The (sub)step `h = dt / substeps` in seconds, which sets the timeconst floor `2h` (MuJoCo `refsafe`).
    ///
    /// Default: `0.01`. Must be finite and > 0.
    pub timestep: f64,
    /// The friction cone.
    ///
    /// Default: [`FrictionCone::Pyramidal`].
    pub friction_cone: FrictionCone,
    /// Ratio of the friction to the normal impedance (`R_friction = R_normal / impratio`).
    ///
    /// Default `None` = auto: 100 for the elliptic cone in native mode, else 1 (spec §B.9). Must be finite and > 0.
    pub impratio: Option<f64>,
    /// Time constant (s) used for a `solref` whose timeconst is 0 ("use the solver default"), floored at `2h`.
    ///
    /// Default: `0.01`. Must be finite and > 0.
    pub constraint_timeconst: f64,
    /// Native mode: add the torsional row(s) resisting spin about the normal to every contact.
    ///
    /// Default: `false`. Ignored in MuJoCo mode, where each contact's `condim` decides.
    pub enable_torsional_friction: bool,
    /// Native mode: add the two rolling rows to every contact. Requires `enable_torsional_friction`.
    ///
    /// Default: `false`. Ignored in MuJoCo mode, where each contact's `condim` decides.
    pub enable_rolling_friction: bool,
    /// Create joint-limit rows.
    ///
    /// Default: `true`.
    pub enable_joint_limit: bool,
    /// MuJoCo-compatible semantics: impedance flat case and margins, direct-mode `solref`, `condim` per contact,
    /// MuJoCo's pyramid regularizer and `mju_makeFrame` tangents (spec §B.1, §B.8, §B.12).
    ///
    /// Default: `false` (native, Genesis semantics).
    pub mujoco_compatibility: bool,
    /// Elliptic contacts are built for the Signorini resolution: the spin and rolling rows keep the friction rows'
    /// `R` (no `μ²/μ_j²` scaling, spec §B.9). Requires the elliptic cone in native mode.
    ///
    /// Default: `false`.
    pub signorini: bool,
}

impl Default for ConstraintOptions {
    fn default() -> Self {
        Self {
            timestep: 0.01,
            friction_cone: FrictionCone::Pyramidal,
            impratio: None,
            constraint_timeconst: 0.01,
            signorini: false,
            enable_torsional_friction: false,
            enable_rolling_friction: false,
            enable_joint_limit: true,
            mujoco_compatibility: false,
        }
    }
}

impl ConstraintOptions {
    /// Checks every rule (one typed error per rejected value or combination).
    pub fn validate(&self) -> Result<(), ConstraintError> {
        let positive = |option: &'static str, value: f64| {
            if value.is_finite() && value > 0.0 {
                Ok(())
            } else {
                Err(ConstraintError::InvalidOption { option, value, rule: "must be finite and > 0" })
            }
        };
        positive("timestep", self.timestep)?;
        positive("constraint_timeconst", self.constraint_timeconst)?;
        if let Some(r) = self.impratio {
            positive("impratio", r)?;
        }
        if self.enable_rolling_friction && !self.enable_torsional_friction {
            return Err(ConstraintError::RollingWithoutTorsional);
        }
        if self.signorini && (self.friction_cone != FrictionCone::Elliptic || self.mujoco_compatibility) {
            return Err(ConstraintError::SignoriniNeedsNativeElliptic);
        }
        Ok(())
    }

    /// The effective `impratio`: the explicit value, else 100 for the elliptic cone in native mode, else 1.
    pub fn impratio(&self) -> f64 {
        match self.impratio {
            Some(r) => r,
            None if self.friction_cone == FrictionCone::Elliptic && !self.mujoco_compatibility => 100.0,
            None => 1.0,
        }
    }

    /// The timeconst floor `2h` (spec §B.0, MuJoCo `refsafe`).
    pub fn min_timeconst(&self) -> f64 {
        crate::impedance::TIMECONST_SAFETY_FACTOR * self.timestep
    }

    /// The timeconst used for `solref[0] = 0`: `max(constraint_timeconst, 2h)`.
    pub fn default_timeconst(&self) -> f64 {
        self.constraint_timeconst.max(self.min_timeconst())
    }

    /// Native mode: the contact dimensionality `3 (+1 torsional) (+2 rolling)`.
    pub fn native_condim(&self) -> usize {
        3 + usize::from(self.enable_torsional_friction) + 2 * usize::from(self.enable_rolling_friction)
    }
}
