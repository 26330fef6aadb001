//! `gpusched sweep`: experiments as sweeps over workloads x configurations x policies
//! ([`spec`]), run point by point with every result kept on disk under a key of everything
//! that determines it ([`store`]): an interrupted sweep resumes where it stopped, an unchanged
//! point is never simulated twice, and shards of one sweep can run on different machines
//! (`--shard i/n`) into one shared directory, by hand or as a Slurm job array ([`slurm`]).

pub mod slurm;
pub mod spec;
pub mod store;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use gpusim::gpu::{Gpu, SimError};
use gpusim::workload::kernel::{TraceWorkload, WorkloadSource};
use indicatif::{ProgressBar, ProgressStyle};
use spec::{Point, Spec, Workload};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use store::{Manifest, PointResult};

/// Arguments of `gpusched sweep`.
#[derive(Args)]
pub struct SweepArgs {
    #[command(subcommand)]
    command: SweepCommand,
}

#[derive(Subcommand)]
enum SweepCommand {
    /// Run every point of a spec not already done (results in DIR/points/, one JSON each).
    Run(RunArgs),
    /// How many points of a sweep are done, failed and missing.
    Status(StatusArgs),
    /// Merge a sweep's results into one table (text, CSV or JSON), reporting missing and
    /// failed points.
    Collect(CollectArgs),
    /// Write (and with --submit, submit) a Slurm job array whose tasks run the shards of a
    /// spec into one shared directory.
    Slurm(slurm::SlurmArgs),
}

#[derive(Args)]
struct RunArgs {
    /// The sweep spec (TOML).
    spec: PathBuf,
    /// Output directory (default: sweep-<name>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Parallel simulations (default: the machine's cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Run only shard I of N (points whose index is I modulo N), e.g. `--shard 0/4`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Write into a directory that holds another spec's results.
    #[arg(long)]
    force: bool,
    /// Run the points that failed before again (a failure is kept like a result: the model
    /// is deterministic, so only a transient cause, such as a full disk, makes this useful).
    #[arg(long)]
    retry_failed: bool,
}

#[derive(Args)]
struct StatusArgs {
    /// A sweep's output directory.
    dir: PathBuf,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct CollectArgs {
    /// A sweep's output directory.
    dir: PathBuf,
    /// CSV instead of a text table.
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    /// JSON (an array of rows) instead of a text table.
    #[arg(long)]
    json: bool,
}

/// `I/N` with `I < N`.
fn parse_shard(s: &str) -> std::result::Result<(usize, usize), String> {
    let bad = || format!("`{s}`: expected I/N with 0 <= I < N, e.g. 0/4");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n) = (
        i.trim().parse::<usize>().map_err(|_| bad())?,
        n.trim().parse::<usize>().map_err(|_| bad())?,
    );
    if i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Runs `sweep`.
pub fn run(a: SweepArgs) -> Result<ExitCode> {
    match a.command {
        SweepCommand::Run(r) => run_sweep(r),
        SweepCommand::Status(s) => status(s),
        SweepCommand::Collect(c) => collect(c),
        SweepCommand::Slurm(s) => slurm::run(s),
    }
}

/// The key of every point of `spec`.
pub fn keys(spec: &Spec) -> Result<Vec<String>> {
    let exe = std::env::current_exe().context("locating the gpusched executable")?;
    let exe = store::file_sha256(&exe)?;
    let mut traces: HashMap<PathBuf, Vec<(String, String)>> = HashMap::new();
    let mut configs: HashMap<String, String> = HashMap::new();
    let mut keys = vec![];
    for p in &spec.points {
        let (cfg, opts, _) = p.run_args()?.resolve()?;
        let cfg_json = match configs.get(&p.config) {
            Some(j) => j.clone(),
            None => {
                let j = serde_json::to_string(&cfg)?;
                configs.insert(p.config.clone(), j.clone());
                j
            }
        };
        let files = match &p.workload {
            Workload::Trace { dir, .. } => match traces.get(dir) {
                Some(f) => f.clone(),
                None => {
                    let f = store::trace_digests(dir)?;
                    traces.insert(dir.clone(), f.clone());
                    f
                }
            },
            Workload::Named { .. } => vec![],
        };
        keys.push(store::point_key(
            p,
            &cfg_json,
            &format!("{opts:?}"),
            &exe,
            &files,
        ));
    }
    Ok(keys)
}

/// Simulates one point: its report as JSON, or the error that ended it.
fn simulate(p: &Point) -> std::result::Result<serde_json::Value, String> {
    let go = || -> Result<serde_json::Value> {
        let (cfg, mut opts, _) = p.run_args()?.resolve()?;
        let mut open = || -> std::result::Result<Box<dyn WorkloadSource>, SimError> {
            Ok(match &p.workload {
                Workload::Named { name, size } => gpusim::workload::open_named(name, size)?,
                Workload::Trace { dir, .. } => Box::new(TraceWorkload::open(dir)?),
            })
        };
        let plan = crate::cmd::sim::select_loads(&cfg, &mut opts, &mut open, true)?;
        let mut gpu = Gpu::golden(&cfg, opts)?;
        let mut r = gpu.run(open()?.as_mut(), &mut |_| {})?;
        r.bypass_plan = plan;
        Ok(serde_json::to_value(&r)?)
    };
    // A panic is a bug in gpusched: recorded as the point's failure, the others go on.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(go)) {
        Ok(r) => r.map_err(|e| format!("{e:#}")),
        Err(p) => Err(format!(
            "gpusched panicked (a bug in the simulator; please report it): {}",
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default()
        )),
    }
}

/// What a run of a sweep did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ran {
    /// Points of the shard.
    pub points: usize,
    /// Simulated now.
    pub run: usize,
    /// Found done.
    pub cached: usize,
    /// Failed (now or before).
    pub failed: usize,
}

/// How [`run_spec`] treats the output directory.
#[derive(Clone, Copy, Debug, Default)]
pub struct Policy {
    /// Write into a directory that holds another spec's results.
    pub force: bool,
    /// Run failed points again.
    pub retry_failed: bool,
}

/// Runs the points of `spec` in shard `(shard, shards)` that `out` does not hold yet, `jobs`
/// at a time, with a progress bar; refuses a directory of another spec unless `force`.
pub fn run_spec(
    spec: &Spec,
    out: &Path,
    jobs: usize,
    (shard, shards): (usize, usize),
    how: Policy,
) -> Result<Ran> {
    let keys = keys(spec)?;
    Manifest::new(spec, keys.clone()).write(out, how.force)?;
    let mine: Vec<usize> = (0..spec.points.len())
        .filter(|i| i % shards == shard)
        .collect();
    // Points already done (a damaged result is run again).
    let mut todo = vec![];
    let (mut cached, mut cached_failed) = (0, 0);
    for &i in &mine {
        match PointResult::read(out, &keys[i]) {
            Ok(Some(r)) if r.error.is_some() && how.retry_failed => todo.push(i),
            Ok(Some(r)) => {
                cached += 1;
                cached_failed += r.error.is_some() as usize;
            }
            Ok(None) => todo.push(i),
            Err(e) => {
                eprintln!("note: {e:#}; running the point again");
                todo.push(i);
            }
        }
    }
    let bar = ProgressBar::new(mine.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "sweep {prefix} [{bar:30}] {pos}/{len} points ({msg}), {elapsed}, ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(spec.name.clone());
    bar.set_position(cached as u64);
    let counts = Mutex::new((0usize, cached, cached_failed));
    let show = |c: &(usize, usize, usize)| format!("{} run, {} cached, {} failed", c.0, c.1, c.2);
    bar.set_message(show(&counts.lock().expect("no panics")));
    let next = AtomicUsize::new(0);
    let write_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(todo.len().max(1)) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = todo.get(k) else { break };
                let p = &spec.points[i];
                let t = std::time::Instant::now();
                let outcome = simulate(p);
                let failed = outcome.is_err();
                let r = PointResult::new(
                    keys[i].clone(),
                    p.clone(),
                    outcome,
                    t.elapsed().as_secs_f64(),
                );
                if let Err(e) = r.write(out) {
                    write_error.lock().expect("no panics").get_or_insert(e);
                    break;
                }
                let mut c = counts.lock().expect("no panics");
                c.0 += 1;
                c.2 += failed as usize;
                bar.set_message(show(&c));
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = write_error.into_inner().expect("no panics") {
        return Err(e);
    }
    let (run, cached, failed) = counts.into_inner().expect("no panics");
    Ok(Ran {
        points: mine.len(),
        run,
        cached,
        failed,
    })
}

fn run_sweep(a: RunArgs) -> Result<ExitCode> {
    let spec = Spec::load(&a.spec)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("sweep-{}", spec.name)));
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let (shard, shards) = a.shard.unwrap_or((0, 1));
    let how = Policy {
        force: a.force,
        retry_failed: a.retry_failed,
    };
    let r = run_spec(&spec, &out, jobs, (shard, shards), how)?;
    eprintln!(
        "sweep {}: {} points{}: {} run, {} cached, {} failed; results in {}",
        spec.name,
        r.points,
        if shards > 1 {
            format!(" (shard {shard}/{shards} of {})", spec.points.len())
        } else {
            String::new()
        },
        r.run,
        r.cached,
        r.failed,
        out.display()
    );
    Ok(if r.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Every point of the sweep in `dir` with its result, if there is a sound one.
pub fn results(dir: &Path) -> Result<(Manifest, Vec<Option<PointResult>>)> {
    let m = Manifest::read(dir)?;
    let mut out = vec![];
    for (_, key) in &m.points {
        out.push(match PointResult::read(dir, key) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("note: {e:#}; counted as missing");
                None
            }
        });
    }
    Ok((m, out))
}

fn status(a: StatusArgs) -> Result<ExitCode> {
    let (m, rs) = results(&a.dir)?;
    let done = rs.iter().flatten().filter(|r| r.error.is_none()).count();
    let failed = rs.iter().flatten().filter(|r| r.error.is_some()).count();
    let truncated = rs.iter().flatten().filter(|r| r.truncated()).count();
    let missing = rs.iter().filter(|r| r.is_none()).count();
    if a.json {
        let v = serde_json::json!({
            "name": m.name, "points": m.points.len(), "done": done, "failed": failed,
            "truncated": truncated, "missing": missing,
        });
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        let cut = match truncated {
            0 => String::new(),
            n => format!(" ({n} of the done truncated at --max-cycles)"),
        };
        outln!(
            "sweep {}: {} points: {done} done, {failed} failed, {missing} missing{cut}",
            m.name,
            m.points.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The value at dotted `path` of `report`.
fn metric<'a>(report: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
    path.split('.').try_fold(report, |v, k| v.get(k))
}

/// A CSV field, quoted when it needs to be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn collect(a: CollectArgs) -> Result<ExitCode> {
    let (m, rs) = results(&a.dir)?;
    // Every metric must name a value of the reports.
    if let Some(r) = rs.iter().flatten().find_map(|r| r.report.as_ref()) {
        for name in &m.metrics {
            if metric(r, name).is_none() {
                let keys: Vec<&str> = r
                    .as_object()
                    .map(|o| o.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                bail!(
                    "metric `{name}` is not in the reports; top-level values: {}",
                    keys.join(", ")
                );
            }
        }
    }
    let head: Vec<String> = ["point", "workload", "size", "config", "policy", "status"]
        .iter()
        .map(|s| s.to_string())
        .chain(m.metrics.iter().cloned())
        .chain(["error".to_string()])
        .collect();
    let mut rows: Vec<Vec<serde_json::Value>> = vec![];
    let (mut missing, mut failed) = (vec![], 0);
    for ((p, _), r) in m.points.iter().zip(&rs) {
        let mut row: Vec<serde_json::Value> = vec![
            p.index.into(),
            p.workload.name().into(),
            p.workload.size().into(),
            p.config.clone().into(),
            p.policy.name.clone().into(),
        ];
        match r {
            None => {
                missing.push(p.index);
                row.push("missing".into());
                row.extend(m.metrics.iter().map(|_| serde_json::Value::Null));
                row.push(serde_json::Value::Null);
            }
            Some(r) => {
                row.push(r.status().into());
                for name in &m.metrics {
                    row.push(
                        r.report
                            .as_ref()
                            .and_then(|rep| metric(rep, name))
                            .cloned()
                            .unwrap_or(serde_json::Value::Null),
                    );
                }
                failed += r.error.is_some() as usize;
                row.push(r.error.clone().map_or(serde_json::Value::Null, Into::into));
            }
        }
        rows.push(row);
    }
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    // In the text table an error shows its first line.
    let short = |v: &serde_json::Value| text(v).lines().next().unwrap_or("").to_string();
    if a.json {
        let objs: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::Value::Object(head.iter().cloned().zip(r.iter().cloned()).collect())
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&objs)?);
    } else if a.csv {
        outln!(
            "{}",
            head.iter()
                .map(|h| csv_field(h))
                .collect::<Vec<_>>()
                .join(",")
        );
        for r in &rows {
            outln!(
                "{}",
                r.iter()
                    .map(|v| csv_field(&text(v)))
                    .collect::<Vec<_>>()
                    .join(",")
            );
        }
    } else {
        let cells: Vec<Vec<String>> = std::iter::once(head.clone())
            .chain(rows.iter().map(|r| r.iter().map(short).collect()))
            .collect();
        let widths: Vec<usize> = (0..head.len())
            .map(|c| cells.iter().map(|r| r[c].len()).max().unwrap_or(0))
            .collect();
        for r in &cells {
            let line: Vec<String> = r
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect();
            outln!("{}", line.join("  ").trim_end());
        }
    }
    if failed > 0 || !missing.is_empty() {
        eprintln!(
            "sweep {}: {} points, {failed} failed, {} missing{}",
            m.name,
            m.points.len(),
            missing.len(),
            if missing.is_empty() {
                String::new()
            } else {
                format!(
                    " (points {})",
                    missing
                        .iter()
                        .map(|i| i.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        );
    }
    if missing.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("the sweep is incomplete: run `gpusched sweep run` on its spec again");
        Ok(ExitCode::from(1))
    }
}
