"""signorini.Robot: the iiwa against Pinocchio + Coal's answers (shared/robots), batches, motion checks, errors."""

import json

import numpy as np
import pytest

import signorini as sg

from conftest import SHARED

ROBOTS = SHARED / "robots"


@pytest.fixture(scope="module")
def reference():
    return json.loads((ROBOTS / "iiwa_queries.json").read_text())


def robot(geometry, reference):
    return sg.Robot(ROBOTS / "kuka_iiwa" / "model.urdf", srdf=ROBOTS / "iiwa.srdf", geometry=geometry,
                    joint_names=reference["joint_names"])


@pytest.mark.parametrize("geometry", ["hull", "mesh"])
def test_batch_matches_pinocchio_coal(geometry, reference):
    r = robot(geometry, reference)
    assert r.geometry_names == reference["geometry_names"]
    assert r.pairs.tolist() == reference["pairs"]
    qs = np.array([c["q"] for c in reference["configs"]])
    out = r.distances(qs, gradients=True)
    assert out["distance"].shape == (len(qs), 3) and out["grad"].shape == (len(qs), 3, 7)
    for k, c in enumerate(reference["configs"]):
        ans = c[geometry]
        assert out["collision"][k].tolist() == ans["collision"]
        assert np.allclose(out["distance"][k], ans["distance"], atol=1e-6)
        for p in range(3):
            if ans["grad"][p] is None:
                assert np.isnan(out["grad"][k, p]).all()
            else:
                assert np.allclose(out["grad"][k, p], ans["grad"][p], atol=1e-5)
    flags = r.is_colliding(qs)
    assert flags.tolist() == [c[geometry]["any_collision"] for c in reference["configs"]]
    mins = r.min_distance(qs)
    assert np.allclose(mins, [c[geometry]["min_distance"]["distance"] for c in reference["configs"]], atol=1e-6)
    # One configuration gives unbatched answers.
    assert r.is_colliding(qs[0]) == flags[0]
    assert r.distances(qs[0])["distance"].shape == (3,)


def test_motion_checks_and_acm(reference):
    r = robot("hull", reference)
    qs = np.array([c["q"] for c in reference["configs"]])
    flags = r.is_colliding(qs)
    free_q = qs[~flags][:4]
    hit_q = qs[flags][:4]
    out = r.check_motion(free_q, hit_q)
    assert not out["free"].any() and (out["fraction"] > 0).all() and (out["fraction"] <= 1).all()
    still = r.check_motion(free_q, free_q)
    assert still["free"].all() and np.isnan(still["fraction"]).all() and (still["pair"] == -1).all()
    srdf = r.generate_acm(samples=300, seed=1)
    assert srdf.count('reason="Adjacent"') == 7


def test_bad_input_is_a_signorini_error(reference):
    r = robot("hull", reference)
    with pytest.raises(sg.SignoriniError, match="7 joints"):
        r.is_colliding(np.zeros(6))
    with pytest.raises(sg.SignoriniError, match="lbr_iiwa_joint_3"):
        r.is_colliding(np.array([0, 0, np.nan, 0, 0, 0, 0.0]))
    with pytest.raises(sg.SignoriniError, match="elbow"):
        sg.Robot(ROBOTS / "kuka_iiwa" / "model.urdf", joint_names=["elbow"])
    with pytest.raises(sg.SignoriniError, match="geometry"):
        sg.Robot(ROBOTS / "kuka_iiwa" / "model.urdf", geometry="voxels")


def test_ros_packages_from_package_dirs(tmp_path):
    pkg = tmp_path / "elsewhere" / "arm_description"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "meshes" / "link.stl").write_bytes((ROBOTS / "kuka_iiwa" / "meshes" / "link_1.stl").read_bytes())
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(
        '<robot name="arm"><link name="base"><collision><geometry><box size="0.3 0.3 0.1"/></geometry>'
        '</collision></link><link name="upper"><collision><geometry>'
        '<mesh filename="package://arm_description/meshes/link.stl"/></geometry></collision></link>'
        '<joint name="j" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0 0.3"/>'
        '<axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')
    with pytest.raises(sg.SignoriniError, match="arm_description"):
        sg.Robot(urdf)
    r = sg.Robot(urdf, package_dirs={"arm_description": pkg}, geometry="mesh")
    assert r.pairs.shape == (1, 2) and np.isfinite(r.min_distance(np.array([0.2])))
