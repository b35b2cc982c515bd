"""MuJoCo 4.0 reference runs of crates/sim/tests/data/actuators.xml (activation dynamics, affine gains), for the sim
tests.

Writes crates/sim/tests/data/actuators_reference.json: for the integrators Euler, implicitfast and RK4, from keyframe 0,
qpos, qvel, act and actuator_force at steps 1, 10, 100, 500 and 1000 of `mj_step`. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_actuator_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "actuators.xml"
STEPS = 1000
SNAPSHOTS = (1, 10, 100, 500, 1000)
INTEGRATORS = {"euler": mujoco.mjtIntegrator.mjINT_EULER, "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST,
               "rk4": mujoco.mjtIntegrator.mjINT_RK4}


def run(integrator):
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    m.opt.integrator = integrator
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    snaps = {}
    for k in range(1, STEPS + 1):
        mujoco.mj_step(m, d)
        if k in SNAPSHOTS:
            snaps[str(k)] = {f: getattr(d, f).tolist() for f in ("qpos", "qvel", "act", "actuator_force")}
    return snaps


def main():
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "steps": STEPS,
        "runs": {name: run(i) for name, i in INTEGRATORS.items()},
    }
    path = SCENE.parent / "actuators_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
