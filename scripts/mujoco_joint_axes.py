"""MuJoCo 4.0's compiled joint axes of crates/mjcf/tests/data/joint_axes.xml, for the MJCF tests.

Writes crates/mjcf/tests/data/joint_axes_reference.json: per joint (MuJoCo's order) its name and `jnt_axis`
(shortest round-trip decimals: the test compares them bit for bit). Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_joint_axes.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "mjcf" / "tests" / "data" / "joint_axes.xml"


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "joints": [
            {"name": mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j), "axis": m.jnt_axis[j].tolist()}
            for j in range(m.njnt)
        ],
    }
    path = SCENE.with_name("joint_axes_reference.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path} ({m.njnt} joints)")


if __name__ == "__main__":
    main()
