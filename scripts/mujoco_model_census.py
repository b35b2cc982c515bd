"""Issue 16's acceptance census: which of MuJoCo's own model files and of the DeepMind control suite's models load
and run in signorini's MuJoCo-compatible mode, and their mean contact counts against MuJoCo 4.0's.

A file counts when MuJoCo 4.0 itself loads it without plugins or flexes. Each is run for 20 steps
(`signorini run FILE --steps 20 --mujoco-compat --grow-capacity`); the contact statistics run `--steps N --dump`
and compare `settled.ncon_mean` with the mean of `mj_step`'s `ncon` from keyframe 0 (or `qpos0`).

Needs `pip install mujoco` (4.0), a checkout of MuJoCo's `model/` folder (e.g. `git clone --depth 1
https://github.com/google-deepmind/mujoco` and `--models mujoco/model`), `pip install dm_control --no-deps` for the
suite, `pip install gymnasium gymnasium-robotics --no-deps` for `--gymnasium` (the MJCF files those packages ship:
Gymnasium's MuJoCo environments, gymnasium-robotics' Fetch, Shadow hand, Adroit hand, Franka kitchen and more),
`pip install robosuite --no-deps` for `--robosuite`, and a built `signorini` (`cargo build -p signorini-cli`).

Usage: python3 scripts/mujoco_model_census.py --models PATH/model [--suite] [--gymnasium] [--robosuite] [--steps 200]
       [--binary target/debug/signorini]
"""
import argparse
import glob
import importlib.util
import json
import os
import subprocess
import tempfile

import mujoco


def mujoco_loads(path):
    try:
        m = mujoco.MjModel.from_xml_path(path)
    except Exception:
        return None
    return None if m.nplugin > 0 or m.nflex > 0 else m


def mean_contacts(m, steps):
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    n = 0
    for _ in range(steps):
        mujoco.mj_step(m, d)
        n += d.ncon
    return n / steps


def census(files, binary, steps, root):
    ok, fail = [], []
    dump = os.path.join(tempfile.mkdtemp(), "census.json")
    for f in files:
        m = mujoco_loads(f)
        if m is None:
            continue
        rel = os.path.relpath(f, root)
        r = subprocess.run([binary, "run", f, "--steps", str(steps), "--mujoco-compat", "--grow-capacity",
                            "--dump", dump], capture_output=True, text=True, timeout=1800)
        if r.returncode != 0:
            fail.append((rel, (r.stderr.strip().splitlines() or [""])[-1][:200]))
            continue
        ours = json.load(open(dump))["settled"]["ncon_mean"]
        ok.append((rel, mean_contacts(m, steps), ours))
    print(f"{len(ok)} of {len(ok) + len(fail)} load and run")
    for rel, theirs, ours in ok:
        print(f"OK   {rel}: mean contacts MuJoCo {theirs:.3f}, signorini {ours:.3f}")
    for rel, why in fail:
        print(f"FAIL {rel}: {why}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", help="MuJoCo's model/ folder")
    p.add_argument("--suite", action="store_true", help="also the DeepMind control suite (pip dm_control)")
    p.add_argument("--gymnasium", action="store_true",
                   help="also the MJCF files of gymnasium and gymnasium-robotics (pip, --no-deps)")
    p.add_argument("--robosuite", action="store_true", help="also robosuite's robots, grippers, arenas and objects "
                   "(pip install robosuite --no-deps)")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "..", "target", "debug", "signorini"))
    a = p.parse_args()
    if a.models:
        census(sorted(glob.glob(os.path.join(a.models, "**", "*.xml"), recursive=True)), a.binary, a.steps, a.models)
    if a.suite:
        import dm_control
        suite = os.path.join(os.path.dirname(dm_control.__file__), "suite")
        census(sorted(glob.glob(os.path.join(suite, "*.xml"))), a.binary, a.steps, suite)
    packages = []
    if a.gymnasium:
        packages += [("gymnasium", "envs/mujoco/assets"), ("gymnasium_robotics", "envs")]
    if a.robosuite:
        packages.append(("robosuite", "models/assets"))
    # Located without importing the packages (their imports pull in the environments' dependencies).
    for package, sub in packages:
        spec = importlib.util.find_spec(package)
        if spec is None:
            raise SystemExit(f"`pip install {package.replace('_', '-')} --no-deps` first")
        root = os.path.join(os.path.dirname(spec.origin), sub)
        census(sorted(glob.glob(os.path.join(root, "**", "*.xml"), recursive=True)), a.binary, a.steps, root)


if __name__ == "__main__":
    main()
