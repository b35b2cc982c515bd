"""MuJoCo 4.0's PGS solver on crates/sim/tests/data/pgs.xml (joint and tendon limits, friction loss, joint and
connect equalities, a sliding and spinning ball; per island), for mujoco_parity_pgs in crates/sim/tests/scenes.rs.
The PCG32 constants of the unit test in crates/solver/src/pgs.rs come from the generator below (`pcg32_outputs`).

Writes crates/sim/tests/data/pgs_reference.json: for the pyramidal (the file's) and the elliptic cone, from
keyframe 0, ncon, qpos, qvel, qfrc_adhesion, actuator_velocity and actuator_force after steps 1, 10, 100 and 300;
and crates/sim/tests/data/pgs_sparse_reference.json, the same of pgs_sparse.xml (66 dofs, a model MuJoCo keeps
sparse: ten boxes tethered to a free hub by limited spatial tendons wrapping around it, falling onto a frictionless
floor) after steps 1, 10, 100, 250 and 400. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_pgs_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

from mujoco_reference_run import snapshots

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "pgs.xml"
SPARSE = SCENE.with_name("pgs_sparse.xml")
STEPS = [1, 10, 100, 300]
SPARSE_STEPS = [1, 10, 100, 250, 400]


def run(m, steps=STEPS):
    snaps, _ = snapshots(mujoco, m, steps, lambda d: {
        "ncon": int(d.ncon),
        "qpos": d.qpos.tolist(),
        "qvel": d.qvel.tolist(),
        "qfrc_adhesion": d.qfrc_adhesion.tolist(),
        "actuator_velocity": d.actuator_velocity.tolist(),
        "actuator_force": d.actuator_force.tolist(),
    })
    return snaps


def pcg32_outputs():
    """MuJoCo's PCG32 (state 0, increment 1, one advance): its first four outputs and two shuffles of ten blocks."""
    mask = (1 << 64) - 1
    state = [0]

    def nxt():
        old = state[0]
        state[0] = (old * 6364136223846793005 + 1) & mask
        x = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        rot = old >> 59
        return ((x >> rot) | (x << ((-rot) & 31))) & 0xFFFFFFFF

    nxt()
    first = [nxt() for _ in range(4)]
    state[0] = 0
    nxt()
    a = list(range(10))
    for _ in range(2):
        for i in range(len(a) - 1, 0, -1):
            j = nxt() % (i + 1)
            a[i], a[j] = a[j], a[i]
    return first, a


def main():
    print("pcg32:", pcg32_outputs())
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest()}
    out["pyramidal"] = run(m)
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    out["elliptic"] = run(m)
    target = SCENE.with_name("pgs_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")
    m = mujoco.MjModel.from_xml_path(str(SPARSE))
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(SPARSE.read_bytes()).hexdigest()}
    out["pyramidal"] = run(m, SPARSE_STEPS)
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    out["elliptic"] = run(m, SPARSE_STEPS)
    target = SPARSE.with_name("pgs_sparse_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
