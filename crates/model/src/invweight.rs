//! Constants computed at `qpos0` during compilation (MuJoCo `mj_setConst`, spec §B.2): inverse weights, mean
//! inertia and dof length scales.
//!
//! - `body_invweight0[b] = (tr(A₀₀)/3, tr(A₁₁)/3)` with `A = J M⁻¹ Jᵀ` for the 6 × nv Jacobian `J = (jacp; jacr)`
//!   of the body's centre of mass (each entry summed as `mju_dot` sums it over the `nv` columns); a body welded to the world gets 0. A part may be degenerate: a body whose
//!   centre of mass lies on its only hinge's axis has a translational weight of ~0, which MuJoCo 4.0 keeps
//!   ([`Model::fill_degenerate_invweights`] is Genesis's rule for it). A simple body ([`Model::dof_simple`]) moved by slides alone gets
//!   `(1/mass, 0)`, and its dofs `dof_invweight0 = 1/mass` (MuJoCo's `body_simple == 2`).
//! - `dof_invweight0[d] = (M⁻¹)_dd`, averaged over the 3 translations and over the 3 rotations of a free joint and
//!   over the 3 dofs of a ball.
//! - `dof_m0[d] = M_dd` (the diagonal of simple bodies, [`Model::dof_simple`]).
//! - `meaninertia = tr(M)/nv` (armature included), 1 without dofs.
//! - `dof_length`: 1 for translations; for rotations the size of the dof's body, the largest of: the distance from
//!   its centre of mass to the anchors of its own joints and of its children's joints, and `rbound + distance` to
//!   its geoms; at least 1e-5 (MuJoCo `setStat`).

use crate::data::Data;
use crate::error::{ModelError, object_name};
use crate::model::{MINVAL, Model};
use crate::spec::JointKind;

/// Fills `body_invweight0`, `dof_invweight0`, `meaninertia`, `dof_length` and the tendon constants of a freshly
/// built model.
pub(crate) fn set_constants(m: &mut Model) -> Result<(), ModelError> {
    let mut d = Data::new(m);
    m.forward_kinematics(&mut d);
    // `dof_m0` from the general algorithm (the simple-body shortcut reads it), then the shortcut's `M`.
    let simple = std::mem::replace(&mut m.dof_simple, vec![false; m.nv]);
    m.mass_matrix(&mut d);
    m.dof_m0 = (0..m.nv).map(|i| d.qm[m.dof_madr[i]]).collect();
    d.dof_m0.clone_from(&m.dof_m0);
    m.dof_simple = simple;
    m.mass_matrix(&mut d);
    if let Err(crate::error::DynamicsError::NotPositiveDefinite { dof, pivot }) = m.factor_m(&mut d) {
        let j = m.dof_jntid[dof];
        return Err(ModelError::SingularInertia {
            joint: object_name("joint", &m.jnt_name[j], j),
            dof,
            pivot,
        });
    }
    let nv = m.nv;
    m.meaninertia = if nv == 0 { 1.0 } else { (0..nv).map(|i| d.qm[m.dof_madr[i]]).sum::<f64>() / nv as f64 };
    crate::tendon::set_constants(m, &mut d)?;
    m.set_actuator_constants(&mut d);

    // Each solve is restricted to the kinematic tree of its right-hand side (the rest of `M` is block-diagonal
    // apart): the cost is linear in the number of trees, not quadratic.
    let mut tree_dofs = vec![Vec::new(); m.ntree];
    for dof in 0..nv {
        tree_dofs[m.dof_treeid[dof]].push(dof);
    }
    let mut x = vec![0.0; nv];
    let mut row = vec![0.0; nv];
    // MuJoCo's "simple body with no rotations" (`body_simple == 2`): a simple body moved by slides alone has
    // `body_invweight0 = (1/mass, 0)` and `dof_invweight0 = 1/mass`, whatever the number of slides.
    let slides_only = |b: usize| {
        let joints = m.body_jntadr[b]..m.body_jntadr[b] + m.body_jntnum[b];
        m.body_dofnum[b] > 0
            && m.dof_simple[m.body_dofadr[b]]
            && joints.into_iter().all(|j| m.jnt_type[j] == JointKind::Slide)
    };
    let mut invweight = vec![[0.0; 2]; m.nbody];
    for (b, out) in invweight.iter_mut().enumerate().skip(1) {
        if m.body_weldid[b] == 0 {
            continue;
        }
        if slides_only(b) {
            *out = [1.0 / m.body_mass[b].max(MINVAL), 0.0];
            continue;
        }
        let chain: Vec<usize> = m.dof_chain(b).collect();
        let Some(&first) = chain.first() else { continue };
        let tree = &tree_dofs[m.dof_treeid[first]];
        let mut diag = [0.0; 6];
        for (r, a) in diag.iter_mut().enumerate() {
            for &dof in &chain {
                let (lin, ang) = m.jacobian_column(&d, dof, d.xipos[b]);
                row[dof] = if r < 3 { lin[r] } else { ang[r - 3] };
            }
            for &t in tree {
                x[t] = row[t];
            }
            m.tree_layout().solve_on(&d.qld, &d.qld_diag_inv, &mut x, tree);
            // `mju_mulMatMatT`'s `mju_dot` over all `nv` columns (the tree's dofs are the non-zero ones).
            *a = crate::factor::mujoco_sum_at(nv, tree.iter().map(|&t| (t, row[t] * x[t])));
            for &t in tree {
                (x[t], row[t]) = (0.0, 0.0);
            }
        }
        *out = [(diag[0] + diag[1] + diag[2]) / 3.0, (diag[3] + diag[4] + diag[5]) / 3.0];
    }
    m.body_invweight0 = invweight;

    let mut minv_diag = vec![0.0; nv];
    for (i, out) in minv_diag.iter_mut().enumerate() {
        let tree = &tree_dofs[m.dof_treeid[i]];
        x[i] = 1.0;
        m.tree_layout().solve_on(&d.qld, &d.qld_diag_inv, &mut x, tree);
        *out = x[i];
        for &t in tree {
            x[t] = 0.0;
        }
    }
    for j in 0..m.njnt {
        let da = m.jnt_dofadr[j];
        let groups: &[(usize, usize)] = match m.jnt_type[j] {
            JointKind::Free => &[(0, 3), (3, 3)],
            JointKind::Ball => &[(0, 3)],
            JointKind::Hinge | JointKind::Slide => &[(0, 1)],
        };
        if slides_only(m.jnt_bodyid[j]) {
            m.dof_invweight0[da] = 1.0 / m.body_mass[m.jnt_bodyid[j]].max(MINVAL);
            continue;
        }
        for &(start, len) in groups {
            let dofs = da + start..da + start + len;
            let mean = minv_diag[dofs.clone()].iter().sum::<f64>() / len as f64;
            m.dof_invweight0[dofs].fill(mean);
        }
    }

    let mut size = vec![0.0f64; m.nbody];
    for j in 0..m.njnt {
        let b = m.jnt_bodyid[j];
        let p = m.body_parent[b];
        size[b] = size[b].max(d.xipos[b].distance(d.xanchor[j]));
        size[p] = size[p].max(d.xipos[p].distance(d.xanchor[j]));
    }
    for g in 0..m.ngeom {
        let b = m.collision.geoms().body[g];
        if b > 0 && m.geom_rbound[g] > 0.0 {
            size[b] = size[b].max(m.geom_rbound[g] + d.xipos[b].distance(d.geom_xpos[g]));
        }
    }
    for dof in 0..nv {
        let j = m.dof_jntid[dof];
        let rotational = match m.jnt_type[j] {
            JointKind::Slide => false,
            JointKind::Free => dof - m.jnt_dofadr[j] >= 3,
            JointKind::Ball | JointKind::Hinge => true,
        };
        m.dof_length[dof] = if rotational { size[m.dof_bodyid[dof]].max(1e-5) } else { 1.0 };
    }
    // MuJoCo's `springdamper`: a spring and damper of time constant τ and damping ratio ζ for the joint's mean
    // inertia `I = n / Σ invweight0`: `k = I/(τζ)²`, `b = 2I/τ`.
    for jnt in 0..m.njnt {
        let Some([timeconst, dampratio]) = m.jnt_springdamper[jnt] else { continue };
        if !(timeconst > 0.0 && dampratio > 0.0) {
            continue;
        }
        let (adr, n) = (m.jnt_dofadr[jnt], m.jnt_type[jnt].nv());
        let inertia = n as f64 / m.dof_invweight0[adr..adr + n].iter().sum::<f64>().max(1e-15);
        m.jnt_stiffness[jnt] = inertia / (timeconst * timeconst * dampratio * dampratio).max(1e-15);
        let damping = 2.0 * inertia / timeconst.max(1e-15);
        m.dof_damping[adr..adr + n].fill(damping);
    }
    Ok(())
}

impl Model {
    /// Genesis's rule for a degenerate `body_invweight0` (spec §B.2): when one part is below [`MINVAL`] and the
    /// other above, it takes the other's value. MuJoCo had the rule from commit 1cda1e7a (January 2026) until its
    /// rollback a47a18dd (March 2026, issue 3163), so MuJoCo 4.0 keeps the degenerate part, and the frictionless
    /// contacts of such a body get MuJoCo's small regulariser (`R ∝ tran` of both sides).
    pub fn fill_degenerate_invweights(&mut self) {
        for w in &mut self.body_invweight0 {
            if w[0] < MINVAL && w[1] > MINVAL {
                w[0] = w[1];
            } else if w[1] < MINVAL && w[0] > MINVAL {
                w[1] = w[0];
            }
        }
    }
}
