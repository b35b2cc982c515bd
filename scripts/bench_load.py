#!/usr/bin/env python3
"""Load time of MJCF files against their body count: N free spheres side by side (N = 1 000 ... 20 000), loaded and
compiled by `signorini run FILE --steps 0` (process start included), best of R runs. Linear loading shows as a
constant time per body.

Usage: python3 scripts/bench_load.py [--bodies N...] [--repeat R] [--binary PATH]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def scene(n: int) -> str:
    bodies = "".join(
        f'<body pos="{0.3 * (i % 200)} {0.3 * (i // 200)} 1"><freejoint/><geom type="sphere" size="0.1"/></body>'
        for i in range(n)
    )
    return f'<mujoco><worldbody><geom type="plane" size="100 100 0.1"/>{bodies}</worldbody></mujoco>'


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bodies", nargs="+", type=int, default=[1000, 2000, 5000, 10000, 20000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--binary", type=Path, default=REPO / "target" / "release" / "signorini")
    args = ap.parse_args()
    print("| bodies | load (s) | µs per body |\n|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.bodies:
            path = Path(tmp) / f"free{n}.xml"
            path.write_text(scene(n))
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                subprocess.run(
                    [str(args.binary), "run", str(path), "--steps", "0", "--set", "max_collision_pairs=1000000"],
                    check=True,
                    stdout=subprocess.DEVNULL,
                )
                best = min(best, time.perf_counter() - start)
            print(f"| {n} | {best:.3f} | {1e6 * best / n:.1f} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
