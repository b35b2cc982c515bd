//! `<hfield>` assets: an elevation grid of `nrow × ncol` samples over `size = (half_x, half_y, elevation, base)`.
//!
//! The samples come from inline `elevation` (row-major, written like an image: the first row is the `+y` edge, so
//! rows are reversed, as MuJoCo 4.0 does), a PNG file (grey levels; the image's top row is the `+y` edge, reversed
//! likewise), or MuJoCo's binary format (`int32 nrow, int32 ncol, float32 data[nrow·ncol]`, little-endian, row 0 at
//! `y = −half_y`, kept as it is). As in MuJoCo, the samples are stored in
//! single precision and normalised to `[0, 1]` (subtract the minimum, divide by the range when it exceeds `f32`'s
//! epsilon), and a sample's height is `data · elevation` metres.

use std::path::Path;
use std::sync::Arc;

use signorini_geometry::HeightField;
use signorini_xml::Element;
use signorini_xml::attrs::Attrs;

use crate::compiler::Compiler;
use crate::error::{MjcfError, Result, XmlError};

/// A compiled height-field asset.
#[derive(Debug, Clone)]
pub struct HFieldAsset {
    /// Name (from `name`, else the file name without extension).
    pub name: String,
    /// The terrain, in the frame of the geoms that use it.
    pub field: Arc<HeightField>,
}

const ATTRIBUTES: &[&str] = &["name", "content_type", "file", "nrow", "ncol", "elevation", "size"];

/// Reads one `<hfield>`.
pub fn read_hfield(e: &Element, compiler: &Compiler, model_dir: &Path) -> Result<HFieldAsset> {
    e.check_attributes(ATTRIBUTES)?;
    if let Some(c) = e.children.first() {
        return Err(e.unknown_child(c).into());
    }
    let a = Attrs::own(e);
    let size = a.array::<4>("size")?.ok_or_else(|| a.missing("size", "a height field needs its 4 sizes"))?;
    if let Some(k) = size.iter().position(|s| !(*s > 0.0 && s.is_finite())) {
        return Err(a.invalid_named("size", format!("size[{k}] = {} is not positive", size[k])).into());
    }
    let (name, nrow, ncol, data) = match a.get("file") {
        Some(f) => {
            if a.has("nrow") || a.has("ncol") || a.has("elevation") {
                return Err(a.invalid_named("file", "height field specified from file and manually").into());
            }
            let path = compiler.asset_path(model_dir, &f.value);
            let bytes = std::fs::read(&path).map_err(|source| XmlError::Io {
                file: path.clone(),
                at: Some(f.at.clone()),
                source,
            })?;
            let png = match a.str("content_type") {
                Some("image/png") => true,
                Some("image/vnd.mujoco.hfield") => false,
                Some(other) => {
                    return Err(a
                        .invalid_named("content_type", format!("unsupported content type `{other}`"))
                        .into());
                }
                None => {
                    path.extension().and_then(|x| x.to_str()).is_some_and(|x| x.eq_ignore_ascii_case("png"))
                }
            };
            let parsed = if png { read_png(&bytes) } else { read_binary(&bytes) };
            let (nrow, ncol, data) = parsed.map_err(|reason| MjcfError::MeshFile {
                at: f.at.clone(),
                element: "hfield".into(),
                file: path.clone(),
                reason,
            })?;
            let stem = Path::new(&f.value).file_stem().and_then(|s| s.to_str()).unwrap_or(&f.value);
            (a.str("name").unwrap_or(stem).to_string(), nrow, ncol, data)
        }
        None => {
            let name = a
                .str("name")
                .ok_or_else(|| a.missing("name", "a height field without `file` needs a name"))?;
            let count = |attr: &str| -> Result<usize> {
                let n = a
                    .int(attr)?
                    .ok_or_else(|| a.missing(attr, "an inline height field needs nrow and ncol"))?;
                usize::try_from(n)
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| a.invalid_named(attr, format!("{n} is not a positive count")).into())
            };
            let (nrow, ncol) = (count("nrow")?, count("ncol")?);
            // Without `elevation` the field is flat (MuJoCo: the heights are then set at run time).
            let values = a.numbers("elevation")?.unwrap_or_else(|| vec![0.0; nrow * ncol]);
            if values.len() != nrow * ncol {
                return Err(a
                    .invalid_named(
                        "elevation",
                        format!("{} values for nrow·ncol = {}", values.len(), nrow * ncol),
                    )
                    .into());
            }
            // The first written row is the +y edge.
            let rows: Vec<f32> = values.chunks(ncol).rev().flatten().map(|&v| v as f32).collect();
            (name.to_string(), nrow, ncol, rows)
        }
    };
    let heights = normalised(&data).into_iter().map(|d| f64::from(d) * size[2]).collect();
    let field = HeightField::new(nrow, ncol, heights, size[0], size[1], size[3]).map_err(|source| {
        MjcfError::Geometry { at: e.at.clone(), element: "hfield".into(), attribute: None, source }
    })?;
    Ok(HFieldAsset { name, field: Arc::new(field) })
}

/// MuJoCo's normalisation to `[0, 1]`, in single precision.
fn normalised(data: &[f32]) -> Vec<f32> {
    let (lo, hi) = data.iter().fold((1e10f32, -1e10f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    data.iter()
        .map(|&v| {
            let d = v - lo;
            if hi - lo > f32::EPSILON { d / (hi - lo) } else { d }
        })
        .collect()
}

/// MuJoCo's binary height field: two little-endian `int32` (rows, columns), then `rows·cols` `float32`.
fn read_binary(bytes: &[u8]) -> std::result::Result<(usize, usize, Vec<f32>), String> {
    let int = |k: usize| bytes.get(4 * k..4 * k + 4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let (Some(nrow), Some(ncol)) = (int(0), int(1)) else {
        return Err("missing the 8-byte header (rows, columns)".into());
    };
    if nrow < 1 || ncol < 1 {
        return Err(format!("non-positive dimensions {nrow} × {ncol}"));
    }
    let n = nrow as usize * ncol as usize;
    if bytes.len() != 8 + 4 * n {
        return Err(format!("{} bytes, expected {} for {nrow} × {ncol}", bytes.len(), 8 + 4 * n));
    }
    let data = bytes[8..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    Ok((nrow as usize, ncol as usize, data))
}

/// A PNG's grey levels, rows reversed (the image's top row is `+y`). Grey and grey+alpha images of 8 or 16 bits
/// are read (16-bit samples keep their high byte, as MuJoCo's 8-bit grey conversion does); colour images only when
/// every pixel is grey.
fn read_png(bytes: &[u8]) -> std::result::Result<(usize, usize, Vec<f32>), String> {
    let mut decoder = png::Decoder::new(bytes);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| format!("not a readable PNG: {e}"))?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(|e| format!("not a readable PNG: {e}"))?;
    let (w, h) = (info.width as usize, info.height as usize);
    let channels = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err("an indexed PNG after expansion".into()),
    };
    let pixels = &buf[..w * h * channels];
    let mut data = Vec::with_capacity(w * h);
    for r in 0..h {
        let row = &pixels[(h - 1 - r) * w * channels..(h - r) * w * channels];
        for px in row.chunks_exact(channels) {
            if channels >= 3 && !(px[0] == px[1] && px[1] == px[2]) {
                return Err("a colour image; height fields are read from grey levels".into());
            }
            data.push(f32::from(px[0]));
        }
    }
    Ok((h, w, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_like_mujoco() {
        assert_eq!(normalised(&[2.0, 4.0, 3.0]), vec![0.0, 1.0, 0.5]);
        assert_eq!(normalised(&[1.5, 1.5]), vec![0.0, 0.0]);
    }

    #[test]
    fn binary_format() {
        let mut bytes = Vec::new();
        bytes.extend(2i32.to_le_bytes());
        bytes.extend(3i32.to_le_bytes());
        for v in [0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0] {
            bytes.extend(v.to_le_bytes());
        }
        let (r, c, d) = read_binary(&bytes).unwrap();
        assert_eq!((r, c, d[5]), (2, 3, 5.0));
        assert!(read_binary(&bytes[..20]).unwrap_err().contains("expected 32"));
        assert!(read_binary(&bytes[..4]).is_err());
    }

    #[test]
    fn png_rows_are_reversed() {
        // A 2×3 grey image: top row 10 20 30, bottom row 40 50 60.
        let mut bytes = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut bytes, 3, 2);
            enc.set_color(png::ColorType::Grayscale);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().unwrap();
            w.write_image_data(&[10, 20, 30, 40, 50, 60]).unwrap();
        }
        let (r, c, d) = read_png(&bytes).unwrap();
        assert_eq!((r, c), (2, 3));
        assert_eq!(d, vec![40.0, 50.0, 60.0, 10.0, 20.0, 30.0]);
        assert!(read_png(b"not a png").is_err());
    }
}
