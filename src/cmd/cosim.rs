//! `gpusched cosim`: lockstep co-simulation of one block variant on random stimulus, against
//! its Verilated RTL or its FPGA host bridge (Verilated, or on a board over a serial port).

use anyhow::Result;
use clap::Args;
use gpusched_tb::bridge::{run_variant_on, Target};
use gpusched_tb::cosim::{run_variant, CosimOptions, CosimReport, PROGRESS_EVERY};
use gpusched_tb::lockstep::{LockstepConfig, SNAPSHOT_INTERVAL};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gpusched cosim`.
#[derive(Args)]
pub struct CosimArgs {
    /// Block name (see `gpusched blocks`).
    #[arg(long, default_value = "warp_arbiter")]
    block: String,
    /// Policy of the block (warp_arbiter: lrr, gto, two_level).
    #[arg(long)]
    policy: String,
    /// Parameter preset (fermi, proto).
    #[arg(long, default_value = "fermi")]
    preset: String,
    /// Cycles to run after reset (at least 1).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    cycles: u64,
    /// Stimulus seed (same seed, same run, bit for bit).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write waveforms of the whole run into DIR (<module>.golden.vcd, <module>.rtl.vcd).
    #[arg(long, value_name = "DIR")]
    vcd: Option<PathBuf>,
    /// Cycles of history in the waveforms written on a mismatch (0: none; at most 2^20).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(0..=1 << 20))]
    window: u64,
    /// Where the waveforms of a mismatch go.
    #[arg(long, value_name = "DIR", default_value = "mismatch")]
    mismatch_dir: PathBuf,
    /// Cycles between two lockstep snapshots: a mismatch's waveforms replay at most this many
    /// cycles plus the window (memory: two snapshots and the inputs since the older one).
    #[arg(long, value_name = "CYCLES", default_value_t = SNAPSHOT_INTERVAL,
          value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    snapshot_interval: u64,
    /// X randomisation: start the RTL's registers that the reset does not set at random values
    /// of this seed (what a board's power-up may leave) instead of 0 (the default, 0).
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    x_seed: u64,
    /// Where the RTL runs: `verilator` (the Verilated module, in this process), `uart-sim`
    /// (the module's Verilated FPGA host bridge, driven through its serial pins) or
    /// `uart:DEVICE[@BAUD]` (a board running the bridge bitstream, e.g. uart:/dev/ttyUSB0;
    /// 115200 baud by default).
    #[arg(long, default_value = "verilator", value_name = "TARGET")]
    target: String,
    /// Directory of the generated RTL whose manifest names the Verilog hash a bridge must
    /// report [default: rtl-out/ of the repository].
    #[arg(long, value_name = "DIR")]
    rtl: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// The first 32 bits of `module`'s Verilog SHA-256 from `rtl/manifest.json`, when the file
/// lists it.
pub fn manifest_hash(rtl: &std::path::Path, module: &str) -> Option<u32> {
    let text = std::fs::read_to_string(rtl.join("manifest.json")).ok()?;
    let m: gpusched_gen::Manifest = serde_json::from_str(&text).ok()?;
    let e = m.modules.iter().find(|e| e.module == module)?;
    gpusim::bridge::hash_word(&e.sha256)
}

/// A progress bar on stderr for runs of `total` cycles (hidden when stderr is not a terminal).
pub fn progress_bar(total: u64, label: &str) -> ProgressBar {
    let bar = if total >= 4 * PROGRESS_EVERY {
        ProgressBar::new(total)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} cycles ({per_sec}, eta {eta})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(label.to_string());
    bar
}

/// The JSON object of a run.
pub fn report_json(r: &CosimReport, seed: u64) -> serde_json::Value {
    json!({
        "module": r.module,
        "seed": seed,
        "cycles": r.cycles,
        "mismatches": r.mismatches,
        "seconds": r.seconds,
        "cycles_per_s": r.cycles_per_s,
        "mismatch": r.mismatch.as_ref().map(|m| json!({
            "cycle": m.cycle, "port": m.port, "expected": m.expected, "got": m.got,
            "inputs": m.inputs.iter().map(|(n, v)| json!({"port": n, "value": v})).collect::<Vec<_>>(),
            "golden_vcd": m.golden_vcd, "rtl_vcd": m.rtl_vcd,
            "pair_vcd": m.pair.as_ref().map(|p| &p.vcd), "gtkw": m.pair.as_ref().map(|p| &p.gtkw),
            "resumed_from": m.resumed_from,
        })),
        "waveforms": r.waveforms.as_ref().map(|(g, rt)| json!({"golden": g, "rtl": rt})),
    })
}

/// Runs `cosim`.
pub fn run(a: CosimArgs) -> Result<ExitCode> {
    let opts = CosimOptions {
        cycles: a.cycles,
        seed: a.seed,
        lockstep: LockstepConfig {
            window: a.window as usize,
            mismatch_dir: a.mismatch_dir,
            vcd_dir: a.vcd,
            snapshot_interval: a.snapshot_interval,
            rtl_threads: 1,
            x_seed: a.x_seed,
        },
    };
    let target = Target::parse(&a.target)?;
    let bar = progress_bar(a.cycles, "cosim");
    let mut progress = |c| bar.set_position(c);
    let r = match &target {
        Target::Verilator => run_variant(&a.block, &a.policy, &a.preset, &opts, &mut progress)?,
        _ => {
            let info = gpusim::blocks::find_block(&a.block)?;
            let policy = gpusim::blocks::check_variant(&info, &a.policy, &a.preset)?;
            let module = info.module_name(policy, &a.preset);
            let rtl = a.rtl.clone().unwrap_or_else(super::default_rtl_dir);
            let hash = manifest_hash(&rtl, &module);
            if hash.is_none() {
                eprintln!(
                    "note: {} does not list {module}: the bridge's Verilog hash is not checked",
                    rtl.join("manifest.json").display()
                );
            }
            run_variant_on(
                &target,
                &a.block,
                &a.policy,
                &a.preset,
                hash,
                &opts,
                &mut progress,
            )?
        }
    };
    bar.finish_and_clear();
    if a.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report_json(&r, a.seed))?
        );
    } else {
        outln!(
            "{}: {} cycles run, {} mismatches, {:.2} M cycles/s ({:.2} s, seed {})",
            r.module,
            r.cycles,
            r.mismatches,
            r.cycles_per_s / 1e6,
            r.seconds,
            a.seed
        );
        if let Some((g, rt)) = &r.waveforms {
            outln!("waveforms: {} {}", g.display(), rt.display());
        }
        if let Some(m) = &r.mismatch {
            eprint!("{m}");
        }
    }
    Ok(if r.mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
