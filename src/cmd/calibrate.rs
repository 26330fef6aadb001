//! `gpusched calibrate --reference DIR [--config CFG] [--only NAME] [--json]`: our cycles and
//! counters beside a reference simulator's, trace by trace and scheduler by scheduler, on a
//! reference set ([`super::refset`]: `../shared/reference/accelsim/` or users' own Accel-Sim
//! runs of that shape), then the summary: mean and median absolute cycle error, the worst
//! runs, and how often the two simulators rank the schedulers alike.
//!
//! Counters are set side by side in the same unit (the reference's units, Accel-Sim's, are
//! converted):
//! - warp instructions: `gpgpu_n_tot_w_icount` (equal when the trace was read alike);
//! - L1D read sector misses: Accel-Sim's `L1D_total_cache_misses` counts stores too (its L1D
//!   does not allocate on writes), so the sectors its reads fetch (`*_R.MISS +
//!   *_R.SECTOR_MISS` of its L1 breakdown; a line is one sector in an L1D without sectors)
//!   are compared with our `l1d.sector_read_misses`;
//! - L2 sector accesses: Accel-Sim counts a sectored L2's accesses per 32 B sector (4 for a
//!   128 B line request, 1 for a sector request), so `L2_total_cache_accesses` is compared
//!   with our `l2.sector_accesses`;
//! - L2 read sector misses: the sectors Accel-Sim's reads fetch (every `*_R.MISS` and
//!   `*_R.SECTOR_MISS` of the breakdown: the first sector of a missing line is a `MISS`, the
//!   others `SECTOR_MISS`) against our `l2.sector_read_misses`;
//! - DRAM bytes read: Accel-Sim's `dram_n_rd_sum` counts 32 B reads, so `32 * dram_n_rd_sum` is
//!   compared with our `dram.read_bytes`.
//!
//! Errors are `ours / reference - 1`. Scheduler orders list the schedulers fastest first, `=`
//! joining those within 1% of each other (L = lrr, G = gto, T = two-level).

use crate::cmd::median;
use crate::cmd::refset::{self, Record};
use crate::cmd::sim::{open_workload, simulate, RunArgs};
use anyhow::{bail, Result};
use clap::{Args, Parser};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gpusched calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// The reference set: `results.json` and `traces/<workload>-<size>.tar.xz` (e.g.
    /// ../shared/reference/accelsim), or records with each trace's SHA-256 (as `reference
    /// record` writes them), whose suite kernels are exported again and checked.
    #[arg(long, value_name = "DIR")]
    reference: PathBuf,
    /// Our GPU configuration (as `sim --config`). Default: the configuration the reference
    /// simulator ran, `DIR/config/gpgpusim.config` followed by `DIR/config/trace.config`, or
    /// by Accel-Sim's trace-mode defaults when there is none
    /// (`configs/accelsim-trace-defaults.config`); `gtx480` when `DIR/config` has no
    /// `gpgpusim.config`.
    #[arg(long)]
    config: Option<String>,
    /// Only the traces whose name (`<workload>-<size>`) contains this.
    #[arg(long, value_name = "NAME")]
    only: Option<String>,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    json: bool,
}

/// A counter of ours beside the reference's, in the same unit.
#[derive(Clone, Serialize)]
pub struct Pair {
    ours: f64,
    reference: f64,
}

/// One trace under one scheduler.
#[derive(Serialize)]
pub struct CalRow {
    trace: String,
    /// Our scheduler, and the reference's for it.
    scheduler: String,
    reference_scheduler: String,
    cycles: u64,
    reference_cycles: u64,
    /// `cycles / reference_cycles - 1`.
    error: f64,
    warp_instructions: Pair,
    l1d_read_misses: Option<Pair>,
    l2_sector_accesses: Option<Pair>,
    l2_read_misses: Option<Pair>,
    dram_read_bytes: Option<Pair>,
}

/// The schedulers of one trace, fastest first, in both simulators.
#[derive(Serialize)]
pub struct Ranking {
    trace: String,
    ours: String,
    reference: String,
    /// The same fastest scheduler (ties in either order count as agreeing).
    same_fastest: bool,
    /// The reference's schedulers differ by more than 3% (where a ranking is meaningful).
    reference_spread_over_3pct: bool,
}

/// The whole calibration.
#[derive(Serialize)]
struct CalReport {
    reference: PathBuf,
    config: String,
    runs: Vec<CalRow>,
    rankings: Vec<Ranking>,
    /// Mean and median of `|error|`.
    mean_abs_error: f64,
    median_abs_error: f64,
    /// Median of `reference_cycles / cycles`.
    median_cycle_ratio: f64,
    /// The five runs of largest `|error|`.
    worst: Vec<String>,
    /// Traces whose fastest scheduler agrees, among those where the reference's schedulers
    /// differ by more than 3%, and that count.
    fastest_agree: usize,
    fastest_compared: usize,
}

/// One letter per scheduler for the orders.
fn letter(s: &str) -> char {
    match s {
        "lrr" => 'L',
        "gto" => 'G',
        _ => 'T',
    }
}

/// The schedulers fastest first, `=` joining neighbours within 1%.
fn order(cycles: &[(char, f64)]) -> String {
    let mut v = cycles.to_vec();
    v.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let mut s = String::new();
    for (k, (c, x)) in v.iter().enumerate() {
        if k > 0 {
            s.push(if *x <= v[k - 1].1 * 1.01 { '=' } else { '<' });
        }
        s.push(*c);
    }
    s
}

/// The schedulers tied for fastest (within 1% of the fastest).
fn fastest(cycles: &[(char, f64)]) -> Vec<char> {
    let best = cycles.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
    cycles
        .iter()
        .filter(|c| c.1 <= best * 1.01)
        .map(|c| c.0)
        .collect()
}

#[derive(Parser)]
#[command(name = "run", no_binary_name = true)]
struct RunParser {
    #[command(flatten)]
    run: RunArgs,
}

/// The counters of one of our reports (its JSON) beside the reference record's.
fn row(r: &Record, ours: &serde_json::Value) -> Result<CalRow> {
    let num = |k: &str| ours.pointer(k).and_then(serde_json::Value::as_f64);
    let pair = |o: Option<f64>, reference: Option<f64>| match (o, reference) {
        (Some(ours), Some(reference)) => Some(Pair { ours, reference }),
        _ => None,
    };
    let cycles = num("/cycles").unwrap_or_default() as u64;
    let reference_cycles = r.need("gpu_sim_cycle")? as u64;
    Ok(CalRow {
        trace: r.trace(),
        scheduler: r.gpusched_warp_sched.clone(),
        reference_scheduler: r.scheduler.clone(),
        cycles,
        reference_cycles,
        error: cycles as f64 / reference_cycles.max(1) as f64 - 1.0,
        warp_instructions: Pair {
            ours: num("/warp_instructions").unwrap_or_default(),
            reference: r.need("gpgpu_n_tot_w_icount")?,
        },
        l1d_read_misses: pair(
            num("/l1d/sector_read_misses"),
            read_sector_misses(r, "l1_breakdown_nonzero", &["GLOBAL_ACC_R", "LOCAL_ACC_R"]),
        ),
        l2_sector_accesses: pair(
            num("/l2/sector_accesses"),
            r.figure("L2_total_cache_accesses"),
        ),
        l2_read_misses: pair(
            num("/l2/sector_read_misses"),
            read_sector_misses(r, "l2_breakdown_nonzero", &["_R"]),
        ),
        dram_read_bytes: pair(
            num("/dram/read_bytes"),
            r.figure("dram_n_rd_sum").map(|x| x * 32.0),
        ),
    })
}

/// The sectors the reference's reads fetched at one cache level (`breakdown`: its L1 or L2
/// breakdown; Accel-Sim's L1 one holds the L1I's instruction fetches too): the `MISS` and
/// `SECTOR_MISS` of the access types whose names end in one of `kinds` (`None` without a
/// breakdown).
fn read_sector_misses(r: &Record, breakdown: &str, kinds: &[&str]) -> Option<f64> {
    let b = r.accelsim.get(breakdown)?.as_object()?;
    Some(
        b.iter()
            .filter(|(k, _)| {
                let (kind, event) = k.split_once('.').unwrap_or((k, ""));
                kinds.iter().any(|s| kind.ends_with(s)) && matches!(event, "MISS" | "SECTOR_MISS")
            })
            .filter_map(|(_, v)| v.as_f64())
            .sum(),
    )
}

/// Accel-Sim's trace-mode ALU latencies when a run has no `trace.config`.
const TRACE_DEFAULTS: &str = include_str!("../../configs/accelsim-trace-defaults.config");

/// The configuration a reference set ran (see [`CalibrateArgs::config`]) as a `--config`
/// value, and how to name it (the same on every run); Accel-Sim's trace-mode defaults are
/// written into `tmp` when the set has no `trace.config`.
pub(crate) fn reference_config(reference: &Path, tmp: &Path) -> Result<(String, String)> {
    let dir = reference.join("config");
    let gpgpusim = dir.join("gpgpusim.config");
    if !gpgpusim.is_file() {
        return Ok(("gtx480".into(), "gtx480".into()));
    }
    let (trace, label) = match dir.join("trace.config") {
        t if t.is_file() => (t.clone(), t.display().to_string()),
        _ => {
            let t = tmp.join("accelsim-trace-defaults.config");
            std::fs::write(&t, TRACE_DEFAULTS)?;
            (t, "accelsim-trace-defaults.config".into())
        }
    };
    for p in [&gpgpusim, &trace] {
        if p.to_string_lossy().contains(',') {
            bail!(
                "{}: a path with a comma cannot be part of a configuration list; pass --config",
                p.display()
            );
        }
    }
    Ok((
        format!("{},{}", gpgpusim.display(), trace.display()),
        format!("{},{label}", gpgpusim.display()),
    ))
}

/// The reference's figures every record must have.
const REQUIRED: [&str; 2] = ["gpu_sim_cycle", "gpgpu_n_tot_w_icount"];

/// Runs `calibrate`.
pub fn run(a: CalibrateArgs) -> Result<ExitCode> {
    let (results, records) = refset::records(&a.reference, &REQUIRED)?;
    let records: Vec<&Record> = records
        .iter()
        .filter(|r| a.only.as_deref().is_none_or(|o| r.trace().contains(o)))
        .collect();
    if records.is_empty() {
        bail!("{}: no run selected", results.display());
    }
    let tmp = tempfile::tempdir()?;
    let (config, label) = match &a.config {
        Some(c) => (c.clone(), c.clone()),
        None => reference_config(&a.reference, tmp.path())?,
    };
    // Read once (options not modelled are listed once), then every run reads the result.
    let effective = tmp.path().join("effective.toml");
    std::fs::write(&effective, crate::cmd::sim::load_config(&config)?.to_toml())?;
    let config = effective.display().to_string();
    let bar = ProgressBar::new(records.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("calibrating [{bar:30}] {pos}/{len} runs {msg}")
            .expect("valid template"),
    );
    // Every trace unpacked and checked against its records before the first run.
    let dirs = refset::unpack_all(&a.reference, &records, tmp.path(), &mut |name| {
        bar.set_message(format!("checking {name}"))
    })?;
    let mut rows = vec![];
    for r in &records {
        let name = r.trace();
        bar.set_message(format!("{name} {}", r.gpusched_warp_sched));
        let dir = dirs[&name].clone();
        let run = RunParser::try_parse_from([
            "--config",
            &config,
            "--warp-sched",
            &r.gpusched_warp_sched,
        ])
        .map_err(|e| r.error(e.render().to_string().trim_end()))?
        .run;
        let report = match simulate(&run, &mut || open_workload(Some(&dir), None, ""), &name)? {
            Ok(rep) => rep,
            Err(_) => bail!(r.error("the run failed")),
        };
        rows.push(row(r, &serde_json::to_value(&report)?)?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    // Rankings over the traces with every scheduler.
    let mut by_trace: BTreeMap<&str, Vec<&CalRow>> = BTreeMap::new();
    for r in &rows {
        by_trace.entry(&r.trace).or_default().push(r);
    }
    let mut rankings = vec![];
    for (trace, rs) in &by_trace {
        if rs.len() < 2 {
            continue;
        }
        let ours: Vec<(char, f64)> = rs
            .iter()
            .map(|r| (letter(&r.scheduler), r.cycles as f64))
            .collect();
        let theirs: Vec<(char, f64)> = rs
            .iter()
            .map(|r| (letter(&r.scheduler), r.reference_cycles as f64))
            .collect();
        let (lo, hi) = theirs.iter().fold((f64::INFINITY, 0f64), |(lo, hi), c| {
            (lo.min(c.1), hi.max(c.1))
        });
        let (fo, ft) = (fastest(&ours), fastest(&theirs));
        rankings.push(Ranking {
            trace: trace.to_string(),
            ours: order(&ours),
            reference: order(&theirs),
            same_fastest: fo.iter().any(|c| ft.contains(c)),
            reference_spread_over_3pct: hi > lo * 1.03,
        });
    }
    let abs: Vec<f64> = rows.iter().map(|r| r.error.abs()).collect();
    let mut worst: Vec<&CalRow> = rows.iter().collect();
    worst.sort_by(|a, b| b.error.abs().total_cmp(&a.error.abs()));
    let compared: Vec<&Ranking> = rankings
        .iter()
        .filter(|k| k.reference_spread_over_3pct)
        .collect();
    let report = CalReport {
        reference: a.reference.clone(),
        config: label,
        mean_abs_error: abs.iter().sum::<f64>() / abs.len() as f64,
        median_abs_error: median(abs.clone()),
        median_cycle_ratio: median(
            rows.iter()
                .map(|r| r.reference_cycles as f64 / r.cycles.max(1) as f64)
                .collect(),
        ),
        worst: worst
            .iter()
            .take(5)
            .map(|r| format!("{} {} {:+.1}%", r.trace, r.scheduler, r.error * 100.0))
            .collect(),
        fastest_agree: compared.iter().filter(|k| k.same_fastest).count(),
        fastest_compared: compared.len(),
        runs: rows,
        rankings,
    };
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!("| trace | scheduler | ours | reference | error | L1D read sector misses (ours / ref) | L2 sector accesses (ours / ref) | L2 read sector misses (ours / ref) | DRAM read MB (ours / ref) |");
    outln!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let show = |p: &Option<Pair>, scale: f64| match p {
        Some(p) => format!("{:.0} / {:.0}", p.ours / scale, p.reference / scale),
        None => "-".into(),
    };
    for r in &report.runs {
        outln!(
            "| {} | {} | {} | {} | {:+.1}% | {} | {} | {} | {} |",
            r.trace,
            r.scheduler,
            r.cycles,
            r.reference_cycles,
            r.error * 100.0,
            show(&r.l1d_read_misses, 1.0),
            show(&r.l2_sector_accesses, 1.0),
            show(&r.l2_read_misses, 1.0),
            match &r.dram_read_bytes {
                Some(p) => format!("{:.2} / {:.2}", p.ours / 1e6, p.reference / 1e6),
                None => "-".into(),
            },
        );
    }
    outln!();
    outln!("| trace | order (ours) | order (reference) | same fastest |");
    outln!("|---|---|---|---|");
    for k in &report.rankings {
        outln!(
            "| {} | {} | {} | {}{} |",
            k.trace,
            k.ours,
            k.reference,
            if k.same_fastest { "yes" } else { "no" },
            if k.reference_spread_over_3pct {
                ""
            } else {
                " (reference within 3%)"
            }
        );
    }
    outln!();
    outln!("configuration: {}", report.config);
    outln!(
        "{} runs: mean |error| {:.1}%, median {:.1}%, median reference/ours {:.2}; worst: {}; same fastest scheduler on {} of {} traces where the reference's schedulers differ by more than 3%",
        report.runs.len(),
        report.mean_abs_error * 100.0,
        report.median_abs_error * 100.0,
        report.median_cycle_ratio,
        report.worst.join(", "),
        report.fastest_agree,
        report.fastest_compared
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_list_the_fastest_first_and_join_ties() {
        assert_eq!(order(&[('L', 100.0), ('G', 90.0), ('T', 100.5)]), "G<L=T");
        assert_eq!(order(&[('L', 100.0), ('G', 100.0), ('T', 100.0)]), "G=L=T");
        assert_eq!(
            fastest(&[('L', 100.0), ('G', 100.9), ('T', 120.0)]),
            ['L', 'G']
        );
    }
}
