"""MuJoCo 4.0 on crates/sim/tests/data/transmissions.xml (slider-crank, site and reference-site transmissions, a
cylinder, dampratio servos), for mujoco_parity_transmissions in crates/sim/tests/scenes.rs.

Writes crates/sim/tests/data/transmissions_reference.json: the compiled actuator_biasprm[:, 2] (dampratio resolved),
and from keyframe 0 (its controls), qpos, actuator_length, actuator_velocity and actuator_force after steps 1, 50,
150 and 300 (Euler). Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_transmission_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

from mujoco_reference_run import snapshots

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "transmissions.xml"
STEPS = [1, 50, 150, 300]


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    snaps, _ = snapshots(mujoco, m, STEPS, lambda d: {
        "qpos": d.qpos.tolist(),
        "actuator_length": d.actuator_length.tolist(),
        "actuator_velocity": d.actuator_velocity.tolist(),
        "actuator_force": d.actuator_force.tolist(),
    })
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "biasprm2": m.actuator_biasprm[:, 2].tolist(),
        "steps": snaps,
    }
    target = SCENE.with_name("transmissions_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
