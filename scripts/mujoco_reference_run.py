"""The stepping loop the MuJoCo reference scripts share (imported by them; not run on its own)."""


def snapshots(mujoco, m, steps, record):
    """Steps `m` from its keyframe 0 to the last of `steps` with `mj_step`; after each step in `steps`, `record(d)`
    gives that step's snapshot. Returns `{str(step): snapshot}` and the final `MjData`."""
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    wanted = set(steps)
    snaps = {}
    for step in range(1, max(steps) + 1):
        mujoco.mj_step(m, d)
        if step in wanted:
            snaps[str(step)] = record(d)
    return snaps, d
