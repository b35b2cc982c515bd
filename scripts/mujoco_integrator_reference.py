"""MuJoCo 4.0 reference runs of crates/sim/tests/data/rk4.xml (the RK4 integrator), for the sim tests.

Writes crates/sim/tests/data/rk4_reference.json with, from keyframe 0, the contact count, qpos and qvel at steps 1, 10,
52, 100, 400 and 1000 of two runs:

* `mj_step`: MuJoCo's own RK4 step.
* `stages`: the classical RK4 tableau that MuJoCo documents (`mj_RungeKutta`: evaluation i at x0 (+) h*sum_j A_ij f_j,
  the step x0 (+) h*sum_j b_j f_j, positions by `mj_integratePos`), with every evaluation f = (qvel, qacc) a plain
  `mj_forward` of MuJoCo 4.0 at the stage's state.

The two agree to 1e-14 while nothing touches, then part by about 1e-5 at the box's first contact (step 52): in MuJoCo
4.0's step the last evaluation of a step where a contact is new gives a slightly different acceleration than
`mj_forward` at the same state (its source is not public; the published 3.12 source is the tableau above). Needs
`pip install mujoco`.

Usage: python3 scripts/mujoco_integrator_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "rk4.xml"
STEPS = 1000
SNAPSHOTS = (1, 10, 52, 100, 400, 1000)
A = ((0.5,), (0.0, 0.5), (0.0, 0.0, 1.0))
B = (1 / 6, 1 / 3, 1 / 3, 1 / 6)


def staged_step(m, d, scratch):
    """One RK4 step of `d` by the documented tableau, each evaluation an `mj_forward` on `scratch`."""
    h = m.opt.timestep
    q0, v0 = d.qpos.copy(), d.qvel.copy()
    scratch.qpos[:], scratch.qvel[:], scratch.time = q0, v0, d.time
    scratch.qacc_warmstart[:], scratch.ctrl[:] = d.qacc_warmstart, d.ctrl
    mujoco.mj_forward(m, scratch)
    vel, acc = [v0.copy()], [scratch.qacc.copy()]
    for i in range(1, 4):
        dv = sum(a * vel[j] for j, a in enumerate(A[i - 1]))
        da = sum(a * acc[j] for j, a in enumerate(A[i - 1]))
        q = q0.copy()
        mujoco.mj_integratePos(m, q, dv, h)
        scratch.qpos[:], scratch.qvel[:] = q, v0 + h * da
        scratch.time = d.time + sum(A[i - 1]) * h
        mujoco.mj_forward(m, scratch)
        vel.append(scratch.qvel.copy())
        acc.append(scratch.qacc.copy())
    dv = sum(b * v for b, v in zip(B, vel))
    da = sum(b * a for b, a in zip(B, acc))
    q = q0.copy()
    mujoco.mj_integratePos(m, q, dv, h)
    d.qpos[:], d.qvel[:], d.time = q, v0 + h * da, d.time + h
    d.qacc_warmstart[:] = acc[3]
    return scratch.ncon


def run(staged):
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
    d, scratch = mujoco.MjData(m), mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    snaps = {}
    for k in range(1, STEPS + 1):
        if staged:
            ncon = staged_step(m, d, scratch)
        else:
            mujoco.mj_step(m, d)
            ncon = d.ncon
        if k in SNAPSHOTS:
            snaps[str(k)] = {"ncon": int(ncon), "qpos": d.qpos.tolist(), "qvel": d.qvel.tolist()}
    return snaps


def main():
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "steps": STEPS,
        "mj_step": run(False),
        "stages": run(True),
    }
    path = SCENE.parent / "rk4_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
