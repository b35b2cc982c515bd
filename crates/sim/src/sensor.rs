//! Sensor evaluation (MuJoCo `mj_sensorPos`, `mj_sensorVel`, `mj_sensorAcc`) into `sensordata`, once per physics
//! step on the state the step starts from (after the first evaluation of the dynamics, before integration; RK4's
//! later stages do not change them), as MuJoCo's `mj_step` leaves them.
//!
//! The definitions and the rigid-body quantities are `signorini_model::sensor`'s; this stage adds what needs the
//! contacts and constraint forces: the external wrenches `cfrc_ext` (applied forces, contact forces and torques,
//! connect and weld forces, spatial tendon tensions, in MuJoCo 4.0's order) behind the force, torque and
//! acceleration sensors, touch, and the limit sensors' rows.

use glam::DVec3;
use signorini_constraints::RowKind;
use signorini_geometry::ray::ray_distance;
use signorini_model::sensor::{FrameQuantity, SensorFrame, SensorKind, force_at};
use signorini_model::{SpatialVec, Transmission};

use crate::data::Data;
use crate::model::Model;

/// Fills `sensordata` from the evaluation just done (`d.qacc_warmstart` holds its constrained acceleration).
pub(crate) fn evaluate(model: &Model, d: &mut Data) {
    let m = &model.multibody;
    if m.sensors.is_empty() {
        return;
    }
    if m.sensors.iter().any(|s| s.kind.needs_rne_post()) {
        external_wrenches(model, d);
        m.rne_post_constraint(&mut d.multibody, &d.qacc_warmstart);
    }
    if m.sensors.iter().any(|s| s.kind.needs_subtree_velocity()) {
        m.subtree_velocity(&mut d.multibody);
    }
    let mut out = std::mem::take(&mut d.multibody.sensordata);
    for (sensor, &adr) in m.sensors.iter().zip(&m.sensor_adr) {
        let values = &mut out[adr..adr + sensor.kind.dim()];
        read(model, d, &sensor.kind, values);
        let c = sensor.cutoff;
        if c > 0.0 && !sensor.kind.is_direction() {
            for v in values.iter_mut() {
                *v = match sensor.kind {
                    SensorKind::Touch { .. } => v.min(c),
                    _ => v.clamp(-c, c),
                };
            }
        }
    }
    d.multibody.sensordata = out;
}

/// The value of one sensor.
fn read(model: &Model, d: &Data, kind: &SensorKind, out: &mut [f64]) {
    let m = &model.multibody;
    let b = &d.multibody;
    let put3 = |out: &mut [f64], v: DVec3| out.copy_from_slice(&v.to_array());
    match *kind {
        SensorKind::JointPos(j) => out[0] = b.qpos[m.jnt_qposadr[j]],
        SensorKind::JointVel(j) => out[0] = b.qvel[m.jnt_dofadr[j]],
        SensorKind::BallQuat(j) => {
            let a = m.jnt_qposadr[j];
            let q = glam::DQuat::from_xyzw(b.qpos[a + 1], b.qpos[a + 2], b.qpos[a + 3], b.qpos[a]);
            let q = normalize_quat(q);
            out.copy_from_slice(&[q.w, q.x, q.y, q.z]);
        }
        SensorKind::BallAngVel(j) => {
            let a = m.jnt_dofadr[j];
            out.copy_from_slice(&b.qvel[a..a + 3]);
        }
        SensorKind::JointLimitPos(j) => out[0] = limit_row(d, RowKind::LimitJoint, j, |r| r.0 - r.1),
        SensorKind::JointLimitVel(j) => out[0] = limit_row(d, RowKind::LimitJoint, j, |r| r.2),
        SensorKind::JointLimitFrc(j) => out[0] = limit_row(d, RowKind::LimitJoint, j, |r| r.3),
        SensorKind::TendonPos(t) => out[0] = b.ten_length[t],
        SensorKind::TendonVel(t) => out[0] = b.ten_velocity[t],
        SensorKind::TendonLimitPos(t) => out[0] = limit_row(d, RowKind::LimitTendon, t, |r| r.0 - r.1),
        SensorKind::TendonLimitVel(t) => out[0] = limit_row(d, RowKind::LimitTendon, t, |r| r.2),
        SensorKind::TendonLimitFrc(t) => out[0] = limit_row(d, RowKind::LimitTendon, t, |r| r.3),
        SensorKind::ActuatorPos(a) => out[0] = b.actuator_length[a],
        SensorKind::ActuatorVel(a) => out[0] = b.actuator_velocity[a],
        SensorKind::ActuatorFrc(a) => out[0] = b.actuator_force[a],
        SensorKind::JointActuatorFrc(j) => out[0] = b.qfrc_actuator[m.jnt_dofadr[j]],
        SensorKind::TendonActuatorFrc(t) => {
            out[0] = (0..m.nu)
                .filter(|&a| m.actuator_transmission[a] == Transmission::Tendon(t))
                .map(|a| b.actuator_force[a])
                .sum();
        }
        SensorKind::Frame { quantity, object, reference } => {
            frame(model, b, quantity, object, reference, out)
        }
        SensorKind::SubtreeCom(body) => put3(out, b.subtree_com[body]),
        SensorKind::SubtreeLinVel(body) => put3(out, b.subtree_linvel[body]),
        SensorKind::SubtreeAngMom(body) => put3(out, b.subtree_angmom[body]),
        SensorKind::Accelerometer(s) => put3(out, m.object_acceleration(b, SensorFrame::Site(s), true).lin),
        SensorKind::Velocimeter(s) => put3(out, m.object_velocity(b, SensorFrame::Site(s), true).lin),
        SensorKind::Gyro(s) => put3(out, m.object_velocity(b, SensorFrame::Site(s), true).ang),
        SensorKind::Magnetometer { site, field } => put3(out, b.site_xmat[site].transpose() * field),
        SensorKind::Force(s) | SensorKind::Torque(s) => {
            let body = m.site_bodyid[s];
            let c = b.subtree_com[m.body_rootid[body]];
            let w = force_at(b.cfrc_int[body], b.site_xpos[s], c, Some(&b.site_xmat[s]));
            put3(out, if matches!(kind, SensorKind::Force(_)) { w.lin } else { w.ang });
        }
        SensorKind::Touch { site, ref shape } => out[0] = touch(model, d, site, shape),
        SensorKind::Rangefinder(site) => out[0] = rangefinder(model, d, site),
        SensorKind::Clock => out[0] = b.time,
    }
}

/// `q / |q|` as MuJoCo's `mju_normalize4` (a vanishing quaternion reads as the identity).
fn normalize_quat(q: glam::DQuat) -> glam::DQuat {
    let n = q.length();
    if n < 1e-15 { glam::DQuat::IDENTITY } else { q * (1.0 / n) }
}

/// A value of the first row of `kind` for object `id`, `(pos, margin, vel, force)` → value; 0 without such a row.
fn limit_row(d: &Data, kind: RowKind, id: usize, value: impl Fn((f64, f64, f64, f64)) -> f64) -> f64 {
    let rows = &d.rows;
    (0..rows.len()).find(|&i| rows.kind[i] == kind && rows.id[i] == id).map_or(0.0, |i| {
        value((rows.pos[i], rows.margin[i], rows.vel[i], d.efc_force.get(i).copied().unwrap_or(0.0)))
    })
}

fn frame(
    model: &Model,
    b: &signorini_model::Data,
    quantity: FrameQuantity,
    object: SensorFrame,
    reference: Option<SensorFrame>,
    out: &mut [f64],
) {
    let m = &model.multibody;
    let put3 = |out: &mut [f64], v: DVec3| out.copy_from_slice(&v.to_array());
    let (_, p, r) = m.sensor_frame(b, object);
    let (pr, rr) = match reference {
        Some(f) => {
            let (_, pr, rr) = m.sensor_frame(b, f);
            (pr, Some(rr))
        }
        None => (DVec3::ZERO, None),
    };
    let in_reference = |v: DVec3| rr.map_or(v, |rr| rr.transpose() * v);
    match quantity {
        FrameQuantity::Pos => put3(out, if reference.is_some() { in_reference(p - pr) } else { p }),
        FrameQuantity::XAxis => put3(out, in_reference(r.x_axis)),
        FrameQuantity::YAxis => put3(out, in_reference(r.y_axis)),
        FrameQuantity::ZAxis => put3(out, in_reference(r.z_axis)),
        FrameQuantity::Quat => {
            let q = m.sensor_frame_quat(b, object);
            let q = match reference {
                Some(f) => m.sensor_frame_quat(b, f).conjugate() * q,
                None => q,
            };
            out.copy_from_slice(&[q.w, q.x, q.y, q.z]);
        }
        FrameQuantity::LinVel | FrameQuantity::AngVel => {
            let mut v = m.object_velocity(b, object, false);
            if let Some(f) = reference {
                let vr = m.object_velocity(b, f, false);
                let mut rel = SpatialVec::new(v.ang - vr.ang, v.lin - vr.lin);
                rel.lin += (p - pr).cross(vr.ang);
                v = SpatialVec::new(in_reference(rel.ang), in_reference(rel.lin));
            }
            put3(out, if quantity == FrameQuantity::LinVel { v.lin } else { v.ang });
        }
        FrameQuantity::LinAcc => put3(out, m.object_acceleration(b, object, false).lin),
        FrameQuantity::AngAcc => put3(out, m.object_acceleration(b, object, false).ang),
    }
}

/// The force on body A of contact `c` and its torque about the contact point, world frame, from its rows'
/// forces: normal and sliding rows act on the translational part, torsional and rolling rows on the rotational
/// one (the rows' Jacobians are `J_A − J_B`, so B takes the opposite wrench). `None` without rows.
fn contact_wrench(
    d: &Data,
    tangents: signorini_constraints::frame::TangentFrame,
    c: usize,
) -> Option<(DVec3, DVec3)> {
    let rows = &d.rows;
    let (&start, &nrows) = (rows.contact_row_start.get(c)?, rows.contact_nrows.get(c)?);
    if nrows == 0 {
        return None;
    }
    let contacts = d.collision.contacts();
    let (t1, t2) = tangents.hinted_tangents(contacts.normal[c], contacts.tangent_hint(c));
    let n = contacts.normal[c];
    let axes = [t1, t2, n, t1, t2];
    let force = |i: usize| d.efc_force.get(i).copied().unwrap_or(0.0);
    let (mut f, mut t) = (DVec3::ZERO, DVec3::ZERO);
    match rows.kind[start] {
        RowKind::ContactPyramidal => {
            // Edges `n ± μ_k dir_k` in (+, −) pairs: sliding t₁, t₂, then torsion about n, rolling about t₁, t₂.
            for (k, i) in (start..start + nrows).enumerate() {
                let (dir, sign) = (k / 2, if k % 2 == 0 { 1.0 } else { -1.0 });
                let (p, w) = (force(i), sign * rows.mu[i]);
                f += p * n;
                if dir < 2 {
                    f += p * w * axes[dir];
                } else {
                    t += p * w * axes[dir];
                }
            }
        }
        RowKind::ContactElliptic => {
            f += force(start) * n;
            for k in 1..nrows {
                if k <= 2 {
                    f += force(start + k) * axes[k - 1];
                } else {
                    t += force(start + k) * axes[k - 1];
                }
            }
        }
        _ => f += force(start) * n,
    }
    // MuJoCo 4.0's net force: the solver's normal force less the adhesion (its pull is a passive force).
    f -= d.collision.contacts().adhesion[c] * n;
    Some((f, t))
}

/// The normal force of contact `c` (its rows' total along the normal); 0 without rows.
fn normal_force(d: &Data, c: usize) -> f64 {
    let rows = &d.rows;
    let (Some(&start), Some(&nrows)) = (rows.contact_row_start.get(c), rows.contact_nrows.get(c)) else {
        return 0.0;
    };
    let force = |i: usize| d.efc_force.get(i).copied().unwrap_or(0.0);
    let adhesion = d.collision.contacts().adhesion.get(c).copied().unwrap_or(0.0);
    match rows.kind.get(start) {
        Some(RowKind::ContactPyramidal) if nrows > 0 => {
            (start..start + nrows).map(force).sum::<f64>() - adhesion
        }
        Some(_) if nrows > 0 => force(start) - adhesion,
        _ => 0.0,
    }
}

/// `cfrc_ext`: the external wrench on every body about its tree's reference point, in MuJoCo 4.0's order (applied,
/// contacts, connect and weld equalities, spatial tendons).
fn external_wrenches(model: &Model, d: &mut Data) {
    let m = &model.multibody;
    let mut ext = std::mem::take(&mut d.multibody.cfrc_ext);
    ext.fill(SpatialVec::ZERO);
    let b = &d.multibody;
    let add = |ext: &mut [SpatialVec], body: usize, at: DVec3, force: DVec3, torque: DVec3| {
        if body != 0 {
            let c = b.subtree_com[m.body_rootid[body]];
            ext[body] += force_at(SpatialVec::new(torque, force), c, at, None);
        }
    };
    for body in 1..m.nbody {
        let w = b.xfrc_applied[body];
        if w.force != DVec3::ZERO || w.torque != DVec3::ZERO {
            add(&mut ext, body, b.xipos[body], w.force, w.torque);
        }
    }
    let cs = d.collision.contacts();
    let tangents = model.constraint_options.tangent_frame;
    for c in 0..cs.len() {
        if let Some((f, t)) = contact_wrench(d, tangents, c) {
            add(&mut ext, cs.link_b[c], cs.position[c], -f, -t);
            add(&mut ext, cs.link_a[c], cs.position[c], f, t);
        }
    }
    let rows = &d.rows;
    let mut i = 0;
    while i < rows.len() {
        let n = match rows.kind[i] {
            RowKind::EqualityConnect => 3,
            RowKind::EqualityWeld => 6,
            _ => {
                i += 1;
                continue;
            }
        };
        let forces = &d.efc_force[i..i + n];
        if let Some(pair) = model.assembler.equality_wrenches(b, rows.id[i], forces) {
            for (body, at, force, torque) in pair {
                add(&mut ext, body, at, force, torque);
            }
        }
        i += n;
    }
    let t = &m.tendons;
    let mut path = Vec::new();
    for k in (0..t.len()).filter(|&k| t.is_spatial(k)) {
        let tension = tendon_tension(model, d, k);
        path.clear();
        m.tendon_path_points(b, k, &mut path);
        for pair in path.windows(2) {
            let ((body_a, pa, before), (body_b, pb, div)) = (pair[0], pair[1]);
            if before.is_nan() || div.is_nan() {
                continue;
            }
            let u = (pb - pa).normalize_or_zero();
            add(&mut ext, body_b, pb, tension / div * u, DVec3::ZERO);
            add(&mut ext, body_a, pa, -tension / div * u, DVec3::ZERO);
        }
    }
    d.multibody.cfrc_ext = ext;
}

/// The tension of tendon `k` (positive pushes its ends apart): spring and damper, its limit and friction-loss rows,
/// and the actuators pulling on it.
fn tendon_tension(model: &Model, d: &Data, k: usize) -> f64 {
    let m = &model.multibody;
    let b = &d.multibody;
    let passive = m.tendon_passive_force(b, k);
    let rows = &d.rows;
    let mut constraint = 0.0;
    for i in 0..rows.len() {
        if rows.id[i] != k || !matches!(rows.kind[i], RowKind::LimitTendon | RowKind::FrictionTendon) {
            continue;
        }
        constraint += match rows.kind[i] {
            // The lower side's row runs along +J (its distance is L − lower), the upper side's along −J.
            RowKind::LimitTendon => {
                let lower = m.tendons.range[k].map_or(f64::NAN, |r| r[0]);
                let sign = if rows.pos[i] == b.ten_length[k] - lower { 1.0 } else { -1.0 };
                sign * d.efc_force[i]
            }
            RowKind::FrictionTendon => d.efc_force[i],
            _ => 0.0,
        };
    }
    for i in 0..rows.len() {
        if rows.kind[i] != RowKind::EqualityTendon {
            continue;
        }
        if let Some(pulls) = model.assembler.tendon_equality_coefficients(b, rows.id[i]) {
            constraint += pulls.iter().filter(|(t, _)| *t == k).map(|(_, c)| c * d.efc_force[i]).sum::<f64>();
        }
    }
    let actuators: f64 = (0..m.nu)
        .filter(|&a| m.actuator_transmission[a] == Transmission::Tendon(k))
        .map(|a| b.actuator_force[a] * m.actuator_gear[a])
        .sum();
    passive + (constraint + actuators)
}

/// MuJoCo's site rangefinder (`mj_ray` from the site along its z axis, every geom but the site's body's and the
/// invisible ones, static geoms included): the nearest hit's distance, or −1.
fn rangefinder(model: &Model, d: &Data, site: usize) -> f64 {
    let m = &model.multibody;
    let b = &d.multibody;
    let exclude = m.site_bodyid[site];
    let (origin, dir) = (b.site_xpos[site], b.site_xmat[site].z_axis);
    let geoms = m.collision.geoms();
    let mut best = -1.0;
    for g in 0..m.ngeom {
        if geoms.body[g] == exclude || !m.geom_visible[g] {
            continue;
        }
        let rot = b.geom_xmat[g];
        let (o, v) = (rot.transpose() * (origin - b.geom_xpos[g]), rot.transpose() * dir);
        let Some(t) = ray_distance(&geoms.shape[g], o, v) else { continue };
        if let signorini_geometry::Shape::Plane(_) = geoms.shape[g] {
            // Only within the plane's rendered rectangle.
            let p = o + t * v;
            let [sx, sy] = m.geom_plane_extent[g];
            if (sx > 0.0 && p.x.abs() > sx) || (sy > 0.0 && p.y.abs() > sy) {
                continue;
            }
        }
        if best < 0.0 || t < best {
            best = t;
        }
    }
    best
}

/// The normal forces of the contacts of the site's body whose point is in the site's volume or whose normal ray,
/// pointing from the site's body into the other, hits it.
fn touch(model: &Model, d: &Data, site: usize, shape: &signorini_geometry::Shape) -> f64 {
    let m = &model.multibody;
    let b = &d.multibody;
    let body = m.site_bodyid[site];
    let cs = d.collision.contacts();
    let (origin, rot) = (b.site_xpos[site], b.site_xmat[site]);
    let mut sum = 0.0;
    for c in 0..cs.len() {
        let (a, other) = (cs.link_a[c], cs.link_b[c]);
        if body != a && body != other {
            continue;
        }
        let f = normal_force(d, c);
        if !(f > 0.0) {
            continue;
        }
        // The normal points from B to A: from A into B is −n.
        let dir = if body == a { -cs.normal[c] } else { cs.normal[c] };
        let local_origin = rot.transpose() * (cs.position[c] - origin);
        if ray_distance(shape, local_origin, rot.transpose() * dir).is_some() {
            sum += f;
        }
    }
    sum
}
