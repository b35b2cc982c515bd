"""MuJoCo 4.0's mesh polygons (`mesh_polyvert`, `mesh_polynormal`) of a few meshes, for the MJCF tests.

MuJoCo bins a hull's triangles by the direction of their normals (0.01 rad of azimuth and of polar angle, in the
file's frame before `scale`), merges the triangles of a bin that share edges, and stores each polygon with its
area-weighted normal. Its multi-contact clipping reads those polygons. The meshes: builtin superspheres and a
supertorus (the model folder's carousel: curved, their quads not quite flat), scaled and not, an inline cloud of
points on an ellipsoid, and a nearly flat dome whose merged polygons are not convex.

Writes crates/mjcf/tests/data/mesh_polygons_mujoco.json: `xml` (the model, one geom per mesh named after it) and per
mesh `{"name", "polygons": [[[x, y, z], ...], ...], "normals": [[x, y, z], ...]}`, vertices (rounded to 1e-9) and
normals (`mesh_quat` times `mesh_polynormal`, unrounded) in the mesh file's frame times `scale` (the frame of signorini's hull), each polygon's vertices in MuJoCo's
order. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_mesh_polygons.py [OUT]
"""
import json
import sys
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/mjcf/tests/data/mesh_polygons_mujoco.json"


def cloud():
    """120 points on an ellipsoid, seeded."""
    rng = np.random.default_rng(7)
    d = rng.normal(size=(120, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    return d * np.array([0.12, 0.08, 0.05])


def dome():
    """A slab under a nearly flat spherical cap (radius 1, normals within 0.03 rad of +z): each bin of MuJoCo's
    holds many of the cap's triangles, merged into polygons that are not convex and not quite flat."""
    rng = np.random.default_rng(11)
    t = rng.uniform(0, 2 * np.pi, 150)
    a = 0.03 * np.sqrt(rng.uniform(0, 1, 150))
    cap = np.stack([np.sin(a) * np.cos(t), np.sin(a) * np.sin(t), np.cos(a) - 1], axis=1)
    u = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    rim = 0.03 * np.stack([np.cos(u), np.sin(u), np.zeros_like(u)], axis=1)
    base = rim + np.array([0, 0, -0.02])
    return np.concatenate([cap, rim + np.array([0, 0, np.cos(0.03) - 1]), base])


MESHES = [
    ('bag1', 'builtin="supersphere" params="16 .3 .4" scale=".2 .13 .085"'),
    ('bag4', 'builtin="supersphere" params="16 .6 .45" scale=".15 .1 .065"'),
    ('ball', 'builtin="supersphere" params="12 1 1"'),
    ('ring', 'builtin="supertorus" params="24 .2 .4 1" scale="1.7 1.7 .9"'),
    ('cloud', 'vertex="' + " ".join(f"{x:.6f}" for x in cloud().ravel()) + '"'),
    ('dome', 'vertex="' + " ".join(f"{x:.7f}" for x in dome().ravel()) + '"'),
]


def model_xml():
    assets = "\n".join(f'    <mesh name="{n}" {a}/>' for n, a in MESHES)
    bodies = "\n".join(
        f'    <body pos="{2 * i} 0 1"><freejoint/><geom name="{n}" type="mesh" mesh="{n}"/></body>'
        for i, (n, _) in enumerate(MESHES))
    return f"""<mujoco model="mesh polygons">
  <asset>
{assets}
  </asset>
  <worldbody>
{bodies}
  </worldbody>
</mujoco>
"""


def main():
    xml = model_xml()
    m = mujoco.MjModel.from_xml_string(xml)
    meshes = []
    for name, _ in MESHES:
        k = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_MESH, name)
        va, nv = m.mesh_vertadr[k], m.mesh_vertnum[k]
        rot = np.zeros(9)
        mujoco.mju_quat2Mat(rot, m.mesh_quat[k])
        rot = rot.reshape(3, 3)
        # MuJoCo stores the mesh in its inertial frame: back to the file's frame (times scale).
        verts = m.mesh_vert[va:va + nv].astype(float) @ rot.T + m.mesh_pos[k]
        polygons, normals = [], []
        for p in range(m.mesh_polyadr[k], m.mesh_polyadr[k] + m.mesh_polynum[k]):
            a, n = m.mesh_polyvertadr[p], m.mesh_polyvertnum[p]
            polygons.append([[round(float(x), 9) for x in verts[v]] for v in m.mesh_polyvert[a:a + n]])
            normals.append([float(x) for x in rot @ m.mesh_polynormal[p]])
        meshes.append({"name": name, "polygons": polygons, "normals": normals})
        print(f"{name}: {len(polygons)} polygons, sizes {sorted(set(len(p) for p in polygons))}")
    OUT.write_text(json.dumps({"mujoco": mujoco.__version__, "xml": xml, "meshes": meshes}) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
