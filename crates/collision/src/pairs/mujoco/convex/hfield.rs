//! Height field against a convex geom: MuJoCo 4.0's `mjc_ConvexHField` (`engine_collision_convex.c`).
//!
//! Everything runs in the height field's frame. Early exits: the geom's bounding sphere against the field's box,
//! then the geom's box from six support queries. The sub-grid under that box is walked row by row; each cell's two
//! triangles extruded down to the base (`z = −base`) are convex prisms, and each prism whose top is not entirely
//! below the geom meets the geom in `mjc_penetration` (one contact: GJK/EPA, spheres and capsules shrunk to their
//! cores first). A pair keeps at most `mjMAXCONPAIR = 50` contacts. The geom's support warm starts carry over from
//! one prism to the next, as MuJoCo's single `mjCCDObj` does.

use glam::DVec2;
use signorini_geometry::HeightField;

use super::*;
use crate::pairs::mujoco::Frame;

/// `mjMAXCONPAIR`: contacts kept per geom pair.
const MAX_CONTACTS_PER_PAIR: usize = 50;

/// MuJoCo's height field (geom 1) against a convex geom (geom 2); appends up to 50 contacts.
pub(crate) fn convex_hfield(
    g1: &Shape,
    f1: &Frame,
    g2: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let Shape::HeightField(hf) = g1 else { return };
    with_scratch(|s| prisms(s, hf, f1, g2, f2, margin, out));
}

fn prisms(
    s: &mut Scratch,
    hf: &HeightField,
    f1: &Frame,
    g2: &Shape,
    f2: &Frame,
    margin: f64,
    out: &mut Vec<MjContact>,
) {
    let (size0, size1) = hf.half_extents();
    let size3 = hf.base_depth();
    let size2 = hf.height_range().1.max(0.0);
    // Geom 2 in the height field's frame.
    let local_pos = f1.mat.transpose() * (f2.pos - f1.pos);
    // A bounding radius about the geom's origin (the exit is conservative: the box test and the prisms decide).
    let bound = g2.local_aabb();
    let radius = bound.center().length() + 0.5 * bound.diagonal_length() + margin;
    if size0 < local_pos.x - radius
        || -size0 > local_pos.x + radius
        || size1 < local_pos.y - radius
        || -size1 > local_pos.y + radius
        || size2 < local_pos.z - radius
        || -size3 > local_pos.z + radius
    {
        return;
    }
    let local = Frame { pos: local_pos, mat: f1.mat.transpose() * f2.mat, pose: f2.pose };
    let Some(mut o2) = Obj::new(g2, &local, margin) else { return };
    // The geom's box from its supports along ±x, ±y, ±z (in MuJoCo's order: they also move its warm start).
    let mut extent = [0.0; 6];
    for (k, e) in extent.iter_mut().enumerate() {
        let mut axis = DVec3::ZERO;
        axis[k / 2] = if k % 2 == 0 { 1.0 } else { -1.0 };
        *e = o2.support_raw(axis)[k / 2];
    }
    let [xmax, xmin, ymax, ymin, zmax, zmin] = extent;
    if xmin - margin > size0
        || xmax + margin < -size0
        || ymin - margin > size1
        || ymax + margin < -size1
        || zmin - margin > size2
        || zmax + margin < -size3
    {
        return;
    }
    let (rows, cols) = hf.cells_overlapping(DVec2::new(xmin, ymin), DVec2::new(xmax, ymax));
    let start = out.len();
    for r in rows {
        for c in cols.clone() {
            for k in 0..2 {
                let Some(mut corners) = hf.prism(r, c, k) else { continue };
                for top in &mut corners[3..] {
                    top.z += margin;
                }
                if corners[3].z < zmin && corners[4].z < zmin && corners[5].z < zmin {
                    continue;
                }
                let mut o1 = Obj::prism(corners);
                let before = out.len();
                penetration(s, &mut o1, &mut o2, 0.0, false, out);
                for con in &mut out[before..] {
                    con.normal = f1.mat * con.normal;
                    con.pos = f1.mat * con.pos + f1.pos;
                }
                if out.len() - start >= MAX_CONTACTS_PER_PAIR {
                    out.truncate(start + MAX_CONTACTS_PER_PAIR);
                    return;
                }
            }
        }
    }
}
