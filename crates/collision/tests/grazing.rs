//! Native mode's grazing plane contacts (Genesis 1.4.5's plane branch): a shape whose lowest point is within
//! `1e-15 ×` half its box diagonal above a half-space still touches it, at penetration 0; farther up it does not.

use glam::DVec3;
use signorini_collision::{ContactRequest, contacts};
use signorini_geometry::{Cylinder, Plane, Pose, Shape, Sphere};

/// The contacts of a half-space at `z = 0` with `shape` whose lowest point is `lift` above it (`half_height` below
/// its origin).
fn contacts_at(shape: &Shape, half_height: f64, lift: f64) -> Vec<(DVec3, DVec3, f64)> {
    let plane: Shape = Plane::new().into();
    let pose = Pose::from_translation(DVec3::new(0.3, -0.2, half_height + lift));
    // The first contact alone (no perturbation contacts).
    let request = ContactRequest { multi_contact: false, ..ContactRequest::default() };
    let m = contacts(&plane, &Pose::IDENTITY, shape, &pose, &request).unwrap();
    m.contacts.iter().map(|c| (c.position, c.normal, c.penetration)).collect()
}

#[test]
fn a_half_space_touches_within_the_grazing_band_at_zero_depth() {
    let cylinder: Shape = Cylinder::new(0.05, 0.06).unwrap().into();
    let sphere: Shape = Sphere::new(0.05).unwrap().into();
    // Half box diagonals: cylinder √(0.1² + 0.1² + 0.12²)/2 ≈ 0.0906 m, sphere √3·0.05 ≈ 0.0866 m; band ≈ 9e-17 m.
    for (shape, h) in [(&cylinder, 0.06), (&sphere, 0.05)] {
        let penetrating = contacts_at(shape, h, -1e-4);
        assert_eq!(penetrating.len(), 1);
        let (_, normal, depth) = penetrating[0];
        assert!((depth - 1e-4).abs() < 1e-12, "{depth}");
        for lift in [0.0, 4e-17] {
            let grazing = contacts_at(shape, h, lift);
            assert_eq!(grazing.len(), 1, "lift {lift}");
            let (position, n, depth) = grazing[0];
            assert_eq!(depth, 0.0);
            assert_eq!(n, normal);
            assert!(
                position.z.abs() < 1e-15
                    && (position.truncate() - glam::DVec2::new(0.3, -0.2)).length() < 0.06
            );
        }
        assert!(contacts_at(shape, h, 1e-12).is_empty());
        assert!(contacts_at(shape, h, 1e-3).is_empty());
    }
}
