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

use signorini_model::{Data, JointKind, Model};

/// Calls `f(body, dof_adr)` for every standalone free body.
pub(crate) fn for_each_standalone(model: &Model, data: &Data, mut f: impl FnMut(usize, usize)) {
    for j in 0..model.njnt {
        if model.jnt_type[j] != JointKind::Free {
            continue;
        }
        let b = model.jnt_bodyid[j];
        let adr = model.jnt_dofadr[j];
        let tree = model.dof_treeid[adr];
        let shared = (adr > 0 && model.dof_treeid[adr - 1] == tree)
            || (adr + 6 < model.nv && model.dof_treeid[adr + 6] == tree);
        if model.body_jntnum[b] != 1 || shared || data.body_subtreemass[b] != data.body_mass[b] {
            continue;
        }
        f(b, adr);
    }
}

type Mat3 = [[f64; 3]; 3];

fn mul(a: &Mat3, b: &Mat3) -> Mat3 {
    std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

fn rows(m: glam::DMat3) -> Mat3 {
    let r = m.transpose();
    [r.x_axis.to_array(), r.y_axis.to_array(), r.z_axis.to_array()]
}

/// `(−m K R, Rᵀ C R)`: the force and torque blocks of `∂bias/∂q̇_rot` (see the module docs).
fn bias_blocks(data: &Data, body: usize, adr: usize) -> (Mat3, Mat3) {
    let mass = data.body_mass[body];
    let r = rows(data.xmat[body]);
    let xi = rows(data.ximat[body]);
    let inertia = data.body_inertia[body].to_array();
    let s = (data.xipos[body] - data.xpos[body]).to_array();
    let q = [data.qvel[adr + 3], data.qvel[adr + 4], data.qvel[adr + 5]];
    let w: [f64; 3] = std::array::from_fn(|i| (0..3).map(|k| r[i][k] * q[k]).sum());
    let iw: Mat3 = std::array::from_fn(|i| {
        std::array::from_fn(|j| (0..3).map(|k| xi[i][k] * inertia[k] * xi[j][k]).sum())
    });
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    };
    let ws = cross(w, s);
    let iww: [f64; 3] = std::array::from_fn(|i| (0..3).map(|k| iw[i][k] * w[k]).sum());
    let w_dot_s = w[0] * s[0] + w[1] * s[1] + w[2] * s[2];
    let k: Mat3 = [
        [s[0] * w[0] - w_dot_s, s[0] * w[1] - ws[2], s[0] * w[2] + ws[1]],
        [s[1] * w[0] + ws[2], s[1] * w[1] - w_dot_s, s[1] * w[2] - ws[0]],
        [s[2] * w[0] - ws[1], s[2] * w[1] + ws[0], s[2] * w[2] - w_dot_s],
    ];
    let lin = mul(&k, &r);
    let skew = |v: [f64; 3]| -> Mat3 { [[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]] };
    let s_k = mul(&skew(s), &k);
    let w_iw = mul(&skew(w), &iw);
    let iww_x = skew(iww);
    let c: Mat3 =
        std::array::from_fn(|i| std::array::from_fn(|j| -mass * s_k[i][j] + w_iw[i][j] - iww_x[i][j]));
    let rt: Mat3 = std::array::from_fn(|i| std::array::from_fn(|j| r[j][i]));
    let rot = mul(&mul(&rt, &c), &r);
    (std::array::from_fn(|i| std::array::from_fn(|j| -mass * lin[i][j])), rot)
}

/// Re-solves the block of every standalone free body: `qacc[adr..adr+6] = A⁻¹ qfrc[adr..adr+6]` with `shift` the
/// diagonal already in `M + diag(shift)` (`h·damping`), as MuJoCo's `implicitfast`.
pub(crate) fn solve_blocks(
    model: &Model,
    data: &Data,
    h: f64,
    shift: &[f64],
    qfrc: &[f64],
    qacc: &mut [f64],
) {
    for_each_standalone(model, data, |body, adr| {
        let mut a = model.fluid_free_body_block(data, body, adr, h);
        // The block of M (its lower triangle, mirrored) and the diagonal shift.
        #[allow(clippy::needless_range_loop)] // `r` indexes rows and columns of `a`
        for r in 0..6 {
            let dof = adr + r;
            for k in model.dof_madr[dof]..model.dof_madr[dof + 1] {
                let c = model.dof_colind[k];
                if (adr..=dof).contains(&c) {
                    a[r][c - adr] += data.qm[k];
                    if c != dof {
                        a[c - adr][r] += data.qm[k];
                    }
                }
            }
            a[r][r] += shift[dof];
        }
        let (force, torque) = bias_blocks(data, body, adr);
        for r in 0..3 {
            for c in 0..3 {
                a[r][3 + c] += h * force[r][c];
                a[3 + r][3 + c] += h * torque[r][c];
            }
        }
        let mut x: [f64; 6] = std::array::from_fn(|k| qfrc[adr + k]);
        if lu_solve(&mut a, &mut x) {
            qacc[adr..adr + 6].copy_from_slice(&x);
        }
    });
}

/// Solves `a x = b` in place by Gaussian elimination with partial pivoting; `false` if `a` is singular.
fn lu_solve(a: &mut [[f64; 6]; 6], b: &mut [f64; 6]) -> bool {
    for col in 0..6 {
        let pivot = (col..6).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap_or(col);
        if a[pivot][col] == 0.0 {
            return false;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let pivot_row = a[col];
        for row in col + 1..6 {
            let f = a[row][col] / pivot_row[col];
            for (x, p) in a[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    for row in (0..6).rev() {
        let s: f64 = (row + 1..6).map(|k| a[row][k] * b[k]).sum();
        b[row] = (b[row] - s) / a[row][row];
    }
    true
}
