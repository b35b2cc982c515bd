//! Meshes used as non-convex solids: signorini's switch in MuJoCo's own `<custom>` section, so the file still loads
//! in MuJoCo (which rejects unknown attributes).
//!
//! ```xml
//! <custom>
//!   <text name="signorini:sdf" data="bowl holder"/>            <!-- mesh assets, separated by spaces -->
//!   <text name="signorini:sdf_geoms" data="cup"/>              <!-- or single mesh geoms, by name -->
//!   <numeric name="signorini:sdf_cell_size" data="0.004"/>     <!-- optional, metres (default 0.005) -->
//! </custom>
//! ```
//!
//! In native mode every geom of a named mesh, and every named mesh geom, collides as the closed triangle mesh with its signed distance field
//! (spec §A.14: contacts from the field, so a ball rolls inside a bowl). Without the switch a mesh collides as its
//! convex hull, which is what Genesis does by default (`convexify=True`) and what MuJoCo always does; the
//! MuJoCo-compatible mode keeps the hulls whatever the switch says. A named mesh must have faces and be closed; its
//! mass properties are those of the mesh asset either way (write `inertia="exact"` for a hollow object's own).

use std::collections::HashMap;
use std::sync::Arc;

use signorini_geometry::{ConvexMesh, SdfSettings, Shape, TriangleMesh};
use signorini_model::spec::ModelSpec;
use signorini_xml::{Element, Location};

use crate::assets::{Assets, MeshAsset};
use crate::error::{MjcfError, Result};

/// The `<text>` naming the meshes.
pub const SDF_TEXT: &str = "signorini:sdf";
/// The `<text>` naming mesh geoms, one by one.
pub const SDF_GEOMS_TEXT: &str = "signorini:sdf_geoms";
/// The `<numeric>` setting the grid's cell size.
pub const SDF_CELL_SIZE: &str = "signorini:sdf_cell_size";

/// The geoms a file asks to collide as non-convex meshes (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct NonconvexMeshes {
    /// `(body, geom within the body, mesh, where the switch names it)` of each geom using a named mesh.
    pub geoms: Vec<(usize, usize, Arc<TriangleMesh>, Location)>,
    /// The field's grid settings.
    pub settings: SdfSettings,
}

impl NonconvexMeshes {
    /// Reads the switch from the `<custom>` sections and finds the geoms it selects: those of a named mesh (a mesh
    /// geom holds its asset's hull) and the named geoms.
    pub(crate) fn read<'a>(
        sections: impl Iterator<Item = &'a Element>,
        assets: &Assets,
        spec: &ModelSpec,
    ) -> Result<Self> {
        let mut out = NonconvexMeshes::default();
        // The closed mesh of each selected asset, by its hull.
        let mut meshes: Vec<(Arc<ConvexMesh>, Arc<TriangleMesh>)> = Vec::new();
        let mut selected: Vec<(usize, usize, Location)> = Vec::new();
        for custom in sections {
            for e in &custom.children {
                let Some(name) = e.attr("name") else { continue };
                let data = e.attr("data").unwrap_or("");
                let undefined = |kind: &'static str, name: &str| MjcfError::UndefinedName {
                    at: e.at.clone(),
                    element: e.name.clone(),
                    attribute: "data".into(),
                    kind,
                    name: name.into(),
                };
                match (e.name.as_str(), name) {
                    ("text", SDF_TEXT) => {
                        for mesh in data.split_whitespace() {
                            let asset = assets.mesh(mesh).ok_or_else(|| undefined("mesh", mesh))?;
                            closed_mesh(asset, e, &mut meshes)?;
                            for (b, body) in spec.bodies.iter().enumerate() {
                                for (g, geom) in body.geoms.iter().enumerate() {
                                    if matches!((&geom.shape, asset.hull()), (Shape::ConvexMesh(h), Some(a)) if Arc::ptr_eq(h, a))
                                    {
                                        selected.push((b, g, e.at.clone()));
                                    }
                                }
                            }
                        }
                    }
                    ("text", SDF_GEOMS_TEXT) => {
                        for geom_name in data.split_whitespace() {
                            let (b, g, geom) = spec
                                .bodies
                                .iter()
                                .enumerate()
                                .flat_map(|(b, body)| {
                                    body.geoms.iter().enumerate().map(move |(g, geom)| (b, g, geom))
                                })
                                .find(|(_, _, geom)| geom.name == geom_name)
                                .ok_or_else(|| undefined("geom", geom_name))?;
                            let asset = match &geom.shape {
                                Shape::ConvexMesh(h) => assets.mesh_of_hull(h),
                                _ => None,
                            }
                            .ok_or_else(|| MjcfError::Invalid {
                                at: e.at.clone(),
                                element: "text".into(),
                                reason: format!("geom `{geom_name}` is not a mesh geom"),
                            })?;
                            closed_mesh(asset, e, &mut meshes)?;
                            selected.push((b, g, e.at.clone()));
                        }
                    }
                    ("numeric", SDF_CELL_SIZE) => {
                        let h: Option<f64> = data.trim().parse().ok();
                        match h {
                            Some(h) if h > 0.0 && h.is_finite() => out.settings.cell_size = h,
                            _ => {
                                return Err(MjcfError::Invalid {
                                    at: e.at.clone(),
                                    element: "numeric".into(),
                                    reason: format!(
                                        "`{SDF_CELL_SIZE}` needs one positive number, got `{data}`"
                                    ),
                                });
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        selected.sort_by_key(|&(b, g, _)| (b, g));
        selected.dedup_by_key(|&mut (b, g, _)| (b, g));
        for (b, g, at) in selected {
            if let Shape::ConvexMesh(hull) = &spec.bodies[b].geoms[g].shape
                && let Some((_, mesh)) = meshes.iter().find(|(h, _)| Arc::ptr_eq(h, hull))
            {
                out.geoms.push((b, g, mesh.clone(), at));
            }
        }
        Ok(out)
    }

    /// Gives each listed geom of `spec` its triangle mesh with a signed distance field (one field per mesh).
    pub fn apply(&self, spec: &mut ModelSpec) -> Result<()> {
        let mut built: HashMap<*const TriangleMesh, Arc<TriangleMesh>> = HashMap::new();
        for (b, g, mesh, at) in &self.geoms {
            let with_field = match built.get(&Arc::as_ptr(mesh)) {
                Some(m) => m.clone(),
                None => {
                    let m = Arc::new((**mesh).clone().with_sdf(&self.settings).map_err(|source| {
                        MjcfError::Geometry {
                            at: at.clone(),
                            element: "text".into(),
                            attribute: Some("data".into()),
                            source,
                        }
                    })?);
                    built.insert(Arc::as_ptr(mesh), m.clone());
                    m
                }
            };
            if let Some(geom) = spec.bodies.get_mut(*b).and_then(|body| body.geoms.get_mut(*g)) {
                geom.shape = Shape::TriangleMesh(with_field);
            }
        }
        Ok(())
    }
}

/// The closed triangle mesh of `asset`, built once (kept in `meshes` by the asset's hull); the errors name the mesh
/// and the switch `e` that selected it.
fn closed_mesh(
    asset: &MeshAsset,
    e: &Element,
    meshes: &mut Vec<(Arc<ConvexMesh>, Arc<TriangleMesh>)>,
) -> Result<()> {
    let invalid = |reason: String| MjcfError::Invalid {
        at: e.at.clone(),
        element: e.name.clone(),
        reason: format!("mesh `{}` (declared at {}): {reason}", asset.name, asset.at),
    };
    let Some(hull) = asset.hull() else {
        return Err(invalid("is flat; a non-convex mesh needs a closed surface around a volume".into()));
    };
    if meshes.iter().any(|(h, _)| Arc::ptr_eq(h, hull)) {
        return Ok(());
    }
    if asset.surface.triangles.is_empty() {
        return Err(invalid(
            "has no faces; a non-convex mesh needs its triangles (`face` or a mesh file)".into(),
        ));
    }
    let mesh = TriangleMesh::new(asset.surface.vertices.clone(), asset.surface.triangles.clone())
        .map_err(|source| invalid(source.to_string()))?;
    if !mesh.is_closed() {
        return Err(invalid(
            "is open or non-manifold; its signed distance field needs a closed, consistently oriented surface (an \
             open mesh is fine as a convex hull)"
                .into(),
        ));
    }
    meshes.push((hull.clone(), Arc::new(mesh)));
    Ok(())
}
