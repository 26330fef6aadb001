//! `gpusched config list | show <preset|file> [--json] | check <file> [--json]`.

use anyhow::Result;
use clap::{Args, Subcommand};
use gpusim::config::{presets, GpuConfig};
use std::process::ExitCode;

/// Arguments of `gpusched config`.
#[derive(Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// List the presets.
    List,
    /// Print a preset, or a validated TOML/JSON config file, as TOML (or JSON).
    Show {
        /// Preset name (gtx480, gtx480-3.2.2, titanx, titanv, gtx980, gtx980-3.2.2, gtx680), a
        /// .toml/.json file, or a GPGPU-Sim gpgpusim.config file.
        config: String,
        /// Print JSON instead of TOML.
        #[arg(long)]
        json: bool,
    },
    /// Read a config (GPGPU-Sim files above all) and list, one per line, each option or field
    /// it sets that changes nothing in the model, with the file, the line and what the model
    /// does instead; then the options without effect on timing. Exit 0 when the file reads.
    Check {
        /// As for `show`; a comma-separated list reads GPGPU-Sim option files over the first.
        config: String,
        /// Print the notes as a JSON object (`unmodelled`, `inert`).
        #[arg(long)]
        json: bool,
    },
}

/// Runs `config`.
pub fn run(a: ConfigArgs) -> Result<ExitCode> {
    match a.action {
        Action::List => {
            for name in presets::NAMES {
                let c = GpuConfig::preset(name)?;
                outln!(
                    "{name:<8} {} SMs at {} MHz, {} warps/SM, L1D {} KB, L2 {} KB, {} GB/s",
                    c.sm.count,
                    c.sm.core_clock_mhz,
                    c.sm.max_warps,
                    c.l1d.size_bytes / 1024,
                    c.l2.size_bytes / 1024 * c.dram.channels * c.dram.sub_partitions,
                    c.dram.peak_gbps
                );
            }
        }
        Action::Show { config, json } => {
            let c = super::sim::load_config(&config)?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&c)?);
            } else {
                out!("{}", c.to_toml());
            }
        }
        Action::Check { config, json } => check(&config, json)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `config check`: the notes of `config`, whole.
fn check(config: &str, json: bool) -> Result<()> {
    let (_, notes) = GpuConfig::load_with_notes(config)?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&notes)?);
        return Ok(());
    }
    for u in &notes.unmodelled {
        outln!("{u}");
    }
    if !notes.inert.is_empty() {
        outln!(
            "without effect on a trace-driven run (power, statistics, PTX mode, debugging, \
             units no trace reaches): {}",
            notes.inert.join(", ")
        );
    }
    if notes.is_empty() {
        outln!("{config}: every option is modelled");
    }
    Ok(())
}
