//! `<mesh builtin="..." params="...">`: meshes MuJoCo generates itself, vertex for vertex and face for face as
//! MuJoCo 4.0's `mjs_makeMesh` (vertices rounded to single precision, as MuJoCo stores them).
//!
//! | builtin | params | shape (before `scale`) |
//! |---|---|---|
//! | `sphere` | subdivision 0..4 | icosphere of radius 1 (`2 + 10·4ˢ` vertices) |
//! | `hemisphere` | resolution 0..10 | upper half of the unit sphere with its cap |
//! | `cone` | edges ≥ 3, top radius in [0, 1] | from the unit circle at `z = −1` to a circle (or apex) at `z = 1` (hull) |
//! | `supersphere` | resolution ≥ 3, e ≥ 0, n ≥ 0 | `(C(v,n)C(u,e), C(v,n)S(u,e), S(v,n))`, `C(ω,m) = sign(cos ω)|cos ω|ᵐ` |
//! | `supertorus` | resolution ≥ 3, radius in (0, 1], s > 0, t > 0 | `((1 + R·C(v,s))C(u,t), (1 + R·C(v,s))S(u,t), R·S(v,s))` |
//!
//! The flat and flex-like builtins (`wedge`, `plate`, `grid`, `box`, `cylinder`, `ellipsoid`, `square`, `disc`) are
//! errors: they are surfaces or volumes for tactile sensors and flexes, not rigid collision shapes.

use std::collections::HashMap;
use std::f64::consts::PI;

use glam::DVec3;
use signorini_mesh_io::MeshData;

use crate::error::Result;
use signorini_xml::attrs::Attrs;

/// Generates the mesh `a`'s `builtin` and `params` name.
pub fn generate(a: &Attrs<'_>) -> Result<MeshData> {
    let kind = a.str("builtin").unwrap_or_default();
    let params =
        a.numbers("params")?.ok_or_else(|| a.missing("params", "a builtin mesh needs its parameters"))?;
    let count = |n: usize| -> Result<()> {
        if params.len() == n {
            Ok(())
        } else {
            Err(a
                .invalid_named("params", format!("a {kind} mesh takes {n} parameters, got {}", params.len()))
                .into())
        }
    };
    let bad = |reason: &str| a.invalid_named("params", reason.to_string());
    let (vertices, triangles) = match kind {
        "sphere" => {
            count(1)?;
            let s = params[0] as i64;
            if !(0..=4).contains(&s) {
                return Err(bad("a sphere's subdivision is between 0 and 4").into());
            }
            icosphere(s as usize)
        }
        "hemisphere" => {
            count(1)?;
            let r = params[0] as i64;
            if !(0..=10).contains(&r) {
                return Err(bad("a hemisphere's resolution is between 0 and 10").into());
            }
            hemisphere(r as usize)
        }
        "cone" => {
            count(2)?;
            let (n, radius) = (params[0] as i64, params[1]);
            if n < 3 || !(0.0..=1.0).contains(&radius) {
                return Err(bad("a cone has at least 3 edges and a top radius in [0, 1]").into());
            }
            (cone(n as usize, radius), Vec::new())
        }
        "supersphere" => {
            count(3)?;
            let (res, e, n) = (params[0] as i64, params[1], params[2]);
            if res < 3 || e < 0.0 || n < 0.0 {
                return Err(bad("a supersphere has a resolution of at least 3 and e, n >= 0").into());
            }
            supersphere(res as usize, e, n)
        }
        "supertorus" => {
            count(4)?;
            let (res, radius, s, t) = (params[0] as i64, params[1], params[2], params[3]);
            if !(res >= 3 && radius > 0.0 && radius <= 1.0 && s > 0.0 && t > 0.0) {
                return Err(bad(
                    "a supertorus has a resolution of at least 3, a radius in (0, 1] and s, t > 0",
                )
                .into());
            }
            supertorus(res as usize, radius, s, t)
        }
        "wedge" | "plate" | "grid" | "box" | "cylinder" | "ellipsoid" | "square" | "disc" => {
            return Err(a
                .unsupported(Some("builtin"), format!("`{kind}` builtin meshes (tactile and flex shapes)"))
                .into());
        }
        _ => {
            return Err(a
                .invalid_named("builtin", "one of sphere, hemisphere, cone, supersphere, supertorus")
                .into());
        }
    };
    // MuJoCo keeps mesh vertices in single precision.
    let vertices = vertices.into_iter().map(|v| v.as_vec3().as_dvec3()).collect();
    Ok(MeshData { vertices, triangles })
}

type Faces = Vec<[u32; 3]>;

/// The icosahedron subdivided `s` times, computed in single precision as MuJoCo does.
fn icosphere(s: usize) -> (Vec<DVec3>, Faces) {
    let phi = ((1.0 + 5f64.sqrt()) / 2.0) as f32;
    let norm = (1.0 + (phi as f64) * (phi as f64)).sqrt();
    let base: [[f32; 3]; 12] = [
        [-1.0, phi, 0.0],
        [1.0, phi, 0.0],
        [-1.0, -phi, 0.0],
        [1.0, -phi, 0.0],
        [0.0, -1.0, phi],
        [0.0, 1.0, phi],
        [0.0, -1.0, -phi],
        [0.0, 1.0, -phi],
        [phi, 0.0, -1.0],
        [phi, 0.0, 1.0],
        [-phi, 0.0, -1.0],
        [-phi, 0.0, 1.0],
    ];
    let mut v: Vec<[f32; 3]> = base.iter().map(|p| p.map(|x| (x as f64 / norm) as f32)).collect();
    let mut f: Faces = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..s {
        let mut cache: HashMap<(u32, u32), u32> = HashMap::new();
        let mut mid = |a: u32, b: u32, v: &mut Vec<[f32; 3]>| -> u32 {
            *cache.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let (pa, pb) = (v[a as usize], v[b as usize]);
                let m: [f32; 3] = std::array::from_fn(|k| (pa[k] + pb[k]) / 2.0f32);
                let len = (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).sqrt();
                v.push(m.map(|x| x / len));
                (v.len() - 1) as u32
            })
        };
        let mut next = Vec::with_capacity(f.len() * 4);
        for &[a, b, c] in &f {
            let ab = mid(a, b, &mut v);
            let bc = mid(b, c, &mut v);
            let ca = mid(c, a, &mut v);
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        f = next;
    }
    (v.into_iter().map(|p| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64)).collect(), f)
}

fn hemisphere(r: usize) -> (Vec<DVec3>, Faces) {
    let north = DVec3::Z;
    let equator = [DVec3::X, DVec3::Y, DVec3::NEG_X, DVec3::NEG_Y];
    let mut v = vec![north];
    for row in 0..=r {
        let fac = (row + 1) as f64 / (r + 1) as f64;
        for side in 0..4 {
            let start = north + fac * (equator[side] - north);
            let end = north + fac * (equator[(side + 1) % 4] - north);
            let delta = (end - start) / (row + 1) as f64;
            for i in 0..=row {
                let p = start + i as f64 * delta;
                v.push(p / p.length());
            }
        }
    }
    v.push(DVec3::ZERO);
    let nv = v.len() as u32;
    let mut f: Faces = vec![[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1]];
    for row in 0..r {
        let sc = 2 * row * (row + 1) + 1;
        let cc = 4 * (row + 1);
        let sn = sc + cc;
        let cn = 4 * (row + 2);
        for side in 0..4 {
            for i in 0..=row + 1 {
                let vc = i + (row + 1) * side;
                let vn = i + (row + 2) * side;
                f.push([(sc + vc % cc) as u32, (sn + vn % cn) as u32, (sn + (vn + 1) % cn) as u32]);
                if i <= row {
                    f.push([(sc + vc % cc) as u32, (sn + (vn + 1) % cn) as u32, (sc + (vc + 1) % cc) as u32]);
                }
            }
        }
    }
    let st = 2 * r * (r + 1) + 1;
    let cnt = 4 * (r + 1);
    for i in 0..cnt {
        f.push([(st + i) as u32, nv - 1, (st + (i + 1) % cnt) as u32]);
    }
    (v, f)
}

fn cone(n: usize, radius: f64) -> Vec<DVec3> {
    let angle = |i: usize| 2.0 * i as f64 * PI / n as f64;
    let mut v: Vec<DVec3> = (0..n).map(|i| DVec3::new(angle(i).cos(), angle(i).sin(), -1.0)).collect();
    if radius > 0.0 {
        v.extend((n..2 * n).map(|i| DVec3::new(radius * angle(i).cos(), radius * angle(i).sin(), 1.0)));
    } else {
        v.push(DVec3::Z);
    }
    v
}

/// `sign(cos ω)·|cos ω|ᵐ` and `sign(sin ω)·|sin ω|ᵐ`.
fn c(w: f64, m: f64) -> f64 {
    w.cos().abs().powf(m).copysign(w.cos())
}

fn s(w: f64, m: f64) -> f64 {
    w.sin().abs().powf(m).copysign(w.sin())
}

fn supersphere(res: usize, e: f64, n: f64) -> (Vec<DVec3>, Faces) {
    let mut v = vec![DVec3::NEG_Z];
    for i in 1..res {
        let lat = -PI / 2.0 + i as f64 * PI / res as f64;
        for j in 0..res {
            let u = -PI + 2.0 * PI * j as f64 / res as f64;
            v.push(DVec3::new(c(lat, n) * c(u, e), c(lat, n) * s(u, e), s(lat, n)));
        }
    }
    v.push(DVec3::Z);
    let nv = v.len() as u32;
    let res32 = res as u32;
    let mut f: Faces = (0..res32).map(|j| [0, 1 + (j + 1) % res32, 1 + j]).collect();
    for i in 0..res32.saturating_sub(2) {
        for j in 0..res32 {
            let v1 = 1 + i * res32 + j;
            let v2 = 1 + i * res32 + (j + 1) % res32;
            let (v4, v3) = (v1 + res32, v2 + res32);
            f.extend([[v1, v2, v4], [v2, v3, v4]]);
        }
    }
    let last = 1 + (res32 - 2) * res32;
    f.extend((0..res32).map(|j| [last + j, last + (j + 1) % res32, nv - 1]));
    (v, f)
}

fn supertorus(res: usize, radius: f64, sp: f64, tp: f64) -> (Vec<DVec3>, Faces) {
    let mut v = Vec::with_capacity(res * res);
    for i in 0..res {
        let u = 2.0 * PI * i as f64 / res as f64;
        for j in 0..res {
            let w = 2.0 * PI * j as f64 / res as f64;
            let ring = 1.0 + radius * c(w, sp);
            v.push(DVec3::new(ring * c(u, tp), ring * s(u, tp), radius * s(w, sp)));
        }
    }
    let r = res as u32;
    let mut f = Vec::with_capacity(2 * res * res);
    for i in 0..r {
        for j in 0..r {
            let (i1, j1) = ((i + 1) % r, (j + 1) % r);
            f.extend([[i * r + j, i1 * r + j, i * r + j1], [i1 * r + j, i1 * r + j1, i * r + j1]]);
        }
    }
    (v, f)
}
