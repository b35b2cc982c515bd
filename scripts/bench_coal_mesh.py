#!/usr/bin/env python3
"""Mesh–mesh distance and collision: Coal 3.0.3 against signorini on Coal's own records, side by side.

    python3 scripts/bench_coal_mesh.py [--repeat R] [--binary PATH]

Coal's side runs `coal.distance` and `coal.collide` through its Python bindings on `BVHModelOBBRSS` meshes (the
records' own construction, `../shared/testdata/coal/README.md`), best of R rounds over the 60 records of
`mesh_mesh.json`, minus the bindings' call overhead (measured on a sphere pair in the same loop and reported).
signorini's side is `signorini query mesh_mesh.json --bench` (the release binary, same records, same machine).
Prints ns per record and the ratio Coal / signorini (> 1: signorini faster).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

try:
    import coal
except ImportError:
    sys.exit("bench_coal_mesh: `pip install coal` first (Coal 3.0.3)")

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DATA = os.path.join(ROOT, "..", "shared", "testdata", "coal", "mesh_mesh.json")


def transform(tf):
    w, x, y, z = tf["q_wxyz"]
    return coal.Transform3s(coal.Quaternion(w, x, y, z).matrix(), np.array(tf["t"]))


def mesh_model(mesh):
    model = coal.BVHModelOBBRSS()
    model.beginModel(len(mesh["triangles"]), len(mesh["vertices"]))
    model.addVertices(np.array(mesh["vertices"], dtype=float))
    model.addTriangles(np.array(mesh["triangles"], dtype=np.int64))
    model.endModel()
    return model


def best_ns(fn, pairs, repeat):
    """Best over `repeat` rounds of the mean time per pair (ns)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        for p in pairs:
            fn(*p)
        best = min(best, (time.perf_counter_ns() - t0) / len(pairs))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "signorini"))
    args = ap.parse_args()
    data = json.load(open(DATA))
    models = {k: mesh_model(m) for k, m in data["meshes"].items()}
    pairs = [
        (models[str(r["shape1"]["mesh_id"])], transform(r["tf1"]), models[str(r["shape2"]["mesh_id"])], transform(r["tf2"]))
        for r in data["records"]
    ]

    dreq, creq = coal.DistanceRequest(), coal.CollisionRequest()

    def distance(g1, t1, g2, t2):
        return coal.distance(g1, t1, g2, t2, dreq, coal.DistanceResult())

    def collide(g1, t1, g2, t2):
        return coal.collide(g1, t1, g2, t2, creq, coal.CollisionResult())

    # The bindings' own cost per call: the same loop on two far-apart spheres.
    s = coal.Sphere(0.1)
    far = [(s, coal.Transform3s(), s, coal.Transform3s(np.eye(3), np.array([10.0, 0.0, 0.0])))] * len(pairs)
    overhead_d = best_ns(distance, far, args.repeat)
    overhead_c = best_ns(collide, far, args.repeat)
    coal_d = best_ns(distance, pairs, args.repeat) - overhead_d
    coal_c = best_ns(collide, pairs, args.repeat) - overhead_c

    if not os.path.exists(args.binary):
        sys.exit(f"bench_coal_mesh: build {args.binary} first (cargo build --release -p signorini-cli)")
    out = subprocess.run([args.binary, "query", DATA, "--bench"], capture_output=True, text=True, check=True).stdout
    ours = json.loads(out.strip().splitlines()[-1])
    print(f"Coal {coal.__version__} (Python bindings, call overhead {overhead_d:.0f} / {overhead_c:.0f} ns subtracted) "
          f"vs signorini on {len(pairs)} mesh_mesh records (ns per record)")
    print("| query | Coal | signorini | ratio Coal / signorini |")
    print("|---|---|---|---|")
    print(f"| distance | {coal_d:,.0f} | {ours['distance_ns']:,.0f} | {coal_d / ours['distance_ns']:.2f} |")
    print(f"| collide | {coal_c:,.0f} | {ours['collide_ns']:,.0f} | {coal_c / ours['collide_ns']:.2f} |")


if __name__ == "__main__":
    main()
