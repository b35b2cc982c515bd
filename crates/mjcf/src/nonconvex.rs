//! Meshes used as non-convex solids: signorini's switch in MuJoCo's own `<custom>` section, so the file still loads
//! in MuJoCo (which rejects unknown attributes).
//!
//! ```xml
//! <custom>
//!   <text name="signorini:sdf" data="bowl holder"/>            <!-- mesh assets, separated by spaces -->
//!   <numeric name="signorini:sdf_cell_size" data="0.004"/>     <!-- optional, metres (default 0.005) -->
//! </custom>
//! ```
//!
//! In native mode every geom of a named mesh collides as the closed triangle mesh with its signed distance field
//! (spec §A.14: contacts from the field, so a ball rolls inside a bowl). Without the switch a mesh collides as its
//! convex hull, which is what Genesis does by default (`convexify=True`) and what MuJoCo always does; the
//! MuJoCo-compatible mode keeps the hulls whatever the switch says. A named mesh must have faces and be closed; its
//! mass properties are those of the mesh asset either way (write `inertia="exact"` for a hollow object's own).

use std::collections::HashMap;
use std::sync::Arc;

use signorini_geometry::{SdfSettings, Shape, TriangleMesh};
use signorini_model::spec::ModelSpec;
use signorini_xml::{Element, Location};

use crate::assets::Assets;
use crate::error::{MjcfError, Result};

/// The `<text>` naming the meshes.
pub const SDF_TEXT: &str = "signorini:sdf";
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
    /// Reads the switch from the `<custom>` sections and finds the geoms that use a named mesh (a mesh geom holds
    /// its asset's hull).
    pub(crate) fn read<'a>(
        sections: impl Iterator<Item = &'a Element>,
        assets: &Assets,
        spec: &ModelSpec,
    ) -> Result<Self> {
        let mut out = NonconvexMeshes::default();
        let mut named: Vec<(Arc<signorini_geometry::ConvexMesh>, Arc<TriangleMesh>, Location)> = Vec::new();
        for custom in sections {
            for e in &custom.children {
                let Some(name) = e.attr("name") else { continue };
                let data = e.attr("data").unwrap_or("");
                match (e.name.as_str(), name) {
                    ("text", SDF_TEXT) => {
                        for mesh in data.split_whitespace() {
                            let asset = assets.mesh(mesh).ok_or_else(|| MjcfError::UndefinedName {
                                at: e.at.clone(),
                                element: "text".into(),
                                attribute: "data".into(),
                                kind: "mesh",
                                name: mesh.into(),
                            })?;
                            if named.iter().any(|(h, _, _)| Arc::ptr_eq(h, &asset.hull)) {
                                continue;
                            }
                            let invalid = |reason: String| MjcfError::Invalid {
                                at: e.at.clone(),
                                element: "text".into(),
                                reason: format!("mesh `{mesh}` (declared at {}): {reason}", asset.at),
                            };
                            if asset.surface.triangles.is_empty() {
                                return Err(invalid(
                                    "has no faces; a non-convex mesh needs its triangles (`face` or a mesh file)".into(),
                                ));
                            }
                            let mesh = TriangleMesh::new(
                                asset.surface.vertices.clone(),
                                asset.surface.triangles.clone(),
                            )
                            .map_err(|source| invalid(source.to_string()))?;
                            if !mesh.is_closed() {
                                return Err(invalid(
                                    "is open or non-manifold; its signed distance field needs a closed, consistently \
                                     oriented surface (an open mesh is fine as a convex hull)"
                                        .into(),
                                ));
                            }
                            named.push((asset.hull.clone(), Arc::new(mesh), e.at.clone()));
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
        for (b, body) in spec.bodies.iter().enumerate() {
            for (g, geom) in body.geoms.iter().enumerate() {
                if let Shape::ConvexMesh(hull) = &geom.shape
                    && let Some((_, mesh, at)) = named.iter().find(|(h, _, _)| Arc::ptr_eq(h, hull))
                {
                    out.geoms.push((b, g, mesh.clone(), at.clone()));
                }
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
