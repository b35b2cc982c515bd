//! The velocity derivative of the bias forces, `∂qfrc_bias/∂q̇` (MuJoCo `mjd_rne_vel`), and the sparsity it and the
//! `implicit` integrator's matrix live in.
//!
//! Two layouts, compiled once ([`DerivativeLayout`]):
//! - *dof–dof* (MuJoCo's `D`): row `i` holds, in increasing order, the dofs on `i`'s chain to the world, `i` itself
//!   and every dof whose chain passes through `i`. `M` and `∂f/∂q̇` of any force on one kinematic chain live in it;
//!   it has no entries across trees (MuJoCo's `implicit` drops a tendon's coupling of two trees).
//! - *body–dof* (MuJoCo's `B`): row `b` holds the dofs of the chain from `b`'s parent to the world and of `b`'s
//!   subtree, in increasing order (the world's row holds every dof). A body's velocity, acceleration and force depend
//!   on exactly these velocities.
//!
//! The tangent pass, per column `q̇_k` of a body's row: `∂cvel_b = ∂cvel_parent + cdof_k [k ∈ b]`,
//! `∂cdof_dot_d = ∂cvel ×ₘ cdof_d` (the velocity before the joint of `d`), `∂cacc_b = ∂cacc_parent + cdof_dot_k [k ∈ b]
//! + Σ_d ∂cdof_dot_d q̇_d`, `∂cfrc_b = I_b ∂cacc_b + (v ×_f I_b ·)′ ∂cvel_b`, summed from the leaves, and row `j` of the
//! result is `cdof_jᵀ ∂cfrc_body(j)`. Every product and sum is MuJoCo 4.0.1's (`mju_mulMatMat` over 6×6 blocks that
//! skips zero factors, `mju_addToScl`, `mju_dot`'s lanes), so the result equals its `qDeriv` bit for bit.

use glam::DVec3;

use crate::data::Data;
use crate::model::Model;
use crate::spatial::SpatialVec;
use crate::spec::JointKind;

/// A spatial vector in MuJoCo's order `(ω, v)` (or `(τ, f)`).
type Vec6 = [f64; 6];
/// A 6×6 matrix, row-major.
type Mat6 = [[f64; 6]; 6];

/// The dof–dof and body–dof sparsity of the velocity derivatives (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct DerivativeLayout {
    /// Start of each dof's row in [`Self::dof_colind`] (`nv + 1` entries; MuJoCo `D_rowadr`).
    pub dof_adr: Vec<usize>,
    /// Column of every entry (`nD`; MuJoCo `D_colind`).
    pub dof_colind: Vec<usize>,
    /// Position of the diagonal within each row (MuJoCo `D_diag`).
    pub dof_diag: Vec<usize>,
    /// Index into `M`'s layout ([`Model::dof_madr`], symmetric) of every entry (MuJoCo `mapM2D`).
    pub dof_m_index: Vec<usize>,
    /// Start of each body's row in [`Self::body_colind`] (`nbody + 1` entries; MuJoCo `B_rowadr`).
    pub body_adr: Vec<usize>,
    /// Column (dof) of every entry (`nB`; MuJoCo `B_colind`).
    pub body_colind: Vec<usize>,
}

impl DerivativeLayout {
    /// The layouts of `m` (after its dof tree and `M`'s layout are compiled).
    pub(crate) fn new(m: &Model) -> Self {
        let nv = m.nv;
        // Descendants of every dof, in increasing order (a dof's chain lists only smaller dofs).
        let mut descendants: Vec<Vec<usize>> = vec![Vec::new(); nv];
        for k in 0..nv {
            for a in m.dof_chain_from(k).skip(1) {
                descendants[a].push(k);
            }
        }
        let mut layout = DerivativeLayout::default();
        for (i, below) in descendants.iter().enumerate() {
            layout.dof_adr.push(layout.dof_colind.len());
            let chain = &m.dof_colind[m.dof_madr[i]..m.dof_madr[i + 1]];
            // `chain` runs from `i` down to the root: the row's diagonal sits after the ancestors.
            layout.dof_diag.push(chain.len() - 1);
            for (k, &c) in chain.iter().enumerate().rev() {
                layout.dof_colind.push(c);
                layout.dof_m_index.push(m.dof_madr[i] + k);
            }
            for &c in below {
                layout.dof_colind.push(c);
                let pos = m.dof_colind[m.dof_madr[c]..m.dof_madr[c + 1]]
                    .iter()
                    .position(|&x| x == i)
                    .expect("a descendant's chain holds its ancestor");
                layout.dof_m_index.push(m.dof_madr[c] + pos);
            }
        }
        layout.dof_adr.push(layout.dof_colind.len());

        let mut subtree: Vec<Vec<usize>> = vec![Vec::new(); m.nbody];
        for k in 0..nv {
            let mut b = m.dof_bodyid[k];
            loop {
                subtree[b].push(k);
                if b == 0 {
                    break;
                }
                b = m.body_parent[b];
            }
        }
        for (b, own) in subtree.iter().enumerate() {
            layout.body_adr.push(layout.body_colind.len());
            if b > 0 {
                let ancestors = m.dof_chain_slice(m.body_parent[b]);
                layout.body_colind.extend(ancestors.iter().rev());
            }
            layout.body_colind.extend(own);
        }
        layout.body_adr.push(layout.body_colind.len());
        layout
    }

    /// Number of stored dof–dof entries (MuJoCo `nD`).
    pub fn nnz(&self) -> usize {
        self.dof_colind.len()
    }

    /// The columns of dof `i`'s row.
    #[inline]
    pub fn row(&self, i: usize) -> &[usize] {
        &self.dof_colind[self.dof_adr[i]..self.dof_adr[i + 1]]
    }
}

/// The buffers of [`Model::sub_bias_velocity_derivative`], sized on first use.
#[derive(Debug, Clone, Default)]
pub struct RneDerivativeScratch {
    /// `∂cdof_dot` per dof–dof entry.
    dcdof_dot: Vec<Vec6>,
    /// `∂cvel`, `∂cacc`, `∂cfrc` per body–dof entry.
    dcvel: Vec<Vec6>,
    dcacc: Vec<Vec6>,
    dcfrc: Vec<Vec6>,
    /// One body row of products.
    tmp: Vec<Vec6>,
}

impl Model {
    /// Subtracts `∂qfrc_bias/∂q̇` (Coriolis, centrifugal and gyroscopic terms) from `qderiv`, a matrix in the
    /// dof–dof layout of [`Model::derivative_layout`], at `d`'s state (after [`Model::bias`]): MuJoCo 4.0.1's
    /// `mjd_rne_vel` in its arithmetic (module docs). Allocates only when `scratch` first meets this model.
    #[allow(clippy::needless_range_loop)] // dof indices address several arrays at once
    pub fn sub_bias_velocity_derivative(
        &self,
        d: &Data,
        scratch: &mut RneDerivativeScratch,
        qderiv: &mut [f64],
    ) {
        let layout = &self.derivative_layout;
        let (dadr, badr) = (&layout.dof_adr, &layout.body_adr);
        let s = scratch;
        for (buf, n) in [
            (&mut s.dcdof_dot, layout.nnz()),
            (&mut s.dcvel, layout.body_colind.len()),
            (&mut s.dcacc, layout.body_colind.len()),
            (&mut s.dcfrc, layout.body_colind.len()),
        ] {
            buf.clear();
            buf.resize(n, [0.0; 6]);
        }
        // Number of dofs on the chain below dof `j` (its position in its body's row).
        let ancestors = |j: usize| self.dof_madr[j + 1] - self.dof_madr[j] - 1;

        // ∂cvel and ∂cdof_dot (MuJoCo `mjd_comVel_vel`).
        for b in 1..self.nbody {
            let row = badr[b]..badr[b + 1];
            self.copy_from_parent(&mut s.dcvel, b);
            let dofs = self.body_dofadr[b]..self.body_dofadr[b] + self.body_dofnum[b];
            let mut j = dofs.start;
            while j < dofs.end {
                let jadr = ancestors(j);
                let start = badr[b] + jadr;
                let rotations = match self.jnt_type[self.dof_jntid[j]] {
                    JointKind::Free => {
                        for k in 0..3 {
                            add_to(&mut s.dcvel[start + k], &vec6(d.cdof[j + k]));
                        }
                        Some((j + 3, jadr + 3))
                    }
                    JointKind::Ball => Some((j, jadr)),
                    JointKind::Hinge | JointKind::Slide => {
                        let mt = transpose(&cross_motion_vel(&vec6(d.cdof[j])));
                        let (dst, src) = (dadr[j]..dadr[j] + jadr, row.start..row.start + jadr);
                        mul_rows(&mut s.dcdof_dot[dst], &s.dcvel[src], &mt);
                        add_to(&mut s.dcvel[start], &vec6(d.cdof[j]));
                        j += 1;
                        None
                    }
                };
                if let Some((r, radr)) = rotations {
                    for dj in 0..3 {
                        let mt = transpose(&cross_motion_vel(&vec6(d.cdof[r + dj])));
                        let n = radr + dj;
                        let (dst, src) = (dadr[r + dj]..dadr[r + dj] + n, row.start..row.start + n);
                        mul_rows(&mut s.dcdof_dot[dst], &s.dcvel[src], &mt);
                    }
                    for dj in 0..3 {
                        add_to(&mut s.dcvel[badr[b] + radr + dj], &vec6(d.cdof[r + dj]));
                    }
                    j = r + 3;
                }
            }
        }

        // ∂cacc and the bodies' own ∂cfrc.
        for b in 1..self.nbody {
            let row = badr[b]..badr[b + 1];
            let bnnz = row.len();
            self.copy_from_parent(&mut s.dcacc, b);
            for j in self.body_dofadr[b]..self.body_dofadr[b] + self.body_dofnum[b] {
                add_to(&mut s.dcacc[row.start + ancestors(j)], &vec6(d.cdof_dot[j]));
                let qv = d.qvel[j];
                let src = &s.dcdof_dot[dadr[j]..dadr[j] + bnnz];
                for (acc, dd) in s.dcacc[row.clone()].iter_mut().zip(src) {
                    for c in 0..6 {
                        acc[c] += dd[c] * qv;
                    }
                }
            }
            let inertia = &d.cinert[b];
            let dmul = mul_inert_vec_vel(inertia);
            mul_rows(&mut s.dcfrc[row.clone()], &s.dcacc[row.clone()], &transpose(&dmul));
            let momentum = vec6(inertia.mul_motion(d.cvel[b]));
            let cvel = vec6(d.cvel[b]);
            let mut mat = cross_force_vel(&momentum);
            let mut mat2 = [[0.0; 6]; 6];
            mul_rows(&mut mat2, &cross_force_frc(&cvel), &dmul);
            for (r, r2) in mat.iter_mut().zip(&mat2) {
                add_to(r, r2);
            }
            s.tmp.clear();
            s.tmp.resize(bnnz, [0.0; 6]);
            mul_rows(&mut s.tmp, &s.dcvel[row.clone()], &transpose(&mat));
            for (f, t) in s.dcfrc[row].iter_mut().zip(&s.tmp) {
                add_to(f, t);
            }
        }

        // Subtree sums (MuJoCo `addToParent`: the child's columns are a subset of the parent's).
        for b in (1..self.nbody).rev() {
            let p = self.body_parent[b];
            if self.body_weldid[p] == 0 {
                continue;
            }
            let (mut i, mut ip) = (badr[b], badr[p]);
            while i < badr[b + 1] && ip < badr[p + 1] {
                let (c, cp) = (layout.body_colind[i], layout.body_colind[ip]);
                if c == cp {
                    let f = s.dcfrc[i];
                    add_to(&mut s.dcfrc[ip], &f);
                    i += 1;
                    ip += 1;
                } else {
                    ip += 1;
                }
            }
        }

        // qDeriv[j, ·] −= cdof_jᵀ ∂cfrc_body(j).
        for j in 0..self.nv {
            let b = self.dof_bodyid[j];
            let cdof = d.cdof[j];
            let rows = &s.dcfrc[badr[b]..badr[b + 1]];
            for (q, f) in qderiv[dadr[j]..dadr[j] + rows.len()].iter_mut().zip(rows) {
                *q -= cdof.dot(SpatialVec::new(DVec3::new(f[0], f[1], f[2]), DVec3::new(f[3], f[4], f[5])));
            }
        }
    }

    /// Copies the entries of the parent's row on the dofs below `b` (the start of both rows) into `b`'s row
    /// (MuJoCo `copyFromParent`); nothing when the parent is welded to the world.
    fn copy_from_parent(&self, mat: &mut [Vec6], b: usize) {
        let p = self.body_parent[b];
        if self.body_weldid[p] == 0 {
            return;
        }
        let n = self.dof_chain_slice(p).len();
        let (src, dst) = (self.derivative_layout.body_adr[p], self.derivative_layout.body_adr[b]);
        mat.copy_within(src..src + n, dst);
    }
}

#[inline]
fn vec6(v: SpatialVec) -> Vec6 {
    [v.ang.x, v.ang.y, v.ang.z, v.lin.x, v.lin.y, v.lin.z]
}

#[inline]
fn add_to(a: &mut Vec6, b: &Vec6) {
    for c in 0..6 {
        a[c] += b[c];
    }
}

#[inline]
fn transpose(m: &Mat6) -> Mat6 {
    std::array::from_fn(|r| std::array::from_fn(|c| m[c][r]))
}

/// `res[r] = rows[r] · mat` for every row, as `mju_mulMatMat` forms it: from zero, `mat[k] · rows[r][k]` added for
/// each non-zero `rows[r][k]` in order.
#[inline]
fn mul_rows(res: &mut [Vec6], rows: &[Vec6], mat: &Mat6) {
    for (out, row) in res.iter_mut().zip(rows) {
        let mut acc = [0.0; 6];
        for (k, &x) in row.iter().enumerate() {
            if x != 0.0 {
                for c in 0..6 {
                    acc[c] += mat[k][c] * x;
                }
            }
        }
        *out = acc;
    }
}

/// `∂(u ×ₘ v)/∂u` (MuJoCo `mjd_crossMotion_vel`).
fn cross_motion_vel(v: &Vec6) -> Mat6 {
    let mut d = [[0.0; 6]; 6];
    d[0][2] = -v[1];
    d[0][1] = v[2];
    d[1][2] = v[0];
    d[1][0] = -v[2];
    d[2][1] = -v[0];
    d[2][0] = v[1];
    d[3][2] = -v[4];
    d[3][1] = v[5];
    d[3][5] = -v[1];
    d[3][4] = v[2];
    d[4][2] = v[3];
    d[4][0] = -v[5];
    d[4][5] = v[0];
    d[4][3] = -v[2];
    d[5][1] = -v[3];
    d[5][0] = v[4];
    d[5][4] = -v[0];
    d[5][3] = v[1];
    d
}

/// `∂(u ×_f f)/∂u` (MuJoCo `mjd_crossForce_vel`).
fn cross_force_vel(f: &Vec6) -> Mat6 {
    let mut d = [[0.0; 6]; 6];
    d[0][2] = -f[1];
    d[0][1] = f[2];
    d[0][5] = -f[4];
    d[0][4] = f[5];
    d[1][2] = f[0];
    d[1][0] = -f[2];
    d[1][5] = f[3];
    d[1][3] = -f[5];
    d[2][1] = -f[0];
    d[2][0] = f[1];
    d[2][4] = -f[3];
    d[2][3] = f[4];
    d[3][2] = -f[4];
    d[3][1] = f[5];
    d[4][2] = f[3];
    d[4][0] = -f[5];
    d[5][1] = -f[3];
    d[5][0] = f[4];
    d
}

/// `∂(u ×_f f)/∂f` (MuJoCo `mjd_crossForce_frc`).
fn cross_force_frc(u: &Vec6) -> Mat6 {
    let mut d = [[0.0; 6]; 6];
    d[0][1] = -u[2];
    d[0][2] = u[1];
    d[0][4] = -u[5];
    d[0][5] = u[4];
    d[1][0] = u[2];
    d[1][2] = -u[0];
    d[1][3] = u[5];
    d[1][5] = -u[3];
    d[2][0] = -u[1];
    d[2][1] = u[0];
    d[2][3] = -u[4];
    d[2][4] = u[3];
    d[3][4] = -u[2];
    d[3][5] = u[1];
    d[4][3] = u[2];
    d[4][5] = -u[0];
    d[5][3] = -u[1];
    d[5][4] = u[0];
    d
}

/// `∂(I v)/∂v` (MuJoCo `mjd_mulInertVec_vel`), from the inertia's ten numbers as MuJoCo's `cinert` holds them.
fn mul_inert_vec_vel(inertia: &crate::spatial::SpatialInertia) -> Mat6 {
    let r = &inertia.rot;
    let (xx, yy, zz, xy, xz, yz) = (r.x_axis.x, r.y_axis.y, r.z_axis.z, r.x_axis.y, r.x_axis.z, r.y_axis.z);
    let (h, m) = (inertia.h, inertia.mass);
    let mut d = [[0.0; 6]; 6];
    d[0] = [xx, xy, xz, 0.0, -h.z, h.y];
    d[1] = [xy, yy, yz, h.z, 0.0, -h.x];
    d[2] = [xz, yz, zz, -h.y, h.x, 0.0];
    d[3] = [0.0, h.z, -h.y, m, 0.0, 0.0];
    d[4] = [-h.z, 0.0, h.x, 0.0, m, 0.0];
    d[5] = [h.y, -h.x, 0.0, 0.0, 0.0, m];
    d
}
