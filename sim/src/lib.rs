//! gpusim: the golden (behavioral) side of gpusched.
//!
//! * [`analysis`]: compiler-side analyses (ELF program points).
//! * [`block`]: the block contract every hardware block implements three times (golden model
//!   here, rust-hdl RTL in `gpusched-hdl`, Verilated RTL in `gpusched-tb`).
//! * [`bridge`]: the FPGA host bridge's register map (generator and client share it).
//! * [`blocks`]: the golden models, one module per block (the registry's list), and the
//!   catalog of blocks, policies and presets that the CLI and the generator derive from it.
//! * [`config`]: `GpuConfig`, the papers' GPU presets, validation.
//! * [`core`]: the SM side of the GPU model (occupancy).
//! * [`gpu`]: the golden GPU model: SMs, memory system, dispatcher, run loop and statistics.
//! * [`input`]: opening user files (regular files only, bounded sizes).
//! * [`mem`]: memory-system components (coalescer, caches, crossbar, DRAM, shared memory).
//! * [`policy`]: which block sits at which site of the GPU for a run's options.
//! * [`testing`]: what tests need from outside the repository (`GPUSCHED_REQUIRE`).
//! * [`workload`]: what the GPU model runs (Accel-Sim traces, built-in synthetic kernels).

pub mod analysis;
pub mod block;
pub mod blocks;
pub mod bridge;
pub mod config;
pub mod core;
pub mod gpu;
mod host;
pub mod input;
pub mod mem;
pub mod policy;
pub mod sweep_spec;
pub mod testing;
pub mod workload;

/// Proptest case count for the parser fuzz tests: `GPUSCHED_FUZZ_CASES` or `default` (100,000
/// in the suite: about 10 s per parser in release mode).
#[cfg(test)]
pub(crate) fn fuzz_cases(default: u32) -> u32 {
    std::env::var("GPUSCHED_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
