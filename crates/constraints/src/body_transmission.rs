//! The moment of an actuator on a body (MuJoCo's `mjTRN_BODY`, the adhesion actuator), from the step's contact rows
//! as MuJoCo's `mj_transmission` forms it.
//!
//! Over the `k` contacts that involve a geom of the body: a contact with rows marks them in a vector over the rows
//! (its normal row with 1 when it is frictionless or elliptic, each of its `2(dim − 1)` pyramid edges with
//! `1/(2(dim − 1))`), and the moment starts as `Jᵀ` of the marks, summed row by row (`mj_mulJacTVec`), so that a
//! pyramidal contact's normal is the average of its edges; a contact within the gap without rows adds its normal
//! row `n·(J_A − J_B)` (`mj_jacDifPair` over the union of the chains, then the frame's normal); the sum is scaled by
//! `−1/k` (negative: an adhesive force pulls).

use signorini_collision::contact_set::ContactSet;
use signorini_model::{Data, Model};

use crate::mujoco_dot::mujoco_transpose_mul_by_rows;
use crate::rows::{ConstraintRows, RowKind};

/// Writes the moment of an actuator on `body` into `moment` (`nv`; zero without a contact of the body, see the module
/// docs); `marks` is scratch. `rows` are the rows assembled from `contacts` at `data`'s pose.
pub fn body_transmission_moment(
    model: &Model,
    data: &Data,
    contacts: &ContactSet,
    rows: &ConstraintRows,
    body: usize,
    marks: &mut Vec<f64>,
    moment: &mut [f64],
) {
    let geom_body = &model.collision.geoms().body;
    marks.clear();
    marks.resize(rows.len(), 0.0);
    moment.fill(0.0);
    let mut excluded = false;
    let mut count = 0;
    let assembled = rows.contact_nrows.len().min(contacts.len());
    for c in 0..assembled {
        if geom_body[contacts.geom_a[c]] != body && geom_body[contacts.geom_b[c]] != body {
            continue;
        }
        count += 1;
        let (start, n) = (rows.contact_row_start[c], rows.contact_nrows[c]);
        if n == 0 {
            excluded = true;
            continue;
        }
        if rows.kind[start] == RowKind::ContactPyramidal {
            let edge = 0.5 / (rows.contact_dim[c] - 1) as f64;
            marks[start..start + n].fill(edge);
        } else {
            marks[start] = 1.0;
        }
    }
    if count == 0 {
        return;
    }
    mujoco_transpose_mul_by_rows(rows, marks, 0..rows.len(), moment);
    if excluded {
        // MuJoCo adds the excluded contacts' rows after the others (`moment_exclude`), summed among themselves first.
        let mut extra = std::mem::take(marks);
        extra.clear();
        extra.resize(model.nv, 0.0);
        for c in 0..assembled {
            let touches = geom_body[contacts.geom_a[c]] == body || geom_body[contacts.geom_b[c]] == body;
            if !touches || rows.contact_nrows[c] != 0 {
                continue;
            }
            let links = (contacts.link_a[c], contacts.link_b[c]);
            model.add_contact_normal_row(
                data,
                links,
                contacts.position[c],
                contacts.normal[c],
                1.0,
                &mut extra,
            );
        }
        for (m, e) in moment.iter_mut().zip(&extra) {
            *m += e;
        }
        *marks = extra;
    }
    let scale = -1.0 / count as f64;
    moment.iter_mut().for_each(|m| *m *= scale);
}
