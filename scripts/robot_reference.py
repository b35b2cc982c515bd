#!/usr/bin/env python3
"""Robot self-collision references with Pinocchio + Coal (the library MoveIt/HPP use), in the layout of
`../shared/robots/iiwa_queries.json`.

Given a URDF (collision meshes), an optional SRDF (the allowed-collision matrix) and joints to lock, this writes one
JSON file with, per configuration `q` (uniform within the URDF joint limits, or taken from an existing file with
`--qs-from`):

* `geom_poses`: world pose of every collision geometry, `[tx, ty, tz, qw, qx, qy, qz]`;
* `mesh`: per enabled pair, Coal on the BVH triangle meshes (`collide`, then `distance` when they do not
  intersect: unsigned, 0 and null witnesses/normal/gradient when they intersect);
* `hull`: the same on the convex hulls of the meshes' (welded) vertices, signed (negative penetration depth, from
  GJK/EPA), with the witness points, normal and gradient also for intersecting pairs;
* `grad`: d distance / d q from the witness points and the joint Jacobians, `grad_fd` the central finite difference
  (step `eps_fd`) that validates it, `grad_fd_maxerr` their largest difference;
* `min_distance`, `any_collision` over the enabled pairs.

Conventions (those of `../shared/robots/README.md`): geometry `<link>_<k>` (k = index of the `<collision>` element
in its link, Pinocchio's naming), geometries in URDF link order, pairs = the geometry pairs on different links that
the SRDF does not disable, ordered by geometry index. Mesh files are read here (`read_mesh`: OBJ and STL, identical
vertices welded, collapsed faces dropped), not by Coal's assimp loader: Coal 3.0.3's loader does not offset the
vertex indices of the second and later sub-meshes assimp makes of a multi-material OBJ, so each of them indexes the
first sub-mesh's vertices (the Panda's `link6.obj`, 17 materials: 182 of its 1220 distinct triangles survive).
`--mesh-reader coal` keeps Coal's loader for comparison. Locked joints are removed with `buildReducedModel` at their
value and are not in `joint_names` / `q`.

With `--acm-samples N --acm-out FILE.srdf` it first generates the allowed-collision matrix (MoveIt-style
`<disable_collisions link1 link2 reason=.../>`) from N uniform configurations, Coal BVH collisions: `Adjacent` when
the links are joined by one joint (paths through links without collision geometry count as one joint), `Always` when
the pair collides in more than 99% of the samples, `Never` when it never does. That SRDF is then the one used for
the pairs (unless `--srdf` is also given).

Usage:
  python3 scripts/robot_reference.py URDF --srdf SRDF --out OUT.json [--robot NAME] [--lock JOINT=VALUE ...]
                                      [--configs N] [--seed S] [--qs-from FILE] [--eps-fd H]
                                      [--acm-samples N --acm-out FILE.srdf] [--compare FILE]

`--compare FILE` prints the largest differences between what was computed and an existing file (same pairs and
configurations), e.g. to check a regeneration of `iiwa_queries.json`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

try:
    import coal
    import pinocchio as pin
except ImportError as e:  # pragma: no cover - setup message
    sys.exit(f"robot_reference.py needs Pinocchio and Coal: pip install pin coal ({e})")

# GJK/EPA tolerances of the hull `distance` field (tight, so that the finite differences validate the gradient);
# `distance_coal_default_tol` is the same query with Coal's default request.
HULL_GJK_TOL = 1e-10
HULL_EPA_TOL = 1e-10


# ---------------------------------------------------------------------------------------------------------------
# Model


def urdf_collision_links(urdf: Path):
    """(links in URDF order, {link: number of <collision> elements}, joints [(name, type, parent, child)])."""
    root = ET.parse(urdf).getroot()
    links = [l.get("name") for l in root.findall("link")]
    ncoll = {l.get("name"): len(l.findall("collision")) for l in root.findall("link")}
    joints = [(j.get("name"), j.get("type"), j.find("parent").get("link"), j.find("child").get("link"))
              for j in root.findall("joint")]
    return root.get("name"), links, ncoll, joints


def parse_srdf(path: Path | None) -> dict:
    """{frozenset(link1, link2): reason} of the SRDF's <disable_collisions>."""
    if path is None:
        return {}
    root = ET.parse(path).getroot()
    return {frozenset((d.get("link1"), d.get("link2"))): d.get("reason", "")
            for d in root.findall("disable_collisions")}


def parse_lock(items: list[str]) -> dict:
    out = {}
    for it in items or []:
        name, _, value = it.partition("=")
        if not value:
            sys.exit(f"--lock expects JOINT=VALUE, got {it!r}")
        out[name] = float(value)
    return out


def read_mesh(path: Path, scale) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (welded: bit-identical positions merged) and triangles of an OBJ or binary/ASCII STL file, scaled;
    a triangle whose corners weld together is dropped (what `signorini-mesh-io` does)."""
    raw: list[tuple[float, float, float]] = []
    faces: list[list[int]] = []
    data = path.read_bytes()
    if path.suffix.lower() == ".stl":
        n = int.from_bytes(data[80:84], "little") if len(data) >= 84 else -1
        if len(data) == 84 + 50 * n:
            rec = np.frombuffer(data[84:], dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
            for tri in rec["v"].astype(np.float64):
                faces.append([len(raw), len(raw) + 1, len(raw) + 2])
                raw.extend(map(tuple, tri))
        else:
            pts = [tuple(float(x) for x in l.split()[1:4]) for l in data.decode().splitlines()
                   if l.strip().startswith("vertex")]
            faces = [[3 * i, 3 * i + 1, 3 * i + 2] for i in range(len(pts) // 3)]
            raw = pts
    else:
        for line in data.decode().splitlines():
            t = line.split("#")[0].split()
            if not t:
                continue
            if t[0] == "v":
                raw.append(tuple(float(x) for x in t[1:4]))
            elif t[0] == "f":
                idx = [int(x.split("/")[0]) for x in t[1:]]
                idx = [i - 1 if i > 0 else len(raw) + i for i in idx]
                faces.extend([idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1))
    weld: dict = {}
    remap = [weld.setdefault(v, len(weld)) for v in raw]
    verts = np.array(list(weld.keys()), dtype=np.float64) * np.asarray(scale, dtype=np.float64)
    tris = [[remap[i] for i in f] for f in faces]
    tris = np.array([t for t in tris if len(set(t)) == 3], dtype=np.int64)
    return verts, tris


def bvh(verts: np.ndarray, tris: np.ndarray):
    m = coal.BVHModelOBBRSS()
    m.beginModel(len(tris), len(verts))
    m.addVertices(verts)
    m.addTriangles(tris)
    m.endModel()
    return m


class Robot:
    """The reduced Pinocchio model, its collision geometries (BVH meshes and their convex hulls) in URDF order."""

    def __init__(self, urdf: Path, locked: dict, package_dirs: list[str] | None = None, mesh_reader: str = "file"):
        self.urdf = Path(urdf)
        self.urdf_name, self.links, self.ncoll, self.urdf_joints = urdf_collision_links(self.urdf)
        dirs = [str(self.urdf.parent)] + list(package_dirs or [])
        full = pin.buildModelFromUrdf(str(self.urdf))
        gfull = pin.buildGeomFromUrdf(full, str(self.urdf), pin.COLLISION, package_dirs=dirs)
        for name in locked:
            if not full.existJointName(name):
                sys.exit(f"locked joint {name!r} is not in {self.urdf}")
        q_ref = pin.neutral(full)
        lock_ids = []
        for name, value in locked.items():
            jid = full.getJointId(name)
            if full.joints[jid].nq != 1:
                sys.exit(f"locked joint {name!r} has nq = {full.joints[jid].nq}; only 1-dof joints are supported")
            q_ref[full.joints[jid].idx_q] = value
            lock_ids.append(jid)
        if lock_ids:
            self.model, gm = pin.buildReducedModel(full, gfull, sorted(lock_ids), q_ref)
        else:
            self.model, gm = full, gfull
        self.locked = dict(locked)
        self.data = self.model.createData()
        # URDF order: links in document order, then the index of the <collision> element.
        order = [f"{l}_{k}" for l in self.links for k in range(self.ncoll[l])]
        by_name = {o.name: o for o in gm.geometryObjects}
        missing = [n for n in order if n not in by_name]
        if missing or len(by_name) != len(order):
            sys.exit(f"geometry names do not follow <link>_<k>: missing {missing}, got {sorted(by_name)}")
        self.geom_names = order
        self.geom_link = {n: n.rsplit("_", 1)[0] for n in order}
        self.mesh_model = pin.GeometryModel()
        self.hull_model = pin.GeometryModel()
        self.welded = []  # welded vertices per geometry (numpy, local frame of the mesh)
        for n in order:
            o = by_name[n]
            g = o.geometry
            if not isinstance(g, coal.BVHModelBase):
                sys.exit(f"{n}: only mesh collision geometry is supported, got {type(g).__name__}")
            if mesh_reader == "file":
                verts, tris = read_mesh(Path(o.meshPath), o.meshScale)
                g = bvh(verts, tris)
            verts = np.array(g.vertices())
            self.welded.append(verts)
            mo = pin.GeometryObject(n, o.parentJoint, o.parentFrame, o.placement, g)
            pts = coal.StdVec_Vec3s()
            pts.extend(list(verts))
            hull = coal.ConvexBase.convexHull(pts, True, None)
            ho = pin.GeometryObject(n, o.parentJoint, o.parentFrame, o.placement, hull)
            self.mesh_model.addGeometryObject(mo)
            self.hull_model.addGeometryObject(ho)
        self.joint_names = [self.model.names[j] for j in range(1, self.model.njoints)]
        for j in range(1, self.model.njoints):
            if self.model.joints[j].nq != 1:
                sys.exit(f"joint {self.model.names[j]!r}: only 1-dof joints are supported")
        lo, hi = self.model.lowerPositionLimit.copy(), self.model.upperPositionLimit.copy()
        unbounded = ~(np.isfinite(lo) & np.isfinite(hi)) | (hi <= lo)
        lo[unbounded], hi[unbounded] = -math.pi, math.pi
        self.lower, self.upper = lo, hi
        self.pairs: list[tuple[int, int]] = []

    def all_link_pairs(self) -> list[tuple[int, int]]:
        n = len(self.geom_names)
        return [(i, j) for i in range(n) for j in range(i + 1, n)
                if self.geom_link[self.geom_names[i]] != self.geom_link[self.geom_names[j]]]

    def set_pairs(self, acm: dict):
        self.pairs = [(i, j) for (i, j) in self.all_link_pairs()
                      if frozenset((self.geom_link[self.geom_names[i]],
                                    self.geom_link[self.geom_names[j]])) not in acm]
        for gm in (self.mesh_model, self.hull_model):
            gm.removeAllCollisionPairs()
            for i, j in self.pairs:
                gm.addCollisionPair(pin.CollisionPair(i, j))

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        return rng.uniform(self.lower, self.upper)

    # -- adjacency: joined by one joint, links without collision geometry collapsed ------------------------------
    def adjacent_links(self) -> set:
        has_geom = {l for l in self.links if self.ncoll[l] > 0}
        nbr: dict = {l: set() for l in self.links}
        for _, _, p, c in self.urdf_joints:
            nbr[p].add(c)
            nbr[c].add(p)
        adj = set()
        for a in has_geom:
            # walk from a through geometry-less links; every geometry link reached is one joint away
            seen, stack = {a}, [a]
            while stack:
                x = stack.pop()
                for y in nbr[x]:
                    if y in seen:
                        continue
                    seen.add(y)
                    if y in has_geom:
                        adj.add(frozenset((a, y)))
                    else:
                        stack.append(y)
        return adj


# ---------------------------------------------------------------------------------------------------------------
# ACM


def generate_acm(robot: Robot, samples: int, seed: int, out: Path, note: str) -> dict:
    """Sample `samples` configurations, classify every link pair (Adjacent / Always / Never); write the SRDF."""
    gm = robot.mesh_model
    link_pairs: dict = {}
    for i, j in robot.all_link_pairs():
        key = (robot.geom_link[robot.geom_names[i]], robot.geom_link[robot.geom_names[j]])
        link_pairs.setdefault(key, []).append((i, j))
    gm.removeAllCollisionPairs()
    flat = [p for ps in link_pairs.values() for p in ps]
    starts = np.cumsum([0] + [len(ps) for ps in link_pairs.values()])[:-1]
    for i, j in flat:
        gm.addCollisionPair(pin.CollisionPair(i, j))
    gd = pin.GeometryData(gm)
    hits = np.zeros(len(link_pairs), dtype=np.int64)  # samples in which the link pair collides
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    for s in range(samples):
        q = robot.sample(rng)
        pin.computeCollisions(robot.model, robot.data, gm, gd, q, False)
        c = np.fromiter((r.isCollision() for r in gd.collisionResults), dtype=bool, count=len(flat))
        hits += np.maximum.reduceat(c, starts)  # a link pair collides when any of its geometry pairs does
        if (s + 1) % 5000 == 0:
            print(f"  acm: {s + 1}/{samples} samples, {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    adjacent = robot.adjacent_links()
    acm, stats = {}, {}
    for key, h in zip(link_pairs, hits):
        rate = h / samples
        if frozenset(key) in adjacent:
            reason = "Adjacent"
        elif rate > 0.99:
            reason = "Always"
        elif h == 0:
            reason = "Never"
        else:
            reason = None
        stats[key] = (reason, rate)
        if reason:
            acm[frozenset(key)] = reason
    locked = json.dumps(robot.locked)
    lines = ['<?xml version="1.0" ?>',
             f"<!-- Allowed-collision matrix for {note} (locked: {locked}), generated by scripts/robot_reference.py: "
             f"{samples} uniform samples within joint limits (seed {seed}), Pinocchio {pin.__version__} "
             f"computeCollisions on Coal {coal.__version__} BVH collision meshes. Always: rate > 0.99; Never: 0 "
             f"collisions; Adjacent: linked by one joint (through links without collision geometry). -->",
             f'<robot name="{robot.urdf_name}">']
    for key, ps in link_pairs.items():
        reason = stats[key][0]
        if reason:
            lines.append(f'  <disable_collisions link1="{key[0]}" link2="{key[1]}" reason="{reason}"/>')
    lines.append("</robot>")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    enabled = [(k, r) for k, (reason, r) in stats.items() if reason is None]
    print(f"acm: {samples} samples in {time.perf_counter() - t0:.1f} s; {len(acm)} disabled "
          f"({sum(1 for v in acm.values() if v == 'Adjacent')} Adjacent, "
          f"{sum(1 for v in acm.values() if v == 'Never')} Never, "
          f"{sum(1 for v in acm.values() if v == 'Always')} Always), {len(enabled)} enabled: "
          + ", ".join(f"{a}-{b} ({r:.2%})" for (a, b), r in enabled), file=sys.stderr)
    return acm


# ---------------------------------------------------------------------------------------------------------------
# Queries


def pose7(M) -> list:
    qt = pin.Quaternion(M.rotation)  # coeffs() is (x, y, z, w)
    c = qt.coeffs()
    if c[3] < 0:  # the sign with qw >= 0
        c = -c
    return [float(M.translation[0]), float(M.translation[1]), float(M.translation[2]),
            float(c[3]), float(c[0]), float(c[1]), float(c[2])]


class Evaluator:
    """Pair queries through Pinocchio's GeometryData (`computeCollision` / `computeDistance` on one pair), whose
    Coal requests keep their GJK warm start from one call to the next, as in the reference generation: the hull
    answers and their finite differences each have their own GeometryData."""

    def __init__(self, robot: Robot, fd_mode: str = "fresh"):
        self.r = robot
        self.fd_mode = fd_mode
        self.models = {"mesh": robot.mesh_model, "hull": robot.hull_model, "hull_default": robot.hull_model}
        self.gd = self.new_gds()
        self.fd_gd = self.gd if fd_mode == "shared" else self.new_gds()

    def new_gds(self) -> dict:
        gds = {k: pin.GeometryData(gm) for k, gm in self.models.items()}
        for req in gds["hull"].distanceRequests:
            req.enable_signed_distance = True
            req.gjk_tolerance = HULL_GJK_TOL
            req.epa_tolerance = HULL_EPA_TOL
        return gds

    def placements(self, q, gds=None):
        m, d = self.r.model, self.r.data
        pin.forwardKinematics(m, d, q)
        for k, gd in (gds or self.gd).items():
            pin.updateGeometryPlacements(m, d, self.models[k], gd)
        return [self.gd["mesh"].oMg[g] for g in range(len(self.r.geom_names))] if gds is None else None

    def pair(self, which: str, k: int, gds=None):
        """(collision, distance, p1, p2, normal) of pair k; witness points None for intersecting meshes."""
        gm, gd = self.models[which], (gds or self.gd)[which]
        coll = bool(pin.computeCollision(gm, gd, k))
        if which == "mesh" and coll:
            return True, 0.0, None, None, None
        dres = pin.computeDistance(gm, gd, k)
        p1 = np.array(dres.getNearestPoint1())
        p2 = np.array(dres.getNearestPoint2())
        dist = float(dres.min_distance)
        if which == "mesh":
            # Coal's BVH-BVH distance leaves DistanceResult.normal unset: the normal of separated meshes is
            # (p2 - p1) / distance
            n = (p2 - p1) / dist
        else:
            n = np.array(dres.normal)
        return coll, dist, p1, p2, n

    def distance_fd(self, which: str, q, k: int):
        if self.fd_mode == "fresh":
            self.fd_gd = self.new_gds()
        self.placements(q, self.fd_gd)
        return self.pair(which, k, self.fd_gd)[1]

    def point_jacobian(self, g: int, p: np.ndarray) -> np.ndarray:
        """3 x nv Jacobian of the world point p rigidly attached to geometry g (joints already computed)."""
        m, d = self.r.model, self.r.data
        jid = self.r.mesh_model.geometryObjects[g].parentJoint
        if jid == 0:
            return np.zeros((3, m.nv))
        J = pin.getJointJacobian(m, d, jid, pin.LOCAL_WORLD_ALIGNED)
        r = p - d.oMi[jid].translation
        return J[:3] + np.cross(J[3:].T, r).T  # v(p) = v(o) + w x (p - o)

    def config(self, index: int, q: np.ndarray, eps: float) -> dict:
        m, d = self.r.model, self.r.data
        oMg = self.placements(q)
        out = {"index": index, "q": [float(x) for x in q], "geom_poses": [pose7(M) for M in oMg]}
        answers = {w: [self.pair(w, k) for k in range(len(self.r.pairs))] for w in ("mesh", "hull")}
        default_tol = [self.pair("hull_default", k)[1] for k in range(len(self.r.pairs))]
        pin.computeJointJacobians(m, d, q)
        jac = {}
        for g in range(len(self.r.geom_names)):
            jid = self.r.mesh_model.geometryObjects[g].parentJoint
            jac[g] = (jid, pin.getJointJacobian(m, d, jid, pin.LOCAL_WORLD_ALIGNED).copy(),
                      d.oMi[jid].translation.copy())

        def point_jacobian(g, p):
            """3 x nv Jacobian of the world point p rigidly attached to geometry g: v(p) = v(o) + w x (p - o)."""
            jid, J, o = jac[g]
            if jid == 0:
                return np.zeros((3, m.nv))
            return J[:3] + np.cross(J[3:].T, p - o).T

        for which in ("mesh", "hull"):
            res = {k: [] for k in ("collision", "distance", "p1", "p2", "normal", "grad", "grad_fd_maxerr",
                                   "grad_fd")}
            for k, (i, j) in enumerate(self.r.pairs):
                coll, dist, p1, p2, n = answers[which][k]
                res["collision"].append(coll)
                res["distance"].append(dist)
                if p1 is None:
                    for f in ("p1", "p2", "normal", "grad", "grad_fd_maxerr", "grad_fd"):
                        res[f].append(None)
                    continue
                grad = n @ (point_jacobian(j, p2) - point_jacobian(i, p1))
                fd = np.zeros(m.nv)
                for c in range(m.nv):
                    qp, qm = q.copy(), q.copy()
                    qp[c] += eps
                    qm[c] -= eps
                    fd[c] = (self.distance_fd(which, qp, k) - self.distance_fd(which, qm, k)) / (2 * eps)
                res["p1"].append([float(x) for x in p1])
                res["p2"].append([float(x) for x in p2])
                res["normal"].append([float(x) for x in n])
                res["grad"].append([float(x) for x in grad])
                res["grad_fd_maxerr"].append(float(np.max(np.abs(grad - fd))) if m.nv else 0.0)
                res["grad_fd"].append([float(x) for x in fd])
            if self.r.pairs:
                k = int(np.argmin(res["distance"]))
                i, j = self.r.pairs[k]
                res["min_distance"] = {"distance": res["distance"][k], "pair_index": k, "pair": [i, j],
                                       "geoms": [self.r.geom_names[i], self.r.geom_names[j]]}
            else:
                res["min_distance"] = None
            res["any_collision"] = any(res["collision"])
            if which == "hull":
                res["distance_coal_default_tol"] = default_tol
            out[which] = res
        return out


# ---------------------------------------------------------------------------------------------------------------
# Comparison with an existing file


def compare(ours: dict, ref: dict) -> bool:
    ok = True
    for key in ("pairs", "pair_names", "geometry_names", "joint_names", "locked_joints"):
        if ours[key] != ref[key]:
            print(f"  {key} differ: ours {ours[key]} ref {ref[key]}")
            ok = False
    if not ok:
        return False
    worst: dict = {}
    flags = 0

    def upd(name, a, b):
        if a is None or b is None:
            if (a is None) != (b is None):
                worst[name + " (null mismatch)"] = worst.get(name + " (null mismatch)", 0) + 1
            return
        e = float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))))
        if e >= worst.get(name, (-1.0,))[0]:
            worst[name] = (e, where)

    for co, cr in zip(ours["configs"], ref["configs"]):
        where = f"config {cr['index']}"
        upd("q", co["q"], cr["q"])
        upd("geom_poses", co["geom_poses"], cr["geom_poses"])
        for which in ("mesh", "hull"):
            a, b = co[which], cr[which]
            for f in ("collision",):
                if a[f] != b[f]:
                    flags += 1
                    print(f"  {where} {which} collision flags differ: ours {a[f]} ref {b[f]}")
            if a["any_collision"] != b["any_collision"]:
                flags += 1
            if (a["min_distance"] or {}).get("pair_index") != (b["min_distance"] or {}).get("pair_index"):
                print(f"  {where} {which} min_distance pair differs")
            for f in ("distance", "distance_coal_default_tol"):
                if f in b:
                    upd(f"{which}.{f}", a.get(f), b[f])
            for f in ("p1", "p2", "normal", "grad", "grad_fd"):
                for x, y in zip(a[f], b[f]):
                    upd(f"{which}.{f}", x, y)
    for name, v in worst.items():
        if isinstance(v, tuple):
            print(f"  max |ours - ref| {name:31s} {v[0]:.3e}" + (f"  ({v[1]})" if v[0] > 0 else ""))
        else:
            print(f"  {name}: {v} entries")
            ok = False
    print(f"  collision-flag mismatches: {flags}")
    return ok and flags == 0


# ---------------------------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("urdf", type=Path)
    ap.add_argument("--srdf", type=Path, help="allowed-collision matrix (MoveIt <disable_collisions>)")
    ap.add_argument("--out", type=Path, help="output JSON (compact)")
    ap.add_argument("--robot", help="`robot` field (default: the URDF's robot name)")
    ap.add_argument("--lock", nargs="*", default=[], metavar="JOINT=VALUE", help="joints held at a value")
    ap.add_argument("--package-dir", action="append", default=[],
                    help="extra folder for package:// mesh paths (the URDF's folder is always searched)")
    ap.add_argument("--configs", type=int, default=30, help="number of uniform configurations")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--qs-from", type=Path, help="take the configurations (their `q`) from this queries file")
    ap.add_argument("--eps-fd", type=float, default=1e-6, help="central finite-difference step")
    ap.add_argument("--acm-samples", type=int, help="generate the ACM from this many uniform samples")
    ap.add_argument("--acm-seed", type=int, help="seed of the ACM samples (default: --seed + 1)")
    ap.add_argument("--acm-out", type=Path, help="where to write the generated SRDF")
    ap.add_argument("--note", help="`note` field")
    ap.add_argument("--mesh-reader", choices=("file", "coal"), default="file",
                    help="read mesh files here (default) or with Coal's assimp loader (mis-indexes multi-material OBJ)")
    ap.add_argument("--fd-cache", choices=("fresh", "own", "shared"), default="fresh",
                    help="GJK warm start of the finite-difference queries: none (a new GeometryData per query), "
                         "their own GeometryData, or the answers' one")
    ap.add_argument("--compare", type=Path, help="print the largest differences against this queries file")
    args = ap.parse_args()

    print(f"Pinocchio {pin.__version__}, Coal {coal.__version__}", file=sys.stderr)
    locked = parse_lock(args.lock)
    robot = Robot(args.urdf, locked, args.package_dir, args.mesh_reader)
    acm = parse_srdf(args.srdf)
    if args.acm_samples:
        if not args.acm_out:
            sys.exit("--acm-samples needs --acm-out FILE.srdf")
        gen = generate_acm(robot, args.acm_samples, args.acm_seed if args.acm_seed is not None else args.seed + 1,
                           args.acm_out, args.urdf.name)
        if not args.srdf:
            acm = gen
    robot.set_pairs(acm)
    print(f"{len(robot.geom_names)} geometries, {len(robot.pairs)} enabled pairs, joints {robot.joint_names}",
          file=sys.stderr)
    if not args.out and not args.compare:
        return 0

    if args.qs_from:
        src = json.loads(args.qs_from.read_text())
        if src["joint_names"] != robot.joint_names:
            sys.exit(f"--qs-from joint_names {src['joint_names']} differ from the model's {robot.joint_names}")
        qs = [np.array(c["q"], dtype=float) for c in src["configs"]]
    else:
        rng = np.random.default_rng(args.seed)
        qs = [robot.sample(rng) for _ in range(args.configs)]

    ev = Evaluator(robot, args.fd_cache)
    t0 = time.perf_counter()
    configs = []
    for k, q in enumerate(qs):
        configs.append(ev.config(k, q, args.eps_fd))
    print(f"{len(configs)} configurations in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    source = f"--qs-from {args.qs_from.name}" if args.qs_from else f"uniform within the joint limits, seed {args.seed}"
    acm_src = args.srdf.name if args.srdf else (args.acm_out.name if args.acm_samples else "no SRDF")
    note = args.note or (f"{len(configs)} configurations ({source}); pairs enabled by {acm_src}; Pinocchio "
                         f"{pin.__version__} on Coal {coal.__version__}, scripts/robot_reference.py")
    doc = {
        "robot": args.robot or robot.urdf_name,
        "pairs": [[i, j] for i, j in robot.pairs],
        "pair_names": [[robot.geom_names[i], robot.geom_names[j]] for i, j in robot.pairs],
        "geometry_names": robot.geom_names,
        "joint_names": robot.joint_names,
        "locked_joints": robot.locked,
        "eps_fd": args.eps_fd,
        "configs": configs,
        "note": note,
    }
    ncoll = sum(c["mesh"]["any_collision"] for c in configs)
    nhull = sum(c["hull"]["any_collision"] for c in configs)
    maxerr = max([e for c in configs for w in ("mesh", "hull") for e in c[w]["grad_fd_maxerr"] if e is not None]
                 or [0.0])
    print(f"any_collision: mesh {ncoll}/{len(configs)}, hull {nhull}/{len(configs)}; "
          f"largest |grad - grad_fd| {maxerr:.2e}", file=sys.stderr)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, separators=(",", ":")))
        print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)", file=sys.stderr)
    if args.compare:
        print(f"compare with {args.compare}:")
        ok = compare(doc, json.loads(args.compare.read_text()))
        print("  match" if ok else "  MISMATCH")
    return 0


if __name__ == "__main__":
    sys.exit(main())
