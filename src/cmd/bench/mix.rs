//! `gpusched bench --mix FILE`: the speed of a mix run beside its kernels run alone, on
//! `gtx480` with the default policies: the mix under `--kernel-sched smk` (its kernels share
//! SMs) and `serial`, and each kernel of the mix alone (a trace kernel: its whole trace).
//! Thread instructions per second of each (median wall time of `--repeat` runs), and the mix's
//! rate against the kernels' together (their thread instructions over their summed times).

use super::{timed_run, Opener};
use anyhow::Result;
use gpusim::config::GpuConfig;
use gpusim::gpu::SimOptions;
use gpusim::workload::kernel::{TraceWorkload, WorkloadSource};
use gpusim::workload::mix::{Alone, Mix};
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;

/// One run of the mix benchmark.
#[derive(Serialize)]
struct MixRow {
    /// `mix (<kernel scheduler>)` or the kernel run alone.
    run: String,
    thread_instructions: u64,
    cycles: u64,
    /// Median wall time, seconds.
    seconds: f64,
    thread_instructions_per_s: f64,
}

/// The whole mix benchmark.
#[derive(Serialize)]
struct MixBench {
    config: &'static str,
    mix: String,
    repeat: usize,
    runs: Vec<MixRow>,
    /// The kernels alone together: their thread instructions over their summed median times.
    alone_thread_instructions_per_s: f64,
    /// Per kernel scheduler: the mix's thread instructions/s over the kernels' alone.
    ratio: Vec<(String, f64)>,
}

/// Runs `bench --mix`.
pub fn run(path: &Path, repeat: usize, json: bool) -> Result<ExitCode> {
    let cfg = GpuConfig::preset("gtx480")?;
    let repeat = repeat.max(1);
    let mut runs = vec![];
    let mut row = |run: String, open: &dyn Fn() -> Result<Box<dyn WorkloadSource>>, opts| {
        let (seconds, r) = timed_run(&cfg, &opts, open, repeat)?;
        let c = &r.counters;
        let row = MixRow {
            run,
            thread_instructions: c.thread_instructions,
            cycles: c.cycles,
            seconds,
            thread_instructions_per_s: c.thread_instructions as f64 / seconds,
        };
        if !json {
            eprintln!(
                "{:<28} {:>10} thread insts {:>7} cycles {:>7.3} s {:>7.2} M thread-insts/s",
                row.run,
                row.thread_instructions,
                row.cycles,
                row.seconds,
                row.thread_instructions_per_s / 1e6
            );
        }
        runs.push(row);
        anyhow::Ok(())
    };
    let scheds = ["smk", "serial"];
    for sched in scheds {
        let opts = SimOptions::parse(&format!("--kernel-sched {sched}"))?;
        let open = || Ok(Box::new(Mix::open(path)?) as Box<dyn WorkloadSource>);
        row(format!("mix ({sched})"), &open, opts)?;
    }
    for alone in Mix::open(path)?.alone() {
        let (label, open): (String, Opener) = match alone.clone() {
            Alone::Named { name, size } => (
                format!("{name} {size} alone"),
                Box::new(move || Ok(gpusim::workload::open_named(&name, &size)?)),
            ),
            Alone::Trace { dir, .. } => (
                format!("{} alone", dir.display()),
                Box::new(move || Ok(Box::new(TraceWorkload::open(&dir)?) as _)),
            ),
        };
        row(label, &*open, SimOptions::default())?;
    }
    let alone = &runs[scheds.len()..];
    let alone_rate = alone.iter().map(|r| r.thread_instructions).sum::<u64>() as f64
        / alone.iter().map(|r| r.seconds).sum::<f64>();
    let report = MixBench {
        config: "gtx480",
        mix: path.display().to_string(),
        repeat,
        ratio: runs[..scheds.len()]
            .iter()
            .map(|r| (r.run.clone(), r.thread_instructions_per_s / alone_rate))
            .collect(),
        alone_thread_instructions_per_s: alone_rate,
        runs,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for (run, ratio) in &report.ratio {
            outln!(
                "{}, median of {repeat}: {run} {ratio:.3}x the thread-instructions/s of its kernels alone ({:.2} M/s)",
                report.mix,
                alone_rate / 1e6
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
