"""MuJoCo 4.0.1 reference runs of its CG solver on models it keeps sparse, for the sim tests.

Writes crates/sim/tests/data/sparse_cg_reference.json with, for `../shared/scenes/box_stack__cg.xml` (ten boxes,
60 dofs) and `pyramid__cg.xml` (55 boxes, 330 dofs), from the default state, the contact count, `qpos` and `qvel` after
`mj_step` at a few steps, to the bit (JSON numbers written with Python's shortest round-trip repr). Both models are
sparse in MuJoCo (`mj_isSparse`: 60 dofs or more), so its CG iteration runs on the sparse `J` and `Jᵀ`; the box stack
is chaotic (a 1e-9 m perturbation moves it by 3e-4 m at step 100), so only the same arithmetic follows it. The third
run is `box_stack__elliptic.xml` with its solver set to CG (`"solver": "cg"` in its entry; the tests set the same
option): elliptic cones in the CG iteration, which keeps no cone Hessians.

The script refuses any MuJoCo but 4.0.1. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_sparse_cg_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENES_DIR = ROOT.parent / "shared" / "scenes"
OUT = ROOT / "crates" / "sim" / "tests" / "data" / "sparse_cg_reference.json"
SCENES = {
    "box_stack__cg": ((1, 8, 100, 500, 1000), None),
    "pyramid__cg": ((1, 8, 50, 150), None),
    "box_stack__elliptic": ((1, 8, 100, 300), "cg"),
}


def main():
    if mujoco.__version__ != "4.0.1":
        raise SystemExit(f"needs MuJoCo 4.0.1 (found {mujoco.__version__})")
    out = {"mujoco": mujoco.__version__, "scenes": {}}
    for name, (steps, solver) in SCENES.items():
        path = SCENES_DIR / f"{name}.xml"
        m = mujoco.MjModel.from_xml_path(str(path))
        if solver == "cg":
            m.opt.solver = mujoco.mjtSolver.mjSOL_CG
        assert mujoco.mj_isSparse(m) and m.opt.solver == mujoco.mjtSolver.mjSOL_CG
        d = mujoco.MjData(m)
        snaps = {}
        for k in range(1, max(steps) + 1):
            mujoco.mj_step(m, d)
            if k in steps:
                snaps[str(k)] = {"ncon": int(d.ncon), "qpos": d.qpos.tolist(), "qvel": d.qvel.tolist()}
        out["scenes"][name] = {
            "scene_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "solver": solver,
            "mj_step": snaps,
        }
    OUT.write_text(json.dumps(out))
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
