#!/usr/bin/env python3
"""MuJoCo 4.0.1's runs of the small test scenes, for the bit-for-bit census test (`crates/sim/tests/mujoco_bits.rs`).

Each scene of `crates/sim/tests/data/` listed below is stepped by `mj_step` from keyframe 0 (or the default state),
as `scripts/mujoco_divergence.py` steps it, and its `qpos`, `qvel` and contact count are written after the listed
steps. The test replays every scene in MuJoCo-compatible mode and asks for those values bit for bit: the scenes that
follow MuJoCo over all 1000 steps at steps 1, 250 and 1000, and the two that part later in a run at the last step
both their `qpos` and `qvel` still equal MuJoCo's (found with `mujoco_divergence.py --steps 1000 --quiet`), so that
the test fails when a change moves any scene's frontier back.

    python3 scripts/mujoco_bits_reference.py   # writes crates/sim/tests/data/mujoco_bits_reference.json

Needs `pip install mujoco==4.0.1`. Reference tooling only; the library never depends on MuJoCo.
"""

import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "crates/sim/tests/data"

# Scenes bit for bit over their 1000 steps.
WHOLE = [
    "actuators", "adhesion", "ball_limit", "capsule_plane", "cg_light_bodies", "cradle", "flags", "gravcomp",
    "implicit_stack", "implicit_tree", "limit_margin", "margin", "mocap", "muscles", "noslip", "pair_order",
    "flat_mesh", "pair_twice", "pgs", "pgs_sparse",
    "rangefinder", "rk4", "rk4_rotations", "rolling_condim", "sensors", "sensors_sparse", "sleep", "sleep_mocap",
    "sleep_wake", "slider_crank", "spatial_tendon", "spin", "surfacevel", "tendon", "tendon_equality",
    "tendon_wrap", "tolerance_zero", "transmissions", "tumble",
]
# Scenes that part later, with the last step at which both `qpos` and `qvel` are MuJoCo's (stop 62, 2026-12-06).
PARTIAL = {"contact_pairs": 509, "implicit": 7}


def run(scene, steps):
    m = mujoco.MjModel.from_xml_path(str(DATA / f"{scene}.xml"))
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    out = []
    for k in range(1, max(steps) + 1):
        mujoco.mj_step(m, d)
        if k in steps:
            out.append({"step": k, "qpos": d.qpos.tolist(), "qvel": d.qvel.tolist(), "ncon": int(d.ncon)})
    return out


def main():
    reference = {"mujoco_version": mujoco.__version__, "scenes": {}}
    for scene in WHOLE:
        reference["scenes"][scene] = run(scene, (1, 250, 1000))
    for scene, last in PARTIAL.items():
        reference["scenes"][scene] = run(scene, (1, last))
    dest = DATA / "mujoco_bits_reference.json"
    dest.write_text(json.dumps(reference, indent=0))
    print(f"wrote {dest} ({len(reference['scenes'])} scenes)")


if __name__ == "__main__":
    main()
