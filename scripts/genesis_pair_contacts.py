#!/usr/bin/env python3
"""Genesis 1.4.5's contacts of every touching pair of a scene, with the state they were found from (issue 23).

Steps an MJCF scene in Genesis 1.4.5 (CPU, f64, default rigid options) and, at the steps asked for, writes the geom
poses read before the step, each pair's cached contact normal before the step (contact 0 of the step before, zero
when cold: the MPR warm start) and the contacts `collider.get_contacts` returns after it. These are the references
of `crates/collision/tests/face_perturbation.rs`, made with

    /tmp/genv/bin/python scripts/genesis_pair_contacts.py crates/collision/tests/data/genesis/two_boxes.xml 20,60,150 OUT.json
    /tmp/genv/bin/python scripts/genesis_pair_contacts.py crates/collision/tests/data/genesis/cylinder_faces.xml 1,20 OUT.json

(Genesis in its own environment: see `scripts/genesis_compare.py`). Quaternions are `w, x, y, z`; a pair `(ga, gb)`
is in Genesis's order (sorted by geom type), its normal from B to A.

Usage: genesis_pair_contacts.py SCENE.xml STEP[,STEP...] OUT.json
"""

import json
import sys

import numpy as np


def main() -> None:
    import genesis as gs

    scene_path, steps_arg, out_path = sys.argv[1:4]
    gs.init(backend=gs.cpu, precision="64", logging_level="warning")
    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=0.002, substeps=1),
        show_viewer=False,
        rigid_options=gs.options.RigidOptions(enable_self_collision=True),
    )
    scene.add_entity(gs.morphs.MJCF(file=scene_path))
    scene.build()
    solver = scene.rigid_solver
    steps = sorted(int(s) for s in steps_arg.split(","))
    types = [int(g.type) for g in solver.geoms]
    pair_index = solver.collider._collision_pair_idx
    frames = []
    for step in range(1, steps[-1] + 1):
        pos = np.asarray(solver.get_geoms_pos()).copy()
        quat = np.asarray(solver.get_geoms_quat()).copy()
        cache = solver.collider.collider_state.contact_cache.normal.to_numpy().copy()
        scene.step()
        if step not in steps:
            continue
        c = solver.collider.get_contacts(as_tensor=False, to_torch=False)
        cached = {}
        for a in range(len(types)):
            for b in range(len(types)):
                k = int(pair_index[min(a, b), max(a, b)])
                if k >= 0:
                    cached[f"{a},{b}"] = cache[k, 0].tolist()
        contacts = [
            {
                "ga": int(c["geom_a"][k]),
                "gb": int(c["geom_b"][k]),
                "p": c["position"][k].tolist(),
                "n": c["normal"][k].tolist(),
                "d": float(c["penetration"][k]),
            }
            for k in range(len(c["position"]))
        ]
        frames.append({"step": step, "pos": pos.tolist(), "quat": quat.tolist(), "cache": cached, "contacts": contacts})
        print(f"step {step}: {len(contacts)} contacts")
    with open(out_path, "w") as f:
        json.dump({"types": types, "frames": frames}, f)


if __name__ == "__main__":
    main()
