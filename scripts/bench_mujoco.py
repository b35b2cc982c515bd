#!/usr/bin/env python3
"""Side-by-side throughput benchmark: MuJoCo (Python bindings) against the `signorini` CLI on the same MJCF scenes.

For every scene `*.xml` in the scenes folder this measures, single threaded, best of R repeats:

* MuJoCo: steps/s of `mujoco.mj_step` over the stepping loop only (the loop runs inside MuJoCo's C code through
  `mj_step(m, d, nstep=N)`, so no per-step Python overhead is timed), starting from keyframe 0 when the model has
  one (qpos and ctrl; ctrl is held constant). Mean ncon is recorded in a separate, untimed pass.
* ours: `signorini run SCENE --steps N --dump JSON --set max_collision_pairs=1000`, once with `--mujoco-compat` and
  once without (native semantics); steps/s is `perf.steps_per_second` from the dump (the binary times its own
  stepping loop), mean ncon is `settled.ncon_mean`.

The R repeats run in interleaved rounds (MuJoCo, ours compat, ours native), so that a slow phase of a shared
machine slows all three rather than one; besides the ratio of the bests, the table gives the median over the rounds
of each round's ratio.

With `--baseline PATH` (another build of the CLI, e.g. the one before a change) that binary runs in the same rounds,
in both modes, and a second table gives after/before: the median over the rounds of (this binary's steps/s) /
(the baseline's) per scene and mode (> 1: this binary faster).

ratio = ours / MuJoCo steps/s (> 1 means signorini is faster). A third table shows where our step's time goes: the
stage timings (`perf.stage_us`) of the fastest run, as shares of the step. A failed run of ours is reported by the first line
of its error output instead of a number; the script carries on.

Usage: python3 scripts/bench_mujoco.py [--scenes DIR] [--steps N] [--repeat R] [--only NAME...]
                                       [--binary PATH] [--baseline PATH] [--json OUT] [--plot PNG]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SCENES = REPO.parent / "shared" / "scenes"
DEFAULT_BINARY = REPO / "target" / "release" / "signorini"

# Scenes that may get fewer steps: scene base name (the stem before any `__variant`) -> most steps. The pile is run
# in full: its first 200 steps are a free fall, and its cost is in the settled heap that follows.
MAX_STEPS: dict = {}

# Passed to our binary in both modes (pile needs more than the default pair budget).
OURS_SETTINGS = ["max_collision_pairs=1000"]


def base_name(stem: str) -> str:
    return stem.split("__", 1)[0]


def steps_for(stem: str, steps: int) -> int:
    cap = MAX_STEPS.get(base_name(stem))
    return min(steps, cap) if cap is not None else steps


def selected(stem: str, only: list[str] | None) -> bool:
    """`--only box_stack` selects box_stack and its variants; `--only box_stack__cg` that variant alone."""
    if not only:
        return True
    return any(stem == name or stem.startswith(name + "__") for name in only)


# ---------------------------------------------------------------------------------------------------------------
# MuJoCo side


class MujocoRun:
    """One scene in MuJoCo: the model, its mean ncon (an untimed pass) and timed runs from the initial state."""

    def __init__(self, mujoco, path: Path, steps: int, sleep: bool = False):
        self.mujoco, self.steps, self.best, self.samples = mujoco, steps, 0.0, []
        try:
            self.m = mujoco.MjModel.from_xml_path(str(path))
        except Exception as e:  # noqa: BLE001 - any load failure is reported, not raised
            self.error = first_line(str(e)) or type(e).__name__
            return
        self.error = None
        if sleep:
            self.m.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_SLEEP)
        self.d = mujoco.MjData(self.m)
        # Untimed pass: mean ncon over the run (ncon after each step, as the contacts of that step).
        self.reset()
        total = 0
        for _ in range(steps):
            mujoco.mj_step(self.m, self.d)
            total += self.d.ncon
        self.ncon_mean = total / steps if steps else 0.0

    def reset(self) -> None:
        if self.m.nkey > 0:
            self.mujoco.mj_resetDataKeyframe(self.m, self.d, 0)  # qpos, qvel, act, ctrl, mocap of key 0
        else:
            self.mujoco.mj_resetData(self.m, self.d)

    def time_once(self) -> None:
        if self.error:
            return
        self.reset()
        t0 = time.perf_counter()
        self.mujoco.mj_step(self.m, self.d, nstep=self.steps)
        wall = time.perf_counter() - t0
        if wall > 0:
            self.best = max(self.best, self.steps / wall)
            self.samples.append(self.steps / wall)

    def result(self) -> dict:
        if self.error:
            return {"error": self.error}
        return {"steps_per_second": self.best, "ncon_mean": self.ncon_mean, "nkey": int(self.m.nkey)}


# ---------------------------------------------------------------------------------------------------------------
# Our side


def first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line
    return ""


class OursRun:
    """One scene in our CLI (MuJoCo-compatible or native): timed runs, each a fresh process."""

    def __init__(self, binary: Path, path: Path, steps: int, compat: bool, timeout: float, tmp: Path,
                 extra: list[str], tag: str = ""):
        self.dump = tmp / (tag + ("compat.json" if compat else "native.json"))
        self.cmd = [str(binary), "run", str(path), "--steps", str(steps), "--dump", str(self.dump)]
        if compat:
            self.cmd.append("--mujoco-compat")
        for setting in OURS_SETTINGS + extra:
            self.cmd += ["--set", setting]
        self.binary, self.timeout = binary, timeout
        self.best, self.ncon_mean, self.error, self.samples = None, None, None, []
        self.stage_us = None  # the stage timings of the fastest run

    def time_once(self) -> None:
        if self.error:
            return
        try:
            proc = subprocess.run(self.cmd, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.error = f"timed out after {self.timeout:g} s"
            return
        except OSError as e:
            self.error = f"could not start {self.binary}: {e}"
            return
        if proc.returncode != 0:
            self.error = first_line(proc.stderr) or first_line(proc.stdout) or f"exit status {proc.returncode}"
            return
        try:
            data = json.loads(self.dump.read_text())
            sps = float(data["perf"]["steps_per_second"])
            stages = {k: float(v) for k, v in data["perf"].get("stage_us", {}).items()}
            self.ncon_mean = float(data.get("settled", {}).get("ncon_mean", float("nan")))
        except (OSError, ValueError, KeyError, TypeError) as e:
            self.error = f"unreadable dump: {e}"
            return
        if self.best is None or sps > self.best:
            self.best, self.stage_us = sps, stages
        self.samples.append(sps)

    def result(self) -> dict:
        if self.error:
            return {"error": self.error, "cmd": self.cmd}
        return {"steps_per_second": self.best, "ncon_mean": self.ncon_mean, "stage_us": self.stage_us, "cmd": self.cmd}


# ---------------------------------------------------------------------------------------------------------------
# Report


def fmt_rate(r: dict, width: int = 72) -> str:
    if "error" in r:
        msg = r["error"].removeprefix("signorini: ").removeprefix("error: ")  # the full line is in --json
        if len(msg) > width:
            msg = msg[: width - 1] + "…"
        return "error: " + msg.replace("|", "\\|")
    return f"{r['steps_per_second']:,.0f}" if r["steps_per_second"] >= 100 else f"{r['steps_per_second']:.3g}"


def ratio(ours: dict, theirs: dict) -> float | None:
    if "error" in ours or "error" in theirs or not theirs.get("steps_per_second"):
        return None
    return ours["steps_per_second"] / theirs["steps_per_second"]


def paired_median(ours, theirs) -> float | None:
    """The median over rounds of ours / MuJoCo within each round (robust to a machine's slow phases)."""
    ratios = sorted(o / t for o, t in zip(ours.samples, theirs.samples) if t > 0)
    if ours.error or not ratios:
        return None
    k = len(ratios) // 2
    return ratios[k] if len(ratios) % 2 else 0.5 * (ratios[k - 1] + ratios[k])


def fmt_ratio(x: float | None) -> str:
    return "—" if x is None else f"{x:.3g}"


def fmt_ncon(r: dict) -> str:
    v = r.get("ncon_mean")
    return "—" if v is None or "error" in r else f"{v:.2f}"


STAGES = ("forward", "collision", "assembly", "solve", "integrate")


def print_profile(rows: list) -> None:
    """Where a step's time goes in ours (the fastest run of each mode): the CLI's `perf.stage_us`, mean µs per step
    in each stage, as a share of the whole step (1 / steps_per_second); `other` is the rest (sensors, contact
    read-back, the step's bookkeeping)."""
    print(
        "\nWhere a step's time goes (ours, fastest run): µs per step, and each stage's share of it "
        "(forward: kinematics, mass matrix, bias and passive forces; collision: broad and narrow phase; "
        "assembly: constraint rows; solve: the constraint solver; integrate: the integrator)\n"
    )
    print("| scene | mode | µs/step | " + " | ".join(STAGES) + " | other |")
    print("|---|---|---|" + "---|" * (len(STAGES) + 1))
    for r in rows:
        for mode in ("compat", "native"):
            run = r[f"ours_{mode}"]
            stages = run.get("stage_us")
            if "error" in run or not stages or not run.get("steps_per_second"):
                continue
            total = 1e6 / run["steps_per_second"]
            shares = [stages.get(k, 0.0) / total for k in STAGES]
            other = max(0.0, 1.0 - sum(shares))
            cells = [r["scene"], mode, f"{total:.3g}"] + [f"{100 * x:.0f} %" for x in shares + [other]]
            print("| " + " | ".join(cells) + " |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=Path, default=DEFAULT_SCENES, help=f"folder of *.xml scenes [{DEFAULT_SCENES}]")
    ap.add_argument("--steps", type=int, default=1000, help="steps per run [1000]")
    ap.add_argument("--repeat", type=int, default=3, help="repeats; the best steps/s is kept [3]")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="scenes to run: a base name (with its variants) or a stem")
    ap.add_argument("--binary", type=Path, default=DEFAULT_BINARY, help=f"the signorini CLI [{DEFAULT_BINARY}]")
    ap.add_argument("--baseline", type=Path, metavar="PATH",
                    help="another build of the CLI timed in the same rounds; adds an after/before table")
    ap.add_argument("--json", type=Path, metavar="OUT", help="also write every figure as JSON to OUT")
    ap.add_argument("--plot", type=Path, metavar="PNG",
                    help="also draw the steps/s of each scene as a bar chart (`signorini plot` of the JSON report)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per run of ours [600]")
    ap.add_argument("--sleep", action="store_true",
                    help="MuJoCo with sleeping enabled, ours with hibernation at MuJoCo's sleep_tolerance")
    args = ap.parse_args()
    if args.steps < 1 or args.repeat < 1:
        ap.error("--steps and --repeat must be at least 1")

    try:
        import mujoco
    except ImportError:
        print("bench_mujoco: the `mujoco` Python package is not importable; `pip install mujoco`", file=sys.stderr)
        return 2
    if args.baseline is not None and not args.baseline.is_file():
        print(f"bench_mujoco: the baseline {args.baseline} does not exist", file=sys.stderr)
        return 2
    if not args.binary.is_file():
        print(
            f"bench_mujoco: {args.binary} does not exist; run `cargo build --release -p signorini-cli` first",
            file=sys.stderr,
        )
        return 2
    scenes = sorted(p for p in args.scenes.glob("*.xml") if selected(p.stem, args.only))
    if not scenes:
        print(f"bench_mujoco: no scenes selected in {args.scenes}", file=sys.stderr)
        return 2

    rows = []
    for path in scenes:
        n = steps_for(path.stem, args.steps)
        print(f"bench_mujoco: {path.stem} ({n} steps × {args.repeat})", file=sys.stderr, flush=True)
        mj_run = MujocoRun(mujoco, path, n, args.sleep)
        extra = []
        if args.sleep and not mj_run.error:
            extra = ["use_hibernation=true", f"hibernation_thresh_vel={mj_run.m.opt.sleep_tolerance!r}"]
        with tempfile.TemporaryDirectory(prefix="bench_mujoco_") as tmp:
            runs = [
                OursRun(args.binary, path, n, compat, args.timeout, Path(tmp), extra) for compat in (True, False)
            ]
            before = [
                OursRun(args.baseline, path, n, compat, args.timeout, Path(tmp), extra, "baseline_")
                for compat in (True, False)
            ] if args.baseline else []
            # Interleaved rounds (MuJoCo, compat, native[, baseline compat, baseline native]): a slow phase of the
            # machine hits them alike.
            for _ in range(args.repeat):
                mj_run.time_once()
                for run in runs + before:
                    run.time_once()
            mj, compat, native = mj_run.result(), runs[0].result(), runs[1].result()
        rows.append(
            {
                "scene": path.stem,
                "steps": n,
                "mujoco": mj,
                "ours_compat": compat,
                "ours_native": native,
                "ratio_compat": ratio(compat, mj),
                "ratio_native": ratio(native, mj),
                "median_ratio_compat": paired_median(runs[0], mj_run),
                "median_ratio_native": paired_median(runs[1], mj_run),
            }
        )
        if before:
            rows[-1].update(
                {
                    "baseline_compat": before[0].result(),
                    "baseline_native": before[1].result(),
                    "after_over_before_compat": paired_median(runs[0], before[0]),
                    "after_over_before_native": paired_median(runs[1], before[1]),
                }
            )

    header = [
        "scene",
        "MuJoCo steps/s",
        "ours (mujoco-compat) steps/s",
        "ratio",
        "median ratio",
        "ours (native) steps/s",
        "ratio",
        "median ratio",
        "MuJoCo mean ncon",
        "ours mean ncon",
    ]
    capped = ", ".join(f"{r['scene']} {r['steps']}" for r in rows if r["steps"] < args.steps)
    print(
        f"\nMuJoCo {mujoco.__version__} vs {args.binary} — best of {args.repeat}, {args.steps} steps"
        f"{f' ({capped})' if capped else ''}; ratio = ours / MuJoCo of the bests (> 1: ours faster), median ratio = "
        f"the median over the interleaved rounds of each round's ratio; "
        f"ours mean ncon = mujoco-compat (native)\n"
    )
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        ncon_ours = fmt_ncon(r["ours_compat"])
        if "error" not in r["ours_native"]:
            ncon_ours += f" ({fmt_ncon(r['ours_native'])})"
        cells = [
            r["scene"],
            fmt_rate(r["mujoco"]),
            fmt_rate(r["ours_compat"]),
            fmt_ratio(r["ratio_compat"]),
            fmt_ratio(r["median_ratio_compat"]),
            fmt_rate(r["ours_native"]),
            fmt_ratio(r["ratio_native"]),
            fmt_ratio(r["median_ratio_native"]),
            fmt_ncon(r["mujoco"]),
            ncon_ours,
        ]
        print("| " + " | ".join(cells) + " |")

    print_profile(rows)

    if args.baseline:
        print(
            f"\n{args.binary} (after) vs {args.baseline} (before), same rounds: after/before = median over the rounds "
            f"of each round's steps/s ratio (> 1: after faster)\n"
        )
        print("| scene | before compat | after compat | after/before | before native | after native | after/before |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            cells = [
                r["scene"],
                fmt_rate(r["baseline_compat"]),
                fmt_rate(r["ours_compat"]),
                fmt_ratio(r["after_over_before_compat"]),
                fmt_rate(r["baseline_native"]),
                fmt_rate(r["ours_native"]),
                fmt_ratio(r["after_over_before_native"]),
            ]
            print("| " + " | ".join(cells) + " |")

    if args.json or args.plot:
        try:
            commit = subprocess.run(
                ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True
            ).stdout.strip()
        except OSError:
            commit = ""
        report = {
            "mujoco_version": mujoco.__version__,
            "binary": str(args.binary),
            "baseline": str(args.baseline) if args.baseline else None,
            "commit": commit,
            "steps": args.steps,
            "repeat": args.repeat,
            "max_steps": MAX_STEPS,
            "ours_settings": OURS_SETTINGS,
            "host": {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()},
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "rows": rows,
        }
        text = json.dumps(report, indent=2) + "\n"
        if args.json:
            args.json.write_text(text)
            print(f"\nbench_mujoco: wrote {args.json}", file=sys.stderr)
        if args.plot:
            with tempfile.TemporaryDirectory() as tmp:
                report_path = args.json or Path(tmp) / "report.json"
                if not args.json:
                    report_path.write_text(text)
                subprocess.run([str(args.binary), "plot", str(report_path), "--out", str(args.plot)], check=True)
            print(f"bench_mujoco: drew {args.plot}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
