"""Reference contacts of a cylinder lying on its side along a box face, a mesh face or another cylinder's cap in
MuJoCo 4.0 (its multiccd clips the cylinder's side line by the face), for the collision tests.

Writes crates/collision/tests/data/cylinder_sides_mujoco.json in the layout of scripts/mujoco_capsule_edges.py:
`meshes` (the cube mesh and hull 0 of the convex scene), then cases of two geoms in MuJoCo's contact order with
MuJoCo's contacts (dist, pos, frame[0:3] = normal from geom 1 to geom 2) from mj_forward.

A cylinder (random radius and half-length) lies on a box's top face, on one of a mesh's three largest faces or on a
cylinder's top or bottom cap, turned about the vertical by a random angle, tilted by 0-4.5 degrees (MuJoCo's edge
tolerance is about 5.1 degrees) or 8 degrees about a random horizontal axis, sunk 0.2-3 mm, and shifted so that its
side lies inside the face, across one rim or across both. On a cylinder, every other case lists the lying cylinder
second, so that it is MuJoCo's geom 2. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_cylinder_sides.py [OUT]
"""
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mujoco_capsule_edges import (  # noqa: E402
    PLACES, half_length_for, lowered, lying_pose, mesh_face, reference_meshes, two_bodies)
from mujoco_convex_pairs import axis_angle, record, simulate, write_cases  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/cylinder_sides_mujoco.json"
UP = np.array([0.0, 0.0, 1.0])


def main():
    meshes, mesh_vertices = reference_meshes()
    rng = np.random.default_rng(20261206)
    cases = []
    for k in range(72):
        r, h = rng.uniform(0.015, 0.04), rng.uniform(0.03, 0.12)
        kind = ("box", "mesh", "cylinder")[k % 3]
        second = kind == "cylinder" and (k // 3) % 2 == 1
        mesh, vertex = None, None
        if kind == "box":
            size = [rng.uniform(0.05, 0.15), rng.uniform(0.05, 0.15), rng.uniform(0.02, 0.06)]
            bottom = f'type="box" size="{size[0]} {size[1]} {size[2]}"'
            rot_b = axis_angle(UP, rng.uniform(0, 2 * math.pi))
            centre, reach = np.zeros(2), min(size[0], size[1])
            what = "box"
        elif kind == "mesh":
            mesh = int(rng.integers(2))
            vertex = mesh_vertices[mesh]
            bottom = 'type="mesh" mesh="m"'
            rot_b, centre, reach = mesh_face(two_bodies(f'type="cylinder" size="{r} {h}"', bottom, vertex), rng)
            what = f"mesh {mesh}"
        else:
            radius, half = rng.uniform(0.04, 0.1), rng.uniform(0.03, 0.1)
            bottom = f'type="cylinder" size="{radius} {half}"'
            flipped = (k // 6) % 2 == 1
            rot_b = axis_angle([1, 0, 0], math.pi) if flipped else np.eye(3)
            centre, reach = np.zeros(2), radius
            what = f"cylinder {'bottom' if flipped else 'top'} cap{', listed second' if second else ''}"
        place = PLACES[(k // 9) % 3]
        h = half_length_for(place, h, reach, rng)
        lying = f'type="cylinder" size="{r} {h}"'
        m = two_bodies(lying, bottom, vertex, second)
        tilt = (0.0, 0.5, 2.0, 4.5, 8.0, 0.0, 0.5, 2.0)[(k // 9) % 8]
        rot_c, xy = lying_pose(rng, place, tilt, h, reach, centre)
        # `lowered` poses body 0 above body 1; with the lying cylinder listed second, swap the poses.
        if second:
            poses = lowered(two_bodies(lying, bottom, vertex), rot_c, rot_b, xy, rng.uniform(2e-4, 3e-3))
            poses = [poses[1], poses[0]]
        else:
            poses = lowered(m, rot_c, rot_b, xy, rng.uniform(2e-4, 3e-3))
        lying_geom = 1 if second else 0

        def describe(g, m=m, mesh=mesh, lying_geom=lying_geom, kind=kind):
            if g == lying_geom:
                return {"type": "cylinder", "size": m.geom_size[g].tolist()}
            if kind == "mesh":
                return {"type": "mesh", "mesh": mesh}
            return {"type": kind, "size": m.geom_size[g].tolist()}

        cases.append(record(m, simulate(m, poses), describe, f"cylinder lying on {what}, {place}, tilt {tilt:.1f}"))
    write_cases(OUT, meshes, cases)


if __name__ == "__main__":
    main()
