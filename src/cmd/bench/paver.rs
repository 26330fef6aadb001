//! `gpusched bench --paver`: the cost of PAVER's JIT pass and of its dispatcher, on one thread.
//!
//! * **JIT**: for every kernel of `repro paver`'s categories at `--size` on `gtx480`, the median
//!   wall time of building the locality graph and of each partitioner (MST-TS, kway-TS, RB-TS)
//!   on it; issue 53's target is graph + partitioning of the largest under 2 s. Then the same
//!   for a kernel of 10^5 blocks (`pf`'s pattern, [`suite::pf_of_blocks`]): more blocks than
//!   the dispatcher's 16-bit ids take, so it is partitioned here but never dispatched.
//! * **Dispatcher**: whole golden runs of a few kernels under LRR and under RB-TS and MST-TS;
//!   the run's wall time less the median JIT time of its scheme, over the simulated cycles,
//!   beside LRR's: what the golden `paver_tb` model costs per cycle.

use super::timed_run;
use crate::cmd::median;
use crate::cmd::repro::paver::CATEGORIES;
use anyhow::{bail, Context, Result};
use gpusim::analysis::paver::{self, LeafRule, PartitionParams, Scheme};
use gpusim::config::GpuConfig;
use gpusim::gpu::SimOptions;
use gpusim::workload::kernel::{KernelSource, WorkloadSource};
use gpusim::workload::synth::{self, suite};
use serde::Serialize;
use std::process::ExitCode;
use std::time::Instant;

/// Blocks of the scale kernel.
const SCALE_BLOCKS: u32 = 100_000;

/// Kernels whose golden runs measure the dispatcher (long enough for a wall time, and with
/// sharing for the schemes to act on).
const DISPATCH_KERNELS: &[&str] = &["mm", "spmv", "htw"];

/// The schemes in their column order.
const SCHEMES: [Scheme; 3] = [Scheme::Mst, Scheme::Kway, Scheme::Rb];

/// One kernel's JIT figures.
#[derive(Serialize)]
struct JitRow {
    /// `<workload>_<size>`.
    kernel: String,
    /// Thread blocks (graph vertices).
    blocks: u32,
    /// Graph edges.
    edges: u64,
    /// Median wall time of the graph build, seconds.
    build_seconds: f64,
    /// Median wall time of each partitioner on the graph (MST-TS, kway-TS, RB-TS), seconds.
    partition_seconds: [f64; 3],
    /// The build and the slowest partitioner, seconds.
    worst_jit_seconds: f64,
}

/// One kernel's dispatcher figures.
#[derive(Serialize)]
struct DispatchRow {
    /// `<workload>_<size>`.
    kernel: String,
    /// Per configuration (LRR, MST-TS, RB-TS): simulated cycles, median wall seconds of the run,
    /// the JIT's share subtracted, and k cycles per second of simulation.
    runs: Vec<DispatchRun>,
}

/// One golden run of [`DispatchRow`].
#[derive(Serialize)]
struct DispatchRun {
    /// `lrr`, `mst-ts` or `rb-ts`.
    tb_sched: &'static str,
    /// Simulated cycles.
    cycles: u64,
    /// Median wall time of the whole run, seconds.
    run_seconds: f64,
    /// Median JIT time of the scheme on this kernel (0 for LRR), seconds.
    jit_seconds: f64,
    /// `cycles / (run_seconds - jit_seconds)`, cycles per second.
    cycles_per_s: f64,
}

/// The whole benchmark.
#[derive(Serialize)]
struct PaverBench {
    config: &'static str,
    size: String,
    repeat: usize,
    jit: Vec<JitRow>,
    dispatch: Vec<DispatchRow>,
}

/// The single kernel of suite workload `name` at `size`.
fn suite_kernel(name: &str, size: &str) -> Result<Box<dyn KernelSource>> {
    let mut w = gpusim::workload::open_named(name, size)?;
    w.next_kernel()?
        .with_context(|| format!("workload {name} has no kernel"))
}

/// Median seconds of `repeat` calls of `f`, and its last result.
fn timed<T>(repeat: usize, mut f: impl FnMut() -> Result<T>) -> Result<(f64, T)> {
    let mut times = vec![];
    let mut last = None;
    for _ in 0..repeat {
        let start = Instant::now();
        last = Some(f()?);
        times.push(start.elapsed().as_secs_f64());
    }
    Ok((median(times), last.expect("repeat >= 1")))
}

/// The JIT figures of `kernel` with `params`.
fn jit_row(kernel: &dyn KernelSource, params: &PartitionParams, repeat: usize) -> Result<JitRow> {
    let name = kernel.info().name.clone();
    let (build_seconds, graph) = timed(repeat, || {
        let built = paver::build(kernel, paver::Granularity::Word)?;
        built
            .map(|(g, _)| g)
            .with_context(|| format!("kernel `{name}` cannot be visited for its addresses"))
    })?;
    let mut partition_seconds = [0.0; 3];
    for (s, scheme) in partition_seconds.iter_mut().zip(SCHEMES) {
        *s = timed(repeat, || Ok(paver::partition(&graph, scheme, params)))?.0;
    }
    let slowest = partition_seconds.iter().copied().fold(0.0, f64::max);
    Ok(JitRow {
        kernel: name,
        blocks: graph.vertices(),
        edges: graph.edges(),
        build_seconds,
        partition_seconds,
        worst_jit_seconds: build_seconds + slowest,
    })
}

/// The JIT rows: every kernel of `repro paver` at `size`, then the scale kernel.
fn jit_rows(cfg: &GpuConfig, size: &str, repeat: usize) -> Result<Vec<JitRow>> {
    let mut rows = vec![];
    let names = CATEGORIES.iter().flat_map(|(_, ks)| ks.iter());
    for name in names {
        let k = suite_kernel(name, size)?;
        let params = paver::params_for(cfg, k.info(), LeafRule::default())?;
        rows.push(jit_row(k.as_ref(), &params, repeat)?);
        print_jit(rows.last().expect("pushed"));
    }
    let mut w = synth::workload(suite::pf_of_blocks(SCALE_BLOCKS));
    let k = w.next_kernel()?.context("the scale kernel")?;
    let params = paver::params_for(cfg, k.info(), LeafRule::default())?;
    rows.push(jit_row(k.as_ref(), &params, repeat)?);
    print_jit(rows.last().expect("pushed"));
    Ok(rows)
}

fn print_jit(r: &JitRow) {
    eprintln!(
        "{:<22} {:>7} blocks {:>9} edges  build {:>7.3} s  MST {:>7.3} s  kway {:>7.3} s  RB {:>7.3} s",
        r.kernel,
        r.blocks,
        r.edges,
        r.build_seconds,
        r.partition_seconds[0],
        r.partition_seconds[1],
        r.partition_seconds[2]
    );
}

/// The dispatcher's configurations: `--tb-sched` and the scheme whose JIT time a run holds.
const DISPATCH_CONFIGS: [(&str, Option<usize>); 3] =
    [("lrr", None), ("mst-ts", Some(0)), ("rb-ts", Some(2))];

/// The dispatcher rows, each scheme's JIT time taken from `jit`. The configurations' runs are
/// interleaved (LRR, MST-TS, RB-TS, LRR, ...) so that the machine's drift falls on all three.
fn dispatch_rows(
    cfg: &GpuConfig,
    size: &str,
    repeat: usize,
    jit: &[JitRow],
) -> Result<Vec<DispatchRow>> {
    let mut rows = vec![];
    for name in DISPATCH_KERNELS {
        let kernel = format!("{name}_{size}");
        let Some(j) = jit.iter().find(|r| r.kernel == kernel) else {
            bail!("{kernel} is not among the JIT rows");
        };
        let open =
            || -> Result<Box<dyn WorkloadSource>> { Ok(gpusim::workload::open_named(name, size)?) };
        let opts = DISPATCH_CONFIGS
            .iter()
            .map(|(t, _)| SimOptions::parse(&format!("--tb-sched {t} --warp-sched gto")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut times = vec![vec![]; opts.len()];
        let mut cycles = vec![0; opts.len()];
        for _ in 0..repeat {
            for (i, o) in opts.iter().enumerate() {
                let (seconds, r) = timed_run(cfg, o, &open, 1)?;
                times[i].push(seconds);
                cycles[i] = r.counters.cycles;
            }
        }
        let mut runs = vec![];
        for ((&(tb_sched, scheme), t), cycles) in DISPATCH_CONFIGS.iter().zip(times).zip(cycles) {
            let jit_seconds = scheme.map_or(0.0, |s| j.build_seconds + j.partition_seconds[s]);
            let run_seconds = median(t);
            let run = DispatchRun {
                tb_sched,
                cycles,
                run_seconds,
                jit_seconds,
                cycles_per_s: cycles as f64 / (run_seconds - jit_seconds).max(1e-9),
            };
            eprintln!(
                "{kernel:<22} {tb_sched:<7} {cycles:>8} cycles  run {run_seconds:>7.3} s  JIT {jit_seconds:>6.3} s  {:>7.1} k cycles/s",
                run.cycles_per_s / 1e3
            );
            runs.push(run);
        }
        rows.push(DispatchRow { kernel, runs });
    }
    Ok(rows)
}

/// Runs `bench --paver`.
pub fn run(size: &str, repeat: usize, json: bool) -> Result<ExitCode> {
    let cfg = GpuConfig::preset("gtx480")?;
    let repeat = repeat.max(1);
    let jit = jit_rows(&cfg, size, repeat)?;
    let dispatch = dispatch_rows(&cfg, size, repeat, &jit)?;
    let b = PaverBench {
        config: "gtx480",
        size: size.to_string(),
        repeat,
        jit,
        dispatch,
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&b)?);
    } else {
        outln!("{}", summary(&b));
    }
    Ok(ExitCode::SUCCESS)
}

/// The benchmark's conclusions in three lines.
fn summary(b: &PaverBench) -> String {
    let suite_rows = &b.jit[..b.jit.len() - 1];
    let worst = suite_rows
        .iter()
        .max_by(|x, y| x.worst_jit_seconds.total_cmp(&y.worst_jit_seconds))
        .expect("the categories name kernels");
    let scale = b.jit.last().expect("the scale row");
    let mut s = format!(
        "gtx480, median of {}: the slowest JIT at `{}` is {} with {:.3} s (graph + slowest \
         partitioner; target 2 s)\n{} blocks: graph {:.2} s, partitioning {:.2} / {:.2} / {:.2} s \
         (MST / kway / RB)",
        b.repeat,
        b.size,
        worst.kernel,
        worst.worst_jit_seconds,
        scale.blocks,
        scale.build_seconds,
        scale.partition_seconds[0],
        scale.partition_seconds[1],
        scale.partition_seconds[2],
    );
    for d in &b.dispatch {
        let lrr = d.runs[0].cycles_per_s;
        let others: Vec<String> = d.runs[1..]
            .iter()
            .map(|r| {
                format!(
                    "{} {:+.1}%",
                    r.tb_sched,
                    (r.cycles_per_s / lrr - 1.0) * 100.0
                )
            })
            .collect();
        s += &format!(
            "\n{}: simulation speed beside LRR's ({:.0} k cycles/s), JIT excluded: {}",
            d.kernel,
            lrr / 1e3,
            others.join(", ")
        );
    }
    s
}
