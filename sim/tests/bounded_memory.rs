//! Peak memory of a run does not grow with the size of one thread block: a trace of a single
//! block of `GPUSCHED_BIG_TRACE_MB` MB (default 160) of text runs streamed, a warp chunk at a
//! time, and the process's peak resident memory stays under 64 MB (decoded whole, the block
//! would take several times its text).
//!
//! Its own test binary, so that the peak (`VmHWM` of `/proc/self/status`) is this run's alone.
//! `GPUSCHED_BIG_TRACE_MB=800 cargo test --release -p gpusim --test bounded_memory -- --nocapture`
//! prints the figures for an 800 MB block.

use gpusim::config::GpuConfig;
use gpusim::gpu::{Gpu, SimOptions};
use gpusim::workload::kernel::TraceWorkload;
use std::io::Write;
use std::path::Path;

/// Peak resident memory of this process, KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc/self/status");
    line.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("a number of kB")
}

/// Writes a trace of one block of 1,024 threads (32 warps) whose text is about `mb` MB: each
/// warp loops over an address computation, a load of 32 listed addresses, an FMA, a store and
/// a branch, on consecutive lines. Returns the warp instructions written.
fn write_big_trace(dir: &Path, mb: u64) -> u64 {
    std::fs::write(dir.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    let f = std::fs::File::create(dir.join("kernel-1.traceg")).unwrap();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    writeln!(
        w,
        "-kernel name = big_block\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (1024,1,1)\n\
         -shmem = 0\n-nregs = 16\n-binary version = 61\n-cuda stream id = 0\n\
         -accelsim tracer version = 4\n-enable lineinfo = 0\n\n#BEGIN_TB\n\nthread block = 0,0,0\n"
    )
    .unwrap();
    // One iteration: about 730 bytes of text, 5 instructions.
    let per_warp = mb * 1_000_000 / 32 / 730;
    for warp in 0..32u64 {
        writeln!(w, "warp = {warp}\ninsts = {}", per_warp * 5 + 1).unwrap();
        for it in 0..per_warp {
            let line = 0x1000_0000 + ((warp * per_warp + it) << 7);
            writeln!(w, "0000 ffffffff 1 R1 IMAD 2 R2 R3 0").unwrap();
            write!(w, "0008 ffffffff 1 R4 LDG.E 1 R1 4 0").unwrap();
            for lane in 0..32 {
                write!(w, " 0x{:016x}", line + lane * 4).unwrap();
            }
            writeln!(w).unwrap();
            writeln!(w, "0010 ffffffff 1 R5 FFMA 3 R4 R5 R5 0").unwrap();
            writeln!(
                w,
                "0018 ffffffff 0 STG.E 2 R1 R5 4 1 0x{:016x} 4",
                line + 0x4000_0000
            )
            .unwrap();
            writeln!(w, "0020 ffffffff 0 BRA 0 0").unwrap();
        }
        writeln!(w, "0028 ffffffff 0 EXIT 0 0").unwrap();
    }
    writeln!(w, "#END_TB").unwrap();
    w.flush().unwrap();
    32 * (per_warp * 5 + 1)
}

#[test]
fn a_single_block_trace_runs_in_memory_that_does_not_grow_with_the_block() {
    let mb: u64 = std::env::var("GPUSCHED_BIG_TRACE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(160);
    let dir = tempfile::tempdir().unwrap();
    let insts = write_big_trace(dir.path(), mb);
    let bytes = std::fs::metadata(dir.path().join("kernel-1.traceg"))
        .unwrap()
        .len();
    let before = peak_rss_kib();
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let mut gpu = Gpu::golden(&cfg, SimOptions::default()).unwrap();
    let mut w = TraceWorkload::open(dir.path()).unwrap();
    let r = gpu.run(&mut w, &mut |_| {}).unwrap();
    let peak = peak_rss_kib();
    println!(
        "single block of {:.0} MB of trace text, {insts} warp instructions, {} cycles: peak RSS {:.1} MB (before the run {:.1} MB)",
        bytes as f64 / 1e6,
        r.counters.cycles,
        peak as f64 / 1024.0,
        before as f64 / 1024.0
    );
    assert_eq!(r.counters.warp_instructions, insts);
    assert_eq!(r.counters.blocks, 1);
    assert!(
        peak < 64 * 1024,
        "peak RSS {} KiB for a block of {bytes} bytes",
        peak
    );
}
