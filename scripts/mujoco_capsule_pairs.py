"""Reference contacts of MuJoCo 4.0.1's capsule–capsule routine (`mjraw_CapsuleCapsule` with its `mjc_segWeights`,
newer than the public source), for the collision tests.

Writes crates/collision/tests/data/capsule_pairs_mujoco.json in the layout of scripts/mujoco_smooth_pairs.py: cases
of two capsules (`{"type", "size", "quat", "pos", "mat"}`, the quaternion MuJoCo's `xquat`, so that the geom matrices
are its `geom_xmat`) with MuJoCo's contacts (dist, pos, frame[0:3] = normal from geom 1 to geom 2) from mj_forward.
Kinds: `crossed` (random orientations, pushed together along a random direction), `parallel` (the same axis, turned
by 0 or up to 1e-4 rad: MuJoCo's two contacts), `skew` (axes 0.005-0.02 rad apart, near its parallel test),
`end` (end to end along nearly the same line) and `tee` (one capsule's end against the other's side). Needs
`pip install mujoco` (4.0.1).

Usage: python3 scripts/mujoco_capsule_pairs.py [OUT]
"""
import sys
from pathlib import Path

import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mujoco_convex_pairs import axis_angle, record, simulate, write_cases  # noqa: E402
from mujoco_smooth_pairs import model, random_rotation, unit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/capsule_pairs_mujoco.json"


def case(m, sizes, placements, kind):
    d = simulate(m, placements)

    def describe(g):
        return {"type": "capsule", "size": m.geom_size[g].tolist(), "quat": d.xquat[g + 1].tolist()}
    return record(m, d, describe, kind)


def main():
    assert mujoco.__version__ == "4.0.1", f"reference for 4.0.1, not {mujoco.__version__}"
    rng = np.random.default_rng(4021)
    cases = []
    for _ in range(40):
        sizes = np.column_stack([rng.uniform(0.02, 0.08, 2), rng.uniform(0.05, 0.2, 2), np.zeros(2)])
        m = model(["capsule"] * 2, sizes)
        u = unit(rng.normal(size=3))
        offset = u * rng.uniform(0.2, 0.9) * (sizes[0, 0] + sizes[1, 0] + 0.5 * (sizes[0, 1] + sizes[1, 1]))
        cases.append(case(m, sizes, [(offset, random_rotation(rng)), (np.zeros(3), random_rotation(rng))],
                          "crossed"))
    for k in range(30):
        sizes = np.column_stack([rng.uniform(0.02, 0.08, 2), rng.uniform(0.05, 0.2, 2), np.zeros(2)])
        m = model(["capsule"] * 2, sizes)
        rot = random_rotation(rng)
        tilt = 0.0 if k % 3 == 0 else rng.uniform(0, 1e-4)
        turned = axis_angle(unit(rng.normal(size=3)), tilt) @ rot
        side = unit(np.cross(rot[:, 2], rng.normal(size=3)))
        gap = (sizes[0, 0] + sizes[1, 0]) * rng.uniform(0.8, 0.99)
        shift = rot[:, 2] * rng.uniform(-1, 1) * (sizes[0, 1] + sizes[1, 1])
        cases.append(case(m, sizes, [(side * gap + shift, turned), (np.zeros(3), rot)], "parallel"))
    for _ in range(30):
        sizes = np.column_stack([rng.uniform(0.02, 0.08, 2), rng.uniform(0.05, 0.2, 2), np.zeros(2)])
        m = model(["capsule"] * 2, sizes)
        rot = random_rotation(rng)
        turned = axis_angle(unit(rng.normal(size=3)), rng.uniform(0.005, 0.02)) @ rot
        side = unit(np.cross(rot[:, 2], rng.normal(size=3)))
        gap = (sizes[0, 0] + sizes[1, 0]) * rng.uniform(0.8, 0.99)
        cases.append(case(m, sizes, [(side * gap, turned), (np.zeros(3), rot)], "skew"))
    for _ in range(20):
        sizes = np.column_stack([rng.uniform(0.02, 0.08, 2), rng.uniform(0.05, 0.2, 2), np.zeros(2)])
        m = model(["capsule"] * 2, sizes)
        rot = random_rotation(rng)
        turned = axis_angle(unit(rng.normal(size=3)), rng.uniform(0, 0.3)) @ rot
        reach = sizes[0, 1] + sizes[1, 1] + (sizes[0, 0] + sizes[1, 0]) * rng.uniform(0.8, 0.99)
        cases.append(case(m, sizes, [(rot[:, 2] * reach, turned), (np.zeros(3), rot)], "end"))
    for _ in range(20):
        sizes = np.column_stack([rng.uniform(0.02, 0.08, 2), rng.uniform(0.05, 0.2, 2), np.zeros(2)])
        m = model(["capsule"] * 2, sizes)
        rot = random_rotation(rng)
        side = unit(np.cross(rot[:, 2], rng.normal(size=3)))
        upright = axis_angle(unit(np.cross(np.array([0, 0, 1.0]), side)) if abs(side[2]) < 0.99 else [1, 0, 0],
                             np.arccos(np.clip(side[2], -1, 1)))
        reach = sizes[0, 1] + (sizes[0, 0] + sizes[1, 0]) * rng.uniform(0.8, 0.99)
        along = rot[:, 2] * rng.uniform(-1, 1) * sizes[1, 1]
        cases.append(case(m, sizes, [(side * reach + along, upright), (np.zeros(3), rot)], "tee"))
    write_cases(OUT, [], cases)


if __name__ == "__main__":
    main()
