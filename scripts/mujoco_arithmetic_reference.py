"""MuJoCo 4.0.1's arithmetic where its vectorised kernels sum in their own order, and a contact-free run that
depends on all of it, for `crates/model/tests/mujoco_arithmetic.rs`.

* `dot`: `mju_dot` on 120 pairs of vectors of 1 to 12 entries (four running lanes, combined `(l0 + l2) + (l1 + l3)`,
  then the tail), the order of `mju_dotSparse` in `mj_solveLD` and of `mji_dot6` in `mj_crb` and `mj_rne`.
* `mul_inert_vec`: `mju_mulInertVec` (exported; called through `ctypes`) on 100 inertias and motions.
* `arm`: `../shared/scenes/arm.xml` from its keyframe: the compiled `body_mass` and `body_inertia` (MuJoCo's
  primitive formulas), then `qpos`, `qvel` and `qacc_smooth` after each of the first 7 `mj_step`s, before the box
  meets the table: the composite rigid body algorithm, the bias forces, the factorisation and solve of `M`, the
  passive and actuator forces and the integrator, all at full precision.
* `arm_contact`: `qpos`, `qvel`, the solver's `qacc` and `efc_force` of the arm after steps 8, 20, 30, 58, 59, 500
  and 2000 (its box on the table, then pushed by the arm's tip; a joint limit row from step 59).
* `chain`: the same for `chain.xml` (a free base with ball, hinge and slide joints, joint damping and friction
  loss) after steps 1, 3, 50, 165, 184, 230, 500 and 2000.
* `cg`: the same for `arm__cg.xml` and `sphere_drop__cg.xml` (MuJoCo's conjugate-gradient solver) after steps 8,
  30, 500 and 2000.
* `elliptic`: the same for `sphere_drop__elliptic.xml` after steps 369, 370 and 2000 and `arm__elliptic.xml`
  after steps 20, 28, 500 and 2000 (elliptic friction cones), and `crates/sim/tests/data/rolling_condim.xml` (condim 4
  and 6 in the cone's middle zone) after steps 36, 46, 500 and 2000.
* `slider_crank`: the same for `crates/sim/tests/data/slider_crank.xml` (slider-crank transmissions whose slider
  sites are oriented by `zaxis`) after steps 1, 100, 1000 and 2000.
* `pair_order`: the same for `crates/sim/tests/data/pair_order.xml` (capsules on a world cylinder, ellipsoid and box:
  contacts whose geom order MuJoCo fixes by geom type) after steps 43, 100 and 1000.
* `cradle`: the same for `crates/sim/tests/data/cradle.xml` (balls hung by length-limited spatial tendons) after steps
  1, 59, 300 and 1000.
* `set_const`: the compiled `body_mass`, `body_invweight0` and `dof_invweight0` (`mj_setConst`: `A = J M⁻¹ Jᵀ` of each body's
  centre of mass, its sums in `mju_dot`'s order) of every benchmark scene.
* `first_contact`: the constraint rows (Jacobian, `efc_pos`, `efc_aref`, `efc_D`, `efc_R`) of the first step with a
  contact of `arm.xml` (a box landing flat on the table) and `pile.xml` (a tilted, spinning box landing on the floor).

* `crates/solver/src/testdata/mujoco_elliptic_update.txt`: `mj_constraintUpdate` (exported) on the elliptic contacts
  of `arm__elliptic.xml` at step 27 for 60 random residual vectors, then in the cone's middle zone on the condim 4
  and 6 contacts of `crates/sim/tests/data/rolling_condim.xml`: per contact and draw one line of `dim`, `mu`, the
  friction, `D`, the residuals, then MuJoCo's cost, forces and (in the cone's middle zone) its cone Hessian.

Writes crates/model/tests/data/mujoco_arithmetic.json. Needs `pip install mujoco` (4.0.1).

Usage: python3 scripts/mujoco_arithmetic_reference.py
"""
import ctypes
import json
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "crates/model/tests/data/mujoco_arithmetic.json"


def contact_rows(scene):
    """The constraint rows of the first step with a contact of `../shared/scenes/{scene}.xml` from its keyframe: the
    step, and per row its nonzero Jacobian entries (dof, value), `efc_pos`, `efc_aref`, `efc_D` and `efc_R`."""
    m = mujoco.MjModel.from_xml_path(str(ROOT.parent / f"shared/scenes/{scene}.xml"))
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    step = 0
    while d.ncon == 0:
        mujoco.mj_step(m, d)
        step += 1
    if mujoco.mj_isSparse(m):
        jac = np.zeros((d.nefc, m.nv))
        mujoco.mju_sparse2dense(jac, d.efc_J, d.efc_J_rownnz, d.efc_J_rowadr, d.efc_J_colind)
    else:
        jac = d.efc_J[:d.nefc * m.nv].reshape(d.nefc, m.nv)
    rows = []
    for i in range(d.nefc):
        dofs = np.nonzero(jac[i])[0]
        rows.append({"dofs": dofs.tolist(), "jac": jac[i][dofs].tolist(), "pos": float(d.efc_pos[i]),
                     "aref": float(d.efc_aref[i]), "D": float(d.efc_D[i]), "R": float(d.efc_R[i])})
    return {"step": step, "rows": rows}


def scene_path(scene):
    """`../shared/scenes/{scene}.xml`, or a path of this repository when `scene` ends in `.xml`."""
    return ROOT / scene if scene.endswith(".xml") else ROOT.parent / f"shared/scenes/{scene}.xml"


def contact_steps(scene, steps):
    """`qpos`, `qvel`, the solver's `qacc` and `efc_force` after the given steps of `scene` ([`scene_path`]) from its
    keyframe (the arm: its box lands on the table at step 8, the arm's tip touches the box from step 20)."""
    m = mujoco.MjModel.from_xml_path(str(scene_path(scene)))
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    out = []
    for k in range(1, max(steps) + 1):
        mujoco.mj_step(m, d)
        if k in steps:
            out.append({"step": k, "qpos": d.qpos.tolist(), "qvel": d.qvel.tolist(), "qacc": d.qacc.tolist(),
                        "efc_force": d.efc_force[:d.nefc].tolist()})
    return out


ROLLING = "crates/sim/tests/data/rolling_condim.xml"
SCENES = ("arm", "chain", "sphere_drop", "box_stack", "pyramid", "convex", "pile")


def set_const(scene):
    """The inverse weights `mj_setConst` compiles for `../shared/scenes/{scene}.xml`."""
    m = mujoco.MjModel.from_xml_path(str(ROOT.parent / f"shared/scenes/{scene}.xml"))
    return {"body_mass": m.body_mass.tolist(), "body_invweight0": m.body_invweight0.tolist(),
            "dof_invweight0": m.dof_invweight0.tolist()}


def elliptic_update_cases():
    """Lines of `mj_constraintUpdate`'s elliptic zones on `arm__elliptic.xml` at step 27 (see the module docs)."""
    m = mujoco.MjModel.from_xml_path(str(ROOT.parent / "shared/scenes/arm__elliptic.xml"))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(27):
        mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    rng = np.random.default_rng(5)
    lines = []
    for _ in range(60):
        jar = rng.normal(size=d.nefc) * 10 ** rng.uniform(-3, 1)
        cost = np.zeros(1)
        i = 0
        while i < d.nefc:
            con = d.contact[d.efc_id[i]]
            dim = con.dim
            one = np.zeros(d.nefc)
            one[i:i + dim] = jar[i:i + dim]
            mujoco.mj_constraintUpdate(m, d, one, cost, 1)
            middle = d.efc_state[i] == mujoco.mjtConstraintState.mjCNSTRSTATE_CONE
            values = [dim, con.mu, *con.friction[:dim - 1], *d.efc_D[i:i + dim], *jar[i:i + dim], cost[0],
                      *d.efc_force[i:i + dim], *(con.H[:dim * dim] if middle else [])]
            lines.append(" ".join(repr(float(v)) for v in values))
            i += dim
    lines += middle_zone_cases(ROLLING)
    return lines


def middle_zone_cases(scene):
    """Lines of `mj_constraintUpdate` in the cone's middle zone for every elliptic contact of `scene` (condim 4 and
    6 included) every 200 steps of its first 1000: 5 draws per contact of tangential residuals and a normal one
    placed inside the middle zone (`−T/μ < μ jar₀ < μT`)."""
    m = mujoco.MjModel.from_xml_path(str(scene_path(scene)))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    rng = np.random.default_rng(6)
    lines = []
    for step in range(1, 1001):
        mujoco.mj_step(m, d)
        if step % 200:
            continue
        mujoco.mj_forward(m, d)
        cost = np.zeros(1)
        for c in range(d.ncon):
            con = d.contact[c]
            i, dim = con.efc_address, con.dim
            if d.efc_type[i] != mujoco.mjtConstraint.mjCNSTR_CONTACT_ELLIPTIC:
                continue
            for _ in range(5):
                jar = np.zeros(d.nefc)
                jar[i + 1:i + dim] = rng.normal(size=dim - 1) * 10 ** rng.uniform(-3, 1)
                t = np.linalg.norm(jar[i + 1:i + dim] * con.friction[:dim - 1])
                jar[i] = rng.uniform(-t / con.mu, con.mu * t) / con.mu
                mujoco.mj_constraintUpdate(m, d, jar, cost, 1)
                assert d.efc_state[i] == mujoco.mjtConstraintState.mjCNSTRSTATE_CONE
                values = [dim, con.mu, *con.friction[:dim - 1], *d.efc_D[i:i + dim], *jar[i:i + dim], cost[0],
                          *d.efc_force[i:i + dim], *con.H[:dim * dim]]
                lines.append(" ".join(repr(float(v)) for v in values))
    return lines


def main():
    assert mujoco.__version__ == "4.0.1", f"reference for 4.0.1, not {mujoco.__version__}"
    lib = ctypes.CDLL(str(Path(mujoco.__file__).parent / "libmujoco.so.4.0.1"))
    mul = lib.mju_mulInertVec
    mul.argtypes = [ctypes.c_void_p] * 3
    mul.restype = None
    rng = np.random.default_rng(11)
    dot = []
    for n in range(1, 13):
        for _ in range(10):
            a = rng.normal(size=n) * 10 ** rng.uniform(-3, 3, size=n)
            b = rng.normal(size=n)
            dot.append({"a": a.tolist(), "b": b.tolist(), "dot": float(mujoco.mju_dot(a, b))})
    inert = []
    for _ in range(100):
        i = rng.normal(size=10)
        v = rng.normal(size=6)
        r = np.zeros(6)
        mul(r.ctypes.data, i.ctypes.data, v.ctypes.data)
        inert.append({"inertia": i.tolist(), "motion": v.tolist(), "result": r.tolist()})
    m = mujoco.MjModel.from_xml_path(str(ROOT.parent / "shared/scenes/arm.xml"))
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    steps = []
    for _ in range(7):
        mujoco.mj_step(m, d)
        assert d.ncon == 0
        steps.append({"qpos": d.qpos.tolist(), "qvel": d.qvel.tolist(), "qacc_smooth": d.qacc_smooth.tolist()})
    arm = {"body_mass": m.body_mass.tolist(), "body_inertia": m.body_inertia.tolist(), "steps": steps}
    first_contact = {name: contact_rows(name) for name in ("arm", "pile")}
    arm_contact = contact_steps("arm", (8, 20, 30, 58, 59, 500, 2000))
    chain = contact_steps("chain", (1, 3, 50, 165, 184, 230, 500, 2000))
    consts = {name: set_const(name) for name in SCENES}
    cg = {name: contact_steps(name, (8, 30, 500, 2000)) for name in ("arm__cg", "sphere_drop__cg")}
    elliptic = {"sphere_drop__elliptic": contact_steps("sphere_drop__elliptic", (369, 370, 2000)),
                "arm__elliptic": contact_steps("arm__elliptic", (20, 28, 500, 2000)),
                "rolling_condim": contact_steps(ROLLING, (36, 46, 500, 2000))}
    slider_crank = contact_steps("crates/sim/tests/data/slider_crank.xml", (1, 100, 1000, 2000))
    pair_order = contact_steps("crates/sim/tests/data/pair_order.xml", (43, 100, 1000))
    cradle = contact_steps("crates/sim/tests/data/cradle.xml", (1, 59, 300, 1000))
    update = ROOT / "crates/solver/src/testdata/mujoco_elliptic_update.txt"
    update.parent.mkdir(parents=True, exist_ok=True)
    update.write_text("\n".join(elliptic_update_cases()) + "\n")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"mujoco": mujoco.__version__, "dot": dot, "mul_inert_vec": inert, "arm": arm,
                               "first_contact": first_contact, "arm_contact": arm_contact, "chain": chain,
                               "set_const": consts, "cg": cg,
                               "elliptic": elliptic, "slider_crank": slider_crank,
                               "pair_order": pair_order, "cradle": cradle}))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
