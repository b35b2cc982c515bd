//! [`CollisionOptions`]: the settings of a collision model, with the defaults of spec §4 (native mode).

use serde::{Deserialize, Serialize};

use crate::broad::BroadPhaseKind;
use crate::dialect::Dialect;
use crate::error::{CollisionError, Result};
use crate::query::{ContactRequest, ConvexAlgorithm};

/// Options of a [`CollisionModel`](super::CollisionModel), with the defaults of spec §4 (native mode).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CollisionOptions {
    /// Native (Genesis) or MuJoCo-compatible contact semantics, parameter mixing and geom boxes: the model's
    /// [`PairDispatcher`](crate::dialect::PairDispatcher). Default native.
    pub dialect: Dialect,
    /// Algorithm for convex pairs without a closed form. Default MPR (with the GJK/EPA rule of spec §A.8).
    pub convex_algorithm: ConvexAlgorithm,
    /// Broad phase. Default sweep and prune (spec §A.4).
    pub broad_phase: BroadPhaseKind,
    /// Fat-box margin of the dynamic tree (m), ≥ 0. Default 0.05: a geom may drift 5 cm before its leaf moves.
    pub tree_fat_margin: f64,
    /// The pair budget of spec §A.4, ≥ 1. Default 150. A step may have at most this times `broad_phase_multiplier`
    /// filtered broad-phase candidates, and at most this times `n_contacts_per_pair` contacts
    /// ([`crate::capacity::contacts_per_pair`]: 5, or 16 with box–box detection and more than one box).
    pub max_collision_pairs: usize,
    /// Genesis's `multiplier_collision_broad_phase`, ≥ 1. Default 8.
    pub broad_phase_multiplier: usize,
    /// Contact cap of a pair other than analytic box–box, ≥ 1; also the perturbation manifold size (spec §A.4/§A.9).
    /// Default 5.
    pub contacts_per_convex_pair: usize,
    /// Contact cap of an analytic box–box pair, ≥ 1 (spec §A.4: at least 16 with `box_box_detection`). Default 16.
    pub contacts_per_box_box_pair: usize,
    /// Contact cap of a height-field pair (one contact per penetrating prism), ≥ 1. Default 50, MuJoCo's
    /// `mjMAXCONPAIR`, which is also where the height-field routines stop (in both dialects).
    #[serde(default = "default_height_field_cap")]
    pub contacts_per_height_field_pair: usize,
    /// Contact cap of a pair with a non-convex triangle mesh (one carrying a signed distance field), ≥ 1: the
    /// manifold is chosen from its penetrating points, deepest first, then spread out (spec §A.14). Default 8.
    #[serde(default = "default_nonconvex_cap")]
    pub contacts_per_nonconvex_pair: usize,
    /// Contact pruning tolerance of spec §A.16 (G-W's `contact_pruning_tolerance`), ≥ 0: the contacts of a link
    /// pair on one plane keep their support polygon ([`crate::prune`]); 0 keeps every contact. Only dialects that
    /// prune read it (native; MuJoCo has no pruning). Default 0.02.
    #[serde(default = "default_pruning_tolerance")]
    pub contact_pruning_tolerance: f64,
    /// The post-pruning contact budget of a step (G-W's `max_contacts`), or `None` for Genesis's default: when
    /// pruning runs, `min(candidate budget, max(Σ over link pairs of min(Σ of their geom pairs' caps, 32), 512))`,
    /// else the candidate budget `max_collision_pairs × n_contacts_per_pair`. A value is clamped to the candidate
    /// budget. More contacts than this fail the step with an error naming `max_contacts`.
    #[serde(default)]
    pub max_contacts: Option<usize>,
    /// Check pairs of bodies with the same kinematic root. Default true.
    pub enable_self_collision: bool,
    /// Check adjacent bodies (see [`crate::filter::is_adjacent`]). Default false.
    pub enable_adjacent_collision: bool,
    /// Whether a body jointed to a body fixed to the world counts as adjacent to it (and to everything welded to
    /// the world). Genesis: yes (default). MuJoCo's parent filter leaves out the world's weld group (its
    /// `filterBodyPair` needs both weld bodies non-zero): a link hinged to a static post collides with the post.
    #[serde(default = "world_weld_adjacent")]
    pub world_weld_adjacent: bool,
    /// Check geom pairs that penetrate at the neutral pose (see [`CollisionModel::apply_neutral_filter`](super::CollisionModel::apply_neutral_filter)). Default
    /// false.
    pub enable_neutral_collision: bool,
    /// Add perturbation contacts for convex pairs (spec §A.9). Default true.
    pub enable_multi_contact: bool,
    /// Analytic box–box (SAT + clipping, spec §A.10). When false, box–box pairs go through the general convex path
    /// (MPR and perturbations on the boxes' hulls), as Genesis does by default. Default true (spec §4).
    pub box_box_detection: bool,
    /// Threads of the narrow phase, ≥ 1. Results do not depend on it. Default 1.
    pub threads: usize,
}

impl Default for CollisionOptions {
    fn default() -> Self {
        Self {
            dialect: Dialect::Native,
            convex_algorithm: ConvexAlgorithm::Mpr,
            broad_phase: BroadPhaseKind::SweepAndPrune,
            tree_fat_margin: 0.05,
            max_collision_pairs: 150,
            broad_phase_multiplier: 8,
            contacts_per_convex_pair: 5,
            contacts_per_box_box_pair: 16,
            contacts_per_height_field_pair: default_height_field_cap(),
            contacts_per_nonconvex_pair: default_nonconvex_cap(),
            contact_pruning_tolerance: default_pruning_tolerance(),
            max_contacts: None,
            enable_self_collision: true,
            enable_adjacent_collision: false,
            world_weld_adjacent: true,
            enable_neutral_collision: false,
            enable_multi_contact: true,
            box_box_detection: true,
            threads: 1,
        }
    }
}

fn default_pruning_tolerance() -> f64 {
    0.02
}

fn world_weld_adjacent() -> bool {
    true
}

fn default_height_field_cap() -> usize {
    crate::pairs::height_field::MAX_CONTACTS
}

fn default_nonconvex_cap() -> usize {
    ContactRequest::default().max_sdf_contacts
}

impl CollisionOptions {
    /// The defaults in MuJoCo-compatible mode.
    pub fn mujoco_compatible() -> Self {
        Self { dialect: Dialect::Mujoco, ..Self::default() }
    }

    /// Checks every field's rule (see the field docs); the error names the field.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: String| Err(CollisionError::InvalidRequest { what });
        if !(self.tree_fat_margin >= 0.0 && self.tree_fat_margin.is_finite()) {
            return bad(format!("tree_fat_margin must be finite and ≥ 0, got {}", self.tree_fat_margin));
        }
        if !(self.contact_pruning_tolerance >= 0.0 && self.contact_pruning_tolerance.is_finite()) {
            return bad(format!(
                "contact_pruning_tolerance must be finite and ≥ 0, got {}",
                self.contact_pruning_tolerance
            ));
        }
        if self.max_contacts == Some(0) {
            return bad("max_contacts must be ≥ 1".into());
        }
        for (name, v) in [
            ("max_collision_pairs", self.max_collision_pairs),
            ("broad_phase_multiplier", self.broad_phase_multiplier),
            ("contacts_per_convex_pair", self.contacts_per_convex_pair),
            ("contacts_per_box_box_pair", self.contacts_per_box_box_pair),
            ("contacts_per_height_field_pair", self.contacts_per_height_field_pair),
            ("contacts_per_nonconvex_pair", self.contacts_per_nonconvex_pair),
            ("threads", self.threads),
        ] {
            if v == 0 {
                return bad(format!("{name} must be ≥ 1"));
            }
        }
        Ok(())
    }

    /// The narrow-phase request every pair starts from, from the dialect's `base` (its cached normal is filled per
    /// pair).
    pub(crate) fn contact_request(&self, base: ContactRequest) -> ContactRequest {
        ContactRequest {
            convex_algorithm: self.convex_algorithm,
            multi_contact: self.enable_multi_contact,
            max_contacts: self.contacts_per_convex_pair,
            max_sdf_contacts: self.contacts_per_nonconvex_pair,
            ..base
        }
    }
}
