"""MuJoCo 4.0.1's `implicit` integrator on crates/sim/tests/data/implicit_tree.xml (chains of hinge, ball and slide
joints, a free body with a child, damping, velocity servos, a damped tendon across two trees) and implicit_stack.xml
(ten free boxes in contact, 60 dofs: a model MuJoCo keeps sparse), for mujoco_parity_implicit_bits in
crates/sim/tests/scenes.rs; and implicit.xml (fluid forces: the ellipsoid and inertia-box models) under Euler, for
mujoco_parity_fluid_bits; and implicit_tree.xml under implicitfast (its tendon damping and servos in MuJoCo's
qDeriv).

Writes crates/sim/tests/data/implicit_reference.json: per scene the sparsity of its velocity derivatives (MuJoCo's
dof-dof `D_rowadr`/`D_colind`/`D_diag` and body-dof `B_rowadr`/`B_colind`) and qpos, qvel after the listed steps.
Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_implicit_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

DATA = Path(__file__).resolve().parents[1] / "crates" / "sim" / "tests" / "data"
# name: (scene, integrator override or None, steps)
RUNS = {
    "implicit_tree": ("implicit_tree", None, 500),
    "implicit_stack": ("implicit_stack", None, 300),
    "implicitfast_tree": ("implicit_tree", "implicitfast", 500),
    "fluid_euler": ("implicit", "Euler", 300),
}


def main():
    out = {"mujoco": mujoco.__version__}
    for name, (scene, integrator, steps) in RUNS.items():
        path = DATA / f"{scene}.xml"
        m = mujoco.MjModel.from_xml_path(str(path))
        if integrator is not None:
            m.opt.integrator = getattr(mujoco.mjtIntegrator, f"mjINT_{integrator.upper()}")
        d = mujoco.MjData(m)
        if m.nkey:
            mujoco.mj_resetDataKeyframe(m, d, 0)
        run = {
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "D_rowadr": m.D_rowadr.tolist(), "D_colind": m.D_colind.tolist(), "D_diag": m.D_diag.tolist(),
            "B_rowadr": m.B_rowadr.tolist(), "B_colind": m.B_colind.tolist(),
            "steps": {},
        }
        marks = {1, 2, 10, 50, 100, steps // 2, steps}
        for step in range(1, steps + 1):
            mujoco.mj_step(m, d)
            if step in marks:
                run["steps"][str(step)] = {"ncon": int(d.ncon), "qpos": d.qpos.tolist(), "qvel": d.qvel.tolist()}
        out[name] = run
    target = DATA / "implicit_reference.json"
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
