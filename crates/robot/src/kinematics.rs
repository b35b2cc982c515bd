//! The kinematic chain of a robot as planners see it: links in depth-first order, each hanging from its parent by a
//! fixed placement and at most one joint, and forward kinematics `oMl = oMparent · placement · motion(q)`.
//!
//! A joint's coordinate is a configuration variable (an entry of `q`), a locked value, or a URDF mimic of a variable
//! (`offset + multiplier · q_v`). Locked and mimic-of-locked joints are constants, so the links they carry move
//! rigidly with their parent. Frames: a link's joint sits at the link origin with its axis in the link frame (URDF).

use glam::{DQuat, DVec3};
use signorini_geometry::Pose;

/// How a link moves relative to its parent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Motion {
    /// Welded (URDF `fixed`, or a joint held at a constant).
    Fixed,
    /// Rotation about `axis` (unit, link frame) by the coordinate (rad).
    Revolute { axis: DVec3 },
    /// Translation along `axis` (unit, link frame) by the coordinate (m).
    Prismatic { axis: DVec3 },
}

/// Where a moving link's joint coordinate comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Coordinate {
    /// A constant (locked joints; fixed links use 0).
    Constant(f64),
    /// `offset + multiplier · q[variable]` (a variable itself has multiplier 1 and offset 0).
    Variable { variable: usize, multiplier: f64, offset: f64 },
}

impl Coordinate {
    /// The coordinate at configuration `q`.
    #[inline]
    pub(crate) fn value(&self, q: &[f64]) -> f64 {
        match *self {
            Coordinate::Constant(c) => c,
            Coordinate::Variable { variable, multiplier, offset } => offset + multiplier * q[variable],
        }
    }
}

/// One link of the chain.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Link {
    /// Link name (URDF).
    pub name: String,
    /// Parent link, `None` for the root (placed at the world origin).
    pub parent: Option<usize>,
    /// The joint origin in the parent link's frame.
    pub placement: Pose,
    /// The joint's motion.
    pub motion: Motion,
    /// The joint's coordinate.
    pub coordinate: Coordinate,
}

/// The chain and, per link, the moving links from the root down to it (itself included).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chain {
    pub links: Vec<Link>,
    /// `ancestors[l]`: the links on `l`'s path from the root whose motion depends on `q`, root first.
    pub ancestors: Vec<Vec<usize>>,
}

impl Chain {
    pub(crate) fn new(links: Vec<Link>) -> Chain {
        let mut ancestors: Vec<Vec<usize>> = Vec::with_capacity(links.len());
        for (l, link) in links.iter().enumerate() {
            let mut a = link.parent.map(|p| ancestors[p].clone()).unwrap_or_default();
            if link.moves_with_q() {
                a.push(l);
            }
            ancestors.push(a);
        }
        Chain { links, ancestors }
    }

    /// World poses of every link at `q` into `out` (`out.len() == links.len()`).
    pub(crate) fn forward(&self, q: &[f64], out: &mut [Pose]) {
        for (l, link) in self.links.iter().enumerate() {
            let parent = link.parent.map_or(Pose::IDENTITY, |p| out[p]);
            let mut local = link.placement;
            match link.motion {
                Motion::Fixed => {}
                Motion::Revolute { axis } => {
                    local.rotation *= DQuat::from_axis_angle(axis, link.coordinate.value(q));
                }
                Motion::Prismatic { axis } => {
                    local.translation += local.rotation * (axis * link.coordinate.value(q));
                }
            }
            out[l] = parent.compose(&local);
        }
    }

    /// The world velocity of a world point `p` fixed to a link moved by link `k`'s joint, per unit of `k`'s
    /// coordinate, with the link poses `poses` of the current configuration.
    #[inline]
    pub(crate) fn point_jacobian_column(&self, poses: &[Pose], k: usize, p: DVec3) -> DVec3 {
        let frame = &poses[k];
        match self.links[k].motion {
            Motion::Fixed => DVec3::ZERO,
            Motion::Revolute { axis } => (frame.rotation * axis).cross(p - frame.translation),
            Motion::Prismatic { axis } => frame.rotation * axis,
        }
    }
}

impl Link {
    /// Whether the link's joint moves with `q`.
    pub(crate) fn moves_with_q(&self) -> bool {
        !matches!(self.motion, Motion::Fixed) && matches!(self.coordinate, Coordinate::Variable { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_link() -> Chain {
        Chain::new(vec![
            Link {
                name: "base".into(),
                parent: None,
                placement: Pose::IDENTITY,
                motion: Motion::Fixed,
                coordinate: Coordinate::Constant(0.0),
            },
            Link {
                name: "upper".into(),
                parent: Some(0),
                placement: Pose::from_translation(DVec3::new(0.0, 0.0, 1.0)),
                motion: Motion::Revolute { axis: DVec3::Z },
                coordinate: Coordinate::Variable { variable: 0, multiplier: 1.0, offset: 0.0 },
            },
            Link {
                name: "slider".into(),
                parent: Some(1),
                placement: Pose::from_translation(DVec3::new(1.0, 0.0, 0.0)),
                motion: Motion::Prismatic { axis: DVec3::X },
                coordinate: Coordinate::Variable { variable: 1, multiplier: 2.0, offset: 0.1 },
            },
        ])
    }

    #[test]
    fn forward_kinematics_and_ancestors() {
        let c = two_link();
        assert_eq!(c.ancestors, vec![vec![], vec![1], vec![1, 2]]);
        let mut poses = [Pose::IDENTITY; 3];
        c.forward(&[std::f64::consts::FRAC_PI_2, 0.2], &mut poses);
        // upper turns +90° about z: its x axis is world y; the slider sits at 1 + (0.1 + 2·0.2) along it.
        assert!((poses[2].translation - DVec3::new(0.0, 1.5, 1.0)).length() < 1e-12);
    }

    #[test]
    fn jacobian_columns_match_finite_differences() {
        let c = two_link();
        let q = [0.3, 0.1];
        let local = DVec3::new(0.2, -0.1, 0.3);
        let mut poses = [Pose::IDENTITY; 3];
        let point = |q: &[f64]| {
            let mut p = [Pose::IDENTITY; 3];
            c.forward(q, &mut p);
            p[2].transform_point(local)
        };
        c.forward(&q, &mut poses);
        let p = poses[2].transform_point(local);
        let h = 1e-6;
        let fd0 = (point(&[q[0] + h, q[1]]) - point(&[q[0] - h, q[1]])) / (2.0 * h);
        let fd1 = (point(&[q[0], q[1] + h]) - point(&[q[0], q[1] - h])) / (2.0 * h);
        assert!((c.point_jacobian_column(&poses, 1, p) - fd0).length() < 1e-8);
        assert!((2.0 * c.point_jacobian_column(&poses, 2, p) - fd1).length() < 1e-8);
    }
}
