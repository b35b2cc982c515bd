//! [`BlockCholesky`]: a sparse Cholesky factorisation `H = L Lᵀ` of the Newton Hessian whose blocks are kinematic
//! trees, with rank-1 update/downdate (`reference-semantics.md` §C.2).
//!
//! `H = M + Σ D_i J_iᵀ J_i (+ cone blocks)` couples two trees only when some row touches both, and `M` is block
//! diagonal over trees. So `H` is sparse at the level of trees and dense inside each tree block. The factorisation
//!
//! 1. **analyses** the tree graph of the rows (every row, whatever its state, so that later updates stay inside the
//!    pattern): a minimum-degree elimination order on trees and the block pattern of `L` (fill included);
//! 2. **factors** numerically, left-looking by block columns, with dense blocks and pivots floored at
//!    [`crate::dense::PIVOT_FLOOR`] like the dense path;
//! 3. **updates** `L` in place to the factor of `H ± v vᵀ` (LINPACK `dchud`/`dchdd`, MuJoCo `mju_cholUpdate`),
//!    visiting only the block columns where `v` is non-zero; the pattern of `L` is closed under such updates when
//!    `v = √D Jᵢᵀ` for a row that took part in the analysis.
//!
//! Vectors passed to [`BlockCholesky::solve`] and [`BlockCholesky::rank_one`] are in the caller's (local) dof order;
//! the permutation to elimination order is internal.

use signorini_constraints::DofIndex;

use crate::cost::MAX_CONE_ROWS;
use crate::dense::PIVOT_FLOOR;

/// Rows summed into the pending dense matrix together (the four edges of a pyramidal contact): each entry of the
/// matrix is loaded and stored once per group instead of once per row.
const LAZY_ROWS: usize = 4;
const _: () = assert!(LAZY_ROWS == 4, "apply_lazy sums four rows");

/// Below this a pivot update counts as degenerate (MuJoCo `mjMINVAL`).
const EPS: f64 = 1e-15;

/// An indexed row entry: `(block, permuted dof, position in the row)`.
type Entry = (usize, usize, usize);

/// Why a rank-1 downdate could not be applied (the caller refactors from scratch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Degenerate;

/// The block-sparse factor and its symbolic structure. Reusing one value across solves does not allocate once the
/// largest problem has been seen.
#[derive(Debug, Clone, Default)]
pub struct BlockCholesky {
    nv: usize,
    nblk: usize,
    /// Local dof → permuted dof.
    slot: Vec<usize>,
    /// Permuted dof → block (position in the elimination order).
    dof_block: Vec<usize>,
    /// Block → first permuted dof (`nblk + 1`).
    bstart: Vec<usize>,
    /// Block column `k`: its diagonal block at `diag_off[k]` (`n_k × n_k`, row-major, lower triangle used).
    diag_off: Vec<usize>,
    /// Block column `k`: below-diagonal blocks `col_ptr[k]..col_ptr[k+1]` of `below_blk` (increasing block rows)
    /// stored at `below_off` (`n_i × n_k`, row-major).
    col_ptr: Vec<usize>,
    below_blk: Vec<usize>,
    below_off: Vec<usize>,
    /// Block row `j`: the columns `k < j` with a block `L_jk` (increasing), and that block's offset.
    row_ptr: Vec<usize>,
    row_col: Vec<usize>,
    row_off: Vec<usize>,
    values: Vec<f64>,
    /// Estimated flops of one numeric factorisation, and the stored entries of `L`.
    factor_flops: f64,
    nnz: usize,
    /// Estimated flops of a rank-1 update whose first non-zero block is `k` (its elimination-tree path).
    path_cost: Vec<f64>,
    /// Estimated flops of the last Hessian assembly (outer products added since [`Self::clear_values`]).
    assembly_flops: f64,
    // Scratch.
    tree_of: Vec<usize>,
    adj: Vec<Vec<usize>>,
    eliminated: Vec<bool>,
    order: Vec<usize>,
    position: Vec<usize>,
    below_tree: Vec<Vec<usize>>,
    tree_size: Vec<usize>,
    map: Vec<usize>,
    perm_x: Vec<f64>,
    /// `1 / L_ii` by permuted dof, valid while `inv_valid` (the solves multiply: a division on the substitutions'
    /// dependency chain costs several multiplications).
    inv_diag: Vec<f64>,
    inv_valid: bool,
    /// Indexed rows: `(block, permuted dof, position in the row)`, sorted by block, row `r` at
    /// `entry_range[r]`.
    entries: Vec<Entry>,
    entry_range: Vec<(usize, usize)>,
    dense_row: Vec<f64>,
    /// [`Self::add_outer`]'s pending dense sum over the entries `pending` (`n × n`, lower triangle).
    pending: Option<(usize, usize)>,
    /// Rows of [`Self::add_outer`] with `a = b` waiting to be summed into `pending_g`, [`LAZY_ROWS`] at a time:
    /// their values row by row (`lazy_x[r · n + j]` over the `n` pending dofs, zero past `lazy_n`) and weights.
    lazy_x: Vec<f64>,
    lazy_w: [f64; LAZY_ROWS],
    lazy_n: usize,
    pending_g: Vec<f64>,
    gather_a: Vec<f64>,
    gather_b: Vec<f64>,
    merge: Vec<usize>,
}

impl BlockCholesky {
    /// Number of dofs.
    pub fn nv(&self) -> usize {
        self.nv
    }

    /// Number of tree blocks.
    pub fn blocks(&self) -> usize {
        self.nblk
    }

    /// Stored entries of `L` (diagonal blocks in full).
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Estimated flops of one numeric factorisation.
    pub fn factor_flops(&self) -> f64 {
        self.factor_flops
    }

    /// Estimated flops of rebuilding the factor: the last assembly plus one factorisation.
    pub fn rebuild_cost(&self) -> f64 {
        self.factor_flops + self.assembly_flops
    }

    /// Estimated flops of a rank-1 update by a vector over the local `dofs` (the elimination-tree path from its
    /// first block).
    pub fn update_cost(&self, dofs: &[DofIndex]) -> f64 {
        dofs.iter().map(|&d| self.dof_block[self.slot[d as usize]]).min().map_or(0.0, |k| self.path_cost[k])
    }

    /// Symbolic analysis: `tree[d]` is the tree (block) of local dof `d` (trees numbered `0..ntrees`); `links`
    /// yields, for every row (or group of rows that share a Hessian block, such as an elliptic contact), the local
    /// dofs it touches. Afterwards the values are zero; fill them with [`Self::add`] and [`Self::add_outer`], then
    /// [`Self::factor`].
    pub fn analyze<'a>(&mut self, tree: &[usize], links: impl Iterator<Item = &'a [DofIndex]>) {
        let nv = tree.len();
        let ntree = tree.iter().map(|t| t + 1).max().unwrap_or(0);
        self.nv = nv;
        self.nblk = ntree;
        self.tree_of.clear();
        self.tree_of.extend_from_slice(tree);
        self.tree_size.clear();
        self.tree_size.resize(ntree, 0);
        for &t in tree {
            self.tree_size[t] += 1;
        }
        // The tree graph.
        if self.adj.len() < ntree {
            self.adj.resize_with(ntree, Vec::new);
        }
        for a in &mut self.adj[..ntree] {
            a.clear();
        }
        let mut prev: &[DofIndex] = &[];
        for dofs in links {
            // Consecutive links over the same dofs (the rows of one contact) add nothing new.
            if dofs.is_empty() || dofs == prev {
                continue;
            }
            prev = dofs;
            // The distinct trees of the link form a clique.
            let mut trees = [usize::MAX; 4];
            let mut nt = 0;
            let mut last = usize::MAX;
            for &d in dofs {
                let t = tree[d as usize];
                if t == last {
                    continue;
                }
                last = t;
                if !trees[..nt].contains(&t) {
                    if nt == trees.len() {
                        nt = usize::MAX;
                        break;
                    }
                    trees[nt] = t;
                    nt += 1;
                }
            }
            if nt == usize::MAX {
                let mut all: Vec<usize> = dofs.iter().map(|&d| tree[d as usize]).collect();
                all.sort_unstable();
                all.dedup();
                for &a in &all {
                    for &b in &all {
                        if a != b {
                            insert_sorted(&mut self.adj[a], b);
                        }
                    }
                }
            } else {
                for i in 0..nt {
                    for j in 0..nt {
                        if i != j {
                            insert_sorted(&mut self.adj[trees[i]], trees[j]);
                        }
                    }
                }
            }
        }
        self.minimum_degree(ntree);
        self.build_pattern(ntree);
    }

    /// Minimum-degree elimination on the tree graph (degree weighted by block sizes, ties to the smaller tree);
    /// records the order and, per tree, the trees below it in `L` (its neighbours when eliminated).
    fn minimum_degree(&mut self, ntree: usize) {
        self.eliminated.clear();
        self.eliminated.resize(ntree, false);
        self.order.clear();
        if self.below_tree.len() < ntree {
            self.below_tree.resize_with(ntree, Vec::new);
        }
        for _ in 0..ntree {
            let mut best = usize::MAX;
            let mut best_deg = usize::MAX;
            for t in 0..ntree {
                if self.eliminated[t] {
                    continue;
                }
                let deg: usize = self.adj[t].iter().map(|&u| self.tree_size[u]).sum();
                if deg < best_deg {
                    best_deg = deg;
                    best = t;
                }
            }
            self.eliminated[best] = true;
            self.order.push(best);
            let nbrs = std::mem::take(&mut self.adj[best]);
            for &u in &nbrs {
                // u loses `best` and gains the other neighbours (the elimination clique).
                let a = &mut self.adj[u];
                if let Ok(p) = a.binary_search(&best) {
                    a.remove(p);
                }
                self.merge.clear();
                merge_sorted(a, &nbrs, u, &mut self.merge);
                std::mem::swap(a, &mut self.merge);
            }
            let below = &mut self.below_tree[best];
            below.clear();
            below.extend_from_slice(&nbrs);
            self.adj[best] = nbrs;
            self.adj[best].clear();
        }
    }

    /// Block positions, permuted dofs and the storage of `L` from the elimination order.
    fn build_pattern(&mut self, ntree: usize) {
        self.position.clear();
        self.position.resize(ntree, 0);
        for (k, &t) in self.order.iter().enumerate() {
            self.position[t] = k;
        }
        self.bstart.clear();
        self.bstart.push(0);
        for &t in &self.order {
            let last = *self.bstart.last().unwrap_or(&0);
            self.bstart.push(last + self.tree_size[t]);
        }
        // Permuted dofs: blocks in elimination order, each tree's dofs in increasing local order.
        let mut fill: Vec<usize> = self.bstart[..ntree].to_vec();
        self.slot.clear();
        self.slot.resize(self.nv, 0);
        self.dof_block.clear();
        self.dof_block.resize(self.nv, 0);
        for d in 0..self.nv {
            let k = self.position[self.tree_of[d]];
            self.slot[d] = fill[k];
            self.dof_block[fill[k]] = k;
            fill[k] += 1;
        }
        // Column patterns in positions.
        self.diag_off.clear();
        self.col_ptr.clear();
        self.below_blk.clear();
        self.below_off.clear();
        self.col_ptr.push(0);
        let mut off = 0;
        self.factor_flops = 0.0;
        self.path_cost.clear();
        for k in 0..ntree {
            let t = self.order[k];
            let nk = self.tree_size[t];
            self.diag_off.push(off);
            off += nk * nk;
            let start = self.below_blk.len();
            for &u in &self.below_tree[t] {
                self.below_blk.push(self.position[u]);
            }
            self.below_blk[start..].sort_unstable();
            let mut rows_below = 0;
            for idx in start..self.below_blk.len() {
                let ni = self.block_size(self.below_blk[idx]);
                self.below_off.push(off);
                off += ni * nk;
                rows_below += ni;
            }
            self.col_ptr.push(self.below_blk.len());
            let (nk, rb) = (nk as f64, rows_below as f64);
            self.factor_flops += nk * nk * nk / 3.0 + rb * nk * nk + rb * rb * nk;
            // A rank-1 update through this column: ~4 flops per stored entry of the column.
            self.path_cost.push(4.0 * nk * (nk + rb));
        }
        // A rank-1 update starting at column k sweeps k and its ancestors in the elimination tree (the parent is
        // the first block below the diagonal); ancestors come later in the order, so accumulate backwards.
        for k in (0..ntree).rev() {
            if self.col_ptr[k] < self.col_ptr[k + 1] {
                let parent = self.below_blk[self.col_ptr[k]];
                self.path_cost[k] += self.path_cost[parent];
            }
        }
        self.nnz = off;
        self.values.clear();
        self.values.resize(off, 0.0);
        // Row lists.
        self.row_ptr.clear();
        self.row_ptr.resize(ntree + 1, 0);
        for &i in &self.below_blk {
            self.row_ptr[i + 1] += 1;
        }
        for j in 0..ntree {
            self.row_ptr[j + 1] += self.row_ptr[j];
        }
        self.row_col.clear();
        self.row_col.resize(self.below_blk.len(), 0);
        self.row_off.clear();
        self.row_off.resize(self.below_blk.len(), 0);
        let mut fill: Vec<usize> = self.row_ptr[..ntree].to_vec();
        for k in 0..ntree {
            for idx in self.col_ptr[k]..self.col_ptr[k + 1] {
                let i = self.below_blk[idx];
                self.row_col[fill[i]] = k;
                self.row_off[fill[i]] = self.below_off[idx];
                fill[i] += 1;
            }
        }
        self.map.clear();
        self.map.resize(ntree, usize::MAX);
    }

    fn block_size(&self, k: usize) -> usize {
        self.bstart[k + 1] - self.bstart[k]
    }

    /// Zeroes the values (same pattern).
    pub fn clear_values(&mut self) {
        self.pending = None;
        self.lazy_n = 0;
        self.assembly_flops = 0.0;
        self.values.fill(0.0);
    }

    /// The offset of entry `(p, q)` (permuted dofs, `p` in a block at or below `q`'s) or `None` outside the pattern.
    fn entry(&self, p: usize, q: usize) -> Option<usize> {
        let (bp, bq) = (self.dof_block[p], self.dof_block[q]);
        let (lp, lq) = (p - self.bstart[bp], q - self.bstart[bq]);
        let nq = self.block_size(bq);
        if bp == bq {
            return Some(self.diag_off[bq] + lp.max(lq) * nq + lp.min(lq));
        }
        let list = &self.below_blk[self.col_ptr[bq]..self.col_ptr[bq + 1]];
        let idx = list.binary_search(&bp).ok()?;
        Some(self.below_off[self.col_ptr[bq] + idx] + lp * nq + lq)
    }

    /// Adds `w` to `H[i][j]` and (for `i ≠ j`) `H[j][i]` (local dofs). Entries outside the analysed pattern are a
    /// caller bug and are ignored in release builds.
    pub fn add(&mut self, i: usize, j: usize, w: f64) {
        let (p, q) = (self.slot[i], self.slot[j]);
        let b = self.dof_block[p];
        if b == self.dof_block[q] {
            // Same tree (every mass-matrix entry): the diagonal block, lower triangle.
            let (lp, lq) = (p - self.bstart[b], q - self.bstart[b]);
            let nb = self.bstart[b + 1] - self.bstart[b];
            self.values[self.diag_off[b] + lp.max(lq) * nb + lp.min(lq)] += w;
            return;
        }
        let (p, q) =
            if self.dof_block[p] > self.dof_block[q] || (self.dof_block[p] == self.dof_block[q] && p >= q) {
                (p, q)
            } else {
                (q, p)
            };
        let off = self.entry(p, q);
        debug_assert!(off.is_some(), "entry ({i}, {j}) outside the analysed pattern");
        if let Some(off) = off {
            self.values[off] += w;
        }
    }

    /// Indexes sparse rows by block for [`Self::add_outer`] (after [`Self::analyze`]): `rows` yields each row's
    /// local dofs. Row `r`'s entries are kept sorted by block, so assembly looks every block pair up once.
    pub fn index_rows<'a>(&mut self, rows: impl Iterator<Item = &'a [DofIndex]>) {
        self.entries.clear();
        self.entry_range.clear();
        let mut prev: &[DofIndex] = &[];
        for dofs in rows {
            // Consecutive rows over the same dofs (the rows of one contact) share their index.
            if let Some(&last) = self.entry_range.last()
                && dofs == prev
            {
                self.entry_range.push(last);
                continue;
            }
            prev = dofs;
            let start = self.entries.len();
            for (k, &d) in dofs.iter().enumerate() {
                let p = self.slot[d as usize];
                self.entries.push((self.dof_block[p], p, k));
            }
            let e = &mut self.entries[start..];
            let key = |e: &Entry| (e.0, e.1);
            if !e.is_sorted_by_key(key) {
                // Contact rows list each body's dofs in decreasing order: reversed, they are one sorted run per
                // body, and two runs in the wrong order only need a rotation.
                e.reverse();
                if !e.is_sorted_by_key(key) {
                    let split = (1..e.len()).find(|&i| key(&e[i - 1]) > key(&e[i])).unwrap_or(e.len());
                    let two_runs = e[split..].is_sorted_by_key(key)
                        && e.last().zip(e.first()).is_some_and(|(l, f)| key(l) < key(f));
                    if two_runs {
                        e.rotate_left(split);
                    } else {
                        e.sort_unstable_by_key(key);
                    }
                }
            }
            self.entry_range.push((start, self.entries.len()));
        }
    }

    /// Adds the symmetric `w · (J_aᵀ J_b + J_bᵀ J_a)` (`a ≠ b`) or `w · J_aᵀ J_a` (`a = b`) for rows indexed by
    /// [`Self::index_rows`], with their Jacobian values `vals_a`, `vals_b` (in the rows' own entry order).
    ///
    /// Consecutive calls for rows over the same dofs (the rows of one contact) are summed in a small dense matrix
    /// and scattered into `L`'s blocks once ([`Self::factor`] flushes the last one).
    pub fn add_outer(&mut self, a: usize, vals_a: &[f64], b: usize, vals_b: &[f64], w: f64) {
        let (ra, rb) = (self.entry_range[a], self.entry_range[b]);
        let (na, nb) = ((ra.1 - ra.0) as f64, (rb.1 - rb.0) as f64);
        self.assembly_flops += if a == b { na * (na + 1.0) } else { 2.0 * na * nb };
        if ra != rb {
            self.flush_pending();
            let entries = std::mem::take(&mut self.entries);
            let (ea, eb) = (&entries[ra.0..ra.1], &entries[rb.0..rb.1]);
            self.add_lower(ea, vals_a, eb, vals_b, w);
            self.add_lower(eb, vals_b, ea, vals_a, w);
            self.entries = entries;
            return;
        }
        let n = ra.1 - ra.0;
        self.open_pending(ra);
        if a == b {
            let entries = &self.entries[ra.0..ra.1];
            if self.lazy_n == 0 {
                self.lazy_x.clear();
                self.lazy_x.resize(n * LAZY_ROWS, 0.0);
                self.lazy_w = [0.0; LAZY_ROWS];
            }
            let r = self.lazy_n;
            for (j, e) in entries.iter().enumerate() {
                self.lazy_x[r * n + j] = vals_a[e.2];
            }
            self.lazy_w[r] = w;
            self.lazy_n += 1;
            if self.lazy_n == LAZY_ROWS {
                self.apply_lazy();
            }
            return;
        }
        // a ≠ b over the same dofs: w (x_a x_bᵀ + x_b x_aᵀ), values in sorted entry order, lower triangle.
        self.apply_lazy();
        self.gather_a.clear();
        self.gather_b.clear();
        let entries = &self.entries[ra.0..ra.1];
        self.gather_a.extend(entries.iter().map(|e| vals_a[e.2]));
        self.gather_b.extend(entries.iter().map(|e| vals_b[e.2]));
        let g = &mut self.pending_g[..n * n];
        let (xa, xb) = (&self.gather_a[..n], &self.gather_b[..n]);
        for i in 0..n {
            let (wa, wb) = (w * xa[i], w * xb[i]);
            for ((gij, &aj), &bj) in g[i * n..i * n + i + 1].iter_mut().zip(xa).zip(xb) {
                *gij += wa * bj + wb * aj;
            }
        }
    }

    /// Adds `Xᵀ H X` for the `n = vals.len()` consecutive rows `first..first + n` (indexed by
    /// [`Self::index_rows`]), `X` their Jacobian values `vals` and `H` the symmetric leading `n × n` of `h`: the sum
    /// of [`Self::add_outer`] over the pairs `a ≤ b` with weight `H_ab`, with the rows gathered once and `X` multiplied
    /// densely (an elliptic cone's block). Rows over different dofs fall back to the pairs.
    pub fn add_block(&mut self, first: usize, vals: &[&[f64]], h: &[[f64; MAX_CONE_ROWS]; MAX_CONE_ROWS]) {
        let n = vals.len();
        let ra = self.entry_range[first];
        if n > MAX_CONE_ROWS || (1..n).any(|a| self.entry_range[first + a] != ra) {
            for a in 0..n {
                for b in a..n {
                    self.add_outer(first + a, vals[a], first + b, vals[b], h[a][b]);
                }
            }
            return;
        }
        let m = ra.1 - ra.0;
        let (nf, mf) = (n as f64, m as f64);
        self.assembly_flops += nf * mf * (mf + 1.0) + nf * (nf - 1.0) * mf * mf;
        self.open_pending(ra);
        self.apply_lazy();
        // X (n × m) in sorted entry order, then T = H X.
        let entries = &self.entries[ra.0..ra.1];
        self.gather_a.clear();
        for row in vals {
            self.gather_a.extend(entries.iter().map(|e| row[e.2]));
        }
        self.gather_b.clear();
        self.gather_b.resize(n * m, 0.0);
        let (x, t) = (&self.gather_a[..n * m], &mut self.gather_b[..n * m]);
        for (a, t_row) in t.chunks_exact_mut(m).enumerate() {
            for (b, x_row) in x.chunks_exact(m).enumerate() {
                let hab = h[a][b];
                for (tj, &xj) in t_row.iter_mut().zip(x_row) {
                    *tj += hab * xj;
                }
            }
        }
        // G += Xᵀ T, lower triangle.
        let g = &mut self.pending_g[..m * m];
        for (x_row, t_row) in x.chunks_exact(m).zip(t.chunks_exact(m)) {
            for (i, &xi) in x_row.iter().enumerate() {
                for (gij, &tj) in g[i * m..i * m + i + 1].iter_mut().zip(t_row) {
                    *gij += xi * tj;
                }
            }
        }
    }

    /// Makes the entries `range` the pending dense sum, scattering the previous one first.
    fn open_pending(&mut self, range: (usize, usize)) {
        if self.pending != Some(range) {
            self.flush_pending();
            let n = range.1 - range.0;
            self.pending = Some(range);
            self.pending_g.clear();
            self.pending_g.resize(n * n, 0.0);
        }
    }

    /// Sums the waiting rows into `pending_g`: `G_ij += Σ_r w_r x_ri x_rj` (lower triangle).
    fn apply_lazy(&mut self) {
        if self.lazy_n == 0 {
            return;
        }
        self.lazy_n = 0;
        let Some((r0, r1)) = self.pending else { return };
        let m = r1 - r0;
        let (x, w) = (&self.lazy_x[..m * LAZY_ROWS], self.lazy_w);
        let g = &mut self.pending_g[..m * m];
        // One free body (6 dofs) or two (12): sizes known at compile time, so the triangle unrolls.
        match m {
            6 => lazy_rank4::<6>(g, x, w),
            12 => lazy_rank4::<12>(g, x, w),
            _ => lazy_rank4_dyn(g, x, w, m),
        }
    }

    /// Scatters the pending dense sum of [`Self::add_outer`] and [`Self::add_block`] into the blocks of `L`.
    fn flush_pending(&mut self) {
        self.apply_lazy();
        let Some((r0, r1)) = self.pending.take() else { return };
        let n = r1 - r0;
        let e = &self.entries[r0..r1];
        let mut i = 0;
        while i < n {
            let bp = e[i].0;
            let mut ie = i;
            while ie < n && e[ie].0 == bp {
                ie += 1;
            }
            let p0 = self.bstart[bp];
            let mut j = 0;
            while j < ie {
                let bq = e[j].0;
                let mut je = j;
                while je < ie && e[je].0 == bq {
                    je += 1;
                }
                let (q0, nq) = (self.bstart[bq], self.bstart[bq + 1] - self.bstart[bq]);
                let base = if bp == bq {
                    Some(self.diag_off[bq])
                } else {
                    let list = &self.below_blk[self.col_ptr[bq]..self.col_ptr[bq + 1]];
                    list.binary_search(&bp).ok().map(|idx| self.below_off[self.col_ptr[bq] + idx])
                };
                debug_assert!(base.is_some(), "block ({bp}, {bq}) outside the analysed pattern");
                // The usual case: the segment's dofs are consecutive (a body's), so each row of the triangle is
                // one contiguous add.
                let qa = e[j].1;
                if let Some(base) = base
                    && e[j..je].windows(2).all(|w| w[1].1 == w[0].1 + 1)
                {
                    for (ii, &(_, p, _)) in e.iter().enumerate().take(ie).skip(i) {
                        let len = je.min(ii + 1) - j;
                        let row = base + (p - p0) * nq + (qa - q0);
                        let g = &self.pending_g[ii * n + j..ii * n + j + len];
                        for (v, &gv) in self.values[row..row + len].iter_mut().zip(g) {
                            *v += gv;
                        }
                    }
                } else if let Some(base) = base {
                    for (ii, &(_, p, _)) in e.iter().enumerate().take(ie).skip(i) {
                        let row = base + (p - p0) * nq;
                        for (jj, &(_, q, _)) in e.iter().enumerate().take(je.min(ii + 1)).skip(j) {
                            // A dof listed twice in the row: its cross term appears once in the triangle.
                            let twice = if ii != jj && p == q { 2.0 } else { 1.0 };
                            self.values[row + q - q0] += twice * self.pending_g[ii * n + jj];
                        }
                    }
                }
                j = je;
            }
            i = ie;
        }
    }

    /// Adds `w · x yᵀ` restricted to the lower triangle (entries `(p, q)` with `p` at or below `q`), for `x`, `y`
    /// sorted by block. Each block segment of `y` is scattered into a dense block row first, so the update of each
    /// block row is one contiguous axpy.
    fn add_lower(&mut self, x: &[Entry], xv: &[f64], y: &[Entry], yv: &[f64], w: f64) {
        let mut ys = 0;
        while ys < y.len() {
            let bq = y[ys].0;
            let mut ye = ys;
            while ye < y.len() && y[ye].0 == bq {
                ye += 1;
            }
            let nq = self.block_size(bq);
            let q0 = self.bstart[bq];
            self.dense_row.clear();
            self.dense_row.resize(nq, 0.0);
            for &(_, q, ky) in &y[ys..ye] {
                self.dense_row[q - q0] += yv[ky];
            }
            let mut xs = 0;
            while xs < x.len() {
                let bp = x[xs].0;
                let mut xe = xs;
                while xe < x.len() && x[xe].0 == bp {
                    xe += 1;
                }
                if bp >= bq {
                    let base = if bp == bq {
                        Some(self.diag_off[bq])
                    } else {
                        let list = &self.below_blk[self.col_ptr[bq]..self.col_ptr[bq + 1]];
                        list.binary_search(&bp).ok().map(|idx| self.below_off[self.col_ptr[bq] + idx])
                    };
                    debug_assert!(base.is_some(), "block ({bp}, {bq}) outside the analysed pattern");
                    if let Some(base) = base {
                        let p0 = self.bstart[bp];
                        for &(_, p, kx) in &x[xs..xe] {
                            let wx = w * xv[kx];
                            let row = base + (p - p0) * nq;
                            // Diagonal blocks keep their lower triangle: columns up to p.
                            let len = if bp == bq { p - p0 + 1 } else { nq };
                            let dst = &mut self.values[row..row + len];
                            for (d, &yq) in dst.iter_mut().zip(&self.dense_row[..len]) {
                                *d += wx * yq;
                            }
                        }
                    }
                }
                xs = xe;
            }
            ys = ye;
        }
    }

    /// Numeric factorisation of the assembled values in place. Returns the number of floored pivots.
    pub fn factor(&mut self) -> usize {
        self.flush_pending();
        self.inv_valid = false;
        let mut floored = 0;
        let values = &mut self.values;
        for j in 0..self.nblk {
            let nj = self.bstart[j + 1] - self.bstart[j];
            let dj = self.diag_off[j];
            for idx in self.col_ptr[j]..self.col_ptr[j + 1] {
                self.map[self.below_blk[idx]] = self.below_off[idx];
            }
            // Left-looking: subtract L_jk L_ikᵀ for every earlier column k with a block in row j.
            for r in self.row_ptr[j]..self.row_ptr[j + 1] {
                let k = self.row_col[r];
                let nk = self.bstart[k + 1] - self.bstart[k];
                let ljk = self.row_off[r];
                // Diagonal: A_jj −= L_jk L_jkᵀ (the whole block; only its lower triangle is read).
                let (head, tail) = values.split_at_mut(ljk.max(dj));
                if ljk < dj {
                    sub_mul_nt(
                        &mut tail[..nj * nj],
                        &head[ljk..ljk + nj * nk],
                        &head[ljk..ljk + nj * nk],
                        nj,
                        nj,
                        nk,
                    );
                } else {
                    sub_mul_nt(&mut head[dj..dj + nj * nj], &tail[..nj * nk], &tail[..nj * nk], nj, nj, nk);
                }
                // Below: A_ij −= L_ik L_jkᵀ for the blocks of column k below row j.
                let list = &self.below_blk[self.col_ptr[k]..self.col_ptr[k + 1]];
                let from = list.partition_point(|&i| i <= j);
                for idx in self.col_ptr[k] + from..self.col_ptr[k + 1] {
                    let i = self.below_blk[idx];
                    let ni = self.bstart[i + 1] - self.bstart[i];
                    let lik = self.below_off[idx];
                    let aij = self.map[i];
                    debug_assert!(aij != usize::MAX, "fill block ({i}, {j}) missing from the pattern");
                    // A_ij lies in column j, after every block of the earlier column k.
                    let (head, tail) = values.split_at_mut(aij);
                    sub_mul_nt(
                        &mut tail[..ni * nj],
                        &head[lik..lik + ni * nk],
                        &head[ljk..ljk + nj * nk],
                        ni,
                        nj,
                        nk,
                    );
                }
            }
            // Dense Cholesky of the diagonal block.
            for a in 0..nj {
                for b in 0..a {
                    let mut s = values[dj + a * nj + b];
                    for c in 0..b {
                        s -= values[dj + a * nj + c] * values[dj + b * nj + c];
                    }
                    values[dj + a * nj + b] = s / values[dj + b * nj + b];
                }
                let mut pivot = values[dj + a * nj + a];
                for c in 0..a {
                    pivot -= values[dj + a * nj + c] * values[dj + a * nj + c];
                }
                if !(pivot > PIVOT_FLOOR) {
                    pivot = PIVOT_FLOOR;
                    floored += 1;
                }
                values[dj + a * nj + a] = pivot.sqrt();
            }
            // Below blocks: L_ij = A_ij L_jj⁻ᵀ (forward substitution on each row).
            for idx in self.col_ptr[j]..self.col_ptr[j + 1] {
                let i = self.below_blk[idx];
                let ni = self.bstart[i + 1] - self.bstart[i];
                let off = self.below_off[idx];
                for a in 0..ni {
                    for b in 0..nj {
                        let mut s = values[off + a * nj + b];
                        for c in 0..b {
                            s -= values[off + a * nj + c] * values[dj + b * nj + c];
                        }
                        values[off + a * nj + b] = s / values[dj + b * nj + b];
                    }
                }
                self.map[i] = usize::MAX;
            }
        }
        floored
    }

    /// Solves `L Lᵀ x = b` in place (`x` holds `b`, local dof order).
    pub fn solve(&mut self, x: &mut [f64]) {
        if !self.inv_valid {
            self.inv_diag.clear();
            for k in 0..self.nblk {
                let (nk, dk) = (self.bstart[k + 1] - self.bstart[k], self.diag_off[k]);
                self.inv_diag.extend((0..nk).map(|a| 1.0 / self.values[dk + a * nk + a]));
            }
            self.inv_valid = true;
        }
        let y = &mut self.perm_x;
        y.clear();
        y.resize(self.nv, 0.0);
        for (d, &v) in x.iter().enumerate() {
            y[self.slot[d]] = v;
        }
        let (v, inv) = (&self.values, &self.inv_diag);
        for k in 0..self.nblk {
            let (s, nk, dk) = (self.bstart[k], self.bstart[k + 1] - self.bstart[k], self.diag_off[k]);
            let diag = &v[dk..dk + nk * nk];
            for a in 0..nk {
                let row = &diag[a * nk..a * nk + a];
                let acc = y[s + a] - row.iter().zip(&y[s..s + a]).map(|(l, yc)| l * yc).sum::<f64>();
                y[s + a] = acc * inv[s + a];
            }
            let (head, tail) = y.split_at_mut(s + nk);
            let yk = &head[s..];
            for idx in self.col_ptr[k]..self.col_ptr[k + 1] {
                let i = self.below_blk[idx];
                let (si, ni, off) =
                    (self.bstart[i], self.bstart[i + 1] - self.bstart[i], self.below_off[idx]);
                let block = &v[off..off + ni * nk];
                for (yi, row) in tail[si - s - nk..si - s - nk + ni].iter_mut().zip(block.chunks_exact(nk)) {
                    *yi -= row.iter().zip(yk).map(|(l, yc)| l * yc).sum::<f64>();
                }
            }
        }
        for k in (0..self.nblk).rev() {
            let (s, nk, dk) = (self.bstart[k], self.bstart[k + 1] - self.bstart[k], self.diag_off[k]);
            let (head, tail) = y.split_at_mut(s + nk);
            let yk = &mut head[s..];
            for idx in self.col_ptr[k]..self.col_ptr[k + 1] {
                let i = self.below_blk[idx];
                let (si, ni, off) =
                    (self.bstart[i], self.bstart[i + 1] - self.bstart[i], self.below_off[idx]);
                let block = &v[off..off + ni * nk];
                for (&yi, row) in tail[si - s - nk..si - s - nk + ni].iter().zip(block.chunks_exact(nk)) {
                    for (yc, l) in yk.iter_mut().zip(row) {
                        *yc -= l * yi;
                    }
                }
            }
            let diag = &v[dk..dk + nk * nk];
            for a in (0..nk).rev() {
                let mut acc = yk[a];
                for c in a + 1..nk {
                    acc -= diag[c * nk + a] * yk[c];
                }
                yk[a] = acc * inv[s + a];
            }
        }
        for (d, xd) in x.iter_mut().enumerate() {
            *xd = y[self.slot[d]];
        }
    }

    /// Updates `L` to the factor of `H + σ v vᵀ` (`sigma` = +1 update, −1 downdate), `v` given sparsely as
    /// `(dofs, vals)` scaled by `scale` (local dofs). `v`'s dofs must lie in trees linked by the analysis. On a
    /// degenerate downdate `L` is left partially updated and the caller must refactor.
    pub fn rank_one(
        &mut self,
        dofs: &[DofIndex],
        vals: &[f64],
        scale: f64,
        sigma: f64,
    ) -> Result<(), Degenerate> {
        self.inv_valid = false;
        let y = &mut self.perm_x;
        y.clear();
        y.resize(self.nv, 0.0);
        let mut first = usize::MAX;
        for (&d, &v) in dofs.iter().zip(vals) {
            let p = self.slot[d as usize];
            y[p] += scale * v;
            first = first.min(self.dof_block[p]);
        }
        if first == usize::MAX {
            return Ok(());
        }
        let v = &mut self.values;
        for k in first..self.nblk {
            let (s, nk, dk) = (self.bstart[k], self.bstart[k + 1] - self.bstart[k], self.diag_off[k]);
            if y[s..s + nk].iter().all(|&t| t == 0.0) {
                continue;
            }
            for c in 0..nk {
                let yc = y[s + c];
                if yc.abs() < EPS {
                    continue;
                }
                let lcc = v[dk + c * nk + c];
                let t = lcc * lcc + sigma * yc * yc;
                if t < EPS {
                    return Err(Degenerate);
                }
                let r = t.sqrt();
                let (cs, sn) = (r / lcc, yc / lcc);
                v[dk + c * nk + c] = r;
                for a in c + 1..nk {
                    let l = (v[dk + a * nk + c] + sigma * sn * y[s + a]) / cs;
                    v[dk + a * nk + c] = l;
                    y[s + a] = cs * y[s + a] - sn * l;
                }
                for idx in self.col_ptr[k]..self.col_ptr[k + 1] {
                    let i = self.below_blk[idx];
                    let (si, ni, off) =
                        (self.bstart[i], self.bstart[i + 1] - self.bstart[i], self.below_off[idx]);
                    for a in 0..ni {
                        let l = (v[off + a * nk + c] + sigma * sn * y[si + a]) / cs;
                        v[off + a * nk + c] = l;
                        y[si + a] = cs * y[si + a] - sn * l;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `C −= A Bᵀ` for row-major `C` (`m × n`), `A` (`m × k`) and `B` (`n × k`); the 6 × 6 × 6 case of free bodies
/// runs on fixed-size arrays so that it is unrolled and vectorised.
#[inline]
fn sub_mul_nt(c: &mut [f64], a: &[f64], b: &[f64], m: usize, n: usize, k: usize) {
    if let (6, 6, 6, Ok(c), Ok(a), Ok(b)) =
        (m, n, k, <&mut [f64; 36]>::try_from(&mut *c), <&[f64; 36]>::try_from(a), <&[f64; 36]>::try_from(b))
    {
        for i in 0..6 {
            for j in 0..6 {
                let mut s = 0.0;
                for l in 0..6 {
                    s += a[i * 6 + l] * b[j * 6 + l];
                }
                c[i * 6 + j] -= s;
            }
        }
        return;
    }
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for l in 0..k {
                s += a[i * k + l] * b[j * k + l];
            }
            c[i * n + j] -= s;
        }
    }
}

/// Inserts `v` into the sorted `list` unless present.
fn insert_sorted(list: &mut Vec<usize>, v: usize) {
    if let Err(p) = list.binary_search(&v) {
        list.insert(p, v);
    }
}

/// `out = a ∪ (b \ {skip})`, both sorted.
fn merge_sorted(a: &[usize], b: &[usize], skip: usize, out: &mut Vec<usize>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if j < b.len() && b[j] == skip {
            j += 1;
            continue;
        }
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (Some(&x), Some(&y)) if x > y => {
                j += 1;
                y
            }
            (Some(&x), Some(_)) => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (None, Some(&y)) => {
                j += 1;
                y
            }
            (None, None) => break,
        };
        out.push(next);
    }
}

/// `G_ij += Σ_r w_r x_ri x_rj` over the lower triangle of the `N × N` `g`, `x` holding the four rows one after the
/// other (`x[r · N + j]`). Each entry sums its four products as `(w₀x₀ᵢx₀ⱼ + w₁x₁ᵢx₁ⱼ) + (w₂x₂ᵢx₂ⱼ + w₃x₃ᵢx₃ⱼ)`,
/// as [`lazy_rank4_dyn`] does.
#[inline(always)]
fn lazy_rank4<const N: usize>(g: &mut [f64], x: &[f64], w: [f64; LAZY_ROWS]) {
    let (g, x) = (&mut g[..N * N], &x[..4 * N]);
    for i in 0..N {
        let wx = [w[0] * x[i], w[1] * x[N + i], w[2] * x[2 * N + i], w[3] * x[3 * N + i]];
        for j in 0..=i {
            g[i * N + j] += (wx[0] * x[j] + wx[1] * x[N + j]) + (wx[2] * x[2 * N + j] + wx[3] * x[3 * N + j]);
        }
    }
}

/// [`lazy_rank4`] for any size `m`.
fn lazy_rank4_dyn(g: &mut [f64], x: &[f64], w: [f64; LAZY_ROWS], m: usize) {
    let (x0, rest) = x.split_at(m);
    let (x1, rest) = rest.split_at(m);
    let (x2, x3) = rest.split_at(m);
    for i in 0..m {
        let wx = [w[0] * x0[i], w[1] * x1[i], w[2] * x2[i], w[3] * x3[i]];
        let k = i + 1;
        let (row, a, b, c, d) = (&mut g[i * m..i * m + k], &x0[..k], &x1[..k], &x2[..k], &x3[..k]);
        for j in 0..k {
            row[j] += (wx[0] * a[j] + wx[1] * b[j]) + (wx[2] * c[j] + wx[3] * d[j]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::{cholesky_in_place, cholesky_solve};

    /// A deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
        fn below(&mut self, n: usize) -> usize {
            (((self.next() + 1.0) * 0.5 * n as f64) as usize).min(n - 1)
        }
    }

    /// Sparse rows `(dofs, values)`.
    type Rows = Vec<(Vec<DofIndex>, Vec<f64>)>;

    /// A random problem: `ntree` trees of 1–7 dofs, `nrows` rows over one to three trees each.
    fn problem(seed: u64, ntree: usize, nrows: usize) -> (Vec<usize>, Rows) {
        problem_with(seed, ntree, nrows, None)
    }

    /// [`problem`] with every tree of `size` dofs when given (free bodies: 6).
    fn problem_with(seed: u64, ntree: usize, nrows: usize, size: Option<usize>) -> (Vec<usize>, Rows) {
        let mut rng = Rng(seed);
        let mut tree = Vec::new();
        let mut tree_dofs = Vec::new();
        for t in 0..ntree {
            let n = size.unwrap_or_else(|| 1 + rng.below(7));
            tree_dofs.push((tree.len() as DofIndex..(tree.len() + n) as DofIndex).collect::<Vec<_>>());
            tree.extend(std::iter::repeat_n(t, n));
        }
        let mut rows = Vec::new();
        for _ in 0..nrows {
            let k = 1 + rng.below(3);
            let mut dofs = Vec::new();
            for _ in 0..k {
                let t = rng.below(ntree);
                for &d in &tree_dofs[t] {
                    if !dofs.contains(&d) && rng.next() > -0.5 {
                        dofs.push(d);
                    }
                }
            }
            let vals = dofs.iter().map(|_| rng.next()).collect();
            rows.push((dofs, vals));
        }
        (tree, rows)
    }

    /// The dense `H = diag-dominant tree blocks + Σ d JᵀJ` over the rows in `active`.
    fn dense(tree: &[usize], rows: &[(Vec<DofIndex>, Vec<f64>)], active: &[bool], seed: u64) -> Vec<f64> {
        let n = tree.len();
        let mut rng = Rng(seed);
        let mut h = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                if tree[i] == tree[j] {
                    let v = if i == j { 4.0 + rng.next() } else { 0.3 * rng.next() };
                    h[i * n + j] = v;
                    h[j * n + i] = v;
                }
            }
        }
        for (r, (dofs, vals)) in rows.iter().enumerate() {
            if !active[r] {
                continue;
            }
            let d = 1.0 + r as f64 * 0.01;
            for (&p, &vp) in dofs.iter().zip(vals) {
                for (&q, &vq) in dofs.iter().zip(vals) {
                    h[p as usize * n + q as usize] += d * vp * vq;
                }
            }
        }
        h
    }

    fn factor_of(tree: &[usize], rows: &[(Vec<DofIndex>, Vec<f64>)], h: &[f64]) -> BlockCholesky {
        let n = tree.len();
        let mut f = BlockCholesky::default();
        f.analyze(tree, rows.iter().map(|r| &r.0[..]));
        for i in 0..n {
            for j in 0..=i {
                if h[i * n + j] != 0.0 {
                    f.add(i, j, h[i * n + j]);
                }
            }
        }
        f.factor();
        f
    }

    fn check_solve(f: &mut BlockCholesky, h: &[f64], seed: u64) {
        let n = f.nv();
        let mut rng = Rng(seed);
        let b: Vec<f64> = (0..n).map(|_| rng.next()).collect();
        let mut x = b.clone();
        f.solve(&mut x);
        let mut l = h.to_vec();
        let mut inv = vec![0.0; n];
        cholesky_in_place(&mut l, n, &mut inv);
        let mut xd = b.clone();
        cholesky_solve(&l, &inv, n, &mut xd);
        let scale = xd.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for i in 0..n {
            assert!((x[i] - xd[i]).abs() < 1e-10 * scale, "x[{i}] = {} vs dense {}", x[i], xd[i]);
        }
    }

    /// Every row active: the factor of `problem` solves like the dense factor.
    fn check_all_active(seed: u64, (tree, rows): (Vec<usize>, Rows)) {
        let active = vec![true; rows.len()];
        let h = dense(&tree, &rows, &active, seed + 100);
        let mut f = factor_of(&tree, &rows, &h);
        check_solve(&mut f, &h, seed + 200);
    }

    #[test]
    fn factor_and_solve_match_dense() {
        for seed in 1..40u64 {
            check_all_active(seed, problem(seed, 2 + (seed as usize % 12), seed as usize % 25));
        }
    }

    #[test]
    fn free_body_blocks_match_dense() {
        for seed in 1..20u64 {
            check_all_active(
                seed,
                problem_with(seed, 3 + (seed as usize % 15), 10 + seed as usize % 30, Some(6)),
            );
        }
    }

    #[test]
    fn add_outer_assembles_the_same_matrix() {
        let (tree, rows) = problem(7, 9, 20);
        let n = tree.len();
        let active = vec![true; rows.len()];
        let h = dense(&tree, &rows, &active, 3);
        let mut f = BlockCholesky::default();
        f.analyze(&tree, rows.iter().map(|r| &r.0[..]));
        let m = dense(&tree, &rows, &vec![false; rows.len()], 3);
        for i in 0..n {
            for j in 0..=i {
                if m[i * n + j] != 0.0 {
                    f.add(i, j, m[i * n + j]);
                }
            }
        }
        f.index_rows(rows.iter().map(|r| &r.0[..]));
        for (r, (_, vals)) in rows.iter().enumerate() {
            f.add_outer(r, vals, r, vals, 1.0 + r as f64 * 0.01);
        }
        f.factor();
        check_solve(&mut f, &h, 11);
    }

    /// A block of three rows over the same dofs with a symmetric 3 × 3 weight (an elliptic cone's Hessian), next to
    /// single rows: the factor solves like the dense `M + Σ D JᵀJ + Xᵀ H X`.
    #[test]
    fn add_block_assembles_the_cone_block() {
        let tree = vec![0, 0, 0, 1, 1, 1, 2, 2];
        let n = tree.len();
        let block_dofs = vec![5, 4, 3, 2, 1, 0];
        let x = [
            vec![0.3, -1.2, 0.5, 0.8, 0.1, -0.4],
            vec![1.1, 0.2, -0.7, 0.05, 0.9, 0.3],
            vec![-0.6, 0.4, 0.2, -1.0, 0.35, 0.7],
        ];
        let mut hc = [[0.0; MAX_CONE_ROWS]; MAX_CONE_ROWS];
        let h3 = [[2.0, 0.3, -0.4], [0.3, 1.5, 0.2], [-0.4, 0.2, 1.2]];
        for a in 0..3 {
            hc[a][..3].copy_from_slice(&h3[a]);
        }
        let single = (vec![7, 6, 2], vec![0.5, -0.3, 0.9]);
        let rows: Rows = vec![
            (block_dofs.clone(), x[0].clone()),
            (block_dofs.clone(), x[1].clone()),
            (block_dofs.clone(), x[2].clone()),
            single.clone(),
        ];
        // Dense reference: a diagonal M, the block and the single row (weight 0.8).
        let mut h = vec![0.0; n * n];
        for i in 0..n {
            h[i * n + i] = 1.0 + 0.1 * i as f64;
        }
        for a in 0..3 {
            for b in 0..3 {
                for (p, &dp) in block_dofs.iter().enumerate() {
                    for (q, &dq) in block_dofs.iter().enumerate() {
                        h[dp as usize * n + dq as usize] += h3[a][b] * x[a][p] * x[b][q];
                    }
                }
            }
        }
        for (p, &dp) in single.0.iter().enumerate() {
            for (q, &dq) in single.0.iter().enumerate() {
                h[dp as usize * n + dq as usize] += 0.8 * single.1[p] * single.1[q];
            }
        }
        let mut f = BlockCholesky::default();
        f.analyze(&tree, [&block_dofs[..], &single.0[..]].into_iter());
        for i in 0..n {
            f.add(i, i, 1.0 + 0.1 * i as f64);
        }
        f.index_rows(rows.iter().map(|r| &r.0[..]));
        f.add_block(0, &[&x[0], &x[1], &x[2]], &hc);
        f.add_outer(3, &single.1, 3, &single.1, 0.8);
        f.factor();
        check_solve(&mut f, &h, 5);
    }

    /// Six rows over the same dofs added one by one (summed four at a time) and a row over other dofs in between
    /// solve like the dense `M + Σ D JᵀJ`.
    #[test]
    fn many_rows_over_the_same_dofs_assemble_the_same_matrix() {
        let tree = vec![0, 0, 1, 1, 1];
        let n = tree.len();
        let dofs = vec![4, 3, 2, 1, 0];
        let mut rng = Rng(17);
        let mut rows: Rows = (0..6).map(|_| (dofs.clone(), (0..5).map(|_| rng.next()).collect())).collect();
        rows.insert(3, (vec![3, 2], vec![0.4, -0.9]));
        let weights: Vec<f64> = (0..rows.len()).map(|r| 0.5 + 0.25 * r as f64).collect();
        let mut h = vec![0.0; n * n];
        for i in 0..n {
            h[i * n + i] = 2.0;
        }
        for ((d, v), w) in rows.iter().zip(&weights) {
            for (p, &dp) in d.iter().enumerate() {
                for (q, &dq) in d.iter().enumerate() {
                    h[dp as usize * n + dq as usize] += w * v[p] * v[q];
                }
            }
        }
        let mut f = BlockCholesky::default();
        f.analyze(&tree, rows.iter().map(|r| &r.0[..]));
        for i in 0..n {
            f.add(i, i, 2.0);
        }
        f.index_rows(rows.iter().map(|r| &r.0[..]));
        for (r, ((_, v), w)) in rows.iter().zip(&weights).enumerate() {
            f.add_outer(r, v, r, v, *w);
        }
        f.factor();
        check_solve(&mut f, &h, 9);
    }

    #[test]
    fn rows_sharing_dofs_or_listing_a_dof_twice_assemble_exactly() {
        // Trees {0,1,2} and {3,4}; rows 0 and 1 share dofs (summed together), row 2 lists dof 1 twice.
        let tree = vec![0, 0, 0, 1, 1];
        let rows: Rows = vec![
            (vec![4, 3, 1, 0], vec![0.5, -1.0, 2.0, 0.3]),
            (vec![4, 3, 1, 0], vec![1.5, 0.2, -0.7, 1.1]),
            (vec![1, 2, 1, 3], vec![0.4, 0.9, 0.6, -0.8]),
        ];
        let n = tree.len();
        let mut h = vec![0.0; n * n];
        for i in 0..n {
            h[i * n + i] = 3.0;
        }
        let mut f = BlockCholesky::default();
        f.analyze(&tree, rows.iter().map(|r| &r.0[..]));
        f.index_rows(rows.iter().map(|r| &r.0[..]));
        for i in 0..n {
            f.add(i, i, 3.0);
        }
        for (r, (dofs, vals)) in rows.iter().enumerate() {
            let d = 1.0 + r as f64;
            f.add_outer(r, vals, r, vals, d);
            for (&p, &vp) in dofs.iter().zip(vals) {
                for (&q, &vq) in dofs.iter().zip(vals) {
                    h[p as usize * n + q as usize] += d * vp * vq;
                }
            }
        }
        // A cross term between the two rows over the same dofs.
        f.add_outer(0, &rows[0].1, 1, &rows[1].1, 0.25);
        for (&p, &vp) in rows[0].0.iter().zip(&rows[0].1) {
            for (&q, &vq) in rows[1].0.iter().zip(&rows[1].1) {
                h[p as usize * n + q as usize] += 0.25 * vp * vq;
                h[q as usize * n + p as usize] += 0.25 * vp * vq;
            }
        }
        f.factor();
        check_solve(&mut f, &h, 3);
    }

    #[test]
    fn rank_one_updates_match_refactorisation() {
        for seed in 1..30u64 {
            let (tree, rows) = problem(seed, 3 + (seed as usize % 10), 5 + seed as usize % 20);
            let mut rng = Rng(seed * 31 + 7);
            let mut active: Vec<bool> = rows.iter().map(|_| rng.next() > 0.0).collect();
            let h = dense(&tree, &rows, &active, seed);
            let mut f = factor_of(&tree, &rows, &h);
            // Flip a few rows: activate inactive ones (update) and deactivate active ones (downdate).
            for _ in 0..4 {
                let r = rng.below(rows.len());
                let d = 1.0 + r as f64 * 0.01;
                let sigma = if active[r] { -1.0 } else { 1.0 };
                active[r] = !active[r];
                f.rank_one(&rows[r].0, &rows[r].1, d.sqrt(), sigma).expect("well-conditioned downdate");
            }
            let h = dense(&tree, &rows, &active, seed);
            check_solve(&mut f, &h, seed + 5);
        }
    }

    #[test]
    fn a_chain_of_trees_has_no_fill_under_minimum_degree() {
        // Trees 0–1–2–…–9 in a path: minimum degree eliminates from the ends, so L has one block per column.
        let tree: Vec<usize> = (0..10).flat_map(|t| [t, t]).collect();
        let links: Vec<Vec<DofIndex>> = (0..9).map(|t| vec![2 * t, 2 * t + 2]).collect();
        let mut f = BlockCholesky::default();
        f.analyze(&tree, links.iter().map(|l| &l[..]));
        assert_eq!(f.blocks(), 10);
        assert_eq!(f.below_blk.len(), 9);
    }

    #[test]
    fn a_degenerate_downdate_is_reported() {
        let tree = vec![0, 1];
        let rows = [(vec![0, 1], vec![1.0, 1.0])];
        let h = [1.0, 0.0, 0.0, 1.0];
        let mut f = factor_of(&tree, &rows, &h);
        assert_eq!(f.rank_one(&rows[0].0, &rows[0].1, 2.0, -1.0), Err(Degenerate));
    }
}
