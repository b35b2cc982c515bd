#!/usr/bin/env python3
"""Native mode against Genesis 1.4.5, side by side on the benchmark scenes (issue 23, item 2).

Genesis is the reference of signorini's native dialect. This script steps each scene of `../shared/scenes` in
Genesis 1.4.5 (CPU backend, f64, its default rigid options; the variant's cone and solver as the file's `<option>`
writes them) and in `signorini run SCENE --steps N --every K --dump` (native mode), and prints per scene:

* mean contacts per step (all steps) and max penetration over the run, of each;
* contact count and max penetration at each snapshot step;
* the largest distance between the two engines' free-body positions at each snapshot (settling).

Genesis is heavy (torch, its Quadrants kernels): install it in its own environment,
`python3 -m venv /tmp/genv && /tmp/genv/bin/pip install genesis-world==1.4.5 torch`, and run this script with that
interpreter: `/tmp/genv/bin/python scripts/genesis_compare.py [--only sphere_drop pyramid] [--steps 500]`.
The first run compiles Genesis's kernels (minutes); later runs hit its cache.

`--scene FILE...` runs scene files from elsewhere instead (e.g. `crates/sim/tests/data/tumble.xml`). Keyframe 0's
`qvel` is applied too.

`--reference DIR` writes Genesis's side alone, one `DIR/<scene>.json` per scene (per-step contact counts, and at every
K steps the contact count, max penetration, free-body positions and quaternions): `crates/sim/tests/genesis_parity.rs` checks native
mode against the files in `crates/sim/tests/data/genesis/`, made with
`--reference crates/sim/tests/data/genesis --only sphere_drop box_stack chain arm pyramid --steps 500 --every 50`, and
`--reference crates/sim/tests/data/genesis --scene crates/sim/tests/data/tumble.xml --steps 200 --every 10` and
`--reference crates/sim/tests/data/genesis --only convex --steps 227 --every 12` (flights, landings, the hulls piling) and
`--reference crates/sim/tests/data/genesis --scene crates/sim/tests/data/offset_com.xml --steps 300 --every 20`.

Usage: genesis_compare.py [--only NAME... | --scene FILE...] [--steps N] [--every K] [--signorini PATH] [--json OUT]
                          [--set NAME=VALUE ...]   (extra `--set` options for signorini, e.g. box_box_detection=false)
                          [--reference DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCENES = REPO.parent / "shared" / "scenes"
DEFAULT_BINARY = REPO / "target" / "release" / "signorini"
DEFAULT_SCENES = ["sphere_drop", "box_stack", "pyramid", "convex", "arm", "chain", "pile"]


def scene_options(xml: str) -> dict:
    """The `<option>` attributes a variant writes (timestep, solver, cone)."""
    opts = {"timestep": 0.002, "solver": "Newton", "cone": "pyramidal"}
    m = re.search(r"<option([^>]*)>", xml)
    if m:
        for key, value in re.findall(r'(\w+)="([^"]*)"', m.group(1)):
            opts[key] = value
    return opts


def run_genesis(path: Path, steps: int, every: int) -> dict:
    import genesis as gs
    import numpy as np

    if not getattr(run_genesis, "initialised", False):
        gs.init(backend=gs.cpu, precision="64", logging_level="warning")
        run_genesis.initialised = True
    opts = scene_options(path.read_text())
    rigid = gs.options.RigidOptions(
        # The pile has more candidate pairs than Genesis's default broad-phase buffer holds.
        multiplier_collision_broad_phase=64,
        constraint_solver=gs.constraint_solver.CG if opts["solver"] == "CG" else gs.constraint_solver.Newton,
        friction_cone=gs.friction_cone.elliptic if opts["cone"] == "elliptic" else gs.friction_cone.pyramidal,
    )
    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=float(opts["timestep"]), substeps=1),
        rigid_options=rigid,
        show_viewer=False,
    )
    entity = scene.add_entity(gs.morphs.MJCF(file=str(path)))
    scene.build()
    solver = scene.rigid_solver
    # Free bodies are compared by their body frame's position (Genesis's free-joint coordinates are MuJoCo's
    # compiled frame of a mesh body, the body frame is the file's).
    free_links = [j.link.idx_local for j in entity.joints if j.type == gs.JOINT_TYPE.FREE]
    targets = apply_keyframe(entity, path)

    def state():
        pos = entity.get_links_pos().cpu().numpy()
        quat = entity.get_links_quat().cpu().numpy()
        c = solver.collider.get_contacts(as_tensor=True, to_torch=False)
        pen = np.asarray(c["penetration"]).reshape(-1)
        return {
            "ncon": int(pen.shape[0]),
            "max_penetration": float(pen.max()) if pen.size else 0.0,
            "qpos_free": [pos[i].tolist() for i in free_links],
            "quat_free": [quat[i].tolist() for i in free_links],
        }

    snapshots, counts, deepest = {}, [], 0.0
    snapshots[0] = state()
    for step in range(1, steps + 1):
        if targets is not None:
            entity.control_dofs_position(*targets)
        scene.step()
        s = state()
        counts.append(s["ncon"])
        deepest = max(deepest, s["max_penetration"])
        if step % every == 0 or step == steps:
            snapshots[step] = s
    return {"mean_contacts": sum(counts) / len(counts), "max_penetration": deepest, "snapshots": snapshots,
            "ncon": counts}


def apply_keyframe(entity, path: Path):
    """Keyframe 0 as `signorini run` applies it: its `qpos` and `qvel`, and its `ctrl` as the position targets of the
    joint actuators (Genesis maps a `<position>` actuator to the joint's PD gains). Returns the control call's
    arguments."""
    import mujoco
    import numpy as np

    mj = mujoco.MjModel.from_xml_path(str(path))
    if mj.nkey == 0:
        return None
    entity.set_qpos(np.asarray(mj.key_qpos[0]))
    if np.any(mj.key_qvel[0] != 0):
        entity.set_dofs_velocity(np.asarray(mj.key_qvel[0]))
    if mj.nu == 0:
        return None
    dofs, values = [], []
    for a in range(mj.nu):
        if mj.actuator_trntype[a] != mujoco.mjtTrn.mjTRN_JOINT:
            raise SystemExit(f"{path.name}: actuator {a} does not drive a joint")
        name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, mj.actuator_trnid[a, 0])
        dofs.append(entity.get_joint(name).dofs_idx_local[0])
        values.append(mj.key_ctrl[0][a])
    return (np.asarray(values), dofs)


def run_ours(binary: Path, path: Path, steps: int, every: int, sets: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "dump.json"
        cmd = [str(binary), "run", str(path), "--steps", str(steps), "--every", str(every), "--dump", str(dump)]
        for s in sets:
            cmd += ["--set", s]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        summary = json.loads(out.strip().splitlines()[-1])
        d = json.loads(dump.read_text())
    snaps = {
        int(k): {"ncon": v["ncon"], "max_penetration": v["max_penetration"], "qpos_free": v["qpos_free"]}
        for k, v in d["snapshots"].items()
    }
    return {"mean_contacts": summary["mean_contacts"], "max_penetration": summary["max_penetration"],
            "snapshots": snaps}


def position_gap(a: list, b: list) -> float:
    return max((sum((x - y) ** 2 for x, y in zip(p[:3], q[:3])) ** 0.5 for p, q in zip(a, b)), default=0.0)


def orientation_gap(quats: list, qpos: list) -> float:
    """The largest distance between Genesis's link quaternions and ours (`qpos` of a free joint: w x y z after the
    position), up to the sign of a quaternion."""
    gaps = [
        min(sum((x - y) ** 2 for x, y in zip(q, p[3:7])), sum((x + y) ** 2 for x, y in zip(q, p[3:7]))) ** 0.5
        for q, p in zip(quats, qpos)
    ]
    return max(gaps, default=0.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", default=DEFAULT_SCENES)
    ap.add_argument("--scene", type=Path, nargs="*", default=[],
                    help="scene files outside ../shared/scenes (run instead of --only)")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--signorini", type=Path, default=DEFAULT_BINARY)
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--reference", type=Path)
    args = ap.parse_args()
    results = {}
    paths = args.scene or [SCENES / f"{name}.xml" for name in args.only]
    for path in paths:
        name = path.stem
        gen = run_genesis(path, args.steps, args.every)
        if args.reference:
            import genesis as gs

            args.reference.mkdir(parents=True, exist_ok=True)
            out = {"scene": f"{name}.xml", "genesis": gs.__version__, "backend": "cpu, f64", "steps": args.steps,
                   "every": args.every, **gen}
            (args.reference / f"{name}.json").write_text(json.dumps(out, separators=(",", ":")) + "\n")
            print(f"{name}: wrote {args.reference / (name + '.json')}")
            continue
        ours = run_ours(args.signorini, path, args.steps, args.every, args.sets)
        results[name] = {"genesis": gen, "signorini": ours}
        print(f"{name}: mean contacts genesis {gen['mean_contacts']:.2f} signorini {ours['mean_contacts']:.2f}; "
              f"max penetration genesis {gen['max_penetration']:.5f} signorini {ours['max_penetration']:.5f}")
        for step in sorted(gen["snapshots"]):
            g, o = gen["snapshots"][step], ours["snapshots"].get(step)
            if o is None:
                continue
            print(f"  step {step:5d}: contacts {g['ncon']:4d} vs {o['ncon']:4d}, "
                  f"penetration {g['max_penetration']:.5f} vs {o['max_penetration']:.5f}, "
                  f"free-body position gap {position_gap(g['qpos_free'], o['qpos_free']):.2e} m, "
                  f"orientation {orientation_gap(g['quat_free'], o['qpos_free']):.2e}")
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
