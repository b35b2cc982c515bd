"""MuJoCo 4.0's compiled inertias of bodies made of mesh geoms (`body_mass`, `body_inertia`, `body_ipos`,
`body_iquat`), at full precision, for `crates/mjcf/tests/mesh_inertia.rs`.

A body whose inertia comes from one mesh geom has the mesh's inertial frame as its own: MuJoCo's mesh compiler
moves the mesh to its centre of mass and principal axes (`mesh_pos`, `mesh_quat`, an early-stopped Jacobi
iteration), and the geom's frame composes with that one. With several geoms the moments about each geom's principal
frame are summed with the parallel-axis rule and diagonalised again. The bodies: 30 random point clouds (8 to 150
points on ellipsoids of random semi-axes, seeded), each alone in a body, 10 of them with the geom moved and turned in
its body, and 5 bodies of two clouds.

Writes crates/mjcf/tests/data/mesh_inertia.xml (the model) and crates/mjcf/tests/data/mesh_inertia_mujoco.json
(`{"mujoco", "bodies": [{"name", "mass", "inertia", "ipos", "iquat"}]}`, the world left out). Needs `pip install
mujoco`.

Usage: python3 scripts/mujoco_mesh_inertia.py
"""
import json
from pathlib import Path

import mujoco
import numpy as np

DATA = Path(__file__).resolve().parents[1] / "crates/mjcf/tests/data"


def cloud(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 151))
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    return d * rng.uniform(0.02, 0.15, size=3) + rng.uniform(-0.02, 0.02, size=3)


def vertex(points):
    return " ".join(f"{x:.6f}" for x in points.ravel())


def main():
    rng = np.random.default_rng(2026)
    assets, bodies = [], []
    for k in range(30):
        assets.append(f'    <mesh name="m{k}" vertex="{vertex(cloud(100 + k))}"/>')
    for k in range(30):
        if k < 20:
            geom = f'<geom type="mesh" mesh="m{k}"/>'
        else:
            pos = " ".join(f"{x:.4f}" for x in rng.uniform(-0.1, 0.1, 3))
            euler = " ".join(f"{x:.2f}" for x in rng.uniform(-180, 180, 3))
            geom = f'<geom type="mesh" mesh="m{k}" pos="{pos}" euler="{euler}"/>'
        bodies.append(f'    <body name="b{k}" pos="{k % 6} {k // 6} 1"><freejoint/>{geom}</body>')
    for k in range(5):
        a, b = 2 * k, 2 * k + 1
        pos = " ".join(f"{x:.4f}" for x in rng.uniform(-0.1, 0.1, 3))
        euler = " ".join(f"{x:.2f}" for x in rng.uniform(-180, 180, 3))
        bodies.append(f'    <body name="pair{k}" pos="{k} 6 1"><freejoint/><geom type="mesh" mesh="m{a}"/>'
                      f'<geom type="mesh" mesh="m{b}" pos="{pos}" euler="{euler}"/></body>')
    xml = "<mujoco model=\"mesh_inertia\">\n  <asset>\n" + "\n".join(assets) + "\n  </asset>\n  <worldbody>\n" + \
        "\n".join(bodies) + "\n  </worldbody>\n</mujoco>\n"
    (DATA / "mesh_inertia.xml").write_text(xml)
    m = mujoco.MjModel.from_xml_string(xml)
    out = []
    for b in range(1, m.nbody):
        out.append({"name": m.body(b).name, "mass": float(m.body_mass[b]), "inertia": m.body_inertia[b].tolist(),
                    "ipos": m.body_ipos[b].tolist(), "iquat": m.body_iquat[b].tolist()})
    (DATA / "mesh_inertia_mujoco.json").write_text(json.dumps({"mujoco": mujoco.__version__, "bodies": out}))
    print(f"wrote {len(out)} bodies")


if __name__ == "__main__":
    main()
