//! [`ConstraintAssembler`]: builds the [`ConstraintRows`] of one state from the model, its [`Data`] (after
//! [`Model::forward_kinematics`], with `qvel` set) and the step's [`ContactSet`] (spec §B.3–§B.9, §B.11).
//!
//! Row order: equality → DOF friction loss → contacts → joint limits (issue 6, Genesis; MuJoCo puts limits before
//! contacts). Per kind, with `pos` the constraint function and `x = pos − margin`:
//!
//! | kind | rows | `J` | imp from | `x` in aref | invweight |
//! |---|---|---|---|---|---|
//! | connect | 3 | `J_p1(p₁) − J_p2(p₂)` | `‖p₁ − p₂‖` | `(p₁ − p₂)_k` | `iw_t1 + iw_t2` |
//! | weld | 6 | + `½ s vec(q₂⁻¹ (0, ω) q₁ relpose)` | `‖(e_p, e_r)‖` | `e_p,k`, `e_r,k` | trans / rot sums |
//! | joint | 1 | `e_d1 − poly′(δ) e_d2` | `|x|` | `x` | `iw_d1 + iw_d2` |
//! | friction loss | 1 | `e_d` | 0 | 0 | `iw_d` |
//! | contact | see below | `(J_A − J_B)(pos)` projected | `dist − margin` | `dist − margin`, 0 for elliptic friction | `iw_tA + iw_tB` |
//! | limit | 1 | `±e_d`; ball: `−a` on its 3 dofs | `|δ − margin|` | `δ − margin` (ball: `δ = max − θ`) | `iw_d` (ball: its first dof) |
//!
//! **Contacts.** `n` points from B to A, so `J_n q̇ = (v_A − v_B)·n` is the separation velocity and
//! `dist = −penetration`. Directions `k = 1..dim−1`: sliding `d₁`, `d₂` (translational, `μ`), spin `n`
//! (rotational, `μ_t`), rolling `d₁`, `d₂` (rotational, `μ_r`), tangents from [`ConstraintOptions::tangent_frame`].
//! `dim` is set by [`ConstraintOptions::contact_dimension`]: the contact's `condim`, or `3 (+1) (+2)` from the
//! torsional/rolling options. `margin` is the contact's `margin` with [`ConstraintOptions::include_contact_margin`]
//! (MuJoCo's `includemargin`; a contact at `dist ≥ margin`, detected within the gap, makes no rows: MuJoCo's
//! `exclude`), else 0.
//! - Pyramidal: edges `J_n + μ_k J_k`, `J_n − μ_k J_k` for each `k` (MuJoCo order), all with `x = dist − margin`,
//!   `R` of [`ConstraintOptions::pyramid_regularizer`]: `2μ²/impratio·(1 + μ²)·iw·(1−imp)/imp` or with
//!   `μ_reg² = μ²/impratio` in both factors. A zero torsional/rolling coefficient gives empty rows with
//!   `aref = 0` (fixed layout) or two copies of `J_n` ([`ConstraintOptions::zero_rotational_friction`]).
//! - Elliptic: `J_n`, then `J_k`; `R₀ = iw (1−imp)/imp`, sliding rows `R₁ = R₀/impratio`, spin/roll
//!   `R₁ μ²/μ_k²` (μ_k² floored at `MINVAL`); cone coefficient `μ/√impratio`; or MuJoCo's rule
//!   ([`ConstraintOptions::elliptic_regularizer`]): every row after the first sliding one `R₁ μ²/μ_k²`, cone
//!   coefficient `μ √(R₁/R₀)`.
//! - `condim` 1 (per-contact `condim` only): the single row `J_n`, `R = iw (1−imp)/imp`.
//!
//! Equality rows are built in `assemble/equality.rs` (with MuJoCo 4.0's `J̇ q̇` of connect and weld rows when
//! [`ConstraintOptions::equality_velocity_bias`] asks), contact rows in `assemble/contact.rs`. A limit side gets its
//! row while `δ < margin` (the joint's or tendon's `margin` under [`ConstraintOptions::limit_margins`], else 0), with
//! `x = δ − margin`. A limited ball joint makes one row when its rotation angle exceeds the larger end
//! of its range (MuJoCo's cone limit, in both dialects: Genesis drops ball-joint ranges).

use crate::mujoco_dot::{MUJOCO_SPARSE_NV, mujoco_jac_row_dot};
use glam::{DQuat, DVec3};
use signorini_collision::contact_set::ContactSet;
use signorini_geometry::rotation::{normalize_quat, normalize_vec3};
use signorini_model::error::object_name;
use signorini_model::model::MINVAL;
use signorini_model::spatial::SpatialVec;
use signorini_model::spec::{SolImp, SolRef};
use signorini_model::{Data, EqualitySpec, JointKind, Model};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::ConstraintError;
use crate::impedance::{ResolvedSol, regularizer};
use crate::options::{
    ConstraintOptions, EllipticRegularizer, FrictionCone, JointLimitSides, PyramidRegularizer,
    ZeroRotationalFriction,
};
use crate::rows::{ConstraintRows, DofIndex, RowData, RowKind};
use crate::sol_overrides::{self, SolOverrides};

mod contact;
mod equality;

/// One Jacobian column of the relative motion of two points: `(dof, linear, angular)`.
#[derive(Debug, Clone, Copy)]
struct Column {
    dof: usize,
    lin: DVec3,
    ang: DVec3,
}

/// An equality with the data it needs every step, resolved at construction (anchors at `qpos0` as MuJoCo's
/// `mj_setConst`).
#[derive(Debug, Clone, Copy)]
enum Equality {
    Connect {
        body1: usize,
        body2: usize,
        anchor1: DVec3,
        anchor2: DVec3,
        sol: ResolvedSol,
    },
    Weld {
        body1: usize,
        body2: usize,
        anchor1: DVec3,
        anchor2: DVec3,
        relquat: DQuat,
        torquescale: f64,
        sol: ResolvedSol,
    },
    Joint {
        dof1: usize,
        qadr1: usize,
        q01: f64,
        second: Option<(usize, usize, f64)>,
        poly: [f64; 5],
        sol: ResolvedSol,
    },
    /// Tendon lengths at `qpos0`.
    Tendon {
        t1: usize,
        l01: f64,
        second: Option<(usize, f64)>,
        poly: [f64; 5],
        sol: ResolvedSol,
    },
}

/// Builds the constraint rows of each step. Configuration only, built once per model and options
/// ([`ConstraintAssembler::new`] validates the options and every `sol_params` of the model and resolves the
/// equalities at `qpos0`), immutable afterwards and `Send + Sync`; [`Self::assemble`] writes the caller's
/// [`AssemblyScratch`] and [`ConstraintRows`].
#[derive(Debug, Clone)]
pub struct ConstraintAssembler {
    /// Unique among the assemblers of this process (clones share it: same options): the key of the scratch's cache.
    id: u64,
    options: ConstraintOptions,
    impratio: f64,
    equalities: Vec<Equality>,
    dof_sol: Vec<ResolvedSol>,
    jnt_sol: Vec<ResolvedSol>,
    /// Per tendon: `(limit, friction)` parameters.
    ten_sol: Vec<(ResolvedSol, ResolvedSol)>,
    /// The standalone free bodies ([`Model::standalone_free_dofs`]) as `(body, first dof)`, when contact rows measure
    /// their acceleration at their centre of mass ([`ConstraintOptions::contact_rows_at_centre_of_mass`]); empty
    /// otherwise.
    anchored: Vec<(usize, usize)>,
}

/// What one environment changes about an assembly (Genesis's per-environment constraint switches and
/// `set_sol_params`): the constraint types it keeps, the equalities switched on, and its `sol_params` replacements.
/// [`EnvironmentOverrides::NONE`] changes nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnvironmentOverrides<'a> {
    /// Equality rows (connect, weld, joint).
    pub equality: bool,
    /// DOF friction-loss rows.
    pub friction_loss: bool,
    /// Contact rows.
    pub contact: bool,
    /// Joint-limit rows (also subject to [`ConstraintOptions::enable_joint_limit`]).
    pub limit: bool,
    /// Per equality (model order), whether it is active; `None`: all are.
    pub active_equalities: Option<&'a [bool]>,
    /// Replacements of the model's equality and joint-limit `sol_params`; `None`: none.
    pub sol: Option<&'a SolOverrides>,
}

impl EnvironmentOverrides<'_> {
    /// Every row, the model's `sol_params`.
    pub const NONE: EnvironmentOverrides<'static> = EnvironmentOverrides {
        equality: true,
        friction_loss: true,
        contact: true,
        limit: true,
        active_equalities: None,
        sol: None,
    };
}

/// The working buffers of [`ConstraintAssembler::assemble`]: the step's per-dof Jacobian columns, the columns and
/// direction rows of one constraint, and the resolution of the last contact's `sol_params`. Only that resolution
/// carries from one call to the next, as a pure cache (kept while the assembler's options are the same, so results do
/// not depend on it); everything else is overwritten before it is read. The buffers are allocated on the first call
/// and reused. One scratch per thread; any assembler may use any scratch.
#[derive(Debug, Clone, Default)]
pub struct AssemblyScratch {
    /// The columns of the constraint being built.
    cols: Vec<Column>,
    /// This step's per-dof Jacobian data.
    dofs: DofColumns,
    /// Scratch of one contact: the Jacobian row of each direction over `cols`.
    basis: Vec<f64>,
    /// Scratch of a connect or weld row's `J̇ q̇`: both bodies' columns over the union of their dof chains.
    chain: Vec<(usize, [[f64; 6]; 2])>,
    /// Per dof, the centripetal acceleration of an anchored body on its translational dofs (zero elsewhere).
    centripetal: Vec<f64>,
    /// The last contact's `(solref, solimp)` and their resolution (contacts mostly share them, step after step).
    /// A pure cache: kept between calls while the options it was resolved with (`sol_options`) are the same.
    last_sol: Option<([f64; 2], [f64; 5], ResolvedSol)>,
    /// The [`ConstraintAssembler::id`] `last_sol` was resolved by (0: none).
    sol_for: u64,
}

impl AssemblyScratch {
    /// An empty scratch (the same as [`Default`]); its buffers grow on the first assembly.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ConstraintAssembler {
    /// Validates `options` and the model's `solref`/`solimp` (joints' limit and friction-loss parameters, geoms'
    /// contact parameters, equalities), and precomputes the equality anchors and relative poses at `qpos0`.
    pub fn new(model: &Model, options: ConstraintOptions) -> Result<Self, ConstraintError> {
        options.validate()?;
        if DofIndex::try_from(model.nv).is_err() {
            return Err(ConstraintError::TooManyDofs { nv: model.nv, max: u64::from(DofIndex::MAX) });
        }
        let mut data = Data::new(model);
        model.forward_kinematics(&mut data);
        if !model.tendons.is_empty() {
            model.tendon_state(&mut data);
        }

        let mut equalities = Vec::with_capacity(model.equalities.len());
        for (e, eq) in model.equalities.iter().enumerate() {
            let eq = match eq {
                EqualitySpec::Connect { name, body1, body2, anchor, solref, solimp } => {
                    let sol = ResolvedSol::resolve(
                        &options,
                        &|| object_name("equality", name, e),
                        *solref,
                        *solimp,
                    )?;
                    let (b1, b2) = (*body1, *body2);
                    let world = data.xpos[b1] + data.xquat[b1] * *anchor;
                    let anchor2 = data.xquat[b2].inverse() * (world - data.xpos[b2]);
                    Equality::Connect { body1: b1, body2: b2, anchor1: *anchor, anchor2, sol }
                }
                EqualitySpec::Weld { name, body1, body2, anchor, relpose, torquescale, solref, solimp } => {
                    let sol = ResolvedSol::resolve(
                        &options,
                        &|| object_name("equality", name, e),
                        *solref,
                        *solimp,
                    )?;
                    let (b1, b2) = (*body1, *body2);
                    let (anchor1, relquat) = match relpose {
                        Some((pos, quat)) => (*pos, quat.normalize()),
                        None => {
                            let world = data.xpos[b2] + data.xquat[b2] * *anchor;
                            let q1inv = data.xquat[b1].inverse();
                            (q1inv * (world - data.xpos[b1]), (q1inv * data.xquat[b2]).normalize())
                        }
                    };
                    Equality::Weld {
                        body1: b1,
                        body2: b2,
                        anchor1,
                        anchor2: *anchor,
                        relquat,
                        torquescale: *torquescale,
                        sol,
                    }
                }
                EqualitySpec::Joint { name, joint1, joint2, polycoef, solref, solimp } => {
                    let object = || object_name("equality", name, e);
                    let sol = ResolvedSol::resolve(&options, &object, *solref, *solimp)?;
                    let scalar = |j: usize| {
                        if matches!(model.jnt_type[j], JointKind::Hinge | JointKind::Slide) {
                            let qadr = model.jnt_qposadr[j];
                            Ok((model.jnt_dofadr[j], qadr, model.qpos0[qadr]))
                        } else {
                            Err(ConstraintError::NonScalarEqualityJoint { object: object(), joint: j })
                        }
                    };
                    let (dof1, qadr1, q01) = scalar(*joint1)?;
                    let second = joint2.map(scalar).transpose()?;
                    Equality::Joint { dof1, qadr1, q01, second, poly: *polycoef, sol }
                }
                EqualitySpec::Tendon { name, tendon1, tendon2, polycoef, solref, solimp } => {
                    let object = || object_name("equality", name, e);
                    let sol = ResolvedSol::resolve(&options, &object, *solref, *solimp)?;
                    Equality::Tendon {
                        t1: *tendon1,
                        l01: data.ten_length[*tendon1],
                        second: tendon2.map(|t| (t, data.ten_length[t])),
                        poly: *polycoef,
                        sol,
                    }
                }
            };
            equalities.push(eq);
        }

        let jnt_name = |j: usize| object_name("joint", &model.jnt_name[j], j);
        let dof_sol = (0..model.nv)
            .map(|d| {
                let j = model.dof_jntid[d];
                ResolvedSol::resolve(&options, &|| jnt_name(j), model.dof_solref[d], model.dof_solimp[d])
            })
            .collect::<Result<Vec<_>, _>>()?;
        let jnt_sol = (0..model.njnt)
            .map(|j| {
                ResolvedSol::resolve(&options, &|| jnt_name(j), model.jnt_solref[j], model.jnt_solimp[j])
            })
            .collect::<Result<Vec<_>, _>>()?;
        let t = &model.tendons;
        let ten_sol = (0..t.len())
            .map(|i| {
                let name = || object_name("tendon", &t.name[i], i);
                Ok((
                    ResolvedSol::resolve(&options, &name, t.solref_limit[i], t.solimp_limit[i])?,
                    ResolvedSol::resolve(&options, &name, t.solref_friction[i], t.solimp_friction[i])?,
                ))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let geoms = model.collision.geoms();
        for g in 0..model.ngeom {
            let object = || object_name("geom", &geoms.name[g], g);
            ResolvedSol::resolve(&options, &object, geoms.solref[g], geoms.solimp[g])?;
        }

        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let anchored = if options.contact_rows_at_centre_of_mass {
            (0..model.njnt)
                .filter_map(|j| {
                    let body = model.jnt_bodyid[j];
                    let adr = model.standalone_free_dofs(body)?;
                    (model.jnt_dofadr[j] == adr).then_some((body, adr))
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(Self {
            id,
            options,
            impratio: options.impratio(),
            equalities,
            dof_sol,
            jnt_sol,
            ten_sol,
            anchored,
        })
    }

    /// The wrenches that the rows of connect or weld equality `e` apply, given their `forces` (3 for a connect, 6 for
    /// a weld, in row order), at the state of `data`: `[(body1, point1, force, torque), (body2, point2, −force,
    /// −torque)]`, world frame, the force acting at the point. `None` for a joint equality (no body wrench) or a
    /// wrong number of forces. The rows' Jacobian is `J₁(p₁) − J₂(p₂)`, so body 1 takes `+`; a weld's rotational
    /// forces `f_r` map to the torque `½·torquescale·vec(q₂ ⊗ (0, f_r) ⊗ q⁻¹)`, `q = q₁ ⊗ relquat` (the transpose
    /// of the rows' angular part).
    pub fn equality_wrenches(
        &self,
        data: &Data,
        e: usize,
        forces: &[f64],
    ) -> Option<[(usize, DVec3, DVec3, DVec3); 2]> {
        let (body1, body2, anchor1, anchor2, torque) = match *self.equalities.get(e)? {
            Equality::Connect { body1, body2, anchor1, anchor2, .. } if forces.len() == 3 => {
                (body1, body2, anchor1, anchor2, DVec3::ZERO)
            }
            Equality::Weld { body1, body2, anchor1, anchor2, relquat, torquescale, .. }
                if forces.len() == 6 =>
            {
                let q = data.xquat[body1] * relquat;
                let fr = DQuat::from_xyzw(forces[3], forces[4], forces[5], 0.0);
                let w = data.xquat[body2] * fr * q.conjugate();
                (body1, body2, anchor1, anchor2, 0.5 * torquescale * DVec3::new(w.x, w.y, w.z))
            }
            _ => return None,
        };
        let force = DVec3::new(forces[0], forces[1], forces[2]);
        let p1 = data.xpos[body1] + data.xquat[body1] * anchor1;
        let p2 = data.xpos[body2] + data.xquat[body2] * anchor2;
        Some([(body1, p1, force, torque), (body2, p2, -force, -torque)])
    }

    /// How the row of tendon equality `e` pulls on its tendons at the state of `data`: `(t₁, 1)` and, with a second
    /// tendon, `(t₂, −poly'(L₂ − L₂⁰))` (the row's Jacobian is `J₁ − poly'·J₂`). `None` for another equality.
    pub fn tendon_equality_coefficients(&self, data: &Data, e: usize) -> Option<[(usize, f64); 2]> {
        let Equality::Tendon { t1, second, poly, .. } = *self.equalities.get(e)? else { return None };
        let second =
            second.map_or((t1, 0.0), |(t2, l02)| (t2, -polynomial(&poly, data.ten_length[t2] - l02).1));
        Some([(t1, 1.0), second])
    }

    /// The options in force.
    pub fn options(&self) -> &ConstraintOptions {
        &self.options
    }

    /// The effective `impratio` (see [`ConstraintOptions::impratio`]).
    pub fn impratio(&self) -> f64 {
        self.impratio
    }

    /// Replaces equality `e`'s `sol_params` in `overrides` by `sol` (`None`: back to the model's), validated and
    /// resolved as the model's are ([`ResolvedSol::resolve`]). Errors: no such equality, invalid values.
    pub fn set_equality_sol(
        &self,
        model: &Model,
        overrides: &mut SolOverrides,
        e: usize,
        sol: Option<(SolRef, SolImp)>,
    ) -> Result<(), ConstraintError> {
        let name = |e: usize| equality_name(&model.equalities[e]).to_owned();
        self.replace_sol(("equality", &name), &mut overrides.equality, self.equalities.len(), e, sol)
    }

    /// Replaces the limit `sol_params` of joint `j` in `overrides` by `sol` (`None`: back to the model's),
    /// validated and resolved as the model's are. Errors: no such joint, invalid values.
    pub fn set_joint_limit_sol(
        &self,
        model: &Model,
        overrides: &mut SolOverrides,
        j: usize,
        sol: Option<(SolRef, SolImp)>,
    ) -> Result<(), ConstraintError> {
        let name = |j: usize| model.jnt_name[j].clone();
        self.replace_sol(("joint", &name), &mut overrides.joint_limit, self.jnt_sol.len(), j, sol)
    }

    /// Entry `i` of `slots` (one per object of `kind`, `n` of them) set to `sol` resolved under these options.
    fn replace_sol(
        &self,
        (kind, name): (&str, &dyn Fn(usize) -> String),
        slots: &mut Vec<Option<ResolvedSol>>,
        n: usize,
        i: usize,
        sol: Option<(SolRef, SolImp)>,
    ) -> Result<(), ConstraintError> {
        if i >= n {
            return Err(ConstraintError::InvalidSelection {
                what: format!("{kind} {i} does not exist (the model has {n})"),
            });
        }
        let object = || object_name(kind, &name(i), i);
        let resolved = sol.map(|(r, m)| ResolvedSol::resolve(&self.options, &object, r, m)).transpose()?;
        sol_overrides::replace(slots, n, i, resolved);
        Ok(())
    }

    /// Validates contact `sol_params` for `object` under these options, as every contact's are when assembled.
    pub fn check_sol(
        &self,
        object: &dyn Fn() -> String,
        solref: SolRef,
        solimp: SolImp,
    ) -> Result<(), ConstraintError> {
        ResolvedSol::resolve(&self.options, object, solref, solimp).map(|_| ())
    }

    /// Replaces the contents of `rows` with the rows of the state in `data` (poses from
    /// [`Model::forward_kinematics`], velocities `qvel`) and `contacts`, using `scratch` for the working buffers.
    /// Allocates only when `rows` or `scratch` needs more capacity than any earlier call gave it. Fails only on
    /// invalid mixed contact parameters.
    pub fn assemble(
        &self,
        model: &Model,
        data: &Data,
        contacts: &ContactSet,
        scratch: &mut AssemblyScratch,
        rows: &mut ConstraintRows,
    ) -> Result<(), ConstraintError> {
        self.assemble_for(model, data, contacts, EnvironmentOverrides::NONE, scratch, rows)
    }

    /// [`assemble`](Self::assemble) for one environment: only the rows `env` keeps (its disabled constraint types
    /// and switched-off equalities; `active_equalities` of another length than the model's equalities is an error),
    /// with its `sol_params` replacements.
    pub fn assemble_for(
        &self,
        model: &Model,
        data: &Data,
        contacts: &ContactSet,
        env: EnvironmentOverrides<'_>,
        scratch: &mut AssemblyScratch,
        rows: &mut ConstraintRows,
    ) -> Result<(), ConstraintError> {
        rows.clear();
        if let Some(active) = env.active_equalities
            && active.len() != self.equalities.len()
        {
            return Err(ConstraintError::InvalidSelection {
                what: format!("{} equality flags for {} equalities", active.len(), self.equalities.len()),
            });
        }
        let contacts_on = env.contact && !contacts.is_empty();
        if scratch.sol_for != self.id {
            scratch.last_sol = None;
            scratch.sol_for = self.id;
        }
        // The Jacobian columns serve equality and contact rows only.
        let equalities_on = env.equality && !self.equalities.is_empty();
        if equalities_on || contacts_on {
            scratch.dofs.update(model, data);
        }
        if equalities_on {
            for e in 0..self.equalities.len() {
                if env.active_equalities.is_none_or(|active| active[e]) {
                    self.equality(model, data, e, env.sol, scratch, rows);
                }
            }
        }
        if env.friction_loss {
            self.friction_loss(model, data, rows);
            self.tendon_friction_loss(model, data, rows);
        }
        let limits_on = self.options.enable_joint_limit && env.limit;
        if limits_on && self.options.limits_before_contacts {
            self.limits(model, data, env.sol, rows);
            self.tendon_limits(model, data, rows);
        }
        if contacts_on {
            for c in 0..contacts.len() {
                self.contact(model, data, contacts, c, scratch, rows)?;
            }
        }
        if limits_on && !self.options.limits_before_contacts {
            self.limits(model, data, env.sol, rows);
            self.tendon_limits(model, data, rows);
        }
        self.shift_to_centre_of_mass(data, &mut scratch.centripetal, rows);
        Ok(())
    }

    /// [`ConstraintOptions::contact_rows_at_centre_of_mass`]: with `c_b = ω × (ω × r)` of each anchored body (`r` its
    /// centre of mass, welded bodies included, from the joint origin, `ω` its angular velocity, world frame) placed on
    /// its three translational dofs, every contact row's reference acceleration takes `aref −= J_r · c`. Nothing is
    /// done while no anchored body spins off its centre of mass.
    fn shift_to_centre_of_mass(&self, data: &Data, centripetal: &mut Vec<f64>, rows: &mut ConstraintRows) {
        if self.anchored.is_empty() {
            return;
        }
        centripetal.clear();
        centripetal.resize(data.qvel.len(), 0.0);
        let mut any = false;
        for &(body, adr) in &self.anchored {
            let r = data.subtree_com[body] - data.xpos[body];
            if r == DVec3::ZERO {
                continue;
            }
            let w = data.xmat[body] * DVec3::new(data.qvel[adr + 3], data.qvel[adr + 4], data.qvel[adr + 5]);
            let c = w.cross(w.cross(r));
            centripetal[adr..adr + 3].copy_from_slice(&c.to_array());
            any |= c != DVec3::ZERO;
        }
        if !any {
            return;
        }
        for c in 0..rows.contact_row_start.len() {
            let start = rows.contact_row_start[c];
            for i in start..start + rows.contact_nrows[c] {
                let shift = rows.row_dot(i, centripetal);
                if shift != 0.0 {
                    rows.aref[i] -= shift;
                }
            }
        }
    }

    /// One friction-loss row along each tendon with `frictionloss` above the threshold (MuJoCo
    /// `mjCNSTR_FRICTION_TENDON`; `data.ten_velocity` from [`Model::forward`]).
    fn tendon_friction_loss(&self, model: &Model, data: &Data, rows: &mut ConstraintRows) {
        let t = &model.tendons;
        for i in 0..t.len() {
            let frictionloss = t.frictionloss[i];
            if !(frictionloss > self.options.frictionloss_threshold) {
                continue;
            }
            let start = rows.jac_val.len();
            self.push_tendon_entries(model, data, rows, i, 1.0);
            let vel = self.row_velocity(model, data, rows, start, data.ten_velocity[i]);
            let row = friction_row(&self.ten_sol[i].1, vel, t.invweight0[i], frictionloss);
            rows.finish_row(RowKind::FrictionTendon, i, row);
        }
    }

    /// The velocity of the row whose entries start at `start` (the last one pushed): with MuJoCo-compatible sums,
    /// `J_r q̇` summed as `mj_mulJacVec` sums it on the model (dense or sparse); `fallback` otherwise.
    fn row_velocity(
        &self,
        model: &Model,
        data: &Data,
        rows: &ConstraintRows,
        start: usize,
        fallback: f64,
    ) -> f64 {
        if self.options.mujoco_sums {
            mujoco_jac_row_dot(model.nv, &rows.jac_dof[start..], &rows.jac_val[start..], &data.qvel)
        } else {
            fallback
        }
    }

    /// The velocity `J_r q̇` of the row being built (its entries pushed, not finished): [`Self::row_velocity`], else the
    /// row's entries summed in the order pushed (only then).
    fn open_row_velocity(&self, model: &Model, data: &Data, rows: &ConstraintRows) -> f64 {
        if self.options.mujoco_sums {
            self.row_velocity(model, data, rows, rows.open_row_start(), 0.0)
        } else {
            rows.open_row_dot(&data.qvel)
        }
    }

    /// Pushes `sign ·` tendon `i`'s Jacobian as a row's entries, by decreasing dof: its non-zeros, or on a model
    /// MuJoCo keeps sparse (with MuJoCo's sums) every dof of its sparsity (`ten_J_colind`), zeros included, as
    /// MuJoCo's row holds them: its `mju_dotSparse` lanes run over the stored entries.
    fn push_tendon_entries(
        &self,
        model: &Model,
        data: &Data,
        rows: &mut ConstraintRows,
        i: usize,
        sign: f64,
    ) {
        if self.options.mujoco_sums && model.nv >= MUJOCO_SPARSE_NV {
            let row = &data.ten_j[i * model.nv..(i + 1) * model.nv];
            for &dof in model.tendons.jacobian_dofs(i).iter().rev() {
                rows.push_entry(dof, sign * row[dof]);
            }
        } else {
            for (dof, c) in data.tendon_jacobian(i) {
                rows.push_entry(dof, sign * c);
            }
        }
    }

    /// The violated sides of every limited tendon (MuJoCo `mjCNSTR_LIMIT_TENDON`): `L − lower` along `J`, `upper − L`
    /// along `−J`.
    fn tendon_limits(&self, model: &Model, data: &Data, rows: &mut ConstraintRows) {
        let t = &model.tendons;
        for i in 0..t.len() {
            let Some([lo, hi]) = t.range[i] else { continue };
            let length = data.ten_length[i];
            let margin = if self.options.limit_margins { t.margin[i] } else { 0.0 };
            for (dist, sign) in [(length - lo, 1.0), (hi - length, -1.0)] {
                if !(dist < margin) {
                    continue;
                }
                let start = rows.jac_val.len();
                self.push_tendon_entries(model, data, rows, i, sign);
                let vel = self.row_velocity(model, data, rows, start, sign * data.ten_velocity[i]);
                let row = limit_row(&self.ten_sol[i].0, dist, margin, vel, t.invweight0[i]);
                rows.finish_row(RowKind::LimitTendon, i, row);
            }
        }
    }

    fn friction_loss(&self, model: &Model, data: &Data, rows: &mut ConstraintRows) {
        let threshold = self.options.frictionloss_threshold;
        for dof in 0..model.nv {
            let frictionloss = model.dof_frictionloss[dof];
            if !(frictionloss > threshold) {
                continue;
            }
            rows.push_entry(dof, 1.0);
            let row =
                friction_row(&self.dof_sol[dof], data.qvel[dof], model.dof_invweight0[dof], frictionloss);
            rows.finish_row(RowKind::FrictionLoss, dof, row);
        }
    }

    fn limits(&self, model: &Model, data: &Data, sols: Option<&SolOverrides>, rows: &mut ConstraintRows) {
        for j in 0..model.njnt {
            let Some([lo, hi]) = data.jnt_range[j] else { continue };
            let sol = sols.and_then(|o| o.joint_limit(j)).unwrap_or(&self.jnt_sol[j]);
            let dof = model.jnt_dofadr[j];
            let margin = if self.options.limit_margins { model.jnt_margin[j] } else { 0.0 };
            match model.jnt_type[j] {
                JointKind::Hinge | JointKind::Slide => {
                    let q = data.qpos[model.jnt_qposadr[j]];
                    let (dlo, dhi) = (q - lo, hi - q);
                    let mut push = |dist: f64, sign: f64| {
                        rows.push_entry(dof, sign);
                        let row =
                            limit_row(sol, dist, margin, sign * data.qvel[dof], model.dof_invweight0[dof]);
                        rows.finish_row(RowKind::LimitJoint, j, row);
                    };
                    match self.options.joint_limit_sides {
                        JointLimitSides::EachViolated => {
                            if dlo < margin {
                                push(dlo, 1.0);
                            }
                            if dhi < margin {
                                push(dhi, -1.0);
                            }
                        }
                        JointLimitSides::MostViolated => {
                            if dlo.min(dhi) < margin {
                                if dlo < dhi { push(dlo, 1.0) } else { push(dhi, -1.0) }
                            }
                        }
                    }
                }
                JointKind::Ball => {
                    let qa = model.jnt_qposadr[j];
                    let (dist, axis) = ball_limit(&data.qpos[qa..qa + 4], lo.max(hi));
                    if dist < margin {
                        // Decreasing dofs, as every row lists them (`ConstraintRows`).
                        for k in (0..3).rev() {
                            rows.push_entry(dof + k, -axis[k]);
                        }
                        let omega = DVec3::from_slice(&data.qvel[dof..dof + 3]);
                        let start = rows.open_row_start();
                        let vel = self.row_velocity(model, data, rows, start, -axis.dot(omega));
                        let row = limit_row(sol, dist, margin, vel, model.dof_invweight0[dof]);
                        rows.finish_row(RowKind::LimitJoint, j, row);
                    }
                }
                JointKind::Free => {}
            }
        }
    }
}

/// The limit of a ball joint (MuJoCo `mj_instantiateLimit`): with `θ a` the rotation vector of the joint's
/// quaternion `(w, x, y, z)` (`θ ∈ [0, π]`, `a` a unit axis; the x axis at `θ = 0`), the distance `max − θ` to the
/// cone of half-angle `max` (the larger end of `range`; MuJoCo's lower end is 0) and the axis `a`: the row's
/// Jacobian is `−a` on the joint's three angular dofs (local angular velocity).
fn ball_limit(quat_wxyz: &[f64], max: f64) -> (f64, DVec3) {
    let [w, x, y, z] = [quat_wxyz[0], quat_wxyz[1], quat_wxyz[2], quat_wxyz[3]];
    let q = normalize_quat(DQuat::from_xyzw(x, y, z, w), MINVAL);
    let (axis, angle) = normalize_vec3(signorini_model::passive::quat_to_rotvec(q), MINVAL);
    (max - angle, axis)
}

/// A row's scalar data with every field zero.
/// A friction-loss row at velocity `vel` (`J q̇`) with weight `invweight`: reference acceleration `−b·vel`, bound
/// `frictionloss`.
fn friction_row(sol: &ResolvedSol, vel: f64, invweight: f64, frictionloss: f64) -> RowData {
    let imp = sol.impedance(0.0);
    RowData {
        imp,
        vel,
        aref: sol.aref(imp, vel, 0.0),
        r: regularizer(invweight, imp),
        frictionloss,
        ..RowData::plain()
    }
}

/// A limit row at distance `dist` (< `margin`) from its limit, at velocity `vel` with weight `invweight`: the violation
/// `x = dist − margin` (MuJoCo's `efc_pos − efc_margin`) gives `imp` and `aref`.
fn limit_row(sol: &ResolvedSol, dist: f64, margin: f64, vel: f64, invweight: f64) -> RowData {
    let x = dist - margin;
    let imp = sol.impedance(x);
    RowData {
        pos: dist,
        margin,
        imp,
        vel,
        aref: sol.aref(imp, vel, x),
        r: regularizer(invweight, imp),
        ..RowData::plain()
    }
}

/// Pushes the entries `lin·J_lin + ang·J_ang` of the columns.
fn push_direction(rows: &mut ConstraintRows, cols: &[Column], lin: DVec3, ang: DVec3) {
    for c in cols {
        rows.push_entry(c.dof, c.lin.dot(lin) + c.ang.dot(ang));
    }
}

/// Per-step Jacobian data of every dof: the reference point `c_k` of the dof's tree (`subtree_com` of its root), so
/// that the column of world point `p` is `(cdof.lin + ω_k × (p − c_k), ω_k)` (MuJoCo's `mj_jac` arithmetic: folding
/// `cdof.lin − ω_k × c_k` into one vector beforehand rounds differently) without looking the root up per contact.
#[derive(Debug, Clone, Default)]
struct DofColumns {
    reference: Vec<DVec3>,
}

impl DofColumns {
    fn update(&mut self, model: &Model, data: &Data) {
        self.reference.clear();
        // Exactly `nv` (pushing would grow it to the next power of two).
        self.reference.reserve_exact(model.nv);
        self.reference
            .extend((0..model.nv).map(|dof| data.subtree_com[model.body_rootid[model.dof_bodyid[dof]]]));
    }

    /// The column of world point `p` for `dof`, with `cdof` the step's motion subspaces (`Data::cdof`).
    #[inline]
    fn column(&self, cdof: &[SpatialVec], dof: usize, p: DVec3) -> (DVec3, DVec3) {
        let SpatialVec { ang, lin } = cdof[dof];
        (lin + ang.cross(p - self.reference[dof]), ang)
    }
}

/// The columns of `J₁(p₁) − J₂(p₂)` (translational and rotational) over the union of both bodies' chains, in
/// decreasing dof order. When `p₁ = p₂` the shared part of the chains cancels exactly and is left out.
fn relative_columns(
    model: &Model,
    (dofs, cdof): (&DofColumns, &[SpatialVec]),
    (b1, p1): (usize, DVec3),
    (b2, p2): (usize, DVec3),
    out: &mut Vec<Column>,
) {
    out.clear();
    let same_point = p1 == p2;
    let (c1, c2) = (model.dof_chain_slice(b1), model.dof_chain_slice(b2));
    let plus = |x: usize, p: DVec3| {
        let (lin, ang) = dofs.column(cdof, x, p);
        Column { dof: x, lin, ang }
    };
    let minus = |y: usize, p: DVec3| {
        let (lin, ang) = dofs.column(cdof, y, p);
        Column { dof: y, lin: -lin, ang: -ang }
    };
    let (mut i, mut j) = (0, 0);
    loop {
        let column = match (c1.get(i).copied(), c2.get(j).copied()) {
            (None, None) => break,
            (Some(x), Some(y)) if x == y => {
                if same_point {
                    break;
                }
                i += 1;
                j += 1;
                let (l1, a1) = dofs.column(cdof, x, p1);
                let (l2, a2) = dofs.column(cdof, x, p2);
                Column { dof: x, lin: l1 - l2, ang: a1 - a2 }
            }
            (Some(x), Some(y)) if y > x => {
                j += 1;
                minus(y, p2)
            }
            (Some(x), _) => {
                i += 1;
                plus(x, p1)
            }
            (None, Some(y)) => {
                j += 1;
                minus(y, p2)
            }
        };
        out.push(column);
    }
}

/// `(p(x) − poly₀, p'(x))` for the polynomial `p = Σ polyₖ xᵏ` of a joint or tendon equality, its terms summed as
/// MuJoCo's `mj_instantiateEquality` writes them (powers as repeated products, not Horner's scheme); the residual
/// is `(q₁ − poly₀) − (p(x) − poly₀)`.
fn polynomial(poly: &[f64; 5], x: f64) -> (f64, f64) {
    let [_, p1, p2, p3, p4] = *poly;
    let higher = p1 * x + p2 * x * x + p3 * x * x * x + p4 * x * x * x * x;
    let slope = p1 + 2.0 * p2 * x + 3.0 * p3 * x * x + 4.0 * p4 * x * x * x;
    (higher, slope)
}

/// The data of a one-row equality at residual `x` with velocity `vel` and inverse weight `iw`.
fn scalar_row(sol: &ResolvedSol, x: f64, iw: f64, vel: f64) -> RowData {
    let imp = sol.impedance(x);
    RowData { pos: x, imp, vel, aref: sol.aref(imp, vel, x), r: regularizer(iw, imp), ..RowData::plain() }
}

/// An equality's name, as its spec gives it.
fn equality_name(eq: &EqualitySpec) -> &str {
    match eq {
        EqualitySpec::Connect { name, .. }
        | EqualitySpec::Weld { name, .. }
        | EqualitySpec::Joint { name, .. }
        | EqualitySpec::Tendon { name, .. } => name,
    }
}
