//! MuJoCo's muscle model: the active force–length–velocity curve (`gaintype="muscle"`), the passive force–length
//! curve (`biastype="muscle"`) and the activation dynamics (`dyntype="muscle"`).
//!
//! Lengths are normalised by the optimal length `L₀ = (l_max − l_min)/(r₁ − r₀)` that maps the actuator's
//! `lengthrange` `[l_min, l_max]` onto the operating range `[r₀, r₁]`: `L = r₀ + (l − l_min)/L₀`,
//! `V = l̇/(L₀·v_max)`. The peak force is `force`, or `scale/acc0` when `force < 0` (`acc0`: the acceleration a
//! unit actuator force causes at `qpos0`). Forces are negative: a muscle pulls, shortening its length.

use serde::{Deserialize, Serialize};

use crate::model::MINVAL;

/// The parameters of MuJoCo's muscle curves (its `gainprm`/`biasprm` for `gaintype`/`biastype` `muscle`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Muscle {
    /// Operating range `[r₀, r₁]` of the normalised length (MuJoCo default `[0.75, 1.05]`).
    pub range: [f64; 2],
    /// Peak active force (N); negative: `scale/acc0`.
    pub force: f64,
    /// Peak force per unit of `1/acc0` when `force < 0` (default 200).
    pub scale: f64,
    /// Normalised length below which the active force is zero (default 0.5).
    pub lmin: f64,
    /// Normalised length above which the active force is zero (default 1.6).
    pub lmax: f64,
    /// Shortening velocity, in optimal lengths per second, at which the active force vanishes (default 1.5).
    pub vmax: f64,
    /// Passive force at `L = lmax`, relative to the peak force (default 1.3).
    pub fpmax: f64,
    /// Active force at saturating lengthening velocity, relative to the peak force (default 1.2).
    pub fvmax: f64,
}

impl Default for Muscle {
    fn default() -> Self {
        Muscle {
            range: [0.75, 1.05],
            force: -1.0,
            scale: 200.0,
            lmin: 0.5,
            lmax: 1.6,
            vmax: 1.5,
            fpmax: 1.3,
            fvmax: 1.2,
        }
    }
}

impl Muscle {
    /// Reads MuJoCo's parameter order `(range₀, range₁, force, scale, lmin, lmax, vmax, fpmax, fvmax)`.
    pub fn from_prm(prm: &[f64]) -> Muscle {
        Muscle {
            range: [prm[0], prm[1]],
            force: prm[2],
            scale: prm[3],
            lmin: prm[4],
            lmax: prm[5],
            vmax: prm[6],
            fpmax: prm[7],
            fvmax: prm[8],
        }
    }

    /// The peak force: `force`, or `scale/acc0` when `force < 0`.
    fn peak(&self, acc0: f64) -> f64 {
        if self.force < 0.0 { self.scale / acc0.max(MINVAL) } else { self.force }
    }

    /// The optimal length `L₀` and the normalised length `L` of actuator length `length`.
    fn normalise(&self, length: f64, lengthrange: [f64; 2]) -> (f64, f64) {
        let l0 = (lengthrange[1] - lengthrange[0]) / (self.range[1] - self.range[0]).max(MINVAL);
        (l0, self.range[0] + (length - lengthrange[0]) / l0.max(MINVAL))
    }

    /// The active gain (MuJoCo `mju_muscleGain`): `−F·FL(L)·FV(V)`, with `FL` the piecewise-quadratic bump that is 0
    /// outside `[lmin, lmax]` and 1 at `L = 1`, and `FV` rising from 0 at `V = −1` to 1 at `V = 0` and to `fvmax`
    /// at `V = fvmax − 1`. The force is this gain times the activation.
    pub fn gain(&self, length: f64, velocity: f64, lengthrange: [f64; 2], acc0: f64) -> f64 {
        let (l0, l) = self.normalise(length, lengthrange);
        let v = velocity / (l0 * self.vmax).max(MINVAL);
        let fl = force_length(l, self.lmin, self.lmax);
        let y = self.fvmax - 1.0;
        let fv = if v <= -1.0 {
            0.0
        } else if v <= 0.0 {
            (v + 1.0) * (v + 1.0)
        } else if v <= y {
            self.fvmax - (y - v) * (y - v) / y.max(MINVAL)
        } else {
            self.fvmax
        };
        -self.peak(acc0) * fl * fv
    }

    /// The passive force (MuJoCo `mju_muscleBias`): 0 up to `L = 1`, a half-quadratic up to `b = (1 + lmax)/2`,
    /// linear beyond, reaching `−F·fpmax/2` at `b`.
    pub fn bias(&self, length: f64, lengthrange: [f64; 2], acc0: f64) -> f64 {
        let (_, l) = self.normalise(length, lengthrange);
        let b = 0.5 * (1.0 + self.lmax);
        let f = self.peak(acc0) * self.fpmax;
        if l <= 1.0 {
            0.0
        } else if l <= b {
            let x = (l - 1.0) / (b - 1.0).max(MINVAL);
            -f * 0.5 * x * x
        } else {
            let x = (l - b) / (b - 1.0).max(MINVAL);
            -f * (0.5 + x)
        }
    }
}

/// MuJoCo's muscle force–length curve: two half-quadratics each side of the peak 1 at `L = 1`, joined at the
/// midpoints `a = (lmin + 1)/2` and `b = (1 + lmax)/2`, zero outside `[lmin, lmax]`.
fn force_length(l: f64, lmin: f64, lmax: f64) -> f64 {
    if l < lmin || l > lmax {
        return 0.0;
    }
    let a = 0.5 * (lmin + 1.0);
    let b = 0.5 * (1.0 + lmax);
    if l <= a {
        let x = (l - lmin) / (a - lmin).max(MINVAL);
        0.5 * x * x
    } else if l <= 1.0 {
        let x = (1.0 - l) / (1.0 - a).max(MINVAL);
        1.0 - 0.5 * x * x
    } else if l <= b {
        let x = (l - 1.0) / (b - 1.0).max(MINVAL);
        1.0 - 0.5 * x * x
    } else {
        let x = (lmax - l) / (lmax - b).max(MINVAL);
        0.5 * x * x
    }
}

/// The muscle's activation rate (MuJoCo `mju_muscleDynamics`): `(u − act)/τ` with `u = clamp(ctrl, 0, 1)`, the
/// time constant `τ_act·(0.5 + 1.5·a)` when activating and `τ_deact/(0.5 + 1.5·a)` when deactivating
/// (`a = clamp(act, 0, 1)`), blended by a quintic smoothstep over `u − act ∈ [−w/2, w/2]` when `tausmooth = w > 0`.
pub fn activation_rate(ctrl: f64, act: f64, tau_act: f64, tau_deact: f64, tausmooth: f64) -> f64 {
    let u = ctrl.clamp(0.0, 1.0);
    let a = act.clamp(0.0, 1.0);
    let tau_act = tau_act * (0.5 + 1.5 * a);
    let tau_deact = tau_deact / (0.5 + 1.5 * a);
    let du = u - act;
    let tau = if tausmooth < MINVAL {
        if du > 0.0 { tau_act } else { tau_deact }
    } else {
        tau_deact + (tau_act - tau_deact) * smoothstep(du / tausmooth + 0.5)
    };
    du / tau.max(MINVAL)
}

/// The quintic smoothstep `x³(6x² − 15x + 10)` on `[0, 1]`, 0 below and 1 above (MuJoCo `mju_sigmoid`).
fn smoothstep(x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else if x >= 1.0 {
        1.0
    } else {
        x * x * x * (3.0 * x * (2.0 * x - 5.0) + 10.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MuJoCo 4.0's `mju_muscleGain`, `mju_muscleBias` and `mju_muscleDynamics` on a grid of inputs
    /// (`scripts/muscle_curves_reference.py`).
    const REFERENCE: &str = include_str!("../tests/data/muscle_curves.json");

    #[test]
    fn curves_match_mujoco() {
        let cases: serde_json::Value = serde_json::from_str(REFERENCE).unwrap();
        let mut checked = 0;
        for c in cases["gain"].as_array().unwrap() {
            let m = Muscle::from_prm(&serde_json::from_value::<Vec<f64>>(c["prm"].clone()).unwrap());
            let lr: [f64; 2] = serde_json::from_value(c["lengthrange"].clone()).unwrap();
            let (len, vel, acc0) =
                (c["len"].as_f64().unwrap(), c["vel"].as_f64().unwrap(), c["acc0"].as_f64().unwrap());
            let want = c["gain"].as_f64().unwrap();
            assert!((m.gain(len, vel, lr, acc0) - want).abs() <= 1e-12 * want.abs().max(1.0), "{c}");
            let want = c["bias"].as_f64().unwrap();
            assert!((m.bias(len, lr, acc0) - want).abs() <= 1e-12 * want.abs().max(1.0), "{c}");
            checked += 1;
        }
        for c in cases["dynamics"].as_array().unwrap() {
            let prm: Vec<f64> = serde_json::from_value(c["prm"].clone()).unwrap();
            let got = activation_rate(
                c["ctrl"].as_f64().unwrap(),
                c["act"].as_f64().unwrap(),
                prm[0],
                prm[1],
                prm[2],
            );
            let want = c["act_dot"].as_f64().unwrap();
            assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "{c}: {got}");
            checked += 1;
        }
        assert!(checked > 500, "{checked}");
    }

    #[test]
    fn force_length_peaks_at_one_and_vanishes_outside() {
        assert_eq!(force_length(1.0, 0.5, 1.6), 1.0);
        assert_eq!(force_length(0.49, 0.5, 1.6), 0.0);
        assert_eq!(force_length(1.61, 0.5, 1.6), 0.0);
        // Continuous at the joins a = 0.75 and b = 1.3.
        for x in [0.75, 1.3] {
            assert!((force_length(x - 1e-9, 0.5, 1.6) - force_length(x + 1e-9, 0.5, 1.6)).abs() < 1e-8);
        }
    }
}
