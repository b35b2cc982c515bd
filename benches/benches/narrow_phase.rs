//! Narrow-phase benchmarks, signorini side by side with parry3d-f64 0.31 in one process on the same inputs: the Coal
//! reference datasets `shared/testdata/coal/<kind>.json` (60 records each, roughly half of them penetrating).
//!
//! Every criterion group is one shape pair; each function runs the query over **all** records of the file once per
//! iteration and the throughput is the record count, so criterion's `elem/s` is queries per second (time per query =
//! time per iteration / record count).
//!
//! - `distance/<kind>`: `signorini` = [`distance_with`] (signed distance: GJK, or EPA depth when overlapping) with a
//!   reused workspace; `parry3d` = `query::distance` (returns 0 for overlapping shapes, so it does less work there);
//!   `parry3d_contact` = `query::contact(.., 0.0)` (penetration depth, the like-for-like comparison on overlapping
//!   records; `None` for separated ones, which makes it cheaper there).
//!   `distance/ellipsoid_box` is signorini only: parry has no ellipsoid.
//! - `contact/box_box`: `signorini` = [`contacts_into`] (full manifold, up to 8 points, default request);
//!   `parry3d` = `query::contact` (one deepest point); `parry3d_manifold` = parry's cuboid–cuboid manifold
//!   (`query::details::contact_manifold_cuboid_cuboid`, the manifold comparison; the manifold is cleared per record
//!   so parry's temporal-coherence shortcut never applies).
//! - `collide/<kind>`: boolean overlap; `signorini` = [`collide_with`] with `max_contacts: 0` (early exit),
//!   `parry3d` = `query::intersection_test`.
//!
//! Before anything is timed, every record is run through both libraries: for separated records (parry distance
//! above 1e-6) the distances must agree within 1e-6 (or, where parry's generic GJK stops short, signorini must match
//! Coal's reference) and the boolean answers must agree, otherwise the bench panics; the penetration-depth agreement
//! on overlapping records is printed (EPA/SAT depths are only tolerance-accurate).
//!
//! Shape mapping: parry's cylinder axis is its local y, ours is z, so the parry pose of a cylinder is the record's
//! pose composed with a +90° rotation about x (parry local y → our local z); capsules use `capsule_z`; hulls are
//! `ConvexPolyhedron::from_convex_hull` of the dataset's `hulls` points (built once per hull, shared); meshes are
//! parry `TriMesh`es of the dataset's `meshes` (icosphere, 1280 triangles), whose distance, like ours, is the
//! unsigned distance between the surfaces (parry answers a mesh pair triangle by triangle of A against B's tree).

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parry3d_f64::math::{Pose as PPose, Rotation as PRotation, Vector as PVector};
use parry3d_f64::query::{self as pq, ContactManifold};
use parry3d_f64::shape::{Cuboid as PCuboid, SharedShape};
use signorini_benches::coal_json;
use signorini_collision::{
    CollisionRequest, ContactRequest, DistanceRequest, Manifold, QueryWorkspace, collide_with, contacts_into,
    distance_with,
};
use signorini_geometry::{Pose, Shape};
use signorini_testdata::coal::{MeshData, QueryDataset, ShapeSpec, Transform};

/// Records closer than this are "touching": neither the distance nor the boolean answer is compared.
const SEPARATED: f64 = 1e-6;
/// Agreement required on separated records.
const TOLERANCE: f64 = 1e-6;
/// Parry answers some pairs (capsule–capsule, capsule–box, cylinder–box) with its generic GJK, which stops a few
/// 1e-6 short of the exact distance (it always over-estimates). A record is still accepted when signorini matches
/// Coal's reference within [`TOLERANCE`] and parry is within this slack (a wrong shape mapping is off by ≫ 1e-4).
const PARRY_GJK_SLACK: f64 = 1e-4;

/// One shape as parry sees it.
struct ParryBody {
    shape: SharedShape,
    pose: PPose,
}

/// One record, for both libraries.
struct Case {
    id: u64,
    a: (Shape, Pose),
    b: (Shape, Pose),
    /// `None` when parry has no equivalent shape (ellipsoid).
    parry: Option<(ParryBody, ParryBody)>,
    /// Coal's reference signed distance.
    coal: Option<f64>,
}

fn parry_pose(tf: &Transform) -> PPose {
    let [w, x, y, z] = tf.q_wxyz;
    PPose::from_parts(PVector::from_array(tf.t), PRotation::from_xyzw(x, y, z, w))
}

/// The dataset's hull and mesh tables, and parry's shapes built from them once (keyed by table and id).
struct Tables<'a> {
    hulls: &'a HashMap<String, MeshData>,
    meshes: &'a HashMap<String, MeshData>,
    cache: HashMap<(bool, u64), SharedShape>,
}

fn parry_body(spec: &ShapeSpec, tf: &Transform, tables: &mut Tables<'_>) -> Option<ParryBody> {
    let pose = parry_pose(tf);
    let shape = match spec {
        ShapeSpec::Sphere { radius } => SharedShape::ball(*radius),
        ShapeSpec::Box { half_extents: [x, y, z] } => SharedShape::cuboid(*x, *y, *z),
        ShapeSpec::Capsule { radius, half_length } => SharedShape::capsule_z(*half_length, *radius),
        ShapeSpec::Cylinder { radius, half_length } => {
            // Parry's cylinder axis is local y; ours is local z. Rotating by +90° about x maps y to z.
            let to_z = PRotation::from_rotation_x(std::f64::consts::FRAC_PI_2);
            return Some(ParryBody {
                shape: SharedShape::cylinder(*half_length, *radius),
                pose: PPose::from_parts(pose.translation, pose.rotation * to_z),
            });
        }
        ShapeSpec::Convex { hull_id } => tables
            .cache
            .entry((false, *hull_id))
            .or_insert_with(|| {
                let data = &tables.hulls[&hull_id.to_string()];
                let points: Vec<PVector> = data.vertices.iter().map(|p| PVector::from_array(*p)).collect();
                SharedShape::convex_hull(&points)
                    .unwrap_or_else(|| panic!("parry cannot build the hull of hull {hull_id}"))
            })
            .clone(),
        ShapeSpec::Mesh { mesh_id } => tables
            .cache
            .entry((true, *mesh_id))
            .or_insert_with(|| {
                let data = &tables.meshes[&mesh_id.to_string()];
                let points: Vec<PVector> = data.vertices.iter().map(|p| PVector::from_array(*p)).collect();
                SharedShape::trimesh(points, data.triangles.clone())
                    .unwrap_or_else(|e| panic!("parry cannot build mesh {mesh_id}: {e:?}"))
            })
            .clone(),
        ShapeSpec::Ellipsoid { .. } | ShapeSpec::Halfspace { .. } | ShapeSpec::Plane { .. } => return None,
    };
    Some(ParryBody { shape, pose })
}

fn load(kind: &str) -> Vec<Case> {
    let dataset: QueryDataset = serde_json::from_str(&coal_json(kind))
        .unwrap_or_else(|e| panic!("cannot parse the Coal dataset {kind}: {e}"));
    let prepared = dataset.prepare().unwrap_or_else(|e| panic!("cannot build the shapes of {kind}: {e}"));
    let mut tables = Tables { hulls: &dataset.hulls, meshes: &dataset.meshes, cache: HashMap::new() };
    dataset
        .records
        .iter()
        .zip(prepared)
        .map(|(r, p)| {
            assert_eq!(r.id, p.id);
            let pa = parry_body(&r.shape1, &r.tf1, &mut tables);
            let pb = parry_body(&r.shape2, &r.tf2, &mut tables);
            Case { id: r.id, a: p.a, b: p.b, parry: pa.zip(pb), coal: r.distance }
        })
        .collect()
}

fn ours_distance(ws: &mut QueryWorkspace, c: &Case) -> f64 {
    distance_with(ws, &c.a.0, &c.a.1, &c.b.0, &c.b.1, &DistanceRequest::default())
        .unwrap_or_else(|e| panic!("signorini distance failed on record {}: {e}", c.id))
        .distance
}

fn parry_distance((a, b): &(ParryBody, ParryBody)) -> f64 {
    pq::distance(&a.pose, &*a.shape, &b.pose, &*b.shape).expect("parry supports the pair").distance
}

/// Parry's signed contact distance (negative depth), `None` when separated.
fn parry_contact((a, b): &(ParryBody, ParryBody)) -> Option<f64> {
    pq::contact(&a.pose, &*a.shape, &b.pose, &*b.shape, 0.0).expect("parry supports the pair").map(|c| c.dist)
}

/// Not timed: both libraries must answer the same problem. Panics on a separated record where the distances
/// disagree by more than [`TOLERANCE`] (unless signorini matches Coal and parry is within [`PARRY_GJK_SLACK`]), or
/// where the boolean answers disagree; prints the agreement.
fn verify(kind: &str, cases: &[Case]) {
    if cases.iter().all(|c| c.parry.is_none()) {
        eprintln!("[{kind}] signorini only: parry3d has no equivalent shape");
        return;
    }
    let mut ws = QueryWorkspace::default();
    let (mut separated, mut max_sep_err, mut parry_inexact) = (0usize, 0.0f64, 0usize);
    let (mut overlapping, mut max_depth_err, mut worst) = (0usize, 0.0f64, None);
    for c in cases {
        let Some(p) = &c.parry else { continue };
        let ours = ours_distance(&mut ws, c);
        let theirs = parry_distance(p);
        let ours_hit = collide_with(
            &mut ws,
            &c.a.0,
            &c.a.1,
            &c.b.0,
            &c.b.1,
            &CollisionRequest { max_contacts: 0, ..Default::default() },
        )
        .unwrap_or_else(|e| panic!("signorini collide failed on {kind} record {}: {e}", c.id))
        .colliding;
        let (a, b) = p;
        let theirs_hit = pq::intersection_test(&a.pose, &*a.shape, &b.pose, &*b.shape)
            .expect("parry supports the pair")
            .intersecting;
        if theirs > SEPARATED {
            let err = (ours - theirs).abs();
            if err >= TOLERANCE {
                let coal_err = c.coal.map_or(f64::INFINITY, |d| (ours - d).abs());
                assert!(
                    coal_err < TOLERANCE && err < PARRY_GJK_SLACK,
                    "{kind} record {}: signorini distance {ours} vs parry3d {theirs} (|Δ| = {err:e}; Coal {:?}): \
                     the two libraries do not see the same problem",
                    c.id,
                    c.coal
                );
                parry_inexact += 1;
            }
            separated += 1;
            max_sep_err = max_sep_err.max(err);
        }
        if ours.abs() > SEPARATED {
            assert_eq!(
                ours_hit, theirs_hit,
                "{kind} record {}: signorini collide = {ours_hit}, parry3d intersection_test = {theirs_hit} \
                 (signorini distance {ours})",
                c.id
            );
        }
        if ours < -SEPARATED
            && let Some(depth) = parry_contact(p)
        {
            overlapping += 1;
            let err = (ours - depth).abs();
            if err > max_depth_err {
                max_depth_err = err;
                worst = Some((c.id, ours, depth));
            }
        }
    }
    eprintln!(
        "[{kind}] checked vs parry3d: {separated} separated records (max |Δdistance| {max_sep_err:.1e}; \
         {parry_inexact} where parry's GJK is off by > {TOLERANCE:e} and signorini matches Coal), \
         {overlapping} overlapping records (max |Δdepth| {max_depth_err:.1e}{})",
        worst.map_or(String::new(), |(id, o, t)| format!(
            " at record {id}: signorini {o}, parry3d contact {t}"
        ))
    );
}

fn distance_group(c: &mut Criterion, kind: &str) {
    let cases = load(kind);
    verify(kind, &cases);
    let parry: Vec<&(ParryBody, ParryBody)> = cases.iter().filter_map(|c| c.parry.as_ref()).collect();
    let mut ws = QueryWorkspace::default();
    let request = DistanceRequest::default();
    let mut group = c.benchmark_group(format!("distance/{kind}"));
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("signorini", |bench| {
        bench.iter(|| {
            let mut acc = 0.0;
            for c in &cases {
                let r =
                    distance_with(&mut ws, black_box(&c.a.0), black_box(&c.a.1), &c.b.0, &c.b.1, &request);
                acc += r.map_or(f64::NAN, |r| r.distance);
            }
            acc
        })
    });
    if parry.len() == cases.len() {
        group.bench_function("parry3d", |bench| {
            bench.iter(|| {
                let mut acc = 0.0;
                for (a, b) in &parry {
                    let r = pq::distance(black_box(&a.pose), &*a.shape, black_box(&b.pose), &*b.shape);
                    acc += r.map_or(f64::NAN, |r| r.distance);
                }
                acc
            })
        });
        group.bench_function("parry3d_contact", |bench| {
            bench.iter(|| {
                let mut acc = 0.0;
                for (a, b) in &parry {
                    let r = pq::contact(black_box(&a.pose), &*a.shape, black_box(&b.pose), &*b.shape, 0.0);
                    acc += r.map_or(f64::NAN, |c| c.map_or(0.0, |c| c.dist));
                }
                acc
            })
        });
    }
    group.finish();
}

fn distance(c: &mut Criterion) {
    for kind in [
        "sphere_sphere",
        "capsule_capsule",
        "cylinder_box",
        "ellipsoid_box",
        "convex50_convex50",
        "convex500_convex500",
        "box_box",
        "sphere_box",
        "capsule_box",
        "mesh_mesh",
    ] {
        distance_group(c, kind);
    }
}

fn contact(c: &mut Criterion) {
    let cases = load("box_box");
    let parry: Vec<(&ParryBody, PCuboid, &ParryBody, PCuboid)> = cases
        .iter()
        .map(|c| {
            let (a, b) = c.parry.as_ref().expect("parry has cuboids");
            let cuboid = |p: &ParryBody| *p.shape.as_cuboid().expect("a cuboid");
            (a, cuboid(a), b, cuboid(b))
        })
        .collect();

    // Not timed: the deepest points agree, and how many points each manifold has.
    let mut ws = QueryWorkspace::default();
    let request = ContactRequest::default();
    let mut manifold = Manifold::new();
    let mut parry_manifold = ContactManifold::<(), ()>::new();
    let (mut ours_points, mut parry_points, mut max_depth_err) = (0usize, 0usize, 0.0f64);
    for (c, (a, ca, b, cb)) in cases.iter().zip(&parry) {
        contacts_into(&mut ws, &c.a.0, &c.a.1, &c.b.0, &c.b.1, &request, &mut manifold)
            .unwrap_or_else(|e| panic!("signorini contacts failed on box_box record {}: {e}", c.id));
        ours_points += manifold.len();
        parry_manifold.clear();
        pq::details::contact_manifold_cuboid_cuboid(
            &a.pose.inv_mul(&b.pose),
            ca,
            cb,
            0.0,
            &mut parry_manifold,
        );
        parry_points += parry_manifold.points.len();
        if let Some(depth) = parry_contact(c.parry.as_ref().unwrap()) {
            max_depth_err = max_depth_err.max((manifold.max_penetration() + depth).abs());
        }
    }
    eprintln!(
        "[contact/box_box] {} records: signorini {ours_points} contact points, parry3d manifold {parry_points}; \
         max |Δ deepest penetration| vs parry3d contact {max_depth_err:.1e}",
        cases.len()
    );

    let mut group = c.benchmark_group("contact/box_box");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("signorini", |bench| {
        bench.iter(|| {
            let mut n = 0;
            for c in &cases {
                let r = contacts_into(
                    &mut ws,
                    black_box(&c.a.0),
                    black_box(&c.a.1),
                    &c.b.0,
                    &c.b.1,
                    &request,
                    &mut manifold,
                );
                n += r.map_or(usize::MAX, |()| manifold.len());
            }
            n
        })
    });
    group.bench_function("parry3d", |bench| {
        bench.iter(|| {
            let mut acc = 0.0;
            for (a, _, b, _) in &parry {
                let r = pq::contact(black_box(&a.pose), &*a.shape, black_box(&b.pose), &*b.shape, 0.0);
                acc += r.map_or(f64::NAN, |c| c.map_or(0.0, |c| c.dist));
            }
            acc
        })
    });
    group.bench_function("parry3d_manifold", |bench| {
        bench.iter(|| {
            let mut n = 0;
            for (a, ca, b, cb) in &parry {
                parry_manifold.clear();
                let pos12 = black_box(&a.pose).inv_mul(black_box(&b.pose));
                pq::details::contact_manifold_cuboid_cuboid(&pos12, ca, cb, 0.0, &mut parry_manifold);
                n += parry_manifold.points.len();
            }
            n
        })
    });
    group.finish();
}

fn collide(c: &mut Criterion) {
    let request = CollisionRequest { max_contacts: 0, ..Default::default() };
    for kind in ["box_box", "convex50_convex50", "mesh_mesh"] {
        let cases = load(kind);
        let parry: Vec<&(ParryBody, ParryBody)> = cases.iter().filter_map(|c| c.parry.as_ref()).collect();
        let mut ws = QueryWorkspace::default();
        let mut group = c.benchmark_group(format!("collide/{kind}"));
        group.throughput(Throughput::Elements(cases.len() as u64));
        group.bench_function("signorini", |bench| {
            bench.iter(|| {
                let mut n = 0;
                for c in &cases {
                    let r =
                        collide_with(&mut ws, black_box(&c.a.0), black_box(&c.a.1), &c.b.0, &c.b.1, &request);
                    n += usize::from(r.is_ok_and(|r| r.colliding));
                }
                n
            })
        });
        group.bench_function("parry3d", |bench| {
            bench.iter(|| {
                let mut n = 0;
                for (a, b) in &parry {
                    let r =
                        pq::intersection_test(black_box(&a.pose), &*a.shape, black_box(&b.pose), &*b.shape);
                    n += usize::from(r.is_ok_and(|r| r.intersecting));
                }
                n
            })
        });
        group.finish();
    }
}

/// The bowl of `crates/cli/scenes/bowl.xml` (outer radius 0.12, inner 0.1, 3 072 triangles), as a non-convex solid.
fn bowl_profile() -> Vec<(f64, f64)> {
    let (ro, ri, steps) = (0.12, 0.1, 16);
    let arc = |r: f64, s: usize| {
        let phi = std::f64::consts::FRAC_PI_2 * s as f64 / steps as f64;
        (r * phi.sin(), ro - r * phi.cos())
    };
    (0..=steps).map(|s| arc(ro, s)).chain((0..=steps).rev().map(|s| arc(ri, s))).collect()
}

/// Contacts of a ball (radius 0.02) inside the bowl at 64 poses on the hollow's wall, from 2 mm clear to 2 mm deep:
/// signorini through the bowl's signed distance field, parry3d through its `TriMesh` contact manifolds (a surface:
/// one manifold per touched triangle).
fn contact_nonconvex(c: &mut Criterion) {
    use glam::DVec3;
    use parry3d_f64::query::{ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher};
    use parry3d_f64::shape::{Ball as PBall, TriMesh as PTriMesh};
    use signorini_geometry::{SdfSettings, Sphere, TriangleMesh};

    let mesh = TriangleMesh::of_revolution(&bowl_profile(), 48).expect("a closed bowl");
    let parry_mesh = PTriMesh::new(
        mesh.vertices().iter().map(|v| PVector::new(v.x, v.y, v.z)).collect(),
        mesh.triangles().to_vec(),
    )
    .expect("parry accepts the bowl");
    let bowl = Shape::from(mesh.with_sdf(&SdfSettings::default()).expect("a field"));
    let ball = Shape::from(Sphere::new(0.02).expect("a ball"));
    let parry_ball = PBall::new(0.02);
    let poses: Vec<Pose> = (0..64)
        .map(|k| {
            let tilt = 1.2 * (k % 8) as f64 / 8.0;
            let azimuth = std::f64::consts::TAU * (k / 8) as f64 / 8.0;
            let dir = DVec3::new(tilt.sin() * azimuth.cos(), tilt.sin() * azimuth.sin(), -tilt.cos());
            let depth = -0.002 + 0.004 * (k % 5) as f64 / 4.0;
            Pose::from_translation(DVec3::new(0.0, 0.0, 0.12) + dir * (0.1 - 0.02 + depth))
        })
        .collect();
    let parry_poses: Vec<PPose> = poses
        .iter()
        .map(|p| PPose::from_translation(PVector::new(p.translation.x, p.translation.y, p.translation.z)))
        .collect();

    let mut ws = QueryWorkspace::default();
    let request = ContactRequest::default();
    let mut manifold = Manifold::new();
    // Parry's persistent pairs: each pose keeps its manifolds and workspace across calls, as rapier keeps them.
    type PersistentPair = (Vec<ContactManifold<(), ()>>, Option<ContactManifoldsWorkspace>);
    let mut pairs: Vec<PersistentPair> = (0..poses.len()).map(|_| (Vec::new(), None)).collect();
    // Not timed: how many poses each finds in contact.
    let (mut ours, mut theirs) = (0, 0);
    for ((p, pp), (manifolds, w)) in poses.iter().zip(&parry_poses).zip(pairs.iter_mut()) {
        contacts_into(&mut ws, &ball, p, &bowl, &Pose::IDENTITY, &request, &mut manifold).expect("contacts");
        ours += usize::from(!manifold.is_empty());
        DefaultQueryDispatcher
            .contact_manifolds(&pp.inverse(), &parry_ball, &parry_mesh, 0.0, manifolds, w)
            .expect("parry contacts");
        theirs += usize::from(manifolds.iter().any(|m| m.points.iter().any(|p| p.dist < 0.0)));
    }
    eprintln!(
        "[contact/ball_in_bowl] {} poses: in contact for signorini {ours}, parry3d {theirs}",
        poses.len()
    );

    let mut group = c.benchmark_group("contact/ball_in_bowl");
    group.throughput(Throughput::Elements(poses.len() as u64));
    group.bench_function("signorini_sdf", |bench| {
        bench.iter(|| {
            let mut n = 0;
            for p in &poses {
                let r = contacts_into(
                    &mut ws,
                    &ball,
                    black_box(p),
                    &bowl,
                    &Pose::IDENTITY,
                    &request,
                    &mut manifold,
                );
                n += r.map_or(usize::MAX, |()| manifold.len());
            }
            n
        })
    });
    group.bench_function("parry3d_trimesh", |bench| {
        bench.iter(|| {
            let mut n = 0;
            for (pp, (manifolds, w)) in parry_poses.iter().zip(pairs.iter_mut()) {
                let r = DefaultQueryDispatcher.contact_manifolds(
                    &black_box(pp).inverse(),
                    &parry_ball,
                    &parry_mesh,
                    0.0,
                    manifolds,
                    w,
                );
                n += r.map_or(usize::MAX, |()| manifolds.iter().map(|m| m.points.len()).sum());
            }
            n
        })
    });
    group.finish();
}

criterion_group!(benches, distance, contact, contact_nonconvex, collide);
criterion_main!(benches);
