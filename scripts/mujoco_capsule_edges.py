"""Reference contacts of a capsule lying along a cylinder's cap or a mesh face in MuJoCo 4.0 (its multiccd clips the
capsule's side line by the face), for the collision tests.

Writes crates/collision/tests/data/capsule_edges_mujoco.json in the layout of scripts/mujoco_primitive_pairs.py:
`meshes` (the cube mesh and hull 0 of the convex scene: MuJoCo's float32 geom-frame vertices and their double
values), then cases of two geoms in MuJoCo's contact order, `{"type", "size", "pos", "mat"}` (a mesh names its index
in `meshes`), with MuJoCo's contacts (dist, pos, frame[0:3] = normal from geom 1 to geom 2) from mj_forward.

A capsule (random radius and half-length) lies on a cylinder's top or bottom cap or on one of the three largest faces
of a mesh, turned about the face normal by a random angle, tilted by 0-4.5 degrees (MuJoCo's edge tolerance is
asin(0.0888), about 5.1 degrees) or by 7-9 degrees (beyond it: one contact), sunk 0.2-3 mm, and shifted along the
face so that its side lies inside the face, across one rim or across both. Then 24 cases of a horizontal capsule
pushed sideways against an upright cylinder, below its top rim or across it, level or tilted. Needs
`pip install mujoco`.

Usage: python3 scripts/mujoco_capsule_edges.py [OUT]
"""
import math
import re
import sys
from pathlib import Path

import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mujoco_convex_pairs import (  # noqa: E402
    CUBE, SCENE, align, axis_angle, faces_of, mesh_data, poly_area, record, simulate, write_cases)

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/capsule_edges_mujoco.json"
UP = np.array([0.0, 0.0, 1.0])


LYING = axis_angle([0, 1, 0], math.pi / 2)  # a lying geom's axis along +x
PLACES = ("inside", "one rim", "both rims")


def two_bodies(top, bottom, mesh_vertex=None, bottom_first=False):
    """Two free bodies with geoms `top` and `bottom` (geom attribute strings; a mesh geom names mesh "m", made from
    `mesh_vertex`), the bottom one's body listed first when asked."""
    asset = f'<asset><mesh name="m" vertex="{mesh_vertex}"/></asset>' if mesh_vertex else ""
    bodies = [f"<body><freejoint/><geom {g}/></body>" for g in (top, bottom)]
    if bottom_first:
        bodies.reverse()
    return mujoco.MjModel.from_xml_string(f"<mujoco>{asset}<worldbody>{''.join(bodies)}</worldbody></mujoco>")


def reference_meshes():
    """The cube mesh and hull 0 of the convex scene as the tests read them (`meshes` of the output), and their
    vertex strings."""
    vertices = (CUBE, re.findall(r'vertex="([^"]*)"', SCENE.read_text())[0])
    meshes = []
    for vertex in vertices:
        m = two_bodies('type="sphere" size="0.01"', 'type="mesh" mesh="m"', vertex)
        stored, exact = mesh_data(m, 0, vertex)
        meshes.append({"vertices": stored.tolist(), "vertices_f64": exact.tolist(), "quat": m.mesh_quat[0].tolist()})
    return meshes, vertices


def mesh_face(m, rng):
    """One of the three largest faces of geom 1 (a mesh) turned up, about the vertical by a random angle: the mesh's
    rotation, the face's centre (x, y) and the distance from it to the face's nearest vertex."""
    verts, polys = faces_of(m, 1)
    big = sorted(range(len(polys)), key=lambda p: -poly_area(verts, polys[p][0]))[:3]
    face = big[rng.integers(len(big))]
    rot = axis_angle(UP, rng.uniform(0, 2 * math.pi)) @ align(polys[face][1], UP)
    pts = verts[polys[face][0]] @ rot.T
    centre = pts.mean(axis=0)[:2]
    return rot, centre, np.linalg.norm(pts[:, :2] - centre, axis=1).min()


def half_length_for(place, h, reach, rng):
    """A lying geom's half-length for `place` on a face of half-size `reach`: short inside it, long across both rims."""
    if place == "inside":
        return min(h, 0.6 * reach)
    if place == "both rims":
        return max(h, reach * rng.uniform(1.1, 1.5))
    return h


def lying_pose(rng, place, tilt, h, reach, centre):
    """A lying geom (half-length h) turned about the vertical by a random angle and tilted by `tilt` degrees about a
    random horizontal axis: its rotation and its (x, y) over the face centred at `centre`, shifted sideways, and past
    the rim for "one rim"."""
    turn, phi = rng.uniform(0, 2 * math.pi), rng.uniform(0, 2 * math.pi)
    rot = axis_angle([math.cos(phi), math.sin(phi), 0], math.radians(tilt)) @ axis_angle(UP, turn) @ LYING
    along = np.array([math.cos(turn), math.sin(turn)])
    side = np.array([-along[1], along[0]])
    xy = centre + side * rng.uniform(-0.3, 0.3) * reach
    if place == "one rim":
        xy = xy + along * (reach + rng.uniform(-0.3, 0.6) * h)
    return rot, xy


def lowered(m, rot_c, rot_b, xy, depth):
    """Geom 0 (rotation rot_c) above geom 1 (at the origin, rot_b) at horizontal position xy, lowered
    until it touches (bisection on its height), then sunk by `depth`."""
    lo, hi = 0.0, 1.0  # touching at lo, apart at hi
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if simulate(m, [(np.array([xy[0], xy[1], mid]), rot_c), (np.zeros(3), rot_b)]).ncon:
            lo = mid
        else:
            hi = mid
    return [(np.array([xy[0], xy[1], hi - depth]), rot_c), (np.zeros(3), rot_b)]


def main():
    meshes, mesh_vertices = reference_meshes()
    rng = np.random.default_rng(20261204)
    cases = []
    for k in range(60):
        r, h = rng.uniform(0.01, 0.04), rng.uniform(0.03, 0.15)
        capsule = f'type="capsule" size="{r} {h}"'
        on_mesh = k % 3 == 2
        if on_mesh:
            mesh = int(rng.integers(2))
            vertex = mesh_vertices[mesh]
            bottom = 'type="mesh" mesh="m"'
            rot_b, centre, reach = mesh_face(two_bodies(capsule, bottom, vertex), rng)
            what = f"mesh {mesh}"
        else:
            vertex, mesh = None, None
            radius, half = rng.uniform(0.03, 0.1), rng.uniform(0.03, 0.1)
            bottom = f'type="cylinder" size="{radius} {half}"'
            flipped = k % 2 == 1
            rot_b = axis_angle([1, 0, 0], math.pi) if flipped else np.eye(3)
            centre, reach = np.zeros(2), radius
            what = f"cylinder {'bottom' if flipped else 'top'} cap"
        place = PLACES[(k // 3) % 3]
        h = half_length_for(place, h, reach, rng)
        m = two_bodies(f'type="capsule" size="{r} {h}"', bottom, vertex)
        tilt = (0.0, 0.5, 2.0, 4.5, 0.0, 8.0)[(k // 9) % 6] if k < 54 else rng.uniform(7.0, 9.0)
        rot_c, xy = lying_pose(rng, place, tilt, h, reach, centre)
        poses = lowered(m, rot_c, rot_b, xy, rng.uniform(2e-4, 3e-3))

        def describe(g, m=m, mesh=mesh):
            if g == 0:
                return {"type": "capsule", "size": m.geom_size[0].tolist()}
            if mesh is not None:
                return {"type": "mesh", "mesh": mesh}
            return {"type": "cylinder", "size": m.geom_size[1].tolist()}

        cases.append(record(m, simulate(m, poses), describe, f"capsule on {what}, {place}, tilt {tilt:.1f}"))
    # A horizontal capsule pushed sideways against an upright cylinder: on its side (below the rim: one contact),
    # across its top rim (MuJoCo clips the capsule by the top cap) or, tilted, with an end over the rim.
    rng = np.random.default_rng(20261205)
    for k in range(24):
        r, h = rng.uniform(0.01, 0.03), rng.uniform(0.05, 0.12)
        radius, half = rng.uniform(0.03, 0.08), rng.uniform(0.03, 0.1)
        m = two_bodies(f'type="capsule" size="{r} {h}"', f'type="cylinder" size="{radius} {half}"')
        turn = rng.uniform(0, 2 * math.pi)
        towards = np.array([math.cos(turn), math.sin(turn), 0.0])
        height = half + r * (-0.5, 0.1, 0.5, 0.8)[k % 4]
        tilt = (0.0, 0.0, 3.0)[(k // 4) % 3]
        across = axis_angle(UP, turn) @ axis_angle([1, 0, 0], math.pi / 2)  # the axis perpendicular to `towards`
        rot_c = axis_angle(towards, math.radians(tilt)) @ across
        lo, hi = 0.0, 1.0  # the capsule's centre at distance s from the cylinder's axis: touching at lo, apart at hi
        for _ in range(50):
            mid = 0.5 * (lo + hi)
            if simulate(m, [(towards * mid + UP * height, rot_c), (np.zeros(3), np.eye(3))]).ncon:
                lo = mid
            else:
                hi = mid
        poses = [(towards * (hi - rng.uniform(2e-4, 2e-3)) + UP * height, rot_c), (np.zeros(3), np.eye(3))]

        def describe(g, m=m):
            return {"type": ("capsule", "cylinder")[g], "size": m.geom_size[g].tolist()}

        where = "on the side" if height < half else "across the rim"
        cases.append(record(m, simulate(m, poses), describe, f"capsule against a cylinder {where}, tilt {tilt:.0f}"))
    write_cases(OUT, meshes, cases)


if __name__ == "__main__":
    main()
