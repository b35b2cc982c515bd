//! URDF links, joints, inertials and collision geometry; SRDF disabled pairs; typed errors with lines.

use std::f64::consts::FRAC_PI_2;
use std::path::{Path, PathBuf};

use glam::{DMat3, DQuat, DVec3};
use signorini_collision::filter::DisableReason;
use signorini_geometry::Shape;
use signorini_model::spec::{EqualitySpec, JointKind};
use signorini_urdf::{
    MeshGeometry, UrdfError, UrdfOptions, XmlError, load_srdf_str, load_urdf, load_urdf_str,
};

const ARM: &str = r#"<?xml version="1.0"?>
<robot name="arm">
  <material name="grey"><color rgba="0.5 0.5 0.5 1"/></material>
  <link name="base">
    <inertial><origin xyz="0 0 0.05"/><mass value="2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>
    <visual><geometry><box size="0.2 0.2 0.1"/></geometry><material name="grey"/></visual>
    <collision><origin xyz="0 0 0.05"/><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial><mass value="1"/><inertia ixx="2" ixy="1" ixz="0" iyy="2" iyz="0" izz="1"/></inertial>
    <collision><origin xyz="0 0 0.2" rpy="0 0 0"/><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
  </link>
  <link name="lower">
    <collision><geometry><sphere radius="0.04"/></geometry></collision>
    <collision><geometry><capsule radius="0.03" length="0.2"/></geometry></collision>
  </link>
  <link name="slider"/>
  <link name="tool"/>
  <link name="finger"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1" rpy="0 0 1.5707963267948966"/>
    <axis xyz="0 2 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/>
    <dynamics damping="0.5" friction="0.1"/>
  </joint>
  <joint name="elbow" type="continuous">
    <parent link="upper"/><child link="lower"/><origin xyz="0 0 0.4"/>
  </joint>
  <joint name="slide" type="prismatic">
    <parent link="lower"/><child link="slider"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.1" effort="1" velocity="1"/>
  </joint>
  <joint name="mount" type="fixed"><parent link="slider"/><child link="tool"/></joint>
  <joint name="grip" type="prismatic">
    <parent link="upper"/><child link="finger"/>
    <limit lower="0" upper="0.02" effort="1" velocity="1"/>
    <mimic joint="slide" multiplier="0.5" offset="0.01"/>
  </joint>
  <transmission name="t"><type>x</type></transmission>
  <gazebo reference="base"/>
</robot>"#;

fn arm(options: &UrdfOptions) -> signorini_urdf::LoadedUrdf {
    load_urdf_str(ARM, Path::new("."), options).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn links_joints_and_frames() {
    let m = arm(&UrdfOptions::default());
    let s = &m.spec;
    let names: Vec<&str> = s.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["world", "base", "upper", "lower", "slider", "tool", "finger"]);
    assert_eq!(s.name, "arm");
    let parents: Vec<usize> = s.bodies.iter().map(|b| b.parent).collect();
    assert_eq!(parents, [0, 0, 1, 2, 3, 4, 2]);
    assert!(s.bodies[1].joints.is_empty(), "root welded to the world");
    let sh = &s.bodies[2].joints[0];
    assert_eq!(
        (sh.kind, sh.range, sh.damping, sh.frictionloss),
        (JointKind::Hinge, Some([-1.0, 1.0]), 0.5, 0.1)
    );
    assert_eq!(sh.axis, DVec3::Y);
    assert_eq!(s.bodies[2].pos, DVec3::new(0.0, 0.0, 0.1));
    assert!(s.bodies[2].quat.abs_diff_eq(DQuat::from_rotation_z(FRAC_PI_2), 1e-15));
    let el = &s.bodies[3].joints[0];
    assert_eq!((el.kind, el.range, el.axis), (JointKind::Hinge, None, DVec3::X));
    assert_eq!(s.bodies[4].joints[0].kind, JointKind::Slide);
    assert!(s.bodies[5].joints.is_empty(), "fixed joint");
    let EqualitySpec::Joint { joint1, joint2, polycoef, .. } = &s.equalities[0] else { panic!() };
    assert_eq!((*joint1, *joint2, polycoef[0], polycoef[1]), (3, Some(2), 0.01, 0.5));
    assert_eq!(m.not_simulated.len(), 3);

    let floating = arm(&UrdfOptions { floating_base: true, ..Default::default() });
    assert_eq!(floating.spec.bodies[1].joints[0].kind, JointKind::Free);
    assert_eq!(floating.spec.bodies[1].joints[0].name, "base_free");
}

#[test]
fn inertials_and_collision_shapes() {
    let m = arm(&UrdfOptions::default());
    let b = &m.spec.bodies;
    assert_eq!(b[1].inertial.mass, 2.0);
    assert_eq!(b[1].inertial.inertia, DVec3::new(0.01, 0.02, 0.03));
    assert_eq!(b[1].inertial.pos, DVec3::new(0.0, 0.0, 0.05));
    let up = b[2].inertial;
    assert!((up.inertia - DVec3::new(3.0, 1.0, 1.0)).abs().max_element() < 1e-14);
    let r = DMat3::from_quat(up.quat);
    let back = r * DMat3::from_diagonal(up.inertia) * r.transpose();
    assert!((back.x_axis.y - 1.0).abs() < 1e-14 && (back.z_axis.z - 1.0).abs() < 1e-14);
    assert_eq!(b[3].inertial.mass, 0.0, "no <inertial>: massless");
    let Shape::Box(bx) = &b[1].geoms[0].shape else { panic!() };
    assert_eq!(bx.half_extents(), DVec3::new(0.1, 0.1, 0.05));
    let Shape::Cylinder(c) = &b[2].geoms[0].shape else { panic!() };
    assert_eq!((c.radius(), c.half_length()), (0.05, 0.2));
    assert!(matches!(b[3].geoms[0].shape, Shape::Sphere(_)));
    let Shape::Capsule(c) = &b[3].geoms[1].shape else { panic!() };
    assert_eq!(c.half_length(), 0.1);
    let g = &b[1].geoms[0];
    assert_eq!((g.contype, g.conaffinity, g.condim, g.mass), (1, 1, 3, 0.0));
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("signorini-urdf-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn mesh_files_and_packages() {
    let dir = temp_dir("mesh");
    std::fs::create_dir_all(dir.join("pkg/meshes")).unwrap();
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
    std::fs::write(dir.join("pkg/meshes/tet.obj"), obj).unwrap();
    std::fs::write(
        dir.join("robot.urdf"),
        r#"<robot name="r"><link name="a"><collision><geometry>
             <mesh filename="package://pkg/meshes/tet.obj" scale="2 2 2"/></geometry></collision>
           <collision><geometry><mesh filename="pkg/meshes/tet.obj"/></geometry></collision></link></robot>"#,
    )
    .unwrap();
    let options = UrdfOptions { package_dirs: vec![("pkg".into(), dir.join("pkg"))], ..Default::default() };
    let m = load_urdf(&dir.join("robot.urdf"), &options).unwrap_or_else(|e| panic!("{e}"));
    let Shape::ConvexMesh(h) = &m.spec.bodies[1].geoms[0].shape else { panic!() };
    assert!(h.vertices().iter().any(|v| *v == DVec3::new(2.0, 0.0, 0.0)));
    // Without package_dirs, `pkg` is found beside the URDF (the folder holding `pkg/meshes/tet.obj`).
    let beside =
        load_urdf(&dir.join("robot.urdf"), &UrdfOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(beside.spec.bodies[1].geoms[0].shape, m.spec.bodies[1].geoms[0].shape);
    // As a triangle mesh (material inside <collision> is accepted and ignored).
    std::fs::write(
        dir.join("mesh.urdf"),
        r#"<robot name="r"><link name="a"><collision><geometry><mesh filename="pkg/meshes/tet.obj"/></geometry>
           <material name="white"/></collision></link></robot>"#,
    )
    .unwrap();
    let options = UrdfOptions { mesh_geometry: MeshGeometry::TriangleMesh, ..Default::default() };
    let m = load_urdf(&dir.join("mesh.urdf"), &options).unwrap_or_else(|e| panic!("{e}"));
    let Shape::TriangleMesh(t) = &m.spec.bodies[1].geoms[0].shape else { panic!() };
    assert_eq!((t.vertices().len(), t.triangles().len()), (4, 4));
    assert!(t.is_closed());
    std::fs::write(
        dir.join("missing.urdf"),
        r#"<robot name="r"><link name="a"><collision><geometry>
             <mesh filename="package://nopkg/meshes/tet.obj"/></geometry></collision></link></robot>"#,
    )
    .unwrap();
    let e = load_urdf(&dir.join("missing.urdf"), &UrdfOptions::default()).unwrap_err();
    assert!(matches!(e, UrdfError::Xml(XmlError::InvalidValue { .. })), "{e}");
    assert_eq!(e.attribute(), Some("filename"));
    assert!(e.to_string().contains("nopkg"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn srdf_disabled_pairs() {
    let m = arm(&UrdfOptions::default());
    let srdf = r#"<robot name="arm">
  <group name="all"><chain base_link="base" tip_link="tool"/></group>
  <disable_collisions link1="base" link2="upper" reason="Adjacent"/>
  <disable_collisions link1="upper" link2="finger" reason="Never"/>
</robot>"#;
    let s = load_srdf_str(srdf, Path::new("."), &m).unwrap_or_else(|e| panic!("{e}"));
    let pairs: Vec<(&str, &str, Option<&str>)> = s
        .disable_collisions
        .iter()
        .map(|p| (p.links[0].as_str(), p.links[1].as_str(), p.reason.as_deref()))
        .collect();
    assert_eq!(pairs, [("base", "upper", Some("Adjacent")), ("upper", "finger", Some("Never"))]);
    let acm = s.acm(|n| m.body_index(n)).unwrap();
    let pairs: Vec<(usize, usize, &DisableReason)> = acm.iter().collect();
    assert_eq!(pairs, [(1, 2, &DisableReason::Adjacent), (2, 6, &DisableReason::Never)]);
    assert_eq!(s.disable_collisions[1].at.line, 4);
    let bad = "<robot name=\"arm\">\n<disable_collisions link1=\"base\"\n link2=\"elbow\"/>\n</robot>";
    let e = load_srdf_str(bad, Path::new("."), &m).unwrap_err();
    assert!(matches!(e, UrdfError::UndefinedName { kind: "link", .. }), "{e}");
    assert_eq!((e.line(), e.attribute()), (Some(3), Some("link2")));
    let e = load_srdf_str("<robot>\n<disable_colisions/>\n</robot>", Path::new("."), &m).unwrap_err();
    assert!(matches!(e, UrdfError::Xml(XmlError::UnknownElement { .. })), "{e}");
    assert_eq!(e.line(), Some(2));
}

fn urdf_err(text: &str) -> UrdfError {
    match load_urdf_str(text, Path::new("."), &UrdfOptions::default()) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn malformed_urdf() {
    let e = urdf_err("<robot name=\"r\">\n<link name=\"a\">\n<colision/>\n</link>\n</robot>");
    assert!(matches!(e, UrdfError::Xml(XmlError::UnknownElement { .. })), "{e}");
    assert_eq!((e.line(), e.element()), (Some(3), Some("colision")));
    let e = urdf_err(
        "<robot name=\"r\">\n<link name=\"a\">\n<inertial><mass value=\"1kg\"/>\n</inertial></link>\n</robot>",
    );
    assert!(matches!(e, UrdfError::Xml(XmlError::InvalidValue { .. })), "{e}");
    assert_eq!((e.line(), e.attribute()), (Some(3), Some("value")));
    let e = urdf_err(
        "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/>\n<joint name=\"j\" type=\"revolute\">\
         <parent link=\"a\"/><child link=\"b\"/></joint></robot>",
    );
    assert!(e.to_string().contains("needs <limit"), "{e}");
    assert_eq!(e.line(), Some(2));
    let e = urdf_err("<robot name=\"r\"><link name=\"a\"/>\n<link name=\"b\"/></robot>");
    assert!(e.to_string().contains("several root links"), "{e}");
    let e = urdf_err(
        "<robot name=\"r\"><link name=\"a\"/>\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/>\n\
         <child link=\"c\"/></joint></robot>",
    );
    assert!(matches!(e, UrdfError::UndefinedName { .. }), "{e}");
    assert_eq!(e.line(), Some(3));
    let e = urdf_err(
        "<robot name=\"r\"><link name=\"a\"/><link name=\"b\"/>\n<joint name=\"j\" type=\"planar\">\
         <parent link=\"a\"/><child link=\"b\"/></joint></robot>",
    );
    assert!(matches!(e, UrdfError::Xml(XmlError::NotSupported { .. })), "{e}");
    assert_eq!((e.line(), e.attribute()), (Some(2), Some("type")));
    let e = urdf_err(
        "<robot name=\"r\"><link name=\"a\"><collision><geometry>\n<box/></geometry></collision></link></robot>",
    );
    assert!(matches!(e, UrdfError::Xml(XmlError::MissingAttribute { .. })), "{e}");
    assert_eq!((e.line(), e.attribute()), (Some(2), Some("size")));
}
