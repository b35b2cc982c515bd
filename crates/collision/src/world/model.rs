//! [`CollisionModel`]: what a collision scene *is* — options, bodies, geoms with their contact parameters, the pair
//! filters (welds, excludes, allowed-collision matrix, neutral-pose exclusions) and the narrow phase's thread pool.
//! It is built with the `&mut self` methods (bodies, geoms, welds, excludes, allowed-collision matrix, the
//! neutral-pose filter) and then only read: the per-step state lives in [`CollisionData`](super::CollisionData), so
//! one model serves many data (a batch of environments). A model shared by `Arc` is fixed; changing its filters
//! means building a new one (or using [`CollisionWorld`](super::CollisionWorld), which owns its model).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use glam::DQuat;
use signorini_geometry::{ConvexMesh, Pose, Shape};

use super::options::CollisionOptions;
use super::tables::{BodyDesc, BodyTable, GeomDesc, GeomTable};
use crate::broad::GeomPair;
use crate::contact_set::MixedParams;
use crate::dialect::{PairDispatcher, ParamMixing};
use crate::error::{CollisionError, Result};
use crate::filter::{AllowedCollisionMatrix, FilterReason, PairFilter, PairRules};
use crate::query::ContactRequest;

/// A collision model (see the module docs). `Send + Sync`; cloning it shares the thread pool.
#[derive(Debug, Clone)]
pub struct CollisionModel {
    pub(crate) options: CollisionOptions,
    pub(crate) bodies: BodyTable,
    body_names: BTreeMap<String, usize>,
    pub(crate) geoms: GeomTable,
    /// Geoms on bodies welded to the world.
    pub(crate) geom_fixed: Vec<bool>,
    /// Each geom's perturbation frame in its geom frame: its body's inertial frame
    /// ([`BodyDesc::inertial_rotation`]).
    pub(crate) geom_frame: Vec<DQuat>,
    /// Convex hulls of box geoms, for `box_box_detection = false`.
    pub(crate) hulls: Vec<Option<Shape>>,
    /// Number of box geoms (for Genesis's `n_contacts_per_pair`).
    pub(crate) n_boxes: usize,
    pub(crate) filter: PairFilter,
    /// Explicit geom pairs (MuJoCo `<contact><pair>`), sorted by their geoms `(low, high)`, with their own parameters.
    pub(crate) explicit_pairs: Vec<(GeomPair, MixedParams)>,
    pub(crate) pool: Option<Arc<rayon::ThreadPool>>,
    /// The dialect's pair dispatch, from `options.dialect`.
    pub(crate) dispatcher: Arc<dyn PairDispatcher>,
    /// The narrow-phase request every pair starts from (the dispatcher's defaults under the options), and the
    /// dispatcher's mixing rule: both fixed with the options, so a step asks the dispatcher for neither.
    pub(crate) request: ContactRequest,
    pub(crate) mixing: ParamMixing,
    /// Each geom's type rank under the dispatcher ([`PairDispatcher::type_rank`]), which orders the narrow phase's
    /// pairs.
    pub(crate) geom_type_rank: Vec<Option<u8>>,
    /// The pruning tolerance in force: `options.contact_pruning_tolerance` where the dialect prunes, else 0 (see
    /// [`prunes`](Self::prunes)).
    pub(crate) prune_tolerance: f64,
    /// Genesis's default post-pruning budget, computed on first need (see [`CollisionOptions::max_contacts`]).
    pub(crate) pruned_budget: OnceLock<usize>,
}

#[inline]
pub(crate) fn check_pose(p: &Pose) -> std::result::Result<(), String> {
    let n2 = p.rotation.length_squared();
    if !p.translation.is_finite() {
        return Err(format!("translation {} is not finite", p.translation));
    }
    if !p.rotation.is_finite() || (n2 - 1.0).abs() > 2.0 * signorini_geometry::pose::QUAT_NORM_TOLERANCE {
        return Err(format!("rotation {} is not a unit quaternion", p.rotation));
    }
    Ok(())
}

impl CollisionModel {
    /// Runs `op` on a worker of the narrow phase's thread pool (on this thread when `threads` is 1) and returns its
    /// result. Steps made inside `op` start their parallel narrow phase on that worker, which keeps the pairs unless
    /// another worker is awake to steal some. A step made outside hands its narrow phase to the pool and waits for a
    /// worker to wake and take it, once per step: on the 2-core test machine that made 2 threads slower than one on
    /// `pile` in 3 of 4 interleaved runs, and a loop of steps inside `install` faster (docs/COLLISION_PIPELINE.md).
    pub fn install<R: Send>(&self, op: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(op),
            None => op(),
        }
    }
}

fn build_pool(threads: usize) -> Result<Option<Arc<rayon::ThreadPool>>> {
    if threads <= 1 {
        return Ok(None);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("signorini-collision-{i}"))
        .build()
        .map(|pool| Some(Arc::new(pool)))
        .map_err(|e| CollisionError::InvalidRequest { what: format!("cannot start {threads} threads: {e}") })
}

impl CollisionModel {
    /// An empty model (only the world body, index 0, named `"world"`) with validated options.
    pub fn new(options: CollisionOptions) -> Result<Self> {
        options.validate()?;
        let mut bodies = BodyTable::default();
        bodies.name.push("world".into());
        bodies.parent.push(None);
        bodies.moving_joint.push(false);
        bodies.entity.push(0);
        bodies.fixed.push(true);
        bodies.dofless.push(true);
        bodies.root.push(0);
        bodies.weld_root.push(0);
        bodies.inertial_rotation.push(DQuat::IDENTITY);
        let mut model = Self {
            options,
            bodies,
            body_names: BTreeMap::from([("world".to_string(), 0)]),
            geoms: GeomTable::default(),
            geom_fixed: Vec::new(),
            geom_frame: Vec::new(),
            hulls: Vec::new(),
            explicit_pairs: Vec::new(),
            n_boxes: 0,
            filter: PairFilter::default(),
            pool: build_pool(options.threads)?,
            dispatcher: options.dialect.dispatcher(),
            request: ContactRequest::default(),
            mixing: ParamMixing::Genesis,
            geom_type_rank: Vec::new(),
            prune_tolerance: 0.0,
            pruned_budget: OnceLock::new(),
        };
        model.refresh_dispatch_settings();
        Ok(model)
    }

    /// The options in force.
    pub fn options(&self) -> &CollisionOptions {
        &self.options
    }

    /// Replaces the options (validated); a new `threads` restarts the thread pool. A [`CollisionData`] made for
    /// the old options must be [`sync`](super::CollisionData::sync)ed.
    ///
    /// [`CollisionData`]: super::CollisionData
    pub fn set_options(&mut self, options: CollisionOptions) -> Result<()> {
        options.validate()?;
        if self.options.threads != options.threads {
            self.pool = build_pool(options.threads)?;
        }
        if self.options.dialect != options.dialect {
            self.dispatcher = options.dialect.dispatcher();
        }
        self.options = options;
        self.refresh_dispatch_settings();
        Ok(())
    }

    /// Sets the request, mixing rule, geom type ranks and pruning tolerance of the current options, dispatcher and
    /// geoms; forgets
    /// the budget computed from the pair filters.
    fn refresh_dispatch_settings(&mut self) {
        self.request = self.options.contact_request(self.dispatcher.default_request());
        self.mixing = self.dispatcher.param_mixing();
        self.geom_type_rank.clear();
        self.geom_type_rank.extend(self.geoms.shape.iter().map(|s| self.dispatcher.type_rank(s)));
        self.prune_tolerance =
            if self.dispatcher.prunes_contacts() { self.options.contact_pruning_tolerance } else { 0.0 };
        self.pruned_budget = OnceLock::new();
    }

    /// Whether the step prunes this model's contacts: the dialect prunes (native) and the tolerance is positive.
    /// Genesis 1.4.5 prunes every model outside its performance mode (its `has_prunable_contacts` holds whenever
    /// `gs.use_ndarray` does, the default); G-W pruned only models whose contacts of two geom pairs could share a link
    /// pair.
    pub fn prunes(&self) -> bool {
        self.prune_tolerance > 0.0
    }

    /// The pruning tolerance in force ([`crate::prune`]): the option where the dialect prunes, else 0.
    pub fn prune_tolerance(&self) -> f64 {
        self.prune_tolerance
    }

    /// The post-pruning contact budget in force (see [`CollisionOptions::max_contacts`]).
    pub fn max_contacts(&self) -> usize {
        let candidates = crate::capacity::contact_budget(&self.options, self.n_boxes);
        match self.options.max_contacts {
            Some(m) => m.min(candidates),
            None if self.prune_tolerance > 0.0 => {
                candidates.min(*self.pruned_budget.get_or_init(|| self.pruned_contact_budget()))
            }
            None => candidates,
        }
    }

    /// G-W's `_init_max_contacts` with pruning: `max(Σ over link pairs of min(Σ of their geom pairs' caps, 32),
    /// 512)`, over the geom pairs the filters let through and the explicit pairs.
    fn pruned_contact_budget(&self) -> usize {
        const PER_LINK_PAIR: usize = 32;
        let n = self.geoms.len();
        let mut per_link_pair: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        let mut add = |i: usize, j: usize| {
            let (a, b) = (self.geoms.body[i], self.geoms.body[j]);
            let (cap, _) = crate::capacity::pair_contact_cap(
                &self.options,
                self.geoms.shape[i].kind(),
                self.geoms.shape[j].kind(),
            );
            *per_link_pair.entry((a.min(b), a.max(b))).or_default() += cap;
        };
        for i in 0..n {
            for j in i + 1..n {
                if self.explicit_pair_index([i as u32, j as u32]).is_some()
                    || self.filter_reason_with(i, j, PairRules::ALL).is_none()
                {
                    add(i, j);
                }
            }
        }
        // An explicit pair given again collides again.
        for w in self.explicit_pairs.windows(2).filter(|w| w[0].0 == w[1].0) {
            add(w[1].0[0] as usize, w[1].0[1] as usize);
        }
        per_link_pair
            .values()
            .map(|&c| c.min(PER_LINK_PAIR))
            .sum::<usize>()
            .max(crate::capacity::PRUNED_BUDGET_FLOOR)
    }

    /// The bodies.
    pub fn bodies(&self) -> &BodyTable {
        &self.bodies
    }

    /// The geoms.
    pub fn geoms(&self) -> &GeomTable {
        &self.geoms
    }

    /// Each geom's perturbation frame in its geom frame: its body's inertial frame
    /// ([`BodyDesc::inertial_rotation`]), which a pair's request carries as
    /// [`ContactRequest::frames`](crate::query::ContactRequest::frames).
    pub fn geom_frames(&self) -> &[DQuat] {
        &self.geom_frame
    }

    /// The index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.body_names.get(name).copied()
    }

    /// Adds a body; returns its index. Errors: unknown parent, duplicate non-empty name.
    pub fn add_body(&mut self, desc: BodyDesc) -> Result<usize> {
        let idx = self.bodies.len();
        self.pruned_budget = OnceLock::new();
        if desc.parent >= idx {
            return Err(CollisionError::InvalidWorld {
                what: format!(
                    "body `{}`: parent {} does not exist (there are {idx} bodies)",
                    desc.name, desc.parent
                ),
            });
        }
        if !desc.name.is_empty() && self.body_names.contains_key(&desc.name) {
            return Err(CollisionError::InvalidWorld {
                what: format!("duplicate body name `{}`", desc.name),
            });
        }
        let frame = Pose { translation: glam::DVec3::ZERO, rotation: desc.inertial_rotation };
        if let Err(e) = check_pose(&frame) {
            return Err(CollisionError::InvalidWorld {
                what: format!("body `{}`: inertial frame: {e}", desc.name),
            });
        }
        let p = desc.parent;
        let root = if p == 0 { idx } else { self.bodies.root[p] };
        let weld_root = if desc.moving_joint || desc.kinematic { idx } else { self.bodies.weld_root[p] };
        let dofless = !desc.moving_joint && (desc.kinematic || self.bodies.dofless[p]);
        let b = &mut self.bodies;
        b.parent.push(Some(p));
        b.moving_joint.push(desc.moving_joint);
        b.entity.push(desc.entity);
        b.fixed.push(weld_root == 0);
        b.dofless.push(dofless);
        b.root.push(root);
        b.weld_root.push(weld_root);
        b.inertial_rotation.push(desc.inertial_rotation);
        if !desc.name.is_empty() {
            self.body_names.insert(desc.name.clone(), idx);
        }
        b.name.push(desc.name);
        Ok(idx)
    }

    /// Adds a geom; returns its index. Errors name the geom and the bad parameter.
    pub fn add_geom(&mut self, desc: GeomDesc) -> Result<usize> {
        let idx = self.geoms.len();
        let label =
            if desc.name.is_empty() { format!("geom {idx}") } else { format!("geom `{}`", desc.name) };
        let bad = |what: String| Err(CollisionError::InvalidWorld { what: format!("{label}: {what}") });
        if idx + 1 >= u32::MAX as usize {
            return bad("too many geoms".into());
        }
        if desc.body >= self.bodies.len() {
            return bad(format!("body {} does not exist", desc.body));
        }
        if let Err(e) = check_pose(&desc.local_pose) {
            return bad(format!("local pose: {e}"));
        }
        if !matches!(desc.condim, 1 | 3 | 4 | 6) {
            return bad(format!("condim must be 1, 3, 4 or 6, got {}", desc.condim));
        }
        let finite_nonneg = |x: f64| x.is_finite() && x >= 0.0;
        if !desc.friction.iter().all(|&x| finite_nonneg(x)) {
            return bad(format!("friction must be finite and ≥ 0, got {:?}", desc.friction));
        }
        if !desc.solref.iter().chain(&desc.solimp).all(|x| x.is_finite()) {
            return bad(format!("solref/solimp must be finite, got {:?} / {:?}", desc.solref, desc.solimp));
        }
        if !desc.adhesion.is_finite() {
            return bad(format!("adhesion must be finite, got {}", desc.adhesion));
        }
        for (name, v) in [("solmix", desc.solmix), ("margin", desc.margin), ("gap", desc.gap)] {
            if !finite_nonneg(v) {
                return bad(format!("{name} must be finite and ≥ 0, got {v}"));
            }
        }
        let hull = match &desc.shape {
            Shape::Box(b) => Some(Shape::from(ConvexMesh::from_points(&b.corners())?)),
            _ => None,
        };
        let g = &mut self.geoms;
        g.name.push(desc.name);
        g.shape.push(desc.shape);
        g.body.push(desc.body);
        g.local_pose.push(desc.local_pose);
        g.contype.push(desc.contype);
        g.conaffinity.push(desc.conaffinity);
        g.condim.push(desc.condim);
        g.friction.push(desc.friction);
        g.solref.push(desc.solref);
        g.solimp.push(desc.solimp);
        g.priority.push(desc.priority);
        g.solmix.push(desc.solmix);
        g.margin.push(desc.margin);
        g.gap.push(desc.gap);
        g.adhesion.push(desc.adhesion);
        self.geom_fixed.push(self.bodies.fixed[desc.body]);
        self.geom_frame.push(desc.local_pose.rotation.conjugate() * self.bodies.inertial_rotation[desc.body]);
        self.n_boxes += usize::from(hull.is_some());
        self.hulls.push(hull);
        self.refresh_dispatch_settings();
        Ok(idx)
    }

    /// Why geoms `ga` and `gb` are never examined (`None`: they are), with every rule of [`crate::filter`].
    pub fn filter_reason(&self, ga: usize, gb: usize) -> Result<Option<FilterReason>> {
        let n = self.geoms.len();
        if ga >= n || gb >= n || ga == gb {
            return Err(CollisionError::InvalidRequest {
                what: format!("[{ga}, {gb}] is not a pair of distinct geoms among {n}"),
            });
        }
        Ok(self.filter_reason_with(ga, gb, PairRules::ALL))
    }

    pub(crate) fn filter_reason_with(&self, ga: usize, gb: usize, rules: PairRules) -> Option<FilterReason> {
        self.filter.reason(&self.bodies, &self.geoms, &self.options, ga, gb, rules)
    }

    pub(crate) fn check_body(&self, b: usize) -> Result<()> {
        if b < self.bodies.len() {
            Ok(())
        } else {
            Err(CollisionError::InvalidRequest {
                what: format!("body {b} does not exist (there are {})", self.bodies.len()),
            })
        }
    }

    /// Registers a weld equality between two bodies (spec §A.2 rule 6, §A.3): their geoms never collide.
    pub fn add_weld(&mut self, a: usize, b: usize) -> Result<()> {
        self.check_body(a)?;
        self.check_body(b)?;
        self.filter.welds.insert((a.min(b), a.max(b)));
        self.pruned_budget = OnceLock::new();
        Ok(())
    }

    /// Removes a weld registered with [`add_weld`](Self::add_weld); returns whether it existed.
    pub fn remove_weld(&mut self, a: usize, b: usize) -> bool {
        self.pruned_budget = OnceLock::new();
        self.filter.welds.remove(&(a.min(b), a.max(b)))
    }

    /// Adds an explicit geom pair (MuJoCo `<contact><pair>`): it collides whatever the filters (masks, parent,
    /// exclusions, welds, allowed-collision matrix) say, within `params.margin + params.gap`, with `params` instead of
    /// the geoms' mixed parameters; the broad phase's pair of the same geoms is replaced by it. The same geoms
    /// paired again make a second pair with its own parameters, whose contacts come after the first's (MuJoCo makes
    /// each `<pair>` element's contacts). Errors: a geom index out of range, a geom paired with itself.
    pub fn add_explicit_pair(&mut self, a: usize, b: usize, params: MixedParams) -> Result<()> {
        let n = self.geoms.len();
        if a >= n || b >= n || a == b {
            return Err(CollisionError::InvalidRequest {
                what: format!("explicit pair [{a}, {b}] is not a pair of distinct geoms among {n}"),
            });
        }
        let key = [a.min(b) as u32, a.max(b) as u32];
        let at = self.explicit_pairs.partition_point(|(k, _)| *k <= key);
        self.explicit_pairs.insert(at, (key, params));
        self.pruned_budget = OnceLock::new();
        Ok(())
    }

    /// The index in `explicit_pairs` of the (first) explicit pair of geoms `pair` (either order), if it is one.
    #[inline]
    pub(crate) fn explicit_pair_index(&self, pair: GeomPair) -> Option<u32> {
        if self.explicit_pairs.is_empty() {
            return None;
        }
        let key = if pair[0] <= pair[1] { pair } else { [pair[1], pair[0]] };
        let at = self.explicit_pairs.partition_point(|(k, _)| *k < key);
        (self.explicit_pairs.get(at).is_some_and(|(k, _)| *k == key)).then_some(at as u32)
    }

    /// The parameters of explicit pair `e` (an index of [`Self::explicit_pair_index`]); `None` for
    /// [`NOT_EXPLICIT`](super::data::NOT_EXPLICIT).
    #[inline]
    pub(crate) fn explicit_params(&self, e: u32) -> Option<&MixedParams> {
        self.explicit_pairs.get(e as usize).map(|(_, p)| p)
    }

    /// Excludes a body pair from contact (MJCF `<contact><exclude>`).
    pub fn exclude_bodies(&mut self, a: usize, b: usize) -> Result<()> {
        self.check_body(a)?;
        self.check_body(b)?;
        self.filter.excludes.insert((a.min(b), a.max(b)));
        self.pruned_budget = OnceLock::new();
        Ok(())
    }

    /// Declares the `contype`/`conaffinity` masks of `entity` local (Genesis's `is_local_collision_mask`): masks
    /// then apply only within the entity and against entities that are not local.
    pub fn set_local_collision_mask(&mut self, entity: u32, local: bool) {
        self.pruned_budget = OnceLock::new();
        if local {
            self.filter.local_mask_entities.insert(entity);
        } else {
            self.filter.local_mask_entities.remove(&entity);
        }
    }

    /// The allowed-collision matrix in force.
    pub fn acm(&self) -> &AllowedCollisionMatrix {
        &self.filter.acm
    }

    /// Replaces the allowed-collision matrix. Errors: an entry naming a body that does not exist.
    pub fn set_acm(&mut self, acm: AllowedCollisionMatrix) -> Result<()> {
        for (a, b, _) in acm.iter() {
            self.check_body(a)?;
            self.check_body(b)?;
        }
        self.filter.acm = acm;
        self.pruned_budget = OnceLock::new();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<CollisionModel>();
    }
}
