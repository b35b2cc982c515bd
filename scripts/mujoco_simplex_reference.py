"""MuJoCo 4.0.1's `S1D` and `S2D` (the GJK sub-distance routines of `engine_collision_gjk.c`) on random segments
and triangles, for `convex/gjk.rs`'s bit-for-bit test.

Both are static in libmujoco; this calls them at their addresses in 4.0.1's library (`nm libmujoco.so.4.0.1`:
`S2D` at 0x1e04b0, `S1D` at 0x1e08c0, `mjc_ccd` at 0x1d9900 to find the load base), so it checks the version.

Writes crates/collision/tests/data/simplex_mujoco.json: `{"mujoco", "cases": [{"s": [s1, s2, s3], "l2": S2D's
weights, "l1": S1D's weights of s1 s2}]}`: 400 cases, cycling through random triangles, slivers (the third vertex
within 1e-12 of the first two's midpoint), millimetre-sized ones, near-duplicate (1e-9) and duplicate vertices.

Usage: python3 scripts/mujoco_simplex_reference.py [OUT]
"""
import ctypes
import json
import random
import sys
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "crates/collision/tests/data/simplex_mujoco.json"
S2D_ADDR, S1D_ADDR, CCD_ADDR = 0x1E04B0, 0x1E08C0, 0x1D9900


def main():
    assert mujoco.__version__ == "4.0.1", f"addresses are 4.0.1's, not {mujoco.__version__}'s"
    lib = ctypes.CDLL(str(Path(mujoco.__file__).parent / "libmujoco.so.4.0.1"))
    base = ctypes.cast(lib.mjc_ccd, ctypes.c_void_p).value - CCD_ADDR
    ptr = ctypes.c_void_p
    s2d = ctypes.CFUNCTYPE(None, ptr, ptr, ptr, ptr)(base + S2D_ADDR)
    s1d = ctypes.CFUNCTYPE(None, ptr, ptr, ptr)(base + S1D_ADDR)
    d3 = ctypes.c_double * 3

    def call(f, n, *pts):
        out = (ctypes.c_double * n)()
        args = [d3(*p) for p in pts]
        f(ctypes.addressof(out), *[ctypes.addressof(a) for a in args])
        return list(out)

    rng = random.Random(7)

    def point():
        return [rng.uniform(-1, 1) for _ in range(3)]

    cases = []
    for i in range(400):
        a, b, c = point(), point(), point()
        kind = i % 8
        if kind == 1:
            c = [(a[k] + b[k]) * 0.5 + rng.uniform(-1e-12, 1e-12) for k in range(3)]
        elif kind == 2:
            a, b, c = ([x * 1e-3 for x in p] for p in (a, b, c))
        elif kind == 3:
            b = [a[k] + rng.uniform(-1e-9, 1e-9) for k in range(3)]
        elif kind == 5:
            c = list(b)
        cases.append({"s": [a, b, c], "l2": call(s2d, 3, a, b, c), "l1": call(s1d, 2, a, b)})
    OUT.write_text(json.dumps({"mujoco": mujoco.__version__, "cases": cases}))
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
