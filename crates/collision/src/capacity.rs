//! The budgets of the collision pipeline (spec §A.4) and their typed errors.
//!
//! Genesis sizes its buffers from `max_collision_pairs` and drops what does not fit, raising an error later. Here the
//! same budgets are checked exactly and a step that exceeds one fails as a whole with
//! [`CollisionError::CapacityExceeded`], which names the option to raise and the smallest value that would have
//! fitted; nothing is silently dropped. The buffers themselves grow as needed and are reused across steps.
//!
//! | budget (per step) | counted | limit |
//! |---|---|---|
//! | broad-phase candidates | filtered pairs whose boxes overlap | `max_collision_pairs × broad_phase_multiplier` (150 × 8, Genesis's `max_collision_pairs_broad`) |
//! | contacts | all contacts of the step | `max_collision_pairs × n_contacts_per_pair` (Genesis's `max_contact_pairs`) |
//! | contacts after pruning | the contacts [`crate::prune`] keeps | `max_contacts` (G-W's; see [`CollisionOptions::max_contacts`]) |
//! | contacts of one analytic box–box pair | per pair | `contacts_per_box_box_pair` (16) |
//! | contacts of a height-field pair | per pair | `contacts_per_height_field_pair` (50) |
//! | contacts of a non-convex mesh pair | per pair | `contacts_per_nonconvex_pair` (8) |
//! | contacts of any other pair | per pair | `contacts_per_convex_pair` (5) |
//!
//! `n_contacts_per_pair` is `contacts_per_convex_pair`, raised to `contacts_per_box_box_pair` when
//! `box_box_detection` is on and the world has more than one box (spec §A.4, G-A `_init_max_contact_pairs`).
//!
//! The per-step arrays (the staged contacts, the contact set, and the constraint rows above this crate) grow by
//! [`make_room`]: 1/8 of their length as spare room, not `Vec`'s doubling, which left up to half of the largest
//! arrays of a step unused.

use signorini_geometry::ShapeKind;

use crate::error::{CollisionError, Result};
use crate::world::CollisionOptions;

/// When a per-step array must grow, it gets this fraction of its length as spare room (1/8).
const SPARE_DIVISOR: usize = 8;

/// Makes room in `v` for `additional` more elements: nothing when it has the room, else `additional` plus 1/8 of its
/// length (see the module docs).
pub fn make_room<T>(v: &mut Vec<T>, additional: usize) {
    if v.capacity() - v.len() < additional {
        v.reserve_exact(additional + v.len() / SPARE_DIVISOR);
    }
}

/// The capacity [`make_room`] gives an array of `len` elements that needs `additional` more.
pub fn room_for(len: usize, additional: usize) -> usize {
    len + additional + len / SPARE_DIVISOR
}

/// Genesis's `n_contacts_per_pair` for a world with `n_boxes` box geoms.
pub fn contacts_per_pair(options: &CollisionOptions, n_boxes: usize) -> usize {
    if options.box_box_detection && n_boxes > 1 {
        options.contacts_per_convex_pair.max(options.contacts_per_box_box_pair)
    } else {
        options.contacts_per_convex_pair
    }
}

/// Checks the number of filtered broad-phase candidates against `max_collision_pairs × broad_phase_multiplier`.
pub(crate) fn check_candidates(options: &CollisionOptions, needed: usize) -> Result<()> {
    let m = options.broad_phase_multiplier.max(1);
    let limit = options.max_collision_pairs.saturating_mul(m);
    if needed <= limit {
        return Ok(());
    }
    Err(CollisionError::CapacityExceeded {
        option: "max_collision_pairs",
        what: "broad-phase candidate pairs",
        limit,
        needed,
        required: needed.div_ceil(m),
    })
}

/// The candidate contact budget `max_collision_pairs × n_contacts_per_pair`.
pub fn contact_budget(options: &CollisionOptions, n_boxes: usize) -> usize {
    options.max_collision_pairs.saturating_mul(contacts_per_pair(options, n_boxes).max(1))
}

/// Checks the step's contact count against `max_collision_pairs × n_contacts_per_pair`.
pub(crate) fn check_contacts(options: &CollisionOptions, n_boxes: usize, needed: usize) -> Result<()> {
    let per_pair = contacts_per_pair(options, n_boxes).max(1);
    let limit = contact_budget(options, n_boxes);
    if needed <= limit {
        return Ok(());
    }
    Err(CollisionError::CapacityExceeded {
        option: "max_collision_pairs",
        what: "contacts",
        limit,
        needed,
        required: needed.div_ceil(per_pair),
    })
}

/// The floor of Genesis's default post-pruning budget.
pub(crate) const PRUNED_BUDGET_FLOOR: usize = 512;

/// Checks the contacts kept by pruning against the post-pruning budget `limit` (G-W's `OVERFLOW_CONTACTS`).
pub(crate) fn check_pruned_contacts(limit: usize, needed: usize) -> Result<()> {
    if needed <= limit {
        return Ok(());
    }
    Err(CollisionError::CapacityExceeded {
        option: "max_contacts",
        what: "contacts after pruning",
        limit,
        needed,
        required: needed,
    })
}

/// Of two failures of one step, the one to report: the larger requirement when both are budgets of the same option,
/// else the first.
pub(crate) fn larger_need(first: CollisionError, second: CollisionError) -> CollisionError {
    match (&first, &second) {
        (
            CollisionError::CapacityExceeded { option: a, required: ra, .. },
            CollisionError::CapacityExceeded { option: b, required: rb, .. },
        ) if a == b && rb > ra => second,
        _ => first,
    }
}

/// The contact cap of a pair of shape kinds and the option that sets it.
pub(crate) fn pair_contact_cap(
    options: &CollisionOptions,
    a: ShapeKind,
    b: ShapeKind,
) -> (usize, &'static str) {
    if options.box_box_detection && a == ShapeKind::Box && b == ShapeKind::Box {
        (options.contacts_per_box_box_pair, "contacts_per_box_box_pair")
    } else if a == ShapeKind::TriangleMesh || b == ShapeKind::TriangleMesh {
        (options.contacts_per_nonconvex_pair, "contacts_per_nonconvex_pair")
    } else if a == ShapeKind::HeightField || b == ShapeKind::HeightField {
        (options.contacts_per_height_field_pair, "contacts_per_height_field_pair")
    } else {
        (options.contacts_per_convex_pair, "contacts_per_convex_pair")
    }
}

/// Checks the contacts of one pair against its cap.
pub(crate) fn check_pair_contacts(
    options: &CollisionOptions,
    a: ShapeKind,
    b: ShapeKind,
    needed: usize,
) -> Result<()> {
    let (limit, option) = pair_contact_cap(options, a, b);
    if needed <= limit {
        return Ok(());
    }
    Err(CollisionError::CapacityExceeded {
        option,
        what: "contacts of one geom pair",
        limit,
        needed,
        required: needed,
    })
}
