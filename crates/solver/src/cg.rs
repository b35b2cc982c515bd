//! The nonlinear conjugate-gradient direction (`reference-semantics.md` §C.3; MuJoCo `mj_solCG`), preconditioned
//! by `M⁻¹`: after a step, with the gradient `g`, the preconditioned gradient `M⁻¹g` and their values before the
//! step, the new direction is
//!
//! `s ← −M⁻¹g + β s`
//!
//! with `β` of Polak–Ribière+ or Hager–Zhang ([`CgUpdate`]), restarted from `s = −M⁻¹g` when it is not a descent
//! direction (`sᵀg ≥ 0`). The preconditioning itself is [`crate::mass::TreeMass::solve`]; the iteration that calls
//! this is [`crate::primal`].

use crate::CgUpdate;
use crate::primal::EPS;
use crate::reduce::dot;

/// Replaces the search direction `s` by the next conjugate direction from the gradient `g`, `mgrad = M⁻¹g` and
/// their previous values `g_prev`, `mgrad_prev` (all of one length, `nv`).
pub(crate) fn next_direction(
    update: CgUpdate,
    g: &[f64],
    mgrad: &[f64],
    g_prev: &[f64],
    mgrad_prev: &[f64],
    s: &mut [f64],
) {
    let nv = s.len();
    let beta = match update {
        CgUpdate::PolakRibierePlus => {
            // β = max(0, gᵀ(M⁻¹g − M⁻¹g_prev) / g_prevᵀM⁻¹g_prev).
            let num: f64 = g.iter().zip(mgrad.iter().zip(mgrad_prev)).map(|(g, (m, mp))| g * (m - mp)).sum();
            let den = dot(g_prev, mgrad_prev).max(EPS);
            (num / den).max(0.0)
        }
        CgUpdate::HagerZhang => {
            // y = g − g_prev, My = M⁻¹g − M⁻¹g_prev, d = s:
            // β = max(η, (yᵀM⁻¹g − 2 (yᵀMy / dᵀy) dᵀg) / dᵀy), η = −1 / max(ε, ‖d‖ min(0.01, ‖g‖));
            // β = 0 when dᵀy < ε.
            let (mut dy, mut ymg, mut ymy, mut dg, mut dd, mut gg) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            let (g, mg) = (&g[..nv], &mgrad[..nv]);
            let (gp, mgp, s) = (&g_prev[..nv], &mgrad_prev[..nv], &s[..nv]);
            for k in 0..nv {
                let y = g[k] - gp[k];
                let my = mg[k] - mgp[k];
                let d = s[k];
                dy += d * y;
                ymg += y * mg[k];
                ymy += y * my;
                dg += d * g[k];
                dd += d * d;
                gg += g[k] * g[k];
            }
            if dy < EPS {
                0.0
            } else {
                let hz = (ymg - 2.0 * (ymy / dy) * dg) / dy;
                let eta = -1.0 / (dd.sqrt() * gg.sqrt().min(0.01)).max(EPS);
                hz.max(eta)
            }
        }
    };
    for (s, m) in s.iter_mut().zip(mgrad) {
        *s = -m + beta * *s;
    }
    // Not a descent direction (possible with an inexact line search): restart from −M⁻¹g.
    if dot(s, g) >= 0.0 {
        for (s, m) in s.iter_mut().zip(mgrad) {
            *s = -m;
        }
    }
}
