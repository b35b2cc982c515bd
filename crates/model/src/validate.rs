//! What a [`ModelSpec`] must satisfy before [`crate::Model::compile`] builds it: finite and in-range parameters,
//! parents before children, unit quaternions, valid indices and sizes. Each failure is a [`ModelError`] naming the
//! object (`object_name`) and the parameter at fault.

use glam::{DQuat, DVec3};
use signorini_geometry::pose::QUAT_NORM_TOLERANCE;

use crate::error::{ModelError, object_name};
use signorini_geometry::Shape;

use crate::sensor::SensorSpec;
use crate::spec::{
    ActuatorDynamics, ActuatorSpec, EqualitySpec, JointKind, ModelSpec, SolImp, SolRef, Transmission,
};

fn finite(object: &str, parameter: &'static str, values: &[f64]) -> Result<(), ModelError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(ModelError::NonFinite { object: object.to_owned(), parameter })
    }
}

fn non_negative(object: &str, parameter: &'static str, value: f64) -> Result<(), ModelError> {
    finite(object, parameter, &[value])?;
    if value < 0.0 {
        return Err(ModelError::Negative { object: object.to_owned(), parameter, value });
    }
    Ok(())
}

fn vec3(object: &str, parameter: &'static str, v: DVec3) -> Result<(), ModelError> {
    finite(object, parameter, &v.to_array())
}

/// An equality between a body and itself constrains nothing (and has no rows to solve): refused.
fn distinct_bodies(object: &str, body1: usize, body2: usize) -> Result<(), ModelError> {
    if body1 == body2 {
        return Err(ModelError::SameBody { object: object.to_owned(), body: body1 });
    }
    Ok(())
}

/// A position (m): finite and within [`signorini_geometry::MAX_COORDINATE`] of the origin on every axis.
fn position(object: &str, parameter: &'static str, v: DVec3) -> Result<(), ModelError> {
    vec3(object, parameter, v)?;
    match v.to_array().into_iter().find(|c| c.abs() > signorini_geometry::MAX_COORDINATE) {
        Some(value) => Err(ModelError::TooLarge { object: object.to_owned(), parameter, value }),
        None => Ok(()),
    }
}

fn unit_quat(object: &str, parameter: &'static str, q: DQuat) -> Result<(), ModelError> {
    finite(object, parameter, &q.to_array())?;
    let norm = q.length();
    if (norm - 1.0).abs() > QUAT_NORM_TOLERANCE {
        return Err(ModelError::NotUnitQuaternion { object: object.to_owned(), parameter, norm });
    }
    Ok(())
}

fn sol(object: &str, solref: &SolRef, solimp: &SolImp) -> Result<(), ModelError> {
    finite(object, "solref", solref)?;
    finite(object, "solimp", solimp)
}

fn range(
    object: &str,
    parameter: &'static str,
    r: Option<[f64; 2]>,
    rule: &'static str,
    ok: impl Fn(f64, f64) -> bool,
) -> Result<(), ModelError> {
    let Some(r) = r else { return Ok(()) };
    finite(object, parameter, &r)?;
    if ok(r[0], r[1]) {
        Ok(())
    } else {
        Err(ModelError::InvalidRange { object: object.to_owned(), parameter, range: r, rule })
    }
}

fn index(object: &str, parameter: &'static str, index: usize, len: usize) -> Result<(), ModelError> {
    if index < len {
        Ok(())
    } else {
        Err(ModelError::IndexOutOfRange { object: object.to_owned(), parameter, index, len })
    }
}

fn condim(geom: &str, c: u8) -> Result<(), ModelError> {
    if matches!(c, 1 | 3 | 4 | 6) {
        Ok(())
    } else {
        Err(ModelError::InvalidCondim { geom: geom.to_owned(), condim: c })
    }
}

pub(crate) fn validate(spec: &ModelSpec) -> Result<(), ModelError> {
    let world = spec.bodies.first().ok_or(ModelError::InvalidWorld { what: "no bodies" })?;
    let world_error = |what| Err(ModelError::InvalidWorld { what });
    if world.parent != 0 {
        return world_error("its parent must be 0");
    }
    if !world.joints.is_empty() {
        return world_error("it cannot have joints");
    }
    if world.inertial.mass != 0.0 || world.inertial.inertia != DVec3::ZERO {
        return world_error("it cannot have mass or inertia");
    }
    if world.pos != DVec3::ZERO || world.quat != DQuat::IDENTITY {
        return world_error("its frame must be the identity");
    }
    vec3("model", "gravity", spec.gravity)?;
    non_negative("model", "density", spec.medium.density)?;
    non_negative("model", "viscosity", spec.medium.viscosity)?;
    vec3("model", "wind", spec.medium.wind)?;

    let mut njnt = 0;
    let mut ngeom = 0;
    let mut nsite = 0;
    for (b, body) in spec.bodies.iter().enumerate() {
        let name = object_name("body", &body.name, b);
        if b > 0 && body.parent >= b {
            return Err(ModelError::BadParent { body: name, parent: body.parent });
        }
        if body.mocap && (b == 0 || body.parent != 0) {
            return Err(ModelError::BadMocap { body: name, reason: "its parent is not the world" });
        }
        if body.sleep != crate::spec::SleepPolicy::Auto
            && (b == 0 || body.parent != 0 || body.joints.is_empty())
        {
            return Err(ModelError::InvalidRange {
                object: name,
                parameter: "sleep",
                range: [0.0, 0.0],
                rule: "a sleep policy belongs to a moving tree root (a child of the world with joints)",
            });
        }
        if body.mocap && !body.joints.is_empty() {
            return Err(ModelError::BadMocap { body: name, reason: "it has joints" });
        }
        position(&name, "pos", body.pos)?;
        unit_quat(&name, "quat", body.quat)?;
        let inertial = &body.inertial;
        non_negative(&name, "mass", inertial.mass)?;
        finite(&name, "gravcomp", &[body.gravcomp])?;
        for &i in &inertial.inertia.to_array() {
            non_negative(&name, "inertia", i)?;
        }
        let [a, bb, c] = inertial.inertia.to_array();
        let slack = 1e-12 * (a + bb + c);
        if a + bb + slack < c || bb + c + slack < a || c + a + slack < bb {
            return Err(ModelError::InertiaTriangle { body: name, inertia: [a, bb, c] });
        }
        position(&name, "inertial pos", inertial.pos)?;
        unit_quat(&name, "inertial quat", inertial.quat)?;

        for joint in &body.joints {
            let jname = object_name("joint", &joint.name, njnt);
            njnt += 1;
            position(&jname, "pos", joint.pos)?;
            for (parameter, value) in [
                ("armature", joint.armature),
                ("damping", joint.damping),
                ("stiffness", joint.stiffness),
                ("frictionloss", joint.frictionloss),
            ] {
                non_negative(&jname, parameter, value)?;
            }
            finite(&jname, "springref", &[joint.springref])?;
            finite(&jname, "reference", &[joint.reference])?;
            sol(&jname, &joint.solref_limit, &joint.solimp_limit)?;
            sol(&jname, &joint.solref_friction, &joint.solimp_friction)?;
            if joint.actuatorfrcrange.is_some() && matches!(joint.kind, JointKind::Free | JointKind::Ball) {
                let r = joint.actuatorfrcrange;
                range(&jname, "actuatorfrcrange", r, "hinge and slide joints only", |_, _| false)?;
            }
            match joint.kind {
                JointKind::Free => {
                    if body.joints.len() != 1 || body.parent != 0 || b == 0 {
                        return Err(ModelError::FreeJointPlacement { joint: jname });
                    }
                    if let Some(r) = joint.range {
                        range(&jname, "range", Some(r), "a free joint has no range", |_, _| false)?;
                    }
                }
                JointKind::Ball => {
                    range(&jname, "range", joint.range, "a ball range is (0, max angle > 0)", |lo, hi| {
                        lo == 0.0 && hi > 0.0
                    })?;
                }
                JointKind::Hinge | JointKind::Slide => {
                    vec3(&jname, "axis", joint.axis)?;
                    if !(joint.axis.length() > 1e-14) {
                        return Err(ModelError::ZeroAxis { joint: jname });
                    }
                    range(&jname, "range", joint.range, "lower < upper", |lo, hi| lo < hi)?;
                    range(&jname, "actuatorfrcrange", joint.actuatorfrcrange, "lower <= upper", |lo, hi| {
                        lo <= hi
                    })?;
                }
            }
        }

        for geom in &body.geoms {
            let gname = object_name("geom", &geom.name, ngeom);
            ngeom += 1;
            position(&gname, "pos", geom.pos)?;
            unit_quat(&gname, "quat", geom.quat)?;
            condim(&gname, geom.condim)?;
            for &f in &geom.friction {
                non_negative(&gname, "friction", f)?;
            }
            sol(&gname, &geom.solref, &geom.solimp)?;
            if let Some(coefs) = &geom.fluid {
                finite(&gname, "fluidcoef", coefs)?;
                if matches!(geom.shape, Shape::Plane(_) | Shape::HeightField(_)) {
                    return Err(ModelError::InvalidRange {
                        object: gname,
                        parameter: "fluidshape",
                        range: [0.0, 0.0],
                        rule: "a plane or height field has no fluid ellipsoid",
                    });
                }
            }
            for (parameter, value) in
                [("solmix", geom.solmix), ("margin", geom.margin), ("gap", geom.gap), ("mass", geom.mass)]
            {
                non_negative(&gname, parameter, value)?;
            }
        }
        for (site, pos, quat) in &body.sites {
            let sname = object_name("site", site, nsite);
            nsite += 1;
            position(&sname, "pos", *pos)?;
            unit_quat(&sname, "quat", *quat)?;
        }
    }

    let joints: Vec<JointKind> = spec.bodies.iter().flat_map(|b| b.joints.iter().map(|j| j.kind)).collect();
    let scalar_joint = |object: &str, parameter, j: usize| -> Result<(), ModelError> {
        index(object, parameter, j, joints.len())?;
        if matches!(joints[j], JointKind::Hinge | JointKind::Slide) {
            Ok(())
        } else {
            Err(ModelError::NotScalarJoint { object: object.to_owned(), joint: j })
        }
    };

    for (u, act) in spec.actuators.iter().enumerate() {
        validate_actuator(
            &object_name("actuator", &act.name, u),
            act,
            spec.tendons.len(),
            nsite,
            spec.bodies.len(),
            &scalar_joint,
        )?;
    }
    for (t, tendon) in spec.tendons.iter().enumerate() {
        let tname = object_name("tendon", &tendon.name, t);
        for &(j, coef) in &tendon.joints {
            scalar_joint(&tname, "joint", j)?;
            finite(&tname, "coef", &[coef])?;
        }
        for &(b, pos) in &tendon.sites {
            index(&tname, "site body", b, spec.bodies.len())?;
            position(&tname, "site pos", pos)?;
        }
        let points = tendon.sites.len();
        if tendon.joints.is_empty() == (points == 0) || points == 1 {
            return Err(ModelError::InvalidTendonPath { tendon: tname });
        }
        range(&tname, "range", tendon.range, "lower < upper", |lo, hi| lo < hi)?;
        range(&tname, "springlength", tendon.springlength, "lower <= upper", |lo, hi| lo <= hi)?;
        for (parameter, value) in [
            ("stiffness", tendon.stiffness),
            ("damping", tendon.damping),
            ("frictionloss", tendon.frictionloss),
        ] {
            non_negative(&tname, parameter, value)?;
        }
        sol(&tname, &tendon.solref_limit, &tendon.solimp_limit)?;
        sol(&tname, &tendon.solref_friction, &tendon.solimp_friction)?;
    }

    let nbody = spec.bodies.len();
    let limited: Vec<bool> =
        spec.bodies.iter().flat_map(|b| b.joints.iter().map(|j| j.range.is_some())).collect();
    for (i, sensor) in spec.sensors.iter().enumerate() {
        let sname = object_name("sensor", &sensor.name, i);
        let sizes = SensorSizes {
            joints: &joints,
            limited: &limited,
            ntendon: spec.tendons.len(),
            tendon_limited: &spec.tendons.iter().map(|t| t.range.is_some()).collect::<Vec<_>>(),
            nu: spec.actuators.len(),
            nbody,
            ngeom,
            nsite,
        };
        validate_sensor(&sname, sensor, &sizes)?;
    }
    for (e, eq) in spec.equalities.iter().enumerate() {
        match eq {
            EqualitySpec::Connect { name, body1, body2, anchor, solref, solimp } => {
                let ename = object_name("equality", name, e);
                index(&ename, "body1", *body1, nbody)?;
                index(&ename, "body2", *body2, nbody)?;
                distinct_bodies(&ename, *body1, *body2)?;
                position(&ename, "anchor", *anchor)?;
                sol(&ename, solref, solimp)?;
            }
            EqualitySpec::Weld { name, body1, body2, anchor, relpose, torquescale, solref, solimp } => {
                let ename = object_name("equality", name, e);
                index(&ename, "body1", *body1, nbody)?;
                index(&ename, "body2", *body2, nbody)?;
                distinct_bodies(&ename, *body1, *body2)?;
                position(&ename, "anchor", *anchor)?;
                if let Some((pos, quat)) = relpose {
                    position(&ename, "relpose pos", *pos)?;
                    unit_quat(&ename, "relpose quat", *quat)?;
                }
                non_negative(&ename, "torquescale", *torquescale)?;
                sol(&ename, solref, solimp)?;
            }
            EqualitySpec::Joint { name, joint1, joint2, polycoef, solref, solimp } => {
                let ename = object_name("equality", name, e);
                scalar_joint(&ename, "joint1", *joint1)?;
                if let Some(j2) = joint2 {
                    scalar_joint(&ename, "joint2", *j2)?;
                }
                finite(&ename, "polycoef", polycoef)?;
                sol(&ename, solref, solimp)?;
            }
            EqualitySpec::Tendon { name, tendon1, tendon2, polycoef, solref, solimp } => {
                let ename = object_name("equality", name, e);
                index(&ename, "tendon1", *tendon1, spec.tendons.len())?;
                if let Some(t2) = tendon2 {
                    index(&ename, "tendon2", *t2, spec.tendons.len())?;
                }
                finite(&ename, "polycoef", polycoef)?;
                sol(&ename, solref, solimp)?;
            }
        }
    }

    let nq: usize = joints.iter().map(|k| k.nq()).sum();
    let nv: usize = joints.iter().map(|k| k.nv()).sum();
    let nu = spec.actuators.len();
    let na = spec.actuators.iter().filter(|a| a.dynamics != ActuatorDynamics::None).count();
    let nmocap = spec.bodies.iter().filter(|b| b.mocap).count();
    for (k, key) in spec.keyframes.iter().enumerate() {
        let kname = object_name("keyframe", &key.name, k);
        finite(&kname, "time", &[key.time])?;
        for (field, values, expected) in [
            ("qpos", &key.qpos, nq),
            ("qvel", &key.qvel, nv),
            ("ctrl", &key.ctrl, nu),
            ("act", &key.act, na),
            ("mpos", &key.mpos, 3 * nmocap),
            ("mquat", &key.mquat, 4 * nmocap),
        ] {
            if !values.is_empty() && values.len() != expected {
                return Err(ModelError::KeyframeSize { keyframe: kname, field, len: values.len(), expected });
            }
            finite(&kname, field, values)?;
        }
    }

    for (k, &(b1, b2)) in spec.contact_excludes.iter().enumerate() {
        let xname = object_name("contact exclude", "", k);
        index(&xname, "body1", b1, nbody)?;
        index(&xname, "body2", b2, nbody)?;
    }
    for (k, pair) in spec.contact_pairs.iter().enumerate() {
        let pname = object_name("contact pair", &pair.name, k);
        for (parameter, (b, g)) in [("geom1", pair.geom1), ("geom2", pair.geom2)] {
            index(&pname, parameter, b, nbody)?;
            index(&pname, parameter, g, spec.bodies[b].geoms.len())?;
        }
        condim(&pname, pair.condim)?;
        for &f in &pair.friction {
            non_negative(&pname, "friction", f)?;
        }
        sol(&pname, &pair.solref, &pair.solimp)?;
        finite(&pname, "margin", &[pair.margin])?;
        finite(&pname, "gap", &[pair.gap])?;
        finite(&pname, "adhesion", &[pair.adhesion])?;
        if pair.margin < 0.0 || pair.gap < 0.0 {
            return Err(ModelError::InvalidContactPair {
                pair: pname,
                reason: "a contact pair's margin and gap must be >= 0",
            });
        }
        if pair.geom1 == pair.geom2 {
            return Err(ModelError::InvalidContactPair {
                pair: pname,
                reason: "a contact pair needs two geoms",
            });
        }
        let f = pair.friction;
        if f[0] != f[1] || f[3] != f[4] {
            return Err(ModelError::InvalidContactPair {
                pair: pname,
                reason: "anisotropic friction (two different sliding or rolling coefficients) is not supported",
            });
        }
    }
    Ok(())
}

fn validate_actuator(
    name: &str,
    act: &ActuatorSpec,
    ntendon: usize,
    nsite: usize,
    nbody: usize,
    scalar_joint: &impl Fn(&str, &'static str, usize) -> Result<(), ModelError>,
) -> Result<(), ModelError> {
    match act.transmission {
        Transmission::Joint(j) => scalar_joint(name, "joint", j)?,
        Transmission::Tendon(t) => index(name, "tendon", t, ntendon)?,
        Transmission::Site { site, refsite, gear } => {
            index(name, "site", site, nsite)?;
            if let Some(r) = refsite {
                index(name, "refsite", r, nsite)?;
            }
            finite(name, "gear", &gear)?;
        }
        Transmission::Body(b) => index(name, "body", b, nbody)?,
        Transmission::SliderCrank { crank, slider, rod } => {
            index(name, "cranksite", crank, nsite)?;
            index(name, "slidersite", slider, nsite)?;
            if !(rod > 0.0 && rod.is_finite()) {
                return Err(ModelError::NonPositive {
                    object: name.to_owned(),
                    parameter: "cranklength",
                    value: rod,
                });
            }
        }
    }
    finite(name, "gear", &[act.gear])?;
    finite(name, "gain", &[act.gain])?;
    finite(name, "gain_affine", &act.gain_affine)?;
    if let ActuatorDynamics::Filter { tau } | ActuatorDynamics::FilterExact { tau } = act.dynamics
        && !(tau > 0.0 && tau.is_finite())
    {
        return Err(ModelError::NonPositive { object: name.to_owned(), parameter: "timeconst", value: tau });
    }
    if let ActuatorDynamics::Muscle { tau_act, tau_deact, tausmooth } = act.dynamics {
        for (parameter, value) in [("timeconst[0]", tau_act), ("timeconst[1]", tau_deact)] {
            if !(value > 0.0 && value.is_finite()) {
                return Err(ModelError::NonPositive { object: name.to_owned(), parameter, value });
            }
        }
        finite(name, "tausmooth", &[tausmooth])?;
    }
    for muscle in [act.gain_muscle, act.bias_muscle].iter().flatten() {
        let m = muscle;
        finite(
            name,
            "muscle",
            &[m.range[0], m.range[1], m.force, m.scale, m.lmin, m.lmax, m.vmax, m.fpmax, m.fvmax],
        )?;
        if !(m.range[0] < m.range[1] && m.lmin < 1.0 && m.lmax > 1.0 && m.vmax > 0.0) {
            return Err(ModelError::InvalidActuator {
                actuator: name.to_owned(),
                reason: "a muscle needs range[0] < range[1], lmin < 1 < lmax and vmax > 0",
            });
        }
    }
    range(name, "lengthrange", act.lengthrange, "lower <= upper", |lo, hi| lo <= hi)?;
    range(name, "actrange", act.actrange, "lower <= upper", |lo, hi| lo <= hi)?;
    finite(name, "bias", &act.bias)?;
    range(name, "ctrlrange", act.ctrlrange, "lower < upper", |lo, hi| lo < hi)?;
    range(name, "forcerange", act.forcerange, "lower < upper", |lo, hi| lo < hi)
}

/// Model sizes a sensor's indices are checked against.
struct SensorSizes<'a> {
    joints: &'a [JointKind],
    limited: &'a [bool],
    ntendon: usize,
    tendon_limited: &'a [bool],
    nu: usize,
    nbody: usize,
    ngeom: usize,
    nsite: usize,
}

fn validate_sensor(name: &str, sensor: &SensorSpec, n: &SensorSizes<'_>) -> Result<(), ModelError> {
    use crate::sensor::{SensorFrame, SensorKind as K};
    let joint = |j: usize, kinds: &[JointKind], rule: &'static str| -> Result<(), ModelError> {
        index(name, "joint", j, n.joints.len())?;
        if kinds.contains(&n.joints[j]) {
            Ok(())
        } else {
            Err(ModelError::InvalidSensor { sensor: name.to_owned(), reason: rule })
        }
    };
    let scalar = [JointKind::Hinge, JointKind::Slide];
    let frame = |f: SensorFrame, parameter: &'static str| match f {
        SensorFrame::Body(b) | SensorFrame::XBody(b) => index(name, parameter, b, n.nbody),
        SensorFrame::Geom(g) => index(name, parameter, g, n.ngeom),
        SensorFrame::Site(s) => index(name, parameter, s, n.nsite),
    };
    match &sensor.kind {
        K::JointPos(j) | K::JointVel(j) | K::JointActuatorFrc(j) => {
            joint(*j, &scalar, "its joint must be a hinge or a slide")?
        }
        K::JointLimitPos(j) | K::JointLimitVel(j) | K::JointLimitFrc(j) => {
            joint(*j, &scalar, "its joint must be a hinge or a slide")?;
            if !n.limited[*j] {
                return Err(ModelError::InvalidSensor {
                    sensor: name.to_owned(),
                    reason: "its joint is not limited",
                });
            }
        }
        K::BallQuat(j) | K::BallAngVel(j) => joint(*j, &[JointKind::Ball], "its joint must be a ball joint")?,
        K::TendonPos(t) | K::TendonVel(t) | K::TendonActuatorFrc(t) => index(name, "tendon", *t, n.ntendon)?,
        K::TendonLimitPos(t) | K::TendonLimitVel(t) | K::TendonLimitFrc(t) => {
            index(name, "tendon", *t, n.ntendon)?;
            if !n.tendon_limited[*t] {
                return Err(ModelError::InvalidSensor {
                    sensor: name.to_owned(),
                    reason: "its tendon is not limited",
                });
            }
        }
        K::ActuatorPos(a) | K::ActuatorVel(a) | K::ActuatorFrc(a) => index(name, "actuator", *a, n.nu)?,
        K::Frame { object, reference, .. } => {
            frame(*object, "object")?;
            if let Some(r) = reference {
                frame(*r, "reference")?;
            }
        }
        K::SubtreeCom(b) | K::SubtreeLinVel(b) | K::SubtreeAngMom(b) => index(name, "body", *b, n.nbody)?,
        K::Accelerometer(s) | K::Velocimeter(s) | K::Gyro(s) | K::Force(s) | K::Torque(s) => {
            index(name, "site", *s, n.nsite)?
        }
        K::Magnetometer { site, field } => {
            index(name, "site", *site, n.nsite)?;
            vec3(name, "field", *field)?;
        }
        K::Rangefinder(site) => index(name, "site", *site, n.nsite)?,
        K::Touch { site, shape } => {
            index(name, "site", *site, n.nsite)?;
            if !matches!(
                shape,
                Shape::Sphere(_)
                    | Shape::Capsule(_)
                    | Shape::Ellipsoid(_)
                    | Shape::Cylinder(_)
                    | Shape::Box(_)
            ) {
                return Err(ModelError::InvalidSensor {
                    sensor: name.to_owned(),
                    reason: "a touch site is a sphere, capsule, ellipsoid, cylinder or box",
                });
            }
        }
        K::Clock => {}
    }
    non_negative(name, "cutoff", sensor.cutoff)?;
    non_negative(name, "noise", sensor.noise)?;
    if sensor.cutoff > 0.0 && sensor.kind.is_direction() {
        return Err(ModelError::InvalidSensor {
            sensor: name.to_owned(),
            reason: "a cutoff does not apply to an axis or a quaternion",
        });
    }
    Ok(())
}
