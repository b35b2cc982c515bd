"""Reference contacts of MuJoCo's box–mesh and mesh–mesh collision (mjc_Convex: native GJK/EPA with the multiccd
polygon clipping, on by default in MuJoCo 4.0) for the collision tests.

Writes crates/collision/tests/data/convex_pairs_mujoco.json. `meshes` holds, for the five hulls of the convex scene
and a cube, the vertices as MuJoCo stores them (`m.mesh_vert`: float32, in MuJoCo's recentred and principal-axis
geom frame) and `vertices_f64`, the same vertices before MuJoCo rounds them to float32: the float32 reading of the
asset's vertices moved into the geom frame in double (`(v - mesh_pos)` rotated by `mesh_quat⁻¹`). MuJoCo computes its
polygon normals (`m.mesh_polynormal`) from the latter, and they fix the contact frames of the polygon-clipping
contacts, so the tests build their meshes from `vertices_f64` (the script checks that they round to `mesh_vert` and
reproduce `mesh_polynormal`), and `quat`, the mesh's `mesh_quat` (MuJoCo bins the hull's triangles into polygons in
the asset's frame). Each case holds two geoms in MuJoCo's contact order (geom 1, geom 2): `{"type": "mesh",
"mesh": index}` or `{"type": "box", "size": half sizes}`, with the world `pos` and row-major `mat` (d.geom_xpos,
d.geom_xmat), and MuJoCo's contacts (dist, pos, frame[0:3] = normal from geom 1 to geom 2) from mj_forward. No
planes, margin 0. Cases: random hull poses pushed into contact along a random direction, hulls resting face on face
(with small tilts) and edge on face, the same for a cube mesh, a primitive box against hulls and the cube mesh, and a
few separated pairs. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_convex_pairs.py [OUT]
"""
import json
import math
import re
import sys
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT.parent / "shared" / "scenes" / "convex.xml"
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/convex_pairs_mujoco.json"

CUBE = " ".join(f"{x} {y} {z}" for z in (-.1, .1) for y in (-.1, .1) for x in (-.1, .1))
BOX_SIZE = (0.08, 0.05, 0.03)


def quat_mat(q):
    r = np.zeros(9)
    mujoco.mju_quat2Mat(r, np.asarray(q, dtype=float))
    return r.reshape(3, 3)


def mat_quat(r):
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.asarray(r, dtype=float).reshape(9))
    return q


def axis_angle(axis, angle):
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def align(a, b):
    """A rotation taking the unit vector a to the unit vector b."""
    a, b = np.asarray(a, float) / np.linalg.norm(a), np.asarray(b, float) / np.linalg.norm(b)
    c = np.cross(a, b)
    s, d = np.linalg.norm(c), float(a @ b)
    if s < 1e-12:
        if d > 0:
            return np.eye(3)
        perp = np.cross(a, [1, 0, 0] if abs(a[0]) < 0.9 else [0, 1, 0])
        return axis_angle(perp, math.pi)
    return axis_angle(c, math.atan2(s, d))


def random_rotation(rng):
    q = rng.normal(size=4)
    return quat_mat(q / np.linalg.norm(q))


class Models:
    """One compiled model per pair of geom specs: two free bodies, one geom each."""

    def __init__(self, hulls):
        self.assets = "".join(f'<mesh name="mesh{k}" vertex="{v}"/>' for k, v in enumerate(hulls + [CUBE]))
        self.cache = {}

    def get(self, spec1, spec2):
        key = (spec1, spec2)
        if key not in self.cache:
            def geom(spec):
                if spec[0] == "mesh":
                    return f'type="mesh" mesh="mesh{spec[1]}"'
                return f'type="box" size="{" ".join(map(str, BOX_SIZE))}"'
            xml = f"""<mujoco><asset>{self.assets}</asset><worldbody>
<body><freejoint/><geom {geom(spec1)}/></body><body><freejoint/><geom {geom(spec2)}/></body>
</worldbody></mujoco>"""
            self.cache[key] = mujoco.MjModel.from_xml_string(xml)
        return self.cache[key]


def mesh_data(m, mid, asset_vertex):
    """MuJoCo's float32 geom-frame vertices and their double values before rounding (see the module docs)."""
    va, vn = m.mesh_vertadr[mid], m.mesh_vertnum[mid]
    stored = m.mesh_vert[va:va + vn].astype(float)
    asset = np.array(asset_vertex.split(), dtype=np.float32).astype(float).reshape(-1, 3)
    exact = (asset - m.mesh_pos[mid]) @ quat_mat(m.mesh_quat[mid])
    assert len(asset) == vn and np.array_equal(exact.astype(np.float32).astype(float), stored), mid
    pa, pn = m.mesh_polyadr[mid], m.mesh_polynum[mid]
    for p in range(pn):
        adr, num = m.mesh_polyvertadr[pa + p], m.mesh_polyvertnum[pa + p]
        if num == 3:
            a, b, c = exact[m.mesh_polyvert[adr:adr + 3]]
            n = np.cross(b - a, c - a)
            assert np.abs(n / np.linalg.norm(n) - m.mesh_polynormal[pa + p]).max() < 1e-12, (mid, p)
    return stored, exact


def faces_of(m, g):
    """Geom-frame vertices and polygons (vertex lists, unit normals) of geom g."""
    if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX:
        s = m.geom_size[g]
        verts = np.array([[x * s[0], y * s[1], z * s[2]] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)])
        polys = []
        for axis in range(3):
            for sign in (-1, 1):
                n = np.zeros(3)
                n[axis] = sign
                idx = [i for i, v in enumerate(verts) if v[axis] * sign > 0]
                u, w = np.eye(3)[(axis + 1) % 3], np.eye(3)[(axis + 2) % 3]
                # Counter-clockwise seen from outside.
                idx.sort(key=lambda i: sign * math.atan2(verts[i] @ w, verts[i] @ u))
                polys.append((idx, n))
        return verts, polys
    mid = m.geom_dataid[g]
    va, vn = m.mesh_vertadr[mid], m.mesh_vertnum[mid]
    verts = m.mesh_vert[va:va + vn].astype(float)
    pa, pn = m.mesh_polyadr[mid], m.mesh_polynum[mid]
    polys = []
    for p in range(pn):
        adr, num = m.mesh_polyvertadr[pa + p], m.mesh_polyvertnum[pa + p]
        polys.append((list(m.mesh_polyvert[adr:adr + num]), m.mesh_polynormal[pa + p].copy()))
    return verts, polys


def poly_area(verts, idx):
    p = verts[idx]
    return 0.5 * np.linalg.norm(sum(np.cross(p[i] - p[0], p[i + 1] - p[0]) for i in range(1, len(p) - 1)))


def simulate(m, poses):
    """MuJoCo's contacts with geom g at world pose poses[g] = (pos, rot)."""
    d = mujoco.MjData(m)
    for g, (pos, rot) in enumerate(poses):
        rb = rot @ quat_mat(m.geom_quat[g]).T
        d.qpos[7 * g:7 * g + 3] = pos - rb @ m.geom_pos[g]
        d.qpos[7 * g + 3:7 * g + 7] = mat_quat(rb)
    mujoco.mj_forward(m, d)
    return d


def exact_quat(m, d, g):
    """A world quaternion of geom g (w first) from which `mju_quat2Mat` makes MuJoCo's `geom_xmat` bit for bit, so
    that a test poses the geom as MuJoCo did (a quaternion read back from the matrix moves its last bits): the
    product of the body's `xquat` and the geom's `geom_quat` (`mj_kinematics`), or, for a geom MuJoCo poses as its
    body's frame or its inertial frame, `xquat` or `xquat ⊗ body_iquat`; None if none of them does."""
    b = m.geom_bodyid[g]
    candidates = [np.zeros(4), d.xquat[b].copy(), np.zeros(4)]
    mujoco.mju_mulQuat(candidates[0], d.xquat[b], m.geom_quat[g])
    mujoco.mju_mulQuat(candidates[2], d.xquat[b], m.body_iquat[b])
    for q in candidates:
        if np.array_equal(quat_mat(q).reshape(9), d.geom_xmat[g]):
            return q.tolist()
    return None


def record(m, d, describe, kind):
    """One case: the two geoms in MuJoCo's contact order, `describe(g)` (type and size or mesh) with the world pose
    (`pos`, `mat`, and `quat` where `exact_quat` finds one), and MuJoCo's contacts."""
    order = [0, 1]
    if d.ncon and int(d.contact[0].geom[0]) == 1:
        order = [1, 0]
    elif not d.ncon and m.geom_type[0] > m.geom_type[1]:
        order = [1, 0]
    geoms = []
    for g in order:
        geom = describe(g)
        geom["pos"] = d.geom_xpos[g].tolist()
        geom["mat"] = d.geom_xmat[g].tolist()
        if "quat" not in geom:
            quat = exact_quat(m, d, g)
            if quat is not None:
                geom["quat"] = quat
        geoms.append(geom)
    contacts = []
    for c in d.contact[:d.ncon]:
        assert [int(c.geom[0]), int(c.geom[1])] == order
        contacts.append({"dist": float(c.dist), "pos": c.pos.tolist(), "normal": c.frame[:3].tolist()})
    return {"kind": kind, "geoms": geoms, "contacts": contacts}


def resting(m, rng, tilt, edge=False):
    """Geom 1 lies on its face polygon facing up; geom 0 rests on it face down (or edge down), sunk a little."""
    vb, pb = faces_of(m, 1)
    vt, pt = faces_of(m, 0)
    big = sorted(range(len(pb)), key=lambda p: -poly_area(vb, pb[p][0]))[:3]
    fb = big[rng.integers(len(big))]
    rot_b = axis_angle([0, 0, 1], rng.uniform(0, 2 * math.pi)) @ align(pb[fb][1], [0, 0, 1])
    if edge:
        # An edge shared by two polygons, its outward bisector pointing down. The polygons meet at more than 18°:
        # a flatter edge would be a tie between two faces that both qualify for face-on-face clipping.
        while True:
            p = rng.integers(len(pt))
            poly = pt[p][0]
            k = rng.integers(len(poly))
            a, b = poly[k], poly[(k + 1) % len(poly)]
            q = next(i for i, (pv, _) in enumerate(pt) if i != p and a in pv and b in pv)
            if pt[p][1] @ pt[q][1] < 0.95:
                break
        down = pt[p][1] + pt[q][1]
        rot_t = align(down, [0, 0, -1])
        ft = p
    else:
        big = sorted(range(len(pt)), key=lambda p: -poly_area(vt, pt[p][0]))[:3]
        ft = big[rng.integers(len(big))]
        rot_t = align(pt[ft][1], [0, 0, -1])
    rot_t = axis_angle([0, 0, 1], rng.uniform(0, 2 * math.pi)) @ rot_t
    if tilt:
        phi = rng.uniform(0, 2 * math.pi)
        rot_t = axis_angle([math.cos(phi), math.sin(phi), 0], math.radians(tilt)) @ rot_t
    wb = vb @ rot_b.T
    wt = vt @ rot_t.T
    cb = wb[pb[fb][0]].mean(axis=0)
    ct = wt[pt[ft][0]].mean(axis=0)
    span = np.ptp(wb[pb[fb][0]][:, :2], axis=0).min()
    shift = rng.uniform(-0.15, 0.15, 2) * span
    top = wb[:, 2].max()
    pen = rng.uniform(2e-4, 3e-3)
    pos_t = np.array([cb[0] - ct[0] + shift[0], cb[1] - ct[1] + shift[1], top - wt[:, 2].min() - pen])
    return [(pos_t, rot_t), (np.zeros(3), rot_b)]


def touching(m, rot0, rot1, u, depth):
    """Geom 0 (rotation rot0) moved from geom 1 (at the origin, rot1) along u until it touches, then `depth` in
    (negative: apart)."""
    lo, hi = 0.0, 1.0  # touching at lo, apart at hi
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if simulate(m, [(mid * u, rot0), (np.zeros(3), rot1)]).ncon:
            lo = mid
        else:
            hi = mid
    s = lo - depth if depth > 0 else hi - depth
    return [(s * u, rot0), (np.zeros(3), rot1)]


def pushed(m, rng, separated=False):
    """Random orientations; geom 0 moved along a random direction until it touches geom 1, then pushed in."""
    rot0, rot1 = random_rotation(rng), random_rotation(rng)
    u = rng.normal(size=3)
    u /= np.linalg.norm(u)
    depth = -rng.uniform(1e-4, 5e-3) if separated else rng.uniform(1e-4, 4e-3)
    return touching(m, rot0, rot1, u, depth)


def write_cases(out, meshes, cases):
    """Writes `{"mujoco", "meshes", "cases"}` to `out` and prints how many cases have how many contacts."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"mujoco": mujoco.__version__, "meshes": meshes, "cases": cases}, separators=(",", ":")))
    counts = {}
    for c in cases:
        counts[len(c["contacts"])] = counts.get(len(c["contacts"]), 0) + 1
    print(f"wrote {len(cases)} cases, {sum(len(c['contacts']) for c in cases)} contacts "
          f"(cases by contact count: {dict(sorted(counts.items()))}) to {out}")


def main():
    hulls = re.findall(r'vertex="([^"]*)"', SCENE.read_text())
    assert len(hulls) == 5
    models = Models(hulls)
    m0 = models.get(("mesh", 0), ("mesh", 0))
    meshes = []
    for k, vertex in enumerate(hulls + [CUBE]):
        m = models.get(("mesh", k), ("mesh", k))
        stored, exact = mesh_data(m, k, vertex)
        meshes.append({"vertices": stored.tolist(), "vertices_f64": exact.tolist(), "quat": m.mesh_quat[k].tolist()})
    del m0
    rng = np.random.default_rng(4001)
    cube = ("mesh", 5)
    box = ("box",)
    hull = lambda: ("mesh", int(rng.integers(5)))
    plan = (
        [("random hulls", hull, hull, "push")] * 36
        + [("separated hulls", hull, hull, "apart")] * 4
        + [("hulls face on face", hull, hull, t) for t in (0, 0, 0.5, 2) * 6]
        + [("hull edge on hull face", hull, hull, "edge")] * 12
        + [("cubes face on face", lambda: cube, lambda: cube, t) for t in (0, 0, 0.5, 2)] * 2
        + [("cube edge on cube", lambda: cube, lambda: cube, "edge")] * 4
        + [("random cubes", lambda: cube, lambda: cube, "push")] * 4
        + [("cube and hull", lambda: cube, hull, t) for t in ("push", 0, "edge", 1)] * 2
        + [("box and hull", lambda: box, hull, t) for t in ("push", 0, "edge", 1)] * 3
        + [("box and cube", lambda: box, lambda: cube, t) for t in ("push", 0, "edge", 1)] * 2
    )
    cases = []
    for kind, first, second, how in plan:
        specs = [first(), second()]
        if rng.integers(2) and kind.startswith(("cube and", "box and")):
            specs.reverse()
        m = models.get(*specs)
        if how == "push":
            poses = pushed(m, rng)
        elif how == "apart":
            poses = pushed(m, rng, separated=True)
        elif how == "edge":
            poses = resting(m, rng, 0, edge=True)
        else:
            poses = resting(m, rng, how)
        def describe(g, specs=specs, m=m):
            if specs[g][0] == "mesh":
                return {"type": "mesh", "mesh": specs[g][1]}
            return {"type": specs[g][0], "size": m.geom_size[g].tolist()}

        cases.append(record(m, simulate(m, poses), describe, kind))
    write_cases(OUT, meshes, cases)


if __name__ == "__main__":
    main()
