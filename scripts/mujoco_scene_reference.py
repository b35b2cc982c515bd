"""A MuJoCo 4.0 reference run of a benchmark scene, for the sim tests.

Writes crates/sim/tests/data/<scene>_reference.json: the scene file's sha256, ncon and free-body qpos at steps 100,
200, 500, 1000 and 2000, the mean contact count and mean solver iterations (summed over islands) over 2000 steps, and
MuJoCo's own spread over three runs from starts perturbed by ±1e-9 m: the largest free-body position change at those
steps, the range of ncon there (nominal run included), and the range of the mean ncon. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_scene_reference.py SCENE   (e.g. convex__noisland: a scene of ../shared/scenes)
       python3 scripts/mujoco_scene_reference.py PATH.xml (e.g. crates/cli/scenes/terrain.xml: writes <stem>_reference.json)
"""
import hashlib
import json
import sys
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
STEPS = 2000
SNAPSHOTS = (100, 200, 500, 1000, 2000)


def free_qpos(m, d):
    return [d.qpos[m.jnt_qposadr[j]:m.jnt_qposadr[j] + 7].tolist() for j in range(m.njnt) if m.jnt_type[j] == 0]


def run(m, perturbation=0.0, seed=0):
    d = mujoco.MjData(m)
    rng = np.random.default_rng(seed)
    if perturbation:
        for j in range(m.njnt):
            if m.jnt_type[j] == 0:
                a = m.jnt_qposadr[j]
                d.qpos[a:a + 3] += rng.choice([-perturbation, perturbation], 3)
    snaps, ncon, niter = {}, 0, 0
    for k in range(1, STEPS + 1):
        mujoco.mj_step(m, d)
        ncon += d.ncon
        niter += int(d.solver_niter[:max(1, d.nisland)].sum())
        if k in SNAPSHOTS:
            snaps[str(k)] = {"ncon": int(d.ncon), "qpos_free": free_qpos(m, d)}
    return snaps, ncon / STEPS, niter / STEPS


def main():
    scene = sys.argv[1]
    path = ROOT.parent / "shared" / "scenes" / f"{scene}.xml"
    if scene.endswith(".xml"):
        path = (Path.cwd() / scene).resolve()
        scene = path.stem
    m = mujoco.MjModel.from_xml_path(str(path))
    snaps, mean_ncon, mean_iter = run(m)
    spread = {k: 0.0 for k in snaps}
    ncon_range = {k: [snaps[k]["ncon"], snaps[k]["ncon"]] for k in snaps}
    mean_range = [mean_ncon, mean_ncon]
    for seed in range(3):
        other, other_mean, _ = run(m, 1e-9, seed)
        mean_range = [min(mean_range[0], other_mean), max(mean_range[1], other_mean)]
        for k in snaps:
            a = np.array(snaps[k]["qpos_free"])[:, :3]
            b = np.array(other[k]["qpos_free"])[:, :3]
            spread[k] = max(spread[k], float(np.abs(a - b).max()))
            n = other[k]["ncon"]
            ncon_range[k] = [min(ncon_range[k][0], n), max(ncon_range[k][1], n)]
    out = {
        "mujoco": mujoco.__version__,
        "scene": scene,
        "scene_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "steps": STEPS,
        "snapshots": snaps,
        "mean_ncon": mean_ncon,
        "mean_solver_iterations": mean_iter,
        "perturbation_spread": spread,
        "perturbation_ncon": ncon_range,
        "perturbation_mean_ncon": mean_range,
    }
    dest = ROOT / "crates/sim/tests/data" / f"{scene}_reference.json"
    dest.write_text(json.dumps(out, indent=1))
    print(f"wrote {dest}: mean ncon {mean_ncon:.4f}, mean iterations {mean_iter:.4f}, spread {spread}")


if __name__ == "__main__":
    main()
