//! The smooth dynamics of `../shared/scenes/arm.xml` (a free box and a 7-joint arm with position servos, damping
//! and armature) against MuJoCo 4.0.1 bit for bit over its first 7 steps, before the box meets the table
//! (`model/tests/data/mujoco_arithmetic.json`, `scripts/mujoco_arithmetic_reference.py`): the compiled masses and
//! inertias (MuJoCo's primitive formulas), then `qpos`, `qvel` and `qacc_smooth` after each step. They depend on
//! the composite rigid body algorithm and the bias forces (`mju_mulInertVec`'s and `mju_dot`'s orders), the
//! centre-of-mass inertias (`mju_inertCom`), the subtree centres of mass (scaled by the reciprocal mass), the
//! factorisation and solve with `M` (`mju_dotSparse`'s order), and `qfrc_smooth`'s order `((passive − bias) +
//! applied) + actuator`. Before these followed MuJoCo the run parted at step 1 by 1e-20 and at step 13 by 2.5e-11.

use std::path::PathBuf;

use serde_json::Value;
use signorini_sim::Dialect;

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .flat_map(|x| x.as_array().cloned().unwrap_or_else(|| vec![x.clone()]))
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// `crates/model/tests/data/mujoco_arithmetic.json` (`scripts/mujoco_arithmetic_reference.py`).
fn reference(root: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(root.join("../model/tests/data/mujoco_arithmetic.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn bits_equal(ours: &[f64], theirs: &[f64]) -> bool {
    ours.len() == theirs.len() && ours.iter().zip(theirs).all(|(a, b)| a.to_bits() == b.to_bits())
}

#[test]
fn arm_follows_mujoco_bit_for_bit_until_contact() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let reference = reference(&root);
    let arm = &reference["arm"];
    let mut scene =
        signorini_mjcf::load_scene(&root.join("../../../shared/scenes/arm.xml"), Dialect::Mujoco, &[])
            .unwrap();
    let model = &scene.model().multibody;
    let inertia: Vec<f64> = model.body_inertia.iter().flat_map(|i| i.to_array()).collect();
    assert!(bits_equal(&model.body_mass, &numbers(&arm["body_mass"])), "body_mass");
    assert!(bits_equal(&inertia, &numbers(&arm["body_inertia"])), "body_inertia");
    for (k, step) in arm["steps"].as_array().unwrap().iter().enumerate() {
        scene.step().unwrap();
        let d = &scene.data().multibody;
        for (name, ours) in [("qpos", &d.qpos), ("qvel", &d.qvel), ("qacc_smooth", &d.qacc_smooth)] {
            let theirs = numbers(&step[name]);
            assert!(bits_equal(ours, &theirs), "step {}: {name} {ours:?} against {theirs:?}", k + 1);
        }
        assert_eq!(scene.contacts().geom_a.len(), 0, "step {}: no contact yet", k + 1);
    }
}

/// The inverse weights compiled at `qpos0` (MuJoCo's `mj_setConst`), bit for bit, on every benchmark scene
/// (`set_const` of the reference): `body_invweight0` is the mean diagonal of `A = J M⁻¹ Jᵀ` for the body's centre
/// of mass, each entry a `mju_dot` over all `nv` columns (`mju_mulMatMatT`); `dof_invweight0` the diagonal of
/// `M⁻¹`. They scale the rows' regularizers, so an ulp here is an ulp in every contact force. Summed in order over
/// the tree's dofs (not `mju_dot`'s lanes), the chain's bodies 3 and 6 were an ulp off, and the chain parted from
/// MuJoCo at step 166. `convex`'s mesh bodies weigh an ulp more or less than MuJoCo's (the sums of their hulls'
/// volumes round differently; not found yet), so its weights are checked to 1e-14 relative, the others bit for bit.
#[test]
fn compiled_inverse_weights_are_mujocos_bit_for_bit() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let reference = reference(&root);
    let mut failures = Vec::new();
    for (name, case) in reference["set_const"].as_object().unwrap() {
        let path = root.join(format!("../../../shared/scenes/{name}.xml"));
        let scene = signorini_mjcf::load_scene(&path, Dialect::Mujoco, &[]).unwrap();
        let m = &scene.model().multibody;
        for (field, ours) in [
            ("body_mass", m.body_mass.clone()),
            ("body_invweight0", m.body_invweight0.iter().flatten().copied().collect::<Vec<f64>>()),
            ("dof_invweight0", m.dof_invweight0.clone()),
        ] {
            let theirs = numbers(&case[field]);
            assert_eq!(ours.len(), theirs.len(), "{name}: {field}");
            let tolerance = if name == "convex" { 1e-14 } else { 0.0 };
            let differ: Vec<(usize, f64, f64)> = (0..ours.len())
                .filter(|&i| (ours[i] - theirs[i]).abs() > tolerance * theirs[i].abs() || ours[i].is_nan())
                .map(|i| (i, ours[i], theirs[i]))
                .collect();
            if !differ.is_empty() {
                failures.push(format!("{name}: {field} {differ:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The constraint rows of the first step with a contact, against MuJoCo 4.0.1's bit for bit
/// (`scripts/mujoco_arithmetic_reference.py`, `first_contact`): the arm's box landing flat on the table (four
/// contacts, 16 pyramid edges) and the pile's first box, tilted and spinning, landing on the floor. The Jacobian
/// columns are MuJoCo's `mj_jac` arithmetic, `cdof.lin + cdof.ang × (p − c)`; with `cdof.lin − cdof.ang × c` folded
/// beforehand (as this crate did) the rotational columns of the pile's box were up to 5 ulps off.
#[test]
fn first_contact_rows_are_mujocos_bit_for_bit() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let reference = reference(&root);
    for scene_name in ["arm", "pile"] {
        let case = &reference["first_contact"][scene_name];
        let path = root.join(format!("../../../shared/scenes/{scene_name}.xml"));
        let mut scene = signorini_mjcf::load_scene(&path, Dialect::Mujoco, &[]).unwrap();
        let steps = case["step"].as_u64().unwrap() as usize;
        scene.step_n(steps - 1).unwrap();
        assert_eq!(scene.contacts().geom_a.len(), 0, "{scene_name}: a contact before step {steps}");
        scene.step().unwrap();
        let rows = &scene.data().rows;
        let theirs = case["rows"].as_array().unwrap();
        assert_eq!(rows.len(), theirs.len(), "{scene_name}: row count");
        for (i, row) in theirs.iter().enumerate() {
            let (dofs, vals) = rows.jacobian_row(i);
            let mut ours: Vec<(usize, f64)> =
                dofs.iter().zip(vals).filter(|(_, v)| **v != 0.0).map(|(&k, &v)| (k as usize, v)).collect();
            ours.sort_by_key(|e| e.0);
            let their_dofs: Vec<usize> =
                row["dofs"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
            let their_jac = numbers(&row["jac"]);
            let (our_dofs, our_jac): (Vec<usize>, Vec<f64>) = ours.into_iter().unzip();
            assert_eq!(our_dofs, their_dofs, "{scene_name} row {i}: dofs");
            assert!(
                bits_equal(&our_jac, &their_jac),
                "{scene_name} row {i}: {our_jac:?} against {their_jac:?}"
            );
            let scalars = [rows.pos[i], rows.aref[i], rows.d[i], rows.r[i]];
            let their_scalars = ["pos", "aref", "D", "R"].map(|k| row[k].as_f64().unwrap());
            assert!(
                bits_equal(&scalars, &their_scalars),
                "{scene_name} row {i}: {scalars:?} against {their_scalars:?}"
            );
        }
    }
}

/// The arm in contact, against MuJoCo 4.0.1 bit for bit (`scripts/mujoco_arithmetic_reference.py`, `arm_contact`):
/// `qpos`, `qvel`, the solver's acceleration and every row force after steps 8 (the box lands on the table), 20
/// (the arm's tip meets the box), 30, 58, 59 (a joint limit row appears), 500 and 2000. It takes the dense Newton
/// iteration in MuJoCo's arithmetic (`signorini_solver`'s `mujoco_newton`: its sums' orders, `mju_cholSolve`'s
/// column-wise back substitution, its line search), MuJoCo's row order (limits before contacts), row velocities
/// summed as `mj_mulJacVec` sums them, `cacc` as `mj_rne` forms it for a free body, and sphere–box contacts
/// normalised by the reciprocal of the norm (`mju_normalize3`). Before, the run was bit for bit through step 7 only.
#[test]
fn arm_in_contact_follows_mujoco_bit_for_bit() {
    follows_mujoco_bit_for_bit("arm", "arm_contact");
}

/// The benchmark chain (a free base with ball, hinge and slide joints, joint damping and a friction-loss row)
/// against MuJoCo 4.0.1 bit for bit after steps 1, 3, 50, 165, 184, 230, 500 and 2000 (`chain` of the reference):
/// the whole run. Beyond the arm's arithmetic it takes friction-loss rows in the dense iteration (`PrimalEval`'s
/// Huber costs), MuJoCo 4.0.1's choice of start (its Gauss term `½ δᵀMδ`), `mj_solveLD`'s sparse sums (the tail
/// added one term at a time), `mj_makeImpedance`'s order for pyramid regularizers, `mj_setConst`'s inverse weights
/// in `mju_dot`'s lanes (an ulp off, the run parted at step 166, where the wrist's box meets the floor), the
/// plane–ellipsoid support point in `mjc_ellipsoidSupport`'s arithmetic (step 184) and the plane–capsule points as
/// `mjraw_PlaneSphere` forms them, `c + n (−dist/2 − r)` (step 230). Before all of these, the run parted at step 2.
#[test]
fn chain_follows_mujoco_bit_for_bit() {
    follows_mujoco_bit_for_bit("chain", "chain");
}

/// MuJoCo's conjugate-gradient solver (`arm__cg.xml`, `sphere_drop__cg.xml`) bit for bit after steps 8, 30, 500 and
/// 2000 (`cg` of the reference): `mj_solPrimal` without a Hessian, its direction from `M⁻¹g` and Hager–Zhang's `β`
/// in MuJoCo's sums, an exit on the gap alone. The shared CG iteration parted from MuJoCo at step 8 on the arm.
#[test]
fn cg_follows_mujoco_bit_for_bit() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let reference = reference(&root);
    for scene in ["arm__cg", "sphere_drop__cg"] {
        follows_mujoco_bit_for_bit_in(&reference["cg"][scene], scene);
    }
}

/// Elliptic friction cones in MuJoCo's Newton iteration (`elliptic` of the reference): `mj_constraintUpdate`'s
/// zones with 4.0.1's unit tangent, the cone Hessians folded into a second factor (`HessianCone`), and 4.0.1's
/// `PrimalPrepare`/`PrimalEval` (its machine code, not its public source: the friction components summed afresh at
/// each step length, the middle zone's curvature from pairwise cross terms). `sphere_drop__elliptic.xml` and
/// `arm__elliptic.xml` follow MuJoCo bit for bit over their 2000 steps; with the shared iteration they parted at
/// steps 370 and 20, with the public source's arithmetic the arm at step 28. `tests/data/rolling_condim.xml` (a
/// sphere, a box and a capsule rolling and spinning on the floor: condim 6 and 4 in the cone's middle zone, impratio
/// 3) follows it too; it parted at step 45 while the cone Hessian's curvature was formed as `(μN)/T`, not MuJoCo's
/// `μ (N/T)`, which the condim 3 contacts above happen not to tell apart.
#[test]
fn elliptic_cones_follow_mujoco_bit_for_bit() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let reference = reference(&root);
    for scene in ["sphere_drop__elliptic", "arm__elliptic", "rolling_condim"] {
        follows_mujoco_bit_for_bit_in(&reference["elliptic"][scene], scene);
    }
}

/// Slider-crank transmissions whose slider sites are oriented by `zaxis` (`tests/data/slider_crank.xml`, `slider_crank`
/// of the reference): MuJoCo's compiler scales the axis and the rotation axis `z × v` of `mjuu_z2quat` as
/// `mjuu_normvec` does (left alone within 1e-14 of unit length), and `mj_transmission` sums the moment row by row of
/// the axis and site Jacobians. Bit for bit over 2000 steps; with glam's normalisation and our chain-wise moment the
/// site frames were an ulp off and the run parted at step 1 (as MuJoCo's own `slider_crank.xml` did).
#[test]
fn slider_crank_follows_mujoco_bit_for_bit() {
    follows_mujoco_bit_for_bit("slider_crank", "slider_crank");
}

/// Capsules on a world cylinder, ellipsoid, box and floor (`tests/data/pair_order.xml`, `pair_order` of the
/// reference): MuJoCo's `mj_collideGeoms` makes the geom of the lower type geom 1 (a capsule before a cylinder or
/// an ellipsoid, which our shape kinds order the other way), which fixes the contact's frame and its place in the
/// contact list. Bit for bit over 1000 steps; the run parted at step 42 with the pairs in our kind order.
#[test]
fn pair_order_follows_mujoco_bit_for_bit() {
    follows_mujoco_bit_for_bit("pair_order", "pair_order");
}

/// Balls hung by length-limited spatial tendons (`tests/data/cradle.xml`, `cradle` of the reference): a tendon's
/// path points are the sites' `site_xpos` (`xpos + xmat·pos`, as `mj_kinematics` places them; we turned them by the
/// quaternion), and its limit row's velocity is `J_r q̇` summed as `mj_mulJacVec` sums it (we took the tendon's own
/// velocity). Bit for bit over 1000 steps, as MuJoCo's `replicate/newton_cradle.xml` is; they parted at steps 58
/// and 23.
#[test]
fn spatial_tendon_limits_follow_mujoco_bit_for_bit() {
    follows_mujoco_bit_for_bit("cradle", "cradle");
}

/// `qpos`, `qvel`, the solver's `qacc` and `efc_force` of `../shared/scenes/{scene}.xml` after each step listed
/// under `key` in the reference, bit for bit.
fn follows_mujoco_bit_for_bit(scene: &str, key: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    follows_mujoco_bit_for_bit_in(&reference(&root)[key], scene);
}

/// The same against the cases `steps` of the reference; `scene` is a scene of `../shared/scenes` or, where that has
/// none of its name, of `tests/data`.
fn follows_mujoco_bit_for_bit_in(steps: &Value, scene: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join(format!("../../../shared/scenes/{scene}.xml"));
    let path = if shared.exists() { shared } else { root.join(format!("tests/data/{scene}.xml")) };
    let mut sim = signorini_mjcf::load_scene(&path, Dialect::Mujoco, &[]).unwrap();
    let mut done = 0;
    for case in steps.as_array().unwrap() {
        let step = case["step"].as_u64().unwrap() as usize;
        sim.step_n(step - done).unwrap();
        done = step;
        let d = sim.data();
        let m = &d.multibody;
        for (name, ours) in
            [("qpos", &m.qpos), ("qvel", &m.qvel), ("qacc", &d.qacc_warmstart), ("efc_force", &d.efc_force)]
        {
            let theirs = numbers(&case[name]);
            assert!(bits_equal(ours, &theirs), "{scene} step {step}: {name} {ours:?} against {theirs:?}");
        }
    }
}
