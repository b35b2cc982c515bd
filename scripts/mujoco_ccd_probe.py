"""Looks inside MuJoCo 4.0.1's native GJK/EPA (`mjc_ccd`) for one geom pair, to compare our port step by step.

`mjc_ccd`, `mjc_ccdSize` and `mjc_initCCDObj` are exported by libmujoco, but their structs are internal: the layouts
below (`mjCCDConfig`, `mjCCDStatus`, the polytope's `Vertex` and `Face` in the config's buffer) are those of 4.0.1,
read off its disassembly, and may change with any release. The script checks the version.

For iteration caps 1..35 it prints the distance `mjc_ccd` returns (GJK's while GJK runs, then EPA's face after that
many EPA iterations) with the iteration counts, and for the cap given by --dump the initial polytope (vertices of
the Minkowski difference and faces with their distance). Running our port with the same cap shows the first
iteration where the two part (`crates/collision/src/pairs/mujoco/convex/`).

Usage: python3 scripts/mujoco_ccd_probe.py MODEL.xml GEOM1 GEOM2 [--steps N] [--dump CAP]
(the pair's poses after N `mj_step`s from keyframe 0, if the model has one).
"""
import argparse
import ctypes
import struct
from pathlib import Path

import mujoco
import numpy as np

STATUS_DIST, STATUS_X1, STATUS_X2, STATUS_ITER = 8, 408, 1608, 2840
VERTEX, FACE = 80, 56


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("geom1", type=int)
    ap.add_argument("geom2", type=int)
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--dump", type=int, default=0)
    args = ap.parse_args()
    assert mujoco.__version__ == "4.0.1", f"layouts are 4.0.1's, not {mujoco.__version__}'s"
    lib = ctypes.CDLL(str(Path(mujoco.__file__).parent / "libmujoco.so.4.0.1"))
    lib.mjc_initCCDObj.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int, ctypes.c_double]
    lib.mjc_ccdSize.restype = ctypes.c_size_t
    lib.mjc_ccd.restype = ctypes.c_double

    m = mujoco.MjModel.from_xml_path(args.model)
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(args.steps):
        mujoco.mj_step(m, d)
    mujoco.mj_kinematics(m, d)
    g1, g2 = args.geom1, args.geom2
    margin = m.geom_margin[g1] + m.geom_margin[g2]  # MuJoCo 4.0 sums them
    objs = [ctypes.create_string_buffer(4096) for _ in range(2)]
    for obj, g in zip(objs, (g1, g2)):
        lib.mjc_initCCDObj(obj, ctypes.c_void_p(m._address), ctypes.c_void_p(d._address), g, margin)
    status = ctypes.create_string_buffer(8192)
    iterations = m.opt.ccd_iterations

    def run(cap):
        buffer = ctypes.create_string_buffer(lib.mjc_ccdSize(m.npolygonmax, m.nmeshdegmax, cap) + 64)
        config = ctypes.create_string_buffer(64)
        struct.pack_into("i4xdi4xdQii", config, 0, cap, m.opt.ccd_tolerance, 1, 0.0, ctypes.addressof(buffer),
                         m.npolygonmax, m.nmeshdegmax)
        dist = lib.mjc_ccd(config, status, objs[0], objs[1])
        return dist, struct.unpack_from("iii", status.raw, STATUS_ITER), buffer.raw

    print(f"geoms {g1} (type {m.geom_type[g1]}) and {g2} (type {m.geom_type[g2]}), tolerance {m.opt.ccd_tolerance}")
    for cap in range(1, iterations + 1):
        dist, (gjk, epa, epa_status), _ = run(cap)
        x1 = np.array(struct.unpack_from("3d", status.raw, STATUS_X1))
        x2 = np.array(struct.unpack_from("3d", status.raw, STATUS_X2))
        print(f"cap {cap:2d}: gjk {gjk:2d} epa {epa:2d} status {epa_status:2d} dist {dist:.17e} "
              f"pos {((x1 + x2) / 2).tolist()}")
    if args.dump:
        _, _, raw = run(args.dump)
        print(f"polytope after cap {args.dump}:")
        for i in range(5 + args.dump):
            v = struct.unpack_from("3d", raw, VERTEX * i)
            if any(v):
                print(f"  vertex {i}: {[f'{x:.17e}' for x in v]}")
        faces = (VERTEX * (5 + args.dump) + 7) // 8 * 8
        for f in range(6 * args.dump):
            verts, *adj = struct.unpack_from("4i", raw, faces + FACE * f)
            v = struct.unpack_from("4d", raw, faces + FACE * f + 16)
            index, = struct.unpack_from("i", raw, faces + FACE * f + 48)
            if verts or v[3]:
                print(f"  face {f}: {[verts & 0x3FF, verts >> 10 & 0x3FF, verts >> 20 & 0x3FF]} adj {adj} "
                      f"dist {v[3] ** 0.5:.15e} map index {index}")


if __name__ == "__main__":
    main()
