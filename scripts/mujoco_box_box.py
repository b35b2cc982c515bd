"""Reference contacts of MuJoCo 4.0's box–box collision (mjc_BoxBox) for the collision tests.

Writes crates/collision/tests/data/box_box_mujoco.json: each case holds the two boxes in MuJoCo's contact order
(geom 1, geom 2) with their half sizes, world `pos` and row-major `mat` (d.geom_xpos, d.geom_xmat), the quaternion
`quat` from which MuJoCo made that matrix (w first; `mujoco_convex_pairs.exact_quat`), and MuJoCo's
contacts (dist, pos, frame[0:3] = normal from geom 1 to geom 2) after mj_forward. Margin 0. Cases: random poses
pushed into contact along a random direction (the touching distance found by bisection on MuJoCo's own contact
test, then a random depth), boxes resting face on face with small tilts and in-plane offsets (clipped polygons of 3
to 8 vertices), edge-on-edge crossings, and a few separated pairs. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_box_box.py [OUT]
"""
import json
import math
import sys
from pathlib import Path

import mujoco
import numpy as np

from mujoco_convex_pairs import axis_angle, exact_quat, mat_quat, random_rotation

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/box_box_mujoco.json"


class Pair:
    def __init__(self, size1, size2):
        xml = f"""<mujoco><option gravity="0 0 0"/><worldbody>
          <body><freejoint/><geom type="box" size="{size1[0]} {size1[1]} {size1[2]}"/></body>
          <body><freejoint/><geom type="box" size="{size2[0]} {size2[1]} {size2[2]}"/></body>
        </worldbody></mujoco>"""
        self.m = mujoco.MjModel.from_xml_string(xml)
        self.d = mujoco.MjData(self.m)
        self.sizes = (list(size1), list(size2))

    def place(self, p1, r1, p2, r2):
        self.d.qpos[:] = np.concatenate([p1, mat_quat(r1), p2, mat_quat(r2)])
        mujoco.mj_forward(self.m, self.d)
        return self.d.ncon

    def case(self, p1, r1, p2, r2):
        self.place(p1, r1, p2, r2)
        d = self.d
        geoms = [
            {
                "size": self.sizes[g],
                "pos": d.geom_xpos[g].tolist(),
                "mat": d.geom_xmat[g].tolist(),
                "quat": exact_quat(self.m, d, g),
            }
            for g in (0, 1)
        ]
        contacts = []
        for c in d.contact[: d.ncon]:
            assert (c.geom1, c.geom2) == (0, 1)
            contacts.append({"dist": float(c.dist), "pos": c.pos.tolist(), "normal": c.frame[:3].tolist()})
        return {"geoms": geoms, "contacts": contacts}


def pushed(pair, rng, r1, r2, direction, depth):
    """Box 2 along `direction` from box 1, at `depth` past the touching distance (bisection on MuJoCo's test)."""
    lo, hi = 0.0, 2.0 * (np.linalg.norm(pair.sizes[0]) + np.linalg.norm(pair.sizes[1]))
    p1 = np.zeros(3)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if pair.place(p1, r1, mid * direction, r2):
            lo = mid
        else:
            hi = mid
    return pair.case(p1, r1, (hi - depth) * direction, r2)


def main():
    rng = np.random.default_rng(2026)
    cases = []
    for _ in range(60):
        size1, size2 = rng.uniform(0.02, 0.2, 3), rng.uniform(0.02, 0.2, 3)
        pair = Pair(size1, size2)
        d = rng.normal(size=3)
        cases.append(pushed(pair, rng, random_rotation(rng), random_rotation(rng), d / np.linalg.norm(d),
                            rng.uniform(1e-4, 5e-3)))
    # Face on face: box 2 on top of box 1 with small tilts and in-plane offsets.
    for k in range(60):
        size1, size2 = rng.uniform(0.03, 0.15, 3), rng.uniform(0.03, 0.15, 3)
        pair = Pair(size1, size2)
        tilt = [0.0, 1e-9, 1e-4, 0.02, 0.1][k % 5]
        yaw = rng.uniform(-math.pi, math.pi) if k % 3 else 0.0
        r2 = axis_angle([0, 0, 1], yaw) @ axis_angle(rng.normal(size=3), tilt)
        off = rng.uniform(-1, 1, 2) * (size1[:2] + size2[:2]) * 0.7
        base = random_rotation(rng) if k % 4 == 3 else np.eye(3)
        height = size1[2] + size2[2] - rng.uniform(1e-4, 3e-3)
        p2 = base @ np.array([off[0], off[1], height])
        cases.append(pair.case(np.zeros(3), base, p2, base @ r2))
    # Edge on edge: crossed boxes.
    for k in range(30):
        size1, size2 = rng.uniform(0.03, 0.15, 3), rng.uniform(0.03, 0.15, 3)
        pair = Pair(size1, size2)
        r1 = axis_angle([1, 0, 0], math.pi / 4 + rng.uniform(-0.2, 0.2))
        r2 = axis_angle([0, 1, 0], math.pi / 4 + rng.uniform(-0.2, 0.2))
        cases.append(pushed(pair, rng, r1, r2, np.array([0, 0, 1.0]), rng.uniform(1e-4, 2e-3)))
    # Separated.
    for _ in range(5):
        pair = Pair([0.1, 0.1, 0.1], [0.05, 0.08, 0.02])
        cases.append(pair.case(np.zeros(3), np.eye(3), np.array([0, 0, 0.121]), random_rotation(rng)))
    out = {"mujoco": mujoco.__version__, "cases": cases}
    OUT.write_text(json.dumps(out) + "\n")
    counts = {}
    for c in cases:
        counts[len(c["contacts"])] = counts.get(len(c["contacts"]), 0) + 1
    print(f"wrote {OUT}: {len(cases)} cases, contact counts {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
