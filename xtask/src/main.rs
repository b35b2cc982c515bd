//! Project tasks, run as `cargo xtask <task>` (alias in `.cargo/config.toml`).
//!
//! | task | what it runs |
//! |---|---|
//! | `test` | the default test suite: every crate's unit, integration and property tests, then the Python bindings' `pytest` suite (`crates/py/tests`; the module is built with maturin into `target/py-site`, the user's Python environment is not touched; needs `pip install maturin pytest numpy matplotlib`, or `SIGNORINI_SKIP_PYTHON=1` to skip it with a notice) |
//! | `lint` | `cargo fmt --check`, `cargo clippy --workspace --all-targets -D warnings` and `cargo doc --no-deps` with warnings as errors |
//! | `ci` | `lint` then `test` (what `.ci/run` runs) |
//! | `bench [TARGET] [ARGS]` | the criterion benchmarks: one bench file (`geometry`, `narrow_phase`, `dynamics`, `broad_phase`, `factorization`) or all; ARGS go to criterion (a regex on benchmark ids, options) |
//! | `bench mujoco [ARGS]` | `python3 scripts/bench_mujoco.py ARGS`: steps/s of MuJoCo and of the release CLI on the shared scenes (see `scripts/README.md`) |
//! | `bench batch [ARGS]` | `python3 scripts/bench_batch.py ARGS`: env-steps/s of MuJoCo's `rollout` and of `signorini run --envs` |
//! | `vendor` | fetches the replay viewer's pinned three.js (npm registry tarball, SHA-512 checked) into `target/vendor/` (not committed; `test` runs it first) |
//! | `bench gpu [ARGS]` | builds the release CLI, then `python3 scripts/bench_gpu.py ARGS`: env-steps/s of `signorini run --envs N --device gpu` for N ∈ {1 024, 8 192, 65 536} beside the CPU batch (a smoke test on a CPU Vulkan driver) |
//! | `bench coal [ARGS]` | builds the release CLI, then `python3 scripts/bench_coal.py ARGS`: every convex query kind of `../shared/testdata/coal/`, Coal 3.0.3's C++ against `signorini query --bench` (ns per record and their ratio) |
//! | `bench threads [ARGS]` | builds the release CLI, then `python3 scripts/bench_threads.py ARGS`: steps/s of `signorini run --threads 2` against `--threads 1` on every shared scene, both modes (the final states checked equal) |
//! | `bench load [ARGS]` | `python3 scripts/bench_load.py ARGS`: MJCF load time against the body count (1 000–20 000 free bodies) |
//! | `fuzz [--minutes N]` | the fuzzing harness (`crates/fuzz`) for N minutes (default 10) in release, split over its three generators (MJCF scenes, URDF robots, queries); prints how many inputs survived |
//! | `snapshot` | re-runs the tests with `INSTA_UPDATE=always` so changed `insta` snapshots are rewritten for review |
//! | `stress` | the long randomized tests (`#[ignore]`d tests whose name contains `stress`), in release mode, and the GPU simulation tests in f64 as well as f32 (`SIGNORINI_GPU_F64=1`) |

use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <test|lint|ci|bench [TARGET|mujoco|batch|coal|threads|load|gpu] [ARGS…]|vendor|fuzz [--minutes N]|snapshot|stress>";

/// The three.js release the replay viewer inlines (`signorini view`), from the npm registry, and the SHA-512 of its
/// tarball (the registry's `dist.integrity`, in hex).
const THREE_VERSION: &str = "0.159.0";
const THREE_SHA512: &str = "7829a194b19b060b9cba8e15100f483b742973b761f0177854acebed67d6e3ef2131c21fa00562d5ebf4a4960df4f4d3b02b256dc2a0070af6c0d67512f2c89c";

/// The criterion bench files and their packages, selectable by name in `cargo xtask bench TARGET`.
const BENCH_TARGETS: [(&str, &str); 5] = [
    ("geometry", "signorini-benches"),
    ("narrow_phase", "signorini-benches"),
    ("dynamics", "signorini-model"),
    ("broad_phase", "signorini-benches"),
    ("factorization", "signorini-benches"),
];

/// `cargo xtask bench [TARGET] [CRITERION ARGS…]`: one bench file, or every one; the rest goes to criterion (a regex
/// on benchmark ids, options). `cargo xtask bench mujoco [ARGS…]` runs `scripts/bench_mujoco.py` instead.
fn bench(rest: &[String]) -> Result<(), String> {
    if rest.first().is_some_and(|t| t == "mujoco") {
        return python_script("scripts/bench_mujoco.py", &rest[1..]);
    }
    if rest.first().is_some_and(|t| t == "batch") {
        return python_script("scripts/bench_batch.py", &rest[1..]);
    }
    if rest.first().is_some_and(|t| t == "load") {
        return python_script("scripts/bench_load.py", &rest[1..]);
    }
    if rest.first().is_some_and(|t| t == "coal") {
        cargo(&["build", "--release", "-p", "signorini-cli"], &[])?;
        return python_script("scripts/bench_coal.py", &rest[1..]);
    }
    if rest.first().is_some_and(|t| t == "threads") {
        cargo(&["build", "--release", "-p", "signorini-cli"], &[])?;
        return python_script("scripts/bench_threads.py", &rest[1..]);
    }
    if rest.first().is_some_and(|t| t == "gpu") {
        cargo(&["build", "--release", "-p", "signorini-cli"], &[])?;
        return python_script("scripts/bench_gpu.py", &rest[1..]);
    }
    let (targets, criterion): (Vec<(&str, &str)>, &[String]) =
        match rest.first().and_then(|t| BENCH_TARGETS.iter().find(|(name, _)| name == t)) {
            Some(target) => (vec![*target], &rest[1..]),
            None => (BENCH_TARGETS.to_vec(), rest),
        };
    for (name, package) in targets {
        let mut args = vec!["bench", "-p", package, "--bench", name];
        if !criterion.is_empty() {
            args.push("--");
            args.extend(criterion.iter().map(String::as_str));
        }
        cargo(&args, &[])?;
    }
    Ok(())
}

/// `python3 SCRIPT ARGS…`, run from the repository root (the parent of this crate).
fn python_script(script: &str, args: &[String]) -> Result<(), String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().ok_or("no repository root")?;
    eprintln!("xtask: python3 {script} {}", args.join(" "));
    let status = Command::new("python3")
        .arg(script)
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|e| format!("could not start python3: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("`{script}` failed ({status})")) }
}

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

/// `target/vendor/three-VERSION/{three.min.js, LICENSE}` from the npm registry's tarball, checked against
/// [`THREE_SHA512`]; nothing is done when the files are there.
fn vendor() -> Result<(), String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().ok_or("no repository root")?;
    let dir = root.join(format!("target/vendor/three-{THREE_VERSION}"));
    if dir.join("three.min.js").is_file() && dir.join("LICENSE").is_file() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let tarball = dir.join("three.tgz");
    let url = format!("https://registry.npmjs.org/three/-/three-{THREE_VERSION}.tgz");
    let tar = tarball.to_str().ok_or("non-UTF-8 path")?;
    let sh = |program: &str, args: &[&str]| -> Result<std::process::Output, String> {
        eprintln!("xtask: {program} {}", args.join(" "));
        let out = Command::new(program)
            .args(args)
            .output()
            .map_err(|e| format!("could not start {program}: {e}"))?;
        if out.status.success() {
            Ok(out)
        } else {
            Err(format!("`{program} {}` failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr)))
        }
    };
    sh("curl", &["--fail", "--silent", "--show-error", "--location", "--output", tar, &url])?;
    let sum = sh("sha512sum", &[tar])?;
    let sum = String::from_utf8_lossy(&sum.stdout);
    if sum.split_whitespace().next() != Some(THREE_SHA512) {
        let _ = std::fs::remove_file(&tarball);
        return Err(format!("{url}: SHA-512 mismatch (got {sum}); refusing to use it"));
    }
    let into = dir.to_str().ok_or("non-UTF-8 path")?;
    let members = ["package/build/three.min.js", "package/LICENSE"];
    sh("tar", &["-xzf", tar, "-C", into, "--strip-components", "2", members[0]])?;
    sh("tar", &["-xzf", tar, "-C", into, "--strip-components", "1", members[1]])?;
    std::fs::remove_file(&tarball).map_err(|e| format!("{}: {e}", tarball.display()))?;
    eprintln!("xtask: three.js {THREE_VERSION} is in {}", dir.display());
    Ok(())
}

/// `cargo xtask fuzz [--minutes N]`: the harness's three tests in release, each for a third of N minutes.
fn fuzz(rest: &[String]) -> Result<(), String> {
    let minutes: f64 = match rest {
        [] => 10.0,
        [flag, n] if flag == "--minutes" => {
            n.parse().map_err(|_| format!("--minutes expects a number, got {n}"))?
        }
        _ => return Err(format!("usage: cargo xtask fuzz [--minutes N]\n{USAGE}")),
    };
    let seconds = format!("{}", (minutes * 60.0 / 3.0).max(1.0));
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_secs())
        .to_string();
    eprintln!("xtask: fuzzing for {minutes} minutes (seed {seed}; SIGNORINI_FUZZ_SEED={seed} repeats it)");
    cargo(
        &["test", "--release", "-p", "signorini-fuzz", "--", "--nocapture", "--test-threads", "1"],
        &[("SIGNORINI_FUZZ_SECONDS", seconds.as_str()), ("SIGNORINI_FUZZ_SEED", seed.as_str())],
    )
}

fn test() -> Result<(), String> {
    vendor()?;
    cargo(&["test", "--workspace", "--exclude", "signorini-benches", "--exclude", "xtask"], &[])?;
    python_tests()
}

/// Builds the `signorini` Python module (maturin, dev profile: it shares the test build's artifacts), unpacks it into
/// `target/py-site` and runs `pytest crates/py/tests` with that folder first on `PYTHONPATH`.
fn python_tests() -> Result<(), String> {
    if std::env::var_os("SIGNORINI_SKIP_PYTHON").is_some_and(|v| v == "1") {
        eprintln!("xtask: SIGNORINI_SKIP_PYTHON=1: the Python binding tests are NOT run");
        return Ok(());
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().ok_or("no repository root")?;
    let wheels = root.join("target/wheels");
    let site = root.join("target/py-site");
    let missing = "the Python binding tests need maturin, pytest, numpy and matplotlib \
                   (`python3 -m pip install maturin pytest numpy matplotlib`; SIGNORINI_SKIP_PYTHON=1 skips them)";
    let run = |program: &str, args: &[&str], env: &[(&str, &std::ffi::OsStr)]| -> Result<(), String> {
        eprintln!("xtask: {program} {}", args.join(" "));
        let status = Command::new(program)
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .current_dir(root)
            .status()
            .map_err(|e| format!("could not start {program}: {e}; {missing}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("`{program} {}` failed ({status})", args.join(" ")))
        }
    };
    let _ = std::fs::remove_dir_all(&wheels);
    let wheel_dir = wheels.to_str().ok_or("non-UTF-8 path")?;
    run(
        "python3",
        &["-m", "maturin", "build", "--profile", "dev", "-m", "crates/py/Cargo.toml", "-o", wheel_dir],
        &[],
    )?;
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| format!("{}: {e}", wheels.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("maturin wrote no wheel")?;
    let _ = std::fs::remove_dir_all(&site);
    let (wheel, site_dir) = (wheel.to_str().ok_or("non-UTF-8 path")?, site.to_str().ok_or("non-UTF-8 path")?);
    run("python3", &["-m", "pip", "install", "--quiet", "--no-deps", "--target", site_dir, wheel], &[])?;
    let mut path = std::ffi::OsString::from(&site);
    if let Some(old) = std::env::var_os("PYTHONPATH") {
        path.push(":");
        path.push(old);
    }
    run("python3", &["-m", "pytest", "-q", "crates/py/tests"], &[("PYTHONPATH", &path)])
}

fn lint() -> Result<(), String> {
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[])?;
    // Broken or private intra-doc links are errors too.
    cargo(&["doc", "--workspace", "--no-deps", "--quiet"], &[("RUSTDOCFLAGS", "-D warnings")])
}

fn run(task: &str, rest: &[String]) -> Result<(), String> {
    match task {
        "test" => test(),
        "lint" => lint(),
        "vendor" => vendor(),
        "fuzz" => fuzz(rest),
        "ci" => lint().and_then(|()| test()),
        "bench" => bench(rest),
        "snapshot" => cargo(
            &["test", "--workspace", "--exclude", "signorini-benches", "--exclude", "xtask"],
            &[("INSTA_UPDATE", "always")],
        ),
        "stress" => {
            cargo(
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
            )?;
            cargo(
                &["test", "--release", "-p", "signorini-gpu", "--test", "sim"],
                &[("SIGNORINI_GPU_F64", "1")],
            )
        }
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
