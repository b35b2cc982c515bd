//! MuJoCo's shared frames and contact order in MuJoCo-compatible mode, against MuJoCo 4.0.1's own numbers.
//!
//! The scene: a box whose frame is its body's inertial frame to 10⁻¹⁰ (a 16 µg sphere beside it moves the centre of
//! mass by 7·10⁻¹¹ m), so MuJoCo poses the box *as* the inertial frame (`geom_sameframe = mjSAMEFRAME_INERTIA`), and
//! a tilted capsule that comes to touch the floor with both ends. Reference numbers from
//! `mujoco.MjModel.from_xml_string(XML)`: `geom_xpos`/`geom_xmat` of the box after `mj_forward`, and `contact.pos`
//! of the capsule–floor contacts after 402 `mj_step`s (the first step with two).

use std::path::Path;

use signorini_mjcf::load_scene_str;
use signorini_sim::Dialect;

const XML: &str = r#"<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="link" pos="0 0 0.3">
      <freejoint/>
      <geom name="block" type="box" size="0.02 0.03 0.05" pos="0.01 0 0" quat="0 0.39441 0 0.91894"/>
      <geom name="tag" type="sphere" size="0.002" pos="0.011 0.003 0.001" density="0.5"/>
    </body>
    <body name="tilted" pos="0.5 0 0.03" euler="0.3 0.2 0.3">
      <freejoint/>
      <geom name="bar" type="capsule" size="0.02 0.1"/>
    </body>
  </worldbody>
</mujoco>"#;

/// The box is posed as its body's inertial frame in MuJoCo's dialect (MuJoCo's position to 10⁻¹⁵, its axes to
/// 4·10⁻¹⁵; posed as written, the box would be 2·10⁻¹⁰ m off), as written in the native one.
#[test]
fn a_geom_within_1e_6_of_the_inertial_frame_is_posed_as_that_frame() {
    let mut mujoco = load_scene_str(XML, Path::new("."), Dialect::Mujoco, &[]).unwrap();
    mujoco.step().unwrap();
    let d = &mujoco.data().multibody;
    let (pos, z) = (d.geom_xpos[1], d.geom_xmat[1].z_axis);
    let mj_pos = [0.010000000069813166, 2.0943949561768448e-10, 0.30000000006981314];
    let mj_z = [0.7248710226001315, 5.551803932110955e-10, 0.6888846061530538];
    for k in 0..3 {
        assert!((pos[k] - mj_pos[k]).abs() < 1e-15, "geom_xpos {pos} vs MuJoCo's {mj_pos:?}");
        assert!((z[k] - mj_z[k]).abs() < 1e-14, "geom z axis {z} vs MuJoCo's {mj_z:?}");
    }
    let mut native = load_scene_str(XML, Path::new("."), Dialect::Native, &[]).unwrap();
    native.step().unwrap();
    let d = &native.data().multibody;
    assert_eq!(d.geom_xpos[1].to_array(), [0.01, 0.0, 0.3], "native mode keeps the written pose");
}

/// The capsule's two contacts with the floor come in the order MuJoCo's `mjc_PlaneCapsule` makes them (the +z end
/// first), not by their frame key, and at MuJoCo's positions.
#[test]
fn the_contacts_of_a_pair_keep_mujocos_order() {
    let mut scene = load_scene_str(XML, Path::new("."), Dialect::Mujoco, &[]).unwrap();
    scene.step_n(402).unwrap();
    let c = scene.contacts();
    let ours: Vec<_> = (0..c.geom_a.len())
        .filter(|&i| (c.geom_a[i], c.geom_b[i]) == (0, 3))
        .map(|i| c.position[i])
        .collect();
    let mujoco = [
        [0.6312969120799093, -0.19694366832272087, -0.000627032843748352],
        [0.5203582161056507, -0.030537060596771817, -2.5650961508468656e-05],
    ];
    assert_eq!(ours.len(), 2, "capsule–floor contacts: {ours:?}");
    for (p, q) in ours.iter().zip(mujoco) {
        for k in 0..3 {
            assert!((p[k] - q[k]).abs() < 1e-9, "contacts {ours:?} vs MuJoCo's {mujoco:?}");
        }
    }
}

/// A mesh geom within a pair's margin (`tests/data/mesh_centre.xml`: a non-convex L-shaped prism, whose centre of
/// mass MuJoCo's default `legacy` inertia puts 1.5 cm from its hull's centroid, comes within the 6 mm summed margin
/// of a cylinder at step 58). MuJoCo 4.0.1's `mjc_ccd` starts GJK from the geoms' centres (a mesh's is its centre of
/// mass, `geom_xpos`) and runs it on the geoms without their margins, inflating the witnesses by half of each margin
/// after (read off `mjc_ccd`'s iterates with `scripts/mujoco_ccd_probe.py`: its second iterate is the margin-free
/// one); the contact then equals MuJoCo's to rounding. From the hull's centroid, with the margins in the supports,
/// it was 3e-7 m off in position (GJK stops at its 1e-6 tolerance on another iterate).
#[test]
fn a_mesh_within_a_margin_meets_a_cylinder_where_mujoco_finds_it() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mesh_centre.xml");
    let mut sim = signorini_mjcf::load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    sim.step_n(58).unwrap();
    let c = sim.contacts();
    assert_eq!(c.len(), 1, "MuJoCo makes one contact at step 58");
    // MuJoCo 4.0.1 (`mj_step` × 57, `mj_forward`): `contact.pos`, `frame[0:3]` (geom 1 → geom 2: cylinder to mesh;
    // ours runs from B to A, the other way) and `dist` (positive: the surfaces are 5.8 mm apart, within the margin).
    let pos = glam::DVec3::new(-0.0018402996699891875, -0.0764040143252726, 0.10286725731176248);
    let normal = glam::DVec3::new(-0.03479739122661653, -4.891292911551938e-12, 0.9993943873985994);
    let dist = 0.005798555729094099;
    assert!((c.position[0] - pos).length() < 1e-14, "position {} against MuJoCo's {pos}", c.position[0]);
    assert!((c.normal[0].abs() - normal.abs()).length() < 1e-13, "normal {} against ±{normal}", c.normal[0]);
    assert!(
        (-c.penetration[0] - dist).abs() < 1e-14,
        "distance {} against MuJoCo's {dist}",
        -c.penetration[0]
    );
}
