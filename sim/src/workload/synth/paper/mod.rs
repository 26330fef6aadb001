//! The `paper` size: seed 000's benchmarks at the thesis's inputs (Table 4.2, seed 000 L464-478:
//! kernel launches and thread blocks per benchmark).
//!
//! Each workload is the benchmark's sequence of launches as its host code makes them (Rodinia
//! 3.x, CUDA SDK), every launch with the benchmark's grid and block, and each kernel's program
//! follows the benchmark's device code: which arrays each thread reads and writes, in which
//! order, staged through shared memory with the same barriers, with the branch conditions that
//! mask threads. Arithmetic is counted, not computed (an FFMA per multiply-add, a MUFU per
//! division). The input sizes are derived from Table 4.2's counts; each [`PaperEntry::input`]
//! says how. The `small`/`medium`/`large` sizes ([`super::suite`]) stay the simplified
//! single-kernel mirrors the reference traces were exported from.

mod backprop;
mod convolution;
mod gaussian;
mod histogram;
mod hotspot;
mod lud;
mod nn;
mod nw;
mod srad;
#[cfg(test)]
mod tests;
mod transpose;

use super::ir::{CmpOp, Cond, Expr, Program, Space, SynthDef, Var};
use super::suite::{at, dim, global, lt, named, nn_records, prologue, shared, v, ARRAY};
use crate::workload::sass::OpClass::*;
use crate::workload::Dim3;

/// The size name.
pub const SIZE: &str = "paper";

/// One benchmark at the paper's input.
pub struct PaperEntry {
    /// Suite workload name.
    pub name: &'static str,
    /// The input and how Table 4.2's counts give it.
    pub input: &'static str,
    /// Table 4.2's kernel launches.
    pub kernels: usize,
    /// Table 4.2's thread blocks (all launches).
    pub blocks: u64,
    /// Builds the launches, in order.
    pub build: fn() -> Vec<SynthDef>,
}

use backprop::bp;
use convolution::conv;
use gaussian::gaussian;
use histogram::his;
use hotspot::hs;
use lud::lud;
use nn::nn;
use nw::nw;
use srad::srad;
use transpose::tran;

/// The benchmarks with a `paper` size.
pub const PAPER: &[PaperEntry] = &[
    PaperEntry {
        name: "hs",
        input: "1024 x 1024 grid, pyramid height 2 (one launch): 16 x 16 blocks computing 12 x 12 points, ceil(1024 / 12)^2 = 86^2 = 7,396 blocks",
        kernels: 1,
        blocks: 7_396,
        build: hs,
    },
    PaperEntry {
        name: "bp",
        input: "65,536 input units, 16 hidden: bpnn_layerforward and bpnn_adjust_weights on a 1 x 4,096 grid of 16 x 16 blocks each (2 x 4,096 = 8,192)",
        kernels: 2,
        blocks: 8_192,
        build: bp,
    },
    PaperEntry {
        name: "lud",
        input: "1200 x 1200 matrix (75 tiles): 74 steps of lud_diagonal (1 block), lud_perimeter (m blocks) and lud_internal (m x m), m = 74..1, and a last lud_diagonal: 3 x 74 + 1 = 223 launches, 74 + 2,775 + 137,825 + 1 = 140,675 blocks",
        kernels: 223,
        blocks: 140_675,
        build: lud,
    },
    PaperEntry {
        name: "nn",
        input: "5,120 blocks of 256 records (1,310,720 records), one euclid launch",
        kernels: 1,
        blocks: 5_120,
        build: nn,
    },
    PaperEntry {
        name: "nw",
        input: "4096 x 4096 alignment (256 x 256 tiles of 16): needle_cuda_shared_1 on 1..256 blocks, then needle_cuda_shared_2 on 255..1: 511 launches, 256^2 = 65,536 blocks",
        kernels: 511,
        blocks: 65_536,
        build: nw,
    },
    PaperEntry {
        name: "srad",
        input: "2048 x 2048 image, 2 iterations of srad_cuda_1 and srad_cuda_2 on 128 x 128 blocks of 16 x 16: 4 x 16,384 = 65,536",
        kernels: 4,
        blocks: 65_536,
        build: srad,
    },
    PaperEntry {
        name: "conv",
        input: "1024 x 1024 image (the sample's 3072 x 3072 would give 17 x 27,648 = 470,016 blocks), its 17 runs (a loop from -1 to 15) of convolutionRowsKernel ((8, 256) blocks of 16 x 4) and convolutionColumnsKernel ((64, 16) blocks of 16 x 8): 34 launches, 17 x 3,072 = 52,224 blocks",
        kernels: 34,
        blocks: 52_224,
        build: conv,
    },
    PaperEntry {
        name: "tran",
        input: "2048 x 2048 matrix (64 x 64 tiles of 32, blocks of 32 x 8, the SDK 2.x sample): its eight kernels (copy, shared-memory copy, naive, coalesced, no bank conflicts, coarse-grained, fine-grained, diagonal) three launches each (a warm-up, NUM_REPS = 1 launch in the timed loop, one with the loop inside the kernel): 24 launches of 4,096 blocks = 98,304 (SDK 3.x/4.x's 16 x 16 tiles on 1024 x 1024 give the same counts on a quarter of the data)",
        kernels: 24,
        blocks: 98_304,
        build: tran,
    },
    PaperEntry {
        name: "his",
        input: "64 MB of data: 2 runs (a warm-up and 1 timed) of histogram64Kernel (4,370 blocks of 64 threads, 15,360 B each) and mergeHistogram64Kernel (64 x 256), then 2 of histogram256Kernel (240 x 192) and mergeHistogram256Kernel (256 x 256): 8 launches, 2 x 4,930 = 9,860 blocks",
        kernels: 8,
        blocks: 9_860,
        build: his,
    },
    PaperEntry {
        name: "gaussian",
        input: "512 x 512 system, built as Rodinia's README gives (RD_WG_SIZE_0 = 128, RD_WG_SIZE_1 = 16): 511 steps of Fan1 (4 blocks of 128 threads) and Fan2 (32 x 32 blocks of 16 x 16): 1,022 launches, 511 x 1,028 = 525,308 blocks",
        kernels: 1_022,
        blocks: 525_308,
        build: gaussian,
    },
];

/// The entry of `name`, if it has a `paper` size.
pub fn find(name: &str) -> Option<&'static PaperEntry> {
    PAPER.iter().find(|e| e.name == name)
}

/// The workloads with a `paper` size.
pub fn names() -> Vec<&'static str> {
    PAPER.iter().map(|e| e.name).collect()
}

fn kernel(name: &str, grid: Dim3, block: Dim3, regs: u32, smem: u32, p: Program) -> SynthDef {
    named(format!("{name}_{SIZE}"), grid, block, regs, smem, p)
}

fn c(k: i64) -> Expr {
    Expr::c(k)
}

fn eq(lhs: Expr, rhs: Expr) -> Cond {
    Cond {
        lhs,
        op: CmpOp::Eq,
        rhs,
    }
}

/// Opens the regions `lo <= e < hi` (two `if`s: close them with [`close`]).
fn within(p: &mut Program, e: Expr, lo: i64, hi: i64) -> usize {
    p.begin_if(lt(c(lo - 1), e.clone()));
    p.begin_if(lt(e, c(hi)));
    2
}

fn close(p: &mut Program, ifs: usize) {
    for _ in 0..ifs {
        p.end_if();
    }
}
