//! Coal-style queries from Python: `signorini.Shape` constructors and `distance` / `collide` between two posed
//! shapes. Convention (spec §3): the signed distance is negative when the shapes overlap; the normal points from A
//! to B and `point_b − point_a = distance · normal` (world frame, m).

use glam::{DQuat, DVec3};
use numpy::{AllowTypeChange, PyArrayLike2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use signorini_collision::query::{self, CollisionRequest, DistanceRequest};
use signorini_geometry::shape::{Capsule, ConvexMesh, Cuboid, Cylinder, Ellipsoid, Plane, Sphere};
use signorini_geometry::{Pose, Shape as GeomShape};

use crate::error::{SignoriniError, to_py};

/// A collision shape in its own frame (metres): build one with `Shape.sphere(r)`, `Shape.box(half_extents)`,
/// `Shape.capsule(r, half_length)` and `Shape.cylinder(r, half_length)` (along z), `Shape.ellipsoid(semi_axes)`,
/// `Shape.plane()` (the half-space z ≤ 0) or `Shape.convex(points)` (the hull of an `(n, 3)` array).
#[pyclass(module = "signorini", frozen)]
#[derive(Debug)]
pub struct Shape {
    inner: GeomShape,
}

fn vec3(v: [f64; 3]) -> DVec3 {
    DVec3::from_array(v)
}

#[pymethods]
impl Shape {
    #[staticmethod]
    fn sphere(radius: f64) -> PyResult<Shape> {
        Ok(Shape { inner: GeomShape::Sphere(Sphere::new(radius).map_err(to_py)?) })
    }

    #[staticmethod]
    #[pyo3(name = "box")]
    fn cuboid(half_extents: [f64; 3]) -> PyResult<Shape> {
        Ok(Shape { inner: GeomShape::Box(Cuboid::new(vec3(half_extents)).map_err(to_py)?) })
    }

    #[staticmethod]
    fn capsule(radius: f64, half_length: f64) -> PyResult<Shape> {
        Ok(Shape { inner: GeomShape::Capsule(Capsule::new(radius, half_length).map_err(to_py)?) })
    }

    #[staticmethod]
    fn cylinder(radius: f64, half_length: f64) -> PyResult<Shape> {
        Ok(Shape { inner: GeomShape::Cylinder(Cylinder::new(radius, half_length).map_err(to_py)?) })
    }

    #[staticmethod]
    fn ellipsoid(semi_axes: [f64; 3]) -> PyResult<Shape> {
        Ok(Shape { inner: GeomShape::Ellipsoid(Ellipsoid::new(vec3(semi_axes)).map_err(to_py)?) })
    }

    #[staticmethod]
    fn plane() -> Shape {
        Shape { inner: GeomShape::Plane(Plane::new()) }
    }

    #[staticmethod]
    fn convex(points: PyArrayLike2<'_, f64, AllowTypeChange>) -> PyResult<Shape> {
        let view = points.as_array();
        if view.ncols() != 3 {
            return Err(SignoriniError::new_err(format!("points must be (n, 3), got {:?}", view.dim())));
        }
        let pts: Vec<DVec3> = view.rows().into_iter().map(|r| DVec3::new(r[0], r[1], r[2])).collect();
        let hull = ConvexMesh::from_points(&pts).map_err(to_py)?;
        Ok(Shape { inner: GeomShape::ConvexMesh(std::sync::Arc::new(hull)) })
    }

    /// The shape's kind, e.g. `"box"`.
    #[getter]
    fn kind(&self) -> String {
        format!("{:?}", self.inner.kind()).to_lowercase()
    }

    fn __repr__(&self) -> String {
        format!("signorini.Shape({})", self.kind())
    }
}

/// A pose from `(position[3], quaternion (w, x, y, z))`; the identity for `None`.
fn pose(p: Option<([f64; 3], [f64; 4])>) -> PyResult<Pose> {
    let Some((t, [w, x, y, z])) = p else { return Ok(Pose::IDENTITY) };
    Pose::new(vec3(t), DQuat::from_xyzw(x, y, z, w)).map_err(to_py)
}

fn list3(v: DVec3) -> [f64; 3] {
    v.to_array()
}

/// Signed distance between shape `a` at `pose_a` and `b` at `pose_b` (poses `(position, (w, x, y, z))`): a dict
/// `distance` (negative: penetration depth), `point_a`, `point_b` (witness points, world), `normal` (A to B),
/// `iterations`, `algorithm`.
#[pyfunction]
#[pyo3(signature = (a, b, pose_a=None, pose_b=None))]
pub(crate) fn distance<'py>(
    py: Python<'py>,
    a: &Shape,
    b: &Shape,
    pose_a: Option<([f64; 3], [f64; 4])>,
    pose_b: Option<([f64; 3], [f64; 4])>,
) -> PyResult<Bound<'py, PyDict>> {
    let (pa, pb) = (pose(pose_a)?, pose(pose_b)?);
    let r = query::distance(&a.inner, &pa, &b.inner, &pb, &DistanceRequest::default()).map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("distance", r.distance)?;
    d.set_item("point_a", list3(r.point_a))?;
    d.set_item("point_b", list3(r.point_b))?;
    d.set_item("normal", list3(r.normal))?;
    d.set_item("iterations", r.iterations)?;
    d.set_item("algorithm", format!("{:?}", r.algorithm).to_lowercase())?;
    Ok(d)
}

/// Whether `a` and `b` are closer than `security_margin` (m), with up to `max_contacts` contacts: a dict
/// `colliding` and `contacts`, a list of dicts `distance`, `normal` (A to B), `position`, `point_a`, `point_b`.
#[pyfunction]
#[pyo3(signature = (a, b, pose_a=None, pose_b=None, security_margin=0.0, max_contacts=1))]
pub(crate) fn collide<'py>(
    py: Python<'py>,
    a: &Shape,
    b: &Shape,
    pose_a: Option<([f64; 3], [f64; 4])>,
    pose_b: Option<([f64; 3], [f64; 4])>,
    security_margin: f64,
    max_contacts: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let (pa, pb) = (pose(pose_a)?, pose(pose_b)?);
    let request = CollisionRequest { security_margin, max_contacts, ..CollisionRequest::default() };
    let r = query::collide(&a.inner, &pa, &b.inner, &pb, &request).map_err(to_py)?;
    let contacts = PyList::empty(py);
    for c in &r.contacts {
        let d = PyDict::new(py);
        d.set_item("distance", c.distance)?;
        d.set_item("normal", list3(c.normal))?;
        d.set_item("position", list3(c.position))?;
        d.set_item("point_a", list3(c.point_a))?;
        d.set_item("point_b", list3(c.point_b))?;
        contacts.append(d)?;
    }
    let d = PyDict::new(py);
    d.set_item("colliding", r.colliding)?;
    d.set_item("contacts", contacts)?;
    Ok(d)
}
