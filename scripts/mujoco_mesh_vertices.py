"""MuJoCo 4.0's stored mesh vertices (`mesh_vert`, single precision, in each mesh's inertial frame) and the geom
poses that place them, for the MJCF tests.

MuJoCo's compiler reads a mesh's vertices in single precision, scales them, moves them to the mesh's inertial frame
(centre of mass at the origin, principal axes as the frame's) in double, and narrows them back to single precision;
collision reads those floats. The meshes of crates/mjcf/tests/data/mesh_vertices.xml: a chamfered cube scaled by
1e-3 (the cubelet of MuJoCo's cube_3x3x3.xml model, whose touching faces need the floats), a seeded cloud of points
off the origin with oblique principal axes, and the Franka Panda's link5 collision mesh (../shared/robots) at scale 1
and at an uneven scale.

Writes crates/mjcf/tests/data/mesh_vertices_mujoco.json: per geom (named after its mesh) its `pos` and `quat` in its
body's frame and the mesh's `vert` ([x, y, z] in the mesh frame, the floats exactly). Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_mesh_vertices.py
"""
import json
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "crates/mjcf/tests/data"


def cloud():
    """60 points on an oblique ellipsoid around (0.03, -0.02, 0.05), written with 6 decimals."""
    rng = np.random.default_rng(3)
    d = rng.normal(size=(60, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    a = 0.5
    rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    p = (d * np.array([0.07, 0.04, 0.02])) @ rot.T + np.array([0.03, -0.02, 0.05])
    return " ".join(f"{x:.6f}" for x in p.ravel())


def chamfered_cube():
    """24 vertices: each face of a cube of half-size 9.5 inset to 8.075 at its edges."""
    h, c = 9.5, 8.075
    pts = []
    for axis in range(3):
        for s in (h, -h):
            for u in (c, -c):
                for v in (c, -c):
                    p = [0.0, 0.0, 0.0]
                    p[axis], p[(axis + 1) % 3], p[(axis + 2) % 3] = s, u, v
                    pts.append(p)
    return " ".join(f"{x:g}" for x in np.array(pts).ravel())


def xml():
    link5 = "../../../../../shared/robots/franka_panda/meshes/collision/link5.obj"
    return f"""<mujoco model="mesh vertices">
  <!-- Meshes whose stored single-precision vertices MuJoCo 4.0 gives: scripts/mujoco_mesh_vertices.py. -->
  <asset>
    <mesh name="cubelet" scale="1e-3 1e-3 1e-3" vertex="{chamfered_cube()}"/>
    <mesh name="cloud" vertex="{cloud()}"/>
    <mesh name="link5" file="{link5}"/>
    <mesh name="link5_scaled" file="{link5}" scale="0.9 1.1 1.3"/>
  </asset>
  <worldbody>
    <body name="cubelet" pos="0 0 0.1" euler="0 0 90"><freejoint/><geom name="cubelet" type="mesh" mesh="cubelet"/></body>
    <body name="cloud" pos="0.3 0 0.1"><freejoint/><geom name="cloud" type="mesh" mesh="cloud" pos="0.01 0 0" euler="10 20 30"/></body>
    <body name="link5" pos="0.6 0 0.1"><freejoint/><geom name="link5" type="mesh" mesh="link5"/></body>
    <body name="link5_scaled" pos="0.9 0 0.1"><freejoint/><geom name="link5_scaled" type="mesh" mesh="link5_scaled"/></body>
  </worldbody>
</mujoco>
"""


def main():
    scene = DATA / "mesh_vertices.xml"
    scene.write_text(xml())
    m = mujoco.MjModel.from_xml_path(str(scene))
    geoms = []
    for g in range(m.ngeom):
        k = m.geom_dataid[g]
        a, n = m.mesh_vertadr[k], m.mesh_vertnum[k]
        geoms.append({
            "name": m.geom(g).name,
            "pos": m.geom_pos[g].tolist(),
            "quat": m.geom_quat[g].tolist(),
            "vert": m.mesh_vert[a:a + n].astype(float).tolist(),
        })
    out = {"mujoco": mujoco.__version__, "geoms": geoms}
    target = DATA / "mesh_vertices_mujoco.json"
    target.write_text(json.dumps(out) + "\n")
    print(f"wrote {scene} and {target}")


if __name__ == "__main__":
    main()
