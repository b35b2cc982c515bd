"""MuJoCo 4.0.1's tendon wrapping (`mju_wrap`) on random cases, for crates/model/tests/wrap.rs.

Writes crates/model/tests/data/mujoco_wrap.json: spheres and cylinders of random pose and radius, tendon ends outside
them, without a side site, with one outside (it picks the side) and with one inside (MuJoCo then wraps from the inside,
`wrap_inside`), and the library's answer: the wrap length (-1: no wrap) and the two tangent points. `mju_wrap` is not
exported by the 4.0.1 library; it is called at its address (its offset in the library's symbol table, checked against
`mj_step`'s). The script refuses any MuJoCo but 4.0.1. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_wrap_cases.py
"""
import ctypes
import glob
import json
import os
import subprocess
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "crates" / "model" / "tests" / "data" / "mujoco_wrap.json"


def symbol_offsets(path, names):
    """Offsets of `names` in the library's full symbol table (`nm`, hidden symbols included)."""
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in names:
            found[parts[2]] = int(parts[0], 16)
    return found


def main():
    if mujoco.__version__ != "4.0.1":
        raise SystemExit(f"needs MuJoCo 4.0.1 (found {mujoco.__version__})")
    path = glob.glob(os.path.join(os.path.dirname(mujoco.__file__), "libmujoco.so.4.0.1"))[0]
    lib = ctypes.CDLL(path)
    offsets = symbol_offsets(path, {"mju_wrap", "mj_step"})
    if "mju_wrap" not in offsets:
        raise SystemExit("mju_wrap not found in the library's symbol table")
    base = ctypes.cast(lib.mj_step, ctypes.c_void_p).value - offsets["mj_step"]
    vec = ctypes.POINTER(ctypes.c_double)
    wrap = ctypes.CFUNCTYPE(ctypes.c_double, vec, vec, vec, vec, vec, ctypes.c_double, ctypes.c_int, vec)(
        base + offsets["mju_wrap"])

    def arr(values):
        return (ctypes.c_double * len(values))(*values)

    rng = np.random.default_rng(20261205)
    cases = []
    while len(cases) < 600:
        kind = int(rng.integers(0, 2))  # 0: sphere, 1: cylinder
        radius = float(rng.uniform(0.02, 0.3))
        pos = rng.normal(size=3) * 0.5
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        mat = np.zeros(9)
        mujoco.mju_quat2Mat(mat, q)
        ends = []
        for _ in range(2):
            d = rng.normal(size=3)
            d /= np.linalg.norm(d)
            ends.append(pos + d * radius * rng.uniform(1.05, 4.0))
        x0, x1 = ends
        mode = len(cases) % 3
        side = None
        if mode == 1:
            d = rng.normal(size=3)
            side = pos + d / np.linalg.norm(d) * radius * rng.uniform(1.1, 2.0)
        elif mode == 2:
            d = rng.normal(size=3)
            side = pos + d / np.linalg.norm(d) * radius * rng.uniform(0.0, 0.9)
        wpnt = (ctypes.c_double * 6)()
        wrap_type = mujoco.mjtWrap.mjWRAP_CYLINDER if kind else mujoco.mjtWrap.mjWRAP_SPHERE
        length = wrap(wpnt, arr(x0), arr(x1), arr(pos), arr(mat), radius, int(wrap_type),
                      arr(side) if side is not None else None)
        cases.append({
            "sphere": kind == 0, "radius": radius, "pos": pos.tolist(), "mat": mat.tolist(),
            "x0": x0.tolist(), "x1": x1.tolist(), "side": None if side is None else side.tolist(),
            "length": length, "points": list(wpnt),
        })
    OUT.write_text(json.dumps({"mujoco": mujoco.__version__, "cases": cases}) + "\n")
    wraps = sum(c["length"] >= 0 for c in cases)
    print(f"wrote {OUT}: {len(cases)} cases, {wraps} wrap")


if __name__ == "__main__":
    main()
