"""MuJoCo 4.0 on crates/sim/tests/data/adhesion.xml (geom adhesion on resting and pushed boxes, an adhesive ball held
in the gap band, a plain ball in the gap band, adhesion actuators), for mujoco_parity_adhesion in
crates/sim/tests/scenes.rs.

Writes crates/sim/tests/data/adhesion_reference.json: for the pyramidal (the file's) and the elliptic cone, from
keyframe 0, ncon, qpos, qvel, qfrc_adhesion, actuator_velocity, actuator_force and sensordata (touch, accelerometer: the net forces) after steps 1, 10, 100 and 300,
and the dense moments of the adhesion actuators after step 1. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_adhesion_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "adhesion.xml"
STEPS = [1, 10, 100, 300]


def moments(m, d):
    out = np.zeros((m.nu, m.nv))
    for i in range(m.nu):
        a, n = d.moment_rowadr[i], d.moment_rownnz[i]
        out[i, d.moment_colind[a:a + n]] = d.actuator_moment[a:a + n]
    return out.tolist()


def run(m):
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    snaps = {}
    for step in range(1, STEPS[-1] + 1):
        mujoco.mj_step(m, d)
        if step in STEPS:
            snaps[str(step)] = {
                "ncon": int(d.ncon),
                "qpos": d.qpos.tolist(),
                "qvel": d.qvel.tolist(),
                "qfrc_adhesion": d.qfrc_adhesion.tolist(),
                "actuator_velocity": d.actuator_velocity.tolist(),
                "actuator_force": d.actuator_force.tolist(),
                "sensordata": d.sensordata.tolist(),
            }
            if step == 1:
                # The moments of the contacts found at this step's start, as the step used them.
                snaps[str(step)]["moment"] = moments(m, d)
    return snaps


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest()}
    out["pyramidal"] = run(m)
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    out["elliptic"] = run(m)
    target = SCENE.with_name("adhesion_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
