//! Per-island solves (`reference-semantics.md` §C.6; MuJoCo `mj_solPrimal` with islands): the rows are split into
//! connected components of kinematic trees ([`crate::islands`]); each island's dofs, smooth quantities, warm start
//! and rows (with dofs renumbered to the island) are gathered into local copies, solved by the shared iteration
//! ([`crate::primal`]) with the termination scale `1/tr(M_island)`, and scattered back into `qacc` and `efc_force`.
//! One island covering every dof and row is solved in place, without copies.

use std::sync::{Mutex, MutexGuard, PoisonError};

use rayon::prelude::*;
use signorini_constraints::rows::make_room;
use signorini_constraints::{ConstraintRows, DofIndex, RowKind};
use signorini_model::{Data, Model};

use crate::cost::{row_cost_force, row_state};
use crate::islands::Islands;
use crate::mass::TreeMass;
use crate::primal::{PrimalSolver, PrimalWork, Problem};
use crate::{SolveStats, SolverData, SolverError, SolverOptions};

/// The per-island copies (rebuilt by every solve; nothing in them carries to the next one).
#[derive(Debug, Clone, Default)]
pub(crate) struct IslandWork {
    islands: Islands,
    /// Runs of rows over the same dofs of the whole problem.
    groups: Vec<(usize, usize)>,
    /// The island-local index of every dof that is in an island (the islands' dofs are disjoint).
    local: Vec<usize>,
    /// The gathered copy of the island being solved on this thread.
    copy: IslandCopy,
    /// The islands, most rows first: the order in which a parallel solve hands them out.
    order: Vec<usize>,
    /// One set of work arrays per worker thread of a parallel solve (empty until one runs).
    lanes: Lanes,
    /// `(island, lane, entry in the lane's results)` of a parallel solve, sorted by island for the scatter.
    solved: Vec<(usize, usize, usize)>,
    /// Whether the last solve was split between workers (the next one then wakes a worker early).
    last_parallel: bool,
}

/// One island gathered for its solve.
#[derive(Debug, Clone, Default)]
struct IslandCopy {
    /// The island's rows, dofs renumbered: only what the iteration reads (kinds, Jacobian, `aref`, `r`, `d`,
    /// friction loss, `mu`, cones and elliptic blocks); `id`, `pos`, `margin`, `imp` and `vel` stay empty (the
    /// inputs were validated whole, and these five would add 40 bytes per row to the copy).
    rows: ConstraintRows,
    /// The island's `f_s`, `a_s` and warm start.
    fs: Vec<f64>,
    a_s: Vec<f64>,
    warm: Vec<f64>,
}

/// A worker's work arrays in a parallel solve, and the results of the islands it solved.
#[derive(Debug, Clone, Default)]
struct Lane {
    primal: PrimalWork,
    mass: TreeMass,
    copy: IslandCopy,
    /// The solved islands' `qacc` and forces, one island after the other.
    a: Vec<f64>,
    force: Vec<f64>,
    /// `(island, offset in a, offset in force, outcome)` of every island this lane solved.
    results: Vec<(usize, usize, usize, Result<SolveStats, SolverError>)>,
}

/// The lanes of a parallel solve, one per worker thread (a worker takes the lane of its pool index, so a lane's lock
/// is never contended).
#[derive(Debug, Default)]
struct Lanes(Vec<Mutex<Lane>>);

impl Clone for Lanes {
    fn clone(&self) -> Self {
        Self(self.0.iter().map(|l| Mutex::new(lock(l).clone())).collect())
    }
}

fn lock(lane: &Mutex<Lane>) -> MutexGuard<'_, Lane> {
    lane.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Islands are solved in parallel only when a step has at least this many rows: below it, handing islands to
/// another worker costs more than their solves (`convex.xml`, 20 islands of about 240 rows in all, solved in
/// 40–60 µs, ran 0.78–0.85× as fast on 2 threads as on 1 with a floor of 64 rows; `scripts/bench_threads.py`).
const PARALLEL_MIN_ROWS: usize = 256;

/// ... and only when no island holds more than this share of the rows (the others would then finish long before it).
const PARALLEL_MAX_SHARE: f64 = 0.9;

/// Per-island solves (§C.6) of `method`: every island is gathered into local copies, solved and terminated on its
/// own (scale `1/tr(M_island)`), and scattered back; dofs outside every island get `qacc_smooth`, rows without
/// Jacobian entries their fixed force. `qacc` holds the warm start (valid, `nv` entries) and `efc_force` is zeroed.
/// With [`SolverOptions::parallel_islands`], on a worker of a pool of several threads, the islands of a large
/// enough problem are solved in parallel, each with the same arithmetic as alone: the results do not depend on it.
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
    if sc.last_parallel && in_a_pool() {
        // Woken by the split itself, the second worker joined late (22 humanoids: the parallel section took 142 µs
        // for lanes busy 100 and 77 µs); woken here when the last solve was split, while the islands are found, it
        // is looking for work by the time they are handed out (107–114 µs, timers around the section). Woken when
        // no split follows, it cost the pyramid (one island) 4–8 % of its steps. Speed only: nothing depends on
        // which worker solves what. The empty job is boxed by rayon: one small allocation per such step.
        rayon::spawn(|| {});
    }
    sc.last_parallel = false;
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
    let mujoco_sparse = crate::mujoco_newton::keeps_sparse(model);
    let mut options = *options;
    if options.warm_start == crate::WarmStart::CheaperOfIncomingAndSmooth
        && !options.signorini
        && !(in_place && k == model.nv)
    {
        let cheaper = if crate::mujoco_newton::applies(rows, &options, mujoco_sparse) {
            use crate::mujoco_newton::{mul_jac, warm_start_is_cheaper};
            let (jar, jv, gathered) = (&mut primal.jar, &mut primal.jv, &mut primal.tmp);
            jar.resize(rows.len(), 0.0);
            jv.resize(rows.len(), 0.0);
            mul_jac(mujoco_sparse, rows, &sc.groups, qacc, jar, gathered);
            mul_jac(mujoco_sparse, rows, &sc.groups, &data.qacc_smooth, jv, gathered);
            let scratch = (&mut primal.tmp, &mut primal.ms);
            warm_start_is_cheaper(model, data, rows, qacc, (jar, jv), scratch)
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
        let p = Problem {
            mass: &*mass,
            fs: &data.qfrc_smooth[..k],
            a_s: &data.qacc_smooth[..k],
            rows,
            whole,
            mujoco_sparse,
        };
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
    for island in 0..sc.islands.count() {
        for (l, &g) in sc.islands.dofs(island).iter().enumerate() {
            sc.local[g] = l;
        }
    }
    let mut total = SolveStats { converged: true, ..SolveStats::default() };
    let mut gsq = 0.0;
    let warm_valid = !rows.is_empty() && options.warm_start != crate::WarmStart::Smooth;
    let gather = Gather {
        method,
        model,
        data,
        rows,
        options,
        islands: &sc.islands,
        local: &sc.local,
        warm_valid,
        mujoco_sparse,
    };
    if parallel(options, &sc.islands, rows.len()) {
        gather.solve_parallel(qacc, &mut sc.order, &mut sc.lanes, &mut sc.solved);
        total.parallel = true;
        sc.last_parallel = true;
        for &(island, lane, entry) in &sc.solved {
            let lane = lock(&sc.lanes.0[lane]);
            let (_, a0, f0, result) = &lane.results[entry];
            let stats = result.clone()?;
            let (dofs, island_rows) = (sc.islands.dofs(island), sc.islands.rows(island));
            scatter(
                &lane.a[*a0..*a0 + dofs.len()],
                &lane.force[*f0..*f0 + island_rows.len()],
                dofs,
                island_rows,
                qacc,
                efc_force,
            );
            add_island(&mut total, &mut gsq, &stats);
        }
    } else {
        for island in 0..sc.islands.count() {
            let stats = gather.solve(island, qacc, primal, mass, &mut sc.copy)?;
            let (dofs, island_rows) = (sc.islands.dofs(island), sc.islands.rows(island));
            scatter(&primal.a, &primal.force, dofs, island_rows, qacc, efc_force);
            add_island(&mut total, &mut gsq, &stats);
        }
    }
    // Dofs outside every island are unconstrained.
    for (k, island) in sc.islands.dof_island.iter().enumerate() {
        if island.is_none() {
            qacc[k] = data.qacc_smooth[k];
        }
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

/// Whether the islands of this solve are solved in parallel: asked for, on a worker of a pool of several threads,
/// with enough rows, spread over several islands.
fn parallel(options: &SolverOptions, islands: &Islands, nrows: usize) -> bool {
    options.parallel_islands
        && islands.count() > 1
        && nrows >= PARALLEL_MIN_ROWS
        && in_a_pool()
        && (0..islands.count()).all(|i| islands.rows(i).len() as f64 <= PARALLEL_MAX_SHARE * nrows as f64)
}

/// Whether this thread is a worker of a pool of several threads.
fn in_a_pool() -> bool {
    rayon::current_thread_index().is_some() && rayon::current_num_threads() > 1
}

/// Writes an island's solved `qacc` and forces (island order) to their global places.
fn scatter(
    a: &[f64],
    force: &[f64],
    dofs: &[usize],
    island_rows: &[usize],
    qacc: &mut [f64],
    efc_force: &mut [f64],
) {
    for (&g, &v) in dofs.iter().zip(a) {
        qacc[g] = v;
    }
    for (&r, &f) in island_rows.iter().zip(force) {
        efc_force[r] = f;
    }
}

/// Adds an island's statistics to the total (in island order: the cost is a floating-point sum).
fn add_island(total: &mut SolveStats, gsq: &mut f64, stats: &SolveStats) {
    total.iterations = total.iterations.max(stats.iterations);
    total.cost += stats.cost;
    *gsq += stats.gradient_norm * stats.gradient_norm;
    total.converged &= stats.converged;
    total.factorizations += stats.factorizations;
    total.rank_one_updates += stats.rank_one_updates;
}

/// What every island's gather and solve reads.
struct Gather<'a> {
    method: &'a PrimalSolver,
    model: &'a Model,
    data: &'a Data,
    rows: &'a ConstraintRows,
    options: &'a SolverOptions,
    islands: &'a Islands,
    local: &'a [usize],
    warm_valid: bool,
    mujoco_sparse: bool,
}

impl Gather<'_> {
    /// Gathers `island` into `mass` and `copy` (its warm start from `qacc`) and solves it with `primal`, which
    /// holds the island's `qacc` and forces afterwards.
    fn solve(
        &self,
        island: usize,
        qacc: &[f64],
        primal: &mut PrimalWork,
        mass: &mut TreeMass,
        copy: &mut IslandCopy,
    ) -> Result<SolveStats, SolverError> {
        let (islands, data) = (self.islands, self.data);
        let dofs = islands.dofs(island);
        mass.assign(self.model, data, dofs, self.local);
        copy.fs.clear();
        copy.a_s.clear();
        copy.warm.clear();
        for &g in dofs {
            copy.fs.push(data.qfrc_smooth[g]);
            copy.a_s.push(data.qacc_smooth[g]);
            copy.warm.push(qacc[g]);
        }
        copy.rows.clear();
        primal.groups.clear();
        let mut previous = usize::MAX;
        let island_rows = islands.rows(island);
        for (l, &r) in island_rows.iter().enumerate() {
            match primal.groups.last_mut() {
                Some((_, n)) if r == previous.wrapping_add(1) && !islands.starts_group(r) => *n += 1,
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
            copy_rows(self.rows, first..first + (end - k), self.local, &mut copy.rows);
            k = end;
        }
        let p = Problem {
            mass: &*mass,
            fs: &copy.fs,
            a_s: &copy.a_s,
            rows: &copy.rows,
            whole: None,
            mujoco_sparse: self.mujoco_sparse,
        };
        let scale = 1.0 / mass.trace().max(f64::MIN_POSITIVE);
        let warm = if self.warm_valid { Some(&copy.warm[..]) } else { None };
        primal.run(self.method, &p, self.options, scale, warm)
    }

    /// Solves every island on the current pool, most rows first, each on the lane of the worker that takes it, and
    /// lists in `solved` where each island's results are, in island order.
    fn solve_parallel(
        &self,
        qacc: &[f64],
        order: &mut Vec<usize>,
        lanes: &mut Lanes,
        solved: &mut Vec<(usize, usize, usize)>,
    ) {
        let n = rayon::current_num_threads();
        if lanes.0.len() != n {
            lanes.0.resize_with(n, || Mutex::new(Lane::default()));
        }
        for lane in &lanes.0 {
            let mut lane = lock(lane);
            lane.a.clear();
            lane.force.clear();
            lane.results.clear();
        }
        order.clear();
        order.extend(0..self.islands.count());
        order.sort_by_key(|&i| std::cmp::Reverse(self.islands.rows(i).len()));
        let lanes = &lanes.0;
        order.par_iter().with_max_len(1).for_each(|&island| {
            let t = rayon::current_thread_index().unwrap_or(0) % lanes.len();
            let mut guard = lock(&lanes[t]);
            let lane = &mut *guard;
            let result = self.solve(island, qacc, &mut lane.primal, &mut lane.mass, &mut lane.copy);
            let (a0, f0) = (lane.a.len(), lane.force.len());
            if result.is_ok() {
                lane.a.extend_from_slice(&lane.primal.a);
                lane.force.extend_from_slice(&lane.primal.force);
            }
            lane.results.push((island, a0, f0, result));
        });
        solved.clear();
        for (t, lane) in lanes.iter().enumerate() {
            solved.extend(lock(lane).results.iter().enumerate().map(|(entry, r)| (r.0, t, entry)));
        }
        solved.sort_unstable();
    }
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
