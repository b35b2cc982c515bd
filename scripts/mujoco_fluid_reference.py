"""MuJoCo 4.0 on crates/sim/tests/data/fluid.xml (fluid forces: inertia-box and ellipsoid models, a mesh card, a
pendulum), for mujoco_parity_fluid in crates/sim/tests/scenes.rs.

Writes crates/sim/tests/data/fluid_reference.json: the compiled geom_fluid (interaction flag, five coefficients,
virtual mass and inertia per geom); for Euler, implicitfast and implicit, qpos and qfrc_fluid (the fluid forces
of the step's evaluation) after steps 1, 100, 250 and 500; and ("spin") qpos, qvel of tests/data/spin.xml (a free box
spinning in vacuum under implicitfast: the gyroscopic derivative of standalone free bodies) after steps 1, 50, 200;
and ("implicit") qpos, qvel of tests/data/implicit.xml after steps 1, 100, 300. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_fluid_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "fluid.xml"
STEPS = [1, 100, 250, 500]


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(), "runs": {},
           "geom_fluid": m.geom_fluid.tolist()}
    for name, integrator in [("Euler", mujoco.mjtIntegrator.mjINT_EULER),
                             ("implicitfast", mujoco.mjtIntegrator.mjINT_IMPLICITFAST),
                             ("implicit", mujoco.mjtIntegrator.mjINT_IMPLICIT)]:
        m.opt.integrator = integrator
        d = mujoco.MjData(m)
        snaps = {}
        for step in range(1, STEPS[-1] + 1):
            mujoco.mj_step(m, d)
            if step in STEPS:
                snaps[str(step)] = {"qpos": d.qpos.tolist(), "qfrc_fluid": d.qfrc_fluid.tolist()}
        out["runs"][name] = snaps
    spin = SCENE.with_name("spin.xml")
    m = mujoco.MjModel.from_xml_path(str(spin))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    snaps = {}
    for step in range(1, 201):
        mujoco.mj_step(m, d)
        if step in (1, 50, 200):
            snaps[str(step)] = {"qpos": d.qpos.tolist(), "qvel": d.qvel.tolist()}
    out["spin"] = snaps
    implicit = SCENE.with_name("implicit.xml")
    m = mujoco.MjModel.from_xml_path(str(implicit))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    snaps = {}
    for step in range(1, 301):
        mujoco.mj_step(m, d)
        if step in (1, 100, 300):
            snaps[str(step)] = {"qpos": d.qpos.tolist(), "qvel": d.qvel.tolist()}
    out["implicit"] = snaps
    out["implicit_sha256"] = hashlib.sha256(implicit.read_bytes()).hexdigest()
    out["spin_sha256"] = hashlib.sha256(spin.read_bytes()).hexdigest()
    target = SCENE.with_name("fluid_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
