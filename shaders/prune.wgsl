// Contact pruning (spec §A.16, crates/collision/src/prune.rs): the contacts of one link pair that lie on one plane are
// reduced to the corners of their support polygon. Runs after the narrow phase, over this environment's contacts in
// the order the narrow phase made them (the CPU sorts a pair's contacts by their frame key first, which decides only
// ties). Appended to sim.wgsl.
//
// A link pair's contacts split into patches of agreeing normals (|n_head · n| ≥ 1 − tol²/2, the first patch that
// agrees). A patch of three or more whose points lie within tol · (its radius) of its mean plane keeps the vertices of
// its support polygon: the convex hull of the points projected on the plane (a segment's two farthest points), less
// the vertices whose turn is below 90°, whose loss is the least of their neighbours' and which are collinear or lose
// at most tol of the hull's area; a dropped contact deeper than DEEP_PENETRATION_RATIO × the deepest kept is restored.
// Scratch: W_PRUNE_XY (projected points), W_PRUNE_LOSS, I_PRUNE_PATCH (each contact's patch head), I_PRUNE_KEEP,
// I_PRUNE_MEMBER (a patch's contacts), I_PRUNE_LEX, I_PRUNE_HULL, I_PRUNE_GONE.

fn con_pos(c: u32) -> vec3<real> { return ld3(W_CON + 7u * c); }
fn con_normal(c: u32) -> vec3<real> { return ld3(W_CON + 7u * c + 3u); }
fn con_pen(c: u32) -> real { return wk[wb + W_CON + 7u * c + 6u]; }

// The contact's bodies, (min, max).
fn link_pair(c: u32) -> vec2<u32> {
    let p = iw[ib + I_CONPAIR + c];
    let la = mu[MU_GEOM_BODY + mu[MU_PAIR + 2u * p]];
    let lb = mu[MU_GEOM_BODY + mu[MU_PAIR + 2u * p + 1u]];
    return vec2<u32>(min(la, lb), max(la, lb));
}

fn prune_xy(k: u32) -> vec2<real> { return vec2<real>(wk[wb + W_PRUNE_XY + 2u * k], wk[wb + W_PRUNE_XY + 2u * k + 1u]); }
fn cross2(a: vec2<real>, b: vec2<real>) -> real { return a.x * b.y - a.y * b.x; }
fn lex_less(a: vec2<real>, b: vec2<real>) -> bool { return a.x < b.x || (a.x <= b.x && a.y < b.y); }
fn hull_at(k: u32) -> u32 { return iw[ib + I_PRUNE_HULL + k]; }
fn hull_xy(k: u32, m: u32) -> vec2<real> { return prune_xy(hull_at(k % m)); }

// The in-plane basis: u from the world axis least aligned with the normal (x unless y or z is strictly less aligned;
// z wins a tie with y), v = normal × u.
fn plane_basis(normal: vec3<real>) -> array<vec3<real>, 2> {
    let a = abs(normal);
    var axis = vec3<real>(1.0, 0.0, 0.0);
    if (a.y < a.x && a.y < a.z) {
        axis = vec3<real>(0.0, 1.0, 0.0);
    } else if (a.z < a.x && a.z <= a.y) {
        axis = vec3<real>(0.0, 0.0, 1.0);
    }
    let u = normalize(axis - dot(axis, normal) * normal);
    return array<vec3<real>, 2>(u, cross(normal, u));
}

// Andrew's monotone chain over the m projected points: the hull's local indices in I_PRUNE_HULL, counter-clockwise
// from the lexicographically least, without collinear points; returns their count.
fn convex_hull(m: u32) -> u32 {
    for (var i = 0u; i < m; i++) {
        let x = prune_xy(i);
        var j = i;
        while (j > 0u) {
            let y = prune_xy(iw[ib + I_PRUNE_LEX + j - 1u]);
            if (!(y.x > x.x || (y.x == x.x && y.y > x.y))) { break; }
            iw[ib + I_PRUNE_LEX + j] = iw[ib + I_PRUNE_LEX + j - 1u];
            j--;
        }
        iw[ib + I_PRUNE_LEX + j] = i;
    }
    var n = 0u;
    for (var t = 0u; t < m; t++) {
        let i = iw[ib + I_PRUNE_LEX + t];
        while (n >= 2u && !(cross2(prune_xy(hull_at(n - 1u)) - prune_xy(hull_at(n - 2u)),
                                   prune_xy(i) - prune_xy(hull_at(n - 2u))) > real(0.0))) { n--; }
        iw[ib + I_PRUNE_HULL + n] = i;
        n++;
    }
    let lower = n + 1u;
    for (var t = m - 1u; t > 0u; t--) {
        let i = iw[ib + I_PRUNE_LEX + t - 1u];
        while (n >= lower && !(cross2(prune_xy(hull_at(n - 1u)) - prune_xy(hull_at(n - 2u)),
                                      prune_xy(i) - prune_xy(hull_at(n - 2u))) > real(0.0))) { n--; }
        iw[ib + I_PRUNE_HULL + n] = i;
        n++;
    }
    if (m > 1u) { n--; }
    return n;
}

// The hull vertex farthest from `origin` (the first on a tie).
fn farthest(origin: vec2<real>, m: u32) -> u32 {
    var best = 0u;
    var best_d = real(-1.0);
    for (var k = 0u; k < m; k++) {
        let d = prune_xy(hull_at(k)) - origin;
        if (dot(d, d) > best_d) {
            best = k;
            best_d = dot(d, d);
        }
    }
    return best;
}

// The support polygon of the m projected points: its vertices' local indices in I_PRUNE_HULL; returns their count.
fn support_polygon(m0: u32, tol: real, rounding: real) -> u32 {
    var m = convex_hull(m0);
    var area2 = real(0.0);
    var perimeter = real(0.0);
    for (var k = 0u; k < m; k++) {
        let p = hull_xy(k, m);
        let q = hull_xy(k + 1u, m);
        area2 += cross2(p, q);
        perimeter += length(q - p);
    }
    if (m > 2u && abs(area2) <= rounding * perimeter) {
        // A segment: its two farthest points.
        let e0 = farthest(prune_xy(hull_at(0u)), m);
        let e1 = farthest(prune_xy(hull_at(e0)), m);
        let ends = vec2<u32>(hull_at(e0), hull_at(e1));
        iw[ib + I_PRUNE_HULL] = ends.x;
        iw[ib + I_PRUNE_HULL + 1u] = ends.y;
        return 2u;
    }
    let area_tol = tol * abs(area2);
    let passes = m;
    for (var round = 0u; round < passes && m > 2u; round++) {
        for (var k = 0u; k < m; k++) {
            let prev = hull_xy(k + m - 1u, m);
            let p = hull_xy(k, m);
            let next = hull_xy(k + 1u, m);
            wk[wb + W_PRUNE_LOSS + k] = abs(cross2(p - prev, next - p));
        }
        var any_gone = false;
        for (var k = 0u; k < m; k++) {
            let prev = hull_xy(k + m - 1u, m);
            let p = hull_xy(k, m);
            let next = hull_xy(k + 1u, m);
            let inward = p - prev;
            let outward = next - p;
            let loss = wk[wb + W_PRUNE_LOSS + k];
            let between = dot(inward, outward) > real(0.0);
            let collinear = loss <= rounding * (length(inward) + length(outward));
            var least = true;
            for (var s = 0u; s < 2u; s++) {
                let j = select((k + 1u) % m, (k + m - 1u) % m, s == 0u);
                let lj = wk[wb + W_PRUNE_LOSS + j];
                least = least && (loss < lj || (loss <= lj && lex_less(p, hull_xy(j, m))));
            }
            let gone = between && least && (collinear || loss <= area_tol);
            iw[ib + I_PRUNE_GONE + k] = select(0u, 1u, gone);
            any_gone = any_gone || gone;
        }
        if (!any_gone) { break; }
        var w = 0u;
        for (var k = 0u; k < m; k++) {
            if (iw[ib + I_PRUNE_GONE + k] == 0u) {
                iw[ib + I_PRUNE_HULL + w] = hull_at(k);
                w++;
            }
        }
        m = w;
    }
    return m;
}

// Prunes the patch of head h among the contacts first..end (one link pair), if it is coplanar.
fn prune_patch(first: u32, end: u32, h: u32, tol: real) {
    let reference = con_normal(h);
    var mean = vec3<real>(0.0, 0.0, 0.0);
    var centroid = vec3<real>(0.0, 0.0, 0.0);
    var m = 0u;
    for (var c = first; c < end; c++) {
        if (iw[ib + I_PRUNE_PATCH + c] == h) {
            let nc = con_normal(c);
            mean += select(nc, -nc, dot(reference, nc) < real(0.0));
            centroid += con_pos(c);
            iw[ib + I_PRUNE_MEMBER + m] = c;
            m++;
        }
    }
    centroid /= real(m);
    let norm = vnorm(mean);
    if (!(norm > GENESIS_EPS)) { return; }
    let normal = mean / norm;
    var max_depth = real(0.0);
    var max_r2 = real(0.0);
    for (var k = 0u; k < m; k++) {
        let d = con_pos(iw[ib + I_PRUNE_MEMBER + k]) - centroid;
        let depth = abs(dot(d, normal));
        max_depth = max(max_depth, depth);
        max_r2 = max(max_r2, dot(d, d) - depth * depth);
    }
    if (max_depth > tol * sqrt(max_r2)) { return; }
    let basis = plane_basis(normal);
    for (var k = 0u; k < m; k++) {
        let d = con_pos(iw[ib + I_PRUNE_MEMBER + k]) - centroid;
        wk[wb + W_PRUNE_XY + 2u * k] = dot(d, basis[0]);
        wk[wb + W_PRUNE_XY + 2u * k + 1u] = dot(d, basis[1]);
    }
    let hull = support_polygon(m, tol, sqrt(GENESIS_EPS * max_r2));
    for (var k = 0u; k < m; k++) { iw[ib + I_PRUNE_KEEP + iw[ib + I_PRUNE_MEMBER + k]] = 0u; }
    var deepest = real(0.0);
    for (var k = 0u; k < hull; k++) {
        let c = iw[ib + I_PRUNE_MEMBER + hull_at(k)];
        iw[ib + I_PRUNE_KEEP + c] = 1u;
        deepest = max(deepest, con_pen(c));
    }
    for (var k = 0u; k < m; k++) {
        let c = iw[ib + I_PRUNE_MEMBER + k];
        if (con_pen(c) > DEEP_PENETRATION_RATIO * deepest) { iw[ib + I_PRUNE_KEEP + c] = 1u; }
    }
}

// Prunes this environment's contacts with PRUNE_TOLERANCE and closes the gaps (the kept contacts in their order). A
// link pair's contacts are contiguous: the pairs are ordered by link pair (sim_layout.rs).
fn prune_contacts() {
    let n = sts[ob + O_NCON];
    let tol = PRUNE_TOLERANCE;
    if (!(tol > real(0.0)) || n < 3u) { return; }
    let cos_tol = real(1.0) - real(0.5) * tol * tol;
    for (var c = 0u; c < n; c++) { iw[ib + I_PRUNE_KEEP + c] = 1u; }
    var first = 0u;
    while (first < n) {
        let lp = link_pair(first);
        var end = first + 1u;
        while (end < n && all(link_pair(end) == lp)) { end++; }
        if (end - first >= 3u) {
            // Patches: each contact joins the first patch whose head's normal agrees with its own, or heads a new one.
            for (var c = first; c < end; c++) {
                var head = c;
                for (var j = first; j < c; j++) {
                    if (iw[ib + I_PRUNE_PATCH + j] == j && abs(dot(con_normal(j), con_normal(c))) >= cos_tol) {
                        head = j;
                        break;
                    }
                }
                iw[ib + I_PRUNE_PATCH + c] = head;
            }
            for (var h = first; h < end; h++) {
                if (iw[ib + I_PRUNE_PATCH + h] != h) { continue; }
                var members = 0u;
                for (var c = h; c < end; c++) { members += select(0u, 1u, iw[ib + I_PRUNE_PATCH + c] == h); }
                if (members >= 3u) { prune_patch(first, end, h, tol); }
            }
        }
        first = end;
    }
    if (first != n) { sts[ob + O_FLAGS] |= 8u; }
    var w = 0u;
    for (var c = 0u; c < n; c++) {
        if (iw[ib + I_PRUNE_KEEP + c] != 0u) {
            if (w != c) {
                for (var k = 0u; k < 7u; k++) { wk[wb + W_CON + 7u * w + k] = wk[wb + W_CON + 7u * c + k]; }
                iw[ib + I_CONPAIR + w] = iw[ib + I_CONPAIR + c];
            }
            w++;
        }
    }
    sts[ob + O_NCON] = w;
}
