//! Dynamic AABB tree with fat boxes (seed 004 §2.4.2; the design of Box2D's `b2DynamicTree`, Bullet's `btDbvt` and
//! FCL's `DynamicAABBTreeCollisionManager`).
//!
//! - Each bounded geom is a leaf whose stored box is **fat**: its tight box grown by `fat_margin` on every side and
//!   stretched by `2 ×` the last step's displacement of the box centre along the direction of motion.
//! - Per step, a leaf is removed and reinserted only when its tight box has **left** its fat box, or when the fat box
//!   has become much larger than needed (more than `3 · fat_margin` beyond a fresh fat box, so a geom that moved fast
//!   once does not keep a huge box). Small motions cost nothing.
//! - Insertion descends by the surface-area heuristic (Box2D's sibling cost); removal and insertion rebalance the path
//!   to the root by AVL rotations, so the height stays `O(log n)`.
//! - **Persistent fat pairs** (as Box2D's pair buffer): the tree keeps the sorted set of pairs whose *fat* boxes
//!   overlap (not both fixed). Per step, pairs whose fat boxes stopped overlapping are dropped, and only the
//!   reinserted leaves query the tree for new ones. The reported pairs are the fat pairs whose *tight* boxes overlap
//!   strictly. A step therefore costs `O(fat pairs + reinserted · log n)`; static geoms never query, so pairs of two
//!   fixed geoms cost nothing: the tree suits scenes with many static geoms.
//! - Unbounded geoms (planes) are kept out of the tree and tested against every geom.

use glam::DVec3;
use signorini_geometry::Aabb;

use super::{BroadPhase, BroadPhaseInput, BroadPhaseKind, GeomPair};

const NULL: u32 = u32::MAX;

/// How far ahead the fat box is stretched along the last displacement (Box2D's `aabbMultiplier` is 4).
const PREDICTION: f64 = 2.0;

#[derive(Debug, Clone, Copy)]
struct Node {
    /// Fat box for a leaf, union of the children for an internal node.
    aabb: Aabb,
    /// Parent node, or the next free node when the node is on the free list.
    parent: u32,
    child1: u32,
    child2: u32,
    /// 0 for a leaf, −1 when free.
    height: i32,
    /// The geom of a leaf.
    geom: u32,
}

impl Node {
    fn is_leaf(&self) -> bool {
        self.child1 == NULL
    }
}

/// Dynamic AABB tree broad phase with fat boxes (see the module docs).
#[derive(Debug, Clone)]
pub struct DynamicAabbTree {
    nodes: Vec<Node>,
    free: u32,
    root: u32,
    /// Leaf node of each geom, [`NULL`] for unbounded geoms.
    leaf: Vec<u32>,
    /// Tight-box centre of each geom at the previous step (displacement prediction).
    prev_center: Vec<DVec3>,
    unbounded: Vec<u32>,
    fat_margin: f64,
    stack: Vec<u32>,
    /// Geoms (re)inserted this step.
    moved: Vec<u32>,
    /// Sorted pairs `[i, j]`, `i < j`, of bounded geoms whose fat boxes overlap, not both fixed.
    fat_pairs: Vec<GeomPair>,
    new_pairs: Vec<GeomPair>,
    merged: Vec<GeomPair>,
    /// The fixed flags the fat pairs were built with.
    fixed: Vec<bool>,
    warm: bool,
}

fn is_bounded(b: &Aabb) -> bool {
    b.min.is_finite() && b.max.is_finite()
}

impl DynamicAabbTree {
    /// A new tree whose fat boxes extend `fat_margin` metres beyond the tight boxes (a negative or non-finite margin
    /// is taken as 0: every motion then reinserts its leaf).
    pub fn new(fat_margin: f64) -> Self {
        Self {
            nodes: Vec::new(),
            free: NULL,
            root: NULL,
            leaf: Vec::new(),
            prev_center: Vec::new(),
            unbounded: Vec::new(),
            fat_margin: if fat_margin.is_finite() && fat_margin > 0.0 { fat_margin } else { 0.0 },
            stack: Vec::new(),
            moved: Vec::new(),
            fat_pairs: Vec::new(),
            new_pairs: Vec::new(),
            merged: Vec::new(),
            fixed: Vec::new(),
            warm: false,
        }
    }

    /// The fat-box margin (m).
    pub fn fat_margin(&self) -> f64 {
        self.fat_margin
    }

    /// How many leaves the last [`BroadPhase::find_pairs`] removed and reinserted (all of them on a first step).
    pub fn reinserted_last_step(&self) -> usize {
        self.moved.len()
    }

    /// Number of pairs whose fat boxes overlap (the pairs tested with tight boxes each step).
    pub fn fat_pair_count(&self) -> usize {
        self.fat_pairs.len()
    }

    /// Height of the tree (0 for a single leaf or an empty tree).
    pub fn height(&self) -> usize {
        if self.root == NULL { 0 } else { self.nodes[self.root as usize].height.max(0) as usize }
    }

    /// Checks the tree's invariants (parent links, heights, boxes containing their children and fat boxes containing
    /// the given tight boxes); `Err` names the first violation. For tests.
    pub fn validate(&self, aabbs: &[Aabb]) -> Result<(), String> {
        if self.root == NULL {
            return Ok(());
        }
        if self.nodes[self.root as usize].parent != NULL {
            return Err("root has a parent".into());
        }
        let mut stack = vec![self.root];
        let mut leaves = 0;
        while let Some(i) = stack.pop() {
            let n = &self.nodes[i as usize];
            if n.is_leaf() {
                leaves += 1;
                let g = n.geom as usize;
                if self.leaf.get(g) != Some(&i) {
                    return Err(format!("leaf {i} not registered for geom {g}"));
                }
                if n.height != 0 {
                    return Err(format!("leaf {i} has height {}", n.height));
                }
                if let Some(tight) = aabbs.get(g)
                    && !n.aabb.contains(tight)
                {
                    return Err(format!("fat box of geom {g} does not contain its tight box"));
                }
                continue;
            }
            let (a, b) = (&self.nodes[n.child1 as usize], &self.nodes[n.child2 as usize]);
            if a.parent != i || b.parent != i {
                return Err(format!("children of node {i} do not point back"));
            }
            if n.height != 1 + a.height.max(b.height) {
                return Err(format!("node {i} has a wrong height"));
            }
            if (a.height - b.height).abs() > 1 {
                return Err(format!("node {i} is unbalanced"));
            }
            if !n.aabb.contains(&a.aabb) || !n.aabb.contains(&b.aabb) {
                return Err(format!("node {i} does not contain its children"));
            }
            stack.push(n.child1);
            stack.push(n.child2);
        }
        let expected = self.leaf.iter().filter(|&&l| l != NULL).count();
        if leaves != expected {
            return Err(format!("{leaves} leaves reachable, {expected} registered"));
        }
        Ok(())
    }

    fn fat_box(&self, tight: &Aabb, displacement: DVec3) -> Aabb {
        let mut fat = tight.expanded(self.fat_margin);
        let d = PREDICTION * displacement;
        for axis in 0..3 {
            if d[axis] < 0.0 {
                fat.min[axis] += d[axis];
            } else {
                fat.max[axis] += d[axis];
            }
        }
        fat
    }

    fn alloc(&mut self, node: Node) -> u32 {
        if self.free != NULL {
            let i = self.free;
            self.free = self.nodes[i as usize].parent;
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn release(&mut self, i: u32) {
        let n = &mut self.nodes[i as usize];
        n.parent = self.free;
        n.height = -1;
        self.free = i;
    }

    fn rebuild(&mut self, input: &BroadPhaseInput<'_>) {
        self.nodes.clear();
        self.free = NULL;
        self.root = NULL;
        self.unbounded.clear();
        self.leaf.clear();
        self.leaf.resize(input.len(), NULL);
        self.prev_center.clear();
        self.moved.clear();
        self.fat_pairs.clear();
        self.fixed.clear();
        self.fixed.extend_from_slice(input.fixed());
        for (g, tight) in input.aabbs().iter().enumerate() {
            if is_bounded(tight) {
                self.prev_center.push(tight.center());
                let fat = self.fat_box(tight, DVec3::ZERO);
                let leaf = self.alloc(Node {
                    aabb: fat,
                    parent: NULL,
                    child1: NULL,
                    child2: NULL,
                    height: 0,
                    geom: g as u32,
                });
                self.leaf[g] = leaf;
                self.insert_leaf(leaf);
                self.moved.push(g as u32);
            } else {
                self.prev_center.push(DVec3::ZERO);
                self.unbounded.push(g as u32);
            }
        }
        self.warm = true;
    }

    /// Refits the tree to this step's boxes: reinserts only the leaves whose tight box left the fat box (or whose fat
    /// box became far too large).
    fn refit(&mut self, input: &BroadPhaseInput<'_>) {
        self.moved.clear();
        for (g, tight) in input.aabbs().iter().enumerate() {
            let node = self.leaf[g];
            if !is_bounded(tight) {
                if node != NULL {
                    self.remove_leaf(node);
                    self.release(node);
                    self.leaf[g] = NULL;
                    self.unbounded.push(g as u32);
                }
                continue;
            }
            let center = tight.center();
            let displacement = if node == NULL { DVec3::ZERO } else { center - self.prev_center[g] };
            self.prev_center[g] = center;
            let fresh = self.fat_box(tight, displacement);
            if node == NULL {
                if let Some(pos) = self.unbounded.iter().position(|&u| u as usize == g) {
                    self.unbounded.swap_remove(pos);
                }
                let leaf = self.alloc(Node {
                    aabb: fresh,
                    parent: NULL,
                    child1: NULL,
                    child2: NULL,
                    height: 0,
                    geom: g as u32,
                });
                self.leaf[g] = leaf;
                self.insert_leaf(leaf);
                self.moved.push(g as u32);
                continue;
            }
            let fat = self.nodes[node as usize].aabb;
            let too_large = !fresh.expanded(3.0 * self.fat_margin).contains(&fat);
            if !fat.contains(tight) || too_large {
                self.remove_leaf(node);
                self.nodes[node as usize].aabb = fresh;
                self.insert_leaf(node);
                self.moved.push(g as u32);
            }
        }
    }

    fn fat_box_of(&self, g: u32) -> Option<&Aabb> {
        let leaf = self.leaf[g as usize];
        (leaf != NULL).then(|| &self.nodes[leaf as usize].aabb)
    }

    /// Drops the fat pairs whose fat boxes no longer overlap and adds those of the leaves (re)inserted this step.
    fn update_fat_pairs(&mut self) {
        let mut fat_pairs = std::mem::take(&mut self.fat_pairs);
        fat_pairs.retain(|&[i, j]| match (self.fat_box_of(i), self.fat_box_of(j)) {
            (Some(a), Some(b)) => a.overlaps(b),
            _ => false,
        });
        self.new_pairs.clear();
        for k in 0..self.moved.len() {
            let g = self.moved[k];
            let Some(&fat) = self.fat_box_of(g) else { continue };
            self.stack.clear();
            if self.root != NULL {
                self.stack.push(self.root);
            }
            while let Some(i) = self.stack.pop() {
                let node = &self.nodes[i as usize];
                if !node.aabb.overlaps(&fat) {
                    continue;
                }
                if node.is_leaf() {
                    let h = node.geom;
                    if h != g && !(self.fixed[g as usize] && self.fixed[h as usize]) {
                        self.new_pairs.push(if g < h { [g, h] } else { [h, g] });
                    }
                } else {
                    self.stack.push(node.child1);
                    self.stack.push(node.child2);
                }
            }
        }
        if !self.new_pairs.is_empty() {
            self.new_pairs.sort_unstable();
            self.new_pairs.dedup();
            self.merged.clear();
            let (mut a, mut b) = (0, 0);
            while a < fat_pairs.len() || b < self.new_pairs.len() {
                let next = match (fat_pairs.get(a), self.new_pairs.get(b)) {
                    (Some(&x), Some(&y)) if x == y => {
                        a += 1;
                        b += 1;
                        x
                    }
                    (Some(&x), Some(&y)) if x < y => {
                        a += 1;
                        x
                    }
                    (Some(&x), None) => {
                        a += 1;
                        x
                    }
                    (_, Some(&y)) => {
                        b += 1;
                        y
                    }
                    (None, None) => break,
                };
                self.merged.push(next);
            }
            std::mem::swap(&mut fat_pairs, &mut self.merged);
        }
        self.fat_pairs = fat_pairs;
    }

    fn insert_leaf(&mut self, leaf: u32) {
        if self.root == NULL {
            self.root = leaf;
            self.nodes[leaf as usize].parent = NULL;
            return;
        }
        let leaf_box = self.nodes[leaf as usize].aabb;
        let mut index = self.root;
        while !self.nodes[index as usize].is_leaf() {
            let node = self.nodes[index as usize];
            let area = node.aabb.surface_area();
            let combined_area = node.aabb.union(&leaf_box).surface_area();
            let cost = 2.0 * combined_area;
            let inheritance = 2.0 * (combined_area - area);
            let child_cost = |c: u32| {
                let child = &self.nodes[c as usize];
                let grown = leaf_box.union(&child.aabb).surface_area();
                if child.is_leaf() {
                    grown + inheritance
                } else {
                    grown - child.aabb.surface_area() + inheritance
                }
            };
            let (cost1, cost2) = (child_cost(node.child1), child_cost(node.child2));
            if cost < cost1 && cost < cost2 {
                break;
            }
            index = if cost1 < cost2 { node.child1 } else { node.child2 };
        }
        let sibling = index;
        let old_parent = self.nodes[sibling as usize].parent;
        let new_parent = self.alloc(Node {
            aabb: leaf_box.union(&self.nodes[sibling as usize].aabb),
            parent: old_parent,
            child1: sibling,
            child2: leaf,
            height: self.nodes[sibling as usize].height + 1,
            geom: NULL,
        });
        if old_parent == NULL {
            self.root = new_parent;
        } else if self.nodes[old_parent as usize].child1 == sibling {
            self.nodes[old_parent as usize].child1 = new_parent;
        } else {
            self.nodes[old_parent as usize].child2 = new_parent;
        }
        self.nodes[sibling as usize].parent = new_parent;
        self.nodes[leaf as usize].parent = new_parent;
        self.fix_upwards(new_parent);
    }

    fn remove_leaf(&mut self, leaf: u32) {
        if leaf == self.root {
            self.root = NULL;
            return;
        }
        let parent = self.nodes[leaf as usize].parent;
        let grand = self.nodes[parent as usize].parent;
        let p = self.nodes[parent as usize];
        let sibling = if p.child1 == leaf { p.child2 } else { p.child1 };
        if grand == NULL {
            self.root = sibling;
            self.nodes[sibling as usize].parent = NULL;
            self.release(parent);
        } else {
            if self.nodes[grand as usize].child1 == parent {
                self.nodes[grand as usize].child1 = sibling;
            } else {
                self.nodes[grand as usize].child2 = sibling;
            }
            self.nodes[sibling as usize].parent = grand;
            self.release(parent);
            self.fix_upwards(grand);
        }
        self.nodes[leaf as usize].parent = NULL;
    }

    /// Walks from `index` to the root, rebalancing and refitting heights and boxes.
    fn fix_upwards(&mut self, mut index: u32) {
        while index != NULL {
            index = self.balance(index);
            let n = self.nodes[index as usize];
            let (a, b) = (self.nodes[n.child1 as usize], self.nodes[n.child2 as usize]);
            let node = &mut self.nodes[index as usize];
            node.height = 1 + a.height.max(b.height);
            node.aabb = a.aabb.union(&b.aabb);
            index = node.parent;
        }
    }

    /// Replaces `parent`'s link to `old` by `new` (or the root).
    fn relink(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NULL {
            self.root = new;
        } else if self.nodes[parent as usize].child1 == old {
            self.nodes[parent as usize].child1 = new;
        } else {
            self.nodes[parent as usize].child2 = new;
        }
    }

    /// One AVL rotation at `ia` if its subtrees differ in height by more than 1; returns the subtree's new root.
    fn balance(&mut self, ia: u32) -> u32 {
        let a = self.nodes[ia as usize];
        if a.is_leaf() || a.height < 2 {
            return ia;
        }
        let (ib, ic) = (a.child1, a.child2);
        let (b, c) = (self.nodes[ib as usize], self.nodes[ic as usize]);
        let balance = c.height - b.height;
        if balance > 1 {
            return self.rotate_up(ia, ic, b, true);
        }
        if balance < -1 {
            return self.rotate_up(ia, ib, c, false);
        }
        ia
    }

    /// Rotates `iup`, a child of `ia` (its second child when `second`, else its first), above `ia`: `ia` becomes
    /// `iup`'s first child and takes `iup`'s lower child into the slot `iup` held; `iup` keeps its higher child as its
    /// second. `stay` is `ia`'s other child. Returns `iup`, the subtree's new root.
    fn rotate_up(&mut self, ia: u32, iup: u32, stay: Node, second: bool) -> u32 {
        let a = self.nodes[ia as usize];
        let up = self.nodes[iup as usize];
        let (i_f, i_g) = (up.child1, up.child2);
        let (f, g) = (self.nodes[i_f as usize], self.nodes[i_g as usize]);
        self.nodes[iup as usize].child1 = ia;
        self.nodes[iup as usize].parent = a.parent;
        self.nodes[ia as usize].parent = iup;
        self.relink(a.parent, ia, iup);
        let (keep, give, ik, ig) = if f.height > g.height { (f, g, i_f, i_g) } else { (g, f, i_g, i_f) };
        self.nodes[iup as usize].child2 = ik;
        if second {
            self.nodes[ia as usize].child2 = ig;
        } else {
            self.nodes[ia as usize].child1 = ig;
        }
        self.nodes[ig as usize].parent = ia;
        let a_box = stay.aabb.union(&give.aabb);
        let a_height = 1 + stay.height.max(give.height);
        self.nodes[ia as usize].aabb = a_box;
        self.nodes[ia as usize].height = a_height;
        self.nodes[iup as usize].aabb = a_box.union(&keep.aabb);
        self.nodes[iup as usize].height = 1 + a_height.max(keep.height);
        iup
    }
}

impl BroadPhase for DynamicAabbTree {
    fn clone_box(&self) -> Box<dyn BroadPhase> {
        Box::new(self.clone())
    }

    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::DynamicTree
    }

    fn find_pairs(&mut self, input: &BroadPhaseInput<'_>, out: &mut Vec<GeomPair>) {
        out.clear();
        if !self.warm || self.leaf.len() != input.len() || self.fixed != input.fixed() {
            self.rebuild(input);
        } else {
            self.refit(input);
        }
        self.update_fat_pairs();
        for &[i, j] in &self.fat_pairs {
            if input.accepts(i as usize, j as usize) {
                out.push([i, j]);
            }
        }
        for &u in &self.unbounded {
            let u = u as usize;
            for h in 0..input.len() {
                let both_unbounded = self.leaf[h] == NULL;
                if h == u || (both_unbounded && h < u) {
                    continue;
                }
                if input.accepts(u, h) {
                    out.push(if u < h { [u as u32, h as u32] } else { [h as u32, u as u32] });
                }
            }
        }
    }

    fn reset(&mut self) {
        self.warm = false;
    }
}
