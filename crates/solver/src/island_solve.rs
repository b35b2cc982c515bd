//! Per-island solves (`reference-semantics.md` §C.6; MuJoCo `mj_solPrimal` with islands): the rows are split into
//! connected components of kinematic trees ([`crate::islands`]); each island's dofs, smooth quantities, warm start
//! and rows (with dofs renumbered to the island) are gathered into local copies, solved by the shared iteration
//! ([`crate::primal`]) with the termination scale `1/tr(M_island)`, and scattered back into `qacc` and `efc_force`.
//! One island covering every dof and row is solved in place, without copies.

use signorini_constraints::rows::make_room;
use signorini_constraints::{ConstraintRows, DofIndex, RowKind};
use signorini_model::{Data, Model};

use crate::cost::{row_cost_force, row_state};
use crate::islands::Islands;
use crate::primal::{PrimalSolver, Problem};
use crate::{SolveStats, SolverData, SolverError, SolverOptions};

/// The per-island copies (rebuilt by every solve; nothing in them carries to the next one).
#[derive(Debug, Clone, Default)]
pub(crate) struct IslandWork {
    islands: Islands,
    /// Runs of rows over the same dofs of the whole problem.
    groups: Vec<(usize, usize)>,
    /// The island-local index of every dof of the island being solved.
    local: Vec<usize>,
    /// The island's rows, dofs renumbered: only what the iteration reads (kinds, Jacobian, `aref`, `r`, `d`,
    /// friction loss, `mu`, cones and elliptic blocks); `id`, `pos`, `margin`, `imp` and `vel` stay empty (the
    /// inputs were validated whole, and these five would add 40 bytes per row to the copy).
    rows: ConstraintRows,
    /// The island's `f_s`, `a_s` and warm start.
    fs: Vec<f64>,
    a_s: Vec<f64>,
    warm: Vec<f64>,
}

/// Per-island solves (§C.6) of `method`: every island is gathered into local copies, solved and terminated on its
/// own (scale `1/tr(M_island)`), and scattered back; dofs outside every island get `qacc_smooth`, rows without
/// Jacobian entries their fixed force. `qacc` holds the warm start (valid, `nv` entries) and `efc_force` is zeroed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_islands(
    method: &PrimalSolver,
    model: &Model,
    data: &Data,
    rows: &ConstraintRows,
    options: &SolverOptions,
    work: &mut SolverData,
    qacc: &mut [f64],
    efc_force: &mut [f64],
) -> Result<SolveStats, SolverError> {
    if rows.is_empty() {
        // No island: every dof is unconstrained.
        qacc.copy_from_slice(&data.qacc_smooth);
        return Ok(SolveStats { converged: true, ..SolveStats::default() });
    }
    let SolverData { primal, mass, islands: sc, .. } = work;
    rows.dof_groups(&mut sc.groups);
    sc.islands.build_with_groups(model, rows, &sc.groups);
    // One island over every row whose dofs are the first `k` (all of them, or a prefix such as a free body listed
    // first): its local numbering is the global one, so it is solved in place, without gathering copies. The dofs
    // after it are unconstrained.
    let k = if sc.islands.count() == 1 { sc.islands.dofs(0).len() } else { 0 };
    let in_place = k > 0
        && sc.islands.free_rows.is_empty()
        && sc.islands.rows(0).len() == rows.len()
        && sc.islands.dofs(0).last() == Some(&(k - 1));
    // MuJoCo picks the start once, for the whole problem, before it splits it into islands (`warmstart` in
    // `engine_forward.c`); an island whose own cost favours the other start still starts from the global choice.
    // One island over every dof and row is the whole problem: its own choice (in `run`) is that one.
    let mut options = *options;
    if options.warm_start == crate::WarmStart::CheaperOfIncomingAndSmooth
        && !options.signorini
        && !(in_place && k == model.nv)
    {
        let cheaper = if crate::mujoco_newton::applies(rows, &options, primal.mujoco.sparse) {
            use crate::mujoco_newton::{mul_jac, warm_start_is_cheaper};
            let (jar, jv, gathered) = (&mut primal.jar, &mut primal.jv, &mut primal.tmp);
            jar.resize(rows.len(), 0.0);
            jv.resize(rows.len(), 0.0);
            mul_jac(model.nv, rows, &sc.groups, qacc, jar, gathered);
            mul_jac(model.nv, rows, &sc.groups, &data.qacc_smooth, jv, gathered);
            for ((w, s), aref) in jar.iter_mut().zip(jv.iter_mut()).zip(&rows.aref) {
                *w -= aref;
                *s -= aref;
            }
            let scratch = (&mut primal.tmp, &mut primal.ms);
            warm_start_is_cheaper(model, data, rows, qacc, (&primal.jar, &primal.jv), scratch)
        } else {
            primal.incoming_is_cheaper(model, data, rows, &sc.groups, qacc)
        };
        if !cheaper {
            qacc.copy_from_slice(&data.qacc_smooth);
        }
        options.warm_start = crate::WarmStart::Incoming;
    }
    let options = &options;
    if in_place {
        primal.groups.clone_from(&sc.groups);
        if k == model.nv {
            mass.assign_all(model, data);
        } else {
            sc.local.clear();
            sc.local.extend(0..model.nv);
            mass.assign(model, data, sc.islands.dofs(0), &sc.local);
        }
        let whole = (k == model.nv).then_some((model, data));
        let p =
            Problem { mass: &*mass, fs: &data.qfrc_smooth[..k], a_s: &data.qacc_smooth[..k], rows, whole };
        let scale = 1.0 / mass.trace().max(f64::MIN_POSITIVE);
        let warm = (options.warm_start != crate::WarmStart::Smooth).then_some(&qacc[..k]);
        let stats = primal.run(method, &p, options, scale, warm)?;
        qacc[..k].copy_from_slice(&primal.a);
        qacc[k..].copy_from_slice(&data.qacc_smooth[k..]);
        efc_force.copy_from_slice(&primal.force);
        return Ok(SolveStats { islands: 1, ..stats });
    }
    sc.local.clear();
    sc.local.resize(model.nv, usize::MAX);
    let mut total = SolveStats { converged: true, ..SolveStats::default() };
    let warm_valid = !rows.is_empty() && options.warm_start != crate::WarmStart::Smooth;
    // Dofs outside every island are unconstrained.
    for (k, island) in sc.islands.dof_island.iter().enumerate() {
        if island.is_none() {
            qacc[k] = data.qacc_smooth[k];
        }
    }
    let mut gsq = 0.0;
    for island in 0..sc.islands.count() {
        let dofs = sc.islands.dofs(island);
        for (l, &g) in dofs.iter().enumerate() {
            sc.local[g] = l;
        }
        mass.assign(model, data, dofs, &sc.local);
        sc.fs.clear();
        sc.a_s.clear();
        sc.warm.clear();
        for &g in dofs {
            sc.fs.push(data.qfrc_smooth[g]);
            sc.a_s.push(data.qacc_smooth[g]);
            sc.warm.push(qacc[g]);
        }
        sc.rows.clear();
        primal.groups.clear();
        let mut previous = usize::MAX;
        let island_rows = sc.islands.rows(island);
        for (l, &r) in island_rows.iter().enumerate() {
            match primal.groups.last_mut() {
                Some((_, n)) if r == previous.wrapping_add(1) && !sc.islands.starts_group(r) => *n += 1,
                _ => primal.groups.push((l, 1)),
            }
            previous = r;
        }
        // The island's rows are increasing: copy each run of consecutive rows at once.
        let mut k = 0;
        while k < island_rows.len() {
            let first = island_rows[k];
            let mut end = k + 1;
            while end < island_rows.len() && island_rows[end] == first + (end - k) {
                end += 1;
            }
            copy_rows(rows, first..first + (end - k), &sc.local, &mut sc.rows);
            k = end;
        }
        let p = Problem { mass: &*mass, fs: &sc.fs, a_s: &sc.a_s, rows: &sc.rows, whole: None };
        let scale = 1.0 / mass.trace().max(f64::MIN_POSITIVE);
        let warm = if warm_valid { Some(&sc.warm[..]) } else { None };
        let stats = primal.run(method, &p, options, scale, warm)?;
        for (l, &g) in dofs.iter().enumerate() {
            qacc[g] = primal.a[l];
        }
        for (l, &r) in sc.islands.rows(island).iter().enumerate() {
            efc_force[r] = primal.force[l];
        }
        total.iterations = total.iterations.max(stats.iterations);
        total.cost += stats.cost;
        gsq += stats.gradient_norm * stats.gradient_norm;
        total.converged &= stats.converged;
        total.factorizations += stats.factorizations;
        total.rank_one_updates += stats.rank_one_updates;
    }
    // Rows without Jacobian entries have the constant residual `−aref`: their cost and force are fixed.
    for &r in &sc.islands.free_rows {
        let x = -rows.aref[r];
        let state = row_state(rows, r, x);
        let (c, f) = row_cost_force(rows, r, state, x);
        total.cost += c;
        efc_force[r] = f;
    }
    total.gradient_norm = gsq.sqrt();
    total.islands = sc.islands.count();
    Ok(total)
}

/// Appends rows `range` of `rows` to `out` with their dofs mapped through `local` (elliptic contacts keep their
/// block layout: the contact index is renumbered to the blocks of `out`). Only the arrays the iteration reads are
/// copied (see [`IslandWork`]'s `rows`).
fn copy_rows(
    rows: &ConstraintRows,
    range: std::ops::Range<usize>,
    local: &[usize],
    out: &mut ConstraintRows,
) {
    if out.jac_start.is_empty() {
        out.jac_start.push(0);
    }
    let (j0, j1) = (rows.jac_start[range.start], rows.jac_start[range.end]);
    // The copy grows as the rows do (1/8 of spare room, not doubling), in the arrays it fills.
    let n = range.len();
    make_room(&mut out.jac_dof, j1 - j0);
    make_room(&mut out.jac_val, j1 - j0);
    make_room(&mut out.jac_start, n);
    make_room(&mut out.kind, n);
    make_room(&mut out.aref, n);
    make_room(&mut out.r, n);
    make_room(&mut out.d, n);
    make_room(&mut out.frictionloss, n);
    make_room(&mut out.mu, n);
    make_room(&mut out.cone, n);
    let base = out.jac_dof.len();
    out.jac_dof.extend(rows.jac_dof[j0..j1].iter().map(|&k| local[k as usize] as DofIndex));
    out.jac_val.extend_from_slice(&rows.jac_val[j0..j1]);
    out.jac_start.extend(rows.jac_start[range.start + 1..=range.end].iter().map(|&s| s - j0 + base));
    out.kind.extend_from_slice(&rows.kind[range.clone()]);
    out.aref.extend_from_slice(&rows.aref[range.clone()]);
    out.r.extend_from_slice(&rows.r[range.clone()]);
    out.d.extend_from_slice(&rows.d[range.clone()]);
    out.frictionloss.extend_from_slice(&rows.frictionloss[range.clone()]);
    out.mu.extend_from_slice(&rows.mu[range.clone()]);
    for r in range {
        let cone = match rows.cone[r] {
            Some(c) if rows.kind[r] == RowKind::ContactElliptic => {
                if rows.contact_row_start[c] == r {
                    out.contact_row_start.push(out.cone.len());
                    out.contact_nrows.push(rows.contact_nrows[c]);
                    out.contact_dim.push(rows.contact_dim.get(c).copied().unwrap_or(rows.contact_nrows[c]));
                    out.contact_mu.push(rows.contact_mu[c]);
                }
                Some(out.contact_row_start.len() - 1)
            }
            // Other contact rows keep no block data in the copy (the solver does not read it).
            _ => None,
        };
        out.cone.push(cone);
    }
}
