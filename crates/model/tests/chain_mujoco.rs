//! Every record of `testdata/mujoco/model/chain.json` (MuJoCo 4.0, `scenes/chain.xml`): poses, dense `qM`,
//! `qfrc_bias`, `qfrc_passive`, point Jacobians and energies, each within 1e-10 of the largest entry.

mod common;

use common::{chain_json, chain_model, floats, rel_err, vec3};
use signorini_model::Data;

const TOL: f64 = 1e-10;

#[derive(Default)]
struct Worst {
    rows: Vec<(&'static str, f64)>,
}

impl Worst {
    fn check(&mut self, what: &'static str, ours: &[f64], theirs: &[f64], record: usize) {
        let e = rel_err(ours, theirs);
        assert!(e <= TOL, "record {record}: {what} relative error {e:e}\nours   {ours:?}\nMuJoCo {theirs:?}");
        match self.rows.iter_mut().find(|(w, _)| *w == what) {
            Some((_, m)) => *m = m.max(e),
            None => self.rows.push((what, e)),
        }
    }
}

#[test]
fn chain_matches_mujoco() {
    let json = chain_json();
    let model = chain_model(&json);
    let sizes = &json["sizes"];
    assert_eq!(model.nq as u64, sizes["nq"].as_u64().unwrap());
    assert_eq!(model.nv as u64, sizes["nv"].as_u64().unwrap());
    assert_eq!(model.nbody as u64, sizes["nbody"].as_u64().unwrap());
    assert_eq!(model.njnt as u64, sizes["njnt"].as_u64().unwrap());
    assert_eq!(model.dof_armature, floats(&json["dof_armature"]));
    assert_eq!(model.dof_damping, floats(&json["dof_damping"]));

    let mut data = Data::new(&model);
    let nv = model.nv;
    let mut worst = Worst::default();
    let (mut jacp, mut jacr) = (vec![0.0; 3 * nv], vec![0.0; 3 * nv]);
    let records = json["records"].as_array().expect("records");
    assert_eq!(records.len(), 8);
    for (r, rec) in records.iter().enumerate() {
        data.qpos.copy_from_slice(&floats(&rec["qpos"]));
        data.qvel.copy_from_slice(&floats(&rec["qvel"]));
        model.forward(&mut data).expect("forward");
        model.energy(&mut data);

        let xpos: Vec<f64> = data.xpos.iter().flat_map(|v| v.to_array()).collect();
        worst.check("xpos", &xpos, &floats(&rec["xpos"]), r);
        let xquat: Vec<f64> = data.xquat.iter().flat_map(|q| [q.w, q.x, q.y, q.z]).collect();
        worst.check("xquat", &xquat, &floats(&rec["xquat"]), r);
        let xipos: Vec<f64> = data.xipos.iter().flat_map(|v| v.to_array()).collect();
        worst.check("xipos", &xipos, &floats(&rec["xipos"]), r);
        worst.check("qM", &model.dense_qm(&data), &floats(&rec["qM"]), r);
        worst.check("qfrc_bias", &data.qfrc_bias, &floats(&rec["qfrc_bias"]), r);
        worst.check("qfrc_passive", &data.qfrc_passive, &floats(&rec["qfrc_passive"]), r);
        for jac in rec["jacobians"].as_array().expect("jacobians") {
            let body = jac["body"].as_u64().expect("body") as usize;
            model.jacobian_point(&data, body, vec3(&jac["point"]), &mut jacp, &mut jacr);
            worst.check("jacp", &jacp, &floats(&jac["jacp"]), r);
            worst.check("jacr", &jacr, &floats(&jac["jacr"]), r);
        }
        worst.check("energy_pot", &[data.energy_potential], &[rec["energy_pot"].as_f64().unwrap()], r);
        worst.check("energy_kin", &[data.energy_kinetic], &[rec["energy_kin"].as_f64().unwrap()], r);
    }
    for (what, e) in &worst.rows {
        println!("chain.json max relative error {what:>13}: {e:.2e}");
    }
}

/// The compiled inertias pass through `Model::compile` unchanged (the model takes them as compiled by a loader).
#[test]
fn chain_inertias_are_kept() {
    let json = chain_json();
    let model = chain_model(&json);
    for b in 0..model.nbody {
        assert_eq!(model.body_mass[b], json["body_mass"][b].as_f64().unwrap());
        assert_eq!(model.body_inertia[b].to_array().to_vec(), floats(&json["body_inertia"][b]));
        assert_eq!(model.body_ipos[b].to_array().to_vec(), floats(&json["body_ipos"][b]));
        let q = model.body_iquat[b];
        let theirs = floats(&json["body_iquat"][b]);
        let err = rel_err(&[q.w, q.x, q.y, q.z], &theirs);
        assert!(err <= 1e-12, "body {b}: iquat {q:?} vs {theirs:?}");
    }
    assert_eq!(
        model.body_name,
        json["body_names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect::<Vec<_>>()
    );
}
