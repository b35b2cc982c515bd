#!/usr/bin/env python3
"""Batched throughput side by side: MuJoCo 4.0's multi-threaded `rollout` against `signorini run --envs N`.

For each scene, each batch size N and each thread count T this measures environment-steps per second (N × steps /
seconds of stepping) of:

* MuJoCo: `mujoco.rollout.Rollout(nthread=T).rollout(model, [MjData] * T, initial_state, nstep=steps)` with every
  environment starting from keyframe 0 (or the model's initial state), timed around the call;
* ours: `signorini run SCENE --envs N --threads T --steps S --mujoco-compat --set max_collision_pairs=1000`,
  `env_steps_per_second` of its summary (the binary times its own stepping loop).

All environments start from the same state; best of R interleaved rounds. ratio = ours / MuJoCo (> 1: ours faster).

A second table compares the memory of one environment after the run (one environment, one thread). Ours is
`data_bytes` of the summary: the growth of the live heap, as the CLI's counting allocator sees it, from before the
batch was made to after its last step, less the thread pool: the `Data` struct and every buffer it owns at its full
capacity, scratch included. MuJoCo's like-for-like figure is the `mjData` struct (`sizeof(mjData)`, 162 120 bytes
in MuJoCo 4.0, read off the wheel's headers with `cc`) plus its buffer and the arena it used (`nbuffer +
maxuse_arena`: the arena holds the contacts, constraint rows and the stack scratch). The table also gives MuJoCo's
figure without the struct, and the arena MuJoCo reserves up front (`narena`, mostly never touched).

Usage: python3 scripts/bench_batch.py [--scenes DIR] [--only NAME...] [--envs N...] [--threads T...] [--steps S]
                                      [--repeat R] [--binary PATH] [--native] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SCENES = REPO.parent / "shared" / "scenes"
DEFAULT_BINARY = REPO / "target" / "release" / "signorini"
DEFAULT_ONLY = ["box_stack", "pyramid", "arm", "pile__cg"]


def mujoco_rate(mujoco, rollout, path: Path, n: int, threads: int, steps: int, pool) -> float:
    import numpy as np

    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, state, spec)
    initial = np.tile(state, (n, 1))
    datas = [mujoco.MjData(m) for _ in range(threads)]
    out = np.empty((n, steps, state.size))
    t0 = time.perf_counter()
    pool.rollout(m, datas, initial, nstep=steps, state=out)
    return n * steps / (time.perf_counter() - t0)


def mjdata_struct_bytes(mujoco) -> int | None:
    """`sizeof(mjData)` of the installed MuJoCo, compiled against the headers its wheel ships; None without `cc`."""
    import shutil
    import tempfile
    cc = shutil.which("cc")
    include = Path(mujoco.__file__).parent / "include"
    if cc is None or not (include / "mujoco" / "mjdata.h").is_file():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "size.c", Path(tmp) / "size"
        src.write_text('#include <stdio.h>\n#include <mujoco/mujoco.h>\n'
                       'int main(void) { printf("%zu\\n", sizeof(mjData)); return 0; }\n')
        built = subprocess.run([cc, f"-I{include}", str(src), "-o", str(exe)], capture_output=True, check=False)
        if built.returncode != 0:
            return None
        ran = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
        return int(ran.stdout) if ran.returncode == 0 else None


def mujoco_bytes(mujoco, path: Path, steps: int) -> tuple[int, int]:
    """(nbuffer + maxuse_arena, narena) of one MjData after `steps` steps from keyframe 0."""
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_step(m, d, nstep=steps)
    return int(d.nbuffer + d.maxuse_arena), int(d.narena)


def ours_run(binary: Path, path: Path, n: int, threads: int, steps: int, native: bool) -> dict:
    cmd = [str(binary), "run", str(path), "--envs", str(n), "--threads", str(threads), "--steps", str(steps),
           "--set", "max_collision_pairs=1000"]
    if not native:
        cmd.append("--mujoco-compat")
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=Path, default=DEFAULT_SCENES)
    ap.add_argument("--only", nargs="+", default=DEFAULT_ONLY, metavar="NAME", help="scene stems")
    ap.add_argument("--envs", nargs="+", type=int, default=[1, 16, 64, 256])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--binary", type=Path, default=DEFAULT_BINARY)
    ap.add_argument("--native", action="store_true", help="ours in native semantics instead of MuJoCo-compatible")
    ap.add_argument("--json", type=Path, metavar="OUT")
    args = ap.parse_args()
    try:
        import mujoco
        from mujoco import rollout
    except ImportError:
        print("bench_batch: `pip install mujoco` first", file=sys.stderr)
        return 2
    if not args.binary.is_file():
        print(f"bench_batch: {args.binary} does not exist; `cargo build --release -p signorini-cli`", file=sys.stderr)
        return 2
    rows, memory = [], []
    pools = {t: rollout.Rollout(nthread=t) for t in args.threads}
    for stem in args.only:
        path = args.scenes / f"{stem}.xml"
        used, reserved = mujoco_bytes(mujoco, path, args.steps)
        try:
            ours_bytes = ours_run(args.binary, path, 1, 1, args.steps, args.native).get("data_bytes")
        except RuntimeError:
            ours_bytes = None
        memory.append({"scene": stem, "mujoco_used": used, "mujoco_reserved": reserved, "ours": ours_bytes})
        for n in args.envs:
            for t in args.threads:
                print(f"bench_batch: {stem} envs={n} threads={t}", file=sys.stderr, flush=True)
                best_mj, best_ours, error = 0.0, 0.0, None
                for _ in range(args.repeat):
                    best_mj = max(best_mj, mujoco_rate(mujoco, rollout, path, n, t, args.steps, pools[t]))
                    try:
                        run = ours_run(args.binary, path, n, t, args.steps, args.native)
                        best_ours = max(best_ours, float(run["env_steps_per_second"]))
                    except RuntimeError as e:
                        error = str(e)
                        break
                rows.append({"scene": stem, "envs": n, "threads": t, "mujoco": best_mj,
                             "ours": None if error else best_ours, "error": error,
                             "ratio": None if error or not best_mj else best_ours / best_mj})
    print(f"\nMuJoCo {mujoco.__version__} rollout vs {args.binary} --envs ({'native' if args.native else 'mujoco-compat'}),"
          f" {args.steps} steps, best of {args.repeat}; env-steps/s, ratio = ours / MuJoCo\n")
    print("| scene | envs | threads | MuJoCo rollout | ours | ratio |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        ours = f"error: {r['error']}" if r["error"] else f"{r['ours']:,.0f}"
        ratio = "—" if r["ratio"] is None else f"{r['ratio']:.3g}"
        print(f"| {r['scene']} | {r['envs']} | {r['threads']} | {r['mujoco']:,.0f} | {ours} | {ratio} |")
    struct = mjdata_struct_bytes(mujoco)
    print(f"\nOne environment's memory after {args.steps} steps (bytes; sizeof(mjData) = "
          f"{'unknown: no cc' if struct is None else f'{struct:,}'})\n")
    print("| scene | ours: Data, live heap | MuJoCo: mjData struct + buffer + arena used | ours / MuJoCo |"
          " MuJoCo without the struct | ours / that | MuJoCo arena reserved |")
    print("|---|---|---|---|---|---|---|")
    for r in memory:
        ours = "—" if r["ours"] is None else f"{r['ours']:,}"
        whole = None if struct is None else struct + r["mujoco_used"]
        vs_whole = "—" if not (r["ours"] and whole) else f"{r['ours'] / whole:.3g}"
        vs_used = "—" if not r["ours"] else f"{r['ours'] / r['mujoco_used']:.3g}"
        print(f"| {r['scene']} | {ours} | {'—' if whole is None else f'{whole:,}'} | {vs_whole} |"
              f" {r['mujoco_used']:,} | {vs_used} | {r['mujoco_reserved']:,} |")
        r["mujoco_struct"] = struct
    if args.json:
        report = {"mujoco_version": mujoco.__version__, "steps": args.steps, "rows": rows, "memory": memory}
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    for p in pools.values():
        p.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
