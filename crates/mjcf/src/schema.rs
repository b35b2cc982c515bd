//! The attributes each supported element accepts. An attribute outside these lists is an
//! [`XmlError::UnknownAttribute`](crate::XmlError::UnknownAttribute); an accepted one that signorini does not
//! support with the given value is reported by the element's reader.

/// `<geom>`.
pub const GEOM: &[&str] = &[
    "name",
    "class",
    "type",
    "contype",
    "conaffinity",
    "condim",
    "group",
    "priority",
    "size",
    "material",
    "rgba",
    "friction",
    "mass",
    "density",
    "shellinertia",
    "solmix",
    "solref",
    "solimp",
    "margin",
    "gap",
    "adhesion",
    "fromto",
    "pos",
    "quat",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "hfield",
    "mesh",
    "fitscale",
    "fluidshape",
    "fluidcoef",
    "surfacevel",
    "user",
];

/// `<fixed>` in `<tendon>` (and a `<tendon>` default).
pub const TENDON: &[&str] = &[
    "name",
    "class",
    "group",
    "limited",
    "range",
    "solreflimit",
    "solimplimit",
    "solreffriction",
    "solimpfriction",
    "margin",
    "frictionloss",
    "width",
    "material",
    "rgba",
    "springlength",
    "stiffness",
    "damping",
    "armature",
    "actuatorfrclimited",
    "actuatorfrcrange",
    "user",
];

/// `<joint>`.
pub const JOINT: &[&str] = &[
    "name",
    "class",
    "type",
    "group",
    "pos",
    "axis",
    "springdamper",
    "limited",
    "actuatorfrclimited",
    "solreflimit",
    "solimplimit",
    "solreffriction",
    "solimpfriction",
    "stiffness",
    "range",
    "actuatorfrcrange",
    "actuatorgravcomp",
    "margin",
    "ref",
    "springref",
    "armature",
    "damping",
    "frictionloss",
    "user",
];

/// `<freejoint>`.
pub const FREEJOINT: &[&str] = &["name", "group", "align"];

/// `<site>`.
pub const SITE: &[&str] = &[
    "name",
    "class",
    "type",
    "group",
    "pos",
    "quat",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "size",
    "fromto",
    "material",
    "rgba",
    "user",
];

/// `<body>` (and `<worldbody>`, which takes none of the pose attributes).
pub const BODY: &[&str] = &[
    "name",
    "childclass",
    "pos",
    "quat",
    "axisangle",
    "xyaxes",
    "zaxis",
    "euler",
    "mocap",
    "gravcomp",
    "sleep",
    "user",
];

/// `<inertial>`.
pub const INERTIAL: &[&str] =
    &["pos", "quat", "axisangle", "xyaxes", "zaxis", "euler", "mass", "diaginertia", "fullinertia"];

/// `<mesh>` in `<asset>`.
pub const MESH: &[&str] = &[
    "name",
    "class",
    "builtin",
    "params",
    "content_type",
    "file",
    "vertex",
    "normal",
    "texcoord",
    "face",
    "refpos",
    "refquat",
    "scale",
    "smoothnormal",
    "maxhullvert",
    "inertia",
];

/// `<pair>` in `<contact>`.
pub const PAIR: &[&str] = &[
    "name",
    "class",
    "geom1",
    "geom2",
    "condim",
    "friction",
    "solref",
    "solreffriction",
    "solimp",
    "gap",
    "margin",
    "adhesion",
];

/// `<exclude>` in `<contact>`.
pub const EXCLUDE: &[&str] = &["name", "body1", "body2"];

/// Attributes common to every `<equality>` element.
pub const EQUALITY_COMMON: &[&str] = &["name", "class", "active", "solref", "solimp"];

/// Attributes common to every actuator element.
pub const ACTUATOR_COMMON: &[&str] = &[
    "name",
    "class",
    "group",
    "ctrllimited",
    "forcelimited",
    "actlimited",
    "ctrlrange",
    "forcerange",
    "actrange",
    "lengthrange",
    "gear",
    "cranklength",
    "joint",
    "jointinparent",
    "tendon",
    "cranksite",
    "slidersite",
    "site",
    "refsite",
    "body",
    "user",
    "nsample",
    "interp",
    "delay",
];

/// Actuator attributes that name the transmission target (not allowed in a default class).
pub const ACTUATOR_TARGETS: &[&str] =
    &["joint", "jointinparent", "tendon", "cranksite", "slidersite", "site", "refsite", "body"];

/// The attributes specific to each supported actuator element.
pub fn actuator_specific(kind: &str) -> &'static [&'static str] {
    match kind {
        "position" => &["kp", "kv", "dampratio", "timeconst", "inheritrange"],
        "velocity" => &["kv"],
        "general" => {
            &["dyntype", "gaintype", "biastype", "dynprm", "gainprm", "biasprm", "actdim", "actearly"]
        }
        "intvelocity" => &["kp", "kv", "dampratio", "inheritrange"],
        "damper" => &["kv"],
        "cylinder" => &["timeconst", "area", "diameter", "bias"],
        "adhesion" => &["gain"],
        "muscle" => {
            &["timeconst", "tausmooth", "range", "force", "scale", "lmin", "lmax", "vmax", "fpmax", "fvmax"]
        }
        _ => &[],
    }
}

/// The supported actuator elements.
pub const ACTUATORS: &[&str] =
    &["motor", "position", "velocity", "intvelocity", "damper", "cylinder", "muscle", "adhesion", "general"];

/// MuJoCo actuator elements that signorini does not support.
pub const UNSUPPORTED_ACTUATORS: &[&str] = &["dcmotor", "pid", "orientation", "plugin"];
