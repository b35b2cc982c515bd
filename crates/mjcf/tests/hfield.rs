//! `<hfield>` assets and `hfield` geoms: inline, PNG and MuJoCo's binary format give the same terrain; bad input is a
//! typed error naming the culprit.

use std::path::Path;

use signorini_geometry::Shape;
use signorini_mjcf::load_scene_str;
use signorini_sim::Dialect;

fn scene(asset: &str, dir: &Path) -> Result<signorini_sim::Scene, String> {
    let xml = format!(
        r#"<mujoco><asset>{asset}</asset><worldbody><geom type="hfield" hfield="h" pos="0 0 -0.1"/>
        <body pos="0.1 0.1 0.3"><freejoint/><geom type="sphere" size="0.05"/></body></worldbody></mujoco>"#
    );
    load_scene_str(&xml, dir, Dialect::Mujoco, &[]).map_err(|e| e.to_string())
}

fn heights(s: &signorini_sim::Scene) -> Vec<f64> {
    let shape = &s.model().multibody.collision.geoms().shape[0];
    match shape {
        Shape::HeightField(h) => h.heights().to_vec(),
        other => panic!("not a height field: {other:?}"),
    }
}

/// The three sources of the same 2×3 grid give the same heights: normalised to [0, 1] and scaled by size[2]; a PNG's
/// top row is the +y edge.
#[test]
fn inline_png_and_binary_agree() {
    let dir = std::env::temp_dir().join(format!("signorini-hfield-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Rows from y = −half_y: 0 50 100, then 150 200 250. Inline rows are written from +y (MuJoCo 4.0 reverses them).
    let inline =
        r#"<hfield name="h" nrow="2" ncol="3" size="1 0.5 0.2 0.1" elevation="150 200 250 0 50 100"/>"#;
    let expected: Vec<f64> = [0.0f32, 0.2, 0.4, 0.6, 0.8, 1.0].iter().map(|&v| f64::from(v) * 0.2).collect();
    let a = heights(&scene(inline, &dir).unwrap());
    for (x, y) in a.iter().zip(&expected) {
        assert!((x - y).abs() < 1e-7, "{a:?}");
    }
    let mut bin = Vec::new();
    bin.extend(2i32.to_le_bytes());
    bin.extend(3i32.to_le_bytes());
    for v in [0.0f32, 50.0, 100.0, 150.0, 200.0, 250.0] {
        bin.extend(v.to_le_bytes());
    }
    std::fs::write(dir.join("h.bin"), &bin).unwrap();
    let b = heights(&scene(r#"<hfield name="h" file="h.bin" size="1 0.5 0.2 0.1"/>"#, &dir).unwrap());
    assert_eq!(a, b);
    let mut png_bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png_bytes, 3, 2);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Eight);
        // Image rows top to bottom: the +y row first.
        enc.write_header().unwrap().write_image_data(&[150, 200, 250, 0, 50, 100]).unwrap();
    }
    std::fs::write(dir.join("h.png"), &png_bytes).unwrap();
    let c = heights(&scene(r#"<hfield name="h" file="h.png" size="1 0.5 0.2 0.1"/>"#, &dir).unwrap());
    assert_eq!(a, c);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_height_fields_are_errors_naming_the_culprit() {
    let dir = Path::new(".");
    let cases = [
        (
            r#"<hfield name="h" nrow="2" ncol="2" size="1 1 0.1 0.1" elevation="0 1 2"/>"#,
            "3 values for nrow·ncol = 4",
        ),
        (r#"<hfield name="h" nrow="2" ncol="2" size="1 1 0 0.1" elevation="0 1 2 3"/>"#, "size[2]"),
        (r#"<hfield name="h" nrow="2" ncol="2" elevation="0 1 2 3"/>"#, "size"),
        (r#"<hfield name="h" file="missing.png" size="1 1 0.1 0.1"/>"#, "missing.png"),
        (r#"<hfield name="h" file="x.png" nrow="2" size="1 1 0.1 0.1"/>"#, "from file and manually"),
        (r#"<hfield name="other" nrow="2" ncol="2" size="1 1 0.1 0.1" elevation="0 1 2 3"/>"#, "`h`"),
    ];
    for (asset, needle) in cases {
        let err = scene(asset, dir).err().unwrap_or_else(|| panic!("{asset} loaded"));
        assert!(err.contains(needle), "{asset}: {err}");
    }
    // A height field in a moving body.
    let xml = r#"<mujoco><asset><hfield name="h" nrow="2" ncol="2" size="1 1 0.1 0.1" elevation="0 1 2 3"/></asset>
        <worldbody><body><freejoint/><geom type="hfield" hfield="h"/><geom type="sphere" size="0.1"/></body></worldbody></mujoco>"#;
    let err = load_scene_str(xml, dir, Dialect::Native, &[]).err().unwrap().to_string();
    assert!(err.contains("height field"), "{err}");
}
