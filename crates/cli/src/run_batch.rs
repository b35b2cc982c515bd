//! `signorini run SCENE.xml --envs N [--threads T] [--perturb SIGMA] [--seed S]`: N copies of the scene stepped as
//! one [`Batch`] over the shared model on T threads. Each environment's initial `qvel` gets normal noise of standard
//! deviation SIGMA (seeded, so a run is reproducible). Prints a one-line JSON summary
//! `{envs, threads, steps, env_steps_per_second, data_bytes, mean_contacts, max_penetration}`; `--dump` writes
//! `{"envs": [...]}`, one entry per environment in the layout of a single-scene dump.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use ndarray::Array2;
use serde::Serialize;
use signorini_sim::{Batch, Envs, Model};

use crate::error::CliError;
use crate::run::{Dump, Perf, RunArgs, Settled, Snapshot, StageTimes, snapshot};

#[derive(Serialize)]
struct BatchDump {
    envs: Vec<Dump>,
}

#[derive(Serialize)]
struct BatchSummary<'a> {
    scene: &'a str,
    envs: usize,
    threads: usize,
    steps: u64,
    env_steps_per_second: f64,
    /// Bytes of one environment's `Data` (see `data_bytes`); `null` where it cannot be measured.
    data_bytes: Option<u64>,
    mean_contacts: f64,
    max_penetration: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dump: Option<String>,
    /// Whether Ctrl-C or SIGTERM stopped the run early (`steps` then counts the steps done).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
}

/// A seeded standard normal sequence (xorshift64* and Box–Muller), so a perturbed run is reproducible without a
/// random-number dependency.
pub(crate) struct Normal(u64);

impl Normal {
    /// The sequence of `seed`.
    pub(crate) fn new(seed: u64) -> Normal {
        Normal(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    pub(crate) fn sample(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Per-environment statistics over the run.
#[derive(Default)]
struct Tally {
    ncon: u64,
    iterations: u64,
    islands: u64,
    parallel: u64,
    factorizations: u64,
    updates: u64,
    max_penetration: f64,
    snapshots: BTreeMap<String, Snapshot>,
}

/// How many environments, on how many threads.
#[derive(Debug, Clone, Copy)]
pub struct Batching {
    /// Environments.
    pub envs: usize,
    /// Threads of the batch's pool.
    pub threads: usize,
}

/// Runs the batch (see the module docs).
pub fn run(
    args: &RunArgs,
    Batching { envs: n_envs, threads }: Batching,
    model: Arc<Model>,
    label: &str,
    dump_path: Option<PathBuf>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if !(args.perturb >= 0.0 && args.perturb.is_finite()) {
        return Err(CliError::Usage(format!("--perturb must be finite and ≥ 0, got {}", args.perturb)));
    }
    let sim = |e: signorini_sim::SimError| CliError::Scene(e.to_string());
    let mut batch =
        Batch::new(Arc::clone(&model), n_envs).map_err(sim)?.with_threads(threads).map_err(sim)?;
    if args.perturb > 0.0 {
        let mut noise = Normal::new(args.seed);
        let mut qvel = batch.qvel();
        qvel.iter_mut().for_each(|v| *v += args.perturb * noise.sample());
        batch.set_qvel(qvel.view(), Envs::All).map_err(sim)?;
    }
    let want = |k: u64| args.snapshot_at(k);
    let dumping = dump_path.is_some();
    let mut tallies: Vec<Tally> = (0..n_envs).map(|_| Tally::default()).collect();
    if dumping && want(0) {
        for (e, t) in tallies.iter_mut().enumerate() {
            t.snapshots.insert("0".to_string(), snapshot(&model, batch.env(e).map_err(sim)?));
        }
    }
    let bar = indicatif::ProgressBar::new(args.steps);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} steps × {msg} envs {per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(n_envs.to_string());
    let start = Instant::now();
    let mut stepping = 0.0;
    // Chunks of steps, each one hand-over to the pool; the tallies are updated by the environments' own threads.
    const CHUNK: u64 = 64;
    let mut done = 0;
    while done < args.steps && !crate::interrupt::requested() {
        let n = CHUNK.min(args.steps - done);
        let base = done;
        let t = Instant::now();
        batch
            .step_n_with(n as usize, &mut tallies, |k, d, t| {
                let k = base + k as u64;
                let s = d.stats();
                t.ncon += s.contacts as u64;
                t.iterations += s.iterations as u64;
                t.islands += s.islands as u64;
                t.parallel += u64::from(s.islands_in_parallel);
                t.factorizations += s.factorizations as u64;
                t.updates += s.rank_one_updates as u64;
                t.max_penetration = t.max_penetration.max(s.max_penetration);
                if dumping && want(k) {
                    t.snapshots.insert(k.to_string(), snapshot(&model, d));
                }
            })
            .map_err(|e| CliError::Scene(format!("steps {}–{}: {e}", base + 1, base + n)))?;
        stepping += t.elapsed().as_secs_f64();
        done += n;
        bar.set_position(done);
    }
    bar.finish_and_clear();
    let interrupted = done < args.steps;
    if interrupted && dumping {
        for (e, t) in tallies.iter_mut().enumerate() {
            if let Ok(d) = batch.env(e) {
                t.snapshots.entry(done.to_string()).or_insert_with(|| snapshot(&model, d));
            }
        }
    }
    let steps = done;
    let wall = start.elapsed().as_secs_f64();
    let n = steps.max(1) as f64;
    let env_steps_per_second = if stepping > 0.0 { (steps as f64 * n_envs as f64) / stepping } else { 0.0 };
    let mean_contacts = tallies.iter().map(|t| t.ncon).sum::<u64>() as f64 / (n * n_envs as f64);
    let max_penetration = tallies.iter().map(|t| t.max_penetration).fold(0.0, f64::max);
    if let Some(path) = &dump_path {
        let qvel: Array2<f64> = batch.qvel();
        let envs = tallies
            .into_iter()
            .enumerate()
            .map(|(e, t)| Dump {
                scene: label.to_string(),
                mujoco_compatibility: model.dialect == signorini_sim::Dialect::Mujoco,
                steps,
                sensors: crate::run::sensor_entries(&model),
                snapshots: t.snapshots,
                settled: Settled {
                    max_abs_qvel_at_n: qvel.row(e).iter().fold(0.0, |m, v| m.max(v.abs())),
                    max_penetration_over_run: t.max_penetration,
                    ncon_mean: t.ncon as f64 / n,
                    solver_niter_mean: t.iterations as f64 / n,
                    islands_mean: t.islands as f64 / n,
                    islands_in_parallel_share: t.parallel as f64 / n,
                    factorizations_mean: t.factorizations as f64 / n,
                    rank_one_updates_mean: t.updates as f64 / n,
                },
                perf: Perf {
                    steps_per_second: env_steps_per_second / n_envs as f64,
                    wall_s: wall,
                    threads,
                    stage_us: StageTimes::default(),
                },
                replay: None,
            })
            .collect();
        let dump = BatchDump { envs };
        crate::finite::ensure(&dump, &format!("the dump {}", path.display()))?;
        let text = serde_json::to_string_pretty(&dump).map_err(|e| CliError::Usage(e.to_string()))?;
        crate::output::write_atomically(path, text.as_bytes())?;
        eprintln!("signorini: wrote {}", path.display());
    }
    let summary = BatchSummary {
        scene: label,
        envs: n_envs,
        threads,
        steps,
        env_steps_per_second,
        data_bytes: data_bytes(&model, &mut batch),
        mean_contacts,
        max_penetration,
        dump: dump_path.as_ref().map(|p| p.display().to_string()),
        interrupted,
    };
    crate::query::write_json(out, &summary)?;
    if interrupted { Err(CliError::Interrupted { step: steps }) } else { Ok(()) }
}

/// The memory environment 0 holds after the run, measured rather than estimated: its `Data` struct plus the heap it
/// frees when dropped, every buffer at its capacity (scratch included), as the process's counting allocator sees
/// it. The environment is swapped for a fresh one first (the run is over). `None` if the swap fails.
fn data_bytes(model: &Model, batch: &mut Batch) -> Option<u64> {
    let fresh = signorini_sim::Data::new(model).ok()?;
    let used = std::mem::replace(batch.env_mut(0).ok()?, fresh);
    let before = crate::heap_bytes();
    drop(used);
    let freed = before.checked_sub(crate::heap_bytes())?;
    Some((freed + std::mem::size_of::<signorini_sim::Data>()) as u64)
}
