//! Hibernation (`reference-semantics.md` §E; G-W hibernation v2, MuJoCo `engine_sleep.c`): islands of kinematic
//! trees at rest go to sleep and cost almost nothing until something awake touches them.
//!
//! - **Rest test**, per tree once a step: `max_i |q̇_i| · dof_length_i < hibernation_thresh_vel` over its dofs
//!   (`dof_length` turns angular speed into surface speed), with no applied force (`qfrc_applied`, `xfrc_applied`)
//!   and, natively, no nonzero `ctrl` acting on it. A tree counts its consecutive steps at rest. Its policy
//!   ([`SleepPolicy`], MJCF body `sleep`) may forbid it (`never`: its island stays awake); MuJoCo's automatic policy
//!   (MuJoCo-compatible mode) forbids actuated trees and trees coupled by a compliant tendon instead of looking at
//!   the controls. `init` trees start asleep at every reset.
//! - **Sleep**: an island (trees linked by this step's rows: contacts, equalities) sleeps when every tree in it has
//!   been at rest for [`MIN_STEPS`] steps. Its velocities are zeroed and its trees form one sleeping group.
//!   Genesis decides after the step has advanced, from the new velocities. MuJoCo decides before, from the
//!   velocities the step's dynamics were evaluated at; the step then solves again with the sleepers at rest, advances
//!   the awake trees with the first solve and leaves the second for read-back and the next warm start.
//! - **While asleep**: the collision world pairs its geoms only with awake moving geoms (no contact with the static
//!   world or another sleeper, so no rows), its accelerations are held at zero, so its state does not change, and
//!   the forward stages skip its bodies and dofs ([`Data::set_awake`]).
//! - **Wake**: a contact between an awake tree and a sleeping one wakes the sleeper's whole group (the step's
//!   collision then runs again with it awake); setting the state or `ctrl`, or a reset, wakes everything.
//! - **Read-back** (native dialect, seed 001 §8.4, Genesis): a group keeps the contacts of the step it fell asleep
//!   in, with their solved forces, in the contact read-back (and the net contact forces) until it wakes: a resting
//!   body still reads its support. MuJoCo's dialect drops them, as MuJoCo 4.0 reports no contact for a sleeper.

use signorini_collision::contact_set::ContactSet;
use signorini_constraints::ConstraintRows;
use signorini_model::spec::SleepPolicy;
use signorini_model::{Data, Model, Transmission};
use signorini_solver::islands::Islands;

use crate::readback::Contacts;

/// Consecutive steps at rest before a tree may sleep (G-W `hibernation_min_steps`, MuJoCo `mjMINAWAKE`).
pub const MIN_STEPS: u32 = 10;

/// The dialect's answers to how hibernation behaves (see [`crate::dialect::DialectStages::sleep_rules`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SleepRules {
    /// A step decides which trees sleep before it advances, from the velocities its dynamics were evaluated at, and
    /// then solves again with the sleepers at rest (MuJoCo 4.0's `mj_advance`: the step integrates with the first
    /// solve, the next one warm-starts from the second); otherwise after it advances, from the new velocities
    /// (Genesis's contact-force pass).
    pub decides_before_advance: bool,
    /// A sleeping group keeps the contacts (and forces) of the step it fell asleep in for read-back (Genesis, seed
    /// 001 §8.4); otherwise a sleeper reports none (MuJoCo 4.0).
    pub keeps_contacts: bool,
    /// A non-zero control keeps the trees it acts on awake (Genesis); otherwise the sleep policy decides (MuJoCo).
    pub ctrl_keeps_awake: bool,
    /// A tree woken by a contact takes the rest count of the awake tree that touched it, and a tree touched again
    /// in the same step keeps the smaller count (MuJoCo's `mj_wakeCollision`); otherwise it starts again from zero.
    pub woken_take_toucher_rest: bool,
    /// A reset that puts `init` trees to sleep does what MuJoCo's `mj_resetData` does: it counts one step at rest
    /// for every other tree (`mj_sleep` runs once), and the sleepers' `qacc_smooth` and `qfrc_smooth` read zero
    /// until they wake (it clears them, and no forward pass computes a sleeper).
    pub init_reset_as_mujoco: bool,
}

/// The sleep state of every kinematic tree.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hibernation {
    threshold: f64,
    /// Per tree: its sleep policy (`Never`, `Allowed` or `Init`).
    policy: Vec<SleepPolicy>,
    rules: SleepRules,
    /// The tree of every body (`None`: welded to the world; dofs: [`Model::dof_treeid`]).
    body_tree: Vec<Option<usize>>,
    /// Per body, whether it is a mocap body (without dofs, yet moving: its touch wakes a sleeper).
    body_mocap: Vec<bool>,
    /// The dofs of tree `t`: `tree_dofs[tree_start[t]..tree_start[t + 1]]`.
    tree_start: Vec<usize>,
    tree_dofs: Vec<usize>,
    /// Consecutive steps at rest, and the sleeping group (`None`: awake).
    rest_steps: Vec<u32>,
    group: Vec<Option<usize>>,
    /// Per tree, whether it slept when [`Hibernation::wake_on_contacts`] began (scratch).
    was_asleep: Vec<bool>,
    /// Whether the next forward pass follows a reset whose sleepers' smooth dynamics are to be cleared.
    clear_smooth: bool,
    next_group: usize,
    /// Per body, for the collision world, and its complement for [`Data::set_awake`].
    body_asleep: Vec<bool>,
    body_awake: Vec<bool>,
    /// Trees pinned awake this step (an applied force or a control acts on them).
    driven: Vec<bool>,
    /// The islands of the last step's rows, and whether each (then each row-less tree) may sleep.
    islands: Islands,
    island_ok: Vec<bool>,
    /// The contacts kept for read-back by sleeping groups, and the group of each (see the module docs).
    kept: Contacts,
    kept_group: Vec<usize>,
}

impl Hibernation {
    /// All trees awake; `threshold` in m/s; `policy` per tree.
    pub(crate) fn new(
        model: &Model,
        threshold: f64,
        policy: &[SleepPolicy],
        rules: SleepRules,
    ) -> Hibernation {
        let (dof_tree, ntrees) = (&model.dof_treeid, model.ntree);
        let body_tree = (0..model.nbody).map(|b| model.body_lastdof[b].map(|d| dof_tree[d])).collect();
        let mut tree_start = vec![0; ntrees + 1];
        for &t in dof_tree {
            tree_start[t + 1] += 1;
        }
        for t in 0..ntrees {
            tree_start[t + 1] += tree_start[t];
        }
        let mut fill = tree_start.clone();
        let mut tree_dofs = vec![0; model.nv];
        for (d, &t) in dof_tree.iter().enumerate() {
            tree_dofs[fill[t]] = d;
            fill[t] += 1;
        }
        Hibernation {
            threshold,
            policy: policy.to_vec(),
            rules,
            body_tree,
            body_mocap: model.body_mocapid.iter().map(Option::is_some).collect(),
            tree_start,
            tree_dofs,
            rest_steps: vec![0; ntrees],
            group: vec![None; ntrees],
            was_asleep: Vec::with_capacity(ntrees),
            clear_smooth: false,
            next_group: 0,
            body_asleep: vec![false; model.nbody],
            body_awake: vec![true; model.nbody],
            driven: vec![false; ntrees],
            islands: Islands::default(),
            island_ok: Vec::new(),
            kept: Contacts::default(),
            kept_group: Vec::new(),
        }
    }

    /// The dialect's rules this state follows.
    pub(crate) fn rules(&self) -> SleepRules {
        self.rules
    }

    /// Sleep flags per body (the world body first), for [`signorini_collision::world::CollisionWorld::set_asleep`].
    pub(crate) fn asleep_bodies(&self) -> &[bool] {
        &self.body_asleep
    }

    /// Awake flags per body, for [`Data::set_awake`] (the forward stages skip sleeping trees).
    pub(crate) fn awake_bodies(&self) -> &[bool] {
        &self.body_awake
    }

    /// Whether tree `t` sleeps.
    pub(crate) fn is_asleep(&self, t: usize) -> bool {
        self.group.get(t).is_some_and(Option::is_some)
    }

    /// Number of sleeping trees.
    pub(crate) fn sleeping_trees(&self) -> usize {
        self.group.iter().filter(|g| g.is_some()).count()
    }

    /// Wakes every tree and restarts the rest counts.
    pub(crate) fn wake_all(&mut self) {
        self.kept = Contacts::default();
        self.kept_group.clear();
        self.group.fill(None);
        self.rest_steps.fill(0);
        self.body_asleep.fill(false);
        self.body_awake.fill(true);
    }

    /// The state of [`Hibernation::new`]: all awake, no step at rest, group numbering restarted.
    pub(crate) fn reset(&mut self) {
        self.wake_all();
        self.next_group = 0;
        self.driven.fill(false);
    }

    /// Puts the trees whose policy is [`SleepPolicy::Init`] to sleep, each as its own group, when they are at their
    /// initial state (`qpos0`, at rest), as MuJoCo does at a reset (a keyframe that moves them leaves them awake).
    /// Then, by [`SleepRules::init_reset_as_mujoco`], counts a step at rest for the others and has the next
    /// [`Hibernation::clear_reset_smooth`] clear the sleepers' smooth dynamics.
    pub(crate) fn sleep_initial(&mut self, model: &Model, data: &mut Data) {
        let mut slept = false;
        for t in 0..self.policy.len() {
            if self.policy[t] != SleepPolicy::Init || self.group[t].is_some() {
                continue;
            }
            let dofs = &self.tree_dofs[self.tree_start[t]..self.tree_start[t + 1]];
            let still = dofs.iter().all(|&d| data.qvel[d] == 0.0);
            let at_qpos0 = dofs.iter().all(|&d| {
                let j = model.dof_jntid[d];
                let range = model.jnt_qposadr[j]..model.jnt_qposadr[j] + model.jnt_type[j].nq();
                data.qpos[range.clone()] == model.qpos0[range]
            });
            if still && at_qpos0 {
                self.group[t] = Some(self.next_group + t);
                slept = true;
            }
        }
        if slept {
            self.next_group += self.policy.len();
            self.refresh_bodies();
        }
        self.clear_smooth = slept && self.rules.init_reset_as_mujoco;
        if self.rules.init_reset_as_mujoco && self.policy.contains(&SleepPolicy::Init) {
            // MuJoCo counts at `qpos0` and zero velocity, before a keyframe sets the state.
            for t in 0..self.policy.len() {
                if self.group[t].is_none() && self.policy[t] != SleepPolicy::Never {
                    self.rest_steps[t] = self.rest_steps[t].saturating_add(1);
                }
            }
        }
    }

    /// After the first forward pass since a reset that put trees to sleep (see [`SleepRules::init_reset_as_mujoco`]):
    /// zeroes the sleepers' `qacc_smooth` and `qfrc_smooth`, which that pass computed and MuJoCo's reset clears.
    pub(crate) fn clear_reset_smooth(&mut self, model: &Model, data: &mut Data) {
        if !std::mem::take(&mut self.clear_smooth) {
            return;
        }
        for (d, &t) in model.dof_treeid.iter().enumerate() {
            if self.group[t].is_some() {
                data.qacc_smooth[d] = 0.0;
                data.qfrc_smooth[d] = 0.0;
            }
        }
    }

    /// `max_i |q̇_i| · dof_length_i` over the dofs of tree `t`.
    fn tree_speed(&self, model: &Model, data: &Data, t: usize) -> f64 {
        let dofs = &self.tree_dofs[self.tree_start[t]..self.tree_start[t + 1]];
        dofs.iter().map(|&d| data.qvel[d].abs() * model.dof_length[d]).fold(0.0, f64::max)
    }

    /// Wakes the group of every tree asleep before the call that touches a tree awake before it, or a mocap body, in
    /// `contacts`; returns whether any woke. The woken trees' rest counts follow
    /// [`SleepRules::woken_take_toucher_rest`]; a mocap body's touch restarts them (MuJoCo's `mj_wakeCollision`).
    pub(crate) fn wake_on_contacts(&mut self, contacts: &ContactSet) -> bool {
        self.was_asleep.clear();
        self.was_asleep.extend(self.group.iter().map(Option::is_some));
        let mut woke = false;
        for (&a, &b) in contacts.link_a.iter().zip(&contacts.link_b) {
            for (sleeper, other) in [(a, b), (b, a)] {
                let Some(s) = self.body_tree[sleeper] else { continue };
                let rest = match self.body_tree[other] {
                    Some(o) if !self.was_asleep[o] => {
                        if self.rules.woken_take_toucher_rest {
                            self.rest_steps[o]
                        } else {
                            0
                        }
                    }
                    None if self.body_mocap[other] => 0,
                    _ => continue,
                };
                if !self.was_asleep[s] {
                    continue;
                }
                match self.group[s] {
                    Some(g) => {
                        self.wake_group(g, rest);
                        woke = true;
                    }
                    // Woken earlier in this pass and touched again: the smaller count.
                    None => self.rest_steps[s] = self.rest_steps[s].min(rest),
                }
            }
        }
        if woke {
            self.refresh_bodies();
        }
        woke
    }

    /// Wakes group `g`, its trees with `rest` steps at rest.
    fn wake_group(&mut self, g: usize, rest: u32) {
        for (group, steps) in self.group.iter_mut().zip(self.rest_steps.iter_mut()) {
            if *group == Some(g) {
                *group = None;
                *steps = rest;
            }
        }
        if self.kept_group.contains(&g) {
            let groups = std::mem::take(&mut self.kept_group);
            self.kept.retain(|k| groups[k] != g);
            self.kept_group = groups.into_iter().filter(|&h| h != g).collect();
        }
    }

    /// The group numbering before a step's [`Hibernation::update`]: groups at or above it fell asleep in that step.
    pub(crate) fn groups_before(&self) -> usize {
        self.next_group
    }

    /// Keeps, for read-back, the contacts of `step` (this step's, with forces) that involve a tree of a group formed
    /// at or after `first_new` (see the module docs).
    pub(crate) fn keep_contacts(&mut self, step: &Contacts, first_new: usize) {
        for k in 0..step.len() {
            let group = |b: usize| self.body_tree[b].and_then(|t| self.group[t]).filter(|&g| g >= first_new);
            if let Some(g) = group(step.link_a[k]).or(group(step.link_b[k])) {
                self.kept.push_from(step, k);
                self.kept_group.push(g);
            }
        }
    }

    /// The contacts kept by sleeping groups.
    pub(crate) fn kept_contacts(&self) -> &Contacts {
        &self.kept
    }

    fn refresh_bodies(&mut self) {
        for ((asleep, awake), tree) in
            self.body_asleep.iter_mut().zip(&mut self.body_awake).zip(&self.body_tree)
        {
            *asleep = tree.is_some_and(|t| self.group[t].is_some());
            *awake = !*asleep;
        }
    }

    /// Holds the accelerations of sleeping trees at zero.
    pub(crate) fn freeze(&self, model: &Model, qacc: &mut [f64]) {
        for (q, &t) in qacc.iter_mut().zip(&model.dof_treeid) {
            if self.group[t].is_some() {
                *q = 0.0;
            }
        }
    }

    /// Sets the constraint force of every sleeping dof to `−f_s`, the force that holds its tree still: an implicit
    /// update from `f_s + Jᵀf` then leaves it at rest, as [`Self::freeze`] does for an update from the acceleration.
    pub(crate) fn hold_still(&self, model: &Model, qfrc_smooth: &[f64], qfrc_constraint: &mut [f64]) {
        for ((c, &f), &t) in qfrc_constraint.iter_mut().zip(qfrc_smooth).zip(&model.dof_treeid) {
            if self.group[t].is_some() {
                *c = -f;
            }
        }
    }

    /// Counts the awake trees' steps at rest (at `data`'s velocities) and puts every island (trees linked by `rows`)
    /// whose trees have all rested [`MIN_STEPS`] steps to sleep, zeroing its velocities; returns whether any tree
    /// fell asleep. The step calls it before or after advancing, as its dialect says.
    pub(crate) fn update(&mut self, model: &Model, data: &mut Data, rows: &ConstraintRows) -> bool {
        let ntrees = self.rest_steps.len();
        self.driven.fill(false);
        for (t, p) in self.policy.iter().enumerate() {
            if *p == SleepPolicy::Never {
                self.driven[t] = true;
            }
        }
        for (d, &f) in data.qfrc_applied.iter().enumerate() {
            if f != 0.0 {
                self.driven[model.dof_treeid[d]] = true;
            }
        }
        for (b, w) in data.xfrc_applied.iter().enumerate() {
            if let Some(t) = self.body_tree[b]
                && (w.force.length_squared() + w.torque.length_squared()) > 0.0
            {
                self.driven[t] = true;
            }
        }
        for (u, &c) in data.ctrl.iter().enumerate() {
            if c != 0.0 && self.rules.ctrl_keeps_awake {
                match model.actuator_transmission[u] {
                    Transmission::Joint(j) => self.driven[model.dof_treeid[model.jnt_dofadr[j]]] = true,
                    Transmission::Tendon(t) => {
                        for (dof, _) in data.tendon_jacobian(t) {
                            self.driven[model.dof_treeid[dof]] = true;
                        }
                    }
                    Transmission::Site { .. } | Transmission::SliderCrank { .. } | Transmission::Body(_) => {
                        let r = model.actuator_momentadr[u].unwrap_or_default();
                        let row = &data.actuator_moment[r * model.nv..(r + 1) * model.nv];
                        for (dof, &j) in row.iter().enumerate() {
                            if j != 0.0 {
                                self.driven[model.dof_treeid[dof]] = true;
                            }
                        }
                    }
                }
            }
        }
        for t in 0..ntrees {
            if self.group[t].is_some() {
                continue;
            }
            let at_rest = !self.driven[t] && self.tree_speed(model, data, t) < self.threshold;
            self.rest_steps[t] = if at_rest { self.rest_steps[t].saturating_add(1) } else { 0 };
        }

        // Islands of trees linked by the rows (the solver's, §C.6); a tree without rows is an island of its own. A
        // sleeping tree has no contact rows; an equality row to one links it too, which keeps the island awake since
        // sleepers are not counted as rested.
        self.islands.build(model, rows);
        let nislands = self.islands.count();
        let island = |t: usize| {
            let first = self.tree_dofs[self.tree_start[t]];
            self.islands.dof_island[first].map_or(nislands + t, |i| i as usize)
        };
        self.island_ok.clear();
        self.island_ok.resize(nislands + ntrees, true);
        for t in 0..ntrees {
            if self.group[t].is_some() || self.rest_steps[t] < MIN_STEPS {
                self.island_ok[island(t)] = false;
            }
        }
        let mut slept = false;
        for t in 0..ntrees {
            let r = island(t);
            if self.island_ok[r] && self.group[t].is_none() {
                // The group is named by the island's root, offset so that groups of different steps differ.
                self.group[t] = Some(self.next_group + r);
                for &d in &self.tree_dofs[self.tree_start[t]..self.tree_start[t + 1]] {
                    data.qvel[d] = 0.0;
                }
                slept = true;
            }
        }
        if slept {
            self.next_group += nislands + ntrees;
            self.refresh_bodies();
        }
        slept
    }
}
