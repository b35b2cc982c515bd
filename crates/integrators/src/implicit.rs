//! MuJoCo's `implicit` integrator: implicit in velocity with every velocity derivative of the smooth forces.
//!
//! `(M − h D) a = f_smooth + Jᵀλ` (or `M q̈`, [`ImplicitForces`]), then `q̇' = q̇ + h a` and the positions with `q̇'`, where
//! `D = ∂f_smooth/∂q̇` holds the dof damping, the actuators' velocity gains (joint, tendon, site and slider-crank, as
//! `slope·Jᵀ J`), the tendon dampers (`−b Jᵀ J`), the fluid forces (`Jᵀ B J`, unsymmetrised) and the negated
//! derivative of the bias forces ([`Model::bias_velocity_derivative`]: Coriolis, centrifugal and gyroscopic terms).
//! `D` is not symmetric: `M − h D` is solved by LU with partial pivoting, one dense block per group of kinematic trees
//! the derivatives couple (a tendon or an actuator through several trees joins them).

use signorini_model::{Data, Model, Transmission};

use crate::error::IntegratorError;
use crate::shifted::implicit_rhs;
use crate::{ImplicitForces, Integrator, IntegratorKind, IntegratorScratch, check_inputs, finish};

/// The `implicit` integrator (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Implicit {
    /// The right-hand side of the implicit update.
    pub forces: ImplicitForces,
}

/// The buffers of [`Implicit`] (sized on first use).
#[derive(Debug, Clone, Default)]
pub(crate) struct ImplicitScratch {
    /// `D`, then `M − h D` (`nv × nv`, row-major).
    a: Vec<f64>,
    rhs: Vec<f64>,
    row: Vec<f64>,
    /// The block (group of coupled trees) of every tree, and the dofs of every block.
    block_of_tree: Vec<usize>,
    dofs: Vec<usize>,
    lu: Vec<f64>,
    x: Vec<f64>,
    solution: Vec<f64>,
}

impl Integrator for Implicit {
    fn kind(&self) -> IntegratorKind {
        IntegratorKind::Implicit
    }

    fn reads_constraint_force(&self, _data: &Data) -> bool {
        self.forces == ImplicitForces::SolverForces
    }

    fn advance(
        &self,
        model: &Model,
        data: &mut Data,
        scratch: &mut IntegratorScratch,
        qacc: &[f64],
        h: f64,
    ) -> Result<(), IntegratorError> {
        check_inputs(model, qacc, h)?;
        let qfrc_constraint = &scratch.qfrc_constraint[..];
        let s = &mut scratch.implicit;
        let nv = model.nv;
        s.a.resize(nv * nv, 0.0);
        model.bias_velocity_derivative(data, &mut s.a);
        for x in s.a.iter_mut() {
            *x = -*x;
        }
        for dof in 0..nv {
            s.a[dof * nv + dof] -= data.dof_damping[dof];
        }
        model.fluid_velocity_derivative_dense(data, &mut s.a);
        // Tendon dampers and the actuators' velocity gains: rank-one terms `c·j jᵀ`.
        let t = &model.tendons;
        for k in 0..t.len() {
            if t.damping[k] != 0.0 {
                let row = &data.ten_j[k * nv..(k + 1) * nv];
                add_outer(&mut s.a, nv, row, -t.damping[k]);
            }
        }
        for u in 0..model.nu {
            let slope = crate::actuator_velocity_slope(model, data, u, true).unwrap_or(0.0);
            if slope == 0.0 {
                continue;
            }
            let gear = model.actuator_gear[u];
            s.row.clear();
            s.row.resize(nv, 0.0);
            match model.actuator_transmission[u] {
                Transmission::Joint(j) => s.row[model.jnt_dofadr[j]] = gear,
                Transmission::Tendon(k) => {
                    for (r, j) in s.row.iter_mut().zip(&data.ten_j[k * nv..(k + 1) * nv]) {
                        *r = gear * j;
                    }
                }
                Transmission::Site { .. } | Transmission::SliderCrank { .. } | Transmission::Body(_) => {
                    let r = model.actuator_momentadr[u].unwrap_or_default();
                    s.row.copy_from_slice(&data.actuator_moment[r * nv..(r + 1) * nv]);
                }
            }
            let row = std::mem::take(&mut s.row);
            add_outer(&mut s.a, nv, &row, slope);
            s.row = row;
        }
        // A = M − h D.
        for x in s.a.iter_mut() {
            *x *= -h;
        }
        for i in 0..nv {
            for k in model.dof_madr[i]..model.dof_madr[i + 1] {
                let j = model.dof_colind[k];
                s.a[i * nv + j] += data.qm[k];
                if j != i {
                    s.a[j * nv + i] += data.qm[k];
                }
            }
        }
        implicit_rhs(model, data, (qacc, self.forces, qfrc_constraint), &mut s.rhs);
        // Blocks: trees joined by any nonzero of A.
        let ntree = model.ntree;
        s.block_of_tree.clear();
        s.block_of_tree.extend(0..ntree);
        let find = |parent: &mut Vec<usize>, mut x: usize| {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        };
        for i in 0..nv {
            for j in 0..nv {
                if s.a[i * nv + j] != 0.0 {
                    let (a, b) = (
                        find(&mut s.block_of_tree, model.dof_treeid[i]),
                        find(&mut s.block_of_tree, model.dof_treeid[j]),
                    );
                    if a != b {
                        s.block_of_tree[a] = b;
                    }
                }
            }
        }
        s.solution.clear();
        s.solution.resize(nv, 0.0);
        for root in 0..ntree {
            if find(&mut s.block_of_tree, root) != root {
                continue;
            }
            s.dofs.clear();
            for dof in 0..nv {
                if find(&mut s.block_of_tree, model.dof_treeid[dof]) == root {
                    s.dofs.push(dof);
                }
            }
            let n = s.dofs.len();
            if n == 0 {
                continue;
            }
            s.lu.clear();
            for &i in &s.dofs {
                s.lu.extend(s.dofs.iter().map(|&j| s.a[i * nv + j]));
            }
            s.x.clear();
            s.x.extend(s.dofs.iter().map(|&i| s.rhs[i]));
            lu_solve(&mut s.lu, &mut s.x, n)
                .ok_or(IntegratorError::NotPositiveDefinite { dof: s.dofs[0], pivot: 0.0 })?;
            for (&dof, &x) in s.dofs.iter().zip(&s.x) {
                s.solution[dof] = x;
            }
        }
        finish(model, data, &s.solution, h);
        Ok(())
    }
}

/// `a += c·r rᵀ` (`nv × nv`, row-major), over the nonzeros of `r`.
fn add_outer(a: &mut [f64], nv: usize, r: &[f64], c: f64) {
    for (i, &ri) in r.iter().enumerate().filter(|(_, x)| **x != 0.0) {
        for (j, &rj) in r.iter().enumerate().filter(|(_, x)| **x != 0.0) {
            a[i * nv + j] += c * ri * rj;
        }
    }
}

/// Solves `a x = b` in place (`a` dense row-major `n × n`) by Gaussian elimination with partial pivoting.
fn lu_solve(a: &mut [f64], b: &mut [f64], n: usize) -> Option<()> {
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i * n + col].abs().total_cmp(&a[j * n + col].abs()))?;
        if a[pivot * n + col] == 0.0 || !a[pivot * n + col].is_finite() {
            return None;
        }
        if pivot != col {
            for k in 0..n {
                a.swap(col * n + k, pivot * n + k);
            }
            b.swap(col, pivot);
        }
        for row in col + 1..n {
            let f = a[row * n + col] / a[col * n + col];
            if f == 0.0 {
                continue;
            }
            for k in col..n {
                a[row * n + k] -= f * a[col * n + k];
            }
            b[row] -= f * b[col];
        }
    }
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row * n + k] * b[k]).sum();
        b[row] = (b[row] - s) / a[row * n + row];
    }
    Some(())
}
