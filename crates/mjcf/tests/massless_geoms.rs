//! A geom of zero mass takes no part in its body's inertia, as in MuJoCo's `mjCBody::InertiaFromGeom`, which selects
//! the geoms of the inertia group range heavier than `mjEPS`: a body of one massive geom and massless ones (the
//! DeepMind control suite's quadruped torso with its two eye cylinders) takes that geom's frame and moments as they
//! are, not the principal frame of a combination (which orders the moments otherwise and turns the frame by 180°).
//! With massless eyes counted, the quadruped parted from MuJoCo at step 1; it now follows MuJoCo 4.0.1 bit for bit
//! over 500 steps (`scripts/mujoco_divergence.py`). Reference: MuJoCo 4.0.1's `body_mass`, `body_inertia`,
//! `body_ipos` and `body_iquat` of the scene below, printed at full precision.

use std::path::Path;

use signorini_mjcf::load_mjcf_str;
use signorini_model::Model;

const XML: &str = r#"<mujoco model="massless_geoms">
  <worldbody>
    <body name="torso" pos="0 0 0.57">
      <freejoint/>
      <geom name="eye_r" type="cylinder" size=".05" fromto=".1 -.07 .12 .31 -.07 .08" mass="0"/>
      <geom name="eye_l" type="cylinder" size=".05" fromto=".1 .07 .12 .31 .07 .08" mass="0"/>
      <geom name="torso" type="ellipsoid" size=".3 .27 .2" density="1000"/>
    </body>
    <body name="pair" pos="1 0 0.5">
      <freejoint/>
      <geom type="box" size=".1 .2 .3" pos=".05 0 0"/>
      <geom type="sphere" size=".05" pos="-.1 0 0" mass="0"/>
      <geom type="capsule" size=".05 .1" pos="0 .1 0" euler="30 0 0"/>
    </body>
  </worldbody>
</mujoco>"#;

/// A body's compiled inertial data: `(mass, inertia, ipos, iquat wxyz)`.
type Inertial = (f64, [f64; 3], [f64; 3], [f64; 4]);

/// Bodies 1 and 2, from MuJoCo 4.0.1.
const MUJOCO: [Inertial; 2] = [
    (
        67.85840131753953,
        [1.5322427017500428, 1.7643184342560279, 2.210826714925438],
        [0.0; 3],
        [1.0, 0.0, 0.0, 0.0],
    ),
    (
        50.0943951023932,
        [2.114211260917668, 1.6159236358351998, 0.8304045971993463],
        [0.04790955145968702, 0.00418089708062597, 0.0],
        [0.9999443037782565, 0.0031565684181995186, -7.115634504009098e-06, 0.010071016165553674],
    ),
];

#[test]
fn massless_geoms_leave_the_body_inertia_alone() {
    let model = Model::compile(load_mjcf_str(XML, Path::new(".")).unwrap().spec).unwrap();
    for (b, (mass, inertia, ipos, iquat)) in MUJOCO.iter().enumerate().map(|(i, r)| (i + 1, r)) {
        assert_eq!(model.body_mass[b], *mass, "body {b}: mass");
        let q = model.body_iquat[b];
        let ours = [model.body_inertia[b].to_array(), model.body_ipos[b].to_array()];
        for (what, got, want) in [("inertia", ours[0], inertia), ("ipos", ours[1], ipos)] {
            for k in 0..3 {
                assert!(
                    (got[k] - want[k]).abs() <= 1e-15 * want[k].abs().max(1.0),
                    "body {b}: {what} {got:?} vs {want:?}"
                );
            }
        }
        let got = [q.w, q.x, q.y, q.z];
        for k in 0..4 {
            assert!((got[k] - iquat[k]).abs() <= 1e-15, "body {b}: iquat {got:?} vs {iquat:?}");
        }
    }
}
