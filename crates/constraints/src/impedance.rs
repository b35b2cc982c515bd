//! `sol_params` (MuJoCo `solref` + `solimp`), the impedance `imp(r)`, the reference acceleration and the
//! regularizer (spec §B.0, §B.1).
//!
//! With `ξ = |r| / width` and `p = power`, `m = midpoint`:
//! `y(ξ) = ξᵖ / m^(p−1)` for `ξ < m` (MuJoCo: `ξ ≤ m`), else `1 − (1 − ξ)ᵖ / (1 − m)^(p−1)`, and
//! `imp = dmin + y (dmax − dmin)`, `dmax` beyond `ξ ≥ 1`.
//! `aref = −b v − k imp x` with `b = 2 / (dmax τ)`, `k = 1 / (dmax² τ² ζ²)` (τ = timeconst, ζ = dampratio), or in
//! MuJoCo's direct mode (`solref ≤ 0`) `k = −solref₀ / dmax²`, `b = −solref₁ / dmax`.
//! `R = max(invweight (1 − imp) / imp, MINVAL)`, `D = 1 / R`.
//!
//! The options that change these rules, each a setting of [`ConstraintOptions`] (the first value is the default,
//! the second MuJoCo's):
//!
//! | rule | setting | default (Genesis) | MuJoCo |
//! |---|---|---|---|
//! | degenerate `solimp` | [`ImpedanceCurve`] | `width = 0` gives `dmax` (`dmin` at `r = 0`) | `dmin = dmax` or `width ≤ MINVAL`: `(dmin + dmax)/2` |
//! | margin | `include_contact_margin` | none | `r = pos − margin`, `x = pos − margin` (contacts) |
//! | `solref₀ < 0` | `direct_solref` | rejected (no direct mode) | direct stiffness/damping (needs `solref₁ ≤ 0`) |
//! | `solref₀ = 0` | — | `constraint_timeconst` (floored at 2h) | the same (MuJoCo never stores 0) |
//! | timeconst floor | — | `max(τ, 2h)` | `max(τ, 2h)` (`refsafe`) |

use signorini_model::model::MINVAL;
use signorini_model::spec::{SolImp, SolRef};

use crate::error::ConstraintError;
use crate::options::ConstraintOptions;

/// Lower clip of `dmin`, `dmax`, `midpoint` (MuJoCo `mjMINIMP`).
pub const IMP_MIN: f64 = 1e-4;
/// Upper clip of `dmin`, `dmax`, `midpoint` (MuJoCo `mjMAXIMP`).
pub const IMP_MAX: f64 = 0.9999;
/// The timeconst floor is this many substeps (Genesis `TIME_CONSTANT_SAFETY_FACTOR`, MuJoCo `refsafe`).
pub const TIMECONST_SAFETY_FACTOR: f64 = 2.0;

/// Validated, clipped `sol_params` with the reference-acceleration gains already computed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResolvedSol {
    /// `solimp[0]`, clipped to `[IMP_MIN, IMP_MAX]`.
    pub dmin: f64,
    /// `solimp[1]`, clipped to `[IMP_MIN, IMP_MAX]`.
    pub dmax: f64,
    /// `solimp[2]` (m or rad), ≥ 0.
    pub width: f64,
    /// `solimp[3]`, clipped to `[IMP_MIN, IMP_MAX]`.
    pub midpoint: f64,
    /// `solimp[4]`, ≥ 1.
    pub power: f64,
    /// Damping gain `b` (1/s).
    pub b: f64,
    /// Stiffness gain `k` (1/s²), multiplied by `imp` in `aref`.
    pub k: f64,
    /// How `imp(r)` is evaluated ([`ConstraintOptions::impedance_curve`]).
    pub curve: ImpedanceCurve,
}

/// How the impedance `imp(r)` of the module docs is evaluated. The two agree inside `0 < ξ < 1` away from the
/// midpoint; they differ for a degenerate `solimp` and, by rounding only, at the branch points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ImpedanceCurve {
    /// `r = 0` gives `dmin`; else `width ≤ 0` gives `dmax`; `ξ > 1` gives `dmax`; the lower branch for `ξ < m`;
    /// the result clamped to `[dmin, dmax]` (Genesis). Default.
    #[default]
    StepAtZeroWidth,
    /// `dmin = dmax` or `width ≤ MINVAL` gives the flat `(dmin + dmax)/2`; `ξ ≥ 1` gives `dmax`, `ξ ≤ 0` `dmin`;
    /// `power = 1` is exactly `y = ξ`; the lower branch for `ξ ≤ m` (MuJoCo `getimpedance`).
    FlatAtZeroWidth,
}

fn invalid(
    object: &dyn Fn() -> String,
    parameter: &'static str,
    value: f64,
    rule: &'static str,
) -> ConstraintError {
    ConstraintError::InvalidSolParams { object: object(), parameter, value, rule }
}

impl ResolvedSol {
    /// Validates `solref`/`solimp` of `object` (named lazily, for the error) and resolves them under `options`:
    /// timeconst 0 → [`ConstraintOptions::default_timeconst`], the `2h` floor, direct mode with
    /// [`ConstraintOptions::direct_solref`] only, then MuJoCo's clipping of `dmin`, `dmax`, `midpoint`. Rejected
    /// (spec README §4): non-finite entries, timeconst < 0 without `direct_solref`, dampratio ≤ 0 (with a
    /// positive timeconst), mixed-sign direct `solref`,
    /// `dmin > dmax`, `width < 0`, `power < 1`.
    pub fn resolve(
        options: &ConstraintOptions,
        object: &dyn Fn() -> String,
        solref: SolRef,
        solimp: SolImp,
    ) -> Result<Self, ConstraintError> {
        const NAMES: [&str; 7] = ["timeconst", "dampratio", "dmin", "dmax", "width", "midpoint", "power"];
        for (i, &v) in solref.iter().chain(&solimp).enumerate() {
            if !v.is_finite() {
                return Err(invalid(object, NAMES[i], v, "must be finite"));
            }
        }
        let [dmin, dmax, width, midpoint, power] = solimp;
        if dmin > dmax {
            return Err(invalid(object, "dmin", dmin, "must not exceed dmax"));
        }
        if width < 0.0 {
            return Err(invalid(object, "width", width, "must be ≥ 0"));
        }
        if power < 1.0 {
            return Err(invalid(object, "power", power, "must be ≥ 1"));
        }
        let clip = |v: f64| v.clamp(IMP_MIN, IMP_MAX);
        let (dmin, dmax, midpoint) = (clip(dmin), clip(dmax), clip(midpoint));

        let [timeconst, dampratio] = solref;
        let (b, k) = if timeconst < 0.0 {
            if !options.direct_solref {
                return Err(invalid(
                    object,
                    "timeconst",
                    timeconst,
                    "must be ≥ 0 (direct-mode solref is only available with direct_solref)",
                ));
            }
            if dampratio > 0.0 {
                return Err(invalid(
                    object,
                    "dampratio",
                    dampratio,
                    "must be ≤ 0 in direct mode (solref = (−stiffness, −damping))",
                ));
            }
            (-dampratio / dmax, -timeconst / (dmax * dmax))
        } else {
            let tc = if timeconst < MINVAL { options.default_timeconst() } else { timeconst };
            let tc = if options.refsafe { tc.max(options.min_timeconst()) } else { tc };
            if !(dampratio > 0.0) {
                return Err(invalid(object, "dampratio", dampratio, "must be > 0"));
            }
            (2.0 / (dmax * tc), 1.0 / (dmax * dmax * tc * tc * dampratio * dampratio))
        };
        Ok(Self { dmin, dmax, width, midpoint, power, b, k, curve: options.impedance_curve })
    }

    /// The impedance at violation `r` (for contacts `dist − margin`, see
    /// [`ConstraintOptions::include_contact_margin`]).
    pub fn impedance(&self, r: f64) -> f64 {
        impedance(self.curve, [self.dmin, self.dmax, self.width, self.midpoint, self.power], r)
    }

    /// `aref = −b v − k imp x`.
    #[inline]
    pub fn aref(&self, imp: f64, v: f64, x: f64) -> f64 {
        -self.b * v - self.k * imp * x
    }
}

/// The impedance of (already clipped) `solimp` at violation `r`, evaluated as `curve` says (see
/// [`ImpedanceCurve`]).
pub fn impedance(curve: ImpedanceCurve, solimp: SolImp, r: f64) -> f64 {
    let [dmin, dmax, width, mid, power] = solimp;
    // Integral powers (the default is 2) by repeated multiplication, others by `powf`.
    let pow = |x: f64, p: f64| {
        if p == p.trunc() && (0.0..=16.0).contains(&p) { x.powi(p as i32) } else { x.powf(p) }
    };
    let lower = |x: f64| pow(x, power) / pow(mid, power - 1.0);
    let upper = |x: f64| 1.0 - pow(1.0 - x, power) / pow(1.0 - mid, power - 1.0);
    match curve {
        ImpedanceCurve::StepAtZeroWidth => {
            if r == 0.0 {
                return dmin;
            }
            if width <= 0.0 {
                return dmax;
            }
            let x = r.abs() / width;
            if x > 1.0 {
                return dmax;
            }
            let y = if x < mid { lower(x) } else { upper(x) };
            (dmin + y * (dmax - dmin)).max(dmin).min(dmax)
        }
        ImpedanceCurve::FlatAtZeroWidth => {
            if dmin == dmax || width <= MINVAL {
                return 0.5 * (dmin + dmax);
            }
            let x = r.abs() / width;
            if x >= 1.0 {
                return dmax;
            }
            if x <= 0.0 {
                return dmin;
            }
            let y = if power == 1.0 {
                x
            } else if x <= mid {
                lower(x)
            } else {
                upper(x)
            };
            dmin + y * (dmax - dmin)
        }
    }
}

/// `R = max(invweight (1 − imp) / imp, MINVAL)`.
#[inline]
pub fn regularizer(invweight: f64, imp: f64) -> f64 {
    (invweight * (1.0 - imp) / imp).max(MINVAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CURVES: [ImpedanceCurve; 2] = [ImpedanceCurve::StepAtZeroWidth, ImpedanceCurve::FlatAtZeroWidth];

    /// The closed form of spec §B.1, written out independently.
    fn reference(solimp: SolImp, r: f64) -> f64 {
        let [dmin, dmax, width, mid, p] = solimp;
        let x = r.abs() / width;
        if x >= 1.0 {
            return dmax;
        }
        let y = if x < mid {
            mid * (x / mid).powf(p)
        } else {
            1.0 - (1.0 - mid) * ((1.0 - x) / (1.0 - mid)).powf(p)
        };
        dmin + y * (dmax - dmin)
    }

    #[test]
    fn impedance_matches_the_closed_form_on_both_curves() {
        for solimp in [[0.9, 0.95, 0.001, 0.5, 2.0], [0.5, 0.99, 0.02, 0.3, 3.0], [0.2, 0.8, 0.1, 0.7, 1.5]] {
            let width = solimp[2];
            for f in [0.0, 0.1, 0.25, 0.3, 0.5, 0.65, 0.7, 0.9, 0.999, 1.0, 1.5, 4.0] {
                for r in [f * width, -f * width] {
                    let expected = reference(solimp, r);
                    for curve in CURVES {
                        let imp = impedance(curve, solimp, r);
                        assert!(
                            (imp - expected).abs() < 1e-14,
                            "{solimp:?} r={r} {curve:?}: {imp} vs {expected}"
                        );
                    }
                }
            }
        }
        // power 1: linear.
        let lin = [0.3, 0.9, 0.01, 0.4, 1.0];
        for curve in CURVES {
            assert!((impedance(curve, lin, 0.005) - 0.6).abs() < 1e-14);
        }
    }

    /// The curve alone decides the zero-width case: a step (`dmin` at 0, `dmax` elsewhere) or the flat average.
    #[test]
    fn impedance_curve_decides_the_zero_width_case() {
        use ImpedanceCurve::{FlatAtZeroWidth as Flat, StepAtZeroWidth as Step};
        let zero_width = [0.9, 0.95, 0.0, 0.5, 2.0];
        assert_eq!(impedance(Flat, zero_width, 0.01), 0.925);
        assert_eq!(impedance(Flat, zero_width, 0.0), 0.925);
        assert_eq!(impedance(Step, zero_width, 0.01), 0.95);
        assert_eq!(impedance(Step, zero_width, 0.0), 0.9);
        let flat = [0.9, 0.9, 0.01, 0.5, 2.0];
        assert_eq!(impedance(Flat, flat, 0.003), 0.9);
        assert_eq!(impedance(Step, flat, 0.003), 0.9);
        // Through the options: the same resolution, only the curve differs.
        let name = || "test".to_owned();
        let step = ConstraintOptions::default();
        let flat = ConstraintOptions { impedance_curve: Flat, ..step };
        let s = ResolvedSol::resolve(&step, &name, [0.02, 1.0], zero_width).expect("valid");
        let f = ResolvedSol::resolve(&flat, &name, [0.02, 1.0], zero_width).expect("valid");
        assert_eq!((s.b, s.k), (f.b, f.k));
        assert_eq!((s.impedance(0.01), f.impedance(0.01)), (0.95, 0.925));
    }

    #[test]
    fn gains_floor_default_and_direct_mode() {
        let o = ConstraintOptions { timestep: 0.002, ..ConstraintOptions::default() };
        let name = || "test".to_owned();
        let s = ResolvedSol::resolve(&o, &name, [0.02, 0.7], [0.9, 0.95, 0.001, 0.5, 2.0]).expect("valid");
        assert!((s.b - 2.0 / (0.95 * 0.02)).abs() < 1e-12);
        assert!((s.k - 1.0 / (0.95f64.powi(2) * 0.02f64.powi(2) * 0.49)).abs() < 1e-9);
        // timeconst 0 → constraint_timeconst (0.01); 0.001 → floor 2h = 0.004.
        for (tc, expected) in [(0.0, 0.01), (0.001, 0.004)] {
            let s = ResolvedSol::resolve(&o, &name, [tc, 1.0], [0.9, 0.95, 0.001, 0.5, 2.0]).expect("valid");
            assert!((s.b - 2.0 / (0.95 * expected)).abs() < 1e-9, "tc={tc}");
        }
        // Direct mode: rejected by default, accepted with `direct_solref` alone.
        let direct = ([-1000.0, -20.0], [0.9, 0.95, 0.001, 0.5, 2.0]);
        let err = ResolvedSol::resolve(&o, &name, direct.0, direct.1).expect_err("rejected");
        assert!(matches!(err, ConstraintError::InvalidSolParams { parameter: "timeconst", .. }), "{err}");
        let m = ConstraintOptions { direct_solref: true, ..o };
        let s = ResolvedSol::resolve(&m, &name, direct.0, direct.1).expect("direct");
        assert!((s.k - 1000.0 / 0.9025).abs() < 1e-9 && (s.b - 20.0 / 0.95).abs() < 1e-12);
        assert_eq!(s.aref(0.9, 0.5, -0.01), -s.b * 0.5 + s.k * 0.9 * 0.01);
        // Clipping (MuJoCo mjMINIMP/mjMAXIMP).
        let s = ResolvedSol::resolve(&o, &name, [0.02, 1.0], [0.0, 1.0, 0.001, 1.0, 2.0]).expect("valid");
        assert_eq!((s.dmin, s.dmax, s.midpoint), (IMP_MIN, IMP_MAX, IMP_MAX));
    }

    #[test]
    fn regularizer_is_positive() {
        assert!((regularizer(2.0, 0.9) - 2.0 / 9.0).abs() < 1e-15);
        assert_eq!(regularizer(0.0, 0.9), MINVAL);
    }
}
