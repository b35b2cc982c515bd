//! MuJoCo's dual problem in its own arithmetic, for its dual solvers (PGS and the no-slip pass): the rows in
//! MuJoCo's order (equalities, friction loss, limits, contacts), `Y = J M^{-1/2}` (`mj_makeY` by `mj_solveM2`: `Lᵀ`
//! backward, then each dof scaled by `1/√D`), the dense `AR = Y Yᵀ + diag(R)` (`mj_makeAR` by `mju_sqrMatTD`: entry
//! `(i, k)` summed over the dofs in order) and `b = J a_s − aref` (`mj_mulJacVec`). `AR` is stored dense; on a model
//! MuJoCo keeps sparse its products run over each row's structural non-zeros.

use signorini_constraints::mujoco_dot::{MUJOCO_SPARSE_NV, mujoco_jac_row_dot, mujoco_transpose_mul_by_rows};
use signorini_constraints::{ConstraintRows, RowKind};
use signorini_model::factor::{mujoco_dot, mujoco_sum_sparse};
use signorini_model::{Data, Model};

/// MuJoCo's row classes, in its row order.
pub(crate) fn class(kind: RowKind) -> u8 {
    match kind {
        k if k.is_equality() => 0,
        RowKind::FrictionLoss | RowKind::FrictionTendon => 1,
        RowKind::LimitJoint | RowKind::LimitTendon => 2,
        _ => 3,
    }
}

/// The dual problem of one solve (data, rewritten by [`DualProblem::build`]). Position `c` is row `perm[c]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct DualProblem {
    /// Row at each position (MuJoCo's order).
    pub perm: Vec<usize>,
    /// Position of each row.
    pub pos: Vec<usize>,
    /// `Y = J M^{-1/2}`, `n × nv` by position (MuJoCo `efc_Y`).
    y: Vec<f64>,
    /// `AR`, `n × n` by position (MuJoCo `efc_AR`).
    pub a: Vec<f64>,
    /// `b` by position (MuJoCo `efc_b`).
    pub b: Vec<f64>,
    /// On a model MuJoCo keeps sparse: the positions of each row's structural non-zeros of `AR` (rows whose `Y`
    /// share a dof: the dofs of `J` and their ancestors), increasing, at `nz[nz_start[c]..nz_start[c + 1]]`.
    nz_start: Vec<usize>,
    nz: Vec<usize>,
    /// The structure of `Y`: each position's dofs (those of `J` and their ancestors) at
    /// `y_dof[y_start[c]..y_start[c + 1]]`; each dof's positions at `dof_pos[dof_start[d]..dof_start[d + 1]]`; the
    /// last position that marked a column.
    y_start: Vec<usize>,
    y_dof: Vec<usize>,
    dof_start: Vec<usize>,
    dof_pos: Vec<usize>,
    mark: Vec<usize>,
}

impl DualProblem {
    /// Builds the order, `Y`, `AR` and `b` of `rows` at `data`'s factored `M` and `qacc_smooth`.
    pub(crate) fn build(&mut self, model: &Model, data: &Data, rows: &ConstraintRows) {
        let (n, nv) = (rows.len(), model.nv);
        self.perm.clear();
        self.perm.extend(0..n);
        self.perm.sort_by_key(|&i| (class(rows.kind[i]), i));
        self.pos.clear();
        self.pos.resize(n, 0);
        for (c, &i) in self.perm.iter().enumerate() {
            self.pos[i] = c;
        }
        let layout = model.tree_layout();
        self.y.clear();
        self.y.resize(n * nv, 0.0);
        for (c, &i) in self.perm.iter().enumerate() {
            let y = &mut self.y[c * nv..(c + 1) * nv];
            let (dofs, vals) = rows.jacobian_row(i);
            for (&d, &v) in dofs.iter().zip(vals) {
                y[d as usize] = v;
            }
            for k in (1..nv).rev() {
                let yk = y[k];
                if yk == 0.0 {
                    continue;
                }
                let entries = layout.madr[k] + 1..layout.madr[k] + layout.rownnz[k];
                for (&l, &j) in data.qld[entries.clone()].iter().zip(&layout.colind[entries]) {
                    y[j] -= l * yk;
                }
            }
            for (k, v) in y.iter_mut().enumerate() {
                *v *= 1.0 / data.qld[layout.madr[k]].sqrt();
            }
        }
        self.a.clear();
        self.a.resize(n * n, 0.0);
        for i in 0..n {
            for j in 0..nv {
                let t = self.y[i * nv + j];
                if t != 0.0 {
                    for k in 0..=i {
                        self.a[i * n + k] += self.y[k * nv + j] * t;
                    }
                }
            }
        }
        for i in 0..n {
            for k in i + 1..n {
                self.a[i * n + k] = self.a[k * n + i];
            }
        }
        self.nz_start.clear();
        self.nz.clear();
        if nv >= MUJOCO_SPARSE_NV {
            self.sparse_structure(model, rows);
        }
        self.b.clear();
        for (c, &i) in self.perm.iter().enumerate() {
            self.a[c * n + c] += rows.r[i];
            let (dofs, vals) = rows.jacobian_row(i);
            self.b.push(mujoco_jac_row_dot(nv, dofs, vals, &data.qacc_smooth) - rows.aref[i]);
        }
    }

    /// The structural non-zeros of every row of `AR` (MuJoCo's sparse `AR`): positions whose `Y` share a dof.
    fn sparse_structure(&mut self, model: &Model, rows: &ConstraintRows) {
        let (n, nv) = (rows.len(), model.nv);
        self.mark.clear();
        self.mark.resize(nv.max(n), usize::MAX);
        self.y_start.clear();
        self.y_dof.clear();
        self.dof_start.clear();
        self.dof_start.resize(nv + 1, 0);
        for (c, &i) in self.perm.iter().enumerate() {
            self.y_start.push(self.y_dof.len());
            for &d in rows.jacobian_row(i).0 {
                for dof in model.dof_chain_from(d as usize) {
                    if self.mark[dof] == c {
                        break;
                    }
                    self.mark[dof] = c;
                    self.y_dof.push(dof);
                    self.dof_start[dof + 1] += 1;
                }
            }
        }
        self.y_start.push(self.y_dof.len());
        for d in 0..nv {
            self.dof_start[d + 1] += self.dof_start[d];
        }
        self.dof_pos.clear();
        self.dof_pos.resize(self.y_dof.len(), 0);
        // Each dof's cursor, in `mark` (free again until the non-zeros below).
        self.mark[..nv].copy_from_slice(&self.dof_start[..nv]);
        for c in 0..n {
            for &dof in &self.y_dof[self.y_start[c]..self.y_start[c + 1]] {
                self.dof_pos[self.mark[dof]] = c;
                self.mark[dof] += 1;
            }
        }
        self.mark.fill(usize::MAX);
        self.nz_start.clear();
        self.nz.clear();
        for c in 0..n {
            let first = self.nz.len();
            self.nz_start.push(first);
            for &dof in &self.y_dof[self.y_start[c]..self.y_start[c + 1]] {
                for &k in &self.dof_pos[self.dof_start[dof]..self.dof_start[dof + 1]] {
                    if self.mark[k] != c {
                        self.mark[k] = c;
                        self.nz.push(k);
                    }
                }
            }
            self.nz[first..].sort_unstable();
        }
        self.nz_start.push(self.nz.len());
    }

    /// MuJoCo's `dualFinish`: `qacc = M⁻¹ (Jᵀ f) + a_s` for the row forces `force` (by row), `Jᵀ f` summed row by row
    /// in MuJoCo's order (`mj_mulJacTVec`'s `mju_mulMatTVec`/`mju_mulMatTVecSparse`); `scratch` is left zero (`nv`).
    pub(crate) fn finish(
        &self,
        model: &Model,
        data: &Data,
        rows: &ConstraintRows,
        force: &[f64],
        scratch: &mut Vec<f64>,
        qacc: &mut [f64],
    ) {
        scratch.clear();
        scratch.resize(model.nv, 0.0);
        mujoco_transpose_mul_by_rows(rows, force, self.perm.iter().copied(), scratch);
        model.solve_m(data, scratch);
        for ((q, x), a) in qacc.iter_mut().zip(scratch.iter()).zip(&data.qacc_smooth) {
            *q = x + a;
        }
        scratch.fill(0.0);
    }

    /// Row `c` of `AR`.
    #[inline]
    pub(crate) fn row(&self, c: usize) -> &[f64] {
        let n = self.b.len();
        &self.a[c * n..(c + 1) * n]
    }

    /// `AR_c · f`: `mju_dot` over the whole row, or on a sparse model `mju_dotSparse` over its structural non-zeros
    /// (MuJoCo's `mju_mulMatVec` and `mju_mulMatVecSparse`).
    #[inline]
    pub(crate) fn row_dot(&self, c: usize, f: &[f64]) -> f64 {
        if self.nz_start.is_empty() {
            return mujoco_dot(self.row(c), f);
        }
        let row = self.row(c);
        let cols = &self.nz[self.nz_start[c]..self.nz_start[c + 1]];
        mujoco_sum_sparse(cols.len(), |t| row[cols[t]] * f[cols[t]])
    }

    /// `b_c + AR_c · f` (MuJoCo's `residual`).
    #[inline]
    pub(crate) fn residual(&self, c: usize, f: &[f64]) -> f64 {
        self.b[c] + self.row_dot(c, f)
    }
}

/// `u·(A v)` of the `n × n` row-major `a` as MuJoCo's `mju_mulVecMatVec` sums it: `Σ_i u_i (A_i · v)`, each row by
/// `mju_dot`, the rows one at a time.
pub(crate) fn mul_vec_mat_vec(u: &[f64], a: &[f64], v: &[f64]) -> f64 {
    let n = u.len();
    let mut sum = 0.0;
    for (i, ui) in u.iter().enumerate() {
        sum += ui * mujoco_dot(&a[i * n..(i + 1) * n], v);
    }
    sum
}
