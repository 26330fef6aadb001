//! `gpusched repro paws`: Phase-Aware Warp Scheduling's evaluation (seed 002 L408-L422; spec
//! §3.2, §3.5, P-R1, P-R2, P-R5) on the golden GPU model: LRR, GTO and PAWS, and their
//! two-level forms TL-RR, TL-GTO and TL-PAWS (plus TL-PAWS with the key every cycle, the
//! spec's extension C8, reported apart) over the report's benchmarks
//! (vectorAdd as the shared trace, backprop, hotspot, bfs and lud as the suite's mirrors) and
//! the spec's two phase-structured kernels, on GPGPU-Sim 3.2.2's GTX480 (the report ran
//! GPGPU-Sim 3.x with a Fermi C2050) and the calibrated one side by side. The report's results
//! are qualitative: which of RR and GTO is better on each benchmark, and PAWS close to the
//! better one (the PACT paper's 99.2% and 98%, against two-level RR). A sweep of phase
//! kernels from App A to App B follows ([`sweep`]).

mod sweep;

use super::chart;
use super::ReproArgs;
use anyhow::{Context, Result};
use gpusim::gpu::{Gpu, SimOptions};
use gpusim::workload::kernel::{TraceWorkload, WorkloadSource};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// The schedulers compared, in column order: (name, options). Single level: 0-2; two-level
/// (`sm.two_level_max_active` warps, the report's ready queue of 6): 3-5, and 6 the extension.
const POLICIES: [(&str, &str); 7] = [
    ("lrr", "--warp-sched lrr"),
    ("gto", "--warp-sched gto"),
    ("paws", "--warp-sched paws"),
    ("tl_rr", "--warp-sched two_level"),
    ("tl_gto", "--warp-sched two_level_gto"),
    ("tl_paws", "--warp-sched paws --paws-levels two"),
    ("tl_paws_inner", "--warp-sched paws --paws-levels two-inner"),
];

/// The column of each scheduler's two-level form is its single-level column plus this.
const TWO_LEVEL: usize = 3;

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
    /// The performance of the scheduler in column `col` relative to the better of RR and GTO
    /// at the same level (`base` 0: single level, [`TWO_LEVEL`]: two-level); 1 = as good.
    pub fn of_best(&self, base: usize, col: usize) -> f64 {
        let best = self.cycles[base].min(self.cycles[base + 1]) as f64;
        best / self.cycles[col].max(1) as f64
    }

    /// PAWS relative to the better of LRR and GTO.
    pub fn paws_of_best(&self) -> f64 {
        self.of_best(0, 2)
    }

    /// TL-PAWS relative to the better of TL-RR and TL-GTO.
    pub fn tl_paws_of_best(&self) -> f64 {
        self.of_best(TWO_LEVEL, TWO_LEVEL + 2)
    }

    /// Which baseline is faster at a level: `GTO`, `RR` or `tie`.
    pub fn better(&self, base: usize) -> &'static str {
        match self.cycles[base + 1].cmp(&self.cycles[base]) {
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
    /// Per configuration: the same for TL-PAWS against TL-RR and TL-GTO.
    pub tl_paws_of_best: Vec<f64>,
    /// Per configuration: the same for TL-PAWS with the key every cycle (the extension).
    pub tl_inner_of_best: Vec<f64>,
    /// Per configuration: TL-PAWS relative to TL-RR (the PACT paper's comparison).
    pub tl_paws_of_tl_rr: Vec<f64>,
    /// The phase kernels from App A to App B ([`sweep`]; those `--only` names; none at a
    /// paper's size).
    pub sweep: Vec<sweep::Point>,
    /// Workloads left out: at a paper's size (`elf`: Rodinia's run-script inputs, the report
    /// giving none), the suite kernels without it (the phase kernels).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
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
    measure_with(&|| open(name, size, traces), config, &POLICIES)
}

/// Runs the workload `open` opens under each of `policies` on `config`.
fn measure_with(
    open: &dyn Fn() -> Result<Box<dyn WorkloadSource>>,
    config: &str,
    policies: &[(&str, &str)],
) -> Result<Cell> {
    let cfg = crate::cmd::sim::load_config(config)?;
    let mut cycles = vec![];
    let mut phases = 0;
    for (_, args) in policies {
        let opts = SimOptions::parse(args).expect("the columns parse");
        let mut gpu = Gpu::golden(&cfg, opts)?;
        let r = gpu.run(open()?.as_mut(), &mut |_| {})?;
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

/// One level's table: per configuration the three schedulers from column `base`, the faster
/// baseline and the third relative to it, then `extra` columns (header, value of a cell).
fn level_table(md: &mut String, r: &Results, base: usize, names: [&str; 3], extra: &[Extra]) {
    let _ = write!(md, "| workload | phases |");
    for c in &r.configs {
        let _ = write!(
            md,
            " `{c}` {} | {} | {} | faster | {} / faster |",
            names[0], names[1], names[2], names[2]
        );
        for (h, _) in extra {
            let _ = write!(md, " {h} |");
        }
    }
    let _ = writeln!(md, " the report |");
    let _ = write!(md, "|---|---:|");
    for _ in &r.configs {
        let _ = write!(md, "---:|---:|---:|---|---:|");
        for _ in extra {
            let _ = write!(md, "---:|");
        }
    }
    let _ = writeln!(md, "---|");
    for row in &r.rows {
        let _ = write!(md, "| {} | {} |", row.workload, row.cells[0].phases);
        for c in &row.cells {
            let _ = write!(
                md,
                " {} | {} | {} | {} | {:.1}% |",
                c.cycles[base],
                c.cycles[base + 1],
                c.cycles[base + 2],
                c.better(base),
                100.0 * c.of_best(base, base + 2)
            );
            for (_, f) in extra {
                let _ = write!(md, " {} |", f(c));
            }
        }
        let _ = writeln!(md, " {} |", row.report);
    }
}

/// TL-PAWS's performance relative to TL-RR (1 = as good).
fn tl_paws_of_tl_rr(c: &Cell) -> f64 {
    c.cycles[TWO_LEVEL] as f64 / c.cycles[TWO_LEVEL + 2].max(1) as f64
}

/// An extra column of a level's table: its header and its value for a cell.
type Extra = (&'static str, fn(&Cell) -> String);

/// The Markdown report.
fn markdown(r: &Results) -> String {
    let mut md = format!(
        "# PAWS (seed 002): LRR, GTO and PAWS, single level and two-level, size `{}`\n\n\
         Cycles per scheduler on each configuration (the report's simulator first), which \
         baseline is faster, and PAWS's performance relative to the faster one (100%: as \
         fast). The report's results are qualitative (L408-L416); its last column says what \
         it found for the single level (two-level: \"trends are similar\", L416).\n\n",
        r.size
    );
    if !r.left_out.is_empty() {
        let _ = writeln!(
            md,
            "Left out: {} (no `{}` size); the sweep from App A to App B runs at the suite's \
             sizes only.\n",
            r.left_out.join(", "),
            r.size
        );
    }
    md.push_str("## Single level\n\n");
    level_table(&mut md, r, 0, ["LRR", "GTO", "PAWS"], &[]);
    let _ = write!(md, "| **geometric mean** | |");
    for g in &r.paws_of_best {
        let _ = write!(md, " | | | | **{:.1}%** |", 100.0 * g);
    }
    let _ = writeln!(md, " |");
    let _ = write!(
        md,
        "\n## Two-level\n\n\
         Active lists of `sm.two_level_max_active` warps per scheduler (6, the report's ready \
         queue), demotion on a long-latency wait, promotion from the pending FIFO's head, inner \
         LRR (P-R2): TL-RR never sorts the active list, TL-GTO sorts it oldest first after a \
         promotion, TL-PAWS by (distance, age) (P-R1). TL-PAWS / TL-RR is the PACT paper's \
         comparison (99.2% and 98% are against two-level RR, P-R5). *inner*: TL-PAWS granting \
         the active warp of the smallest distance every cycle (spec C8, an extension, never \
         compared with the report).\n\n"
    );
    let extra: [Extra; 3] = [
        ("TL-PAWS / TL-RR", |c| {
            format!("{:.1}%", 100.0 * tl_paws_of_tl_rr(c))
        }),
        ("inner", |c| c.cycles[TWO_LEVEL + 3].to_string()),
        ("inner / faster", |c| {
            format!("{:.1}%", 100.0 * c.of_best(TWO_LEVEL, TWO_LEVEL + 3))
        }),
    ];
    level_table(
        &mut md,
        r,
        TWO_LEVEL,
        ["TL-RR", "TL-GTO", "TL-PAWS"],
        &extra,
    );
    let _ = write!(md, "| **geometric mean** | |");
    for c in 0..r.configs.len() {
        let _ = write!(
            md,
            " | | | | **{:.1}%** | **{:.1}%** | | **{:.1}%** |",
            100.0 * r.tl_paws_of_best[c],
            100.0 * r.tl_paws_of_tl_rr[c],
            100.0 * r.tl_inner_of_best[c]
        );
    }
    let _ = writeln!(
        md,
        " PACT: 99.2% (GTO-favoured), 98% (RR-favoured), vs two-level RR |"
    );
    if !r.sweep.is_empty() {
        sweep::markdown(&mut md, &r.configs, &r.sweep);
    }
    md
}

/// The chart: per workload, PAWS and TL-PAWS relative to the faster baseline of their level
/// on each configuration.
fn svg(r: &Results) -> Result<String> {
    let items: Vec<(String, Vec<Option<f64>>)> = r
        .rows
        .iter()
        .map(|row| {
            let v = row.cells.iter().flat_map(|c| {
                [
                    Some(100.0 * c.paws_of_best()),
                    Some(100.0 * c.tl_paws_of_best()),
                ]
            });
            (row.workload.clone(), v.collect())
        })
        .collect();
    let series: Vec<String> = (r.configs.iter())
        .flat_map(|c| [format!("PAWS, {c}"), format!("TL-PAWS, {c}")])
        .collect();
    chart::ours_grouped_bars(
        "PAWS relative to the faster of RR and GTO at its level",
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
    let keep = |w: &str| a.only.is_empty() || a.only.iter().any(|o| o == w);
    workloads.retain(|(w, _)| keep(w));
    // At a paper's size the traces stay; the suite kernels without the size are left out.
    let left_out: Vec<String> = super::without_size_where(&mut workloads, size, |w, table| {
        w.0.contains('-') || table.find(w.0).is_some()
    })?
    .into_iter()
    .map(|w| w.0.to_string())
    .collect();
    let paper = gpusim::workload::synth::paper::size(size);
    if workloads.is_empty() {
        anyhow::bail!(
            "no workload to run (--only names none of the experiment's; a point of the sweep \
             from App A to App B, such as {}, runs beside one of them)",
            sweep::name(sweep::MIDDLE[0])
        );
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
    let mean = |f: &dyn Fn(&Cell) -> f64| -> Vec<f64> {
        (0..configs.len())
            .map(|c| geomean(rows.iter().map(|r| f(&r.cells[c]))))
            .collect()
    };
    let paws_of_best = mean(&Cell::paws_of_best);
    let tl_paws_of_best = mean(&Cell::tl_paws_of_best);
    let tl_inner_of_best = mean(&|c| c.of_best(TWO_LEVEL, TWO_LEVEL + 3));
    let tl_paws_of_tl_rr = mean(&tl_paws_of_tl_rr);
    let sweep = match paper {
        Some(_) => vec![],
        None => sweep::run(size, &configs, jobs, &keep)?,
    };
    let results = Results {
        experiment: "paws",
        configs,
        size: size.to_string(),
        policies: POLICIES.iter().map(|p| p.0).collect(),
        rows,
        paws_of_best,
        tl_paws_of_best,
        tl_inner_of_best,
        tl_paws_of_tl_rr,
        sweep,
        left_out,
    };
    write(a, &results, out)
}

/// Writes `paws.md`, `.json` and `.svg` into `out` and prints the Markdown (or the JSON).
fn write(a: &ReproArgs, r: &Results, out: &Path) -> Result<ExitCode> {
    let json = serde_json::to_string_pretty(r)?;
    super::files::write(out, "paws", (&markdown(r), &json, &svg(r)?), &[], a.json)
}
