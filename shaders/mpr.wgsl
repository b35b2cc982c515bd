// MPR (Minkowski Portal Refinement) on posed spheres, capsules and boxes, as the native dialect runs it on the CPU
// (crates/collision/src/narrow/mpr.rs: Genesis 1.4.5's port of libccd, the portal-plane depth and the portal-face
// position, the cached normal's warm start). Appended to sim.wgsl, whose helpers it uses.
//
// MPR casts the ray from an interior point v0 of D = A ⊖ B towards the origin, finds a portal (v1, v2, v3) of
// support points that the ray crosses, moves it outwards until it encloses the origin (contact) or proves the origin
// beyond ∂D (no contact), then refines along the portal normal d until the portal reaches ∂D within the tolerance.
// Output in the simulator convention: the normal −d from B to A, the depth d·v1 ≥ 0.

// Genesis's iteration cap and the discovery's replacements (its CCD_EPS, the zero of every sign test, comes with the
// precision in the header).
const CCD_ITERATIONS: u32 = 50u;
const DISCOVERY_TRIALS: u32 = 15u;
const REFINE_CAP: u32 = 1000u;
// A squared length below this has no direction (the CPU's `normalize_robust` rescales shorter vectors first: the two
// differ only for vectors shorter than 1e-15, far below the rounding of the coordinates they are made of).
const DIRECTION_TINY: real = 1e-30;

// Geom g's shape at the pose (r, p): its own pose, or one tilted by a perturbation.
struct Posed { r: mat3x3<real>, p: vec3<real>, g: u32 }

// A support point of A ⊖ B with its witnesses on A and B.
struct Sp { w: vec3<real>, a: vec3<real>, b: vec3<real> }

// The portal of the last query: v0, then (v1, v2, v3).
var<private> mp: array<Sp, 4>;

// An MPR contact: `portal` when the penetration stage built one (left in mp[1..3]).
struct Mpr { hit: bool, depth: real, n: vec3<real>, pos: vec3<real>, portal: bool }

fn unit_or_zero(v: vec3<real>) -> vec3<real> {
    let n2 = dot(v, v);
    if (!(n2 > DIRECTION_TINY)) { return vec3<real>(0.0, 0.0, 0.0); }
    return v / sqrt(n2);
}
fn is_zero3(v: vec3<real>) -> bool { return all(v == vec3<real>(0.0, 0.0, 0.0)); }
fn max_abs3(v: vec3<real>) -> real { return max(abs(v.x), max(abs(v.y), abs(v.z))); }

// Full extents of geom g's local box (the core inflated by its radius).
fn local_box(g: u32) -> vec3<real> {
    let t = mu[MU_GEOM_TYPE + g];
    let s = gsize(g);
    if (t == G_BOX) { return real(2.0) * s; }
    if (t == G_CAPSULE) { return real(2.0) * vec3<real>(s.x, s.x, s.y + s.x); }
    return vec3<real>(real(2.0) * s.x, real(2.0) * s.x, real(2.0) * s.x);
}

// World support point of the posed geom along the world direction d: a box's corner (sign(0) = +), a capsule's core
// end (+z on a tie) or a sphere's centre, inflated by the radius along d.
fn posed_support(s: Posed, d: vec3<real>) -> vec3<real> {
    let t = mu[MU_GEOM_TYPE + s.g];
    let size = gsize(s.g);
    let l = transpose(s.r) * d;
    var core = vec3<real>(0.0, 0.0, 0.0);
    var rad = real(0.0);
    if (t == G_BOX) {
        core = select(-size, size, l >= vec3<real>(0.0, 0.0, 0.0));
    } else if (t == G_CAPSULE) {
        core = vec3<real>(0.0, 0.0, select(-size.y, size.y, l.z >= real(0.0)));
        rad = size.x;
    } else {
        rad = size.x;
    }
    var x = s.r * core + s.p;
    if (rad > real(0.0)) {
        var u = unit_or_zero(d);
        if (is_zero3(u)) { u = vec3<real>(0.0, 0.0, 1.0); }
        x += u * rad;
    }
    return x;
}

fn pair_support(a: Posed, b: Posed, d: vec3<real>) -> Sp {
    let pa = posed_support(a, d);
    let pb = posed_support(b, -d);
    return Sp(pa - pb, pa, pb);
}

fn portal_dir() -> vec3<real> { return unit_or_zero(cross(mp[2].w - mp[1].w, mp[3].w - mp[1].w)); }
fn triangle_dir() -> vec3<real> { return unit_or_zero(cross(mp[1].w - mp[0].w, mp[2].w - mp[0].w)); }

// `mpr_expand_portal`: the portal vertex replaced by v4 keeps the ray v0 → origin inside the new portal.
fn expand_portal(v4: Sp) {
    let w = cross(v4.w, mp[0].w);
    var slot = 1u;
    if (dot(mp[1].w, w) > real(0.0)) {
        if (!(dot(mp[2].w, w) > real(0.0))) { slot = 3u; }
    } else if (dot(mp[3].w, w) > real(0.0)) {
        slot = 2u;
    }
    mp[slot] = v4;
}

// `mpr_portal_reach_tolerance`: min_i (v4 − v_i)·d < tol + eps·max(1, Δ).
fn portal_reached(v4: vec3<real>, d: vec3<real>, tol: real) -> bool {
    let dv4 = dot(v4, d);
    let delta = min(dv4 - dot(mp[1].w, d), min(dv4 - dot(mp[2].w, d), dv4 - dot(mp[3].w, d)));
    return delta < tol + CCD_EPS * max(delta, real(1.0));
}

const DISCOVER_SEPARATED: u32 = 0u;
const DISCOVER_FAILED: u32 = 1u;
const DISCOVER_PORTAL: u32 = 2u;
const DISCOVER_TOUCH: u32 = 3u;
const DISCOVER_SEGMENT: u32 = 4u;

// Step 1, `mpr_discover_portal`, from the interior points ca ∈ A, cb ∈ B.
fn mpr_discover(a: Posed, b: Posed, ca: vec3<real>, cb: vec3<real>) -> u32 {
    mp[0] = Sp(ca - cb, ca, cb);
    if (max_abs3(mp[0].w) < CCD_EPS) { mp[0].w.x += real(10.0) * CCD_EPS; }
    var d = unit_or_zero(-mp[0].w);
    if (is_zero3(d)) { return DISCOVER_FAILED; }
    mp[1] = pair_support(a, b, d);
    if (dot(mp[1].w, d) < CCD_EPS) { return DISCOVER_SEPARATED; }
    d = cross(mp[0].w, mp[1].w);
    if (dot(d, d) < CCD_EPS) {
        if (max_abs3(mp[1].w) < CCD_EPS) { return DISCOVER_TOUCH; }
        return DISCOVER_SEGMENT;
    }
    d = unit_or_zero(d);
    if (is_zero3(d)) { return DISCOVER_FAILED; }
    mp[2] = pair_support(a, b, d);
    if (dot(mp[2].w, d) < CCD_EPS) { return DISCOVER_SEPARATED; }
    d = triangle_dir();
    if (is_zero3(d)) { return DISCOVER_FAILED; }
    if (dot(d, mp[0].w) > real(0.0)) {
        let t = mp[1];
        mp[1] = mp[2];
        mp[2] = t;
        d = -d;
    }
    for (var trials = 0u; trials < DISCOVERY_TRIALS; trials++) {
        let v = pair_support(a, b, d);
        if (dot(v.w, d) < CCD_EPS) { return DISCOVER_SEPARATED; }
        if (dot(cross(mp[1].w, v.w), mp[0].w) < -CCD_EPS) {
            mp[2] = v;
        } else if (dot(cross(v.w, mp[2].w), mp[0].w) < -CCD_EPS) {
            mp[1] = v;
        } else {
            mp[3] = v;
            return DISCOVER_PORTAL;
        }
        d = triangle_dir();
        if (is_zero3(d)) { return DISCOVER_FAILED; }
    }
    return DISCOVER_FAILED;
}

// `mpr_find_pos` (native): the witnesses' midpoint weighted by the portal-face weights b_i = (v_j × v_k)·d, the
// portal's centroid when they do not sum to a positive value.
fn mpr_position(d: vec3<real>) -> vec3<real> {
    var b1 = dot(cross(mp[2].w, mp[3].w), d);
    var b2 = dot(cross(mp[3].w, mp[1].w), d);
    var b3 = dot(cross(mp[1].w, mp[2].w), d);
    var sum = b1 + b2 + b3;
    if (!(sum > real(0.0))) {
        b1 = real(1.0);
        b2 = real(1.0);
        b3 = real(1.0);
        sum = real(3.0);
    }
    let acc = b1 * (mp[1].a + mp[1].b) + b2 * (mp[2].a + mp[2].b) + b3 * (mp[3].a + mp[3].b);
    return acc * (real(0.5) / sum);
}

fn mpr_miss() -> Mpr { return Mpr(false, real(0.0), vec3<real>(0.0, 0.0, 0.0), vec3<real>(0.0, 0.0, 0.0), false); }

// Steps 1–3 from the interior points ca, cb, with the reach tolerance tol (m).
fn mpr_from_centres(a: Posed, b: Posed, ca: vec3<real>, cb: vec3<real>, tol: real) -> Mpr {
    let found = mpr_discover(a, b, ca, cb);
    if (found == DISCOVER_SEPARATED || found == DISCOVER_FAILED) { return mpr_miss(); }
    if (found == DISCOVER_TOUCH) {
        var n = unit_or_zero(mp[0].w);
        if (is_zero3(n)) { n = vec3<real>(1.0, 0.0, 0.0); }
        return Mpr(true, real(0.0), n, real(0.5) * (mp[1].a + mp[1].b), false);
    }
    if (found == DISCOVER_SEGMENT) {
        var n = unit_or_zero(-mp[1].w);
        if (is_zero3(n)) { n = vec3<real>(1.0, 0.0, 0.0); }
        return Mpr(true, vnorm(mp[1].w), n, real(0.5) * (mp[1].a + mp[1].b), false);
    }
    // Step 2, `mpr_refine_portal`: until the portal encloses the origin.
    var d = vec3<real>(0.0, 0.0, 0.0);
    var enclosed = false;
    for (var k = 0u; k < REFINE_CAP && !enclosed; k++) {
        d = portal_dir();
        if (is_zero3(d)) { return mpr_miss(); }
        if (dot(mp[1].w, d) > -CCD_EPS) {
            enclosed = true;
        } else {
            let v4 = pair_support(a, b, d);
            if (dot(v4.w, d) <= -CCD_EPS || portal_reached(v4.w, d, tol)) { return mpr_miss(); }
            expand_portal(v4);
        }
    }
    if (!enclosed) { return mpr_miss(); }
    // Step 3, `mpr_find_penetration`.
    for (var it = 0u; ; it++) {
        let v4 = pair_support(a, b, d);
        if (portal_reached(v4.w, d, tol) || it > CCD_ITERATIONS) { break; }
        let kept = mp;
        expand_portal(v4);
        let nd = portal_dir();
        if (is_zero3(nd)) {
            mp = kept;
            break;
        }
        d = nd;
    }
    var depth = dot(d, mp[1].w);
    if (!(depth > real(0.0))) { depth = real(0.0); }
    return Mpr(true, depth, -d, mpr_position(d), true);
}

// Step 0 and the driver: the interior points are the geoms' centres, or, with a cached normal n_ws (a component
// above CCD_EPS), the centres shifted towards each other across their lateral offset from n_ws; a warm start that
// finds no contact is run again cold.
fn mpr_cached(a: Posed, b: Posed, nws: vec3<real>, tol: real) -> Mpr {
    if (max_abs3(nws) > CCD_EPS) {
        var ca = a.p;
        var cb = b.p;
        let n = unit_or_zero(nws);
        let nd = unit_or_zero(ca - cb);
        if (!is_zero3(n) && !is_zero3(nd) && vnorm(cross(n, nd)) > real(0.01)) {
            let delta = ca - cb;
            let o = dot(delta, n) * n - delta;
            let on = vnorm(o);
            if (on > GENESIS_EPS) {
                let oh = o / on;
                let la = dot(local_box(a.g), abs(transpose(a.r) * oh));
                let lb = dot(local_box(b.g), abs(transpose(b.r) * oh));
                let ratio = min(on / (la + lb), real(0.5));
                ca += oh * la * ratio;
                cb -= oh * lb * ratio;
            }
        }
        let warm = mpr_from_centres(a, b, ca, cb, tol);
        if (warm.hit) { return warm; }
    }
    return mpr_from_centres(a, b, a.p, b.p, tol);
}
