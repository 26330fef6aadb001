//! `gpusched repro paws`: Phase-Aware Warp Scheduling's evaluation (seed 002 L408-L422; spec
//! §3.2, §3.5, P-R5) on the golden GPU model: LRR, GTO and PAWS over the report's benchmarks
//! (vectorAdd as the shared trace, backprop, hotspot, bfs and lud as the suite's mirrors) and
//! the spec's two phase-structured kernels, on GPGPU-Sim 3.2.2's GTX480 (the report ran
//! GPGPU-Sim 3.x with a Fermi C2050) and the calibrated one side by side. The report's results
//! are qualitative: which of RR and GTO is better on each benchmark, and PAWS close to the
//! better one (the PACT paper's 99.2% and 98%, against two-level RR).

use super::chart;
use super::ReproArgs;
use anyhow::{Context, Result};
use gpusim::gpu::{Gpu, SimOptions};
use gpusim::workload::kernel::{TraceWorkload, WorkloadSource};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// The schedulers compared, in column order: (name, options).
const POLICIES: [(&str, &str); 3] = [
    ("lrr", "--warp-sched lrr"),
    ("gto", "--warp-sched gto"),
    ("paws", "--warp-sched paws"),
];

/// The workloads: (name, what the report says of it: the better baseline, L408-L416).
const WORKLOADS: &[(&str, &str)] = &[
    ("vectoradd-100-32", "GTO > RR; PAWS close to GTO"),
    ("bp", "GTO > RR > PAWS (P-R5)"),
    ("hs", "RR > GTO; PAWS close to RR"),
    ("bfs", "RR > GTO; PAWS close to RR"),
    ("lud", "RR > GTO; PAWS close to RR"),
    (
        "phase_msl",
        "App A, short phase mid-kernel: GTO > RR (spec §3.5)",
    ),
    (
        "phase_mls",
        "App B, long phase mid-kernel: RR > GTO (spec §3.5)",
    ),
];

/// One workload on one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// Cycles per scheduler, in [`POLICIES`] order.
    pub cycles: Vec<u64>,
    /// Phases PAWS found (summed over the kernels).
    pub phases: u64,
}

impl Cell {
    /// PAWS's performance relative to the better of LRR and GTO (1 = as good; cycles ratio).
    pub fn paws_of_best(&self) -> f64 {
        let best = self.cycles[0].min(self.cycles[1]) as f64;
        best / self.cycles[2].max(1) as f64
    }

    /// Which baseline is faster: `GTO`, `RR` or `tie`.
    pub fn better(&self) -> &'static str {
        match self.cycles[1].cmp(&self.cycles[0]) {
            std::cmp::Ordering::Less => "GTO",
            std::cmp::Ordering::Greater => "RR",
            std::cmp::Ordering::Equal => "tie",
        }
    }
}

/// One workload's row.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Workload.
    pub workload: String,
    /// What the report (or the spec, for the synthetic kernels) says of it.
    pub report: &'static str,
    /// Per configuration, in `Results::configs` order.
    pub cells: Vec<Cell>,
}

/// The whole result.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// `paws`.
    pub experiment: &'static str,
    /// The configurations, the report's simulator first.
    pub configs: Vec<String>,
    /// Suite size.
    pub size: String,
    /// The schedulers.
    pub policies: Vec<&'static str>,
    /// Per workload.
    pub rows: Vec<Row>,
    /// Per configuration: the geometric mean of PAWS relative to the better baseline.
    pub paws_of_best: Vec<f64>,
}

/// Opens workload `name`: a suite kernel at `size`, or a trace under `traces`.
fn open(name: &str, size: &str, traces: &Path) -> Result<Box<dyn WorkloadSource>> {
    let dir = traces.join(name);
    if dir.join("kernelslist.g").is_file() {
        return Ok(Box::new(TraceWorkload::open(&dir)?));
    }
    Ok(gpusim::workload::open_named(name, size)?)
}

/// Runs `name` under every scheduler on `config`.
fn measure(name: &str, size: &str, traces: &Path, config: &str) -> Result<Cell> {
    let cfg = crate::cmd::sim::load_config(config)?;
    let mut cycles = vec![];
    let mut phases = 0;
    for (_, args) in POLICIES {
        let opts = SimOptions::parse(args).expect("the columns parse");
        let mut gpu = Gpu::golden(&cfg, opts)?;
        let r = gpu.run(open(name, size, traces)?.as_mut(), &mut |_| {})?;
        cycles.push(r.counters.cycles);
        let found = r
            .kernels
            .iter()
            .filter_map(|k| k.prepared.get("paws_phases"));
        phases = phases.max(found.filter_map(|v| v.as_u64()).sum());
    }
    Ok(Cell { cycles, phases })
}

/// The geometric mean of `xs`.
fn geomean(xs: impl Iterator<Item = f64>) -> f64 {
    let (mut log, mut n) = (0.0, 0.0);
    for x in xs {
        log += x.ln();
        n += 1.0;
    }
    (log / f64::max(n, 1.0)).exp()
}

/// The Markdown report.
fn markdown(r: &Results) -> String {
    let mut md = format!(
        "# PAWS (seed 002): LRR, GTO and PAWS, size `{}`\n\n\
         Cycles per scheduler on each configuration (the report's simulator first), which \
         baseline is faster, and PAWS's performance relative to the faster one (100%: as \
         fast). The report's results are qualitative (L408-L416); its last column says what \
         it found.\n\n",
        r.size
    );
    let _ = write!(md, "| workload | phases |");
    for c in &r.configs {
        let _ = write!(md, " `{c}` LRR | GTO | PAWS | faster | PAWS / faster |");
    }
    let _ = writeln!(md, " the report |");
    let _ = write!(md, "|---|---:|");
    for _ in &r.configs {
        let _ = write!(md, "---:|---:|---:|---|---:|");
    }
    let _ = writeln!(md, "---|");
    for row in &r.rows {
        let _ = write!(md, "| {} | {} |", row.workload, row.cells[0].phases);
        for c in &row.cells {
            let _ = write!(
                md,
                " {} | {} | {} | {} | {:.1}% |",
                c.cycles[0],
                c.cycles[1],
                c.cycles[2],
                c.better(),
                100.0 * c.paws_of_best()
            );
        }
        let _ = writeln!(md, " {} |", row.report);
    }
    let _ = write!(md, "| **geometric mean** | |");
    for g in &r.paws_of_best {
        let _ = write!(md, " | | | | **{:.1}%** |", 100.0 * g);
    }
    let _ = writeln!(
        md,
        " PACT: 99.2% (GTO-favoured), 98% (RR-favoured), vs two-level RR |"
    );
    md
}

/// The chart: per workload, PAWS relative to the faster baseline on each configuration.
fn svg(r: &Results) -> Result<String> {
    let items: Vec<(String, Vec<Option<f64>>)> = r
        .rows
        .iter()
        .map(|row| {
            let v = row.cells.iter().map(|c| Some(100.0 * c.paws_of_best()));
            (row.workload.clone(), v.collect())
        })
        .collect();
    let series: Vec<String> = r.configs.clone();
    chart::grouped_bars(
        "PAWS relative to the faster of LRR and GTO",
        "% of the faster baseline's performance",
        &series,
        &items,
    )
}

/// Runs the experiment: every (workload, configuration) on `jobs` threads.
pub fn run(a: &ReproArgs, size: &str, out: &Path, jobs: usize) -> Result<ExitCode> {
    let configs: Vec<String> = match &a.config {
        Some(c) => vec![c.clone()],
        None => vec!["gtx480-3.2.2".into(), "gtx480".into()],
    };
    let mut workloads: Vec<(&str, &str)> = WORKLOADS
        .iter()
        .copied()
        .filter(|(w, _)| !w.contains('-') || a.traces.join(w).join("kernelslist.g").is_file())
        .collect();
    if !a.only.is_empty() {
        workloads.retain(|(w, _)| a.only.iter().any(|o| o == w));
    }
    if workloads.is_empty() {
        anyhow::bail!("no workload to run (--only names none of the experiment's)");
    }
    let points: Vec<(usize, usize)> = (0..workloads.len())
        .flat_map(|w| (0..configs.len()).map(move |c| (w, c)))
        .collect();
    let mut cells = super::pool::map(jobs, &points, &|&(w, c)| {
        measure(workloads[w].0, size, &a.traces, &configs[c])
            .with_context(|| format!("{} on {}", workloads[w].0, configs[c]))
    })?
    .into_iter();
    let rows: Vec<Row> = workloads
        .iter()
        .map(|(w, report)| Row {
            workload: w.to_string(),
            report,
            cells: cells.by_ref().take(configs.len()).collect(),
        })
        .collect();
    let paws_of_best = (0..configs.len())
        .map(|c| geomean(rows.iter().map(|r| r.cells[c].paws_of_best())))
        .collect();
    let results = Results {
        experiment: "paws",
        configs,
        size: size.to_string(),
        policies: POLICIES.iter().map(|p| p.0).collect(),
        rows,
        paws_of_best,
    };
    write(a, &results, out)
}

/// Writes `paws.md`, `.json` and `.svg` into `out` and prints the Markdown (or the JSON).
fn write(a: &ReproArgs, r: &Results, out: &Path) -> Result<ExitCode> {
    let json = serde_json::to_string_pretty(r)?;
    super::files::write(out, "paws", (&markdown(r), &json, &svg(r)?), a.json)
}
