//! Support-query benchmarks: closed-form primitives, and for convex hulls of 50, 500 and 5000 vertices the support
//! field (O(1) table lookup, approximate), hill climbing (exact, O(√n) typical, cold from vertex 0 on random directions, and
//! warm from the previous answer on a slowly turning direction sequence as GJK issues them) and the brute-force scan (exact, O(n)).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use signorini_benches::{coal_json, directions, ellipsoid_cloud};
use signorini_geometry::{
    Aabb, Bvh, Capsule, ConvexMesh, Cuboid, Cylinder, DVec3, Ellipsoid, Shape, Sphere, SupportField,
    SupportMap, TriangleMesh,
};
use signorini_testdata::QueryDataset;

const QUERIES: usize = 1024;

fn primitives(c: &mut Criterion) {
    let dirs = directions(QUERIES, 1);
    let shapes: Vec<(&str, Shape)> = vec![
        ("sphere", Sphere::new(0.5).unwrap().into()),
        ("capsule", Capsule::new(0.2, 0.5).unwrap().into()),
        ("cylinder", Cylinder::new(0.3, 0.4).unwrap().into()),
        ("box", Cuboid::new(DVec3::new(0.1, 0.2, 0.3)).unwrap().into()),
        ("ellipsoid", Ellipsoid::new(DVec3::new(0.1, 0.2, 0.3)).unwrap().into()),
    ];
    let mut group = c.benchmark_group("support/primitive");
    group.throughput(Throughput::Elements(QUERIES as u64));
    for (name, shape) in &shapes {
        group.bench_function(*name, |b| {
            b.iter(|| {
                let mut acc = DVec3::ZERO;
                for d in &dirs {
                    acc += shape.local_support(black_box(*d)).unwrap_or(DVec3::ZERO);
                }
                acc
            })
        });
    }
    group.finish();
}

/// A slowly turning sequence of directions, like the search directions of successive GJK iterations.
fn coherent_directions(n: usize) -> Vec<DVec3> {
    let jitter = directions(n, 4);
    let mut d = DVec3::new(1.0, 0.2, -0.3).normalize();
    jitter
        .into_iter()
        .map(|j| {
            d = (d + 0.05 * j).normalize();
            d
        })
        .collect()
}

fn hull_build(c: &mut Criterion) {
    let mut group = c.benchmark_group("hull/build");
    for n in [50usize, 500, 5000] {
        let points = ellipsoid_cloud(n, 3);
        group.bench_function(BenchmarkId::new("quickhull", n), |b| {
            b.iter(|| ConvexMesh::from_points(black_box(&points)).map(|m| m.vertices().len()))
        });
        let mesh = ConvexMesh::from_points(&points).expect("hull");
        group.bench_function(BenchmarkId::new("support_field", n), |b| {
            b.iter(|| SupportField::new(black_box(&mesh)))
        });
    }
    group.finish();
}

fn hulls(c: &mut Criterion) {
    let dirs = directions(QUERIES, 2);
    let coherent = coherent_directions(QUERIES);
    for n in [50usize, 500, 5000] {
        let mesh = ConvexMesh::from_points(&ellipsoid_cloud(n, 3)).expect("hull of an ellipsoid cloud");
        let field = SupportField::new(&mesh);
        let mut group = c.benchmark_group(format!("support/hull{n}"));
        group.throughput(Throughput::Elements(QUERIES as u64));
        group.bench_function(BenchmarkId::new("support_field", n), |b| {
            b.iter(|| dirs.iter().map(|d| field.support_index(black_box(*d))).sum::<usize>())
        });
        group.bench_function(BenchmarkId::new("hill_climb_cold", n), |b| {
            b.iter(|| dirs.iter().map(|d| mesh.support_index_hill_climb(black_box(*d), 0)).sum::<usize>())
        });
        group.bench_function(BenchmarkId::new("hill_climb_warm", n), |b| {
            b.iter(|| {
                let mut last = 0;
                let mut sum = 0;
                for d in &coherent {
                    last = mesh.support_index_hill_climb(black_box(*d), last);
                    sum += last;
                }
                sum
            })
        });
        group.bench_function(BenchmarkId::new("brute_force", n), |b| {
            b.iter(|| dirs.iter().map(|d| mesh.support_index_brute_force(black_box(*d))).sum::<usize>())
        });
        group.bench_function(BenchmarkId::new("support_map", n), |b| {
            b.iter(|| dirs.iter().map(|d| mesh.local_support(black_box(*d))).fold(DVec3::ZERO, |a, p| a + p))
        });
        group.finish();
    }
}

/// BVH construction over the Coal icosphere (1280 triangles): the tree alone, and the whole `TriangleMesh::new`
/// (validation + tree). Throughput in triangles, so `elem/s` is triangles per second.
fn bvh_build(c: &mut Criterion) {
    let dataset: QueryDataset = serde_json::from_str(&coal_json("mesh_mesh")).expect("the Coal mesh dataset");
    let data = dataset.meshes.values().next().expect("a mesh");
    let vertices: Vec<DVec3> = data.vertices.iter().map(|p| DVec3::from_array(*p)).collect();
    let boxes: Vec<Aabb> = data
        .triangles
        .iter()
        .filter_map(|t| Aabb::from_points(t.iter().map(|&i| vertices[i as usize])))
        .collect();
    let mut group = c.benchmark_group("bvh/build");
    group.throughput(Throughput::Elements(boxes.len() as u64));
    group.bench_function(BenchmarkId::new("bvh", boxes.len()), |b| {
        b.iter(|| Bvh::build(black_box(&boxes)).nodes().len())
    });
    group.bench_function(BenchmarkId::new("triangle_mesh_new", boxes.len()), |b| {
        b.iter(|| {
            TriangleMesh::new(black_box(vertices.clone()), data.triangles.clone())
                .map(|m| m.bvh().nodes().len())
        })
    });
    group.finish();
}

criterion_group!(benches, primitives, hulls, hull_build, bvh_build);
criterion_main!(benches);
