//! Ctrl-C (SIGINT) and SIGTERM during a run: the first one asks the run to stop after its current step and write
//! the summary and the snapshots taken so far; the process then exits with code 130.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Routes SIGINT and SIGTERM to [`requested`] (once per process; a failure to install leaves the default handling).
pub fn install() {
    let _ = ctrlc::set_handler(|| REQUESTED.store(true, Ordering::SeqCst));
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
