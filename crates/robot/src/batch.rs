//! Batched queries: one query over many configurations, spread over the threads of the current `rayon` pool (size it
//! with `rayon::ThreadPoolBuilder` and `install`). Results come in input order; each thread reuses one
//! [`RobotData`]. An invalid configuration makes the whole batch an error naming the first bad index.

use rayon::prelude::*;

use crate::error::Result;
use crate::model::RobotModel;
use crate::motion::{MotionCheck, MotionSettings};
use crate::queries::{PairDistance, RobotData};

impl RobotModel {
    /// `f(data, q)` for every configuration of `qs`, in parallel, results in order.
    pub fn par_map<Q, T, F>(&self, qs: &[Q], f: F) -> Result<Vec<T>>
    where
        Q: AsRef<[f64]> + Sync,
        T: Send,
        F: Fn(&mut RobotData, &[f64]) -> Result<T> + Sync + Send,
    {
        for (i, q) in qs.iter().enumerate() {
            self.check_configuration(q.as_ref(), i)?;
        }
        qs.par_iter().map_init(|| self.data(), |data, q| f(data, q.as_ref())).collect()
    }

    /// [`RobotModel::is_colliding`] of every configuration.
    pub fn batch_is_colliding<Q: AsRef<[f64]> + Sync>(&self, qs: &[Q]) -> Result<Vec<bool>> {
        self.par_map(qs, |data, q| self.is_colliding(data, q))
    }

    /// [`RobotModel::distances`] of every configuration.
    pub fn batch_distances<Q: AsRef<[f64]> + Sync>(&self, qs: &[Q]) -> Result<Vec<Vec<PairDistance>>> {
        self.par_map(qs, |data, q| {
            let mut out = Vec::with_capacity(self.pairs.len());
            self.distances(data, q, &mut out)?;
            Ok(out)
        })
    }

    /// [`RobotModel::min_distance`] of every configuration.
    pub fn batch_min_distance<Q: AsRef<[f64]> + Sync>(&self, qs: &[Q]) -> Result<Vec<Option<PairDistance>>> {
        self.par_map(qs, |data, q| self.min_distance(data, q))
    }

    /// [`RobotModel::distance_gradients`] of every configuration: per configuration the distances and the
    /// `pairs × nq` gradient matrix.
    pub fn batch_distance_gradients<Q: AsRef<[f64]> + Sync>(
        &self,
        qs: &[Q],
    ) -> Result<Vec<(Vec<PairDistance>, Vec<f64>)>> {
        self.par_map(qs, |data, q| {
            let (mut d, mut g) = (Vec::new(), Vec::new());
            self.distance_gradients(data, q, &mut d, &mut g)?;
            Ok((d, g))
        })
    }

    /// [`RobotModel::check_motion`] of every segment `(q0, q1)`.
    pub fn batch_check_motion<Q: AsRef<[f64]> + Sync>(
        &self,
        segments: &[(Q, Q)],
        settings: &MotionSettings,
    ) -> Result<Vec<MotionCheck>> {
        for (i, (a, b)) in segments.iter().enumerate() {
            self.check_configuration(a.as_ref(), 2 * i)?;
            self.check_configuration(b.as_ref(), 2 * i + 1)?;
        }
        segments
            .par_iter()
            .map_init(
                || self.data(),
                |data, (a, b)| self.check_motion(data, a.as_ref(), b.as_ref(), settings),
            )
            .collect()
    }
}
