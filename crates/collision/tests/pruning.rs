//! Contact pruning in the collision world (spec §A.16): which models prune, what the native dialect keeps, that the
//! MuJoCo dialect and a zero tolerance keep everything, and the post-pruning budget `max_contacts`.

use glam::DVec3;
use signorini_collision::CollisionError;
use signorini_collision::world::{BodyDesc, CollisionOptions, CollisionWorld, GeomDesc};
use signorini_geometry::{ConvexMesh, Cuboid, Plane, Pose};

/// A compound body of three boxes side by side (one link), resting 1 mm into the plane: each box touches at its
/// four bottom corners, twelve coplanar contacts of one link pair whose support polygon is the outer rectangle.
fn three_box_raft(options: CollisionOptions) -> CollisionWorld {
    let mut w = CollisionWorld::new(options).unwrap();
    w.add_geom(GeomDesc::new(Plane::new(), 0)).unwrap();
    let b = w.add_body(BodyDesc::free("raft")).unwrap();
    for k in 0..3 {
        let at = Pose::from_translation(DVec3::new(0.2 * k as f64, 0.0, 0.0));
        w.add_geom(GeomDesc::new(Cuboid::new(DVec3::new(0.1, 0.15, 0.05)).unwrap(), b).at(at)).unwrap();
    }
    let pose = Pose::from_translation(DVec3::new(0.0, 0.0, 0.049));
    w.step(&[Pose::IDENTITY, pose]).unwrap();
    w
}

fn outer_corners() -> Vec<(i64, i64)> {
    // In millimetres, sorted.
    vec![(-100, -150), (-100, 150), (500, -150), (500, 150)]
}

fn corners(w: &CollisionWorld) -> Vec<(i64, i64)> {
    let mut c: Vec<(i64, i64)> = w
        .contacts()
        .position
        .iter()
        .map(|p| ((p.x * 1e3).round() as i64, (p.y * 1e3).round() as i64))
        .collect();
    c.sort();
    c
}

#[test]
fn a_compound_body_keeps_its_outer_corners() {
    let native = three_box_raft(CollisionOptions::default());
    assert!(native.model().prunes());
    assert_eq!(corners(&native), outer_corners());
    assert_eq!(native.contacts().n_pairs, 2, "the middle box lost all its contacts");
    assert!(native.contacts().penetration.iter().all(|&p| (p - 0.001).abs() < 1e-12));

    for options in [
        CollisionOptions { contact_pruning_tolerance: 0.0, ..CollisionOptions::default() },
        CollisionOptions::mujoco_compatible(),
    ] {
        let w = three_box_raft(options);
        assert!(!w.model().prunes());
        assert_eq!(w.contacts().len(), 12, "{:?}", options.dialect);
        assert_eq!(w.contacts().n_pairs, 3);
    }
}

/// Genesis 1.4.5 prunes every model outside its performance mode (G-W pruned only models whose contacts of two geom
/// pairs could share a link pair): a cube on the plane, one geom per body, keeps the four corners of its resting face
/// of the five contacts the perturbations find when contact 0 lands inside the face.
#[test]
fn every_native_model_prunes() {
    let stack = |options: CollisionOptions| {
        let mut w = CollisionWorld::new(options).unwrap();
        w.add_geom(GeomDesc::new(Plane::new(), 0)).unwrap();
        let b = w.add_body(BodyDesc::free("cube")).unwrap();
        let corner = |k: usize| {
            DVec3::new(
                if k & 1 == 0 { -0.1 } else { 0.1 },
                if k & 2 == 0 { -0.1 } else { 0.1 },
                if k & 4 == 0 { -0.1 } else { 0.1 },
            )
        };
        let hull = ConvexMesh::from_points(&(0..8).map(corner).collect::<Vec<_>>()).unwrap();
        let c = w.add_body(BodyDesc::free("hull")).unwrap();
        w.add_geom(GeomDesc::new(Cuboid::new(DVec3::splat(0.1)).unwrap(), b)).unwrap();
        w.add_geom(GeomDesc::new(hull, c)).unwrap();
        // The hull stands on the cube, shifted and sunk 0.1 mm: contact 0 of the face pair lands inside the overlap.
        let cube = Pose::from_translation(DVec3::new(0.0, 0.0, 0.1));
        let on_top = Pose::from_translation(DVec3::new(0.03, 0.02, 0.2999));
        w.step(&[Pose::IDENTITY, cube, on_top]).unwrap();
        let mut top: Vec<(i64, i64)> = (0..w.contacts().len())
            .map(|k| w.contacts().position[k])
            .filter(|p| p.z > 0.15)
            .map(|p| ((p.x * 1e4).round() as i64, (p.y * 1e4).round() as i64))
            .collect();
        top.sort();
        (w.model().prunes(), top)
    };
    let (prunes, top) = stack(CollisionOptions::default());
    assert!(prunes);
    assert_eq!(
        top,
        vec![(-700, -800), (-700, 1000), (1000, -800), (1000, 1000)],
        "the overlap's four corners"
    );
    let (prunes, top) =
        stack(CollisionOptions { contact_pruning_tolerance: 0.0, ..CollisionOptions::default() });
    assert!(!prunes);
    assert_eq!(top.len(), 5, "contact 0 inside the overlap, and its four corners: {top:?}");
    let (prunes, _) = stack(CollisionOptions::mujoco_compatible());
    assert!(!prunes);
}

/// More contacts after pruning than `max_contacts` fail the step with an error naming the option; Genesis's default
/// budget (512 at least) admits the raft.
#[test]
fn the_post_pruning_budget_is_checked() {
    let w = three_box_raft(CollisionOptions::default());
    assert_eq!(w.model().max_contacts(), 512);
    let mut w =
        CollisionWorld::new(CollisionOptions { max_contacts: Some(3), ..CollisionOptions::default() })
            .unwrap();
    w.add_geom(GeomDesc::new(Plane::new(), 0)).unwrap();
    let b = w.add_body(BodyDesc::free("box")).unwrap();
    w.add_geom(GeomDesc::new(Cuboid::new(DVec3::new(0.1, 0.15, 0.05)).unwrap(), b)).unwrap();
    let err = w.step(&[Pose::IDENTITY, Pose::from_translation(DVec3::new(0.0, 0.0, 0.049))]).unwrap_err();
    match err {
        CollisionError::CapacityExceeded { option, needed, limit, .. } => {
            assert_eq!((option, needed, limit), ("max_contacts", 4, 3));
        }
        e => panic!("unexpected {e}"),
    }
    assert!(
        CollisionWorld::new(CollisionOptions { max_contacts: Some(0), ..CollisionOptions::default() })
            .is_err()
    );
    assert!(
        CollisionWorld::new(CollisionOptions {
            contact_pruning_tolerance: -1.0,
            ..CollisionOptions::default()
        })
        .is_err()
    );
}
