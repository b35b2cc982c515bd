//! Project tasks, run as `cargo xtask <task>` (alias in `.cargo/config.toml`).
//!
//! | task | what it runs |
//! |---|---|
//! | `test` | the default test suite: every crate's unit, integration and property tests |
//! | `lint` | `cargo fmt --check` and `cargo clippy --workspace --all-targets -D warnings` |
//! | `ci` | `lint` then `test` (what `.ci/run` runs) |
//! | `bench [ARGS]` | the criterion benchmarks of `benches/` (ARGS go to criterion, e.g. a name filter) |
//! | `snapshot` | re-runs the tests with `INSTA_UPDATE=always` so changed `insta` snapshots are rewritten for review |
//! | `stress` | the long randomized tests (`#[ignore]`d tests whose name contains `stress`), in release mode |

use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <test|lint|ci|bench [ARGS…]|snapshot|stress>";

fn cargo(args: &[&str], envs: &[(&str, &str)]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("xtask: cargo {}", args.join(" "));
    let status = Command::new(&cargo)
        .args(args)
        .envs(envs.iter().copied())
        .status()
        .map_err(|e| format!("could not start {cargo}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("`cargo {}` failed ({status})", args.join(" "))) }
}

fn test() -> Result<(), String> {
    cargo(&["test", "--workspace", "--exclude", "signorini-benches", "--exclude", "xtask"], &[])
}

fn lint() -> Result<(), String> {
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[])
}

fn run(task: &str, rest: &[String]) -> Result<(), String> {
    match task {
        "test" => test(),
        "lint" => lint(),
        "ci" => lint().and_then(|()| test()),
        "bench" => {
            let mut args = vec!["bench", "-p", "signorini-benches"];
            if !rest.is_empty() {
                args.push("--");
                args.extend(rest.iter().map(String::as_str));
            }
            cargo(&args, &[])
        }
        "snapshot" => cargo(
            &["test", "--workspace", "--exclude", "signorini-benches", "--exclude", "xtask"],
            &[("INSTA_UPDATE", "always")],
        ),
        "stress" => cargo(
            &[
                "test",
                "--workspace",
                "--release",
                "--exclude",
                "signorini-benches",
                "--exclude",
                "xtask",
                "--",
                "--ignored",
                "stress",
            ],
            &[],
        ),
        other => Err(format!("unknown task `{other}`\n{USAGE}")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match run(task, rest) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
