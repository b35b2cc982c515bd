//! `<asset>`: meshes (inline `vertex`/`face` or a `file` in STL/OBJ) become convex hulls, as MuJoCo convexifies
//! meshes for collision (their surface is kept for the non-convex switch of [`crate::nonconvex`]); height fields are read by [`crate::hfield`]. Textures, materials and skins are visual only
//! and are accepted without being read.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::{ConvexMesh, GeometryError, MassProperties, Shape, TriangleMesh};

use crate::compiler::Compiler;
use crate::defaults::Defaults;
use crate::error::{MjcfError, Result, XmlError};
use crate::hfield::{HFieldAsset, read_hfield};
use crate::mesh_inertia::{legacy_unit_mass, shell_unit_mass};
use crate::schema;
use signorini_mesh_io::{self as mesh_io, MeshData, MeshReadError};
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

/// How a mesh's mass properties are computed (MJCF `<mesh inertia>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MeshInertia {
    /// The convex hull's.
    Convex,
    /// MuJoCo's default: per-triangle tetrahedra with absolute volumes ([`crate::mesh_inertia`]).
    Legacy,
    /// The closed surface's signed volume.
    Exact,
    /// The mass on the surface ([`crate::mesh_inertia::shell_unit_mass`]): `density` is per unit area.
    Shell,
}

/// A compiled mesh asset.
#[derive(Debug, Clone)]
pub struct MeshAsset {
    /// Name (from `name`, else the file name without extension).
    pub name: String,
    /// What a mesh geom of this asset collides as.
    pub shape: MeshShape,
    /// Mass properties at unit density in the mesh frame: MuJoCo's legacy sum over the triangles by default, the
    /// hull's for `inertia="convex"` or a mesh without faces, the closed mesh's for `inertia="exact"`.
    pub unit: MassProperties,
    /// The vertices (mesh frame, scaled) and triangles as written, for a mesh used as a non-convex solid
    /// ([`crate::nonconvex`]); no triangles for a point cloud.
    pub surface: Arc<MeshData>,
    /// Where the mesh is declared.
    pub at: signorini_xml::Location,
}

/// The shape a mesh asset gives its geoms.
#[derive(Debug, Clone)]
pub enum MeshShape {
    /// The convex hull, used for collision.
    Hull(Arc<ConvexMesh>),
    /// A flat mesh (all its vertices in one plane) has no hull: `why`, and its triangles as the shape of geoms that
    /// never collide. MuJoCo asks for a mesh's hull only when a geom using it has `contype` or `conaffinity` or is in
    /// a `<pair>` (or the mesh's inertia is `convex`), so a flat visual mesh (robosuite's Sawyer head) loads; a geom
    /// that collides with it is an error.
    Flat {
        /// Why the hull could not be built.
        why: GeometryError,
        /// The triangles as written (mesh frame, scaled).
        mesh: Arc<TriangleMesh>,
    },
}

impl MeshAsset {
    /// The convex hull, unless the mesh is flat.
    pub fn hull(&self) -> Option<&Arc<ConvexMesh>> {
        match &self.shape {
            MeshShape::Hull(h) => Some(h),
            MeshShape::Flat { .. } => None,
        }
    }
}

/// The mesh assets by name.
#[derive(Debug, Clone, Default)]
pub struct Assets {
    meshes: Vec<MeshAsset>,
    by_name: HashMap<String, usize>,
    hfields: HashMap<String, HFieldAsset>,
    /// The alpha of each material's `rgba` (ray casts skip a geom whose material is transparent).
    material_alpha: HashMap<String, f64>,
}

/// Asset elements that are accepted but only used for rendering.
const VISUAL: &[&str] = &["texture", "material", "skin"];

impl Assets {
    /// Reads one `<asset>` section.
    pub fn add_section(
        &mut self,
        e: &Element,
        defaults: &Defaults,
        compiler: &Compiler,
        model_dir: &Path,
    ) -> Result<()> {
        e.check_attributes(&[])?;
        for child in &e.children {
            match child.name.as_str() {
                "mesh" => {
                    let mesh = read_mesh(child, defaults, compiler, model_dir)?;
                    if self.by_name.contains_key(&mesh.name) {
                        return Err(MjcfError::DuplicateName {
                            at: child.at.clone(),
                            element: "mesh".into(),
                            kind: "mesh",
                            name: mesh.name,
                        });
                    }
                    self.by_name.insert(mesh.name.clone(), self.meshes.len());
                    self.meshes.push(mesh);
                }
                "hfield" => {
                    let hfield = read_hfield(child, compiler, model_dir)?;
                    if self.hfields.contains_key(&hfield.name) {
                        return Err(MjcfError::DuplicateName {
                            at: child.at.clone(),
                            element: "hfield".into(),
                            kind: "hfield",
                            name: hfield.name,
                        });
                    }
                    self.hfields.insert(hfield.name.clone(), hfield);
                }
                "material" => {
                    if let Some(name) = child.attr("name") {
                        let a = Attrs::own(child);
                        let alpha = a.array::<4>("rgba")?.map_or(1.0, |c| c[3]);
                        self.material_alpha.insert(name.to_string(), alpha);
                    }
                }
                n if VISUAL.contains(&n) => {}
                _ => return Err(e.unknown_child(child).into()),
            }
        }
        Ok(())
    }

    /// The meshes, in declaration order.
    pub fn meshes(&self) -> &[MeshAsset] {
        &self.meshes
    }

    /// The mesh named `name`.
    pub fn mesh(&self, name: &str) -> Option<&MeshAsset> {
        self.by_name.get(name).map(|&i| &self.meshes[i])
    }

    /// The mesh asset whose hull a mesh geom holds.
    pub fn mesh_of_hull(&self, hull: &Arc<ConvexMesh>) -> Option<&MeshAsset> {
        self.meshes.iter().find(|m| m.hull().is_some_and(|h| Arc::ptr_eq(h, hull)))
    }

    /// When `shape` is a flat mesh's triangles ([`MeshShape::Flat`]): why a geom that collides cannot use it.
    pub fn flat_mesh_reason(&self, shape: &Shape) -> Option<String> {
        let Shape::TriangleMesh(mesh) = shape else { return None };
        self.meshes.iter().find_map(|m| match &m.shape {
            MeshShape::Flat { why, mesh: f } if Arc::ptr_eq(f, mesh) => Some(format!(
                "mesh `{}` has no convex hull ({why}), and a geom that collides needs one (MuJoCo refuses it too); \
                 keep it visual (contype=\"0\" conaffinity=\"0\", in no <pair>) or use a thin box",
                m.name
            )),
            _ => None,
        })
    }

    /// The height field named `name`.
    pub fn hfield(&self, name: &str) -> Option<&HFieldAsset> {
        self.hfields.get(name)
    }

    /// The alpha of material `name`'s colour, if the material exists.
    pub fn material_alpha(&self, name: &str) -> Option<f64> {
        self.material_alpha.get(name).copied()
    }
}

fn read_mesh(e: &Element, defaults: &Defaults, compiler: &Compiler, model_dir: &Path) -> Result<MeshAsset> {
    e.check_attributes(schema::MESH)?;
    if let Some(c) = e.children.first() {
        return Err(e.unknown_child(c).into());
    }
    let class = defaults.resolve(e, 0)?;
    let a = Attrs::new(e, defaults.layers(class, "mesh"));
    let scale = DVec3::from_array(a.array_or::<3>("scale", [1.0; 3])?);
    if a.array_or::<3>("refpos", [0.0; 3])? != [0.0; 3]
        || a.array_or::<4>("refquat", [1.0, 0.0, 0.0, 0.0])? != [1.0, 0.0, 0.0, 0.0]
    {
        return Err(a
            .unsupported(Some("refpos"), "refpos/refquat (removed from MuJoCo); move the geom instead")
            .into());
    }
    if let Some(m) = a.int("maxhullvert")?
        && m != -1
    {
        return Err(a.unsupported(Some("maxhullvert"), "limiting the number of hull vertices").into());
    }
    let inertia = a
        .keyword(
            "inertia",
            &[
                ("convex", MeshInertia::Convex),
                ("legacy", MeshInertia::Legacy),
                ("exact", MeshInertia::Exact),
                ("shell", MeshInertia::Shell),
            ],
        )?
        // MuJoCo's default (`mjs_defaultMesh`).
        .unwrap_or(MeshInertia::Legacy);
    a.bool("smoothnormal")?;
    let builtin = a.has("builtin");
    if builtin && (a.has("file") || a.has("vertex") || a.has("face")) {
        return Err(a.invalid_named("builtin", "a builtin mesh has no `file`, `vertex` or `face`").into());
    }
    let (name, data) = match (a.get("file"), a.get("vertex")) {
        _ if builtin => {
            let name =
                a.str("name").ok_or_else(|| a.missing("name", "a builtin mesh needs a name"))?.to_string();
            (name, crate::builtin_mesh::generate(&a)?)
        }
        (Some(f), None) => {
            if a.has("face") {
                return Err(a
                    .invalid_named("face", "`face` goes with inline `vertex`, not with `file`")
                    .into());
            }
            let path = compiler.asset_path(model_dir, &f.value);
            let data = mesh_io::read_mesh(&path).map_err(|err| match err {
                MeshReadError::Io(source) => {
                    XmlError::Io { file: path.clone(), at: Some(f.at.clone()), source }.into()
                }
                MeshReadError::Format(reason) => MjcfError::MeshFile {
                    at: f.at.clone(),
                    element: "mesh".into(),
                    file: path.clone(),
                    reason,
                },
            })?;
            let stem =
                Path::new(&f.value).file_stem().and_then(|s| s.to_str()).unwrap_or(&f.value).to_string();
            (a.str("name").map_or(stem, str::to_string), data)
        }
        (None, Some(_)) => {
            let name = a
                .str("name")
                .ok_or_else(|| a.missing("name", "a mesh without `file` needs a name"))?
                .to_string();
            (name, inline_mesh(&a)?)
        }
        (Some(_), Some(_)) => {
            return Err(a.invalid_named("vertex", "give either `file` or `vertex`, not both").into());
        }
        (None, None) => return Err(a.missing("file", "a mesh needs `file` or `vertex`").into()),
    };
    // MuJoCo's compiler reads vertices in single precision (`mjCMesh::vert_`) and scales them in double.
    let vertices: Vec<DVec3> = data.vertices.iter().map(|v| v.as_vec3().as_dvec3() * scale).collect();
    let geometry =
        |source| MjcfError::Geometry { at: e.at.clone(), element: "mesh".into(), attribute: None, source };
    // A hull for mass properties only (the collision hull below is built from MuJoCo's stored vertices).
    let hull_of = |points: &[DVec3]| ConvexMesh::from_points(points).map_err(geometry);
    // A mesh without faces (a point cloud) is its hull in every mode, as MuJoCo gives it the hull's faces.
    let unit = match inertia {
        MeshInertia::Exact if !data.triangles.is_empty() => {
            let mesh = TriangleMesh::new(vertices.clone(), data.triangles.clone()).map_err(geometry)?;
            MassProperties::from_density(&Shape::from(mesh), 1.0).map_err(geometry)?
        }
        MeshInertia::Legacy if !data.triangles.is_empty() => legacy_unit_mass(&vertices, &data.triangles)
            .ok_or_else(|| {
                a.invalid_named("inertia", "the mesh volume is too small (MuJoCo rejects it too)")
            })?,
        MeshInertia::Shell => {
            // A point cloud's surface is its hull's.
            let hull = if data.triangles.is_empty() { Some(hull_of(&vertices)?) } else { None };
            let (points, triangles) = match &hull {
                Some(h) => (h.vertices(), h.triangles()),
                None => (&vertices[..], &data.triangles[..]),
            };
            shell_unit_mass(points, triangles).ok_or_else(|| {
                a.invalid_named("inertia", "the mesh surface area is too small (MuJoCo rejects it too)")
            })?
        }
        _ => MassProperties::from_density(&Shape::ConvexMesh(Arc::new(hull_of(&vertices)?)), 1.0)
            .map_err(geometry)?,
    };
    // Collision reads the vertices MuJoCo stores; the surface keeps them as written.
    let frame = mesh_frame(&unit);
    let (stored, principal) = stored_as_mujoco_does(&vertices, &unit, frame);
    let shape = match ConvexMesh::from_points(&stored) {
        Ok(hull) => {
            // The polygons' normals come from the unrounded vertices, as MuJoCo's do. The hull's vertices are
            // input points in input order, so one walk over the input finds each.
            let mut input = stored.iter().zip(&principal);
            let exact: Option<Vec<DVec3>> =
                hull.vertices().iter().map(|v| input.find(|(s, _)| *s == v).map(|(_, &p)| p)).collect();
            let file_from_hull = DMat3::from_diagonal(1.0 / scale);
            let hull = match exact {
                Some(exact) => hull
                    .with_mujoco_polygons_normals_from(file_from_hull, &exact, DMat3::from_quat(frame))
                    .map_err(geometry)?,
                None => hull.with_mujoco_polygons(file_from_hull),
            };
            MeshShape::Hull(Arc::new(hull.with_inertial_frame(unit.com, frame)))
        }
        Err(why @ GeometryError::DegenerateHull { .. }) if !data.triangles.is_empty() => {
            let mesh = TriangleMesh::new(vertices.clone(), data.triangles.clone()).map_err(geometry)?;
            MeshShape::Flat { why, mesh: Arc::new(mesh) }
        }
        Err(why) => return Err(geometry(why)),
    };
    let surface = Arc::new(MeshData { vertices, triangles: data.triangles });
    Ok(MeshAsset { name, shape, unit, surface, at: e.at.clone() })
}

/// The vertices as MuJoCo keeps them, expressed in the asset frame, and as it computes them before it rounds them,
/// in the mesh's inertial frame. `mjCMesh::Process` moves the mesh to its inertial frame (centre of mass `c` at the
/// origin, principal axes `R` as the frame's), in double (`p = Rᵀ(v − c)` with `mjuu_quat2mat`'s arithmetic), and
/// then narrows the vertices to single precision: `v ↦ c + R·f32(p)`. Rounding to single precision commutes with
/// permuting and negating the axes, so MuJoCo's principal frame is needed only up to them, but to the last bit
/// ([`crate::eig3::mesh_frame`]). Without this, two faces MuJoCo sees as crossing by less than a float's spacing can meet exactly here,
/// and GJK ends on a degenerate simplex where MuJoCo's finds a contact (`cube_3x3x3.xml`'s cubelets).
fn stored_as_mujoco_does(
    vertices: &[DVec3],
    unit: &MassProperties,
    frame: DQuat,
) -> (Vec<DVec3>, Vec<DVec3>) {
    let r = DMat3::from_quat(frame);
    // `mjCMesh::Rotate`: the matrix of the conjugate quaternion, row by row.
    let rt = crate::eig3::quat_to_mat(&[frame.w, -frame.x, -frame.y, -frame.z]);
    let principal: Vec<DVec3> = vertices
        .iter()
        .map(|&v| {
            let d = v - unit.com;
            let row = |k: usize| rt[3 * k] * d.x + rt[3 * k + 1] * d.y + rt[3 * k + 2] * d.z;
            DVec3::new(row(0), row(1), row(2))
        })
        .collect();
    let stored = principal.iter().map(|&p| unit.com + r * p.as_vec3().as_dvec3()).collect();
    (stored, principal)
}

/// MuJoCo's principal frame of a mesh's unit-density inertia ([`crate::eig3::mesh_frame`]).
fn mesh_frame(unit: &MassProperties) -> DQuat {
    let i = unit.inertia;
    crate::eig3::mesh_frame([i.x_axis.x, i.y_axis.y, i.z_axis.z, i.y_axis.x, i.z_axis.x, i.z_axis.y])
}

fn inline_mesh(a: &Attrs<'_>) -> Result<MeshData> {
    let v = a.numbers("vertex")?.unwrap_or_default();
    if v.len() % 3 != 0 {
        return Err(a.invalid_named("vertex", "the number of coordinates is not a multiple of 3").into());
    }
    let vertices: Vec<DVec3> = v.chunks_exact(3).map(|c| DVec3::new(c[0], c[1], c[2])).collect();
    let mut triangles = Vec::new();
    if let Some(f) = a.get("face") {
        let idx = a.numbers("face")?.unwrap_or_default();
        if idx.len() % 3 != 0 {
            return Err(a.invalid(f, "the number of indices is not a multiple of 3").into());
        }
        for c in idx.chunks_exact(3) {
            let mut t = [0u32; 3];
            for (slot, &i) in t.iter_mut().zip(c) {
                if i.fract() != 0.0 || i < 0.0 || i as usize >= vertices.len() {
                    return Err(a.invalid(f, format!("`{i}` is not a vertex index")).into());
                }
                *slot = i as u32;
            }
            triangles.push(t);
        }
    }
    Ok(MeshData { vertices, triangles })
}
