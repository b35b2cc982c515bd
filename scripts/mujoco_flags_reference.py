"""MuJoCo 4.0.1 with each disable flag on crates/sim/tests/data/flags.xml (springs, dampers, both, actuation, clampctrl,
warmstart, filterparent, refsafe, eulerdamp), for mujoco_parity_flags in crates/sim/tests/scenes.rs.

Writes crates/sim/tests/data/flags_reference.json: per variant (the flags written into `<option>` as
`<flag NAME="disable"/>`), from keyframe 0, ncon, qpos and act after steps 1, 50, 200, 316 and 400. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_flags_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

from mujoco_reference_run import snapshots

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "flags.xml"
VARIANTS = [[], ["spring"], ["damper"], ["spring", "damper"], ["actuation"], ["clampctrl"], ["warmstart"],
            ["filterparent"], ["refsafe"], ["eulerdamp"]]
STEPS = [1, 50, 200, 316, 400]


def with_flags(text, flags):
    if not flags:
        return text
    tags = " ".join(f'{f}="disable"' for f in flags)
    return text.replace('viscosity="0.01"/>', f'viscosity="0.01"><flag {tags}/></option>')


def main():
    text = SCENE.read_text()
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
           "variants": {}}
    for flags in VARIANTS:
        m = mujoco.MjModel.from_xml_string(with_flags(text, flags))
        snaps, _ = snapshots(mujoco, m, STEPS, lambda d: {
            "ncon": int(d.ncon),
            "qpos": d.qpos.tolist(),
            "act": d.act.tolist(),
        })
        out["variants"][" ".join(flags) or "none"] = snaps
    target = SCENE.with_name("flags_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
