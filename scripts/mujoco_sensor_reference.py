"""MuJoCo 4.0's sensordata on crates/sim/tests/data/sensors.xml (every sensor signorini computes), for
crates/sim/tests/sensors.rs.

Writes crates/sim/tests/data/sensors_reference.json: the sensor names, types and addresses, and for three runs
(Euler with pyramidal cones, implicitfast with elliptic cones, RK4 with pyramidal cones), from keyframe 0 (its
controls), sensordata and qpos after steps 1, 2, 50, 100, 150 and 300. After mj_step, sensordata describes the state the
step started from. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_sensor_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

from mujoco_reference_run import snapshots

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "sensors.xml"
STEPS = [1, 2, 50, 100, 150, 300]
RUNS = {
    "euler_pyramidal": (mujoco.mjtIntegrator.mjINT_EULER, mujoco.mjtCone.mjCONE_PYRAMIDAL),
    "implicitfast_elliptic": (mujoco.mjtIntegrator.mjINT_IMPLICITFAST, mujoco.mjtCone.mjCONE_ELLIPTIC),
    "rk4_pyramidal": (mujoco.mjtIntegrator.mjINT_RK4, mujoco.mjtCone.mjCONE_PYRAMIDAL),
}


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "sensors": [
            {"name": mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_SENSOR, i) or "", "type": int(m.sensor_type[i]),
             "adr": int(m.sensor_adr[i]), "dim": int(m.sensor_dim[i])}
            for i in range(m.nsensor)
        ],
        "nsensordata": m.nsensordata,
        "runs": {},
    }
    for name, (integrator, cone) in RUNS.items():
        m.opt.integrator = integrator
        m.opt.cone = cone
        snaps, _ = snapshots(mujoco, m, STEPS, lambda d: {
            "sensordata": d.sensordata.tolist(),
            "qpos": d.qpos.tolist(),
            "ncon": int(d.ncon),
        })
        out["runs"][name] = snaps
    target = SCENE.with_name("sensors_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
