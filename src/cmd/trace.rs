//! `gpusched trace info DIR [--config PRESET|FILE] [--json]`: what an Accel-Sim trace holds.
//! `gpusched trace export --workload NAME [--size S] --out DIR [--binary-version V] [--xz]`: a
//! workload written as one (plain or xz).

use anyhow::Result;
use clap::{Args, Subcommand};
use gpusim::config::GpuConfig;
use gpusim::core::occupancy::{occupancy, Footprint};
use gpusim::workload::summary::summarize;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gpusched trace`.
#[derive(Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Summarize a trace: kernels, dimensions, instruction counts, opcode classes, occupancy.
    Info {
        /// Directory with kernelslist.g (or the kernelslist.g file).
        dir: PathBuf,
        /// GPU for the occupancy figures: preset name or .toml/.json file.
        #[arg(long, default_value = "gtx480")]
        config: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write a workload (built-in or suite kernel) as an Accel-Sim trace directory
    /// (kernelslist.g + kernel-1.traceg, tracer version 4).
    Export {
        /// Workload name (see `gpusched workloads`).
        #[arg(long)]
        workload: String,
        /// Size: small, medium, large; `paper` (every launch of a seed 000 benchmark at the
        /// thesis's input).
        #[arg(long, default_value = "small")]
        size: String,
        /// Output directory (created if needed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// SASS binary version the trace declares: 20 (Fermi's code layout, the kernels'
        /// own; Accel-Sim rejects it) or 60, 61 (Pascal's layout, with its control words;
        /// Accel-Sim accepts them and maps every exported opcode).
        #[arg(long, value_name = "V", default_value_t = 20)]
        binary_version: u32,
        /// Write each kernel as `kernel-N.traceg.xz`, as Accel-Sim's tracer does since 2025,
        /// with xz preset LEVEL (0 fastest to 9 smallest; `--xz` alone: 6).
        #[arg(long, value_name = "LEVEL", num_args = 0..=1, default_missing_value = "6",
              value_parser = clap::value_parser!(u32).range(0..=9))]
        xz: Option<u32>,
    },
}

fn export(
    workload: &str,
    size: &str,
    out: &std::path::Path,
    version: u32,
    xz: Option<u32>,
) -> Result<ExitCode> {
    let mut w = gpusim::workload::open_named(workload, size)?;
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("exporting {pos} blocks ({per_sec})").expect("valid template"),
    );
    let start = std::time::Instant::now();
    let s = gpusim::workload::export::export_with(w.as_mut(), out, Some(version), xz, &mut |b| {
        if start.elapsed().as_secs() >= 1 {
            bar.set_position(b)
        }
    })?;
    bar.finish_and_clear();
    let on_disk = match xz {
        Some(_) => {
            let bytes: u64 = s
                .files
                .iter()
                .filter_map(|f| f.metadata().ok())
                .map(|m| m.len())
                .sum();
            format!(" ({:.1} MB as xz)", bytes as f64 / 1e6)
        }
        None => String::new(),
    };
    if version == 20 {
        eprintln!(
            "note: binary version 20 (Fermi's layout); Accel-Sim accepts only 35, 60, 61, 70, 75, \
             80 and 86 and simulates nothing on others (exit status 0): --binary-version 61 \
             writes a trace it runs"
        );
    }
    outln!(
        "{}: {} thread blocks, {} warp instructions, {:.1} MB of text{on_disk} in {}",
        w.name(),
        s.blocks,
        s.warp_instructions,
        s.bytes as f64 / 1e6,
        s.files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `trace`.
pub fn run(a: TraceArgs) -> Result<ExitCode> {
    let (dir, config, json) = match a.action {
        Action::Info { dir, config, json } => (dir, config, json),
        Action::Export {
            workload,
            size,
            out,
            binary_version,
            xz,
        } => return export(&workload, &size, &out, binary_version, xz),
    };
    let cfg = GpuConfig::load(&config)?;
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("reading [{bar:30}] {pos}/{len} blocks ({per_sec})")
            .expect("valid template"),
    );
    let s = summarize(&dir, &mut |done, total| {
        if total >= 1000 {
            bar.set_length(total);
            bar.set_position(done);
        }
    })?;
    bar.finish_and_clear();
    let occ: Vec<_> = s
        .kernels
        .iter()
        .map(|k| {
            let fp = Footprint {
                threads: k.block.iter().product(),
                regs_per_thread: k.nregs,
                shmem_bytes: k.shmem_bytes,
            };
            occupancy(&cfg.sm, &fp)
        })
        .collect();
    if json {
        let kernels: Vec<_> = s
            .kernels
            .iter()
            .zip(&occ)
            .map(|(k, o)| {
                let mut v = serde_json::to_value(k).expect("summary serializes");
                v["occupancy"] = match o {
                    Ok(o) => serde_json::to_value(o).expect("occupancy serializes"),
                    Err(e) => json!({ "error": e.to_string() }),
                };
                v
            })
            .collect();
        let v = json!({ "config": cfg.name, "memcpy_bytes": s.memcpy_bytes, "kernels": kernels });
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{}: {} kernel(s), {} B copied to the device",
        dir.display(),
        s.kernels.len(),
        s.memcpy_bytes
    );
    for (k, o) in s.kernels.iter().zip(&occ) {
        outln!("\nkernel {} {}", k.id, k.name);
        outln!(
            "  grid {:?} x block {:?}, {} registers/thread, {} B shared/block, {} blocks traced",
            k.grid,
            k.block,
            k.nregs,
            k.shmem_bytes,
            k.blocks
        );
        outln!(
            "  {} warp instructions, {} thread instructions",
            k.warp_instructions,
            k.thread_instructions
        );
        let mix: Vec<String> = k.classes.iter().map(|(c, n)| format!("{c} {n}")).collect();
        outln!("  classes: {}", mix.join(", "));
        if !k.unknown_opcodes.is_empty() {
            outln!(
                "  warning: unknown opcodes run as integer ALU: {}",
                k.unknown_opcodes.join(", ")
            );
        }
        match o {
            Ok(o) => outln!(
                "  occupancy on {}: {} block(s)/SM, limited by {:?}",
                cfg.name,
                o.blocks,
                o.limiter
            ),
            Err(e) => outln!("  occupancy on {}: {e}", cfg.name),
        }
    }
    Ok(ExitCode::SUCCESS)
}
