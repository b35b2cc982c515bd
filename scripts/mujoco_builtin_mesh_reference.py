"""MuJoCo 4.0's builtin meshes (crates/mjcf/tests/data/builtin_meshes.xml), for crates/mjcf/tests/builtin_mesh.rs.

Writes crates/mjcf/tests/data/builtin_meshes_reference.json: per mesh, of its raw generated vertices (spec level,
before MuJoCo re-centres them) and faces, the counts, the first 12 vertices and two order-dependent checksums
(Σ (i+1)·x_i over the float32 vertex coordinates and over the face indices, summed in order in double precision);
per body its compiled mass and principal inertia. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_builtin_mesh_reference.py
"""
import hashlib
import json
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "mjcf" / "tests" / "data" / "builtin_meshes.xml"


def main():
    spec = mujoco.MjSpec.from_file(str(SCENE))
    def checksum(values):
        total = 0.0
        for i, x in enumerate(values):
            total += (i + 1) * float(x)
        return total

    meshes = {}
    for mesh in spec.meshes:
        v = [float(x) for x in mesh.uservert]
        f = [int(x) for x in mesh.userface]
        meshes[mesh.name] = {"scale": list(mesh.scale), "nvert": len(v) // 3, "nface": len(f) // 3, "first": v[:36],
                             "vertex_checksum": checksum(v), "face_checksum": checksum(f)}
    m = spec.compile()
    out = {
        "mujoco": mujoco.__version__,
        "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest(),
        "meshes": meshes,
        "bodies": {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b): {"mass": float(m.body_mass[b]),
                                                                      "inertia": m.body_inertia[b].tolist()}
                   for b in range(1, m.nbody)},
    }
    target = SCENE.with_name("builtin_meshes_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
