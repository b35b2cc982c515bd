//! `<option>` and its `<flag>`: the simulation options as written in the file, each `None` when not given, so that
//! the simulator can tell "not given" (take signorini's default) from an explicit value.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use signorini_sim::{FrictionCone, IntegratorKind, SolverKind};

use crate::error::Result;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// MJCF `jacobian` (a computation choice; it does not change the dynamics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Jacobian {
    /// `dense`.
    Dense,
    /// `sparse`.
    Sparse,
    /// `auto`.
    Auto,
}

/// The `<option>` values given in the file (`None`: not given).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MjcfOptions {
    /// `timestep` (s).
    pub timestep: Option<f64>,
    /// `gravity` (m/s²).
    pub gravity: Option<[f64; 3]>,
    /// `magnetic` (T; only read by magnetometer sensors).
    pub magnetic: Option<[f64; 3]>,
    /// `density` of the medium (kg/m³; fluid forces).
    pub density: Option<f64>,
    /// `viscosity` of the medium (Pa·s; fluid forces).
    pub viscosity: Option<f64>,
    /// `wind` (m/s, world; fluid forces).
    pub wind: Option<[f64; 3]>,
    /// `integrator` (`Euler`, `RK4`, `implicitfast`; MuJoCo's `implicit` is a load error: not built).
    pub integrator: Option<IntegratorKind>,
    /// `cone`.
    pub cone: Option<FrictionCone>,
    /// `solver` (`Newton`, `CG`; MuJoCo's `PGS` is a load error: not built).
    pub solver: Option<SolverKind>,
    /// `jacobian`.
    pub jacobian: Option<Jacobian>,
    /// `iterations`.
    pub iterations: Option<u32>,
    /// `tolerance`.
    pub tolerance: Option<f64>,
    /// `ls_iterations`.
    pub ls_iterations: Option<u32>,
    /// `ls_tolerance`.
    pub ls_tolerance: Option<f64>,
    /// `impratio`.
    pub impratio: Option<f64>,
    /// `noslip_iterations`.
    pub noslip_iterations: Option<u32>,
    /// `noslip_tolerance`.
    pub noslip_tolerance: Option<f64>,
    /// `sleep_tolerance` (m/s; the rest test of MuJoCo's sleeping, with `<flag sleep="enable"/>`).
    pub sleep_tolerance: Option<f64>,
    /// `ccd_iterations` (also read from the older `mpr_iterations`).
    pub ccd_iterations: Option<u32>,
    /// `ccd_tolerance` (also read from the older `mpr_tolerance`).
    pub ccd_tolerance: Option<f64>,
    /// `apirate` (remote API only; not simulated).
    pub apirate: Option<f64>,
    /// `<flag>` values given, by MuJoCo name: `true` = `enable`, `false` = `disable`.
    pub flags: BTreeMap<String, bool>,
}

/// MuJoCo's disable flags (enabled by default) and enable flags (disabled by default), by XML name, as in MuJoCo 4.0
/// (where `multiccd` became a disable flag: multi-contact convex collision is on by default).
pub const DISABLE_FLAGS: &[&str] = &[
    "constraint",
    "equality",
    "frictionloss",
    "limit",
    "contact",
    "spring",
    "damper",
    "gravity",
    "clampctrl",
    "warmstart",
    "filterparent",
    "actuation",
    "refsafe",
    "sensor",
    "midphase",
    "eulerdamp",
    "autoreset",
    "nativeccd",
    "island",
    "multiccd",
];
/// See [`DISABLE_FLAGS`].
pub const ENABLE_FLAGS: &[&str] = &["override", "energy", "fwdinv", "invdiscrete", "sleep"];

/// Flags whose non-default value would change the simulation in a way signorini does not reproduce: setting one is
/// an error naming it. The others are honoured (`constraint`, `equality`, `frictionloss`, `limit`, `contact`,
/// `gravity`, `island`, `multiccd`, `sleep`, `sensor`, `spring`, `damper`, `actuation`, `clampctrl`, `warmstart`,
/// `filterparent`, `refsafe`, `eulerdamp`) or change nothing simulated here (`midphase`: speed only; `autoreset`: a non-finite state is an error anyway; `energy`, `fwdinv`, `invdiscrete`:
/// diagnostics).
const UNSUPPORTED_FLAGS: &[(&str, &str)] = &[("nativeccd", "libccd's MPR instead of the native GJK/EPA")];

const ATTRIBUTES: &[&str] = &[
    "timestep",
    "gravity",
    "wind",
    "magnetic",
    "density",
    "viscosity",
    "integrator",
    "cone",
    "solver",
    "jacobian",
    "iterations",
    "tolerance",
    "ls_iterations",
    "ls_tolerance",
    "impratio",
    "noslip_iterations",
    "noslip_tolerance",
    "sleep_tolerance",
    "ccd_iterations",
    "ccd_tolerance",
    "mpr_iterations",
    "mpr_tolerance",
    "sdf_iterations",
    "sdf_initpoints",
    "apirate",
    "o_margin",
    "o_solref",
    "o_solimp",
    "o_friction",
    "actuatorgroupdisable",
];

fn count(a: &Attrs<'_>, name: &str) -> Result<Option<u32>> {
    match a.int(name)? {
        None => Ok(None),
        Some(v) => Ok(u32::try_from(v)
            .map(Some)
            .map_err(|_| a.invalid_named(name, "must be a non-negative integer"))?),
    }
}

fn nonneg(a: &Attrs<'_>, name: &str) -> Result<Option<f64>> {
    match a.f64(name)? {
        Some(v) if v < 0.0 => Err(a.invalid_named(name, "must be >= 0").into()),
        v => Ok(v),
    }
}

impl MjcfOptions {
    /// Applies one `<option>` element (several apply in document order).
    pub fn apply(&mut self, e: &Element) -> Result<()> {
        e.check_attributes(ATTRIBUTES)?;
        let a = Attrs::own(e);
        if let Some(t) = a.f64("timestep")? {
            if !(t > 0.0) {
                return Err(a.invalid_named("timestep", "must be > 0").into());
            }
            self.timestep = Some(t);
        }
        set(&mut self.gravity, a.array::<3>("gravity")?);
        set(&mut self.magnetic, a.array::<3>("magnetic")?);
        for (name, slot) in [("density", &mut self.density), ("viscosity", &mut self.viscosity)] {
            if let Some(x) = a.f64(name)? {
                if !(x >= 0.0) || !x.is_finite() {
                    return Err(a.invalid_named(name, "must be finite and >= 0").into());
                }
                *slot = Some(x);
            }
        }
        set(&mut self.wind, a.array::<3>("wind")?);
        if a.get("actuatorgroupdisable").is_some_and(|g| !g.value.trim().is_empty()) {
            return Err(a.unsupported(Some("actuatorgroupdisable"), "disabling actuator groups").into());
        }
        let integrator = a.keyword(
            "integrator",
            &[
                ("Euler", IntegratorKind::Euler),
                ("RK4", IntegratorKind::Rk4),
                ("implicit", IntegratorKind::Implicit),
                ("implicitfast", IntegratorKind::ImplicitFast),
            ],
        )?;
        set(&mut self.integrator, integrator);
        set(
            &mut self.cone,
            a.keyword(
                "cone",
                &[("pyramidal", FrictionCone::Pyramidal), ("elliptic", FrictionCone::Elliptic)],
            )?,
        );
        let solver = a.keyword(
            "solver",
            &[("PGS", SolverKind::Pgs), ("CG", SolverKind::Cg), ("Newton", SolverKind::Newton)],
        )?;
        set(&mut self.solver, solver);
        set(
            &mut self.jacobian,
            a.keyword(
                "jacobian",
                &[("dense", Jacobian::Dense), ("sparse", Jacobian::Sparse), ("auto", Jacobian::Auto)],
            )?,
        );
        set(&mut self.iterations, count(&a, "iterations")?);
        set(&mut self.ls_iterations, count(&a, "ls_iterations")?);
        set(&mut self.noslip_iterations, count(&a, "noslip_iterations")?);
        set(&mut self.ccd_iterations, count(&a, "mpr_iterations")?);
        set(&mut self.ccd_iterations, count(&a, "ccd_iterations")?);
        count(&a, "sdf_iterations")?;
        count(&a, "sdf_initpoints")?;
        set(&mut self.tolerance, nonneg(&a, "tolerance")?);
        set(&mut self.ls_tolerance, nonneg(&a, "ls_tolerance")?);
        set(&mut self.noslip_tolerance, nonneg(&a, "noslip_tolerance")?);
        set(&mut self.sleep_tolerance, nonneg(&a, "sleep_tolerance")?);
        set(&mut self.ccd_tolerance, nonneg(&a, "mpr_tolerance")?);
        set(&mut self.ccd_tolerance, nonneg(&a, "ccd_tolerance")?);
        set(&mut self.apirate, nonneg(&a, "apirate")?);
        if let Some(r) = a.f64("impratio")? {
            if !(r > 0.0) {
                return Err(a.invalid_named("impratio", "must be > 0").into());
            }
            self.impratio = Some(r);
        }
        a.f64("o_margin")?;
        a.array::<2>("o_solref")?;
        a.array::<5>("o_solimp")?;
        a.array::<5>("o_friction")?;
        for child in &e.children {
            if child.name != "flag" {
                return Err(e.unknown_child(child).into());
            }
            self.apply_flags(child)?;
        }
        Ok(())
    }

    fn apply_flags(&mut self, e: &Element) -> Result<()> {
        let mut names: Vec<&str> = DISABLE_FLAGS.to_vec();
        names.extend_from_slice(ENABLE_FLAGS);
        e.check_attributes(&names)?;
        let a = Attrs::own(e);
        for attr in &e.attributes {
            let on = a.keyword(&attr.name, &[("enable", true), ("disable", false)])?.unwrap_or(true);
            if attr.name == "override" && on {
                return Err(a
                    .unsupported(Some("override"), "contact parameter override (o_margin, o_solref, ...)")
                    .into());
            }
            if let Some((name, what)) = UNSUPPORTED_FLAGS.iter().find(|(n, _)| *n == attr.name)
                && !on
            {
                return Err(a.unsupported(Some(name), *what).into());
            }
            self.flags.insert(attr.name.clone(), on);
        }
        Ok(())
    }

    /// Whether flag `name` is enabled, given MuJoCo's default for it.
    pub fn flag(&self, name: &str) -> bool {
        self.flags.get(name).copied().unwrap_or(DISABLE_FLAGS.contains(&name))
    }
}

fn set<T>(slot: &mut Option<T>, v: Option<T>) {
    if v.is_some() {
        *slot = v;
    }
}
