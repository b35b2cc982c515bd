"""MuJoCo 4.0's sleep states on crates/sim/tests/data/sleep.xml (body `sleep` policies), for crates/sim/tests/hibernation.rs.

Writes crates/sim/tests/data/sleep_reference.json: per tree (bodies floating, restless, auto, driven, allowed) the
first step after which it is asleep (null if never within 500 steps) and whether it is asleep at step 500, and qpos at
step 500. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_sleep_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "sleep.xml"


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    d = mujoco.MjData(m)
    first = [None] * m.ntree
    asleep0 = [bool(x >= 0) for x in d.tree_asleep]
    for step in range(1, 501):
        mujoco.mj_step(m, d)
        for t in range(m.ntree):
            if d.tree_asleep[t] >= 0 and first[t] is None:
                first[t] = step
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "asleep_at_start": asleep0,
        "first_asleep": first,
        "asleep_at_end": [bool(x >= 0) for x in d.tree_asleep],
        "qpos": d.qpos.tolist(),
    }
    target = SCENE.with_name("sleep_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}: {out['first_asleep']}, {out['asleep_at_end']}")


if __name__ == "__main__":
    main()
