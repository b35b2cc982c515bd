//! Body inertia: `<inertial>`, or compiled from the geoms exactly as MuJoCo's `mjCBody::InertiaFromGeom` does.
//!
//! - One contributing geom: the inertial frame *is* the geom frame (`body_ipos`/`body_iquat` = geom `pos`/`quat`)
//!   and the moments are the primitive's diagonal inertia, unsorted. A mesh geom's frame is first moved to the mesh's
//!   centre of mass and principal axes, as MuJoCo re-centres meshes.
//! - Several: masses and centres of mass add up, inertias add with the parallel-axis theorem about the combined
//!   centre of mass, and the sum is diagonalised as MuJoCo does (`crate::eig3`: moments in decreasing order, and
//!   MuJoCo's choice among the equivalent frames, which its runtime compares with the geoms' frames).
//!
//! A body with neither `<inertial>` nor contributing geoms is massless, with MuJoCo's inertial frame: the body's own
//! frame in its parent (`body_ipos = pos`, `body_iquat = quat`).
//!
//! Geoms contribute when `inertiafromgeom` is `true`, or `auto` (the default) and the body has no `<inertial>`, and
//! their `group` lies in `inertiagrouprange`. `boundmass`, `boundinertia`, `balanceinertia` and `settotalmass` are
//! applied afterwards, in that order.

use glam::{DQuat, DVec3};
use signorini_geometry::MassProperties;
use signorini_model::spec::InertialSpec;

use crate::compiler::{Compiler, InertiaFromGeom};
use crate::error::{Location, MjcfError, Result};
use crate::orientation;
use crate::schema;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// A body without mass.
pub const ZERO_INERTIAL: InertialSpec =
    InertialSpec { mass: 0.0, inertia: DVec3::ZERO, pos: DVec3::ZERO, quat: DQuat::IDENTITY };

/// One geom's contribution as read.
#[derive(Debug, Clone)]
pub struct GeomMass {
    /// Geom position in the body frame.
    pub pos: DVec3,
    /// Geom orientation in the body frame.
    pub quat: DQuat,
    /// Mass properties in the geom frame.
    pub props: MassProperties,
    /// Geom `group`.
    pub group: i64,
    /// A primitive (diagonal inertia about the geom origin) rather than a mesh.
    pub primitive: bool,
    /// A mesh's unit-density mass properties (mass = volume), from which MuJoCo derives the geom's moments.
    pub unit: Option<MassProperties>,
}

/// What a body has for inertia compilation.
#[derive(Debug, Clone, Default)]
pub struct InertiaSource {
    /// Its `<inertial>`, if any.
    pub explicit: Option<InertialSpec>,
    /// Its geoms, in order.
    pub geoms: Vec<GeomMass>,
    /// The body frame in its parent `(pos, quat)`: MuJoCo's inertial frame of a body that has neither
    /// `<inertial>` nor contributing geoms (it is massless, so the frame only shows in `body_ipos`/`body_iquat`).
    pub frame: (DVec3, DQuat),
    /// Where the body is declared (`None` for the world).
    pub at: Option<Location>,
}

/// Reads `<inertial>`.
pub fn read_inertial(e: &Element, compiler: &Compiler) -> Result<InertialSpec> {
    e.check_attributes(schema::INERTIAL)?;
    if let Some(c) = e.children.first() {
        return Err(e.unknown_child(c).into());
    }
    let a = Attrs::own(e);
    let pos = a.array::<3>("pos")?.ok_or_else(|| a.missing("pos", ""))?;
    let mass = a.f64("mass")?.ok_or_else(|| a.missing("mass", ""))?;
    if mass < 0.0 {
        return Err(a.invalid_named("mass", "must be >= 0").into());
    }
    let quat = orientation::read(&a, compiler)?;
    let (inertia, quat) = match (a.array::<3>("diaginertia")?, a.array::<6>("fullinertia")?) {
        (Some(d), None) => {
            if d.iter().any(|v| *v < 0.0) {
                return Err(a.invalid_named("diaginertia", "moments must be >= 0").into());
            }
            (DVec3::from_array(d), quat)
        }
        (None, Some(f)) => {
            if orientation::ORIENTATION_ATTRIBUTES.iter().any(|n| a.has(n)) {
                return Err(a
                    .invalid_named(
                        "fullinertia",
                        "fullinertia sets the inertial frame; it cannot be combined with an orientation",
                    )
                    .into());
            }
            let (moments, frame) = crate::eig3::principal(f);
            if moments.min_element() < 0.0 {
                return Err(a
                    .invalid_named("fullinertia", "the inertia matrix is not positive semi-definite")
                    .into());
            }
            (moments, frame)
        }
        (Some(_), Some(_)) => {
            return Err(a.invalid_named("fullinertia", "give diaginertia or fullinertia, not both").into());
        }
        (None, None) => return Err(a.missing("diaginertia", "or fullinertia").into()),
    };
    Ok(InertialSpec { mass, inertia, pos: DVec3::from_array(pos), quat })
}

/// MuJoCo's `mjEPS`: a multi-geom body lighter than this has no centre of mass.
const EPS: f64 = 1e-14;

/// Compiles every body's inertial properties (index 0, the world, stays massless) and each geom's compiled mass
/// (0 for geoms that do not contribute).
///
/// Errors, as MuJoCo: several contributing geoms of total mass below `1e-14`; principal moments that violate the
/// triangle inequality `A + B ≥ C` without `balanceinertia`.
pub fn compile(sources: &[InertiaSource], compiler: &Compiler) -> Result<(Vec<InertialSpec>, Vec<Vec<f64>>)> {
    let mut inertials = Vec::with_capacity(sources.len());
    let mut geom_masses = Vec::with_capacity(sources.len());
    for (b, src) in sources.iter().enumerate() {
        let mut masses = vec![0.0; src.geoms.len()];
        if b == 0 {
            inertials.push(ZERO_INERTIAL);
            geom_masses.push(masses);
            continue;
        }
        let from_geoms = match compiler.inertiafromgeom {
            InertiaFromGeom::True => true,
            InertiaFromGeom::False => false,
            InertiaFromGeom::Auto => src.explicit.is_none(),
        };
        let [lo, hi] = compiler.inertiagrouprange;
        let selected: Vec<usize> = if from_geoms {
            // MuJoCo selects the geoms of the group range whose mass exceeds `mjEPS`: a massless geom (an eye, a
            // marker) leaves a single massive geom to give the body its frame as it is.
            (0..src.geoms.len())
                .filter(|&i| (lo..=hi).contains(&src.geoms[i].group) && src.geoms[i].props.mass > EPS)
                .collect()
        } else {
            Vec::new()
        };
        for &i in &selected {
            masses[i] = src.geoms[i].props.mass;
        }
        let invalid = |reason: String| MjcfError::Invalid {
            at: src.at.clone().unwrap_or_default(),
            element: "body".into(),
            reason,
        };
        let mut inertial = match selected.as_slice() {
            [] => {
                src.explicit.unwrap_or(InertialSpec { pos: src.frame.0, quat: src.frame.1, ..ZERO_INERTIAL })
            }
            [one] => single(&src.geoms[*one]),
            many => combined(many.iter().map(|&i| &src.geoms[i])).ok_or_else(|| {
                invalid("the mass of its geoms is too small to define a centre of mass".into())
            })?,
        };
        bound(&mut inertial, compiler);
        let d = inertial.inertia;
        let slack = 1e-12 * (d.x + d.y + d.z);
        if d.x + d.y + slack < d.z || d.x + d.z + slack < d.y || d.y + d.z + slack < d.x {
            return Err(invalid(format!(
                "principal inertia {d} violates A + B >= C (set <compiler balanceinertia=\"true\"/> to fix)"
            )));
        }
        inertials.push(inertial);
        geom_masses.push(masses);
    }
    if let Some(total) = compiler.settotalmass {
        let sum: f64 = inertials.iter().map(|i| i.mass).sum();
        if sum > 0.0 {
            let scale = total / sum;
            for i in inertials.iter_mut().skip(1) {
                i.mass *= scale;
                i.inertia *= scale;
            }
            for m in geom_masses.iter_mut().flatten() {
                *m *= scale;
            }
        }
    }
    Ok((inertials, geom_masses))
}

/// A geom as MuJoCo's compiler holds it: a primitive as read; a mesh with its frame moved to the mesh's centre of
/// mass and principal axes as the mesh compiler computes them (`eig3::mesh_principal`, whose Jacobi iteration stops
/// early: MuJoCo's `mesh_quat`), its inertia the diagonal moments there (the residual off-diagonal entries dropped,
/// as MuJoCo keeps only the moments), the frames composed as `mjuu_frameaccum` does (no renormalisation).
fn as_compiled(g: &GeomMass) -> GeomMass {
    if g.primitive {
        return g.clone();
    }
    let (moments, frame) = match g.unit {
        // MuJoCo's mesh compiler diagonalises the unit-density inertia and keeps the sizes of the equivalent
        // box, `b_k = ½ √(6 (e_i + e_j − e_k) / V)`; the geom's moments are `m (b_i² + b_j²) / 3` of that box
        // (`mjCGeom::SetInertia`).
        Some(unit) => {
            let i = unit.inertia;
            let (e, frame) = crate::eig3::mesh_principal([
                i.x_axis.x, i.y_axis.y, i.z_axis.z, i.y_axis.x, i.z_axis.x, i.z_axis.y,
            ]);
            let volume = unit.mass;
            let b = [
                0.5 * (6.0 * (e.y + e.z - e.x) / volume).sqrt(),
                0.5 * (6.0 * (e.x + e.z - e.y) / volume).sqrt(),
                0.5 * (6.0 * (e.x + e.y - e.z) / volume).sqrt(),
            ];
            let m = g.props.mass;
            let moments = DVec3::new(
                m * (b[1] * b[1] + b[2] * b[2]) / 3.0,
                m * (b[0] * b[0] + b[2] * b[2]) / 3.0,
                m * (b[0] * b[0] + b[1] * b[1]) / 3.0,
            );
            (moments, frame)
        }
        None => {
            let i = g.props.inertia;
            crate::eig3::mesh_principal([
                i.x_axis.x, i.y_axis.y, i.z_axis.z, i.y_axis.x, i.z_axis.x, i.z_axis.y,
            ])
        }
    };
    GeomMass {
        // `mjuu_frameaccum`: the centre turned by `mjuu_quat2mat` and `mjuu_mulvecmat`, the frames composed by
        // `mjuu_mulquat`.
        pos: g.pos + orientation::rotate(g.quat, g.props.com),
        quat: orientation::compose(g.quat, frame),
        props: MassProperties {
            mass: g.props.mass,
            com: DVec3::ZERO,
            inertia: glam::DMat3::from_diagonal(moments),
        },
        group: g.group,
        primitive: true,
        unit: None,
    }
}

/// One geom: its frame, its own moments ([`as_compiled`]).
fn single(g: &GeomMass) -> InertialSpec {
    let g = as_compiled(g);
    let i = g.props.inertia;
    InertialSpec {
        mass: g.props.mass,
        inertia: DVec3::new(i.x_axis.x, i.y_axis.y, i.z_axis.z),
        pos: g.pos,
        quat: g.quat,
    }
}

/// Several geoms, in `mjCBody::InertiaFromGeom`'s arithmetic: the masses and mass-weighted positions summed in
/// order, the centre of mass their quotient, each geom's inertia turned into the body frame (`mjuu_globalinertia`)
/// plus its parallel-axis term about that centre (`mjuu_offcenter`) added to the running sum, then MuJoCo's principal
/// axes (`None` when massless).
fn combined<'a>(geoms: impl Iterator<Item = &'a GeomMass>) -> Option<InertialSpec> {
    let geoms: Vec<GeomMass> = geoms.map(as_compiled).collect();
    let (mut mass, mut com) = (0.0, DVec3::ZERO);
    for g in &geoms {
        mass += g.props.mass;
        com += DVec3::new(g.props.mass * g.pos.x, g.props.mass * g.pos.y, g.props.mass * g.pos.z);
    }
    if !(mass >= EPS) {
        return None;
    }
    let ipos = DVec3::new(com.x / mass, com.y / mass, com.z / mass);
    let mut total = [0.0; 6];
    for g in &geoms {
        let i = g.props.inertia;
        let local = [i.x_axis.x, i.y_axis.y, i.z_axis.z];
        let turned = global_inertia(&local, &[g.quat.w, g.quat.x, g.quat.y, g.quat.z]);
        let offset = off_center(g.props.mass, g.pos - ipos);
        for j in 0..6 {
            total[j] = total[j] + turned[j] + offset[j];
        }
    }
    let (moments, frame) = crate::eig3::principal(total);
    Some(InertialSpec { mass, inertia: moments, pos: ipos, quat: frame })
}

/// `mjuu_globalinertia`: the diagonal inertia `local` of a frame turned by `quat` (`(w, x, y, z)`), as
/// `[xx, yy, zz, xy, xz, yz]`.
fn global_inertia(local: &[f64; 3], quat: &[f64; 4]) -> [f64; 6] {
    let m = crate::eig3::quat_to_mat(quat);
    let t = [
        m[0] * local[0],
        m[3] * local[0],
        m[6] * local[0],
        m[1] * local[1],
        m[4] * local[1],
        m[7] * local[1],
        m[2] * local[2],
        m[5] * local[2],
        m[8] * local[2],
    ];
    [
        m[0] * t[0] + m[1] * t[3] + m[2] * t[6],
        m[3] * t[1] + m[4] * t[4] + m[5] * t[7],
        m[6] * t[2] + m[7] * t[5] + m[8] * t[8],
        m[0] * t[1] + m[1] * t[4] + m[2] * t[7],
        m[0] * t[2] + m[1] * t[5] + m[2] * t[8],
        m[3] * t[2] + m[4] * t[5] + m[5] * t[8],
    ]
}

/// `mjuu_offcenter`: the parallel-axis term `mass (|v|² I − v vᵀ)` as `[xx, yy, zz, xy, xz, yz]`.
fn off_center(mass: f64, v: DVec3) -> [f64; 6] {
    [
        mass * (v.y * v.y + v.z * v.z),
        mass * (v.x * v.x + v.z * v.z),
        mass * (v.x * v.x + v.y * v.y),
        -mass * v.x * v.y,
        -mass * v.x * v.z,
        -mass * v.y * v.z,
    ]
}

/// `boundmass`, `boundinertia`, `balanceinertia`.
fn bound(i: &mut InertialSpec, compiler: &Compiler) {
    i.mass = i.mass.max(compiler.boundmass);
    i.inertia = i.inertia.max(DVec3::splat(compiler.boundinertia));
    let d = i.inertia;
    if compiler.balanceinertia && (d.x + d.y < d.z || d.x + d.z < d.y || d.y + d.z < d.x) {
        i.inertia = DVec3::splat((d.x + d.y + d.z) / 3.0);
    }
}
