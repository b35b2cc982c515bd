"""MuJoCo 4.0 on crates/sim/tests/data/cubelets.xml, for mujoco_parity_cubelets in crates/sim/tests/scenes.rs.

The scene (written by this script) is a 3×3×3 puzzle cube as MuJoCo's model/cube/cube_3x3x3.xml builds it: 26
chamfered-cube meshes (scale 1e-3) around a fixed core, the six face centres on hinges whose axes pass through their
centres of mass, the others on ball joints, condim 1, friction loss and armature on every joint. Under gravity the
cubelets settle against each other by less than a micrometre. Two things make it a test: a face cubelet's
translational inverse weight is 0, which MuJoCo 4.0 keeps (its contacts' regulariser `R` is proportional to it), and
touching faces cross by 4e-7 m only because MuJoCo narrows mesh vertices to single precision in the mesh frame.

Writes the scene and crates/sim/tests/data/cubelets_reference.json: for the pyramidal and the elliptic cone, from
qpos0, ncon, qpos and qvel after steps 1, 2, 5, 10 and 11 (at step 12 a
mesh pair's four-point manifold is chosen from its clipped polygon differently, and the runs part by 1e-6). Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_cubelets_reference.py
"""
import hashlib
import itertools
import json
from pathlib import Path

import mujoco

from mujoco_mesh_vertices import chamfered_cube
from mujoco_reference_run import snapshots

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "crates" / "sim" / "tests" / "data" / "cubelets.xml"
STEPS = [1, 2, 5, 10, 11]


def cubelets():
    out = []
    for cell in itertools.product((-1, 0, 1), repeat=3):
        if cell == (0, 0, 0):
            continue
        name = "c" + "".join("n0p"[i + 1] for i in cell)
        pos = " ".join(f"{0.019 * i:g}" for i in cell)
        if sum(map(abs, cell)) == 1:
            joint = f'<joint name="{name}" type="hinge" axis="{" ".join(str(i) for i in cell)}"/>'
        else:
            joint = f'<joint name="{name}"/>'
        out.append(f'      <body name="{name}">{joint}<geom pos="{pos}"/></body>')
    return "\n".join(out)


def xml():
    return f"""<mujoco model="cubelets">
  <!-- A 3x3x3 puzzle cube as MuJoCo's model/cube/cube_3x3x3.xml builds it, for
       scripts/mujoco_cubelets_reference.py (which writes this file). -->
  <option timestep="0.01" integrator="implicitfast"/>
  <default>
    <geom mass="0.00253704"/>
    <default class="cubelet">
      <joint type="ball" armature="0.0001" damping="0.0005" frictionloss="0.001"/>
      <geom type="mesh" condim="1" mesh="cubelet" euler="0 0 90"/>
    </default>
    <default class="core">
      <geom type="sphere" contype="0" conaffinity="0" size="0.01"/>
    </default>
  </default>
  <asset>
    <mesh name="cubelet" scale="1e-3 1e-3 1e-3" vertex="{chamfered_cube()}"/>
  </asset>
  <worldbody>
    <body name="core" childclass="cubelet">
      <geom class="core"/>
{cubelets()}
    </body>
  </worldbody>
</mujoco>
"""


def run(m):
    snaps, _ = snapshots(mujoco, m, STEPS, lambda d: {
        "ncon": int(d.ncon),
        "qpos": d.qpos.tolist(),
        "qvel": d.qvel.tolist(),
    })
    return snaps


def main():
    SCENE.write_text(xml())
    m = mujoco.MjModel.from_xml_path(str(SCENE))
    out = {"mujoco": mujoco.__version__, "scene_sha256": hashlib.sha256(SCENE.read_bytes()).hexdigest()}
    out["pyramidal"] = run(m)
    m.opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    out["elliptic"] = run(m)
    target = SCENE.with_name("cubelets_reference.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {SCENE} and {target}: ncon " + ", ".join(
        f"{k}: {v['ncon']}" for k, v in out["pyramidal"].items()))


if __name__ == "__main__":
    main()
