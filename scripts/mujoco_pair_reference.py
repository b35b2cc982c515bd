"""MuJoCo 4.0 on crates/sim/tests/data/contact_pairs.xml (explicit contact pairs: their own parameters, replacing a
dynamic pair, bringing back excluded and parent-child pairs), for mujoco_parity_contact_pairs in
crates/sim/tests/scenes.rs.

Writes crates/sim/tests/data/contact_pairs_reference.json: for the pyramidal (the file's) and the elliptic cone, from
keyframe 0, ncon, qpos, qvel, qfrc_adhesion, actuator_velocity and actuator_force after steps 1, 10, 100 and 300. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_pair_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

from mujoco_reference_run import snapshots

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "contact_pairs.xml"
STEPS = [1, 10, 100, 300]


def run(m):
    snaps, _ = snapshots(mujoco, m, STEPS, lambda d: {
        "ncon": int(d.ncon),
        "qpos": d.qpos.tolist(),
        "qvel": d.qvel.tolist(),
        "qfrc_adhesion": d.qfrc_adhesion.tolist(),
        "actuator_velocity": d.actuator_velocity.tolist(),
        "actuator_force": d.actuator_force.tolist(),
    })
    return snaps


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest()}
    out["pyramidal"] = run(m)
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    out["elliptic"] = run(m)
    target = SCENE.with_name("contact_pairs_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
