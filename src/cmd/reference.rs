//! `gpusched reference record`: makes a reference set ([`super::refset`]) with a local
//! Accel-Sim build, as `../shared/reference/accelsim/` was made: every suite trace exported
//! (Pascal's binary version, which Accel-Sim accepts), run under LRR, GTO and two-level, and
//! its statistics kept as one record per trace and scheduler with the trace's SHA-256
//! ([`refset::trace_digest`]) instead of the trace itself: `calibrate` exports the trace again
//! and refuses one whose digest differs.
//!
//! The set is `OUT/config/` (the configuration's files) and `OUT/results.json`, rewritten
//! after every run, so an interrupted recording resumes where it stopped (runs already
//! recorded are skipped).

use crate::cmd::accel_sim::{self, AccelSim};
use crate::cmd::refset;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// GPGPU-Sim's scheduler strings and ours, as the shipped set pairs them.
pub const SCHEDULERS: [(&str, &str); 3] = [
    ("lrr", "lrr"),
    ("gto", "gto"),
    ("two_level_active:6:0:1", "two-level"),
];

/// `gpusched reference`.
#[derive(Args)]
pub struct ReferenceArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Run the suite's traces through a local Accel-Sim build and keep its statistics as a
    /// reference set for `calibrate` (records with each trace's SHA-256, no traces).
    Record(RecordArgs),
}

/// `gpusched reference record`.
#[derive(Args)]
struct RecordArgs {
    /// The local Accel-Sim build (`accel-sim.out`; how to build it:
    /// docs/src/calibrating-against-your-accel-sim-runs.md).
    #[arg(long, value_name = "BIN")]
    accel_sim: PathBuf,
    /// Accel-Sim's `gpgpusim.config` (e.g. GPGPU-Sim's `configs/tested-cfgs/SM6_TITANX/`); it
    /// and the files beside it that it names (the interconnect file) are copied into
    /// `OUT/config/`.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Accel-Sim's `trace.config` for that GPU (`gpu-simulator/configs/tested-cfgs/<GPU>/`),
    /// copied into `OUT/config/` and passed as a second `-config`. Without it Accel-Sim uses
    /// its trace-mode defaults.
    #[arg(long, value_name = "FILE")]
    trace_config: Option<PathBuf>,
    /// The reference set to write (created, or resumed when it holds records).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Record the traces (`<workload>-<size>`) another reference set has (e.g.
    /// ../shared/reference/accelsim) instead of every suite kernel at `small`.
    #[arg(long, value_name = "DIR")]
    like: Option<PathBuf>,
    /// Only the traces whose name (`<workload>-<size>`) contains this.
    #[arg(long, value_name = "NAME")]
    only: Option<String>,
    /// The SASS binary version the exported traces declare (Accel-Sim maps opcodes by it; 61,
    /// Pascal's, covers every opcode the suite uses).
    #[arg(long, value_name = "V", default_value_t = 61)]
    binary_version: u32,
}

/// Runs `reference`.
pub fn run(a: ReferenceArgs) -> Result<ExitCode> {
    match a.action {
        Action::Record(r) => record(&r),
    }
}

/// The traces to record: `(workload, size)`.
fn traces(a: &RecordArgs) -> Result<Vec<(String, String)>> {
    let mut list: Vec<(String, String)> = match &a.like {
        Some(dir) => {
            let (_, records) = refset::records(dir, &[])?;
            records
                .iter()
                .map(|r| (r.workload.clone(), r.size.clone()))
                .collect()
        }
        None => gpusim::workload::synth::suite::SUITE
            .iter()
            .map(|e| (e.name.to_string(), "small".to_string()))
            .collect(),
    };
    list.sort();
    list.dedup();
    list.retain(|(w, s)| {
        a.only
            .as_deref()
            .is_none_or(|o| format!("{w}-{s}").contains(o))
    });
    if list.is_empty() {
        bail!("no trace selected");
    }
    Ok(list)
}

/// Copies the configuration, the files beside it that it names (the interconnect file) and the
/// trace configuration into `OUT/config` (as `gpgpusim.config` and `trace.config`), or checks
/// that the files already there are the same.
fn config_dir(a: &RecordArgs) -> Result<PathBuf> {
    let dir = a.out.join("config");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let text = std::fs::read_to_string(&a.config)
        .with_context(|| format!("--config {}", a.config.display()))?;
    let from = a.config.parent().filter(|p| !p.as_os_str().is_empty());
    let from = from.unwrap_or(Path::new("."));
    let mut files = vec![(a.config.clone(), "gpgpusim.config".to_string())];
    for token in text.split_whitespace().filter(|t| !t.starts_with('-')) {
        let named = from.join(token);
        if !token.contains('/') && named.is_file() && named != a.config {
            files.push((named, token.to_string()));
        }
    }
    if let Some(t) = &a.trace_config {
        files.push((t.clone(), "trace.config".into()));
    }
    for (from, name) in files {
        let to = dir.join(&name);
        let bytes = std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
        match std::fs::read(&to) {
            Ok(old) if old != bytes => bail!(
                "{} differs from {}: this reference set was recorded with another \
                 configuration (use another --out)",
                to.display(),
                from.display()
            ),
            Ok(_) => {}
            Err(_) => std::fs::write(&to, &bytes)?,
        }
    }
    Ok(dir)
}

/// The records already in `OUT/results.json` (none when it does not exist).
fn existing(out: &Path) -> Result<Vec<Value>> {
    let path = out.join("results.json");
    if !path.exists() {
        return Ok(vec![]);
    }
    refset::records(out, &["gpu_sim_cycle"])?;
    let text = std::fs::read_to_string(&path)?;
    Ok(serde_json::from_str(&text)?)
}

/// Writes the records to `OUT/results.json` (through a temporary file, so an interruption
/// leaves the last complete list).
fn save(out: &Path, records: &[Value]) -> Result<()> {
    let path = out.join("results.json");
    let tmp = out.join("results.json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(records)? + "\n")?;
    std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))
}

/// Exports `workload` at `size` into `dir` with binary version `version`.
pub fn export(workload: &str, size: &str, dir: &Path, version: u32) -> Result<()> {
    let mut w = gpusim::workload::open_named(workload, size)?;
    gpusim::workload::export::export_with(w.as_mut(), dir, Some(version), None, &mut |_| {})?;
    Ok(())
}

/// Exports as [`export`] in a child process (`gpusched trace export`): the memory a large
/// export takes is never this process's, whose size each Accel-Sim child would otherwise
/// start with and report as its peak (`ru_maxrss` counts the pages a child inherits).
fn export_in_child(workload: &str, size: &str, dir: &Path, version: u32) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let out = std::process::Command::new(exe)
        .args(["trace", "export", "--workload", workload, "--size", size])
        .arg("--out")
        .arg(dir)
        .args(["--binary-version", &version.to_string()])
        .output()
        .context("cannot run `gpusched trace export`")?;
    if !out.status.success() {
        bail!(
            "exporting {workload}-{size}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

fn record(a: &RecordArgs) -> Result<ExitCode> {
    let list = traces(a)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let config = config_dir(a)?;
    let gpu = (a.config.parent())
        .and_then(Path::file_name)
        .map_or("gpgpusim.config".into(), |n| {
            n.to_string_lossy().to_string()
        });
    let accel = AccelSim::new(&a.accel_sim, &config.join("gpgpusim.config"))?;
    let mut records = existing(&a.out)?;
    let done = |records: &[Value], w: &str, s: &str, sched: &str| {
        records
            .iter()
            .any(|r| r["workload"] == w && r["size"] == s && r["gpusched_warp_sched"] == sched)
    };
    let tmp = tempfile::tempdir()?;
    let scratch = accel.scratch(tmp.path())?;
    let total = list.len() * SCHEDULERS.len();
    let mut n = 0;
    for (w, s) in &list {
        let name = format!("{w}-{s}");
        let dir = std::path::absolute(tmp.path().join(&name))?;
        let mut digest = None;
        for (theirs, ours) in SCHEDULERS {
            n += 1;
            if done(&records, w, s, ours) {
                continue;
            }
            if digest.is_none() {
                export_in_child(w, s, &dir, a.binary_version)?;
                digest = Some(refset::trace_digest(&dir)?);
            }
            let run = accel.run(&scratch, &dir, theirs)?;
            let mut fig = accel_sim::figures(&run.stdout)
                .with_context(|| format!("{name} under {theirs}"))?;
            fig.insert("wall_s".into(), json!(run.wall_s));
            fig.insert("max_rss_mb".into(), json!(run.rss_mb));
            fig.insert("exit_status".into(), json!(0));
            eprintln!(
                "[{n}/{total}] {name:<22} {theirs:<22} {:>9} cycles {:>8.2} s {:>7.1} MB",
                fig["gpu_sim_cycle"], run.wall_s, run.rss_mb
            );
            records.push(json!({
                "workload": w,
                "size": s,
                "config": gpu,
                "scheduler": theirs,
                "gpusched_warp_sched": ours,
                "trace_binary_version": a.binary_version,
                "trace_sha256": digest,
                "accelsim": fig,
            }));
            save(&a.out, &records)?;
        }
        std::fs::remove_dir_all(&dir).ok();
    }
    outln!(
        "{}: {} records ({} traces x {} schedulers asked for)",
        a.out.join("results.json").display(),
        records.len(),
        list.len(),
        SCHEDULERS.len()
    );
    Ok(ExitCode::SUCCESS)
}
