"""MuJoCo 4.0.1's compiler-side `mjuu_eig3` (the principal axes of bodies' and meshes' inertias), called in its
library, for `crates/mjcf/src/eig3.rs`'s bit-for-bit test.

`mjuu_eig3(eigval, eigvec, quat, mat, tol)` is a static C++ function of libmujoco 4.0.1 (`nm -C`: at 0x4e0680; the
body compiler passes `tol` 4e-15, the mesh compiler 1e-7). The script calls it at that address (found from the
exported `mjc_ccd` at 0x1d9900) and refuses another version.

Writes crates/mjcf/tests/data/eig3_mujoco.json: `{"mujoco", "cases": [{"full": [xx, yy, zz, xy, xz, yz], "tol",
"eigval", "quat"}]}`: 300 random positive definite tensors (scales 1e-6 to 1), each with both tolerances, and
degenerate ones (diagonal in and out of order, isotropic, two equal moments, nearly diagonal).

Usage: python3 scripts/mujoco_eig3_reference.py
"""
import ctypes
import json
from pathlib import Path

import mujoco
import numpy as np

OUT = Path(__file__).resolve().parents[1] / "crates/mjcf/tests/data/eig3_mujoco.json"
EIG3_ADDR, CCD_ADDR = 0x4E0680, 0x1D9900


def main():
    assert mujoco.__version__ == "4.0.1", f"addresses are 4.0.1's, not {mujoco.__version__}'s"
    lib = ctypes.CDLL(str(Path(mujoco.__file__).parent / "libmujoco.so.4.0.1"))
    base = ctypes.cast(lib.mjc_ccd, ctypes.c_void_p).value - CCD_ADDR
    ptr = ctypes.c_void_p
    eig3 = ctypes.CFUNCTYPE(ctypes.c_int, ptr, ptr, ptr, ptr, ctypes.c_double)(base + EIG3_ADDR)

    def call(full, tol):
        xx, yy, zz, xy, xz, yz = full
        mat = (ctypes.c_double * 9)(xx, xy, xz, xy, yy, yz, xz, yz, zz)
        val, vec, quat = (ctypes.c_double * 3)(), (ctypes.c_double * 9)(), (ctypes.c_double * 4)()
        eig3(ctypes.addressof(val), ctypes.addressof(vec), ctypes.addressof(quat), ctypes.addressof(mat), tol)
        return list(val), list(quat)

    rng = np.random.default_rng(5)
    tensors = [[1.0, 1.0, 1.0, 0, 0, 0], [0.1, 0.3, 0.2, 0, 0, 0], [0.3, 0.2, 0.1, 0, 0, 0],
               [0.2, 0.2, 0.1, 0, 0, 0], [0.2, 0.2, 0.1, 1e-13, 0, 0], [1.0, 1.0, 1.0, 1e-9, -2e-9, 3e-9]]
    for _ in range(300):
        a = rng.normal(size=(3, 3))
        m = a @ a.T * 10 ** rng.uniform(-6, 0)
        tensors.append([m[0, 0], m[1, 1], m[2, 2], m[0, 1], m[0, 2], m[1, 2]])
    cases = []
    for full in tensors:
        full = [float(x) for x in full]
        for tol in (4e-15, 1e-7):
            val, quat = call(full, tol)
            cases.append({"full": full, "tol": tol, "eigval": val, "quat": quat})
    OUT.write_text(json.dumps({"mujoco": mujoco.__version__, "cases": cases}))
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
