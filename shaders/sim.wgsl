// One physics step of a batch of environments, one invocation per environment (`signorini-gpu`, `GpuBatch`).
//
// The host prepends `alias real = f32|f64;` and the model's sizes, options and buffer offsets as `const`s (see
// crates/gpu/src/sim_layout.rs). The algorithms are those of the f64 CPU path, stage by stage:
// forward kinematics and com-based motion subspaces (signorini-model kinematics.rs), the composite rigid body mass
// matrix in the sparse tree layout and its LDLᵀ factor (crba.rs, factor.rs), recursive Newton–Euler bias forces
// (rne.rs), passive damping and springs, the narrow phase of plane/sphere/capsule/box pairs (closed forms of collision
// pairs/ and narrow/box_box.rs; MPR for capsule–box in mpr.wgsl and capsule_box.wgsl) and the contact pruning of
// prune.wgsl (those three files are appended to this one), pyramidal soft contacts and joint limits (constraints
// assemble.rs, impedance.rs),
// and a primal conjugate-gradient solve with an exact line search and a fixed iteration budget (spec §C.3–§C.5),
// then semi-implicit Euler (approximate_implicitfast: damping enters M before the solve).
//
// Conventions: quaternions are vec4 (x, y, z, w) in working memory and (w, x, y, z) in qpos, as MuJoCo; a spatial
// vector is (angular, linear); contact normals point from geom B to geom A with a positive penetration (spec §3).

@group(0) @binding(0) var<storage, read> mf: array<real>;
@group(0) @binding(1) var<storage, read> mu: array<u32>;
@group(0) @binding(2) var<storage, read_write> st: array<real>;
@group(0) @binding(3) var<storage, read_write> wk: array<real>;
@group(0) @binding(4) var<storage, read_write> iw: array<u32>;
// Per environment: flags (1 contact budget, 2 row budget, 4 singular or non-finite, 8 a loop ended early by the
// device), contacts needed, contacts, rows, solver iterations, steps taken, solver done, the narrow phase's next pair.
@group(0) @binding(5) var<storage, read_write> sts: array<u32>;
const O_FLAGS: u32 = 0u;
const O_NEED: u32 = 1u;
const O_NCON: u32 = 2u;
const O_NROW: u32 = 3u;
const O_NITER: u32 = 4u;
const O_STEPS: u32 = 5u;
const O_DONE: u32 = 6u;
const O_CURSOR: u32 = 7u;
const O_STRIDE: u32 = 8u;

const NONE: u32 = 0xffffffffu;
const FREE: u32 = 0u;
const BALL: u32 = 1u;
const SLIDE: u32 = 2u;
const HINGE: u32 = 3u;
const G_PLANE: u32 = 0u;
const G_SPHERE: u32 = 1u;
const G_CAPSULE: u32 = 4u;
const G_BOX: u32 = 5u;

var<private> sb: u32; // this environment's state base
var<private> wb: u32; // work base
var<private> ib: u32; // integer work base
var<private> ob: u32; // status base

// ---- small vector helpers --------------------------------------------------------------------------------------

fn ld3(a: u32) -> vec3<real> { return vec3<real>(wk[wb + a], wk[wb + a + 1u], wk[wb + a + 2u]); }
fn st3(a: u32, v: vec3<real>) { wk[wb + a] = v.x; wk[wb + a + 1u] = v.y; wk[wb + a + 2u] = v.z; }
fn ad3(a: u32, v: vec3<real>) { st3(a, ld3(a) + v); }
fn ld4(a: u32) -> vec4<real> { return vec4<real>(wk[wb + a], wk[wb + a + 1u], wk[wb + a + 2u], wk[wb + a + 3u]); }
fn st4(a: u32, v: vec4<real>) { wk[wb + a] = v.x; wk[wb + a + 1u] = v.y; wk[wb + a + 2u] = v.z; wk[wb + a + 3u] = v.w; }
fn m3(a: u32) -> vec3<real> { return vec3<real>(mf[a], mf[a + 1u], mf[a + 2u]); }
fn m4(a: u32) -> vec4<real> { return vec4<real>(mf[a], mf[a + 1u], mf[a + 2u], mf[a + 3u]); }
fn ldm(a: u32) -> mat3x3<real> { return mat3x3<real>(ld3(a), ld3(a + 3u), ld3(a + 6u)); }
fn stm(a: u32, m: mat3x3<real>) { st3(a, m[0]); st3(a + 3u, m[1]); st3(a + 6u, m[2]); }

fn qmul(a: vec4<real>, b: vec4<real>) -> vec4<real> {
    return vec4<real>(
        a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz),
        a.w * b.w - dot(a.xyz, b.xyz));
}
fn qrot(q: vec4<real>, v: vec3<real>) -> vec3<real> {
    let t = real(2.0) * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}
fn qnormalize(q: vec4<real>) -> vec4<real> {
    let n = sqrt(dot(q, q));
    if (n < real(1e-15)) { return vec4<real>(real(0.0), real(0.0), real(0.0), real(1.0)); }
    return q / n;
}
fn qmat(q: vec4<real>) -> mat3x3<real> {
    return mat3x3<real>(qrot(q, vec3<real>(1.0, 0.0, 0.0)), qrot(q, vec3<real>(0.0, 1.0, 0.0)), qrot(q, vec3<real>(0.0, 0.0, 1.0)));
}
fn vnorm(v: vec3<real>) -> real { return sqrt(dot(v, v)); }
fn unit_axis(i: u32) -> vec3<real> {
    var e = vec3<real>(0.0, 0.0, 0.0);
    e[i] = real(1.0);
    return e;
}
fn sgn(x: real) -> real { return select(real(-1.0), real(1.0), x >= real(0.0)); }

// sin and cos by quadrant reduction and Taylor series (f64 shaders have no trigonometric builtins on Vulkan).
fn sincos(x: real) -> vec2<real> {
    let k = floor(x * real(0.63661977236758134308) + real(0.5));
    let r = (x - k * real(1.5707963267341256)) - k * real(6.077100506506192e-11);
    let r2 = r * r;
    var s = real(1.0);
    var c = real(1.0);
    var ts = real(1.0);
    var tc = real(1.0);
    for (var n = 1; n <= 9; n++) {
        ts = -ts * r2 / real((2 * n) * (2 * n + 1));
        tc = -tc * r2 / real((2 * n - 1) * (2 * n));
        s += ts;
        c += tc;
    }
    s *= r;
    let q = i32(k - real(4.0) * floor(k * real(0.25)));
    if (q == 0) { return vec2<real>(s, c); }
    if (q == 1) { return vec2<real>(c, -s); }
    if (q == 2) { return vec2<real>(-s, -c); }
    return vec2<real>(-c, s);
}
fn axis_angle(axis: vec3<real>, angle: real) -> vec4<real> {
    let sc = sincos(real(0.5) * angle);
    return vec4<real>(axis * sc.x, sc.y);
}

// ---- model access --------------------------------------------------------------------------------------------

fn body_parent(b: u32) -> u32 { return mu[MU_BODY_PARENT + b]; }
fn dof_parent(i: u32) -> u32 { return mu[MU_DOF_PARENT + i]; }
fn dof_body(i: u32) -> u32 { return mu[MU_DOF_BODY + i]; }
fn madr(i: u32) -> u32 { return mu[MU_DOF_MADR + i]; }
fn rownnz(i: u32) -> u32 { return mu[MU_DOF_ROWNNZ + i]; }
fn colind(a: u32) -> u32 { return mu[MU_DOF_COLIND + a]; }

// Spatial vector in work memory at `a`: (ang, lin).
fn sang(a: u32) -> vec3<real> { return ld3(a); }
fn slin(a: u32) -> vec3<real> { return ld3(a + 3u); }
fn sset(a: u32, ang: vec3<real>, lin: vec3<real>) { st3(a, ang); st3(a + 3u, lin); }

// Spatial inertia at `a`: mass, h (3), rot (9): `I·(ω, v) = (rot ω + h × v, m v − h × ω)`.
fn imul(a: u32, ang: vec3<real>, lin: vec3<real>) -> array<vec3<real>, 2> {
    let m = wk[wb + a];
    let h = ld3(a + 1u);
    let r = ldm(a + 4u);
    return array<vec3<real>, 2>(r * ang + cross(h, lin), lin * m - cross(h, ang));
}

// ---- forward dynamics ----------------------------------------------------------------------------------------

fn kinematics() {
    st3(W_XPOS, vec3<real>(0.0, 0.0, 0.0));
    st4(W_XQUAT, vec4<real>(0.0, 0.0, 0.0, 1.0));
    stm(W_XMAT, mat3x3<real>(vec3<real>(1.0, 0.0, 0.0), vec3<real>(0.0, 1.0, 0.0), vec3<real>(0.0, 0.0, 1.0)));
    st3(W_XIPOS, vec3<real>(0.0, 0.0, 0.0));
    stm(W_XIMAT, mat3x3<real>(vec3<real>(1.0, 0.0, 0.0), vec3<real>(0.0, 1.0, 0.0), vec3<real>(0.0, 0.0, 1.0)));
    for (var b = 1u; b < NBODY; b++) {
        let p = body_parent(b);
        var pos = ld3(W_XPOS + 3u * p) + qrot(ld4(W_XQUAT + 4u * p), m3(MF_BODY_POS + 3u * b));
        var quat = qmul(ld4(W_XQUAT + 4u * p), m4(MF_BODY_QUAT + 4u * b));
        let j0 = mu[MU_BODY_JNTADR + b];
        for (var j = j0; j < j0 + mu[MU_BODY_JNTNUM + b]; j++) {
            let qa = mu[MU_JNT_QPOSADR + j];
            let da = mu[MU_JNT_DOFADR + j];
            let anchor = pos + qrot(quat, m3(MF_JNT_POS + 3u * j));
            let axis = qrot(quat, m3(MF_JNT_AXIS + 3u * j));
            st3(W_XANCHOR + 3u * j, anchor);
            let kind = mu[MU_JNT_TYPE + j];
            if (kind == FREE) {
                pos = vec3<real>(st[sb + qa], st[sb + qa + 1u], st[sb + qa + 2u]);
                quat = qnormalize(vec4<real>(st[sb + qa + 4u], st[sb + qa + 5u], st[sb + qa + 6u], st[sb + qa + 3u]));
                st3(W_XANCHOR + 3u * j, pos);
                for (var k = 0u; k < 3u; k++) {
                    sset(W_CDOF + 6u * (da + k), vec3<real>(0.0, 0.0, 0.0), unit_axis(k));
                    sset(W_CDOF + 6u * (da + 3u + k), qrot(quat, unit_axis(k)), vec3<real>(0.0, 0.0, 0.0));
                }
            } else if (kind == HINGE) {
                let angle = st[sb + qa] - mf[MF_QPOS0 + qa];
                quat = qmul(quat, axis_angle(m3(MF_JNT_AXIS + 3u * j), angle));
                pos = anchor - qrot(quat, m3(MF_JNT_POS + 3u * j));
                sset(W_CDOF + 6u * da, axis, vec3<real>(0.0, 0.0, 0.0));
            } else {
                pos += axis * (st[sb + qa] - mf[MF_QPOS0 + qa]);
                sset(W_CDOF + 6u * da, vec3<real>(0.0, 0.0, 0.0), axis);
            }
        }
        quat = qnormalize(quat);
        let mat = qmat(quat);
        st3(W_XPOS + 3u * b, pos);
        st4(W_XQUAT + 4u * b, quat);
        stm(W_XMAT + 9u * b, mat);
        st3(W_XIPOS + 3u * b, pos + mat * m3(MF_BODY_IPOS + 3u * b));
        stm(W_XIMAT + 9u * b, qmat(qmul(quat, m4(MF_BODY_IQUAT + 4u * b))));
    }
    for (var g = 0u; g < NGEOM; g++) {
        let b = mu[MU_GEOM_BODY + g];
        let q = ld4(W_XQUAT + 4u * b);
        st3(W_GXPOS + 3u * g, ld3(W_XPOS + 3u * b) + qrot(q, m3(MF_GEOM_POS + 3u * g)));
        let gm = qmat(qmul(q, m4(MF_GEOM_QUAT + 4u * g)));
        stm(W_GXMAT + 9u * g, gm);
        // World AABB half extents about the geom's centre (planes are unbounded and never tested).
        let t = mu[MU_GEOM_TYPE + g];
        let sz = m3(MF_GEOM_SIZE + 3u * g);
        var ext = vec3<real>(sz.x, sz.x, sz.x);
        if (t == G_CAPSULE) { ext += abs(gm[2]) * sz.y; }
        if (t == G_BOX) { ext = abs(gm[0]) * sz.x + abs(gm[1]) * sz.y + abs(gm[2]) * sz.z; }
        st3(W_GAABB + 3u * g, ext);
    }
    // Subtree centres of mass, the linear part of rotational cdofs, com-based inertias.
    for (var b = 0u; b < NBODY; b++) {
        st3(W_SCOM + 3u * b, ld3(W_XIPOS + 3u * b) * mf[MF_BODY_MASS + b]);
    }
    for (var b = NBODY - 1u; b >= 1u; b--) {
        ad3(W_SCOM + 3u * body_parent(b), ld3(W_SCOM + 3u * b));
    }
    for (var b = 0u; b < NBODY; b++) {
        let m = mf[MF_BODY_SUBTREEMASS + b];
        if (m > real(1e-15)) { st3(W_SCOM + 3u * b, ld3(W_SCOM + 3u * b) / m); } else { st3(W_SCOM + 3u * b, ld3(W_XIPOS + 3u * b)); }
    }
    for (var i = 0u; i < NV; i++) {
        let j = mu[MU_DOF_JNT + i];
        let kind = mu[MU_JNT_TYPE + j];
        let rotational = kind == HINGE || kind == BALL || (kind == FREE && i - mu[MU_JNT_DOFADR + j] >= 3u);
        if (rotational) {
            let c = ld3(W_SCOM + 3u * mu[MU_BODY_ROOT + dof_body(i)]);
            let ang = sang(W_CDOF + 6u * i);
            st3(W_CDOF + 6u * i + 3u, cross(ang, c - ld3(W_XANCHOR + 3u * j)));
        }
    }
    for (var k = 0u; k < 13u; k++) { wk[wb + W_CINERT + k] = real(0.0); }
    for (var b = 1u; b < NBODY; b++) {
        let r = ldm(W_XIMAT + 9u * b);
        let iv = m3(MF_BODY_INERTIA + 3u * b);
        let m = mf[MF_BODY_MASS + b];
        let d = ld3(W_XIPOS + 3u * b) - ld3(W_SCOM + 3u * mu[MU_BODY_ROOT + b]);
        var inertia = mat3x3<real>(r[0] * (r[0].x * iv.x) + r[1] * (r[1].x * iv.y) + r[2] * (r[2].x * iv.z),
                                   r[0] * (r[0].y * iv.x) + r[1] * (r[1].y * iv.y) + r[2] * (r[2].y * iv.z),
                                   r[0] * (r[0].z * iv.x) + r[1] * (r[1].z * iv.y) + r[2] * (r[2].z * iv.z));
        let dd = dot(d, d);
        let shift = mat3x3<real>(vec3<real>(dd, 0.0, 0.0) - d * d.x, vec3<real>(0.0, dd, 0.0) - d * d.y, vec3<real>(0.0, 0.0, dd) - d * d.z);
        inertia = inertia + shift * m;
        let a = W_CINERT + 13u * b;
        wk[wb + a] = m;
        st3(a + 1u, d * m);
        stm(a + 4u, inertia);
    }
}

fn mass_matrix() {
    for (var k = 0u; k < 13u * NBODY; k++) { wk[wb + W_CRB + k] = wk[wb + W_CINERT + k]; }
    for (var b = NBODY - 1u; b >= 1u; b--) {
        let p = body_parent(b);
        if (p > 0u) {
            for (var k = 0u; k < 13u; k++) { wk[wb + W_CRB + 13u * p + k] += wk[wb + W_CRB + 13u * b + k]; }
        }
    }
    for (var i = 0u; i < NV; i++) {
        var adr = madr(i);
        if (mu[MU_DOF_SIMPLE + i] != 0u) {
            for (var a = adr; a < adr + rownnz(i); a++) { wk[wb + W_QM + a] = real(0.0); }
            wk[wb + W_QM + adr] = mf[MF_DOF_M0 + i];
        } else {
        let f = imul(W_CRB + 13u * dof_body(i), sang(W_CDOF + 6u * i), slin(W_CDOF + 6u * i));
        wk[wb + W_QM + adr] = dot(sang(W_CDOF + 6u * i), f[0]) + dot(slin(W_CDOF + 6u * i), f[1]) + mf[MF_DOF_ARMATURE + i];
        var j = dof_parent(i);
        while (j != NONE) {
            adr += 1u;
            wk[wb + W_QM + adr] = dot(sang(W_CDOF + 6u * j), f[0]) + dot(slin(W_CDOF + 6u * j), f[1]);
            j = dof_parent(j);
        }
        }
    }
}

// LDLᵀ of QLD (a copy of M, plus the implicit damping shift) in the tree layout; false if not positive definite.
fn factor_m() -> bool {
    var ok = true;
    for (var k = NV; k >= 1u; k--) {
        let kk = k - 1u;
        let a = madr(kk);
        let dkk = wk[wb + W_QLD + a];
        ok = ok && dkk > real(0.0);
        let inv = real(1.0) / select(real(1.0), dkk, dkk > real(0.0));
        for (var off = 1u; off < rownnz(kk); off++) {
            let ii = colind(a + off);
            let l = wk[wb + W_QLD + a + off] * inv;
            let row = madr(ii);
            for (var c = 0u; c < rownnz(ii); c++) {
                wk[wb + W_QLD + row + c] -= l * wk[wb + W_QLD + a + off + c];
            }
            wk[wb + W_QLD + a + off] = l;
        }
        wk[wb + W_QLDI + kk] = inv;
    }
    return ok;
}

// x ← M⁻¹ x for x at work offset `x`.
fn solve_m(x: u32) {
    for (var k = NV; k >= 1u; k--) {
        let i = k - 1u;
        let xi = wk[wb + x + i];
        for (var a = madr(i) + 1u; a < madr(i) + rownnz(i); a++) {
            wk[wb + x + colind(a)] -= wk[wb + W_QLD + a] * xi;
        }
    }
    for (var i = 0u; i < NV; i++) { wk[wb + x + i] *= wk[wb + W_QLDI + i]; }
    for (var i = 0u; i < NV; i++) {
        var acc = wk[wb + x + i];
        for (var a = madr(i) + 1u; a < madr(i) + rownnz(i); a++) {
            acc -= wk[wb + W_QLD + a] * wk[wb + x + colind(a)];
        }
        wk[wb + x + i] = acc;
    }
}

// out ← M x (the damping-shifted M in QM).
fn mul_m(x: u32, out: u32) {
    for (var i = 0u; i < NV; i++) { wk[wb + out + i] = wk[wb + W_QM + madr(i)] * wk[wb + x + i]; }
    for (var i = 0u; i < NV; i++) {
        let xi = wk[wb + x + i];
        var acc = wk[wb + out + i];
        for (var a = madr(i) + 1u; a < madr(i) + rownnz(i); a++) {
            let j = colind(a);
            acc += wk[wb + W_QM + a] * wk[wb + x + j];
            wk[wb + out + j] += wk[wb + W_QM + a] * xi;
        }
        wk[wb + out + i] = acc;
    }
}

fn bias_and_smooth() {
    // Com-based velocities and cdof derivatives.
    sset(W_CVEL, vec3<real>(0.0, 0.0, 0.0), vec3<real>(0.0, 0.0, 0.0));
    for (var b = 1u; b < NBODY; b++) {
        var va = sang(W_CVEL + 6u * body_parent(b));
        var vl = slin(W_CVEL + 6u * body_parent(b));
        let j0 = mu[MU_BODY_JNTADR + b];
        for (var j = j0; j < j0 + mu[MU_BODY_JNTNUM + b]; j++) {
            let da = mu[MU_JNT_DOFADR + j];
            let kind = mu[MU_JNT_TYPE + j];
            var groups = 1u;
            var len = 1u;
            if (kind == FREE) { groups = 2u; len = 3u; } else if (kind == BALL) { len = 3u; }
            for (var g = 0u; g < groups; g++) {
                var da2 = vec3<real>(0.0, 0.0, 0.0);
                var dl2 = vec3<real>(0.0, 0.0, 0.0);
                for (var k = 0u; k < len; k++) {
                    let i = da + g * len + k;
                    let ca = sang(W_CDOF + 6u * i);
                    let cl = slin(W_CDOF + 6u * i);
                    sset(W_CDOFDOT + 6u * i, cross(va, ca), cross(va, cl) + cross(vl, ca));
                    let qv = st[sb + S_QVEL + i];
                    da2 += ca * qv;
                    dl2 += cl * qv;
                }
                va += da2;
                vl += dl2;
            }
        }
        sset(W_CVEL + 6u * b, va, vl);
    }
    // RNE with the gravity as a base acceleration.
    // Gravity is per environment (state), set from the model's.
    sset(W_CACC, vec3<real>(0.0, 0.0, 0.0), -vec3<real>(st[sb + S_GRAVITY], st[sb + S_GRAVITY + 1u], st[sb + S_GRAVITY + 2u]));
    for (var b = 1u; b < NBODY; b++) {
        var aa = sang(W_CACC + 6u * body_parent(b));
        var al = slin(W_CACC + 6u * body_parent(b));
        let d0 = mu[MU_BODY_DOFADR + b];
        for (var i = d0; i < d0 + mu[MU_BODY_DOFNUM + b]; i++) {
            let qv = st[sb + S_QVEL + i];
            aa += sang(W_CDOFDOT + 6u * i) * qv;
            al += slin(W_CDOFDOT + 6u * i) * qv;
        }
        sset(W_CACC + 6u * b, aa, al);
        let ia = imul(W_CINERT + 13u * b, aa, al);
        let va = sang(W_CVEL + 6u * b);
        let vl = slin(W_CVEL + 6u * b);
        let iv = imul(W_CINERT + 13u * b, va, vl);
        sset(W_CFRC + 6u * b, ia[0] + cross(va, iv[0]) + cross(vl, iv[1]), ia[1] + cross(va, iv[1]));
    }
    for (var b = NBODY - 1u; b >= 1u; b--) {
        let p = body_parent(b);
        if (p > 0u) {
            sset(W_CFRC + 6u * p, sang(W_CFRC + 6u * p) + sang(W_CFRC + 6u * b), slin(W_CFRC + 6u * p) + slin(W_CFRC + 6u * b));
        }
    }
    for (var i = 0u; i < NV; i++) {
        let fb = W_CFRC + 6u * dof_body(i);
        let bias = dot(sang(W_CDOF + 6u * i), sang(fb)) + dot(slin(W_CDOF + 6u * i), slin(fb));
        wk[wb + W_SMOOTH + i] = -mf[MF_DOF_DAMPING + i] * st[sb + S_QVEL + i] - bias;
    }
    // Joint actuators (signorini-model actuator.rs): force = gain·ctrl + b₀ + b₁·length + b₂·velocity, ctrl and force
    // clamped to their ranges, applied as gear·force on the joint's dof.
    for (var u = 0u; u < NU; u++) {
        let j = mu[MU_ACT_JNT + u];
        let i = mu[MU_JNT_DOFADR + j];
        let gear = mf[MF_ACT_GEAR + u];
        let length = gear * st[sb + mu[MU_JNT_QPOSADR + j]];
        let velocity = gear * st[sb + S_QVEL + i];
        var ctrl = st[sb + S_CTRL + u];
        if (mu[MU_ACT_CTRLLIMITED + u] != 0u) { ctrl = clamp(ctrl, mf[MF_ACT_CTRLRANGE + 2u * u], mf[MF_ACT_CTRLRANGE + 2u * u + 1u]); }
        let b = m3(MF_ACT_BIAS + 3u * u);
        var force = mf[MF_ACT_GAIN + u] * ctrl + b.x + b.y * length + b.z * velocity;
        if (mu[MU_ACT_FORCELIMITED + u] != 0u) { force = clamp(force, mf[MF_ACT_FORCERANGE + 2u * u], mf[MF_ACT_FORCERANGE + 2u * u + 1u]); }
        wk[wb + W_SMOOTH + i] += gear * force;
    }
    for (var j = 0u; j < NJNT; j++) {
        let kind = mu[MU_JNT_TYPE + j];
        let k = mf[MF_JNT_STIFFNESS + j];
        if ((kind == HINGE || kind == SLIDE) && k != real(0.0)) {
            let qa = mu[MU_JNT_QPOSADR + j];
            wk[wb + W_SMOOTH + mu[MU_JNT_DOFADR + j]] -= k * (st[sb + qa] - mf[MF_QPOS_SPRING + qa]);
        }
    }
}

fn forward() -> bool {
    kinematics();
    mass_matrix();
    // approximate_implicitfast: M + h·diag(damping) is the mass matrix of this step (spec §D.2).
    for (var i = 0u; i < NV; i++) { wk[wb + W_QM + madr(i)] += H * mf[MF_DOF_DAMPING + i]; }
    // The actuators' velocity gains enter the same way: −h·gear²·b₂.
    for (var u = 0u; u < NU; u++) {
        let g = mf[MF_ACT_GEAR + u];
        wk[wb + W_QM + madr(mu[MU_JNT_DOFADR + mu[MU_ACT_JNT + u]])] -= H * g * g * mf[MF_ACT_BIAS + 3u * u + 2u];
    }
    for (var a = 0u; a < NM; a++) { wk[wb + W_QLD + a] = wk[wb + W_QM + a]; }
    if (!factor_m()) { return false; }
    bias_and_smooth();
    for (var i = 0u; i < NV; i++) { wk[wb + W_A0 + i] = wk[wb + W_SMOOTH + i]; }
    solve_m(W_A0);
    return true;
}

// ---- narrow phase (simulator convention: normal from geom B to geom A, penetration > 0) ------------------------

fn push_contact(pair: u32, pos: vec3<real>, n: vec3<real>, pen: real) {
    let c = sts[ob + O_NCON];
    if (c >= MAXCON) {
        sts[ob + O_FLAGS] |= 1u;
        sts[ob + O_NEED] += 1u;
        return;
    }
    let a = W_CON + 7u * c;
    st3(a, pos);
    st3(a + 3u, n);
    wk[wb + a + 6u] = pen;
    iw[ib + I_CONPAIR + c] = pair;
    sts[ob + O_NCON] = c + 1u;
    sts[ob + O_NEED] += 1u;
}

fn gpos(g: u32) -> vec3<real> { return ld3(W_GXPOS + 3u * g); }
fn gmat(g: u32) -> mat3x3<real> { return ldm(W_GXMAT + 9u * g); }
fn gsize(g: u32) -> vec3<real> { return m3(MF_GEOM_SIZE + 3u * g); }

// Contacts of cores `ca`, `cb` (points) inflated by radii `ra`, `rb`; `flip` reverses the normal (B, A order).
fn sphere_cores(pair: u32, ca: vec3<real>, ra: real, cb: vec3<real>, rb: real, flip: bool) {
    let delta = cb - ca;
    let len = vnorm(delta);
    var n = vec3<real>(0.0, 0.0, 1.0);
    if (len > real(0.0)) { n = delta / len; }
    let dist = len - ra - rb;
    if (dist < real(0.0)) {
        let pos = real(0.5) * ((ca + ra * n) + (cb - rb * n));
        push_contact(pair, pos, select(-n, n, flip), -dist);
    }
}

fn segment_point(p: vec3<real>, q: vec3<real>, x: vec3<real>) -> vec3<real> {
    let d = q - p;
    let dd = dot(d, d);
    if (dd <= real(0.0)) { return p; }
    return p + clamp(dot(x - p, d) / dd, real(0.0), real(1.0)) * d;
}

fn capsule_ends(g: u32) -> array<vec3<real>, 2> {
    let axis = gmat(g)[2] * gsize(g).y;
    return array<vec3<real>, 2>(gpos(g) - axis, gpos(g) + axis);
}

// Plane A (outward normal n = its z axis) against the deepest points of B; `flip` when the plane is B.
fn plane_point(pair: u32, n: vec3<real>, o: real, x: vec3<real>, r: real, tol: real, start: u32, flip: bool) -> bool {
    let p = o - dot(n, x) + r;
    let pos = x - r * n + real(0.5) * p * n;
    var keep = p > real(0.0);
    let ncon = sts[ob + O_NCON];
    for (var c = start; c < ncon; c++) {
        keep = keep && vnorm(ld3(W_CON + 7u * c) - pos) > tol;
    }
    if (keep) { push_contact(pair, pos, select(-n, n, flip), p); }
    return keep;
}

fn plane_box(pair: u32, gp: u32, gb: u32, tol: real, flip: bool) {
    let n = gmat(gp)[2];
    let o = dot(n, gpos(gp));
    let r = gmat(gb);
    let h = gsize(gb);
    let start = sts[ob + O_NCON];
    // The deepest corner first (support along −n), then the other penetrating corners, at most MAX_PLANE_BOX.
    var deepest = gpos(gb);
    for (var k = 0u; k < 3u; k++) { deepest += select(real(-1.0), real(1.0), dot(r[k], -n) >= real(0.0)) * h[k] * r[k]; }
    let p0 = o - dot(n, deepest);
    if (!(p0 > real(0.0))) { return; }
    push_contact(pair, deepest + real(0.5) * p0 * n, select(-n, n, flip), p0);
    for (var i = 0u; i < 8u; i++) {
        let s = vec3<real>(select(real(-1.0), real(1.0), (i & 1u) != 0u), select(real(-1.0), real(1.0), (i & 2u) != 0u), select(real(-1.0), real(1.0), (i & 4u) != 0u));
        let x = gpos(gb) + r * (s * h);
        if (sts[ob + O_NCON] - start < MAX_PLANE_BOX) { plane_point(pair, n, o, x, real(0.0), tol, start, flip); }
    }
}

// Sphere (centre c, radius rad) as A against box g as B (pairs/sphere_box.rs): the contact with its normal from the
// box to the sphere.
fn sphere_box_hit(c: vec3<real>, rad: real, g: u32) -> Hit {
    let r = gmat(g);
    let h = gsize(g);
    let cl = transpose(r) * (c - gpos(g));
    let q = clamp(cl, -h, h);
    let delta = q - cl;
    let len = vnorm(delta);
    var dist: real;
    var pa: vec3<real>;
    var pb: vec3<real>;
    var n: vec3<real>;
    if (len > real(0.0)) {
        n = r * (delta / len);
        dist = len - rad;
        pa = c + rad * n;
        pb = gpos(g) + r * q;
    } else {
        let gaps = h - abs(cl);
        var i = 0u;
        if (gaps.y < gaps[i]) { i = 1u; }
        if (gaps.z < gaps[i]) { i = 2u; }
        let side = sgn(cl[i]);
        var nl = vec3<real>(0.0, 0.0, 0.0);
        nl[i] = -side;
        var face = cl;
        face[i] = side * h[i];
        n = r * nl;
        dist = -(gaps[i] + rad);
        pa = c + rad * n;
        pb = gpos(g) + r * face;
    }
    return Hit(dist < real(0.0), real(0.5) * (pa + pb), -n, -dist);
}

// Sphere against box g; `flip` when the sphere is B.
fn sphere_box(pair: u32, c: vec3<real>, rad: real, g: u32, flip: bool) {
    let h = sphere_box_hit(c, rad, g);
    if (h.ok) { push_contact(pair, h.pos, select(h.n, -h.n, flip), h.pen); }
}

// ---- box–box (crates/collision/src/narrow/box_box.rs, face-biased contact manifold) ---------------------------

const FACE_BIAS: real = 1e-12;
const CONTACT_FACE_BIAS: real = 0.05;
const NEAR_FACE_COS: real = 0.9961946980917455;

var<private> poly: array<vec3<real>, 8>;
var<private> poly2: array<vec3<real>, 8>;
var<private> npoly: u32;

// Keeps sgnv·x[axis] ≤ limit; a corner at most `slack` beyond the plane counts as inside and stays where it is
// (box_box.rs `clip_half_plane`), so flush side faces do not split corners on rounding noise.
fn clip_half_plane(axis: u32, sgnv: real, limit: real, slack: real) {
    var n2 = 0u;
    if (npoly == 0u) { return; }
    var prev = poly[npoly - 1u];
    var dprev = sgnv * prev[axis] - limit;
    for (var i = 0u; i < npoly; i++) {
        let cur = poly[i];
        let dcur = sgnv * cur[axis] - limit;
        let in_prev = dprev <= slack;
        let in_cur = dcur <= slack;
        let d_in = select(dcur, dprev, in_prev);
        if (in_prev != in_cur && d_in < real(0.0)) {
            if (n2 < 8u) { poly2[n2] = prev + (cur - prev) * (dprev / (dprev - dcur)); n2++; }
        }
        if (in_cur) {
            if (n2 < 8u) { poly2[n2] = cur; n2++; }
        }
        prev = cur;
        dprev = dcur;
    }
    for (var i = 0u; i < n2; i++) { poly[i] = poly2[i]; }
    npoly = n2;
}

fn box_box(pair: u32, ga: u32, gbx: u32) {
    let ra = gmat(ga);
    let rbw = gmat(gbx);
    let ha = gsize(ga);
    let hb = gsize(gbx);
    let rat = transpose(ra);
    let c = rat * (gpos(gbx) - gpos(ga));
    let rot = rat * rbw;
    let eps = EPS_REL * max(max(max(ha.x, ha.y), ha.z), max(max(hb.x, hb.y), hb.z));
    let rot_t = transpose(rot);
    let shallow = real(0.5) * min(min(min(ha.x, ha.y), ha.z), min(min(hb.x, hb.y), hb.z));
    var depth = real(1e30);
    var n = vec3<real>(1.0, 0.0, 0.0);
    var kind = 0u; // 0: face of A, 1: face of B, 2: edge
    var ai = 0u;
    var bj = 0u;
    var separated = false;
    for (var i = 0u; i < 3u; i++) {
        let overlap = ha[i] + dot(hb, abs(rot_t[i])) - abs(c[i]);
        separated = separated || !(overlap >= real(0.0));
        if (overlap < depth) { depth = overlap; n = sgn(c[i]) * unit_axis(i); kind = 0u; ai = i; }
    }
    for (var j = 0u; j < 3u; j++) {
        let b = rot[j];
        let d = dot(c, b);
        let overlap = dot(ha, abs(b)) + hb[j] - abs(d);
        separated = separated || !(overlap >= real(0.0));
        if (overlap < depth) { depth = overlap; n = sgn(d) * b; kind = 1u; ai = j; }
    }
    var edepth = real(1e30);
    var en = vec3<real>(1.0, 0.0, 0.0);
    var ei = 0u;
    var ej = 0u;
    var have_edge = false;
    for (var i = 0u; i < 3u; i++) {
        for (var j = 0u; j < 3u; j++) {
            let cr = cross(unit_axis(i), rot[j]);
            let len = vnorm(cr);
            if (len >= real(1e-6)) {
                let m = cr / len;
                let d = dot(c, m);
                let overlap = dot(ha, abs(m)) + dot(hb, abs(rot_t * m)) - abs(d);
                separated = separated || !(overlap >= real(0.0));
                if (!have_edge || overlap < edepth * (real(1.0) - FACE_BIAS) - eps) {
                    have_edge = true; edepth = overlap; en = sgn(d) * m; ei = i; ej = j;
                }
            }
        }
    }
    if (separated) { return; }
    if (have_edge) {
        let near_face = abs(dot(n, en)) > NEAR_FACE_COS && depth < shallow;
        let bias = select(FACE_BIAS, CONTACT_FACE_BIAS, near_face);
        if (edepth < depth * (real(1.0) - bias) - eps) { depth = edepth; n = en; kind = 2u; ai = ei; bj = ej; }
    }
    let normal = -(ra * n); // simulator convention: from B to A
    if (kind == 2u) {
        // Midpoint of the closest points of edge ai of A and edge bj of B.
        var p0 = vec3<real>(0.0, 0.0, 0.0);
        for (var k = 0u; k < 3u; k++) { if (k != ai) { p0[k] = sgn(n[k]) * ha[k]; } }
        var q0 = c;
        for (var k = 0u; k < 3u; k++) { if (k != bj) { q0 += sgn(-dot(n, rot[k])) * hb[k] * rot[k]; } }
        let d1 = unit_axis(ai);
        let d2 = rot[bj];
        let rr = p0 - q0;
        let bb = dot(d1, d2);
        let cc = dot(d1, rr);
        let ff = dot(d2, rr);
        let den = real(1.0) - bb * bb;
        var s = real(0.0);
        if (den > real(0.0)) { s = clamp((bb * ff - cc) / den, -ha[ai], ha[ai]); }
        let t = clamp(ff + s * bb, -hb[bj], hb[bj]);
        s = clamp(t * bb - cc, -ha[ai], ha[ai]);
        let mid = real(0.5) * ((p0 + s * d1) + (q0 + t * d2));
        push_contact(pair, gpos(ga) + ra * mid, normal, depth);
        return;
    }
    // Reference face k (outward s·e_k) of the reference box, incident box seen from its frame.
    var href = ha;
    var hinc = hb;
    var fc = c;
    var frot = rot;
    var k = ai;
    var s = sgn(n[k]);
    var rref = ra;
    var pref = gpos(ga);
    if (kind == 1u) {
        href = hb; hinc = ha; frot = transpose(rot); fc = -(frot * c);
        s = -sgn(dot(n, rot[k]));
        rref = rbw; pref = gpos(gbx);
    }
    var j = 0u;
    for (var jj = 1u; jj < 3u; jj++) { if (abs(frot[jj][k]) > abs(frot[j][k])) { j = jj; } }
    let tt = -sgn(s * frot[j][k]);
    let centre = fc + tt * hinc[j] * frot[j];
    let du = hinc[(j + 1u) % 3u] * frot[(j + 1u) % 3u];
    let dv = hinc[(j + 2u) % 3u] * frot[(j + 2u) % 3u];
    poly[0] = centre + du + dv;
    poly[1] = centre - du + dv;
    poly[2] = centre - du - dv;
    poly[3] = centre + du - dv;
    npoly = 4u;
    let p1 = (k + 1u) % 3u;
    let p2 = (k + 2u) % 3u;
    let slack = CLIP_SLACK_REL * max(max(max(ha.x, ha.y), ha.z), max(max(hb.x, hb.y), hb.z));
    clip_half_plane(p1, real(1.0), href[p1] + eps, slack);
    clip_half_plane(p1, real(-1.0), href[p1] + eps, slack);
    clip_half_plane(p2, real(1.0), href[p2] + eps, slack);
    clip_half_plane(p2, real(-1.0), href[p2] + eps, slack);
    let start = sts[ob + O_NCON];
    var last = vec3<real>(1e30, 1e30, 1e30);
    for (var i = 0u; i < npoly; i++) {
        let x = poly[i];
        let dx = abs(x - last);
        let dx0 = abs(x - poly[0]);
        let duplicate = max(max(dx.x, dx.y), dx.z) <= eps || (i > 0u && i + 1u == npoly && max(max(dx0.x, dx0.y), dx0.z) <= eps);
        let pen = href[k] - s * x[k];
        if (!duplicate) { last = x; }
        if (!duplicate && pen >= -eps) {
            let pp = max(pen, real(0.0));
            var p = x;
            p[k] += real(0.5) * s * pp;
            push_contact(pair, pref + rref * p, normal, pp);
        }
    }
    if (sts[ob + O_NCON] == start) {
        // Rounding left no face point: the incident box's support vertex along −s·e_k, projected.
        var v = fc;
        for (var jj = 0u; jj < 3u; jj++) { v += sgn(-s * frot[jj][k]) * hinc[jj] * frot[jj]; }
        var y = v;
        y[k] = s * href[k];
        let on_ref = pref + rref * y;
        push_contact(pair, on_ref + real(0.5) * depth * select(-normal, normal, kind == 0u), normal, depth);
    }
}

// ---- capsule–capsule: Genesis 1.4.5's analytic contact (pairs/capsule_contact.rs) and its perturbations about the
// default axes (multi_contact.rs `face_perturbation_contacts` for a pair without faces) ------------------------------

struct Hit {
    ok: bool,
    pos: vec3<real>,
    n: vec3<real>,
    pen: real,
}

// Closest points of segments [a0, a1] and [b0, b1] as Genesis writes them (parallel: A's first end), with its zero 1e-15.
fn closest_segments(a0: vec3<real>, a1: vec3<real>, b0: vec3<real>, b1: vec3<real>) -> array<vec3<real>, 2> {
    return closest_segments_eps(a0, a1, b0, b1, real(1e-15));
}

// Genesis's closest points of segments [a0, a1] and [b0, b1] with the zero `eps` (pairs/capsule_contact.rs).
fn closest_segments_eps(a0: vec3<real>, a1: vec3<real>, b0: vec3<real>, b1: vec3<real>, eps: real) -> array<vec3<real>, 2> {
    let da = a1 - a0;
    let db = b1 - b0;
    let r = a0 - b0;
    let aa = dot(da, da);
    let ab = dot(da, db);
    let bb = dot(db, db);
    let d = dot(da, r);
    let e = dot(db, r);
    let denom = aa * bb - ab * ab;
    var s = real(0.0);
    var t = real(0.0);
    if (denom < eps) {
        if (bb > eps) { t = clamp(e / bb, real(0.0), real(1.0)); }
    } else {
        s = clamp((ab * e - bb * d) / denom, real(0.0), real(1.0));
        if (bb > eps) { t = (ab * s + e) / bb; }
        t = clamp(t, real(0.0), real(1.0));
        if (aa > eps) { s = clamp((ab * t - d) / aa, real(0.0), real(1.0)); }
    }
    return array<vec3<real>, 2>(a0 + s * da, b0 + t * db);
}

// The contact of capsules A = [a0, a1] ⊕ ra and B = [b0, b1] ⊕ rb (simulator convention), if they overlap.
fn capsule_hit(a0: vec3<real>, a1: vec3<real>, ra: real, b0: vec3<real>, b1: vec3<real>, rb: real) -> Hit {
    let cp = closest_segments(a0, a1, b0, b1);
    let diff = cp[0] - cp[1];
    let dist_sq = dot(diff, diff);
    let radii = ra + rb;
    if (!(dist_sq < radii * radii)) { return Hit(false, cp[0], vec3<real>(1.0, 0.0, 0.0), real(0.0)); }
    let dist = sqrt(dist_sq);
    var n = diff / dist;
    if (!(dist > real(1e-15))) {
        let ua = normalize(a1 - a0);
        let c = cross(ua, normalize(b1 - b0));
        if (dot(c, c) > real(1e-15)) { n = c / vnorm(c); }
        else if (abs(ua.x) < real(0.9)) { n = vec3<real>(0.0, -ua.z, ua.y); }
        else { n = vec3<real>(ua.z, 0.0, -ua.x); }
    }
    let pen = radii - dist;
    return Hit(true, cp[0] - ra * n + real(0.5) * pen * n, n, pen);
}

fn rotvec_quat(v: vec3<real>) -> vec4<real> {
    let angle = vnorm(v);
    if (angle > real(0.0)) { return axis_angle(v / angle, angle); }
    return vec4<real>(0.0, 0.0, 0.0, 1.0);
}

fn rotate_about(x: vec3<real>, q: vec4<real>, c0: vec3<real>) -> vec3<real> { return c0 + qrot(q, x - c0); }

// The perturbation axes a₀, a₁ ⟂ n₀ of Genesis 1.4.5 (multi_contact.rs `diagonal_axes`): diagonal directions built in
// the inertial frame of geom g's body.
fn diagonal_axes(g: u32, n0: vec3<real>) -> array<vec3<real>, 2> {
    let ql = m4(MF_GEOM_FRAME + 4u * g);
    let qlc = vec4<real>(-ql.xyz, ql.w);
    let gm = gmat(g);
    let m = qrot(qlc, transpose(gm) * n0);
    var b = vec3<real>(-m.x * m.z, -m.y * m.z, real(1.0) - m.z * m.z);
    if (abs(m.y) < real(0.5)) { b = vec3<real>(-m.x * m.y, real(1.0) - m.y * m.y, -m.z * m.y); }
    b = b / vnorm(b);
    let l0 = cross(b, m);
    let half = real(0.7071067811865476);
    return array<vec3<real>, 2>(half * (gm * qrot(ql, l0 + b)), half * (gm * qrot(ql, b - l0)));
}

// Tilt i of Genesis 1.4.5's four, by MC_PERTURBATION about +a₀, −a₀, +a₁, −a₁.
fn tilt(axes: array<vec3<real>, 2>, i: u32) -> vec4<real> {
    var axis = select(axes[1], axes[0], i < 2u);
    if (i % 2u == 1u) { axis = -axis; }
    return rotvec_quat(MC_PERTURBATION * axis);
}

// Half the diagonal of a capsule's local box.
fn capsule_scale(g: u32) -> real {
    let r = gsize(g).x;
    return real(0.5) * vnorm(vec3<real>(real(2.0) * r, real(2.0) * r, real(2.0) * (gsize(g).y + r)));
}

// Whether a tilted contact at `pos` with normal `n` is new among the pair's contacts from `start` on: Genesis 1.4.5's
// merge (multi_contact.rs), no kept contact within max(√EPS·s + EPS·(|pos| + |k|), tol) whose normal lies within 2ε
// of n. `s` is the pair's scale.
fn new_tilted_contact(start: u32, pos: vec3<real>, n: vec3<real>, s: real, tol: real) -> bool {
    let normal_cos = cos(real(2.0) * MC_PERTURBATION);
    let ncon = sts[ob + O_NCON];
    for (var c = start; c < ncon; c++) {
        let k = ld3(W_CON + 7u * c);
        let merge = max(GENESIS_EPS_SQRT * s + GENESIS_EPS * (vnorm(pos) + vnorm(k)), tol);
        if (vnorm(pos - k) < merge && dot(n, ld3(W_CON + 7u * c + 3u)) >= normal_cos) { return false; }
    }
    return true;
}

fn capsule_capsule(pair: u32, ga: u32, gb: u32) {
    let ea = capsule_ends(ga);
    let eb = capsule_ends(gb);
    let ra = gsize(ga).x;
    let rb = gsize(gb).x;
    let first = capsule_hit(ea[0], ea[1], ra, eb[0], eb[1], rb);
    if (!first.ok) { return; }
    let n0 = first.n;
    let p0 = first.pen;
    let c0 = capsule_smooth(ea[0], ea[1], ra, first.pos, n0, p0);
    let start = sts[ob + O_NCON];
    push_contact(pair, c0, n0, p0);
    if (!MULTI_CONTACT) { return; }
    // Diagonal axes in the inertial frame of the geom with the smaller local box (B on a tie).
    let va = ra * ra * (ra + gsize(ga).y);
    let vb = rb * rb * (rb + gsize(gb).y);
    var g = gb;
    if (va < vb) { g = ga; }
    let axes = diagonal_axes(g, n0);
    let scale = min(capsule_scale(ga), capsule_scale(gb));
    let tol = MC_TOLERANCE * scale;
    let noise = real(1e-5) * scale;
    let normal_cos = cos(real(2.0) * MC_PERTURBATION);
    for (var i = 0u; i < 4u; i++) {
        if (sts[ob + O_NCON] - start >= MAX_CONVEX) { break; }
        let q = tilt(axes, i);
        let qc = vec4<real>(-q.xyz, q.w);
        let h = capsule_hit(rotate_about(ea[0], q, c0), rotate_about(ea[1], q, c0), ra,
                            rotate_about(eb[0], qc, c0), rotate_about(eb[1], qc, c0), rb);
        if (!h.ok) { continue; }
        // Back on the unperturbed capsules: the witnesses un-rotated, the depth along the tangent plane of B at A's
        // witness when it lies within 2ε of n₀, else the contact's own normal and separation.
        let wa = rotate_about(h.pos - real(0.5) * h.pen * h.n, qc, c0);
        let wbv = rotate_about(h.pos + real(0.5) * h.pen * h.n, q, c0);
        var normal = n0;
        var depth = real(0.0);
        var pos = real(0.5) * (wa + wbv);
        let tangent = qrot(q, h.n);
        let slope = dot(tangent, n0);
        let on_patch = slope >= normal_cos;
        if (on_patch) {
            depth = dot(tangent, wbv - wa) / slope;
            pos = wa + real(0.5) * depth * n0;
            if (depth < real(0.0) && p0 - depth > noise) { pos += depth / (depth - p0) * (c0 - pos); }
        } else {
            normal = h.n;
            depth = dot(h.n, wbv - wa);
        }
        let d = max(depth, real(0.0));
        pos = capsule_smooth(ea[0], ea[1], ra, pos, normal, d);
        if (new_tilted_contact(start, pos, normal, scale, tol)) { push_contact(pair, pos, normal, d); }
    }
}

// Plane gp against geom go of kind t (sphere, box or capsule); `flip` when the plane is B of the pair.
fn plane_other(p: u32, gp: u32, go: u32, t: u32, tol: real, flip: bool) {
    let n = gmat(gp)[2];
    let o = dot(n, gpos(gp));
    let start = sts[ob + O_NCON];
    if (t == G_SPHERE) { plane_point(p, n, o, gpos(go), gsize(go).x, real(-1.0), start, flip); }
    else if (t == G_BOX) { plane_box(p, gp, go, tol, flip); }
    else if (t == G_CAPSULE) { plane_capsule(p, gp, go, flip); }
}

// The support point of capsule [e0, e1] ⊕ r below plane (n, pp): its end along −n (e1 on a tie), `pos` the midpoint
// contact, `w` the capsule's witness.
struct PlaneHit { ok: bool, w: vec3<real>, pos: vec3<real>, pen: real }
fn plane_capsule_hit(n: vec3<real>, pp: vec3<real>, e0: vec3<real>, e1: vec3<real>, r: real) -> PlaneHit {
    let e = select(e1, e0, dot(-n, e1 - e0) < real(0.0));
    let w = e - r * n;
    let pen = -dot(n, w - pp);
    return PlaneHit(pen > real(0.0), w, w + real(0.5) * pen * n, pen);
}

// The smooth-side position of a contact of depth `pen` on capsule [e0, e1] ⊕ r below a plane of normal n
// (smooth_contact.rs): the nearest point of the axis less the radius, then half the depth.
fn capsule_smooth(e0: vec3<real>, e1: vec3<real>, r: real, pos: vec3<real>, n: vec3<real>, pen: real) -> vec3<real> {
    return segment_point(e0, e1, pos) - (r - real(0.5) * pen) * n;
}

// Capsule g on plane gp (multi_contact.rs `plane_perturbation_contacts`, Genesis 1.4.5): the support point, then four
// tilts by MC_PERTURBATION about ±a₀, ±a₁ (diagonal axes in the inertial frame of g's body), each contact rebuilt
// from the capsule's witness below the unperturbed plane, moved towards contact 0 when above it, merged within
// MC_TOLERANCE of the capsule's size.
fn plane_capsule(pair: u32, gp: u32, g: u32, flip: bool) {
    let np = gmat(gp)[2];
    let pp = gpos(gp);
    let e = capsule_ends(g);
    let r = gsize(g).x;
    let first = plane_capsule_hit(np, pp, e[0], e[1], r);
    if (!first.ok) { return; }
    let n0 = -np;
    let p0 = first.pen;
    let c0 = capsule_smooth(e[0], e[1], r, first.pos, np, p0);
    let start = sts[ob + O_NCON];
    push_contact(pair, c0, select(n0, -n0, flip), p0);
    if (!MULTI_CONTACT) { return; }
    let scale = capsule_scale(g);
    let noise = real(1e-5) * scale;
    let tol = MC_TOLERANCE * scale;
    let axes = diagonal_axes(g, n0);
    for (var i = 0u; i < 4u; i++) {
        if (sts[ob + O_NCON] - start >= MAX_CONVEX) { break; }
        let q = tilt(axes, i);
        let qc = vec4<real>(-q.xyz, q.w);
        let h = plane_capsule_hit(qrot(q, np), rotate_about(pp, q, c0), rotate_about(e[0], qc, c0),
                                  rotate_about(e[1], qc, c0), r);
        if (!h.ok) { continue; }
        let w = rotate_about(h.w, q, c0);
        let depth = dot(n0, w - c0) + real(0.5) * p0;
        var pos = w - real(0.5) * depth * n0;
        if (depth < real(0.0) && p0 - depth > noise) { pos += depth / (depth - p0) * (c0 - pos); }
        let d = max(depth, real(0.0));
        pos = capsule_smooth(e[0], e[1], r, pos, np, d);
        // Every contact of the pair carries the plane's normal: the merge compares positions only.
        let normal = select(n0, -n0, flip);
        if (new_tilted_contact(start, pos, normal, scale, tol)) { push_contact(pair, pos, normal, d); }
    }
}

fn collide_pair(p: u32) {
    let ga = mu[MU_PAIR + 2u * p];
    let gb = mu[MU_PAIR + 2u * p + 1u];
    let ta = mu[MU_GEOM_TYPE + ga];
    let tb = mu[MU_GEOM_TYPE + gb];
    let tol = mf[MF_PAIR + PAIR_STRIDE * p + 2u];
    // Broad phase of the environment (planes are unbounded): bounding spheres, then the world AABBs that
    // `forward` wrote, grown by the pair's contact tolerance.
    if (ta != G_PLANE && tb != G_PLANE) {
        let d = gpos(ga) - gpos(gb);
        let e = ld3(W_GAABB + 3u * ga) + ld3(W_GAABB + 3u * gb);
        // The CPU keeps a pair's warm-start normal while the pair is a candidate of its broad phase (overlapping
        // world AABBs), and forgets it otherwise; only MPR's pairs read it.
        let mpr_pair = (ta == G_BOX && tb == G_CAPSULE) || (ta == G_CAPSULE && tb == G_BOX);
        if (mpr_pair && any(abs(d) > e)) { forget_normal(p); }
        let r = mf[MF_GEOM_RBOUND + ga] + mf[MF_GEOM_RBOUND + gb];
        if (dot(d, d) > r * r) { return; }
        if (any(abs(d) > e + vec3<real>(tol, tol, tol))) { return; }
    }
    if (ta == G_PLANE) { plane_other(p, ga, gb, tb, tol, false); return; }
    if (tb == G_PLANE) { plane_other(p, gb, ga, ta, tol, true); return; }
    if (ta == G_SPHERE && tb == G_SPHERE) { sphere_cores(p, gpos(ga), gsize(ga).x, gpos(gb), gsize(gb).x, false); return; }
    if (ta == G_SPHERE && tb == G_CAPSULE) {
        let e = capsule_ends(gb);
        sphere_cores(p, gpos(ga), gsize(ga).x, segment_point(e[0], e[1], gpos(ga)), gsize(gb).x, false);
        return;
    }
    if (ta == G_CAPSULE && tb == G_SPHERE) {
        let e = capsule_ends(ga);
        sphere_cores(p, segment_point(e[0], e[1], gpos(gb)), gsize(ga).x, gpos(gb), gsize(gb).x, false);
        return;
    }
    if (ta == G_SPHERE && tb == G_BOX) { sphere_box(p, gpos(ga), gsize(ga).x, gb, false); return; }
    if (ta == G_BOX && tb == G_SPHERE) { sphere_box(p, gpos(gb), gsize(gb).x, ga, true); return; }
    if (ta == G_BOX && tb == G_BOX) { box_box(p, ga, gb); return; }
    if (ta == G_CAPSULE && tb == G_CAPSULE) { capsule_capsule(p, ga, gb); return; }
    if ((ta == G_BOX && tb == G_CAPSULE) || (ta == G_CAPSULE && tb == G_BOX)) { capsule_box(p, ga, gb, tol); return; }
}

fn collide_start() {
    sts[ob + O_NCON] = 0u;
    sts[ob + O_NEED] = 0u;
    sts[ob + O_CURSOR] = 0u;
}

// The next PAIR_CHUNK pairs (one dispatch each, so that no invocation runs more loop iterations than lavapipe allows:
// see k_prune). A loop the device ended early fails the step (flag 8).
fn collide_chunk() {
    let first = sts[ob + O_CURSOR];
    let end = min(first + PAIR_CHUNK, NPAIR);
    var p = first;
    loop {
        if (p >= end) { break; }
        collide_pair(p);
        p++;
    }
    if (p != end) { sts[ob + O_FLAGS] |= 8u; }
    sts[ob + O_CURSOR] = end;
}

// ---- constraint rows (pyramidal contacts, joint limits) ---------------------------------------------------------

fn power(x: real, p: real) -> real {
    var r = real(1.0);
    for (var i = 0; i < i32(p); i++) { r *= x; }
    return r;
}

// Impedance of distance `r` for solimp (dmin, dmax, width, mid, power) at `a` (constraints impedance.rs; integer
// powers only, checked on the host).
fn impedance(a: u32, r: real) -> real {
    let dmin = mf[a];
    let dmax = mf[a + 1u];
    let width = mf[a + 2u];
    let mid = mf[a + 3u];
    let pw = mf[a + 4u];
    var x = real(0.0);
    if (IMP_FLAT) {
        if (dmin == dmax || width <= real(1e-15)) { return real(0.5) * (dmin + dmax); }
        x = abs(r) / width;
        if (x >= real(1.0)) { return dmax; }
        if (x <= real(0.0)) { return dmin; }
        if (pw == real(1.0)) { return dmin + x * (dmax - dmin); }
    } else {
        if (r == real(0.0)) { return dmin; }
        if (width <= real(0.0)) { return dmax; }
        x = abs(r) / width;
        if (x > real(1.0)) { return dmax; }
    }
    var y: real;
    if ((IMP_FLAT && x <= mid) || (!IMP_FLAT && x < mid)) {
        y = power(x, pw) / power(mid, pw - real(1.0));
    } else {
        y = real(1.0) - power(real(1.0) - x, pw) / power(real(1.0) - mid, pw - real(1.0));
    }
    return clamp(dmin + y * (dmax - dmin), dmin, dmax);
}

fn regularizer(iw0: real, imp: real) -> real { return max(iw0 * (real(1.0) - imp) / imp, real(1e-15)); }

// Whether row `r` fits the row budget; raises the overflow flag when it does not.
fn row_ok(r: u32) -> bool {
    if (r >= MAXROW) { sts[ob + O_FLAGS] |= 2u; }
    return r < MAXROW;
}

// Jacobian column of `dof` at world point `p`: (linear, angular).
fn column(i: u32, p: vec3<real>) -> array<vec3<real>, 2> {
    let c = ld3(W_SCOM + 3u * mu[MU_BODY_ROOT + dof_body(i)]);
    let ang = sang(W_CDOF + 6u * i);
    return array<vec3<real>, 2>(slin(W_CDOF + 6u * i) + cross(ang, p - c), ang);
}

// ω × (ω × r) of the standalone free body holding `body` (r: its centre of mass from the joint origin, ω: its angular
// velocity, world), zero for any other body: the centripetal term that rows at the centre of mass carry and rows at
// the origin lack (crates/constraints/src/assemble/contact.rs, centre_of_mass_centripetal).
fn centripetal(body: u32) -> vec3<real> {
    let da = mu[MU_BODY_FREEDOF + body];
    if (da == NONE) { return vec3<real>(0.0, 0.0, 0.0); }
    let root = mu[MU_BODY_ROOT + body];
    let r = ld3(W_SCOM + 3u * root) - ld3(W_XPOS + 3u * root);
    let rot = ldm(W_XMAT + 9u * root);
    let w = rot * vec3<real>(st[sb + S_QVEL + da + 3u], st[sb + S_QVEL + da + 4u], st[sb + S_QVEL + da + 5u]);
    return cross(w, cross(w, r));
}

fn finish_row(r: u32, vel: real, x: real, imp: real, rr: real, sol: u32) {
    // aref = −b·v − k·imp·x (spec §B.1); D = 1/R.
    wk[wb + W_AREF + r] = -mf[sol + 5u] * vel - mf[sol + 6u] * imp * x;
    wk[wb + W_D + r] = real(1.0) / rr;
}

fn assemble() {
    var r = 0u;
    let ncon = sts[ob + O_NCON];
    for (var c = 0u; c < ncon; c++) {
        let pair = iw[ib + I_CONPAIR + c];
        let pp = MF_PAIR + PAIR_STRIDE * pair;
        let mu_s = mf[pp];
        let condim = u32(mf[pp + 1u]);
        let tran = mf[pp + 3u];
        let sol = pp + 4u;
        let pos = ld3(W_CON + 7u * c);
        let n = ld3(W_CON + 7u * c + 3u);
        let x = -wk[wb + W_CON + 7u * c + 6u];
        let imp = impedance(sol, x);
        let bA = mu[MU_GEOM_BODY + mu[MU_PAIR + 2u * pair]];
        let bB = mu[MU_GEOM_BODY + mu[MU_PAIR + 2u * pair + 1u]];
        // Tangents: helper t ⟂ n, then (t × n, t) natively or (t, n × t) as MuJoCo's makeFrame.
        var hy = vec3<real>(0.0, 0.0, 1.0);
        if (abs(n.y) < real(0.5)) { hy = vec3<real>(0.0, 1.0, 0.0); }
        let tv = hy - dot(n, hy) * n;
        let t = tv / vnorm(tv);
        var t1 = cross(t, n);
        var t2 = t;
        if (TANGENT_MAKEFRAME) { t1 = t; t2 = cross(n, t); }
        // Genesis's rows at a standalone free body's centre of mass: aref −= J_lin · ω × (ω × r).
        var shift = vec3<real>(0.0, 0.0, 0.0);
        if (ROWS_AT_COM) { shift = centripetal(bA) - centripetal(bB); }
        var nrow = 1u;
        var rr: real;
        if (condim == 1u) {
            rr = regularizer(tran, imp);
        } else {
            nrow = 4u;
            if (PYR_BOTH_SCALED) {
                let m2 = mu_s * mu_s / IMPRATIO;
                rr = tran * (real(1.0) + m2) * real(2.0) * m2 * (real(1.0) - imp) / imp;
            } else {
                rr = real(2.0) * mu_s * mu_s / IMPRATIO * (real(1.0) + mu_s * mu_s) * tran * (real(1.0) - imp) / imp;
            }
            rr = max(rr, real(1e-15));
        }
        for (var e = 0u; e < nrow; e++) {
          if (row_ok(r)) {
            var dir = n;
            if (nrow == 4u) {
                let w = select(-mu_s, mu_s, (e & 1u) == 0u);
                dir = n + w * select(t2, t1, e < 2u);
            }
            var nnz = 0u;
            var vel = real(0.0);
            for (var side = 0u; side < 2u; side++) {
                let body = select(bB, bA, side == 0u);
                let sg = select(real(-1.0), real(1.0), side == 0u);
                var i = mu[MU_BODY_LASTDOF + body];
                while (i != NONE) {
                    let col = column(i, pos);
                    let v = sg * dot(col[0], dir);
                    wk[wb + W_JV + r * K + nnz] = v;
                    iw[ib + I_JI + r * K + nnz] = i;
                    vel += v * st[sb + S_QVEL + i];
                    nnz++;
                    i = dof_parent(i);
                }
            }
            for (; (nnz & 3u) != 0u; nnz++) {
                wk[wb + W_JV + r * K + nnz] = real(0.0);
                iw[ib + I_JI + r * K + nnz] = 0u;
            }
            iw[ib + I_JN + r] = nnz;
            finish_row(r, vel, x, imp, rr, sol);
            wk[wb + W_AREF + r] -= dot(shift, dir);
            r++;
          }
        }
    }
    if (ENABLE_LIMITS) {
        for (var j = 0u; j < NJNT; j++) {
            let qa = mu[MU_JNT_QPOSADR + j];
            let i = mu[MU_JNT_DOFADR + j];
            let q = st[sb + qa];
            let dlo = q - mf[MF_JNT_RANGE + 2u * j];
            let dhi = mf[MF_JNT_RANGE + 2u * j + 1u] - q;
            for (var side = 0u; side < 2u; side++) {
                let dist = select(dhi, dlo, side == 0u);
                let skip = (LIMITS_MOST_VIOLATED && ((side == 0u && !(dlo < dhi)) || (side == 1u && dlo < dhi)));
                if (mu[MU_JNT_LIMITED + j] != 0u && dist < real(0.0) && !skip && row_ok(r)) {
                let sg = select(real(-1.0), real(1.0), side == 0u);
                let sol = MF_JNT_SOL + 7u * j;
                wk[wb + W_JV + r * K] = sg;
                iw[ib + I_JI + r * K] = i;
                for (var k = 1u; k < 4u; k++) {
                    wk[wb + W_JV + r * K + k] = real(0.0);
                    iw[ib + I_JI + r * K + k] = 0u;
                }
                iw[ib + I_JN + r] = 4u;
                let imp = impedance(sol, dist);
                finish_row(r, sg * st[sb + S_QVEL + i], dist, imp, regularizer(mf[MF_DOF_INVWEIGHT0 + i], imp), sol);
                r++;
                }
            }
        }
    }
    sts[ob + O_NROW] = r;
}

// ---- primal conjugate gradient with exact line search (spec §C.3–§C.5) -------------------------------------------

// J·x for every row into `out` (work offset).
// Row entries come in groups of 4 (zero-padded), four per loop pass: fewer loop iterations (see the entry points).
fn mul_j(x: u32, out: u32, nrow: u32) {
    for (var r = 0u; r < nrow; r++) {
        var acc = real(0.0);
        let a = r * K;
        for (var k = 0u; k < iw[ib + I_JN + r]; k += 4u) {
            acc += wk[wb + W_JV + a + k] * wk[wb + x + iw[ib + I_JI + a + k]]
                + wk[wb + W_JV + a + k + 1u] * wk[wb + x + iw[ib + I_JI + a + k + 1u]]
                + wk[wb + W_JV + a + k + 2u] * wk[wb + x + iw[ib + I_JI + a + k + 2u]]
                + wk[wb + W_JV + a + k + 3u] * wk[wb + x + iw[ib + I_JI + a + k + 3u]];
        }
        wk[wb + out + r] = acc;
    }
}

// Cost at the current qacc (QACC, with MA = M·qacc and JA = J·qacc) and the gradient into GRAD:
// ½(a − a0)ᵀM(a − a0) + Σ_active ½ D (Ja − aref)²;  grad = M(a − a0) − Jᵀ f,  f = −D (Ja − aref) on active rows.
fn cost_and_gradient(nrow: u32) -> real {
    var cost = real(0.0);
    for (var i = 0u; i < NV; i++) {
        let g = wk[wb + W_MA + i] - wk[wb + W_SMOOTH + i];
        wk[wb + W_GRAD + i] = g;
        cost += real(0.5) * g * (wk[wb + W_QACC + i] - wk[wb + W_A0 + i]);
    }
    for (var r = 0u; r < nrow; r++) {
        let res = wk[wb + W_JA + r] - wk[wb + W_AREF + r];
        if (res < real(0.0)) {
            let d = wk[wb + W_D + r];
            cost += real(0.5) * d * res * res;
            let f = -d * res;
            let a = r * K;
            for (var k = 0u; k < iw[ib + I_JN + r]; k += 4u) {
                wk[wb + W_GRAD + iw[ib + I_JI + a + k]] -= wk[wb + W_JV + a + k] * f;
                wk[wb + W_GRAD + iw[ib + I_JI + a + k + 1u]] -= wk[wb + W_JV + a + k + 1u] * f;
                wk[wb + W_GRAD + iw[ib + I_JI + a + k + 2u]] -= wk[wb + W_JV + a + k + 2u] * f;
                wk[wb + W_GRAD + iw[ib + I_JI + a + k + 3u]] -= wk[wb + W_JV + a + k + 3u] * f;
            }
        }
    }
    return cost;
}

// φ′(α) and φ″(α) of the cost along SEARCH (MS = M·search, JP = J·search).
fn line_derivatives(alpha: real, nrow: u32, gauss0: real, gauss2: real) -> vec2<real> {
    var d1 = gauss0 + alpha * gauss2;
    var d2 = gauss2;
    for (var r = 0u; r < nrow; r++) {
        let jp = wk[wb + W_JP + r];
        let res = wk[wb + W_JA + r] + alpha * jp - wk[wb + W_AREF + r];
        if (res < real(0.0)) {
            let d = wk[wb + W_D + r];
            d1 += d * res * jp;
            d2 += d * jp * jp;
        }
    }
    return vec2<real>(d1, d2);
}

fn line_search(nrow: u32) -> real {
    mul_m(W_SEARCH, W_MS);
    mul_j(W_SEARCH, W_JP, nrow);
    var gauss0 = real(0.0);
    var gauss2 = real(0.0);
    for (var i = 0u; i < NV; i++) {
        gauss0 += wk[wb + W_SEARCH + i] * (wk[wb + W_MA + i] - wk[wb + W_SMOOTH + i]);
        gauss2 += wk[wb + W_SEARCH + i] * wk[wb + W_MS + i];
    }
    var lo = real(0.0);
    var hi = real(-1.0); // unknown
    var d = line_derivatives(real(0.0), nrow, gauss0, gauss2);
    // Not a descent direction (or a flat one): no step.
    var done = !(d.x < real(0.0)) || !(d.y > real(0.0));
    let d0 = abs(d.x);
    var alpha = real(0.0);
    // At most LOOP_BUDGET row passes per iteration (llvmpipe's loop limit; unbounded on other adapters).
    let ls_max = min(LS_ITERATIONS, max(1u, LOOP_BUDGET / max(nrow, 1u)));
    for (var it = 0u; it < ls_max && !done; it++) {
        var next = alpha - d.x / d.y;
        if (hi >= real(0.0) && !(next > lo && next < hi)) { next = real(0.5) * (lo + hi); }
        alpha = next;
        d = line_derivatives(alpha, nrow, gauss0, gauss2);
        done = abs(d.x) <= LS_TOLERANCE * d0;
        if (d.x < real(0.0)) { lo = alpha; } else { hi = alpha; }
    }
    return alpha;
}

// QACC ← the warm start (`warm`) or qacc_smooth, with MA, JA, the gradient, and its cost returned.
fn evaluate_at(warm: bool, nrow: u32) -> real {
    for (var i = 0u; i < NV; i++) {
        wk[wb + W_QACC + i] = select(wk[wb + W_A0 + i], st[sb + S_QACCW + i], warm);
    }
    mul_m(W_QACC, W_MA);
    mul_j(W_QACC, W_JA, nrow);
    return cost_and_gradient(nrow);
}

// Solver start: warm start from the previous step's qacc unless qacc_smooth is cheaper (MuJoCo's rule), then the
// gradient, its M⁻¹ preconditioning and the first search direction.
fn solve_start() {
    let nrow = sts[ob + O_NROW];
    let warm = evaluate_at(true, nrow);
    let cost0 = evaluate_at(false, nrow);
    var cost = cost0;
    if (warm < cost0) { cost = evaluate_at(true, nrow); }
    for (var i = 0u; i < NV; i++) { wk[wb + W_MGRAD + i] = wk[wb + W_GRAD + i]; }
    solve_m(W_MGRAD);
    for (var i = 0u; i < NV; i++) { wk[wb + W_SEARCH + i] = -wk[wb + W_MGRAD + i]; }
    wk[wb + W_COST] = cost;
    sts[ob + O_NITER] = 0u;
    sts[ob + O_DONE] = 0u;
}

// One conjugate-gradient iteration (one dispatch each, up to the iteration budget): stops, for this environment,
// when `scale·‖grad‖` or `scale·improvement` falls below the tolerance, `scale = 1/(meaninertia·max(1, nv))`.
fn solve_iteration() {
    if (sts[ob + O_DONE] != 0u) { return; }
    let nrow = sts[ob + O_NROW];
    let scale = real(1.0) / (MEANINERTIA * real(max(1u, NV)));
    var gnorm = real(0.0);
    for (var i = 0u; i < NV; i++) { gnorm += wk[wb + W_GRAD + i] * wk[wb + W_GRAD + i]; }
    var alpha = real(0.0);
    if (!(scale * sqrt(gnorm) < TOLERANCE)) { alpha = line_search(nrow); }
    if (alpha == real(0.0)) {
        sts[ob + O_DONE] = 1u;
        return;
    }
    sts[ob + O_NITER] += 1u;
    for (var i = 0u; i < NV; i++) {
        wk[wb + W_QACC + i] += alpha * wk[wb + W_SEARCH + i];
        wk[wb + W_MA + i] += alpha * wk[wb + W_MS + i];
    }
    for (var r = 0u; r < nrow; r++) { wk[wb + W_JA + r] += alpha * wk[wb + W_JP + r]; }
    // Polak–Ribière: β = gᵀ(Mg − Mg_old) / (g_oldᵀ Mg_old), kept ≥ 0.
    var den = real(0.0);
    for (var i = 0u; i < NV; i++) {
        den += wk[wb + W_GRAD + i] * wk[wb + W_MGRAD + i];
        wk[wb + W_TMP + i] = wk[wb + W_MGRAD + i];
    }
    let old = wk[wb + W_COST];
    let cost = cost_and_gradient(nrow);
    wk[wb + W_COST] = cost;
    for (var i = 0u; i < NV; i++) { wk[wb + W_MGRAD + i] = wk[wb + W_GRAD + i]; }
    solve_m(W_MGRAD);
    var num = real(0.0);
    for (var i = 0u; i < NV; i++) { num += wk[wb + W_GRAD + i] * (wk[wb + W_MGRAD + i] - wk[wb + W_TMP + i]); }
    var beta = real(0.0);
    if (den > real(0.0)) { beta = max(real(0.0), num / den); }
    for (var i = 0u; i < NV; i++) { wk[wb + W_SEARCH + i] = -wk[wb + W_MGRAD + i] + beta * wk[wb + W_SEARCH + i]; }
    if (scale * (old - cost) < TOLERANCE) { sts[ob + O_DONE] = 1u; }
}

// ---- integration ---------------------------------------------------------------------------------------------

// ---- the implicit midpoint rule of unconstrained free bodies (spec §D.5; crates/integrators/src/midpoint.rs) ----

fn skew3(v: vec3<real>) -> mat3x3<real> {
    return mat3x3<real>(vec3<real>(real(0.0), v.z, -v.y), vec3<real>(-v.z, real(0.0), v.x), vec3<real>(v.y, -v.x, real(0.0)));
}
fn diag3(v: vec3<real>) -> mat3x3<real> {
    return mat3x3<real>(vec3<real>(v.x, real(0.0), real(0.0)), vec3<real>(real(0.0), v.y, real(0.0)), vec3<real>(real(0.0), real(0.0), v.z));
}
fn inverse3(m: mat3x3<real>) -> mat3x3<real> {
    let c0 = cross(m[1], m[2]);
    return transpose(mat3x3<real>(c0, cross(m[2], m[0]), cross(m[0], m[1]))) * (real(1.0) / dot(m[0], c0));
}
fn qconj(q: vec4<real>) -> vec4<real> { return vec4<real>(-q.xyz, q.w); }
// q ⊗ exp(ω), normalised (the position update's rotation).
fn qintegrate(q: vec4<real>, w: vec3<real>) -> vec4<real> {
    let angle = vnorm(w);
    if (angle < real(1e-15)) { return q; }
    return qnormalize(qmul(q, axis_angle(w / angle, angle)));
}
// Every force on dof i but the velocity products and gravity: the smooth force less the bias.
fn unbiased_force(i: u32) -> real {
    let fb = W_CFRC + 6u * dof_body(i);
    return wk[wb + W_SMOOTH + i] + dot(sang(W_CDOF + 6u * i), sang(fb)) + dot(slin(W_CDOF + 6u * i), slin(fb));
}

// Advances free joint j by the rule: its accelerations into W_QACC, the velocities of its position update into
// W_MID and its new velocities into W_NEXT. A centre of mass off the joint origin takes the standard update (Genesis
// anchors the body there), the origin read off it at the new orientation.
fn midpoint_body(j: u32) {
    let da = mu[MU_JNT_DOFADR + j];
    let body = dof_body(da);
    let p = MF_JNT_MID + MID_STRIDE * j;
    let mass = mf[p];
    let aligned = mf[p + 1u] != real(0.0);
    let ipos = m3(p + 2u);
    let iquat = m4(p + 5u);
    let inertia = mat3x3<real>(m3(p + 9u), m3(p + 12u), m3(p + 15u));
    let i2h = real(2.0) / H;
    let xquat = ld4(W_XQUAT + 4u * body);
    let inv_iquat = qconj(iquat);
    // E: armature + h·damping + h·kv per dof (the velocity gain of an actuator on the joint drives its first dof).
    var aug = array<real, 6>();
    for (var k = 0u; k < 6u; k++) { aug[k] = mf[MF_DOF_ARMATURE + da + k] + H * mf[MF_DOF_DAMPING + da + k]; }
    for (var u = 0u; u < NU; u++) {
        if (mu[MU_ACT_JNT + u] == j) {
            let g = mf[MF_ACT_GEAR + u];
            aug[0] -= H * g * g * mf[MF_ACT_BIAS + 3u * u + 2u];
        }
    }
    let rot_i = qmat(iquat);
    let inertia_aug = inertia + transpose(rot_i) * diag3(vec3<real>(aug[3], aug[4], aug[5])) * rot_i;
    let force = vec3<real>(unbiased_force(da), unbiased_force(da + 1u), unbiased_force(da + 2u));
    let torque = vec3<real>(unbiased_force(da + 3u), unbiased_force(da + 4u), unbiased_force(da + 5u));
    let tau = qrot(inv_iquat, torque - cross(ipos, qrot(qconj(xquat), force)));
    let w_body = vec3<real>(st[sb + S_QVEL + da + 3u], st[sb + S_QVEL + da + 4u], st[sb + S_QVEL + da + 5u]);
    let w = qrot(inv_iquat, w_body);
    var w_mid = w;
    var w_try = w;
    var delta = vec3<real>(0.0, 0.0, 0.0);
    var step = real(1.0);
    var f_norm = real(-1.0);
    var newton = 0u;
    var halvings = 0u;
    while (newton < 100u && halvings < 20u) {
        let iw = inertia * w_try;
        let f = i2h * (inertia_aug * (w_try - w)) + cross(w_try, iw) - tau;
        if (f_norm < real(0.0) || vnorm(f) < f_norm) {
            w_mid = w_try;
            f_norm = vnorm(f);
            if (f_norm < MIDPOINT_TOLERANCE * (real(1.0) + i2h * vnorm(iw))) { break; }
            delta = inverse3(i2h * inertia_aug + skew3(w_mid) * inertia - skew3(iw)) * (-f);
            step = real(1.0);
            newton += 1u;
            halvings = 0u;
        } else {
            step *= real(0.5);
            halvings += 1u;
        }
        w_try = w_mid + step * delta;
    }
    let w_new_body = qrot(iquat, real(2.0) * w_mid - w);
    for (var k = 0u; k < 3u; k++) {
        let mid = real(0.5) * (w_new_body[k] + w_body[k]);
        wk[wb + W_QACC + da + 3u + k] = (w_new_body[k] - w_body[k]) / H;
        wk[wb + W_MID + da + 3u + k] = mid;
        wk[wb + W_NEXT + da + 3u + k] = real(2.0) * mid - w_body[k];
    }
    if (!aligned) {
        let gravity = vec3<real>(st[sb + S_GRAVITY], st[sb + S_GRAVITY + 1u], st[sb + S_GRAVITY + 2u]);
        let a_com = (force + mass * gravity) / (vec3<real>(mass) + vec3<real>(aug[0], aug[1], aug[2]));
        step_centre_of_mass(da, body, ipos, a_com);
    }
}

// The semi-implicit Euler step of free joint j as Genesis takes it for a body anchored at its centre of mass (a body
// in contact whose centre of mass is off its origin): the solver's acceleration read at the centre of mass, which
// takes the standard update, and the origin read off it at the new orientation (crates/integrators/src/midpoint.rs).
fn anchored_update(j: u32) {
    let da = mu[MU_JNT_DOFADR + j];
    let body = dof_body(da);
    let ipos = m3(MF_JNT_MID + MID_STRIDE * j + 2u);
    for (var k = 0u; k < 6u; k++) {
        let next = st[sb + S_QVEL + da + k] + H * wk[wb + W_QACC + da + k];
        wk[wb + W_MID + da + k] = next;
        wk[wb + W_NEXT + da + k] = next;
    }
    let rot = ldm(W_XMAT + 9u * body);
    let omega = rot * vec3<real>(st[sb + S_QVEL + da + 3u], st[sb + S_QVEL + da + 4u], st[sb + S_QVEL + da + 5u]);
    let alpha = rot * vec3<real>(wk[wb + W_QACC + da + 3u], wk[wb + W_QACC + da + 4u], wk[wb + W_QACC + da + 5u]);
    let r = rot * ipos;
    let a = vec3<real>(wk[wb + W_QACC + da], wk[wb + W_QACC + da + 1u], wk[wb + W_QACC + da + 2u]);
    step_centre_of_mass(da, body, ipos, a + cross(alpha, r) + cross(omega, cross(omega, r)));
}

// The translation of free joint j's body anchored at its centre of mass (ipos, body frame), its rotation already
// stepped (W_MID: the angular velocity of the position update, W_NEXT: the new one): the centre of mass steps with
// a_com, the origin is read off it at the new orientation (crates/integrators/src/midpoint.rs, step_centre_of_mass).
fn step_centre_of_mass(da: u32, body: u32, ipos: vec3<real>, a_com: vec3<real>) {
    let rot = ldm(W_XMAT + 9u * body);
    let r = rot * ipos;
    let x = ld3(W_XPOS + 3u * body);
    let v = vec3<real>(st[sb + S_QVEL + da], st[sb + S_QVEL + da + 1u], st[sb + S_QVEL + da + 2u]);
    let omega = rot * vec3<real>(st[sb + S_QVEL + da + 3u], st[sb + S_QVEL + da + 4u], st[sb + S_QVEL + da + 5u]);
    let v_com = v + cross(omega, r) + H * a_com;
    let x_com = x + r + H * v_com;
    let w_mid = vec3<real>(wk[wb + W_MID + da + 3u], wk[wb + W_MID + da + 4u], wk[wb + W_MID + da + 5u]);
    let w_next = vec3<real>(wk[wb + W_NEXT + da + 3u], wk[wb + W_NEXT + da + 4u], wk[wb + W_NEXT + da + 5u]);
    let rot_new = qmat(qintegrate(ld4(W_XQUAT + 4u * body), w_mid * H));
    let r_new = rot_new * ipos;
    let x_new = x_com - r_new;
    let v_new = v_com - cross(rot_new * w_next, r_new);
    for (var k = 0u; k < 3u; k++) {
        wk[wb + W_QACC + da + k] = (v_new[k] - v[k]) / H;
        wk[wb + W_MID + da + k] = (x_new[k] - x[k]) / H;
        wk[wb + W_NEXT + da + k] = v_new[k];
    }
}

// The first dof of free joint j that the rule advanced this step (3: the translation kept the standard update), or
// 6 if it did not advance it.
fn midpoint_first(j: u32) -> u32 {
    if (mu[MU_JNT_MIDPOINT + j] == 0u || wk[wb + W_TOUCH + dof_body(mu[MU_JNT_DOFADR + j])] != real(2.0)) { return 6u; }
    if (mf[MF_JNT_MID + MID_STRIDE * j + 1u] != real(0.0)) { return 3u; }
    return 0u;
}

fn integrate() {
    for (var i = 0u; i < NV; i++) { st[sb + S_QACCW + i] = wk[wb + W_QACC + i]; }
    if (MIDPOINT_ANY) {
        // Bodies touched by a contact (the only rows on free dofs here) keep the plain update, of their centre of mass.
        for (var b = 0u; b < NBODY; b++) { wk[wb + W_TOUCH + b] = real(0.0); }
        let ncon = sts[ob + O_NCON];
        for (var c = 0u; c < ncon; c++) {
            let pair = iw[ib + I_CONPAIR + c];
            for (var s = 0u; s < 2u; s++) {
                wk[wb + W_TOUCH + mu[MU_BODY_ROOT + mu[MU_GEOM_BODY + mu[MU_PAIR + 2u * pair + s]]]] = real(1.0);
            }
        }
        for (var j = 0u; j < NJNT; j++) {
            let body = dof_body(mu[MU_JNT_DOFADR + j]);
            if (mu[MU_JNT_MIDPOINT + j] != 0u) {
                if (wk[wb + W_TOUCH + body] == real(0.0)) {
                    midpoint_body(j);
                    wk[wb + W_TOUCH + body] = real(2.0);
                } else if (mf[MF_JNT_MID + MID_STRIDE * j + 1u] == real(0.0)) {
                    anchored_update(j);
                    wk[wb + W_TOUCH + body] = real(2.0);
                }
            }
        }
    }
    for (var i = 0u; i < NV; i++) { st[sb + S_QVEL + i] += H * wk[wb + W_QACC + i]; }
    if (MIDPOINT_ANY) {
        for (var j = 0u; j < NJNT; j++) {
            let da = mu[MU_JNT_DOFADR + j];
            for (var k = midpoint_first(j); k < 6u; k++) { st[sb + S_QVEL + da + k] = wk[wb + W_MID + da + k]; }
        }
    }
    for (var j = 0u; j < NJNT; j++) {
        let qa = mu[MU_JNT_QPOSADR + j];
        let da = mu[MU_JNT_DOFADR + j];
        let kind = mu[MU_JNT_TYPE + j];
        if (kind == FREE) {
            for (var k = 0u; k < 3u; k++) { st[sb + qa + k] += H * st[sb + S_QVEL + da + k]; }
            let w = vec3<real>(st[sb + S_QVEL + da + 3u], st[sb + S_QVEL + da + 4u], st[sb + S_QVEL + da + 5u]) * H;
            let angle = vnorm(w);
            if (angle >= real(1e-15)) {
                let q0 = qnormalize(vec4<real>(st[sb + qa + 4u], st[sb + qa + 5u], st[sb + qa + 6u], st[sb + qa + 3u]));
                let q = qnormalize(qmul(q0, axis_angle(w / angle, angle)));
                st[sb + qa + 3u] = q.w;
                st[sb + qa + 4u] = q.x;
                st[sb + qa + 5u] = q.y;
                st[sb + qa + 6u] = q.z;
            }
        } else {
            st[sb + qa] += H * st[sb + S_QVEL + da];
        }
    }
    if (MIDPOINT_ANY) {
        for (var j = 0u; j < NJNT; j++) {
            let da = mu[MU_JNT_DOFADR + j];
            for (var k = midpoint_first(j); k < 6u; k++) { st[sb + S_QVEL + da + k] = wk[wb + W_NEXT + da + k]; }
        }
    }
    st[sb + S_TIME] += H;
}

fn finite_state() -> bool {
    var ok = true;
    for (var i = 0u; i < NQ; i++) { ok = ok && abs(st[sb + i]) <= real(1e30); }
    for (var i = 0u; i < NV; i++) { ok = ok && abs(st[sb + S_QVEL + i]) <= real(1e30); }
    return ok;
}

// ---- entry points: one dispatch per stage ------------------------------------------------------------------------
//
// The stages are separate dispatches, and every solver iteration is one: besides keeping each kernel small, this
// keeps an invocation under the 65 535 loop iterations that Mesa's llvmpipe/lavapipe allows per shader invocation
// (LP_MAX_TGSI_LOOP_ITERATIONS, shared by all loops; past it every loop exits after one pass). Work buffers carry
// everything from one stage to the next.

// Sets this invocation's bases; false for padding invocations and failed environments (they stay failed until the
// host resets them).
fn begin(env: u32) -> bool {
    if (env >= arrayLength(&sts) / O_STRIDE) { return false; }
    sb = env * S_STRIDE;
    wb = env * W_STRIDE;
    ib = env * I_STRIDE;
    ob = env * O_STRIDE;
    return sts[ob + O_FLAGS] == 0u;
}

@compute @workgroup_size(WORKGROUP)
fn k_forward(@builtin(global_invocation_id) id: vec3<u32>) {
    if (begin(id.x) && !forward()) { sts[ob + O_FLAGS] |= 4u; }
}

@compute @workgroup_size(WORKGROUP)
fn k_collide_start(@builtin(global_invocation_id) id: vec3<u32>) {
    if (begin(id.x)) { collide_start(); }
}

@compute @workgroup_size(WORKGROUP)
fn k_collide(@builtin(global_invocation_id) id: vec3<u32>) {
    if (begin(id.x)) { collide_chunk(); }
}

// Pruning runs in its own dispatch: Mesa's llvmpipe (lavapipe) ends every loop of an invocation once the invocation
// has run 65 535 loop iterations in all (`LP_MAX_TGSI_LOOP_ITERATIONS`), which the narrow phase of the benchmark
// pyramid reaches.
@compute @workgroup_size(WORKGROUP)
fn k_prune(@builtin(global_invocation_id) id: vec3<u32>) {
    if (begin(id.x)) { prune_contacts(); }
}

@compute @workgroup_size(WORKGROUP)
fn k_assemble(@builtin(global_invocation_id) id: vec3<u32>) {
    if (begin(id.x)) { assemble(); }
}

@compute @workgroup_size(WORKGROUP)
fn k_solve_start(@builtin(global_invocation_id) id: vec3<u32>) {
    if (begin(id.x)) { solve_start(); }
}

@compute @workgroup_size(WORKGROUP)
fn k_solve_iteration(@builtin(global_invocation_id) id: vec3<u32>) {
    if (begin(id.x)) { solve_iteration(); }
}

@compute @workgroup_size(WORKGROUP)
fn k_integrate(@builtin(global_invocation_id) id: vec3<u32>) {
    if (begin(id.x)) {
        integrate();
        if (!finite_state()) { sts[ob + O_FLAGS] |= 4u; }
    }
}

// Counts a finished step (after the last substep).
@compute @workgroup_size(WORKGROUP)
fn k_count(@builtin(global_invocation_id) id: vec3<u32>) {
    if (begin(id.x)) { sts[ob + O_STEPS] += 1u; }
}
