//! `gpusched bench --reference DIR`: our wall time and peak memory beside Accel-Sim's, run by
//! run, on a reference set shaped like `../shared/reference/accelsim/`: `results.json` (one
//! record per trace and scheduler, with Accel-Sim's `wall_s`, `max_rss_mb` and
//! `gpu_sim_cycle`) and `traces/<workload>-<size>.tar.xz`.
//!
//! Every run is a whole `gpusched sim --trace T --config C --warp-sched P --json` process, as
//! the reference's figures were taken (process start included): its wall time from spawn to
//! exit and its peak resident memory (`ru_maxrss` from `wait4`: at least this process's own
//! peak, which a child inherits until it executes), median and maximum over `--repeat` runs.
//! The cycles of every repeat must agree. `C` is `gtx480` on a GTX 480 set, the set's own
//! configuration otherwise ([`our_config`]).
//!
//! With `--accel-sim BIN` the reference's side is measured here too (side by side on one
//! machine): per repeat, `BIN -trace T/kernelslist.g -config gpgpusim.config
//! -gpgpu_scheduler S` in a scratch copy of the configuration's directory, then our run, one
//! process at a time; its `gpu_sim_cycle` is read from its output and compared with the
//! record's. Without it the recorded wall times and memories are used (taken on another
//! machine), and the report says so.

use crate::cmd::{median, refset};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Our wall time must be at most 1/`SPEED_TARGET` of the reference's.
pub const SPEED_TARGET: f64 = 20.0;
/// Our peak memory must be at most 1/`RSS_TARGET` of the reference's.
pub const RSS_TARGET: f64 = 2.0;

pub use crate::cmd::accel_sim::AccelSim;
use crate::cmd::accel_sim::{self, measure, Scratch};

/// One run, ours beside the reference's.
#[derive(Serialize)]
pub struct RefRow {
    /// `<workload>-<size>`.
    trace: String,
    /// Our warp scheduler (`lrr`, `gto`, `two-level`).
    scheduler: String,
    /// Reference wall time, seconds (measured here: the median over the repeats).
    reference_wall_s: f64,
    /// Our median wall time over the repeats, seconds (whole process).
    wall_s: f64,
    /// `reference_wall_s / wall_s`.
    speed_ratio: f64,
    /// Reference peak resident memory, MB (measured here: the largest over the repeats).
    reference_rss_mb: f64,
    /// Our largest peak resident memory over the repeats, MB.
    rss_mb: f64,
    /// `reference_rss_mb / rss_mb`.
    rss_ratio: f64,
    /// Our cycles and the reference's (for orientation; `gpusched calibrate` compares them).
    cycles: u64,
    reference_cycles: u64,
    /// Measured here: the local Accel-Sim's cycles equal the record's.
    #[serde(skip_serializing_if = "Option::is_none")]
    reference_cycles_match_record: Option<bool>,
}

/// The whole comparison.
#[derive(Serialize)]
struct RefReport {
    reference: PathBuf,
    /// `measured` (a local Accel-Sim, `accel_sim`) or `recorded` (results.json's figures).
    reference_times: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    accel_sim: Option<PathBuf>,
    repeat: usize,
    speed_target: f64,
    rss_target: f64,
    runs: Vec<RefRow>,
    /// Runs at or above each target.
    speed_met: usize,
    rss_met: usize,
    /// Smallest and median speed ratio, smallest memory ratio.
    speed_ratio_min: f64,
    speed_ratio_median: f64,
    rss_ratio_min: f64,
    /// Measured here: runs whose Accel-Sim cycles differ from the record's.
    #[serde(skip_serializing_if = "Option::is_none")]
    reference_cycles_differ: Option<usize>,
}

/// The reference's figures every record must have.
const REQUIRED: [&str; 3] = ["wall_s", "max_rss_mb", "gpu_sim_cycle"];

/// One side's repeats of one run: wall times, the largest peak memory, the cycles (equal in
/// every repeat).
#[derive(Default)]
struct Repeats {
    walls: Vec<f64>,
    rss: f64,
    cycles: Option<u64>,
}

impl Repeats {
    /// Adds a repeat; false when its cycles differ from an earlier one's.
    fn add(&mut self, (wall, rss, cycles): (f64, f64, u64)) -> bool {
        let same = self.cycles.is_none_or(|c| c == cycles);
        self.cycles = Some(cycles);
        self.walls.push(wall);
        self.rss = self.rss.max(rss);
        same
    }
}

/// One Accel-Sim run of `trace` under the record's scheduler: wall time, peak memory, cycles.
fn run_accel_sim(
    a: &AccelSim,
    scratch: &Scratch,
    trace: &Path,
    r: &refset::Record,
) -> Result<(f64, f64, u64)> {
    let run = a.run(scratch, trace, &r.scheduler)?;
    let figures = accel_sim::figures(&run.stdout)
        .map_err(|e| r.error(format_args!("{}: {e}", a.bin.display())))?;
    let cycles = figures["gpu_sim_cycle"]
        .as_u64()
        .ok_or_else(|| r.error("Accel-Sim's `gpu_sim_cycle` is not a count"))?;
    Ok((run.wall_s, run.rss_mb, cycles))
}

/// Our configuration for the runs of `reference`: the calibrated `gtx480` preset for a GTX 480
/// set (records of `SM2_GTX480`, or naming none: the speed figures were measured so), the
/// set's own configuration otherwise (as `calibrate` reads it).
fn our_config(reference: &Path, records: &[&refset::Record], tmp: &Path) -> Result<String> {
    let gtx480 = records
        .iter()
        .all(|r| r.config.as_deref().is_none_or(|c| c == "SM2_GTX480"));
    if gtx480 {
        return Ok("gtx480".into());
    }
    Ok(crate::cmd::calibrate::reference_config(reference, tmp)?.0)
}

/// One `gpusched sim` run of `trace` under the record's scheduler with `config`.
fn run_ours(exe: &Path, config: &str, trace: &Path, r: &refset::Record) -> Result<(f64, f64, u64)> {
    let (wall, peak, out) = measure(
        Command::new(exe)
            .args(["sim", "--config", config, "--json", "--warp-sched"])
            .arg(&r.gpusched_warp_sched)
            .arg("--trace")
            .arg(trace),
    )?;
    let v: serde_json::Value = serde_json::from_slice(&out)
        .map_err(|e| r.error(format_args!("sim printed no JSON: {e}")))?;
    let c = v["cycles"].as_u64().context("no `cycles` in sim's JSON")?;
    Ok((wall, peak, c))
}

/// Runs `bench --reference`. `only`: run only the traces whose name contains it; `accel`: a
/// local Accel-Sim to measure beside ours instead of the recorded figures; `markdown`: the
/// report as a Markdown table (as `docs/src/results/` holds it).
pub fn run(
    reference: &Path,
    repeat: usize,
    json: bool,
    only: Option<&str>,
    accel: Option<&AccelSim>,
    markdown: bool,
) -> Result<ExitCode> {
    let (results, records) = refset::records(reference, &REQUIRED)?;
    let records: Vec<&refset::Record> = records
        .iter()
        .filter(|r| only.is_none_or(|o| r.trace().contains(o)))
        .collect();
    if records.is_empty() {
        bail!("{}: no run selected", results.display());
    }
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let accel = accel
        .map(|a| AccelSim::new(&a.bin, &a.config))
        .transpose()?;
    let tmp = tempfile::tempdir()?;
    let scratch = accel.as_ref().map(|a| a.scratch(tmp.path())).transpose()?;
    let repeat = repeat.max(1);
    let config = our_config(reference, &records, tmp.path())?;
    // Every trace unpacked and checked against its records before the first run.
    let dirs = refset::unpack_all(reference, &records, tmp.path(), &mut |_| {})?;
    let (mut rows, total) = (vec![], records.len());
    for r in records {
        let name = r.trace();
        let dir = std::path::absolute(&dirs[&name])?;
        let (mut ours, mut theirs) = (Repeats::default(), Repeats::default());
        for _ in 0..repeat {
            if let (Some(a), Some(cfg)) = (&accel, &scratch) {
                if !theirs.add(run_accel_sim(a, cfg, &dir, r)?) {
                    bail!(r.error("Accel-Sim's cycles differ between repeats"));
                }
            }
            if !ours.add(run_ours(&exe, &config, &dir, r)?) {
                bail!(r.error("cycles differ between repeats"));
            }
        }
        let recorded = r.need("gpu_sim_cycle")? as u64;
        let (ref_wall, ref_rss, ref_cycles) = match theirs.cycles {
            Some(c) => (median(theirs.walls), theirs.rss, c),
            None => (r.need("wall_s")?, r.need("max_rss_mb")?, recorded),
        };
        let wall_s = median(ours.walls);
        let row = RefRow {
            trace: name,
            scheduler: r.gpusched_warp_sched.clone(),
            reference_wall_s: ref_wall,
            wall_s,
            speed_ratio: ref_wall / wall_s,
            reference_rss_mb: ref_rss,
            rss_mb: ours.rss,
            rss_ratio: ref_rss / ours.rss,
            cycles: ours.cycles.expect("repeat >= 1"),
            reference_cycles: ref_cycles,
            reference_cycles_match_record: theirs.cycles.map(|c| c == recorded),
        };
        // Progress on standard error, also with --json (its report goes to standard output).
        print_row(&row, accel.is_some(), (rows.len() + 1, total));
        rows.push(row);
    }
    let report = summarize(reference, accel.as_ref(), repeat, rows);
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else if markdown {
        outln!("{}", render_markdown(&report));
    } else {
        outln!("{}", report.summary());
        outln!(
            "{}{}",
            report.source(),
            match &report.accel_sim {
                Some(bin) => format!(": {}", bin.display()),
                None => "; --accel-sim BIN measures them here".into(),
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// One run's line on standard error (`!` marks a ratio below its target, `*` Accel-Sim cycles
/// that differ from the record's).
fn print_row(row: &RefRow, measured: bool, (done, total): (usize, usize)) {
    let side = if measured { "accel-sim" } else { "ref" };
    eprintln!(
        "[{done}/{total}] {:<22} {:<9} {side} {:>8.2} s  ours {:>8.4} s  {:>6.1}x{}  {side} {:>6.1} MB  ours {:>6.1} MB  {:>4.1}x{}{}",
        row.trace,
        row.scheduler,
        row.reference_wall_s,
        row.wall_s,
        row.speed_ratio,
        if row.speed_ratio >= SPEED_TARGET { " " } else { "!" },
        row.reference_rss_mb,
        row.rss_mb,
        row.rss_ratio,
        if row.rss_ratio >= RSS_TARGET { " " } else { "!" },
        if row.reference_cycles_match_record == Some(false) {
            format!("  * Accel-Sim's {} cycles are not the record's", row.reference_cycles)
        } else {
            String::new()
        },
    );
}

/// The report over every row.
fn summarize(
    reference: &Path,
    accel: Option<&AccelSim>,
    repeat: usize,
    rows: Vec<RefRow>,
) -> RefReport {
    let speeds: Vec<f64> = rows.iter().map(|r| r.speed_ratio).collect();
    RefReport {
        reference: reference.to_path_buf(),
        reference_times: if accel.is_some() {
            "measured"
        } else {
            "recorded"
        },
        accel_sim: accel.map(|a| a.bin.clone()),
        repeat,
        speed_target: SPEED_TARGET,
        rss_target: RSS_TARGET,
        speed_met: rows
            .iter()
            .filter(|r| r.speed_ratio >= SPEED_TARGET)
            .count(),
        rss_met: rows.iter().filter(|r| r.rss_ratio >= RSS_TARGET).count(),
        speed_ratio_min: speeds.iter().copied().fold(f64::INFINITY, f64::min),
        speed_ratio_median: median(speeds),
        rss_ratio_min: rows
            .iter()
            .map(|r| r.rss_ratio)
            .fold(f64::INFINITY, f64::min),
        reference_cycles_differ: accel.map(|_| {
            rows.iter()
                .filter(|r| r.reference_cycles_match_record == Some(false))
                .count()
        }),
        runs: rows,
    }
}

impl RefReport {
    /// The summary: runs at each target, the smallest and median ratios.
    fn summary(&self) -> String {
        format!(
            "{} runs, median of {}: speed ratio >= {SPEED_TARGET} on {} (min {:.1}, median {:.1}); memory ratio >= {RSS_TARGET} on {} (min {:.1})",
            self.runs.len(),
            self.repeat,
            self.speed_met,
            self.speed_ratio_min,
            self.speed_ratio_median,
            self.rss_met,
            self.rss_ratio_min
        )
    }

    /// Where the reference's figures come from.
    fn source(&self) -> String {
        match self.reference_cycles_differ {
            Some(n) => format!(
                "Accel-Sim measured on this machine, alternating with gpusched, one process at a time; its cycles differ from the record's on {n} runs"
            ),
            None => "Accel-Sim's recorded wall times and memories (results.json, taken on another machine)".into(),
        }
    }
}

/// The header of the Markdown table.
const MARKDOWN_HEADER: &str = "| trace | scheduler | Accel-Sim (s) | gpusched (s) | speed ratio | Accel-Sim (MB) | gpusched (MB) | memory ratio | cycles, Accel-Sim / gpusched |\n|---|---|---:|---:|---:|---:|---:|---:|---:|";

/// The report as a Markdown table: one row per run (a ratio below its target in bold), then
/// the summary and where the reference's figures come from.
fn render_markdown(r: &RefReport) -> String {
    let bold = |x: f64, target: f64| {
        if x >= target {
            format!("{x:.1}")
        } else {
            format!("**{x:.1}**")
        }
    };
    let rows = r.runs.iter().map(|w| {
        vec![
            w.trace.clone(),
            w.scheduler.clone(),
            format!("{:.3}", w.reference_wall_s),
            format!("{:.4}", w.wall_s),
            bold(w.speed_ratio, SPEED_TARGET),
            format!("{:.1}", w.reference_rss_mb),
            format!("{:.1}", w.rss_mb),
            bold(w.rss_ratio, RSS_TARGET),
            format!("{} / {}", w.reference_cycles, w.cycles),
        ]
    });
    let footer = format!("{}. {}.", r.summary(), r.source());
    super::markdown::table(MARKDOWN_HEADER, rows, &footer)
}
