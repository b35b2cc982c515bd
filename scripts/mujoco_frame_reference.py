"""MuJoCo 4.0's compiled frames of crates/mjcf/tests/data/frames.xml (<frame> and <replicate>), for the MJCF tests.

Writes crates/mjcf/tests/data/frames_reference.json: per body (MuJoCo's order) its name, parent, pos and quat; per
joint its name, body, pos and axis; per geom its name, body, pos and quat; per site its name, body, pos and quat, and
nq, nv. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_frame_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "mjcf" / "tests" / "data" / "frames.xml"


def name(m, kind, i):
    return mujoco.mj_id2name(m, kind, i) or ""


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    obj = mujoco.mjtObj
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "nq": m.nq,
        "nv": m.nv,
        "bodies": [
            {"name": name(m, obj.mjOBJ_BODY, b), "parent": int(m.body_parentid[b]),
             "pos": m.body_pos[b].tolist(), "quat": m.body_quat[b].tolist()}
            for b in range(m.nbody)
        ],
        "joints": [
            {"name": name(m, obj.mjOBJ_JOINT, j), "body": int(m.jnt_bodyid[j]),
             "pos": m.jnt_pos[j].tolist(), "axis": m.jnt_axis[j].tolist()}
            for j in range(m.njnt)
        ],
        "geoms": [
            {"name": name(m, obj.mjOBJ_GEOM, g), "body": int(m.geom_bodyid[g]),
             "pos": m.geom_pos[g].tolist(), "quat": m.geom_quat[g].tolist()}
            for g in range(m.ngeom)
        ],
        "sites": [
            {"name": name(m, obj.mjOBJ_SITE, s), "body": int(m.site_bodyid[s]),
             "pos": m.site_pos[s].tolist(), "quat": m.site_quat[s].tolist()}
            for s in range(m.nsite)
        ],
    }
    path = SCENE.parent / "frames_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
