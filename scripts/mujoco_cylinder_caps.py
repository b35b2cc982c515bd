"""Reference contacts of a cylinder's cap resting on a face in MuJoCo 4.0 (its multiccd clips the cap as a 16-gon),
for the collision tests.

Writes crates/collision/tests/data/cylinder_caps_mujoco.json in the layout of scripts/mujoco_primitive_pairs.py:
cases of two geoms in MuJoCo's contact order, `{"type", "size", "pos", "mat"}`, with MuJoCo's contacts (dist, pos,
frame[0:3] = normal from geom 1 to geom 2) from mj_forward. A cylinder (random radius and half-length) stands on
its bottom cap, or upside down on its top cap, on a box face or on another cylinder's cap, turned about the vertical by
a random angle, tilted by 0–2°, sunk 0.2–3 mm, and shifted sideways so that the cap lies inside the face, across one
of its edges or across a corner. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_cylinder_caps.py [OUT]
"""
import math
import sys
from pathlib import Path

import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mujoco_convex_pairs import axis_angle, record, simulate, touching, write_cases  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/cylinder_caps_mujoco.json"
UP = np.array([0.0, 0.0, 1.0])
FLIP = axis_angle([1, 0, 0], math.pi)  # local z pointing down: the top cap faces down


def model(top_size, bottom_type, bottom_size):
    xml = f"""<mujoco><worldbody>
<body><freejoint/><geom type="cylinder" size="{top_size[0]} {top_size[1]}"/></body>
<body><freejoint/><geom type="{bottom_type}" size="{' '.join(map(str, bottom_size))}"/></body>
</worldbody></mujoco>"""
    return mujoco.MjModel.from_xml_string(xml)


def describe(m, types):
    return lambda g: {"type": types[g], "size": m.geom_size[g].tolist()}


def main():
    rng = np.random.default_rng(20261203)
    cases = []
    for k in range(48):
        r, h = rng.uniform(0.03, 0.08), rng.uniform(0.03, 0.1)
        on_cylinder = k % 3 == 2
        if on_cylinder:
            bottom = ("cylinder", [rng.uniform(0.03, 0.1), rng.uniform(0.03, 0.1)])
        else:
            bottom = ("box", [rng.uniform(0.03, 0.15), rng.uniform(0.03, 0.15), rng.uniform(0.02, 0.08)])
        m = model((r, h), *bottom)
        # Sideways shift: inside (0), across an edge or a corner, in units of the face's half sizes.
        place = ["inside", "edge", "corner"][(k // 3) % 3]
        half = np.array(bottom[1][:2]) if bottom[0] == "box" else np.array([bottom[1][0], bottom[1][0]])
        shift = {"inside": np.zeros(2), "edge": np.array([1.0, 0.0]), "corner": np.array([0.8, 0.8])}[place]
        shift = shift * half * rng.uniform(0.85, 1.0) + rng.uniform(-0.005, 0.005, size=2)
        flipped = k % 2 == 1
        spin = axis_angle(UP, rng.uniform(0, 2 * math.pi))
        tilt_deg = [0.0, 0.5, 2.0][k % 3]
        phi = rng.uniform(0, 2 * math.pi)
        tilt = axis_angle([math.cos(phi), math.sin(phi), 0], math.radians(tilt_deg))
        rot0 = tilt @ spin @ (FLIP if flipped else np.eye(3))
        u = np.array([shift[0], shift[1], 0.3])
        u /= np.linalg.norm(u)
        poses = touching(m, rot0, axis_angle(UP, rng.uniform(0, 2 * math.pi)), u, rng.uniform(2e-4, 3e-3))
        kind = f"cylinder {'upside down ' if flipped else ''}on {bottom[0]}, {place}, tilt {tilt_deg}"
        cases.append(record(m, simulate(m, poses), describe(m, ["cylinder", bottom[0]]), kind))
    write_cases(OUT, [], cases)


if __name__ == "__main__":
    main()
