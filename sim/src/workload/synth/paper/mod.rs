//! Sizes at the papers' inputs: every launch of a benchmark as its host code makes it.
//!
//! * `paper`: seed 000's benchmarks at the thesis's inputs ([`PAPER`]; Table 4.2, seed 000
//!   L464-478: kernel launches and thread blocks per benchmark, from which the inputs are
//!   derived).
//! * `elf`: seed 003 ch. III's (ELF's) benchmarks at the inputs their suites run them with
//!   ([`ELF`]; the paper gives no sizes, only that it ran each benchmark's smallest input that
//!   could be simulated: Rodinia's `run` scripts, the same in Rodinia 2.0 and 3.1).
//! * `paver`: seed 004's (PAVER's) Table 2 benchmarks at its thread blocks per kernel
//!   ([`paver::PAVER`]; mostly the suite's single-kernel mirrors on Table 2's grids, see
//!   [`paver`]).
//!
//! Each workload is the benchmark's sequence of launches as its host code makes them (Rodinia
//! 3.x, CUDA SDK), every launch with the benchmark's grid and block, and each kernel's program
//! follows the benchmark's device code: which arrays each thread reads and writes, in which
//! order, staged through shared memory with the same barriers, with the branch conditions that
//! mask threads. Arithmetic is counted, not computed (an FFMA per multiply-add, a MUFU per
//! division). Each [`PaperEntry::input`] says where the input comes from. The
//! `small`/`medium`/`large` sizes ([`super::suite`]) stay the simplified single-kernel mirrors
//! the reference traces were exported from.

mod backprop;
mod bfs;
mod convolution;
mod fdtd3d;
mod gaussian;
mod histogram;
mod hotspot;
mod kmeans;
mod lbm;
mod lud;
mod nn;
mod nw;
mod paver;
mod srad;
#[cfg(test)]
mod tests;
mod transpose;

use super::ir::{CmpOp, Cond, Expr, Program, Space, SynthDef, Var};
use super::suite::{at, constant, dim, global, lt, named, nn_records, prologue, shared, v, ARRAY};
use crate::workload::sass::OpClass::*;
use crate::workload::Dim3;

/// The name of seed 000's size.
pub const SIZE: &str = "paper";
/// The name of seed 003 ch. III's (ELF's) size.
pub const ELF_SIZE: &str = "elf";

/// One benchmark at a paper's input.
pub struct PaperEntry {
    /// Suite workload name.
    pub name: &'static str,
    /// The input and where it comes from.
    pub input: &'static str,
    /// Kernel launches (`paper`: Table 4.2's; `elf`: the host code's at the input).
    pub kernels: usize,
    /// Thread blocks over all launches (as `kernels`).
    pub blocks: u64,
    /// Builds the launches, in order.
    pub build: fn() -> Vec<SynthDef>,
}

/// A size at a paper's inputs.
pub struct PaperSize {
    /// The size's name (`--size`).
    pub name: &'static str,
    /// Whose benchmarks at which inputs.
    pub what: &'static str,
    /// The benchmarks with this size.
    pub entries: &'static [PaperEntry],
}

/// Every size at a paper's inputs.
pub const SIZES: &[PaperSize] = &[
    PaperSize {
        name: SIZE,
        what: "seed 000's benchmarks at the thesis's inputs (Table 4.2's launches and blocks)",
        entries: PAPER,
    },
    PaperSize {
        name: ELF_SIZE,
        what: "seed 003 ch. III's (ELF's) benchmarks at the inputs of their suites' run scripts",
        entries: ELF,
    },
    PaperSize {
        name: paver::PAVER_SIZE,
        what: "seed 004's (PAVER's) Table 2 benchmarks at its thread blocks per kernel",
        entries: paver::PAVER,
    },
];

/// The size at a paper's inputs called `name`.
pub fn size(name: &str) -> Option<&'static PaperSize> {
    SIZES.iter().find(|s| s.name == name)
}

impl PaperSize {
    /// The entry of workload `name`, if it has this size.
    pub fn find(&self, name: &str) -> Option<&'static PaperEntry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The workloads with this size.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|e| e.name).collect()
    }
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

/// ELF's benchmarks that the suite mirrors at their run scripts' inputs (Rodinia 3.1's `run`
/// files in GPGPU-Sim's benchmark tree, the same as Rodinia 2.0's: ELF ran Rodinia 2.4;
/// Parboil's and the CUDA SDK's defaults). Not yet: Heartwall (too long at its input, and its
/// mirror was shaped to the thesis's program-point count).
pub const ELF: &[PaperEntry] = &[
    PaperEntry {
        name: "bfs",
        input: "graph1MW_6.txt, 1,000,000 nodes and about 6,000,000 edges (Rodinia's run: `bfs graph1MW_6.txt`): 12 BFS levels from node 0, each a Kernel and a Kernel2 on 1,954 blocks of 512 threads: 24 launches, 46,896 blocks; the graph is a hash with the input's nodes per level",
        kernels: 24,
        blocks: 46_896,
        build: bfs::bfs_elf,
    },
    PaperEntry {
        name: "km",
        input: "kdd_cup, 494,020 points of 34 features, 5 clusters (Rodinia's run: `kmeans -o -i kdd_cup`): invert_mapping on 1,936 blocks of 256 threads, then kmeansPoint on 44 x 44 blocks for the first 2 of the 37 iterations to convergence (each the same kernel on the same addresses; all 37 would take hours): 3 launches, 5,808 blocks",
        kernels: 3,
        blocks: 5_808,
        build: kmeans::km_elf,
    },
    PaperEntry {
        name: "lbm",
        input: "120 x 120 x 150 cells, 120_120_150_ldc.of (Parboil's short dataset: `lbm -i 120_120_150_ldc.of -- 100`), 4 of its 100 time steps (each the same kernel on the two grids swapped): 4 launches of 120 x 150 blocks of 120 threads, 72,000 blocks",
        kernels: 4,
        blocks: 72_000,
        build: lbm::lbm_elf,
    },
    PaperEntry {
        name: "fdtd3d",
        input: "376 x 376 x 376 points, radius 4, 5 time steps (the CUDA SDK 4.2 sample's defaults: `FDTD3d` with no arguments, the largest cube the device holds clamped to 376): the first step (each the same kernel on the two buffers swapped, none finding the last one's data in a cache): 1 launch of 12 x 24 blocks of 32 x 16 threads, 288 blocks",
        kernels: 1,
        blocks: 288,
        build: fdtd3d::fdtd3d_elf,
    },
    PaperEntry {
        name: "hs",
        input: "512 x 512 grid, pyramid height 2, 2 iterations (Rodinia's run: `hotspot 512 2 2 temp_512 power_512`): one launch of 16 x 16 blocks computing 12 x 12 points, ceil(512 / 12)^2 = 43^2 = 1,849 blocks",
        kernels: 1,
        blocks: 1_849,
        build: hotspot::hs_elf,
    },
    PaperEntry {
        name: "bp",
        input: "65,536 input units (Rodinia's run: `backprop 65536`), as `paper`: 2 launches of 4,096 blocks",
        kernels: 2,
        blocks: 8_192,
        build: backprop::bp_elf,
    },
    PaperEntry {
        name: "lud",
        input: "256 x 256 matrix (Rodinia's run: `lud_cuda -s 256`): 16 tiles, 15 steps of diagonal, perimeter and internal and a last diagonal: 46 launches, 16 + 120 + 1,240 = 1,376 blocks",
        kernels: 46,
        blocks: 1_376,
        build: lud::lud_elf,
    },
    PaperEntry {
        name: "nw",
        input: "2048 x 2048 alignment (Rodinia's run: `needle 2048 10`): 128 x 128 tiles, 128 launches of the first kernel and 127 of the second: 255 launches, 16,384 blocks",
        kernels: 255,
        blocks: 16_384,
        build: nw::nw_elf,
    },
    PaperEntry {
        name: "srad",
        input: "2048 x 2048 image, 2 iterations (Rodinia's run: `srad 2048 2048 0 127 0 127 0.5 2`), as `paper`: 4 launches of 16,384 blocks",
        kernels: 4,
        blocks: 65_536,
        build: srad::srad_elf,
    },
];

/// `defs` named for the `elf` size (the programs name their kernels for `paper`).
fn for_elf(defs: Vec<SynthDef>) -> Vec<SynthDef> {
    for_size(defs, ELF_SIZE)
}

/// `defs` named for size `size`: the `paper` or `elf` suffix of each name replaced, or
/// `_<size>` appended to a bare name (a suite kernel's).
fn for_size(mut defs: Vec<SynthDef>, size: &str) -> Vec<SynthDef> {
    for d in &mut defs {
        let stem = [SIZE, ELF_SIZE]
            .iter()
            .find_map(|s| d.name.strip_suffix(s))
            .map(str::to_string)
            .unwrap_or_else(|| format!("{}_", d.name));
        d.name = format!("{stem}{size}");
    }
    defs
}

fn kernel(name: &str, grid: Dim3, block: Dim3, regs: u32, smem: u32, p: Program) -> SynthDef {
    named(format!("{name}_{SIZE}"), grid, block, regs, smem, p)
}

/// A kernel of a benchmark with only the `elf` size, named for it.
fn elf_kernel(name: &str, grid: Dim3, block: Dim3, regs: u32, p: Program) -> SynthDef {
    named(format!("{name}_{ELF_SIZE}"), grid, block, regs, 0, p)
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
