//! `gpusched repro locality`: seed 000's experiment (ch. 5; spec `locality_bypass_paws.md`
//! §1.2, §1.5) on the golden GPU model: RR and BCS thread-block dispatch, locality-aware
//! dispatch alone (LA-TB) and with the locality-aware warp scheduler (LA-TB + LAWS), over the
//! suite's type I (row-major sharing), type II (column-major sharing) and type III (no sharing)
//! kernels; speedups over RR + GTO, L1D miss rates and the stall breakdown, with the thesis's
//! figures beside ours. The rectangle mode, the candidate window and the active-group size
//! are further columns (the experiment's sweep axes).

use super::side_by_side::{Headline, Measure, Measured, GPGPU_SIM_3_2_2};
use super::{geomean, keep_only, run_configs, run_reports_on, without_size, ReproArgs};
use crate::cmd::sim::load_config;
use anyhow::{Context, Result};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The suite kernels by the thesis's categories (Table 5.1; `locality_row`/`locality_col` are
/// the spec's §1.5 generators).
pub const TYPES: &[(&str, &[&str])] = &[
    ("I", &["hs", "srad", "conv", "his", "bp", "locality_row"]),
    ("II", &["lud", "tran", "gaussian", "sift", "locality_col"]),
    ("III", &["nn", "nw"]),
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

/// The configurations, the baseline (RR + GTO) first; `la_laws_scan` is LAWS with the
/// timing of its `scan` module, `la_laws_board` both blocks with the timing of the modules
/// that place and route on the boards.
pub fn columns() -> Vec<Column> {
    let c = |name, label, args| Column { name, label, args };
    vec![
        c(
            "rr",
            "RR + GTO (baseline)",
            "--tb-sched lrr --warp-sched gto",
        ),
        c("bcs", "BCS + GTO", "--tb-sched bcs --warp-sched gto"),
        c("la", "LA-TB + GTO", "--tb-sched locality --warp-sched gto"),
        c(
            "la_laws",
            "LA-TB + LAWS",
            "--tb-sched locality --warp-sched laws",
        ),
        c(
            "la_laws_scan",
            "LA-TB + LAWS (scan)",
            "--tb-sched locality --warp-sched laws --la-search scan",
        ),
        c(
            "la_laws_board",
            "LA-TB (window 32, serial engine) + LAWS (scan), as on the boards",
            "--tb-sched locality --la-window 32 --la-engine serial --warp-sched laws \
             --la-search scan",
        ),
        c(
            "la_window32",
            "LA-TB (window 32) + GTO",
            "--tb-sched locality --la-window 32 --warp-sched gto",
        ),
        c(
            "la_bbox",
            "LA-TB (bounding boxes) + GTO",
            "--tb-sched locality --la-rect bbox --warp-sched gto",
        ),
        c(
            "la_laws_k4",
            "LA-TB + LAWS, K = 4",
            "--tb-sched locality --warp-sched laws --la-active 4",
        ),
        c(
            "la_laws_k8",
            "LA-TB + LAWS, K = 8",
            "--tb-sched locality --warp-sched laws --la-active 8",
        ),
        c(
            "la_laws_k16",
            "LA-TB + LAWS, K = 16",
            "--tb-sched locality --warp-sched laws --la-active 16",
        ),
    ]
}

/// One simulation's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// Core cycles.
    pub cycles: u64,
    /// Cycles of RR + GTO over these (speedup).
    pub speedup: f64,
    /// L1D read miss rate.
    pub l1d_miss_rate: f64,
    /// Scheduler-cycles without an issue, by cause (fractions of all scheduler-cycles):
    /// structural (a unit or the LSU busy), idle or control (nothing fetched, barriers), RAW
    /// (operands not ready).
    pub stall_structural: f64,
    /// See `stall_structural`.
    pub stall_idle: f64,
    /// See `stall_structural`.
    pub stall_raw: f64,
}

/// One workload.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Suite kernel.
    pub workload: String,
    /// Its category (I, II, III).
    pub category: &'static str,
    /// Waves of thread blocks under RR + GTO: blocks over what the GPU holds at once
    /// ([`super::waves`]); below [`super::MIN_WAVES`] the dispatch order can matter little.
    pub waves: f64,
    /// Per column.
    pub cells: Vec<Cell>,
}

/// A thesis figure beside ours.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// What is compared.
    pub what: &'static str,
    /// Over which workloads.
    pub over: &'static str,
    /// The thesis's speedup (1.26 = +26%) and where it says so.
    pub thesis: f64,
    /// The line in seed 000.
    pub source: &'static str,
    /// Ours (geometric mean over the workloads).
    pub ours: f64,
}

/// The whole result.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Experiment name.
    pub experiment: &'static str,
    /// GPU configuration.
    pub config: String,
    /// Suite size.
    pub size: String,
    /// The configurations.
    pub columns: Vec<Column>,
    /// Per workload, by category.
    pub rows: Vec<Row>,
    /// Geometric-mean speedup over RR + GTO per column: all workloads, then per category.
    pub geomean: Vec<(String, Vec<f64>)>,
    /// The thesis's headline figures beside ours.
    pub comparisons: Vec<Comparison>,
    /// Workloads of the experiment left out because they have no workload at this size (at a
    /// paper's size, those the paper did not run or the suite does not mirror yet).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
}

fn cell(r: &serde_json::Value) -> Result<Cell> {
    let n = |path: &str| super::counter(r, path);
    let slots =
        (n("stalls.issued")? + n("stalls.idle")? + n("stalls.raw")? + n("stalls.structural")?)
            .max(1) as f64;
    Ok(Cell {
        cycles: n("cycles")?,
        speedup: 1.0,
        l1d_miss_rate: super::rate(n("l1d.misses")?, super::reads(r, "l1d")?),
        stall_structural: n("stalls.structural")? as f64 / slots,
        stall_idle: n("stalls.idle")? as f64 / slots,
        stall_raw: n("stalls.raw")? as f64 / slots,
    })
}

/// Geometric mean over `rows` of column `a`'s speedup over column `b`'s.
fn ratio(rows: &[&Row], a: usize, b: usize) -> f64 {
    geomean(
        rows.iter()
            .map(|r| r.cells[b].cycles as f64 / r.cells[a].cycles.max(1) as f64),
    )
}

/// The columns the thesis's headline figures compare.
const HEADLINE: [&str; 4] = ["rr", "bcs", "la", "la_laws"];

/// Runs the experiment on the configurations `a` names.
pub fn run(a: &ReproArgs, size: &str, out: &Path, jobs: usize) -> Result<ExitCode> {
    for c in a.configs() {
        let cfg = load_config(c)?;
        let check = |args: &str| -> Result<()> {
            Ok(gpusim::gpu::SimOptions::parse(args)?.plan.check(&cfg)?)
        };
        check("--tb-sched locality").with_context(|| format!("repro locality on {c}"))?;
        check("--warp-sched laws --la-active 16")
            .with_context(|| format!("repro locality on {c} (K up to 16)"))?;
    }
    let mut workloads: Vec<(String, Option<PathBuf>)> = TYPES
        .iter()
        .flat_map(|(_, ws)| ws.iter().map(|w| (w.to_string(), None)))
        .collect();
    keep_only(&mut workloads, |w| &w.0, &a.only, "workload")?;
    let left_out = without_size(&mut workloads, size)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let measure: &Measure<'_> = &|configs, headline_only, sweep| {
        let cols: Vec<Column> = columns()
            .into_iter()
            .filter(|c| !(headline_only || a.headline) || HEADLINE.contains(&c.name))
            .collect();
        let policies: Vec<(&str, &str)> = cols.iter().map(|c| (c.name, c.args)).collect();
        let tables = run_reports_on(sweep, &policies, configs, &workloads, size, jobs, out)?;
        let mut measured = vec![];
        for (c, reports) in configs.iter().zip(tables) {
            let rows = rows(&workloads, &reports)?;
            let mut results = summarize(&load_config(c)?.name, size, cols.clone(), rows);
            results.left_out = left_out.clone();
            let headlines = results
                .comparisons
                .iter()
                .map(|c| {
                    Headline::ratio(format!("{} ({})", c.what, c.over), Some(c.thesis), c.ours)
                })
                .collect();
            let outputs = match headline_only {
                true => None,
                false => Some((
                    markdown(&results),
                    serde_json::to_string_pretty(&results)?,
                    chart(&results)?,
                )),
            };
            let figures = match headline_only {
                true => vec![],
                false => vec![("kernels", kernels_chart(&results)?)],
            };
            measured.push(Measured {
                headlines,
                outputs,
                figures,
            });
        }
        Ok(measured)
    };
    let title = "Locality-aware dispatch and warp scheduling (seed 000) on two simulators";
    run_configs(
        a,
        ("locality", GPGPU_SIM_3_2_2),
        (title, size),
        out,
        measure,
    )
}

/// The rows of `reports` (per workload, one report per column, the baseline first).
fn rows(
    workloads: &[(String, Option<PathBuf>)],
    reports: &[Vec<serde_json::Value>],
) -> Result<Vec<Row>> {
    let mut rows = vec![];
    for ((name, _), reps) in workloads.iter().zip(reports) {
        let mut cells = reps.iter().map(cell).collect::<Result<Vec<_>>>()?;
        let base = cells[0].cycles as f64;
        for c in &mut cells {
            c.speedup = base / c.cycles.max(1) as f64;
        }
        let category = TYPES
            .iter()
            .find(|(_, ws)| ws.contains(&name.as_str()))
            .map(|t| t.0)
            .expect("every workload has a type");
        rows.push(Row {
            workload: name.clone(),
            category,
            waves: super::waves(&reps[0])?,
            cells,
        });
    }
    Ok(rows)
}

/// Geometric means and the thesis comparisons of `rows`.
pub fn summarize(config: &str, size: &str, columns: Vec<Column>, rows: Vec<Row>) -> Results {
    let col = |n: &str| columns.iter().position(|c| c.name == n).expect("a column");
    let of = |cats: &[&str]| -> Vec<&Row> {
        rows.iter().filter(|r| cats.contains(&r.category)).collect()
    };
    let mut geomean_rows = vec![(
        "all".to_string(),
        (0..columns.len())
            .map(|c| geomean(rows.iter().map(|r| r.cells[c].speedup)))
            .collect(),
    )];
    for (t, _) in TYPES {
        let rs = of(&[t]);
        if !rs.is_empty() {
            geomean_rows.push((
                format!("type {t}"),
                (0..columns.len())
                    .map(|c| geomean(rs.iter().map(|r| r.cells[c].speedup)))
                    .collect(),
            ));
        }
    }
    let (rr, bcs, la, laws) = (col("rr"), col("bcs"), col("la"), col("la_laws"));
    let all = of(&["I", "II", "III"]);
    let i_ii = of(&["I", "II"]);
    let ii = of(&["II"]);
    let comparisons = vec![
        Comparison {
            what: "LA-TB + LAWS over RR + GTO",
            over: "all",
            thesis: 1.26,
            source: "L176: up to 59%, 26% on average over RR",
            ours: ratio(&all, laws, rr),
        },
        Comparison {
            what: "LA-TB + LAWS over BCS + GTO",
            over: "all",
            thesis: 1.10,
            source: "L176, L585: 10% on average over BCS",
            ours: ratio(&all, laws, bcs),
        },
        Comparison {
            what: "LA-TB + GTO over BCS + GTO",
            over: "type II",
            thesis: 1.24,
            source: "L513: the TB scheduler alone, +24% on type II",
            ours: ratio(&ii, la, bcs),
        },
        Comparison {
            what: "LA-TB + LAWS over LA-TB + GTO",
            over: "types I and II",
            thesis: 1.03,
            source: "L521: the warp scheduler adds 3% on average",
            ours: ratio(&i_ii, laws, la),
        },
    ];
    Results {
        experiment: "locality",
        config: config.to_string(),
        size: size.to_string(),
        columns,
        rows,
        geomean: geomean_rows,
        comparisons,
        left_out: vec![],
    }
}

fn pct(x: f64) -> String {
    format!("{:+.1}%", 100.0 * (x - 1.0))
}

/// The Markdown report.
pub fn markdown(r: &Results) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Locality-aware dispatch and warp scheduling (seed 000) on `{}`, suite size `{}`\n",
        r.config, r.size
    );
    if !r.left_out.is_empty() {
        let _ = writeln!(
            s,
            "Left out of every row and mean: {} (no `{}` size yet).\n",
            r.left_out.join(", "),
            r.size
        );
    }
    let _ = writeln!(s, "## The thesis's figures beside ours\n");
    let _ = writeln!(s, "| comparison | over | thesis | ours | thesis source |");
    let _ = writeln!(s, "|---|---|---:|---:|---|");
    for c in &r.comparisons {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            c.what,
            c.over,
            pct(c.thesis),
            pct(c.ours),
            c.source
        );
    }
    let _ = writeln!(
        s,
        "\n## Speedup over RR + GTO (cycles of RR + GTO over the column's)\n"
    );
    let _ = write!(s, "| workload | type | waves | RR + GTO cycles |");
    for c in &r.columns[1..] {
        let _ = write!(s, " {} |", c.label);
    }
    let _ = write!(s, "\n|---|---|---:|---:|");
    for _ in &r.columns[1..] {
        let _ = write!(s, "---:|");
    }
    s.push('\n');
    for row in &r.rows {
        let _ = write!(
            s,
            "| {} | {} | {} | {} |",
            row.workload,
            row.category,
            super::waves_cell(row.waves),
            row.cells[0].cycles
        );
        for c in &row.cells[1..] {
            let _ = write!(s, " {} |", pct(c.speedup));
        }
        s.push('\n');
    }
    for (name, g) in &r.geomean {
        let _ = write!(s, "| **geomean, {name}** | | | |");
        for x in &g[1..] {
            let _ = write!(s, " **{}** |", pct(*x));
        }
        s.push('\n');
    }
    let few = r.rows.iter().map(|w| (w.workload.as_str(), w.waves));
    let why =
        "the GPU holds every block, or nearly, at once, so the dispatch order can matter little";
    if let Some(note) = super::few_waves_note(few, why) {
        let _ = writeln!(s, "\n{note}");
    }
    let main = ["rr", "bcs", "la", "la_laws"];
    let idx: Vec<usize> = main
        .iter()
        .map(|n| {
            r.columns
                .iter()
                .position(|c| c.name == *n)
                .expect("a column")
        })
        .collect();
    let _ = writeln!(
        s,
        "\n## L1D miss rate, and scheduler-cycles without an issue by cause \
         (structural / idle-control / RAW)\n"
    );
    let _ = write!(s, "| workload |");
    for &i in &idx {
        let _ = write!(
            s,
            " {} miss | {} stalls |",
            r.columns[i].name, r.columns[i].name
        );
    }
    let _ = write!(s, "\n|---|");
    for _ in &idx {
        let _ = write!(s, "---:|---:|");
    }
    s.push('\n');
    for row in &r.rows {
        let _ = write!(s, "| {} |", row.workload);
        for &i in &idx {
            let c = &row.cells[i];
            let _ = write!(
                s,
                " {:.1}% | {:.0} / {:.0} / {:.0}% |",
                100.0 * c.l1d_miss_rate,
                100.0 * c.stall_structural,
                100.0 * c.stall_idle,
                100.0 * c.stall_raw
            );
        }
        s.push('\n');
    }
    let _ = writeln!(s, "\n## Configurations\n");
    for c in &r.columns {
        let _ = writeln!(s, "- `{}`: {} (`gpusched sim {}`)", c.name, c.label, c.args);
    }
    s
}

/// The comparisons as an SVG bar chart: per comparison, the thesis's bar beside ours.
pub fn chart(r: &Results) -> Result<String> {
    let items: Vec<(String, f64, f64)> = r
        .comparisons
        .iter()
        .map(|c| {
            (
                c.what.to_string(),
                100.0 * (c.thesis - 1.0),
                100.0 * (c.ours - 1.0),
            )
        })
        .collect();
    super::chart::thesis_beside_ours(
        &format!("seed 000 on {} ({}): thesis vs ours", r.config, r.size),
        "speedup, %",
        &items,
    )
}

/// Every workload's speedup over RR + GTO under each configuration (`*`: fewer than
/// [`super::MIN_WAVES`] waves).
pub fn kernels_chart(r: &Results) -> Result<String> {
    let cols: Vec<String> = r.columns.iter().map(|c| c.label.to_string()).collect();
    let rows: Vec<(String, Vec<f64>)> = r
        .rows
        .iter()
        .map(|w| {
            let name = super::waves_label(format!("{} ({})", w.workload, w.category), w.waves);
            (name, w.cells.iter().map(|c| c.speedup).collect())
        })
        .collect();
    let title = format!(
        "seed 000 on {} ({}): speedup over RR + GTO, %",
        r.config, r.size
    );
    super::chart::speedups(&title, &cols, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every column's options parse and ask for what its name says.
    #[test]
    fn columns_resolve() {
        for c in columns() {
            let opts = super::super::resolve_column(c.name, c.args);
            let la = c.name.starts_with("la");
            assert_eq!(
                opts.plan.tb_dispatch.entry().name == "locality",
                la,
                "{}",
                c.name
            );
            assert_eq!(
                opts.plan.warp_issue.entry().name == "laws",
                c.name.contains("laws"),
                "{}",
                c.name
            );
        }
    }

    fn row(w: &str, cat: &'static str, cycles: &[u64]) -> Row {
        Row {
            workload: w.into(),
            category: cat,
            waves: 10.0,
            cells: cycles
                .iter()
                .map(|&c| Cell {
                    cycles: c,
                    speedup: cycles[0] as f64 / c as f64,
                    l1d_miss_rate: 0.5,
                    stall_structural: 0.1,
                    stall_idle: 0.2,
                    stall_raw: 0.3,
                })
                .collect(),
        }
    }

    /// The comparisons are the geometric means of the right columns over the right rows.
    #[test]
    fn comparisons_take_the_right_columns_and_rows() {
        let n = columns().len();
        let mut a = vec![100u64; n];
        a[1] = 90; // bcs
        a[2] = 80; // la
        a[3] = 64; // la_laws
        let mut b = vec![100u64; n];
        b[1] = 100;
        b[2] = 50;
        b[3] = 50;
        let rows = vec![
            row("x", "I", &a),
            row("y", "II", &b),
            row("z", "III", &vec![100; n]),
        ];
        let r = summarize("gtx480", "small", columns(), rows);
        let c = |w: &str| r.comparisons.iter().find(|c| c.what == w).unwrap().ours;
        let g = |xs: &[f64]| geomean(xs.iter().copied());
        assert!((c("LA-TB + LAWS over RR + GTO") - g(&[100.0 / 64.0, 2.0, 1.0])).abs() < 1e-12);
        assert!((c("LA-TB + GTO over BCS + GTO") - 2.0).abs() < 1e-12);
        assert!((c("LA-TB + LAWS over LA-TB + GTO") - g(&[80.0 / 64.0, 1.0])).abs() < 1e-12);
        let md = markdown(&r);
        assert!(
            md.contains("| LA-TB + GTO over BCS + GTO | type II | +24.0% | +100.0% |"),
            "{md}"
        );
        assert!(chart(&r).unwrap().starts_with("<svg"));
    }
}
