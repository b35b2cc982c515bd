"""MuJoCo 4.0's site rangefinders on crates/sim/tests/data/rangefinder.xml (rays onto a bounded plane, a height field,
a mesh, primitives, the arm's own parent; an invisible geom and a transparent material skipped; misses; a cutoff), for
mujoco_parity_rangefinder in crates/sim/tests/scenes.rs.

Writes crates/sim/tests/data/rangefinder_reference.json: from keyframe 0, qpos and sensordata after every 10th step up
to 500. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_rangefinder_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "rangefinder.xml"


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    snaps = {}
    for step in range(1, 501):
        mujoco.mj_step(m, d)
        if step % 10 == 0:
            snaps[str(step)] = {"qpos": d.qpos.tolist(), "sensordata": d.sensordata.tolist()}
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "steps": snaps,
    }
    target = SCENE.with_name("rangefinder_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
