//! The constraint-related simulation options (spec README §4), with their defaults and validation.
//!
//! Every field is a plain setting named for the rule it selects; [`Default`] gives the native (Genesis) rules and
//! [`ConstraintOptions::mujoco`] is a preset with MuJoCo's. No field records which preset built the options.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use signorini_model::model::MINVAL;

use crate::error::ConstraintError;
use crate::frame::TangentFrame;
use crate::impedance::ImpedanceCurve;

/// How a contact's friction is modelled (spec §B.8/§B.9). Named `pyramidal` and `elliptic` (serde, [`Self::name`],
/// [`Self::from_name`], [`FromStr`], [`fmt::Display`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrictionCone {
    /// Pyramid of `2(dim − 1)` edge rows `J_n ± μ_k J_k` (MuJoCo and Genesis default).
    #[default]
    Pyramidal,
    /// One normal row and `dim − 1` friction rows under the Euclidean cone `‖f_t‖ ≤ μ f_n`.
    Elliptic,
}

impl FrictionCone {
    /// Every cone, in the order of [`Self::NAMES`].
    pub const ALL: [FrictionCone; 2] = [Self::Pyramidal, Self::Elliptic];
    /// The names [`Self::from_name`] accepts: `pyramidal`, `elliptic`.
    pub const NAMES: [&'static str; 2] = ["pyramidal", "elliptic"];

    /// The name: `pyramidal` or `elliptic`.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The cone called `name` (exact, lowercase), or [`ConstraintError::UnknownFrictionCone`].
    pub fn from_name(name: &str) -> Result<Self, ConstraintError> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == name)
            .ok_or_else(|| ConstraintError::UnknownFrictionCone { name: name.to_owned() })
    }
}

impl fmt::Display for FrictionCone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FrictionCone {
    type Err = ConstraintError;

    fn from_str(name: &str) -> Result<Self, ConstraintError> {
        Self::from_name(name)
    }
}

/// Where a contact's dimensionality `dim` (1 normal + `dim − 1` friction directions) comes from (spec §B.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ContactDimension {
    /// Every contact gets `dim = 3 (+1 with enable_torsional_friction) (+2 with enable_rolling_friction)`
    /// ([`ConstraintOptions::options_condim`]); the contact's own `condim` is ignored (Genesis). Default.
    #[default]
    FromOptions,
    /// Each contact's `condim` (1, 3, 4 or 6) from the contact set; `dim = 1` is a frictionless normal row
    /// (MuJoCo). The torsional/rolling options are ignored.
    PerContactCondim,
}

/// The pyramid edges' regularizer `R`, with `μ` the sliding coefficient, `iw` the contact's translational
/// invweight and `ir` the effective `impratio` (spec §B.8). Both reduce to the same value at `ir = 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PyramidRegularizer {
    /// `μ_reg² = μ²/ir` in both factors: `R = iw (1 + μ_reg²) 2 μ_reg² (1 − imp)/imp` (Genesis–Warp). Default.
    #[default]
    BothFactorsScaled,
    /// `ir` scales the leading factor only: `R = 2μ²/ir (1 + μ²) iw (1 − imp)/imp` (MuJoCo `mj_makeImpedance`, in
    /// its order: `R₀ = (1 − imp)(iw + μ² iw)/imp`, `μ_r = μ √((R₀/ir)/R₀)`, `R = 2 μ_r² R₀`).
    LeadingFactorScaled,
}

/// The regularizers of an elliptic contact's friction rows and its cone coefficient, with `R₀` the normal row's,
/// `R₁ = R₀/ir` (`ir` the effective `impratio`) and `μ_k` the coefficient of friction row `k` (spec §B.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EllipticRegularizer {
    /// Both sliding rows `R₁`, spin and rolling rows `R₁ μ₀²/μ_k²`; cone coefficient `μ₀/√ir` (Genesis). Default.
    #[default]
    SlidingRowsEqual,
    /// The first sliding row `R₁`, every later row `R₁ μ₀ μ₀/(μ_k μ_k)` (the second sliding row too: anisotropic
    /// friction changes its `R`, and isotropic friction rounds it), cone coefficient `μ₀ √(R₁/R₀)` (MuJoCo
    /// `mj_makeImpedance`, in its order).
    ScaledToFirstSliding,
}

/// What a pyramidal contact does with a spin or rolling direction whose friction coefficient is 0 (spec §B.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ZeroRotationalFriction {
    /// Each of its two edges is an empty row (no Jacobian entries, `aref = 0`, force 0), so the contact keeps its
    /// `2(dim − 1)` rows at a fixed layout (Genesis). Default.
    #[default]
    EmptyRows,
    /// Its edges `J_n ± 0·J_k = J_n` are built like any other edge: two more copies of the normal row (MuJoCo).
    NormalEdges,
}

/// Which sides of a violated hinge or slide limit `lo ≤ q ≤ hi` get a row, with `δ_lo = q − lo`, `δ_hi = hi − q`
/// (spec §B.6). The two differ only when both are negative (a range narrower than the violation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JointLimitSides {
    /// At most one row when `min(δ_lo, δ_hi) < 0`: the lower side if `δ_lo < δ_hi`, else the upper one (Genesis).
    /// Default.
    #[default]
    MostViolated,
    /// A row for every side with `δ < 0`, lower side first (MuJoCo).
    EachViolated,
}

/// Options that shape the constraint rows. Build with [`Default`] (native rules) or [`ConstraintOptions::mujoco`]
/// and struct update syntax, then check with [`ConstraintOptions::validate`] (called by
/// [`crate::ConstraintAssembler::new`]).
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
    /// Default `None` = auto: `elliptic_auto_impratio` for the elliptic cone, 1 for the pyramidal one (spec §B.9).
    /// Must be finite and > 0.
    pub impratio: Option<f64>,
    /// The `impratio` of the elliptic cone when `impratio` is `None`.
    ///
    /// Default: `100` (Genesis); MuJoCo: `1`. Must be finite and > 0.
    pub elliptic_auto_impratio: f64,
    /// Time constant (s) used for a `solref` whose timeconst is 0 ("use the solver default"), floored at `2h`.
    ///
    /// Default: `0.01`. Must be finite and > 0.
    pub constraint_timeconst: f64,
    /// With [`ContactDimension::FromOptions`]: add the torsional row(s) resisting spin about the normal to every
    /// contact.
    ///
    /// Default: `false`. Ignored with [`ContactDimension::PerContactCondim`].
    pub enable_torsional_friction: bool,
    /// With [`ContactDimension::FromOptions`]: add the two rolling rows to every contact. Requires
    /// `enable_torsional_friction`.
    ///
    /// Default: `false`. Ignored with [`ContactDimension::PerContactCondim`].
    pub enable_rolling_friction: bool,
    /// Create joint-limit rows.
    ///
    /// Default: `true`.
    pub enable_joint_limit: bool,
    /// Where each contact's dimensionality comes from.
    ///
    /// Default: [`ContactDimension::FromOptions`]; MuJoCo: [`ContactDimension::PerContactCondim`].
    pub contact_dimension: ContactDimension,
    /// The tangents `(d₁, d₂)` of a contact normal.
    ///
    /// Default: [`TangentFrame::Orthogonals`]; MuJoCo: [`TangentFrame::MakeFrame`].
    pub tangent_frame: TangentFrame,
    /// The pyramid edges' regularizer.
    ///
    /// Default: [`PyramidRegularizer::BothFactorsScaled`]; MuJoCo: [`PyramidRegularizer::LeadingFactorScaled`].
    pub pyramid_regularizer: PyramidRegularizer,
    /// The elliptic friction rows' regularizers and cone coefficient.
    ///
    /// Default: [`EllipticRegularizer::SlidingRowsEqual`]; MuJoCo: [`EllipticRegularizer::ScaledToFirstSliding`].
    pub elliptic_regularizer: EllipticRegularizer,
    /// The pyramid edges of a spin or rolling direction with a zero coefficient.
    ///
    /// Default: [`ZeroRotationalFriction::EmptyRows`]; MuJoCo: [`ZeroRotationalFriction::NormalEdges`].
    pub zero_rotational_friction: ZeroRotationalFriction,
    /// Contact rows measure the violation from the contact's activation distance: `margin = margin_c` and
    /// `x = dist − margin` in `imp` and `aref` (MuJoCo 4.0's `includemargin`), and a contact with `x ≥ 0` (found
    /// within the gap) makes no rows (MuJoCo's `exclude`). When `false`, `margin = 0` and `x = dist`.
    ///
    /// Default: `false`; MuJoCo: `true`.
    pub include_contact_margin: bool,
    /// A dof gets a friction-loss row when its `frictionloss > frictionloss_threshold`.
    ///
    /// Default: `MINVAL` (1e-15, Genesis); MuJoCo: `0`. Must be finite and ≥ 0.
    pub frictionloss_threshold: f64,
    /// Which sides of a violated joint limit get a row.
    ///
    /// Default: [`JointLimitSides::MostViolated`]; MuJoCo: [`JointLimitSides::EachViolated`].
    pub joint_limit_sides: JointLimitSides,
    /// Joint and tendon limits take their `margin` (`Model::jnt_margin`, `Tendons::margin`): a side gets a row while
    /// its distance `dist` to the limit is below the margin, and the row measures `x = dist − margin` in `imp` and
    /// `aref` (MuJoCo 4.0's `mj_instantiateLimit`). When `false` the margins are 0: a row only for `dist < 0`.
    ///
    /// Default: `false` (Genesis 1.4.5 reads no joint margin); MuJoCo: `true`.
    pub limit_margins: bool,
    /// How the impedance `imp(r)` is evaluated at its degenerate and branch points (spec §B.1).
    ///
    /// Default: [`ImpedanceCurve::StepAtZeroWidth`]; MuJoCo: [`ImpedanceCurve::FlatAtZeroWidth`].
    pub impedance_curve: ImpedanceCurve,
    /// Accept direct-mode `solref = (−stiffness, −damping)` (timeconst < 0): `k = −solref₀/dmax²`,
    /// `b = −solref₁/dmax` (MuJoCo). When `false`, a negative timeconst is rejected.
    ///
    /// Default: `false`; MuJoCo: `true`.
    pub direct_solref: bool,
    /// Connect and weld rows take the velocity product of their Jacobian's time derivative into their reference
    /// acceleration, `aref −= J̇ q̇` (MuJoCo 4.0's `mj_Jdotv`: the constraint holds `J q̈ + J̇ q̇`, the true acceleration
    /// of the residual, instead of `J q̈`).
    ///
    /// Default: `false` (Genesis); MuJoCo: `true`.
    pub equality_velocity_bias: bool,
    /// A positive `solref` timeconst is floored at `2h` (MuJoCo's `refsafe` flag, on by default; the floor keeps a
    /// constraint from reacting faster than the integrator can follow).
    ///
    /// Default: `true`.
    pub refsafe: bool,
    /// A row's velocity `J_r q̇` is summed as MuJoCo's `mj_mulJacVec` sums it (dense below
    /// [`crate::mujoco_dot::MUJOCO_SPARSE_NV`] dofs, [`crate::mujoco_dot::mujoco_row_dot`]; sparse from there on,
    /// [`crate::mujoco_dot::mujoco_sparse_row_dot`]), not from the contact's normal and tangent velocities. The
    /// same value to rounding.
    ///
    /// Default: `false`.
    pub mujoco_sums: bool,
    /// Limit rows come before the contact rows, as in MuJoCo's `mj_makeConstraint` (equality, friction loss,
    /// limits, contacts); otherwise after them. The order of the rows is the order of the solver's sums.
    ///
    /// Default: `false`.
    pub limits_before_contacts: bool,
    /// Elliptic contacts are built for the Signorini resolution: the spin and rolling rows keep the friction rows'
    /// `R` (no `μ²/μ_j²` scaling, spec §B.9). Requires the elliptic cone.
    ///
    /// Default: `false`.
    pub signorini: bool,
    /// Contact rows measure a standalone free body's acceleration at its centre of mass, where Genesis 1.4.5
    /// anchors such a body ([`signorini_model::Model::standalone_free_dofs`]): with `r` the centre of mass from the
    /// joint origin and `ω` the angular velocity, `J q̈` over the origin's coordinates lacks the centripetal
    /// `ω × (ω × r)` of the origin, over the centre of mass's that of the centre of mass, so each contact row's
    /// reference acceleration is shifted by `J_lin · ω × (ω × r)` of each such body it involves. Off, the rows measure
    /// it at the free joint's origin (MuJoCo's coordinates). The two agree while the body does not spin. (The same
    /// holds for any row; equality rows are left unshifted: on such a body they part from Genesis for another,
    /// larger reason not traced yet.)
    ///
    /// Default: `true` (Genesis); MuJoCo: `false`.
    pub contact_rows_at_centre_of_mass: bool,
}

impl Default for ConstraintOptions {
    fn default() -> Self {
        Self {
            timestep: 0.01,
            friction_cone: FrictionCone::Pyramidal,
            impratio: None,
            elliptic_auto_impratio: 100.0,
            constraint_timeconst: 0.01,
            signorini: false,
            enable_torsional_friction: false,
            enable_rolling_friction: false,
            enable_joint_limit: true,
            contact_dimension: ContactDimension::FromOptions,
            tangent_frame: TangentFrame::Orthogonals,
            pyramid_regularizer: PyramidRegularizer::BothFactorsScaled,
            elliptic_regularizer: EllipticRegularizer::SlidingRowsEqual,
            zero_rotational_friction: ZeroRotationalFriction::EmptyRows,
            include_contact_margin: false,
            frictionloss_threshold: MINVAL,
            joint_limit_sides: JointLimitSides::MostViolated,
            limit_margins: false,
            impedance_curve: ImpedanceCurve::StepAtZeroWidth,
            direct_solref: false,
            equality_velocity_bias: false,
            refsafe: true,
            mujoco_sums: false,
            limits_before_contacts: false,
            contact_rows_at_centre_of_mass: true,
        }
    }
}

impl ConstraintOptions {
    /// The preset with MuJoCo's rules (spec §B.1, §B.6, §B.8, §B.12): `condim` per contact, `mju_makeFrame`
    /// tangents, MuJoCo's pyramid and elliptic regularizers and zero-coefficient edges, contact margins, friction loss
    /// above 0, a row per violated limit side, limit margins, the flat impedance at zero width, direct-mode `solref`,
    /// the `J̇ q̇` bias of connect and weld rows, MuJoCo's sums of contact row velocities, its row order (limits
    /// before contacts), contact rows at a free joint's origin, and `impratio` 1 for every cone unless given. The
    /// other fields are the defaults.
    pub fn mujoco() -> Self {
        Self {
            elliptic_auto_impratio: 1.0,
            contact_dimension: ContactDimension::PerContactCondim,
            tangent_frame: TangentFrame::MakeFrame,
            pyramid_regularizer: PyramidRegularizer::LeadingFactorScaled,
            elliptic_regularizer: EllipticRegularizer::ScaledToFirstSliding,
            zero_rotational_friction: ZeroRotationalFriction::NormalEdges,
            include_contact_margin: true,
            frictionloss_threshold: 0.0,
            joint_limit_sides: JointLimitSides::EachViolated,
            limit_margins: true,
            impedance_curve: ImpedanceCurve::FlatAtZeroWidth,
            direct_solref: true,
            equality_velocity_bias: true,
            mujoco_sums: true,
            limits_before_contacts: true,
            contact_rows_at_centre_of_mass: false,
            ..Self::default()
        }
    }

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
        positive("elliptic_auto_impratio", self.elliptic_auto_impratio)?;
        let threshold = self.frictionloss_threshold;
        if !(threshold.is_finite() && threshold >= 0.0) {
            return Err(ConstraintError::InvalidOption {
                option: "frictionloss_threshold",
                value: threshold,
                rule: "must be finite and ≥ 0",
            });
        }
        if self.enable_rolling_friction && !self.enable_torsional_friction {
            return Err(ConstraintError::RollingWithoutTorsional);
        }
        if self.signorini && self.friction_cone != FrictionCone::Elliptic {
            return Err(ConstraintError::SignoriniNeedsElliptic);
        }
        Ok(())
    }

    /// The effective `impratio`: the explicit value, else `elliptic_auto_impratio` for the elliptic cone, else 1.
    pub fn impratio(&self) -> f64 {
        match self.impratio {
            Some(r) => r,
            None if self.friction_cone == FrictionCone::Elliptic => self.elliptic_auto_impratio,
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

    /// The contact dimensionality of [`ContactDimension::FromOptions`]: `3 (+1 torsional) (+2 rolling)`.
    pub fn options_condim(&self) -> usize {
        3 + usize::from(self.enable_torsional_friction) + 2 * usize::from(self.enable_rolling_friction)
    }

    /// The dimensionality of a contact whose own `condim` is `condim` (see [`ContactDimension`]).
    #[inline]
    pub fn contact_condim(&self, condim: u8) -> usize {
        match self.contact_dimension {
            ContactDimension::FromOptions => self.options_condim(),
            ContactDimension::PerContactCondim => usize::from(condim),
        }
    }
}
