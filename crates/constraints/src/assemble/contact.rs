//! Contact rows: pyramidal edges or the elliptic cone's normal and friction rows, frictionless and `condim` 1
//! contacts, margins and adhesion; see the table in [`super`].

use super::*;

impl ConstraintAssembler {
    pub(super) fn contact(
        &self,
        model: &Model,
        data: &Data,
        cs: &ContactSet,
        c: usize,
        scratch: &mut AssemblyScratch,
        rows: &mut ConstraintRows,
    ) -> Result<(), ConstraintError> {
        let opts = &self.options;
        let object = || format!("contact #{c} (geoms #{} and #{})", cs.geom_a[c], cs.geom_b[c]);
        let sol = match scratch.last_sol {
            Some((solref, solimp, sol)) if solref == cs.solref[c] && solimp == cs.solimp[c] => sol,
            _ => {
                let sol = ResolvedSol::resolve(opts, &object, cs.solref[c], cs.solimp[c])?;
                scratch.last_sol = Some((cs.solref[c], cs.solimp[c], sol));
                sol
            }
        };
        let (a, b, p, n) = (cs.link_a[c], cs.link_b[c], cs.position[c], cs.normal[c]);
        let (mu, mu_t, mu_r) = (cs.friction[c], cs.friction_torsional[c], cs.friction_rolling[c]);
        let (t1, t2) = opts.tangent_frame.hinted_tangents(n, cs.tangent_hint(c));
        let margin = if opts.include_contact_margin { cs.margin[c] } else { 0.0 };
        let dist = -cs.penetration[c];
        let x = dist - margin;
        let adhesion = cs.adhesion[c];
        // MuJoCo 4.0: an adhesive contact within the gap stays active, frictionless.
        let in_gap = opts.include_contact_margin && x >= 0.0;
        let dim = if in_gap { 1 } else { opts.contact_condim(cs.condim[c]) };
        if in_gap && adhesion == 0.0 {
            // MuJoCo's `exclude`: a contact found within the gap, beyond the margin, makes no rows.
            rows.contact_row_start.push(rows.len());
            rows.contact_nrows.push(0);
            rows.contact_dim.push(opts.contact_condim(cs.condim[c]).max(1));
            rows.contact_mu.push(0.0);
            return Ok(());
        }
        let imp = sol.impedance(x);
        let AssemblyScratch { cols, dofs, basis, .. } = scratch;
        relative_columns(model, (dofs, &data.cdof), (a, p), (b, p), cols);
        let tran = model.body_invweight0[a][0] + model.body_invweight0[b][0];
        let ir = self.impratio;
        let z = DVec3::ZERO;
        let dirs = [(t1, z, mu), (t2, z, mu), (z, n, mu_t), (z, t1, mu_r), (z, t2, mu_r)];
        let qvel = &data.qvel;
        let start = rows.len();
        let cone = Some(c);
        let base = RowData { pos: dist, margin, imp, cone, ..RowData::plain() };

        // The Jacobian rows of the normal and of every friction direction (and their velocities), once; pyramid
        // edges are combinations of them. The normal and sliding directions act on the translational part of a
        // column, spin and rolling on the rotational part.
        let ndir = dim.max(1);
        let ncol = cols.len();
        // At most `2(dim − 1)` pyramid edges or `dim` rows, each over the contact's columns.
        let nrows = if dim > 1 { (2 * (dim - 1)).max(dim) } else { 1 };
        rows.reserve(nrows, nrows * ncol);
        let mut basis_vel = [0.0; 6];
        basis.clear();
        basis.resize(ndir.max(3) * ncol, 0.0);
        let (lin_rows, ang_rows) = basis.split_at_mut(3 * ncol);
        let (r0, r12) = lin_rows.split_at_mut(ncol);
        let (r1, r2) = r12.split_at_mut(ncol);
        for (((col, j0), j1), j2) in cols.iter().zip(r0).zip(r1).zip(r2) {
            let qv = qvel[col.dof];
            (*j0, *j1, *j2) = (col.lin.dot(n), col.lin.dot(t1), col.lin.dot(t2));
            basis_vel[0] += *j0 * qv;
            basis_vel[1] += *j1 * qv;
            basis_vel[2] += *j2 * qv;
        }
        if ndir > 3 {
            let axes = [n, t1, t2];
            for (d, row) in ang_rows.chunks_exact_mut(ncol).enumerate() {
                for (col, j) in cols.iter().zip(row) {
                    *j = col.ang.dot(axes[d]);
                    basis_vel[3 + d] += *j * qvel[col.dof];
                }
            }
        }
        // MuJoCo sums each row's velocity over the row itself (`mj_mulJacVec`, dense or sparse); with its sums that
        // order is reproduced, and a moving surface's velocity is added to the row afterwards (`mj_addSurfaceVel`).
        let mujoco_vel = opts.mujoco_sums;
        // Moving surfaces (MuJoCo `surfacevel`): the rows measure the slip and spin relative to the surfaces,
        // `σ_A − σ_B` at the contact point, in the contact frame `(n, t1, t2, spin)` (no normal or rolling part).
        let mut surface = None;
        if model.has_surfacevel {
            let (ga, gb) = (cs.geom_a[c], cs.geom_b[c]);
            let moving = |g: usize| model.geom_surfacevel[g] != [0.0; 6];
            if moving(ga) || moving(gb) {
                let velocity = |g: usize| {
                    let v = model.geom_surfacevel[g];
                    let r = data.geom_xmat[g];
                    let w = r * DVec3::new(v[3], v[4], v[5]);
                    (r * DVec3::new(v[0], v[1], v[2]) + w.cross(p - data.geom_xpos[g]), w)
                };
                let ((va, wa), (vb, wb)) = (velocity(ga), velocity(gb));
                let (s, w) = (va - vb, wa - wb);
                let frame = [0.0, s.dot(t1), s.dot(t2), w.dot(n), 0.0, 0.0];
                if !mujoco_vel {
                    for d in 1..4 {
                        basis_vel[d] += frame[d];
                    }
                }
                surface = Some(frame);
            }
        }
        let (basis, cols) = (&*basis, &*cols);
        // The last row's velocity: `J_r q̇` in MuJoCo's order plus `extra` (its surface term), or `fallback`.
        let last_row_vel = |rows: &ConstraintRows, fallback: f64, extra: f64| {
            let vel = self.row_velocity(model, data, rows, rows.jac_val.len() - ncol, fallback);
            if mujoco_vel && surface.is_some() { vel + extra } else { vel }
        };
        let surface_at = |d: usize| surface.map_or(0.0, |f| f[d]);
        let push_basis = |rows: &mut ConstraintRows, d: usize| {
            rows.jac_dof.extend(cols.iter().map(|c| c.dof as DofIndex));
            rows.jac_val.extend_from_slice(&basis[d * ncol..(d + 1) * ncol]);
            last_row_vel(rows, basis_vel[d], surface_at(d))
        };

        // MuJoCo 4.0's adhesion: the normal's reference acceleration gains `R·adhesion` (each pyramid edge
        // `R·(adhesion/(2(dim − 1)))`, the share divided first as `mj_adhesionRef` does), so the solver's force is
        // the net force plus the adhesion, which the passive pull ([`signorini_model::Model::contact_pull`]) takes
        // back out.
        let contact_mu = if dim <= 1 {
            let vel = push_basis(rows, 0);
            let r = regularizer(tran, imp);
            let row = RowData { vel, aref: sol.aref(imp, vel, x) + r * adhesion, r, ..base };
            rows.finish_row(RowKind::ContactFrictionless, c, row);
            0.0
        } else {
            match opts.friction_cone {
                FrictionCone::Pyramidal => {
                    let r = match opts.pyramid_regularizer {
                        PyramidRegularizer::LeadingFactorScaled => {
                            // In MuJoCo's order (`mj_diagApprox`, `mj_makeImpedance`): the first edge's
                            // `R₀ = (1 − imp)(tran + μ² tran)/imp`, `R₁ = R₀/impratio`, the regularised cone's
                            // `μ_r = μ √(R₁/R₀)`, and every edge's `R = 2 μ_r² R₀`.
                            let r0 = ((1.0 - imp) * (tran + mu * mu * tran) / imp).max(MINVAL);
                            let mu_r = mu * ((r0 / ir.max(MINVAL)) / r0).sqrt();
                            2.0 * mu_r * mu_r * r0
                        }
                        PyramidRegularizer::BothFactorsScaled => {
                            let m2 = mu * mu / ir;
                            (tran * (1.0 + m2) * 2.0 * m2 * (1.0 - imp) / imp).max(MINVAL)
                        }
                    };
                    let empty_zero_edges = opts.zero_rotational_friction == ZeroRotationalFriction::EmptyRows;
                    // The edges share the contact's dofs, except the empty rows of zero coefficients.
                    let mut run_open = false;
                    for (d, &(lin, _, f)) in dirs[..dim - 1].iter().enumerate() {
                        for sign in [1.0, -1.0] {
                            if empty_zero_edges && lin == z && f == 0.0 {
                                rows.finish_row(RowKind::ContactPyramidal, c, RowData { r, mu: f, ..base });
                                run_open = false;
                                continue;
                            }
                            // Edge `n + sign·f·dir`.
                            let w = sign * f;
                            let (normal, edge) = (&basis[..ncol], &basis[(d + 1) * ncol..(d + 2) * ncol]);
                            rows.jac_dof.extend(cols.iter().map(|c| c.dof as DofIndex));
                            rows.jac_val.extend(normal.iter().zip(edge).map(|(&jn, &jd)| jn + w * jd));
                            // MuJoCo adds `cs₀ ± μ cs_k` to the edge, with `cs₀ = 0`.
                            let extra = if sign > 0.0 {
                                surface_at(0) + f * surface_at(d + 1)
                            } else {
                                surface_at(0) - f * surface_at(d + 1)
                            };
                            let vel = last_row_vel(rows, basis_vel[0] + w * basis_vel[d + 1], extra);
                            let aref = sol.aref(imp, vel, x) + r * (adhesion / (2 * (dim - 1)) as f64);
                            let row = RowData { vel, aref, r, mu: f, ..base };
                            if run_open {
                                rows.finish_row_same_dofs(RowKind::ContactPyramidal, c, row);
                            } else {
                                rows.finish_row(RowKind::ContactPyramidal, c, row);
                            }
                            run_open = true;
                        }
                    }
                    mu
                }
                FrictionCone::Elliptic => {
                    let vel = push_basis(rows, 0);
                    let r0 = regularizer(tran, imp);
                    let row = RowData { vel, aref: sol.aref(imp, vel, x) + r0 * adhesion, r: r0, mu, ..base };
                    rows.finish_row(RowKind::ContactElliptic, c, row);
                    let mujoco = opts.elliptic_regularizer == EllipticRegularizer::ScaledToFirstSliding;
                    let r1 = if mujoco { r0 / ir.max(MINVAL) } else { r0 / ir };
                    for (k, &(_, _, f)) in dirs[..dim - 1].iter().enumerate() {
                        let vel = push_basis(rows, k + 1);
                        // Signorini keeps the friction rows' R for spin and roll (§B.9).
                        let equal = if mujoco { k == 0 } else { k < 2 || opts.signorini };
                        let r = if equal { r1 } else { r1 * mu * mu / (f * f).max(MINVAL) };
                        let row = RowData {
                            pos: 0.0,
                            margin: 0.0,
                            vel,
                            aref: sol.aref(imp, vel, 0.0),
                            r,
                            mu: f,
                            ..base
                        };
                        rows.finish_row_same_dofs(RowKind::ContactElliptic, c, row);
                    }
                    if mujoco { mu * (r1 / r0).sqrt() } else { mu / ir.sqrt() }
                }
            }
        };
        rows.contact_row_start.push(start);
        rows.contact_nrows.push(rows.len() - start);
        rows.contact_dim.push(dim.max(1));
        rows.contact_mu.push(contact_mu);
        Ok(())
    }
}
