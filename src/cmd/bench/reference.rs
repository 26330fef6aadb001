//! `gpusched bench --reference DIR`: our wall time and peak memory beside Accel-Sim's, run by
//! run, on a reference set shaped like `../shared/reference/accelsim/`: `results.json` (one
//! record per trace and scheduler, with Accel-Sim's `wall_s`, `max_rss_mb` and
//! `gpu_sim_cycle`) and `traces/<workload>-<size>.tar.xz`.
//!
//! Every run is a whole `gpusched sim --trace T --config gtx480 --warp-sched P --json`
//! process, as the reference's figures were taken (process start included): its wall time
//! from spawn to exit and its peak resident memory (`ru_maxrss` from `wait4`), median and
//! maximum over `--repeat` runs. The cycles of every repeat must agree.

use crate::cmd::{median, refset};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

/// Our wall time must be at most 1/`SPEED_TARGET` of the reference's.
pub const SPEED_TARGET: f64 = 20.0;
/// Our peak memory must be at most 1/`RSS_TARGET` of the reference's.
pub const RSS_TARGET: f64 = 2.0;

/// One run, ours beside the reference's.
#[derive(Serialize)]
pub struct RefRow {
    /// `<workload>-<size>`.
    trace: String,
    /// Our warp scheduler (`lrr`, `gto`, `two-level`).
    scheduler: String,
    /// Reference wall time, seconds.
    reference_wall_s: f64,
    /// Our median wall time over the repeats, seconds (whole process).
    wall_s: f64,
    /// `reference_wall_s / wall_s`.
    speed_ratio: f64,
    /// Reference peak resident memory, MB.
    reference_rss_mb: f64,
    /// Our largest peak resident memory over the repeats, MB.
    rss_mb: f64,
    /// `reference_rss_mb / rss_mb`.
    rss_ratio: f64,
    /// Our cycles and the reference's (for orientation; `gpusched calibrate` compares them).
    cycles: u64,
    reference_cycles: u64,
}

/// The whole comparison.
#[derive(Serialize)]
struct RefReport {
    reference: PathBuf,
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
}

/// Wall time (s), peak resident memory (MB) and standard output of one child process.
fn measure(cmd: &mut Command) -> Result<(f64, f64, Vec<u8>)> {
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    // Standard error on its own thread, so neither pipe can fill while the other is read.
    let mut stderr = child.stderr.take().expect("piped");
    let err_reader = std::thread::spawn(move || {
        let mut err = vec![];
        let _ = stderr.read_to_end(&mut err);
        err
    });
    let mut out = vec![];
    let read = child.stdout.take().expect("piped").read_to_end(&mut out);
    let mut status = 0;
    // SAFETY: `rusage` is plain data that `wait4` fills; the child is ours and not reaped yet
    // (std reaps only in `wait`/`try_wait`, which are not called).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    let err = err_reader.join().unwrap_or_default();
    read.with_context(|| format!("reading the output of {cmd:?}"))?;
    if r != pid {
        bail!("wait4 on {cmd:?}: {}", std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        bail!(
            "{cmd:?} failed (status {status}): {}",
            String::from_utf8_lossy(&err).trim()
        );
    }
    // Linux reports ru_maxrss in KiB.
    Ok((wall, usage.ru_maxrss as f64 / 1024.0, out))
}

/// The reference's figures every record must have.
const REQUIRED: [&str; 3] = ["wall_s", "max_rss_mb", "gpu_sim_cycle"];

/// Runs `bench --reference`. `only`: run only the traces whose name contains it.
pub fn run(reference: &Path, repeat: usize, json: bool, only: Option<&str>) -> Result<ExitCode> {
    let (results, records) = refset::records(reference, &REQUIRED)?;
    let records: Vec<&refset::Record> = records
        .iter()
        .filter(|r| only.is_none_or(|o| r.trace().contains(o)))
        .collect();
    if records.is_empty() {
        bail!("{}: no run selected", results.display());
    }
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let tmp = tempfile::tempdir()?;
    let repeat = repeat.max(1);
    // Every trace unpacked and checked against its records before the first run.
    let dirs = refset::unpack_all(reference, &records, tmp.path(), &mut |_| {})?;
    let mut rows = vec![];
    for r in records {
        let name = r.trace();
        let dir = &dirs[&name];
        let (mut walls, mut rss, mut cycles) = (vec![], 0f64, None);
        for _ in 0..repeat {
            let (wall, peak, out) = measure(
                Command::new(&exe)
                    .args(["sim", "--config", "gtx480", "--json", "--warp-sched"])
                    .arg(&r.gpusched_warp_sched)
                    .arg("--trace")
                    .arg(dir),
            )?;
            let v: serde_json::Value = serde_json::from_slice(&out)
                .map_err(|e| r.error(format_args!("sim printed no JSON: {e}")))?;
            let c = v["cycles"].as_u64().context("no `cycles` in sim's JSON")?;
            if cycles.is_some_and(|k| k != c) {
                bail!(r.error("cycles differ between repeats"));
            }
            cycles = Some(c);
            walls.push(wall);
            rss = rss.max(peak);
        }
        let wall_s = median(walls);
        let (ref_wall, ref_rss) = (r.need("wall_s")?, r.need("max_rss_mb")?);
        let row = RefRow {
            trace: name,
            scheduler: r.gpusched_warp_sched.clone(),
            reference_wall_s: ref_wall,
            wall_s,
            speed_ratio: ref_wall / wall_s,
            reference_rss_mb: ref_rss,
            rss_mb: rss,
            rss_ratio: ref_rss / rss,
            cycles: cycles.expect("repeat >= 1"),
            reference_cycles: r.need("gpu_sim_cycle")? as u64,
        };
        if !json {
            eprintln!(
                "{:<22} {:<9} ref {:>8.2} s  ours {:>8.4} s  {:>6.1}x{}  ref {:>6.1} MB  ours {:>6.1} MB  {:>4.1}x{}",
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
            );
        }
        rows.push(row);
    }
    let speeds: Vec<f64> = rows.iter().map(|r| r.speed_ratio).collect();
    let report = RefReport {
        reference: reference.to_path_buf(),
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
        runs: rows,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!(
            "{} runs, median of {repeat}: speed ratio >= {SPEED_TARGET} on {} (min {:.1}, median {:.1}); memory ratio >= {RSS_TARGET} on {} (min {:.1})",
            report.runs.len(),
            report.speed_met,
            report.speed_ratio_min,
            report.speed_ratio_median,
            report.rss_met,
            report.rss_ratio_min
        );
    }
    Ok(ExitCode::SUCCESS)
}
