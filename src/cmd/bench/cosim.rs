//! `gpusched bench --cosim`: the speed of every Verilated module in co-simulation against its
//! golden model (random stimulus, as `gpusched cosim` runs one), `--cycles` per module capped
//! by the block's own regression length, medians of `--repeat` runs.

use crate::cmd::cosim::progress_bar;
use crate::cmd::median;
use anyhow::Result;
use gpusched_tb::cosim::{run_variant, CosimOptions};
use gpusched_tb::lockstep::LockstepConfig;
use gpusim::blocks::catalog;
use serde::Serialize;
use std::process::ExitCode;

/// The stimulus seed of every run (`gpusched cosim`'s default).
const SEED: u64 = 1;

/// One module's figures.
#[derive(Serialize)]
pub struct CosimRow {
    pub module: String,
    /// Cycles run (each run).
    pub cycles: u64,
    /// Mismatches with the golden model (every run).
    pub mismatches: u64,
    /// Median cycles per second.
    pub cycles_per_s: f64,
}

/// Runs `bench --cosim`.
pub fn run(cycles: u64, repeat: usize, json: bool, markdown: bool) -> Result<ExitCode> {
    if !gpusched_tb::rtl::VERILATOR_BUILT {
        anyhow::bail!(gpusched_tb::TbError::NoVerilator);
    }
    let mut rows = vec![];
    for b in catalog() {
        for (policy, preset) in b.variants() {
            let module = b.module_name(policy, preset);
            let n = (b.regress_cycles)(policy, preset).map_or(cycles, |c| c.min(cycles));
            let opts = CosimOptions {
                cycles: n,
                seed: SEED,
                lockstep: LockstepConfig::default(),
            };
            let (mut speeds, mut mismatches) = (vec![], 0);
            for _ in 0..repeat.max(1) {
                let bar = progress_bar(n, &module);
                let r = run_variant(b.name, policy, preset, &opts, &mut |c| bar.set_position(c))?;
                bar.finish_and_clear();
                speeds.push(r.cycles_per_s);
                mismatches += r.mismatches;
            }
            let row = CosimRow {
                module,
                cycles: n,
                mismatches,
                cycles_per_s: median(speeds),
            };
            if !json && !markdown {
                outln!(
                    "{:<34} {:>6.2} M cycles/s  {:>9} cycles  {} mismatches",
                    row.module,
                    row.cycles_per_s / 1e6,
                    row.cycles,
                    row.mismatches
                );
            }
            rows.push(row);
        }
    }
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "seed": SEED, "repeat": repeat.max(1), "modules": rows,
            }))?
        );
    } else if markdown {
        outln!("{}", super::markdown::cosim(&rows, repeat.max(1)));
    }
    Ok(if rows.iter().all(|r| r.mismatches == 0) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
