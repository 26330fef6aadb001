//! `gpusched repro paws`: Phase-Aware Warp Scheduling's evaluation (seed 002 L408-L422; spec
//! §3.2, §3.5, P-R1, P-R2, P-R5) on the golden GPU model: LRR, GTO and PAWS, and their
//! two-level forms TL-RR, TL-GTO and TL-PAWS (plus TL-PAWS with the key every cycle, the
//! spec's extension C8, reported apart) over the report's benchmarks
//! (vectorAdd as the shared trace, backprop, hotspot, bfs and lud as the suite's mirrors) and
//! the spec's two phase-structured kernels, on GPGPU-Sim 3.2.2's GTX480 (the report ran
//! GPGPU-Sim 3.x with a Fermi C2050) and the calibrated one side by side
//! ([`super::side_by_side`]: the headline figures beside the report's and the PACT paper's,
//! with what moves each between the two). The report's results are qualitative: which of RR
//! and GTO is better on each benchmark, and PAWS close to the better one (the PACT paper's
//! 99.2% and 98%, against two-level RR). A sweep of phase kernels from App A to App B follows
//! ([`sweep`]).

mod sweep;

use super::chart;
use super::side_by_side::{Headline, Measure, Measured, Unit};
use super::{geomean, ReproArgs};
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

/// Which baseline the report (or the spec, for the phase kernels) finds faster on a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Favours {
    /// GTO faster than RR.
    Gto,
    /// RR faster than GTO.
    Rr,
}

impl Favours {
    /// As the tables name it (`tie` for neither).
    fn name(favours: Option<Self>) -> &'static str {
        match favours {
            Some(Favours::Gto) => "GTO",
            Some(Favours::Rr) => "RR",
            None => "tie",
        }
    }
}

/// The workloads: (name, what the report says of it, L408-L416, and the baseline it finds
/// faster).
const WORKLOADS: &[(&str, &str, Favours)] = &[
    (
        "vectoradd-100-32",
        "GTO > RR; PAWS close to GTO",
        Favours::Gto,
    ),
    ("bp", "GTO > RR > PAWS (P-R5)", Favours::Gto),
    ("hs", "RR > GTO; PAWS close to RR", Favours::Rr),
    ("bfs", "RR > GTO; PAWS close to RR", Favours::Rr),
    ("lud", "RR > GTO; PAWS close to RR", Favours::Rr),
    (
        "phase_msl",
        "App A, short phase mid-kernel: GTO > RR (spec §3.5)",
        Favours::Gto,
    ),
    (
        "phase_mls",
        "App B, long phase mid-kernel: RR > GTO (spec §3.5)",
        Favours::Rr,
    ),
];

/// The PACT paper's PAWS relative to the better policy: on GTO-favoured applications, on
/// RR-favoured ones, % (its abstract, spec L867; against two-level RR, P-R5).
const PACT: (f64, f64) = (99.2, 98.0);

/// The simulator the report ran on, as its side-by-side page says.
const SIMULATOR: &str = "GPGPU-Sim 3.2.2, for the report's GPGPU-Sim 3.x (it names no release)";

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

    /// Which baseline is faster at a level (`None`: a tie).
    fn better(&self, base: usize) -> Option<Favours> {
        match self.cycles[base + 1].cmp(&self.cycles[base]) {
            std::cmp::Ordering::Less => Some(Favours::Gto),
            std::cmp::Ordering::Greater => Some(Favours::Rr),
            std::cmp::Ordering::Equal => None,
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
    /// Its cycles.
    pub cell: Cell,
}

/// The whole result on one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// `paws`.
    pub experiment: &'static str,
    /// The configuration.
    pub config: String,
    /// Suite size.
    pub size: String,
    /// The schedulers.
    pub policies: Vec<&'static str>,
    /// Per workload.
    pub rows: Vec<Row>,
    /// The geometric mean of PAWS relative to the better baseline.
    pub paws_of_best: f64,
    /// The same for TL-PAWS against TL-RR and TL-GTO.
    pub tl_paws_of_best: f64,
    /// The same for TL-PAWS with the key every cycle (the extension).
    pub tl_inner_of_best: f64,
    /// TL-PAWS relative to TL-RR (the PACT paper's baseline).
    pub tl_paws_of_tl_rr: f64,
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

/// Opens the `i`th workload of a run.
type Opener<'a> = dyn Fn(usize) -> Result<Box<dyn WorkloadSource>> + Sync + 'a;

/// Runs each workload `open` opens (by its index in `names`) under each of `policies` on
/// `config`: every (workload, scheduler) pair a job of its own on `jobs` threads, so that a
/// long workload's schedulers spread over the threads. Gives each workload's cell, in order.
fn measure_all(
    names: &[String],
    open: &Opener<'_>,
    config: &str,
    policies: &[(&str, &str)],
    jobs: usize,
) -> Result<Vec<Cell>> {
    let cfg = crate::cmd::sim::load_config(config)?;
    let pairs: Vec<(usize, &str)> = (0..names.len())
        .flat_map(|w| policies.iter().map(move |p| (w, p.1)))
        .collect();
    let runs = super::pool::map(jobs, &pairs, &|&(w, args)| {
        let opts = SimOptions::parse(args).expect("the columns parse");
        let mut gpu = Gpu::golden(&cfg, opts)?;
        let r = (open(w).and_then(|mut wl| Ok(gpu.run(wl.as_mut(), &mut |_| {})?)))
            .with_context(|| format!("{} under `{args}` on {config}", names[w]))?;
        let found = r
            .kernels
            .iter()
            .filter_map(|k| k.prepared.get("paws_phases"));
        let phases: u64 = found.filter_map(|v| v.as_u64()).sum();
        Ok((r.counters.cycles, phases))
    })?;
    Ok(runs
        .chunks(policies.len().max(1))
        .map(|c| Cell {
            cycles: c.iter().map(|r| r.0).collect(),
            phases: c.iter().map(|r| r.1).max().unwrap_or(0),
        })
        .collect())
}

/// One level's table: the three schedulers from column `base`, the faster baseline and the
/// third relative to it, then `extra` columns (header, value of a cell), and the report's word.
fn level_table(md: &mut String, r: &Results, base: usize, names: [&str; 3], extra: &[Extra]) {
    let [a, b, c] = names;
    let _ = write!(
        md,
        "| workload | phases | {a} | {b} | {c} | faster | {c} / faster |"
    );
    for (h, _) in extra {
        let _ = write!(md, " {h} |");
    }
    let _ = writeln!(md, " the report |");
    let _ = write!(md, "|---|---:|---:|---:|---:|---|---:|");
    md.push_str(&"---:|".repeat(extra.len()));
    let _ = writeln!(md, "---|");
    for row in &r.rows {
        let c = &row.cell;
        let _ = write!(
            md,
            "| {} | {} | {} | {} | {} | {} | {:.1}% |",
            row.workload,
            c.phases,
            c.cycles[base],
            c.cycles[base + 1],
            c.cycles[base + 2],
            Favours::name(c.better(base)),
            100.0 * c.of_best(base, base + 2)
        );
        for (_, f) in extra {
            let _ = write!(md, " {} |", f(c));
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

/// The Markdown report on one configuration.
fn markdown(r: &Results) -> String {
    let mut md = format!(
        "# PAWS (seed 002) on `{}`: LRR, GTO and PAWS, single level and two-level, size `{}`\n\n\
         Cycles per scheduler, which baseline is faster, and PAWS's performance relative to \
         the faster one (100%: as fast). The report's results are qualitative (L408-L416); its \
         last column says what it found for the single level (two-level: \"trends are \
         similar\", L416).\n\n",
        r.config, r.size
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
    let _ = writeln!(
        md,
        "| **geometric mean** | | | | | | **{:.1}%** | |",
        100.0 * r.paws_of_best
    );
    let _ = write!(
        md,
        "\n## Two-level\n\n\
         Active lists of `sm.two_level_max_active` warps per scheduler (6, the report's ready \
         queue), demotion on a long-latency wait, promotion from the pending FIFO's head, inner \
         LRR (P-R2): TL-RR never sorts the active list, TL-GTO sorts it oldest first after a \
         promotion, TL-PAWS by (distance, age) (P-R1). TL-PAWS / TL-RR is against the PACT \
         paper's baseline (its 99.2% and 98% are against two-level RR, P-R5). *inner*: TL-PAWS \
         granting the active warp of the smallest distance every cycle (spec C8, an extension, \
         never compared with the report).\n\n"
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
    let _ = writeln!(
        md,
        "| **geometric mean** | | | | | | **{:.1}%** | **{:.1}%** | | **{:.1}%** | PACT: 99.2% \
         (GTO-favoured), 98% (RR-favoured), vs two-level RR |",
        100.0 * r.tl_paws_of_best,
        100.0 * r.tl_paws_of_tl_rr,
        100.0 * r.tl_inner_of_best
    );
    if !r.sweep.is_empty() {
        sweep::markdown(&mut md, &r.sweep);
    }
    md
}

/// The chart: per workload, PAWS and TL-PAWS relative to the faster baseline of their level.
fn svg(r: &Results) -> Result<String> {
    let items: Vec<(String, Vec<Option<f64>>)> = r
        .rows
        .iter()
        .map(|row| {
            let c = &row.cell;
            let v = vec![
                Some(100.0 * c.paws_of_best()),
                Some(100.0 * c.tl_paws_of_best()),
            ];
            (row.workload.clone(), v)
        })
        .collect();
    let series: Vec<String> = ["PAWS", "TL-PAWS"].map(String::from).to_vec();
    chart::ours_grouped_bars(
        &format!(
            "PAWS on {} (size {}): relative to the faster of RR and GTO at its level",
            r.config, r.size
        ),
        "% of the faster baseline's performance",
        &series,
        &items,
    )
}

/// The headline figures: how often the faster single-level baseline is the report's, PAWS
/// relative to the faster baseline, and TL-PAWS relative to it on the report's GTO-favoured and
/// RR-favoured workloads (the PACT paper's two figures); a class without a workload (`--only`)
/// gives no figure.
fn headlines(r: &Results) -> Vec<Headline> {
    let percent = |what: &str, paper, ours| Headline {
        what: what.into(),
        unit: Unit::Percent,
        paper,
        ours,
    };
    let favours = |w: &str| WORKLOADS.iter().find(|x| x.0 == w).map(|x| x.2);
    let agree = r
        .rows
        .iter()
        .filter(|row| favours(&row.workload).is_some_and(|f| row.cell.better(0) == Some(f)))
        .count();
    let mut h = vec![
        percent(
            "workloads whose faster baseline is the report's, single level",
            Some(100.0),
            100.0 * agree as f64 / r.rows.len().max(1) as f64,
        ),
        percent(
            "PAWS / the faster of LRR and GTO (geomean)",
            None,
            100.0 * r.paws_of_best,
        ),
    ];
    for (class, what, paper) in [
        (Favours::Gto, "GTO-favoured", PACT.0),
        (Favours::Rr, "RR-favoured", PACT.1),
    ] {
        let cells: Vec<&Cell> = (r.rows.iter())
            .filter(|row| favours(&row.workload) == Some(class))
            .map(|row| &row.cell)
            .collect();
        if !cells.is_empty() {
            let what = format!("TL-PAWS / the faster of TL-RR and TL-GTO, {what} (PACT)");
            let mean = geomean(cells.iter().map(|c| c.tl_paws_of_best()));
            h.push(percent(&what, Some(paper), 100.0 * mean));
        }
    }
    h
}

/// The workloads the run keeps: (name, what the report says), and those left out at a
/// paper's size.
type Chosen = (Vec<(&'static str, &'static str)>, Vec<String>);

/// The workloads `a` and `size` choose.
fn choose(a: &ReproArgs, size: &str) -> Result<Chosen> {
    let mut workloads: Vec<(&str, &str)> = WORKLOADS
        .iter()
        .map(|w| (w.0, w.1))
        .filter(|(w, _)| !w.contains('-') || a.traces.join(w).join("kernelslist.g").is_file())
        .collect();
    workloads.retain(|(w, _)| a.only.is_empty() || a.only.iter().any(|o| o == w));
    // At a paper's size the traces stay; the suite kernels without the size are left out.
    let left_out: Vec<String> = super::without_size_where(&mut workloads, size, |w, table| {
        w.0.contains('-') || table.find(w.0).is_some()
    })?
    .into_iter()
    .map(|w| w.0.to_string())
    .collect();
    if workloads.is_empty() {
        anyhow::bail!(
            "no workload to run (--only names none of the experiment's; a point of the sweep \
             from App A to App B, such as {}, runs beside one of them)",
            sweep::name(sweep::MIDDLE[0])
        );
    }
    Ok((workloads, left_out))
}

/// The experiment on `config`: every workload on `jobs` threads, then the sweep.
fn measure_on(
    a: &ReproArgs,
    size: &str,
    chosen: &Chosen,
    config: &str,
    jobs: usize,
) -> Result<Results> {
    let (workloads, left_out) = chosen;
    let open = |i: usize| open(workloads[i].0, size, &a.traces);
    let names: Vec<String> = workloads.iter().map(|w| w.0.to_string()).collect();
    let cells = measure_all(&names, &open, config, &POLICIES, jobs)?;
    let rows: Vec<Row> = workloads
        .iter()
        .zip(cells)
        .map(|((w, report), cell)| Row {
            workload: w.to_string(),
            report,
            cell,
        })
        .collect();
    let mean = |f: &dyn Fn(&Cell) -> f64| geomean(rows.iter().map(|r| f(&r.cell)));
    let keep = |w: &str| a.only.is_empty() || a.only.iter().any(|o| o == w);
    let sweep = match gpusim::workload::synth::paper::size(size) {
        Some(_) => vec![],
        None => sweep::run(size, config, jobs, &keep)?,
    };
    Ok(Results {
        experiment: "paws",
        config: config.to_string(),
        size: size.to_string(),
        policies: POLICIES.iter().map(|p| p.0).collect(),
        paws_of_best: mean(&Cell::paws_of_best),
        tl_paws_of_best: mean(&Cell::tl_paws_of_best),
        tl_inner_of_best: mean(&|c| c.of_best(TWO_LEVEL, TWO_LEVEL + 3)),
        tl_paws_of_tl_rr: mean(&tl_paws_of_tl_rr),
        rows,
        sweep,
        left_out: left_out.clone(),
    })
}

/// Runs the experiment on each configuration (side by side on the two default presets, with
/// what moves each headline figure; `--attribute` switches one mechanism at a time).
pub fn run(a: &ReproArgs, size: &str, out: &Path, jobs: usize) -> Result<ExitCode> {
    let chosen = choose(a, size)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let measure: &Measure<'_> = &|configs, _, _| {
        let mut measured = vec![];
        for c in configs {
            let r = measure_on(a, size, &chosen, c, jobs)?;
            measured.push(Measured {
                headlines: headlines(&r),
                outputs: Some((markdown(&r), serde_json::to_string_pretty(&r)?, svg(&r)?)),
                figures: vec![],
            });
        }
        Ok(measured)
    };
    let title = "PAWS (seed 002) on two simulators";
    super::run_configs(a, ("paws", SIMULATOR), (title, size), out, measure)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(workload: &str, cycles: [u64; 7]) -> Row {
        Row {
            workload: workload.into(),
            report: "",
            cell: Cell {
                cycles: cycles.to_vec(),
                phases: 2,
            },
        }
    }

    /// The share counts the workloads whose faster single-level baseline is the report's (a
    /// tie is neither), and each PACT class averages TL-PAWS over its own workloads only; a
    /// class without a workload gives no figure.
    #[test]
    fn headlines_count_the_reports_baseline_and_split_by_its_classes() {
        let rows = vec![
            // The report: GTO faster; here GTO faster. TL-PAWS at 90% of TL-GTO.
            row("bp", [100, 90, 95, 100, 90, 100, 100]),
            // The report: RR faster; here GTO faster. TL-PAWS at 80% of TL-RR.
            row("hs", [100, 90, 95, 80, 100, 100, 100]),
            // The report: RR faster; a tie here. TL-PAWS as fast as TL-RR.
            row("lud", [100, 100, 95, 50, 60, 50, 50]),
        ];
        let r = Results {
            experiment: "paws",
            config: "gtx480".into(),
            size: "medium".into(),
            policies: POLICIES.iter().map(|p| p.0).collect(),
            rows,
            paws_of_best: 0.95,
            tl_paws_of_best: 0.9,
            tl_inner_of_best: 0.9,
            tl_paws_of_tl_rr: 0.9,
            sweep: vec![],
            left_out: vec![],
        };
        let h = headlines(&r);
        assert_eq!(h.len(), 4);
        assert!((h[0].ours - 100.0 / 3.0).abs() < 1e-9, "{h:?}");
        assert_eq!(h[0].paper, Some(100.0));
        assert_eq!(h[1].ours, 95.0);
        assert!((h[2].ours - 90.0).abs() < 1e-9, "{h:?}");
        assert_eq!(h[2].paper, Some(PACT.0));
        assert!(
            (h[3].ours - 100.0 * (0.8f64 * 1.0).sqrt()).abs() < 1e-9,
            "{h:?}"
        );
        let only_gto = Results {
            rows: r.rows[..1].to_vec(),
            ..r.clone()
        };
        let h = headlines(&only_gto);
        assert_eq!(h.len(), 3);
        assert!(h[2].what.contains("GTO-favoured"), "{h:?}");
    }
}
