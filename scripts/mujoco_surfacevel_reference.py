"""MuJoCo 4.0 on crates/sim/tests/data/surfacevel.xml (geom surfacevel: a conveyor, a turntable, rollers), for
mujoco_parity_surfacevel in crates/sim/tests/scenes.rs.

Writes crates/sim/tests/data/surfacevel_reference.json: for pyramidal and elliptic cones, qpos and qvel after steps 1,
100, 300 and 600. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_surfacevel_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "surfacevel.xml"
STEPS = [1, 100, 300, 600]


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(), "runs": {}}
    for name, cone in [("pyramidal", mujoco.mjtCone.mjCONE_PYRAMIDAL), ("elliptic", mujoco.mjtCone.mjCONE_ELLIPTIC)]:
        m.opt.cone = cone
        d = mujoco.MjData(m)
        snaps = {}
        for step in range(1, STEPS[-1] + 1):
            mujoco.mj_step(m, d)
            if step in STEPS:
                snaps[str(step)] = {"qpos": d.qpos.tolist(), "qvel": d.qvel.tolist(), "ncon": int(d.ncon)}
        out["runs"][name] = snaps
    target = SCENE.with_name("surfacevel_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
