//! `signorini ccd FILE.json` (spec §6): the time of impact of each record of a continuous-collision dataset in the
//! layout of `shared/testdata/coal/ccd.json`, one JSON line `{"id", "collides", "toi"}` per record (`toi`: the first
//! `s ∈ [0, 1]` at which the shapes touch, `null` when they never do), by conservative advancement
//! (`signorini_collision::ccd`).

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use signorini_collision::QueryWorkspace;
use signorini_collision::ccd::{CcdRequest, Motion, time_of_impact};
use signorini_testdata::CcdDataset;

use crate::error::CliError;
use crate::query::write_json;

#[derive(Serialize)]
struct Line {
    id: u64,
    collides: bool,
    toi: Option<f64>,
}

/// Runs every record and writes one line each.
pub fn run(path: &Path, out: &mut dyn Write) -> Result<(), CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Io { path: path.into(), source })?;
    let data: CcdDataset =
        serde_json::from_str(&text).map_err(|source| CliError::Json { path: path.into(), source })?;
    let prepared = data.prepare().map_err(|source| CliError::Dataset { path: path.into(), source })?;
    let mut ws = QueryWorkspace::default();
    for r in &prepared {
        let (ma, mb) = (Motion { start: r.a.1, end: r.a.2 }, Motion { start: r.b.1, end: r.b.2 });
        let answer = time_of_impact(&mut ws, &r.a.0, &ma, &r.b.0, &mb, &CcdRequest::default())
            .map_err(|source| CliError::Query { id: r.id, source })?;
        write_json(out, &Line { id: r.id, collides: answer.toi.is_some(), toi: answer.toi })?;
    }
    Ok(())
}
