//! `gpusched repro chimera`: Chimera's evaluation (seed 003 ch. IV §4.4; spec
//! `chimera_maestro.md` §3.2, §6 C-R2) on the golden GPU model, with the thesis's figures beside
//! ours.
//!
//! * **The periodic task** (§4.4.1-4.4.3): each of the suite's Table 4.2 mirrors runs back to
//!   back while `chimera_task` (7 blocks, one per SM: half of the `gtx480`) arrives every
//!   period, 5x its own run time (the thesis's 1 ms and 200 us), and takes half of the SMs under
//!   switch-only, drain-only, flush-only and Chimera with the latency limit. A request violates
//!   when an SM it takes is handed over later than the limit after the request. Throughput
//!   overhead: 1 - the benchmark's effective warp instructions (issued, less the flushed ones
//!   re-executed) / the same under ideal preemption (a context switch that moves no data,
//!   `--free-switch`), over the same window of cycles.
//! * **Pairs** (§4.4.4, L1017): every pair of the benchmarks, the second arriving 1,000 cycles
//!   after the first; ANTT and STP against each kernel alone, for non-preemptive FCFS and the
//!   four preemptive schedulers; the improvement over FCFS as the geometric mean over pairs.

use super::mixes::{antt_stp, kernel, run_all, Job};
use super::side_by_side::{Headline, Measure, Measured, Unit, GPGPU_SIM_3_2_2};
use super::ReproArgs;
use crate::cmd::sim::load_config;
use anyhow::{Context, Result};
use gpusim::config::GpuConfig;
use gpusim::gpu::Report;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// The suite's mirrors of Table 4.2's benchmarks.
pub const BENCHMARKS: &[&str] = &[
    "chimera_bs",
    "chimera_cp",
    "chimera_lud",
    "chimera_hw",
    "chimera_imgvf",
    "bp",
    "lud",
    "nw",
    "km",
];

/// Task arrivals per benchmark.
const ARRIVALS: u64 = 4;

/// The preemptive schedulers compared, with the thesis's figures at 15 us (L955-L959, read as
/// spec §5 Q1 does) and on the LUD pairs (L1013-L1015).
pub const COLUMNS: &[Column] = &[
    Column {
        name: "switch_only",
        violations: 56.0,
        overhead: 12.2,
        lud_antt: 20.9,
        lud_stp: 16.5,
    },
    Column {
        name: "drain_only",
        violations: 61.3,
        overhead: 8.9,
        lud_antt: 19.3,
        lud_stp: 36.6,
    },
    Column {
        name: "flush_only",
        violations: 7.3,
        overhead: 19.3,
        lud_antt: 23.6,
        lud_stp: 31.4,
    },
    Column {
        name: "chimera",
        violations: 0.2,
        overhead: 10.1,
        lud_antt: 25.4,
        lud_stp: 41.7,
    },
];

/// Chimera over all pairs (L1017): ANTT improvement (x) and STP improvement (%).
pub const THESIS_ALL_PAIRS: (f64, f64) = (5.5, 12.2);

/// A preemptive scheduler and the thesis's figures for it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Column {
    /// `--kernel-sched`.
    pub name: &'static str,
    /// Deadline violations at 15 us, % of requests.
    pub violations: f64,
    /// Throughput overhead at 15 us, %.
    pub overhead: f64,
    /// ANTT improvement over FCFS on the LUD pairs, x.
    pub lud_antt: f64,
    /// STP improvement over FCFS on the LUD pairs, %.
    pub lud_stp: f64,
}

/// One benchmark under the periodic task, one scheduler.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TaskCell {
    /// Preemption requests, those that violated the limit, those the selector predicted to.
    pub requests: u64,
    /// See `requests`.
    pub violated: u64,
    /// See `requests`.
    pub predicted: u64,
    /// Largest measured request latency, cycles.
    pub max_latency: u64,
    /// Blocks preempted by switch, drain and flush.
    pub blocks: [u64; 3],
    /// Task instances killed (late at their deadline plus the limit, C-R2).
    pub killed: u64,
    /// Warp instructions the benchmark issued on SMs it withheld past the limit.
    pub withheld: u64,
    /// The benchmark's effective warp instructions in the window (those withheld excluded).
    pub effective: u64,
    /// 1 - effective / the ideal's, %.
    pub overhead: f64,
}

/// One benchmark's row of the periodic-task part.
#[derive(Clone, Debug, Serialize)]
pub struct TaskRow {
    /// Benchmark.
    pub benchmark: String,
    /// Its cycles alone, and how many times it runs back to back in the window.
    pub alone_cycles: u64,
    /// See `alone_cycles`.
    pub repeats: u64,
    /// Effective warp instructions under ideal preemption.
    pub ideal: u64,
    /// Per column of [`COLUMNS`].
    pub cells: Vec<TaskCell>,
}

/// One pair's ANTT and STP per scheduler (FCFS first, then [`COLUMNS`]).
#[derive(Clone, Debug, Serialize)]
pub struct PairRow {
    /// The first kernel and the one arriving after it.
    pub first: String,
    /// See `first`.
    pub second: String,
    /// ANTT per scheduler.
    pub antt: Vec<f64>,
    /// STP per scheduler.
    pub stp: Vec<f64>,
}

/// The whole result.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Experiment name.
    pub experiment: &'static str,
    /// GPU configuration and suite size.
    pub config: String,
    /// See `config`.
    pub size: String,
    /// The latency limit of the periodic task, cycles.
    pub lat_limit: u32,
    /// The latency limit of the pairs, cycles.
    pub pair_lat_limit: u32,
    /// Where the plans came from (`--selector`).
    pub selector: String,
    /// The drain overhead's formula (`--drain-overhead`).
    pub drain_overhead: String,
    /// The task's cycles alone, its period and the window (cycles).
    pub task_cycles: u64,
    /// See `task_cycles`.
    pub period: u64,
    /// See `task_cycles`.
    pub window: u64,
    /// The schedulers.
    pub columns: Vec<Column>,
    /// Per benchmark.
    pub task_rows: Vec<TaskRow>,
    /// Per scheduler: violated requests over all requests, %.
    pub violations: Vec<f64>,
    /// Per scheduler: mean throughput overhead over the benchmarks, %.
    pub overhead: Vec<f64>,
    /// Chimera's blocks by technique (switch, drain, flush), % of its preempted blocks.
    pub chimera_shares: [f64; 3],
    /// Per pair.
    pub pairs: Vec<PairRow>,
    /// Per preemptive scheduler: geometric mean over pairs of FCFS's ANTT over its ANTT (x).
    pub antt_improvement: Vec<f64>,
    /// Per preemptive scheduler: geometric mean over pairs of its STP over FCFS's, less 1 (%).
    pub stp_improvement: Vec<f64>,
}

fn stat(r: &Report, key: &str) -> u64 {
    r.kernel_sched_stats
        .get(key)
        .and_then(|v| v.as_u64())
        .unwrap_or(0)
}

/// The benchmark's effective warp instructions in a periodic-task run (stream 0): those it
/// issued, less the ones re-executed after a flush and those issued on SMs it withheld from
/// the task past the limit (C-R2).
fn effective(r: &Report) -> u64 {
    let issued: u64 = r
        .kernels
        .iter()
        .filter(|k| k.stream == 0)
        .map(|k| k.counters.warp_instructions - k.preemptions.reexecuted_warp_instructions)
        .sum();
    issued.saturating_sub(stat(r, "withheld_warp_instructions"))
}

fn task_cell(r: &Report, lat_limit: u32) -> TaskCell {
    let log = r
        .kernel_sched_stats
        .get("request_log")
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    let latency = |q: &serde_json::Value| q["latency"].as_u64();
    // A request not handed over by the window's end is late if it is already past the limit.
    let violated = log
        .iter()
        .filter(|q| match latency(q) {
            Some(l) => l > lat_limit as u64,
            None => r.counters.cycles - q["cycle"].as_u64().unwrap_or(0) > lat_limit as u64,
        })
        .count() as u64;
    let by = &r.kernel_sched_stats["blocks_by_technique"];
    TaskCell {
        requests: stat(r, "requests"),
        violated,
        predicted: stat(r, "requests_predicted_violation"),
        max_latency: log.iter().filter_map(latency).max().unwrap_or(0),
        blocks: ["switch", "drain", "flush"].map(|t| by[t].as_u64().unwrap_or(0)),
        killed: stat(r, "kernels_killed"),
        withheld: stat(r, "withheld_warp_instructions"),
        effective: effective(r),
        overhead: 0.0,
    }
}

/// Runs the experiment on the configurations `a` names.
pub fn run(a: &ReproArgs, size: &str, out: &Path, jobs: usize) -> Result<ExitCode> {
    let limits = (
        a.lat_limit.unwrap_or(21_000),
        a.lat_limit.map_or(42_000, |l| 2 * l),
    );
    let mut benchmarks = BENCHMARKS.to_vec();
    super::keep_only(&mut benchmarks, |b| *b, &a.only, "benchmark")?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let setup = Setup {
        size,
        benchmarks: &benchmarks,
        limits,
        plans: (&a.selector, &a.drain_overhead),
        jobs,
    };
    // Every figure is a headline: an attribution run runs the whole experiment.
    let measure: &Measure<'_> = &|configs, _, _| {
        let mut measured = vec![];
        for c in configs {
            let r = measure_on(&load_config(c)?, &setup)?;
            measured.push(Measured {
                headlines: headlines(&r),
                outputs: Some((markdown(&r), serde_json::to_string_pretty(&r)?, chart(&r)?)),
                figures: vec![("kernels", kernels_chart(&r)?)],
            });
        }
        Ok(measured)
    };
    let title = "Chimera (seed 003 ch. IV) on two simulators";
    super::run_configs(a, ("chimera", GPGPU_SIM_3_2_2), (title, size), out, measure)
}

/// What every configuration's run of the experiment shares.
struct Setup<'a> {
    size: &'a str,
    benchmarks: &'a [&'a str],
    /// The periodic task's latency limit and the pairs', cycles.
    limits: (u32, u32),
    /// `--selector` and `--drain-overhead` of every Chimera scheduler.
    plans: (&'a str, &'a str),
    jobs: usize,
}

impl Setup<'_> {
    /// The options every Chimera scheduler of the run takes.
    fn opts(&self) -> String {
        format!(
            " --selector {} --drain-overhead {} --kill-late",
            self.plans.0, self.plans.1
        )
    }
}

/// The headline figures: each scheduler's violations and overhead under the periodic task
/// (the thesis's at 15 us), Chimera's ANTT and STP improvements over all pairs.
fn headlines(r: &Results) -> Vec<Headline> {
    let mut h = vec![];
    for (i, c) in r.columns.iter().enumerate() {
        h.push(Headline {
            what: format!("{} violations", c.name),
            unit: Unit::Percent,
            paper: Some(c.violations),
            ours: r.violations[i],
        });
    }
    for (i, c) in r.columns.iter().enumerate() {
        h.push(Headline {
            what: format!("{} overhead", c.name),
            unit: Unit::Percent,
            paper: Some(c.overhead),
            ours: r.overhead[i],
        });
    }
    let chimera = r.columns.len() - 1;
    h.push(Headline {
        what: "chimera ANTT over FCFS, all pairs".into(),
        unit: Unit::Times,
        paper: Some(THESIS_ALL_PAIRS.0),
        ours: r.antt_improvement[chimera],
    });
    h.push(Headline::ratio(
        "chimera STP over FCFS, all pairs".into(),
        Some(1.0 + THESIS_ALL_PAIRS.1 / 100.0),
        1.0 + r.stp_improvement[chimera] / 100.0,
    ));
    h
}

/// The whole experiment on `cfg`.
fn measure_on(cfg: &GpuConfig, s: &Setup<'_>) -> Result<Results> {
    // Every kernel alone.
    let mut alone_names: Vec<&str> = s.benchmarks.to_vec();
    alone_names.push("chimera_task");
    let alone_jobs: Vec<Job> = alone_names
        .iter()
        .map(|b| Job::new(kernel(b, s.size, 0, ""), ""))
        .collect();
    let alone_reports = run_all(cfg, ("chimera", "alone"), &alone_jobs, s.jobs)?;
    let alone_cycles: Vec<u64> = alone_reports.iter().map(|r| r.counters.cycles).collect();
    let alone = |name: &str| -> u64 {
        alone_reports
            .iter()
            .zip(&alone_cycles)
            .find(|(r, _)| r.kernels[0].name == name)
            .map_or(1, |(_, &c)| c)
    };
    let task_cycles = *alone_cycles.last().expect("the task");
    let task = periodic_task(cfg, s, &alone_cycles)?;
    let pairs = pairs(cfg, s, &alone)?;
    let np = COLUMNS.len() + 1;
    let antt_improvement = (1..np)
        .map(|c| super::geomean(pairs.iter().map(|p| p.antt[0] / p.antt[c])))
        .collect();
    let stp_improvement = (1..np)
        .map(|c| 100.0 * (super::geomean(pairs.iter().map(|p| p.stp[c] / p.stp[0])) - 1.0))
        .collect();
    Ok(Results {
        experiment: "chimera",
        config: cfg.name.clone(),
        size: s.size.to_string(),
        lat_limit: s.limits.0,
        pair_lat_limit: s.limits.1,
        selector: s.plans.0.to_string(),
        drain_overhead: s.plans.1.to_string(),
        task_cycles,
        period: 5 * task_cycles,
        window: ARRIVALS * 5 * task_cycles,
        columns: COLUMNS.to_vec(),
        violations: task.violations,
        overhead: task.overhead,
        chimera_shares: task.chimera_shares,
        task_rows: task.rows,
        pairs,
        antt_improvement,
        stp_improvement,
    })
}

/// The periodic-task part's figures.
struct TaskPart {
    rows: Vec<TaskRow>,
    violations: Vec<f64>,
    overhead: Vec<f64>,
    chimera_shares: [f64; 3],
}

/// Each benchmark back to back while `chimera_task` arrives every period (5x its cycles alone,
/// the last of `alone_cycles`), under ideal preemption and each of [`COLUMNS`].
fn periodic_task(cfg: &GpuConfig, s: &Setup<'_>, alone_cycles: &[u64]) -> Result<TaskPart> {
    let lat_limit = s.limits.0;
    let task_cycles = *alone_cycles.last().expect("the task");
    let period = 5 * task_cycles;
    let window = ARRIVALS * period;
    let task = kernel(
        "chimera_task",
        s.size,
        1,
        &format!(
            "arrival = {}\nperiod = {period}\ncount = {ARRIVALS}\npriority = 1\n\
             deadline = {task_cycles}",
            period / 2
        ),
    );
    let schedulers: Vec<String> = std::iter::once(format!(
        "--kernel-sched switch-only --free-switch --lat-limit {lat_limit}{}",
        s.opts()
    ))
    .chain(COLUMNS.iter().map(|c| {
        format!(
            "--kernel-sched {} --lat-limit {lat_limit}{}",
            c.name,
            s.opts()
        )
    }))
    .collect();
    let mut task_jobs = vec![];
    let mut repeats = vec![];
    for (i, b) in s.benchmarks.iter().enumerate() {
        // Enough that the benchmark never runs out before the window ends (warm caches make
        // a repeat faster than the kernel alone).
        let r = 2 * window.div_ceil(alone_cycles[i].max(1)) + 2;
        repeats.push(r);
        let mix = kernel(
            b,
            s.size,
            0,
            &format!("arrival = 0\nperiod = 1\ncount = {r}"),
        ) + &task;
        for args in &schedulers {
            task_jobs.push(Job {
                max_cycles: Some(window),
                ..Job::new(mix.clone(), args.clone())
            });
        }
    }
    let task_reports = run_all(cfg, ("chimera", "periodic task"), &task_jobs, s.jobs)?;
    let ns = schedulers.len();
    let mut rows = vec![];
    for (i, b) in s.benchmarks.iter().enumerate() {
        let rs = &task_reports[i * ns..(i + 1) * ns];
        let ideal = effective(&rs[0]);
        let cells = rs[1..]
            .iter()
            .map(|r| {
                let mut c = task_cell(r, lat_limit);
                c.overhead = 100.0 * (1.0 - c.effective as f64 / ideal.max(1) as f64);
                c
            })
            .collect();
        rows.push(TaskRow {
            benchmark: b.to_string(),
            alone_cycles: alone_cycles[i],
            repeats: repeats[i],
            ideal,
            cells,
        });
    }
    Ok(summarize_task(rows))
}

/// Violations and overheads per scheduler over `rows`, and Chimera's blocks by technique.
fn summarize_task(rows: Vec<TaskRow>) -> TaskPart {
    let nc = COLUMNS.len();
    let violations: Vec<f64> = (0..nc)
        .map(|c| {
            let (v, n) = rows.iter().fold((0, 0), |(v, n), r| {
                (v + r.cells[c].violated, n + r.cells[c].requests)
            });
            100.0 * v as f64 / n.max(1) as f64
        })
        .collect();
    let overhead: Vec<f64> = (0..nc)
        .map(|c| rows.iter().map(|r| r.cells[c].overhead).sum::<f64>() / rows.len().max(1) as f64)
        .collect();
    let mut blocks = [0u64; 3];
    for r in &rows {
        for (t, n) in blocks.iter_mut().zip(r.cells[nc - 1].blocks) {
            *t += n;
        }
    }
    let total = blocks.iter().sum::<u64>().max(1) as f64;
    TaskPart {
        rows,
        violations,
        overhead,
        chimera_shares: blocks.map(|n| 100.0 * n as f64 / total),
    }
}

/// Every pair of the benchmarks, the second arriving 1,000 cycles after the first, under FCFS
/// and each of [`COLUMNS`] (the pairs' latency limit); ANTT and STP against `alone`.
fn pairs(cfg: &GpuConfig, s: &Setup<'_>, alone: &dyn Fn(&str) -> u64) -> Result<Vec<PairRow>> {
    let pair_lat_limit = s.limits.1;
    let pair_scheds: Vec<String> = std::iter::once("--kernel-sched fcfs".to_string())
        .chain(COLUMNS.iter().map(|c| {
            let n = c.name;
            format!(
                "--kernel-sched {n} --lat-limit {pair_lat_limit}{}",
                s.opts()
            )
        }))
        .collect();
    let mut pair_names = vec![];
    let mut pair_jobs = vec![];
    for (i, x) in s.benchmarks.iter().enumerate() {
        for y in &s.benchmarks[i + 1..] {
            pair_names.push((x.to_string(), y.to_string()));
            let mix = kernel(x, s.size, 0, "") + &kernel(y, s.size, 1, "arrival = 1000");
            for args in &pair_scheds {
                pair_jobs.push(Job::new(mix.clone(), args.clone()));
            }
        }
    }
    let pair_reports = run_all(cfg, ("chimera", "pairs"), &pair_jobs, s.jobs)?;
    let np = pair_scheds.len();
    Ok(pair_names
        .into_iter()
        .enumerate()
        .map(|(i, (first, second))| {
            let (antt, stp) = pair_reports[i * np..(i + 1) * np]
                .iter()
                .map(|r| antt_stp(r, alone))
                .unzip();
            PairRow {
                first,
                second,
                antt,
                stp,
            }
        })
        .collect())
}

/// The thesis's figures beside ours, as bars.
fn chart(r: &Results) -> Result<String> {
    let mut items = vec![];
    for (i, c) in r.columns.iter().enumerate() {
        items.push((format!("viol. {}", c.name), c.violations, r.violations[i]));
    }
    for (i, c) in r.columns.iter().enumerate() {
        items.push((format!("ovh. {}", c.name), c.overhead, r.overhead[i]));
    }
    let chimera = r.columns.len() - 1;
    items.push((
        "STP all pairs".into(),
        THESIS_ALL_PAIRS.1,
        r.stp_improvement[chimera],
    ));
    super::chart::thesis_beside_ours(
        &format!(
            "Chimera on {} ({}): violations, throughput overhead, STP gain (%)",
            r.config, r.size
        ),
        "%",
        &items,
    )
}

/// Every benchmark's throughput overhead under the periodic task per scheduler.
fn kernels_chart(r: &Results) -> Result<String> {
    let cols: Vec<String> = r.columns.iter().map(|c| c.name.to_string()).collect();
    let rows: Vec<String> = r.task_rows.iter().map(|t| t.benchmark.clone()).collect();
    let values: Vec<Vec<Option<f64>>> = r
        .task_rows
        .iter()
        .map(|t| t.cells.iter().map(|c| Some(c.overhead)).collect())
        .collect();
    let title = format!(
        "Chimera on {} ({}): throughput overhead under the periodic task, %",
        r.config, r.size
    );
    super::chart::heatmap(&title, (&rows, &cols), &values, 20.0)
}

/// The result as Markdown.
pub fn markdown(r: &Results) -> String {
    let mut s = String::new();
    let names: Vec<&str> = r.columns.iter().map(|c| c.name).collect();
    let _ = writeln!(
        s,
        "# Chimera (seed 003 ch. IV) on `{}`, size `{}`\n\nPeriodic task: `chimera_task` ({} cycles alone, half of the SMs) every {} cycles, {ARRIVALS} arrivals in a window of {} cycles; latency limit {} cycles; plans from the {}; drain overhead {}.\n",
        r.config,
        r.size,
        r.task_cycles,
        r.period,
        r.window,
        r.lat_limit,
        match r.selector.as_str() {
            "software" => "SMs' state at once (`--selector software`)",
            _ => "SMs' chimera_tb blocks, a pass after each request",
        },
        match r.drain_overhead.as_str() {
            "slot-idle" => "I_t - I_min (`--drain-overhead slot-idle`)",
            _ => "I_max - I_t (the thesis's)",
        }
    );
    let _ = writeln!(s, "| | {} |", names.join(" | "));
    let _ = writeln!(s, "|---|{}", "---:|".repeat(names.len()));
    let row = |s: &mut String, what: &str, v: &dyn Fn(usize) -> String| {
        let cells: Vec<String> = (0..names.len()).map(v).collect();
        let _ = writeln!(s, "| {what} | {} |", cells.join(" | "));
    };
    row(&mut s, "violations, % (ours)", &|i| {
        format!("{:.1}", r.violations[i])
    });
    row(&mut s, "violations, % (thesis)", &|i| {
        format!("{:.1}", r.columns[i].violations)
    });
    row(&mut s, "throughput overhead, % (ours)", &|i| {
        format!("{:.1}", r.overhead[i])
    });
    row(&mut s, "throughput overhead, % (thesis)", &|i| {
        format!("{:.1}", r.columns[i].overhead)
    });
    let total = |i: usize, f: fn(&TaskCell) -> u64| -> u64 {
        r.task_rows.iter().map(|t| f(&t.cells[i])).sum()
    };
    row(&mut s, "task instances killed (late, C-R2)", &|i| {
        total(i, |c| c.killed).to_string()
    });
    row(
        &mut s,
        "benchmark warp instructions on withheld SMs",
        &|i| total(i, |c| c.withheld).to_string(),
    );
    let _ = writeln!(
        s,
        "\nChimera's blocks: {:.1}% switched, {:.1}% drained, {:.1}% flushed (thesis: about 19% drained, L978).\n",
        r.chimera_shares[0], r.chimera_shares[1], r.chimera_shares[2]
    );
    let _ = writeln!(
        s,
        "| benchmark | alone | repeats | {} |",
        names
            .iter()
            .map(|n| format!("{n}: requests / violated / overhead %"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(s, "|---|---:|---:|{}", "---:|".repeat(names.len()));
    for t in &r.task_rows {
        let cells: Vec<String> = t
            .cells
            .iter()
            .map(|c| format!("{} / {} / {:.1}", c.requests, c.violated, c.overhead))
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            t.benchmark,
            t.alone_cycles,
            t.repeats,
            cells.join(" | ")
        );
    }
    let _ = writeln!(
        s,
        "\nPairs ({} of them; the second kernel arrives 1,000 cycles after the first; latency limit {} cycles): improvement over non-preemptive FCFS, geometric mean.\n",
        r.pairs.len(),
        r.pair_lat_limit
    );
    let _ = writeln!(s, "| | {} |", names.join(" | "));
    let _ = writeln!(s, "|---|{}", "---:|".repeat(names.len()));
    row(&mut s, "ANTT improvement, x (ours, all pairs)", &|i| {
        format!("{:.2}", r.antt_improvement[i])
    });
    row(&mut s, "STP improvement, % (ours, all pairs)", &|i| {
        format!("{:.1}", r.stp_improvement[i])
    });
    row(&mut s, "ANTT improvement, x (thesis, LUD pairs)", &|i| {
        format!("{:.1}", r.columns[i].lud_antt)
    });
    row(&mut s, "STP improvement, % (thesis, LUD pairs)", &|i| {
        format!("{:.1}", r.columns[i].lud_stp)
    });
    let _ = writeln!(
        s,
        "\nThesis, Chimera over all combinations: ANTT {:.1}x, STP +{:.1}% (L1017).",
        THESIS_ALL_PAIRS.0, THESIS_ALL_PAIRS.1
    );
    s
}
