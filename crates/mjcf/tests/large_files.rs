//! Large and deep files load in time linear in their size, or are refused with a typed error: 20 000 free bodies
//! load in seconds (they took minutes when line numbers and the tree layout were found by rescanning), a chain
//! nested 1000 deep loads on a 2 MiB thread stack, and deeper nesting is a `TooDeep` error naming the file and line.

use std::path::Path;
use std::time::Instant;

use signorini_mjcf::load_scene_str;
use signorini_sim::Dialect;

fn free_bodies(n: usize) -> String {
    let bodies: String = (0..n)
        .map(|i| {
            format!(
                r#"<body pos="{} {} 1"><freejoint/><geom type="sphere" size="0.1"/></body>"#,
                0.3 * (i % 200) as f64,
                0.3 * (i / 200) as f64
            )
        })
        .collect();
    format!(r#"<mujoco><worldbody><geom type="plane" size="100 100 0.1"/>{bodies}</worldbody></mujoco>"#)
}

fn chain(depth: usize) -> String {
    let open: String = (0..depth)
        .map(
            |_| r#"<body pos="0 0 0.01"><joint type="hinge" axis="0 1 0"/><geom type="sphere" size="0.01"/>"#,
        )
        .collect();
    format!("<mujoco><worldbody>{open}{}</worldbody></mujoco>", "</body>".repeat(depth))
}

#[test]
fn loading_is_linear_in_the_number_of_bodies() {
    let overrides = [("max_collision_pairs".to_string(), "100000".to_string())];
    let time = |n: usize| {
        let xml = free_bodies(n);
        let start = Instant::now();
        let scene = load_scene_str(&xml, Path::new("."), Dialect::Native, &overrides).unwrap();
        assert_eq!(scene.model().multibody.nbody, n + 1);
        start.elapsed().as_secs_f64()
    };
    let (small, large) = (time(2_000), time(20_000));
    // Linear: 10× the bodies in well under 40× the time (quadratic would be 100×); and seconds, not minutes.
    assert!(large < 40.0 * small.max(1e-3), "2 000 bodies: {small:.3} s, 20 000: {large:.3} s");
    assert!(large < 20.0, "20 000 bodies took {large:.1} s");
}

#[test]
fn deep_nesting_loads_up_to_the_limit_and_is_refused_past_it() {
    let worker = std::thread::Builder::new().stack_size(2 << 20);
    let handle = worker
        .spawn(|| {
            let deepest = signorini_xml::element::MAX_DEPTH - 4; // <mujoco><worldbody> and the bodies
            let scene = load_scene_str(&chain(deepest), Path::new("."), Dialect::Native, &[]).unwrap();
            assert_eq!(scene.model().multibody.nbody, deepest + 1);
            let err = load_scene_str(&chain(4000), Path::new("deep.xml"), Dialect::Native, &[]).unwrap_err();
            let text = err.to_string();
            assert!(text.contains(":1: elements nest deeper than 1000"), "{text}");
            let unknown = format!("<mujoco>{}{}</mujoco>", "<a>".repeat(10_000), "</a>".repeat(10_000));
            let err = load_scene_str(&unknown, Path::new("u.xml"), Dialect::Native, &[]).unwrap_err();
            assert!(err.to_string().contains("nest deeper"), "{err}");
        })
        .unwrap();
    handle.join().expect("no stack overflow on a 2 MiB stack");
}

/// Found by the fuzzing harness: a weld of a body to itself made the island solver index past its rows.
#[test]
fn an_equality_of_a_body_with_itself_is_refused() {
    let xml = r#"<mujoco><worldbody><body name="b"><freejoint/><geom type="sphere" size="0.1"/></body></worldbody>
        <equality><weld body1="b" body2="b"/></equality></mujoco>"#;
    let err = load_scene_str(xml, Path::new("."), Dialect::Native, &[]).unwrap_err();
    assert!(err.to_string().contains("same body"), "{err}");
}

/// Found by the fuzzing harness: a weld between two bodies without dofs gives rows without Jacobian entries and no
/// island, which the island solver indexed as if there were one.
#[test]
fn a_weld_between_two_fixed_bodies_steps() {
    let xml = r#"<mujoco><worldbody><body name="a" pos="0 0 1"><geom type="box" size="0.1 0.1 0.1"/>
        <body name="b" pos="0.5 0 0"><geom type="sphere" size="0.1"/></body></body></worldbody>
        <equality><weld body1="b" body2="a"/></equality></mujoco>"#;
    for dialect in [Dialect::Native, Dialect::Mujoco] {
        let mut scene = load_scene_str(xml, Path::new("."), dialect, &[]).unwrap();
        for _ in 0..3 {
            scene.step().unwrap();
        }
    }
}
