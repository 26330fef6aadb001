//! `gpusched repro paver`: seed 004's experiment (Figs. 11-13; spec `paver.md` §2.4-§2.5, §6
//! V-R8) on the golden GPU model: LRR and BCS thread-block dispatch against PAVER's MST-TS,
//! kway-TS and RB-TS (with the task stealer, and kway-TS and RB-TS without it, L340), all under
//! GTO (L308), over the suite's kernels that mirror the paper's benchmarks by the paper's
//! categories of inter-TB locality. Speedups over LRR kernel-only (cycles) and with the JIT
//! pass's host time added at the GPU's clock (V-R3: this machine's wall time, so those figures
//! move from run to run), L1D miss rates and L2 accesses over LRR's, per category and overall as arithmetic means of the per-kernel ratios (V-R8: the
//! paper does not say which mean), with the paper's figures for the GPU the configuration
//! names (GTX480: Fermi, TITAN X: Pascal, TITAN V: Volta, by SM count).

use super::side_by_side::{Headline, Measure, Measured};
use super::{keep_only, run_reports, ReproArgs};
use crate::cmd::sim::{load_config, open_workload};
use anyhow::{Context, Result};
use gpusim::analysis::paver::{self, Granularity, LeafRule, Scheme};
use gpusim::config::GpuConfig;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The suite kernels by the paper's categories (L109, L319; the suite's mirrors of Table 2;
/// `nn` and `nw` share no data between blocks, as SAD, MUM, BP and BLK). `gemm` and `bicg` are
/// not in Table 2; by the paper's rule (high: at least 50% of a kernel's references go to data
/// another block reads, L319) `gemm` is high (A's rows and B's columns are shared) and `bicg`
/// sits on the boundary, high (half of its reads are `r`, which every block reads; its
/// columns of A are its own).
pub const CATEGORIES: &[(&str, &[&str])] = &[
    (
        "high",
        &[
            "syrk", "syr2k", "gemm", "bicg", "mm", "btr", "htw", "hs", "srad",
        ],
    ),
    ("low", &["bfs", "spmv", "pf", "sto"]),
    ("none", &["nn", "nw"]),
];

/// One configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    /// Short name.
    pub name: &'static str,
    /// What it is.
    pub label: &'static str,
    /// Its `gpusched sim` options.
    pub args: &'static str,
}

impl Column {
    /// PAVER's partitioning scheme, if the column runs one.
    fn scheme(&self) -> Option<Scheme> {
        Scheme::from_name(self.name.split('_').next().unwrap_or_default())
    }
}

/// The configurations, the baseline (LRR) first; the paper's three schemes are `mst`,
/// `kway`, `rb`.
pub fn columns() -> Vec<Column> {
    let c = |name, label, args| Column { name, label, args };
    vec![
        c("lrr", "LRR (baseline)", "--tb-sched lrr --warp-sched gto"),
        c("bcs", "BCS", "--tb-sched bcs --warp-sched gto"),
        c("mst", "MST-TS", "--tb-sched mst-ts --warp-sched gto"),
        c("kway", "kway-TS", "--tb-sched kway-ts --warp-sched gto"),
        c("rb", "RB-TS", "--tb-sched rb-ts --warp-sched gto"),
        c(
            "kway_nosteal",
            "kway-TS, no stealing",
            "--tb-sched kway-ts --no-steal --warp-sched gto",
        ),
        c(
            "rb_nosteal",
            "RB-TS, no stealing",
            "--tb-sched rb-ts --no-steal --warp-sched gto",
        ),
    ]
}

/// The paper's schemes, in the order of its figures.
const SCHEMES: [&str; 3] = ["mst", "kway", "rb"];

/// One of the paper's architectures with its figures (Fig. 11, L330-L332: speedup over LRR in
/// percent; Fig. 13, L351: L2 accesses over LRR's in percent), per category, in [`SCHEMES`]
/// order; `None` where the paper gives no figure.
struct PaperArch {
    name: &'static str,
    sms: usize,
    speedup: [(&'static str, Option<[f64; 3]>); 4],
    l2: [(&'static str, Option<[f64; 3]>); 3],
}

const PAPER: [PaperArch; 3] = [
    PaperArch {
        name: "Fermi (GTX480)",
        sms: 15,
        speedup: [
            ("high", Some([2.8, 23.8, 29.0])),
            ("low", Some([1.8, 2.5, 3.8])),
            ("none", Some([-0.15, -0.3, -0.5])),
            ("overall", Some([1.8, 10.1, 12.6])),
        ],
        l2: [
            ("high", Some([78.4, 61.4, 56.7])),
            ("low", Some([95.0, 91.88, 90.22])),
            ("overall", Some([89.6, 81.7, 79.3])),
        ],
    },
    PaperArch {
        name: "Pascal (TITAN X)",
        sms: 28,
        speedup: [
            ("high", Some([10.8, 32.5, 49.1])),
            ("low", Some([0.2, 1.8, 3.7])),
            ("none", None),
            ("overall", Some([3.3, 13.32, 20.49])),
        ],
        l2: [
            ("high", Some([79.0, 67.0, 51.59])),
            ("low", Some([94.2, 92.6, 89.1])),
            ("overall", Some([89.6, 84.3, 76.94])),
        ],
    },
    PaperArch {
        name: "Volta (TITAN V)",
        sms: 80,
        speedup: [
            ("high", Some([4.5, 28.6, 41.2])),
            ("low", Some([0.4, 3.5, 3.8])),
            ("none", None),
            ("overall", Some([0.18, 12.4, 17.4])),
        ],
        l2: [
            ("high", Some([76.4, 65.0, 59.8])),
            ("low", Some([90.9, 85.5, 85.3])),
            ("overall", Some([87.0, 80.5, 78.3])),
        ],
    },
];

/// The task stealer's gain over no stealing on Fermi, percent (L340): kway-TS, RB-TS.
const PAPER_STEALING: [(&str, f64); 2] = [("kway", 3.0), ("rb", 2.0)];

/// One simulation's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// Core cycles.
    pub cycles: u64,
    /// LRR's cycles over these (speedup).
    pub speedup: f64,
    /// L1D read miss rate.
    pub l1d_miss_rate: f64,
    /// L2 accesses (loads and stores from the SMs; PAVER's table reads are not cache traffic).
    pub l2_accesses: u64,
    /// These over LRR's.
    pub l2_ratio: f64,
    /// Bytes read from DRAM.
    pub dram_read_bytes: u64,
    /// These over LRR's.
    pub dram_ratio: f64,
    /// The JIT pass's host time for the kernel(s), seconds (median of 3; 0 without PAVER).
    pub jit_seconds: f64,
    /// LRR's cycles over these plus the JIT time in cycles at the core clock (V-R3).
    pub speedup_with_jit: f64,
}

/// One workload.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Suite kernel.
    pub workload: String,
    /// Its category (high, low, none).
    pub category: &'static str,
    /// Waves of thread blocks under LRR ([`super::waves`]); below [`super::MIN_WAVES`] the
    /// dispatch order can matter little, and the pages flag it.
    pub waves: f64,
    /// Per column.
    pub cells: Vec<Cell>,
}

/// A paper figure beside ours.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// What is compared (`RB-TS speedup, high`).
    pub what: String,
    /// The paper's figure, percent.
    pub paper: f64,
    /// Ours, percent (the arithmetic mean over the category's kernels), kernel-only.
    pub ours: f64,
    /// Ours with the JIT pass's time (V-R3), for speedups.
    pub ours_with_jit: Option<f64>,
    /// Where the paper says so.
    pub source: &'static str,
    /// A ratio (L2 accesses over LRR's, percent of LRR's) rather than a gain (percent).
    pub ratio: bool,
}

/// The whole result.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Experiment name.
    pub experiment: &'static str,
    /// GPU configuration.
    pub config: String,
    /// The paper's architecture it stands for, by SM count (none: no paper figures).
    pub paper_arch: Option<&'static str>,
    /// Suite size.
    pub size: String,
    /// The configurations.
    pub columns: Vec<Column>,
    /// Per workload, by category.
    pub rows: Vec<Row>,
    /// Core clock, MHz (the JIT time's cycles).
    pub core_clock_mhz: f64,
    /// Per category, then `overall`: the arithmetic mean speedup over LRR per column.
    pub mean_speedup: Vec<(String, Vec<f64>)>,
    /// The same with the JIT pass's time.
    pub mean_speedup_with_jit: Vec<(String, Vec<f64>)>,
    /// The same for L2 accesses over LRR's.
    pub mean_l2_ratio: Vec<(String, Vec<f64>)>,
    /// The same for DRAM read bytes over LRR's.
    pub mean_dram_ratio: Vec<(String, Vec<f64>)>,
    /// The L2's capacity, bytes (every slice).
    pub l2_bytes: u64,
    /// The paper's figures beside ours.
    pub comparisons: Vec<Comparison>,
    /// Workloads left out: those without the size (at `paver`, `gemm` and `bicg`, which are
    /// not in Table 2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
}

fn cell(r: &serde_json::Value) -> Result<Cell> {
    let n = |path: &str| super::counter(r, path);
    Ok(Cell {
        cycles: n("cycles")?,
        speedup: 1.0,
        l1d_miss_rate: super::rate(n("l1d.misses")?, super::reads(r, "l1d")?),
        l2_accesses: n("l2.accesses")?,
        l2_ratio: 1.0,
        dram_read_bytes: n("dram.read_bytes")?,
        dram_ratio: 1.0,
        jit_seconds: 0.0,
        speedup_with_jit: 1.0,
    })
}

/// The JIT pass's host time for every kernel of `workload` under `scheme` on `cfg`, as
/// `--tb-sched <scheme>-ts` runs it (words, the paper's leaf rule), seconds: the median of 3.
fn jit_seconds(cfg: &GpuConfig, workload: &str, size: &str, scheme: Scheme) -> Result<f64> {
    let mut times = vec![];
    for _ in 0..3 {
        let mut w = open_workload(None, Some(workload), size)?;
        let mut total = 0.0;
        while let Some(k) = w.next_kernel()? {
            let p = paver::params_for(cfg, k.info(), LeafRule::Below)
                .with_context(|| format!("{workload} on {}", cfg.name))?;
            total += paver::schedule(k.as_ref(), scheme, Granularity::Word, &p)?.jit_seconds;
        }
        times.push(total);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[1])
}

/// Runs the experiment on the configuration `a` names (the paper ran GPGPU-Sim 4.x, whose
/// mechanisms the calibrated presets model: one configuration, no side by side).
pub fn run(a: &ReproArgs, size: &str, out: &Path, jobs: usize) -> Result<ExitCode> {
    let mut workloads: Vec<(String, Option<PathBuf>)> = CATEGORIES
        .iter()
        .flat_map(|(_, ws)| ws.iter().map(|w| (w.to_string(), None)))
        .collect();
    keep_only(&mut workloads, |w| &w.0, &a.only, "workload")?;
    let left_out = super::without_size(&mut workloads, size)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let measure: &Measure<'_> = &|configs, _, sweep| {
        let mut measured = vec![];
        for c in configs {
            let mut r = measure_on(c, size, &workloads, (sweep, out), jobs)?;
            r.left_out = left_out.clone();
            let headlines = r
                .comparisons
                .iter()
                .filter(|c| !c.ratio)
                .map(|c| {
                    let ratio = |p: f64| 1.0 + p / 100.0;
                    Headline::ratio(c.what.clone(), Some(ratio(c.paper)), ratio(c.ours))
                })
                .collect();
            measured.push(Measured {
                headlines,
                outputs: Some((markdown(&r), serde_json::to_string_pretty(&r)?, chart(&r)?)),
                figures: vec![("kernels", kernels_chart(&r)?)],
            });
        }
        Ok(measured)
    };
    super::run_configs(
        a,
        ("paver", "GPGPU-Sim 4.x, the simulator the paper ran on"),
        ("PAVER (seed 004)", size),
        out,
        measure,
    )
}

/// The whole experiment on configuration `config`, through sweep `sweep` in `out`.
fn measure_on(
    config: &str,
    size: &str,
    workloads: &[(String, Option<PathBuf>)],
    (sweep, out): (&str, &Path),
    jobs: usize,
) -> Result<Results> {
    let cfg = load_config(config)?;
    gpusim::gpu::SimOptions::parse("--tb-sched rb-ts")?
        .plan
        .check(&cfg)
        .context("repro paver")?;
    let cols = columns();
    let policies: Vec<(&str, &str)> = cols.iter().map(|c| (c.name, c.args)).collect();
    let reports = run_reports(sweep, &policies, config, workloads, size, jobs, out)?;
    let mut rows = vec![];
    for ((name, _), reps) in workloads.iter().zip(reports) {
        let mut cells = reps.iter().map(cell).collect::<Result<Vec<_>>>()?;
        let (cycles, l2) = (cells[0].cycles as f64, cells[0].l2_accesses.max(1) as f64);
        let dram = cells[0].dram_read_bytes.max(1) as f64;
        for (c, col) in cells.iter_mut().zip(&cols) {
            if let Some(scheme) = col.scheme() {
                c.jit_seconds = jit_seconds(&cfg, name, size, scheme)?;
            }
            let jit_cycles = c.jit_seconds * cfg.sm.core_clock_mhz * 1e6;
            c.speedup = cycles / c.cycles.max(1) as f64;
            c.speedup_with_jit = cycles / (c.cycles as f64 + jit_cycles).max(1.0);
            c.l2_ratio = c.l2_accesses as f64 / l2;
            c.dram_ratio = c.dram_read_bytes as f64 / dram;
        }
        let category = CATEGORIES
            .iter()
            .find(|(_, ws)| ws.contains(&name.as_str()))
            .map(|t| t.0)
            .expect("every workload has a category");
        rows.push(Row {
            workload: name.clone(),
            category,
            waves: super::waves(&reps[0])?,
            cells,
        });
    }
    Ok(summarize(&cfg, size, cols, rows))
}

/// Arithmetic mean of `f` over `rows` per column (NaN without rows).
fn means(rows: &[&Row], ncols: usize, f: fn(&Cell) -> f64) -> Vec<f64> {
    (0..ncols)
        .map(|i| rows.iter().map(|r| f(&r.cells[i])).sum::<f64>() / rows.len() as f64)
        .collect()
}

/// The category means and the paper comparisons of `rows` on `cfg` (the paper's figures of
/// the GPU with as many SMs).
pub fn summarize(cfg: &GpuConfig, size: &str, columns: Vec<Column>, rows: Vec<Row>) -> Results {
    let sms = cfg.sm.count as usize;
    let n = columns.len();
    let col = |name: &str| {
        columns
            .iter()
            .position(|c| c.name == name)
            .expect("a column")
    };
    let mut groups: Vec<(String, Vec<&Row>)> = CATEGORIES
        .iter()
        .map(|(cat, _)| {
            let of: Vec<&Row> = rows.iter().filter(|r| r.category == *cat).collect();
            (cat.to_string(), of)
        })
        .filter(|(_, of)| !of.is_empty())
        .collect();
    groups.push(("overall".into(), rows.iter().collect()));
    let mean_speedup: Vec<(String, Vec<f64>)> = groups
        .iter()
        .map(|(g, of)| (g.clone(), means(of, n, |c| c.speedup)))
        .collect();
    let mean_speedup_with_jit: Vec<(String, Vec<f64>)> = groups
        .iter()
        .map(|(g, of)| (g.clone(), means(of, n, |c| c.speedup_with_jit)))
        .collect();
    let mean_l2_ratio: Vec<(String, Vec<f64>)> = groups
        .iter()
        .map(|(g, of)| (g.clone(), means(of, n, |c| c.l2_ratio)))
        .collect();
    let mean_dram_ratio: Vec<(String, Vec<f64>)> = groups
        .iter()
        .map(|(g, of)| (g.clone(), means(of, n, |c| c.dram_ratio)))
        .collect();
    let arch = PAPER.iter().find(|p| p.sms == sms);
    let mut comparisons = vec![];
    if let Some(p) = arch {
        let ours = |table: &[(String, Vec<f64>)], g: &str, c: usize| {
            table.iter().find(|(x, _)| x == g).map(|(_, v)| v[c])
        };
        for (cat, paper) in &p.speedup {
            for (k, scheme) in SCHEMES.iter().enumerate() {
                if let (Some(x), Some(paper)) = (ours(&mean_speedup, cat, col(scheme)), paper) {
                    comparisons.push(Comparison {
                        what: format!("{} speedup over LRR, {cat}", columns[col(scheme)].label),
                        paper: paper[k],
                        ours: 100.0 * (x - 1.0),
                        ours_with_jit: ours(&mean_speedup_with_jit, cat, col(scheme))
                            .map(|x| 100.0 * (x - 1.0)),
                        source: "Fig. 11, L330-L332",
                        ratio: false,
                    });
                }
            }
        }
        for (cat, paper) in &p.l2 {
            for (k, scheme) in SCHEMES.iter().enumerate() {
                if let (Some(x), Some(paper)) = (ours(&mean_l2_ratio, cat, col(scheme)), paper) {
                    comparisons.push(Comparison {
                        what: format!("{} L2 accesses / LRR's, {cat}", columns[col(scheme)].label),
                        paper: paper[k],
                        ours: 100.0 * x,
                        ours_with_jit: None,
                        source: "Fig. 13, L351",
                        ratio: true,
                    });
                }
            }
        }
        if p.sms == 15 {
            for (scheme, paper) in PAPER_STEALING {
                let (with, without) = (col(scheme), col(&format!("{scheme}_nosteal")));
                let gain = rows
                    .iter()
                    .map(|r| r.cells[without].cycles as f64 / r.cells[with].cycles.max(1) as f64)
                    .sum::<f64>()
                    / rows.len().max(1) as f64;
                comparisons.push(Comparison {
                    what: format!("{} over no stealing, overall", columns[with].label),
                    paper,
                    ours: 100.0 * (gain - 1.0),
                    ours_with_jit: None,
                    source: "L340",
                    ratio: false,
                });
            }
        }
    }
    Results {
        experiment: "paver",
        config: cfg.name.clone(),
        paper_arch: arch.map(|p| p.name),
        size: size.to_string(),
        core_clock_mhz: cfg.sm.core_clock_mhz,
        columns,
        rows,
        mean_speedup,
        mean_speedup_with_jit,
        mean_l2_ratio,
        mean_dram_ratio,
        l2_bytes: l2_capacity(cfg),
        comparisons,
        left_out: vec![],
    }
}

/// The L2's capacity in bytes: a slice per memory sub-partition.
fn l2_capacity(cfg: &GpuConfig) -> u64 {
    cfg.l2.size_bytes as u64 * cfg.dram.channels as u64 * cfg.dram.sub_partitions as u64
}

fn pct(x: f64) -> String {
    format!("{:+.1}%", 100.0 * (x - 1.0))
}

/// A figure of a cell, and how a table writes it.
type Figure = (fn(&Cell) -> f64, fn(f64) -> String);

/// A table of `get` per workload and column, then the category means `means`, each written by
/// `fmt`.
fn table(r: &Results, title: &str, (get, fmt): Figure, means: &[(String, Vec<f64>)]) -> String {
    let lrr: LrrColumn = ("LRR cycles", |c| c.cycles.to_string());
    table_with(r, &format!("{title}\n"), lrr, (get, fmt), means, false)
}

/// The speedup table: [`table`]'s with each workload's waves of thread blocks beside its
/// category, and the footnote naming those below [`super::MIN_WAVES`].
fn speedup_table(r: &Results) -> String {
    let head = "Speedup over LRR (LRR's cycles over the column's; means are arithmetic)\n";
    let lrr: LrrColumn = ("LRR cycles", |c| c.cycles.to_string());
    let mut s = table_with(r, head, lrr, (|c| c.speedup, pct), &r.mean_speedup, true);
    let few = r.rows.iter().map(|w| (w.workload.as_str(), w.waves));
    let why = "the order in which blocks are dispatched can matter little";
    if let Some(note) = super::few_waves_note(few, why) {
        let _ = writeln!(s, "\n{note}");
    }
    s
}

/// LRR's own figure beside the ratios: its header and its value.
type LrrColumn = (&'static str, fn(&Cell) -> String);

/// A table of `get` per workload and column but LRR's, LRR's own figure first (after the
/// workload's waves of thread blocks with `waves`); then the category means. `head`: the
/// heading and any text under it.
fn table_with(
    r: &Results,
    head: &str,
    (lrr_header, lrr): LrrColumn,
    (get, fmt): Figure,
    means: &[(String, Vec<f64>)],
    waves: bool,
) -> String {
    let (waves_head, waves_rule, no_waves) = match waves {
        true => (" waves |", "---:|", " |"),
        false => ("", "", ""),
    };
    let mut s = format!("\n## {head}\n| workload | category |{waves_head} {lrr_header} |");
    for c in &r.columns[1..] {
        let _ = write!(s, " {} |", c.label);
    }
    let rule = "---:|".repeat(r.columns.len() - 1);
    let _ = writeln!(s, "\n|---|---|{waves_rule}---:|{rule}");
    for row in &r.rows {
        let _ = write!(s, "| {} | {} |", row.workload, row.category);
        if waves {
            let _ = write!(s, " {} |", super::waves_cell(row.waves));
        }
        let _ = write!(s, " {} |", lrr(&row.cells[0]));
        for c in &row.cells[1..] {
            let _ = write!(s, " {} |", fmt(get(c)));
        }
        s.push('\n');
    }
    for (g, v) in means {
        let _ = write!(s, "| **mean, {g}** | |{no_waves} |");
        for x in &v[1..] {
            let _ = write!(s, " **{}** |", fmt(*x));
        }
        s.push('\n');
    }
    s
}

/// DRAM read bytes over LRR's, with LRR's own beside the L2's capacity: a kernel that reads
/// less than the L2 holds keeps its data in the L2, where a schedule saves L2 accesses but no
/// DRAM traffic.
fn dram_table(r: &Results) -> String {
    let head = format!(
        "DRAM reads over LRR's\n\nLRR's DRAM reads (KiB) against the L2's {:.0} KiB: a kernel \
         below it keeps its data in the L2, and a schedule can save its L2 accesses but not its \
         DRAM traffic.\n",
        r.l2_bytes as f64 / 1024.0
    );
    let lrr: LrrColumn = ("LRR DRAM reads (KiB)", |c| {
        format!("{:.0}", c.dram_read_bytes as f64 / 1024.0)
    });
    let ratio: Figure = (|c| c.dram_ratio, |x| format!("{:.1}%", 100.0 * x));
    table_with(r, &head, lrr, ratio, &r.mean_dram_ratio, false)
}

/// Per workload the JIT pass's time per scheme and the speedups with it (the rows name their
/// workload with its times: they are this machine's, not the model's).
fn jit_table(r: &Results) -> String {
    let pav: Vec<usize> = (0..r.columns.len())
        .filter(|&i| r.columns[i].scheme().is_some())
        .collect();
    let mut s = String::from(
        "\n## Speedup over LRR with the JIT pass's time (V-R3; host wall time, median of 3)\n\n\
         | workload: JIT ms per column |",
    );
    for &i in &pav {
        let _ = write!(s, " {} |", r.columns[i].label);
    }
    let _ = writeln!(s, "\n|---|{}", "---:|".repeat(pav.len()));
    for row in &r.rows {
        let ms: Vec<String> = pav
            .iter()
            .map(|&i| format!("{:.1}", 1e3 * row.cells[i].jit_seconds))
            .collect();
        let _ = write!(s, "| {}: {} |", row.workload, ms.join(" / "));
        for &i in &pav {
            let _ = write!(s, " {} |", pct(row.cells[i].speedup_with_jit));
        }
        s.push('\n');
    }
    for (g, v) in &r.mean_speedup_with_jit {
        let _ = write!(s, "| **mean, {g}** |");
        for &i in &pav {
            let _ = write!(s, " **{}** |", pct(v[i]));
        }
        s.push('\n');
    }
    s
}

/// The Markdown report.
pub fn markdown(r: &Results) -> String {
    let mut s = format!(
        "# PAVER (seed 004) on `{}`, suite size `{}`\n\n",
        r.config, r.size
    );
    if !r.left_out.is_empty() {
        let _ = writeln!(
            s,
            "Left out of every row and mean: {} (no `{}` size).\n",
            r.left_out.join(", "),
            r.size
        );
    }
    match r.paper_arch {
        Some(a) => {
            let _ = writeln!(s, "## The paper's figures ({a}) beside ours\n");
            let _ = writeln!(
                s,
                "Means over the category's kernels (arithmetic). *With JIT*: the JIT pass's host \
                 time on this machine added at {} MHz (V-R3; the paper's figures include it, \
                 L330); it moves from run to run.\n",
                r.core_clock_mhz
            );
            let _ = writeln!(
                s,
                "| comparison | paper | ours | ours with JIT | source |\n|---|---:|---:|---:|---|"
            );
            for c in &r.comparisons {
                let f = |x: f64| match c.ratio {
                    true => format!("{x:.1}%"),
                    false => format!("{x:+.1}%"),
                };
                let jit = c.ours_with_jit.map_or("-".into(), f);
                let (paper, ours) = (f(c.paper), f(c.ours));
                let _ = writeln!(
                    s,
                    "| {} | {paper} | {ours} | {jit} | {} |",
                    c.what, c.source
                );
            }
        }
        None => {
            let _ = writeln!(
                s,
                "The paper simulated 15, 28 and 80 SMs; this configuration has none of them, so \
                 no paper figure is beside ours."
            );
        }
    }
    s.push_str(&speedup_table(r));
    s.push_str(&jit_table(r));
    s.push_str(&table(
        r,
        "L2 accesses over LRR's",
        (|c| c.l2_ratio, |x| format!("{:.1}%", 100.0 * x)),
        &r.mean_l2_ratio,
    ));
    s.push_str(&dram_table(r));
    let _ = writeln!(s, "\n## L1D miss rate\n");
    let _ = write!(s, "| workload |");
    for c in &r.columns {
        let _ = write!(s, " {} |", c.label);
    }
    let _ = write!(s, "\n|---|{}\n", "---:|".repeat(r.columns.len()));
    for row in &r.rows {
        let _ = write!(s, "| {} |", row.workload);
        for c in &row.cells {
            let _ = write!(s, " {:.1}% |", 100.0 * c.l1d_miss_rate);
        }
        s.push('\n');
    }
    let _ = writeln!(s, "\n## Configurations\n");
    for c in &r.columns {
        let _ = writeln!(s, "- `{}`: {} (`gpusched sim {}`)", c.name, c.label, c.args);
    }
    s
}

/// The speedup comparisons as an SVG bar chart: the paper's bar beside ours.
pub fn chart(r: &Results) -> Result<String> {
    let items: Vec<(String, f64, f64)> = r
        .comparisons
        .iter()
        .filter(|c| !c.ratio)
        .map(|c| (c.what.clone(), c.paper, c.ours))
        .collect();
    super::chart::thesis_beside_ours(
        &format!("PAVER on {} ({}): paper vs ours", r.config, r.size),
        "speedup, %",
        &items,
    )
}

/// Every workload's speedup over LRR under each configuration.
fn kernels_chart(r: &Results) -> Result<String> {
    let cols: Vec<String> = r.columns.iter().map(|c| c.label.to_string()).collect();
    let rows: Vec<(String, Vec<f64>)> = r
        .rows
        .iter()
        .map(|w| {
            let name = super::waves_label(format!("{} ({})", w.workload, w.category), w.waves);
            (name, w.cells.iter().map(|c| c.speedup).collect())
        })
        .collect();
    let title = format!("PAVER on {} ({}): speedup over LRR, %", r.config, r.size);
    super::chart::speedups(&title, &cols, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every column's options parse and name the dispatcher its name says.
    #[test]
    fn columns_resolve() {
        for c in columns() {
            let opts = super::super::resolve_column(c.name, c.args);
            let want = match c.name.split('_').next().unwrap() {
                "lrr" => "lrr".to_string(),
                "bcs" => "bcs".to_string(),
                s => format!("{s}-ts"),
            };
            assert_eq!(opts.plan.tb_dispatch.entry().name, want, "{}", c.name);
            assert_eq!(opts.plan.warp_issue.entry().name, "gto", "{}", c.name);
        }
    }

    fn row(w: &str, cat: &'static str, cycles: &[u64], l2: &[u64]) -> Row {
        Row {
            workload: w.into(),
            category: cat,
            waves: 5.0,
            cells: cycles
                .iter()
                .zip(l2)
                .map(|(&c, &a)| Cell {
                    cycles: c,
                    speedup: cycles[0] as f64 / c as f64,
                    l1d_miss_rate: 0.5,
                    l2_accesses: a,
                    l2_ratio: a as f64 / l2[0] as f64,
                    dram_read_bytes: 4 * a,
                    dram_ratio: a as f64 / l2[0] as f64,
                    jit_seconds: 0.001,
                    speedup_with_jit: cycles[0] as f64 / (c as f64 + 700e3),
                })
                .collect(),
        }
    }

    fn md_has(r: &Results, line: &str) -> bool {
        let md = markdown(r);
        md.lines().any(|l| l.starts_with(line)) || {
            eprintln!("no `{line}` in\n{md}");
            false
        }
    }

    /// The comparisons are the arithmetic means of the right columns over the right rows, with
    /// the paper's figures of the architecture with as many SMs.
    #[test]
    fn comparisons_take_the_right_columns_and_rows() {
        let n = columns().len();
        // lrr bcs mst kway rb kway_nosteal rb_nosteal
        let a = [100, 100, 100, 80, 50, 90, 55];
        let b = [100, 100, 100, 100, 100, 100, 100];
        let mut rows = vec![
            row("x", "high", &a, &[200, 200, 200, 100, 100, 100, 100]),
            row("y", "high", &b, &[100; 7]),
            row("z", "low", &b, &[100; 7]),
        ];
        rows[1].waves = 2.5;
        assert_eq!(rows[0].cells.len(), n);
        let gtx480 = GpuConfig::preset("gtx480").unwrap();
        let r = summarize(&gtx480, "small", columns(), rows);
        assert_eq!(r.paper_arch, Some("Fermi (GTX480)"));
        let c = |w: &str| r.comparisons.iter().find(|c| c.what == w).unwrap();
        // RB-TS, high: (2 + 1) / 2 = 1.5, +50%; overall (2 + 1 + 1) / 3.
        assert!((c("RB-TS speedup over LRR, high").ours - 50.0).abs() < 1e-9);
        assert_eq!(c("RB-TS speedup over LRR, high").paper, 29.0);
        assert!((c("RB-TS speedup over LRR, overall").ours - 100.0 / 3.0).abs() < 1e-9);
        // kway-TS L2, high: (50% + 100%) / 2.
        assert!((c("kway-TS L2 accesses / LRR's, high").ours - 75.0).abs() < 1e-9);
        // Stealing: RB-TS (55/50 + 1 + 1) / 3.
        assert!(
            (c("RB-TS over no stealing, overall").ours - 100.0 * (3.1 / 3.0 - 1.0)).abs() < 1e-9
        );
        // No kernel of the none category: no comparison for it.
        assert!(r.comparisons.iter().all(|c| !c.what.ends_with("none")));
        let with_jit = c("RB-TS speedup over LRR, high").ours_with_jit.unwrap();
        let want = (100.0 / 700_050.0 + 100.0 / 700_100.0) / 2.0;
        assert!((with_jit - 100.0 * (want - 1.0)).abs() < 1e-9);
        assert!(md_has(
            &r,
            "| RB-TS speedup over LRR, high | +29.0% | +50.0% | -100.0% | Fig. 11, L330-L332 |"
        ));
        assert!(md_has(&r, "| x: 1.0 / 1.0 / 1.0 / 1.0 / 1.0 |"));
        // The speedup table gives each kernel's waves and flags the one below four.
        assert!(md_has(&r, "| workload | category | waves | LRR cycles |"));
        assert!(md_has(&r, "| x | high | 5.0 | 100 |"));
        assert!(md_has(&r, "| y | high | 2.5* | 100 |"));
        assert!(md_has(&r, "| **mean, high** | | | | **"));
        let note = "\\* Fewer than 4 waves of thread blocks (the order in which blocks are \
                    dispatched can matter little): y.";
        assert!(md_has(&r, note));
        assert!(md_has(
            &r,
            "| kway-TS L2 accesses / LRR's, high | 61.4% | 75.0% | - | Fig. 13, L351 |"
        ));
        // DRAM: x read 4 x 200 B under LRR (0.8 KiB against gtx480's 768 KiB of L2), half
        // under kway-TS; the high mean of kway-TS is (50% + 100%) / 2.
        assert!(md_has(
            &r,
            "LRR's DRAM reads (KiB) against the L2's 768 KiB"
        ));
        assert!(md_has(&r, "| x | high | 1 | 100.0% | 100.0% | 50.0% |"));
        assert!(md_has(
            &r,
            "| **mean, high** | | | **100.0%** | **100.0%** | **75.0%** |"
        ));
        assert!(chart(&r).unwrap().starts_with("<svg"));
        // Another SM count: no paper figures.
        let mut other = gtx480.clone();
        other.sm.count = 7;
        let r = summarize(&other, "small", columns(), vec![]);
        assert!(r.paper_arch.is_none() && r.comparisons.is_empty());
    }
}
