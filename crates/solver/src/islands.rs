//! Islands (`reference-semantics.md` §C.6, G-W `constraint/island.py`): the connected components of the dofs
//! linked by the kinematic trees (`dof_parentid`) and by the rows (every row links the dofs of its Jacobian; the
//! rows of an elliptic contact stay together). Components without rows are left out: their dofs are
//! unconstrained. Islands are numbered by their smallest dof; their dofs are increasing and their rows keep the
//! order of [`ConstraintRows`].

use signorini_constraints::{ConstraintRows, RowKind};
use signorini_model::Model;

/// The islands of one set of rows.
#[derive(Debug, Clone, Default)]
pub struct Islands {
    /// The island of each dof (`None`: no row reaches it). Island and tree indices are kept in 32 bits (half the
    /// bytes of an `Option<usize>`): there are at most as many as dofs, which the rows index in 32 bits
    /// ([`signorini_constraints::DofIndex`]; the assembler refuses larger models).
    pub dof_island: Vec<Option<u32>>,
    /// Rows without any Jacobian entry (constant residual; in no island).
    pub free_rows: Vec<usize>,
    dof_start: Vec<usize>,
    dofs: Vec<usize>,
    row_start: Vec<usize>,
    rows: Vec<usize>,
    /// Union-find parent of each tree.
    parent: Vec<usize>,
    /// The island of each tree (`None`: no row reaches it).
    tree_island: Vec<Option<u32>>,
    /// A tree of each row's component (`None`: the row has no Jacobian entry).
    row_root: Vec<Option<u32>>,
    label: Vec<usize>,
    has_row: Vec<bool>,
    /// Whether each row starts a run of rows over the same dofs.
    group_start: Vec<bool>,
    /// Counting-sort cursors.
    fill: Vec<usize>,
}

impl Islands {
    /// Computes the islands of `rows` over the dofs of `model`.
    pub fn build(&mut self, model: &Model, rows: &ConstraintRows) {
        let mut groups = Vec::new();
        rows.dof_groups(&mut groups);
        self.build_with_groups(model, rows, &groups);
    }

    /// [`Self::build`] with the runs of rows over the same dofs already known (`groups` from
    /// [`ConstraintRows::dof_groups`], covering every row): only the first row of a run is looked at.
    pub fn build_with_groups(&mut self, model: &Model, rows: &ConstraintRows, groups: &[(usize, usize)]) {
        let (nv, ntree) = (model.nv, model.ntree);
        let tree = &model.dof_treeid;
        // Union-find over kinematic trees: the dofs of one tree are always linked.
        self.parent.clear();
        self.parent.extend(0..ntree);
        // Each run of rows over the same dofs links the trees of its dofs; its rows remember the first tree.
        self.row_root.clear();
        self.row_root.resize(rows.len(), None);
        self.group_start.clear();
        self.group_start.resize(rows.len(), false);
        let mut empty_rows = 0;
        for &(first, n) in groups {
            self.group_start[first] = true;
            let dofs = rows.jacobian_row(first).0;
            let Some(&k0) = dofs.first() else {
                empty_rows += n;
                continue;
            };
            let f = tree[k0 as usize];
            let mut last = f;
            for &k in &dofs[1..] {
                let t = tree[k as usize];
                if t != last {
                    last = t;
                    self.union(f, t);
                }
            }
            self.row_root[first..first + n].fill(Some(f as u32));
        }
        // The rows of an elliptic contact stay together, rows without entries included.
        for (&i, &len) in rows.contact_row_start.iter().zip(&rows.contact_nrows) {
            if len < 2 || rows.kind[i] != RowKind::ContactElliptic {
                continue;
            }
            let Some(f) = self.row_root[i..i + len].iter().flatten().next().copied() else { continue };
            for r in i..i + len {
                if let Some(t) = self.row_root[r].replace(f)
                    && t != f
                {
                    self.union(f as usize, t as usize);
                }
            }
        }
        // Mark the components that hold a row, one lookup per run: its rows share their tree, or (rows of an
        // elliptic block) are linked to it.
        self.has_row.clear();
        self.has_row.resize(ntree, false);
        let mut previous = None;
        for &(first, _) in groups {
            let t = self.row_root[first];
            if t == previous {
                continue;
            }
            previous = t;
            if let Some(t) = t {
                let root = self.find(t as usize);
                self.has_row[root] = true;
            }
        }
        // Label the components by smallest dof: trees are numbered in the order of their smallest (root) dof.
        self.label.clear();
        self.label.resize(ntree, usize::MAX);
        self.tree_island.clear();
        let mut count = 0;
        for t in 0..ntree {
            let root = self.find(t);
            if !self.has_row[root] {
                self.tree_island.push(None);
                continue;
            }
            if self.label[root] == usize::MAX {
                self.label[root] = count;
                count += 1;
            }
            self.tree_island.push(Some(self.label[root] as u32));
        }
        self.dof_island.clear();
        self.dof_island.extend(tree[..nv].iter().map(|&t| self.tree_island[t]));
        // Bucket dofs and rows by island (counting sort keeps the order).
        self.dof_start.clear();
        self.dof_start.resize(count + 1, 0);
        self.row_start.clear();
        self.row_start.resize(count + 1, 0);
        // Rows without entries (rare) are free unless an elliptic block took them in.
        self.free_rows.clear();
        if empty_rows > 0 {
            self.free_rows.extend((0..rows.len()).filter(|&r| self.row_root[r].is_none()));
        }
        self.dofs.clear();
        self.rows.clear();
        if count == 1 {
            // One island: its dofs and rows are the constrained ones, in order.
            if self.tree_island.iter().all(Option::is_some) {
                self.dofs.extend(0..nv);
            } else {
                self.dofs.extend((0..nv).filter(|&k| self.dof_island[k].is_some()));
            }
            if self.free_rows.is_empty() {
                self.rows.extend(0..rows.len());
            } else {
                self.rows.extend((0..rows.len()).filter(|&r| self.row_root[r].is_some()));
            }
            self.dof_start[1] = self.dofs.len();
            self.row_start[1] = self.rows.len();
            return;
        }
        for &island in self.dof_island.iter().flatten() {
            self.dof_start[island as usize + 1] += 1;
        }
        for &t in self.row_root.iter().flatten() {
            let island = self.tree_island[t as usize].unwrap_or(0) as usize;
            self.row_start[island + 1] += 1;
        }
        for c in 0..count {
            self.dof_start[c + 1] += self.dof_start[c];
            self.row_start[c + 1] += self.row_start[c];
        }
        self.dofs.resize(self.dof_start[count], 0);
        self.rows.resize(self.row_start[count], 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.dof_start[..count]);
        for (k, island) in self.dof_island.iter().enumerate() {
            if let Some(c) = island.map(|c| c as usize) {
                self.dofs[self.fill[c]] = k;
                self.fill[c] += 1;
            }
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.row_start[..count]);
        for (r, root) in self.row_root.iter().enumerate() {
            if let Some(t) = *root {
                let c = self.tree_island[t as usize].unwrap_or(0) as usize;
                self.rows[self.fill[c]] = r;
                self.fill[c] += 1;
            }
        }
    }

    /// Whether row `r` starts a run of rows over the same dofs (as given to [`Self::build_with_groups`]).
    pub fn starts_group(&self, r: usize) -> bool {
        self.group_start[r]
    }

    /// Number of islands.
    pub fn count(&self) -> usize {
        self.dof_start.len().saturating_sub(1)
    }

    /// The dofs of `island` (increasing).
    pub fn dofs(&self, island: usize) -> &[usize] {
        &self.dofs[self.dof_start[island]..self.dof_start[island + 1]]
    }

    /// The rows of `island` (increasing).
    pub fn rows(&self, island: usize) -> &[usize] {
        &self.rows[self.row_start[island]..self.row_start[island + 1]]
    }

    fn find(&mut self, mut k: usize) -> usize {
        while self.parent[k] != k {
            self.parent[k] = self.parent[self.parent[k]];
            k = self.parent[k];
        }
        k
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The smaller index becomes the root, so labels follow the smallest dof.
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
        }
    }
}
