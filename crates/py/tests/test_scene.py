"""signorini.Scene: n_envs environments of one model, NumPy read-back and setters, errors as SignoriniError."""

import threading
import time

import numpy as np
import pytest

import signorini as sg

INCLINE = """<mujoco><option timestep="0.002"/><worldbody>
  <geom type="plane" size="5 5 0.1" friction="0.5"/>
  <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1" friction="0.5"/></body>
</worldbody></mujoco>"""


def pushes(scene, n):
    """A different small initial velocity per environment."""
    return np.array([[0.05 * ((e * 7 + k * 3) % 11) / 11 - 0.02 for k in range(scene.nv)] for e in range(n)])


def test_every_environment_is_the_lone_scene(shared):
    path = shared / "scenes" / "box_stack.xml"
    batch = sg.Scene(str(path), n_envs=3, dialect="mujoco", threads=2)
    qvel = pushes(batch, 3)
    batch.set_qvel(qvel)
    batch.step(100)
    for e in range(3):
        lone = sg.Scene(str(path), dialect="mujoco")
        lone.set_qvel(qvel[e])
        lone.step(100)
        assert np.array_equal(lone.qpos[0], batch.qpos[e]), e
        assert np.array_equal(lone.qvel[0], batch.qvel[e]), e


def test_read_back_shapes_and_padded_contacts(shared):
    s = sg.Scene(str(shared / "scenes" / "box_stack.xml"), n_envs=2)
    s.set_qvel(pushes(s, 2))
    s.step(50)
    n, nb = 2, s.nbody
    assert s.qpos.shape == (n, s.nq) and s.qvel.shape == (n, s.nv) and s.ctrl.shape == (n, s.nu)
    assert s.act.shape == (n, 0)
    assert s.time.shape == (n,) and np.allclose(s.time, 50 * s.dt)
    assert s.body_pos.shape == (n, nb, 3) and s.body_quat.shape == (n, nb, 4)
    assert np.allclose(np.linalg.norm(s.body_quat, axis=2), 1.0)
    c = s.contacts()
    assert c["valid_mask"].dtype == np.bool_
    assert (c["valid_mask"].sum(axis=1) == c["count"]).all()
    valid = c["valid_mask"]
    assert np.allclose(np.linalg.norm(c["normal"][valid], axis=1), 1.0)
    assert (c["penetration"][valid] >= 0).all() and (c["geom_a"][~valid] == -1).all()
    # Net contact forces: the sum of the contact forces on each body's geoms.
    net = s.links_net_contact_force
    assert net.shape == (n, nb, 3)
    for e in range(n):
        expect = np.zeros((nb, 3))
        for k in np.flatnonzero(valid[e]):
            expect[c["link_a"][e, k]] += c["force_a"][e, k]
            expect[c["link_b"][e, k]] -= c["force_a"][e, k]
        assert np.allclose(net[e], expect)


def test_setters_act_on_the_selected_environments(shared):
    s = sg.Scene(str(shared / "scenes" / "box_stack.xml"), n_envs=4)
    before = s.qvel.copy()
    s.set_qvel(np.ones((2, s.nv)), envs=[0, 2])
    after = s.qvel
    assert (after[[0, 2]] == 1).all() and np.array_equal(after[[1, 3]], before[[1, 3]])
    s.set_qvel(np.full(s.nv, 2.0), envs=np.array([False, True, False, False]))
    assert (s.qvel[1] == 2).all() and (s.qvel[0] == 1).all()
    s.set_qvel(np.zeros(s.nv), envs=3)
    s.set_gravity([0.0, 0.0, 0.0], envs=[1])
    assert np.array_equal(s.gravity[1], [0, 0, 0]) and s.gravity[0, 2] < 0


def test_friction_and_mass_randomisation_change_the_dynamics(tmp_path):
    path = tmp_path / "incline.xml"
    path.write_text(INCLINE)
    s = sg.Scene(str(path), n_envs=2)
    g, theta = 9.81, np.arctan(0.4)
    s.set_gravity([g * np.sin(theta), 0.0, -g * np.cos(theta)])
    for geom in range(2):
        s.set_geom_friction(geom, [0.15, 0.0, 0.0], envs=[1])
    # A heavier box slides the same way (Coulomb's law does not depend on the mass).
    s.set_body_mass_scale([1.0, 3.0], envs=[1])
    assert np.allclose(s.body_mass[:, 1], [1.0, 3.0])
    s.step(500)
    x = s.qpos[:, 0]
    assert abs(x[0]) < 5e-3, "mu = 0.5 sticks"
    expected = 0.5 * g * (np.sin(theta) - 0.15 * np.cos(theta))
    assert abs(x[1] - expected) < 0.05 * expected, (x[1], expected)


def test_snapshot_restore_and_clone(shared):
    s = sg.Scene(str(shared / "scenes" / "box_stack.xml"), n_envs=2)
    s.set_qvel(pushes(s, 2))
    state = s.snapshot(0)
    s.step(30)
    first = s.qpos[0].copy()
    s.restore(0, state)
    s.step(30)
    assert np.array_equal(s.qpos[0], first)
    s.clone_env(0, envs=[1])
    assert np.array_equal(s.qpos[1], s.qpos[0])
    s.reset()
    assert np.allclose(s.time, 0.0)


def test_errors_are_signorini_errors_with_the_rust_message(shared, tmp_path):
    path = str(shared / "scenes" / "box_stack.xml")
    s = sg.Scene(path, n_envs=2)
    with pytest.raises(sg.SignoriniError, match="shape"):
        s.set_qpos(np.zeros((2, s.nq + 1)))
    with pytest.raises(sg.SignoriniError, match="environment 5"):
        s.set_qpos(np.zeros((1, s.nq)), envs=[5])
    with pytest.raises(sg.SignoriniError, match="friction_ratio"):
        s.set_friction_ratio(np.full((2, s.ngeom), 6.0))
    with pytest.raises(sg.SignoriniError, match="dampratio"):
        s.set_geom_sol_params(0, [0.02, -1.0, 0.9, 0.95, 0.001, 0.5, 2.0])
    with pytest.raises(sg.SignoriniError, match="no_such.xml"):
        sg.Scene(str(tmp_path / "no_such.xml"))
    with pytest.raises(sg.SignoriniError, match="native, mujoco"):
        sg.Scene(path, dialect="bullet")
    with pytest.raises(sg.SignoriniError, match="timestep|dt"):
        sg.Scene(path, options={"no_such_option": 1})
    with pytest.raises(sg.SignoriniError):
        sg.Scene(path, n_envs=0)
    with pytest.raises(sg.SignoriniError, match="envs must be"):
        s.reset(envs="all")


def test_options_by_name(shared):
    path = str(shared / "scenes" / "box_stack.xml")
    s = sg.Scene(path, options={"dt": 0.001, "solver": "cg", "iterations": 50})
    assert s.dt == 0.001
    s.step(5)
    assert np.allclose(s.time, 0.005)


def test_urdf_robots_load_and_step(shared):
    path = str(shared / "robots" / "kuka_iiwa" / "model.urdf")
    iiwa = sg.Scene(path, n_envs=2)
    assert "lbr_iiwa_link_7" in iiwa.body_names and iiwa.nv == 7
    iiwa.step(10)
    assert np.isfinite(iiwa.qpos).all() and np.allclose(iiwa.time, 10 * iiwa.dt)
    free = sg.Scene(path, floating_base=True)
    assert free.nq == iiwa.nq + 7


def test_the_gil_is_released_while_stepping(shared):
    s = sg.Scene(str(shared / "scenes" / "pyramid.xml"))
    worker = threading.Thread(target=s.step, args=(400,))
    ticks = 0
    start = time.perf_counter()
    worker.start()
    while worker.is_alive():
        ticks += 1
    elapsed = time.perf_counter() - start
    worker.join()
    assert elapsed > 0.05, "the step is long enough to measure"
    assert ticks > 1000, f"the main thread ran only {ticks} times in {elapsed:.2f} s while stepping"


MOCAP = """<mujoco><option timestep="0.002"/><worldbody>
  <geom type="plane" size="5 5 0.1"/>
  <body name="pusher" mocap="true" pos="-0.3 0 0.05"><geom type="box" size="0.02 0.2 0.05"/></body>
  <body name="box" pos="0 0 0.05"><freejoint/><geom type="box" size="0.05 0.05 0.05"/></body>
</worldbody></mujoco>"""


def test_mocap_poses_are_read_and_set_per_environment(tmp_path):
    path = tmp_path / "mocap.xml"
    path.write_text(MOCAP)
    s = sg.Scene(str(path), n_envs=2, dialect="mujoco")
    assert s.mocap_pos.shape == (2, 1, 3) and s.mocap_quat.shape == (2, 1, 4)
    assert np.allclose(s.mocap_pos[1, 0], [-0.3, 0, 0.05]) and np.allclose(s.mocap_quat[0, 0], [1, 0, 0, 0])
    # Environment 1's pusher sweeps through the box's place; environment 0's stays away.
    for k in range(300):
        s.set_mocap_pos([[[0.2 * k / 300 - 0.12, 0.0, 0.05]]], envs=[1])
        s.step()
    assert s.mocap_pos[1, 0, 0] == pytest.approx(0.2 * 299 / 300 - 0.12)
    assert s.qpos[0, 0] == pytest.approx(0.0, abs=1e-6), "untouched"
    assert s.qpos[1, 0] > 0.02, "pushed along +x"
    s.set_mocap_quat([[0.0, 0.0, 0.0, 1.0]])
    assert np.array_equal(s.mocap_quat[:, 0], [[0, 0, 0, 1], [0, 0, 0, 1]])
    with pytest.raises(sg.SignoriniError):
        s.set_mocap_pos([[0.0, 0.0]])
    with pytest.raises(sg.SignoriniError):
        s.set_mocap_pos([[np.nan, 0.0, 0.0]])


def test_sensordata_is_the_state_each_step_started_from(tmp_path):
    xml = """<mujoco><option timestep="0.002"/><worldbody>
      <body><joint name="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
        <site name="tip" pos="0.3 0 0"/></body></worldbody>
      <sensor><jointpos name="angle" joint="hinge"/><jointvel joint="hinge"/><accelerometer site="tip"/><clock/></sensor>
    </mujoco>"""
    path = tmp_path / "pendulum.xml"
    path.write_text(xml)
    s = sg.Scene(str(path), n_envs=2)
    assert s.sensor_names == ["angle", "", "", ""]
    assert s.sensor_adr == [0, 1, 2, 5]
    before = s.qpos.copy()
    s.step()
    data = s.sensordata
    assert data.shape == (2, 6)
    assert np.array_equal(data[:, 0], before[:, 0])
    assert np.all(data[:, 5] == 0.0)
    # Released horizontal, the tip of a rod pinned at its end falls faster than g (about 1.5 g for a thin rod), so its
    # accelerometer (proper acceleration, gravity as -g) reads about -0.5 g along z.
    assert -0.6 * 9.81 < data[0, 4] < -0.3 * 9.81
