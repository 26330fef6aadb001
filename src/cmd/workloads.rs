//! `gpusched workloads [--json] [--size S]`: the built-in kernels and the workload suite, with
//! what each mirrors, its access pattern, and per size its blocks, warps and instructions.

use anyhow::Result;
use clap::Args;
use gpusim::config::GpuConfig;
use gpusim::core::occupancy::{occupancy, Footprint};
use gpusim::workload::kernel::{count, KernelCounts};
use gpusim::workload::synth::{self, suite, SynthKernel};
use gpusim::workload::{builtin, open_named};
use serde::Serialize;
use std::collections::BTreeMap;
use std::process::ExitCode;

/// Arguments of `gpusched workloads`.
#[derive(Args)]
pub struct WorkloadsArgs {
    /// Only this size (small, medium, large; `paper`: seed 000's benchmarks at the thesis's
    /// inputs, their launches and blocks; `elf`: the ELF paper's at their run scripts'
    /// inputs; `paver`: PAVER's Table 2 benchmarks at its blocks per kernel); default: the
    /// first three.
    #[arg(long)]
    size: Option<String>,
    /// Print a JSON array.
    #[arg(long)]
    json: bool,
}

/// One size of one workload.
#[derive(Serialize)]
struct SizeRow {
    #[serde(flatten)]
    counts: KernelCounts,
    grid: [u32; 3],
    block: [u32; 3],
    regs_per_thread: u32,
    shmem_bytes: u32,
    /// Registers x 4 B x threads + shared memory: what a context switch saves per block.
    context_bytes_per_block: u64,
    /// Resident blocks per SM on gtx480.
    blocks_per_sm_gtx480: u32,
}

#[derive(Serialize)]
struct Row {
    name: &'static str,
    mirrors: &'static str,
    pattern: &'static str,
    /// Strictly idempotent (suite kernels; built-ins are: they never overwrite inputs).
    idempotent: bool,
    /// Fraction of a warp's instructions before its first overwrite (non-idempotent kernels).
    region_before_overwrite: Option<f64>,
    sizes: BTreeMap<&'static str, SizeRow>,
}

fn size_row(name: &str, size: &str, cfg: &GpuConfig) -> Result<SizeRow> {
    let mut w = open_named(name, size)?;
    let mut k = w.next_kernel()?.expect("one kernel");
    let info = k.info().clone();
    let counts = count(k.as_mut())?;
    let threads = info.block_threads();
    let occ = occupancy(
        &cfg.sm,
        &Footprint {
            threads,
            regs_per_thread: info.regs_per_thread,
            shmem_bytes: info.shmem_bytes,
        },
    )?;
    Ok(SizeRow {
        counts,
        grid: [info.grid.x, info.grid.y, info.grid.z],
        block: [info.block.x, info.block.y, info.block.z],
        regs_per_thread: info.regs_per_thread,
        shmem_bytes: info.shmem_bytes,
        context_bytes_per_block: 4 * info.regs_per_thread as u64 * threads as u64
            + info.shmem_bytes as u64,
        blocks_per_sm_gtx480: occ.blocks,
    })
}

/// One benchmark at a paper's input (`--size paper`, `elf`, `paver`).
#[derive(Serialize)]
struct PaperRow {
    name: &'static str,
    input: &'static str,
    /// Kernel launches, in order (each name with its count).
    launches: Vec<(String, usize)>,
    /// Thread blocks over every launch.
    blocks: u64,
}

/// A paper's size (`--size paper`, `elf`, `paver`): each benchmark's launches and blocks (counted from
/// its launches, which a unit test holds to the counts each entry declares).
fn paper(table: &synth::paper::PaperSize, json: bool) -> Result<ExitCode> {
    let mut rows = vec![];
    for e in table.entries {
        let mut launches: Vec<(String, usize)> = vec![];
        let mut blocks = 0;
        for d in (e.build)() {
            blocks += d.grid.volume();
            match launches.iter_mut().find(|(n, _)| *n == d.name) {
                Some((_, k)) => *k += 1,
                None => launches.push((d.name, 1)),
            }
        }
        rows.push(PaperRow {
            name: e.name,
            input: e.input,
            launches,
            blocks,
        });
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{:<10} {:>8} {:>8}  launches", "workload", "kernels", "TBs");
    for r in &rows {
        let n: usize = r.launches.iter().map(|l| l.1).sum();
        let names: Vec<String> = r
            .launches
            .iter()
            .map(|(k, c)| format!("{k} x{c}"))
            .collect();
        outln!(
            "{:<10} {:>8} {:>8}  {}",
            r.name,
            n,
            r.blocks,
            names.join(", ")
        );
    }
    outln!(
        "\n`{}`: {}. `--json` adds each input and where it comes from.",
        table.name,
        table.what
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs `workloads`.
pub fn run(a: WorkloadsArgs) -> Result<ExitCode> {
    if let Some(table) = a.size.as_deref().and_then(synth::paper::size) {
        return paper(table, a.json);
    }
    let sizes: Vec<&'static str> = match &a.size {
        Some(s) => vec![*suite::SIZES.iter().find(|x| *x == s).ok_or_else(|| {
            anyhow::anyhow!("unknown size `{s}`; sizes: {}", synth::sizes().join(", "))
        })?],
        None => suite::SIZES.to_vec(),
    };
    let cfg = GpuConfig::preset("gtx480")?;
    let mut rows = vec![];
    let builtins = [
        (
            "stream",
            "memory-bound micro-kernel (RTL-in-the-loop tests, gpusched bench)",
            "c[i] = a[i] + b[i] over a grid-stride loop: every line used once",
        ),
        (
            "compute",
            "compute-bound micro-kernel (RTL-in-the-loop tests, gpusched bench)",
            "one load per thread, then four FFMA chains and a MUFU per iteration",
        ),
    ];
    debug_assert_eq!(builtins.len(), builtin::NAMES.len());
    for (name, mirrors, pattern) in builtins {
        let mut m = BTreeMap::new();
        for s in &sizes {
            m.insert(*s, size_row(name, s, &cfg)?);
        }
        rows.push(Row {
            name,
            mirrors,
            pattern,
            idempotent: true,
            region_before_overwrite: None,
            sizes: m,
        });
    }
    for e in suite::SUITE {
        let mut m = BTreeMap::new();
        for s in &sizes {
            m.insert(*s, size_row(e.name, s, &cfg)?);
        }
        let idem = synth::idempotence(SynthKernel::new((e.build)(0)).def())?;
        rows.push(Row {
            name: e.name,
            mirrors: e.mirrors,
            pattern: e.pattern,
            idempotent: idem.idempotent,
            region_before_overwrite: idem.region_before_overwrite,
            sizes: m,
        });
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    let first = sizes[0];
    outln!(
        "{:<14} {:>6} {:>7} {:>12} {:>14} {:>7}  mirrors   [size {first}]",
        "workload",
        "TBs",
        "warps",
        "warp insts",
        "thread insts",
        "TBs/SM"
    );
    for r in &rows {
        let s = &r.sizes[first];
        outln!(
            "{:<14} {:>6} {:>7} {:>12} {:>14} {:>7}  {}",
            r.name,
            s.counts.blocks,
            s.counts.warps,
            s.counts.warp_instructions,
            s.counts.thread_instructions,
            s.blocks_per_sm_gtx480,
            r.mirrors
        );
    }
    outln!("\n`--json` adds the pattern, every size, context bytes and idempotence of each.");
    Ok(ExitCode::SUCCESS)
}
