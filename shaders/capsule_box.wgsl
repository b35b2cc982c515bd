// Capsule–box contacts as the native dialect makes them on the CPU (Genesis 1.4.5): MPR (mpr.wgsl), warm-started
// from the pair's normal of the previous step; a deep contact is recomputed by the exact signed distance of the
// capsule's core and the box (crates/collision/src/pairs/capsule_box.rs); then four tilts by MC_PERTURBATION about
// the default axes ±a₀, ±a₁ (multi_contact.rs `face_perturbation_contacts` with `outlined = false`), each contact
// rebuilt on the unperturbed geoms (`recompute_perturbed_contact`), placed on the capsule's side
// (smooth_contact.rs) and merged. Appended to sim.wgsl.

// The pair's warm-start normal of the previous step (B → A), zero when it has none.
fn cached_normal(p: u32) -> vec3<real> {
    let at = sb + S_NCACHE + 3u * p;
    return vec3<real>(st[at], st[at + 1u], st[at + 2u]);
}
fn keep_normal(p: u32, n: vec3<real>) {
    let at = sb + S_NCACHE + 3u * p;
    st[at] = n.x;
    st[at + 1u] = n.y;
    st[at + 2u] = n.z;
}
fn forget_normal(p: u32) { keep_normal(p, vec3<real>(0.0, 0.0, 0.0)); }

// ---- the exact signed distance of a capsule core and a box (pairs/capsule_box.rs) --------------------------------

// (x − clamp(x)) · d at x = p0 + t d: half the derivative of the squared distance of the segment's point to the box.
fn box_slope(p0: vec3<real>, d: vec3<real>, half: vec3<real>, t: real) -> real {
    let x = p0 + t * d;
    return dot(x - clamp(x, -half, half), d);
}

// The parameter t ∈ [0, 1] of the segment's point nearest the box (box frame): the zero of the piecewise-linear
// slope, found between its break points.
fn segment_box_parameter(p0: vec3<real>, d: vec3<real>, half: vec3<real>) -> real {
    let s0 = box_slope(p0, d, half, real(0.0));
    if (s0 >= real(0.0)) { return real(0.0); }
    let s1 = box_slope(p0, d, half, real(1.0));
    if (s1 <= real(0.0)) { return real(1.0); }
    var breaks: array<real, 7>;
    var n = 0u;
    for (var i = 0u; i < 3u; i++) {
        if (d[i] != real(0.0)) {
            for (var k = 0u; k < 2u; k++) {
                let bound = select(half[i], -half[i], k == 0u);
                let t = (bound - p0[i]) / d[i];
                if (t > real(0.0) && t < real(1.0)) {
                    breaks[n] = t;
                    n++;
                }
            }
        }
    }
    breaks[n] = real(1.0);
    for (var i = 1u; i <= n; i++) {
        let x = breaks[i];
        var j = i;
        while (j > 0u && breaks[j - 1u] > x) {
            breaks[j] = breaks[j - 1u];
            j--;
        }
        breaks[j] = x;
    }
    var lo = real(0.0);
    var s_lo = s0;
    for (var i = 0u; i <= n; i++) {
        let hi = breaks[i];
        var s_hi = s1;
        if (hi != real(1.0)) { s_hi = box_slope(p0, d, half, hi); }
        if (s_hi >= real(0.0)) { return clamp(lo + (hi - lo) * (-s_lo / (s_hi - s_lo)), lo, hi); }
        lo = hi;
        s_lo = s_hi;
    }
    return real(1.0);
}

// A signed distance: `dist` (negative in penetration), the witnesses wa on A and wb on B, the normal n from A to B.
struct Signed { dist: real, wa: vec3<real>, wb: vec3<real>, n: vec3<real> }

// A core point of an overlapping segment at the face axis i (box frame): its deepest end, or the middle of the part
// over the face when the segment lies along it.
fn face_witness(p0: vec3<real>, d: vec3<real>, half: vec3<real>, n: vec3<real>, i: u32) -> vec3<real> {
    let dn = dot(d, n);
    if (abs(dn) > real(1e-12) * vnorm(d)) { return select(p0, p0 + d, dn > real(0.0)); }
    var t0 = real(0.0);
    var t1 = real(1.0);
    for (var j = 0u; j < 3u; j++) {
        if (j != i && d[j] != real(0.0)) {
            let a = (-half[j] - p0[j]) / d[j];
            let b = (half[j] - p0[j]) / d[j];
            t0 = max(t0, min(a, b));
            t1 = min(t1, max(a, b));
        }
    }
    var t = real(0.5);
    if (t0 <= t1) { t = real(0.5) * (t0 + t1); }
    return p0 + t * d;
}

// A core point of an overlapping segment at the edge axis e_i × d: its closest point to the box edge along e_i.
fn edge_witness(p0: vec3<real>, d: vec3<real>, half: vec3<real>, n: vec3<real>, i: u32) -> vec3<real> {
    let e = unit_axis(i);
    // The box's edge along e_i on the side −n faces (a zero component counts as positive).
    var c = -select(vec3<real>(-1.0, -1.0, -1.0), vec3<real>(1.0, 1.0, 1.0), n >= vec3<real>(0.0, 0.0, 0.0)) * half;
    c[i] = real(0.0);
    let r = p0 - c;
    let a = dot(d, d);
    let b = d[i];
    let f = dot(d, r);
    let g = r[i];
    let denom = a - b * b;
    var t = real(0.5);
    if (denom > real(0.0)) { t = clamp((b * g - f) / denom, real(0.0), real(1.0)); }
    return p0 + t * d;
}

// Capsule core [e0, e1] ⊕ rad (A) against a box of half extents `half` posed by (r, c) (B): the exact signed distance.
fn capsule_box_signed(e0: vec3<real>, e1: vec3<real>, rad: real, half: vec3<real>, r: mat3x3<real>, c: vec3<real>) -> Signed {
    let rt = transpose(r);
    let p0 = rt * (e0 - c);
    let d = rt * (e1 - c) - p0;
    let t = segment_box_parameter(p0, d, half);
    let x = p0 + t * d;
    let q = clamp(x, -half, half);
    let delta = q - x;
    let len = vnorm(delta);
    let scale = max(max(max(half.x, max(half.y, half.z)), vnorm(d)), rad);
    if (len > real(1e-12) * scale) {
        let n = r * (delta / len);
        return Signed(len - rad, r * x + c + rad * n, r * q + c, n);
    }
    // The core reaches the box: the separating axis of least depth among the box's faces and e_i × d.
    let p1 = p0 + d;
    let lo = min(p0, p1);
    let hi = max(p0, p1);
    var best = real(3.4e38);
    var bn = vec3<real>(0.0, 0.0, 0.0);
    var face = true;
    var axis = 0u;
    for (var i = 0u; i < 3u; i++) {
        for (var k = 0u; k < 2u; k++) {
            let depth = select(half[i] - lo[i], hi[i] + half[i], k == 0u);
            if (depth < best) {
                best = depth;
                bn = unit_axis(i) * select(real(-1.0), real(1.0), k == 0u);
                face = true;
                axis = i;
            }
        }
    }
    let dd = dot(d, d);
    for (var i = 0u; i < 3u; i++) {
        var u = cross(unit_axis(i), d);
        let uu = dot(u, u);
        if (uu > real(1e-20) * dd) {
            u = u / sqrt(uu);
            let s = dot(u, p0);
            let depth = dot(half, abs(u)) - abs(s);
            if (depth < best) {
                best = depth;
                bn = select(u, -u, s > real(0.0));
                face = false;
                axis = i;
            }
        }
    }
    var core = edge_witness(p0, d, half, bn, axis);
    if (face) { core = face_witness(p0, d, half, bn, axis); }
    let n = r * bn;
    let cw = r * core + c;
    return Signed(-(best + rad), cw + rad * n, cw - best * n, n);
}

// ---- detection ------------------------------------------------------------------------------------------------

// One detection of the pair: the contact (B → A), and either MPR's portal (mp[1..3], `portal`) or the exact
// witnesses wa, wb (`exact`).
struct Detection {
    ok: bool,
    pos: vec3<real>,
    n: vec3<real>,
    pen: real,
    portal: bool,
    exact: bool,
    wa: vec3<real>,
    wb: vec3<real>,
}

// The capsule geom's core ends at the posed geom.
fn posed_ends(s: Posed) -> array<vec3<real>, 2> {
    let axis = s.r[2] * gsize(s.g).y;
    return array<vec3<real>, 2>(s.p - axis, s.p + axis);
}

// dispatch.rs `detect_contact` for a capsule and a box (either order): MPR, whose contact stands unless it is deeper
// than `tol` and either cold or deeper than an eighth of the smaller local box diagonal `min_diag`; then the exact
// signed distance decides.
fn detect(a: Posed, b: Posed, nws: vec3<real>, tol: real, min_diag: real) -> Detection {
    let none = Detection(false, vec3<real>(0.0, 0.0, 0.0), vec3<real>(0.0, 0.0, 0.0), real(0.0), false, false,
                         vec3<real>(0.0, 0.0, 0.0), vec3<real>(0.0, 0.0, 0.0));
    let m = mpr_cached(a, b, nws, MPR_RELATIVE_TOLERANCE * real(0.5) * min_diag);
    if (!m.hit) { return none; }
    let warm = max_abs3(nws) > CCD_EPS;
    if (!(m.depth > tol && (!warm || m.depth >= real(0.125) * min_diag))) {
        return Detection(true, m.pos, m.n, m.depth, m.portal, false, m.pos, m.pos);
    }
    let capsule_a = mu[MU_GEOM_TYPE + a.g] == G_CAPSULE;
    var cap = b;
    var bx = a;
    if (capsule_a) {
        cap = a;
        bx = b;
    }
    let e = posed_ends(cap);
    var s = capsule_box_signed(e[0], e[1], gsize(cap.g).x, gsize(bx.g), bx.r, bx.p);
    if (!capsule_a) { s = Signed(s.dist, s.wb, s.wa, -s.n); }
    if (!(s.dist < real(0.0))) { return none; }
    return Detection(true, real(0.5) * (s.wa + s.wb), -s.n, -s.dist, false, true, s.wa, s.wb);
}

// ---- the tilted contacts ----------------------------------------------------------------------------------------

// A triangle with edges e1, e2, e3 and squared height `height_sq` spans no area within the rounding of coordinates
// at distance |c0| from the origin.
fn flat_triangle(e1: vec3<real>, e2: vec3<real>, e3: vec3<real>, height_sq: real, c0: vec3<real>) -> bool {
    let longest = max(dot(e1, e1), max(dot(e2, e2), dot(e3, e3)));
    return height_sq <= real(2.0) * GENESIS_EPS * GENESIS_EPS * longest * (longest + real(4.0) * dot(c0, c0));
}
fn across(e: vec3<real>, n0: vec3<real>) -> vec3<real> { return e - dot(e, n0) * n0; }

// Contact 0 of the pair: its normal n0, position c0 and depth p0; the pair's scale s; the depth noise of contact 0.
struct First { n0: vec3<real>, c0: vec3<real>, p0: real, s: real, noise: real }

// A contact (simulator convention).
struct Found { pos: vec3<real>, n: vec3<real>, pen: real }

// `recompute_perturbed_contact`: the detection `h` on the geoms tilted by q (A) and q⁻¹ (B) about c0, brought back
// to the unperturbed geoms. The witnesses are un-rotated. Where both support triangles of MPR's portal are edges,
// the depth along n0 is exact where they cross seen along n0; otherwise an edge's end the tilt deepened, or a
// witness, covered along n0 by the other geom's support triangle bounds the depth from below. Without a portal the
// un-rotated normal's tangent plane measures the depth if within 2ε of n0. Otherwise the contact keeps its own
// patch. A contact on n0's patch of negative depth moves towards c0 to where the interpolated depth vanishes.
fn recompute_tilted(f: First, h: Detection, q: vec4<real>) -> Found {
    let n0 = f.n0;
    let c0 = f.c0;
    let s = f.s;
    let r = qmat(q);
    let r_inv = transpose(r);
    var wa = h.wa;
    var wb = h.wb;
    if (!h.exact) {
        wa = h.pos - real(0.5) * h.pen * h.n;
        wb = h.pos + real(0.5) * h.pen * h.n;
    }
    wa = r_inv * (wa - c0) + c0;
    wb = r * (wb - c0) + c0;
    var depth = dot(n0, wb - wa);
    var position = wb - real(0.5) * depth * n0;
    var has_depth = false;
    var sup: array<array<vec3<real>, 3>, 2>;
    if (h.portal) {
        for (var k = 0u; k < 3u; k++) {
            sup[0][k] = r_inv * (mp[k + 1u].a - c0) + c0;
            sup[1][k] = r * (mp[k + 1u].b - c0) + c0;
        }
        var degenerate = array<bool, 2>(false, false);
        var has_end = array<bool, 2>(false, false);
        var ends: array<array<vec3<real>, 2>, 2>;
        for (var g = 0u; g < 2u; g++) {
            let v = sup[g];
            let e1 = v[1] - v[0];
            let e2 = v[2] - v[0];
            let e3 = v[2] - v[1];
            let height = dot(cross(e1, e2), n0);
            if (flat_triangle(e1, e2, e3, height * height, c0)) {
                degenerate[g] = true;
                // The support points line up: the edge's ends are the two farthest apart across n0.
                var end = array<vec3<real>, 2>(v[0], v[1]);
                var span = across(e1, n0);
                let s2 = across(e2, n0);
                if (dot(s2, s2) > dot(span, span)) {
                    end = array<vec3<real>, 2>(v[0], v[2]);
                    span = s2;
                }
                let s3 = across(e3, n0);
                if (dot(s3, s3) > dot(span, span)) {
                    end = array<vec3<real>, 2>(v[1], v[2]);
                    span = s3;
                }
                if (dot(span, span) > GENESIS_EPS * s * s) {
                    has_end[g] = true;
                    ends[g] = end;
                }
            }
        }
        if (has_end[0] && has_end[1]) {
            // Two edges touch where they cross seen along n0: both closest points lie on one line along it.
            let pa0 = across(ends[0][0], n0);
            let pa1 = across(ends[0][1], n0);
            let pb0 = across(ends[1][0], n0);
            let pb1 = across(ends[1][1], n0);
            let la = dot(pa1 - pa0, pa1 - pa0);
            let lb = dot(pb1 - pb0, pb1 - pb0);
            if (la > GENESIS_EPS * s * s && lb > GENESIS_EPS * s * s) {
                let cp = closest_segments_eps(pa0, pa1, pb0, pb1, GENESIS_EPS * la * lb);
                let gap = cp[1] - cp[0];
                if (dot(gap, gap) <= GENESIS_EPS * s * s) {
                    let ra = dot(cp[0] - pa0, pa1 - pa0) / la;
                    let rb = dot(cp[1] - pb0, pb1 - pb0) / lb;
                    wa = ends[0][0] + ra * (ends[0][1] - ends[0][0]);
                    wb = ends[1][0] + rb * (ends[1][1] - ends[1][0]);
                    depth = dot(n0, wb - wa);
                    position = real(0.5) * (wa + wb);
                    has_depth = true;
                }
            }
        } else {
            // Along an edge lying on the other face the depth is linear: the tilt deepens one end, a material point.
            var deepened = array<bool, 2>(false, false);
            var deep: array<vec3<real>, 2>;
            for (var g = 0u; g < 2u; g++) {
                if (has_end[g]) {
                    let e0 = ends[g][0];
                    let e1 = ends[g][1];
                    var turn = r;
                    var sign = real(-1.0);
                    if (g == 1u) {
                        turn = r_inv;
                        sign = real(1.0);
                    }
                    let l0 = sign * dot(n0, turn * (e0 - c0) - (e0 - c0));
                    let l1 = sign * dot(n0, turn * (e1 - c0) - (e1 - c0));
                    if (abs(l1 - l0) > GENESIS_EPS * (abs(l0) + abs(l1))) {
                        deepened[g] = true;
                        deep[g] = select(e0, e1, l1 > l0);
                    }
                }
            }
            // The other geom's support triangle, where it covers a witness along n0, bounds the depth from below.
            for (var g = 0u; g < 2u; g++) {
                if (degenerate[1u - g]) { continue; }
                let v = sup[1u - g];
                let e1 = v[1] - v[0];
                let e2 = v[2] - v[0];
                let area = dot(cross(e1, e2), n0);
                let witness = select(wb, wa, g == 0u);
                for (var k = 0u; k < 2u; k++) {
                    if (k == 0u && !deepened[g]) { continue; }
                    let candidate = select(witness, deep[g], k == 0u);
                    let offset = candidate - v[0];
                    let l2 = dot(cross(offset, e2), n0) / area;
                    let l3 = dot(cross(e1, offset), n0) / area;
                    if (!(l2 >= real(0.0) && l3 >= real(0.0) && l2 + l3 <= real(1.0))) { continue; }
                    if (g == 0u) { wa = candidate; } else { wb = candidate; }
                    let height = dot(n0, v[0] + l2 * e1 + l3 * e2);
                    var bound = dot(n0, wb) - height;
                    if (g == 0u) { bound = height - dot(n0, wa); }
                    if (!has_depth || bound > depth) {
                        depth = bound;
                        position = candidate + select(real(-0.5), real(0.5), g == 0u) * bound * n0;
                        has_depth = true;
                    }
                    break;
                }
            }
        }
    }
    if (!has_depth && !h.portal) {
        // The un-rotated normal is B's tangent plane at A's witness; one tilted beyond 2ε belongs to another face.
        let tangent = r * h.n;
        let slope = dot(tangent, n0);
        if (slope >= cos(real(2.0) * MC_PERTURBATION)) {
            depth = dot(tangent, wb - wa) / slope;
            position = wa + real(0.5) * depth * n0;
            has_depth = true;
        }
    }
    var normal = n0;
    if (!has_depth) {
        normal = h.n;
        if (h.portal) {
            let m0 = sup[0][0] - sup[1][0];
            let m1 = sup[0][1] - sup[1][1];
            let m2 = sup[0][2] - sup[1][2];
            let e1 = m1 - m0;
            let e2 = m2 - m0;
            let e3 = m2 - m1;
            let face = cross(e1, e2);
            if (!flat_triangle(e1, e2, e3, dot(face, face), c0)) {
                normal = face / vnorm(face);
                if (dot(normal, h.n) < real(0.0)) { normal = -normal; }
            }
        }
        depth = dot(normal, wb - wa);
        position = real(0.5) * (wa + wb);
    }
    if (has_depth && depth < real(0.0) && f.p0 - depth > f.noise) {
        position += depth / (depth - f.p0) * (c0 - position);
    }
    return Found(position, normal, max(depth, real(0.0)));
}

// smooth_contact.rs: the position of a contact (normal n from B to A, depth pen) moved to the capsule's side.
fn capsule_box_smooth(a: Posed, b: Posed, pos: vec3<real>, n: vec3<real>, pen: real) -> vec3<real> {
    if (mu[MU_GEOM_TYPE + a.g] == G_CAPSULE) {
        let e = posed_ends(a);
        return capsule_smooth(e[0], e[1], gsize(a.g).x, pos, n, pen);
    }
    let e = posed_ends(b);
    return capsule_smooth(e[0], e[1], gsize(b.g).x, pos, -n, pen);
}

// Volume proxy of a geom's local box (x·y·z of its half extents), which picks the reference frame of the tilts.
fn half_box_volume(g: u32) -> real {
    let h = real(0.5) * local_box(g);
    return h.x * h.y * h.z;
}

// The contacts of pair p, a capsule and a box in either order (A = ga, B = gb).
fn capsule_box(p: u32, ga: u32, gb: u32, tol: real) {
    let a = Posed(gmat(ga), gpos(ga), ga);
    let b = Posed(gmat(gb), gpos(gb), gb);
    let min_diag = min(vnorm(local_box(ga)), vnorm(local_box(gb)));
    let first = detect(a, b, cached_normal(p), tol, min_diag);
    if (!first.ok) { return; }
    keep_normal(p, first.n);
    let n0 = first.n;
    let p0 = first.pen;
    let c0 = capsule_box_smooth(a, b, first.pos, n0, p0);
    let start = sts[ob + O_NCON];
    push_contact(p, c0, n0, p0);
    if (!MULTI_CONTACT) { return; }
    var g = gb;
    if (half_box_volume(ga) < half_box_volume(gb)) { g = ga; }
    let axes = diagonal_axes(g, n0);
    let s = real(0.5) * min_diag;
    var noise = max(GENESIS_EPS * s, DEPTH_NOISE * s);
    if (first.exact) { noise = max(GENESIS_EPS * s, GJK_TOLERANCE); }
    let f = First(n0, c0, p0, s, noise);
    let merge_tol = MC_TOLERANCE * s;
    for (var i = 0u; i < 4u; i++) {
        if (sts[ob + O_NCON] - start >= MAX_CONVEX) { break; }
        let q = tilt(axes, i);
        let qc = vec4<real>(-q.xyz, q.w);
        let ta = Posed(qmat(q) * a.r, rotate_about(a.p, q, c0), ga);
        let tb = Posed(qmat(qc) * b.r, rotate_about(b.p, qc, c0), gb);
        let h = detect(ta, tb, n0, tol, min_diag);
        if (!h.ok) { continue; }
        let c = recompute_tilted(f, h, q);
        let pos = capsule_box_smooth(a, b, c.pos, c.n, c.pen);
        if (new_tilted_contact(start, pos, c.n, s, merge_tol)) { push_contact(p, pos, c.n, c.pen); }
    }
}
