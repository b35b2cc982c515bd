"""MuJoCo 4.0's compiled model and a short run of crates/mjcf/tests/data/attach/attach.xml (<model>/<attach>, and
elements referring to what a <replicate> copies), for crates/mjcf/tests/attach.rs.

Writes crates/mjcf/tests/data/attach/attach_reference.json: the bodies (name, parent, pos, quat, mass), joints (name,
body, type, range, damping, stiffness, armature), geoms (name, body, type, size, friction), tendons (name, stiffness,
limited range), actuators (name, gear, transmission target), contact exclusions, keyframes, and qpos after 20, 40
and 60 MuJoCo-compatible steps from keyframe 1 with its controls. Needs `pip install mujoco`.

Also writes frame_attach_reference.json: the geoms (names, bodies, world positions, sizes) and bodies of
frame_attach.xml (<attach frame> within one file).

Usage: python3 scripts/mujoco_attach_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "crates" / "mjcf" / "tests" / "data" / "attach"
SCENE = DATA / "attach.xml"


def name(m, kind, i):
    return mujoco.mj_id2name(m, kind, i) or ""


def main():
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    obj = mujoco.mjtObj
    trn_kind = {int(mujoco.mjtTrn.mjTRN_JOINT): obj.mjOBJ_JOINT, int(mujoco.mjtTrn.mjTRN_TENDON): obj.mjOBJ_TENDON}
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 1)
    run = []
    for step in range(1, 61):
        mujoco.mj_step(m, d)
        if step % 20 == 0:
            run.append({"step": step, "qpos": d.qpos.tolist()})
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes() + (DATA / "arm.xml").read_bytes()).hexdigest(),
        "nq": m.nq,
        "nv": m.nv,
        "bodies": [
            {"name": name(m, obj.mjOBJ_BODY, b), "parent": int(m.body_parentid[b]), "pos": m.body_pos[b].tolist(),
             "quat": m.body_quat[b].tolist(), "mass": float(m.body_mass[b])}
            for b in range(m.nbody)
        ],
        "joints": [
            {"name": name(m, obj.mjOBJ_JOINT, j), "body": int(m.jnt_bodyid[j]), "type": int(m.jnt_type[j]),
             "limited": bool(m.jnt_limited[j]), "range": m.jnt_range[j].tolist(),
             "damping": float(m.dof_damping[m.jnt_dofadr[j]]), "stiffness": float(m.jnt_stiffness[j]),
             "armature": float(m.dof_armature[m.jnt_dofadr[j]])}
            for j in range(m.njnt)
        ],
        "geoms": [
            {"name": name(m, obj.mjOBJ_GEOM, g), "body": int(m.geom_bodyid[g]), "type": int(m.geom_type[g]),
             "size": m.geom_size[g].tolist(), "friction": m.geom_friction[g].tolist()}
            for g in range(m.ngeom)
        ],
        "tendons": [
            {"name": name(m, obj.mjOBJ_TENDON, t), "stiffness": float(m.tendon_stiffness[t]),
             "limited": bool(m.tendon_limited[t]), "range": m.tendon_range[t].tolist()}
            for t in range(m.ntendon)
        ],
        "actuators": [
            {"name": name(m, obj.mjOBJ_ACTUATOR, a), "gear": float(m.actuator_gear[a][0]),
             "target": name(m, trn_kind[int(m.actuator_trntype[a])], int(m.actuator_trnid[a][0]))}
            for a in range(m.nu)
        ],
        "excludes": [
            [name(m, obj.mjOBJ_BODY, s >> 16), name(m, obj.mjOBJ_BODY, s & 0xFFFF)]
            for s in m.exclude_signature.tolist()
        ],
        "keys": [
            {"name": name(m, obj.mjOBJ_KEY, k), "qpos": m.key_qpos[k].tolist(), "qvel": m.key_qvel[k].tolist(),
             "ctrl": m.key_ctrl[k].tolist()}
            for k in range(m.nkey)
        ],
        "run": run,
    }
    target = DATA / "attach_reference.json"
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


def frame_reference():
    """The geoms (name, body, world position) and bodies of frame_attach.xml after mj_forward."""
    scene = DATA / "frame_attach.xml"
    m = mujoco.MjModel.from_xml_path(str(scene))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(scene.read_bytes()).hexdigest(),
        "geoms": [{"name": name(m, mujoco.mjtObj.mjOBJ_GEOM, g), "body": int(m.geom_bodyid[g]),
                   "xpos": d.geom_xpos[g].tolist(), "size": m.geom_size[g].tolist()} for g in range(m.ngeom)],
        "bodies": [name(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(m.nbody)],
    }
    target = DATA / "frame_attach_reference.json"
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
    frame_reference()
