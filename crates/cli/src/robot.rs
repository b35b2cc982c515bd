//! `signorini robot URDF --configs FILE.json [--srdf SRDF] [--geometry mesh|hull] [--gradients] [--bench]`: the
//! self-collision answers of a robot at each configuration of FILE, one JSON line per configuration; and
//! `signorini robot URDF --generate-acm --samples N --out FILE.srdf`: the allowed-collision matrix by sampling.
//!
//! FILE has the layout of `shared/robots/iiwa_queries.json`: `joint_names` (the order of `q`; all movable joints
//! that are not locked or mimics when absent), `locked_joints` (name → value, optional) and `configs`, each with a
//! `q`. Output per configuration: `{"index", "any_collision", "min_distance", "pairs": [{"geom1", "geom2",
//! "collision", "distance", "p1", "p2", "normal", "grad"}]}`, pairs in the model's order (geometry index, URDF
//! order), `p1`/`p2`/`normal`/`grad` null where the pair has no witness (crossing triangle meshes), `grad` only with
//! `--gradients`. `--bench` prints instead one line `{"robot", "geometry", "configs", "pairs", "fk_ns", "check_ns",
//! "distances_ns", "gradients_ns", "threads", "batch_check_ns", "batch_distances_ns"}`: mean single-thread time per
//! configuration (median of `--repeat` passes), each including forward kinematics, then the time per configuration
//! of the batched check and distances on `--threads` threads (the configurations repeated to at least 4096).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};
use signorini_robot::{AcmSettings, MeshGeometry, PairDistance, RobotModel, RobotOptions};

use crate::error::CliError;
use crate::query::write_json;

/// Mesh collision geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GeometryArg {
    /// The triangle meshes (unsigned distance, 0 when the surfaces cross).
    Mesh,
    /// Their convex hulls (signed distance).
    Hull,
}

/// Arguments of `signorini robot`.
#[derive(Debug, Args)]
pub struct RobotArgs {
    /// The robot (URDF). Mesh files: relative to it, or `package://NAME/...` found beside it.
    pub urdf: PathBuf,
    /// Configurations (JSON, layout of `shared/robots/iiwa_queries.json`).
    #[arg(long, required_unless_present = "generate_acm")]
    pub configs: Option<PathBuf>,
    /// Allowed-collision matrix (SRDF `disable_collisions`).
    #[arg(long)]
    pub srdf: Option<PathBuf>,
    /// Mesh geometry as triangle meshes or convex hulls.
    #[arg(long, value_enum, default_value = "hull")]
    pub geometry: GeometryArg,
    /// A ROS package folder for `package://NAME/...` mesh names, as `NAME=DIR` (repeatable; a package not given is
    /// looked for beside the URDF).
    #[arg(long = "package-dir", value_name = "NAME=DIR")]
    pub package_dirs: Vec<String>,
    /// Add ∂distance/∂q of each pair.
    #[arg(long)]
    pub gradients: bool,
    /// Time the queries instead of printing answers.
    #[arg(long, conflicts_with = "generate_acm")]
    pub bench: bool,
    /// Timed passes for `--bench` (median reported).
    #[arg(long, default_value_t = 7)]
    pub repeat: usize,
    /// Generate the allowed-collision matrix by sampling and write it as SRDF to `--out`.
    #[arg(long, requires = "out", conflicts_with = "configs")]
    pub generate_acm: bool,
    /// Configurations sampled for `--generate-acm`.
    #[arg(long, default_value_t = 10_000)]
    pub samples: usize,
    /// Seed of the samples of `--generate-acm`.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads for the configurations (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output file (the SRDF with `--generate-acm`, else the JSON lines).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

impl RobotArgs {
    /// Where the JSON goes: `--out`, except with `--generate-acm` (its `--out` is the SRDF; the summary goes to
    /// stdout).
    pub fn out_for_stdout(&self) -> Option<&Path> {
        if self.generate_acm { None } else { self.out.as_deref() }
    }

    /// The input files, which `--out` must not overwrite.
    pub fn inputs(&self) -> Vec<&Path> {
        [Some(self.urdf.as_path()), self.configs.as_deref(), self.srdf.as_deref()]
            .into_iter()
            .flatten()
            .collect()
    }
}

/// The configuration file.
#[derive(Debug, Deserialize)]
struct ConfigFile {
    #[serde(default)]
    joint_names: Option<Vec<String>>,
    #[serde(default)]
    locked_joints: BTreeMap<String, f64>,
    configs: Vec<Config>,
}

#[derive(Debug, Deserialize)]
struct Config {
    #[serde(default)]
    index: Option<u64>,
    q: Vec<f64>,
}

#[derive(Debug, Serialize)]
struct PairLine<'a> {
    geom1: &'a str,
    geom2: &'a str,
    collision: bool,
    distance: f64,
    p1: Option<[f64; 3]>,
    p2: Option<[f64; 3]>,
    normal: Option<[f64; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    grad: Option<Option<Vec<f64>>>,
}

#[derive(Debug, Serialize)]
struct ConfigLine<'a> {
    index: u64,
    any_collision: bool,
    min_distance: Option<f64>,
    pairs: Vec<PairLine<'a>>,
}

#[derive(Debug, Serialize)]
struct BenchLine<'a> {
    robot: &'a str,
    geometry: &'a str,
    configs: usize,
    pairs: usize,
    fk_ns: f64,
    check_ns: f64,
    distances_ns: f64,
    gradients_ns: f64,
    threads: usize,
    batch_check_ns: f64,
    batch_distances_ns: f64,
}

/// Runs `signorini robot`.
pub fn run(args: &RobotArgs, w: &mut dyn Write) -> Result<(), CliError> {
    let geometry = match args.geometry {
        GeometryArg::Mesh => MeshGeometry::TriangleMesh,
        GeometryArg::Hull => MeshGeometry::ConvexHull,
    };
    let package_dirs = args
        .package_dirs
        .iter()
        .map(|p| match p.split_once('=') {
            Some((name, dir)) if !name.is_empty() && !dir.is_empty() => {
                Ok((name.to_string(), PathBuf::from(dir)))
            }
            _ => Err(CliError::Usage(format!("--package-dir takes NAME=DIR, got `{p}`"))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .map_err(|e| CliError::Usage(format!("--threads: {e}")))?;
    if args.generate_acm {
        let options = RobotOptions { geometry, package_dirs, ..RobotOptions::default() };
        return generate_acm(args, &RobotModel::from_files(&args.urdf, None, &options)?, w);
    }
    let path =
        args.configs.as_deref().ok_or_else(|| CliError::Usage("--configs FILE.json is required".into()))?;
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Io { path: path.into(), source })?;
    let file: ConfigFile =
        serde_json::from_str(&text).map_err(|source| CliError::Json { path: path.into(), source })?;
    let options = RobotOptions {
        geometry,
        package_dirs,
        joint_names: file.joint_names.clone(),
        locked_joints: file.locked_joints.iter().map(|(k, v)| (k.clone(), *v)).collect(),
    };
    let robot = RobotModel::from_files(&args.urdf, args.srdf.as_deref(), &options)?;
    let qs: Vec<&[f64]> = file.configs.iter().map(|c| c.q.as_slice()).collect();
    if args.bench {
        return bench(&robot, &qs, args, &pool, w);
    }
    let answers = pool.install(|| robot.batch_distance_gradients(&qs))?;
    for (i, (config, (distances, grad))) in file.configs.iter().zip(&answers).enumerate() {
        write_json(
            w,
            &config_line(&robot, config.index.unwrap_or(i as u64), distances, grad, args.gradients),
        )?;
    }
    Ok(())
}

fn config_line<'a>(
    robot: &'a RobotModel,
    index: u64,
    distances: &[PairDistance],
    grad: &[f64],
    with_gradients: bool,
) -> ConfigLine<'a> {
    let nq = robot.nq();
    let pairs = distances
        .iter()
        .map(|d| {
            let [a, b] = robot.pairs()[d.pair];
            let row = &grad[d.pair * nq..(d.pair + 1) * nq];
            PairLine {
                geom1: &robot.geoms()[a].name,
                geom2: &robot.geoms()[b].name,
                collision: d.collision,
                distance: d.distance,
                p1: d.witness.map(|w| w.point_a.to_array()),
                p2: d.witness.map(|w| w.point_b.to_array()),
                normal: d.witness.map(|w| w.normal.to_array()),
                grad: with_gradients.then(|| d.witness.map(|_| row.to_vec())),
            }
        })
        .collect();
    ConfigLine {
        index,
        any_collision: distances.iter().any(|d| d.collision),
        min_distance: distances.iter().map(|d| d.distance).min_by(f64::total_cmp),
        pairs,
    }
}

/// Median over `repeat` passes of the mean time per configuration of `op` (ns).
fn time_per_config(qs: &[&[f64]], repeat: usize, mut op: impl FnMut(&[f64])) -> f64 {
    crate::timing::median_ns_per_item(repeat, qs.len(), || {
        for q in qs {
            op(black_box(q));
        }
    })
}

fn bench(
    robot: &RobotModel,
    qs: &[&[f64]],
    args: &RobotArgs,
    pool: &rayon::ThreadPool,
    w: &mut dyn Write,
) -> Result<(), CliError> {
    if args.repeat == 0 {
        return Err(CliError::Usage("--repeat must be at least 1".into()));
    }
    for (i, q) in qs.iter().enumerate() {
        robot.check_configuration(q, i)?;
    }
    let mut data = robot.data();
    let (mut out, mut grad) = (Vec::new(), Vec::new());
    // One untimed pass warms the caches and the workspaces; errors surface here.
    for q in qs {
        robot.distance_gradients(&mut data, q, &mut out, &mut grad)?;
    }
    let r = args.repeat;
    let fk_ns = time_per_config(qs, r, |q| black_box(robot.forward(&mut data, q)).unwrap_or(()));
    let check_ns = time_per_config(qs, r, |q| {
        black_box(robot.is_colliding(&mut data, q).unwrap_or(true));
    });
    let distances_ns =
        time_per_config(qs, r, |q| black_box(robot.distances(&mut data, q, &mut out)).unwrap_or(()));
    let gradients_ns = time_per_config(qs, r, |q| {
        black_box(robot.distance_gradients(&mut data, q, &mut out, &mut grad)).unwrap_or(())
    });
    // The batched calls on the pool, over the configurations repeated to at least 4096 so each thread has work.
    let copies = 4096usize.div_ceil(qs.len().max(1));
    let many: Vec<&[f64]> = (0..copies).flat_map(|_| qs.iter().copied()).collect();
    let batch_check_ns = pool.install(|| {
        crate::timing::median_ns_per_item(r, many.len(), || drop(black_box(robot.batch_is_colliding(&many))))
    });
    let batch_distances_ns = pool.install(|| {
        crate::timing::median_ns_per_item(r, many.len(), || drop(black_box(robot.batch_distances(&many))))
    });
    let line = BenchLine {
        robot: robot.name(),
        geometry: match robot.geometry() {
            MeshGeometry::TriangleMesh => "mesh",
            MeshGeometry::ConvexHull => "hull",
        },
        configs: qs.len(),
        pairs: robot.pairs().len(),
        fk_ns,
        check_ns,
        distances_ns,
        gradients_ns,
        threads: pool.current_num_threads(),
        batch_check_ns,
        batch_distances_ns,
    };
    write_json(w, &line)
}

#[derive(Debug, Serialize)]
struct AcmLine<'a> {
    robot: &'a str,
    samples: usize,
    seed: u64,
    srdf: &'a Path,
    disabled: BTreeMap<String, usize>,
    link_pairs_enabled: usize,
}

fn generate_acm(args: &RobotArgs, robot: &RobotModel, w: &mut dyn Write) -> Result<(), CliError> {
    let out =
        args.out.as_deref().ok_or_else(|| CliError::Usage("--generate-acm needs --out FILE.srdf".into()))?;
    crate::output::refuse_inputs(out, &args.inputs())?;
    crate::output::check_writable(out)?;
    let settings = AcmSettings { samples: args.samples, seed: args.seed, ..AcmSettings::default() };
    let generation = robot.generate_acm(&settings)?;
    crate::output::write_atomically(out, robot.acm_srdf(&generation).as_bytes())?;
    let mut disabled = BTreeMap::new();
    for (_, _, reason) in generation.acm.iter() {
        *disabled.entry(reason.as_str().to_string()).or_insert(0) += 1;
    }
    let enabled =
        generation.counts.iter().filter(|c| !generation.acm.is_disabled(c.body_a, c.body_b)).count();
    let line = AcmLine {
        robot: robot.name(),
        samples: generation.n_samples,
        seed: args.seed,
        srdf: out,
        disabled,
        link_pairs_enabled: enabled,
    };
    write_json(w, &line)
}
