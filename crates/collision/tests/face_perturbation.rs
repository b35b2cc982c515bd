//! Genesis 1.4.5's perturbation contacts of two convex geoms with faces (`multi_contact::face_perturbation_contacts`,
//! native dialect), against the closed form of a cube hull resting on another, shifted and tilted: the overlap of
//! the two faces is a rectangle whose corners and depths are exact. The tilts aim at its corners, so the contacts are
//! contact 0 (where MPR puts it, on the patch) and one at each corner not already within the merge distance of it,
//! each at the depth of the faces there.

use glam::{DQuat, DVec2, DVec3};
use signorini_collision::prune::{PruneContact, PruneScratch, prune};
use signorini_collision::world::CollisionOptions;
use signorini_collision::{Contact, ContactRequest, contacts};
use signorini_geometry::{Capsule, ConvexMesh, Cuboid, Cylinder, Pose, Shape};

const H: f64 = 0.1;

fn corner(k: usize) -> DVec3 {
    DVec3::new(
        if k & 1 == 0 { -H } else { H },
        if k & 2 == 0 { -H } else { H },
        if k & 4 == 0 { -H } else { H },
    )
}

fn cube_hull() -> Shape {
    ConvexMesh::from_points(&(0..8).map(corner).collect::<Vec<_>>()).unwrap().into()
}

/// B (above) shifted by `(dx, dy)`, tilted by `theta` about x, its bottom face `sink` into A's top face at its
/// centre: every corner of the overlap penetrates, at depths that differ by the tilt.
#[test]
fn a_face_on_a_face_gets_a_contact_at_each_corner_of_the_overlap() {
    for (dx, dy, theta, sink) in [
        (0.03, 0.02, 3e-4, 1e-4),
        (-0.05, 0.01, -2e-4, 2e-4),
        (0.02, -0.06, 1e-4, 5e-5),
        (0.07, 0.04, 4e-4, 1.5e-4),
        (0.03, 0.02, 0.0, 1e-4),
    ] {
        let pose_b = Pose::new(DVec3::new(dx, dy, 2.0 * H - sink), DQuat::from_rotation_x(theta)).unwrap();
        let bottom: Vec<DVec3> = (0..4).map(|k| pose_b.transform_point(corner(k))).collect();
        // The bottom face's height is affine in y alone (the tilt is about x).
        let slope_y = (bottom[2].z - bottom[0].z) / (bottom[2].y - bottom[0].y);
        let depth_at = |p: DVec2| H - (bottom[0].z + slope_y * (p.y - bottom[0].y));
        let (x0, x1) = ((dx - H).max(-H), (dx + H).min(H));
        let (y0, y1) = (bottom[0].y.max(-H), bottom[2].y.min(H));
        let corners = [DVec2::new(x0, y0), DVec2::new(x1, y0), DVec2::new(x0, y1), DVec2::new(x1, y1)];
        let case = format!("dx {dx} dy {dy} theta {theta}");

        let m = contacts(&cube_hull(), &Pose::IDENTITY, &cube_hull(), &pose_b, &ContactRequest::default())
            .unwrap();
        for c in &m.contacts {
            assert!(c.normal.dot(DVec3::NEG_Z) > 1.0 - 1e-6, "{case}: normal {}", c.normal);
            let xy = c.position.truncate();
            assert!(
                (x0 - 1e-9..=x1 + 1e-9).contains(&xy.x) && (y0 - 1e-9..=y1 + 1e-9).contains(&xy.y),
                "{case}: {xy}"
            );
            assert!((c.penetration - depth_at(xy)).abs() < 1e-8, "{case}: depth {} at {xy}", c.penetration);
        }
        // Every corner has one contact on it (contact 0 may stand on one), and no other contact is off the corners.
        let first = m.contacts[0].position.truncate();
        for (k, &q) in corners.iter().enumerate() {
            let on = m.contacts.iter().filter(|c| (c.position.truncate() - q).length() < 1e-6).count();
            assert_eq!(on, 1, "{case}: {on} contacts at corner {k} {q}: {:?}", m.contacts);
        }
        let off = m.contacts[1..]
            .iter()
            .filter(|c| corners.iter().all(|&q| (c.position.truncate() - q).length() >= 1e-6));
        assert_eq!(off.count(), 0, "{case}: a perturbed contact off the corners: {:?}", m.contacts);
        let on_corner = corners.iter().any(|&q| (first - q).length() < 1e-6);
        assert_eq!(m.contacts.len(), if on_corner { 4 } else { 5 }, "{case}");
    }
}

type V = [f64; 3];

/// Poses of A and B (position, quaternion `w, x, y, z`), the four contacts (position, depth) and their normal.
type Reference = (V, [f64; 4], V, [f64; 4], [(V, f64); 4], V);

/// Genesis 1.4.5's contacts between two boxes of its default `box_box_detection = false` (a box resting on another,
/// turned 0.3° about z, at steps 20, 60 and 150 of `tests/data/genesis/two_boxes.xml`; poses read before the step,
/// contacts after it, `scripts/genesis_pair_contacts.py`): ours between the two cube hulls equal them, contact for
/// contact, to 1e-16 m.
#[test]
fn two_resting_boxes_get_genesis_contacts() {
    let cases: [Reference; 3] = [
        (
            [8.70965094232919e-06, 5.814060354615321e-06, 0.09976193803744345],
            [0.9999999985065129, -3.03218799994019e-05, 4.547040777193589e-05, 4.2398587261087945e-09],
            [0.030036211735926473, 0.020023466134751262, 0.29924977347629955],
            [0.9999965664612933, -6.081183541920002e-05, 9.702967236459588e-05, 0.0026180054979938194],
            [
                ([-0.06945814149331617, -0.08051094355401313, 0.1995272320840511], 0.0004918135243334731),
                ([0.10001775487882426, -0.07962355770465106, 0.19950302769690376], 0.0005092901173057099),
                ([-0.07040337159013876, 0.10001184714473345, 0.19951086909624283], 0.0005028162581309435),
                ([0.10001775179025926, 0.1000118470500995, 0.19948661126098147], 0.0005203354567429009),
            ],
            [-0.00019374026697995678, -0.00012213130167024658, -0.9999999737743267],
        ),
        (
            [8.082545294933625e-06, 5.386342572060528e-06, 0.09994464109888818],
            [0.9999999988350206, -2.6771171834807558e-05, 4.016545090248585e-05, -4.646778627867477e-10],
            [0.030034845716720493, 0.020022463382132653, 0.29988182012808323],
            [0.9999965667308127, -5.941696445736663e-05, 9.540700548374387e-05, 0.002617994216028406],
            [
                ([-0.06945922975154281, -0.08051169185998666, 0.1999336507536835], 4.1764512439063095e-05),
                ([0.10001610964792335, -0.07962431262305611, 0.19991062428025352], 6.0494220838717966e-05),
                ([-0.07040445374327686, 0.10001073745610681, 0.1999181748075774], 5.353707813014759e-05),
                ([0.10001610830284527, 0.10001073581096029, 0.1998950970385017], 7.231254155011518e-05),
            ],
            [-0.00019050224931306347, -0.00011933307090283644, -0.9999999747342554],
        ),
        (
            [8.179317640576772e-06, 5.451013055517642e-06, 0.09994556506218788],
            [0.9999999988097947, -2.7061072150439517e-05, 4.059690764152891e-05, -6.846556069681597e-10],
            [0.03003552005010378, 0.02002289190386623, 0.2998852619396737],
            [0.9999965665464287, -6.032468810178929e-05, 9.687887106869222e-05, 0.002617989833915739],
            [
                ([-0.06945885032230921, -0.08051144486100856, 0.1999361247934397], 3.887757033532724e-05),
                ([0.10001629282952354, -0.0796240681579927, 0.19991277511836503], 5.796020004971746e-05),
                ([-0.07040407210591498, 0.10001086025040076, 0.19992043376176488], 5.087261751357477e-05),
                ([0.10001629151613048, 0.10001085848378265, 0.19989703206048412], 7.000186117854507e-05),
            ],
            [-0.0001934412180388362, -0.00012115621775871464, -0.9999999739508327],
        ),
    ];
    let pose = |p: V, q: [f64; 4]| {
        Pose::new(DVec3::from(p), DQuat::from_xyzw(q[1], q[2], q[3], q[0]).normalize()).unwrap()
    };
    let (mut worst_position, mut worst_depth, mut worst_normal) = (0.0f64, 0.0f64, 0.0f64);
    for (k, (pa, qa, pb, qb, expected, normal)) in cases.iter().enumerate() {
        let m = contacts(
            &cube_hull(),
            &pose(*pa, *qa),
            &cube_hull(),
            &pose(*pb, *qb),
            &ContactRequest::default(),
        )
        .unwrap();
        assert_eq!(m.contacts.len(), 4, "step case {k}: {:?}", m.contacts);
        for (x, depth) in expected {
            let c = m
                .contacts
                .iter()
                .min_by(|a, b| {
                    (a.position - DVec3::from(*x))
                        .length()
                        .total_cmp(&(b.position - DVec3::from(*x)).length())
                })
                .unwrap();
            worst_position = worst_position.max((c.position - DVec3::from(*x)).length());
            worst_depth = worst_depth.max((c.penetration - depth).abs());
            worst_normal = worst_normal.max((c.normal - DVec3::from(*normal)).length());
        }
    }
    println!(
        "largest differences: position {worst_position:e} m, depth {worst_depth:e} m, normal {worst_normal:e}"
    );
    assert!(worst_position < 1e-13 && worst_depth < 1e-13 && worst_normal < 1e-13);
}

/// A Genesis 1.4.5 pair of a cylinder (A) on a box or another cylinder (B) of `tests/data/genesis/cylinder_faces.xml`
/// (`scripts/genesis_pair_contacts.py`): the poses read before a step (position, quaternion `w, x, y, z`), the pair's
/// cached normal (contact 0 of the step before; `None` at its first contact), the contacts Genesis returned after the
/// step (position, depth) and their common normal.
struct Case {
    what: &'static str,
    b_is_box: bool,
    pose_a: (V, [f64; 4]),
    pose_b: (V, [f64; 4]),
    cached_normal: Option<V>,
    contacts: &'static [(V, f64)],
    normal: V,
}

/// A cylinder standing on a box (tilted 0.017°) and on another cylinder (offset, tilted): ours equal Genesis 1.4.5's
/// contacts, contact for contact, to 1e-9 m, at the first contact (cold) and, for the two cylinders, at step 20 with
/// the cached normal Genesis held (each perturbed detection warm-starts MPR from contact 0's normal, as 1.4.5 caches
/// it first; without that, 1e-5 m off).
/// Cylinder on box at step 20 is left out: our MPR puts contact 0 inside the overlap where 1.4.5's rewritten MPR puts
/// it on the rim (5 contacts against its 4, the 4 equal).
#[test]
fn cylinders_on_faces_get_genesis_contacts() {
    let cases = [
        Case {
            what: "step 1, geoms 1 and 0",
            b_is_box: true,
            pose_a: ([0.03, 0.02, 0.0898], [0.9999999887500001, 0.0001499999994371004, 0.0, 0.0]),
            pose_b: ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
            cached_normal: None,
            contacts: &[
                ([0.02084988948338203, -0.02914141649264031, 0.049892627887304815], 0.00021474422539036891),
                ([0.030070152583448306, -0.02994299441999189, 0.049892507650621976], 0.00021498469875606298),
                ([-0.018768739397670913, 0.008990813829148942, 0.04989834772202389], 0.00020330455595220925),
                ([0.07308365993813024, -0.005358952728606448, 0.04989619525697534], 0.00020760948604931634),
                ([0.05008792531529017, 0.06579820462182943, 0.04990686883089767], 0.00018626233820464438),
            ],
            normal: [-9.642912630179987e-08, -1.4818008203323523e-13, 0.9999999999999954],
        },
        Case {
            what: "step 1, geoms 4 and 5",
            b_is_box: false,
            pose_a: ([0.4, 0.0, 0.04], [1.0, 0.0, 0.0, 0.0]),
            pose_b: (
                [0.42, 0.01, 0.1199],
                [0.9999999349999934, 0.0003000000104999012, 0.00020000000700004517, -4.580754178751256e-17],
            ),
            cached_normal: None,
            contacts: &[
                ([0.4112565590223978, -0.039207660245628995, 0.07993698120023367], 0.00012603762067601998),
                ([0.3778675906235688, -0.016898082282896677, 0.07995035186759385], 9.929628145624592e-05),
                ([0.43392938535971537, -0.036222622322771396, 0.07993334214624392], 0.00013331572986420985),
                ([0.4499699018558476, -0.0013452879493204167, 0.07994059724342518], 0.00011880553307176689),
                ([0.3882068627209227, 0.04858006259869644, 0.07996792745702662], 6.414509669895596e-05),
            ],
            normal: [-0.0003628626992669912, 0.000451282717625964, -0.999999832337271],
        },
        Case {
            what: "step 20, geoms 4 and 5",
            b_is_box: false,
            pose_a: ([0.4, 0.0, 0.04], [1.0, 0.0, 0.0, 0.0]),
            pose_b: (
                [0.4199866530370942, 0.01002416159534725, 0.11996598705704092],
                [0.9999999994984876, -2.8201296990946654e-06, 3.1515967030292606e-05, -1.347411396331576e-06],
            ),
            cached_normal: Some([-7.302536151860768e-05, -1.2206415829052804e-05, -0.99999999725915]),
            contacts: &[
                ([0.4004812694429631, -0.036014384117777284, 0.0799837380523202], 3.2523895425004556e-05),
                ([0.4493731477136581, -0.007866825357168941, 0.0799821177987341], 3.576440260165403e-05),
                ([0.38400920311128944, 0.04474741375080029, 0.07998402943016981], 3.194113972952717e-05),
                ([0.44919768829580653, 0.005708373012548145, 0.07998208504535317], 3.582990936180053e-05),
                ([0.4239444915452166, 0.04389326246158065, 0.0799827732395693], 3.445352093062182e-05),
            ],
            normal: [-6.0575722955698e-05, -1.1596808991307724e-05, -0.9999999980980478],
        },
    ];
    let pose = |(p, q): (V, [f64; 4])| {
        Pose::new(DVec3::from(p), DQuat::from_xyzw(q[1], q[2], q[3], q[0]).normalize()).unwrap()
    };
    let cylinder: Shape = Cylinder::new(0.05, 0.04).unwrap().into();
    let cuboid: Shape = Cuboid::new(DVec3::new(0.1, 0.1, 0.05)).unwrap().into();
    let mut worst = 0.0f64;
    for case in &cases {
        let request =
            ContactRequest { cached_normal: case.cached_normal.map(DVec3::from), ..Default::default() };
        let b = if case.b_is_box { &cuboid } else { &cylinder };
        let m = contacts(&cylinder, &pose(case.pose_a), b, &pose(case.pose_b), &request).unwrap();
        assert_eq!(m.contacts.len(), case.contacts.len(), "{}: {:?}", case.what, m.contacts);
        for (x, depth) in case.contacts {
            let x = DVec3::from(*x);
            let c = m
                .contacts
                .iter()
                .min_by(|a, b| (a.position - x).length().total_cmp(&(b.position - x).length()))
                .unwrap();
            assert!((c.position - x).length() < 1e-8, "{}: {} against {x}", case.what, c.position);
            assert!(
                (c.penetration - depth).abs() < 1e-8,
                "{}: depth {} against {depth}",
                case.what,
                c.penetration
            );
            assert!(
                (c.normal - DVec3::from(case.normal)).length() < 1e-8,
                "{}: normal {}",
                case.what,
                c.normal
            );
            worst = worst.max((c.position - x).length()).max((c.penetration - depth).abs());
        }
    }
    println!("largest difference in position or depth: {worst:e} m");
}

/// Genesis 1.4.5's contacts of capsule pairs (`tests/data/genesis/capsule_pairs.xml`: a capsule lying on a box, one
/// across a capsule, one nearly parallel on a capsule and one on a cylinder's top face), at their first contact and
/// at step 20 with the normal Genesis cached (`capsule_pairs.json`, `scripts/genesis_pair_contacts.py`): 1.4.5 tilts
/// a capsule pair about its default axes `±a₀, ±a₁` (a capsule has no face to outline), its capsule–capsule
/// detection is analytic and its capsule–box and capsule–cylinder detections are MPR's. Ours equal them, contact for
/// contact, to 1e-9 m (1.6e-10 m at most; 2.4e-15 m but for the capsule on the cylinder, whose cold contact 0 was
/// 3.4e-6 rad off in normal while our MPR stopped at 1e-6 m instead of 1.4.5's `1e-5·s`).
#[test]
fn capsule_pairs_get_genesis_contacts() {
    #[derive(serde::Deserialize)]
    struct GenesisContact {
        ga: usize,
        gb: usize,
        p: V,
        n: V,
        d: f64,
    }
    #[derive(serde::Deserialize)]
    struct Frame {
        step: usize,
        pos: Vec<V>,
        quat: Vec<[f64; 4]>,
        cache: std::collections::HashMap<String, V>,
        contacts: Vec<GenesisContact>,
    }
    #[derive(serde::Deserialize)]
    struct Reference {
        frames: Vec<Frame>,
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/genesis/capsule_pairs.json");
    let reference: Reference = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let capsule = |r: f64, h: f64| -> Shape { Capsule::new(r, h).unwrap().into() };
    let geoms: [Shape; 8] = [
        Cuboid::new(DVec3::new(0.2, 0.1, 0.05)).unwrap().into(),
        capsule(0.04, 0.12),
        capsule(0.05, 0.2),
        capsule(0.04, 0.15),
        capsule(0.05, 0.2),
        capsule(0.04, 0.15),
        Cylinder::new(0.15, 0.04).unwrap().into(),
        capsule(0.04, 0.08),
    ];
    let (mut worst, mut pairs) = (0.0f64, 0);
    let mut scratch = PruneScratch::default();
    for frame in &reference.frames {
        let pose = |g: usize| {
            let (p, q) = (frame.pos[g], frame.quat[g]);
            Pose::new(DVec3::from(p), DQuat::from_xyzw(q[1], q[2], q[3], q[0]).normalize()).unwrap()
        };
        let mut keys: Vec<(usize, usize)> = frame.contacts.iter().map(|c| (c.ga, c.gb)).collect();
        keys.dedup();
        for (ga, gb) in keys {
            let expected: Vec<&GenesisContact> =
                frame.contacts.iter().filter(|c| (c.ga, c.gb) == (ga, gb)).collect();
            let cached = frame.cache[&format!("{ga},{gb}")];
            let request = ContactRequest {
                cached_normal: (cached != [0.0; 3]).then(|| DVec3::from(cached)),
                ..Default::default()
            };
            let what = format!("step {}, geoms {ga} and {gb}", frame.step);
            let mut m = contacts(&geoms[ga], &pose(ga), &geoms[gb], &pose(gb), &request).unwrap();
            // Genesis reports the contacts its step keeps after pruning (spec §A.16: sorted by the frame key of the
            // position in B's frame, then a point between two others on a line goes).
            let phi = 0.5 * (1.0 + 5f64.sqrt());
            let key = |c: &Contact| {
                let x = pose(gb).inverse().transform_point(c.position);
                x.x + phi * x.y + phi * phi * x.z
            };
            m.contacts.sort_by(|a, b| key(a).total_cmp(&key(b)));
            let prunable: Vec<PruneContact> = m
                .contacts
                .iter()
                .map(|c| PruneContact {
                    link_pair: (ga, gb),
                    position: c.position,
                    normal: c.normal,
                    penetration: c.penetration,
                })
                .collect();
            let tol = CollisionOptions::default().contact_pruning_tolerance;
            let keep = prune(&prunable, tol, &mut scratch).to_vec();
            let kept: Vec<_> = m.contacts.iter().zip(&keep).filter(|(_, k)| **k).map(|(c, _)| *c).collect();
            assert_eq!(kept.len(), expected.len(), "{what}: {:?}", m.contacts);
            for e in expected {
                let x = DVec3::from(e.p);
                let c = kept
                    .iter()
                    .min_by(|a, b| (a.position - x).length().total_cmp(&(b.position - x).length()))
                    .unwrap();
                let (dp, dd, dn) = (
                    (c.position - x).length(),
                    (c.penetration - e.d).abs(),
                    (c.normal - DVec3::from(e.n)).length(),
                );
                if std::env::var("DBG").is_ok() {
                    println!("{what}: dp {dp:.2e} dd {dd:.2e} dn {dn:.2e}");
                    continue;
                }
                assert!(dp < 1e-9 && dd < 1e-9 && dn < 1e-9, "{what}: {c:?} against {x} {} {:?}", e.d, e.n);
                worst = worst.max(dp).max(dd);
            }
            pairs += 1;
        }
    }
    assert_eq!(pairs, 8);
    println!("largest difference in position or depth: {worst:e} m");
}
