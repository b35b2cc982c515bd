//! The gyroscopic derivative of standalone free bodies in `implicitfast` (MuJoCo 4.0, `mjd_freeMhat`).
//!
//! `implicitfast` leaves the velocity derivative of the bias forces out of its symmetric matrix. For a *standalone*
//! free body (a free joint whose tree has no other dof and no massive descendant) MuJoCo puts it back: the body's six
//! rows are decoupled from the rest, so after the global solve its block is re-solved with
//! `A = M_b − h (∂f/∂q̇)_b + h ∂bias/∂q̇`, where `∂f/∂q̇` holds the damping and the unsymmetrised fluid derivative and
//! `∂bias/∂q̇` the derivative of the centripetal force and the gyroscopic torque with respect to the angular velocity:
//! with `R` the body rotation, `s = x_com − x_body`, `ω = R q̇_rot`, `I_w` the world inertia about the centre of mass
//! and `K = [ω × s]ₓ + [ω]ₓ[s]ₓ`, the force block is `−m K R` and the torque block `Rᵀ(−m [s]ₓ K + [ω]ₓ I_w − [I_w ω]ₓ) R`.
//! The block is solved by LU with partial pivoting (it is not symmetric).

use signorini_model::model::MINVAL;
use signorini_model::{Data, JointKind, Model};

/// Calls `f(body, dof_adr)` for every standalone free body.
pub(crate) fn for_each_standalone(model: &Model, data: &Data, mut f: impl FnMut(usize, usize)) {
    for j in 0..model.njnt {
        if model.jnt_type[j] == JointKind::Free && is_standalone(model, data, model.jnt_bodyid[j]) {
            f(model.jnt_bodyid[j], model.jnt_dofadr[j]);
        }
    }
}

/// Whether `body` is a standalone free body: its one joint is free, its tree has no other dof and no massive
/// descendant (MuJoCo `mj_isFreeBody`).
pub(crate) fn is_standalone(model: &Model, data: &Data, body: usize) -> bool {
    let j = model.body_jntadr[body];
    if model.body_jntnum[body] != 1 || model.jnt_type[j] != JointKind::Free {
        return false;
    }
    let adr = model.jnt_dofadr[j];
    let tree = model.dof_treeid[adr];
    let shared = (adr > 0 && model.dof_treeid[adr - 1] == tree)
        || (adr + 6 < model.nv && model.dof_treeid[adr + 6] == tree);
    !shared && data.body_subtreemass[body] == data.body_mass[body]
}

type Mat3 = [[f64; 3]; 3];

/// `a b`, each entry summed in column order (MuJoCo's `mji_mulMatMat3`).
fn mul(a: &Mat3, b: &Mat3) -> Mat3 {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j])
    })
}

fn rows(m: glam::DMat3) -> Mat3 {
    let r = m.transpose();
    [r.x_axis.to_array(), r.y_axis.to_array(), r.z_axis.to_array()]
}

/// `(K R, Rᵀ C R)`: the blocks of `∂bias/∂q̇_rot` before the force block's factor `−m` (see the module docs), in
/// MuJoCo 4.0.1's `mjd_freeBias_vel` arithmetic: `m` and `I_w` read from `cinert` (its source computes `I_w` from
/// `ximat` and the principal inertia; the library reads `cinert`, checked bit for bit on 300 random states), `C`'s
/// columns as cross products.
fn bias_blocks(data: &Data, body: usize, adr: usize) -> (Mat3, Mat3) {
    let mass = data.cinert[body].mass;
    let r = rows(data.xmat[body]);
    // The world inertia about the centre of mass, as `cinert` holds it (a standalone body's tree point is its centre
    // of mass).
    let iw = rows(data.cinert[body].rot);
    let s = (data.xipos[body] - data.xpos[body]).to_array();
    let q = [data.qvel[adr + 3], data.qvel[adr + 4], data.qvel[adr + 5]];
    let w: [f64; 3] = std::array::from_fn(|i| r[i][0] * q[0] + r[i][1] * q[1] + r[i][2] * q[2]);
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    };
    let ws = cross(w, s);
    let iww: [f64; 3] = std::array::from_fn(|i| iw[i][0] * w[0] + iw[i][1] * w[1] + iw[i][2] * w[2]);
    let w_dot_s = w[0] * s[0] + w[1] * s[1] + w[2] * s[2];
    let k: Mat3 = [
        [s[0] * w[0] - w_dot_s, s[0] * w[1] - ws[2], s[0] * w[2] + ws[1]],
        [s[1] * w[0] + ws[2], s[1] * w[1] - w_dot_s, s[1] * w[2] - ws[0]],
        [s[2] * w[0] - ws[1], s[2] * w[1] + ws[0], s[2] * w[2] - w_dot_s],
    ];
    let lin = mul(&k, &r);
    // C = −m [s]ₓ K + [ω]ₓ I_w − [I_w ω]ₓ, column by column.
    let mut c: Mat3 = [[0.0; 3]; 3];
    for j in 0..3 {
        let s_k = cross(s, [k[0][j], k[1][j], k[2][j]]);
        let w_iw = cross(w, [iw[0][j], iw[1][j], iw[2][j]]);
        let minus_iww_x = [[0.0, iww[2], -iww[1]], [-iww[2], 0.0, iww[0]], [iww[1], -iww[0], 0.0]];
        for i in 0..3 {
            c[i][j] = -mass * s_k[i] + w_iw[i] + minus_iww_x[i][j];
        }
    }
    let rt: Mat3 = std::array::from_fn(|i| std::array::from_fn(|j| r[j][i]));
    (lin, mul(&mul(&rt, &c), &r))
}

/// Re-solves the block of every standalone free body: `qacc[adr..adr+6] = A⁻¹ qfrc[adr..adr+6]` with
/// `A = M_b − h qDeriv_b + h ∂bias/∂q̇`, `qderiv` in the dof–dof layout (unsymmetrised), as MuJoCo's `implicitfast`
/// (`mjd_freeMhat`).
pub(crate) fn solve_blocks(
    model: &Model,
    data: &Data,
    h: f64,
    qderiv: &[f64],
    qfrc: &[f64],
    qacc: &mut [f64],
) {
    let layout = &model.derivative_layout;
    for_each_standalone(model, data, |body, adr| {
        let mut a = [[0.0; 6]; 6];
        // The block of M (its lower triangle, mirrored), then `−h qDeriv` over the block's rows.
        #[allow(clippy::needless_range_loop)] // `r` indexes rows and columns of `a`
        for r in 0..6 {
            let dof = adr + r;
            for k in model.dof_madr[dof]..model.dof_madr[dof + 1] {
                let c = model.dof_colind[k];
                if (adr..=dof).contains(&c) {
                    a[r][c - adr] = data.qm[k];
                    a[c - adr][r] = data.qm[k];
                }
            }
        }
        #[allow(clippy::needless_range_loop)] // `r` indexes rows of `a` and dofs
        for r in 0..6 {
            let row = layout.dof_adr[adr + r];
            for (e, &c) in layout.row(adr + r).iter().enumerate() {
                if (adr..adr + 6).contains(&c) {
                    a[r][c - adr] -= h * qderiv[row + e];
                }
            }
        }
        let (lin, rot) = bias_blocks(data, body, adr);
        let mass = data.cinert[body].mass;
        for r in 0..3 {
            for c in 0..3 {
                a[r][3 + c] += h * (-mass * lin[r][c]);
                a[3 + r][3 + c] += h * rot[r][c];
            }
        }
        let mut x: [f64; 6] = std::array::from_fn(|k| qfrc[adr + k]);
        if lu_solve(&mut a, &mut x) {
            qacc[adr..adr + 6].copy_from_slice(&x);
        }
    });
}

/// Solves `a x = b` in place by LU with partial pivoting (MuJoCo's `mju_factorLU6` and `mju_solveLU6`: the first
/// largest pivot, rows swapped whole, multipliers by the pivot's reciprocal, substitutions term by term); `false`
/// when a pivot is below `mjMINVAL`.
fn lu_solve(a: &mut [[f64; 6]; 6], b: &mut [f64; 6]) -> bool {
    let mut pivot = [0; 6];
    for k in 0..6 {
        let mut best = k;
        for i in k + 1..6 {
            if a[i][k].abs() > a[best][k].abs() {
                best = i;
            }
        }
        if a[best][k].abs() < MINVAL {
            return false;
        }
        pivot[k] = best;
        a.swap(k, best);
        let inverse = 1.0 / a[k][k];
        let pivot_row = a[k];
        for row in a[k + 1..].iter_mut() {
            row[k] *= inverse;
            let f = row[k];
            for (x, p) in row[k + 1..].iter_mut().zip(&pivot_row[k + 1..]) {
                *x -= f * p;
            }
        }
    }
    for i in 0..6 {
        b.swap(i, pivot[i]);
        for j in 0..i {
            b[i] -= a[i][j] * b[j];
        }
    }
    for i in (0..6).rev() {
        for j in i + 1..6 {
            b[i] -= a[i][j] * b[j];
        }
        b[i] /= a[i][i];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a known solution of a system that needs row swaps, and a singular one.
    #[test]
    fn lu_solve_pivots_and_refuses_singular_blocks() {
        let mut a: [[f64; 6]; 6] = std::array::from_fn(|i| {
            std::array::from_fn(|j| ((i * 7 + j * 3) % 11) as f64 * 0.1 + (i == j) as u8 as f64 * 1e-3)
        });
        a[0][0] = 0.0;
        let x: [f64; 6] = [1.0, -2.0, 0.5, 3.0, -0.25, 2.0];
        let mut b: [f64; 6] = std::array::from_fn(|i| (0..6).map(|j| a[i][j] * x[j]).sum());
        let original = a;
        assert!(lu_solve(&mut a, &mut b));
        for i in 0..6 {
            assert!((b[i] - x[i]).abs() < 1e-9, "x[{i}] = {} vs {}", b[i], x[i]);
        }
        let mut singular = original;
        singular[5] = singular[4];
        let mut rhs = [1.0; 6];
        assert!(!lu_solve(&mut singular, &mut rhs));
    }
}
