#!/usr/bin/env python3
"""Statistics of a chaotic MuJoCo scene over an ensemble of runs whose free-body start positions are perturbed.

For scenes whose trajectory MuJoCo itself does not reproduce under a 1e-9 m perturbation (the `perturbation_divergence`
of `../shared/testdata/mujoco/`), one run's statistics are one draw among several regimes (a CG box stack that rocks
or one that settles). This script runs the scene `--trials` times from keyframe 0 (or the default state): trial 0
unperturbed, the others with every free-joint position coordinate moved by ±1e-9 m (seeded), 2000 steps each, and
writes per-trial statistics and their range as JSON:

    python3 scripts/mujoco_ensemble.py ../shared/scenes/box_stack__cg.xml --trials 20 \
        > crates/sim/tests/data/box_stack__cg_ensemble.json

Needs `pip install mujoco` (4.0). Benchmark/reference tooling only; the library never depends on MuJoCo.
"""

import argparse
import hashlib
import json

import mujoco
import numpy as np


def run(model, perturb, rng, steps):
    data = mujoco.MjData(model)
    if model.nkey:
        mujoco.mj_resetDataKeyframe(model, data, 0)
    if perturb:
        for j in range(model.njnt):
            if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
                a = model.jnt_qposadr[j]
                data.qpos[a : a + 3] += rng.choice([-1e-9, 1e-9], 3)
    ncon = niter = pen = 0.0
    for _ in range(steps):
        mujoco.mj_step(model, data)
        ncon += data.ncon
        niter += data.solver_niter[0]
        if data.ncon:
            pen = max(pen, -float(np.min(data.contact.dist[: data.ncon])))
    return {
        "ncon_mean": ncon / steps,
        "solver_niter_mean": niter / steps,
        "max_penetration": pen,
        "max_abs_qvel_at_end": float(np.abs(data.qvel).max()),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scene")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    model = mujoco.MjModel.from_xml_path(args.scene)
    rng = np.random.default_rng(args.seed)
    trials = [run(model, t > 0, rng, args.steps) for t in range(args.trials)]
    keys = trials[0].keys()
    out = {
        "scene": args.scene.split("/")[-1],
        "scene_sha256": hashlib.sha256(open(args.scene, "rb").read()).hexdigest(),
        "mujoco_version": mujoco.__version__,
        "steps": args.steps,
        "perturbation_m": 1e-9,
        "seed": args.seed,
        "range": {k: [min(t[k] for t in trials), max(t[k] for t in trials)] for k in keys},
        "trials": trials,
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
