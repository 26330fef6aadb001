//! `gpusched bench`: speed of the golden GPU model on a fixed workload set on `gtx480`,
//! single simulation thread (the trace reader runs ahead on a second one): simulated thread
//! instructions per second, cycles per second, peak memory per workload, and for traces the
//! time the reader alone takes (its share of the run). Each workload runs `--repeat` times;
//! figures are medians. The set: the built-in `stream` and `compute` (large), the two real
//! traces, and the instruction-dense suite kernels at the sizes of the Accel-Sim reference set
//! (`mm` small and medium, `compute` medium, `syrk` small, `lud` small and medium), exported as
//! traces first.
//!
//! `gpusched bench --parse`: the trace reader alone (parse and decode, no simulation) on a
//! large exported trace (`mm` medium, about 400 MB) or `--trace DIR`: MB/s of trace text and
//! warp instructions/s; with `--xz`, the same on an xz copy, and the ratio of the times.
//!
//! `gpusched bench --mix FILE`: a mix run beside its kernels alone ([`mix`]).
//!
//! `gpusched bench --reference DIR`: wall time and peak memory of whole `gpusched sim` runs
//! beside Accel-Sim's, run by run ([`reference`]).
//!
//! `gpusched bench --cosim`: every Verilated module's co-simulation speed ([`cosim`]).
//!
//! `--markdown` prints the suite's, `--parse`'s, `--cosim`'s and `--lockstep`'s figures as the
//! tables of docs/src/results/speed.md, `--reference`'s as speed-side-by-side.md's.
//!
//! `gpusched bench --paver`: PAVER's JIT pass (graph build and partitioning, up to a kernel of
//! 10^5 blocks) and its golden dispatcher's cost per simulated cycle ([`paver`]).
//!
//! `gpusched bench --lockstep`: the cost of checking the Verilated blocks in lockstep inside
//! the GPU, on `stream` (large) on `gtx480`: GTO with its 30 warp arbiters, and ELF++ with its
//! 15 ELF and 15 NewCAR blocks, each against the golden run (median wall times, their ratio,
//! and whether every statistic is identical).

mod cosim;
mod markdown;
mod mix;
mod paver;
mod reference;

use crate::cmd::median;
use anyhow::{Context, Result};
use clap::Args;
use gpusim::config::GpuConfig;
use gpusim::gpu::{Gpu, Report, SimOptions};
use gpusim::workload::accelsim::{read_kernelslist, Command, KernelTrace};
use gpusim::workload::builtin;
use gpusim::workload::kernel::{TraceWorkload, WorkloadSource, KEEP_BLOCK_BYTES};
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
    /// The suite's runs with every SM stepped in every cycle (`gpusched sim --no-sm-sleep`):
    /// what sleeping SMs save.
    #[arg(long, conflicts_with_all = ["cosim", "parse", "reference", "mix", "paver", "lockstep"])]
    no_sm_sleep: bool,
    /// Print Markdown tables (the suite, `--parse`, `--cosim`, `--lockstep` or `--reference`),
    /// as docs/src/results/speed.md and speed-side-by-side.md hold them.
    #[arg(long, conflicts_with_all = ["json", "mix"])]
    markdown: bool,
    /// Measure every Verilated module in co-simulation instead (random stimulus against its
    /// golden model, as `gpusched cosim`; needs a build with Verilator): M cycles/s each.
    #[arg(long, conflicts_with_all = ["lockstep", "reference", "parse", "mix"])]
    cosim: bool,
    /// With `--cosim`: cycles per module (at most the block's own regression length).
    #[arg(long, value_name = "N", default_value_t = 3_000_000, requires = "cosim",
          value_parser = clap::value_parser!(u64).range(1..))]
    cycles: u64,
    /// Measure the trace reader alone instead, on an exported `mm` medium trace or `--trace`.
    #[arg(long, conflicts_with_all = ["lockstep", "reference"])]
    parse: bool,
    /// With `--parse`: the trace directory to read instead of an exported `mm` medium.
    #[arg(long, value_name = "DIR", requires = "parse")]
    trace: Option<PathBuf>,
    /// With `--parse`: also read an xz copy of the trace (written first, preset 6, as
    /// Accel-Sim's tracer writes them) and compare the two.
    #[arg(long, requires = "parse")]
    xz: bool,
    /// Compare whole `gpusched sim` runs with a reference set (`results.json` and
    /// `traces/*.tar.xz`, e.g. ../shared/reference/accelsim): wall time and peak memory.
    #[arg(long, value_name = "DIR", conflicts_with = "lockstep")]
    reference: Option<PathBuf>,
    /// With `--reference`: only the traces whose name (`<workload>-<size>`) contains this.
    #[arg(long, value_name = "NAME", requires = "reference")]
    only: Option<String>,
    /// With `--reference`: a local Accel-Sim build (`accel-sim.out`) run beside ours,
    /// alternating, one process at a time, instead of the recorded wall times and memories
    /// (how to build it: docs/src/calibrating-against-your-accel-sim-runs.md).
    #[arg(long, value_name = "BIN", requires = "reference")]
    accel_sim: Option<PathBuf>,
    /// With `--accel-sim`: its `gpgpusim.config` (the files beside it are copied with it)
    /// [default: <reference>/config/gpgpusim.config].
    #[arg(long, value_name = "FILE", requires = "accel_sim")]
    accel_sim_config: Option<PathBuf>,
    /// Measure a mix instead (a mix file): the mix under `--kernel-sched smk` and `serial`
    /// beside each of its kernels alone, thread instructions/s.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["lockstep", "reference", "parse"])]
    mix: Option<PathBuf>,
    /// Measure PAVER's JIT pass and dispatcher instead: graph build and partitioning of every
    /// kernel of `repro paver` and of a 10^5-block kernel, and golden runs under LRR, MST-TS
    /// and RB-TS.
    #[arg(long, conflicts_with_all = ["lockstep", "reference", "parse", "mix", "cosim", "markdown"])]
    paver: bool,
    /// With `--paver`: the suite size of its kernels.
    #[arg(long, default_value = "large", requires = "paver",
          value_parser = clap::builder::PossibleValuesParser::new(gpusim::workload::synth::suite::SIZES))]
    size: String,
    /// Measure the lockstep overhead instead (needs a build with Verilator).
    #[arg(long)]
    lockstep: bool,
    /// RTL threads of the lockstep runs (0: one per core).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "lockstep",
          value_parser = gpusched_tb::batch::parse_rtl_threads)]
    rtl_threads: usize,
}

/// A case of `bench --lockstep`: a suite kernel on `gtx480` under `options`, golden, then with
/// `blocks` in lockstep.
struct LockstepCase {
    name: &'static str,
    options: &'static str,
    workload: &'static str,
    size: &'static str,
    blocks: &'static [&'static str],
    /// The target for the lockstep / golden time ratio.
    target: f64,
}

/// The cases: the baseline arbiter and ELF++ on a streaming kernel, and seed 000's locality
/// blocks, each and both, on the kernel its dispatcher was measured on (issue 58: every block
/// set at most 1.5x the golden run). The dispatcher runs with the RTL's window of 32, on its
/// `parallel` engine (`base`) and on its `serial` one; LAWS as `base` and as `scan`.
const LOCKSTEP_CASES: &[LockstepCase] = &[
    LockstepCase {
        name: "gto",
        options: "",
        workload: "stream",
        size: "large",
        blocks: &["warp_arbiter"],
        target: 1.25,
    },
    LockstepCase {
        name: "elf++",
        options: "--warp-sched elf++",
        workload: "stream",
        size: "large",
        blocks: &["elf", "newcar"],
        target: 1.5,
    },
    LockstepCase {
        name: "la-tb",
        options: "--tb-sched locality --la-window 32 --warp-sched gto",
        workload: "locality_col",
        size: "small",
        blocks: &["la_tb_dispatch"],
        target: 1.5,
    },
    LockstepCase {
        name: "la-tb serial",
        options: "--tb-sched locality --la-window 32 --la-engine serial --warp-sched gto",
        workload: "locality_col",
        size: "small",
        blocks: &["la_tb_dispatch"],
        target: 1.5,
    },
    LockstepCase {
        name: "laws",
        options: "--warp-sched laws",
        workload: "locality_col",
        size: "small",
        blocks: &["locality_degree"],
        target: 1.5,
    },
    LockstepCase {
        name: "laws scan",
        options: "--warp-sched laws --la-search scan",
        workload: "locality_col",
        size: "small",
        blocks: &["locality_degree"],
        target: 1.5,
    },
    LockstepCase {
        name: "la-tb+laws",
        options: "--tb-sched locality --la-window 32 --warp-sched laws",
        workload: "locality_col",
        size: "small",
        blocks: &["la_tb_dispatch", "locality_degree"],
        target: 1.5,
    },
];

/// One lockstep case of `bench --lockstep`.
#[derive(Serialize)]
struct LockstepRow {
    case: &'static str,
    /// The suite kernel and size.
    workload: String,
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
    /// Peak resident memory during this workload's runs, MB.
    peak_rss_mb: f64,
    /// Traces: median time of the reader alone (parse and decode every block), seconds, and
    /// its share of the run's time (the run overlaps it with simulating when the trace is
    /// large enough to be read ahead).
    parse_seconds: Option<f64>,
    parse_share: Option<f64>,
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
    /// The largest peak resident memory of a workload, MB.
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

/// Starts a new peak-memory measurement (Linux: writing 5 to `/proc/self/clear_refs` resets
/// VmHWM to the current resident size).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

type Opener = Box<dyn Fn() -> Result<Box<dyn WorkloadSource>>>;

/// A workload of the set: its name, how to open it, and its trace directory if it is one.
struct Workload {
    name: String,
    open: Opener,
    trace: Option<PathBuf>,
}

/// The instruction-dense suite kernels at the sizes of the Accel-Sim reference set.
const DENSE: [(&str, &str); 6] = [
    ("mm", "small"),
    ("mm", "medium"),
    ("compute", "medium"),
    ("syrk", "small"),
    ("lud", "small"),
    ("lud", "medium"),
];

/// Exports suite kernel `name` at `size` as a trace into `dir/<name>-<size>`.
fn export(name: &str, size: &str, dir: &Path) -> Result<PathBuf> {
    let out = dir.join(format!("{name}-{size}"));
    let mut w = gpusim::workload::open_named(name, size)?;
    gpusim::workload::export::export(&mut *w, &out, &mut |_| {})?;
    Ok(out)
}

fn trace_workload(name: String, dir: PathBuf) -> Workload {
    let d = dir.clone();
    Workload {
        name,
        open: Box::new(move || Ok(Box::new(TraceWorkload::open(&d)?) as _)),
        trace: Some(dir),
    }
}

fn workloads(traces: &Path, exported: &Path) -> Result<Vec<Workload>> {
    let mut v = vec![];
    for (name, size) in [("stream", "large"), ("compute", "large")] {
        v.push(Workload {
            name: format!("{name}_{size}"),
            open: Box::new(move || Ok(Box::new(builtin::workload(name, size)?) as _)),
            trace: None,
        });
    }
    for t in ["vectoradd-100-32", "matrixmul-32-32"] {
        let dir = traces.join(t);
        if dir.is_dir() {
            v.push(trace_workload(t.to_string(), dir));
        } else {
            eprintln!("note: {} not found; skipped", dir.display());
        }
    }
    for (name, size) in DENSE {
        eprintln!("exporting {name} {size} as a trace...");
        let dir = export(name, size, exported)?;
        v.push(trace_workload(format!("{name}-{size} (trace)"), dir));
    }
    Ok(v)
}

/// Reads every block of every kernel of the trace `dir` as a run reads them (decoded, large
/// blocks indexed, with the checks of every reader; an xz kernel decoded first), without
/// simulating: (bytes of trace text, warp instructions).
fn read_trace(dir: &Path) -> Result<(u64, u64)> {
    let (mut bytes, mut insts) = (0, 0);
    for c in read_kernelslist(dir)? {
        let Command::Kernel { path } = c else {
            continue;
        };
        let mut k = KernelTrace::open(&path)?;
        let mut count = |_, _, _, _: &_| insts += 1;
        k.read_every_block(KEEP_BLOCK_BYTES, &mut count, &mut |_| {
            std::hint::black_box(());
        })?;
        bytes += k.plain().text_len()?;
    }
    Ok((bytes, insts))
}

/// Median seconds of `repeat` reads of the trace `dir`, with its bytes and warp instructions.
fn time_read(dir: &Path, repeat: usize) -> Result<ParseFigures> {
    let mut times = vec![];
    let mut sizes = (0, 0);
    for _ in 0..repeat {
        let start = Instant::now();
        sizes = read_trace(dir)?;
        times.push(start.elapsed().as_secs_f64());
    }
    let seconds = median(times);
    Ok(ParseFigures {
        trace: dir.to_path_buf(),
        bytes: sizes.0,
        warp_instructions: sizes.1,
        seconds,
        mb_per_s: sizes.0 as f64 / 1e6 / seconds,
        warp_instructions_per_s: sizes.1 as f64 / seconds,
    })
}

/// What `bench --parse` measured on one trace directory (medians).
#[derive(Serialize)]
struct ParseFigures {
    trace: PathBuf,
    /// Bytes of trace text (decoded, for an xz trace).
    bytes: u64,
    warp_instructions: u64,
    seconds: f64,
    /// Megabytes of trace text per second.
    mb_per_s: f64,
    warp_instructions_per_s: f64,
}

/// Writes every kernel of the trace `dir` again as xz (preset 6) into `out`.
fn xz_copy(dir: &Path, out: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(out)?;
    let mut list = String::new();
    for c in read_kernelslist(dir)? {
        let Command::Kernel { path } = c else {
            continue;
        };
        let name = format!(
            "{}.xz",
            path.file_name()
                .context("a kernel file")?
                .to_string_lossy()
                .trim_end_matches(".xz")
        );
        let plain = gpusim::workload::compressed::PlainTrace::open(&path)?;
        let mut w = gpusim::workload::compressed::TraceWriter::create(&out.join(&name), Some(6))?;
        std::io::copy(&mut plain.open_text()?, &mut w)?;
        w.finish()?;
        list.push_str(&name);
        list.push('\n');
    }
    std::fs::write(out.join("kernelslist.g"), list)?;
    Ok(out.to_path_buf())
}

/// One line of `bench --parse`.
fn parse_line(f: &ParseFigures, repeat: usize) -> String {
    format!(
        "{}: {:.1} MB of text, {} warp instructions, median of {repeat}: {:.3} s, {:.0} MB/s, {:.2} M warp instructions/s (reader alone, one thread)",
        f.trace.display(),
        f.bytes as f64 / 1e6,
        f.warp_instructions,
        f.seconds,
        f.mb_per_s,
        f.warp_instructions_per_s / 1e6
    )
}

/// Runs `bench --parse`.
fn run_parse(a: &BenchArgs) -> Result<ExitCode> {
    let tmp = tempfile::tempdir()?;
    let dir = match &a.trace {
        Some(d) => d.clone(),
        None => {
            eprintln!("exporting mm medium as a trace (about 400 MB)...");
            export("mm", "medium", tmp.path())?
        }
    };
    let repeat = a.repeat.max(1);
    let plain = time_read(&dir, repeat)?;
    let xz = if a.xz {
        eprintln!("writing an xz copy of {}...", dir.display());
        let copy = xz_copy(&dir, &tmp.path().join("xz"))?;
        Some(time_read(&copy, repeat)?)
    } else {
        None
    };
    let ratio = xz.as_ref().map(|x| x.seconds / plain.seconds);
    if a.markdown {
        let name = match &a.trace {
            Some(d) => d.display().to_string(),
            None => "mm-medium (exported)".into(),
        };
        outln!("{}", markdown::parse(&name, &plain, xz.as_ref(), repeat));
    } else if a.json {
        let mut v = serde_json::to_value(&plain)?;
        v["repeat"] = repeat.into();
        if let (Some(x), Some(r)) = (&xz, ratio) {
            v["xz"] = serde_json::to_value(x)?;
            v["xz_seconds_over_plain"] = r.into();
        }
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        outln!("{}", parse_line(&plain, repeat));
        if let (Some(x), Some(r)) = (&xz, ratio) {
            outln!("{}", parse_line(x, repeat));
            outln!("xz / plain: {r:.2}x the time (the xz stream decoded on a second thread into a temporary file the reader follows)");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Median wall time of `repeat` golden runs of the workload `open` opens (opened before each
/// run starts its clock), with the last run's report.
fn timed_run(
    cfg: &GpuConfig,
    opts: &SimOptions,
    open: &dyn Fn() -> Result<Box<dyn WorkloadSource>>,
    repeat: usize,
) -> Result<(f64, Report)> {
    let mut times = vec![];
    let mut last = None;
    for _ in 0..repeat.max(1) {
        let mut source = open()?;
        let mut gpu = Gpu::golden(cfg, opts.clone())?;
        let start = Instant::now();
        let r = gpu.run(source.as_mut(), &mut |_| {})?;
        times.push(start.elapsed().as_secs_f64());
        last = Some(r);
    }
    Ok((median(times), last.expect("repeat >= 1")))
}

/// Runs `bench`.
pub fn run(a: BenchArgs) -> Result<ExitCode> {
    if a.lockstep {
        return run_lockstep(&a);
    }
    if a.cosim {
        return cosim::run(a.cycles, a.repeat, a.json, a.markdown);
    }
    if a.parse {
        return run_parse(&a);
    }
    if let Some(r) = &a.reference {
        let accel = a.accel_sim.as_ref().map(|bin| reference::AccelSim {
            bin: bin.clone(),
            config: (a.accel_sim_config.clone())
                .unwrap_or_else(|| r.join("config").join("gpgpusim.config")),
        });
        let only = a.only.as_deref();
        return reference::run(r, a.repeat, a.json, only, accel.as_ref(), a.markdown);
    }
    if let Some(m) = &a.mix {
        return mix::run(m, a.repeat, a.json);
    }
    if a.paver {
        return paver::run(&a.size, a.repeat, a.json);
    }
    let cfg = GpuConfig::preset("gtx480")?;
    let repeat = a.repeat.max(1);
    let tmp = tempfile::tempdir()?;
    let mut rows = vec![];
    for w in workloads(&a.traces, tmp.path())? {
        reset_peak_rss();
        let opts = SimOptions {
            sm_sleep: !a.no_sm_sleep,
            ..SimOptions::default()
        };
        let (seconds, r) = timed_run(&cfg, &opts, &*w.open, repeat)?;
        let peak = peak_rss_mb();
        let parse_seconds = match &w.trace {
            Some(d) => Some(time_read(d, repeat)?.seconds),
            None => None,
        };
        let c = &r.counters;
        let row = Row {
            workload: w.name,
            thread_instructions: c.thread_instructions,
            cycles: c.cycles,
            seconds,
            thread_instructions_per_s: c.thread_instructions as f64 / seconds,
            cycles_per_s: c.cycles as f64 / seconds,
            peak_rss_mb: peak,
            parse_seconds,
            parse_share: parse_seconds.map(|p| p / seconds),
        };
        if !a.json && !a.markdown {
            eprintln!(
                "{:<22} {:>10} thread insts {:>7} cycles {:>7.3} s {:>7.2} M thread-insts/s {:>6.0} k cycles/s {:>6.1} MB{}",
                row.workload,
                row.thread_instructions,
                row.cycles,
                row.seconds,
                row.thread_instructions_per_s / 1e6,
                row.cycles_per_s / 1e3,
                row.peak_rss_mb,
                match (row.parse_seconds, row.parse_share) {
                    (Some(p), Some(s)) => format!("  reader alone {p:.3} s ({:.0}% of the run)", s * 100.0),
                    _ => String::new(),
                }
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
        peak_rss_mb: rows.iter().map(|r| r.peak_rss_mb).fold(0.0, f64::max),
        workloads: rows,
    };
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else if a.markdown {
        outln!("{}", markdown::suite(&report));
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
    let threads = gpusched_tb::batch::thread_count(a.rtl_threads);
    if !a.json && !a.markdown {
        eprintln!("gtx480, median of {repeat}, {threads} RTL thread(s)");
    }
    let mut rows = vec![];
    for c in LOCKSTEP_CASES {
        let (case, blocks, target) = (c.name, c.blocks, c.target);
        let opts = SimOptions::parse(c.options)?;
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
                    &mut || Ok(gpusim::workload::open_named(c.workload, c.size)?),
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
            workload: format!("{} {}", c.workload, c.size),
            blocks: blocks.join(","),
            golden_seconds,
            lockstep_seconds,
            ratio: lockstep_seconds / golden_seconds,
            target,
            identical: golden == checked,
            cycles,
        };
        if !a.json && !a.markdown {
            eprintln!(
                "{:<10} {:<18} lockstep {:<29} {:>9} cycles  golden {:>7.3} s  lockstep {:>7.3} s  {:>5.2}x (target <= {:.2}x){}",
                row.case,
                row.workload,
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
                "config": "gtx480", "repeat": repeat,
                "rtl_threads": threads, "cases": rows,
            }))?
        );
    } else if a.markdown {
        outln!("{}", markdown::lockstep(&rows, repeat, threads));
    }
    Ok(if rows.iter().all(|r| r.identical) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
