"""A MuJoCo 4.0 reference run of crates/sim/tests/data/mocap.xml (mocap bodies), for the sim tests.

From keyframe 0, before every step the paddle (mocap 0) is put at `paddle_pose(t)`, the same function as the Rust test's:
x = -0.2 + 0.6 (1 - cos(pi t / 1.5)) / 2 for t <= 1.5 s then held, z = 0.07, turned about z by 0.3 sin(2 t). Writes
crates/sim/tests/data/mocap_reference.json: the contact count, the mocap-body contacts (none expected with the floor or
between the mocap bodies) and qpos at steps 1, 100, 300, 600, 1000 and 1500. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_mocap_reference.py
"""
import hashlib
import json
import math
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "mocap.xml"
STEPS = 1500
SNAPSHOTS = (1, 100, 300, 600, 1000, 1500)


def paddle_pose(t):
    s = min(t, 1.5)
    x = -0.2 + 0.6 * (1 - math.cos(math.pi * s / 1.5)) / 2
    a = 0.3 * math.sin(2 * t)
    return [x, 0.0, 0.07], [math.cos(a / 2), 0.0, 0.0, math.sin(a / 2)]


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    assert list(d.mocap_pos[1]) == [0.1, 0.2, 0.03]
    marker = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "marker")
    floor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    snaps, max_ncon, paddle_contacts, static_contacts = {}, 0, 0, 0
    for k in range(1, STEPS + 1):
        pos, quat = paddle_pose(d.time)
        d.mocap_pos[0], d.mocap_quat[0] = pos, quat
        mujoco.mj_step(m, d)
        max_ncon = max(max_ncon, d.ncon)
        for c in d.contact[: d.ncon]:
            geoms = set(c.geom)
            if marker in geoms or (floor in geoms and m.geom_bodyid[list(geoms - {floor})[0]] in (1, 2)):
                static_contacts += 1
            if m.geom_bodyid[c.geom[0]] == 1 or m.geom_bodyid[c.geom[1]] == 1:
                paddle_contacts += 1
        if k in SNAPSHOTS:
            snaps[str(k)] = {"ncon": int(d.ncon), "qpos": d.qpos.tolist()}
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "steps": STEPS,
        "paddle_contacts": paddle_contacts,
        "mocap_static_contacts": static_contacts,
        "snapshots": snaps,
    }
    path = SCENE.parent / "mocap_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: max ncon {max_ncon}, paddle contacts {paddle_contacts}")


if __name__ == "__main__":
    main()
