//! `signorini query FILE.json [--bench [--repeat R]]` (spec §6).
//!
//! For each record, in order, one JSON line `{"id", "distance", "p1", "p2", "normal", "collision"}` in the Coal
//! convention (normal from shape 1 to shape 2, `p2 − p1 = distance · normal`, negative distance when penetrating);
//! `collision` is the boolean test with security margin 0. With `--bench`, one line per file
//! `{"kind", "n", "distance_ns", "collide_ns"}`: the median over R passes (after one warm-up pass) of the mean time per
//! record, shapes prepared once outside the timed loop.

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use signorini_collision::{CollisionRequest, DistanceRequest, QueryWorkspace, collide_with, distance_with};
use signorini_testdata::{PreparedRecord, QueryDataset};

use crate::error::CliError;

#[derive(Serialize)]
struct Line {
    id: u64,
    distance: f64,
    p1: [f64; 3],
    p2: [f64; 3],
    normal: [f64; 3],
    collision: bool,
}

#[derive(Serialize)]
struct BenchLine<'a> {
    kind: &'a str,
    n: usize,
    distance_ns: f64,
    collide_ns: f64,
}

/// Loads and prepares a dataset.
pub fn load(path: &Path) -> Result<(QueryDataset, Vec<PreparedRecord>), CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Io { path: path.into(), source })?;
    let data: QueryDataset =
        serde_json::from_str(&text).map_err(|source| CliError::Json { path: path.into(), source })?;
    let prepared = data.prepare().map_err(|source| CliError::Dataset { path: path.into(), source })?;
    Ok((data, prepared))
}

/// Runs the queries and writes one line per record.
pub fn run(path: &Path, out: &mut dyn Write) -> Result<(), CliError> {
    let (_, prepared) = load(path)?;
    let mut ws = QueryWorkspace::default();
    let boolean = CollisionRequest { max_contacts: 0, ..CollisionRequest::default() };
    for r in &prepared {
        let query = |e| CliError::Query { id: r.id, source: e };
        let d = distance_with(&mut ws, &r.a.0, &r.a.1, &r.b.0, &r.b.1, &DistanceRequest::default())
            .map_err(query)?;
        let c = collide_with(&mut ws, &r.a.0, &r.a.1, &r.b.0, &r.b.1, &boolean).map_err(query)?;
        let line = Line {
            id: r.id,
            distance: d.distance,
            p1: d.point_a.to_array(),
            p2: d.point_b.to_array(),
            normal: d.normal.to_array(),
            collision: c.colliding,
        };
        write_json(out, &line)?;
    }
    Ok(())
}

/// Times distance and boolean collide over the records.
pub fn bench(path: &Path, repeat: usize, out: &mut dyn Write) -> Result<(), CliError> {
    if repeat == 0 {
        return Err(CliError::Usage("--repeat must be at least 1".into()));
    }
    let (data, prepared) = load(path)?;
    let mut ws = QueryWorkspace::default();
    let dreq = DistanceRequest::default();
    let creq = CollisionRequest { max_contacts: 0, ..CollisionRequest::default() };
    // Validate every record once (this is also the warm-up pass).
    for r in &prepared {
        distance_with(&mut ws, &r.a.0, &r.a.1, &r.b.0, &r.b.1, &dreq)
            .map_err(|e| CliError::Query { id: r.id, source: e })?;
        collide_with(&mut ws, &r.a.0, &r.a.1, &r.b.0, &r.b.1, &creq)
            .map_err(|e| CliError::Query { id: r.id, source: e })?;
    }
    let n = prepared.len();
    let distance_ns = crate::timing::median_ns_per_item(repeat, n, || {
        let sink: f64 = prepared
            .iter()
            .map(|r| {
                distance_with(&mut ws, &r.a.0, &r.a.1, &r.b.0, &r.b.1, &dreq).map_or(0.0, |d| d.distance)
            })
            .sum();
        std::hint::black_box(sink);
    });
    let mut ws2 = QueryWorkspace::default();
    let collide_ns = crate::timing::median_ns_per_item(repeat, n, || {
        let sink = prepared
            .iter()
            .filter(|r| {
                collide_with(&mut ws2, &r.a.0, &r.a.1, &r.b.0, &r.b.1, &creq).is_ok_and(|c| c.colliding)
            })
            .count();
        std::hint::black_box(sink);
    });
    write_json(out, &BenchLine { kind: &data.kind, n: prepared.len(), distance_ns, collide_ns })
}

/// Writes `value` as one JSON line, after checking that every number in it is finite.
pub(crate) fn write_json<T: Serialize>(out: &mut dyn Write, value: &T) -> Result<(), CliError> {
    crate::finite::ensure(value, "the output line")?;
    let io = |source| CliError::Io { path: "<stdout>".into(), source };
    serde_json::to_writer(&mut *out, value).map_err(|e| io(std::io::Error::other(e)))?;
    out.write_all(b"\n").map_err(io)
}
