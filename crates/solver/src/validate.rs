//! Validation of the solver's inputs: array lengths, Jacobian indices and values, `D`, `R`, `aref` and friction loss
//! of every row, and the layout of elliptic contact blocks. Whole-array checks run first (vectorisable); the
//! offending row is located only on failure.

use signorini_constraints::{ConstraintRows, DofIndex, RowKind};
use signorini_model::{Data, Model};

use crate::SolverError;
use crate::cost::MAX_CONE_ROWS;

/// `Ok` when `data` (`qacc_smooth`, `qfrc_smooth`, `qm`) fits `model` and `rows` are well formed for it; otherwise
/// the first problem found, as a typed error.
pub(crate) fn check_inputs(model: &Model, data: &Data, rows: &ConstraintRows) -> Result<(), SolverError> {
    let nv = model.nv;
    let n = rows.len();
    let dim = |what, expected, got| {
        if expected == got { Ok(()) } else { Err(SolverError::DimensionMismatch { what, expected, got }) }
    };
    dim("data.qacc_smooth", nv, data.qacc_smooth.len())?;
    dim("data.qfrc_smooth", nv, data.qfrc_smooth.len())?;
    dim("data.qm", model.nm, data.qm.len())?;
    if n == 0 {
        return Ok(());
    }
    dim("rows.jac_start", n + 1, rows.jac_start.len())?;
    dim("rows.id", n, rows.id.len())?;
    dim("rows.aref", n, rows.aref.len())?;
    dim("rows.d", n, rows.d.len())?;
    dim("rows.r", n, rows.r.len())?;
    dim("rows.frictionloss", n, rows.frictionloss.len())?;
    dim("rows.jac_dof", rows.jac_start[n], rows.jac_dof.len())?;
    dim("rows.jac_val", rows.jac_start[n], rows.jac_val.len())?;
    // Whole-array checks first (vectorisable); the offending row is located only on failure.
    let sorted_starts = rows.jac_start.windows(2).all(|w| w[0] <= w[1]);
    let dofs_in_range = all_below(&rows.jac_dof, nv);
    let finite_values = all_finite(&rows.jac_val);
    let rows_ok = rows.d.iter().zip(&rows.r).zip(&rows.aref).fold(true, |ok, ((&d, &r), &a)| {
        ok & (d > 0.0) & d.is_finite() & (r > 0.0) & r.is_finite() & a.is_finite()
    }) & rows
        .kind
        .iter()
        .zip(&rows.frictionloss)
        .fold(true, |ok, (&k, &f)| ok & (!k.is_friction_loss() | (f >= 0.0)));
    let all_ok = sorted_starts && dofs_in_range && finite_values && rows_ok;
    // Locate the offending row.
    if !all_ok {
        for i in 0..n {
            if !sorted_starts && rows.jac_start[i] > rows.jac_start[i + 1] {
                return Err(SolverError::InvalidRow { row: i, reason: "decreasing jac_start" });
            }
            if !(dofs_in_range && finite_values) {
                let (dofs, vals) = rows.jacobian_row(i);
                if let Some(&dof) = dofs.iter().find(|&&k| k as usize >= nv) {
                    return Err(SolverError::DofOutOfRange { row: i, dof: dof as usize, nv });
                }
                if vals.iter().any(|v| !v.is_finite()) {
                    return Err(SolverError::InvalidRow { row: i, reason: "non-finite Jacobian entry" });
                }
            }
            if !(rows.d[i] > 0.0 && rows.d[i].is_finite() && rows.r[i] > 0.0 && rows.r[i].is_finite()) {
                return Err(SolverError::InvalidRow { row: i, reason: "D and R must be finite and > 0" });
            }
            if !rows.aref[i].is_finite() {
                return Err(SolverError::InvalidRow { row: i, reason: "non-finite aref" });
            }
            if rows.kind[i].is_friction_loss() && !(rows.frictionloss[i] >= 0.0) {
                return Err(SolverError::InvalidRow { row: i, reason: "negative friction loss" });
            }
        }
    }
    dim("rows.cone", n, rows.cone.len())?;
    dim("rows.mu", n, rows.mu.len())?;
    let mut i = 0;
    while i < n {
        if rows.kind[i] != RowKind::ContactElliptic {
            i += 1;
            continue;
        }
        // An elliptic block: the normal row first, `contact_nrows` elliptic rows of the same contact.
        let bad = |reason| Err(SolverError::InvalidRow { row: i, reason });
        let Some(c) = rows.cone[i] else { return bad("elliptic row without a contact") };
        if c >= rows.contact_row_start.len() || c >= rows.contact_nrows.len() || c >= rows.contact_mu.len() {
            return bad("elliptic row of an unknown contact");
        }
        let len = rows.contact_nrows[c];
        if rows.contact_row_start[c] != i || len == 0 || len > MAX_CONE_ROWS || i + len > n {
            return bad("elliptic block does not start at its normal row or has a bad size");
        }
        if (i..i + len).any(|k| rows.kind[k] != RowKind::ContactElliptic || rows.cone[k] != Some(c)) {
            return bad("elliptic block mixes rows of other kinds or contacts");
        }
        if !(rows.contact_mu[c] > 0.0 && rows.contact_mu[c].is_finite())
            || rows.mu[i + 1..i + len].iter().any(|m| !m.is_finite())
        {
            return bad("elliptic cone coefficient must be finite and > 0");
        }
        i += len;
    }
    Ok(())
}

/// Whether every dof index is below `bound` (at most `isize::MAX`). Up to `i32::MAX` the indices are compared as
/// `i32`, an index of 2³¹ or more being negative, so that `0 ≤ k < bound` is two signed compares: four indices per
/// SSE2 register (an unsigned compare does not vectorise on baseline x86-64). Beyond, [`all_below_wide`].
fn all_below(values: &[DofIndex], bound: usize) -> bool {
    let Ok(bound) = i32::try_from(bound) else { return all_below_wide(values, bound) };
    none_outside::<u32, 8>(values, |k| {
        let k = k as i32;
        u32::from(k < 0) | u32::from(k >= bound)
    })
}

/// [`all_below`] for any `bound` up to `isize::MAX`, with only widening, subtractions, shifts and bit operations: the
/// index widened to 64 bits has its top bit clear, so `k < bound` iff the top bit of `k − bound` (wrapping) is set.
fn all_below_wide(values: &[DofIndex], bound: usize) -> bool {
    debug_assert!(bound <= isize::MAX as usize);
    let bound = bound as u64;
    none_outside::<u64, 4>(values, |k| (u64::from(k).wrapping_sub(bound) >> 63) ^ 1)
}

/// Whether `outside` is 0 for every index, its flags OR-ed in `L` independent lanes so that the loop vectorises.
#[inline(always)]
fn none_outside<T, const L: usize>(values: &[DofIndex], outside: impl Fn(DofIndex) -> T) -> bool
where
    T: Copy + Default + PartialEq + std::ops::BitOr<Output = T>,
{
    let mut lanes = [T::default(); L];
    let chunks = values.chunks_exact(L);
    let rest = chunks.remainder();
    for c in chunks {
        for (lane, &k) in lanes.iter_mut().zip(c) {
            *lane = *lane | outside(k);
        }
    }
    let tail = rest.iter().fold(T::default(), |acc, &k| acc | outside(k));
    lanes.iter().fold(tail, |acc, &l| acc | l) == T::default()
}

/// Whether every value is finite: `v · 0` is 0 for finite `v` and NaN otherwise, summed in 4 independent lanes
/// (vectorisable, no long dependency chain).
fn all_finite(values: &[f64]) -> bool {
    let mut lanes = [0.0f64; 4];
    let chunks = values.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        for (lane, v) in lanes.iter_mut().zip(c) {
            *lane += v * 0.0;
        }
    }
    let tail: f64 = rest.iter().map(|v| v * 0.0).sum();
    lanes.iter().sum::<f64>() + tail == 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `all_below` against the plain comparison, for lengths around the lane bodies and values at and around the
    /// bound, zero, and huge ones (top bit set), with bounds on both sides of `i32::MAX` (both paths).
    #[test]
    fn all_below_is_the_plain_comparison() {
        let specials =
            [0, 1, 5, 6, 7, DofIndex::MAX, DofIndex::MAX / 2, DofIndex::MAX / 2 + 1, DofIndex::MAX - 6];
        let top = DofIndex::MAX as usize;
        let half = i32::MAX as usize;
        for bound in [0, 1, 6, 7, half - 1, half, half + 1, top - 1, top, top + 1, isize::MAX as usize] {
            for n in 0..18 {
                for &v in &specials {
                    for at in 0..n {
                        let mut values: Vec<DofIndex> = (0..n as DofIndex).map(|i| i % 3).collect();
                        values[at] = v;
                        let plain = values.iter().all(|&k| (k as usize) < bound);
                        assert_eq!(all_below(&values, bound), plain, "{values:?} < {bound}");
                    }
                }
                let values: Vec<DofIndex> = (0..n as DofIndex).map(|i| i % 3).collect();
                assert_eq!(all_below(&values, bound), values.iter().all(|&k| (k as usize) < bound));
            }
        }
    }
}
