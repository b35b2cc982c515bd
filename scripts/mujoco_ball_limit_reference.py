"""A MuJoCo 4.0 reference run of crates/sim/tests/data/ball_limit.xml (ball joints with cone limits), for the sim
tests.

Writes crates/sim/tests/data/ball_limit_reference.json: from the keyframe, at the listed steps of `mj_step`, the number
of joint-limit rows (`efc_type == mjCNSTR_LIMIT_JOINT`), their `efc_pos`, and qpos and qvel. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_ball_limit_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

from mujoco_reference_run import snapshots

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "ball_limit.xml"
STEPS = (1, 25, 50, 100, 200, 300, 500, 750, 1000)


def record(d):
    limits = [i for i, t in enumerate(d.efc_type) if t == mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT]
    return {
        "nlimit": len(limits),
        "limit_id": [int(d.efc_id[i]) for i in limits],
        "limit_pos": [float(d.efc_pos[i]) for i in limits],
        "qpos": d.qpos.tolist(),
        "qvel": d.qvel.tolist(),
    }


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    snaps, _ = snapshots(mujoco, m, STEPS, record)
    hits = sum(1 for s in snaps.values() if s["nlimit"])
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "snapshots": snaps,
    }
    path = SCENE.parent / "ball_limit_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: limit rows at {hits} of {len(snaps)} snapshots")


if __name__ == "__main__":
    main()
