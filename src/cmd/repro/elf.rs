//! `gpusched repro elf`: runs the experiment's columns (`super::columns`) over the suite and
//! the real traces on each configuration and summarizes them ([`super::Results`]).

use super::side_by_side::{Headline, Measure, Measured, GPGPU_SIM_3_2_2};
use super::{
    cell, columns, geomean, keep_only, run_configs, run_reports_on, without_size, Column, Outlier,
    ReproArgs, Results, Row, OUTLIER_GAIN, OUTLIER_LOSS,
};
use crate::cmd::sim::load_config;
use anyhow::{Context, Result};
use gpusim::config::GpuConfig;
use gpusim::gpu::SimOptions;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs the experiment on the configurations `a` names.
pub fn run(a: &ReproArgs, size: &str, out: &Path, jobs: usize) -> Result<ExitCode> {
    for c in a.configs() {
        SimOptions::parse("--warp-sched elf")?
            .plan
            .check(&load_config(c)?)
            .with_context(|| format!("repro elf on {c}"))?;
    }
    let mut workloads: Vec<(String, Option<PathBuf>)> = gpusim::workload::names()
        .into_iter()
        .map(|n| (n.to_string(), None))
        .collect();
    for t in ["vectoradd-100-32", "matrixmul-32-32"] {
        let d = a.traces.join(t);
        if d.join("kernelslist.g").is_file() {
            workloads.push((t.to_string(), Some(d)));
        } else {
            eprintln!("note: {} not found; the traces are skipped", d.display());
        }
    }
    keep_only(&mut workloads, |w| &w.0, &a.only, "workload")?;
    let left_out = without_size(&mut workloads, size)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let measure: &Measure<'_> = &|configs, headline_only, sweep| {
        // The headline columns: GTO and those the thesis gives a figure for.
        let cols: Vec<Column> = columns()
            .into_iter()
            .filter(|c| !(headline_only || a.headline) || c.thesis.is_some())
            .collect();
        let policies: Vec<(&str, &str)> = cols.iter().map(|c| (c.name, c.args)).collect();
        let tables = run_reports_on(sweep, &policies, configs, &workloads, size, jobs, out)?;
        let mut measured = vec![];
        for (c, reports) in configs.iter().zip(tables) {
            let mut r = results(&load_config(c)?, size, cols.clone(), &workloads, &reports)?;
            r.left_out = left_out.clone();
            let headlines = r
                .columns
                .iter()
                .zip(&r.geomean)
                .skip(1)
                .filter_map(|(col, &ours)| {
                    let paper = Some(1.0 + col.thesis? / 100.0);
                    let what = format!("{} over GTO, geomean", col.label);
                    Some(Headline::ratio(what, paper, ours))
                })
                .collect();
            let outputs = match headline_only {
                true => None,
                false => Some((
                    super::table::markdown(&r),
                    serde_json::to_string_pretty(&r)?,
                    super::chart::svg(&r)?,
                )),
            };
            let figures = match headline_only {
                true => vec![],
                false => vec![("kernels", kernels_chart(&r)?)],
            };
            measured.push(Measured {
                headlines,
                outputs,
                figures,
            });
        }
        Ok(measured)
    };
    let title = "ELF experiment (seed 003 ch. III) on two simulators";
    run_configs(a, ("elf", GPGPU_SIM_3_2_2), (title, size), out, measure)
}

/// The experiment's results on `cfg` from `reports` (per workload, one report per column).
fn results(
    cfg: &GpuConfig,
    size: &str,
    cols: Vec<Column>,
    workloads: &[(String, Option<PathBuf>)],
    reports: &[Vec<serde_json::Value>],
) -> Result<Results> {
    let table = reports
        .iter()
        .map(|row| row.iter().map(cell).collect::<Result<Vec<_>>>())
        .collect::<Result<Vec<_>>>()?;
    // GB/s over MHz: 10^9 B/s / 10^6 cycles/s = 10^3 B per core cycle per (GB/s / MHz).
    let peak = cfg.dram.computed_gbps() * 1e3 / cfg.sm.core_clock_mhz;
    let burst_bytes = gpusim::mem::dram::Channel::bytes_per_column(&cfg.dram) as f64;
    let mut rows = vec![];
    for (((name, _), mut cells), reps) in workloads.iter().zip(table).zip(reports) {
        let base = cells[0].ipc;
        for c in &mut cells {
            c.speedup = if base > 0.0 { c.ipc / base } else { 1.0 };
        }
        rows.push(Row {
            memory_intensive: cells[0].dram_bursts_per_cycle * burst_bytes >= peak / 4.0,
            workload: name.clone(),
            waves: super::waves(&reps[0])?,
            cells,
        });
    }
    let gm = |filter: &dyn Fn(&Row) -> bool| -> Vec<f64> {
        (0..cols.len())
            .map(|c| {
                geomean(
                    rows.iter()
                        .filter(|r| filter(r))
                        .map(|r| r.cells[c].speedup),
                )
            })
            .collect()
    };
    let is_outlier = |r: &Row| {
        r.cells
            .iter()
            .any(|c| c.speedup > OUTLIER_GAIN || c.speedup < OUTLIER_LOSS)
    };
    let outliers = rows
        .iter()
        .filter(|r| is_outlier(r))
        .map(|o| Outlier {
            workload: o.workload.clone(),
            geomean_without: gm(&|r| r.workload != o.workload),
        })
        .collect();
    Ok(Results {
        experiment: "elf",
        config: cfg.name.clone(),
        size: size.to_string(),
        dram_peak_bytes_per_cycle: peak,
        geomean: gm(&|_| true),
        geomean_memory: gm(&|r| r.memory_intensive),
        outliers,
        geomean_without_outliers: gm(&|r| !is_outlier(r)),
        columns: cols,
        rows,
        left_out: vec![],
    })
}

/// Every workload's speedup over GTO under each configuration (`*`: fewer than
/// [`super::MIN_WAVES`] waves).
fn kernels_chart(r: &Results) -> Result<String> {
    let cols: Vec<String> = r.columns.iter().map(|c| c.label.to_string()).collect();
    let rows: Vec<(String, Vec<f64>)> = r
        .rows
        .iter()
        .map(|w| {
            let name = super::waves_label(w.workload.clone(), w.waves);
            (name, w.cells.iter().map(|c| c.speedup).collect())
        })
        .collect();
    let title = format!("ELF on {} ({}): speedup over GTO, %", r.config, r.size);
    super::chart::speedups(&title, &cols, &rows)
}
