//! # signorini-fuzz
//!
//! A fuzzing harness on stable Rust: seeded generators of MJCF scenes, URDF robots and distance/collision queries
//! that mix valid, extreme and malformed values, and the checks every input must pass. A file must load or be
//! refused with an error; a loaded scene must step or fail with an error; every output must be finite. A panic,
//! a hang or a NaN is a failure. `tests/fuzz.rs` runs a bounded number of inputs in the default test run;
//! `cargo xtask fuzz --minutes N` runs them for N minutes in release and prints how many inputs survived.

use std::fmt::Write;

/// xorshift64*: a small, seeded, reproducible generator (no dependency), with the rate at which the value
/// generators produce anomalies (malformed, negative, extreme values and invalid choices).
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
    /// Anomalies per thousand values.
    anomalies: usize,
}

impl Rng {
    /// A generator from `seed` (any value), producing anomalies at 5 %.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1, anomalies: 50 }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Chooses, for one whole input, between clean values (two times in three) and anomalies at 5 %: a file with
    /// anomalies everywhere is almost always refused at its first one, which tests little beyond that.
    pub fn choose_anomaly_rate(&mut self) {
        self.anomalies = if self.below(3) == 0 { 50 } else { 0 };
    }

    /// Whether the next value is an anomaly.
    fn anomaly(&mut self) -> bool {
        self.below(1000) < self.anomalies
    }

    /// Uniform in `0..n` (`n ≥ 1`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One of `valid`, or one of `invalid` when an anomaly is drawn.
    pub fn mostly<'a>(&mut self, valid: &[&'a str], invalid: &[&'a str]) -> &'a str {
        let from = if self.anomaly() && !invalid.is_empty() { invalid } else { valid };
        from[self.below(from.len())]
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A number as text: an ordinary value of the size and sign of `typical`, or, when an anomaly is drawn, a
    /// negative value, a value of any magnitude from 1e-20 to 1e20, or one of zero, NaN, infinite, ±1e308, 1e-308
    /// or not a number at all.
    pub fn number(&mut self, typical: f64) -> String {
        if self.anomaly() {
            return match self.below(3) {
                0 => self
                    .pick(&["0", "-0", "nan", "inf", "-inf", "1e308", "-1e308", "1e-308", "abc", ""])
                    .to_string(),
                1 => format!("{}", -typical.signum() * self.range(0.0, typical.abs())),
                _ => format!("{:e}", self.range(1.0, 10.0) * 10f64.powi(self.below(40) as i32 - 20)),
            };
        }
        format!("{}", typical.signum() * self.range(0.01 * typical.abs(), typical.abs()))
    }

    /// `lo hi` with `lo < hi` (or anomalies).
    pub fn interval(&mut self, typical: f64) -> String {
        if self.anomaly() {
            return self.numbers(2, typical);
        }
        let (a, b) = (self.range(0.0, typical), self.range(0.0, typical));
        format!("{} {}", -a, b + 0.01)
    }

    /// `n` numbers separated by spaces (one too few or too many when an anomaly is drawn).
    pub fn numbers(&mut self, n: usize, typical: f64) -> String {
        let count = match (self.anomaly(), self.below(2)) {
            (true, 0) => n.saturating_sub(1),
            (true, _) => n + 1,
            _ => n,
        };
        (0..count).map(|_| self.number(typical)).collect::<Vec<_>>().join(" ")
    }
}

/// A random MJCF scene: a floor, a tree of up to `max_bodies` bodies with joints and geoms of every kind, options,
/// an equality and an actuator, with valid, extreme and malformed values mixed in.
pub fn mjcf(rng: &mut Rng, max_bodies: usize) -> String {
    rng.choose_anomaly_rate();
    let mut x = String::from("<mujoco>");
    if rng.below(3) == 0 {
        let (dt, cone, solver) = (
            rng.number(0.01),
            rng.mostly(&["pyramidal", "elliptic"], &["round"]).to_string(),
            rng.mostly(&["Newton", "CG"], &["PGS"]).to_string(),
        );
        let _ = write!(x, r#"<option timestep="{dt}" cone="{cone}" solver="{solver}"/>"#);
    }
    x.push_str(r#"<worldbody><geom type="plane" size="5 5 0.1"/>"#);
    let n = 1 + rng.below(max_bodies);
    let mut depth = 0;
    let mut joints = Vec::new();
    for b in 0..n {
        let pos = rng.numbers(3, 1.0);
        let _ = write!(x, r#"<body name="b{b}" pos="{pos}""#);
        if rng.below(4) == 0 {
            let quat = rng.numbers(4, 1.0);
            let _ = write!(x, r#" quat="{quat}""#);
        }
        x.push('>');
        match rng.below(6) {
            0 => x.push_str("<freejoint/>"),
            1 | 2 => {
                let kind = rng.mostly(&["hinge", "slide", "ball"], &["free", "twist"]).to_string();
                let range = if kind == "ball" { format!("0 {}", rng.number(3.0)) } else { rng.interval(3.0) };
                let (axis, damping, armature) = (rng.numbers(3, 1.0), rng.number(1.0), rng.number(0.1));
                let _ = write!(
                    x,
                    r#"<joint name="j{b}" type="{kind}" axis="{axis}" range="{range}" damping="{damping}" armature="{armature}"/>"#
                );
                joints.push(b);
            }
            _ => {}
        }
        for _ in 0..1 + rng.below(2) {
            let kind = rng
                .pick(&["sphere", "box", "capsule", "cylinder", "ellipsoid", "plane", "torus"])
                .to_string();
            let size = rng.numbers(3, 0.2);
            let _ = write!(x, r#"<geom type="{kind}" size="{size}""#);
            if rng.below(3) == 0 {
                let (pos, mass, friction) = (rng.numbers(3, 0.3), rng.number(2.0), rng.numbers(3, 1.0));
                let _ = write!(x, r#" pos="{pos}" mass="{mass}" friction="{friction}""#);
            }
            if (kind == "capsule" || kind == "cylinder") && rng.below(5) == 0 {
                let fromto = rng.numbers(6, 0.5);
                let _ = write!(x, r#" fromto="{fromto}""#);
            }
            x.push_str("/>");
        }
        depth += 1;
        // Close some bodies now (siblings follow), or none (the next body nests deeper).
        let close = if b + 1 == n { depth } else { rng.below(depth) };
        for _ in 0..close {
            x.push_str("</body>");
            depth -= 1;
        }
    }
    x.push_str("</worldbody>");
    if !joints.is_empty() && rng.below(3) == 0 {
        let (j, gear) = (*rng.pick(&joints), rng.number(10.0));
        let _ = write!(x, r#"<actuator><motor joint="j{j}" gear="{gear}"/></actuator>"#);
    }
    if n > 1 && rng.below(4) == 0 {
        let (a, b) = (rng.below(n), rng.below(n + 1));
        let _ = write!(x, r#"<equality><weld body1="b{a}" body2="b{b}"/></equality>"#);
    }
    x.push_str("</mujoco>");
    x
}

/// A random URDF robot: a tree of up to `max_links` links with inertials and collision primitives, joints of every
/// kind (including ones URDF does not have).
pub fn urdf(rng: &mut Rng, max_links: usize) -> String {
    rng.choose_anomaly_rate();
    let n = 1 + rng.below(max_links);
    let mut x = String::from(r#"<robot name="r">"#);
    for l in 0..n {
        let moment = rng.number(0.1);
        let (mass, ixx, iyy, izz) =
            (rng.number(2.0), moment.clone(), rng.mostly(&[moment.as_str()], &["-1"]).to_string(), moment);
        let _ = write!(
            x,
            r#"<link name="l{l}"><inertial><mass value="{mass}"/><inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="0" ixz="0" iyz="0"/></inertial>"#
        );
        let geometry = match rng.below(5) {
            0 => format!(r#"<box size="{}"/>"#, rng.numbers(3, 0.3)),
            1 => format!(r#"<sphere radius="{}"/>"#, rng.number(0.2)),
            2 => format!(r#"<cylinder radius="{}" length="{}"/>"#, rng.number(0.1), rng.number(0.5)),
            3 => format!(r#"<capsule radius="{}" length="{}"/>"#, rng.number(0.1), rng.number(0.5)),
            _ if rng.below(10) == 0 => String::from(r#"<mesh filename="missing.stl"/>"#),
            _ => format!(r#"<sphere radius="{}"/>"#, rng.number(0.2)),
        };
        let origin = rng.numbers(3, 0.2);
        let _ = write!(
            x,
            r#"<collision><origin xyz="{origin}"/><geometry>{geometry}</geometry></collision></link>"#
        );
    }
    for l in 1..n {
        let parent = rng.below(l);
        let kind =
            rng.pick(&["revolute", "continuous", "prismatic", "fixed", "floating", "planar", "spherical"]);
        let kind = kind.to_string();
        let (xyz, rpy, axis, lower, upper) = (
            rng.numbers(3, 0.5),
            rng.numbers(3, 3.0),
            rng.numbers(3, 1.0),
            rng.number(-2.0),
            rng.number(2.0),
        );
        let _ = write!(
            x,
            r#"<joint name="j{l}" type="{kind}"><parent link="l{parent}"/><child link="l{l}"/><origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/><limit lower="{lower}" upper="{upper}" effort="1" velocity="1"/></joint>"#
        );
    }
    x.push_str("</robot>");
    x
}
