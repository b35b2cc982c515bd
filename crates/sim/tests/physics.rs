//! Native-mode physics checks of issue 6's acceptance list.

use std::path::Path;

use signorini_sim::Scene;

/// A box on a 30° incline: with μ = 0.7 it sticks, with μ = 0.3 it slides with the Coulomb acceleration
/// `g (sin θ − μ cos θ)` (within 2 %; measured 2.371 vs 2.356 m/s²).
#[test]
fn box_on_an_incline_sticks_or_slides_with_coulomb_acceleration() {
    let theta = 30f64.to_radians();
    for (mu, sticks) in [(0.3, false), (0.7, true)] {
        let xml = format!(
            r#"<mujoco><compiler angle="radian"/><option timestep="0.001"/><worldbody>
            <geom type="plane" size="5 5 0.1" euler="0 {theta} 0" friction="{mu} 0.005 0.0001"/>
            <body pos="0 0 0.1" euler="0 {theta} 0"><freejoint/>
              <geom type="box" size="0.1 0.1 0.1" friction="{mu} 0.005 0.0001"/></body>
            </worldbody></mujoco>"#
        );
        let mut scene = Scene::from_mjcf_str(&xml, Path::new("."), false, &[]).unwrap();
        // Let the contact settle, then measure the velocity gained along the slope over one second.
        for _ in 0..200 {
            scene.step().unwrap();
        }
        let v0 = scene.data().qvel[..3].to_vec();
        let steps = 1000;
        for _ in 0..steps {
            scene.step().unwrap();
        }
        let v1 = scene.data().qvel[..3].to_vec();
        let dt = steps as f64 * 0.001;
        let speed = |v: &[f64]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        let accel = (speed(&v1) - speed(&v0)) / dt;
        if sticks {
            // Soft contacts leave a slow creep from the initial settling (a few mm/s, decaying); the box must not
            // accelerate down the slope.
            assert!(
                accel.abs() < 0.01 && speed(&v1) < 1e-2,
                "mu {mu}: the box should stick: {accel} m/s², {v1:?}"
            );
        } else {
            let expected = 9.81 * (theta.sin() - mu * theta.cos());
            assert!(
                (accel - expected).abs() < 0.02 * expected,
                "mu {mu}: acceleration {accel} vs {expected}"
            );
        }
    }
}
