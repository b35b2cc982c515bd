//! Bounding-volume hierarchy of axis-aligned boxes over a set of primitives (the triangles of a
//! [`TriangleMesh`](crate::TriangleMesh)).
//!
//! **Layout.** A flat `Vec` of small `Copy` nodes, root at index 0. An internal node's two children sit next to each
//! other at `first` and `first + 1`; a leaf holds at most [`MAX_LEAF_SIZE`] primitives, the slice
//! `primitives()[first..first + count]` of a permutation of the primitive indices. Boxes are in the frame of the
//! primitives (a mesh's local frame); queries place the other object in that frame.
//!
//! **Build.** Top down with an explicit stack (no recursion): a node's range is split at its median along the
//! longest axis of the bounds of the primitives' box centres (`select_nth_unstable`, O(n) per level). The median
//! split halves the count at every level, so the depth is at most `⌈log₂(n / MAX_LEAF_SIZE)⌉ + 1` and the build is
//! O(n log n) whatever the input; coincident centres are still split in halves. A SAH split would prune a little
//! better on very uneven meshes; the median split keeps the build cheap and its depth bounded.

use std::ops::Range;

use glam::DVec3;

use crate::aabb::Aabb;

/// Most primitives in a leaf.
pub const MAX_LEAF_SIZE: usize = 4;

/// One node of a [`Bvh`]: its box, and either two children or a leaf's range of primitives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BvhNode {
    /// The box enclosing every primitive below the node.
    pub aabb: Aabb,
    /// Leaf: start of its range in [`Bvh::primitives`]; internal: index of the first child.
    first: u32,
    /// Leaf: number of primitives (≥ 1); internal: 0.
    count: u32,
}

impl BvhNode {
    /// Whether the node is a leaf.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.count > 0
    }

    /// The two children's node indices, `None` for a leaf.
    #[inline]
    pub fn children(&self) -> Option<[usize; 2]> {
        (self.count == 0).then(|| [self.first as usize, self.first as usize + 1])
    }

    /// The leaf's range in [`Bvh::primitives`] (empty for an internal node).
    #[inline]
    pub fn primitive_range(&self) -> Range<usize> {
        let start = self.first as usize;
        if self.count == 0 { start..start } else { start..start + self.count as usize }
    }
}

/// A binary AABB tree over primitives given by their boxes (see the module docs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bvh {
    nodes: Vec<BvhNode>,
    primitives: Vec<u32>,
}

impl Bvh {
    /// Builds the tree over `boxes[i]`, the box of primitive `i` (median split on the longest axis of the centre
    /// bounds, leaves of at most [`MAX_LEAF_SIZE`]). No boxes give an empty tree. Boxes are expected finite.
    pub fn build(boxes: &[Aabb]) -> Bvh {
        let n = boxes.len();
        if n == 0 {
            return Bvh::default();
        }
        let centres: Vec<DVec3> = boxes.iter().map(Aabb::center).collect();
        let mut primitives: Vec<u32> = (0..n as u32).collect();
        let placeholder = BvhNode { aabb: boxes[0], first: 0, count: 0 };
        let mut nodes = Vec::with_capacity(2 * n.div_ceil(MAX_LEAF_SIZE));
        nodes.push(placeholder);
        let mut stack: Vec<(usize, usize, usize)> = vec![(0, 0, n)];
        while let Some((node, start, end)) = stack.pop() {
            let range = &mut primitives[start..end];
            let first = boxes[range[0] as usize];
            let mut aabb = first;
            let mut centre_bounds = Aabb::new(first.center(), first.center());
            for &i in range.iter() {
                aabb = aabb.union(&boxes[i as usize]);
                let c = centres[i as usize];
                centre_bounds = Aabb::new(centre_bounds.min.min(c), centre_bounds.max.max(c));
            }
            let count = end - start;
            if count <= MAX_LEAF_SIZE {
                nodes[node] = BvhNode { aabb, first: start as u32, count: count as u32 };
                continue;
            }
            let axis = centre_bounds.extents().max_position();
            let half = count / 2;
            range.select_nth_unstable_by(half, |&i, &j| {
                centres[i as usize][axis].total_cmp(&centres[j as usize][axis]).then(i.cmp(&j))
            });
            let left = nodes.len();
            nodes[node] = BvhNode { aabb, first: left as u32, count: 0 };
            nodes.push(placeholder);
            nodes.push(placeholder);
            stack.push((left + 1, start + half, end));
            stack.push((left, start, start + half));
        }
        Bvh { nodes, primitives }
    }

    /// The nodes, root first (empty for an empty tree).
    pub fn nodes(&self) -> &[BvhNode] {
        &self.nodes
    }

    /// The root, `None` for an empty tree.
    pub fn root(&self) -> Option<&BvhNode> {
        self.nodes.first()
    }

    /// The permutation of primitive indices that leaves refer to.
    pub fn primitives(&self) -> &[u32] {
        &self.primitives
    }

    /// The primitive indices of a leaf (empty for an internal node).
    pub fn leaf_primitives(&self, node: &BvhNode) -> &[u32] {
        &self.primitives[node.primitive_range()]
    }

    /// Branch and bound for the nearest primitive: `bound(aabb)` is a lower bound of the measure (a distance or its
    /// square) of every primitive in a box, and `leaf(p, best)` measures primitive `p`, lowering `*best` when it is
    /// nearer. Starting from `*best` (∞, or a known upper bound), nodes are visited nearer child first and a box at
    /// or beyond the best so far is pruned. `stack` is scratch (cleared first).
    pub fn nearest_first(
        &self,
        stack: &mut Vec<(u32, f64)>,
        best: &mut f64,
        bound: impl Fn(&Aabb) -> f64,
        mut leaf: impl FnMut(u32, &mut f64),
    ) {
        stack.clear();
        if let Some(root) = self.root() {
            stack.push((0, bound(&root.aabb)));
        }
        while let Some((n, b)) = stack.pop() {
            if b >= *best {
                continue;
            }
            let node = &self.nodes[n as usize];
            match node.children() {
                None => {
                    for &p in self.leaf_primitives(node) {
                        leaf(p, best);
                    }
                }
                Some([l, r]) => {
                    let (bl, br) = (bound(&self.nodes[l].aabb), bound(&self.nodes[r].aabb));
                    let order = if bl <= br { [(r, br), (l, bl)] } else { [(l, bl), (r, br)] };
                    for (child, b) in order {
                        if b < *best {
                            stack.push((child as u32, b));
                        }
                    }
                }
            }
        }
    }

    /// The number of levels (0 for an empty tree, 1 for a single leaf); walks the tree with an explicit stack.
    pub fn depth(&self) -> usize {
        if self.nodes.is_empty() {
            return 0;
        }
        let mut deepest = 0;
        let mut stack = vec![(0usize, 1usize)];
        while let Some((i, d)) = stack.pop() {
            deepest = deepest.max(d);
            if let Some([l, r]) = self.nodes[i].children() {
                stack.push((l, d + 1));
                stack.push((r, d + 1));
            }
        }
        deepest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_boxes(centres: &[DVec3]) -> Vec<Aabb> {
        centres.iter().map(|&c| Aabb::from_center_half_extents(c, DVec3::splat(0.1))).collect()
    }

    /// Every primitive is in exactly one leaf, every node box contains its children's and its primitives' boxes.
    fn check(bvh: &Bvh, boxes: &[Aabb]) {
        let mut seen = vec![0u32; boxes.len()];
        for node in bvh.nodes() {
            match node.children() {
                Some([l, r]) => {
                    assert!(node.aabb.contains(&bvh.nodes()[l].aabb));
                    assert!(node.aabb.contains(&bvh.nodes()[r].aabb));
                }
                None => {
                    assert!((1..=MAX_LEAF_SIZE).contains(&node.primitive_range().len()));
                    for &p in bvh.leaf_primitives(node) {
                        seen[p as usize] += 1;
                        assert!(node.aabb.contains(&boxes[p as usize]));
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }

    #[test]
    fn empty_and_single() {
        let empty = Bvh::build(&[]);
        assert!(empty.root().is_none() && empty.depth() == 0);
        let boxes = unit_boxes(&[DVec3::ONE]);
        let one = Bvh::build(&boxes);
        assert_eq!(one.nodes().len(), 1);
        assert!(one.root().unwrap().is_leaf());
        check(&one, &boxes);
    }

    #[test]
    fn line_of_boxes_is_balanced() {
        let centres: Vec<DVec3> = (0..1000).map(|i| DVec3::new(i as f64, 0.0, 0.0)).collect();
        let boxes = unit_boxes(&centres);
        let bvh = Bvh::build(&boxes);
        check(&bvh, &boxes);
        assert!(bvh.depth() <= 9, "depth {}", bvh.depth());
        // Split along x: the root's children do not overlap.
        let [l, r] = bvh.root().unwrap().children().unwrap();
        assert!(bvh.nodes()[l].aabb.max.x < bvh.nodes()[r].aabb.min.x);
    }

    #[test]
    fn coincident_centres_still_split() {
        let boxes = unit_boxes(&vec![DVec3::splat(2.0); 100_000]);
        let bvh = Bvh::build(&boxes);
        check(&bvh, &boxes);
        assert!(bvh.depth() <= 16, "depth {}", bvh.depth());
    }
}
