//! `gpusched bench`: speed of the golden GPU model on a fixed workload set on `gtx480`,
//! single thread: simulated thread instructions per second, cycles per second, peak memory.
//! Each workload runs `--repeat` times; figures are medians.
//!
//! `gpusched bench --lockstep`: the cost of checking the Verilated blocks in lockstep inside
//! the GPU, on `stream` (large) on `gtx480`: GTO with its 30 warp arbiters, and ELF++ with its
//! 15 ELF and 15 NewCAR blocks, each against the golden run (median wall times, their ratio,
//! and whether every statistic is identical).

use anyhow::Result;
use clap::Args;
use gpusim::config::GpuConfig;
use gpusim::gpu::{Gpu, SimOptions};
use gpusim::workload::builtin;
use gpusim::workload::kernel::{TraceWorkload, WorkloadSource};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `gpusched bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Runs of each workload (figures are medians).
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Directory holding the real traces (vectoradd-100-32, matrixmul-32-32); skipped when
    /// absent.
    #[arg(long, value_name = "DIR", default_value_os_t = crate::cmd::default_traces())]
    traces: PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Measure the lockstep overhead instead (needs a build with Verilator).
    #[arg(long)]
    lockstep: bool,
    /// RTL threads of the lockstep runs (0: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    rtl_threads: usize,
}

/// One lockstep case of `bench --lockstep`.
#[derive(Serialize)]
struct LockstepRow {
    case: &'static str,
    blocks: String,
    /// Median wall time of the golden run, seconds.
    golden_seconds: f64,
    /// Median wall time of the lockstep run, seconds.
    lockstep_seconds: f64,
    /// `lockstep_seconds / golden_seconds`.
    ratio: f64,
    /// The target for the ratio.
    target: f64,
    /// Every statistic of the lockstep run equals the golden run's.
    identical: bool,
    cycles: u64,
}

/// Figures of one workload.
#[derive(Serialize)]
struct Row {
    workload: String,
    thread_instructions: u64,
    cycles: u64,
    /// Median wall time, seconds.
    seconds: f64,
    thread_instructions_per_s: f64,
    cycles_per_s: f64,
}

/// The whole benchmark.
#[derive(Serialize)]
struct BenchReport {
    config: &'static str,
    repeat: usize,
    workloads: Vec<Row>,
    /// Sum of thread instructions over the set, divided by the sum of median times.
    thread_instructions_per_s: f64,
    /// Sum of cycles over the set, divided by the sum of median times.
    cycles_per_s: f64,
    /// Peak resident memory of the process (VmHWM), MB.
    peak_rss_mb: f64,
}

/// Peak resident set size of this process, MB (Linux `/proc/self/status` VmHWM).
fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

type Opener = Box<dyn Fn() -> Result<Box<dyn WorkloadSource>>>;

fn workloads(traces: &Path) -> Vec<(String, Opener)> {
    let mut v: Vec<(String, Opener)> = vec![];
    for (name, size) in [("stream", "large"), ("compute", "large")] {
        v.push((
            format!("{name}_{size}"),
            Box::new(move || Ok(Box::new(builtin::workload(name, size)?) as _)),
        ));
    }
    for t in ["vectoradd-100-32", "matrixmul-32-32"] {
        let dir = traces.join(t);
        if dir.is_dir() {
            v.push((
                t.to_string(),
                Box::new(move || Ok(Box::new(TraceWorkload::open(&dir)?) as _)),
            ));
        } else {
            eprintln!("note: {} not found; skipped", dir.display());
        }
    }
    v
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Runs `bench`.
pub fn run(a: BenchArgs) -> Result<ExitCode> {
    if a.lockstep {
        return run_lockstep(&a);
    }
    let cfg = GpuConfig::preset("gtx480")?;
    let repeat = a.repeat.max(1);
    let mut rows = vec![];
    for (name, open) in workloads(&a.traces) {
        let mut times = vec![];
        let mut last = None;
        for _ in 0..repeat {
            let mut w = open()?;
            let mut gpu = Gpu::golden(&cfg, SimOptions::default())?;
            let start = Instant::now();
            let r = gpu.run(w.as_mut(), &mut |_| {})?;
            times.push(start.elapsed().as_secs_f64());
            last = Some(r);
        }
        let r = last.expect("repeat >= 1");
        let seconds = median(times);
        let c = &r.counters;
        let row = Row {
            workload: name,
            thread_instructions: c.thread_instructions,
            cycles: c.cycles,
            seconds,
            thread_instructions_per_s: c.thread_instructions as f64 / seconds,
            cycles_per_s: c.cycles as f64 / seconds,
        };
        if !a.json {
            eprintln!(
                "{:<20} {:>12} thread insts {:>9} cycles {:>8.3} s  {:>7.2} M thread-insts/s  {:>8.0} k cycles/s",
                row.workload,
                row.thread_instructions,
                row.cycles,
                row.seconds,
                row.thread_instructions_per_s / 1e6,
                row.cycles_per_s / 1e3
            );
        }
        rows.push(row);
    }
    let secs: f64 = rows.iter().map(|r| r.seconds).sum();
    let report = BenchReport {
        config: "gtx480",
        repeat,
        thread_instructions_per_s: rows.iter().map(|r| r.thread_instructions).sum::<u64>() as f64
            / secs,
        cycles_per_s: rows.iter().map(|r| r.cycles).sum::<u64>() as f64 / secs,
        workloads: rows,
        peak_rss_mb: peak_rss_mb(),
    };
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!(
            "gtx480, median of {repeat}: {:.2} M thread-instructions/s, {:.0} k cycles/s, peak RSS {:.1} MB",
            report.thread_instructions_per_s / 1e6,
            report.cycles_per_s / 1e3,
            report.peak_rss_mb
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `bench --lockstep`.
fn run_lockstep(a: &BenchArgs) -> Result<ExitCode> {
    use gpusched_tb::gpu::{run as run_gpu, BlockMode, Modes};
    use gpusched_tb::lockstep::LockstepConfig;
    if !gpusched_tb::rtl::VERILATOR_BUILT {
        anyhow::bail!(gpusched_tb::TbError::NoVerilator);
    }
    let cfg = GpuConfig::preset("gtx480")?;
    let repeat = a.repeat.max(1);
    let lockstep = LockstepConfig {
        rtl_threads: a.rtl_threads,
        ..Default::default()
    };
    let cases: [(&str, SimOptions, &[&str], f64); 2] = [
        ("gto", SimOptions::default(), &["warp_arbiter"], 1.25),
        (
            "elf++",
            SimOptions::elf_plus_plus(),
            &["elf", "newcar"],
            1.5,
        ),
    ];
    let threads = gpusched_tb::batch::thread_count(a.rtl_threads);
    if !a.json {
        eprintln!("gtx480, stream large, median of {repeat}, {threads} RTL thread(s)");
    }
    let mut rows = vec![];
    for (case, opts, blocks, target) in cases {
        let mut modes = Modes::default();
        for b in blocks {
            modes.set(b, BlockMode::Lockstep)?;
        }
        let timed = |modes: &Modes| -> Result<(f64, String, u64)> {
            let mut times = vec![];
            let mut last = None;
            for _ in 0..repeat {
                let start = Instant::now();
                let r = run_gpu(
                    &cfg,
                    &opts,
                    &mut || Ok(Box::new(builtin::workload("stream", "large")?) as _),
                    modes.clone(),
                    &lockstep,
                    &mut |_| {},
                )
                .map_err(|e| anyhow::anyhow!("{case}: {e}"))?;
                times.push(start.elapsed().as_secs_f64());
                last = Some(r);
            }
            let r = last.expect("repeat >= 1");
            Ok((median(times), serde_json::to_string(&r)?, r.counters.cycles))
        };
        let (golden_seconds, golden, cycles) = timed(&Modes::default())?;
        let (lockstep_seconds, checked, _) = timed(&modes)?;
        let row = LockstepRow {
            case,
            blocks: blocks.join(","),
            golden_seconds,
            lockstep_seconds,
            ratio: lockstep_seconds / golden_seconds,
            target,
            identical: golden == checked,
            cycles,
        };
        if !a.json {
            eprintln!(
                "{:<6} lockstep {:<17} {:>9} cycles  golden {:>7.3} s  lockstep {:>7.3} s  {:>5.2}x (target <= {:.2}x){}",
                row.case,
                row.blocks,
                row.cycles,
                row.golden_seconds,
                row.lockstep_seconds,
                row.ratio,
                row.target,
                if row.identical { "" } else { "  STATISTICS DIFFER" }
            );
        }
        rows.push(row);
    }
    if a.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "config": "gtx480", "workload": "stream_large", "repeat": repeat,
                "rtl_threads": threads, "cases": rows,
            }))?
        );
    }
    Ok(if rows.iter().all(|r| r.identical) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
