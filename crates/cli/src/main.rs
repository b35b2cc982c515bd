//! `signorini`: the command-line front end (spec §6).
//!
//! JSON goes to stdout (or `--out`), progress and logs to stderr. Every failure is a typed [`CliError`] printed as
//! one line on stderr with a non-zero exit code; nothing here panics on user input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod ccd;
mod error;
mod finite;
mod inspect;
mod interrupt;
mod output;
mod plot;
mod query;
mod replay;
mod robot;
mod run;
mod run_batch;
mod run_gpu;
mod timing;

use error::CliError;

/// The process's allocator: the system's, counting the bytes live on the heap, so that `run --envs` measures the
/// memory an environment holds (`run_batch`). A counting `GlobalAlloc` needs `unsafe`, which this workspace forbids;
/// `cap` is that wrapper (one atomic add per allocation and per free; a step does not allocate once its buffers
/// have grown).
#[global_allocator]
static ALLOCATOR: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

/// Bytes currently allocated on the heap by this process.
pub(crate) fn heap_bytes() -> usize {
    ALLOCATOR.allocated()
}

/// Rigid-body contact simulation and collision/distance queries.
#[derive(Debug, Parser)]
#[command(name = "signorini", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Simulate an MJCF scene or a URDF robot (or the built-in contact-rich scene when SCENE is omitted).
    Run(run::RunArgs),
    /// Write the self-contained HTML replay of a dump made with `run --record OUT.html --dump DUMP.json`.
    View {
        /// The dump (JSON).
        dump: PathBuf,
        /// The page to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Distance and collision queries over a dataset in the layout of `shared/testdata/coal/*.json`.
    Query {
        /// Query dataset (JSON).
        file: PathBuf,
        /// Time the queries instead of printing results.
        #[arg(long)]
        bench: bool,
        /// Timed passes for `--bench` (median reported).
        #[arg(long, default_value_t = 7)]
        repeat: usize,
        /// Write the output to this file instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Robot self-collision over joint configurations (URDF + SRDF): flags, pair distances, gradients, timings; or
    /// generate the allowed-collision matrix.
    Robot(robot::RobotArgs),
    /// Continuous collision (time of impact) over a dataset in the layout of `shared/testdata/coal/ccd.json`.
    Ccd {
        /// CCD dataset (JSON).
        file: PathBuf,
        /// Write the output to this file instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Draw a run dump (`run --dump`, batch dumps too) or a benchmark report (`scripts/bench_mujoco.py --json`) as PNG.
    Plot {
        /// The JSON file.
        file: PathBuf,
        /// The PNG to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Compile an MJCF scene and print its inertias, then kinematics and dynamics for each state in FILE.
    Inspect {
        /// MJCF scene file.
        scene: PathBuf,
        /// States to evaluate: `{"records": [{"qpos": [...], "qvel": [...]}, ...]}`.
        #[arg(long)]
        states: PathBuf,
    },
}

fn dispatch(command: Command) -> Result<(), CliError> {
    match command {
        Command::Run(args) => with_output(None, &[], |w| run::run(&args, w)),
        Command::Query { file, bench, repeat, out } => with_output(out.as_deref(), &[&file], |w| {
            if bench { query::bench(&file, repeat, w) } else { query::run(&file, w) }
        }),
        Command::Robot(args) => with_output(args.out_for_stdout(), &args.inputs(), |w| robot::run(&args, w)),
        Command::Ccd { file, out } => with_output(out.as_deref(), &[&file], |w| ccd::run(&file, w)),
        Command::Plot { file, out } => plot::run(&file, &out),
        Command::View { dump, out } => replay::view(&dump, &out),
        Command::Inspect { scene, states } => with_output(None, &[], |w| inspect::run(&scene, &states, w)),
    }
}

/// Runs `f` with stdout or the `--out` file as the JSON sink. The file is checked writable (and not one of
/// `inputs`) before `f` runs, and written in one piece after it succeeds.
fn with_output(
    out: Option<&std::path::Path>,
    inputs: &[&std::path::Path],
    f: impl FnOnce(&mut dyn std::io::Write) -> Result<(), CliError>,
) -> Result<(), CliError> {
    use std::io::Write;
    match out {
        Some(path) => {
            output::refuse_inputs(path, inputs)?;
            output::check_writable(path)?;
            let mut buffer = Vec::new();
            f(&mut buffer)?;
            output::write_atomically(path, &buffer)
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            f(&mut w)?;
            w.flush().map_err(|source| CliError::Io { path: "<stdout>".into(), source })
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    interrupt::install();
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("signorini: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
