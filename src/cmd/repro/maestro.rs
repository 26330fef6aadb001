//! `gpusched repro maestro`: GPU Maestro's evaluation (seed 003 ch. V §5.5; spec
//! `chimera_maestro.md` §3.3, §6 M-R3) on the golden GPU model, with the thesis's figures
//! beside ours.
//!
//! * **Pairs** (§5.5.1-5.5.3): every pair of the suite's mirrors of Table 5.3's benchmarks,
//!   both arriving at cycle 0, under the thesis's baselines (Spatial: alternate SMs; SMK: the
//!   even split in every SM) and Maestro (epochs of `--epoch`, preemption through Chimera), each
//!   with GTO, and SMK and Maestro with loose round robin and the kernel-aware LRR; per pair
//!   ANTT and STP against each kernel alone on the whole GPU (Eq. 5.1/5.2), aggregated by
//!   geometric mean per category and over all pairs (M-R3). The thesis restarts a kernel that
//!   finishes first until the other does and counts first rounds only; here a kernel that
//!   finishes first is not restarted (the other runs alone at the end, which dilutes every
//!   scheduler's differences alike).
//! * **Categories** (L1254): COM when a kernel runs more than 12x faster on the whole GPU than
//!   on one SM; the thesis's category is used for aggregation, ours is measured beside it (IPC
//!   alone over IPC on one SM in its first [`ONE_SM_CYCLES`] cycles).
//! * **Decisions** (L1328): Maestro's repartitioning decisions as Spatial, SMK:Even (the even
//!   split kept) and SMK:Other.
//! * **Fragmentation over time** (Fig. 5.5, L1183): the FDTD/LUD pair under the even SMK split
//!   with first fit and with the 2-way allocator (GTO), and the 2-way allocator with the
//!   kernel-aware LRR, the share of SM-cycles an SM refused a block that its free space, were
//!   it one piece, would hold (`sm_alloc_timeline`).

use super::mixes::{antt_stp, kernel, run_all, Job};
use super::side_by_side::{Headline, Measure, Measured, GPGPU_SIM_3_2_2};
use super::{geomean, ReproArgs};
use crate::cmd::sim::load_config;
use anyhow::{bail, Context, Result};
use gpusim::config::GpuConfig;
use gpusim::gpu::Report;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// The thesis's category of a benchmark (Table 5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Category {
    /// Compute-intensive: more than 12x from one SM to 16.
    #[serde(rename = "COM")]
    Com,
    /// Memory-intensive.
    #[serde(rename = "MEM")]
    Mem,
}

impl Category {
    fn name(self) -> &'static str {
        match self {
            Category::Com => "COM",
            Category::Mem => "MEM",
        }
    }
}

/// The suite's mirrors of Table 5.3's benchmarks: (suite kernel, the thesis's name, category).
pub const BENCHMARKS: &[(&str, &str, Category)] = &[
    ("bp", "BP", Category::Com),
    ("chimera_cp", "CP", Category::Com),
    ("hs", "HS", Category::Com),
    ("chimera_hw", "HW", Category::Com),
    ("bfs", "BFS", Category::Mem),
    ("chimera_bs", "BS", Category::Mem),
    ("fdtd3d", "FDTD", Category::Mem),
    ("km", "KM", Category::Mem),
    ("lbm", "LBM", Category::Mem),
    ("lud", "LUD", Category::Mem),
    ("nw", "NW", Category::Mem),
    ("srad", "SRAD", Category::Mem),
];

/// Cycles of the one-SM run that measures a kernel's scaling.
pub const ONE_SM_CYCLES: u64 = 200_000;

/// Speedup from one SM to the whole GPU above which a kernel is COM (L1254).
const COM_SCALING: f64 = 12.0;

/// The fragmentation pair (the thesis's FDTD/LUD, L1183).
const FRAGMENTATION_PAIR: [&str; 2] = ["fdtd3d", "lud"];

/// The allocator and warp scheduler of each fragmentation run: first fit and the 2-way
/// allocator under GTO, and the 2-way allocator under the kernel-aware LRR (whose boundary
/// override frees a finishing kernel's region sooner, §5.4.3).
const FRAGMENTATION_SETUPS: [(&str, &str); 3] = [
    ("first_fit", "gto"),
    ("twoway", "gto"),
    ("twoway", "kernel_lrr"),
];

/// One scheduling configuration and the thesis's figures for it (L1294, L1317).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Column {
    /// Short name.
    pub name: &'static str,
    /// What it is.
    pub label: &'static str,
    /// `gpusched sim` options.
    pub args: &'static str,
    /// The thesis's ANTT increase over all pairs, %.
    pub thesis_antt_increase: Option<f64>,
    /// The thesis's STP improvement over all pairs, %.
    pub thesis_stp_improvement: Option<f64>,
}

/// The configurations compared.
pub const COLUMNS: &[Column] = &[
    Column {
        name: "spatial",
        label: "Spatial (alternate SMs), GTO",
        args: "--kernel-sched maestro --partition spatial",
        thesis_antt_increase: Some(72.2),
        thesis_stp_improvement: Some(20.7),
    },
    Column {
        name: "smk",
        label: "SMK (the even split in every SM), GTO",
        args: "--kernel-sched maestro --partition even",
        thesis_antt_increase: Some(99.1),
        thesis_stp_improvement: Some(27.3),
    },
    Column {
        name: "smk_lrr",
        label: "SMK, loose round robin",
        args: "--kernel-sched maestro --partition even --warp-sched lrr",
        thesis_antt_increase: None,
        thesis_stp_improvement: None,
    },
    Column {
        name: "smk_kernel_lrr",
        label: "SMK, kernel-aware LRR",
        args: "--kernel-sched maestro --partition even --warp-sched kernel_lrr",
        thesis_antt_increase: None,
        thesis_stp_improvement: None,
    },
    Column {
        name: "maestro_gto",
        label: "Maestro, GTO (no kernel-aware scheduling)",
        args: "--kernel-sched maestro",
        thesis_antt_increase: Some(73.4),
        thesis_stp_improvement: Some(39.0),
    },
    Column {
        name: "maestro",
        label: "Maestro (kernel-aware LRR)",
        args: "--kernel-sched maestro --warp-sched kernel_lrr",
        thesis_antt_increase: Some(57.6),
        thesis_stp_improvement: Some(45.0),
    },
];

/// The thesis's shares of Maestro's decisions: Spatial, SMK:Even, SMK:Other, % (L1328).
pub const THESIS_DECISIONS: [f64; 3] = [13.0, 32.2, 54.8];

/// The thesis's STP gain of round robin over GTO under SMK, % (L1196).
pub const THESIS_RR_OVER_GTO: f64 = 2.5;

/// One benchmark alone.
#[derive(Clone, Debug, Serialize)]
pub struct Bench {
    /// Suite kernel and the thesis's name.
    pub name: String,
    /// See `name`.
    pub thesis_name: String,
    /// The thesis's category, and ours from `scaling`.
    pub category: Category,
    /// See `category`.
    pub measured_category: Category,
    /// Cycles alone on the whole GPU.
    pub alone_cycles: u64,
    /// IPC alone over IPC on one SM.
    pub scaling: f64,
}

/// One pair's ANTT and STP per column.
#[derive(Clone, Debug, Serialize)]
pub struct PairRow {
    /// The two kernels.
    pub first: String,
    /// See `first`.
    pub second: String,
    /// `COM/COM`, `COM/MEM` or `MEM/MEM` (the thesis's categories).
    pub category: String,
    /// Per column.
    pub antt: Vec<f64>,
    /// Per column.
    pub stp: Vec<f64>,
}

/// ANTT increase and STP improvement per column over a set of pairs (M-R3).
#[derive(Clone, Debug, Serialize)]
pub struct Aggregate {
    /// `all`, `COM/COM`, `COM/MEM` or `MEM/MEM`.
    pub category: String,
    /// Pairs in it.
    pub pairs: usize,
    /// geomean(ANTT) - 1, % per column.
    pub antt_increase: Vec<f64>,
    /// geomean(STP) - 1, % per column.
    pub stp_improvement: Vec<f64>,
}

/// One allocator's fragmentation over time.
#[derive(Clone, Debug, Serialize)]
pub struct Fragmentation {
    /// `--sm-alloc` and `--warp-sched` (`twoway, gto`).
    pub allocator: String,
    /// The pair's cycles.
    pub cycles: u64,
    /// SM-cycles refused by fragmentation, and offered.
    pub fragmented_cycles: u64,
    /// See `fragmented_cycles`.
    pub offered_cycles: u64,
    /// Per window of `window` cycles: fragmented SM-cycles over all SM-cycles, %.
    pub series: Vec<f64>,
}

/// The whole result.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Experiment name.
    pub experiment: &'static str,
    /// GPU configuration, suite size, SMs.
    pub config: String,
    /// See `config`.
    pub size: String,
    /// See `config`.
    pub sms: u32,
    /// The benchmarks alone.
    pub benchmarks: Vec<Bench>,
    /// The configurations.
    pub columns: Vec<Column>,
    /// Per pair.
    pub pairs: Vec<PairRow>,
    /// Over all pairs, then per category.
    pub aggregates: Vec<Aggregate>,
    /// Maestro's (kernel-aware LRR) decisions: how many, and the Spatial, SMK:Even and
    /// SMK:Other shares, %.
    pub decisions: usize,
    /// See `decisions`.
    pub decision_shares: [f64; 3],
    /// The fragmentation pair, the window of its series (cycles) and each allocator's.
    pub fragmentation_pair: [String; 2],
    /// See `fragmentation_pair`.
    pub window: u64,
    /// See `fragmentation_pair`.
    pub fragmentation: Vec<Fragmentation>,
}

/// A pair's category name.
fn pair_category(a: Category, b: Category) -> String {
    let (x, y) = match (a, b) {
        (Category::Mem, Category::Com) => (b, a),
        _ => (a, b),
    };
    format!("{}/{}", x.name(), y.name())
}

/// Spatial, SMK:Even and SMK:Other decisions in a Maestro report.
fn decision_counts(r: &Report) -> [u64; 3] {
    let mut n = [0; 3];
    let list = r
        .kernel_sched_stats
        .get("decisions")
        .and_then(|d| d.as_array());
    for d in list.into_iter().flatten() {
        let i = match (d["choice"].as_str(), d["nf"] == d["even_nf"]) {
            (Some("spatial"), _) => 0,
            (_, true) => 1,
            (_, false) => 2,
        };
        n[i] += 1;
    }
    n
}

/// Runs the experiment on the configurations `a` names.
pub fn run(a: &ReproArgs, size: &str, out: &Path, jobs: usize) -> Result<ExitCode> {
    let mut benchmarks = BENCHMARKS.to_vec();
    super::keep_only(&mut benchmarks, |b| b.0, &a.only, "benchmark")?;
    if benchmarks.len() < 2 {
        bail!("--only: a pair needs two benchmarks");
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    // Every figure is a headline: an attribution run runs the whole experiment.
    let measure: &Measure<'_> = &|configs, _, _| {
        let mut measured = vec![];
        for c in configs {
            let r = measure_on(&load_config(c)?, size, &benchmarks, jobs)?;
            measured.push(Measured {
                headlines: headlines(&r),
                outputs: Some((markdown(&r), serde_json::to_string_pretty(&r)?, chart(&r)?)),
                figures: vec![
                    ("fragmentation", fragmentation_chart(&r)?),
                    ("pairs", pairs_chart(&r)?),
                ],
            });
        }
        Ok(measured)
    };
    let title = "GPU Maestro (seed 003 ch. V) on two simulators";
    super::run_configs(a, ("maestro", GPGPU_SIM_3_2_2), (title, size), out, measure)
}

/// The headline figures: ANTT increase and STP improvement over all pairs of each
/// configuration the thesis gives them for.
fn headlines(r: &Results) -> Vec<Headline> {
    let all = &r.aggregates[0];
    let mut h = vec![];
    for (i, c) in r.columns.iter().enumerate() {
        if let Some(t) = c.thesis_antt_increase {
            let what = format!("{} ANTT increase", c.name);
            let ours = 1.0 + all.antt_increase[i] / 100.0;
            h.push(Headline::ratio(what, Some(1.0 + t / 100.0), ours));
        }
    }
    for (i, c) in r.columns.iter().enumerate() {
        if let Some(t) = c.thesis_stp_improvement {
            let what = format!("{} STP improvement", c.name);
            let ours = 1.0 + all.stp_improvement[i] / 100.0;
            h.push(Headline::ratio(what, Some(1.0 + t / 100.0), ours));
        }
    }
    h
}

/// Each benchmark alone on the whole GPU and on one SM, with its category; and the name of
/// its kernel in a report.
fn alone(
    cfg: &GpuConfig,
    size: &str,
    benchmarks: &[(&str, &str, Category)],
    jobs: usize,
) -> Result<(Vec<Bench>, Vec<String>)> {
    let mut one_sm = cfg.clone();
    one_sm.sm.count = 1;
    let mut alone_jobs: Vec<Job> = vec![];
    for b in benchmarks {
        alone_jobs.push(Job::new(kernel(b.0, size, 0, ""), ""));
        alone_jobs.push(Job {
            max_cycles: Some(ONE_SM_CYCLES),
            config: Some(one_sm.clone()),
            ..Job::new(kernel(b.0, size, 0, ""), "")
        });
    }
    let alone = run_all(cfg, ("maestro", "alone"), &alone_jobs, jobs)?;
    let kernels = alone.chunks(2).map(|r| r[0].kernels[0].name.clone());
    let bench = benchmarks
        .iter()
        .zip(alone.chunks(2))
        .map(|(b, r)| {
            let scaling = r[0].ipc / r[1].ipc.max(1e-9);
            Bench {
                name: b.0.into(),
                thesis_name: b.1.into(),
                category: b.2,
                measured_category: match scaling > COM_SCALING {
                    true => Category::Com,
                    false => Category::Mem,
                },
                alone_cycles: r[0].counters.cycles,
                scaling,
            }
        })
        .collect();
    Ok((bench, kernels.collect()))
}

/// The whole experiment on `cfg`.
fn measure_on(
    cfg: &GpuConfig,
    size: &str,
    benchmarks: &[(&str, &str, Category)],
    jobs: usize,
) -> Result<Results> {
    let exp = "maestro";
    let (bench, kernels) = alone(cfg, size, benchmarks, jobs)?;
    let alone_cycles = |name: &str| -> u64 {
        bench
            .iter()
            .zip(&kernels)
            .find(|(_, k)| *k == name)
            .map_or(1, |(b, _)| b.alone_cycles)
    };
    // Every pair under every column.
    let mut pair_names = vec![];
    let mut pair_jobs = vec![];
    for (i, x) in benchmarks.iter().enumerate() {
        for y in &benchmarks[i + 1..] {
            pair_names.push((x, y));
            let mix = kernel(x.0, size, 0, "") + &kernel(y.0, size, 1, "");
            for c in COLUMNS {
                pair_jobs.push(Job::new(mix.clone(), c.args));
            }
        }
    }
    let reports = run_all(cfg, (exp, "pairs"), &pair_jobs, jobs)?;
    let nc = COLUMNS.len();
    let pairs: Vec<PairRow> = pair_names
        .iter()
        .zip(reports.chunks(nc))
        .map(|((x, y), rs)| {
            let (antt, stp) = rs.iter().map(|r| antt_stp(r, &alone_cycles)).unzip();
            PairRow {
                first: x.0.into(),
                second: y.0.into(),
                category: pair_category(x.2, y.2),
                antt,
                stp,
            }
        })
        .collect();
    let aggregates = aggregate(&pairs, nc);
    let maestro = nc - 1;
    let counts = reports
        .chunks(nc)
        .map(|rs| decision_counts(&rs[maestro]))
        .fold([0u64; 3], |a, n| [a[0] + n[0], a[1] + n[1], a[2] + n[2]]);
    let decisions = counts.iter().sum::<u64>();
    let decision_shares = counts.map(|n| 100.0 * n as f64 / decisions.max(1) as f64);
    let (window, fragmentation) = fragmentation_runs(cfg, size, jobs)?;
    Ok(Results {
        experiment: exp,
        config: cfg.name.clone(),
        size: size.into(),
        sms: cfg.sm.count,
        benchmarks: bench,
        columns: COLUMNS.to_vec(),
        pairs,
        aggregates,
        decisions: decisions as usize,
        decision_shares,
        fragmentation_pair: FRAGMENTATION_PAIR.map(String::from),
        window,
        fragmentation,
    })
}

/// The fragmentation pair under each of [`FRAGMENTATION_SETUPS`]: the timeline's window
/// (cycles) and each run's fragmentation.
fn fragmentation_runs(
    cfg: &GpuConfig,
    size: &str,
    jobs: usize,
) -> Result<(u64, Vec<Fragmentation>)> {
    let frag_mix =
        kernel(FRAGMENTATION_PAIR[0], size, 0, "") + &kernel(FRAGMENTATION_PAIR[1], size, 1, "");
    let frag_jobs: Vec<Job> = FRAGMENTATION_SETUPS
        .iter()
        .map(|(al, ws)| {
            let args = format!(
                "--kernel-sched maestro --partition even --sm-alloc {al} --warp-sched {ws}"
            );
            Job::new(frag_mix.clone(), args)
        })
        .collect();
    let frag_reports = run_all(cfg, ("maestro", "fragmentation"), &frag_jobs, jobs)?;
    let window = frag_reports[0].sm_alloc_timeline.window;
    let fragmentation = FRAGMENTATION_SETUPS
        .iter()
        .zip(&frag_reports)
        .map(|((al, ws), r)| fragmentation(&format!("{al}, {ws}"), r, cfg.sm.count))
        .collect();
    Ok((window, fragmentation))
}

/// An allocator's fragmentation from its pair run.
fn fragmentation(allocator: &str, r: &Report, sms: u32) -> Fragmentation {
    let t = &r.sm_alloc_timeline;
    let stat = |k: &str| r.sm_alloc_stats.get(k).copied().unwrap_or(0);
    let per_window = (t.window * u64::from(sms)) as f64;
    Fragmentation {
        allocator: allocator.into(),
        cycles: r.counters.cycles,
        fragmented_cycles: stat("fragmented_cycles"),
        offered_cycles: stat("offered_cycles"),
        series: t
            .series
            .get("fragmented_cycles")
            .map(|s| s.iter().map(|&n| 100.0 * n as f64 / per_window).collect())
            .unwrap_or_default(),
    }
}

/// ANTT increase and STP improvement per column, over all pairs and per category (M-R3).
fn aggregate(pairs: &[PairRow], nc: usize) -> Vec<Aggregate> {
    let mut cats = vec!["all".to_string()];
    for c in ["COM/COM", "COM/MEM", "MEM/MEM"] {
        if pairs.iter().any(|p| p.category == c) {
            cats.push(c.into());
        }
    }
    cats.into_iter()
        .map(|cat| {
            let set: Vec<&PairRow> = pairs
                .iter()
                .filter(|p| cat == "all" || p.category == cat)
                .collect();
            let g = |f: &dyn Fn(&PairRow) -> f64| 100.0 * (geomean(set.iter().map(|p| f(p))) - 1.0);
            Aggregate {
                pairs: set.len(),
                antt_increase: (0..nc).map(|c| g(&|p| p.antt[c])).collect(),
                stp_improvement: (0..nc).map(|c| g(&|p| p.stp[c])).collect(),
                category: cat,
            }
        })
        .collect()
}

/// The thesis's figures beside ours, as bars.
fn chart(r: &Results) -> Result<String> {
    let all = &r.aggregates[0];
    let mut items = vec![];
    for (i, c) in r.columns.iter().enumerate() {
        if let Some(t) = c.thesis_antt_increase {
            items.push((format!("ANTT+ {}", c.name), t, all.antt_increase[i]));
        }
    }
    for (i, c) in r.columns.iter().enumerate() {
        if let Some(t) = c.thesis_stp_improvement {
            items.push((format!("STP {}", c.name), t, all.stp_improvement[i]));
        }
    }
    for (i, name) in ["spatial", "SMK:Even", "SMK:Other"].iter().enumerate() {
        items.push((
            format!("dec. {name}"),
            THESIS_DECISIONS[i],
            r.decision_shares[i],
        ));
    }
    super::chart::thesis_beside_ours(
        &format!(
            "GPU Maestro on {} ({}): ANTT increase, STP improvement, decisions (%)",
            r.config, r.size
        ),
        "%",
        &items,
    )
}

/// Fragmentation over time, one line per allocator.
fn fragmentation_chart(r: &Results) -> Result<String> {
    let series: Vec<(String, Vec<(f64, f64)>)> = r
        .fragmentation
        .iter()
        .map(|f| {
            let pts = f
                .series
                .iter()
                .enumerate()
                .map(|(i, &v)| ((i as u64 * r.window) as f64, v))
                .collect();
            (f.allocator.clone(), pts)
        })
        .collect();
    super::chart::lines(
        &format!(
            "{} + {} on {} ({}): SM-cycles refused by fragmentation",
            r.fragmentation_pair[0], r.fragmentation_pair[1], r.config, r.size
        ),
        ("cycle", "% of SM-cycles"),
        &series,
    )
}

/// Every pair's STP per configuration, as a gain over running its kernels one after the other
/// (STP 1).
fn pairs_chart(r: &Results) -> Result<String> {
    let cols: Vec<String> = r.columns.iter().map(|c| c.name.to_string()).collect();
    let rows: Vec<String> = r
        .pairs
        .iter()
        .map(|p| format!("{} + {} ({})", p.first, p.second, p.category))
        .collect();
    let values: Vec<Vec<Option<f64>>> = r
        .pairs
        .iter()
        .map(|p| p.stp.iter().map(|s| Some(100.0 * (s - 1.0))).collect())
        .collect();
    let title = format!(
        "GPU Maestro on {} ({}): STP - 1 per pair, %",
        r.config, r.size
    );
    super::chart::heatmap(&title, (&rows, &cols), &values, 50.0)
}

/// The result as Markdown.
pub fn markdown(r: &Results) -> String {
    let mut s = String::new();
    let names: Vec<&str> = r.columns.iter().map(|c| c.name).collect();
    let _ = writeln!(
        s,
        "# GPU Maestro (seed 003 ch. V) on `{}` ({} SMs), size `{}`\n\n{} pairs, both kernels at cycle 0; ANTT and STP against each kernel alone on the whole GPU; aggregated by geometric mean (M-R3). Columns:\n",
        r.config,
        r.sms,
        r.size,
        r.pairs.len()
    );
    for c in &r.columns {
        let _ = writeln!(s, "- `{}`: {} (`{}`)", c.name, c.label, c.args);
    }
    let _ = writeln!(s, "\n| pairs | metric | {} |", names.join(" | "));
    let _ = writeln!(s, "|---|---|{}", "---:|".repeat(names.len()));
    let thesis = |v: Option<f64>| v.map_or("—".to_string(), |x| format!("{x:.1}"));
    for a in &r.aggregates {
        let row = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.1}"))
                .collect::<Vec<_>>()
                .join(" | ")
        };
        let _ = writeln!(
            s,
            "| {} ({}) | ANTT increase, % | {} |",
            a.category,
            a.pairs,
            row(&a.antt_increase)
        );
        let _ = writeln!(
            s,
            "| {} ({}) | STP improvement, % | {} |",
            a.category,
            a.pairs,
            row(&a.stp_improvement)
        );
    }
    let t_antt: Vec<String> = r
        .columns
        .iter()
        .map(|c| thesis(c.thesis_antt_increase))
        .collect();
    let t_stp: Vec<String> = r
        .columns
        .iter()
        .map(|c| thesis(c.thesis_stp_improvement))
        .collect();
    let _ = writeln!(
        s,
        "| thesis (231) | ANTT increase, % | {} |",
        t_antt.join(" | ")
    );
    let _ = writeln!(
        s,
        "| thesis (231) | STP improvement, % | {} |",
        t_stp.join(" | ")
    );
    let all = &r.aggregates[0];
    let rr = 100.0
        * ((1.0 + all.stp_improvement[2] / 100.0) / (1.0 + all.stp_improvement[1] / 100.0) - 1.0);
    let _ = writeln!(
        s,
        "\nRound robin over GTO under SMK: STP {rr:+.1}% (thesis: +{THESIS_RR_OVER_GTO}%, L1196).\n\nMaestro's decisions ({}): {:.1}% Spatial, {:.1}% SMK:Even, {:.1}% SMK:Other (thesis: {:.1} / {:.1} / {:.1}, L1328).\n",
        r.decisions,
        r.decision_shares[0],
        r.decision_shares[1],
        r.decision_shares[2],
        THESIS_DECISIONS[0],
        THESIS_DECISIONS[1],
        THESIS_DECISIONS[2]
    );
    let _ = writeln!(
        s,
        "Fragmentation, {} + {} under the even SMK split (`-fragmentation.svg` beside this page, windows of {} cycles):\n\n| allocator, warp scheduler | cycles | SM-cycles refused by fragmentation | % of offered | worst window, % of SM-cycles |\n|---|---:|---:|---:|---:|",
        r.fragmentation_pair[0], r.fragmentation_pair[1], r.window
    );
    for f in &r.fragmentation {
        let worst = f.series.iter().cloned().fold(0.0, f64::max);
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {:.1} | {:.1} |",
            f.allocator,
            f.cycles,
            f.fragmented_cycles,
            100.0 * f.fragmented_cycles as f64 / f.offered_cycles.max(1) as f64,
            worst
        );
    }
    let _ = writeln!(
        s,
        "\nBenchmarks (COM: more than {COM_SCALING}x from one SM to {}, L1254; ours from IPC alone over IPC on one SM in its first {ONE_SM_CYCLES} cycles):\n\n| kernel | thesis | category (thesis) | ours | scaling, x | cycles alone |\n|---|---|---|---|---:|---:|",
        r.sms
    );
    for b in &r.benchmarks {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {:.1} | {} |",
            b.name,
            b.thesis_name,
            b.category.name(),
            b.measured_category.name(),
            b.scaling,
            b.alone_cycles
        );
    }
    let _ = writeln!(
        s,
        "\n| pair | category | {} |",
        names
            .iter()
            .map(|n| format!("{n}: ANTT / STP"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(s, "|---|---|{}", "---:|".repeat(names.len()));
    for p in &r.pairs {
        let cells: Vec<String> = p
            .antt
            .iter()
            .zip(&p.stp)
            .map(|(a, t)| format!("{a:.2} / {t:.2}"))
            .collect();
        let _ = writeln!(
            s,
            "| {} + {} | {} | {} |",
            p.first,
            p.second,
            p.category,
            cells.join(" | ")
        );
    }
    s
}
