//! `<compiler>`: how the file is to be read (angle unit, Euler sequence, limits, inertia from geoms, asset folders,
//! mass post-processing, `<lengthrange>`). Several `<compiler>` elements apply in document order.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use signorini_model::spec::{LengthRangeMode, LengthRangeOptions};
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// When body inertia is computed from the geoms (MJCF `inertiafromgeom`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InertiaFromGeom {
    /// Never: a body without `<inertial>` has zero mass.
    False,
    /// Always, overriding `<inertial>`.
    True,
    /// Only for bodies without `<inertial>` (the default).
    Auto,
}

/// The compiler settings in effect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compiler {
    /// Angles in degrees (`angle="degree"`, MuJoCo's default) rather than radians.
    pub degrees: bool,
    /// Euler sequence, three of `xyzXYZ` (default `xyz`).
    pub eulerseq: [u8; 3],
    /// `autolimits` (default true): a joint or actuator with a non-zero range and `limited="auto"` is limited.
    pub autolimits: bool,
    /// `inertiafromgeom` (default auto).
    pub inertiafromgeom: InertiaFromGeom,
    /// Geom groups that contribute to body inertia (default `0 5`).
    pub inertiagrouprange: [i64; 2],
    /// Folder of mesh files, relative to the model file's folder (from `meshdir`, else `assetdir`).
    pub meshdir: Option<PathBuf>,
    /// `settotalmass`: when positive, all body masses and inertias are scaled so that they sum to it.
    pub settotalmass: Option<f64>,
    /// `boundmass`: lower bound of every non-world body mass (0: none).
    pub boundmass: f64,
    /// `boundinertia`: lower bound of every non-world principal moment (0: none).
    pub boundinertia: f64,
    /// `balanceinertia`: principal moments that violate the triangle inequality are all set to their mean.
    pub balanceinertia: bool,
    /// `strippath`: file names keep only their last component.
    pub strippath: bool,
    /// `<lengthrange>`: how missing actuator length ranges are computed.
    pub lengthrange: LengthRangeOptions,
}

impl Default for Compiler {
    fn default() -> Self {
        Compiler {
            degrees: true,
            eulerseq: *b"xyz",
            autolimits: true,
            inertiafromgeom: InertiaFromGeom::Auto,
            inertiagrouprange: [0, 5],
            meshdir: None,
            settotalmass: None,
            boundmass: 0.0,
            boundinertia: 0.0,
            balanceinertia: false,
            strippath: false,
            lengthrange: LengthRangeOptions::default(),
        }
    }
}

const ATTRIBUTES: &[&str] = &[
    "angle",
    "eulerseq",
    "autolimits",
    "inertiafromgeom",
    "inertiagrouprange",
    "meshdir",
    "texturedir",
    "assetdir",
    "settotalmass",
    "boundmass",
    "boundinertia",
    "balanceinertia",
    "strippath",
    "coordinate",
    "discardvisual",
    "fusestatic",
    "usethread",
    "exactmeshinertia",
    "convexhull",
    "fitaabb",
    "saveinertial",
    "alignfree",
];

impl Compiler {
    /// An angle in the file's unit, in radians.
    pub fn angle(&self, a: f64) -> f64 {
        if self.degrees { a.to_radians() } else { a }
    }

    /// Applies one `<lengthrange>` element (MuJoCo's `mjLROpt`).
    fn apply_lengthrange(&mut self, e: &Element) -> Result<()> {
        e.check_attributes(&[
            "mode",
            "useexisting",
            "uselimit",
            "accel",
            "maxforce",
            "timeconst",
            "timestep",
            "inttotal",
            "interval",
            "tolrange",
        ])?;
        if let Some(c) = e.children.first() {
            return Err(e.unknown_child(c).into());
        }
        let a = Attrs::own(e);
        let o = &mut self.lengthrange;
        let modes = [
            ("none", LengthRangeMode::None),
            ("muscle", LengthRangeMode::Muscle),
            ("muscleuser", LengthRangeMode::MuscleUser),
            ("all", LengthRangeMode::All),
        ];
        if let Some(m) = a.keyword("mode", &modes)? {
            o.mode = m;
        }
        o.useexisting = a.bool("useexisting")?.unwrap_or(o.useexisting);
        o.uselimit = a.bool("uselimit")?.unwrap_or(o.uselimit);
        for (name, value) in [
            ("accel", &mut o.accel),
            ("maxforce", &mut o.maxforce),
            ("timeconst", &mut o.timeconst),
            ("timestep", &mut o.timestep),
            ("inttotal", &mut o.inttotal),
            ("interval", &mut o.interval),
            ("tolrange", &mut o.tolrange),
        ] {
            *value = a.f64_or(name, *value)?;
        }
        if !(o.inttotal > 0.0 && o.interval > 0.0 && o.interval <= o.inttotal) {
            return Err(a.invalid_named("interval", "need 0 < interval <= inttotal").into());
        }
        if !(o.accel > 0.0) {
            return Err(a.invalid_named("accel", "must be > 0").into());
        }
        Ok(())
    }

    /// Applies one `<compiler>` element.
    pub fn apply(&mut self, e: &Element) -> Result<()> {
        e.check_attributes(ATTRIBUTES)?;
        for child in &e.children {
            if child.name != "lengthrange" {
                return Err(e.unknown_child(child).into());
            }
            self.apply_lengthrange(child)?;
        }
        let a = Attrs::own(e);
        if let Some(d) = a.keyword("angle", &[("degree", true), ("radian", false)])? {
            self.degrees = d;
        }
        if let Some(s) = a.get("eulerseq") {
            let b = s.value.as_bytes();
            if b.len() != 3 || !b.iter().all(|c| b"xyzXYZ".contains(c)) {
                return Err(a.invalid(s, "expected three of the letters x, y, z, X, Y, Z").into());
            }
            self.eulerseq = [b[0], b[1], b[2]];
        }
        if let Some(v) = a.bool("autolimits")? {
            self.autolimits = v;
        }
        if let Some(v) = a.keyword(
            "inertiafromgeom",
            &[
                ("false", InertiaFromGeom::False),
                ("true", InertiaFromGeom::True),
                ("auto", InertiaFromGeom::Auto),
            ],
        )? {
            self.inertiafromgeom = v;
        }
        if let Some([lo, hi]) = a.array::<2>("inertiagrouprange")? {
            if lo.fract() != 0.0 || hi.fract() != 0.0 || lo > hi {
                return Err(a.invalid_named("inertiagrouprange", "expected two integers lo <= hi").into());
            }
            self.inertiagrouprange = [lo as i64, hi as i64];
        }
        if let Some(d) = a.str("meshdir") {
            self.meshdir = Some(PathBuf::from(d));
        } else if let Some(d) = a.str("assetdir") {
            self.meshdir = Some(PathBuf::from(d));
        }
        if let Some(m) = a.f64("settotalmass")? {
            self.settotalmass = (m > 0.0).then_some(m);
        }
        if let Some(m) = a.f64("boundmass")? {
            self.boundmass = m.max(0.0);
        }
        if let Some(m) = a.f64("boundinertia")? {
            self.boundinertia = m.max(0.0);
        }
        if let Some(v) = a.bool("balanceinertia")? {
            self.balanceinertia = v;
        }
        if let Some(v) = a.bool("strippath")? {
            self.strippath = v;
        }
        if a.keyword("coordinate", &[("local", true), ("global", false)])? == Some(false) {
            return Err(a
                .unsupported(
                    Some("coordinate"),
                    "global coordinates (removed from MuJoCo in 2.3.3); use local",
                )
                .into());
        }
        if a.bool("alignfree")? == Some(true) {
            return Err(a
                .unsupported(Some("alignfree"), "moving free bodies' frames onto their inertial frames")
                .into());
        }
        for flag in [
            "discardvisual",
            "fusestatic",
            "usethread",
            "exactmeshinertia",
            "convexhull",
            "fitaabb",
            "saveinertial",
        ] {
            a.bool(flag)?;
        }
        Ok(())
    }

    /// The path of an asset file named `file` in the model whose folder is `model_dir`.
    pub fn asset_path(&self, model_dir: &Path, file: &str) -> PathBuf {
        let file = if self.strippath {
            Path::new(file).file_name().map_or(PathBuf::from(file), PathBuf::from)
        } else {
            PathBuf::from(file)
        };
        if file.is_absolute() {
            return file;
        }
        match &self.meshdir {
            Some(dir) if dir.is_absolute() => dir.join(file),
            Some(dir) => model_dir.join(dir).join(file),
            None => model_dir.join(file),
        }
    }
}
