//! Regression: a millimetre cylinder inside a kilometre capsule makes `A ⊖ B` a needle, on which rounding broke
//! EPA's polytope (the carved region stopped being a disk) and the face list grew without bound, hanging the query.
//! Found by the stress run (pair 21750 of `stress_gjk_epa_pairs`).

use glam::{DQuat, DVec3};
use signorini_collision::{DistanceRequest, distance};
use signorini_geometry::{Capsule, Cylinder, Pose, Shape};

#[test]
fn tiny_cylinder_inside_huge_capsule_terminates() {
    let a: Shape = Cylinder::new(0.0008214628620091663, 0.00020783719892337343).unwrap().into();
    let pa = Pose::new(
        DVec3::new(-0.000531687386285983, -0.0007706539972990726, -0.0007955692396638215),
        DQuat::from_xyzw(0.12982081260109754, 0.030446074789672765, -0.12150943901482322, 0.9835929286934689),
    )
    .unwrap();
    let b: Shape = Capsule::new(646.2804379113281, 279.825718167232).unwrap().into();
    let pb = Pose::new(
        DVec3::new(-0.00016858645264187957, 0.00010005385965299518, -0.0006147634153782413),
        DQuat::from_xyzw(0.403497209974964, -0.35271289527687455, -0.28645032644649115, 0.7941850071151703),
    )
    .unwrap();
    let r = distance(&a, &pa, &b, &pb, &DistanceRequest::default()).unwrap();
    assert!(r.distance.is_finite() && r.normal.is_finite());
    // The cylinder is deep inside: the depth is at least the capsule radius minus the cylinder's size.
    assert!(r.distance < -646.28 + 2e-3, "{r:?}");
}
