//! Small readers of triangle-mesh files: STL (binary and ASCII), Wavefront OBJ and MuJoCo's binary MSH.
//!
//! Only geometry is read: vertices and triangles (OBJ polygons are split into fans). Vertices that are bit-for-bit
//! equal are welded into one (STL repeats every vertex once per facet; an OBJ's `v` lines can repeat a point), and a
//! triangle whose corners weld together (zero area) is dropped. Normals, texture coordinates, groups and materials
//! are skipped; any other OBJ statement is an error.

use std::collections::HashMap;
use std::path::Path;

use glam::DVec3;

/// Vertices and triangles of a mesh file, in the file's frame and units.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshData {
    /// Vertices.
    pub vertices: Vec<DVec3>,
    /// Triangles as vertex indices, in the file's winding.
    pub triangles: Vec<[u32; 3]>,
}

/// Why a mesh file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MeshReadError {
    /// The file could not be read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file's content or extension is not supported, or it is malformed.
    #[error("{0}")]
    Format(String),
}

/// Reads an `.stl`, `.obj` or `.msh` file (by extension, case-insensitive).
pub fn read_mesh(path: &Path) -> Result<MeshData, MeshReadError> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    match ext.as_str() {
        "stl" => parse_stl(&std::fs::read(path)?).map_err(MeshReadError::Format),
        "obj" => parse_obj(&std::fs::read_to_string(path)?).map_err(MeshReadError::Format),
        "msh" => parse_msh(&std::fs::read(path)?).map_err(MeshReadError::Format),
        other => Err(MeshReadError::Format(format!(
            "unsupported mesh format `.{other}` (supported: .stl, .obj, .msh)"
        ))),
    }
}

/// Parses MuJoCo's binary MSH format (`mjCMesh::LoadMSH`): four little-endian `i32` counts `nvertex`, `nnormal`,
/// `ntexcoord`, `nface`, then `3·nvertex` `f32` positions, `3·nnormal` normals and `2·ntexcoord` texture
/// coordinates (skipped), and `3·nface` `i32` vertex indices. As MuJoCo: at least 4 vertices, `nnormal` and
/// `ntexcoord` 0 or `nvertex`, the file exactly that long, every coordinate finite; `nface` may be 0 (the hull of
/// the points). Indices out of range are an error.
pub fn parse_msh(bytes: &[u8]) -> Result<MeshData, String> {
    let word = |i: usize| -> [u8; 4] { [bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]] };
    if bytes.len() < 16 {
        return Err(format!("an MSH file starts with four 32-bit counts ({} bytes)", bytes.len()));
    }
    let [nv, nn, nt, nf] = [0, 1, 2, 3].map(|i| i64::from(i32::from_le_bytes(word(i))));
    if nv < 4 || nf < 0 || nn < 0 || nt < 0 || (nn > 0 && nn != nv) || (nt > 0 && nt != nv) {
        return Err(format!(
            "invalid MSH counts: {nv} vertices (at least 4), {nn} normals and {nt} texture coordinates (0 or one \
             per vertex), {nf} faces"
        ));
    }
    let words = 4 + 3 * nv + 3 * nn + 2 * nt + 3 * nf;
    if words.checked_mul(4) != Some(bytes.len() as i64) {
        return Err(format!("an MSH file of these counts has {} bytes, this one {}", 4 * words, bytes.len()));
    }
    let (nv, faces) = (nv as usize, (4 + 3 * nv + 3 * nn + 2 * nt) as usize);
    let mut welder = Welder::default();
    let mut index = Vec::with_capacity(nv);
    for v in 0..nv {
        let p = DVec3::from_array([0, 1, 2].map(|k| f64::from(f32::from_le_bytes(word(4 + 3 * v + k)))));
        if !p.is_finite() {
            return Err(format!("vertex {v} is not finite"));
        }
        index.push(welder.index(p));
    }
    for f in 0..nf as usize {
        let mut tri = [0u32; 3];
        for (k, slot) in tri.iter_mut().enumerate() {
            let i = i32::from_le_bytes(word(faces + 3 * f + k));
            *slot = *usize::try_from(i)
                .ok()
                .and_then(|i| index.get(i))
                .ok_or_else(|| format!("face {f} names vertex {i} of {nv}"))?;
        }
        welder.triangle(tri);
    }
    Ok(welder.mesh)
}

/// Parses STL bytes, binary or ASCII.
///
/// A file whose size is exactly `84 + 50 n` for the triangle count `n` in its header is binary (some binary files
/// start with `solid` too); otherwise a file starting with `solid` is ASCII.
pub fn parse_stl(bytes: &[u8]) -> Result<MeshData, String> {
    if bytes.len() >= 84 {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        if n.checked_mul(50).and_then(|b| b.checked_add(84)) == Some(bytes.len()) {
            return Ok(parse_stl_binary(&bytes[84..], n));
        }
    }
    let text =
        std::str::from_utf8(bytes).map_err(|_| "not a binary STL (wrong size) nor ASCII text".to_string())?;
    if !text.trim_start().starts_with("solid") {
        return Err("not a binary STL (size does not match the triangle count) nor an ASCII STL".into());
    }
    parse_stl_ascii(text)
}

fn parse_stl_binary(body: &[u8], n: usize) -> MeshData {
    let mut welder = Welder::default();
    for t in 0..n {
        let rec = &body[t * 50..t * 50 + 50];
        let mut tri = [0u32; 3];
        for (k, slot) in tri.iter_mut().enumerate() {
            let f = |i: usize| {
                let o = 12 + k * 12 + i * 4;
                f32::from_le_bytes([rec[o], rec[o + 1], rec[o + 2], rec[o + 3]]) as f64
            };
            *slot = welder.index(DVec3::new(f(0), f(1), f(2)));
        }
        welder.triangle(tri);
    }
    welder.mesh
}

fn parse_stl_ascii(text: &str) -> Result<MeshData, String> {
    let mut welder = Welder::default();
    let mut pending = Vec::with_capacity(3);
    for (lineno, line) in text.lines().enumerate() {
        let mut tokens = line.split_ascii_whitespace();
        if tokens.next() != Some("vertex") {
            continue;
        }
        let coords: Vec<&str> = tokens.collect();
        let v = parse_xyz(&coords)
            .ok_or_else(|| format!("line {}: `vertex` needs three finite numbers", lineno + 1))?;
        pending.push(welder.index(v));
        if pending.len() == 3 {
            welder.triangle([pending[0], pending[1], pending[2]]);
            pending.clear();
        }
    }
    if !pending.is_empty() {
        return Err("the number of vertices is not a multiple of 3".into());
    }
    Ok(welder.mesh)
}

/// Parses Wavefront OBJ text (`v` and `f` statements).
pub fn parse_obj(text: &str) -> Result<MeshData, String> {
    let mut welder = Welder::default();
    // OBJ references count the file's `v` lines; `welded[i]` is the welded index of the i-th.
    let mut welded: Vec<u32> = Vec::new();
    for (lineno, line) in text.lines().enumerate() {
        let at = |what: &str| format!("line {}: {what}", lineno + 1);
        let line = line.split('#').next().unwrap_or("");
        let mut tokens = line.split_ascii_whitespace();
        let Some(keyword) = tokens.next() else {
            continue;
        };
        let rest: Vec<&str> = tokens.collect();
        match keyword {
            "v" => {
                let v = parse_xyz(rest.get(..3).unwrap_or(&[]))
                    .ok_or_else(|| at("`v` needs three finite numbers"))?;
                welded.push(welder.index(v));
            }
            "f" => {
                if rest.len() < 3 {
                    return Err(at("a face needs at least three vertices"));
                }
                let n = welded.len();
                let idx = rest
                    .iter()
                    .map(|t| {
                        obj_index(t, n)
                            .map(|i| welded[i as usize])
                            .ok_or_else(|| at(&format!("bad vertex reference `{t}`")))
                    })
                    .collect::<Result<Vec<u32>, String>>()?;
                for k in 1..idx.len() - 1 {
                    welder.triangle([idx[0], idx[k], idx[k + 1]]);
                }
            }
            "vn" | "vt" | "vp" | "g" | "o" | "s" | "usemtl" | "mtllib" | "l" | "p" => {}
            other => return Err(at(&format!("unsupported OBJ statement `{other}`"))),
        }
    }
    Ok(welder.mesh)
}

/// A 1-based (or negative, relative) OBJ vertex reference `i`, `i/t`, `i//n` or `i/t/n` as a 0-based index.
fn obj_index(token: &str, n: usize) -> Option<u32> {
    let i: i64 = token.split('/').next()?.parse().ok()?;
    let n = n as i64;
    let k = if i > 0 { i - 1 } else { n + i };
    (0..n).contains(&k).then(|| u32::try_from(k).ok()).flatten()
}

fn parse_xyz(t: &[&str]) -> Option<DVec3> {
    if t.len() != 3 {
        return None;
    }
    let mut v = [0.0; 3];
    for (slot, s) in v.iter_mut().zip(t) {
        *slot = s.parse::<f64>().ok().filter(|x| x.is_finite())?;
    }
    Some(DVec3::from_array(v))
}

/// Merges bit-for-bit equal vertices and drops the triangles that collapse.
#[derive(Default)]
struct Welder {
    mesh: MeshData,
    seen: HashMap<[u64; 3], u32>,
}

impl Welder {
    fn index(&mut self, v: DVec3) -> u32 {
        let key = [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
        let next = self.mesh.vertices.len() as u32;
        *self.seen.entry(key).or_insert_with(|| {
            self.mesh.vertices.push(v);
            next
        })
    }

    /// Adds a triangle of welded indices unless two of its corners are the same vertex.
    fn triangle(&mut self, [a, b, c]: [u32; 3]) {
        if a != b && b != c && a != c {
            self.mesh.triangles.push([a, b, c]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetra_binary() -> Vec<u8> {
        let v = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let tris = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
        let mut b = vec![0u8; 80];
        b.extend_from_slice(&(tris.len() as u32).to_le_bytes());
        for t in tris {
            b.extend_from_slice(&[0u8; 12]);
            for i in t {
                for c in v[i] {
                    b.extend_from_slice(&c.to_le_bytes());
                }
            }
            b.extend_from_slice(&[0u8; 2]);
        }
        b
    }

    /// An MSH tetrahedron with normals (skipped) and a repeated vertex (welded), as MuJoCo's `LoadMSH` reads it.
    fn tetra_msh() -> Vec<u8> {
        let v = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]];
        let faces = [[0i32, 2, 1], [0, 4, 3], [0, 3, 2], [1, 2, 3]];
        let mut b = Vec::new();
        for n in [5i32, 5, 0, 4] {
            b.extend_from_slice(&n.to_le_bytes());
        }
        for p in v.iter().chain(&v) {
            p.iter().for_each(|c| b.extend_from_slice(&c.to_le_bytes()));
        }
        faces.iter().flatten().for_each(|i| b.extend_from_slice(&i.to_le_bytes()));
        b
    }

    #[test]
    fn msh_is_read_and_welded() {
        let m = parse_msh(&tetra_msh()).unwrap();
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.vertices[3], DVec3::Z);
        assert_eq!(m.triangles, [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]);
    }

    #[test]
    fn msh_errors_name_what_is_wrong() {
        let good = tetra_msh();
        assert!(parse_msh(&good[..good.len() - 4]).unwrap_err().contains("bytes"));
        let mut few = good.clone();
        few[..4].copy_from_slice(&3i32.to_le_bytes());
        assert!(parse_msh(&few).unwrap_err().contains("at least 4"));
        let mut far = good.clone();
        let last = far.len() - 4;
        far[last..].copy_from_slice(&9i32.to_le_bytes());
        assert!(parse_msh(&far).unwrap_err().contains("face 3 names vertex 9 of 5"));
        let mut nan = good;
        nan[16..20].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(parse_msh(&nan).unwrap_err().contains("vertex 0 is not finite"));
        assert!(parse_msh(&[0u8; 8]).unwrap_err().contains("four 32-bit counts"));
    }

    #[test]
    fn binary_stl_is_welded() {
        let m = parse_stl(&tetra_binary()).unwrap();
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.triangles.len(), 4);
    }

    #[test]
    fn ascii_stl() {
        let text = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n\
                    endfacet\nendsolid t\n";
        let m = parse_stl(text.as_bytes()).unwrap();
        assert_eq!(m.vertices.len(), 3);
        assert_eq!(m.triangles, vec![[0, 1, 2]]);
        assert!(parse_stl(b"solid t\nvertex 0 0 0\n").is_err());
        assert!(parse_stl(b"garbage").is_err());
    }

    #[test]
    fn obj_faces_and_references() {
        let text =
            "# quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 4//1\nf -4 -3 -2\n";
        let m = parse_obj(text).unwrap();
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3], [0, 1, 2]]);
        assert!(parse_obj("v 0 0\n").is_err());
        let repeated = parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 0 0\nf 1 2 3\nf 1 4 3\nf 2 4 3\n").unwrap();
        assert_eq!(repeated.vertices.len(), 3);
        assert_eq!(repeated.triangles, vec![[0, 1, 2], [0, 1, 2]], "welded, the collapsed face dropped");
        assert!(parse_obj("v 0 0 0\nf 1 2 3\n").is_err());
        assert!(parse_obj("curv 0 1\n").is_err());
    }
}
