//! Shared test helpers: the chain model of `scenes/chain.xml` built in code, random trees, a small RNG and dense
//! linear algebra.
#![allow(dead_code)]

use std::path::PathBuf;

use glam::{DQuat, DVec3};
use serde_json::Value;
use signorini_geometry::{Capsule, Cuboid, Cylinder, Ellipsoid, Plane, Shape, Sphere};
use signorini_model::{BodySpec, GeomSpec, InertialSpec, JointKind, JointSpec, Model, ModelSpec};

pub fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// `testdata/mujoco/model/chain.json`.
pub fn chain_json() -> Value {
    let path = shared().join("testdata/mujoco/model/chain.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("chain.json parses")
}

pub fn floats(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(items) => items.iter().flat_map(floats).collect(),
        Value::Number(n) => vec![n.as_f64().expect("f64")],
        other => panic!("not a number or array: {other}"),
    }
}

pub fn vec3(v: &Value) -> DVec3 {
    let f = floats(v);
    DVec3::new(f[0], f[1], f[2])
}

pub fn quat_wxyz(v: &Value) -> DQuat {
    let f = floats(v);
    DQuat::from_xyzw(f[1], f[2], f[3], f[0])
}

/// MuJoCo's quaternion of `fromto` geoms along `dir`: the rotation taking `+z` to `dir` (unit).
fn z_to(dir: DVec3) -> DQuat {
    DQuat::from_rotation_arc(DVec3::Z, dir.normalize())
}

/// MJCF `quat` attribute, normalised as the MuJoCo compiler does.
fn mjcf_quat(w: f64, x: f64, y: f64, z: f64) -> DQuat {
    DQuat::from_xyzw(x, y, z, w).normalize()
}

/// `scenes/chain.xml` built in code: joint parameters from the XML (default class: armature 0.02, damping 0.5;
/// the free joint gets neither, as `dof_armature`/`dof_damping` in chain.json show), compiled inertias from
/// chain.json.
pub fn chain_model(json: &Value) -> Model {
    let inertial = |b: usize| InertialSpec {
        mass: json["body_mass"][b].as_f64().expect("mass"),
        inertia: vec3(&json["body_inertia"][b]),
        pos: vec3(&json["body_ipos"][b]),
        quat: quat_wxyz(&json["body_iquat"][b]).normalize(),
    };
    let class = |j: JointSpec| JointSpec { armature: 0.02, damping: 0.5, ..j };
    let geom = |name: &str, shape: Shape, pos: DVec3, quat: DQuat| GeomSpec {
        pos,
        quat,
        ..GeomSpec::new(name, shape)
    };
    let capsule = |r: f64, from: DVec3, to: DVec3| {
        (
            Shape::from(Capsule::new(r, 0.5 * (to - from).length()).expect("capsule")),
            0.5 * (from + to),
            z_to(to - from),
        )
    };

    let mut spec = ModelSpec { name: "chain".into(), ..ModelSpec::default() };
    spec.bodies[0].geoms.push(GeomSpec::new("floor", Shape::from(Plane::new())));

    let mut base = BodySpec::new("base", 0, DVec3::new(0.0, 0.0, 1.0), DQuat::IDENTITY);
    base.inertial = inertial(1);
    base.joints.push(JointSpec::free("base"));
    base.geoms
        .push(GeomSpec::new("base", Shape::from(Cuboid::new(DVec3::new(0.2, 0.15, 0.1)).expect("box"))));
    let base = spec.add_body(base);

    let mut upper =
        BodySpec::new("upper", base, DVec3::new(0.2, 0.0, 0.0), mjcf_quat(0.9238795, 0.0, 0.3826834, 0.0));
    upper.inertial = inertial(2);
    upper.joints.push(JointSpec { armature: 0.01, ..class(JointSpec::ball("shoulder")) });
    let (s, p, q) = capsule(0.04, DVec3::ZERO, DVec3::new(0.3, 0.0, 0.0));
    upper.geoms.push(geom("upper", s, p, q));
    let upper = spec.add_body(upper);

    let mut lower = BodySpec::new("lower", upper, DVec3::new(0.3, 0.0, 0.0), DQuat::IDENTITY);
    lower.inertial = inertial(3);
    lower.joints.push(JointSpec {
        range: Some([-2.0, 2.0]),
        frictionloss: 0.1,
        ..class(JointSpec::hinge("elbow", DVec3::Y))
    });
    lower.geoms.push(geom(
        "lower",
        Shape::from(Cylinder::new(0.035, 0.125).expect("cylinder")),
        DVec3::new(0.125, 0.0, 0.0),
        z_to(DVec3::X),
    ));
    let lower = spec.add_body(lower);

    let euler = DQuat::from_axis_angle(DVec3::X, 0.3)
        * DQuat::from_axis_angle(DVec3::Y, -0.2)
        * DQuat::from_axis_angle(DVec3::Z, 0.5);
    let mut slider = BodySpec::new("slider", lower, DVec3::new(0.25, 0.0, 0.0), euler);
    slider.inertial = inertial(4);
    slider.joints.push(JointSpec { range: Some([-0.1, 0.1]), ..class(JointSpec::slide("slide", DVec3::X)) });
    slider.geoms.push(GeomSpec::new(
        "slider",
        Shape::from(Ellipsoid::new(DVec3::new(0.05, 0.04, 0.03)).expect("ellipsoid")),
    ));
    let slider = spec.add_body(slider);

    let mut fixed = BodySpec::new("fixedchild", slider, DVec3::new(0.05, 0.02, 0.0), DQuat::IDENTITY);
    fixed.inertial = inertial(5);
    fixed.geoms.push(GeomSpec::new("fixedchild", Shape::from(Sphere::new(0.03).expect("sphere"))));
    spec.add_body(fixed);

    let mut wrist = BodySpec::new("wrist", slider, DVec3::new(0.08, 0.0, 0.0), DQuat::IDENTITY);
    wrist.inertial = inertial(6);
    wrist.joints.push(class(JointSpec::hinge("wrist", DVec3::Z)));
    wrist.geoms.push(geom(
        "wrist",
        Shape::from(Cuboid::new(DVec3::new(0.03, 0.02, 0.02)).expect("box")),
        DVec3::new(0.02, 0.0, 0.0),
        DQuat::IDENTITY,
    ));
    spec.add_body(wrist);

    let mut leg = BodySpec::new("leg", base, DVec3::new(-0.2, 0.0, -0.1), DQuat::IDENTITY);
    leg.inertial = inertial(7);
    leg.joints.push(JointSpec { range: Some([-1.0, 1.0]), ..class(JointSpec::hinge("hip", DVec3::X)) });
    let (s, p, q) = capsule(0.03, DVec3::ZERO, DVec3::new(0.0, 0.0, -0.3));
    leg.geoms.push(geom("leg", s, p, q));
    spec.add_body(leg);

    spec.gravity = vec3(&json["gravity"]);
    Model::compile(spec).expect("chain compiles")
}

/// SplitMix64.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn vec3(&mut self, scale: f64) -> DVec3 {
        DVec3::new(self.range(-scale, scale), self.range(-scale, scale), self.range(-scale, scale))
    }

    pub fn unit_vec3(&mut self) -> DVec3 {
        loop {
            let v = self.vec3(1.0);
            let n = v.length();
            if n > 0.1 && n <= 1.0 {
                return v / n;
            }
        }
    }

    pub fn quat(&mut self) -> DQuat {
        loop {
            let q = DQuat::from_xyzw(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let n = q.length();
            if n > 0.1 && n <= 1.0 {
                return q / n;
            }
        }
    }
}

/// A random tree of `nbody − 1` bodies: random parents, poses and inertias; each body gets one of: no joint, a
/// free joint (children of the world only), a ball, a hinge, a slide, or a pair (hinge + slide, ball + hinge,
/// slide + ball), with random anchors, axes, armature, damping, stiffness and springref.
pub fn random_model(rng: &mut Rng, nbody: usize) -> Model {
    let mut spec = ModelSpec::default();
    for b in 1..nbody {
        let parent = rng.below(b);
        let mut body = BodySpec::new(format!("b{b}"), parent, rng.vec3(0.5), rng.quat());
        let (m1, m2, m3) = (rng.range(0.1, 1.0), rng.range(0.1, 1.0), rng.range(0.1, 1.0));
        body.inertial = InertialSpec {
            mass: rng.range(0.5, 3.0),
            inertia: DVec3::new(m1 + m2, m2 + m3, m1 + m3) * 0.05,
            pos: rng.vec3(0.2),
            quat: rng.quat(),
        };
        let joint = |kind: JointKind, rng: &mut Rng| JointSpec {
            pos: rng.vec3(0.2),
            axis: rng.unit_vec3(),
            armature: rng.range(0.0, 0.1),
            damping: rng.range(0.0, 1.0),
            stiffness: rng.range(0.0, 2.0),
            springref: rng.range(-0.5, 0.5),
            reference: rng.range(-0.3, 0.3),
            ..JointSpec::new(format!("j{b}_{kind:?}"), kind)
        };
        let choice = rng.below(if parent == 0 { 8 } else { 7 });
        let kinds: &[JointKind] = match choice {
            0 => &[],
            1 => &[JointKind::Ball],
            2 => &[JointKind::Hinge],
            3 => &[JointKind::Slide],
            4 => &[JointKind::Hinge, JointKind::Slide],
            5 => &[JointKind::Ball, JointKind::Hinge],
            6 => &[JointKind::Slide, JointKind::Ball],
            _ => &[JointKind::Free],
        };
        for &kind in kinds {
            body.joints.push(joint(kind, rng));
        }
        spec.add_body(body);
    }
    Model::compile(spec).expect("random model compiles")
}

/// A random state: `qpos` around `qpos0` (random unit quaternions for balls and free joints), `qvel` in
/// `[−2, 2]`.
pub fn random_state(rng: &mut Rng, model: &Model, qpos: &mut [f64], qvel: &mut [f64]) {
    qpos.copy_from_slice(&model.qpos0);
    for j in 0..model.njnt {
        let a = model.jnt_qposadr[j];
        match model.jnt_type[j] {
            JointKind::Free => {
                let p = rng.vec3(1.0);
                let q = rng.quat();
                qpos[a..a + 7].copy_from_slice(&[p.x, p.y, p.z, q.w, q.x, q.y, q.z]);
            }
            JointKind::Ball => {
                let q = rng.quat();
                qpos[a..a + 4].copy_from_slice(&[q.w, q.x, q.y, q.z]);
            }
            JointKind::Hinge | JointKind::Slide => qpos[a] += rng.range(-1.0, 1.0),
        }
    }
    for v in qvel.iter_mut() {
        *v = rng.range(-2.0, 2.0);
    }
}

/// Dense Cholesky `A = C Cᵀ` (row-major, lower `C`); `None` when `A` is not positive definite.
pub fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= c[i * n + k] * c[j * n + k];
            }
            if i == j {
                if !(s > 0.0) {
                    return None;
                }
                c[i * n + i] = s.sqrt();
            } else {
                c[i * n + j] = s / c[j * n + j];
            }
        }
    }
    Some(c)
}

/// Solves `C Cᵀ x = b` with a Cholesky factor from [`cholesky`].
pub fn cholesky_solve(c: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = b.to_vec();
    for i in 0..n {
        for k in 0..i {
            y[i] -= c[i * n + k] * y[k];
        }
        y[i] /= c[i * n + i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            y[i] -= c[k * n + i] * y[k];
        }
        y[i] /= c[i * n + i];
    }
    y
}

pub fn mat_vec(a: &[f64], n: usize, x: &[f64]) -> Vec<f64> {
    (0..n).map(|i| (0..n).map(|j| a[i * n + j] * x[j]).sum()).collect()
}

pub fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// `max |a − b| / max |b|` (absolute when `b` is all zero).
pub fn rel_err(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let diff = a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
    let scale = max_abs(b);
    if scale > 0.0 { diff / scale } else { diff }
}
