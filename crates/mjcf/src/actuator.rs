//! `<actuator>`: `motor`, `position` (with `timeconst`: filtered), `velocity`, `intvelocity`, `damper`, `cylinder` and
//! `muscle` and `general` (fixed, affine or muscle gain, none, affine or muscle bias, `integrator`/`filter`/
//! `filterexact`/`muscle` dynamics, `actearly`) on a joint, a fixed or spatial tendon, a site (with or without a
//! reference site), a slider-crank or a body's contacts (`adhesion`, `body=`).
//!
//! As in MuJoCo, the shortcut elements write MuJoCo's `general` parameters (`gainprm`, `biasprm`, `biastype`, ...),
//! and every actuator element of a default class writes into the same per-class actuator slot, in document order:
//! `position kp` defaults to the class's `gainprm[0]`, `kv` keeps the class's `biasprm[2]` when not given, and so
//! on. The result is `force = (gainprm₀ + gainprm₁·l + gainprm₂·l̇)·input + biasprm₀ + biasprm₁·l + biasprm₂·l̇` with
//! `input` the control or the activation. A servo's `dampratio` is kept as a positive `biasprm₂`, which the model
//! compiler turns into a damping (MuJoCo 4.0's rule). A muscle without `lengthrange` gets one computed
//! when the simulator compiles the model (`<compiler><lengthrange>`). User dynamics, gains or biases are errors.

use signorini_model::muscle::Muscle;
use signorini_model::spec::{ActuatorDynamics, ActuatorSpec, JointKind, TendonSpec, Transmission};

use crate::Ctx;
use crate::error::{MjcfError, Result};
use crate::joint::resolve_limited;
use crate::schema;
use crate::tree::Tree;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// MuJoCo's `biastype`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bias {
    None,
    Affine,
    Muscle,
    User,
}

/// MuJoCo's `dyntype`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dyn {
    None,
    Integrator,
    Filter,
    FilterExact,
    Muscle,
    User,
}

/// MuJoCo's `gaintype`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gain {
    Fixed,
    Affine,
    Muscle,
    User,
}

/// MuJoCo's `mjsActuator` fields that signorini reads.
#[derive(Debug, Clone)]
struct Params {
    gear: [f64; 6],
    gain: Gain,
    gainprm: [f64; 10],
    bias: Bias,
    biasprm: [f64; 10],
    dynamics: Dyn,
    dynprm: [f64; 10],
    /// A shortcut that limits the activation by default (`intvelocity`).
    act_limited: bool,
    /// A shortcut that limits the control by default (`damper`).
    ctrl_limited: bool,
    inheritrange: f64,
    actearly: bool,
    /// An `adhesion` element: its control is limited and non-negative.
    adhesion: bool,
    /// The shortcut element (`motor`, `position`, ...) that wrote these parameters last; `None` after `general`.
    shortcut: Option<String>,
}

impl Default for Params {
    fn default() -> Self {
        let mut gainprm = [0.0; 10];
        gainprm[0] = 1.0;
        let mut dynprm = [0.0; 10];
        dynprm[0] = 1.0;
        Params {
            gear: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            gain: Gain::Fixed,
            gainprm,
            bias: Bias::None,
            biasprm: [0.0; 10],
            dynamics: Dyn::None,
            dynprm,
            act_limited: false,
            ctrl_limited: false,
            inheritrange: 0.0,
            actearly: false,
            adhesion: false,
            shortcut: None,
        }
    }
}

impl Params {
    /// Applies the attributes of one actuator element (of a default class or of the actuator itself).
    ///
    /// As MuJoCo 4.0.1 reads them (found by loading mixed default classes): a shortcut takes its own parameters
    /// (gains, biases, dynamics, `inheritrange`) from what it applies on when those were written by the same
    /// shortcut or by `general`, and otherwise starts them afresh (a `<position>` under a class whose last element is
    /// a `<motor>` has `kp` 1, not the class's); `gear` and the ranges are kept either way.
    fn apply(&mut self, kind: &str, a: &Attrs<'_>) -> Result<()> {
        if kind != "general" && self.shortcut.as_deref().is_some_and(|s| s != kind) {
            // Only the attributes every actuator element has (`gear`, `actearly`) survive.
            *self = Params { gear: self.gear, actearly: self.actearly, ..Params::default() };
        }
        self.shortcut = (kind != "general").then(|| kind.to_string());
        self.gear = a.partial::<6>("gear", self.gear)?;
        match kind {
            "motor" => {
                self.gainprm[0] = 1.0;
                self.gain = Gain::Fixed;
                self.bias = Bias::None;
                self.dynamics = Dyn::None;
            }
            "position" => {
                let kp = a.f64_or("kp", self.gainprm[0])?;
                if kp < 0.0 {
                    return Err(a.invalid_named("kp", "must be >= 0").into());
                }
                let kv = a.f64("kv")?;
                let dampratio = a.f64("dampratio")?;
                if kv.is_some_and(|v| v < 0.0) {
                    return Err(a.invalid_named("kv", "must be >= 0").into());
                }
                if kv.is_some() && dampratio.is_some_and(|d| d != 0.0) {
                    return Err(a.invalid_named("dampratio", "kv and dampratio cannot both be given").into());
                }
                self.gainprm[0] = kp;
                self.gain = Gain::Fixed;
                self.bias = Bias::Affine;
                self.biasprm[1] = -kp;
                if let Some(kv) = kv {
                    self.biasprm[2] = -kv;
                }
                if let Some(d) = dampratio {
                    if d < 0.0 {
                        return Err(a.invalid_named("dampratio", "must be >= 0").into());
                    }
                    self.biasprm[2] = d;
                }
                if let Some(t) = a.f64("timeconst")? {
                    if t < 0.0 {
                        return Err(a.invalid_named("timeconst", "must be >= 0").into());
                    }
                    // MuJoCo: a positive time constant makes the servo's setpoint an exactly filtered control.
                    self.dynamics = if t > 0.0 { Dyn::FilterExact } else { Dyn::None };
                    self.dynprm[0] = t;
                }
                self.inheritrange = a.f64_or("inheritrange", self.inheritrange)?;
            }
            "intvelocity" => {
                let kp = a.f64_or("kp", self.gainprm[0])?;
                let kv = a.f64("kv")?;
                if kp < 0.0 || kv.is_some_and(|v| v < 0.0) {
                    return Err(a.invalid_named(if kp < 0.0 { "kp" } else { "kv" }, "must be >= 0").into());
                }
                // An integrated-velocity servo: the activation integrates the control; the force tracks it.
                self.gainprm[0] = kp;
                self.gain = Gain::Fixed;
                self.bias = Bias::Affine;
                self.biasprm[1] = -kp;
                if let Some(kv) = kv {
                    self.biasprm[2] = -kv;
                }
                if let Some(d) = a.f64("dampratio")? {
                    if d < 0.0 || kv.is_some() && d != 0.0 {
                        return Err(a
                            .invalid_named("dampratio", "must be >= 0, and not given with kv")
                            .into());
                    }
                    self.biasprm[2] = d;
                }
                self.dynamics = Dyn::Integrator;
                self.act_limited = true;
                self.inheritrange = a.f64_or("inheritrange", self.inheritrange)?;
            }
            "damper" => {
                let kv = a.f64_or("kv", 0.0)?;
                if kv < 0.0 {
                    return Err(a.invalid_named("kv", "must be >= 0").into());
                }
                // force = −kv·velocity·ctrl, ctrl ≥ 0: an affine gain, no bias.
                self.gainprm = [0.0; 10];
                self.gainprm[2] = -kv;
                self.gain = Gain::Affine;
                self.bias = Bias::None;
                self.dynamics = Dyn::None;
                self.ctrl_limited = true;
            }
            "cylinder" => {
                let timeconst = a.f64_or("timeconst", self.dynprm[0])?;
                if !(timeconst > 0.0) {
                    return Err(a.invalid_named("timeconst", "must be > 0").into());
                }
                let area = match a.f64("diameter")? {
                    Some(d) => std::f64::consts::PI / 4.0 * d * d,
                    None => a.f64_or("area", self.gainprm[0])?,
                };
                // A pneumatic or hydraulic cylinder: the activation (pressure) follows the control through a filter;
                // force = area·pressure + bias₀ + bias₁·l + bias₂·l̇.
                self.dynamics = Dyn::Filter;
                self.dynprm[0] = timeconst;
                self.gain = Gain::Fixed;
                self.gainprm[0] = area;
                self.bias = Bias::Affine;
                let bias = a.partial::<3>("bias", [self.biasprm[0], self.biasprm[1], self.biasprm[2]])?;
                self.biasprm[..3].copy_from_slice(&bias);
            }
            "velocity" => {
                let kv = a.f64_or("kv", self.gainprm[0])?;
                if kv < 0.0 {
                    return Err(a.invalid_named("kv", "must be >= 0").into());
                }
                self.gainprm[0] = kv;
                self.gain = Gain::Fixed;
                self.dynamics = Dyn::None;
                self.bias = Bias::Affine;
                self.biasprm = [0.0; 10];
                self.biasprm[2] = -kv;
            }
            "muscle" => self.apply_muscle(a)?,
            "adhesion" => {
                // MuJoCo's `mjs_setToAdhesion`: a fixed gain, no bias, a limited non-negative control.
                let gain = a.f64_or("gain", self.gainprm[0])?;
                if gain < 0.0 {
                    return Err(a.invalid_named("gain", "must be >= 0").into());
                }
                self.gainprm[0] = gain;
                self.gain = Gain::Fixed;
                self.bias = Bias::None;
                self.adhesion = true;
            }
            _ => {
                let dyn_types = [
                    ("none", Dyn::None),
                    ("integrator", Dyn::Integrator),
                    ("filter", Dyn::Filter),
                    ("filterexact", Dyn::FilterExact),
                    ("muscle", Dyn::Muscle),
                    ("user", Dyn::User),
                ];
                if let Some(d) = a.keyword("dyntype", &dyn_types)? {
                    self.dynamics = d;
                }
                let gain_types = [
                    ("fixed", Gain::Fixed),
                    ("affine", Gain::Affine),
                    ("muscle", Gain::Muscle),
                    ("user", Gain::User),
                ];
                if let Some(g) = a.keyword("gaintype", &gain_types)? {
                    self.gain = g;
                }
                let bias_types = [
                    ("none", Bias::None),
                    ("affine", Bias::Affine),
                    ("muscle", Bias::Muscle),
                    ("user", Bias::User),
                ];
                if let Some(b) = a.keyword("biastype", &bias_types)? {
                    self.bias = b;
                }
                self.dynprm = a.partial::<10>("dynprm", self.dynprm)?;
                self.gainprm = a.partial::<10>("gainprm", self.gainprm)?;
                self.biasprm = a.partial::<10>("biasprm", self.biasprm)?;
                a.int("actdim")?;
            }
        }
        a.int("group")?;
        a.f64("cranklength")?;
        self.actearly = a.bool("actearly")?.unwrap_or(self.actearly);
        if a.int("nsample")?.is_some_and(|n| n > 0) || a.f64_or("delay", 0.0)? != 0.0 {
            return Err(a.unsupported(Some("delay"), "actuator delays").into());
        }
        Ok(())
    }

    /// `<muscle>` (MuJoCo's `mjs_setToMuscle`): parameters still at the general actuator's defaults take the
    /// muscle's (time constants 0.01/0.04 s, range 0.75–1.05, force −1 (`scale/acc0`), scale 200, lmin 0.5, lmax
    /// 1.6, vmax 1.5, fpmax 1.3, fvmax 1.2); the attributes given override them; the bias takes the gain's
    /// parameters.
    fn apply_muscle(&mut self, a: &Attrs<'_>) -> Result<()> {
        let (g, d) = (&mut self.gainprm, &mut self.dynprm);
        for (k, general, muscle) in [(0, 1.0, 0.01), (1, 0.0, 0.04)] {
            if d[k] == general {
                d[k] = muscle;
            }
        }
        for (k, general, muscle) in
            [(0, 1.0, 0.75), (1, 0.0, 1.05), (2, 0.0, -1.0), (3, 0.0, 200.0), (4, 0.0, 0.5)]
                .into_iter()
                .chain([(5, 0.0, 1.6), (6, 0.0, 1.5), (7, 0.0, 1.3), (8, 0.0, 1.2)])
        {
            if g[k] == general {
                g[k] = muscle;
            }
        }
        let tausmooth = a.f64_or("tausmooth", d[2])?;
        if tausmooth < 0.0 {
            return Err(a.invalid_named("tausmooth", "must be >= 0").into());
        }
        d[2] = tausmooth;
        // As MuJoCo: a negative value leaves the parameter as it was.
        let set = |slot: &mut f64, v: f64| {
            if v >= 0.0 {
                *slot = v;
            }
        };
        if let Some([act, deact]) = a.array::<2>("timeconst")? {
            set(&mut d[0], act);
            set(&mut d[1], deact);
        }
        if let Some([lo, hi]) = a.array::<2>("range")? {
            set(&mut g[0], lo);
            set(&mut g[1], hi);
        }
        for (k, name) in ["force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax"].into_iter().enumerate()
        {
            if let Some(v) = a.f64(name)? {
                set(&mut g[k + 2], v);
            }
        }
        self.biasprm[..9].copy_from_slice(&g[..9]);
        self.dynamics = Dyn::Muscle;
        self.gain = Gain::Muscle;
        self.bias = Bias::Muscle;
        Ok(())
    }
}

/// Reads one `<actuator>` section, appending to `out`; `tendons` are the model's (for `tendon=` transmissions).
pub fn read_section(
    e: &Element,
    tree: &Tree,
    tendons: &[TendonSpec],
    ctx: &Ctx<'_>,
    out: &mut Vec<ActuatorSpec>,
) -> Result<()> {
    e.check_attributes(&[])?;
    for child in &e.children {
        let kind = child.name.as_str();
        if schema::UNSUPPORTED_ACTUATORS.contains(&kind) {
            return Err(child
                .not_supported("this actuator type; use motor, position, velocity or general")
                .into());
        }
        if !schema::ACTUATORS.contains(&kind) {
            return Err(e.unknown_child(child).into());
        }
        let actuator = read_actuator(child, tree, tendons, ctx)?;
        if !actuator.name.is_empty() && out.iter().any(|o| o.name == actuator.name) {
            return Err(MjcfError::DuplicateName {
                at: child.at.clone(),
                element: child.name.clone(),
                kind: "actuator",
                name: actuator.name,
            });
        }
        out.push(actuator);
    }
    Ok(())
}

fn read_actuator(e: &Element, tree: &Tree, tendons: &[TendonSpec], ctx: &Ctx<'_>) -> Result<ActuatorSpec> {
    let kind = e.name.as_str();
    let mut allowed = schema::ACTUATOR_COMMON.to_vec();
    allowed.extend_from_slice(schema::actuator_specific(kind));
    e.check_attributes(&allowed)?;
    if let Some(c) = e.children.first() {
        return Err(e.unknown_child(c).into());
    }
    let class = ctx.defaults.resolve(e, 0)?;
    let mut params = Params::default();
    let layers = ctx.defaults.actuator_layers(class);
    for d in &layers {
        params.apply(&d.name, &Attrs::own(d))?;
    }
    params.apply(kind, &Attrs::own(e))?;

    let a = Attrs::new(e, layers.iter().map(|d| d.attributes.as_slice()).collect());

    let given: Vec<&str> = ["joint", "jointinparent", "tendon", "site", "cranksite", "body"]
        .into_iter()
        .filter(|t| a.has(t))
        .collect();
    let site = |attribute: &str| -> Result<usize> {
        let attr = a.get(attribute).ok_or_else(|| a.missing(attribute, "the site it acts through"))?;
        tree.site_index(&attr.value).ok_or_else(|| MjcfError::UndefinedName {
            at: attr.at.clone(),
            element: a.element().to_string(),
            attribute: attribute.into(),
            kind: "site",
            name: attr.value.clone(),
        })
    };
    if a.has("refsite") && given != ["site"] {
        return Err(a.invalid_named("refsite", "a reference site goes with a site transmission").into());
    }
    if a.has("slidersite") && given != ["cranksite"] {
        return Err(a.invalid_named("slidersite", "a slider site goes with a cranksite").into());
    }
    let (transmission, target_range) = match given.as_slice() {
        [] => {
            return Err(a
                .missing("joint", "the actuator's transmission (joint, tendon, site, cranksite or body)")
                .into());
        }
        ["body"] => (Transmission::Body(tree.body(&a, "body")?.unwrap_or_default()), None),
        [_, second, ..] => {
            return Err(a
                .invalid_named(
                    second,
                    "give one transmission: joint, jointinparent, tendon, site, cranksite or body",
                )
                .into());
        }
        ["site"] => {
            let refsite = if a.has("refsite") { Some(site("refsite")?) } else { None };
            (Transmission::Site { site: site("site")?, refsite, gear: params.gear }, None)
        }
        ["cranksite"] => {
            let rod = a.f64("cranklength")?.unwrap_or(0.0);
            if !(rod > 0.0) {
                return Err(a.missing("cranklength", "a slider-crank needs a positive cranklength").into());
            }
            let slider = site("slidersite")?;
            (Transmission::SliderCrank { crank: site("cranksite")?, slider, rod }, None)
        }
        ["tendon"] => {
            let attr = a.get("tendon").ok_or_else(|| a.missing("tendon", ""))?;
            let t =
                tendons.iter().position(|t| !t.name.is_empty() && t.name == attr.value).ok_or_else(|| {
                    MjcfError::UndefinedName {
                        at: attr.at.clone(),
                        element: a.element().to_string(),
                        attribute: "tendon".into(),
                        kind: "tendon",
                        name: attr.value.clone(),
                    }
                })?;
            (Transmission::Tendon(t), tendons[t].range)
        }
        [joint_attr] => {
            let joint = tree.joint(&a, joint_attr)?.unwrap_or_default();
            let info = &tree.joints[joint];
            if !matches!(info.kind, JointKind::Hinge | JointKind::Slide) {
                return Err(a.unsupported(Some(joint_attr), "actuators on ball or free joints").into());
            }
            (Transmission::Joint(joint), info.range)
        }
    };
    let tau = params.dynprm[0];
    let dynamics = match params.dynamics {
        Dyn::None => ActuatorDynamics::None,
        Dyn::Integrator => ActuatorDynamics::Integrator,
        Dyn::Filter | Dyn::FilterExact if !(tau > 0.0) => {
            return Err(a.invalid_named("dynprm", "a filter's time constant dynprm[0] must be > 0").into());
        }
        Dyn::Filter => ActuatorDynamics::Filter { tau },
        Dyn::FilterExact => ActuatorDynamics::FilterExact { tau },
        Dyn::Muscle => {
            let [tau_act, tau_deact, tausmooth] = [params.dynprm[0], params.dynprm[1], params.dynprm[2]];
            if !(tau_act > 0.0 && tau_deact > 0.0) {
                let attribute = if kind == "muscle" { "timeconst" } else { "dynprm" };
                return Err(a.invalid_named(attribute, "a muscle's time constants must be > 0").into());
            }
            ActuatorDynamics::Muscle { tau_act, tau_deact, tausmooth }
        }
        Dyn::User => return Err(a.unsupported(Some("dyntype"), "user activation dynamics").into()),
    };
    let muscle = |prm: &[f64; 10], attribute: &str| -> Result<Muscle> {
        let m = Muscle::from_prm(prm);
        if !(m.range[0] < m.range[1] && m.lmin < 1.0 && m.lmax > 1.0 && m.vmax > 0.0) {
            return Err(a
                .invalid_named(attribute, "a muscle needs range[0] < range[1], lmin < 1 < lmax and vmax > 0")
                .into());
        }
        Ok(m)
    };
    let (gain_affine, gain_muscle) = match params.gain {
        Gain::Fixed => ([0.0; 2], None),
        Gain::Affine => ([params.gainprm[1], params.gainprm[2]], None),
        Gain::Muscle => ([0.0; 2], Some(muscle(&params.gainprm, "gainprm")?)),
        Gain::User => return Err(a.unsupported(Some("gaintype"), "user gains").into()),
    };
    let (bias, bias_muscle) = match params.bias {
        Bias::None => ([0.0; 3], None),
        // A positive biasprm₂ of a servo is a damping ratio, turned into a damping when the model is compiled.
        Bias::Affine => ([params.biasprm[0], params.biasprm[1], params.biasprm[2]], None),
        Bias::Muscle => ([0.0; 3], Some(muscle(&params.biasprm, "biasprm")?)),
        Bias::User => return Err(a.unsupported(Some("biastype"), "user biases").into()),
    };
    let lengthrange = match a.array::<2>("lengthrange")? {
        // MuJoCo keeps a range only when it is not empty (`useexisting`); [0, 0] means "compute it".
        Some([lo, hi]) if lo < hi => Some([lo, hi]),
        Some([lo, hi]) if lo > hi => {
            return Err(a
                .invalid_named("lengthrange", "the lower limit must not exceed the upper limit")
                .into());
        }
        _ => None,
    };

    let ctrl = a.array_or::<2>("ctrlrange", [0.0; 2])?;
    let mut ctrlrange =
        resolve_limited(&a, "ctrllimited", "ctrlrange", ctrl, ctx.compiler.autolimits)?.then_some(ctrl);
    if params.adhesion {
        if !a.has("ctrlrange") {
            return Err(a.missing("ctrlrange", "an adhesion actuator needs a non-negative ctrlrange").into());
        }
        ctrlrange = Some(ctrl);
    }
    if params.ctrl_limited || params.adhesion {
        let what = if params.adhesion { "an adhesion actuator" } else { "a damper" };
        match ctrlrange {
            None => {
                return Err(a.missing("ctrlrange", format!("{what} needs a non-negative ctrlrange")).into());
            }
            Some(r) if r[0] < 0.0 || r[1] < 0.0 => {
                return Err(a
                    .invalid_named("ctrlrange", format!("{what} needs a non-negative ctrlrange"))
                    .into());
            }
            Some(_) => {}
        }
    }
    let act = a.array_or::<2>("actrange", [0.0; 2])?;
    let act_limited = match a.bool("actlimited")? {
        Some(l) => l,
        None => {
            params.act_limited || resolve_limited(&a, "actlimited", "actrange", act, ctx.compiler.autolimits)?
        }
    };
    let mut actrange = act_limited.then_some(act);
    if dynamics == ActuatorDynamics::None && actrange.is_some() {
        return Err(a
            .invalid_named("actrange", "an actuator without activation dynamics has no activation")
            .into());
    }
    // MuJoCo applies `inheritrange` to position-like actuators only (a fixed gain kp against an affine bias −kp:
    // position, intvelocity); a motor that takes it from a default class shared with a position servo ignores it
    // (`mjCActuator::Compile`; robosuite's Spot).
    let position_like =
        params.gain == Gain::Fixed && params.bias == Bias::Affine && params.gainprm[0] == -params.biasprm[1];
    let inheritrange = if position_like { params.inheritrange } else { 0.0 };
    if inheritrange > 0.0 {
        if !params.act_limited && ctrl != [0.0; 2] {
            return Err(a
                .invalid_named("inheritrange", "ctrlrange and inheritrange cannot both be given")
                .into());
        }
        let r = target_range
            .ok_or_else(|| a.invalid_named("inheritrange", "the joint or tendon has no range to inherit"))?;
        let (mid, half) = ((r[0] + r[1]) / 2.0, (r[1] - r[0]) / 2.0);
        let inherited = Some([mid - inheritrange * half, mid + inheritrange * half]);
        // intvelocity: the inherited range bounds the activation (the position setpoint); position: the control.
        if params.act_limited {
            actrange = inherited;
        } else {
            ctrlrange = inherited;
        }
    }
    if ctrlrange.is_some_and(|r| !(r[0] < r[1])) {
        return Err(a.invalid_named("ctrlrange", "the lower limit must be below the upper limit").into());
    }
    if actrange.is_some_and(|r| !(r[0] <= r[1])) {
        return Err(a.invalid_named("actrange", "the lower limit must not exceed the upper limit").into());
    }
    let force = a.array_or::<2>("forcerange", [0.0; 2])?;
    let forcerange =
        resolve_limited(&a, "forcelimited", "forcerange", force, ctx.compiler.autolimits)?.then_some(force);
    if forcerange.is_some_and(|r| !(r[0] < r[1])) {
        return Err(a.invalid_named("forcerange", "the lower limit must be below the upper limit").into());
    }
    Ok(ActuatorSpec {
        name: a.str("name").unwrap_or_default().to_string(),
        transmission,
        gear: params.gear[0],
        gain: params.gainprm[0],
        bias,
        ctrlrange,
        forcerange,
        gain_affine,
        dynamics,
        actrange,
        gain_muscle,
        bias_muscle,
        lengthrange,
        actearly: params.actearly,
    })
}
