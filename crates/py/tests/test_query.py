"""signorini.distance / collide: Coal's convention (signed distance, normal from A to B) on closed-form cases."""

import numpy as np
import pytest

import signorini as sg

I = [1.0, 0.0, 0.0, 0.0]


def test_sphere_sphere_distance_and_penetration():
    a, b = sg.Shape.sphere(1.0), sg.Shape.sphere(0.5)
    r = sg.distance(a, b, pose_b=([3.0, 0.0, 0.0], I))
    assert r["distance"] == pytest.approx(1.5)
    assert np.allclose(r["normal"], [1, 0, 0])
    assert np.allclose(np.subtract(r["point_b"], r["point_a"]), 1.5 * np.array(r["normal"]))
    r = sg.distance(a, b, pose_b=([0.0, 1.2, 0.0], I))
    assert r["distance"] == pytest.approx(-0.3)


def test_box_distance_and_convex_hull_agree():
    box = sg.Shape.box([0.5, 0.5, 0.5])
    corners = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    hull = sg.Shape.convex(corners)
    ball = sg.Shape.sphere(0.25)
    c, s = np.cos(0.3), np.sin(0.3)
    pose = ([2.0, 0.3, -0.1], [c, 0.0, 0.0, s])
    d_box = sg.distance(box, ball, pose_b=pose)["distance"]
    d_hull = sg.distance(hull, ball, pose_b=pose)["distance"]
    assert d_box == pytest.approx(2.0 - 0.5 - 0.25, abs=1e-9)
    assert d_hull == pytest.approx(d_box, abs=1e-8)


def test_collide_with_a_security_margin():
    a, b = sg.Shape.capsule(0.1, 0.5), sg.Shape.sphere(0.1)
    pose_b = ([0.35, 0.0, 0.0], I)
    assert not sg.collide(a, b, pose_b=pose_b)["colliding"]
    r = sg.collide(a, b, pose_b=pose_b, security_margin=0.2)
    assert r["colliding"] and r["contacts"][0]["distance"] == pytest.approx(0.15)
    plane = sg.Shape.plane()
    r = sg.collide(plane, sg.Shape.box([0.1, 0.1, 0.1]), pose_b=([0, 0, 0.05], I), max_contacts=4)
    assert r["colliding"] and len(r["contacts"]) == 4


def test_invalid_shapes_and_poses_raise():
    with pytest.raises(sg.SignoriniError, match="radius"):
        sg.Shape.sphere(-1.0)
    with pytest.raises(sg.SignoriniError):
        sg.distance(sg.Shape.sphere(1.0), sg.Shape.sphere(1.0), pose_b=([float("nan"), 0, 0], I))
    with pytest.raises(sg.SignoriniError, match=r"\(n, 3\)"):
        sg.Shape.convex(np.zeros((4, 2)))
