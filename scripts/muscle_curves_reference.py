"""MuJoCo 4.0's muscle curves on a grid of inputs, for the unit test of crates/model/src/muscle.rs.

Writes crates/model/tests/data/muscle_curves.json: per case the parameters and MuJoCo's mju_muscleGain,
mju_muscleBias and mju_muscleDynamics values. Run: python3 scripts/muscle_curves_reference.py
"""
import json
import os

import mujoco
import numpy as np

rng = np.random.default_rng(7)
params = [
    [0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2],
    [0.6, 1.2, 40, 200, 0.5, 1.6, 1.5, 1.3, 1.5],
    [0.5, 1.5, -1, 50, 0.3, 2.0, 3.0, 0.8, 1.8],
]
gain = []
for prm in params:
    prm9 = np.array(prm, dtype=float)
    for _ in range(200):
        lr = np.sort(rng.uniform(-0.5, 1.0, 2))
        lr[1] += 0.05
        # lengths across and beyond the range; velocities across the curve's pieces
        length = rng.uniform(lr[0] - 0.5 * (lr[1] - lr[0]), lr[1] + 0.8 * (lr[1] - lr[0]))
        vel = rng.uniform(-3, 3) * (lr[1] - lr[0])
        acc0 = rng.uniform(0.1, 20)
        g = mujoco.mju_muscleGain(length, vel, lr, acc0, prm9)
        b = mujoco.mju_muscleBias(length, lr, acc0, prm9)
        gain.append(dict(prm=prm, lengthrange=lr.tolist(), len=length, vel=vel, acc0=acc0, gain=g, bias=b))
dynamics = []
for prm in [[0.01, 0.04, 0.0], [0.02, 0.05, 0.2], [0.01, 0.04, 1.0]]:
    for _ in range(150):
        ctrl = rng.uniform(-0.3, 1.3)
        act = rng.uniform(-0.2, 1.2)
        dynamics.append(dict(prm=prm, ctrl=ctrl, act=act,
                             act_dot=mujoco.mju_muscleDynamics(ctrl, act, np.array(prm))))
out = os.path.join(os.path.dirname(__file__), "..", "crates", "model", "tests", "data", "muscle_curves.json")
with open(out, "w") as f:
    json.dump(dict(mujoco=mujoco.__version__, gain=gain, dynamics=dynamics), f)
print("wrote", len(gain), "gain/bias and", len(dynamics), "dynamics cases")
