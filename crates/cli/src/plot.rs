//! `signorini plot FILE.json --out FILE.png`: draws what a JSON file of ours holds.
//!
//! - A run dump (`signorini run --dump`, or a batch dump `{"envs": [...]}`): one panel each for the contact count, the
//!   deepest penetration, the solver iterations, the energies (kinetic, potential, total) and `max |qvel|`, against
//!   time, from the dump's snapshots (one line per environment for a batch).
//! - A benchmark report (`scripts/bench_mujoco.py --json`): steps per second of MuJoCo and of ours (MuJoCo-compatible
//!   and native) per scene, as grouped bars on a logarithmic axis, with our ratio over MuJoCo printed above each.

use std::path::Path;

use plotters::prelude::*;
use serde_json::Value;

use crate::error::CliError;

const SIZE_RUN: (u32, u32) = (1000, 1250);
/// Width of the bar chart; its height grows with the number of scenes.
const BENCH_WIDTH: u32 = 1100;
/// Text font (a fontconfig family; DejaVu ships with most Linux distributions, others fall back to a sans face).
const FONT: &str = "DejaVu Sans";

/// One time series of one environment.
#[derive(Debug, Default)]
struct Series {
    time: Vec<f64>,
    ncon: Vec<f64>,
    penetration_mm: Vec<f64>,
    iterations: Vec<f64>,
    kinetic: Vec<f64>,
    potential: Vec<f64>,
    max_qvel: Vec<f64>,
}

/// Draws `input` into the PNG `out` (see the module docs).
pub fn run(input: &Path, out: &Path) -> Result<(), CliError> {
    crate::output::refuse_inputs(out, &[input])?;
    crate::output::check_writable(out)?;
    let text =
        std::fs::read_to_string(input).map_err(|source| CliError::Io { path: input.into(), source })?;
    let json: Value =
        serde_json::from_str(&text).map_err(|source| CliError::Json { path: input.into(), source })?;
    let fail = |what: String| CliError::Plot { path: out.into(), what };
    // Drawn beside `out` and renamed into place once complete.
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = out.with_file_name(format!(".{name}.{}.tmp.png", std::process::id()));
    let finish = |drawn: Draw<()>| -> Result<(), CliError> {
        let renamed = drawn.and_then(|()| std::fs::rename(&tmp, out).map_err(err));
        if renamed.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        renamed.map_err(fail)
    };
    if let Some(rows) = json.get("rows").and_then(Value::as_array) {
        return finish(bench_chart(rows, &tmp));
    }
    let dumps: Vec<&Value> = match json.get("envs").and_then(Value::as_array) {
        Some(envs) => envs.iter().collect(),
        None => vec![&json],
    };
    let series = dumps.iter().map(|d| series_of(d)).collect::<Result<Vec<_>, _>>().map_err(|what| {
        CliError::Usage(format!(
            "{}: {what} (expected a `signorini run --dump` file or a bench report)",
            input.display()
        ))
    })?;
    let title = json
        .get("scene")
        .or_else(|| dumps.first().and_then(|d| d.get("scene")))
        .and_then(Value::as_str)
        .unwrap_or("run");
    finish(run_chart(title, &series, &tmp))
}

/// The snapshots of one dump in step order.
fn series_of(dump: &Value) -> Result<Series, String> {
    let snaps = dump.get("snapshots").and_then(Value::as_object).ok_or("no `snapshots`")?;
    let mut steps: Vec<(u64, &Value)> =
        snaps.iter().filter_map(|(k, v)| k.parse::<u64>().ok().map(|k| (k, v))).collect();
    steps.sort_by_key(|(k, _)| *k);
    if steps.is_empty() {
        return Err("no snapshot".into());
    }
    let mut s = Series::default();
    let num = |v: &Value, key: &str| v.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN);
    for (_, v) in steps {
        s.time.push(num(v, "time"));
        s.ncon.push(num(v, "ncon"));
        s.penetration_mm.push(1e3 * num(v, "max_penetration"));
        s.iterations.push(num(v, "solver_niter"));
        s.kinetic.push(num(v, "energy_kinetic"));
        s.potential.push(num(v, "energy_potential"));
        s.max_qvel.push(num(v, "max_abs_qvel"));
    }
    Ok(s)
}

/// `[min, max]` of the finite values, widened when flat.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = if hi > lo { 0.05 * (hi - lo) } else { lo.abs().max(1.0) * 0.05 };
    (lo - pad, hi + pad)
}

type Draw<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn run_chart(title: &str, runs: &[Series], out: &Path) -> Draw<()> {
    let root = BitMapBackend::new(out, SIZE_RUN).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let label =
        if runs.len() > 1 { format!("{title} ({} environments)", runs.len()) } else { title.to_string() };
    let root = root.titled(&label, (FONT, 26)).map_err(err)?;
    let panels = root.split_evenly((5, 1));
    let time = range(runs.iter().flat_map(|r| r.time.iter().copied()));
    let (t0, t1) = (time.0.max(0.0), time.1);
    type Pick = fn(&Series) -> Vec<(&'static str, &Vec<f64>)>;
    let specs: [(&str, &str, Pick); 5] = [
        ("contacts", "count", |s| vec![("contacts", &s.ncon)]),
        ("deepest penetration", "mm", |s| vec![("penetration", &s.penetration_mm)]),
        ("solver iterations", "iterations", |s| vec![("iterations", &s.iterations)]),
        ("energy", "J", |s| vec![("kinetic", &s.kinetic), ("potential", &s.potential)]),
        ("max |qvel|", "m/s or rad/s", |s| vec![("max |qvel|", &s.max_qvel)]),
    ];
    for (panel, (caption, unit, pick)) in panels.iter().zip(specs) {
        let mut curves: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for (e, run) in runs.iter().enumerate() {
            let picked = pick(run);
            if caption == "energy" {
                let total: Vec<f64> = run.kinetic.iter().zip(&run.potential).map(|(k, p)| k + p).collect();
                curves.push((format!("total{}", env_suffix(runs.len(), e)), zip(&run.time, &total)));
            }
            for (name, values) in picked {
                curves.push((format!("{name}{}", env_suffix(runs.len(), e)), zip(&run.time, values)));
            }
        }
        let (y0, y1) = range(curves.iter().flat_map(|(_, c)| c.iter().map(|p| p.1)));
        let mut chart = ChartBuilder::on(panel)
            .margin(8)
            .caption(caption, (FONT, 18))
            .x_label_area_size(28)
            .y_label_area_size(70)
            .build_cartesian_2d(t0..t1.max(t0 + 1e-9), y0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc(unit)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(err)?;
        let legend = caption == "energy" && runs.len() == 1;
        for (k, (name, points)) in curves.into_iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            let drawn = chart
                .draw_series(LineSeries::new(
                    points.into_iter().filter(|p| p.1.is_finite()),
                    color.stroke_width(2),
                ))
                .map_err(err)?;
            if legend {
                drawn.label(name).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
            }
        }
        if legend {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(err)?;
        }
    }
    root.present().map_err(err)
}

fn env_suffix(n: usize, e: usize) -> String {
    if n > 1 { format!(" (env {e})") } else { String::new() }
}

fn zip(x: &[f64], y: &[f64]) -> Vec<(f64, f64)> {
    x.iter().copied().zip(y.iter().copied()).collect()
}

/// Grouped horizontal bars of steps/s per scene: MuJoCo, ours MuJoCo-compatible, ours native (log scale), with the
/// ratio ours (MuJoCo-compatible) / MuJoCo at the end of each group.
fn bench_chart(rows: &[Value], out: &Path) -> Draw<()> {
    let rate = |row: &Value, who: &str| {
        row.get(who).and_then(|w| w.get("steps_per_second")).and_then(Value::as_f64).filter(|r| *r > 0.0)
    };
    let groups =
        [("MuJoCo", "mujoco"), ("ours (MuJoCo-compatible)", "ours_compat"), ("ours (native)", "ours_native")];
    let scenes: Vec<(String, [Option<f64>; 3])> = rows
        .iter()
        .filter_map(|r| {
            let name = r.get("scene")?.as_str()?.to_string();
            Some((name, groups.map(|(_, key)| rate(r, key))))
        })
        .collect();
    if scenes.is_empty() {
        return Err("the report has no rows with a scene".into());
    }
    let all = scenes.iter().flat_map(|(_, r)| r.iter().flatten().copied());
    let (lo, hi) = all.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (x0, x1) = (10f64.powf(lo.log10().floor()), 10f64.powf(hi.log10().ceil() + 0.4));
    let n = scenes.len();
    let root = BitMapBackend::new(out, (BENCH_WIDTH, 45 * n as u32 + 140)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let names: Vec<String> = scenes.iter().map(|(s, _)| s.clone()).collect();
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .caption(
            "steps per second (higher is better); ours (MuJoCo-compatible) / MuJoCo at right",
            (FONT, 20),
        )
        .x_label_area_size(40)
        .y_label_area_size(190)
        .build_cartesian_2d((x0..x1).log_scale(), (n as f64 - 0.5)..-0.5f64)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&|y| {
            let i = y.round();
            if (y - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .label_style((FONT, 14))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("steps/s")
        .draw()
        .map_err(err)?;
    let height = 0.8 / groups.len() as f64;
    for (g, (label, _)) in groups.iter().enumerate() {
        let color = Palette99::pick(g).to_rgba();
        let bars = scenes.iter().enumerate().filter_map(|(i, (_, r))| {
            let y = i as f64 - 0.4 + g as f64 * height;
            r[g].map(|v| Rectangle::new([(x0, y), (v, y + height * 0.9)], color.filled()))
        });
        chart
            .draw_series(bars)
            .map_err(err)?
            .label(*label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }
    let ratios = scenes.iter().enumerate().filter_map(|(i, (_, r))| {
        let (m, ours) = (r[0]?, r[1]?);
        let end = r.iter().flatten().fold(0.0f64, |a, v| a.max(*v));
        Some(Text::new(format!("{:.2}×", ours / m), (end * 1.15, i as f64 - 0.15), (FONT, 14)))
    });
    chart.draw_series(ratios).map_err(err)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}
