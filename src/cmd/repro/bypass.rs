//! `gpusched repro bypass`: the cache-bypassing framework's main experiment (seed 001 §V,
//! Fig. 6, L404-L415; spec §2.2, §2.5, B-R3, B-R6) on the golden GPU model: for each kernel and
//! each L1D size of the unified 64 kB (16, 32, 48 kB), bypass-all, cache-all, the loads the
//! heuristic (Algorithm 1) caches and those the exact optimum of the traffic model caches,
//! all from one set of profiling runs, under GTO (B-R3); speedups over bypass-all with their
//! geometric means beside the paper's, as Markdown, JSON and an SVG chart.
//!
//! The paper measured a GTX 680 (real hardware, 15 benchmarks); ours is the `gtx680` preset
//! (its Table I, the rest as the Maxwell preset) over the suite's kernels that mirror its
//! benchmarks: compare trends (B12).

use super::chart;
use super::ReproArgs;
use anyhow::{Context, Result};
use gpusim::analysis::bypass::empirical::empirical;
use gpusim::analysis::bypass::profile::{
    golden_runs, memoized, profile, sample_loads, EffSource, Plan, Profiled,
};
use gpusim::analysis::bypass::split::{SplitModel, SplitPoint};
use gpusim::config::{presets, GpuConfig};
use gpusim::core::occupancy::{occupancy, Footprint};
use gpusim::gpu::caching::SelectBy;
use gpusim::gpu::SimOptions;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// The suite's kernels that mirror the paper's benchmarks (Table III: BAA as `bp_smem` and
/// `bp`, BFS, KMI, SRP/SRR, SPM, SRK, GEM) and its synthetic mix of streaming, scattered and
/// reused loads (§2.5).
const KERNELS: &[&str] = &[
    "bypass_mix",
    "bp_smem",
    "bp",
    "bfs",
    "km",
    "srad",
    "spmv",
    "syrk",
    "gemm",
];

/// The L1D sizes of the unified 64 kB, kB (Table I).
const L1_KB: [u32; 3] = [16, 32, 48];

/// The paper's geometric-mean gains over bypass-all, percent (Fig. 6, L404-L415): L1D kB,
/// cache-all, heuristic.
const PAPER: [(u32, f64, f64); 3] = [(16, 4.6, 13.1), (32, 13.0, 19.1), (48, 20.1, 23.4)];

/// The paper's unified memory optimization, percent on average (L452; over bypass-all in Fig.
/// 9's caption, over cache-all in the text: spec B2).
const PAPER_UNIFIED: f64 = 28.3;

/// One kernel at one L1D size.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// L1D kB.
    pub l1_kb: u32,
    /// Global loads of the kernel.
    pub loads: usize,
    /// Profiling runs made.
    pub profiling_runs: usize,
    /// Cycles with every global load bypassing the L1D (the baseline).
    pub bypass_all: u64,
    /// Cycles with every one cached.
    pub cache_all: u64,
    /// Cycles with the heuristic's loads cached (efficiencies: Table II, else the kernel's).
    pub heuristic: u64,
    /// Cycles with the exact optimum's loads cached (the paper's ILP).
    pub exact: u64,
    /// Cycles with the heuristic's loads cached, each load's own measured efficiencies.
    pub heuristic_oracle: u64,
    /// Cycles of the fastest combination of the loads (B-R5 `ORACLE_EMPIRICAL`).
    pub empirical: u64,
    /// PCs the heuristic caches.
    pub heuristic_cached: Vec<u32>,
    /// PCs the exact optimum caches.
    pub exact_cached: Vec<u32>,
    /// PCs the fastest combination caches.
    pub empirical_cached: Vec<u32>,
    /// Runs the empirical search made (2^k, k the loads it combines).
    pub empirical_runs: usize,
    /// Theoretical occupancy at this split (resident threads over the SM's maximum, B-R4).
    pub occupancy: f64,
    /// L1D hit rate of the cache-all run (read hits over reads).
    pub hit_rate: f64,
}

impl Cell {
    /// Gain of `cycles` over bypass-all, percent.
    fn gain(&self, cycles: u64) -> f64 {
        100.0 * (self.bypass_all as f64 / cycles.max(1) as f64 - 1.0)
    }
}

/// One kernel's cells, in [`L1_KB`] order.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Workload.
    pub workload: String,
    /// Per L1D size.
    pub cells: Vec<Cell>,
}

/// Geometric-mean gains over bypass-all at one L1D size, percent.
#[derive(Clone, Debug, Serialize)]
pub struct Mean {
    /// L1D kB.
    pub l1_kb: u32,
    /// Cache-all.
    pub cache_all: f64,
    /// Heuristic.
    pub heuristic: f64,
    /// Exact optimum.
    pub exact: f64,
    /// Heuristic with each load's own efficiencies.
    pub heuristic_oracle: f64,
    /// The fastest combination (B-R5).
    pub empirical: f64,
    /// The paper's cache-all.
    pub paper_cache_all: f64,
    /// The paper's heuristic.
    pub paper_heuristic: f64,
}

/// The unified L1D / shared-memory optimization (Eq. 1, L448-L452).
#[derive(Clone, Debug, Serialize)]
pub struct Unified {
    /// The fitted model, or why there is none.
    pub model: Result<SplitModel, String>,
    /// Per kernel (in row order): the L1D kB chosen, and the heuristic's cycles there.
    pub chosen: Vec<(u32, u64)>,
    /// Geometric-mean gain over bypass-all at 16 kB, percent.
    pub over_bypass_all: f64,
    /// Geometric-mean gain over cache-all at 16 kB, percent.
    pub over_cache_all: f64,
    /// The paper's +28.3%.
    pub paper: f64,
}

/// The whole result.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// `bypass`.
    pub experiment: &'static str,
    /// The base configuration (each L1D size is `<config>-l1-<n>k`).
    pub config: String,
    /// Suite size.
    pub size: String,
    /// Per kernel.
    pub rows: Vec<Row>,
    /// Per L1D size.
    pub means: Vec<Mean>,
    /// The unified optimization over the three splits (`None` without a model).
    pub unified: Option<Unified>,
}

/// The cached PCs of the plan's only kernel.
fn cached_pcs(p: &Plan) -> Vec<u32> {
    p.kernels
        .iter()
        .flat_map(|k| k.loads.iter().filter(|l| l.cached).map(|l| l.pc))
        .collect()
}

/// Measures `kernel` at `size` on `cfg`: one profiling, then a run per distinct selection
/// (each selection run once: the profiling's, the empirical search's and the plans').
fn measure(kernel: &str, size: &str, cfg: &GpuConfig, l1_kb: u32) -> Result<Cell> {
    let opts = SimOptions::parse("--warp-sched gto").expect("GTO parses");
    let mut open = || Ok(gpusim::workload::open_named(kernel, size)?);
    let samples = sample_loads(open()?.as_mut())?;
    let mut run = memoized(golden_runs(cfg, &opts, &mut open));
    let p: Profiled = profile(&samples, &mut run, &mut |_, _| {})?;
    let empirical_plan = empirical(&p, EffSource::Global, &mut run, &mut |_, _| {})?;
    let mut run_plan = |plan: &Plan| -> Result<(u64, Vec<u32>)> {
        Ok((run(&plan.bypass())?.counters.cycles, cached_pcs(plan)))
    };
    let (heuristic, heuristic_cached) = run_plan(&p.plan(SelectBy::Heuristic, EffSource::Global)?)?;
    let (exact, exact_cached) = run_plan(&p.plan(SelectBy::Exact, EffSource::Global)?)?;
    let (heuristic_oracle, _) = run_plan(&p.plan(SelectBy::Heuristic, EffSource::Oracle)?)?;
    let (empirical, empirical_cached) = run_plan(&empirical_plan)?;
    let loads = p.plan(SelectBy::Heuristic, EffSource::Global)?.kernels[0]
        .loads
        .len();
    let def = gpusim::workload::synth::build(kernel, size)?;
    let fp = Footprint {
        threads: def.block.x * def.block.y * def.block.z,
        regs_per_thread: def.regs_per_thread,
        shmem_bytes: def.shmem_bytes,
    };
    let blocks = occupancy(&cfg.sm, &fp)?.blocks;
    let threads = fp.demand(cfg.sm.warp_size).threads;
    let l1d = &p.cache_all.counters.l1d;
    let reads = l1d.accesses - l1d.writes;
    Ok(Cell {
        l1_kb,
        loads,
        profiling_runs: p.runs,
        bypass_all: p.bypass_all.counters.cycles,
        cache_all: p.cache_all.counters.cycles,
        heuristic,
        exact,
        heuristic_oracle,
        empirical,
        heuristic_cached,
        exact_cached,
        empirical_cached,
        empirical_runs: empirical_plan.runs - p.runs,
        occupancy: f64::from(blocks * threads) / f64::from(cfg.sm.max_threads),
        hit_rate: l1d.hits as f64 / reads.max(1) as f64,
    })
}

/// The unified optimization: Eq. 1 fitted over every (kernel, split), the split of the highest
/// predicted performance per kernel and the heuristic's cycles there, against bypass-all and
/// cache-all at 16 kB.
fn unified(rows: &[Row]) -> Unified {
    let points: Vec<SplitPoint> = rows
        .iter()
        .flat_map(|r| {
            let base = r.cells[0].cache_all as f64;
            r.cells.iter().map(move |c| SplitPoint {
                occ: c.occupancy,
                hit_rate: c.hit_rate,
                perf: base / c.cache_all.max(1) as f64,
            })
        })
        .collect();
    let model = SplitModel::fit(&points);
    let chosen: Vec<(u32, u64)> = rows
        .iter()
        .map(|r| {
            let splits: Vec<(f64, f64)> =
                r.cells.iter().map(|c| (c.occupancy, c.hit_rate)).collect();
            let i = model
                .as_ref()
                .ok()
                .and_then(|m| m.choose(&splits))
                .unwrap_or(0);
            (r.cells[i].l1_kb, r.cells[i].heuristic)
        })
        .collect();
    let over = |f: fn(&Cell) -> u64| {
        let g: Vec<f64> = rows
            .iter()
            .zip(&chosen)
            .map(|(r, &(_, c))| 100.0 * (f(&r.cells[0]) as f64 / c.max(1) as f64 - 1.0))
            .collect();
        mean_gain(&g)
    };
    Unified {
        over_bypass_all: over(|c| c.bypass_all),
        over_cache_all: over(|c| c.cache_all),
        model,
        chosen,
        paper: PAPER_UNIFIED,
    }
}

/// Geometric mean of gains in percent (as speedups).
fn mean_gain(gains: &[f64]) -> f64 {
    100.0 * (super::geomean(gains.iter().map(|g| 1.0 + g / 100.0)) - 1.0)
}

/// The geometric means of `rows` per L1D size.
fn means(rows: &[Row]) -> Vec<Mean> {
    L1_KB
        .iter()
        .enumerate()
        .map(|(i, &l1_kb)| {
            let of = |f: &dyn Fn(&Cell) -> u64| {
                let g: Vec<f64> = rows
                    .iter()
                    .map(|r| r.cells[i].gain(f(&r.cells[i])))
                    .collect();
                mean_gain(&g)
            };
            let paper = PAPER[i];
            Mean {
                l1_kb,
                cache_all: of(&|c| c.cache_all),
                heuristic: of(&|c| c.heuristic),
                exact: of(&|c| c.exact),
                heuristic_oracle: of(&|c| c.heuristic_oracle),
                empirical: of(&|c| c.empirical),
                paper_cache_all: paper.1,
                paper_heuristic: paper.2,
            }
        })
        .collect()
}

/// `+4.6%`.
fn pct(x: f64) -> String {
    format!("{x:+.1}%")
}

/// `0x20, 0x28`, or `none`.
fn pc_list(pcs: &[u32]) -> String {
    if pcs.is_empty() {
        return "none".into();
    }
    let v: Vec<String> = pcs.iter().map(|p| format!("{p:#x}")).collect();
    v.join(", ")
}

/// The Markdown report.
fn markdown(r: &Results) -> String {
    let mut md = format!(
        "# Cache bypassing (seed 001): per-load L1D bypass on `{}`, size `{}`\n\n\
         Gains in cycles over bypass-all (every global load `ld.cg`), GTO. Heuristic: the \
         paper's Algorithm 1; exact: the optimum of its traffic model (its ILP); both with \
         Table II's efficiencies where a load's lanes fit a pattern, else the kernel's \
         measured (B-R1 `GLOBAL`); oracle: each load's own measured efficiencies; empirical: \
         the fastest of every cached/bypassed combination of the loads, simulated (B-R5 \
         `ORACLE_EMPIRICAL`, 2^k runs for k loads), the bar the selections are measured \
         against.\n",
        r.config, r.size
    );
    for (i, &l1) in L1_KB.iter().enumerate() {
        let _ = write!(
            md,
            "\n## L1D {l1} kB, shared memory {} kB\n\n\
             | workload | loads | profiling runs | cache-all | heuristic | exact | heuristic (oracle) | empirical | cached by the heuristic | cached by the empirical |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|---|---|\n",
            64 - l1
        );
        for row in &r.rows {
            let c = &row.cells[i];
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                row.workload,
                c.loads,
                c.profiling_runs,
                pct(c.gain(c.cache_all)),
                pct(c.gain(c.heuristic)),
                pct(c.gain(c.exact)),
                pct(c.gain(c.heuristic_oracle)),
                pct(c.gain(c.empirical)),
                pc_list(&c.heuristic_cached),
                pc_list(&c.empirical_cached),
            );
        }
        let m = &r.means[i];
        let _ = writeln!(
            md,
            "| **geometric mean** | | | **{}** | **{}** | **{}** | **{}** | **{}** | | |\n\
             | paper (Fig. 6, 15 benchmarks, GTX 680) | | | {} | {} | | | | | |",
            pct(m.cache_all),
            pct(m.heuristic),
            pct(m.exact),
            pct(m.heuristic_oracle),
            pct(m.empirical),
            pct(m.paper_cache_all),
            pct(m.paper_heuristic)
        );
    }
    if let Some(u) = &r.unified {
        md.push_str(&unified_markdown(r, u));
    }
    md
}

/// The unified optimization's section.
fn unified_markdown(r: &Results, u: &Unified) -> String {
    let mut md = String::from(
        "\n## Unified L1D / shared memory (Eq. 1)\n\n\
         Per kernel and split: the theoretical occupancy (resident threads over 2048), the L1D hit \
         rate with every load cached, and the performance relative to the kernel's cache-all \
         run at 16 kB; Eq. 1, `Perf = b0 + b1 Occ + b2 HitRate + b3 Occ HitRate`, fitted over \
         all of them by least squares (B-R4); per kernel the split of the highest predicted \
         performance, and the heuristic's loads at that split.\n\n",
    );
    match &u.model {
        Ok(m) => {
            if m.occ_dropped {
                md.push_str(
                    "Every kernel here has the same occupancy at every split (none uses enough \
                     shared memory per block for the split to limit its residency), so the fit \
                     drops the Occ terms: `Perf = b0 + b2 HitRate`.\n\n",
                );
            }
            let _ = writeln!(
                md,
                "Fit: b0 = {:.3}, b1 = {:.3}, b2 = {:.3}, b3 = {:.3}; MSE {:.4} over {} points \
                 (the paper: MSE 0.035 over 6 benchmarks x 3 splits, its coefficients not \
                 given).\n",
                m.beta[0],
                m.beta[1],
                m.beta[2],
                m.beta[3],
                m.mse,
                r.rows.len() * L1_KB.len()
            );
        }
        Err(why) => {
            let _ = writeln!(md, "No fit: {why}; every kernel stays at 16 kB.\n");
        }
    }
    md.push_str(
        "| workload | occupancy 16 / 32 / 48 kB | hit rate 16 / 32 / 48 kB | chosen L1D | unified over bypass-all at 16 kB |\n\
         |---|---|---|---:|---:|\n",
    );
    for (row, &(kb, cycles)) in r.rows.iter().zip(&u.chosen) {
        let list = |f: fn(&Cell) -> f64| {
            row.cells
                .iter()
                .map(|c| format!("{:.2}", f(c)))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let base = row.cells[0].bypass_all as f64;
        let _ = writeln!(
            md,
            "| {} | {} | {} | {kb} kB | {} |",
            row.workload,
            list(|c| c.occupancy),
            list(|c| c.hit_rate),
            pct(100.0 * (base / cycles.max(1) as f64 - 1.0))
        );
    }
    let _ = writeln!(
        md,
        "| **geometric mean** | | | | **{}** |\n\n\
         Unified optimization, geometric mean: {} over bypass-all at 16 kB, {} over cache-all at \
         16 kB; the paper: {} on average (L452; over bypass-all in Fig. 9's caption, over \
         cache-all in its text, spec B2).",
        pct(u.over_bypass_all),
        pct(u.over_bypass_all),
        pct(u.over_cache_all),
        pct(u.paper)
    );
    md
}

/// The chart: per L1D size, the paper's and our cache-all and heuristic gains.
fn svg(r: &Results) -> Result<String> {
    let items: Vec<(String, f64, f64)> = r
        .means
        .iter()
        .flat_map(|m| {
            [
                (
                    format!("{} kB cache-all", m.l1_kb),
                    m.paper_cache_all,
                    m.cache_all,
                ),
                (
                    format!("{} kB heuristic", m.l1_kb),
                    m.paper_heuristic,
                    m.heuristic,
                ),
            ]
        })
        .collect();
    chart::thesis_beside_ours(
        &format!(
            "Cache bypassing on {} ({}): gain over bypass-all (geometric mean)",
            r.config, r.size
        ),
        "gain over bypass-all, %",
        &items,
    )
}

/// Runs the experiment: every (kernel, L1D size) on `jobs` threads.
pub fn run(a: &ReproArgs, size: &str, out: &Path, jobs: usize) -> Result<ExitCode> {
    let base_name = a.config.clone().unwrap_or_else(|| "gtx680".into());
    let base = crate::cmd::sim::load_config(&base_name)?;
    let mut kernels: Vec<&str> = KERNELS.to_vec();
    if !a.only.is_empty() {
        kernels.retain(|k| a.only.iter().any(|o| o == k));
        if kernels.is_empty() {
            anyhow::bail!("--only names none of {}", KERNELS.join(", "));
        }
    }
    let points: Vec<(usize, usize)> = (0..kernels.len())
        .flat_map(|k| (0..L1_KB.len()).map(move |l| (k, l)))
        .collect();
    let mut cells = super::pool::map(jobs, &points, &|&(k, l)| {
        let cfg =
            presets::with_l1_split(base.clone(), L1_KB[l]).expect("the experiment's L1D sizes");
        measure(kernels[k], size, &cfg, L1_KB[l])
            .with_context(|| format!("{} on {}", kernels[k], cfg.name))
    })?
    .into_iter();
    let rows: Vec<Row> = kernels
        .iter()
        .map(|name| Row {
            workload: name.to_string(),
            cells: cells.by_ref().take(L1_KB.len()).collect(),
        })
        .collect();
    let results = Results {
        experiment: "bypass",
        config: base.name.clone(),
        size: size.to_string(),
        means: means(&rows),
        unified: (rows.iter().all(|r| r.cells.len() == L1_KB.len())).then(|| unified(&rows)),
        rows,
    };
    write(a, &results, out)
}

/// Every kernel's gain over bypass-all per L1D size under cache-all, the heuristic and the
/// exact optimum, as a heatmap.
fn kernels_chart(r: &Results) -> Result<String> {
    let cols: Vec<String> = L1_KB
        .iter()
        .flat_map(|kb| ["cache-all", "heuristic", "exact"].map(|w| format!("{kb} kB {w}")))
        .collect();
    let names: Vec<String> = r.rows.iter().map(|row| row.workload.clone()).collect();
    let values: Vec<Vec<Option<f64>>> = r
        .rows
        .iter()
        .map(|row| {
            (row.cells.iter())
                .flat_map(|c| [c.cache_all, c.heuristic, c.exact].map(|n| Some(c.gain(n))))
                .collect()
        })
        .collect();
    let title = format!(
        "Cache bypassing on {} ({}): gain over bypass-all per kernel, %",
        r.config, r.size
    );
    chart::heatmap(&title, (&names, &cols), &values, 20.0)
}

/// Writes `bypass.md`, `.json`, `.svg` and `bypass-kernels.svg` into `out` and prints the
/// Markdown (or the JSON).
fn write(a: &ReproArgs, r: &Results, out: &Path) -> Result<ExitCode> {
    let json = serde_json::to_string_pretty(r)?;
    let figures = [("kernels", kernels_chart(r)?)];
    super::files::write(
        out,
        "bypass",
        (&markdown(r), &json, &svg(r)?),
        &figures,
        a.json,
    )
}
