//! Allowed-collision-matrix generation as MoveIt's setup assistant does it: sample configurations uniformly within
//! the joint limits and classify every pair of links with geometry as `Adjacent` (rigidly attached, or one hinged to
//! the other's rigid group), `Never` (collides in no sample), `Always` (collides in at least `always_fraction` of
//! them) or enabled. The sampling and classification are the collision layer's
//! [`generate_acm`]; this module supplies the robot's poses and writes
//! the result as SRDF.

use signorini_collision::filter::{AcmGeneration, AcmSampling, generate_acm};
use signorini_collision::world::{BodyDesc, CollisionOptions, CollisionWorld, GeomDesc};
use signorini_geometry::Pose;
use signorini_urdf::write_srdf;

use crate::error::{Result, RobotError};
use crate::model::RobotModel;

/// Settings of [`RobotModel::generate_acm`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AcmSettings {
    /// Configurations sampled. Default 10 000 (MoveIt's default).
    pub samples: usize,
    /// Seed of the samples: the same seed gives the same matrix.
    pub seed: u64,
    /// A pair colliding in at least this fraction of the samples is `Always`. Default 0.99.
    pub always_fraction: f64,
}

impl Default for AcmSettings {
    fn default() -> Self {
        Self { samples: 10_000, seed: 0, always_fraction: 0.99 }
    }
}

/// SplitMix64 of one 64-bit word: a counter-based generator, so sample `s` is the same whichever order samples are
/// drawn in.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl RobotModel {
    /// Configuration `sample` of the uniform sequence of `seed` within the joint limits.
    pub fn sample_configuration(&self, seed: u64, sample: u64, q: &mut [f64]) {
        let base = splitmix64(seed ^ splitmix64(sample));
        for (v, (qv, [lo, hi])) in q.iter_mut().zip(self.joint_limits()).enumerate() {
            let u = (splitmix64(base.wrapping_add(v as u64)) >> 11) as f64 / (1u64 << 53) as f64;
            *qv = lo + u * (hi - lo);
        }
    }

    /// A collision world with one body per link (body `l + 1` is link `l`; body 0 is the world) and the robot's
    /// geometries; links on locked or fixed joints are rigidly attached.
    fn collision_world(&self) -> Result<CollisionWorld> {
        let options = CollisionOptions { enable_self_collision: true, ..CollisionOptions::default() };
        let mut world = CollisionWorld::new(options)?;
        for link in &self.chain.links {
            world.add_body(BodyDesc::new(
                link.name.clone(),
                link.parent.map_or(0, |p| p + 1),
                link.moves_with_q(),
            ))?;
        }
        for g in &self.geoms {
            world.add_geom(GeomDesc { local_pose: g.local, ..GeomDesc::new(g.shape.clone(), g.link + 1) })?;
        }
        Ok(world)
    }

    /// Generates the allowed-collision matrix by sampling (see the module docs). Bodies are numbered as links
    /// plus one (body 0 is the world).
    pub fn generate_acm(&self, settings: &AcmSettings) -> Result<AcmGeneration> {
        if settings.samples == 0 {
            return Err(RobotError::InvalidArgument {
                what: "ACM generation needs at least one sample".into(),
            });
        }
        let mut world = self.collision_world()?;
        let sampling = AcmSampling {
            n_samples: settings.samples,
            always_fraction: settings.always_fraction,
            self_collision_only: true,
        };
        let mut data = self.data();
        let data = std::cell::RefCell::new(&mut data);
        let mut q = vec![0.0; self.nq()];
        let q = std::cell::RefCell::new(&mut q);
        Ok(generate_acm(&mut world, &sampling, |s| {
            let (mut data, mut q) = (data.borrow_mut(), q.borrow_mut());
            self.sample_configuration(settings.seed, s as u64, &mut q);
            self.forward_unchecked(&mut data, &q);
            std::iter::once(Pose::IDENTITY).chain(data.links.iter().copied()).collect()
        })?)
    }

    /// The matrix of [`RobotModel::generate_acm`] as an SRDF document.
    pub fn acm_srdf(&self, generation: &AcmGeneration) -> String {
        let names: Vec<&str> = self.link_names().collect();
        write_srdf(self.name(), &generation.acm, |b| {
            names.get(b.wrapping_sub(1)).copied().unwrap_or("world").into()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::splitmix64;

    #[test]
    fn splitmix_is_spread() {
        // Reference values of SplitMix64 (Vigna) from state 0: the first output is splitmix64(0).
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_ne!(splitmix64(1), splitmix64(2));
    }
}
