"""MuJoCo 4.0.1 reference runs of the RK4 integrator, for the sim tests.

Writes crates/sim/tests/data/rk4_reference.json with, for each scene, from keyframe 0, the contact count, `qpos` and
`qvel` after `mj_step` at a few steps up to 1000:

* `rk4.xml`: a damped two-link arm with an elbow servo, a box dropped on the floor at an angle, a pendulum swinging
  into its joint limit;
* `rk4_rotations.xml`: free bodies tumbling in flight (slowly, at 2.4 rad and at 4.6 rad of rotation a step), a
  ball-joint double pendulum, a capsule spinning on the floor.

MuJoCo 4.0.1's `mj_RungeKutta` is the classical tableau with one addition its published source lacks (read off the
library's machine code; `check_rkmk` below reproduces `mj_step` with it, bit for bit, and fails without it): the
velocity of stage i that enters the later position sums has each ball and free joint's angular velocity w replaced
by the rate of the stage's rotation vector t = h sum_j A_ij k_j, dexp^-1_t(w) = w + t x w / 2 + c(t) t x (t x w)
(Runge-Kutta-Munthe-Kaas). The script refuses any MuJoCo but 4.0.1. Needs `pip install mujoco`.

Usage: python3 scripts/mujoco_integrator_reference.py
"""
import hashlib
import json
import math
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "crates" / "sim" / "tests" / "data"
SCENES = {"rk4": (1, 10, 52, 53, 100, 400, 1000), "rk4_rotations": (1, 2, 10, 100, 400, 1000)}
STEPS = 1000
A = ((0.5, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 1.0))
B = (1 / 6, 1 / 3, 1 / 3, 1 / 6)
# c(t) = (1 - (s/2) cot(s/2)) / t, t = s^2, below t = 1.75^2: the library's polynomial, highest power first.
SERIES = (1.230313397310169e-14, 3.161551550077822e-13, 1.3455485951057888e-11, 5.282849430384459e-10,
          2.0876900642039142e-08, 8.267194907152073e-07, 3.30687830944332e-05, 0.0013888888888859755,
          0.08333333333333338)


def rotation_rates(m, dvel, vel, h):
    """Replaces each ball and free joint's angular velocity in `vel` by dexp^-1 of the stage's rotation vector."""
    for j in range(m.njnt):
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            a = m.jnt_dofadr[j] + 3
        elif m.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL:
            a = m.jnt_dofadr[j]
        else:
            continue
        t = [h * dvel[a], h * dvel[a + 1], h * dvel[a + 2]]
        t2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2]
        if t2 > math.pi * math.pi:
            n = math.sqrt(t2)
            s = (math.floor(n / (2 * math.pi) + 0.5) * -(2 * math.pi) + n) / n
            t = [x * s for x in t]
            t2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2]
        if t2 < 3.0625:
            c = t2 * SERIES[0] + SERIES[1]
            for k in SERIES[2:]:
                c = c * t2 + k
        else:
            half = 0.5 * math.sqrt(t2)
            c = (1.0 - half / math.tan(half)) / t2
        w = vel[a:a + 3].copy()
        tw = [t[1] * w[2] - t[2] * w[1], t[2] * w[0] - t[0] * w[2], t[0] * w[1] - t[1] * w[0]]
        ttw = [t[1] * tw[2] - t[2] * tw[1], t[2] * tw[0] - t[0] * tw[2], t[0] * tw[1] - t[1] * tw[0]]
        for k in range(3):
            vel[a + k] = (0.5 * tw[k] + w[k]) + c * ttw[k]


def rkmk_step(m, d, munthe_kaas):
    """One RK4 step of `d` as described above (without the rotation rates when `munthe_kaas` is false)."""
    mujoco.mj_forward(m, d)
    h, nq, t0 = m.opt.timestep, m.nq, d.time
    q0, v0 = d.qpos.copy(), d.qvel.copy()
    vel, acc = [v0.copy()], [d.qacc.copy()]
    for i in range(1, 4):
        dvel, dacc = np.zeros(m.nv), np.zeros(m.nv)
        for j in range(i):
            dvel += A[i - 1][j] * vel[j]
            dacc += A[i - 1][j] * acc[j]
        q = q0.copy()
        mujoco.mj_integratePos(m, q, dvel, h)
        d.qpos[:], d.qvel[:], d.time = q, v0 + h * dacc, t0 + sum(A[i - 1]) * h
        k = d.qvel.copy()
        if munthe_kaas:
            rotation_rates(m, dvel, k, h)
        mujoco.mj_forwardSkip(m, d, mujoco.mjtStage.mjSTAGE_NONE, 1)
        vel.append(k)
        acc.append(d.qacc.copy())
    dvel, dacc = np.zeros(m.nv), np.zeros(m.nv)
    for j in range(4):
        dvel += B[j] * vel[j]
        dacc += B[j] * acc[j]
    q = q0.copy()
    mujoco.mj_integratePos(m, q, dvel, h)
    d.qpos[:], d.qvel[:], d.time = q, v0 + h * dacc, t0 + h
    d.qacc_warmstart[:] = acc[3]


def check_rkmk(m, steps=300):
    """Steps `mj_step` and the description above side by side; True when they agree bit for bit at every step."""
    runs = {}
    for munthe_kaas in (True, False):
        d1, d2 = mujoco.MjData(m), mujoco.MjData(m)
        mujoco.mj_resetDataKeyframe(m, d1, 0)
        mujoco.mj_resetDataKeyframe(m, d2, 0)
        same = True
        for _ in range(steps):
            mujoco.mj_step(m, d1)
            rkmk_step(m, d2, munthe_kaas)
            same = same and np.array_equal(d1.qpos, d2.qpos) and np.array_equal(d1.qvel, d2.qvel)
        runs[munthe_kaas] = same
    return runs[True] and not runs[False]


def run(m, snapshots):
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    snaps = {}
    for k in range(1, STEPS + 1):
        mujoco.mj_step(m, d)
        if k in snapshots:
            snaps[str(k)] = {"ncon": int(d.ncon), "qpos": d.qpos.tolist(), "qvel": d.qvel.tolist()}
    return snaps


def main():
    if mujoco.__version__ != "4.0.1":
        raise SystemExit(f"needs MuJoCo 4.0.1 (found {mujoco.__version__})")
    out = {"mujoco": mujoco.__version__, "steps": STEPS, "scenes": {}}
    for name, snapshots in SCENES.items():
        path = DATA / f"{name}.xml"
        m = mujoco.MjModel.from_xml_path(str(path))
        assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
        if not check_rkmk(m):
            raise SystemExit(f"{name}: mj_step is not the Runge-Kutta-Munthe-Kaas step described above")
        out["scenes"][name] = {
            "scene_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "mj_step": run(m, snapshots),
        }
    path = DATA / "rk4_reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
