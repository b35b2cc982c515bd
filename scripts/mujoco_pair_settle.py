#!/usr/bin/env python3
"""Settling runs pair by pair, MuJoCo 4.0 against `signorini run --mujoco-compat` (issue 23's table).

    python3 scripts/mujoco_pair_settle.py [--steps N] [--binary PATH]

For each pair (top on bottom) a scene holds a floor, the bottom geom on a free body resting on the floor, and the top
geom on a free body dropped tilted onto it; both engines run N steps (default 1000). Printed per pair: the contacts
at the end and the largest penetration over the run (MuJoCo's `-dist`, ours `max_penetration`), and how far the
top body's final position is from MuJoCo's.

`--reference OUT` also writes MuJoCo's side as JSON for `crates/sim/tests/pair_settle.rs`: per pair the scene's XML,
the contact count every 50 steps, the largest penetration over the run and both bodies' final `qpos`:

    python3 scripts/mujoco_pair_settle.py --reference crates/sim/tests/data/pair_settle_reference.json
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import mujoco
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

GEOMS = {
    "box": 'type="box" size="0.1 0.1 0.05"',
    "cylinder": 'type="cylinder" size="0.05 0.06"',
    "capsule": 'type="capsule" size="0.04 0.06"',
    "sphere": 'type="sphere" size="0.06"',
    "ellipsoid": 'type="ellipsoid" size="0.06 0.045 0.035"',
}
# Resting height of each bottom geom's centre on the floor (its lowest point at z = 0), lying flat.
BOTTOM_Z = {"box": 0.05, "cylinder": 0.06, "capsule": 0.04, "sphere": 0.06, "ellipsoid": 0.035}
BOTTOM_EULER = {"box": "0 0 0", "cylinder": "0 0 0", "capsule": "90 0 0", "sphere": "0 0 0", "ellipsoid": "0 0 0"}
PAIRS = [
    ("cylinder", "box"), ("cylinder", "cylinder"), ("cylinder", "capsule"), ("capsule", "box"),
    ("capsule", "capsule"), ("ellipsoid", "sphere"), ("ellipsoid", "capsule"), ("ellipsoid", "ellipsoid"),
    ("box", "cylinder"), ("cylinder", "ellipsoid"),
]


def scene(top, bottom):
    z = 2 * BOTTOM_Z[bottom] + 0.12
    return f"""<mujoco model="{top}_on_{bottom}"><option timestep="0.002"/><worldbody>
<geom name="floor" type="plane" size="1 1 0.1"/>
<body name="bottom" pos="0 0 {BOTTOM_Z[bottom]}" euler="{BOTTOM_EULER[bottom]}"><freejoint/><geom {GEOMS[bottom]}/></body>
<body name="top" pos="0.01 0.005 {z}" euler="12 -8 5"><freejoint/><geom {GEOMS[top]}/></body>
</worldbody></mujoco>"""


EVERY = 50


def run_mujoco(xml, steps):
    """Final contact count, largest penetration, the top body's final position, and the record for `--reference`."""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    pen = 0.0
    ncon = {}
    for k in range(1, steps + 1):
        mujoco.mj_step(m, d)
        if d.ncon:
            pen = max(pen, max(-c.dist for c in d.contact[:d.ncon]))
        if k % EVERY == 0:
            ncon[str(k)] = int(d.ncon)
    top = m.body("top").jntadr[0]
    record = {"xml": xml, "steps": steps, "ncon": ncon, "max_penetration": float(pen), "qpos": d.qpos.tolist()}
    return d.ncon, pen, d.qpos[m.jnt_qposadr[top]:m.jnt_qposadr[top] + 3].copy(), record


def run_ours(binary, path, steps):
    with tempfile.NamedTemporaryFile(suffix=".json") as dump:
        out = subprocess.run([binary, "run", path, "--mujoco-compat", "--steps", str(steps), "--dump", dump.name],
                             capture_output=True, text=True, check=True)
        d = json.load(open(dump.name))
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    last = d["snapshots"][str(steps)]
    return last["ncon"], summary["max_penetration"], np.array(last["qpos_free"][1][:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "signorini"))
    ap.add_argument("--reference", metavar="OUT", help="write MuJoCo's runs as JSON (see the module docs)")
    args = ap.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"mujoco_pair_settle: build {args.binary} first (cargo build --release -p signorini-cli)")
    print(f"MuJoCo {mujoco.__version__} vs signorini --mujoco-compat, {args.steps} steps")
    print("| pair (top on bottom) | MuJoCo ncon at end | ours | MuJoCo max penetration (m) | ours | top body offset (m) |")
    print("|---|---|---|---|---|---|")
    reference = {"mujoco_version": mujoco.__version__, "pairs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for top, bottom in PAIRS:
            xml = scene(top, bottom)
            path = os.path.join(tmp, f"{top}_{bottom}.xml")
            open(path, "w").write(xml)
            n1, p1, x1, record = run_mujoco(xml, args.steps)
            reference["pairs"][f"{top}_on_{bottom}"] = record
            n2, p2, x2 = run_ours(args.binary, path, args.steps)
            print(f"| {top} on {bottom} | {n1} | {n2} | {p1:.4f} | {p2:.4f} | {np.linalg.norm(x1 - x2):.1e} |")
    if args.reference:
        with open(args.reference, "w") as f:
            json.dump(reference, f, indent=1)
        print(f"wrote {args.reference}")


if __name__ == "__main__":
    main()
