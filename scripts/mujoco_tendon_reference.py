"""MuJoCo 4.0 reference runs of crates/sim/tests/data/tendon.xml (fixed tendons) and spatial_tendon.xml (spatial
tendons through sites), for the sim tests.

Writes crates/sim/tests/data/{tendon,spatial_tendon}_reference.json: the compiled tendon_invweight0,
tendon_lengthspring and the tendon Jacobians' sparsity (ten_J_rowadr, ten_J_colind); at the
keyframe after `mj_forward` ten_length, ten_velocity, qfrc_passive, qfrc_actuator, actuator_length (the tendon
actuators) and the constraint rows by type; then, from the
keyframe, the row count by type, qpos, qvel and ten_length at steps 1, 50, 200, 500 and 1000 of `mj_step`. Needs
`pip install mujoco`.

Also writes tendon_equality_reference.json and tendon_wrap_reference.json (tendon equalities; wrapping and pulleys:
qpos, qvel, sensordata at steps 1, 100, 500, 1000 from qpos0).

Usage: python3 scripts/mujoco_tendon_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "crates" / "sim" / "tests" / "data"
STEPS = 1000
SNAPSHOTS = (1, 50, 200, 500, 1000)
C = mujoco.mjtConstraint


def rows(d):
    kinds = {"friction_tendon": C.mjCNSTR_FRICTION_TENDON, "limit_tendon": C.mjCNSTR_LIMIT_TENDON,
             "friction_dof": C.mjCNSTR_FRICTION_DOF, "limit_joint": C.mjCNSTR_LIMIT_JOINT}
    return {k: int(sum(1 for t in d.efc_type[: d.nefc] if t == v)) for k, v in kinds.items()}


def reference(scene):
    m = mujoco.MjModel.from_xml_path(str(scene))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    at_key = {
        "ten_length": d.ten_length.tolist(),
        "ten_velocity": d.ten_velocity.tolist(),
        "qfrc_passive": d.qfrc_passive.tolist(),
        "qfrc_actuator": d.qfrc_actuator.tolist(),
        "actuator_length": d.actuator_length.tolist(),
        "rows": rows(d),
    }
    snaps, limit_steps = {}, 0
    for k in range(1, STEPS + 1):
        mujoco.mj_step(m, d)
        limit_steps += rows(d)["limit_tendon"] > 0
        if k in SNAPSHOTS:
            snaps[str(k)] = {"rows": rows(d), "qpos": d.qpos.tolist(), "qvel": d.qvel.tolist(),
                             "ten_length": d.ten_length.tolist()}
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(scene.read_bytes()).hexdigest(),
        "tendon_invweight0": m.tendon_invweight0.tolist(),
        "tendon_lengthspring": m.tendon_lengthspring.tolist(),
        "ten_J_rowadr": m.ten_J_rowadr.tolist(),
        "ten_J_colind": m.ten_J_colind.tolist(),
        "at_keyframe": at_key,
        "steps": STEPS,
        "steps_with_limit_rows": limit_steps,
        "snapshots": snaps,
    }
    path = scene.parent / f"{scene.stem}_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: {limit_steps} steps with tendon limit rows")


def equality_reference(scene):
    """qpos, qvel and sensordata of tendon_equality.xml after steps 1, 100, 500 and 1000 (from qpos0)."""
    m = mujoco.MjModel.from_xml_path(str(scene))
    d = mujoco.MjData(m)
    snaps = {}
    for k in range(1, STEPS + 1):
        mujoco.mj_step(m, d)
        if k in (1, 100, 500, 1000):
            snaps[str(k)] = {"qpos": d.qpos.tolist(), "qvel": d.qvel.tolist(), "sensordata": d.sensordata.tolist(),
                             "equality_rows": int(sum(1 for t in d.efc_type[: d.nefc] if t == C.mjCNSTR_EQUALITY))}
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(scene.read_bytes()).hexdigest(),
           "snapshots": snaps}
    path = scene.parent / f"{scene.stem}_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


def main():
    for name in ("tendon", "spatial_tendon"):
        reference(DATA / f"{name}.xml")
    equality_reference(DATA / "tendon_equality.xml")
    equality_reference(DATA / "tendon_wrap.xml")


if __name__ == "__main__":
    main()
