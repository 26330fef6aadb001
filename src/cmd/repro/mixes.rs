//! Runs of kernel mixes for the multi-kernel experiments (`repro chimera`, `repro maestro`):
//! a mix's text under `gpusched sim` options, many at once with a progress bar, and the
//! multiprogram metrics of a run against each kernel alone.

use anyhow::{anyhow, Context, Result};
use gpusim::config::GpuConfig;
use gpusim::gpu::{Gpu, Report, SimOptions};
use gpusim::workload::mix::Mix;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One simulation: a mix (TOML text) under `args`, cut at `max_cycles`, on `config` (the
/// experiment's GPU when `None`).
pub struct Job {
    /// The mix.
    pub mix: String,
    /// `gpusched sim` options.
    pub args: String,
    /// Stop there.
    pub max_cycles: Option<u64>,
    /// Another GPU than the experiment's.
    pub config: Option<GpuConfig>,
}

impl Job {
    /// `mix` under `args` to the end, on the experiment's GPU.
    pub fn new(mix: String, args: impl Into<String>) -> Self {
        Self {
            mix,
            args: args.into(),
            max_cycles: None,
            config: None,
        }
    }
}

fn simulate(cfg: &GpuConfig, job: &Job) -> Result<Report> {
    let mut opts = SimOptions::parse(&job.args)?;
    opts.max_cycles = job.max_cycles;
    let mut mix = Mix::parse(&job.mix, Path::new("repro-mix.toml"))?;
    let mut gpu = Gpu::golden(job.config.as_ref().unwrap_or(cfg), opts)?;
    Ok(gpu.run(&mut mix, &mut |_| {})?)
}

/// Runs `jobs` (`par` at a time, with a progress bar `repro <experiment> <what>`), results in
/// order.
pub fn run_all(
    cfg: &GpuConfig,
    (experiment, what): (&str, &str),
    jobs: &[Job],
    par: usize,
) -> Result<Vec<Report>> {
    let bar = ProgressBar::new(jobs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("repro {prefix} [{bar:30}] {pos}/{len}, {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(format!("{experiment} {what}"));
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Result<Report>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..par.max(1).min(jobs.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = simulate(cfg, job)
                    .with_context(|| format!("{} under `{}`", job.mix.trim(), job.args));
                out.lock().expect("no panics")[i] = Some(r);
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    out.into_inner()
        .expect("no panics")
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(anyhow!("not run"))))
        .collect()
}

/// A mix's `[[kernel]]` entry: suite kernel `name` at `size` on `stream`, plus `extra` lines.
pub fn kernel(name: &str, size: &str, stream: u32, extra: &str) -> String {
    format!("[[kernel]]\nworkload = \"{name}\"\nsize = \"{size}\"\nstream = {stream}\n{extra}\n")
}

/// ANTT and STP of a run against the kernels alone (`alone`: cycles by kernel name; Eyerman's
/// metrics with each kernel's turnaround for its CPI, spec §2.5).
pub fn antt_stp(r: &Report, alone: &dyn Fn(&str) -> u64) -> (f64, f64) {
    let ntt: Vec<f64> = r
        .kernels
        .iter()
        .map(|k| k.turnaround as f64 / alone(&k.name).max(1) as f64)
        .collect();
    let antt = ntt.iter().sum::<f64>() / ntt.len().max(1) as f64;
    let stp = ntt.iter().map(|x| 1.0 / x).sum();
    (antt, stp)
}
