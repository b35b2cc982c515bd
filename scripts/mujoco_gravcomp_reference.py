"""A MuJoCo 4.0 reference run of crates/sim/tests/data/gravcomp.xml (gravity compensation), for the sim tests.

Writes crates/sim/tests/data/gravcomp_reference.json: at the keyframe, qfrc_gravcomp, qfrc_passive and qfrc_actuator
after `mj_forward`; then, from the keyframe, the contact count, qpos and qvel at steps 1, 100, 250, 500 and 1000 of
`mj_step`. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_gravcomp_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "gravcomp.xml"
STEPS = 1000
SNAPSHOTS = (1, 100, 250, 500, 1000)


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    forces = {k: getattr(d, k).tolist() for k in ("qfrc_gravcomp", "qfrc_passive", "qfrc_actuator")}
    snaps = {}
    for k in range(1, STEPS + 1):
        mujoco.mj_step(m, d)
        if k in SNAPSHOTS:
            snaps[str(k)] = {"ncon": int(d.ncon), "qpos": d.qpos.tolist(), "qvel": d.qvel.tolist()}
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "forces_at_keyframe": forces,
        "steps": STEPS,
        "snapshots": snaps,
    }
    path = SCENE.parent / "gravcomp_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
