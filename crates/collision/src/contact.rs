//! Contacts in the simulator convention.
//!
//! **Convention (spec §3, Genesis):** `normal` is a world unit vector pointing **from shape B to shape A** (moving A
//! along `+normal` separates the pair); `penetration` is a depth in metres, ≥ 0 except for the contacts the MuJoCo
//! dialect reports within a pair's margin (down to `−margin`, surfaces apart); `position` is the world midpoint
//! between the two surfaces (each surface point is `position ± ½ penetration · normal`). Distance queries use the
//! opposite (Coal) convention; see [`crate::query`].

use glam::DVec3;
use serde::{Deserialize, Serialize};

/// One contact point between shape A and shape B.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    /// World midpoint between the surfaces (m).
    pub position: DVec3,
    /// World unit normal from B to A.
    pub normal: DVec3,
    /// Penetration depth (m): ≥ 0, or down to `−margin` for a MuJoCo-dialect contact within a geom margin.
    pub penetration: f64,
}

impl Contact {
    /// The deepest point of A inside B: `position − ½ penetration · normal`.
    pub fn point_on_a(&self) -> DVec3 {
        self.position - 0.5 * self.penetration * self.normal
    }

    /// The deepest point of B inside A: `position + ½ penetration · normal`.
    pub fn point_on_b(&self) -> DVec3 {
        self.position + 0.5 * self.penetration * self.normal
    }

    /// The same contact seen with A and B swapped (normal negated).
    pub fn flipped(&self) -> Contact {
        Contact { normal: -self.normal, ..*self }
    }
}

/// The contact points of one pair (a manifold), in the convention of [`Contact`]. Reuse one across queries to avoid
/// allocation: the query functions clear it and push into it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifold {
    /// The contacts, deepest first where the algorithm knows an order.
    pub contacts: Vec<Contact>,
    /// First tangent of the contacts' friction frame, world frame, not necessarily unit or orthogonal to the
    /// normals; zero when the pair routine leaves the frame to the normal (every routine but MuJoCo's
    /// plane–capsule, which aligns it with the capsule axis). The constraints crate completes the frame as
    /// MuJoCo's `mju_makeFrame` does.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tangent: DVec3,
}

/// Whether `v` is the zero vector (serde's test for leaving an unset tangent out).
pub(crate) fn is_zero(v: &DVec3) -> bool {
    *v == DVec3::ZERO
}

impl Manifold {
    /// An empty manifold.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.contacts.len()
    }

    /// Whether there is no contact.
    pub fn is_empty(&self) -> bool {
        self.contacts.is_empty()
    }

    /// The largest penetration, 0 when empty.
    pub fn max_penetration(&self) -> f64 {
        self.contacts.iter().map(|c| c.penetration).fold(0.0, f64::max)
    }
}
