"""Reference contacts of MuJoCo 4.0's native GJK/EPA on smooth pairs that end in EPA after long iterations: ellipsoid
against ellipsoid, and a sphere against an ellipsoid (GJK's distance on the sphere's centre, EPA when that lies inside),
for the collision tests.

Writes crates/collision/tests/data/smooth_pairs_mujoco.json in the layout of scripts/mujoco_convex_pairs.py (no meshes),
each geom with its world quaternion `quat` (d.xquat of its free body, w first) besides `pos` and `mat`, so that the
test rebuilds MuJoCo's frames exactly. Cases, overlapping by a random fraction of the geoms' sizes:
  * `random`: random orientations and directions. GJK hands EPA a tetrahedron in either orientation.
  * `aligned`: both ellipsoids within about 1e-2 rad of the world axes, offset along an axis. GJK often ends with a
    triangle that the origin lies on, near the edge of its first two points, and EPA starts from a hexahedron whose
    apexes depend on where the support points along the triangle's normal pass.
  * `sphere`: a sphere against an ellipsoid: GJK's distance to the sphere's centre converges on sliver triangles.
Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_smooth_pairs.py [OUT]
"""
import sys
from pathlib import Path

import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mujoco_convex_pairs import axis_angle, quat_mat, random_rotation, record, simulate, write_cases  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/smooth_pairs_mujoco.json"


def model(types, sizes):
    def geom(t, size):
        return f'<geom type="{t}" size="{" ".join(repr(float(x)) for x in size[:1 if t == "sphere" else 3])}"/>'
    bodies = "".join(f"<body><freejoint/>{geom(t, s)}</body>" for t, s in zip(types, sizes))
    return mujoco.MjModel.from_xml_string(f"<mujoco><worldbody>{bodies}</worldbody></mujoco>")


def case(rng, types, sizes, rots, direction, kind):
    """Geom 1 at the origin, geom 0 along `direction` at a random fraction of their mean sizes."""
    m = model(types, sizes)
    offset = direction * rng.uniform(0.3, 0.9) * (sizes[0].mean() + sizes[1].mean())
    d = simulate(m, [(offset, rots[0]), (np.zeros(3), rots[1])])

    def describe(g):
        return {"type": types[g], "size": m.geom_size[g].tolist(), "quat": d.xquat[g + 1].tolist()}
    return record(m, d, describe, kind)


def unit(v):
    return v / np.linalg.norm(v)


def main():
    rng = np.random.default_rng(4011)
    cases = []
    for _ in range(60):
        sizes = rng.uniform(0.05, 0.2, size=(2, 3))
        rots = [random_rotation(rng), random_rotation(rng)]
        cases.append(case(rng, ["ellipsoid"] * 2, sizes, rots, unit(rng.normal(size=3)), "random"))
    for _ in range(80):
        sizes = rng.uniform(0.05, 0.2, size=(2, 3))
        rots = [axis_angle(unit(rng.normal(size=3)), rng.normal() * 1e-2) for _ in range(2)]
        direction = unit(np.eye(3)[rng.integers(3)] + rng.normal(size=3) * 1e-2)
        cases.append(case(rng, ["ellipsoid"] * 2, sizes, rots, direction, "aligned"))
    for _ in range(60):
        sizes = rng.uniform(0.05, 0.2, size=(2, 3))
        rots = [np.eye(3), random_rotation(rng)]
        cases.append(case(rng, ["sphere", "ellipsoid"], sizes, rots, unit(rng.normal(size=3)), "sphere"))
    for c in cases:
        for g in c["geoms"]:
            assert np.allclose(quat_mat(g["quat"]).reshape(9), g["mat"], atol=1e-15)
    write_cases(OUT, [], cases)


if __name__ == "__main__":
    main()
