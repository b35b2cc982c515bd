"""MuJoCo 4.0's sleep states on two scenes of crates/sim/tests/data, for crates/sim/tests/hibernation.rs.

- sleep.xml (body `sleep` policies), from qpos0 for 500 steps;
- sleep_wake.xml (a box asleep from the reset, touched by a slow one), from keyframe 0 for 40 steps;
- sleep_mocap.xml (a box asleep from the reset, pushed by a mocap box moved 1 mm a step), for 200 steps.

Writes SCENE_reference.json beside each: per tree the first step after which it is asleep (null if never) and
whether it is asleep at the start and at the end, the contact count and the number of sleeping trees of every step,
`qacc_warmstart` at the listed steps (its sleeping trees' entries are MuJoCo's, not zero), and qpos at the end; for
sleep_wake.xml also the normal forces of every step's contacts (`mj_contactForce`, ascending).
Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_sleep_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco
import numpy as np

DATA = Path(__file__).resolve().parents[1] / "crates" / "sim" / "tests" / "data"


def reference(scene, keyframe, steps, warmstart_steps, forces=False, mocap=None):
    m = mujoco.MjModel.from_xml_path(str(scene))
    d = mujoco.MjData(m)
    if keyframe is not None:
        mujoco.mj_resetDataKeyframe(m, d, keyframe)
    first = [None] * m.ntree
    asleep0 = [bool(x >= 0) for x in d.tree_asleep]
    ncon, nasleep, normal, warmstart = [], [], [], {}
    f = np.zeros(6)
    mocap_pos = []
    for step in range(1, steps + 1):
        if mocap is not None:
            d.mocap_pos[0] = mocap(step)
            mocap_pos.append(d.mocap_pos[0].tolist())
        mujoco.mj_step(m, d)
        ncon.append(int(d.ncon))
        nasleep.append(int((d.tree_asleep >= 0).sum()))
        step_normal = []
        for k in range(d.ncon):
            mujoco.mj_contactForce(m, d, k, f)
            step_normal.append(float(f[0]))
        normal.append(sorted(step_normal))
        if step in warmstart_steps:
            warmstart[str(step)] = d.qacc_warmstart.tolist()
        for t in range(m.ntree):
            if d.tree_asleep[t] >= 0 and first[t] is None:
                first[t] = step
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(scene.read_bytes()).hexdigest(),
        "keyframe": keyframe,
        "asleep_at_start": asleep0,
        "first_asleep": first,
        "asleep_at_end": [bool(x >= 0) for x in d.tree_asleep],
        "ncon": ncon,
        "nasleep": nasleep,
        "qacc_warmstart": warmstart,
        "qpos": d.qpos.tolist(),
    }
    if forces:
        out["normal_force"] = normal
    if mocap is not None:
        out["mocap_pos"] = mocap_pos
    target = scene.with_name(scene.stem + "_reference.json")
    target.write_text("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in out.items()) + "\n}\n")
    print(f"wrote {target}: {out['first_asleep']}, {out['asleep_at_end']}")


def main():
    reference(DATA / "sleep.xml", None, 500, [1, 9, 10, 63, 64, 65, 500])
    reference(DATA / "sleep_wake.xml", 0, 40, range(1, 41), forces=True)
    reference(DATA / "sleep_mocap.xml", None, 200, [99, 100, 101, 200], mocap=lambda step: [-0.2 + 0.001 * step, 0, 0.05])


if __name__ == "__main__":
    main()
