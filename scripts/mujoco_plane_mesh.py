"""Reference contacts of MuJoCo's plane–mesh collision (mjc_PlaneConvex) for the collision tests.

Writes crates/collision/tests/data/plane_mesh_mujoco.json: for each case, the mesh vertices in the geom frame as
MuJoCo stores them (float32, recentred on the mesh centroid), the geom's world pose, and MuJoCo's contacts
(dist, pos, normal) from mj_forward. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_plane_mesh.py [OUT]
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
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/plane_mesh_mujoco.json"


def prism(ng, r=0.1, h=0.05):
    return " ".join(f"{r*math.cos(2*math.pi*k/ng):.6f} {r*math.sin(2*math.pi*k/ng):.6f} {z}"
                    for k in range(ng) for z in (-h, h))


def case(vertex, z, euler):
    xml = f'''<mujoco><compiler angle="degree"/><asset><mesh name="m" vertex="{vertex}"/></asset>
<worldbody><geom type="plane" size="5 5 .1"/><body pos="0 0 {z}" euler="{euler}"><freejoint/>
<geom type="mesh" mesh="m"/></body></worldbody></mujoco>'''
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    nv = m.mesh_vertnum[0]
    verts = m.mesh_vert[:nv].astype(float).tolist()
    return {
        "vertices": verts,
        "pos": d.geom_xpos[1].tolist(),
        "mat": d.geom_xmat[1].tolist(),
        "contacts": [{"dist": c.dist, "pos": list(c.pos), "normal": list(c.frame[:3])}
                     for c in d.contact[:d.ncon]],
    }


def main():
    hulls = re.findall(r'vertex="([^"]*)"', SCENE.read_text())
    cube = " ".join(f"{x} {y} {z}" for x in (-.1, .1) for y in (-.1, .1) for z in (-.1, .1))
    rng = np.random.default_rng(2026)
    cases = []
    for i in range(40):
        e = " ".join(f"{x:.3f}" for x in rng.uniform(-180, 180, 3))
        cases.append(case(hulls[i % len(hulls)], rng.uniform(0.0, 0.08), e))
    for ng in (5, 8, 12, 16):
        for _ in range(5):
            tilt, az = rng.uniform(0, 3), rng.uniform(0, 360)
            e = f"{tilt*math.cos(math.radians(az)):.4f} {tilt*math.sin(math.radians(az)):.4f} {rng.uniform(0, 360):.3f}"
            cases.append(case(prism(ng), rng.uniform(0.03, 0.05), e))
    for tilt in (0.5, 2, 10):
        cases.append(case(cube, 0.095, f"{tilt} 0.3 0"))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"mujoco": mujoco.__version__, "cases": cases}, separators=(",", ":")))
    print(f"wrote {len(cases)} cases, {sum(len(c['contacts']) for c in cases)} contacts to {OUT}")


if __name__ == "__main__":
    main()
