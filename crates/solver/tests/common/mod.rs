//! Shared test helpers: small models with a real mass matrix, rows built by hand, a seeded random generator and a
//! brute-force reference minimiser (enumeration of the row states).
#![allow(dead_code)]

use glam::{DQuat, DVec3};
use signorini_constraints::{ConstraintRows, RowKind};
use signorini_model::{BodySpec, Data, InertialSpec, JointSpec, Model, ModelSpec};
use signorini_solver::dense::{cholesky_in_place, cholesky_solve};
use signorini_solver::{SolveStats, SolverData, SolverKind, SolverOptions, solver_for, total_cost};

fn inertial(mass: f64, pos: DVec3) -> InertialSpec {
    InertialSpec { mass, inertia: DVec3::new(0.1, 0.2, 0.15) * mass, pos, quat: DQuat::from_rotation_x(0.4) }
}

/// One body of `mass` on a slide along `z` (nv = 1), forward dynamics run: `qacc_smooth = −9.81`.
pub fn slide(mass: f64) -> (Model, Data) {
    let mut spec = ModelSpec::default();
    let mut b = BodySpec::new("b", 0, DVec3::ZERO, DQuat::IDENTITY);
    b.inertial = inertial(mass, DVec3::ZERO);
    b.joints.push(JointSpec::slide("s", DVec3::Z));
    spec.add_body(b);
    finish(spec, &[])
}

/// A slide → hinge → hinge chain (nv = 3) and a free body (nv = 6): nv = 9, with velocities and applied forces.
pub fn mixed(rng: &mut Rng) -> (Model, Data) {
    let mut spec = ModelSpec::default();
    let mut b1 = BodySpec::new("b1", 0, DVec3::new(0.0, 0.0, 1.0), DQuat::IDENTITY);
    b1.inertial = inertial(1.5, DVec3::new(0.1, 0.0, 0.0));
    b1.joints.push(JointSpec::slide("s", DVec3::new(0.2, 0.0, 1.0)));
    let i1 = spec.add_body(b1);
    let mut b2 = BodySpec::new("b2", i1, DVec3::new(0.4, 0.0, 0.0), DQuat::IDENTITY);
    b2.inertial = inertial(0.8, DVec3::new(0.2, 0.1, 0.0));
    b2.joints.push(JointSpec::hinge("h1", DVec3::Y));
    let i2 = spec.add_body(b2);
    let mut b3 = BodySpec::new("b3", i2, DVec3::new(0.3, 0.0, 0.1), DQuat::from_rotation_z(0.3));
    b3.inertial = inertial(0.5, DVec3::new(0.1, 0.0, 0.05));
    b3.joints.push(JointSpec::hinge("h2", DVec3::X));
    spec.add_body(b3);
    let mut f = BodySpec::new("free", 0, DVec3::new(1.0, 0.0, 0.5), DQuat::IDENTITY);
    f.inertial = inertial(2.0, DVec3::ZERO);
    f.joints.push(JointSpec::free("f"));
    spec.add_body(f);
    let applied: Vec<f64> = (0..9).map(|_| rng.range(-5.0, 5.0)).collect();
    let (model, mut data) = finish(spec, &applied);
    for v in data.qvel.iter_mut() {
        *v = rng.range(-1.0, 1.0);
    }
    model.forward(&mut data).expect("forward");
    (model, data)
}

/// `n` free bodies (`nv = 6n`, one kinematic tree each) with random velocities and applied forces.
pub fn free_bodies(n: usize, rng: &mut Rng) -> (Model, Data) {
    let mut spec = ModelSpec::default();
    for i in 0..n {
        let mut b = BodySpec::new(format!("b{i}"), 0, DVec3::new(i as f64, 0.0, 0.5), DQuat::IDENTITY);
        b.inertial = inertial(rng.range(0.5, 3.0), DVec3::ZERO);
        b.joints.push(JointSpec::free(format!("f{i}")));
        spec.add_body(b);
    }
    let applied: Vec<f64> = (0..6 * n).map(|_| rng.range(-5.0, 5.0)).collect();
    let (model, mut data) = finish(spec, &applied);
    for v in data.qvel.iter_mut() {
        *v = rng.range(-1.0, 1.0);
    }
    model.forward(&mut data).expect("forward");
    (model, data)
}

fn finish(spec: ModelSpec, applied: &[f64]) -> (Model, Data) {
    let model = Model::compile(spec).expect("compiles");
    let mut data = Data::new(&model);
    for (a, v) in data.qfrc_applied.iter_mut().zip(applied) {
        *a = *v;
    }
    model.forward(&mut data).expect("forward");
    (model, data)
}

/// Appends a row of `kind` with Jacobian entries `jac` (dof, value).
pub fn push_row(rows: &mut ConstraintRows, kind: RowKind, jac: &[(usize, f64)], aref: f64, d: f64, fl: f64) {
    if rows.jac_start.is_empty() {
        rows.jac_start.push(0);
    }
    rows.kind.push(kind);
    rows.id.push(rows.kind.len() - 1);
    for &(k, v) in jac {
        rows.jac_dof.push(k as signorini_constraints::DofIndex);
        rows.jac_val.push(v);
    }
    rows.jac_start.push(rows.jac_dof.len());
    rows.pos.push(0.0);
    rows.margin.push(0.0);
    rows.imp.push(0.9);
    rows.vel.push(0.0);
    rows.aref.push(aref);
    rows.r.push(1.0 / d);
    rows.d.push(d);
    rows.frictionloss.push(fl);
    rows.cone.push(None);
    rows.mu.push(0.0);
}

/// Runs `kind` from the `qacc_smooth` start.
pub fn solve(
    kind: SolverKind,
    model: &Model,
    data: &Data,
    rows: &ConstraintRows,
    options: SolverOptions,
) -> (Vec<f64>, Vec<f64>, SolveStats) {
    let solver = solver_for(kind);
    let (mut qacc, mut force) = (Vec::new(), Vec::new());
    let stats = solver
        .solve(
            model,
            data,
            rows,
            &SolverOptions { kind, ..options },
            &mut SolverData::new(),
            &mut qacc,
            &mut force,
        )
        .expect("solves");
    (qacc, force, stats)
}

/// Tight options for comparisons with the reference: no tolerance test, the iteration stops when the line search
/// cannot move or after the iteration budget.
pub fn tight() -> SolverOptions {
    SolverOptions { iterations: 500, tolerance: 0.0, ls_iterations: 100, ..SolverOptions::default() }
}

/// The exact minimiser by enumeration: every combination of row pieces (quadratic / zero / ±linear friction) gives
/// a quadratic whose stationary point is a candidate; the true minimiser is the candidate of least true cost.
pub fn brute_force(model: &Model, data: &Data, rows: &ConstraintRows) -> Vec<f64> {
    let nv = model.nv;
    let m = model.dense_qm(data);
    let pieces: Vec<&[u8]> = (0..rows.len())
        .map(|i| match rows.kind[i] {
            RowKind::FrictionLoss => &[0u8, 2, 3][..],
            k if k.is_equality() => &[0u8][..],
            _ => &[0u8, 1][..],
        })
        .collect();
    let total: usize = pieces.iter().map(|p| p.len()).product();
    let mut best = (f64::INFINITY, data.qacc_smooth.clone());
    for mut code in 0..total {
        let mut h = m.clone();
        let mut b = data.qfrc_smooth.clone();
        for (i, p) in pieces.iter().enumerate() {
            let piece = p[code % p.len()];
            code /= p.len();
            let (dofs, vals) = rows.jacobian_row(i);
            match piece {
                0 => {
                    let d = rows.d[i];
                    for (&p, &vp) in dofs.iter().zip(vals) {
                        b[p as usize] += d * vp * rows.aref[i];
                        for (&q, &vq) in dofs.iter().zip(vals) {
                            h[p as usize * nv + q as usize] += d * vp * vq;
                        }
                    }
                }
                1 => {}
                _ => {
                    let f = if piece == 2 { -rows.frictionloss[i] } else { rows.frictionloss[i] };
                    for (&p, &vp) in dofs.iter().zip(vals) {
                        b[p as usize] += f * vp;
                    }
                }
            }
        }
        let mut inv = vec![0.0; nv];
        cholesky_in_place(&mut h, nv, &mut inv);
        cholesky_solve(&h, &inv, nv, &mut b);
        let c = total_cost(model, data, rows, &b);
        if c < best.0 {
            best = (c, b);
        }
    }
    best.1
}

/// The row forces at `qacc` by their definition (§C.1).
pub fn forces_at(rows: &ConstraintRows, qacc: &[f64]) -> Vec<f64> {
    (0..rows.len())
        .map(|i| {
            let x = rows.row_dot(i, qacc) - rows.aref[i];
            let d = rows.d[i];
            match rows.kind[i] {
                RowKind::FrictionLoss => (-d * x).clamp(-rows.frictionloss[i], rows.frictionloss[i]),
                k if k.is_equality() => -d * x,
                _ => (-d * x).max(0.0),
            }
        })
        .collect()
}

/// A seeded xorshift generator.
#[derive(Debug)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_f64() * n as f64) as usize).min(n - 1)
    }
}

/// A random problem on [`mixed`]: `nrows` rows of random kinds over random dofs.
pub fn random_problem(seed: u64, nrows: usize) -> (Model, Data, ConstraintRows) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let (model, data) = mixed(&mut rng);
    let mut rows = ConstraintRows::new();
    let kinds =
        [RowKind::EqualityJoint, RowKind::FrictionLoss, RowKind::LimitJoint, RowKind::ContactPyramidal];
    for _ in 0..nrows {
        let kind = kinds[rng.below(kinds.len())];
        let mut jac = Vec::new();
        for k in (0..model.nv).rev() {
            if rng.next_f64() < 0.6 {
                jac.push((k, rng.range(-1.5, 1.5)));
            }
        }
        if jac.is_empty() {
            jac.push((rng.below(model.nv), 1.0));
        }
        let d = 10f64.powf(rng.range(-1.0, 2.0));
        let fl = if kind == RowKind::FrictionLoss { rng.range(0.1, 3.0) } else { 0.0 };
        push_row(&mut rows, kind, &jac, rng.range(-10.0, 10.0), d, fl);
    }
    (model, data, rows)
}

/// One row of a hand-built elliptic contact: `(Jacobian entries, aref, D, μ_j)`.
pub type ConeRow<'a> = (&'a [(usize, f64)], f64, f64, f64);

/// Appends an elliptic contact with cone coefficient `mu` whose rows (normal first) are `block`.
pub fn push_cone(rows: &mut ConstraintRows, mu: f64, block: &[ConeRow<'_>]) {
    let c = rows.contact_row_start.len();
    let start = rows.len();
    for (j, &(jac, aref, d, mu_j)) in block.iter().enumerate() {
        push_row(rows, RowKind::ContactElliptic, jac, aref, d, 0.0);
        rows.cone[start + j] = Some(c);
        rows.mu[start + j] = mu_j;
    }
    rows.contact_row_start.push(start);
    rows.contact_nrows.push(block.len());
    rows.contact_dim.push(block.len());
    rows.contact_mu.push(mu);
}

/// Appends an elliptic contact of `dim` rows (normal first) with random Jacobian rows over the dofs, cone
/// coefficient `mu` and per-row coefficients `mus` (`dim − 1` entries), `D` consistent with the cone.
pub fn push_elliptic(
    rows: &mut ConstraintRows,
    rng: &mut Rng,
    nv: usize,
    mu: f64,
    mus: &[f64],
    aref: &[f64],
) {
    // D_j = D_0 μ_j² / μ², as the assembler builds them (§B.9): the cost is then continuous across the zones.
    let d0 = rng.range(5.0, 50.0);
    let jacs: Vec<Vec<(usize, f64)>> =
        aref.iter().map(|_| (0..nv).rev().map(|k| (k, rng.range(-1.0, 1.0))).collect()).collect();
    let block: Vec<_> = (0..aref.len())
        .map(|j| {
            let mu_j = if j == 0 { mu } else { mus[j - 1] };
            (&jacs[j][..], aref[j], if j == 0 { d0 } else { d0 * mu_j * mu_j / (mu * mu) }, mu_j)
        })
        .collect();
    push_cone(rows, mu, &block);
}

/// A random problem on [`mixed`] with `ncon` elliptic contacts (dims 3, 4, 6) and a few other rows.
pub fn random_elliptic_problem(seed: u64, ncon: usize) -> (Model, Data, ConstraintRows) {
    let (model, data, mut rows) = random_problem(seed, 2);
    let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    for k in 0..ncon {
        let dim = [3, 4, 6][k % 3];
        let mu = rng.range(0.2, 1.2);
        let mus: Vec<f64> = (1..dim).map(|j| if j <= 2 { mu } else { rng.range(0.01, 0.5) }).collect();
        let aref: Vec<f64> =
            (0..dim).map(|j| if j == 0 { rng.range(-5.0, 20.0) } else { rng.range(-20.0, 20.0) }).collect();
        push_elliptic(&mut rows, &mut rng, model.nv, mu, &mus, &aref);
    }
    (model, data, rows)
}

/// The central-difference gradient of [`total_cost`] at `a`.
pub fn fd_gradient(model: &Model, data: &Data, rows: &ConstraintRows, a: &[f64], h: f64) -> Vec<f64> {
    (0..a.len())
        .map(|k| {
            let (mut p, mut m) = (a.to_vec(), a.to_vec());
            p[k] += h;
            m[k] -= h;
            (total_cost(model, data, rows, &p) - total_cost(model, data, rows, &m)) / (2.0 * h)
        })
        .collect()
}

/// `g = M a − f_s − Jᵀλ`.
pub fn gradient(model: &Model, data: &Data, rows: &ConstraintRows, a: &[f64], force: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; model.nv];
    model.mul_m(data, a, &mut g);
    for (gk, f) in g.iter_mut().zip(&data.qfrc_smooth) {
        *gk -= f;
    }
    let neg: Vec<f64> = force.iter().map(|f| -f).collect();
    rows.add_transpose(&neg, &mut g);
    g
}
