//! The MJCF subset feature by feature: default classes, orientations, inertia compilation, meshes, actuators,
//! equalities, contacts, options, includes, sensors.

use signorini_model::Transmission;
use std::f64::consts::{FRAC_PI_2, PI};
use std::path::{Path, PathBuf};

use glam::{DMat3, DQuat, DVec3};
use signorini_geometry::Shape;
use signorini_mjcf::{LoadedMjcf, load_mjcf, load_mjcf_str};
use signorini_model::spec::{EqualitySpec, JointKind};
use signorini_sim::{IntegratorKind, SolverKind};

fn load(xml: &str) -> LoadedMjcf {
    load_mjcf_str(xml, Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

fn body<'a>(m: &'a LoadedMjcf, name: &str) -> &'a signorini_model::spec::BodySpec {
    m.spec.bodies.iter().find(|b| b.name == name).unwrap()
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("signorini-mjcf-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn default_classes_inherit_and_childclass_applies() {
    let m = load(
        r#"<mujoco>
  <default>
    <geom size="0.1 0.2 0.3" friction="0.5"/>
    <joint damping="1"/>
    <default class="arm">
      <joint damping="3" range="-90 90"/>
      <geom type="capsule" size="0.05"/>
      <default class="tip"><geom type="sphere"/></default>
    </default>
  </default>
  <worldbody>
    <body name="b" childclass="arm">
      <joint name="j"/>
      <geom name="g" fromto="0 0 0 0 0 0.4"/>
      <geom name="t" class="tip" pos="0 0 0.4"/>
      <body name="c">
        <joint name="k" class="main"/>
        <geom name="m" type="box" size="0.5"/>
      </body>
    </body>
  </worldbody>
</mujoco>"#,
    );
    let b = body(&m, "b");
    let j = &b.joints[0];
    assert_eq!(j.damping, 3.0);
    let r = j.range.unwrap();
    assert!((r[0] + FRAC_PI_2).abs() < 1e-15 && (r[1] - FRAC_PI_2).abs() < 1e-15, "degrees by default");
    let Shape::Capsule(c) = &b.geoms[0].shape else { panic!() };
    assert_eq!((c.radius(), c.half_length()), (0.05, 0.2));
    assert_eq!(b.geoms[0].friction, [0.5, 0.005, 0.0001]);
    assert_eq!(b.geoms[0].pos, DVec3::new(0.0, 0.0, 0.2));
    let Shape::Sphere(s) = &b.geoms[1].shape else { panic!() };
    assert_eq!(s.radius(), 0.05);
    let c = body(&m, "c");
    assert_eq!((c.joints[0].damping, c.joints[0].range), (1.0, None));
    let Shape::Box(bx) = &c.geoms[0].shape else { panic!() };
    assert_eq!(bx.half_extents(), DVec3::new(0.5, 0.2, 0.3), "partial size over the class's");
}

#[test]
fn orientations() {
    let m = load(
        r#"<mujoco>
  <compiler eulerseq="XYZ"/>
  <worldbody>
    <body name="aa" axisangle="0 0 1 90"/>
    <body name="xy" xyaxes="0 1 0 -1 0 0"/>
    <body name="z" zaxis="1 0 0"/>
    <body name="e" euler="30 0 90"/>
    <body name="q" quat="2 0 0 0"/>
  </worldbody>
</mujoco>"#,
    );
    let rz = DQuat::from_rotation_z(FRAC_PI_2);
    assert!(body(&m, "aa").quat.abs_diff_eq(rz, 1e-15));
    assert!(body(&m, "xy").quat.abs_diff_eq(rz, 1e-15));
    assert!((body(&m, "z").quat * DVec3::Z - DVec3::X).length() < 1e-15);
    let e = DQuat::from_rotation_z(FRAC_PI_2) * DQuat::from_rotation_x(PI / 6.0);
    assert!(body(&m, "e").quat.abs_diff_eq(e, 1e-15), "extrinsic XYZ");
    assert_eq!(body(&m, "q").quat, DQuat::IDENTITY);
}

#[test]
fn multi_geom_inertia_is_summed_and_diagonalised() {
    let m = load(
        r#"<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="two">
      <freejoint/>
      <geom type="sphere" size="0.1" pos="0.2 0 0"/>
      <geom type="sphere" size="0.1" pos="-0.2 0 0" mass="2"/>
    </body>
    <body name="tilted">
      <freejoint/>
      <geom type="box" size="0.1 0.3 0.2" euler="0.3 0.2 0.1"/>
      <geom type="capsule" size="0.05 0.1" pos="0.1 0.1 0" euler="1 0 0"/>
    </body>
  </worldbody>
</mujoco>"#,
    );
    let two = body(&m, "two").inertial;
    let m1 = 1000.0 * 4.0 / 3.0 * PI * 1e-3;
    assert!((two.mass - (m1 + 2.0)).abs() < 1e-12);
    let com = (m1 * 0.2 - 2.0 * 0.2) / (m1 + 2.0);
    assert!((two.pos - DVec3::new(com, 0.0, 0.0)).length() < 1e-15);
    let isph = |m: f64| 0.4 * m * 0.01;
    let iyy = isph(m1) + isph(2.0) + m1 * (0.2 - com).powi(2) + 2.0 * (0.2 + com).powi(2);
    assert!((two.inertia - DVec3::new(iyy, iyy, isph(m1) + isph(2.0))).abs().max_element() < 1e-14);
    assert_eq!(body(&m, "two").geoms[1].mass, 2.0);

    // A general body: the principal frame reproduces the parallel-axis sum.
    let b = body(&m, "tilted");
    let i = b.inertial;
    assert!(i.inertia.x >= i.inertia.y && i.inertia.y >= i.inertia.z);
    let r = DMat3::from_quat(i.quat);
    let tensor = r * DMat3::from_diagonal(i.inertia) * r.transpose();
    let mut sum = DMat3::ZERO;
    let mut mass = 0.0;
    let mut first = DVec3::ZERO;
    for g in &b.geoms {
        let p = signorini_geometry::MassProperties::from_mass(&g.shape, g.mass).unwrap();
        let rg = DMat3::from_quat(g.quat);
        sum += rg * p.inertia * rg.transpose();
        mass += g.mass;
        first += g.mass * g.pos;
    }
    let com = first / mass;
    for g in &b.geoms {
        let d = g.pos - com;
        sum += g.mass * (DMat3::from_diagonal(DVec3::splat(d.length_squared())) - outer(d));
    }
    assert!((i.pos - com).length() < 1e-15);
    for (x, y) in tensor.to_cols_array().iter().zip(sum.to_cols_array()) {
        assert!((x - y).abs() < 1e-14, "{tensor} vs {sum}");
    }
}

fn outer(d: DVec3) -> DMat3 {
    DMat3::from_cols(d * d.x, d * d.y, d * d.z)
}

#[test]
fn explicit_inertial_and_compiler_mass_options() {
    let m = load(
        r#"<mujoco>
  <worldbody>
    <body name="diag">
      <inertial pos="0 0 1" mass="2" diaginertia="1 2 3" euler="0 0 90"/>
      <geom size="0.1"/>
    </body>
    <body name="full">
      <inertial pos="0 0 0" mass="1" fullinertia="2 2 2 1 0 0"/>
    </body>
  </worldbody>
</mujoco>"#,
    );
    let d = body(&m, "diag");
    assert_eq!((d.inertial.mass, d.inertial.inertia), (2.0, DVec3::new(1.0, 2.0, 3.0)));
    assert!(d.inertial.quat.abs_diff_eq(DQuat::from_rotation_z(FRAC_PI_2), 1e-15));
    assert_eq!(d.geoms[0].mass, 0.0, "geoms do not contribute when <inertial> is given");
    let f = body(&m, "full").inertial;
    assert!((f.inertia - DVec3::new(3.0, 2.0, 1.0)).abs().max_element() < 1e-14);
    let r = DMat3::from_quat(f.quat);
    let back = r * DMat3::from_diagonal(f.inertia) * r.transpose();
    assert!((back.x_axis.y - 1.0).abs() < 1e-14);

    let m = load(
        r#"<mujoco>
  <compiler inertiafromgeom="true" settotalmass="10" boundinertia="0.5"/>
  <worldbody>
    <body name="a"><inertial pos="0 0 0" mass="100" diaginertia="1 1 1"/><geom type="box" size="0.1 0.1 0.1"/></body>
    <body name="b"><geom type="box" size="0.1 0.1 0.1"/></body>
  </worldbody>
</mujoco>"#,
    );
    assert_eq!(body(&m, "a").inertial.mass, 5.0);
    assert_eq!(body(&m, "b").inertial.mass, 5.0);
    let want = DVec3::splat(0.5 * 10.0 / 16.0);
    assert!((body(&m, "a").inertial.inertia - want).abs().max_element() < 1e-15);
}

fn cube_points() -> Vec<[f32; 3]> {
    let mut v = Vec::new();
    for i in 0..8 {
        v.push([(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32]);
    }
    v
}

const CUBE_TRIS: [[usize; 3]; 12] = [
    [0, 2, 1],
    [1, 2, 3],
    [4, 5, 6],
    [5, 7, 6],
    [0, 1, 4],
    [1, 5, 4],
    [2, 6, 3],
    [3, 6, 7],
    [0, 4, 2],
    [2, 4, 6],
    [1, 3, 5],
    [3, 7, 5],
];

#[test]
fn mesh_files_stl_and_obj() {
    let dir = temp_dir("mesh");
    std::fs::create_dir_all(dir.join("meshes")).unwrap();
    let v = cube_points();
    let mut stl = vec![0u8; 80];
    stl.extend_from_slice(&(CUBE_TRIS.len() as u32).to_le_bytes());
    for t in CUBE_TRIS {
        stl.extend_from_slice(&[0; 12]);
        for i in t {
            for c in v[i] {
                stl.extend_from_slice(&c.to_le_bytes());
            }
        }
        stl.extend_from_slice(&[0; 2]);
    }
    std::fs::write(dir.join("meshes/cube.stl"), stl).unwrap();
    let mut obj = String::from("# cube\n");
    for p in &v {
        obj += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for t in CUBE_TRIS {
        obj += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    std::fs::write(dir.join("meshes/Cube.OBJ"), obj).unwrap();
    std::fs::write(
        dir.join("scene.xml"),
        r#"<mujoco>
  <compiler meshdir="meshes"/>
  <asset>
    <mesh file="cube.stl" scale="0.1 0.1 0.1"/>
    <mesh name="obj" file="Cube.OBJ" scale="0.2 0.2 0.2" inertia="exact"/>
  </asset>
  <worldbody>
    <body name="s"><freejoint/><geom type="mesh" mesh="cube" pos="1 0 0"/></body>
    <body name="o"><freejoint/><geom mesh="obj" density="500"/></body>
  </worldbody>
</mujoco>"#,
    )
    .unwrap();
    let m = load_mjcf(&dir.join("scene.xml")).unwrap_or_else(|e| panic!("{e}"));
    let s = body(&m, "s");
    assert!(matches!(s.geoms[0].shape, Shape::ConvexMesh(_)));
    assert!((s.inertial.mass - 1.0).abs() < 1e-12);
    assert!((s.inertial.pos - DVec3::new(1.05, 0.05, 0.05)).length() < 1e-12);
    assert!((s.inertial.inertia - DVec3::splat(1.0 * 0.02 / 12.0)).abs().max_element() < 1e-12);
    let o = body(&m, "o");
    assert!((o.inertial.mass - 4.0).abs() < 1e-12);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn actuators() {
    let m = load(
        r#"<mujoco>
  <compiler angle="radian"/>
  <default>
    <motor gear="2"/>
    <default class="servo">
      <position kp="50" kv="5"/>
    </default>
  </default>
  <worldbody>
    <body><joint name="a" range="-1 3"/><geom size="0.1"/>
      <body><joint name="b" type="slide"/><geom size="0.1"/></body>
    </body>
  </worldbody>
  <actuator>
    <motor name="m" joint="a" ctrlrange="-1 1" forcerange="-5 5"/>
    <position name="p" class="servo" joint="b"/>
    <general name="g" class="servo" joint="b"/>
    <velocity name="v" joint="a" kv="3" ctrllimited="false"/>
    <general name="raw" joint="a" gainprm="7" biastype="affine" biasprm="1 2 -3"/>
    <position name="inh" joint="a" inheritrange="0.5"/>
  </actuator>
</mujoco>"#,
    );
    let a = &m.spec.actuators;
    assert_eq!(
        (a[0].transmission, a[0].gear, a[0].gain, a[0].bias),
        (Transmission::Joint(0), 2.0, 1.0, [0.0; 3])
    );
    assert_eq!((a[0].ctrlrange, a[0].forcerange), (Some([-1.0, 1.0]), Some([-5.0, 5.0])));
    assert_eq!((a[1].transmission, a[1].gain, a[1].bias), (Transmission::Joint(1), 50.0, [0.0, -50.0, -5.0]));
    assert_eq!((a[2].gain, a[2].bias), (50.0, [0.0, -50.0, -5.0]), "general inherits the class's servo");
    assert_eq!((a[3].gain, a[3].bias, a[3].ctrlrange, a[3].gear), (3.0, [0.0, 0.0, -3.0], None, 2.0));
    assert_eq!((a[4].gain, a[4].bias), (7.0, [1.0, 2.0, -3.0]));
    assert_eq!(a[5].ctrlrange, Some([0.0, 2.0]));
}

/// Actuator shortcuts under default classes that mix them, as MuJoCo 4.0.1 compiles them (its values for these
/// files, `mujoco.MjModel.from_xml_string`): a shortcut takes its gains, biases and `inheritrange` from a class
/// whose last actuator element is the same shortcut or `<general>`, and otherwise starts them afresh; `gear`,
/// `forcerange` and `ctrlrange` are inherited either way, and `inheritrange` acts on position-like actuators only.
/// robosuite's Spot writes `<position kp inheritrange>` and `<motor ctrlrange>` in one class: its motors were refused
/// ("ctrlrange and inheritrange cannot both be given").
#[test]
fn actuator_shortcuts_in_mixed_default_classes_read_as_mujoco_does() {
    let spot = r#"<position kp="500" kv="40" inheritrange="1" gear="3" forcerange="-9 9"/>"#;
    // (the class's elements, the actuator, MuJoCo's gain, bias[0..3], ctrlrange, gear)
    type Case = (String, &'static str, f64, [f64; 3], Option<[f64; 2]>, f64);
    let cases: [Case; 12] = [
        (spot.into(), "general", 500.0, [0.0, -500.0, -40.0], Some([-1.0, 3.0]), 3.0),
        (spot.into(), "motor", 1.0, [0.0; 3], None, 3.0),
        (
            format!(r#"{spot}<motor ctrlrange="-70 70" ctrllimited="true"/>"#),
            "motor",
            1.0,
            [0.0; 3],
            Some([-70.0, 70.0]),
            3.0,
        ),
        (
            format!(r#"{spot}<motor ctrlrange="-70 70" ctrllimited="true"/>"#),
            "position",
            1.0,
            [0.0, -1.0, 0.0],
            Some([-70.0, 70.0]),
            3.0,
        ),
        (format!("{spot}<motor/>"), "position", 1.0, [0.0, -1.0, 0.0], None, 3.0),
        (format!(r#"{spot}<velocity kv="7"/>"#), "general", 7.0, [0.0, 0.0, -7.0], None, 3.0),
        (format!(r#"{spot}<velocity kv="7"/>"#), "position", 1.0, [0.0, -1.0, 0.0], None, 3.0),
        (
            r#"<general gainprm="9" biastype="affine" biasprm="0 -9 -2"/>"#.into(),
            "position",
            9.0,
            [0.0, -9.0, -2.0],
            None,
            1.0,
        ),
        (
            r#"<general gainprm="9" biastype="affine" biasprm="0 -9 -2"/>"#.into(),
            "velocity",
            9.0,
            [0.0, 0.0, -9.0],
            None,
            1.0,
        ),
        (r#"<position kp="50" kv="4"/>"#.into(), "velocity", 1.0, [0.0, 0.0, -1.0], None, 1.0),
        (
            r#"<position kp="50" kv="4"/><general ctrlrange="-1 1"/>"#.into(),
            "velocity",
            50.0,
            [0.0, 0.0, -50.0],
            Some([-1.0, 1.0]),
            1.0,
        ),
        (
            r#"<position kp="50" kv="4"/><general ctrlrange="-1 1"/>"#.into(),
            "position",
            50.0,
            [0.0, -50.0, -4.0],
            Some([-1.0, 1.0]),
            1.0,
        ),
    ];
    for (class, element, gain, bias, ctrlrange, gear) in cases {
        let m = load(&format!(
            r#"<mujoco><compiler angle="radian"/><default><default class="c">{class}</default></default>
  <worldbody><body><joint name="a" range="-1 3"/><geom size="0.1"/></body></worldbody>
  <actuator><{element} class="c" joint="a"/></actuator></mujoco>"#
        ));
        let a = &m.spec.actuators[0];
        assert_eq!(
            (a.gain, a.bias, a.ctrlrange, a.gear),
            (gain, bias, ctrlrange, gear),
            "{class} then <{element}>"
        );
    }
}

/// `<mesh inertia="shell">` (robosuite's Sawyer and Baxter): the mass on the surface, `density` per unit area. A
/// cube of side 0.2 written as points (its hull's faces) weighs `1000 · 0.24` with the hollow cube's `5/18 m a²`; a
/// tetrahedron's mass, principal moments and centre of mass are MuJoCo 4.0.1's for the same file (its vertices in
/// single precision, as ours).
#[test]
fn shell_mesh_inertia_puts_the_mass_on_the_surface() {
    let cube = "-.1 -.1 -.1  .1 -.1 -.1  -.1 .1 -.1  .1 .1 -.1  -.1 -.1 .1  .1 -.1 .1  -.1 .1 .1  .1 .1 .1";
    let tetrahedron = r#"0 0 0  0.3 0 0  0 0.2 0  0.05 0.04 0.25" face="0 2 1  0 1 3  0 3 2  1 2 3"#;
    let cases = [
        (cube, 240.00000715255743, [2.666666825612389; 3], [0.0; 3]),
        (
            tetrahedron,
            142.38270245507113,
            [1.4095815009829764, 1.0427998258029396, 0.7535206007566747],
            [0.09524897140871115, 0.0594090308688899, 0.06577501976372782],
        ),
    ];
    for (vertices, mass, inertia, ipos) in cases {
        let xml = format!(
            r#"<mujoco><asset><mesh name="m" vertex="{vertices}" inertia="shell"/></asset>
  <worldbody><body><freejoint/><geom type="mesh" mesh="m" density="1000"/></body></worldbody></mujoco>"#
        );
        let scene = signorini_mjcf::load_scene_str(&xml, Path::new("."), signorini_sim::Dialect::Mujoco, &[])
            .unwrap_or_else(|e| panic!("{e}"));
        let m = &scene.model().multibody;
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1.0);
        assert!(close(m.body_mass[1], mass), "mass {} against MuJoCo's {mass}", m.body_mass[1]);
        let ours = m.body_inertia[1].to_array();
        assert!(ours.iter().zip(&inertia).all(|(&a, &b)| close(a, b)), "{ours:?} against {inertia:?}");
        let at = m.body_ipos[1].to_array();
        assert!(at.iter().zip(&ipos).all(|(&a, &b)| (a - b).abs() < 1e-14), "{at:?} against {ipos:?}");
    }
    assert!((2.666666825612389f64 - 5.0 / 18.0 * 240.0 * 0.04).abs() < 2e-7, "the hollow cube's 5/18 m a²");
}

/// A flat mesh has no convex hull. As MuJoCo, it loads for a geom that never collides (robosuite's Sawyer head), which
/// keeps the mesh's triangles as its shape and the shell's mass (MuJoCo's, `1000 · area` of a 0.3 × 0.2 plate), and a geom that
/// can collide or a `<pair>` naming one is an error naming the mesh.
#[test]
fn a_flat_mesh_serves_geoms_that_never_collide() {
    let xml = |geom: &str, contact: &str| {
        format!(
            r#"<mujoco><asset><mesh name="plate" inertia="shell" vertex="0 0 0  .3 0 0  .3 .2 0  0 .2 0" face="0 1 2  0 2 3"/></asset>
  <worldbody><geom name="floor" type="plane" size="1 1 .1"/>
    <body><freejoint/><geom name="p" type="mesh" mesh="plate" {geom}/></body></worldbody>{contact}</mujoco>"#
        )
    };
    let m = load(&xml(r#"contype="0" conaffinity="0""#, ""));
    let geom = &m.spec.bodies[1].geoms[0];
    assert!(matches!(&geom.shape, Shape::TriangleMesh(t) if t.triangles().len() == 2), "{:?}", geom.shape);
    // MuJoCo 4.0.1's mass for this file (single-precision vertices); the plate's `1000 · 0.06` to 1e-7.
    assert!(
        (geom.mass - 60.0000032782555).abs() < 1e-12 && (geom.mass - 60.0).abs() < 1e-5,
        "mass {}",
        geom.mass
    );
    for (geom, contact, attribute) in [
        ("", "", "mesh"),
        (r#"contype="0""#, "", "mesh"),
        (r#"contype="0" conaffinity="0""#, r#"<contact><pair geom1="floor" geom2="p"/></contact>"#, "geom2"),
    ] {
        let err = load_mjcf_str(&xml(geom, contact), Path::new(".")).unwrap_err().to_string();
        assert!(
            err.contains(attribute)
                && err.contains("mesh `plate` has no convex hull")
                && err.contains("coplanar"),
            "{err}"
        );
    }
}

#[test]
fn equalities_contacts_keyframes() {
    let m = load(
        r#"<mujoco>
  <worldbody>
    <body name="a"><freejoint/><geom name="ga" size="0.1" priority="1" friction="0.3 0.01 0.001"/></body>
    <body name="b"><joint name="h"/><joint name="s" type="slide"/>
      <geom name="gb" size="0.1" friction="0.9" solmix="3" margin="0.01"/>
      <geom name="gc" size="0.1" solref="0.04 2" friction="0.2"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="a" anchor="0 0 1"/>
    <weld name="w" body1="a" body2="b" relpose="1 0 0 0 0 0 1" active="false"/>
    <weld body1="b"/>
    <joint joint1="s" joint2="h" polycoef="0 2"/>
  </equality>
  <contact>
    <exclude body1="a" body2="b"/>
    <pair geom1="ga" geom2="gb"/>
    <pair geom1="gb" geom2="gc" condim="4" gap="0.1"/>
  </contact>
  <keyframe><key name="k" time="1" qpos="0 0 1 1 0 0 0 0.5 0.1"/></keyframe>
</mujoco>"#,
    );
    let s = &m.spec;
    assert!(matches!(s.equalities[0], EqualitySpec::Connect { body1: 1, body2: 0, .. }));
    let EqualitySpec::Weld { relpose, .. } = &s.equalities[1] else { panic!() };
    let (p, q) = relpose.unwrap();
    assert_eq!(p, DVec3::X);
    assert!(q.abs_diff_eq(DQuat::from_rotation_z(PI), 1e-15));
    assert!(matches!(s.equalities[2], EqualitySpec::Weld { relpose: None, body2: 0, .. }));
    let EqualitySpec::Joint { joint1, joint2, polycoef, .. } = &s.equalities[3] else { panic!() };
    assert_eq!((*joint1, *joint2, polycoef[1]), (2, Some(1), 2.0));
    assert_eq!(m.equality_active, vec![true, false, true, true]);
    assert_eq!(s.contact_excludes, vec![(1, 2)]);
    // MuJoCo 4.0: a pair's own defaults, not the geoms' values.
    let p0 = &s.contact_pairs[0];
    assert_eq!((p0.geom1, p0.geom2), ((1, 0), (2, 0)));
    assert_eq!(p0.friction, [1.0, 1.0, 0.005, 0.0001, 0.0001]);
    assert_eq!((p0.condim, p0.margin, p0.solref), (3, 0.0, [0.02, 1.0]));
    let p1 = &s.contact_pairs[1];
    assert_eq!((p1.condim, p1.gap), (4, 0.1));
    assert_eq!(s.keyframes[0].qpos.len(), 9);
    assert_eq!(s.keyframes[0].time, 1.0);
    assert!(s.bodies[2].joints.iter().all(|j| j.kind != JointKind::Free && j.range.is_none()));
}

#[test]
fn options_flags_and_not_simulated_elements() {
    let m = load(
        r#"<mujoco model="opts">
  <option timestep="0.005" gravity="0 0 -1" integrator="implicitfast" solver="CG" iterations="7"
          tolerance="1e-6" ls_iterations="3" ls_tolerance="0.1" impratio="10" noslip_iterations="2"
          noslip_tolerance="1e-5" cone="pyramidal" jacobian="sparse">
    <flag contact="disable" energy="enable"/>
  </option>
  <size memory="1M"/>
  <visual><global offwidth="800"/></visual>
  <statistic center="0 0 1"/>
  <asset><texture name="t" builtin="checker"/><material name="m" texture="t"/></asset>
  <worldbody>
    <light pos="0 0 3"/>
    <camera name="c" pos="0 0 3"/>
    <body><freejoint/><geom size="0.1" rgba="1 0 0 1" material="m"/><site name="imu"/></body>
  </worldbody>
  <sensor><accelerometer name="acc" site="imu"/><framequat objtype="site" objname="imu"/></sensor>
</mujoco>"#,
    );
    let o = &m.options;
    assert_eq!(o.timestep, Some(0.005));
    assert_eq!(m.spec.gravity, DVec3::new(0.0, 0.0, -1.0));
    assert_eq!(o.integrator, Some(IntegratorKind::ImplicitFast));
    assert_eq!(o.solver, Some(SolverKind::Cg));
    assert_eq!((o.iterations, o.ls_iterations, o.noslip_iterations), (Some(7), Some(3), Some(2)));
    assert_eq!((o.tolerance, o.ls_tolerance, o.impratio), (Some(1e-6), Some(0.1), Some(10.0)));
    assert!(!o.flag("contact") && o.flag("energy") && o.flag("gravity") && o.flag("multiccd"));
    let json = serde_json::to_string(o).unwrap();
    let back: signorini_mjcf::MjcfOptions = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, o);
    assert_eq!(m.sensors_raw.len(), 2);
    assert_eq!(m.sensors_raw[0].name, "accelerometer");
    assert_eq!(m.sensors_raw[0].attr("site"), Some("imu"));
    let names: Vec<&str> = m.not_simulated.iter().map(|n| n.element.as_str()).collect();
    for n in ["size", "visual", "statistic", "texture", "material", "light", "camera"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    assert_eq!(m.spec.name, "opts");
    let defaults = load("<mujoco/>");
    assert_eq!(defaults.options, signorini_mjcf::MjcfOptions::default());
    assert_eq!(defaults.spec.gravity, signorini_mjcf::DEFAULT_GRAVITY);
}

#[test]
fn includes_are_spliced_with_their_own_locations() {
    let dir = temp_dir("include");
    std::fs::create_dir_all(dir.join("parts")).unwrap();
    std::fs::write(
        dir.join("parts/robot.xml"),
        "<mujoco>\n  <body name=\"r\">\n    <freejoint/>\n    <geom size=\"0.1\"/>\n  </body>\n</mujoco>",
    )
    .unwrap();
    std::fs::write(
        dir.join("parts/bad.xml"),
        "<mujoco>\n  <body name=\"r\">\n    <geom type=\"box\"/>\n  </body>\n</mujoco>",
    )
    .unwrap();
    std::fs::write(
        dir.join("scene.xml"),
        "<mujoco>\n<worldbody>\n<include file=\"parts/robot.xml\"/>\n</worldbody>\n</mujoco>",
    )
    .unwrap();
    let m = load_mjcf(&dir.join("scene.xml")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.spec.bodies[1].name, "r");
    std::fs::write(
        dir.join("bad.xml"),
        "<mujoco>\n<worldbody>\n<include file=\"parts/bad.xml\"/>\n</worldbody>\n</mujoco>",
    )
    .unwrap();
    let e = load_mjcf(&dir.join("bad.xml")).unwrap_err();
    assert_eq!(e.line(), Some(3));
    assert!(e.location().unwrap().file.ends_with("parts/bad.xml"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// As MuJoCo 4.0 reads includes: the included root may have any name (older models, e.g. gymnasium-robotics' Adroit
/// hand and Franka kitchen, write `<mujocoinclude>`); a file name is looked up next to the main model first, then
/// next to the file that includes it; an included root without elements is an error.
#[test]
fn mujocoinclude_roots_and_includes_next_to_the_including_file() {
    let dir = temp_dir("mujocoinclude");
    std::fs::create_dir_all(dir.join("parts")).unwrap();
    let body = |name: &str| {
        format!("<mujocoinclude>\n<body name=\"{name}\"><geom size=\"0.05\"/></body>\n</mujocoinclude>")
    };
    std::fs::write(
        dir.join("parts/robot.xml"),
        "<mujocoinclude>\n<body name=\"r\"><freejoint/><geom size=\"0.1\"/></body>\n<include file=\"arm.xml\"/>\n</mujocoinclude>",
    )
    .unwrap();
    std::fs::write(dir.join("parts/arm.xml"), body("arm")).unwrap();
    std::fs::write(
        dir.join("scene.xml"),
        "<mujoco>\n<worldbody>\n<include file=\"parts/robot.xml\"/>\n</worldbody>\n</mujoco>",
    )
    .unwrap();
    let names =
        |m: &signorini_mjcf::LoadedMjcf| m.spec.bodies.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
    let m = load_mjcf(&dir.join("scene.xml")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names(&m)[1..], ["r", "arm"], "arm.xml next to robot.xml");
    std::fs::write(dir.join("arm.xml"), body("top")).unwrap();
    let m = load_mjcf(&dir.join("scene.xml")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names(&m)[1..], ["r", "top"], "the main model's folder first");
    std::fs::write(dir.join("arm.xml"), "<mujocoinclude/>").unwrap();
    let e = load_mjcf(&dir.join("scene.xml")).unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
    assert!(e.location().unwrap().file.ends_with("arm.xml"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn solvers_and_integrators_we_do_not_build_are_load_errors_naming_the_attribute() {
    for (option, attribute) in [(r#"solver="Jacobi""#, "solver"), (r#"integrator="explicit""#, "integrator")]
    {
        let xml = format!(r#"<mujoco><option {option}/><worldbody/></mujoco>"#);
        let err = load_mjcf_str(&xml, std::path::Path::new(".")).unwrap_err();
        assert_eq!(err.attribute(), Some(attribute), "{option}: {err}");
        let text = err.to_string();
        assert!(
            text.contains("not supported") || text.contains("not built") || text.contains("one of"),
            "{err}"
        );
    }
}
