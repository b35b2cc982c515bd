"""A MuJoCo 4.0 reference run of crates/sim/tests/data/noslip.xml (the no-slip post-process), for the sim tests.

Writes crates/sim/tests/data/noslip_reference.json: for noslip_iterations 10 (the file's value) and 0, the qpos
and the contact count at steps 100, 500 and 1000, and the mean number of no-slip sweeps per step (summed over
islands: the entries of MuJoCo's per-island solver statistics that the no-slip pass wrote, which have no line-search
evaluations and no gradient); and under `variants` the same snapshots of no-slip after the PGS and the CG solver,
without islands and with the elliptic cone. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_noslip_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "noslip.xml"
STEPS = 1000
SNAPSHOTS = (100, 500, 1000)


def run(noslip_iterations, solver=None, islands=True, cone=None):
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    m.opt.noslip_iterations = noslip_iterations
    if cone is not None:
        m.opt.cone = cone
    if solver is not None:
        m.opt.solver = solver
    if not islands:
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_ISLAND
    d = mujoco.MjData(m)
    snaps, sweeps = {}, 0
    for k in range(1, STEPS + 1):
        mujoco.mj_step(m, d)
        for island in range(max(1, d.nisland)):
            n = min(int(d.solver_niter[island]), mujoco.mjNSOLVER)
            stats = [d.solver[island * mujoco.mjNSOLVER + i] for i in range(n)]
            sweeps += sum(1 for s in stats if s.neval == 0 and s.gradient == 0)
        if k in SNAPSHOTS:
            snaps[str(k)] = {"ncon": int(d.ncon), "qpos": d.qpos.tolist()}
    return {"snapshots": snaps, "mean_noslip_sweeps": sweeps / STEPS}


def main():
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "steps": STEPS,
        "noslip": run(10),
        "plain": run(0),
        "variants": {
            "pgs": run(10, solver=mujoco.mjtSolver.mjSOL_PGS)["snapshots"],
            "cg": run(10, solver=mujoco.mjtSolver.mjSOL_CG)["snapshots"],
            "no_islands": run(10, islands=False)["snapshots"],
            "elliptic": run(10, cone=mujoco.mjtCone.mjCONE_ELLIPTIC)["snapshots"],
        },
    }
    path = SCENE.parent / "noslip_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
