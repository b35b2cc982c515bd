#!/usr/bin/env python3
"""Where a scene's trajectory parts from MuJoCo's: `mj_step` and `signorini run --mujoco-compat` side by side.

Runs the scene in MuJoCo 4.0 and in signorini's release CLI from keyframe 0 (or the default state), and prints per
step the largest `|qpos − qpos_MuJoCo|` and `|qvel − qvel_MuJoCo|`, both contact counts and both solver iteration
counts (MuJoCo's: its first island's), then a summary: the largest `qpos` difference, the last step whose `qpos` and
whose `qvel` are bit for bit, the first step whose contact count differs. A velocity far below the position's ulp
per step can part first and reach `qpos` many steps later. Stops at the first step whose `qpos` difference exceeds
`--stop`.

    cargo build --release -p signorini-cli
    python3 scripts/mujoco_divergence.py ../shared/scenes/pile.xml --steps 200

Needs `pip install mujoco` (4.0). Benchmark/reference tooling only; the library never depends on MuJoCo.
"""

import argparse
import json
import subprocess
import tempfile

import mujoco
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--binary", default="target/release/signorini")
    ap.add_argument("--stop", type=float, default=1.0, help="stop at the first step further apart than this")
    ap.add_argument("--quiet", action="store_true", help="print the summary only")
    args = ap.parse_args()

    m = mujoco.MjModel.from_xml_path(args.model)
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    with tempfile.NamedTemporaryFile(suffix=".json") as dump:
        subprocess.run(
            [args.binary, "run", args.model, "--mujoco-compat", "--steps", str(args.steps), "--every", "1",
             "--grow-capacity", "--dump", dump.name],
            check=True, capture_output=True)
        snaps = json.load(open(dump.name))["snapshots"]

    worst, worst_step, exact_through, first_count = 0.0, 0, 0, None
    vel_exact_through = 0
    for k in range(1, args.steps + 1):
        mujoco.mj_step(m, d)
        s = snaps.get(str(k))
        if s is not None and "qpos" in s:
            q = np.array(s["qpos"])
        elif s is not None and "qpos_free" in s:
            q = np.array(s["qpos_free"]).reshape(-1)
        else:
            raise SystemExit(f"step {k}: no qpos in signorini's dump")
        if q.shape != d.qpos.shape:
            raise SystemExit(f"step {k}: signorini's qpos has {q.size} coordinates, MuJoCo's {d.qpos.size}")
        err = float(np.abs(q - d.qpos).max())
        if err == 0.0 and exact_through == k - 1:
            exact_through = k
        if "qvel" in s:
            v = np.array(s["qvel"])
        else:
            v = np.array(s["qvel_free"]).reshape(-1)
        if v.shape != d.qvel.shape:
            raise SystemExit(f"step {k}: signorini's qvel has {v.size} coordinates, MuJoCo's {d.qvel.size}")
        verr = float(np.abs(v - d.qvel).max())
        if verr == 0.0 and vel_exact_through == k - 1:
            vel_exact_through = k
        if err > worst:
            worst, worst_step = err, k
        if first_count is None and s.get("ncon") != d.ncon:
            first_count = k
        if not args.quiet:
            print(f"{k} err {err:.2e} qvel {verr:.2e} ncon mj {d.ncon} ours {s.get('ncon')} "
                  f"niter mj {d.solver_niter[0]} ours {s.get('solver_niter')}")
        if err > args.stop:
            break
    print(f"summary: largest |dqpos| {worst:.2e} (step {worst_step}); bit for bit through step {exact_through} "
          f"(qvel through step {vel_exact_through}); "
          f"first contact-count difference: {first_count if first_count is not None else 'none'}")


if __name__ == "__main__":
    main()
