//! `signorini run [SCENE.xml] [--steps N] [--dump OUT.json] [--every K] [--mujoco-compat] [--threads T]
//! [--set NAME=VALUE]…` (spec §6).
//!
//! Loads the scene (or the built-in contact-rich pile), applies keyframe 0 if there is one, steps N times with a
//! progress bar on stderr and prints a one-line JSON summary on stdout: steps/s, mean contacts, mean solver
//! iterations, max penetration. `--dump` writes snapshots (steps 0, 100, 500, N and every K) with
//! `time, ncon, qpos_free, qvel_free` (and `qpos`, `qvel` for scenes with other joints), `settled` and `perf`, in
//! the layout of `shared/testdata/mujoco/*.json`. Without a scene, the dump goes to `signorini-run.json` unless
//! `--dump` says where.

use signorini_mjcf::{load_scene, load_scene_str};
use signorini_sim::Dialect;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use signorini_model::spec::JointKind;
use signorini_sim::{Data, DialectStages, Model, Scene};

use crate::error::CliError;

/// The built-in scene: 36 mixed primitives dropped into a bin.
pub const DEFAULT_SCENE: &str = include_str!("../scenes/default_pile.xml");

/// Arguments of `signorini run` (parsed by clap; their docs are the `--help` text).
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// MJCF scene file or URDF robot (`.urdf`: its root welded to the world unless --floating-base); omit it for the
    /// built-in scene.
    pub scene: Option<PathBuf>,
    /// Number of steps.
    #[arg(long, default_value_t = 1000)]
    pub steps: u64,
    /// Write snapshots, settling statistics and performance as JSON to this file.
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// Snapshot every K steps in the dump (in addition to steps 0, 100, 500 and N).
    #[arg(long)]
    pub every: Option<u64>,
    /// Use MuJoCo-compatible semantics instead of the native (Genesis) ones.
    #[arg(long)]
    pub mujoco_compat: bool,
    /// Worker threads: of the narrow phase, or of the batch with --envs (results are identical for any count;
    /// at most 4 per core). Default 1.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Step N copies of the scene as a batch over one model.
    #[arg(long, value_name = "N")]
    pub envs: Option<usize>,
    /// With --envs: add normal noise of this standard deviation to every environment's initial qvel.
    #[arg(long, default_value_t = 0.0, value_name = "SIGMA")]
    pub perturb: f64,
    /// With --envs: the seed of that noise.
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub seed: u64,
    /// Where to step the scene: `cpu`, or `gpu` (wgpu; with --envs, default 1 environment). No adapter, or a scene
    /// feature the GPU path lacks, is an error naming it, never a CPU fallback.
    #[arg(long, value_enum, default_value_t = Device::Cpu)]
    pub device: Device,
    /// With --device gpu: device arithmetic, f32 or f64 (f64 needs an adapter with SHADER_F64).
    #[arg(long, default_value = "f32", value_name = "f32|f64")]
    pub gpu_precision: String,
    /// With --device gpu: contacts per environment (default: bounded from the scene's candidate pairs).
    #[arg(long, value_name = "C")]
    pub gpu_max_contacts: Option<usize>,
    /// Override an option by name, e.g. `--set friction_cone=elliptic` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// On a capacity error (e.g. max_collision_pairs), raise that budget to 1.25 × what the step needed and redo
    /// the step, as often as needed; the summary lists the raised budgets under "grown".
    #[arg(long)]
    pub grow_capacity: bool,
    /// Write a self-contained HTML replay of the run (body poses and contacts every --every steps, 10 by default).
    #[arg(long, value_name = "OUT.html")]
    pub record: Option<PathBuf>,
    /// URDF scenes: put the root link on a free joint instead of welding it to the world (Genesis's
    /// `gs.morphs.URDF(fixed=False)`).
    #[arg(long)]
    pub floating_base: bool,
    /// URDF scenes: add a ground plane (the half-space z ≤ HEIGHT, default 0) to the world.
    #[arg(long, value_name = "HEIGHT", num_args = 0..=1, default_missing_value = "0")]
    pub ground: Option<f64>,
}

/// How a URDF robot becomes a scene (`--floating-base`, `--ground`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct UrdfScene {
    pub(crate) floating_base: bool,
    pub(crate) ground: Option<f64>,
}

impl UrdfScene {
    /// The URDF settings of `args`; errors when they are given for a scene that is not a URDF.
    pub(crate) fn of(args: &RunArgs) -> Result<UrdfScene, CliError> {
        let urdf = UrdfScene { floating_base: args.floating_base, ground: args.ground };
        let is_urdf = args.scene.as_deref().is_some_and(is_urdf);
        if urdf != UrdfScene::default() && !is_urdf {
            return Err(CliError::Usage(
                "--floating-base and --ground apply to URDF robots (.urdf); an MJCF scene states its own base and floor"
                    .into(),
            ));
        }
        if urdf.ground.is_some_and(|h| !h.is_finite()) {
            return Err(CliError::Usage("--ground HEIGHT must be finite".into()));
        }
        Ok(urdf)
    }

    /// The model of the URDF at `path` with these settings.
    pub(crate) fn spec(&self, path: &Path) -> Result<signorini_model::spec::ModelSpec, CliError> {
        let options = signorini_urdf::UrdfOptions { floating_base: self.floating_base, ..Default::default() };
        let mut spec =
            signorini_urdf::load_urdf(path, &options).map_err(|e| CliError::Scene(e.to_string()))?.spec;
        if let Some(height) = self.ground {
            let plane = signorini_geometry::Shape::from(signorini_geometry::Plane::half_space());
            let ground = signorini_model::spec::GeomSpec {
                pos: signorini_geometry::DVec3::new(0.0, 0.0, height),
                ..signorini_model::spec::GeomSpec::new("ground", plane)
            };
            spec.bodies[0].geoms.push(ground);
        }
        Ok(spec)
    }
}

/// Where `signorini run` steps the scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Device {
    /// The f64 CPU path.
    Cpu,
    /// The wgpu batch path (`signorini-gpu`).
    Gpu,
}

impl RunArgs {
    /// Whether the dump keeps a snapshot after step `k` (0: the initial state): steps 0, 100, 500, the last, and
    /// every `--every` steps.
    pub(crate) fn snapshot_at(&self, k: u64) -> bool {
        k == 0
            || k == 100
            || k == 500
            || k == self.steps
            || self.every.is_some_and(|e| e > 0 && k.is_multiple_of(e))
    }
}

#[derive(Serialize)]
pub(crate) struct Snapshot {
    pub(crate) time: f64,
    pub(crate) ncon: usize,
    pub(crate) qpos_free: Vec<Vec<f64>>,
    pub(crate) qvel_free: Vec<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) qpos: Option<Vec<f64>>,
    /// The whole `qvel`, for scenes with joints other than free ones (`qvel_free` covers the rest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) qvel: Option<Vec<f64>>,
    /// The deepest penetration among this step's contacts (m; 0 without contact).
    pub(crate) max_penetration: f64,
    /// Constraint-solver iterations of this step.
    pub(crate) solver_niter: usize,
    /// Kinetic energy `½ q̇ᵀ M q̇` at this state (J).
    pub(crate) energy_kinetic: f64,
    /// Potential energy (gravity and joint springs) at this state (J).
    pub(crate) energy_potential: f64,
    /// `max |qvel|` over the dofs.
    pub(crate) max_abs_qvel: f64,
    /// The sensor values (layout: the dump's `sensors`) of the state the last step started from, as MuJoCo's
    /// `sensordata` after `mj_step`; absent when the model has no sensor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sensordata: Option<Vec<f64>>,
}

/// A sensor's place in `sensordata`.
#[derive(Serialize)]
pub(crate) struct SensorEntry {
    pub(crate) name: String,
    /// Its kind, as signorini's `SensorKind` prints it.
    pub(crate) kind: String,
    pub(crate) adr: usize,
    pub(crate) dim: usize,
}

/// The sensors of `model`, in `sensordata` order.
pub(crate) fn sensor_entries(model: &Model) -> Vec<SensorEntry> {
    let m = &model.multibody;
    m.sensors
        .iter()
        .zip(&m.sensor_adr)
        .map(|(s, &adr)| {
            let kind = match &s.kind {
                signorini_model::SensorKind::Frame { quantity, .. } => format!("Frame{quantity:?}"),
                other => format!("{other:?}").split(['(', ' ', '{']).next().unwrap_or_default().to_string(),
            };
            SensorEntry { name: s.name.clone(), kind, adr, dim: s.kind.dim() }
        })
        .collect()
}

#[derive(Serialize)]
pub(crate) struct Dump {
    pub(crate) scene: String,
    pub(crate) mujoco_compatibility: bool,
    pub(crate) steps: u64,
    /// The model's sensors (the layout of each snapshot's `sensordata`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) sensors: Vec<SensorEntry>,
    pub(crate) snapshots: BTreeMap<String, Snapshot>,
    pub(crate) settled: Settled,
    pub(crate) perf: Perf,
    /// The recorded replay (`--record`), from which `signorini view` rebuilds the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) replay: Option<crate::replay::Replay>,
}

#[derive(Serialize)]
pub(crate) struct Settled {
    pub(crate) max_abs_qvel_at_n: f64,
    pub(crate) max_penetration_over_run: f64,
    pub(crate) ncon_mean: f64,
    pub(crate) solver_niter_mean: f64,
    pub(crate) islands_mean: f64,
    /// The share of the steps whose islands were solved in parallel (`--threads` above 1).
    pub(crate) islands_in_parallel_share: f64,
    pub(crate) factorizations_mean: f64,
    pub(crate) rank_one_updates_mean: f64,
}

#[derive(Serialize)]
pub(crate) struct Perf {
    pub(crate) steps_per_second: f64,
    pub(crate) wall_s: f64,
    pub(crate) threads: usize,
    /// Mean microseconds per step in each stage of the last substep.
    pub(crate) stage_us: StageTimes,
}

#[derive(Serialize, Default)]
pub(crate) struct StageTimes {
    pub(crate) forward: f64,
    pub(crate) collision: f64,
    pub(crate) assembly: f64,
    pub(crate) solve: f64,
    pub(crate) integrate: f64,
}

#[derive(Serialize)]
struct Summary<'a> {
    scene: &'a str,
    steps: u64,
    steps_per_second: f64,
    mean_contacts: f64,
    mean_solver_iterations: f64,
    max_penetration: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dump: Option<String>,
    /// Whether Ctrl-C or SIGTERM stopped the run early (`steps` then counts the steps done).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
    /// Budgets raised by `--grow-capacity`: option → final value.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    grown: BTreeMap<String, usize>,
}

/// The option a capacity error names and the value that would have fitted.
fn capacity_need(e: &signorini_sim::SimError) -> Option<(&'static str, usize)> {
    match e {
        signorini_sim::SimError::Collision(signorini_collision::CollisionError::CapacityExceeded {
            option,
            required,
            ..
        }) => Some((option, *required)),
        _ => None,
    }
}

pub(crate) fn snapshot(model: &Model, data: &Data) -> Snapshot {
    let m = &model.multibody;
    let d = &data.multibody;
    let free = model.free_joints();
    let qpos_free = free.iter().map(|&j| d.qpos[m.jnt_qposadr[j]..m.jnt_qposadr[j] + 7].to_vec()).collect();
    let qvel_free = free.iter().map(|&j| d.qvel[m.jnt_dofadr[j]..m.jnt_dofadr[j] + 6].to_vec()).collect();
    let only_free = (0..m.njnt).all(|j| m.jnt_type[j] == JointKind::Free);
    // Energies of the state as it is now (the step's own forward pass saw the state before integration).
    let mut at = d.clone();
    let (energy_kinetic, energy_potential) = match m.forward(&mut at) {
        Ok(()) => {
            m.energy(&mut at);
            (at.energy_kinetic, at.energy_potential)
        }
        Err(_) => (f64::NAN, f64::NAN),
    };
    let contacts = data.collision.contacts();
    Snapshot {
        time: d.time,
        ncon: data.stats().contacts,
        qpos_free,
        qvel_free,
        qpos: (!only_free).then(|| d.qpos.clone()),
        qvel: (!only_free).then(|| d.qvel.clone()),
        max_penetration: contacts.penetration.iter().copied().fold(0.0, f64::max),
        solver_niter: data.stats().iterations,
        energy_kinetic,
        energy_potential,
        max_abs_qvel: d.qvel.iter().fold(0.0, |a: f64, v| a.max(v.abs())),
        sensordata: (!m.sensors.is_empty()).then(|| d.sensordata.clone()),
    }
}

/// Whether `path` names a URDF file (by its extension).
pub(crate) fn is_urdf(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("urdf"))
}

/// A `--set` boolean: `true`/`false`/`1`/`0`.
fn parse_flag(name: &str, value: &str) -> Result<bool, CliError> {
    match value {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(CliError::Usage(format!("--set {name}={value}: expected true or false"))),
    }
}

/// What `run`'s arguments ask for once made consistent (see [`resolve`]).
struct Resolved {
    /// The `--set` overrides left for the options.
    overrides: Vec<(String, String)>,
    dialect: Dialect,
    threads: usize,
}

/// The arguments made consistent: `--set` and the flags that say the same thing (`mujoco_compatibility` and
/// `--mujoco-compat`, `threads` and `--threads`) must agree; the flag wins where only it is given.
fn resolve(args: &RunArgs) -> Result<Resolved, CliError> {
    if args.every == Some(0) {
        return Err(CliError::Usage("--every must be at least 1".into()));
    }
    let mut overrides = Vec::new();
    let (mut mujoco, mut threads) = (args.mujoco_compat, args.threads);
    for s in &args.set {
        let Some((name, value)) = s.split_once('=') else {
            return Err(CliError::Usage(format!(
                "--set expects NAME=VALUE, got `{s}`; valid names: {}",
                signorini_sim::OPTION_NAMES.join(", ")
            )));
        };
        let (name, value) = (name.trim(), value.trim());
        match name {
            "mujoco_compatibility" => {
                let on = parse_flag(name, value)?;
                if args.mujoco_compat && !on {
                    return Err(CliError::Usage(
                        "--mujoco-compat and --set mujoco_compatibility=false disagree; give one".into(),
                    ));
                }
                mujoco = on;
            }
            "threads" => {
                let t: usize = value.parse().map_err(|_| {
                    CliError::Usage(format!("--set threads={value}: expected a whole number"))
                })?;
                if args.threads.is_some_and(|a| a != t) {
                    return Err(CliError::Usage(format!(
                        "--threads {} and --set threads={t} disagree; give one",
                        args.threads.unwrap_or(t)
                    )));
                }
                threads = Some(t);
            }
            _ => overrides.push((name.to_string(), value.to_string())),
        }
    }
    let threads = threads.unwrap_or(1);
    signorini_sim::options::check_threads("threads", threads).map_err(|e| CliError::Usage(e.to_string()))?;
    let dialect = if mujoco { Dialect::Mujoco } else { Dialect::Native };
    Ok(Resolved { overrides, dialect, threads })
}

/// The scene of `path`: MJCF, or a URDF robot made a scene by `urdf`, under `dialect`'s defaults and `overrides`.
fn load(
    path: &Path,
    urdf: UrdfScene,
    dialect: Dialect,
    overrides: &[(String, String)],
) -> Result<Scene, CliError> {
    if !is_urdf(path) {
        return load_scene(path, dialect, overrides).map_err(|e| CliError::Scene(e.to_string()));
    }
    let spec = urdf.spec(path)?;
    let options = dialect
        .default_options(false)
        .with_overrides(overrides)
        .map_err(|e| CliError::Scene(e.to_string()))?;
    let scene = |e: signorini_sim::SimError| CliError::Scene(format!("{}: {e}", path.display()));
    let model = Model::new(spec, options).map_err(scene)?;
    Scene::from_model(std::sync::Arc::new(model)).map_err(scene)
}

/// Runs the subcommand.
pub fn run(args: &RunArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let Resolved { mut overrides, dialect, threads } = resolve(args)?;
    let urdf = UrdfScene::of(args)?;
    if args.envs.is_none() {
        overrides.push(("threads".into(), threads.to_string()));
    }
    let build = |overrides: &[(String, String)]| match &args.scene {
        Some(path) => load(path, urdf, dialect, overrides),
        None => load_scene_str(DEFAULT_SCENE, Path::new("."), dialect, overrides)
            .map_err(|e| CliError::Scene(e.to_string())),
    };
    let mut scene = build(&overrides)?;
    let label = args.scene.as_ref().map_or("built-in default pile".to_string(), |p| p.display().to_string());
    if args.grow_capacity && args.envs.is_some() {
        return Err(CliError::Usage("--grow-capacity applies to a single scene, not with --envs".into()));
    }
    let mujoco_compatibility = scene.model().dialect == Dialect::Mujoco;
    let dump_path =
        args.dump.clone().or_else(|| args.scene.is_none().then(|| PathBuf::from("signorini-run.json")));
    if let Some(path) = &args.record {
        if args.envs.is_some() {
            return Err(CliError::Usage(
                "--record replays a single scene; it does not combine with --envs".into(),
            ));
        }
        crate::output::check_writable(path)?;
        crate::replay::three_js_path().metadata().map_err(|e| {
            CliError::Usage(format!(
                "--record: the replay page needs three.js at {} ({e}); run `cargo xtask vendor` first",
                crate::replay::three_js_path().display()
            ))
        })?;
    }
    for path in dump_path.iter().chain(&args.record) {
        crate::output::refuse_inputs(path, &args.scene.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
        crate::output::check_writable(path)?;
    }
    if args.device == Device::Gpu {
        if args.grow_capacity || args.dump.is_some() || args.record.is_some() {
            return Err(CliError::Usage(
                "--device gpu prints a summary; --dump, --record and --grow-capacity are CPU-only for now"
                    .into(),
            ));
        }
        return crate::run_gpu::run(
            args,
            args.envs.unwrap_or(1),
            std::sync::Arc::clone(scene.model()),
            &label,
            out,
        );
    }
    if let Some(envs) = args.envs {
        return crate::run_batch::run(
            args,
            crate::run_batch::Batching { envs, threads },
            std::sync::Arc::clone(scene.model()),
            &label,
            dump_path,
            out,
        );
    }
    let mut snapshots = BTreeMap::new();
    let want = |k: u64| args.snapshot_at(k);
    if want(0) {
        snapshots.insert("0".to_string(), snapshot(scene.model(), scene.data()));
    }
    let record_every = args.every.filter(|&e| e > 0).unwrap_or(10);
    let mut replay = args.record.as_ref().map(|_| crate::replay::Replay::new(scene.model(), &label));
    if let Some(r) = &mut replay {
        r.record(scene.data(), 0);
    }
    let bar = indicatif::ProgressBar::new(args.steps);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} steps {per_sec} eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let (mut ncon_sum, mut iter_sum, mut max_pen) = (0u64, 0u64, 0.0f64);
    let (mut islands, mut factorizations, mut updates, mut parallel) = (0u64, 0u64, 0u64, 0u64);
    let mut stages = StageTimes::default();
    let start = Instant::now();
    let mut stepping = 0.0;
    let mut grown = BTreeMap::new();
    let mut steps = args.steps;
    // The steps run on a worker of the narrow phase's pool (`CollisionModel::install`); a scene rebuilt with raised
    // capacities has a pool of its own and hands its narrow phases to it step by step.
    let model = std::sync::Arc::clone(scene.model());
    let stepping_loop = || -> Result<(), CliError> {
        for k in 1..=args.steps {
            if crate::interrupt::requested() {
                steps = k - 1;
                snapshots.entry(steps.to_string()).or_insert_with(|| snapshot(scene.model(), scene.data()));
                if let Some(r) = &mut replay
                    && r.frames.last().is_none_or(|f| f.step != steps)
                {
                    r.record(scene.data(), steps);
                }
                break;
            }
            let before = args.grow_capacity.then(|| scene.data().clone());
            let t = Instant::now();
            let mut result = scene.step();
            while let (Err(e), Some(state)) = (&result, &before) {
                let Some((option, required)) = capacity_need(e) else { break };
                let value = required + required / 4 + 1;
                eprintln!("signorini: step {k}: {option} raised to {value} ({e})");
                overrides.retain(|(name, _)| name != option);
                overrides.push((option.to_string(), value.to_string()));
                grown.insert(option.to_string(), value);
                scene = build(&overrides)?;
                scene.restore(state.clone()).map_err(|e| CliError::Scene(e.to_string()))?;
                result = scene.step();
            }
            result.map_err(|e| CliError::Scene(format!("step {k}: {e}")))?;
            stepping += t.elapsed().as_secs_f64();
            let s = scene.stats();
            ncon_sum += s.contacts as u64;
            iter_sum += s.iterations as u64;
            islands += s.islands as u64;
            parallel += u64::from(s.islands_in_parallel);
            factorizations += s.factorizations as u64;
            updates += s.rank_one_updates as u64;
            stages.forward += s.time_forward;
            stages.collision += s.time_collision;
            stages.assembly += s.time_assembly;
            stages.solve += s.time_solve;
            stages.integrate += s.time_integrate;
            max_pen = max_pen.max(s.max_penetration);
            if want(k) {
                snapshots.insert(k.to_string(), snapshot(scene.model(), scene.data()));
            }
            if let Some(r) = &mut replay
                && (k.is_multiple_of(record_every) || k == args.steps)
            {
                r.record(scene.data(), k);
            }
            if k.is_multiple_of(64) || k == args.steps {
                bar.set_position(k);
            }
        }
        Ok(())
    };
    model.collision().install(stepping_loop)?;
    bar.finish_and_clear();
    let interrupted = steps < args.steps;
    let wall = start.elapsed().as_secs_f64();
    let n = steps.max(1) as f64;
    let steps_per_second = if stepping > 0.0 { steps as f64 / stepping } else { 0.0 };
    if let (Some(path), Some(r)) = (&args.record, &replay) {
        crate::replay::write_page(r, path)?;
    }
    if let Some(path) = &dump_path {
        let dump = Dump {
            scene: label.clone(),
            mujoco_compatibility,
            steps,
            sensors: sensor_entries(scene.model()),
            snapshots,
            settled: Settled {
                max_abs_qvel_at_n: scene.data().multibody.qvel.iter().fold(0.0, |m, v| m.max(v.abs())),
                max_penetration_over_run: max_pen,
                ncon_mean: ncon_sum as f64 / n,
                solver_niter_mean: iter_sum as f64 / n,
                islands_mean: islands as f64 / n,
                islands_in_parallel_share: parallel as f64 / n,
                factorizations_mean: factorizations as f64 / n,
                rank_one_updates_mean: updates as f64 / n,
            },
            perf: Perf {
                steps_per_second,
                wall_s: wall,
                threads,
                stage_us: StageTimes {
                    forward: 1e6 * stages.forward / n,
                    collision: 1e6 * stages.collision / n,
                    assembly: 1e6 * stages.assembly / n,
                    solve: 1e6 * stages.solve / n,
                    integrate: 1e6 * stages.integrate / n,
                },
            },
            replay,
        };
        crate::finite::ensure(&dump, &format!("the dump {}", path.display()))?;
        let text = serde_json::to_string_pretty(&dump).map_err(|e| CliError::Usage(e.to_string()))?;
        crate::output::write_atomically(path, text.as_bytes())?;
        eprintln!("signorini: wrote {}", path.display());
    }
    crate::query::write_json(
        out,
        &Summary {
            scene: &label,
            steps,
            steps_per_second,
            mean_contacts: ncon_sum as f64 / n,
            mean_solver_iterations: iter_sum as f64 / n,
            max_penetration: max_pen,
            dump: dump_path.map(|p| p.display().to_string()),
            interrupted,
            grown,
        },
    )?;
    if interrupted { Err(CliError::Interrupted { step: steps }) } else { Ok(()) }
}
