#!/usr/bin/env python3
"""GPU batch throughput beside the CPU batch: `signorini run SCENE --envs N --device gpu` against
`signorini run SCENE --envs N --threads T` (env-steps per second, `env_steps_per_second` of each summary).

For each scene and each N the GPU run is tried in f32 (and f64 with --f64); a configuration the adapter cannot hold
(buffer limits) or the scene cannot run on the GPU path is reported with its error instead of a figure. On a CPU
Vulkan driver (Mesa's lavapipe, what CI has) this is a smoke test of the whole path; the figure that counts is the
one measured on a real GPU.

Usage: python3 scripts/bench_gpu.py [--scenes DIR] [--only NAME...] [--envs N...] [--steps S] [--threads T]
                                    [--max-contacts C] [--f64] [--binary PATH] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SCENES = REPO.parent / "shared" / "scenes"
DEFAULT_BINARY = REPO / "target" / "release" / "signorini"


def run(binary: Path, args: list[str]) -> tuple[dict | None, str]:
    out = subprocess.run([str(binary), "run", *args], capture_output=True, text=True)
    if out.returncode != 0:
        lines = [l for l in out.stderr.splitlines() if l.startswith("signorini: error")]
        return None, lines[-1] if lines else (out.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(out.stdout.strip().splitlines()[-1]), ""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scenes", type=Path, default=DEFAULT_SCENES)
    p.add_argument("--only", nargs="*", default=["sphere_drop", "box_stack", "pyramid"])
    p.add_argument("--envs", nargs="*", type=int, default=[1024, 8192, 65536])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--max-contacts", type=int, default=None, help="--gpu-max-contacts for every GPU run")
    p.add_argument("--f64", action="store_true", help="also run f64 shaders")
    p.add_argument("--binary", type=Path, default=DEFAULT_BINARY)
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args()
    if not a.binary.exists():
        print(f"{a.binary} not found: cargo build --release -p signorini-cli", file=sys.stderr)
        return 2
    rows = []
    print(f"{'scene':<14}{'envs':>8}  {'precision':<9}{'gpu env-steps/s':>17}{'cpu env-steps/s':>17}{'gpu/cpu':>9}  adapter / error")
    for name in a.only:
        scene = a.scenes / f"{name}.xml"
        for n in a.envs:
            base = [str(scene), "--envs", str(n), "--steps", str(a.steps)]
            cpu, cpu_err = run(a.binary, [*base, "--threads", str(a.threads)])
            for precision in ["f32", "f64"] if a.f64 else ["f32"]:
                extra = ["--device", "gpu", "--gpu-precision", precision]
                if a.max_contacts:
                    extra += ["--gpu-max-contacts", str(a.max_contacts)]
                gpu, gpu_err = run(a.binary, [*base, *extra])
                g = gpu["env_steps_per_second"] if gpu else None
                c = cpu["env_steps_per_second"] if cpu else None
                ratio = f"{g / c:9.3f}" if g and c else f"{'-':>9}"
                note = gpu["adapter"] if gpu else gpu_err
                if cpu_err:
                    note += f" | cpu: {cpu_err}"
                print(f"{name:<14}{n:>8}  {precision:<9}{(g or 0):>17.0f}{(c or 0):>17.0f}{ratio}  {note}", flush=True)
                rows.append({"scene": name, "envs": n, "precision": precision, "gpu": g, "cpu": c,
                             "gpu_error": gpu_err or None, "cpu_error": cpu_err or None,
                             "adapter": gpu["adapter"] if gpu else None})
    if a.json:
        a.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
