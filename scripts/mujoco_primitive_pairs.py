"""Reference contacts of the pairs MuJoCo 4.0 sends to mjc_Convex besides box–mesh and mesh–mesh: sphere, capsule,
ellipsoid and cylinder against ellipsoids, cylinders, boxes and meshes (native GJK/EPA, then the multiCCD
perturbation pass for pairs without a sphere or an ellipsoid), for the collision tests.

Writes crates/collision/tests/data/primitive_pairs_mujoco.json in the layout of scripts/mujoco_convex_pairs.py (whose
helpers it uses): `meshes` (hull 0 of the convex scene: MuJoCo's float32 geom-frame vertices and their double values),
and cases of two geoms in MuJoCo's contact order, `{"type", "size", "mesh"?, "quat"?, "pos", "mat"}`, with MuJoCo's contacts
(dist, pos, frame[0:3] = normal from geom 1 to geom 2) from mj_forward. Cases: random orientations pushed into
contact along a random direction, and resting poses (a cylinder lying, standing or crossed on a box or another
cylinder, a capsule on a cylinder, ...) sunk 0.2–3 mm, with small tilts. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_primitive_pairs.py [OUT]
"""
import math
import re
import sys
from pathlib import Path

import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mujoco_convex_pairs import (  # noqa: E402
    SCENE, axis_angle, mesh_data, random_rotation, record, simulate, touching, write_cases)

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/primitive_pairs_mujoco.json"

SIZES = {
    "sphere": "0.05",
    "capsule": "0.04 0.08",
    "ellipsoid": "0.06 0.04 0.03",
    "cylinder": "0.05 0.07",
    "box": "0.08 0.05 0.03",
}


class Models:
    """One compiled model per pair of geom types: two free bodies, one geom each."""

    def __init__(self, hull):
        self.hull = hull
        self.cache = {}

    def get(self, t1, t2):
        key = (t1, t2)
        if key not in self.cache:
            def geom(t):
                return 'type="mesh" mesh="hull"' if t == "mesh" else f'type="{t}" size="{SIZES[t]}"'
            xml = f"""<mujoco><asset><mesh name="hull" vertex="{self.hull}"/></asset><worldbody>
<body><freejoint/><geom {geom(t1)}/></body><body><freejoint/><geom {geom(t2)}/></body>
</worldbody></mujoco>"""
            self.cache[key] = mujoco.MjModel.from_xml_string(xml)
        return self.cache[key]


def tilted(rng, rot, degrees):
    phi = rng.uniform(0, 2 * math.pi)
    return axis_angle([math.cos(phi), math.sin(phi), 0], math.radians(degrees)) @ rot


LYING_X = axis_angle([0, 1, 0], math.pi / 2)  # local z along world x
LYING_Y = axis_angle([1, 0, 0], math.pi / 2)  # local z along world y
UP = np.array([0.0, 0.0, 1.0])


def describe(m, d, types):
    """The geom descriptions of `record`: type and size, and the hull's index for a mesh; a primitive's world
    quaternion `quat` (its free body's `xquat`, w first), from which MuJoCo's `geom_xmat` follows bit for bit."""
    def geom(g):
        out = {"type": types[g], "size": m.geom_size[g].tolist()}
        if types[g] == "mesh":
            out["mesh"] = 0
        else:
            assert np.array_equal(m.geom_quat[g], [1, 0, 0, 0])
            out["quat"] = d.xquat[m.geom_bodyid[g]].tolist()
        return out
    return geom


def main():
    hulls = re.findall(r'vertex="([^"]*)"', SCENE.read_text())
    models = Models(hulls[0])
    m = models.get("mesh", "mesh")
    stored, exact = mesh_data(m, 0, hulls[0])
    meshes = [{"vertices": stored.tolist(), "vertices_f64": exact.tolist()}]
    rng = np.random.default_rng(2312)
    pairs = [
        ("sphere", "ellipsoid"), ("sphere", "mesh"), ("capsule", "ellipsoid"), ("capsule", "cylinder"),
        ("capsule", "mesh"), ("ellipsoid", "ellipsoid"), ("ellipsoid", "cylinder"), ("ellipsoid", "box"),
        ("ellipsoid", "mesh"), ("cylinder", "cylinder"), ("cylinder", "box"), ("cylinder", "mesh"),
    ]
    # (kind, top type, bottom type, top rotation, bottom rotation)
    resting = [
        ("cylinder lying on box", "cylinder", "box", LYING_X, np.eye(3)),
        ("cylinder standing on box", "cylinder", "box", np.eye(3), np.eye(3)),
        ("cylinders crossed", "cylinder", "cylinder", LYING_Y, LYING_X),
        ("cylinders parallel", "cylinder", "cylinder", LYING_X, LYING_X),
        ("cylinder standing on cylinder", "cylinder", "cylinder", np.eye(3), np.eye(3)),
        ("capsule lying on cylinder", "capsule", "cylinder", LYING_Y, LYING_X),
        ("cylinder lying on capsule", "cylinder", "capsule", LYING_Y, LYING_X),
        ("box on cylinder", "box", "cylinder", np.eye(3), LYING_X),
        ("ellipsoid on box", "ellipsoid", "box", np.eye(3), np.eye(3)),
        ("cylinder lying on mesh", "cylinder", "mesh", LYING_X, np.eye(3)),
    ]
    cases = []
    for t1, t2 in pairs:
        for k in range(6):
            types = [t1, t2] if k % 2 == 0 else [t2, t1]
            mm = models.get(*types)
            u = rng.normal(size=3)
            u /= np.linalg.norm(u)
            depth = rng.uniform(1e-4, 4e-3) if k < 5 else -rng.uniform(1e-4, 3e-3)
            poses = touching(mm, random_rotation(rng), random_rotation(rng), u, depth)
            d = simulate(mm, poses)
            cases.append(record(mm, d, describe(mm, d, types), f"{t1}-{t2} {'pushed' if k < 5 else 'apart'}"))
    for kind, top, bottom, rot0, rot1 in resting:
        for tilt in (0.0, 0.0, 0.3, 1.0, 3.0):
            mm = models.get(top, bottom)
            spin = axis_angle(UP, rng.uniform(0, 2 * math.pi)) if tilt else np.eye(3)
            poses = touching(mm, tilted(rng, rot0, tilt) if tilt else rot0, spin @ rot1 if tilt else rot1, UP,
                             rng.uniform(2e-4, 3e-3))
            d = simulate(mm, poses)
            cases.append(record(mm, d, describe(mm, d, [top, bottom]), kind))
    write_cases(OUT, meshes, cases)


if __name__ == "__main__":
    main()
