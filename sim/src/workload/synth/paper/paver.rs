//! Size `paver`: seed 004's (PAVER's) benchmarks at its Table 2 (L146-L166), whose only
//! measure of an input is the thread blocks per kernel ("Total TB", statistics averaged over a
//! benchmark's kernels, L177). Each suite kernel that mirrors a Table 2 benchmark
//! ([`crate::analysis::paver::paper::mirrored_by`]) runs on that many blocks: Rodinia's
//! HotSpot and SRAD as their code ([`super::hotspot`], [`super::srad`]: the `elf` size's
//! inputs give Table 2's counts), the others as the suite's single-kernel mirrors of their
//! sharing pattern on Table 2's grid. `nn` and `nw` stand in for the benchmarks without
//! sharing (MUM, SAD, BLK, BP), at the inputs of their other papers' sizes.

use super::{for_size, hotspot::hs_elf, nn, nw::nw_elf, srad::srad_elf};
use super::{PaperEntry, SynthDef};
use crate::workload::synth::suite;

/// The name of seed 004's size.
pub const PAVER_SIZE: &str = "paver";

/// `d`, a suite kernel on its bare name, as a one-launch workload named for `paver`.
fn one(d: SynthDef) -> Vec<SynthDef> {
    for_size(vec![d], PAVER_SIZE)
}

/// A 1-D chain mirror (`pf`, `sto`, `htw`) named `name`.
fn chain(name: &str, blocks: u32, rows: i64, reach: i64, int_work: usize) -> Vec<SynthDef> {
    let mut d = suite::chain_of(blocks, rows, reach, int_work);
    d.name = name.to_string();
    one(d)
}

/// The benchmarks with a `paver` size.
pub const PAVER: &[PaperEntry] = &[
    PaperEntry {
        name: "syrk",
        input: "PolyBench SYRK with N = M = 256 (Table 2: 256 blocks): a 16 x 16 grid of 16 x 16 blocks (PolyBench's are 32 x 8, the same 256 threads), 256 products a thread",
        kernels: 1,
        blocks: 256,
        build: || one(suite::syrk_of(16, 256)),
    },
    PaperEntry {
        name: "syr2k",
        input: "PolyBench SYR2K with N = M = 256 (Table 2: 256 blocks), as `syrk`",
        kernels: 1,
        blocks: 256,
        build: || one(suite::syr2k_of(16, 256)),
    },
    PaperEntry {
        name: "mm",
        input: "208 x 208 matrices (Table 2: 169 blocks, a 13 x 13 grid of 16 x 16 tiles), one pass of the tile loop",
        kernels: 1,
        blocks: 169,
        build: || one(suite::mm_of(13, 1)),
    },
    PaperEntry {
        name: "btr",
        input: "10,000 queries, a block of 256 threads each (Table 2: 10,000 blocks; Rodinia's b+tree run: `k 10000`)",
        kernels: 1,
        blocks: 10_000,
        build: || one(suite::btr_of(10_000)),
    },
    PaperEntry {
        name: "htw",
        input: "51 sample points, a block each (Table 2: 51 blocks), 8 rows of the band of +-2 blocks",
        kernels: 1,
        blocks: 51,
        build: || chain("htw", 51, 8, 2, 8),
    },
    PaperEntry {
        name: "hs",
        input: "as `elf`: `hotspot 512 2 2`, one launch of 43 x 43 blocks (Table 2: 1,849)",
        kernels: 1,
        blocks: 1_849,
        build: || for_size(hs_elf(), PAVER_SIZE),
    },
    PaperEntry {
        name: "srad",
        input: "as `elf`: a 2048 x 2048 image, 2 iterations of srad_cuda_1 and srad_cuda_2 on 128 x 128 blocks (Table 2: 16,384 a kernel): 4 launches, 65,536 blocks",
        kernels: 4,
        blocks: 65_536,
        build: || for_size(srad_elf(), PAVER_SIZE),
    },
    PaperEntry {
        name: "bfs",
        input: "1,000,000 nodes, a thread each in blocks of 256 (Table 2: 3,907 blocks), one level",
        kernels: 1,
        blocks: 3_907,
        build: || one(suite::bfs_of(3_907)),
    },
    PaperEntry {
        name: "spmv",
        input: "765 blocks of 256 rows (Table 2: 765 blocks)",
        kernels: 1,
        blocks: 765,
        build: || one(suite::spmv_of(765)),
    },
    PaperEntry {
        name: "pf",
        input: "100,000 columns (Rodinia's run: `pathfinder 100000 100 20`; Table 2: 463 blocks), one launch of its pyramid height, 20 rows",
        kernels: 1,
        blocks: 463,
        build: || chain("pf", 463, 20, 1, 4),
    },
    PaperEntry {
        name: "sto",
        input: "384 blocks (Table 2), 8 rows of the chain",
        kernels: 1,
        blocks: 384,
        build: || chain("sto", 384, 8, 1, 24),
    },
    PaperEntry {
        name: "nn",
        input: "not in Table 2 (a stand-in for its benchmarks without sharing): as `paper`, one launch of 5,120 blocks",
        kernels: 1,
        blocks: 5_120,
        build: || for_size(nn::nn(), PAVER_SIZE),
    },
    PaperEntry {
        name: "nw",
        input: "not in Table 2 (a stand-in for its benchmarks without sharing): as `elf`, `needle 2048 10`: 255 launches, 16,384 blocks",
        kernels: 255,
        blocks: 16_384,
        build: || for_size(nw_elf(), PAVER_SIZE),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::paver::paper::{mirrored_by, TABLE2};

    /// Every benchmark of Table 2 the suite mirrors has the size, with Table 2's blocks per
    /// kernel; the others are the two stand-ins.
    #[test]
    fn the_mirrored_benchmarks_run_table_2s_blocks() {
        for e in PAVER {
            match mirrored_by(e.name) {
                Some(row) => assert_eq!(e.blocks / e.kernels as u64, row.tbs as u64, "{}", e.name),
                None => assert!(["nn", "nw"].contains(&e.name), "{}", e.name),
            }
        }
        for row in TABLE2.iter().filter(|r| r.suite.is_some()) {
            assert!(
                PAVER.iter().any(|e| Some(e.name) == row.suite),
                "{}",
                row.benchmark
            );
        }
    }
}
