"""MuJoCo 4.0.1's compiled body inertias and geom frames on crates/mjcf/tests/data/geom_inertia.xml (bodies whose
inertia is combined from several geoms, geoms oriented by `fromto` and `zaxis`), at full precision, for the
bit-for-bit test in crates/mjcf/tests/reference_inertia.rs.

Writes crates/mjcf/tests/data/geom_inertia_mujoco.json: body_mass, body_inertia, body_ipos, body_iquat, geom_pos,
geom_quat and geom_size. Needs `pip install mujoco` (4.0.1).

Usage: python3 scripts/mujoco_geom_inertia.py
"""
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates/mjcf/tests/data/geom_inertia.xml"
OUT = ROOT / "crates/mjcf/tests/data/geom_inertia_mujoco.json"


def main():
    assert mujoco.__version__ == "4.0.1", f"reference for 4.0.1, not {mujoco.__version__}"
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    keys = ("body_mass", "body_inertia", "body_ipos", "body_iquat", "geom_pos", "geom_quat", "geom_size")
    OUT.write_text(json.dumps({"mujoco": mujoco.__version__, **{k: getattr(m, k).tolist() for k in keys}}) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
