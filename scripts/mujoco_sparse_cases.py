"""MuJoCo 4.0.1's sparse Jacobian products on random problems, for the tests of crates/solver/src/mujoco_sparse.rs.

Writes crates/solver/tests/data/mujoco_sparse.json. Each case is a forest of kinematic trees (chains, and
free-body-like blocks), constraint rows `J` over the dofs of one or two chains (MuJoCo's sparsity of a contact between
two bodies, in groups of rows with one pattern, as a contact's rows come), a vector `x` and row forces `f` (some
zero), and the library's answers: `jx = J x` (`mju_mulMatVecSparse` over `J` with `mju_superSparse`'s supernodes) and
`jtf = Jᵀ f` (`mju_mulMatVecSparse` over `mju_transposeSparse`'s `Jᵀ` with its supernodes), as `mj_solPrimal` forms
`Jaref` and `qfrc_constraint` on a model it keeps sparse.

The script refuses any MuJoCo but 4.0.1. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_sparse_cases.py
"""
import ctypes
import json
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "crates" / "solver" / "tests" / "data" / "mujoco_sparse.json"

I = ctypes.c_int
P = ctypes.POINTER


def dbl(values):
    return (ctypes.c_double * max(1, len(values)))(*values)


def ints(values):
    return (ctypes.c_int * max(1, len(values)))(*values)


def bind(lib):
    f = {}
    dp, ip = P(ctypes.c_double), P(I)
    spec = {
        "mju_mulMatVecSparse": (None, [dp, dp, dp, I, ip, ip, ip, ip]),
        "mju_superSparse": (None, [I, ip, ip, ip, ip]),
        "mju_transposeSparse": (None, [dp, dp, I, I, ip, ip, ip, ip, ip, ip, ip]),
    }
    for name, (res, args) in spec.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
        f[name] = fn
    return f


def make_case(rng, f):
    # A forest of trees: chains (a row through a dof holds its ancestors) and free-body-like blocks (all six).
    chains = []
    nv = 0
    while nv < int(rng.integers(20, 70)):
        size = int(rng.integers(1, 7))
        chains.append((list(range(nv, nv + size)), rng.random() < 0.4))
        nv += size
    # J: rows over the ancestor chains of one or two dofs, in groups of 1–4 rows with the same pattern.
    j_rows = []
    nefc_target = int(rng.integers(5, 40))
    while len(j_rows) < nefc_target:
        picks = rng.choice(len(chains), size=int(rng.integers(1, 3)), replace=False)
        cols = set()
        for c in picks:
            dofs, diagonal = chains[c]
            cols.update(dofs if diagonal else dofs[:int(rng.integers(1, len(dofs) + 1))])
        cols = sorted(cols)
        for _ in range(int(rng.integers(1, 5))):
            vals = rng.normal(size=len(cols))
            vals[rng.random(len(cols)) < 0.05] = 0.0
            j_rows.append((cols, [float(v) for v in vals]))
    nefc = len(j_rows)

    # Compressed arrays.
    j_rownnz = [len(c) for c, _ in j_rows]
    j_rowadr = list(np.concatenate([[0], np.cumsum(j_rownnz)[:-1]]).astype(int))
    j_colind = [c for cols, _ in j_rows for c in cols]
    j_val = [v for _, vals in j_rows for v in vals]
    nj = len(j_colind)

    cJ, cJnnz, cJadr, cJcol = dbl(j_val), ints(j_rownnz), ints(j_rowadr), ints(j_colind)
    j_super = ints([0] * nefc)
    f["mju_superSparse"](nefc, j_super, cJnnz, cJadr, cJcol)
    JT, JTnnz, JTadr, JTcol, JTsuper = dbl([0] * nj), ints([0] * nv), ints([0] * nv), ints([0] * nj), ints([0] * nv)
    f["mju_transposeSparse"](JT, cJ, nefc, nv, JTnnz, JTadr, JTcol, JTsuper, cJnnz, cJadr, cJcol)

    x = [float(v) for v in rng.normal(size=nv)]
    force = [float(v) if rng.random() > 0.3 else 0.0 for v in rng.normal(size=nefc) * 10]
    jx = dbl([0] * nefc)
    f["mju_mulMatVecSparse"](jx, cJ, dbl(x), nefc, cJnnz, cJadr, cJcol, j_super)
    jtf = dbl([0] * nv)
    f["mju_mulMatVecSparse"](jtf, JT, dbl(force), nv, JTnnz, JTadr, JTcol, JTsuper)

    return {
        "nv": nv,
        "j_rows": j_rows,
        "x": x,
        "force": force,
        "jx": [jx[i] for i in range(nefc)],
        "jtf": [jtf[i] for i in range(nv)],
    }


def main():
    if mujoco.__version__ != "4.0.1":
        raise SystemExit(f"needs MuJoCo 4.0.1 (found {mujoco.__version__})")
    lib = ctypes.CDLL(str(next(Path(mujoco.__file__).parent.glob("libmujoco.so.4.0.1"))))
    f = bind(lib)
    rng = np.random.default_rng(20261206)
    cases = [make_case(rng, f) for _ in range(50)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"mujoco": mujoco.__version__, "cases": cases}))
    print(f"wrote {len(cases)} cases to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
