//! `gpusched regress`: the main job. Checks that rtl-out/ matches hdl/, runs the Verilog gates
//! on every module (Yosys only where `REPORT.md` has no row for the same Verilog, unless
//! `--resynth`), runs the lockstep regression of every block x policy x preset for a fixed
//! number of cycles, again under X randomisation (the RTL's registers that the reset does not
//! set starting at random values, three seeds, fewer cycles), then runs the GPU model on the real traces and the built-in memory- and
//! compute-bound kernels with the Verilated warp arbiter in lockstep in every scheduler under
//! every baseline policy, with the Verilated ELF and NewCAR blocks in lockstep in every SM
//! under ELF++, and (real traces only) with the Verilated locality blocks: LAWS in every
//! scheduler, the locality-aware dispatcher in place of the baseline one), and the example mix
//! under Chimera's kernel schedulers with the Verilated `chimera_tb` of every SM in lockstep;
//! ends with pass/fail tables (or one JSON object).
//!
//! Without Verilator, the lockstep rows run the golden model alone and are marked `golden-only`;
//! without Yosys or Verilator the gate rows are `skipped`. Both say which package to install.

use super::cosim::progress_bar;
use super::lint::{lint_all, print_rows, verdict, LintRow};
use super::sim::{open_workload, RunProgress};
use anyhow::Result;
use clap::Args;
use gpusched_tb::cosim::{golden_only, run_variant, CosimOptions};
use gpusched_tb::gpu::{self, BlockMode, GpuRunError, Modes};
use gpusched_tb::lockstep::LockstepConfig;
use gpusim::blocks::catalog;
use gpusim::config::GpuConfig;
use gpusim::gpu::{SimError, SimOptions};
use gpusim::policy::RegressOn;
use gpusim::workload::builtin;
use gpusim::workload::kernel::WorkloadSource;
use gpusim::workload::mix::Mix;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `gpusched regress`.
#[derive(Args)]
pub struct RegressArgs {
    /// Cycles of lockstep per block x policy x preset (at least 1).
    #[arg(long, default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    cycles: u64,
    /// Stimulus seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory of rtl-out/ [default: rtl-out/ of the repository].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Where mismatch waveforms go (the X-randomisation stage's in `x-seed-<N>/` under it).
    #[arg(long, value_name = "DIR", default_value = "mismatch")]
    mismatch_dir: PathBuf,
    /// Print one JSON object at the end instead of tables.
    #[arg(long)]
    json: bool,
    /// Skip the Verilog gates (lint and Yosys: minutes on the largest modules) and run the
    /// lockstep stages only.
    #[arg(long)]
    no_gates: bool,
    /// Synthesize every module with Yosys, also those `rtl-out/REPORT.md` has a row for (the
    /// same Verilog, synthesized by `gpusched gen`; the `fermi` dispatcher alone takes
    /// minutes).
    #[arg(long)]
    resynth: bool,
    /// Size of the built-in kernels of the GPU lockstep stage (small, medium, large).
    #[arg(long, default_value = "large")]
    gpu_size: String,
    /// Directory holding the real traces for the GPU lockstep stage (skipped when absent).
    #[arg(long, value_name = "DIR", default_value_os_t = crate::cmd::default_traces())]
    traces: PathBuf,
    /// Cycles of the X-randomisation stage per variant and seed (at most `--cycles`): the
    /// lockstep again with the RTL's registers that the reset does not set starting at random
    /// values (0 skips it).
    #[arg(long, default_value_t = 100_000)]
    x_cycles: u64,
}

/// The X-randomisation stage's seeds (`cosim --x-seed`).
pub const X_SEEDS: [u64; 3] = [1, 2, 3];

/// One lockstep row: module, verdict, cycles, mismatches, cycles per second.
type LockstepRow = (String, &'static str, u64, u64, f64);

/// The lockstep of one variant for `cycles` (fewer where its block caps the module), its RTL's
/// registers without reset starting from `x_seed` (0: at 0); the golden model alone without
/// Verilator.
fn lockstep_row(
    a: &RegressArgs,
    b: &gpusim::blocks::BlockInfo,
    (policy, preset): (&str, &str),
    cycles: u64,
    x_seed: u64,
) -> Result<LockstepRow> {
    let module = b.module_name(policy, preset);
    let cycles = (b.regress_cycles)(policy, preset).map_or(cycles, |c| c.min(cycles));
    let bar = progress_bar(cycles, &module);
    let row = if gpusched_tb::rtl::VERILATOR_BUILT {
        let opts = CosimOptions {
            cycles,
            seed: a.seed,
            lockstep: LockstepConfig {
                window: 64,
                // The X stage's own folder per seed: its waveforms do not overwrite the main
                // stage's of the same module.
                mismatch_dir: match x_seed {
                    0 => a.mismatch_dir.clone(),
                    x => a.mismatch_dir.join(format!("x-seed-{x}")),
                },
                x_seed,
                ..Default::default()
            },
        };
        let r = run_variant(b.name, policy, preset, &opts, &mut |c| bar.set_position(c))?;
        if let Some(m) = &r.mismatch {
            eprint!("{m}");
        }
        let pass = r.mismatches == 0 && r.cycles == cycles;
        let verdict = if pass { "pass" } else { "FAIL" };
        (module, verdict, r.cycles, r.mismatches, r.cycles_per_s)
    } else {
        let r = golden_only(b.name, policy, preset, cycles, a.seed)?;
        (module, "golden-only", r.cycles, 0, r.cycles_per_s)
    };
    bar.finish_and_clear();
    Ok(row)
}

/// One GPU-lockstep row: workload, policy, verdict, cycles, IPC, seconds.
type GpuRow = (String, String, &'static str, u64, f64, f64);

/// Runs every GPU-lockstep workload under every warp-scheduler policy.
fn gpu_lockstep(a: &RegressArgs, rtl: bool) -> Result<Vec<GpuRow>> {
    let cfg = GpuConfig::preset("gtx480")?;
    let lockstep = LockstepConfig {
        window: 64,
        mismatch_dir: a.mismatch_dir.clone(),
        ..Default::default()
    };
    let mut names: Vec<(String, Option<PathBuf>)> = vec![];
    for t in ["vectoradd-100-32", "matrixmul-32-32"] {
        let d = a.traces.join(t);
        if d.is_dir() {
            names.push((t.to_string(), Some(d)));
        } else {
            eprintln!("note: {} not found; GPU lockstep skips it", d.display());
        }
    }
    for k in builtin::NAMES {
        names.push((format!("{k}_{}", a.gpu_size), None));
    }
    let modes = Modes::all(if rtl {
        BlockMode::Lockstep
    } else {
        BlockMode::Golden
    });
    // Every policy's GPU-lockstep runs, as its registry entry declares them (`regress`):
    // (row label, options, real traces only). LAWS and LA-TB run on the real traces only:
    // their Verilated `fermi` modules run about 0.01 M (30 of them) and 0.02 M cycles/s,
    // minutes on the built-in kernels (issue 12).
    let declared = gpusim::policy::regress_runs();
    let mut runs: Vec<(String, SimOptions, bool)> = vec![];
    for r in declared.iter().filter(|r| r.on != RegressOn::TwoStreams) {
        let opts = SimOptions::parse(r.args)?;
        let label = format!("{}{}", opts.label(), r.suffix);
        runs.push((label, opts, r.on == RegressOn::Traces));
    }
    let mut rows = vec![];
    for (name, dir) in &names {
        for (policy, opts, traces_only) in &runs {
            if *traces_only && dir.is_none() {
                continue;
            }
            let kernel = name.split('_').next().unwrap_or_default();
            let mut open = || open_workload(dir.as_ref(), Some(kernel), &a.gpu_size);
            let run = (name.as_str(), policy.as_str(), opts);
            rows.push(gpu_row(&cfg, run, &mut open, &modes, &lockstep, rtl)?);
        }
    }
    // On the example mix (`mm`, then `chimera_bs` at cycle 3,000): the kernel schedulers'
    // and allocators' runs (Chimera's, each SM's chimera_tb planning each preemption; GPU
    // Maestro's 2-way allocator under SMK and under Maestro's partitioning, and its
    // kernel-aware warp scheduler). (row label suffix: what the label does not say, options)
    let mix_runs = declared.iter().filter(|r| r.on == RegressOn::TwoStreams);
    for (suffix, args) in mix_runs.map(|r| (r.suffix, r.args)) {
        let opts = SimOptions::parse(args)?;
        let mut open = || -> Result<Box<dyn WorkloadSource>, SimError> {
            let path = Path::new("mixes/two_streams.toml");
            Ok(Box::new(Mix::parse(TWO_STREAMS, path)?))
        };
        let label = format!("{}{suffix}", opts.label());
        let run = ("two_streams", &label[..], &opts);
        rows.push(gpu_row(&cfg, run, &mut open, &modes, &lockstep, rtl)?);
    }
    Ok(rows)
}

/// What the GPU-lockstep rows check, from the registry: per declared run, its row's label and
/// every block of the run, Verilated in lockstep with the golden ones.
fn lockstep_scope() -> Result<String> {
    let mut parts = vec![];
    for r in gpusim::policy::regress_runs() {
        let on = match r.on {
            RegressOn::Kernels => "",
            RegressOn::Traces => " (real traces only)",
            RegressOn::TwoStreams => " (two_streams)",
        };
        let opts = SimOptions::parse(r.args)?;
        let blocks = opts.plan.blocks().join(", ");
        parts.push(format!("{}{}{on}: {blocks}", opts.label(), r.suffix));
    }
    Ok(format!("Verilated in lockstep: {}", parts.join("; ")))
}

/// The example mix, as in `mixes/`.
const TWO_STREAMS: &str = include_str!("../../mixes/two_streams.toml");

/// One GPU-lockstep row: `(name, policy, opts)` run on `open()`'s workload.
fn gpu_row(
    cfg: &GpuConfig,
    (name, policy, opts): (&str, &str, &SimOptions),
    open: &mut dyn FnMut() -> Result<Box<dyn WorkloadSource>, SimError>,
    modes: &Modes,
    lockstep: &LockstepConfig,
    rtl: bool,
) -> Result<GpuRow> {
    let mut progress = RunProgress::new(&format!("{name} {policy}"));
    let start = Instant::now();
    let r = gpu::run(cfg, opts, open, modes.clone(), lockstep, &mut |p| {
        progress.update(p)
    });
    progress.finish();
    let secs = start.elapsed().as_secs_f64();
    let (name, policy) = (name.to_string(), policy.to_string());
    Ok(match r {
        Ok(r) => {
            let v = if rtl { "pass" } else { "golden-only" };
            (name, policy, v, r.counters.cycles, r.ipc, secs)
        }
        Err(GpuRunError::Mismatch(m)) => {
            eprint!("{m}");
            (name, policy, "FAIL", m.cycle, 0.0, secs)
        }
        Err(e) => return Err(e.into()),
    })
}

/// Runs `regress`.
pub fn run(a: RegressArgs) -> Result<ExitCode> {
    let dir = a.dir.clone().unwrap_or_else(super::default_rtl_dir);
    let mut ok = true;

    // 1. rtl-out/ up to date.
    let g = gpusched_gen::generate_all()?;
    let stale = gpusched_gen::check(&g, &dir);
    ok &= stale.is_clean();
    if !a.json {
        outln!(
            "== rtl-out/ vs hdl/: {}",
            if stale.is_clean() {
                "up to date"
            } else {
                "STALE"
            }
        );
        if !stale.is_clean() {
            out!("{stale}");
            outln!("   run `gpusched gen`, rebuild, and commit rtl-out/");
        }
        if a.no_gates {
            outln!("\n== Verilog gates: skipped (--no-gates)");
        } else {
            outln!(
                "\n== Verilog gates (verilator --lint-only -Wall, yosys synth{})",
                if a.resynth {
                    ""
                } else {
                    " where REPORT.md has no row for the same Verilog"
                }
            );
        }
    }

    // 2. Gates.
    let lint = if a.no_gates {
        vec![]
    } else {
        lint_all(&dir, !a.resynth)?
    };
    if !a.json {
        print_rows(&lint)?;
    }
    ok &= lint.iter().all(LintRow::passed);

    // 3. Lockstep of every variant.
    let rtl = gpusched_tb::rtl::VERILATOR_BUILT;
    if !rtl {
        eprintln!("note: {}", gpusched_tb::TbError::NoVerilator);
        eprintln!("note: running the golden models alone instead of the lockstep");
    }
    let mut rows = vec![];
    for b in catalog() {
        for variant in b.variants() {
            rows.push(lockstep_row(&a, &b, variant, a.cycles, 0)?);
        }
    }
    ok &= rows.iter().all(|r| r.1 != "FAIL");

    // 3b. X randomisation: every variant again from random power-up values, three seeds.
    let mut x_rows: Vec<(u64, LockstepRow)> = vec![];
    if rtl && a.x_cycles > 0 {
        for b in catalog() {
            for variant in b.variants() {
                for x_seed in X_SEEDS {
                    let cycles = a.x_cycles.min(a.cycles);
                    x_rows.push((x_seed, lockstep_row(&a, &b, variant, cycles, x_seed)?));
                }
            }
        }
    }
    ok &= x_rows.iter().all(|(_, r)| r.1 != "FAIL");

    // 4. The Verilated warp arbiter in every scheduler of the GPU model.
    let gpu_rows = gpu_lockstep(&a, rtl)?;
    ok &= gpu_rows.iter().all(|r| r.2 != "FAIL");

    if a.json {
        let v = json!({
            "pass": ok,
            "rtl_checked": rtl,
            "rtl_out_up_to_date": stale.is_clean(),
            "gates": lint.iter().map(|r| json!({
                "module": r.module, "verilator": verdict(&r.lint), "yosys": verdict(&r.synth),
                "cells": r.synth.as_ref().ok().copied().flatten(),
                "yosys_from_report": matches!(r.synth, Ok(None)),
            })).collect::<Vec<_>>(),
            "lockstep": rows.iter().map(|(m, v, c, mm, cps)| json!({
                "module": m, "verdict": v, "cycles": c, "mismatches": mm, "cycles_per_s": cps,
            })).collect::<Vec<_>>(),
            "x_random": x_rows.iter().map(|(x, (m, v, c, mm, _))| json!({
                "module": m, "x_seed": x, "verdict": v, "cycles": c, "mismatches": mm,
            })).collect::<Vec<_>>(),
            "gpu_lockstep": gpu_rows.iter().map(|(w, p, v, c, ipc, s)| json!({
                "workload": w, "warp_sched": p, "verdict": v, "cycles": c, "ipc": ipc,
                "seconds": s,
            })).collect::<Vec<_>>(),
        });
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        outln!(
            "\n== Lockstep regression: {} cycles each (fewer where a block caps its slow modules), seed {}",
            a.cycles,
            a.seed
        );
        outln!(
            "{:<32} {:>11} {:>12} {:>10} {:>14}",
            "module",
            "verdict",
            "cycles",
            "mismatches",
            "M cycles/s"
        );
        for (m, v, c, mm, cps) in &rows {
            outln!("{m:<32} {v:>11} {c:>12} {mm:>10} {:>14.2}", cps / 1e6);
        }
        if !x_rows.is_empty() {
            outln!(
                "\n== X randomisation: the lockstep again, the RTL's registers that the reset does \
                 not set starting at random values of seeds {X_SEEDS:?}, {} cycles each",
                a.x_cycles.min(a.cycles)
            );
            outln!(
                "{:<32} {:>6} {:>11} {:>12} {:>10}",
                "module",
                "x-seed",
                "verdict",
                "cycles",
                "mismatches"
            );
            for (x, (m, v, c, mm, _)) in &x_rows {
                outln!("{m:<32} {x:>6} {v:>11} {c:>12} {mm:>10}");
            }
        }
        outln!("\n== GPU lockstep: gtx480; {}", lockstep_scope()?);
        let pw = gpu_rows
            .iter()
            .map(|r| r.1.len())
            .max()
            .unwrap_or(0)
            .max(12);
        outln!(
            "{:<20} {:<pw$} {:>11} {:>10} {:>8} {:>8}",
            "workload",
            "policy",
            "verdict",
            "cycles",
            "IPC",
            "seconds"
        );
        for (w, p, v, c, ipc, s) in &gpu_rows {
            outln!("{w:<20} {p:<pw$} {v:>11} {c:>10} {ipc:>8.2} {s:>8.2}");
        }
        let scope = if rtl {
            ""
        } else {
            " (golden models only: Verilator missing, RTL not checked)"
        };
        outln!("\nregression: {}{scope}", if ok { "PASS" } else { "FAIL" });
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
