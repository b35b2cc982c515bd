"""MuJoCo 4.0's run of crates/sim/tests/data/cg_light_bodies.xml (CG at tolerance 1e-6, light thin plates in
contact), with Euler (joint damping integrated implicitly) and implicitfast, for the sim tests.

Writes crates/sim/tests/data/cg_light_bodies_reference.json: per integrator, `qpos` and `ncon` every 25 steps over
300 steps. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_cg_light_bodies.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "cg_light_bodies.xml"
STEPS = 300


def main():
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(), "runs": {}}
    for name, integrator in [("Euler", mujoco.mjtIntegrator.mjINT_EULER),
                             ("implicitfast", mujoco.mjtIntegrator.mjINT_IMPLICITFAST)]:
        m = mujoco.MjModel.from_xml_path(str(SCENE))
        m.opt.integrator = integrator
        d = mujoco.MjData(m)
        snaps = {}
        for k in range(1, STEPS + 1):
            mujoco.mj_step(m, d)
            if k % 25 == 0:
                snaps[str(k)] = {"qpos": d.qpos.tolist(), "ncon": int(d.ncon)}
        out["runs"][name] = snaps
    path = SCENE.with_name("cg_light_bodies_reference.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
