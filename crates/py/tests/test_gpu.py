"""signorini.GpuScene: environments stepped on a GPU (wgpu), against signorini.Scene on the CPU."""

import os

import numpy as np
import pytest

import signorini as sg


def gpu_scene(path, **kwargs):
    """A GpuScene, or a skip where no adapter exists (a failure when SIGNORINI_REQUIRE_GPU=1, as in CI)."""
    try:
        return sg.GpuScene(str(path), **kwargs)
    except sg.SignoriniError as e:
        if "no GPU adapter" in str(e) and os.environ.get("SIGNORINI_REQUIRE_GPU") != "1":
            pytest.skip(str(e))
        raise


def test_gpu_environments_follow_the_cpu(shared):
    path = shared / "scenes" / "box_stack.xml"
    gpu = gpu_scene(path, n_envs=3, precision="f64")
    cpu = sg.Scene(str(path), n_envs=1)
    gpu.step(200)
    cpu.step(200)
    assert gpu.qpos.shape == (3, cpu.nq)
    assert np.allclose(gpu.time, cpu.time[0])
    assert np.abs(gpu.qpos - cpu.qpos[0]).max() < 1e-3
    counts = gpu.contact_counts()
    assert counts.shape == (3,) and (counts == counts[0]).all() and counts[0] >= 4
    c = gpu.contacts(1)
    n = counts[1]
    assert c["position"].shape == (n, 3) and c["normal"].shape == (n, 3) and c["penetration"].shape == (n,)
    c0 = gpu.contacts(0)  # identical environments: the same contacts, read from another offset
    assert np.array_equal(c0["position"], c["position"]) and np.array_equal(c0["geom_a"], c["geom_a"])
    assert (c["penetration"] >= 0).all() and np.allclose(np.linalg.norm(c["normal"], axis=1), 1.0)
    assert gpu.precision == "f64" and gpu.adapter


def test_gpu_setters_and_reset(shared):
    path = shared / "scenes" / "sphere_drop.xml"
    gpu = gpu_scene(path, n_envs=2)
    q = gpu.qpos
    q[1, 2] = 2.0
    gpu.set_qpos(q)
    gpu.set_qvel(np.zeros(6))
    gpu.step(10)
    z = gpu.qpos[:, 2]
    assert z[1] > 1.9 and z[0] < 0.5
    gpu.reset(envs=[1])
    assert np.allclose(gpu.qpos[1, 2], 0.5) and gpu.qpos[0, 2] < 0.5 and gpu.time[1] == 0.0 and gpu.time[0] > 0.0
    gpu.reset()
    assert np.allclose(gpu.qpos[:, 2], 0.5) and np.allclose(gpu.time, 0.0)
    gpu.set_gravity([0.0, 0.0, -1.0])
    assert np.allclose(gpu.gravity, [[0.0, 0.0, -1.0]] * 2)
    gpu.set_gravity([0.0, 0.0, -2.0], envs=[False, True])
    gpu.reset()
    assert np.allclose(gpu.gravity, [[0.0, 0.0, -1.0], [0.0, 0.0, -2.0]])
    gpu.reset_parameters(envs=0)
    assert np.allclose(gpu.gravity[0], [0.0, 0.0, -9.81])
    with pytest.raises(sg.SignoriniError, match="qpos has shape"):
        gpu.set_qpos(np.zeros((2, 3)))


def test_what_the_gpu_lacks_is_named(shared):
    gpu_scene(shared / "scenes" / "sphere_drop.xml")  # skips where there is no adapter
    with pytest.raises(sg.SignoriniError, match="elliptic"):
        sg.GpuScene(str(shared / "scenes" / "box_stack__elliptic.xml"))
    with pytest.raises(sg.SignoriniError, match="precision"):
        sg.GpuScene(str(shared / "scenes" / "sphere_drop.xml"), precision="f16")
