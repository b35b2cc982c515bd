"""MuJoCo 4.0 statistics of the benchmark scenes whose runs diverge at rounding level, for the sim tests.

For each scene (default variant unless named), from keyframe 0 when the model has one: the mean contact count over
the run, the largest penetration over the run (max over contacts of -dist), the largest |qvel| at the last step,
and the mean solver iterations (summed over islands). Writes crates/sim/tests/data/scene_statistics.json with the
scene files' sha256. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_scene_statistics.py
"""
import hashlib
import json
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# (scene, steps): the pile's cost is in its settled heap, 1000 steps keep the test short.
SCENES = [("arm", 2000), ("chain", 2000), ("pyramid", 2000), ("pyramid__elliptic", 2000), ("pile", 1000)]


def statistics(scene, steps):
    path = ROOT.parent / "shared" / "scenes" / f"{scene}.xml"
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    ncon, niter, max_pen = 0.0, 0.0, 0.0
    for _ in range(steps):
        mujoco.mj_step(m, d)
        ncon += d.ncon
        niter += int(d.solver_niter[:max(1, d.nisland)].sum())
        if d.ncon:
            max_pen = max(max_pen, float(-d.contact.dist[:d.ncon].min()))
    return {
        "scene_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "steps": steps,
        "mean_ncon": ncon / steps,
        "max_penetration": max_pen,
        "max_abs_qvel_at_end": float(np.abs(d.qvel).max()),
        "mean_solver_iterations": niter / steps,
    }


def main():
    out = {"mujoco": mujoco.__version__, "scenes": {}}
    for scene, steps in SCENES:
        out["scenes"][scene] = statistics(scene, steps)
        print(scene, out["scenes"][scene])
    dest = ROOT / "crates/sim/tests/data/scene_statistics.json"
    dest.write_text(json.dumps(out, indent=1))
    print(f"wrote {dest}")


if __name__ == "__main__":
    main()
