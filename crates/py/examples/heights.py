"""Steps 16 environments of the box stack, each with a slightly different initial push, and plots the height of
every box against time (one line per environment). Usage: python3 heights.py [SCENE.xml] [OUT.png]"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import signorini as sg  # noqa: E402

here = Path(__file__).resolve().parent
scene_path = sys.argv[1] if len(sys.argv) > 1 else str(here.parents[3] / "shared" / "scenes" / "box_stack.xml")
out = sys.argv[2] if len(sys.argv) > 2 else "heights.png"

scene = sg.Scene(scene_path, n_envs=16, threads=2)
rng = np.random.default_rng(0)
scene.set_qvel(rng.normal(0.0, 0.3, size=(scene.n_envs, scene.nv)))

steps, every = 1000, 10
times, heights = [], []
for _ in range(steps // every):
    scene.step(every)
    times.append(scene.time[0])
    heights.append(scene.body_pos[:, 1:, 2])  # (n_envs, nbody - 1): every body but the world
heights = np.stack(heights)  # (frames, n_envs, bodies)

fig, ax = plt.subplots(figsize=(8, 4.5))
for b in range(heights.shape[2]):
    ax.plot(times, heights[:, :, b], color=f"C{b % 10}", alpha=0.4, lw=0.8)
ax.set_xlabel("time (s)")
ax.set_ylabel("body height z (m)")
ax.set_title(f"{Path(scene_path).stem}: {scene.n_envs} environments, {scene.nbody - 1} bodies")
fig.tight_layout()
fig.savefig(out, dpi=100)
print(f"wrote {out}: {heights.shape[0]} frames of {scene.n_envs} environments")
