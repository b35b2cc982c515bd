// Batched signed distance between convex primitives (sphere, capsule, box), one invocation per pair
// (`signorini-gpu`, `query.rs`).
//
// The host prepends `alias real = f32|f64;` and the tolerances below as `const`s of type `real` (values and reasons
// beside them in query.rs; naga cannot fold f64 arithmetic in constant expressions, so they arrive as literals):
// GJK_TOL (GJK stops when the gap between its upper and lower bounds on the core distance is below GJK_TOL · scale),
// CONTACT_TOL (cores closer than CONTACT_TOL · scale go to the separating-axis test), FLAT (a component of a unit axis
// within FLAT of zero leaves that edge direction of a core free: a face or edge feature) and DUP (support points
// within DUP · scale of a simplex vertex repeat it). `scale` is the size of the pair in A's frame: the lengths of both
// cores' half extents plus the distance between their centres.
//
// Conventions (Coal, as the CPU path `signorini_collision::query`): lengths in metres; the signed distance is negative
// when the shapes overlap (minus the penetration depth); the normal is a unit vector from A to B; the witness points
// are world points on A and B with `point_b − point_a = distance · normal`.
//
// Method. Every shape is a core inflated by a radius: a sphere is a point with radius r, a capsule the segment
// (0, 0, ±h) with radius r, a box itself with radius 0. A core is written as a box of half extents `h` with some zero
// components (point 0, segment (0, 0, h)), so its support along d is `h ∘ sign(d)` and its support value `h · |d|`.
// Everything is computed in A's frame (A's centre at the origin, A's axes exact), then mapped to the world.
// 1. GJK on the Minkowski difference `M = K_A ⊖ K_B` of the cores (Johnson sub-distance on point, segment,
//    triangle and tetrahedron simplices; at most GJK_MAX_ITERATIONS supports). When the closest simplex is a
//    triangle, the normal is that triangle's plane normal (accurate however small the distance).
// 2. When GJK finds the cores overlapping, or closer than CONTACT_TOL · scale, the separating-axis test over the
//    face normals of the zonotope `M` gives the exact signed distance of the cores: `max_n n·t − h_A·|n| − h_B·|Rᵀn|`
//    over A's axes, B's axes, the cross products of A's and B's edge directions, the centre direction and, when M is
//    flat (points and segments only), the in-plane edge normals. Any unit axis bounds the signed distance from
//    below, so the maximum over a set containing M's face normals is exact.
// 3. SAT witnesses: GJK again, on the supporting features of the cores along the axis (A's along n, B's along −n,
//    components of n within FLAT of zero are free) with Minkowski points projected on the plane ⊥ n; the barycentric
//    combination gives a point of each feature over the same spot of that plane.
// 4. The witnesses are moved to the plane-average of their lateral positions, so that the relation
//    `point_b − point_a = distance · normal` holds to rounding, then inflated by the radii.
//
// Buffer layout (flat arrays, strides in elements; mirrored by crates/gpu/src/query.rs):
//   binding 0 `input`  real × IN_STRIDE per pair: position of A (3, world), rotation of A (unit quaternion x, y, z,
//                      w), position of B (3), rotation of B (4), size of A (3), size of B (3). Sizes: sphere (r, 0, 0),
//                      capsule (r, h, 0), box (h_x, h_y, h_z).
//   binding 1 `kinds`  u32 × 2 per pair: kind of A, kind of B (KIND_*).
//   binding 2 `output` real × OUT_STRIDE per pair: signed distance, normal (3), point on A (3), point on B (3), world.
//   binding 3 `status` u32 per pair: GJK iterations (both stages) | STATUS_SAT when step 2 answered.
//   binding 4 `params` u32: number of pairs in this dispatch.

const KIND_SPHERE: u32 = 0u;
const KIND_CAPSULE: u32 = 1u;
const KIND_BOX: u32 = 2u;
const IN_STRIDE: u32 = 20u;
const OUT_STRIDE: u32 = 10u;
const STATUS_SAT: u32 = 0x10000u;
const GJK_MAX_ITERATIONS: u32 = 64u;

@group(0) @binding(0) var<storage, read> input: array<real>;
@group(0) @binding(1) var<storage, read> kinds: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<real>;
@group(0) @binding(3) var<storage, read_write> status: array<u32>;
@group(0) @binding(4) var<storage, read> params: array<u32>;

// The pair in A's frame: core half extents, B's rotation columns and centre.
var<private> ha: vec3<real>;
var<private> hb: vec3<real>;
var<private> rb: array<vec3<real>, 3>;
var<private> tb: vec3<real>;
// Feature mode (step 3): supports restricted to the features along ±feature_n, projected on the plane ⊥ feature_n.
var<private> feature: bool;
var<private> feature_n: vec3<real>;
// GJK simplex: support points on A and B, their difference w = a − b, barycentric weights.
var<private> sa: array<vec3<real>, 4>;
var<private> sb: array<vec3<real>, 4>;
var<private> sw: array<vec3<real>, 4>;
var<private> lam: array<real, 4>;
var<private> ns: u32;
// Best separating axis so far.
var<private> sat_sep: real;
var<private> sat_n: vec3<real>;

fn sgn3(v: vec3<real>) -> vec3<real> {
    return select(vec3<real>(-1.0), vec3<real>(1.0), v >= vec3<real>(0.0));
}

fn len3(v: vec3<real>) -> real {
    return sqrt(dot(v, v));
}

// `p / q`, or 0 when `q ≤ 0` (degenerate simplices).
fn ratio(p: real, q: real) -> real {
    return select(real(0.0), p / q, q > real(0.0));
}

// Rotation of `v` by the unit quaternion `q` (x, y, z, w).
fn qrot(q: vec4<real>, v: vec3<real>) -> vec3<real> {
    let t = real(2.0) * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

fn to_b(d: vec3<real>) -> vec3<real> {
    return vec3<real>(dot(rb[0], d), dot(rb[1], d), dot(rb[2], d));
}

fn from_b(p: vec3<real>) -> vec3<real> {
    return rb[0] * p.x + rb[1] * p.y + rb[2] * p.z;
}

// Support point of A's core along `d` (A's frame); in feature mode only the free components follow `d`.
fn support_a(d: vec3<real>) -> vec3<real> {
    var s = sgn3(d);
    if feature {
        s = select(s, sgn3(feature_n), abs(feature_n) > vec3<real>(FLAT));
    }
    return ha * s;
}

// Support point of B's core along `d` (A's frame); in feature mode B's feature is the one along −feature_n.
fn support_b(d: vec3<real>) -> vec3<real> {
    var s = sgn3(to_b(d));
    if feature {
        let m = -to_b(feature_n);
        s = select(s, sgn3(m), abs(m) > vec3<real>(FLAT));
    }
    return from_b(hb * s) + tb;
}

fn project(w: vec3<real>) -> vec3<real> {
    if feature {
        return w - feature_n * dot(feature_n, w);
    }
    return w;
}

// A sub-distance answer: weights per simplex slot and the mask of the slots kept.
struct Sub {
    lam: vec4<real>,
    mask: u32,
}

fn sub_point(i: u32) -> Sub {
    var r: Sub;
    r.lam[i] = 1.0;
    r.mask = 1u << i;
    return r;
}

fn sub_eval(r: Sub) -> vec3<real> {
    return sw[0] * r.lam[0] + sw[1] * r.lam[1] + sw[2] * r.lam[2] + sw[3] * r.lam[3];
}

// Closest point of the segment [w_i, w_j] to the origin.
fn sub_segment(i: u32, j: u32) -> Sub {
    let a = sw[i];
    let ab = sw[j] - a;
    let l2 = dot(ab, ab);
    let t = -dot(a, ab);
    if t <= 0.0 || l2 <= 0.0 {
        return sub_point(i);
    }
    if t >= l2 {
        return sub_point(j);
    }
    var r: Sub;
    let s = t / l2;
    r.lam[i] = 1.0 - s;
    r.lam[j] = s;
    r.mask = (1u << i) | (1u << j);
    return r;
}

fn sub_nearest(x: Sub, y: Sub) -> Sub {
    let px = sub_eval(x);
    let py = sub_eval(y);
    if dot(py, py) < dot(px, px) {
        return y;
    }
    return x;
}

// Closest point of the triangle (w_i, w_j, w_k) to the origin, by Voronoi regions (Ericson, Real-Time Collision
// Detection §5.1.5); a degenerate triangle falls back to its nearest edge.
fn sub_triangle(i: u32, j: u32, k: u32) -> Sub {
    let a = sw[i];
    let b = sw[j];
    let c = sw[k];
    let ab = b - a;
    let ac = c - a;
    let d1 = -dot(ab, a);
    let d2 = -dot(ac, a);
    if d1 <= 0.0 && d2 <= 0.0 {
        return sub_point(i);
    }
    let d3 = -dot(ab, b);
    let d4 = -dot(ac, b);
    if d3 >= 0.0 && d4 <= d3 {
        return sub_point(j);
    }
    var r: Sub;
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = ratio(d1, d1 - d3);
        r.lam[i] = 1.0 - v;
        r.lam[j] = v;
        r.mask = (1u << i) | (1u << j);
        return r;
    }
    let d5 = -dot(ab, c);
    let d6 = -dot(ac, c);
    if d6 >= 0.0 && d5 <= d6 {
        return sub_point(k);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = ratio(d2, d2 - d6);
        r.lam[i] = 1.0 - w;
        r.lam[k] = w;
        r.mask = (1u << i) | (1u << k);
        return r;
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = ratio(d4 - d3, (d4 - d3) + (d5 - d6));
        r.lam[j] = 1.0 - w;
        r.lam[k] = w;
        r.mask = (1u << j) | (1u << k);
        return r;
    }
    let sum = va + vb + vc;
    if !(sum > 0.0) {
        return sub_nearest(sub_nearest(sub_segment(i, j), sub_segment(i, k)), sub_segment(j, k));
    }
    let v = vb / sum;
    let w = vc / sum;
    r.lam[i] = 1.0 - v - w;
    r.lam[j] = v;
    r.lam[k] = w;
    r.mask = (1u << i) | (1u << j) | (1u << k);
    return r;
}

// Whether the origin may lie beyond the face (w_i, w_j, w_k) of the tetrahedron, seen from the opposite vertex w_o.
// A flat tetrahedron counts every face.
fn beyond_face(i: u32, j: u32, k: u32, o: u32) -> bool {
    let a = sw[i];
    let n = cross(sw[j] - a, sw[k] - a);
    let e = sw[o] - a;
    let so = dot(e, n);
    let sp = -dot(a, n);
    let flat = so * so <= FLAT * (FLAT * dot(n, n) * dot(e, e));
    return flat || sp * so < 0.0;
}

// Closest point of the tetrahedron (w_0 … w_3) to the origin: the nearest of the faces the origin lies beyond; all
// four slots (weights unused) when the origin is inside.
fn sub_tetrahedron() -> Sub {
    var best: Sub;
    best.mask = 15u;
    var best_d = real(-1.0);
    var faces = array<vec4<u32>, 4>(vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(0u, 2u, 3u, 1u), vec4<u32>(0u, 3u, 1u, 2u),
        vec4<u32>(1u, 3u, 2u, 0u));
    for (var f = 0u; f < 4u; f++) {
        let t = faces[f];
        if beyond_face(t.x, t.y, t.z, t.w) {
            let r = sub_triangle(t.x, t.y, t.z);
            let p = sub_eval(r);
            let d = dot(p, p);
            if best_d < 0.0 || d < best_d {
                best = r;
                best_d = d;
            }
        }
    }
    return best;
}

// Reduces the simplex to the smallest sub-simplex holding its point closest to the origin; returns that point's
// weights in `lam` (compacted with the simplex) and whether the origin is inside a tetrahedron.
fn reduce() -> bool {
    var r: Sub;
    switch ns {
        case 1u: {
            r = sub_point(0u);
        }
        case 2u: {
            r = sub_segment(0u, 1u);
        }
        case 3u: {
            r = sub_triangle(0u, 1u, 2u);
        }
        default: {
            r = sub_tetrahedron();
        }
    }
    var m = 0u;
    for (var i = 0u; i < ns; i++) {
        if ((r.mask >> i) & 1u) != 0u {
            sa[m] = sa[i];
            sb[m] = sb[i];
            sw[m] = sw[i];
            lam[m] = r.lam[i];
            m++;
        }
    }
    ns = m;
    return m == 4u;
}

struct Gjk {
    // Closest point of M found (a − b), and the matching points of A and B.
    v: vec3<real>,
    pa: vec3<real>,
    pb: vec3<real>,
    // Plane normal of the final simplex when it is a triangle, else zero.
    nt: vec3<real>,
    iterations: u32,
    // Origin inside the simplex, or |v| ≤ stop.
    touching: bool,
}

// GJK from the first guess `v0` of the closest point; stops at a gap ≤ `tol` or at |v| ≤ `stop`.
fn gjk(v0: vec3<real>, tol: real, stop: real, dup: real) -> Gjk {
    var out: Gjk;
    var v = v0;
    ns = 0u;
    for (var it = 0u; it < GJK_MAX_ITERATIONS; it++) {
        let a = support_a(-v);
        let b = support_b(v);
        let w = project(a - b);
        let vv = dot(v, v);
        if ns > 0u {
            if vv - dot(v, w) <= tol * sqrt(vv) {
                return out;
            }
            for (var i = 0u; i < ns; i++) {
                let e = w - sw[i];
                if dot(e, e) <= dup * dup {
                    return out;
                }
            }
        }
        out.iterations = it + 1u;
        sa[ns] = a;
        sb[ns] = b;
        sw[ns] = w;
        ns++;
        let inside = reduce();
        var nv = vec3<real>(0.0);
        var pa = vec3<real>(0.0);
        var pb = vec3<real>(0.0);
        for (var i = 0u; i < ns; i++) {
            nv += lam[i] * sw[i];
            pa += lam[i] * sa[i];
            pb += lam[i] * sb[i];
        }
        // Stop on a step that lengthens v beyond rounding; steps that keep its length are taken, since near contact
        // rounding hides the progress from a simplex edge to the face that holds the closest point.
        if it > 0u && !inside && dot(nv, nv) > vv + real(2.0) * tol * sqrt(vv) {
            return out;
        }
        v = nv;
        out.v = nv;
        out.pa = pa;
        out.pb = pb;
        out.nt = vec3<real>(0.0);
        if ns == 3u {
            out.nt = cross(sw[1] - sw[0], sw[2] - sw[0]);
        }
        if inside || dot(nv, nv) <= stop * stop {
            out.touching = true;
            return out;
        }
    }
    return out;
}

// Offers the axis along `m` (any length; oriented towards B) to the separating-axis test.
fn try_axis(m: vec3<real>) {
    let l2 = dot(m, m);
    if !(l2 > real(1e-30)) {
        return;
    }
    var n = m / sqrt(l2);
    if dot(n, tb) < 0.0 {
        n = -n;
    }
    let sep = dot(n, tb) - dot(ha, abs(n)) - dot(hb, abs(to_b(n)));
    if sep > sat_sep {
        sat_sep = sep;
        sat_n = n;
    }
}

fn unit(i: u32) -> vec3<real> {
    var e = vec3<real>(0.0);
    e[i] = 1.0;
    return e;
}

// The separating-axis test of the cores: leaves the signed core distance in `sat_sep`, its axis in `sat_n`.
fn sat() {
    sat_sep = real(-1e30);
    sat_n = vec3<real>(1.0, 0.0, 0.0);
    try_axis(tb);
    for (var i = 0u; i < 3u; i++) {
        try_axis(unit(i));
    }
    for (var j = 0u; j < 3u; j++) {
        try_axis(rb[j]);
    }
    var gens: array<vec3<real>, 6>;
    var ng = 0u;
    for (var i = 0u; i < 3u; i++) {
        if ha[i] > 0.0 {
            gens[ng] = unit(i);
            ng++;
        }
    }
    let na = ng;
    for (var j = 0u; j < 3u; j++) {
        if hb[j] > 0.0 {
            gens[ng] = rb[j];
            ng++;
        }
    }
    for (var i = 0u; i < na; i++) {
        for (var j = na; j < ng; j++) {
            try_axis(cross(gens[i], gens[j]));
        }
    }
    if ng <= 2u {
        for (var i = 0u; i < ng; i++) {
            try_axis(tb - gens[i] * dot(gens[i], tb));
        }
        if ng == 2u {
            let c = cross(gens[0], gens[1]);
            try_axis(cross(gens[0], c));
            try_axis(cross(gens[1], c));
        }
    }
}

fn core_half(kind: u32, size: vec3<real>) -> vec3<real> {
    switch kind {
        case KIND_SPHERE: {
            return vec3<real>(0.0);
        }
        case KIND_CAPSULE: {
            return vec3<real>(0.0, 0.0, size.y);
        }
        default: {
            return size;
        }
    }
}

fn core_radius(kind: u32, size: vec3<real>) -> real {
    return select(size.x, real(0.0), kind == KIND_BOX);
}

fn qmul(p: vec4<real>, q: vec4<real>) -> vec4<real> {
    return vec4<real>(p.w * q.xyz + q.w * p.xyz + cross(p.xyz, q.xyz), p.w * q.w - dot(p.xyz, q.xyz));
}

fn ld3(o: u32) -> vec3<real> {
    return vec3<real>(input[o], input[o + 1u], input[o + 2u]);
}

fn ld4(o: u32) -> vec4<real> {
    return vec4<real>(input[o], input[o + 1u], input[o + 2u], input[o + 3u]);
}

@compute @workgroup_size(64)
fn distance(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x;
    if q >= params[0] {
        return;
    }
    let o = q * IN_STRIDE;
    let pos_a = ld3(o);
    let rot_a = ld4(o + 3u);
    let pos_b = ld3(o + 7u);
    let rot_b = ld4(o + 10u);
    let size_a = ld3(o + 14u);
    let size_b = ld3(o + 17u);
    let kind_a = kinds[2u * q];
    let kind_b = kinds[2u * q + 1u];

    ha = core_half(kind_a, size_a);
    hb = core_half(kind_b, size_b);
    let inv_a = vec4<real>(-rot_a.xyz, rot_a.w);
    let rel = qmul(inv_a, rot_b);
    for (var j = 0u; j < 3u; j++) {
        rb[j] = qrot(rel, unit(j));
    }
    tb = qrot(inv_a, pos_b - pos_a);
    let scale = max(len3(ha) + len3(hb) + len3(tb), real(1e-20));

    feature = false;
    let g = gjk(-tb, GJK_TOL * scale, CONTACT_TOL * scale, DUP * scale);
    var iterations = g.iterations;
    var flags = 0u;
    var n: vec3<real>;
    var pa: vec3<real>;
    var pb: vec3<real>;
    if g.touching {
        sat();
        n = sat_n;
        feature = true;
        feature_n = n;
        let f = gjk(project(-tb), GJK_TOL * scale, DUP * scale, DUP * scale);
        iterations += f.iterations;
        flags = STATUS_SAT;
        let lateral = real(0.5) * (project(f.pa) + project(f.pb));
        let top_a = dot(ha, abs(n));
        pa = lateral + top_a * n;
        pb = lateral + (top_a + sat_sep) * n;
    } else {
        n = -g.v / len3(g.v);
        let lt = len3(g.nt);
        if lt > 0.0 {
            var m = g.nt / lt;
            if dot(m, n) < 0.0 {
                m = -m;
            }
            if dot(m, n) > 0.99 {
                n = m;
            }
        }
        let lateral = real(0.5) * ((g.pa - n * dot(n, g.pa)) + (g.pb - n * dot(n, g.pb)));
        pa = lateral + n * dot(n, g.pa);
        pb = lateral + n * dot(n, g.pb);
    }
    let r_a = core_radius(kind_a, size_a);
    let r_b = core_radius(kind_b, size_b);
    pa += r_a * n;
    pb -= r_b * n;
    let d = dot(n, pb - pa);

    let out = q * OUT_STRIDE;
    let nw = qrot(rot_a, n);
    let wa = qrot(rot_a, pa) + pos_a;
    let wb = qrot(rot_a, pb) + pos_a;
    output[out] = d;
    output[out + 1u] = nw.x;
    output[out + 2u] = nw.y;
    output[out + 3u] = nw.z;
    output[out + 4u] = wa.x;
    output[out + 5u] = wa.y;
    output[out + 6u] = wa.z;
    output[out + 7u] = wb.x;
    output[out + 8u] = wb.y;
    output[out + 9u] = wb.z;
    status[q] = min(iterations, 0xffffu) | flags;
}
