//! Every `../shared/scenes/*.xml` loads, with the sizes and options MuJoCo reports for it.

use signorini_model::Transmission;
use std::path::PathBuf;

use signorini_geometry::Shape;
use signorini_mjcf::load_mjcf;
use signorini_model::spec::JointKind;
use signorini_sim::{FrictionCone, SolverKind};

fn scenes() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/scenes")
}

fn nq_nv(spec: &signorini_model::spec::ModelSpec) -> (usize, usize) {
    let mut out = (0, 0);
    for j in spec.bodies.iter().flat_map(|b| &b.joints) {
        let d = match j.kind {
            JointKind::Free => (7, 6),
            JointKind::Ball => (4, 3),
            _ => (1, 1),
        };
        out = (out.0 + d.0, out.1 + d.1);
    }
    out
}

#[test]
fn every_scene_loads() {
    let mut n = 0;
    for entry in std::fs::read_dir(scenes()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "xml") {
            continue;
        }
        let m = load_mjcf(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(m.options.timestep, Some(0.002), "{}", path.display());
        for b in &m.spec.bodies[1..] {
            if !b.joints.is_empty() {
                assert!(b.inertial.mass > 0.0, "{}: body {} has no mass", path.display(), b.name);
            }
        }
        let name = path.file_stem().unwrap().to_str().unwrap();
        if name.ends_with("__cg") {
            assert_eq!(m.options.solver, Some(SolverKind::Cg));
        }
        if name.ends_with("__elliptic") {
            assert_eq!(m.options.cone, Some(FrictionCone::Elliptic));
        }
        if name.ends_with("__noisland") {
            assert_eq!(m.options.flags.get("island"), Some(&false));
            assert!(!m.options.flag("island"));
        } else {
            assert!(m.options.flag("island"));
        }
        n += 1;
    }
    assert!(n >= 25, "expected the 25 benchmark scenes, found {n}");
}

#[test]
fn scene_sizes() {
    let cases = [
        ("sphere_drop", 2, 7, 6, 0),
        ("box_stack", 11, 70, 60, 0),
        ("pyramid", 56, 385, 330, 0),
        ("pile", 201, 1400, 1200, 0),
        ("convex", 21, 140, 120, 0),
        ("arm", 9, 14, 13, 7),
        ("chain", 8, 15, 13, 0),
    ];
    for (name, nbody, nq, nv, nu) in cases {
        let m = load_mjcf(&scenes().join(format!("{name}.xml"))).unwrap();
        assert_eq!(m.spec.bodies.len(), nbody, "{name} nbody");
        assert_eq!(nq_nv(&m.spec), (nq, nv), "{name} nq, nv");
        assert_eq!(m.spec.actuators.len(), nu, "{name} nu");
        assert_eq!(m.spec.name, name);
    }
}

/// The dofs of simple bodies (diagonal, constant rows of `M`) are MuJoCo 4.0's (`dof_simplenum > 0`).
#[test]
fn simple_dofs_match_mujoco() {
    let cases = [
        ("sphere_drop", "111111"),
        ("box_stack", &"1".repeat(60)),
        ("pyramid", &"1".repeat(330)),
        ("pile", &"1".repeat(1200)),
        ("convex", &"0".repeat(120)),
        ("arm", "1111110000000"),
        ("chain", "0000000000000"),
    ];
    for (name, mujoco) in cases {
        let m = load_mjcf(&scenes().join(format!("{name}.xml"))).unwrap();
        let model = signorini_model::Model::compile(m.spec).unwrap();
        let ours: String = model.dof_simple.iter().map(|&s| if s { '1' } else { '0' }).collect();
        assert_eq!(ours, mujoco, "{name}");
    }
}

#[test]
fn arm_actuators_keyframe_and_defaults() {
    let m = load_mjcf(&scenes().join("arm.xml")).unwrap();
    let s = &m.spec;
    // Default joint class: hinge, armature 0.05, damping 2, limited; the free joint takes no defaults.
    let boxj = &s.bodies[1].joints[0];
    assert_eq!((boxj.kind, boxj.armature, boxj.damping), (JointKind::Free, 0.0, 0.0));
    let j1 = &s.bodies[2].joints[0];
    assert_eq!((j1.kind, j1.armature, j1.damping), (JointKind::Hinge, 0.05, 2.0));
    assert_eq!(j1.range, Some([-2.9, 2.9]));
    // position kp overrides the class's kp=100; bias = (0, −kp, −kv) with kv = 0.
    let a1 = &s.actuators[0];
    assert_eq!(
        (a1.transmission, a1.gain, a1.bias, a1.gear),
        (Transmission::Joint(1), 300.0, [0.0, -300.0, 0.0], 1.0)
    );
    assert_eq!((a1.ctrlrange, a1.forcerange), (None, None));
    assert_eq!(s.actuators[6].gain, 20.0);
    assert_eq!(s.keyframes.len(), 1);
    assert_eq!(s.keyframes[0].qpos.len(), 14);
    assert_eq!(s.keyframes[0].ctrl.len(), 7);
    // l7 has two geoms along its z axis: combined inertia, principal frame = body axes (moments decreasing).
    let l7 = s.bodies.iter().find(|b| b.name == "l7").unwrap();
    assert_eq!(l7.geoms.len(), 2);
    let i = l7.inertial;
    assert!(i.quat.abs_diff_eq(glam::DQuat::IDENTITY, 1e-12), "{:?}", i.quat);
    assert!(i.inertia.x >= i.inertia.y && i.inertia.y >= i.inertia.z);
    let total: f64 = l7.geoms.iter().map(|g| g.mass).sum();
    assert!((total - i.mass).abs() < 1e-15);
    assert_eq!(l7.sites.len(), 1);
    // World geoms: plane, box, cylinder; massless.
    assert!(matches!(s.bodies[0].geoms[0].shape, Shape::Plane(_)));
    assert!(s.bodies[0].geoms.iter().all(|g| g.mass == 0.0));
}

#[test]
fn convex_meshes_are_hulls_with_mujoco_frames() {
    let m = load_mjcf(&scenes().join("convex.xml")).unwrap();
    let c0 = &m.spec.bodies[1];
    let Shape::ConvexMesh(hull) = &c0.geoms[0].shape else {
        panic!("c0 is not a convex mesh");
    };
    assert!(hull.vertices().len() >= 4);
    // The inertial frame is the hull's centre of mass and principal axes (MuJoCo re-centres meshes).
    let i = c0.inertial;
    assert!(i.mass > 0.0);
    assert!(i.inertia.x >= i.inertia.y && i.inertia.y >= i.inertia.z);
    assert!(i.pos.length() < 0.05);
    // Bodies sharing a mesh share its hull.
    let Shape::ConvexMesh(again) = &m.spec.bodies[6].geoms[0].shape else { panic!() };
    assert!(std::sync::Arc::ptr_eq(hull, again));
}
