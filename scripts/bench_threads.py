#!/usr/bin/env python3
"""Threads within one scene: `signorini run SCENE --threads 1` against `--threads 2` (and more), on every scene.

Issue 22's item 3: two threads never slower than one on any scene, and on the pile and larger scenes 1.5× one
thread. A step's threads split its narrow phase's pairs (128 or more) and, with 256 rows or more over several islands,
its islands' solves (docs/ARCHITECTURE.md, "Threads within a step"). For every scene `*.xml` of the scenes folder
(or `--only`), in each mode (MuJoCo-compatible and native), the runs of every thread count alternate in rounds (so
that a slow phase of a shared machine slows them alike); the table gives, per thread count above 1, the median over
the rounds of (steps/s with T threads) / (steps/s with 1 thread), > 1 meaning faster, and the least of the rounds.
Steps/s is the binary's own timing of its stepping loop (`perf.steps_per_second` of `--dump`, run by
`bench_mujoco.py`'s `OursRun`, with `--set threads=T`); every run's final state is checked equal to the one-thread
run's (the results must not depend on the thread count).

Usage: python3 scripts/bench_threads.py [--scenes DIR] [--steps N] [--repeat R] [--threads T...] [--only NAME...]
                                        [--binary PATH] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from bench_mujoco import DEFAULT_BINARY, DEFAULT_SCENES, OursRun


def final_state(run: OursRun) -> str:
    """The last snapshot of `run`'s latest dump, as text."""
    snaps = json.loads(run.dump.read_text())["snapshots"]
    return json.dumps(snaps[max(snaps, key=int)], sort_keys=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=Path, default=DEFAULT_SCENES)
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[2])
    ap.add_argument("--only", nargs="*", help="scene stems to run (default: all)")
    ap.add_argument("--binary", type=Path, default=DEFAULT_BINARY)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    scenes = sorted(args.scenes.glob("*.xml"))
    if args.only:
        scenes = [s for s in scenes if s.stem in args.only]
    counts = [1] + [t for t in args.threads if t != 1]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for scene in scenes:
            for compat in (True, False):
                mode = "compat" if compat else "native"
                runs = {t: OursRun(args.binary, scene, args.steps, compat, 3600.0, Path(tmp), [f"threads={t}"],
                                   f"t{t}_") for t in counts}
                for _ in range(args.repeat):
                    for t in counts:
                        runs[t].time_once()
                        if runs[t].error:
                            sys.exit(f"{scene.stem} {mode}, {t} threads: {runs[t].error}")
                        if final_state(runs[t]) != final_state(runs[1]):
                            sys.exit(f"{scene.stem} {mode}: the final state with {t} threads differs from one thread's")
                row = {"scene": scene.stem, "mode": mode, "steps_per_second_1": runs[1].best}
                for t in counts[1:]:
                    ratios = [a / b for a, b in zip(runs[t].samples, runs[1].samples)]
                    row[f"ratio_{t}"] = statistics.median(ratios)
                    row[f"ratio_{t}_min"] = min(ratios)
                rows.append(row)
                cells = " ".join(f"{t}: {row[f'ratio_{t}']:.2f} (min {row[f'ratio_{t}_min']:.2f})" for t in counts[1:])
                print(f"{scene.stem:24s} {mode:6s} {row['steps_per_second_1']:9.0f} steps/s on 1 thread  {cells}",
                      flush=True)
    if args.json:
        args.json.write_text(json.dumps({"steps": args.steps, "repeat": args.repeat, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
